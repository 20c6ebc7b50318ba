/*
 * vfs_model.c: see vfs_model.h.  Every path starts at node 0, and a node
 * is freed as soon as its last name goes: nothing else holds one.
 */
#include "tests/vfs_model.h"
#include "fs/syscalls.h"
#include "kernel/string.h"

/* The namespace rules' view of m. */
static struct ns view(struct vfs_model *m)
{
	return (struct ns){ m->n, m->e, TM_NODES, TM_ENTRIES, &m->full, false };
}

/* Free the nodes the call left without a name (and forget their inode
 * numbers: a new node may take the slot). */
static int reap(struct vfs_model *m, int ret)
{
	for (int i = 1; i < TM_NODES; i++)
		if (m->n[i].type != NS_FREE && m->n[i].dead) {
			m->n[i].type = NS_FREE;
			m->ino[i] = 0;
		}
	return ret;
}

void tm_init(struct vfs_model *m)
{
	memset(m, 0, sizeof(*m));
	for (unsigned i = 0; i < TM_ENTRIES; i++)
		m->e[i].dir = -1;
	m->n[0] = ns_root(0, false, -1);
}

int tm_resolve(struct vfs_model *m, const char *path, bool follow)
{
	struct ns s = view(m);
	unsigned links = 0;
	return ns_walk(&s, 0, path, follow, &links);
}

int tm_creat_write(struct vfs_model *m, const char *path, uint64_t len)
{
	struct ns s = view(m);
	int c = ns_create(&s, 0, path, O_CREAT | O_RDWR);
	if (c < 0)
		return c;
	if (m->n[c].size < len)
		m->n[c].size = len;
	return 0;
}

int tm_mkdir(struct vfs_model *m, const char *path)
{
	struct ns s = view(m);
	return ns_mknod(&s, 0, path, NS_DIR, NULL);
}

int tm_symlink(struct vfs_model *m, const char *target, const char *path)
{
	struct ns s = view(m);
	return ns_mknod(&s, 0, path, NS_LNK, target);
}

int tm_rmdir(struct vfs_model *m, const char *path)
{
	struct ns s = view(m);
	return reap(m, ns_remove(&s, 0, path, true));
}

int tm_unlink(struct vfs_model *m, const char *path)
{
	struct ns s = view(m);
	return reap(m, ns_remove(&s, 0, path, false));
}

int tm_link(struct vfs_model *m, const char *oldpath, const char *newpath)
{
	struct ns s = view(m);
	return ns_link(&s, 0, oldpath, 0, newpath);
}

int tm_rename(struct vfs_model *m, const char *oldpath, const char *newpath)
{
	struct ns s = view(m);
	return reap(m, ns_rename(&s, 0, oldpath, 0, newpath));
}

int tm_truncate(struct vfs_model *m, const char *path, uint64_t len)
{
	struct ns s = view(m);
	int c = tm_resolve(m, path, true);
	return c < 0 ? c : ns_truncate(&s, c, (int64_t)len);
}

unsigned tm_list(struct vfs_model *m, int dir, void (*fn)(const char *name, int node, void *arg),
		 void *arg)
{
	unsigned n = 0;
	for (unsigned i = 0; i < TM_ENTRIES; i++)
		if (m->e[i].dir == dir) {
			if (fn)
				fn(m->e[i].name, m->e[i].child, arg);
			n++;
		}
	return n;
}
