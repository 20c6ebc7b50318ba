/*
 * test_read_races.c: ramfs's lockless readers racing the changes they read
 * (ktest=read_races).
 *
 * read and getdents of a ramfs file or directory take no i_rwsem
 * (fs/ramfs/file.c, fs/ramfs/dir.c): the page tree and the entry list are
 * read under RCU while write, truncate, create, rename and unlink change
 * them.  So these cases check what must still hold:
 *  - a read racing writes that grow the tree and truncates that free its
 *    pages and nodes returns only bytes some write wrote (each generation
 *    of writes has its own pattern) or zeros, and nothing past the largest
 *    size the file ever had, and never crashes;
 *  - a listing racing creates, renames and unlinks in its directory
 *    returns every entry present throughout exactly once, no cookie twice
 *    or out of order, no name that was never made;
 *  - a directory removed while being listed: once rmdir has returned,
 *    every getdents says ENOENT.
 * Every thread starts after a random delay drawn from the case's seed, and
 * the race windows are on (a reader waits, between finding a page or an
 * entry and copying it, for the truncate or unlink that removes it).
 */
#include "arch/x86_64/percpu.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/layout.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "tests/sandbox.h"

#define READERS 3
#define MAX_DELAY 20000                 /* pauses before a thread starts */

/*
 * Readers run on CPUs 1.. and changers on CPU 0: a reader waits inside
 * its read side (preemption off) for a writer under way (race_window_on),
 * and a writer that yielded on the reader's CPU would get it back only
 * when the reader is done waiting.
 */
static int reader_cpu(unsigned i)
{
	return (int)(1 + i % (ncpus - 1));
}

static void random_delay(struct prng *rng)
{
	for (uint64_t n = prng_below(rng, MAX_DELAY); n; n--)
		__builtin_ia32_pause();
}

/* ---- reads racing writes and truncates ------------------------------ */

/* The pages each generation writes: a tree of height 1, 2 and 3 (512 and
 * 262144 pages a level), so that truncates free data pages, lower nodes
 * and, at size 0, every node up to the root. */
static const uint64_t slots[] = { 0, 1, 3, 511, 512, 600, 262149 };
#define NSLOTS (sizeof(slots) / sizeof(slots[0]))
#define FILE_END ((262149 + 1) * PAGE_SIZE)     /* no size is ever larger */
#define GENERATIONS 40                  /* below 64: a byte names its generation */
#define READ_MAX (2 * PAGE_SIZE)

/* Generation g's byte at file offset pos: 10gggggg with g mixed with pos,
 * never 0 (a hole or a truncated tail) nor SLAB_POISON (a freed page). */
static uint8_t pattern(unsigned g, uint64_t pos)
{
	return (uint8_t)(0x80 | ((pos * 5 + g * 11) & 63));
}

/* The generation whose pattern b is at pos (11 * 35 = 1 mod 64), or 0. */
static unsigned generation_of(uint8_t b, uint64_t pos)
{
	if ((b & 0xc0) != 0x80)
		return 0;
	return (unsigned)((35 * ((b & 63) + 64 * 5 - (pos * 5) % 64)) % 64);
}

struct file_race {
	unsigned gen;                   /* atomic: the generation being written */
	bool done;                      /* atomic: the writer has finished */
	uint64_t seed;
	unsigned reads, bad;            /* atomics */
	int fd;                         /* the writer's */
};

struct file_racer {
	struct file_race *r;
	unsigned id;
	struct thread *t;
};

static int file_writer(void *p)
{
	struct file_racer *me = p;
	struct file_race *r = me->r;
	struct prng rng;
	prng_seed(&rng, r->seed);
	random_delay(&rng);
	static char page[PAGE_SIZE];	/* one writer at a time */
	for (unsigned g = 1; g <= GENERATIONS; g++) {
		__atomic_store_n(&r->gen, g, __ATOMIC_RELEASE);	/* before any byte of g */
		/* Cut it all (every node goes, the root too) or anywhere. */
		uint64_t size = prng_below(&rng, 3) == 0 ? 0 : prng_below(&rng, FILE_END);
		if (sys_ftruncate(r->fd, (int64_t)size) != 0)
			__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
		for (unsigned i = 0, first = (unsigned)prng_below(&rng, NSLOTS); i < NSLOTS; i++) {
			uint64_t base = slots[(first + i) % NSLOTS] * PAGE_SIZE;
			size_t len = prng_below(&rng, 4) == 0 ? 1 + prng_below(&rng, PAGE_SIZE) : PAGE_SIZE;
			for (size_t k = 0; k < len; k++)
				page[k] = (char)pattern(g, base + k);
			if (sys_pwrite(r->fd, page, len, (int64_t)base) != (long)len)
				__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
		}
		if (g % 8 == 0)
			yield();
	}
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return 0;
}

