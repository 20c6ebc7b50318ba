/*
 * inode.c: 9p inodes: made from a fid and its attributes (v9fs_iget),
 * their opened fids (the read-only one, and a creating open's), their attribute changes sent to the server, and
 * their eviction (the fids clunked).  See v9fs.h for the fid model.
 */
#include "fs/9p/v9fs.h"
#include "fs/dcache.h"
#include "fs/permission.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"

/* Fill a new inode from the server's attributes (nothing else sees it:
 * I_NEW).  A symlink's target is read now, so that get_link never waits. */
static int fill_inode(struct inode *inode, struct v9fs_inode *vi, const struct p9_attr *a)
{
	inode->i_mode = a->mode;
	inode->i_uid = a->uid;
	inode->i_gid = a->gid;
	inode->i_nlink = (uint32_t)a->nlink;
	inode->i_size = a->size;
	inode->i_blocks = a->blocks;
	inode->i_atime = a->atime;
	inode->i_mtime = a->mtime;
	inode->i_ctime = a->ctime;
	inode->i_private = vi;
	vi->uid = a->uid;
	vi->gid = a->gid;
	if (S_ISDIR(a->mode)) {
		inode->i_op = &v9fs_dir_iops;
		inode->i_fop = &v9fs_dir_fops;
	} else if (S_ISREG(a->mode)) {
		inode->i_op = &v9fs_file_iops;
		inode->i_fop = &v9fs_file_fops;
	} else if (S_ISLNK(a->mode)) {
		inode->i_op = &v9fs_link_iops;
		vi->link = kmalloc(PATH_MAX);
		if (!vi->link)
			return -ENOMEM;
		long n = p9_readlink(V9FS_CLNT(inode), vi->fid, vi->link, PATH_MAX);
		if (n < 0)
			return (int)n;
	} else if (S_ISFIFO(a->mode) || S_ISCHR(a->mode) || S_ISBLK(a->mode) || S_ISSOCK(a->mode)) {
		inode->i_op = &v9fs_special_iops;
		init_special_inode(inode, a->mode, a->rdev);
	} else {
		return -EIO;	/* no type we know: a broken server */
	}
	return 0;
}

/*
 * Is the cached inode with a's number still the file a describes?  The
 * host may have removed that file and given its number to a new one (a
 * file system reuses freed inode numbers at once, ext4 often the same
 * moment): then the type differs, or the guest itself removed the old
 * file's last name (its link count is 0: no walk can reach it again), as
 * when an rmdir and a create in one directory overlap (the colliding
 * fuzzer's open(O_CREAT) said EISDIR, the new name on the removed
 * directory's inode).  Both checks cost nothing and hold in either cache
 * mode (Linux's v9fs compares the type and the qid's version).  With
 * cache=none (ask), also whether the cached inode's own fid still
 * reaches a file with this number, which the host's changes behind our
 * back need: one more round trip, only when a lookup finds its inode
 * cached.
 */
static bool cached_is_current(struct inode *inode, const struct p9_attr *a, bool ask)
{
	uint32_t mode = __atomic_load_n(&inode->i_mode, __ATOMIC_RELAXED);
	if ((mode & S_IFMT) != (a->mode & S_IFMT))
		return false;
	if (__atomic_load_n(&inode->i_nlink, __ATOMIC_ACQUIRE) == 0)
		return false;
	if (!ask)
		return true;
	struct p9_attr now;
	int64_t fid = v9fs_inode_fid(inode);	/* stale: not current, a new inode is made */
	return fid >= 0 && p9_getattr(V9FS_CLNT(inode), (uint32_t)fid, &now) == 0 &&
	       now.qid.path == a->qid.path;
}

struct inode *v9fs_iget(struct super_block *sb, uint32_t fid, const struct p9_attr *a)
{
	struct p9_client *c = &V9FS_SB(sb)->clnt;
	struct inode *inode = iget_locked(sb, a->qid.path);
	/* A stale one is unhashed (its holders keep it) and we look again:
	 * the next iget_locked makes a new inode, unless a racing lookup of
	 * the new file made it first, which is then current. */
	while (inode && !(inode->i_state & I_NEW) &&
	       !cached_is_current(inode, a, V9FS_SB(sb)->cache_none)) {
		remove_inode_hash(inode);
		iput(inode);
		inode = iget_locked(sb, a->qid.path);
	}
	if (!inode || !(inode->i_state & I_NEW)) {
		p9_clunk_async(c, fid);	/* cached (and, with cache=none, checked), or no memory */
		return inode ? inode : ERR_PTR(-ENOMEM);
	}
	struct v9fs_inode *vi = kzalloc(sizeof(*vi));
	int err = -ENOMEM;
	if (vi) {
		vi->fid = fid;
		vi->rfid = vi->create_fid = vi->retired_fid = P9_NOFID;
		mutex_init(&vi->open_lock, "v9fs_inode.open_lock");
		err = fill_inode(inode, vi, a);
	}
	if (err) {
		if (!vi)
			p9_clunk(c, fid);
		inode->i_nlink = 0;
		iget_failed(inode);	/* evict clunks vi's fid and frees it */
		return ERR_PTR(err);
	}
	unlock_new_inode(inode);
	return inode;
}

struct inode *v9fs_walk_iget(struct inode *dir, const char *name, uint32_t len)
{
	struct p9_client *c = V9FS_CLNT(dir);
	uint32_t fid = p9_fid_new(c);
	int err = p9_walk(c, V9FS_I(dir)->fid, fid, name, len, NULL);
	if (err)
		return ERR_PTR(err);
	struct p9_attr a;
	if ((err = p9_getattr(c, fid, &a))) {
		p9_clunk(c, fid);
		return ERR_PTR(err);
	}
	return v9fs_iget(dir->i_sb, fid, &a);
}

