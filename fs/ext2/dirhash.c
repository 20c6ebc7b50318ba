/*
 * dirhash.c: an in-memory index of a large directory, so that a lookup
 * reads one block instead of scanning them all (FreeBSD's UFS "dirhash"
 * is the model).
 *
 * An ext2 directory is a linear list of entries (dir.c): finding a name
 * reads every block before it and compares every entry in them.  In a
 * directory of at least ext2_dirhash_min_blocks blocks, the first lookup
 * builds a table instead: open addressing, each live entry's name hashed
 * to its position (its byte offset in the directory, that is its block
 * and its offset in the block; entries never move).  Every change after
 * that keeps it in step.  The table is a hint and the block the truth: a
 * hit still reads the block through the buffer cache and compares the
 * name there.  But it is complete, so a name it does not hold is not in
 * the directory: -ENOENT without reading a block.  Readdir never uses it.
 *
 * Locking (the order among all locks: docs/design/08-lock-order.md):
 *   ext2_inode_info.i_dirhash  the directory's table, NULL, or
 *              DIRHASH_BUILDING.  A lookup that finds NULL claims the
 *              right to build by compare-and-swap (NULL -> BUILDING), so
 *              one lookup builds while the others scan as before.  The
 *              builder reads every block first (holding them, no ext2
 *              lock), then indexes them and publishes the table under the
 *              directory's i_dir_lock shared: no change runs between the
 *              last entry indexed and the publication, and none during
 *              the build changes a table (it sees BUILDING: none).
 *   a table's slots and counts, and a table's replacement (grown,
 *              dropped)  the directory's i_dir_lock: exclusive to change
 *              (every change of entries holds it: dir.c), shared to read.
 *              A probe copies the positions under name's hash out, with
 *              i_dir_version, with no lock while no writer is inside
 *              (the directory's i_dir_seq, dir.c) and under it shared
 *              otherwise, and the lookup then reads their blocks
 *              unlocked: a position found wrong is the table's fault
 *              only if the version did not move meanwhile
 *              (ext2_dirhash_stale).  A table is freed after an RCU
 *              grace period (kfree_rcu), since a lockless probe may be
 *              reading the one a change replaced; a lookup never reads a
 *              block under the lock.
 *   dirhash_lock (spinlock)  the list of every table (the shrinker's,
 *              oldest first) and the memory they hold.  A table leaves its
 *              directory only under it: the shrinker frees one only if
 *              down_write_trylock of its directory's i_rwsem succeeds (no
 *              lookup and no change is in the directory: they all hold
 *              it, shared at least) and drops that i_rwsem before
 *              dirhash_lock; eviction takes the table under it, so the
 *              shrinker never touches an inode already freed.
 *
 * Memory: 8 bytes a slot, at least two slots an entry.  All tables
 * together hold at most ext2_dirhash_maxmem bytes: a build that would pass
 * it first frees old tables (as the shrinker does), else is not made.  A
 * failed allocation is never an error: the lookup scans as before; a
 * change whose table cannot grow drops the table (the next lookup builds
 * it again).
 */
#include "fs/ext2/ext2.h"
#include "fs/buffer.h"
#include "kernel/err.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/list.h"
#include "kernel/kcsan.h"
#include "kernel/rcu.h"
#include "kernel/seqlock.h"
#include "kernel/race.h"
#include "kernel/rwsem.h"
#include "kernel/shrinker.h"
#include "kernel/spinlock.h"

unsigned ext2_dirhash_min_blocks = 3;
size_t ext2_dirhash_maxmem = 4u << 20;

#define DIRHASH_BUILDING ((struct ext2_dirhash *)1)

/* A slot: pos 0 is empty, 1 deleted, else the entry's offset + POS_BIAS. */
#define POS_EMPTY   0u
#define POS_DELETED 1u
#define POS_BIAS    4u

struct dh_slot {
	uint32_t hash;
	uint32_t pos;
};

struct ext2_dirhash {
	struct list_head lru;       /* dirhash_lock */
	struct inode *dir;
	size_t bytes;
	bool referenced;            /* atomic: a lookup used it since the shrinker passed */
	bool stale;                 /* atomic: found wrong; not believed, dropped by the next change */
	/* i_dir_lock exclusive to change, shared to read: */
	unsigned nslots;            /* a power of two */
	unsigned live, deleted;
	struct rcu_head rcu;        /* freed after a grace period: probes read it locklessly */
	struct dh_slot slot[];
};

