/*
 * d_path.c: the path of a dentry, as getcwd and the mount table print
 * it.  Apart from the dcache (as in Linux) because it also climbs out of
 * mounted roots through their mount points (fs/mount.h), which the dcache
 * itself knows nothing of.
 *
 * Locking: rename_lock (fs/dcache.h), held for the whole climb, so that
 * no d_move changes a d_parent on the way; and each name is copied under
 * its dentry's d_lock, because a rename within one directory changes
 * names without rename_lock.
 */
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/mount.h"
#include "kernel/errno.h"
#include "kernel/race.h"
#include "kernel/string.h"

long d_path(struct dentry *d, struct dentry *root, char *buf, size_t n)
{
	if (n == 0)
		return -ERANGE;
	size_t at = n - 1;
	buf[at] = '\0';
	long err = 0;
	read_seqlock_excl(&rename_lock);
	if (d != root && d != d->d_sb->s_root && d_unhashed(d))
		err = -ENOENT;	/* removed: it has no path any more */
	while (!err && d != root) {
		if (d == d->d_sb->s_root) {
			struct dentry *mp = mount_point_of(d->d_sb);
			if (!mp)
				break;	/* the top of a tree not under root */
			d = mp;
			continue;
		}
		spin_lock(&d->d_lock);
		uint32_t len = d->d_name.len;
		race_window_on(d);	/* the length read, not the name: a rename may swap both */
		if (at >= len + 1) {
			at -= len;
			memcpy(buf + at, d->d_name.name, len);
			buf[--at] = '/';
		} else {
			err = -ERANGE;
		}
		spin_unlock(&d->d_lock);
		d = d->d_parent;
	}
	read_sequnlock_excl(&rename_lock);
	if (err)
		return err;
	if (at == n - 1) {	/* the root itself */
		if (n < 2)
			return -ERANGE;
		buf[--at] = '/';
	}
	size_t len = n - at;
	memmove(buf, buf + at, len);
	return (long)len;
}
