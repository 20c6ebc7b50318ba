/*
 * test_ext2_dirhash.c: ext2's directory index (fs/ext2/dirhash.c) on the
 * scratch disk, which the host checks with e2fsck -fn after the boot.
 *
 *   index_agrees_with_scan   creates, unlinks, renames within and between
 *                            two indexed directories, renames over a name:
 *                            every name looked up through the index and by
 *                            the linear scan gives the model's inode, and a
 *                            name not there is -ENOENT both ways;
 *   build_races_lookups      (suite ext2_dirhash_races) lookups holding
 *                            i_rwsem shared race into a directory with no
 *                            index: exactly one builds it per round, and
 *                            every answer is right;
 *   a_probe_outlives_a_grown_table  (ext2_dirhash_races) a probe without
 *                            the lock, held inside its RCU read side with
 *                            the table loaded, while another CPU grows the
 *                            table: the old one stays whole until it lets
 *                            go, and the probe's answer is right;
 *   build_fails_falls_back   a build whose allocations fail leaves no
 *                            index and the lookup right; so do creates whose
 *                            index cannot grow; the shrinker frees indexes
 *                            and lookups build them again.
 */
#include "kernel/ktest.h"
#include "fs/dcache.h"
#include "fs/dirops.h"
#include "fs/ext2/ext2.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "kernel/barrier.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/fault_inject.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/rwsem.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/time.h"
#include "arch/x86_64/percpu.h"
#include "tests/sandbox.h"
#include "tests/test_disk.h"

/* Names long enough that a few hundred fill several blocks (4 KiB ones
 * on the scratch disk): 4 a name of 40-byte entries is 100 a block. */
#define NAME_FMT "entry-with-a-longish-name-%05u"
#define NAMES 1200          /* name numbers 0 .. NAMES-1 */
#define FIRST 400           /* created at the start, in each directory */

static void name_of(char *buf, size_t n, unsigned k)
{
	snprintf(buf, n, NAME_FMT, k);
}

static struct inode *dir_inode(const char *path, struct dentry **d)
{
	*d = path_lookup(path, 0);
	return IS_ERR(*d) ? NULL : (*d)->d_inode;
}

/* The index's and the scan's answers for name k in dir (i_rwsem shared). */
static void both(struct inode *dir, unsigned k, int *e1, uint32_t *i1, int *e2, uint32_t *i2)
{
	char name[48];
	name_of(name, sizeof(name), k);
	*i1 = *i2 = 0;
	down_read(&dir->i_rwsem);
	*e1 = ext2_find_entry(dir, name, strlen(name), i1);
	*e2 = ext2_find_entry_linear(dir, name, strlen(name), i2);
	up_read(&dir->i_rwsem);
}

static uint64_t counter(uint64_t *field)
{
	return __atomic_load_n(field, __ATOMIC_RELAXED);
}

static void create_name(const char *dir, unsigned k)
{
	char path[96];
	snprintf(path, sizeof(path), "%s/" NAME_FMT, dir, k);
	int fd = sys_open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	ASSERT_GE(fd, 0);
	sys_close(fd);
}

/* ---- agreement -------------------------------------------------------- */

struct model {
	uint32_t ino[2][NAMES];      /* 0: not there */
};

/* Every name in both directories: index == scan == model; the VFS's
 * lookup (the dcache emptied first) agrees too.  How many disagreed. */
static unsigned check_all(struct model *m, struct inode *dirs[2], const char *const paths[2])
{
	unsigned bad = 0;
	dcache_shrink(~0u);
	for (unsigned d = 0; d < 2; d++)
		for (unsigned k = 0; k < NAMES; k++) {
			int e1, e2;
			uint32_t i1, i2;
			both(dirs[d], k, &e1, &i1, &e2, &i2);
			int want = m->ino[d][k] ? 0 : -ENOENT;
			if (e1 != want || e2 != want || i1 != m->ino[d][k] || i2 != m->ino[d][k]) {
				if (bad++ < 5)
					kprintf("    # %s name %u: index %d/%u, scan %d/%u, model %u\n", paths[d],
						k, e1, i1, e2, i2, m->ino[d][k]);
			}
			if (k % 7 == 0) {	/* through the VFS's ->lookup as well */
				char path[96];
				struct kstat st;
				snprintf(path, sizeof(path), "%s/" NAME_FMT, paths[d], k);
				int e = sys_stat(path, &st);
				if (e != want || (!e && st.ino != m->ino[d][k]))
					bad++;
			}
		}
	return bad;
}

