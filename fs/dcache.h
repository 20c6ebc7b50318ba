/*
 * dcache.h: dentries and the dentry cache.
 *
 * A dentry is a name in a directory: (parent, name) -> inode, or no inode
 * at all (a negative dentry: "this name does not exist", cached too).
 * The dcache hashes dentries by (parent, name) so that a lookup that hits
 * never calls the filesystem nor takes the directory's i_rwsem.
 *
 * The state machine of a name's dentry (the heart of parallel lookups):
 *
 *   (absent) --d_alloc_parallel--> IN_LOOKUP --d_add--> HASHED (positive
 *        ^                            |                 or negative)
 *        |                            +--d_lookup_done without d_add
 *        +------- dropped ------------+   (the lookup failed)
 *
 * While a dentry is IN_LOOKUP it sits in the in-lookup hash instead of
 * the dcache hash (its d_hash link is reused: it is never on both), and a
 * second lookup of the same (parent, name) finds it there and waits for it
 * instead of asking the filesystem again.  Invariant: never two HASHED
 * dentries with the same parent and name.
 *
 * What each lock protects (the same rows as docs/design/08-lock-order.md's
 * table, which also gives their order among all locks):
 *   rename_lock            every dentry's d_parent: d_move writes them
 *                          under it (and the locks below), and the names
 *                          of a move between two directories; d_path and
 *                          the prune's climb read a chain of them under
 *                          it, an RCU-walk's ".." its count.  A move
 *                          within one directory does not take it: it
 *                          changes names only, under the moved dentries'
 *                          d_locks and buckets, as below
 *   in-lookup bucket lock  an in-lookup hash chain, IN_LOOKUP on its
 *                          dentries, and moving a dentry from it to the
 *                          dcache hash (so holding it freezes that step)
 *   dcache bucket lock     one lock per group of 8 dcache hash chains
 *                          (dcache.c): the chains, HASHED and d_inode of
 *                          their dentries, d_seq's writers, a dentry's
 *                          last reference going (d_count's 1 -> 0 step:
 *                          see dput), and with the LRU lock d_lru
 *   dentry.d_lock          the dentry's list of children (d_subdirs, the
 *                          children's d_child), and its own d_parent for
 *                          dget_parent and d_name for d_path (d_move holds
 *                          the moved dentries' d_locks too)
 *   mount_lock             DCACHE_MOUNTED (fs/mount.c)
 *   dentry.d_lock, or the  setting DCACHE_PAR_UPDATE, the name lock (fs/d_name_lock.c:
 *   dcache bucket lock     an atomic or, whose old value says who won; its
 *                          holder clears it with an atomic and alone)
 *   dentry LRU lock        one CPU's LRU list of unused dentries and its
 *                          batch of dentries joining it; d_lru changes
 *                          only under both it and the dentry's bucket
 *                          lock (a neighbour's, or a batched dentry's as
 *                          the batch joins the list, under it alone)
 *   d_count                atomic; above 1 it changes with no lock.  It
 *                          also counts one spare reference for each CPU
 *                          whose cache of open files' references holds
 *                          the dentry: fs/d_refcache.c, which folds them
 *                          back before any exact question about it
 * The shrinker starts from the LRU, so it only trylocks buckets.
 *
 * Removal (d_delete, after unlink and rmdir, Linux's contract): a dentry
 * whose only reference is the remover's becomes negative in place,
 * hashed and where it was on the LRU; one that others hold is unhashed,
 * and stays positive for them.  "Only" is decided under the bucket lock
 * with d_seq already moved and a full barrier before the count is read,
 * because an RCU-walk takes a reference with no lock (d_legitimize: a
 * CAS, then a d_seq check): see d_delete for the ordering.  So a dentry
 * someone holds never loses its inode, and a dentry never gains a
 * reference through an RCU-walk once d_delete has decided it is unused.
 *
 * Unused dentries: a hashed dentry whose last reference goes stays in the
 * cache and joins the LRU of the CPU it is on (one list per CPU, as Linux
 * keeps one per NUMA node: two CPUs never share a list head).  It joins
 * once: a later last dput only marks it referenced (d_referenced, if it
 * is not already), and the shrinker, which takes the oldest head of all the
 * lists, gives a referenced dentry a second chance at its list's tail and
 * drops from the LRU any it finds in use, to be queued again when they
 * are next unused (Linux's lazy LRU).  Joining goes through a per-CPU
 * batch of 15 that joins the list when full or when the shrinker looks
 * (Linux's pagevecs for pages), so that a join does not write the link
 * of the dentry at the list's tail, beside its d_count.  A dentry's
 * children hold references on it, so an unused dentry never has children.
 */
