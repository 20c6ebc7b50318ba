/*
 * commute_model.c: the model of bench/commute_model.h.
 *
 * Linux's rules for the cases the generator makes: stat, open and chmod
 * follow a final symlink, lstat, readlink, unlink, rmdir, link and
 * rename do not; create (O_CREAT|O_EXCL) fails with EEXIST on any
 * existing name, a dangling symlink too; link says ENOENT for a missing
 * source before EEXIST for an existing target, and that before EPERM
 * for a directory; rename of two links to one inode does nothing and
 * succeeds; unlink of a directory is EISDIR, rmdir of a file ENOTDIR.
 * Times are counts of changes: a new or removed entry changes its
 * directory's mtime and ctime, a changed link count or mode an inode's
 * ctime, a write its mtime and ctime.
 */
#include "bench/commute_model.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/panic.h"
#include "kernel/string.h"

static const char role_letter[] = "fgsenm";

bool cm_uses_fd(uint8_t op)
{
	return op == CM_CLOSE || op == CM_READ || op == CM_PREAD || op == CM_WRITE ||
	       op == CM_PWRITE || op == CM_GETDENTS;
}

int cm_fd_flags(uint8_t op)
{
	if (op == CM_GETDENTS)
		return O_RDONLY | O_DIRECTORY;
	return op == CM_WRITE || op == CM_PWRITE ? O_WRONLY : O_RDONLY;
}

static unsigned name_idx(const struct cm_name *n)
{
	return n->role * CM_SLOTS + n->slot;
}

static int8_t *entry(struct commute_model *m, const struct cm_name *n)
{
	return &m->ent[n->dir][name_idx(n)];
}

static int new_node(struct commute_model *m, uint8_t type, uint16_t mode)
{
	if (m->nnodes == CM_NODES)
		panic("commute model: out of nodes");
	struct cm_node *x = &m->n[m->nnodes];
	memset(x, 0, sizeof(*x));
	x->type = type;
	x->mode = mode;
	x->nlink = type == CM_DIRNODE ? 2 : 1;
	return m->nnodes++;
}

static void dir_changed(struct commute_model *m, unsigned dir)
{
	m->n[dir].mtime++;
	m->n[dir].ctime++;
}

/* ---- the starting tree ------------------------------------------------ */

static void need(struct commute_model *m, const struct cm_name *n)
{
	if (n->role == CM_DIR || n->role == CM_N || n->role == CM_M || *entry(m, n) >= 0)
		return;
	int x;
	switch (n->role) {
	case CM_F:
	case CM_G:
		x = new_node(m, CM_REG, 0644);
		m->n[x].size = CM_DATA;
		m->n[x].fill[0] = n->role == CM_F ? 'x' : 'y';
		break;
	case CM_S: {
		struct cm_name f = { n->dir, CM_F, n->slot };
		need(m, &f);
		x = new_node(m, CM_LNK, 0777);
		m->n[x].target = n->slot;
		m->n[x].size = 2;     /* "f0" */
		break;
	}
	default:   /* CM_E */
		x = new_node(m, CM_DIRNODE, 0755);
		m->n[n->dir].nlink++;
		break;
	}
	*entry(m, n) = (int8_t)x;
}

void cm_init(struct commute_model *m, const struct cm_call *a, const struct cm_call *b)
{
	memset(m, 0, sizeof(*m));
	memset(m->ent, -1, sizeof(m->ent));
	for (unsigned d = 0; d < 2; d++)
		new_node(m, CM_DIRNODE, 0755);
	const struct cm_call *c[2] = { a, b };
	for (unsigned i = 0; i < 2; i++) {
		need(m, &c[i]->a);
		if (c[i]->op == CM_LINK || c[i]->op == CM_RENAME)
			need(m, &c[i]->b);
	}
	for (unsigned i = 0; i < 2; i++) {
		m->fd[i] = -1;
		if (cm_uses_fd(c[i]->op))
			m->fd[i] = c[i]->a.role == CM_DIR ? (int8_t)c[i]->a.dir : *entry(m, &c[i]->a);
	}
}