static uint32_t ino_at(const char *dir, unsigned k)
{
	char path[96];
	struct kstat st;
	snprintf(path, sizeof(path), "%s/" NAME_FMT, dir, k);
	return sys_stat(path, &st) ? 0 : (uint32_t)st.ino;
}

/* One random change; the model follows what the call returned. */
static void change(struct model *m, struct prng *r, const char *const paths[2])
{
	unsigned d = (unsigned)prng_below(r, 2), k = (unsigned)prng_below(r, NAMES);
	unsigned d2 = (unsigned)prng_below(r, 2), k2 = (unsigned)prng_below(r, NAMES);
	char from[96], to[96];
	snprintf(from, sizeof(from), "%s/" NAME_FMT, paths[d], k);
	snprintf(to, sizeof(to), "%s/" NAME_FMT, paths[d2], k2);
	switch (prng_below(r, 3)) {
	case 0: {
		int fd = sys_open(from, O_CREAT | O_EXCL | O_WRONLY, 0644);
		EXPECT_EQ(fd < 0 ? fd : 0, m->ino[d][k] ? -EEXIST : 0);
		if (fd >= 0) {
			sys_close(fd);
			m->ino[d][k] = ino_at(paths[d], k);
		}
		break;
	}
	case 1:
		EXPECT_EQ(sys_unlink(from), m->ino[d][k] ? 0 : -ENOENT);
		m->ino[d][k] = 0;
		break;
	default:	/* within or between the two, perhaps over a name */
		EXPECT_EQ(sys_rename(from, to), m->ino[d][k] ? 0 : -ENOENT);
		if (m->ino[d][k] && (d != d2 || k != k2)) {
			m->ino[d2][k2] = m->ino[d][k];
			m->ino[d][k] = 0;
		}
		break;
	}
}

static void index_agrees_with_scan(void)
{
	struct block_device *bdev = test_disk_or_skip("scratch");
	struct sandbox s;
	sandbox_enter_disk(&s, "dirhash", bdev);
	static const char *const paths[2] = { "a", "b" };
	static struct model m;
	memset(&m, 0, sizeof(m));
	struct dentry *top = path_lookup(".", 0);
	ASSERT_FALSE(IS_ERR(top));
	struct ext2_dirhash_stats *st = &EXT2_SB(top->d_sb)->dirhash;
	dput(top);
	uint64_t builds = counter(&st->builds), stale = counter(&st->stale);
	for (unsigned d = 0; d < 2; d++) {
		ASSERT_EQ(sys_mkdir(paths[d], 0755), 0);
		for (unsigned k = d; k < 2 * FIRST; k += 2) {
			create_name(paths[d], k);
			m.ino[d][k] = ino_at(paths[d], k);
		}
	}
	struct dentry *dd[2];
	struct inode *dirs[2] = { dir_inode("a", &dd[0]), dir_inode("b", &dd[1]) };
	ASSERT_NOT_NULL(dirs[0]);
	ASSERT_NOT_NULL(dirs[1]);
	kprintf("    # seed %lu; %lu and %lu blocks, %u a threshold\n", ktest_seed(),
		ext2_dir_blocks(dirs[0]), ext2_dir_blocks(dirs[1]), ext2_dirhash_min_blocks);
	EXPECT_GE(ext2_dir_blocks(dirs[0]), (uint64_t)ext2_dirhash_min_blocks);
	EXPECT_EQ(check_all(&m, dirs, paths), 0u);
	EXPECT_TRUE(EXT2_I(dirs[0])->i_dirhash != NULL);	/* the lookups built both */
	EXPECT_TRUE(EXT2_I(dirs[1])->i_dirhash != NULL);
	struct prng r;
	prng_seed(&r, ktest_seed());
	for (unsigned round = 0; round < 4; round++) {
		for (unsigned i = 0; i < 150; i++)
			change(&m, &r, paths);
		EXPECT_EQ(check_all(&m, dirs, paths), 0u);
	}
	uint64_t built = counter(&st->builds) - builds;
	kprintf("    # %lu indexes built, %zu bytes held\n", built, ext2_dirhash_bytes());
	EXPECT_GE(built, 2ul);
	EXPECT_EQ(counter(&st->stale), stale);
	dput(dd[0]);
	dput(dd[1]);
	sandbox_leave(&s);
}

