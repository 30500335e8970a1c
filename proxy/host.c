/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * host.c: the one canonical form of a request's host, which is what the
 * rules are matched against.
 *
 * The threat is a spelling the rules did not foresee reaching something
 * they meant to refuse: "EXAMPLE.com.", "2130706433", "0x7f.1", "127.1",
 * "[::ffff:127.0.0.1]", "[fe80::1%eth0]".  Every IPv4 spelling inet_aton
 * accepts is recognised as an address (and so needs allow-cidr), zone
 * ids are refused (they name an interface of the proxy's host, and a
 * parser that stops at '%' sees a different host than one that does
 * not), and a name is lower case with at most one trailing dot removed.
 * IDNs are compared as punycode: a host with bytes outside ASCII is
 * refused with a reason saying so rather than decoded, because the
 * rules hold A-labels and an encoder here would be one more parser of
 * hostile input whose output must agree with every resolver's.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <string.h>

#include "hex.h"
#include "proxy.h"

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* One inet_aton part: decimal, 0octal or 0xhex; at most 0xffffffff. */
static int
v4_part(const char *s, size_t len, uint64_t *v)
{
	unsigned int	 base = 10;
	size_t		 i = 0;
	int		 d;

	*v = 0;
	if (len == 0)
		return -1;
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
		if (len == 2)
			return -1;	/* "0x" alone */
	} else if (len >= 2 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	for (; i < len; i++) {
		if ((d = hexval((unsigned char)s[i])) == -1 ||
		    (unsigned int)d >= base)
			return -1;
		*v = *v * base + (unsigned int)d;
		if (*v > 0xffffffffULL)
			return -1;
	}
	return 0;
}

int
host_parse_v4(const char *s, size_t len, struct proxy_addr *a)
{
	uint64_t	 part[4], v;
	size_t		 n = 0, i, start = 0;

	for (i = 0; i <= len; i++) {
		if (i < len && s[i] != '.')
			continue;
		if (n == 4 || v4_part(s + start, i - start, &part[n]) == -1)
			return -1;
		n++;
		start = i + 1;
	}
	/* Leading parts are one byte each; the last fills the rest. */
	for (i = 0; i + 1 < n; i++)
		if (part[i] > 255)
			return -1;
	if (part[n - 1] > (0xffffffffULL >> (8 * (n - 1))))
		return -1;
	v = part[n - 1];
	for (i = 0; i + 1 < n; i++)
		v |= part[i] << (8 * (3 - i));
	memset(a, 0, sizeof(*a));
	a->af = AF_INET;
	a->a[0] = v >> 24;
	a->a[1] = v >> 16;
	a->a[2] = v >> 8;
	a->a[3] = v;
	return 0;
}

int
host_parse_v6(const char *s, size_t len, struct proxy_addr *a)
{
	char	 buf[INET6_ADDRSTRLEN];

	if (len == 0 || len >= sizeof(buf) || memchr(s, '\0', len) != NULL)
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET6, buf, a->a) != 1)
		return -1;
	a->af = AF_INET6;
	return 0;
}

/* The last label decides: a number there makes the host an IPv4 literal
 * (what inet_aton, and so curl and many resolvers, would make of it). */
static int
looks_numeric(const char *s, size_t len)
{
	const char	*dot = NULL;
	size_t		 i;

	for (i = len; i > 0; i--)
		if (s[i - 1] == '.') {
			dot = s + i - 1;
			break;
		}
	if (dot != NULL) {
		len -= dot + 1 - s;
		s = dot + 1;
	}
	if (len == 0)
		return 0;
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < len; i++)
			if (hexval((unsigned char)s[i]) == -1)
				return 0;
		return 1;
	}
	for (i = 0; i < len; i++)
		if (!is_digit((unsigned char)s[i]))
			return 0;
	return 1;
}

static int
name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    is_digit(c) || c == '-' || c == '_';
}

static void
set_addr(struct proxy_host *h)
{
	addr_unmap(&h->addr);
	h->kind = HOST_ADDR;
	addr_str(&h->addr, h->name, sizeof(h->name));
}

