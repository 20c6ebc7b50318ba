/*
 * initramfs.h: unpack a cpio archive (GNU "newc", or its "crc" variant)
 * into a directory, as Linux does with its initramfs.
 *
 * Regular files, directories, symlinks, device nodes, FIFOs, sockets and
 * hard links (newc entries that share a device and inode number) are made
 * with their modes, device numbers and mtimes.  Archives
 * may be concatenated (zero padding between them is skipped).  Every
 * problem is one line on the console naming the entry and its offset;
 * entries before a problem stay unpacked.  A problem with one entry (a
 * bad name, a parent that is not a directory, a failed call) skips that
 * entry; a problem with the archive's structure (bad magic, a field that
 * is not hex, a size past the end) stops there.
 *
 * Names: leading '/' are stripped (with a warning) and "." components
 * dropped, so every entry lands under the directory; a name with a ".."
 * component is refused.  A parent that is a symlink is refused too, so
 * that no entry lands outside the directory through a link.  An entry
 * whose name exists already replaces it (a directory stays a directory),
 * so that a later archive can override an earlier one.
 */
#ifndef INIT_INITRAMFS_H
#define INIT_INITRAMFS_H

#include <stdbool.h>
#include <stddef.h>

struct initramfs_report {
	bool quiet;                /* in: print nothing (the fuzz test) */
	/* out: */
	unsigned files, dirs, symlinks, hardlinks;   /* entries made */
	unsigned specials;         /* FIFOs, device nodes and sockets made */
	unsigned warnings;         /* stripped '/', data ignored */
	unsigned errors;           /* problems, each one line (entry or archive) */
	size_t stop_offset;        /* where a structural problem stopped it, or len */
};

/* Unpack into dest_dir (which must exist).  Returns 0 if nothing but
 * warnings was reported, else the first problem's negative errno
 * (-EINVAL for a malformed archive).  report may be NULL. */
int initramfs_unpack_report(const void *archive, size_t len, const char *dest_dir,
			    struct initramfs_report *report);
int initramfs_unpack(const void *archive, size_t len, const char *dest_dir);

/* At boot: unpack every multiboot2 module into "/", in order. */
void initramfs_unpack_modules(void);

#endif
