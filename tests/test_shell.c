/*
 * test_shell.c: the shell's parts, as plain functions.
 *
 *  - shell_parse: lines to commands: words, quoting, $?, ;, &, > and >>,
 *    comments, and every error the parser reports.
 *  - shell_lineedit: byte strings (with the escape sequences of arrows,
 *    Backspace, Ctrl-U, history) to the finished line, and the echo.
 *  - shell_exec: a shell on a scripted terminal: output, $?, unknown
 *    commands and bad usage; Ctrl-C ends a command blocked in a killable
 *    wait (sleep) and the rest of its line; background jobs with jobs,
 *    wait and kill; Ctrl-C ends a `wait` and leaves the job running;
 *    ktest and bench run one at a time.
 *    None of these need the file layer.
 *  - shell_files: the shell on files, in a sandbox: cat after a failed
 *    write; script=DIR with a long name and with too many scripts;
 *    Ctrl-C in a sourced script ends its whole line; Ctrl-C reaches
 *    redirections, cd and a script's read stuck on a gated slowfs.
 */
#include "kernel/ktest.h"
#include "block/blkdev.h"
#include "tests/test_disk.h"
#include "shell/job.h"
#include "shell/lineedit.h"
#include "shell/parse.h"
#include "shell/shell.h"
#include "tests/sandbox.h"
#include "fs/fs.h"
#include "fs/slowfs/slowfs.h"
#include "fs/syscalls.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"

/* ---- parse ---------------------------------------------------------------- */

static struct sh_line *parse_ok(const char *line, int status)
{
	static struct sh_line pl;	/* cases run one at a time */
	char err[96];
	int r = sh_parse(line, status, &pl, err, sizeof(err));
	if (!EXPECT_EQ(r, 0))
		kprintf("# parse of '%s' failed: %s\n", line, err);
	return &pl;
}

static void expect_error(const char *line, const char *reason)
{
	static struct sh_line pl;
	char err[96];
	int r = sh_parse(line, 0, &pl, err, sizeof(err));
	if (!EXPECT_EQ(r, -EINVAL))
		kprintf("# '%s' parsed, expected '%s'\n", line, reason);
	else
		EXPECT_STREQ(err, reason);
}

static void words(void)
{
	struct sh_line *pl = parse_ok("  ls\t-l   /tmp  ", 0);
	ASSERT_EQ(pl->ncmds, 1u);
	struct sh_cmd *c = &pl->cmds[0];
	ASSERT_EQ(c->argc, 3);
	EXPECT_STREQ(c->argv[0], "ls");
	EXPECT_STREQ(c->argv[1], "-l");
	EXPECT_STREQ(c->argv[2], "/tmp");
	EXPECT_NULL(c->argv[3]);
	EXPECT_NULL(c->redir);
	EXPECT_FALSE(c->background);
	EXPECT_STREQ(c->text, "ls\t-l   /tmp");
}

static void blank_and_comment_lines(void)
{
	EXPECT_EQ(parse_ok("", 0)->ncmds, 0u);
	EXPECT_EQ(parse_ok("   \t ", 0)->ncmds, 0u);
	EXPECT_EQ(parse_ok("# a comment; with > stuff", 0)->ncmds, 0u);
	struct sh_line *pl = parse_ok("echo a # b c", 0);
	ASSERT_EQ(pl->ncmds, 1u);
	EXPECT_EQ(pl->cmds[0].argc, 2);
	EXPECT_STREQ(pl->cmds[0].text, "echo a");
	pl = parse_ok("echo a#b '#c'", 0);
	ASSERT_EQ(pl->cmds[0].argc, 3);
	EXPECT_STREQ(pl->cmds[0].argv[1], "a#b");
	EXPECT_STREQ(pl->cmds[0].argv[2], "#c");
}

static void quoting(void)
{
	struct sh_line *pl = parse_ok("echo 'a b' \"c  d\" e\\ f a'b'\"c\"d '' \"\"", 0);
	struct sh_cmd *c = &pl->cmds[0];
	ASSERT_EQ(c->argc, 7);
	EXPECT_STREQ(c->argv[1], "a b");
	EXPECT_STREQ(c->argv[2], "c  d");
	EXPECT_STREQ(c->argv[3], "e f");
	EXPECT_STREQ(c->argv[4], "abcd");
	EXPECT_STREQ(c->argv[5], "");
	EXPECT_STREQ(c->argv[6], "");

	pl = parse_ok("x \"a\\\"b\" 'a\\b' \"\\x\" \\' \"it's\" '\"' \\;", 0);
	c = &pl->cmds[0];
	ASSERT_EQ(c->argc, 8);
	EXPECT_STREQ(c->argv[1], "a\"b");
	EXPECT_STREQ(c->argv[2], "a\\b");
	EXPECT_STREQ(c->argv[3], "\\x");
	EXPECT_STREQ(c->argv[4], "'");
	EXPECT_STREQ(c->argv[5], "it's");
	EXPECT_STREQ(c->argv[6], "\"");
	EXPECT_STREQ(c->argv[7], ";");

	pl = parse_ok("echo '>' \">>\" '&' ';' '|'", 0);
	c = &pl->cmds[0];
	ASSERT_EQ(pl->ncmds, 1u);
	ASSERT_EQ(c->argc, 6);
	EXPECT_NULL(c->redir);
	EXPECT_STREQ(c->argv[1], ">");
	EXPECT_STREQ(c->argv[5], "|");
}

