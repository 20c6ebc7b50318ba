/*
 * dcache.c: the dentry cache and the in-lookup protocol (see dcache.h
 * for the state machine and the lock table).
 *
 * Typical slow-path sequence (fs/namei.c), with dir's i_rwsem shared:
 *
 *     d = d_alloc_parallel(parent, &name);  // hashed, or ours to look up
 *     if (d_in_lookup(d)) {                 // we own the lookup
 *         err = dir->i_op->lookup(dir, d);  // the filesystem calls d_add(),
 *                                           // which hashes d and wakes the waiters
 *         d_lookup_done(d);                 // a failure (no d_add): unhash, wake
 *     }
 *
 * Who calls the filesystem: only the thread whose d_alloc_parallel put a
 * new dentry in the in-lookup hash.  Who waits: any other thread whose
 * d_alloc_parallel finds that dentry there; it takes a reference, sleeps
 * on the dentry's wait queue until IN_LOOKUP clears, then drops it and
 * looks again from the start: d_lookup finds the answer if d_add hashed
 * it and it is still there, else (the lookup failed, or the name was
 * dropped or renamed meanwhile) the waiter may become the owner of a new
 * lookup.  It never uses the dentry it waited on.  Who wakes them: d_add,
 * right after it moves the dentry from the in-lookup hash to the dcache
 * hash; d_lookup_done only for a lookup that ended without d_add (after
 * d_add it finds IN_LOOKUP clear and does nothing).  Why no duplicate
 * can be hashed: d_alloc_parallel looks in the dcache hash again while it
 * holds the in-lookup bucket lock, and a dentry moves from the in-lookup
 * hash to the dcache hash only under that lock, so a name is always found
 * in one or the other.
 *
 * The wait queues: a waiter sleeps on one of LOOKUP_WQS shared queues
 * picked by the dentry's address, not on a queue inside the dentry or on
 * the owner's stack, so that no queue can go away under a waiter.  A wake
 * may reach unrelated waiters of the same queue; they look again and sleep.
 */
#include "fs/dcache.h"
#include "fs/fs.h"
#include "kernel/cmdline.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kcsan.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/layout.h"
#include "kernel/page_alloc.h"
#include "kernel/percpu_counter.h"
#include "kernel/panic.h"
#include "kernel/race.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/waitqueue.h"
#include "kernel/shrinker.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "kernel/trace.h"

/*
 * The dcache hash: chains in groups of DCACHE_GROUP, each group one line
 * of chain heads and, on the next line, the one lock of its chains (the
 * "bucket lock" of dcache.h and docs/design/08-lock-order.md is a
 * group's).  An
 * RCU lookup reads only a head; a dentry's last dput takes the lock.
 * With a lock beside each head (as before), a stat on one CPU and the
 * close of the same file on another shared that line; now the head's
 * line is written only when a chain changes.  A group is 128 bytes in
 * release builds, two lines of one page: 16 bytes a chain, as the old
 * 32-byte buckets cost two chains (a lock per chain would cost 32).
 */
#define DCACHE_GROUP 8

struct dcache_group {
	struct hlist_head chains[DCACHE_GROUP];
	struct spinlock lock __attribute__((aligned(64)));
} __attribute__((aligned(64)));

/* The in-lookup hash: a small fixed table, a lock per chain, each bucket
 * on a line of its own (two slow lookups of names in neighbouring
 * buckets wrote one line when they were 32 bytes).  64 KiB. */
struct bucket {
	struct spinlock lock;
	struct hlist_head chain;
} __attribute__((aligned(64)));

#define IN_LOOKUP_BUCKETS 1024
#define LOOKUP_WQS 64

static struct dcache_group *dcache_table;
static uint64_t dcache_mask;	/* chains - 1 */
static struct bucket in_lookup_table[IN_LOOKUP_BUCKETS];
static struct wait_queue_head lookup_wqs[LOOKUP_WQS];
static struct kmem_cache *dentry_cache;
/*
 * The LRU of unused dentries, one list per CPU (see dcache.h).  A dentry
 * joining it goes into the CPU's batch first, and the batch joins the
 * list when it is full or the shrinker looks (Linux batches its page
 * LRU the same way, in pagevecs): joining the list writes the link of
 * the dentry at its tail, which sits in line 3 beside that dentry's
 * d_count, so two CPUs making files in two directories would share the
 * line of whichever dentry the last join left at the tail.  A batched
 * dentry's d_lru holds LRU_BATCHED in both links, so it reads as listed
 * (on_lru) and no neighbour's link names it.
 */
#define LRU_BATCH 15
#define LRU_BATCHED ((struct list_head *)0x1b1b)	/* never an address */
struct dentry_lru {
	struct spinlock lock;
	struct list_head list;     /* oldest first */
	uint64_t len;              /* lock; listed and batched; read without it by the shrinker and stats */
	unsigned nbatch;           /* lock */
	struct dentry *batch[LRU_BATCH];	/* lock: joined, not yet on list, oldest first */
} __attribute__((aligned(64)));
static struct dentry_lru lrus[MAX_CPUS];
/* Dentries allocated and not yet handed to d_kill's grace period: what
 * dcache_live reports, exact at once (the slab's count waits for the
 * grace period). */
static struct percpu_counter dentries_live;
/* d_parent and d_name of every dentry (see dcache.h).  d_path and the
 * prune's climb take its lock; the RCU-walk's ".." reads its count, and
 * gives up if a rename ran meanwhile (fs/namei.c). */
struct seqlock rename_lock __cacheline_aligned = SEQLOCK_INIT("rename_lock");
uint64_t d_revalidate_clock __cacheline_aligned;

static unsigned __dcache_shrink(unsigned nr);

/*
 * The allocator's shrinker frees unused dentries but folds no CPU's cache
 * of file references (fs/d_refcache.c), unlike dcache_shrink.  Any
 * allocation runs the shrinkers, under a spinlock too, and a spare that a
 * fold drops may by then be the last reference of a file unlinked in
 * between (its unlink saw the spare, not the slot, and unhashed it), whose
 * eviction may sleep.  So the closed files whose references a CPU caches
 * stay cached, at most REFCACHE_SLOTS a CPU, until a fold that can sleep:
 * an unlink or rename of one, an rmdir, umount, dcache_shrink.
 */
static unsigned long shrink_dentries(unsigned long nr)
{
	return __dcache_shrink((unsigned)nr);
}
static struct shrinker dcache_shrinker = { "dentries", shrink_dentries, NULL };

static void flag_set(struct dentry *d, unsigned f)
{
	__atomic_fetch_or(&d->d_flags, f, __ATOMIC_RELEASE);
}

static void flag_clear(struct dentry *d, unsigned f)
{
	__atomic_fetch_and(&d->d_flags, ~f, __ATOMIC_RELEASE);
}

static struct hlist_head *d_chain(uint32_t hash)
{
	uint64_t i = hash & dcache_mask;
	return &dcache_table[i / DCACHE_GROUP].chains[i % DCACHE_GROUP];
}

/* The lock of hash's chain (its group's): "the bucket lock". */
static struct spinlock *d_bucket(uint32_t hash)
{
	return &dcache_table[(hash & dcache_mask) / DCACHE_GROUP].lock;
}

/* The rule d_lock_bucket keeps, and every change of a chain, checked in
 * debug builds: the caller holds the bucket of d's name as it is now (the
 * lock of the group of d's chain).  why: what broke it, for the panic. */
static void d_assert_bucket_held(const struct dentry *d, const char *why)
{
#if CONFIG_LOCKDEP
	if (!spin_held_by_me(d_bucket(d->d_name.hash)))
		panic("dcache: '%s' %s", d->d_name.name, why);
#else
	(void)d;
	(void)why;
#endif
}

#define CHAIN_UNLOCKED "changes its chain without its group's lock"

/* Hash d on the chain of its name, whose bucket lock the caller holds. */
static void __d_rehash(struct dentry *d)
{
	d_assert_bucket_held(d, CHAIN_UNLOCKED);
	hlist_add_head_rcu(&d->d_hash, d_chain(d->d_name.hash));
	flag_set(d, DCACHE_HASHED);
}

/* Unhash d; the caller holds its bucket.  Its d_seq moves, so a lockless
 * walker that found d before cannot trust what it read of it. */
static void __d_unhash(struct dentry *d)
{
	d_assert_bucket_held(d, CHAIN_UNLOCKED);
	hlist_del_rcu(&d->d_hash);
	flag_clear(d, DCACHE_HASHED);
	write_seqcount_invalidate(&d->d_seq);
}

