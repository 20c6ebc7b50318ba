/*
 * tty.c: the console terminal (COM1) as user programs see it: a
 * character device with a line discipline, termios, a foreground process
 * group and a window size.
 *
 * Input does not come from an interrupt: whoever owns the UART while a
 * user program is in the foreground (the shell's `run`, init= at boot)
 * passes each byte it reads to tty_receive, which does what Linux's
 * n_tty does with the flags that matter here:
 *   ISIG    VINTR (Ctrl-C) sends SIGINT, VQUIT (Ctrl-\) SIGQUIT, to the
 *           foreground process group, and drops pending input
 *   ICRNL   CR becomes NL
 *   ICANON  lines: VERASE and VKILL edit the line being typed, NL or
 *           VEOF (Ctrl-D) completes it; read returns at most one line,
 *           and VEOF on an empty line reads as end of file
 *   ECHO    typed bytes are echoed (ECHOE: an erase as "\b \b")
 * Without ICANON a read returns what has arrived once there is at least
 * one byte (VMIN 1, VTIME 0: what line editors ask for; VMIN 0 does not
 * wait).  Output with OPOST|ONLCR turns NL into CR NL.
 *
 * Locking: tty.lock (a spinlock, interrupts left on: no interrupt handler
 * touches the tty) protects the termios, the buffers, the foreground group
 * and the window size; readers sleep on read_wait (killable) and are woken
 * after each change.  Under it only the console lock is taken (echo,
 * console_write); signals are sent after it is dropped.
 */
#include "user/tty.h"
#include "user/process.h"
#include "fs/anon_inode.h"
#include "fs/dcache.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "fs/task_fs.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/layout.h"
#include "kernel/kprintf.h"
#include "kernel/panic.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/thread.h"
#include "kernel/uaccess.h"
#include "kernel/waitqueue.h"

/* termios flags (Linux's values). */
#define ICRNL  0000400
#define OPOST  0000001
#define ONLCR  0000004
#define ISIG   0000001
#define ICANON 0000002
#define ECHO   0000010
#define ECHOE  0000020
#define ECHOK  0000040
#define ECHOCTL 0001000
#define ECHOKE 0004000
#define IEXTEN 0100000
#define B38400 0000017
#define CS8    0000060
#define CREAD  0000200
#define VINTR 0
#define VQUIT 1
#define VERASE 2
#define VKILL 3
#define VEOF 4
#define VTIME 5
#define VMIN 6
#define VSUSP 10
#define NCCS 19

struct termios {
	uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
	uint8_t c_line;
	uint8_t c_cc[NCCS];
};

struct winsize {
	uint16_t ws_row, ws_col, ws_xpixel, ws_ypixel;
};

#define TTY_BUF 1024

static struct tty {
	struct spinlock lock;
	struct termios t;
	char in[TTY_BUF];          /* what read returns: a ring */
	unsigned head, len;
	unsigned lines;            /* ICANON: complete lines (or EOFs) in `in` */
	char line[TTY_BUF];        /* ICANON: the line being typed */
	unsigned line_len;
	unsigned pgrp;             /* the foreground process group (0: none) */
	struct winsize ws;
	struct wait_queue_head read_wait;
	struct file *file;         /* the one open file: descriptors share it */
	uint64_t received;         /* bytes passed to tty_receive, for tests */
} tty;

static const struct termios tty_default = {
	.c_iflag = ICRNL,
	.c_oflag = OPOST | ONLCR,
	.c_cflag = B38400 | CS8 | CREAD,
	.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
	.c_cc = { [VINTR] = 3, [VQUIT] = 034, [VERASE] = 0177, [VKILL] = 025, [VEOF] = 4,
		  [VTIME] = 0, [VMIN] = 1, [VSUSP] = 032 },
};

static void echo(const char *s, size_t n)
{
	console_write(s, n);
}

/* Caller holds tty.lock. */
static void push(char c)
{
	spin_assert_held(&tty.lock);
	if (tty.len == TTY_BUF)
		return;		/* full: dropped, as n_tty drops past its buffer */
	tty.in[(tty.head + tty.len) % TTY_BUF] = c;
	tty.len++;
}