static void status_expansion(void)
{
	struct sh_line *pl = parse_ok("echo $? \"[$?]\" '$?' \\$? $x $ x$?y", 130);
	struct sh_cmd *c = &pl->cmds[0];
	ASSERT_EQ(c->argc, 8);
	EXPECT_STREQ(c->argv[7], "x130y");
	EXPECT_STREQ(c->argv[1], "130");
	EXPECT_STREQ(c->argv[2], "[130]");
	EXPECT_STREQ(c->argv[3], "$?");
	EXPECT_STREQ(c->argv[4], "$?");
	EXPECT_STREQ(c->argv[5], "$x");
	EXPECT_STREQ(c->argv[6], "$");
	pl = parse_ok("echo x$?y", 0);
	EXPECT_STREQ(pl->cmds[0].argv[1], "x0y");
}

static void sequences_and_background(void)
{
	struct sh_line *pl = parse_ok("a 1; b ;c;", 0);
	ASSERT_EQ(pl->ncmds, 3u);
	EXPECT_STREQ(pl->cmds[0].argv[0], "a");
	EXPECT_STREQ(pl->cmds[0].text, "a 1");
	EXPECT_STREQ(pl->cmds[1].argv[0], "b");
	EXPECT_STREQ(pl->cmds[2].argv[0], "c");
	for (unsigned i = 0; i < 3; i++)
		EXPECT_FALSE(pl->cmds[i].background);

	pl = parse_ok("stat /s/f1 & stat /s/f2& wait", 0);
	ASSERT_EQ(pl->ncmds, 3u);
	EXPECT_TRUE(pl->cmds[0].background);
	EXPECT_STREQ(pl->cmds[0].text, "stat /s/f1");
	EXPECT_TRUE(pl->cmds[1].background);
	EXPECT_STREQ(pl->cmds[1].argv[1], "/s/f2");
	EXPECT_FALSE(pl->cmds[2].background);
}

static void redirections(void)
{
	struct sh_line *pl = parse_ok("echo hi > /tmp/f", 0);
	struct sh_cmd *c = &pl->cmds[0];
	EXPECT_EQ(c->argc, 2);
	ASSERT_NOT_NULL(c->redir);
	EXPECT_STREQ(c->redir, "/tmp/f");
	EXPECT_FALSE(c->append);

	pl = parse_ok("echo>>'my file' a", 0);
	c = &pl->cmds[0];
	EXPECT_EQ(c->argc, 2);
	EXPECT_STREQ(c->argv[1], "a");
	ASSERT_NOT_NULL(c->redir);
	EXPECT_STREQ(c->redir, "my file");
	EXPECT_TRUE(c->append);

	pl = parse_ok("ls >a & echo x >b", 0);
	ASSERT_EQ(pl->ncmds, 2u);
	EXPECT_TRUE(pl->cmds[0].background);
	EXPECT_STREQ(pl->cmds[0].redir, "a");
	EXPECT_STREQ(pl->cmds[1].redir, "b");
}

static void errors(void)
{
	expect_error("echo 'abc", "unterminated quote '");
	expect_error("echo \"abc", "unterminated quote \"");
	expect_error("echo abc\\", "a backslash at the end of the line");
	expect_error(";", "syntax error near ';'");
	expect_error("a ;; b", "syntax error near ';'");
	expect_error("& a", "syntax error near '&'");
	expect_error("a && b", "syntax error near '&'");
	expect_error("echo >", "missing file name after >");
	expect_error("echo >> ;", "missing file name after >>");
	expect_error("echo > a > b", "only one redirection per command");
	expect_error("> f", "a redirection without a command");
	expect_error("> f; ls", "a redirection without a command");
	expect_error("ls | wc", "pipes are not supported");
	expect_error("cat < f", "input redirection is not supported");

	char *line = kmalloc(2 * SH_STORE);
	ASSERT_NOT_NULL(line);
	strlcpy(line, "echo", 2 * SH_STORE);
	for (int i = 0; i < SH_MAX_ARGS; i++)
		strlcpy(line + strlen(line), " x", 2 * SH_STORE - strlen(line));
	expect_error(line, "too many arguments");
	line[strlen(line) - 2] = '\0';	/* exactly SH_MAX_ARGS words */
	EXPECT_EQ(parse_ok(line, 0)->cmds[0].argc, SH_MAX_ARGS);

	memset(line, 'a', SH_STORE + 10);
	line[SH_STORE + 10] = '\0';
	expect_error(line, "line too long");

	line[0] = '\0';
	for (int i = 0; i <= SH_MAX_CMDS; i++)
		strlcpy(line + strlen(line), "a;", 2 * SH_STORE - strlen(line));
	expect_error(line, "too many commands on one line");
	kfree(line);
}

/* A trailing ; or & adds no command: SH_MAX_CMDS commands with one after
 * the last are accepted, one more command is not. */
static void full_line_with_a_trailing_separator(void)
{
	static char line[8 * SH_MAX_CMDS];
	for (const char *end = ";&"; *end; end++) {
		line[0] = '\0';
		for (int i = 0; i < SH_MAX_CMDS; i++)
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "c%d%c ", i, *end);
		struct sh_line *pl = parse_ok(line, 0);
		ASSERT_EQ(pl->ncmds, (unsigned)SH_MAX_CMDS);
		EXPECT_STREQ(pl->cmds[SH_MAX_CMDS - 1].argv[0], "c15");
		EXPECT_EQ(pl->cmds[SH_MAX_CMDS - 1].background, *end == '&');
		strlcpy(line + strlen(line), "# and a comment", sizeof(line) - strlen(line));
		EXPECT_EQ(parse_ok(line, 0)->ncmds, (unsigned)SH_MAX_CMDS);
		size_t at = strlen(line) - strlen("# and a comment");
		strlcpy(line + at, "c16", sizeof(line) - at);
		expect_error(line, "too many commands on one line");
	}
}

