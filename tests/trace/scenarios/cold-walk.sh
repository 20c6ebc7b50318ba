# cold-walk: four stats of four files in one directory of an ext2 disk
# that answers each read after 10 ms, none of it cached.  The four walk
# w, a and b together (one owner looks each up, three wait on its
# in-lookup dentry); then f1..f4 are four lookups in b at once, which
# want the same directory block and the same inode-table block: one
# thread reads each, the others wait for the buffer.
# disk: 10 w/a/b/f1 w/a/b/f2 w/a/b/f3 w/a/b/f4
mkdir /mnt
mount -t ext2 -o ro /dev/vda /mnt
trace clear
stat /mnt/w/a/b/f1 > /dev/null & stat /mnt/w/a/b/f2 > /dev/null & stat /mnt/w/a/b/f3 > /dev/null & stat /mnt/w/a/b/f4 > /dev/null &
wait
trace stop
