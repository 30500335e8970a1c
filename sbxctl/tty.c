/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * tty.c: the caller's terminal for sbxctl run -T.  Raw mode while the
 * sandbox runs, so that every key reaches the sandbox's pty and its line
 * discipline (^C, ^Z, ^\ included), and the modes back on every way out:
 * a normal end and fatal() restore them here (atexit); a killed sbxctl
 * (SIGKILL, which nothing catches) leaves it to a guardian child that
 * holds the saved modes and restores them when sbxctl's end of a pipe
 * closes.
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "common.h"
#include "sbxctl.h"

static struct termios	 saved;
static int		 ttyfd = -1;	/* the terminal in raw mode, or -1 */
static pid_t		 guardian = -1;

/* The guardian: wait for sbxctl to go, whichever way, then restore. */
static __dead void
guard(int rfd)
{
	struct sigaction	 sa;
	sigset_t		 set;
	char			 c;
	int			 sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	/* A signal meant for sbxctl's group must not end it first. */
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD)
			(void)sigaction(sig, &sa, NULL);
	sigemptyset(&set);
	(void)sigprocmask(SIG_SETMASK, &set, NULL);
	/* Nothing else of sbxctl's: a control connection held here would
	 * outlive a killed sbxctl and keep its sandbox running. */
	if (rfd > 3)
		(void)close_range(3, (unsigned)rfd - 1, 0);
	(void)close_range((unsigned)rfd + 1, ~0U, 0);
	while (read(rfd, &c, 1) == -1 && errno == EINTR)
		;
	(void)tcsetattr(ttyfd, TCSADRAIN, &saved);
	_exit(0);
}

void
tty_restore(void)
{
	int	 st;

	if (ttyfd == -1)
		return;
	(void)tcsetattr(ttyfd, TCSADRAIN, &saved);
	ttyfd = -1;
	/* Restored already: the guardian must not restore again later,
	 * over modes the caller's shell set by then. */
	if (guardian != -1) {
		(void)kill(guardian, SIGKILL);
		while (waitpid(guardian, &st, 0) == -1 && errno == EINTR)
			;
		guardian = -1;
	}
}

/* Raw mode on fd, a terminal.  0, or -1 with errno (modes unchanged). */
int
tty_raw(int fd)
{
	struct termios	 raw;
	int		 p[2];

	if (tcgetattr(fd, &saved) == -1)
		return -1;
	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	ttyfd = fd;
	switch (guardian = fork()) {
	case -1:
		close(p[0]);
		close(p[1]);
		ttyfd = -1;
		return -1;
	case 0:
		close(p[1]);
		guard(p[0]);
	}
	close(p[0]);
	/* p[1] stays open, unread, until sbxctl exits: its close is the
	 * guardian's signal. */
	atexit(tty_restore);
	raw = saved;
	cfmakeraw(&raw);
	if (tcsetattr(fd, TCSADRAIN, &raw) == -1) {
		tty_restore();
		return -1;
	}
	return 0;
}

/* The window size of fd: 0, or -1 when it is no terminal or has none. */
int
tty_size(int fd, unsigned *rows, unsigned *cols)
{
	struct winsize	 ws;

	if (ioctl(fd, TIOCGWINSZ, &ws) == -1 || ws.ws_row == 0 ||
	    ws.ws_col == 0)
		return -1;
	*rows = ws.ws_row;
	*cols = ws.ws_col;
	return 0;
}
