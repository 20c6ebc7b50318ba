/*
 * namei.c: from a path to a dentry.
 *
 * The file reads in the order of Linux's
 * Documentation/filesystems/path-lookup.rst:
 *   1. one component: lookup_fast (the dcache) and lookup_slow (the
 *      filesystem, under the directory's i_rwsem, through
 *      d_alloc_parallel), and the lookup_one calls built on them;
 *   2. the walk's state, struct nameidata, set up by path_init (in
 *      either mode) and released by terminate_walk; leaving RCU mode
 *      (try_to_unlazy, complete_walk);
 *   3. link_path_walk: every component but the last, each one through
 *      walk_component -> lookup_fast / lookup_slow -> step_into, which
 *      crosses mounts (traverse_mounts) or pushes a symlink to follow
 *      (pick_link), whose body the loop walks next: no recursion; 3a:
 *      the same steps in RCU mode;
 *   4. the last component: lookup_last, and the walks built on it, each
 *      run by walk_path (RCU mode first, then with references):
 *      path_lookupat (stat, chdir, ...), path_parentat (callers that
 *      change the directory), path_lookup_inodeat (stat with no
 *      reference), path_openat -> open_last_lookups / lookup_open
 *      (open(O_CREAT)).
 *
 * smpvfs has no vfsmount: each super block is mounted at most once, so a
 * dentry alone is a position in the tree (fs/mount.h), and where Linux
 * keeps a struct path this file keeps a dentry.
 *
 * Two modes, as Linux's.  A walk starts in RCU mode (nd->rcu): inside
 * rcu_read_lock, holding no reference and taking no lock, it reads each
 * dentry under its d_seq (found by __d_lookup_rcu) and checks the count
 * before it trusts what it read, so it writes nothing shared.  Whatever
 * it cannot do that way (a dcache miss, a long symlink, a mount being
 * unmounted, a change seen under it) it hands to the reference walk:
 * try_to_unlazy takes references on where the walk stands (d_legitimize:
 * only if nothing changed) and goes on in reference mode; if that fails,
 * the whole walk starts again in reference mode (-ECHILD).  A walk that
 * ends in RCU mode takes its one reference at the end, or none at all
 * (path_lookup_inode: stat).
 *
 * Locking: RCU mode takes no lock (path_init reads root and cwd under
 * task_fs's count); lookup_fast takes only the dcache's bucket lock (in
 * d_lookup); lookup_slow takes the directory's i_rwsem shared (exclusive
 * with vfs.lookup=exclusive), lookup_open exclusive; a mount crossing
 * takes mount_lock briefly (fs/mount.c); path_init in reference mode
 * takes task_fs.lock once, for root and cwd together.
 * The global order is in docs/design/08-lock-order.md.  Every reference the
 * walk holds is in its nameidata, and terminate_walk drops them.
 */
#include "fs/namei.h"
#include "fs/dcache.h"
#include "fs/dirops.h"
#include "fs/fs.h"
#include "fs/mount.h"
#include "fs/permission.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/cmdline.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/kcsan.h"
#include "kernel/lockdep.h"
#include "kernel/race.h"
#include "kernel/panic.h"
#include "kernel/rcu.h"
#include "kernel/slab.h"
#include "kernel/thread.h"
#include "arch/x86_64/percpu.h"
#include "kernel/string.h"
#include "kernel/trace.h"

bool vfs_lookup_exclusive;

static int set_lookup_mode(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	(void)p;
	if (len == 6 && !strncmp(val, "shared", 6))
		vfs_lookup_exclusive = false;
	else if (len == 9 && !strncmp(val, "exclusive", 9))
		vfs_lookup_exclusive = true;
	else {
		snprintf(why, n, "expected shared or exclusive");
		return -EINVAL;
	}
	return 0;
}
KPARAM("vfs.lookup", set_lookup_mode, vfs_lookup_exclusive, 0, 0,
       "slow-path lookups take i_rwsem shared (default, parallel) or exclusive");

/* vfs.rcuwalk=0: every walk takes references from its start (the old
 * behaviour), so that the benchmarks compare the two on one binary. */
bool vfs_rcu_walk = true;

static int set_rcu_walk(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	(void)p;
	if (len != 1 || (val[0] != '0' && val[0] != '1')) {
		snprintf(why, n, "expected 0 or 1");
		return -EINVAL;
	}
	vfs_rcu_walk = val[0] == '1';
	return 0;
}
KPARAM("vfs.rcuwalk", set_rcu_walk, vfs_rcu_walk, 0, 0,
       "path walks start in RCU mode (1, default) or take references from the start (0)");

/* ---- 1. one component ---------------------------------------------------- */

/* The mode word is read marked: chmod stores it (its permission bits)
 * while RCU-walks read its type bits, which never change. */
static bool inode_is_dir(const struct inode *inode)
{
	return inode && S_ISDIR(READ_ONCE(inode->i_mode));
}

/* (d_inode read once: an RCU-walk reads dentries that may change.) */
static bool is_dir(const struct dentry *d)
{
	return inode_is_dir(READ_ONCE(d->d_inode));
}

static bool is_symlink(const struct dentry *d)
{
	const struct inode *inode = READ_ONCE(d->d_inode);
	return inode && S_ISLNK(READ_ONCE(inode->i_mode));
}

int lookup_one_common(struct dentry *dir, size_t len)
{
	if (len == 0)
		return -ENOENT;
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	return is_dir(dir) ? 0 : -ENOTDIR;
}

/*
 * The fast path: the dcache alone, no sleeping lock.  A hit is final.
 * d_lookup holds the bucket lock while it walks the chain, and d_move
 * holds both buckets while it moves a dentry between them: so a miss is a
 * true miss at some instant, and the slow path (which looks again under
 * i_rwsem) settles it.  No sequence count is needed here: the RCU-walk's
 * lookup (__d_lookup_rcu, in walk_component_rcu), which walks chains with
 * no lock, is the one that needs d_seq.
 */
static struct dentry *lookup_fast(struct dentry *dir, const struct qstr *q, unsigned lookup_flags)
{
	return d_lookup_flags(dir, q, lookup_flags);
}

/*
 * The slow path's core, with dir's i_rwsem held (shared or exclusive):
 * d_alloc_parallel gives the hashed dentry (positive or negative), or an
 * in-lookup one that we alone ask the filesystem about while other
 * lookups of the same name wait for it to leave the in-lookup state
 * (d_add, or d_lookup_done if the filesystem did not answer).
 * name_lock (a directory change, i_rwsem shared): the in-lookup dentry's
 * name is locked before the filesystem is asked (d_name_lock_new), a
 * hashed dentry's where it was found if no one holds it
 * (d_alloc_parallel_trylock), and *locked says so; a hashed dentry whose
 * name is held is returned unlocked (the caller waits in d_name_lock).
 */
static struct dentry *lookup_slow_core(struct dentry *dir, const struct qstr *q, bool name_lock,
				       unsigned subclass, bool *locked)
{
	rwsem_assert_held(&dir->d_inode->i_rwsem);
	*locked = false;
	struct dentry *d = name_lock ? d_alloc_parallel_trylock(dir, q, locked) : d_alloc_parallel(dir, q);
	if (IS_ERR(d))
		return d;
	if (!d_in_lookup(d)) {
		if (*locked)
			d_name_lock_found(d, subclass);
		return d;
	}
	if (name_lock) {
		d_name_lock_new(d, subclass);
		*locked = true;
	}
	int err = dirop_fs_op("lookup", dir->d_inode, d, NULL,
			      dir->d_inode->i_op->lookup(dir->d_inode, d));	/* we alone, for this name */
	race_window();	/* d_add'ed, perhaps, and not yet done */
	d_lookup_done(d);
	if (err) {
		if (*locked)
			d_name_unlock(d);
		*locked = false;
		dput(d);
		return ERR_PTR(err);
	}
	return d;
}

