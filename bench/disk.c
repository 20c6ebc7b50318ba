/*
 * disk.c: lookups that wait on a real disk (make bench attaches two ext2
 * disks served by nbdkit with 10 ms per read; without them, or in the
 * tiny run of make test, both benchmarks say so and return).
 *
 * disk_lookup: T threads (T = 1 .. 16: QEMU keeps at most 16 requests at
 * the disk) each stat K names of one directory of 16,000 files whose
 * dentries and inodes are in no cache, i_rwsem shared vs
 * vfs.lookup=exclusive, alternating.  The directory's own blocks are read
 * once at the start (a getdents), so what a lookup waits for is its
 * inode: the names are picked so that no two share an inode-table block,
 * and no name is used twice, so every stat is one 10 ms read of its own.
 * With the shared i_rwsem the T reads overlap; exclusive, they queue.
 * Target: shared at least 0.9 T times exclusive.
 *
 * Then the device alone, the ceiling for that ratio on this host: T
 * threads each read K 4 KiB blocks of their own straight from the disk
 * (blk_rw: no buffer cache, no VFS), all at once, or one at a time under
 * one mutex as the exclusive i_rwsem serializes the stats' reads.  What
 * the stats miss of 0.9 T beyond what the device misses is the VFS's.
 *
 * disk_walk: a cold walk (getdents and lstat of everything) of a 10,000-file
 * tree on the other disk; the buffer cache's reads are printed here, and
 * bench/run.py counts nbdkit's (the goal: each block read once).
 */
#include "bench/bench.h"
#include "bench/team.h"
#include "block/blkdev.h"
#include "fs/buffer.h"
#include "fs/dcache.h"
#include "kernel/err.h"
#include "fs/ext2/ext2.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/mutex.h"
#include "kernel/string.h"
#include "kernel/time.h"

#define MNT "/bench-disk"

/* Mount every disk read-only at `at`, with ext2's mount options opts, in
 * turn until one has `dir` at its root: true (left mounted), or false. */
static bool mount_disk_with(const char *dir, const char *at, const char *opts)
{
	struct kstat st;
	char dev[24], path[64];
	int e = sys_mkdir(at, 0755);
	if (e && e != -EEXIST)
		return false;
	for (unsigned i = 0; i < BLK_MAX_DISKS; i++) {
		snprintf(dev, sizeof(dev), "/dev/vd%c", 'a' + i);
		if (sys_mount_from(dev, at, "ext2", MS_RDONLY, opts))
			continue;
		snprintf(path, sizeof(path), "%s/%s", at, dir);
		if (sys_stat(path, &st) == 0)
			return true;
		sys_umount(at);
	}
	return false;
}

#define NAMES_MAX 4096
#define LOOKUP_T_MAX 16

struct pick {
	char (*name)[16];        /* names whose inodes share no table block */
	unsigned n, next;
};

/* Read the directory once (warming its blocks, not its inodes) and keep
 * names with distinct inode-table blocks. */
