/*
 * namei.c: 9p's directory operations (fs/fs.h's inode_operations).
 *
 * Lookup runs with the directory's i_rwsem shared and at most once at a
 * time per name (the VFS's in-lookup dentry): so a storm of lookups of
 * one name sends one Twalk, and lookups of different names are walks in
 * flight together.  Each change is one request naming the directory's
 * fid and the entry; a creation then walks to the new entry for the new
 * inode's own fid.  The server's errno is the caller's.
 *
 * Locking: 9p opts in to parallel directory changes (FS_PAR_DIROPS): with
 * vfs.dirops=shared every change below runs with the directory's i_rwsem
 * shared and only its name (both, for rename) locked by the VFS
 * (fs/d_name_lock.c), so changes of different names of one directory
 * run here at once, their requests in flight together.  What they touch
 * and why that needs no lock of ours:
 *   - the directory's fid: fixed for the inode's life, only read; the
 *     server takes concurrent requests on one fid (a create clones it
 *     first: Tlcreate turns its fid into the open file);
 *   - fids made here: each call's own (p9_fid_new: an atomic counter);
 *   - the directory's i_nlink (mkdir, rmdir, rename of a directory) and
 *     a victim's or link target's: atomic adds, never read-modify-write
 *     in two steps; times: inode_touch's atomic stores;
 *   - the new entry's walk in instantiate: its name is locked, so no
 *     other change of the name runs until d_instantiate; two creates of
 *     one hard-linked file's names meet only in iget_locked;
 *   - the new inode's create_fid (v9fs_set_create_fid): an atomic exchange;
 *   - v9fs_inode.uid/gid: only setattr and dirty_inode (i_rwsem of
 *     that inode exclusive) writes them; no change here reads them.
 * Nothing else is kept per directory: no attributes are refreshed after
 * a change (cache=loose keeps the guest's own view, which the change
 * updated), no listing is cached.  The server orders changes of one
 * name among clients; the VFS's name lock orders ours.
 */
#include "fs/9p/v9fs.h"
#include "fs/dcache.h"
#include "fs/permission.h"
#include "fs/syscalls.h"
#include "kernel/cred.h"
#include "kernel/err.h"
#include "kernel/errno.h"

static uint32_t dir_fid(struct inode *dir)
{
	return V9FS_I(dir)->fid;
}

static int v9fs_lookup(struct inode *dir, struct dentry *d)
{
	struct inode *inode = v9fs_walk_iget(dir, d->d_name.name, d->d_name.len);
	if (inode == ERR_PTR(-ENOENT)) {
		d_add(d, NULL);	/* a negative dentry: cache=loose trusts it too */
		return 0;
	}
	if (IS_ERR(inode))
		return (int)PTR_ERR(inode);
	d_add(d, inode);
	return 0;
}

/* A new entry's mode and group, as the VFS gives a new inode of a disk
 * filesystem (inode_init_owner: dir's group and set-group-ID bit): the
 * server takes both from the request (Tlcreate, Tmkdir...), as Linux's
 * v9fs sends them. */
static uint32_t owner_for_new(struct inode *dir, uint32_t *mode)
{
	uint32_t gid = current_cred()->gid;
	inode_owner_for_new(dir, mode, &gid);
	return gid;
}

/* The server makes a file its session's user's (Tattach's: the mounter).
 * Linux's v9fs attaches once per user instead; here a creator who is
 * another user is made the owner by a Tsetattr.  A server that may not
 * (QEMU's security_model=none, run as one user) keeps its own: as with
 * any server-made file, the guest shows the server's owner.  The inode is
 * new, its name locked and not yet instantiated: nothing else reads or
 * changes it. */
static void own_new_inode(struct inode *inode)
{
	struct p9_client *c = V9FS_CLNT(inode);
	uint32_t uid = current_cred()->uid;
	if (uid == c->uid || uid == __atomic_load_n(&inode->i_uid, __ATOMIC_RELAXED))
		return;
	struct p9_setattr s = { .valid = P9_ATTR_UID, .uid = uid };
	if (p9_setattr(c, V9FS_I(inode)->fid, &s) == 0) {
		/* Before d_instantiate: no walk reads it yet (no i_attr_seq). */
		__atomic_store_n(&inode->i_uid, uid, __ATOMIC_RELAXED);
		V9FS_I(inode)->uid = uid;
	}
}

/* The end of a creation the server did: the new entry's inode on d.  If
 * that fails (no memory, the entry already gone again), d must not stay
 * a hashed negative dentry: cache=loose would trust it, and the name the
 * server has would be "no such file" until d is evicted (the colliding
 * fuzzer found getdents listing a name lstat denied).  Unhashed, the next
 * lookup asks the server, as Linux's NFS drops d when a create fails. */
static int instantiate(struct inode *dir, struct dentry *d)
{
	struct inode *inode = v9fs_walk_iget(dir, d->d_name.name, d->d_name.len);
	if (IS_ERR(inode)) {
		d_drop_failed_create(d);
		return (int)PTR_ERR(inode);
	}
	own_new_inode(inode);
	d_instantiate(d, inode);
	inode_touch(dir, T_MTIME | T_CTIME);
	return 0;
}

/* The file is created open for reading and writing, and that fid is the
 * creating open's (v9fs_set_create_fid; file.c's open takes it): so the
 * open() that created it can write even a file whose mode says read-only
 * (tar and cp -a make those), as Linux's v9fs uses its Tlcreate's fid. */