/* ---- the build's race ------------------------------------------------- */

#define RACERS_MAX 16
#define ROUNDS 6
#define PER_RACER 40

struct race {
	struct inode *dir;
	uint32_t *ino;               /* the right answer for name k */
	unsigned n, names;
	unsigned arrived;
	unsigned delay_us[RACERS_MAX];
	uint64_t seed;
	unsigned wrong;              /* atomic */
};

struct racer {
	struct race *r;
	unsigned i;
};

static int racer(void *p)
{
	struct racer *a = p;
	struct race *r = a->r;
	struct prng g;
	prng_seed(&g, r->seed * 31 + a->i);
	barrier_wait(&r->arrived, r->n);
	for (unsigned spin = 0; spin < r->delay_us[a->i] * 50; spin++)
		__asm__ volatile("pause");
	for (unsigned j = 0; j < PER_RACER; j++) {
		unsigned k = (unsigned)prng_below(&g, r->names);
		char name[48];
		uint32_t ino = 0;
		name_of(name, sizeof(name), k);
		down_read(&r->dir->i_rwsem);
		int e = ext2_find_entry(r->dir, name, strlen(name), &ino);
		up_read(&r->dir->i_rwsem);
		if (e != (r->ino[k] ? 0 : -ENOENT) || ino != r->ino[k])
			__atomic_fetch_add(&r->wrong, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

static void build_races_lookups(void)
{
	struct block_device *bdev = test_disk_or_skip("scratch");
	struct sandbox s;
	sandbox_enter_disk(&s, "dirhash-race", bdev);
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	static struct race r;
	static uint32_t ino[FIRST + FIRST / 4];
	memset(&r, 0, sizeof(r));
	r.names = FIRST + FIRST / 4;	/* a quarter of them absent */
	for (unsigned k = 0; k < FIRST; k++) {
		create_name("d", k);
		ino[k] = ino_at("d", k);
	}
	for (unsigned k = FIRST; k < r.names; k++)
		ino[k] = 0;
	struct dentry *dd;
	r.dir = dir_inode("d", &dd);
	r.ino = ino;
	ASSERT_NOT_NULL(r.dir);
	struct ext2_dirhash_stats *st = &EXT2_SB(r.dir->i_sb)->dirhash;
	r.n = 2 * ncpus < 4 ? 4 : 2 * ncpus > RACERS_MAX ? RACERS_MAX : 2 * ncpus;
	struct prng g;
	prng_seed(&g, ktest_seed());
	bool jitter = race_jitter_on(ktest_seed());
	kprintf("    # seed %lu, %u racers, %u rounds, race windows %s\n", ktest_seed(), r.n, ROUNDS,
		jitter ? "on" : "off (release build or ktest.jitter=0)");
	static struct racer args[RACERS_MAX];
	unsigned extra_builds = 0, wrong = 0;
	for (unsigned round = 0; round < ROUNDS; round++) {
		down_write(&r.dir->i_rwsem);
		ext2_dirhash_drop(r.dir);
		up_write(&r.dir->i_rwsem);
		uint64_t builds = counter(&st->builds), failed = counter(&st->failed);
		r.arrived = r.wrong = 0;
		r.seed = ktest_seed() + round;
		struct thread *t[RACERS_MAX];
		for (unsigned i = 0; i < r.n; i++) {
			r.delay_us[i] = (unsigned)prng_below(&g, 200);
			args[i] = (struct racer){ &r, i };
			t[i] = thread_create("dh-racer", racer, &args[i], (int)(i % ncpus));
			ASSERT_NOT_NULL(t[i]);
		}
		for (unsigned i = 0; i < r.n; i++)
			thread_join(t[i]);
		uint64_t b = counter(&st->builds) - builds, f = counter(&st->failed) - failed;
		if (b + f != 1) {
			kprintf("    # round %u: %lu builds, %lu failed (one expected)\n", round, b, f);
			extra_builds++;
		}
		wrong += r.wrong;
	}
	if (jitter)
		race_jitter_off();
	EXPECT_EQ(extra_builds, 0u);
	EXPECT_EQ(wrong, 0u);
	EXPECT_TRUE(EXT2_I(r.dir)->i_dirhash != NULL);
	dput(dd);
	sandbox_leave(&s);
}

/* ---- allocation failure and the shrinker ------------------------------- */

static unsigned wrong_answers(struct inode *dir, unsigned names)
{
	unsigned bad = 0;
	for (unsigned k = 0; k < names; k++) {
		int e1, e2;
		uint32_t i1, i2;
		both(dir, k, &e1, &i1, &e2, &i2);
		bad += e1 != e2 || i1 != i2;
	}
	return bad;
}

static void build_fails_falls_back(void)
{
	struct block_device *bdev = test_disk_or_skip("scratch");
	struct sandbox s;
	sandbox_enter_disk(&s, "dirhash-nomem", bdev);
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	for (unsigned k = 0; k < FIRST; k++)
		create_name("d", k);
	struct dentry *dd;
	struct inode *dir = dir_inode("d", &dd);
	ASSERT_NOT_NULL(dir);
	struct ext2_dirhash_stats *st = &EXT2_SB(dir->i_sb)->dirhash;
	char name[48];
	uint32_t ino = 0;

	/* The build's allocation fails: the lookup scans and is right. */
	down_write(&dir->i_rwsem);
	ext2_dirhash_drop(dir);
	up_write(&dir->i_rwsem);
	uint64_t failed = counter(&st->failed), builds = counter(&st->builds);
	name_of(name, sizeof(name), FIRST - 1);
	down_read(&dir->i_rwsem);
	fault_inject_every(1);
	int e = ext2_find_entry(dir, name, strlen(name), &ino);
	fault_inject_every(0);
	up_read(&dir->i_rwsem);
	EXPECT_EQ(e, 0);
	EXPECT_EQ(ino, ino_at("d", FIRST - 1));
	EXPECT_EQ(counter(&st->failed) - failed, 1ul);
	EXPECT_TRUE(EXT2_I(dir)->i_dirhash == NULL);
	EXPECT_EQ(wrong_answers(dir, FIRST + 10), 0u);	/* and this one builds */
	EXPECT_EQ(counter(&st->builds) - builds, 1ul);

	/* The budget spent: the index cannot grow when it must (at three
	 * quarters full: 400 more entries are past that), so it is dropped;
	 * the lookups after it scan (their builds fail too) and are right. */
	size_t maxmem = ext2_dirhash_maxmem;
	ext2_dirhash_maxmem = ext2_dirhash_bytes();
	for (unsigned k = FIRST; k < 2 * FIRST; k++)
		create_name("d", k);
	EXPECT_TRUE(EXT2_I(dir)->i_dirhash == NULL);
	failed = counter(&st->failed);
	EXPECT_EQ(wrong_answers(dir, 2 * FIRST + 10), 0u);
	EXPECT_GT(counter(&st->failed), failed);
	ext2_dirhash_maxmem = maxmem;

	/* Creates with some allocations failing: whatever fails, the index
	 * never answers wrong. */
	unsigned made = 0, nomem = 0;
	for (unsigned k = 2 * FIRST; k < 2 * FIRST + 100; k++) {
		char path[64];
		snprintf(path, sizeof(path), "d/" NAME_FMT, k);
		fault_inject_every(6 + k % 5);
		int fd = sys_open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		fault_inject_every(0);
		if (fd >= 0) {
			sys_close(fd);
			made++;
		} else {
			EXPECT_EQ(fd, -ENOMEM);
			nomem++;
		}
	}
	kprintf("    # 100 creates under failing allocations: %u made, %u ENOMEM\n", made, nomem);
	EXPECT_EQ(wrong_answers(dir, 2 * FIRST + 110), 0u);

	/* The shrinker frees indexes no lookup uses (a second pass: the first
	 * only clears the recently-used marks); lookups build them again. */
	ext2_dirhash_reclaim(~0ul);
	ext2_dirhash_reclaim(~0ul);
	EXPECT_TRUE(EXT2_I(dir)->i_dirhash == NULL);
	EXPECT_EQ(wrong_answers(dir, 2 * FIRST + 110), 0u);
	EXPECT_TRUE(EXT2_I(dir)->i_dirhash != NULL);
	EXPECT_EQ(counter(&st->stale), 0ul);
	dput(dd);
	sandbox_leave(&s);
}

/* ---- a probe without the lock outlives the table it read --------------- */

/* A probe reads the table with no lock (dirhash.c); a change may grow it
 * meanwhile, replacing it, and the old one must stay whole until the
 * probe leaves its RCU read side.  The hook holds one probe there, on
 * its own CPU, while another CPU adds names until the table grows; the
 * grower then looks at the old table, which a free without the grace
 * period would have poisoned (0x6b in every byte). */
static struct grow_race {
	struct inode *dir;
	struct dentry *dd;
	struct ext2_dirhash *seen;   /* the table the held probe loaded */
	unsigned once, paused, resumed, grown;   /* atomic flags */
	unsigned nslots0, live0;     /* the old table's when the probe loaded it */
	unsigned nslots, live;       /* the old table's, read by the grower */
	unsigned added;
	int err;
	uint32_t ino;
} gr;

/* Probes that read the table in the window: tables the grower saw, not a
 * count of the hook's calls (other lookups may pass by). */
static void hold_probe(struct inode *dir)
{
	if (dir != gr.dir || __atomic_exchange_n(&gr.once, 1, __ATOMIC_ACQ_REL))
		return;
	gr.seen = __atomic_load_n(&EXT2_I(dir)->i_dirhash, __ATOMIC_ACQUIRE);
	if (gr.seen)
		ext2_dirhash_shape(gr.seen, &gr.nslots0, &gr.live0);
	__atomic_store_n(&gr.paused, 1, __ATOMIC_RELEASE);	/* seen, for the grower */
	/* In an RCU read side: no sleep.  Bounded, if the grower never
	 * comes (10 s, then the case fails on `resumed`). */
	uint64_t until = jiffies + 1000;
	while (!__atomic_load_n(&gr.grown, __ATOMIC_ACQUIRE) && jiffies < until)
		cpu_relax();
	__atomic_store_n(&gr.resumed, 1, __ATOMIC_RELEASE);
}

static int held_prober(void *unused)
{
	(void)unused;
	char name[48];
	name_of(name, sizeof(name), 0);
	down_read(&gr.dir->i_rwsem);
	gr.err = ext2_find_entry(gr.dir, name, strlen(name), &gr.ino);
	up_read(&gr.dir->i_rwsem);
	return 0;
}

static int grower(void *unused)
{
	(void)unused;
	uint64_t until = jiffies + 1000;	/* 10 s for the prober to be held */
	while (!__atomic_load_n(&gr.paused, __ATOMIC_ACQUIRE) && jiffies < until)
		yield();
	struct ext2_dirhash *old = gr.seen;
	for (unsigned k = 1000; k < 1400 && gr.added < 400 && old &&
	     __atomic_load_n(&EXT2_I(gr.dir)->i_dirhash, __ATOMIC_ACQUIRE) == old; k++) {
		char name[48];
		name_of(name, sizeof(name), k);
		if (vfs_create_name(gr.dd, name, strlen(name), S_IFREG | 0644) == 0)
			gr.added++;
	}
	/* The probe still holds its read side (else the old table may be
	 * gone for a good reason): look at the table it loaded. */
	if (old && !__atomic_load_n(&gr.resumed, __ATOMIC_ACQUIRE))
		ext2_dirhash_shape(old, &gr.nslots, &gr.live);
	__atomic_store_n(&gr.grown, 1, __ATOMIC_RELEASE);
	return 0;
}

static void a_probe_outlives_a_grown_table(void)
{
	if (ncpus < 2 || !CONFIG_LOCKDEP) {
		ktest_skip("needs two CPUs (the held probe spins with preemption off) and the hook");
	}
	struct block_device *bdev = test_disk_or_skip("scratch");
	struct sandbox s;
	sandbox_enter_disk(&s, "dirhash-grow", bdev);
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	/* A small table (40 names: 64 slots, a slab object, which a free
	 * poisons) that grows within a few adds. */
	unsigned min_blocks = ext2_dirhash_min_blocks;
	ext2_dirhash_min_blocks = 1;
	for (unsigned k = 0; k < 40; k++)
		create_name("d", k);
	memset(&gr, 0, sizeof(gr));
	gr.dir = dir_inode("d", &gr.dd);
	ASSERT_NOT_NULL(gr.dir);
	uint32_t ino0 = ino_at("d", 0);
	int e1, e2;
	uint32_t i1, i2;
	both(gr.dir, 1, &e1, &i1, &e2, &i2);	/* builds the table */
	struct ext2_dirhash *first = __atomic_load_n(&EXT2_I(gr.dir)->i_dirhash, __ATOMIC_ACQUIRE);
	EXPECT_NOT_NULL(first);
	ext2_dirhash_probe_hook = hold_probe;
	struct thread *p = thread_create("dh-prober", held_prober, NULL, 1);
	ASSERT_NOT_NULL(p);
	struct thread *g = thread_create("dh-grower", grower, NULL, 0);
	ASSERT_NOT_NULL(g);
	thread_join(p);
	thread_join(g);
	ext2_dirhash_probe_hook = NULL;
	ext2_dirhash_min_blocks = min_blocks;
	struct ext2_dirhash *now = __atomic_load_n(&EXT2_I(gr.dir)->i_dirhash, __ATOMIC_ACQUIRE);
	kprintf("    # held probe: %s; %u names added; the old table, %u slots and %u live when "
		"loaded, looked at while it was held: %u slots, %u live; %s\n",
		gr.paused ? "held" : "never held", gr.added, gr.nslots0, gr.live0, gr.nslots, gr.live,
		now != gr.seen ? "grown" : "not grown");
	EXPECT_TRUE(gr.paused);
	EXPECT_TRUE(gr.seen == first);
	EXPECT_TRUE(now != gr.seen);	/* it grew while the probe held the old one */
	EXPECT_GT(gr.nslots0, 0u);
	EXPECT_EQ(gr.nslots, gr.nslots0);	/* whole: 0x6b6b6b6b if freed */
	EXPECT_GE(gr.live, gr.live0);	/* the adds before the growth went in */
	EXPECT_LE(gr.live, gr.nslots0);
	EXPECT_EQ(gr.err, 0);	/* and the held probe's answer is right */
	EXPECT_EQ(gr.ino, ino0);
	dput(gr.dd);
	sandbox_leave(&s);
}

static const struct ktest_case ext2_dirhash_cases[] = {
	KTEST_CASE(index_agrees_with_scan),
	KTEST_CASE(build_fails_falls_back),
};
KTEST_SUITE(ext2_dirhash, ext2_dirhash_cases);

/* The race alone, a suite of its own so that the KCSAN boot can run it
 * without the long single-threaded cases above (a minute and a half and
 * forty seconds there). */
static const struct ktest_case ext2_dirhash_races_cases[] = {
	KTEST_CASE(build_races_lookups),
	KTEST_CASE(a_probe_outlives_a_grown_table),
};
KTEST_SUITE(ext2_dirhash_races, ext2_dirhash_races_cases);