#ifndef FS_DCACHE_H
#define FS_DCACHE_H

#include <stdbool.h>
#include <stdint.h>
#include "fs/d_refcache.h"
#include "kernel/list.h"
#include "kernel/rcu.h"
#include "kernel/seqlock.h"
#include "kernel/spinlock.h"

struct inode;
struct super_block;

struct qstr {
	const char *name;
	uint32_t len;
	uint32_t hash;             /* of (parent, name): see d_hash_name */
};

#define DNAME_INLINE_LEN 36       /* names up to 35 bytes; longer ones are kmalloc'd */

#define DCACHE_HASHED    0x1
#define DCACHE_IN_LOOKUP 0x2
#define DCACHE_MOUNTED   0x4       /* a filesystem is mounted here (fs/mount.c) */
/* Set at allocation from the super block's s_d_op (never changed): */
#define DCACHE_OP_REVALIDATE 0x8   /* every hit asks s_d_op->d_revalidate */
#define DCACHE_OP_DELETE 0x10      /* the last dput asks s_d_op->d_delete */

/*
 * What a filesystem whose names are not its own to keep (procfs: a pid
 * directory lasts as long as its process) tells the dcache, Linux's
 * names and contract.  docs/design/26-procfs.md has the rules.
 */
struct dentry_operations {
	/* A hit: is d, found hashed, still the name?  Called with a
	 * reference and no spinlock, never in RCU mode, so it may sleep (9p's
	 * cache=none asks the server), perhaps holding the parent's i_rwsem
	 * (shared or exclusive: a slow lookup's or a change's).  false: the
	 * dcache unhashes d (d_invalidate) and the lookup goes to the
	 * filesystem again.  A lockless RCU-walk never answers from such a
	 * dentry: it leaves the name to the reference walk, which asks.
	 * flags: LOOKUP_PARENT if the walk goes on below d (only d's name
	 * and file matter, not its attributes), else 0. */
	bool (*d_revalidate)(struct dentry *d, unsigned flags);
	/* The last reference is going (under d's bucket lock): true frees d
	 * at once instead of keeping it unused on the LRU. */
	bool (*d_delete)(const struct dentry *d);
};
#define DCACHE_PAR_UPDATE 0x20     /* its name lock is held: a change of the name is under way (fs/d_name_lock.c) */

/* d_revalidate's flags (Linux's name: the walk is still on its way to
 * the last component's parent). */
#define LOOKUP_PARENT 0x1

/*
 * The revalidation clock, for a d_revalidate that asks a server (9p's
 * cache=none).  d_revalidate_ticket() numbers a question as it is asked,
 * before it is sent; a path walk reads d_revalidate_now() as it begins,
 * and d_revalidate_since() gives the calling thread's reading (fs/namei.c;
 * UINT64_MAX outside a walk).  An answer to a question numbered at or
 * after it was asked after the walk began: the server's state at a moment
 * of the walk, as fresh as the walk may demand, so the filesystem may
 * answer this step with it instead of asking again.  (A nested walk only
 * moves the reading later, and its end clears it: never earlier.)
 */
