/*
 * dir.c: ramfs directories: lists of (name, inode) entries.
 *
 * Each entry holds a reference on its inode; so does each dentry.  Every
 * entry gets a cookie, one more than the last one given in its directory,
 * and joins the tail of the list, so the list is in cookie order.  A
 * readdir position is a cookie: "the first entry whose cookie is at least
 * this".  Entries added or removed during a readdir do not move the
 * others, so every entry present throughout is returned exactly once
 * (a renamed entry is re-added with a new cookie).
 *
 * Locking: ramfs opts in to parallel directory changes (FS_PAR_DIROPS):
 * the VFS holds the directory's i_rwsem shared for lookups and for
 * changes, and exclusive only where a change of the directory itself
 * needs it (rmdir or a rename over it, with the emptiness check).  The VFS
 * keeps two changes of one name apart (its name lock,
 * fs/d_name_lock.c); the list, its count and its cookies are the
 * directory's own spinlock's (ramfs_dir.lock), held for one list step:
 * a lookup's search, an entry's join or removal.  A rename between two
 * directories takes them one at a time (leave the old list, join the
 * new): between the two the entry is in neither, which only a readdir
 * could see, and a readdir may miss a renamed entry anyway.  Lookups
 * never see it: the VFS hashes and locks both names throughout, so no
 * lookup asks us about either.  readdir takes no lock
 * (FOP_ITERATE_UNLOCKED: two listings of one directory then write no
 * shared line) and walks the list under rcu_read_lock: entries join with
 * list_add_tail_rcu once filled in, leave with list_del_rcu (a reader on
 * one walks on from it), and are freed a grace period later (kfree_rcu).
 * The cookie rules above hold without the lock: entries only ever join at
 * the tail with a larger cookie, and a removed entry's next still leads
 * forward, so a walk passes every entry present throughout, in cookie
 * order, once.  The readdir still holds the file's position lock: one
 * open directory is read by one thread at a time.  Link counts are
 * atomics (a file's may change under different directories' locks).
 * Timestamps follow POSIX: a change to a directory's entries sets its
 * mtime and ctime; a change to an inode's link count sets its ctime.
 */
#include "fs/ramfs/ramfs.h"
#include "fs/ramfs/internal.h"
#include "fs/dcache.h"
#include "fs/permission.h"
#include "fs/file.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/race.h"
#include "kernel/string.h"

/* Caller holds the directory's list lock. */
static struct ramfs_entry *find(struct inode *dir, const char *name, uint32_t len)
{
	struct ramfs_dir *rd = dir->i_private;
	spin_assert_held(&rd->lock);
	struct list_head *pos;
	list_for_each(pos, &rd->entries) {
		struct ramfs_entry *e = list_entry(pos, struct ramfs_entry, node);
		if (e->len == len && memcmp(e->name, name, len) == 0)
			return e;
	}
	return NULL;
}

static struct spinlock *list_lock(struct inode *dir)
{
	return &((struct ramfs_dir *)dir->i_private)->lock;
}

/* The inode an entry names, with a reference of its own, or NULL. */
static struct inode *find_inode(struct inode *dir, const char *name, uint32_t len)
{
	spin_lock(list_lock(dir));
	struct ramfs_entry *e = find(dir, name, len);
	struct inode *inode = e ? e->inode : NULL;
	if (inode)
		ihold(inode);	/* the entry holds one: the caller gets its own */
	spin_unlock(list_lock(dir));
	return inode;
}

struct inode *ramfs_entry(struct inode *dir, const char *name, unsigned len)
{
	rwsem_assert_held(&dir->i_rwsem);
	struct inode *inode = find_inode(dir, name, len);
	iput(inode);	/* the entry's keeps it while the caller holds i_rwsem and the name */
	return inode;
}

static int ramfs_lookup(struct inode *dir, struct dentry *d)
{
	d_add(d, find_inode(dir, d->d_name.name, d->d_name.len));
	return 0;
}

/* An entry for `name` (allocated, not yet in a list), or NULL.  It fills
 * whole lines (kmalloc's classes of 128 bytes and up are line-aligned):
 * kmalloc-96 would put two directories' entries in one line, which two
 * creates in two directories would both write. */
static struct ramfs_entry *entry_alloc(const struct qstr *name)
{
	size_t size = offsetof(struct ramfs_entry, name) + name->len;
	struct ramfs_entry *e = kmalloc((size + L1_CACHE_BYTES - 1) & ~(size_t)(L1_CACHE_BYTES - 1));
	if (e) {
		e->len = name->len;
		memcpy(e->name, name->name, e->len);
	}
	return e;
}

