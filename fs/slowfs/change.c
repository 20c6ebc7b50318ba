/*
 * change.c: slowfs's directory changes (rw=1 mounts): create, mkdir,
 * unlink, rmdir and rename of any name, each sleeping the mount's latency
 * as a lookup does, and the VFS's promise about them checked from inside.
 *
 * The promise.  However the VFS locks a directory for a change (i_rwsem
 * exclusive, or shared with a lock on each changed name: FS_PAR_DIROPS,
 * vfs.dirops), two changes of one name must never be inside the
 * filesystem together.  So every change first enters its name(s): under
 * fs->lock it finds (or adds) the name's record and raises its
 * `changing`; a record already changing is a breach, counted in
 * stats.change_overlaps.  It also raises its directory's
 * changes_in_flight, and stats.max_in_dir keeps the highest value seen:
 * with the per-name lock, T changes of T names in one directory reach T;
 * with the exclusive i_rwsem they stay at 1.  Then, with no lock held, it
 * waits at the changes' gate (if the mount has one, dirgate=G: until G
 * changes were in one directory at once, so a test proves the overlap by
 * a count, not a clock; for 10 s at most, so that a VFS that serializes
 * them fails the count rather than hangs) and sleeps the latency.  Only then does it read and write the
 * table of names, under fs->lock again, and leave its names.
 *
 * A story: threads A and B create "a" and "b" in one directory, C
 * creates "a" too.  A and B enter (records a and b, changing 1 each; the
 * directory's count 2) and sleep together.  C must not reach slowfs
 * before A has left: the VFS holds C on a's name lock (or on i_rwsem).  If
 * it did, C would find a's record changing and count an overlap, then
 * after its sleep see "a" taken and answer -EEXIST: the count is the
 * evidence, the answer stays sane.
 *
 * Locking: fs->lock (internal.h) around each look at or change of the
 * table, nothing else held inside it; the inode of a new file is made
 * between two such sections.  The VFS holds each directory's i_rwsem (at
 * least shared) and the victim's, so a directory and the inodes named do
 * not go away under a change.
 */
#include "fs/slowfs/internal.h"
#include "fs/dcache.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/time.h"

static unsigned bucket_of(uint64_t dir, const char *name, uint32_t len)
{
	uint64_t h = 1469598103934665603ull ^ dir;	/* FNV-1a over the directory and the name */
	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 1099511628211ull;
	return (unsigned)(h % SLOWFS_BUCKETS);
}

static struct slowfs_name *__name_find(struct slowfs *fs, uint64_t dir, const char *name, uint32_t len)
{
	spin_assert_held(&fs->lock);
	struct list_head *pos;
	list_for_each(pos, &fs->names[bucket_of(dir, name, len)]) {
		struct slowfs_name *r = list_entry(pos, struct slowfs_name, link);
		if (r->dir == dir && r->len == len && memcmp(r->name, name, len) == 0)
			return r;
	}
	return NULL;
}

uint64_t __slowfs_name_get(struct slowfs *fs, uint64_t dir, const char *name, uint32_t len)
{
	spin_assert_held(&fs->lock);
	long idx = slowfs_name_index(fs, dir, name, len);
	if (idx >= 0)
		return fs->ino_of_name[idx];
	struct slowfs_name *r = __name_find(fs, dir, name, len);
	return r ? r->ino : 0;
}

/* What d's name in dir names now (0: nothing). */
static uint64_t __name_of(struct slowfs *fs, struct inode *dir, struct dentry *d)
{
	return __slowfs_name_get(fs, dir->i_ino, d->d_name.name, d->d_name.len);
}

/* Make r's name name v (0: nothing).  r is the name's record, which the
 * change entered. */
static void __name_set(struct slowfs *fs, struct slowfs_name *r, uint64_t v)
{
	spin_assert_held(&fs->lock);
	long idx = slowfs_name_index(fs, r->dir, r->name, r->len);
	if (idx >= 0)
		__atomic_store_n(&fs->ino_of_name[idx], v, __ATOMIC_RELEASE);	/* readdir reads it unlocked */
	else
		r->ino = v;
}

static void __name_drop_if_idle(struct slowfs_name *r, struct slowfs_name **freed)
{
	if (r->changing == 0 && r->ino == 0) {
		list_del(&r->link);
		*freed = r;	/* freed after the lock is dropped */
	}
}

