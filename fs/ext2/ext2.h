/*
 * ext2.h: the second extended filesystem: its on-disk structures (as
 * e2fsprogs 1.47 writes them) and what the files of fs/ext2/ share.
 *
 *   super.c   mounting: the superblock and group descriptors, checked;
 *             unmounting
 *   sbi.c     what the others share: group descriptors, the free
 *             counts, error reports
 *   alloc.c   block and inode allocation through the bitmaps
 *   inode.c   reading and writing inodes, the block map (direct, indirect,
 *             double and triple indirect), truncation, eviction
 *   dir.c     directory entries: lookup, readdir, adding and removing
 *   dir_block.c  a directory's blocks, read and checked (for dir.c and
 *             dirhash.c)
 *   dirhash.c an in-memory index of a large directory's names, for lookup
 *   namei.c   create, mkdir, mknod, symlink, link, unlink, rmdir, rename
 *   file.c    file data: read, write, truncate, fsync
 *
 * Everything on the disk is reached through the buffer cache
 * (fs/buffer.h); there is no page cache, so file data is in buffers too.
 *
 * What each lock protects (the order among all locks:
 * docs/design/08-lock-order.md; the directory's own locks:
 * docs/design/25-ext2-dirops.md):
 *   inode.i_rwsem (VFS)   a file's data, size and block map (exclusive to
 *                         change).  A directory's is held shared by
 *                         lookups and readdir, and, since ext2 sets
 *                         FS_PAR_DIROPS, by changes of different names
 *                         too (each name locked by the VFS), so it no
 *                         longer keeps a directory's entries still:
 *   ext2_inode_info.i_dir_lock (rw_semaphore, "ext2_dir")  a directory's
 *                         entries (every byte of its blocks), its index
 *                         (dirhash.c), i_dir_version, the publication of
 *                         a new block (i_size) and INDEX_FL.  Readers
 *                         take it shared around one block already read,
 *                         writers exclusive around the change of one
 *                         block already read: no disk read under it.
 *                         A change's copy of a block (dir.c, copy_block)
 *                         and an index probe (dirhash.c) skip it while
 *                         i_dir_seq, odd during every exclusive hold,
 *                         says no writer is inside.
 *   ext2_inode_info.i_grow_mutex ("ext2_dir_grow")  the append of a new
 *                         block to a directory (its block map, i_last_alloc);
 *                         it may read a bitmap or pointer block, and
 *                         serializes only the adds that found no room.
 *   ext2_inode_info.i_raw_lock (spinlock, leaf)  the copy of an inode's
 *                         fields into its raw inode (ext2_write_inode):
 *                         two writers of one inode (a directory's changes
 *                         now run side by side) copy one after the other,
 *                         and each reads the fields inside it, so the last
 *                         copy holds every update made before it began.
 *   ext2_group.lock       (spinlock) one block group's two bitmaps and
 *                         its counts in the group descriptor.  Bits are
 *                         found and set, or cleared, under it, so two CPUs
 *                         never take the same block or inode.  The bitmap
 *                         buffer is read before it is taken (reading may
 *                         sleep).
 *   dirhash_lock          (spinlock, dirhash.c) the list of directory
 *                         indexes and their memory; a directory's index
 *                         itself is its i_rwsem's, published by
 *                         compare-and-swap (dirhash.c's head says how).
 *   the superblock's free counts: atomic adds on the buffer's words.
 * Raw inodes of different inodes share table blocks, and group
 * descriptors share GDT blocks: each writer changes only its own bytes,
 * then marks the buffer dirty (buffer.h says why that is enough).
 */
#ifndef FS_EXT2_EXT2_H
#define FS_EXT2_EXT2_H

#include <stdbool.h>
#include <stdint.h>
#include "fs/fs.h"
#include "kernel/mutex.h"
#include "kernel/rcu.h"
#include "kernel/rwsem.h"
#include "kernel/seqlock.h"
#include "kernel/spinlock.h"

struct buffer_head;
struct block_device;

