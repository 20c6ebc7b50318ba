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
 * Locking: the directory's i_rwsem, held by the VFS (shared for lookup
 * and readdir, exclusive for every change).
 */
#include "fs/ext2/ext2.h"
#include "fs/buffer.h"
#include "fs/file.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/string.h"

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
 * about pos), or an error. */
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
	if (err) {
		brelse(bh);
		return err;
	}
	*f = q;
	return 0;
}

/* scan()'s answer, through the directory's index when it has one
 * (dirhash.c): a position the index gives is checked against the block,
 * and a name the index lacks is not in the directory.  An index found
 * wrong is dropped and the directory scanned. */
static int find(struct inode *dir, const char *name, unsigned len, struct ext2_dir_pos *f)
{
	struct ext2_dirhash_probe p;
	if (!ext2_dirhash_probe(dir, name, len, &p))
		return scan(dir, name, len, f);
	uint64_t pos;
	while (ext2_dirhash_next(&p, &pos)) {
		int err = entry_at(dir, pos, &p, name, len, f);
		if (err == STALE) {
			ext2_dirhash_stale(dir, &p, pos);
			return scan(dir, name, len, f);
		}
		if (err != -ENOENT)
			return err;
	}
	return -ENOENT;
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

/* dir's entries changed: its times, and an htree index is no more. */
static void dir_changed(struct inode *dir)
{
	EXT2_I(dir)->i_flags &= ~EXT2_INDEX_FL;
	inode_touch(dir, T_MTIME | T_CTIME);
	ext2_write_inode(dir);
}

/* A fresh block for dir at its end, holding one unused entry. */
static struct buffer_head *grow(struct inode *dir)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	uint64_t n = ext2_dir_blocks(dir);
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
	__atomic_store_n(&dir->i_size, (n + 1) * sbi->block_size, __ATOMIC_RELEASE);
	return bh;
}

int ext2_add_link(struct inode *dir, const char *name, unsigned len, struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	unsigned need = EXT2_DIR_REC_LEN(len);
	uint64_t n = ext2_dir_blocks(dir);
	for (uint64_t b = 0; b <= n; b++) {
		struct buffer_head *bh = b < n ? ext2_dir_bread(dir, b) : grow(dir);
		if (IS_ERR(bh))
			return (int)PTR_ERR(bh);
		struct ext2_dir_pos q = { .bh = bh, .block = b };
		for (; q.off < sbi->block_size; q.off += q.rec_len) {
			int err = ext2_dirent_check(dir, &q);
			if (err || name_is(&q, name, len)) {
				brelse(bh);
				return err ? err : -EEXIST;
			}
			/* Sizes from the checked copy: every write below stays
			 * inside this record, so inside the block. */
			struct ext2_dirent *de = at(bh, q.off);
			unsigned used = q.ino ? EXT2_DIR_REC_LEN(q.name_len) : 0;
			if (q.rec_len - used < need)
				continue;
			if (used) {	/* split: the new entry takes the slack */
				struct ext2_dirent *next = at(bh, q.off + used);
				next->rec_len = (uint16_t)(q.rec_len - used);
				de->rec_len = (uint16_t)used;
				de = next;
			}
			set_entry(sbi, de, name, len, inode);
			mark_buffer_dirty(bh);
			ext2_dirhash_add(dir, name, len, b * sbi->block_size + ((char *)de - bh->b_data));
			brelse(bh);
			dir_changed(dir);
			return 0;
		}
		brelse(bh);
	}
	return ext2_error(sbi, "a new directory block with no room", dir->i_ino, n);
}

int ext2_find_pos(struct inode *dir, const char *name, unsigned len, struct ext2_dir_pos *f)
{
	return find(dir, name, len, f);
}

int ext2_delete_at(struct inode *dir, struct ext2_dir_pos *f)
{
	/* The block walked again up to the entry: rename's add since the
	 * find may have split the entry before it, or this one. */
	struct ext2_dir_pos q = { .bh = f->bh, .block = f->block, .pos = f->pos };
	int err = 0;
	while (!err && q.off < f->off) {
		err = ext2_dirent_check(dir, &q);
		if (!err) {
			q.prev = q.off;
			q.off += q.rec_len;
		}
	}
	if (!err)
		err = q.off != f->off ? -EIO : ext2_dirent_check(dir, &q);
	if (!err && q.ino != f->ino)
		err = -EIO;
	if (err) {
		brelse(f->bh);
		ext2_error(EXT2_SB(dir->i_sb), "an entry found is gone (dir, position)", dir->i_ino, f->pos);
		return err;
	}
	ext2_dirhash_remove(dir, at(q.bh, q.off)->name, q.name_len, f->pos);
	if (q.prev != q.off)	/* the one before reaches q.off: it now covers q's record too */
		at(q.bh, q.prev)->rec_len = (uint16_t)(q.off - q.prev + q.rec_len);
	else
		at(q.bh, q.off)->inode = 0;
	mark_buffer_dirty(q.bh);
	brelse(q.bh);
	dir_changed(dir);
	return 0;
}

int ext2_delete_entry(struct inode *dir, const char *name, unsigned len)
{
	struct ext2_dir_pos f;
	int err = find(dir, name, len, &f);
	return err ? err : ext2_delete_at(dir, &f);
}

int ext2_set_link(struct inode *dir, const char *name, unsigned len, struct inode *inode)
{
	struct ext2_dir_pos f;
	int err = find(dir, name, len, &f);
	if (err)
		return err;
	set_entry(EXT2_SB(dir->i_sb), at(f.bh, f.off), name, len, inode);
	mark_buffer_dirty(f.bh);
	brelse(f.bh);
	dir_changed(dir);
	return 0;
}

/* A new directory's first block: "." and "..". */
int ext2_make_empty(struct inode *inode, struct inode *parent)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct buffer_head *bh = grow(inode);
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
	EXT2_I(inode)->i_dotdot = (uint32_t)parent->i_ino;	/* I_NEW: nobody else sees it */
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
	int err = ext2_dirent_check(dir, &dot);
	if (!err) {
		dd->off = dd->prev = dot.rec_len;
		dd->pos = dot.rec_len;
		err = ext2_dirent_check(dir, dd);
	}
	if (!err && (dd->name_len != 2 || memcmp(at(bh, dd->off)->name, "..", 2) != 0))
		err = ext2_error(EXT2_SB(dir->i_sb), "a directory without ..", dir->i_ino, 0);
	if (err)
		brelse(bh);
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

void ext2_set_dotdot_at(struct inode *dir, struct ext2_dir_pos *dd, struct inode *parent)
{
	at(dd->bh, dd->off)->inode = (uint32_t)parent->i_ino;
	mark_buffer_dirty(dd->bh);
	brelse(dd->bh);
	__atomic_store_n(&EXT2_I(dir)->i_dotdot, (uint32_t)parent->i_ino, __ATOMIC_RELAXED);
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
	struct iterate_walk w = { ctx, sbi->filetype };
	int r = ext2_dir_walk(dir, ctx->pos / sbi->block_size, emit_one, &w);
	return r < 0 ? r : 0;
}

const struct file_operations ext2_dir_fops = {
	.iterate = ext2_iterate,
	.fsync = ext2_fsync,
};
