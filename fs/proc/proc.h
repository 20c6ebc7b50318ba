/* proc.h: procfs, the kernel's state as files (fs/proc/; the design:
 * docs/design/26-procfs.md, the files: docs/reference/procfs.md). */
#ifndef FS_PROC_PROC_H
#define FS_PROC_PROC_H

int proc_register(void);         /* the "proc" type (vfs_init) */
void proc_mount_boot(void);      /* mkdir /proc and mount it there (boot) */
/* Tests only: called by the lookup of a PID directory between finding
 * the process alive and hashing its dentry.  NULL but in tests. */
extern void (*proc_pid_lookup_hook)(unsigned pid);

#endif
