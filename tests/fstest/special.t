# FIFOs, device nodes and sockets are inodes like any other: stat, rename,
# link, unlink, chmod and chown work on each; opening a device or a socket
# says ENXIO (no driver, no open for sockets), after the permission check.
expect 0 mkfifo fifo 0644
expect 0 mknod chr c 0644 120 1
expect 0 mknod blk b 0644 120 2
expect 0 bind sock
expect socket,1,0 lstat sock type,nlink,size
expect EADDRINUSE bind sock
expect EADDRINUSE bind fifo
expect 0 -U 022 bind sock2
expect socket,0755 lstat sock2 type,mode
expect ENOENT bind nothere/sock
# Open: devices and sockets ENXIO, whatever the access mode; O_CREAT of an
# existing one is the same; O_TRUNC changes nothing.
expect ENXIO open chr O_RDONLY
expect ENXIO open chr O_WRONLY
expect ENXIO open blk O_RDWR
expect ENXIO open chr O_RDONLY,O_CREAT 0644
expect EEXIST open chr O_RDONLY,O_CREAT,O_EXCL 0644
expect ENXIO open sock O_RDONLY
expect ENXIO open sock O_RDWR
expect ENXIO open sock O_WRONLY,O_TRUNC
expect ENOTDIR open chr O_RDONLY,O_DIRECTORY
expect ENOTDIR open fifo O_RDONLY,O_DIRECTORY
expect 0 open fifo O_RDWR,O_TRUNC
expect char,120,1 stat chr type,major,minor
# Permission is checked before the device's ENXIO.
expect 0 chmod chr 0600
expect 0 chmod sock 0600
expect EACCES -u 65534 -g 65534 open chr O_RDONLY
expect EACCES -u 65534 -g 65534 open sock O_RDONLY
expect 0 chmod chr 0666
expect ENXIO -u 65534 -g 65534 open chr O_RDONLY
# ENOTDIR through one; no truncate.
expect ENOTDIR stat fifo/x type
expect ENOTDIR stat chr/ type
expect ENOTDIR mkdir sock/x 0755
expect EINVAL truncate fifo 0
expect EINVAL truncate chr 0
# chmod and chown, by root and by the owner.
expect 0 chmod fifo 0600
expect 0600 stat fifo mode
expect 0 chmod blk 01777
expect block,01777 stat blk type,mode
expect 0 chown fifo 65534 65534
expect 65534,65534 stat fifo uid,gid
expect 0 -u 65534 -g 65534 chmod fifo 0640
expect 0640 stat fifo mode
expect EPERM -u 65533 -g 65533 chmod fifo 0777
expect 0 chown sock 65534 65534
expect 0 -u 65534 -g 65534,7 chown sock -1 7
expect 65534,7 lstat sock uid,gid
expect 0 chmod blk 06755
expect 0 chown blk 65534 65534
expect 0755 stat blk mode
expect 0 chmod chr 06750
expect 0 chown chr 65534 -1
expect 0750 lstat chr mode
# Links: each type can have several names; rename keeps the inode.
set I lstat fifo ino
expect 0 link fifo fifo2
expect fifo,2 lstat fifo2 type,nlink
expect 0 link chr chr2
expect 0 link blk blk2
expect 0 link sock sock3
expect socket,2 lstat sock3 type,nlink
expect 0 rename fifo2 fifo3
expect $I,2 lstat fifo3 ino,nlink
expect 0 unlink fifo3
expect 1 lstat fifo nlink
expect 0 mkdir d 0755
expect 0 rename fifo d/fifo
expect fifo,$I lstat d/fifo type,ino
expect 0 rename chr d/chr
expect 0 rename blk d/blk
expect 0 rename sock d/sock
expect socket lstat d/sock type
# Over each other, and over a regular file; never over a directory.
expect 0 rename d/chr d/blk
expect char,120,1 lstat d/blk type,major,minor
expect ENOENT lstat d/chr type
expect 0 create reg 0644
expect 0 rename d/sock reg
expect socket lstat reg type
expect 0 mkdir e 0755
expect EISDIR rename d/fifo e
expect ENOTDIR rename e d/fifo
expect EISDIR unlink e
expect ENOTDIR rmdir d/fifo
expect ENOTDIR rmdir reg
# Unlink each type.
expect 0 unlink d/fifo
expect 0 unlink d/blk
expect 0 unlink reg
expect 0 unlink chr2
expect 0 unlink blk2
expect 0 unlink sock3
expect 0 unlink sock2
expect ENOENT lstat d/fifo type
expect 0 rmdir d
# The sticky bit and unlink by others apply to them as to files.
expect 0 mkdir s 01777
expect 0 -u 65534 -g 65534 mkfifo s/p 0644
expect 0 -u 65534 -g 65534 bind s/k
expect EPERM -u 65533 -g 65533 unlink s/p
expect EPERM -u 65533 -g 65533 unlink s/k
expect 0 -u 65534 -g 65534 unlink s/k
expect 0 unlink s/p
# Hard links by others (fs.protected_hardlinks): only to regular files,
# so never to someone else's FIFO, device or socket, even a writable one.
expect 0 mkfifo s/theirs 0666
expect 0 mknod s/dev c 0666 120 9
expect EPERM -u 65533 -g 65533 link s/theirs s/mine
expect EPERM -u 65533 -g 65533 link s/dev s/mine
expect 0 -u 65533 -g 65533 mkfifo s/own 0600
expect 0 -u 65533 -g 65533 link s/own s/own2
# Renaming over each other by others in a sticky directory: EPERM.
expect EPERM -u 65533 -g 65533 rename s/own s/theirs
expect 0 -u 65533 -g 65533 rename s/own2 s/own3
expect 0 unlink s/theirs
expect 0 unlink s/dev
