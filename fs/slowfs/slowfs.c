/*
 * slowfs.c: see slowfs.h.  Inode numbers: 1 the root, 2 + i for "f<i>" as
 * mounted, then 2 + nnames and up for the files create makes.
 * Locking: the counters are atomics; the gate and the hold are wait
 * queues; ino_of_name and next_ino change under the root's i_rwsem held
 * exclusive (unlink, create) and are read under it shared (lookup,
 * readdir).
 */
#include "fs/slowfs/slowfs.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "fs/file.h"
#include "fs/namei.h"
#include "fs/permission.h"
#include "fs/syscalls.h"
#include "kernel/kprintf.h"
#include "kernel/kmalloc.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/waitqueue.h"

struct slowfs {
	unsigned latency_ms, nnames, gate;
	bool hold;                      /* stop lookups after d_add (slowfs_hold) */
	struct slowfs_stats stats;
	unsigned *calls_per_name;
	unsigned *busy_per_name;        /* lookups of the name in slowfs now */
	uint64_t *ino_of_name;          /* "f<i>"'s inode number; 0: removed */
	uint64_t next_ino;              /* for the next create */
	struct wait_queue_head gate_wq, hold_wq;
};

static struct file_system_type slowfs_type;
static const struct inode_operations slowfs_file_ops = { 0 };

