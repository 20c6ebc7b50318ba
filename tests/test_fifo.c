/*
 * test_fifo.c: FIFOs with real concurrency (fs/pipe.c).
 *
 *  - open_rendezvous: a reader and a writer on different CPUs open the
 *    same FIFO, in either order; the first waits for the second, neither
 *    returns before the other has started its open.
 *  - killed_waiters: a thread asleep in a FIFO's open, read or write is
 *    killed: it returns -EINTR (a write that moved bytes, their count),
 *    counts itself out, and the FIFO works on.
 *  - eof_and_epipe: end of file once the last writer goes, -EPIPE once the
 *    last reader goes, -EAGAIN for O_NONBLOCK, data thrown away at the
 *    last close.
 *  - mknod_types_and_dtype: mknod's rules fstest cannot express, bind's
 *    own, and readdir's d_type for every type.
 *  - pipe_buf_atomic: writers on every CPU write tagged records of up to
 *    PIPE_BUF bytes while one reader reads in random-sized pieces; every
 *    record must arrive whole (no other writer's bytes inside it) and each
 *    writer's records in order.
 *  - anonymous_pipes_freed: pipe2's pipes, opened and closed, give back all
 *    they took (the anonymous inodes had no evict, so each pipe's
 *    pipe_inode_info stayed: found by the ring-3 fuzzer, tests/user/ufuzz.c).
 *
 * Each was seen to fail with its bug put back (the commit messages say
 * how): writes not atomic, no mutex in pipe_write, a reader's open that
 * does not wait.
 */
#include "fs/anon_inode.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/pipe.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/rcu.h"
#include "kernel/slab.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "arch/x86_64/percpu.h"
#include "tests/sandbox.h"

/* The FIFO's pipe, to watch its counts (NULL before its first open). */
static struct pipe_inode_info *pipe_of(const char *path)
{
	struct dentry *d = path_lookup(path, 0);
	if (IS_ERR(d))
		return NULL;
	struct pipe_inode_info *p = __atomic_load_n(&d->d_inode->i_pipe, __ATOMIC_ACQUIRE);
	dput(d);
	return p;
}

static unsigned load(const unsigned *x)
{
	return __atomic_load_n(x, __ATOMIC_ACQUIRE);
}

/* A thread that makes one call on the FIFO "p". */
enum op { OPEN_RD, OPEN_WR, READ, WRITE };
struct call {
	enum op op;
	int fd;                   /* READ, WRITE: the descriptor */
	size_t n;                 /* READ, WRITE: how many bytes */
	char *buf;
	int *other_started;       /* OPEN_*: the other side's flag, read when we return */
	int started;              /* set just before our call */
	int saw_other;            /* the other side had started when our open returned */
	long result;
	int done;
};

