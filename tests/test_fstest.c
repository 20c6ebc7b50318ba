/*
 * test_fstest.c: the fstest test files (tests/fstest/NAME.t) run inside
 * smpvfs, one case per file: by the kernel's own fstest (suite fstest)
 * and by the host's build of the same program, linked statically against
 * glibc, in user mode (suite fstest_user: one process per line).  tools/fstest/run.py runs the same files on
 * Linux, so every expectation here has been checked against a real
 * kernel.  The files reach the kernel in the initramfs that `make test`
 * builds (build/initrd.cpio holds /tests/fstest/NAME.t); booted without it,
 * the cases are skipped.
 *
 * The format (run.py's docstring has it in full): `expect RESULT CALL
 * ARGS...` compares fstest's last output line with RESULT (`A|B`: either);
 * `set NAME CALL ARGS...` keeps the last line as $NAME; {STR*N} is STR
 * repeated N times.  Each file runs in a fresh ramfs mounted at
 * /fstest-tmp/FILE, which is the working directory meanwhile, and every
 * dentry and inode it made must be gone after the unmount.
 */
#include "kernel/ktest.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/cred.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "shell/fstest.h"
#include "tests/user_run.h"
#include "tests/test_disk.h"
#include "tests/fstest_run.h"

#define USER_FSTEST "/tests/bin/fstest"   /* the host's build, static (Makefile) */

#define TDIR      "/tests/fstest"
#define WORK      "/fstest-tmp"
#define MAX_FILE  (64 * 1024)
#define MAX_WORDS 64
#define WORD_MAX  (2 * PATH_MAX)     /* an expanded word: {n*4096} and more */
#define MAX_VARS  16
#define OUT_MAX   1200

struct var {
	char name[32];
	char value[128];
};

struct runner {
	const char *file;
	bool user;                       /* run /tests/bin/fstest in user mode, not fstest_main */
	char out_path[64];               /* user: where its output goes */
	char *words[MAX_WORDS];          /* WORD_MAX bytes each */
	struct var vars[MAX_VARS];
	unsigned nvars;
	char last[OUT_MAX];              /* fstest's last output line */
	unsigned expectations, failed;
	bool shown;                      /* print every failure (ktest_check's count cuts them) */
};

static void keep_last(const char *line, void *arg)
{
	strlcpy(arg, line, OUT_MAX);
}

/* A usage error is no result: as on the host, where it goes to the error
 * stream, the expectation then fails (and says why). */
static void keep_usage(const char *line, void *arg)
{
	snprintf(arg, OUT_MAX, "(usage error: %s)", line);
}

static const char *var_value(struct runner *r, const char *name, size_t len)
{
	for (unsigned i = 0; i < r->nvars; i++)
		if (strlen(r->vars[i].name) == len && strncmp(r->vars[i].name, name, len) == 0)
			return r->vars[i].value;
	return NULL;
}

static bool is_name_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Expand {STR*N} and $NAME in the word w[0..n) into out (WORD_MAX). */
static bool expand(struct runner *r, const char *w, size_t n, char *out)
{
	size_t at = 0;
	for (size_t i = 0; i < n;) {
		const char *rep = NULL;
		size_t rlen = 0, times = 1, skip = 1;
		if (w[i] == '{') {
			size_t j = i + 1, star = 0;
			while (j < n && w[j] != '}' && w[j] != '{')
				if (w[j++] == '*' && !star)
					star = j - 1;
			uint64_t v;
			if (j < n && w[j] == '}' && star > i + 1 &&
			    parse_u64(w + star + 1, j - star - 1, &v) == 0) {
				rep = w + i + 1;
				rlen = star - i - 1;
				times = (size_t)v;
				skip = j + 1 - i;
			}
		} else if (w[i] == '$') {
			size_t j = i + 1;
			while (j < n && is_name_char(w[j]))
				j++;
			rep = var_value(r, w + i + 1, j - i - 1);
			if (rep) {
				rlen = strlen(rep);
				skip = j - i;
			}
		}
		if (!rep) {
			rep = w + i;
			rlen = 1;
		}
		if (times && rlen > (WORD_MAX - 1 - at) / times)
			return false;
		for (size_t t = 0; t < times; t++, at += rlen)
			memcpy(out + at, rep, rlen);
		i += skip;
	}
	out[at] = '\0';
	return true;
}

/* Split a line into expanded words; returns how many (-1: too many or
 * too long). */
