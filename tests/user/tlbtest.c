/*
 * tlbtest ROUNDS: two threads of one process on (ideally) two CPUs.  The
 * reader keeps reading a page; each round the writer maps a new page over
 * it (mmap MAP_FIXED, which unmaps the old one), writes the round number
 * into it and publishes the round; the reader, once it sees the round,
 * must read that number from the page.  A CPU that kept the old
 * translation (a missed TLB shootdown) reads the old page instead.  The
 * allocator would hand the old physical page straight back to the new
 * mapping, which would hide that, so each round a scratch page is
 * touched (and marked -1) between the remap and the write: it takes the
 * old physical page, and a stale reader reads -1.
 * Prints "stale N" (rounds where the reader saw the old page) and
 * "rounds N".
 */
#include "uthread.h"

#define MAP_PRIVATE 0x02
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define PROT_RW 3
#define ADDR 0x300000000UL
#define SCRATCH 0x310000000UL

static volatile long round, ack, stale, rounds;
static volatile int tid;
static char stack[16384] __attribute__((aligned(16)));

static void reader(long unused)
{
	(void)unused;
	volatile long *page = (volatile long *)ADDR;
	for (long r = 1; r <= rounds; r++) {
		while (__atomic_load_n(&round, __ATOMIC_ACQUIRE) != r)
			(void)*page;	/* keep the translation hot */
		if (*page != r)
			stale++;
		__atomic_store_n(&ack, r, __ATOMIC_RELEASE);
	}
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	rounds = argc > 1 ? number(argv[1]) : 200;
	volatile long *page = (volatile long *)ADDR;
	if (sys6_mmap(ADDR, 4096, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) != (long)ADDR)
		return 2;
	*page = 0;
	if (sys6_mmap(SCRATCH, rounds * 4096, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) != (long)SCRATCH)
		return 2;
	if (thread_spawn(reader, 0, stack + sizeof(stack), &tid) < 0)
		return 3;
	for (long r = 1; r <= rounds; r++) {
		if (sys6_mmap(ADDR, 4096, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED) != (long)ADDR)
			return 4;
		*(volatile long *)(SCRATCH + (r - 1) * 4096) = -1;	/* takes the freed page */
		*page = r;
		__atomic_store_n(&round, r, __ATOMIC_RELEASE);
		while (__atomic_load_n(&ack, __ATOMIC_ACQUIRE) != r)
			;
	}
	thread_join(&tid);
	report("stale", stale);
	report("rounds", rounds);
	return 0;
}
