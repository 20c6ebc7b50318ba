/*
 * exec.c: execve of static ELF executables (and #! scripts).
 *
 * The steps, as Linux's fs/exec.c and fs/binfmt_elf.c take them:
 *   1. The arguments and environment are copied into the kernel
 *      (struct exec_args) while the old address space still exists.
 *   2. The file is found (a regular file someone may execute: EACCES
 *      otherwise) and read: "#!" names an interpreter, which is run with
 *      the script's path as its argument (at most four levels: ELOOP);
 *      an ELF header must be a 64-bit x86-64 executable (ENOEXEC).  One
 *      with a PT_INTERP segment needs a dynamic loader, which smpvfs does
 *      not have: ENOEXEC, with a message saying so.
 *   3. A new address space is built beside the old one: each PT_LOAD's
 *      pages are made and the file's bytes copied in (the rest of the
 *      segment is zero pages, made on first touch; a read-only segment's
 *      whole pages are the exec cache's, mapped shared: user/exec_cache.c,
 *      share_pages), the stack VMA, and on
 *      the stack the strings, the random bytes glibc's AT_RANDOM points
 *      to, the auxiliary vector, envp, argv and argc, as the x86-64 ABI
 *      lays them out.  Any failure so far returns to the caller, whose
 *      address space is untouched.
 *   4. The point of no return (exec_commit): the other threads of the
 *      process are ended, the new address space replaces the old one,
 *      close-on-exec descriptors are closed, handled signals go back to
 *      their default, the FS and GS bases and the FPU are reset, and the
 *      registers are set: rip at the entry, rsp at argc, everything else
 *      zero (rdx = 0: no function for atexit, as glibc's _start expects).
 */
#include "user/exec.h"
#include "user/process.h"
#include "user/exec_info.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/namei.h"
#include "fs/permission.h"
#include "fs/task_fs.h"
#include "kernel/cred.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/err.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/mm.h"
#include "kernel/random.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/uaccess.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/trap.h"

/* ELF64, as the System V ABI defines it. */
struct elf64_ehdr {
	unsigned char e_ident[16];
	uint16_t e_type, e_machine;
	uint32_t e_version;
	uint64_t e_entry, e_phoff, e_shoff;
	uint32_t e_flags;
	uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
};

struct elf64_phdr {
	uint32_t p_type, p_flags;
	uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
};

#define ET_EXEC 2
#define ET_DYN 3
#define EM_X86_64 62
#define PT_LOAD 1
#define PT_INTERP 3
#define PT_PHDR 6
#define PF_X 1
#define PF_W 2
#define PF_R 4
#define MAX_PHNUM 64
#define ET_DYN_BASE 0x555555554000ULL   /* where a static PIE goes (Linux's, without ASLR) */
#define MAX_SCRIPT_DEPTH 4
#define BINPRM_BUF 256

/* Auxiliary vector keys. */
#define AT_NULL 0
#define AT_PHDR 3
#define AT_PHENT 4
#define AT_PHNUM 5
#define AT_PAGESZ 6
#define AT_BASE 7
#define AT_FLAGS 8
#define AT_ENTRY 9
#define AT_UID 11
#define AT_EUID 12
#define AT_GID 13
#define AT_EGID 14
#define AT_PLATFORM 15
#define AT_HWCAP 16
#define AT_CLKTCK 17
#define AT_SECURE 23
#define AT_RANDOM 25
#define AT_HWCAP2 26
#define AT_EXECFN 31

/* ---- the arguments ------------------------------------------------- */

void exec_args_free(struct exec_args *a)
{
	kfree(a->strings);
	kfree(a->argv);
	a->strings = NULL;
	a->argv = NULL;
}

/* Append one string (of len bytes, NUL added) to a's pool. */
static int pool_add(struct exec_args *a, const char *s, size_t len)
{
	if (a->used + len + 1 > EXEC_ARG_MAX)
		return -E2BIG;
	memcpy(a->strings + a->used, s, len);
	a->strings[a->used + len] = '\0';
	a->used += len + 1;
	return 0;
}

static int args_init(struct exec_args *a)
{
	memset(a, 0, sizeof(*a));
	a->strings = kmalloc(EXEC_ARG_MAX);
	return a->strings ? 0 : -ENOMEM;
}

/* The pointers argv[0..argc) and envp after them, into the pool. */
static int args_index(struct exec_args *a)
{
	unsigned n = a->argc + a->envc;
	a->argv = kmalloc((n + 1) * sizeof(char *));
	if (!a->argv)
		return -ENOMEM;
	char *p = a->strings;
	for (unsigned i = 0; i < n; i++) {
		a->argv[i] = p;
		p += strlen(p) + 1;
	}
	a->argv[n] = NULL;
	return 0;
}

