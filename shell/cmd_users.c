/*
 * cmd_users.c: users, groups and permissions: id, su, umask, chmod,
 * chown.  IDs are numbers: there is no user database.
 *
 * A command's credentials are its thread's (kernel/cred.h): a job thread
 * starts with the shell's, so `su` changes only the thread that runs the
 * one command, and `umask` (SH_INLINE) changes the shell's, which later
 * jobs inherit.
 */
#include "shell/cmd.h"
#include "fs/syscalls.h"
#include "kernel/cred.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

/* A number in base 8 (modes) or 10 (IDs), all of s[0..len), at most max. */
static bool parse_base(const char *s, size_t len, unsigned base, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] >= (char)('0' + base))
			return false;
		v = v * base + (uint64_t)(s[i] - '0');
		if (v > max)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

static bool parse_id(const char *s, size_t len, uint32_t *out)
{
	return parse_base(s, len, 10, 0xfffffffeu, out);
}

/* id: "uid=N gid=N groups=N,N" (the groups: the group, then the rest). */
int cmd_id(struct sh_ctx *c, int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return sh_usage(c, "no arguments expected");
	const struct cred *cr = current_cred();
	sh_printf(c, "uid=%u gid=%u groups=%u", cr->uid, cr->gid, cr->gid);
	for (unsigned i = 0; i < cr->ngroups; i++)
		if (cr->groups[i] != cr->gid)
			sh_printf(c, ",%u", cr->groups[i]);
	sh_printf(c, "\n");
	return 0;
}

/*
 * su UID[:GID[,GID...]] COMMAND [ARGS...]: run one command as another
 * user, on this job's thread: its uid, its group (the uid's number if
 * none is given), and the supplementary groups listed.  Root only.
 * Commands that change the shell itself (cd, umask, exit...) or take the
 * machine (ktest) are refused: they would not run as asked.
 */
int cmd_su(struct sh_ctx *c, int argc, char **argv)
{
	if (argc < 3)
		return sh_usage(c, "expected a user and a command");
	const char *spec = argv[1], *colon = strchr(spec, ':');
	size_t ulen = colon ? (size_t)(colon - spec) : strlen(spec);
	uint32_t uid, groups[NGROUPS_MAX];
	unsigned n = 0;
	if (!parse_id(spec, ulen, &uid))
		return sh_usage(c, "'%s': expected UID[:GID[,GID...]]", spec);
	if (colon) {
		for (const char *p = colon + 1;;) {
			const char *end = strchr(p, ',');
			size_t len = end ? (size_t)(end - p) : strlen(p);
			if (n == NGROUPS_MAX || !parse_id(p, len, &groups[n]))
				return sh_usage(c, "'%s': expected UID[:GID[,GID...]]", spec);
			n++;
			if (!end)
				break;
			p = end + 1;
		}
	}
	const struct sh_command *cmd = sh_find_command(argv[2]);
	if (!cmd)
		return sh_error(c, "%s: unknown command", argv[2]);
	if (cmd->flags & (SH_INLINE | SH_EXCLUSIVE | SH_FOREGROUND))
		return sh_error(c, "%s: cannot run as another user", argv[2]);
	if (!cred_is_root(current_cred()))
		return sh_errno(c, spec, -EPERM);
	struct cred *new = prepare_creds();
	if (!new)
		return sh_error(c, "out of memory");
	new->uid = uid;
	new->gid = n ? groups[0] : uid;
	new->ngroups = n > 1 ? n - 1 : 0;
	memcpy(new->groups, groups + 1, new->ngroups * sizeof(groups[0]));
	commit_creds(new);	/* this job's thread only; it ends with the command */
	c->cmd = cmd;
	return cmd->fn(c, argc - 2, argv + 2);
}

/* umask [MODE]: print the shell's umask (4 octal digits), or set it. */
int cmd_umask(struct sh_ctx *c, int argc, char **argv)
{
	if (argc > 2)
		return sh_usage(c, "too many arguments");
	if (argc == 1) {
		sh_printf(c, "%04o\n", current_cred()->umask);
		return 0;
	}
	uint32_t mask;
	if (!parse_base(argv[1], strlen(argv[1]), 8, 0777, &mask))
		return sh_usage(c, "'%s': expected an octal mode up to 0777", argv[1]);
	sys_umask(mask);
	return 0;
}

/* chmod MODE PATH...: MODE in octal, up to 07777. */
int cmd_chmod(struct sh_ctx *c, int argc, char **argv)
{
	uint32_t mode;
	if (argc < 3)
		return sh_usage(c, "expected a mode and a path");
	if (!parse_base(argv[1], strlen(argv[1]), 8, 07777, &mode))
		return sh_usage(c, "'%s': expected an octal mode up to 07777", argv[1]);
	int status = 0;
	for (int i = 2; i < argc; i++) {
		int err = sys_chmod(argv[i], mode);
		if (err < 0)
			status = sh_errno(c, argv[i], err);
	}
	return status;
}

/* chown [-h] UID[:GID] | :GID PATH...: -h changes a symlink itself. */
int cmd_chown(struct sh_ctx *c, int argc, char **argv)
{
	uint64_t opts;
	int first = sh_options(c, argc, argv, "h", &opts);
	if (first < 0)
		return 2;
	if (argc - first < 2)
		return sh_usage(c, "expected an owner and a path");
	const char *spec = argv[first], *colon = strchr(spec, ':');
	size_t ulen = colon ? (size_t)(colon - spec) : strlen(spec);
	uint32_t uid = (uint32_t)-1, gid = (uint32_t)-1;
	if ((ulen && !parse_id(spec, ulen, &uid)) || (colon && !parse_id(colon + 1, strlen(colon + 1), &gid)) ||
	    (!ulen && !colon))
		return sh_usage(c, "'%s': expected UID[:GID] or :GID", spec);
	int status = 0;
	for (int i = first + 1; i < argc; i++) {
		int err = (opts & OPT('h')) ? sys_lchown(argv[i], uid, gid) : sys_chown(argv[i], uid, gid);
		if (err < 0)
			status = sh_errno(c, argv[i], err);
	}
	return status;
}
