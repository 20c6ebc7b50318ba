/*
 * lockdep.c: the lock validator (lockdep.h says what it reports).
 *
 * Classes.  A class is (key, subclass).  It gets a slot in classes[] the
 * first time one of its locks is acquired, is found again through a small
 * hash table, and is cached in the lock's map.  Slot 0 is never used, so
 * a zeroed map means "not looked up yet".  A class is named after the
 * first lock that registered it.
 *
 * The graph.  Bit b of after[a] means "b has been taken while a was
 * held": an edge a -> b.  Each edge also has a record in edges[], listed
 * from its source class, with the two acquisition sites, for reports.
 * The graph is kept acyclic: before an edge a -> b is added, a
 * breadth-first search from b looks for a.  If a is reachable, the chain
 * b -> ... -> a exists and the new edge would close a cycle: that is the
 * inversion, reported once per (a, b) and never added.  Because the graph
 * stays acyclic, an edge that is already there needs no new search; that
 * is the fast path, and it takes no lock.
 *
 * Locking:
 *   graph_lock   classes[], class_hash[], after[], edges[] and their free
 *                list, reported[], the BFS scratch arrays, the counts.
 *                A ticket lock of its own, not validated (it would have to
 *                validate itself), always taken with interrupts off, and a
 *                leaf: nothing is taken under it, not even the console
 *                lock, because what a report needs is copied out under it
 *                and printed after it is dropped.
 *   (none)       a context's held-lock stack: only its owner touches it,
 *                and only with interrupts off.
 *   lock-free    the fast path reads after[] bits and a class's key (to
 *                check a map's cached class) with atomic loads; both only
 *                change under graph_lock, and a set bit stays set until
 *                lockdep_free_key().
 *
 * Re-entry.  Reports are printed with kprintf, whose console lock would
 * call back into lock_acquire.  Every entry point runs with interrupts
 * off and sets this CPU's `busy` flag; while it is set, entry points
 * return at once (which also covers an NMI arriving midway).  The console
 * lock is moreover not tracked at all (LOCKDEP_UNTRACKED_KEY), so it can
 * never be the subject of a report.  Interrupts stay off throughout, so
 * the flag is right per CPU even once threads exist: nothing migrates.
 *
 * When a fixed table fills up (classes, edges, a context's held stack) the
 * validator says so and turns itself off for good: past that point it
 * would report nonsense.
 */
#include "kernel/lockdep.h"

#if CONFIG_LOCKDEP

#include <stdarg.h>
#include "kernel/kprintf.h"
#include "kernel/ksyms.h"
#include "kernel/rcu.h"
#include "kernel/string.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

#define MAX_CLASSES 512                   /* slot 0 unused */
#define MAX_EDGES 4096                    /* record 0 unused */
#define CLASS_WORDS (MAX_CLASSES / 64)
#define HASH_BITS 8
#define MAX_CHAIN 16                      /* edges of a chain kept for a report */

struct lock_class {
	const void *key;             /* NULL: a free slot */
	const char *name;
	unsigned char subclass;
	unsigned short hash_next;    /* next class in this hash bucket; 0 ends */
	unsigned short edges;        /* first edge out of this class; 0: none */
};

struct lock_edge {
	unsigned short to;
	unsigned short next;         /* next edge out of the same class; 0 ends */
	unsigned long from_ip;       /* where the held lock had been taken */
	unsigned long to_ip;         /* where `to` was taken while it was held */
};

/* A chain b -> ... -> a copied out of the graph for a report. */
struct chain {
	unsigned len;                /* edges in the whole chain */
	struct chain_link {
		unsigned short from, to;
		unsigned long from_ip, to_ip;
	} link[MAX_CHAIN];           /* the first MAX_CHAIN-1 edges, then the last */
};

static struct {
	uint32_t next, owner;
} graph_ticket;