static const struct ktest_case parse_cases[] = {
	KTEST_CASE(words),
	KTEST_CASE(blank_and_comment_lines),
	KTEST_CASE(quoting),
	KTEST_CASE(status_expansion),
	KTEST_CASE(sequences_and_background),
	KTEST_CASE(redirections),
	KTEST_CASE(errors),
	KTEST_CASE(full_line_with_a_trailing_separator),
};
KTEST_SUITE(shell_parse, parse_cases);

/* ---- line editor ----------------------------------------------------------- */

struct echo_buf {
	char text[1024];
	size_t len;
};

static void capture_echo(const char *s, size_t n, void *arg)
{
	struct echo_buf *e = arg;
	for (size_t i = 0; i < n && e->len + 1 < sizeof(e->text); i++)
		e->text[e->len++] = s[i];
	e->text[e->len] = '\0';
}

static struct le_history test_hist;
static struct echo_buf test_echo;

/* Feed bytes; the result of the last byte, the line in le->buf. */
static int feed(struct line_editor *le, const char *bytes)
{
	int r = LE_MORE;
	for (const char *p = bytes; *p; p++)
		r = le_feed(le, (unsigned char)*p);
	return r;
}

static void expect_line(const char *bytes, const char *want)
{
	static struct line_editor le;
	le_begin(&le, &test_hist, capture_echo, &test_echo);
	int r = feed(&le, bytes);
	EXPECT_EQ(r, LE_LINE);
	if (!EXPECT_STREQ(le.buf, want))
		kprintf("# fed: %s\n", bytes);
	EXPECT_EQ(le.len, strlen(want));
}

static void typing_and_enter(void)
{
	static struct line_editor le;
	test_echo.len = 0;
	le_begin(&le, NULL, capture_echo, &test_echo);
	EXPECT_EQ(feed(&le, "ls -l"), LE_MORE);
	EXPECT_EQ(feed(&le, "\r"), LE_LINE);
	EXPECT_STREQ(le.buf, "ls -l");
	/* Typing at the end echoes exactly what was typed. */
	EXPECT_STREQ(test_echo.text, "ls -l\n");

	expect_line("pwd\n", "pwd");
	expect_line("\r", "");
	/* CR LF is one Enter: the LF after a CR starts nothing. */
	le_begin(&le, NULL, NULL, NULL);
	EXPECT_EQ(feed(&le, "a\r"), LE_LINE);
	le_begin(&le, NULL, NULL, NULL);	/* the next line, same editor */
	EXPECT_EQ(feed(&le, "\nb"), LE_MORE);
	EXPECT_EQ(feed(&le, "\r"), LE_LINE);
	EXPECT_STREQ(le.buf, "b");
	/* Control bytes and 8-bit bytes are ignored; a tab is a space. */
	expect_line("a\x02\x80\tb\r", "a b");
}

static void backspace_and_kill(void)
{
	expect_line("abx\x7f" "c\r", "abc");
	expect_line("abx\b" "c\r", "abc");
	expect_line("\x7f\x7f" "ok\r", "ok");
	expect_line("junk\x15" "ok\r", "ok");
	/* Ctrl-U kills only what is left of the cursor. */
	expect_line("xxabc\x1b[D\x1b[D\x1b[D\x15\r", "abc");
	/* Backspace in the middle. */
	expect_line("abXc\x1b[D\x7f\r", "abc");
}

static void cursor_keys(void)
{
	expect_line("ac\x1b[Db\r", "abc");
	expect_line("ab\x1b[D\x1b[D\x1b[CX\r", "aXb");
	expect_line("bc\x01" "a\x05" "d\r", "abcd");		/* Ctrl-A, Ctrl-E */
	expect_line("bc\x1b[Ha\x1b[F" "d\r", "abcd");		/* Home, End */
	expect_line("bc\x1bOHa\x1bOF" "d\r", "abcd");		/* their SS3 forms */
	expect_line("bc\x1b[1~a\x1b[4~d\r", "abcd");
	expect_line("abc\x1b[D\x1b[D\x1b[3~\r", "ac");		/* Delete */
	expect_line("abc\x1b[3~\r", "abc");			/* nothing under the cursor */
	expect_line("\x1b[D\x1b[Dab\x1b[C\x1b[C" "c\r", "abc");	/* moves stop at the ends */
	expect_line("a\x1b[1;5Cb\x1b[99zc\r", "abc");		/* unknown sequences are dropped */
}

