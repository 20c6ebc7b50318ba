/*
 * test_lockdep.c: the lock validator reports what it must, once, and
 * nothing else, and the kernel goes on after each report.
 *
 * Most cases are negative tests: they commit a locking bug on purpose
 * (always on uncontended locks, so nothing hangs) and check that
 * lockdep_reports() grows by exactly the expected amount, announcing the
 * reports to the test runner, which otherwise fails any case the
 * validator reports in.  Each case uses lock classes of its own and
 * forgets them at the end (lockdep_free_key), so the suite can be
 * repeated (ktest.repeat=N) and still see every report for the first time.
 */
#include "kernel/ktest.h"
#include "kernel/sched.h"
#include "kernel/kprintf.h"
#include "kernel/lockdep.h"
#include "kernel/spinlock.h"
#include "kernel/mutex.h"
#include "kernel/rwsem.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "kernel/err.h"
#include "fs/permission.h"
#include "fs/ramfs/ramfs.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

#define IP(f) ((unsigned long)(f))


static void need_lockdep(void)
{
	if (!CONFIG_LOCKDEP)
		ktest_skip("built with LOCKDEP=0");
}

/* Take x, then y while holding x; let both go. */
static void take2(struct spinlock *x, struct spinlock *y)
{
	spin_lock(x);
	spin_lock(y);
	spin_unlock(y);
	spin_unlock(x);
}

static void abba_inversion_reported(void)
{
	static struct lock_class_key ka, kb;
	struct spinlock a, b;
	need_lockdep();
	unsigned depth = lockdep_depth();
	__spin_init(&a, "test-abba-a", &ka);
	__spin_init(&b, "test-abba-b", &kb);

	EXPECT_REPORTS(0, take2(&a, &b));
	EXPECT_REPORTS(1, take2(&b, &a));
	EXPECT_REPORTS(0, take2(&a, &b));	/* the first order is still fine */
	EXPECT_FALSE(spin_is_locked(&a) || spin_is_locked(&b));
	EXPECT_EQ(lockdep_depth(), depth);
	lockdep_free_key(&ka);
	lockdep_free_key(&kb);
}

static void three_lock_cycle_reported(void)
{
	static struct lock_class_key ka, kb, kc;
	struct spinlock a, b, c;
	need_lockdep();
	__spin_init(&a, "test-cycle-a", &ka);
	__spin_init(&b, "test-cycle-b", &kb);
	__spin_init(&c, "test-cycle-c", &kc);

	EXPECT_REPORTS(0, take2(&a, &b));
	EXPECT_REPORTS(0, take2(&b, &c));
	EXPECT_REPORTS(1, take2(&c, &a));	/* closes a -> b -> c -> a */
	lockdep_free_key(&ka);
	lockdep_free_key(&kb);
	lockdep_free_key(&kc);
}

/* A cycle longer than a report shows in full: reported all the same. */
static void long_cycle_reported(void)
{
	enum { N = 20 };
	static struct lock_class_key keys[N];
	static char names[N][16];
	struct lockdep_map maps[N];
	need_lockdep();
	for (unsigned i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "test-long-%u", i);
		lockdep_init_map(&maps[i], names[i], &keys[i], 0);
	}

	uint64_t before = lockdep_reports();
	for (unsigned i = 0; i + 1 < N; i++) {
		lock_acquire(&maps[i], 0, 0, 0, IP(long_cycle_reported));
		lock_acquire(&maps[i + 1], 0, 0, 0, IP(long_cycle_reported));
		lock_release(&maps[i + 1], IP(long_cycle_reported));
		lock_release(&maps[i], IP(long_cycle_reported));
	}
	EXPECT_EQ(lockdep_reports(), before);
	lock_acquire(&maps[N - 1], 0, 0, 0, IP(long_cycle_reported));
	EXPECT_REPORTS(1, lock_acquire(&maps[0], 0, 0, 0, IP(long_cycle_reported)));
	lock_release(&maps[0], IP(long_cycle_reported));
	lock_release(&maps[N - 1], IP(long_cycle_reported));
	for (unsigned i = 0; i < N; i++)
		lockdep_free_key(&keys[i]);
}

