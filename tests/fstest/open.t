# open: creating, the flags, and every errno.
expect 0 open f O_CREAT,O_WRONLY 0644
expect regular,0644,1,0 stat f type,mode,nlink,size
expect 0 open f O_CREAT,O_RDONLY 0600
expect 0644 stat f mode
expect EEXIST open f O_CREAT,O_EXCL,O_WRONLY 0644
expect 0 open g O_CREAT,O_EXCL,O_RDWR 0640
expect 0640 stat g mode
expect ENOENT open nothere O_RDONLY
expect ENOENT open nothere/x O_CREAT,O_WRONLY 0644
expect 0 create h 0604
expect regular,0604 stat h type,mode
expect EEXIST create h 0644
# Directories.
expect 0 mkdir d 0755
expect 0 open d O_RDONLY
expect 0 open d O_RDONLY,O_DIRECTORY
expect EISDIR open d O_WRONLY
expect EISDIR open d O_RDWR
expect EISDIR open d O_CREAT,O_WRONLY 0644
expect EEXIST open d O_CREAT,O_EXCL,O_RDONLY 0644
expect ENOTDIR open f O_RDONLY,O_DIRECTORY
# Flag lists as pjdfstest writes them: an empty name (a trailing, leading
# or doubled comma) is skipped; pjdfstest's own open/06.t ends O_RDONLY with one.
expect 0 open f O_RDONLY,
expect 0 open d O_RDONLY,O_DIRECTORY,
expect ENOTDIR open f ,O_RDONLY,,O_DIRECTORY
expect 0 open f O_WRONLY,,O_TRUNC
expect 0 stat f size
expect 0 open comma O_CREAT,O_EXCL,|O_WRONLY, 0644 : unlink comma
expect ENOTDIR open f/ O_RDONLY
expect ENOTDIR open f/x O_RDONLY
expect EISDIR open newfile/ O_CREAT,O_WRONLY 0644
expect ENOENT stat newfile type
# Symlinks: followed, unless O_NOFOLLOW; O_CREAT makes a dangling link's target.
expect 0 symlink f sl
expect 0 open sl O_RDONLY
expect ELOOP open sl O_RDONLY,O_NOFOLLOW
expect ELOOP open sl O_WRONLY,O_NOFOLLOW,O_CREAT 0644
expect 0 open f O_RDONLY,O_NOFOLLOW
expect 0 symlink target dangling
expect ENOENT open dangling O_RDONLY
expect EEXIST open dangling O_CREAT,O_EXCL,O_WRONLY 0644
expect 0 open dangling O_CREAT,O_WRONLY 0600
expect regular,0600 stat target type,mode
# ... relative to the link's directory, through a chain of links.
expect 0 mkdir sub 0755
expect 0 symlink ../chained sub/hop
expect 0 symlink sub/hop chain
expect 0 open chain O_CREAT,O_WRONLY 0640
expect regular,0640 stat chained type,mode
expect symlink lstat chain type
# ... but not into a missing directory, a name with a slash, or a loop.
expect 0 symlink nodir/x nowhere
expect ENOENT open nowhere O_CREAT,O_WRONLY 0644
expect 0 symlink newdir/ slashed
expect EISDIR open slashed O_CREAT,O_WRONLY 0644
expect 0 symlink loop2 loop1
expect 0 symlink loop1 loop2
expect ELOOP open loop1 O_CREAT,O_WRONLY 0644
expect 0 symlink d sd
expect 0 open sd O_RDONLY,O_DIRECTORY
expect ENOTDIR open sl O_RDONLY,O_DIRECTORY
# O_TRUNC and O_APPEND.
expect 0 open f O_WRONLY : write 0 hello
expect 5 stat f size
expect 0 open f O_RDONLY,O_TRUNC
expect 0 stat f size
expect 0 open f O_WRONLY : write 0 hello
expect 0 open f O_WRONLY,O_TRUNC
expect 0 stat f size
expect 0 open f O_WRONLY : write 0 abc
expect 0 open f O_WRONLY,O_APPEND : write 0 def : write 0 gh
expect abcdefgh open f O_RDONLY : pread 0 100 0
# Names.
expect 0 open {n*255} O_CREAT,O_WRONLY 0644
expect ENAMETOOLONG open {n*256} O_CREAT,O_WRONLY 0644
expect ENAMETOOLONG open {n*256} O_RDONLY
expect ENOENT open {x*0} O_RDONLY
expect ENOENT open {x*0} O_CREAT,O_WRONLY 0644
