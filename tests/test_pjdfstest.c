/*
 * test_pjdfstest.c: pjdfstest's own test files (third_party/pjdfstest,
 * unmodified) run by Debian's busybox sh in user mode, on ramfs (suite
 * pjdfstest) and on the ext2 scratch disk (suite pjdfstest_ext2).
 *
 * The initramfs holds the upstream tree as /tests/pjdfstest/tests (the
 * .t files, misc.sh, conf) with the program, built statically from the
 * upstream pjdfstest.c, as /tests/pjdfstest/pjdfstest, where misc.sh
 * looks for it (the nearest ancestor of the .t file that has one), and
 * the stand-in for the one tool busybox lacks, `openssl md5`, in
 * /tests/pjdfstest/shim (tests/pjdfstest/shim/openssl), first in PATH.
 *
 * One case per upstream directory (chmod, rename, ...): each NN.t runs
 * as root with its working directory a fresh 0755 directory of a fresh
 * sandbox (a new ramfs, or a new directory of the ext2 disk), and every
 * line of its TAP output is printed as
 *     # pjd FS DIR/NN.t: LINE
 * followed by `# pjd FS DIR/NN.t: exit STATUS`.  The kernel does not judge
 * the TAP: tests/pjdfstest/run.py reads these lines from the serial log
 * and compares every test point with the same file run on the host's
 * Linux, against the differences docs/reference/pjdfstest.md explains.
 * What the kernel checks itself: the shell ran and exited normally, the
 * file printed a plan, and the sandbox leaked no dentry, inode or file.
 *
 * The suites are explicit (ktest=pjdfstest,pjdfstest_ext2): a full run
 * takes many minutes under TCG (the files sleep to see time stamps move).
 */
#include "fs/syscalls.h"
#include "kernel/cmdline.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "tests/sandbox.h"
#include "tests/test_disk.h"
#include "tests/user_run.h"

#define PJD       "/tests/pjdfstest"
#define LINE_MAX_ 240      /* longer lines (a failure naming two NAME_MAX names) are cut */

/* The upstream directories, one case each. */
static const char *const dirs[] = {
	"chflags", "chmod", "chown", "ftruncate", "granular", "link", "mkdir", "mkfifo", "mknod",
	"open", "posix_fallocate", "rename", "rmdir", "symlink", "truncate", "unlink", "utimensat",
};

/* pjdfstest.dirs=DIR[,DIR...]: only these directories' cases run (the
 * others skip), for a quicker look at one (make test-pjdfstest DIRS=...). */
static char only_dirs[256] = "all";

static bool dir_exists(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (strlen(dirs[i]) == len && strncmp(dirs[i], name, len) == 0)
			return true;
	return false;
}

static int set_dirs(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	return kparam_set_names(p, val, len, why, n, dir_exists, "pjdfstest directory");
}
KPARAM("pjdfstest.dirs", set_dirs, only_dirs, 0, sizeof(only_dirs),
       "pjdfstest directories the pjdfstest suites run: all (default) or DIR[,DIR...]");

/* Print the file at path, a line at a time, as `# pjd FS NAME: LINE`;
 * true if one of the lines is a TAP plan (1..N). */
static bool print_tap(const char *fs, const char *name, const char *path)
{
	int fd = sys_open(path, O_RDONLY, 0);
	if (fd < 0)
		return false;
	char *buf = kmalloc(4096), *line = kmalloc(LINE_MAX_ + 1);
	bool plan = false;
	size_t len = 0;
	bool cut = false;
	long n = 0;
	while (buf && line && (n = sys_read(fd, buf, 4096)) > 0) {
		for (long i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (len < LINE_MAX_)
					line[len++] = buf[i];
				else
					cut = true;
				continue;
			}
			line[len] = '\0';
			plan |= strncmp(line, "1..", 3) == 0;
			kprintf("    # pjd %s %s: %s%s\n", fs, name, line, cut ? "..." : "");
			len = 0;
			cut = false;
		}
	}
	if (len) {
		line[len] = '\0';
		kprintf("    # pjd %s %s: %s\n", fs, name, line);
	}
	sys_close(fd);
	kfree(buf);
	kfree(line);
	return plan;
}

/* utimensat/06.t and 07.t ask `id -u nobody`, `id -g root` ...: busybox's
 * id reads /etc/passwd and /etc/group, which smpvfs's root does not have
 * (the initramfs has no /etc).  While the files run, they hold the two
 * accounts as Debian has them (nobody: 65534, group nogroup), made here
 * only where missing and removed afterwards, so that nothing else sees them. */
static const struct { const char *path, *text; } etc_files[] = {
	{ "/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n"
			 "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n" },
	{ "/etc/group", "root:x:0:\nnogroup:x:65534:\n" },
};
#define NETC (sizeof(etc_files) / sizeof(etc_files[0]))