/* dcache.buckets=N (Linux's dhash_entries): a table of N chains, a power
 * of two.  Tests use a tiny one, so that the lockless RCU-walk meets
 * dentries of other names, moving between chains, on every chain it walks. */
static uint64_t dcache_buckets_param;

static int set_dcache_buckets(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	int err = kparam_set_u64(p, val, len, why, n);
	if (!err && (dcache_buckets_param & (dcache_buckets_param - 1))) {
		snprintf(why, n, "expected a power of two");
		dcache_buckets_param = 0;
		return -EINVAL;
	}
	return err;
}
KPARAM("dcache.buckets", set_dcache_buckets, dcache_buckets_param, 1, 1u << 24,
       "dentry hash chains (a power of two; default: one per 2 KiB of RAM)");

void dcache_init(void)
{
	d_refcache_init();
	/* Sized from RAM at boot, as Linux sizes its table, a power of two:
	 * one chain per 2 KiB, 1/128 of RAM in 16-byte chains (Linux: one
	 * 8-byte chain per 8 KiB, 1/1024).  A dentry costs 192 bytes, so a
	 * dcache filling a quarter of RAM has chains of about 2.7, and the
	 * 10^6 dentries of bench/dcache_size in 2 GiB chains of 0.95: a
	 * lookup then reads about half a dentry besides the one it finds,
	 * where one per 4 KiB (chains of 1.9) read one (BENCHMARKS 5). */
	uint64_t n = 1024;
	while (n < 2 * page_total_count() && n < (1u << 24))
		n <<= 1;
	if (dcache_buckets_param)
		n = dcache_buckets_param;
	uint64_t groups = (n + DCACHE_GROUP - 1) / DCACHE_GROUP;
	dcache_table = kcalloc(groups, sizeof(struct dcache_group));
	if (!dcache_table)
		panic("dcache: no memory for %lu hash chains", n);
	dcache_mask = n - 1;
	/* As Linux's "Dentry cache hash table entries" line: make bench-linux
	 * prints both kernels' sizes. */
	kprintf("dcache: dentry hash %lu chains\n", n);
	for (uint64_t g = 0; g < groups; g++) {
		spin_init(&dcache_table[g].lock, "dcache_bucket");
		for (unsigned i = 0; i < DCACHE_GROUP; i++)
			hlist_head_init(&dcache_table[g].chains[i]);
	}
	for (unsigned i = 0; i < IN_LOOKUP_BUCKETS; i++) {
		spin_init(&in_lookup_table[i].lock, "in_lookup_bucket");
		hlist_head_init(&in_lookup_table[i].chain);
	}
	for (unsigned i = 0; i < LOOKUP_WQS; i++)
		wait_queue_init(&lookup_wqs[i]);
	d_name_lock_init();
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		spin_init(&lrus[i].lock, "dentry_lru");
		list_init(&lrus[i].list);
	}
	dentry_cache = kmem_cache_create("dentry", sizeof(struct dentry), 64);
	if (!dentry_cache)
		panic("dcache: cannot create the dentry cache");
	if (CONFIG_LOCKDEP)	/* test builds: a stale dentry pointer must not find a new dentry */
		kmem_cache_quarantine(dentry_cache);
	register_shrinker(&dcache_shrinker);
}

uint64_t dcache_live(void)
{
	return (uint64_t)percpu_counter_sum(&dentries_live);
}

uint64_t dcache_buckets(void)
{
	return dcache_mask + 1;
}

/* The first dentry on the chain of hash, or NULL: bench/dcache_size's
 * floor, the two dependent loads (chain head, then a dentry) that any
 * hashed lookup makes.  A peek: the caller holds an RCU read side and
 * trusts nothing it reads. */
const struct dentry *d_hash_chain_first(uint32_t hash)
{
	struct hlist_node *first = __atomic_load_n(&d_chain(hash)->first, __ATOMIC_ACQUIRE);
	return first ? hlist_entry(first, struct dentry, d_hash) : NULL;
}

void d_hash_name(const struct dentry *parent, struct qstr *q)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a over the name */
	for (uint32_t i = 0; i < q->len; i++)
		h = (h ^ (uint8_t)q->name[i]) * 1099511628211ULL;
	q->hash = (uint32_t)(mix64(h ^ (uint64_t)parent) >> 32);
}

static struct bucket *in_lookup_bucket(uint32_t hash)
{
	return &in_lookup_table[hash % IN_LOOKUP_BUCKETS];
}

/* d's name hash, read outside the locks that keep it: d_move may be
 * changing it (swap_names writes it with an atomic store). */
static uint32_t d_hash_now(const struct dentry *d)
{
	return __atomic_load_n(&d->d_name.hash, __ATOMIC_RELAXED);
}

/*
 * Lock the dcache bucket d is on now.  Which bucket that is depends on
 * d's name, which d_move changes while it holds both the old and the new
 * bucket: so the bucket of a hash read without a lock may be the wrong
 * one by the time it is locked, and the check is repeated under the lock,
 * where the answer can no longer change.
 */
static struct spinlock *d_lock_bucket(struct dentry *d)
{
	for (;;) {
		struct spinlock *b = d_bucket(d_hash_now(d));
		race_window();	/* a d_move may run here */
		spin_lock(b);
		if (b == d_bucket(d->d_name.hash))
			return b;
		spin_unlock(b);
	}
}

/* The same with a trylock, for callers that hold a lock ordered after the
 * buckets (the LRU lock).  NULL if the bucket is busy. */
static struct spinlock *d_trylock_bucket(struct dentry *d)
{
	struct spinlock *b = d_bucket(d_hash_now(d));
	if (!spin_trylock(b))
		return NULL;
	if (b == d_bucket(d->d_name.hash))
		return b;
	spin_unlock(b);
	return NULL;	/* moved meanwhile: as good as busy */
}

static struct wait_queue_head *lookup_wq(const struct dentry *d)
{
	return &lookup_wqs[((uintptr_t)d >> 6) % LOOKUP_WQS];
}

static bool same_name(const struct dentry *d, const struct dentry *parent, const struct qstr *q)
{
	return d->d_parent == parent && d->d_name.hash == q->hash && d->d_name.len == q->len &&
	       memcmp(d->d_name.name, q->name, q->len) == 0;
}

struct dentry *dget(struct dentry *d)
{
	__atomic_fetch_add(&d->d_count, 1, __ATOMIC_RELAXED);
	return d;
}

uint64_t d_parent_ino(struct dentry *d)
{
	uint64_t ino;
	unsigned seq;
	rcu_read_lock();	/* a parent that a rename lets go stays readable */
	do {
		seq = read_seqcount_begin(&d->d_seq);
		struct dentry *parent = READ_ONCE(d->d_parent);
		race_window();	/* read, not yet used: a rename may move d and the shrinker free parent */
		struct inode *inode = READ_ONCE(parent->d_inode);
		ino = inode ? inode->i_ino : 0;
	} while (read_seqcount_retry(&d->d_seq, seq));
	rcu_read_unlock();
	return ino;
}

/*
 * d's parent, with a reference.  d_parent cannot just be read and dget:
 * a rename may move d to another directory in between, and then nothing
 * keeps the old parent, which the shrinker or an rmdir may free.  d_move
 * changes d_parent only while holding d's d_lock, and d holds a reference
 * on its parent: under d's d_lock the parent is d's and alive.
 */
struct dentry *dget_parent(struct dentry *d)
{
	spin_lock(&d->d_lock);
	struct dentry *parent = d->d_parent;
	race_window();	/* a rename of d waits for us here */
	dget(parent);
	spin_unlock(&d->d_lock);
	return parent;
}

/* The flags that make the dcache ask the filesystem (s_d_op). */
static unsigned d_op_flags(const struct super_block *sb)
{
	const struct dentry_operations *op = sb->s_d_op;
	return !op ? 0 : (op->d_revalidate ? DCACHE_OP_REVALIDATE : 0) |
	       (op->d_delete ? DCACHE_OP_DELETE : 0);
}

