/*
 * conflicts.so: a QEMU TCG plugin that finds the cache lines two CPUs share.
 *
 * The kernel brackets an operation with conflict_region_begin(id) /
 * conflict_region_end(id) (kernel/conflict.h): 7-byte NOPs `nopl disp32(%rax)`
 * whose displacement is MAGIC_BEGIN|id or MAGIC_END|id. Real CPUs and KVM
 * execute them as NOPs; here they are recognised when a block is translated.
 * Inside a region each vCPU records every load and store by physical 64-byte
 * line, with the guest pc and the exact physical address of the first read
 * and of the first write of the line, and counts instructions. When two
 * vCPUs have both ended a region with the same id, the plugin prints one
 * line per conflicting cache line (written by one, read or written by the
 * other) and a summary; bench/run_conflicts.py symbolizes them and names
 * the object from the kernel's slab map. A region whose id has bit 15 set
 * (COUNTED) has no partner: its end prints its instruction count at once.
 * An id known only at run time comes as IDBIT markers, one per set bit,
 * then a begin with id VAR (kernel/conflict.h): the region takes the id
 * the bits spelled since the vCPU's last begin or end marker.
 *
 * A locked read-modify-write (lock xadd, cmpxchg) reaches a memory callback
 * once. The API's qemu_plugin_mem_is_store() calls it a store; QEMU 7.2
 * encodes the direction as bits 16-17 of the opaque meminfo (read 1, write
 * 2, both 3: make_plugin_meminfo in include/qemu/plugin.h), so a 3 there is
 * recorded as a read and a write. Any other value there falls back to
 * is_store, so a QEMU that encodes it otherwise loses only the RMW's read.
 *
 * Cost: every instruction and access of the whole run calls back into the
 * plugin, in a region or not. Instrumenting only inside regions is not
 * possible with API 1: a block is instrumented when it is translated, long
 * before it is known in which region it will run, and API 1 has neither
 * conditional callbacks nor a flush that takes effect before the next
 * instruction (qemu_plugin_reset is asynchronous, so a region's first
 * accesses would be lost). The callbacks return at once outside a region.
 *
 * Callbacks run on the vCPU's own thread (MTTCG), so per-vCPU state needs no
 * lock; only the hand-over at region end takes `done_lock`.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"

#define MAGIC_BEGIN 0x5c0f0000u
#define MAGIC_END   0x5c0e0000u
#define MAGIC_IDBIT 0x5c0d0000u
#define VAR         0           /* begin/end of a region whose id the IDBITs spelled */
#define MAX_VCPUS   16
#define LINE(pa)    ((pa) & ~63ull)
#define COUNTED     0x8000

EXPORT int qemu_plugin_version = 1;

struct line { uint64_t pa, rpc, wpc, ra, wa; };   /* pa 0 = empty slot; ra/wa exact */

struct region {
    int active, id;
    unsigned pending;         /* id bits said since the last begin or end */
    uint64_t insns;
    struct line *tab;
    size_t cap, used;
};

static struct region vcpu[MAX_VCPUS];
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static struct region done[MAX_VCPUS];     /* ended regions awaiting a partner */
static int ndone;

static struct line *slot(struct region *r, uint64_t pa)
{
    size_t i = (pa >> 6) * 0x9e3779b97f4a7c15ull % r->cap;
    while (r->tab[i].pa && r->tab[i].pa != pa)
        i = (i + 1) % r->cap;
    return &r->tab[i];
}

static void grow(struct region *r)
{
    struct region old = *r;
    r->cap = old.cap ? old.cap * 2 : 4096;
    r->tab = calloc(r->cap, sizeof *r->tab);
    r->used = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.tab[i].pa) {
            *slot(r, old.tab[i].pa) = old.tab[i];
            r->used++;
        }
    free(old.tab);
}

static void on_mem(unsigned int cpu, qemu_plugin_meminfo_t mi, uint64_t va, void *pc)
{
    if (cpu >= MAX_VCPUS || !vcpu[cpu].active)
        return;
    struct region *r = &vcpu[cpu];
    struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(mi, va);
    if (!hw)
        return;
    uint64_t exact = qemu_plugin_hwaddr_phys_addr(hw);
    uint64_t pa = LINE(exact) | 1; /* |1: never 0 */
    if (2 * (r->used + 1) > r->cap)
        grow(r);
    struct line *l = slot(r, pa);
    if (!l->pa) {
        l->pa = pa;
        r->used++;
    }
    unsigned rw = mi >> 16;
    if (rw < 1 || rw > 3)
        rw = qemu_plugin_mem_is_store(mi) ? 2 : 1;
    if ((rw & 2) && !l->wpc) {
        l->wpc = (uint64_t)(uintptr_t)pc;
        l->wa = exact;
    }
    if ((rw & 1) && !l->rpc) {
        l->rpc = (uint64_t)(uintptr_t)pc;
        l->ra = exact;
    }
}

/* profile=ID (a plugin argument): instructions of counted region ID by
 * guest pc, over all its runs, printed at exit as "prof pc=PC n=N" lines
 * (bench/run_linux.py --profile sums them by function).  An open-addressed
 * table; pcs beyond its size are counted in one "pc=0" row. */
#define PROF_CAP 65536
static int prof_id = -1;
static struct { uint64_t pc, n; } *prof;

static void prof_add(uint64_t pc)
{
    size_t i = (pc * 0x9e3779b97f4a7c15ull) >> 48;
    for (size_t k = 0; k < PROF_CAP; k++, i = (i + 1) % PROF_CAP)
        if (prof[i].pc == pc || !prof[i].pc) {
            prof[i].pc = pc;
            prof[i].n++;
            return;
        }
}

