/*
 * test_wb.c: write-back under concurrency, on disks nbdkit serves with
 * slow writes (tests/disk_tests.py, profile wb):
 *   slow   every write takes 200 ms;
 *   wfail  every write fails (nbdkit's error filter), after 200 ms;
 *   race   every write takes 20 ms: the torture's.
 *
 * syncs_in_opposite_orders: two syncs whose batches hold the same two
 * buffers in opposite orders (the order of the dirty list changes when a
 * buffer is cleaned and dirtied again), arranged so that the one the
 * lock's handover favours is the one that wants the other's buffer.  A
 * sync that sleeps for a buffer's lock while holding the locks of earlier
 * ones then waits for ever; the case sees both asleep with nothing in
 * flight, and fails.
 *
 * fsync_waits_for_writes_in_flight, fsync_hears_a_failed_write: a sync
 * has submitted a slow write of a buffer (so the buffer is clean) when an
 * fsync of the disk begins; the fsync must return only after that write
 * completed (checked here, and from outside: nbdkit's log must show the
 * write ending before a read the kernel submits once fsync returned), and
 * must report its failure.
 *
 * wb_torture: writers stamping versions into blocks, syncs and fsyncs
 * checking the disk itself (read past the cache) for every version
 * written before they began, the flusher kicked, race windows on.
 */
#include "kernel/ktest.h"
#include "block/blkdev.h"
#include "fs/buffer.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/barrier.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/preempt.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "tests/test_disk.h"

#define BS 1024u
#define SPB (BS / SECTOR_SIZE)
/* A failed check with a message. */
#define FAIL(...) ktest_check(false, __FILE__, __LINE__, __VA_ARGS__)
#define POLLS 3000u             /* a tick or so each: a condition that never comes is a failure */

/* Block b's contents at version v: every word says (b, v). */
static void stamp(struct buffer_head *bh, uint32_t v)
{
	uint64_t *w = (uint64_t *)bh->b_data;
	for (unsigned i = 0; i < BS / 8; i++)
		__atomic_store_n(&w[i], bh->b_blocknr << 32 | v, __ATOMIC_RELAXED);
}

/* A buffer for block b holding version v, dirty (not read first). */
static struct buffer_head *dirty_block(struct block_device *b, uint64_t block, uint32_t v)
{
	struct buffer_head *bh = __getblk(b, block, BS);
	lock_buffer(bh);
	stamp(bh, v);
	set_buffer_uptodate(bh);
	unlock_buffer(bh);
	mark_buffer_dirty(bh);
	return bh;
}

static bool locked(struct buffer_head *bh)
{
	return __atomic_load_n(&bh->b_state, __ATOMIC_ACQUIRE) & (1UL << BH_Lock);
}

static unsigned waiters(struct wait_queue_head *wq)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);
	unsigned n = list_count(&wq->list);
	spin_unlock_irqrestore(&wq->lock, flags);
	return n;
}

/* Poll (1 ms a time) until cond, at most POLLS times: true if it came. */
#define WAIT_FOR(cond) ({ \
	unsigned polls_ = 0; \
	while (!(cond) && ++polls_ < POLLS) \
		sleep_ms(1); \
	(bool)(cond); })

struct syncer {
	struct block_device *bdev;
	struct thread *t;
	int err;
	bool done;                   /* atomic */
};

static int sync_thread(void *p)
{
	struct syncer *s = p;
	s->err = sync_blockdev(s->bdev);
	__atomic_store_n(&s->done, true, __ATOMIC_RELEASE);
	return 0;
}

static void start_sync(struct syncer *s, struct block_device *b, int cpu)
{
	*s = (struct syncer){ .bdev = b };
	s->t = thread_create("wb-sync", sync_thread, s, cpu);
}

static bool sync_done(struct syncer *s)
{
	return __atomic_load_n(&s->done, __ATOMIC_ACQUIRE);
}

/* ---- syncs_in_opposite_orders ------------------------------------------ */

struct orders {
	struct block_device *bdev;
	uint64_t first;              /* blocks first and first + 1 */
	bool deadlocked, setup_failed;
};

