/*
 * cmdline.h: kernel command-line parameters.
 *
 * The command line is words separated by spaces, each `key=value`.  Each
 * key is declared once, next to the variable it sets, with KPARAM; the
 * declarations gather in the .kparams section.  Unknown keys are reported
 * and ignored; a malformed value is rejected with a message saying what
 * was expected, and the variable keeps its default.
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kparam;
typedef int (*kparam_set_t)(const struct kparam *p, const char *val, size_t len,
			    char *why, size_t whylen);

struct kparam {
	const char *name;
	kparam_set_t set;          /* 0, or -EINVAL with `why` filled in */
	void *var;
	uint64_t min, max;         /* for kparam_set_u64 */
	const char *help;
} __attribute__((aligned(8)));

#define KPARAM(key, setter, variable, lo, hi, text) \
	static const struct kparam __kparam_##variable \
	__attribute__((used, section(".kparams"), aligned(8))) = \
	{ .name = (key), .set = (setter), .var = &(variable), .min = (lo), .max = (hi), .help = (text) }

/* A uint64_t variable in [min, max], written as C writes numbers. */
int kparam_set_u64(const struct kparam *p, const char *val, size_t len, char *why, size_t whylen);

struct cmdline_result {
	unsigned applied, unknown, rejected;
};

/*
 * Values that name things: `all`, `none`, or a comma list of names.
 * kparam_set_names checks every name with exists() (what: "suite", ...)
 * and copies the value into the char array p->var of p->max bytes.
 * name_list_contains says whether such a list names `name`.
 */
int kparam_set_names(const struct kparam *p, const char *val, size_t len, char *why, size_t whylen,
		     bool (*exists)(const char *name, size_t len), const char *what);
bool name_list_contains(const char *list, const char *name);

/* Parse `line` against a table of parameters (the boot uses the section's;
 * tests use their own).  Prints one line for every unknown or bad word. */
void cmdline_parse(const char *line, const struct kparam *params, size_t n,
		   struct cmdline_result *res);

/* Parse the boot command line against every KPARAM in the kernel. */
void cmdline_init(const char *line);
/* Print every parameter and its help (the shell's `help` uses it). */
void cmdline_print_params(void);

#endif