static void history(void)
{
	le_history_clear(&test_hist);
	le_history_add(&test_hist, "first");
	le_history_add(&test_hist, "second");
	le_history_add(&test_hist, "second");	/* a repeat is not added */
	le_history_add(&test_hist, "");		/* nor an empty line */
	EXPECT_EQ(test_hist.count, 2u);
	expect_line("\x1b[A\r", "second");
	expect_line("\x1b[A\x1b[A\r", "first");
	expect_line("\x1b[A\x1b[A\x1b[A\x1b[A\r", "first");	/* stops at the oldest */
	expect_line("new\x1b[A\x1b[B\r", "new");		/* down comes back to the new line */
	expect_line("\x1b[B\r", "");
	expect_line("\x1b[A!\r", "second!");			/* a recalled line can be edited */
	expect_line("\x1b[A\x1b[A\x1b[B\r", "second");

	for (int i = 0; i < LE_HISTORY + 5; i++) {
		char line[16];
		snprintf(line, sizeof(line), "cmd%d", i);
		le_history_add(&test_hist, line);
	}
	EXPECT_STREQ(le_history_get(&test_hist, 1), "cmd36");
	EXPECT_STREQ(le_history_get(&test_hist, LE_HISTORY), "cmd5");
	EXPECT_NULL(le_history_get(&test_hist, LE_HISTORY + 1));

	/* A line of any length the editor takes is kept whole. */
	static char longest[LE_MAX];
	memset(longest, 'q', LE_MAX - 1);
	longest[LE_MAX - 1] = '\0';
	le_history_add(&test_hist, longest);
	EXPECT_STREQ(le_history_get(&test_hist, 1), longest);
	le_history_clear(&test_hist);
	EXPECT_NULL(le_history_get(&test_hist, 1));
}

static void ctrl_c_and_full_line(void)
{
	static struct line_editor le;
	le_begin(&le, NULL, NULL, NULL);
	EXPECT_EQ(feed(&le, "rm -r /\x03"), LE_INTR);
	EXPECT_STREQ(le.buf, "");
	EXPECT_EQ(le.len, 0u);

	le_begin(&le, NULL, NULL, NULL);
	for (int i = 0; i < LE_MAX + 20; i++)
		le_feed(&le, 'x');
	EXPECT_EQ(le.len, (unsigned)LE_MAX - 1);
	EXPECT_EQ((int)le_feed(&le, '\r'), LE_LINE);
	EXPECT_EQ(strlen(le.buf), (size_t)LE_MAX - 1);
}

/* A lone ESC (the Escape key) must not eat the next key: a control byte
 * ends an unfinished sequence and acts as itself. */
static void lone_escape(void)
{
	static struct line_editor le;
	expect_line("ab\x1b\r", "ab");
	expect_line("ab\x1b[\r", "ab");		/* in the middle of a CSI */
	expect_line("ab\x1b[1;\n", "ab");
	expect_line("ab\x1bO\r", "ab");		/* and of an SS3 */
	expect_line("a\x1b\x1b[Db\r", "ba");		/* ESC ESC [ D: the second ESC starts over */
	expect_line("a\x1b\x7f" "b\r", "b");		/* Backspace after ESC still deletes */
	expect_line("a\x1bxb\r", "ab");		/* ESC and a printable byte: dropped, as before */
	le_begin(&le, NULL, NULL, NULL);
	EXPECT_EQ(feed(&le, "rm -r /\x1b\x03"), LE_INTR);
	EXPECT_STREQ(le.buf, "");
	le_begin(&le, NULL, NULL, NULL);
	EXPECT_EQ(feed(&le, "x\x1b[2\x03"), LE_INTR);
	le_begin(&le, NULL, NULL, NULL);
	EXPECT_EQ(feed(&le, "ok\r"), LE_LINE);	/* the editor is back to normal */
	EXPECT_STREQ(le.buf, "ok");
}

static const struct ktest_case lineedit_cases[] = {
	KTEST_CASE(typing_and_enter),
	KTEST_CASE(backspace_and_kill),
	KTEST_CASE(cursor_keys),
	KTEST_CASE(history),
	KTEST_CASE(ctrl_c_and_full_line),
	KTEST_CASE(lone_escape),
};
KTEST_SUITE(shell_lineedit, lineedit_cases);

/* ---- a shell on a scripted terminal ---------------------------------------- */

struct fake_term {
	struct spinlock lock;      /* out: job threads write too */
	char out[4 * PATH_MAX];        /* room for a message quoting long paths */
	size_t len;
	const char *input;         /* bytes to type, after `quiet` empty reads */
	unsigned quiet;
	unsigned reads;            /* getc calls */
};

static int fake_getc(struct shell *sh)
{
	struct fake_term *t = sh->priv;
	t->reads++;
	if (t->quiet > 0) {
		t->quiet--;
		return -1;
	}
	if (!t->input || !*t->input)
		return -1;
	return (unsigned char)*t->input++;
}

static void fake_write(struct shell *sh, const char *s, size_t n)
{
	struct fake_term *t = sh->priv;
	unsigned long flags = spin_lock_irqsave(&t->lock);
	for (size_t i = 0; i < n && t->len + 1 < sizeof(t->out); i++)
		t->out[t->len++] = s[i];
	t->out[t->len] = '\0';
	spin_unlock_irqrestore(&t->lock, flags);
}

static struct shell *new_shell(struct fake_term *t)
{
	memset(t, 0, sizeof(*t));
	spin_init(&t->lock, "fake terminal");
	struct shell *sh = kzalloc(sizeof(*sh));
	if (sh)
		shell_init(sh, fake_getc, fake_write, t);
	return sh;
}

static void clear(struct fake_term *t)
{
	t->len = 0;
	t->out[0] = '\0';
}

static bool contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncmp(hay, needle, n) == 0)
			return true;
	return n == 0;
}

static struct fake_term term;