/* Protected by graph_lock. */
static struct lock_class classes[MAX_CLASSES];
static unsigned short class_hash[1 << HASH_BITS];
static uint64_t after[MAX_CLASSES][CLASS_WORDS];
static uint64_t reported[MAX_CLASSES][CLASS_WORDS];   /* (a, b) reported once */
static struct lock_edge edges[MAX_EDGES];
static unsigned edge_free, edges_used = 1;
static unsigned nr_classes, nr_edges;
static unsigned short bfs_queue[MAX_CLASSES], bfs_parent[MAX_CLASSES];
static uint64_t bfs_seen[CLASS_WORDS];

/* Own CPU, with interrupts off; a cache line apart, as every lock op writes `busy`. */
static struct lockdep_cpu {
	bool busy;                   /* inside the validator */
	struct chain chain;          /* the inversion being reported */
} __attribute__((aligned(64))) per_cpu[MAX_CPUS];

/* Atomics. */
static bool validator_off;
static uint64_t nreports;

#define barrier() __asm__ volatile("" ::: "memory")

/* ---- the graph lock and entering the validator -------------------- */

/* Interrupts must be off: a handler taking a lock would spin on us. */
static void graph_lock(void)
{
	uint32_t t = __atomic_fetch_add(&graph_ticket.next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&graph_ticket.owner, __ATOMIC_ACQUIRE) != t)
		cpu_relax();
}

static void graph_unlock(void)
{
	__atomic_store_n(&graph_ticket.owner, graph_ticket.owner + 1, __ATOMIC_RELEASE);
}

/*
 * Enter the validator on this CPU: interrupts off, busy set.  False (and
 * nothing changed) if it is already busy here, i.e. this is the console
 * lock of one of its own reports or an NMI, or if it is turned off.
 */
static bool enter(unsigned long *flags)
{
	*flags = irq_save();
	bool *b = &per_cpu[cpu_id()].busy;
	if (*b || __atomic_load_n(&validator_off, __ATOMIC_RELAXED)) {
		irq_restore(*flags);
		return false;
	}
	*b = true;
	barrier();	/* set before the held stack is touched */
	return true;
}

static void leave(unsigned long flags)
{
	barrier();
	per_cpu[cpu_id()].busy = false;
	irq_restore(flags);
}

/* ---- bitmaps ------------------------------------------------------ */

static bool bit_test(const uint64_t *map, unsigned i)
{
	return (__atomic_load_n(&map[i / 64], __ATOMIC_RELAXED) >> (i % 64)) & 1;
}

/* Writers hold graph_lock; the stores are atomic for lock-free readers. */
static void bit_set(uint64_t *map, unsigned i)
{
	__atomic_store_n(&map[i / 64], map[i / 64] | (1ULL << (i % 64)), __ATOMIC_RELAXED);
}

static void bit_clear(uint64_t *map, unsigned i)
{
	__atomic_store_n(&map[i / 64], map[i / 64] & ~(1ULL << (i % 64)), __ATOMIC_RELAXED);
}

/* ---- printing reports --------------------------------------------- */

static const char *sym(char *buf, size_t n, unsigned long ip)
{
	uint64_t off;
	const char *name = ksym_lookup(ip, &off);

	if (name)
		snprintf(buf, n, "%s+0x%lx", name, off);
	else
		snprintf(buf, n, "%p", (void *)ip);
	return buf;
}

/* "name", or "name/N" for subclass N.  Read without graph_lock: names
 * never change, and a class freed meanwhile prints as (null). */
static const char *label(char *buf, size_t n, unsigned idx)
{
	const struct lock_class *c = &classes[idx];

	if (c->subclass)
		snprintf(buf, n, "%s/%u", c->name, c->subclass);
	else
		snprintf(buf, n, "%s", c->name);
	return buf;
}

__attribute__((format(printf, 1, 2)))
static void report_begin(const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kprintf("lockdep: %s (CPU %u)\n", msg, cpu_id());
}

