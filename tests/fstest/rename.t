# rename: files and directories move, replace, keep their inode; and every errno.
expect 0 create f 0644
set ino stat f ino
expect 0 rename f g
expect ENOENT stat f type
expect regular,$ino,1 stat g type,ino,nlink
# Over another file: it goes, its other links stay.
expect 0 create h 0600
expect 0 link h h2
expect 0 rename g h
expect regular,$ino,0644 stat h type,ino,mode
expect 1 stat h2 nlink
# Hard links of one inode onto each other: nothing happens.
expect 0 link h h3
expect 0 rename h h3
expect 2 stat h nlink
expect regular stat h3 type
expect 0 rename h h
# Directories: the link counts of both parents follow the move.
expect 0 mkdir a 0755
expect 0 mkdir b 0755
expect 0 mkdir a/d 0755
set dino stat a/d ino
expect 3 stat a nlink
expect 0 rename a/d b/d
expect 2 stat a nlink
expect 3 stat b nlink
expect dir,$dino stat b/d type,ino
expect 0 rename b/d b/e
expect 3 stat b nlink
# Over an empty directory, not over a full one, and not across types.
expect 0 mkdir a/empty 0755
expect 0 rename b/e a/empty
expect $dino stat a/empty ino
expect 2 stat b nlink
expect 0 mkdir full 0755
expect 0 create full/x 0644
expect ENOTEMPTY rename a/empty full
expect ENOTDIR rename a/empty h
expect EISDIR rename h a/empty
expect 0 rename a/empty/ moved/
# Into itself, and "." or ".." as a name.
expect 0 mkdir p 0755
expect 0 mkdir p/q 0755
expect EINVAL rename p p/q/r
expect EINVAL rename p p/new
expect EBUSY rename p/. x
expect EBUSY rename . x
expect EBUSY rename p/.. x
expect EBUSY rename x .
expect EBUSY rename p/q p/.
expect EBUSY rename p/q/.. p
expect dir stat p/q type
# Missing, and paths through files.
expect ENOENT rename nothere x
expect ENOENT rename h nothere/x
expect ENOTDIR rename h/x y
expect ENOTDIR rename h h2/x
expect ENOTDIR rename h h2/
expect ENAMETOOLONG rename h {n*256}
expect ENAMETOOLONG rename {n*256} h
expect ENOENT rename {x*0} h
expect ENOENT rename h {x*0}
# A symlink is renamed itself, even onto its target's name.
expect 0 symlink h sl
expect 0 rename sl sl2
expect symlink lstat sl2 type
expect 0 rename sl2 h
expect symlink lstat h type
expect ELOOP stat h type
# The ancestry checks come before the file type checks (Linux's order).
expect 0 mkdir p2 0755
expect 0 mkdir p2/b 0755
expect 0 create p2/b/a 0644
expect ENOTEMPTY rename p2/b/a p2/b
expect 0 mkdir anc 0755
expect 0 create anc/f 0644
expect EINVAL rename anc anc/f
expect 0 mkdir anc/sub 0755
expect 0 mkdir anc/sub/deeper 0755
expect ENOTEMPTY rename anc/sub/deeper anc