static int pick_names(struct pick *p, const char *dir, unsigned per_block)
{
	int fd = sys_open(dir, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	static uint8_t seen[4096];	/* table blocks taken, by ino / per_block (mod 32768) */
	memset(seen, 0, sizeof(seen));
	char *buf = kmalloc(4096);
	long n;
	while (buf && (n = sys_getdents(fd, buf, 4096)) > 0)
		for (long at = 0; at < n;) {
			struct linux_dirent64 *d = (void *)(buf + at);
			at += d->d_reclen;
			uint64_t blk = d->d_ino / per_block % 32768;
			if (d->d_type != DT_REG || (seen[blk / 8] & (1u << blk % 8)) || p->n == NAMES_MAX ||
			    strlen(d->d_name) >= 16)
				continue;
			seen[blk / 8] |= (uint8_t)(1u << blk % 8);
			strlcpy(p->name[p->n++], d->d_name, 16);
		}
	kfree(buf);
	sys_close(fd);
	return 0;
}

struct lookup_run {
	struct pick *p;
	unsigned base, k;         /* member i stats names base + i*k .. +k */
	unsigned errors;
};

static void lookup_member(void *arg, unsigned i)
{
	struct lookup_run *r = arg;
	char path[64];
	struct kstat st;
	for (unsigned j = 0; j < r->k; j++) {
		snprintf(path, sizeof(path), MNT "/many/%s", r->p->name[r->base + i * r->k + j]);
		if (sys_stat(path, &st))
			__atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
	}
}

/* One run (bench_mode_once_fn): stats per second (0 if it failed), and
 * the most reads the disk had at once meanwhile (the driver's count). */
struct disk_params {
	struct pick *p;
	struct block_device *bdev;
	unsigned k;
};

static uint64_t lookup_once(void *arg, unsigned t, unsigned rep, bool excl, unsigned *in_flight)
{
	(void)rep;
	struct disk_params *d = arg;
	static struct bench_team team;
	struct lookup_run r = { d->p, d->p->next, d->k, 0 };
	d->p->next += t * d->k;
	team = (struct bench_team){ .n = t, .fn = lookup_member, .arg = &r };
	bool was = vfs_lookup_exclusive;
	__atomic_store_n(&vfs_lookup_exclusive, excl, __ATOMIC_RELEASE);
	blk_reset_max_in_flight(d->bdev);
	int err = bench_team_run(&team);
	*in_flight = __atomic_load_n(&d->bdev->stats.max_in_flight, __ATOMIC_RELAXED);
	__atomic_store_n(&vfs_lookup_exclusive, was, __ATOMIC_RELEASE);
	return err || r.errors ? 0 : bench_rate((uint64_t)t * d->k, team.wall_ns);
}

#define DISK_REPS 5

/* ---- the device alone ---- */

struct raw_run {
	struct block_device *bdev;
	uint64_t base;             /* member i reads blocks base + i*k .. +k, downwards */
	unsigned k;
	struct mutex *serial;      /* NULL: all at once */
	unsigned errors;
};

static void raw_member(void *arg, unsigned i)
{
	struct raw_run *r = arg;
	char *buf = kmalloc(4096);
	for (unsigned j = 0; j < r->k; j++) {
		uint64_t sector = (r->base - (uint64_t)i * r->k - j) * 8;
		if (r->serial)
			mutex_lock(r->serial);
		int err = buf ? blk_rw(r->bdev, REQ_OP_READ, sector, buf, 4096) : -ENOMEM;
		if (r->serial)
			mutex_unlock(r->serial);
		if (err)
			__atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
	}
	kfree(buf);
}

struct raw_params {
	struct block_device *bdev;
	uint64_t next;             /* the next unread block, from the disk's end down */
	unsigned k;
	struct mutex serial;
};

static uint64_t raw_once(void *arg, unsigned t, unsigned rep, bool excl, unsigned *in_flight)
{
	(void)rep;
	struct raw_params *d = arg;
	static struct bench_team team;
	struct raw_run r = { d->bdev, d->next, d->k, excl ? &d->serial : NULL, 0 };
	d->next -= (uint64_t)t * d->k;
	team = (struct bench_team){ .n = t, .fn = raw_member, .arg = &r };
	blk_reset_max_in_flight(d->bdev);
	int err = bench_team_run(&team);
	*in_flight = __atomic_load_n(&d->bdev->stats.max_in_flight, __ATOMIC_RELAXED);
	return err || r.errors ? 0 : bench_rate((uint64_t)t * d->k, team.wall_ns);
}

static void device_rows(struct block_device *bdev, const unsigned *threads, unsigned n, unsigned k)
{
	static struct raw_params d;
	d.bdev = bdev;
	d.next = bdev->nr_sectors / 8 - 1;
	d.k = k;
	mutex_init(&d.serial, "disk_device");
	kprintf("  the device alone: K = %u reads of 4 KiB per thread, straight from the disk; "
		"exclusive: one at a time\n", k);
	bench_modes_header("reads", "0.9 T");
	struct bench_modes m = { "disk_lookup", "reads_per_thread", k, 0, DISK_REPS, raw_once, &d,
				 "device", NULL };
	for (unsigned ti = 0; ti < n; ti++)
		bench_modes_row(&m, threads[ti]);
}

static void bench_disk_lookup(unsigned scale)
{
	static const unsigned threads[] = { 1, 2, 4, 8, 16 };
	/* No inode-table read-ahead: each stat must wait for a read of its
	 * own, or a window read for one thread serves the others' names. */
	if (!scale || !mount_disk_with("many", MNT, "inode_readahead_blks=0")) {
		kprintf("  no disk with /many (make bench attaches one): skipped\n");
		return;
	}
	static struct pick p;
	static char names[NAMES_MAX][16];
	p = (struct pick){ names, 0, 0 };
	struct ext2_sb_info *sbi = NULL;
	struct dentry *root = path_lookup(MNT, 0);
	if (!IS_ERR(root)) {
		sbi = EXT2_SB(root->d_sb);
		dput(root);
	}
	unsigned k = 8, needed = 0;
	for (unsigned ti = 0; ti < 5; ti++)
		needed += 2 * DISK_REPS * threads[ti] * k;
	if (!sbi || pick_names(&p, MNT "/many", sbi->inodes_per_block) || p.n < needed) {
		kprintf("  /many has too few names with inodes of their own (%u, %u needed)\n", p.n, needed);
		sys_umount(MNT);
		return;
	}
	kprintf("  K = %u stats per thread, each one read of its own inode block; %u reps per mode\n",
		k, DISK_REPS);
	bench_modes_header("stats", "0.9 T");
	static struct disk_params d;
	d = (struct disk_params){ &p, sbi->bdev, k };
	struct bench_modes m = { "disk_lookup", "stats_per_thread", k, 0, DISK_REPS, lookup_once, &d,
				 "rate", NULL };
	for (unsigned ti = 0; ti < 5; ti++)
		bench_modes_row(&m, threads[ti]);
	device_rows(sbi->bdev, threads, 5, k);
	sys_umount(MNT);
}
KBENCH("disk_lookup", bench_disk_lookup,
       "stats of cold names in one directory on a 10 ms disk, i_rwsem shared vs exclusive");

/* Every entry below path, depth first: getdents and lstat. */
static long walk(char *path, size_t len)
{
	int fd = sys_open(path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	char *buf = kmalloc(4096);
	long count = 0, n = 0;
	while (buf && (n = sys_getdents(fd, buf, 4096)) > 0)
		for (long at = 0; at < n && count >= 0;) {
			struct linux_dirent64 *d = (void *)(buf + at);
			at += d->d_reclen;
			size_t nl = strlen(d->d_name);
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") || len + 1 + nl >= PATH_MAX)
				continue;
			path[len] = '/';
			memcpy(path + len + 1, d->d_name, nl + 1);
			struct kstat st;
			count = sys_lstat(path, &st) ? -EIO : count + 1;
			if (count >= 0 && S_ISDIR(st.mode)) {
				long sub = walk(path, len + 1 + nl);
				count = sub < 0 ? sub : count + sub;
			}
			path[len] = '\0';
		}
	kfree(buf);
	sys_close(fd);
	return n < 0 ? n : count;
}

static void bench_disk_walk(unsigned scale)
{
	if (!scale || !mount_disk_with("walk", MNT, NULL)) {
		kprintf("  no disk with /walk (make bench attaches one): skipped\n");
		return;
	}
	char *path = kmalloc(PATH_MAX);
	if (!path) {
		sys_umount(MNT);
		return;
	}
	strlcpy(path, MNT "/walk", PATH_MAX);
	struct bcache_stats b0, b1;
	bcache_get_stats(&b0);
	uint64_t t0 = ktime_ns();
	long n = walk(path, strlen(path));
	uint64_t ms = (ktime_ns() - t0) / 1000000;
	bcache_get_stats(&b1);
	kprintf("  cold walk: %ld entries in %lu ms, %lu block reads by the buffer cache\n", n, ms,
		b1.reads - b0.reads);
	struct bench_rec rec;
	bench_rec_begin(&rec, "disk_walk", "walk");
	bench_rec_u64(&rec, "entries", n < 0 ? 0 : (uint64_t)n);
	bench_rec_u64(&rec, "ms", ms);
	bench_rec_u64(&rec, "bcache_reads", b1.reads - b0.reads);
	bench_rec_emit(&rec);
	kfree(path);
	sys_umount(MNT);
}
KBENCH("disk_walk", bench_disk_walk, "a cold walk of a 10,000-file tree; its device reads counted");
