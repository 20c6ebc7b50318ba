/*
 * fstest.c: pjdfstest's fstest program, for the calls smpvfs has.
 *
 * The syntax and the output are pjdfstest's (see fstest.h): a chain of
 * calls separated by ":", one output line per call, the errno name of the
 * first failure ending the chain.  Each call is a row of the table at the
 * bottom: its name, how many arguments it takes, and a function that
 * parses them and makes the call.  Nothing here knows which system it
 * runs on; fstest_os.h maps the fso_* calls to sys_* or to libc.
 *
 * pjdfstest's -u, -g and -U options switch credentials for the chain
 * (in the kernel only for it: the caller's are back afterwards).
 *
 * pjdfstest's mknod PATH TYPE MODE MAJOR MINOR (TYPE: c, b, f, d or o
 * for character, block, FIFO, directory, regular), mkfifo, bind (a local
 * socket bound to PATH) and pathconf PATH NAME (_PC_NAME_MAX...: the
 * value, or "unlimited"); stat's "major" and "minor" fields are of the
 * device number (st_rdev).
 *
 * Beyond pjdfstest: utimens (utimensat with whole seconds), close,
 * readlink, mount and umount (the last two for
 * the EXDEV and EBUSY tests; on the host they need a mount namespace,
 * which tools/fstest/run.py provides), and "ino" as another name for
 * stat's "inode" field.
 *
 * No locking: an invocation's state is on its own stack.
 */
#include "tools/fstest/fstest.h"
#include "tools/fstest/fstest_os.h"
#include <stdbool.h>

#define MAX_FDS   16
#define LINE_MAX_ 1100       /* the longest line: a pread of 1024 bytes */
/* What a call's function returns besides 0 and a negative errno. */
#define PRINTED   1          /* succeeded and emitted its own line */
#define USAGE     (-100000)  /* bad arguments, already reported (not an errno) */

struct fst {
	void (*emit)(const char *line, void *arg);
	void (*emit_err)(const char *line, void *arg);   /* usage errors */
	void *arg;
	int fds[MAX_FDS];        /* descriptor number i of this invocation */
	int nfds;
	char line[LINE_MAX_];
};

/* Print a usage error about word (or none: NULL); returns USAGE, for
 * `return usage(...)`. */
static long usage(struct fst *f, const char *what, const char *word)
{
	if (word)
		snprintf(f->line, sizeof(f->line), "fstest: %s '%s'", what, word);
	else
		snprintf(f->line, sizeof(f->line), "fstest: %s", what);
	f->emit_err(f->line, f->arg);
	return USAGE;
}

static int digit(char c, int base)
{
	int d = c >= '0' && c <= '9' ? c - '0'
		: c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
	return d < base ? d : -1;
}

/* A number as C's strtoll with base 0 reads it ("0755" is octal, "0x1f"
 * hex), but the whole word must be the number.  False if it is not. */