/* Pinned to CPU 0, as sync B is; sync C runs on CPU 1. */
static int orders_round(void *p)
{
	struct orders *o = p;
	struct block_device *b = o->bdev;
	static struct syncer sb, sc;
	struct buffer_head *bh0 = dirty_block(b, o->first, 1);
	struct buffer_head *bh1 = dirty_block(b, o->first + 1, 1);
	if (sync_blockdev(b)) {
		o->setup_failed = true;
		goto out;
	}
	/* We hold block 1, clean: dirtied after 0, the list is [0, 1]. */
	lock_buffer(bh1);
	mark_buffer_dirty(bh0);
	mark_buffer_dirty(bh1);
	start_sync(&sb, b, 0);	/* takes 0, then waits for 1 */
	if (!WAIT_FOR(waiters(&bh1->b_wait) >= 1 && !buffer_dirty(bh0))) {
		o->setup_failed = true;
		unlock_buffer(bh1);
		goto join;
	}
	mark_buffer_dirty(bh0);	/* 0 again, after 1: the list is [1, 0] */
	start_sync(&sc, b, 1);	/* wants 1 first, then 0 */
	if (!WAIT_FOR(waiters(&bh1->b_wait) >= 2)) {
		o->setup_failed = true;
		unlock_buffer(bh1);
		goto join_c;
	}
	/* Hand block 1 over with B unable to run (it shares our CPU and we
	 * keep it): C, on CPU 1, takes it. */
	preempt_disable();
	unlock_buffer(bh1);
	for (unsigned long spins = 0; !locked(bh1) && spins < 100000000ul; spins++)
		cpu_relax();
	preempt_enable();
	/* Both asleep with nothing at the disk, for 300 polls in a row: they
	 * wait for each other, for good. */
	for (unsigned idle = 0; !(sync_done(&sb) && sync_done(&sc));) {
		sleep_ms(10);
		bool asleep = __atomic_load_n(&sb.t->state, __ATOMIC_RELAXED) != THREAD_RUNNING &&
			      __atomic_load_n(&sc.t->state, __ATOMIC_RELAXED) != THREAD_RUNNING;
		if (asleep && !sync_done(&sb) && !sync_done(&sc) &&
		    __atomic_load_n(&b->stats.in_flight, __ATOMIC_RELAXED) == 0)
			idle++;
		else
			idle = 0;
		if (idle == 300) {
			o->deadlocked = true;
			return 0;	/* they and their buffers stay as they are */
		}
	}
join_c:
	thread_join(sc.t);
join:
	thread_join(sb.t);
out:
	brelse(bh0);
	brelse(bh1);
	return 0;
}

static void syncs_in_opposite_orders(void)
{
	struct block_device *b = test_disk_or_skip("slow");
	if (ncpus < 2)
		ktest_skip("needs 2 CPUs");
	unsigned rounds = ktest_stress(3);
	for (unsigned r = 0; r < rounds; r++) {
		static struct orders o;
		o = (struct orders){ .bdev = b, .first = 16 + 2 * r };
		struct thread *t = thread_create("wb-orders", orders_round, &o, 0);
		ASSERT_NOT_NULL(t);
		thread_join(t);
		ASSERT_FALSE(o.setup_failed);
		if (o.deadlocked) {
			FAIL("round %u: the two syncs wait for each other's buffer (blocks %lu "
			     "and %lu) with nothing in flight", r, o.first, o.first + 1);
			return;	/* any further sync of the disk would join them */
		}
	}
}

/* ---- fsync against a write in flight -------------------------------------- */

static int open_node(struct block_device *b, char *path, size_t size)
{
	snprintf(path, size, "/wb-%s", b->name);
	if (sys_mknod(path, S_IFBLK | 0600, makedev(b->major, b->minor)))
		return -1;
	return (int)sys_open(path, O_RDWR, 0);
}

/* Block `block` dirty, and a sync's write of it submitted (clean, locked):
 * then fsync, then (if mark) a read of block mark that the disk sees after
 * fsync returned.  Returns fsync's result; *in_flight: was the write still
 * in flight when fsync returned? */