int exec_args_from_kernel(struct exec_args *a, char *const argv[], char *const envp[])
{
	int err = args_init(a);
	for (unsigned i = 0; !err && argv && argv[i]; i++, a->argc++)
		err = pool_add(a, argv[i], strlen(argv[i]));
	for (unsigned i = 0; !err && envp && envp[i]; i++, a->envc++)
		err = pool_add(a, envp[i], strlen(envp[i]));
	if (!err)
		err = args_index(a);
	if (err)
		exec_args_free(a);
	return err;
}

/* A NULL-terminated array of user string pointers into the pool. */
static int copy_strings(struct exec_args *a, uint64_t uvec, unsigned *count)
{
	for (unsigned i = 0; uvec; i++) {
		uint64_t up;
		if (get_user(up, uvec + 8 * i))
			return -EFAULT;
		if (!up)
			return 0;
		size_t room = EXEC_ARG_MAX - a->used;
		long n = strncpy_from_user(a->strings + a->used, up, room);
		if (n < 0)
			return (int)n;
		if ((size_t)n == room)
			return -E2BIG;
		a->used += (size_t)n + 1;
		(*count)++;
	}
	return 0;
}

int exec_args_from_user(struct exec_args *a, uint64_t uargv, uint64_t uenvp)
{
	int err = args_init(a);
	if (!err)
		err = copy_strings(a, uargv, &a->argc);
	if (!err)
		err = copy_strings(a, uenvp, &a->envc);
	if (!err)
		err = args_index(a);
	if (err)
		exec_args_free(a);
	return err;
}

/* "#!interp arg": argv becomes interp [arg] path argv[1..]. */
static int args_for_script(struct exec_args *a, const char *interp, const char *arg,
			   const char *path)
{
	struct exec_args n;
	int err = args_init(&n);
	if (err)
		return err;
	err = pool_add(&n, interp, strlen(interp));
	n.argc = 1;
	if (!err && arg) {
		err = pool_add(&n, arg, strlen(arg));
		n.argc++;
	}
	if (!err) {
		err = pool_add(&n, path, strlen(path));
		n.argc++;
	}
	for (unsigned i = 1; !err && i < a->argc + a->envc; i++) {
		err = pool_add(&n, a->argv[i], strlen(a->argv[i]));
		if (i < a->argc)
			n.argc++;
		else
			n.envc++;
	}
	if (!err)
		err = args_index(&n);
	if (err) {
		exec_args_free(&n);
		return err;
	}
	exec_args_free(a);
	*a = n;
	return 0;
}

/* ---- the file -------------------------------------------------------- */

/* Linux's open_exec: a regular file the caller may execute, opened for
 * reading by the kernel (no read permission needed). */
static struct file *open_exec(const char *path)
{
	struct dentry *d = path_lookup(path, 0);
	if (IS_ERR(d))
		return (struct file *)d;
	struct inode *inode = d->d_inode;
	int err = !S_ISREG(inode->i_mode) ? -EACCES : inode_permission(inode, MAY_EXEC);
	if (err) {
		dput(d);
		return ERR_PTR(err);
	}
	struct file *f = file_alloc(d, O_RDONLY);
	return f ? f : ERR_PTR(-ENOMEM);
}

static int read_exact(struct file *f, void *buf, size_t n, uint64_t off)
{
	long r = kernel_read(f, buf, n, off);
	if (r < 0)
		return (int)r;
	return (size_t)r == n ? 0 : -ENOEXEC;
}

/* Parse "#!interp [arg]" in buf (NUL-terminated): 0 or -ENOEXEC. */
static int parse_shebang(char *buf, char **interp, char **arg)
{
	char *end = strchr(buf, '\n');
	if (!end)
		return -ENOEXEC;	/* a first line longer than BINPRM_BUF */
	*end = '\0';
	char *p = buf + 2;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return -ENOEXEC;
	*interp = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	*arg = NULL;
	if (*p) {
		*p++ = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		char *q = p + strlen(p);
		while (q > p && (q[-1] == ' ' || q[-1] == '\t'))
			*--q = '\0';
		if (*p)
			*arg = p;	/* Linux: the rest of the line, one argument */
	}
	return 0;
}

/* ---- the new address space -------------------------------------------- */

struct image {
	struct mm_struct *mm;
	struct exec_info *info;    /* what procfs will show: swapped in at the commit */
	uint64_t entry, phdr, phnum, bias;
	uint64_t sp;
};