static struct dentry *d_alloc(struct dentry *parent, const struct qstr *q)
{
	struct dentry *d = kmem_cache_alloc(dentry_cache);
	if (!d)
		return NULL;
	memset(d, 0, sizeof(*d));
	char *name = d->d_iname;
	if (q->len >= DNAME_INLINE_LEN) {
		name = kmalloc(q->len + 1);
		if (!name) {
			kmem_cache_free(dentry_cache, d);
			return NULL;
		}
	}
	memcpy(name, q->name, q->len);
	name[q->len] = '\0';
	d->d_name = (struct qstr){ name, q->len, q->hash };
	d->d_count = 1;
	percpu_counter_add(&dentries_live, 1);
	hlist_node_init(&d->d_hash);
	list_init(&d->d_subdirs);
	list_init(&d->d_lru);
	spin_init(&d->d_lock, "dentry.d_lock");
	if (parent) {
		d->d_parent = dget(parent);
		d->d_sb = parent->d_sb;
		d->d_flags = d_op_flags(d->d_sb);
		spin_lock(&parent->d_lock);
		list_add(&d->d_child, &parent->d_subdirs);
		spin_unlock(&parent->d_lock);
	} else {
		d->d_parent = d;
		list_init(&d->d_child);
	}
	return d;
}

struct dentry *d_make_root(struct super_block *sb, struct inode *root_inode)
{
	struct qstr q = { "/", 1, 0 };
	struct dentry *d = d_alloc(NULL, &q);
	if (!d)
		return NULL;
	d->d_sb = sb;
	d->d_inode = root_inode;
	return d;
}

/*
 * Whether d is on the LRU; the caller holds d's bucket lock.  It reads
 * d_lru without the LRU lock (data_race): a neighbour joining or leaving
 * the LRU rewrites d's links under the LRU lock only, but never between
 * "listed" and "not listed", which only d's own add and del do, under
 * both locks.  So the answer is exact.
 */
static bool on_lru(struct dentry *d)
{
	spin_assert_held(d_bucket(d->d_name.hash));
	return !data_race(list_empty(&d->d_lru));
}

/* An LRU stamp: milliseconds (2^20 ns), compared modulo 2^32 (24 days). */
static uint32_t lru_now(void)
{
	return (uint32_t)(ktime_ns() >> 20);
}

/* Put l's batch at the tail of its list, oldest first.  Caller holds
 * l's lock (a batched dentry's links change under it alone, as a
 * neighbour's do: between two ways of being listed). */
static void lru_flush_batch(struct dentry_lru *l)
{
	spin_assert_held(&l->lock);
	for (unsigned i = 0; i < l->nbatch; i++)
		list_add_tail(&l->batch[i]->d_lru, &l->list);
	l->nbatch = 0;
}

/* d joins this CPU's LRU (its batch); the caller holds d's bucket lock. */
static void d_lru_add(struct dentry *d)
{
	spin_assert_held(d_bucket(d->d_name.hash));
	unsigned cpu = cpu_id();	/* a move to another CPU now only costs locality */
	struct dentry_lru *l = &lrus[cpu];
	spin_lock(&l->lock);
	if (l->nbatch == LRU_BATCH)
		lru_flush_batch(l);
	l->batch[l->nbatch++] = d;
	d->d_lru.next = d->d_lru.prev = LRU_BATCHED;
	d->d_lru_cpu = cpu;
	d->d_lru_stamp = lru_now();
	__atomic_store_n(&l->len, l->len + 1, __ATOMIC_RELAXED);
	spin_unlock(&l->lock);
}

/* Take d off its list or batch.  Caller holds the list's lock and d's
 * bucket lock. */
static void __d_lru_del(struct dentry_lru *l, struct dentry *d)
{
	spin_assert_held(&l->lock);
	spin_assert_held(d_bucket(d->d_name.hash));
	if (d->d_lru.next == LRU_BATCHED) {
		unsigned i = 0;
		while (l->batch[i] != d)
			i++;	/* it is there: its list's lock is held */
		memmove(&l->batch[i], &l->batch[i + 1], (l->nbatch - i - 1) * sizeof(l->batch[0]));
		l->nbatch--;
		list_init(&d->d_lru);
	} else {
		list_del(&d->d_lru);
	}
	__atomic_store_n(&l->len, l->len - 1, __ATOMIC_RELAXED);
}

void dcache_lru_settle_cpu(void)
{
	unsigned long flags = irq_save();	/* stay on this CPU */
	struct dentry_lru *l = &lrus[cpu_id()];
	spin_lock(&l->lock);
	lru_flush_batch(l);
	spin_unlock(&l->lock);
	irq_restore(flags);
}

/*
 * Drop one reference to d, whose bucket lock the caller holds (it is the
 * bucket of d's name now: see d_lock_bucket).  Returns true if d must be
 * freed: its last reference went and nothing can find it any more.
 */
static bool __dput(struct dentry *d)
{
	int left = __atomic_sub_fetch(&d->d_count, 1, __ATOMIC_ACQ_REL);
	BUG_ON(left < 0);
	d_assert_bucket_held(d, "changed buckets under a thread about to use its old one");
	if (left > 0)
		return false;
	race_window();	/* unused now: d_lookup and the shrinker may come */
	if (!(READ_ONCE(d->d_flags) & DCACHE_HASHED))
		return !(READ_ONCE(d->d_flags) & DCACHE_IN_LOOKUP);
	if ((READ_ONCE(d->d_flags) & DCACHE_OP_DELETE) && d->d_sb->s_d_op->d_delete(d)) {
		__d_unhash(d);	/* not kept (procfs): nothing can find it now */
		return true;
	}
	if (!on_lru(d))
		d_lru_add(d);	/* unused now: the shrinker may have it */
	else if (!d->d_referenced)
		d->d_referenced = 1;	/* once per shrinker pass, not per use */
	return false;
}

/* After the grace period: no RCU-walk can still be reading d. */
static void d_free_rcu(struct rcu_head *head)
{
	struct dentry *d = container_of(head, struct dentry, d_rcu);
	if (d->d_name.name != d->d_iname)
		kfree(d->d_name.name);
	kmem_cache_free(dentry_cache, d);
}

/*
 * Free d, whose count reached zero and which is on no hash, and then each
 * ancestor whose last reference was d's.
 *
 * The order matters to d_prune_unused, which decides from a directory's
 * list of children and its count whether a tree is idle (umount's busy
 * test): d's inode is let go before d leaves its parent's list, and d
 * leaves the list in the same step (under the parent's bucket lock and
 * d_lock) as the parent's count drops.  So a prune sees either d still
 * listed (and waits for it: see prune_scan) or d gone with its inode and
 * its reference on the parent: never a parent held by no one it can see.
 */
static void d_kill(struct dentry *d)
{
	while (d) {
		race_write_begin(d);	/* walks on d wait here for its d_inode to go */
		struct spinlock *b = d_lock_bucket(d);
		if (on_lru(d)) {	/* the shrinker may still see it: take it off */
			struct dentry_lru *l = &lrus[d->d_lru_cpu];
			race_window();	/* its list's CPU may be adding to it */
			spin_lock(&l->lock);
			__d_lru_del(l, d);
			spin_unlock(&l->lock);
		}
		/* Unhashed already, but an RCU-walk may stand on d (a removed
		 * cwd read just before its last reference went): d_inode going
		 * NULL must fail its d_seq check, not read as "no such file". */
		write_seqcount_begin(&d->d_seq);
		struct inode *inode = d->d_inode;
		__atomic_store_n(&d->d_inode, NULL, __ATOMIC_RELAXED);
		write_seqcount_end(&d->d_seq);
		race_write_done(d);
		spin_unlock(b);
		iput(inode);

		struct dentry *parent = d->d_parent, *next = NULL;
		if (parent != d) {
			race_window();	/* a prune of the parent may look now */
			b = d_lock_bucket(parent);
			spin_lock(&parent->d_lock);
			list_del(&d->d_child);
			spin_unlock(&parent->d_lock);
			if (__dput(parent))
				next = parent;
			spin_unlock(b);
		}
		percpu_counter_add(&dentries_live, -1);
		call_rcu(&d->d_rcu, d_free_rcu);	/* an RCU-walk may be on it */
		d = next;
	}
}

/*
 * Drop a reference.  The last reference to a hashed dentry leaves it in
 * the cache (unused); the last one to an unhashed dentry frees it, and
 * then drops its reference on the parent.  The 1 -> 0 step happens under
 * the dentry's bucket lock, so d_lookup (which takes references under it)
 * and d_prune_unused never see a dentry being freed.
 */
void dput(struct dentry *d)
{
	if (!d || d_put_not_last(d))
		return;
	race_write_begin(d);	/* about to be freed, perhaps: walks on d may wait for that */
	race_window();	/* the last reference, perhaps: a d_lookup may take one first */
	struct spinlock *b = d_lock_bucket(d);
	bool free = __dput(d);
	spin_unlock(b);
	if (free)
		d_kill(d);
	race_write_done(d);
}

