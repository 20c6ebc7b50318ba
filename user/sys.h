/*
 * sys.h: the system-call handlers (x64_NAME, one per line of
 * user/syscall_list.h), the SYS_NAME numbers, and what the handlers share.
 */
#ifndef USER_SYS_H
#define USER_SYS_H

#include <stdint.h>
#include "user/syscall.h"
#include "arch/x86_64/trap.h"

#define SC(nr, name, status, note) long x64_##name(struct trap_frame *r);
#include "user/syscall_list.h"
#undef SC

enum {
#define SC(nr, name, status, note) SYS_##name = nr,
#include "user/syscall_list.h"
#undef SC
};

#define AT_FDCWD -100
#define AT_SYMLINK_FOLLOW 0x400
#define AT_REMOVEDIR 0x200
#define AT_EACCESS 0x200
#define AT_EMPTY_PATH 0x1000

/* A path from user memory, in a kernel buffer of PATH_MAX bytes
 * (putname frees it); an ERR_PTR: -EFAULT, or -ENAMETOOLONG. */
char *getname(uint64_t upath);
void putname(char *name);
/* The same, relative to dirfd (AT_FDCWD: the cwd) made into a path the
 * sys_* calls take: absolute paths and AT_FDCWD are kept as they are,
 * others are joined to the directory's path.  -EBADF, -ENOTDIR. */
char *getname_at(int dirfd, uint64_t upath);

long sys_wait4(int pid, uint64_t ustatus, int options, uint64_t rusage);
long sys_rt_sigaction(int sig, uint64_t uact, uint64_t uoact, uint64_t sigsetsize);
long sys_rt_sigprocmask(int how, uint64_t uset, uint64_t uoset, uint64_t sigsetsize);
long sys_rt_sigpending(uint64_t uset, uint64_t sigsetsize);
/* Tests: see sys_proc.c's sleep_ns. */
extern void (*sleep_ns_hook)(uint64_t end);
long sys_rt_sigsuspend(uint64_t umask, uint64_t sigsetsize);
long sys_rt_sigreturn(struct trap_frame *tf);
long sys_pause(void);

#endif
