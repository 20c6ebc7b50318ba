/*
 * fuzz_model.h: a sequential model of one fuzzer "process", for the
 * colliding fuzzer (tests/test_vfs_fuzz.c).
 *
 * The process is chrooted in a mounted ramfs and has its own cwd and
 * descriptor table, so the model knows everything it can see: the tree
 * (with a slowfs and any ramfs or slowfs it mounts), the open files with
 * their offsets and flags, the cwd, and the lowest-free descriptor rule.
 * fm_apply says what one call returns, errno for errno, with Linux's rules
 * where Linux has one: which components are followed, which error comes
 * first, ".." at a mount root, a removed directory (lookups and creates in
 * it: ENOENT; getdents on it: ENOENT), O_APPEND, pwrite past the end,
 * ftruncate on a descriptor not open for writing (EINVAL).  Where the
 * kernel has no Linux counterpart the model follows the kernel: slowfs
 * refuses every change with EPERM, and nothing can be mounted on a mount
 * point or on a mounted root (EBUSY).
 *
 * What it does not model (the generator never asks): a final "." or ".."
 * in a call that creates or removes a name, O_CREAT with O_DIRECTORY,
 * directory offsets other than 0 (a lseek on a directory gives any result
 * and makes its position unknown until it goes back to 0).
 *
 * A model is plain data: copying it with memcpy forks it, so the fuzzer
 * can try every order of a few colliding calls.
 */
#ifndef TESTS_FUZZ_MODEL_H
#define TESTS_FUZZ_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define FM_NODES 48
#define FM_ENTRIES 56
#define FM_FDS 16
#define FM_NAME 4
#define FM_TARGET 8
#define FM_PATH 28

enum fz_op {
	FZ_OPEN, FZ_CLOSE, FZ_READ, FZ_WRITE, FZ_PREAD, FZ_PWRITE, FZ_LSEEK, FZ_GETDENTS,
	FZ_STAT, FZ_LSTAT, FZ_FSTAT, FZ_MKDIR, FZ_RMDIR, FZ_UNLINK, FZ_LINK, FZ_SYMLINK,
	FZ_READLINK, FZ_RENAME, FZ_TRUNCATE, FZ_FTRUNCATE, FZ_CHDIR, FZ_MOUNT, FZ_UMOUNT,
	FZ_NOPS
};

/* One call: the op, a descriptor or flags, a length or offset, paths. */
struct fz_call {
	uint8_t op;
	int8_t fd;
	int32_t flags;             /* open's flags; lseek's whence; mount: 1 = slowfs */
	int64_t n;                 /* length, offset, size */
	char a[FM_PATH], b[FM_PATH];
};

/* What a call returned: its value, and what came back with it (stat's
 * type, link count and size; readlink's bytes; getdents' names), folded
 * into aux so that two results compare with ==. */
struct fz_result {
	int64_t ret;
	uint64_t aux;
};
#define FM_ANY INT64_MIN           /* the model cannot say: anything goes */

enum { FM_FREE, FM_DIR, FM_REG, FM_LNK };

struct fm_node {
	uint8_t type;
	uint8_t fs;                /* which filesystem: 0 the process's root one */
	bool slow;                 /* in a slowfs: every change is EPERM */
	bool dead;                 /* no name left (kept while open or cwd) */
	uint32_t nlink;
	uint64_t size;
	int parent;                /* directories: -1 for a filesystem's root */
	int mp;                    /* a mounted root: its mount point, else -1 */
	int mounted;               /* a mount point: the root mounted on it, else -1 */
	char target[FM_TARGET];
};

struct fm_entry {
	int dir;                   /* -1: free */
	int child;
	char name[FM_NAME];
};

struct fm_fd {
	int node;                  /* -1: closed */
	int flags;
	int64_t pos;               /* -1 on a directory: unknown */
};

struct fuzz_model {
	struct fm_node n[FM_NODES];
	struct fm_entry e[FM_ENTRIES];
	struct fm_fd fd[FM_FDS];
	int cwd;
	int pin;                   /* -1, or a directory kept like the cwd: the cwd another
	                              call of a tuple set while this one walked from an older one */
	uint8_t next_fs;
	bool full;                 /* ran out of slots: results are no longer known */
};

/* The starting tree, built for real by the fuzzer the same way:
 * /a/ (dir), /a/x (file, 3 bytes), /b/ (empty), /l -> a, /s (slowfs
 * mounted, f0 f1). */
void fm_init(struct fuzz_model *m);
void fm_apply(struct fuzz_model *m, const struct fz_call *c, struct fz_result *r);

/* The tree seen from the root, in a canonical text form (entries sorted,
 * mounts crossed): the fuzzer renders the real tree the same way. */
void fm_render(const struct fuzz_model *m, char *buf, unsigned size);

/* The aux values, computed the same way for the model and the kernel. */
uint64_t fm_stat_aux(unsigned type, uint32_t nlink, uint64_t size);
uint64_t fm_name_hash(const char *s, unsigned len);

/* A call as one readable line. */
void fz_call_str(const struct fz_call *c, char *buf, unsigned size);

#endif
