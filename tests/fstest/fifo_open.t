# Opening a FIFO without waiting: O_RDWR always succeeds; an O_NONBLOCK
# reader succeeds with no writer (and reads end of file); an O_NONBLOCK
# writer with no reader gets ENXIO, and succeeds once a reader is there.
expect 0 mkfifo p 0644
expect 0 open p O_RDWR
expect 0 open p O_RDONLY,O_NONBLOCK
expect ENXIO open p O_WRONLY,O_NONBLOCK
expect 0 open p O_RDONLY,O_NONBLOCK : open p O_WRONLY,O_NONBLOCK
expect 0 open p O_RDWR : open p O_WRONLY,O_NONBLOCK
# No positions: pread and pwrite say ESPIPE (before the access mode).
expect ESPIPE open p O_RDWR : pread 0 5 0
expect ESPIPE open p O_RDWR : pwrite 0 x 0
expect ESPIPE open p O_RDONLY,O_NONBLOCK : pwrite 0 x 0
expect 0 open p O_RDWR : write 0 hello : close 0
expect 0 stat p size
# Access checks come first: EACCES, not ENXIO.
expect 0 chmod p 0600
expect EACCES -u 65534 -g 65534 open p O_WRONLY,O_NONBLOCK
expect EACCES -u 65534 -g 65534 open p O_RDONLY,O_NONBLOCK
expect 0 chmod p 0666
expect ENXIO -u 65534 -g 65534 open p O_WRONLY,O_NONBLOCK
expect 0 -u 65534 -g 65534 open p O_RDONLY,O_NONBLOCK
# A write to a FIFO with a reader, then the reader's fstat: size 0.
expect 0 open p O_RDONLY,O_NONBLOCK : open p O_WRONLY,O_NONBLOCK : write 1 data : fstat 0 size