static int call_main(void *arg)
{
	struct call *c = arg;
	__atomic_store_n(&c->started, 1, __ATOMIC_SEQ_CST);
	switch (c->op) {
	case OPEN_RD:
		c->result = sys_open("p", O_RDONLY, 0);
		break;
	case OPEN_WR:
		c->result = sys_open("p", O_WRONLY, 0);
		break;
	case READ:
		c->result = sys_read(c->fd, c->buf, c->n);
		break;
	case WRITE:
		c->result = sys_write(c->fd, c->buf, c->n);
		break;
	}
	if (c->other_started)
		c->saw_other = __atomic_load_n(c->other_started, __ATOMIC_SEQ_CST);
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Wait until t sleeps killably (in a FIFO wait), or is done. */
static void wait_asleep(struct thread *t, struct call *c)
{
	while (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != THREAD_KILLABLE &&
	       !__atomic_load_n(&c->done, __ATOMIC_ACQUIRE))
		yield();
}

static void open_rendezvous(void)
{
	struct sandbox s;
	sandbox_enter(&s, "fifo-open");
	ASSERT_EQ(sys_mkfifo("p", 0644), 0);
	unsigned cpus = ncpus, early = 0, failed = 0, slept = 0;
	const unsigned rounds = 40;
	for (unsigned i = 0; i < rounds; i++) {
		struct call rd = { .op = OPEN_RD }, wr = { .op = OPEN_WR };
		rd.other_started = &wr.started;
		wr.other_started = &rd.started;
		struct call *first = i % 2 ? &wr : &rd, *second = i % 2 ? &rd : &wr;
		struct thread *t1 = thread_create("fifo1", call_main, first, (int)(i % cpus));
		ASSERT_NOT_NULL(t1);
		/* Every few rounds, let the first one fall asleep before the
		 * second starts; otherwise they race. */
		if (i % 4 < 2) {
			wait_asleep(t1, first);
			slept += !__atomic_load_n(&first->done, __ATOMIC_ACQUIRE);
		}
		struct thread *t2 = thread_create("fifo2", call_main, second, (int)((i + 1) % cpus));
		ASSERT_NOT_NULL(t2);
		thread_join(t1);
		thread_join(t2);
		failed += rd.result < 0 || wr.result < 0;
		early += !rd.saw_other || !wr.saw_other;
		if (rd.result >= 0)
			sys_close((int)rd.result);
		if (wr.result >= 0)
			sys_close((int)wr.result);
	}
	EXPECT_EQ(failed, 0u);
	if (!EXPECT_EQ(early, 0u))
		kprintf("    # %u of %u opens returned before the other side had started\n", early, rounds);
	EXPECT_EQ(slept, rounds / 2);	/* the first side did wait, alone */
	struct pipe_inode_info *p = pipe_of("p");
	ASSERT_NOT_NULL(p);
	EXPECT_EQ(load(&p->readers) + load(&p->writers), 0u);
	EXPECT_NULL(p->buf);	/* thrown away at the last close */
	sandbox_leave(&s);
}

/* Start c on the FIFO, wait until it sleeps, kill it, join it. */
static long kill_while_waiting(struct call *c)
{
	struct thread *t = thread_create("fifokill", call_main, c, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	wait_asleep(t, c);
	int was_done = __atomic_load_n(&c->done, __ATOMIC_ACQUIRE);
	thread_kill(t);
	thread_join(t);
	EXPECT_FALSE(was_done);	/* it did wait */
	return c->result;
}

static void killed_waiters(void)
{
	struct sandbox s;
	sandbox_enter(&s, "fifo-kill");
	ASSERT_EQ(sys_mkfifo("p", 0644), 0);
	/* In open, each side: -EINTR, and it is not counted any more. */
	struct call rd = { .op = OPEN_RD }, wr = { .op = OPEN_WR };
	EXPECT_EQ(kill_while_waiting(&rd), -EINTR);
	EXPECT_EQ(sys_open("p", O_WRONLY | O_NONBLOCK, 0), -ENXIO);	/* no reader left */
	EXPECT_EQ(kill_while_waiting(&wr), -EINTR);
	struct pipe_inode_info *p = pipe_of("p");
	ASSERT_NOT_NULL(p);
	EXPECT_EQ(load(&p->readers) + load(&p->writers), 0u);
	/* In read (a writer is there, nothing written). */
	int r = sys_open("p", O_RDWR, 0);
	ASSERT_GE(r, 0);
	char buf[PIPE_SIZE + 16];
	struct call rcall = { .op = READ, .fd = r, .n = 10, .buf = buf };
	EXPECT_EQ(kill_while_waiting(&rcall), -EINTR);
	/* In write: the pipe full, an atomic write waits for all its room;
	 * a long one moves what fits and reports that when killed. */
	memset(buf, 'x', sizeof(buf));
	EXPECT_EQ(sys_write(r, buf, PIPE_SIZE - 10), (long)(PIPE_SIZE - 10));
	struct call wcall = { .op = WRITE, .fd = r, .n = 100, .buf = buf };
	EXPECT_EQ(kill_while_waiting(&wcall), -EINTR);
	struct call lcall = { .op = WRITE, .fd = r, .n = PIPE_BUF + 16, .buf = buf };
	EXPECT_EQ(kill_while_waiting(&lcall), 10);
	/* Still works: the bytes are all there. */
	long got = 0, k;
	while (got < PIPE_SIZE && (k = sys_read(r, buf, sizeof(buf))) > 0)
		got += k;
	EXPECT_EQ(got, (long)PIPE_SIZE);
	EXPECT_EQ(sys_close(r), 0);
	EXPECT_EQ(load(&p->readers) + load(&p->writers), 0u);
	sandbox_leave(&s);
}

static void eof_and_epipe(void)
{
	struct sandbox s;
	sandbox_enter(&s, "fifo-eof");
	ASSERT_EQ(sys_mkfifo("p", 0644), 0);
	int r = sys_open("p", O_RDONLY | O_NONBLOCK, 0);
	ASSERT_GE(r, 0);
	char buf[64];
	EXPECT_EQ(sys_read(r, buf, sizeof(buf)), 0);	/* no writer: end of file */
	int w = sys_open("p", O_WRONLY, 0);	/* a reader is there: no wait */
	ASSERT_GE(w, 0);
	EXPECT_EQ(sys_read(r, buf, sizeof(buf)), -EAGAIN);	/* a writer, no data */
	EXPECT_EQ(sys_utimens("p", 1000000000, 1000000000, 0), 0);
	EXPECT_EQ(sys_write(w, "abc", 3), 3);
	struct kstat st;
	EXPECT_EQ(sys_stat("p", &st), 0);
	EXPECT_GT(st.mtime_ns, 1000000000);	/* a write is a change, as on Linux */
	EXPECT_GT(st.ctime_ns, 1000000000);
	EXPECT_EQ(sys_write(w, "de", 2), 2);
	EXPECT_EQ(sys_read(r, buf, 4), 4);
	EXPECT_EQ(memcmp(buf, "abcd", 4), 0);
	EXPECT_EQ(sys_fstat(w, &st), 0);
	EXPECT_EQ(st.size, 0);
	EXPECT_EQ(st.mode & S_IFMT, (uint32_t)S_IFIFO);
	EXPECT_EQ(sys_lseek(r, 0, SEEK_SET), -ESPIPE);
	EXPECT_EQ(sys_close(w), 0);
	EXPECT_EQ(sys_read(r, buf, sizeof(buf)), 1);	/* what is left, then end of file */
	EXPECT_EQ(sys_read(r, buf, sizeof(buf)), 0);
	EXPECT_EQ(sys_read(w, buf, 1), -EBADF);
	w = sys_open("p", O_WRONLY | O_NONBLOCK, 0);
	ASSERT_GE(w, 0);
	EXPECT_EQ(sys_read(w, buf, 1), -EBADF);
	EXPECT_EQ(sys_write(r, "x", 1), -EBADF);
	/* A full pipe: O_NONBLOCK writes of up to PIPE_BUF go in whole or not at all. */
	char *big = kmalloc(PIPE_SIZE);
	ASSERT_NOT_NULL(big);
	memset(big, 'y', PIPE_SIZE);
	EXPECT_EQ(sys_write(w, big, PIPE_SIZE - 5), (long)(PIPE_SIZE - 5));
	EXPECT_EQ(sys_write(w, big, 6), -EAGAIN);
	EXPECT_EQ(sys_write(w, big, 5), 5);
	EXPECT_EQ(sys_write(w, big, 1), -EAGAIN);
	EXPECT_EQ(sys_close(r), 0);
	EXPECT_EQ(sys_write(w, "x", 1), -EPIPE);	/* no reader: and no SIGPIPE */
	EXPECT_EQ(sys_write(w, "", 0), 0);
	EXPECT_EQ(sys_close(w), 0);
	/* The last close threw the data away. */
	r = sys_open("p", O_RDWR, 0);
	ASSERT_GE(r, 0);
	EXPECT_EQ(sys_fstat(r, &st), 0);
	int nb = sys_open("p", O_RDONLY | O_NONBLOCK, 0);
	ASSERT_GE(nb, 0);
	EXPECT_EQ(sys_read(nb, buf, sizeof(buf)), -EAGAIN);
	EXPECT_EQ(sys_close(nb), 0);
	EXPECT_EQ(sys_close(r), 0);
	kfree(big);
	sandbox_leave(&s);
}

/* mknod's rules fstest cannot reach (its types are pjdfstest's c, b, f,
 * d, o), and readdir's d_type for every type. */
static void mknod_types_and_dtype(void)
{
	struct sandbox s;
	sandbox_enter(&s, "fifo-types");
	EXPECT_EQ(sys_mknod("bad", 0170644, 0), -EINVAL);	/* no such type */
	EXPECT_EQ(sys_mknod("bad", S_IFDIR | 0755, 0), -EPERM);
	EXPECT_EQ(sys_mknod("bad", S_IFCHR | 0644, 1ULL << 32), -EINVAL);	/* glibc's 32 bits */
	struct kstat st;
	EXPECT_EQ(sys_lstat("bad", &st), -ENOENT);
	EXPECT_EQ(sys_mknod("reg", 0644, 0), 0);	/* type 0: a regular file */
	EXPECT_EQ(sys_mknod("sock", S_IFSOCK | 0644, makedev(1, 2)), 0);
	EXPECT_EQ(sys_lstat("sock", &st), 0);
	EXPECT_EQ(st.mode & S_IFMT, (uint32_t)S_IFSOCK);
	EXPECT_EQ(st.rdev, 0u);	/* only devices keep a number */
	EXPECT_EQ(sys_mknod("chr", S_IFCHR | 0644, makedev(4095, 1048575)), 0);
	EXPECT_EQ(sys_lstat("chr", &st), 0);
	EXPECT_EQ(major(st.rdev), 4095u);
	EXPECT_EQ(minor(st.rdev), 1048575u);
	EXPECT_EQ(sys_mknod("blk", S_IFBLK | 0644, makedev(8, 0)), 0);
	EXPECT_EQ(sys_mkfifo("fifo", 0644), 0);
	EXPECT_EQ(sys_mkdir("dir", 0755), 0);
	EXPECT_EQ(sys_symlink("reg", "lnk"), 0);
	int fd = sys_socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_bind(fd, "bound"), 0);
	EXPECT_EQ(sys_bind(fd, "again"), -EINVAL);	/* bound already: no second name */
	EXPECT_EQ(sys_lstat("again", &st), -ENOENT);
	EXPECT_EQ(sys_fstat(fd, &st), 0);
	EXPECT_EQ(st.mode & S_IFMT, (uint32_t)S_IFSOCK);
	EXPECT_EQ(sys_close(fd), 0);
	fd = sys_open("reg", O_RDONLY, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_bind(fd, "x"), -ENOTSOCK);
	EXPECT_EQ(sys_close(fd), 0);
	EXPECT_EQ(sys_socket(2, SOCK_STREAM, 0), -EAFNOSUPPORT);
	static const struct { const char *name; unsigned type; } want[] = {
		{ "reg", DT_REG }, { "sock", DT_SOCK }, { "chr", DT_CHR }, { "blk", DT_BLK },
		{ "fifo", DT_FIFO }, { "dir", DT_DIR }, { "lnk", DT_LNK }, { "bound", DT_SOCK },
	};
	char buf[1024];
	fd = sys_open(".", O_RDONLY | O_DIRECTORY, 0);
	ASSERT_GE(fd, 0);
	long n = sys_getdents(fd, buf, sizeof(buf));
	unsigned found = 0;
	for (long off = 0; off < n;) {
		struct linux_dirent64 *e = (struct linux_dirent64 *)(buf + off);
		for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			if (strcmp(e->d_name, want[i].name) == 0) {
				found++;
				if (!EXPECT_EQ(e->d_type, want[i].type))
					kprintf("    # %s\n", e->d_name);
			}
		off += e->d_reclen;
	}
	EXPECT_EQ(sys_close(fd), 0);
	EXPECT_EQ(found, (unsigned)(sizeof(want) / sizeof(want[0])));
	sandbox_leave(&s);
}

/* ---- PIPE_BUF atomicity ----------------------------------------------- */

#define NWRITERS_MAX 4
#define RECORDS      30          /* per writer */
#define HDR          8           /* 'R', writer, seq (2 bytes), len (4 bytes) */

struct writer {
	int fd;
	unsigned id;
	uint64_t seed;
	long failures;
};

static int writer_main(void *arg)
{
	struct writer *w = arg;
	struct prng rng;
	prng_seed(&rng, w->seed);
	char *rec = kmalloc(PIPE_BUF);
	if (!rec) {
		w->failures++;
		return 0;
	}
	for (unsigned seq = 0; seq < RECORDS; seq++) {
		uint32_t len = HDR + (uint32_t)prng_below(&rng, PIPE_BUF - HDR + 1);
		rec[0] = 'R';
		rec[1] = (char)w->id;
		rec[2] = (char)(seq & 0xff);
		rec[3] = (char)(seq >> 8);
		memcpy(rec + 4, &len, 4);
		memset(rec + HDR, 'a' + (int)w->id, len - HDR);
		if (sys_write(w->fd, rec, len) != (long)len)
			w->failures++;
	}
	kfree(rec);
	return 0;
}

struct reader {
	int fd;
	uint64_t seed;
	unsigned nwriters;
	unsigned records, split, bad_order, bad_header;
};

/* Read the stream in random pieces and check it record by record. */
static int reader_main(void *arg)
{
	struct reader *r = arg;
	struct prng rng;
	prng_seed(&rng, r->seed);
	char *rec = kmalloc(PIPE_BUF);
	unsigned next[NWRITERS_MAX] = { 0 };
	uint32_t have = 0, want = HDR;
	if (!rec)
		return 0;
	bool lost = false;
	for (;;) {
		size_t piece = 1 + prng_below(&rng, 2 * PIPE_BUF);
		if (piece > want - have)
			piece = want - have;
		long k = sys_read(r->fd, rec + have, piece);
		if (k <= 0)
			break;	/* end of file: every writer is done */
		if (lost)
			continue;	/* drain, so that the writers can finish */
		have += (uint32_t)k;
		if (have < want)
			continue;
		if (want == HDR) {
			uint32_t len;
			memcpy(&len, rec + 4, 4);
			if (rec[0] != 'R' || (unsigned)rec[1] >= r->nwriters || len < HDR || len > PIPE_BUF) {
				r->bad_header++;
				lost = true;	/* no way to find the next record */
				have = 0;
				continue;
			}
			want = len;
			if (have < want)
				continue;
		}
		unsigned id = (unsigned)rec[1];
		unsigned seq = (unsigned char)rec[2] | (unsigned)(unsigned char)rec[3] << 8;
		for (uint32_t i = HDR; i < want; i++)
			if (rec[i] != 'a' + (int)id) {
				r->split++;
				break;
			}
		r->bad_order += seq != next[id];
		next[id] = seq + 1;
		r->records++;
		have = 0;
		want = HDR;
	}
	kfree(rec);
	return 0;
}

static void pipe_buf_atomic(void)
{
	struct sandbox s;
	sandbox_enter(&s, "fifo-atomic");
	ASSERT_EQ(sys_mkfifo("p", 0644), 0);
	unsigned nw = ncpus < 2 ? 2 : ncpus > NWRITERS_MAX ? NWRITERS_MAX : ncpus;
	int rfd = sys_open("p", O_RDONLY | O_NONBLOCK, 0);
	ASSERT_GE(rfd, 0);
	struct writer w[NWRITERS_MAX];
	struct thread *wt[NWRITERS_MAX];
	uint64_t seed = ktest_seed();
	for (unsigned i = 0; i < nw; i++) {
		w[i] = (struct writer){ .fd = sys_open("p", O_WRONLY, 0), .id = i,
					.seed = seed + i + 1 };
		ASSERT_GE(w[i].fd, 0);
	}
	/* The writers' opens did not wait: rfd was a reader.  The reader's
	 * own descriptor blocks (opened while the writers are there). */
	struct reader rd = { .fd = sys_open("p", O_RDONLY, 0), .seed = seed, .nwriters = nw };
	ASSERT_GE(rd.fd, 0);
	EXPECT_EQ(sys_close(rfd), 0);
	race_jitter_on(seed);	/* widen fs/pipe.c's windows */
	struct thread *rt = thread_create("fiforeader", reader_main, &rd, 0);
	ASSERT_NOT_NULL(rt);
	for (unsigned i = 0; i < nw; i++) {
		wt[i] = thread_create("fifowriter", writer_main, &w[i], (int)((i + 1) % ncpus));
		ASSERT_NOT_NULL(wt[i]);
	}
	for (unsigned i = 0; i < nw; i++) {
		thread_join(wt[i]);
		EXPECT_EQ(w[i].failures, 0);
		EXPECT_EQ(sys_close(w[i].fd), 0);	/* the last one ends the reader's stream */
	}
	thread_join(rt);
	race_jitter_off();
	EXPECT_EQ(sys_close(rd.fd), 0);
	if (!EXPECT_EQ(rd.split + rd.bad_header, 0u))
		kprintf("    # %u records split, %u headers lost (seed %llu)\n", rd.split,
			rd.bad_header, (unsigned long long)seed);
	EXPECT_EQ(rd.bad_order, 0u);
	EXPECT_EQ(rd.records, nw * RECORDS);
	sandbox_leave(&s);
}

static void count_live(struct kmem_cache *c, void *arg)
{
	*(uint64_t *)arg += kmem_cache_live(c);
}

static void anonymous_pipes_freed(void)
{
	enum { N = 20 };
	uint64_t before = 0, after = 0;
	rcu_barrier();
	kmem_cache_for_each(count_live, &before);
	for (int i = 0; i < N; i++) {
		struct file *rd, *wr;
		ASSERT_EQ(anon_pipe_files(&rd, &wr, 0), 0);
		fput(rd);
		fput(wr);
	}
	rcu_barrier();
	kmem_cache_for_each(count_live, &after);
	EXPECT_EQ(after, before);
}

static const struct ktest_case fifo_cases[] = {
	KTEST_CASE(mknod_types_and_dtype),
	KTEST_CASE(eof_and_epipe),
	KTEST_CASE(open_rendezvous),
	KTEST_CASE(killed_waiters),
	KTEST_CASE(pipe_buf_atomic),
	KTEST_CASE(anonymous_pipes_freed),
};
KTEST_SUITE(fifo, fifo_cases);
