/*
 * test_cred.c: credentials (kernel/cred.h) and what the permission rules
 * do to timestamps: a new thread shares its creator's credentials and a
 * change stays with the thread that made it; the credential calls' rules;
 * ctime after the attribute changes Linux dates (fs/open.c).
 */
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/cred.h"
#include "kernel/errno.h"
#include "kernel/ktest.h"
#include "kernel/thread.h"
#include "tests/sandbox.h"

struct child {
	const struct cred *seen;       /* its credentials at start */
	uint32_t uid_after;
};

static int child_main(void *p)
{
	struct child *c = p;
	c->seen = current_cred();
	struct cred *new = prepare_creds();
	if (new) {
		new->uid = 4242;
		commit_creds(new);
	}
	c->uid_after = current_cred()->uid;
	return 0;
}

static void threads_share_then_diverge(void)
{
	const struct cred *mine = current_cred();
	int usage = __atomic_load_n(&mine->usage, __ATOMIC_RELAXED);
	struct child c = { 0 };
	struct thread *t = thread_create("credchild", child_main, &c, THREAD_ANY_CPU);
	ASSERT_NOT_NULL(t);
	thread_join(t);
	EXPECT_EQ(c.seen, mine);               /* the same object, shared */
	EXPECT_EQ(c.uid_after, 4242u);         /* its change was its own */
	EXPECT_EQ(current_cred(), mine);
	EXPECT_EQ(mine->uid, 0u);
	/* join dropped the child's references: the count is back */
	EXPECT_EQ(__atomic_load_n(&mine->usage, __ATOMIC_RELAXED), usage);
}

static void id_calls(void)
{
	struct cred *u = prepare_creds();
	ASSERT_NOT_NULL(u);
	const struct cred *saved = override_creds(u);
	EXPECT_EQ(sys_setgroups(2, (uint32_t[]){ 5, 6 }), 0);
	EXPECT_EQ(sys_setgid(100), 0);
	EXPECT_EQ(sys_setuid(1000), 0);
	EXPECT_EQ(sys_getuid(), 1000u);
	EXPECT_EQ(sys_getgid(), 100u);
	uint32_t g[4];
	EXPECT_EQ(sys_getgroups(0, NULL), 2);
	EXPECT_EQ(sys_getgroups(4, g), 2);
	EXPECT_EQ(g[1], 6u);
	EXPECT_EQ(sys_getgroups(1, g), -EINVAL);
	/* Not root any more: its own IDs only. */
	EXPECT_EQ(sys_setuid(1000), 0);
	EXPECT_EQ(sys_setuid(0), -EPERM);
	EXPECT_EQ(sys_setgid(0), -EPERM);
	EXPECT_EQ(sys_setgroups(0, NULL), -EPERM);
	uint32_t before = current_cred()->umask;
	EXPECT_EQ(sys_umask(0077), before);
	EXPECT_EQ(sys_umask(01777), 0077u);
	EXPECT_EQ(current_cred()->umask, 0777u);
	revert_creds(saved);
	EXPECT_EQ(sys_getuid(), 0u);
	EXPECT_EQ(sys_setgroups(NGROUPS_MAX + 1, g), -EINVAL);
}

static int64_t ctime_of(const char *path)
{
	struct kstat st;
	return sys_lstat(path, &st) == 0 ? st.ctime_ns : -1;
}

/* Each of these changes ctime (the clock moves between two calls); a
 * refused one does not. */
static void ctime_updates(void)
{
	struct sandbox s;
	sandbox_enter(&s, "ctime");
	int fd = sys_open("f", O_CREAT | O_RDWR, 0666);
	ASSERT_GE(fd, 0);
	int64_t t = ctime_of("f");
#define CHANGES(call) do { EXPECT_EQ(call, 0); int64_t n_ = ctime_of("f"); \
		EXPECT_GT(n_, t); t = n_; } while (0)
	CHANGES(sys_chmod("f", 0640));
	CHANGES(sys_chown("f", 7, 8));
	CHANGES(sys_chown("f", (uint32_t)-1, (uint32_t)-1));
	CHANGES(sys_fchown(fd, 9, (uint32_t)-1));
	CHANGES(sys_lchown("f", (uint32_t)-1, 9));
	CHANGES(sys_truncate("f", 3));
	CHANGES(sys_link("f", "g"));
	CHANGES(sys_unlink("g"));
	/* A set-user-ID bit a write by another user clears: ctime too. */
	EXPECT_EQ(sys_chmod("f", 04666), 0);
	t = ctime_of("f");
	struct cred *u = prepare_creds();
	ASSERT_NOT_NULL(u);
	u->uid = u->gid = 65534;
	const struct cred *saved = override_creds(u);
	EXPECT_EQ(sys_pwrite(fd, "x", 1, 0), 1);
	EXPECT_GT(ctime_of("f"), t);
	t = ctime_of("f");
	EXPECT_EQ(sys_chmod("f", 0600), -EPERM);
	EXPECT_EQ(sys_chown("f", 65534, (uint32_t)-1), -EPERM);
	EXPECT_EQ(ctime_of("f"), t);
	revert_creds(saved);
#undef CHANGES
	sys_close(fd);
	EXPECT_EQ(sys_unlink("f"), 0);
	sandbox_leave(&s);
}

/* chdir needs search permission on the directory itself (EACCES). */
static void chdir_needs_search(void)
{
	struct sandbox s;
	sandbox_enter(&s, "chdirx");
	ASSERT_EQ(sys_mkdir("d", 0755), 0);
	ASSERT_EQ(sys_chmod("d", 0766), 0);
	struct cred *u = prepare_creds();
	ASSERT_NOT_NULL(u);
	u->uid = u->gid = 65534;
	const struct cred *saved = override_creds(u);
	EXPECT_EQ(sys_chdir("d"), -EACCES);
	revert_creds(saved);
	EXPECT_EQ(sys_chdir("d"), 0);
	EXPECT_EQ(sys_chdir(".."), 0);
	EXPECT_EQ(sys_rmdir("d"), 0);
	sandbox_leave(&s);
}

static const struct ktest_case cred_cases[] = {
	KTEST_CASE(chdir_needs_search),
	KTEST_CASE(threads_share_then_diverge),
	KTEST_CASE(id_calls),
	KTEST_CASE(ctime_updates),
};
KTEST_SUITE(cred, cred_cases);
