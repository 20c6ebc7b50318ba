/*
 * conflicts.c: pairs of operations for the cache-line conflict tracer.
 *
 * A pair runs one operation on each of two CPUs (a bench_team with
 * one_per_cpu), each side inside conflict_region_begin/end with the
 * pair's id; tools/conflicts/conflicts.so records every cache line each
 * side touches and reports the lines one writes and the other touches.
 * A counted region (id >= CONFLICT_COUNTED) runs on one CPU and the plugin
 * reports its exact instruction count.  On real CPUs and KVM the markers
 * are NOPs and this only says whether each pair ran.
 *
 * How a pair is run, and why:
 *  - Fresh state: each pair builds its own tree under /cf (prepare), and
 *    the tree is removed after it, so no pair sees another's dentries,
 *    files or descriptors; the slow-lookup pair's names were never looked
 *    up before.
 *  - One side after the other: side 1 enters its region only when side 0
 *    has left its own.  Which lines a side touches does not depend on the
 *    interleaving (the plugin compares sets), but a side that waited for
 *    the other would count its spinning, or sleep inside the region and
 *    let whatever else runs on that CPU into it.  Taking turns keeps each
 *    region the operation alone, and its instruction count exact.
 *  - Undisturbed: a side that took a timer interrupt or a context switch
 *    inside its region (the per-CPU tick and switch counters moved) has
 *    the handler's lines in it; the pair is then prepared and run again,
 *    up to ATTEMPTS times.  The plugin reports every run; run.py keeps the
 *    last, which is the one this file reports.
 *  - The common case of the allocators: before its region, each side puts
 *    its CPU's slab magazines and page list at their refill level (see
 *    conflict_side_enter).
 *
 * Region ids: 1..3 the controls (1: one shared counter, exactly its line
 * must conflict; 2: two private counters on separate lines, none may;
 * 3: one field of a slab object, which must be named cf_object+0x40),
 * 4..16 the hand-picked VFS pairs, 17..20 rwsem_choice.c's, 0x1000.. the
 * generated ones (commute.c), CONFLICT_COUNTED + n the counted regions.
 * The ids here are literal because the marker encodes them as
 * immediates; commute.c's come through conflict_region_begin_var.
 *
 * Object names: the plugin cannot read guest memory (QEMU's plugin API 1),
 * so run.py names a line from what the kernel prints: static data from
 * the ELF's symbols (the image is mapped at phys + KERNEL_VMA), struct
 * page entries from the page array's place, and heap lines from the slab
 * map the last side prints after its region, while every side still
 * holds what its call made (slabs come and go, so a map printed once at
 * the end would miss objects freed since).  Each map line is one slab:
 * physical start, bytes, object size, cache name; the object offset is
 * (line - start) % size.  Large kmalloc blocks (whole pages: the hash
 * tables) are listed too, with size 0.  A map is printed as what changed
 * since the previous one (print_slab_map).
 */
#include <stdint.h>
#include "bench/bench.h"
#include "bench/conflicts.h"
#include "bench/team.h"
#include "fs/dcache.h"
#include "fs/dirops.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/cmdline.h"
#include "kernel/conflict.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/mutex.h"
#include "kernel/page_alloc.h"
#include "kernel/rcu.h"
#include "kernel/rwsem.h"
#include "kernel/sched.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "arch/x86_64/percpu.h"

#define ATTEMPTS 5

uint64_t conflicts_traced;
KPARAM("conflicts.traced", kparam_set_u64, conflicts_traced, 0, 1,
       "1: tools/conflicts/conflicts.so is loaded (run.py says so): print the slab maps");

/* Per side, each on its own lines, so the harness adds no sharing itself. */
static struct side {
	int res;                   /* the body's result: 0 as expected, 1 not run */
	int fd;
	bool disturbed;            /* an interrupt or a switch inside the region */
	struct kstat st;
	char buf[256];
} __attribute__((aligned(64))) side[2];
_Static_assert(sizeof(struct side) % 64 == 0, "sides must not share a line");

static unsigned turn;              /* which side may enter its region */
static unsigned set_up;            /* sides that have run their side_setup */