/* The bytes of one read at off that no write explains; the first is
 * printed if the reader has none yet (*bad). */
static void check_read(const uint8_t *buf, long n, uint64_t off, unsigned gen, unsigned id,
		       unsigned *bad)
{
	for (long k = 0; k < n; k++) {
		unsigned g = generation_of(buf[k], off + (uint64_t)k);
		if (buf[k] == 0 || (g >= 1 && g <= gen))	/* a hole, or a write's */
			continue;
		if ((*bad)++ == 0)
			kprintf("    # reader %u: byte 0x%x at offset %lu (generation %u at most)\n", id,
				buf[k], off + (uint64_t)k, gen);
	}
}

static int file_reader(void *p)
{
	struct file_racer *me = p;
	struct file_race *r = me->r;
	struct prng rng;
	prng_seed(&rng, r->seed + 1 + me->id);
	random_delay(&rng);
	static uint8_t bufs[READERS][READ_MAX];
	uint8_t *buf = bufs[me->id];
	int fd = sys_open("f", O_RDONLY, 0);
	if (fd < 0) {
		__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
		return 0;
	}
	unsigned reads = 0, bad = 0;
	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) || reads < 50) {
		uint64_t off = slots[prng_below(&rng, NSLOTS)] * PAGE_SIZE + prng_below(&rng, PAGE_SIZE);
		size_t len = 1 + prng_below(&rng, READ_MAX);
		long n;
		if (prng_below(&rng, 2)) {	/* read at the file position, or pread */
			n = sys_lseek(fd, (int64_t)off, SEEK_SET) == (int64_t)off ? sys_read(fd, buf, len) : -1;
		} else {
			n = sys_pread(fd, buf, len, (int64_t)off);
		}
		unsigned gen = __atomic_load_n(&r->gen, __ATOMIC_ACQUIRE);	/* after the read */
		if (n < 0 || (size_t)n > len || off + (uint64_t)n > FILE_END) {
			if (bad++ == 0)
				kprintf("    # reader %u: read of %zu at %lu gave %ld\n", me->id, len, off, n);
		} else {
			check_read(buf, n, off, gen, me->id, &bad);
		}
		reads++;
	}
	sys_close(fd);
	__atomic_fetch_add(&r->reads, reads, __ATOMIC_RELAXED);
	__atomic_fetch_add(&r->bad, bad, __ATOMIC_RELAXED);
	return 0;
}