/* A byte from the terminal.  Returns the signal to send (0: none). */
static int __receive(char c)
{
	spin_assert_held(&tty.lock);
	struct termios *t = &tty.t;
	if ((t->c_iflag & ICRNL) && c == '\r')
		c = '\n';
	if (t->c_lflag & ISIG) {
		int sig = c == t->c_cc[VINTR] ? SIGINT : c == t->c_cc[VQUIT] ? SIGQUIT : 0;
		if (sig) {
			tty.head = tty.len = tty.lines = tty.line_len = 0;	/* as n_tty: flushed */
			if (t->c_lflag & ECHO)
				echo(sig == SIGINT ? "^C\r\n" : "^\\\r\n", 4);
			return sig;
		}
	}
	if (!(t->c_lflag & ICANON)) {
		push(c);
		if (t->c_lflag & ECHO)
			echo(&c, 1);
		return 0;
	}
	if (c == t->c_cc[VERASE] || c == '\b') {
		if (tty.line_len) {
			tty.line_len--;
			if (t->c_lflag & ECHO)
				echo("\b \b", 3);
		}
		return 0;
	}
	if (c == t->c_cc[VKILL]) {
		while (tty.line_len && (t->c_lflag & ECHO)) {
			echo("\b \b", 3);
			tty.line_len--;
		}
		tty.line_len = 0;
		return 0;
	}
	bool eof = c == t->c_cc[VEOF];
	if (!eof && tty.line_len < TTY_BUF - 1)
		tty.line[tty.line_len++] = c;
	if ((t->c_lflag & ECHO) && !eof)
		echo(c == '\n' ? "\r\n" : &c, c == '\n' ? 2 : 1);
	if (eof || c == '\n') {
		if (tty.len + tty.line_len + 1 > TTY_BUF) {
			tty.line_len = 0;
			return 0;	/* no room for the line: dropped */
		}
		for (unsigned i = 0; i < tty.line_len; i++)
			push(tty.line[i]);
		if (eof)
			push('\0');	/* marks the end of an EOF line: read stops there */
		tty.line_len = 0;
		tty.lines++;
	}
	return 0;
}

void tty_receive(char c)
{
	spin_lock(&tty.lock);
	tty.received++;
	int sig = __receive(c);
	unsigned pgrp = tty.pgrp;
	spin_unlock(&tty.lock);
	wake_up_all(&tty.read_wait);
	if (sig && pgrp)
		kill_pgrp(pgrp, sig);
}

static bool readable(void)
{
	bool r;
	spin_lock(&tty.lock);
	r = (tty.t.c_lflag & ICANON) ? tty.lines > 0 : tty.len > 0 || tty.t.c_cc[VMIN] == 0;
	spin_unlock(&tty.lock);
	return r;
}

bool tty_poll_readable(struct file *f)
{
	(void)f;
	return readable();
}

struct wait_queue_head *tty_wait_queue(void)
{
	return &tty.read_wait;
}

/* Take up to n bytes (a line at most in ICANON mode). */
static long take(char *buf, size_t n)
{
	long got = 0;
	spin_lock(&tty.lock);
	bool canon = tty.t.c_lflag & ICANON;
	while ((size_t)got < n && tty.len) {
		char c = tty.in[tty.head];
		if (canon && c == '\0') {	/* an EOF mark: ends this read */
			if (got == 0) {
				tty.head = (tty.head + 1) % TTY_BUF;
				tty.len--;
				tty.lines--;
			}
			break;
		}
		buf[got++] = c;
		tty.head = (tty.head + 1) % TTY_BUF;
		tty.len--;
		if (canon && c == '\n') {
			tty.lines--;
			break;
		}
	}
	spin_unlock(&tty.lock);
	return got;
}

static long tty_read(struct file *f, void *buf, size_t n)
{
	if (n == 0)
		return 0;
	for (;;) {
		if (readable())
			return take(buf, n);
		if (f->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_killable(tty.read_wait, readable()))
			return -EINTR;
	}
}

static long tty_write(struct file *f, const void *buf, size_t n)
{
	(void)f;
	const char *s = buf;
	bool onlcr = (tty.t.c_oflag & (OPOST | ONLCR)) == (OPOST | ONLCR);
	size_t start = 0;
	for (size_t i = 0; i < n; i++)
		if (onlcr && s[i] == '\n') {
			echo(s + start, i - start);
			echo("\r\n", 2);
			start = i + 1;
		}
	echo(s + start, n - start);
	return (long)n;
}

/*
 * /dev/tty is the opener's controlling terminal: with none (a process
 * started off the console, or after setsid), -ENXIO, as Linux, rather
 * than the console under another name and mode.  The console itself
 * (/dev/console) is one by inheritance (fork, or process_spawn with the
 * console among its descriptors) or by TIOCSCTTY from a session leader;
 * opening it does not make it one (as if every open said O_NOCTTY).
 * Kernel threads (no process) open either.
 */
static int tty_open(struct inode *inode, struct file *f)
{
	struct signal_struct *me = current_thread()->signal;
	if (!me)
		return 0;
	int err = 0;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	(void)f;
	if (inode->i_rdev == makedev(5, 0) && !me->has_ctty)
		err = -ENXIO;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return err;
}

static const struct file_operations tty_fops = {
	.open = tty_open,
	.stream_read = tty_read,
	.stream_write = tty_write,
};

bool is_tty(struct file *f)
{
	return f->f_inode->i_fop == &tty_fops;
}

/* ioctl numbers (Linux's). */
#define TCGETS     0x5401
#define TCSETS     0x5402
#define TCSETSW    0x5403
#define TCSETSF    0x5404
#define TIOCSCTTY  0x540E
#define TIOCGPGRP  0x540F
#define TIOCSPGRP  0x5410
#define TIOCGWINSZ 0x5413
#define TIOCSWINSZ 0x5414
#define FIONREAD   0x541B
#define TIOCNOTTY  0x5422

/* Has the calling process the console as its controlling terminal?
 * (Kernel threads: yes.) */
static bool has_ctty(void)
{
	struct signal_struct *me = current_thread()->signal;
	return !me || __atomic_load_n(&me->has_ctty, __ATOMIC_RELAXED);
}