static uint64_t disturbances(void)
{
	unsigned cpu = cpu_id();   /* the sides are pinned */
	return __atomic_load_n(&cpus[cpu].ticks, __ATOMIC_RELAXED) + sched_context_switches(cpu);
}

static const struct conflict_pair *current;

static void print_slab_map(int id);

/* Every side sets up before the first enters its region: a setup that
 * opens a file must not meet the other side's call done already.  Then
 * its CPU's magazines and page list are put at their refill level, where
 * any refill or flush leaves them: the region measures the common case,
 * in which a CPU's next allocations and frees stay on its own lines (the
 * uncommon one, a refill or flush every batch operations, visits the
 * shared lists by design). */
uint64_t conflict_side_enter(unsigned i)
{
	if (current->side_setup)
		current->side_setup(i);
	kmem_cache_settle_cpu();
	page_settle_cpu();
	dcache_lru_settle_cpu();
	__atomic_fetch_add(&set_up, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&set_up, __ATOMIC_ACQUIRE) != current->sides ||
	       __atomic_load_n(&turn, __ATOMIC_ACQUIRE) != i)
		yield();
	/* A grace period that started before the region (the tick after
	 * the other side's call_rcu, say) waits for this CPU: report the
	 * quiescent state here, or the region's first rcu_read_unlock would,
	 * writing rcu_state's lock, as the other side's may have (one in
	 * that starts inside the region comes with a tick, which has the
	 * pair run again). */
	rcu_read_lock();
	rcu_read_unlock();
	return disturbances();
}

/* The last side prints the slab map while every side still holds what
 * its call made (a side's thread frees its descriptors as it exits), and
 * only then lets the others go on. */
void conflict_side_leave(unsigned i, int r, uint64_t before)
{
	side[i].res = r;
	side[i].disturbed = disturbances() != before;
	unsigned last = current->sides - 1;
	if (i == last && conflicts_traced)
		print_slab_map(current->id);
	__atomic_store_n(&turn, i == last ? last + 2 : i + 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != last + 2)
		yield();
}


/* ---- the controls ---- */

struct counters {
	volatile uint64_t shared __attribute__((aligned(64)));
	volatile uint64_t priv[2][8] __attribute__((aligned(64)));
};
static struct counters ctr __attribute__((aligned(64)));

static struct kmem_cache *cf_cache;
static char *cf_object;

static int prepare_slab_control(void)
{
	cf_cache = kmem_cache_create("cf_object", 128, 64);
	cf_object = cf_cache ? kmem_cache_alloc(cf_cache) : NULL;
	if (!cf_object)
		return -ENOMEM;
	memset(cf_object, 0, 128);
	return 0;
}

static void cleanup_slab_control(void)
{
	if (cf_object)
		kmem_cache_free(cf_cache, cf_object);
	if (cf_cache)
		kmem_cache_destroy(cf_cache);
	cf_object = NULL;
	cf_cache = NULL;
}

CONFLICT_REGION(1, (__atomic_fetch_add(&ctr.shared, 1, __ATOMIC_RELAXED), 0))
CONFLICT_REGION(2, (ctr.priv[i][0]++, 0))
CONFLICT_REGION(3, (__atomic_fetch_add((uint64_t *)(cf_object + 0x40), 1, __ATOMIC_RELAXED), 0))

/* ---- the VFS pairs: each body is 0 when the call did what it should ---- */

static int expect(long r, long want)
{
	return r == want ? 0 : r == 0 ? -EIO : (int)r;
}

static int open_close(const char *path)
{
	int fd = sys_open(path, O_RDONLY, 0);
	return fd < 0 ? fd : sys_close(fd);
}

static int create(const char *path)
{
	int fd = sys_open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	return fd < 0 ? fd : sys_close(fd);
}

static long getdents_once(unsigned i)
{
	long n = sys_getdents(side[i].fd, side[i].buf, sizeof(side[i].buf));
	return n > 0 ? 0 : n == 0 ? -EIO : n;
}

static const char *const x_name[2] = { "/cf/d/x0", "/cf/d/x1" };
static const char *const n_name[2] = { "/cf/d/n0", "/cf/d/n1" };
static const char *const miss_name[2] = { "/cf/d/miss0", "/cf/d/miss1" };
static const char *const other_dir_name[2] = { "/cf/d0/n", "/cf/d1/n" };

