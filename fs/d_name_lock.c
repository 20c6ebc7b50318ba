/*
 * d_name_lock.c: the per-name lock of parallel directory changes.
 *
 * A filesystem that opts in (FS_PAR_DIROPS) lets changes of different
 * names in one directory run at once: each change holds the directory's
 * i_rwsem shared, not exclusive, and locks only the dentry of the name it
 * changes (DCACHE_PAR_UPDATE, set and cleared under d_lock).  The story
 * of two creates of one name and an rmdir, in directory D:
 *
 *   1. A and B both create D/x.  Each takes D's i_rwsem shared and looks
 *      x up (lookup_one: d_alloc_parallel, so at most one of them asks
 *      the filesystem, and both end with the one hashed negative dentry
 *      of x and a reference on it).
 *   2. A locks x first: under x's d_lock it finds PAR_UPDATE clear, sets
 *      it, and checks that x is still the hashed dentry of (D, "x").  B
 *      finds PAR_UPDATE set and sleeps (killable) until it clears.
 *   3. A creates the file (->create, d_instantiate: x is positive), and
 *      lets go: PAR_UPDATE clears and B wakes.  B's check passes (x is
 *      still hashed there), and B finds x positive: -EEXIST.  Had an
 *      unlink run in between and unhashed x (d_delete of a dentry others
 *      hold), B's check would fail; B lets go and looks x up again.
 *   4. C removes D itself: rmdir takes D's parent shared, locks D's name,
 *      then D's i_rwsem exclusive.  That waits until A and B let go of D
 *      (they hold it shared), so the emptiness check sees what they did,
 *      and a create that comes later finds D dead (IS_DEADDIR: -ENOENT).
 *
 * Why a dentry that stays hashed: the dcache holds one hashed dentry per
 * (parent, name), so locking it locks the name, as long as no change
 * unhashes a dentry before it is done with it (no d_drop first: the
 * parallel protocol's P2 in docs/design/09-dirops-model.md).  A taker
 * that slept re-checks parent and name under d_lock (d_move changes them
 * under it), since the dentry may have been renamed or unhashed meanwhile.
 *
 * Locking: PAR_UPDATE is set by an atomic or whose old value says
 * whether we took it, either under d_lock, in one critical section with
 * the check that the dentry still names (parent, name), or under the
 * dcache bucket lock where the lookup found it (which is that check:
 * d_name_trylock_hashed), and cleared by an atomic and with neither
 * (d_name_unlock says why); readers load it without a lock.  Waiters
 * sleep on one of NAME_WQS shared queues picked by the dentry's address,
 * as in-lookup waiters do (fs/dcache.c), and hold a reference, so the
 * dentry outlives the wait.  The order of the name lock among all locks,
 * and why it cannot deadlock: docs/design/08-lock-order.md and
 * 24-dirops.md.  The
 * validator knows it as the class "d_name_lock" with two subclasses:
 * D_NAME_LOCK_FIRST, and D_NAME_LOCK_SECOND for a rename's second name.
 */
#include "fs/dcache.h"
#include "kernel/errno.h"
#include "kernel/lockdep.h"
#include "kernel/panic.h"
#include "kernel/race.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/trace.h"
#include "kernel/waitqueue.h"

#define NAME_WQS 64

static struct wait_queue_head name_wqs[NAME_WQS];
/* One class for every dentry's name lock (as i_rwsem is one class for
 * every inode): the order is between kinds of locks, not instances.
 * Empty in release builds. */
static struct lockdep_map name_lock_map = LOCKDEP_MAP_INIT("d_name_lock");

/* Waits for the name lock of a dentry, for tests (a name lock taken
 * after a sleep). */
static uint64_t name_lock_waits;

void d_name_lock_init(void)
{
	for (unsigned i = 0; i < NAME_WQS; i++)
		wait_queue_init(&name_wqs[i]);
}

static struct wait_queue_head *name_wq(const struct dentry *d)
{
	return &name_wqs[((uintptr_t)d >> 6) % NAME_WQS];
}

static bool par_update(const struct dentry *d)
{
	return __atomic_load_n(&d->d_flags, __ATOMIC_ACQUIRE) & DCACHE_PAR_UPDATE;
}

/* Is d still the hashed dentry of (parent, q)?  Caller holds d_lock,
 * under which d_move changes d_parent and d_name. */
static bool still_named(const struct dentry *d, const struct dentry *parent, const struct qstr *q)
{
	spin_assert_held(&d->d_lock);
	return !d_unhashed(d) && d->d_parent == parent && d->d_name.len == q->len &&
	       !memcmp(d->d_name.name, q->name, q->len);
}

/* Set PAR_UPDATE if it is clear: whether we did.  Both ways of taking
 * the name (try_lock under d_lock, d_name_trylock_hashed under the
 * bucket lock) come here, and neither lock excludes the other, so the
 * or's old value decides; the load first spares a held bit the atomic. */
static bool take_bit(struct dentry *d)
{
	return !par_update(d) &&
	       !(__atomic_fetch_or(&d->d_flags, DCACHE_PAR_UPDATE, __ATOMIC_ACQUIRE) & DCACHE_PAR_UPDATE);
}

/* Why try_lock did not take the name. */
enum { TAKEN, HELD, MOVED };