static bool parse_num(const char *s, int64_t *out)
{
	bool neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	int base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (s[0] == '0' && s[1]) {
		base = 8;
		s++;
	}
	if (!*s)
		return false;
	uint64_t v = 0;
	for (; *s; s++) {
		int d = digit(*s, base);
		if (d < 0 || v > (UINT64_MAX - (unsigned)d) / (unsigned)base)
			return false;
		v = v * base + d;
	}
	if (v > (uint64_t)INT64_MAX + neg)
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

static long num_arg(struct fst *f, const char *s, int64_t *out)
{
	return parse_num(s, out) ? 0 : usage(f, "not a number:", s);
}

/* A descriptor argument: this invocation's number for it, or BADFD (-1). */
static long fd_arg(struct fst *f, const char *s, int *fd)
{
	int64_t n;
	if (strcmp(s, "BADFD") == 0) {
		*fd = -1;
		return 0;
	}
	if (!parse_num(s, &n) || n < 0 || n >= f->nfds)
		return usage(f, "no such descriptor:", s);
	*fd = f->fds[n];
	return 0;
}

static const struct { const char *name; int flag; } open_flags[] = {
	{ "O_RDONLY", O_RDONLY }, { "O_WRONLY", O_WRONLY }, { "O_RDWR", O_RDWR },
	{ "O_CREAT", O_CREAT }, { "O_EXCL", O_EXCL }, { "O_TRUNC", O_TRUNC },
	{ "O_APPEND", O_APPEND }, { "O_NONBLOCK", O_NONBLOCK }, { "O_NOCTTY", O_NOCTTY },
	{ "O_DIRECTORY", O_DIRECTORY }, { "O_NOFOLLOW", O_NOFOLLOW }, { "O_CLOEXEC", O_CLOEXEC },
};

/* The next word of a list at *p whose words are separated by any of the
 * characters in seps, as pjdfstest's strtok splits its lists: empty words
 * (a trailing, leading or doubled separator) are skipped; its own tests
 * write "O_RDONLY," with a trailing comma.  Returns the word and its
 * length in *len and moves *p past it, or NULL at the end. */
static const char *next_word(const char **p, const char *seps, size_t *len)
{
	while (**p && strchr(seps, **p))
		(*p)++;
	const char *w = *p;
	while (**p && !strchr(seps, **p))
		(*p)++;
	*len = (size_t)(*p - w);
	return *len ? w : NULL;
}

/* "O_WRONLY,O_CREAT" (',' or '|' between names; "none" or "0" for none). */
static long flags_arg(struct fst *f, const char *s, int *out)
{
	*out = 0;
	if (strcmp(s, "none") == 0 || strcmp(s, "0") == 0)
		return 0;
	size_t len;
	for (const char *p = s, *w; (w = next_word(&p, ",|", &len));) {
		unsigned i, n = sizeof(open_flags) / sizeof(open_flags[0]);
		for (i = 0; i < n; i++)
			if (strlen(open_flags[i].name) == len && strncmp(open_flags[i].name, w, len) == 0)
				break;
		if (i == n)
			return usage(f, "unknown open flag in", s);
		*out |= open_flags[i].flag;
	}
	return 0;
}

/* ---- the calls: a[0..n-1] are the arguments ------------------------- */

static long do_open(struct fst *f, char **a, int n)
{
	int flags;
	int64_t mode = 0;
	long r = flags_arg(f, a[1], &flags);
	if (r < 0)
		return r;
	if ((flags & O_CREAT) && n != 3)
		return usage(f, "open with O_CREAT needs a mode:", a[0]);
	if (!(flags & O_CREAT) && n != 2)
		return usage(f, "open without O_CREAT takes no mode:", a[0]);
	if (n == 3 && (r = num_arg(f, a[2], &mode)) < 0)
		return r;
	if (f->nfds == MAX_FDS)
		return usage(f, "too many descriptors at", a[0]);
	r = fso_open(a[0], flags, (uint32_t)mode);
	if (r < 0)
		return r;
	f->fds[f->nfds++] = (int)r;
	return 0;
}

static long do_create(struct fst *f, char **a, int n)
{
	(void)n;
	int64_t mode;
	long r = num_arg(f, a[1], &mode);
	if (r < 0)
		return r;
	r = fso_open(a[0], O_CREAT | O_EXCL | O_WRONLY, (uint32_t)mode);
	return r < 0 ? r : fso_close((int)r);
}

static long do_mkdir(struct fst *f, char **a, int n)
{
	(void)n;
	int64_t mode;
	long r = num_arg(f, a[1], &mode);
	return r < 0 ? r : fso_mkdir(a[0], (uint32_t)mode);
}

static long do_chmod(struct fst *f, char **a, int n)
{
	(void)n;
	int64_t mode;
	long r = num_arg(f, a[1], &mode);
	return r < 0 ? r : fso_chmod(a[0], (uint32_t)mode);
}

/* chown PATH UID GID (and lchown, fchown FD UID GID): -1 leaves one. */
static long owner_args(struct fst *f, char **a, uint32_t *uid, uint32_t *gid)
{
	int64_t u = 0, g = 0;
	long r = num_arg(f, a[1], &u);
	if (r == 0)
		r = num_arg(f, a[2], &g);
	*uid = (uint32_t)u;
	*gid = (uint32_t)g;
	return r;
}

static long do_chown(struct fst *f, char **a, int n)
{
	(void)n;
	uint32_t uid = 0, gid = 0;
	long r = owner_args(f, a, &uid, &gid);
	return r < 0 ? r : fso_chown(a[0], uid, gid);
}

static long do_lchown(struct fst *f, char **a, int n)
{
	(void)n;
	uint32_t uid = 0, gid = 0;
	long r = owner_args(f, a, &uid, &gid);
	return r < 0 ? r : fso_lchown(a[0], uid, gid);
}

static long do_fchown(struct fst *f, char **a, int n)
{
	(void)n;
	int fd;
	uint32_t uid = 0, gid = 0;
	long r = fd_arg(f, a[0], &fd);
	if (r == 0)
		r = owner_args(f, a, &uid, &gid);
	return r < 0 ? r : fso_fchown(fd, uid, gid);
}

/* utimens PATH ATIME MTIME: set both times (seconds), following a final
 * symlink (utimensat with AT_FDCWD and no flags). */
static long do_utimens(struct fst *f, char **a, int n)
{
	(void)n;
	int64_t at, mt;
	long r = num_arg(f, a[1], &at);
	if (r == 0)
		r = num_arg(f, a[2], &mt);
	return r < 0 ? r : fso_utimens(a[0], at, mt);
}

static long do_mknod(struct fst *f, char **a, int n)
{
	(void)n;
	static const struct { const char *name; uint32_t type; } types[] = {
		{ "c", 0020000 }, { "b", 0060000 }, { "f", 0010000 }, { "d", 0040000 }, { "o", 0100000 },
	};
	int64_t mode, ma, mi;
	long r = num_arg(f, a[2], &mode);
	if (r == 0)
		r = num_arg(f, a[3], &ma);
	if (r == 0)
		r = num_arg(f, a[4], &mi);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(types[i].name, a[1]) == 0)
			return fso_mknod(a[0], types[i].type | (uint32_t)mode, (uint32_t)ma, (uint32_t)mi);
	return usage(f, "unknown node type (c, b, f, d, o):", a[1]);
}

