/*
 * permission.h: who may do what to an inode: Linux's permission rules
 * (fs/namei.c and fs/attr.c there), with uid 0 as the only capability
 * holder (kernel/cred.h).
 *
 * Locking: none for readers.  The checks read i_mode, i_uid and i_gid
 * together under the inode's i_attr_seq (inode_attr_read: atomic loads,
 * retried if a change ran meanwhile), so one can run on the walk's fast
 * path with no lock and no shared write (may_lookup), and a chmod or chown
 * racing it is seen wholly before or wholly after: never the old owner
 * with the new group.  Writers (chmod, chown, file_remove_privs) hold
 * i_rwsem exclusive, which orders them, and change the three inside
 * inode_attr_write_begin/end, with preemption off so that a reader never
 * waits for a writer that is not running.  Callers that need the answer
 * to stay true (create, unlink, rename) check with the directory's i_rwsem
 * held exclusive, as Linux does, since a chmod of a directory also takes it.
 */
#ifndef FS_PERMISSION_H
#define FS_PERMISSION_H

#include <stdbool.h>
#include <stdint.h>

#define MAY_EXEC  1
#define MAY_WRITE 2
#define MAY_READ  4

struct cred;
struct dentry;
struct inode;

/* An inode's mode, owner and group, read as one (lockless). */
struct inode_attr {
	uint32_t mode, uid, gid;
};
void inode_attr_read(const struct inode *inode, struct inode_attr *a);
/* Around a change of any of the three; caller holds i_rwsem exclusive. */
void inode_attr_write_begin(struct inode *inode);
void inode_attr_write_end(struct inode *inode);

/* 0 if the calling thread may access inode as mask says, else -EACCES. */
int inode_permission(struct inode *inode, int mask);
/* The same for given credentials (the rules themselves). */
int generic_permission(const struct cred *c, struct inode *inode, int mask);
/* Search permission on a directory the walk passes: inode_permission(dir,
 * MAY_EXEC), lockless. */
int may_lookup(struct inode *dir);
/* A new name in dir (i_rwsem held): -ENOENT if dir was removed, -EACCES
 * without write and search permission on it. */
int may_create(struct inode *dir);
/* Taking victim (positive) out of dir (i_rwsem held), as unlink (isdir
 * false), rmdir or rename's source and victim do: -EACCES, then -EPERM
 * for the sticky bit, then -ENOTDIR/-EISDIR, then -ENOENT, in Linux's order. */
int may_delete(struct inode *dir, struct dentry *victim, bool isdir);
/* A hard link to inode by the caller: Linux's may_linkat with
 * fs.protected_hardlinks=1 (the default of most distributions): the
 * owner, root, or anyone who may read and write a regular file that is
 * neither set-user-ID nor executable set-group-ID; else -EPERM. */
int may_linkat(struct inode *inode);
/* The caller owns inode or is root (chmod, utimens to a given time). */
bool inode_owner_or_capable(struct inode *inode);
/* The set-user-ID and set-group-ID bits a write or truncate by the caller
 * must clear from a regular file (0: none): none for root; else
 * set-user-ID, and set-group-ID if group-execute is set or the caller is
 * not in the file's group.  And clearing them
 * (i_rwsem held exclusive).  Linux's should_remove_suid/file_remove_privs. */
uint32_t should_remove_suid(struct inode *inode);
void file_remove_privs(struct inode *inode);

/* The owner of a new inode made in dir (inode_init_new set the caller's
 * uid and gid): dir's group if dir is set-group-ID (and a new directory
 * inherits the bit); a set-group-ID file whose group the creator is not
 * in loses the bit unless root.  Linux's inode_init_owner. */
void inode_init_owner(struct inode *inode, struct inode *dir);
/* The same for a file a server makes (9p): *mode (with its type) and
 * *gid (the caller's) as they must be for a new entry of dir. */
void inode_owner_for_new(struct inode *dir, uint32_t *mode, uint32_t *gid);

/* The calling thread's umask removed from a new file's mode. */
uint32_t mode_strip_umask(uint32_t mode);

#endif
