# link: hard links share an inode and count it; directories cannot be linked.
expect 0 create f 0644
set ino stat f ino
expect 0 link f g
expect regular,2,$ino stat g type,nlink,ino
expect 2 stat f nlink
expect 0 link g h
expect 3 stat f nlink
expect 0 unlink f
expect 2 stat h nlink
expect 0 open g O_WRONLY : write 0 shared
expect shared open h O_RDONLY : pread 0 100 0
expect 0 chmod g 0600
expect 0600 stat h mode
# Errors.
expect EEXIST link g h
expect 0 create other 0644
expect EEXIST link g other
expect ENOENT link nothere x
expect ENOENT link g nothere/x
expect ENOTDIR link g h/x
expect ENOTDIR link h/x y
expect 0 mkdir d 0755
expect EPERM link d d2
expect EEXIST link g d
expect 0 link g d/inside
expect 3 stat g nlink
expect ENAMETOOLONG link g {n*256}
expect ENAMETOOLONG link {n*256} x
# A symlink is linked itself, not its target.
expect 0 symlink g sl
expect 0 link sl sl2
expect symlink,2 lstat sl2 type,nlink
expect 3 stat g nlink
expect 0 symlink nowhere dangling
expect 0 link dangling dangling2
expect symlink lstat dangling2 type
# An existing new name comes before "the source is a directory" (Linux's order).
expect 0 mkdir ldir 0755
expect 0 create lexists 0644
expect EEXIST link ldir lexists
expect EEXIST link ldir ldir
expect EPERM link ldir lnew
