/*
 * lineedit.h: the shell's line editor, a state machine fed one byte at a
 * time.
 *
 * It knows nothing of the UART: the caller feeds it the bytes a terminal
 * sends and gives it a function to write the echo with, so a test can
 * feed it a byte string and read the line back.  Keys:
 *
 *   printable        insert at the cursor
 *   Backspace, DEL   delete the character before the cursor
 *   Ctrl-U           delete from the start of the line to the cursor
 *   Ctrl-A, Ctrl-E   cursor to the start, to the end (also Home, End)
 *   left, right      move the cursor (ESC [ D, ESC [ C)
 *   up, down         walk the history (ESC [ A, ESC [ B)
 *   Delete           delete the character under the cursor (ESC [ 3 ~)
 *   Ctrl-C           abandon the line
 *   Enter            CR, LF or CR LF: the line is done
 *
 * Unknown escape sequences are dropped whole; a control byte (Enter,
 * Ctrl-C, ...) ends an unfinished one and then acts as itself, so a lone
 * ESC never eats the next key.
 *
 * Typical use:
 *
 *     le_begin(&le, &history, echo, arg);
 *     while ((r = le_feed(&le, next_byte())) == LE_MORE) ;
 *     if (r == LE_LINE) { le_history_add(&history, le.buf); run(le.buf); }
 *
 * Reuse one editor for every line: le_begin keeps whether the last byte
 * was a CR, so the LF of a CR LF does not end the next line at once.
 *
 * An editor and its history belong to one thread.
 */
#ifndef SHELL_LINEEDIT_H
#define SHELL_LINEEDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "shell/parse.h"

#define LE_MAX SH_LINE_MAX         /* bytes in a line, with its NUL */
#define LE_HISTORY 32              /* lines the history keeps */

/* Each line is kept in a heap copy of its own length: 32 buffers of
 * LE_MAX bytes would be 384 KiB per shell. */
struct le_history {
	char *lines[LE_HISTORY];       /* NULL until used */
	unsigned count;                /* lines ever added; the newest is (count-1) % LE_HISTORY */
};

typedef void (*le_echo_t)(const char *s, size_t n, void *arg);

struct line_editor {
	char buf[LE_MAX];              /* the line, NUL-terminated */
	unsigned len, pos;             /* its length; the cursor */
	int esc;                       /* where we are in an escape sequence */
	unsigned esc_num;              /* the number in ESC [ n ~ */
	bool last_cr;                  /* the previous byte was CR: swallow an LF */
	struct le_history *hist;       /* may be NULL */
	unsigned back;                 /* 0: editing the new line; k: the k-th newest history line */
	char saved[LE_MAX];            /* the new line, while walking the history */
	le_echo_t echo;                /* may be NULL */
	void *echo_arg;
};

enum le_result {
	LE_MORE,                       /* feed more */
	LE_LINE,                       /* buf holds a finished line */
	LE_INTR,                       /* Ctrl-C: the line was abandoned */
};

void le_begin(struct line_editor *le, struct le_history *hist, le_echo_t echo, void *arg);
enum le_result le_feed(struct line_editor *le, int c);
/* Add a line (not an empty one, nor a repeat of the newest).  Without
 * memory for its copy the line is not kept: the history is a convenience. */
void le_history_add(struct le_history *h, const char *line);
/* Forget every line and free the copies (a shell that goes away). */
void le_history_clear(struct le_history *h);
/* The k-th newest line (1 = newest), or NULL. */
const char *le_history_get(const struct le_history *h, unsigned k);

#endif