static void output_and_status(void)
{
	struct shell *sh = new_shell(&term);
	ASSERT_NOT_NULL(sh);
	EXPECT_EQ(sh_run_line(sh, "echo hi 'a  b'; echo -n x; echo y"), 0);
	EXPECT_STREQ(term.out, "hi a  b\nxy\n");
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "false"), 1);
	EXPECT_EQ(sh_run_line(sh, "echo $?; true; echo $?"), 0);
	EXPECT_STREQ(term.out, "1\n0\n");
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "frobnicate x"), 127);
	EXPECT_TRUE(contains(term.out, "sh: frobnicate: unknown command"));
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "sleep"), 2);
	EXPECT_TRUE(contains(term.out, "sleep: expected one duration\nusage: sleep "));
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "sleep soon"), 2);
	EXPECT_EQ(sh_run_line(sh, "help nothing"), 1);
	EXPECT_TRUE(contains(term.out, "help: nothing: unknown command\n"));
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "echo 'oops"), 2);
	EXPECT_STREQ(term.out, "sh: unterminated quote '\n");
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "exit 3"), 1);	/* not in a script */
	EXPECT_FALSE(sh->exiting);
	EXPECT_EQ(sh_run_line(sh, "sleep 10ms; sleep 0"), 0);
	kfree(sh);
}

/* A command blocked in a killable wait ends at Ctrl-C, with status 130,
 * and the rest of its line is abandoned. */
static void ctrl_c_interrupts(void)
{
	struct shell *sh = new_shell(&term);
	ASSERT_NOT_NULL(sh);
	term.quiet = 3;
	term.input = "\x03";
	EXPECT_EQ(sh_run_line(sh, "sleep 80000; echo after"), 130);
	EXPECT_TRUE(sh->interrupted);
	EXPECT_TRUE(contains(term.out, "^C\n"));
	EXPECT_FALSE(contains(term.out, "after"));
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "echo $?"), 0);
	EXPECT_STREQ(term.out, "130\n");
	EXPECT_FALSE(sh->interrupted);

	/* Bytes typed while a command runs are kept for the next line. */
	term.quiet = 2;
	term.input = "ls\x03";
	EXPECT_EQ(sh_run_line(sh, "sleep 80000"), 130);
	EXPECT_EQ(sh_ahead_get(sh), 'l');
	EXPECT_EQ(sh_ahead_get(sh), 's');
	EXPECT_EQ(sh_ahead_get(sh), -1);
	kfree(sh);
}

static void background_jobs(void)
{
	struct shell *sh = new_shell(&term);
	ASSERT_NOT_NULL(sh);
	EXPECT_EQ(sh_run_line(sh, "sleep 20ms & sleep 30ms &"), 0);
	ASSERT_NOT_NULL(jobs_find(sh, 1));
	ASSERT_NOT_NULL(jobs_find(sh, 2));
	EXPECT_STREQ(jobs_find(sh, 2)->text, "sleep 30ms");
	EXPECT_EQ(sh_run_line(sh, "wait %2"), 0);
	EXPECT_NULL(jobs_find(sh, 2));
	EXPECT_EQ(sh_run_line(sh, "wait"), 0);
	EXPECT_NULL(jobs_find(sh, 1));
	EXPECT_EQ(sh_run_line(sh, "wait 7"), 127);	/* no such job */

	/* A job's status comes back through wait; kill ends a killable wait. */
	EXPECT_EQ(sh_run_line(sh, "false &"), 0);
	EXPECT_EQ(sh_run_line(sh, "wait 1"), 1);
	EXPECT_EQ(sh_run_line(sh, "sleep 80000 &"), 0);
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "jobs"), 0);
	EXPECT_STREQ(term.out, "[1] running  sleep 80000\n");
	EXPECT_EQ(sh_run_line(sh, "kill %1; wait %1"), 130);
	EXPECT_NULL(jobs_find(sh, 1));

	/* Ctrl-C ends `wait`, not the job it waits for. */
	EXPECT_EQ(sh_run_line(sh, "sleep 80000 &"), 0);
	term.quiet = 2;
	term.input = "\x03";
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "wait; echo after"), 130);
	EXPECT_TRUE(sh->interrupted);
	EXPECT_FALSE(contains(term.out, "after"));	/* and the rest of its line */
	struct sh_job *j = jobs_find(sh, 1);
	ASSERT_NOT_NULL(j);
	EXPECT_FALSE(job_done(j));
	EXPECT_EQ(sh_run_line(sh, "kill 1"), 0);
	sh_wait_all(sh);
	EXPECT_NULL(jobs_find(sh, 1));

	/* The table is bounded; a full one says so. */
	for (int i = 0; i < SH_MAX_JOBS; i++)
		EXPECT_EQ(sh_run_line(sh, "sleep 80000 &"), 0);
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "sleep 1 &"), 1);
	EXPECT_TRUE(contains(term.out, "too many background jobs"));
	for (unsigned id = 1; id <= SH_MAX_JOBS; id++)
		thread_kill(jobs_find(sh, id)->thread);
	sh_wait_all(sh);
	kfree(sh);
}

/* ktest and bench share the runner's global state: while one runs, a
 * second (in the foreground or with &) is refused at once and never
 * starts.  This case runs inside the self-test runner, so it holds the
 * slot as a running `ktest` would (if the shell's own `ktest` started
 * this run, that one holds it already). */
