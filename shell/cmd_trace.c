/*
 * cmd_trace.c: the shell's `trace` command, the tracer's controls
 * (kernel/trace.h):
 *
 *   trace                      what is on, and how many events are held
 *   trace start [CLASS,...]    record those classes (default all)
 *   trace stop                 stop recording (the trace is kept)
 *   trace clear                forget what was recorded
 *   trace show                 print it in ftrace's text format
 *   trace mark TEXT...         record a line of text (tracing_mark_write)
 *
 * `show` honours a redirection (`trace show > /tmp/t`); recording pauses
 * while it prints.  No locks here: the tracer serializes its controls.
 */
#include "shell/cmd.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "kernel/trace.h"

static void emit_shell(void *arg, const char *line)
{
	struct sh_ctx *c = arg;
	sh_printf(c, "%s\n", line);
}

static int trace_status(struct sh_ctx *c)
{
	char on[96];
	uint64_t held, written;
	trace_classes_string(__atomic_load_n(&trace_mask, __ATOMIC_RELAXED), on, sizeof(on));
	trace_counts(&held, &written);
	sh_printf(c, "trace: %s%s; %lu events held, %lu written\n", on[0] ? "recording " : "off",
		  on, held, written);
	return 0;
}

static int trace_start_cmd(struct sh_ctx *c, int argc, char **argv)
{
	if (argc > 3)
		return sh_usage(c, "start takes one list of classes");
	unsigned mask = TRC_ALL;
	if (argc == 3) {
		const char *bad;
		unsigned badlen;
		mask = trace_parse_classes(argv[2], &bad, &badlen);
		if (!mask)
			return sh_usage(c, "unknown class '%.*s' (lookup, inlookup, rwsem, fs, buffer, block, "
					"rcuwalk, syscall, all)", (int)badlen, bad);
	}
	if (!CONFIG_TRACE)
		return sh_error(c, "this kernel was built without the tracer (TRACE=0)");
	if (trace_start(mask))
		return sh_error(c, "no memory for the trace rings");
	return 0;
}

int cmd_trace(struct sh_ctx *c, int argc, char **argv)
{
	if (argc == 1)
		return trace_status(c);
	const char *op = argv[1];
	if (strcmp(op, "start") == 0)
		return trace_start_cmd(c, argc, argv);
	if (strcmp(op, "mark") == 0) {
		char text[96];
		size_t n = 0;
		for (int i = 2; i < argc && n + 1 < sizeof(text); i++)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s", i > 2 ? " " : "", argv[i]);
		trace_mark(text);
		return 0;
	}
	if (argc != 2)
		return sh_usage(c, "%s takes no arguments", op);
	if (strcmp(op, "stop") == 0)
		trace_stop();
	else if (strcmp(op, "clear") == 0)
		trace_clear();
	else if (strcmp(op, "show") == 0)
		trace_print(emit_shell, c);
	else
		return sh_usage(c, "unknown operation '%s'", op);
	return 0;
}
