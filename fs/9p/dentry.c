/*
 * dentry.c: 9p's cache=none: every cached name is asked about again.
 *
 * With cache=none the super block's s_d_op is v9fs_dentry_ops_none, so
 * every dentry of the mount (but the root) carries DCACHE_OP_REVALIDATE:
 * each path step that finds it in the dcache calls v9fs_revalidate, which
 * walks the name from the parent's fid and reads what it names.  The
 * dentry is stale, and the VFS drops it and looks the name up again, if
 *   - the name is gone and the dentry is positive, or it is there and the
 *     dentry is negative;
 *   - it names another file (the qid's path is not the inode's number);
 *   - the file's type changed (the inode's type is fixed for its life).
 * Otherwise the inode's size, link count and times are refreshed from the
 * server's answer, so stat through a path shows the server's at that
 * moment.  Mode and owner stay as cached: they change together, under
 * the inode's i_rwsem exclusive and its i_attr_seq (fs/permission.h),
 * which a path step does not take (it may hold the parent's).
 *
 * A step inside the path (LOOKUP_PARENT: the walk goes on below d)
 * reads nothing but the walk's qid: the name still leads to the same
 * directory (or symlink), and whatever its attributes, the walk does
 * not show them.  One round trip, as the walk's fid is clunked
 * unwaited (p9_clunk_async); the last step, whose attributes stat
 * shows, takes two.  The same Twalk carries the names the walk will
 * take next, as far as the dcache holds them ("Names ahead", below), so
 * a cached path of any length is asked in two round trips.
 *
 * RCU mode: the lockless walk never calls d_revalidate; a dentry with
 * DCACHE_OP_REVALIDATE makes it leave RCU mode (try_to_unlazy, reason
 * "revalidate") before anything here runs, and
 * v9fs_revalidate sleeps in round trips with no spinlock held (it says
 * so: might_sleep).
 *
 * Also here, as it walks names too: an inode's fid walked afresh by a
 * dentry's name when the name it was walked by went away (v9fs.h:
 * v9fs_check_fid, v9fs_dentry_fid), under the inode's open_lock.
 *
 * Revalidations of one dentry at once share one answer (reval_lock,
 * below), and a walk takes an answer given since it began (d_time).
 *
 * Locking: that, and reval_lock.  The name is copied under d's d_lock (a rename
 * swaps names under it), the parent taken with dget_parent.  A name a
 * change holds (its name lock: FS_PAR_DIROPS) is left to the change,
 * which leaves it as the server says.  The attributes are stored one by
 * one with atomic stores, as a change of the guest's own stores them: a
 * refresh racing a local write may leave the older size until the next
 * lookup of the name refreshes it again; a link count the guest brought
 * to 0 (an unlink) is never raised back.
 */
#include "fs/9p/v9fs.h"
#include "fs/dcache.h"
#include "fs/syscalls.h"
#include "kernel/completion.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/race.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"

/* Revalidations asked of the server, and those that found the dentry
 * stale (tests). */
uint64_t v9fs_revalidations, v9fs_stale;

/* Tests only: true makes v9fs_revalidate trust every dentry, as
 * cache=loose does (to show that the cache=none test can fail). */
bool v9fs_revalidate_off;