int
host_canon(const char *s, size_t len, struct proxy_host *h, const char **why)
{
	size_t		 i, label = 0;

	memset(h, 0, sizeof(*h));
	if (len == 0) {
		*why = "empty host";
		return -1;
	}
	if (s[0] == '[') {
		if (len < 2 || s[len - 1] != ']') {
			*why = "IPv6 literal without its closing ']'";
			return -1;
		}
		if (memchr(s, '%', len) != NULL) {
			*why = "IPv6 zone ids are refused";
			return -1;
		}
		if (host_parse_v6(s + 1, len - 2, &h->addr) == -1) {
			*why = "malformed IPv6 literal";
			return -1;
		}
		set_addr(h);
		return 0;
	}
	for (i = 0; i < len; i++) {
		if ((unsigned char)s[i] >= 0x80) {
			*why = "non-ASCII host name: an IDN must be sent as "
			    "punycode (xn--)";
			return -1;
		}
		if (s[i] == ':') {
			*why = "':' in a host (IPv6 literals need brackets)";
			return -1;
		}
		if (s[i] == '%') {
			*why = "percent-encoded host";
			return -1;
		}
		if (s[i] != '.' && !name_char((unsigned char)s[i])) {
			*why = "host has a character outside letters, digits, "
			    "'-', '_' and '.'";
			return -1;
		}
	}
	if (len > 1 && s[len - 1] == '.')
		len--;
	if (looks_numeric(s, len)) {
		if (host_parse_v4(s, len, &h->addr) == -1) {
			*why = "malformed IPv4 literal";
			return -1;
		}
		set_addr(h);
		return 0;
	}
	if (len > HOST_NAME_MAX_LEN) {
		*why = "host name longer than 253 characters";
		return -1;
	}
	for (i = 0; i <= len; i++) {
		if (i < len && s[i] != '.') {
			h->name[i] = (s[i] >= 'A' && s[i] <= 'Z') ?
			    s[i] - 'A' + 'a' : s[i];
			continue;
		}
		if (i == label) {
			*why = "host name has an empty label";
			return -1;
		}
		if (i - label > HOST_LABEL_MAX) {
			*why = "host name has a label longer than 63 "
			    "characters";
			return -1;
		}
		if (s[label] == '-' || s[i - 1] == '-') {
			*why = "host name has a label that starts or ends "
			    "with '-'";
			return -1;
		}
		if (i < len)
			h->name[i] = '.';
		label = i + 1;
	}
	h->name[len] = '\0';
	h->kind = HOST_NAME;
	return 0;
}

int
host_authority(const char *s, size_t len, uint16_t defport,
    struct proxy_host *h, uint16_t *port, const char **why)
{
	const char	*close, *colon = NULL;
	size_t		 hlen, i;
	uint32_t	 p = 0;

	if (len > 0 && s[0] == '[') {
		if ((close = memchr(s, ']', len)) == NULL) {
			*why = "IPv6 literal without its closing ']'";
			return -1;
		}
		hlen = close + 1 - s;
		if (hlen < len) {
			if (s[hlen] != ':') {
				*why = "junk after an IPv6 literal";
				return -1;
			}
			colon = s + hlen;
		}
	} else {
		for (i = 0; i < len; i++)
			if (s[i] == ':') {
				if (colon != NULL) {
					*why = "':' in a host (IPv6 literals "
					    "need brackets)";
					return -1;
				}
				colon = s + i;
			}
		hlen = colon != NULL ? (size_t)(colon - s) : len;
	}
	if (colon != NULL) {
		if (colon + 1 == s + len) {
			*why = "empty port";
			return -1;
		}
		for (i = colon + 1 - s; i < len; i++) {
			if (!is_digit((unsigned char)s[i]) || p > 65535) {
				*why = "port is not a number in 1..65535";
				return -1;
			}
			p = p * 10 + (unsigned int)(s[i] - '0');
		}
		if (p == 0 || p > 65535) {
			*why = "port is not a number in 1..65535";
			return -1;
		}
		*port = (uint16_t)p;
	} else
		*port = defport;
	return host_canon(s, hlen, h, why);
}
