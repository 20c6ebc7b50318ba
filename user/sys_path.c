/*
 * sys_path.c: the system calls that take paths, on Linux's numbers,
 * mapped onto fs/syscalls.h.
 *
 * Every path is copied in with getname (strncpy_from_user: a bad pointer
 * is -EFAULT, a path with no NUL in PATH_MAX bytes -ENAMETOOLONG) before
 * the VFS sees it, and every result goes out with copy_to_user, so the
 * VFS never touches user memory.  The *at calls with a directory
 * descriptor other than AT_FDCWD join the directory's current path (its
 * d_path) and the relative path: a rename of that directory while the
 * call runs is not seen, the one way they differ from Linux's.
 */
#include "user/sys.h"
#include "user/process.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/permission.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/cred.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/kmalloc.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "user/scratch.h"

_Static_assert(PATH_MAX <= PAGE_SIZE, "a path fits in a scratch buffer");

/* A path's buffer is a scratch page (user/scratch.h): no shared lock. */
char *getname(uint64_t upath)
{
	char *buf = scratch_get();
	if (!buf)
		return ERR_PTR(-ENOMEM);
	long n = strncpy_from_user(buf, upath, PATH_MAX);
	if (n < 0 || n == PATH_MAX) {
		scratch_put(buf);
		return ERR_PTR(n < 0 ? n : -ENAMETOOLONG);
	}
	return buf;
}

void putname(char *name)
{
	if (!IS_ERR(name))
		scratch_put(name);
}

/* A copied-in name relative to dirfd: the name itself if it is absolute or
 * dirfd is AT_FDCWD, else the directory's path joined with it, in a new
 * buffer (the name is put then, and on an error). */
static char *name_at(int dirfd, char *name)
{
	if (name[0] == '/' || dirfd == AT_FDCWD)
		return name;
	struct file *f = fget(dirfd);
	if (!f) {
		putname(name);
		return ERR_PTR(-EBADF);
	}
	char *joined = ERR_PTR(-ENOTDIR);
	if (S_ISDIR(f->f_inode->i_mode) && (joined = scratch_get())) {
		struct dentry *root = task_root();
		long n = d_path(f->f_dentry, root, joined, PATH_MAX);
		dput(root);
		size_t len = n > 0 ? (size_t)n - 1 : 0;
		if (n < 0 || len + 1 + strlen(name) + 1 > PATH_MAX) {
			scratch_put(joined);
			joined = ERR_PTR(n < 0 ? n : -ENAMETOOLONG);
		} else if (name[0]) {
			if (len > 1 || joined[0] != '/')
				joined[len++] = '/';
			strlcpy(joined + len, name, PATH_MAX - len);
		}
	} else if (!IS_ERR(joined) || S_ISDIR(f->f_inode->i_mode)) {
		joined = ERR_PTR(-ENOMEM);
	}
	fput(f);
	putname(name);
	return joined;
}

char *getname_at(int dirfd, uint64_t upath)
{
	char *name = getname(upath);
	return IS_ERR(name) ? name : name_at(dirfd, name);
}

/* Run fn on one path (AT_FDCWD-relative) and free it. */
#define WITH_PATH(p, upath, dirfd, expr) ({ \
	char *p = getname_at((dirfd), (upath)); \
	long __r = IS_ERR(p) ? PTR_ERR(p) : (expr); \
	putname(p); \
	__r; })

#define WITH_PATHS(p, up, pfd, q, uq, qfd, expr) ({ \
	char *p = getname_at((pfd), (up)); \
	long __r; \
	if (IS_ERR(p)) { \
		__r = PTR_ERR(p); \
	} else { \
		char *q = getname_at((qfd), (uq)); \
		__r = IS_ERR(q) ? PTR_ERR(q) : (expr); \
		putname(q); \
	} \
	putname(p); \
	__r; })

/* ---- open ---------------------------------------------------------------- */

static long do_open(int dirfd, uint64_t upath, int flags, uint32_t mode)
{
	/* O_LARGEFILE means nothing on 64 bits; O_CLOEXEC is the table's. */
	int kflags = flags & ~(O_CLOEXEC | 0100000);
	long fd = WITH_PATH(p, upath, dirfd, sys_open(p, kflags, mode & 07777));
	if (fd >= 0 && (flags & O_CLOEXEC))
		fd_set_cloexec((int)fd, true);
	return fd;
}

