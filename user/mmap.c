/*
 * mmap.c: brk, mmap, munmap, mprotect and madvise (kernel/mm.c does the
 * work; this is Linux's contract around it).
 *
 * Every mapping is anonymous memory.  A private file mapping is one too,
 * with the file's bytes read into it at once (glibc's locale and a few
 * programs map files read-only); a shared file mapping is refused with
 * ENODEV, as for a file whose filesystem cannot map.
 */
#include "user/sys.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/mm.h"
#include "kernel/thread.h"
#include "kernel/uaccess.h"

#define MAP_SHARED    0x01
#define MAP_PRIVATE   0x02
#define MAP_TYPE      0x0f
#define MAP_FIXED     0x10
#define MAP_ANONYMOUS 0x20
#define MAP_FIXED_NOREPLACE 0x100000

long x64_brk(struct trap_frame *r)
{
	struct mm_struct *mm = current_thread()->mm;
	uint64_t want = ARG1(r);
	down_write(&mm->mmap_lock);
	uint64_t old_end = ALIGN_UP(mm->brk, PAGE_SIZE), new_end = ALIGN_UP(want, PAGE_SIZE);
	bool ok = want >= mm->start_brk && want < USER_MMAP_BASE;
	if (ok && new_end > old_end) {	/* grow, unless it would cover another mapping */
		ok = !mm_find_vma_intersection(mm, old_end, new_end);
		ok = ok && mm_map(mm, old_end, new_end - old_end, PROT_READ | PROT_WRITE, VMA_HEAP) == 0;
	} else if (ok && new_end < old_end) {
		ok = mm_unmap(mm, new_end, old_end - new_end) == 0;
	}
	if (ok)
		mm->brk = want;
	uint64_t cur = mm->brk;
	up_write(&mm->mmap_lock);
	return (long)cur;	/* Linux: the new break, or the old one on failure */
}

/* A private file mapping: its bytes, read now. */
static long fill_from_file(uint64_t addr, uint64_t len, int fd, uint64_t off)
{
	for (uint64_t done = 0; done < len;) {
		char buf[512];
		uint64_t n = len - done < sizeof(buf) ? len - done : sizeof(buf);
		long got = sys_pread(fd, buf, n, (int64_t)(off + done));
		if (got < 0)
			return got;
		if (got == 0)
			break;	/* past the end: zeros */
		if (copy_to_user(addr + done, buf, (size_t)got))
			return -EFAULT;
		done += (uint64_t)got;
	}
	return 0;
}

long x64_mmap(struct trap_frame *r)
{
	uint64_t addr = ARG1(r), len = ARG2(r), off = ARG6(r);
	unsigned prot = (unsigned)ARG3(r), flags = (unsigned)ARG4(r);
	int fd = (int)ARG5(r);
	struct mm_struct *mm = current_thread()->mm;
	unsigned type = flags & MAP_TYPE;
	bool anon = flags & MAP_ANONYMOUS;
	if (len == 0 || (off & (PAGE_SIZE - 1)) || (type != MAP_SHARED && type != MAP_PRIVATE) ||
	    (prot & ~(unsigned)(PROT_READ | PROT_WRITE | PROT_EXEC)))
		return -EINVAL;
	if (len > USER_TOP)
		return -ENOMEM;
	if (!anon) {
		struct file *f = fget(fd);
		if (!f)
			return -EBADF;
		bool regular = S_ISREG(f->f_inode->i_mode), readable = file_readable(f);
		fput(f);
		if (!regular || type == MAP_SHARED)
			return -ENODEV;
		if (!readable)
			return -EACCES;
	}
	len = ALIGN_UP(len, PAGE_SIZE);
	down_write(&mm->mmap_lock);
	long ret;
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		ret = (addr & (PAGE_SIZE - 1)) ? -EINVAL : 0;
		if (!ret && (flags & MAP_FIXED_NOREPLACE) && addr + len > addr &&
		    mm_find_vma_intersection(mm, addr, addr + len))
			ret = -EEXIST;
	} else {
		addr = mm_find_free(mm, len);
		ret = addr ? 0 : -ENOMEM;
	}
	if (!ret)
		ret = mm_map(mm, addr, len, anon ? prot : prot | PROT_WRITE, VMA_ANON);
	up_write(&mm->mmap_lock);
	if (!ret && !anon) {
		/* Filled through the user address (PROT_WRITE for now), then
		 * given the protection asked for. */
		ret = fill_from_file(addr, ARG2(r), fd, off);
		down_write(&mm->mmap_lock);
		if (!ret)
			ret = mm_protect(mm, addr, len, prot);
		else
			mm_unmap(mm, addr, len);
		up_write(&mm->mmap_lock);
	}
	return ret ? ret : (long)addr;
}

long x64_munmap(struct trap_frame *r)
{
	struct mm_struct *mm = current_thread()->mm;
	uint64_t addr = ARG1(r), len = ARG2(r);
	if ((addr & (PAGE_SIZE - 1)) || len == 0 || addr >= USER_TOP || len > USER_TOP - addr)
		return -EINVAL;
	down_write(&mm->mmap_lock);
	long ret = mm_unmap(mm, addr, len);
	up_write(&mm->mmap_lock);
	return ret == -ENOMEM ? -EINVAL : ret;
}

long x64_mprotect(struct trap_frame *r)
{
	struct mm_struct *mm = current_thread()->mm;
	uint64_t addr = ARG1(r), len = ARG2(r);
	unsigned prot = (unsigned)ARG3(r);
	if (prot & ~(unsigned)(PROT_READ | PROT_WRITE | PROT_EXEC | 0x01000000 /* PROT_GROWSDOWN */))
		return -EINVAL;
	if (addr & (PAGE_SIZE - 1))
		return -EINVAL;
	if (len == 0)
		return 0;
	down_write(&mm->mmap_lock);
	long ret = mm_protect(mm, addr, len, prot & (PROT_READ | PROT_WRITE | PROT_EXEC));
	up_write(&mm->mmap_lock);
	return ret;
}

long x64_madvise(struct trap_frame *r)
{
	return (ARG1(r) & (PAGE_SIZE - 1)) ? -EINVAL : 0;
}