static unsigned dtype_of(const struct inode *inode)
{
	switch (inode->i_mode & S_IFMT) {
	case S_IFDIR:  return DT_DIR;
	case S_IFREG:  return DT_REG;
	case S_IFLNK:  return DT_LNK;
	case S_IFIFO:  return DT_FIFO;
	case S_IFCHR:  return DT_CHR;
	case S_IFBLK:  return DT_BLK;
	case S_IFSOCK: return DT_SOCK;
	default:       return DT_UNKNOWN;
	}
}

/* Append e, naming inode (whose reference e takes), to dir. */
static void entry_add(struct inode *dir, struct ramfs_entry *e, struct inode *inode)
{
	struct ramfs_dir *rd = dir->i_private;
	e->inode = inode;
	e->ino = inode->i_ino;
	e->dtype = (uint8_t)dtype_of(inode);
	spin_lock(&rd->lock);
	e->cookie = rd->next_cookie++;
	list_add_tail_rcu(&e->node, &rd->entries);	/* published whole */
	rd->nentries++;
	spin_unlock(&rd->lock);
	inode_touch(dir, T_MTIME | T_CTIME);
}

/* Take e out of dir; the caller gets e's inode reference.  Caller holds
 * dir's list lock (found e under it: __entry_remove) or none
 * (entry_remove takes it). */
static struct inode *__entry_remove(struct inode *dir, struct ramfs_entry *e)
{
	struct ramfs_dir *rd = dir->i_private;
	spin_assert_held(&rd->lock);
	struct inode *inode = e->inode;
	race_write_begin(e);
	race_window();	/* a readdir may reach e here, and use it after the removal (a spin) */
	list_del_rcu(&e->node);
	rd->nentries--;
	kfree_rcu(e, rcu);	/* a readdir may be on it */
	race_write_done(e);
	return inode;
}

static struct inode *entry_remove(struct inode *dir, struct ramfs_entry *e)
{
	spin_lock(list_lock(dir));
	struct inode *inode = __entry_remove(dir, e);
	spin_unlock(list_lock(dir));
	inode_touch(dir, T_MTIME | T_CTIME);
	return inode;
}

/* Find name in dir and take its entry out, in one step of the list
 * lock: its inode, with the entry's reference, or NULL. */
static struct inode *entry_take(struct inode *dir, const char *name, uint32_t len)
{
	spin_lock(list_lock(dir));
	struct ramfs_entry *e = find(dir, name, len);
	struct inode *inode = e ? __entry_remove(dir, e) : NULL;
	spin_unlock(list_lock(dir));
	if (inode)
		inode_touch(dir, T_MTIME | T_CTIME);
	return inode;
}

/*
 * A new inode of any type, with its operations (this file's for
 * directories and symlinks, file.c's for regular files).  Inode numbers
 * come from a per-mount counter (an atomic).  Link counts: a file starts
 * at 1, a directory at 2 (its entry and its "."), and each subdirectory
 * adds 1 to its parent (its "..").
 */
struct inode *ramfs_new_inode(struct super_block *sb, uint32_t mode, char *link, uint64_t rdev)
{
	struct inode *inode = iget_locked(sb, get_next_ino());
	if (!inode)
		return NULL;
	inode_init_new(inode, mode);
	if (S_ISDIR(mode)) {
		struct ramfs_dir *rd = kzalloc(RAMFS_DIR_SIZE);
		if (!rd) {
			iget_failed(inode);
			return NULL;
		}
		spin_init(&rd->lock, "ramfs_dir.lock");
		list_init(&rd->entries);
		rd->next_cookie = 2;
		inode->i_private = rd;
		inode->i_op = &ramfs_dir_ops;
		inode->i_fop = &ramfs_dir_fops;
		inode->i_nlink = 2;
	} else if (S_ISREG(mode)) {
		struct ramfs_file *rf = kzalloc(RAMFS_PRIVATE_SIZE);
		if (!rf) {
			iget_failed(inode);
			return NULL;
		}
		inode->i_private = rf;
		inode->i_op = &ramfs_file_ops;
		inode->i_fop = &ramfs_file_fops;
	} else if (!S_ISLNK(mode)) {
		init_special_inode(inode, mode, rdev);	/* FIFO, device or socket: no data here */
	} else {
		inode->i_op = &ramfs_symlink_ops;
		inode->i_private = link;	/* whole before I_NEW clears */
		inode->i_size = strlen(link);
	}
	unlock_new_inode(inode);
	return inode;
}

