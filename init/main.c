/*
 * main.c: the boot CPU's path from the boot code to the tests.
 *
 * Order matters: the per-CPU area first (spinlocks and kprintf use it),
 * then the console, the boot information, memory (bootmem -> direct map
 * -> page allocator -> object caches), interrupts, the local APIC and
 * its timer, the other CPUs, and finally the self-tests.
 */
#include "init/initramfs.h"
#include "fs/vfs.h"
#include "bench/bench.h"
#include "kernel/bootinfo.h"
#include "kernel/bootmem.h"
#include "kernel/cmdline.h"
#include "kernel/errno.h"
#include "kernel/kcsan.h"
#include "kernel/kprintf.h"
#include "kernel/ktimer.h"
#include "kernel/sched.h"
#include "shell/shell.h"
#include "kernel/thread.h"
#include "kernel/ktest.h"
#include "kernel/page_alloc.h"
#include "kernel/panic.h"
#include "kernel/slab.h"
#include "kernel/smp_call.h"
#include "kernel/rcu.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/vm.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/pic.h"
#include "arch/x86_64/poweroff.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/trap.h"

#define SMPVFS_VERSION "0.1"

extern bool apic_ready;

static char after[16] = "shell";

static int set_after(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	(void)p;
	static const char *const choices[] = { "shell", "poweroff", "halt" };
	for (unsigned i = 0; i < 3; i++)
		if (strlen(choices[i]) == len && strncmp(choices[i], val, len) == 0) {
			strlcpy(after, choices[i], sizeof(after));
			return 0;
		}
	snprintf(why, n, "expected shell, poweroff or halt");
	return -EINVAL;
}
KPARAM("after", set_after, after, 0, 0,
       "what to do when the self-tests end: shell (default), poweroff (exit QEMU with the test status) or halt");

/* After the tests (and benchmarks): script=, then what after= says. */
static void finish(unsigned failed)
{
	int script_status = shell_boot_script();	/* 0 without script= */
	if (strcmp(after, "poweroff") == 0) {
		kprintf("smpvfs: powering off (%s)\n", failed ? "tests failed" :
			script_status ? "the script failed" : "all tests passed");
		machine_exit(failed == 0 && script_status == 0);
	}
	if (strcmp(after, "shell") == 0)
		shell_main();
	kprintf("smpvfs: halted (Ctrl-A X quits QEMU)\n");
	for (;;)
		safe_halt();
}

void kmain(uint32_t magic, uint32_t mbi);
void kmain(uint32_t magic, uint32_t mbi)
{
	percpu_init(&cpus[0]);
	serial_init();
	idt_init();
	idt_load();
	kprintf("\nsmpvfs %s: an SMP kernel for parallel VFS lookups\n", SMPVFS_VERSION);

	if (multiboot2_parse(magic, mbi) < 0)
		panic("cannot read the boot information");
	kprintf("boot: loader '%s', command line '%s'%s\n", boot_info.loader, boot_info.cmdline,
		boot_info.cmdline_truncated ? " (truncated)" : "");

	smp_reserve_trampoline();
	bootmem_init();
	vm_init();
	page_alloc_init();
	slab_init();
	ktimer_init_all();
	thread_init();

	cpu_setup_stacks(0);
	gdt_init_cpu(&cpus[0]);
	idt_enable_ist();
	pic_disable();
	cmdline_init(boot_info.cmdline);

	acpi_init();
	lapic_init();
	cpus[0].apic_id = lapic_id();
	apic_ready = true;
	time_init();
	rtc_init();
	sched_init();		/* from here on, kmain is the thread "main" */
	rcu_init();
	vfs_init();
	timer_init_cpu();
	irq_enable();
	kprintf("cpu0: APIC id %u online (boot CPU)\n", cpus[0].apic_id);
	__atomic_store_n(&cpus[0].online, true, __ATOMIC_RELEASE);

	smp_call_init();
	smp_boot();
	slab_cpus_init();	/* a magazine in every cache for every CPU */
	rcu_start_threads();	/* a callback thread on every CPU */
	kcsan_start();		/* KCSAN=1: every CPU is up */
	initramfs_unpack_modules();	/* into the root, before the tests read it */
	unsigned failed = ktest_run_selected();
	bench_run_selected();
	finish(failed);
}
