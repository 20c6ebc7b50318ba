# truncate and ftruncate: sizes up and down, and every errno.
expect 0 open f O_CREAT,O_WRONLY 0644 : write 0 hello
expect 0 truncate f 2
expect 2 stat f size
expect he open f O_RDONLY : pread 0 100 0
expect 0 truncate f 100
expect 100 stat f size
expect he open f O_RDONLY : pread 0 100 0
expect {x*0} open f O_RDONLY : pread 0 10 50
expect 0 truncate f 0
expect 0 stat f size
expect 0 open f O_WRONLY : ftruncate 0 7
expect 7 stat f size
expect 3 open f O_RDWR : ftruncate 0 3 : fstat 0 size
# Through a symlink: the target changes.
expect 0 symlink f sl
expect 0 truncate sl 9
expect 9 stat f size
expect symlink,1 lstat sl type,size
# Errors.
expect EINVAL truncate f -1
expect EINVAL open f O_WRONLY : ftruncate 0 -1
expect EINVAL open f O_RDONLY : ftruncate 0 1
expect 9 stat f size
expect 0 mkdir d 0755
expect EISDIR truncate d 0
expect EINVAL open d O_RDONLY : ftruncate 0 0
expect ENOENT truncate nothere 0
expect ENOTDIR truncate f/x 0
expect ENAMETOOLONG truncate {n*256} 0
expect EBADF ftruncate BADFD 0
