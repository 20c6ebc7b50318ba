/*
 * efault: every system call that takes a path, and the buffers of read,
 * write, stat, getdents64, readlink, getcwd, pipe2 and wait4, given bad
 * pointers: NULL, an unmapped user address, a kernel address and a
 * non-canonical one.  Each must fail with EFAULT (14); the program prints
 * one line per miss and exits with the number of misses.  On Linux it
 * exits 0 too.  Then the kernel's check that a buffer is writable (done
 * before anything is consumed): a read into a read-only page fails and
 * leaves the pipe's byte for the next read, and a short read or
 * getdents64 changes no byte of the buffer past what it returned.  And
 * the order of errors: a bad descriptor (EBADF, or ESPIPE for pread and
 * pwrite on a pipe) wins over a bad buffer, ESPIPE over the access mode.
 * And a long read into a buffer with a PROT_NONE page inside stops before
 * it: some bytes, all of them right, and the file position past exactly
 * those (smpvfs stops at its 64 KiB step, Linux at the page); into a
 * fresh mapping, it is whole.
 */
#include "ulib.h"

#define EBADF 9
#define EFAULT 14
#define ESPIPE 29
static const long bad[] = { 0, 0x1000, (long)0xffff800000000000UL, (long)0x8000000000000000UL,
			    (long)0xffffffff80000000UL };
#define NBAD (sizeof(bad) / sizeof(bad[0]))
static int misses;

/* r must be -want; else a line "miss: WHAT ptr P gave R". */
static void expect(const char *what, long bad_ptr, long r, long want)
{
	if (r == -want)
		return;
	char buf[24];
	puts_fd(1, "miss: ");
	puts_fd(1, what);
	puts_fd(1, " ptr ");
	puts_fd(1, utoa(bad_ptr, buf));
	puts_fd(1, " gave ");
	puts_fd(1, utoa(r, buf));
	puts_fd(1, "\n");
	misses++;
}

static void check(const char *what, long bad_ptr, long r)
{
	expect(what, bad_ptr, r, EFAULT);
}

/* n bytes of buf past the first `from` still hold c? */
static void untouched(const char *what, const char *buf, long from, long n, char c)
{
	for (long i = from < 0 ? 0 : from; i < n; i++)
		if (buf[i] != c) {
			check(what, i, 0);
			return;
		}
}

#define BIG (96 * 1024)
#define HOLE (80 * 1024)        /* the PROT_NONE page's offset */
static char pattern_of(long i)
{
	return (char)((i * 7 + i / 4096) & 0xff);
}

/* n bytes of buf are the file's from offset 0? */
static void same_bytes(const char *what, const char *buf, long n)
{
	for (long i = 0; i < n; i++)
		if (buf[i] != pattern_of(i)) {
			check(what, i, 0);
			return;
		}
}

static void long_reads(void)
{
	static char big[BIG];
	for (long i = 0; i < BIG; i++)
		big[i] = pattern_of(i);
	long w = sys3(SYS_open, "efault-big", 0101 /* O_CREAT|O_WRONLY */, 0644);
	if (w < 0 || sys3(SYS_write, w, big, BIG) != BIG) {
		check("write efault-big", w, 0);
		return;
	}
	sys1(SYS_close, w);
	char *fresh = (char *)sys6_mmap(0, 2 * BIG, 3 /* RW */, 0x22);
	char *holed = (char *)sys6_mmap(0, 2 * BIG, 3, 0x22);
	long f = sys3(SYS_open, "efault-big", 0, 0);
	if ((long)fresh < 0 || (long)holed < 0 || f < 0 ||
	    sys3(SYS_mprotect, holed + HOLE, 4096, 0 /* PROT_NONE */) != 0) {
		check("mmap, open or mprotect", f, 0);
		return;
	}
	if (sys3(SYS_read, f, fresh, BIG) != BIG)
		check("read into a fresh mapping", (long)fresh, 0);
	same_bytes("read into a fresh mapping, byte", fresh, BIG);
	sys3(SYS_lseek, f, 0, 0);
	long r = sys3(SYS_read, f, holed, BIG);
	if (r <= 0 || r > HOLE)
		check("read up to a PROT_NONE page", r, 0);
	else
		same_bytes("read up to a PROT_NONE page, byte", holed, r);
	long pos = sys3(SYS_lseek, f, 0, 1 /* SEEK_CUR */);
	if (pos != r)
		check("file position after the short read", pos, 0);
	r = sys4(SYS_pread64, f, holed, BIG, 0);
	if (r <= 0 || r > HOLE)
		check("pread up to a PROT_NONE page", r, 0);
	sys1(SYS_close, f);
	sys1(SYS_unlink, "efault-big");
}