/* "f<decimal>" below nnames, as an index; -1 for any other name. */
static long name_index(const struct slowfs *fs, const struct qstr *q)
{
	if (q->len < 2 || q->len > 10 || q->name[0] != 'f' || (q->name[1] == '0' && q->len > 2))
		return -1;
	uint64_t v = 0;
	for (uint32_t i = 1; i < q->len; i++) {
		if (q->name[i] < '0' || q->name[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(q->name[i] - '0');
	}
	return v < fs->nnames ? (long)v : -1;
}

static void note_in_flight(struct slowfs *fs)
{
	unsigned now = __atomic_add_fetch(&fs->stats.in_flight, 1, __ATOMIC_ACQ_REL);
	unsigned max = __atomic_load_n(&fs->stats.max_in_flight, __ATOMIC_RELAXED);
	while (now > max && !__atomic_compare_exchange_n(&fs->stats.max_in_flight, &max, now, false,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	wake_up_all(&fs->gate_wq);
}

static void count(unsigned *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/*
 * The VFS's promise, checked: d must be a fresh in-lookup dentry, and no
 * dentry of the name may be hashed yet.  False (and the breach counted)
 * if the promise is broken.
 */
static bool lookup_is_first(struct slowfs *fs, struct dentry *d)
{
	struct dentry *hashed = d_lookup(d->d_parent, &d->d_name);
	bool ok = !hashed && d_in_lookup(d) && d_unhashed(d);
	if (hashed)
		dput(hashed);
	if (!ok)
		count(&fs->stats.rehashed);
	return ok;
}

static bool gate_open(struct slowfs *fs)
{
	return __atomic_load_n(&fs->stats.max_in_flight, __ATOMIC_ACQUIRE) >=
	       __atomic_load_n(&fs->gate, __ATOMIC_ACQUIRE);
}

/* After d_add: wait here while a test holds lookups (slowfs_hold). */
static void maybe_hold(struct slowfs *fs)
{
	if (!__atomic_load_n(&fs->hold, __ATOMIC_ACQUIRE))
		return;
	count(&fs->stats.held);
	wake_up_all(&fs->hold_wq);	/* the test waits for us to arrive */
	wait_event(fs->hold_wq, !__atomic_load_n(&fs->hold, __ATOMIC_ACQUIRE));
	__atomic_sub_fetch(&fs->stats.held, 1, __ATOMIC_RELEASE);
}

static int slowfs_lookup(struct inode *dir, struct dentry *d)
{
	struct slowfs *fs = dir->i_sb->s_fs_info;
	long idx = name_index(fs, &d->d_name);

	if (idx >= 0 && __atomic_add_fetch(&fs->busy_per_name[idx], 1, __ATOMIC_ACQ_REL) > 1)
		count(&fs->stats.overlaps);
	bool first = lookup_is_first(fs, d);
	note_in_flight(fs);
	int err = first ? 0 : -EIO;	/* a second answer would corrupt the dcache */
	if (__atomic_load_n(&fs->gate, __ATOMIC_ACQUIRE) && wait_event_killable(fs->gate_wq, gate_open(fs)))
		err = -EINTR;	/* killed at the gate: no answer */
	if (fs->latency_ms)
		sleep_ms(fs->latency_ms);
	struct inode *inode = NULL;
	uint64_t ino = idx >= 0 ? fs->ino_of_name[idx] : 0;
	if (!err && ino) {
		inode = iget_locked(dir->i_sb, ino);
		if (!inode)
			err = -ENOMEM;
		else if (inode->i_state & I_NEW) {
			inode_init_new(inode, S_IFREG | 0644);
			inode->i_uid = inode->i_gid = 0;	/* "on disk": root's, not the looker's */
			inode->i_op = &slowfs_file_ops;
			unlock_new_inode(inode);
		}
	}
	if (idx >= 0)
		count(&fs->calls_per_name[idx]);
	else
		count(&fs->stats.misses);
	if (!err)
		d_add(d, inode);	/* inode NULL: a negative dentry */
	count(&fs->stats.calls);
	if (idx >= 0)
		__atomic_sub_fetch(&fs->busy_per_name[idx], 1, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&fs->stats.in_flight, 1, __ATOMIC_RELEASE);
	if (!err)
		maybe_hold(fs);
	return err;
}

/* readdir: positions 0 and 1 are "." and "..", then 2 + i is "f<i>".
 * One sleeping latency per call, as a slow disk would give. */
static int slowfs_iterate(struct file *f, struct dir_context *ctx)
{
	struct slowfs *fs = f->f_inode->i_sb->s_fs_info;
	if (fs->latency_ms)
		sleep_ms(fs->latency_ms);
	if (ctx->pos == 0) {
		if (!ctx->emit(ctx, ".", 1, 1, DT_DIR))
			return 0;
		ctx->pos = 1;
	}
	if (ctx->pos == 1) {
		if (!ctx->emit(ctx, "..", 2, 1, DT_DIR))
			return 0;
		ctx->pos = 2;
	}
	char name[16];
	while (ctx->pos - 2 < fs->nnames) {
		uint64_t i = ctx->pos - 2;
		int len = snprintf(name, sizeof(name), "f%lu", i);
		if (fs->ino_of_name[i] && !ctx->emit(ctx, name, (unsigned)len, fs->ino_of_name[i], DT_REG))
			return 0;
		ctx->pos++;
	}
	return 0;
}

/* The VFS holds dir's and the victim's i_rwsem exclusive. */
static int slowfs_unlink(struct inode *dir, struct dentry *d)
{
	struct slowfs *fs = dir->i_sb->s_fs_info;
	long idx = name_index(fs, &d->d_name);
	if (idx < 0 || !fs->ino_of_name[idx])
		return -ENOENT;
	fs->ino_of_name[idx] = 0;
	__atomic_store_n(&d->d_inode->i_nlink, 0, __ATOMIC_RELEASE);	/* evicted at its last iput */
	inode_touch(d->d_inode, T_CTIME);
	return 0;
}

/* A new file under a removed name "f<i>" (no other name can be made):
 * a new inode, as a disk filesystem would give.  dir is locked exclusive. */
static int slowfs_create(struct inode *dir, struct dentry *d, uint32_t mode)
{
	struct slowfs *fs = dir->i_sb->s_fs_info;
	long idx = name_index(fs, &d->d_name);
	if (idx < 0)
		return -EPERM;
	if (fs->ino_of_name[idx])
		return -EEXIST;
	struct inode *inode = iget_locked(dir->i_sb, fs->next_ino);
	if (!inode)
		return -ENOMEM;
	inode_init_new(inode, S_IFREG | (mode & S_IALLUGO));
	inode_init_owner(inode, dir);
	inode->i_op = &slowfs_file_ops;
	unlock_new_inode(inode);
	fs->ino_of_name[idx] = fs->next_ino++;
	d_instantiate(d, inode);	/* the dentry takes our reference */
	return 0;
}

static const struct inode_operations slowfs_dir_ops = { .lookup = slowfs_lookup };
/* Mounted with rw=1: names can also be removed and made again. */
static const struct inode_operations slowfs_rw_dir_ops = {
	.lookup = slowfs_lookup,
	.create = slowfs_create,
	.unlink = slowfs_unlink,
};
static const struct file_operations slowfs_dir_fops = { .iterate = slowfs_iterate };

struct super_block *slowfs_mount(unsigned latency_ms, unsigned nnames, unsigned gate)
{
	struct super_block *sb = kzalloc(sizeof(*sb));
	struct slowfs *fs = kzalloc(sizeof(*fs));
	unsigned *calls = kcalloc(nnames ? nnames : 1, sizeof(unsigned));
	unsigned *busy = kcalloc(nnames ? nnames : 1, sizeof(unsigned));
	uint64_t *inos = kcalloc(nnames ? nnames : 1, sizeof(uint64_t));
	struct inode *root = sb ? iget_locked(sb, 1) : NULL;
	if (!sb || !fs || !calls || !busy || !inos || !root)
		goto fail;
	*fs = (struct slowfs){ .latency_ms = latency_ms, .nnames = nnames, .gate = gate,
			       .calls_per_name = calls, .busy_per_name = busy, .ino_of_name = inos,
			       .next_ino = 2 + (uint64_t)nnames };
	for (unsigned i = 0; i < nnames; i++)
		inos[i] = 2 + i;
	wait_queue_init(&fs->gate_wq);
	wait_queue_init(&fs->hold_wq);
	inode_init_new(root, S_IFDIR | 0755);
	root->i_nlink = 2;
	root->i_op = &slowfs_dir_ops;
	root->i_fop = &slowfs_dir_fops;
	sb_init(sb, &slowfs_type, NULL);
	sb->s_fs_info = fs;
	sb->s_root = d_make_root(sb, root);
	if (sb->s_root) {
		unlock_new_inode(root);
		return sb;
	}
fail:
	if (root)
		iget_failed(root);	/* freed now: the sb goes too */
	kfree(inos);
	kfree(busy);
	kfree(calls);
	kfree(fs);
	kfree(sb);
	return NULL;
}

void slowfs_unmount(struct super_block *sb)
{
	struct slowfs *fs = sb->s_fs_info;
	d_prune_sb(sb);
	dput(sb->s_root);
	icache_evict_sb(sb);	/* the root and files' inodes, unused now */
	kfree(fs->calls_per_name);
	kfree(fs->busy_per_name);
	kfree(fs->ino_of_name);
	kfree(fs);
	kfree(sb);
}

struct slowfs_stats slowfs_stats(struct super_block *sb)
{
	struct slowfs *fs = sb->s_fs_info;
	struct slowfs_stats s;
	__atomic_load(&fs->stats.calls, &s.calls, __ATOMIC_ACQUIRE);
	s.in_flight = __atomic_load_n(&fs->stats.in_flight, __ATOMIC_ACQUIRE);
	s.max_in_flight = __atomic_load_n(&fs->stats.max_in_flight, __ATOMIC_ACQUIRE);
	s.misses = __atomic_load_n(&fs->stats.misses, __ATOMIC_ACQUIRE);
	s.overlaps = __atomic_load_n(&fs->stats.overlaps, __ATOMIC_ACQUIRE);
	s.rehashed = __atomic_load_n(&fs->stats.rehashed, __ATOMIC_ACQUIRE);
	s.held = __atomic_load_n(&fs->stats.held, __ATOMIC_ACQUIRE);
	return s;
}

void slowfs_open_gate(struct super_block *sb)
{
	struct slowfs *fs = sb->s_fs_info;
	__atomic_store_n(&fs->gate, 0, __ATOMIC_RELEASE);
	wake_up_all(&fs->gate_wq);
}

void slowfs_hold(struct super_block *sb, bool hold)
{
	struct slowfs *fs = sb->s_fs_info;
	__atomic_store_n(&fs->hold, hold, __ATOMIC_RELEASE);
	if (!hold)
		wake_up_all(&fs->hold_wq);
}

unsigned slowfs_calls_for(struct super_block *sb, unsigned index)
{
	struct slowfs *fs = sb->s_fs_info;
	return index < fs->nnames ? __atomic_load_n(&fs->calls_per_name[index], __ATOMIC_ACQUIRE) : 0;
}

/* Mount options: latency=MS, names=N, gate=G, rw=0|1 (comma separated). */
static int parse_option(const char *opt, size_t len, unsigned *latency, unsigned *names, unsigned *gate,
			unsigned *rw)
{
	static const char *const keys[] = { "latency=", "names=", "gate=", "rw=" };
	unsigned *vals[] = { latency, names, gate, rw };
	for (unsigned k = 0; k < 4; k++) {
		size_t kl = strlen(keys[k]);
		if (len <= kl || strncmp(opt, keys[k], kl) != 0)
			continue;
		uint64_t v = 0;
		for (size_t i = kl; i < len; i++) {
			if (opt[i] < '0' || opt[i] > '9' || v > 100000000)
				return -EINVAL;
			v = v * 10 + (uint64_t)(opt[i] - '0');
		}
		*vals[k] = (unsigned)v;
		return 0;
	}
	return -EINVAL;
}

static struct super_block *slowfs_type_mount(struct block_device *bdev, unsigned flags,
					     const char *options)
{
	(void)bdev;
	(void)flags;
	unsigned latency = 0, names = 16, gate = 0, rw = 0;
	const char *p = options;
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (parse_option(p, len, &latency, &names, &gate, &rw)) {
			kprintf("slowfs: bad option '%.*s' (latency=MS, names=N, gate=G, rw=0|1)\n", (int)len, p);
			return ERR_PTR(-EINVAL);
		}
		p = end ? end + 1 : NULL;
	}
	if (names > 10000000 || rw > 1)
		return ERR_PTR(-EINVAL);
	struct super_block *sb = slowfs_mount(latency, names, gate);
	if (sb && rw)
		sb->s_root->d_inode->i_op = &slowfs_rw_dir_ops;	/* not yet mounted: no one else sees it */
	return sb ? sb : ERR_PTR(-ENOMEM);
}

static struct file_system_type slowfs_type = {
	.name = "slowfs",
	.mount = slowfs_type_mount,
	.kill_sb = slowfs_unmount,
};

int slowfs_register(void)
{
	return register_filesystem(&slowfs_type);
}

int slowfs_stats_at(const char *dir, struct slowfs_stats *out)
{
	struct dentry *d = path_lookup(dir, 0);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	int err = d->d_sb->s_type == &slowfs_type ? 0 : -EINVAL;
	if (!err)
		*out = slowfs_stats(d->d_sb);
	dput(d);
	return err;
}
