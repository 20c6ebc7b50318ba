/*
 * file.c: 9p's regular files, directories' listings and symlinks.
 *
 * A file's I/O goes through its inode's opened fids (v9fs_io_fid: one
 * for reading, one for writing, opened on first need; open() opens the
 * one it will use, so that the server's refusal, EACCES say, is open's
 * error as on Linux).  Reads and writes are cut to msize; nothing is
 * cached (the server's page cache is the cache), so a read sees every
 * write before it, the guest's and the host's.  A listing's position is
 * the server's cursor (Treaddir's offset), so concurrent listings of one
 * directory share its opened fid without sharing a position.
 */
#include "fs/9p/v9fs.h"
#include "fs/file.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"

static int v9fs_open(struct inode *inode, struct file *f)
{
	int64_t fid = 0;
	if (S_ISDIR(inode->i_mode) || file_readable(f))
		fid = v9fs_io_fid(inode, false);
	if (fid >= 0 && !S_ISDIR(inode->i_mode) && file_writable(f))
		fid = v9fs_io_fid(inode, true);
	return fid < 0 ? (int)fid : 0;
}

static long v9fs_read(struct inode *inode, void *buf, size_t n, uint64_t off)
{
	int64_t fid = v9fs_io_fid(inode, false);
	if (fid < 0)
		return (long)fid;
	size_t done = 0;
	while (done < n) {
		uint32_t want = n - done > 0x40000000 ? 0x40000000 : (uint32_t)(n - done);
		long got = p9_read(V9FS_CLNT(inode), (uint32_t)fid, off + done, (char *)buf + done, want);
		if (got < 0)
			return done ? (long)done : got;
		if (got == 0)
			break;	/* the end of the file */
		done += (size_t)got;
	}
	return (long)done;
}

/* Called with i_rwsem exclusive (the VFS's): i_size only grows here. */
static long v9fs_write(struct inode *inode, const void *buf, size_t n, uint64_t off)
{
	int64_t fid = v9fs_io_fid(inode, true);
	if (fid < 0)
		return (long)fid;
	size_t done = 0;
	while (done < n) {
		uint32_t want = n - done > 0x40000000 ? 0x40000000 : (uint32_t)(n - done);
		long put = p9_write(V9FS_CLNT(inode), (uint32_t)fid, off + done,
				    (const char *)buf + done, want);
		if (put <= 0) {
			if (!done)
				return put ? put : -EIO;	/* a server that takes nothing */
			break;
		}
		done += (size_t)put;
	}
	if (off + done > __atomic_load_n(&inode->i_size, __ATOMIC_RELAXED))
		__atomic_store_n(&inode->i_size, off + done, __ATOMIC_RELEASE);
	inode_touch(inode, T_MTIME | T_CTIME);
	return (long)done;
}

struct listing {
	struct dir_context *ctx;
	unsigned taken;
	bool full;
};

static bool list_one(void *arg, const struct p9_qid *qid, uint8_t type, const char *name,
		     uint16_t len)
{
	struct listing *l = arg;
	if (!l->ctx->emit(l->ctx, name, len, qid->path, type)) {
		l->full = true;
		return false;
	}
	l->taken++;
	return true;
}

/* The position lock held and i_rwsem shared (the VFS's). */
static int v9fs_iterate(struct file *f, struct dir_context *ctx)
{
	int64_t fid = v9fs_io_fid(f->f_inode, false);
	if (fid < 0)
		return (int)fid;
	for (;;) {
		struct listing l = { ctx, 0, false };
		uint64_t next;
		int err = p9_readdir(V9FS_CLNT(f->f_inode), (uint32_t)fid, ctx->pos, list_one, &l,
				     &next);
		ctx->pos = next;
		if (err || l.full || l.taken == 0)
			return err;
	}
}

static int v9fs_fsync(struct file *f)
{
	struct v9fs_inode *vi = V9FS_I(f->f_inode);
	uint32_t fid = __atomic_load_n(&vi->wfid, __ATOMIC_ACQUIRE);
	if (fid == P9_NOFID)
		fid = __atomic_load_n(&vi->rfid, __ATOMIC_ACQUIRE);
	return fid == P9_NOFID ? 0 : p9_fsync(V9FS_CLNT(f->f_inode), fid);
}

static int v9fs_truncate(struct inode *inode, uint64_t size)
{
	struct p9_setattr s = { .valid = P9_ATTR_SIZE, .size = size };
	int err = p9_setattr(V9FS_CLNT(inode), V9FS_I(inode)->fid, &s);
	if (err)
		return err;
	__atomic_store_n(&inode->i_size, size, __ATOMIC_RELEASE);
	inode_touch(inode, T_MTIME | T_CTIME);
	return 0;
}

static const char *v9fs_get_link(struct inode *inode)
{
	return V9FS_I(inode)->link;
}

const struct file_operations v9fs_file_fops = {
	.read = v9fs_read,
	.write = v9fs_write,
	.open = v9fs_open,
	.fsync = v9fs_fsync,
};

const struct file_operations v9fs_dir_fops = {
	.iterate = v9fs_iterate,
	.open = v9fs_open,
	.fsync = v9fs_fsync,
};

const struct inode_operations v9fs_file_iops = { .truncate = v9fs_truncate };
const struct inode_operations v9fs_link_iops = { .get_link = v9fs_get_link };
const struct inode_operations v9fs_special_iops;	/* FIFOs, devices, sockets: nothing of 9p's */
