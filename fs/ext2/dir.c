/*
 * dir.c: ext2 directories: blocks of variable-length entries.
 *
 * Each entry has an inode number (0: unused), its record length (to the
 * next entry; the last one in a block reaches the block's end), the
 * name's length, the file type (the `filetype` feature) and the name.
 * Entries never cross a block, never move: removing one merges it into
 * the entry before it (or, first in its block, sets its inode to 0),
 * adding one takes an unused entry or the slack at the end of a used one,
 * else a new block at the end of the directory.  A readdir position is a
 * byte offset; since nothing moves, an entry present for the whole of a
 * readdir is returned exactly once (a position that lands inside a merged
 * entry goes on from the next entry after it).
 *
 * A directory e2fsck -D indexed (EXT2_INDEX_FL: an htree) is read as the
 * plain list it also is: the index lives in entries with inode 0 that
 * span whole blocks, and in the ".." entry's slack.  Its first change
 * clears the flag, as Linux's ext2 does, and the index blocks become
 * free space.
 *
 * Every entry is checked at every step of every walk (dir_block.c's
 * ext2_dirent_check): a bad one is reported and -EIO returned, never
 * followed, and what is used of it is the copy the check read.
 * Locking (ext2 sets FS_PAR_DIROPS: the VFS may call every change with
 * the directory's i_rwsem shared, each name locked by the VFS, so
 * changes of different names run side by side, and beside lookups and
 * readdir):
 *   i_dir_lock (ext2.h)  every read of entries is under it shared, every
 *       write under it exclusive, each over one block read before it was
 *       taken: a walk, a lookup, add_link's search for room read blocks
 *       (and sleep for the disk) with no ext2 lock, then lock.  A change
 *       finds its place on a copy of the block (add_link's room,
 *       refind_early's entry before its own), taken with no lock while
 *       no writer is inside (i_dir_seq, which every exclusive hold makes
 *       odd: dir_write_lock) and under the lock shared otherwise,
 *       and under the lock exclusive uses it only if i_dir_version, which
 *       every write of a block bumps, has not moved since the copy; else
 *       it finds its place again (add_link searches the block again,
 *       delete_at and set_link walk to the entry again: refind).  Entries
 *       never move, and a name is changed by one caller at a time (the
 *       VFS's lock), so a change's own entry is where it found it.
 *   i_grow_mutex  the append of a block when none had room: it may read
 *       a bitmap or pointer block, so it is not i_dir_lock; it orders
 *       only appenders, and i_dir_lock is taken inside it to publish.
 * With the VFS's exclusive i_rwsem (vfs.dirops=exclusive, or a caller
 * that takes it so) these locks are only uncontended extras.
 */
#include "fs/ext2/ext2.h"
#include "fs/buffer.h"
#include "fs/file.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kcsan.h"
#include "kernel/kmalloc.h"
#include "kernel/mutex.h"
#include "kernel/race.h"
#include "kernel/rwsem.h"
#include "kernel/seqlock.h"
#include "kernel/string.h"

/* i_dir_lock exclusive, for a write of the directory's blocks: i_dir_seq
 * odd meanwhile, so that copy_block's lockless copy knows. */
static void dir_write_lock(struct inode *dir)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	down_write(&ei->i_dir_lock);
	write_seqcount_begin(&ei->i_dir_seq);
}

static void dir_write_unlock(struct inode *dir)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	write_seqcount_end(&ei->i_dir_seq);
	up_write(&ei->i_dir_lock);
}

static struct ext2_dirent *at(struct buffer_head *bh, unsigned off)
{
	return (struct ext2_dirent *)(bh->b_data + off);
}

/* Is the checked entry at p name's?  (Its name's bytes are inside its
 * record: the check saw name_len fit.) */
static bool name_is(const struct ext2_dir_pos *p, const char *name, unsigned len)
{
	return p->ino && p->name_len == len && memcmp(at(p->bh, p->off)->name, name, len) == 0;
}

/* The linear scan: 0 and *f (its block held), -ENOENT, or an error. */
struct scan_for {
	const char *name;
	unsigned len;
	struct ext2_dir_pos *found;
};

