/*
 * test_disk.h: the disks a boot's tests may use, by role.
 *
 * The host runner attaches disks and says on the command line what each
 * is for: `ktest.disks=pattern:vda,cold:vdb` (tests/lib/disks.py).  A
 * suite asks for its role with test_disk(): NULL if the boot has no such
 * role (the suite skips: `make run` attaches no disks), and a failed case
 * if the role was given but no disk has that name (the harness and the
 * kernel disagree, which must not pass as a skip).
 *
 * The tests that the host judges print what it must check, one line each
 * (tests/disk_tests.py reads them after QEMU exits):
 *   # HOSTCHECK pattern ROLE FIRST COUNT      sectors hold test_pattern_word(tag 0x5a)
 *   # HOSTCHECK reads ROLE SECTOR COUNT N     exactly N reads touched [SECTOR, SECTOR+COUNT)
 *   # HOSTCHECK overlap ROLE N                at least N reads were at the device at once
 *   # HOSTCHECK writtenbefore ROLE W M        every write of sector W that reached the
 *                                             device before the first read of sector M
 *                                             had ended before that read began, and a
 *                                             flush ran in between (M: read once fsync
 *                                             returned, so fsync waited for W)
 *   # HOSTCHECK sborder ROLE M                an ext2 disk mounted after each read of
 *                                             sector M: each mount's first write is the
 *                                             superblock, alone; the last write of all
 *                                             is the superblock, after all others, then
 *                                             a flush
 *   # HOSTCHECK listing ROLE DIR              the tree under DIR in the image (read by
 *                                             debugfs after the boot) is the one the
 *                                             # LIST lines that follow describe
 * A listing line: PATH TYPE MODE UID GID SIZE NLINK TARGET SUM, with "-"
 * for what a type has not (a directory's size, a file's target), SUM the
 * FNV-1a hash of a regular file's bytes; see test_print_listing.
 */
#ifndef TESTS_TEST_DISK_H
#define TESTS_TEST_DISK_H

#include <stdint.h>
#include "block/blkdev.h"

struct block_device *test_disk(const char *role);
/* Like test_disk, but skips the case when the role is absent. */
struct block_device *test_disk_or_skip(const char *role);

/* Word i (0..63) of sector s in the test pattern with tag (0xa5: written
 * by the host; 0x5a: by the kernel).  tests/lib/disks.py computes the same. */
static inline uint64_t test_pattern_word(uint64_t s, unsigned i, uint8_t tag)
{
	return (uint64_t)tag << 56 | s << 8 | i;
}

/* Print the HOSTCHECK listing line for the tree at mounted directory
 * `dir` (DIR in the image is `image_dir`), then one # LIST line per entry
 * below it, then # LIST-END.  Returns how many entries, or a negative
 * errno if the walk failed. */
long test_print_listing(const char *role, const char *dir, const char *image_dir);

#endif
