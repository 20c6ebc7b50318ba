/*
 * ns_model.c: see ns_model.h.  Entries are one table of (directory, name,
 * child), searched whole: the tables are small.
 */
#include "tests/ns_model.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/string.h"

#define UMASK 022                  /* the tests' threads' (root's, from boot) */

struct ns_node ns_root(uint8_t fs, bool slow, int mp)
{
	return (struct ns_node){ .type = NS_DIR, .fs = fs, .slow = slow, .mode = 0755, .nlink = 2,
				 .parent = -1, .mp = mp, .mounted = -1 };
}

int ns_new_node(const struct ns *s, uint8_t type, int dir)
{
	for (int i = 1; i < s->nodes; i++)
		if (s->n[i].type == NS_FREE) {
			uint16_t mode = type == NS_DIR ? 0755 & ~UMASK : type == NS_REG ? 0644 & ~UMASK : 0777;
			s->n[i] = (struct ns_node){ .type = type, .fs = s->n[dir].fs, .slow = s->n[dir].slow,
						    .mode = mode, .nlink = type == NS_DIR ? 2 : 1,
						    .parent = -1, .mp = -1, .mounted = -1 };
			return i;
		}
	*s->full = true;
	return -1;
}

int ns_lookup(const struct ns *s, int dir, const char *name, unsigned len)
{
	for (int i = 0; i < s->entries; i++)
		if (s->e[i].dir == dir && strlen(s->e[i].name) == len && !memcmp(s->e[i].name, name, len))
			return i;
	return -1;
}

bool ns_add_entry(const struct ns *s, int dir, const char *name, int child)
{
	for (int i = 0; i < s->entries; i++)
		if (s->e[i].dir < 0) {
			s->e[i] = (struct ns_entry){ dir, child, "" };
			strlcpy(s->e[i].name, name, NS_NAME);
			if (s->n[child].type == NS_DIR) {
				s->n[child].parent = dir;
				s->n[dir].nlink++;
			}
			return true;
		}
	*s->full = true;
	return false;
}

/* Entry e goes; its node loses a name (a directory dies with it, keeping
 * its parent for "..", as a removed dentry keeps d_parent). */
static void drop_entry(const struct ns *s, int e)
{
	int c = s->e[e].child, dir = s->e[e].dir;
	s->e[e].dir = -1;
	if (s->n[c].type == NS_DIR) {
		s->n[dir].nlink--;
		s->n[c].nlink = 0;
		s->n[c].dead = true;
	} else if (--s->n[c].nlink == 0) {
		s->n[c].dead = true;
	}
}

bool ns_dir_empty(const struct ns *s, int dir)
{
	for (int i = 0; i < s->entries; i++)
		if (s->e[i].dir == dir)
			return false;
	return true;
}

int ns_down(const struct ns_node *n, int x)
{
	while (n[x].mounted >= 0)
		x = n[x].mounted;
	return x;
}

/* ".." stays at the root (node 0); at a mounted root it leaves through
 * the mount point first. */
static int dotdot(const struct ns_node *n, int d)
{
	while (d != 0 && n[d].mp >= 0)
		d = n[d].mp;
	if (d == 0 || n[d].parent < 0)
		return d;
	return ns_down(n, n[d].parent);
}

unsigned ns_comp_len(const char *p)
{
	unsigned n = 0;
	while (p[n] && p[n] != '/')
		n++;
	return n;
}

bool ns_is_dot(const char *p, unsigned len)
{
	return len == 1 && p[0] == '.';
}

bool ns_is_dotdot(const char *p, unsigned len)
{
	return len == 2 && p[0] == '.' && p[1] == '.';
}

/* NS_USER's permission bits on node n, from the one class that applies
 * (POSIX). */
static unsigned user_bits(const struct ns_node *n)
{
	if (n->uid == NS_USER)
		return n->mode >> 6 & 7;
	if (n->gid == NS_USER || n->gid == NS_USER_GROUP)
		return n->mode >> 3 & 7;
	return n->mode & 7;
}

/* Search permission on directory d for the call's user (may_lookup);
 * root has it on every directory. */
bool ns_may_search(const struct ns *s, int d)
{
	return !s->user || (user_bits(&s->n[d]) & 1);
}

/* Symlinks are followed in every component but the last, and in the last
 * one if follow.  Every directory passed needs search permission (the
 * last component's too), as in Linux. */
