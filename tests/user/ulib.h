/*
 * ulib.h: what the user-mode test programs need, with no C library: the
 * entry point, system calls by number, and a few string helpers.  They
 * are built by the host's gcc (-static -nostdlib) into Linux x86-64
 * executables (Makefile: build/user/), so they run on Linux as they do
 * on smpvfs.
 */
#ifndef ULIB_H
#define ULIB_H

typedef unsigned long size_t;
typedef long ssize_t;
typedef unsigned long uint64_t;
typedef unsigned int uint32_t;
typedef int int32_t;

#define SYS_read 0
#define SYS_write 1
#define SYS_open 2
#define SYS_close 3
#define SYS_stat 4
#define SYS_fstat 5
#define SYS_lstat 6
#define SYS_mmap 9
#define SYS_mprotect 10
#define SYS_lseek 8
#define SYS_munmap 11
#define SYS_brk 12
#define SYS_rt_sigaction 13
#define SYS_rt_sigprocmask 14
#define SYS_rt_sigreturn 15
#define SYS_pread64 17
#define SYS_access 21
#define SYS_pipe 22
#define SYS_sched_yield 24
#define SYS_dup2 33
#define SYS_pause 34
#define SYS_nanosleep 35
#define SYS_getpid 39
#define SYS_clone 56
#define SYS_fork 57
#define SYS_execve 59
#define SYS_exit 60
#define SYS_wait4 61
#define SYS_kill 62
#define SYS_fcntl 72
#define SYS_truncate 76
#define SYS_getcwd 79
#define SYS_chdir 80
#define SYS_rename 82
#define SYS_mkdir 83
#define SYS_rmdir 84
#define SYS_creat 85
#define SYS_link 86
#define SYS_unlink 87
#define SYS_symlink 88
#define SYS_readlink 89
#define SYS_chmod 90
#define SYS_chown 92
#define SYS_lchown 94
#define SYS_getppid 110
#define SYS_setpgid 109
#define SYS_mknod 133
#define SYS_statfs 137
#define SYS_mount 165
#define SYS_umount2 166
#define SYS_gettid 186
#define SYS_futex 202
#define SYS_getdents64 217
#define SYS_exit_group 231
#define SYS_tgkill 234
#define SYS_openat 257
#define SYS_mkdirat 258
#define SYS_newfstatat 262
#define SYS_unlinkat 263
#define SYS_renameat 264
#define SYS_linkat 265
#define SYS_symlinkat 266
#define SYS_readlinkat 267
#define SYS_fchmodat 268
#define SYS_faccessat 269
#define SYS_utimensat 280
#define SYS_pipe2 293

static inline long syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#define sys0(n) syscall6(n, 0, 0, 0, 0, 0, 0)
#define sys1(n, a) syscall6(n, (long)(a), 0, 0, 0, 0, 0)
#define sys2(n, a, b) syscall6(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define sys3(n, a, b, c) syscall6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define sys4(n, a, b, c, d) syscall6(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define sys5(n, a, b, c, d, e) syscall6(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)
/* mmap with no file. */
#define sys6_mmap(addr, len, prot, flags) syscall6(SYS_mmap, (long)(addr), (long)(len), (prot), (flags), -1, 0)

/* Each program defines main(argc, argv, envp); _start calls it and exits
 * with its result. */
int main(int argc, char **argv, char **envp);
__attribute__((noreturn)) static void exit_group(int code)
{
	for (;;)
		sys1(SYS_exit_group, code);
}
void start_c(long *sp);
__attribute__((used)) void start_c(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	exit_group(main(argc, argv, argv + argc + 1));
}
__asm__(".global _start\n_start:\n\txorl %ebp, %ebp\n\tmovq %rsp, %rdi\n\tandq $-16, %rsp\n\tcall start_c\n\tud2\n");

static inline size_t ustrlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static inline int ustrcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

static inline void puts_fd(int fd, const char *s)
{
	sys3(SYS_write, fd, s, ustrlen(s));
}

/* n in decimal into buf (at least 21 bytes); returns buf. */
static inline char *utoa(long n, char *buf)
{
	char tmp[24];
	int i = 0, j = 0;
	unsigned long u = n < 0 ? -(unsigned long)n : (unsigned long)n;
	do
		tmp[i++] = (char)('0' + u % 10);
	while (u /= 10);
	if (n < 0)
		buf[j++] = '-';
	while (i)
		buf[j++] = tmp[--i];
	buf[j] = 0;
	return buf;
}

/* "label value\n" on stdout. */
static inline void report(const char *label, long v)
{
	char buf[24];
	puts_fd(1, label);
	puts_fd(1, " ");
	puts_fd(1, utoa(v, buf));
	puts_fd(1, "\n");
}

static inline void *umemset(void *d, int c, size_t n)
{
	char *p = d;
	while (n--)
		*p++ = (char)c;
	return d;
}

/* The signal trampoline: rt_sigreturn. */
__asm__(".global sig_restorer\nsig_restorer:\n\tmovq $15, %rax\n\tsyscall\n\tud2\n");
void sig_restorer(void);

struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};
#define SA_RESTORER 0x04000000
#define SA_RESTART 0x10000000

static inline long set_handler(int sig, void (*h)(int), unsigned long flags)
{
	struct ksigaction sa = { h, flags | SA_RESTORER, sig_restorer, 0 };
	return sys4(SYS_rt_sigaction, sig, &sa, 0, 8);
}

/* Wait status decoding (as <sys/wait.h>). */
#define WIFEXITED(s) (((s) & 0x7f) == 0)
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define WTERMSIG(s) ((s) & 0x7f)

#endif