static int fsync_during_write(struct block_device *b, int fd, uint64_t block, uint64_t mark,
			      int *sync_err, bool *in_flight)
{
	static struct syncer sa;
	struct buffer_head *bh = dirty_block(b, block, 7);
	start_sync(&sa, b, THREAD_ANY_CPU);
	if (!WAIT_FOR(locked(bh) && !buffer_dirty(bh))) {
		FAIL("the first sync never submitted its write");
		thread_join(sa.t);
		brelse(bh);
		return 0;
	}
	int err = sys_fsync(fd);
	*in_flight = locked(bh) && !sync_done(&sa);
	if (mark) {
		char *buf = kmalloc(SECTOR_SIZE);
		if (!buf || blk_rw(b, REQ_OP_READ, mark * SPB, buf, SECTOR_SIZE))
			FAIL("the read that marks fsync's return failed");
		kfree(buf);
	}
	thread_join(sa.t);
	*sync_err = sa.err;
	brelse(bh);
	return err;
}

#define EARLY_BLOCK 200u
#define MARK_BLOCK 300u

static void fsync_waits_for_writes_in_flight(void)
{
	struct block_device *b = test_disk_or_skip("slow");
	char path[32];
	int fd = open_node(b, path, sizeof(path));
	ASSERT_GE(fd, 0);
	int sync_err;
	bool in_flight;
	int err = fsync_during_write(b, fd, EARLY_BLOCK, MARK_BLOCK, &sync_err, &in_flight);
	EXPECT_EQ(err, 0);
	EXPECT_EQ(sync_err, 0);
	if (in_flight)
		FAIL("fsync returned while another sync's write of block %u was in flight",
			   EARLY_BLOCK);
	kprintf("    # HOSTCHECK writtenbefore slow %u %u\n", EARLY_BLOCK * SPB, MARK_BLOCK * SPB);
	EXPECT_EQ(sys_close(fd), 0);
	EXPECT_EQ(sys_unlink(path), 0);
}

static void fsync_hears_a_failed_write(void)
{
	struct block_device *b = test_disk_or_skip("wfail");
	char path[32];
	int fd = open_node(b, path, sizeof(path));
	ASSERT_GE(fd, 0);
	int sync_err;
	bool in_flight;
	int err = fsync_during_write(b, fd, 40, 0, &sync_err, &in_flight);
	EXPECT_EQ(sync_err, -EIO);
	if (err != -EIO)
		FAIL("fsync returned %d, not -EIO, while the write it covered failed", err);
	EXPECT_FALSE(in_flight);
	/* The block is dirty again, for good (every write fails): each fsync
	 * tries and reports it. */
	EXPECT_EQ(sys_fsync(fd), -EIO);
	EXPECT_EQ(sys_close(fd), 0);
	EXPECT_EQ(sys_unlink(path), 0);
}

/* A write the flusher did failed (injected: blk_fail_next_writes) and the
 * buffer was written fine later: each file open before the failure hears
 * of it once, from its next fsync; a file opened after someone heard of
 * it does not (Linux's errseq_t semantics for fsync). */
static void fsync_errors_once_per_file(void)
{
	struct block_device *b = test_disk_or_skip("race");
	char path[32];
	int fd1 = open_node(b, path, sizeof(path));
	ASSERT_GE(fd1, 0);
	int fd2 = sys_open(path, O_RDWR, 0);
	ASSERT_GE(fd2, 0);
	struct buffer_head *bh = dirty_block(b, 100, 1);
	blk_fail_next_writes(b, 1);
	bdflush_kick_and_wait();	/* its write of block 100 fails; dirty again */
	EXPECT_TRUE(buffer_dirty(bh));
	if (sys_fsync(fd1) != -EIO)	/* writes it fine: the flusher's failure is news */
		FAIL("fsync did not report the flusher's failed write of block 100");
	EXPECT_EQ(sys_fsync(fd1), 0);	/* once */
	int fd3 = sys_open(path, O_RDWR, 0);
	ASSERT_GE(fd3, 0);
	EXPECT_EQ(sys_fsync(fd3), 0);	/* opened after fd1 heard of it */
	EXPECT_EQ(sys_fsync(fd2), -EIO);	/* but fd2 had not */
	EXPECT_EQ(sys_fsync(fd2), 0);
	EXPECT_FALSE(buffer_dirty(bh));
	blk_fail_next_writes(b, 0);
	brelse(bh);
	EXPECT_EQ(sys_close(fd3), 0);
	EXPECT_EQ(sys_close(fd2), 0);
	EXPECT_EQ(sys_close(fd1), 0);
	EXPECT_EQ(sys_unlink(path), 0);
}

/* ---- the torture ----------------------------------------------------------- */