static struct dentry *__lookup_slow(struct dentry *dir, const struct qstr *q)
{
	bool locked;
	return lookup_slow_core(dir, q, false, 0, &locked);
}

/* The slow path: dir's i_rwsem shared, so lookups in one directory run
 * in parallel and only wait for a change of the directory. */
static struct dentry *lookup_slow(struct dentry *dir, const struct qstr *q)
{
	struct inode *inode = dir->d_inode;
	bool excl = __atomic_load_n(&vfs_lookup_exclusive, __ATOMIC_RELAXED);
	trace_lookup_slow_start(q, excl);

	int err = excl ? down_write_killable(&inode->i_rwsem) : down_read_killable(&inode->i_rwsem);
	if (err)
		return ERR_PTR(err);	/* killed while a directory change held it */
	struct dentry *d = __lookup_slow(dir, q);
	if (excl)
		up_write(&inode->i_rwsem);
	else
		up_read(&inode->i_rwsem);
	trace_lookup_slow_end(q, d);
	return d;
}

/* The lookup_one family's start: the name checked and hashed into q. */
static int one_name(struct dentry *dir, const char *name, size_t len, struct qstr *q)
{
	int err = lookup_one_common(dir, len);
	if (err)
		return err;
	*q = (struct qstr){ name, (uint32_t)len, 0 };
	d_hash_name(dir, q);
	return 0;
}

struct dentry *lookup_one(struct dentry *dir, const char *name, size_t len)
{
	struct qstr q;
	int err = one_name(dir, name, len, &q);
	if (err)
		return ERR_PTR(err);
	rwsem_assert_held(&dir->d_inode->i_rwsem);
	return __lookup_slow(dir, &q);
}

struct dentry *lookup_one_unlocked(struct dentry *dir, const char *name, size_t len)
{
	struct qstr q;
	int err = one_name(dir, name, len, &q);
	if (err)
		return ERR_PTR(err);
	struct dentry *d = lookup_fast(dir, &q, 0);
	if (d)
		return d;
	race_window();	/* a miss: the name may be hashed before we look again */
	return lookup_slow(dir, &q);
}

/*
 * The locks of a directory change (fs/dirops.c, fs/rename.c and
 * open(O_CREAT)'s lookup_open below).  In a filesystem that opts in
 * (FS_PAR_DIROPS), unless vfs.dirops=exclusive, a change takes the
 * directory's i_rwsem shared and locks the name it changes
 * (fs/d_name_lock.c); otherwise i_rwsem exclusive, which excludes every
 * other change and slow lookup in the directory.  The choice is made once
 * per call (dirop_shared) and the call keeps it to the end: vfs.dirops
 * changes only with no change in flight (fs/dirops.h).
 */
void (*dirop_fs_hook)(const char *op, struct dentry *d, struct dentry *d2, bool enter);

bool dirop_shared(const struct dentry *dir)
{
	return !__atomic_load_n(&vfs_dirops_exclusive, __ATOMIC_RELAXED) &&
	       (dir->d_sb->s_type->fs_flags & FS_PAR_DIROPS);
}

int dirop_lock_dir(struct dentry *dir, bool shared, unsigned subclass)
{
	struct rw_semaphore *sem = &dir->d_inode->i_rwsem;
	int err = shared ? down_read_killable_nested(sem, subclass) :
			   down_write_killable_nested(sem, subclass);
	return err ? -EINTR : 0;
}

void dirop_unlock_dir(struct dentry *dir, bool shared)
{
	if (shared)
		up_read(&dir->d_inode->i_rwsem);
	else
		up_write(&dir->d_inode->i_rwsem);
}

struct dentry *lookup_one_trylock(struct dentry *dir, const char *name, size_t len,
				   unsigned subclass, bool *locked)
{
	*locked = false;
	struct qstr q;
	int err = one_name(dir, name, len, &q);
	if (err)
		return ERR_PTR(err);
	rwsem_assert_held_read(&dir->d_inode->i_rwsem);
	return lookup_slow_core(dir, &q, true, subclass, locked);
}

struct dentry *lookup_one_name_locked(struct dentry *dir, const char *name, size_t len,
				      unsigned subclass)
{
	struct qstr q = { name, (uint32_t)len, 0 };
	for (;;) {
		bool locked;
		struct dentry *d = lookup_one_trylock(dir, name, len, subclass, &locked);
		if (IS_ERR(d) || locked)
			return d;	/* born locked (a new name), or locked where found */
		int err = d_name_lock(d, dir, &q, subclass);
		if (!err)
			return d;
		dput(d);
		if (err != -EAGAIN)
			return ERR_PTR(err);
		/* renamed or unhashed while we waited: the name has another dentry now */
	}
}

/* ---- 2. the walk's state ------------------------------------------------- */

/* Flags of one walk: WALK_NOFOLLOW (namei.h) and these, internal. */
#define WALK_FOLLOW 0x10       /* step_into: follow a symlink found here */
#define WALK_RCU    0x20       /* path_init: start in RCU mode */
#define WALK_PARENT 0x40       /* walk_component: not the last component (LOOKUP_PARENT) */

/*
 * A symlink being followed whose body the walk is in: met before the end
 * of the path or of another body (link_path_walk), or as the last
 * component (lookup_last).  A frame holds what the walk needs to go on
 * where the link was met once the body is walked, and keeps the body
 * valid meanwhile: in reference mode by holding the link, in RCU mode by
 * being a copy (pick_link_rcu), one of WALK_NEST_RCU.  Deeper nesting
 * than that leaves RCU mode: each copy costs the walk RCU_LINK_MAX bytes
 * of stack, whatever it follows, and few walks meet more than one link.
 */
#define RCU_LINK_MAX 64
#define WALK_NEST_RCU 8
struct walk_link {
	const char *rest;          /* what follows the link where it was met */
	/* Reference mode: the link, held while its body (the inode's) is
	 * walked.  NULL: the frame was pushed in RCU mode, and the body is a
	 * copy, which needs no reference if the walk leaves RCU mode before
	 * it is done. */
	struct dentry *link;
};

struct nameidata {
	/* What the walk is asked (walk_path sets them; path_init reads them). */
	const char *name;          /* the path */
	struct dentry *given_root, *given_start;	/* the caller's, kept by it; NULL: the thread's */
	/* "/" for this walk: with a reference in reference mode, taken when
	 * first needed once the walk left RCU mode (walk_root). */
	struct dentry *root;
	const struct dentry *rcu_root;	/* the root RCU mode used, for walk_root: never read */
	struct dentry *path;       /* where the walk is now (the same) */
	/* RCU mode (see the top of the file): no references, and these. */
	bool rcu;
	unsigned seq, root_seq;    /* d_seq of path and of root as the walk read them */
	unsigned m_seq, r_seq;     /* mount_lock's and rename_lock's counts at the start */
	struct qstr last;          /* the component at hand: inside the path or a link body */
	int last_type;             /* enum last_type */
	bool last_slash;           /* a slash follows last ("dir/") */
	unsigned flags;            /* WALK_NOFOLLOW: not the last component */
	unsigned depth;            /* symlinks followed so far, nested or not */
	/* The links whose bodies the walk is in, innermost last (section 3:
	 * the stack that replaces recursion); walk_path's array. */
	struct walk_link *stack;
	unsigned nest;             /* how many */
	char (*copies)[RCU_LINK_MAX];	/* RCU mode: frame i's body, for i < WALK_NEST_RCU */
	/* Non-NULL: the reference the walk ends with goes to a file, and may
	 * come from this CPU's cache (complete_walk); where it came from. */
	struct file_ref *file_ref;
};

