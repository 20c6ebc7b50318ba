/*
 * exec_info.c: a process's program and arguments, for procfs (the rules
 * are in exec_info.h).
 */
#include "user/exec_info.h"
#include "user/exec.h"
#include "user/process.h"
#include "fs/dcache.h"
#include "kernel/kmalloc.h"
#include "kernel/string.h"

struct exec_info *exec_info_new(struct dentry *exe, const struct exec_args *a)
{
	size_t len = 0;
	for (unsigned i = 0; i < a->argc; i++)
		len += strlen(a->argv[i]) + 1;
	if (len > EXEC_INFO_ARGS_MAX)
		len = EXEC_INFO_ARGS_MAX;
	struct exec_info *ei = kmalloc(sizeof(*ei) + len);
	if (!ei) {
		dput(exe);
		return NULL;
	}
	ei->refs = 1;
	ei->exe = exe;
	ei->args_len = len;
	size_t at = 0;
	for (unsigned i = 0; i < a->argc && at < len; i++) {
		size_t n = strlen(a->argv[i]) + 1;
		if (n > len - at)
			n = len - at;
		memcpy(ei->args + at, a->argv[i], n);
		at += n;
	}
	return ei;
}

void exec_info_put(struct exec_info *ei)
{
	if (ei && __atomic_sub_fetch(&ei->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		dput(ei->exe);
		kfree(ei);
	}
}

struct exec_info *process_exec_info(struct signal_struct *p)
{
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	struct exec_info *ei = p->exec_info;
	if (ei)
		__atomic_fetch_add(&ei->refs, 1, __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return ei;
}

void process_set_exec_info(struct signal_struct *p, struct exec_info *ei)
{
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	struct exec_info *old = p->exec_info;
	p->exec_info = ei;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	exec_info_put(old);
}
