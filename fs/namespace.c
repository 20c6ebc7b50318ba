/*
 * namespace.c: the mount calls that take paths (sys_mount, sys_umount)
 * and the mount table as text (vfs_for_each_mount).  Above the mount
 * model (fs/mount.c), the path walk (fs/namei.c) and d_path
 * (fs/d_path.c), so that none of those depends on another through here.
 */
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/mount.h"
#include "fs/namei.h"
#include "kernel/cred.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/string.h"

int sys_mount(const char *type, const char *dir, const char *options)
{
	struct dentry *d = path_lookup(dir, 0);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	/* Root only, after the walk, as Linux's may_mount. */
	int err = cred_is_root(current_cred()) ? do_mount(type, d, options) : -EPERM;
	dput(d);
	return err;
}

int sys_umount(const char *dir)
{
	struct dentry *d = path_lookup(dir, 0);
	if (IS_ERR(d) || cred_is_root(current_cred()))
		return IS_ERR(d) ? (int)PTR_ERR(d) : do_umount(d);
	dput(d);
	return -EPERM;
}

struct mount_text {
	void (*fn)(const char *mountpoint, const char *type, const char *options, void *arg);
	void *arg;
	struct dentry *root;
	char *path;                /* PATH_MAX bytes */
};

static void mount_as_text(struct dentry *mp, struct super_block *sb, void *arg)
{
	struct mount_text *t = arg;
	long n = 2;
	if (mp)
		n = d_path(mp, t->root, t->path, PATH_MAX);
	else
		strlcpy(t->path, "/", PATH_MAX);	/* the root mount */
	if (n > 0)
		t->fn(t->path, sb->s_type->name, sb->s_options, t->arg);
}

int vfs_for_each_mount(void (*fn)(const char *mountpoint, const char *type, const char *options,
				  void *arg), void *arg)
{
	struct mount_text t = { fn, arg, NULL, kmalloc(PATH_MAX) };
	if (!t.path)
		return -ENOMEM;
	t.root = vfs_root();
	int err = iterate_mounts(mount_as_text, &t);
	dput(t.root);
	kfree(t.path);
	return err;
}
