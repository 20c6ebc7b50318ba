# stat, lstat, fstat: types, sizes, link counts, and the path walk's rules.
expect 0 create f 0644
expect regular,0644,1,0,0,0 stat f type,mode,nlink,size,uid,gid
expect regular,0644,1,0 lstat f type,mode,nlink,size
expect regular,0644,1,0 open f O_RDONLY : fstat 0 type,mode,nlink,size
expect 0 mkdir d 0750
expect dir,0750,2 stat d type,mode,nlink
expect dir,0750,2 open d O_RDONLY : fstat 0 type,mode,nlink
expect 0 symlink d sd
expect symlink,0777,1 lstat sd type,mode,size
expect dir stat sd type
expect dir open sd O_RDONLY : fstat 0 type
set dino stat d ino
expect $dino stat sd ino
expect $dino stat d/. ino
expect $dino stat sd/. ino
expect 0 mkdir d/e 0755
expect $dino stat d/e/.. ino
expect $dino stat d//e/../ ino
expect $dino stat ./d/./e/./.. ino
set top stat . ino
expect $top stat d/.. ino
expect $top stat sd/.. ino
# The path walk's errors.
expect ENOENT stat nothere type
expect ENOENT lstat nothere type
expect ENOENT stat d/nothere/x type
expect ENOTDIR stat f/ type
expect ENOTDIR stat f/. type
expect ENOTDIR stat f/.. type
expect ENOTDIR lstat f/x type
expect ENOENT stat {x*0} type
expect ENAMETOOLONG stat {n*256} type
expect ENAMETOOLONG lstat d/{n*256} type
expect ENOENT stat {n*255} type
# A path of PATH_MAX (4096) bytes or more is too long, whatever is in it.
expect ENAMETOOLONG stat {./*2048} type
expect ENAMETOOLONG stat {d/../*1024} type
expect dir stat {./*2047}. type
# Many slashes are one.
expect regular stat .//f type
expect dir stat d/// type