static unsigned elf_prot(uint32_t flags)
{
	return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) |
	       (flags & PF_X ? PROT_EXEC : 0);
}

/* Copy n bytes to addr in mm, page by page (the pages are made). */
static int mm_write(struct mm_struct *mm, uint64_t addr, const void *src, size_t n)
{
	while (n) {
		char *dst = mm_page_at(mm, addr);
		if (!dst)
			return -ENOMEM;
		size_t k = PAGE_SIZE - (addr & (PAGE_SIZE - 1));
		if (k > n)
			k = n;
		memcpy(dst, src, k);
		addr += k;
		src = (const char *)src + k;
		n -= k;
	}
	return 0;
}

/* The file's bytes of one segment, read straight into its pages (the
 * pages already mapped shared have them). */
static int load_file_bytes(struct mm_struct *mm, struct file *f, uint64_t addr, uint64_t off,
			   uint64_t n)
{
	while (n) {
		size_t k = PAGE_SIZE - (addr & (PAGE_SIZE - 1));
		if (k > n)
			k = n;
		if (mm_page_is_shared(mm, addr)) {
			addr += k;
			off += k;
			n -= k;
			continue;
		}
		char *dst = mm_page_at(mm, addr);
		if (!dst)
			return -ENOMEM;
		int err = read_exact(f, dst, k, off);
		if (err)
			return err;
		addr += k;
		off += k;
		n -= k;
	}
	return 0;
}

/*
 * A read-only segment's pages come from the exec cache, shared, where
 * each page holds only this segment's bytes: not a first page another
 * segment also uses (mapped_end), not a last page the next segment
 * starts in (next_start), not a page past the file's bytes (bss).
 */
static int share_pages(struct image *im, struct file *f, const struct elf64_phdr *ph,
		       uint64_t pstart, uint64_t pend, uint64_t next_start)
{
	uint64_t start = ph->p_vaddr + im->bias, file_end = start + ph->p_filesz;
	uint64_t off0 = ALIGN_DOWN(ph->p_offset, PAGE_SIZE);
	if (pend > file_end)
		pend = file_end;	/* a page past the file's bytes is never shared: not a huge bss's loop */
	for (uint64_t va = pstart; va < pend; va += PAGE_SIZE) {
		bool whole = va + PAGE_SIZE <= file_end || (ph->p_memsz == ph->p_filesz && va < file_end);
		if (!whole || va + PAGE_SIZE > next_start)
			continue;
		struct page *pg = exec_cache_page(f, (off0 + (va - ALIGN_DOWN(start, PAGE_SIZE))) / PAGE_SIZE);
		if (!pg)
			continue;	/* not cached: load_file_bytes copies it */
		int err = mm_map_shared_page(im->mm, va, pg);
		shared_page_put(pg);
		if (err)
			return err;
	}
	return 0;
}

static int load_segment(struct image *im, struct file *f, const struct elf64_phdr *ph,
			uint64_t *mapped_end, uint64_t next_start)
{
	uint64_t start = ph->p_vaddr + im->bias, end = start + ph->p_memsz;
	if (ph->p_filesz > ph->p_memsz || end < start || end > USER_TOP ||
	    (ph->p_vaddr & (PAGE_SIZE - 1)) != (ph->p_offset & (PAGE_SIZE - 1)))
		return -ENOEXEC;
	/* Bytes past the file's end would fail to read anyway; refusing them
	 * here keeps the page loops below proportional to the file. */
	int64_t size = f->f_inode->i_size;
	if (ph->p_offset > (uint64_t)size || ph->p_filesz > (uint64_t)size - ph->p_offset)
		return -ENOEXEC;
	uint64_t pstart = ALIGN_DOWN(start, PAGE_SIZE), pend = ALIGN_UP(end, PAGE_SIZE);
	unsigned prot = elf_prot(ph->p_flags);
	int err = 0;
	if (pstart < *mapped_end) {	/* shares its first page with the last segment */
		struct vm_area *v = mm_find_vma(im->mm, pstart);
		if (v) {	/* mm_protect's rule, though no thread has this mm yet */
			down_write(&im->mm->mmap_lock);
			err = mm_protect(im->mm, pstart, PAGE_SIZE, v->prot | prot);
			up_write(&im->mm->mmap_lock);
		}
		pstart += PAGE_SIZE;
	}
	if (!err && pend > pstart)
		err = mm_map(im->mm, pstart, pend - pstart, prot, VMA_IMAGE);
	if (!err && !(prot & PROT_WRITE))
		err = share_pages(im, f, ph, pstart, pend, next_start);
	if (!err)
		err = load_file_bytes(im->mm, f, start, ph->p_offset, ph->p_filesz);
	if (pend > *mapped_end)
		*mapped_end = pend;
	return err;
}