extern uint64_t d_revalidate_clock;
static inline uint64_t d_revalidate_now(void)
{
	return __atomic_load_n(&d_revalidate_clock, __ATOMIC_SEQ_CST);
}
static inline uint64_t d_revalidate_ticket(void)
{
	return __atomic_fetch_add(&d_revalidate_clock, 1, __ATOMIC_SEQ_CST);
}
uint64_t d_revalidate_since(void);
/* The calling walk took the answer to the question numbered ticket (a
 * revalidation it joined, already asked): from now on it may take any
 * answer numbered ticket or later, no fresher a promise than the one it
 * took.  Only ever moves the walk's reading earlier; outside a walk,
 * nothing. */
void d_revalidate_joined(uint64_t ticket);
/* For a d_revalidate that can ask about several names in one round trip
 * (9p's cache=none, a Twalk of up to 16): the rest of the path after the
 * name being revalidated, as the walk will take it ("b/c" or "/b/c", ""
 * at the end), or NULL when the call is not a walk's step or the step is
 * inside a symlink's body (whose end is not the walk's).  It is a guess,
 * not a promise: the walk may still stop early (an error, a mount, a
 * link), so a filesystem may answer ahead but must not act ahead. */
const char *d_revalidate_ahead(void);
/* The hashed dentry of (parent, q), held, as the dcache has it: the
 * filesystem is not asked (no d_revalidate).  For a filesystem that
 * confirms names ahead of the walk (above); q hashed by d_hash_name. */
struct dentry *d_lookup_cached(struct dentry *parent, const struct qstr *q);

/*
 * Three lines in release builds (192 bytes, as Linux's), each dentry on
 * lines of its own (the slab aligns them to 64), so two dentries never
 * share a line.  What goes where is decided by who reads and who writes:
 *   line 1: what a hash-chain walk reads: the chain link, the (parent,
 *           name) it compares, the flags, d_seq, the inode, and the
 *           first 8 bytes of the inline name, so that a hit on a name of
 *           up to 8 bytes reads no other line (Linux's d_iname starts in
 *           its first line too).  Written only when the dentry changes
 *           (hashed, renamed, instantiated).
 *   line 2: the rest of the inline name, which a hit on a longer name
 *           reads; the super block; the prune's generation; the LRU's
 *           CPU and stamp, written when the dentry itself joins the LRU
 *           (once: see dput) or the shrinker moves it; after d_kill, the
 *           RCU callback in their place; the CPUs that cache a file's
 *           reference on it, written by a CPU's first open of it and by a
 *           fold (fs/d_refcache.c); d_time, written by a revalidation
 *           that asked a server.  No neighbour's change writes here,
 *           so a walk that compares this name shares no line with
 *           another CPU's LRU.
 *   line 3: what taking and dropping references, changing children
 *           and the LRU write: d_count and the LRU's referenced mark
 *           beside it (one line for a last dput), d_lock (8 bytes in
 *           release builds: kernel/spinlock.h), the children list, the
 *           link on the parent's (which a sibling's create or unlink
 *           writes), and the LRU link, which a neighbour joining or
 *           leaving the LRU writes.  No walk in RCU mode reads it.
 * Debug builds' spinlocks carry the holder, a name and a lockdep_map, so
 * line 3 spills into a fourth there (256 bytes).
 */
struct dentry {
	/* Line 1. */
	/* The dcache chain (its bucket lock), or while IN_LOOKUP the
	 * in-lookup chain (the in-lookup bucket lock). */
	struct hlist_node d_hash;
	struct dentry *d_parent;   /* rename_lock and d_lock; holds a reference; the root is its own parent */
	struct qstr d_name;        /* d_lock and the bucket lock (+ rename_lock between directories); d_iname or the heap */
	/* DCACHE_*, changed with atomic or/and: HASHED under the dcache
	 * bucket lock, IN_LOOKUP under the in-lookup bucket lock, MOUNTED
	 * under mount_lock, PAR_UPDATE set under d_lock.  So even a read under
	 * one of those locks races with another bit's change: every read is
	 * marked (an acquire load, or READ_ONCE where no order is needed). */
	unsigned d_flags;
	/* Moves on every change a lockless reader must notice: d_inode set or
	 * cleared, unhashing, a rename of d_parent/d_name.  Written under the
	 * bucket lock of d's name (both buckets in d_move), which serializes
	 * its writers. */
	struct seqcount d_seq;
	struct inode *d_inode;     /* bucket lock: set by d_add before HASHED; NULL: negative */
	/* Short names live here: 8 bytes in line 1, the rest in line 2. */
	char d_iname[DNAME_INLINE_LEN];

