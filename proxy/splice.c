/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * splice.c: a CONNECT tunnel's bytes, moved by the kernel.  Each
 * direction has a pipe; splice(2) moves socket pages into it and out to
 * the other socket, so tunnel bytes are never copied into the proxy's
 * memory (libevent's bufferevents copy each byte in and out again).
 *
 * Backpressure is the pipe itself: a direction reads from its source
 * only while its pipe has room, and the pipe drains only as fast as the
 * destination's socket takes it, so a slow reader at either end holds
 * at most one pipe's worth (64 or 256 KiB, below) in the kernel and
 * nothing here.
 * A direction whose source said EOF half-closes its destination once the
 * pipe is empty; the relay is done when both have.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "common.h"
#include "clock.h"
#include "role.h"
#include "proxy.h"

/*
 * A pipe has the kernel's default of 16 pages (RELAY_PIPE), or, for the
 * first RELAY_BIG_PIPES pipes open at a time, RELAY_BIG: on a quiet
 * machine a relay with 256 KiB pipes moved bulk about 20% faster than
 * with 64 KiB ones (fewer splices and wake-ups per byte; 1 MiB gained
 * little more).  Why only some: every pipe page is charged to the user's
 * pipe-user-pages-soft budget (default 64 MiB), which sandboxes of the
 * same host user share, and past it their new pipes get two pages.  The
 * big ones take at most 8 MiB of it, and a pipe the kernel will not
 * grow (EPERM past the user's budget) keeps its default: only speed
 * depends on it.
 */
#define RELAY_PIPE	65536
#define RELAY_BIG	(256 * 1024)
#define RELAY_BIG_PIPES	32
#define RELAY_ROUNDS	4		/* per event: other tunnels get a turn */

static int	 relay_big_open;	/* RELAY_BIG pipes open now */

struct relay_dir {
	struct relay	*r;
	int		 src, dst;
	int		 p[2];		/* [0] read end, [1] write end */
	size_t		 pipesz;	/* its capacity */
	size_t		 inpipe;	/* bytes in the pipe */
	int		 eof;		/* the source said EOF */
	int		 shut;		/* and the destination was told */
	struct event	*rev, *wev;
	int		 rarmed, warmed;
	uint64_t	*count;
};

struct relay {
	struct relay_dir d[2];		/* 0: client to upstream; 1: back */
	uint64_t	*last_io;
	relay_done_cb	 done;
	void		*arg;
};

static void	 relay_event(evutil_socket_t, short, void *);

struct relay *
relay_new(int cfd, int ufd, uint64_t *up, uint64_t *down, uint64_t *last_io,
    relay_done_cb done, void *arg)
{
	struct relay	*r;
	int		 i;

	r = xcalloc(1, sizeof(*r));
	r->last_io = last_io;
	r->done = done;
	r->arg = arg;
	for (i = 0; i < 2; i++) {
		r->d[i].p[0] = r->d[i].p[1] = -1;
		r->d[i].r = r;
	}
	r->d[0].src = r->d[1].dst = cfd;
	r->d[0].dst = r->d[1].src = ufd;
	r->d[0].count = up;
	r->d[1].count = down;
	for (i = 0; i < 2; i++) {
		/* Out of descriptors: the caller relays with buffers. */
		if (pipe2(r->d[i].p, O_NONBLOCK | O_CLOEXEC) == -1) {
			relay_free(r);
			return NULL;
		}
		r->d[i].pipesz = RELAY_PIPE;
		if (relay_big_open < RELAY_BIG_PIPES &&
		    fcntl(r->d[i].p[1], F_SETPIPE_SZ, RELAY_BIG) >= RELAY_BIG) {
			r->d[i].pipesz = RELAY_BIG;
			relay_big_open++;
		}
		if ((r->d[i].rev = event_new(role_base(), r->d[i].src,
		    EV_READ | EV_PERSIST, relay_event, &r->d[i])) == NULL ||
		    (r->d[i].wev = event_new(role_base(), r->d[i].dst,
		    EV_WRITE | EV_PERSIST, relay_event, &r->d[i])) == NULL)
			fatalx("out of memory for a tunnel");
	}
	return r;
}

void
relay_free(struct relay *r)
{
	int	 i, j;

	if (r == NULL)
		return;
	for (i = 0; i < 2; i++) {
		if (r->d[i].pipesz == RELAY_BIG)
			relay_big_open--;
		if (r->d[i].rev != NULL)
			event_free(r->d[i].rev);
		if (r->d[i].wev != NULL)
			event_free(r->d[i].wev);
		for (j = 0; j < 2; j++)
			if (r->d[i].p[j] != -1)
				close(r->d[i].p[j]);
	}
	free(r);
}

static void
arm(struct event *ev, int *armed, int want)
{
	if (want && !*armed)
		event_add(ev, NULL);
	else if (!want && *armed)
		event_del(ev);
	*armed = want;
}

/*
 * Move what can be moved now.  -1 with errno when a socket failed.  A
 * splice into the pipe that would block while the pipe holds bytes means
 * the pipe is full (it counts buffers, not bytes, so its room is not
 * known here): then only the write side waits, and the read side is
 * tried again once the pipe has drained.
 */
static int
pump(struct relay_dir *d)
{
	ssize_t		 n;
	int		 i, progress, full = 0;

	for (i = 0; i < RELAY_ROUNDS; i++) {
		progress = 0;
		full = 0;
		if (!d->eof) {
			n = splice(d->src, NULL, d->p[1], NULL, d->pipesz,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				d->inpipe += (size_t)n;
				*d->count += (uint64_t)n;
				progress = 1;
			} else if (n == 0)
				d->eof = 1;
			else if (errno == EAGAIN && d->inpipe > 0)
				full = 1;
			else if (errno != EAGAIN && errno != EINTR)
				return -1;
		}
		if (d->inpipe > 0) {
			n = splice(d->p[0], NULL, d->dst, NULL, d->inpipe,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				d->inpipe -= (size_t)n;
				progress = 1;
				full = 0;
			} else if (n == -1 && errno != EAGAIN &&
			    errno != EINTR)
				return -1;
		}
		if (!progress)
			break;
		*d->r->last_io = monotonic_ms();
	}
	if (d->eof && d->inpipe == 0 && !d->shut) {
		(void)shutdown(d->dst, SHUT_WR);
		d->shut = 1;
	}
	arm(d->rev, &d->rarmed, !d->eof && !full);
	arm(d->wev, &d->warmed, d->inpipe > 0);
	return 0;
}

static void
relay_event(evutil_socket_t fd, short what, void *arg)
{
	struct relay_dir	*d = arg;
	struct relay		*r = d->r;
	char			 why[128];

	(void)fd;
	(void)what;
	if (pump(d) == -1) {
		snprintf(why, sizeof(why), "%s: %s", d == &r->d[0] ?
		    "client to upstream" : "upstream to client",
		    strerror(errno));
		r->done(r->arg, why);		/* frees r */
		return;
	}
	if (r->d[0].shut && r->d[1].shut)
		r->done(r->arg, NULL);
}

/* The bufferevents are drained and off: the kernel takes over. */
void
relay_start(struct relay *r)
{
	int	 i;

	for (i = 0; i < 2; i++) {
		arm(r->d[i].rev, &r->d[i].rarmed, 1);
		arm(r->d[i].wev, &r->d[i].warmed, 0);
	}
}