/* Caller holds the bucket lock. */
static struct dentry *__d_lookup(struct dentry *parent, const struct qstr *q)
{
	spin_assert_held(d_bucket(q->hash));
	struct hlist_node *pos;
	hlist_for_each(pos, d_chain(q->hash)) {
		struct dentry *d = hlist_entry(pos, struct dentry, d_hash);
		if (same_name(d, parent, q))
			return dget(d);
	}
	return NULL;
}

/*
 * The hashed dentry of (parent, q), with a reference, or NULL; and for a
 * change (locked not NULL) the name lock of what it finds taken if it is
 * free, in the bucket lock's section: there d is the hashed dentry of
 * (parent, q) (d_move and every unhash hold the bucket), which is all
 * d_name_lock's check under d_lock asks.  A name its filesystem must
 * revalidate is not locked here: the revalidate comes first, and it
 * leaves a name a change holds alone.
 */
static struct dentry *lookup_cached_trylock(struct dentry *parent, const struct qstr *q, bool *locked)
{
	struct spinlock *b = d_bucket(q->hash);
	spin_lock(b);
	struct dentry *d = __d_lookup(parent, q);
	if (locked && d && !d_must_revalidate(d))
		*locked = d_name_trylock_hashed(d);
	spin_unlock(b);
	return d;
}

struct dentry *d_lookup_cached(struct dentry *parent, const struct qstr *q)
{
	return lookup_cached_trylock(parent, q, NULL);
}

bool d_invalidate(struct dentry *d)
{
	struct spinlock *b = d_lock_bucket(d);
	/* The name lock is set under d_lock, and its taker checks under
	 * d_lock that d is still hashed: so either it sees our unhash (and
	 * looks the name up again) or we see its lock. */
	spin_lock(&d->d_lock);
	bool changing = READ_ONCE(d->d_flags) & DCACHE_PAR_UPDATE;
	bool drop = (READ_ONCE(d->d_flags) & DCACHE_HASHED) && !d_mountpoint(d) && !changing;
	if (drop)
		__d_unhash(d);
	spin_unlock(&d->d_lock);
	spin_unlock(b);
	if (drop)
		d_cached_unhashed(d);	/* others hold it: their cached references go */
	return !changing;
}

void d_drop_failed_create(struct dentry *d)
{
	struct spinlock *b = d_lock_bucket(d);
	spin_lock(&d->d_lock);
	bool drop = (READ_ONCE(d->d_flags) & DCACHE_HASHED) && !READ_ONCE(d->d_inode);
	if (drop)
		__d_unhash(d);
	spin_unlock(&d->d_lock);
	spin_unlock(b);
	if (drop)
		d_cached_unhashed(d);
}

/* A hit (held, no lock) its filesystem must confirm: false if it said
 * no, and then d is unhashed and our reference dropped.  A name a change
 * holds (its name lock) stays and is the answer: the change under way
 * leaves it as the filesystem says, and unhashing it would let a second
 * change of the name lock another dentry (chapter 24, P2). */
static bool d_hit_valid(struct dentry *d, unsigned flags)
{
	if (!d_must_revalidate(d) || d->d_sb->s_d_op->d_revalidate(d, flags))
		return true;
	if (!d_invalidate(d))
		return true;
	dput(d);
	return false;
}

struct dentry *d_lookup_flags(struct dentry *parent, const struct qstr *q, unsigned flags)
{
	struct dentry *d = d_lookup_cached(parent, q);
	return d && d_hit_valid(d, flags) ? d : NULL;
}

struct dentry *d_lookup(struct dentry *parent, const struct qstr *q)
{
	return d_lookup_flags(parent, q, 0);
}

/*
 * Whether d's name is q's, read without the locks that keep it: d_move may
 * be swapping names meanwhile, so the pointer, length and bytes may come
 * from two names.  The caller's d_seq check rejects any such mix; here the
 * only care is to read within memory that is d's: an inline name is never
 * compared past d_iname.  (The bytes are read with data_race: a torn
 * compare is exactly what the sequence check catches.)
 */
static bool d_name_is_rcu(const struct dentry *d, const struct qstr *q)
{
	const char *name = READ_ONCE(d->d_name.name);
	if (READ_ONCE(d->d_name.len) != q->len)
		return false;
	if (name == d->d_iname && q->len >= DNAME_INLINE_LEN)
		return false;
	return data_race(memcmp(name, q->name, q->len)) == 0;
}

void d_assert_not_freed(const struct dentry *d)
{
	/* d_flags holds a few low bits; four poison bytes it never holds. */
	if (CONFIG_LOCKDEP && READ_ONCE(d->d_flags) == 0x01010101u * SLAB_POISON)
		panic("dcache: an RCU-walk read dentry %p after it was freed", (const void *)d);
}

/*
 * The check is made apart from the search that should have skipped d: an
 * unhash moves d_seq under d's bucket lock, so with that lock held, "d
 * unhashed and its d_seq still seq" means the unhash came before seq was
 * read.  Unhashed but moved is a race the walk's own check catches.  The
 * lock is taken only when d reads as unhashed, which a correct search
 * meets only while an unhash runs.
 */
void d_assert_found_hashed(struct dentry *d, unsigned seq)
{
	if (!CONFIG_LOCKDEP || !d_unhashed(d))
		return;
	struct spinlock *b = d_lock_bucket(d);
	bool stale = !(READ_ONCE(d->d_flags) & DCACHE_HASHED) && raw_read_seqcount(&d->d_seq) == seq;
	spin_unlock(b);
	if (stale)
		panic("dcache: a lockless search gave '%s', unhashed before its d_seq (%u) was read",
		      d->d_name.name, seq);
}

struct dentry *__d_lookup_rcu(const struct dentry *parent, const struct qstr *q, unsigned *seqp)
{
	struct hlist_node *pos;
	hlist_for_each(pos, d_chain(q->hash)) {
		if (CONFIG_LOCKDEP && (uintptr_t)pos == 0x0101010101010101ull * SLAB_POISON)
			panic("dcache: an RCU-walk followed a link out of a freed dentry");
		struct dentry *d = hlist_entry(pos, struct dentry, d_hash);
		/* A link followed, the dentry not yet read: it may be unhashed
		 * and freed now. */
		race_window_on(d);
		d_assert_not_freed(d);
		unsigned seq = d_seq_begin(d);	/* the count before the fields */
		race_window_on(d);	/* found, not yet compared: a rename may run */
		if (READ_ONCE(d->d_parent) != parent || d_hash_now(d) != q->hash)
			continue;
		/* A search that read d's link before d was unhashed may reach it
		 * after: freed (unused, inode gone) and with a d_seq that no
		 * longer moves.  Such a dentry is not the name (Linux skips it
		 * too); the flag is read after the count, and cleared before it
		 * moves. */
		if (d_unhashed(d))
			continue;
		if (!d_name_is_rcu(d, q))
			continue;
		*seqp = seq;
		return d;
	}
	return NULL;
}

void (*d_legitimize_hook)(struct dentry *d);

bool d_legitimize(struct dentry *d, unsigned seq, struct dentry **put)
{
	*put = NULL;
	/* A count above 0 cannot reach 0 and be freed between our load and
	 * the compare-and-swap: one CAS, no lock, when someone holds d.  The
	 * CAS is a full barrier (a locked instruction) before the d_seq check
	 * below: d_delete's side of that pairing is explained there. */
	int c = __atomic_load_n(&d->d_count, __ATOMIC_RELAXED);
	bool got = false;
	while (c > 0 && !got)
		got = __atomic_compare_exchange_n(&d->d_count, &c, c + 1, false, __ATOMIC_SEQ_CST,
						  __ATOMIC_RELAXED);
	if (!got) {
		/* Unused: alive while hashed, and the shrinker unhashes only
		 * under the bucket lock (an unhashed unused dentry is being
		 * freed: "dead"). */
		struct spinlock *b = d_lock_bucket(d);
		if (READ_ONCE(d->d_flags) & DCACHE_HASHED) {
			dget(d);
			got = true;
		}
		spin_unlock(b);
	}
	if (!got)
		return false;
	race_window_on(d);	/* held, not yet validated: a rename or unlink may run */
	if (d_legitimize_hook)
		d_legitimize_hook(d);
	if (read_seqcount_retry(&d->d_seq, seq)) {
		/* The others may all have let go meanwhile (an unlink and a
		 * close): then ours is the last, and is not dropped here. */
		if (!d_put_not_last(d))
			*put = d;
		return false;
	}
	return true;
}

