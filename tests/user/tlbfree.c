/*
 * tlbfree ROUNDS: a thread keeps writing into a page while another
 * thread of the process, on another CPU, unmaps it (mmap MAP_FIXED over
 * it, which unmaps the old page first).  The kernel must shoot down the
 * writer's TLB entry before it frees the page: a write through a stale
 * entry lands in a free page, which may already be a file's or a slab's.
 * The program cannot see that itself; the kernel's page poisoning can
 * (debug builds fill each freed user page with a pattern and check it
 * when the page is handed out again, page_alloc.h), and each round the
 * remapping thread touches a fresh page, which takes the last freed page
 * back at once.  The test (tests/test_user.c) counts the poison errors.
 * Prints "rounds N" and "writes N" (the writer's stores, to show it ran).
 */
#include "uthread.h"

#define MAP_PRIVATE 0x02
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define PROT_RW 3
#define ADDR 0x300000000UL
#define SCRATCH 0x310000000UL

static volatile long stop, writes;
static volatile int tid;
static char stack[16384] __attribute__((aligned(16)));

/* Keep storing through the translation of ADDR; count the stores. */
static void writer(long unused)
{
	(void)unused;
	volatile long *page = (volatile long *)ADDR;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < 512; i += 64)
			page[i] = 0x5a5a5a5a5a5a5a5aL;
		__atomic_store_n(&writes, writes + 1, __ATOMIC_RELEASE);
	}
}

/* Until the writer has stored a few more times (through the new page). */
static void wait_for_writer(void)
{
	long seen = __atomic_load_n(&writes, __ATOMIC_ACQUIRE);
	while (__atomic_load_n(&writes, __ATOMIC_ACQUIRE) < seen + 2)
		;
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	long rounds = argc > 1 ? number(argv[1]) : 200;
	if (sys6_mmap(ADDR, 4096, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) != (long)ADDR)
		return 2;
	if (sys6_mmap(SCRATCH, rounds * 4096, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) != (long)SCRATCH)
		return 2;
	if (thread_spawn(writer, 0, stack + sizeof(stack), &tid) < 0)
		return 3;
	for (long r = 0; r < rounds; r++) {
		wait_for_writer();
		if (sys6_mmap(ADDR, 4096, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) != (long)ADDR)
			return 4;
		*(volatile long *)(SCRATCH + r * 4096) = r;	/* takes the freed page back */
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	thread_join(&tid);
	report("rounds", rounds);
	report("writes", writes);
	return 0;
}