static int check_path(const char *path)
{
	size_t n = strnlen(path, PATH_MAX);
	if (n == 0)
		return -ENOENT;
	if (n == PATH_MAX)
		return -ENAMETOOLONG;	/* PATH_MAX counts the terminating NUL */
	return 0;
}

/*
 * Start the walk of nd->name (Linux's path_init): at the root for an
 * absolute path, else at the start (the caller's, or the thread's cwd).
 * In RCU mode (WALK_RCU) it enters the read side and takes no reference:
 * a given root and start are the caller's to keep, the thread's are read
 * under task_fs's count with their d_seq.  With references, it takes one
 * on the root and one on where the walk starts: the thread's in one visit
 * to task_fs.lock (task_root_and_cwd).  terminate_walk undoes either,
 * also after an error.
 */
uint64_t d_revalidate_since(void)
{
	return current_thread()->walk_since;
}

void d_revalidate_joined(uint64_t ticket)
{
	struct thread *t = current_thread();
	if (t->walk_since != UINT64_MAX && ticket < t->walk_since)
		t->walk_since = ticket;
}

const char *d_revalidate_ahead(void)
{
	return current_thread()->walk_ahead;
}

static int path_init(struct nameidata *nd, unsigned flags)
{
	struct dentry *root = nd->given_root, *start = nd->given_start;
	current_thread()->walk_since = d_revalidate_now();	/* before any step */
	nd->flags = flags & WALK_NOFOLLOW;
	nd->rcu = flags & WALK_RCU;
	nd->depth = 0;
	nd->nest = 0;
	bool absolute = nd->name[0] == '/';
	if (nd->rcu) {
		rcu_read_lock();
		nd->m_seq = mount_seq_begin();
		nd->r_seq = read_seqbegin(&rename_lock);
		unsigned start_seq = 0;
		if (!root) {
			task_root_and_cwd_rcu(&root, &nd->root_seq, &start, &start_seq);
		} else {	/* the caller's references keep them */
			nd->root_seq = d_seq_begin(root);
			start_seq = start ? d_seq_begin(start) : 0;
		}
		race_window_on(start ? start : root);	/* read: they may stop being the thread's now */
		nd->root = root;
		nd->path = absolute || !start ? root : start;
		nd->seq = absolute || !start ? nd->root_seq : start_seq;
	} else {
		if (root) {
			dget(root);
			if (start)
				dget(start);
		} else {
			task_root_and_cwd(&root, &start);
		}
		nd->root = root;
		if (absolute || !start) {
			dput(start);
			start = dget(root);
		}
		nd->path = start;
	}
	return check_path(nd->name);
}

/* The top frame off the stack, its link let go: its body is walked. */
static void pop_link(struct nameidata *nd)
{
	dput(nd->stack[--nd->nest].link);	/* NULL for a frame pushed in RCU mode */
}

static void terminate_walk(struct nameidata *nd)
{
	current_thread()->walk_since = UINT64_MAX;
	while (nd->nest)
		pop_link(nd);
	if (nd->rcu) {
		nd->rcu = false;
		rcu_read_unlock();
	} else {
		dput(nd->path);
		dput(nd->root);
	}
	nd->path = nd->root = NULL;
}

/* How walks ended and why they left RCU mode, per CPU: counting must not
 * be the shared write RCU mode exists to avoid. */
static struct walk_stats_cpu {
	uint64_t n[NR_WALK_STATS];
} __attribute__((aligned(64))) walk_stats[MAX_CPUS];

static void walk_stat(int which)
{
	__atomic_fetch_add(&walk_stats[cpu_id()].n[which], 1, __ATOMIC_RELAXED);
}

void namei_walk_stats(uint64_t out[NR_WALK_STATS])
{
	for (int s = 0; s < NR_WALK_STATS; s++) {
		out[s] = 0;
		for (unsigned c = 0; c < MAX_CPUS; c++)
			out[s] += __atomic_load_n(&walk_stats[c].n[s], __ATOMIC_RELAXED);
	}
}

const char *const walk_stat_names[NR_WALK_STATS] = {
	[WALK_RCU_DONE] = "ended in RCU mode, no reference taken",
	[WALK_RCU_REF] = "ended in RCU mode, one reference taken",
	[WALK_UNLAZY_MISS] = "left RCU mode: a name not in the dcache",
	[WALK_UNLAZY_LINK] = "left RCU mode: a symlink too long, or nested too deep, to copy",
	[WALK_UNLAZY_MOUNT] = "left RCU mode: an umount deciding",
	[WALK_UNLAZY_CHANGED] = "left RCU mode: a dentry changing",
	[WALK_UNLAZY_CREATE] = "left RCU mode: open(O_CREAT)'s last step",
	[WALK_UNLAZY_REVALIDATE] = "left RCU mode: a dentry its filesystem must confirm",
	[WALK_RESTART] = "restarted with references: a change under it",
};

/*
 * A failed handover's reference on d, given back.  Still inside the read
 * side if it is not the last: that is what makes it safe to check
 * mount_lock after d_legitimize.  A mounted root legitimized just after
 * umount found it idle (count 1) and detached it keeps the super block's
 * own reference until kill_sb, which runs only after umount's grace
 * period, so inside the read side ours is never the last and goes before
 * the super block can.  A last reference is some other dentry's, whose
 * existence keeps its filesystem mounted (it holds its parent, and so on
 * up to the root: umount finds that busy), so it may be dropped after the
 * read side.  Returns d if the caller must still dput it, else NULL.
 */
static struct dentry *unlazy_put(struct dentry *d)
{
	return d_put_not_last(d) ? NULL : d;
}

/*
 * One reference on d, where the walk read it under seq (Linux's
 * legitimize_path): mount_lock is checked before (a walk that raced a
 * mount or umount takes nothing, as Linux's legitimize_mnt checks first)
 * and after d_legitimize, since an umount can decide and detach in
 * between.  true: d is held.  false: nothing is held, except perhaps a
 * reference left in *put for the caller to dput once out of the read side.
 */
static bool legitimize_path(struct nameidata *nd, struct dentry *d, unsigned seq,
			    struct dentry **put, struct file_ref *ref)
{
	*put = NULL;
	if (mount_seq_retry(nd->m_seq))
		return false;
	race_window_on(d);	/* about to legitimize: an umount may decide, a rename move d */
	unsigned before = raw_read_seqcount(&d->d_seq);
	if (ref ? !d_legitimize_file(d, seq, ref, put) : !d_legitimize(d, seq, put))
		return false;
	/* Test builds check the handover from outside d_legitimize: d_seq
	 * only grows, so if it had moved before the call, what the walk
	 * read of d under seq may be false, and no handover may keep d. */
	if (CONFIG_LOCKDEP && before != seq)
		panic("namei: a handover from RCU mode kept '%s' though its d_seq moved (%u, then %u) "
		      "before it was legitimized", d->d_name.name, seq, before);
	race_window();	/* held, mount_lock not yet checked again (a spin) */
	if (!mount_seq_retry(nd->m_seq))
		return true;
	if (!ref || !dput_file_cached(d, ref))
		*put = unlazy_put(d);
	return false;
}

