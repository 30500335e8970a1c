/*
 * egress.c: the monitor's side of a network-proxy sandbox (DESIGN 1,
 * sbx-protocol(7) "monitor and proxy").  When such a sandbox is made, its
 * profile's domain and address rules go to sbx-proxy as they are at that
 * moment (a reload changes new sandboxes only); the listeners its pid 1
 * made inside its network namespace come back from the launcher and are
 * passed on; when it ends, the proxy closes them and its connections.
 * The proxy's decisions come back as audit records for the audit log.
 *
 * The monitor parses none of the traffic: it only moves descriptors and
 * fixed-size records between the two roles.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>

#include <string.h>
#include <unistd.h>

#include "common.h"
#include "monitor.h"

static void
send_proxy(uint32_t type, uint32_t id, int fd, const void *data, size_t len)
{
	struct role	*r = &roles[ROLE_PROXY];

	if (imsg_compose(&r->ibuf, type, id, 0, fd, data, len) == -1)
		fatal("%s: compose", __func__);
	proc_event_add(r);
}

static size_t
count_domains(const struct conf_domains *list)
{
	const struct conf_domain	*d;
	size_t				 n = 0;

	TAILQ_FOREACH(d, list, entry)
		n++;
	return n;
}

static void
send_domains(uint32_t id, uint32_t kind, const struct conf_domains *list)
{
	const struct conf_domain	*d;
	struct proxy_rule_msg		 m;

	TAILQ_FOREACH(d, list, entry) {
		memset(&m, 0, sizeof(m));
		m.sandbox = id;
		m.kind = kind;
		m.port = d->port;
		m.wildcard = d->wildcard != 0;
		strlcpy(m.host, d->host, sizeof(m.host));
		send_proxy(IMSG_PROXY_RULE, id, -1, &m, sizeof(m));
	}
}

/* The profile's rules as they are now, for the sandbox's whole life. */
void
egress_policy(uint32_t id, uid_t uid, const struct conf_profile *prof)
{
	const struct conf_cidr	*c;
	struct proxy_policy_msg	 p;
	struct proxy_rule_msg	 m;
	struct proxy_policy_end	 e;
	size_t			 ncidr = 0;

	TAILQ_FOREACH(c, &prof->allow_cidrs, entry)
		ncidr++;
	memset(&p, 0, sizeof(p));
	p.sandbox = id;
	p.uid = (uint32_t)uid;
	p.flags = PROXY_F_AUDIT;
	p.nallow = (uint32_t)count_domains(&prof->allow_domains);
	p.ndeny = (uint32_t)count_domains(&prof->deny_domains);
	p.ncidr = (uint32_t)ncidr;
	send_proxy(IMSG_PROXY_POLICY, id, -1, &p, sizeof(p));
	send_domains(id, PROXY_RULE_ALLOW, &prof->allow_domains);
	send_domains(id, PROXY_RULE_DENY, &prof->deny_domains);
	TAILQ_FOREACH(c, &prof->allow_cidrs, entry) {
		memset(&m, 0, sizeof(m));
		m.sandbox = id;
		m.kind = PROXY_RULE_CIDR;
		m.af = (uint8_t)c->af;
		m.prefixlen = c->prefixlen;
		if (c->af == AF_INET)
			memcpy(m.addr, &c->addr.v4, sizeof(c->addr.v4));
		else
			memcpy(m.addr, &c->addr.v6, sizeof(c->addr.v6));
		send_proxy(IMSG_PROXY_RULE, id, -1, &m, sizeof(m));
	}
	memset(&e, 0, sizeof(e));
	e.sandbox = id;
	e.nrules = p.nallow + p.ndeny + p.ncidr;
	send_proxy(IMSG_PROXY_POLICY_END, id, -1, &e, sizeof(e));
}

/* A listener of the sandbox's, from the launcher: the proxy takes it. */
void
egress_listener(uint32_t id, int fd)
{
	struct proxy_sandbox_msg	 m;

	memset(&m, 0, sizeof(m));
	m.sandbox = id;
	/* imsg owns (and closes) the descriptor once queued. */
	send_proxy(IMSG_PROXY_LISTEN, id, fd, &m, sizeof(m));
}

void
egress_end(uint32_t id)
{
	struct proxy_sandbox_msg	 m;

	memset(&m, 0, sizeof(m));
	m.sandbox = id;
	send_proxy(IMSG_PROXY_END, id, -1, &m, sizeof(m));
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
