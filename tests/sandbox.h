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
	uint64_t dentries, inodes, files;
};

void sandbox_enter(struct sandbox *s, const char *name);
void sandbox_leave(struct sandbox *s);

#endif