CONFLICT_REGION(4, sys_stat("/cf/a/b/c/d/e/f", &side[i].st))
CONFLICT_REGION(5, sys_stat(x_name[i], &side[i].st))
CONFLICT_REGION(6, expect(sys_stat("/cf/d/missing", &side[i].st), -ENOENT))
CONFLICT_REGION(7, expect(sys_stat(miss_name[i], &side[i].st), -ENOENT))
CONFLICT_REGION(8, open_close("/cf/d/x0"))
CONFLICT_REGION(9, open_close("/cf/d/x0"))
CONFLICT_REGION(10, expect(sys_read(side[i].fd, side[i].buf, 64), 64))
CONFLICT_REGION(11, getdents_once(i))
CONFLICT_REGION(12, create(n_name[i]))
CONFLICT_REGION(13, create(other_dir_name[i]))
CONFLICT_REGION(14, sys_unlink(x_name[i]))
CONFLICT_REGION(15, sys_mkdir(other_dir_name[i], 0755))
CONFLICT_REGION(16, i ? sys_stat("/cf/r2/x", &side[i].st) : sys_rename("/cf/r1/a", "/cf/r1/b"))

/* State: the tree each pair needs, its names looked up once (cached). */
static int mkdirs(const char *const *dirs, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		int err = sys_mkdir(dirs[k], 0755);
		if (err < 0)
			return err;
	}
	return 0;
}

static int mkfile(const char *path)
{
	int fd = sys_open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return fd;
	char data[64];
	memset(data, 'x', sizeof(data));
	long n = sys_write(fd, data, sizeof(data));
	sys_close(fd);
	if (n != (long)sizeof(data))
		return n < 0 ? (int)n : -EIO;
	return sys_stat(path, &side[0].st);
}

static int prepare_d(void)         /* /cf/d with x0 and x1 */
{
	static const char *const dirs[] = { "/cf/d" };
	int err = mkdirs(dirs, 1);
	for (unsigned k = 0; k < 2 && !err; k++)
		err = mkfile(x_name[k]);
	return err;
}

static int prepare_path6(void)
{
	static const char *const dirs[] = { "/cf/a", "/cf/a/b", "/cf/a/b/c", "/cf/a/b/c/d",
		"/cf/a/b/c/d/e" };
	int err = mkdirs(dirs, 5);
	return err ? err : mkfile("/cf/a/b/c/d/e/f");
}

static int prepare_negative(void)
{
	int err = prepare_d();
	if (err)
		return err;
	err = sys_stat("/cf/d/missing", &side[0].st);
	return err == -ENOENT ? 0 : -EIO;
}

static int open_fds(int flags)
{
	for (unsigned k = 0; k < 2; k++) {
		side[k].fd = sys_open(flags & O_DIRECTORY ? "/cf/d" : "/cf/d/x0", flags, 0);
		if (side[k].fd < 0)
			return side[k].fd;
	}
	return 0;
}

/* The file is read once first (pread: f_pos stays), as a file read
 * repeatedly is: relatime writes i_atime on the first read after a
 * change only. */
static int prepare_read(void)
{
	int err = prepare_d();
	err = err ? err : open_fds(O_RDONLY);
	return err ? err : expect(sys_pread(side[0].fd, side[0].buf, 64, 0), 64);
}

static int prepare_getdents(void)
{
	int err = prepare_d();
	return err ? err : open_fds(O_RDONLY | O_DIRECTORY);
}

static int prepare_two_dirs(void)
{
	static const char *const dirs[] = { "/cf/d0", "/cf/d1" };
	return mkdirs(dirs, 2);
}

static int prepare_rename(void)
{
	static const char *const dirs[] = { "/cf/r1", "/cf/r2" };
	int err = mkdirs(dirs, 2);
	err = err ? err : mkfile("/cf/r1/a");
	return err ? err : mkfile("/cf/r2/x");
}