static int v9fs_create(struct inode *dir, struct dentry *d, uint32_t mode)
{
	struct p9_client *c = V9FS_CLNT(dir);
	uint32_t fid = p9_fid_new(c);
	struct p9_qid qid;
	int err = p9_walk(c, dir_fid(dir), fid, NULL, 0, NULL);
	if (err)
		return err;
	mode = S_IFREG | (mode & S_IALLUGO);
	uint32_t gid = owner_for_new(dir, &mode);
	err = p9_lcreate(c, fid, d->d_name.name, d->d_name.len, 2 /* O_RDWR */, mode & S_IALLUGO,
			 gid, &qid);
	if (!err)
		err = instantiate(dir, d);
	if (err) {
		p9_clunk(c, fid);
		return err;
	}
	v9fs_set_create_fid(d->d_inode, fid);
	return 0;
}

static int v9fs_mkdir(struct inode *dir, struct dentry *d, uint32_t mode)
{
	struct p9_qid qid;
	mode = S_IFDIR | (mode & S_IALLUGO);
	uint32_t gid = owner_for_new(dir, &mode);
	int err = p9_mkdir(V9FS_CLNT(dir), dir_fid(dir), d->d_name.name, d->d_name.len,
			   mode & S_IALLUGO, gid, &qid);
	if (err)
		return err;
	/* Its "..": the server made it, even if instantiate fails now. */
	__atomic_fetch_add(&dir->i_nlink, 1, __ATOMIC_RELAXED);
	return instantiate(dir, d);
}

static int v9fs_symlink(struct inode *dir, struct dentry *d, const char *target)
{
	struct p9_qid qid;
	uint32_t mode = S_IFLNK | 0777;
	int err = p9_symlink(V9FS_CLNT(dir), dir_fid(dir), d->d_name.name, d->d_name.len, target,
			     owner_for_new(dir, &mode), &qid);
	return err ? err : instantiate(dir, d);
}

static int v9fs_mknod(struct inode *dir, struct dentry *d, uint32_t mode, uint64_t rdev)
{
	struct p9_qid qid;
	uint32_t gid = owner_for_new(dir, &mode);
	int err = p9_mknod(V9FS_CLNT(dir), dir_fid(dir), d->d_name.name, d->d_name.len, mode,
			   major(rdev), minor(rdev), gid, &qid);
	return err ? err : instantiate(dir, d);
}

static int v9fs_link(struct dentry *old, struct inode *dir, struct dentry *d)
{
	struct inode *inode = old->d_inode;
	int64_t fid = v9fs_dentry_fid(old);
	int err = fid < 0 ? (int)fid : p9_link(V9FS_CLNT(dir), dir_fid(dir), (uint32_t)fid,
					       d->d_name.name, d->d_name.len);
	if (err)
		return err;
	__atomic_fetch_add(&inode->i_nlink, 1, __ATOMIC_RELAXED);
	inode_touch(inode, T_CTIME);
	inode_touch(dir, T_MTIME | T_CTIME);
	ihold(inode);
	d_instantiate(d, inode);
	return 0;
}

static int v9fs_unlink(struct inode *dir, struct dentry *d)
{
	int err = p9_unlinkat(V9FS_CLNT(dir), dir_fid(dir), d->d_name.name, d->d_name.len, 0);
	if (err)
		return err;
	if (__atomic_sub_fetch(&d->d_inode->i_nlink, 1, __ATOMIC_RELEASE) > 0)
		v9fs_check_fid(d->d_inode);	/* its fid may have been walked by this name */
	inode_touch(d->d_inode, T_CTIME);
	inode_touch(dir, T_MTIME | T_CTIME);
	return 0;
}

static int v9fs_rmdir(struct inode *dir, struct dentry *d)
{
	int err = p9_unlinkat(V9FS_CLNT(dir), dir_fid(dir), d->d_name.name, d->d_name.len,
			      P9_AT_REMOVEDIR);
	if (err)
		return err;
	__atomic_store_n(&d->d_inode->i_nlink, 0, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&dir->i_nlink, 1, __ATOMIC_RELAXED);
	inode_touch(dir, T_MTIME | T_CTIME);
	return 0;
}

static int v9fs_rename(struct inode *old_dir, struct dentry *old, struct inode *new_dir,
		       struct dentry *new)
{
	int err = p9_renameat(V9FS_CLNT(old_dir), dir_fid(old_dir), old->d_name.name,
			      old->d_name.len, dir_fid(new_dir), new->d_name.name, new->d_name.len);
	if (err)
		return err;
	bool is_dir = S_ISDIR(old->d_inode->i_mode);
	struct inode *victim = new->d_inode;
	if (victim && S_ISDIR(victim->i_mode)) {
		__atomic_store_n(&victim->i_nlink, 0, __ATOMIC_RELEASE);
		__atomic_fetch_sub(&new_dir->i_nlink, 1, __ATOMIC_RELAXED);
	} else if (victim && __atomic_sub_fetch(&victim->i_nlink, 1, __ATOMIC_RELEASE) > 0) {
		v9fs_check_fid(victim);	/* by this name, its fid names the moved file now */
	}
	if (is_dir && old_dir != new_dir) {	/* its ".." moves */
		__atomic_fetch_sub(&old_dir->i_nlink, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&new_dir->i_nlink, 1, __ATOMIC_RELAXED);
	}
	inode_touch(old->d_inode, T_CTIME);
	return 0;
}

const struct inode_operations v9fs_dir_iops = {
	.lookup = v9fs_lookup,
	.create = v9fs_create,
	.mkdir = v9fs_mkdir,
	.unlink = v9fs_unlink,
	.rmdir = v9fs_rmdir,
	.symlink = v9fs_symlink,
	.mknod = v9fs_mknod,
	.link = v9fs_link,
	.rename = v9fs_rename,
	.setattr = v9fs_setattr,
};
