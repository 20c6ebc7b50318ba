/* string.c: memory and string functions (GCC also emits calls to the mem* ones). */
#include "kernel/string.h"
#include "kernel/errno.h"

/*
 * 64-byte blocks of eight loads and eight stores, then eight bytes a move,
 * then the tail.  Under QEMU's TCG every iteration of a string
 * instruction costs about the same, so rep movsq is eight times faster
 * than rep movsb on large copies (a 2 MB execve reads its file through
 * here); an unrolled block, plain moves in one translated block, is
 * faster again: 4 KiB in 2,550 TSC cycles against rep movsq's 3,500
 * (one boot, -smp 1, 3 rounds of 20,000 copies).  A read copies twice
 * (the file into a bounce buffer, that to the user: user/sys_fd.c), so
 * this is most of what a cached 4 KiB pread costs.  This is Linux's
 * choice too on a CPU without fast string moves (copy_user_generic_
 * unrolled), QEMU's default qemu64 being one.
 */
static inline void copy_blocks(uint64_t **d, const uint64_t **s, size_t blocks)
{
	if (!blocks)
		return;
	/* In assembly, as the string instructions were: the race detector
	 * does not watch it (a read racing a write of the same file bytes
	 * may return part of it, DESIGN 13), and the compiler cannot turn
	 * the loop back into a call of memcpy. */
	uint64_t *dd = *d;
	const uint64_t *ss = *s;
	uint64_t a, b, c, e;
	__asm__ volatile("1:\n\t"
			 "movq 0(%[s]), %[a]\n\t"
			 "movq 8(%[s]), %[b]\n\t"
			 "movq 16(%[s]), %[c]\n\t"
			 "movq 24(%[s]), %[e]\n\t"
			 "movq %[a], 0(%[d])\n\t"
			 "movq %[b], 8(%[d])\n\t"
			 "movq %[c], 16(%[d])\n\t"
			 "movq %[e], 24(%[d])\n\t"
			 "movq 32(%[s]), %[a]\n\t"
			 "movq 40(%[s]), %[b]\n\t"
			 "movq 48(%[s]), %[c]\n\t"
			 "movq 56(%[s]), %[e]\n\t"
			 "movq %[a], 32(%[d])\n\t"
			 "movq %[b], 40(%[d])\n\t"
			 "movq %[c], 48(%[d])\n\t"
			 "movq %[e], 56(%[d])\n\t"
			 "addq $64, %[s]\n\t"
			 "addq $64, %[d]\n\t"
			 "decq %[n]\n\t"
			 "jnz 1b"
			 : [d] "+r"(dd), [s] "+r"(ss), [n] "+r"(blocks), [a] "=&r"(a), [b] "=&r"(b),
			   [c] "=&r"(c), [e] "=&r"(e)
			 :
			 : "memory", "cc");
	*d = dd;
	*s = ss;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	void *ret = dst;
	copy_blocks((uint64_t **)&dst, (const uint64_t **)&src, n / 64);
	n %= 64;
	size_t words = n / 8, tail = n % 8;
	__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(words) : : "memory");
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(tail) : : "memory");
	return ret;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	while (n--)	/* overlapping, destination above: copy backwards */
		d[n] = s[n];
	return dst;
}

/* Eight bytes a store, then the tail, as memcpy (and as Linux's memset
 * on a CPU without fast byte strings, QEMU's default qemu64): the slab
 * poisons every object it frees, a dentry's 200 bytes at each, and rep
 * stosb cost TCG an iteration a byte. */
void *memset(void *dst, int c, size_t n)
{
	void *ret = dst;
	uint64_t pattern = 0x0101010101010101ULL * (uint8_t)c;
	size_t words = n / 8, tail = n % 8;
	__asm__ volatile("rep stosq" : "+D"(dst), "+c"(words) : "a"(pattern) : "memory");
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(tail) : "a"(pattern) : "memory");
	return ret;
}

void clear_page(void *page)
{
	size_t n = 4096 / 8;
	__asm__ volatile("rep stosq" : "+D"(page), "+c"(n) : "a"(0UL) : "memory");
}

void copy_page(void *dst, const void *src)
{
	copy_blocks((uint64_t **)&dst, (const uint64_t **)&src, 4096 / 64);
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			break;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (size_t i = 0; i < n; i++)
		if (p[i] == (unsigned char)c)
			return (void *)(p + i);
	return NULL;
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

int hex_digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int parse_u64(const char *s, size_t n, uint64_t *out)
{
	unsigned base = 10;
	size_t i = 0;
	uint64_t v = 0;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (n >= 2 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	if (i == n)
		return -EINVAL;	/* "" or "0x" */
	for (; i < n; i++) {
		int d = hex_digit_value((unsigned char)s[i]);
		if (d < 0 || d >= (int)base)
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return -ERANGE;
		v = v * base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

char *strstr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncmp(hay, needle, n) == 0)
			return (char *)hay;
	return n == 0 ? (char *)hay : NULL;
}
