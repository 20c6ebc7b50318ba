# symlink: links, their size, following them, and loops.
expect 0 create f 0644
expect 0 symlink f sl
expect symlink,1 lstat sl type,size
expect regular stat sl type
expect f readlink sl
expect 0 symlink some/longer/path sl2
expect 16 lstat sl2 size
expect some/longer/path readlink sl2
expect ENOENT stat sl2 type
expect EEXIST symlink x sl
expect EEXIST symlink x f
expect ENOENT symlink x nothere/sl
expect ENOTDIR symlink x f/sl
expect EINVAL readlink f
expect ENOENT readlink nothere
# Directories through symlinks, relative targets, trailing slashes.
expect 0 mkdir d 0755
expect 0 mkdir d/sub 0755
expect 0 create d/sub/file 0644
expect 0 symlink d/sub sd
expect regular stat sd/file type
expect 0 symlink ../f d/up
expect regular stat d/up type
expect dir stat sd/ type
expect dir lstat sd/ type
expect symlink lstat sd type
expect 0 symlink sub/file d/rel
expect regular stat d/rel type
expect ENOTDIR stat sl/ type
# Loops: a link to itself, two links to each other.
expect 0 symlink self self
expect ELOOP stat self type
expect symlink lstat self type
expect ELOOP open self O_RDONLY
expect ELOOP stat self/x type
expect 0 symlink pong ping
expect 0 symlink ping pong
expect ELOOP stat ping type
expect ELOOP open ping O_CREAT,O_WRONLY 0644
# 40 links in a row may be followed, 41 may not.
expect 0 symlink f c0
expect 0 symlink c0 c1
expect 0 symlink c1 c2
expect 0 symlink c2 c3
expect 0 symlink c3 c4
expect 0 symlink c4 c5
expect 0 symlink c5 c6
expect 0 symlink c6 c7
expect 0 symlink c7 c8
expect 0 symlink c8 c9
expect 0 symlink c9 c10
expect 0 symlink c10 c11
expect 0 symlink c11 c12
expect 0 symlink c12 c13
expect 0 symlink c13 c14
expect 0 symlink c14 c15
expect 0 symlink c15 c16
expect 0 symlink c16 c17
expect 0 symlink c17 c18
expect 0 symlink c18 c19
expect 0 symlink c19 c20
expect 0 symlink c20 c21
expect 0 symlink c21 c22
expect 0 symlink c22 c23
expect 0 symlink c23 c24
expect 0 symlink c24 c25
expect 0 symlink c25 c26
expect 0 symlink c26 c27
expect 0 symlink c27 c28
expect 0 symlink c28 c29
expect 0 symlink c29 c30
expect 0 symlink c30 c31
expect 0 symlink c31 c32
expect 0 symlink c32 c33
expect 0 symlink c33 c34
expect 0 symlink c34 c35
expect 0 symlink c35 c36
expect 0 symlink c36 c37
expect 0 symlink c37 c38
expect 0 symlink c38 c39
expect regular stat c39 type
expect 0 symlink c39 c40
expect ELOOP stat c40 type
expect symlink lstat c40 type
# Targets: empty, or too long for a path.
expect ENOENT symlink {x*0} empty
expect ENAMETOOLONG symlink {n*4096} toolong
expect ENAMETOOLONG symlink x {n*256}
expect 0 symlink {n*256} longtarget
expect ENAMETOOLONG stat longtarget type