int64_t v9fs_io_fid(struct inode *inode)
{
	struct v9fs_inode *vi = V9FS_I(inode);
	uint32_t fid = __atomic_load_n(&vi->rfid, __ATOMIC_ACQUIRE);
	if (fid != P9_NOFID)
		return fid;
	if (mutex_lock_killable(&vi->open_lock))
		return -EINTR;
	int err = 0;
	struct p9_client *c = V9FS_CLNT(inode);
	int64_t from = v9fs_inode_fid(inode);
	if ((fid = __atomic_load_n(&vi->rfid, __ATOMIC_RELAXED)) == P9_NOFID && from < 0) {
		err = (int)from;
	} else if (fid == P9_NOFID) {
		uint32_t nfid = p9_fid_new(c);
		err = p9_walk(c, (uint32_t)from, nfid, NULL, 0, NULL);	/* a clone to open */
		if (!err && (err = p9_lopen(c, nfid, O_RDONLY)))
			p9_clunk(c, nfid);
		if (!err)
			__atomic_store_n(&vi->rfid, fid = nfid, __ATOMIC_RELEASE);
	}
	mutex_unlock(&vi->open_lock);
	return err ? err : (int64_t)fid;
}

void v9fs_set_create_fid(struct inode *inode, uint32_t fid)
{
	uint32_t old = __atomic_exchange_n(&V9FS_I(inode)->create_fid, fid, __ATOMIC_ACQ_REL);
	if (old != P9_NOFID)
		p9_clunk(V9FS_CLNT(inode), old);
}

uint32_t v9fs_take_create_fid(struct inode *inode)
{
	return __atomic_exchange_n(&V9FS_I(inode)->create_fid, P9_NOFID, __ATOMIC_ACQ_REL);
}

static void free_vi(struct rcu_head *head)
{
	struct v9fs_inode *vi = container_of(head, struct v9fs_inode, rcu);
	kfree(vi->link);
	kfree(vi);
}

/* The fids go back to the server: Tclunk is not killable (client.c), so
 * a killed evictor's clunks are sent and answered too, and the server
 * forgets a clunked fid even when it answers with an error. */
void v9fs_evict(struct inode *inode)
{
	struct v9fs_inode *vi = V9FS_I(inode);
	if (!vi)
		return;
	struct p9_client *c = V9FS_CLNT(inode);
	/* create_fid: a creating open that failed before it took it. */
	uint32_t fids[4] = { vi->rfid, vi->create_fid, vi->fid, vi->retired_fid };
	for (unsigned i = 0; i < 4; i++)
		if (fids[i] != P9_NOFID)
			p9_clunk(c, fids[i]);
	call_rcu(&vi->rcu, free_vi);	/* a readlink in RCU mode may be copying link */
}

/*
 * chmod, chown, utimes: Tsetattr before the VFS changes the inode, so the
 * server's refusal is the caller's errno and the change is then not made
 * (as Linux's v9fs_vfs_setattr_dotl returns p9_client_setattr's error).
 * "Now" is sent as the server's now (P9_ATTR_ATIME without _SET), which
 * needs only write permission on the host, a time given needs the owner,
 * as utimensat's rules.  The owner is sent only when it changes: a server
 * that runs as one user (QEMU's security_model=none, not root) refuses
 * any chown, even to the owner the file has.  Called with i_rwsem
 * exclusive, which guards vi's copy of the owner.  No dirty_inode: the
 * VFS's one other caller, a write's clearing of set-ID bits, is the host
 * kernel's own when QEMU writes.  The mode goes with its type, as Linux's
 * v9fs sends it: a server that keeps modes itself (QEMU's mapped-xattr)
 * stores what it is given, and a typeless mode would come back typeless.
 * The fid is the one d's name reaches (v9fs_dentry_fid: a hard link's).
 */
int v9fs_setattr(struct dentry *d, const struct iattr *ia)
{
	struct inode *inode = d->d_inode;
	struct v9fs_inode *vi = V9FS_I(inode);
	struct p9_setattr s = { .mode = ia->mode, .uid = ia->uid, .gid = ia->gid,
				.atime = ia->atime, .mtime = ia->mtime };
	static const struct { unsigned vfs, p9; } bits[] = {
		{ ATTR_MODE, P9_ATTR_MODE }, { ATTR_ATIME, P9_ATTR_ATIME }, { ATTR_MTIME, P9_ATTR_MTIME },
		{ ATTR_ATIME_SET, P9_ATTR_ATIME_SET }, { ATTR_MTIME_SET, P9_ATTR_MTIME_SET },
	};
	for (unsigned i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (ia->valid & bits[i].vfs)
			s.valid |= bits[i].p9;
	if ((ia->valid & ATTR_UID) && ia->uid != vi->uid)
		s.valid |= P9_ATTR_UID;
	if ((ia->valid & ATTR_GID) && ia->gid != vi->gid)
		s.valid |= P9_ATTR_GID;
	if (!s.valid)
		return 0;
	int64_t fid = v9fs_dentry_fid(d);
	int err = fid < 0 ? (int)fid : p9_setattr(V9FS_CLNT(inode), (uint32_t)fid, &s);
	if (!err && (s.valid & P9_ATTR_UID))
		vi->uid = s.uid;
	if (!err && (s.valid & P9_ATTR_GID))
		vi->gid = s.gid;
	return err;
}
