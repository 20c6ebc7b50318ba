# open checks read and write permission by its access mode, O_TRUNC
# asking for write; a file the same open created is not checked.
expect 0 chmod . 0777
expect 0 create f 0644
expect 0 -u 65534 -g 65534 open f O_RDONLY
expect EACCES -u 65534 -g 65534 open f O_WRONLY
expect EACCES -u 65534 -g 65534 open f O_RDWR
expect EACCES -u 65534 -g 65534 open f O_RDONLY,O_TRUNC
expect EACCES -u 65534 -g 65534 open f O_WRONLY,O_CREAT 0644
expect 0 chmod f 0622
expect EACCES -u 65534 -g 65534 open f O_RDONLY
expect 0 -u 65534 -g 65534 open f O_WRONLY
expect 0 -u 65534 -g 65534 open f O_WRONLY,O_TRUNC
# The owner's bits alone count for the owner; root reads and writes all.
expect 0 chown f 65534 65534
expect 0 chmod f 0066
expect EACCES -u 65534 -g 65534 open f O_RDONLY
expect 0 -u 65533 -g 65534 open f O_RDWR
expect 0 chmod f 0
expect 0 open f O_RDWR
# Made by this open: no check, even with mode 0.
expect 0 -u 65534 -g 65534 open g O_CREAT,O_RDWR 0 : write 0 x
expect regular,00,65534,65534 stat g type,mode,uid,gid
expect EACCES -u 65534 -g 65534 open g O_RDWR
expect EACCES -u 65534 -g 65534 open g O_CREAT,O_RDWR 0
# A directory opens for reading with read permission.
expect 0 mkdir d 0311
expect EACCES -u 65534 -g 65534 open d O_RDONLY
expect 0 open d O_RDONLY
expect 0 chmod d 0755
expect 0 -u 65534 -g 65534 open d O_RDONLY,O_DIRECTORY
# truncate needs write permission (after the type checks).
expect 0 create t 0644
expect EACCES -u 65534 -g 65534 truncate t 0
expect EISDIR -u 65534 -g 65534 truncate d 0
expect 0 chmod t 0646
expect 0 -u 65534 -g 65534 truncate t 5
expect 5 stat t size
# A write or a truncate by anyone but root clears set-user-ID, and
# set-group-ID if group-execute is set or the writer is not in the group.
expect 0 create s 04777
expect 0 -u 65534 -g 65534 open s O_WRONLY : write 0 x
expect 0777 stat s mode
expect 0 chmod s 02777
expect 0 -u 65534 -g 65534 open s O_WRONLY : write 0 x
expect 0777 stat s mode
expect 0 chmod s 02767
expect 0 -u 65534 -g 65534 open s O_WRONLY : write 0 x
expect 0767 stat s mode
expect 0 chmod s 02767
expect 0 -u 65534 -g 65534,0 open s O_WRONLY : write 0 x
expect 02767 stat s mode
expect 0 chmod s 06777
expect 0 open s O_WRONLY : write 0 x
expect 06777 stat s mode
expect 0 chown s 65534 65534
expect 0 chmod s 04777
expect 0 -u 65534 -g 65534 open s O_WRONLY : write 0 x
expect 0777 stat s mode
expect 0 chmod s 04777
expect 0 -u 65534 -g 65534 truncate s 0
expect 0777 stat s mode
expect 0 chmod s 04777
expect 0 -u 65534 -g 65534 open s O_WRONLY : ftruncate 0 3
expect 0777 stat s mode
expect 0 chmod s 04777
expect 0 -u 65534 -g 65534 open s O_WRONLY,O_TRUNC
expect 0777 stat s mode
