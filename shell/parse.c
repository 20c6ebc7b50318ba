/*
 * parse.c: splitting a command line into commands and words (the
 * language is in parse.h).
 *
 * One pass over the line with a cursor; words are copied, unquoted, into
 * the line's store, and argv points into it.  Every error stops the
 * parse with a one-line reason: a shell that guesses runs the wrong
 * command.
 */
#include "shell/parse.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

struct scan {
	const char *p;             /* the next byte to read */
	struct sh_line *out;
	int status;                /* for $? */
	char *err;
	size_t errlen;
};

static int fail(struct scan *s, const char *why)
{
	snprintf(s->err, s->errlen, "%s", why);
	return -EINVAL;
}

static int put(struct scan *s, char c)
{
	if (s->out->used >= SH_STORE)
		return fail(s, "line too long");
	s->out->store[s->out->used++] = c;
	return 0;
}

static int put_status(struct scan *s)
{
	char num[16];
	int n = snprintf(num, sizeof(num), "%d", s->status);
	for (int i = 0; i < n; i++)
		if (put(s, num[i]) < 0)
			return -EINVAL;
	return 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Bytes that end an unquoted word. */
static bool is_special(char c)
{
	return c == '\0' || is_blank(c) || c == ';' || c == '&' || c == '|' || c == '<' || c == '>';
}

static void skip_blanks(struct scan *s)
{
	while (is_blank(*s->p))
		s->p++;
}

/* A single-quoted part; s->p is just past the opening quote. */
static int single_quoted(struct scan *s)
{
	for (; *s->p != '\''; s->p++) {
		if (*s->p == '\0')
			return fail(s, "unterminated quote '");
		if (put(s, *s->p) < 0)
			return -EINVAL;
	}
	s->p++;
	return 0;
}

static int double_quoted(struct scan *s)
{
	for (;;) {
		char c = *s->p;
		if (c == '\0')
			return fail(s, "unterminated quote \"");
		s->p++;
		if (c == '"')
			return 0;
		int r;
		if (c == '\\' && (*s->p == '"' || *s->p == '\\' || *s->p == '$'))
			r = put(s, *s->p++);
		else if (c == '$' && *s->p == '?') {
			s->p++;
			r = put_status(s);
		} else
			r = put(s, c);
		if (r < 0)
			return r;
	}
}

/* Read one word at s->p into the store; *word points at it.  Returns 1
 * if there was a word, 0 if s->p is at an operator or the end. */
static int read_word(struct scan *s, const char **word)
{
	size_t start = s->out->used;
	bool any = false;
	int r = 0;

	while (r == 0 && !is_special(*s->p)) {
		char c = *s->p++;
		any = true;
		if (c == '\'')
			r = single_quoted(s);
		else if (c == '"')
			r = double_quoted(s);
		else if (c == '\\') {
			if (*s->p == '\0')
				return fail(s, "a backslash at the end of the line");
			r = put(s, *s->p++);
		} else if (c == '$' && *s->p == '?') {
			s->p++;
			r = put_status(s);
		} else
			r = put(s, c);
	}
	if (r < 0)
		return r;
	if (!any)
		return 0;
	if (put(s, '\0') < 0)
		return -EINVAL;
	*word = s->out->store + start;
	return 1;
}

static int redirection(struct scan *s, struct sh_cmd *cmd)
{
	bool append = s->p[1] == '>';
	s->p += append ? 2 : 1;
	skip_blanks(s);
	const char *file;
	int r = read_word(s, &file);
	if (r < 0)
		return r;
	if (r == 0)
		return fail(s, append ? "missing file name after >>" : "missing file name after >");
	if (cmd->redir)
		return fail(s, "only one redirection per command");
	cmd->redir = file;
	cmd->append = append;
	return 0;
}

/* Close the command that began at `from` (its text, for `jobs`). */
static int end_command(struct scan *s, struct sh_cmd *cmd, const char *from)
{
	if (cmd->argc == 0)
		return fail(s, cmd->redir ? "a redirection without a command" : "missing command");
	const char *to = s->p;
	while (to > from && is_blank(to[-1]))
		to--;
	cmd->text = s->out->store + s->out->used;
	for (; from < to; from++)
		if (put(s, *from) < 0)
			return -EINVAL;
	if (put(s, '\0') < 0)
		return -EINVAL;
	s->out->ncmds++;
	return 0;
}

static int separator(struct scan *s, struct sh_cmd *cmd, const char *from)
{
	char c = *s->p;
	if (cmd->argc == 0 && !cmd->redir) {
		return fail(s, c == ';' ? "syntax error near ';'" : "syntax error near '&'");
	}
	cmd->background = c == '&';
	int r = end_command(s, cmd, from);
	s->p++;
	return r;
}

int sh_parse(const char *line, int status, struct sh_line *out, char *err, size_t errlen)
{
	struct scan s = { line, out, status, err, errlen };
	memset(out, 0, sizeof(*out));
	err[0] = '\0';

	for (;;) {
		skip_blanks(&s);
		/* The end of the line (or a comment) after a separator starts
		 * no command: "a; b;" is two, so the limit counts only
		 * commands that really begin. */
		if (*s.p == '\0' || *s.p == '#')
			return 0;
		if (out->ncmds == SH_MAX_CMDS)
			return fail(&s, "too many commands on one line");
		struct sh_cmd *cmd = &out->cmds[out->ncmds];
		const char *from = s.p;
		for (;;) {
			skip_blanks(&s);
			char c = *s.p;
			int r = 0;
			if (c == '\0' || c == '#') {
				if (cmd->argc == 0 && !cmd->redir)
					return 0;
				return end_command(&s, cmd, from);
			}
			if (c == ';' || c == '&') {
				if ((r = separator(&s, cmd, from)) < 0)
					return r;
				break;
			}
			if (c == '|')
				return fail(&s, "pipes are not supported");
			if (c == '<')
				return fail(&s, "input redirection is not supported");
			if (c == '>') {
				r = redirection(&s, cmd);
			} else {
				const char *word;
				r = read_word(&s, &word);
				if (r > 0) {
					if (cmd->argc == SH_MAX_ARGS)
						return fail(&s, "too many arguments");
					cmd->argv[cmd->argc++] = (char *)word;
					r = 0;
				}
			}
			if (r < 0)
				return r;
		}
	}
}
