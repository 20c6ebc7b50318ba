/*
 * faults: make one fault, chosen by argv[1]: null (read address 0), ud2,
 * div0, wtext (write to its own read-only code), jump0 (call address 0),
 * kaddr (read a kernel address), wild (read 0x1234567000), protnone (read
 * a page it wrote, after mprotect PROT_NONE: Linux faults), sidt (read
 * the IDT's address: UMIP makes it fault).  The caller
 * checks that it died of the right signal; "ok" means it must not die.
 * "patch" and "callpatched": see patched().
 */
#include "ulib.h"

/* "patch" writes a breakpoint over it in its own copy of the text;
 * "callpatched" calls it: another process's patch must not show. */
__attribute__((noinline)) int patched(void);
__attribute__((noinline)) int patched(void)
{
	__asm__ volatile("");
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc < 2)
		return 2;
	const char *w = argv[1];
	if (!ustrcmp(w, "null"))
		return *(volatile int *)0;
	if (!ustrcmp(w, "ud2"))
		__asm__ volatile("ud2");
	if (!ustrcmp(w, "div0"))
		__asm__ volatile("xorl %%ecx, %%ecx; movl $1, %%eax; cltd; idivl %%ecx" ::: "eax", "ecx", "edx");
	if (!ustrcmp(w, "wtext")) {
		*(volatile char *)(void *)main = 0;
		return 1;
	}
	if (!ustrcmp(w, "jump0"))
		((void (*)(void))0)();
	if (!ustrcmp(w, "kaddr"))
		return *(volatile int *)0xffffffff80100000UL;
	if (!ustrcmp(w, "wild"))
		return *(volatile int *)0x1234567000UL;
	if (!ustrcmp(w, "protnone")) {
		volatile long *p = (volatile long *)sys6_mmap(0, 4096, 3, 0x22);	/* RW, private anon */
		if ((long)p < 0)
			return 4;
		*p = 42;	/* the page is there */
		if (sys3(SYS_mprotect, (long)p, 4096, 0) != 0)
			return 5;
		return (int)*p;	/* must fault */
	}
	if (!ustrcmp(w, "sidt")) {
		unsigned char idtr[10];
		__asm__ volatile("sidt %0" : "=m"(idtr));
		return 0;
	}
	if (!ustrcmp(w, "ok"))
		return 0;
	if (!ustrcmp(w, "patch")) {
		unsigned long page = (unsigned long)patched & ~4095UL;
		if (sys3(SYS_mprotect, page, 4096, 7) != 0)
			return 4;
		*(volatile unsigned char *)(void *)patched = 0xcc;
		return 0;
	}
	if (!ustrcmp(w, "callpatched"))
		return patched();
	return 3;
}
