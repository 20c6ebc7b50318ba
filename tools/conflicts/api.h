/*
 * The part of QEMU's TCG plugin API (version 1, as QEMU 7.2 ships it) that
 * the conflicts plugin uses, declared here so the build needs no QEMU headers.
 * Written from the documented contract; only what we call is declared.
 */
#ifndef CONFLICTS_API_H
#define CONFLICTS_API_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;     /* opaque, decoded by QEMU */
struct qemu_plugin_tb;                      /* a block being translated */
struct qemu_plugin_insn;                    /* one instruction in it */
struct qemu_plugin_hwaddr;                  /* physical side of an access */

typedef struct {
    const char *target_name;
    struct { int min, cur; } version;       /* API versions QEMU accepts */
    bool system_emulation;
    union { struct { int smp_vcpus, max_vcpus; } system; };
} qemu_info_t;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS,
                            QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W = 2,
                          QEMU_PLUGIN_MEM_RW = 3 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t,
        void (*)(qemu_plugin_id_t, struct qemu_plugin_tb *));
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *, size_t);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *,
        void (*)(unsigned int, void *), enum qemu_plugin_cb_flags, void *);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *,
        void (*)(unsigned int, qemu_plugin_meminfo_t, uint64_t, void *),
        enum qemu_plugin_cb_flags, enum qemu_plugin_mem_rw, void *);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t);
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t, uint64_t);
uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t,
        void (*)(qemu_plugin_id_t, void *), void *);
void qemu_plugin_outs(const char *);
#endif