static int load_elf(struct image *im, struct file *f, const struct elf64_ehdr *eh, const char *path)
{
	if (eh->e_ident[4] != 2 || eh->e_ident[5] != 1 || eh->e_machine != EM_X86_64 ||
	    (eh->e_type != ET_EXEC && eh->e_type != ET_DYN) ||
	    eh->e_phentsize != sizeof(struct elf64_phdr) || eh->e_phnum == 0 || eh->e_phnum > MAX_PHNUM)
		return -ENOEXEC;
	size_t phsize = eh->e_phnum * sizeof(struct elf64_phdr);
	struct elf64_phdr *ph = kmalloc(phsize);
	if (!ph)
		return -ENOMEM;
	int err = read_exact(f, ph, phsize, eh->e_phoff);
	for (unsigned i = 0; !err && i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_INTERP) {
			kprintf("exec: %s is dynamically linked (it asks for a program interpreter); "
				"smpvfs runs only static executables\n", path);
			err = -ENOEXEC;
		}
	im->bias = eh->e_type == ET_DYN ? ET_DYN_BASE : 0;
	im->entry = eh->e_entry + im->bias;
	im->phnum = eh->e_phnum;
	uint64_t mapped_end = 0, brk = 0;
	for (unsigned i = 0; !err && i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_PHDR)
			im->phdr = ph[i].p_vaddr + im->bias;
		if (ph[i].p_type != PT_LOAD)
			continue;
		uint64_t next_start = UINT64_MAX;	/* where the next PT_LOAD's first page is */
		for (unsigned j = i + 1; j < eh->e_phnum && next_start == UINT64_MAX; j++)
			if (ph[j].p_type == PT_LOAD)
				next_start = ALIGN_DOWN(ph[j].p_vaddr + im->bias, PAGE_SIZE);
		err = load_segment(im, f, &ph[i], &mapped_end, next_start);
		if (!im->phdr && eh->e_phoff >= ph[i].p_offset &&
		    eh->e_phoff - ph[i].p_offset < ph[i].p_filesz)
			im->phdr = ph[i].p_vaddr + im->bias + (eh->e_phoff - ph[i].p_offset);
		if (mapped_end > brk)
			brk = mapped_end;
	}
	if (!err && !brk)
		err = -ENOEXEC;		/* nothing to load */
	im->mm->start_brk = im->mm->brk = brk;
	kfree(ph);
	return err;
}

/* The initial stack (System V x86-64 ABI, figure 3.9), from the top:
 * strings, then 16 random bytes, then (16-byte aligned) argc, argv,
 * NULL, envp, NULL, the auxiliary vector. */
static int build_stack(struct image *im, const struct exec_args *a, const char *execfn)
{
	struct mm_struct *mm = im->mm;
	int err = mm_map(mm, USER_STACK_TOP - USER_STACK_SIZE, USER_STACK_SIZE,
			 PROT_READ | PROT_WRITE, VMA_STACK);
	if (err)
		return err;
	uint64_t sp = USER_STACK_TOP;
	unsigned n = a->argc + a->envc;
	uint64_t *ptrs = kmalloc((n + 1) * sizeof(uint64_t));
	if (!ptrs)
		return -ENOMEM;
	/* Strings, last first, so argv[0] ends lowest. */
	const char *platform = "x86_64";
	size_t len = strlen(execfn) + 1;
	sp -= len;
	uint64_t execfn_at = sp;
	err = mm_write(mm, sp, execfn, len);
	sp -= 7;
	uint64_t platform_at = sp;
	if (!err)
		err = mm_write(mm, sp, platform, 7);
	for (int i = (int)n - 1; !err && i >= 0; i--) {
		len = strlen(a->argv[i]) + 1;
		sp -= len;
		ptrs[i] = sp;
		err = mm_write(mm, sp, a->argv[i], len);
	}
	uint64_t rnd[2] = { rdtsc() ^ mix64((uint64_t)im), mix64(rdtsc()) };
	sp = ALIGN_DOWN(sp, 16) - 16;
	uint64_t random_at = sp;
	if (!err)
		err = mm_write(mm, sp, rnd, sizeof(rnd));
	const struct cred *c = current_cred();
	uint32_t eax, ebx, ecx, edx;
	cpuid(1, 0, &eax, &ebx, &ecx, &edx);
	uint64_t auxv[] = {
		AT_PHDR, im->phdr, AT_PHENT, sizeof(struct elf64_phdr), AT_PHNUM, im->phnum,
		AT_PAGESZ, PAGE_SIZE, AT_BASE, 0, AT_FLAGS, 0, AT_ENTRY, im->entry,
		AT_UID, c->uid, AT_EUID, c->uid, AT_GID, c->gid, AT_EGID, c->gid,
		AT_PLATFORM, platform_at, AT_HWCAP, edx, AT_CLKTCK, 100, AT_SECURE, 0,
		AT_RANDOM, random_at, AT_HWCAP2, 0, AT_EXECFN, execfn_at, AT_NULL, 0,
	};
	/* argc, argv (argc + 1), envp (envc + 1), auxv: keep rsp 16-aligned. */
	size_t words = 1 + (a->argc + 1) + (a->envc + 1) + sizeof(auxv) / 8;
	sp -= words * 8;
	sp = ALIGN_DOWN(sp, 16);
	im->sp = sp;
	uint64_t at = sp, argc = a->argc, zero = 0;
	if (!err)
		err = mm_write(mm, at, &argc, 8);
	at += 8;
	for (unsigned i = 0; !err && i <= n; i++) {
		if (i == a->argc) {	/* the NULL after argv */
			err = mm_write(mm, at, &zero, 8);
			at += 8;
			if (err)
				break;
		}
		err = mm_write(mm, at, i < n ? &ptrs[i] : &zero, 8);
		at += 8;
	}
	if (!err)
		err = mm_write(mm, at, auxv, sizeof(auxv));
	kfree(ptrs);
	return err;
}

