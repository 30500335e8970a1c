/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * conn.c: one client connection of a sandbox, from its first byte to
 * its close: read a request head, decide (policy.c), resolve and check
 * every address, connect to one of the checked addresses, then either
 * tunnel (CONNECT) or forward the request and its response, and do it
 * again on the same connection while both sides keep it alive.
 *
 * Memory is bounded both ways: a bufferevent reads no more than
 * CONN_HIGH bytes ahead, and a side whose output to the other holds
 * CONN_HIGH bytes stops being read until that output drains to half, so
 * a slow reader at either end stalls the writer instead of growing a
 * buffer.  Every state has a deadline (slowloris, dead upstreams,
 * forgotten tunnels): header, keep-alive idle, connect, and silence
 * within a request or tunnel.
 *
 * An established tunnel's bytes do not pass through here at all: once
 * the "200" and any early client bytes are flushed, splice.c moves them
 * through a pipe per direction in the kernel, with the same bound (one
 * pipe each way).  Buffers relay a tunnel only when no pipe could be made.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/util.h>

#include "common.h"
#include "clock.h"
#include "proto.h"
#include "role.h"
#include "proxy.h"

#define CONN_HIGH	(256 * 1024)	/* bytes buffered per direction */
#define CONN_CANDS	16		/* checked addresses tried in turn */
#define CONN_OUT_MAX	(HTTP_HEAD_MAX + 1024)

enum cstate {
	C_HEAD = 1,		/* reading a request head */
	C_RESOLVE,
	C_CONNECT,
	C_REQUEST,		/* forwarding a request and its response */
	C_TUNNEL,
	C_CLOSING		/* flushing the last bytes to the client */
};

enum rstate {
	R_HEAD = 1,
	R_BODY,
	R_DONE
};

enum tkind {
	T_HEAD = 1,		/* header_ms from the first byte */
	T_IDLE,			/* idle_ms for the next request */
	T_CONNECT,		/* connect_ms for resolution and connect */
	T_IO			/* io_ms of silence */
};

struct proxy_conn {
	TAILQ_ENTRY(proxy_conn)	 entry;
	struct proxy_sandbox	*sb;
	struct bufferevent	*cbev;		/* the sandbox's client */
	struct bufferevent	*ubev;		/* upstream, or NULL */
	struct event		*timer;
	enum tkind		 tkind;
	uint64_t		 last_io;
	struct evdns_getaddrinfo_request *dnsreq;
	enum cstate		 state;

	/* The request being served. */
	uint64_t		 start;
	enum http_method	 method;
	struct proxy_host	 host;
	uint16_t		 port;
	int			 keepalive;
	enum http_body		 req_body;
	uint64_t		 req_remain;
	struct chunk_dec	 req_chunk;
	int			 req_done;
	char			*upreq;		/* head to send upstream, kept
						   until the next request (a
						   retry sends it again) */
	size_t			 upreqlen;
	int			 reused;	/* on the kept upstream */
	int			 retried;
	struct proxy_addr	 cands[CONN_CANDS];
	size_t			 ncands, icand;
	char			 addrstr[ADDR_STRLEN];
	char			 reason[POLICY_WHY_MAX];
	char			 rule[POLICY_WHY_MAX];	/* what allowed it */
	uint64_t		 up, down;

	/* Its response. */
	enum rstate		 rstate;
	unsigned int		 status;
	enum http_body		 resp_body;
	uint64_t		 resp_remain;
	struct chunk_dec	 resp_chunk;
	int			 resp_keepalive;

	/* The upstream kept for the next request (keep-alive). */
	int			 ureuse;
	struct proxy_host	 uhost;
	uint16_t		 uport;

	int			 decided;	/* its audit line is out */

	/* Tunnels close one direction at a time. */
	int			 ceof, ueof;
	/* A tunnel spliced by the kernel, once both bufferevents have
	 * flushed what they held (relay_on); NULL: buffers relay it. */
	struct relay		*relay;
	int			 relay_on;
};

static void	 client_read(struct bufferevent *, void *);
static void	 client_write(struct bufferevent *, void *);
static void	 client_event(struct bufferevent *, short, void *);
static void	 up_read(struct bufferevent *, void *);
static void	 up_write(struct bufferevent *, void *);
static void	 up_event(struct bufferevent *, short, void *);
static void	 head_try(struct proxy_conn *);
static void	 connect_next(struct proxy_conn *);
static void	 close_after_flush(struct proxy_conn *);
static void	 timer_fired(evutil_socket_t, short, void *);

/* For sbxctl status: finished requests' bytes; live ones are added. */
static struct proxy_stats	 totals;
static unsigned int		 nconns;	/* all sandboxes' */

static void
timer_set(struct proxy_conn *c, enum tkind k, uint32_t ms)
{
	struct timeval	 tv;

	c->tkind = k;
	c->last_io = monotonic_ms();
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(c->timer, &tv);
}

/* TCP_NODELAY, and reads and writes as large as the buffers: libevent's
 * default of 16 KiB per call would cost a system call per 16 KiB. */
static void
nodelay(struct bufferevent *bev)
{
	int	 one = 1;

	bufferevent_set_max_single_read(bev, CONN_HIGH);
	bufferevent_set_max_single_write(bev, CONN_HIGH);
	(void)setsockopt(bufferevent_getfd(bev), IPPROTO_TCP, TCP_NODELAY,
	    &one, sizeof(one));
}

static void
decision(struct proxy_conn *c, int allowed, unsigned int status)
{
	struct proxy_decision	 d;

	memset(&d, 0, sizeof(d));
	d.method = c->method != 0 ? http_method_name(c->method) : NULL;
	d.host = c->host.name[0] != '\0' ? c->host.name : NULL;
	d.port = c->port;
	d.addr = c->addrstr[0] != '\0' ? c->addrstr : NULL;
	d.allowed = allowed;
	d.status = status;
	d.reason = c->reason;
	d.up = c->up;
	d.down = c->down;
	d.ms = monotonic_ms() - c->start;
	audit_decision(c->sb, &d);
	totals.requests++;
	if (!allowed)
		totals.denied++;
	totals.bytes_up += c->up;
	totals.bytes_down += c->down;
	c->decided = 1;
}

