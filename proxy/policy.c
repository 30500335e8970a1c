/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * policy.c: one sandbox's rules (sbx.conf(5) allow-domain, deny-domain,
 * allow-cidr), as the profile had them when the sandbox started.
 *
 * Fail closed everywhere: no rule reaches nothing, deny-domain beats
 * allow-domain, an IP literal is not a name (only allow-cidr lets one
 * through, so "allow-domain example.org" never admits whatever address a
 * client spells), and after a name is allowed each address it resolves
 * to must be public or covered by allow-cidr (addr.c says why not).
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>

#include <stdio.h>
#include <string.h>

#include "proxy.h"

/* host is canonical (host.c); the rule's host is lower case already. */
static int
domain_match(const struct policy_domain *d, const char *host, uint16_t port)
{
	size_t	 hl = strlen(host), dl = strlen(d->host);

	if (d->port != 0 && d->port != port)
		return 0;
	if (!d->wildcard)
		return strcmp(host, d->host) == 0;
	/* "*.example.com" is strictly below: "a.example.com", never
	 * "example.com" and never "badexample.com". */
	return hl > dl + 1 && host[hl - dl - 1] == '.' &&
	    strcmp(host + hl - dl, d->host) == 0;
}

static void
domain_text(const struct policy_domain *d, char *buf, size_t len)
{
	char	 port[8] = "";

	if (d->port != 0)
		snprintf(port, sizeof(port), ":%u", (unsigned)d->port);
	snprintf(buf, len, "%s%s%s", d->wildcard ? "*." : "", d->host, port);
}

int
policy_name(const struct proxy_policy *p, const char *host, uint16_t port,
    char *why, size_t len)
{
	char	 rule[HOST_NAME_MAX_LEN + 16];
	size_t	 i;

	for (i = 0; i < p->ndeny; i++)
		if (domain_match(&p->deny[i], host, port)) {
			domain_text(&p->deny[i], rule, sizeof(rule));
			snprintf(why, len, "deny-domain \"%s\"", rule);
			return 0;
		}
	for (i = 0; i < p->nallow; i++)
		if (domain_match(&p->allow[i], host, port)) {
			domain_text(&p->allow[i], rule, sizeof(rule));
			snprintf(why, len, "allow-domain \"%s\"", rule);
			return 1;
		}
	if (p->nallow == 0)
		snprintf(why, len, "no allow-domain rules: %s:%u is not "
		    "reachable", host, (unsigned)port);
	else
		snprintf(why, len, "no allow-domain matches %s:%u", host,
		    (unsigned)port);
	return 0;
}

int
policy_cidr_covers(const struct proxy_policy *p, const struct proxy_addr *a,
    char *rule, size_t len)
{
	char	 buf[ADDR_STRLEN];
	size_t	 i;

	for (i = 0; i < p->ncidr; i++)
		if (addr_in_prefix(a, &p->cidr[i].net, p->cidr[i].prefixlen)) {
			if (rule != NULL)
				snprintf(rule, len, "allow-cidr \"%s/%u\"",
				    addr_str(&p->cidr[i].net, buf,
				    sizeof(buf)), p->cidr[i].prefixlen);
			return 1;
		}
	return 0;
}

int
policy_literal(const struct proxy_policy *p, const struct proxy_addr *a,
    char *why, size_t len)
{
	char	 buf[ADDR_STRLEN];

	if (policy_cidr_covers(p, a, why, len))
		return 1;
	snprintf(why, len, "address %s is not a name and no allow-cidr "
	    "covers it", addr_str(a, buf, sizeof(buf)));
	return 0;
}

int
policy_resolved(const struct proxy_policy *p, const struct proxy_addr *a,
    const struct proxy_addr *own, size_t nown, char *why, size_t len)
{
	const char	*class;
	char		 buf[ADDR_STRLEN];
	size_t		 i;

	if (policy_cidr_covers(p, a, why, len))
		return 1;
	class = addr_class(a);
	for (i = 0; class == NULL && i < nown; i++)
		if (addr_equal(a, &own[i]))
			class = "an address of the proxy's host";
	if (class == NULL) {
		snprintf(why, len, "public address %s",
		    addr_str(a, buf, sizeof(buf)));
		return 1;
	}
	snprintf(why, len, "resolved address %s is %s and no allow-cidr "
	    "covers it", addr_str(a, buf, sizeof(buf)), class);
	return 0;
}

/* A decimal number of 1 to 5 digits; -1 otherwise. */
static long
number(const char *s)
{
	size_t	 n = strlen(s), i;
	long	 v = 0;

	if (n == 0 || n > 5)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* The syntax of sbx.conf(5), which conf/values.c checks first. */
int
policy_add_domain(struct proxy_policy *p, int deny, const char *s,
    const char **why)
{
	struct policy_domain	*d;
	struct proxy_host	 h;
	const char		*colon;
	size_t			*n = deny ? &p->ndeny : &p->nallow;
	long			 port = 0;
	int			 wild = 0;

	if (*n == POLICY_RULES_MAX) {
		*why = "too many rules";
		return -1;
	}
	d = deny ? &p->deny[*n] : &p->allow[*n];
	if (strncmp(s, "*.", 2) == 0) {
		wild = 1;
		s += 2;
	}
	if ((colon = strchr(s, ':')) != NULL) {
		if ((port = number(colon + 1)) < 1 || port > 65535) {
			*why = "port is not a number in 1..65535";
			return -1;
		}
	}
	if (host_canon(s, colon != NULL ? (size_t)(colon - s) : strlen(s),
	    &h, why) == -1)
		return -1;
	if (h.kind != HOST_NAME) {
		*why = "is an address, not a name (use allow-cidr)";
		return -1;
	}
	memset(d, 0, sizeof(*d));
	strlcpy(d->host, h.name, sizeof(d->host));
	d->wildcard = wild;
	d->port = (uint16_t)port;
	(*n)++;
	return 0;
}

int
policy_add_cidr(struct proxy_policy *p, const char *s, const char **why)
{
	struct policy_cidr	*c;
	struct proxy_addr	 a;
	const char		*slash;
	size_t			 alen;
	struct proxy_addr	 m;
	unsigned int		 i, max;
	long			 plen;

	if (p->ncidr == POLICY_RULES_MAX) {
		*why = "too many rules";
		return -1;
	}
	slash = strchr(s, '/');
	alen = slash != NULL ? (size_t)(slash - s) : strlen(s);
	if (memchr(s, ':', alen) != NULL) {
		if (host_parse_v6(s, alen, &a) == -1) {
			*why = "malformed IPv6 address";
			return -1;
		}
		max = 128;
	} else {
		/* Dotted quad only: sbx.conf spells addresses plainly. */
		if (alen < 7 || strspn(s, "0123456789.") < alen ||
		    host_parse_v4(s, alen, &a) == -1) {
			*why = "malformed IPv4 address";
			return -1;
		}
		max = 32;
	}
	plen = max;
	if (slash != NULL) {
		if ((plen = number(slash + 1)) < 0 || plen > (long)max) {
			*why = "prefix length out of range";
			return -1;
		}
	}
	m = a;
	for (i = (unsigned int)plen; i < max; i++)
		m.a[i / 8] &= (uint8_t)~(0x80 >> (i % 8));
	if (!addr_equal(&m, &a)) {
		*why = "bits beyond the prefix are not zero";
		return -1;
	}
	c = &p->cidr[p->ncidr++];
	memset(c, 0, sizeof(*c));
	c->net = a;
	c->prefixlen = (uint8_t)plen;
	return 0;
}
