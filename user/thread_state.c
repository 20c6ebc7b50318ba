/*
 * thread_state.c: a user thread's FPU area and FS/GS bases (see
 * thread_state.h).
 *
 * The FPU registers of the running user thread live in the CPU for as
 * long as it runs, kernel time included (the kernel does not use them);
 * the context switch saves them into t->fpu and loads the next thread's.
 * So reading them (a signal frame) is an fxsave, and changing them
 * (sigreturn, execve) writes the area and loads it, with interrupts off
 * so that no switch comes between.
 */
#include "user/thread_state.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/kmalloc.h"
#include "kernel/mm.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/uaccess.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"

#define FXSAVE_SIZE 512
#define FCW_RESET 0x037f        /* x87 control word after FNINIT */
#define MXCSR_RESET 0x1f80      /* every SSE exception masked */
#define MXCSR_VALID 0xffbf      /* bits the CPU accepts (no DAZ on every CPU: keep it off) */

#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004

static void fpu_reset_image(void *area)
{
	memset(area, 0, FXSAVE_SIZE);
	*(uint16_t *)area = FCW_RESET;
	*(uint32_t *)((char *)area + 24) = MXCSR_RESET;
}

int thread_state_init(struct thread *t)
{
	void *area = kmalloc(FXSAVE_SIZE);
	if (!area)
		return -ENOMEM;
	fpu_reset_image(area);
	unsigned long flags = irq_save();
	t->fpu = area;
	if (t == current_thread())
		fxrstor(area);	/* the switch loads it for everyone else */
	irq_restore(flags);
	return 0;
}

void *fpu_copy_of(struct thread *from)
{
	void *area = kmalloc(FXSAVE_SIZE);
	if (area) {
		fpu_save_current(from);
		memcpy(area, from->fpu, FXSAVE_SIZE);
	}
	return area;
}

void thread_state_release(struct thread *t)
{
	unsigned long flags = irq_save();
	void *area = t->fpu;
	t->fpu = NULL;
	irq_restore(flags);
	kfree(area);
}

void fpu_save_current(struct thread *t)
{
	unsigned long flags = irq_save();
	fxsave(t->fpu);
	irq_restore(flags);
}

int fpu_restore_from_user(struct thread *t, uint64_t ufpstate)
{
	char img[FXSAVE_SIZE] __attribute__((aligned(16)));
	if (copy_from_user(img, ufpstate, FXSAVE_SIZE))
		return -EFAULT;
	if (*(uint32_t *)(img + 24) & ~MXCSR_VALID)
		return -EFAULT;		/* fxrstor would fault in the kernel */
	unsigned long flags = irq_save();
	memcpy(t->fpu, img, FXSAVE_SIZE);
	fxrstor(t->fpu);
	irq_restore(flags);
	return 0;
}

void exec_reset_cpu_state(struct thread *t)
{
	unsigned long flags = irq_save();
	fpu_reset_image(t->fpu);
	fxrstor(t->fpu);
	t->fs_base = t->gs_base = 0;
	wrmsr(MSR_FS_BASE, 0);
	wrmsr(MSR_KERNEL_GS_BASE, 0);	/* the user's GS base while in the kernel */
	irq_restore(flags);
}

long sys_arch_prctl(int code, uint64_t addr)
{
	struct thread *t = current_thread();
	switch (code) {
	case ARCH_SET_FS:
	case ARCH_SET_GS: {
		if (addr >= USER_TOP)
			return -EPERM;	/* Linux: a user address only */
		unsigned long flags = irq_save();
		if (code == ARCH_SET_FS) {
			t->fs_base = addr;
			wrmsr(MSR_FS_BASE, addr);
		} else {
			t->gs_base = addr;
			wrmsr(MSR_KERNEL_GS_BASE, addr);
		}
		irq_restore(flags);
		return 0;
	}
	case ARCH_GET_FS:
		return put_user(t->fs_base, (uint64_t *)addr);
	case ARCH_GET_GS:
		return put_user(t->gs_base, (uint64_t *)addr);
	default:
		return -EINVAL;
	}
}

void return_to_user(struct trap_frame *frame)
{
	irq_disable();
	trap_exit_to_user(frame);
	audit_user_return(frame);
	user_enter(frame);
}
