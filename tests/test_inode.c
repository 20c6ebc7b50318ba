/*
 * test_inode.c: the inode cache's I_NEW contract.
 *
 * Threads look up one inode number at random moments (seeded); whoever
 * gets it new fills it in slowly (race windows, yields between the
 * fields) and publishes it with unlock_new_inode.  Every other finder
 * must get it only once filled in, never half-made; and when the creator
 * gives up (iget_failed), the finders that waited look again and one of
 * them becomes the creator.
 */
#include "fs/fs.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "kernel/thread.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

#define FINDERS 4
#define MAGIC_SIZE 4242u

struct inew {
	struct super_block *sb;
	uint64_t ino;
	uint64_t seed;
	bool fail_first;            /* the first creator gives up */
	unsigned inits, fails, half_made, got;
	unsigned gave_up;           /* 1 once a creator has called iget_failed */
	unsigned claimed;           /* 1 while a creator fills the inode in */
};

struct finder_arg {
	struct inew *w;
	unsigned id;
};

/* Fill the inode in field by field, slowly, as a filesystem reading it
 * from a disk would. */
static void slow_fill(struct inode *inode, struct prng *p)
{
	inode->i_mode = S_IFREG | 0600;
	/* Until a finder waits for I_NEW (bounded): on a loaded host the
	 * finders' vCPUs may run one after another, and then no round
	 * entered the window (0 waits in 40 rounds, UEFI -smp 8 in a
	 * make test). */
	uint64_t waits = icache_new_waits();
	for (unsigned n = 0; n < 2000 && icache_new_waits() == waits; n++)
		yield();
	race_window();
	for (unsigned i = prng_below(p, 4); i; i--)
		yield();
	inode->i_nlink = 3;
	race_window();
	inode->i_size = MAGIC_SIZE;
}

static int finder(void *a)
{
	struct finder_arg *fa = a;
	struct inew *w = fa->w;
	struct prng p;
	prng_seed(&p, w->seed + fa->id);
	for (unsigned i = prng_below(&p, 3); i; i--)
		yield();
	for (unsigned i = prng_below(&p, 20000); i; i--)
		cpu_relax();
	struct inode *inode = iget_locked(w->sb, w->ino);
	if (!inode)
		return -1;
	bool is_new = __atomic_load_n(&inode->i_state, __ATOMIC_ACQUIRE) & I_NEW;
	if (is_new && __atomic_exchange_n(&w->claimed, 1, __ATOMIC_ACQ_REL)) {
		/* I_NEW, but another thread is filling it in: we were handed
		 * its half-made inode (possible only if finders do not wait). */
		__atomic_fetch_add(&w->half_made, 1, __ATOMIC_RELAXED);
	} else if (is_new) {
		slow_fill(inode, &p);
		if (w->fail_first && !__atomic_exchange_n(&w->gave_up, 1, __ATOMIC_ACQ_REL)) {
			__atomic_fetch_add(&w->fails, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&w->claimed, 0, __ATOMIC_RELEASE);
			iget_failed(inode);	/* as a filesystem whose read failed */
			return 0;
		}
		__atomic_fetch_add(&w->inits, 1, __ATOMIC_RELAXED);
		unlock_new_inode(inode);
		__atomic_store_n(&w->claimed, 0, __ATOMIC_RELEASE);	/* (the shrinker may free it: a later creator) */
	} else if (inode->i_size != MAGIC_SIZE || inode->i_nlink != 3 ||
		   (__atomic_load_n(&inode->i_state, __ATOMIC_ACQUIRE) & I_NEW)) {
		__atomic_fetch_add(&w->half_made, 1, __ATOMIC_RELAXED);
	}
	__atomic_fetch_add(&w->got, 1, __ATOMIC_RELAXED);
	iput(inode);
	return 0;
}

static void run_rounds(bool fail_first)
{
	struct super_block *sb = kzalloc(sizeof(*sb));
	ASSERT_NOT_NULL(sb);
	sb_init(sb, NULL, NULL);
	bool jitter = race_jitter_on(ktest_seed());
	uint64_t waits0 = icache_new_waits();
	unsigned rounds = 40, half_made = 0, bad_inits = 0, bad_fails = 0, bad_got = 0;
	static struct inew w;
	static struct finder_arg args[FINDERS];
	for (unsigned r = 0; r < rounds; r++) {
		w = (struct inew){ .sb = sb, .ino = 100 + r, .seed = ktest_seed() * 7 + r * 131,
				   .fail_first = fail_first };
		struct thread *t[FINDERS];
		for (unsigned i = 0; i < FINDERS; i++) {
			args[i] = (struct finder_arg){ &w, i };
			t[i] = thread_create("finder", finder, &args[i], (int)((r + i) % ncpus));
			ASSERT_NOT_NULL(t[i]);
		}
		for (unsigned i = 0; i < FINDERS; i++)
			thread_join(t[i]);
		half_made += w.half_made;
		/* One creator filled it in (a second only if the shrinker freed
		 * it in between, which it may: it is unused once its finder is
		 * done); every finder but the one that gave up got it. */
		bad_inits += w.inits < 1;
		bad_fails += w.fails != (fail_first ? 1u : 0u);
		bad_got += w.got != FINDERS - w.fails;
	}
	if (jitter)
		race_jitter_off();
	uint64_t waits = icache_new_waits() - waits0;
	kprintf("    # %u rounds of %u finders: %lu waits for I_NEW, %u saw a half-made inode\n",
		rounds, FINDERS, waits, half_made);
	EXPECT_EQ(half_made, 0u);
	EXPECT_EQ(bad_inits, 0u);
	EXPECT_EQ(bad_fails, 0u);
	EXPECT_EQ(bad_got, 0u);
	EXPECT_GT(waits, 0u);	/* the window was entered */
	icache_evict_sb(sb);
	kfree(sb);
}

static void finders_wait_for_i_new(void)
{
	run_rounds(false);
}

static void finders_retry_after_iget_failed(void)
{
	run_rounds(true);
}

static const struct ktest_case inode_cases[] = {
	KTEST_CASE(finders_wait_for_i_new),
	KTEST_CASE(finders_retry_after_iget_failed),
};
KTEST_SUITE(inode, inode_cases);
