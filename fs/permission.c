/*
 * permission.c: Linux's permission rules, and the mode, owner and group
 * read as one (see permission.h for the locking).
 */
#include "fs/permission.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "kernel/cred.h"
#include "kernel/errno.h"
#include "kernel/lockdep.h"
#include "kernel/preempt.h"
#include "kernel/panic.h"
#include "kernel/race.h"
#include "kernel/random.h"

#define S_IXUGO 0111

/* Never 0, which says "no change yet". */
static uint32_t attr_digest(uint32_t mode, uint32_t uid, uint32_t gid)
{
	return (uint32_t)mix64((uint64_t)mode << 40 ^ (uint64_t)uid << 20 ^ gid) | 1;
}

void inode_attr_read(const struct inode *inode, struct inode_attr *a)
{
	unsigned seq;
	uint32_t digest;
	do {
		seq = read_seqcount_begin(&inode->i_attr_seq);
		a->mode = __atomic_load_n(&inode->i_mode, __ATOMIC_RELAXED);
		a->uid = __atomic_load_n(&inode->i_uid, __ATOMIC_RELAXED);
		race_window_on(inode);	/* owner read, group not yet: a chown may run */
		a->gid = __atomic_load_n(&inode->i_gid, __ATOMIC_RELAXED);
		digest = __atomic_load_n(&inode->i_attr_digest, __ATOMIC_RELAXED);
	} while (read_seqcount_retry(&inode->i_attr_seq, seq));
	/* Test builds check what was read, apart from how it was read: the
	 * three and the digest the last change stored with them must agree,
	 * else this read mixed two states (a reader or a writer outside the
	 * seqcount's rules), and a permission check would decide on a state
	 * the inode never had. */
	if (CONFIG_LOCKDEP && digest && digest != attr_digest(a->mode, a->uid, a->gid))
		panic("permission: inode %lu's mode, owner and group read from two states "
		      "(%o %u %u)", inode->i_ino, a->mode, a->uid, a->gid);
}

void inode_attr_write_begin(struct inode *inode)
{
	rwsem_assert_held_write(&inode->i_rwsem);
	race_write_begin(inode);	/* lockless readers of the three may wait for the change */
	race_window();	/* about to change: a reader may come in now */
	preempt_disable();
	write_seqcount_begin(&inode->i_attr_seq);
}

void inode_attr_write_end(struct inode *inode)
{
	if (CONFIG_LOCKDEP)
		__atomic_store_n(&inode->i_attr_digest,
				 attr_digest(inode->i_mode, inode->i_uid, inode->i_gid), __ATOMIC_RELAXED);
	write_seqcount_end(&inode->i_attr_seq);
	race_write_done(inode);
	preempt_enable();
}

int generic_permission(const struct cred *c, struct inode *inode, int mask)
{
	struct inode_attr a;
	inode_attr_read(inode, &a);
	/* One class applies, the first that matches: an owner who lacks a
	 * bit the group has is still refused (POSIX). */
	uint32_t bits = c->uid == a.uid ? a.mode >> 6 : cred_in_group(c, a.gid) ? a.mode >> 3 : a.mode;
	if ((mask & ~(int)bits & 7) == 0)
		return 0;
	if (cred_is_root(c)) {
		/* Root reads, writes and searches anything; it executes a
		 * file only if someone may (CAP_DAC_OVERRIDE's rule). */
		if (S_ISDIR(a.mode) || !(mask & MAY_EXEC) || (a.mode & S_IXUGO))
			return 0;
	}
	return -EACCES;
}

/* A write to a file, directory or symlink of a read-only filesystem
 * is -EROFS, before the permission bits (Linux's sb_permission). */
int inode_permission(struct inode *inode, int mask)
{
	uint32_t type = inode->i_mode & S_IFMT;
	if ((mask & MAY_WRITE) && IS_RDONLY(inode) &&
	    (type == S_IFREG || type == S_IFDIR || type == S_IFLNK))
		return -EROFS;
	return generic_permission(current_cred(), inode, mask);
}

int may_lookup(struct inode *dir)
{
	return inode_permission(dir, MAY_EXEC);
}

