/* errno.h: error numbers, with the values and meanings Linux gives them.
 * Kernel functions return them negated (-ENOENT), as Linux does. */
#ifndef KERNEL_ERRNO_H
#define KERNEL_ERRNO_H

#define EPERM         1
#define ENOENT        2
#define ESRCH         3
#define EINTR         4
#define EIO           5
#define ENXIO         6
#define E2BIG         7
#define ENOEXEC       8
#define EBADF         9
#define ENOTBLK      15
#define ECHILD       10      /* inside the kernel: an RCU-walk must leave RCU mode */
#define EAGAIN       11
#define ENOMEM       12
#define EACCES       13
#define EFAULT       14
#define EBUSY        16
#define EEXIST       17
#define EXDEV        18
#define ENODEV       19
#define ENOTDIR      20
#define EISDIR       21
#define EINVAL       22
#define ENFILE       23
#define EMFILE       24
#define ENOTTY       25
#define EFBIG        27
#define ENOSPC       28
#define ESPIPE       29
#define EROFS        30
#define EMLINK       31
#define EPIPE        32
#define ERANGE       34
#define EDEADLK      35
#define ENAMETOOLONG 36
#define ENOSYS       38
#define ENOTEMPTY    39
#define ELOOP        40
#define EOVERFLOW    75
#define EUCLEAN     117      /* a filesystem found its own structures wrong (Linux: EFSCORRUPTED) */
#define ENOTSOCK     88
#define EAFNOSUPPORT 97
#define EADDRINUSE   98
#define ETIMEDOUT   110
/* Inside the kernel only: a system call a signal interrupted, which the
 * signal code restarts or turns into EINTR (user/signal.c). */
#define ERESTARTSYS 512

const char *errno_name(int err);   /* "ENOENT" for 2 or -2; "E?" if unknown */

#endif
