/*
 * sandbox.h: a private, freshly mounted ramfs for one VFS test case.
 *
 *     struct sandbox sb;
 *     sandbox_enter(&sb, "rename");     // /sandbox-rename.N, a new ramfs; cwd there
 *     ... relative paths now work inside it ...
 *     sandbox_leave(&sb);               // unmounts; checks nothing leaked
 *
 * The case's thread gets its own cwd and descriptor table (threads it
 * starts share them).  Leaving closes every descriptor, unmounts (which
 * must succeed: nothing of the sandbox may still be in use) and checks
 * that the dentry, inode and file counts are back where they started.
 */
#ifndef TESTS_SANDBOX_H
#define TESTS_SANDBOX_H

#include <stdint.h>

struct sandbox {
	char path[64];
	char disk_dir[48];         /* on a disk or a share: the work directory's path in the image */
	uint64_t dentries, inodes, files;
};

struct block_device;

void sandbox_enter(struct sandbox *s, const char *name);
/* The same on an ext2 disk: bdev mounted at the sandbox's path, and the
 * cwd a new directory in it (disk_dir), so that runs on one disk do not
 * meet; what they leave stays there for the host to check after the boot. */
void sandbox_enter_disk(struct sandbox *s, const char *name, struct block_device *bdev);
/* The same on any filesystem: source of type mounted with options (a 9p
 * share: its tag, "9p"), the work directory made in it as on a disk. */
void sandbox_enter_mount(struct sandbox *s, const char *name, const char *source, const char *type,
			 const char *options);
void sandbox_leave(struct sandbox *s);

#endif