static struct spinlock dirhash_lock = SPINLOCK_INIT("ext2_dirhash");
static struct list_head dirhash_list = LIST_HEAD_INIT(dirhash_list);
static size_t dirhash_mem;          /* dirhash_lock */

/* One more of a counter of dir's filesystem's (for tests and benchmarks). */
#define COUNT(dir, field) __atomic_fetch_add(&EXT2_SB((dir)->i_sb)->dirhash.field, 1, __ATOMIC_RELAXED)

/* FNV-1a: names that differ in one byte land apart. */
static uint32_t name_hash(const char *name, unsigned len)
{
	uint32_t h = 2166136261u;
	for (unsigned i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 16777619u;
	return h;
}

/* ---- the table ---------------------------------------------------------- */

/* Room for `entries` at a load of at most a half. */
static size_t table_bytes(unsigned entries, unsigned *nslots)
{
	unsigned n = 16;
	while (n < 2 * entries + 2)
		n *= 2;
	*nslots = n;
	return sizeof(struct ext2_dirhash) + (size_t)n * sizeof(struct dh_slot);
}

static void insert(struct ext2_dirhash *dh, uint32_t hash, uint32_t pos)
{
	unsigned mask = dh->nslots - 1;
	for (unsigned i = hash & mask;; i = (i + 1) & mask)
		if (dh->slot[i].pos <= POS_DELETED) {
			dh->deleted -= dh->slot[i].pos == POS_DELETED;
			dh->slot[i] = (struct dh_slot){ hash, pos };
			dh->live++;
			return;
		}
}

static void release(struct ext2_dirhash *dh)
{
	spin_lock(&dirhash_lock);
	dirhash_mem -= dh->bytes;
	spin_unlock(&dirhash_lock);
	kfree_rcu(dh, rcu);
}

/* Free up to nr tables no lookup is using, the least recently used
 * first; how many were freed.  May run inside an allocation (the
 * shrinker): sleeps for nothing, only trylocks i_rwsem. */
static unsigned long reclaim(unsigned long nr)
{
	struct list_head gone = LIST_HEAD_INIT(gone);
	unsigned long freed = 0;
	spin_lock(&dirhash_lock);
	for (unsigned n = list_count(&dirhash_list); n && freed < nr; n--) {
		struct ext2_dirhash *dh = list_first_entry(&dirhash_list, struct ext2_dirhash, lru);
		list_del(&dh->lru);
		if (__atomic_exchange_n(&dh->referenced, false, __ATOMIC_RELAXED) ||
		    !down_write_trylock(&dh->dir->i_rwsem)) {
			list_add_tail(&dh->lru, &dirhash_list);	/* a second chance */
			continue;
		}
		__atomic_store_n(&EXT2_I(dh->dir)->i_dirhash, NULL, __ATOMIC_RELAXED);
		up_write(&dh->dir->i_rwsem);
		dirhash_mem -= dh->bytes;
		list_add_tail(&dh->lru, &gone);
		freed++;
	}
	spin_unlock(&dirhash_lock);
	while (!list_empty(&gone)) {
		struct ext2_dirhash *dh = list_first_entry(&gone, struct ext2_dirhash, lru);
		list_del(&dh->lru);
		kfree_rcu(dh, rcu);
	}
	return freed;
}

static struct shrinker dirhash_shrinker = { "ext2_dirhash", reclaim, NULL };

void ext2_dirhash_init(void)
{
	register_shrinker(&dirhash_shrinker);
}

/* A zeroed table for dir with room for `entries`, its bytes counted; NULL
 * if memory is short or the tables' budget is spent. */
static struct ext2_dirhash *table_alloc(struct inode *dir, unsigned entries)
{
	unsigned nslots;
	size_t bytes = table_bytes(entries, &nslots);
	for (;;) {
		spin_lock(&dirhash_lock);
		bool fits = dirhash_mem + bytes <= ext2_dirhash_maxmem;
		if (fits)
			dirhash_mem += bytes;
		spin_unlock(&dirhash_lock);
		if (fits)
			break;
		if (!reclaim(1))
			return NULL;
	}
	struct ext2_dirhash *dh = kzalloc(bytes);
	if (!dh) {
		spin_lock(&dirhash_lock);
		dirhash_mem -= bytes;
		spin_unlock(&dirhash_lock);
		return NULL;
	}
	dh->dir = dir;
	dh->bytes = bytes;
	dh->nslots = nslots;
	list_init(&dh->lru);
	return dh;
}

/* ---- building ------------------------------------------------------------- */

/* Visits for ext2_dir_walk_block: count the live entries, then index them. */
static int count_one(void *arg, struct ext2_dir_pos *p)
{
	if (p->ino)
		(*(unsigned *)arg)++;
	return EXT2_WALK_NEXT;
}

static int insert_one(void *arg, struct ext2_dir_pos *p)
{
	struct ext2_dirent *de = (struct ext2_dirent *)(p->bh->b_data + p->off);
	if (p->ino)
		insert(arg, name_hash(de->name, p->name_len), (uint32_t)p->pos + POS_BIAS);
	return EXT2_WALK_NEXT;
}

/* The most blocks a build holds at once (their pointers: 64 KiB); a
 * bigger directory is scanned. */
#define BUILD_MAX_BLOCKS 8192

/* Index the n blocks held, and publish the table: true if it was made.
 * Caller holds i_dir_lock shared (no change runs) and has checked that
 * the directory still has n blocks. */
static bool index_held(struct inode *dir, struct buffer_head **bhs, uint64_t n)
{
	unsigned entries = 0;
	for (uint64_t b = 0; b < n; b++)
		if (ext2_dir_walk_block(dir, bhs[b], b, count_one, &entries) < 0)
			return false;
	struct ext2_dirhash *dh = table_alloc(dir, entries);
	if (!dh)
		return false;
	for (uint64_t b = 0; b < n; b++)
		ext2_dir_walk_block(dir, bhs[b], b, insert_one, dh);	/* checked just above */
	spin_lock(&dirhash_lock);
	list_add_tail(&dh->lru, &dirhash_list);
	spin_unlock(&dirhash_lock);
	race_window();	/* built, not yet published: others still scan, no change can run */
	__atomic_store_n(&EXT2_I(dir)->i_dirhash, dh, __ATOMIC_RELEASE);
	return true;
}

/* dir's table, built from its blocks and published: false if it cannot
 * be (memory, an I/O error, a block appended meanwhile: the next lookup
 * tries again).  The blocks are read first, with no ext2 lock, and held,
 * then indexed under i_dir_lock shared.  Caller holds i_rwsem (shared is
 * enough) and has claimed i_dirhash. */
static bool build(struct inode *dir)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	uint64_t n = ext2_dir_blocks(dir), got = 0;
	if (n > BUILD_MAX_BLOCKS)
		return false;
	struct buffer_head **bhs = kmalloc(n * sizeof(*bhs));
	if (!bhs)
		return false;
	for (; got < n; got++) {
		bhs[got] = ext2_dir_bread(dir, got);
		if (IS_ERR(bhs[got]))
			break;
	}
	bool made = false;
	if (got == n) {
		down_read(&ei->i_dir_lock);
		made = ext2_dir_blocks(dir) == n && index_held(dir, bhs, n);
		up_read(&ei->i_dir_lock);
	}
	for (uint64_t b = 0; b < got; b++)
		brelse(bhs[b]);
	kfree(bhs);
	return made;
}

