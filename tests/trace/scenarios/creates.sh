# creates: four creates of four new names in one directory of a slowfs
# whose lookups and changes sleep 200 ms (mounted rw=1).  Each create
# holds the directory's i_rwsem shared and locks only its own name
# (docs/design/24-dirops.md), so the four are in slowfs together.
mkdir /slow
mount -t slowfs latency=200,names=8,rw=1 /slow
trace clear
touch /slow/a & touch /slow/b & touch /slow/c & touch /slow/d &
wait
trace stop
slowfs /slow
