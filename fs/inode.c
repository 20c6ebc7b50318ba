/*
 * inode.c: the inode cache.
 *
 * An inode is found by (super block, inode number) in a hash table, so
 * that every path to one file ends at the same struct inode.  iget()
 * returns it with a reference, creating it (is_new) if it was not cached;
 * the filesystem then fills it in.  The last iput() frees it.
 *
 * Locking: each hash bucket has a spinlock protecting its chain and the
 * i_count of the inodes on it going to or from zero, so iget() can never
 * return an inode that iput() is freeing.  Order: i_rwsem (sleeping) ->
 * icache bucket lock -> slab locks.
 */
#include "fs/fs.h"
#include "kernel/slab.h"
#include "kernel/panic.h"
#include "kernel/string.h"

#define ICACHE_BUCKETS 1024

struct icache_bucket {
	struct spinlock lock;
	struct list_head chain;
};

static struct icache_bucket buckets[ICACHE_BUCKETS];
static struct kmem_cache *inode_cache;

void icache_init(void)
{
	for (unsigned i = 0; i < ICACHE_BUCKETS; i++) {
		spin_init(&buckets[i].lock, "icache_bucket");
		list_init(&buckets[i].chain);
	}
	inode_cache = kmem_cache_create("inode", sizeof(struct inode), 16);
	if (!inode_cache)
		panic("icache: cannot create the inode cache");
}

uint64_t icache_live(void)
{
	return kmem_cache_live(inode_cache);
}

static struct icache_bucket *bucket_of(struct super_block *sb, uint64_t ino)
{
	uint64_t h = ((uint64_t)sb >> 4) * 0x9E3779B97F4A7C15ULL ^ ino * 0xC2B2AE3D27D4EB4FULL;
	return &buckets[(h >> 32) % ICACHE_BUCKETS];
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

struct inode *iget(struct super_block *sb, uint64_t ino, bool *is_new)
{
	struct icache_bucket *b = bucket_of(sb, ino);
	struct inode *fresh = NULL;

	for (;;) {
		unsigned long flags = spin_lock_irqsave(&b->lock);
		struct inode *i = find(b, sb, ino);
		if (i) {
			__atomic_fetch_add(&i->i_count, 1, __ATOMIC_RELAXED);
			spin_unlock_irqrestore(&b->lock, flags);
			if (fresh)
				kmem_cache_free(inode_cache, fresh);
			*is_new = false;
			return i;
		}
		if (fresh) {	/* still missing: insert ours */
			list_add(&fresh->i_hash, &b->chain);
			spin_unlock_irqrestore(&b->lock, flags);
			*is_new = true;
			return fresh;
		}
		spin_unlock_irqrestore(&b->lock, flags);
		/* Allocate outside the bucket lock, then look again. */
		fresh = kmem_cache_alloc(inode_cache);
		if (!fresh)
			return NULL;
		memset(fresh, 0, sizeof(*fresh));
		fresh->i_sb = sb;
		fresh->i_ino = ino;
		fresh->i_count = 1;
		fresh->i_nlink = 1;
		init_rwsem(&fresh->i_rwsem, "i_rwsem");
	}
}

struct inode *igrab(struct inode *inode)
{
	__atomic_fetch_add(&inode->i_count, 1, __ATOMIC_RELAXED);
	return inode;
}

void iput(struct inode *inode)
{
	if (!inode)
		return;
	struct icache_bucket *b = bucket_of(inode->i_sb, inode->i_ino);
	unsigned long flags = spin_lock_irqsave(&b->lock);
	int left = __atomic_sub_fetch(&inode->i_count, 1, __ATOMIC_ACQ_REL);
	BUG_ON(left < 0);
	if (left == 0)
		list_del(&inode->i_hash);	/* under the lock: iget cannot find it now */
	spin_unlock_irqrestore(&b->lock, flags);
	if (left == 0) {
		if (inode->i_sb->s_op && inode->i_sb->s_op->evict)
			inode->i_sb->s_op->evict(inode);
		kmem_cache_free(inode_cache, inode);
	}
}
