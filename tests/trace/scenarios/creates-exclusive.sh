# creates-exclusive: four creates of four new names in one directory of a slowfs
# whose lookups and changes sleep 200 ms (mounted rw=1).  With
# vfs.dirops=exclusive each create takes the directory's i_rwsem
# exclusive, the old way: the four reach slowfs one at a time.
# kargs: vfs.dirops=exclusive
mkdir /slow
mount -t slowfs latency=200,names=8,rw=1 /slow
trace clear
touch /slow/a & touch /slow/b & touch /slow/c & touch /slow/d &
wait
trace stop
slowfs /slow
