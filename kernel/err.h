/* err.h: returning a pointer or a negative errno in one value, as Linux
 * does: the top 4095 addresses are never valid kernel pointers. */
#ifndef KERNEL_ERR_H
#define KERNEL_ERR_H

#include <stdbool.h>
#include <stdint.h>

#define MAX_ERRNO 4095

static inline void *ERR_PTR(long err)
{
	return (void *)err;
}

static inline long PTR_ERR(const void *p)
{
	return (long)p;
}

static inline bool IS_ERR(const void *p)
{
	return (uintptr_t)p >= (uintptr_t)-MAX_ERRNO;
}

#endif
