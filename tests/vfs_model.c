/*
 * vfs_model.c: see vfs_model.h.  Directories' entries live in one table
 * of (directory, name, child); nodes are freed when their last name goes
 * (the torture holds no descriptor across calls).
 */
#include "tests/vfs_model.h"
#include "fs/fs.h"
#include "kernel/errno.h"
#include "kernel/string.h"

void tm_init(struct vfs_model *m)
{
	memset(m, 0, sizeof(*m));
	for (unsigned i = 0; i < TM_ENTRIES; i++)
		m->e[i].dir = -1;
	m->n[0] = (struct tm_node){ .type = TM_DIR, .nlink = 2, .parent = -1 };
}

static int lookup(struct vfs_model *m, int dir, const char *name, unsigned len)
{
	for (unsigned i = 0; i < TM_ENTRIES; i++)
		if (m->e[i].dir == dir && strlen(m->e[i].name) == len &&
		    !memcmp(m->e[i].name, name, len))
			return (int)i;
	return -1;
}

static int child_of(struct vfs_model *m, int dir, const char *name, unsigned len)
{
	int e = lookup(m, dir, name, len);
	return e < 0 ? -1 : m->e[e].child;
}

static const char *last_slash(const char *p)
{
	const char *s = NULL;
	for (; *p; p++)
		if (*p == '/')
			s = p;
	return s;
}

static unsigned comp_len(const char *p)
{
	unsigned n = 0;
	while (p[n] && p[n] != '/')
		n++;
	return n;
}

/* Walk path from dir; symlinks followed in every component but the last
 * unless follow; *links counts the ones followed (MAXSYMLINKS a walk). */
static int walk(struct vfs_model *m, int dir, const char *path, bool follow, unsigned *links)
{
	int cur = dir;
	for (const char *p = path;;) {
		unsigned len = comp_len(p);
		bool last = p[len] == 0;
		if (m->n[cur].type != TM_DIR)
			return -ENOTDIR;
		int c = child_of(m, cur, p, len);
		if (c < 0)
			return -ENOENT;
		if (m->n[c].type == TM_LNK && (!last || follow)) {
			if (++*links > MAXSYMLINKS)
				return -ELOOP;
			c = walk(m, cur, m->n[c].target, true, links);	/* relative to the link's dir */
			if (c < 0)
				return c;
		}
		if (last)
			return c;
		cur = c;
		p += len + 1;
	}
}

int tm_resolve(struct vfs_model *m, const char *path, bool follow)
{
	unsigned links = 0;
	return walk(m, 0, path, follow, &links);
}

/* The directory holding path's last component (from dir), which *last
 * points into; or -errno. */
static int parent(struct vfs_model *m, int dir, const char *path, const char **last,
		  unsigned *links)
{
	const char *slash = last_slash(path);
	*last = slash ? slash + 1 : path;
	if (!slash)
		return m->n[dir].type == TM_DIR ? dir : -ENOTDIR;
	char buf[64];
	unsigned len = (unsigned)(slash - path);
	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len);
	buf[len] = 0;
	int p = walk(m, dir, buf, true, links);
	if (p >= 0 && m->n[p].type != TM_DIR)
		return -ENOTDIR;
	return p;
}

static int new_node(struct vfs_model *m, uint8_t type)
{
	for (int i = 1; i < TM_NODES; i++)
		if (m->n[i].type == TM_FREE) {
			m->n[i] = (struct tm_node){ .type = type, .nlink = 1, .parent = -1 };
			return i;
		}
	m->full = true;
	return -1;
}

static bool add_entry(struct vfs_model *m, int dir, const char *name, int child)
{
	for (unsigned i = 0; i < TM_ENTRIES; i++)
		if (m->e[i].dir < 0) {
			m->e[i].dir = dir;
			m->e[i].child = child;
			strlcpy(m->e[i].name, name, TM_NAME);
			if (m->n[child].type == TM_DIR)
				m->n[child].parent = dir;
			return true;
		}
	m->full = true;
	return false;
}

static bool dir_empty(struct vfs_model *m, int dir)
{
	for (unsigned i = 0; i < TM_ENTRIES; i++)
		if (m->e[i].dir == dir)
			return false;
	return true;
}

/* Remove entry e; the node loses a name (a directory: itself and "."). */
static void drop_entry(struct vfs_model *m, int e)
{
	int c = m->e[e].child, dir = m->e[e].dir;
	m->e[e].dir = -1;
	if (m->n[c].type == TM_DIR) {
		m->n[dir].nlink--;	/* its ".." */
		m->n[c].type = TM_FREE;
	} else if (--m->n[c].nlink == 0) {
		m->n[c].type = TM_FREE;
	}
}

int tm_creat_write(struct vfs_model *m, const char *path, uint64_t len)
{
	unsigned links = 0;
	int start = 0;
	for (;;) {
		const char *last;
		int dir = parent(m, start, path, &last, &links);
		if (dir < 0)
			return dir;
		int c = child_of(m, dir, last, (unsigned)strlen(last));
		if (c < 0) {
			if ((c = new_node(m, TM_REG)) < 0 || !add_entry(m, dir, last, c))
				return -ENOSPC;	/* the model's limit, not the kernel's */
			m->n[c].size = len;
			return 0;
		}
		if (m->n[c].type == TM_LNK) {	/* followed, with create semantics */
			if (++links > MAXSYMLINKS)
				return -ELOOP;
			start = dir;
			path = m->n[c].target;
			continue;
		}
		if (m->n[c].type == TM_DIR)
			return -EISDIR;
		if (m->n[c].size < len)
			m->n[c].size = len;
		return 0;
	}
}

/* Parent and the entry of the last component (-1 if none), for the
 * calls that create or remove a name. */