/* Two thread groups: each side gets its own task_fs (descriptor table,
 * root and cwd), as two processes would have.  Two opens or creates in
 * one descriptor table do not commute: each gets the lowest free number
 * (POSIX), so which gets which depends on their order.  So the pairs
 * that open (but the one that measures the shared table on purpose) run
 * as two thread groups, as Commuter's tests and the generated pairs do. */
static void unshare_fs(unsigned i)
{
	(void)i;
	task_fs_unshare();   /* on failure the side shares: its open still runs */
}

/* The same, and the file opened once on this side's CPU first: a CPU's
 * first open of a file gives its reference to the CPU's cache, writing
 * the dentry's d_count once (fs/d_refcache.c); the pair measures the
 * opens after that, as the generated ones, whose files were opened
 * before (to be read once), do. */
static void unshare_fs_opened(unsigned i)
{
	unshare_fs(i);
	open_close("/cf/d/x0");
}

/* ---- counted regions: one CPU, exact instruction counts ---- */

static struct dentry *cf_dir;      /* /cf/d, for its i_rwsem */
static struct mutex cf_mutex;
static bool saved_exclusive;

static int lookup6(void)
{
	struct dentry *d = path_lookup("/cf/a/b/c/d/e/f", 0);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	dput(d);
	return 0;
}

static int prepare_locks(void)
{
	int err = prepare_d();
	if (err)
		return err;
	cf_dir = path_lookup("/cf/d", 0);
	if (IS_ERR(cf_dir)) {
		err = (int)PTR_ERR(cf_dir);
		cf_dir = NULL;
		return err;
	}
	/* Once outside the region: the first acquisition is not the subject. */
	down_read(&cf_dir->d_inode->i_rwsem);
	up_read(&cf_dir->d_inode->i_rwsem);
	down_write(&cf_dir->d_inode->i_rwsem);
	up_write(&cf_dir->d_inode->i_rwsem);
	mutex_lock(&cf_mutex);
	mutex_unlock(&cf_mutex);
	return 0;
}

static int prepare_miss(bool exclusive)
{
	int err = prepare_d();
	if (err)
		return err;
	/* A miss of another name first, so the region's is not the first. */
	if (sys_stat("/cf/d/warm", &side[0].st) != -ENOENT)
		return -EIO;
	__atomic_store_n(&vfs_lookup_exclusive, exclusive, __ATOMIC_RELEASE);
	return 0;
}

static int prepare_miss_shared(void) { return prepare_miss(false); }
static int prepare_miss_exclusive(void) { return prepare_miss(true); }

/* The directory changes in either vfs.dirops mode (restored after the
 * pair), so that the per-name lock's cost is an exact difference: one
 * create, rename and unlink of names of their own in /cf/d, each name's
 * first change a create as in ext2_dirops (the name never looked up). */
static bool saved_dirops;

static int prepare_dirops(bool exclusive)
{
	int err = prepare_d();
	if (err)
		return err;
	/* Each change once first, so the region's is not the first. */
	if ((err = create("/cf/d/w0")) || (err = sys_rename("/cf/d/w0", "/cf/d/w1")) ||
	    (err = sys_unlink("/cf/d/w1")))
		return err;
	__atomic_store_n(&vfs_dirops_exclusive, exclusive, __ATOMIC_RELEASE);
	return 0;
}

static int prepare_dirops_shared(void) { return prepare_dirops(false); }
static int prepare_dirops_exclusive(void) { return prepare_dirops(true); }

/* The ext2_dirops member's loop body on ramfs, one change a region: a
 * create of a name never looked up, a rename of a file to a name never
 * looked up, an unlink of the renamed file. */
static int prepare_renamed(bool exclusive)
{
	int err = prepare_dirops(exclusive);
	if (!err)
		err = sys_rename("/cf/d/x1", "/cf/d/r1");
	return err;
}

static int prepare_renamed_shared(void) { return prepare_renamed(false); }
static int prepare_renamed_exclusive(void) { return prepare_renamed(true); }