#define T_BLOCKS 48u
#define T_WRITERS 2u
#define T_SYNCERS 3u
#define T_THREADS (T_WRITERS + T_SYNCERS + 2)   /* and the flusher's kicker, the umounter */
#define U_MAX_FILES 64u
#define U_DIR "/wb-mnt"

struct torture {
	struct block_device *bdev;
	uint64_t seed;
	int fd;
	unsigned writes_each, syncs_each;
	uint32_t committed[T_BLOCKS];   /* atomic: the version whose mark_buffer_dirty returned */
	unsigned arrived, writers_left;
	unsigned stale, sync_errors, syncs, flushes;   /* atomic */
	char first_stale[96];
	bool stale_reported;            /* atomic */
	/* The umounter: an ext2 disk mounted, written, unmounted, checked. */
	struct block_device *ext2;
	unsigned umount_rounds, files, umount_failures;
	char umount_failure[96];
};

struct t_arg {
	struct torture *t;
	unsigned i;
};

/* Writer i owns the blocks b with b % T_WRITERS == i: one writer a block,
 * so its versions only go up. */
static int t_writer(void *p)
{
	struct t_arg *a = p;
	struct torture *t = a->t;
	struct prng rng;
	prng_seed(&rng, t->seed + a->i);
	barrier_wait(&t->arrived, T_THREADS);
	for (unsigned n = 0; n < t->writes_each; n++) {
		uint64_t block = a->i + T_WRITERS * prng_below(&rng, T_BLOCKS / T_WRITERS);
		uint32_t v = __atomic_load_n(&t->committed[block], __ATOMIC_RELAXED) + 1;
		struct buffer_head *bh = dirty_block(t->bdev, block, v);
		__atomic_store_n(&t->committed[block], v, __ATOMIC_RELEASE);
		brelse(bh);
		if (prng_below(&rng, 4) == 0)
			sleep_ms(1 + (unsigned)prng_below(&rng, 20));
	}
	__atomic_fetch_sub(&t->writers_left, 1, __ATOMIC_RELEASE);
	return 0;
}

static void t_stale(struct torture *t, uint64_t block, uint64_t word, uint32_t want, bool by_fsync)
{
	__atomic_fetch_add(&t->stale, 1, __ATOMIC_RELAXED);
	if (!__atomic_exchange_n(&t->stale_reported, true, __ATOMIC_ACQ_REL))
		snprintf(t->first_stale, sizeof(t->first_stale),
			 "block %lu holds %lx on the disk after %s, version %u was due", block, word,
			 by_fsync ? "fsync" : "sync", want);
}

/* Syncer i: a sync (or an fsync, every other time), then the disk itself
 * must hold, for every block, the version committed before it began or a
 * later one. */
static int t_syncer(void *p)
{
	struct t_arg *a = p;
	struct torture *t = a->t;
	uint32_t *before = kmalloc(sizeof(t->committed));
	uint64_t *sector = kmalloc(SECTOR_SIZE);
	barrier_wait(&t->arrived, T_THREADS);
	struct prng rng;
	prng_seed(&rng, t->seed + 100 + a->i);
	for (unsigned n = 0; before && sector && n < t->syncs_each; n++) {
		/* Begin at random moments: some while another's writes are in flight. */
		sleep_ms((unsigned)prng_below(&rng, 30));
		for (unsigned k = 0; k < T_BLOCKS; k++)
			before[k] = __atomic_load_n(&t->committed[k], __ATOMIC_ACQUIRE);
		bool by_fsync = (n + a->i) % 2;
		int err = by_fsync ? (int)sys_fsync(t->fd) : sync_blockdev(t->bdev);
		__atomic_fetch_add(&t->syncs, 1, __ATOMIC_RELAXED);
		if (err)
			__atomic_fetch_add(&t->sync_errors, 1, __ATOMIC_RELAXED);
		for (unsigned k = 0; k < T_BLOCKS; k++) {
			if (!before[k])
				continue;
			if (blk_rw(t->bdev, REQ_OP_READ, (uint64_t)k * SPB, sector, SECTOR_SIZE)) {
				__atomic_fetch_add(&t->sync_errors, 1, __ATOMIC_RELAXED);
				continue;
			}
			uint64_t w = __atomic_load_n(&sector[0], __ATOMIC_RELAXED);
			if (w >> 32 != k || (uint32_t)w < before[k])
				t_stale(t, k, w, before[k], by_fsync);
		}
	}
	kfree(before);
	kfree(sector);
	return 0;
}

