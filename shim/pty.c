/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * pty.c: pty mode (sbxctl run -T, RUN with "pty": true).  pid 1 opens a
 * pty in the sandbox's own devpts instance (mount.c), the payload becomes
 * a session leader with the slave as its controlling terminal and as its
 * stdio, and pid 1 relays between the master and the caller's stdin and
 * stdout, which it alone holds: the payload never gets a descriptor of
 * the caller's terminal, so it cannot TIOCSTI into it, change its modes
 * or read what the caller types into another program (design.md §1).
 * Window sizes come from the launcher down the lifeline pipe, a 4-byte
 * record each (launcher/reap.c: sandbox_resize).
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "spec.h"
#include "shim.h"

#define RELAY_BUFSZ	4096

static int	 ptm = -1;	/* the master, pid 1's */
static int	 pts = -1;	/* the slave, the payload's 0-2 */
static int	 sigfd = -1;

/*
 * Before Landlock and the reaper filter: the multiplexer of the sandbox's
 * devpts, and the slave through TIOCGPTPEER, so no path lookup can give
 * another pty.  O_NOCTTY: pid 1 is a session leader and must not get it
 * as its own controlling terminal.
 */
void
shim_pty_open(const struct sbx_spec *sp)
{
	struct winsize	 ws;
	int		 unlock = 0;

	if ((ptm = open("/dev/pts/ptmx", O_RDWR | O_NOCTTY |
	    O_CLOEXEC)) == -1)
		shim_fail(errno, "open /dev/pts/ptmx");
	if (ioctl(ptm, TIOCSPTLCK, &unlock) == -1)
		shim_fail(errno, "pty: unlock");
	if ((pts = ioctl(ptm, TIOCGPTPEER, O_RDWR | O_NOCTTY |
	    O_CLOEXEC)) == -1)
		shim_fail(errno, "pty: open the slave");
	if (sp->pty_rows != 0 && sp->pty_cols != 0) {
		memset(&ws, 0, sizeof(ws));
		ws.ws_row = sp->pty_rows;
		ws.ws_col = sp->pty_cols;
		if (ioctl(ptm, TIOCSWINSZ, &ws) == -1)
			shim_fail(errno, "pty: window size");
	}
	if (fcntl(ptm, F_SETFL, O_NONBLOCK) == -1)
		shim_fail(errno, "pty: non-blocking master");
}

/*
 * In the payload child (a vfork child: system calls only): a new
 * session whose controlling terminal is the slave, which becomes 0-2.
 * Job control works in it: the session's foreground group is the
 * payload's, and ^C, ^Z and ^\ are the slave's line discipline's.
 */
int
shim_pty_child(void)
{
	int	 i;

	if (setsid() == -1 || ioctl(pts, TIOCSCTTY, 0) == -1)
		return -1;
	for (i = 0; i < 3; i++)
		if (dup2(pts, i) == -1)
			return -1;
	return 0;
}

/*
 * In pid 1, once the payload runs and before the reaper filter: the
 * slave goes (EOF on the master when the last payload process closes
 * it), stderr becomes /dev/null (the payload's stderr is the pty), and
 * the signals pid 1 waits for come through a descriptor it can poll.
 */
void
shim_pty_parent(const sigset_t *set)
{
	close(pts);
	pts = -1;
	sigfd = shim_relay_setup(2, O_WRONLY, set);
}

/* n bytes from the master to the caller's stdout, counted; -1 once it
 * failed, which discards from then on (use->out_error says why). */
static int
relay_out(int out, const char *buf, size_t n, struct shim_usage *use)
{
	size_t	 m;

	if (out == -1)
		return -1;
	/* Past an output limit the run ends (shim_output_take). */
	m = shim_output_take(n);
	/* A stalled terminal stalls the payload's output, as directly. */
	if (m > 0 && shim_write_all(out, buf, m) == -1) {
		use->out_error = errno;
		return -1;
	}
	use->out_bytes += m;
	return m < n ? -1 : out;
}