long x64_open(struct trap_frame *r)
{
	return do_open(AT_FDCWD, ARG1(r), (int)ARG2(r), (uint32_t)ARG3(r));
}

long x64_openat(struct trap_frame *r)
{
	return do_open((int)ARG1(r), ARG2(r), (int)ARG3(r), (uint32_t)ARG4(r));
}

long x64_creat(struct trap_frame *r)
{
	return do_open(AT_FDCWD, ARG1(r), O_CREAT | O_WRONLY | O_TRUNC, (uint32_t)ARG2(r));
}

/* ---- stat ---------------------------------------------------------------- */

/* Linux's struct stat on x86-64. */
struct stat64 {
	uint64_t st_dev, st_ino, st_nlink;
	uint32_t st_mode, st_uid, st_gid, pad0;
	uint64_t st_rdev;
	int64_t st_size, st_blksize, st_blocks;
	int64_t st_atime, st_atime_nsec, st_mtime, st_mtime_nsec, st_ctime, st_ctime_nsec;
	int64_t unused[3];
};

static void split_ns(int64_t ns, int64_t *sec, int64_t *nsec)
{
	*sec = ns / 1000000000;
	*nsec = ns % 1000000000;
	if (*nsec < 0) {
		*nsec += 1000000000;
		(*sec)--;
	}
}

long put_stat(uint64_t ubuf, const struct kstat *k)
{
	struct stat64 st;
	memset(&st, 0, sizeof(st));
	st.st_dev = k->dev;
	st.st_ino = k->ino;
	st.st_nlink = k->nlink;
	st.st_mode = k->mode;
	st.st_uid = k->uid;
	st.st_gid = k->gid;
	st.st_rdev = k->rdev;
	st.st_size = k->size;
	st.st_blksize = k->blksize;
	st.st_blocks = k->blocks;
	split_ns(k->atime_ns, &st.st_atime, &st.st_atime_nsec);
	split_ns(k->mtime_ns, &st.st_mtime, &st.st_mtime_nsec);
	split_ns(k->ctime_ns, &st.st_ctime, &st.st_ctime_nsec);
	return copy_to_user(ubuf, &st, sizeof(st)) ? -EFAULT : 0;
}

static long stat_common(int dirfd, uint64_t upath, uint64_t ubuf, int flags)
{
	struct kstat k;
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | 0x800 /* AT_NO_AUTOMOUNT */))
		return -EINVAL;
	char *p = getname(upath);	/* copied in once */
	if (IS_ERR(p))
		return PTR_ERR(p);
	long err;
	if (p[0] == '\0' && (flags & AT_EMPTY_PATH)) {
		err = dirfd == AT_FDCWD ? sys_stat(".", &k) : sys_fstat(dirfd, &k);
	} else {
		p = name_at(dirfd, p);
		err = IS_ERR(p) ? PTR_ERR(p) :
		      (flags & AT_SYMLINK_NOFOLLOW) ? sys_lstat(p, &k) : sys_stat(p, &k);
	}
	putname(p);
	return err ? err : put_stat(ubuf, &k);
}

long x64_stat(struct trap_frame *r)
{
	return stat_common(AT_FDCWD, ARG1(r), ARG2(r), 0);
}

long x64_lstat(struct trap_frame *r)
{
	return stat_common(AT_FDCWD, ARG1(r), ARG2(r), AT_SYMLINK_NOFOLLOW);
}

long x64_newfstatat(struct trap_frame *r)
{
	return stat_common((int)ARG1(r), ARG2(r), ARG3(r), (int)ARG4(r));
}

long x64_fstat(struct trap_frame *r)
{
	struct kstat k;
	int err = sys_fstat((int)ARG1(r), &k);
	return err ? err : put_stat(ARG2(r), &k);
}

/* ---- names ---------------------------------------------------------------- */

long x64_mkdir(struct trap_frame *r)
{
	return WITH_PATH(p, ARG1(r), AT_FDCWD, sys_mkdir(p, (uint32_t)ARG2(r) & 07777));
}

long x64_mkdirat(struct trap_frame *r)
{
	return WITH_PATH(p, ARG2(r), (int)ARG1(r), sys_mkdir(p, (uint32_t)ARG3(r) & 07777));
}

long x64_rmdir(struct trap_frame *r)
{
	return WITH_PATH(p, ARG1(r), AT_FDCWD, sys_rmdir(p));
}

long x64_unlink(struct trap_frame *r)
{
	return WITH_PATH(p, ARG1(r), AT_FDCWD, sys_unlink(p));
}

