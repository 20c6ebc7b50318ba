/*
 * lineedit.c: the line editor (see lineedit.h for the keys).
 *
 * The echo keeps the terminal's cursor where le->pos is, with as little
 * output as possible: typing at the end of the line echoes just the
 * byte, so a program driving the shell over the serial line reads back
 * exactly what it sent.  Editing elsewhere rewrites the tail of the line
 * and moves the cursor back with ANSI sequences (ESC [ n D, ESC [ K).
 */
#include "shell/lineedit.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

enum { ESC_NONE, ESC_START, ESC_CSI, ESC_SS3 };

#define CTRL(c) ((c) & 0x1f)

static void echo(struct line_editor *le, const char *s, size_t n)
{
	if (le->echo && n)
		le->echo(s, n, le->echo_arg);
}

static void echo_str(struct line_editor *le, const char *s)
{
	echo(le, s, strlen(s));
}

static void cursor_left(struct line_editor *le, unsigned n)
{
	char seq[16];
	if (n)
		echo(le, seq, (size_t)snprintf(seq, sizeof(seq), "\x1b[%uD", n));
}

static void cursor_right(struct line_editor *le, unsigned n)
{
	char seq[16];
	if (n)
		echo(le, seq, (size_t)snprintf(seq, sizeof(seq), "\x1b[%uC", n));
}

/* Rewrite the line from the cursor on, clear what is left of the old
 * text, and put the cursor back at pos. */
static void redraw_tail(struct line_editor *le)
{
	echo(le, le->buf + le->pos, le->len - le->pos);
	echo_str(le, "\x1b[K");
	cursor_left(le, le->len - le->pos);
}

void le_begin(struct line_editor *le, struct le_history *hist, le_echo_t fn, void *arg)
{
	bool last_cr = le->last_cr;	/* a CR LF may straddle two lines */
	memset(le, 0, sizeof(*le));
	le->last_cr = last_cr;
	le->hist = hist;
	le->echo = fn;
	le->echo_arg = arg;
}

static void insert(struct line_editor *le, char c)
{
	if (le->len + 1 >= LE_MAX) {
		echo_str(le, "\a");	/* full: ring the bell */
		return;
	}
	memmove(le->buf + le->pos + 1, le->buf + le->pos, le->len - le->pos);
	le->buf[le->pos] = c;
	le->len++;
	le->buf[le->len] = '\0';
	echo(le, &c, 1);
	le->pos++;
	if (le->pos < le->len)
		redraw_tail(le);
}

/* Delete n characters starting at `from`, the cursor moving to `from`. */
static void delete_range(struct line_editor *le, unsigned from, unsigned n)
{
	if (n == 0)
		return;
	cursor_left(le, le->pos > from ? le->pos - from : 0);
	memmove(le->buf + from, le->buf + from + n, le->len - from - n);
	le->len -= n;
	le->buf[le->len] = '\0';
	le->pos = from;
	redraw_tail(le);
}

static void backspace(struct line_editor *le)
{
	if (le->pos == 0)
		return;
	if (le->pos == le->len) {	/* the common case, in three bytes */
		le->pos--;
		le->len--;
		le->buf[le->len] = '\0';
		echo_str(le, "\b \b");
		return;
	}
	delete_range(le, le->pos - 1, 1);
}

/* Replace the whole line with s, cursor at its end. */
static void replace_line(struct line_editor *le, const char *s)
{
	cursor_left(le, le->pos);
	strlcpy(le->buf, s, LE_MAX);
	le->len = le->pos = (unsigned)strlen(le->buf);
	echo(le, le->buf, le->len);
	echo_str(le, "\x1b[K");
}

static void history_step(struct line_editor *le, int older)
{
	if (!le->hist)
		return;
	unsigned want = older ? le->back + 1 : le->back - (le->back > 0);
	if (older && !le_history_get(le->hist, want))
		return;
	if (!older && le->back == 0)
		return;
	if (le->back == 0)
		strlcpy(le->saved, le->buf, LE_MAX);
	le->back = want;
	replace_line(le, want ? le_history_get(le->hist, want) : le->saved);
}

static void move_to(struct line_editor *le, unsigned pos)
{
	if (pos < le->pos)
		cursor_left(le, le->pos - pos);
	else
		cursor_right(le, pos - le->pos);
	le->pos = pos;
}

