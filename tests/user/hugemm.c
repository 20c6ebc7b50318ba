/*
 * hugemm MODE: system calls whose size the caller chooses, each far
 * larger than what is mapped.  The kernel's work must follow what is
 * really mapped (or be killable), so each mode finishes at once; before,
 * each looped page by page over terabytes (hours, ignoring SIGKILL).
 *   mprotect   map 64 TiB PROT_NONE, touch two pages, mprotect it whole
 *              twice, unmap it: exit 0
 *   brk        grow the heap by 64 TiB and shrink it back: exit 0
 *   noreplace  mmap 64 TiB MAP_FIXED_NOREPLACE, then unmap: exit 0
 *   bigelf     write an ELF whose one segment claims 127 TiB of memory,
 *              execve it: it exits 42
 *   overlap    an ELF whose read-only and writable segments share a page
 *              (execve changes the page's protection): it exits 42
 *   sendfile   a child copies /dev/zero to /dev/null with a count of
 *              SIZE_MAX; SIGKILL must end it: exit 0 if it died of it
 *   bigwrite   a child writev()s 64 MiB from a fresh anonymous mapping (each
 *              page faulted in on the way) to a file; the parent SIGKILLs it
 *              once the file passed 1 MiB: it must die within one step of
 *              the copy (the file grows by at most 128 KiB after the kill),
 *              not finish the 64 MiB (the ring-3 fuzzer's unkillable writev
 *              went on until memory ran out): exit 0
 *   manyvmas   4096 VMAs (every other page of a mapping read-only), then
 *              200 mmaps with no address, each below all of them: exit 0
 *              (the free-range search was quadratic in the VMAs)
 */
#include "ulib.h"

#define SYS_sendfile 40
#define MAP_PRIVATE 0x02
#define MAP_ANONYMOUS 0x20
#define MAP_FIXED_NOREPLACE 0x100000
#define BIG (64UL << 40)

static int huge_mprotect(void)
{
	long p = sys6_mmap(0, BIG, 0, MAP_PRIVATE | MAP_ANONYMOUS);
	if (p < 0)
		return 2;
	if (sys3(SYS_mprotect, p, BIG, 3) != 0)
		return 3;
	*(volatile char *)p = 1;			/* a page (and tables) at each end */
	*(volatile char *)(p + BIG - 4096) = 1;
	if (sys3(SYS_mprotect, p, BIG, 0) != 0 || sys3(SYS_mprotect, p, BIG, 1) != 0)
		return 4;
	if (*(volatile char *)(p + BIG - 4096) != 1)
		return 5;
	return sys2(SYS_munmap, p, BIG) == 0 ? 0 : 6;
}

static int huge_brk(void)
{
	long cur = sys1(SYS_brk, 0);
	long got = sys1(SYS_brk, cur + (long)BIG);	/* may be refused: it must return */
	if (got != cur && got != cur + (long)BIG)
		return 2;
	return sys1(SYS_brk, cur) == cur ? 0 : 3;
}

static int huge_noreplace(void)
{
	long want = 0x100000000000L;
	long p = sys6_mmap(want, BIG, 0, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE);
	if (p != want)
		return 2;
	if (sys6_mmap(want + (long)BIG - 4096, 4096, 0, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE) != -17)
		return 3;	/* EEXIST: its last page is taken */
	return sys2(SYS_munmap, p, BIG) == 0 ? 0 : 4;
}

static void put(unsigned char *b, int off, unsigned long v, int n)
{
	for (int i = 0; i < n; i++)
		b[off + i] = (unsigned char)(v >> (8 * i));
}

/* An ELF with nph PT_LOADs (offset 0, at 0x400000, flags and sizes
 * given) whose entry runs exit(42); written to path and executed. */
static int run_elf(const char *path, int nph, const unsigned *flags, const unsigned long *memsz)
{
	unsigned char b[256];
	umemset(b, 0, sizeof(b));
	int code = 64 + 56 * nph, size = code + 12;
	b[0] = 0x7f, b[1] = 'E', b[2] = 'L', b[3] = 'F', b[4] = 2, b[5] = 1, b[6] = 1;
	put(b, 16, 2, 2);			/* ET_EXEC */
	put(b, 18, 62, 2);			/* x86-64 */
	put(b, 20, 1, 4);
	put(b, 24, 0x400000 + code, 8);		/* entry */
	put(b, 32, 64, 8);			/* phoff */
	put(b, 52, 64, 2);
	put(b, 54, 56, 2);
	put(b, 56, nph, 2);
	for (int i = 0; i < nph; i++) {
		int ph = 64 + 56 * i;
		put(b, ph, 1, 4);		/* PT_LOAD */
		put(b, ph + 4, flags[i], 4);
		put(b, ph + 16, 0x400000, 8);	/* vaddr (offset 0) */
		put(b, ph + 32, size, 8);	/* filesz */
		put(b, ph + 40, memsz[i] ? memsz[i] : (unsigned long)size, 8);
		put(b, ph + 48, 4096, 8);
	}
	static const unsigned char exit42[] = { 0xb8, 60, 0, 0, 0, 0xbf, 42, 0, 0, 0, 0x0f, 0x05 };
	for (int i = 0; i < 12; i++)
		b[code + i] = exit42[i];
	int fd = (int)sys3(SYS_open, path, 0x241 /* O_WRONLY|O_CREAT|O_TRUNC */, 0755);
	if (fd < 0 || sys3(SYS_write, fd, b, size) != size)
		return 2;
	sys1(SYS_close, fd);
	char *argv[] = { (char *)path, 0 }, *envp[] = { 0 };
	sys3(SYS_execve, path, argv, envp);
	return 3;	/* execve failed */
}

