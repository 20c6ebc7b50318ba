/*
 * slowfs.c: see slowfs.h.  Inode numbers: 1 the root, 2 + i for "f<i>".
 * Locking: the counters are atomics; the gate is a wait queue.
 */
#include "fs/slowfs/slowfs.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "fs/file.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "kernel/kprintf.h"
#include "kernel/kmalloc.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/waitqueue.h"

struct slowfs {
	unsigned latency_ms, nnames, gate;
	struct slowfs_stats stats;
	unsigned *calls_per_name;
	struct wait_queue_head gate_wq;
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

static int slowfs_lookup(struct inode *dir, struct dentry *d)
{
	struct slowfs *fs = dir->i_sb->s_fs_info;

	note_in_flight(fs);
	if (fs->gate)
		wait_event(fs->gate_wq, __atomic_load_n(&fs->stats.max_in_flight, __ATOMIC_ACQUIRE) >=
					fs->gate);
	if (fs->latency_ms)
		sleep_ms(fs->latency_ms);
	long idx = name_index(fs, &d->d_name);
	struct inode *inode = NULL;
	int err = 0;
	if (idx >= 0) {
		bool is_new;
		inode = iget(dir->i_sb, 2 + (uint64_t)idx, &is_new);
		if (!inode)
			err = -ENOMEM;
		else if (is_new) {
			inode_init_new(inode, S_IFREG | 0644);
			inode->i_op = &slowfs_file_ops;
		}
		__atomic_fetch_add(&fs->calls_per_name[idx], 1, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_add(&fs->stats.misses, 1, __ATOMIC_RELAXED);
	}
	if (!err)
		d_add(d, inode);	/* inode NULL: a negative dentry */
	__atomic_fetch_add(&fs->stats.calls, 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&fs->stats.in_flight, 1, __ATOMIC_RELEASE);
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
		if (!ctx->emit(ctx, name, (unsigned)len, 2 + i, DT_REG))
			return 0;
		ctx->pos++;
	}
	return 0;
}

static const struct inode_operations slowfs_dir_ops = { .lookup = slowfs_lookup };
static const struct file_operations slowfs_dir_fops = { .iterate = slowfs_iterate };

struct super_block *slowfs_mount(unsigned latency_ms, unsigned nnames, unsigned gate)
{
	struct super_block *sb = kzalloc(sizeof(*sb));
	struct slowfs *fs = kzalloc(sizeof(*fs));
	unsigned *calls = kcalloc(nnames ? nnames : 1, sizeof(unsigned));
	bool is_new;
	struct inode *root = sb ? iget(sb, 1, &is_new) : NULL;
	if (!sb || !fs || !calls || !root)
		goto fail;
	*fs = (struct slowfs){ .latency_ms = latency_ms, .nnames = nnames, .gate = gate,
			       .calls_per_name = calls };
	wait_queue_init(&fs->gate_wq);
	inode_init_new(root, S_IFDIR | 0755);
	root->i_nlink = 2;
	root->i_op = &slowfs_dir_ops;
	root->i_fop = &slowfs_dir_fops;
	sb_init(sb, &slowfs_type, NULL);
	sb->s_fs_info = fs;
	sb->s_root = d_make_root(sb, root);
	if (sb->s_root)
		return sb;
fail:
	iput(root);
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
	return s;
}

unsigned slowfs_calls_for(struct super_block *sb, unsigned index)
{
	struct slowfs *fs = sb->s_fs_info;
	return index < fs->nnames ? __atomic_load_n(&fs->calls_per_name[index], __ATOMIC_ACQUIRE) : 0;
}

/* Mount options: latency=MS, names=N, gate=G (comma separated). */
static int parse_option(const char *opt, size_t len, unsigned *latency, unsigned *names, unsigned *gate)
{
	static const char *const keys[] = { "latency=", "names=", "gate=" };
	unsigned *vals[] = { latency, names, gate };
	for (unsigned k = 0; k < 3; k++) {
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

static struct super_block *slowfs_type_mount(const char *options)
{
	unsigned latency = 0, names = 16, gate = 0;
	const char *p = options;
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (parse_option(p, len, &latency, &names, &gate)) {
			kprintf("slowfs: bad option '%.*s' (latency=MS, names=N, gate=G)\n", (int)len, p);
			return ERR_PTR(-EINVAL);
		}
		p = end ? end + 1 : NULL;
	}
	if (names > 10000000)
		return ERR_PTR(-EINVAL);
	struct super_block *sb = slowfs_mount(latency, names, gate);
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
