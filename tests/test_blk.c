/*
 * test_blk.c: the block layer and the virtio-blk driver against a disk
 * the host wrote and will read back (role "pattern", tests/disk_tests.py).
 *
 * The host fills the first half of the disk with its pattern (tag 0xa5)
 * before the boot; the kernel reads it from every CPU at once, writes its
 * own pattern (tag 0x5a) over the second half, and the host compares the
 * image after QEMU exits.  The disk has a read delay, so requests overlap
 * at the device: the driver's in-flight count must pass one, and nbdkit's
 * log (outside the kernel) must show reads in flight together.
 */
#include "kernel/ktest.h"
#include "block/blkdev.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "arch/x86_64/percpu.h"
#include "tests/test_disk.h"

#define CHUNK_MAX 64                      /* sectors per request, at most */
#define WORDS (SECTOR_SIZE / 8)

static bool sector_holds(const uint64_t *w, uint64_t s, uint8_t tag)
{
	for (unsigned i = 0; i < WORDS; i++)
		if (w[i] != test_pattern_word(s, i, tag))
			return false;
	return true;
}

struct span_job {
	struct block_device *bdev;
	uint64_t first, count;    /* the half this job covers */
	bool write;
	unsigned bad;             /* sectors that did not hold the pattern (atomic) */
	int err;                  /* first error (atomic compare-and-swap from 0) */
};

/* CPU `cpu` moves every ncpus-th chunk of the span; the chunks are 16 to
 * 64 sectors, the same split on every CPU. */
static void span_cpu(unsigned cpu, void *arg)
{
	struct span_job *j = arg;
	uint64_t *buf = kmalloc(CHUNK_MAX * SECTOR_SIZE);
	if (!EXPECT_NOT_NULL(buf))
		return;
	for (uint64_t s = j->first, k = 0; s < j->first + j->count; k++) {
		uint64_t n = 16 + (k * 7919) % (CHUNK_MAX - 15);
		if (n > j->first + j->count - s)
			n = j->first + j->count - s;
		if (k % ncpus == cpu) {
			for (uint64_t i = 0; j->write && i < n * WORDS; i++)
				buf[i] = test_pattern_word(s + i / WORDS, i % WORDS, 0x5a);
			int err = blk_rw(j->bdev, j->write ? REQ_OP_WRITE : REQ_OP_READ, s, buf,
					 (uint32_t)(n * SECTOR_SIZE));
			int zero = 0;
			if (err)
				__atomic_compare_exchange_n(&j->err, &zero, err, false, __ATOMIC_RELAXED,
							    __ATOMIC_RELAXED);
			for (uint64_t i = 0; !err && !j->write && i < n; i++)
				if (!sector_holds(buf + i * WORDS, s + i, 0xa5))
					__atomic_fetch_add(&j->bad, 1, __ATOMIC_RELAXED);
		}
		s += n;
	}
	kfree(buf);
}

static uint64_t half(struct block_device *b)
{
	return b->nr_sectors / 2;
}

/* The host's half, read from every CPU at once, chunk by chunk. */
static void reads_host_pattern(void)
{
	struct block_device *b = test_disk_or_skip("pattern");
	struct span_job j = { b, 0, half(b), false, 0, 0 };
	ktest_run_on_all_cpus(span_cpu, &j);
	EXPECT_EQ(j.err, 0);
	EXPECT_EQ(j.bad, 0u);
}

/* The kernel's half: written from every CPU, flushed, read back here; the
 * host compares the image after the boot. */
