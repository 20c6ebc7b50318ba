/*
 * vfs_init.c: bringing the VFS up at boot, in dependency order: the
 * caches, the filesystem types, "/" (a ramfs), then the boot thread's
 * root and current directory, which every later thread inherits.
 */
#include "fs/vfs.h"
#include "fs/buffer.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/mount.h"
#include "fs/9p/v9fs.h"
#include "fs/ext2/ext2.h"
#include "fs/proc/proc.h"
#include "fs/ramfs/ramfs.h"
#include "fs/slowfs/slowfs.h"
#include "fs/task_fs.h"
#include "kernel/panic.h"

void vfs_init(void)
{
	icache_init();
	dcache_init();
	file_cache_init();
	buffer_init();
	if (ramfs_register() || slowfs_register() || ext2_register() || proc_register() || v9fs_register())
		panic("vfs: cannot register the filesystem types");
	vfs_mount_root();
	task_fs_init();
}
