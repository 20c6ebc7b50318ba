/*
 * slowfs.h: a filesystem for watching parallel lookups.
 *
 * Its root directory holds `nnames` synthetic files "f0".."f<n-1>"; every
 * other name does not exist.  Mounted with rw=1, unlink removes a name
 * and create makes it again (a new inode); no other name can be created
 * (-EPERM).  Otherwise its names cannot change (-EPERM).  Each lookup sleeps `latency_ms`, and slowfs
 * counts lookups per name and the most in flight at once.  With `gate`
 * set, a lookup also waits (sleeping, killably: a killed lookup fails with
 * -EINTR) until `gate` lookups are in flight together, so a test can prove
 * they overlap without timing anything.
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
 *              second time, so the breach is counted, not made worse.
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
};

int slowfs_register(void);         /* boot: mountable as "slowfs" with latency=,names=,gate=,rw= */
/* The counters of the slowfs mounted at (or containing) path dir. */
int slowfs_stats_at(const char *dir, struct slowfs_stats *out);
struct super_block *slowfs_mount(unsigned latency_ms, unsigned nnames, unsigned gate);
void slowfs_unmount(struct super_block *sb);   /* frees every dentry and inode */
struct slowfs_stats slowfs_stats(struct super_block *sb);
unsigned slowfs_calls_for(struct super_block *sb, unsigned index);   /* lookups of "f<index>" */
void slowfs_hold(struct super_block *sb, bool hold);
void slowfs_open_gate(struct super_block *sb);   /* let every lookup through the gate */

#endif
