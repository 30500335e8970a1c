/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * reply.c: answering an agent, and the connections as the request
 * handlers see them (sbx-protocol(7)).
 *
 * control.c reads the agent socket and calls the handlers (here, in
 * provreg.c, gatesreq.c, sbxtable.c, selftest.c, egress.c, runspec.c,
 * statusreq.c ...); they answer through this file, which never calls back
 * into them nor into control.c: what it needs of the socket side, the
 * function that reads a connection and the configuration, control.c
 * hands it (reply_init, reply_conf).  So the reading side sits above
 * every handler instead of in a circle with them.
 */
#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "libsbx/sbx.h"
#include "monitor.h"

#define REPLY_CLOSE_TIMEOUT	1	/* seconds to drain a final error */
#define REPLY_QUEUE_HARD	4	/* x client-queue-max: closed */

TAILQ_HEAD(ctl_conns, ctl_conn);

static struct ctl_conns	 conns = TAILQ_HEAD_INITIALIZER(conns);
static unsigned		 nconns;
static unsigned		 nrefused;	/* refusals still draining */
static const struct sbx_conf *replyconf;
static void		(*dispatch)(int, short, void *);

/* control.c's reader: a connection's event calls it (conn_event_add). */
void
reply_init(void (*fn)(int, short, void *))
{
	dispatch = fn;
}

/* The configuration the caps read (client-queue-max); again after SIGHUP. */
void
reply_conf(const struct sbx_conf *c)
{
	replyconf = c;
}

/* ---- the connections -------------------------------------------------- */

/*
 * control.c links a connection when it accepts it and unlinks it before
 * freeing it; a refused one (never admitted) counts apart, against no
 * limit.
 */
void
conn_link(struct ctl_conn *c)
{
	TAILQ_INSERT_TAIL(&conns, c, entry);
	if (c->refused)
		nrefused++;
	else
		nconns++;
}

void
conn_unlink(struct ctl_conn *c)
{
	TAILQ_REMOVE(&conns, c, entry);
	if (c->refused)
		nrefused--;
	else
		nconns--;
}

struct ctl_conn *
conn_first(void)
{
	return TAILQ_FIRST(&conns);
}

/* Admitted connections, and refusals still draining. */
unsigned
conn_count(void)
{
	return nconns;
}

unsigned
conn_refused(void)
{
	return nrefused;
}

/* Admitted connections of one uid. */
unsigned
conn_count_uid(uid_t uid)
{
	struct ctl_conn	*c;
	unsigned	 n = 0;

	TAILQ_FOREACH(c, &conns, entry)
		if (c->uid == uid && !c->refused)
			n++;
	return n;
}

/* A peer's totals: every admitted connection of its uid. */
void
conn_uid_totals(uid_t uid, uint32_t *reqs, uint32_t *fds)
{
	struct ctl_conn	*c;

	*reqs = *fds = 0;
	TAILQ_FOREACH(c, &conns, entry)
		if (c->uid == uid && !c->refused) {
			*reqs += c->inflight;
			*fds += c->fds;
		}
}

void
conn_req_hold(struct ctl_conn *c)
{
	if (c != NULL)
		c->inflight++;
}

void
conn_req_release(struct ctl_conn *c)
{
	if (c == NULL)
		return;
	/* A miscount costs a cap's accuracy, never the service. */
	if (c->inflight == 0) {
		log_warnx("%s: uid %u pid %d: no request in flight", __func__,
		    (unsigned)c->uid, (int)c->pid);
		return;
	}
	c->inflight--;
}

void
conn_fd_hold(struct ctl_conn *c, unsigned n)
{
	if (c != NULL)
		c->fds += n;
}

void
conn_fd_release(struct ctl_conn *c, unsigned n)
{
	if (c == NULL)
		return;
	if (c->fds < n) {
		log_warnx("%s: uid %u pid %d: releases %u of %u descriptors",
		    __func__, (unsigned)c->uid, (int)c->pid, n, c->fds);
		n = c->fds;
	}
	c->fds -= n;
}