/*
 * sbxctl status: the established tunnels, oldest sandbox and connection
 * first, as many as one status reply holds, then the totals since start
 * with what requests under way (tunnels above all) have moved so far.
 * The table of sandboxes is sandbox.c's, which calls here: it hands over
 * its first, and the rest follow its list.
 */
void
conn_status(struct imsgbuf *ibuf, uint32_t seq, struct proxy_sandbox *first)
{
	struct proxy_sandbox	*sb;
	struct proxy_conn	*c;
	struct proxy_stats	 st;
	struct proxy_tunnel	 t;
	uint64_t		 now = monotonic_ms();

	st = totals;
	st.seq = seq;
	for (sb = first; sb != NULL; sb = TAILQ_NEXT(sb, entry)) {
		st.conns += sb->nconns;
		TAILQ_FOREACH(c, &sb->conns, entry) {
			if (!c->decided) {
				st.bytes_up += c->up;
				st.bytes_down += c->down;
			}
			if (c->state != C_TUNNEL)
				continue;
			st.tunnels++;
			if (st.listed == PROXY_STATUS_TUNNELS)
				continue;
			memset(&t, 0, sizeof(t));
			t.seq = seq;
			t.sandbox = sb->id;
			t.port = c->port;
			t.bytes_up = c->up;
			t.bytes_down = c->down;
			t.age_ms = now - c->start;
			strlcpy(t.host, c->host.name, sizeof(t.host));
			strlcpy(t.addr, c->addrstr, sizeof(t.addr));
			if (imsg_compose(ibuf, IMSG_PROXY_TUNNEL, sb->id, 0, -1,
			    &t, sizeof(t)) == -1)
				fatal("composing a tunnel record");
			st.listed++;
		}
	}
	if (imsg_compose(ibuf, IMSG_PROXY_STATS, 0, 0, -1, &st,
	    sizeof(st)) == -1)
		fatal("composing the proxy's totals");
}

static void
upstream_free(struct proxy_conn *c)
{
	if (c->ubev != NULL)
		bufferevent_free(c->ubev);
	c->ubev = NULL;
	c->ureuse = 0;
	c->addrstr[0] = '\0';
}

void
conn_free(struct proxy_conn *c)
{
	if (c->dnsreq != NULL)
		evdns_getaddrinfo_cancel(c->dnsreq);
	relay_free(c->relay);
	upstream_free(c);
	if (c->cbev != NULL)
		bufferevent_free(c->cbev);
	event_free(c->timer);
	free(c->upreq);
	TAILQ_REMOVE(&c->sb->conns, c, entry);
	c->sb->nconns--;
	nconns--;
	free(c);
}

/* The sandbox ended: a request or tunnel under way still gets its
 * audit line, with what it moved. */
void
conn_end(struct proxy_conn *c)
{
	if (!c->decided && (c->state == C_RESOLVE || c->state == C_CONNECT ||
	    c->state == C_REQUEST || c->state == C_TUNNEL)) {
		strlcpy(c->reason, c->rule, sizeof(c->reason));
		strlcat(c->reason, "; closed: the sandbox ended",
		    sizeof(c->reason));
		decision(c, 1, c->status);
	}
	conn_free(c);
}

/* A header value and a log line never carry the request's own bytes
 * raw: reasons are built from checked hosts, but be sure. */
static void
printable(char *s)
{
	for (; *s != '\0'; s++)
		if (*s < 0x20 || *s >= 0x7f)
			*s = '?';
}

/*
 * Answer with an error of ours and close: 400 for a malformed request,
 * 403 for a refusal, 502 and 504 for the upstream.  The reason goes in
 * X-Sbx-Error and, with the request, in the one-line body.
 */
static void
answer(struct proxy_conn *c, unsigned int status, int allowed)
{
	struct evbuffer	*out = bufferevent_get_output(c->cbev);
	char		 body[512];
	int		 n;

	printable(c->reason);
	if (c->rstate == R_BODY || c->state == C_TUNNEL) {
		/* The client has part of a response: all it can be told is
		 * that the connection ends. */
		decision(c, allowed, c->status);
		conn_free(c);
		return;
	}
	if (c->host.name[0] != '\0')
		n = snprintf(body, sizeof(body), "sbx-proxy: %s %s:%u: %s\n",
		    http_method_name(c->method), c->host.name,
		    (unsigned)c->port, c->reason);
	else
		n = snprintf(body, sizeof(body), "sbx-proxy: %s\n", c->reason);
	if (n < 0 || (size_t)n >= sizeof(body))
		n = (int)strlen(body);
	evbuffer_add_printf(out, "HTTP/1.1 %u %s\r\nContent-Type: text/plain"
	    "\r\nContent-Length: %d\r\nX-Sbx-Error: %s\r\nConnection: close"
	    "\r\nVia: 1.1 sbx-proxy\r\n\r\n%s", status, http_reason(status),
	    n, c->reason, body);
	c->down += evbuffer_get_length(out);
	decision(c, allowed, status);
	close_after_flush(c);
}

static void
close_after_flush(struct proxy_conn *c)
{
	if (c->dnsreq != NULL) {
		evdns_getaddrinfo_cancel(c->dnsreq);
		c->dnsreq = NULL;
	}
	upstream_free(c);
	c->state = C_CLOSING;
	bufferevent_disable(c->cbev, EV_READ);
	if (evbuffer_get_length(bufferevent_get_output(c->cbev)) == 0) {
		conn_free(c);
		return;
	}
	/* client_write frees it once the output is empty; a client that
	 * never reads is cut off by the timer. */
	bufferevent_setwatermark(c->cbev, EV_WRITE, 0, 0);
	timer_set(c, T_IO, c->sb->lim.io_ms);
}