static long do_mkfifo(struct fst *f, char **a, int n)
{
	(void)n;
	int64_t mode;
	long r = num_arg(f, a[1], &mode);
	return r < 0 ? r : fso_mkfifo(a[0], (uint32_t)mode);
}

static long do_bind(struct fst *f, char **a, int n) { (void)f; (void)n; return fso_bind(a[0]); }

static long do_pathconf(struct fst *f, char **a, int n)
{
	(void)n;
	static const struct { const char *name; int value; } names[] = {
		{ "_PC_LINK_MAX", FSO_PC_LINK_MAX }, { "_PC_NAME_MAX", FSO_PC_NAME_MAX },
		{ "_PC_PATH_MAX", FSO_PC_PATH_MAX }, { "_PC_PIPE_BUF", FSO_PC_PIPE_BUF },
		{ "_PC_SYMLINK_MAX", FSO_PC_SYMLINK_MAX },
	};
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(names[i].name, a[1]) != 0)
			continue;
		long v;
		long r = fso_pathconf(a[0], names[i].value, &v);
		if (r < 0)
			return r;
		if (v == -1)
			snprintf(f->line, sizeof(f->line), "unlimited");
		else
			snprintf(f->line, sizeof(f->line), "%ld", v);
		f->emit(f->line, f->arg);
		return PRINTED;
	}
	return usage(f, "unknown pathconf name:", a[1]);
}

static long do_unlink(struct fst *f, char **a, int n)  { (void)f; (void)n; return fso_unlink(a[0]); }
static long do_rmdir(struct fst *f, char **a, int n)   { (void)f; (void)n; return fso_rmdir(a[0]); }
static long do_link(struct fst *f, char **a, int n)    { (void)f; (void)n; return fso_link(a[0], a[1]); }
static long do_symlink(struct fst *f, char **a, int n) { (void)f; (void)n; return fso_symlink(a[0], a[1]); }
static long do_rename(struct fst *f, char **a, int n)  { (void)f; (void)n; return fso_rename(a[0], a[1]); }
static long do_umount(struct fst *f, char **a, int n)  { (void)f; (void)n; return fso_umount(a[0]); }
static long do_mount(struct fst *f, char **a, int n)   { (void)f; (void)n; return fso_mount(a[0], a[1]); }