static int match(void *arg, struct ext2_dir_pos *p)
{
	struct scan_for *s = arg;
	if (!name_is(p, s->name, s->len))
		return EXT2_WALK_NEXT;
	*s->found = *p;
	return EXT2_WALK_KEEP;
}

static int scan(struct inode *dir, const char *name, unsigned len, struct ext2_dir_pos *f)
{
	struct scan_for s = { name, len, f };
	int r = ext2_dir_walk(dir, 0, match, &s);
	return r < 0 ? r : r == EXT2_WALK_KEEP ? 0 : -ENOENT;
}

#define STALE 1

/* The entry at byte pos of dir, if it is name's: 0 and *f, -ENOENT
 * (another name whose hash is the same), STALE (the index is wrong
 * about pos, or the directory changed since the probe: find() tells
 * which), or an error.  The block is read first, then looked at under
 * i_dir_lock shared. */
static int entry_at(struct inode *dir, uint64_t pos, struct ext2_dirhash_probe *p,
		    const char *name, unsigned len, struct ext2_dir_pos *f)
{
	unsigned bs = EXT2_SB(dir->i_sb)->block_size, want = (unsigned)(pos % bs);
	if (pos / bs >= ext2_dir_blocks(dir))
		return STALE;
	struct buffer_head *bh = ext2_dir_bread(dir, pos / bs);
	if (IS_ERR(bh))
		return (int)PTR_ERR(bh);
	struct ext2_dir_pos q = { .bh = bh, .block = pos / bs, .pos = pos };
	int err = 0;
	down_read(&EXT2_I(dir)->i_dir_lock);
	while (!err && q.off < want) {	/* to want, every entry on the way checked */
		err = ext2_dirent_check(dir, &q);
		if (!err) {
			q.prev = q.off;
			q.off += q.rec_len;
		}
	}
	if (!err)
		err = q.off != want ? STALE : ext2_dirent_check(dir, &q);
	if (!err)
		err = !q.ino ? STALE : name_is(&q, name, len) ? 0 :
		      ext2_dirhash_agrees(p, at(bh, q.off)->name, q.name_len) ? -ENOENT : STALE;
	up_read(&EXT2_I(dir)->i_dir_lock);
	if (err) {
		brelse(bh);
		return err;
	}
	*f = q;
	return 0;
}

/* scan()'s answer, through the directory's index when it has one
 * (dirhash.c): the positions the index gives for name's hash are checked
 * against the blocks, and a name the index lacks is not in the
 * directory.  The name itself cannot change meanwhile (the VFS locks it:
 * a lookup's is in-lookup, a change's its own), but other names can: a
 * position found wrong is believed wrong only if nothing changed since
 * the probe (i_dir_version); else the probe is made again.  An index
 * found wrong is dropped and the directory scanned. */
static int find(struct inode *dir, const char *name, unsigned len, struct ext2_dir_pos *f)
{
	for (unsigned tries = 0; tries < 8; tries++) {
		struct ext2_dirhash_probe p;
		if (!ext2_dirhash_probe(dir, name, len, &p))
			break;
		int err = -ENOENT;
		unsigned i;
		for (i = 0; i < p.n && err == -ENOENT; i++)
			err = entry_at(dir, p.pos[i], &p, name, len, f);
		if (err != STALE)
			return err;
		if (ext2_dirhash_stale(dir, &p, p.pos[i - 1]))
			break;
	}
	return scan(dir, name, len, f);
}

/* The inode number in what find() or scan() answered. */
static int ino_of(int err, struct ext2_dir_pos *f, uint32_t *ino)
{
	if (!err) {
		*ino = f->ino;
		brelse(f->bh);
	}
	return err;
}

int ext2_find_entry(struct inode *dir, const char *name, unsigned len, uint32_t *ino)
{
	struct ext2_dir_pos f;
	return ino_of(find(dir, name, len, &f), &f, ino);
}

int ext2_find_entry_pos(struct inode *dir, const char *name, unsigned len, uint32_t *ino,
			uint64_t *pos)
{
	struct ext2_dir_pos f;
	int err = find(dir, name, len, &f);
	if (!err)
		*pos = f.pos;
	return ino_of(err, &f, ino);
}