#define C(n) (CONFLICT_COUNTED + (n))
CONFLICT_REGION(0x8001, lookup6())
CONFLICT_REGION(0x8002, sys_stat("/cf/a/b/c/d/e/f", &side[i].st))
CONFLICT_REGION(0x8003, (down_read(&cf_dir->d_inode->i_rwsem), up_read(&cf_dir->d_inode->i_rwsem), 0))
CONFLICT_REGION(0x8004, (down_write(&cf_dir->d_inode->i_rwsem), up_write(&cf_dir->d_inode->i_rwsem), 0))
CONFLICT_REGION(0x8005, (mutex_lock(&cf_mutex), mutex_unlock(&cf_mutex), 0))
CONFLICT_REGION(0x8006, expect(sys_stat("/cf/d/q", &side[i].st), -ENOENT))
CONFLICT_REGION(0x8007, expect(sys_stat("/cf/d/q", &side[i].st), -ENOENT))
CONFLICT_REGION(0x8008, open_close("/cf/a/b/c/d/e/f"))
CONFLICT_REGION(0x8009, create("/cf/d/new"))
CONFLICT_REGION(0x800a, sys_mkdir("/cf/d/newdir", 0755))
CONFLICT_REGION(0x800b, sys_unlink("/cf/d/x1"))
CONFLICT_REGION(0x800c, expect(sys_read(side[i].fd, side[i].buf, 64), 64))
CONFLICT_REGION(0x800f, open_close("/cf/a/b/c/d/e/f"))
CONFLICT_REGION(0x8010, expect(sys_read(side[i].fd, side[i].buf, 64), 64))
CONFLICT_REGION(0x8011, create("/cf/d/c0"))
CONFLICT_REGION(0x8012, create("/cf/d/c0"))
CONFLICT_REGION(0x8013, sys_rename("/cf/d/x0", "/cf/d/r0"))
CONFLICT_REGION(0x8014, sys_rename("/cf/d/x0", "/cf/d/r0"))
CONFLICT_REGION(0x8015, sys_unlink("/cf/d/r1"))
CONFLICT_REGION(0x8016, sys_unlink("/cf/d/r1"))

/* C(15)'s setup: the file opened once on this CPU, so that the counted
 * open takes its reference from the CPU's cache (fs/d_refcache.c), as
 * every open of it after the first here does; C(8) counts the first. */
static void open_path6_once(unsigned i)
{
	(void)i;
	open_close("/cf/a/b/c/d/e/f");
}

