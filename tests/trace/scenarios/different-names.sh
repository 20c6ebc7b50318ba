# different-names: four stats of four names on the same slowfs: four
# lookups in the filesystem at once, under i_rwsem held shared by all four.
mkdir /tmp /slow
mount -t slowfs latency=200,names=8 /slow
trace clear
stat /slow/f2 > /tmp/2 & stat /slow/f3 > /tmp/3 & stat /slow/f4 > /tmp/4 & stat /slow/f5 > /tmp/5 &
wait
trace stop
slowfs /slow