/* Build dir's table if it is big and no one has. */
static void maybe_build(struct inode *dir)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	if (__atomic_load_n(&ei->i_dirhash, __ATOMIC_ACQUIRE) ||
	    ext2_dir_blocks(dir) < ext2_dirhash_min_blocks)
		return;
	race_window();	/* saw none: another lookup may claim it first */
	struct ext2_dirhash *none = NULL;
	if (!__atomic_compare_exchange_n(&ei->i_dirhash, &none, DIRHASH_BUILDING, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
		return;
	if (build(dir)) {
		COUNT(dir, builds);
	} else {
		COUNT(dir, failed);
		__atomic_store_n(&ei->i_dirhash, NULL, __ATOMIC_RELEASE);
	}
}

/* ---- lookups ---------------------------------------------------------------- */

/* The positions under hash in dh, into p (at most nslots slots looked
 * at, so a table read while it changes cannot loop); false if there are
 * more than EXT2_DIRHASH_PROBE_MAX (the caller scans). */
static bool probe_slots(const struct ext2_dirhash *dh, uint32_t hash, struct ext2_dirhash_probe *p)
{
	unsigned mask = dh->nslots - 1, i = hash & mask;
	for (unsigned k = 0; k < dh->nslots && dh->slot[i].pos != POS_EMPTY; k++, i = (i + 1) & mask) {
		race_window();	/* a slot read: an add or removal may change the next */
		if (dh->slot[i].pos == POS_DELETED || dh->slot[i].hash != hash)
			continue;
		if (p->n == EXT2_DIRHASH_PROBE_MAX)
			return false;	/* that many names of one hash: scan */
		p->pos[p->n++] = dh->slot[i].pos - POS_BIAS;
	}
	return true;
}

void (*ext2_dirhash_probe_hook)(struct inode *dir);

void ext2_dirhash_shape(const struct ext2_dirhash *dh, unsigned *nslots, unsigned *live)
{
	*nslots = READ_ONCE(dh->nslots);
	*live = READ_ONCE(dh->live);
}

/* The probe, under i_dir_lock shared, or (racy) inside a read of
 * i_dir_seq and an RCU read side, whose caller checks the count after:
 * whether the table answered, with the positions and i_dir_version. */
static bool probe_table(struct inode *dir, uint32_t hash, struct ext2_dirhash_probe *p, bool racy)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	struct ext2_dirhash *dh = __atomic_load_n(&ei->i_dirhash, __ATOMIC_ACQUIRE);
	if (!dh || dh == DIRHASH_BUILDING || __atomic_load_n(&dh->stale, __ATOMIC_RELAXED))
		return false;
	if (!__atomic_load_n(&dh->referenced, __ATOMIC_RELAXED))
		__atomic_store_n(&dh->referenced, true, __ATOMIC_RELAXED);
	*p = (struct ext2_dirhash_probe){ .hash = hash,
					  .version = __atomic_load_n(&ei->i_dir_version, __ATOMIC_RELAXED) };
	if (CONFIG_LOCKDEP && racy && ext2_dirhash_probe_hook)
		ext2_dirhash_probe_hook(dir);	/* the table loaded, its slots not yet read */
	/* Racy by design: slots an exclusive holder changes meanwhile move
	 * i_dir_seq, and the caller throws the answer away. */
	return racy ? data_race(probe_slots(dh, hash, p)) : probe_slots(dh, hash, p);
}

