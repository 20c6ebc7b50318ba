# The introspection commands run and succeed (their numbers vary, so
# only their status is compared here).
mkdir -p /tmp/i
cpus > /tmp/i/out; echo cpus $?
threads > /tmp/i/out; echo threads $?
slab > /tmp/i/out; echo slab $?
dcache > /tmp/i/out; echo dcache $?
icache > /tmp/i/out; echo icache $?
dcache dump /tmp > /tmp/i/out; echo dcache dump $?
mounts > /tmp/i/out; echo mounts $?
lat /tmp 10 > /tmp/i/out; echo lat $?
ktest -l > /tmp/i/out; echo ktest -l $?
ktest nosuchsuite
dcache dump /nowhere
exit 0
