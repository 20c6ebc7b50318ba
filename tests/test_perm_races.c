/*
 * test_perm_races.c: permission checks racing the changes they read.
 *
 * may_lookup reads a directory's mode and owner with no lock, and a
 * thread's credentials with no lock (fs/permission.h, kernel/cred.h), so
 * these cases check what that must still guarantee: a walk racing a chmod
 * sees the old mode or the new one, never a mixture or a transient value;
 * and a credential change on one thread never shows in another thread
 * that shared the old credentials; and a walk racing a chown sees the old
 * owner and group or the new ones, never one of each.  Each round's threads start after
 * random delays from the case's seed, with the race windows jittered.
 */
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/cred.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "kernel/thread.h"
#include "tests/sandbox.h"

#define ROUNDS 3
#define ITERS 60
#define WALKERS 3

struct racer {
	int (*op)(struct racer *r);
	unsigned delay, seed;
	unsigned bad;                  /* results no order of the calls explains */
	struct thread *t;
};

static int racer_main(void *p)
{
	struct racer *r = p;
	for (unsigned i = 0; i < r->delay; i++)
		__builtin_ia32_pause();
	r->op(r);
	return 0;
}

static void start(struct racer *r, struct prng *rng)
{
	r->delay = (unsigned)prng_below(rng, 20000);
	r->seed = (unsigned)prng_below(rng, 1u << 30);
	r->t = thread_create("permrace", racer_main, r, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(r->t);
}

/* One round: WALKERS threads running `walker` and one running `changer`,
 * each starting at its own random moment; their bad results, summed. */
static unsigned race_round(int (*walker)(struct racer *), int (*changer)(struct racer *),
			   struct prng *rng)
{
	struct racer w[WALKERS], c = { .op = changer };
	for (unsigned i = 0; i < WALKERS; i++) {
		w[i] = (struct racer){ .op = walker };
		start(&w[i], rng);
	}
	start(&c, rng);
	unsigned bad = 0;
	for (unsigned i = 0; i < WALKERS; i++) {
		thread_join(w[i].t);
		bad += w[i].bad;
	}
	thread_join(c.t);
	return bad + c.bad;
}

/* The calling thread becomes uid `uid` and gid `gid` (no other groups). */
static void become_ids(uint32_t uid, uint32_t gid)
{
	struct cred *new = prepare_creds();
	ASSERT_NOT_NULL(new);
	new->uid = uid;
	new->gid = gid;
	new->ngroups = 0;
	commit_creds(new);
}

static void become(uint32_t id)
{
	become_ids(id, id);
}

/* ---- chmod of a directory racing walks through it ------------------- */

/* Every mode here lets "other" search d: a walk that fails saw something
 * that was never d's mode. */
static const uint32_t searchable[] = { 0701, 0711, 0755, 0705, 0301, 0103, 0001, 0777 };

static int op_walker(struct racer *r)
{
	become(65534);
	for (unsigned i = 0; i < ITERS; i++) {
		struct kstat st;
		if (sys_stat("d/f", &st) != 0)
			r->bad++;
		if (i % 16 == 0)
			yield();
	}
	return 0;
}

static int op_chmod(struct racer *r)
{
	for (unsigned i = 0; i < ITERS; i++)
		if (sys_chmod("d", searchable[(r->seed + i) % 8]) != 0)
			r->bad++;
	return 0;
}

/* The tree both cases race over: a directory d of the given mode (chmod'ed
 * too: mkdir's mode passes the umask) holding a file f. */
static void make_d_f(uint32_t mode)
{
	ASSERT_EQ(sys_mkdir("d", mode), 0);
	ASSERT_EQ(sys_chmod("d", mode), 0);
	int fd = sys_open("d/f", O_CREAT | O_WRONLY, 0644);
	ASSERT_GE(fd, 0);
	sys_close(fd);
}

/* A case over d/f (d of mode `mode`, owned by uid and gid): rounds of
 * race_round(walker, changer), race windows on; no bad results. */
static void d_f_rounds(const char *box, uint32_t mode, uint32_t uid, uint32_t gid, unsigned rounds,
		       int (*walker)(struct racer *), int (*changer)(struct racer *))
{
	struct sandbox s;
	sandbox_enter(&s, box);
	struct prng rng;
	prng_seed(&rng, ktest_seed());
	make_d_f(mode);
	ASSERT_EQ(sys_chown("d", uid, gid), 0);
	bool jitter = race_jitter_on(ktest_seed());
	unsigned bad = 0;
	for (unsigned round = 0; round < rounds; round++)
		bad += race_round(walker, changer, &rng);
	if (jitter)
		race_jitter_off();
	EXPECT_EQ(bad, 0u);
	EXPECT_EQ(sys_unlink("d/f"), 0);
	EXPECT_EQ(sys_rmdir("d"), 0);
	sandbox_leave(&s);
}

static void chmod_races_walks(void)
{
	d_f_rounds("permchmod", 0755, 0, 0, ROUNDS, op_walker, op_chmod);
}

/* ---- chown of a directory racing walks through it ---------------------
 *
 * Issue 24, item 2.4.  d is mode 0010 (only its group may search it) and
 * changes hands between (owner 1, group 10) and (owner 2, group 20).  The
 * walkers are uid 2 in group 20: under the first pair they are "other"
 * (nothing), under the second the owner (nothing): neither state lets them
 * through.  Only a mixture does: the old owner with the new group (1, 20)
 * makes them "group", which may search.  So every walk must be EACCES;
 * one that finds d/f read a pair that d never had.
 */
static int op_other_walker(struct racer *r)
{
	become_ids(2, 20);
	for (unsigned i = 0; i < ITERS; i++) {
		struct kstat st;
		int err = sys_stat("d/f", &st);
		if (err != -EACCES && r->bad++ < 3)
			kprintf("    # uid 2 (group 20): stat d/f gave %d\n", err);
	}
	return 0;
}

static int op_chown(struct racer *r)
{
	for (unsigned i = 0; i < ITERS; i++) {
		uint32_t id = (r->seed + i) % 2 ? 1 : 2;
		if (sys_chown("d", id, 10 * id) != 0)
			r->bad++;
	}
	return 0;
}

static void chown_races_walks(void)
{
	d_f_rounds("permchown", 0010, 1, 10, ROUNDS * ktest_stress(1), op_other_walker, op_chown);
}

/* ---- credential changes on one thread while others walk --------------- */

/* d is root's, 0700: the shared credentials (uid 65534) are refused. */
static int op_refused_walker(struct racer *r)
{
	for (unsigned i = 0; i < ITERS; i++) {
		struct kstat st;
		if (sys_stat("d/f", &st) != -EACCES)
			r->bad++;
		if (i % 16 == 0)
			yield();
	}
	return 0;
}

/* Shares the walkers' credentials, then swaps its own between root and
 * not: its walks follow its own changes, and nobody else's change. */
static int op_changer(struct racer *r)
{
	for (unsigned i = 0; i < ITERS; i++) {
		bool root = (r->seed + i) % 2;
		become(root ? 0 : 65533);
		struct kstat st;
		if (sys_stat("d/f", &st) != (root ? 0 : -EACCES))
			r->bad++;
	}
	return 0;
}

static void cred_changes_race_walks(void)
{
	struct sandbox s;
	sandbox_enter(&s, "permcred");
	struct prng rng;
	prng_seed(&rng, ktest_seed());
	make_d_f(0700);
	bool jitter = race_jitter_on(ktest_seed());
	unsigned bad = 0;
	for (unsigned round = 0; round < ROUNDS; round++) {
		/* The threads start with this thread's credentials: one object,
		 * shared by all of them. */
		struct cred *shared = prepare_creds();
		ASSERT_NOT_NULL(shared);
		shared->uid = shared->gid = 65534;
		const struct cred *mine = override_creds(shared);
		bad += race_round(op_refused_walker, op_changer, &rng);
		EXPECT_EQ(current_cred()->uid, 65534u);	/* the object never changed */
		revert_creds(mine);
	}
	if (jitter)
		race_jitter_off();
	EXPECT_EQ(bad, 0u);
	EXPECT_EQ(sys_unlink("d/f"), 0);
	EXPECT_EQ(sys_rmdir("d"), 0);
	sandbox_leave(&s);
}

static const struct ktest_case perm_race_cases[] = {
	KTEST_CASE(chmod_races_walks),
	KTEST_CASE(cred_changes_race_walks),
	KTEST_CASE(chown_races_walks),
};
KTEST_SUITE(perm_races, perm_race_cases);
