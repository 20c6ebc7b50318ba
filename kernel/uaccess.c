/*
 * uaccess.c: the checks in front of the user copies (see uaccess.h;
 * the copies themselves are arch/x86_64/uaccess.S).
 */
#include "kernel/uaccess.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/preempt.h"
#include "kernel/sched.h"

size_t __copy_user(void *dst, const void *src, size_t n);
size_t __clear_user(void *dst, size_t n);
int __probe_user_write(void *p);
long __strncpy_from_user(char *dst, const char *src, size_t n);

size_t copy_from_user(void *dst, uint64_t usrc, size_t n)
{
	might_sleep();
	if (!access_ok(usrc, n))
		return n;
	return __copy_user(dst, (const void *)usrc, n);
}

size_t copy_to_user(uint64_t udst, const void *src, size_t n)
{
	might_sleep();
	if (!access_ok(udst, n))
		return n;
	return __copy_user((void *)udst, src, n);
}

size_t clear_user(uint64_t udst, size_t n)
{
	might_sleep();
	if (!access_ok(udst, n))
		return n;
	return __clear_user((void *)udst, n);
}

size_t copy_to_user_nofault(uint64_t udst, const void *src, size_t n)
{
	if (!access_ok(udst, n))
		return n;
	preempt_disable();	/* do_page_fault: no sleeping, so no handling */
	size_t left = __copy_user((void *)udst, src, n);
	preempt_enable();
	return left;
}

size_t clear_user_nofault(uint64_t udst, size_t n)
{
	if (!access_ok(udst, n))
		return n;
	preempt_disable();
	size_t left = __clear_user((void *)udst, n);
	preempt_enable();
	return left;
}

size_t fault_in_writeable(uint64_t udst, size_t n)
{
	might_sleep();
	if (!access_ok(udst, n))
		return n;
	uint64_t end = udst + n;
	for (uint64_t p = udst; p < end; p = (p & ~(uint64_t)(PAGE_SIZE - 1)) + PAGE_SIZE)
		if (__probe_user_write((void *)p))
			return end - p;
	return 0;
}

long strncpy_from_user(char *dst, uint64_t usrc, size_t n)
{
	might_sleep();
	if (usrc >= USER_TOP)
		return -EFAULT;
	size_t room = USER_TOP - usrc;	/* never read past the user half */
	long r = __strncpy_from_user(dst, (const char *)usrc, n < room ? n : room);
	if (r < 0 || (n > room && (size_t)r == room))
		return -EFAULT;		/* faulted, or ran into the kernel's half */
	return r;
}
