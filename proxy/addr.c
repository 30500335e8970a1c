/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * addr.c: what kind of address a name resolved to (or a literal spelled).
 *
 * The threat is a sandbox reaching what sits next to the proxy rather
 * than the Internet: the host's loopback services, the cloud metadata
 * endpoint, the LAN, the carrier's NAT.  An allowed name that resolves
 * there (DNS rebinding, a stale record, an attacker's own zone) is refused
 * unless the profile says otherwise with allow-cidr (policy.c).  IPv6
 * forms that embed an IPv4 address (mapped, compatible, NAT64, 6to4)
 * are judged by the IPv4 address too, since the packets end up there.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <string.h>

#include "proxy.h"

struct addr_range {
	uint8_t		 a[16];
	unsigned int	 prefixlen;
	const char	*why;
};

/* Most specific first: the first match names the reason. */
static const struct addr_range v4_ranges[] = {
	{ { 169, 254, 169, 254 }, 32, "cloud metadata address" },
	{ { 255, 255, 255, 255 }, 32, "broadcast" },
	{ { 0, 0, 0, 0 }, 32, "unspecified" },
	{ { 0 }, 8, "\"this network\" (0/8, reserved)" },
	{ { 10 }, 8, "private (RFC 1918)" },
	{ { 100, 64 }, 10, "carrier-grade NAT (100.64/10)" },
	{ { 127 }, 8, "loopback" },
	{ { 169, 254 }, 16, "link-local" },
	{ { 172, 16 }, 12, "private (RFC 1918)" },
	{ { 192, 0, 0 }, 24, "reserved (IETF protocol assignments)" },
	{ { 192, 0, 2 }, 24, "reserved (documentation)" },
	{ { 192, 88, 99 }, 24, "reserved (6to4 relay anycast)" },
	{ { 192, 168 }, 16, "private (RFC 1918)" },
	{ { 198, 18 }, 15, "reserved (benchmarking)" },
	{ { 198, 51, 100 }, 24, "reserved (documentation)" },
	{ { 203, 0, 113 }, 24, "reserved (documentation)" },
	{ { 224 }, 4, "multicast" },
	{ { 240 }, 4, "reserved (240/4)" },
};

static const struct addr_range v6_ranges[] = {
	{ { 0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
	    0x54 }, 128, "cloud metadata address" },
	{ { 0 }, 128, "unspecified" },
	{ { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 }, 128,
	    "loopback" },
	{ { 0, 0x64, 0xff, 0x9b, 0, 1 }, 48, "reserved (local NAT64)" },
	{ { 0x01, 0x00 }, 64, "reserved (discard-only)" },
	{ { 0x20, 0x01, 0x0d, 0xb8 }, 32, "reserved (documentation)" },
	{ { 0x20, 0x01 }, 23, "reserved (IETF protocol assignments, "
	    "Teredo)" },
	{ { 0x3f, 0xff }, 20, "reserved (documentation)" },
	{ { 0xfc }, 7, "private (unique local, fc00::/7)" },
	{ { 0xfe, 0x80 }, 10, "link-local" },
	{ { 0xfe, 0xc0 }, 10, "private (site-local, deprecated)" },
	{ { 0xff }, 8, "multicast" },
};

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0xff, 0xff };
static const uint8_t nat64[12] = { 0, 0x64, 0xff, 0x9b };
static const uint8_t v4compat[12];

int
addr_equal(const struct proxy_addr *a, const struct proxy_addr *b)
{
	size_t	 n = a->af == AF_INET ? 4 : 16;

	return a->af == b->af && memcmp(a->a, b->a, n) == 0;
}

int
addr_in_prefix(const struct proxy_addr *a, const struct proxy_addr *net,
    unsigned int prefixlen)
{
	unsigned int	 bytes = prefixlen / 8, bits = prefixlen % 8;
	uint8_t		 mask;

	if (a->af != net->af)
		return 0;
	if (prefixlen > (a->af == AF_INET ? 32U : 128U))
		return 0;
	if (memcmp(a->a, net->a, bytes) != 0)
		return 0;
	if (bits == 0)
		return 1;
	mask = (uint8_t)(0xff << (8 - bits));
	return (a->a[bytes] & mask) == (net->a[bytes] & mask);
}

void
addr_unmap(struct proxy_addr *a)
{
	if (a->af != AF_INET6 || memcmp(a->a, v4mapped, 12) != 0)
		return;
	memmove(a->a, a->a + 12, 4);
	memset(a->a + 4, 0, 12);
	a->af = AF_INET;
}

static const char *
range_match(const struct addr_range *r, size_t n, const struct proxy_addr *a)
{
	struct proxy_addr	 net;
	size_t			 i;

	net.af = a->af;
	for (i = 0; i < n; i++) {
		memcpy(net.a, r[i].a, sizeof(net.a));
		if (addr_in_prefix(a, &net, r[i].prefixlen))
			return r[i].why;
	}
	return NULL;
}

static const char *
v4_class(const uint8_t *v4)
{
	struct proxy_addr	 a;

	memset(&a, 0, sizeof(a));
	a.af = AF_INET;
	memcpy(a.a, v4, 4);
	return range_match(v4_ranges, sizeof(v4_ranges) / sizeof(v4_ranges[0]),
	    &a);
}

const char *
addr_class(const struct proxy_addr *a)
{
	const char	*why;

	if (a->af == AF_INET)
		return v4_class(a->a);
	if (a->af != AF_INET6)
		return "not an IP address";
	if ((why = range_match(v6_ranges,
	    sizeof(v6_ranges) / sizeof(v6_ranges[0]), a)) != NULL)
		return why;
	/* ::ffff:a.b.c.d goes to a.b.c.d. */
	if (memcmp(a->a, v4mapped, 12) == 0)
		return v4_class(a->a + 12);
	/* ::a.b.c.d, IPv4-compatible: deprecated (RFC 4291), never routed. */
	if (memcmp(a->a, v4compat, 12) == 0)
		return "reserved (IPv4-compatible IPv6)";
	/* NAT64 (RFC 6052) and 6to4 (RFC 3056) reach the IPv4 inside. */
	if (memcmp(a->a, nat64, 12) == 0)
		return v4_class(a->a + 12);
	if (a->a[0] == 0x20 && a->a[1] == 0x02)
		return v4_class(a->a + 2);
	/* Global unicast is 2000::/3; IANA has assigned nothing else. */
	if ((a->a[0] & 0xe0) != 0x20)
		return "reserved (outside 2000::/3)";
	return NULL;
}

const char *
addr_str(const struct proxy_addr *a, char *buf, size_t len)
{
	if (inet_ntop(a->af == AF_INET ? AF_INET : AF_INET6, a->a, buf,
	    len) == NULL)
		strlcpy(buf, "?", len);
	return buf;
}

int
addr_from_sa(struct proxy_addr *a, const struct sockaddr *sa)
{
	memset(a, 0, sizeof(*a));
	if (sa->sa_family == AF_INET) {
		a->af = AF_INET;
		memcpy(a->a, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		a->af = AF_INET6;
		memcpy(a->a, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 0;
	}
	return -1;
}

socklen_t
addr_to_sa(const struct proxy_addr *a, uint16_t port,
    struct sockaddr_storage *ss)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (a->af == AF_INET) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		memcpy(&sin->sin_addr, a->a, 4);
		return sizeof(*sin);
	}
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	memcpy(&sin6->sin6_addr, a->a, 16);
	return sizeof(*sin6);
}