static const struct conflict_pair pairs[] = {
	{ 1, "negative-control", region_1, NULL, NULL, 2 },
	{ 2, "positive-control", region_2, NULL, NULL, 2 },
	{ 3, "slab-control", region_3, prepare_slab_control, NULL, 2 },
	{ 4, "stat-same-6-component-path", region_4, prepare_path6, NULL, 2 },
	{ 5, "stat-two-files-one-dir", region_5, prepare_d, NULL, 2 },
	{ 6, "stat-same-missing-name", region_6, prepare_negative, NULL, 2 },
	{ 7, "lookup-two-uncached-missing-names-one-dir", region_7, prepare_d, NULL, 2 },
	{ 8, "open-close-one-file-threads-sharing-fd-table", region_8, prepare_d, NULL, 2 },
	{ 9, "open-close-one-file-two-thread-groups", region_9, prepare_d, unshare_fs_opened, 2 },
	{ 10, "read-one-file-two-fds", region_10, prepare_read, NULL, 2 },
	{ 11, "getdents-one-dir-two-fds", region_11, prepare_getdents, NULL, 2 },
	{ 12, "create-two-names-one-dir", region_12, prepare_d, unshare_fs, 2 },
	{ 13, "create-in-two-dirs", region_13, prepare_two_dirs, unshare_fs, 2 },
	{ 14, "unlink-two-names-one-dir", region_14, prepare_d, NULL, 2 },
	{ 15, "mkdir-in-two-dirs", region_15, prepare_two_dirs, NULL, 2 },
	{ 16, "rename-vs-stat-other-dir", region_16, prepare_rename, NULL, 2 },
	{ C(1), "lookup-cached-6-components", region_0x8001, prepare_path6, NULL, 1 },
	{ C(2), "stat-cached-6-components", region_0x8002, prepare_path6, NULL, 1 },
	{ C(3), "i_rwsem-shared-down_read+up_read", region_0x8003, prepare_locks, NULL, 1 },
	{ C(4), "i_rwsem-exclusive-down_write+up_write", region_0x8004, prepare_locks, NULL, 1 },
	{ C(5), "mutex-lock+unlock", region_0x8005, prepare_locks, NULL, 1 },
	{ C(6), "lookup-miss-vfs.lookup=shared", region_0x8006, prepare_miss_shared, NULL, 1 },
	{ C(7), "lookup-miss-vfs.lookup=exclusive", region_0x8007, prepare_miss_exclusive, NULL, 1 },
	{ C(8), "open+close-cached-6-components", region_0x8008, prepare_path6, NULL, 1 },
	{ C(9), "create-new-name(open+close)", region_0x8009, prepare_d, NULL, 1 },
	{ C(10), "mkdir-new-name", region_0x800a, prepare_d, NULL, 1 },
	{ C(11), "unlink-cached-name", region_0x800b, prepare_d, NULL, 1 },
	{ C(12), "read-64-bytes", region_0x800c, prepare_read, NULL, 1 },
	{ C(15), "open+close-again-6-components", region_0x800f, prepare_path6, open_path6_once, 1 },
	/* C(12) in a table the side has alone (a single-threaded process):
	 * fdget takes no reference (fs/fdtable.h). */
	{ C(16), "read-64-bytes-own-table", region_0x8010, prepare_read, unshare_fs, 1 },
	{ C(17), "create-new-name-vfs.dirops=shared", region_0x8011, prepare_dirops_shared, NULL, 1 },
	{ C(18), "create-new-name-vfs.dirops=exclusive", region_0x8012, prepare_dirops_exclusive, NULL, 1 },
	{ C(19), "rename-to-new-name-vfs.dirops=shared", region_0x8013, prepare_dirops_shared, NULL, 1 },
	{ C(20), "rename-to-new-name-vfs.dirops=exclusive", region_0x8014, prepare_dirops_exclusive, NULL, 1 },
	{ C(21), "unlink-renamed-vfs.dirops=shared", region_0x8015, prepare_renamed_shared, NULL, 1 },
	{ C(22), "unlink-renamed-vfs.dirops=exclusive", region_0x8016, prepare_renamed_exclusive, NULL, 1 },
};
#define NPAIRS (sizeof(pairs) / sizeof(pairs[0]))

/* Remove path and everything below it (only what exists is touched, so
 * no lookup leaves a negative dentry; the names removed turn negative in
 * place, the directories' rmdir prunes those below them, and path's own,
 * negative, is what the next pair's mkdir makes positive again). */
static void remove_tree(char *path, size_t cap, unsigned depth)
{
	struct kstat st;
	if (sys_lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.mode) || depth > 8) {
		sys_unlink(path);
		return;
	}
	size_t len = strlen(path);
	bool removed = true;
	for (unsigned round = 0; removed && round < 64; round++) {   /* a batch of names a round */
		int fd = sys_open(path, O_RDONLY | O_DIRECTORY, 0);
		if (fd < 0)
			break;
		char buf[512];
		long n = sys_getdents(fd, buf, sizeof(buf));
		sys_close(fd);
		removed = false;
		for (long off = 0; off < n; ) {
			struct linux_dirent64 *e = (struct linux_dirent64 *)(buf + off);
			off += e->d_reclen;
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
			    len + 1 + strlen(e->d_name) >= cap)
				continue;
			path[len] = '/';
			strlcpy(path + len + 1, e->d_name, cap - len - 1);
			remove_tree(path, cap, depth + 1);
			path[len] = '\0';
			removed = true;
		}
	}
	sys_rmdir(path);
}

static void cleanup(const struct conflict_pair *p)
{
	for (unsigned k = 0; k < 2; k++) {
		if (side[k].fd >= 0)
			sys_close(side[k].fd);
		side[k].fd = -1;
	}
	if (cf_dir)
		dput(cf_dir);
	cf_dir = NULL;
	if (p->prepare == prepare_slab_control)   /* the only state outside /cf */
		cleanup_slab_control();
	__atomic_store_n(&vfs_lookup_exclusive, saved_exclusive, __ATOMIC_RELEASE);
	__atomic_store_n(&vfs_dirops_exclusive, saved_dirops, __ATOMIC_RELEASE);
	char path[128] = "/cf";
	remove_tree(path, sizeof(path), 0);
}

