/*
 * slowfs.c: see slowfs.h.  Inode numbers: 1 the root, 2 + i for "f<i>" as
 * mounted, then 2 + nnames and up for the files and directories create
 * and mkdir make (change.c).  Locking: internal.h.
 */
#include "fs/slowfs/internal.h"
#include "fs/dcache.h"
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

static struct file_system_type slowfs_type;
static const struct inode_operations slowfs_file_ops = { 0 };

/* "f<decimal>" below nnames in the root, as an index; -1 for any other
 * name, and for every name in another directory. */
long slowfs_name_index(const struct slowfs *fs, uint64_t dir, const char *name, uint32_t len)
{
	if (dir != SLOWFS_ROOT_INO || len < 2 || len > 10 || name[0] != 'f' || (name[1] == '0' && len > 2))
		return -1;
	uint64_t v = 0;
	for (uint32_t i = 1; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(name[i] - '0');
	}
	return v < fs->nnames ? (long)v : -1;
}

static long name_index(const struct slowfs *fs, const struct inode *dir, const struct qstr *q)
{
	return slowfs_name_index(fs, dir->i_ino, q->name, q->len);
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

void slowfs_count(unsigned *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

#define count slowfs_count

/* A directory's part of slowfs (its changes in flight), freed with it. */
static void slowfs_evict(struct inode *inode)
{
	kfree(inode->i_private);
}

static const struct super_operations slowfs_super_ops = { .evict = slowfs_evict };

struct inode *slowfs_iget(struct super_block *sb, uint64_t v, uint32_t mode, struct inode *creator)
{
	struct slowfs *fs = sb->s_fs_info;
	bool is_dir = v & SLOWFS_DIR;
	struct inode *inode = iget_locked(sb, SLOWFS_INO(v));
	if (!inode || !(inode->i_state & I_NEW))
		return inode;
	if (!creator)
		mode = is_dir ? S_IFDIR | 0755 : S_IFREG | 0644;
	inode_init_new(inode, mode);
	if (creator)
		inode_init_owner(inode, creator);
	else
		inode->i_uid = inode->i_gid = 0;	/* "on disk": root's, not the looker's */
	inode->i_op = &slowfs_file_ops;
	if (is_dir) {
		inode->i_private = kzalloc(sizeof(struct slowfs_dir));
		if (!inode->i_private) {
			iget_failed(inode);
			return NULL;
		}
		inode->i_op = &slowfs_rw_dir_ops;	/* only rw mounts have directories */
		inode->i_fop = &slowfs_dir_fops;
		spin_lock(&fs->lock);
		inode->i_nlink = 2 + __slowfs_subdirs(fs, SLOWFS_INO(v));
		spin_unlock(&fs->lock);
	}
	unlock_new_inode(inode);
	return inode;
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
	long idx = name_index(fs, dir, &d->d_name);

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
	spin_lock(&fs->lock);
	uint64_t ino = __slowfs_name_get(fs, dir->i_ino, d->d_name.name, d->d_name.len);
	spin_unlock(&fs->lock);
	if (!err && ino) {
		inode = slowfs_iget(dir->i_sb, ino, 0, NULL);
		if (!inode)
			err = -ENOMEM;
	}
	if (idx >= 0)
		count(&fs->calls_per_name[idx]);
	else if (!ino)
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

/* readdir: positions 0 and 1 are "." and "..", then 2 + i is the root's
 * "f<i>", then 2 + nnames + ino each other name (change.c).  One sleeping
 * latency per call, as a slow disk would give. */
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
	uint64_t dir = f->f_inode->i_ino;
	while (dir == SLOWFS_ROOT_INO && ctx->pos - 2 < fs->nnames) {
		uint64_t i = ctx->pos - 2;
		int len = snprintf(name, sizeof(name), "f%lu", i);
		uint64_t v = __atomic_load_n(&fs->ino_of_name[i], __ATOMIC_ACQUIRE);
		if (v && !ctx->emit(ctx, name, (unsigned)len, SLOWFS_INO(v), (v & SLOWFS_DIR) ? DT_DIR : DT_REG))
			return 0;
		ctx->pos++;
	}
	if (ctx->pos < 2 + (uint64_t)fs->nnames)
		ctx->pos = 2 + (uint64_t)fs->nnames;
	slowfs_emit_names(fs, dir, 2 + (uint64_t)fs->nnames, ctx);
	return 0;
}

static const struct inode_operations slowfs_dir_ops = { .lookup = slowfs_lookup };
/* Mounted with rw=1: any name can be made, removed and renamed (change.c). */
const struct inode_operations slowfs_rw_dir_ops = {
	.lookup = slowfs_lookup,
	.create = slowfs_create,
	.mkdir = slowfs_mkdir,
	.unlink = slowfs_unlink,
	.rmdir = slowfs_rmdir,
	.rename = slowfs_rename,
};
const struct file_operations slowfs_dir_fops = { .iterate = slowfs_iterate };

/* rw: the changes' operations, and dirgate their gate (change.c). */
static struct super_block *mount(unsigned latency_ms, unsigned nnames, unsigned gate, bool rw,
				 unsigned dirgate)
{
	struct super_block *sb = kzalloc(sizeof(*sb));
	struct slowfs *fs = kzalloc(sizeof(*fs));
	unsigned *calls = kcalloc(nnames ? nnames : 1, sizeof(unsigned));
	unsigned *busy = kcalloc(nnames ? nnames : 1, sizeof(unsigned));
	uint64_t *inos = kcalloc(nnames ? nnames : 1, sizeof(uint64_t));
	struct slowfs_dir *rootdir = kzalloc(sizeof(*rootdir));
	struct inode *root = sb ? iget_locked(sb, SLOWFS_ROOT_INO) : NULL;
	if (!sb || !fs || !calls || !busy || !inos || !rootdir || !root)
		goto fail;
	*fs = (struct slowfs){ .latency_ms = latency_ms, .nnames = nnames, .gate = gate,
			       .dirgate = dirgate, .dirgate_give_up_s = DIRGATE_GIVE_UP_S, .calls_per_name = calls, .busy_per_name = busy, .ino_of_name = inos,
			       .next_ino = 2 + (uint64_t)nnames };
	for (unsigned i = 0; i < nnames; i++)
		inos[i] = 2 + i;
	spin_init(&fs->lock, "slowfs");
	for (unsigned b = 0; b < SLOWFS_BUCKETS; b++)
		list_init(&fs->names[b]);
	wait_queue_init(&fs->gate_wq);
	wait_queue_init(&fs->hold_wq);
	inode_init_new(root, S_IFDIR | 0755);
	root->i_nlink = 2;
	root->i_op = rw ? &slowfs_rw_dir_ops : &slowfs_dir_ops;
	root->i_fop = &slowfs_dir_fops;
	root->i_private = rootdir;
	sb_init(sb, &slowfs_type, &slowfs_super_ops);
	sb->s_fs_info = fs;
	sb->s_root = d_make_root(sb, root);
	if (sb->s_root) {
		unlock_new_inode(root);
		return sb;
	}
fail:
	if (!root || !root->i_private)
		kfree(rootdir);	/* else evict frees it */
	if (root)
		iget_failed(root);	/* freed now: the sb goes too */
	kfree(inos);
	kfree(busy);
	kfree(calls);
	kfree(fs);
	kfree(sb);
	return NULL;
}

struct super_block *slowfs_mount(unsigned latency_ms, unsigned nnames, unsigned gate)
{
	return mount(latency_ms, nnames, gate, false, 0);
}

struct super_block *slowfs_mount_rw(unsigned latency_ms, unsigned nnames, unsigned dirgate)
{
	return mount(latency_ms, nnames, 0, true, dirgate);
}

void slowfs_unmount(struct super_block *sb)
{
	struct slowfs *fs = sb->s_fs_info;
	d_prune_sb(sb);
	dput(sb->s_root);
	icache_evict_sb(sb);	/* the root and files' inodes, unused now */
	slowfs_free_names(fs);
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
	s.changes = __atomic_load_n(&fs->stats.changes, __ATOMIC_ACQUIRE);
	s.max_in_dir = __atomic_load_n(&fs->stats.max_in_dir, __ATOMIC_ACQUIRE);
	s.change_overlaps = __atomic_load_n(&fs->stats.change_overlaps, __ATOMIC_ACQUIRE);
	return s;
}

void slowfs_open_gate(struct super_block *sb)
{
	struct slowfs *fs = sb->s_fs_info;
	__atomic_store_n(&fs->gate, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&fs->dirgate, 0, __ATOMIC_RELEASE);
	wake_up_all(&fs->gate_wq);
}

void slowfs_set_dirgate_give_up(struct super_block *sb, unsigned seconds)
{
	struct slowfs *fs = sb->s_fs_info;
	__atomic_store_n(&fs->dirgate_give_up_s, seconds, __ATOMIC_RELEASE);
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

/* Mount options: latency=MS, names=N, gate=G, rw=0|1, dirgate=G (comma
 * separated); vals in that order. */
static int parse_option(const char *opt, size_t len, unsigned *vals[5])
{
	static const char *const keys[] = { "latency=", "names=", "gate=", "rw=", "dirgate=" };
	for (unsigned k = 0; k < 5; k++) {
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
	unsigned latency = 0, names = 16, gate = 0, rw = 0, dirgate = 0;
	unsigned *vals[5] = { &latency, &names, &gate, &rw, &dirgate };
	const char *p = options;
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (parse_option(p, len, vals)) {
			kprintf("slowfs: bad option '%.*s' (latency=MS, names=N, gate=G, rw=0|1, dirgate=G)\n",
				(int)len, p);
			return ERR_PTR(-EINVAL);
		}
		p = end ? end + 1 : NULL;
	}
	if (names > 10000000 || rw > 1 || (dirgate && !rw))
		return ERR_PTR(-EINVAL);
	struct super_block *sb = mount(latency, names, gate, rw, dirgate);
	return sb ? sb : ERR_PTR(-ENOMEM);
}

static struct file_system_type slowfs_type = {
	.name = "slowfs",
	.fs_flags = FS_PAR_DIROPS,	/* change.c keeps different names apart itself */
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
