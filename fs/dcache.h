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
 * What each lock protects:
 *   dcache bucket lock     a dcache hash chain, and HASHED on its dentries
 *   in-lookup bucket lock  an in-lookup hash chain, IN_LOOKUP on its
 *                          dentries, and moving a dentry from it to the
 *                          dcache hash (so holding it freezes that step)
 *   dentry.d_lock          the dentry's list of children, and its
 *                          children's names (d_move changes them under it)
 *   d_count                atomic; its 1 -> 0 step is taken under the
 *                          dentry's dcache bucket lock (see dput)
 *   dentry LRU lock        the LRU of unused dentries; d_lru changes only
 *                          under both it and the dentry's bucket lock
 *   rename_lock            d_parent and d_name of every dentry: d_move
 *                          writes them under it (and the bucket and d_lock
 *                          locks); d_path reads a chain of them under it
 * Their order among all locks: docs/DESIGN.md section 8.  The shrinker
 * starts from the LRU, so it only trylocks buckets.
 *
 * Unused dentries: a hashed dentry whose last reference goes stays in the
 * cache and joins the LRU (once: later uses leave it there, and the
 * shrinker drops from the LRU any it finds in use, to be queued again
 * when they are next unused).  When memory runs out the shrinker frees
 * from the LRU's old end.  A dentry's children hold references on it, so
 * an unused dentry never has children.
 */
#ifndef FS_DCACHE_H
#define FS_DCACHE_H

#include <stdbool.h>
#include <stdint.h>
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

#define DNAME_INLINE_LEN 40

#define DCACHE_HASHED    0x1
#define DCACHE_IN_LOOKUP 0x2
#define DCACHE_MOUNTED   0x4       /* a filesystem is mounted here (fs/mount.c) */

struct dentry {
	/* What a hash-chain walk reads, together on the first cache line:
	 * the chain link, then the (parent, name) compared, then the flags. */
	struct hlist_node d_hash;  /* bucket lock: dcache chain, or in-lookup chain while IN_LOOKUP */
	struct dentry *d_parent;   /* holds a reference; the root is its own parent */
	struct qstr d_name;        /* d_name.name points at d_iname or the heap */
	unsigned d_flags;          /* bucket lock: DCACHE_*; changed with atomic or/and */
	/* Moves on every change a lockless reader must notice: d_inode set or
	 * cleared, unhashing, a rename of d_parent/d_name.  Written under the
	 * bucket lock of d's name (both buckets in d_move), which serializes
	 * its writers. */
	struct seqcount d_seq;
	int d_count;               /* references (atomic) */
	struct inode *d_inode;     /* bucket lock: set by d_add before HASHED; NULL: negative */
	struct super_block *d_sb;  /* fixed at allocation */

	/* The parent's d_lock. */
	struct list_head d_child;  /* on the parent's d_subdirs */
	/* d_lock. */
	struct spinlock d_lock;
	struct list_head d_subdirs;
	/* Bucket lock and LRU lock. */
	struct list_head d_lru;
	/* The last prune walk done below it (d_prune_unused; atomic). */
	uint32_t d_prune_gen;
	char d_iname[DNAME_INLINE_LEN];   /* short names live here */
	/* Freeing waits a grace period (d_kill): an RCU-walk may still be
	 * reading the dentry and its name. */
	struct rcu_head d_rcu;
};

void dcache_init(void);
uint64_t dcache_live(void);
uint64_t dcache_buckets(void);

/* What the cache holds now (a scan: for the shell and tests). */
struct dcache_stats {
	uint64_t buckets, positive, negative, in_lookup, unused, lru;
};
void dcache_get_stats(struct dcache_stats *s);
/* Free up to nr unused dentries, oldest first; returns how many. */
unsigned dcache_shrink(unsigned nr);
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
void d_set_mounted(struct dentry *d, bool mounted);

/* Fill q->hash for a name in parent (name must stay valid while q is used). */
void d_hash_name(const struct dentry *parent, struct qstr *q);

struct dentry *d_make_root(struct super_block *sb, struct inode *root_inode);
struct dentry *dget(struct dentry *d);
void dput(struct dentry *d);
/* d's parent, with a reference, safely against a rename moving d. */
struct dentry *dget_parent(struct dentry *d);

/* The fast path: the hashed dentry for (parent, name) with a reference,
 * or NULL.  Takes no sleeping lock. */
struct dentry *d_lookup(struct dentry *parent, const struct qstr *name);

/*
 * The RCU-walk's lookup (fs/namei.c): no lock, no reference, no shared
 * write.  Caller is inside rcu_read_lock.  Returns the dentry that was
 * hashed as (parent, name), with in *seqp its d_seq as it was then, or
 * NULL.  Nothing read from the dentry (d_inode, the match itself) may be
 * trusted until read_seqcount_retry(&d->d_seq, *seqp) says it held.  A
 * NULL can be false (a rename moved a dentry the search stood on to
 * another chain): the caller then looks again the locked way.
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
 * rcu_read_lock.  false: no reference taken.
 */
bool d_legitimize(struct dentry *d, unsigned seq);
/* Drop a reference unless it is the last (Linux's lockref_put_not_zero on
 * the count): one compare-and-swap from a count above 1, so it never
 * frees and never locks, and may run inside an RCU read side.  false: the
 * count was 1 and is unchanged; the caller must dput. */
bool d_put_not_last(struct dentry *d);
/* Test builds: panic if d reads as freed (slab poison), for the lockless
 * readers that rely on freeing waiting for a grace period. */
void d_assert_not_freed(const struct dentry *d);

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
static inline bool d_in_lookup(const struct dentry *d)
{
	return __atomic_load_n(&d->d_flags, __ATOMIC_ACQUIRE) & DCACHE_IN_LOOKUP;
}

/* The filesystem's answer: attach inode (NULL: negative) and hash d.  For
 * an in-lookup dentry this moves it from the in-lookup hash; the waiters
 * are woken by d_lookup_done. */
void d_add(struct dentry *d, struct inode *inode);
/* End an in-lookup dentry's lookup (after d_add, or after a failure) and
 * wake everyone waiting for it. */
void d_lookup_done(struct dentry *d);

/* Give a hashed negative dentry its new inode (create, mkdir). */
void d_instantiate(struct dentry *d, struct inode *inode);
/* Unhash d: later lookups miss it and ask the filesystem (unlink). */
void d_drop(struct dentry *d);

/*
 * Rename: d takes target's parent and name, and target (the dentry the
 * new name had, negative or about to lose its inode) takes d's, unhashed.
 * One step for lookups: d_lookup sees the old state or the new one.
 * Caller holds both parents' i_rwsem exclusive.
 */
void d_move(struct dentry *d, struct dentry *target);

/*
 * The path of d from root, into buf: its length with the NUL, -ERANGE if
 * n is too small, -ENOENT if d was removed.  Crosses mount points
 * upwards (a mounted root continues at its mount point).
 */
long d_path(struct dentry *d, struct dentry *root, char *buf, size_t n);	/* fs/d_path.c */
/* d_parent and d_name of every dentry (the table above); d_path's. */
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
/* For tests: hashed dentries for (parent, name): never more than one. */
unsigned d_count_hashed(struct dentry *parent, const struct qstr *name);

#endif
