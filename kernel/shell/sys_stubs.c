/*
 * sys_stubs.c: TEMPORARY weak stand-ins for the file layer (fs/syscalls.h)
 * until main has it: each fails with -ENOSYS.  The real (strong)
 * definitions replace them at link time; this file goes once they land.
 */
#include "fs/syscalls.h"
#include "kernel/errno.h"

#define WEAK __attribute__((weak))
WEAK int sys_open(const char *p, int f, uint32_t m) { (void)p; (void)f; (void)m; return -ENOSYS; }
WEAK int sys_close(int fd) { (void)fd; return -ENOSYS; }
WEAK long sys_read(int fd, void *b, size_t n) { (void)fd; (void)b; (void)n; return -ENOSYS; }
WEAK long sys_write(int fd, const void *b, size_t n) { (void)fd; (void)b; (void)n; return -ENOSYS; }
WEAK long sys_getdents(int fd, void *b, size_t n) { (void)fd; (void)b; (void)n; return -ENOSYS; }
WEAK int sys_stat(const char *p, struct kstat *s) { (void)p; (void)s; return -ENOSYS; }
WEAK int sys_lstat(const char *p, struct kstat *s) { (void)p; (void)s; return -ENOSYS; }
WEAK long sys_readlink(const char *p, char *b, size_t n) { (void)p; (void)b; (void)n; return -ENOSYS; }
WEAK int sys_chdir(const char *p) { (void)p; return -ENOSYS; }
WEAK long sys_getcwd(char *b, size_t n) { if (n < 2) return -ERANGE; b[0] = '/'; b[1] = 0; return 2; }
WEAK int sys_mkdir(const char *p, uint32_t m) { (void)p; (void)m; return -ENOSYS; }
WEAK int sys_rmdir(const char *p) { (void)p; return -ENOSYS; }
WEAK int sys_unlink(const char *p) { (void)p; return -ENOSYS; }
WEAK int sys_rename(const char *a, const char *b) { (void)a; (void)b; return -ENOSYS; }
WEAK int sys_link(const char *a, const char *b) { (void)a; (void)b; return -ENOSYS; }
WEAK int sys_symlink(const char *a, const char *b) { (void)a; (void)b; return -ENOSYS; }
WEAK int sys_mount(const char *t, const char *d, const char *o) { (void)t; (void)d; (void)o; return -ENOSYS; }
WEAK int sys_umount(const char *d) { (void)d; return -ENOSYS; }
