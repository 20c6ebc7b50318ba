/*
 * chrdev.c: character device drivers by device number, and the memory
 * devices everyone expects: /dev/null (1,3), /dev/zero (1,5), /dev/full
 * (1,7) and /dev/urandom (1,9), as Linux's drivers/char/mem.c numbers
 * them.
 *
 * A device node's inode gets its driver's file operations when it is made
 * or read (init_special_inode asks chrdev_fops), so a driver registers at
 * boot, before any node of its number exists; a number with no driver
 * opens with -ENXIO.  Drivers register only at boot, before other CPUs
 * run file code, and never leave, so the table is read with no lock.
 */
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/random.h"
#include "kernel/string.h"
#include "arch/x86_64/cpu.h"

#define MAX_CHRDEVS 16

static struct {
	uint64_t rdev;
	const struct file_operations *fops;
} chrdevs[MAX_CHRDEVS];
static unsigned nr_chrdevs;

int register_chrdev(uint32_t maj, uint32_t min, const struct file_operations *fops)
{
	if (nr_chrdevs == MAX_CHRDEVS)
		return -ENOSPC;
	chrdevs[nr_chrdevs].rdev = makedev(maj, min);
	chrdevs[nr_chrdevs].fops = fops;
	__atomic_store_n(&nr_chrdevs, nr_chrdevs + 1, __ATOMIC_RELEASE);
	return 0;
}

const struct file_operations *chrdev_fops(uint64_t rdev)
{
	unsigned n = __atomic_load_n(&nr_chrdevs, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n; i++)
		if (chrdevs[i].rdev == rdev)
			return chrdevs[i].fops;
	return NULL;
}

static long null_read(struct file *f, void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return 0;
}

static long null_write(struct file *f, const void *buf, size_t n)
{
	(void)f, (void)buf;
	return (long)n;
}

static long zero_read(struct file *f, void *buf, size_t n)
{
	(void)f;
	memset(buf, 0, n);
	return (long)n;
}

static long full_write(struct file *f, const void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return -ENOSPC;
}

/* Not cryptographic: the TSC, mixed (kernel/random.h). */
static long urandom_read(struct file *f, void *buf, size_t n)
{
	(void)f;
	static uint64_t counter;
	for (size_t i = 0; i < n; i += 8) {
		uint64_t x = mix64(rdtsc() ^ __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
		memcpy((char *)buf + i, &x, n - i < 8 ? n - i : 8);
	}
	return (long)n;
}

static const struct file_operations null_fops = { .stream_read = null_read, .stream_write = null_write };
static const struct file_operations zero_fops = { .stream_read = zero_read, .stream_write = null_write };
static const struct file_operations full_fops = { .stream_read = zero_read, .stream_write = full_write };
static const struct file_operations urandom_fops = { .stream_read = urandom_read, .stream_write = null_write };

void chrdev_init(void)
{
	register_chrdev(1, 3, &null_fops);
	register_chrdev(1, 5, &zero_fops);
	register_chrdev(1, 7, &full_fops);
	register_chrdev(1, 9, &urandom_fops);
}
