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
 * fixed-size records between the two roles (built by common/proxy_msg.c).
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>

#include <string.h>
#include <unistd.h>

#include "common.h"
#include "monitor.h"

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
