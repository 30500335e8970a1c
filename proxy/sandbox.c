/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * sandbox.c: the sandboxes the proxy serves, as the monitor describes
 * them (sbx-protocol(7), "monitor and proxy").
 *
 * A sandbox's policy arrives once, as POLICY, its RULEs and POLICY_END,
 * and is never replaced: the sandbox keeps the profile it started with
 * even when sbx.conf is reloaded.  The monitor is trusted, but its
 * messages still must add up (counts, order, strings terminated): a
 * mismatch is a bug on one side, and like every protocol error it ends
 * the role rather than guessing.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "role.h"
#include "proxy.h"

static TAILQ_HEAD(, proxy_sandbox) sandboxes =
    TAILQ_HEAD_INITIALIZER(sandboxes);
static struct proxy_sandbox	*pending;	/* between POLICY and END */
static struct proxy_policy_msg	 pending_msg;

struct proxy_sandbox *
sandbox_find(uint32_t id)
{
	struct proxy_sandbox	*sb;

	TAILQ_FOREACH(sb, &sandboxes, entry)
		if (sb->id == id)
			return sb;
	return NULL;
}

static uint32_t
or_default(uint32_t v, uint32_t def)
{
	return v != 0 ? v : def;
}

void
sandbox_imsg_policy(struct imsgbuf *ibuf, struct imsg *imsg)
{
	struct proxy_policy_msg	 m;
	struct proxy_sandbox	*sb;

	(void)ibuf;
	if (imsg_get_data(imsg, &m, sizeof(m)) == -1)
		fatalx("POLICY: wrong size");
	if (pending != NULL)
		fatalx("POLICY for sandbox %u while sandbox %u's is open",
		    m.sandbox, pending->id);
	if (sandbox_find(m.sandbox) != NULL)
		fatalx("POLICY for sandbox %u, which has one", m.sandbox);
	if (m.nallow > PROXY_RULES_MAX || m.ndeny > PROXY_RULES_MAX ||
	    m.ncidr > PROXY_RULES_MAX)
		fatalx("POLICY for sandbox %u: more than %d rules of a kind",
		    m.sandbox, PROXY_RULES_MAX);
	sb = xcalloc(1, sizeof(*sb));
	sb->policy = xcalloc(1, sizeof(*sb->policy));
	sb->id = m.sandbox;
	sb->uid = m.uid;
	sb->flags = m.flags & PROXY_F_AUDIT;
	sb->lim.max_conns = or_default(m.max_conns, PROXY_SANDBOX_CONNS);
	sb->lim.header_ms = or_default(m.header_ms, PROXY_HEADER_MS);
	sb->lim.idle_ms = or_default(m.idle_ms, PROXY_IDLE_MS);
	sb->lim.connect_ms = or_default(m.connect_ms, PROXY_CONNECT_MS);
	sb->lim.io_ms = or_default(m.io_ms, PROXY_IO_MS);
	TAILQ_INIT(&sb->listeners);
	TAILQ_INIT(&sb->conns);
	pending = sb;
	pending_msg = m;
}

void
sandbox_imsg_rule(struct imsgbuf *ibuf, struct imsg *imsg)
{
	struct proxy_rule_msg	 r;
	struct proxy_policy	*p;
	struct policy_domain	*d;
	struct policy_cidr	*c;
	struct proxy_host	 h;
	const char		*why;
	size_t			 hlen;

	(void)ibuf;
	if (imsg_get_data(imsg, &r, sizeof(r)) == -1)
		fatalx("RULE: wrong size");
	if (pending == NULL || r.sandbox != pending->id)
		fatalx("RULE for sandbox %u outside its POLICY", r.sandbox);
	p = pending->policy;
	switch (r.kind) {
	case PROXY_RULE_ALLOW:
	case PROXY_RULE_DENY:
		if ((hlen = strnlen(r.host, sizeof(r.host))) ==
		    sizeof(r.host))
			fatalx("RULE for sandbox %u: unterminated host",
			    r.sandbox);
		/* The monitor checked the rule (conf/values.c); its canonical
		 * form must be itself, or the two sides disagree. */
		if (host_canon(r.host, hlen, &h, &why) == -1 ||
		    h.kind != HOST_NAME || strcmp(h.name, r.host) != 0)
			fatalx("RULE for sandbox %u: \"%s\" is not a "
			    "canonical name", r.sandbox, r.host);
		if (r.kind == PROXY_RULE_ALLOW) {
			if (p->nallow == pending_msg.nallow)
				fatalx("RULE for sandbox %u: too many "
				    "allow-domain", r.sandbox);
			d = &p->allow[p->nallow++];
		} else {
			if (p->ndeny == pending_msg.ndeny)
				fatalx("RULE for sandbox %u: too many "
				    "deny-domain", r.sandbox);
			d = &p->deny[p->ndeny++];
		}
		strlcpy(d->host, r.host, sizeof(d->host));
		d->wildcard = r.wildcard != 0;
		d->port = r.port;
		break;
	case PROXY_RULE_CIDR:
		if (p->ncidr == pending_msg.ncidr)
			fatalx("RULE for sandbox %u: too many allow-cidr",
			    r.sandbox);
		if ((r.af != AF_INET || r.prefixlen > 32) &&
		    (r.af != AF_INET6 || r.prefixlen > 128))
			fatalx("RULE for sandbox %u: bad allow-cidr",
			    r.sandbox);
		c = &p->cidr[p->ncidr++];
		c->net.af = r.af;
		memcpy(c->net.a, r.addr, sizeof(c->net.a));
		c->prefixlen = r.prefixlen;
		break;
	default:
		fatalx("RULE for sandbox %u: kind %u", r.sandbox, r.kind);
	}
}

