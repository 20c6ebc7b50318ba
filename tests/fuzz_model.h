/*
 * fuzz_model.h: a sequential model of one fuzzer "process", for the
 * colliding fuzzer (tests/test_vfs_fuzz.c).
 *
 * The process is chrooted in a mounted ramfs and has its own cwd and
 * descriptor table, so the model knows everything it can see: the tree
 * (with a slowfs and any ramfs or slowfs it mounts), the open files with
 * their offsets and flags, the cwd, and the lowest-free descriptor rule.
 * fm_apply says what one call returns, errno for errno.  The walk and the
 * calls on names follow the namespace's rules (tests/ns_model.h, shared
 * with the torture's model); this file adds, with Linux's rules where
 * Linux has one: descriptors, getdents on a removed directory (ENOENT),
 * O_APPEND, pwrite past the end, ftruncate on a descriptor not open for
 * writing (EINVAL), mount and umount.  Where the kernel has no Linux
 * counterpart the model follows the kernel: a slowfs file can be neither
 * read nor written, and nothing can be mounted on a mount point or on a
 * mounted root (EBUSY).
 *
 * Two thread groups ("tasks") share the tree, each with its own cwd and
 * descriptor table (two processes in one namespace); the threads of one
 * task share them.  Each call names its task.  It also names its user:
 * root, or NS_USER (uid 1000, gid 1000, groups 2000), who only looks
 * (stat, lstat, readlink, chdir: the generator gives no other call to it)
 * and needs search permission on every directory it walks through, as
 * Linux's may_lookup (and on chdir's target).  chmod and chown are root's;
 * nodes keep their permission bits and owner, and stat reports them.
 *
 * What it does not model (the generator never asks): a final "." or ".."
 * in a call that creates or removes a name, O_CREAT with O_DIRECTORY,
 * directory offsets other than 0 (a lseek on a directory gives any result
 * and makes its position unknown until it goes back to 0), NS_USER
 * changing anything, and the mode of a slowfs file after a chmod or
 * chown (the change lives only as long as the cached inode: stat of it is
 * then anything).
 *
 * A model is plain data: copying it with memcpy forks it, so the fuzzer
 * can try every order of a few colliding calls.
 */
#ifndef TESTS_FUZZ_MODEL_H
#define TESTS_FUZZ_MODEL_H

#include "tests/ns_model.h"

#define FM_NODES 48
#define FM_ENTRIES 56
#define FM_FDS 16
#define FM_PATH 28
#define FM_TASKS 2                 /* thread groups sharing the tree */

enum fz_op {
	FZ_OPEN, FZ_CLOSE, FZ_READ, FZ_WRITE, FZ_PREAD, FZ_PWRITE, FZ_LSEEK, FZ_GETDENTS,
	FZ_STAT, FZ_LSTAT, FZ_FSTAT, FZ_MKDIR, FZ_RMDIR, FZ_UNLINK, FZ_LINK, FZ_SYMLINK,
	FZ_READLINK, FZ_RENAME, FZ_TRUNCATE, FZ_FTRUNCATE, FZ_CHDIR, FZ_MOUNT, FZ_UMOUNT,
	FZ_CHMOD, FZ_CHOWN, FZ_SHRINK,
	FZ_NOPS
};

/* One call: the op, a descriptor or flags, a length or offset, paths,
 * and who makes it. */
struct fz_call {
	uint8_t op;
	int8_t fd;
	uint8_t tg;                /* the task (thread group) making it, < FM_TASKS */
	bool user;                 /* made by NS_USER, not root */
	int32_t flags;             /* open's flags; lseek's whence; mount: 1 = slowfs;
	                              chmod: the mode; chown: uid << 16 | gid */
	int64_t n;                 /* length, offset, size */
	char a[FM_PATH], b[FM_PATH];
};

/* What a call returned: its value, and what came back with it (stat's
 * type, link count and size; readlink's bytes; getdents' names), folded
 * into aux so that two results compare with ==. */
struct fz_result {
	int64_t ret;
	uint64_t aux;
	int node;                  /* the model's: stat's and lstat's node, else -1 */
};
#define FM_ANY INT64_MIN           /* the model cannot say: anything goes */

struct fm_fd {
	int node;                  /* -1: closed */
	int flags;
	int64_t pos;               /* -1 on a directory: unknown */
};

/* One task's own state. */
struct fm_task {
	struct fm_fd fd[FM_FDS];
	int cwd;
	int pin;                   /* -1, or a directory kept like the cwd: the cwd another
	                              call of a tuple set while this one walked from an older one */
};

struct fuzz_model {
	struct ns_node n[FM_NODES];
	struct ns_entry e[FM_ENTRIES];
	struct fm_task t[FM_TASKS];
	uint8_t cur;               /* the task of the call being applied */
	bool user;                 /* and whether NS_USER makes it */
	int second_cwd;            /* -1, or where its second path starts (see fm_apply) */
	uint8_t next_fs;
	bool full;                 /* ran out of slots: results are no longer known */
};

/* The starting tree, built for real by the fuzzer the same way:
 * /a/ (dir), /a/x (file, 3 bytes), /b/ (empty), /l -> a, /s (slowfs
 * mounted, f0 f1). */
void fm_init(struct fuzz_model *m);
/* Apply call c to m; its result to r.  A relative path starts at the
 * call's task's cwd, the second path of rename and link at second_cwd if
 * that is set (the fuzzer sets it, and must clear it again). */
void fm_apply(struct fuzz_model *m, const struct fz_call *c, struct fz_result *r);

/* The tree seen from the root, in a canonical text form (entries sorted,
 * mounts crossed): the fuzzer renders the real tree the same way. */
void fm_render(const struct fuzz_model *m, char *buf, unsigned size);

/* The aux values, computed the same way for the model and the kernel. */
uint64_t fm_stat_aux(unsigned type, uint32_t nlink, uint64_t size, uint32_t mode, uint32_t uid,
		     uint32_t gid);
uint64_t fm_name_hash(const char *s, unsigned len);
/* A walk of path by task tg whose first n components were walked in
 * state early and the rest in m (see fuzz_model.c).  For the judge. */
bool fm_walk_split(const struct fuzz_model *early, const struct fuzz_model *m, unsigned tg, bool user,
		   const char *path, unsigned n, int *err, bool *at_last);
/* stat or lstat c (its r) with the part of its path before its n-th
 * ".." walked in state early, the rest in m (see fuzz_model.c); false if
 * there is no such split.  For the fuzzer's judge. */
bool fm_stat_split(const struct fuzz_model *early, const struct fuzz_model *m, const struct fz_call *c,
		   unsigned n, struct fz_result *r);
/* A node's stat aux in m (FM_ANY if the model cannot say). */
uint64_t fm_node_aux(const struct fuzz_model *m, int node);

/* A call as one readable line. */
void fz_call_str(const struct fz_call *c, char *buf, unsigned size);

#endif
