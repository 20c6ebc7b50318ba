/*
 * slowfs.h: a filesystem for watching parallel lookups.
 *
 * Its root directory holds `nnames` synthetic files "f0".."f<n-1>"; every
 * other name does not exist.  Each lookup sleeps `latency_ms`, and slowfs
 * counts lookups per name and the most in flight at once.  With `gate`
 * set, a lookup also waits (sleeping) until `gate` lookups are in flight
 * together, so a test can prove they overlap without timing anything.
 */
#ifndef FS_SLOWFS_H
#define FS_SLOWFS_H

#include <stdint.h>

struct super_block;

struct slowfs_stats {
	unsigned calls;             /* lookups answered */
	unsigned in_flight, max_in_flight;
	unsigned misses;            /* lookups of names that do not exist */
};

int slowfs_register(void);         /* boot: mountable as "slowfs" with latency=,names=,gate= */
/* The counters of the slowfs mounted at (or containing) path dir. */
int slowfs_stats_at(const char *dir, struct slowfs_stats *out);
struct super_block *slowfs_mount(unsigned latency_ms, unsigned nnames, unsigned gate);
void slowfs_unmount(struct super_block *sb);   /* frees every dentry and inode */
struct slowfs_stats slowfs_stats(struct super_block *sb);
unsigned slowfs_calls_for(struct super_block *sb, unsigned index);   /* lookups of "f<index>" */

#endif
