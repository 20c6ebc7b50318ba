/* test_namei.c: the path walk's rules, one case each (a ramfs tree:
 * /a, /a/b, /a/b/c directories and the file /a/f; symlinks added by the
 * cases that need them). */
#include "kernel/ktest.h"
#include "fs/dcache.h"
#include "fs/dirops.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/ramfs/ramfs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/string.h"
#include "kernel/kprintf.h"
#include "kernel/layout.h"
#include "kernel/thread.h"

static struct super_block *sb;
static struct dentry *a, *b, *c, *f;

static struct dentry *must(struct dentry *dir, const char *name)
{
	struct dentry *d = lookup_one_unlocked(dir, name, strlen(name));
	return IS_ERR(d) || !d->d_inode ? NULL : d;
}

static bool setup(void)
{
	sb = ramfs_mount();
	if (!sb)
		return false;
	struct dentry *r = sb->s_root;
	if (vfs_mkdir(r, "a", 1, 0755) || !(a = must(r, "a")) || vfs_mkdir(a, "b", 1, 0755) ||
	    !(b = must(a, "b")) || vfs_mkdir(b, "c", 1, 0755) || !(c = must(b, "c")) ||
	    vfs_create_name(a, "f", 1, 0644) || !(f = must(a, "f")))
		return false;
	return true;
}

static void teardown(void)
{
	dput(f);
	dput(c);
	dput(b);
	dput(a);
	f = c = b = a = NULL;
	ramfs_unmount(sb);
}

/* Walk, compare with the expected dentry or errno, drop the reference. */
static bool walks_to(struct dentry *cwd, const char *path, struct dentry *want, long err)
{
	struct dentry *got = vfs_path_lookup(sb->s_root, cwd, path, 0);
	bool ok = want ? got == want : PTR_ERR(got) == err;
	if (!IS_ERR(got))
		dput(got);
	return ok;
}

#define CASE(fn) static void fn(void) { ASSERT_TRUE(setup()); fn##_body(); teardown(); }

static void absolute_and_relative_body(void)
{
	EXPECT_TRUE(walks_to(NULL, "/a/b/c", c, 0));
	EXPECT_TRUE(walks_to(a, "b/c", c, 0));
	EXPECT_TRUE(walks_to(b, "/a/f", f, 0));
	EXPECT_TRUE(walks_to(NULL, "/", sb->s_root, 0));
}
CASE(absolute_and_relative)

static void dot_and_dotdot_body(void)
{
	EXPECT_TRUE(walks_to(c, ".", c, 0));
	EXPECT_TRUE(walks_to(c, "..", b, 0));
	EXPECT_TRUE(walks_to(c, "../../f", f, 0));
	EXPECT_TRUE(walks_to(NULL, "/..", sb->s_root, 0));		/* stays at the root */
	EXPECT_TRUE(walks_to(NULL, "/../../a/./b/../b/c", c, 0));
}
CASE(dot_and_dotdot)

static void repeated_and_trailing_slashes_body(void)
{
	EXPECT_TRUE(walks_to(NULL, "//a///b////c", c, 0));
	EXPECT_TRUE(walks_to(NULL, "/a/b/c/", c, 0));		/* a directory: fine */
	EXPECT_TRUE(walks_to(NULL, "/a/f/", NULL, -ENOTDIR));	/* a file: not a directory */
	EXPECT_TRUE(walks_to(NULL, "/a/f/.", NULL, -ENOTDIR));
}
CASE(repeated_and_trailing_slashes)

static void empty_path_is_enoent_body(void)
{
	EXPECT_TRUE(walks_to(a, "", NULL, -ENOENT));
}
CASE(empty_path_is_enoent)

static void missing_component_is_enoent_body(void)
{
	EXPECT_TRUE(walks_to(NULL, "/a/nope", NULL, -ENOENT));
	EXPECT_TRUE(walks_to(NULL, "/a/nope/c", NULL, -ENOENT));
}
CASE(missing_component_is_enoent)

static void file_in_the_middle_is_enotdir_body(void)
{
	EXPECT_TRUE(walks_to(NULL, "/a/f/x", NULL, -ENOTDIR));
}
CASE(file_in_the_middle_is_enotdir)

static void long_names_and_paths_body(void)
{
	static char path[PATH_MAX + 8];
	memset(path, 'x', NAME_MAX + 1);
	path[NAME_MAX + 1] = '\0';
	EXPECT_TRUE(walks_to(a, path, NULL, -ENAMETOOLONG));	/* component of 256 */
	path[NAME_MAX] = '\0';
	EXPECT_TRUE(walks_to(a, path, NULL, -ENOENT));		/* 255 is allowed */
	memset(path, '/', PATH_MAX - 1);
	path[PATH_MAX - 1] = '\0';
	EXPECT_TRUE(walks_to(NULL, path, sb->s_root, 0));	/* 4095 bytes: fine */
	path[PATH_MAX - 1] = '/';
	path[PATH_MAX] = '\0';
	EXPECT_TRUE(walks_to(NULL, path, NULL, -ENAMETOOLONG));	/* 4096 bytes: too long */
}
CASE(long_names_and_paths)