/*
 * Leave RCU mode where the walk stands (Linux's try_to_unlazy): take a
 * reference on nd->path, valid only if it did not change since the walk
 * read it and no mount or umount ran (legitimize_path).  The root is not
 * taken: most walks that leave RCU mode (a create, an unlink, a dcache
 * miss) never need it again, and every walk on every CPU shares it, so a
 * reference would write a line they all read.  walk_root takes it if a
 * ".." or an absolute link body needs it.  0: the walk goes on in
 * reference mode.  -ECHILD: it could not; it holds nothing, and must
 * start again in reference mode.
 */
/* Why a walk left RCU mode, as the tracer prints it (one word each). */
static const char *const unlazy_reasons[NR_WALK_STATS] = {
	[WALK_UNLAZY_MISS] = "miss", [WALK_UNLAZY_LINK] = "link", [WALK_UNLAZY_MOUNT] = "mount",
	[WALK_UNLAZY_CHANGED] = "changed", [WALK_UNLAZY_CREATE] = "create",
	[WALK_UNLAZY_REVALIDATE] = "revalidate",
};

static int try_to_unlazy(struct nameidata *nd, int why)
{
	struct dentry *put;	/* to drop out of the read side */
	bool ok = legitimize_path(nd, nd->path, nd->seq, &put, NULL);
	nd->rcu = false;
	rcu_read_unlock();
	race_window_gp();	/* out of the read side, a failure's reference not yet dropped */
	nd->rcu_root = nd->root;
	nd->root = NULL;
	trace_rcu_unlazy(nd, unlazy_reasons[why], ok);
	if (!ok) {
		dput(put);
		nd->path = NULL;
		walk_stat(WALK_RESTART);
		return -ECHILD;
	}
	walk_stat(why);
	return 0;
}

/*
 * The walk's root with a reference, in reference mode (Linux's set_root):
 * a walk that left RCU mode takes it only here, when a ".." or an absolute
 * link body first needs it.  It is the root RCU mode used: a thread
 * group's root is set when the group is made and never changes (smpvfs
 * has no chroot; one that adds it must restart a walk, -ECHILD, whose
 * root changed here).  rcu_root is only compared, never read.
 */
static struct dentry *walk_root(struct nameidata *nd)
{
	if (!nd->root) {
		nd->root = nd->given_root ? dget(nd->given_root) : task_root();
		if (nd->root != nd->rcu_root)
			panic("namei: the walk's root changed after it left RCU mode");
	}
	return nd->root;
}

/*
 * The end of a walk that is still in RCU mode and hands its result over
 * with a reference (Linux's complete_walk): only the last dentry needs
 * one.  The root is not needed any more, so it is not taken: taking it
 * would write the count of a dentry every walk on every CPU shares.  A
 * reference for a file (nd->file_ref) may be a cached one.
 */
static int complete_walk(struct nameidata *nd)
{
	struct dentry *put;
	bool ok = legitimize_path(nd, nd->path, nd->seq, &put, nd->file_ref);
	nd->rcu = false;
	rcu_read_unlock();
	race_window_gp();	/* out of the read side, a failure's reference not yet dropped */
	nd->root = NULL;
	if (!ok) {
		dput(put);
		nd->path = NULL;
		walk_stat(WALK_RESTART);
		return -ECHILD;
	}
	if (nd->file_ref)
		d_refcache_adopt(nd->path, nd->file_ref);
	walk_stat(WALK_RCU_REF);
	return 0;
}

/* An error found in RCU mode stands only if what the walk read is still
 * true (its place and the mounts); else the walk starts again. */
static int rcu_check_error(struct nameidata *nd, int err)
{
	if (!err || !nd->rcu || err == -ECHILD)
		return err;
	if (read_seqcount_retry(&nd->path->d_seq, nd->seq) || mount_seq_retry(nd->m_seq)) {
		walk_stat(WALK_RESTART);
		return -ECHILD;
	}
	return err;
}

/* ---- 3. every component but the last -------------------------------------- */

/*
 * Split the next component off *pp, like xv6's skipelem: skip the
 * slashes before it, set *name to it, and leave *pp just after it (at a
 * slash or at the end).  Returns whether it is the last one (only
 * slashes, or nothing, follow).  Examples:
 *   "a/bb/c"   ->  "a",  *pp = "/bb/c",  not last
 *   "///a//bb" ->  "a",  *pp = "//bb",   not last
 *   "bb/"      ->  "bb", *pp = "/",      last (with a slash after it)
 *   "c"        ->  "c",  *pp = "",       last
 *   "/" or ""  ->  "" (length 0),        last: no component at all
 */
static bool next_component(const char **pp, struct qstr *name)
{
	const char *p = *pp;
	while (*p == '/')
		p++;
	name->name = p;
	while (*p && *p != '/')
		p++;
	name->len = (uint32_t)(p - name->name);
	*pp = p;
	while (*p == '/')
		p++;
	return *p == '\0';
}

static int last_type_of(const struct qstr *q)
{
	if (q->len == 0)
		return LAST_ROOT;
	if (q->name[0] == '.' && (q->len == 1 || (q->len == 2 && q->name[1] == '.')))
		return q->len == 1 ? LAST_DOT : LAST_DOTDOT;
	return LAST_NORM;
}

/* If a filesystem is mounted on d, go to its root (and on, if another is
 * mounted there).  Takes and returns a reference, or ERR_PTR(-EINTR) if
 * the thread was killed while waiting for an umount to decide. */
static struct dentry *traverse_mounts(struct dentry *d)
{
	while (d_mountpoint(d)) {
		struct dentry *root = mount_cross_down(d);
		if (!root)
			break;	/* unmounted meanwhile */
		dput(d);
		if (IS_ERR(root))
			return root;	/* killed while an umount decided */
		d = root;
	}
	return d;
}

static int link_path_walk(struct nameidata *nd, const char *name);

/*
 * What every link body gets before it is walked, in either mode: the
 * count (MAXSYMLINKS per walk, nested or one after another), the checks
 * of a path (NULL: the filesystem cannot read the link), and the start:
 * the root for an absolute body, else nd->path, the directory the link
 * is in.
 */
static int enter_link_body(struct nameidata *nd, const char *body)
{
	if (++nd->depth > MAXSYMLINKS)
		return -ELOOP;
	if (!body)
		return -EINVAL;
	int err = check_path(body);
	if (err)
		return err;
	if (body[0] == '/' && nd->rcu) {
		nd->path = nd->root;
		nd->seq = nd->root_seq;
	} else if (body[0] == '/') {
		dput(nd->path);
		nd->path = dget(walk_root(nd));
	}
	return 0;
}

/* Walk a link's body, every component but the last, which is left in
 * nd->last: for open_last_lookups, which holds the link meanwhile. */
static int walk_link_body(struct nameidata *nd, const char *body)
{
	int err = enter_link_body(nd, body);
	return err ? err : link_path_walk(nd, body);
}

/*
 * A symlink found in nd->path, to follow: push a frame that holds it (its
 * reference consumed), and give its body to the caller to walk; the walk
 * stays in the link's directory, where a relative body starts.  Where
 * the link was met is the caller's to record (the frame's rest).
 */
static int pick_link(struct nameidata *nd, struct dentry *link, const char **body)
{
	const char *b = inode_get_link(link->d_inode);
	int err = enter_link_body(nd, b);
	if (err) {
		dput(link);
		return err;
	}
	nd->stack[nd->nest++] = (struct walk_link){ .rest = NULL, .link = link };
	*body = b;
	return 0;
}

/*
 * Move the walk to d, which was found in nd->path (reference consumed):
 * across any mount on it, or, if it is a symlink to follow (WALK_FOLLOW,
 * then body is not NULL), nowhere yet: the link is pushed and its body
 * left in *body for the caller's loop to walk.  The one place the
 * reference walk crosses mounts (the RCU steps cross them with
 * traverse_mounts_rcu, below).
 */
