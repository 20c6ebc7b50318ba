# user-same-name: the same-name story told by user processes: busybox sh
# forks four busybox stat processes of one name on a slowfs whose lookups
# sleep 1 s (time enough for four execs under TCG).  Their lanes show user
# mode between system calls, and the stat calls meeting on one in-lookup
# dentry.  Needs build/initrd.cpio's busybox (make trace puts it first).
mkdir /slow
mount -t slowfs latency=1000,names=8 /slow
trace clear
run /bin/sh -c 'stat /slow/f1 >/dev/null & stat /slow/f1 >/dev/null & stat /slow/f1 >/dev/null & stat /slow/f1 >/dev/null & wait'
trace stop
slowfs /slow