bool d_put_not_last(struct dentry *d)
{
	int c = __atomic_load_n(&d->d_count, __ATOMIC_RELAXED);
	while (c > 1)
		if (__atomic_compare_exchange_n(&d->d_count, &c, c - 1, false, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return true;
	return false;
}

/* Sleep until d is no longer in-lookup (we hold a reference to it), or
 * the thread is killed (-EINTR): a lookup stuck in a slow filesystem must
 * not keep a killed thread waiting for it. */
static int d_wait_lookup(struct dentry *d)
{
	return wait_event_killable(*lookup_wq(d), !d_in_lookup(d));
}

static struct dentry *alloc_parallel(struct dentry *parent, const struct qstr *q, bool *locked)
{
	/* The new dentry is allocated only once the name is known to be
	 * neither cached nor being looked up: a cached name never fails
	 * for want of memory. */
	struct dentry *fresh = NULL;
	struct bucket *ib = in_lookup_bucket(q->hash);
	rwsem_assert_held(&parent->d_inode->i_rwsem);
	for (;;) {
		spin_lock(&ib->lock);
		/* Hashed meanwhile?  Looked at under the in-lookup bucket lock,
		 * which every move from in-lookup to hashed takes. */
		struct dentry *d = lookup_cached_trylock(parent, q, locked);
		if (d) {
			spin_unlock(&ib->lock);
			if (!d_hit_valid(d, 0))
				continue;	/* stale (procfs): dropped, look again */
			dput(fresh);
			return d;
		}
		struct dentry *other = NULL;
		struct hlist_node *pos;
		hlist_for_each(pos, &ib->chain) {
			struct dentry *x = hlist_entry(pos, struct dentry, d_hash);
			if (same_name(x, parent, q)) {
				other = dget(x);
				break;
			}
		}
		if (!other && !fresh) {
			spin_unlock(&ib->lock);
			fresh = d_alloc(parent, q);
			if (!fresh)
				return ERR_PTR(-ENOMEM);
			race_window();	/* another lookup may register the name first */
			continue;	/* and look again */
		}
		if (!other) {	/* ours to look up */
			flag_set(fresh, DCACHE_IN_LOOKUP);
			hlist_add_head_rcu(&fresh->d_hash, &ib->chain);
			trace_inlookup_add(fresh);
			spin_unlock(&ib->lock);
			race_window();	/* ours now: lookups of the name wait from here */
			return fresh;
		}
		spin_unlock(&ib->lock);
		/* Someone is looking this name up: wait, then look again.  If
		 * its lookup succeeded, the d_lookup above finds the result. */
		trace_inlookup_wait(other);
		int err = d_wait_lookup(other);
		trace_inlookup_woken(other, err);
		race_window();	/* done: the name may be dropped or moved before we look */
		dput(other);
		if (err) {
			dput(fresh);
			return ERR_PTR(err);
		}
	}
}

struct dentry *d_alloc_parallel(struct dentry *parent, const struct qstr *q)
{
	return alloc_parallel(parent, q, NULL);
}

struct dentry *d_alloc_parallel_trylock(struct dentry *parent, const struct qstr *q, bool *locked)
{
	*locked = false;
	return alloc_parallel(parent, q, locked);
}

/* Take d off the in-lookup hash and end its in-lookup state.  Caller
 * holds d's in-lookup bucket lock; it wakes the waiters once it lets go. */
static void __d_lookup_unhash(struct dentry *d)
{
	spin_assert_held(&in_lookup_bucket(d->d_name.hash)->lock);
	hlist_del_rcu(&d->d_hash);
	flag_clear(d, DCACHE_IN_LOOKUP);
	trace_inlookup_end(d);
}

/* Most lookups end with no one waiting for them: look before writing the
 * shared queue's lock (wq_has_sleeper orders the IN_LOOKUP clear before
 * its look, against a waiter's check after it queues). */
static void d_wake_waiters(struct dentry *d)
{
	struct wait_queue_head *wq = lookup_wq(d);
	if (wq_has_sleeper(wq))
		wake_up_all(wq);
}

/*
 * The answer to a lookup goes into the dcache in one step, under the
 * in-lookup bucket lock that d_alloc_parallel looks under: the dentry
 * leaves the in-lookup hash, stops being IN_LOOKUP and becomes HASHED
 * together.  So a lookup finds the name either in-lookup (and waits) or
 * hashed and done (and takes it): never hashed and still in-lookup, a
 * state in which it could not tell whose lookup it is.
 */
void d_add(struct dentry *d, struct inode *inode)
{
	struct spinlock *b = d_bucket(d->d_name.hash);
	struct bucket *ib = in_lookup_bucket(d->d_name.hash);
	race_window();	/* answered, not yet hashed: lookups of the name still wait */
	spin_lock(&ib->lock);
	spin_lock(b);
	BUG_ON(READ_ONCE(d->d_flags) & DCACHE_HASHED);	/* one answer per dentry */
	bool in_lookup = READ_ONCE(d->d_flags) & DCACHE_IN_LOOKUP;
	write_seqcount_begin(&d->d_seq);
	d->d_inode = inode;
	write_seqcount_end(&d->d_seq);
	if (in_lookup)
		__d_lookup_unhash(d);
	__d_rehash(d);
	spin_unlock(b);
	spin_unlock(&ib->lock);
	race_window();	/* hashed, waiters not woken yet: new lookups find it */
	if (in_lookup)
		d_wake_waiters(d);
}

void d_lookup_done(struct dentry *d)
{
	struct bucket *ib = in_lookup_bucket(d->d_name.hash);
	race_window();	/* a failed lookup: its waiters still wait */
	spin_lock(&ib->lock);
	bool in_lookup = READ_ONCE(d->d_flags) & DCACHE_IN_LOOKUP;
	if (in_lookup)
		__d_lookup_unhash(d);	/* failed: no d_add ended it */
	spin_unlock(&ib->lock);
	if (in_lookup)
		d_wake_waiters(d);
}

void d_instantiate(struct dentry *d, struct inode *inode)
{
	struct spinlock *b = d_lock_bucket(d);
	BUG_ON(d->d_inode);
	write_seqcount_begin(&d->d_seq);	/* "negative" read before is stale */
	__atomic_store_n(&d->d_inode, inode, __ATOMIC_RELEASE);
	write_seqcount_end(&d->d_seq);
	spin_unlock(b);
}

/*
 * After unlink or rmdir (Linux's d_delete): if the caller's reference is
 * the only one, d becomes negative where it is (still hashed, its LRU
 * place kept: no neighbour's line written) and its inode goes; else it
 * is unhashed, and its holders keep a positive dentry nothing can find.
 *
 * "The only one" must stay true once decided, and one taker needs no
 * lock: an RCU-walk's d_legitimize adds to a count above 0 with a CAS,
 * then trusts d only if d_seq has not moved.  So we move d_seq first and
 * read the count after, the two sides of Dekker's pattern:
 *   1. d_seq goes odd (write_seqcount_begin, a plain store on x86);
 *   2. a full barrier (a locked instruction: GCC's seq_cst fence is
 *      "lock or $0" to the stack, as Linux's smp_mb): x86 may let a
 *      later load pass an earlier store, and step 3 must not read the
 *      count before step 1's store is visible to every CPU;
 *   3. the count is read.
 * d_legitimize does the mirror image: its CAS (a locked instruction,
 * itself a full barrier on x86) adds to the count, then it reads d_seq.
 * Each side stores, fences, then loads what the other stored, so at least
 * one sees the other: we read count > 1 and only unhash (the walker then
 * either keeps a positive, unhashed dentry, or fails its check and lets
 * go), or the walker reads d_seq moved and lets go, whatever we do.
 * Never both blind: never a walker that keeps d while it goes negative.
 * Read the count before moving d_seq and a CAS can land in between and
 * pass its check: an open file on a negative dentry (the test
 * unlink_races_open in tests/test_dcache_races.c).
 * Every other taker is excluded by the bucket lock held throughout
 * (d_lookup, and d_legitimize's count == 0 path) or already holds a
 * reference on d or a child of d (dget, dget_parent, the prune's walk
 * down), which counts.  A mount point is mounted with a reference held.
 * The shrinker and the prune free only unused dentries, and d is held; d
 * is hashed, so it is not in the in-lookup hash.  Negative, d stays live
 * (dcache_live does not drop): the shrinker or a prune frees it later,
 * as any negative dentry, and a create of its name reuses it.
 *
 * Caller holds d and its parent's i_rwsem exclusive, and not d's inode's
 * i_rwsem: the last iput of an unlinked inode may evict it, which takes
 * it (ext2).
 */
void (*d_delete_hook)(struct dentry *d);

/* A change of d, a child of parent: parent's i_rwsem held exclusive, or
 * shared with d's name lock (the parallel protocol, fs/d_name_lock.c). */
static void d_assert_may_change(struct dentry *parent, struct dentry *d)
{
	rwsem_assert_held(&parent->d_inode->i_rwsem);
	if (CONFIG_LOCKDEP && !rwsem_is_write_locked(&parent->d_inode->i_rwsem) && !d_name_locked(d))
		panic("d_move/d_delete: %.*s changed with neither its directory's i_rwsem "
		      "exclusive nor its name lock", (int)d->d_name.len, d->d_name.name);
}

void d_delete(struct dentry *d)
{
	d_assert_may_change(d->d_parent, d);
	struct inode *inode = NULL;
	d_fold_cached(d);	/* "only the remover" is asked of the count below */
	race_window();	/* still positive and hashed: walks and lookups may take d */
	struct spinlock *b = d_lock_bucket(d);
	write_seqcount_begin(&d->d_seq);	/* point 1 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* point 2: store-load barrier */
	race_window();	/* deciding: a walk may be legitimizing d (a spin) */
	if (d_delete_hook)
		d_delete_hook(d);
	int count = __atomic_load_n(&d->d_count, __ATOMIC_RELAXED);	/* point 3 */
	BUG_ON(count < 1);
	race_write_begin(d);	/* decided: walks on d now wait for the change */
	if (count == 1) {
		inode = d->d_inode;
		__atomic_store_n(&d->d_inode, NULL, __ATOMIC_RELAXED);
	} else if (READ_ONCE(d->d_flags) & DCACHE_HASHED) {
		d_assert_bucket_held(d, CHAIN_UNLOCKED);
		hlist_del_rcu(&d->d_hash);
		flag_clear(d, DCACHE_HASHED);
	}
	write_seqcount_end(&d->d_seq);
	race_write_done(d);
	spin_unlock(b);
	if (!inode)
		d_cached_unhashed(d);	/* others hold it: their cached references go */
	iput(inode);
}

unsigned d_count_hashed(struct dentry *parent, const struct qstr *q)
{
	unsigned n = 0;
	struct spinlock *b = d_bucket(q->hash);
	spin_lock(b);
	struct hlist_node *pos;
	hlist_for_each(pos, d_chain(q->hash))
		if (same_name(hlist_entry(pos, struct dentry, d_hash), parent, q))
			n++;
	spin_unlock(b);
	return n;
}

/*
 * Pruning: free the unused dentries below a directory, leaves first
 * (umount, tests).  The walk visits the tree, not the hash table, so it
 * costs what the tree holds, not what the table is sized for.
 *
 * It holds a reference on the directory it scans and, while scanning,
 * that directory's d_lock, under which a child's bucket lock may only be
 * trylocked (the order is bucket -> d_lock); a busy bucket means a rescan.
 * Under the bucket lock a hashed child with no references is a leaf and is
 * unhashed onto a victim list (freed once the locks are dropped); a child
 * with children is pinned with a reference and walked into.  Each
 * walk has a generation number and stamps a directory with it when done
 * below it, so a directory whose children stay in use is walked once.
 * Coming back up, the scan resumes at the child it came from, if that is
 * still a child (a rename may have moved it: d_move holds the old parent's
 * d_lock), and a last clean scan from the start collects the children that
 * became unused.  The way up is checked against top (prune_climb): a
 * directory that a rename took elsewhere sends the walk back to top.
 * A child that is unused but no longer hashed is being freed by another
 * thread and still holds its parent: the scan waits for it (busy).
 */
static uint32_t prune_gen;
static uint64_t prune_waits;	/* scans that met a busy child: for tests */

uint64_t d_prune_waits(void)
{
	return __atomic_load_n(&prune_waits, __ATOMIC_RELAXED);
}

struct prune_scan {
	struct hlist_head victims;     /* unhashed, to free */
	struct dentry *down;    /* a child to walk into, pinned */
	bool busy;              /* met a busy bucket */
};

static void prune_scan(struct dentry *dir, struct dentry *from, uint32_t gen, struct prune_scan *ps)
{
	hlist_head_init(&ps->victims);
	ps->down = NULL;
	ps->busy = false;
	spin_lock(&dir->d_lock);
	struct list_head *pos = &dir->d_subdirs;
	if (from && from->d_parent == dir)
		pos = from->d_child.prev;	/* resume at from */
	for (pos = pos->next; pos != &dir->d_subdirs && !ps->down; pos = pos->next) {
		struct dentry *c = list_entry(pos, struct dentry, d_child);
		struct spinlock *b = d_bucket(c->d_name.hash);
		if (!spin_trylock(b)) {
			ps->busy = true;
			continue;
		}
		int count = __atomic_load_n(&c->d_count, __ATOMIC_RELAXED);
		if (count == 0 && (READ_ONCE(c->d_flags) & DCACHE_HASHED)) {
			race_write_begin(c);	/* done once freed (free_victims) */
			__d_unhash(c);	/* no references: no children either */
			hlist_add_head_rcu(&c->d_hash, &ps->victims);
		} else if (count > 0 && !data_race(list_empty(&c->d_subdirs)) &&
			   __atomic_load_n(&c->d_prune_gen, __ATOMIC_RELAXED) != gen) {
			/* (data_race: c's children change under c->d_lock, not
			 * held here; a child being added or removed is seen or
			 * not, as if that came after or before this scan, both
			 * of which the prune allows.)
			 * Its count cannot reach 0 while we hold its bucket lock
			 * (see dput), hashed or not (a removed directory whose
			 * negative children keep it). */
			ps->down = dget(c);
		} else if (count == 0 && !(READ_ONCE(c->d_flags) & DCACHE_IN_LOOKUP)) {
			/* Unhashed and unused: another thread (the shrinker,
			 * another prune, a dput) is freeing it, and it still
			 * holds dir.  Wait for it, or umount would call an idle
			 * tree busy. */
			ps->busy = true;
		}
		spin_unlock(b);
	}
	spin_unlock(&dir->d_lock);
}

static void free_victims(struct hlist_head *victims)
{
	while (victims->first) {
		struct dentry *d = hlist_entry(victims->first, struct dentry, d_hash);
		hlist_del_rcu(&d->d_hash);
		d_kill(d);
		race_write_done(d);
	}
}

void (*d_prune_climb_hook)(struct dentry *dir);

/*
 * The directory to go back up to from dir, with a reference, and its
 * depth below top; NULL if dir is no longer below top.  d_parent is not
 * enough: a rename may have moved dir since the walk came down, to
 * another depth or out of top's tree, and a walk that trusted its depth
 * count would then stop in the wrong directory (leaving top's other
 * dentries behind) or climb above top.  rename_lock keeps every d_parent
 * still while the chain is counted, and each dentry on it is kept by its
 * child's reference, the first by ours on dir.
 */
static struct dentry *prune_climb(struct dentry *top, struct dentry *dir, unsigned *depth)
{
	read_seqlock_excl(&rename_lock);
	unsigned steps = 0;
	struct dentry *a = dir;
	while (a != top && a->d_parent != a) {
		a = a->d_parent;
		steps++;
	}
	struct dentry *up = a == top && steps > 0 ? dget(dir->d_parent) : NULL;
	read_sequnlock_excl(&rename_lock);
	*depth = up ? steps - 1 : 0;
	return up;
}

/* Whether dir has no children now (as the first scan would find it). */
static bool d_childless(struct dentry *dir)
{
	spin_lock(&dir->d_lock);
	bool none = list_empty(&dir->d_subdirs);
	spin_unlock(&dir->d_lock);
	return none;
}

void d_prune_unused(struct dentry *top)
{
	/* Nothing below top (most rmdirs): done without taking a generation,
	 * whose counter every prune writes. */
	if (d_childless(top))
		return;
	d_fold_all_cached();	/* an open file's cached reference counts as a use */
	uint32_t gen;
	while ((gen = __atomic_add_fetch(&prune_gen, 1, __ATOMIC_RELAXED)) == 0)
		;	/* 0 is what a new dentry has */
	struct dentry *dir = dget(top), *from = NULL;
	unsigned depth = 0;
	for (;;) {
		struct prune_scan ps;
		prune_scan(dir, from, gen, &ps);
		bool clean = !from && !ps.victims.first && !ps.busy && !ps.down;
		free_victims(&ps.victims);
		if (from) {
			dput(from);	/* unused now, perhaps: the next scan sees */
			from = NULL;
		}
		if (ps.down) {
			dput(dir);	/* down's reference on it keeps it */
			dir = ps.down;
			depth++;
			continue;
		}
		if (ps.busy) {
			__atomic_fetch_add(&prune_waits, 1, __ATOMIC_RELAXED);
			yield();	/* let the thread freeing it finish */
		}
		if (!clean)
			continue;	/* again, from the start */
		__atomic_store_n(&dir->d_prune_gen, gen, __ATOMIC_RELAXED);
		if (depth == 0)
			break;
		if (d_prune_climb_hook)
			d_prune_climb_hook(dir);
		race_window();	/* a rename may move dir now */
		struct dentry *up = prune_climb(top, dir, &depth);
		if (!up) {	/* dir left top's tree: start over from top */
			dput(dir);
			dir = dget(top);
			continue;
		}
		from = dir;
		dir = up;
	}
	dput(dir);
}

void d_prune_sb(struct super_block *sb)
{
	d_fold_all_cached();	/* umount asks the root's count exactly, after */
	d_refcache_wait_drops();	/* and other CPUs' folds, to the end */
	d_prune_unused(sb->s_root);
}

static bool listed_under_parent(struct dentry *d)
{
	bool found = false;
	struct dentry *p = d->d_parent;
	spin_lock(&p->d_lock);
	struct list_head *pos;
	list_for_each(pos, &p->d_subdirs)
		if (list_entry(pos, struct dentry, d_child) == d)
			found = true;
	spin_unlock(&p->d_lock);
	return found;
}

unsigned d_check_sb(struct super_block *sb)
{
	unsigned bad = 0;
	for (uint64_t i = 0; i <= dcache_mask; i++) {
		struct spinlock *b = d_bucket((uint32_t)i);
		spin_lock(b);
		struct hlist_node *pos, *pos2;
		hlist_for_each(pos, d_chain((uint32_t)i)) {
			struct dentry *d = hlist_entry(pos, struct dentry, d_hash);
			if (d->d_sb != sb)
				continue;
			if (__atomic_load_n(&d->d_count, __ATOMIC_RELAXED) < 0) {
				kprintf("dcache: %s has count %d\n", d->d_name.name, d->d_count);
				bad++;
			}
			for (pos2 = pos->next; pos2; pos2 = pos2->next)
				if (same_name(hlist_entry(pos2, struct dentry, d_hash), d->d_parent, &d->d_name)) {
					kprintf("dcache: '%s' is hashed twice in one directory\n", d->d_name.name);
					bad++;
				}
			if (!listed_under_parent(d)) {
				kprintf("dcache: '%s' is missing from its parent's children\n", d->d_name.name);
				bad++;
			}
		}
		spin_unlock(b);
	}
	return bad;
}

/* ---- the LRU and the shrinker ------------------------------------------ */

/*
 * The list whose head (its oldest dentry) is the oldest of all, or NULL
 * if every list is empty.  Each list is looked at under its lock, one at
 * a time; the answer may be stale by the time the caller locks it, which
 * only makes a victim a little younger than the oldest.
 */
static struct dentry_lru *oldest_lru(void)
{
	struct dentry_lru *best = NULL;
	uint32_t best_stamp = 0;
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		struct dentry_lru *l = &lrus[cpu];
		if (!__atomic_load_n(&l->len, __ATOMIC_RELAXED))
			continue;
		spin_lock(&l->lock);
		lru_flush_batch(l);	/* the shrinker sees every unused dentry */
		if (!list_empty(&l->list)) {
			uint32_t stamp = list_first_entry(&l->list, struct dentry, d_lru)->d_lru_stamp;
			if (!best || (int32_t)(stamp - best_stamp) < 0) {
				best = l;
				best_stamp = stamp;
			}
		}
		spin_unlock(&l->lock);
	}
	return best;
}

/*
 * Move up to nr unused dentries from the LRU onto victims (unhashed),
 * oldest first; drop from the LRU those found in use, and move those
 * referenced since they joined to their list's tail (their flag cleared:
 * a second chance).  Each step costs one of *budget.  Returns how many it
 * moved, or -1 if it met a busy bucket: the caller lets go and tries
 * again, since the bucket's holder may be waiting for the LRU lock.
 */
static int lru_collect(unsigned nr, unsigned *budget, struct hlist_head *victims)
{
	int n = 0;
	struct dentry_lru *l;
	while ((unsigned)n < nr && *budget && (l = oldest_lru())) {
		(*budget)--;
		spin_lock(&l->lock);
		if (list_empty(&l->list)) {	/* emptied meanwhile */
			spin_unlock(&l->lock);
			continue;
		}
		struct dentry *d = list_first_entry(&l->list, struct dentry, d_lru);
		struct spinlock *b = d_trylock_bucket(d);
		if (!b) {
			spin_unlock(&l->lock);
			n = n ? n : -1;
			break;
		}
		bool unused = __atomic_load_n(&d->d_count, __ATOMIC_RELAXED) == 0 &&
			      (READ_ONCE(d->d_flags) & DCACHE_HASHED);
		if (unused && d->d_referenced) {
			d->d_referenced = 0;
			list_del(&d->d_lru);
			list_add_tail(&d->d_lru, &l->list);
			d->d_lru_stamp = lru_now();
		} else {
			__d_lru_del(l, d);
			if (unused) {
				race_write_begin(d);	/* done once freed (dcache_shrink) */
				__d_unhash(d);	/* unused: no children either (they hold it) */
				hlist_add_head_rcu(&d->d_hash, victims);
				n++;
			}
		}
		spin_unlock(b);
		spin_unlock(&l->lock);
	}
	return n;
}

unsigned d_check_lru(void)
{
	unsigned bad = 0;
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct dentry_lru *l = &lrus[cpu];
		uint64_t n = 0;
		spin_lock(&l->lock);
		struct list_head *pos;
		list_for_each(pos, &l->list) {
			struct dentry *d = list_entry(pos, struct dentry, d_lru);
			if (d->d_lru_cpu != cpu) {
				kprintf("dcache: '%s' is on CPU %u's LRU but says %u\n", d->d_name.name, cpu,
					d->d_lru_cpu);
				bad++;
			}
			n++;
		}
		for (unsigned i = 0; i < l->nbatch; i++, n++)
			if (l->batch[i]->d_lru_cpu != cpu || l->batch[i]->d_lru.next != LRU_BATCHED) {
				kprintf("dcache: '%s' is in CPU %u's LRU batch but says %u, %p\n",
					l->batch[i]->d_name.name, cpu, l->batch[i]->d_lru_cpu,
					(void *)l->batch[i]->d_lru.next);
				bad++;
			}
		if (n != l->len) {
			kprintf("dcache: CPU %u's LRU holds %lu dentries but counts %lu\n", cpu, n, l->len);
			bad++;
		}
		spin_unlock(&l->lock);
	}
	return bad;
}