/*
 * Closing: the final error goes out, then our write side is shut, and
 * whatever the peer still sends is read and dropped until it hangs up or
 * the close timeout fires.
 */
void
conn_event_add(struct ctl_conn *c)
{
	struct timeval	 now = { 0, 0 };
	size_t		 qb;
	short		 events = EV_READ;

	/* Replies go now: the socket almost always takes them, and waiting
	 * for EV_WRITE costs an event-loop round.  An error stays queued
	 * and is met again by ctl_dispatch, which closes the connection. */
	if (imsgbuf_queuelen(&c->ibuf) > 0)
		(void)imsgbuf_write(&c->ibuf);
	/*
	 * Backpressure: a peer that leaves its replies unread is not read
	 * either until it has taken half of them, so its requests wait in
	 * its own socket, not in our memory.  A closing peer is still
	 * drained (nothing it sends is handled then).
	 */
	qb = imsgbuf_queuebytes(&c->ibuf);
	if (!c->paused && qb > replyconf->client_queue_max) {
		c->paused = 1;
		log_debug("uid %u pid %d: %zu bytes of replies unread; not "
		    "reading it", (unsigned)c->uid, (int)c->pid, qb);
	} else if (c->paused && qb <= replyconf->client_queue_max / 2)
		c->paused = 0;
	if (c->paused && c->state != CTL_CLOSING)
		events = 0;
	if (imsgbuf_queuelen(&c->ibuf) > 0)
		events |= EV_WRITE;
	else if (c->state == CTL_CLOSING && !c->shut) {
		shutdown(c->ibuf.fd, SHUT_WR);
		c->shut = 1;
	}
	/* One-shot events: re-arm after every dispatch. */
	if (event_initialized(&c->ev))
		event_del(&c->ev);
	c->events = events;
	event_set(&c->ev, c->ibuf.fd, events, dispatch, c);
	/* Requests left buffered after a turn: another turn after the
	 * others' (a zero timeout), since the socket may have no more. */
	event_add(&c->ev, c->more && !c->paused && c->state != CTL_CLOSING ?
	    &now : NULL);
}

/*
 * The service is stopping because a role was lost: tell every admitted
 * client why, as an error about its connection (id 0), before the
 * connections close -- a client waiting for a sandbox or a provider run
 * then says what happened instead of "connection closed".  Best effort:
 * what the socket does not take at once is dropped with the connection.
 */
void
reply_goodbye(const char *fmt, ...)
{
	struct ctl_conn	*c;
	va_list		 ap;
	char		 msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	TAILQ_FOREACH(c, &conns, entry) {
		if (c->refused || c->state != CTL_READY)
			continue;
		reply_error(c, 0, 1, "unavailable", "%s", msg);
		(void)imsgbuf_write(&c->ibuf);
	}
}

/* ---- replies --------------------------------------------------------- */

static void
reply_queue_fd(struct ctl_conn *c, uint32_t type, uint32_t id, cJSON *o,
    int fd);

static void
reply_queue(struct ctl_conn *c, uint32_t type, uint32_t id, cJSON *o)
{
	reply_queue_fd(c, type, id, o, -1);
}

/* fd, if not -1, goes with the message and is closed once sent. */
static void
reply_queue_fd(struct ctl_conn *c, uint32_t type, uint32_t id, cJSON *o,
    int fd)
{
	struct timeval	 now = { 0, 0 };
	char		*text;
	size_t		 qb;

	if (c->doomed) {	/* nothing more for a peer we are closing */
		if (fd != -1)
			close(fd);
		return;
	}
	if ((text = cJSON_PrintUnformatted(o)) == NULL)
		fatalx("%s: out of memory", __func__);
	if (imsg_compose(&c->ibuf, type, id, 0, fd, text,
	    strlen(text)) == -1)
		fatal("%s: reply of %zu bytes", __func__, strlen(text));
	free(text);
	/*
	 * Answers that come later (a status, a sandbox's exit) still queue
	 * for a peer that is not read; past the hard cap it is closed.  Not
	 * here (callers still use the connection): from the event loop.
	 */
	qb = imsgbuf_queuebytes(&c->ibuf);
	if (qb > REPLY_QUEUE_HARD * replyconf->client_queue_max) {
		c->doomed = 1;
		c->state = CTL_CLOSING;
		audit("disconnect", c->uid, c->pid, "%zu bytes of replies "
		    "unread, above %d x client-queue-max %llu: closed", qb,
		    REPLY_QUEUE_HARD,
		    (unsigned long long)replyconf->client_queue_max);
		if (event_initialized(&c->tmo)) {
			evtimer_del(&c->tmo);
			evtimer_add(&c->tmo, &now);
		}
	}
}

