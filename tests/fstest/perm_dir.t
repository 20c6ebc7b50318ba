# Changing a directory takes write and search permission on it: create,
# mkdir, symlink, link, unlink, rmdir, rename (both directories).  A name
# that exists is EEXIST, and one that does not ENOENT, before EACCES.
expect 0 chmod . 0755
expect 0 mkdir d 0755
expect 0 mkdir d/sub 0755
expect 0 create d/f 0644
expect 0 chown d/f 65534 65534
expect EACCES -u 65534 -g 65534 create d/g 0644
expect EACCES -u 65534 -g 65534 open d/g O_CREAT,O_WRONLY 0644
expect EACCES -u 65534 -g 65534 mkdir d/h 0755
expect EACCES -u 65534 -g 65534 symlink x d/s
expect EACCES -u 65534 -g 65534 link d/f d/l
expect EACCES -u 65534 -g 65534 unlink d/f
expect EACCES -u 65534 -g 65534 rmdir d/sub
expect EACCES -u 65534 -g 65534 rename d/f d/f2
expect EACCES -u 65534 -g 65534 rmdir d/f
expect EACCES -u 65534 -g 65534 unlink d/sub
expect EEXIST -u 65534 -g 65534 mkdir d/f 0755
expect EEXIST -u 65534 -g 65534 create d/f 0644
expect EEXIST -u 65534 -g 65534 symlink x d/f
expect ENOENT -u 65534 -g 65534 unlink d/nothere
expect ENOENT -u 65534 -g 65534 rmdir d/nothere
# Write without search is not enough.
expect 0 chmod d 0666
expect EACCES -u 65534 -g 65534 create d/g 0644
expect EACCES -u 65534 -g 65534 unlink d/f
# With both, each works, and a new file belongs to its creator.
expect 0 chmod d 0777
expect 0 -u 65534 -g 65534 create d/g 0644
expect 65534,65534 stat d/g uid,gid
expect 0 -u 65534 -g 65534 mkdir d/h 0755
expect 0 -u 65534 -g 65534 symlink x d/s
expect 65534,65534 lstat d/s uid,gid
expect 0 -u 65534 -g 65534 link d/g d/l
expect 0 -u 65534 -g 65534 rename d/l d/l2
expect 0 -u 65534 -g 65534 unlink d/l2
expect 0 -u 65534 -g 65534 rmdir d/h
# A directory root owns, in a directory the user may write, can be
# removed (the directory's permission decides, not the victim's).
expect 0 -u 65534 -g 65534 rmdir d/sub
expect 0 mkdir d/sub 0700
# rename: write and search on both directories.
expect 0 mkdir e 0755
expect EACCES -u 65534 -g 65534 rename d/g e/g
expect 0 chmod e 0777
expect 0 chmod d 0755
expect EACCES -u 65534 -g 65534 rename d/g e/g
expect 0 chmod d 0777
expect 0 -u 65534 -g 65534 rename d/g e/g
expect 0 create e/v 0644
expect 0 chmod e 0755
expect EACCES -u 65534 -g 65534 rename d/f e/v
expect 0 chmod e 0777
expect 0 -u 65534 -g 65534 rename d/f e/v
expect 65534 stat e/v uid
# A directory that changes parent needs write permission on itself (its
# ".." changes); within one directory it does not.
expect EACCES -u 65534 -g 65534 rename d/sub e/sub
expect 0 -u 65534 -g 65534 rename d/sub d/sub2
expect 0 chown d/sub2 65534 65534
expect 0 -u 65534 -g 65534 rename d/sub2 e/sub
# Root needs none of it.
expect 0 chmod e 0
expect 0 create e/r 0644
expect 0 rename e/sub d/sub
expect 0 unlink e/r
