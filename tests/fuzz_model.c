/*
 * fuzz_model.c: see fuzz_model.h.  Entries are one table of (directory,
 * name, child); a node nothing can reach any more (no name, no open file,
 * not the cwd, not the parent of one of those) is freed after each call.
 */
#include "tests/fuzz_model.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

#define SLOWFS_NAMES 2             /* the fuzzer mounts slowfs with names=2 */
#define UMASK 022                  /* the fuzzer's threads' (root's, from boot) */

/* The task making the call being applied: its cwd and descriptors. */
static struct fm_task *task(struct fuzz_model *m)
{
	return &m->t[m->cur];
}

static const struct fm_task *ctask(const struct fuzz_model *m)
{
	return &m->t[m->cur];
}

static int new_node(struct fuzz_model *m, uint8_t type, int dir)
{
	for (int i = 1; i < FM_NODES; i++)
		if (m->n[i].type == FM_FREE) {
			uint16_t mode = type == FM_DIR ? 0755 & ~UMASK : type == FM_REG ? 0644 & ~UMASK : 0777;
			m->n[i] = (struct fm_node){ .type = type, .fs = m->n[dir].fs, .slow = m->n[dir].slow,
						    .mode = mode, .nlink = type == FM_DIR ? 2 : 1,
						    .parent = -1, .mp = -1, .mounted = -1 };
			return i;
		}
	m->full = true;
	return -1;
}

static int lookup(const struct fuzz_model *m, int dir, const char *name, unsigned len)
{
	for (int i = 0; i < FM_ENTRIES; i++)
		if (m->e[i].dir == dir && strlen(m->e[i].name) == len && !memcmp(m->e[i].name, name, len))
			return i;
	return -1;
}

static bool add_entry(struct fuzz_model *m, int dir, const char *name, int child)
{
	for (int i = 0; i < FM_ENTRIES; i++)
		if (m->e[i].dir < 0) {
			m->e[i] = (struct fm_entry){ dir, child, "" };
			strlcpy(m->e[i].name, name, FM_NAME);
			if (m->n[child].type == FM_DIR) {
				m->n[child].parent = dir;
				m->n[dir].nlink++;
			}
			return true;
		}
	m->full = true;
	return false;
}

/* Entry e goes; its node loses a name (a directory dies with it, keeping
 * its parent for "..", as a removed dentry keeps d_parent). */
static void drop_entry(struct fuzz_model *m, int e)
{
	int c = m->e[e].child, dir = m->e[e].dir;
	m->e[e].dir = -1;
	if (m->n[c].type == FM_DIR) {
		m->n[dir].nlink--;
		m->n[c].nlink = 0;
		m->n[c].dead = true;
	} else if (--m->n[c].nlink == 0) {
		m->n[c].dead = true;
	}
}

static bool dir_empty(const struct fuzz_model *m, int dir)
{
	for (int i = 0; i < FM_ENTRIES; i++)
		if (m->e[i].dir == dir)
			return false;
	return true;
}

/* A mount point leads to the root mounted on it. */
static int down(const struct fuzz_model *m, int n)
{
	while (m->n[n].mounted >= 0)
		n = m->n[n].mounted;
	return n;
}

/* ".." stays at the process's root; at a mounted root it leaves through
 * the mount point first. */
static int dotdot(const struct fuzz_model *m, int d)
{
	while (d != 0 && m->n[d].mp >= 0)
		d = m->n[d].mp;
	if (d == 0 || m->n[d].parent < 0)
		return d;
	return down(m, m->n[d].parent);
}

static unsigned comp_len(const char *p)
{
	unsigned n = 0;
	while (p[n] && p[n] != '/')
		n++;
	return n;
}

static bool is_dot(const char *p, unsigned len)
{
	return len == 1 && p[0] == '.';
}

static bool is_dotdot(const char *p, unsigned len)
{
	return len == 2 && p[0] == '.' && p[1] == '.';
}

/* FM_USER's permission bits on node n (root's: all of them, for a
 * directory), from the one class that applies (POSIX). */
static unsigned user_bits(const struct fm_node *n)
{
	if (n->uid == FM_USER)
		return n->mode >> 6 & 7;
	if (n->gid == FM_USER || n->gid == FM_USER_GROUP)
		return n->mode >> 3 & 7;
	return n->mode & 7;
}

/* Search permission on directory d for the call's user (may_lookup). */
static bool may_search(const struct fuzz_model *m, int d)
{
	return !m->user || (user_bits(&m->n[d]) & 1);
}

/* Walk path from start (absolute paths from the root); symlinks are
 * followed in every component, and in the last one if follow; *links
 * counts the ones followed in the whole walk.  Every directory passed
 * needs search permission (the last component's too), as in Linux. */