/* The parent walk as mkdir and rmdir use it: a last component that is
 * not a name of its own is refused ("/": -EEXIST; "." or "..": -EINVAL). */
static struct dentry *walk_parent(struct dentry *root, struct dentry *cwd, const char *path,
				  const char **last, size_t *len)
{
	struct last_name ln;
	struct dentry *d = vfs_path_parent_lookup(root, cwd, path, &ln);
	if (IS_ERR(d))
		return d;
	*last = ln.name;
	*len = ln.len;
	if (ln.type != LAST_NORM) {
		dput(d);
		return ERR_PTR(ln.type == LAST_ROOT ? -EEXIST : -EINVAL);
	}
	return d;
}

static void parent_of_the_last_component_body(void)
{
	const char *last = NULL;
	size_t len = 0;
	struct dentry *p = walk_parent(sb->s_root, NULL, "/a/b/new", &last, &len);
	EXPECT_EQ(p, b);
	EXPECT_EQ(len, 3u);
	EXPECT_EQ(strncmp(last, "new", 3), 0);
	if (!IS_ERR(p))
		dput(p);
	p = walk_parent(sb->s_root, NULL, "/a/b/new/", &last, &len);	/* mkdir allows it */
	EXPECT_EQ(p, b);
	if (!IS_ERR(p))
		dput(p);
	EXPECT_EQ(PTR_ERR(walk_parent(sb->s_root, NULL, "/", &last, &len)), -EEXIST);
	EXPECT_EQ(PTR_ERR(walk_parent(sb->s_root, NULL, "/a/..", &last, &len)), -EINVAL);
	EXPECT_EQ(PTR_ERR(walk_parent(sb->s_root, NULL, "/a/nope/x", &last, &len)), -ENOENT);
	EXPECT_EQ(PTR_ERR(walk_parent(sb->s_root, NULL, "/a/f/x", &last, &len)), -ENOTDIR);
}
CASE(parent_of_the_last_component)

static void symlinks_body(void)
{
	EXPECT_EQ(vfs_symlink(a, "rel", 3, "b"), 0);
	EXPECT_EQ(vfs_symlink(a, "abs", 3, "/a/b/c"), 0);
	EXPECT_EQ(vfs_symlink(a, "up", 2, "../a/b"), 0);
	EXPECT_EQ(vfs_symlink(a, "tofile", 6, "f"), 0);
	EXPECT_EQ(vfs_symlink(a, "dangling", 8, "nope"), 0);
	EXPECT_EQ(vfs_symlink(a, "rel", 3, "b"), -EEXIST);
	EXPECT_EQ(vfs_symlink(a, "empty", 5, ""), -ENOENT);

	EXPECT_TRUE(walks_to(NULL, "/a/rel/c", c, 0));		/* relative: from /a */
	EXPECT_TRUE(walks_to(NULL, "/a/rel", b, 0));		/* followed at the end too */
	EXPECT_TRUE(walks_to(NULL, "/a/abs", c, 0));		/* absolute: from the root */
	EXPECT_TRUE(walks_to(NULL, "/a/up/c/..", b, 0));
	EXPECT_TRUE(walks_to(NULL, "/a/tofile", f, 0));
	EXPECT_TRUE(walks_to(NULL, "/a/tofile/", NULL, -ENOTDIR));
	EXPECT_TRUE(walks_to(NULL, "/a/dangling", NULL, -ENOENT));

	/* Not followed at the end with WALK_NOFOLLOW, but followed before a slash. */
	struct dentry *l = vfs_path_lookup(sb->s_root, NULL, "/a/rel", WALK_NOFOLLOW);
	ASSERT_FALSE(IS_ERR(l));
	EXPECT_TRUE(S_ISLNK(l->d_inode->i_mode));
	dput(l);
	l = vfs_path_lookup(sb->s_root, NULL, "/a/rel/", WALK_NOFOLLOW);
	EXPECT_EQ(l, b);
	if (!IS_ERR(l))
		dput(l);
}
CASE(symlinks)

/* MAXSYMLINKS + 1 links in a: p0 -> "b<tail>", p<i> -> "p<i-1><tail>". */
static void link_chain(char p, const char *tail)
{
	char name[8], body[16];
	for (int i = 0; i <= MAXSYMLINKS; i++) {
		snprintf(name, sizeof(name), "%c%d", p, i);
		if (i == 0)
			snprintf(body, sizeof(body), "b%s", tail);
		else
			snprintf(body, sizeof(body), "%c%d%s", p, i - 1, tail);
		EXPECT_EQ(vfs_symlink(a, name, strlen(name), body), 0);
	}
}