#define EXT2_SUPER_MAGIC     0xEF53
#define EXT2_ROOT_INO        2
#define EXT2_GOOD_OLD_INODE_SIZE 128
#define EXT2_GOOD_OLD_FIRST_INO  11
#define EXT2_NDIR_BLOCKS     12
#define EXT2_IND_BLOCK       12
#define EXT2_DIND_BLOCK      13
#define EXT2_TIND_BLOCK      14
#define EXT2_N_BLOCKS        15
#define EXT2_LINK_MAX        32000
#define EXT2_NAME_LEN        255
#define EXT2_FAST_LINK_MAX   60      /* a target shorter than this lives in i_block */
#define EXT2_VALID_FS        1       /* s_state: cleanly unmounted */
#define EXT2_ERROR_FS        2
#define EXT2_INDEX_FL        0x1000  /* i_flags: an htree-indexed directory */

/* Features this driver knows. */
#define EXT2_FEATURE_INCOMPAT_FILETYPE      0x0002
#define EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER 0x0001
#define EXT2_FEATURE_RO_COMPAT_LARGE_FILE   0x0002
#define EXT2_INCOMPAT_KNOWN  EXT2_FEATURE_INCOMPAT_FILETYPE
#define EXT2_RO_COMPAT_KNOWN (EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER | EXT2_FEATURE_RO_COMPAT_LARGE_FILE)

/* Directory entry file types (the filetype feature). */
enum { EXT2_FT_UNKNOWN, EXT2_FT_REG_FILE, EXT2_FT_DIR, EXT2_FT_CHRDEV, EXT2_FT_BLKDEV,
       EXT2_FT_FIFO, EXT2_FT_SOCK, EXT2_FT_SYMLINK };

struct ext2_super_block {
	uint32_t s_inodes_count, s_blocks_count, s_r_blocks_count;
	uint32_t s_free_blocks_count, s_free_inodes_count;
	uint32_t s_first_data_block, s_log_block_size, s_log_frag_size;
	uint32_t s_blocks_per_group, s_frags_per_group, s_inodes_per_group;
	uint32_t s_mtime, s_wtime;
	uint16_t s_mnt_count, s_max_mnt_count, s_magic, s_state, s_errors, s_minor_rev_level;
	uint32_t s_lastcheck, s_checkinterval, s_creator_os, s_rev_level;
	uint16_t s_def_resuid, s_def_resgid;
	/* rev 1 (dynamic) */
	uint32_t s_first_ino;
	uint16_t s_inode_size, s_block_group_nr;
	uint32_t s_feature_compat, s_feature_incompat, s_feature_ro_compat;
	uint8_t s_uuid[16];
	char s_volume_name[16];
	char s_last_mounted[64];
	uint32_t s_algorithm_usage_bitmap;
	uint8_t s_prealloc_blocks, s_prealloc_dir_blocks;
	uint16_t s_reserved_gdt_blocks;
	uint8_t s_rest[1024 - 208];
};

struct ext2_group_desc {
	uint32_t bg_block_bitmap, bg_inode_bitmap, bg_inode_table;
	uint16_t bg_free_blocks_count, bg_free_inodes_count, bg_used_dirs_count;
	uint16_t bg_flags;
	uint32_t bg_reserved[3];
};

struct ext2_inode {
	uint16_t i_mode, i_uid;
	uint32_t i_size, i_atime, i_ctime, i_mtime, i_dtime;
	uint16_t i_gid, i_links_count;
	uint32_t i_blocks, i_flags, i_osd1;
	uint32_t i_block[EXT2_N_BLOCKS];
	uint32_t i_generation, i_file_acl, i_size_high, i_faddr;
	uint16_t l_i_blocks_hi, l_i_file_acl_high, l_i_uid_high, l_i_gid_high;
	uint16_t l_i_checksum_lo, l_i_reserved;
	/* Inodes bigger than 128 bytes: */
	uint16_t i_extra_isize, i_checksum_hi;
	uint32_t i_ctime_extra, i_mtime_extra, i_atime_extra;   /* epoch bits 0-1, ns << 2 */
	uint32_t i_crtime, i_crtime_extra;
};
#define EXT2_EXTRA_ISIZE 32     /* what mke2fs gives 256-byte inodes, and we do */

struct ext2_dirent {
	uint32_t inode;
	uint16_t rec_len;
	uint8_t name_len, file_type;
	char name[];
};
#define EXT2_DIR_REC_LEN(len) ((8u + (len) + 3u) & ~3u)

