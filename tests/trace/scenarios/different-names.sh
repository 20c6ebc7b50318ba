# different-names: four stats of four names on the same slowfs: four
# lookups in the filesystem at once, under i_rwsem held shared by all four.
mkdir /slow
mount -t slowfs latency=200,names=8 /slow
trace clear
stat /slow/f2 > /dev/null & stat /slow/f3 > /dev/null & stat /slow/f4 > /dev/null & stat /slow/f5 > /dev/null &
wait
trace stop
slowfs /slow