static bool is_dots(const struct ext2_dir_pos *p)
{
	const char *n = ((struct ext2_dirent *)(p->bh->b_data + p->off))->name;
	return (p->name_len == 1 && n[0] == '.') ||
	       (p->name_len == 2 && n[0] == '.' && n[1] == '.');
}

struct other_name {
	uint32_t ino;
	uint64_t pos;
};

static int names_it_elsewhere(void *arg, struct ext2_dir_pos *p)
{
	struct other_name *o = arg;
	return p->ino == o->ino && p->pos != o->pos && !is_dots(p) ? EXT2_WALK_STOP : EXT2_WALK_NEXT;
}

int ext2_other_name(struct inode *dir, uint32_t ino, uint64_t pos)
{
	struct other_name o = { ino, pos };
	int r = ext2_dir_walk(dir, 0, names_it_elsewhere, &o);
	return r < 0 ? r : r == EXT2_WALK_STOP;
}

int ext2_find_entry_linear(struct inode *dir, const char *name, unsigned len, uint32_t *ino)
{
	struct ext2_dir_pos f;
	return ino_of(scan(dir, name, len, &f), &f, ino);
}

static const uint8_t ft_of_mode[] = {
	[S_IFREG >> 12] = EXT2_FT_REG_FILE, [S_IFDIR >> 12] = EXT2_FT_DIR,
	[S_IFCHR >> 12] = EXT2_FT_CHRDEV, [S_IFBLK >> 12] = EXT2_FT_BLKDEV,
	[S_IFIFO >> 12] = EXT2_FT_FIFO, [S_IFSOCK >> 12] = EXT2_FT_SOCK,
	[S_IFLNK >> 12] = EXT2_FT_SYMLINK,
};

static void set_entry(struct ext2_sb_info *sbi, struct ext2_dirent *de, const char *name,
		      unsigned len, struct inode *inode)
{
	de->inode = (uint32_t)inode->i_ino;
	de->name_len = (uint8_t)len;
	de->file_type = sbi->filetype ? ft_of_mode[(inode->i_mode & S_IFMT) >> 12] : 0;
	memcpy(de->name, name, len);
}

/*
 * Every change of a directory's entries ends here, under its i_dir_lock
 * exclusive: the version that tells find() a position may have moved,
 * the times, and an htree index is no more.  The raw inode is written
 * under the same lock, after every field it copies was changed.
 */
static void dir_changed(struct inode *dir)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	rwsem_assert_held_write(&ei->i_dir_lock);
	__atomic_store_n(&ei->i_dir_version, ei->i_dir_version + 1, __ATOMIC_RELAXED);
	__atomic_fetch_and(&ei->i_flags, ~(uint32_t)EXT2_INDEX_FL, __ATOMIC_RELAXED);
	inode_touch(dir, T_MTIME | T_CTIME);
	ext2_write_inode(dir);
}

/* Block n of dir, allocated (it may read a bitmap or a pointer block),
 * holding one unused entry; not yet part of the directory: the caller
 * publishes i_size.  Caller holds i_grow_mutex, or dir is new. */
static struct buffer_head *new_block(struct inode *dir, uint64_t n)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	uint32_t pblk;
	int err = ext2_get_block(dir, n, true, &pblk, NULL);
	if (err)
		return ERR_PTR(err);
	struct buffer_head *bh = __getblk(sbi->bdev, pblk, sbi->block_size);
	if (IS_ERR(bh))
		return bh;
	lock_buffer(bh);
	memset(bh->b_data, 0, sbi->block_size);
	at(bh, 0)->rec_len = (uint16_t)sbi->block_size;
	set_buffer_uptodate(bh);
	unlock_buffer(bh);
	mark_buffer_dirty(bh);
	return bh;
}

/* Where add_link may put an entry of `need` bytes in one block: the first
 * record with that much room (to take, if unused, or to split). */
struct room {
	const char *name;
	unsigned len, need;
	bool found;
	unsigned off, used, rec_len;
};

static int room_visit(void *arg, struct ext2_dir_pos *p)
{
	struct room *r = arg;
	if (name_is(p, r->name, r->len))
		return -EEXIST;
	unsigned used = p->ino ? EXT2_DIR_REC_LEN(p->name_len) : 0;
	if (p->rec_len - used < r->need)
		return EXT2_WALK_NEXT;
	r->found = true;
	r->off = p->off;
	r->used = used;
	r->rec_len = p->rec_len;
	return EXT2_WALK_STOP;
}

