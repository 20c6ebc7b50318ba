/*
 * dirlist.c: reading a directory whole (see dirlist.h).
 *
 * getdents() fills a buffer with records; the names are copied into one
 * growing block, then an array of entries is made and sorted (a Shell
 * sort: no recursion, few lines).
 */
#include "shell/dirlist.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

#define GETDENTS_BUF 4096

struct growing {
	char *buf;
	unsigned long len, cap;
};

static int append(struct growing *g, const void *p, unsigned long n)
{
	if (g->len + n > g->cap) {
		unsigned long cap = g->cap ? g->cap * 2 : 1024;
		while (cap < g->len + n)
			cap *= 2;
		char *bigger = kmalloc(cap);
		if (!bigger)
			return -ENOMEM;
		if (g->len)
			memcpy(bigger, g->buf, g->len);
		kfree(g->buf);
		g->buf = bigger;
		g->cap = cap;
	}
	memcpy(g->buf + g->len, p, n);
	g->len += n;
	return 0;
}

static bool is_dot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/* Records of (ino, type, name\0) one after the other into g; the count. */
static long read_records(int fd, bool dots, struct growing *g)
{
	char *buf = kmalloc(GETDENTS_BUF);
	long n, count = 0;
	if (!buf)
		return -ENOMEM;
	while ((n = sys_getdents(fd, buf, GETDENTS_BUF)) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 *e = (struct linux_dirent64 *)(buf + off);
			int err = e->d_reclen == 0 ? -EIO : 0;	/* never loop forever */
			off += e->d_reclen;
			if (!err && !dots && is_dot(e->d_name))
				continue;
			uint8_t type = e->d_type;
			err = err ? err : append(g, &e->d_ino, sizeof(e->d_ino));
			err = err ? err : append(g, &type, 1);
			err = err ? err : append(g, e->d_name, strlen(e->d_name) + 1);
			if (err) {
				kfree(buf);
				return err;
			}
			count++;
		}
	}
	kfree(buf);
	return n < 0 ? n : count;
}

static void sort(struct sh_dirent *a, unsigned n)
{
	for (unsigned gap = n / 2; gap > 0; gap /= 2)
		for (unsigned i = gap; i < n; i++)
			for (unsigned k = i; k >= gap && strcmp(a[k - gap].name, a[k].name) > 0; k -= gap) {
				struct sh_dirent t = a[k];
				a[k] = a[k - gap];
				a[k - gap] = t;
			}
}

int sh_read_dir(const char *path, bool dots, struct sh_dir *d)
{
	struct growing g = { 0, 0, 0 };
	memset(d, 0, sizeof(*d));
	int fd = sys_open(path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	long count = read_records(fd, dots, &g);
	sys_close(fd);
	if (count < 0) {
		kfree(g.buf);
		return (int)count;
	}
	d->ents = kcalloc((size_t)count + 1, sizeof(*d->ents));
	if (!d->ents) {
		kfree(g.buf);
		return -ENOMEM;
	}
	d->names = g.buf;
	for (unsigned long off = 0; d->n < (unsigned)count;) {
		struct sh_dirent *e = &d->ents[d->n++];
		memcpy(&e->ino, g.buf + off, sizeof(e->ino));
		e->type = (unsigned char)g.buf[off + sizeof(e->ino)];
		e->name = g.buf + off + sizeof(e->ino) + 1;
		off += sizeof(e->ino) + 1 + strlen(e->name) + 1;
	}
	sort(d->ents, d->n);
	return 0;
}

void sh_dir_free(struct sh_dir *d)
{
	kfree(d->ents);
	kfree(d->names);
	memset(d, 0, sizeof(*d));
}

bool sh_join(char *buf, unsigned long n, const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	bool slash = dl > 0 && dir[dl - 1] == '/';
	int w = snprintf(buf, n, "%s%s%s", dir, slash ? "" : "/", name);
	return w >= 0 && (unsigned long)w < n;
}
