/*
 * uaccess.h: copying between the kernel and the current thread's user
 * memory.
 *
 * A user pointer is never dereferenced directly: these functions check
 * that the range lies in user space (below USER_TOP; a kernel address is
 * refused like an unmapped one), and the copy itself may fault: the
 * page-fault handler makes a page its VMA allows present, and anything
 * else continues at the instruction's fixup (arch/x86_64/uaccess.S), so a
 * bad pointer gives -EFAULT and never a kernel crash.  They may sleep (a
 * page fault allocates): never call them under a spinlock.
 *
 * Linux's contracts: copy_from_user / copy_to_user / clear_user return
 * the number of bytes NOT copied (0 on success); fault_in_writeable
 * makes every page of a range present and writable without changing a
 * byte, and returns the bytes from the first page it could not (0: all); strncpy_from_user
 * returns the length copied without the NUL (n if no NUL within n bytes:
 * the caller decides, usually -ENAMETOOLONG) or -EFAULT.
 */
#ifndef KERNEL_UACCESS_H
#define KERNEL_UACCESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "kernel/mm.h"

static inline bool access_ok(uint64_t addr, uint64_t n)
{
	return addr <= USER_TOP && n <= USER_TOP - addr;
}

size_t copy_from_user(void *dst, uint64_t usrc, size_t n);
size_t copy_to_user(uint64_t udst, const void *src, size_t n);
size_t clear_user(uint64_t udst, size_t n);
size_t fault_in_writeable(uint64_t udst, size_t n);
/* Linux's contract too: copy_to_user that never sleeps and never makes a
 * page present (preemption off across it: the fault handler then sends
 * every fault to the fixup).  Callable under RCU or a spinlock; a page
 * not present and writable now fails it, and the caller goes another way
 * (user/sys_fd.c: the bounce buffer). */
size_t copy_to_user_nofault(uint64_t udst, const void *src, size_t n);
size_t clear_user_nofault(uint64_t udst, size_t n);
long strncpy_from_user(char *dst, uint64_t usrc, size_t n);

/* One value, in or out: 0 or -EFAULT. */
#define get_user(x, uptr) (copy_from_user(&(x), (uint64_t)(uptr), sizeof(x)) ? -EFAULT : 0)
#define put_user(x, uptr) ({ __typeof__(x) __v = (x); \
	copy_to_user((uint64_t)(uptr), &__v, sizeof(__v)) ? -EFAULT : 0; })

#endif
