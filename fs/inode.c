/*
 * inode.c: the inode cache.
 *
 * An inode is found by (super block, inode number) in a hash table, so
 * that every path to one file ends at the same struct inode.
 * iget_locked() returns it with a reference, creating it if it was not
 * cached: a new inode is hashed at once, so that a second finder cannot
 * create another, but in state I_NEW until its filesystem has filled it
 * in (unlock_new_inode); a finder that meets I_NEW waits for it to clear.
 * If the filesystem cannot fill it in (iget_failed), it is unhashed
 * before I_NEW clears, and the waiters start again.
 *
 * The last iput() of an inode that still has links leaves it cached but
 * unused, on the inode LRU, so the next iget_locked() finds it without asking
 * the filesystem; the shrinker (icache_shrink) frees the oldest ones when
 * memory runs out, and unmount frees the rest of its super block's.  The
 * last iput() of an unlinked inode frees it at once.
 *
 * Locking: each hash bucket has a spinlock protecting its chain and the
 * i_count of its inodes going to or from zero, so iget_locked() never
 * returns an inode that is being freed.  lru_lock protects the LRU list; it nests
 * inside a bucket lock, so the shrinker, which starts from the LRU, only
 * trylocks buckets.  Their place in the lock order:
 * docs/design/08-lock-order.md.  i_state's I_NEW is set before the inode is
 * hashed and cleared (atomically, then a wake-up on i_new_wq if anyone
 * waits: wq_has_sleeper) only by its creator; an I_NEW inode always has its creator's reference, so it
 * is never on the LRU.
 *
 * Super block lifetime: an inode on the LRU has no reference, so nothing
 * of its own keeps its super block alive once the shrinker has taken it
 * off the LRU and dropped the locks.  lru_take therefore counts the inode
 * in sb->s_evicting while it still holds the LRU lock, and the evict ends
 * by uncounting it; umount's icache_evict_sb, after emptying the LRU of
 * the sb's inodes (under the same lock, so it sees every count taken
 * before), waits for s_evicting to reach 0 before the fs frees the sb.
 */
#include "fs/fs.h"
#include "fs/dcache.h"
#include "kernel/cred.h"
#include "kernel/page_alloc.h"
#include "kernel/kmalloc.h"
#include "kernel/percpu_counter.h"
#include "kernel/preempt.h"
#include "kernel/shrinker.h"
#include "kernel/slab.h"
#include "kernel/panic.h"
#include "kernel/string.h"
#include "kernel/kprintf.h"
#include "kernel/time.h"
#include "kernel/race.h"
#include "kernel/sched.h"
#include "kernel/waitqueue.h"
#include "arch/x86_64/cpu.h"

struct icache_bucket {
	struct spinlock lock;
	struct list_head chain;
};

/* Sized from RAM at boot, as Linux's inode hash: one chain per 16 KiB (a
 * power of two; 131,072 in 2 GiB, Linux's own count there).  A fixed
 * 1,024 gave chains of 20 to the 20,000 inodes a cold du reads, each a
 * line to compare under the bucket lock at every iget and iput. */
static struct icache_bucket *buckets;
static uint64_t icache_mask;	/* chains - 1 */
static struct kmem_cache *inode_cache;
static struct spinlock lru_lock = SPINLOCK_INIT("inode_lru");
static struct list_head lru = LIST_HEAD_INIT(lru);
static uint64_t lru_len;
static struct wait_queue_head evict_wq = WAIT_QUEUE_HEAD_INIT(evict_wq);   /* s_evicting -> 0 */
static uint64_t evict_sb_waits;
static struct wait_queue_head i_new_wq = WAIT_QUEUE_HEAD_INIT(i_new_wq);   /* I_NEW cleared */
static uint64_t new_waits;

static unsigned long shrink_inodes(unsigned long nr)
{
	return icache_shrink((unsigned)nr);
}
static struct shrinker icache_shrinker = { "inodes", shrink_inodes, NULL };