long x64_unlinkat(struct trap_frame *r)
{
	int flags = (int)ARG3(r);
	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	return WITH_PATH(p, ARG2(r), (int)ARG1(r),
			 (flags & AT_REMOVEDIR) ? sys_rmdir(p) : sys_unlink(p));
}

long x64_rename(struct trap_frame *r)
{
	return WITH_PATHS(a, ARG1(r), AT_FDCWD, b, ARG2(r), AT_FDCWD, sys_rename(a, b));
}

long x64_renameat(struct trap_frame *r)
{
	return WITH_PATHS(a, ARG2(r), (int)ARG1(r), b, ARG4(r), (int)ARG3(r), sys_rename(a, b));
}

long x64_renameat2(struct trap_frame *r)
{
	if (ARG5(r))
		return -EINVAL;		/* RENAME_NOREPLACE, _EXCHANGE, _WHITEOUT: not supported */
	return x64_renameat(r);
}

long x64_link(struct trap_frame *r)
{
	return WITH_PATHS(a, ARG1(r), AT_FDCWD, b, ARG2(r), AT_FDCWD, sys_link(a, b));
}

long x64_linkat(struct trap_frame *r)
{
	if (ARG5(r) & ~(uint64_t)AT_EMPTY_PATH)
		return -EINVAL;
	return WITH_PATHS(a, ARG2(r), (int)ARG1(r), b, ARG4(r), (int)ARG3(r), sys_link(a, b));
}

long x64_symlink(struct trap_frame *r)
{
	char *target = getname(ARG1(r));
	long err = IS_ERR(target) ? PTR_ERR(target) :
		   WITH_PATH(p, ARG2(r), AT_FDCWD, sys_symlink(target, p));
	putname(target);
	return err;
}

long x64_symlinkat(struct trap_frame *r)
{
	char *target = getname(ARG1(r));
	long err = IS_ERR(target) ? PTR_ERR(target) :
		   WITH_PATH(p, ARG3(r), (int)ARG2(r), sys_symlink(target, p));
	putname(target);
	return err;
}

static long readlink_common(int dirfd, uint64_t upath, uint64_t ubuf, long n)
{
	if (n <= 0)
		return -EINVAL;
	char *buf = kmalloc(PATH_MAX);
	if (!buf)
		return -ENOMEM;
	long r = WITH_PATH(p, upath, dirfd, sys_readlink(p, buf, PATH_MAX));
	if (r > n)
		r = n;
	if (r > 0 && copy_to_user(ubuf, buf, (size_t)r))
		r = -EFAULT;
	kfree(buf);
	return r;
}

long x64_readlink(struct trap_frame *r)
{
	return readlink_common(AT_FDCWD, ARG1(r), ARG2(r), (long)ARG3(r));
}

long x64_readlinkat(struct trap_frame *r)
{
	return readlink_common((int)ARG1(r), ARG2(r), ARG3(r), (long)ARG4(r));
}

static long mknod_common(int dirfd, uint64_t upath, uint32_t mode, uint64_t dev)
{
	return WITH_PATH(p, upath, dirfd,
			 (mode & S_IFMT) == 0 || S_ISREG(mode) ? sys_mknod(p, mode | S_IFREG, 0) :
			 sys_mknod(p, mode, dev));
}

long x64_mknod(struct trap_frame *r)
{
	return mknod_common(AT_FDCWD, ARG1(r), (uint32_t)ARG2(r), (uint32_t)ARG3(r));
}

long x64_mknodat(struct trap_frame *r)
{
	return mknod_common((int)ARG1(r), ARG2(r), (uint32_t)ARG3(r), (uint32_t)ARG4(r));
}

/* ---- attributes --------------------------------------------------------- */

long x64_chmod(struct trap_frame *r)
{
	return WITH_PATH(p, ARG1(r), AT_FDCWD, sys_chmod(p, (uint32_t)ARG2(r) & 07777));
}

long x64_fchmodat(struct trap_frame *r)
{
	return WITH_PATH(p, ARG2(r), (int)ARG1(r), sys_chmod(p, (uint32_t)ARG3(r) & 07777));
}

long x64_fchmod(struct trap_frame *r)
{
	return sys_fchmod((int)ARG1(r), (uint32_t)ARG2(r) & 07777);
}

