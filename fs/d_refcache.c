/*
 * d_refcache.c: the references open files hold on their dentries, kept
 * per CPU (sv6's Refcache idea, for one kind of reference).
 *
 * Two CPUs opening and closing one file would each write its dentry's
 * d_count, one shared line.  So the reference an open file holds may come
 * from this CPU's cache instead: a small table of slots, each naming a
 * dentry, with a count of the file references taken through it less
 * those dropped through it (local) and one real reference of its own on
 * the dentry (the spare, counted in d_count).  An open that finds its
 * dentry in the slot adds one to local; the close, on whatever CPU, takes
 * one off the slot of the CPU the open went through (the file remembers
 * it: f_ref).  Neither writes the dentry.  The first open of a dentry on
 * a CPU takes an ordinary reference (d_legitimize) and, out of the walk's
 * read side, gives it to a slot as its spare (d_refcache_adopt).
 *
 * The invariant: d's real number of references is d_count, less one
 * spare for each slot naming d, plus those slots' locals.  Folding a slot
 * (d_count += local, the slot emptied, its spare dropped) keeps it, and so
 * does any close through a slot naming d, even one whose open went through
 * an earlier filling of that slot (its reference was folded into d_count,
 * which then counts one too many, and local one too few: a local may go
 * below 0, and the next fold settles both).  A close whose CPU's slot no
 * longer names d drops an ordinary reference.  What must never happen is
 * d_count too low: a slot names d only while d_count holds its spare, so
 * a slotted dentry is never unused and never freed.
 *
 * A slot is folded when it is wanted for another dentry, when its dentry
 * is unhashed (d_cached_unhashed: a removed file's inode goes at its last
 * close, as without the cache), and before any exact question about a
 * count: d_delete (is the remover the only holder?) and d_move (the same
 * of its target) fold one dentry (d_fold_cached), the prune (umount's
 * busy test) and dcache_shrink (which dentries are unused?) every slot of
 * every CPU (d_fold_all_cached); the allocator's shrinker, which may not
 * sleep, folds nothing (dcache.c's shrink_dentries says why).  Only positive, hashed dentries are put
 * in slots.
 *
 * Locking: each CPU's table has a spinlock, taken by its CPU for every
 * open and close through it, and by another CPU only to close a file
 * opened there or to fold.  It is a leaf: nothing is locked under it,
 * and no reference is dropped under it (a dropped spare may free its
 * dentry, which takes bucket locks and may sleep), only atomic adds to
 * the count of a dentry that its spare keeps above 0.  The slot of d in
 * a table is fixed (a hash of its address), and d_refcache_cpus says
 * which CPUs' tables have d (set and cleared under their locks), so a
 * fold of one dentry visits only those, one slot each.
 */
#include "fs/dcache.h"
#include "fs/d_refcache.h"
#include "kernel/kcsan.h"
#include "kernel/race.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "arch/x86_64/percpu.h"

#define REFCACHE_SLOTS 64	/* per CPU: 4 KiB */

/* A line each: another CPU's fold of one dentry writes that dentry's
 * slot, which must not share a line with the slots this CPU's opens and
 * closes of other files write. */
struct refcache_slot {
	struct dentry *d;          /* NULL: empty */
	/* File references taken through it less those dropped through it;
	 * below 0 after a fold: see the top of the file. */
	int local;
} __attribute__((aligned(64)));

struct refcache {
	struct spinlock lock __attribute__((aligned(64)));
	/* Spares a fold took from this table and has not dropped yet
	 * (raised under the lock, lowered after the dput): d_count still
	 * holds them while no slot names their dentries, so umount waits
	 * for them (d_refcache_wait_drops). */
	unsigned dropping;
	struct refcache_slot slot[REFCACHE_SLOTS];
};

static struct refcache refcaches[MAX_CPUS];

void d_refcache_init(void)
{
	for (unsigned c = 0; c < MAX_CPUS; c++)
		spin_init(&refcaches[c].lock, "d_refcache");
}

static struct refcache_slot *slot_of(struct refcache *rc, const struct dentry *d)
{
	/* Dentries are 64-byte aligned, three lines apart. */
	return &rc->slot[((uintptr_t)d >> 6) % REFCACHE_SLOTS];
}

