/* mode.h: a file mode as ls prints it ("drwxr-xr-x"), for ls and stat. */
#ifndef SHELL_MODE_H
#define SHELL_MODE_H

#include <stdint.h>
#include "fs/fs.h"

/* buf: at least 11 bytes. */
static inline void sh_mode_string(uint32_t mode, char *buf)
{
	const char *rwx = "rwxrwxrwx";
	switch (mode & S_IFMT) {
	case S_IFDIR:  buf[0] = 'd'; break;
	case S_IFLNK:  buf[0] = 'l'; break;
	case S_IFREG:  buf[0] = '-'; break;
	case S_IFIFO:  buf[0] = 'p'; break;
	case S_IFCHR:  buf[0] = 'c'; break;
	case S_IFBLK:  buf[0] = 'b'; break;
	case S_IFSOCK: buf[0] = 's'; break;
	default:       buf[0] = '?'; break;
	}
	for (int i = 0; i < 9; i++)
		buf[1 + i] = (mode & (0400u >> i)) ? rwx[i] : '-';
	/* set-user-ID, set-group-ID, sticky: over the x they share a column
	 * with, lower case if that x is set (as ls does). */
	if (mode & S_ISUID)
		buf[3] = buf[3] == 'x' ? 's' : 'S';
	if (mode & S_ISGID)
		buf[6] = buf[6] == 'x' ? 's' : 'S';
	if (mode & S_ISVTX)
		buf[9] = buf[9] == 'x' ? 't' : 'T';
	buf[10] = '\0';
}

static inline const char *sh_type_name(uint32_t mode)
{
	return S_ISDIR(mode) ? "directory" : S_ISLNK(mode) ? "symbolic link" :
	       S_ISREG(mode) ? "regular file" : S_ISFIFO(mode) ? "fifo" :
	       S_ISCHR(mode) ? "character special file" : S_ISBLK(mode) ? "block special file" :
	       S_ISSOCK(mode) ? "socket" : "other";
}

#endif
