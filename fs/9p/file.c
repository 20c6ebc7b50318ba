/*
 * file.c: 9p's regular files, directories' listings and symlinks.
 *
 * Each open file has its own fid (Linux's v9fs): open clones the inode's
 * fid and opens the clone (Tlopen) with the open's access mode and
 * O_APPEND, so the server sees each open's flags (an O_APPEND write goes
 * to the host file's end, wherever the guest thinks it is) and its
 * refusal, EACCES say, is open's error; the last close clunks exactly
 * that fid.  The open that created the file takes Tlcreate's fid
 * instead (namei.c).  The fid lives in file->private_data (a fid is
 * never 0: super.c starts the count at 1).  A file made without an open
 * (exec's) reads through the inode's read-only fid (v9fs_io_fid).
 *
 * Reads and writes are cut to msize; nothing is cached (the server's
 * page cache is the cache), so a read sees every write before it, the
 * guest's and the host's.  A listing's position is the server's cursor
 * (Treaddir's offset) on the open's own fid.
 */
#include "fs/9p/v9fs.h"
#include "fs/file.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"

/* What Tlopen is told: the access mode, and O_APPEND (9P2000.L's flags
 * are Linux's numbers).  Nothing else of the open's changes how the
 * server's descriptor behaves for this client. */
static uint32_t lopen_flags(const struct file *f)
{
	return f->f_flags & (O_ACCMODE | O_APPEND);
}

void (*v9fs_open_hook)(struct inode *inode);

static int v9fs_open(struct inode *inode, struct file *f)
{
	struct p9_client *c = V9FS_CLNT(inode);
	uint32_t fid = f->f_created ? v9fs_take_create_fid(inode) : P9_NOFID;
	/* An unlink of another name of the file (open holds no lock of the
	 * inode's) may make the fid stale after we read it: then the
	 * server's ENOENT, and one more try with the fid walked afresh. */
	for (unsigned tries = 0; fid == P9_NOFID; tries++) {
		int64_t from = v9fs_dentry_fid(f->f_dentry);
		if (from < 0)
			return (int)from;
		void (*hook)(struct inode *) = __atomic_load_n(&v9fs_open_hook, __ATOMIC_ACQUIRE);
		if (hook)
			hook(inode);
		fid = p9_fid_new(c);
		int err = p9_walk(c, (uint32_t)from, fid, NULL, 0, NULL);	/* a clone to open */
		if (!err && (err = p9_lopen(c, fid, S_ISDIR(inode->i_mode) ? O_RDONLY :
					    lopen_flags(f))))
			p9_clunk(c, fid);
		if (err == -ENOENT && tries == 0 && v9fs_fid_moved(inode, (uint32_t)from))
			fid = P9_NOFID;
		else if (err)
			return err;
	}
	f->private_data = (void *)(uintptr_t)fid;
	return 0;
}

/* The last close: the open's fid goes back to the server. */
static void v9fs_release(struct inode *inode, struct file *f)
{
	if (f->private_data)
		p9_clunk(V9FS_CLNT(inode), (uint32_t)(uintptr_t)f->private_data);
}

/* The fid f reads with: its own, or, for a file made without an open,
 * the inode's read-only one. */
static int64_t read_fid(struct file *f)
{
	return f->private_data ? (int64_t)(uintptr_t)f->private_data : v9fs_io_fid(f->f_inode);
}

static long v9fs_read(struct file *f, void *buf, size_t n, uint64_t off)
{
	int64_t fid = read_fid(f);
	if (fid < 0)
		return (long)fid;
	size_t done = 0;
	while (done < n) {
		uint32_t want = n - done > 0x40000000 ? 0x40000000 : (uint32_t)(n - done);
		long got = p9_read(V9FS_CLNT(f->f_inode), (uint32_t)fid, off + done, (char *)buf + done,
				   want);
		if (got < 0)
			return done ? (long)done : got;
		if (got == 0)
			break;	/* the end of the file */
		done += (size_t)got;
	}
	return (long)done;
}

/* Called with i_rwsem exclusive (the VFS's): i_size only grows here.
 * Every writable file came through open, so it has its fid. */
static long v9fs_write(struct file *f, const void *buf, size_t n, uint64_t off)
{
	struct inode *inode = f->f_inode;
	if (!f->private_data)
		return -EBADF;
	uint32_t fid = (uint32_t)(uintptr_t)f->private_data;
	size_t done = 0;
	while (done < n) {
		uint32_t want = n - done > 0x40000000 ? 0x40000000 : (uint32_t)(n - done);
		long put = p9_write(V9FS_CLNT(inode), fid, off + done, (const char *)buf + done, want);
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
	int64_t fid = read_fid(f);
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
	int64_t fid = read_fid(f);
	return fid < 0 ? (int)fid : p9_fsync(V9FS_CLNT(f->f_inode), (uint32_t)fid);
}

static int v9fs_truncate(struct inode *inode, uint64_t size)
{
	struct p9_setattr s = { .valid = P9_ATTR_SIZE, .size = size };
	int64_t fid = v9fs_inode_fid(inode);
	int err = fid < 0 ? (int)fid : p9_setattr(V9FS_CLNT(inode), (uint32_t)fid, &s);
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
	.release = v9fs_release,
	.fsync = v9fs_fsync,
};

const struct file_operations v9fs_dir_fops = {
	.iterate = v9fs_iterate,
	.open = v9fs_open,
	.release = v9fs_release,
	.fsync = v9fs_fsync,
};

const struct inode_operations v9fs_file_iops = { .truncate = v9fs_truncate,
						 .setattr = v9fs_setattr };
const struct inode_operations v9fs_link_iops = { .get_link = v9fs_get_link,
						 .setattr = v9fs_setattr };
/* FIFOs, devices, sockets: only their attributes are 9p's. */
const struct inode_operations v9fs_special_iops = { .setattr = v9fs_setattr };