/* A new inode named by d: d (negative, hashed) becomes positive. */
static int make(struct inode *dir, struct dentry *d, uint32_t mode, const char *target,
		uint64_t rdev)
{
	struct ramfs_entry *e = entry_alloc(&d->d_name);
	struct ramfs_link *link = target ? kmalloc(sizeof(*link) + strlen(target) + 1) : NULL;
	if (link)
		strlcpy(link->target, target, strlen(target) + 1);
	struct inode *inode = e && (link || !target) ?
		ramfs_new_inode(dir->i_sb, mode, link ? link->target : NULL, rdev) : NULL;
	if (!inode) {
		kfree(e);
		kfree(link);
		return -ENOMEM;
	}
	inode_init_owner(inode, dir);
	ihold(inode);	/* for the entry */
	entry_add(dir, e, inode);
	if (S_ISDIR(mode))
		__atomic_fetch_add(&dir->i_nlink, 1, __ATOMIC_RELAXED);	/* its ".." */
	d_instantiate(d, inode);	/* the dentry takes our reference */
	return 0;
}

static int ramfs_create(struct inode *dir, struct dentry *d, uint32_t mode)
{
	return make(dir, d, mode, NULL, 0);
}

static int ramfs_mkdir(struct inode *dir, struct dentry *d, uint32_t mode)
{
	return make(dir, d, mode, NULL, 0);
}

static int ramfs_symlink(struct inode *dir, struct dentry *d, const char *target)
{
	return make(dir, d, S_IFLNK | 0777, target, 0);
}

static int ramfs_mknod(struct inode *dir, struct dentry *d, uint32_t mode, uint64_t rdev)
{
	return make(dir, d, mode, NULL, rdev);
}

static int ramfs_link(struct dentry *old, struct inode *dir, struct dentry *d)
{
	struct inode *inode = old->d_inode;
	struct ramfs_entry *e = entry_alloc(&d->d_name);
	if (!e)
		return -ENOMEM;
	ihold(inode);	/* for the entry */
	entry_add(dir, e, inode);
	__atomic_fetch_add(&inode->i_nlink, 1, __ATOMIC_RELAXED);
	inode_touch(inode, T_CTIME);
	ihold(inode);	/* for the dentry */
	d_instantiate(d, inode);
	return 0;
}

static const char *ramfs_get_link(struct inode *inode)
{
	return inode->i_private;
}

/* Drop one link of a non-directory and the reference of the entry
 * entry_take took out. */
static void drop_link(struct inode *inode)
{
	__atomic_fetch_sub(&inode->i_nlink, 1, __ATOMIC_RELEASE);
	inode_touch(inode, T_CTIME);
	iput(inode);
}

/* A directory's entry, taken out of dir, goes: it and its ".." link. */
static void drop_dir(struct inode *dir, struct inode *inode)
{
	__atomic_store_n(&inode->i_nlink, 0, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&dir->i_nlink, 1, __ATOMIC_RELAXED);
	inode_touch(inode, T_CTIME);
	iput(inode);
}

static int ramfs_unlink(struct inode *dir, struct dentry *d)
{
	struct inode *inode = entry_take(dir, d->d_name.name, d->d_name.len);
	if (!inode)
		return -ENOENT;
	drop_link(inode);
	return 0;
}

static bool dir_empty(struct inode *dir)
{
	spin_lock(list_lock(dir));
	bool empty = ((struct ramfs_dir *)dir->i_private)->nentries == 0;
	spin_unlock(list_lock(dir));
	return empty;
}

/* The VFS holds the victim's i_rwsem exclusive (every change inside it
 * holds it shared), so it stays empty once found so. */
static int ramfs_rmdir(struct inode *dir, struct dentry *d)
{
	if (!d->d_inode || !dir_empty(d->d_inode))
		return d->d_inode ? -ENOTEMPTY : -ENOENT;
	struct inode *inode = entry_take(dir, d->d_name.name, d->d_name.len);
	if (!inode)
		return -ENOENT;
	drop_dir(dir, inode);
	return 0;
}

/* The VFS holds both names (locked, or their directories exclusive), so
 * the dentries' inodes are the entries': the source old->d_inode, the
 * one replaced new->d_inode (locked exclusive). */
