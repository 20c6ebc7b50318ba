/*
 * test_dirops_kill.c: a thread stuck behind a held i_rwsem in a directory
 * operation, rename, open(O_CREAT) or mount is killed: the call returns
 * -EINTR, changes nothing, and leaves no lock and no reference behind
 * (item 14 of issue 12).  Each case holds one inode's i_rwsem itself: the
 * directory the call changes, or (nested waits) the victim, source or
 * second directory it takes after it already holds the directory.
 */
#include "fs/dcache.h"
#include "fs/mount.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/syscalls.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "tests/sandbox.h"

enum kop { K_MKDIR, K_CREATE, K_UNLINK, K_RMDIR, K_LINK, K_SYMLINK, K_RENAME, K_MOUNT };

struct kcall {
	enum kop op;
	const char *a, *b;
	int result;
};

static int kcall_main(void *p)
{
	struct kcall *k = p;
	int fd;
	switch (k->op) {
	case K_MKDIR:
		k->result = sys_mkdir(k->a, 0755);
		break;
	case K_CREATE:
		fd = sys_open(k->a, O_CREAT | O_WRONLY, 0644);
		k->result = fd < 0 ? fd : 0;
		if (fd >= 0)
			sys_close(fd);
		break;
	case K_UNLINK:
		k->result = sys_unlink(k->a);
		break;
	case K_RMDIR:
		k->result = sys_rmdir(k->a);
		break;
	case K_LINK:
		k->result = sys_link(k->a, k->b);
		break;
	case K_SYMLINK:
		k->result = sys_symlink(k->a, k->b);
		break;
	case K_RENAME:
		k->result = sys_rename(k->a, k->b);
		break;
	case K_MOUNT:
		k->result = sys_mount("ramfs", k->a, NULL);
		break;
	}
	return 0;
}

static struct dentry *get(const char *path)
{
	struct dentry *d = path_lookup(path, WALK_NOFOLLOW);
	return IS_ERR(d) ? NULL : d;
}

/*
 * Hold `held`'s i_rwsem, start the call, wait until it sleeps queued on
 * it, kill it, and only then let go: a wait that is not killable goes on
 * and does the call.  Then the call must have said -EINTR, every lock in
 * `locks` must be free, and `pinned` must have its old reference count.
 */