static void consistent_order_not_reported(void)
{
	static struct lock_class_key ka, kb;
	struct spinlock a, b;
	need_lockdep();
	__spin_init(&a, "test-order-a", &ka);
	__spin_init(&b, "test-order-b", &kb);

	EXPECT_REPORTS(0, take2(&a, &b));
	EXPECT_REPORTS(0, take2(&a, &b));
	/* Releasing out of order is allowed. */
	EXPECT_REPORTS(0, { spin_lock(&a); spin_lock(&b); spin_unlock(&a); spin_unlock(&b); });
	lockdep_free_key(&ka);
	lockdep_free_key(&kb);
}

static void release_of_unheld_reported(void)
{
	static struct lock_class_key k;
	struct lockdep_map m;
	need_lockdep();
	unsigned depth = lockdep_depth();
	lockdep_init_map(&m, "test-unheld", &k, 0);

	/* On the map alone, so that no real lock is harmed. */
	EXPECT_REPORTS(1, lock_release(&m, IP(release_of_unheld_reported)));
	lock_acquire(&m, 0, 0, 0, IP(release_of_unheld_reported));
	EXPECT_REPORTS(0, lock_release(&m, IP(release_of_unheld_reported)));
	EXPECT_REPORTS(1, lock_release(&m, IP(release_of_unheld_reported)));
	EXPECT_EQ(lockdep_depth(), depth);
	lockdep_free_key(&k);
}

static void recursion_reported_unless_nested(void)
{
	static struct lock_class_key k, kr;
	struct spinlock a, b;
	struct lockdep_map r;
	need_lockdep();
	__spin_init(&a, "test-rec-a", &k);	/* one class: one init site */
	__spin_init(&b, "test-rec-b", &k);
	lockdep_init_map(&r, "test-rec-read", &kr, 0);

	EXPECT_REPORTS(1, take2(&a, &b));
	EXPECT_REPORTS(0, { spin_lock(&a); spin_lock_nested(&b, 1); spin_unlock(&b); spin_unlock(&a); });
	/* A shared re-acquisition is reported as well (see check_recursion). */
	lock_acquire(&r, 0, 1, 0, IP(recursion_reported_unless_nested));
	EXPECT_REPORTS(1, lock_acquire(&r, 0, 1, 0, IP(recursion_reported_unless_nested)));
	lock_release(&r, IP(recursion_reported_unless_nested));
	lock_release(&r, IP(recursion_reported_unless_nested));
	lockdep_free_key(&k);
	lockdep_free_key(&kr);
}

static void sleeping_in_atomic_reported(void)
{
	static struct lock_class_key k;
	struct spinlock a;
	need_lockdep();
	__spin_init(&a, "test-sleep", &k);

	EXPECT_REPORTS(0, might_sleep());
	spin_lock(&a);
	EXPECT_REPORTS(1, might_sleep());
	spin_unlock(&a);
	irq_disable();
	EXPECT_REPORTS(1, might_sleep());
	irq_enable();
	EXPECT_REPORTS(0, might_sleep());
	lockdep_free_key(&k);
}

static void trylock_adds_no_dependency(void)
{
	static struct lock_class_key ka, kb;
	struct spinlock a, a2, b;
	need_lockdep();
	__spin_init(&a, "test-try-a", &ka);
	__spin_init(&a2, "test-try-a2", &ka);	/* a's class */
	__spin_init(&b, "test-try-b", &kb);

	EXPECT_REPORTS(0, {
		spin_lock(&b);
		EXPECT_TRUE(spin_trylock(&a));	/* b -> a, but it cannot wait */
		EXPECT_TRUE(lock_is_held(&a.dep_map));	/* yet it is held */
		spin_unlock(&a);
		spin_unlock(&b);
	});
	/* Had the trylock recorded b -> a, this would be an inversion. */
	EXPECT_REPORTS(0, take2(&a, &b));
	/* And a trylock of a class already held is no recursion either. */
	EXPECT_REPORTS(0, { spin_lock(&a); EXPECT_TRUE(spin_trylock(&a2)); spin_unlock(&a2); spin_unlock(&a); });
	lockdep_free_key(&ka);
	lockdep_free_key(&kb);
}

static void inversion_reported_once(void)
{
	static struct lock_class_key ka, kb;
	struct spinlock a, b;
	need_lockdep();
	__spin_init(&a, "test-once-a", &ka);
	__spin_init(&b, "test-once-b", &kb);

	take2(&a, &b);
	EXPECT_REPORTS(1, take2(&b, &a));
	EXPECT_REPORTS(0, take2(&b, &a));
	EXPECT_REPORTS(0, take2(&b, &a));
	lockdep_free_key(&ka);
	lockdep_free_key(&kb);
}

