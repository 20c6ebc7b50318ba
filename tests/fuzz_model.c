/*
 * fuzz_model.c: see fuzz_model.h.  The tree and the calls on names are
 * the namespace's (tests/ns_model.c); this file keeps the process around
 * it.  A node nothing can reach any more (no name, no open file, not the
 * cwd, not the parent of one of those) is freed after each call.
 */
#include "tests/fuzz_model.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

#define SLOWFS_NAMES 2             /* the fuzzer mounts slowfs with names=2 */

/* The task making the call being applied: its cwd and descriptors. */
static struct fm_task *task(struct fuzz_model *m)
{
	return &m->t[m->cur];
}

/* The namespace rules' view of m, for the call being applied. */
static struct ns view(struct fuzz_model *m)
{
	return (struct ns){ m->n, m->e, FM_NODES, FM_ENTRIES, &m->full, m->user };
}

static int walk(struct fuzz_model *m, int start, const char *path, bool follow, unsigned *links)
{
	struct ns s = view(m);
	return ns_walk(&s, start, path, follow, links);
}

static int resolve(struct fuzz_model *m, const char *path, bool follow)
{
	unsigned links = 0;
	return walk(m, task(m)->cwd, path, follow, &links);
}

/* Where a relative path starts: the call's cwd, or for its second path
 * (rename's and link's new name) second_cwd if the fuzzer set one: a
 * call that walks two paths reads the cwd once for each. */