static long do_truncate(struct fst *f, char **a, int n)
{
	(void)n;
	int64_t len;
	long r = num_arg(f, a[1], &len);
	return r < 0 ? r : fso_truncate(a[0], len);
}

static long do_ftruncate(struct fst *f, char **a, int n)
{
	(void)n;
	int fd;
	int64_t len;
	long r = fd_arg(f, a[0], &fd);
	if (r == 0)
		r = num_arg(f, a[1], &len);
	return r < 0 ? r : fso_ftruncate(fd, len);
}

static long do_close(struct fst *f, char **a, int n)
{
	(void)n;
	int fd;
	long r = fd_arg(f, a[0], &fd);
	if (r < 0)
		return r;
	for (int i = 0; i < f->nfds; i++)
		if (f->fds[i] == fd)
			f->fds[i] = -1;    /* so that fstest_main does not close it again */
	return fso_close(fd);
}

static const char *type_name(uint32_t mode)
{
	switch (mode & 0170000) {
	case 0100000: return "regular";
	case 0040000: return "dir";
	case 0120000: return "symlink";
	case 0010000: return "fifo";
	case 0020000: return "char";
	case 0060000: return "block";
	case 0140000: return "socket";
	default:      return "unknown";
	}
}

/* Emit the fields of `which` ("type,mode,nlink"), comma-separated. */
static long show_stat(struct fst *f, const struct fso_stat *st, const char *which)
{
	size_t at = 0;
	f->line[0] = '\0';
	if (!*which)
		return usage(f, "no stat fields in", which);
	for (const char *p = which; *p;) {
		size_t len = 0;
		while (p[len] && p[len] != ',')
			len++;
		char field[16];
		if (len == 0 || len >= sizeof(field))
			return usage(f, "unknown stat field in", which);
		memcpy(field, p, len);
		field[len] = '\0';
		char *out = f->line + at;
		size_t room = sizeof(f->line) - at;
		const char *sep = at ? "," : "";
		if (strcmp(field, "type") == 0)
			snprintf(out, room, "%s%s", sep, type_name(st->mode));
		else if (strcmp(field, "mode") == 0)
			snprintf(out, room, "%s0%o", sep, (unsigned)(st->mode & 07777));
		else if (strcmp(field, "inode") == 0 || strcmp(field, "ino") == 0)
			snprintf(out, room, "%s%llu", sep, (unsigned long long)st->ino);
		else if (strcmp(field, "nlink") == 0)
			snprintf(out, room, "%s%u", sep, (unsigned)st->nlink);
		else if (strcmp(field, "uid") == 0)
			snprintf(out, room, "%s%u", sep, (unsigned)st->uid);
		else if (strcmp(field, "gid") == 0)
			snprintf(out, room, "%s%u", sep, (unsigned)st->gid);
		else if (strcmp(field, "size") == 0)
			snprintf(out, room, "%s%lld", sep, (long long)st->size);
		else if (strcmp(field, "blocks") == 0)
			snprintf(out, room, "%s%lld", sep, (long long)st->blocks);
		else if (strcmp(field, "atime") == 0)
			snprintf(out, room, "%s%lld", sep, (long long)st->atime);
		else if (strcmp(field, "mtime") == 0)
			snprintf(out, room, "%s%lld", sep, (long long)st->mtime);
		else if (strcmp(field, "ctime") == 0)
			snprintf(out, room, "%s%lld", sep, (long long)st->ctime);
		else if (strcmp(field, "major") == 0)
			snprintf(out, room, "%s%u", sep, (unsigned)st->rdev_major);
		else if (strcmp(field, "minor") == 0)
			snprintf(out, room, "%s%u", sep, (unsigned)st->rdev_minor);
		else
			return usage(f, "unknown stat field in", which);
		at += strlen(out);
		p += len + (p[len] == ',');
	}
	f->emit(f->line, f->arg);
	return PRINTED;
}

