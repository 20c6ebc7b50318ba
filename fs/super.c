/*
 * super.c: filesystem types and what every super block needs.
 *
 * A filesystem registers its type once at boot; mount finds it by name.
 * Locking: types_lock protects the registry list.  Registered types are
 * never removed, so a type found stays valid.  types_lock is a leaf
 * (docs/design/08-lock-order.md).
 */
#include "fs/fs.h"
#include "kernel/errno.h"
#include "kernel/string.h"

static struct spinlock types_lock = SPINLOCK_INIT("fs_types");
static struct file_system_type *types;
static uint64_t next_dev = 1;

int register_filesystem(struct file_system_type *type)
{
	spin_lock(&types_lock);
	for (struct file_system_type *t = types; t; t = t->next)
		if (strcmp(t->name, type->name) == 0) {
			spin_unlock(&types_lock);
			return -EBUSY;
		}
	type->next = types;
	types = type;
	spin_unlock(&types_lock);
	return 0;
}

struct file_system_type *get_fs_type(const char *name)
{
	spin_lock(&types_lock);
	struct file_system_type *t = types;
	while (t && strcmp(t->name, name) != 0)
		t = t->next;
	spin_unlock(&types_lock);
	return t;
}

void for_each_filesystem(void (*fn)(const struct file_system_type *type, void *arg), void *arg)
{
	spin_lock(&types_lock);
	const struct file_system_type *t = types;
	spin_unlock(&types_lock);
	/* Types are never unregistered, and one joins the head with its next
	 * already set (under the lock): the chain from a head read under it
	 * never changes. */
	for (; t; t = t->next)
		fn(t, arg);
}

void sb_init(struct super_block *sb, const struct file_system_type *type,
	     const struct super_operations *ops)
{
	sb->s_type = type;
	sb->s_op = ops;
	sb->s_dev = __atomic_fetch_add(&next_dev, 1, __ATOMIC_RELAXED);
	init_rwsem(&sb->s_rename_rwsem, "s_rename_rwsem");
	sb->s_bdev = NULL;	/* do_mount sets it for a filesystem on a disk */
}
