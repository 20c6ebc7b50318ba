/* errno.c: errno names, for messages and for fstest's output. */
#include "kernel/errno.h"

static const char *const names[] = {
	[EPERM] = "EPERM", [ENOENT] = "ENOENT", [ESRCH] = "ESRCH",
	[EINTR] = "EINTR", [EIO] = "EIO", [ENXIO] = "ENXIO", [E2BIG] = "E2BIG", [ENOEXEC] = "ENOEXEC", [ENOTTY] = "ENOTTY",
	[EBADF] = "EBADF", [ECHILD] = "ECHILD", [EAGAIN] = "EAGAIN", [ENOMEM] = "ENOMEM",
	[EACCES] = "EACCES", [EFAULT] = "EFAULT", [ENOTBLK] = "ENOTBLK", [EBUSY] = "EBUSY",
	[EEXIST] = "EEXIST", [EXDEV] = "EXDEV", [ENODEV] = "ENODEV",
	[ENOTDIR] = "ENOTDIR", [EISDIR] = "EISDIR", [EINVAL] = "EINVAL",
	[ENFILE] = "ENFILE", [EMFILE] = "EMFILE", [EFBIG] = "EFBIG",
	[ENOSPC] = "ENOSPC", [ESPIPE] = "ESPIPE", [EROFS] = "EROFS",
	[EMLINK] = "EMLINK", [EPIPE] = "EPIPE", [ERANGE] = "ERANGE", [EDEADLK] = "EDEADLK",
	[ENAMETOOLONG] = "ENAMETOOLONG", [ENOSYS] = "ENOSYS",
	[ENOTEMPTY] = "ENOTEMPTY", [ELOOP] = "ELOOP", [EOVERFLOW] = "EOVERFLOW",
	[ENOTSOCK] = "ENOTSOCK", [EAFNOSUPPORT] = "EAFNOSUPPORT",
	[EADDRINUSE] = "EADDRINUSE", [ETIMEDOUT] = "ETIMEDOUT", [EUCLEAN] = "EUCLEAN",
};

const char *errno_name(int err)
{
	if (err < 0)
		err = -err;
	if (err < (int)(sizeof(names) / sizeof(names[0])) && names[err])
		return names[err];
	return "E?";
}
