/* setjmp.h: saving and resuming a kernel execution context (callee-saved
 * registers, stack and return point), as C's setjmp/longjmp do. */
#ifndef ARCH_SETJMP_H
#define ARCH_SETJMP_H

struct jmp_buf {
	unsigned long rbx, rbp, r12, r13, r14, r15, rsp, rip;
};

/* Returns 0 when saving; the value given to longjmp when resumed. */
int setjmp(struct jmp_buf *b) __attribute__((returns_twice));
__attribute__((noreturn)) void longjmp(struct jmp_buf *b, int value);

#endif