static int second_start(const struct fuzz_model *m)
{
	return m->second_cwd >= 0 ? m->second_cwd : m->t[m->cur].cwd;
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
	/* The owner's IDs are few (0, NS_USER, NS_USER + 1, NS_USER_GROUP,
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
	const struct ns_node *n = &m->n[c];
	return fm_stat_aux(n->type, n->nlink, n->type == NS_DIR ? 0 : n->size, n->mode, n->uid, n->gid);
}

uint64_t fm_node_aux(const struct fuzz_model *m, int node)
{
	if (node < 0 || node >= FM_NODES || m->n[node].type == NS_FREE)
		return FM_ANY;
	return m->n[node].perm_unknown ? FM_ANY : node_aux(m, node);
}

/* ---- the calls ---------------------------------------------------------- */

static int64_t do_open(struct fuzz_model *m, const char *path, int flags)
{
	int acc = flags & O_ACCMODE, c;
	if (flags & O_CREAT) {
		struct ns s = view(m);
		if ((c = ns_create(&s, task(m)->cwd, path, flags)) < 0)
			return c;
	} else {
		c = resolve(m, path, !(flags & O_NOFOLLOW));
		if (c < 0)
			return c;
		if (m->n[c].type == NS_LNK)
			return -ELOOP;
		if ((flags & O_DIRECTORY) && m->n[c].type != NS_DIR)
			return -ENOTDIR;
		if (m->n[c].type == NS_DIR && (acc != O_RDONLY || (flags & O_TRUNC)))
			return -EISDIR;
	}
	if ((flags & O_TRUNC) && m->n[c].type == NS_REG)
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
	struct ns_node *n = &m->n[f->node];
	if (n->type == NS_DIR)
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
	if (m->n[f->node].type == NS_DIR) {
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
	if (m->n[d].type != NS_DIR)
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

/* The calls that make, remove or move a name: the namespace's rules, the
 * second path (rename's and link's new name) from its own start. */
static int64_t do_names(struct fuzz_model *m, const struct fz_call *c)
{
	struct ns s = view(m);
	int cwd = task(m)->cwd;
	switch (c->op) {
	case FZ_MKDIR:
		return ns_mknod(&s, cwd, c->a, NS_DIR, NULL);
	case FZ_SYMLINK:
		return ns_mknod(&s, cwd, c->a, NS_LNK, c->b);
	case FZ_RMDIR: case FZ_UNLINK:
		return ns_remove(&s, cwd, c->a, c->op == FZ_RMDIR);
	case FZ_LINK:
		return ns_link(&s, cwd, c->a, second_start(m), c->b);
	default:
		return ns_rename(&s, cwd, c->a, second_start(m), c->b);
	}
}

static int64_t do_truncate(struct fuzz_model *m, int node, int64_t len)
{
	struct ns s = view(m);
	return ns_truncate(&s, node, len);
}

static void make_root(struct fuzz_model *m, int r, int mp, bool slow)
{
	struct ns s = view(m);
	m->n[r] = ns_root(m->next_fs++, slow, mp);
	if (mp >= 0)
		m->n[mp].mounted = r;
	for (int i = 0; slow && i < SLOWFS_NAMES; i++) {
		int f = ns_new_node(&s, NS_REG, r);
		char name[NS_NAME] = { 'f', (char)('0' + i), 0 };
		if (f >= 0)
			ns_add_entry(&s, r, name, f);
	}
}

static int64_t do_mount(struct fuzz_model *m, const struct fz_call *c)
{
	int d = resolve(m, c->a, true);
	if (d < 0)
		return d;
	if (m->n[d].type != NS_DIR)
		return -ENOTDIR;
	if (d == 0 || m->n[d].mp >= 0)
		return -EBUSY;	/* a mounted root: no stacking */
	if (m->n[d].dead)
		return -ENOENT;
	struct ns s = view(m);
	int r = ns_new_node(&s, NS_DIR, d);
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
		if (m->n[i].type != NS_FREE && m->n[i].fs == fs && m->n[i].mounted >= 0)
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
		if (m->n[i].type != NS_FREE && m->n[i].fs == fs)
			m->n[i].type = NS_FREE;
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
			const struct ns_node *n = &m->n[x];
			more |= mark(keep, n->parent) | mark(keep, n->mp) | mark(keep, n->mounted);
		}
		for (int i = 0; i < FM_ENTRIES; i++)
			if (m->e[i].dir >= 0 && keep[m->e[i].dir])
				more |= mark(keep, m->e[i].child);
	}
	for (int i = 0; i < FM_NODES; i++)
		if (!keep[i])
			m->n[i].type = NS_FREE;
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
	struct ns s = view(m);
	int a = ns_new_node(&s, NS_DIR, 0), x = ns_new_node(&s, NS_REG, 0), l = ns_new_node(&s, NS_LNK, 0);
	int smp = ns_new_node(&s, NS_DIR, 0), sr = ns_new_node(&s, NS_DIR, 0);
	int b = ns_new_node(&s, NS_DIR, 0);
	ns_add_entry(&s, 0, "a", a);
	ns_add_entry(&s, 0, "b", b);
	ns_add_entry(&s, a, "x", x);
	m->n[x].size = 3;
	ns_add_entry(&s, 0, "l", l);
	strlcpy(m->n[l].target, "a", NS_TARGET);
	m->n[l].size = 1;
	ns_add_entry(&s, 0, "s", smp);
	make_root(m, sr, smp, true);
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
		unsigned len = ns_comp_len(p);
		if (ns_is_dotdot(p, len) && seen++ == n)
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
	if (d < 0 || e.n[d].type != NS_DIR || m->n[d].type != NS_DIR)
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

/* A walk of path by task tg (as NS_USER if user) whose first n components
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
		p += ns_comp_len(p);
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
	if (d < 0 || e.n[d].type != NS_DIR || m->n[d].type != NS_DIR)
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
	struct ns_node *n = &m->n[node];
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

/* chdir: search permission on the target too, as Linux's. */
static int64_t do_chdir(struct fuzz_model *m, const char *path)
{
	struct ns s = view(m);
	int node = resolve(m, path, true);
	if (node < 0)
		return node;
	if (m->n[node].type != NS_DIR)
		return -ENOTDIR;
	if (!ns_may_search(&s, node))
		return -EACCES;
	task(m)->cwd = node;
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
	case FZ_MKDIR: case FZ_SYMLINK: case FZ_RMDIR: case FZ_UNLINK: case FZ_LINK: case FZ_RENAME:
		ret = do_names(m, c);
		break;
	case FZ_READLINK:
		ret = node = resolve(m, c->a, false);
		if (node >= 0 && m->n[node].type != NS_LNK)
			ret = -EINVAL;
		else if (node >= 0) {
			ret = (int64_t)strlen(m->n[node].target);
			r->aux = fm_name_hash(m->n[node].target, (unsigned)ret);
		}
		break;
	case FZ_TRUNCATE:	/* a negative length is refused before the walk */
		ret = node = c->n < 0 ? -EINVAL : resolve(m, c->a, true);
		if (node >= 0)
			ret = do_truncate(m, node, c->n);
		break;
	case FZ_FTRUNCATE:
		f = fd_get(m, c->fd);
		ret = c->n < 0 ? -EINVAL : !f ? -EBADF : m->n[f->node].type != NS_REG || (f->flags & O_ACCMODE) == O_RDONLY ?
		      -EINVAL : do_truncate(m, f->node, c->n);
		break;
	case FZ_CHDIR:
		ret = do_chdir(m, c->a);
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
		int c = ns_down(m->n, m->e[order[j]].child);
		const struct ns_node *n = &m->n[c];
		char item[48];
		snprintf(item, sizeof(item), "%s%s:%c%u", j ? " " : "", m->e[order[j]].name,
			 "?drl"[n->type], n->nlink);
		put(o, item);
		if (n->type == NS_REG) {
			snprintf(item, sizeof(item), ",%lu", n->size);
			put(o, item);
		} else if (n->type == NS_LNK) {
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
