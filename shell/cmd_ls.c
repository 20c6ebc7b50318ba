/*
 * cmd_ls.c: ls [-l] [-a] [PATH...].
 *
 * Names come sorted; -a adds the ones starting with '.', -l one line
 * each: mode, links, size, name (and a symlink's target).
 * No times: there is no wall clock, and scripts compare the output.
 *
 * Locking: none of its own.
 */
#include "shell/cmd.h"
#include "shell/dirlist.h"
#include "shell/mode.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/kmalloc.h"

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
	sh_printf(c, "%s %2u %8ld %s", mode, st.nlink, st.size, name);
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
