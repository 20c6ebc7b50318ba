/*
 * cmd_files.c: changing the namespace: mkdir, rmdir, touch, rm, mv, ln,
 * mknod, mkfifo;
 * and the current directory: cd, pwd.
 *
 * One group of the table's commands (commands.c); each part below starts
 * with what its commands do.
 */
#include "shell/cmd.h"
#include "shell/dirlist.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

/*
 * Changing the namespace: mkdir, rmdir, touch, rm, mv, ln.
 *
 * Each is a thin loop over the file layer's calls (fs/syscalls.h); the
 * only logic of their own is mkdir -p (make each prefix, an existing
 * directory is fine), rm -r (children first, depth-first, through
 * dirlist.c) and mv into a directory (mv a dir -> dir/a).
 */

#define RM_DEPTH 32

static bool is_dir(const char *path)
{
	struct kstat st;
	return sys_stat(path, &st) == 0 && S_ISDIR(st.mode);
}

/* mkdir -p: every prefix of path that ends before a slash, then path.
 * Any path the kernel takes (up to PATH_MAX, with its NUL), so the
 * prefixes are built on the heap (a thread's stack is 16 KiB). */
static int mkdir_parents(const char *path)
{
	size_t n = strlen(path);
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	char *buf = kmalloc(PATH_MAX);
	if (!buf)
		return -ENOMEM;
	int err = 0;
	for (size_t i = 1; i <= n && !err; i++) {
		if (i < n && path[i] != '/')
			continue;
		memcpy(buf, path, i);
		buf[i] = '\0';
		err = sys_mkdir(buf, 0755);
		if (err == -EEXIST && is_dir(buf))
			err = 0;
	}
	kfree(buf);
	return err < 0 ? err : 0;
}

int cmd_mkdir(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t opts;
	int first = sh_options(c, argc, argv, "p", &opts), status = 0;
	if (first < 0)
		return 2;
	if (first == argc)
		return sh_usage(c, "expected a directory");
	for (int i = first; i < argc; i++) {
		int err = (opts & OPT('p')) ? mkdir_parents(argv[i]) : sys_mkdir(argv[i], 0755);
		if (err < 0)
			status = sh_errno(c, argv[i], err);
	}
	return status;
}

int cmd_rmdir(struct sh_ctx *c, int argc, char **argv)
{
	int status = 0;
	if (argc < 2)
		return sh_usage(c, "expected a directory");
	for (int i = 1; i < argc; i++) {
		int err = sys_rmdir(argv[i]);
		if (err < 0)
			status = sh_errno(c, argv[i], err);
	}
	return status;
}

int cmd_touch(struct sh_ctx *c, int argc, char **argv)
{
	int status = 0;
	if (argc < 2)
		return sh_usage(c, "expected a file");
	for (int i = 1; i < argc; i++) {
		int fd = sys_open(argv[i], O_WRONLY | O_CREAT, 0644);
		if (fd < 0 && fd == -EISDIR)
			continue;	/* a directory exists: nothing to create */
		if (fd < 0)
			status = sh_errno(c, argv[i], fd);
		else
			sys_close(fd);
	}
	return status;
}

/* Remove path (in a PATH_MAX buffer, which it extends and restores) and,
 * if it is a directory, everything under it; prints errors itself and
 * returns 0 or 1. */
static int remove_tree(struct sh_ctx *c, char *path, unsigned depth)
{
	struct kstat st;
	int err = sys_lstat(path, &st);
	if (err < 0)
		return sh_errno(c, path, err);
	if (!S_ISDIR(st.mode)) {
		err = sys_unlink(path);
		return err < 0 ? sh_errno(c, path, err) : 0;
	}
	if (depth >= RM_DEPTH)
		return sh_error(c, "%s: nested too deep", path);
	struct sh_dir d;
	if ((err = sh_read_dir(path, false, &d)) < 0)
		return sh_errno(c, path, err);
	size_t n = strlen(path);
	int status = 0;
	for (unsigned i = 0; i < d.n && !sh_interrupted(); i++) {
		if (!sh_join(path + n, PATH_MAX - n, path[n - 1] == '/' ? "" : "/", d.ents[i].name)) {
			status = sh_error(c, "%s/%s: path too long", path, d.ents[i].name);
			continue;
		}
		status |= remove_tree(c, path, depth + 1);
		path[n] = '\0';
	}
	sh_dir_free(&d);
	if (status == 0 && !sh_interrupted() && (err = sys_rmdir(path)) < 0)
		status = sh_errno(c, path, err);
	return status;
}

int cmd_rm(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t opts;
	int first = sh_options(c, argc, argv, "rf", &opts), status = 0;
	if (first < 0)
		return 2;
	if (first == argc)
		return sh_usage(c, "expected a path");
	char *buf = kmalloc(PATH_MAX);
	if (!buf)
		return sh_error(c, "out of memory");
	for (int i = first; i < argc && !sh_interrupted(); i++) {
		struct kstat st;
		int err = sys_lstat(argv[i], &st);
		if (err == -ENOENT && (opts & OPT('f')))
			continue;
		if (err < 0) {
			status = sh_errno(c, argv[i], err);
		} else if (S_ISDIR(st.mode) && !(opts & OPT('r'))) {
			status = sh_error(c, "%s: is a directory (rm -r removes one)", argv[i]);
		} else if (opts & OPT('r')) {
			if (strlen(argv[i]) >= PATH_MAX) {
				status = sh_errno(c, argv[i], -ENAMETOOLONG);
				continue;
			}
			strlcpy(buf, argv[i], PATH_MAX);
			status |= remove_tree(c, buf, 0);
		} else if ((err = sys_unlink(argv[i])) < 0) {
			status = sh_errno(c, argv[i], err);
		}
	}
	kfree(buf);
	return status;
}