unsigned __slowfs_subdirs(struct slowfs *fs, uint64_t dir)
{
	spin_assert_held(&fs->lock);
	unsigned n = 0;
	for (unsigned b = 0; b < SLOWFS_BUCKETS; b++) {
		struct list_head *pos;
		list_for_each(pos, &fs->names[b]) {
			struct slowfs_name *r = list_entry(pos, struct slowfs_name, link);
			n += r->dir == dir && (r->ino & SLOWFS_DIR);
		}
	}
	return n;
}

/* Whether dir (never the root: it cannot be removed) has any entry. */
static bool __dir_empty(struct slowfs *fs, uint64_t dir)
{
	for (unsigned b = 0; b < SLOWFS_BUCKETS; b++) {
		struct list_head *pos;
		list_for_each(pos, &fs->names[b]) {
			struct slowfs_name *r = list_entry(pos, struct slowfs_name, link);
			if (r->dir == dir && r->ino)
				return false;
		}
	}
	return true;
}

/*
 * One entry of dir past position pos: the one with the smallest inode
 * number whose position (base + number) is at least pos, emitted under
 * the lock (emit never sleeps).  A name renamed within dir keeps its
 * inode number and so its position: listed once.
 */
void slowfs_emit_names(struct slowfs *fs, uint64_t dir, uint64_t base, struct dir_context *ctx)
{
	for (;;) {
		spin_lock(&fs->lock);
		struct slowfs_name *best = NULL;
		for (unsigned b = 0; b < SLOWFS_BUCKETS; b++) {
			struct list_head *pos;
			list_for_each(pos, &fs->names[b]) {
				struct slowfs_name *r = list_entry(pos, struct slowfs_name, link);
				uint64_t at = base + SLOWFS_INO(r->ino);
				if (r->dir == dir && r->ino && at >= ctx->pos &&
				    (!best || SLOWFS_INO(r->ino) < SLOWFS_INO(best->ino)))
					best = r;
			}
		}
		bool more = best && ctx->emit(ctx, best->name, best->len, SLOWFS_INO(best->ino),
					      (best->ino & SLOWFS_DIR) ? DT_DIR : DT_REG);
		if (more)
			ctx->pos = base + SLOWFS_INO(best->ino) + 1;
		spin_unlock(&fs->lock);
		if (!more)
			return;
	}
}

void slowfs_free_names(struct slowfs *fs)
{
	for (unsigned b = 0; b < SLOWFS_BUCKETS; b++)
		while (!list_empty(&fs->names[b])) {
			struct slowfs_name *r = list_first_entry(&fs->names[b], struct slowfs_name, link);
			list_del(&r->link);
			kfree(r);
		}
}

/* The names a change is working on (rename: two), and their directories. */
struct change {
	struct slowfs *fs;
	struct slowfs_name *rec[2];
	struct slowfs_dir *dir[2];	/* NULL for a second name in the same directory */
	unsigned n;
};

