# different-names-exclusive: the four names with vfs.lookup=exclusive:
# the lookups queue on i_rwsem and reach the filesystem one at a time.
# kargs: vfs.lookup=exclusive
mkdir /slow
mount -t slowfs latency=200,names=8 /slow
trace clear
stat /slow/f2 > /dev/null & stat /slow/f3 > /dev/null & stat /slow/f4 > /dev/null & stat /slow/f5 > /dev/null &
wait
trace stop
slowfs /slow
