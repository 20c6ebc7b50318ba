/*
 * exec.h: execve (user/exec.c).
 */
#ifndef USER_EXEC_H
#define USER_EXEC_H

#include <stddef.h>
#include <stdint.h>

#define EXEC_ARG_MAX (256 * 1024)   /* all argument and environment strings (E2BIG past it) */

/* A program's arguments and environment, copied into the kernel: the
 * strings in one pool, argv[0..argc) then envp[0..envc) pointing into it. */
struct exec_args {
	char *strings;
	size_t used;
	unsigned argc, envc;
	char **argv;
};

int exec_args_from_user(struct exec_args *a, uint64_t uargv, uint64_t uenvp);
int exec_args_from_kernel(struct exec_args *a, char *const argv[], char *const envp[]);
void exec_args_free(struct exec_args *a);

struct trap_frame;
struct thread;
/* Replace the calling thread's program with path's (args may be
 * rewritten for a #! script).  On success tf holds the new program's
 * registers; on failure (a negative errno) nothing has changed. */
int do_execve(const char *path, struct exec_args *a, struct trap_frame *tf);

/* The shared pages of executables' read-only segments (user/exec_cache.c):
 * file page `index` of f, read in if new, with a reference for the caller
 * (shared_page_put it once mapped); NULL if it cannot be cached. */
struct file;
struct page;
struct page *exec_cache_page(struct file *f, uint64_t index);
uint64_t exec_cache_pages(void);        /* pages kept, for tests */
void exec_cache_drop_all(void);         /* forget every file (tests) */

/* Pieces of the point of no return that live elsewhere. */
int exec_end_other_threads(void);               /* user/process.c: 0, or -EAGAIN */
void exec_reset_cpu_state(struct thread *t);    /* user/thread_state.c */

#endif