static int t_flusher(void *p)
{
	struct torture *t = p;
	barrier_wait(&t->arrived, T_THREADS);
	while (__atomic_load_n(&t->writers_left, __ATOMIC_ACQUIRE)) {
		bdflush_kick_and_wait();
		__atomic_fetch_add(&t->flushes, 1, __ATOMIC_RELAXED);
		sleep_ms(5);
	}
	return 0;
}

/* File k of the umounter: its size and its bytes, from the seed. */
static unsigned u_size(struct torture *t, unsigned k)
{
	struct prng rng;
	prng_seed(&rng, t->seed + 1000 + k);
	return 1000 + (unsigned)prng_below(&rng, 9000);
}

static void u_fill(struct torture *t, unsigned k, char *buf, unsigned size)
{
	struct prng rng;
	prng_seed(&rng, t->seed + 1000 + k);
	prng_below(&rng, 9000);
	for (unsigned i = 0; i < size; i++)
		buf[i] = (char)prng_next(&rng);
}

static void u_fail(struct torture *t, const char *what, unsigned k, long got)
{
	if (!t->umount_failures++)
		snprintf(t->umount_failure, sizeof(t->umount_failure), "round %u, file %u: %s (%ld)",
			 t->umount_rounds, k, what, got);
}

/* Before each mount a read of the disk's last sector: nbdkit's log then
 * shows where each mount begins (HOSTCHECK sborder). */
static void u_mark(struct torture *t, char *sector)
{
	if (blk_rw(t->ext2, REQ_OP_READ, t->ext2->nr_sectors - 1, sector, SECTOR_SIZE))
		u_fail(t, "the mark's read failed", 0, 0);
}

/* Mount, add a file (fsynced or not, at random), unmount, mount again
 * and read back every file so far, unmount: while the others write,
 * sync and flush the other disks (and the flusher this one). */
static int t_umounter(void *p)
{
	struct torture *t = p;
	char dev[24], path[48];
	snprintf(dev, sizeof(dev), "/dev/%s", t->ext2->name);
	char *buf = kmalloc(10000), *back = kmalloc(10000), *sector = kmalloc(SECTOR_SIZE);
	int e = sys_mkdir(U_DIR, 0755);
	if (!buf || !back || !sector || (e && e != -EEXIST))
		u_fail(t, "setup", 0, e);
	barrier_wait(&t->arrived, T_THREADS);
	unsigned rounds = ktest_stress(3);
	while (!t->umount_failures && t->umount_rounds < rounds && t->files < U_MAX_FILES) {
		u_mark(t, sector);
		if ((e = sys_mount_from(dev, U_DIR, "ext2", 0, NULL))) {
			u_fail(t, "mount", 0, e);
			break;
		}
		unsigned k = t->files++, size = u_size(t, k);
		snprintf(path, sizeof(path), U_DIR "/f%u", k);
		u_fill(t, k, buf, size);
		int fd = sys_open(path, O_RDWR | O_CREAT, 0644);
		if (fd < 0)
			u_fail(t, "open", k, fd);
		long w = fd < 0 ? 0 : sys_pwrite(fd, buf, size, 0);
		if (fd >= 0 && w != (long)size)
			u_fail(t, "write", k, w);
		if (fd >= 0 && k % 2 && (e = sys_fsync(fd)))
			u_fail(t, "fsync", k, e);
		if (fd >= 0)
			sys_close(fd);
		if ((e = sys_umount(U_DIR)))
			u_fail(t, "umount", k, e);
		/* Everything must have reached the disk: read it all back. */
		u_mark(t, sector);
		if (!t->umount_failures && (e = sys_mount_from(dev, U_DIR, "ext2", 0, NULL)))
			u_fail(t, "mount again", k, e);
		for (unsigned f = 0; !e && f < t->files && !t->umount_failures; f++) {
			snprintf(path, sizeof(path), U_DIR "/f%u", f);
			unsigned want = u_size(t, f);
			u_fill(t, f, buf, want);
			fd = sys_open(path, O_RDONLY, 0);
			long r = fd < 0 ? fd : sys_pread(fd, back, 10000, 0);
			if (fd >= 0)
				sys_close(fd);
			if (r != (long)want || memcmp(buf, back, want))
				u_fail(t, "read back after umount and mount", f, r);
		}
		if (!e && (e = sys_umount(U_DIR)))
			u_fail(t, "umount again", k, e);
		t->umount_rounds++;
	}
	kfree(buf);
	kfree(back);
	kfree(sector);
	return 0;
}