static void buffer_checks(long rfile)
{
	static char buf[4096];
	umemset(buf, 0x5a, sizeof(buf));
	long r = sys4(SYS_pread64, rfile, buf, sizeof(buf), 0);
	if (r != 1 || buf[0] != 'x')
		check("short pread", r, 0);
	untouched("short pread changed the buffer at", buf, 1, sizeof(buf), 0x5a);
	umemset(buf, 0x5a, sizeof(buf));
	long dir = sys3(SYS_open, ".", 0200000 /* O_DIRECTORY */, 0);
	r = sys3(SYS_getdents64, dir, buf, sizeof(buf));
	sys1(SYS_close, dir);
	if (r <= 0)
		check("getdents64", r, 0);
	untouched("getdents64 changed the buffer at", buf, r, sizeof(buf), 0x5a);

	int p[2];
	char *ro = (char *)sys6_mmap(0, 4096, 1 /* PROT_READ */, 0x22 /* MAP_PRIVATE|MAP_ANONYMOUS */);
	if (sys2(SYS_pipe2, p, 0) != 0 || (long)ro < 0) {
		check("pipe2 or mmap", -1, 0);
		return;
	}
	sys3(SYS_write, p[1], "y", 1);
	check("read into a read-only page", (long)ro, sys3(SYS_read, p[0], ro, 1));
	char c = 0;
	if (sys3(SYS_read, p[0], &c, 1) != 1 || c != 'y')
		check("the pipe's byte after the refused read", c, 0);
	long bad_buf = 0x1000, wfile = sys3(SYS_open, "efault-f", 01 /* O_WRONLY */, 0);
	expect("read, closed descriptor and bad buffer", 999, sys3(SYS_read, 999, bad_buf, 1), EBADF);
	expect("read, write-only file and bad buffer", wfile, sys3(SYS_read, wfile, bad_buf, 1), EBADF);
	expect("write, read-only file and bad buffer", rfile, sys3(SYS_write, rfile, bad_buf, 1), EBADF);
	expect("pread, pipe and bad buffer", p[0], sys4(SYS_pread64, p[0], bad_buf, 1, 0), ESPIPE);
	expect("pwrite, pipe's read end", p[0], sys4(18 /* pwrite64 */, p[0], "z", 1, 0), ESPIPE);
	expect("pread, closed descriptor, no bytes", 999, sys4(SYS_pread64, 999, buf, 0, 0), EBADF);
	sys1(SYS_close, wfile);
	sys1(SYS_close, p[0]);
	sys1(SYS_close, p[1]);
}

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)envp;
	static char st[256], out[256];
	long fd = sys3(SYS_open, ".", 0200000 /* O_DIRECTORY */, 0);
	long file = sys3(SYS_open, "efault-f", 0101 /* O_CREAT|O_WRONLY */, 0644);
	long rfile = sys3(SYS_open, "efault-f", 0, 0);
	sys3(SYS_write, file, "x", 1);
	for (unsigned i = 0; i < NBAD; i++) {
		long p = bad[i];
		check("open", p, sys3(SYS_open, p, 0, 0));
		check("openat", p, sys4(SYS_openat, -100, p, 0, 0));
		check("creat", p, sys2(SYS_creat, p, 0644));
		check("stat", p, sys2(SYS_stat, p, st));
		check("lstat", p, sys2(SYS_lstat, p, st));
		check("newfstatat", p, sys4(SYS_newfstatat, -100, p, st, 0));
		check("access", p, sys2(SYS_access, p, 0));
		check("faccessat", p, sys3(SYS_faccessat, -100, p, 0));
		check("mkdir", p, sys2(SYS_mkdir, p, 0755));
		check("mkdirat", p, sys3(SYS_mkdirat, -100, p, 0755));
		check("rmdir", p, sys1(SYS_rmdir, p));
		check("unlink", p, sys1(SYS_unlink, p));
		check("unlinkat", p, sys3(SYS_unlinkat, -100, p, 0));
		check("rename old", p, sys2(SYS_rename, p, "x"));
		check("rename new", p, sys2(SYS_rename, "efault-f", p));
		check("renameat", p, sys4(SYS_renameat, -100, p, -100, "x"));
		check("link old", p, sys2(SYS_link, p, "x"));
		check("link new", p, sys2(SYS_link, "efault-f", p));
		check("linkat", p, sys5(SYS_linkat, -100, p, -100, "x", 0));
		check("symlink target", p, sys2(SYS_symlink, p, "x"));
		check("symlink name", p, sys2(SYS_symlink, "t", p));
		check("symlinkat", p, sys3(SYS_symlinkat, "t", -100, p));
		check("readlink path", p, sys3(SYS_readlink, p, out, sizeof(out)));
		check("readlinkat", p, sys4(SYS_readlinkat, -100, p, out, sizeof(out)));
		check("chmod", p, sys2(SYS_chmod, p, 0644));
		check("fchmodat", p, sys3(SYS_fchmodat, -100, p, 0644));
		check("chown", p, sys3(SYS_chown, p, 0, 0));
		check("lchown", p, sys3(SYS_lchown, p, 0, 0));
		check("truncate", p, sys2(SYS_truncate, p, 0));
		check("chdir", p, sys1(SYS_chdir, p));
		check("mknod", p, sys3(SYS_mknod, p, 010644, 0));
		check("utimensat path", p, sys4(SYS_utimensat, -100, p, 0, 0));
		check("statfs", p, sys2(SYS_statfs, p, st));
		check("execve", p, sys3(SYS_execve, p, 0, 0));
		check("mount dir", p, sys5(SYS_mount, "none", p, "ramfs", 0, 0));
		check("umount2", p, sys2(SYS_umount2, p, 0));
		/* Buffers. */
		check("read", p, sys3(SYS_read, rfile, p, 1));
		check("pread64", p, sys4(SYS_pread64, rfile, p, 1, 0));
		check("write", p, sys3(SYS_write, file, p, 1));
		check("fstat", p, sys2(SYS_fstat, fd, p));
		check("stat buf", p, sys2(SYS_stat, ".", p));
		check("getdents64", p, sys3(SYS_getdents64, fd, p, 4096));
		check("readlink buf", p, sys3(SYS_readlink, "/bin/sh", p, 64));
		check("getcwd", p, sys2(SYS_getcwd, p, 256));
		check("pipe2", p, sys2(SYS_pipe2, p, 0));
		if (p == 0)
			continue;	/* NULL is a valid "none" for the rest (argv too, on Linux) */
		check("execve argv", p, sys3(SYS_execve, argv[0], p, 0));
		check("utimensat times", p, sys4(SYS_utimensat, -100, "efault-f", p, 0));
		check("rt_sigaction", p, sys4(SYS_rt_sigaction, 10, p, 0, 8));
		check("rt_sigprocmask", p, sys4(SYS_rt_sigprocmask, 0, p, 0, 8));
	}
	buffer_checks(rfile);
	long_reads();
	sys1(SYS_unlink, "efault-f");
	report("misses", misses);
	return misses;
}
