# The sticky bit on a directory: only the entry's owner, the directory's
# owner or root may unlink or rename it (EPERM); write permission is
# checked first (EACCES).
expect 0 chmod . 0755
expect 0 mkdir t 01777
expect 0 -u 65534 -g 65534 create t/a 0644
expect 0 -u 65533 -g 65533 create t/b 0644
expect EPERM -u 65533 -g 65533 unlink t/a
expect EPERM -u 65533 -g 65533 rename t/a t/a2
expect 0 -u 65534 -g 65534 rename t/a t/a2
expect 0 -u 65534 -g 65534 unlink t/a2
expect EPERM -u 65534 -g 65534 rename t/b t/c
# Over another user's file: the victim is taken out too.
expect 0 -u 65534 -g 65534 create t/y 0644
expect EPERM -u 65534 -g 65534 rename t/y t/b
expect EPERM -u 65534 -g 65534 unlink t/b
expect 0 unlink t/b
# Directories too.
expect 0 -u 65534 -g 65534 mkdir t/dd 0777
expect EPERM -u 65532 -g 65532 rmdir t/dd
expect 0 -u 65534 -g 65534 rmdir t/dd
# The directory's owner may.
expect 0 chown t 65533 65533
expect 0 -u 65534 -g 65534 create t/x 0644
expect 0 -u 65533 -g 65533 unlink t/x
expect 0 -u 65534 -g 65534 create t/x 0644
expect 0 -u 65533 -g 65533 rename t/x t/x2
# Without write permission: EACCES, before the sticky rule.
expect 0 chmod t 01755
expect EACCES -u 65532 -g 65532 unlink t/x2
expect EACCES -u 65534 -g 65534 unlink t/y
# Without the bit, write permission alone decides.
expect 0 chmod t 0777
expect 0 -u 65532 -g 65532 unlink t/y
expect 0 -u 65532 -g 65532 rename t/x2 t/x3