	/* Line 2 (after the name). */
	/* The last prune walk done below it (d_prune_unused; atomic). */
	uint32_t d_prune_gen;
	struct super_block *d_sb;  /* fixed at allocation */
	union {
		struct {
			/* As d_lru. */
			uint32_t d_lru_cpu;        /* whose list; set when it joins */
			uint32_t d_lru_stamp;      /* when it joined (or went back to the tail) */
			/* The CPUs whose cache of file references has a slot
			 * naming it (fs/d_refcache.c; atomic: set and cleared
			 * under that CPU's table lock): a fold of this dentry
			 * looks at those tables only.  0 when it is freed: a
			 * slot's reference keeps it. */
			uint64_t d_refcache_cpus;
			/* Linux's: the filesystem's, for d_revalidate (9p's
			 * cache=none: the revalidation clock's reading when the
			 * server last confirmed the dentry; atomic).  Read and
			 * written only through a reference, so never after
			 * d_kill. */
			uint64_t d_time;
		};
		/* Freeing waits a grace period (d_kill): an RCU-walk may still
		 * be reading the dentry and its name.  Off the LRU by then. */
		struct rcu_head d_rcu;
	};

	/* Line 3. */
	int d_count;               /* references (atomic) */
	/* Bucket lock: used again since it joined the LRU (Linux's
	 * DCACHE_REFERENCED, kept apart from d_flags, which walks read). */
	uint32_t d_referenced;
	/* d_lock. */
	struct spinlock d_lock;
	struct list_head d_subdirs;
	/* The parent's d_lock. */
	struct list_head d_child;  /* on the parent's d_subdirs */
	/* Bucket lock and the LRU lock of list d_lru_cpu. */
	struct list_head d_lru;
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct rcu_head) >= 24, "d_refcache_cpus and d_time share d_rcu's place");

#if !CONFIG_LOCKDEP
_Static_assert(sizeof(struct dentry) == 192, "a dentry is three lines");
_Static_assert(__builtin_offsetof(struct dentry, d_iname) == 56,
	       "a chain walk's fields and the name's first 8 bytes fill line 1");
_Static_assert(__builtin_offsetof(struct dentry, d_count) == 128, "line 3 starts at d_count");
_Static_assert(__builtin_offsetof(struct dentry, d_lru) + sizeof(struct list_head) <= 192,
	       "the LRU link is in line 3, not in the name's lines");
#endif

void dcache_init(void);
uint64_t dcache_live(void);
uint64_t dcache_buckets(void);
const struct dentry *d_hash_chain_first(uint32_t hash);

/* What the cache holds now (a scan: for the shell and tests). */
struct dcache_stats {
	uint64_t buckets, positive, negative, in_lookup, unused, lru;
};
void dcache_get_stats(struct dcache_stats *s);
/* Free up to nr unused dentries, oldest first; returns how many.  It
 * folds every CPU's cache of file references first, so that closed
 * files' dentries count as unused, and may sleep: the allocator's
 * shrinker, which may not, frees without folding (dcache.c). */
unsigned dcache_shrink(unsigned nr);
/* Put this CPU's batch of dentries joining the LRU on its list (the
 * conflict tracer's sides start from an empty batch, as from settled
 * slab magazines). */
void dcache_lru_settle_cpu(void);
/* Call fn on each child of dir, under dir's d_lock (fn must not sleep). */
void d_for_each_child(struct dentry *dir, void (*fn)(struct dentry *child, void *arg), void *arg);