static void reads_race_truncate_and_write(void)
{
	if (ncpus < 2)	/* a reader waits in its read side for a writer elsewhere */
		ktest_skip("a race needs two CPUs");
	struct sandbox s;
	sandbox_enter(&s, "readrace");
	struct file_race r = { .seed = ktest_seed() };
	r.fd = sys_open("f", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(r.fd, 0);
	bool jitter = race_jitter_on(ktest_seed());
	unsigned rounds = ktest_stress(2);
	for (unsigned round = 0; round < rounds; round++) {
		ASSERT_EQ(sys_ftruncate(r.fd, 0), 0);	/* generations start again at 1 */
		r.gen = 0;
		r.done = false;
		r.seed = ktest_seed() + round * 16;
		struct file_racer w = { &r, 0, NULL }, rd[READERS];
		w.t = thread_create("readrace-w", file_writer, &w, 0);
		ASSERT_NOT_NULL(w.t);
		for (unsigned i = 0; i < READERS; i++) {
			rd[i] = (struct file_racer){ &r, i, NULL };
			rd[i].t = thread_create("readrace-r", file_reader, &rd[i], reader_cpu(i));
			ASSERT_NOT_NULL(rd[i].t);
		}
		thread_join(w.t);
		for (unsigned i = 0; i < READERS; i++)
			thread_join(rd[i].t);
	}
	if (jitter)
		race_jitter_off();
	kprintf("    # %u reads, %u rounds of %u generations\n", r.reads, rounds, GENERATIONS);
	EXPECT_EQ(r.bad, 0u);
	EXPECT_GE(r.reads, rounds * READERS * 50);
	EXPECT_EQ(sys_close(r.fd), 0);
	EXPECT_EQ(sys_unlink("f"), 0);
	sandbox_leave(&s);
}

/* ---- listings racing creates, renames and unlinks -------------------- */

#define STABLE 24                       /* s00..s23: present throughout */
#define CHURNERS 2
#define CHURN_OPS 12
#define LIST_BUF 160                    /* a few entries a call: the cursor resumes often */

struct dir_race {
	bool done;                      /* atomic: the churners have finished */
	uint64_t seed;
	unsigned lists, bad;            /* atomics */
};

struct dir_racer {
	struct dir_race *r;
	unsigned id;
	struct thread *t;
};

static int churner(void *p)
{
	struct dir_racer *me = p;
	struct prng rng;
	prng_seed(&rng, me->r->seed + 100 + me->id);
	random_delay(&rng);
	unsigned bad = 0;
	char a[32], b[32];
	for (unsigned i = 0; i < CHURN_OPS; i++) {
		snprintf(a, sizeof(a), "d/c%u_%u", me->id, i);
		snprintf(b, sizeof(b), "d/r%u_%u", me->id, i);
		int fd = sys_open(a, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0) {
			bad++;
			continue;
		}
		sys_close(fd);
		if (sys_rename(a, b) != 0)
			bad++;
		if (prng_below(&rng, 4) && sys_unlink(b) != 0)	/* some stay: the list grows */
			bad++;
	}
	__atomic_fetch_add(&me->r->bad, bad, __ATOMIC_RELAXED);
	return 0;
}

/* A name some thread made: ".", "..", s<2 digits>, or c or r, digits, _, digits. */
static bool name_known(const char *name)
{
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return true;
	if (name[0] == 's')
		return name[1] >= '0' && name[1] <= '9' && name[2] >= '0' && name[2] <= '9' && !name[3];
	if (name[0] != 'c' && name[0] != 'r')
		return false;
	const char *q = name + 1;
	unsigned digits = 0;
	while (*q >= '0' && *q <= '9')
		q++, digits++;
	if (!digits || *q++ != '_')
		return false;
	for (digits = 0; *q >= '0' && *q <= '9'; q++)
		digits++;
	return digits && !*q;
}

/* One whole listing of d: its faults (printed, a few). */
static unsigned list_once(int fd, unsigned id)
{
	unsigned seen[STABLE] = { 0 }, bad = 0;
	char buf[LIST_BUF];
	int64_t last_off = -1;
	long n;
	if (sys_lseek(fd, 0, SEEK_SET) != 0)
		return 1;
	while ((n = sys_getdents(fd, buf, sizeof(buf))) > 0) {
		for (long at = 0; at < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + at);
			size_t len = strnlen(d->d_name, sizeof(buf));
			bool ok = d->d_reclen >= 24 && at + d->d_reclen <= n && len < 16 &&
				  d->d_ino && d->d_off > last_off && name_known(d->d_name);
			if (ok && d->d_name[0] == 's')
				seen[(d->d_name[1] - '0') * 10 + d->d_name[2] - '0']++;
			if (!ok) {
				if (bad++ == 0)
					kprintf("    # lister %u: entry \"%.16s\" ino %lu off %ld after %ld, reclen %u\n",
						id, d->d_name, d->d_ino, d->d_off, last_off, d->d_reclen);
				break;
			}
			last_off = d->d_off;
			at += d->d_reclen;
		}
	}
	if (n < 0 && bad++ == 0)
		kprintf("    # lister %u: getdents gave %ld\n", id, n);
	for (unsigned i = 0; i < STABLE; i++)
		if (seen[i] != 1 && bad++ == 0)
			kprintf("    # lister %u: s%02u seen %u times\n", id, i, seen[i]);
	return bad;
}

static int lister(void *p)
{
	struct dir_racer *me = p;
	struct dir_race *r = me->r;
	struct prng rng;
	prng_seed(&rng, r->seed + me->id);
	random_delay(&rng);
	int fd = sys_open("d", O_RDONLY | O_DIRECTORY, 0);
	unsigned lists = 0, bad = fd < 0;
	while (fd >= 0 && (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) || lists < 4)) {
		bad += list_once(fd, me->id);
		lists++;
	}
	if (fd >= 0)
		sys_close(fd);
	__atomic_fetch_add(&r->lists, lists, __ATOMIC_RELAXED);
	__atomic_fetch_add(&r->bad, bad, __ATOMIC_RELAXED);
	return 0;
}

/* Empty d of everything but the stable names. */
static void remove_churned(void)
{
	char path[32];
	for (unsigned id = 0; id < CHURNERS; id++)
		for (unsigned i = 0; i < CHURN_OPS; i++) {
			snprintf(path, sizeof(path), "d/r%u_%u", id, i);
			sys_unlink(path);
		}
}