void
reply_send(struct ctl_conn *c, uint32_t type, uint32_t id, cJSON *o)
{
	reply_queue(c, type | SBX_REPLY, id, o);
	cJSON_Delete(o);
	conn_event_add(c);
}

/* A reply carrying a descriptor (CHANGES_OPEN's stream), which it takes. */
void
reply_send_fd(struct ctl_conn *c, uint32_t type, uint32_t id, cJSON *o,
    int fd)
{
	reply_queue_fd(c, type | SBX_REPLY, id, o, fd);
	cJSON_Delete(o);
	conn_event_add(c);
}

/* An event about an earlier request (its id), e.g. a sandbox's EXIT. */
void
reply_event(struct ctl_conn *c, uint32_t type, uint32_t id, cJSON *o)
{
	reply_queue(c, type, id, o);
	cJSON_Delete(o);
	conn_event_add(c);
}

/* An error reply.  Protocol errors also end the connection. */
static void
vreply_error(struct ctl_conn *c, uint32_t id, int fatal_for_conn,
    const char *code, const char *limit, const char *fmt, va_list ap)
{
	struct timeval	 tv = { REPLY_CLOSE_TIMEOUT, 0 };
	char		 msg[PR_GATES_MSG_MAX];	/* gates refusals are long */
	cJSON		*o;

	if (c->doomed)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(o, "code", code) == NULL ||
	    cJSON_AddStringToObject(o, "message", msg) == NULL ||
	    (limit != NULL &&
	    cJSON_AddStringToObject(o, "limit", limit) == NULL))
		fatalx("%s: out of memory", __func__);
	reply_queue(c, SBX_MSG_ERROR, id, o);
	cJSON_Delete(o);
	if (c->doomed)
		return;
	/* A flood past a cap would write one line per request: the first
	 * refusal of a connection is audited, the rest only counted by
	 * its peer. */
	if (!c->refused && strcmp(code, SBX_E_LIMIT) == 0 && limit != NULL) {
		if (c->limited)
			goto skip_audit;
		c->limited = 1;
	}
	if (!c->refused)	/* refusals were audited as such */
		audit("error", c->uid, c->pid, "%s: %s%s%s%s", code, msg,
		    limit != NULL ? " (limit: " : "", limit != NULL ? limit :
		    "", limit != NULL ? ")" : "");
 skip_audit:
	if (fatal_for_conn) {
		c->state = CTL_CLOSING;
		/* Give the peer a moment to read why, never longer. */
		evtimer_del(&c->tmo);
		evtimer_add(&c->tmo, &tv);
	}
	if (event_initialized(&c->ev))
		conn_event_add(c);
}

void
reply_error(struct ctl_conn *c, uint32_t id, int fatal_for_conn,
    const char *code, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vreply_error(c, id, fatal_for_conn, code, NULL, fmt, ap);
	va_end(ap);
}

/* An error that a limit caused, named in "limit" (sbx-protocol(7)). */
void
reply_error_limit(struct ctl_conn *c, uint32_t id, const char *code,
    const char *limit, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vreply_error(c, id, 0, code, limit, fmt, ap);
	va_end(ap);
}

/* An empty reply object; out of memory is fatal, as everywhere. */
cJSON *
reply_object(void)
{
	cJSON	*o;

	if ((o = cJSON_CreateObject()) == NULL)
		fatalx("out of memory");
	return o;
}
