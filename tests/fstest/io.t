# pread, pwrite, write: data, sizes, holes, and descriptors of the wrong kind.
expect 0 open f O_CREAT,O_RDWR 0644 : write 0 hello : write 0 world
expect 10 stat f size
expect helloworld open f O_RDONLY : pread 0 100 0
expect low open f O_RDONLY : pread 0 3 3
expect {x*0} open f O_RDONLY : pread 0 10 10
expect {x*0} open f O_RDONLY : pread 0 10 1000
expect 0 open f O_WRONLY : pwrite 0 HELLO 0
expect HELLOworld open f O_RDONLY : pread 0 100 0
expect 10 stat f size
# Writing past the end leaves a hole that reads as zeros (pread stops at the first NUL).
expect 0 open f O_WRONLY : pwrite 0 end 20
expect 23 stat f size
expect HELLOworld open f O_RDONLY : pread 0 100 0
expect end open f O_RDONLY : pread 0 100 20
# write moves the offset; pwrite does not.
expect 0 open g O_CREAT,O_RDWR 0644 : write 0 abc : pwrite 0 XY 0 : write 0 def
expect XYcdef open g O_RDONLY : pread 0 100 0
expect 7 open g O_RDONLY : open g O_RDWR : write 1 1234567 : fstat 0 size
# The wrong kind of descriptor.
expect EBADF open f O_RDONLY : write 0 x
expect EBADF open f O_RDONLY : pwrite 0 x 0
expect EBADF open f O_WRONLY : pread 0 1 0
expect EINVAL open f O_RDONLY : pread 0 1 -1
expect EINVAL open f O_WRONLY : pwrite 0 x -1
expect EBADF open f O_RDONLY : close 0 : pread 0 1 0
expect EBADF open f O_RDONLY : close 0 : close 0
expect EBADF fstat BADFD type
expect EBADF write BADFD x
expect 0 mkdir d 0755
expect EISDIR open d O_RDONLY : pread 0 1 0
expect EBADF open d O_RDONLY : write 0 x
# Two descriptors of one file see each other's writes.
expect abc open h O_CREAT,O_WRONLY 0644 : open h O_RDONLY : write 0 abc : pread 1 10 0