static void note_in_dir(struct slowfs *fs, struct slowfs_dir *sd)
{
	unsigned now = __atomic_add_fetch(&sd->changes_in_flight, 1, __ATOMIC_ACQ_REL);
	unsigned max = __atomic_load_n(&fs->stats.max_in_dir, __ATOMIC_RELAXED);
	while (now > max && !__atomic_compare_exchange_n(&fs->stats.max_in_dir, &max, now, false,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	wake_up_all(&fs->gate_wq);
}

/* Enter d's name (in dir) into the change c: the promise's check. */
static int change_enter(struct change *c, struct inode *dir, struct dentry *d)
{
	struct slowfs *fs = c->fs;
	const struct qstr *q = &d->d_name;
	struct slowfs_name *spare = kmalloc(sizeof(*spare) + q->len);
	if (!spare)
		return -ENOMEM;
	spin_lock(&fs->lock);
	struct slowfs_name *r = __name_find(fs, dir->i_ino, q->name, q->len);
	if (!r) {
		r = spare;
		spare = NULL;
		*r = (struct slowfs_name){ .dir = dir->i_ino, .len = q->len };
		memcpy(r->name, q->name, q->len);
		list_add(&r->link, &fs->names[bucket_of(r->dir, r->name, r->len)]);
	}
	bool again = c->n && c->rec[0] == r;	/* a rename onto its own name: one change */
	if (!again && ++r->changing > 1)
		slowfs_count(&fs->stats.change_overlaps);	/* the VFS let two in */
	spin_unlock(&fs->lock);
	kfree(spare);
	struct slowfs_dir *sd = dir->i_private;
	c->rec[c->n] = again ? NULL : r;
	c->dir[c->n] = c->n && c->dir[0] == sd ? NULL : sd;
	if (c->dir[c->n])
		note_in_dir(fs, sd);
	c->n++;
	return 0;
}

static bool gate_open(struct slowfs *fs)
{
	return __atomic_load_n(&fs->stats.max_in_dir, __ATOMIC_ACQUIRE) >=
	       __atomic_load_n(&fs->dirgate, __ATOMIC_ACQUIRE);
}

/*
 * Wait at the changes' gate, killably, for at most its patience
 * (DIRGATE_GIVE_UP_S, 10 s, unless a test set it shorter),
 * then open it for every change after: a VFS that cannot let the gate's
 * count of changes in (the exclusive i_rwsem, or a lock held around a
 * lookup the gate's changes wait for) then shows as a max_in_dir too
 * low, which the test reports, rather than as a hang.  0, or -EINTR if
 * killed.
 */
static int dirgate_wait(struct slowfs *fs)
{
	unsigned patience = __atomic_load_n(&fs->dirgate_give_up_s, __ATOMIC_ACQUIRE);
	uint64_t give_up = jiffies + (uint64_t)patience * HZ;
	while (!gate_open(fs)) {
		if (fatal_signal_pending())
			return -EINTR;	/* killed at the gate: nothing changed */
		if (jiffies >= give_up) {	/* open it for good: no one waits again */
			unsigned g = __atomic_exchange_n(&fs->dirgate, 0, __ATOMIC_ACQ_REL);
			if (g)
				kprintf("slowfs: no %u changes of one directory at once in %u s: "
					"the changes' gate gives up\n", g, patience);
			wake_up_all(&fs->gate_wq);
			return 0;
		}
		wait_event_timeout(fs->gate_wq, gate_open(fs), 1);	/* a tick, then the checks again */
	}
	return 0;
}

/* The slow part, with no lock of slowfs's held: the gate and the latency. */
static int change_wait(struct change *c)
{
	struct slowfs *fs = c->fs;
	if (__atomic_load_n(&fs->dirgate, __ATOMIC_ACQUIRE) && dirgate_wait(fs))
		return -EINTR;
	if (fs->latency_ms)
		sleep_ms(fs->latency_ms);
	return 0;
}

static void change_leave(struct change *c)
{
	struct slowfs *fs = c->fs;
	struct slowfs_name *freed[2] = { NULL, NULL };
	spin_lock(&fs->lock);
	for (unsigned i = 0; i < c->n; i++) {
		if (!c->rec[i])
			continue;
		c->rec[i]->changing--;
		__name_drop_if_idle(c->rec[i], &freed[i]);
	}
	spin_unlock(&fs->lock);
	for (unsigned i = 0; i < c->n; i++) {
		kfree(freed[i]);
		if (c->dir[i])
			__atomic_sub_fetch(&c->dir[i]->changes_in_flight, 1, __ATOMIC_RELEASE);
	}
	slowfs_count(&fs->stats.changes);
}

/* Enter one name and wait; on failure nothing is left entered. */
static int change_begin(struct change *c, struct inode *dir, struct dentry *d)
{
	*c = (struct change){ .fs = dir->i_sb->s_fs_info };
	int err = change_enter(c, dir, d);
	if (err)
		return err;
	err = change_wait(c);
	if (err)
		change_leave(c);
	return err;
}

/* A new file or directory under d's name: a new inode, as a disk
 * filesystem would give. */
static int make(struct inode *dir, struct dentry *d, uint32_t mode)
{
	struct change c;
	int err = change_begin(&c, dir, d);
	if (err)
		return err;
	struct slowfs *fs = c.fs;
	spin_lock(&fs->lock);
	uint64_t ino = __name_of(fs, dir, d) ? 0 : fs->next_ino++;
	spin_unlock(&fs->lock);
	bool is_dir = S_ISDIR(mode);
	struct inode *inode = ino ? slowfs_iget(dir->i_sb, ino | (is_dir ? SLOWFS_DIR : 0), mode, dir) : NULL;
	err = !ino ? -EEXIST : !inode ? -ENOMEM : 0;
	if (!err) {
		spin_lock(&fs->lock);
		__name_set(fs, c.rec[0], ino | (is_dir ? SLOWFS_DIR : 0));
		spin_unlock(&fs->lock);
		if (is_dir)
			__atomic_fetch_add(&dir->i_nlink, 1, __ATOMIC_RELAXED);	/* its ".." */
		d_instantiate(d, inode);	/* the dentry takes our reference */
	}
	change_leave(&c);
	return err;
}

int slowfs_create(struct inode *dir, struct dentry *d, uint32_t mode)
{
	return make(dir, d, S_IFREG | (mode & S_IALLUGO));
}

int slowfs_mkdir(struct inode *dir, struct dentry *d, uint32_t mode)
{
	return make(dir, d, S_IFDIR | (mode & S_IALLUGO));
}

/* unlink (want_dir false) and rmdir: the VFS checked the victim's type
 * and holds its i_rwsem; slowfs checks its own table again. */
static int remove(struct inode *dir, struct dentry *d, bool want_dir)
{
	struct change c;
	int err = change_begin(&c, dir, d);
	if (err)
		return err;
	struct slowfs *fs = c.fs;
	spin_lock(&fs->lock);
	uint64_t v = __name_of(fs, dir, d);
	if (!v)
		err = -ENOENT;
	else if (!(v & SLOWFS_DIR) != !want_dir)
		err = want_dir ? -ENOTDIR : -EISDIR;
	else if (want_dir && !__dir_empty(fs, SLOWFS_INO(v)))
		err = -ENOTEMPTY;
	else
		__name_set(fs, c.rec[0], 0);
	spin_unlock(&fs->lock);
	if (!err) {
		if (want_dir)
			__atomic_fetch_sub(&dir->i_nlink, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&d->d_inode->i_nlink, 0, __ATOMIC_RELEASE);	/* evicted at its last iput */
		inode_touch(d->d_inode, T_CTIME);
	}
	change_leave(&c);
	return err;
}

int slowfs_unlink(struct inode *dir, struct dentry *d)
{
	return remove(dir, d, false);
}

int slowfs_rmdir(struct inode *dir, struct dentry *d)
{
	return remove(dir, d, true);
}

/* Move old's name to new's (the VFS checked the types and that a
 * directory does not go below itself), replacing what new names. */
int slowfs_rename(struct inode *old_dir, struct dentry *old, struct inode *new_dir, struct dentry *new)
{
	struct change c = { .fs = old_dir->i_sb->s_fs_info };
	int err = change_enter(&c, old_dir, old);
	if (!err && (err = change_enter(&c, new_dir, new)) == 0)
		err = change_wait(&c);
	if (err) {
		if (c.n)
			change_leave(&c);
		return err;
	}
	struct slowfs *fs = c.fs;
	spin_lock(&fs->lock);
	uint64_t src = __name_of(fs, old_dir, old), dst = __name_of(fs, new_dir, new);
	if (!src)
		err = -ENOENT;
	else if ((dst & SLOWFS_DIR) && !__dir_empty(fs, SLOWFS_INO(dst)))
		err = -ENOTEMPTY;
	else if (src != dst) {
		__name_set(fs, c.rec[1], src);
		__name_set(fs, c.rec[0], 0);
	}
	spin_unlock(&fs->lock);
	if (!err && src != dst) {
		if (dst && new->d_inode) {	/* replaced: its last link goes */
			__atomic_store_n(&new->d_inode->i_nlink, 0, __ATOMIC_RELEASE);
			inode_touch(new->d_inode, T_CTIME);
		}
		if (dst & SLOWFS_DIR)
			__atomic_fetch_sub(&new_dir->i_nlink, 1, __ATOMIC_RELAXED);
		if ((src & SLOWFS_DIR) && old_dir != new_dir) {	/* its ".." moves */
			__atomic_fetch_sub(&old_dir->i_nlink, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&new_dir->i_nlink, 1, __ATOMIC_RELAXED);
		}
		inode_touch(old->d_inode, T_CTIME);
	}
	change_leave(&c);
	return err;
}