/* The entry written into the room found (i_dir_lock exclusive).  Sizes
 * from the checked copy: every write stays inside the record, so inside
 * the block. */
static void place(struct inode *dir, struct buffer_head *bh, uint64_t block, const struct room *r,
		  struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	struct ext2_dirent *de = at(bh, r->off);
	race_window();	/* room found, not taken: another add would take it too */
	if (r->used) {	/* split: the new entry takes the slack */
		struct ext2_dirent *next = at(bh, r->off + r->used);
		next->rec_len = (uint16_t)(r->rec_len - r->used);
		de->rec_len = (uint16_t)r->used;
		de = next;
	}
	set_entry(sbi, de, r->name, r->len, inode);
	mark_buffer_dirty(bh);
	ext2_dirhash_add(dir, r->name, r->len, block * sbi->block_size + ((char *)de - bh->b_data));
	__atomic_store_n(&EXT2_I(dir)->i_room_from, block, __ATOMIC_RELAXED);
	dir_changed(dir);
}

/* No block had room: a new one at the end.  Only one add appends at a
 * time (i_grow_mutex); one that finds the directory grown since it
 * looked goes back to look at the new blocks (-EAGAIN). */
static int append(struct inode *dir, uint64_t n, struct room *r, struct inode *inode)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	mutex_lock(&ei->i_grow_mutex);
	race_window();	/* the size looked at, not yet grown: another add may grow it */
	if (ext2_dir_blocks(dir) != n) {
		mutex_unlock(&ei->i_grow_mutex);
		return -EAGAIN;
	}
	struct buffer_head *bh = new_block(dir, n);
	if (IS_ERR(bh)) {
		mutex_unlock(&ei->i_grow_mutex);
		return (int)PTR_ERR(bh);
	}
	r->off = r->used = 0;
	r->rec_len = EXT2_SB(dir->i_sb)->block_size;
	dir_write_lock(dir);
	/* The size (which dir_changed writes to the raw inode) and the entry
	 * in one hold: walks look at a block's entries only under the lock. */
	__atomic_store_n(&dir->i_size, (n + 1) * r->rec_len, __ATOMIC_RELEASE);
	place(dir, bh, n, r, inode);
	dir_write_unlock(dir);
	mutex_unlock(&ei->i_grow_mutex);
	brelse(bh);
	return 0;
}

/*
 * A copy of bh's block, and the i_dir_version it goes with, for
 * unchanged_since under the lock exclusive.  Taken with no lock when no
 * writer is inside (i_dir_seq even before the copy and the same after
 * it), else under i_dir_lock shared as before: never a spin on a writer
 * that the tick may have preempted.  Under the lock shared, a copy
 * queued behind any writer that waited for other readers, and slept: at
 * T = 8 on -smp 4 (ext2_dirops, shared mode) those copies were 313 of
 * the 670 sleeps on i_dir_lock in one run, and the CPUs were idle 40 to
 * 55% of the run with two threads each (BENCHMARKS 1b).
 */
static uint64_t copy_block(struct inode *dir, const struct buffer_head *bh, char *copy)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	size_t bs = EXT2_SB(dir->i_sb)->block_size;
	unsigned seq = raw_read_seqcount(&ei->i_dir_seq);
	if (!(seq & 1)) {
		/* Racy by design: a write that tears the copy moves the
		 * count, and the copy is not used.  In two halves, with the
		 * race window between, so that the tests tear it. */
		data_race(memcpy(copy, bh->b_data, bs / 2));
		race_window();	/* half copied: a writer may change the block now */
		data_race(memcpy(copy + bs / 2, bh->b_data + bs / 2, bs - bs / 2));
		uint64_t seen = __atomic_load_n(&ei->i_dir_version, __ATOMIC_RELAXED);
		if (!read_seqcount_retry(&ei->i_dir_seq, seq))
			return seen;
	}
	down_read(&ei->i_dir_lock);
	memcpy(copy, bh->b_data, bs);
	uint64_t seen = __atomic_load_n(&ei->i_dir_version, __ATOMIC_RELAXED);
	up_read(&ei->i_dir_lock);
	return seen;
}