void icache_init(void)
{
	uint64_t n = 1024;
	while (n < page_total_count() / 4 && n < (1u << 22))
		n <<= 1;
	buckets = kcalloc(n, sizeof(*buckets));
	if (!buckets)
		panic("icache: no memory for %lu hash chains", n);
	icache_mask = n - 1;
	for (uint64_t i = 0; i < n; i++) {
		spin_init(&buckets[i].lock, "icache_bucket");
		list_init(&buckets[i].chain);
	}
	kprintf("icache: inode hash %lu chains\n", n);	/* for make bench-linux */
	/* Line-aligned: a CPU writing one inode (its times, i_rwsem, count)
	 * shares no line with one reading or writing another. */
	inode_cache = kmem_cache_create("inode", sizeof(struct inode), L1_CACHE_BYTES);
	if (!inode_cache)
		panic("icache: cannot create the inode cache");
	if (CONFIG_LOCKDEP)	/* test builds: a stale inode pointer faults (see slab.h) */
		kmem_cache_quarantine(inode_cache);
	register_shrinker(&icache_shrinker);
}

/* Inodes hashed and not yet evicted: exact at once (the slab's count
 * waits for evict's grace period). */
static struct percpu_counter inodes_live;

uint64_t icache_live(void)
{
	return (uint64_t)percpu_counter_sum(&inodes_live);
}

uint64_t icache_lru_count(void)
{
	return __atomic_load_n(&lru_len, __ATOMIC_RELAXED);
}

static struct icache_bucket *bucket_of(struct super_block *sb, uint64_t ino)
{
	uint64_t h = ((uint64_t)sb >> 4) * 0x9E3779B97F4A7C15ULL ^ ino * 0xC2B2AE3D27D4EB4FULL;
	return &buckets[(h >> 32) & icache_mask];
}

/* Into and out of the hash, under the inode's bucket lock.  Out leaves
 * i_hash linked to itself, so a second unhash does nothing. */
static void icache_hash(struct icache_bucket *b, struct inode *inode)
{
	list_add(&inode->i_hash, &b->chain);
	if (CONFIG_LOCKDEP)
		__atomic_fetch_add(&inode->i_sb->s_hashed_inodes, 1, __ATOMIC_RELAXED);
}

static void icache_unhash(struct inode *inode)
{
	if (list_empty(&inode->i_hash))
		return;
	list_del(&inode->i_hash);
	if (CONFIG_LOCKDEP)
		__atomic_fetch_sub(&inode->i_sb->s_hashed_inodes, 1, __ATOMIC_RELAXED);
}

static struct inode *find(struct icache_bucket *b, struct super_block *sb, uint64_t ino)
{
	struct list_head *pos;
	list_for_each(pos, &b->chain) {
		struct inode *i = list_entry(pos, struct inode, i_hash);
		if (i->i_sb == sb && i->i_ino == ino)
			return i;
	}
	return NULL;
}

/* Caller holds the inode's bucket lock. */
static void lru_remove(struct inode *inode)
{
	spin_assert_held(&bucket_of(inode->i_sb, inode->i_ino)->lock);
	spin_lock(&lru_lock);
	if (!list_empty(&inode->i_lru)) {
		list_del(&inode->i_lru);
		lru_len--;
	}
	spin_unlock(&lru_lock);
}

static bool hashed(struct inode *inode)
{
	struct icache_bucket *b = bucket_of(inode->i_sb, inode->i_ino);
	spin_lock(&b->lock);
	bool h = !list_empty(&inode->i_hash);
	spin_unlock(&b->lock);
	return h;
}

struct inode *iget_locked(struct super_block *sb, uint64_t ino)
{
	struct icache_bucket *b = bucket_of(sb, ino);
	struct inode *fresh = NULL;