/* Ready for the next request on this connection. */
static void
next_request(struct proxy_conn *c)
{
	c->state = C_HEAD;
	c->rstate = 0;
	c->method = 0;
	memset(&c->host, 0, sizeof(c->host));
	c->reason[0] = '\0';
	c->rule[0] = '\0';
	c->up = c->down = 0;
	c->decided = 0;
	c->reused = c->retried = 0;
	c->ncands = c->icand = 0;
	free(c->upreq);
	c->upreq = NULL;
	timer_set(c, T_IDLE, c->sb->lim.idle_ms);
	bufferevent_enable(c->cbev, EV_READ);
	if (evbuffer_get_length(bufferevent_get_input(c->cbev)) > 0)
		head_try(c);
}

void
conn_accept(struct proxy_sandbox *sb, int fd, const struct sockaddr *sa)
{
	static const char refuse[] = "HTTP/1.1 503 Service Unavailable\r\n"
	    "Content-Length: 0\r\nX-Sbx-Error: connection limit reached\r\n"
	    "Connection: close\r\n\r\n";
	struct proxy_conn	*c;
	struct proxy_decision	 d;

	(void)sa;
	if (sb->nconns >= sb->lim.max_conns || nconns >=
	    PROXY_CONNS_MAX) {
		/* The socket's send buffer is empty: this write fits. */
		if (write(fd, refuse, sizeof(refuse) - 1) == -1)
			log_debug("sandbox %u: refusing: %s", sb->id,
			    strerror(errno));
		close(fd);
		memset(&d, 0, sizeof(d));
		d.reason = sb->nconns >= sb->lim.max_conns ?
		    "the sandbox's connection limit is reached" :
		    "the proxy's connection limit is reached";
		d.status = 503;
		audit_decision(sb, &d);
		totals.requests++;
		totals.denied++;
		totals.over_cap++;
		return;
	}
	totals.accepted++;
	c = xcalloc(1, sizeof(*c));
	c->sb = sb;
	if ((c->cbev = bufferevent_socket_new(role_base(), fd,
	    BEV_OPT_CLOSE_ON_FREE)) == NULL ||
	    (c->timer = evtimer_new(role_base(), timer_fired, c)) == NULL)
		fatalx("out of memory for a connection");
	TAILQ_INSERT_TAIL(&sb->conns, c, entry);
	sb->nconns++;
	nconns++;
	nodelay(c->cbev);
	bufferevent_setcb(c->cbev, client_read, client_write, client_event, c);
	bufferevent_setwatermark(c->cbev, EV_READ, 0, CONN_HIGH);
	bufferevent_setwatermark(c->cbev, EV_WRITE, CONN_HIGH / 2, 0);
	bufferevent_enable(c->cbev, EV_READ | EV_WRITE);
	c->start = monotonic_ms();
	c->state = C_HEAD;
	/* A fresh connection owes its head within header_ms. */
	timer_set(c, T_HEAD, c->sb->lim.header_ms);
}

/* ---- the request ------------------------------------------------------ */

static void
dns_done(int result, struct evutil_addrinfo *res, void *arg)
{
	struct proxy_conn	*c = arg;
	struct evutil_addrinfo	*ai;
	struct proxy_addr	 a, *own;
	char			 why[POLICY_WHY_MAX];
	size_t			 nown, i;

	if (result == EVUTIL_EAI_CANCEL) {
		/* The connection is being freed: it must not be touched. */
		if (res != NULL)
			evutil_freeaddrinfo(res);
		return;
	}
	c->dnsreq = NULL;
	if (result != 0) {
		snprintf(c->reason, sizeof(c->reason), "cannot resolve %s: "
		    "%s", c->host.name, evutil_gai_strerror(result));
		answer(c, 502, 1);
		if (res != NULL)
			evutil_freeaddrinfo(res);
		return;
	}
	own = (struct proxy_addr *)resolve_own(&nown);
	c->reason[0] = '\0';
	for (ai = res; ai != NULL && c->ncands < CONN_CANDS; ai = ai->ai_next) {
		if (addr_from_sa(&a, ai->ai_addr) == -1)
			continue;
		addr_unmap(&a);
		for (i = 0; i < c->ncands; i++)
			if (addr_equal(&a, &c->cands[i]))
				break;
		if (i < c->ncands)
			continue;
		if (policy_resolved(c->sb->policy, &a, own, nown, why,
		    sizeof(why))) {
			if (c->ncands == 0) {
				strlcat(c->rule, ", ", sizeof(c->rule));
				strlcat(c->rule, why, sizeof(c->rule));
			}
			c->cands[c->ncands++] = a;
		}
		else if (c->reason[0] == '\0')
			strlcpy(c->reason, why, sizeof(c->reason));
	}
	evutil_freeaddrinfo(res);
	if (c->ncands == 0) {
		/* Every address refused: a name that points at loopback or
		 * the metadata service is not reachable by being allowed. */
		if (c->reason[0] == '\0')
			snprintf(c->reason, sizeof(c->reason), "%s has no "
			    "address", c->host.name);
		answer(c, 403, 0);
		return;
	}
	connect_next(c);
}

static void
resolve(struct proxy_conn *c)
{
	struct evutil_addrinfo	 hints;
	struct evdns_getaddrinfo_request *req;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_protocol = IPPROTO_TCP;
	c->state = C_RESOLVE;
	timer_set(c, T_CONNECT, c->sb->lim.connect_ms);
	/* The answer may come at once (hosts file), and dns_done may free
	 * the connection: nothing of c is touched after a NULL. */
	req = evdns_getaddrinfo(resolve_base(), c->host.name, NULL, &hints,
	    dns_done, c);
	if (req != NULL)
		c->dnsreq = req;
}

