/*
 * syscalls.h: the VFS as a program sees it: paths and file descriptors.
 *
 * These are the calls the shell, the initramfs unpacker and the tests
 * use.  Each works in the calling thread's context: its root, its
 * current directory and its descriptor table (fs/task_fs.h), which a new
 * thread shares with the thread that created it.  Every call returns 0
 * (or a count, a descriptor, an offset) on success and a negative errno
 * with Linux's meaning on failure; flag values are Linux's x86-64 ones,
 * so a host build of the same program passes the same numbers.
 */
#ifndef FS_SYSCALLS_H
#define FS_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* open() flags (Linux's values). */
#define O_ACCMODE   00000003
#define O_RDONLY    00000000
#define O_WRONLY    00000001
#define O_RDWR      00000002
#define O_CREAT     00000100
#define O_EXCL      00000200
#define O_NOCTTY    00000400
#define O_TRUNC     00001000
#define O_APPEND    00002000
#define O_NONBLOCK  00004000
#define O_DIRECTORY 00200000
#define O_NOFOLLOW  00400000
#define O_CLOEXEC   02000000

#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

#define AT_SYMLINK_NOFOLLOW 0x100

struct kstat {
	uint64_t dev;              /* which mounted filesystem */
	uint64_t ino;
	uint32_t mode;             /* S_IF* type and permission bits */
	uint32_t nlink;
	uint32_t uid, gid;         /* the owner */
	int64_t size;
	int64_t blocks;            /* 512-byte units allocated */
	uint32_t blksize;
	int64_t atime_ns, mtime_ns, ctime_ns;   /* nanoseconds since the epoch */
	uint64_t rdev;             /* a device node's number (makedev); 0 for the rest */
};

/* Device numbers as glibc encodes them in dev_t (makedev(3)): a 12-bit
 * major and a 20-bit minor fit in the low 32 bits, which is all the mknod
 * system call takes. */
static inline uint64_t makedev(uint32_t major, uint32_t minor)
{
	return ((uint64_t)(major & 0xfffff000u) << 32) | ((uint64_t)(major & 0xfffu) << 8) |
	       ((uint64_t)(minor & 0xffffff00u) << 12) | (minor & 0xffu);
}
static inline uint32_t major(uint64_t dev)
{
	return (uint32_t)(((dev >> 32) & 0xfffff000u) | ((dev >> 8) & 0xfffu));
}
static inline uint32_t minor(uint64_t dev)
{
	return (uint32_t)(((dev >> 12) & 0xffffff00u) | (dev & 0xffu));
}

/* getdents() records: Linux's struct linux_dirent64. */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;             /* the position after this entry */
	uint16_t d_reclen;         /* this record's length, 8-aligned */
	uint8_t d_type;            /* DT_* */
	char d_name[];             /* NUL-terminated */
};
#define DT_UNKNOWN 0
#define DT_FIFO    1
#define DT_CHR     2
#define DT_DIR     4
#define DT_BLK     6
#define DT_REG     8
#define DT_LNK     10
#define DT_SOCK    12

/* Files. */
int sys_open(const char *path, int flags, uint32_t mode);     /* the new fd */
int sys_close(int fd);
long sys_read(int fd, void *buf, size_t n);
long sys_write(int fd, const void *buf, size_t n);
long sys_pread(int fd, void *buf, size_t n, int64_t off);
/* read (off < 0) or pread into user memory, copied once where the
 * filesystem has read_to: bytes read or an errno; *faulted says it
 * stopped short (a user page not there, or no read_to: then 0 bytes),
 * and the caller reads the rest through a bounce buffer (user/sys_fd.c). */
long sys_read_user(int fd, uint64_t ubuf, size_t n, int64_t off, bool *faulted);
long sys_pwrite(int fd, const void *buf, size_t n, int64_t off);
int64_t sys_lseek(int fd, int64_t off, int whence);
long sys_getdents(int fd, void *buf, size_t n);               /* bytes filled, 0 at the end */
int sys_dup(int fd);
int sys_dup2(int fd, int newfd);
int sys_ftruncate(int fd, int64_t len);
/* Put what was written to the file on its disk: 0, or -EIO (the writes
 * that failed stay cached, to be tried again). */
int sys_fsync(int fd);
/* Write every disk's cached writes back: 0, or -EIO if some failed
 * (Linux's sync(2) returns nothing; the tests want to know). */
int sys_sync(void);
int sys_fstat(int fd, struct kstat *st);
struct kstatfs;
/* statfs(2), fstatfs(2): the filesystem that holds path or fd (fs/statfs.c). */
int sys_statfs(const char *path, struct kstatfs *buf);
int sys_fstatfs(int fd, struct kstatfs *buf);