static void on_insn(unsigned int cpu, void *pc)
{
    if (cpu < MAX_VCPUS && vcpu[cpu].active) {
        vcpu[cpu].insns++;
        if (prof && vcpu[cpu].id == prof_id)
            prof_add((uint64_t)(uintptr_t)pc);
    }
}

static void prof_print(qemu_plugin_id_t id, void *unused)
{
    (void)id; (void)unused;
    char buf[96];
    for (size_t i = 0; prof && i < PROF_CAP; i++)
        if (prof[i].pc) {
            snprintf(buf, sizeof buf, "prof pc=%#llx n=%llu\n", (unsigned long long)prof[i].pc,
                     (unsigned long long)prof[i].n);
            qemu_plugin_outs(buf);
        }
}

/* Report the pair: lines one wrote that the other touched. */
static void report(struct region *a, struct region *b, int ca, int cb)
{
    char buf[256];
    int n = 0;
    for (size_t i = 0; i < a->cap; i++) {
        struct line *x = &a->tab[i];
        if (!x->pa)
            continue;
        struct line *y = slot(b, x->pa);
        if (!y->pa || !(x->wpc || y->wpc))
            continue;
        snprintf(buf, sizeof buf,
                 "conflict id=%d line=%#llx cpu%d r=%#llx@%#llx w=%#llx@%#llx"
                 " cpu%d r=%#llx@%#llx w=%#llx@%#llx\n",
                 a->id, (unsigned long long)(x->pa & ~1ull), ca,
                 (unsigned long long)x->rpc, (unsigned long long)x->ra,
                 (unsigned long long)x->wpc, (unsigned long long)x->wa, cb,
                 (unsigned long long)y->rpc, (unsigned long long)y->ra,
                 (unsigned long long)y->wpc, (unsigned long long)y->wa);
        qemu_plugin_outs(buf);
        n++;
    }
    snprintf(buf, sizeof buf, "pair id=%d conflicts=%d insns%d=%llu insns%d=%llu lines%d=%zu lines%d=%zu\n",
             a->id, n, ca, (unsigned long long)a->insns, cb, (unsigned long long)b->insns,
             ca, a->used, cb, b->used);
    qemu_plugin_outs(buf);
}

static void on_marker(unsigned int cpu, void *arg)
{
    uint32_t m = (uint32_t)(uintptr_t)arg;
    if (cpu >= MAX_VCPUS)
        return;
    struct region *r = &vcpu[cpu];
    if ((m & 0xffff0000u) == MAGIC_IDBIT) {
        r->pending |= 1u << (m & 15);
        return;
    }
    unsigned id = m & 0xffff, said = r->pending;
    r->pending = 0;
    if ((m & 0xffff0000u) == MAGIC_BEGIN) {
        if (!r->tab)
            grow(r);
        memset(r->tab, 0, r->cap * sizeof *r->tab);
        r->used = 0;
        r->insns = 0;
        r->id = id == VAR ? (int)said : (int)id;
        r->active = 1;
        return;
    }
    if (!r->active || (id != VAR && r->id != (int)id))
        return;
    r->active = 0;
    if (r->id & COUNTED) {
        char buf[128];
        snprintf(buf, sizeof buf, "count id=%d cpu%u insns=%llu lines=%zu\n",
                 r->id, cpu, (unsigned long long)r->insns, r->used);
        qemu_plugin_outs(buf);
        return;
    }
    pthread_mutex_lock(&done_lock);
    int partner = -1;
    for (int i = 0; i < ndone; i++)
        if (done[i].id == r->id)
            partner = i;
    if (partner < 0 && ndone < MAX_VCPUS) {
        /* first to finish: hand our table over and wait for the other */
        done[ndone] = *r;
        done[ndone].active = (int)cpu;     /* reused: which vCPU it was */
        ndone++;
        r->tab = NULL;
        r->cap = r->used = 0;
    } else if (partner >= 0) {
        struct region p = done[partner];
        done[partner] = done[--ndone];
        report(&p, r, p.active, (int)cpu);
        free(p.tab);
    }
    pthread_mutex_unlock(&done_lock);
}

/* A marker is 0f 1f 80 <disp32> with a magic displacement. */
static int marker(struct qemu_plugin_insn *insn, uint32_t *m)
{
    const uint8_t *b = qemu_plugin_insn_data(insn);
    if (qemu_plugin_insn_size(insn) != 7 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80)
        return 0;
    memcpy(m, b + 3, 4);
    uint32_t magic = *m & 0xffff0000u;
    return magic == MAGIC_BEGIN || magic == MAGIC_END || magic == MAGIC_IDBIT;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint32_t m;
        if (marker(insn, &m)) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS,
                                                   (void *)(uintptr_t)m);
            continue;
        }
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS,
                                               (void *)(uintptr_t)qemu_plugin_insn_vaddr(insn));
        qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
                                         QEMU_PLUGIN_MEM_RW,
                                         (void *)(uintptr_t)qemu_plugin_insn_vaddr(insn));
    }
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                               int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strncmp(argv[i], "profile=", 8)) {
            prof_id = COUNTED | atoi(argv[i] + 8);
            prof = calloc(PROF_CAP, sizeof *prof);
        }
    if (info->version.cur < 1 || info->version.min > 1) {
        fprintf(stderr, "conflicts: QEMU plugin API %d..%d, this plugin speaks only 1\n",
                info->version.min, info->version.cur);
        return -1;
    }
    if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
        fprintf(stderr, "conflicts: needs qemu-system-x86_64\n");
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, prof_print, NULL);
    return 0;
}
