/*
 * trace.c: the tracer's rings, its control, and ftrace's text format
 * (trace.h says what it is for and how recording stays lock-free).
 *
 * Locks:
 *   ctl_lock (a mutex)   starting, stopping, clearing and printing: one at
 *                        a time, so a print never sees rings being
 *                        allocated or cleared under it.
 *   (none)               recording: each CPU's ring is written only by
 *                        that CPU, with interrupts off; ring->busy tells
 *                        a reader that a record is under way.
 *
 * The ordering between a recorder and a reader that turns recording off
 * (trace_quiesce) is Dekker's: the recorder stores busy = 1, fences, then
 * loads trace_mask; the reader stores trace_mask = 0, fences, then loads
 * each busy.  At least one of them sees the other's store: either the
 * recorder sees the mask off and records nothing, or the reader sees busy
 * and waits for the record to end.
 */
#include "kernel/trace.h"
#include "kernel/cmdline.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/mutex.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/time.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

#define TRACE_STR  32
#define TRACE_COMM 16   /* Linux's TASK_COMM_LEN: 15 characters and the NUL */

struct trace_entry {
	uint64_t tsc;
	uint64_t a[4];
	uint32_t pid;
	uint16_t ev;
	uint8_t irqs_off, hardirq;
	uint8_t preempt;
	char comm[TRACE_COMM];
	char str[TRACE_STR];
};

/* One CPU's ring: written by that CPU only (head, written, the entries),
 * read by trace_print once recording is quiet. */
struct trace_ring {
	struct trace_entry *buf;
	uint64_t head;             /* entries ever recorded since the last clear */
	bool busy;                 /* a record is under way (see the top) */
} __attribute__((aligned(64)));

unsigned trace_mask;
static struct trace_ring rings[MAX_CPUS];
static unsigned ring_cpus;         /* rings allocated, for CPUs 0 .. ring_cpus-1 */
static struct mutex ctl_lock = MUTEX_INIT(ctl_lock, "trace.ctl_lock");

/* Command line: trace=CLASSES starts tracing at boot; trace.entries sizes
 * each CPU's ring. */
static unsigned boot_mask;
static uint64_t ring_entries = 8192;
KPARAM("trace.entries", kparam_set_u64, ring_entries, 64, 1 << 20,
       "entries in each CPU's trace ring (96 bytes each); the oldest are overwritten when it is full");

static const struct {
	const char *name;
	unsigned bit;
} classes[] = {
	{ "lookup", TRC_LOOKUP }, { "inlookup", TRC_INLOOKUP }, { "rwsem", TRC_RWSEM },
	{ "fs", TRC_FS }, { "buffer", TRC_BUFFER }, { "block", TRC_BLOCK },
	{ "rcuwalk", TRC_RCUWALK }, { "syscall", TRC_SYSCALL }, { "all", TRC_ALL },
};

unsigned trace_parse_classes(const char *list, const char **bad, unsigned *badlen)
{
	unsigned mask = 0;
	const char *p = list;
	while (*p) {
		size_t n = 0;
		while (p[n] && p[n] != ',')
			n++;
		unsigned bit = 0;
		for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
			if (strlen(classes[i].name) == n && memcmp(classes[i].name, p, n) == 0)
				bit = classes[i].bit;
		if (!bit) {
			*bad = p;
			*badlen = (unsigned)n;
			return 0;
		}
		mask |= bit;
		p += n;
		if (*p == ',')
			p++;
	}
	if (!mask) {
		*bad = list;
		*badlen = 0;
	}
	return mask;
}

/* The classes of mask as trace= names them, comma-separated ("" for none;
 * cut short if buf is too small). */
void trace_classes_string(unsigned mask, char *buf, unsigned n)
{
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i + 1 < sizeof(classes) / sizeof(classes[0]) && len + 1 < n; i++)
		if (mask & classes[i].bit)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "," : "", classes[i].name);
}

static int set_trace(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	(void)p;
	char list[128];
	if (len >= sizeof(list)) {
		snprintf(why, n, "too long");
		return -EINVAL;
	}
	memcpy(list, val, len);
	list[len] = 0;
	const char *bad;
	unsigned badlen;
	unsigned mask = trace_parse_classes(list, &bad, &badlen);
	if (!mask) {
		snprintf(why, n, "unknown class '%.*s' (lookup, inlookup, rwsem, fs, buffer, block, "
			 "rcuwalk, syscall, all)", (int)badlen, bad);
		return -EINVAL;
	}
	boot_mask = mask;
	return 0;
}
KPARAM("trace", set_trace, boot_mask, 0, 0,
       "trace events from the boot on, CLASS[,CLASS...] of lookup, inlookup, rwsem, fs, buffer, block, "
       "rcuwalk, syscall, all; dumped in ftrace's format when the boot ends (docs/design/17-tracing.md)");

