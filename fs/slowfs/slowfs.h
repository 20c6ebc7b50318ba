/*
 * slowfs.h: a filesystem for watching parallel lookups and directory changes.
 *
 * Its root directory holds `nnames` synthetic files "f0".."f<n-1>"; every
 * other name does not exist.  Mounted with rw=1 (slowfs_mount_rw), any
 * name in any directory can be created, made a directory (mkdir),
 * unlinked, removed (rmdir) and renamed: a new file gets a new inode, as
 * a disk filesystem would give.  Otherwise its names cannot change
 * (-EPERM).  Each lookup and each change sleeps `latency_ms`; slowfs
 * counts lookups per name and the most in flight at once, and changes and
 * the most of one directory in flight at once.  With `gate` set, a lookup
 * also waits (sleeping, killably: a killed lookup fails with -EINTR) until
 * `gate` lookups are in flight together, and with `dirgate` (rw mounts) a
 * change until `dirgate` changes were in one directory together (for
 * 10 s at most: then the gate opens for good), so a test can prove they
 * overlap without timing anything.  slowfs sets FS_PAR_DIROPS: its own
 * state takes changes of different names in one directory at once
 * (fs/slowfs/internal.h, change.c).
 *
 * slowfs also checks the VFS's promise to it, on every call, and counts
 * each breach (they must stay 0; the tests and the shell's `slowfs`
 * command show them):
 *   overlaps   a lookup of a name while another lookup of the same name
 *              is still in slowfs (the in-lookup hash should have made the
 *              second one wait);
 *   rehashed   a lookup of a name whose dentry is already hashed, or of a
 *              dentry that is not in-lookup (the answer was already given).
 *              slowfs refuses such a call with -EIO rather than d_add a
 *              second time, so the breach is counted, not made worse;
 *   change_overlaps  a change (create, mkdir, unlink, rmdir, rename) of a
 *              name while another change of the same name is still in
 *              slowfs (the directory's i_rwsem, or the per-name lock,
 *              should have made the second one wait).
 * And, not a breach: max_in_dir, the most changes of one directory inside
 * slowfs at once (1 while changes take i_rwsem exclusive; T for T changes
 * of different names under the per-name lock).
 *
 * slowfs_hold(sb, true) makes every lookup stop after its d_add (before it
 * returns to the VFS) until slowfs_hold(sb, false): a test can hold a
 * lookup in the window between "hashed" and "lookup done" for as long as
 * it needs, and count how many lookups are held there.
 */
#ifndef FS_SLOWFS_H
#define FS_SLOWFS_H

#include <stdbool.h>
#include <stdint.h>

struct super_block;

struct slowfs_stats {
	unsigned calls;             /* lookups answered */
	unsigned in_flight, max_in_flight;
	unsigned misses;            /* lookups of names that do not exist */
	unsigned overlaps;          /* breaches (see above): must be 0 */
	unsigned rehashed;
	unsigned held;              /* lookups stopped after d_add by slowfs_hold */
	unsigned changes;           /* creates, mkdirs, unlinks, rmdirs, renames answered */
	unsigned max_in_dir;        /* the most changes of one directory in slowfs at once */
	unsigned change_overlaps;   /* breaches (see above): must be 0 */
};

int slowfs_register(void);   /* boot: mountable as "slowfs" with latency=,names=,gate=,rw=,dirgate= */
/* The counters of the slowfs mounted at (or containing) path dir. */
int slowfs_stats_at(const char *dir, struct slowfs_stats *out);
struct super_block *slowfs_mount(unsigned latency_ms, unsigned nnames, unsigned gate);
struct super_block *slowfs_mount_rw(unsigned latency_ms, unsigned nnames, unsigned dirgate);
void slowfs_unmount(struct super_block *sb);   /* frees every dentry and inode */
struct slowfs_stats slowfs_stats(struct super_block *sb);
unsigned slowfs_calls_for(struct super_block *sb, unsigned index);   /* lookups of "f<index>" */
void slowfs_hold(struct super_block *sb, bool hold);
void slowfs_open_gate(struct super_block *sb);   /* let every lookup and change through the gates */
/* How long the changes' gate waits before it opens for good (10 s by
 * default): a test of the giving up need not wait the whole default. */
void slowfs_set_dirgate_give_up(struct super_block *sb, unsigned seconds);

#endif
