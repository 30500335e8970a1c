/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * pio.c: reading or writing one descriptor without ever blocking the role.
 *
 * The runner serves several jobs at once on one event loop, and every
 * descriptor it transfers bytes through has a peer it does not control: a
 * provider sandbox's pipes, the agent's records, the agent's result
 * descriptor.  A peer that stops reading or never closes must stall its
 * own job only, never the role (which would stall every job, and the
 * monitor's view of the service).  So pipes and sockets are made
 * non-blocking and driven by libevent; a regular file (or memfd) cannot
 * stall and cannot be polled (epoll refuses it), so it is transferred at
 * once.  Reads are bounded: one byte past the limit is read to tell "too
 * big" from "exactly the limit", then the descriptor is closed -- for a
 * provider's stdout that is the reference's kill on overflow (the writer
 * gets EPIPE), and nothing more is buffered.  An optional deadline ends
 * a transfer whose peer neither finishes nor fails.
 *
 * The callback always runs from the event loop, never from inside
 * pio_read or pio_write, so a caller's state is complete when it runs; a
 * finished pio has no events and no descriptor, so the callback may free
 * it.
 */
#include <sys/stat.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "runner.h"

#define PIO_READ_FIRST	65536	/* then doubled up to the bound */

struct pio {
	int		 fd;
	int		 writer;
	int		 pollable;
	struct event	 ev;
	struct event	 tmo;		/* deadline, or the deferred finish */
	int		 ev_added;
	int		 tmo_added;
	unsigned char	*buf;
	size_t		 len;		/* reader: read; writer: to write */
	size_t		 cap;
	size_t		 max;
	size_t		 off;		/* writer: written */
	enum pio_status	 status;
	int		 error;
	pio_cb		 cb;
	void		*arg;
};

static void	 pio_io(int, short, void *);
static void	 pio_deadline(int, short, void *);

static void
pio_unarm(struct pio *p)
{
	if (p->ev_added)
		event_del(&p->ev);
	if (p->tmo_added)
		evtimer_del(&p->tmo);
	p->ev_added = p->tmo_added = 0;
}

/* The transfer is over: drop events and descriptor, then tell the owner. */
static void
pio_finish(struct pio *p, enum pio_status st, int error)
{
	pio_unarm(p);
	if (p->fd != -1) {
		close(p->fd);
		p->fd = -1;
	}
	p->status = st;
	p->error = error;
	p->cb(p, p->arg);
}

/* Called through a zero timer: finish from the loop, not the caller. */
static void
pio_deferred(int fd, short event, void *arg)
{
	struct pio	*p = arg;

	(void)fd;
	(void)event;
	p->tmo_added = 0;
	pio_finish(p, p->status, p->error);
}

static void
pio_defer(struct pio *p, enum pio_status st, int error)
{
	struct timeval	 tv = { 0, 0 };

	pio_unarm(p);
	if (p->fd != -1) {
		close(p->fd);
		p->fd = -1;
	}
	p->status = st;
	p->error = error;
	evtimer_set(&p->tmo, pio_deferred, p);
	evtimer_add(&p->tmo, &tv);
	p->tmo_added = 1;
}

/*
 * One step of the transfer: RUNNING while more is to come, else the
 * final status.  Returns at EAGAIN so pipes wait for the loop.
 */
static enum pio_status
pio_step(struct pio *p, int *error)
{
	size_t	 ncap;
	ssize_t	 n;

	for (;;) {
		if (p->writer) {
			if (p->off == p->len)
				return PIO_DONE;
			n = write(p->fd, p->buf + p->off, p->len - p->off);
		} else {
			if (p->len > p->max)
				return PIO_OVERFLOW;
			if (p->len == p->cap) {
				ncap = p->cap == 0 ? PIO_READ_FIRST :
				    p->cap * 2;
				if (ncap > p->max + 1)
					ncap = p->max + 1;
				p->buf = xrecallocarray(p->buf, p->cap, ncap,
				    1);
				p->cap = ncap;
			}
			n = read(p->fd, p->buf + p->len, p->cap - p->len);
		}
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN && p->pollable)
				return PIO_RUNNING;
			*error = errno;
			return PIO_ERROR;
		}
		if (p->writer)
			p->off += (size_t)n;
		else if (n == 0)
			return PIO_DONE;
		else
			p->len += (size_t)n;
	}
}

