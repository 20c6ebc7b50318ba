/* kmalloc.h: the kernel heap: memory of any size. */
#ifndef KERNEL_KMALLOC_H
#define KERNEL_KMALLOC_H

#include <stddef.h>
#include <stdint.h>

/*
 * kmalloc(n) returns n bytes aligned to 8 (16 from 16 bytes up, a page
 * from a page up), or NULL when memory is short or n is absurd: callers
 * must check.  kfree(NULL) does nothing.  Sizes up to 2 KiB come from
 * object caches ("kmalloc-64", ...); larger ones are whole pages.
 */
void *kmalloc(size_t n);
void *kzalloc(size_t n);
void *kcalloc(size_t count, size_t size);   /* NULL if count * size overflows */
void kfree(const void *p);
size_t ksize(const void *p);                /* usable size of an allocation */

void kmalloc_init(void);

#endif