static void kill_behind(struct kcall *k, const char *held, const char *pinned,
			const char *const *locks)
{
	/* The names the call looks up, cached first (negative or not), so
	 * that their dentries do not count as references on pinned. */
	struct kstat st;
	sys_lstat(k->a, &st);
	if (k->b)
		sys_lstat(k->b, &st);
	struct dentry *h = get(held), *p = get(pinned);
	ASSERT_NOT_NULL(h);
	ASSERT_NOT_NULL(p);
	int count = __atomic_load_n(&p->d_count, __ATOMIC_ACQUIRE);
	struct rw_semaphore *sem = &h->d_inode->i_rwsem;
	down_write(sem);
	k->result = 99;
	struct thread *t = thread_create("victim", kcall_main, k, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	/* Queued on sem and asleep (the waiters bit says someone queued, and
	 * nobody else uses this sandbox), or done without waiting (wrong). */
	while ((!(__atomic_load_n(&sem->count, __ATOMIC_ACQUIRE) & RWSEM_WAITERS) ||
		__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == THREAD_RUNNING) &&
	       __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != THREAD_DEAD)
		yield();
	thread_kill(t);
	/* Let go only once the killed waiter has left the queue (or, in an
	 * uninterruptible wait, went back to sleep: it never will), so that
	 * up_write cannot hand it the lock first. */
	while ((__atomic_load_n(&sem->count, __ATOMIC_ACQUIRE) & RWSEM_WAITERS) &&
	       __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != THREAD_SLEEPING)
		yield();
	up_write(sem);
	thread_join(t);
	EXPECT_EQ(k->result, -EINTR);
	for (unsigned i = 0; locks[i]; i++) {
		struct dentry *l = get(locks[i]);
		ASSERT_NOT_NULL(l);
		bool free = down_write_trylock(&l->d_inode->i_rwsem);
		if (!EXPECT_TRUE(free))
			kprintf("    # %s's i_rwsem is still held\n", locks[i]);
		else
			up_write(&l->d_inode->i_rwsem);
		dput(l);
	}
	EXPECT_EQ(__atomic_load_n(&p->d_count, __ATOMIC_ACQUIRE), count);
	dput(p);
	dput(h);
}

static void touch(const char *path)
{
	int fd = sys_open(path, O_CREAT | O_WRONLY, 0644);
	ASSERT_GE(fd, 0);
	sys_close(fd);
}

static void setup(struct sandbox *s, const char *name)
{
	sandbox_enter(s, name);
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	ASSERT_EQ(sys_mkdir("d2", 0755), 0);
	ASSERT_EQ(sys_mkdir("d/e", 0755), 0);
	ASSERT_EQ(sys_mkdir("d/v", 0755), 0);
	touch("d/f");
}

static const char *const dirs[] = { "d", "d2", NULL };
static const char *const dirs_and_children[] = { "d", "d2", "d/e", "d/v", "d/f", NULL };

/* Waits on the directory itself. */
static void killed_behind_directory(void)
{
	struct sandbox s;
	setup(&s, "killdir");
	struct kcall calls[] = {
		{ K_MKDIR, "d/x", NULL, 0 },
		{ K_CREATE, "d/x", NULL, 0 },
		{ K_UNLINK, "d/f", NULL, 0 },
		{ K_RMDIR, "d/e", NULL, 0 },
		{ K_LINK, "d/f", "d/l", 0 },
		{ K_SYMLINK, "f", "d/l", 0 },
		{ K_RENAME, "d/f", "d/g", 0 },
	};
	for (unsigned i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		kill_behind(&calls[i], "d", "d", dirs);
		if (calls[i].result != -EINTR)
			kprintf("    # call %u (op %d) gave %d\n", i, calls[i].op, calls[i].result);
	}
	struct kstat st;
	EXPECT_EQ(sys_stat("d/x", &st), -ENOENT);	/* nothing was done */
	EXPECT_EQ(sys_lstat("d/l", &st), -ENOENT);
	EXPECT_EQ(sys_stat("d/f", &st), 0);
	EXPECT_EQ(sys_stat("d/e", &st), 0);
	sandbox_leave(&s);
}

/* Waits taken while the call already holds a directory: the victim of
 * unlink, rmdir and rename, link's source, rename's source directory and
 * its second directory.  The first lock must be given back too. */
static void killed_in_nested_waits(void)
{
	struct sandbox s;
	setup(&s, "killnest");
	struct kstat st;
	struct kcall unlink = { K_UNLINK, "d/f", NULL, 0 };
	kill_behind(&unlink, "d/f", "d", dirs_and_children);
	struct kcall rmdir = { K_RMDIR, "d/e", NULL, 0 };
	kill_behind(&rmdir, "d/e", "d", dirs_and_children);
	struct kcall link = { K_LINK, "d/f", "d2/l", 0 };
	kill_behind(&link, "d/f", "d2", dirs_and_children);
	struct kcall over = { K_RENAME, "d/e", "d/v", 0 };
	kill_behind(&over, "d/v", "d", dirs_and_children);
	struct kcall source = { K_RENAME, "d/f", "d/w", 0 };
	kill_behind(&source, "d/f", "d", dirs_and_children);
	/* A directory renamed within its directory is locked only in the
	 * exclusive mode (docs/design/24-dirops.md, "rename"). */
	struct dentry *top = get(".");
	ASSERT_NOT_NULL(top);
	if (!dirop_shared(top)) {
		struct kcall dir_source = { K_RENAME, "d/e", "d/w", 0 };
		kill_behind(&dir_source, "d/e", "d", dirs_and_children);
	}
	/* Across directories: hold the one rename takes second (unrelated
	 * directories go by address). */
	struct dentry *a = get("d"), *b = get("d2");
	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	const char *second = a->d_inode > b->d_inode ? "d" : "d2";
	dput(a);
	dput(b);
	struct kcall cross = { K_RENAME, "d/f", "d2/f", 0 };
	kill_behind(&cross, second, "d", dirs_and_children);
	kill_behind(&cross, second, "d2", dirs_and_children);
	EXPECT_EQ(rwsem_readers(&top->d_sb->s_rename_rwsem), 0u);
	EXPECT_FALSE(rwsem_is_write_locked(&top->d_sb->s_rename_rwsem));
	dput(top);
	EXPECT_EQ(sys_stat("d/f", &st), 0);	/* nothing was done */
	EXPECT_EQ(sys_stat("d/e", &st), 0);
	EXPECT_EQ(sys_stat("d/v", &st), 0);
	EXPECT_EQ(sys_stat("d/w", &st), -ENOENT);
	EXPECT_EQ(sys_stat("d2/f", &st), -ENOENT);
	EXPECT_EQ(sys_stat("d2/l", &st), -ENOENT);
	sandbox_leave(&s);
}

/* mount waits on its mount point's i_rwsem after making the new
 * filesystem: killed, it must free that and mount nothing. */
static void killed_mount(void)
{
	struct sandbox s;
	setup(&s, "killmnt");
	struct kstat here, st;
	ASSERT_EQ(sys_stat("d/e", &here), 0);
	struct kcall mount = { K_MOUNT, "d/e", NULL, 0 };
	kill_behind(&mount, "d/e", "d/e", dirs_and_children);
	ASSERT_EQ(sys_stat("d/e", &st), 0);
	EXPECT_EQ(st.dev, here.dev);	/* not mounted */
	EXPECT_EQ(sys_rmdir("d/e"), 0);
	sandbox_leave(&s);
}

static void count_mount(const char *mp, const char *type, const char *options, void *arg)
{
	(void)mp, (void)type, (void)options;
	(*(unsigned *)arg)++;
}

static int list_mounts(void *p)
{
	unsigned n = 0;
	*(int *)p = vfs_for_each_mount(count_mount, &n);
	return 0;
}

/* Listing the mounts (the shell's `mounts`) waits for namespace_mutex,
 * which a mount holds while it waits for its mount point: killed, the
 * listing ends with -EINTR, and the mount goes on once let through. */
static void killed_listing_mounts(void)
{
	struct sandbox s;
	setup(&s, "killlist");
	struct dentry *e = get("d/e");
	ASSERT_NOT_NULL(e);
	struct rw_semaphore *sem = &e->d_inode->i_rwsem;
	down_write(sem);
	struct kcall mount = { K_MOUNT, "d/e", NULL, 99 };
	struct thread *tm = thread_create("mount", kcall_main, &mount, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(tm);
	while (!(__atomic_load_n(&sem->count, __ATOMIC_ACQUIRE) & RWSEM_WAITERS))
		yield();	/* the mount holds namespace_mutex and waits on d/e */
	int listed = 99;
	struct thread *tl = thread_create("mounts", list_mounts, &listed, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(tl);
	while (__atomic_load_n(&tl->state, __ATOMIC_ACQUIRE) == THREAD_RUNNING)
		yield();	/* asleep on namespace_mutex */
	thread_kill(tl);
	/* Gone, or (a wait that is not killable) asleep again for good. */
	while (__atomic_load_n(&tl->state, __ATOMIC_ACQUIRE) != THREAD_DEAD &&
	       __atomic_load_n(&tl->state, __ATOMIC_ACQUIRE) != THREAD_SLEEPING)
		yield();
	up_write(sem);	/* the mount finishes and lets go of the mutex */
	thread_join(tl);
	EXPECT_EQ(listed, -EINTR);
	thread_join(tm);
	EXPECT_EQ(mount.result, 0);
	if (mount.result == 0)
		EXPECT_EQ(sys_umount("d/e"), 0);
	dput(e);
	EXPECT_EQ(sys_rmdir("d/e"), 0);
	sandbox_leave(&s);
}

static const struct ktest_case dirops_kill_cases[] = {
	KTEST_CASE(killed_behind_directory),
	KTEST_CASE(killed_in_nested_waits),
	KTEST_CASE(killed_mount),
	KTEST_CASE(killed_listing_mounts),
};
KTEST_SUITE(dirops_kill, dirops_kill_cases);
