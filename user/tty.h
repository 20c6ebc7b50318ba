/*
 * tty.h: the console terminal for user programs (user/tty.c).
 */
#ifndef USER_TTY_H
#define USER_TTY_H

#include <stdbool.h>
#include <stdint.h>

struct file;
struct wait_queue_head;

void tty_init(void);
/* A byte typed on the console, from whoever reads the UART while a user
 * program is in the foreground (the shell's run, init=).  Ctrl-C there
 * sends SIGINT to the foreground process group. */
void tty_receive(char c);
/* Put the console in its default mode with pgrp in the foreground, input
 * flushed (before a program is started on it). */
void tty_reset(unsigned pgrp);
unsigned tty_get_pgrp(void);
int tty_set_pgrp(unsigned pgrp);        /* -EPERM: no such group */
/* Install the console in the lowest free descriptor of the caller. */
int tty_open_console(void);
bool is_tty(struct file *f);
long tty_ioctl(struct file *f, unsigned cmd, uint64_t arg);
bool tty_poll_readable(struct file *f);
struct wait_queue_head *tty_wait_queue(void);
uint64_t tty_received(void);            /* bytes received so far (tests) */

#endif