static void writes_for_host(void)
{
	struct block_device *b = test_disk_or_skip("pattern");
	struct span_job j = { b, half(b), b->nr_sectors - half(b), true, 0, 0 };
	ktest_run_on_all_cpus(span_cpu, &j);
	EXPECT_EQ(j.err, 0);
	EXPECT_EQ(blk_rw(b, REQ_OP_FLUSH, 0, NULL, 0), 0);
	uint64_t *buf = kmalloc(SECTOR_SIZE);
	ASSERT_NOT_NULL(buf);
	unsigned bad = 0;
	for (uint64_t s = j.first; s < j.first + j.count; s += 97) {
		EXPECT_EQ(blk_rw(b, REQ_OP_READ, s, buf, SECTOR_SIZE), 0);
		bad += !sector_holds(buf, s, 0x5a);
	}
	EXPECT_EQ(bad, 0u);
	kfree(buf);
	kprintf("    # HOSTCHECK pattern pattern %lu %lu\n", j.first, j.count);
}

/* One thread puts 16 reads at the device before waiting for any: on a
 * disk with a read delay they are there together.  Counted by the
 * driver, and by nbdkit's log from outside. */
static void many_in_flight(void)
{
	struct block_device *b = test_disk_or_skip("pattern");
	enum { N = 16 };
	uint64_t *buf = kmalloc(N * SECTOR_SIZE);
	ASSERT_NOT_NULL(buf);
	struct request *rq[N];
	blk_reset_max_in_flight(b);
	for (unsigned i = 0; i < N; i++) {
		rq[i] = blk_get_request(b, REQ_OP_READ, 100 + 8 * i, buf + i * WORDS, SECTOR_SIZE);
		blk_execute_rq_nowait(rq[i]);
	}
	for (unsigned i = 0; i < N; i++) {
		EXPECT_EQ(blk_wait_rq(rq[i]), 0);
		blk_put_request(rq[i]);
		EXPECT_TRUE(sector_holds(buf + i * WORDS, 100 + 8 * i, 0xa5));
	}
	unsigned most = __atomic_load_n(&b->stats.max_in_flight, __ATOMIC_RELAXED);
	kprintf("    # %s: %u of %u reads at the device at once\n", b->name, most, N);
	EXPECT_GE(most, 2u);
	kprintf("    # HOSTCHECK overlap pattern 2\n");
	kfree(buf);
}

/* Requests the device cannot take are refused before they reach it. */
static void bad_requests(void)
{
	struct block_device *b = test_disk_or_skip("pattern");
	char *buf = kmalloc(BLK_MAX_BYTES + SECTOR_SIZE);
	ASSERT_NOT_NULL(buf);
	uint64_t errors = b->stats.errors;
	EXPECT_EQ(blk_rw(b, REQ_OP_READ, b->nr_sectors, buf, SECTOR_SIZE), -EINVAL);
	EXPECT_EQ(blk_rw(b, REQ_OP_READ, b->nr_sectors - 1, buf, 2 * SECTOR_SIZE), -EINVAL);
	EXPECT_EQ(blk_rw(b, REQ_OP_READ, ~0ULL, buf, SECTOR_SIZE), -EINVAL);
	EXPECT_EQ(blk_rw(b, REQ_OP_READ, 0, buf, 0), -EINVAL);
	EXPECT_EQ(blk_rw(b, REQ_OP_READ, 0, buf, 100), -EINVAL);
	EXPECT_EQ(blk_rw(b, REQ_OP_READ, 0, buf, BLK_MAX_BYTES + SECTOR_SIZE), -EINVAL);
	EXPECT_EQ(blk_rw(b, REQ_OP_FLUSH, 0, buf, SECTOR_SIZE), -EINVAL);
	EXPECT_EQ(b->stats.errors, errors);	/* none reached the device */
	EXPECT_EQ(blk_rw(b, REQ_OP_READ, b->nr_sectors - 1, buf, SECTOR_SIZE), 0);
	kfree(buf);
}

static const struct ktest_case blk_cases[] = {
	KTEST_CASE(reads_host_pattern),
	KTEST_CASE(many_in_flight),
	KTEST_CASE(writes_for_host),
	KTEST_CASE(bad_requests),
};
KTEST_SUITE(blk, blk_cases);