static int step_into(struct nameidata *nd, unsigned flags, struct dentry *d, const char **body)
{
	if (is_symlink(d) && (flags & WALK_FOLLOW)) {
		race_window();	/* d found, not entered: it may be renamed or removed */
		return pick_link(nd, d, body);
	}
	d = traverse_mounts(d);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	dput(nd->path);
	nd->path = d;
	return 0;
}

/* ".." from nd->path: stays at the walk's root; at a mounted root, leaves
 * through the mount point first.  "." stays. */
static int handle_dots(struct nameidata *nd)
{
	if (nd->last_type == LAST_DOT)
		return 0;
	struct dentry *d = nd->path, *root = walk_root(nd);
	while (d != root && d == d->d_sb->s_root) {
		struct dentry *mp = mount_point_of(d->d_sb);
		if (!mp)	/* the top of a tree that is not mounted */
			return d == nd->path ? 0 : step_into(nd, 0, dget(d), NULL);
		d = mp;
	}
	return step_into(nd, 0, d == root ? dget(d) : dget_parent(d), NULL);
}

/* ---- 3a. the same steps in RCU mode ----------------------------------------
 *
 * Each returns 0 (the walk moved, still in RCU mode, or, after a symlink
 * whose body's walk left it, in reference mode), 1 (this step needs the
 * reference walk: *why says why), or an error; an error found in RCU mode
 * is checked by rcu_check_error before it is believed.
 */

/*
 * pick_link in RCU mode, for a short body (an inline one, such as ext2's
 * fast symlinks of up to 60 bytes; Linux too follows those without leaving
 * RCU mode).  inode is the link's, as the walk checked under the link's
 * d_seq; a body never changes and is freed only a grace period after its
 * inode (get_link's contract), so a copy made inside the read side is the
 * link's.  The copy, kept for the frame pushed, is walked, not the
 * inode's body: if the walk leaves RCU mode on the way, no reference on
 * the link is needed.  1: too long to copy here, or nested deeper than
 * the copies go; the reference walk follows it.
 */
static int pick_link_rcu(struct nameidata *nd, struct inode *inode, int *why, const char **body)
{
	race_window_on(inode);	/* checked, body not read: an unlink may evict it now */
	const char *b = inode_get_link(inode);
	size_t n = b ? strnlen(b, RCU_LINK_MAX) : 0;
	/* No body here may be an inode being evicted under us (its
	 * filesystem let go of it): the reference walk, holding the link,
	 * says whether the link really cannot be read (-EINVAL). */
	if (!b || n == RCU_LINK_MAX || nd->nest == WALK_NEST_RCU) {
		*why = WALK_UNLAZY_LINK;
		return 1;
	}
	char *copy = nd->copies[nd->nest];
	memcpy(copy, b, n);
	copy[n] = '\0';
	int err = enter_link_body(nd, copy);
	if (err)
		return err;
	nd->stack[nd->nest++] = (struct walk_link){ .rest = NULL, .link = NULL };
	*body = copy;
	return 0;
}

/* Across any mounts on *dp, with no reference and no lock. */
static int traverse_mounts_rcu(struct dentry **dp, unsigned *seqp, int *why)
{
	struct dentry *d = *dp;
	while (d_mountpoint(d)) {
		struct dentry *root = __mount_cross_down_rcu(d);
		if (IS_ERR(root)) {
			*why = WALK_UNLAZY_MOUNT;	/* an umount is deciding: wait, with references */
			return 1;
		}
		if (!root)
			break;
		race_window_on(root);	/* a mounted root read, its d_seq not yet: an umount may run */
		d = root;
		*seqp = d_seq_begin(d);
	}
	*dp = d;
	return 0;
}

/* "." and ".." as handle_dots takes them, reading d_parent and the mounts
 * with no lock.  Every d_parent changes only under rename_lock, so "no
 * rename since the walk began" (its count) makes the climb exact; Linux
 * checks the same, against a rename taking the walk out of its root. */
static int handle_dots_rcu(struct nameidata *nd, int *why)
{
	if (nd->last_type == LAST_DOT)
		return 0;
	struct dentry *d = nd->path;
	while (d != nd->root && d == d->d_sb->s_root) {
		struct dentry *mp = mount_point_of(d->d_sb);
		if (!mp)
			break;	/* the top of a tree that is not mounted: stay */
		race_window_on(mp);	/* a mount point read: an umount may free it now */
		d = mp;
	}
	struct dentry *to = d == nd->root || d == d->d_sb->s_root ? d : READ_ONCE(d->d_parent);
	race_window_on(d);	/* d_parent read, its d_seq not yet: a rename may move d */
	d_assert_not_freed(to);
	unsigned seq = d_seq_begin(to);
	if (read_seqcount_retry(&nd->path->d_seq, nd->seq) || read_seqretry(&rename_lock, nd->r_seq) ||
	    mount_seq_retry(nd->m_seq))
		return -ECHILD;
	int r = traverse_mounts_rcu(&to, &seq, why);
	if (r)
		return r;
	nd->path = to;
	nd->seq = seq;
	return 0;
}

/*
 * walk_component in RCU mode: the child from __d_lookup_rcu, believed once
 * the parent's d_seq (the child was its child) and then the child's (its
 * inode) still hold.  A symlink to follow with a short body is followed
 * here (pick_link_rcu).  A miss, a longer symlink, a changing child: the
 * reference walk does this step.
 */
static int walk_component_rcu(struct nameidata *nd, unsigned flags, int *why, const char **body)
{
	if (nd->last_type != LAST_NORM)
		return handle_dots_rcu(nd, why);
	struct dentry *dir = nd->path;
	d_hash_name(dir, &nd->last);
	unsigned seq;
	struct dentry *d = __d_lookup_rcu(dir, &nd->last, &seq);
	if (!d) {
		*why = WALK_UNLAZY_MISS;
		return 1;
	}
	/* Ours never asks a filesystem in RCU mode (its d_revalidate may
	 * sleep in round trips): the reference walk's lookup_fast does. */
	if (d_must_revalidate(d)) {
		*why = WALK_UNLAZY_REVALIDATE;
		return 1;
	}
	const struct inode *inode = READ_ONCE(d->d_inode);
	if (CONFIG_LOCKDEP && inode && READ_ONCE(inode->i_mode) == 0x01010101u * SLAB_POISON)
		panic("namei: an RCU-walk read inode %p after it was freed", (const void *)inode);
	race_window_on(d);	/* read, not yet checked: a rename or unlink may run */
	if (read_seqcount_retry(&dir->d_seq, nd->seq))
		return -ECHILD;
	if (read_seqcount_retry(&d->d_seq, seq)) {
		*why = WALK_UNLAZY_CHANGED;
		return 1;
	}
	d_assert_found_hashed(d, seq);
	if (!inode)
		return -ENOENT;
	if (S_ISLNK(READ_ONCE(inode->i_mode)) && (flags & WALK_FOLLOW))
		return pick_link_rcu(nd, (struct inode *)inode, why, body);
	int r = traverse_mounts_rcu(&d, &seq, why);
	if (r)
		return r;
	nd->path = d;
	nd->seq = seq;
	return 0;
}

/* ---- 3b. one step, in either mode ------------------------------------------ */

/* Step from nd->path to its child nd->last: ".", "..", or a name looked
 * up in the dcache, else in the filesystem; it must exist.  In RCU mode
 * the step is tried without references first.  Returns NULL (the walk
 * moved), an error (ERR_PTR), or, for a symlink to follow, which is
 * pushed, its body (as Linux's walk_component). */