/* An extended attribute block's header (only its count is touched here). */
#define EXT2_XATTR_MAGIC 0xEA020000
struct ext2_xattr_header {
	uint32_t h_magic, h_refcount, h_blocks;
};

struct ext2_group {
	struct spinlock lock;
};

/* The default inode-table read-ahead window, in blocks (ext4's
 * inode_readahead_blks, which the mount option of that name changes). */
#define EXT2_ITABLE_RA 32

/* What the directory indexes did (dirhash.c; atomic counters). */
struct ext2_dirhash_stats {
	uint64_t builds;     /* tables built */
	uint64_t failed;     /* builds that could not be made (memory, an I/O error) */
	uint64_t scans;      /* lookups in a big directory that scanned: no table */
	uint64_t stale;      /* tables found wrong (a bug: tests expect 0) */
};

struct ext2_sb_info {
	struct super_block *sb;
	struct block_device *bdev;
	unsigned block_size, inode_size, addr_per_block, desc_per_block, inodes_per_block;
	uint32_t blocks_count, inodes_count, first_data_block;
	uint32_t blocks_per_group, inodes_per_group, first_ino;
	unsigned groups, gdt_blocks;
	bool filetype;                     /* entries carry their type */
	unsigned itable_ra;                /* inode-table read-ahead window, blocks (inode.c) */
	uint16_t mount_state;              /* s_state as found: restored at umount */
	struct buffer_head *sbh;           /* the superblock's block (held) */
	struct ext2_super_block *es;       /* in sbh */
	unsigned sb_offset;                /* es's offset in sbh */
	struct buffer_head **gdt;          /* the group descriptor blocks (held) */
	struct ext2_group *group;
	unsigned next_generation;          /* atomic */
	uint64_t lookups;                  /* ->lookup calls (atomic, for tests) */
	uint64_t io_errors;                /* I/O errors met (atomic) */
	unsigned errors;                   /* ext2_error reports (atomic) */
	struct ext2_dirhash_stats dirhash;
	/* prefetch.c: entries queued and not yet done (atomic); no more
	 * queued once closed (prefetch.c's lock), at umount. */
	unsigned pf_pending;
	bool pf_closed;
};

/* A symlink's target, freed a grace period after its inode (an RCU-walk's
 * readlink may be copying it: fs/stat.c). */
struct ext2_link {
	struct rcu_head rcu;
	char target[];
};

struct ext2_inode_info {
	uint32_t i_data[EXT2_N_BLOCKS];    /* block pointers; or a fast link; or a device number */
	uint32_t i_flags, i_file_acl, i_dtime, i_generation;
	uint32_t i_crtime;
	uint32_t i_last_alloc;             /* the last block allocated for it: the next one's goal */
	struct buffer_head *i_bh;          /* its inode table block (held while cached) */
	unsigned i_off;                    /* its raw inode's offset in i_bh */
	bool i_fresh;                      /* never written: clear the whole raw inode first */
	struct ext2_link *i_link;          /* a symlink's target */
	struct ext2_dirhash *i_dirhash;    /* a directory's index (dirhash.c says how it is locked) */
	/* A directory's locks (the top of this file; dir.c's head): */
	struct rw_semaphore i_dir_lock;
	struct mutex i_grow_mutex;
	uint64_t i_dir_version;            /* writes of its blocks (i_dir_lock): every one bumps it */
	/* Odd while a holder of i_dir_lock exclusive may be writing a block:
	 * copy_block (dir.c) copies without the lock when it stays even. */
	struct seqcount i_dir_seq;
	/* The block add_link looks for room in first: where the last add
	 * found it, lowered by a removal before it (written under i_dir_lock
	 * exclusive, read without it: dir.c, ext2_add_link). */
	uint64_t i_room_from;
	struct spinlock i_raw_lock;        /* ext2_write_inode's copy */
	/* A directory: the inode its ".." names, read when the inode is read
	 * (I_NEW), set by mkdir, changed by rename (both parents' i_rwsem
	 * exclusive); read by lookups in its parent (shared).  Atomic. */
	uint32_t i_dotdot;
	/* A directory's listing reached its end once, queueing its
	 * subdirectories for read-ahead (prefetch.c); set once, atomic. */
	bool i_prefetched;
	/* Freed a grace period after evict: an RCU-walk that read i_private
	 * just before may still read i_link (ext2_get_link). */
	struct rcu_head i_rcu;
};