	for (;;) {
		spin_lock(&b->lock);
		struct inode *i = find(b, sb, ino);
		if (i) {
			if (__atomic_fetch_add(&i->i_count, 1, __ATOMIC_RELAXED) == 0)
				lru_remove(i);	/* in use again */
			/* Decided under the lock: once it is dropped, a creator
			 * that gives up clears I_NEW on an inode no longer
			 * hashed, and that one must not be returned. */
			bool is_new = __atomic_load_n(&i->i_state, __ATOMIC_ACQUIRE) & I_NEW;
			spin_unlock(&b->lock);
			race_window();	/* its creator may finish or give up now */
			if (fresh)
				kmem_cache_free(inode_cache, fresh);
			fresh = NULL;
			if (!is_new)
				return i;
			/* Its creator is filling it in: wait, holding our reference. */
			__atomic_fetch_add(&new_waits, 1, __ATOMIC_RELAXED);
			wait_event(i_new_wq, !(__atomic_load_n(&i->i_state, __ATOMIC_ACQUIRE) & I_NEW));
			if (hashed(i))
				return i;
			iput(i);	/* iget_failed unhashed it: look again */
			continue;
		}
		if (fresh) {	/* still missing: insert ours, I_NEW already set */
			icache_hash(b, fresh);
			percpu_counter_add(&inodes_live, 1);
			spin_unlock(&b->lock);
			return fresh;
		}
		spin_unlock(&b->lock);
		race_window();	/* a miss: another iget may insert the inode first */
		/* Allocate outside the bucket lock, then look again. */
		fresh = kmem_cache_alloc(inode_cache);
		if (!fresh)
			return NULL;
		memset(fresh, 0, sizeof(*fresh));
		fresh->i_sb = sb;
		fresh->i_ino = ino;
		fresh->i_state = I_NEW;
		fresh->i_count = 1;
		fresh->i_nlink = 1;
		list_init(&fresh->i_lru);
		list_init(&fresh->i_hash);
		init_rwsem(&fresh->i_rwsem, "i_rwsem");
	}
}

void unlock_new_inode(struct inode *inode)
{
	BUG_ON(!(__atomic_load_n(&inode->i_state, __ATOMIC_RELAXED) & I_NEW));
	race_window();	/* filled in, not yet published: finders still wait */
	__atomic_and_fetch(&inode->i_state, ~I_NEW, __ATOMIC_RELEASE);
	race_window();	/* published: a finder may be queueing itself now */
	/* The queue is global: its lock is written only if someone waits. */
	if (wq_has_sleeper(&i_new_wq))
		wake_up_all(&i_new_wq);
}

void iget_failed(struct inode *inode)
{
	struct icache_bucket *b = bucket_of(inode->i_sb, inode->i_ino);
	spin_lock(&b->lock);
	icache_unhash(inode);	/* before I_NEW clears: the waiters see it gone */
	spin_unlock(&b->lock);
	__atomic_store_n(&inode->i_nlink, 0, __ATOMIC_RELEASE);	/* the last iput frees it */
	unlock_new_inode(inode);
	iput(inode);
}

void remove_inode_hash(struct inode *inode)
{
	struct icache_bucket *b = bucket_of(inode->i_sb, inode->i_ino);
	spin_lock(&b->lock);
	icache_unhash(inode);	/* a second one does nothing */
	spin_unlock(&b->lock);
}

uint64_t icache_new_waits(void)
{
	return __atomic_load_n(&new_waits, __ATOMIC_RELAXED);
}

void ihold(struct inode *inode)
{
	int was = __atomic_fetch_add(&inode->i_count, 1, __ATOMIC_RELAXED);
	BUG_ON(was < 1);	/* the caller's own reference was not there */
}

static void free_inode_rcu(struct rcu_head *head)
{
	kmem_cache_free(inode_cache, container_of(head, struct inode, i_rcu));
}

/* The filesystem lets go of its part now; the inode itself waits a grace
 * period, since an RCU-walk that read a dentry's d_inode just before it
 * was cleared may still check its mode and owner (fs/namei.c). */
static void evict(struct inode *inode)
{
	/* An unlinked inode's last reference gives its storage back, which a
	 * filesystem may do with the disk (ext2_evict): whoever drops it must
	 * be able to sleep, on any filesystem (Linux's iput says so too). */
	if (__atomic_load_n(&inode->i_nlink, __ATOMIC_ACQUIRE) == 0)
		might_sleep();
	if (inode->i_sb->s_op && inode->i_sb->s_op->evict)
		inode->i_sb->s_op->evict(inode);
	/* A FIFO's pipe is the VFS's, on any filesystem, so the VFS frees it
	 * (as Linux's evict lets go of a device node's cdev): left to each
	 * filesystem's evict, ext2's and the anonymous inodes' forgot it. */
	free_inode_pipe(inode);
	percpu_counter_add(&inodes_live, -1);
	call_rcu(&inode->i_rcu, free_inode_rcu);
}

