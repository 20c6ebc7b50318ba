# Mounts: EXDEV between filesystems, EBUSY for mount points, and what a mount hides.
expect 0 mkdir m 0755
expect 0 create m/hidden 0644
expect 0 create f 0644
expect 0 mount ramfs m
expect ENOENT stat m/hidden type
expect dir stat m type
expect 0 create m/inside 0644
expect 0 mkdir m/sub 0755
# Between filesystems: no links, no renames.
expect EXDEV link f m/f
expect EXDEV link m/inside g
expect EXDEV rename f m/f
expect EXDEV rename m/inside g
expect EXDEV rename m/sub sub
expect 0 rename m/inside m/sub/inside
expect regular stat f type
# A mount point cannot be removed or renamed.
expect EBUSY rmdir m
expect EBUSY rename m m2
expect 0 mkdir d0 0755
expect EBUSY rename d0 m
expect 0 create m/f 0644
expect regular stat m/f type
expect ENOTEMPTY rmdir m/sub
# A filesystem with an open file cannot be unmounted.
expect EBUSY open m/f O_RDONLY : umount m
# Mount errors.
expect ENOENT mount ramfs nothere
expect ENOTDIR mount ramfs f
expect ENODEV mount nosuchfs d0
expect EINVAL umount d0
expect ENOENT umount nothere
# Unmounting brings back what was under it.
expect 0 unlink m/f
expect 0 unlink m/sub/inside
expect 0 rmdir m/sub
expect 0 umount m
expect regular stat m/hidden type
expect ENOENT stat m/inside type
expect 0 unlink m/hidden
expect 0 rmdir m