static inline struct ext2_sb_info *EXT2_SB(const struct super_block *sb)
{
	return sb->s_fs_info;
}
static inline struct ext2_inode_info *EXT2_I(const struct inode *inode)
{
	return __atomic_load_n(&inode->i_private, __ATOMIC_ACQUIRE);	/* evict clears it */
}

/* sbi.c */
struct ext2_group_desc *ext2_gd(struct ext2_sb_info *sbi, unsigned group);
void ext2_gd_dirty(struct ext2_sb_info *sbi, unsigned group);
void ext2_sb_count(struct ext2_sb_info *sbi, uint32_t *field, int delta);
/* Say what is wrong with the filesystem, once a line; returns -EUCLEAN. */
int ext2_error(struct ext2_sb_info *sbi, const char *what, uint64_t a, uint64_t b);
int ext2_io_error(struct ext2_sb_info *sbi, int err);

/* alloc.c */
int ext2_new_block(struct ext2_sb_info *sbi, uint32_t goal, uint32_t *out);
void ext2_free_blocks(struct ext2_sb_info *sbi, uint32_t block, unsigned n);
int ext2_new_ino(struct ext2_sb_info *sbi, unsigned group, bool dir, uint32_t *out);
void ext2_free_ino(struct ext2_sb_info *sbi, uint32_t ino, bool dir);
unsigned ext2_group_of_ino(struct ext2_sb_info *sbi, uint32_t ino);

/* inode.c */
struct inode *ext2_iget(struct super_block *sb, uint32_t ino);
/* prefetch.c's read of a directory inode it may never look up: up to max
 * of its first blocks' numbers into blocks (direct blocks only, each
 * inside the filesystem), 0 if ino is not a directory or cannot be read.
 * A hint: the raw inode is read without the inode's locks. */
unsigned ext2_dir_blocks_hint(struct ext2_sb_info *sbi, uint32_t ino, uint32_t *blocks,
			      unsigned max);
/* A new inode for dir, in state I_NEW (unlock_new_inode when done). */
void ext2_init_info(struct ext2_inode_info *ei);       /* a zeroed one's locks */
struct inode *ext2_new_inode(struct inode *dir, uint32_t mode);
void ext2_write_inode(struct inode *inode);
/* The same without the owner check, for the one writer that is not the
 * inode's owner: a rename of a directory within its directory, which the
 * VFS's parallel protocol does not lock (docs/design/24-dirops.md, R7). */
void __ext2_write_inode(struct inode *inode);
void ext2_set_ops(struct inode *inode);
void ext2_encode_dev(uint32_t *data, uint64_t rdev);   /* a device number into i_block */
/* The disk block of inode's block lblk: 0 and *pblk (0 for a hole); with
 * create, a missing one is allocated (*fresh: it holds garbage). */
int ext2_get_block(struct inode *inode, uint64_t lblk, bool create, uint32_t *pblk, bool *fresh);
/* Free inode's blocks from lblk `from` on. */
int ext2_truncate_blocks(struct inode *inode, uint64_t from);
uint64_t ext2_max_size(struct ext2_sb_info *sbi);
void ext2_set_link_target(struct inode *inode, struct ext2_link *link);
void ext2_evict(struct inode *inode);
/* Tests: called as an unlinked inode starts giving its blocks back. */
extern void (*ext2_evict_hook)(struct inode *inode);
void ext2_add_blocks(struct inode *inode, int n);   /* i_blocks += n fs blocks */

/* dir_block.c */
uint64_t ext2_dir_blocks(struct inode *dir);
/* Block n of dir (its entries unchecked: see ext2_dirent_check);
 * ERR_PTR(-EIO, -EUCLEAN, ...). */