void iput(struct inode *inode)
{
	if (!inode)
		return;
	struct icache_bucket *b = bucket_of(inode->i_sb, inode->i_ino);
	race_window();	/* the last reference, perhaps: iget may take one first */
	spin_lock(&b->lock);
	int left = __atomic_sub_fetch(&inode->i_count, 1, __ATOMIC_ACQ_REL);
	BUG_ON(left < 0);
	bool free = false;
	const struct super_operations *op = inode->i_sb->s_op;
	if (left == 0 && __atomic_load_n(&inode->i_nlink, __ATOMIC_ACQUIRE) > 0 &&
	    !(op && op->drop_inode && op->drop_inode(inode))) {
		spin_lock(&lru_lock);	/* unused but still a file: keep it cached */
		list_add_tail(&inode->i_lru, &lru);
		lru_len++;
		spin_unlock(&lru_lock);
	} else if (left == 0) {
		icache_unhash(inode);	/* under the lock: iget cannot find it now */
		free = true;
	}
	spin_unlock(&b->lock);
	if (free)
		evict(inode);
}

/*
 * Take one inode off the LRU for freeing (of sb only, unless sb is NULL).
 * The LRU lock comes first here, against the usual order, so the bucket
 * lock is only tried; when that fails we let go of everything and try
 * again, since the bucket's holder may be waiting for the LRU lock.
 * Returns NULL when there is nothing (more) to take within the budget.
 */
static struct inode *lru_take(struct super_block *sb, unsigned *budget)
{
	for (;;) {
		bool busy = false;
		spin_lock(&lru_lock);
		struct list_head *pos;
		list_for_each(pos, &lru) {
			if (*budget == 0)
				break;
			(*budget)--;
			struct inode *i = list_entry(pos, struct inode, i_lru);
			if (sb && i->i_sb != sb)
				continue;
			struct icache_bucket *b = bucket_of(i->i_sb, i->i_ino);
			if (!spin_trylock(&b->lock)) {
				busy = true;
				break;
			}
			list_del(&i->i_lru);
			lru_len--;
			BUG_ON(i->i_count != 0);	/* 0 -> 1 takes it off the LRU under b->lock */
			icache_unhash(i);
			__atomic_fetch_add(&i->i_sb->s_evicting, 1, __ATOMIC_RELAXED);	/* pins the sb */
			spin_unlock(&b->lock);
			spin_unlock(&lru_lock);
			return i;
		}
		spin_unlock(&lru_lock);
		if (!busy)
			return NULL;
		cpu_relax();
	}
}

/* Evict an inode lru_take gave us, then let go of its sb (last touch). */
static void evict_taken(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	evict(inode);
	if (__atomic_sub_fetch(&sb->s_evicting, 1, __ATOMIC_RELEASE) == 0)
		wake_up_all(&evict_wq);	/* global: sb may be freed from here on */
}

unsigned icache_shrink(unsigned nr)
{
	unsigned freed = 0, budget = nr > (UINT32_MAX - 64) / 4 ? UINT32_MAX : 4 * nr + 64;
	struct inode *i;
	while (freed < nr && (i = lru_take(NULL, &budget))) {
		race_window();	/* off the LRU, not yet evicted: umount may run */
		evict_taken(i);
		freed++;
	}
	return freed;
}

void icache_evict_sb(struct super_block *sb)
{
	unsigned budget = ~0u;
	struct inode *i;
	while ((i = lru_take(sb, &budget)))
		evict_taken(i);
	if (__atomic_load_n(&sb->s_evicting, __ATOMIC_ACQUIRE)) {
		__atomic_fetch_add(&evict_sb_waits, 1, __ATOMIC_RELAXED);
		wait_event(evict_wq, __atomic_load_n(&sb->s_evicting, __ATOMIC_ACQUIRE) == 0);
	}
	/* The caller frees sb next: an inode still cached would keep a
	 * pointer to freed memory, and a later super block at the same
	 * address would find it.  That is a leaked reference: say so loudly
	 * in test builds, where it fails the test that leaked it. */
	int left;
	if (CONFIG_LOCKDEP && (left = __atomic_load_n(&sb->s_hashed_inodes, __ATOMIC_ACQUIRE)))
		panic("icache: %d inodes of a super block still in use as it goes (a leaked reference)", left);
}