static void
pio_io(int fd, short event, void *arg)
{
	struct pio	*p = arg;
	enum pio_status	 st;
	int		 error = 0;

	(void)fd;
	(void)event;
	if ((st = pio_step(p, &error)) != PIO_RUNNING)
		pio_finish(p, st, error);
}

static void
pio_deadline(int fd, short event, void *arg)
{
	struct pio	*p = arg;

	(void)fd;
	(void)event;
	p->tmo_added = 0;
	pio_finish(p, PIO_TIMEOUT, ETIMEDOUT);
}

static struct pio *
pio_start(int fd, int writer, unsigned char *buf, size_t len, size_t max,
    uint32_t timeout_ms, pio_cb cb, void *arg)
{
	struct pio	*p;
	struct stat	 st;
	struct timeval	 tv;
	enum pio_status	 s;
	int		 fl, error = 0;

	p = xcalloc(1, sizeof(*p));
	p->fd = fd;
	p->writer = writer;
	p->buf = buf;
	p->len = writer ? len : 0;
	p->max = max;
	p->cb = cb;
	p->arg = arg;
	p->status = PIO_RUNNING;
	if (fstat(fd, &st) == -1) {
		pio_defer(p, PIO_ERROR, errno);
		return p;
	}
	/* Never block, whatever the descriptor turns out to be. */
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1) {
		pio_defer(p, PIO_ERROR, errno);
		return p;
	}
	p->pollable = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
	/*
	 * A file says how big it is: read it into one buffer of that size
	 * (one byte more, to see its end) instead of doubling from 64 KiB,
	 * which copied megabytes of records over again.  Bounded by max.
	 */
	if (!writer && S_ISREG(st.st_mode) && st.st_size > 0) {
		p->cap = (uint64_t)st.st_size < max ? (size_t)st.st_size + 1 :
		    max + 1;
		p->buf = xmalloc(p->cap);
	}
	if (!p->pollable) {
		/*
		 * A regular file or memfd has no peer to wait for; a device
		 * that would block fails with EAGAIN rather than stall us.
		 */
		s = pio_step(p, &error);
		pio_defer(p, s == PIO_RUNNING ? PIO_ERROR : s, error);
		return p;
	}
	/*
	 * A write goes out at once as far as the pipe takes it (a
	 * request usually fits): no event-loop round before the peer can
	 * start on it.  The callback still comes from the loop.
	 */
	if (writer && (s = pio_step(p, &error)) != PIO_RUNNING) {
		pio_defer(p, s, error);
		return p;
	}
	event_set(&p->ev, fd, (writer ? EV_WRITE : EV_READ) | EV_PERSIST,
	    pio_io, p);
	if (event_add(&p->ev, NULL) == -1) {
		pio_defer(p, PIO_ERROR, errno);
		return p;
	}
	p->ev_added = 1;
	if (timeout_ms != 0) {
		tv.tv_sec = timeout_ms / 1000;
		tv.tv_usec = (timeout_ms % 1000) * 1000;
		evtimer_set(&p->tmo, pio_deadline, p);
		evtimer_add(&p->tmo, &tv);
		p->tmo_added = 1;
	}
	return p;
}

struct pio *
pio_read(int fd, size_t max, uint32_t timeout_ms, pio_cb cb, void *arg)
{
	return pio_start(fd, 0, NULL, 0, max, timeout_ms, cb, arg);
}

struct pio *
pio_write(int fd, unsigned char *buf, size_t len, uint32_t timeout_ms,
    pio_cb cb, void *arg)
{
	return pio_start(fd, 1, buf, len, 0, timeout_ms, cb, arg);
}

enum pio_status
pio_status(const struct pio *p)
{
	return p->status;
}

int
pio_error(const struct pio *p)
{
	return p->error;
}

/* What a reader read (at most max + 1 bytes). */
const unsigned char *
pio_data(const struct pio *p, size_t *len)
{
	*len = p->len;
	return p->buf;
}

void
pio_free(struct pio *p)
{
	if (p == NULL)
		return;
	pio_unarm(p);
	if (p->fd != -1)
		close(p->fd);
	free(p->buf);
	free(p);
}