/* What the payload wrote and pid 1 has not relayed yet, before exit. */
static void
drain(int out, struct shim_usage *use)
{
	char	 buf[RELAY_BUFSZ];
	ssize_t	 n;

	while ((n = read(ptm, buf, sizeof(buf))) > 0)
		out = relay_out(out, buf, (size_t)n, use);
}

static void
resize(int life)
{
	struct winsize	 ws;
	uint32_t	 rec;
	ssize_t		 n;

	n = read(life, &rec, sizeof(rec));
	if (n != (ssize_t)sizeof(rec))
		return;
	memset(&ws, 0, sizeof(ws));
	ws.ws_row = (unsigned short)(rec >> 16);
	ws.ws_col = (unsigned short)(rec & 0xffff);
	(void)ioctl(ptm, TIOCSWINSZ, &ws);
}

/*
 * pid 1's loop in pty mode, in place of sigwaitinfo: poll the signals,
 * the caller's stdin, the master and the lifeline.  Input that the
 * master cannot take at once waits in inbuf while stdin is not read, so
 * pid 1 never blocks on the payload and always reaps.
 */
__dead void
shim_pty_relay(pid_t child, uint32_t limits)
{
	struct signalfd_siginfo	 ssi;
	struct pollfd		 pfd[4];
	struct shim_usage	 use;
	char			 buf[RELAY_BUFSZ], inbuf[RELAY_BUFSZ];
	size_t			 inlen = 0, inoff = 0;
	ssize_t			 n;
	int			 in = 0, out = 1, life = SBX_SHIM_FD_LIFELINE;
	int			 mfd = ptm, ws;

	memset(&use, 0, sizeof(use));
	for (;;) {
		pfd[0].fd = sigfd;
		pfd[0].events = POLLIN;
		pfd[1].fd = inlen == 0 ? in : -1;
		pfd[1].events = POLLIN;
		pfd[2].fd = mfd;
		pfd[2].events = POLLIN | (inlen > 0 ? POLLOUT : 0);
		pfd[3].fd = life;
		pfd[3].events = POLLIN;
		if (poll(pfd, 4, -1) == -1) {
			if (errno == EINTR)
				continue;
			shim_fail(errno, "pty: poll");
		}
		if (pfd[0].revents & POLLIN &&
		    read(sigfd, &ssi, sizeof(ssi)) == (ssize_t)sizeof(ssi)) {
			if (ssi.ssi_signo != SIGCHLD)
				shim_forward(child, (int)ssi.ssi_signo);
			if (shim_reap(child, &use, &ws)) {
				drain(out, &use);
				shim_end(ws, limits, &use);
			}
		}
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			n = read(in, inbuf, sizeof(inbuf));
			if (n > 0) {
				inlen = (size_t)n;
				inoff = 0;
			} else if (n == 0 || errno != EINTR)
				in = -1;	/* the caller's EOF */
		}
		if (inlen > 0 && pfd[2].revents & POLLOUT) {
			n = write(ptm, inbuf + inoff, inlen);
			if (n > 0) {
				inoff += (size_t)n;
				inlen -= (size_t)n;
			} else if (n == -1 && errno != EAGAIN &&
			    errno != EINTR)
				inlen = 0;
		}
		/* A first write without waiting for POLLOUT. */
		if (inlen > 0 && mfd != -1 && !(pfd[2].events & POLLOUT)) {
			n = write(ptm, inbuf + inoff, inlen);
			if (n > 0) {
				inoff += (size_t)n;
				inlen -= (size_t)n;
			}
		}
		if (pfd[2].revents & (POLLIN | POLLHUP | POLLERR)) {
			n = read(ptm, buf, sizeof(buf));
			if (n > 0)
				out = relay_out(out, buf, (size_t)n, &use);
			else if (n == 0 || (n == -1 && errno != EAGAIN &&
			    errno != EINTR)) {
				/* No slave left open (EIO): the payload
				 * closed its stdio; wait for its end. */
				mfd = -1;
				inlen = 0;
			}
		}
		if (pfd[3].revents & POLLIN)
			resize(life);
		else if (pfd[3].revents & (POLLHUP | POLLERR))
			life = -1;
	}
}
