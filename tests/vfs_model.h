/*
 * vfs_model.h: an exact, sequential model of a small directory tree, for
 * the torture (tests/test_vfs_stress.c).
 *
 * One CPU owns one subtree; the model says what each call on it must
 * return, errno for errno.  The rules are the namespace's
 * (tests/ns_model.h), on a plain tree: one filesystem, no mounts, root's
 * calls only, no descriptor held across calls.  Paths are relative to the
 * subtree's root and never use "." or ".."; symlink targets are relative
 * too, so nothing leaves the subtree.
 *
 * Not thread-safe: one model per thread.  Plain data: memcpy copies it.
 */
#ifndef TESTS_VFS_MODEL_H
#define TESTS_VFS_MODEL_H

#include "tests/ns_model.h"

#define TM_NODES 256
#define TM_ENTRIES 320

struct vfs_model {
	struct ns_node n[TM_NODES];
	struct ns_entry e[TM_ENTRIES];
	uint64_t ino[TM_NODES];    /* learnt from a node's first stat; 0 until then */
	bool full;                 /* ran out of slots: the model cannot go on */
};

void tm_init(struct vfs_model *m);      /* node 0: the subtree's root, empty */

/* The node path names (its last component followed if follow), or -errno. */
int tm_resolve(struct vfs_model *m, const char *path, bool follow);
/* The calls, each returning what Linux would (0 or -errno). */
int tm_creat_write(struct vfs_model *m, const char *path, uint64_t len);   /* open(O_CREAT|O_RDWR), write len at 0 */
int tm_mkdir(struct vfs_model *m, const char *path);
int tm_rmdir(struct vfs_model *m, const char *path);
int tm_unlink(struct vfs_model *m, const char *path);
int tm_symlink(struct vfs_model *m, const char *target, const char *path);
int tm_link(struct vfs_model *m, const char *oldpath, const char *newpath);
int tm_rename(struct vfs_model *m, const char *oldpath, const char *newpath);
int tm_truncate(struct vfs_model *m, const char *path, uint64_t len);

/* A directory's entries: calls fn(name, node) for each; returns how many. */
unsigned tm_list(struct vfs_model *m, int dir, void (*fn)(const char *name, int node, void *arg),
		 void *arg);

#endif
