/*
 * cmd_read.c: reading files and directories: ls, tree, cat, stat,
 * readlink.
 *
 * One group of the table's commands (commands.c); each part below starts
 * with what its commands do.
 */
#include "shell/cmd.h"
#include "shell/dirlist.h"
#include "shell/mode.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/kmalloc.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

/*
 * ls [-l] [-a] [PATH...].
 *
 * Names come sorted; -a adds the ones starting with '.', -l one line
 * each: mode, links, owner, group, size, name (and a symlink's target).
 * No times: there is no wall clock, and scripts compare the output.
 */

#define PATH_BUF 512

static void long_line(struct sh_ctx *c, const char *path, const char *name)
{
	struct kstat st;
	char mode[11], target[128];
	int err = sys_lstat(path, &st);
	if (err < 0) {
		sh_errno(c, path, err);
		return;
	}
	sh_mode_string(st.mode, mode);
	if (S_ISCHR(st.mode) || S_ISBLK(st.mode))	/* a device: its number, not a size */
		sh_printf(c, "%s %2u %5u %5u %3u, %3u %s", mode, st.nlink, st.uid, st.gid,
			  major(st.rdev), minor(st.rdev), name);
	else
		sh_printf(c, "%s %2u %5u %5u %8ld %s", mode, st.nlink, st.uid, st.gid, st.size, name);
	if (S_ISLNK(st.mode)) {
		long n = sys_readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		sh_printf(c, " -> %s", target);
	}
	sh_printf(c, "\n");
}

static bool hidden(const char *name)
{
	return name[0] == '.';
}

static int list_dir(struct sh_ctx *c, const char *path, uint64_t opts, char *buf)
{
	struct sh_dir d;
	int err = sh_read_dir(path, (opts & OPT('a')) != 0, &d);
	if (err < 0)
		return sh_errno(c, path, err);
	for (unsigned i = 0; i < d.n && !sh_interrupted(); i++) {
		const char *name = d.ents[i].name;
		if (!(opts & OPT('a')) && hidden(name))
			continue;
		if (!(opts & OPT('l')))
			sh_printf(c, "%s\n", name);
		else if (sh_join(buf, PATH_BUF, path, name))
			long_line(c, buf, name);
		else
			sh_error(c, "%s/%s: path too long", path, name);
	}
	sh_dir_free(&d);
	return 0;
}

int cmd_ls(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t opts;
	int first = sh_options(c, argc, argv, "la", &opts);
	if (first < 0)
		return 2;
	char *buf = kmalloc(PATH_BUF);
	if (!buf)
		return sh_error(c, "out of memory");
	char *dot[] = { ".", NULL };
	char **paths = first < argc ? argv + first : dot;
	int n = first < argc ? argc - first : 1, status = 0;
	for (int i = 0; i < n && !sh_interrupted(); i++) {
		struct kstat st;
		int err = sys_stat(paths[i], &st);
		if (err < 0) {
			/* a dangling symlink still lists as itself */
			if (sys_lstat(paths[i], &st) < 0) {
				status = sh_errno(c, paths[i], err);
				continue;
			}
		}
		if (!S_ISDIR(st.mode)) {
			if (opts & OPT('l'))
				long_line(c, paths[i], paths[i]);
			else
				sh_printf(c, "%s\n", paths[i]);
			continue;
		}
		if (n > 1)
			sh_printf(c, "%s%s:\n", i > 0 ? "\n" : "", paths[i]);
		status |= list_dir(c, paths[i], opts, buf);
	}
	kfree(buf);
	return status;
}

/*
 * tree [PATH]: a directory and everything below it, drawn
 * with ASCII branches, then the count of directories and files.
 *
 * The walk recurses once a level, with the directory's listing on the
 * heap (a thread's stack is 16 KiB), and stops at MAX_DEPTH levels.
 * Symlinks are shown with their target, never followed.
 */

#define MAX_DEPTH 32
#define TREE_PATH PATH_MAX
#define TREE_PREFIX (4 * MAX_DEPTH + 1)

struct tree {
	struct sh_ctx *c;
	char path[TREE_PATH];
	char prefix[TREE_PREFIX];
	unsigned dirs, files;
};

static unsigned entry_type(const char *path, unsigned dtype)
{
	struct kstat st;
	if (dtype != DT_UNKNOWN)
		return dtype;
	if (sys_lstat(path, &st) < 0)
		return DT_UNKNOWN;
	return S_ISDIR(st.mode) ? DT_DIR : S_ISLNK(st.mode) ? DT_LNK : DT_REG;
}

static void walk(struct tree *t, unsigned depth)
{
	struct sh_dir d;
	size_t plen = strlen(t->path), prelen = strlen(t->prefix);
	int err = sh_read_dir(t->path, false, &d);
	if (err < 0) {
		sh_printf(t->c, "%s    [%s]\n", t->prefix, sh_strerror(err));
		return;
	}
	for (unsigned i = 0; i < d.n && !sh_interrupted(); i++) {
		bool last = i + 1 == d.n;
		const char *name = d.ents[i].name;
		int w = snprintf(t->path + plen, TREE_PATH - plen, "%s%s",
				 t->path[plen - 1] == '/' ? "" : "/", name);
		if (w < 0 || (size_t)w >= TREE_PATH - plen) {
			t->path[plen] = '\0';
			sh_printf(t->c, "%s%s%s [path too long]\n", t->prefix, last ? "`-- " : "|-- ", name);
			continue;
		}
		unsigned type = entry_type(t->path, d.ents[i].type);
		char target[128] = "";
		if (type == DT_LNK) {
			long n = sys_readlink(t->path, target, sizeof(target) - 1);
			target[n > 0 ? n : 0] = '\0';
		}
		sh_printf(t->c, "%s%s%s%s%s\n", t->prefix, last ? "`-- " : "|-- ", name,
			  type == DT_LNK ? " -> " : "", target);
		if (type == DT_DIR) {
			t->dirs++;
			if (depth + 1 < MAX_DEPTH) {
				strlcpy(t->prefix + prelen, last ? "    " : "|   ", TREE_PREFIX - prelen);
				walk(t, depth + 1);
				t->prefix[prelen] = '\0';
			}
		} else {
			t->files++;
		}
		t->path[plen] = '\0';
	}
	sh_dir_free(&d);
}

