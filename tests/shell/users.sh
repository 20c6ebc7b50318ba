# Users, groups and permissions: id, su, umask, chmod, chown, ls -l.
id
umask
mkdir -p /tmp/u
chmod 0777 /tmp/u
cd /tmp/u
su 1000 id
su 1000:100,5,7 id
su 1000 mkdir mine
su 1000 touch mine/f
ls -l mine
umask 077
touch private
umask
ls -l private
umask 022
mkdir /tmp/u/rootdir
su 1000 mkdir /tmp/u/rootdir/x
su 1000 touch /tmp/u/rootdir/x
chmod 0700 /tmp/u/rootdir
su 1000 ls /tmp/u/rootdir
su 1000 chmod 0777 /tmp/u/rootdir
chown 1000:100 /tmp/u/rootdir
su 1000 ls -l /tmp/u/rootdir
su 1000:100 chown :5 /tmp/u/rootdir
su 1000:100,5 chown :5 /tmp/u/rootdir
su 1000 chown 0 /tmp/u/rootdir
chmod 01777 /tmp/u/rootdir
su 1000 touch /tmp/u/rootdir/t
su 1001 rm /tmp/u/rootdir/t
ls -l /tmp/u/rootdir
chmod 4755 mine/f
stat mine/f
su 1000 cd /
su 1000 umask 0
su x id
su 1000:1,,2 id
umask 0800
chmod 0888 mine
chown x mine
exit 0