/* ---- the calls --------------------------------------------------------- */

/* The node n names (its symlink followed if follow), or -ENOENT. */
static int lookup(struct commute_model *m, const struct cm_name *n, bool follow)
{
	if (n->role == CM_DIR)
		return n->dir;
	int x = *entry(m, n);
	if (x >= 0 && follow && m->n[x].type == CM_LNK) {
		struct cm_name f = { n->dir, CM_F, m->n[x].target };
		x = *entry(m, &f);
	}
	return x >= 0 ? x : -ENOENT;
}

static uint32_t mode_bits(const struct cm_node *x)
{
	static const uint32_t type_bits[] = { 0, S_IFREG, S_IFDIR, S_IFLNK };
	return type_bits[x->type] | x->mode;
}

static void do_stat(struct commute_model *m, const struct cm_call *c, bool follow,
		    struct cm_result *r)
{
	int x = lookup(m, &c->a, follow);
	if (x < 0) {
		r->ret = x;
		return;
	}
	struct cm_node *n = &m->n[x];
	r->aux = cm_stat_aux(mode_bits(n), n->nlink, n->size);
	r->times = (uint32_t)n->mtime << 16 | n->ctime;
}

static void do_create(struct commute_model *m, const struct cm_name *name, bool dir,
		      struct cm_result *r)
{
	if (*entry(m, name) >= 0) {
		r->ret = -EEXIST;
		return;
	}
	*entry(m, name) = (int8_t)new_node(m, dir ? CM_DIRNODE : CM_REG, dir ? 0755 : 0644);
	if (dir)
		m->n[name->dir].nlink++;
	dir_changed(m, name->dir);
}

static void drop_link(struct commute_model *m, int x)
{
	m->n[x].nlink -= m->n[x].type == CM_DIRNODE ? 2 : 1;
	m->n[x].ctime++;
}

static void do_remove(struct commute_model *m, const struct cm_name *name, bool dir,
		      struct cm_result *r)
{
	int x = *entry(m, name);
	if (x < 0)
		r->ret = -ENOENT;
	else if (dir && m->n[x].type != CM_DIRNODE)
		r->ret = -ENOTDIR;
	else if (!dir && m->n[x].type == CM_DIRNODE)
		r->ret = -EISDIR;
	if (r->ret)
		return;
	*entry(m, name) = -1;
	drop_link(m, x);
	if (dir)
		m->n[name->dir].nlink--;
	dir_changed(m, name->dir);
}

static void do_link(struct commute_model *m, const struct cm_call *c, struct cm_result *r)
{
	int x = *entry(m, &c->a);
	if (x < 0)
		r->ret = -ENOENT;
	else if (*entry(m, &c->b) >= 0)
		r->ret = -EEXIST;
	else if (m->n[x].type == CM_DIRNODE)
		r->ret = -EPERM;
	if (r->ret)
		return;
	*entry(m, &c->b) = (int8_t)x;
	m->n[x].nlink++;
	m->n[x].ctime++;
	dir_changed(m, c->b.dir);
}

static void do_rename(struct commute_model *m, const struct cm_call *c, struct cm_result *r)
{
	int x = *entry(m, &c->a), y = *entry(m, &c->b);
	if (x < 0) {
		r->ret = -ENOENT;
		return;
	}
	if (x == y)
		return;     /* two links to one inode: nothing happens */
	if (y >= 0) {
		bool xdir = m->n[x].type == CM_DIRNODE, ydir = m->n[y].type == CM_DIRNODE;
		if (xdir != ydir) {
			r->ret = ydir ? -EISDIR : -ENOTDIR;
			return;
		}
		drop_link(m, y);      /* (a replaced directory is empty: e only) */
	}
	*entry(m, &c->b) = (int8_t)x;
	*entry(m, &c->a) = -1;
	m->n[x].ctime++;
	if (m->n[x].type == CM_DIRNODE && c->a.dir != c->b.dir) {
		m->n[c->a.dir].nlink--;
		m->n[c->b.dir].nlink++;
	}
	dir_changed(m, c->a.dir);
	if (c->b.dir != c->a.dir)
		dir_changed(m, c->b.dir);
}