/* Under i_dir_lock exclusive: no block of dir was written since the copy
 * that went with `seen`, so what the copy said is so. */
static bool unchanged_since(struct inode *dir, uint64_t seen)
{
	rwsem_assert_held_write(&EXT2_I(dir)->i_dir_lock);
	return __atomic_load_n(&EXT2_I(dir)->i_dir_version, __ATOMIC_RELAXED) == seen;
}

/*
 * Each block is read with no ext2 lock, copied under i_dir_lock shared,
 * and the copy searched for room with no lock; then, under the lock
 * exclusive, the entry is written into the room found, unless the
 * directory changed since the copy (i_dir_version: another add may have
 * taken that room, a removal merged its record), and then the block is
 * searched again first.  The search (a block of 1 KiB holds 30 to 60
 * entries, each checked) was under the lock twice: shared, where it held
 * off every change of the directory, and exclusive, where it held off
 * everything; with T adds in one directory those two walks were most of
 * the time a change spent serial (sampled: BENCHMARKS 1b).  Now the lock
 * is held shared for a copy, and exclusive for the search only when
 * another change overtook the add.
 *
 * The search starts at i_room_from, not at block 0.  In a full directory
 * of 10,000 entries (160 blocks of 1 KiB) every add walked every block to
 * reach the room at the end: 320 takings of i_dir_lock an add, each
 * writing its count, so T adds in one directory spent their time passing
 * that line between CPUs (and, with more vCPUs than host cores, waiting
 * for a reader the host had descheduled).  Where an entry goes is ext2's
 * choice, not a promise (Linux's ext2 takes the first room from block 0,
 * e2fsck accepts either): a removal lowers the hint to its block, so
 * freed room is used again, and an add of a longer name may leave
 * smaller room behind it unused until a removal there.  The check for
 * the name itself (-EEXIST) covers only the blocks searched: that the
 * name is new is the VFS's to know (its lookup under the name's lock),
 * the check is a defence against a corrupt block.
 */
int ext2_add_link(struct inode *dir, const char *name, unsigned len, struct inode *inode)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	unsigned bs = EXT2_SB(dir->i_sb)->block_size;
	struct room r = { name, len, EXT2_DIR_REC_LEN(len), false, 0, 0, 0 };
	char *copy = kmalloc(bs);
	if (!copy)
		return -ENOMEM;
	uint64_t from = __atomic_load_n(&ei->i_room_from, __ATOMIC_RELAXED);
	if (from > ext2_dir_blocks(dir))
		from = ext2_dir_blocks(dir);
	int err;
	for (uint64_t b = from;; b++) {
		if (b == ext2_dir_blocks(dir)) {
			err = append(dir, b, &r, inode);
			if (err != -EAGAIN)
				break;
		}
		struct buffer_head *bh = ext2_dir_bread(dir, b);
		if (IS_ERR(bh)) {
			err = (int)PTR_ERR(bh);
			break;
		}
		r.found = false;
		uint64_t seen = copy_block(dir, bh, copy);
		err = ext2_dir_walk_copy(dir, copy, b, room_visit, &r);
		if (err >= 0 && r.found) {
			race_window();	/* room found, not locked: another change may come first */
			dir_write_lock(dir);
			if (!unchanged_since(dir, seen)) {
				r.found = false;	/* changed since: the room may be gone */
				err = ext2_dir_walk_block(dir, bh, b, room_visit, &r);
			}
			if (err >= 0 && r.found)
				place(dir, bh, b, &r, inode);
			dir_write_unlock(dir);
		}
		brelse(bh);
		if (err < 0)
			break;
		if (r.found) {
			err = 0;
			break;
		}
	}
	kfree(copy);
	return err;
}

int ext2_find_pos(struct inode *dir, const char *name, unsigned len, struct ext2_dir_pos *f)
{
	return find(dir, name, len, f);
}

/* The entry find() answered, found again in its block (i_dir_lock
 * exclusive): the block is walked up to it, for other changes since the
 * find may have split the entry before it, merged another into it, or
 * this one (it cannot be gone: its name is locked).  0 and q (with the
 * entry before it), or -EIO reported. */