/* ---- the slab map, for run.py's object names ---- */

struct slab_row {
	uint64_t phys;
	uint32_t bytes, size;
	char name[24];
};

struct slab_map {
	struct slab_row *rows, *prev;   /* this map, and the last one printed */
	unsigned n, prev_n, cap, missed;
	int last_id;                    /* the pair the last one was printed for */
};

static void add_row(struct slab_map *m, uint64_t phys, uint64_t bytes, uint32_t size,
		    const char *name)
{
	if (m->n == m->cap) {
		m->missed++;
		return;
	}
	struct slab_row *r = &m->rows[m->n++];
	memset(r, 0, sizeof(*r));
	r->phys = phys;
	r->bytes = (uint32_t)bytes;
	r->size = size;
	strlcpy(r->name, name, sizeof(r->name));
}

/* Under the cache's lock: copy, never sleep. */
static void copy_slab(struct kmem_cache *c, void *base, size_t bytes, void *arg)
{
	add_row(arg, virt_to_phys(base), bytes, (uint32_t)c->size, c->name);
}

static struct slab_map slab_map;

/* Large kmalloc blocks (the hash tables): whole pages, not slabs.  The
 * flags are read without the allocator's lock, at a quiet moment: a block
 * freed meanwhile is at worst misnamed.  A block's head says its order,
 * so the walk skips what it covers (free memory is mostly large blocks). */
static void add_large_blocks(struct slab_map *m)
{
	for (uint64_t pfn = 0; pfn < max_pfn; ) {
		uint32_t flags = __atomic_load_n(&page_array[pfn].flags, __ATOMIC_RELAXED);
		uint64_t span = flags & (PG_HEAD | PG_BUDDY) ? 1ULL << page_array[pfn].order : 1;
		if (flags & PG_LARGE)
			add_row(m, pfn << PAGE_SHIFT, span << PAGE_SHIFT, 0, "kmalloc-large");
		pfn += span ? span : 1;
	}
}

static void sort_rows(struct slab_row *r, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j && r[j - 1].phys > r[j].phys; j--) {
			struct slab_row t = r[j];
			r[j] = r[j - 1];
			r[j - 1] = t;
		}
}

/* The map after pair id, as what changed since the last one printed
 * (serial output is slow under TCG, and most pairs change a few rows):
 * "slabmap ID from PREV", then a "slab" line per new row and a "noslab"
 * line per row gone.  Both maps are sorted by address, so one merge. */
static void print_slab_map(int id)
{
	struct slab_map *m = &slab_map;
	m->n = m->missed = 0;
	kmem_cache_for_each_slab(copy_slab, m);
	add_large_blocks(m);
	sort_rows(m->rows, m->n);
	kprintf("conflicts: slabmap %d from %d (%u not listed)\n", id, m->last_id, m->missed);
	unsigned i = 0, j = 0;
	while (i < m->n || j < m->prev_n) {
		struct slab_row *r = i < m->n ? &m->rows[i] : NULL, *q = j < m->prev_n ? &m->prev[j] : NULL;
		if (r && q && !memcmp(r, q, sizeof(*r))) {
			i++, j++;
		} else if (r && (!q || r->phys <= q->phys)) {
			kprintf("conflicts: slab %d 0x%lx 0x%x %u %s\n", id, r->phys, r->bytes, r->size, r->name);
			i++;
			j += q && q->phys == r->phys;	/* the same place, another slab */
		} else {
			kprintf("conflicts: noslab %d 0x%lx\n", id, q->phys);
			j++;
		}
	}
	struct slab_row *t = m->prev;
	m->prev = m->rows;
	m->rows = t;
	m->prev_n = m->n;
	m->last_id = id;
}

static void say_layout(void)
{
	kprintf("conflicts: layout kernel 0x%lx 0x%lx vma 0x%lx pages 0x%lx %lu %lu\n",
		(uint64_t)__kernel_phys_start, (uint64_t)__kernel_phys_end, (uint64_t)KERNEL_VMA,
		virt_to_phys(page_array), max_pfn, (uint64_t)sizeof(struct page));
}