static inline bool d_unhashed(const struct dentry *d)
{
	return !(__atomic_load_n(&d->d_flags, __ATOMIC_ACQUIRE) & DCACHE_HASHED);
}
static inline bool d_mountpoint(const struct dentry *d)
{
	return __atomic_load_n(&d->d_flags, __ATOMIC_ACQUIRE) & DCACHE_MOUNTED;
}
/* Whether every hit on d must ask its filesystem (d_revalidate).  Read
 * with no lock: the bit never changes, but the word's other bits do
 * (under d_lock), so the read is marked. */
static inline bool d_must_revalidate(const struct dentry *d)
{
	return __atomic_load_n(&d->d_flags, __ATOMIC_RELAXED) & DCACHE_OP_REVALIDATE;
}
/* Caller holds mount_lock (fs/mount.c, the only caller, keeps that lock). */
void d_set_mounted(struct dentry *d, bool mounted);

/* Fill q->hash for a name in parent (name must stay valid while q is used). */
void d_hash_name(const struct dentry *parent, struct qstr *q);

struct dentry *d_make_root(struct super_block *sb, struct inode *root_inode);
struct dentry *dget(struct dentry *d);
void dput(struct dentry *d);
/* d's parent, with a reference, safely against a rename moving d. */
struct dentry *dget_parent(struct dentry *d);
/* The inode number of d's parent (getdents' ".."), read under RCU with
 * d_seq: no reference, no lock, no shared write (Linux's d_parent_ino).
 * Caller holds d. */
uint64_t d_parent_ino(struct dentry *d);

/* The fast path: the hashed dentry for (parent, name) with a reference,
 * or NULL.  Takes no sleeping lock (but d_revalidate, for a filesystem
 * that has it, may sleep).  d_lookup_flags: with d_revalidate's flags. */
struct dentry *d_lookup(struct dentry *parent, const struct qstr *name);
struct dentry *d_lookup_flags(struct dentry *parent, const struct qstr *name, unsigned flags);

/*
 * The RCU-walk's lookup (fs/namei.c): no lock, no reference, no shared
 * write.  Caller is inside rcu_read_lock.  Returns the dentry that was
 * hashed as (parent, name), with in *seqp its d_seq as it was then, or
 * NULL.  Nothing read from the dentry (d_inode, the match itself) may be
 * trusted until read_seqcount_retry(&d->d_seq, *seqp) says it held.  A
 * NULL can be false (a rename moved a dentry the search stood on to
 * another chain): the caller then looks again the locked way.  A dentry
 * with DCACHE_OP_REVALIDATE is returned as any other: whether to believe
 * it without asking its filesystem is the caller's decision.
 */
struct dentry *__d_lookup_rcu(const struct dentry *parent, const struct qstr *name, unsigned *seqp);
/* d's d_seq for a lockless reader that steps on d: the count with its
 * low bit cleared, so that a writer inside now makes the reader's later
 * read_seqcount_retry fail (the reader never waits for it). */
static inline unsigned d_seq_begin(const struct dentry *d)
{
	return raw_read_seqcount(&d->d_seq) & ~1u;
}
/*
 * Leave RCU mode on d (Linux's legitimize): take a reference unless d is
 * being freed, and keep it only if d_seq is still seq, so that what the
 * walk read of d under seq is still true.  Caller is inside
 * rcu_read_lock.  false: no reference kept, except perhaps one left in
 * *put, which may be d's last: the caller drops it out of the read side,
 * since a last reference may free an unlinked inode, which may sleep.
 */
bool d_legitimize(struct dentry *d, unsigned seq, struct dentry **put);
/* Test hook: called in d_legitimize between taking the reference and the
 * d_seq check that decides whether it is kept. */
extern void (*d_legitimize_hook)(struct dentry *d);
/* Drop a reference unless it is the last (Linux's lockref_put_not_zero on
 * the count): one compare-and-swap from a count above 1, so it never
 * frees and never locks, and may run inside an RCU read side.  false: the
 * count was 1 and is unchanged; the caller must dput. */
