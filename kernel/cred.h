/*
 * cred.h: who a thread is: its user and group IDs, its supplementary
 * groups and its umask (Linux's struct cred, reduced to what the VFS
 * checks).
 *
 * A thread's credentials are a pointer to a shared, reference-counted,
 * IMMUTABLE object.  A new thread takes a reference to its creator's (so
 * a shell job runs as the shell does); a change never writes to the
 * object: prepare_creds makes a private copy, the caller edits the copy,
 * and commit_creds swaps the thread's pointer to it and drops the old
 * one.  Only the thread itself swaps its pointer, so it reads its own
 * credentials with no lock and no reference (current_cred), and another
 * thread that shares the old object keeps seeing it unchanged.  This is
 * Linux's model (setuid in a multithreaded program is per thread in the
 * kernel; for user processes user/process_cred.c repeats it on every
 * thread, as Linux's C library does); the RCU-walk (fs/namei.c) reads
 * the pointer the same way.
 *
 * One uid and one gid: smpvfs has no separate real, effective, saved and
 * filesystem IDs (they are always equal here).  uid 0 is root and has
 * every override Linux gives CAP_DAC_OVERRIDE, CAP_FOWNER, CAP_CHOWN and
 * CAP_FSETID.
 */
#ifndef KERNEL_CRED_H
#define KERNEL_CRED_H

#include <stdbool.h>
#include <stdint.h>

#define NGROUPS_MAX 32
#define GLOBAL_ROOT_UID 0

struct thread;

struct cred {
	int usage;                   /* references (atomic) */
	uint32_t uid, gid;
	uint32_t umask;              /* 0 to 0777 */
	unsigned ngroups;
	uint32_t groups[NGROUPS_MAX];
};

/* The calling thread's credentials: valid until it commits new ones. */
const struct cred *current_cred(void);
/* A private, writable copy of the calling thread's (NULL: no memory). */
struct cred *prepare_creds(void);
/* Make new (from prepare_creds; reference consumed) the calling thread's. */
void commit_creds(struct cred *new);
void abort_creds(struct cred *new);          /* a copy not committed */
/* For a while: make new (reference consumed) the calling thread's and
 * return the old ones (the caller's reference), which revert_creds puts
 * back, dropping new (the shell's su, fstest's -u). */
const struct cred *override_creds(struct cred *new);
void revert_creds(const struct cred *old);
const struct cred *get_cred(const struct cred *c);
void put_cred(const struct cred *c);

/* Thread hooks: a new thread shares its creator's; a freed one drops its. */
void cred_fork(struct thread *child);
void cred_release(struct thread *t);

/* gid is c's group or one of its supplementary groups. */
bool cred_in_group(const struct cred *c, uint32_t gid);
static inline bool cred_is_root(const struct cred *c)
{
	return c->uid == GLOBAL_ROOT_UID;
}

/* The credential calls, on the calling thread.  Root may set any IDs;
 * anyone else only the ones it has (-EPERM).  (uint32_t)-1: unchanged. */
int sys_setuid(uint32_t uid);
int sys_setgid(uint32_t gid);
int sys_setgroups(unsigned n, const uint32_t *groups);   /* root only; -EINVAL past NGROUPS_MAX */
uint32_t sys_umask(uint32_t mask);                        /* the old umask */
uint32_t sys_getuid(void);
uint32_t sys_getgid(void);
int sys_getgroups(unsigned n, uint32_t *groups);          /* count; n 0: count only */

#endif
