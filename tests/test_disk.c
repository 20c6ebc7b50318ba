/* test_disk.c: see test_disk.h. */
#include "tests/test_disk.h"
#include "kernel/cmdline.h"
#include "kernel/ktest.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

static char disks[128];

static int set_disks(const struct kparam *p, const char *val, size_t len, char *why, size_t n)
{
	(void)p;
	if (len >= sizeof(disks)) {
		snprintf(why, n, "at most %u characters", (unsigned)sizeof(disks) - 1);
		return -1;
	}
	memcpy(disks, val, len);
	disks[len] = '\0';
	return 0;
}
KPARAM("ktest.disks", set_disks, disks, 0, 0,
       "the disks the tests may use, ROLE:NAME,... (set by the host runner: tests/lib/disks.py)");

/* The disk ktest.disks names for role: 1 and *out set, 0 if the role is
 * not named, -1 if it names a disk that does not exist. */
static int find_role(const char *role, struct block_device **out)
{
	size_t rlen = strlen(role);
	for (const char *p = disks; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > rlen + 1 && strncmp(p, role, rlen) == 0 && p[rlen] == ':') {
			char name[16];
			size_t nlen = len - rlen - 1 < sizeof(name) - 1 ? len - rlen - 1 : sizeof(name) - 1;
			memcpy(name, p + rlen + 1, nlen);
			name[nlen] = '\0';
			*out = blkdev_get_by_name(name);
			ktest_check(*out != NULL, __FILE__, __LINE__,
				    "ktest.disks names %s for %s, and there is no such disk", name, role);
			return *out ? 1 : -1;
		}
		p += len + (end != NULL);
	}
	*out = NULL;
	return 0;
}

struct block_device *test_disk(const char *role)
{
	struct block_device *b;
	find_role(role, &b);
	return b;
}

struct block_device *test_disk_or_skip(const char *role)
{
	struct block_device *b;
	int found = find_role(role, &b);
	if (found < 0)
		ktest_abort();	/* named but missing: a failure, not a skip */
	if (!found)
		ktest_skip("no disk for this role (ktest.disks=)");
	return b;
}