/*
 * Probed with no lock while no writer is inside, as copy_block (dir.c)
 * copies: i_dir_seq even before and the same after, and the table,
 * which a change may replace (grow) or drop meanwhile, freed only after
 * a grace period.  Under i_dir_lock shared a probe queued behind any
 * writer that waited for other readers, and slept: 83 of 670 sleeps on
 * i_dir_lock in one shared T = 8 run of ext2_dirops at -smp 4.  A writer
 * inside, or one that came in: the probe again under the lock.
 */
bool ext2_dirhash_probe(struct inode *dir, const char *name, unsigned len,
			struct ext2_dirhash_probe *p)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	rwsem_assert_held(&dir->i_rwsem);
	maybe_build(dir);
	uint32_t hash = name_hash(name, len);
	bool use = false, done = false;
	unsigned seq = raw_read_seqcount(&ei->i_dir_seq);
	if (!(seq & 1)) {
		rcu_read_lock();
		use = probe_table(dir, hash, p, true);
		rcu_read_unlock();
		done = !read_seqcount_retry(&ei->i_dir_seq, seq);
	}
	if (!done) {
		down_read(&ei->i_dir_lock);
		use = probe_table(dir, hash, p, false);
		up_read(&ei->i_dir_lock);
	}
	if (!use && ext2_dir_blocks(dir) >= ext2_dirhash_min_blocks)
		COUNT(dir, scans);
	return use;
}

bool ext2_dirhash_stale(struct inode *dir, struct ext2_dirhash_probe *p, uint64_t pos)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	down_read(&ei->i_dir_lock);
	bool wrong = ei->i_dir_version == p->version;
	struct ext2_dirhash *dh = __atomic_load_n(&ei->i_dirhash, __ATOMIC_RELAXED);
	if (wrong && dh && dh != DIRHASH_BUILDING) {
		kprintf("ext2: dirhash of directory %lu is wrong at %lu: not believed\n", dir->i_ino, pos);
		COUNT(dir, stale);
		__atomic_store_n(&dh->stale, true, __ATOMIC_RELAXED);
	}
	up_read(&ei->i_dir_lock);
	return wrong;
}

