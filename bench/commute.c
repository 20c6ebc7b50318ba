/*
 * commute.c: generated pairs of commuting calls for the conflict tracer,
 * the way Commuter (Clements et al., SOSP 2013) makes its tests: for each
 * pair of calls, on the same or different names and directories, keep
 * the pairs whose outcome does not depend on their order, and run each
 * on two CPUs (bench/conflicts.c's harness).  If the implementation
 * scales, two calls that commute share no written cache line.
 *
 * The calls: stat, lstat, open, close, read, pread, write, pwrite,
 * getdents, mkdir, rmdir, create (open with O_CREAT|O_EXCL), unlink,
 * link, rename, chmod and readlink, each in the variants below (which
 * kind of name it is given: a file, a symlink, a missing name...).  The
 * pairs: every two variants (a variant with itself too) in the first of
 * three relations, every two calls in their usual case in the others:
 *
 *   same     both name things in /cf/d0, slot 0: the same names
 *   name     side 1 names slot 1 in /cf/d0: other names, same directory
 *   dir      side 1 names slot 0 in /cf/d1: the same names, another
 *            directory
 *
 * Whether they commute: bench/commute_model.c runs both orders on a
 * model of the tree and compares results and state.  The kernel's
 * results (side 0 runs first) are then checked against the model's for
 * that order: a pair "ran as it should" only if both calls returned what
 * the model says, so the model is tested too.
 *
 * Each side is its own process (task_fs_unshare: its own descriptor
 * table, as in Commuter's tests), opens its descriptor (if its call uses
 * one) before its region, and leaves whatever its call opened to its
 * exit.  Before the sides run, every name either call uses is looked up
 * once (a missing one leaves a negative dentry) and every file is read
 * once: the pair starts from a warm cache, as the hand-picked pairs do.
 */
#include "bench/commute_model.h"
#include "bench/conflicts.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/conflict.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

#define COMMUTE_FIRST_ID 0x1000
#define DENTS_BUF 512

struct variant {
	uint8_t op, ra, rb;        /* rb: link's and rename's new name */
	bool primary;              /* the call's usual case: paired in every relation */
};

/* The first of each call is its usual case; the others (a missing name,
 * an existing one, through a symlink) are paired in the same-name
 * relation only, where they make a difference. */