static const char *walk_component(struct nameidata *nd, unsigned flags)
{
	const char *body = NULL;
	int err;
	bool missed = false;
	if (nd->rcu) {
		int why = 0;
		err = walk_component_rcu(nd, flags, &why, &body);
		if (err <= 0)
			return err ? ERR_PTR(err) : body;
		err = try_to_unlazy(nd, why);
		if (err)
			return ERR_PTR(err);
		/* A dentry to revalidate (9p's cache=none, procfs) is not a
		 * miss: lookup_fast asks its filesystem (d_lookup,
		 * d_revalidate) before any lock of the directory's. */
		missed = why == WALK_UNLAZY_MISS;
	}
	if (nd->last_type != LAST_NORM) {
		err = handle_dots(nd);
		return err ? ERR_PTR(err) : NULL;
	}
	struct dentry *dir = nd->path;
	struct dentry *d = NULL;
	/* After an RCU-walk miss, straight to the slow path, as Linux: the
	 * name is hashed for this directory already, and d_alloc_parallel
	 * looks in the dcache again under the in-lookup bucket lock (a name
	 * added since is found there), so a d_lookup here would only be a
	 * third look at the same chain. */
	if (!missed) {
		d_hash_name(dir, &nd->last);
		/* What follows the name, for a filesystem that revalidates
		 * names ahead (d_revalidate_ahead): outside link bodies only. */
		struct thread *self = current_thread();
		self->walk_ahead = nd->nest ? NULL : nd->last.name + nd->last.len;
		d = lookup_fast(dir, &nd->last, flags & WALK_PARENT ? LOOKUP_PARENT : 0);
		self->walk_ahead = NULL;
		trace_lookup_fast(&nd->last, d);
	}
	if (!d) {
		race_window();	/* a miss: the name may be hashed before we look again */
		d = lookup_slow(dir, &nd->last);
	}
	if (IS_ERR(d))
		return (const char *)d;
	if (!d->d_inode) {
		dput(d);
		return ERR_PTR(-ENOENT);
	}
	race_window();	/* found: a mount on it may come or go now */
	err = step_into(nd, flags, d, &body);
	return err ? ERR_PTR(err) : body;
}

/* Whether only slashes are left of a path: a link met just before them
 * must lead to a directory ("link/"). */
static bool only_slashes(const char *p)
{
	if (*p != '/')
		return false;
	while (*p == '/')
		p++;
	return *p == '\0';
}

/*
 * Walk every component of name but the last, from nd->path, and leave
 * the last one in nd->last (LAST_ROOT if name is only slashes).  Every
 * component, the last too, must have a directory before it and be at
 * most NAME_MAX bytes.  Symlinks before the last are always followed.
 *
 * Without recursion, as Linux's: a link met on the way is pushed
 * (walk_component, pick_link) with what follows it (rest), and the loop
 * goes on in its body; at the end of a body, its last component is
 * stepped onto and followed too, then the frame is popped and the loop
 * goes on with its rest.  So the walk's stack does not grow with links
 * inside links.  Frames below `base` are the caller's (lookup_last's).
 */
static int link_path_walk(struct nameidata *nd, const char *name)
{
	unsigned base = nd->nest;
	for (;;) {
		bool last = next_component(&name, &nd->last);
		nd->last_type = last_type_of(&nd->last);
		nd->last_slash = *name == '/';
		bool done = false;	/* the top link's body is walked */
		if (nd->last_type == LAST_ROOT) {
			if (nd->nest == base)
				return 0;	/* "/": the walk stays where it is */
			done = true;	/* what was left of a body: slashes, or nothing */
		} else {
			/* Search permission on every directory the walk passes
			 * (the last component's too), before its name is looked
			 * at, as Linux's may_lookup: lockless, so the fast path
			 * stays free of locks and shared writes
			 * (fs/permission.h).  One load of d_inode for both tests:
			 * in RCU mode nothing keeps nd->path, which the shrinker
			 * or an rmdir may free (clearing d_inode) at any moment.
			 * The inode itself outlives the read side, and a freed
			 * dentry's d_seq has moved, so rcu_check_error does not
			 * believe an error decided on a stale inode. */
			struct inode *dir = READ_ONCE(nd->path->d_inode);
			race_window_on(nd->path);	/* RCU mode: nd->path may be freed now */
			bool isdir = inode_is_dir(dir);
			if (isdir) {
				int err = may_lookup(dir);
				if (err)
					return err;
			}
			if (nd->last.len > NAME_MAX)
				return -ENAMETOOLONG;
			if (!isdir)
				return -ENOTDIR;
			if (last && nd->nest == base)
				return 0;
			/* Inside the path, or the last component of a body,
			 * which is followed as well: the walk goes on below. */
			const char *body = walk_component(nd, WALK_FOLLOW | WALK_PARENT);
			if (body) {
				if (IS_ERR(body))
					return (int)PTR_ERR(body);
				nd->stack[nd->nest - 1].rest = name;
				name = body;
				continue;
			}
			if (!last)
				continue;
			/* The walk came to no link, so last_slash is still this
			 * component's: "file/" at the end of a body. */
			if (nd->last_slash && !is_dir(nd->path))
				return -ENOTDIR;
			done = true;
		}
		if (done) {
			name = nd->stack[nd->nest - 1].rest;
			pop_link(nd);
			if (only_slashes(name) && !is_dir(nd->path))
				return -ENOTDIR;	/* "link/", the link a body's last */
		}
	}
}

/* ---- 4. the last component ------------------------------------------------ */

/*
 * The final links' loop of lookup_last, out of its common path: body is
 * the first link's (pushed), want_dir whether a slash followed it.  Each
 * body is walked (link_path_walk) and its last component stepped onto,
 * itself followed; every link whose body the loop is in is held until
 * the end.
 */
static int follow_final_links(struct nameidata *nd, const char *body, bool want_dir)
{
	unsigned base = nd->nest - 1;
	int err;
	for (;;) {
		err = link_path_walk(nd, body);	/* its last component is the next turn's */
		if (err || nd->last_type == LAST_ROOT)
			break;
		want_dir |= nd->last_slash;
		body = walk_component(nd, WALK_FOLLOW);
		if (!body)
			break;
		if (IS_ERR(body)) {
			err = (int)PTR_ERR(body);
			break;
		}
	}
	if (!err && want_dir && !is_dir(nd->path))
		err = -ENOTDIR;	/* "link/": a directory was demanded */
	while (!err && nd->nest > base)
		pop_link(nd);	/* on an error, terminate_walk lets them go */
	return err;
}

/* Step onto the last component (followed if a symlink and `follow`, or
 * if a slash follows it); "name/" must be a directory.  A link followed
 * here ends where its body's last component leads (follow_final_links). */
static int lookup_last(struct nameidata *nd, bool follow)
{
	if (nd->last_type == LAST_ROOT)
		return 0;
	bool slash = nd->last_slash;
	const char *body = walk_component(nd, follow || slash ? WALK_FOLLOW : 0);
	if (!body)
		return slash && !is_dir(nd->path) ? -ENOTDIR : 0;	/* "file/" */
	if (IS_ERR(body))
		return (int)PTR_ERR(body);
	return follow_final_links(nd, body, slash);
}

/* The walk's reference on where it ended passes to the caller (no count
 * goes up and down again on a dentry other CPUs may be walking). */
static struct dentry *take_path(struct nameidata *nd)
{
	struct dentry *d = nd->path;
	nd->path = NULL;
	return d;
}

