/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * egress.c: the monitor's side of a network-proxy sandbox (design.md §1,
 * sbx-protocol(7) "monitor and proxy").  When such a sandbox is made, its
 * profile's domain and address rules go to sbx-proxy as they are at that
 * moment (a reload changes new sandboxes only); the listeners its pid 1
 * made inside its network namespace come back from the launcher and are
 * passed on; when it ends, the proxy closes them and its connections.
 * The proxy's decisions come back as audit records for the audit log.
 *
 * The monitor parses none of the traffic: it only moves descriptors and
 * fixed-size records between the two roles (built by common/proxy_msg.c).
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "proto.h"
#include "proxy_msg.h"
#include "monitor.h"

/*
 * STATUS requests waiting for the proxy's figures, in the order their
 * STATS_REQs went out (the proxy answers in order).  A waiter whose
 * control connection closed stays in line with conn NULL, so that the
 * answers still match.
 */
struct status_wait {
	TAILQ_ENTRY(status_wait) entry;
	struct ctl_conn		*conn;
	uint32_t		 reqid;
	uint32_t		 seq;
	cJSON			*tunnels;	/* collected TUNNELs */
};
static TAILQ_HEAD(, status_wait) waits = TAILQ_HEAD_INITIALIZER(waits);
static uint32_t			 status_seq;

/* parse.c allows no more than PROXY_RULES_MAX of each kind. */
#define EGRESS_RULES_MAX	(3 * PROXY_RULES_MAX)

static size_t
add_domains(struct proxy_rule_msg *r, size_t n, int deny,
    const struct conf_domains *list)
{
	const struct conf_domain	*d;

	TAILQ_FOREACH(d, list, entry) {
		if (n == EGRESS_RULES_MAX ||
		    proxy_rule_domain(&r[n], deny, d->host, d->wildcard,
		    d->port) == -1)
			fatalx("%s: rule \"%s\" does not fit", __func__,
			    d->host);
		n++;
	}
	return n;
}

/* The profile's rules as they are now, for the sandbox's whole life. */
void
egress_policy(uint32_t id, uid_t uid, const struct conf_profile *prof)
{
	static struct proxy_rule_msg	 rules[EGRESS_RULES_MAX];
	const struct conf_cidr		*c;
	struct proxy_policy_msg		 p;
	struct role			*r = &roles[ROLE_PROXY];
	size_t				 n = 0;

	n = add_domains(rules, n, 0, &prof->allow_domains);
	n = add_domains(rules, n, 1, &prof->deny_domains);
	TAILQ_FOREACH(c, &prof->allow_cidrs, entry) {
		if (n == EGRESS_RULES_MAX || proxy_rule_cidr(&rules[n], c->af,
		    &c->addr, c->prefixlen) == -1)
			fatalx("%s: allow-cidr does not fit", __func__);
		n++;
	}
	proxy_policy_init(&p, id, (uint32_t)uid);
	p.flags = PROXY_F_AUDIT;
	p.max_conns = prof->proxy_conns;
	if (proxy_send_policy(&r->ibuf, &p, rules, n) == -1)
		fatal("%s: sandbox %u", __func__, id);
	proc_event_add(r);
}

/* A listener of the sandbox's, from the launcher: the proxy takes it. */
void
egress_listener(uint32_t id, int fd)
{
	struct role	*r = &roles[ROLE_PROXY];

	if (proxy_send_listener(&r->ibuf, id, fd) == -1)
		fatal("%s: sandbox %u", __func__, id);
	proc_event_add(r);
}

void
egress_end(uint32_t id)
{
	struct role	*r = &roles[ROLE_PROXY];

	if (proxy_send_end(&r->ibuf, id) == -1)
		fatal("%s: sandbox %u", __func__, id);
	proc_event_add(r);
}

/* One decision of the proxy: one line of the audit log. */
void
egress_audit(struct role *r, struct imsg *imsg)
{
	struct proxy_audit	 a;

	if (imsg_get_data(imsg, &a, sizeof(a)) == -1)
		fatalx("%s: size", __func__);
	/* Strings from the proxy are terminated before use. */
	a.method[sizeof(a.method) - 1] = '\0';
	a.host[sizeof(a.host) - 1] = '\0';
	a.addr[sizeof(a.addr) - 1] = '\0';
	a.reason[sizeof(a.reason) - 1] = '\0';
	audit("proxy", (uid_t)a.uid, r->pid, "sandbox %u %s %s:%u addr %s "
	    "%s status %u: %s; bytes up %llu down %llu; %llu ms", a.sandbox,
	    a.method, a.host, (unsigned)a.port, a.addr,
	    a.allowed ? "allow" : "deny", a.status, a.reason,
	    (unsigned long long)a.bytes_up, (unsigned long long)a.bytes_down,
	    (unsigned long long)a.duration_ms);
}

