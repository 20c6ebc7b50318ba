/*
 * cred.c: credentials (see cred.h for the sharing rules).  No locks: the
 * objects never change once committed, and a thread's pointer changes
 * only in that thread.
 */
#include "kernel/cred.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/string.h"
#include "kernel/thread.h"

/* Boot threads and everything they start: root, umask 022. */
static struct cred init_cred = { .usage = 1, .umask = 022 };

const struct cred *current_cred(void)
{
	const struct cred *c = current_thread()->cred;
	return c ? c : &init_cred;
}

const struct cred *get_cred(const struct cred *c)
{
	__atomic_fetch_add(&((struct cred *)c)->usage, 1, __ATOMIC_RELAXED);
	return c;
}

void put_cred(const struct cred *c)
{
	if (c && __atomic_sub_fetch(&((struct cred *)c)->usage, 1, __ATOMIC_ACQ_REL) == 0) {
		if (c == &init_cred)
			return;	/* never: the boot reference is never dropped */
		kfree((void *)c);
	}
}

struct cred *prepare_creds(void)
{
	struct cred *new = kmalloc(sizeof(*new));
	if (!new)
		return NULL;
	*new = *current_cred();
	new->usage = 1;
	return new;
}

void abort_creds(struct cred *new)
{
	put_cred(new);
}

void commit_creds(struct cred *new)
{
	struct thread *self = current_thread();
	const struct cred *old = self->cred;
	/* Release: a later lockless reader of this pointer (RCU-walk) sees
	 * the copy's fields written. */
	__atomic_store_n(&self->cred, new, __ATOMIC_RELEASE);
	put_cred(old);
}

const struct cred *override_creds(struct cred *new)
{
	struct thread *self = current_thread();
	const struct cred *old = self->cred ? self->cred : get_cred(&init_cred);
	__atomic_store_n(&self->cred, new, __ATOMIC_RELEASE);
	return old;
}

void revert_creds(const struct cred *old)
{
	struct thread *self = current_thread();
	const struct cred *cur = self->cred;
	__atomic_store_n(&self->cred, old, __ATOMIC_RELEASE);
	put_cred(cur);
}

void cred_fork(struct thread *child)
{
	child->cred = get_cred(current_cred());
}

void cred_release(struct thread *t)
{
	put_cred(t->cred);
	t->cred = NULL;
}

bool cred_in_group(const struct cred *c, uint32_t gid)
{
	if (c->gid == gid)
		return true;
	for (unsigned i = 0; i < c->ngroups; i++)
		if (c->groups[i] == gid)
			return true;
	return false;
}

static int set_id(uint32_t id, bool is_gid)
{
	const struct cred *cur = current_cred();
	uint32_t old = is_gid ? cur->gid : cur->uid;
	if (id == (uint32_t)-1 || id == old)
		return 0;
	if (!cred_is_root(cur))
		return -EPERM;
	struct cred *new = prepare_creds();
	if (!new)
		return -ENOMEM;
	if (is_gid)
		new->gid = id;
	else
		new->uid = id;
	commit_creds(new);
	return 0;
}

int sys_setuid(uint32_t uid)
{
	return set_id(uid, false);
}

int sys_setgid(uint32_t gid)
{
	return set_id(gid, true);
}

int sys_setgroups(unsigned n, const uint32_t *groups)
{
	if (n > NGROUPS_MAX)
		return -EINVAL;
	if (!cred_is_root(current_cred()))
		return -EPERM;
	struct cred *new = prepare_creds();
	if (!new)
		return -ENOMEM;
	new->ngroups = n;
	memcpy(new->groups, groups, n * sizeof(*groups));
	commit_creds(new);
	return 0;
}

uint32_t sys_umask(uint32_t mask)
{
	uint32_t old = current_cred()->umask;
	struct cred *new = prepare_creds();
	if (new) {	/* umask cannot fail in POSIX; without memory it keeps the old one */
		new->umask = mask & 0777;
		commit_creds(new);
	}
	return old;
}

uint32_t sys_getuid(void)
{
	return current_cred()->uid;
}

uint32_t sys_getgid(void)
{
	return current_cred()->gid;
}

int sys_getgroups(unsigned n, uint32_t *groups)
{
	const struct cred *c = current_cred();
	if (n == 0)
		return (int)c->ngroups;
	if (n < c->ngroups)
		return -EINVAL;
	memcpy(groups, c->groups, c->ngroups * sizeof(*groups));
	return (int)c->ngroups;
}