bool d_put_not_last(struct dentry *d);
/* Test builds: panic if d reads as freed (slab poison), for the lockless
 * readers that rely on freeing waiting for a grace period. */
void d_assert_not_freed(const struct dentry *d);
/* Test builds: panic if d, which a lockless search gave with *seqp = seq
 * and whose d_seq the walk found still seq, was unhashed before the
 * search read seq: the walk would answer from a dentry that was no
 * longer the name (a freed one reads as "no such file"). */
void d_assert_found_hashed(struct dentry *d, unsigned seq);

/*
 * The slow path's first step, called with parent's i_rwsem held (shared
 * or exclusive).  Returns, with a reference, one of:
 *   - the hashed dentry, if the name turned out to be cached after all, or
 *     an earlier lookup of it finished while we waited;
 *   - a new dentry in the IN_LOOKUP state: the caller owns the lookup,
 *     calls the filesystem, then d_lookup_done();
 *   - ERR_PTR(-ENOMEM).
 * A caller that finds another lookup of the same name in progress sleeps
 * until it is done (it never calls the filesystem for that name at the
 * same time), then looks again.
 */
struct dentry *d_alloc_parallel(struct dentry *parent, const struct qstr *name);
/* The same for a change of the name (its lock to be taken): a hashed
 * dentry found whose name lock is free comes back with it taken
 * (*locked; the caller then calls d_name_lock_found), in the one bucket
 * lock section that found it.  Else *locked is false. */
struct dentry *d_alloc_parallel_trylock(struct dentry *parent, const struct qstr *name, bool *locked);
static inline bool d_in_lookup(const struct dentry *d)
{
	return __atomic_load_n(&d->d_flags, __ATOMIC_ACQUIRE) & DCACHE_IN_LOOKUP;
}

/* The filesystem's answer: attach inode (NULL: negative) and hash d.  For
 * an in-lookup dentry this moves it from the in-lookup hash in the same
 * step, and then wakes the lookups waiting for it. */
void d_add(struct dentry *d, struct inode *inode);
/* End an in-lookup dentry's lookup: after a failure (no d_add), take it
 * off the in-lookup hash and wake the waiters; after d_add, nothing is
 * left to do.  The lookup's owner calls it either way. */
void d_lookup_done(struct dentry *d);

/* Unhash d (held by the caller), which its filesystem says is no longer
 * the name (d_revalidate): its holders keep it, nothing finds it.  A
 * mount point is left alone (it would strand the mount), and so is a
 * name a change holds (DCACHE_PAR_UPDATE): then false, else true. */
bool d_invalidate(struct dentry *d);
/* Unhash d (held by the caller), a negative dentry whose name a change
 * failed to fill though the filesystem's server may have made it (9p: the
 * reply came, the new inode could not be made): the next lookup asks
 * again, where d would say "no such name".  Unlike d_invalidate, d may
 * be under the caller's own name lock: the change is done with d, and a
 * waiter's re-check finds it unhashed and looks the name up again (chapter
 * 24's P2 holds: nothing unhashes d before its change is over). */
void d_drop_failed_create(struct dentry *d);

/* Give a hashed negative dentry its new inode (create, mkdir). */
void d_instantiate(struct dentry *d, struct inode *inode);
/* After a name's removal (unlink, rmdir): d goes negative in place if the
 * caller holds its only reference, else is unhashed (its holders keep it
 * positive).  Caller holds d and its parent's i_rwsem exclusive, or
 * shared and d's name lock; not its inode's (whose last iput may follow). */
void d_delete(struct dentry *d);
/* Tests only: called by d_delete between the two steps of its decision
 * (d_seq moved, the count not yet read), under d's bucket lock, so that
 * a test can hold it there while an RCU-walk legitimizes d.  NULL but in
 * tests. */
extern void (*d_delete_hook)(struct dentry *d);