static void print_held(const struct lockdep_held *h)
{
	char where[96], cls[80];

	kprintf("  held locks (%u):\n", h->depth);
	for (unsigned i = 0; i < h->depth; i++) {
		const struct held_lock *hl = &h->stack[i];
		label(cls, sizeof(cls), hl->class_idx);
		bool same = hl->map->name && strcmp(cls, hl->map->name) == 0;
		kprintf("    #%u %s%s%s%s, %s, taken at %s\n", i, hl->map->name,
			same ? "" : " (class ", same ? "" : cls, same ? "" : ")",
			hl->read ? "shared" : "exclusive", sym(where, sizeof(where), hl->ip));
	}
}

/* Every report ends here: the held locks, a backtrace, the count. */
static void report_end(void)
{
	print_held(lockdep_current());
	backtrace_print((uint64_t)report_end, (uint64_t)__builtin_frame_address(0));
	__atomic_fetch_add(&nreports, 1, __ATOMIC_RELAXED);
}

/* A table is full: say so and stop validating. */
__attribute__((format(printf, 1, 2)))
static void turn_off(const char *fmt, ...)
{
	char msg[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	__atomic_store_n(&validator_off, true, __ATOMIC_RELAXED);
	report_begin("%s; the validator turns itself off", msg);
	report_end();
}

/* Whether (a, b) is reported for the first time.  Caller holds graph_lock
 * (a raw lock, not validated: no assertion can check it). */
static bool __first_report(unsigned a, unsigned b)
{
	if (bit_test(reported[a], b))
		return false;
	bit_set(reported[a], b);
	return true;
}

/* The same, taking graph_lock. */
static bool first_report(unsigned a, unsigned b)
{
	graph_lock();
	bool first = __first_report(a, b);
	graph_unlock();
	return first;
}

/* ---- classes ------------------------------------------------------ */

static unsigned hash_of(const void *key, unsigned subclass)
{
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ULL +
		     subclass * 0x632BE59BD9B4E019ULL;
	return (unsigned)(h >> (64 - HASH_BITS));
}

/* Under graph_lock. */
static unsigned class_find(const void *key, unsigned subclass)
{
	for (unsigned i = class_hash[hash_of(key, subclass)]; i; i = classes[i].hash_next)
		if (classes[i].key == key && classes[i].subclass == subclass)
			return i;
	return 0;
}

/* Under graph_lock.  Returns the new class, or 0 if the table is full. */
static unsigned class_register(const void *key, unsigned subclass, const char *name)
{
	unsigned i = 1;
	while (i < MAX_CLASSES && classes[i].key)
		i++;
	if (i == MAX_CLASSES)
		return 0;
	struct lock_class *c = &classes[i];
	unsigned b = hash_of(key, subclass);
	c->name = name;
	c->subclass = (unsigned char)subclass;
	c->edges = 0;
	c->hash_next = class_hash[b];
	class_hash[b] = (unsigned short)i;
	__atomic_store_n(&c->key, key, __ATOMIC_RELEASE);	/* last: see class_of */
	nr_classes++;
	return i;
}

static const void *map_key(const struct lockdep_map *m)
{
	return m->key ? m->key : (const void *)m;
}

/* The class of m taken with this subclass, registered if new; 0 if full. */
static unsigned class_of(struct lockdep_map *m, unsigned subclass)
{
	const void *key = map_key(m);
	bool cacheable = subclass == m->subclass;

	if (cacheable) {
		/* The cache is only a hint: a freed slot may have been reused. */
		unsigned i = __atomic_load_n(&m->class_idx, __ATOMIC_RELAXED);
		if (i && __atomic_load_n(&classes[i].key, __ATOMIC_ACQUIRE) == key &&
		    classes[i].subclass == subclass)
			return i;
	}
	graph_lock();
	unsigned i = class_find(key, subclass);
	if (!i)
		i = class_register(key, subclass, m->name);
	graph_unlock();
	if (!i) {
		turn_off("all %u lock classes are in use", MAX_CLASSES - 1);
		return 0;
	}
	if (cacheable)
		__atomic_store_n(&m->class_idx, (unsigned short)i, __ATOMIC_RELAXED);
	return i;
}

/* ---- edges -------------------------------------------------------- */

/* Under graph_lock.  Returns false if the edge table is full. */
static bool edge_add(unsigned from, unsigned to, unsigned long from_ip, unsigned long to_ip)
{
	unsigned e = edge_free;
	if (e)
		edge_free = edges[e].next;
	else if (edges_used < MAX_EDGES)
		e = edges_used++;
	else
		return false;
	edges[e] = (struct lock_edge){ (unsigned short)to, classes[from].edges, from_ip, to_ip };
	classes[from].edges = (unsigned short)e;
	bit_set(after[from], to);
	nr_edges++;
	return true;
}

/* Under graph_lock. */
static const struct lock_edge *edge_find(unsigned from, unsigned to)
{
	for (unsigned e = classes[from].edges; e; e = edges[e].next)
		if (edges[e].to == to)
			return &edges[e];
	return NULL;
}

/*
 * Under graph_lock: mark in bfs_seen every class reachable from `start`,
 * with bfs_parent[v] the class v was first reached from.  Each class is
 * queued at most once, so the queue never holds more than MAX_CLASSES.
 */
static void search_from(unsigned start)
{
	unsigned head = 0, tail = 0;

	memset(bfs_seen, 0, sizeof(bfs_seen));
	bit_set(bfs_seen, start);
	bfs_queue[tail++] = (unsigned short)start;
	while (head < tail) {
		unsigned u = bfs_queue[head++];
		for (unsigned w = 0; w < CLASS_WORDS; w++) {
			uint64_t fresh = after[u][w] & ~bfs_seen[w];
			bfs_seen[w] |= fresh;
			for (; fresh; fresh &= fresh - 1) {
				unsigned v = w * 64 + (unsigned)__builtin_ctzll(fresh);
				bfs_parent[v] = (unsigned short)u;
				bfs_queue[tail++] = (unsigned short)v;
			}
		}
	}
}

/* Under graph_lock, after search_from(start): copy the path start -> ... -> end. */
static void chain_copy(struct chain *c, unsigned start, unsigned end)
{
	c->len = 0;
	for (unsigned v = end; v != start; v = bfs_parent[v])
		c->len++;
	unsigned i = c->len;
	for (unsigned v = end; v != start; v = bfs_parent[v]) {
		i--;	/* the edge bfs_parent[v] -> v is number i of the chain */
		if (i >= MAX_CHAIN - 1 && i != c->len - 1)
			continue;
		unsigned u = bfs_parent[v];
		const struct lock_edge *e = edge_find(u, v);
		struct chain_link *l = &c->link[i < MAX_CHAIN - 1 ? i : MAX_CHAIN - 1];
		*l = (struct chain_link){ (unsigned short)u, (unsigned short)v,
					  e ? e->from_ip : 0, e ? e->to_ip : 0 };
	}
}

/* ---- the checks --------------------------------------------------- */

static void report_inversion(const struct lockdep_held *h, unsigned held, unsigned long ip,
			     const struct chain *c)
{
	char a[80], b[80], s1[96], s2[96];
	unsigned from = h->stack[held].class_idx, to = c->link[0].from;

	label(a, sizeof(a), from);
	label(b, sizeof(b), to);
	report_begin("lock order inversion: taking %s while holding %s", b, a);
	kprintf("  new dependency: %s -> %s\n", a, b);
	kprintf("    %s taken at %s, %s held since %s\n", b, sym(s1, sizeof(s1), ip), a,
		sym(s2, sizeof(s2), h->stack[held].ip));
	kprintf("  but the reverse chain %s -> ... -> %s exists (%u edge%s), each first seen:\n",
		b, a, c->len, c->len == 1 ? "" : "s");
	unsigned shown = c->len < MAX_CHAIN ? c->len : MAX_CHAIN;
	for (unsigned i = 0; i < shown; i++) {
		const struct chain_link *l = &c->link[i];
		if (i == MAX_CHAIN - 1 && c->len > MAX_CHAIN)
			kprintf("    ... %u more ...\n", c->len - MAX_CHAIN);
		label(a, sizeof(a), l->from);
		label(b, sizeof(b), l->to);
		kprintf("    %s -> %s: %s taken at %s, %s held since %s\n", a, b, b,
			sym(s1, sizeof(s1), l->to_ip), a, sym(s2, sizeof(s2), l->from_ip));
	}
	kprintf("  two contexts taking these in the two orders can deadlock; "
		"the new dependency is not recorded\n");
	report_end();
}

/*
 * Before taking class `to` (not a trylock): add an edge from every held
 * class to it, unless that closes a cycle, which is reported instead.
 * The search from `to` is done once: the edges added (all into `to`)
 * cannot make anything newly reachable from `to` without a cycle.
 */
static void add_dependencies(const struct lockdep_held *h, unsigned to, unsigned long ip)
{
	unsigned i, held = LOCKDEP_MAX_HELD;
	bool full = false;

	for (i = 0; i < h->depth; i++)		/* the fast path: no new edge */
		if (h->stack[i].class_idx != to && !bit_test(after[h->stack[i].class_idx], to))
			break;
	if (i == h->depth)
		return;

	struct chain *c = &per_cpu[cpu_id()].chain;
	graph_lock();
	search_from(to);
	for (i = h->depth; i-- > 0 && !full;) {
		unsigned from = h->stack[i].class_idx;
		if (from == to || bit_test(after[from], to))
			continue;
		if (!bit_test(bfs_seen, from))
			full = !edge_add(from, to, h->stack[i].ip, ip);
		else if (held == LOCKDEP_MAX_HELD && __first_report(from, to)) {
			chain_copy(c, to, from);
			held = i;
		}
	}
	graph_unlock();
	if (held != LOCKDEP_MAX_HELD)
		report_inversion(h, held, ip, c);
	if (full)
		turn_off("all %u dependency records are in use", MAX_EDGES - 1);
}

/*
 * Taking a class this context already holds.  Two locks of one class held
 * together deadlock against a context taking them in the other order, and
 * one class cannot tell the orders apart: deliberate nesting needs a
 * subclass.  A shared (read) re-acquisition is reported too: a fair rwsem
 * queues the second read behind a waiting writer, which waits for the
 * first read to end, which never comes.
 */
static void check_recursion(const struct lockdep_held *h, unsigned idx, int read,
			    unsigned long ip)
{
	char cls[80], s1[96], s2[96];

	for (unsigned i = h->depth; i-- > 0;) {
		const struct held_lock *hl = &h->stack[i];
		if (hl->class_idx != idx)
			continue;
		if (!first_report(idx, idx))
			return;
		label(cls, sizeof(cls), idx);
		report_begin("recursive locking: taking %s%s, a class already held", cls,
			     read ? " (shared)" : "");
		kprintf("  taken at %s; held since %s (lock %s)\n", sym(s1, sizeof(s1), ip),
			sym(s2, sizeof(s2), hl->ip), hl->map->name);
		kprintf("  the same lock twice deadlocks; two locks of one class need a "
			"subclass (lock_acquire's subclass) to nest%s\n",
			read ? "; a shared re-acquisition deadlocks behind a waiting writer" : "");
		report_end();
		return;
	}
}

/* ---- the interface ------------------------------------------------ */

void lockdep_init_map(struct lockdep_map *m, const char *name, const void *key, unsigned subclass)
{
	m->name = name;
	m->key = key;
	m->class_idx = 0;
	/* Out of range is kept out of range, for lock_acquire to report. */
	m->subclass = (unsigned char)(subclass < LOCKDEP_SUBCLASSES ? subclass : LOCKDEP_SUBCLASSES);
}

static void push(struct lockdep_held *h, unsigned idx, int read, unsigned long ip,
		 const struct lockdep_map *m)
{
	h->stack[h->depth] = (struct held_lock){ (unsigned short)idx, (unsigned char)!!read, ip, m };
	h->depth++;
}

void lock_acquire(struct lockdep_map *m, unsigned subclass, int read, int trylock, unsigned long ip)
{
	unsigned long flags;

	if (m->key == LOCKDEP_UNTRACKED_KEY || !enter(&flags))
		return;
	struct lockdep_held *h = lockdep_current();
	unsigned sub = subclass ? subclass : m->subclass, idx = 0;
	if (h->depth == LOCKDEP_MAX_HELD)
		turn_off("more than %u locks held, taking %s", LOCKDEP_MAX_HELD, m->name);
	else if (sub >= LOCKDEP_SUBCLASSES)
		turn_off("subclass %u of %s is out of range (0..%u)", sub, m->name,
			 LOCKDEP_SUBCLASSES - 1);
	else
		idx = class_of(m, sub);
	if (idx) {
		if (!trylock) {
			check_recursion(h, idx, read, ip);
			add_dependencies(h, idx, ip);
		}
		push(h, idx, read, ip, m);
	}
	leave(flags);
}

static void report_unheld(const struct lockdep_map *m, unsigned long ip)
{
	char where[96];

	report_begin("releasing %s, which this context does not hold", m->name);
	kprintf("  released at %s\n", sym(where, sizeof(where), ip));
	report_end();
}

void lock_release(struct lockdep_map *m, unsigned long ip)
{
	unsigned long flags;

	if (m->key == LOCKDEP_UNTRACKED_KEY || !enter(&flags))
		return;
	struct lockdep_held *h = lockdep_current();
	unsigned i = h->depth;
	while (i > 0 && h->stack[i - 1].map != m)
		i--;
	if (i == 0) {
		report_unheld(m, ip);
	} else {	/* out of order is fine: close the gap */
		memmove(&h->stack[i - 1], &h->stack[i], (h->depth - i) * sizeof(h->stack[0]));
		h->depth--;
	}
	leave(flags);
}

bool lock_is_held_type(const struct lockdep_map *m, int read)
{
	if (m->key == LOCKDEP_UNTRACKED_KEY || __atomic_load_n(&validator_off, __ATOMIC_RELAXED))
		return true;
	unsigned long flags = irq_save();
	const struct lockdep_held *h = lockdep_current();
	bool held = false;
	for (unsigned i = 0; i < h->depth && !held; i++)
		held = h->stack[i].map == m && (read < 0 || h->stack[i].read == read);
	irq_restore(flags);
	return held;
}

void lockdep_assert_failed(const struct lockdep_map *m, int read, const char *file, int line)
{
	unsigned long flags;

	if (!enter(&flags))
		return;
	report_begin("%s is not held%s, but %s:%d requires it", m->name,
		     read == 0 ? " exclusive" : read == 1 ? " shared" : "", file, line);
	report_end();
	leave(flags);
}

void might_sleep_check(const char *file, int line)
{
	unsigned long flags;
	int preempt = this_cpu()->preempt_count;
	int rcu = rcu_read_lock_depth();

	if (!enter(&flags))
		return;
	if (preempt > 0 || !flags) {
		report_begin("sleeping function called from invalid context at %s:%d%s", file, line,
			     rcu ? " (inside an RCU read-side critical section)" : "");
		kprintf("  preempt_count %d, interrupts %s, interrupt depth %d, rcu_read_lock depth %d\n",
			preempt, flags ? "on" : "off", this_cpu()->irq_depth, rcu);
		report_end();
	}
	leave(flags);
}

uint64_t lockdep_reports(void)
{
	return __atomic_load_n(&nreports, __ATOMIC_RELAXED);
}

bool lockdep_busy(void)
{
	unsigned long flags = irq_save();
	bool b = per_cpu[cpu_id()].busy;
	irq_restore(flags);
	return b;
}

unsigned lockdep_depth(void)
{
	unsigned long flags = irq_save();
	unsigned d = lockdep_current()->depth;
	irq_restore(flags);
	return d;
}

void lockdep_forget_held(unsigned depth)
{
	unsigned long flags = irq_save();
	struct lockdep_held *h = lockdep_current();
	if (depth < h->depth)
		h->depth = depth;
	irq_restore(flags);
}

/* ---- listing the classes ------------------------------------------ */

/* Copy class idx's n-th edge; false when there is none (or no class). */
static bool edge_nth(unsigned idx, unsigned n, struct lock_edge *out)
{
	unsigned long flags = irq_save();
	graph_lock();
	unsigned e = classes[idx].key ? classes[idx].edges : 0;
	while (e && n--)
		e = edges[e].next;
	if (e)
		*out = edges[e];
	graph_unlock();
	irq_restore(flags);
	return e != 0;
}

void lockdep_print_classes(void)
{
	char a[80], b[80], s1[96], s2[96];
	struct lock_edge e;

	kprintf("lock classes: %u of %u, dependencies: %u of %u, reports: %lu%s\n",
		__atomic_load_n(&nr_classes, __ATOMIC_RELAXED), MAX_CLASSES - 1,
		__atomic_load_n(&nr_edges, __ATOMIC_RELAXED), MAX_EDGES - 1, lockdep_reports(),
		__atomic_load_n(&validator_off, __ATOMIC_RELAXED) ? " (validator off)" : "");
	for (unsigned i = 1; i < MAX_CLASSES; i++) {
		if (!__atomic_load_n(&classes[i].key, __ATOMIC_ACQUIRE))
			continue;
		kprintf("  %s\n", label(a, sizeof(a), i));
		for (unsigned n = 0; edge_nth(i, n, &e); n++)
			kprintf("    -> %s: taken at %s, %s held since %s\n", label(b, sizeof(b), e.to),
				sym(s1, sizeof(s1), e.to_ip), a, sym(s2, sizeof(s2), e.from_ip));
	}
}

/* ---- forgetting a key --------------------------------------------- */

/* Under graph_lock: unlink and free the edge from -> to. */
static void edge_remove(unsigned from, unsigned to)
{
	unsigned short *link = &classes[from].edges;
	while (*link && edges[*link].to != to)
		link = &edges[*link].next;
	if (*link) {
		unsigned e = *link;
		*link = edges[e].next;
		edges[e].next = (unsigned short)edge_free;
		edge_free = e;
		nr_edges--;
	}
	bit_clear(after[from], to);
}

/* Under graph_lock. */
static void class_free(unsigned idx)
{
	for (unsigned u = 1; u < MAX_CLASSES; u++) {
		if (bit_test(after[idx], u))
			edge_remove(idx, u);
		if (bit_test(after[u], idx))
			edge_remove(u, idx);
		bit_clear(reported[u], idx);
	}
	memset(reported[idx], 0, sizeof(reported[idx]));
	struct lock_class *c = &classes[idx];
	unsigned short *link = &class_hash[hash_of(c->key, c->subclass)];
	while (*link != idx)
		link = &classes[*link].hash_next;
	*link = c->hash_next;
	__atomic_store_n(&c->key, NULL, __ATOMIC_RELEASE);
	nr_classes--;
}

void lockdep_free_key(const void *key)
{
	if (!key)	/* a free slot's key: never a class */
		return;
	unsigned long flags = irq_save();
	graph_lock();
	for (unsigned i = 1; i < MAX_CLASSES; i++)
		if (classes[i].key == key)
			class_free(i);
	graph_unlock();
	irq_restore(flags);
}

#endif /* CONFIG_LOCKDEP */