void (*dcache_shrink_hook)(void);

unsigned dcache_shrink(unsigned nr)
{
	might_sleep();	/* the fold's drops may evict (see shrink_dentries) */
	d_fold_all_cached();	/* a closed file's dentry may be unused, then */
	return __dcache_shrink(nr);
}

static unsigned __dcache_shrink(unsigned nr)
{
	/* Entries found in use are dropped from the LRU as they are met, so
	 * a few times nr looks is enough; the budget bounds the work when
	 * the LRU is long and mostly in use.  (Beware overflow: tests ask for
	 * ~0u, everything.) */
	unsigned freed = 0, budget = nr > (UINT32_MAX - 64) / 4 ? UINT32_MAX : 4 * nr + 64;
	while (freed < nr && budget) {
		struct hlist_head victims = { NULL };
		int n = lru_collect(nr - freed, &budget, &victims);
		if (n < 0) {
			cpu_relax();
			continue;
		}
		if (n == 0)
			break;
		if (dcache_shrink_hook)
			dcache_shrink_hook();
		while (victims.first) {
			struct dentry *d = hlist_entry(victims.first, struct dentry, d_hash);
			hlist_del_rcu(&d->d_hash);
			d_kill(d);	/* the parent may become unused in turn */
			race_write_done(d);
		}
		freed += (unsigned)n;
	}
	return freed;
}