/* ---- recording ------------------------------------------------------------ */

static void copy_str(char *dst, const char *src, unsigned len)
{
	unsigned i = 0;
	if (src)
		for (; i < TRACE_STR - 1 && (len == TRACE_NUL || i < len) && src[i]; i++)
			dst[i] = src[i];
	dst[i] = 0;
}

void trace_record(enum trace_event ev, const char *str, unsigned len, uint64_t a0, uint64_t a1,
		  uint64_t a2, uint64_t a3)
{
	if ((unsigned)ev >= NR_TRACE_EVENTS)
		return;
	unsigned long was_on = irq_save();	/* this CPU's ring is ours until irq_restore */
	uint64_t tsc = rdtsc();	/* inside: an interrupt's entry cannot come between, older */
	struct cpu *c = this_cpu();
	struct trace_ring *r = &rings[c->id];
	__atomic_store_n(&r->busy, true, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* busy before the mask: see the top */
	if (__atomic_load_n(&trace_mask, __ATOMIC_RELAXED) && r->buf) {
		struct trace_entry *e = &r->buf[r->head % ring_entries];
		struct thread *t = c->current;
		e->tsc = tsc;
		e->a[0] = a0, e->a[1] = a1, e->a[2] = a2, e->a[3] = a3;
		e->pid = t ? t->tid : 0;
		e->ev = (uint16_t)ev;
		e->irqs_off = !was_on;
		e->hardirq = c->irq_depth > 0;
		e->preempt = (uint8_t)(c->preempt_count > 15 ? 15 : c->preempt_count);
		strlcpy(e->comm, t ? t->name : "<idle>", sizeof(e->comm));
		copy_str(e->str, str, len);
		__atomic_store_n(&r->head, r->head + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&r->busy, false, __ATOMIC_RELEASE);
	irq_restore(was_on);
}

/* Turn recording off and wait until no CPU is inside trace_record. */
static void trace_quiesce(void)
{
	__atomic_store_n(&trace_mask, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned i = 0; i < ring_cpus; i++)
		while (__atomic_load_n(&rings[i].busy, __ATOMIC_ACQUIRE))
			cpu_relax();
}

/* ---- control -------------------------------------------------------------- */

static int alloc_rings(void)
{
	for (unsigned i = ring_cpus; i < ncpus; i++) {
		rings[i].buf = kmalloc(ring_entries * sizeof(struct trace_entry));
		if (!rings[i].buf)
			return -ENOMEM;
		rings[i].head = 0;
		ring_cpus = i + 1;
	}
	return 0;
}

int trace_start(unsigned mask)
{
	mutex_lock(&ctl_lock);
	int err = alloc_rings();
	if (!err)
		__atomic_store_n(&trace_mask, mask, __ATOMIC_RELAXED);
	mutex_unlock(&ctl_lock);
	return err;
}

void trace_stop(void)
{
	mutex_lock(&ctl_lock);
	trace_quiesce();
	mutex_unlock(&ctl_lock);
}

void trace_clear(void)
{
	mutex_lock(&ctl_lock);
	unsigned mask = __atomic_load_n(&trace_mask, __ATOMIC_RELAXED);
	trace_quiesce();
	for (unsigned i = 0; i < ring_cpus; i++)
		rings[i].head = 0;
	__atomic_store_n(&trace_mask, mask, __ATOMIC_RELAXED);
	mutex_unlock(&ctl_lock);
}

void trace_counts(uint64_t *held, uint64_t *written)
{
	*held = *written = 0;
	for (unsigned i = 0; i < ring_cpus; i++) {
		uint64_t h = __atomic_load_n(&rings[i].head, __ATOMIC_ACQUIRE);
		*written += h;
		*held += h < ring_entries ? h : ring_entries;
	}
}

void trace_boot_start(void)
{
	if (boot_mask && trace_start(boot_mask))
		kprintf("trace: no memory for %u rings of %lu entries: not tracing\n", ncpus, ring_entries);
}

/* ---- ftrace's text format -------------------------------------------------- */

static const char *const event_names[NR_TRACE_EVENTS] = {
	[TE_WALK_START] = "lookup_start", [TE_WALK_END] = "lookup_end",
	[TE_LOOKUP_FAST] = "lookup_fast",
	[TE_LOOKUP_SLOW_START] = "lookup_slow_start", [TE_LOOKUP_SLOW_END] = "lookup_slow_end",
	[TE_INLOOKUP_ADD] = "d_in_lookup_add", [TE_INLOOKUP_WAIT] = "d_in_lookup_wait",
	[TE_INLOOKUP_WOKEN] = "d_in_lookup_woken", [TE_INLOOKUP_END] = "d_in_lookup_end",
	[TE_NAMELOCK_WAIT] = "d_name_lock_wait", [TE_NAMELOCK_WOKEN] = "d_name_lock_woken",
	[TE_RWSEM_ACQUIRE] = "rwsem_acquire", [TE_RWSEM_RELEASE] = "rwsem_release",
	[TE_RWSEM_WAKE] = "rwsem_wake",
	[TE_FS_CALL] = "fs_call", [TE_FS_RETURN] = "fs_return",
	[TE_BUFFER_HIT] = "buffer_hit", [TE_BUFFER_MISS] = "buffer_miss",
	[TE_BUFFER_LOCK] = "buffer_lock", [TE_BUFFER_LOCKED] = "buffer_locked",
	[TE_BUFFER_READ] = "buffer_read", [TE_BUFFER_READ_DONE] = "buffer_read_done",
	[TE_BUFFER_UNLOCK] = "buffer_unlock",
	[TE_BLOCK_ISSUE] = "block_rq_issue", [TE_BLOCK_COMPLETE] = "block_rq_complete",
	[TE_RCU_UNLAZY] = "rcu_unlazy",
	[TE_SYS_ENTER] = "sys_enter", [TE_SYS_EXIT] = "sys_exit",
	[TE_MARK] = "tracing_mark_write",
};

/* Field values are split on spaces by the tools that read this format
 * (Perfetto's included): a name's spaces and controls print as '?'. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			*s = '?';
}

static const char *rwbs(uint64_t op)
{
	return op == 0 ? "R" : op == 1 ? "W" : "F";	/* enum req_op: READ, WRITE, FLUSH */
}

static void format_fields(const struct trace_entry *e, char *b, size_t n)
{
	const uint64_t *a = e->a;
	const char *s = e->str;
	switch (e->ev) {
	case TE_WALK_START:
		snprintf(b, n, "path=%s mode=%s", s, a[0] ? "rcu" : "ref");
		break;
	case TE_WALK_END:
		snprintf(b, n, "path=%s mode=%s ret=%ld", s, a[0] ? "rcu" : "ref", (long)a[1]);
		break;
	case TE_LOOKUP_FAST:
		snprintf(b, n, "name=%s found=%lu", s, a[0]);
		break;
	case TE_LOOKUP_SLOW_START:
		snprintf(b, n, "name=%s i_rwsem=%s", s, a[0] ? "exclusive" : "shared");
		break;
	case TE_LOOKUP_SLOW_END:
		snprintf(b, n, "name=%s ret=%ld", s, (long)a[0]);
		break;
	case TE_INLOOKUP_ADD:
	case TE_INLOOKUP_WAIT:
	case TE_NAMELOCK_WAIT:
		snprintf(b, n, "dentry=%p name=%s", (void *)a[0], s);
		break;
	case TE_INLOOKUP_WOKEN:
	case TE_NAMELOCK_WOKEN:
		snprintf(b, n, "dentry=%p name=%s ret=%ld", (void *)a[0], s, (long)a[1]);
		break;
	case TE_INLOOKUP_END:
		snprintf(b, n, "dentry=%p name=%s positive=%lu", (void *)a[0], s, a[1]);
		break;
	case TE_RWSEM_ACQUIRE:
		snprintf(b, n, "sem=%p name=%s mode=%s wait_us=%lu", (void *)a[0], s,
			 a[1] ? "exclusive" : "shared", tsc_cycles_to_ns(a[2]) / 1000);
		break;
	case TE_RWSEM_RELEASE:
		snprintf(b, n, "sem=%p name=%s mode=%s", (void *)a[0], s, a[1] ? "exclusive" : "shared");
		break;
	case TE_RWSEM_WAKE:
		snprintf(b, n, "sem=%p name=%s pid=%lu", (void *)a[0], s, a[1]);
		break;
	case TE_FS_CALL:
		snprintf(b, n, "op=%s dir=%lu name=%s", (const char *)a[0], a[1], s);
		break;
	case TE_FS_RETURN:
		snprintf(b, n, "op=%s ret=%ld", (const char *)a[0], (long)a[1]);
		break;
	case TE_BUFFER_HIT:
	case TE_BUFFER_MISS:
	case TE_BUFFER_LOCK:
	case TE_BUFFER_READ:
	case TE_BUFFER_UNLOCK:
		snprintf(b, n, "dev=%s block=%lu", s, a[0]);
		break;
	case TE_BUFFER_LOCKED:
		snprintf(b, n, "dev=%s block=%lu uptodate=%lu", s, a[0], a[1]);
		break;
	case TE_BUFFER_READ_DONE:
		snprintf(b, n, "dev=%s block=%lu ret=%ld", s, a[0], (long)a[1]);
		break;
	case TE_BLOCK_ISSUE:
		snprintf(b, n, "dev=%s rwbs=%s sector=%lu nr_sector=%lu tag=%lu", s, rwbs(a[0]), a[1],
			 a[2] / 512, a[3]);
		break;
	case TE_BLOCK_COMPLETE:
		snprintf(b, n, "dev=%s rwbs=%s sector=%lu nr_sector=%lu error=%ld", s, rwbs(a[0]), a[1],
			 a[2] / 512, (long)a[3]);
		break;
	case TE_RCU_UNLAZY:
		snprintf(b, n, "name=%s reason=%s ok=%lu", s, (const char *)a[0], a[1]);
		break;
	case TE_SYS_ENTER:	/* Linux's raw_syscalls:sys_enter, three arguments of six */
		snprintf(b, n, "NR %ld (%lx, %lx, %lx)", (long)a[0], a[1], a[2], a[3]);
		return;
	case TE_SYS_EXIT:
		snprintf(b, n, "NR %ld = %ld", (long)a[0], (long)a[1]);
		return;
	case TE_MARK:
		snprintf(b, n, "%s", s);
		return;
	}
}

/* One line as Linux's trace_print_context and print_trace_fmt write it:
 * the task right-aligned in 16 columns, "-", the PID left-aligned in 7,
 * the CPU in three digits, the five latency flags, seconds.microseconds,
 * the event's name, its fields. */
static void format_line(const struct trace_entry *e, unsigned cpu, char *b, size_t n)
{
	char fields[160];
	struct trace_entry copy = *e;
	sanitize(copy.comm);
	if (e->ev != TE_MARK)	/* a mark is free text, as Linux's */
		sanitize(copy.str);
	fields[0] = 0;
	format_fields(&copy, fields, sizeof(fields));
	char flags[6] = {
		e->irqs_off ? 'd' : '.',
		'.',	/* need-resched: the scheduler keeps no such flag */
		e->hardirq ? 'h' : '.',
		e->preempt ? "0123456789abcdef"[e->preempt] : '.',
		'.',	/* migrate-disable: none here */
		0 };
	uint64_t ns = tsc_to_ktime_ns(e->tsc);
	snprintf(b, n, "%16s-%-7u [%03u] %s %5lu.%06lu: %s: %s", copy.comm, e->pid, cpu, flags,
		 ns / 1000000000, ns / 1000 % 1000000, event_names[e->ev], fields);
}

unsigned trace_print(void (*emit)(void *arg, const char *line), void *arg)
{
	mutex_lock(&ctl_lock);
	unsigned mask = __atomic_load_n(&trace_mask, __ATOMIC_RELAXED);
	trace_quiesce();
	uint64_t next[MAX_CPUS], held = 0, written = 0;
	for (unsigned i = 0; i < ring_cpus; i++) {
		uint64_t h = rings[i].head;
		next[i] = h > ring_entries ? h - ring_entries : 0;
		held += h - next[i];
		written += h;
	}
	char line[256];
	emit(arg, "# tracer: nop");
	emit(arg, "#");
	snprintf(line, sizeof(line), "# entries-in-buffer/entries-written: %lu/%lu   #P:%u", held,
		 written, ncpus);
	emit(arg, line);
	emit(arg, "#");
	emit(arg, "#                                _-----=> irqs-off/BH-disabled");
	emit(arg, "#                               / _----=> need-resched");
	emit(arg, "#                              | / _---=> hardirq/softirq");
	emit(arg, "#                              || / _--=> preempt-depth");
	emit(arg, "#                              ||| / _-=> migrate-disable");
	emit(arg, "#                              |||| /     delay");
	emit(arg, "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION");
	emit(arg, "#              | |         |   |||||     |         |");
	/* Merge the rings by time (each is in order already). */
	unsigned printed = 0;
	for (;;) {
		int best = -1;
		const struct trace_entry *be = 0;
		for (unsigned i = 0; i < ring_cpus; i++) {
			if (next[i] == rings[i].head)
				continue;
			const struct trace_entry *e = &rings[i].buf[next[i] % ring_entries];
			if (!be || e->tsc < be->tsc)
				best = (int)i, be = e;
		}
		if (best < 0)
			break;
		format_line(be, (unsigned)best, line, sizeof(line));
		emit(arg, line);
		next[best]++;
		printed++;
	}
	__atomic_store_n(&trace_mask, mask, __ATOMIC_RELAXED);
	mutex_unlock(&ctl_lock);
	return printed;
}

static void emit_console(void *arg, const char *line)
{
	(void)arg;
	kprintf("%s\n", line);
}

void trace_boot_dump(void)
{
	if (!boot_mask)
		return;
	trace_stop();
	kprintf("trace: dump begin\n");
	unsigned n = trace_print(emit_console, 0);
	kprintf("trace: dump end (%u events)\n", n);
}
