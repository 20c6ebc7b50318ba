/*
 * main.c: the boot CPU's path from the boot code to the tests.
 *
 * Order matters: the per-CPU area first (spinlocks and kprintf use it),
 * then the console, the boot information, memory (bootmem -> direct map
 * -> page allocator -> object caches), interrupts, the local APIC and
 * its timer, the other CPUs, and finally the self-tests.
 */
#include "init/devices.h"
#include "init/initramfs.h"
#include "fs/proc/proc.h"
#include "user/process.h"
#include "user/tty.h"
#include "fs/vfs.h"
#include "fs/buffer.h"
#include "drivers/pci.h"
#include "drivers/virtio.h"
#include "drivers/virtio_9p.h"
#include "bench/bench.h"
#include "kernel/bootinfo.h"
#include "kernel/bootmem.h"
#include "kernel/cmdline.h"
#include "kernel/errno.h"
#include "kernel/err.h"
#include "fs/syscalls.h"
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
#include "kernel/mm.h"
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
#include "kernel/trace.h"

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

static char init_path[128];

static int set_init(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	(void)p;
	if (len == 0 || len >= sizeof(init_path) || val[0] != '/') {
		snprintf(why, n, "expected an absolute path of at most %zu bytes", sizeof(init_path) - 1);
		return -EINVAL;
	}
	memcpy(init_path, val, len);
	init_path[len] = '\0';
	return 0;
}
KPARAM("init", set_init, init_path, 0, 0,
       "a user program to run on the console after the tests, instead of the serial shell "
       "(e.g. /bin/sh); when it ends, after= decides what follows");

/*
 * init=: the program runs on the console as the first user process (PID 1
 * if nothing ran before it), and this thread, which owns the UART, passes
 * every byte typed to the console terminal until it ends.  Its wait
 * status, or -1 if it could not be started.
 */
static int run_init(void)
{
	char *const argv[] = { init_path, NULL };
	char *const envp[] = { "PATH=/bin:/sbin:/usr/bin:/usr/sbin", "HOME=/", "TERM=vt100", NULL };
	int tty = tty_open_console();
	struct signal_struct *p = tty < 0 ? ERR_PTR(tty) :
				  process_spawn(init_path, argv, envp, tty, tty, tty, SPAWN_TTY_FOREGROUND);
	if (tty >= 0)
		sys_close(tty);
	if (IS_ERR(p)) {
		kprintf("init: cannot run %s: %s\n", init_path, errno_name((int)PTR_ERR(p)));
		return -1;
	}
	kprintf("init: %s is running (PID %u)\n", init_path, p->pid);
	while (process_alive(p)) {
		int c = serial_getc_nonblock();
		if (c >= 0)
			tty_receive((char)c);
		else
			sleep_ms(10);
	}
	int status = process_wait(p);
	process_put(p);
	kprintf("init: %s ended with wait status 0x%x\n", init_path, (unsigned)status);
	return status;
}

/* After the tests (and benchmarks): script=, then what after= says. */
static void finish(unsigned failed)
{
	int script_status = shell_boot_script();	/* 0 without script= */
	if (init_path[0])
		script_status = run_init();
	trace_boot_dump();	/* trace=: the trace, for the host to cut out */
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
	mm_init();

	cpu_setup_stacks(0);
	gdt_init_cpu(&cpus[0]);
	cpu_user_init();
	idt_enable_ist();
	pic_disable();
	cmdline_init(boot_info.cmdline);
	spin_lock_setup();

	acpi_init();
	lapic_init();
	cpus[0].apic_id = lapic_id();
	apic_ready = true;
	time_init();
	rtc_init();
	sched_init();		/* from here on, kmain is the thread "main" */
	rcu_init();
	vfs_init();
	process_init();		/* user mode: system calls, signals, the console tty */
	timer_init_cpu();
	irq_enable();
	kprintf("cpu0: APIC id %u online (boot CPU)\n", cpus[0].apic_id);
	__atomic_store_n(&cpus[0].online, true, __ATOMIC_RELEASE);

	smp_call_init();
	smp_boot();
	slab_cpus_init();	/* a magazine in every cache for every CPU */
	trace_boot_start();	/* trace=: every CPU is up */
	rcu_start_threads();	/* a callback thread on every CPU */
	kcsan_start();		/* KCSAN=1: every CPU is up */
	pci_init();
	virtio_blk_init();	/* disks, before anything mounts one */
	virtio_9p_init();	/* 9P channels (-virtfs), found by mount tag */
	bdflush_start();
	initramfs_unpack_modules();	/* into the root, before the tests read it */
	devices_populate();
	proc_mount_boot();	/* /proc, as a distribution's init mounts it */
	unsigned failed = ktest_run_selected();
	bench_run_selected();
	finish(failed);
}