/* The last byte of ESC [ ... or ESC O ... */
static void escape_final(struct line_editor *le, int c)
{
	switch (c) {
	case 'A': history_step(le, 1); break;
	case 'B': history_step(le, 0); break;
	case 'C': if (le->pos < le->len) move_to(le, le->pos + 1); break;
	case 'D': if (le->pos > 0) move_to(le, le->pos - 1); break;
	case 'H': move_to(le, 0); break;
	case 'F': move_to(le, le->len); break;
	case '~':
		if (le->esc_num == 3 && le->pos < le->len)
			delete_range(le, le->pos, 1);
		else if (le->esc_num == 1 || le->esc_num == 7)
			move_to(le, 0);
		else if (le->esc_num == 4 || le->esc_num == 8)
			move_to(le, le->len);
		break;
	default: break;        /* an unknown sequence: ignored whole */
	}
}

/* Returns true if c was part of an escape sequence. */
static bool escape_byte(struct line_editor *le, int c)
{
	if (le->esc != ESC_NONE && (c < 0x20 || c == 0x7f)) {
		/* A control byte inside a sequence is not part of it (as on a
		 * terminal): a lone ESC (the Escape key) followed by Enter or
		 * Ctrl-C must not swallow them.  A second ESC starts over. */
		le->esc = c == 0x1b ? ESC_START : ESC_NONE;
		return c == 0x1b;
	}
	switch (le->esc) {
	case ESC_NONE:
		if (c != 0x1b)
			return false;
		le->esc = ESC_START;
		return true;
	case ESC_START:
		le->esc = c == '[' ? ESC_CSI : c == 'O' ? ESC_SS3 : ESC_NONE;
		le->esc_num = 0;
		return true;
	default:
		if (le->esc == ESC_CSI && c >= '0' && c <= '9') {
			le->esc_num = le->esc_num * 10 + (unsigned)(c - '0');
			return true;
		}
		if (le->esc == ESC_CSI && c == ';')
			return true;
		le->esc = ESC_NONE;
		escape_final(le, c);
		return true;
	}
}

static enum le_result finish(struct line_editor *le)
{
	le->buf[le->len] = '\0';
	echo_str(le, "\n");
	le->back = 0;
	return LE_LINE;
}

enum le_result le_feed(struct line_editor *le, int c)
{
	c &= 0xff;
	bool after_cr = le->last_cr;
	le->last_cr = false;
	if (escape_byte(le, c))
		return LE_MORE;
	switch (c) {
	case '\r':
		le->last_cr = true;
		return finish(le);
	case '\n':
		if (after_cr)
			return LE_MORE;	/* the LF of a CR LF */
		return finish(le);
	case CTRL('C'):
		echo_str(le, "^C\n");
		le->len = le->pos = 0;
		le->buf[0] = '\0';
		le->back = 0;
		return LE_INTR;
	case '\b':
	case 0x7f:
		backspace(le);
		return LE_MORE;
	case CTRL('U'):
		delete_range(le, 0, le->pos);
		return LE_MORE;
	case CTRL('A'):
		move_to(le, 0);
		return LE_MORE;
	case CTRL('E'):
		move_to(le, le->len);
		return LE_MORE;
	case '\t':
		insert(le, ' ');
		return LE_MORE;
	default:
		if (c >= 0x20 && c < 0x7f)
			insert(le, (char)c);
		return LE_MORE;	/* other control bytes and 8-bit bytes: ignored */
	}
}

void le_history_add(struct le_history *h, const char *line)
{
	if (line[0] == '\0')
		return;
	const char *newest = le_history_get(h, 1);
	if (newest && strcmp(newest, line) == 0)
		return;
	size_t n = strlen(line) + 1;
	char *copy = kmalloc(n);
	if (!copy)
		return;
	memcpy(copy, line, n);
	unsigned slot = h->count % LE_HISTORY;
	kfree(h->lines[slot]);
	h->lines[slot] = copy;
	h->count++;
}

void le_history_clear(struct le_history *h)
{
	for (unsigned i = 0; i < LE_HISTORY; i++) {
		kfree(h->lines[i]);
		h->lines[i] = NULL;
	}
	h->count = 0;
}

const char *le_history_get(const struct le_history *h, unsigned k)
{
	if (k == 0 || k > h->count || k > LE_HISTORY)
		return NULL;
	return h->lines[(h->count - k) % LE_HISTORY];
}