static const struct variant variants[] = {
	{ CM_STAT, CM_F, 0, true }, { CM_STAT, CM_S, 0, false }, { CM_STAT, CM_N, 0, false },
	{ CM_LSTAT, CM_S, 0, true }, { CM_LSTAT, CM_F, 0, false }, { CM_LSTAT, CM_N, 0, false },
	{ CM_OPEN, CM_F, 0, true }, { CM_OPEN, CM_N, 0, false },
	{ CM_CREATE, CM_N, 0, true }, { CM_CREATE, CM_F, 0, false },
	{ CM_MKDIR, CM_N, 0, true }, { CM_MKDIR, CM_F, 0, false },
	{ CM_RMDIR, CM_E, 0, true }, { CM_RMDIR, CM_N, 0, false },
	{ CM_UNLINK, CM_F, 0, true }, { CM_UNLINK, CM_N, 0, false },
	{ CM_LINK, CM_F, CM_N, true },
	{ CM_RENAME, CM_F, CM_N, true }, { CM_RENAME, CM_F, CM_G, false },
	{ CM_CHMOD, CM_F, 0, true },
	{ CM_READLINK, CM_S, 0, true },
	{ CM_READ, CM_F, 0, true }, { CM_PREAD, CM_F, 0, true }, { CM_WRITE, CM_F, 0, true },
	{ CM_PWRITE, CM_F, 0, true }, { CM_GETDENTS, CM_DIR, 0, true }, { CM_CLOSE, CM_F, 0, true },
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

static const char *const op_name[CM_NOPS] = {
	"stat", "lstat", "open", "close", "read", "pread", "write", "pwrite", "getdents",
	"mkdir", "rmdir", "create", "unlink", "link", "rename", "chmod", "readlink",
};

enum relation { SAME, NAME, DIR, NRELATIONS };
static const char *const relation_name[NRELATIONS] = { "same", "name", "dir" };

/* The pair being run: its calls, the model's results for a then b. */
static struct {
	struct cm_call call[2];
	struct cm_result want[2];
	struct commute_model start;
	int id;
	char name[96];
} cur;

/* Per side, on its own lines: the harness must add no sharing itself. */
static struct gen_side {
	int fd;                    /* the descriptor its call uses, or -1 */
	long ret;                  /* the call's return value */
	struct kstat st;
	char path[2][32];
	char data[CM_DATA];
	char buf[DENTS_BUF];
} __attribute__((aligned(64))) gside[2];
_Static_assert(sizeof(struct gen_side) % 64 == 0, "sides must not share a line");

static struct cm_call make_call(const struct variant *v, unsigned dir, unsigned slot)
{
	struct cm_call c = { v->op, { (uint8_t)dir, v->ra, (uint8_t)slot },
			     { (uint8_t)dir, v->rb, (uint8_t)slot } };
	return c;
}

static void call_str(const struct cm_call *c, char *buf, unsigned size)
{
	char a[16], b[16];
	cm_name_str(&c->a, a, sizeof(a));
	cm_name_str(&c->b, b, sizeof(b));
	if (c->op == CM_LINK || c->op == CM_RENAME)
		snprintf(buf, size, "%s(%s,%s)", op_name[c->op], a, b);
	else
		snprintf(buf, size, "%s(%s)", op_name[c->op], a);
}

/* ---- the state: the model's starting tree, made for real ---------- */

static int mkfile(const char *path, char fill)
{
	int fd = sys_open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return fd;
	char data[CM_DATA];
	memset(data, fill, sizeof(data));
	long n = sys_write(fd, data, sizeof(data));
	sys_close(fd);
	return n == CM_DATA ? 0 : n < 0 ? (int)n : -EIO;
}

static int make_name(const struct commute_model *m, unsigned dir, unsigned k)
{
	struct cm_name n = { (uint8_t)dir, (uint8_t)(k / CM_SLOTS), (uint8_t)(k % CM_SLOTS) };
	char path[32], target[4];
	cm_path(&n, path, sizeof(path));
	const struct cm_node *x = &m->n[m->ent[dir][k]];
	switch (x->type) {
	case CM_REG:
		return mkfile(path, x->fill[0]);
	case CM_LNK:
		snprintf(target, sizeof(target), "f%u", x->target);
		return sys_symlink(target, path);
	default:
		return sys_mkdir(path, 0755);
	}
}

/* Look name up once (a missing one leaves a negative dentry) and read a
 * file once (so a read does not find its atime older than its mtime). */
static void warm(const struct cm_name *n)
{
	char path[32], buf[CM_DATA];
	struct kstat st;
	cm_path(n, path, sizeof(path));
	sys_lstat(path, &st);
	if (sys_stat(path, &st) < 0 || !S_ISREG(st.mode))
		return;
	int fd = sys_open(path, O_RDONLY, 0);
	if (fd >= 0) {
		sys_pread(fd, buf, sizeof(buf), 0);
		sys_close(fd);
	}
}

static int prepare_generated(void)
{
	static const char *const dirs[] = { "/cf/d0", "/cf/d1" };
	for (unsigned d = 0; d < 2; d++) {
		int err = sys_mkdir(dirs[d], 0755);
		for (unsigned k = 0; k < CM_NAMES && !err; k++)
			if (cur.start.ent[d][k] >= 0)
				err = make_name(&cur.start, d, k);
		if (err)
			return err;
	}
	for (unsigned i = 0; i < 2; i++) {
		warm(&cur.call[i].a);
		if (cur.call[i].op == CM_LINK || cur.call[i].op == CM_RENAME)
			warm(&cur.call[i].b);
	}
	return 0;
}

/* On side i's thread: its own process, its descriptor, its paths. */
static void setup_generated(unsigned i)
{
	struct gen_side *s = &gside[i];
	const struct cm_call *c = &cur.call[i];
	task_fs_unshare();     /* on failure the sides share a table: results still hold */
	cm_path(&c->a, s->path[0], sizeof(s->path[0]));
	cm_path(&c->b, s->path[1], sizeof(s->path[1]));
	memset(s->data, CM_WRITE_FILL(i), sizeof(s->data));
	s->fd = cm_uses_fd(c->op) ? sys_open(s->path[0], cm_fd_flags(c->op), 0) : -1;
	/* A CPU's first open of a file gives the reference to the CPU's
	 * cache (fs/d_refcache.c), writing the dentry's count once; as the
	 * calls on a descriptor, an open is measured after that. */
	if (c->op == CM_OPEN) {
		int fd = sys_open(s->path[0], O_RDONLY, 0);
		if (fd >= 0)
			sys_close(fd);
	}
}

/* ---- running one call, and what it returned ------------------------ */

static long do_call(struct gen_side *s, const struct cm_call *c)
{
	switch (c->op) {
	case CM_STAT:     return sys_stat(s->path[0], &s->st);
	case CM_LSTAT:    return sys_lstat(s->path[0], &s->st);
	case CM_OPEN:     return sys_open(s->path[0], O_RDONLY, 0);
	case CM_CREATE:   return sys_open(s->path[0], O_CREAT | O_EXCL | O_WRONLY, 0644);
	case CM_MKDIR:    return sys_mkdir(s->path[0], 0755);
	case CM_RMDIR:    return sys_rmdir(s->path[0]);
	case CM_UNLINK:   return sys_unlink(s->path[0]);
	case CM_LINK:     return sys_link(s->path[0], s->path[1]);
	case CM_RENAME:   return sys_rename(s->path[0], s->path[1]);
	case CM_CHMOD:    return sys_chmod(s->path[0], 0600);
	case CM_READLINK: return sys_readlink(s->path[0], s->buf, sizeof(s->buf));
	case CM_READ:     return sys_read(s->fd, s->buf, CM_DATA);
	case CM_PREAD:    return sys_pread(s->fd, s->buf, CM_DATA, 0);
	case CM_WRITE:    return sys_write(s->fd, s->data, CM_DATA);
	case CM_PWRITE:   return sys_pwrite(s->fd, s->data, CM_DATA, CM_DATA);
	case CM_GETDENTS: return sys_getdents(s->fd, s->buf, sizeof(s->buf));
	default:          return sys_close(s->fd);
	}
}

/* The kernel's answer in the model's terms. */
static struct cm_result result_of(const struct gen_side *s, const struct cm_call *c)
{
	struct cm_result r = { s->ret, 0, 0 };
	if (s->ret < 0)
		return r;
	switch (c->op) {
	case CM_STAT:
	case CM_LSTAT:
		r.aux = cm_stat_aux(s->st.mode, s->st.nlink, (uint64_t)s->st.size);
		break;
	case CM_OPEN:
	case CM_CREATE:
		r.ret = 0;     /* a descriptor: its number is the process's business */
		break;
	case CM_READLINK:
	case CM_READ:
	case CM_PREAD:
		if (s->ret > 0)
			r.aux = cm_bytes_aux(s->buf, (unsigned)s->ret);
		break;
	case CM_GETDENTS:
		r.ret = 0;
		for (long off = 0; off < s->ret; r.ret++) {
			const struct linux_dirent64 *e = (const void *)(s->buf + off);
			r.aux += cm_name_aux(e->d_name, (unsigned)strlen(e->d_name), e->d_type);
			off += e->d_reclen;
		}
		break;
	}
	return r;
}

static void generated_side(void *arg, unsigned i)
{
	(void)arg;
	struct gen_side *s = &gside[i];
	uint64_t before = conflict_side_enter(i);
	conflict_region_begin_var((unsigned)cur.id);
	s->ret = do_call(s, &cur.call[i]);
	conflict_region_end_var();
	struct cm_result got = result_of(s, &cur.call[i]);
	bool as_modelled = got.ret == cur.want[i].ret && got.aux == cur.want[i].aux;
	conflict_side_leave(i, as_modelled ? 0 : got.ret ? (int)got.ret : -EIO, before);
}

/* ---- the generator ---------------------------------------------------- */

/* Side 1's call for relation rel, side 0's being in /cf/d0, slot 0. */
static struct cm_call side1_call(const struct variant *v, enum relation rel)
{
	return make_call(v, rel == DIR, rel == NAME);
}

int commute_pairs_run(conflict_say_fn *say, void *ctx)
{
	int failed = 0, id = COMMUTE_FIRST_ID;
	unsigned tried = 0;
	struct conflict_pair p = { 0, cur.name, generated_side, prepare_generated, setup_generated, 2 };
	for (unsigned va = 0; va < NVARIANTS; va++)
		for (unsigned vb = va; vb < NVARIANTS; vb++)
			for (unsigned rel = 0; rel < NRELATIONS; rel++) {
				if (rel != SAME && !(variants[va].primary && variants[vb].primary))
					continue;
				cur.call[0] = make_call(&variants[va], 0, 0);
				cur.call[1] = side1_call(&variants[vb], rel);
				cm_init(&cur.start, &cur.call[0], &cur.call[1]);
				tried++;
				if (!cm_commute(&cur.start, &cur.call[0], &cur.call[1], &cur.want[0],
						&cur.want[1]))
					continue;
				char a[40], b[40];
				call_str(&cur.call[0], a, sizeof(a));
				call_str(&cur.call[1], b, sizeof(b));
				snprintf(cur.name, sizeof(cur.name), "%s|%s|%s", a, b, relation_name[rel]);
				cur.id = p.id = id++;
				failed += !conflict_run_pair(&p, say, ctx);
			}
	char line[96];
	snprintf(line, sizeof(line), "conflicts: generated %d commuting pairs of %u tried",
		 id - COMMUTE_FIRST_ID, tried);
	say(ctx, line);
	return failed;
}
