/*
 * commute_model.h: when do two calls commute?  A model of the calls of
 * the generated conflict pairs (bench/commute.c), exact for the tiny tree
 * they run on, so that a pair is kept only if its outcome does not depend
 * on the order of its two calls.
 *
 * The tree: two directories, /cf/d0 and /cf/d1, each with names made of
 * a role and a slot (f0, g1, ...):
 *
 *   f, g   regular files of 64 bytes ('x' and 'y')
 *   s      a symlink to the f of its slot ("f0" or "f1")
 *   e      an empty directory
 *   n, m   missing names
 *
 * and nothing else: a name exists only if one of the two calls names it
 * (or a symlink it names points at it), so getdents lists just those.
 * Each call is made by its own process (its own descriptor table), and a
 * call that reads or writes through a descriptor uses one its process
 * opened before: on a file (O_RDONLY, or O_WRONLY to write) or on the
 * directory (getdents).
 *
 * Two calls commute if running A then B and B then A give A the same
 * result, B the same result, and the same tree, descriptors included.
 * Results are what a program sees: the return value, and what came with
 * it (stat's type, mode, link count, size, and the number of changes of
 * its mtime and ctime; the bytes read; readlink's target; getdents' set of
 * names, in any order, since POSIX leaves it unspecified).  State is
 * compared up to renaming inodes (two creates in either order make the
 * same tree with the inode numbers swapped, which no program can tell
 * apart from the spec).  Access times are left out: relatime, Linux's
 * default, lets reads leave them alone.
 *
 * A model is plain data: a copy forks it.
 */
#ifndef BENCH_COMMUTE_MODEL_H
#define BENCH_COMMUTE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

enum cm_op {
	CM_STAT, CM_LSTAT, CM_OPEN, CM_CLOSE, CM_READ, CM_PREAD, CM_WRITE, CM_PWRITE,
	CM_GETDENTS, CM_MKDIR, CM_RMDIR, CM_CREATE, CM_UNLINK, CM_LINK, CM_RENAME, CM_CHMOD,
	CM_READLINK, CM_NOPS
};

enum cm_role { CM_F, CM_G, CM_S, CM_E, CM_N, CM_M, CM_ROLES, CM_DIR = CM_ROLES };

#define CM_SLOTS 2
#define CM_NAMES (CM_ROLES * CM_SLOTS)   /* names in one directory */
#define CM_NODES 24
#define CM_DATA 64                       /* bytes a write or read moves */

/* A name: directory 0 or 1, a role, a slot; role CM_DIR is the directory. */
struct cm_name {
	uint8_t dir, role, slot;
};

/* One call: a (every call), b (link's and rename's new name). */
struct cm_call {
	uint8_t op;
	struct cm_name a, b;
};

/* What a call returned: ret (0 or a count, or -errno; a descriptor is 0;
 * getdents: the number of entries), and aux, what came with it, folded so
 * two results compare with ==.  times: stat's mtime and ctime change
 * counts, which the model compares and the kernel's results cannot. */
struct cm_result {
	int64_t ret;
	uint64_t aux;
	uint32_t times;
};

enum { CM_FREE, CM_REG, CM_DIRNODE, CM_LNK };

struct cm_node {
	uint8_t type, nlink;
	uint16_t mode;             /* permission bits */
	uint8_t size;              /* 0, 64 or 128 */
	char fill[2];              /* each 64-byte chunk holds one byte value */
	uint8_t target;            /* a symlink's: role CM_F of slot `target` */
	uint16_t mtime, ctime;     /* how many times each has changed */
};

struct commute_model {
	struct cm_node n[CM_NODES];    /* 0 and 1: d0 and d1 */
	uint8_t nnodes;
	int8_t ent[2][CM_NAMES];       /* the node a name names, -1: missing */
	int8_t fd[2];                  /* each side's descriptor: its node, -1: none */
	uint8_t pos[2];                /* and its position, in CM_DATA units */
};

/* The fill byte of the data side i writes (so two writers differ). */
#define CM_WRITE_FILL(i) ((char)('A' + (i)))

/* Whether a call uses a descriptor its process opened first, and how. */
bool cm_uses_fd(uint8_t op);
int cm_fd_flags(uint8_t op);        /* open() flags for it */

/* The tree for calls a and b (side 0 and 1): every name they use, each
 * side's descriptor open. */
void cm_init(struct commute_model *m, const struct cm_call *a, const struct cm_call *b);
/* Run call c as side `side` (0 or 1). */
void cm_apply(struct commute_model *m, const struct cm_call *c, unsigned side, struct cm_result *r);
/* Whether a and b commute from m; *ra and *rb get their results when run
 * a first. */
bool cm_commute(const struct commute_model *m, const struct cm_call *a, const struct cm_call *b,
		struct cm_result *ra, struct cm_result *rb);

/* The aux values, the same for the model and the kernel. */
uint64_t cm_stat_aux(uint32_t mode, uint32_t nlink, uint64_t size);
uint64_t cm_bytes_aux(const char *p, unsigned n);
uint64_t cm_name_aux(const char *name, unsigned len, unsigned dtype);   /* getdents: summed */

/* A name as the kernel sees it ("/cf/d0/f0", or "/cf/d1" for CM_DIR). */
void cm_path(const struct cm_name *n, char *buf, unsigned size);
void cm_name_str(const struct cm_name *n, char *buf, unsigned size);   /* "f0", ".": in its dir */

#endif
