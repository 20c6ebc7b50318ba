/*
 * syscall.h: the Linux x86-64 system-call ABI: the table, its status, and
 * the handlers' shape.
 *
 * A handler gets the saved user registers (the arguments in rdi, rsi,
 * rdx, r10, r8, r9, in that order) and returns the result or a negative
 * errno, which the dispatcher puts in rax.  The table says, for each
 * number smpvfs knows, its name, how complete it is (SC_FULL: Linux's
 * contract; SC_PARTIAL: the note says what is missing), and the handler;
 * every other number returns -ENOSYS.  docs/SYSCALLS.md is generated
 * from it (tools/syscalls_doc.py), so the two cannot disagree.
 */
#ifndef USER_SYSCALL_H
#define USER_SYSCALL_H

#include <stdint.h>

struct trap_frame;
typedef long (*syscall_fn)(struct trap_frame *r);

enum sc_status { SC_FULL = 1, SC_PARTIAL = 2 };

struct syscall_entry {
	const char *name;
	syscall_fn fn;
	enum sc_status status;
	const char *note;
};

#define NR_SYSCALLS 452
extern const struct syscall_entry syscall_table[NR_SYSCALLS];

#define ARG1(r) ((r)->rdi)
#define ARG2(r) ((r)->rsi)
#define ARG3(r) ((r)->rdx)
#define ARG4(r) ((r)->r10)
#define ARG5(r) ((r)->r8)
#define ARG6(r) ((r)->r9)

/* Counters, for tests and the shell: calls made, and calls of numbers
 * smpvfs does not know (they returned -ENOSYS). */
uint64_t syscall_count(void);
uint64_t syscall_enosys_count(void);

void futex_init(void);
long sys_futex(uint64_t uaddr, int op, uint32_t val, uint64_t utimeout);

#endif