static void ktest_and_bench_one_at_a_time(void)
{
	struct shell *sh = new_shell(&term);
	ASSERT_NOT_NULL(sh);
	bool mine = sh_exclusive_begin("ktest");
	EXPECT_EQ(sh_run_line(sh, "ktest shell_parse"), 1);
	EXPECT_TRUE(contains(term.out, "sh: ktest: ktest is already running"));
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "ktest shell_parse &"), 1);
	EXPECT_NULL(jobs_find(sh, 1));
	EXPECT_EQ(sh_run_line(sh, "bench lookup_cost & echo next"), 0);
	EXPECT_NULL(jobs_find(sh, 1));
	if (!EXPECT_STREQ(term.out, "sh: ktest: ktest is already running (ktest and bench run one at a time)\n"
			  "sh: bench: ktest is already running (ktest and bench run one at a time)\n"
			  "next\n"))
		kprintf("# output: %s\n", term.out);
	if (mine) {
		sh_exclusive_end();
		/* Free again: a job takes the slot and gives it back as it
		 * ends, in the foreground and in the background. */
		EXPECT_EQ(sh_run_line(sh, "bench nosuch"), 2);	/* ran: its usage error */
		EXPECT_EQ(sh_run_line(sh, "bench nosuch &"), 0);
		EXPECT_EQ(sh_run_line(sh, "wait %1"), 2);
		EXPECT_TRUE(sh_exclusive_begin("test"));
		sh_exclusive_end();
	}
	kfree(sh);
}

/* mount -t ext2 DEVICE DIR, as a user types it, on the scratch disk
 * (every matrix boot has one): a file written, synced, read back. */
static void mounts_a_disk(void)
{
	struct block_device *b = test_disk_or_skip("scratch");
	struct shell *sh = new_shell(&term);
	ASSERT_NOT_NULL(sh);
	char line[160];
	snprintf(line, sizeof(line), "mkdir -p /shmnt; mount -t ext2 /dev/%s /shmnt", b->name);
	EXPECT_EQ(sh_run_line(sh, line), 0);
	EXPECT_EQ(sh_run_line(sh, "mkdir -p /shmnt/shell; echo on a disk > /shmnt/shell/f"), 0);
	EXPECT_EQ(sh_run_line(sh, "sync"), 0);
	EXPECT_EQ(sh_run_line(sh, "cat /shmnt/shell/f; rm /shmnt/shell/f"), 0);
	EXPECT_TRUE(contains(term.out, "on a disk\n"));
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "mount -t ext2 /shmnt"), 2);	/* no device */
	EXPECT_TRUE(contains(term.out, "expected a source and a directory"));
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "mounts"), 0);
	EXPECT_TRUE(contains(term.out, "ext2"));
	EXPECT_EQ(sh_run_line(sh, "umount /shmnt; rmdir /shmnt"), 0);
	kfree(sh);
}

static const struct ktest_case exec_cases[] = {
	KTEST_CASE(output_and_status),
	KTEST_CASE(mounts_a_disk),
	KTEST_CASE_TIMEOUT(ctrl_c_interrupts, 60),
	KTEST_CASE_TIMEOUT(background_jobs, 60),
	KTEST_CASE_TIMEOUT(ktest_and_bench_one_at_a_time, 60),
};
KTEST_SUITE(shell_exec, exec_cases);

/* ---- the shell on files: a sandbox of its own ------------------------------ */

static void write_file(const char *path, const char *text)
{
	int fd = sys_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_write(fd, text, strlen(text)), (long)strlen(text));
	sys_close(fd);
}

/* A failed write ends cat: it reads no further file (the count it tested
 * for a read error was never set when the loop stopped at a write error). */
static void cat_stops_at_a_write_error(void)
{
	struct sandbox box;
	sandbox_enter(&box, "shell-cat");
	struct shell *sh = new_shell(&term);
	ASSERT_NOT_NULL(sh);
	write_file("data", "hello\n");
	write_file("more", "again\n");
	int ro = sys_open("data", O_RDONLY, 0);	/* writes to it fail: EBADF */
	ASSERT_GE(ro, 0);
	struct sh_ctx c = { .sh = sh, .cmd = sh_find_command("cat"), .out_fd = ro };
	char *argv[] = { "cat", "data", "nosuch", "more", NULL };
	EXPECT_EQ(c.cmd->fn(&c, 4, argv), 1);
	EXPECT_EQ(c.write_error, -EBADF);
	if (!EXPECT_STREQ(term.out, ""))
		kprintf("# cat went on after the failed write\n");
	sys_close(ro);

	/* Through the shell: the job says why, once. */
	clear(&term);
	sys_mkdir("dir", 0755);
	EXPECT_EQ(sh_run_line(sh, "cat data > dir"), 1);
	EXPECT_TRUE(contains(term.out, "Is a directory"));
	kfree(sh);
	sandbox_leave(&box);
}

/* script=DIR: a long name runs like any other; a directory with more
 * scripts than the shell keeps is refused whole, with a message, rather
 * than run in part without a word. */