static void data_chunk(const struct cm_node *n, unsigned chunk, struct cm_result *r)
{
	char buf[CM_DATA];
	if (chunk * CM_DATA >= n->size)
		return;     /* at the end: 0 bytes */
	memset(buf, n->fill[chunk], sizeof(buf));
	r->ret = CM_DATA;
	r->aux = cm_bytes_aux(buf, CM_DATA);
}

static void write_chunk(struct cm_node *n, unsigned chunk, unsigned side, struct cm_result *r)
{
	n->fill[chunk] = CM_WRITE_FILL(side);
	if (n->size < (chunk + 1) * CM_DATA)
		n->size = (uint8_t)((chunk + 1) * CM_DATA);
	n->mtime++;
	n->ctime++;
	r->ret = CM_DATA;
}

static void do_getdents(struct commute_model *m, unsigned dir, struct cm_result *r)
{
	static const unsigned dtype[] = { 0, DT_REG, DT_DIR, DT_LNK };
	r->aux = cm_name_aux(".", 1, DT_DIR) + cm_name_aux("..", 2, DT_DIR);
	r->ret = 2;
	for (unsigned k = 0; k < CM_NAMES; k++) {
		int x = m->ent[dir][k];
		if (x < 0)
			continue;
		char name[2] = { role_letter[k / CM_SLOTS], (char)('0' + k % CM_SLOTS) };
		r->aux += cm_name_aux(name, 2, dtype[m->n[x].type]);
		r->ret++;
	}
}

static void do_fd_call(struct commute_model *m, const struct cm_call *c, unsigned side,
		       struct cm_result *r)
{
	int x = m->fd[side];
	if (x < 0) {
		r->ret = -EBADF;
		return;
	}
	struct cm_node *n = &m->n[x];
	switch (c->op) {
	case CM_CLOSE:
		m->fd[side] = -1;
		break;
	case CM_READ:
		data_chunk(n, m->pos[side], r);
		if (r->ret > 0)
			m->pos[side]++;
		break;
	case CM_PREAD:
		data_chunk(n, 0, r);
		break;
	case CM_WRITE:
		write_chunk(n, m->pos[side]++, side, r);
		break;
	case CM_PWRITE:
		write_chunk(n, 1, side, r);
		break;
	default:   /* CM_GETDENTS */
		do_getdents(m, (unsigned)x, r);
		break;
	}
}

void cm_apply(struct commute_model *m, const struct cm_call *c, unsigned side, struct cm_result *r)
{
	memset(r, 0, sizeof(*r));
	int x;
	switch (c->op) {
	case CM_STAT:
	case CM_LSTAT:
		do_stat(m, c, c->op == CM_STAT, r);
		break;
	case CM_OPEN:
		x = lookup(m, &c->a, true);
		r->ret = x < 0 ? x : 0;
		break;
	case CM_CREATE:
	case CM_MKDIR:
		do_create(m, &c->a, c->op == CM_MKDIR, r);
		break;
	case CM_UNLINK:
	case CM_RMDIR:
		do_remove(m, &c->a, c->op == CM_RMDIR, r);
		break;
	case CM_LINK:
		do_link(m, c, r);
		break;
	case CM_RENAME:
		do_rename(m, c, r);
		break;
	case CM_CHMOD:
		x = lookup(m, &c->a, true);
		if (x < 0) {
			r->ret = x;
			break;
		}
		m->n[x].mode = 0600;
		m->n[x].ctime++;
		break;
	case CM_READLINK:
		x = lookup(m, &c->a, false);
		if (x >= 0 && m->n[x].type != CM_LNK)
			x = -EINVAL;
		r->ret = x < 0 ? x : 2;
		if (x >= 0) {
			char t[2] = { 'f', (char)('0' + m->n[x].target) };
			r->aux = cm_bytes_aux(t, 2);
		}
		break;
	default:
		do_fd_call(m, c, side, r);
		break;
	}
}