static void assert_held_checks(void)
{
	static struct lock_class_key k;
	struct spinlock a;
	need_lockdep();
	__spin_init(&a, "test-assert", &k);

	spin_lock(&a);
	EXPECT_TRUE(lock_is_held(&a.dep_map));
	EXPECT_REPORTS(0, spin_assert_held(&a));
	spin_unlock(&a);
	EXPECT_FALSE(lock_is_held(&a.dep_map));
	EXPECT_REPORTS(1, spin_assert_held(&a));
	lockdep_free_key(&k);
}

/* The sleeping locks' assertions: a mutex held or not, an rwsem held
 * shared or exclusive, and each assertion that asks for the other mode. */
static void assert_held_sleeping_locks(void)
{
	struct mutex m;
	struct rw_semaphore s;
	need_lockdep();
	mutex_init(&m, "test-assert-mutex");
	init_rwsem(&s, "test-assert-rwsem");

	EXPECT_REPORTS(1, mutex_assert_held(&m));
	mutex_lock(&m);
	EXPECT_REPORTS(0, mutex_assert_held(&m));
	mutex_unlock(&m);

	EXPECT_REPORTS(3, { rwsem_assert_held(&s); rwsem_assert_held_read(&s);
			    rwsem_assert_held_write(&s); });
	down_read(&s);
	EXPECT_REPORTS(0, { rwsem_assert_held(&s); rwsem_assert_held_read(&s); });
	EXPECT_REPORTS(1, rwsem_assert_held_write(&s));
	up_read(&s);
	down_write(&s);
	EXPECT_REPORTS(0, { rwsem_assert_held(&s); rwsem_assert_held_write(&s); });
	EXPECT_REPORTS(1, rwsem_assert_held_read(&s));
	up_write(&s);
}

/*
 * A wrong caller of production code is reported, and the kernel goes on:
 * inode_attr_write_begin (chmod's, chown's) requires i_rwsem exclusive;
 * a caller holding it shared, as a lookup does, is one report.  ramfs_entry
 * requires the directory's i_rwsem at all; a caller holding none, one more.
 */
static void assert_held_wrong_caller_reported(void)
{
	need_lockdep();
	struct super_block *sb = ramfs_mount();
	ASSERT_NOT_NULL(sb);
	struct inode *dir = sb->s_root->d_inode;

	down_read(&dir->i_rwsem);
	EXPECT_REPORTS(1, { inode_attr_write_begin(dir); inode_attr_write_end(dir); });
	EXPECT_REPORTS(0, ramfs_entry(dir, "x", 1));
	up_read(&dir->i_rwsem);
	EXPECT_REPORTS(1, ramfs_entry(dir, "x", 1));
	down_write(&dir->i_rwsem);
	EXPECT_REPORTS(0, { inode_attr_write_begin(dir); inode_attr_write_end(dir); });
	up_write(&dir->i_rwsem);
	ramfs_unmount(sb);
}

/*
 * The name lock of parallel directory changes (fs/d_name_lock.c) is a
 * class the validator knows, between a directory's i_rwsem (shared) and
 * the exclusive victim subclasses, with a second subclass for a rename's
 * second name (docs/design/08-lock-order.md).  Each order the protocol
 * takes is quiet; each one it forbids is one report: a directory taken
 * under a name of it, the second name before the first, a name taken
 * under a victim inode.  The name lock's classes are forgotten first and
 * last, so earlier suites' reports about them do not hide these.
 */
