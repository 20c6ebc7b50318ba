/*
 * dcache.c: the dentry cache and the in-lookup protocol (see dcache.h
 * for the state machine and the lock table).
 *
 * Typical slow-path sequence (fs/namei.c), with dir's i_rwsem shared:
 *
 *     d = d_alloc_parallel(parent, &name);  // hashed, or ours to look up
 *     if (d_in_lookup(d)) {                 // we own the lookup
 *         err = dir->i_op->lookup(dir, d);  // the filesystem calls d_add()
 *         d_lookup_done(d);                 // wakes the waiters
 *     }
 *
 * Who calls the filesystem: only the thread whose d_alloc_parallel put a
 * new dentry in the in-lookup hash.  Who waits: any other thread whose
 * d_alloc_parallel finds that dentry there; it takes a reference, sleeps
 * on the dentry's wait queue until IN_LOOKUP clears, and then uses the
 * dentry if it got hashed under the same parent and name, or starts over
 * (the lookup failed).  Who wakes them: d_lookup_done.  Why no duplicate
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
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/page_alloc.h"
#include "kernel/panic.h"
#include "kernel/random.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "kernel/waitqueue.h"

struct bucket {
	struct spinlock lock;
	struct list_head chain;
};

#define IN_LOOKUP_BUCKETS 256
#define LOOKUP_WQS 64

static struct bucket *dcache_table;
static uint64_t dcache_mask;
static struct bucket in_lookup_table[IN_LOOKUP_BUCKETS];
static struct wait_queue_head lookup_wqs[LOOKUP_WQS];
static struct kmem_cache *dentry_cache;

void dcache_init(void)
{
	/* One bucket per 8 pages of RAM, a power of two: chains stay short
	 * whatever the cache grows to before memory runs out. */
	uint64_t n = 1024;
	while (n < page_total_count() / 8 && n < (1u << 22))
		n <<= 1;
	dcache_table = kcalloc(n, sizeof(struct bucket));
	if (!dcache_table)
		panic("dcache: no memory for %lu hash buckets", n);
	dcache_mask = n - 1;
	for (uint64_t i = 0; i < n; i++) {
		spin_init(&dcache_table[i].lock, "dcache_bucket");
		list_init(&dcache_table[i].chain);
	}
	for (unsigned i = 0; i < IN_LOOKUP_BUCKETS; i++) {
		spin_init(&in_lookup_table[i].lock, "in_lookup_bucket");
		list_init(&in_lookup_table[i].chain);
	}
	for (unsigned i = 0; i < LOOKUP_WQS; i++)
		wait_queue_init(&lookup_wqs[i]);
	dentry_cache = kmem_cache_create("dentry", sizeof(struct dentry), 16);
	if (!dentry_cache)
		panic("dcache: cannot create the dentry cache");
}

uint64_t dcache_live(void)
{
	return kmem_cache_live(dentry_cache);
}

uint64_t dcache_buckets(void)
{
	return dcache_mask + 1;
}

void d_hash_name(const struct dentry *parent, struct qstr *q)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a over the name */
	for (uint32_t i = 0; i < q->len; i++)
		h = (h ^ (uint8_t)q->name[i]) * 1099511628211ULL;
	q->hash = (uint32_t)(mix64(h ^ (uint64_t)parent) >> 32);
}

static struct bucket *dcache_bucket(uint32_t hash)
{
	return &dcache_table[hash & dcache_mask];
}