/* sbxctl status: ask the proxy; the reply goes out in egress_stats. */
void
egress_status(struct ctl_conn *c, uint32_t reqid)
{
	struct role		*r = &roles[ROLE_PROXY];
	struct status_wait	*w;
	struct proxy_stats_req	 req;

	w = xcalloc(1, sizeof(*w));
	w->conn = c;
	w->reqid = reqid;
	conn_req_hold(c);	/* until the reply below, egress_stats */
	w->seq = ++status_seq;
	if ((w->tunnels = cJSON_CreateArray()) == NULL)
		fatalx("out of memory");
	TAILQ_INSERT_TAIL(&waits, w, entry);
	memset(&req, 0, sizeof(req));
	req.seq = w->seq;
	if (imsg_compose(&r->ibuf, IMSG_PROXY_STATS_REQ, 0, 0, -1, &req,
	    sizeof(req)) == -1)
		fatal("%s", __func__);
	proc_event_add(r);
}

void
egress_conn_gone(struct ctl_conn *c)
{
	struct status_wait	*w;

	TAILQ_FOREACH(w, &waits, entry)
		if (w->conn == c)
			w->conn = NULL;
}

/* The first waiter, which the proxy's message must answer. */
static struct status_wait *
waiter(uint32_t seq, const char *what)
{
	struct status_wait	*w;

	if ((w = TAILQ_FIRST(&waits)) == NULL || w->seq != seq)
		fatalx("proxy: %s for status request %u, which is not the "
		    "one waiting", what, seq);
	return w;
}

void
egress_tunnel(struct role *r, struct imsg *imsg)
{
	struct proxy_tunnel	 t;
	struct status_wait	*w;
	cJSON			*o;

	(void)r;
	if (imsg_get_data(imsg, &t, sizeof(t)) == -1)
		fatalx("%s: size", __func__);
	w = waiter(t.seq, "a tunnel");
	if (cJSON_GetArraySize(w->tunnels) >= PROXY_STATUS_TUNNELS)
		fatalx("proxy: more than %d tunnels in one status",
		    PROXY_STATUS_TUNNELS);
	t.host[sizeof(t.host) - 1] = '\0';
	t.addr[sizeof(t.addr) - 1] = '\0';
	if ((o = cJSON_CreateObject()) == NULL)
		fatalx("out of memory");
	cJSON_AddNumberToObject(o, "sandbox", t.sandbox);
	cJSON_AddStringToObject(o, "host", t.host);
	cJSON_AddNumberToObject(o, "port", t.port);
	cJSON_AddStringToObject(o, "addr", t.addr);
	cJSON_AddNumberToObject(o, "bytes_up", (double)t.bytes_up);
	cJSON_AddNumberToObject(o, "bytes_down", (double)t.bytes_down);
	cJSON_AddNumberToObject(o, "age_ms", (double)t.age_ms);
	cJSON_AddItemToArray(w->tunnels, o);
}

void
egress_stats(struct role *r, struct imsg *imsg)
{
	struct proxy_stats	 st;
	struct status_wait	*w;
	cJSON			*o;

	(void)r;
	if (imsg_get_data(imsg, &st, sizeof(st)) == -1)
		fatalx("%s: size", __func__);
	w = waiter(st.seq, "totals");
	if ((uint32_t)cJSON_GetArraySize(w->tunnels) != st.listed ||
	    st.listed > st.tunnels || st.tunnels > st.conns)
		fatalx("proxy: status %u does not add up (%d tunnels sent, "
		    "%u listed, %u live, %u connections)", st.seq,
		    cJSON_GetArraySize(w->tunnels), st.listed, st.tunnels,
		    st.conns);
	TAILQ_REMOVE(&waits, w, entry);
	conn_req_release(w->conn);
	if (w->conn == NULL) {
		cJSON_Delete(w->tunnels);
		free(w);
		return;
	}
	if ((o = cJSON_CreateObject()) == NULL)
		fatalx("out of memory");
	cJSON_AddNumberToObject(o, "connections", st.conns);
	cJSON_AddNumberToObject(o, "tunnels", st.tunnels);
	cJSON_AddNumberToObject(o, "accepted", (double)st.accepted);
	cJSON_AddNumberToObject(o, "over_cap", (double)st.over_cap);
	cJSON_AddNumberToObject(o, "requests", (double)st.requests);
	cJSON_AddNumberToObject(o, "denied", (double)st.denied);
	cJSON_AddNumberToObject(o, "bytes_up", (double)st.bytes_up);
	cJSON_AddNumberToObject(o, "bytes_down", (double)st.bytes_down);
	cJSON_AddItemToObject(o, "live", w->tunnels);
	status_send(w->conn, w->reqid, o);
	free(w);
}