static int walk(const struct fuzz_model *m, int start, const char *path, bool follow, unsigned *links)
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
		unsigned len = comp_len(path);
		const char *rest = path + len;
		while (*rest == '/')
			rest++;
		bool last = !*rest;
		if (m->n[cur].type != FM_DIR)
			return -ENOTDIR;
		if (!may_search(m, cur))
			return -EACCES;
		int c;
		if (is_dot(path, len)) {
			c = cur;
		} else if (is_dotdot(path, len)) {
			c = dotdot(m, cur);
		} else {
			int e = m->n[cur].dead ? -1 : lookup(m, cur, path, len);
			if (e < 0)
				return -ENOENT;
			c = down(m, m->e[e].child);
			if (m->n[c].type == FM_LNK && (!last || follow)) {
				if (++*links > MAXSYMLINKS)
					return -ELOOP;
				c = walk(m, cur, m->n[c].target, true, links);
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

static int resolve(const struct fuzz_model *m, const char *path, bool follow)
{
	unsigned links = 0;
	return walk(m, ctask(m)->cwd, path, follow, &links);
}

/* The directory that holds path's last component, *last pointing to that
 * component in path; or -errno.  The generator never ends a path with a
 * slash. */
static int parent_from(const struct fuzz_model *m, int start, const char *path, const char **last,
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
	char buf[FM_PATH + FM_TARGET];
	unsigned len = (unsigned)(slash - path);
	memcpy(buf, path, len);
	buf[len] = 0;
	int d = walk(m, start, buf, true, links);
	if (d >= 0 && m->n[d].type != FM_DIR)
		return -ENOTDIR;
	return d;
}

/* Where a relative path starts: the call's cwd, or for its second path
 * (rename's and link's new name) second_cwd if the fuzzer set one: a
 * call that walks two paths reads the cwd once for each. */
static int start_of(const struct fuzz_model *m, bool second)
{
	return second && m->second_cwd >= 0 ? m->second_cwd : ctask(m)->cwd;
}

static int parent_of(const struct fuzz_model *m, const char *path, const char **last, bool second)
{
	unsigned links = 0;
	return parent_from(m, start_of(m, second), path, last, &links);
}

/* The entry named by path's last component, or -1; *dir its directory
 * (or -errno: then the call fails with it). */
static int parent_entry(const struct fuzz_model *m, const char *path, int *dir, const char **last,
			bool second)
{
	*dir = parent_of(m, path, last, second);
	if (*dir < 0 || m->n[*dir].dead)
		return -1;
	return lookup(m, *dir, *last, (unsigned)strlen(*last));
}

static int fd_alloc(struct fuzz_model *m, int node, int flags)
{
	struct fm_fd *fd = task(m)->fd;
	for (int i = 0; i < FM_FDS; i++)
		if (fd[i].node < 0) {
			fd[i] = (struct fm_fd){ node, flags, 0 };
			return i;
		}
	m->full = true;
	return -EMFILE;
}

static struct fm_fd *fd_get(struct fuzz_model *m, int fd)
{
	struct fm_fd *t = task(m)->fd;
	return fd >= 0 && fd < FM_FDS && t[fd].node >= 0 ? &t[fd] : NULL;
}

uint64_t fm_stat_aux(unsigned type, uint32_t nlink, uint64_t size, uint32_t mode, uint32_t uid,
		     uint32_t gid)
{
	/* The owner's IDs are few (0, FM_USER, FM_USER + 1, FM_USER_GROUP,
	 * ...): eleven bits each keep them apart. */
	return type | (uint64_t)nlink << 4 | (size & 0xfff) << 12 | (uint64_t)(mode & 07777) << 24 |
	       (uint64_t)(uid & 0x7ff) << 36 | (uint64_t)(gid & 0x7ff) << 47;
}

uint64_t fm_name_hash(const char *s, unsigned len)
{
	uint64_t h = 1469598103934665603ULL;
	for (unsigned i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ULL;
	return h;
}

static uint64_t node_aux(const struct fuzz_model *m, int c)
{
	const struct fm_node *n = &m->n[c];
	return fm_stat_aux(n->type, n->nlink, n->type == FM_DIR ? 0 : n->size, n->mode, n->uid, n->gid);
}

uint64_t fm_node_aux(const struct fuzz_model *m, int node)
{
	if (node < 0 || node >= FM_NODES || m->n[node].type == FM_FREE)
		return FM_ANY;
	return m->n[node].perm_unknown ? FM_ANY : node_aux(m, node);
}

/* ---- the calls ---------------------------------------------------------- */

static int64_t do_open(struct fuzz_model *m, const char *path, int flags)
{
	int acc = flags & O_ACCMODE, c;
	if (flags & O_CREAT) {
		unsigned links = 0;
		int start = ctask(m)->cwd;
		for (;;) {
			const char *last;
			int dir = parent_from(m, start, path, &last, &links);
			if (dir < 0)
				return dir;
			unsigned ll = (unsigned)strlen(last);
			if (is_dot(last, ll) || is_dotdot(last, ll))	/* a link to "..": a directory */
				return flags & O_EXCL ? -EEXIST : -EISDIR;
			if (m->n[dir].dead)
				return -ENOENT;
			int e = lookup(m, dir, last, (unsigned)strlen(last));
			if (e < 0) {
				if (m->n[dir].slow)
					return -EPERM;
				if ((c = new_node(m, FM_REG, dir)) < 0 || !add_entry(m, dir, last, c))
					return -ENOSPC;
				break;
			}
			if (flags & O_EXCL)
				return -EEXIST;
			c = down(m, m->e[e].child);
			if (m->n[c].type == FM_LNK) {	/* followed with create semantics */
				if (flags & O_NOFOLLOW)
					return -ELOOP;
				if (++links > MAXSYMLINKS)
					return -ELOOP;
				start = dir;
				path = m->n[c].target;
				continue;
			}
			if (m->n[c].type == FM_DIR)
				return -EISDIR;
			break;
		}
	} else {
		c = resolve(m, path, !(flags & O_NOFOLLOW));
		if (c < 0)
			return c;
		if (m->n[c].type == FM_LNK)
			return -ELOOP;
		if ((flags & O_DIRECTORY) && m->n[c].type != FM_DIR)
			return -ENOTDIR;
		if (m->n[c].type == FM_DIR && (acc != O_RDONLY || (flags & O_TRUNC)))
			return -EISDIR;
	}
	if ((flags & O_TRUNC) && m->n[c].type == FM_REG)
		m->n[c].size = 0;
	return fd_alloc(m, c, flags);
}

static int64_t do_rw(struct fuzz_model *m, const struct fz_call *c)
{
	struct fm_fd *f = fd_get(m, c->fd);
	bool wr = c->op == FZ_WRITE || c->op == FZ_PWRITE;
	bool positional = c->op == FZ_PREAD || c->op == FZ_PWRITE;
	if (positional && c->n < 0)
		return -EINVAL;	/* before the descriptor */
	if (!f || (f->flags & O_ACCMODE) == (wr ? O_RDONLY : O_WRONLY))
		return -EBADF;
	struct fm_node *n = &m->n[f->node];
	if (n->type == FM_DIR)
		return -EISDIR;
	if (n->slow)
		return -EINVAL;	/* slowfs files can be neither read nor written */
	int64_t pos = positional ? c->n : f->pos, len = 5;	/* every read and write is 5 bytes */
	if (wr) {
		if (f->flags & O_APPEND)
			pos = (int64_t)n->size;	/* pwrite too, as Linux does */
		if ((uint64_t)(pos + len) > n->size)
			n->size = (uint64_t)(pos + len);
	} else {
		len = pos >= (int64_t)n->size ? 0 : (int64_t)n->size - pos < len ? (int64_t)n->size - pos : len;
	}
	if (!positional)
		f->pos = pos + len;
	return len;
}

static int64_t do_lseek(struct fuzz_model *m, const struct fz_call *c)
{
	struct fm_fd *f = fd_get(m, c->fd);
	if (!f)
		return -EBADF;
	if (m->n[f->node].type == FM_DIR) {
		if (c->flags == SEEK_SET && c->n == 0)
			return f->pos = 0;
		f->pos = -1;
		return FM_ANY;
	}
	int64_t base = c->flags == SEEK_SET ? 0 : c->flags == SEEK_CUR ? f->pos : (int64_t)m->n[f->node].size;
	if (base + c->n < 0)
		return -EINVAL;
	return f->pos = base + c->n;
}

static int64_t do_getdents(struct fuzz_model *m, const struct fz_call *c, uint64_t *aux)
{
	struct fm_fd *f = fd_get(m, c->fd);
	if (!f)
		return -EBADF;
	int d = f->node;
	if (m->n[d].type != FM_DIR)
		return -ENOTDIR;
	if (m->n[d].dead)
		return -ENOENT;
	if (f->pos < 0)
		return FM_ANY;
	if (f->pos > 0)
		return 0;	/* read to the end already */
	f->pos = 1;
	/* ".", ".." and the entries: 24-byte records (names under 5 bytes). */
	unsigned count = 2;
	*aux = fm_name_hash(".", 1) + fm_name_hash("..", 2);
	for (int i = 0; i < FM_ENTRIES; i++)
		if (m->e[i].dir == d) {
			count++;
			*aux += fm_name_hash(m->e[i].name, (unsigned)strlen(m->e[i].name));
		}
	return 24 * count;
}

/* The directory a new name goes into (its last component in *last), or
 * the error every call that makes a name gives first: the walk's, then
 * EEXIST, then ENOENT for a removed directory. */
static int new_name(struct fuzz_model *m, const char *path, const char **last, bool second)
{
	int dir;
	int e = parent_entry(m, path, &dir, last, second);
	if (dir < 0)
		return dir;
	if (e >= 0)
		return -EEXIST;
	if (m->n[dir].dead)
		return -ENOENT;
	return dir;
}

static int64_t do_mkdir_symlink(struct fuzz_model *m, const struct fz_call *c)
{
	const char *last;
	int dir = new_name(m, c->a, &last, false);
	if (dir < 0)
		return dir;
	if (m->n[dir].slow)
		return -EPERM;
	int n = new_node(m, c->op == FZ_MKDIR ? FM_DIR : FM_LNK, dir);
	if (n < 0 || !add_entry(m, dir, last, n))
		return -ENOSPC;
	if (c->op == FZ_SYMLINK) {
		strlcpy(m->n[n].target, c->b, FM_TARGET);
		m->n[n].size = strlen(m->n[n].target);
	}
	return 0;
}

static int64_t do_remove(struct fuzz_model *m, const struct fz_call *c)
{
	int dir;
	const char *last;
	int e = parent_entry(m, c->a, &dir, &last, false);
	if (dir < 0)
		return dir;
	if (e < 0)
		return -ENOENT;
	int v = m->e[e].child;	/* not followed, not crossed */
	bool isdir = m->n[v].type == FM_DIR;
	if (c->op == FZ_UNLINK && isdir)
		return -EISDIR;
	if (c->op == FZ_RMDIR && !isdir)
		return -ENOTDIR;
	if (m->n[dir].slow)
		return -EPERM;
	if (m->n[v].mounted >= 0)
		return -EBUSY;
	if (isdir && !dir_empty(m, v))
		return -ENOTEMPTY;
	drop_entry(m, e);
	return 0;
}

static int64_t do_link(struct fuzz_model *m, const struct fz_call *c)
{
	int old = resolve(m, c->a, false);
	if (old < 0)
		return old;
	const char *last;
	int dir = new_name(m, c->b, &last, true);
	if (dir < 0)
		return dir;
	if (m->n[old].fs != m->n[dir].fs)
		return -EXDEV;
	if (m->n[old].type == FM_DIR)
		return -EPERM;
	if (m->n[dir].slow)
		return -EPERM;
	if (!add_entry(m, dir, last, old))
		return -ENOSPC;
	m->n[old].nlink++;
	return 0;
}

static bool is_ancestor(const struct fuzz_model *m, int anc, int d)
{
	for (int p = m->n[d].parent; p >= 0; p = m->n[p].parent)
		if (p == anc)
			return true;
	return false;
}

static int child_toward(const struct fuzz_model *m, int anc, int d)
{
	while (m->n[d].parent != anc)
		d = m->n[d].parent;
	return d;
}

/* rename(2) in Linux's order: both parents, the same filesystem (EXDEV),
 * the source exists, the target's directory is alive, lock_rename's
 * ancestor checks, same inode: nothing to do, the type checks, a mount
 * point (EBUSY), a non-empty directory target. */
static int64_t do_rename(struct fuzz_model *m, const struct fz_call *c)
{
	int odir, ndir;
	const char *olast, *nlast;
	int oe = parent_entry(m, c->a, &odir, &olast, false);
	if (odir < 0)
		return odir;
	int ne = parent_entry(m, c->b, &ndir, &nlast, true);
	if (ndir < 0)
		return ndir;
	if (m->n[odir].fs != m->n[ndir].fs)
		return -EXDEV;
	if (oe < 0)
		return -ENOENT;
	if (m->n[ndir].dead)
		return -ENOENT;
	int old = m->e[oe].child, new = ne >= 0 ? m->e[ne].child : -1, trap = -1;
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
		return 0;
	bool old_dir = m->n[old].type == FM_DIR;
	if (new >= 0 && old_dir && m->n[new].type != FM_DIR)
		return -ENOTDIR;
	if (new >= 0 && !old_dir && m->n[new].type == FM_DIR)
		return -EISDIR;
	if (m->n[odir].slow)
		return -EPERM;
	if (m->n[old].mounted >= 0 || (new >= 0 && m->n[new].mounted >= 0))
		return -EBUSY;
	if (new >= 0 && old_dir && !dir_empty(m, new))
		return -ENOTEMPTY;
	if (ne >= 0)
		drop_entry(m, ne);
	m->e[oe].dir = ndir;
	strlcpy(m->e[oe].name, nlast, FM_NAME);
	if (old_dir) {
		m->n[old].parent = ndir;
		m->n[odir].nlink--;
		m->n[ndir].nlink++;
	}
	return 0;
}

static int64_t do_truncate(struct fuzz_model *m, int node, int64_t len)
{
	if (m->n[node].type == FM_DIR)
		return -EISDIR;
	if (len < 0)
		return -EINVAL;
	if (m->n[node].slow)
		return -EINVAL;	/* slowfs files cannot be truncated */
	m->n[node].size = (uint64_t)len;
	return 0;
}

static void make_root(struct fuzz_model *m, int r, int mp, bool slow)
{
	m->n[r] = (struct fm_node){ .type = FM_DIR, .fs = m->next_fs++, .slow = slow, .mode = 0755,
				    .nlink = 2, .parent = -1, .mp = mp, .mounted = -1 };
	if (mp >= 0)
		m->n[mp].mounted = r;
	for (int i = 0; slow && i < SLOWFS_NAMES; i++) {
		int f = new_node(m, FM_REG, r);
		char name[FM_NAME] = { 'f', (char)('0' + i), 0 };
		if (f >= 0)
			add_entry(m, r, name, f);
	}
}

static int64_t do_mount(struct fuzz_model *m, const struct fz_call *c)
{
	int d = resolve(m, c->a, true);
	if (d < 0)
		return d;
	if (m->n[d].type != FM_DIR)
		return -ENOTDIR;
	if (d == 0 || m->n[d].mp >= 0)
		return -EBUSY;	/* a mounted root: no stacking */
	if (m->n[d].dead)
		return -ENOENT;
	int r = new_node(m, FM_DIR, d);
	if (r < 0)
		return -ENOSPC;
	make_root(m, r, d, c->flags == 1);
	return 0;
}

static bool fs_busy(const struct fuzz_model *m, uint8_t fs)
{
	for (int t = 0; t < FM_TASKS; t++) {
		const struct fm_task *k = &m->t[t];
		if (m->n[k->cwd].fs == fs)
			return true;
		for (int i = 0; i < FM_FDS; i++)
			if (k->fd[i].node >= 0 && m->n[k->fd[i].node].fs == fs)
				return true;
	}
	for (int i = 0; i < FM_NODES; i++)
		if (m->n[i].type != FM_FREE && m->n[i].fs == fs && m->n[i].mounted >= 0)
			return true;
	return false;
}

static int64_t do_umount(struct fuzz_model *m, const struct fz_call *c)
{
	int d = resolve(m, c->a, true);
	if (d < 0)
		return d;
	if (d != 0 && m->n[d].mp < 0)
		return -EINVAL;	/* not the root of a mount */
	if (d == 0 || fs_busy(m, m->n[d].fs))
		return -EBUSY;
	uint8_t fs = m->n[d].fs;
	m->n[m->n[d].mp].mounted = -1;
	for (int i = 0; i < FM_ENTRIES; i++)
		if (m->e[i].dir >= 0 && m->n[m->e[i].dir].fs == fs)
			m->e[i].dir = -1;
	for (int i = 0; i < FM_NODES; i++)
		if (m->n[i].type != FM_FREE && m->n[i].fs == fs)
			m->n[i].type = FM_FREE;
	return 0;
}

/* Free what nothing reaches: the tree from the root (and mounts), open
 * files, the cwd, and the parents removed directories keep for "..". */
static bool mark(bool *keep, int x)
{
	if (x < 0 || keep[x])
		return false;
	keep[x] = true;
	return true;
}

static void collect(struct fuzz_model *m)
{
	bool keep[FM_NODES] = { false };
	mark(keep, 0);
	for (int t = 0; t < FM_TASKS; t++) {
		mark(keep, m->t[t].cwd);
		mark(keep, m->t[t].pin);
		for (int i = 0; i < FM_FDS; i++)
			mark(keep, m->t[t].fd[i].node);
	}
	/* Until nothing more is reached: a few passes, the tree is shallow. */
	for (bool more = true; more;) {
		more = false;
		for (int x = 0; x < FM_NODES; x++) {
			if (!keep[x])
				continue;
			const struct fm_node *n = &m->n[x];
			more |= mark(keep, n->parent) | mark(keep, n->mp) | mark(keep, n->mounted);
		}
		for (int i = 0; i < FM_ENTRIES; i++)
			if (m->e[i].dir >= 0 && keep[m->e[i].dir])
				more |= mark(keep, m->e[i].child);
	}
	for (int i = 0; i < FM_NODES; i++)
		if (!keep[i])
			m->n[i].type = FM_FREE;
}

void fm_init(struct fuzz_model *m)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < FM_ENTRIES; i++)
		m->e[i].dir = -1;
	for (int t = 0; t < FM_TASKS; t++) {
		for (int i = 0; i < FM_FDS; i++)
			m->t[t].fd[i].node = -1;
		m->t[t].pin = -1;
	}
	m->second_cwd = -1;
	make_root(m, 0, -1, false);
	int a = new_node(m, FM_DIR, 0), x = new_node(m, FM_REG, 0), l = new_node(m, FM_LNK, 0);
	int s = new_node(m, FM_DIR, 0), sr = new_node(m, FM_DIR, 0);
	int b = new_node(m, FM_DIR, 0);
	add_entry(m, 0, "a", a);
	add_entry(m, 0, "b", b);
	add_entry(m, a, "x", x);
	m->n[x].size = 3;
	add_entry(m, 0, "l", l);
	strlcpy(m->n[l].target, "a", FM_TARGET);
	m->n[l].size = 1;
	add_entry(m, 0, "s", s);
	make_root(m, sr, s, true);
}

/*
 * stat or lstat of c's path with the part before its n-th ".." walked in
 * state early and the rest in m: Linux's reference walk reads each
 * d_parent only when it gets there, so a walk that went down into a
 * directory before a rename moved it climbs out to the new parent.
 * false if the path has no such "..", or nothing before it.
 */
bool fm_stat_split(const struct fuzz_model *early, const struct fuzz_model *m, const struct fz_call *c,
		   unsigned n, struct fz_result *r)
{
	const char *p = c->a, *at = NULL;
	for (unsigned seen = 0; *p && !at;) {
		while (*p == '/')
			p++;
		unsigned len = comp_len(p);
		if (is_dotdot(p, len) && seen++ == n)
			at = p;
		p += len;
	}
	if (!at || at == c->a || (at == c->a + 1 && c->a[0] == '/'))
		return false;
	char prefix[FM_PATH];
	memcpy(prefix, c->a, (size_t)(at - c->a));
	prefix[at - c->a] = '\0';
	static struct fuzz_model e;	/* the callers hold no lock, but run one at a time: judge_tuple */
	memcpy(&e, early, sizeof(e));
	e.cur = c->tg;
	e.user = c->user;
	unsigned links = 0;
	int d = walk(&e, e.t[c->tg].cwd, prefix, true, &links);
	r->aux = 0;
	r->node = -1;
	if (d < 0 || e.n[d].type != FM_DIR || m->n[d].type != FM_DIR)
		return false;
	memcpy(&e, m, sizeof(e));
	e.cur = c->tg;
	e.user = c->user;
	int node = walk(&e, d, at, c->op == FZ_STAT, &links);
	r->ret = node < 0 ? node : m->n[node].perm_unknown ? FM_ANY : 0;
	if (node >= 0) {
		r->aux = fm_node_aux(m, node);
		r->node = node;
	}
	return true;
}

/* A walk of path by task tg (as FM_USER if user) whose first n components
 * were walked in state early and the rest in m: Linux's walk takes one
 * component at a time, so a change between two of them (a rename that
 * replaces a symlink the walk already followed) shows in its result.
 * Returns false if path has no such split; else true, *err the error the
 * rest gives, 0 if it reaches a node, and *at_last whether the error came
 * from the last component's lookup. */
bool fm_walk_split(const struct fuzz_model *early, const struct fuzz_model *m, unsigned tg, bool user,
		   const char *path, unsigned n, int *err, bool *at_last)
{
	const char *p = path;
	for (unsigned seen = 0; seen < n; seen++) {
		while (*p == '/')
			p++;
		if (!*p)
			return false;
		p += comp_len(p);
	}
	const char *rest = p;
	while (*rest == '/')
		rest++;
	if (n == 0 || !*rest)
		return false;
	char prefix[FM_PATH];
	memcpy(prefix, path, (size_t)(p - path));
	prefix[p - path] = '\0';
	static struct fuzz_model e;	/* the judge runs one tuple at a time */
	memcpy(&e, early, sizeof(e));
	e.cur = tg;
	e.user = user;
	unsigned links = 0;
	int d = walk(&e, e.t[tg].cwd, prefix, true, &links);
	if (d < 0 || e.n[d].type != FM_DIR || m->n[d].type != FM_DIR)
		return false;
	memcpy(&e, m, sizeof(e));
	e.cur = tg;
	e.user = user;
	/* The rest's directory part, then its last component. */
	const char *last = rest + strlen(rest);
	while (last > rest && last[-1] != '/')
		last--;
	int dir = d;
	if (last > rest) {
		char mid[FM_PATH];
		memcpy(mid, rest, (size_t)(last - rest));
		mid[last - rest] = '\0';
		dir = walk(&e, d, mid, true, &links);
		if (dir < 0) {
			*err = dir;
			*at_last = false;
			return true;
		}
	}
	int node = walk(&e, dir, last, true, &links);
	*err = node < 0 ? node : 0;
	*at_last = node == -ENOENT;
	return true;
}

/* chmod and chown (root's): the node the path names, followed. */
static int64_t do_setattr(struct fuzz_model *m, const struct fz_call *c)
{
	int node = resolve(m, c->a, true);
	if (node < 0)
		return node;
	struct fm_node *n = &m->n[node];
	if (c->op == FZ_CHMOD) {
		n->mode = (uint16_t)(c->flags & 07777);
	} else {
		n->uid = (uint32_t)c->flags >> 16;
		n->gid = (uint32_t)c->flags & 0xffff;
	}
	/* A slowfs file's inode may be evicted and read again "from disk" at
	 * any time; a slowfs root stays cached with its sb. */
	if (n->slow && n->mp < 0)
		n->perm_unknown = true;
	return 0;
}

void fm_apply(struct fuzz_model *m, const struct fz_call *c, struct fz_result *r)
{
	int64_t ret;
	int node;
	struct fm_fd *f;
	r->aux = 0;
	r->node = -1;
	m->cur = c->tg;
	m->user = c->user;
	switch (c->op) {
	case FZ_OPEN:
		ret = do_open(m, c->a, c->flags);
		break;
	case FZ_CLOSE:
		ret = fd_get(m, c->fd) ? 0 : -EBADF;
		if (!ret)
			task(m)->fd[c->fd].node = -1;
		break;
	case FZ_READ: case FZ_WRITE: case FZ_PREAD: case FZ_PWRITE:
		ret = do_rw(m, c);
		break;
	case FZ_LSEEK:
		ret = do_lseek(m, c);
		break;
	case FZ_GETDENTS:
		ret = do_getdents(m, c, &r->aux);
		break;
	case FZ_STAT: case FZ_LSTAT:
		ret = node = resolve(m, c->a, c->op == FZ_STAT);
		if (node >= 0) {
			ret = m->n[node].perm_unknown ? FM_ANY : 0;
			r->aux = node_aux(m, node);
			r->node = node;
		}
		break;
	case FZ_FSTAT:
		f = fd_get(m, c->fd);
		ret = f ? 0 : -EBADF;
		if (f)
			r->aux = node_aux(m, f->node);
		break;
	case FZ_MKDIR: case FZ_SYMLINK:
		ret = do_mkdir_symlink(m, c);
		break;
	case FZ_RMDIR: case FZ_UNLINK:
		ret = do_remove(m, c);
		break;
	case FZ_LINK:
		ret = do_link(m, c);
		break;
	case FZ_READLINK:
		ret = node = resolve(m, c->a, false);
		if (node >= 0 && m->n[node].type != FM_LNK)
			ret = -EINVAL;
		else if (node >= 0) {
			ret = (int64_t)strlen(m->n[node].target);
			r->aux = fm_name_hash(m->n[node].target, (unsigned)ret);
		}
		break;
	case FZ_RENAME:
		ret = do_rename(m, c);
		break;
	case FZ_TRUNCATE:	/* a negative length is refused before the walk */
		ret = node = c->n < 0 ? -EINVAL : resolve(m, c->a, true);
		if (node >= 0)
			ret = do_truncate(m, node, c->n);
		break;
	case FZ_FTRUNCATE:
		f = fd_get(m, c->fd);
		ret = c->n < 0 ? -EINVAL : !f ? -EBADF : m->n[f->node].type != FM_REG || (f->flags & O_ACCMODE) == O_RDONLY ?
		      -EINVAL : do_truncate(m, f->node, c->n);
		break;
	case FZ_CHDIR:
		ret = node = resolve(m, c->a, true);
		if (node >= 0 && m->n[node].type != FM_DIR)
			ret = -ENOTDIR;
		else if (node >= 0 && !may_search(m, node))
			ret = -EACCES;
		else if (node >= 0) {
			task(m)->cwd = node;
			ret = 0;
		}
		break;
	case FZ_CHMOD: case FZ_CHOWN:
		ret = do_setattr(m, c);
		break;
	case FZ_SHRINK:
		ret = 0;	/* it frees only what is unused and cached: nothing anyone sees */
		break;
	case FZ_MOUNT:
		ret = do_mount(m, c);
		break;
	default:
		ret = do_umount(m, c);
		break;
	}
	r->ret = ret;
	if (ret < 0)
		r->aux = 0;
	m->user = false;
	collect(m);
}

/* ---- the tree as text --------------------------------------------------- */

struct out {
	char *buf;
	unsigned size, at;
};

static void put(struct out *o, const char *s)
{
	while (*s && o->at + 1 < o->size)
		o->buf[o->at++] = *s++;
	o->buf[o->at] = 0;
}

static void render_dir(const struct fuzz_model *m, int d, struct out *o, unsigned depth)
{
	int order[FM_ENTRIES], k = 0;
	for (int i = 0; i < FM_ENTRIES; i++)
		if (m->e[i].dir == d) {
			int j = k++;
			while (j > 0 && strcmp(m->e[order[j - 1]].name, m->e[i].name) > 0) {
				order[j] = order[j - 1];
				j--;
			}
			order[j] = i;
		}
	put(o, "{");
	for (int j = 0; j < k; j++) {
		int c = down(m, m->e[order[j]].child);
		const struct fm_node *n = &m->n[c];
		char item[48];
		snprintf(item, sizeof(item), "%s%s:%c%u", j ? " " : "", m->e[order[j]].name,
			 "?drl"[n->type], n->nlink);
		put(o, item);
		if (n->type == FM_REG) {
			snprintf(item, sizeof(item), ",%lu", n->size);
			put(o, item);
		} else if (n->type == FM_LNK) {
			put(o, ">");
			put(o, n->target);
		} else if (depth < 6) {
			render_dir(m, c, o, depth + 1);
		}
	}
	put(o, "}");
}

void fm_render(const struct fuzz_model *m, char *buf, unsigned size)
{
	struct out o = { buf, size, 0 };
	buf[0] = 0;
	render_dir(m, 0, &o, 0);
}

/* ---- calls as text ------------------------------------------------------ */

static const char *const op_names[FZ_NOPS] = {
	"open", "close", "read", "write", "pread", "pwrite", "lseek", "getdents",
	"stat", "lstat", "fstat", "mkdir", "rmdir", "unlink", "link", "symlink",
	"readlink", "rename", "truncate", "ftruncate", "chdir", "mount", "umount",
	"chmod", "chown", "shrink",
};

static void open_flags(int f, char *buf, unsigned size)
{
	static const struct { int bit; const char *name; } bits[] = {
		{ O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" }, { O_TRUNC, "O_TRUNC" },
		{ O_APPEND, "O_APPEND" }, { O_DIRECTORY, "O_DIRECTORY" }, { O_NOFOLLOW, "O_NOFOLLOW" },
	};
	const char *acc = (f & O_ACCMODE) == O_RDONLY ? "O_RDONLY" : (f & O_ACCMODE) == O_WRONLY ?
			  "O_WRONLY" : "O_RDWR";
	struct out o = { buf, size, 0 };
	put(&o, acc);
	for (unsigned i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (f & bits[i].bit) {
			put(&o, "|");
			put(&o, bits[i].name);
		}
}

static void call_str(const struct fz_call *c, char *buf, unsigned size);

/* "open(...)", with who makes it when that is not task 0 as root:
 * "[user] stat(...)", "[task 1] chdir(...)". */
void fz_call_str(const struct fz_call *c, char *buf, unsigned size)
{
	char who[24] = "";
	if (c->user && c->tg)
		snprintf(who, sizeof(who), "[user, task %u] ", c->tg);
	else if (c->user)
		snprintf(who, sizeof(who), "[user] ");
	else if (c->tg)
		snprintf(who, sizeof(who), "[task %u] ", c->tg);
	unsigned n = (unsigned)strlen(who);
	strlcpy(buf, who, size);
	if (n < size)
		call_str(c, buf + n, size - n);
}

static void call_str(const struct fz_call *c, char *buf, unsigned size)
{
	const char *op = c->op < FZ_NOPS ? op_names[c->op] : "?";
	char fl[96];
	switch (c->op) {
	case FZ_OPEN:
		open_flags(c->flags, fl, sizeof(fl));
		snprintf(buf, size, "open(\"%s\", %s)", c->a, fl);
		break;
	case FZ_CLOSE: case FZ_FSTAT:
		snprintf(buf, size, "%s(%d)", op, c->fd);
		break;
	case FZ_READ: case FZ_WRITE: case FZ_GETDENTS:
		snprintf(buf, size, "%s(%d)", op, c->fd);
		break;
	case FZ_PREAD: case FZ_PWRITE: case FZ_FTRUNCATE:
		snprintf(buf, size, "%s(%d, %ld)", op, c->fd, c->n);
		break;
	case FZ_LSEEK:
		snprintf(buf, size, "lseek(%d, %ld, %s)", c->fd, c->n,
			 c->flags == SEEK_SET ? "SEEK_SET" : c->flags == SEEK_CUR ? "SEEK_CUR" : "SEEK_END");
		break;
	case FZ_LINK: case FZ_RENAME: case FZ_SYMLINK:
		snprintf(buf, size, "%s(\"%s\", \"%s\")", op, c->op == FZ_SYMLINK ? c->b : c->a,
			 c->op == FZ_SYMLINK ? c->a : c->b);
		break;
	case FZ_TRUNCATE:
		snprintf(buf, size, "truncate(\"%s\", %ld)", c->a, c->n);
		break;
	case FZ_MOUNT:
		snprintf(buf, size, "mount(\"%s\", \"%s\")", c->flags == 1 ? "slowfs" : "ramfs", c->a);
		break;
	case FZ_CHMOD:
		snprintf(buf, size, "chmod(\"%s\", 0%o)", c->a, (unsigned)c->flags);
		break;
	case FZ_CHOWN:
		snprintf(buf, size, "chown(\"%s\", %u, %u)", c->a, (unsigned)c->flags >> 16,
			 (unsigned)c->flags & 0xffff);
		break;
	case FZ_SHRINK:
		snprintf(buf, size, "shrink()");
		break;
	default:
		snprintf(buf, size, "%s(\"%s\")", op, c->a);
		break;
	}
}