/* Bit i set: etc_files[i] was made here (bit NETC: /etc too). */
static unsigned etc_make(void)
{
	unsigned made = 0;
	if (sys_mkdir("/etc", 0755) == 0)
		made |= 1u << NETC;
	for (unsigned i = 0; i < NETC; i++) {
		int fd = sys_open(etc_files[i].path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			continue;
		size_t len = strlen(etc_files[i].text);
		EXPECT_EQ(sys_write(fd, etc_files[i].text, len), (long)len);
		sys_close(fd);
		made |= 1u << i;
	}
	return made;
}

static void etc_remove(unsigned made)
{
	for (unsigned i = 0; i < NETC; i++)
		if (made & (1u << i))
			EXPECT_EQ(sys_unlink(etc_files[i].path), 0);
	if (made & (1u << NETC))
		EXPECT_EQ(sys_rmdir("/etc"), 0);
}

/* Run DIR/NN.t for NN = 00, 01, ... until one is missing (upstream numbers
 * them without gaps; the host checks that every file it has was run). */
static void run_dir(const char *dir, struct block_device *bdev)
{
	const char *fs = bdev ? "ext2" : "ramfs";
	if (strcmp(only_dirs, "all") != 0 && !name_list_contains(only_dirs, dir))
		ktest_skip("not in pjdfstest.dirs");
	char probe[96];
	snprintf(probe, sizeof(probe), PJD "/tests/%s/00.t", dir);
	struct kstat st;
	if (sys_stat(PJD "/pjdfstest", &st) != 0 || sys_stat(probe, &st) != 0)
		ktest_skip("no " PJD " in the root: boot with make test's initramfs");
	char *const envp[] = { "PATH=" PJD "/shim:/bin", "HOME=/", NULL };
	unsigned files = 0;
	unsigned made = etc_make();
	for (unsigned k = 0; k < 100; k++) {
		char script[96], name[48];
		snprintf(script, sizeof(script), PJD "/tests/%s/%02u.t", dir, k);
		if (sys_stat(script, &st) != 0)
			break;
		snprintf(name, sizeof(name), "%s/%02u.t", dir, k);
		struct sandbox sb;
		char tag[40];      /* a directory of its own on the disk: what a file leaves stays there */
		snprintf(tag, sizeof(tag), "pjd-%s-%02u", dir, k);
		if (bdev)
			sandbox_enter_disk(&sb, tag, bdev);
		else
			sandbox_enter(&sb, "pjd");
		/* 0755 whatever the umask: uid 65534 must search it, as in a
		 * directory like /mnt where pjdfstest is meant to run. */
		EXPECT_EQ(sys_mkdir("w", 0755), 0);
		EXPECT_EQ(sys_chmod("w", 0755), 0);
		char *const argv[] = { "sh", script, NULL };
		int status = -1;
		int err = user_run_in("w", "/bin/sh", argv, envp, "out", &status);
		ktest_check(err == 0, __FILE__, __LINE__, "%s: cannot run /bin/sh: %d", name, err);
		bool plan = print_tap(fs, name, "out");
		kprintf("    # pjd %s %s: exit %d\n", fs, name, status);
		ktest_check(plan, __FILE__, __LINE__, "%s on %s printed no TAP plan", name, fs);
		/* A nonzero exit is the file's verdict (misc.sh exits 1 when it
		 * cannot start); the host judges it with the TAP. */
		ktest_check((status & 0x7f) == 0, __FILE__, __LINE__, "%s: sh killed by signal %d",
			    name, status & 0x7f);
		sandbox_leave(&sb);
		files++;
	}
	etc_remove(made);
	kprintf("    # pjd %s %s: %u files\n", fs, dir, files);
	EXPECT_GE(files, 1u);
}

#define PJD_DIR(d) \
	static void d##_ramfs(void) { run_dir(#d, NULL); } \
	static void d##_ext2(void) { run_dir(#d, test_disk_or_skip("scratch")); }
PJD_DIR(chflags)
PJD_DIR(chmod)
PJD_DIR(chown)
PJD_DIR(ftruncate)
PJD_DIR(granular)
PJD_DIR(link)
PJD_DIR(mkdir)
PJD_DIR(mkfifo)
PJD_DIR(mknod)
PJD_DIR(open)
PJD_DIR(posix_fallocate)
PJD_DIR(rename)
PJD_DIR(rmdir)
PJD_DIR(symlink)
PJD_DIR(truncate)
PJD_DIR(unlink)
PJD_DIR(utimensat)

/* The longest directories (chown's 00.t alone sleeps over a minute on
 * Linux) get an hour under TCG's slow process starts. */
#define PJD_CASES(sfx) \
	KTEST_CASE_TIMEOUT(chflags_##sfx, 3600), KTEST_CASE_TIMEOUT(chmod_##sfx, 3600), \
	KTEST_CASE_TIMEOUT(chown_##sfx, 3600), KTEST_CASE_TIMEOUT(ftruncate_##sfx, 3600), \
	KTEST_CASE_TIMEOUT(granular_##sfx, 3600), KTEST_CASE_TIMEOUT(link_##sfx, 3600), \
	KTEST_CASE_TIMEOUT(mkdir_##sfx, 3600), KTEST_CASE_TIMEOUT(mkfifo_##sfx, 3600), \
	KTEST_CASE_TIMEOUT(mknod_##sfx, 3600), KTEST_CASE_TIMEOUT(open_##sfx, 3600), \
	KTEST_CASE_TIMEOUT(posix_fallocate_##sfx, 3600), KTEST_CASE_TIMEOUT(rename_##sfx, 3600), \
	KTEST_CASE_TIMEOUT(rmdir_##sfx, 3600), KTEST_CASE_TIMEOUT(symlink_##sfx, 3600), \
	KTEST_CASE_TIMEOUT(truncate_##sfx, 3600), KTEST_CASE_TIMEOUT(unlink_##sfx, 3600), \
	KTEST_CASE_TIMEOUT(utimensat_##sfx, 3600)

static const struct ktest_case pjdfstest_cases[] = { PJD_CASES(ramfs) };
KTEST_SUITE_EXPLICIT(pjdfstest, pjdfstest_cases);

static const struct ktest_case pjdfstest_ext2_cases[] = { PJD_CASES(ext2) };
KTEST_SUITE_EXPLICIT(pjdfstest_ext2, pjdfstest_ext2_cases);
