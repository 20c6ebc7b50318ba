# mkfifo: a FIFO with the mode less the umask, owned by its creator.
expect 0 mkfifo p 0644
expect fifo,0644,1,0 stat p type,mode,nlink,size
expect 0 -U 022 mkfifo q 0777
expect 0755 stat q mode
expect 0 mkfifo s 07777
expect 07777 stat s mode
expect EEXIST mkfifo p 0644
expect 0 create f 0644
expect EEXIST mkfifo f 0644
expect ENOTDIR mkfifo f/x 0644
expect ENOENT mkfifo nothere/x 0644
expect EEXIST mkfifo . 0644
expect ENOENT mkfifo new/ 0644
expect ENAMETOOLONG mkfifo {x*256} 0644
expect 0 mkdir d 0777
expect 0 -u 65534 -g 65534 mkfifo d/p 0600
expect fifo,0600,65534,65534 stat d/p type,mode,uid,gid
expect 0 chmod d 0755
expect EACCES -u 65534 -g 65534 mkfifo d/q 0600
# A FIFO holds no data of its own: open and close leave its size 0.
expect 0 open p O_RDWR : write 0 hello : fstat 0 size
expect 0 stat p size
# pathconf's answers (as glibc gives them for tmpfs, 65000 links on ext4: it
# answers by the filesystem's type; PIPE_BUF for FIFOs).
expect 4096 pathconf p _PC_PIPE_BUF
expect 255 pathconf . _PC_NAME_MAX
expect 4096 pathconf . _PC_PATH_MAX
expect 127|65000 pathconf . _PC_LINK_MAX
expect unlimited pathconf . _PC_SYMLINK_MAX
expect ENOENT pathconf nothere _PC_NAME_MAX
expect ENOTDIR pathconf f/x _PC_NAME_MAX
