# same-name-exclusive: the same four stats with vfs.lookup=exclusive (the
# old i_mutex way): the second, third and fourth wait for i_rwsem, not for
# the in-lookup dentry, and find the name cached when they get it.
# kargs: vfs.lookup=exclusive
mkdir /slow
mount -t slowfs latency=200,names=8 /slow
trace clear
stat /slow/f1 > /dev/null & stat /slow/f1 > /dev/null & stat /slow/f1 > /dev/null & stat /slow/f1 > /dev/null &
wait
trace stop
slowfs /slow