static void
send_request(struct proxy_conn *c)
{
	struct evbuffer	*uout = bufferevent_get_output(c->ubev);

	evbuffer_add(uout, c->upreq, c->upreqlen);
	c->up += c->upreqlen;
	c->state = C_REQUEST;
	c->rstate = R_HEAD;
	c->ureuse = 0;
	c->uhost = c->host;
	c->uport = c->port;
	timer_set(c, T_IO, c->sb->lim.io_ms);
	bufferevent_enable(c->ubev, EV_READ | EV_WRITE);
	if (c->req_body == HTTP_BODY_NONE) {
		c->req_done = 1;
		/* Pipelined requests wait until this one is answered. */
		bufferevent_disable(c->cbev, EV_READ);
	} else {
		bufferevent_enable(c->cbev, EV_READ);
		client_read(c->cbev, c);
	}
}

static void
decide(struct proxy_conn *c)
{
	if (c->host.kind == HOST_ADDR) {
		/* A literal is never a name: only allow-cidr admits one,
		 * whatever allow-domain says. */
		if (!policy_literal(c->sb->policy, &c->host.addr, c->reason,
		    sizeof(c->reason))) {
			answer(c, 403, 0);
			return;
		}
		strlcpy(c->rule, c->reason, sizeof(c->rule));
		c->cands[0] = c->host.addr;
		c->ncands = 1;
		if (c->ubev != NULL && c->ureuse && c->method != HTTP_CONNECT &&
		    c->uport == c->port && c->uhost.kind == HOST_ADDR &&
		    addr_equal(&c->uhost.addr, &c->host.addr)) {
			strlcat(c->rule, ", on the upstream connection of "
			    "the last request", sizeof(c->rule));
			c->reused = 1;
			send_request(c);
			return;
		}
		upstream_free(c);
		c->state = C_CONNECT;
		timer_set(c, T_CONNECT, c->sb->lim.connect_ms);
		connect_next(c);
		return;
	}
	if (!policy_name(c->sb->policy, c->host.name, c->port, c->reason,
	    sizeof(c->reason))) {
		answer(c, 403, 0);
		return;
	}
	strlcpy(c->rule, c->reason, sizeof(c->rule));
	/* The same allowed name and port as the last request: the
	 * upstream connection (to an address checked then) carries on. */
	if (c->ubev != NULL && c->ureuse && c->method != HTTP_CONNECT &&
	    evbuffer_get_length(bufferevent_get_input(c->ubev)) == 0 &&
	    c->uport == c->port && c->uhost.kind == HOST_NAME &&
	    strcmp(c->uhost.name, c->host.name) == 0) {
		strlcat(c->rule, ", on the upstream connection of the last "
		    "request", sizeof(c->rule));
		c->reused = 1;
		send_request(c);
		return;
	}
	upstream_free(c);
	resolve(c);
}

static void
head_try(struct proxy_conn *c)
{
	struct evbuffer		*in = bufferevent_get_input(c->cbev);
	struct http_msg		 msg;
	struct http_error	 err;
	static char		 out[CONN_OUT_MAX];
	size_t			 len, n, olen = 0;
	ssize_t			 hl;
	char			*p;

	if ((len = evbuffer_get_length(in)) == 0)
		return;
	if (c->tkind == T_IDLE) {
		/* The next request has begun: its head is due in full. */
		c->start = monotonic_ms();
		timer_set(c, T_HEAD, c->sb->lim.header_ms);
	}
	n = len < HTTP_HEAD_MAX ? len : HTTP_HEAD_MAX;
	if ((p = (char *)evbuffer_pullup(in, n)) == NULL)
		fatalx("evbuffer_pullup");
	if ((hl = http_head_len(p, n, &err)) == 0)
		return;
	c->start = monotonic_ms();
	if (hl == -1 || http_parse_request(p, hl, &msg, &err) == -1) {
		strlcpy(c->reason, err.why, sizeof(c->reason));
		c->up = len;
		answer(c, err.status, 0);
		return;
	}
	c->method = msg.method;
	c->host = msg.host;
	c->port = msg.port;
	c->keepalive = msg.keepalive;
	c->req_body = msg.body;
	c->req_remain = msg.length;
	c->req_done = 0;
	chunk_init(&c->req_chunk);
	if (msg.method != HTTP_CONNECT &&
	    (olen = http_build_request(&msg, out, sizeof(out))) == 0) {
		strlcpy(c->reason, "request head too large to forward",
		    sizeof(c->reason));
		answer(c, 431, 0);
		return;
	}
	free(c->upreq);
	c->upreq = NULL;
	if (olen > 0) {
		c->upreq = xmalloc(olen);
		memcpy(c->upreq, out, olen);
		c->upreqlen = olen;
	}
	evbuffer_drain(in, hl);
	/* The body (or a tunnel's first bytes) waits in the buffer until
	 * the upstream is there. */
	bufferevent_disable(c->cbev, EV_READ);
	decide(c);
}

/* ---- upstream --------------------------------------------------------- */

static void
connect_next(struct proxy_conn *c)
{
	struct sockaddr_storage	 ss;
	socklen_t		 sslen;
	const struct proxy_addr	*a;
	char			 last[ADDR_STRLEN];

	strlcpy(last, c->addrstr, sizeof(last));
	upstream_free(c);
	strlcpy(c->addrstr, last, sizeof(c->addrstr));
	if (c->icand == c->ncands) {
		if (c->reason[0] == '\0')
			snprintf(c->reason, sizeof(c->reason), "cannot "
			    "connect to %s port %u", c->addrstr,
			    (unsigned)c->port);
		answer(c, 502, 1);
		return;
	}
	a = &c->cands[c->icand++];
	addr_str(a, c->addrstr, sizeof(c->addrstr));
	sslen = addr_to_sa(a, c->port, &ss);
	c->state = C_CONNECT;
	if (c->tkind != T_CONNECT)
		timer_set(c, T_CONNECT, c->sb->lim.connect_ms);
	if ((c->ubev = bufferevent_socket_new(role_base(), -1,
	    BEV_OPT_CLOSE_ON_FREE)) == NULL)
		fatalx("out of memory for an upstream connection");
	bufferevent_setcb(c->ubev, up_read, up_write, up_event, c);
	bufferevent_setwatermark(c->ubev, EV_READ, 0, CONN_HIGH);
	bufferevent_setwatermark(c->ubev, EV_WRITE, CONN_HIGH / 2, 0);
	c->reason[0] = '\0';
	if (bufferevent_socket_connect(c->ubev, (struct sockaddr *)&ss,
	    sslen) == -1) {
		snprintf(c->reason, sizeof(c->reason), "cannot connect to %s "
		    "port %u: %s", c->addrstr, (unsigned)c->port,
		    strerror(errno));
		connect_next(c);
	}
}