static void wb_torture(void)
{
	struct block_device *b = test_disk_or_skip("race");
	static struct torture t;
	memset(&t, 0, sizeof(t));
	t.bdev = b;
	t.seed = ktest_seed();
	t.writes_each = ktest_stress(150);
	t.syncs_each = ktest_stress(12);
	t.writers_left = T_WRITERS;
	kprintf("    # seed %lu\n", t.seed);
	char path[32];
	t.fd = open_node(b, path, sizeof(path));
	ASSERT_GE(t.fd, 0);
	t.ext2 = test_disk("wbext2");
	bool jitter = race_jitter_on(t.seed);
	struct t_arg args[T_WRITERS + T_SYNCERS];
	struct thread *th[T_THREADS];
	unsigned n = 0;
	for (unsigned i = 0; i < T_WRITERS; i++, n++) {
		args[n] = (struct t_arg){ &t, i };
		th[n] = thread_create("wb-writer", t_writer, &args[n], THREAD_ANY_CPU);
	}
	for (unsigned i = 0; i < T_SYNCERS; i++, n++) {
		args[n] = (struct t_arg){ &t, i };
		th[n] = thread_create("wb-syncer", t_syncer, &args[n], THREAD_ANY_CPU);
	}
	th[n++] = thread_create("wb-flusher", t_flusher, &t, THREAD_ANY_CPU);
	if (t.ext2)
		th[n++] = thread_create("wb-umounter", t_umounter, &t, THREAD_ANY_CPU);
	else	/* no ext2 disk: the others do not wait for it */
		__atomic_fetch_add(&t.arrived, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < n; i++) {
		ASSERT_NOT_NULL(th[i]);
	}
	for (unsigned i = 0; i < n; i++)
		thread_join(th[i]);
	if (jitter)
		race_jitter_off();
	/* Last: one more sync, and every block's last version is on the disk. */
	EXPECT_EQ(sys_fsync(t.fd), 0);
	uint64_t *sector = kmalloc(SECTOR_SIZE);
	ASSERT_NOT_NULL(sector);
	for (unsigned k = 0; k < T_BLOCKS; k++) {
		uint32_t v = t.committed[k];
		if (!v)
			continue;
		EXPECT_EQ(blk_rw(b, REQ_OP_READ, (uint64_t)k * SPB, sector, SECTOR_SIZE), 0);
		if (sector[0] != ((uint64_t)k << 32 | v))
			t_stale(&t, k, sector[0], v, true);
	}
	kfree(sector);
	kprintf("    # wb_torture: %u syncs, %u flusher runs, %u stale blocks, %u errors; "
		"%u umount rounds\n", t.syncs, t.flushes, t.stale, t.sync_errors, t.umount_rounds);
	if (t.umount_failures)
		FAIL("the umounter: %u failures; first: %s", t.umount_failures, t.umount_failure);
	if (t.ext2) {
		EXPECT_GT(t.umount_rounds, 0u);
		kprintf("    # HOSTCHECK sborder wbext2 %lu\n", t.ext2->nr_sectors - 1);
	}
	EXPECT_EQ(t.sync_errors, 0u);
	if (t.stale)
		FAIL("%u blocks older on the disk than a sync promised; first: %s", t.stale,
			   t.first_stale);
	EXPECT_EQ(sys_close(t.fd), 0);
	EXPECT_EQ(sys_unlink(path), 0);
}

static const struct ktest_case wb_cases[] = {
	KTEST_CASE(fsync_waits_for_writes_in_flight),
	KTEST_CASE(fsync_errors_once_per_file),
	KTEST_CASE(wb_torture),
	KTEST_CASE(fsync_hears_a_failed_write),	/* leaves a block that cannot be written */
	KTEST_CASE(syncs_in_opposite_orders),	/* last: a deadlock leaves its threads asleep */
};
KTEST_SUITE(wb, wb_cases);
