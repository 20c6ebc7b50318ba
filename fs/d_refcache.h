/*
 * d_refcache.h: the references open files hold on their dentries, cached
 * per CPU (fs/d_refcache.c says how, and its locking).
 */
#ifndef FS_D_REFCACHE_H
#define FS_D_REFCACHE_H

#include <stdbool.h>
#include <stdint.h>

struct dentry;

/* Where a file's reference on its dentry came from: the CPU (+ 1) whose
 * cache it was taken through, or 0: an ordinary reference. */
struct file_ref {
	uint16_t cpu;
};

void d_refcache_init(void);
/* d_legitimize for a reference a file will hold, from this CPU's cache
 * if d is there (no write to d then); drop it with dput_file.  In an RCU
 * read side: a failure may leave in *put a reference to drop after it. */
bool d_legitimize_file(struct dentry *d, unsigned seq, struct file_ref *ref, struct dentry **put);
/* Out of the read side: make an ordinary reference on d (ref->cpu 0)
 * this CPU's cached one, if d is positive and hashed. */
void d_refcache_adopt(struct dentry *d, struct file_ref *ref);
void dput_file(struct dentry *d, const struct file_ref *ref);
/* dput_file's first half: false if the reference is (now) an ordinary
 * one, which the caller must dput. */
bool dput_file_cached(struct dentry *d, const struct file_ref *ref);
/* Before an exact question about d's count: every CPU's cached
 * references on d go into d_count.  Caller holds a reference on d. */
void d_fold_cached(struct dentry *d);
/* After unhashing d, which may be cached: it leaves every slot. */
void d_cached_unhashed(struct dentry *d);
/* Every cached reference of every CPU goes into its d_count (the prune,
 * the shrinker). */
void d_fold_all_cached(void);
/* Wait until every spare some fold took has been dropped (umount, after
 * its own fold: a spare between its fold and its drop is a reference no
 * slot shows).  May sleep. */
void d_refcache_wait_drops(void);
/* Test hooks: before a fold's spare is dropped; while a wait for drops
 * finds one pending. */
extern void (*d_refcache_drop_hook)(struct dentry *d);
extern void (*d_refcache_wait_hook)(void);
/* d's references as its holders see them (d_count less the slots'
 * spares, plus their locals): a snapshot, for the shell.  The caller
 * keeps d from being freed (a reference, or its parent's d_lock). */
int d_refs(struct dentry *d);
/* For tests and the shell: slots in use on all CPUs, naming a dentry of
 * sb (NULL: any), or d (NULL: any). */
struct super_block;
unsigned d_refcache_slots_used(const struct super_block *sb, const struct dentry *d);
/* Tests: called in d_refcache_adopt with the reference held, d not yet
 * cached. */
extern void (*d_refcache_adopt_hook)(struct dentry *d);

#endif