static int ramfs_rename(struct inode *old_dir, struct dentry *old, struct inode *new_dir,
			struct dentry *new)
{
	struct inode *src = old->d_inode, *dst = new->d_inode;
	if (!src)
		return -ENOENT;
	bool is_dir = S_ISDIR(src->i_mode);
	if (dst && S_ISDIR(dst->i_mode) && !dir_empty(dst))
		return -ENOTEMPTY;
	struct ramfs_entry *e = entry_alloc(&new->d_name);	/* before any change */
	if (!e)
		return -ENOMEM;
	struct inode *gone = dst ? entry_take(new_dir, new->d_name.name, new->d_name.len) : NULL;
	if (gone && S_ISDIR(gone->i_mode))
		drop_dir(new_dir, gone);
	else if (gone)
		drop_link(gone);
	struct inode *inode = entry_take(old_dir, old->d_name.name, old->d_name.len);
	BUG_ON(inode != src);	/* its name is held: no one else took it */
	entry_add(new_dir, e, inode);
	if (is_dir && old_dir != new_dir) {	/* its ".." moves */
		__atomic_fetch_sub(&old_dir->i_nlink, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&new_dir->i_nlink, 1, __ATOMIC_RELAXED);
	}
	inode_touch(inode, T_CTIME);
	return 0;
}

/*
 * Test builds: an entry a listing reaches is whole.  A freed one is
 * poisoned (SLAB_POISON, 0x6b), which is no file type: only a missing
 * grace period (a kfree where kfree_rcu belongs, a reader outside its
 * read side) lets a listing reach one, and what the listing returns may
 * then look valid (a poisoned length that does not fit ends the call
 * early, as a full buffer does), so the check stands apart from the code
 * that keeps it true.
 */
static void entry_check(const struct ramfs_entry *e)
{
	if (CONFIG_LOCKDEP && (e->len == 0 || e->dtype > DT_SOCK))
		panic("ramfs: readdir reached a freed entry %p (type 0x%x)", (const void *)e, e->dtype);
}

/* Called with the file's position lock, without the directory's i_rwsem
 * (FOP_ITERATE_UNLOCKED): the entries are read under RCU. */
static int ramfs_iterate(struct file *f, struct dir_context *ctx)
{
	struct inode *dir = f->f_inode;
	struct ramfs_dir *rd = dir->i_private;
	if (ctx->pos == 0) {
		if (!ctx->emit(ctx, ".", 1, dir->i_ino, DT_DIR))
			return 0;
		ctx->pos = 1;
	}
	if (ctx->pos == 1) {
		uint64_t ino = d_parent_ino(f->f_dentry);	/* a rename may move us */
		if (!ctx->emit(ctx, "..", 2, ino, DT_DIR))
			return 0;
		ctx->pos = 2;
	}
	/* One read side for the call: emit copies into kernel memory and
	 * never sleeps (fs.h); the buffer bounds how much it copies. */
	rcu_read_lock();
	struct list_head *pos;
	list_for_each_rcu(pos, &rd->entries) {
		struct ramfs_entry *e = list_entry(pos, struct ramfs_entry, node);
		if (e->cookie < ctx->pos)
			continue;
		race_window_on(e);	/* reached, not yet copied: an unlink may remove it here */
		entry_check(e);
		if (!ctx->emit(ctx, e->name, e->len, e->ino, e->dtype))
			break;
		ctx->pos = e->cookie + 1;
	}
	rcu_read_unlock();
	return 0;
}

/* Drop every entry below dir, depth first (unmount: nothing is in use). */
void ramfs_dir_free_tree(struct inode *dir)
{
	struct ramfs_dir *rd = dir->i_private;
	while (!list_empty(&rd->entries)) {
		struct ramfs_entry *e = list_first_entry(&rd->entries, struct ramfs_entry, node);
		if (S_ISDIR(e->inode->i_mode))
			ramfs_dir_free_tree(e->inode);
		struct inode *inode = entry_remove(dir, e);
		__atomic_store_n(&inode->i_nlink, 0, __ATOMIC_RELEASE);	/* freed at its last iput */
		iput(inode);
	}
}

const struct inode_operations ramfs_dir_ops = {
	.lookup = ramfs_lookup,
	.create = ramfs_create,
	.mkdir = ramfs_mkdir,
	.unlink = ramfs_unlink,
	.rmdir = ramfs_rmdir,
	.symlink = ramfs_symlink,
	.mknod = ramfs_mknod,
	.link = ramfs_link,
	.rename = ramfs_rename,
};

const struct file_operations ramfs_dir_fops = { .iterate = ramfs_iterate, .fop_flags = FOP_ITERATE_UNLOCKED };

const struct inode_operations ramfs_symlink_ops = { .get_link = ramfs_get_link };