int ns_walk(const struct ns *s, int start, const char *path, bool follow, unsigned *links)
{
	int cur = start;
	if (!*path)
		return -ENOENT;
	if (*path == '/')
		cur = 0;
	while (*path == '/')
		path++;
	if (!*path)
		return cur;
	for (;;) {
		unsigned len = ns_comp_len(path);
		const char *rest = path + len;
		while (*rest == '/')
			rest++;
		bool last = !*rest;
		if (s->n[cur].type != NS_DIR)
			return -ENOTDIR;
		if (!ns_may_search(s, cur))
			return -EACCES;
		int c;
		if (ns_is_dot(path, len)) {
			c = cur;
		} else if (ns_is_dotdot(path, len)) {
			c = dotdot(s->n, cur);
		} else {
			int e = s->n[cur].dead ? -1 : ns_lookup(s, cur, path, len);
			if (e < 0)
				return -ENOENT;
			c = ns_down(s->n, s->e[e].child);
			if (s->n[c].type == NS_LNK && (!last || follow)) {
				if (++*links > MAXSYMLINKS)
					return -ELOOP;
				c = ns_walk(s, cur, s->n[c].target, true, links);	/* from the link's directory */
				if (c < 0)
					return c;
			}
		}
		if (last)
			return c;
		cur = c;
		path = rest;
	}
}

/* The directory that holds path's last component, *last pointing to that
 * component in path; or -errno.  The tests never end a path with a slash. */
static int parent_from(const struct ns *s, int start, const char *path, const char **last,
		       unsigned *links)
{
	const char *slash = NULL;
	for (const char *p = path; *p; p++)
		if (*p == '/')
			slash = p;
	*last = slash ? slash + 1 : path;
	if (!slash)
		return start;
	if (slash == path)
		return 0;
	char buf[64];
	unsigned len = (unsigned)(slash - path);
	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len);
	buf[len] = 0;
	int d = ns_walk(s, start, buf, true, links);
	if (d >= 0 && s->n[d].type != NS_DIR)
		return -ENOTDIR;
	return d;
}

/* The entry named by path's last component, or -1; *dir its directory
 * (or -errno: then the call fails with it). */
static int parent_entry(const struct ns *s, int start, const char *path, int *dir, const char **last)
{
	unsigned links = 0;
	*dir = parent_from(s, start, path, last, &links);
	if (*dir < 0 || s->n[*dir].dead)
		return -1;
	return ns_lookup(s, *dir, *last, (unsigned)strlen(*last));
}

/* The directory a new name goes into (its last component in *last), or
 * the error every call that makes a name gives first: the walk's, then
 * EEXIST, then ENOENT for a removed directory. */
static int new_name(const struct ns *s, int start, const char *path, const char **last)
{
	int dir;
	int e = parent_entry(s, start, path, &dir, last);
	if (dir < 0)
		return dir;
	if (e >= 0)
		return -EEXIST;
	if (s->n[dir].dead)
		return -ENOENT;
	return dir;
}

/* open(O_CREAT) with flags: a symlink in the last component is followed
 * with create semantics (a dangling one creates its target). */
int ns_create(const struct ns *s, int start, const char *path, int flags)
{
	unsigned links = 0;
	for (;;) {
		const char *last;
		int dir = parent_from(s, start, path, &last, &links);
		if (dir < 0)
			return dir;
		unsigned ll = (unsigned)strlen(last);
		if (ns_is_dot(last, ll) || ns_is_dotdot(last, ll))	/* a link to "..": a directory */
			return flags & O_EXCL ? -EEXIST : -EISDIR;
		if (s->n[dir].dead)
			return -ENOENT;
		int e = ns_lookup(s, dir, last, ll), c;
		if (e < 0) {
			if (s->n[dir].slow)
				return -EPERM;
			if ((c = ns_new_node(s, NS_REG, dir)) < 0 || !ns_add_entry(s, dir, last, c))
				return -ENOSPC;	/* the model's limit, not the kernel's */
			return c;
		}
		if (flags & O_EXCL)
			return -EEXIST;
		c = ns_down(s->n, s->e[e].child);
		if (s->n[c].type == NS_LNK) {
			if (flags & O_NOFOLLOW)
				return -ELOOP;
			if (++links > MAXSYMLINKS)
				return -ELOOP;
			start = dir;
			path = s->n[c].target;
			continue;
		}
		return s->n[c].type == NS_DIR ? -EISDIR : c;
	}
}

/* mkdir (type NS_DIR) or symlink (NS_LNK, to target). */
int ns_mknod(const struct ns *s, int start, const char *path, uint8_t type, const char *target)
{
	const char *last;
	int dir = new_name(s, start, path, &last);
	if (dir < 0)
		return dir;
	if (s->n[dir].slow)
		return -EPERM;
	int n = ns_new_node(s, type, dir);
	if (n < 0 || !ns_add_entry(s, dir, last, n))
		return -ENOSPC;
	if (type == NS_LNK) {
		strlcpy(s->n[n].target, target, NS_TARGET);
		s->n[n].size = strlen(s->n[n].target);
	}
	return 0;
}

/* unlink, or rmdir if rmdir: the last component is neither followed nor
 * crossed (a symlink to a directory is not one). */
