/*
 * dirlist.h: a directory's entries, read whole and sorted by name, for
 * ls, tree, rm -r and script directories.
 *
 * Typical use:
 *
 *     struct sh_dir d;
 *     int err = sh_read_dir("/tmp", &d);
 *     for (unsigned i = 0; !err && i < d.n; i++) use(d.ents[i].name, d.ents[i].type);
 *     sh_dir_free(&d);
 *
 * "." and ".." are left out unless `dots` is asked for.
 *
 * The listing is a snapshot: entries may change after it.
 */
#ifndef SHELL_DIRLIST_H
#define SHELL_DIRLIST_H

#include <stdbool.h>
#include <stdint.h>

struct sh_dirent {
	const char *name;
	uint64_t ino;
	unsigned type;             /* DT_* */
};

struct sh_dir {
	unsigned n;
	struct sh_dirent *ents;
	char *names;               /* the names' storage */
};

/* 0, or a negative errno (the directory cannot be opened or read). */
int sh_read_dir(const char *path, bool dots, struct sh_dir *d);
void sh_dir_free(struct sh_dir *d);
/* "dir/name" into buf (n bytes); false if it does not fit. */
bool sh_join(char *buf, unsigned long n, const char *dir, const char *name);

#endif