static int split(struct runner *r, const char *line, size_t len)
{
	int n = 0;
	for (size_t i = 0; i < len;) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		size_t start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		if (i == start)
			break;
		if (n == MAX_WORDS || !expand(r, line + start, i - start, r->words[n]))
			return -1;
		n++;
	}
	return n;
}

/* Does `got` equal one of the '|'-separated alternatives of `want`? */
static bool matches(const char *want, const char *got)
{
	size_t glen = strlen(got);
	for (const char *p = want;;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == glen && strncmp(p, got, len) == 0)
			return true;
		if (!bar)
			return false;
		p = bar + 1;
	}
}

static void fail_line(struct runner *r, unsigned lineno, const char *fmt, const char *a,
		      const char *b)
{
	char msg[200];
	snprintf(msg, sizeof(msg), fmt, a, b);
	if (r->shown)
		kprintf("    # %s.t:%u: %s\n", r->file, lineno, msg);
	ktest_check(false, __FILE__, __LINE__, "%s.t:%u: %s", r->file, lineno, msg);
	r->failed++;
}

/* The static Linux build of fstest as a user process: argv as for
 * fstest_main, its last line of standard output in r->last (a usage
 * error goes to its error stream, as on the host: "(no output)"). */
static void run_user_fstest(struct runner *r, int argc, char **argv)
{
	char **args = kcalloc((size_t)argc + 1, sizeof(char *));
	char *out = kmalloc(OUT_MAX * 4);
	if (!args || !out) {
		kfree(args);
		kfree(out);
		return;
	}
	args[0] = "fstest";
	for (int i = 1; i < argc; i++)
		args[i] = argv[i];
	int status;
	int err = user_run(USER_FSTEST, args, r->out_path, &status);
	if (err) {
		snprintf(r->last, OUT_MAX, "(cannot run " USER_FSTEST ": %d)", err);
	} else if (user_read_file(r->out_path, out, OUT_MAX * 4) > 0) {
		size_t len = strlen(out);
		if (len && out[len - 1] == '\n')
			out[--len] = '\0';	/* the last line's end; an empty line before it stays */
		char *last = out;
		for (char *p = out; *p; p++)
			if (*p == '\n')
				last = p + 1;
		strlcpy(r->last, last, OUT_MAX);
	}
	kfree(args);
	kfree(out);
}

static void run_line(struct runner *r, unsigned lineno, const char *line, size_t len)
{
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len || line[i] == '#')
		return;                 /* blank or a comment */
	int n = split(r, line, len);
	if (n < 0) {
		fail_line(r, lineno, "too many words, or a word too long%s%s", "", "");
		return;
	}
	if (n < 3 || (strcmp(r->words[0], "expect") != 0 && strcmp(r->words[0], "set") != 0)) {
		fail_line(r, lineno, "not 'expect RESULT CALL...' or 'set NAME CALL...'%s%s", "", "");
		return;
	}
	/* argv for fstest_main: words[1] stands in for argv[0] (ignored). */
	strlcpy(r->last, "(no output)", sizeof(r->last));
	if (r->user)
		run_user_fstest(r, n - 1, r->words + 1);
	else
		fstest_main(n - 1, r->words + 1, keep_last, keep_usage, r->last);
	if (strcmp(r->words[0], "set") == 0) {
		if (r->nvars == MAX_VARS) {
			fail_line(r, lineno, "too many variables%s%s", "", "");
			return;
		}
		strlcpy(r->vars[r->nvars].name, r->words[1], sizeof(r->vars[0].name));
		strlcpy(r->vars[r->nvars++].value, r->last, sizeof(r->vars[0].value));
		return;
	}
	r->expectations++;
	const char *want = r->words[1];
	if (!matches(want, r->last)) {
		char shown[100];
		size_t at = 0;
		for (int i = 2; i < n && at < sizeof(shown) - 1; i++)
			at += snprintf(shown + at, sizeof(shown) - at, "%s%.40s", i > 2 ? " " : "",
				       r->words[i]);
		char msg[64];
		snprintf(msg, sizeof(msg), "%.40s, got %.20s", want, r->last);
		fail_line(r, lineno, "expected %s: fstest %s", msg, shown);
	}
}

/* Every line of a file's text, in the current directory. */
static void run_text(struct runner *r, const char *text)
{
	unsigned lineno = 1;
	for (const char *p = text; *p; lineno++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		run_line(r, lineno, p, n);
		p += n + (nl != NULL);
	}
}