static int parent_entry(struct vfs_model *m, const char *path, int *dir)
{
	const char *last;
	unsigned links = 0;
	*dir = parent(m, 0, path, &last, &links);
	if (*dir < 0)
		return -1;
	return lookup(m, *dir, last, (unsigned)strlen(last));
}

static const char *last_of(const char *path)
{
	const char *slash = last_slash(path);
	return slash ? slash + 1 : path;
}

int tm_mkdir(struct vfs_model *m, const char *path)
{
	int dir, e = parent_entry(m, path, &dir);
	if (dir < 0)
		return dir;
	if (e >= 0)
		return -EEXIST;
	int c = new_node(m, TM_DIR);
	if (c < 0 || !add_entry(m, dir, last_of(path), c))
		return -ENOSPC;
	m->n[c].nlink = 2;
	m->n[dir].nlink++;
	return 0;
}

int tm_symlink(struct vfs_model *m, const char *target, const char *path)
{
	int dir, e = parent_entry(m, path, &dir);
	if (dir < 0)
		return dir;
	if (e >= 0)
		return -EEXIST;
	int c = new_node(m, TM_LNK);
	if (c < 0 || !add_entry(m, dir, last_of(path), c))
		return -ENOSPC;
	strlcpy(m->n[c].target, target, TM_NAME);
	m->n[c].size = strlen(m->n[c].target);
	return 0;
}

int tm_rmdir(struct vfs_model *m, const char *path)
{
	int dir, e = parent_entry(m, path, &dir);
	if (dir < 0)
		return dir;
	if (e < 0)
		return -ENOENT;
	int c = m->e[e].child;
	if (m->n[c].type != TM_DIR)
		return -ENOTDIR;	/* a symlink to a directory too: not followed */
	if (!dir_empty(m, c))
		return -ENOTEMPTY;
	drop_entry(m, e);
	return 0;
}

int tm_unlink(struct vfs_model *m, const char *path)
{
	int dir, e = parent_entry(m, path, &dir);
	if (dir < 0)
		return dir;
	if (e < 0)
		return -ENOENT;
	if (m->n[m->e[e].child].type == TM_DIR)
		return -EISDIR;
	drop_entry(m, e);
	return 0;
}

/* link(2): the old path's last component is not followed; EEXIST is found
 * (when the new name is created) before vfs_link refuses a directory. */
int tm_link(struct vfs_model *m, const char *oldpath, const char *newpath)
{
	int old = tm_resolve(m, oldpath, false);
	if (old < 0)
		return old;
	int dir, e = parent_entry(m, newpath, &dir);
	if (dir < 0)
		return dir;
	if (e >= 0)
		return -EEXIST;
	if (m->n[old].type == TM_DIR)
		return -EPERM;
	if (!add_entry(m, dir, last_of(newpath), old))
		return -ENOSPC;
	m->n[old].nlink++;
	return 0;
}

static bool is_ancestor(struct vfs_model *m, int anc, int d)
{
	for (int p = m->n[d].parent; p >= 0; p = m->n[p].parent)
		if (p == anc)
			return true;
	return false;
}

/* The child of anc on the way down to d (anc a proper ancestor of d). */
static int child_toward(struct vfs_model *m, int anc, int d)
{
	while (m->n[d].parent != anc)
		d = m->n[d].parent;
	return d;
}

/*
 * rename(2) in Linux's order: both parents resolved (old's first), the
 * source must exist, then lock_rename's ancestor checks (the source an
 * ancestor of the target's directory: EINVAL; the target an ancestor of
 * the source's: ENOTEMPTY), then "same inode: nothing to do", then the
 * type checks (a directory over a non-directory: ENOTDIR; the other way:
 * EISDIR), then a non-empty directory target: ENOTEMPTY.
 */
int tm_rename(struct vfs_model *m, const char *oldpath, const char *newpath)
{
	int odir, ndir;
	int oe = parent_entry(m, oldpath, &odir);
	if (odir < 0)
		return odir;
	int ne = parent_entry(m, newpath, &ndir);
	if (ndir < 0)
		return ndir;
	if (oe < 0)
		return -ENOENT;
	int old = m->e[oe].child, new = ne >= 0 ? m->e[ne].child : -1;
	int trap = -1;
	if (odir != ndir) {
		if (is_ancestor(m, odir, ndir))
			trap = child_toward(m, odir, ndir);
		else if (is_ancestor(m, ndir, odir))
			trap = child_toward(m, ndir, odir);
	}
	if (old == trap)
		return -EINVAL;
	if (new >= 0 && new == trap)
		return -ENOTEMPTY;
	if (old == new)
		return 0;	/* two names of one inode (or the same name) */
	bool old_dir = m->n[old].type == TM_DIR;
	if (new >= 0 && old_dir && m->n[new].type != TM_DIR)
		return -ENOTDIR;
	if (new >= 0 && !old_dir && m->n[new].type == TM_DIR)
		return -EISDIR;
	if (new >= 0 && old_dir && !dir_empty(m, new))
		return -ENOTEMPTY;
	if (ne >= 0)
		drop_entry(m, ne);
	m->e[oe].dir = ndir;
	strlcpy(m->e[oe].name, last_of(newpath), TM_NAME);
	if (old_dir) {
		m->n[old].parent = ndir;
		m->n[odir].nlink--;
		m->n[ndir].nlink++;
	}
	return 0;
}

int tm_truncate(struct vfs_model *m, const char *path, uint64_t len)
{
	int c = tm_resolve(m, path, true);
	if (c < 0)
		return c;
	if (m->n[c].type == TM_DIR)
		return -EISDIR;
	m->n[c].size = len;
	return 0;
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
