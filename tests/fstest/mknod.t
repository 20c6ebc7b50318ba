# mknod: FIFOs, device nodes and regular files; the type, the device
# number, the mode with the umask, the owner; the errors, in Linux's order.
expect 0 mknod fifo f 0644 0 0
expect fifo,0644,1,0 lstat fifo type,mode,nlink,size
expect 0 mknod chr c 0600 120 3
expect char,0600,120,3,0 lstat chr type,mode,major,minor,size
expect 0 mknod blk b 0640 120 70000
expect block,0640,120,70000 lstat blk type,mode,major,minor
# A FIFO's device number is ignored; a regular file (type "o") is made.
expect 0 mknod fifo2 f 0644 120 3
expect fifo,0,0 lstat fifo2 type,major,minor
expect 0 mknod reg o 0640 0 0
expect regular,0640,0 lstat reg type,mode,size
# The type's errors come before the path's: a directory is EPERM.
expect EPERM mknod dir d 0755 0 0
expect EPERM mknod nothere/dir d 0755 0 0
expect ENOENT lstat dir type
# The umask, and set-user-ID, set-group-ID and sticky bits.
expect 0 -U 022 mknod f1 f 0777 0 0
expect 0755 lstat f1 mode
expect 0 -U 077 mknod c1 c 0666 120 1
expect 0600 lstat c1 mode
expect 0 mknod f2 f 07777 0 0
expect 07777 lstat f2 mode
# The name: an existing one of any type, dot names, a trailing slash.
expect EEXIST mknod fifo f 0644 0 0
expect EEXIST mknod chr c 0644 120 3
expect EEXIST mknod reg f 0644 0 0
expect 0 mkdir d 0755
expect EEXIST mknod d f 0644 0 0
expect EEXIST mknod d/. f 0644 0 0
expect EEXIST mknod d/.. f 0644 0 0
expect EEXIST mknod d/ f 0644 0 0
expect ENOENT mknod new/ f 0644 0 0
expect 0 symlink nowhere dangling
expect EEXIST mknod dangling f 0644 0 0
expect ENOENT mknod nothere/x f 0644 0 0
expect ENOTDIR mknod reg/x f 0644 0 0
expect ENAMETOOLONG mknod {x*256} f 0644 0 0
expect 0 mknod {x*255} f 0644 0 0
expect 0 unlink {x*255}
expect ENOENT mknod {x*0} f 0644 0 0
# Credentials: anyone makes a FIFO where it may write; only root makes
# device nodes (EPERM), and the directory's permission comes first.
expect 0 chmod d 0777
expect 0 -u 65534 -g 65534 mknod d/f f 0644 0 0
expect fifo,65534,65534 lstat d/f type,uid,gid
expect EPERM -u 65534 -g 65534 mknod d/c c 0644 120 1
expect EPERM -u 65534 -g 65534 mknod d/b b 0644 120 1
expect 0 -u 65534 -g 65534 mknod d/r o 0644 0 0
expect 0 chmod d 0755
expect EACCES -u 65534 -g 65534 mknod d/f3 f 0644 0 0
expect EACCES -u 65534 -g 65534 mknod d/c3 c 0644 120 1
expect 0 chmod d 0666
expect EACCES -u 65534 -g 65534 mknod d/f4 f 0644 0 0
# A set-group-ID directory gives its group.
expect 0 mkdir g 0777
expect 0 chown g 0 1234
expect 0 chmod g 02777
expect 0 -u 65534 -g 65534 mknod g/f f 0644 0 0
expect 65534,1234 lstat g/f uid,gid
expect 0 mknod g/c c 0644 120 2
expect 0,1234 lstat g/c uid,gid