static long do_stat(struct fst *f, char **a, int n)
{
	(void)n;
	struct fso_stat st;
	long r = fso_stat(a[0], &st);
	return r < 0 ? r : show_stat(f, &st, a[1]);
}

static long do_lstat(struct fst *f, char **a, int n)
{
	(void)n;
	struct fso_stat st;
	long r = fso_lstat(a[0], &st);
	return r < 0 ? r : show_stat(f, &st, a[1]);
}

static long do_fstat(struct fst *f, char **a, int n)
{
	(void)n;
	struct fso_stat st;
	int fd;
	long r = fd_arg(f, a[0], &fd);
	if (r == 0)
		r = fso_fstat(fd, &st);
	return r < 0 ? r : show_stat(f, &st, a[1]);
}

/* pread FD COUNT OFFSET: read until COUNT bytes (at most 1024) or the end,
 * and print them as a string, as pjdfstest does. */
static long do_pread(struct fst *f, char **a, int n)
{
	(void)n;
	int fd;
	int64_t count, off;
	long r = fd_arg(f, a[0], &fd);
	if (r == 0)
		r = num_arg(f, a[1], &count);
	if (r == 0)
		r = num_arg(f, a[2], &off);
	if (r < 0)
		return r;
	if (count < 0)
		return usage(f, "negative count:", a[1]);
	if (count > 1024)
		count = 1024;
	memset(f->line, 0, sizeof(f->line));
	int64_t got = 0;
	do {
		r = fso_pread(fd, f->line + got, (size_t)(count - got), off + got);
		if (r < 0)
			return r;
		got += r;
	} while (r > 0 && got < count);
	f->emit(f->line, f->arg);
	return PRINTED;
}

static long do_pwrite(struct fst *f, char **a, int n)
{
	(void)n;
	int fd;
	int64_t off;
	long r = fd_arg(f, a[0], &fd);
	if (r == 0)
		r = num_arg(f, a[2], &off);
	if (r == 0)
		r = fso_pwrite(fd, a[1], strlen(a[1]), off);
	return r < 0 ? r : 0;
}

static long do_write(struct fst *f, char **a, int n)
{
	(void)n;
	int fd;
	long r = fd_arg(f, a[0], &fd);
	if (r == 0)
		r = fso_write(fd, a[1], strlen(a[1]));
	return r < 0 ? r : 0;
}

static long do_readlink(struct fst *f, char **a, int n)
{
	(void)n;
	memset(f->line, 0, sizeof(f->line));
	long r = fso_readlink(a[0], f->line, sizeof(f->line) - 1);
	if (r < 0)
		return r;
	f->emit(f->line, f->arg);
	return PRINTED;
}

static const struct call {
	const char *name;
	int min, max;            /* how many arguments */
	long (*fn)(struct fst *f, char **a, int n);
} calls[] = {
	{ "open", 2, 3, do_open },         { "create", 2, 2, do_create },
	{ "unlink", 1, 1, do_unlink },     { "mkdir", 2, 2, do_mkdir },
	{ "rmdir", 1, 1, do_rmdir },       { "link", 2, 2, do_link },
	{ "symlink", 2, 2, do_symlink },   { "rename", 2, 2, do_rename },
	{ "truncate", 2, 2, do_truncate }, { "ftruncate", 2, 2, do_ftruncate },
	{ "stat", 2, 2, do_stat },         { "lstat", 2, 2, do_lstat },
	{ "fstat", 2, 2, do_fstat },       { "pread", 3, 3, do_pread },
	{ "pwrite", 3, 3, do_pwrite },     { "write", 2, 2, do_write },
	{ "chmod", 2, 2, do_chmod },       { "close", 1, 1, do_close },
	{ "readlink", 1, 1, do_readlink }, { "mount", 2, 2, do_mount },
	{ "umount", 1, 1, do_umount },     { "chown", 3, 3, do_chown },
	{ "lchown", 3, 3, do_lchown },     { "fchown", 3, 3, do_fchown },
	{ "utimens", 3, 3, do_utimens },   { "mknod", 5, 5, do_mknod },
	{ "mkfifo", 2, 2, do_mkfifo },     { "bind", 1, 1, do_bind },
	{ "pathconf", 2, 2, do_pathconf },
};