long x64_chown(struct trap_frame *r)
{
	return WITH_PATH(p, ARG1(r), AT_FDCWD, sys_chown(p, (uint32_t)ARG2(r), (uint32_t)ARG3(r)));
}

long x64_lchown(struct trap_frame *r)
{
	return WITH_PATH(p, ARG1(r), AT_FDCWD, sys_lchown(p, (uint32_t)ARG2(r), (uint32_t)ARG3(r)));
}

long x64_fchown(struct trap_frame *r)
{
	return sys_fchown((int)ARG1(r), (uint32_t)ARG2(r), (uint32_t)ARG3(r));
}

long x64_fchownat(struct trap_frame *r)
{
	int flags = (int)ARG5(r);
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	uint32_t uid = (uint32_t)ARG3(r), gid = (uint32_t)ARG4(r);
	return WITH_PATH(p, ARG2(r), (int)ARG1(r),
			 (flags & AT_SYMLINK_NOFOLLOW) ? sys_lchown(p, uid, gid) : sys_chown(p, uid, gid));
}

long x64_truncate(struct trap_frame *r)
{
	return WITH_PATH(p, ARG1(r), AT_FDCWD, sys_truncate(p, (int64_t)ARG2(r)));
}

long x64_ftruncate(struct trap_frame *r)
{
	return sys_ftruncate((int)ARG1(r), (int64_t)ARG2(r));
}

#define F_OK 0
#define X_OK 1
#define W_OK 2
#define R_OK 4

/* access: the permission bits against the caller's IDs (one set of IDs
 * here, so AT_EACCESS changes nothing). */
