/*
 * cmd_tree.c: tree [PATH]: a directory and everything below it, drawn
 * with ASCII branches, then the count of directories and files.
 *
 * The walk recurses once a level, with the directory's listing on the
 * heap (a thread's stack is 16 KiB), and stops at MAX_DEPTH levels.
 * Symlinks are shown with their target, never followed.
 *
 * Locking: none of its own.
 */
#include "shell/cmd.h"
#include "shell/dirlist.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/kmalloc.h"
#include "kernel/string.h"

#define MAX_DEPTH 32
#define TREE_PATH 512
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
