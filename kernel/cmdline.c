/* cmdline.c: parsing `key=value` words (see cmdline.h).  Boot only runs it
 * on the boot CPU before the others start; no locks. */
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "kernel/kprintf.h"
#include "kernel/errno.h"
#include <stdbool.h>

extern const struct kparam __kparams_start[], __kparams_end[];

int kparam_set_u64(const struct kparam *p, const char *val, size_t len, char *why, size_t whylen)
{
	uint64_t v;
	int err = parse_u64(val, len, &v);

	if (err == -ERANGE || (err == 0 && (v < p->min || v > p->max))) {
		snprintf(why, whylen, "out of range (%lu..%lu)", p->min, p->max);
		return -EINVAL;
	}
	if (err) {
		snprintf(why, whylen, "not a number (expected %lu..%lu)", p->min, p->max);
		return -EINVAL;
	}
	*(uint64_t *)p->var = v;
	return 0;
}

int kparam_set_names(const struct kparam *p, const char *val, size_t len, char *why, size_t whylen,
		     bool (*exists)(const char *name, size_t len), const char *what)
{
	if (len == 0 || len >= p->max) {
		snprintf(why, whylen, "expected all, none or a comma list of %s names", what);
		return -EINVAL;
	}
	bool special = (len == 3 && !strncmp(val, "all", 3)) || (len == 4 && !strncmp(val, "none", 4));
	for (size_t i = 0; !special && i < len;) {
		size_t j = i;
		while (j < len && val[j] != ',')
			j++;
		if (!exists(val + i, j - i)) {
			snprintf(why, whylen, "no %s named '%.*s'", what, (int)(j - i), val + i);
			return -EINVAL;
		}
		i = j + 1;
	}
	memcpy(p->var, val, len);
	((char *)p->var)[len] = '\0';
	return 0;
}

bool name_list_contains(const char *list, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = list; *p;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == len && strncmp(p, name, n) == 0)
			return true;
		p += n + (e ? 1 : 0);
	}
	return false;
}

static const struct kparam *find(const struct kparam *params, size_t n, const char *key, size_t klen)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(params[i].name) == klen && strncmp(params[i].name, key, klen) == 0)
			return &params[i];
	return NULL;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void parse_word(const char *w, size_t len, const struct kparam *params, size_t n,
		       struct cmdline_result *res)
{
	const char *eq = memchr(w, '=', len);
	size_t klen = eq ? (size_t)(eq - w) : len;
	const struct kparam *p = find(params, n, w, klen);
	char why[128] = "";

	if (!p) {
		kprintf("cmdline: unknown key '%.*s' ignored\n", (int)klen, w);
		res->unknown++;
		return;
	}
	if (!eq) {
		kprintf("cmdline: '%.*s' needs a value (%s=...); ignored\n", (int)len, w, p->name);
		res->rejected++;
		return;
	}
	const char *val = eq + 1;
	size_t vlen = len - klen - 1;
	if (p->set(p, val, vlen, why, sizeof(why)) != 0) {
		kprintf("cmdline: bad value in '%.*s': %s; ignored\n", (int)len, w, why);
		res->rejected++;
		return;
	}
	res->applied++;
}

void cmdline_parse(const char *line, const struct kparam *params, size_t n,
		   struct cmdline_result *res)
{
	res->applied = res->unknown = res->rejected = 0;
	bool first = true;
	while (*line) {
		while (is_space(*line))
			line++;
		const char *w = line;
		while (*line && !is_space(*line))
			line++;
		size_t len = (size_t)(line - w);
		if (len == 0)
			break;
		/* Some loaders put the kernel's own path first: skip it. */
		if (first && w[0] == '/' && !memchr(w, '=', len)) {
			first = false;
			continue;
		}
		first = false;
		parse_word(w, len, params, n, res);
	}
}

void cmdline_init(const char *line)
{
	struct cmdline_result res;
	cmdline_parse(line, __kparams_start, (size_t)(__kparams_end - __kparams_start), &res);
	if (res.unknown || res.rejected)
		kprintf("cmdline: %u applied, %u unknown, %u rejected (see above)\n",
			res.applied, res.unknown, res.rejected);
}

void cmdline_print_params(void)
{
	for (const struct kparam *p = __kparams_start; p < __kparams_end; p++)
		kprintf("  %-16s %s\n", p->name, p->help);
}
