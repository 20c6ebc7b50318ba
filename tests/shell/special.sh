# Special files: FIFOs and device nodes; ls -l shows their type letters
# and a device's numbers; a FIFO carries data between two jobs; opening a
# device says there is no such device (no drivers).
mkdir -p /tmp/sp
cd /tmp/sp
umask 022
mkfifo p
mknod c c 120 3
mknod b b 8 1
mknod q p
ls -l
stat c
cat c
mknod x c
mknod x z 1 2
mknod x p 1 2
mkfifo p
cat p > out & echo through a fifo > p ; wait
cat out
chmod 0777 .
su 1000 mknod d c 1 1
su 1000 mkfifo mine
ls -l mine
mv p p2
ln p2 p3
chmod 0600 p3
ls -l p2 p3
rm p2 p3 c b q mine out
ls
exit 0
