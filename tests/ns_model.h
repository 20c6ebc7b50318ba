/*
 * ns_model.h: the namespace rules the tests' sequential models share: the
 * torture's (tests/vfs_model.c, a plain tree) and the fuzzer's
 * (tests/fuzz_model.c, a process with mounts, descriptors and two users).
 *
 * What it covers, with Linux's rules: nodes (type, link count, size,
 * permission bits and owner) and their names in directories; the walk
 * (symlinks and MAXSYMLINKS, ".", ".." at a mount root and at the root,
 * mount points crossed, a removed directory's lookups failing, search
 * permission for NS_USER); and the calls that make, remove or move a
 * name, each giving the error Linux gives first where several apply:
 * open(O_CREAT) through symlinks, mkdir and symlink, unlink and rmdir,
 * link, rename (its ancestor checks before its type checks), truncate.
 * Where the kernel has no Linux counterpart the rules follow the kernel:
 * a slowfs refuses every change with EPERM, a mount point is EBUSY.
 *
 * The rules see a model's tables through a struct ns, built for each call
 * and never stored: a model is plain data that its users copy with memcpy,
 * so it holds no pointers.  Each model picks its own table sizes.
 * A node with no name left is marked dead; freeing it is the model's
 * business (a dead directory or open file may still be used).
 */
#ifndef TESTS_NS_MODEL_H
#define TESTS_NS_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define NS_NAME 4                  /* a name's bytes with its NUL: the tests use 1 or 2 */
#define NS_TARGET 8                /* a symlink's target's, the same way */
#define NS_USER 1000               /* the other user: uid and gid 1000 ... */
#define NS_USER_GROUP 2000         /* ... and this supplementary group */

enum { NS_FREE, NS_DIR, NS_REG, NS_LNK };

struct ns_node {
	uint8_t type;
	uint8_t fs;                /* which filesystem: 0 the root one */
	bool slow;                 /* in a slowfs: every change is EPERM */
	bool dead;                 /* no name left (a model may keep it: open, cwd) */
	bool perm_unknown;         /* the fuzzer's: a slowfs file chmod'ed or chown'ed */
	uint16_t mode;             /* permission bits */
	uint32_t uid, gid;
	uint32_t nlink;
	uint64_t size;
	int parent;                /* directories: -1 for a filesystem's root */
	int mp;                    /* a mounted root: its mount point, else -1 */
	int mounted;               /* a mount point: the root mounted on it, else -1 */
	char target[NS_TARGET];
};

struct ns_entry {
	int dir;                   /* -1: free */
	int child;
	char name[NS_NAME];
};

/* One model's tables, as the rules see them during one call. */
struct ns {
	struct ns_node *n;
	struct ns_entry *e;
	int nodes, entries;
	bool *full;                /* set when a table runs out: results are no longer known */
	bool user;                 /* the call is NS_USER's: walks need search permission */
};

/* A directory root: node 0 of a model, or a mounted filesystem's. */
struct ns_node ns_root(uint8_t fs, bool slow, int mp);
/* A new node of type in dir's filesystem, or -1 (then *full is set). */
int ns_new_node(const struct ns *s, uint8_t type, int dir);
/* Name child in dir (a directory child: its parent and dir's nlink too). */
bool ns_add_entry(const struct ns *s, int dir, const char *name, int child);
int ns_lookup(const struct ns *s, int dir, const char *name, unsigned len);
bool ns_dir_empty(const struct ns *s, int dir);
/* A mount point leads to the root mounted on it. */
int ns_down(const struct ns_node *n, int x);

unsigned ns_comp_len(const char *p);
bool ns_is_dot(const char *p, unsigned len);
bool ns_is_dotdot(const char *p, unsigned len);
bool ns_may_search(const struct ns *s, int d);

/* The node path names from start (absolute paths from node 0), its last
 * component followed if follow; *links counts the symlinks followed. */
int ns_walk(const struct ns *s, int start, const char *path, bool follow, unsigned *links);

/* The calls, each from its own start (the cwd; rename and link have one
 * per path); 0 or a node on success, else -errno. */
int ns_create(const struct ns *s, int start, const char *path, int flags);   /* open(O_CREAT): the node */
int ns_mknod(const struct ns *s, int start, const char *path, uint8_t type, const char *target);
int ns_remove(const struct ns *s, int start, const char *path, bool rmdir);
int ns_link(const struct ns *s, int ostart, const char *oldpath, int nstart, const char *newpath);
int ns_rename(const struct ns *s, int ostart, const char *oldpath, int nstart, const char *newpath);
int ns_truncate(const struct ns *s, int node, int64_t len);

#endif