/* ---- the point of no return ---------------------------------------- */

static const char *basename_of(const char *path)
{
	const char *b = path;
	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1])
			b = p + 1;
	return b;
}

static int exec_commit(struct image *im, const char *path, struct trap_frame *tf)
{
	struct thread *self = current_thread();
	int err = exec_end_other_threads();
	if (err)
		return err;	/* another execve or an exit won: nothing changed */
	process_set_exec_info(self->signal, im->info);
	im->info = NULL;
	mmput(mm_activate(im->mm));
	im->mm = NULL;
	fd_close_on_exec();
	flush_signal_handlers(self->signal);
	self->clear_child_tid = 0;
	exec_reset_cpu_state(self);
	const char *b = basename_of(path);
	strlcpy(self->signal->comm, b, sizeof(self->signal->comm));
	strlcpy(self->name, b, sizeof(self->name));
	memset(tf, 0, sizeof(*tf));
	tf->rip = im->entry;
	tf->rsp = im->sp;
	tf->cs = USER_CS;
	tf->ss = USER_DS;
	tf->rflags = RFLAGS_IF | 0x2;	/* bit 1 is always set */
	tf->vector = TRAP_SYSCALL;
	tf->error = (uint64_t)-1;	/* not in a system call: nothing to restart */
	return 0;
}

int do_execve(const char *path, struct exec_args *a, struct trap_frame *tf)
{
	char *buf = kmalloc(BINPRM_BUF + 1);
	char *name = kmalloc(PATH_MAX);
	if (!buf || !name) {
		kfree(buf);
		kfree(name);
		return -ENOMEM;
	}
	strlcpy(name, path, PATH_MAX);
	struct image im = { 0 };
	int err = 0;
	for (unsigned depth = 0;; depth++) {
		struct file *f = open_exec(name);
		if (IS_ERR(f)) {
			err = (int)PTR_ERR(f);
			break;
		}
		long r = kernel_read(f, buf, BINPRM_BUF, 0);
		buf[r > 0 ? r : 0] = '\0';
		char *interp, *arg;
		if (r >= 2 && buf[0] == '#' && buf[1] == '!') {
			fput(f);
			err = depth == MAX_SCRIPT_DEPTH ? -ELOOP : parse_shebang(buf, &interp, &arg);
			if (!err)
				err = args_for_script(a, interp, arg, name);
			if (err)
				break;
			strlcpy(name, interp, PATH_MAX);
			continue;
		}
		if (r < (long)sizeof(struct elf64_ehdr) || memcmp(buf, "\177ELF", 4) != 0) {
			fput(f);
			err = r < 0 ? (int)r : -ENOEXEC;
			break;
		}
		im.mm = mm_alloc();
		im.info = exec_info_new(dget(f->f_dentry), a);
		err = im.mm && im.info ? load_elf(&im, f, (struct elf64_ehdr *)buf, name) : -ENOMEM;
		fput(f);
		if (!err)
			err = build_stack(&im, a, name);
		break;
	}
	if (!err)
		err = exec_commit(&im, name, tf);
	if (im.mm)
		mmput(im.mm);
	exec_info_put(im.info);
	kfree(buf);
	kfree(name);
	return err;
}
