# slowfs: parallel lookups.  Every slowfs lookup sleeps 100 ms.  Eight
# stats of one name at once ask the filesystem once (the other seven
# wait for that in-lookup dentry): 2 lookups so far, f1 and f3, never
# more than 1 at once.  Seven new names at once are seven lookups that
# overlap (how many at once depends on the timing: {*} in the .out),
# then a missing name is one more, a miss, cached as a negative dentry.
# slowfs also counts breaches of the VFS's promise (a name asked twice at
# once, or again after its answer was hashed): both stay 0.
mkdir -p /slow /tmp
mount -t slowfs latency=100,names=8 /slow
slowfs /slow
stat /slow/f1 > /tmp/s0
stat /slow/f3 > /tmp/s1 & stat /slow/f3 > /tmp/s2 & stat /slow/f3 > /tmp/s3 & stat /slow/f3 > /tmp/s4 &
stat /slow/f3 > /tmp/s5 & stat /slow/f3 > /tmp/s6 & stat /slow/f3 > /tmp/s7 & stat /slow/f3 > /tmp/s8 &
wait
slowfs /slow
stat /slow/f0 > /tmp/t0 & stat /slow/f1 > /tmp/t1 & stat /slow/f2 > /tmp/t2 & stat /slow/f4 > /tmp/t4 &
stat /slow/f5 > /tmp/t5 & stat /slow/f6 > /tmp/t6 & stat /slow/f7 > /tmp/t7 &
wait
stat /slow/nope
slowfs /slow
ls /slow
dcache dump /slow
umount /slow
exit 0
