/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * stdrelay.c: what a command run cost besides CPU and memory -- the tasks
 * it started and the bytes it wrote to stdout and stderr.
 *
 * Without a pty, pid 1 relays the payload's stdout and stderr as ssh -T
 * does: the payload gets a pipe for each, pid 1 alone holds the caller's
 * descriptors and moves the bytes over (splice(2), else read and write),
 * counting them.  It moves a chunk only when the caller's descriptor
 * polls writable and its pipe polls readable, so a slow reader fills the
 * pipe and blocks the payload, pid 1 buffers nothing, and it stays free
 * to forward signals and reap.  A caller's descriptor that fails (EPIPE:
 * its reader is gone) ends that stream: pid 1 closes the pipe, so the
 * payload's next write gets EPIPE or SIGPIPE as it would have directly,
 * and the record says which errno ended it.  stdin is the caller's own.
 * In pty mode pty.c relays and counts (pty output counts as stdout).
 *
 * Tasks: a new pid namespace hands out pids from 1 upwards, so its
 * ns_last_pid minus pid 1 itself is every task the sandbox created,
 * threads included (fewer once the pids wrapped past pid_max).
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec.h"
#include "shim.h"

#define RELAY_CHUNK	65536	/* pipes and files: one pipe's worth */
#define RELAY_SMALL	4096	/* others (ttys, sockets): what one POLLOUT
				   surely takes without blocking */
#define DRAIN_MAX	(4U << 20)	/* after the payload's end, per stream:
					   a grandchild that keeps writing
					   does not keep pid 1 alive */

struct stream {
	int		 in;	/* pid 1's read end; -1: the stream ended */
	int		 out;	/* the caller's descriptor, 1 or 2 */
	int		 wr;	/* the payload's write end until it runs */
	int		 ready;	/* the pipe polled readable */
	int		 nosplice;
	size_t		 chunk;
	uint64_t	 bytes;
	int		 error;
};

static struct stream	 streams[2] = {
	{ -1, 1, -1, 0, 0, RELAY_SMALL, 0, 0 },
	{ -1, 2, -1, 0, 0, RELAY_SMALL, 0, 0 },
};
static int		 lastpid = -1;
static uint64_t		 output_max;	/* the profile's output; 0: none */
static uint64_t		 relayed;	/* bytes under it so far */
static int		 output_over;
static pid_t		 payload = -1;
static int		 sigfd = -1;
static char		 buf[RELAY_CHUNK];

/*
 * Before Landlock and the reaper filter, once /proc is the sandbox's:
 * read once, at the end.  A kernel without it (no CONFIG_CHECKPOINT_
 * RESTORE) makes the count unknown, not the run fail.
 */
void
shim_tasks_open(void)
{
	lastpid = open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
}

/* Tasks the sandbox started, pid 1 not counted; 0: unknown. */
static uint64_t
tasks(void)
{
	char			 num[32];
	unsigned long long	 v;
	ssize_t			 n;
	char			*end;

	if (lastpid == -1)
		return 0;
	if ((n = read(lastpid, num, sizeof(num) - 1)) <= 0)
		return 0;
	num[n] = '\0';
	v = strtoull(num, &end, 10);
	/* pid 1 and an overlay run's changeset writer are not the
	 * payload's. */
	if (end == num || v < 2 + (unsigned long long)shim_cs_writer_tasks())
		return 0;
	return v - 1 - (unsigned long long)shim_cs_writer_tasks();
}

/* The payload runs: from now on its output counts against the limit. */
void
shim_output_init(uint64_t max, pid_t child)
{
	output_max = max;
	payload = child;
}

/*
 * n bytes about to be relayed: how many of them may go, all without an
 * output limit.  Fewer means the payload wrote more than the limit, which
 * ends the run as a limit: SIGKILL to its process group (and to it, if it
 * left the group); its end ends the sandbox.
 */
