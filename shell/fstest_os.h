/*
 * fstest_os.h: the few things fstest.c needs from the system it runs on.
 *
 * In the kernel these are the sys_* calls of fs/syscalls.h, which return
 * a negative errno; on the host (FSTEST_HOST, built by the Makefile into
 * build/host/fstest) they are libc's calls, turned into the same
 * convention: a negative errno on failure, never -1 and errno.  Both use
 * Linux's x86-64 values for open flags and errnos, so the names fstest
 * parses and prints mean the same thing on either side.
 */
#ifndef SHELL_FSTEST_OS_H
#define SHELL_FSTEST_OS_H

#include <stddef.h>
#include <stdint.h>

/* What stat, lstat and fstat report, in either world (times in seconds). */
struct fso_stat {
	uint64_t ino;
	uint32_t mode, nlink, uid, gid;
	int64_t size, blocks;
	int64_t atime, mtime, ctime;
	uint32_t rdev_major, rdev_minor;
};

const char *errno_name(int err);	/* kernel/errno.c, built for both sides */

/* Credentials for one invocation (pjdfstest's -u, -g, -U): fso_become
 * takes them (0 or a negative errno), fso_restore gives the caller's back
 * where that is possible (the kernel; a host process just exits). */
#define FSO_NGROUPS 16
struct fso_creds {
	int64_t uid;             /* -1: unchanged */
	unsigned ngroups;        /* 0: unchanged */
	uint32_t groups[FSO_NGROUPS];
	uint32_t umask;
	const void *saved;       /* the kernel's: the caller's credentials */
};

#ifdef FSTEST_HOST

#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#define FSO_RET(expr) ({ long r_ = (long)(expr); r_ < 0 ? -(long)errno : r_; })

/* As pjdfstest: groups first (while still root), then the uid. */
static inline long fso_become(struct fso_creds *c)
{
	if (c->ngroups && (setgroups(c->ngroups, c->groups) < 0 ||
			   setresgid(c->groups[0], c->groups[0], c->groups[0]) < 0))
		return -(long)errno;
	if (c->uid >= 0 && setresuid((uid_t)c->uid, (uid_t)c->uid, (uid_t)c->uid) < 0)
		return -(long)errno;
	umask((mode_t)c->umask);
	return 0;
}
#define fso_restore(c)         ((void)(c))

static inline void fso_from_stat(struct fso_stat *o, const struct stat *s)
{
	*o = (struct fso_stat){ s->st_ino, s->st_mode, (uint32_t)s->st_nlink, s->st_uid, s->st_gid,
				s->st_size, s->st_blocks, s->st_atime, s->st_mtime, s->st_ctime,
				major(s->st_rdev), minor(s->st_rdev) };
}

static inline long fso_statx(int which, const char *path, int fd, struct fso_stat *o)
{
	struct stat s;
	long r = which == 0 ? FSO_RET(stat(path, &s)) : which == 1 ? FSO_RET(lstat(path, &s))
								   : FSO_RET(fstat(fd, &s));
	if (r == 0)
		fso_from_stat(o, &s);
	return r;
}

#define fso_open(p, fl, m)     FSO_RET(open(p, fl, (mode_t)(m)))
#define fso_close(fd)          FSO_RET(close(fd))
#define fso_unlink(p)          FSO_RET(unlink(p))
#define fso_mkdir(p, m)        FSO_RET(mkdir(p, (mode_t)(m)))
#define fso_rmdir(p)           FSO_RET(rmdir(p))
#define fso_link(a, b)         FSO_RET(link(a, b))
#define fso_symlink(a, b)      FSO_RET(symlink(a, b))
#define fso_rename(a, b)       FSO_RET(rename(a, b))
#define fso_truncate(p, n)     FSO_RET(truncate(p, (off_t)(n)))
#define fso_ftruncate(fd, n)   FSO_RET(ftruncate(fd, (off_t)(n)))
#define fso_chmod(p, m)        FSO_RET(chmod(p, (mode_t)(m)))
#define fso_chown(p, u, g)     FSO_RET(chown(p, (uid_t)(u), (gid_t)(g)))
#define fso_lchown(p, u, g)    FSO_RET(lchown(p, (uid_t)(u), (gid_t)(g)))
#define fso_fchown(fd, u, g)   FSO_RET(fchown(fd, (uid_t)(u), (gid_t)(g)))
#define fso_utimens(p, a, m)   FSO_RET(utimensat(AT_FDCWD, p, (struct timespec[2]){ { (a), 0 }, { (m), 0 } }, 0))
#define fso_stat(p, o)         fso_statx(0, p, -1, o)
#define fso_lstat(p, o)        fso_statx(1, p, -1, o)
#define fso_fstat(fd, o)       fso_statx(2, NULL, fd, o)
#define fso_pread(fd, b, n, o) FSO_RET(pread(fd, b, n, (off_t)(o)))
#define fso_pwrite(fd, b, n, o) FSO_RET(pwrite(fd, b, n, (off_t)(o)))
#define fso_write(fd, b, n)    FSO_RET(write(fd, b, n))
#define fso_readlink(p, b, n)  FSO_RET(readlink(p, b, n))
#define fso_mknod(p, m, ma, mi) FSO_RET(mknod(p, (mode_t)(m), makedev(ma, mi)))
#define fso_mkfifo(p, m)       FSO_RET(mkfifo(p, (mode_t)(m)))

