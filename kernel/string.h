/* string.h: the C library's memory and string functions, for the kernel. */
#ifndef KERNEL_STRING_H
#define KERNEL_STRING_H

#include <stddef.h>
#include <stdint.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
/* Zero one 4 KiB page (page-aligned): eight bytes a store, which under
 * QEMU's TCG is eight times fewer iterations than memset's byte loop. */
void clear_page(void *page);
void copy_page(void *dst, const void *src);   /* one 4 KiB page, eight bytes a move */
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
void *memchr(const void *s, int c, size_t n);
char *strstr(const char *hay, const char *needle);
size_t strlcpy(char *dst, const char *src, size_t size);

/*
 * Parse an unsigned number of n bytes, as C's strtoull with base 0 would
 * (0x.. hex, 0.. octal, else decimal), but all n bytes must be digits.
 * Returns 0, -EINVAL (empty or not a number) or -ERANGE (overflow).
 */
int parse_u64(const char *s, size_t n, uint64_t *out);
/* The value of a hexadecimal digit (either case), or -1. */
int hex_digit_value(int c);

#endif