/*
 * Set PAR_UPDATE if it is clear and d still names (parent, q): one
 * critical section of d_lock for both, the common case's only one.
 * Setting the bit under d_lock is what d_invalidate relies on (it reads
 * the bit under d_lock): either it sees the bit, or we see its unhash.
 * MOVED: d was renamed or unhashed (while we waited, or before we
 * looked); the bit was set and is cleared again by the caller's unlock,
 * which wakes anyone who saw it set meanwhile.
 */
static inline __attribute__((always_inline)) int try_lock(struct dentry *d, const struct dentry *parent,
						      const struct qstr *q)
{
	int got = HELD;
	spin_lock(&d->d_lock);
	if (take_bit(d))
		got = still_named(d, parent, q) ? TAKEN : MOVED;
	spin_unlock(&d->d_lock);
	return got;
}

/* The wait, out of line (a change rarely meets another of its name, and
 * the wait's frame would cost every change its set-up): sleeps until
 * the holder lets go and takes the name then.  TAKEN, MOVED, or -EINTR
 * with nothing held. */
static __attribute__((noinline)) int wait_and_lock(struct dentry *d, const struct dentry *parent,
						   const struct qstr *q)
{
	int got;
	while ((got = try_lock(d, parent, q)) == HELD) {
		__atomic_fetch_add(&name_lock_waits, 1, __ATOMIC_RELAXED);
		trace_namelock_wait(d);
		int err = wait_event_killable(*name_wq(d), !par_update(d));
		trace_namelock_woken(d, err);
		if (err)
			return err;
	}
	return got;
}

int d_name_lock(struct dentry *d, struct dentry *parent, const struct qstr *q, unsigned subclass)
{
	lock_acquire(&name_lock_map, subclass, 0, 0, (unsigned long)__builtin_return_address(0));
	race_window();	/* looked up, not yet locked: another change of the name may lock it first */
	int got = try_lock(d, parent, q);
	if (got == HELD)
		got = wait_and_lock(d, parent, q);
	if (got == TAKEN)
		return 0;
	if (got == MOVED) {
		d_name_unlock(d);	/* renamed or unhashed while we waited */
		return -EAGAIN;
	}
	lock_release(&name_lock_map, (unsigned long)__builtin_return_address(0));
	return got;	/* -EINTR */
}

/*
 * A dentry born locked: a create that misses the cache locks the name of
 * the in-lookup dentry it owns, before the filesystem's lookup and before
 * d_add hashes it, instead of locking the hashed dentry after (one
 * critical section of d_lock and the name's compare fewer, on every
 * create of a new name).  Nothing else can reach d yet except through
 * the in-lookup hash, whose finders wait for the lookup to end and then
 * find the bit set; it is not hashed, so no d_invalidate can be deciding
 * about it (the bucket lock d_add takes orders our set before any).  So
 * no d_lock, and no check of the name: no rename can move d before we
 * let go, since a rename must lock its name first.
 */
void d_name_lock_new(struct dentry *d, unsigned subclass)
{
	BUG_ON(!d_in_lookup(d));
	lock_acquire(&name_lock_map, subclass, 0, 0, (unsigned long)__builtin_return_address(0));
	unsigned was = __atomic_fetch_or(&d->d_flags, DCACHE_PAR_UPDATE, __ATOMIC_ACQUIRE);
	BUG_ON(was & DCACHE_PAR_UPDATE);
}

/*
 * A cached name's lock, taken where its lookup found it: under the
 * dcache bucket lock of its chain, d is the hashed dentry of its (parent,
 * name), since d_move and every unhash hold that lock.  So the check
 * try_lock makes under d_lock is already made, and its d_lock section,
 * the name's compare and the call are saved (about 65 instructions an
 * unlink).  d_invalidate holds the bucket too: it sees the bit or we do
 * not find d.  Never waits, so to the validator a trylock.
 */
bool d_name_trylock_hashed(struct dentry *d)
{
	return take_bit(d);
}

void d_name_lock_found(struct dentry *d, unsigned subclass)
{
	(void)d;
	lock_acquire(&name_lock_map, subclass, 0, 1, (unsigned long)__builtin_return_address(0));
}

/*
 * The clear needs no d_lock: every change of d_flags is an atomic
 * read-modify-write (dcache.c's set and clear), and a reader under d_lock
 * (d_invalidate) may see the bit either way: set, it leaves the name to
 * the change, which is just ending; clear, it acts as after the end.
 */
void d_name_unlock(struct dentry *d)
{
	unsigned was = __atomic_fetch_and(&d->d_flags, ~DCACHE_PAR_UPDATE, __ATOMIC_RELEASE);
	BUG_ON(!(was & DCACHE_PAR_UPDATE));
	lock_release(&name_lock_map, (unsigned long)__builtin_return_address(0));
	/* wq_has_sleeper's fence orders the clear before its look, against
	 * a waiter's check after it queues (kernel/waitqueue.h). */
	struct wait_queue_head *wq = name_wq(d);
	if (wq_has_sleeper(wq))
		wake_up_all(wq);
}

bool d_name_locked(const struct dentry *d)
{
	return par_update(d);
}

const void *d_name_lock_key(void)
{
	return &name_lock_map;	/* a static map is its own class key */
}

uint64_t d_name_lock_waits(void)
{
	return __atomic_load_n(&name_lock_waits, __ATOMIC_RELAXED);
}