struct buffer_head *ext2_dir_bread(struct inode *dir, uint64_t n);
/* An entry, as the walk below visits it: its block (held), the block's
 * number in the directory, the entry's offset in it and the offset of the
 * entry before it (prev == off for the first), its byte position in the
 * directory (a readdir position), and its fields as ext2_dirent_check
 * read and checked them: use these, never the block's bytes again (a
 * hostile image's file may share the block and change it meanwhile). */
struct ext2_dir_pos {
	struct buffer_head *bh;
	uint64_t block;
	unsigned off, prev;
	uint64_t pos;
	uint32_t ino;
	unsigned rec_len, name_len;
};
/* Read the entry at p->off of p->bh once into p->ino, rec_len, name_len
 * and check it (record of 12 bytes or more, a multiple of 4, inside the
 * block; the name inside the record; a possible inode number): 0, or
 * -EIO with the entry reported.  Every walk of entries calls it at every
 * step. */
int ext2_dirent_check(struct inode *dir, struct ext2_dir_pos *p);
/* What a visit answers: go on; end the walk; end it and keep the block
 * (the visit copied the position, and its caller now owns the buffer). */
enum { EXT2_WALK_NEXT, EXT2_WALK_STOP, EXT2_WALK_KEEP };
typedef int (*ext2_dir_visit_t)(void *arg, struct ext2_dir_pos *p);
/* Visit every entry, used or not, from block `first` to the end, in
 * order.  Returns the visit's last answer (EXT2_WALK_NEXT if it never
 * stopped), or the error of a block that could not be read.  Caller holds
 * the directory's i_rwsem, shared or exclusive, and not its i_dir_lock:
 * each block is read first, then visited under i_dir_lock shared (the
 * visit must not sleep for long; a kept block is the caller's, unlocked). */
int ext2_dir_walk(struct inode *dir, uint64_t first, ext2_dir_visit_t visit, void *arg);
/* The same over one block already read (bh, the directory's block `block`),
 * the caller holding i_dir_lock (shared or exclusive); the block is never
 * released here, even when the visit answers EXT2_WALK_STOP. */
int ext2_dir_walk_block(struct inode *dir, struct buffer_head *bh, uint64_t block,
			ext2_dir_visit_t visit, void *arg);
/* Tests (LOCKDEP builds): called by a removal or a re-pointing of an
 * entry between its walk of a copy of the block (the entry before it
 * found) and its taking of i_dir_lock exclusive. */
extern void (*ext2_refind_hook)(struct inode *dir);
/* The same over a private copy of block `block` (copied under i_dir_lock
 * shared), with no lock: a visit must not keep the block (p->bh is a
 * stand-in for the copy). */
int ext2_dir_walk_copy(struct inode *dir, const char *copy, uint64_t block, ext2_dir_visit_t visit,
		       void *arg);

/* dir.c */
/* The entry's inode: 0, -ENOENT, or an error (through the index if any). */
int ext2_find_entry(struct inode *dir, const char *name, unsigned len, uint32_t *ino);
/* The same by a linear scan, never the index (for tests). */
int ext2_find_entry_linear(struct inode *dir, const char *name, unsigned len, uint32_t *ino);
int ext2_add_link(struct inode *dir, const char *name, unsigned len, struct inode *inode);
int ext2_delete_entry(struct inode *dir, const char *name, unsigned len);
int ext2_set_link(struct inode *dir, const char *name, unsigned len, struct inode *inode);
int ext2_make_empty(struct inode *inode, struct inode *parent);
int ext2_empty_dir(struct inode *dir);              /* 1 empty, 0 not, or -errno */
/* Rename's steps, found first so that nothing after its first change
 * can fail on a sound disk: name's entry (0 and *f, its block held), then
 * removed at what was found (the block released); a directory's ".."
 * found (block 0 held), then pointed at parent (released). */
int ext2_find_pos(struct inode *dir, const char *name, unsigned len, struct ext2_dir_pos *f);
int ext2_delete_at(struct inode *dir, struct ext2_dir_pos *f);
int ext2_find_dotdot(struct inode *dir, struct ext2_dir_pos *dd);
void ext2_set_dotdot_at(struct inode *dir, struct ext2_dir_pos *dd, struct inode *parent);
int ext2_read_dotdot(struct inode *dir, uint32_t *ino);
/* The same as ext2_find_entry, and the entry's byte position in dir. */
int ext2_find_entry_pos(struct inode *dir, const char *name, unsigned len, uint32_t *ino,
			uint64_t *pos);
