/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * proxy_msg.c: the monitor -> proxy messages (sbx-protocol(7), "monitor
 * and proxy"), built in one place so that the monitor and the tests send
 * them the same way: a policy with its rules and their counts, a
 * listener, the end of a sandbox.  Nothing here waits: the messages are
 * queued on the channel for the caller's event loop to write.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <string.h>

#include "common.h"
#include "proto.h"
#include "proxy_msg.h"

void
proxy_policy_init(struct proxy_policy_msg *p, uint32_t sandbox, uint32_t uid)
{
	memset(p, 0, sizeof(*p));
	p->sandbox = sandbox;
	p->uid = uid;
}

int
proxy_rule_domain(struct proxy_rule_msg *r, int deny, const char *host,
    int wildcard, uint16_t port)
{
	memset(r, 0, sizeof(*r));
	r->kind = deny ? PROXY_RULE_DENY : PROXY_RULE_ALLOW;
	r->wildcard = wildcard != 0;
	r->port = port;
	if (strlcpy(r->host, host, sizeof(r->host)) >= sizeof(r->host)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
proxy_rule_cidr(struct proxy_rule_msg *r, int af, const void *addr,
    unsigned int prefixlen)
{
	memset(r, 0, sizeof(*r));
	r->kind = PROXY_RULE_CIDR;
	if ((af != AF_INET || prefixlen > 32) &&
	    (af != AF_INET6 || prefixlen > 128)) {
		errno = EINVAL;
		return -1;
	}
	r->af = (uint8_t)af;
	r->prefixlen = (uint8_t)prefixlen;
	memcpy(r->addr, addr, af == AF_INET ? 4 : 16);
	return 0;
}

/*
 * Queue POLICY, the rules and POLICY_END for p->sandbox; the counts in
 * the policy are set from the rules.  0, or -1 with errno (E2BIG: more
 * than PROXY_RULES_MAX of a kind).
 */
int
proxy_send_policy(struct imsgbuf *ibuf, struct proxy_policy_msg *p,
    struct proxy_rule_msg *rules, size_t n)
{
	struct proxy_policy_end	 end;
	size_t			 i;

	p->nallow = p->ndeny = p->ncidr = 0;
	for (i = 0; i < n; i++) {
		rules[i].sandbox = p->sandbox;
		if (rules[i].kind == PROXY_RULE_ALLOW)
			p->nallow++;
		else if (rules[i].kind == PROXY_RULE_DENY)
			p->ndeny++;
		else
			p->ncidr++;
	}
	if (p->nallow > PROXY_RULES_MAX || p->ndeny > PROXY_RULES_MAX ||
	    p->ncidr > PROXY_RULES_MAX) {
		errno = E2BIG;
		return -1;
	}
	if (imsg_compose(ibuf, IMSG_PROXY_POLICY, p->sandbox, 0, -1, p,
	    sizeof(*p)) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (imsg_compose(ibuf, IMSG_PROXY_RULE, p->sandbox, 0, -1,
		    &rules[i], sizeof(rules[i])) == -1)
			return -1;
	memset(&end, 0, sizeof(end));
	end.sandbox = p->sandbox;
	end.nrules = (uint32_t)n;
	return imsg_compose(ibuf, IMSG_PROXY_POLICY_END, p->sandbox, 0, -1,
	    &end, sizeof(end));
}

/* fd is the listening socket; it is owned by the channel once queued. */
int
proxy_send_listener(struct imsgbuf *ibuf, uint32_t sandbox, int fd)
{
	struct proxy_sandbox_msg m = { sandbox };

	return imsg_compose(ibuf, IMSG_PROXY_LISTEN, sandbox, 0, fd, &m,
	    sizeof(m));
}

int
proxy_send_end(struct imsgbuf *ibuf, uint32_t sandbox)
{
	struct proxy_sandbox_msg m = { sandbox };

	return imsg_compose(ibuf, IMSG_PROXY_END, sandbox, 0, -1, &m,
	    sizeof(m));
}
