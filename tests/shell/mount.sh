# Mounting: ramfs on a directory, the mount list, unmounting, errors.
mkdir -p /mnt/r
mount -t ramfs /mnt/r
touch /mnt/r/inside
ls /mnt/r
mounts
cd /mnt/r
umount /mnt/r
cd /
umount /mnt/r
ls /mnt/r
umount /mnt/r
mount -t nosuchfs /mnt/r
mount /mnt/r
mount -t ramfs /mnt/nowhere
exit 0