static void symlink_loops_are_eloop_body(void)
{
	EXPECT_EQ(vfs_symlink(a, "loop1", 5, "loop2"), 0);
	EXPECT_EQ(vfs_symlink(a, "loop2", 5, "loop1"), 0);
	EXPECT_TRUE(walks_to(NULL, "/a/loop1", NULL, -ELOOP));
	EXPECT_TRUE(walks_to(NULL, "/a/loop2/x", NULL, -ELOOP));

	/* A chain: l0 -> b, l<i> -> l<i-1>.  Reaching b through l39 follows 40
	 * links (allowed); through l40, 41 (-ELOOP). */
	link_chain('l', "");
	EXPECT_TRUE(walks_to(NULL, "/a/l39", b, 0));
	EXPECT_TRUE(walks_to(NULL, "/a/l40", NULL, -ELOOP));

	/* Nested as deep as a walk may go: n<i> -> "n<i-1>/.", so every link
	 * is followed in the middle of the one before's body.  The walk must
	 * fit its thread's stack with room to spare (test builds fill stacks
	 * with a pattern and the context switch panics on one run through; a
	 * KCSAN kernel's bigger frames once did, at 16 KiB, in the torture). */
	link_chain('n', "/.");
	EXPECT_TRUE(walks_to(NULL, "/a/n39/.", b, 0));
	EXPECT_TRUE(walks_to(NULL, "/a/n40/.", NULL, -ELOOP));
	size_t used = thread_stack_used(current_thread());
	kprintf("    # 40 nested links: %zu of %u stack bytes used at most in this case\n", used,
		KSTACK_SIZE);
	EXPECT_LT(used, (size_t)KSTACK_SIZE * 3 / 4);
}
CASE(symlink_loops_are_eloop)

/* A walk of path from a thread of its own (a fresh, poisoned stack): the
 * bytes of stack it used, or -1 if the walk did not reach b. */
struct stack_walk {
	const char *path;
	bool rcu;                  /* vfs.rcuwalk for the walk */
};

static int walk_on_fresh_stack(void *arg)
{
	struct stack_walk *w = arg;
	struct dentry *d = vfs_path_lookup(sb->s_root, NULL, w->path, 0);
	if (IS_ERR(d))
		return -1;
	bool right = d == b;
	dput(d);
	return right ? (int)thread_stack_used(current_thread()) : -1;
}

/* The least of three tries: an interrupt taken during a walk puts its
 * frames on the walk's stack too, at random (one added 440 bytes, in one
 * boot of a make test). */
static int stack_of_walk(const char *path, bool rcu)
{
	struct stack_walk w = { path, rcu };
	int least = -1;
	vfs_rcu_walk = rcu;
	for (int i = 0; i < 3; i++) {
		struct thread *t = thread_create("walk", walk_on_fresh_stack, &w, THREAD_ANY_CPU);
		int used = t ? thread_join(t) : -1;
		if (used < 0)
			least = -1000000;	/* a walk that failed fails the case */
		else if (least == -1 || used < least)
			least = used;
	}
	vfs_rcu_walk = true;
	return least;
}

/*
 * The walk keeps links nested in links on a stack of its own (struct
 * walk_link), not by recursion: following 40 of them, each met inside the
 * body of the one before, takes no more of a thread's stack than
 * following one, in RCU mode and with references.  (A recursive walk took
 * about 260 bytes more for each.)  Test builds only: release builds do
 * not poison stacks, and thread_stack_used says 0.
 */
static void nested_links_take_no_more_stack_body(void)
{
	link_chain('n', "/.");
	for (int rcu = 1; rcu >= 0; rcu--) {
		int one = stack_of_walk("/a/n0/.", rcu), forty = stack_of_walk("/a/n39/.", rcu);
		kprintf("    # %s: 1 nested link, %d stack bytes; 40, %d\n",
			rcu ? "RCU mode" : "references", one, forty);
		EXPECT_GE(one, 0);
		EXPECT_GE(forty, 0);
		/* 1 KiB: far below the 9 KiB more that recursion took, above
		 * what leaving RCU mode after 8 copies adds (240 bytes). */
		EXPECT_LT(forty - one, 1024);
	}
}
CASE(nested_links_take_no_more_stack)

static const struct ktest_case namei_cases[] = {
	KTEST_CASE(absolute_and_relative),
	KTEST_CASE(dot_and_dotdot),
	KTEST_CASE(repeated_and_trailing_slashes),
	KTEST_CASE(empty_path_is_enoent),
	KTEST_CASE(missing_component_is_enoent),
	KTEST_CASE(file_in_the_middle_is_enotdir),
	KTEST_CASE(long_names_and_paths),
	KTEST_CASE(parent_of_the_last_component),
	KTEST_CASE(symlinks),
	KTEST_CASE(symlink_loops_are_eloop),
	KTEST_CASE(nested_links_take_no_more_stack),
};
KTEST_SUITE(namei, namei_cases);