static uint64_t cpu_bit(const struct refcache *rc)
{
	return 1ull << (rc - refcaches);
}

void (*d_refcache_drop_hook)(struct dentry *d);

/* The spare fold_slot took from rc (NULL: none), dropped, then counted
 * as gone: the order d_refcache_wait_drops relies on. */
static void drop_spare(struct refcache *rc, struct dentry *spare)
{
	if (!spare)
		return;
	if (d_refcache_drop_hook)
		d_refcache_drop_hook(spare);
	dput(spare);
	__atomic_fetch_sub(&rc->dropping, 1, __ATOMIC_RELEASE);
}

/*
 * Empty s (rc's lock held), moving what it holds into its dentry's count:
 * its file references become ordinary ones.  Returns the dentry whose
 * spare the caller must drop (drop_spare) once the lock is dropped.
 */
static struct dentry *fold_slot(struct refcache *rc, struct refcache_slot *s)
{
	struct dentry *d = s->d;
	rc->dropping++;
	__atomic_fetch_and(&d->d_refcache_cpus, ~cpu_bit(rc), __ATOMIC_RELAXED);
	if (s->local)
		__atomic_fetch_add(&d->d_count, s->local, __ATOMIC_RELAXED);	/* the spare keeps it above 0 */
	WRITE_ONCE(s->d, NULL);
	s->local = 0;
	return d;
}

bool d_legitimize_file(struct dentry *d, unsigned seq, struct file_ref *ref, struct dentry **put)
{
	*ref = (struct file_ref){ 0 };
	*put = NULL;
	unsigned cpu = cpu_id();	/* a move to another CPU now only costs locality */
	struct refcache *rc = &refcaches[cpu];
	struct refcache_slot *s = slot_of(rc, d);
	/* Not here: an ordinary reference, which d_refcache_adopt may cache
	 * later.  (A look without the lock: a wrong "not here" only costs
	 * the cache, and "here" is checked again under it.) */
	if (READ_ONCE(s->d) != d)
		return d_legitimize(d, seq, put);
	spin_lock(&rc->lock);
	if (s->d != d) {
		spin_unlock(&rc->lock);
		return d_legitimize(d, seq, put);
	}
	s->local++;	/* its spare keeps d alive */
	ref->cpu = (uint16_t)(cpu + 1);
	spin_unlock(&rc->lock);
	race_window_on(d);	/* held, not yet validated: a rename or unlink may run */
	if (!read_seqcount_retry(&d->d_seq, seq))
		return true;
	/* Folded meanwhile, ours is an ordinary reference: dropped out of
	 * the read side if it may be the last. */
	if (!dput_file_cached(d, ref) && !d_put_not_last(d))
		*put = d;
	*ref = (struct file_ref){ 0 };
	return false;
}

void (*d_refcache_adopt_hook)(struct dentry *d);

void d_refcache_adopt(struct dentry *d, struct file_ref *ref)
{
	if (ref->cpu || !READ_ONCE(d->d_inode))
		return;	/* cached already, or negative: the open fails */
	race_window();	/* held, not cached yet: an unlink or rename may unhash d now */
	if (d_refcache_adopt_hook)
		d_refcache_adopt_hook(d);
	struct dentry *victim = NULL, *surplus = NULL;
	unsigned cpu = cpu_id();
	struct refcache *rc = &refcaches[cpu];
	struct refcache_slot *s = slot_of(rc, d);
	spin_lock(&rc->lock);
	if (s->d == d) {
		surplus = d;	/* cached meanwhile: the slot's spare holds d */
	} else {
		if (s->d)
			victim = fold_slot(rc, s);
		__atomic_fetch_or(&d->d_refcache_cpus, cpu_bit(rc), __ATOMIC_RELAXED);
		WRITE_ONCE(s->d, d);	/* our reference is its spare now */
		/* Against d_cached_unhashed: our bit in d's mask and the slot
		 * are stored before d's hashed flag is read here; there, the
		 * flag is cleared before the mask is read. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (d_unhashed(d)) {
			__atomic_fetch_and(&d->d_refcache_cpus, ~cpu_bit(rc), __ATOMIC_RELAXED);
			WRITE_ONCE(s->d, NULL);	/* the reference stays ours, ordinary */
			spin_unlock(&rc->lock);
			drop_spare(rc, victim);
			return;
		}
	}
	s->local++;
	ref->cpu = (uint16_t)(cpu + 1);
	spin_unlock(&rc->lock);
	drop_spare(rc, victim);
	dput(surplus);	/* the spare keeps d */
}

