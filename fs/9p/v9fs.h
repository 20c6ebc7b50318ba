/*
 * v9fs.h: the 9p filesystem (mount -t 9p TAG DIR): a folder a 9P2000.L
 * server exports (QEMU's -virtfs), as Linux's v9fs.  With cache=loose
 * (the default) the dcache and the inodes' attributes are trusted once
 * read, the server asked again only on a miss; with cache=none every
 * path step asks the server again (dentry.c).  docs/design/27-9p.md.
 *
 * Fids (client.h): every inode holds one fid naming its file, walked
 * from its parent's fid at lookup (or attached, for the root), clunked
 * at eviction; hard links share the inode (its number is the qid's
 * path), so they share the fid, which is walked afresh by another name
 * once the name it was walked by is gone (dentry.c: v9fs_dentry_fid).  Each open file has a fid of its own,
 * as on Linux (file.c): a clone of the inode's, opened (Tlopen) with the
 * open's access mode and O_APPEND, in file->private_data, clunked at the
 * last close; so the server sees each open's flags, and an open file of
 * an unlinked file keeps working (the server holds its descriptor).
 * The open that created a file takes the fid Tlcreate opened read-write
 * (create_fid), so that it may write even a file whose mode says
 * read-only, as tar x and cp -a need.  A file the kernel made without
 * an open (exec's) reads through the inode's rfid, opened read-only on
 * first need and kept until eviction.  Directory operations name the
 * directory's fid and the entry (Tunlinkat, Trenameat, Tmkdir...), so a
 * rename on the server moves nothing the client must fix.
 *
 * Locking: v9fs_inode.open_lock serializes the opening of rfid (set
 * once, then read with acquire loads, no lock) and the refresh of a
 * stale fid (fid stored with release, read with acquire loads); create_fid is handed
 * over by atomic exchange; an open file's fid is its own; nothing else
 * of the filesystem's is shared and changing: the VFS's i_rwsem orders a
 * file's writes, and directory changes run under it shared with their
 * names locked (FS_PAR_DIROPS: namei.c's head says why that is enough).
 * open_lock is a mutex taken with no other lock held (open, read, write
 * run without i_rwsem or with it; it nests inside i_rwsem).
 */
#ifndef FS_9P_V9FS_H
#define FS_9P_V9FS_H

#include "fs/9p/client.h"
#include "fs/fs.h"
#include "kernel/mutex.h"
#include "kernel/rcu.h"

struct v9fs_session {
	struct p9_client clnt;
	uint32_t root_fid;
	bool cache_none;                /* fixed at mount: -o cache=none (dentry.c) */
};

struct v9fs_inode {
	uint32_t fid;                   /* names the file (atomic): replaced only when stale */
	bool fid_stale;                 /* (atomic) fid's path is gone at the server (dentry.c) */
	uint32_t retired_fid;           /* the stale fid a refresh replaced, or P9_NOFID (open_lock) */
	struct mutex open_lock;         /* the opening of rfid, the refresh of a stale fid */
	uint32_t rfid;                  /* opened O_RDONLY for files without an open, or P9_NOFID (atomic) */
	uint32_t create_fid;            /* Tlcreate's, for the open that created the file, or P9_NOFID (atomic) */
	char *link;                     /* a symlink's target: fixed, freed a grace period after evict */
	uint32_t uid, gid;              /* the owner the server last said or took (i_rwsem) */
	struct rcu_head rcu;
};

static inline struct v9fs_session *V9FS_SB(const struct super_block *sb)
{
	return sb->s_fs_info;
}

static inline struct p9_client *V9FS_CLNT(const struct inode *inode)
{
	return &V9FS_SB(inode->i_sb)->clnt;
}

static inline struct v9fs_inode *V9FS_I(const struct inode *inode)
{
	return inode->i_private;
}

/* Has inode's fid been found stale, or replaced, since a caller read
 * used?  (Its ENOENT may then be the old name's, not the file's.) */
static inline bool v9fs_fid_moved(const struct inode *inode, uint32_t used)
{
	const struct v9fs_inode *vi = V9FS_I(inode);
	return __atomic_load_n(&vi->fid_stale, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&vi->fid, __ATOMIC_ACQUIRE) != used;
}

/* The inode for the file fid names (its attributes a), fid consumed:
 * kept by a new inode, clunked if the inode was cached.  ERR_PTR on
 * failure (fid clunked). */
struct inode *v9fs_iget(struct super_block *sb, uint32_t fid, const struct p9_attr *a);
/* Walk name from dir's fid and make its inode (creations: after the
 * server made the entry).  ERR_PTR(-ENOENT) if it is not there. */
struct inode *v9fs_walk_iget(struct inode *dir, const char *name, uint32_t len);
/* The inode's read-only opened fid, opened on first need (for a file
 * read without an open of its own: exec's): the fid, or a negative
 * errno (as int64_t). */
int64_t v9fs_io_fid(struct inode *inode);
/* fid, Tlcreate's (open read-write), is for the open that created inode
 * (consumed: clunked if one is there already); v9fs_take_create_fid
 * hands it over once, else P9_NOFID. */
void v9fs_set_create_fid(struct inode *inode, uint32_t fid);
uint32_t v9fs_take_create_fid(struct inode *inode);
void v9fs_evict(struct inode *inode);
int v9fs_setattr(struct dentry *d, const struct iattr *ia);
/* The fid that names a file (dentry.c).  QEMU's fids are paths: an
 * inode's fid names its file by the name it was walked by, and a hard
 * link's other names do not follow it.  v9fs_check_fid, after a name of
 * a file still linked went away (unlink, a rename's victim), marks the
 * fid stale if it no longer names that file; v9fs_dentry_fid then walks
 * d's name afresh for it; v9fs_inode_fid, with no name at hand, says
 * -ENOENT rather than touch what the path names now.  Both: the fid or a
 * negative errno. */
void v9fs_check_fid(struct inode *inode);
int64_t v9fs_dentry_fid(struct dentry *d);
int64_t v9fs_inode_fid(struct inode *inode);
extern uint64_t v9fs_fids_stale, v9fs_fids_refreshed;	/* tests */
/* Tests only: called by open between reading the inode's fid and using
 * it (to unlink another name of the file there).  NULL but in tests. */
extern void (*v9fs_open_hook)(struct inode *inode);
int v9fs_register(void);

/* cache=none's: every cached name asked about again (dentry.c). */
extern const struct dentry_operations v9fs_dentry_ops_none;
/* Tests: revalidations sent, those that found a stale dentry, those that
 * waited for another's verdict (shared), those that took an answer given
 * since their walk began (reused), names confirmed ahead of their step
 * by another step's Twalk (answered_ahead); and a
 * switch that makes cache=none trust every dentry (to show a test fail). */
extern uint64_t v9fs_revalidations, v9fs_stale, v9fs_revalidations_shared, v9fs_revalidations_reused,
	v9fs_answered_ahead;
extern bool v9fs_revalidate_off;
extern void (*v9fs_reval_hook)(struct dentry *d);

extern const struct inode_operations v9fs_dir_iops, v9fs_file_iops, v9fs_link_iops,
	v9fs_special_iops;
extern const struct file_operations v9fs_dir_fops, v9fs_file_fops;

#endif