void
sandbox_imsg_policy_end(struct imsgbuf *ibuf, struct imsg *imsg)
{
	struct proxy_policy_end	 e;
	struct proxy_policy	*p;

	(void)ibuf;
	if (imsg_get_data(imsg, &e, sizeof(e)) == -1)
		fatalx("POLICY_END: wrong size");
	if (pending == NULL || e.sandbox != pending->id)
		fatalx("POLICY_END for sandbox %u without its POLICY",
		    e.sandbox);
	p = pending->policy;
	if (p->nallow != pending_msg.nallow ||
	    p->ndeny != pending_msg.ndeny || p->ncidr != pending_msg.ncidr ||
	    e.nrules != p->nallow + p->ndeny + p->ncidr)
		fatalx("POLICY_END for sandbox %u: %u rules announced, %zu "
		    "sent", e.sandbox, e.nrules, p->nallow + p->ndeny +
		    p->ncidr);
	TAILQ_INSERT_TAIL(&sandboxes, pending, entry);
	log_debug("sandbox %u: policy of %zu allow-domain, %zu deny-domain, "
	    "%zu allow-cidr", pending->id, p->nallow, p->ndeny, p->ncidr);
	pending = NULL;
}

void
sandbox_imsg_listen(struct imsgbuf *ibuf, struct imsg *imsg)
{
	struct proxy_sandbox_msg m;
	struct proxy_sandbox	*sb;
	char			 err[128];
	int			 fd;

	(void)ibuf;
	if (imsg_get_data(imsg, &m, sizeof(m)) == -1)
		fatalx("LISTEN: wrong size");
	if ((fd = imsg_get_fd(imsg)) == -1)
		fatalx("LISTEN for sandbox %u without a descriptor",
		    m.sandbox);
	if ((sb = sandbox_find(m.sandbox)) == NULL)
		fatalx("LISTEN for sandbox %u, which has no policy",
		    m.sandbox);
	/* A descriptor that is not a listening TCP socket is refused but
	 * not fatal: it is what the sandbox's pid 1 made. */
	if (listener_add(sb, fd, err, sizeof(err)) == -1) {
		log_warnx("sandbox %u: listener refused: %s", sb->id, err);
		close(fd);
	}
}

/* The sandbox is gone: so are its listeners and its connections. */
void
sandbox_imsg_end(struct imsgbuf *ibuf, struct imsg *imsg)
{
	struct proxy_sandbox_msg m;
	struct proxy_sandbox	*sb;
	struct proxy_listener	*l;
	struct proxy_conn	*c;

	(void)ibuf;
	if (imsg_get_data(imsg, &m, sizeof(m)) == -1)
		fatalx("END: wrong size");
	/* Idempotent: the monitor may end every sandbox it ends, with a
	 * policy here or not. */
	if ((sb = sandbox_find(m.sandbox)) == NULL)
		return;
	while ((l = TAILQ_FIRST(&sb->listeners)) != NULL)
		listener_free(l);
	while ((c = TAILQ_FIRST(&sb->conns)) != NULL)
		conn_end(c);
	TAILQ_REMOVE(&sandboxes, sb, entry);
	log_debug("sandbox %u: ended", sb->id);
	free(sb->policy);
	free(sb);
}

/*
 * sbxctl status: the live tunnels, oldest sandbox and connection first,
 * as many as one status reply holds, then the totals.
 */
void
sandbox_imsg_stats(struct imsgbuf *ibuf, struct imsg *imsg)
{
	struct proxy_stats_req	 req;

	if (imsg_get_data(imsg, &req, sizeof(req)) == -1)
		fatalx("STATS_REQ: wrong size");
	conn_status(ibuf, req.seq, TAILQ_FIRST(&sandboxes));
	role_event_add();
}