bool ext2_dirhash_agrees(struct ext2_dirhash_probe *p, const char *name, unsigned len)
{
	return name_hash(name, len) == p->hash;
}

/* ---- changes (caller holds dir's i_dir_lock exclusive) -------------------- */

/* dir's table, if it has one. */
static struct ext2_dirhash *table_of(struct inode *dir)
{
	rwsem_assert_held_write(&EXT2_I(dir)->i_dir_lock);
	struct ext2_dirhash *dh = __atomic_load_n(&EXT2_I(dir)->i_dirhash, __ATOMIC_RELAXED);
	if (dh == DIRHASH_BUILDING)	/* being built: the build will see this change in the block */
		return NULL;
	if (dh && __atomic_load_n(&dh->stale, __ATOMIC_RELAXED)) {
		ext2_dirhash_drop(dir);
		return NULL;
	}
	return dh;
}

/* At eviction nobody else holds the inode, but the shrinker may be
 * looking at its table: it is taken out under dirhash_lock. */
void ext2_dirhash_drop(struct inode *dir)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	spin_lock(&dirhash_lock);
	struct ext2_dirhash *dh = __atomic_load_n(&ei->i_dirhash, __ATOMIC_RELAXED);
	if (dh && dh != DIRHASH_BUILDING) {
		__atomic_store_n(&ei->i_dirhash, NULL, __ATOMIC_RELAXED);
		list_del(&dh->lru);
		dirhash_mem -= dh->bytes;
	} else {
		dh = NULL;
	}
	spin_unlock(&dirhash_lock);
	if (dh)
		kfree_rcu(dh, rcu);
}

/* dh, copied into a table with room for one more entry; NULL if there is
 * no memory (dh is left as it was). */
static struct ext2_dirhash *grow(struct inode *dir, struct ext2_dirhash *dh)
{
	struct ext2_dirhash *big = table_alloc(dir, dh->live + dh->live / 2 + 1);
	if (!big)
		return NULL;
	for (unsigned i = 0; i < dh->nslots; i++)
		if (dh->slot[i].pos > POS_DELETED)
			insert(big, dh->slot[i].hash, dh->slot[i].pos);
	big->referenced = dh->referenced;
	spin_lock(&dirhash_lock);
	list_add_tail(&big->lru, &dh->lru);	/* dh's place in the list */
	list_del(&dh->lru);
	__atomic_store_n(&EXT2_I(dir)->i_dirhash, big, __ATOMIC_RELEASE);
	spin_unlock(&dirhash_lock);
	release(dh);
	return big;
}

void ext2_dirhash_add(struct inode *dir, const char *name, unsigned len, uint64_t pos)
{
	struct ext2_dirhash *dh = table_of(dir);
	if (!dh)
		return;
	if (4 * (dh->live + dh->deleted + 1) > 3 * dh->nslots && !(dh = grow(dir, dh))) {
		ext2_dirhash_drop(dir);	/* incomplete is worse than none */
		return;
	}
	insert(dh, name_hash(name, len), (uint32_t)pos + POS_BIAS);
}

void ext2_dirhash_remove(struct inode *dir, const char *name, unsigned len, uint64_t pos)
{
	struct ext2_dirhash *dh = table_of(dir);
	if (!dh)
		return;
	uint32_t hash = name_hash(name, len), want = (uint32_t)pos + POS_BIAS;
	unsigned mask = dh->nslots - 1;
	for (unsigned i = hash & mask; dh->slot[i].pos != POS_EMPTY; i = (i + 1) & mask)
		if (dh->slot[i].pos == want) {
			dh->slot[i].pos = POS_DELETED;
			dh->live--;
			dh->deleted++;
			return;
		}
	/* Not there: the table was wrong; a wrong table must not answer. */
	kprintf("ext2: dirhash of directory %lu lacked an entry at %lu: dropped\n", dir->i_ino, pos);
	COUNT(dir, stale);
	ext2_dirhash_drop(dir);
}

size_t ext2_dirhash_bytes(void)
{
	spin_lock(&dirhash_lock);
	size_t n = dirhash_mem;
	spin_unlock(&dirhash_lock);
	return n;
}

unsigned long ext2_dirhash_reclaim(unsigned long nr)
{
	return reclaim(nr);
}