static void
tunnel_done(void *arg, const char *err)
{
	struct proxy_conn	*c = arg;

	strlcpy(c->reason, c->rule, sizeof(c->reason));
	if (err == NULL)
		strlcat(c->reason, "; tunnel closed", sizeof(c->reason));
	else {
		strlcat(c->reason, "; tunnel: ", sizeof(c->reason));
		strlcat(c->reason, err, sizeof(c->reason));
	}
	decision(c, 1, 200);
	conn_free(c);
}

/*
 * The splice relay starts once the answer "200" and any bytes the client
 * sent early are out of the bufferevents: from then on they stay off and
 * the sockets belong to the relay (they still close with them).
 */
static void
tunnel_splice(struct proxy_conn *c)
{
	if (c->relay_on ||
	    evbuffer_get_length(bufferevent_get_output(c->cbev)) > 0 ||
	    evbuffer_get_length(bufferevent_get_output(c->ubev)) > 0)
		return;
	bufferevent_disable(c->cbev, EV_READ | EV_WRITE);
	bufferevent_disable(c->ubev, EV_READ | EV_WRITE);
	c->relay_on = 1;
	relay_start(c->relay);
}

static void
connected(struct proxy_conn *c)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n"
	    "\r\n";
	struct evbuffer	*cin;
	size_t		 n;

	nodelay(c->ubev);
	if (c->method != HTTP_CONNECT) {
		strlcpy(c->reason, c->rule, sizeof(c->reason));
		send_request(c);
		return;
	}
	evbuffer_add(bufferevent_get_output(c->cbev), ok, sizeof(ok) - 1);
	c->down += sizeof(ok) - 1;
	c->status = 200;
	c->state = C_TUNNEL;
	timer_set(c, T_IO, c->sb->lim.io_ms);
	if ((c->relay = relay_new(bufferevent_getfd(c->cbev),
	    bufferevent_getfd(c->ubev), &c->up, &c->down, &c->last_io,
	    tunnel_done, c)) != NULL) {
		/* What the client sent early (a TLS hello) goes out through
		 * the buffers; nothing more is read into them. */
		cin = bufferevent_get_input(c->cbev);
		n = evbuffer_get_length(cin);
		if (n > 0 && evbuffer_add_buffer(bufferevent_get_output(
		    c->ubev), cin) == -1)
			fatalx("evbuffer_add_buffer");
		c->up += n;
		bufferevent_disable(c->cbev, EV_READ);
		bufferevent_disable(c->ubev, EV_READ);
		bufferevent_setwatermark(c->cbev, EV_WRITE, 0, 0);
		bufferevent_setwatermark(c->ubev, EV_WRITE, 0, 0);
		bufferevent_enable(c->cbev, EV_WRITE);
		bufferevent_enable(c->ubev, EV_WRITE);
		tunnel_splice(c);
		return;
	}
	/* No descriptors for the pipes: the buffers relay this one. */
	bufferevent_enable(c->ubev, EV_READ | EV_WRITE);
	bufferevent_enable(c->cbev, EV_READ);
	/* The client may have sent its first bytes (a TLS hello) already. */
	client_read(c->cbev, c);
}

/*
 * libevent 2.1 reads at most 4 KiB per call (EVBUFFER_MAX_READ), which
 * held a tunnel to about 220 MB/s on loopback.  Where bytes are relayed
 * unexamined (tunnels, bodies by length or close), read straight into
 * the other side's output, as much as its room under the high mark
 * allows, in one readv.  EOF and errors are left for libevent's own next
 * read to report (the socket stays readable).
 */
static size_t
read_direct(struct bufferevent *from, struct evbuffer *out, size_t room)
{
	struct evbuffer_iovec	 v[2];
	struct iovec		 iov[2];
	size_t			 left;
	ssize_t			 r;
	int			 i, n;

	if ((n = evbuffer_reserve_space(out, room, v, 2)) <= 0)
		return 0;
	for (i = 0; i < n; i++) {
		iov[i].iov_base = v[i].iov_base;
		iov[i].iov_len = v[i].iov_len;
		if (iov[i].iov_len > room)
			iov[i].iov_len = room;
		room -= iov[i].iov_len;
	}
	if ((r = readv(bufferevent_getfd(from), iov, n)) <= 0)
		r = 0;
	for (i = 0, left = (size_t)r; i < n; i++) {
		v[i].iov_len = iov[i].iov_len < left ? iov[i].iov_len : left;
		left -= v[i].iov_len;
	}
	if (evbuffer_commit_space(out, v, n) == -1)
		fatalx("evbuffer_commit_space");
	return (size_t)r;
}

/*
 * Move up to max bytes from one side's input to the other's output (and,
 * with direct, on from its socket) and stop reading the source while the
 * destination holds CONN_HIGH bytes: the destination's write callback
 * resumes it.
 */
