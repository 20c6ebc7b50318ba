/*
 * sys_cred.c: the credential calls, per process as a C library presents
 * them.
 *
 * In the kernel, credentials are per thread (kernel/cred.h: each thread
 * reads its own with no lock).  A C library makes setuid and its kin
 * reach every thread of the process (glibc signals each thread to repeat
 * the call).  smpvfs does that itself: the calling thread commits the new
 * credentials and publishes them in its process (signal_struct.cred, a
 * generation count moved under siglock); every other thread of the
 * process adopts them at its next system call, before the call runs
 * (both halves: user/process_cred.c).  One uid and one gid: the real,
 * effective, saved and filesystem IDs are always equal (kernel/cred.h),
 * so setreuid and setresuid take the effective one they are given.
 */
#include "user/sys.h"
#include "user/process.h"
#include "kernel/cred.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/thread.h"
#include "kernel/uaccess.h"

/* The one ID setre[ug]id and setres[ug]id stand for: the effective one,
 * or the real one if only that is given; -1 for none. */
static uint32_t pick(uint64_t real, uint64_t eff)
{
	return (uint32_t)eff != (uint32_t)-1 ? (uint32_t)eff : (uint32_t)real;
}

long x64_setuid(struct trap_frame *r)
{
	return publish_process_creds(sys_setuid((uint32_t)ARG1(r)));
}

long x64_setgid(struct trap_frame *r)
{
	return publish_process_creds(sys_setgid((uint32_t)ARG1(r)));
}

long x64_setreuid(struct trap_frame *r)
{
	uint32_t id = pick(ARG1(r), ARG2(r));
	return id == (uint32_t)-1 ? 0 : publish_process_creds(sys_setuid(id));
}

long x64_setregid(struct trap_frame *r)
{
	uint32_t id = pick(ARG1(r), ARG2(r));
	return id == (uint32_t)-1 ? 0 : publish_process_creds(sys_setgid(id));
}

long x64_setresuid(struct trap_frame *r)
{
	uint32_t id = pick(ARG1(r), ARG2(r));
	return id == (uint32_t)-1 ? 0 : publish_process_creds(sys_setuid(id));
}

long x64_setresgid(struct trap_frame *r)
{
	uint32_t id = pick(ARG1(r), ARG2(r));
	return id == (uint32_t)-1 ? 0 : publish_process_creds(sys_setgid(id));
}

long x64_setgroups(struct trap_frame *r)
{
	uint64_t n = ARG1(r);
	uint32_t groups[NGROUPS_MAX];
	if (n > NGROUPS_MAX)
		return -EINVAL;
	if (n && copy_from_user(groups, ARG2(r), n * sizeof(uint32_t)))
		return -EFAULT;
	return publish_process_creds(sys_setgroups((unsigned)n, groups));
}

long x64_getgroups(struct trap_frame *r)
{
	int64_t size = (int64_t)(int32_t)ARG1(r);
	uint32_t groups[NGROUPS_MAX];
	if (size < 0)
		return -EINVAL;
	int n = sys_getgroups(NGROUPS_MAX, groups);
	if (size == 0)
		return n;
	if (size < n)
		return -EINVAL;
	return copy_to_user(ARG2(r), groups, (size_t)n * sizeof(uint32_t)) ? -EFAULT : n;
}

long x64_getuid(struct trap_frame *r)
{
	(void)r;
	return sys_getuid();
}

long x64_geteuid(struct trap_frame *r)
{
	(void)r;
	return sys_getuid();
}

long x64_getgid(struct trap_frame *r)
{
	(void)r;
	return sys_getgid();
}

long x64_getegid(struct trap_frame *r)
{
	(void)r;
	return sys_getgid();
}

static long put_three(uint64_t a, uint64_t b, uint64_t c, uint32_t id)
{
	return put_user(id, (uint32_t *)a) || put_user(id, (uint32_t *)b) ||
	       put_user(id, (uint32_t *)c) ? -EFAULT : 0;
}

long x64_getresuid(struct trap_frame *r)
{
	return put_three(ARG1(r), ARG2(r), ARG3(r), sys_getuid());
}

long x64_getresgid(struct trap_frame *r)
{
	return put_three(ARG1(r), ARG2(r), ARG3(r), sys_getgid());
}

long user_umask(uint32_t mask)
{
	uint32_t old = sys_umask(mask);
	publish_process_creds(0);
	return old;
}