static const char *base_name(const char *path)
{
	const char *end = path + strlen(path);
	while (end > path + 1 && end[-1] == '/')
		end--;
	const char *b = end;
	while (b > path && b[-1] != '/')
		b--;
	return b;
}

int cmd_mv(struct sh_ctx *c, int argc, char **argv)
{
	if (argc != 3)
		return sh_usage(c, "expected OLD and NEW");
	char *target = kmalloc(PATH_MAX);	/* DIR/NAME, as long as the kernel takes */
	if (!target)
		return sh_error(c, "out of memory");
	const char *to = argv[2];
	int status = 0;
	if (is_dir(argv[2]) && !is_dir(argv[1])) {
		if (sh_join(target, PATH_MAX, argv[2], base_name(argv[1])))
			to = target;
		else
			status = sh_errno(c, argv[2], -ENAMETOOLONG);
	}
	int err = status ? 0 : sys_rename(argv[1], to);
	if (err < 0)
		status = sh_error(c, "%s -> %s: %s", argv[1], to, sh_strerror(err));
	kfree(target);
	return status;
}

int cmd_ln(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t opts;
	int first = sh_options(c, argc, argv, "s", &opts);
	if (first < 0)
		return 2;
	if (argc - first != 2)
		return sh_usage(c, "expected TARGET and NAME");
	const char *target = argv[first], *name = argv[first + 1];
	int err = (opts & OPT('s')) ? sys_symlink(target, name) : sys_link(target, name);
	if (err < 0)
		return sh_error(c, "%s -> %s: %s", name, target, sh_strerror(err));
	return 0;
}

/*
 * mknod NAME TYPE [MAJOR MINOR] and mkfifo NAME...: special files, mode
 * 0666 less the umask, as coreutils makes them.  TYPE is p (a FIFO), c or
 * u (a character device) or b (a block device); devices need the
 * numbers (decimal), FIFOs take none.  Only root may make devices.
 */

static bool parse_u32(const char *s, uint32_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || (v = v * 10 + (uint64_t)(*s - '0')) > 0xffffffffu)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

int cmd_mknod(struct sh_ctx *c, int argc, char **argv)
{
	if (argc != 3 && argc != 5)
		return sh_usage(c, "expected NAME TYPE [MAJOR MINOR]");
	const char *t = argv[2];
	uint32_t type = strcmp(t, "p") == 0 ? S_IFIFO : strcmp(t, "b") == 0 ? S_IFBLK :
			strcmp(t, "c") == 0 || strcmp(t, "u") == 0 ? S_IFCHR : 0;
	if (!type)
		return sh_usage(c, "'%s': TYPE is p, c, u or b", t);
	if ((type == S_IFIFO) != (argc == 3))
		return sh_usage(c, type == S_IFIFO ? "a FIFO takes no device numbers" :
						     "a device needs MAJOR and MINOR");
	uint32_t ma = 0, mi = 0;
	if (argc == 5 && (!parse_u32(argv[3], &ma) || !parse_u32(argv[4], &mi) || ma > 0xfff ||
			  mi > 0xfffff))
		return sh_usage(c, "MAJOR (up to 4095) and MINOR (up to 1048575) are numbers");
	int err = sys_mknod(argv[1], type | 0666, makedev(ma, mi));
	return err < 0 ? sh_errno(c, argv[1], err) : 0;
}

int cmd_mkfifo(struct sh_ctx *c, int argc, char **argv)
{
	int status = 0;
	if (argc < 2)
		return sh_usage(c, "expected a name");
	for (int i = 1; i < argc; i++) {
		int err = sys_mkfifo(argv[i], 0666);
		if (err < 0)
			status = sh_errno(c, argv[i], err);
	}
	return status;
}

/*
 * cd and pwd.
 *
 * cd runs on a thread of its own like any command, so Ctrl-C ends a cd
 * stuck in a slow lookup; its chdir is still the shell's, because a
 * thread shares its creator's current directory (fs/task_fs.h).  It is
 * SH_FOREGROUND: `cd DIR &` is refused (in the background it would move
 * the shell at some later moment; in sh it would not move it at all).
 */

int cmd_cd(struct sh_ctx *c, int argc, char **argv)
{
	if (argc > 2)
		return sh_usage(c, "too many arguments");
	const char *dir = argc == 2 ? argv[1] : "/";
	int err = sys_chdir(dir);
	return err < 0 ? sh_errno(c, dir, err) : 0;
}

int cmd_pwd(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return sh_usage(c, "no arguments expected");
	char *cwd = kmalloc(PATH_MAX);
	if (!cwd)
		return sh_errno(c, "pwd", -ENOMEM);
	long n = sys_getcwd(cwd, PATH_MAX);
	int status = n < 0 ? sh_errno(c, "getcwd", (int)n) : 0;
	if (n >= 0)
		sh_printf(c, "%s\n", cwd);
	kfree(cwd);
	return status;
}
