/*
 * faults: make one fault, chosen by argv[1]: null (read address 0), ud2,
 * div0, wtext (write to its own read-only code), jump0 (call address 0),
 * kaddr (read a kernel address), wild (read 0x1234567000).  The caller
 * checks that it died of the right signal; "ok" means it must not die.
 */
#include "ulib.h"

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
	if (!ustrcmp(w, "ok"))
		return 0;
	return 3;
}