bool dput_file_cached(struct dentry *d, const struct file_ref *ref)
{
	if (!ref->cpu)
		return false;
	struct refcache *rc = &refcaches[ref->cpu - 1];
	struct refcache_slot *s = slot_of(rc, d);
	spin_lock(&rc->lock);
	bool mine = s->d == d;
	if (mine)
		s->local--;
	spin_unlock(&rc->lock);
	return mine;
}

void dput_file(struct dentry *d, const struct file_ref *ref)
{
	if (!dput_file_cached(d, ref))
		dput(d);	/* an ordinary reference, or folded into one */
}

/* The table of the lowest CPU in *cpus (a dentry's d_refcache_cpus, not
 * 0), which is taken off. */
static struct refcache *next_table(uint64_t *cpus)
{
	unsigned c = (unsigned)__builtin_ctzll(*cpus);
	*cpus &= *cpus - 1;
	return &refcaches[c];
}

void d_fold_cached(struct dentry *d)
{
	/* A CPU caching d now, after this load, is ordered by the caller
	 * (d_cached_unhashed), or makes the answer only more cautious. */
	uint64_t cpus = __atomic_load_n(&d->d_refcache_cpus, __ATOMIC_RELAXED);
	while (cpus) {
		struct refcache *rc = next_table(&cpus);
		struct refcache_slot *s = slot_of(rc, d);
		struct dentry *spare = NULL;
		spin_lock(&rc->lock);
		if (s->d == d)
			spare = fold_slot(rc, s);
		spin_unlock(&rc->lock);
		drop_spare(rc, spare);	/* the caller's reference keeps d */
	}
}

void d_cached_unhashed(struct dentry *d)
{
	/* The other side of the fence in d_refcache_adopt: either that
	 * sees d unhashed and leaves the slot, or this sees its bit. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	d_fold_cached(d);
}

void d_fold_all_cached(void)
{
	struct dentry *spares[REFCACHE_SLOTS];
	for (unsigned c = 0; c < ncpus; c++) {
		struct refcache *rc = &refcaches[c];
		unsigned n = 0;
		spin_lock(&rc->lock);
		for (unsigned i = 0; i < REFCACHE_SLOTS; i++)
			if (rc->slot[i].d)
				spares[n++] = fold_slot(rc, &rc->slot[i]);
		spin_unlock(&rc->lock);
		for (unsigned i = 0; i < n; i++)
			drop_spare(rc, spares[i]);
	}
}

void (*d_refcache_wait_hook)(void);

void d_refcache_wait_drops(void)
{
	might_sleep();
	for (unsigned c = 0; c < ncpus; c++) {
		struct refcache *rc = &refcaches[c];
		while (__atomic_load_n(&rc->dropping, __ATOMIC_ACQUIRE)) {
			if (d_refcache_wait_hook)
				d_refcache_wait_hook();
			yield();	/* the dropper may be evicting an inode, with the disk */
		}
	}
}

int d_refs(struct dentry *d)
{
	int n = __atomic_load_n(&d->d_count, __ATOMIC_RELAXED);
	uint64_t cpus = __atomic_load_n(&d->d_refcache_cpus, __ATOMIC_RELAXED);
	while (cpus) {
		struct refcache *rc = next_table(&cpus);
		struct refcache_slot *s = slot_of(rc, d);
		spin_lock(&rc->lock);
		if (s->d == d)
			n += s->local - 1;	/* its locals count, its spare does not */
		spin_unlock(&rc->lock);
	}
	return n;
}

unsigned d_refcache_slots_used(const struct super_block *sb, const struct dentry *d)
{
	unsigned n = 0;
	for (unsigned c = 0; c < ncpus; c++) {
		struct refcache *rc = &refcaches[c];
		spin_lock(&rc->lock);
		for (unsigned i = 0; i < REFCACHE_SLOTS; i++) {
			const struct dentry *x = rc->slot[i].d;
			n += x && (!sb || x->d_sb == sb) && (!d || x == d);
		}
		spin_unlock(&rc->lock);
	}
	return n;
}