int cmd_tree(struct sh_ctx *c, int argc, char **argv)
{
	if (argc > 2)
		return sh_usage(c, "at most one directory");
	const char *top = argc == 2 ? argv[1] : ".";
	struct kstat st;
	int err = sys_stat(top, &st);
	if (err < 0)
		return sh_errno(c, top, err);
	if (!S_ISDIR(st.mode))
		return sh_error(c, "%s: %s", top, sh_strerror(-ENOTDIR));
	struct tree *t = kzalloc(sizeof(*t));
	if (!t)
		return sh_error(c, "out of memory");
	t->c = c;
	if (strlen(top) >= TREE_PATH) {
		kfree(t);
		return sh_errno(c, top, -ENAMETOOLONG);
	}
	strlcpy(t->path, top, TREE_PATH);
	size_t n = strlen(t->path);
	while (n > 1 && t->path[n - 1] == '/')	/* "dir/" -> "dir" */
		t->path[--n] = '\0';
	sh_printf(c, "%s\n", top);
	walk(t, 0);
	sh_printf(c, "\n%u director%s, %u file%s\n", t->dirs, t->dirs == 1 ? "y" : "ies",
		  t->files, t->files == 1 ? "" : "s");
	kfree(t);
	return sh_interrupted() ? 130 : 0;
}

/*
 * cat FILE...: the files' bytes to the output, in order.
 *
 * Reads a page at a time and stops at Ctrl-C or at the first failed
 * write; a file that is a directory is reported (the file layer says
 * -EISDIR on read).
 */

#define CAT_BUF 4096

static int cat_one(struct sh_ctx *c, const char *path, char *buf)
{
	int fd = sys_open(path, O_RDONLY, 0);
	if (fd < 0)
		return sh_errno(c, path, fd);
	long n = 0;	/* the loop may stop before the first read */
	while (!sh_interrupted() && c->write_error == 0 && (n = sys_read(fd, buf, CAT_BUF)) > 0)
		sh_write(c, buf, (size_t)n);
	sys_close(fd);
	if (n < 0 && !sh_interrupted())
		return sh_errno(c, path, (int)n);
	return c->write_error ? 1 : 0;
}

int cmd_cat(struct sh_ctx *c, int argc, char **argv)
{
	if (argc < 2)
		return sh_usage(c, "expected a file (there is no standard input)");
	char *buf = kmalloc(CAT_BUF);
	if (!buf)
		return sh_error(c, "out of memory");
	int status = 0;
	/* A failed write ends cat (as it does cat(1)): the rest would go
	 * nowhere.  The job reports the write error (jobs.c). */
	for (int i = 1; i < argc && !sh_interrupted() && c->write_error == 0; i++)
		status |= cat_one(c, argv[i], buf);
	kfree(buf);
	return status;
}

/*
 * stat [-L] PATH... and readlink PATH...
 *
 * stat prints one block of "key: value" lines per path, without times
 * (there is no wall clock), so scripts can compare it.  It uses lstat
 * unless -L asks to follow a final symlink.  Running several `stat &` at
 * once on a slowfs mount is the shell's way to race lookups.
 */

int cmd_stat(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t opts;
	int first = sh_options(c, argc, argv, "L", &opts), status = 0;
	if (first < 0)
		return 2;
	if (first == argc)
		return sh_usage(c, "expected a path");
	for (int i = first; i < argc && !sh_interrupted(); i++) {
		struct kstat st;
		char mode[11];
		int err = (opts & OPT('L')) ? sys_stat(argv[i], &st) : sys_lstat(argv[i], &st);
		if (err < 0) {
			status = sh_errno(c, argv[i], err);
			continue;
		}
		sh_mode_string(st.mode, mode);
		sh_printf(c, "  File: %s\n  Type: %s  Mode: %s (0%o)  Uid: %u  Gid: %u\n"
			  "  Inode: %lu  Device: %lu  Links: %u  Size: %ld  Blocks: %ld\n",
			  argv[i], sh_type_name(st.mode), mode, st.mode & 07777, st.uid, st.gid,
			  st.ino, st.dev, st.nlink, st.size, st.blocks);
	}
	return status;
}

int cmd_readlink(struct sh_ctx *c, int argc, char **argv)
{
	int status = 0;
	if (argc < 2)
		return sh_usage(c, "expected a path");
	char *target = kmalloc(PATH_MAX);
	if (!target)
		return sh_errno(c, "readlink", -ENOMEM);
	for (int i = 1; i < argc; i++) {
		long n = sys_readlink(argv[i], target, PATH_MAX - 1);
		if (n < 0) {
			status = sh_errno(c, argv[i], (int)n);
			continue;
		}
		target[n] = '\0';
		sh_printf(c, "%s\n", target);
	}
	kfree(target);
	return status;
}