/*
 * The per-name lock of parallel directory changes (fs/d_name_lock.c).
 * d_name_lock: caller holds a reference on d, found as (parent, q) with
 * parent's i_rwsem held shared.  Sleeps (killable) while another change
 * holds d's name, then checks that d is still the hashed dentry of
 * (parent, q).  0: locked; -EAGAIN: d was renamed or unhashed meanwhile,
 * nothing held (look the name up again); -EINTR: killed, nothing held.
 * subclass: D_NAME_LOCK_FIRST, or D_NAME_LOCK_SECOND for a rename's
 * second name (the validator's subclasses).
 */
enum { D_NAME_LOCK_FIRST = 0, D_NAME_LOCK_SECOND = 1 };
int d_name_lock(struct dentry *d, struct dentry *parent, const struct qstr *q, unsigned subclass);
/* The same for d in the in-lookup state, whose lookup the caller owns
 * (d_alloc_parallel made it): no one else can hold or wait for its name,
 * so it cannot fail or sleep. */
void d_name_lock_new(struct dentry *d, unsigned subclass);
/* For d_alloc_parallel_trylock: under the bucket lock of d's chain, d
 * just found there, take its name lock if it is free (true). */
bool d_name_trylock_hashed(struct dentry *d);
/* The validator's record of a lock d_name_trylock_hashed took, once the
 * bucket locks are let go. */
void d_name_lock_found(struct dentry *d, unsigned subclass);
void d_name_unlock(struct dentry *d);
/* Whether someone holds d's name lock (for assertions). */
bool d_name_locked(const struct dentry *d);
/* Sleeps taken waiting for a name lock since boot (for tests). */
uint64_t d_name_lock_waits(void);
void d_name_lock_init(void);
/* The validator's key of the name lock's class (tests forget it). */
const void *d_name_lock_key(void);

/*
 * Rename: d takes target's parent and name, and target (the dentry the
 * new name had, negative or about to lose its inode) takes d's, unhashed.
 * One step for lookups: d_lookup sees the old state or the new one.
 * Caller holds both parents' i_rwsem, exclusive or (a parallel change)
 * shared with both d's and target's name locks (checked).
 */
void d_move(struct dentry *d, struct dentry *target);

/*
 * The path of d from root, into buf: its length with the NUL, -ERANGE if
 * n is too small, -ENOENT if d was removed.  Crosses mount points
 * upwards (a mounted root continues at its mount point).
 */
long d_path(struct dentry *d, struct dentry *root, char *buf, size_t n);	/* fs/d_path.c */
/* Every d_parent (the table above); d_path's. */
extern struct seqlock rename_lock;

/* Unhash and free every unused dentry under dir (leaves first), walking
 * the tree below it. */
void d_prune_unused(struct dentry *dir);
/* Tests only: called by d_prune_unused just before it climbs from dir back
 * to dir's parent (a rename moving dir then is the case prune_climb
 * handles).  NULL but in tests. */
extern void (*d_prune_climb_hook)(struct dentry *dir);
/* Tests only: called by dcache_shrink between taking unused dentries off
 * the hash and freeing them (no lock held).  NULL but in tests. */
extern void (*dcache_shrink_hook)(void);
/* How many times a prune met a child another thread was freeing and
 * waited for it (for tests). */
uint64_t d_prune_waits(void);
/* The same for every dentry of a super block but its root (unmount). */
void d_prune_sb(struct super_block *sb);
/* For tests: count broken invariants among sb's hashed dentries (two
 * hashed with one parent and name; a child missing from its parent's
 * list; a negative reference count), printing each. */
unsigned d_check_sb(struct super_block *sb);
/* For tests: count broken invariants of the LRU lists (an entry on one
 * CPU's list that names another; a length that is not the list's),
 * printing each. */
unsigned d_check_lru(void);
/* For tests: hashed dentries for (parent, name): never more than one. */
unsigned d_count_hashed(struct dentry *parent, const struct qstr *name);

#endif