size_t
shim_output_take(size_t n)
{
	uint64_t	 room;

	if (output_max == 0)
		return n;
	room = output_max - relayed;
	if (n <= room) {
		relayed += n;
		return n;
	}
	relayed = output_max;
	if (!output_over) {
		output_over = 1;
		(void)kill(-payload, SIGKILL);
		(void)kill(payload, SIGKILL);
	}
	return (size_t)room;
}

/* The record's limit bits of the relay: SBX_LIMIT_OUTPUT once over. */
uint32_t
shim_relay_limits(void)
{
	return output_over ? SBX_LIMIT_OUTPUT : 0;
}

/* Before the payload starts: its two pipes. */
void
shim_relay_pipes(void)
{
	struct stat	 sb;
	struct stream	*s;
	int		 p[2], i;

	for (i = 0; i < 2; i++) {
		s = &streams[i];
		if (pipe2(p, O_CLOEXEC) == -1)
			shim_fail(errno, "relay: pipe2");
		/* Only pid 1's end: the payload's stays blocking. */
		if (fcntl(p[0], F_SETFL, O_NONBLOCK) == -1)
			shim_fail(errno, "relay: non-blocking pipe");
		s->in = p[0];
		s->wr = p[1];
		if (fstat(s->out, &sb) == 0 &&
		    (S_ISFIFO(sb.st_mode) || S_ISREG(sb.st_mode)))
			s->chunk = RELAY_CHUNK;
	}
}

/* In the payload child (a vfork child: system calls only). */
int
shim_relay_child(void)
{
	int	 i;

	for (i = 0; i < 2; i++)
		if (dup2(streams[i].wr, streams[i].out) == -1)
			return -1;
	return 0;
}

/*
 * In pid 1, the payload started: only the payload holds the write ends
 * (EOF when it and its children close them), stdin is the payload's
 * alone, and the signals come through a descriptor pid 1 can poll.
 */
void
shim_relay_parent(const sigset_t *set)
{
	int	 i;

	for (i = 0; i < 2; i++) {
		close(streams[i].wr);
		streams[i].wr = -1;
	}
	sigfd = shim_relay_setup(0, O_RDONLY, set);
}

/*
 * pid 1, either relay, before its filter: descriptor fd, which only the
 * payload needs, becomes /dev/null (opened with flags), and the signals
 * pid 1 waits for come through the descriptor returned, which it polls.
 */
int
shim_relay_setup(int fd, int flags, const sigset_t *set)
{
	int	 null, sfd;

	if ((null = open("/dev/null", flags | O_CLOEXEC)) == -1 ||
	    dup2(null, fd) == -1)
		shim_fail(errno, "relay: /dev/null on %d", fd);
	close(null);
	if ((sfd = signalfd(-1, set, SFD_CLOEXEC)) == -1)
		shim_fail(errno, "relay: signalfd");
	return sfd;
}

/* The payload's next write gets EPIPE, the caller its EOF. */
static void
stream_end(struct stream *s, int err)
{
	if (s->error == 0)
		s->error = err;
	close(s->in);
	close(s->out);
	s->in = -1;
	s->ready = 0;
}

/* All of buf, blocking; waits out a caller's O_NONBLOCK description.
 * -1 with errno when the descriptor fails (EPIPE: its reader is gone). */