/* bind PATH: a new local socket bound to PATH (closed again). */
static inline long fso_bind(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	strncpy(sun.sun_path, path, sizeof(sun.sun_path) - 1);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return -(long)errno;
	long r = FSO_RET(bind(fd, (struct sockaddr *)&sun, sizeof(sun)));
	close(fd);
	return r;
}

/* pathconf's names; *v -1 for "no limit" (errno untouched). */
#define FSO_PC_LINK_MAX    _PC_LINK_MAX
#define FSO_PC_NAME_MAX    _PC_NAME_MAX
#define FSO_PC_PATH_MAX    _PC_PATH_MAX
#define FSO_PC_PIPE_BUF    _PC_PIPE_BUF
#define FSO_PC_SYMLINK_MAX _PC_SYMLINK_MAX
static inline long fso_pathconf(const char *path, int name, long *v)
{
	errno = 0;
	*v = pathconf(path, name);
	return *v == -1 && errno ? -(long)errno : 0;
}

/* Linux's own ramfs and tmpfs stand in for smpvfs's filesystems. */
#define fso_mount(type, dir)   FSO_RET(mount("none", dir, type, 0, NULL))
#define fso_umount(dir)        FSO_RET(umount(dir))

#else /* the kernel */

#include "fs/syscalls.h"
#include "kernel/cred.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

/* For this invocation only: override_creds now, revert_creds after.
 * Only root may take other IDs (as setresuid says). */
static inline long fso_become(struct fso_creds *c)
{
	const struct cred *cur = current_cred();
	if (!cred_is_root(cur) && ((c->uid >= 0 && (uint32_t)c->uid != cur->uid) || c->ngroups))
		return -EPERM;
	struct cred *new = prepare_creds();
	if (!new)
		return -ENOMEM;
	if (c->ngroups) {
		new->gid = c->groups[0];
		new->ngroups = c->ngroups;
		memcpy(new->groups, c->groups, c->ngroups * sizeof(c->groups[0]));
	}
	if (c->uid >= 0)
		new->uid = (uint32_t)c->uid;
	new->umask = c->umask;
	c->saved = override_creds(new);
	return 0;
}

static inline void fso_restore(struct fso_creds *c)
{
	revert_creds(c->saved);
}

static inline long fso_statx(int r, struct kstat *k, struct fso_stat *o)
{
	if (r == 0)
		*o = (struct fso_stat){ k->ino, k->mode, k->nlink, k->uid, k->gid, k->size, k->blocks,
					k->atime_ns / 1000000000, k->mtime_ns / 1000000000,
					k->ctime_ns / 1000000000, major(k->rdev), minor(k->rdev) };
	return r;
}

#define fso_open(p, fl, m)     (long)sys_open(p, fl, m)
#define fso_close(fd)          (long)sys_close(fd)
#define fso_unlink(p)          (long)sys_unlink(p)
#define fso_mkdir(p, m)        (long)sys_mkdir(p, m)
#define fso_rmdir(p)           (long)sys_rmdir(p)
#define fso_link(a, b)         (long)sys_link(a, b)
#define fso_symlink(a, b)      (long)sys_symlink(a, b)
#define fso_rename(a, b)       (long)sys_rename(a, b)
#define fso_truncate(p, n)     (long)sys_truncate(p, n)
#define fso_ftruncate(fd, n)   (long)sys_ftruncate(fd, n)
#define fso_chmod(p, m)        (long)sys_chmod(p, m)
#define fso_chown(p, u, g)     (long)sys_chown(p, u, g)
#define fso_lchown(p, u, g)    (long)sys_lchown(p, u, g)
#define fso_fchown(fd, u, g)   (long)sys_fchown(fd, u, g)
#define fso_utimens(p, a, m)   (long)sys_utimens(p, (a) * 1000000000, (m) * 1000000000, 0)
#define fso_stat(p, o)         ({ struct kstat k_; fso_statx(sys_stat(p, &k_), &k_, o); })
#define fso_lstat(p, o)        ({ struct kstat k_; fso_statx(sys_lstat(p, &k_), &k_, o); })
#define fso_fstat(fd, o)       ({ struct kstat k_; fso_statx(sys_fstat(fd, &k_), &k_, o); })
#define fso_pread(fd, b, n, o) sys_pread(fd, b, n, o)
#define fso_pwrite(fd, b, n, o) sys_pwrite(fd, b, n, o)
#define fso_write(fd, b, n)    sys_write(fd, b, n)
#define fso_readlink(p, b, n)  sys_readlink(p, b, n)
#define fso_mount(type, dir)   (long)sys_mount(type, dir, NULL)
#define fso_mknod(p, m, ma, mi) (long)sys_mknod(p, m, makedev(ma, mi))
#define fso_mkfifo(p, m)       (long)sys_mkfifo(p, m)
#define FSO_PC_LINK_MAX    _PC_LINK_MAX
#define FSO_PC_NAME_MAX    _PC_NAME_MAX
#define FSO_PC_PATH_MAX    _PC_PATH_MAX
#define FSO_PC_PIPE_BUF    _PC_PIPE_BUF
#define FSO_PC_SYMLINK_MAX _PC_SYMLINK_MAX
#define fso_pathconf(p, n, v)  (long)sys_pathconf(p, n, v)

static inline long fso_bind(const char *path)
{
	int fd = sys_socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return fd;
	long r = sys_bind(fd, path);
	sys_close(fd);
	return r;
}
#define fso_umount(dir)        (long)sys_umount(dir)

#endif
#endif
