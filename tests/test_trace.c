/* test_trace.c: the tracer (kernel/trace.c) prints ftrace's layout, and
 * entries recorded on every CPU while another thread prints are never
 * torn and come out in each CPU's order.  The suite clears the trace: a
 * boot's trace= and this suite do not mix. */
#include "kernel/ktest.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/trace.h"
#include "arch/x86_64/percpu.h"

#define MAGIC 0x7aceULL   /* top 16 bits of every value the torn test records */

struct layout_seen {
	unsigned lines;
	bool header, mark, sys_exit, columns;
};

static void see_layout(void *arg, const char *line)
{
	struct layout_seen *s = arg;
	if (s->lines++ == 0)
		s->header = strcmp(line, "# tracer: nop") == 0;
	if (line[0] == '#')
		return;
	/* ftrace's columns: task in 16, '-', PID in 7, ' [', CPU in 3. */
	s->columns = strlen(line) > 30 && line[16] == '-' && line[24] == ' ' && line[25] == '[' &&
		     line[29] == ']';
	const char *p = strstr(line, ": tracing_mark_write: ktest trace mark");
	s->mark |= p && strcmp(p, ": tracing_mark_write: ktest trace mark") == 0;
	p = strstr(line, ": sys_exit: NR 42 = -5");
	s->sys_exit |= p && p[strlen(": sys_exit: NR 42 = -5")] == 0;
}

static void prints_ftrace_layout(void)
{
	if (!CONFIG_TRACE)
		ktest_skip("built without the tracer (TRACE=0)");
	trace_clear();
	ASSERT_EQ(trace_start(TRC_ALL), 0);
	trace_mark("ktest trace mark");
	trace_record(TE_SYS_EXIT, 0, 0, 42, (uint64_t)-5, 0, 0);
	trace_stop();
	struct layout_seen s = { 0 };
	unsigned n = trace_print(see_layout, &s);
	trace_clear();
	EXPECT_TRUE(s.header);
	EXPECT_TRUE(s.mark);
	EXPECT_TRUE(s.sys_exit);
	EXPECT_TRUE(s.columns);
	EXPECT_GE(n, 2u);
}

struct torn_run {
	bool stop;
	unsigned torn, disordered, seen;
	uint64_t last[MAX_CPUS];      /* per CPU: the last sequence number printed */
};

static int recorder(void *arg)
{
	struct torn_run *r = arg;
	unsigned cpu = cpu_id();
	for (uint64_t seq = 1; !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE); seq++) {
		uint64_t v = MAGIC << 48 | (uint64_t)cpu << 32 | seq;
		trace_record(TE_SYS_ENTER, 0, 0, v, v, v, v);
		if (seq % 256 == 0)
			yield();
	}
	return 0;
}

static uint64_t parse_num(const char **pp, unsigned base)
{
	uint64_t v = 0;
	for (const char *p = *pp;; p++) {
		unsigned d = *p >= '0' && *p <= '9' ? (unsigned)(*p - '0') :
			     *p >= 'a' && *p <= 'f' ? (unsigned)(*p - 'a' + 10) : 99;
		if (d >= base) {
			*pp = p;
			return v;
		}
		v = v * base + d;
	}
}

/* "... [CPU] ... sys_enter: NR a0 (a1, a2, a3)": all four the same value,
 * naming the CPU of the line, its sequence above the last one printed. */
static void check_entry(void *arg, const char *line)
{
	struct torn_run *r = arg;
	const char *p = strstr(line, ": sys_enter: NR ");
	if (line[0] == '#' || !p)
		return;
	p += strlen(": sys_enter: NR ");
	uint64_t v[4];
	v[0] = parse_num(&p, 10);
	for (int i = 1; i < 4; i++) {
		p += 2;	/* " (" or ", " */
		v[i] = parse_num(&p, 16);
	}
	if (v[0] >> 48 != MAGIC)
		return;
	r->seen++;
	const char *c = strstr(line, " [");
	const char *cp = c + 2;
	uint64_t cpu = c ? parse_num(&cp, 10) : ~0ull;
	if (v[1] != v[0] || v[2] != v[0] || v[3] != v[0] || cpu != (v[0] >> 32 & 0xffff) ||
	    cpu >= MAX_CPUS) {
		r->torn++;
		return;
	}
	uint64_t seq = v[0] & 0xffffffff;
	if (seq <= r->last[cpu])
		r->disordered++;
	r->last[cpu] = seq;
}

static void records_on_every_cpu_are_never_torn(void)
{
	if (!CONFIG_TRACE)
		ktest_skip("built without the tracer (TRACE=0)");
	static struct torn_run r;
	struct thread *t[MAX_CPUS];
	r = (struct torn_run){ 0 };
	trace_clear();
	ASSERT_EQ(trace_start(TRC_SYSCALL), 0);
	for (unsigned i = 0; i < ncpus; i++)
		ASSERT_NOT_NULL(t[i] = thread_create("trace-rec", recorder, &r, (int)i));
	sleep_ms(20);	/* let the rings fill and wrap */
	trace_print(check_entry, &r);	/* while they go on recording */
	__atomic_store_n(&r.stop, true, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < ncpus; i++)
		thread_join(t[i]);
	trace_stop();
	trace_clear();
	EXPECT_EQ(r.torn, 0u);
	EXPECT_EQ(r.disordered, 0u);
	EXPECT_GT(r.seen, 0u);
}

static const struct ktest_case trace_cases[] = {
	KTEST_CASE(prints_ftrace_layout),
	KTEST_CASE(records_on_every_cpu_are_never_torn),
};
KTEST_SUITE(trace, trace_cases);