int
shim_write_all(int fd, const char *p, size_t len)
{
	struct pollfd	 pfd;
	ssize_t		 n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return -1;
			pfd.fd = fd;
			pfd.events = POLLOUT;
			(void)poll(&pfd, 1, -1);
			continue;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One chunk over: the bytes moved, 0 if none now, -1 if it ended. */
static ssize_t
stream_move(struct stream *s)
{
	size_t	 len = s->chunk;
	ssize_t	 n = -1;

	if (output_over) {
		stream_end(s, 0);
		return -1;
	}
	/* Under an output limit, no more than what is left of it. */
	if (output_max != 0 && output_max - relayed < len)
		len = (size_t)(output_max - relayed);
	if (len == 0) {
		/* At the limit: one byte more is past it. */
		if ((n = read(s->in, buf, 1)) == 1) {
			(void)shim_output_take(1);
			stream_end(s, 0);
			return -1;
		}
	} else if (!s->nosplice) {
		n = splice(s->in, NULL, s->out, NULL, len, SPLICE_F_NONBLOCK);
		/* An O_APPEND file, a descriptor without splice. */
		if (n == -1 && errno == EINVAL)
			s->nosplice = 1;
	}
	if (len != 0 && s->nosplice) {
		n = read(s->in, buf, len);
		if (n > 0 && shim_write_all(s->out, buf, (size_t)n) == -1) {
			stream_end(s, errno);
			return -1;
		}
	}
	if (n > 0) {
		s->bytes += (uint64_t)n;
		(void)shim_output_take((size_t)n);
		return n;
	}
	if (n == 0) {
		stream_end(s, 0);
		return -1;
	}
	if (errno == EAGAIN || errno == EINTR)
		return 0;
	stream_end(s, errno);
	return -1;
}

/* What is left in the pipe once the payload ended, bounded. */
static void
drain(struct stream *s)
{
	struct pollfd	 pfd;
	size_t		 moved = 0;
	ssize_t		 n;
	int		 r;

	while (s->in != -1 && moved < DRAIN_MAX) {
		pfd.fd = s->in;
		pfd.events = POLLIN;
		if ((r = poll(&pfd, 1, 0)) == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;		/* empty, and someone still holds it */
		pfd.fd = s->out;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, -1) == -1 && errno != EINTR)
			break;
		if ((n = stream_move(s)) > 0)
			moved += (size_t)n;
	}
}

void
shim_usage_relay(struct shim_usage *u)
{
	u->tasks = tasks();
	u->out_bytes += streams[0].bytes;
	u->err_bytes += streams[1].bytes;
	if (u->out_error == 0)
		u->out_error = streams[0].error;
	if (u->err_error == 0)
		u->err_error = streams[1].error;
}

/*
 * pid 1's loop without a pty, in place of sigwaitinfo: the signals and,
 * for each stream, its pipe until it polls readable, then the caller's
 * descriptor until it polls writable.
 */
__dead void
shim_relay_loop(pid_t child, uint32_t limits)
{
	struct signalfd_siginfo	 ssi;
	struct pollfd		 pfd[3];
	struct shim_usage	 use;
	struct stream		*s;
	ssize_t			 n;
	int			 i, np, at[2], ws;

	memset(&use, 0, sizeof(use));
	for (;;) {
		pfd[0].fd = sigfd;
		pfd[0].events = POLLIN;
		np = 1;
		for (i = 0; i < 2; i++) {
			s = &streams[i];
			at[i] = -1;
			if (s->in == -1)
				continue;
			at[i] = np;
			pfd[np].fd = s->ready ? s->out : s->in;
			pfd[np].events = s->ready ? POLLOUT : POLLIN;
			np++;
		}
		if (poll(pfd, (nfds_t)np, -1) == -1) {
			if (errno == EINTR)
				continue;
			shim_fail(errno, "relay: poll");
		}
		for (i = 0; i < 2; i++) {
			s = &streams[i];
			if (at[i] == -1 || pfd[at[i]].revents == 0)
				continue;
			if (!s->ready) {
				s->ready = 1;
				continue;
			}
			/* A full chunk: likely more, the writable
			 * descriptor is polled again first. */
			if ((n = stream_move(s)) >= 0 &&
			    (size_t)n < s->chunk)
				s->ready = 0;
		}
		if (!(pfd[0].revents & POLLIN) ||
		    read(sigfd, &ssi, sizeof(ssi)) != (ssize_t)sizeof(ssi))
			continue;
		if (ssi.ssi_signo != SIGCHLD)
			shim_forward(child, (int)ssi.ssi_signo);
		else if (shim_reap(child, &use, &ws)) {
			drain(&streams[0]);
			drain(&streams[1]);
			shim_end(ws, limits, &use);
		}
	}
}
