/* vfs_check.c: see vfs_check.h. */
#include "tests/vfs_check.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kcsan.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

/* Link counts, checked against the tree itself (read with getdents): a
 * directory has 2 plus its subdirectories, a file one per entry naming
 * it.  Returns the number of mismatches. */
struct ino_count {
	uint64_t dev, ino;
	uint32_t nlink, seen;
};

static unsigned check_tree(const char *dir, struct ino_count *tab, unsigned *ntab, unsigned max,
			   unsigned depth)
{
	unsigned bad = 0, subdirs = 0;
	int fd = sys_open(dir, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return 1;
	/* A path as long as a name allows: the fuzzers make 255-byte names. */
	char *buf = kmalloc(1024), *path = kmalloc(PATH_MAX);
	long n;
	while (buf && path && (n = sys_getdents(fd, buf, 1024)) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (void *)(buf + off);
			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if ((size_t)snprintf(path, PATH_MAX, "%s/%s", dir, d->d_name) >= PATH_MAX)
				continue;	/* deeper than a path can name: lstat could not look */
			struct kstat st;
			int err = sys_lstat(path, &st);
			/* A mount point: listed with its own inode number, found
			 * as the root mounted on it (Linux does the same). */
			bool mp = !err && S_ISDIR(st.mode) && st.ino != d->d_ino && d->d_type == DT_DIR;
			if (err || (st.ino != d->d_ino && !mp)) {
				kprintf("    # %s: listed but lstat disagrees\n", path);
				bad++;
				continue;
			}
			if (S_ISDIR(st.mode)) {
				subdirs++;
				if (depth < 8)
					bad += check_tree(path, tab, ntab, max, depth + 1);
				continue;
			}
			unsigned i = 0;
			while (i < *ntab && (tab[i].ino != st.ino || tab[i].dev != st.dev))
				i++;
			if (i == *ntab && *ntab < max)
				tab[(*ntab)++] = (struct ino_count){ st.dev, st.ino, st.nlink, 0 };
			if (i < *ntab)
				tab[i].seen++;
		}
	}
	if (!buf || !path)
		bad++;	/* not checked: say so rather than pass */
	kfree(path);
	kfree(buf);
	sys_close(fd);
	struct kstat st;
	if (sys_stat(dir, &st) == 0 && st.nlink != 2 + subdirs) {
		kprintf("    # %s: nlink %u but %u subdirectories\n", dir, st.nlink, subdirs);
		bad++;
	}
	return bad;
}

/* The dentry tree below dir, walked through the children lists: every
 * child names dir as its parent, and each hashed name is hashed once. */
static unsigned check_dentries(struct dentry *dir, unsigned depth)
{
	struct dentry *kids[48];
	unsigned n = 0, bad = 0;
	unsigned long flags = spin_lock_irqsave(&dir->d_lock);
	struct list_head *pos;
	list_for_each(pos, &dir->d_subdirs) {
		struct dentry *d = list_entry(pos, struct dentry, d_child);
		if (d->d_parent != dir) {
			kprintf("    # dcache: '%s' is listed under '%s' but its parent is another\n",
				d->d_name.name, dir->d_name.name);
			bad++;
		}
		if (n < 48)
			kids[n++] = dget(d);
	}
	spin_unlock_irqrestore(&dir->d_lock, flags);
	for (unsigned i = 0; i < n; i++) {
		struct dentry *d = kids[i];
		/* The bucket lock comes before d_lock: counted with neither held. */
		unsigned hashed = d_count_hashed(dir, &d->d_name);
		if (hashed > 1) {
			kprintf("    # dcache: '%s' is hashed %u times in '%s'\n", d->d_name.name, hashed,
				dir->d_name.name);
			bad++;
		}
		if (d->d_inode && S_ISDIR(d->d_inode->i_mode) && depth < 8)
			bad += check_dentries(d, depth + 1);
		dput(d);
	}
	return bad;
}

unsigned vfs_check_dentries(const char *dir)
{
	struct dentry *d = path_lookup(dir, 0);
	if (IS_ERR(d)) {
		kprintf("    # %s: %s\n", dir, errno_name((int)PTR_ERR(d)));
		return 1;
	}
	unsigned bad = check_dentries(d, 0);
	dput(d);
	return bad;
}

unsigned vfs_check_links(const char *dir)
{
	/* Too big for a stack: callers check one tree at a time. */
	static struct ino_count tab[512];
	unsigned ntab = 0, bad = check_tree(dir, tab, &ntab, 512, 0);
	for (unsigned i = 0; i < ntab; i++)
		if (tab[i].nlink != tab[i].seen) {
			kprintf("    # inode %lu: nlink %u, %u names\n", tab[i].ino, tab[i].nlink, tab[i].seen);
			bad++;
		}
	return bad;
}

unsigned vfs_check_sb(const char *dir)
{
	struct dentry *root = path_lookup(dir, 0);
	if (IS_ERR(root)) {
		kprintf("    # %s: %s\n", dir, errno_name((int)PTR_ERR(root)));
		return 1;
	}
	unsigned broken = d_check_sb(root->d_sb);	/* no duplicates; children listed; counts >= 0 */
	if (broken)
		kprintf("    # %s: d_check_sb finds %u problems\n", dir, broken);
	dput(root);
	return broken;
}

unsigned vfs_check_invariants(const char *dir)
{
	return vfs_check_sb(dir) + vfs_check_links(dir);
}

bool vfs_check_file_holds(int fd)
{
	struct file *f = fget(fd);
	if (!f)
		return false;
	struct inode *di = READ_ONCE(f->f_dentry->d_inode);
	bool ok = f->f_inode && di == f->f_inode;
	if (!ok)
		kprintf("    # fd %d: file of '%s' has inode %p, its dentry %p\n", fd,
			f->f_dentry->d_name.name, (void *)f->f_inode, (void *)di);
	fput(f);
	return ok;
}
