/*
 * ksyms.c: address-to-name lookups for backtraces.
 *
 * The build links the kernel once, extracts its text symbols with nm
 * (kernel/ksyms.awk), assembles them into the .ksyms section and links
 * again; .ksyms sits after .text, so the second link moves no function.
 */
#include "kernel/ksyms.h"
#include "kernel/kprintf.h"
#include "kernel/layout.h"
#include "arch/x86_64/percpu.h"

extern const uint64_t ksyms_count;
extern const uint64_t ksyms_addrs[];
extern const uint32_t ksyms_name_offsets[];
extern const char ksyms_names[];

const char *ksym_lookup(uint64_t addr, uint64_t *offset)
{
	if (ksyms_count == 0 || addr < ksyms_addrs[0] || addr >= (uint64_t)__text_end)
		return NULL;
	/* Last symbol whose address is <= addr. */
	uint64_t lo = 0, hi = ksyms_count;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (ksyms_addrs[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*offset = addr - ksyms_addrs[lo];
	return ksyms_names + ksyms_name_offsets[lo];
}

static void print_frame(int depth, uint64_t rip)
{
	uint64_t off;
	const char *name = ksym_lookup(rip, &off);

	if (name)
		kprintf("  #%-2d %p %s+0x%lx\n", depth, (void *)rip, name, off);
	else
		kprintf("  #%-2d %p ?\n", depth, (void *)rip);
}

/* A frame pointer we may follow: in the kernel's half, aligned. */
static int frame_ok(uint64_t rbp)
{
	return rbp >= DIRECT_MAP_BASE && (rbp & 7) == 0 && rbp < 0xFFFFFFFFFFFFF000ULL;
}

unsigned backtrace_collect(uint64_t rip, uint64_t rbp, uint64_t *out, unsigned max)
{
	unsigned n = 0;
	if (max)
		out[n++] = rip;
	/* Each frame: [rbp] = caller's rbp, [rbp+8] = return address. */
	while (n < max && frame_ok(rbp)) {
		uint64_t *frame = (uint64_t *)rbp;
		uint64_t ret = frame[1];
		if (ret < (uint64_t)__text_start || ret >= (uint64_t)__text_end)
			break;
		out[n++] = ret - 1;	/* -1: inside the call instruction */
		if (frame[0] <= rbp)
			break;	/* stacks grow down: a caller's frame is higher */
		rbp = frame[0];
	}
	return n;
}

void backtrace_print_addrs(unsigned cpu, const uint64_t *addrs, unsigned n)
{
	kprintf("Backtrace (CPU %u):\n", cpu);
	for (unsigned i = 0; i < n; i++)
		print_frame((int)i, addrs[i]);
}

void backtrace_print(uint64_t rip, uint64_t rbp)
{
	uint64_t addrs[32];
	backtrace_print_addrs(cpu_id(), addrs, backtrace_collect(rip, rbp, addrs, 32));
}