static int many_vmas(void)
{
	long n = 8192, p = sys6_mmap(0, n * 4096, 3, MAP_PRIVATE | MAP_ANONYMOUS);
	if (p < 0)
		return 2;
	for (long i = 0; i < n; i += 2)
		if (sys3(SYS_mprotect, p + i * 4096, 4096, 1) != 0)
			return 3;
	for (int i = 0; i < 200; i++)
		if (sys6_mmap(0, 4096, 3, MAP_PRIVATE | MAP_ANONYMOUS) < 0)
			return 4;
	return 0;
}

static int huge_sendfile(void)
{
	int fds[2];
	if (sys1(SYS_pipe, fds) != 0)
		return 2;
	long pid = sys0(SYS_fork);
	if (pid == 0) {
		int zero = (int)sys2(SYS_open, "/dev/zero", 0), null = (int)sys2(SYS_open, "/dev/null", 1);
		sys3(SYS_write, fds[1], "x", 1);
		sys4(SYS_sendfile, null, zero, 0, -1L);
		return 3;	/* not killed */
	}
	char c;
	if (pid < 0 || sys3(SYS_read, fds[0], &c, 1) != 1)
		return 4;
	long ts[2] = { 0, 50 * 1000 * 1000 };	/* let it get into the copy */
	sys2(SYS_nanosleep, ts, 0);
	sys2(SYS_kill, pid, 9);
	int status = 0;
	if (sys4(SYS_wait4, pid, &status, 0, 0) != pid)
		return 5;
	return (status & 0x7f) == 9 ? 0 : 6;
}

#define SYS_writev 20
#define SYS_lseek 8
#define BIGWRITE (64L << 20)

static long file_size(int fd)
{
	return sys3(SYS_lseek, fd, 0, 2);	/* SEEK_END */
}

static int big_write(void)
{
	int fds[2];
	int out = (int)sys3(SYS_open, "bigwrite.out", 0x241 /* O_WRONLY|O_CREAT|O_TRUNC */, 0644);
	int look = (int)sys2(SYS_open, "bigwrite.out", 0);
	long p = sys6_mmap(0, BIGWRITE, 1 /* PROT_READ */, MAP_PRIVATE | MAP_ANONYMOUS);
	if (out < 0 || look < 0 || p < 0 || sys1(SYS_pipe, fds) != 0)
		return 2;
	long pid = sys0(SYS_fork);
	if (pid == 0) {
		long iov[2] = { p, BIGWRITE };
		sys3(SYS_write, fds[1], "x", 1);
		sys3(SYS_writev, out, iov, 1);
		return 3;	/* not killed */
	}
	char c;
	if (pid < 0 || sys3(SYS_read, fds[0], &c, 1) != 1)
		return 4;
	long ts[2] = { 0, 1000 * 1000 };
	while (file_size(look) < (1L << 20))
		sys2(SYS_nanosleep, ts, 0);
	sys2(SYS_kill, pid, 9);
	long at_kill = file_size(look);	/* after the kill: a step begun before it may end */
	int status = 0;
	if (sys4(SYS_wait4, pid, &status, 0, 0) != pid)
		return 5;
	long after = file_size(look), grew = after - at_kill;
	char b[24];
	puts_fd(1, "bigwrite: ");
	puts_fd(1, utoa(at_kill, b));
	puts_fd(1, " bytes at the kill, ");
	puts_fd(1, utoa(after, b));
	puts_fd(1, " when it died\n");
	sys1(SYS_unlink, "bigwrite.out");
	if ((status & 0x7f) != 9)
		return 6;
	return grew <= (128L << 10) ? 0 : 7;
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc < 2)
		return 100;
	const char *m = argv[1];
	if (!ustrcmp(m, "mprotect"))
		return huge_mprotect();
	if (!ustrcmp(m, "brk"))
		return huge_brk();
	if (!ustrcmp(m, "noreplace"))
		return huge_noreplace();
	if (!ustrcmp(m, "bigelf")) {
		unsigned flags[] = { 5 };			/* R|X */
		unsigned long memsz[] = { 0x7f0000000000UL };	/* 127 TiB */
		return run_elf("bigelf", 1, flags, memsz);
	}
	if (!ustrcmp(m, "overlap")) {
		unsigned flags[] = { 5, 6 };			/* R|X, then R|W on the same page */
		unsigned long memsz[] = { 0, 0 };
		return run_elf("overlap", 2, flags, memsz);
	}
	if (!ustrcmp(m, "sendfile"))
		return huge_sendfile();
	if (!ustrcmp(m, "bigwrite"))
		return big_write();
	if (!ustrcmp(m, "manyvmas"))
		return many_vmas();
	return 101;
}
