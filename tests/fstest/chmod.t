# chmod: the mode bits are stored (as root; the owner rules: chmod_owner.t).
expect 0 create f 0644
expect 0 chmod f 0600
expect regular,0600 stat f type,mode
expect 0 chmod f 0
expect 00 stat f mode
expect 0 chmod f 07777
expect 07777 stat f mode
expect 0 chmod f 04755
expect 04755 stat f mode
expect 0 chmod f 0x1ed
expect 0755 stat f mode
expect 0 chmod f 420
expect 0644 stat f mode
# A mode of 0 does not keep root out.
expect 0 chmod f 0
expect 0 open f O_RDWR : write 0 x
expect 0 mkdir d 0755
expect 0 chmod d 0
expect dir,00 stat d type,mode
expect 0 create d/inside 0644
expect 0 chmod d 01777
expect 01777 stat d mode
# Through symlinks: the target changes, the link does not.
expect 0 symlink f sl
expect 0 chmod sl 0640
expect 0640 stat f mode
expect 0777 lstat sl mode
expect ENOENT chmod nothere 0644
expect ENOTDIR chmod f/x 0644
expect ENAMETOOLONG chmod {n*256} 0644