/* Read path into a new buffer (NUL-terminated); NULL if it is not there. */
static char *read_file(const char *path, long *len)
{
	int fd = sys_open(path, O_RDONLY, 0);
	if (fd < 0)
		return NULL;
	char *buf = kmalloc(MAX_FILE + 1);
	long n = 0, r = 0;
	while (buf && n < MAX_FILE && (r = sys_read(fd, buf + n, MAX_FILE - n)) > 0)
		n += r;
	sys_close(fd);
	if (buf && r < 0) {
		kfree(buf);
		return NULL;
	}
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

/* user: through the static Linux build of fstest in user mode, else the
 * in-kernel fstest.  bdev NULL: a fresh ramfs; else an ext2 disk mounted
 * there, the file run in a new directory of it (what it leaves stays for
 * e2fsck). */
static void run_file_as(const char *name, bool user, struct block_device *bdev)
{
	char path[96], dir[96];
	snprintf(path, sizeof(path), TDIR "/%s.t", name);
	snprintf(dir, sizeof(dir), WORK "/%s%s", user ? "u-" : "", name);
	long len;
	char *text = read_file(path, &len);
	if (!text)
		ktest_skip("no " TDIR " in the root: boot with make test's initramfs");
	if (user) {
		int fd = sys_open(USER_FSTEST, O_RDONLY, 0);
		if (fd < 0)
			ktest_skip("no " USER_FSTEST " in the root: boot with make test's initramfs");
		sys_close(fd);
	}
	struct runner *r = kzalloc(sizeof(*r));
	ASSERT_NOT_NULL(r);
	r->file = name;
	r->user = user;
	snprintf(r->out_path, sizeof(r->out_path), WORK "/u-%s.out", name);
	bool words_ok = true;
	for (int i = 0; i < MAX_WORDS; i++)
		words_ok &= (r->words[i] = kmalloc(WORD_MAX)) != NULL;

	int e = sys_mkdir(WORK, 0755);
	EXPECT_TRUE(e == 0 || e == -EEXIST);
	EXPECT_EQ(sys_mkdir(dir, 0755), 0);
	if (user) {	/* made before the count: only truncated while the file runs */
		sys_close(sys_open(r->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644));
		/* And one run first: what glibc looks up as it starts (negative
		 * dentries outside the test's mount) is cached before the count. */
		char *const warm[] = { "fstest", NULL };
		int status;
		user_run(USER_FSTEST, warm, r->out_path, &status);
	}
	char dev[24], work[128];
	snprintf(dev, sizeof(dev), "/dev/%s", bdev ? bdev->name : "");
	struct kstat st;	/* the device's dentries cached before the count, not by the mount */
	EXPECT_TRUE(!bdev || sys_stat(dev, &st) == 0);
	uint64_t dentries0 = dcache_live(), inodes0 = icache_live();
	snprintf(work, sizeof(work), "%s/%s.%lu", dir, name, ktest_seed() % 1000000);
	int mounted = bdev ? sys_mount_from(dev, dir, "ext2", 0, NULL) : sys_mount("ramfs", dir, NULL);
	if (words_ok && EXPECT_EQ(mounted, 0)) {
		if (bdev)
			EXPECT_EQ(sys_mkdir(work, 0777), 0);
		EXPECT_EQ(sys_chdir(bdev ? work : dir), 0);
		run_text(r, text);
		EXPECT_EQ(sys_chdir("/"), 0);
		EXPECT_EQ(sys_umount(dir), 0);
		EXPECT_EQ(dcache_live(), dentries0);
		EXPECT_EQ(icache_live(), inodes0);
		kprintf("    # %s.t: %u expectations, %u failed\n", name, r->expectations, r->failed);
	}
	EXPECT_EQ(sys_rmdir(dir), 0);
	if (user)
		sys_unlink(r->out_path);
	EXPECT_GT(r->expectations, 0u);
	for (int i = 0; i < MAX_WORDS; i++)
		kfree(r->words[i]);
	kfree(r);
	kfree(text);
}

/* The files, one case each; every_file_has_a_case keeps the list true. */
static const char *const files[] = {
	"chmod", "io", "link", "mkdir", "mount", "open", "rename", "rmdir", "stat",
	"symlink", "truncate", "unlink", "perm_walk", "perm_open", "perm_dir", "sticky",
	"chown", "chmod_owner", "create_owner", "perm_link", "mknod", "mkfifo", "special",
	"fifo_open",
};

/*
 * For tests/test_p9.c: every file in a new directory of top (on a 9p
 * mount; top/NAME, made 0755, its working directory), with the in-kernel
 * fstest, every failure printed.  No mount of its own: what the files
 * leave stays (the server's folder), and no count of dentries is taken
 * (the mount's dentries stay cached).
 */
void fstest_run_files_in(const char *top)
{
	char path[96], dir[96];
	unsigned expectations = 0, failed = 0;
	for (unsigned f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		snprintf(path, sizeof(path), TDIR "/%s.t", files[f]);
		snprintf(dir, sizeof(dir), "%s/%s", top, files[f]);
		long len;
		char *text = read_file(path, &len);
		if (!text)
			ktest_skip("no " TDIR " in the root: boot with make test's initramfs");
		struct runner *r = kzalloc(sizeof(*r));
		bool words_ok = r != NULL;
		for (int i = 0; r && i < MAX_WORDS; i++)
			words_ok &= (r->words[i] = kmalloc(WORD_MAX)) != NULL;
		if (words_ok && EXPECT_EQ(sys_mkdir(dir, 0755), 0) && EXPECT_EQ(sys_chdir(dir), 0)) {
			r->file = files[f];
			r->shown = true;
			run_text(r, text);
			EXPECT_EQ(sys_chdir("/"), 0);
			expectations += r->expectations;
			failed += r->failed;
		}
		for (int i = 0; r && i < MAX_WORDS; i++)
			kfree(r->words[i]);
		kfree(r);
		kfree(text);
	}
	kprintf("    # fstest files in %s: %u expectations, %u failed\n", top, expectations, failed);
	EXPECT_GT(expectations, 1000u);
}

static void run_file(const char *name)
{
	run_file_as(name, false, NULL);
}

static void run_file_user(const char *name)
{
	run_file_as(name, true, NULL);
}

#define FSTEST_FILE(name) static void name##_t(void) { run_file(#name); } \
	static void name##_u(void) { run_file_user(#name); }
FSTEST_FILE(chmod)
FSTEST_FILE(io)
FSTEST_FILE(link)
FSTEST_FILE(mkdir)
FSTEST_FILE(mount)
FSTEST_FILE(open)
FSTEST_FILE(rename)
FSTEST_FILE(rmdir)
FSTEST_FILE(stat)
FSTEST_FILE(symlink)
FSTEST_FILE(truncate)
FSTEST_FILE(unlink)
FSTEST_FILE(perm_walk)
FSTEST_FILE(perm_open)
FSTEST_FILE(perm_dir)
FSTEST_FILE(sticky)
FSTEST_FILE(chown)
FSTEST_FILE(chmod_owner)
FSTEST_FILE(create_owner)
FSTEST_FILE(perm_link)
FSTEST_FILE(mknod)
FSTEST_FILE(mkfifo)
FSTEST_FILE(special)
FSTEST_FILE(fifo_open)

static void every_file_has_a_case(void)
{
	int fd = sys_open(TDIR, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		ktest_skip("no " TDIR " in the root: boot with make test's initramfs");
	char buf[1024];
	long n;
	unsigned seen = 0;
	while ((n = sys_getdents(fd, buf, sizeof(buf))) > 0) {
		for (long at = 0; at < n;) {
			struct linux_dirent64 *d = (void *)(buf + at);
			at += d->d_reclen;
			size_t len = strlen(d->d_name);
			if (len < 3 || strcmp(d->d_name + len - 2, ".t") != 0)
				continue;
			bool listed = false;
			for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++)
				listed |= strlen(files[i]) == len - 2 &&
					  strncmp(files[i], d->d_name, len - 2) == 0;
			ktest_check(listed, __FILE__, __LINE__,
				    "%s has no case in tests/test_fstest.c", d->d_name);
			seen++;
		}
	}
	EXPECT_EQ(n, 0);
	sys_close(fd);
	EXPECT_EQ(seen, (unsigned)(sizeof(files) / sizeof(files[0])));
}

/* Malformed command lines give a usage error (2), never a crash. */
static void count_lines(const char *line, void *arg)
{
	(void)line;
	++*(unsigned *)arg;
}

/* Results before the bad word may come; a usage message must not. */
static void no_usage_line(const char *line, void *arg)
{
	(void)arg;
	ktest_check(strncmp(line, "fstest: ", 8) != 0, __FILE__, __LINE__,
		    "a usage error among the results: %s", line);
}

static void no_line(const char *line, void *arg)
{
	(void)arg;
	ktest_check(false, __FILE__, __LINE__, "a line on the error stream: %s", line);
}

static void usage_errors(void)
{
	static const char *const bad[][7] = {
		{ "fstest" },
		{ "fstest", "nosuchcall", "x" },
		{ "fstest", "mkdir", "d" },
		{ "fstest", "mkdir", "d", "0755", "extra" },
		{ "fstest", "mkdir", "d", "08" },
		{ "fstest", "mkdir", "d", "0x" },
		{ "fstest", "mkdir", "d", "-" },
		{ "fstest", "truncate", "f", "99999999999999999999" },
		{ "fstest", "open", "f", "O_BOGUS" },
		{ "fstest", "open", "f", "O_RDONLY,,O_BOGUS" },
		{ "fstest", "open", "f", "O_CREAT" },
		{ "fstest", "open", "f", "O_RDONLY", "0644" },
		{ "fstest", "fstat", "0", "type" },
		{ "fstest", "write", "-1", "x" },
		{ "fstest", "stat", ".", "type,bogus" },
		{ "fstest", "stat", ".", "" },
		{ "fstest", "stat", ".", "type", ":" },
		{ "fstest", ":" },
		{ "fstest", "pread", "BADFD", "-1", "0" },
		{ "fstest", "-u" },
		{ "fstest", "-u", "0" },
		{ "fstest", "-u", "x", "stat", ".", "type" },
		{ "fstest", "-g", ",", "stat", ".", "type" },
		{ "fstest", "-g", "", "stat", ".", "type" },
		{ "fstest", "-U", "0800", "stat", ".", "type" },
		{ "fstest", "mknod", "n", "x", "0644", "0" },
		{ "fstest", "mknod", "n", "z", "0644", "0", "0" },
		{ "fstest", "mknod", "n", "c", "0644", "x", "0" },
		{ "fstest", "pathconf", ".", "_PC_BOGUS" },
		{ "fstest", "mkfifo", "p" },
		{ "fstest", "bind" },
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int argc = 0;
		while (argc < 7 && bad[i][argc])
			argc++;
		unsigned lines = 0;
		int r = fstest_main(argc, (char **)bad[i], no_usage_line, count_lines, &lines);
		ktest_check(r == 2, __FILE__, __LINE__, "line %u of the list (%s %s): status %d, not 2",
			    i, argc > 1 ? bad[i][1] : "", argc > 2 ? bad[i][2] : "", r);
		EXPECT_GE(lines, 1u);      /* the usage message */
	}
	/* A success and a failure, for contrast. */
	unsigned lines = 0;
	char *ok[] = { "fstest", "stat", "/", "type", ":", "stat", "/nothere", "type", NULL };
	EXPECT_EQ(fstest_main(8, ok, count_lines, no_line, &lines), 1);
	EXPECT_EQ(lines, 2u);
}

/* -u, -g and -U last for the invocation only: the caller's credentials
 * are back afterwards, and the chain ran with the ones asked for. */
static void options_restore_credentials(void)
{
	const struct cred *before = current_cred();
	uint32_t umask0 = before->umask;
	char *argv[] = { "fstest", "-u", "65534", "-g", "65533,7", "-U", "077", "mkdir",
			 "/fstest-opt/d", "0777", ":", "stat", "/fstest-opt/d", "uid,gid,mode", NULL };
	char last[OUT_MAX];
	EXPECT_EQ(sys_mkdir("/fstest-opt", 0777), 0);
	EXPECT_EQ(sys_chmod("/fstest-opt", 0777), 0);
	EXPECT_EQ(fstest_main(14, argv, keep_last, no_line, last), 0);
	EXPECT_STREQ(last, "65534,65533,0700");
	EXPECT_EQ(current_cred(), before);
	EXPECT_EQ(current_cred()->uid, 0u);
	EXPECT_EQ(current_cred()->umask, umask0);
	EXPECT_EQ(sys_rmdir("/fstest-opt/d"), 0);
	EXPECT_EQ(sys_rmdir("/fstest-opt"), 0);
}

static const struct ktest_case fstest_cases[] = {
	KTEST_CASE(options_restore_credentials),
	KTEST_CASE(usage_errors),
	KTEST_CASE(every_file_has_a_case),
	KTEST_CASE(chmod_t),
	KTEST_CASE(io_t),
	KTEST_CASE(link_t),
	KTEST_CASE(mkdir_t),
	KTEST_CASE(mount_t),
	KTEST_CASE(open_t),
	KTEST_CASE(rename_t),
	KTEST_CASE(rmdir_t),
	KTEST_CASE(stat_t),
	KTEST_CASE(symlink_t),
	KTEST_CASE(truncate_t),
	KTEST_CASE(unlink_t),
	KTEST_CASE(perm_walk_t),
	KTEST_CASE(perm_open_t),
	KTEST_CASE(perm_dir_t),
	KTEST_CASE(sticky_t),
	KTEST_CASE(chown_t),
	KTEST_CASE(chmod_owner_t),
	KTEST_CASE(create_owner_t),
	KTEST_CASE(perm_link_t),
	KTEST_CASE(mknod_t),
	KTEST_CASE(mkfifo_t),
	KTEST_CASE(special_t),
	KTEST_CASE(fifo_open_t),
};
KTEST_SUITE(fstest, fstest_cases);

/* The same files through the static Linux build of fstest in user mode:
 * the third way (the host's Linux and the in-kernel fstest are the other
 * two), through the real system-call entry and the user copies. */
static const struct ktest_case fstest_user_cases[] = {
	KTEST_CASE(chmod_u),
	KTEST_CASE(io_u),
	KTEST_CASE(link_u),
	KTEST_CASE(mkdir_u),
	KTEST_CASE(mount_u),
	KTEST_CASE(open_u),
	KTEST_CASE(rename_u),
	KTEST_CASE(rmdir_u),
	KTEST_CASE(stat_u),
	KTEST_CASE(symlink_u),
	KTEST_CASE(truncate_u),
	KTEST_CASE(unlink_u),
	KTEST_CASE(perm_walk_u),
	KTEST_CASE(perm_open_u),
	KTEST_CASE(perm_dir_u),
	KTEST_CASE(sticky_u),
	KTEST_CASE(chown_u),
	KTEST_CASE(chmod_owner_u),
	KTEST_CASE(create_owner_u),
	KTEST_CASE(perm_link_u),
	KTEST_CASE(mknod_u),
	KTEST_CASE(mkfifo_u),
	KTEST_CASE(special_u),
	KTEST_CASE(fifo_open_u),
};
KTEST_SUITE(fstest_user, fstest_user_cases);
/* The same files on ext2 (the disk of role "scratch"): a disk filesystem
 * must give what ramfs and Linux give. */
#define FSTEST_EXT2(name) static void name##_ext2(void) { run_file_as(#name, false, test_disk_or_skip("scratch")); }
FSTEST_EXT2(chmod)
FSTEST_EXT2(io)
FSTEST_EXT2(link)
FSTEST_EXT2(mkdir)
FSTEST_EXT2(mount)
FSTEST_EXT2(open)
FSTEST_EXT2(rename)
FSTEST_EXT2(rmdir)
FSTEST_EXT2(stat)
FSTEST_EXT2(symlink)
FSTEST_EXT2(truncate)
FSTEST_EXT2(unlink)
FSTEST_EXT2(perm_walk)
FSTEST_EXT2(perm_open)
FSTEST_EXT2(perm_dir)
FSTEST_EXT2(sticky)
FSTEST_EXT2(chown)
FSTEST_EXT2(chmod_owner)
FSTEST_EXT2(create_owner)
FSTEST_EXT2(perm_link)
FSTEST_EXT2(mknod)
FSTEST_EXT2(mkfifo)
FSTEST_EXT2(special)
FSTEST_EXT2(fifo_open)

static const struct ktest_case fstest_ext2_cases[] = {
	KTEST_CASE(chmod_ext2), KTEST_CASE(io_ext2), KTEST_CASE(link_ext2),
	KTEST_CASE(mkdir_ext2), KTEST_CASE(mount_ext2), KTEST_CASE(open_ext2),
	KTEST_CASE(rename_ext2), KTEST_CASE(rmdir_ext2), KTEST_CASE(stat_ext2),
	KTEST_CASE(symlink_ext2), KTEST_CASE(truncate_ext2), KTEST_CASE(unlink_ext2),
	KTEST_CASE(perm_walk_ext2), KTEST_CASE(perm_open_ext2), KTEST_CASE(perm_dir_ext2),
	KTEST_CASE(sticky_ext2), KTEST_CASE(chown_ext2), KTEST_CASE(chmod_owner_ext2),
	KTEST_CASE(create_owner_ext2), KTEST_CASE(perm_link_ext2), KTEST_CASE(mknod_ext2),
	KTEST_CASE(mkfifo_ext2), KTEST_CASE(special_ext2), KTEST_CASE(fifo_open_ext2),
};
KTEST_SUITE(fstest_ext2, fstest_ext2_cases);