static void name_lock_forbidden_orders_reported(void)
{
	need_lockdep();
	struct super_block *sb = ramfs_mount();
	ASSERT_NOT_NULL(sb);
	struct dentry *root = sb->s_root;
	struct rw_semaphore *dir = &root->d_inode->i_rwsem;
	struct super_block *sb2 = ramfs_mount();	/* its root: an inode to lock as a victim */
	ASSERT_NOT_NULL(sb2);
	struct rw_semaphore *victim = &sb2->s_root->d_inode->i_rwsem;
	struct qstr qx = { "x", 1, 0 }, qy = { "y", 1, 0 };
	down_read(dir);
	struct dentry *x = lookup_one(root, "x", 1), *y = lookup_one(root, "y", 1);
	up_read(dir);
	ASSERT_FALSE(IS_ERR(x));
	ASSERT_FALSE(IS_ERR(y));
	lockdep_free_key(d_name_lock_key());
	/* The protocol's orders. */
	EXPECT_REPORTS(0, {
		down_read(dir);
		EXPECT_EQ(d_name_lock(x, root, &qx, D_NAME_LOCK_FIRST), 0);
		EXPECT_EQ(d_name_lock(y, root, &qy, D_NAME_LOCK_SECOND), 0);
		down_write_nested(victim, I_RWSEM_VICTIM);
		up_write(victim);
		d_name_unlock(y);
		d_name_unlock(x);
		up_read(dir);
	});
	/* The directory under a name of it. */
	EXPECT_REPORTS(1, {
		EXPECT_EQ(d_name_lock(x, root, &qx, D_NAME_LOCK_FIRST), 0);
		down_read(dir);
		up_read(dir);
		d_name_unlock(x);
	});
	/* A rename's second name before its first. */
	EXPECT_REPORTS(1, {
		EXPECT_EQ(d_name_lock(y, root, &qy, D_NAME_LOCK_SECOND), 0);
		EXPECT_EQ(d_name_lock(x, root, &qx, D_NAME_LOCK_FIRST), 0);
		d_name_unlock(x);
		d_name_unlock(y);
	});
	/* A name under a victim inode. */
	EXPECT_REPORTS(1, {
		down_write_nested(victim, I_RWSEM_VICTIM);
		EXPECT_EQ(d_name_lock(x, root, &qx, D_NAME_LOCK_FIRST), 0);
		d_name_unlock(x);
		up_write(victim);
	});
	lockdep_free_key(d_name_lock_key());
	dput(x);
	dput(y);
	ramfs_unmount(sb2);
	ramfs_unmount(sb);
}

/* Every CPU takes the same two locks in the same order: nothing to report. */
static struct lock_class_key all_ka, all_kb;
static struct spinlock all_a, all_b;
static unsigned all_count;

static void same_order_worker(unsigned cpu, void *arg)
{
	(void)cpu;
	(void)arg;
	unsigned ops = ktest_ops_per_cpu(2000);
	for (unsigned i = 0; i < ops; i++) {
		unsigned long flags = spin_lock_irqsave(&all_a);
		spin_lock(&all_b);
		all_count++;
		spin_unlock(&all_b);
		spin_unlock_irqrestore(&all_a, flags);
	}
}

static void all_cpus_same_order_not_reported(void)
{
	need_lockdep();
	__spin_init(&all_a, "test-all-a", &all_ka);
	__spin_init(&all_b, "test-all-b", &all_kb);
	all_count = 0;

	EXPECT_REPORTS(0, ktest_run_on_all_cpus(same_order_worker, NULL));
	EXPECT_EQ(all_count, ktest_ops_per_cpu(2000) * ncpus);
	lockdep_free_key(&all_ka);
	lockdep_free_key(&all_kb);
}

/* The listing prints; it must not report or take a tracked lock. */
static void classes_listed(void)
{
	static struct lock_class_key ka, kb;
	struct spinlock a, b;
	need_lockdep();
	__spin_init(&a, "test-list-a", &ka);
	__spin_init(&b, "test-list-b", &kb);

	take2(&a, &b);
	EXPECT_REPORTS(0, lockdep_print_classes());
	lockdep_free_key(&ka);
	lockdep_free_key(&kb);
}

static const struct ktest_case lockdep_cases[] = {
	KTEST_CASE(abba_inversion_reported),
	KTEST_CASE(three_lock_cycle_reported),
	KTEST_CASE(long_cycle_reported),
	KTEST_CASE(consistent_order_not_reported),
	KTEST_CASE(release_of_unheld_reported),
	KTEST_CASE(recursion_reported_unless_nested),
	KTEST_CASE(sleeping_in_atomic_reported),
	KTEST_CASE(trylock_adds_no_dependency),
	KTEST_CASE(inversion_reported_once),
	KTEST_CASE(assert_held_checks),
	KTEST_CASE(assert_held_sleeping_locks),
	KTEST_CASE(assert_held_wrong_caller_reported),
	KTEST_CASE(name_lock_forbidden_orders_reported),
	KTEST_CASE(all_cpus_same_order_not_reported),
	KTEST_CASE(classes_listed),
};
KTEST_SUITE(lockdep, lockdep_cases);