/* TIOCSCTTY (a session leader takes the console) and TIOCNOTTY (give it up). */
static long set_ctty(bool take)
{
	struct signal_struct *me = current_thread()->signal;
	if (!me)
		return 0;
	long err = 0;
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	if (take && me->sid != me->pid && !me->has_ctty)
		err = -EPERM;
	else if (!take && !me->has_ctty)
		err = -ENOTTY;
	else
		__atomic_store_n(&me->has_ctty, take, __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return err;
}

long tty_ioctl(struct file *f, unsigned cmd, uint64_t arg)
{
	(void)f;
	struct termios t;
	struct winsize ws;
	switch (cmd) {
	case TCGETS:
		spin_lock(&tty.lock);
		t = tty.t;
		spin_unlock(&tty.lock);
		return copy_to_user(arg, &t, sizeof(t)) ? -EFAULT : 0;
	case TCSETS: case TCSETSW: case TCSETSF:
		if (copy_from_user(&t, arg, sizeof(t)))
			return -EFAULT;
		spin_lock(&tty.lock);
		if ((tty.t.c_lflag & ICANON) && !(t.c_lflag & ICANON)) {
			for (unsigned i = 0; i < tty.line_len; i++)	/* a half line becomes input */
				push(tty.line[i]);
			tty.line_len = 0;
		}
		if (cmd == TCSETSF)
			tty.head = tty.len = tty.lines = tty.line_len = 0;
		tty.t = t;
		spin_unlock(&tty.lock);
		wake_up_all(&tty.read_wait);
		return 0;
	case TIOCGWINSZ:
		spin_lock(&tty.lock);
		ws = tty.ws;
		spin_unlock(&tty.lock);
		return copy_to_user(arg, &ws, sizeof(ws)) ? -EFAULT : 0;
	case TIOCSWINSZ:
		if (copy_from_user(&ws, arg, sizeof(ws)))
			return -EFAULT;
		spin_lock(&tty.lock);
		tty.ws = ws;
		spin_unlock(&tty.lock);
		return 0;
	case TIOCGPGRP:
		return put_user((int32_t)tty_get_pgrp(), (int32_t *)arg);
	case TIOCSPGRP: {
		if (!has_ctty())
			return -ENOTTY;	/* Linux: only the caller's own terminal */
		int32_t pgrp;
		if (get_user(pgrp, arg))
			return -EFAULT;
		if (pgrp <= 0)
			return -EINVAL;
		return tty_set_pgrp((unsigned)pgrp);
	}
	case FIONREAD: {
		spin_lock(&tty.lock);
		int32_t n = (int32_t)tty.len;
		spin_unlock(&tty.lock);
		return put_user(n, (int32_t *)arg);
	}
	case TIOCSCTTY: case TIOCNOTTY:
		return set_ctty(cmd == TIOCSCTTY);
	default:
		return -ENOTTY;
	}
}

unsigned tty_get_pgrp(void)
{
	spin_lock(&tty.lock);
	unsigned pgrp = tty.pgrp;
	spin_unlock(&tty.lock);
	return pgrp;
}

int tty_set_pgrp(unsigned pgrp)
{
	/* Linux wants a group of the caller's session; one session owns the
	 * console here, so any existing group will do. */
	unsigned long flags = spin_lock_irqsave(&tasklist_lock);
	bool exists = false;
	struct list_head *pos;
	list_for_each(pos, process_list()) {
		struct signal_struct *p = list_entry(pos, struct signal_struct, all_node);
		exists |= p->pgid == pgrp && p->state == PROC_LIVE;
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	if (!exists)
		return -EPERM;
	spin_lock(&tty.lock);
	tty.pgrp = pgrp;
	spin_unlock(&tty.lock);
	return 0;
}

void tty_reset(unsigned pgrp)
{
	spin_lock(&tty.lock);
	tty.t = tty_default;
	tty.head = tty.len = tty.lines = tty.line_len = 0;
	tty.pgrp = pgrp;
	spin_unlock(&tty.lock);
}

uint64_t tty_received(void)
{
	spin_lock(&tty.lock);
	uint64_t n = tty.received;
	spin_unlock(&tty.lock);
	return n;
}

int tty_open_console(void)
{
	return fd_install(get_file(tty.file));
}

void tty_init(void)
{
	spin_init(&tty.lock, "tty");
	wait_queue_init(&tty.read_wait);
	tty.t = tty_default;
	tty.ws = (struct winsize){ .ws_row = 24, .ws_col = 80 };
	struct dentry *d = anon_dentry_new(S_IFCHR | 0620, &tty_fops, NULL);
	if (IS_ERR(d))
		panic("tty: no memory for the console");
	d->d_inode->i_rdev = makedev(5, 1);	/* /dev/console's number */
	tty.file = file_alloc(d, O_RDWR);
	if (!tty.file)
		panic("tty: no memory for the console");
	register_chrdev(5, 0, &tty_fops);	/* /dev/tty: the controlling terminal (tty_open) */
	register_chrdev(5, 1, &tty_fops);	/* /dev/console */
}