static size_t
move(struct proxy_conn *c, struct bufferevent *from, struct bufferevent *to,
    uint64_t max, int direct)
{
	struct evbuffer	*in = bufferevent_get_input(from);
	struct evbuffer	*out = bufferevent_get_output(to);
	size_t		 n = evbuffer_get_length(in), len, room;
	int		 moved;

	if (n > max)
		n = (size_t)max;
	if (n > 0) {
		if ((moved = evbuffer_remove_buffer(in, out, n)) < 0)
			fatalx("evbuffer_remove_buffer");
		n = (size_t)moved;
	}
	if (direct && n < max && evbuffer_get_length(in) == 0 &&
	    (bufferevent_get_enabled(from) & EV_READ) &&
	    (len = evbuffer_get_length(out)) < CONN_HIGH) {
		room = CONN_HIGH - len;
		if (room > max - n)
			room = (size_t)(max - n);
		n += read_direct(from, out, room);
	}
	if (n > 0)
		c->last_io = monotonic_ms();
	if (evbuffer_get_length(out) >= CONN_HIGH)
		bufferevent_disable(from, EV_READ);
	return n;
}

/* Chunked: only the bytes chunk_feed says belong to the body move. */
static int
move_chunked(struct proxy_conn *c, struct bufferevent *from,
    struct bufferevent *to, struct chunk_dec *dec, uint64_t *count,
    int *done, const char **why)
{
	struct evbuffer		*in = bufferevent_get_input(from);
	struct evbuffer_iovec	 v;
	ssize_t			 r;

	*done = 0;
	while (!*done && evbuffer_get_length(in) > 0 &&
	    evbuffer_get_length(bufferevent_get_output(to)) < CONN_HIGH) {
		if (evbuffer_peek(in, -1, NULL, &v, 1) < 1)
			break;
		if ((r = chunk_feed(dec, v.iov_base, v.iov_len, done,
		    why)) == -1)
			return -1;
		*count += move(c, from, to, (uint64_t)r, 0);
	}
	if (evbuffer_get_length(bufferevent_get_output(to)) >= CONN_HIGH)
		bufferevent_disable(from, EV_READ);
	return 0;
}

static void
request_done(struct proxy_conn *c)
{
	int	 again;

	if (c->rstate != R_DONE || !c->req_done)
		return;
	strlcpy(c->reason, c->rule, sizeof(c->reason));
	decision(c, 1, c->status);
	again = c->keepalive;
	c->ureuse = c->resp_keepalive && c->ubev != NULL &&
	    evbuffer_get_length(bufferevent_get_input(c->ubev)) == 0;
	if (!again) {
		close_after_flush(c);
		return;
	}
	if (!c->ureuse)
		upstream_free(c);
	next_request(c);
}

/* -1 when the connection was answered and is gone. */
static int
request_body(struct proxy_conn *c)
{
	const char	*why;
	size_t		 n;
	int		 done;

	if (c->req_done || c->ubev == NULL)
		return 0;
	if (c->req_body == HTTP_BODY_LENGTH) {
		n = move(c, c->cbev, c->ubev, c->req_remain, 1);
		c->up += n;
		c->req_remain -= n;
		if (c->req_remain == 0)
			c->req_done = 1;
		return 0;
	}
	if (move_chunked(c, c->cbev, c->ubev, &c->req_chunk, &c->up, &done,
	    &why) == -1) {
		snprintf(c->reason, sizeof(c->reason), "malformed chunked "
		    "request body: %s", why);
		answer(c, 400, 0);
		return -1;
	}
	if (done)
		c->req_done = 1;
	return 0;
}

static int
response_head(struct proxy_conn *c)
{
	struct evbuffer		*in = bufferevent_get_input(c->ubev);
	struct http_msg		 msg;
	struct http_error	 err;
	static char		 out[CONN_OUT_MAX];
	size_t			 len, n, olen;
	ssize_t			 hl;
	char			*p;
	int			 close, reuse;

	if ((len = evbuffer_get_length(in)) == 0)
		return 0;
	n = len < HTTP_HEAD_MAX ? len : HTTP_HEAD_MAX;
	if ((p = (char *)evbuffer_pullup(in, n)) == NULL)
		fatalx("evbuffer_pullup");
	if ((hl = http_head_len(p, n, &err)) == 0)
		return 0;
	if (hl == -1 || http_parse_response(p, hl, c->method, &msg,
	    &err) == -1) {
		snprintf(c->reason, sizeof(c->reason), "malformed response "
		    "from upstream: %s", err.why);
		answer(c, 502, 1);
		return -1;
	}
	if (msg.status == 101) {
		snprintf(c->reason, sizeof(c->reason), "upstream switched "
		    "protocols, which this proxy does not relay (use "
		    "CONNECT)");
		answer(c, 502, 1);
		return -1;
	}
	/* The client's connection goes on unless it asked otherwise or
	 * the body ends with the upstream's close; the upstream's own is
	 * kept only if it said so.  An answer before the whole request
	 * body was read ends both. */
	close = !c->keepalive || msg.body == HTTP_BODY_CLOSE ||
	    (msg.status >= 200 && !c->req_done);
	reuse = msg.keepalive && !close;
	if (msg.status < 200)
		close = 0;
	if ((olen = http_build_response(&msg, close, out, sizeof(out))) == 0) {
		snprintf(c->reason, sizeof(c->reason), "response head from "
		    "upstream too large");
		answer(c, 502, 1);
		return -1;
	}
	evbuffer_drain(in, hl);
	evbuffer_add(bufferevent_get_output(c->cbev), out, olen);
	c->down += olen;
	if (msg.status < 200)
		return 1;	/* an interim answer; the real one follows */
	c->status = msg.status;
	c->resp_body = msg.body;
	c->resp_remain = msg.length;
	c->resp_keepalive = reuse;
	chunk_init(&c->resp_chunk);
	c->rstate = msg.body == HTTP_BODY_NONE ? R_DONE : R_BODY;
	if (close)
		c->keepalive = 0;
	return 1;
}