static void script_directory(void)
{
	struct sandbox box;
	sandbox_enter(&box, "shell-dir");
	struct shell *sh = new_shell(&term);
	ASSERT_NOT_NULL(sh);
	static char path[PATH_MAX], dir[128];

	snprintf(dir, sizeof(dir), "%s/long", box.path);
	ASSERT_EQ(sys_mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/a.sh", dir);
	write_file(path, "echo ran a\n");
	size_t n = (size_t)snprintf(path, sizeof(path), "%s/b", dir);
	while (n < strlen(dir) + 1 + 200)
		path[n++] = 'b';
	strlcpy(path + n, ".sh", sizeof(path) - n);	/* a 204-byte name */
	write_file(path, "echo ran the long one\n");
	EXPECT_EQ(sh_run_script_dir(sh, dir), 0);
	if (!EXPECT_STREQ(term.out, "ran a\nran the long one\n"))
		kprintf("# output: %s\n", term.out);

	clear(&term);
	snprintf(dir, sizeof(dir), "%s/many", box.path);
	ASSERT_EQ(sys_mkdir(dir, 0755), 0);
	for (int i = 0; i <= 64; i++) {
		snprintf(path, sizeof(path), "%s/s%02d.sh", dir, i);
		write_file(path, "echo ran one\n");
	}
	EXPECT_NE(sh_run_script_dir(sh, dir), 0);
	EXPECT_TRUE(contains(term.out, "65 scripts, more than the 64 a directory may hold: none run"));
	EXPECT_FALSE(contains(term.out, "ran one"));
	kfree(sh);
	sys_chdir(box.path);
	sandbox_leave(&box);
}

/* Ctrl-C in a sourced script ends the whole command line: the rest of
 * the script, the scripts that sourced it, and the line's later commands. */
static void ctrl_c_ends_a_sourced_line(void)
{
	struct sandbox box;
	sandbox_enter(&box, "shell-source");
	struct shell *sh = new_shell(&term);
	ASSERT_NOT_NULL(sh);
	write_file("f", "sleep 80000\necho inside\n");
	write_file("g", "source f\necho mid\n");
	write_file("h", "echo fine\n");

	term.quiet = 3;
	term.input = "\x03";
	EXPECT_EQ(sh_run_line(sh, "source f; echo after"), 130);
	EXPECT_TRUE(sh->interrupted);
	if (!EXPECT_FALSE(contains(term.out, "after")))
		kprintf("# output: %s\n", term.out);
	EXPECT_FALSE(contains(term.out, "inside"));

	clear(&term);
	term.quiet = 3;
	term.input = "\x03";
	EXPECT_EQ(sh_run_line(sh, "source g; echo after"), 130);
	if (!EXPECT_STREQ(term.out, "^C\n"))
		kprintf("# output: %s\n", term.out);

	/* The next line runs as usual, and a script not interrupted does
	 * not stop the line. */
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "source h; echo after"), 0);
	EXPECT_STREQ(term.out, "fine\nafter\n");
	EXPECT_FALSE(sh->interrupted);
	kfree(sh);
	sandbox_leave(&box);
}

/* Type Ctrl-C after a few quiet reads of the terminal, and run line. */
static int run_and_ctrl_c(struct shell *sh, const char *line)
{
	clear(&term);
	term.quiet = 3;
	term.input = "\x03";
	return sh_run_line(sh, line);
}

/* Redirections, cd and a sourced file's read wait on the file layer, so
 * they run where Ctrl-C reaches them: on a slowfs whose gate never opens
 * (gate=2, one lookup at a time), each ends at Ctrl-C with 130 and ends
 * its line, instead of freezing the shell thread for good. */
static void ctrl_c_reaches_redirections_and_cd(void)
{
	struct sandbox box;
	char cwd[128], before[128];
	sandbox_enter(&box, "shell-slow");
	struct shell *sh = new_shell(&term);
	ASSERT_NOT_NULL(sh);
	ASSERT_EQ(sys_mkdir("slow", 0755), 0);
	ASSERT_EQ(sys_mount("slowfs", "slow", "gate=2,names=8"), 0);
	ASSERT_GT(sys_getcwd(before, sizeof(before)), 0);

	static const char *const lines[] = {
		"echo x > slow/f1; echo after",		/* a command's redirection */
		"history > slow/f3; echo after",	/* an SH_INLINE command's */
		"cd slow/f4; echo after",		/* cd */
		"source slow/f5; echo after",		/* reading a script */
	};
	for (unsigned i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		int status = run_and_ctrl_c(sh, lines[i]);
		if (!EXPECT_EQ(status, 130))
			kprintf("# '%s' gave %d: %s\n", lines[i], status, term.out);
		EXPECT_TRUE(sh->interrupted);
		EXPECT_FALSE(contains(term.out, "after"));
	}
	ASSERT_GT(sys_getcwd(cwd, sizeof(cwd)), 0);
	EXPECT_STREQ(cwd, before);

	/* A background job's redirection is its own thread's: kill ends it. */
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "echo x >> slow/f2 &"), 0);
	EXPECT_EQ(sh_run_line(sh, "kill %1; wait %1"), 130);

	/* cd still moves the shell (its thread shares the shell's cwd), but
	 * not from the background. */
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "cd slow; pwd"), 0);
	snprintf(cwd, sizeof(cwd), "%s/slow\n", before);
	EXPECT_STREQ(term.out, cwd);
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "cd / & echo after"), 0);
	EXPECT_STREQ(term.out, "sh: cd: cannot run in the background (it changes the shell itself)\nafter\n");
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "pwd"), 0);
	snprintf(cwd, sizeof(cwd), "%s/slow\n", before);
	EXPECT_STREQ(term.out, cwd);

	struct slowfs_stats st;
	ASSERT_EQ(slowfs_stats_at(box.path, &st), -EINVAL);	/* the sandbox is ramfs */
	snprintf(cwd, sizeof(cwd), "%s/slow", box.path);
	ASSERT_EQ(slowfs_stats_at(cwd, &st), 0);
	EXPECT_EQ(st.in_flight, 0u);	/* every killed lookup left */
	EXPECT_EQ(st.overlaps, 0u);
	EXPECT_EQ(st.rehashed, 0u);
	kfree(sh);
	EXPECT_EQ(sys_chdir(box.path), 0);
	EXPECT_EQ(sys_umount("slow"), 0);
	EXPECT_EQ(sys_rmdir("slow"), 0);
	sandbox_leave(&box);
}