static int refind(struct inode *dir, const struct ext2_dir_pos *f, struct ext2_dir_pos *q)
{
	rwsem_assert_held_write(&EXT2_I(dir)->i_dir_lock);
	*q = (struct ext2_dir_pos){ .bh = f->bh, .block = f->block, .pos = f->pos };
	int err = 0;
	while (!err && q->off < f->off) {
		err = ext2_dirent_check(dir, q);
		if (!err) {
			q->prev = q->off;
			q->off += q->rec_len;
		}
	}
	if (!err)
		err = q->off != f->off ? -EIO : ext2_dirent_check(dir, q);
	if (!err && q->ino != f->ino)
		err = -EIO;
	if (err)
		ext2_error(EXT2_SB(dir->i_sb), "an entry found is gone (dir, position)", dir->i_ino, f->pos);
	return err;
}

/* The entry before f's, found on a copy of f's block: prev_visit's
 * record of the walk. */
struct prev_of {
	const struct ext2_dir_pos *f;
	struct ext2_dir_pos q;
	bool found;
};

static int prev_visit(void *arg, struct ext2_dir_pos *p)
{
	struct prev_of *w = arg;
	if (p->off < w->f->off)
		return EXT2_WALK_NEXT;
	if (p->off == w->f->off && p->ino == w->f->ino) {
		w->q = *p;
		w->q.bh = w->f->bh;	/* p->bh is the copy's stand-in */
		w->found = true;
	}
	return EXT2_WALK_STOP;
}

/*
 * refind() for a change about to take i_dir_lock exclusive, done before
 * it: the block is copied under the lock shared and walked to f's entry
 * with no lock, so that under the exclusive lock only a compare remains
 * (the walk is the serial section's longest part, as in add_link).
 * Returns with *q and the i_dir_version of the copy in *seen, or false
 * (no memory for the copy, or f's entry not where find() said: refind
 * under the lock decides, and reports).  The caller then takes the lock
 * exclusive and uses q only if i_dir_version is still *seen.
 */
static bool refind_early(struct inode *dir, const struct ext2_dir_pos *f, struct ext2_dir_pos *q,
			 uint64_t *seen)
{
	char *copy = kmalloc(EXT2_SB(dir->i_sb)->block_size);
	if (!copy)
		return false;
	*seen = copy_block(dir, f->bh, copy);
	struct prev_of w = { .f = f };
	int err = ext2_dir_walk_copy(dir, copy, f->block, prev_visit, &w);
	kfree(copy);
	if (err < 0 || !w.found)
		return false;
	*q = w.q;
	q->pos = f->pos;
	return true;
}

void (*ext2_refind_hook)(struct inode *dir);

/* Between refind_early and the lock: the window and the tests' hook. */
static void refind_window(struct inode *dir)
{
	race_window();	/* walked on the copy, not locked: another change may come first */
	if (CONFIG_LOCKDEP && ext2_refind_hook)
		ext2_refind_hook(dir);
}

/* f's entry and the one before it, under i_dir_lock exclusive: from
 * refind_early if nothing changed since its copy, else walked again. */
static int refind_locked(struct inode *dir, const struct ext2_dir_pos *f, struct ext2_dir_pos *q,
			 bool early, uint64_t seen)
{
	if (early && unchanged_since(dir, seen))
		return 0;
	return refind(dir, f, q);
}

int ext2_delete_at(struct inode *dir, struct ext2_dir_pos *f)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	struct ext2_dir_pos q;
	uint64_t seen = 0;
	bool early = refind_early(dir, f, &q, &seen);
	refind_window(dir);
	dir_write_lock(dir);
	int err = refind_locked(dir, f, &q, early, seen);
	if (!err) {
		race_window();	/* found, not removed: an add may split the one before */
		ext2_dirhash_remove(dir, at(q.bh, q.off)->name, q.name_len, f->pos);
		if (q.prev != q.off)	/* the one before reaches q.off: it now covers q's record too */
			at(q.bh, q.prev)->rec_len = (uint16_t)(q.off - q.prev + q.rec_len);
		else
			at(q.bh, q.off)->inode = 0;
		mark_buffer_dirty(q.bh);
		if (q.block < ei->i_room_from)	/* room here now: adds look here first */
			__atomic_store_n(&ei->i_room_from, q.block, __ATOMIC_RELAXED);
		dir_changed(dir);
	}
	dir_write_unlock(dir);
	brelse(f->bh);
	return err;
}