/* -1 when the connection was answered and is gone. */
static int
response_body(struct proxy_conn *c)
{
	const char	*why;
	size_t		 n;
	int		 done;

	switch (c->resp_body) {
	case HTTP_BODY_LENGTH:
		n = move(c, c->ubev, c->cbev, c->resp_remain, 1);
		c->down += n;
		c->resp_remain -= n;
		if (c->resp_remain == 0)
			c->rstate = R_DONE;
		break;
	case HTTP_BODY_CHUNKED:
		if (move_chunked(c, c->ubev, c->cbev, &c->resp_chunk,
		    &c->down, &done, &why) == -1) {
			snprintf(c->reason, sizeof(c->reason), "malformed "
			    "chunked response from upstream: %s", why);
			answer(c, 502, 1);
			return -1;
		}
		if (done)
			c->rstate = R_DONE;
		break;
	case HTTP_BODY_CLOSE:
		c->down += move(c, c->ubev, c->cbev, UINT64_MAX, 1);
		break;
	default:
		c->rstate = R_DONE;
		break;
	}
	return 0;
}

static void
up_read(struct bufferevent *bev, void *arg)
{
	struct proxy_conn	*c = arg;
	int			 r;

	(void)bev;
	c->last_io = monotonic_ms();
	if (c->state == C_TUNNEL) {
		c->down += move(c, c->ubev, c->cbev, UINT64_MAX, 1);
		return;
	}
	if (c->state != C_REQUEST) {
		/* A kept upstream talking out of turn is not reused. */
		if (evbuffer_get_length(bufferevent_get_input(c->ubev)) > 0)
			upstream_free(c);
		return;
	}
	while (c->rstate == R_HEAD) {
		if ((r = response_head(c)) <= 0)
			return;		/* more needed, or answered */
	}
	if (c->rstate == R_BODY && response_body(c) == -1)
		return;
	if (c->state == C_REQUEST && c->rstate == R_DONE)
		request_done(c);
}

static void
client_read(struct bufferevent *bev, void *arg)
{
	struct proxy_conn	*c = arg;

	(void)bev;
	c->last_io = monotonic_ms();
	switch (c->state) {
	case C_HEAD:
		head_try(c);
		break;
	case C_REQUEST:
		if (request_body(c) == -1)
			return;
		if (c->req_done) {
			bufferevent_disable(c->cbev, EV_READ);
			request_done(c);
		}
		break;
	case C_TUNNEL:
		c->up += move(c, c->cbev, c->ubev, UINT64_MAX, 1);
		break;
	default:
		/* Bytes wait in the buffer until their turn. */
		bufferevent_disable(c->cbev, EV_READ);
		break;
	}
}

/* The client's output drained below the mark: read upstream again. */
static void
client_write(struct bufferevent *bev, void *arg)
{
	struct proxy_conn	*c = arg;

	(void)bev;
	if (c->state == C_CLOSING) {
		if (evbuffer_get_length(bufferevent_get_output(c->cbev)) == 0)
			conn_free(c);
		return;
	}
	if (c->state == C_TUNNEL && c->relay != NULL) {
		tunnel_splice(c);
		return;
	}
	if (c->ubev == NULL)
		return;
	if ((c->state == C_TUNNEL && !c->ueof) ||
	    (c->state == C_REQUEST && c->rstate != R_DONE)) {
		bufferevent_enable(c->ubev, EV_READ);
		up_read(c->ubev, c);
	} else if (c->state == C_TUNNEL && c->ueof &&
	    evbuffer_get_length(bufferevent_get_output(c->cbev)) == 0) {
		(void)shutdown(bufferevent_getfd(c->cbev), SHUT_WR);
		if (c->ceof)
			conn_free(c);
	}
}

static void
up_write(struct bufferevent *bev, void *arg)
{
	struct proxy_conn	*c = arg;

	(void)bev;
	if (c->state == C_TUNNEL && c->relay != NULL) {
		tunnel_splice(c);
		return;
	}
	if ((c->state == C_TUNNEL && !c->ceof) ||
	    (c->state == C_REQUEST && !c->req_done)) {
		bufferevent_enable(c->cbev, EV_READ);
		client_read(c->cbev, c);
	} else if (c->state == C_TUNNEL && c->ceof &&
	    evbuffer_get_length(bufferevent_get_output(c->ubev)) == 0) {
		(void)shutdown(bufferevent_getfd(c->ubev), SHUT_WR);
		if (c->ueof)
			conn_free(c);
	}
}

/* One side of a tunnel said EOF: pass it on once its bytes are out. */
static void
tunnel_eof(struct proxy_conn *c, int client)
{
	struct bufferevent	*from = client ? c->cbev : c->ubev;
	struct bufferevent	*to = client ? c->ubev : c->cbev;
	uint64_t		*count = client ? &c->up : &c->down;

	*count += move(c, from, to, UINT64_MAX, 0);
	bufferevent_disable(from, EV_READ);
	if (client)
		c->ceof = 1;
	else
		c->ueof = 1;
	if (c->ceof && c->ueof) {
		strlcpy(c->reason, c->rule, sizeof(c->reason));
		strlcat(c->reason, "; tunnel closed", sizeof(c->reason));
		decision(c, 1, 200);
		close_after_flush(c);
		return;
	}
	/* Flushed already: half-close now; else the write callback does
	 * when the output drains (low mark 0). */
	bufferevent_setwatermark(to, EV_WRITE, 0, 0);
	if (evbuffer_get_length(bufferevent_get_output(to)) == 0)
		(void)shutdown(bufferevent_getfd(to), SHUT_WR);
}