void dcache_get_stats(struct dcache_stats *st)
{
	*st = (struct dcache_stats){ .buckets = dcache_mask + 1 };
	for (uint64_t i = 0; i <= dcache_mask; i++) {
		struct spinlock *b = d_bucket((uint32_t)i);
		spin_lock(b);
		struct hlist_node *pos;
		hlist_for_each(pos, d_chain((uint32_t)i)) {
			struct dentry *d = hlist_entry(pos, struct dentry, d_hash);
			if (d->d_inode)
				st->positive++;
			else
				st->negative++;
			if (__atomic_load_n(&d->d_count, __ATOMIC_RELAXED) == 0)
				st->unused++;
		}
		spin_unlock(b);
	}
	for (unsigned i = 0; i < IN_LOOKUP_BUCKETS; i++) {
		struct bucket *b = &in_lookup_table[i];
		spin_lock(&b->lock);
		struct hlist_node *pos;
		hlist_for_each(pos, &b->chain)
			st->in_lookup++;
		spin_unlock(&b->lock);
	}
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
		st->lru += __atomic_load_n(&lrus[cpu].len, __ATOMIC_RELAXED);
}

void d_for_each_child(struct dentry *dir, void (*fn)(struct dentry *child, void *arg), void *arg)
{
	spin_lock(&dir->d_lock);
	struct list_head *pos;
	list_for_each(pos, &dir->d_subdirs)
		fn(list_entry(pos, struct dentry, d_child), arg);
	spin_unlock(&dir->d_lock);
}