/* The whole walk; the dentry reached, with a reference, in *res. */
static int path_lookupat(struct nameidata *nd, void *res)
{
	int err = link_path_walk(nd, nd->name);
	if (!err)
		err = lookup_last(nd, !(nd->flags & WALK_NOFOLLOW));
	if (!err && nd->rcu)
		err = complete_walk(nd);	/* the one reference, at the end */
	err = rcu_check_error(nd, err);
	if (!err)
		*(struct dentry **)res = take_path(nd);
	return err;
}

struct file_walk {
	struct dentry *d;          /* out: the dentry reached, with a reference */
	struct file_ref *ref;      /* out: where the reference came from */
};

/* path_lookupat for open: the reference may be a cached one. */
static int path_lookup_fileat(struct nameidata *nd, void *arg)
{
	struct file_walk *fw = arg;
	*fw->ref = (struct file_ref){ 0 };	/* an ordinary one, unless complete_walk says */
	nd->file_ref = fw->ref;
	return path_lookupat(nd, &fw->d);
}

struct parent_walk {
	struct dentry *dir;        /* out: the parent, with a reference */
	struct last_name *last;    /* out: the last component */
	int settle;                /* what the caller fails on at once (below), or NAME_UNKNOWN */
};

enum { NAME_UNKNOWN, NAME_EXISTS, NAME_MISSING };	/* what last_rcu found */

/*
 * Beyond Linux: what nd->last (a plain name) is in nd->path, looked for
 * in RCU mode.  A call that makes a name fails with -EEXIST when it
 * exists, one that removes a name with -ENOENT when it does not, after
 * the walk's errors and before any other (Linux's filename_create,
 * lookup_open, do_unlinkat, do_rmdir: search permission on the
 * directory, which link_path_walk checked for this last component too,
 * comes first; for a removal a read-only filesystem too, which the
 * caller tests).  A hashed dentry whose d_seq held is that answer at the
 * instant it was read (the caller's rcu_check_error checks the parent's
 * d_seq and mount_lock afterwards), with no reference taken, no lock and
 * nothing written: so mkdir -p over existing directories, O_EXCL lock
 * files that exist and rm -f of names that do not take no directory
 * lock.  NAME_UNKNOWN: RCU mode cannot tell (a miss, a change, a name
 * with an error of its own): the caller locks the directory and looks.
 */
static int last_rcu(struct nameidata *nd)
{
	if (nd->last_type != LAST_NORM || nd->last_slash || nd->last.len > NAME_MAX)
		return NAME_UNKNOWN;	/* each has its own error first */
	d_hash_name(nd->path, &nd->last);
	unsigned seq;
	struct dentry *d = __d_lookup_rcu(nd->path, &nd->last, &seq);
	if (!d || d_must_revalidate(d))
		return NAME_UNKNOWN;	/* its filesystem must confirm it */
	bool positive = READ_ONCE(d->d_inode) != NULL;
	race_window_on(d);	/* read, not yet checked: a create or unlink may run */
	if (read_seqcount_retry(&d->d_seq, seq))
		return NAME_UNKNOWN;
	return positive ? NAME_EXISTS : NAME_MISSING;
}

/* The error a call that settles on `settle` (the parent walk's) gets at
 * once for nd->last, or 0 to lock and look.  Counted as a walk that ended
 * in RCU mode (if rcu_check_error then restarts it, as a restart too). */
static int settle_last_rcu(struct nameidata *nd, int settle)
{
	if (settle == NAME_MISSING && (nd->path->d_sb->s_flags & SB_RDONLY))
		return 0;	/* a removal: -EROFS comes before -ENOENT */
	if (settle == NAME_UNKNOWN || last_rcu(nd) != settle)
		return 0;
	walk_stat(WALK_RCU_DONE);
	return settle == NAME_EXISTS ? -EEXIST : -ENOENT;
}

/* The walk to the parent of the last component, which it describes. */
static int path_parentat(struct nameidata *nd, void *arg)
{
	struct parent_walk *pw = arg;
	int err = link_path_walk(nd, nd->name);
	if (!err && nd->rcu)
		err = settle_last_rcu(nd, pw->settle);	/* no reference: terminate_walk leaves the read side */
	if (!err && nd->rcu)
		err = complete_walk(nd);
	err = rcu_check_error(nd, err);
	if (!err)
		pw->dir = take_path(nd);
	*pw->last = (struct last_name){ nd->last.name, nd->last.len, nd->last_type,
					nd->last_type == LAST_ROOT || nd->last_slash };
	return err;
}

struct inode_walk {
	void (*fn)(const struct inode *, void *);
	void *arg;
};

/*
 * Beyond Linux: the walk that hands the inode it reaches to fn, with no
 * reference taken when it stays in RCU mode.  fn then runs inside the
 * read side (it must not sleep, and only reads: stat's attribute copy),
 * and its result counts only if the final dentry's d_seq says the dentry
 * still had that inode afterwards; else the walk is made again with
 * references (-ECHILD).  So two CPUs that stat one cached file write no
 * cache line in common.
 */
static int path_lookup_inodeat(struct nameidata *nd, void *arg)
{
	struct inode_walk *iw = arg;
	int err = link_path_walk(nd, nd->name);
	if (!err)
		err = lookup_last(nd, !(nd->flags & WALK_NOFOLLOW));
	if (!err && nd->rcu) {
		const struct inode *inode = READ_ONCE(nd->path->d_inode);
		race_window_on(nd->path);	/* the inode read: its dentry may be freed now */
		if (inode)
			iw->fn(inode, iw->arg);
		if (!inode || read_seqcount_retry(&nd->path->d_seq, nd->seq) || mount_seq_retry(nd->m_seq))
			err = -ECHILD;
		else
			walk_stat(WALK_RCU_DONE);
	} else if (!err) {
		iw->fn(nd->path->d_inode, iw->arg);	/* holds a reference */
	}
	return rcu_check_error(nd, err);
}

static bool first_try_rcu(void)
{
	return __atomic_load_n(&vfs_rcu_walk, __ATOMIC_RELAXED);
}

/*
 * Every walk's skeleton (Linux's filename_lookup, filename_parentat,
 * do_filp_open): body(nd) in RCU mode first and, if that gives up
 * (-ECHILD), once more with references, which never gives up.  From root
 * and start (the caller's, kept), or with root NULL from the thread's
 * root and cwd.  body leaves its result in arg.
 */
static int walk_path(struct dentry *root, struct dentry *start, const char *path, unsigned flags,
		     int (*body)(struct nameidata *nd, void *arg), void *arg)
{
	int err = -ECHILD;
	/* Not cleared: only frames pushed are read. */
	struct walk_link links[MAXSYMLINKS];
	char copies[WALK_NEST_RCU][RCU_LINK_MAX];
	for (int rcu = first_try_rcu(); rcu >= 0 && err == -ECHILD; rcu--) {
		struct nameidata nd = { .name = path, .given_root = root, .given_start = start,
					.stack = links, .copies = copies };
		trace_walk_start(path, rcu);
		err = path_init(&nd, flags | (rcu ? WALK_RCU : 0));
		if (!err)
			err = body(&nd, arg);
		terminate_walk(&nd);
		trace_walk_end(path, rcu, err);
	}
	return err;
}

struct dentry *vfs_path_lookup(struct dentry *root, struct dentry *start, const char *path,
			       unsigned flags)
{
	struct dentry *d;
	int err = walk_path(root, start, path, flags & WALK_NOFOLLOW, path_lookupat, &d);
	return err ? ERR_PTR(err) : d;
}

static struct dentry *parent_walk(struct dentry *root, struct dentry *start, const char *path,
				  struct last_name *last, int settle)
{
	struct parent_walk pw = { NULL, last, settle };
	int err = walk_path(root, start, path, 0, path_parentat, &pw);
	return err ? ERR_PTR(err) : pw.dir;
}