static void
client_event(struct bufferevent *bev, short what, void *arg)
{
	struct proxy_conn	*c = arg;

	(void)bev;
	if (c->state == C_TUNNEL && (what & BEV_EVENT_EOF)) {
		tunnel_eof(c, 1);
		return;
	}
	/* The client is gone (or broke): so is everything of it.  A
	 * request it made is recorded with what it moved. */
	if (c->state == C_RESOLVE || c->state == C_CONNECT ||
	    c->state == C_TUNNEL || c->state == C_REQUEST) {
		strlcpy(c->reason, c->rule, sizeof(c->reason));
		strlcat(c->reason, c->state == C_TUNNEL ? "; tunnel closed "
		    "by the client" : "; the client closed the connection "
		    "during the request", sizeof(c->reason));
		decision(c, 1, c->status);
	}
	conn_free(c);
}

/*
 * A kept-alive upstream may close just as the next request goes out
 * (its idle timeout): the request then fails through no fault of its
 * own.  It is sent again, once, on a fresh connection to the same
 * checked name or address, when that cannot do anything twice: the
 * method is idempotent, no body was sent, and no byte of an answer came.
 */
static int
retry_stale(struct proxy_conn *c)
{
	if (!c->reused || c->retried || c->rstate != R_HEAD ||
	    c->req_body != HTTP_BODY_NONE || c->upreq == NULL ||
	    evbuffer_get_length(bufferevent_get_input(c->ubev)) > 0)
		return 0;
	switch (c->method) {
	case HTTP_GET:
	case HTTP_HEAD:
	case HTTP_OPTIONS:
	case HTTP_PUT:
	case HTTP_DELETE:
		break;
	default:
		return 0;
	}
	c->reused = 0;
	c->retried = 1;
	/* The rule that allowed it stays; the address is checked again. */
	if ((c->rule[0] != '\0') && strstr(c->rule, ", on the upstream "
	    "connection of the last request") != NULL)
		*strstr(c->rule, ", on the upstream connection of the last "
		    "request") = '\0';
	strlcat(c->rule, ", retried on a new upstream connection (the kept "
	    "one closed)", sizeof(c->rule));
	upstream_free(c);
	c->ncands = c->icand = 0;
	if (c->host.kind == HOST_ADDR) {
		c->cands[0] = c->host.addr;
		c->ncands = 1;
		c->state = C_CONNECT;
		timer_set(c, T_CONNECT, c->sb->lim.connect_ms);
		connect_next(c);
	} else
		resolve(c);
	return 1;
}

static void
up_event(struct bufferevent *bev, short what, void *arg)
{
	struct proxy_conn	*c = arg;
	int			 err = EVUTIL_SOCKET_ERROR();

	(void)bev;
	if (what & BEV_EVENT_CONNECTED) {
		if (c->state == C_CONNECT)
			connected(c);
		return;
	}
	switch (c->state) {
	case C_CONNECT:
		snprintf(c->reason, sizeof(c->reason), "cannot connect to %s "
		    "port %u: %s", c->addrstr, (unsigned)c->port,
		    (what & BEV_EVENT_ERROR) ? strerror(err) : "closed");
		connect_next(c);
		break;
	case C_TUNNEL:
		if (what & BEV_EVENT_EOF) {
			tunnel_eof(c, 0);
			break;
		}
		snprintf(c->reason, sizeof(c->reason), "tunnel: upstream "
		    "error: %s", strerror(err));
		decision(c, 1, 200);
		close_after_flush(c);
		break;
	case C_REQUEST:
		if (retry_stale(c))
			break;
		/* Until-close bodies end here; anything else was cut. */
		if (c->rstate == R_BODY && c->resp_body == HTTP_BODY_CLOSE) {
			c->down += move(c, c->ubev, c->cbev, UINT64_MAX, 0);
			c->rstate = R_DONE;
			c->keepalive = 0;
			c->resp_keepalive = 0;
			c->req_done = 1;
			request_done(c);
			break;
		}
		snprintf(c->reason, sizeof(c->reason), "upstream closed the "
		    "connection %s", c->rstate == R_HEAD ? "before answering" :
		    "in the middle of the response");
		answer(c, 502, 1);
		break;
	default:
		/* A kept upstream closed while the client is between
		 * requests: just forget it. */
		upstream_free(c);
		break;
	}
}

/* ---- deadlines -------------------------------------------------------- */

static void
timer_fired(evutil_socket_t fd, short ev, void *arg)
{
	struct proxy_conn	*c = arg;
	uint64_t		 quiet, io = c->sb->lim.io_ms;
	struct timeval		 tv;

	(void)fd;
	(void)ev;
	switch (c->tkind) {
	case T_HEAD:
		if (evbuffer_get_length(bufferevent_get_input(c->cbev)) == 0 &&
		    c->method == 0) {
			conn_free(c);	/* connected, said nothing */
			return;
		}
		snprintf(c->reason, sizeof(c->reason), "request head not "
		    "complete within %u ms", c->sb->lim.header_ms);
		c->up = evbuffer_get_length(bufferevent_get_input(c->cbev));
		answer(c, 408, 0);
		return;
	case T_IDLE:
		conn_free(c);
		return;
	case T_CONNECT:
		snprintf(c->reason, sizeof(c->reason), "%s %s:%u took longer "
		    "than %u ms", c->state == C_RESOLVE ? "resolving" :
		    "connecting to", c->state == C_RESOLVE ? c->host.name :
		    c->addrstr, (unsigned)c->port, c->sb->lim.connect_ms);
		answer(c, 504, 1);
		return;
	case T_IO:
		quiet = monotonic_ms() - c->last_io;
		if (quiet < io) {
			tv.tv_sec = (io - quiet) / 1000;
			tv.tv_usec = ((io - quiet) % 1000) * 1000;
			evtimer_add(c->timer, &tv);
			return;
		}
		if (c->state == C_CLOSING) {
			conn_free(c);
			return;
		}
		snprintf(c->reason, sizeof(c->reason), "no data for %u ms",
		    c->sb->lim.io_ms);
		if (c->state == C_REQUEST && c->rstate == R_HEAD)
			answer(c, 504, 1);
		else {
			decision(c, 1, c->status);
			conn_free(c);
		}
		return;
	}
}