static struct bucket *in_lookup_bucket(uint32_t hash)
{
	return &in_lookup_table[hash % IN_LOOKUP_BUCKETS];
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
	list_init(&d->d_hash);
	list_init(&d->d_subdirs);
	spin_init(&d->d_lock, "dentry.d_lock");
	if (parent) {
		d->d_parent = dget(parent);
		d->d_sb = parent->d_sb;
		unsigned long flags = spin_lock_irqsave(&parent->d_lock);
		list_add(&d->d_child, &parent->d_subdirs);
		spin_unlock_irqrestore(&parent->d_lock, flags);
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

/* Free d, whose count reached zero and which is on no hash.  Returns its
 * parent, whose reference d held, for the caller to drop in turn. */
static struct dentry *d_free(struct dentry *d)
{
	struct dentry *parent = d->d_parent;
	if (parent != d) {
		unsigned long flags = spin_lock_irqsave(&parent->d_lock);
		list_del(&d->d_child);
		spin_unlock_irqrestore(&parent->d_lock, flags);
	}
	iput(d->d_inode);
	if (d->d_name.name != d->d_iname)
		kfree(d->d_name.name);
	kmem_cache_free(dentry_cache, d);
	return parent != d ? parent : NULL;
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
	while (d) {
		int c = __atomic_load_n(&d->d_count, __ATOMIC_RELAXED);
		while (c > 1)
			if (__atomic_compare_exchange_n(&d->d_count, &c, c - 1, false,
							__ATOMIC_RELEASE, __ATOMIC_RELAXED))
				return;
		struct bucket *b = dcache_bucket(d->d_name.hash);
		unsigned long flags = spin_lock_irqsave(&b->lock);
		int left = __atomic_sub_fetch(&d->d_count, 1, __ATOMIC_ACQ_REL);
		BUG_ON(left < 0);
		bool free = left == 0 && !(d->d_flags & (DCACHE_HASHED | DCACHE_IN_LOOKUP));
		spin_unlock_irqrestore(&b->lock, flags);
		d = free ? d_free(d) : NULL;
	}
}

/* Caller holds the bucket lock. */
static struct dentry *__d_lookup(struct bucket *b, struct dentry *parent, const struct qstr *q)
{
	struct list_head *pos;
	list_for_each(pos, &b->chain) {
		struct dentry *d = list_entry(pos, struct dentry, d_hash);
		if (same_name(d, parent, q))
			return dget(d);
	}
	return NULL;
}

struct dentry *d_lookup(struct dentry *parent, const struct qstr *q)
{
	struct bucket *b = dcache_bucket(q->hash);
	unsigned long flags = spin_lock_irqsave(&b->lock);
	struct dentry *d = __d_lookup(b, parent, q);
	spin_unlock_irqrestore(&b->lock, flags);
	return d;
}

/* Sleep until d is no longer in-lookup (we hold a reference to it). */
static void d_wait_lookup(struct dentry *d)
{
	wait_event(*lookup_wq(d), !d_in_lookup(d));
}

struct dentry *d_alloc_parallel(struct dentry *parent, const struct qstr *q)
{
	struct dentry *fresh = d_alloc(parent, q);
	if (!fresh)
		return ERR_PTR(-ENOMEM);
	struct bucket *ib = in_lookup_bucket(q->hash);
	for (;;) {
		unsigned long flags = spin_lock_irqsave(&ib->lock);
		/* Hashed meanwhile?  Looked at under the in-lookup bucket lock,
		 * which every move from in-lookup to hashed takes. */
		struct dentry *d = d_lookup(parent, q);
		if (d) {
			spin_unlock_irqrestore(&ib->lock, flags);
			dput(fresh);
			return d;
		}
		struct dentry *other = NULL;
		struct list_head *pos;
		list_for_each(pos, &ib->chain) {
			struct dentry *x = list_entry(pos, struct dentry, d_hash);
			if (same_name(x, parent, q)) {
				other = dget(x);
				break;
			}
		}
		if (!other) {	/* ours to look up */
			fresh->d_flags |= DCACHE_IN_LOOKUP;
			list_add(&fresh->d_hash, &ib->chain);
			spin_unlock_irqrestore(&ib->lock, flags);
			return fresh;
		}
		spin_unlock_irqrestore(&ib->lock, flags);
		/* Someone is looking this name up: wait, then look again.  If
		 * its lookup succeeded, the d_lookup above finds the result. */
		d_wait_lookup(other);
		dput(other);
	}
}

void d_add(struct dentry *d, struct inode *inode)
{
	struct bucket *b = dcache_bucket(d->d_name.hash);
	struct bucket *ib = in_lookup_bucket(d->d_name.hash);
	bool in_lookup = d_in_lookup(d);
	unsigned long flags = irq_save();

	if (in_lookup)
		spin_lock(&ib->lock);
	spin_lock(&b->lock);
	d->d_inode = inode;
	if (in_lookup)
		list_del(&d->d_hash);	/* leaves the in-lookup hash... */
	list_add(&d->d_hash, &b->chain);	/* ...and joins the dcache, atomically */
	__atomic_store_n(&d->d_flags, (d->d_flags | DCACHE_HASHED), __ATOMIC_RELEASE);
	spin_unlock(&b->lock);
	if (in_lookup)
		spin_unlock(&ib->lock);
	irq_restore(flags);
}

void d_lookup_done(struct dentry *d)
{
	struct bucket *ib = in_lookup_bucket(d->d_name.hash);
	unsigned long flags = spin_lock_irqsave(&ib->lock);
	if (!(d->d_flags & DCACHE_HASHED))
		list_del(&d->d_hash);	/* failed: still on the in-lookup chain */
	__atomic_store_n(&d->d_flags, d->d_flags & ~DCACHE_IN_LOOKUP, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&ib->lock, flags);
	wake_up_all(lookup_wq(d));
}

void d_instantiate(struct dentry *d, struct inode *inode)
{
	struct bucket *b = dcache_bucket(d->d_name.hash);
	unsigned long flags = spin_lock_irqsave(&b->lock);
	BUG_ON(d->d_inode);
	__atomic_store_n(&d->d_inode, inode, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&b->lock, flags);
}

void d_drop(struct dentry *d)
{
	struct bucket *b = dcache_bucket(d->d_name.hash);
	unsigned long flags = spin_lock_irqsave(&b->lock);
	if (d->d_flags & DCACHE_HASHED) {
		list_del(&d->d_hash);
		__atomic_store_n(&d->d_flags, d->d_flags & ~DCACHE_HASHED, __ATOMIC_RELEASE);
	}
	spin_unlock_irqrestore(&b->lock, flags);
}

unsigned d_count_hashed(struct dentry *parent, const struct qstr *q)
{
	unsigned n = 0;
	struct bucket *b = dcache_bucket(q->hash);
	unsigned long flags = spin_lock_irqsave(&b->lock);
	struct list_head *pos;
	list_for_each(pos, &b->chain)
		if (same_name(list_entry(pos, struct dentry, d_hash), parent, q))
			n++;
	spin_unlock_irqrestore(&b->lock, flags);
	return n;
}

/* Unhash every unused childless dentry of bucket b that is a child of
 * dir (or, with dir NULL, any dentry of sb) onto `victims` (their d_hash
 * links are reused for the list). */
static unsigned collect_unused(struct bucket *b, struct dentry *dir, struct super_block *sb,
			       struct list_head *victims)
{
	unsigned n = 0;
	unsigned long flags = spin_lock_irqsave(&b->lock);
	struct list_head *pos, *tmp;
	list_for_each_safe(pos, tmp, &b->chain) {
		struct dentry *d = list_entry(pos, struct dentry, d_hash);
		bool mine = dir ? d->d_parent == dir : d->d_sb == sb;
		if (!mine || __atomic_load_n(&d->d_count, __ATOMIC_RELAXED) != 0 ||
		    !list_empty(&d->d_subdirs))
			continue;
		list_del(&d->d_hash);
		d->d_flags &= ~DCACHE_HASHED;
		list_add(&d->d_hash, victims);
		n++;
	}
	spin_unlock_irqrestore(&b->lock, flags);
	return n;
}

/* One pass over the table; returns how many dentries it freed. */
static unsigned prune_pass(struct dentry *dir, struct super_block *sb)
{
	struct list_head victims = LIST_HEAD_INIT(victims);
	unsigned n = 0;

	for (uint64_t i = 0; i <= dcache_mask; i++)
		n += collect_unused(&dcache_table[i], dir, sb, &victims);
	while (!list_empty(&victims)) {
		struct dentry *d = list_first_entry(&victims, struct dentry, d_hash);
		list_del(&d->d_hash);
		dput(d_free(d));	/* the parent's reference it held */
	}
	return n;
}

void d_prune_unused(struct dentry *dir)
{
	prune_pass(dir, NULL);
}

void d_prune_sb(struct super_block *sb)
{
	/* Leaves first: freeing them makes their parents childless. */
	while (prune_pass(NULL, sb))
		;
}

static bool listed_under_parent(struct dentry *d)
{
	bool found = false;
	struct dentry *p = d->d_parent;
	unsigned long flags = spin_lock_irqsave(&p->d_lock);
	struct list_head *pos;
	list_for_each(pos, &p->d_subdirs)
		if (list_entry(pos, struct dentry, d_child) == d)
			found = true;
	spin_unlock_irqrestore(&p->d_lock, flags);
	return found;
}

unsigned d_check_sb(struct super_block *sb)
{
	unsigned bad = 0;
	for (uint64_t i = 0; i <= dcache_mask; i++) {
		struct bucket *b = &dcache_table[i];
		unsigned long flags = spin_lock_irqsave(&b->lock);
		struct list_head *pos, *pos2;
		list_for_each(pos, &b->chain) {
			struct dentry *d = list_entry(pos, struct dentry, d_hash);
			if (d->d_sb != sb)
				continue;
			if (__atomic_load_n(&d->d_count, __ATOMIC_RELAXED) < 0) {
				kprintf("dcache: %s has count %d\n", d->d_name.name, d->d_count);
				bad++;
			}
			for (pos2 = pos->next; pos2 != &b->chain; pos2 = pos2->next)
				if (same_name(list_entry(pos2, struct dentry, d_hash), d->d_parent, &d->d_name)) {
					kprintf("dcache: '%s' is hashed twice in one directory\n", d->d_name.name);
					bad++;
				}
			if (!listed_under_parent(d)) {
				kprintf("dcache: '%s' is missing from its parent's children\n", d->d_name.name);
				bad++;
			}
		}
		spin_unlock_irqrestore(&b->lock, flags);
	}
	return bad;
}
