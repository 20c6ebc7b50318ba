# Search (x) permission on every directory a path walk passes, the
# directory of the last component too, checked before the name is looked
# at; root searches any directory.  (The top directory is made 0755 first:
# a tmpfs on Linux starts as 1777.)
expect 0 chmod . 0755
expect 0 mkdir d 0755
expect 0 mkdir d/e 0755
expect 0 create d/e/f 0644
expect regular -u 65534 -g 65534 stat d/e/f type
expect 0 chmod d 0644
expect EACCES -u 65534 -g 65534 stat d/e/f type
expect EACCES -u 65534 -g 65534 stat d/e type
expect EACCES -u 65534 -g 65534 stat d/nothere type
expect EACCES -u 65534 -g 65534 stat d/{x*256} type
expect EACCES -u 65534 -g 65534 open d/e/f O_RDONLY
expect dir -u 65534 -g 65534 stat d type
expect regular stat d/e/f type
expect 0 chmod d 0
expect regular stat d/e/f type
# Only the first class that matches counts: owner, then group, then other.
expect 0 chown d 65534 65533
expect 0 chmod d 0077
expect EACCES -u 65534 -g 65534 stat d/e type
expect dir -u 65532 -g 65533 stat d/e type
expect 0 chmod d 0707
expect EACCES -u 65532 -g 65533 stat d/e type
expect dir -u 65532 -g 65532 stat d/e type
expect 0 chmod d 0770
expect EACCES -u 65532 -g 65532 stat d/e type
# A supplementary group is a group.
expect dir -u 65532 -g 65532,65533 stat d/e type
# ".." is a component like any other, in a directory like any other.
expect 0 chmod d 0755
expect 0 chmod d/e 0644
expect EACCES -u 65534 -g 65534 stat d/e/.. type
expect dir -u 65534 -g 65534 stat d/e type
# A symlink's body is walked with the same checks.
expect 0 chmod d/e 0755
expect 0 symlink d/e/f sl
expect regular -u 65534 -g 65534 stat sl type
expect 0 chmod d 0600
expect EACCES -u 65534 -g 65534 stat sl type
expect symlink -u 65534 -g 65534 lstat sl type
# A file in the middle is still ENOTDIR when its directory may be searched.
expect 0 chmod d 0755
expect ENOTDIR -u 65534 -g 65534 stat d/e/f/x type