/* ---- comparing two outcomes --------------------------------------------- */

struct canon {
	int8_t id[CM_NODES];       /* the order nodes were first met in */
	uint8_t next;
	uint8_t buf[512];
	unsigned len;
};

static void put(struct canon *k, uint8_t v)
{
	if (k->len == sizeof(k->buf))
		panic("commute model: canonical form too long");
	k->buf[k->len++] = v;
}

static void put_node(struct canon *k, const struct commute_model *m, int x)
{
	if (x < 0) {
		put(k, 0xff);
		return;
	}
	if (k->id[x] < 0)
		k->id[x] = (int8_t)k->next++;
	put(k, (uint8_t)k->id[x]);
	const struct cm_node *n = &m->n[x];
	uint8_t f[] = { n->type, n->nlink, (uint8_t)n->mode, (uint8_t)(n->mode >> 8), n->size,
			(uint8_t)n->fill[0], (uint8_t)n->fill[1], n->target, (uint8_t)n->mtime,
			(uint8_t)n->ctime };
	for (unsigned i = 0; i < sizeof(f); i++)
		put(k, f[i]);
}

/* The tree and descriptors with nodes numbered in the order they are met. */
static void canonical(const struct commute_model *m, struct canon *k)
{
	memset(k->id, -1, sizeof(k->id));
	k->next = 0;
	k->len = 0;
	for (unsigned d = 0; d < 2; d++) {
		put_node(k, m, (int)d);
		for (unsigned i = 0; i < CM_NAMES; i++)
			put_node(k, m, m->ent[d][i]);
	}
	for (unsigned s = 0; s < 2; s++) {
		put_node(k, m, m->fd[s]);
		put(k, m->pos[s]);
	}
}

static bool same_result(const struct cm_result *x, const struct cm_result *y)
{
	return x->ret == y->ret && x->aux == y->aux && x->times == y->times;
}

bool cm_commute(const struct commute_model *m, const struct cm_call *a, const struct cm_call *b,
		struct cm_result *ra, struct cm_result *rb)
{
	static struct commute_model ab, ba;     /* one caller at a time (conflicts.h) */
	static struct canon kab, kba;
	struct cm_result ra2, rb2;
	ab = *m;
	ba = *m;
	cm_apply(&ab, a, 0, ra);
	cm_apply(&ab, b, 1, rb);
	cm_apply(&ba, b, 1, &rb2);
	cm_apply(&ba, a, 0, &ra2);
	if (!same_result(ra, &ra2) || !same_result(rb, &rb2))
		return false;
	canonical(&ab, &kab);
	canonical(&ba, &kba);
	return kab.len == kba.len && memcmp(kab.buf, kba.buf, kab.len) == 0;
}

/* ---- aux values and names -------------------------------------------- */

uint64_t cm_stat_aux(uint32_t mode, uint32_t nlink, uint64_t size)
{
	return (uint64_t)mode | (uint64_t)nlink << 32 | size << 40;
}

uint64_t cm_bytes_aux(const char *p, unsigned n)
{
	uint64_t h = 0xcbf29ce484222325ULL;     /* FNV-1a */
	for (unsigned i = 0; i < n; i++)
		h = (h ^ (uint8_t)p[i]) * 0x100000001b3ULL;
	return h;
}

uint64_t cm_name_aux(const char *name, unsigned len, unsigned dtype)
{
	return cm_bytes_aux(name, len) ^ dtype;
}

void cm_name_str(const struct cm_name *n, char *buf, unsigned size)
{
	if (n->role == CM_DIR)
		snprintf(buf, size, "d%u", n->dir);
	else
		snprintf(buf, size, "d%u/%c%u", n->dir, role_letter[n->role], n->slot);
}

void cm_path(const struct cm_name *n, char *buf, unsigned size)
{
	char s[16];
	cm_name_str(n, s, sizeof(s));
	snprintf(buf, size, "/cf/%s", s);
}