/* Builds "D0/D1/.../D15/" + a last name, `len` bytes in all: sixteen
 * directories of 250 bytes take 4,016, so 4,095 leaves a last name of 79
 * bytes, within NAME_MAX, and 4,096 one of 80. */
#define LONG_DIRS 16
#define LONG_DIR_LEN 250

static void long_path(char *buf, size_t len, char last)
{
	size_t at = 0;
	for (int i = 0; i < LONG_DIRS; i++) {
		memset(buf + at, 'a' + i, LONG_DIR_LEN);
		at += LONG_DIR_LEN;
		buf[at++] = '/';
	}
	memset(buf + at, last, len - at);
	buf[len] = '\0';
}

/* Whole paths of PATH_MAX bytes can be tried from the shell, typed and
 * sourced: a path of 4,095 bytes works and one of 4,096 gives
 * ENAMETOOLONG, as on Linux, and a line holds two of them (mv).  Before,
 * a typed line stopped at 255 bytes, a sourced one at 1,023 and a
 * line's words at 1,024, so none of these commands could run. */
static void long_paths(void)
{
	struct sandbox box;
	sandbox_enter(&box, "shell-long");
	struct shell *sh = new_shell(&term);
	static struct line_editor le;
	char *a = kmalloc(PATH_MAX + 1), *b = kmalloc(PATH_MAX + 1), *line = kmalloc(SH_LINE_MAX + 8);
	ASSERT_NOT_NULL(sh);
	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	ASSERT_NOT_NULL(line);
	long_path(a, PATH_MAX - 1, 'x');
	for (int i = 0; i < LONG_DIRS; i++) {	/* the directories, with C calls */
		size_t end = (size_t)(i + 1) * (LONG_DIR_LEN + 1) - 1;
		char saved = a[end];
		a[end] = '\0';
		ASSERT_EQ(sys_mkdir(a, 0755), 0);
		a[end] = saved;
	}

	/* Typed: through the line editor, byte by byte. */
	snprintf(line, SH_LINE_MAX + 8, "mkdir %s\r", a);
	le_begin(&le, NULL, NULL, NULL);
	int r = LE_MORE;
	for (const char *p = line; *p && r == LE_MORE; p++)
		r = le_feed(&le, (unsigned char)*p);
	ASSERT_EQ(r, LE_LINE);
	EXPECT_EQ(sh_run_line(sh, le.buf), 0);
	struct kstat st;
	EXPECT_EQ(sys_stat(a, &st), 0);

	long_path(b, PATH_MAX, 'y');
	clear(&term);
	snprintf(line, SH_LINE_MAX + 8, "mkdir %s", b);
	EXPECT_EQ(sh_run_line(sh, line), 1);
	EXPECT_TRUE(contains(term.out, ": File name too long\n"));
	EXPECT_TRUE(contains(term.out, b));	/* the message quotes it whole */

	/* Two whole paths on one line: 6 + 2 * 4,095 bytes. */
	long_path(b, PATH_MAX - 1, 'y');
	snprintf(line, SH_LINE_MAX + 8, "mv %s %s", a, b);
	EXPECT_EQ(sh_run_line(sh, line), 0);
	EXPECT_EQ(sys_stat(b, &st), 0);
	EXPECT_EQ(sys_stat(a, &st), -ENOENT);

	/* Sourced: the same rules from a script file. */
	long_path(a, PATH_MAX, 'z');
	snprintf(line, SH_LINE_MAX + 8, "rmdir %s\nmkdir %s\n", b, a);
	write_file("s.sh", line);
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "source s.sh"), 1);
	EXPECT_EQ(sys_stat(b, &st), -ENOENT);
	EXPECT_TRUE(contains(term.out, ": File name too long\n"));

	/* A line longer than the limit is refused whole, not cut. */
	memset(line, 'e', SH_LINE_MAX);
	memcpy(line, "echo ", 5);
	line[SH_LINE_MAX] = '\n';
	line[SH_LINE_MAX + 1] = '\0';
	write_file("s.sh", line);
	clear(&term);
	EXPECT_EQ(sh_run_line(sh, "source s.sh"), 2);
	EXPECT_TRUE(contains(term.out, "sh: a line longer than"));
	EXPECT_FALSE(contains(term.out, "eeee"));

	EXPECT_EQ(sys_unlink("s.sh"), 0);
	long_path(a, PATH_MAX - 1, 'x');
	for (int i = LONG_DIRS - 1; i >= 0; i--) {
		a[(size_t)(i + 1) * (LONG_DIR_LEN + 1) - 1] = '\0';
		EXPECT_EQ(sys_rmdir(a), 0);
	}
	kfree(line);
	kfree(b);
	kfree(a);
	kfree(sh);
	sandbox_leave(&box);
}

static const struct ktest_case files_cases[] = {
	KTEST_CASE(long_paths),
	KTEST_CASE(cat_stops_at_a_write_error),
	KTEST_CASE(script_directory),
	KTEST_CASE_TIMEOUT(ctrl_c_ends_a_sourced_line, 60),
	KTEST_CASE_TIMEOUT(ctrl_c_reaches_redirections_and_cd, 30),
};
KTEST_SUITE(shell_files, files_cases);
