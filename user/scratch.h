/*
 * scratch.h: page-sized kernel buffers for the length of one system call
 * (a path copied in by getname, a bounce buffer of up to a page of data),
 * from a small stock on each CPU, so that the common calls take no lock
 * another CPU takes (docs/design/22-user.md,
 * "User copies and their fixups").
 *
 *     char *buf = scratch_get();        // PAGE_SIZE bytes, or NULL
 *     ... copy in, call the VFS, copy out ...
 *     scratch_put(buf);
 */
#ifndef USER_SCRATCH_H
#define USER_SCRATCH_H

void scratch_init(void);
/* A PAGE_SIZE buffer (its contents are whatever the last user left), or
 * NULL if there is no memory. */
void *scratch_get(void);
/* Give back a buffer scratch_get returned, from any CPU. */
void scratch_put(void *buf);

#endif