int ext2_delete_entry(struct inode *dir, const char *name, unsigned len)
{
	struct ext2_dir_pos f;
	int err = find(dir, name, len, &f);
	return err ? err : ext2_delete_at(dir, &f);
}

int ext2_set_link(struct inode *dir, const char *name, unsigned len, struct inode *inode)
{
	struct ext2_dir_pos f, q;
	int err = find(dir, name, len, &f);
	if (err)
		return err;
	uint64_t seen = 0;
	bool early = refind_early(dir, &f, &q, &seen);
	refind_window(dir);
	dir_write_lock(dir);
	err = refind_locked(dir, &f, &q, early, seen);
	if (!err) {
		race_window();	/* found, not yet repointed */
		set_entry(EXT2_SB(dir->i_sb), at(q.bh, q.off), name, len, inode);
		mark_buffer_dirty(q.bh);
		dir_changed(dir);
	}
	dir_write_unlock(dir);
	brelse(f.bh);
	return err;
}

/* A new directory's first block: "." and "..".  inode is new (I_NEW):
 * nobody else can reach it, so no lock. */
int ext2_make_empty(struct inode *inode, struct inode *parent)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct buffer_head *bh = new_block(inode, 0);
	if (IS_ERR(bh))
		return (int)PTR_ERR(bh);
	struct ext2_dirent *dot = at(bh, 0);
	set_entry(sbi, dot, ".", 1, inode);
	dot->rec_len = (uint16_t)EXT2_DIR_REC_LEN(1);
	struct ext2_dirent *dotdot = at(bh, dot->rec_len);
	set_entry(sbi, dotdot, "..", 2, parent);
	dotdot->rec_len = (uint16_t)(sbi->block_size - dot->rec_len);
	mark_buffer_dirty(bh);
	brelse(bh);
	__atomic_store_n(&inode->i_size, sbi->block_size, __ATOMIC_RELEASE);
	EXT2_I(inode)->i_dotdot = (uint32_t)parent->i_ino;
	ext2_write_inode(inode);
	return 0;
}

int ext2_find_dotdot(struct inode *dir, struct ext2_dir_pos *dd)
{
	if (ext2_dir_blocks(dir) == 0)
		return ext2_error(EXT2_SB(dir->i_sb), "a directory without blocks", dir->i_ino, 0);
	struct buffer_head *bh = ext2_dir_bread(dir, 0);
	if (IS_ERR(bh))
		return (int)PTR_ERR(bh);
	struct ext2_dir_pos dot = { .bh = bh };
	*dd = (struct ext2_dir_pos){ .bh = bh };
	down_read(&EXT2_I(dir)->i_dir_lock);
	int err = ext2_dirent_check(dir, &dot);
	if (!err) {
		dd->off = dd->prev = dot.rec_len;
		dd->pos = dot.rec_len;
		err = ext2_dirent_check(dir, dd);
	}
	if (!err && (dd->name_len != 2 || memcmp(at(bh, dd->off)->name, "..", 2) != 0))
		err = ext2_error(EXT2_SB(dir->i_sb), "a directory without ..", dir->i_ino, 0);
	up_read(&EXT2_I(dir)->i_dir_lock);
	if (err) {
		brelse(bh);
		dd->bh = NULL;	/* nothing held: rename's error path releases dd.bh */
	}
	return err;
}

int ext2_read_dotdot(struct inode *dir, uint32_t *ino)
{
	struct ext2_dir_pos dd;
	int err = ext2_find_dotdot(dir, &dd);
	if (!err) {
		*ino = dd.ino;
		brelse(dd.bh);
	}
	return err;
}

/* ".." never moves ("." before it is 12 bytes for ever), so the place
 * found stays its place; the write is under i_dir_lock, for the walks
 * of other names in dir's first block. */