void d_set_mounted(struct dentry *d, bool mounted)
{
	if (mounted)
		flag_set(d, DCACHE_MOUNTED);
	else
		flag_clear(d, DCACHE_MOUNTED);
}

/* ---- rename ------------------------------------------------------------ */

/* Exchange two dentries' names (inline names are copied, heap names
 * change hands), lengths and hashes.  Caller holds the locks d_move takes
 * (rename_lock only if the parents differ). */
static void swap_names(struct dentry *a, struct dentry *b)
{
	if (a->d_parent != b->d_parent)
		spin_assert_held(&rename_lock.lock);
	spin_assert_held(&a->d_lock);
	spin_assert_held(&b->d_lock);
	bool a_inline = a->d_name.name == a->d_iname, b_inline = b->d_name.name == b->d_iname;
	if (a_inline && b_inline) {
		char tmp[DNAME_INLINE_LEN];
		memcpy(tmp, a->d_iname, sizeof(tmp));
		memcpy(a->d_iname, b->d_iname, sizeof(tmp));
		memcpy(b->d_iname, tmp, sizeof(tmp));
	} else if (a_inline) {
		memcpy(b->d_iname, a->d_iname, sizeof(a->d_iname));
		a->d_name.name = b->d_name.name;
		b->d_name.name = b->d_iname;
	} else if (b_inline) {
		memcpy(a->d_iname, b->d_iname, sizeof(b->d_iname));
		b->d_name.name = a->d_name.name;
		a->d_name.name = a->d_iname;
	} else {
		const char *t = a->d_name.name;
		a->d_name.name = b->d_name.name;
		b->d_name.name = t;
	}
	uint32_t len = a->d_name.len, hash = a->d_name.hash;
	a->d_name.len = b->d_name.len;
	b->d_name.len = len;
	__atomic_store_n(&a->d_name.hash, b->d_name.hash, __ATOMIC_RELAXED);	/* see d_hash_now */
	__atomic_store_n(&b->d_name.hash, hash, __ATOMIC_RELAXED);
}

/* Lock two spinlocks of one class in address order (once if they are the
 * same lock): every d_move takes its pairs so, and nothing else holds two
 * buckets or two parents at once, so two moves in two directories cannot
 * deadlock. */
static void lock_pair(struct spinlock *a, struct spinlock *b)
{
	if (a == b) {
		spin_lock(a);
		return;
	}
	if (a > b) {
		struct spinlock *t = a;
		a = b;
		b = t;
	}
	spin_lock(a);
	spin_lock_nested(b, 1);
}

static void unlock_pair(struct spinlock *a, struct spinlock *b)
{
	if (a != b)
		spin_unlock(b);
	spin_unlock(a);
}

/* The two dentries d_move moves, after their parents (a parent's d_lock
 * comes before its children's: subclasses 2 and 3, in address order). */
static void lock_children(struct dentry *a, struct dentry *b)
{
	if (a > b) {
		struct dentry *t = a;
		a = b;
		b = t;
	}
	spin_lock_nested(&a->d_lock, 2);
	spin_lock_nested(&b->d_lock, 3);
}

/*
 * Move d to target's place, target to d's (rename: target is the name
 * being replaced, or a negative dentry for a new name), in one step for
 * every lookup.  Caller holds both parents' i_rwsem, exclusive or shared
 * with both names locked (d_assert_may_change).
 *
 * rename_lock is taken only when the parents differ: its readers (d_path,
 * prune_climb, an RCU-walk's "..") follow d_parent chains, and a move
 * within one directory changes no d_parent.  Such a move changes names,
 * which the holders of the moved dentries' d_locks (taken here too) and
 * of their buckets' locks see change in one step; d_path reads each name
 * under its d_lock for that.  So a rename in one directory writes no line
 * that a path walk elsewhere reads.  Moves that skip rename_lock (in two
 * directories, or of different names in one) take their bucket pairs,
 * and moves between directories (since files move with s_rename_rwsem
 * shared, several at once) their parents' pairs, in address order.
 *
 * A negative target that only the caller holds (a rename to a new name)
 * ends hashed under d's old name, a negative dentry for the name that is
 * gone; any other target ends unhashed, as in Linux.
 */
void d_move(struct dentry *d, struct dentry *target)
{
	struct dentry *old_parent = d->d_parent, *new_parent = target->d_parent;
	struct spinlock *b1 = d_bucket(d->d_name.hash), *b2 = d_bucket(target->d_name.hash);
	bool reparents = old_parent != new_parent;

	d_assert_may_change(old_parent, d);
	d_assert_may_change(new_parent, target);
	d_fold_cached(target);	/* its count is asked below ("only the caller") */
	race_write_begin(d);	/* walks that read d or target wait for the move */
	race_write_begin(target);
	race_window();	/* both names still as they were: lookups of either may run */
	if (reparents)
		write_seqlock(&rename_lock);
	lock_pair(b1, b2);
	lock_pair(&old_parent->d_lock, &new_parent->d_lock);
	lock_children(d, target);	/* their d_parent changes: see dget_parent */
	write_seqcount_begin(&d->d_seq);
	write_seqcount_begin(&target->d_seq);
	/* A negative target only the caller holds takes d's old name and
	 * stays hashed: the old name is missing now, and its next lookup
	 * finds that without the filesystem (as d_delete leaves an unlinked
	 * name).  It is not freed either, which would write its LRU and
	 * sibling neighbours.  "Only" as d_delete decides it: d_seq moved,
	 * a full barrier, then the count, against d_legitimize's CAS. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	bool keep = (READ_ONCE(target->d_flags) & DCACHE_HASHED) && !target->d_inode &&
		    __atomic_load_n(&target->d_count, __ATOMIC_RELAXED) == 1;

	if (READ_ONCE(d->d_flags) & DCACHE_HASHED) {
		d_assert_bucket_held(d, CHAIN_UNLOCKED);
		hlist_del_rcu(&d->d_hash);
	}
	if (keep) {
		d_assert_bucket_held(target, CHAIN_UNLOCKED);
		hlist_del_rcu(&target->d_hash);
	} else if (READ_ONCE(target->d_flags) & DCACHE_HASHED) {
		__d_unhash(target);
	}
	swap_names(d, target);
	race_window();	/* names swapped, parents not yet: a spin, locks held */
	/* Each held a reference on its parent; they trade parents and so
	 * trade references: no count changes.  Within one directory nothing
	 * is stored: d_parent changes only under rename_lock, which d_path
	 * and the prune's climb rely on. */
	if (reparents) {	/* else both stay where they are in one list */
		d->d_parent = new_parent;
		target->d_parent = old_parent;
		list_del(&d->d_child);
		list_add(&d->d_child, &new_parent->d_subdirs);
		list_del(&target->d_child);
		list_add(&target->d_child, &old_parent->d_subdirs);
	}
	d_assert_bucket_held(d, CHAIN_UNLOCKED);
	hlist_add_head_rcu(&d->d_hash, d_chain(d->d_name.hash));	/* d's new name's chain */
	flag_set(d, DCACHE_HASHED);
	if (keep)
		hlist_add_head_rcu(&target->d_hash, d_chain(target->d_name.hash));	/* d's old one's */
	write_seqcount_end(&target->d_seq);
	write_seqcount_end(&d->d_seq);
	race_write_done(d);
	race_write_done(target);

	spin_unlock(&target->d_lock);
	spin_unlock(&d->d_lock);
	unlock_pair(&old_parent->d_lock, &new_parent->d_lock);
	unlock_pair(b1, b2);
	if (reparents)
		write_sequnlock(&rename_lock);
	if (!keep)
		d_cached_unhashed(target);	/* an open file's cached reference goes */
}