/* Does an entry of dir other than "." and ".." and the one at pos name
 * ino?  1 yes, 0 no, or -errno.  Caller holds dir's i_rwsem. */
int ext2_other_name(struct inode *dir, uint32_t ino, uint64_t pos);
unsigned ext2_dtype(uint32_t mode);

/* prefetch.c: the first readdir of a directory queues its subdirectories
 * (ext2_prefetch_dir), whose inodes and first blocks worker threads read
 * ahead; ext2_prefetch_drain at umount waits for the filesystem's
 * entries and takes no more; ext2_prefetch_wait (tests) waits without
 * closing. */
void ext2_prefetch_start(void);
void ext2_prefetch_dir(struct ext2_sb_info *sbi, uint32_t ino);
void ext2_prefetch_wait(struct ext2_sb_info *sbi);
void ext2_prefetch_drain(struct ext2_sb_info *sbi);
void ext2_prefetch_stats(uint64_t *queued, uint64_t *dropped, uint64_t *done);
bool ext2_prefetch_set(bool on);	/* tests: on or off; the old setting */
extern const struct file_operations ext2_dir_fops;

/* dirhash.c: the index of a directory of ext2_dirhash_min_blocks or
 * more.  Callers hold the directory's i_rwsem (shared is enough); the
 * index is the directory's i_dir_lock's (dirhash.c's head). */
extern unsigned ext2_dirhash_min_blocks;
extern size_t ext2_dirhash_maxmem;
struct ext2_dirhash;
#define EXT2_DIRHASH_PROBE_MAX 8
struct ext2_dirhash_probe {
	uint32_t hash;
	unsigned n;                              /* positions under hash, */
	uint64_t pos[EXT2_DIRHASH_PROBE_MAX];    /* copied out of the table */
	uint64_t version;                        /* i_dir_version when copied */
};
void ext2_dirhash_init(void);
/* Start looking for name in dir's index, building the index if the
 * directory is big and has none: false if there is none to use (scan),
 * else the positions (byte offsets in dir) the index holds under name's
 * hash (none: name is not in the directory).  Takes no ext2 lock while
 * no change of dir's blocks is under way, i_dir_lock shared otherwise;
 * caller holds i_rwsem. */
bool ext2_dirhash_probe(struct inode *dir, const char *name, unsigned len,
			struct ext2_dirhash_probe *p);
/* Tests only (debug builds): called by a probe without the lock, inside
 * its RCU read side, with the table loaded and its slots not yet read. */
extern void (*ext2_dirhash_probe_hook)(struct inode *dir);
/* Tests only: a table's slots and live entries, as they are now. */
void ext2_dirhash_shape(const struct ext2_dirhash *dh, unsigned *nslots, unsigned *live);
/* Would the index have filed this name under the probe's hash? */
bool ext2_dirhash_agrees(struct ext2_dirhash_probe *p, const char *name, unsigned len);
/* The index's position pos was wrong: if nothing changed in dir since
 * the probe, no lookup believes the index again (true); else the caller
 * probes again (false). */
bool ext2_dirhash_stale(struct inode *dir, struct ext2_dirhash_probe *p, uint64_t pos);
/* Caller holds i_dir_lock exclusive: */
void ext2_dirhash_add(struct inode *dir, const char *name, unsigned len, uint64_t pos);
void ext2_dirhash_remove(struct inode *dir, const char *name, unsigned len, uint64_t pos);
/* Free dir's index: at eviction, under i_dir_lock exclusive, or (tests)
 * with i_rwsem exclusive. */
void ext2_dirhash_drop(struct inode *dir);
size_t ext2_dirhash_bytes(void);                        /* all indexes' memory */
unsigned long ext2_dirhash_reclaim(unsigned long nr);   /* what the shrinker does */

/* namei.c */
extern const struct inode_operations ext2_dir_iops;

/* file.c */
extern const struct inode_operations ext2_file_iops;
extern const struct file_operations ext2_file_fops;
extern const struct inode_operations ext2_symlink_iops;
int ext2_fsync(struct file *f);

int ext2_register(void);

#endif