/* ---- running them ---- */

static void sayf(conflict_say_fn *say, void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void sayf(conflict_say_fn *say, void *ctx, const char *fmt, ...)
{
	char line[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	say(ctx, line);
}

/* One attempt: 0 if the sides ran (whatever they returned), or -errno. */
static int attempt(const struct conflict_pair *p)
{
	for (unsigned k = 0; k < 2; k++) {
		side[k].res = 1;
		side[k].fd = -1;
		side[k].disturbed = false;
	}
	int err = sys_mkdir("/cf", 0755);
	if (!err && p->prepare)
		err = p->prepare();
	/* The per-CPU caches of file references start empty: prepare's opens
	 * ran on one CPU, which may be a side's, and left it holding
	 * references on files only the other side uses (fs/d_refcache.c).
	 * Each side's own setup opens on its own CPU, as it would. */
	d_fold_all_cached();
	if (!err) {
		current = p;
		turn = 0;
		set_up = 0;
		struct bench_team t = { .n = p->sides, .one_per_cpu = ncpus >= p->sides, .fn = p->fn };
		err = bench_team_run(&t);
	}
	cleanup(p);
	return err;
}

bool conflict_run_pair(const struct conflict_pair *p, conflict_say_fn *say, void *ctx)
{
	int err = 0;
	unsigned tries = 0;
	bool disturbed = true;
	while (disturbed && tries < ATTEMPTS && !err) {
		tries++;
		err = attempt(p);
		disturbed = side[0].disturbed || side[1].disturbed;
	}
	const char *kind = p->sides == 2 ? "pair" : "count";
	if (err) {
		sayf(say, ctx, "conflicts: %s %d %s: could not run (%d)", kind, p->id, p->name, err);
		return false;
	}
	bool ok = side[0].res == 0 && (p->sides < 2 || side[1].res == 0);
	char tail[64] = "";
	if (disturbed)
		snprintf(tail, sizeof(tail), " (interrupted in all %u attempts)", tries);
	else if (tries > 1)
		snprintf(tail, sizeof(tail), " (attempt %u: an interrupt fell in the others)", tries);
	if (ok)
		sayf(say, ctx, "conflicts: %s %d %s: ok%s", kind, p->id, p->name, tail);
	else if (p->sides == 2)
		sayf(say, ctx, "conflicts: %s %d %s: FAILED (side 0: %d, side 1: %d)%s", kind, p->id,
		     p->name, side[0].res, side[1].res, tail);
	else
		sayf(say, ctx, "conflicts: %s %d %s: FAILED (%d)%s", kind, p->id, p->name, side[0].res, tail);
	return ok;
}

int conflicts_begin(void)
{
	struct kstat st;
	if (sys_lstat("/cf", &st) == 0)
		return -EEXIST;
	static bool once;
	if (!once) {
		mutex_init(&cf_mutex, "cf_mutex");
		once = true;
	}
	saved_exclusive = __atomic_load_n(&vfs_lookup_exclusive, __ATOMIC_ACQUIRE);
	saved_dirops = __atomic_load_n(&vfs_dirops_exclusive, __ATOMIC_ACQUIRE);
	if (conflicts_traced) {
		slab_map.cap = 1024;
		slab_map.last_id = 0;
		slab_map.prev_n = 0;
		slab_map.rows = kcalloc(slab_map.cap, sizeof(struct slab_row));
		slab_map.prev = kcalloc(slab_map.cap, sizeof(struct slab_row));
		if (!slab_map.rows || !slab_map.prev) {
			conflicts_end();
			return -ENOMEM;
		}
		say_layout();
	}
	return 0;
}

int conflicts_hand_picked_run(conflict_say_fn *say, void *ctx)
{
	int failed = 0;
	for (unsigned k = 0; k < NPAIRS; k++)
		failed += !conflict_run_pair(&pairs[k], say, ctx);
	return failed;
}

void conflicts_end(void)
{
	kfree(slab_map.rows);
	kfree(slab_map.prev);
	slab_map.rows = slab_map.prev = NULL;
}