/*
 * pjdfstest's options, before the first call: -u UID, -g GID[,GID...]
 * (the first is the group, all of them the supplementary groups) and
 * -U UMASK (0 if not given, so that modes are the ones asked for).
 * Sets *next to the first word after them.  0, or USAGE.
 */
static long parse_options(struct fst *f, int argc, char **argv, int *next, struct fso_creds *cr)
{
	int i = 1;
	*cr = (struct fso_creds){ .uid = -1, .umask = 0 };
	while (i < argc && argv[i][0] == '-' && argv[i][1] && !argv[i][2] &&
	       (argv[i][1] == 'u' || argv[i][1] == 'g' || argv[i][1] == 'U')) {
		char opt = argv[i][1];
		if (i + 1 == argc)
			return usage(f, "an option needs a value:", argv[i]);
		const char *v = argv[i + 1];
		int64_t x;
		if (opt == 'g') {
			cr->ngroups = 0;
			size_t len;
			for (const char *p = v, *w; (w = next_word(&p, ",", &len));) {
				char word[24];
				if (len >= sizeof(word) || cr->ngroups == FSO_NGROUPS)
					return usage(f, "bad group list:", v);
				memcpy(word, w, len);
				word[len] = '\0';
				if (!parse_num(word, &x) || x < 0 || x > 0xfffffffe)
					return usage(f, "bad group list:", v);
				cr->groups[cr->ngroups++] = (uint32_t)x;
			}
			if (cr->ngroups == 0)	/* pjdfstest would take an unset group */
				return usage(f, "bad group list:", v);
		} else if (!parse_num(v, &x) || x < 0 || x > (opt == 'U' ? 0777 : 0xfffffffe)) {
			return usage(f, opt == 'U' ? "bad umask:" : "bad uid:", v);
		} else if (opt == 'u') {
			cr->uid = x;
		} else {
			cr->umask = (uint32_t)x;
		}
		i += 2;
	}
	*next = i;
	return 0;
}

/* Run the chain; returns 0, 1 (a call failed) or 2 (usage). */
static int run_chain(struct fst *f, int argc, char **argv, int i)
{
	if (argc <= i)
		return usage(f, "usage: fstest [-u UID] [-g GID[,GID...]] [-U UMASK] SYSCALL ARGS... [: SYSCALL ARGS...]", NULL), 2;
	while (i < argc) {
		const struct call *c = NULL;
		for (unsigned k = 0; k < sizeof(calls) / sizeof(calls[0]); k++)
			if (strcmp(calls[k].name, argv[i]) == 0)
				c = &calls[k];
		if (!c)
			return usage(f, "unknown syscall", argv[i]), 2;
		int first = ++i;
		while (i < argc && strcmp(argv[i], ":") != 0)
			i++;
		int n = i - first;
		if (n < c->min || n > c->max)
			return usage(f, "wrong number of arguments for", c->name), 2;
		long r = c->fn(f, argv + first, n);
		if (r == USAGE)
			return 2;
		if (r < 0) {
			f->emit(errno_name((int)r), f->arg);
			return 1;
		}
		if (r != PRINTED)
			f->emit("0", f->arg);
		if (i < argc && ++i == argc)
			return usage(f, "nothing after", ":"), 2;
	}
	return 0;
}

int fstest_main(int argc, char **argv, void (*emit)(const char *line, void *arg),
		void (*emit_err)(const char *line, void *arg), void *arg)
{
	struct fst f = { .emit = emit, .emit_err = emit_err, .arg = arg };
	struct fso_creds cr;
	int first;
	if (parse_options(&f, argc, argv, &first, &cr) == USAGE)
		return 2;
	long err = fso_become(&cr);
	if (err < 0) {
		snprintf(f.line, sizeof(f.line), "fstest: cannot change credentials: %s",
			 errno_name((int)err));
		f.emit_err(f.line, f.arg);
		return 2;
	}
	int r = run_chain(&f, argc, argv, first);
	for (int i = 0; i < f.nfds; i++)
		if (f.fds[i] >= 0)
			fso_close(f.fds[i]);
	fso_restore(&cr);
	return r;
}
