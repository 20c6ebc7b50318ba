# same-name: four stats of one name on a slowfs whose lookups sleep 200 ms
# (README, "See parallel lookup"): one thread asks the filesystem, three wait on its
# in-lookup dentry, all four hold the directory's i_rwsem shared.
mkdir /slow
mount -t slowfs latency=200,names=8 /slow
trace clear
stat /slow/f1 > /dev/null & stat /slow/f1 > /dev/null & stat /slow/f1 > /dev/null & stat /slow/f1 > /dev/null &
wait
trace stop
slowfs /slow