static void getdents_races_changes(void)
{
	if (ncpus < 2)
		ktest_skip("a race needs two CPUs");
	struct sandbox s;
	sandbox_enter(&s, "dentsrace");
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	char path[16];
	for (unsigned i = 0; i < STABLE; i++) {
		snprintf(path, sizeof(path), "d/s%02u", i);
		int fd = sys_open(path, O_CREAT | O_WRONLY, 0644);
		ASSERT_GE(fd, 0);
		sys_close(fd);
	}
	struct dir_race r = { 0 };
	bool jitter = race_jitter_on(ktest_seed());
	unsigned rounds = ktest_stress(1);
	for (unsigned round = 0; round < rounds; round++) {
		r.done = false;
		r.seed = ktest_seed() + round * 256;
		struct dir_racer c[CHURNERS], l[READERS];
		for (unsigned i = 0; i < CHURNERS; i++) {
			c[i] = (struct dir_racer){ &r, i, NULL };
			c[i].t = thread_create("dentsrace-c", churner, &c[i], 0);
			ASSERT_NOT_NULL(c[i].t);
		}
		for (unsigned i = 0; i < READERS; i++) {
			l[i] = (struct dir_racer){ &r, i, NULL };
			l[i].t = thread_create("dentsrace-l", lister, &l[i], reader_cpu(i));
			ASSERT_NOT_NULL(l[i].t);
		}
		for (unsigned i = 0; i < CHURNERS; i++)
			thread_join(c[i].t);
		__atomic_store_n(&r.done, true, __ATOMIC_RELEASE);
		for (unsigned i = 0; i < READERS; i++)
			thread_join(l[i].t);
		remove_churned();
	}
	if (jitter)
		race_jitter_off();
	kprintf("    # %u listings, %u rounds\n", r.lists, rounds);
	EXPECT_EQ(r.bad, 0u);
	EXPECT_GE(r.lists, rounds * READERS * 4);
	for (unsigned i = 0; i < STABLE; i++) {
		snprintf(path, sizeof(path), "d/s%02u", i);
		EXPECT_EQ(sys_unlink(path), 0);
	}
	EXPECT_EQ(sys_rmdir("d"), 0);
	sandbox_leave(&s);
}

/* ---- a directory removed while it is listed ------------------------- */

struct rmdir_race {
	bool removed;                   /* atomic: rmdir has returned */
	uint64_t seed;
	unsigned enoent, bad;           /* atomics */
};

struct rmdir_racer {
	struct rmdir_race *r;
	unsigned id;
	int fd;
	struct thread *t;
};

/* Lists e over and over: ". .." while it lives, ENOENT once rmdir has
 * returned (a call that starts after that must not list it). */
static int removed_lister(void *p)
{
	struct rmdir_racer *me = p;
	struct rmdir_race *r = me->r;
	struct prng rng;
	prng_seed(&rng, r->seed + me->id);
	random_delay(&rng);
	char buf[LIST_BUF];
	for (;;) {	/* ends at the first call that starts after the rmdir, if not before */
		bool after = __atomic_load_n(&r->removed, __ATOMIC_ACQUIRE);
		sys_lseek(me->fd, 0, SEEK_SET);
		long n = sys_getdents(me->fd, buf, sizeof(buf));
		if (n == -ENOENT) {
			__atomic_fetch_add(&r->enoent, 1, __ATOMIC_RELAXED);
			return 0;
		}
		if (n != 48 || after) {	/* "." and "..", 24 bytes each */
			__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
			kprintf("    # lister %u: getdents gave %ld%s\n", me->id, n,
				after ? " after the rmdir returned" : "");
			return 0;
		}
		yield();	/* the rmdir may want this CPU */
	}
}

static void getdents_of_removed_dir(void)
{
	struct sandbox s;
	sandbox_enter(&s, "rmdirrace");
	struct rmdir_race r = { 0 };
	bool jitter = race_jitter_on(ktest_seed());
	unsigned rounds = ktest_stress(8);
	for (unsigned round = 0; round < rounds; round++) {
		r.removed = false;
		r.seed = ktest_seed() + round * 16;
		ASSERT_EQ(sys_mkdir("e", 0755), 0);
		struct rmdir_racer l[READERS];
		for (unsigned i = 0; i < READERS; i++) {
			l[i] = (struct rmdir_racer){ &r, i, sys_open("e", O_RDONLY | O_DIRECTORY, 0), NULL };
			ASSERT_GE(l[i].fd, 0);
			l[i].t = thread_create("rmdirrace", removed_lister, &l[i], THREAD_ANY_CPU);
			ASSERT_NOT_NULL(l[i].t);
		}
		struct prng rng;
		prng_seed(&rng, r.seed + 99);
		random_delay(&rng);
		EXPECT_EQ(sys_rmdir("e"), 0);
		__atomic_store_n(&r.removed, true, __ATOMIC_RELEASE);
		for (unsigned i = 0; i < READERS; i++) {
			thread_join(l[i].t);
			sys_close(l[i].fd);
		}
	}
	if (jitter)
		race_jitter_off();
	EXPECT_EQ(r.bad, 0u);
	EXPECT_EQ(r.enoent, rounds * READERS);
	sandbox_leave(&s);
}

static const struct ktest_case read_race_cases[] = {
	KTEST_CASE(reads_race_truncate_and_write),
	KTEST_CASE(getdents_races_changes),
	KTEST_CASE(getdents_of_removed_dir),
};
KTEST_SUITE(read_races, read_race_cases);