/* Paths. */
int sys_stat(const char *path, struct kstat *st);
int sys_lstat(const char *path, struct kstat *st);
int sys_truncate(const char *path, int64_t len);
int sys_chmod(const char *path, uint32_t mode);
/* Owner and group ((uint32_t)-1: unchanged); lchown does not follow a
 * final symlink. */
int sys_chown(const char *path, uint32_t uid, uint32_t gid);
int sys_lchown(const char *path, uint32_t uid, uint32_t gid);
int sys_fchown(int fd, uint32_t uid, uint32_t gid);
/* Set atime and mtime (nanoseconds since the epoch); flags 0 or
 * AT_SYMLINK_NOFOLLOW. */
int sys_utimens(const char *path, int64_t atime_ns, int64_t mtime_ns, unsigned flags);
/* utimensat's whole rule: per time (atime, mtime) a value, now[i] or
 * omit[i]; both now needs write permission if not the owner (EACCES),
 * a given time the owner (EPERM); both omitted changes nothing. */
int sys_utimens_at(const char *path, const int64_t t[2], const bool now[2], const bool omit[2],
		   unsigned flags);
int sys_futimens(int fd, const int64_t t[2], const bool now[2], const bool omit[2]);
int sys_fchmod(int fd, uint32_t mode);
int sys_fchdir(int fd);                                       /* cwd := the open directory */
long sys_readlink(const char *path, char *buf, size_t n);     /* bytes, not NUL-terminated */
int sys_chdir(const char *path);
long sys_getcwd(char *buf, size_t n);                         /* length with the NUL */
int sys_mkdir(const char *path, uint32_t mode);
int sys_rmdir(const char *path);
int sys_unlink(const char *path);
int sys_rename(const char *oldpath, const char *newpath);
int sys_link(const char *oldpath, const char *newpath);
int sys_symlink(const char *target, const char *linkpath);
/* A special file (or a regular one): mode's type S_IFIFO, S_IFCHR,
 * S_IFBLK, S_IFSOCK, S_IFREG or 0 (regular); dev for device nodes.  As
 * Linux: -EPERM for S_IFDIR, -EINVAL for other types or a dev beyond 32
 * bits (glibc's check), -EPERM for a device node made by non-root. */
int sys_mknod(const char *path, uint32_t mode, uint64_t dev);
int sys_mkfifo(const char *path, uint32_t mode);              /* glibc's: mknod(S_IFIFO) */

/* pathconf(3) as glibc answers it on Linux (from statfs and constants):
 * the path must be reachable (its walk's errors), then *value is set (-1:
 * no limit, for _PC_SYMLINK_MAX) and 0 returned; -EINVAL for a name it
 * does not know. */
#define _PC_LINK_MAX    0
#define _PC_NAME_MAX    3
#define _PC_PATH_MAX    4
#define _PC_PIPE_BUF    5
#define _PC_SYMLINK_MAX 19
#define PIPE_BUF 4096              /* writes up to this size to a FIFO are atomic */
int sys_pathconf(const char *path, int name, long *value);

/* Local sockets, only so far as to put a name in the filesystem
 * (fs/socket.c): socket(AF_UNIX, SOCK_STREAM or SOCK_DGRAM, 0) gives a
 * descriptor, bind gives it a path (an S_IFSOCK node made by the normal
 * create path; -EADDRINUSE if the name exists).  No connect, listen or
 * accept: nothing can talk through it. */
#define AF_UNIX     1
#define SOCK_STREAM 1
#define SOCK_DGRAM  2
int sys_socket(int family, int type, int protocol);
int sys_bind(int fd, const char *path);

/* Credentials: sys_setuid, sys_setgid, sys_setgroups, sys_umask and the
 * getters are kernel/cred.h's (the calling thread's; root may take any
 * IDs, others keep theirs). */
#include "kernel/cred.h"

/* Mounts (root only: -EPERM): type is a registered filesystem's name ("ramfs", "slowfs");
 * options a comma list the filesystem parses (NULL or "" for none). */
int sys_mount(const char *type, const char *dir, const char *options);
/* Linux's mount(2): source names what a disk filesystem (ext2) reads, a
 * block device node ("/dev/vda"), and is ignored by the others (NULL
 * will do); flags MS_RDONLY (fs/fs.h) or 0.  -ENOTBLK if source is not a
 * block device node, -ENXIO if no disk has its number, -EBUSY if the
 * disk is mounted already. */
int sys_mount_from(const char *source, const char *dir, const char *type, unsigned long flags,
		   const char *options);
int sys_umount(const char *dir);

#endif
