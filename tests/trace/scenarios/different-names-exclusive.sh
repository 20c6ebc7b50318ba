# different-names-exclusive: the four names with vfs.lookup=exclusive:
# the lookups queue on i_rwsem and reach the filesystem one at a time.
# kargs: vfs.lookup=exclusive
mkdir /tmp /slow
mount -t slowfs latency=200,names=8 /slow
trace clear
stat /slow/f2 > /tmp/2 & stat /slow/f3 > /tmp/3 & stat /slow/f4 > /tmp/4 & stat /slow/f5 > /tmp/5 &
wait
trace stop
slowfs /slow
