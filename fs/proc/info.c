/*
 * info.c: the root's fixed files: mounts, filesystems, cpuinfo,
 * meminfo, in Linux's formats, each the part of Linux's that
 * smpvfs has numbers for (docs/reference/procfs.md).  Each read makes
 * the whole text again (generic.c).
 *
 * Locking: mounts walks the mount list under namespace_mutex
 * (iterate_mounts) and prints each mount point with d_path (rename_lock);
 * the rest read counters with no lock.
 */
#include "fs/proc/internal.h"
#include "block/blkdev.h"
#include "fs/dcache.h"
#include "fs/mount.h"
#include "fs/task_fs.h"
#include "kernel/kmalloc.h"
#include "kernel/page_alloc.h"
#include "kernel/string.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"

/* A field of a mount line, with Linux's escapes for the characters that
 * would split it (space, tab, newline, backslash: \040 and so on). */
static void put_escaped(struct proc_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\\')
			proc_printf(b, "\\%03o", (unsigned char)*s);
		else
			proc_putbytes(b, s, 1);
	}
}

struct mounts_ctx {
	struct proc_buf *b;
	struct dentry *root;
	char *path;                /* PATH_MAX */
};

/* Linux's line: source, mount point, type, options, and two zeros (the
 * dump and fsck fields).  The source is the disk for a filesystem on
 * one, else the type's name (as `mount -t proc proc /proc` gives). */
static void mount_line(struct dentry *mp, struct super_block *sb, void *arg)
{
	struct mounts_ctx *c = arg;
	long n = mp ? d_path(mp, c->root, c->path, PATH_MAX) : 2;
	if (!mp)
		strlcpy(c->path, "/", PATH_MAX);
	if (n <= 0)
		return;	/* not under the reader's root */
	if (sb->s_bdev)
		proc_printf(c->b, "/dev/%s ", sb->s_bdev->name);
	else
		proc_printf(c->b, "%s ", sb->s_type->name);
	put_escaped(c->b, c->path);
	proc_printf(c->b, " %s %s,relatime", sb->s_type->name, sb->s_flags & SB_RDONLY ? "ro" : "rw");
	if (sb->s_options[0]) {
		proc_printf(c->b, ",");
		put_escaped(c->b, sb->s_options);
	}
	proc_printf(c->b, " 0 0\n");
}

static int show_mounts(struct proc_buf *b, struct signal_struct *p)
{
	(void)p;
	struct mounts_ctx c = { b, task_root(), kmalloc(PATH_MAX) };
	int err = c.path ? iterate_mounts(mount_line, &c) : -ENOMEM;
	kfree(c.path);
	dput(c.root);
	return err;
}

static void fs_line(const struct file_system_type *t, void *arg)
{
	if (t->mount)	/* the pseudo-filesystems of pipes and sockets are never mounted */
		proc_printf(arg, "%s\t%s\n", t->fs_flags & FS_REQUIRES_DEV ? "" : "nodev", t->name);
}

static int show_filesystems(struct proc_buf *b, struct signal_struct *p)
{
	(void)p;
	for_each_filesystem(fs_line, b);
	return 0;
}

/* The CPU's name as its brand string says (CPUID 0x80000002-4). */
static void cpu_model(char out[49])
{
	uint32_t a, b, c, d, *w = (uint32_t *)out;
	cpuid(0x80000000, 0, &a, &b, &c, &d);
	out[0] = '\0';
	if (a < 0x80000004)
		return;
	for (uint32_t leaf = 0; leaf < 3; leaf++, w += 4)
		cpuid(0x80000002 + leaf, 0, &w[0], &w[1], &w[2], &w[3]);
	out[48] = '\0';
}

/* One paragraph per CPU that came up (nproc --all and the like count
 * "processor" lines). */
static int show_cpuinfo(struct proc_buf *b, struct signal_struct *p)
{
	(void)p;
	char vendor[13], model[49];
	uint32_t a, vb, vc, vd;
	cpuid(0, 0, &a, &vb, &vc, &vd);
	memcpy(vendor, &vb, 4);
	memcpy(vendor + 4, &vd, 4);
	memcpy(vendor + 8, &vc, 4);
	vendor[12] = '\0';
	cpu_model(model);
	uint32_t sig, x;
	cpuid(1, 0, &sig, &x, &x, &x);
	unsigned family = (sig >> 8 & 0xf) + (((sig >> 8 & 0xf) == 0xf) ? (sig >> 20 & 0xff) : 0);
	unsigned mdl = (sig >> 4 & 0xf) | ((sig >> 8 & 0xf) >= 6 ? (sig >> 12 & 0xf0) : 0);
	for (unsigned i = 0; i < ncpus; i++) {
		if (!__atomic_load_n(&cpus[i].online, __ATOMIC_ACQUIRE))
			continue;
		proc_printf(b, "processor\t: %u\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n"
			    "model name\t: %s\napicid\t\t: %u\n\n", i, vendor, family, mdl, model,
			    cpus[i].apic_id);
	}
	return 0;
}

/* The page allocator's counts, in Linux's kB.  MemAvailable is the free
 * memory alone: smpvfs does not estimate what the caches could give back. */
static int show_meminfo(struct proc_buf *b, struct signal_struct *p)
{
	(void)p;
	uint64_t total = page_total_count() * (PAGE_SIZE / 1024);
	uint64_t free = page_free_count() * (PAGE_SIZE / 1024);
	proc_printf(b, "MemTotal:       %8llu kB\nMemFree:        %8llu kB\nMemAvailable:   %8llu kB\n",
		    (unsigned long long)total, (unsigned long long)free, (unsigned long long)free);
	return 0;
}

const struct proc_entry proc_root_files[] = {
	{ .name = "cpuinfo", .mode = S_IFREG | 0444, .show = show_cpuinfo },
	{ .name = "filesystems", .mode = S_IFREG | 0444, .show = show_filesystems },
	{ .name = "meminfo", .mode = S_IFREG | 0444, .show = show_meminfo },
	{ .name = "mounts", .mode = S_IFREG | 0444, .show = show_mounts },
};
const size_t proc_root_nfiles = sizeof(proc_root_files) / sizeof(proc_root_files[0]);