int ns_remove(const struct ns *s, int start, const char *path, bool rmdir)
{
	int dir;
	const char *last;
	int e = parent_entry(s, start, path, &dir, &last);
	if (dir < 0)
		return dir;
	if (e < 0)
		return -ENOENT;
	int v = s->e[e].child;
	bool isdir = s->n[v].type == NS_DIR;
	if (!rmdir && isdir)
		return -EISDIR;
	if (rmdir && !isdir)
		return -ENOTDIR;
	if (s->n[dir].slow)
		return -EPERM;
	if (s->n[v].mounted >= 0)
		return -EBUSY;
	if (isdir && !ns_dir_empty(s, v))
		return -ENOTEMPTY;
	drop_entry(s, e);
	return 0;
}

/* link(2): the old path's last component is not followed; EEXIST is found
 * (when the new name is made) before vfs_link refuses a directory. */
int ns_link(const struct ns *s, int ostart, const char *oldpath, int nstart, const char *newpath)
{
	unsigned links = 0;
	int old = ns_walk(s, ostart, oldpath, false, &links);
	if (old < 0)
		return old;
	const char *last;
	int dir = new_name(s, nstart, newpath, &last);
	if (dir < 0)
		return dir;
	if (s->n[old].fs != s->n[dir].fs)
		return -EXDEV;
	if (s->n[old].type == NS_DIR)
		return -EPERM;
	if (s->n[dir].slow)
		return -EPERM;
	if (!ns_add_entry(s, dir, last, old))
		return -ENOSPC;
	s->n[old].nlink++;
	return 0;
}

static bool is_ancestor(const struct ns *s, int anc, int d)
{
	for (int p = s->n[d].parent; p >= 0; p = s->n[p].parent)
		if (p == anc)
			return true;
	return false;
}

/* The child of anc on the way down to d (anc a proper ancestor of d). */
static int child_toward(const struct ns *s, int anc, int d)
{
	while (s->n[d].parent != anc)
		d = s->n[d].parent;
	return d;
}

/*
 * rename(2) in Linux's order: both parents resolved (old's first), the
 * same filesystem (EXDEV), the source exists, the target's directory is
 * alive, then lock_rename's ancestor checks (the source an ancestor of the
 * target's directory: EINVAL; the target an ancestor of the source's:
 * ENOTEMPTY), then "same inode: nothing to do", then the type checks (a
 * directory over a non-directory: ENOTDIR; the other way: EISDIR), a
 * slowfs (EPERM), a mount point (EBUSY), a non-empty directory target.
 */
int ns_rename(const struct ns *s, int ostart, const char *oldpath, int nstart, const char *newpath)
{
	int odir, ndir;
	const char *olast, *nlast;
	int oe = parent_entry(s, ostart, oldpath, &odir, &olast);
	if (odir < 0)
		return odir;
	int ne = parent_entry(s, nstart, newpath, &ndir, &nlast);
	if (ndir < 0)
		return ndir;
	if (s->n[odir].fs != s->n[ndir].fs)
		return -EXDEV;
	if (oe < 0 || s->n[ndir].dead)
		return -ENOENT;
	int old = s->e[oe].child, new = ne >= 0 ? s->e[ne].child : -1, trap = -1;
	if (odir != ndir) {
		if (is_ancestor(s, odir, ndir))
			trap = child_toward(s, odir, ndir);
		else if (is_ancestor(s, ndir, odir))
			trap = child_toward(s, ndir, odir);
	}
	if (old == trap)
		return -EINVAL;
	if (new >= 0 && new == trap)
		return -ENOTEMPTY;
	if (old == new)
		return 0;	/* two names of one inode (or the same name) */
	bool old_dir = s->n[old].type == NS_DIR;
	if (new >= 0 && old_dir && s->n[new].type != NS_DIR)
		return -ENOTDIR;
	if (new >= 0 && !old_dir && s->n[new].type == NS_DIR)
		return -EISDIR;
	if (s->n[odir].slow)
		return -EPERM;
	if (s->n[old].mounted >= 0 || (new >= 0 && s->n[new].mounted >= 0))
		return -EBUSY;
	if (new >= 0 && old_dir && !ns_dir_empty(s, new))
		return -ENOTEMPTY;
	if (ne >= 0)
		drop_entry(s, ne);
	s->e[oe].dir = ndir;
	strlcpy(s->e[oe].name, nlast, NS_NAME);
	if (old_dir) {
		s->n[old].parent = ndir;
		s->n[odir].nlink--;
		s->n[ndir].nlink++;
	}
	return 0;
}

int ns_truncate(const struct ns *s, int node, int64_t len)
{
	if (s->n[node].type == NS_DIR)
		return -EISDIR;
	if (len < 0)
		return -EINVAL;
	if (s->n[node].slow)
		return -EINVAL;	/* slowfs files cannot be truncated */
	s->n[node].size = (uint64_t)len;
	return 0;
}