uint64_t icache_evict_sb_waits(void)
{
	return __atomic_load_n(&evict_sb_waits, __ATOMIC_RELAXED);
}

/*
 * Inode numbers for filesystems that make them up (ramfs, sockfs):
 * unique for the life of the system.  Each CPU takes a batch of
 * INO_BATCH from the shared counter and hands them out one by one, so
 * two CPUs making inodes write no common line but once a batch (Linux's
 * get_next_ino).  Numbers are not handed out in order across CPUs, which
 * nothing promises.
 */
#define INO_BATCH 1024

static uint64_t last_ino_batch;       /* atomic: the last number a batch took */
static struct ino_batch {
	uint64_t next, end;               /* [next, end) is this CPU's to give */
} __attribute__((aligned(64))) ino_batch[MAX_CPUS];

uint64_t get_next_ino(void)
{
	preempt_disable();	/* this CPU's batch, whole */
	struct ino_batch *b = &ino_batch[cpu_id()];
	if (b->next == b->end) {
		b->next = __atomic_add_fetch(&last_ino_batch, INO_BATCH, __ATOMIC_RELAXED) - INO_BATCH + 1;
		b->end = b->next + INO_BATCH;
	}
	uint64_t ino = b->next++;
	preempt_enable();
	return ino;
}

void inode_touch(struct inode *inode, unsigned which)
{
	int64_t now = ktime_real_ns();
	if (which & T_ATIME)
		__atomic_store_n(&inode->i_atime, now, __ATOMIC_RELAXED);
	if (which & T_MTIME)
		__atomic_store_n(&inode->i_mtime, now, __ATOMIC_RELAXED);
	if (which & T_CTIME)
		__atomic_store_n(&inode->i_ctime, now, __ATOMIC_RELAXED);
}

/* A day, in ns: relatime's limit on how stale an atime may get. */
#define RELATIME_NS (24LL * 3600 * 1000000000)

/*
 * No lock: readers run alongside each other and alongside the writes and
 * attribute changes that move mtime and ctime (ramfs reads take no lock;
 * ext2's take i_rwsem shared).  The store is a compare-and-swap against
 * the atime the decision read, so a reader that decided on an old value
 * never overwrites a newer one: a read that starts after a change moves
 * atime past it, and a slower reader that began before the change cannot
 * put it back.  The common case (nothing to say) writes nothing.
 */
void inode_accessed(struct inode *inode)
{
	int64_t now = ktime_real_ns();
	int64_t atime = __atomic_load_n(&inode->i_atime, __ATOMIC_RELAXED);
	while (atime <= __atomic_load_n(&inode->i_mtime, __ATOMIC_RELAXED) ||
	       atime <= __atomic_load_n(&inode->i_ctime, __ATOMIC_RELAXED) || now - atime >= RELATIME_NS)
		if (__atomic_compare_exchange_n(&inode->i_atime, &atime, now, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			break;	/* else atime is the newer value: decide again */
}

void mark_inode_dirty(struct inode *inode)
{
	rwsem_assert_held_write(&inode->i_rwsem);
	const struct super_operations *op = inode->i_sb->s_op;
	if (op && op->dirty_inode)
		op->dirty_inode(inode);
}

int inode_setattr(struct dentry *d, const struct iattr *ia)
{
	struct inode *inode = d->d_inode;
	rwsem_assert_held_write(&inode->i_rwsem);
	const struct inode_operations *op = inode->i_op;
	return op && op->setattr ? op->setattr(d, ia) : 0;
}

void inode_init_new(struct inode *inode, uint32_t mode)
{
	inode->i_mode = mode;
	inode->i_uid = current_cred()->uid;
	inode->i_gid = current_cred()->gid;
	inode->i_nlink = 1;
	inode_touch(inode, T_ATIME | T_MTIME | T_CTIME);
}
