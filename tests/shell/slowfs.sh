# slowfs: parallel lookups.  Eight stats of one name at once ask the
# filesystem once (the others wait for that lookup); eight different
# names are eight lookups.
mkdir -p /slow
mount -t slowfs latency=100,names=8 /slow
slowfs /slow
stat /slow/f1 > /tmp/s0
stat /slow/f3 > /tmp/s1 & stat /slow/f3 > /tmp/s2 & stat /slow/f3 > /tmp/s3 & stat /slow/f3 > /tmp/s4 &
stat /slow/f3 > /tmp/s5 & stat /slow/f3 > /tmp/s6 & stat /slow/f3 > /tmp/s7 & stat /slow/f3 > /tmp/s8 &
wait
slowfs /slow
stat /slow/f0 > /tmp/t0 & stat /slow/f1 > /tmp/t1 & stat /slow/f2 > /tmp/t2 & stat /slow/f4 > /tmp/t4 &
stat /slow/f5 > /tmp/t5 & stat /slow/f6 > /tmp/t6 & stat /slow/f7 > /tmp/t7 & stat /slow/nope > /tmp/t8 &
wait
slowfs /slow
ls /slow
umount /slow
exit 0
