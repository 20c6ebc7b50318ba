# unlink: names of files and symlinks go; directories stay.
expect 0 create f 0644
expect 0 link f g
expect 2 stat f nlink
expect 0 unlink f
expect ENOENT stat f type
expect regular,1 stat g type,nlink
expect 0 unlink g
expect ENOENT unlink g
# A symlink: the link goes, its target stays.
expect 0 create t 0644
expect 0 symlink t sl
expect 0 unlink sl
expect ENOENT lstat sl type
expect regular stat t type
expect 0 symlink nowhere dangling
expect 0 unlink dangling
# Directories, and paths through files.
expect 0 mkdir d 0755
expect EISDIR unlink d
expect EISDIR unlink d/
expect EISDIR unlink .
expect EISDIR unlink d/.
expect ENOTDIR unlink t/
expect ENOTDIR unlink t/x
expect ENOENT unlink nothere/x
expect ENOENT unlink d/nothere
expect ENAMETOOLONG unlink {n*256}
expect ENOENT unlink {x*0}
# An open file may be unlinked; its descriptor still works.
expect 5 open t O_RDWR : unlink t : write 0 hello : fstat 0 size
expect ENOENT stat t type