struct dentry *vfs_path_parent_lookup(struct dentry *root, struct dentry *start, const char *path,
				      struct last_name *last)
{
	return parent_walk(root, start, path, last, NAME_UNKNOWN);
}

struct dentry *path_parent_new(const char *path, struct last_name *last)
{
	return parent_walk(NULL, NULL, path, last, NAME_EXISTS);
}

struct dentry *path_parent_old(const char *path, struct last_name *last)
{
	return parent_walk(NULL, NULL, path, last, NAME_MISSING);
}

struct dentry *path_lookup(const char *path, unsigned flags)
{
	return vfs_path_lookup(NULL, NULL, path, flags);
}

struct dentry *path_parent(const char *path, struct last_name *last)
{
	return vfs_path_parent_lookup(NULL, NULL, path, last);
}

int vfs_path_lookup_inode(struct dentry *root, struct dentry *start, const char *path, unsigned flags,
			  void (*fn)(const struct inode *, void *), void *arg)
{
	struct inode_walk iw = { fn, arg };
	return walk_path(root, start, path, flags & WALK_NOFOLLOW, path_lookup_inodeat, &iw);
}

int path_lookup_inode(const char *path, unsigned flags, void (*fn)(const struct inode *, void *),
		      void *arg)
{
	return vfs_path_lookup_inode(NULL, NULL, path, flags, fn, arg);
}

/* Linux's vfs_create, here where Linux has it: the caller holds dir's
 * i_rwsem exclusive (checked) and found d negative under it (lookup_open
 * below, dirops.c's start_creating).  It lives in the walk's file because
 * open(O_CREAT)'s last step needs it, and dirops.c sits above the walk:
 * dirops -> namei, never back. */
int vfs_create(struct inode *dir, struct dentry *d, uint32_t mode)
{
	rwsem_assert_held(&dir->i_rwsem);
	if (!rwsem_is_write_locked(&dir->i_rwsem))
		BUG_ON(!d_name_locked(d));	/* a parallel change holds the name */
	if (IS_DEADDIR(dir))
		return -ENOENT;
	int err = inode_permission(dir, MAY_WRITE | MAY_EXEC);
	if (err)
		return err;
	if (!dir->i_op->create)
		return -EPERM;	/* this filesystem cannot (slowfs) */
	return dirop_fs_op("create", dir, d, NULL, dir->i_op->create(dir, d, S_IFREG | (mode & S_IALLUGO)));
}

/*
 * open(O_CREAT)'s last component, in one step under the directory's
 * i_rwsem (exclusive, or shared with the name locked): look it up, and create a regular file if it is
 * not there.  So a racing unlink cannot make open fail with -ENOENT, and
 * with O_EXCL exactly one of several racing opens creates the file (the
 * others see it: -EEXIST).  Returns the dentry, positive, with a
 * reference: the existing one (of any type: a symlink is the caller's to
 * follow) or the new file.
 */
static struct dentry *lookup_open(struct dentry *dir, const struct qstr *last, int flags,
				  uint32_t mode, bool *created)
{
	struct inode *di = dir->d_inode;
	bool shared = dirop_shared(dir);
	race_window();	/* dir found, not locked: it may be removed or moved now */
	if (dirop_lock_dir(dir, shared, I_RWSEM_PARENT))
		return ERR_PTR(-EINTR);
	struct dentry *d = shared ? lookup_one_name_locked(dir, last->name, last->len, D_NAME_LOCK_FIRST) :
				    lookup_one(dir, last->name, last->len);
	if (IS_ERR(d))
		goto out;
	int err = 0;
	bool make = !d->d_inode;
	if (!make && (flags & O_EXCL))
		err = -EEXIST;	/* it was there before us (even a symlink) */
	else if (make)
		err = vfs_create(di, d, mode_strip_umask(mode));
	if (shared)
		d_name_unlock(d);
	if (err) {
		dput(d);
		d = ERR_PTR(err);
	} else if (make) {
		*created = true;
	}
out:
	dirop_unlock_dir(dir, shared);
	return d;
}

/* The last component of an O_CREAT open, in the directory nd->path: an
 * existing name is first looked for without the directory's lock (unless
 * O_EXCL), and looked up or created under it otherwise.  The result, with
 * a reference, may be a symlink: open_last_lookups' caller follows it. */
static struct dentry *open_last_lookup(struct nameidata *nd, int flags, uint32_t mode,
				       bool *created)
{
	if (nd->last_type != LAST_NORM || nd->last_slash)
		return ERR_PTR(-EISDIR);	/* ".", "..", "/" or "name/": as Linux says */
	if (!(flags & O_EXCL)) {
		struct dentry *d = lookup_one_unlocked(nd->path, nd->last.name, nd->last.len);
		if (IS_ERR(d) || d->d_inode)
			return d;
		dput(d);	/* not there (now): create it, under the lock */
	}
	return lookup_open(nd->path, &nd->last, flags, mode, created);
}

/*
 * open(O_CREAT)'s walk after link_path_walk: a symlink in the last place
 * is followed, as Linux does, with create semantics all the way: a
 * dangling link creates its target (relative targets from the link's
 * directory); O_NOFOLLOW refuses the link with -ELOOP.
 */
static struct dentry *open_last_lookups(struct nameidata *nd, int flags, uint32_t mode,
					bool *created)
{
	struct dentry *link = NULL;	/* the link whose body is being walked */
	struct dentry *d;
	for (;;) {
		d = open_last_lookup(nd, flags, mode, created);
		if (IS_ERR(d) || !is_symlink(d))
			break;
		if (link)
			dput(link);	/* its body is no longer walked */
		link = d;
		int err = (flags & O_NOFOLLOW) ? -ELOOP :
			  walk_link_body(nd, inode_get_link(link->d_inode));
		if (err) {
			d = ERR_PTR(err);
			break;
		}
	}
	if (link)
		dput(link);
	return d;
}

struct open_walk {
	int flags;
	uint32_t mode;
	bool *created;
	struct dentry *d;          /* out: what to open, with a reference */
};

/* open(O_CREAT)'s walk (Linux's path_openat): the last step locks, so it
 * is made with references. */
static int path_openat(struct nameidata *nd, void *arg)
{
	struct open_walk *ow = arg;
	int err = link_path_walk(nd, nd->name);
	if (!err && nd->rcu && (ow->flags & O_EXCL))
		err = settle_last_rcu(nd, NAME_EXISTS);	/* as lookup_open would say */
	if (!err && nd->rcu)
		err = try_to_unlazy(nd, WALK_UNLAZY_CREATE);
	err = rcu_check_error(nd, err);
	if (err)
		return err;
	ow->d = open_last_lookups(nd, ow->flags, ow->mode, ow->created);
	return IS_ERR(ow->d) ? (int)PTR_ERR(ow->d) : 0;
}

struct dentry *open_namei(const char *path, int flags, uint32_t mode, bool *created,
			  struct file_ref *ref)
{
	*created = false;
	*ref = (struct file_ref){ 0 };
	if (!(flags & O_CREAT)) {
		struct file_walk fw = { NULL, ref };
		int err = walk_path(NULL, NULL, path, (flags & O_NOFOLLOW) ? WALK_NOFOLLOW : 0,
				    path_lookup_fileat, &fw);
		return err ? ERR_PTR(err) : fw.d;
	}
	struct open_walk ow = { flags, mode, created, NULL };
	int err = walk_path(NULL, NULL, path, 0, path_openat, &ow);
	return err ? ERR_PTR(err) : ow.d;
}
