# A new file belongs to its creator's uid and gid, or to its directory's
# group if the directory is set-group-ID (a new subdirectory inherits the
# bit); the umask applies to open(O_CREAT) and mkdir, not to symlink.
expect 0 chmod . 0777
expect 0 -u 65534 -g 65534 -U 022 mkdir d 0777
expect dir,0755,65534,65534 stat d type,mode,uid,gid
expect 0 -u 65534 -g 65534 -U 077 create f 0666
expect 0600 stat f mode
expect 0 -u 65534 -g 65534 -U 0 create g 0666
expect 0666 stat g mode
expect 0 -U 022 open h O_CREAT,O_WRONLY 0777
expect 0755,0,0 stat h mode,uid,gid
expect 0 -u 65534 -g 65534 -U 077 symlink x sl
expect 0777,65534,65534 lstat sl mode,uid,gid
expect 0 -U 0111 mkdir m 0777
expect 0666 stat m mode
# mkdir takes no set-user-ID or set-group-ID from its mode; sticky it keeps.
expect 0 mkdir n 07777
expect 01777 stat n mode
# A set-group-ID directory.
expect 0 mkdir s 0777
expect 0 chown s 65534 65533
expect 0 chmod s 02777
expect 0 -u 65532 -g 65532 create s/f 0644
expect 65532,65533 stat s/f uid,gid
expect 0 -u 65532 -g 65532 mkdir s/d 0755
expect 02755,65532,65533 stat s/d mode,uid,gid
expect 0 -u 65532 -g 65532 -U 022 mkdir s/d/e 0777
expect 02755,65533 stat s/d/e mode,gid
expect 0 -u 65532 -g 65532 symlink x s/sl
expect 65533 lstat s/sl gid
expect 0 create s/r 0644
expect 0,65533 stat s/r uid,gid
# A set-group-ID file made there by someone outside the group loses the
# bit (if group-execute is set); a member or root keeps it.
expect 0 -u 65532 -g 65532 create s/g 02755
expect 0755 stat s/g mode
expect 0 -u 65532 -g 65532,65533 create s/g2 02755
expect 02755 stat s/g2 mode
expect 0 create s/g3 02755
expect 02755 stat s/g3 mode
# Outside a set-group-ID directory nothing is stripped.
expect 0 -u 65532 -g 65532 create p 02755
expect 02755 stat p mode