static void refresh(struct inode *inode, const struct p9_attr *a)
{
	__atomic_store_n(&inode->i_size, a->size, __ATOMIC_RELEASE);
	__atomic_store_n(&inode->i_blocks, a->blocks, __ATOMIC_RELAXED);
	__atomic_store_n(&inode->i_atime, a->atime, __ATOMIC_RELAXED);
	__atomic_store_n(&inode->i_mtime, a->mtime, __ATOMIC_RELAXED);
	__atomic_store_n(&inode->i_ctime, a->ctime, __ATOMIC_RELAXED);
	uint32_t n = __atomic_load_n(&inode->i_nlink, __ATOMIC_RELAXED);
	while (n != 0 && !__atomic_compare_exchange_n(&inode->i_nlink, &n, (uint32_t)a->nlink, false,
						      __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

/* Is what the server's answer a names the file inode is? */
static bool same_file(const struct inode *inode, const struct p9_attr *a)
{
	uint32_t mode = __atomic_load_n(&inode->i_mode, __ATOMIC_RELAXED);
	return a->qid.path == inode->i_ino && (a->mode & S_IFMT) == (mode & S_IFMT);
}

/* Is the file a walk reached (qid) the directory or symlink inode is?
 * Any other type: not known from a qid (QTFILE covers them all), so
 * no. */
static bool same_dir_or_link(const struct inode *inode, const struct p9_qid *q)
{
	uint32_t mode = __atomic_load_n(&inode->i_mode, __ATOMIC_RELAXED);
	if (q->path != inode->i_ino)
		return false;
	if (S_ISDIR(mode))
		return (q->type & P9_QTDIR) != 0;
	return S_ISLNK(mode) && (q->type & P9_QTSYMLINK) != 0;
}

/* Whether the walk can go on below inode (a directory, or a link to
 * follow): the types a qid tells apart. */
static bool walked_through(const struct inode *inode)
{
	uint32_t mode = __atomic_load_n(&inode->i_mode, __ATOMIC_RELAXED);
	return S_ISDIR(mode) || S_ISLNK(mode);
}

/* d's name copied into name (its length in *len: a rename swaps names
 * under d_lock), and its parent held; NULL, nothing held, for the root,
 * which has no parent to walk from. */
static struct dentry *name_and_parent(struct dentry *d, char *name, uint32_t *len)
{
	spin_lock(&d->d_lock);
	*len = d->d_name.len;
	memcpy(name, d->d_name.name, *len);
	spin_unlock(&d->d_lock);
	struct dentry *parent = dget_parent(d);
	if (parent == d || !parent->d_inode) {
		dput(parent);
		return NULL;
	}
	return parent;
}

/* Walk d's name from its parent's fid into a new fid (*fid), reaching
 * *qid: 0, the server's error (no fid made), or 1 for the root (no
 * parent). */
static int walk_name(struct dentry *d, struct p9_client *c, uint32_t *fid, struct p9_qid *qid)
{
	char name[NAME_MAX + 1];
	uint32_t len;
	struct dentry *parent = name_and_parent(d, name, &len);
	if (!parent)
		return 1;
	*fid = p9_fid_new(c);
	int err = p9_walk(c, V9FS_I(parent->d_inode)->fid, *fid, name, len, qid);
	dput(parent);
	return err;
}

/*
 * Revalidations in flight, shared.  N threads that stat one path at once
 * meet the same dentries, and one answer from the server serves them
 * all: as a lookup waits on an in-lookup dentry instead of asking the
 * filesystem again, a revalidation of a dentry already being revalidated
 * waits for that one's verdict.  The verdict is the server's at some
 * moment of the first one's round trips, so a caller that joins may get
 * an answer from just before its own call began: the in-lookup dentry's
 * promise, no weaker.  (Linux's cache=none asks nothing of a dentry that
 * someone holds: it trusts it until its last reference goes.)  Having
 * taken an answer to the question numbered t, the joiner's walk takes
 * any answer numbered t or later for its other steps too
 * (d_revalidate_joined): the same promise, the server's state after
 * question t was sent, and the asker's names ahead are such answers.
 *
 * A step inside a path (LOOKUP_PARENT) may share a last step's answer,
 * not the other way: a last step must refresh the attributes.
 *
 * reval_lock (a leaf) guards the table, each entry's users and its
 * verdict's publication; the entry is freed by its last user.  The
 * dentry, held by every user, cannot be freed and its address reused
 * while its entry is in the table.
 */
struct reval {
	struct hlist_node chain;
	const struct dentry *d;
	bool full;                 /* a last step's: attributes refreshed */
	uint64_t ticket;           /* the question's number (revalidation clock) */
	unsigned users;            /* the caller that asks, and those waiting */
	bool valid;
	struct completion done;
};

#define REVAL_CHAINS 64
static struct spinlock reval_lock = SPINLOCK_INIT("v9fs_reval");
static struct hlist_head reval_table[REVAL_CHAINS];

/* Revalidations that waited for another's verdict instead of asking
 * (tests), and a hook called by the one that asks, published and not yet
 * asking (tests: holds it there until another joins). */
uint64_t v9fs_revalidations_shared;
void (*v9fs_reval_hook)(struct dentry *d);

static struct hlist_head *reval_chain(const struct dentry *d)
{
	return &reval_table[((uintptr_t)d >> 6) % REVAL_CHAINS];
}

static void reval_put(struct reval *r)
{
	unsigned long flags = spin_lock_irqsave(&reval_lock);
	bool last = --r->users == 0;
	spin_unlock_irqrestore(&reval_lock, flags);
	if (last)
		kfree(r);
}

static bool ask_server(struct dentry *d, bool full, uint64_t ticket);

/*
 * Answers since the walk began, reused.  A "valid" answer is stamped on
 * the dentry (d_time) with its question's number on the revalidation
 * clock (fs/dcache.h), taken before the question was sent, and whether
 * it was a last step's (attributes refreshed): (number + 1) << 1 | full,
 * 0 for none.  A step of a walk that began at or before that number takes
 * the answer as its own: the server gave it after the walk began, which
 * is all a walk that had asked itself could promise.  N threads that stat
 * one path keep answering each other's steps, where Linux's cache=none
 * asks nothing of a dentry someone holds.  A later change the guest makes
 * to the name (unlink, rename, create) goes through the server and the
 * dcache both, so the dcache is still the server's state then; only a
 * change at the host after the answer is missed, and that came after the
 * walk began.  The stamp only grows (a compare-and-swap); a stale answer
 * stamps nothing, as the dentry is unhashed.
 */
uint64_t v9fs_revalidations_reused;

static bool answered_since(struct dentry *d, bool full)
{
	uint64_t since = d_revalidate_since();
	uint64_t t = __atomic_load_n(&d->d_time, __ATOMIC_ACQUIRE);
	if (!t || (t >> 1) - 1 < since || (full && !(t & 1)))
		return false;
	__atomic_fetch_add(&v9fs_revalidations_reused, 1, __ATOMIC_RELAXED);
	return true;
}

static void stamp_answer(struct dentry *d, uint64_t ticket, bool full)
{
	uint64_t t = (ticket + 1) << 1 | full;
	uint64_t cur = __atomic_load_n(&d->d_time, __ATOMIC_RELAXED);
	while (cur < t && !__atomic_compare_exchange_n(&d->d_time, &cur, t, false,
							__ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

/* Ask the question numbered ticket, and stamp a valid answer. */
static bool ask_and_stamp(struct dentry *d, bool full, uint64_t ticket)
{
	bool valid = ask_server(d, full, ticket);
	if (valid)
		stamp_answer(d, ticket, full);
	return valid;
}

static bool v9fs_revalidate(struct dentry *d, unsigned flags)
{
	might_sleep();
	if (__atomic_load_n(&v9fs_revalidate_off, __ATOMIC_RELAXED))
		return true;
	if (__atomic_load_n(&d->d_flags, __ATOMIC_ACQUIRE) & DCACHE_PAR_UPDATE)
		return true;	/* a change of the name is under way: it decides */
	bool full = !(flags & LOOKUP_PARENT);
	if (answered_since(d, full))
		return true;
	struct reval *mine = kmalloc(sizeof(*mine));
	if (!mine)
		return ask_and_stamp(d, full, d_revalidate_ticket());	/* unshared, but answered */
	struct hlist_head *chain = reval_chain(d);
	struct hlist_node *pos;
	struct reval *r = NULL;
	unsigned long irq = spin_lock_irqsave(&reval_lock);
	hlist_for_each(pos, chain) {
		struct reval *e = hlist_entry(pos, struct reval, chain);
		if (e->d == d && (e->full || !full)) {
			r = e;
			r->users++;
			break;
		}
	}
	if (!r) {
		/* Numbered now, before it is asked: an earlier number only
		 * promises less of the answer. */
		*mine = (struct reval){ .d = d, .full = full, .users = 1,
					.ticket = d_revalidate_ticket() };
		init_completion(&mine->done);
		hlist_add_head_rcu(&mine->chain, chain);
	}
	spin_unlock_irqrestore(&reval_lock, irq);
	if (r) {
		kfree(mine);
		__atomic_fetch_add(&v9fs_revalidations_shared, 1, __ATOMIC_RELAXED);
		/* Killed: the caller will not return to user mode, and its
		 * "valid" drops nothing from the cache on its account. */
		bool valid = wait_for_completion_killable(&r->done) ? true :
			     __atomic_load_n(&r->valid, __ATOMIC_ACQUIRE);
		if (valid)
			d_revalidate_joined(r->ticket);	/* and the answers ahead */
		reval_put(r);
		return valid;
	}
	race_window();	/* published, not yet asked: others may join */
	void (*hook)(struct dentry *) = __atomic_load_n(&v9fs_reval_hook, __ATOMIC_ACQUIRE);
	if (hook)
		hook(d);
	bool valid = ask_and_stamp(d, full, mine->ticket);
	irq = spin_lock_irqsave(&reval_lock);
	hlist_del_rcu(&mine->chain);	/* later callers ask afresh */
	__atomic_store_n(&mine->valid, valid, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&reval_lock, irq);
	complete_all(&mine->done);
	reval_put(mine);
	return valid;
}

/*
 * Names ahead.  A walk's step inside the path asks one Twalk for its own
 * name and for the names the walk will take next (d_revalidate_ahead),
 * as far as the dcache already holds them, positive and under
 * directories, up to 16 (9P's most): a 6-step stat makes 2 round trips
 * instead of 7.  Each name the server walked to the file its dentry
 * holds is stamped as answered (d_time, with the question's number), so
 * the walk's own later steps take it, and so may any walk that began
 * before the question (the rule above).  The last name of the whole path,
 * reached, is read as a last step is (Tgetattr on the new fid) and stamped
 * as such.  A name walked elsewhere, or not walked (the server stops at
 * the first it cannot walk), stops the stamping there and is left to its
 * own step, which asks and finds it stale or not.  Nothing is dropped or
 * changed ahead but the attributes of a confirmed last name: the walk may
 * never get there.
 */
struct ahead {
	unsigned n;                     /* names; d's is the first */
	bool to_end;                    /* the last one is the path's last */
	struct p9_wname name[P9_MAXWELEM];
	struct dentry *d[P9_MAXWELEM];  /* held, from 1 on (d[0] is the caller's) */
	struct p9_qid qid[P9_MAXWELEM];
};

uint64_t v9fs_answered_ahead;	/* names stamped ahead of their step (tests) */

static bool is_dot_or_dotdot(const char *s, size_t len)
{
	return (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.');
}

/* Fill a->name[1..] and a->d[1..] from the rest of the walk's path. */
static void look_ahead(struct dentry *d, struct ahead *a)
{
	const char *p = d_revalidate_ahead();
	if (!p)
		return;
	struct dentry *cur = d;
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p) {
			a->to_end = true;
			return;
		}
		struct inode *dir = __atomic_load_n(&cur->d_inode, __ATOMIC_ACQUIRE);
		if (a->n == P9_MAXWELEM || !dir || !S_ISDIR(dir->i_mode) || d_mountpoint(cur))
			return;	/* a symlink's body is the guest's to follow */
		const char *s = p;
		while (*p && *p != '/')
			p++;
		size_t len = (size_t)(p - s);
		if (len > NAME_MAX || is_dot_or_dotdot(s, len))
			return;
		struct qstr q = { s, (uint32_t)len, 0 };
		d_hash_name(cur, &q);
		struct dentry *next = d_lookup_cached(cur, &q);
		if (!next)
			return;
		if (!__atomic_load_n(&next->d_inode, __ATOMIC_ACQUIRE)) {
			dput(next);	/* negative: the server cannot walk it */
			return;
		}
		a->name[a->n] = (struct p9_wname){ s, (uint32_t)len };
		a->d[a->n++] = next;
		cur = next;
	}
}

/* Stamp the names the server walked beyond the first as answered:
 * walked of a->n, fid the new fid if all were walked. */
static void confirm_ahead(struct p9_client *c, struct ahead *a, unsigned walked, uint32_t fid,
			  uint64_t ticket)
{
	for (unsigned i = 1; i < walked; i++) {
		struct dentry *e = a->d[i];
		struct inode *inode = __atomic_load_n(&e->d_inode, __ATOMIC_ACQUIRE);
		if (!inode)
			return;	/* unlinked by the guest since */
		if (i == a->n - 1 && a->to_end && walked == a->n) {
			struct p9_attr at;
			if (p9_getattr(c, fid, &at) || !same_file(inode, &at))
				return;
			refresh(inode, &at);
			stamp_answer(e, ticket, true);
		} else if (walked_through(inode) && same_dir_or_link(inode, &a->qid[i])) {
			stamp_answer(e, ticket, false);
		} else {
			return;	/* another file: its own step will ask */
		}
		__atomic_fetch_add(&v9fs_answered_ahead, 1, __ATOMIC_RELAXED);
	}
}

/* One revalidation's round trips: walk d's name (and, inside the path,
 * the names ahead), and for the last step (full) read what it names. */
static bool ask_server(struct dentry *d, bool full, uint64_t ticket)
{
	struct p9_client *c = &V9FS_SB(d->d_sb)->clnt;
	struct ahead a;
	char first[NAME_MAX + 1];
	uint32_t len;
	struct dentry *parent = name_and_parent(d, first, &len);
	if (!parent)
		return true;	/* the root: nothing to walk from */
	a.n = 1;
	a.to_end = false;
	a.name[0] = (struct p9_wname){ first, len };
	if (!full)
		look_ahead(d, &a);
	uint32_t fid = p9_fid_new(c);
	int walked = p9_walk_names(c, V9FS_I(parent->d_inode)->fid, fid, a.name, a.n, a.qid);
	dput(parent);
	__atomic_fetch_add(&v9fs_revalidations, 1, __ATOMIC_RELAXED);
	struct inode *inode = __atomic_load_n(&d->d_inode, __ATOMIC_ACQUIRE);
	bool valid;
	if (walked < 0) {
		valid = walked == -ENOENT && !inode;	/* any other error: ask again by lookup */
	} else if (!full && inode && walked_through(inode)) {
		valid = same_dir_or_link(inode, &a.qid[0]);	/* inside the path: the qid says enough */
		if (valid)
			confirm_ahead(c, &a, (unsigned)walked, fid, ticket);
	} else {
		struct p9_attr at;
		int err = p9_getattr(c, fid, &at);
		valid = !err && inode && same_file(inode, &at);
		if (valid)
			refresh(inode, &at);
	}
	if (walked == (int)a.n)
		p9_clunk_async(c, fid);	/* made only if every name was walked */
	for (unsigned i = 1; i < a.n; i++)
		dput(a.d[i]);
	if (!valid)
		__atomic_fetch_add(&v9fs_stale, 1, __ATOMIC_RELAXED);
	return valid;
}

/* Stale fids found (v9fs_check_fid) and walked afresh (tests). */
uint64_t v9fs_fids_stale, v9fs_fids_refreshed;

/* A name of inode, a file still linked, went away at the server: its
 * fid, if it was walked by that name, names nothing now (unlink), or the
 * file a rename moved there.  One Tgetattr tells: not this file, the fid
 * is stale.  The caller (unlink, rename) holds the name locked, so no
 * new file takes it before the mark is made. */
void v9fs_check_fid(struct inode *inode)
{
	struct v9fs_inode *vi = V9FS_I(inode);
	struct p9_attr a;
	uint32_t fid = __atomic_load_n(&vi->fid, __ATOMIC_ACQUIRE);
	if (p9_getattr(V9FS_CLNT(inode), fid, &a) == 0 && same_file(inode, &a))
		return;
	__atomic_fetch_add(&v9fs_fids_stale, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&vi->fid_stale, true, __ATOMIC_RELEASE);
}

int64_t v9fs_inode_fid(struct inode *inode)
{
	struct v9fs_inode *vi = V9FS_I(inode);
	if (__atomic_load_n(&vi->fid_stale, __ATOMIC_ACQUIRE))
		return -ENOENT;
	return __atomic_load_n(&vi->fid, __ATOMIC_ACQUIRE);
}

/* A stale fid is replaced, under open_lock, by a walk of d's name if
 * that names the file; the old one is kept (retired_fid) until the next
 * refresh or eviction, since a caller that read it before may still be
 * sending with it (it then gets the server's ENOENT, as it would have). */
int64_t v9fs_dentry_fid(struct dentry *d)
{
	struct inode *inode = d->d_inode;
	struct v9fs_inode *vi = V9FS_I(inode);
	if (!__atomic_load_n(&vi->fid_stale, __ATOMIC_ACQUIRE))
		return __atomic_load_n(&vi->fid, __ATOMIC_ACQUIRE);
	if (mutex_lock_killable(&vi->open_lock))
		return -EINTR;
	struct p9_client *c = V9FS_CLNT(inode);
	int64_t ret = __atomic_load_n(&vi->fid, __ATOMIC_RELAXED);
	if (__atomic_load_n(&vi->fid_stale, __ATOMIC_RELAXED)) {
		uint32_t fid;
		struct p9_attr a;
		int err = walk_name(d, c, &fid, NULL);
		if (err == 0) {
			if ((err = p9_getattr(c, fid, &a)) == 0 && !same_file(inode, &a))
				err = -ENOENT;	/* the name is another file's now */
			if (err)
				p9_clunk(c, fid);
		}
		if (err == 0) {
			if (vi->retired_fid != P9_NOFID)
				p9_clunk(c, vi->retired_fid);
			vi->retired_fid = (uint32_t)ret;
			__atomic_store_n(&vi->fid, fid, __ATOMIC_RELEASE);
			__atomic_store_n(&vi->fid_stale, false, __ATOMIC_RELEASE);
			__atomic_fetch_add(&v9fs_fids_refreshed, 1, __ATOMIC_RELAXED);
			ret = fid;
		} else {
			ret = err == 1 ? -ENOENT : err;	/* d is the name that went away */
		}
	}
	mutex_unlock(&vi->open_lock);
	return ret;
}

const struct dentry_operations v9fs_dentry_ops_none = {
	.d_revalidate = v9fs_revalidate,
};
