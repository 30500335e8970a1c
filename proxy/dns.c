/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * dns.c: the proxy's resolver, and what its host's own addresses are.
 *
 * Both are set up before the privilege file takes the file system and
 * netlink away (design.md §2): evdns reads resolv.conf and the hosts file
 * now and afterwards needs only UDP sockets; getaddrinfo would want
 * /etc files and NSS modules it can no longer open.  Each lookup's
 * addresses are checked (policy.c) and the connection goes to one of
 * those very addresses, so a second, different answer (DNS rebinding)
 * is never asked for.  The search list is cleared: the name checked is
 * the name looked up, never "name.some.search.domain".
 *
 * SBX_PROXY_RESOLV_CONF and SBX_PROXY_HOSTS name other files for the
 * tests.  The monitor starts roles with an empty environment, so in the
 * service they are never set; whoever runs sbx-proxy by hand already
 * holds everything it could reach.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <ifaddrs.h>
#include <stdlib.h>
#include <string.h>

#include <event2/dns.h>

#include "common.h"
#include "proxy.h"

#define RESOLVE_OWN_MAX		64

static struct evdns_base	*dns;
static struct proxy_addr	 own[RESOLVE_OWN_MAX];
static size_t			 nown;

static void
own_addresses(void)
{
	struct ifaddrs	*ifa, *i;

	if (getifaddrs(&ifa) == -1) {
		log_warn("getifaddrs: the host's own addresses are not known "
		    "(loopback and private ranges are still refused)");
		return;
	}
	for (i = ifa; i != NULL && nown < RESOLVE_OWN_MAX; i = i->ifa_next) {
		if (i->ifa_addr == NULL)
			continue;
		if (addr_from_sa(&own[nown], i->ifa_addr) == 0)
			nown++;
	}
	freeifaddrs(ifa);
}

void
resolve_init(struct event_base *base)
{
	const char	*conf, *hosts;
	int		 r;

	if ((conf = getenv("SBX_PROXY_RESOLV_CONF")) == NULL)
		conf = "/etc/resolv.conf";
	if ((hosts = getenv("SBX_PROXY_HOSTS")) == NULL)
		hosts = "/etc/hosts";
	if ((dns = evdns_base_new(base, 0)) == NULL)
		fatalx("evdns_base_new");
	/* Name servers and options, not the search list (see above) nor
	 * the hosts file (loaded from its own path below). */
	if ((r = evdns_base_resolv_conf_parse(dns, DNS_OPTION_NAMESERVERS |
	    DNS_OPTION_MISC, conf)) != 0)
		log_warnx("%s: not read in full (evdns error %d); names may "
		    "not resolve", conf, r);
	evdns_base_search_clear(dns);
	if (evdns_base_load_hosts(dns, hosts) != 0)
		log_warnx("%s: not read", hosts);
	/* A dead name server must not hold a request for long. */
	evdns_base_set_option(dns, "timeout:", "3");
	evdns_base_set_option(dns, "attempts:", "2");
	own_addresses();
	log_debug("resolver: %s, %s; %zu own addresses", conf, hosts, nown);
}

struct evdns_base *
resolve_base(void)
{
	return dns;
}

const struct proxy_addr *
resolve_own(size_t *n)
{
	*n = nown;
	return own;
}