static long access_common(int dirfd, uint64_t upath, int mode, int flags)
{
	if (mode & ~(R_OK | W_OK | X_OK) || flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	char *p = getname_at(dirfd, upath);
	if (IS_ERR(p))
		return PTR_ERR(p);
	struct dentry *d = path_lookup(p, (flags & AT_SYMLINK_NOFOLLOW) ? WALK_NOFOLLOW : 0);
	putname(p);
	if (IS_ERR(d))
		return PTR_ERR(d);
	int mask = (mode & R_OK ? MAY_READ : 0) | (mode & W_OK ? MAY_WRITE : 0) |
		   (mode & X_OK ? MAY_EXEC : 0);
	int err = mask ? inode_permission(d->d_inode, mask) : 0;
	dput(d);
	return err;
}

long x64_access(struct trap_frame *r)
{
	return access_common(AT_FDCWD, ARG1(r), (int)ARG2(r), 0);
}

long x64_faccessat(struct trap_frame *r)
{
	return access_common((int)ARG1(r), ARG2(r), (int)ARG3(r), 0);
}

long x64_faccessat2(struct trap_frame *r)
{
	return access_common((int)ARG1(r), ARG2(r), (int)ARG3(r), (int)ARG4(r));
}

#define UTIME_NOW  ((1L << 30) - 1)
#define UTIME_OMIT ((1L << 30) - 2)

long x64_utimensat(struct trap_frame *r)
{
	int dirfd = (int)ARG1(r), flags = (int)ARG4(r);
	int64_t ts[4];	/* atime sec, nsec, mtime sec, nsec */
	int64_t t[2];
	bool now[2] = { true, true }, omit[2] = { false, false };
	if (flags & ~AT_SYMLINK_NOFOLLOW)
		return -EINVAL;
	if (ARG3(r)) {
		if (copy_from_user(ts, ARG3(r), sizeof(ts)))
			return -EFAULT;
		for (int i = 0; i < 2; i++) {
			int64_t ns = ts[2 * i + 1];
			omit[i] = ns == UTIME_OMIT;
			now[i] = ns == UTIME_NOW;
			if (!omit[i] && !now[i] && (ns < 0 || ns >= 1000000000))
				return -EINVAL;
			t[i] = ts[2 * i] * 1000000000 + ns;
		}
	}
	if (!ARG2(r) && dirfd != AT_FDCWD)	/* futimens: utimensat(fd, NULL, ...) */
		return sys_futimens(dirfd, t, now, omit);
	return WITH_PATH(p, ARG2(r), dirfd, sys_utimens_at(p, t, now, omit, (unsigned)flags));
}

long x64_chdir(struct trap_frame *r)
{
	return WITH_PATH(p, ARG1(r), AT_FDCWD, sys_chdir(p));
}

long x64_fchdir(struct trap_frame *r)
{
	return sys_fchdir((int)ARG1(r));
}

/* As Linux: a path longer than PATH_MAX is -ENAMETOOLONG (glibc's
 * getcwd(NULL, 0) counts on it); -ERANGE only when the path fits
 * PATH_MAX but not the caller's buffer. */
long x64_getcwd(struct trap_frame *r)
{
	char *buf = kmalloc(PATH_MAX);
	if (!buf)
		return -ENOMEM;
	long len = sys_getcwd(buf, PATH_MAX);
	if (len == -ERANGE)
		len = -ENAMETOOLONG;
	else if (len > 0 && (uint64_t)len > ARG2(r))
		len = -ERANGE;
	if (len > 0 && copy_to_user(ARG1(r), buf, (size_t)len))
		len = -EFAULT;
	kfree(buf);
	return len;
}

long x64_umask(struct trap_frame *r)
{
	return user_umask((uint32_t)ARG1(r) & 0777);
}

/* ---- filesystems ------------------------------------------------------------ */

struct statfs64 {
	int64_t f_type, f_bsize;
	uint64_t f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int32_t f_fsid[2];
	int64_t f_namelen, f_frsize, f_flags, f_spare[4];
};

static long put_statfs(uint64_t ubuf, const struct kstatfs *k)
{
	struct statfs64 s;
	memset(&s, 0, sizeof(s));
	s.f_type = (int64_t)k->type;
	s.f_bsize = (int64_t)k->bsize;
	s.f_frsize = (int64_t)k->frsize;
	s.f_blocks = k->blocks;
	s.f_bfree = k->bfree;
	s.f_bavail = k->bavail;
	s.f_files = k->files;
	s.f_ffree = k->ffree;
	s.f_fsid[0] = (int32_t)k->fsid;
	s.f_fsid[1] = (int32_t)(k->fsid >> 32);
	s.f_namelen = (int64_t)k->namelen;
	return copy_to_user(ubuf, &s, sizeof(s)) ? -EFAULT : 0;
}

long x64_statfs(struct trap_frame *r)
{
	struct kstatfs k;
	long err = WITH_PATH(p, ARG1(r), AT_FDCWD, sys_statfs(p, &k));
	return err ? err : put_statfs(ARG2(r), &k);
}

long x64_fstatfs(struct trap_frame *r)
{
	struct kstatfs k;
	long err = sys_fstatfs((int)ARG1(r), &k);
	return err ? err : put_statfs(ARG2(r), &k);
}

/* mount(source, target, type, flags, data).  source names what a disk
 * filesystem reads, a block device node (fs/namespace.c), and may be
 * NULL for the others.  Of the flags only MS_RDONLY means something here;
 * the others, and the old MS_MGC_VAL magic in the top half, are ignored. */
long x64_mount(struct trap_frame *r)
{
	char *source = ARG1(r) ? getname(ARG1(r)) : NULL;
	char *type = getname(ARG3(r));
	char *data = ARG5(r) ? getname(ARG5(r)) : NULL;
	unsigned long flags = ARG4(r) & MS_RDONLY;
	long err = IS_ERR(source) ? PTR_ERR(source) : IS_ERR(type) ? PTR_ERR(type) :
		   IS_ERR(data) ? PTR_ERR(data) :
		   WITH_PATH(p, ARG2(r), AT_FDCWD, sys_mount_from(source, p, type, flags, data));
	if (source)
		putname(source);
	putname(type);
	if (data)
		putname(data);
	return err;
}

long x64_umount2(struct trap_frame *r)
{
	if (ARG2(r))
		return -EINVAL;
	return WITH_PATH(p, ARG1(r), AT_FDCWD, sys_umount(p));
}

long x64_socket(struct trap_frame *r)
{
	int type = (int)ARG2(r);
	long fd = sys_socket((int)ARG1(r), type & 0xf, (int)ARG3(r));
	if (fd >= 0 && (type & O_CLOEXEC))
		fd_set_cloexec((int)fd, true);
	return fd;
}

long x64_bind(struct trap_frame *r)
{
	uint64_t uaddr = ARG2(r), len = ARG3(r);
	char addr[2 + 108 + 1];
	if (len < 2 || len > sizeof(addr) - 1)
		return -EINVAL;
	memset(addr, 0, sizeof(addr));
	if (copy_from_user(addr, uaddr, len))
		return -EFAULT;
	if (*(uint16_t *)addr != AF_UNIX)
		return -EINVAL;
	return sys_bind((int)ARG1(r), addr + 2);
}
