/*
 * syscall_table.c: the table (see syscall.h and syscall_list.h).
 */
#include "user/sys.h"

const struct syscall_entry syscall_table[NR_SYSCALLS] = {
#define SC(nr, name, status, note) [nr] = { #name, x64_##name, SC_##status, note },
#include "user/syscall_list.h"
#undef SC
};