int may_create(struct inode *dir)
{
	if (IS_DEADDIR(dir))
		return -ENOENT;
	return inode_permission(dir, MAY_WRITE | MAY_EXEC);
}

/* The sticky bit: in such a directory only the entry's owner, the
 * directory's owner or root may take a name out. */
static bool check_sticky(const struct cred *c, struct inode *dir, struct inode *inode)
{
	if (!(__atomic_load_n(&dir->i_mode, __ATOMIC_ACQUIRE) & S_ISVTX))
		return false;
	return c->uid != __atomic_load_n(&inode->i_uid, __ATOMIC_RELAXED) &&
	       c->uid != __atomic_load_n(&dir->i_uid, __ATOMIC_RELAXED) && !cred_is_root(c);
}

int may_delete(struct inode *dir, struct dentry *victim, bool isdir)
{
	struct inode *inode = victim->d_inode;
	if (!inode)
		return -ENOENT;
	int err = inode_permission(dir, MAY_WRITE | MAY_EXEC);
	if (err)
		return err;
	if (check_sticky(current_cred(), dir, inode))
		return -EPERM;
	if (isdir && !S_ISDIR(inode->i_mode))
		return -ENOTDIR;
	if (!isdir && S_ISDIR(inode->i_mode))
		return -EISDIR;
	if (IS_DEADDIR(dir))
		return -ENOENT;
	return 0;
}

bool inode_owner_or_capable(struct inode *inode)
{
	const struct cred *c = current_cred();
	return c->uid == __atomic_load_n(&inode->i_uid, __ATOMIC_RELAXED) || cred_is_root(c);
}

int may_linkat(struct inode *inode)
{
	if (inode_owner_or_capable(inode))
		return 0;
	uint32_t mode = __atomic_load_n(&inode->i_mode, __ATOMIC_ACQUIRE);
	if (!S_ISREG(mode) || (mode & S_ISUID) || (mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		return -EPERM;
	return inode_permission(inode, MAY_READ | MAY_WRITE) ? -EPERM : 0;
}

uint32_t should_remove_suid(struct inode *inode)
{
	uint32_t mode = __atomic_load_n(&inode->i_mode, __ATOMIC_ACQUIRE), kill = 0;
	const struct cred *c = current_cred();
	if (!S_ISREG(mode) || cred_is_root(c))
		return 0;
	if (mode & S_ISUID)
		kill |= S_ISUID;
	/* Without group-execute the bit marks mandatory locking: it goes
	 * only if the writer is not in the file's group. */
	if ((mode & S_ISGID) &&
	    ((mode & S_IXGRP) || !cred_in_group(c, __atomic_load_n(&inode->i_gid, __ATOMIC_RELAXED))))
		kill |= S_ISGID;
	return kill;
}

void file_remove_privs(struct inode *inode)
{
	uint32_t kill = should_remove_suid(inode);
	if (kill) {
		inode_attr_write_begin(inode);
		__atomic_fetch_and(&inode->i_mode, ~kill, __ATOMIC_RELEASE);
		inode_attr_write_end(inode);
		inode_touch(inode, T_CTIME);
		mark_inode_dirty(inode);
	}
}

void inode_owner_for_new(struct inode *dir, uint32_t *mode, uint32_t *gid)
{
	uint32_t dmode = __atomic_load_n(&dir->i_mode, __ATOMIC_ACQUIRE);
	if (dmode & S_ISGID) {
		*gid = __atomic_load_n(&dir->i_gid, __ATOMIC_RELAXED);
		if (S_ISDIR(*mode))
			*mode |= S_ISGID;
	}
	const struct cred *c = current_cred();
	if ((dmode & S_ISGID) && !S_ISDIR(*mode) &&
	    (*mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) && !cred_in_group(c, *gid) &&
	    !cred_is_root(c))
		*mode &= ~S_ISGID;
}

void inode_init_owner(struct inode *inode, struct inode *dir)
{
	inode_owner_for_new(dir, &inode->i_mode, &inode->i_gid);
}

uint32_t mode_strip_umask(uint32_t mode)
{
	return mode & ~current_cred()->umask;
}