void ext2_set_dotdot_at(struct inode *dir, struct ext2_dir_pos *dd, struct inode *parent)
{
	struct ext2_inode_info *ei = EXT2_I(dir);
	dir_write_lock(dir);
	at(dd->bh, dd->off)->inode = (uint32_t)parent->i_ino;
	mark_buffer_dirty(dd->bh);
	/* Counted as every write of the blocks is (add_link's room, the
	 * index's probes), though no record moved. */
	__atomic_store_n(&ei->i_dir_version, ei->i_dir_version + 1, __ATOMIC_RELAXED);
	dir_write_unlock(dir);
	brelse(dd->bh);
	__atomic_store_n(&ei->i_dotdot, (uint32_t)parent->i_ino, __ATOMIC_RELAXED);
}

static int not_a_dot(void *arg, struct ext2_dir_pos *p)
{
	(void)arg;
	return p->ino && !is_dots(p) ? EXT2_WALK_STOP : EXT2_WALK_NEXT;
}

int ext2_empty_dir(struct inode *dir)
{
	int r = ext2_dir_walk(dir, 0, not_a_dot, NULL);
	return r < 0 ? r : r == EXT2_WALK_NEXT;
}

unsigned ext2_dtype(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:  return DT_REG;
	case S_IFDIR:  return DT_DIR;
	case S_IFLNK:  return DT_LNK;
	case S_IFCHR:  return DT_CHR;
	case S_IFBLK:  return DT_BLK;
	case S_IFIFO:  return DT_FIFO;
	case S_IFSOCK: return DT_SOCK;
	default:       return DT_UNKNOWN;
	}
}

static const uint8_t dtype_of_ft[] = {
	[EXT2_FT_REG_FILE] = DT_REG, [EXT2_FT_DIR] = DT_DIR, [EXT2_FT_CHRDEV] = DT_CHR,
	[EXT2_FT_BLKDEV] = DT_BLK, [EXT2_FT_FIFO] = DT_FIFO, [EXT2_FT_SOCK] = DT_SOCK,
	[EXT2_FT_SYMLINK] = DT_LNK,
};

struct iterate_walk {
	struct dir_context *ctx;
	bool filetype;
	struct ext2_sb_info *prefetch;	/* queue subdirectories (prefetch.c) */
};

/* An entry at or after the position is emitted; the position then goes
 * past it.  One before the position (a position inside an entry merged
 * since) moves the position to its end, where the next entry starts. */
static int emit_one(void *arg, struct ext2_dir_pos *p)
{
	struct iterate_walk *w = arg;
	struct ext2_dirent *de = at(p->bh, p->off);
	if (p->pos >= w->ctx->pos && p->ino) {
		uint8_t ft = __atomic_load_n(&de->file_type, __ATOMIC_RELAXED);
		unsigned dt = w->filetype && ft < sizeof(dtype_of_ft) ? dtype_of_ft[ft] : DT_UNKNOWN;
		if (w->prefetch && dt == DT_DIR && !is_dots(p))
			ext2_prefetch_dir(w->prefetch, p->ino);
		if (!w->ctx->emit(w->ctx, de->name, p->name_len, p->ino, dt))
			return EXT2_WALK_STOP;
	}
	if (p->pos + p->rec_len > w->ctx->pos)
		w->ctx->pos = p->pos + p->rec_len;
	return EXT2_WALK_NEXT;
}

/* Called with the directory's i_rwsem shared and the file's position lock. */
static int ext2_iterate(struct file *f, struct dir_context *ctx)
{
	struct inode *dir = f->f_inode;
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	struct iterate_walk w = { ctx, sbi->filetype, NULL };
	/* Until a listing has reached the end of the directory once, every
	 * subdirectory listed is queued for read-ahead (prefetch.c): a walk of
	 * the tree comes next.  Not only the first call's: a first call may
	 * list nothing (busybox find's first getdents here emitted no entry),
	 * and a small buffer lists a directory over many calls. */
	bool prefetch = sbi->filetype && !__atomic_load_n(&EXT2_I(dir)->i_prefetched, __ATOMIC_RELAXED);
	if (prefetch)
		w.prefetch = sbi;
	int r = ext2_dir_walk(dir, ctx->pos / sbi->block_size, emit_one, &w);
	if (prefetch && r == EXT2_WALK_NEXT)
		__atomic_store_n(&EXT2_I(dir)->i_prefetched, true, __ATOMIC_RELAXED);
	return r < 0 ? r : 0;
}

const struct file_operations ext2_dir_fops = {
	.iterate = ext2_iterate,
	.fsync = ext2_fsync,
};
