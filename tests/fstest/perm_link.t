# Hard links to another user's file: Linux's protected_hardlinks (on by
# default): the owner or root, or anyone who may read and write a
# regular file that is neither set-user-ID nor executable set-group-ID.
# EEXIST comes first, EPERM before the directory's EACCES.
expect 0 chmod . 0777
expect 0 create f 0644
expect EPERM -u 65534 -g 65534 link f l
expect 0 chmod f 0666
expect 0 -u 65534 -g 65534 link f l
expect 0 stat l uid
expect 0 unlink l
expect 0 chmod f 04666
expect EPERM -u 65534 -g 65534 link f l
expect 0 chmod f 02676
expect EPERM -u 65534 -g 65534 link f l
expect 0 chmod f 02666
expect 0 -u 65534 -g 65534 link f l
expect EEXIST -u 65533 -g 65533 link f l
expect 0 chown f 65534 65534
expect 0 chmod f 0
expect 0 -u 65534 -g 65534 link f l2
expect 0 link f l3
expect 0 mkdir d 0755
expect EPERM -u 65533 -g 65533 link f d/x
expect 0 chmod f 0666
expect EACCES -u 65533 -g 65533 link f d/x
# Mounting is root's, after the walk.
expect 0 mkdir m 0777
expect EPERM -u 65534 -g 65534 mount ramfs m
expect ENOENT -u 65534 -g 65534 mount ramfs nothere
expect 0 mount ramfs m
expect EPERM -u 65534 -g 65534 umount m
expect 0 umount m
