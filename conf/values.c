/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * values.c: the syntax of sbx.conf values.  Each check refuses rather than
 * repairs: a value the operator did not write exactly as meant is a policy
 * nobody reviewed.  On refusal *why names the rule that was broken.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "conf.h"

#define USERNAME_MAX	32	/* useradd(8)'s limit */
#define ENVNAME_MAX	128

/* Mount points the sandbox builds itself; binding host paths there would
 * replace the fresh /proc and minimal /dev with the host's (host devices,
 * other processes' /proc entries). */
static const char *const reserved_mounts[] = { "/proc", "/dev" };

int
conf_check_path(const char *s, const char **why)
{
	const char	*c, *comp;
	size_t		 len, clen;

	if (s[0] != '/') {
		*why = "is not an absolute path";
		return -1;
	}
	len = strlen(s);
	if (len >= PATH_MAX) {
		*why = "is longer than PATH_MAX";
		return -1;
	}
	if (len == 1) {
		*why = "is the root directory";
		return -1;
	}
	for (c = s; *c != '\0'; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			*why = "contains a control character";
			return -1;
		}
	}
	if (s[len - 1] == '/') {
		*why = "ends with '/'";
		return -1;
	}
	/*
	 * Lexical checks below (and conf_path_covers) compare paths as
	 * strings; "." and ".." components would let "/usr/../run" name
	 * "/run" while looking like a child of "/usr".
	 */
	for (comp = s + 1; comp != NULL; comp = c == NULL ? NULL : c + 1) {
		c = strchr(comp, '/');
		clen = c == NULL ? strlen(comp) : (size_t)(c - comp);
		if (clen == 0) {
			*why = "contains an empty component (\"//\")";
			return -1;
		}
		if ((clen == 1 && comp[0] == '.') ||
		    (clen == 2 && comp[0] == '.' && comp[1] == '.')) {
			*why = "contains a \".\" or \"..\" component";
			return -1;
		}
	}
	return 0;
}

int
conf_path_covers(const char *outer, const char *inner)
{
	size_t	 len = strlen(outer);

	if (strncmp(outer, inner, len) != 0)
		return 0;
	return inner[len] == '\0' || inner[len] == '/' ||
	    (len > 0 && outer[len - 1] == '/');
}

int
conf_check_mountpath(const char *s, const char **why)
{
	size_t	 i;

	if (conf_check_path(s, why) == -1)
		return -1;
	for (i = 0; i < nitems(reserved_mounts); i++) {
		if (conf_path_covers(reserved_mounts[i], s)) {
			*why = "is under /proc or /dev, which the sandbox "
			    "builds itself";
			return -1;
		}
	}
	return 0;
}

int
conf_check_socketpath(const char *s, const char **why)
{
	struct sockaddr_un	 sun;

	if (conf_check_path(s, why) == -1)
		return -1;
	if (strlen(s) >= sizeof(sun.sun_path)) {
		*why = "does not fit a unix socket address (max 107 bytes)";
		return -1;
	}
	return 0;
}

/* Profile names travel in requests and audit lines: keep them plain. */
int
conf_check_name(const char *s, const char **why)
{
	size_t	 i;

	if (s[0] == '\0' || strlen(s) > SBX_CONF_NAMEMAX) {
		*why = "must be 1 to 64 characters";
		return -1;
	}
	if (!isalnum((unsigned char)s[0])) {
		*why = "must start with a letter or digit";
		return -1;
	}
	for (i = 1; s[i] != '\0'; i++) {
		if (!isalnum((unsigned char)s[i]) &&
		    strchr("._-", s[i]) == NULL) {
			*why = "may contain only letters, digits, '.', '_' "
			    "and '-'";
			return -1;
		}
	}
	return 0;
}

static int
check_identifier(const char *s, size_t max, const char **why)
{
	size_t	 i;

	if (s[0] == '\0' || strlen(s) > max) {
		*why = max == ENVNAME_MAX ? "must be 1 to 128 characters" :
		    "must be 1 to 64 characters";
		return -1;
	}
	if (!isalpha((unsigned char)s[0]) && s[0] != '_') {
		*why = "must start with a letter or '_'";
		return -1;
	}
	for (i = 1; s[i] != '\0'; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_') {
			*why = "may contain only letters, digits and '_'";
			return -1;
		}
	}
	return 0;
}

int
conf_check_macroname(const char *s, const char **why)
{
	return check_identifier(s, SBX_CONF_NAMEMAX, why);
}

int
conf_check_envname(const char *s, const char **why)
{
	return check_identifier(s, ENVNAME_MAX, why);
}

/* The portable user name set (POSIX plus the '$' of machine accounts). */
int
conf_check_username(const char *s, const char **why)
{
	size_t	 i, len = strlen(s);

	if (len == 0 || len > USERNAME_MAX) {
		*why = "must be 1 to 32 characters";
		return -1;
	}
	if (!isalpha((unsigned char)s[0]) && s[0] != '_') {
		*why = "must start with a letter or '_'";
		return -1;
	}
	for (i = 1; i < len; i++) {
		if (isalnum((unsigned char)s[i]) || strchr("._-", s[i]) != NULL)
			continue;
		if (s[i] == '$' && i == len - 1)
			continue;
		*why = "may contain only letters, digits, '.', '_', '-' "
		    "(and a final '$')";
		return -1;
	}
	return 0;
}

/*
 * One DNS name as the proxy will compare it: the proxy matches names, so a
 * rule must be a name (addresses go to allow-cidr), in the LDH syntax of
 * RFC 1123, with "*." only as a whole first label.
 */
int
conf_parse_domain(const char *s, struct conf_domain *d, const char **why)
{
	const char	*colon, *label, *dot, *errstr;
	char		 port[8];
	size_t		 hlen, llen, i;
	int		 alldigits = 0;

	memset(d, 0, sizeof(*d));
	if (strncmp(s, "*.", 2) == 0) {
		d->wildcard = 1;
		s += 2;
	}
	if ((colon = strchr(s, ':')) != NULL) {
		if (strlcpy(port, colon + 1, sizeof(port)) >= sizeof(port) ||
		    port[0] == '\0' || strspn(port, "0123456789") !=
		    strlen(port)) {
			*why = "has a port that is not a number";
			return -1;
		}
		d->port = strtonum(port, 1, 65535, &errstr);
		if (errstr != NULL) {
			*why = "has a port outside 1..65535";
			return -1;
		}
		hlen = colon - s;
	} else
		hlen = strlen(s);
	if (hlen == 0) {
		*why = "has no host name";
		return -1;
	}
	if (hlen > SBX_CONF_DOMAINMAX) {
		*why = "has a name longer than 253 characters";
		return -1;
	}
	if (s[hlen - 1] == '.') {
		*why = "has an empty label (leading, trailing or double '.')";
		return -1;
	}
	for (label = s; label < s + hlen; label = dot + 1) {
		dot = memchr(label, '.', s + hlen - label);
		if (dot == NULL)
			dot = s + hlen;
		llen = dot - label;
		if (llen == 0) {
			*why = "has an empty label (leading, trailing or "
			    "double '.')";
			return -1;
		}
		if (llen > 63) {
			*why = "has a label longer than 63 characters";
			return -1;
		}
		alldigits = 1;
		for (i = 0; i < llen; i++) {
			if (label[i] == '*') {
				*why = "has a '*' other than a leading \"*.\"";
				return -1;
			}
			if (!isalnum((unsigned char)label[i]) &&
			    label[i] != '-') {
				*why = "may contain only letters, digits, '-' "
				    "and '.'";
				return -1;
			}
			if (!isdigit((unsigned char)label[i]))
				alldigits = 0;
		}
		if (label[0] == '-' || label[llen - 1] == '-') {
			*why = "has a label that starts or ends with '-'";
			return -1;
		}
	}
	if (alldigits) {
		*why = "is an address, not a name (use allow-cidr)";
		return -1;
	}
	for (i = 0; i < hlen; i++)
		d->host[i] = tolower((unsigned char)s[i]);
	d->host[hlen] = '\0';
	return 0;
}

int
conf_parse_cidr(const char *s, struct conf_cidr *c, const char **why)
{
	char		 addr[INET6_ADDRSTRLEN];
	const char	*slash, *errstr;
	uint8_t		*bytes;
	size_t		 alen, nbytes, i;
	int		 max, bits;

	memset(c, 0, sizeof(*c));
	slash = strchr(s, '/');
	alen = slash == NULL ? strlen(s) : (size_t)(slash - s);
	if (alen == 0 || alen >= sizeof(addr)) {
		*why = "is not an IPv4 or IPv6 address";
		return -1;
	}
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (strchr(addr, ':') != NULL) {
		c->af = AF_INET6;
		max = 128;
		bytes = c->addr.v6.s6_addr;
		nbytes = 16;
		if (inet_pton(AF_INET6, addr, &c->addr.v6) != 1) {
			*why = "is not an IPv6 address";
			return -1;
		}
	} else {
		c->af = AF_INET;
		max = 32;
		bytes = (uint8_t *)&c->addr.v4.s_addr;
		nbytes = 4;
		if (inet_pton(AF_INET, addr, &c->addr.v4) != 1) {
			*why = "is not an IPv4 address (dotted quad)";
			return -1;
		}
	}
	if (slash == NULL)
		bits = max;
	else {
		if (slash[1] == '\0' || strspn(slash + 1, "0123456789") !=
		    strlen(slash + 1)) {
			*why = "has a prefix length that is not a number";
			return -1;
		}
		bits = strtonum(slash + 1, 0, max, &errstr);
		if (errstr != NULL) {
			*why = max == 32 ? "has a prefix length outside 0..32" :
			    "has a prefix length outside 0..128";
			return -1;
		}
	}
	c->prefixlen = bits;
	/* "10.0.0.1/8" is most likely a typo for a narrower rule: refuse it
	 * rather than silently widening to 10.0.0.0/8. */
	for (i = 0; i < nbytes; i++) {
		int	 keep = bits - (int)i * 8;
		uint8_t	 mask;

		if (keep >= 8)
			continue;
		mask = keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));
		if ((bytes[i] & ~mask) != 0) {
			*why = "has host bits set beyond the prefix length";
			return -1;
		}
	}
	return 0;
}

/*
 * A duration in seconds: digits and an optional s, m, h or d suffix
 * ("7d", "90m", "3600").
 */
int
conf_parse_duration(const char *s, uint32_t min, uint32_t max, uint32_t *out,
    const char **why)
{
	static const char	*bad = "is not a duration (a number with an "
				    "optional s, m, h or d suffix)";
	char			 digits[16];
	const char		*errstr;
	size_t			 n;
	uint64_t		 mult = 1, v;

	n = strspn(s, "0123456789");
	if (n == 0 || n >= sizeof(digits)) {
		*why = n == 0 ? bad : "is too large";
		return -1;
	}
	switch (s[n]) {
	case '\0':
	case 's':
		break;
	case 'm':
		mult = 60;
		break;
	case 'h':
		mult = 3600;
		break;
	case 'd':
		mult = 86400;
		break;
	default:
		*why = bad;
		return -1;
	}
	if (s[n] != '\0' && s[n + 1] != '\0') {
		*why = bad;
		return -1;
	}
	memcpy(digits, s, n);
	digits[n] = '\0';
	v = strtonum(digits, 0, UINT32_MAX, &errstr);
	if (errstr != NULL || v * mult > max) {
		*why = "is too large";
		return -1;
	}
	v *= mult;
	if (v < min) {
		*why = "is too small";
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int
conf_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out,
    const char **why)
{
	char		 digits[24];
	const char	*errstr;
	size_t		 n;
	uint64_t	 mult = 1, v;

	n = strspn(s, "0123456789");
	if (n == 0 || n >= sizeof(digits)) {
		*why = "is not a size (a number with an optional K, M or G "
		    "suffix)";
		return -1;
	}
	switch (s[n]) {
	case '\0':
		break;
	case 'K': case 'k':
		mult = 1ULL << 10;
		break;
	case 'M': case 'm':
		mult = 1ULL << 20;
		break;
	case 'G': case 'g':
		mult = 1ULL << 30;
		break;
	default:
		*why = "is not a size (a number with an optional K, M or G "
		    "suffix)";
		return -1;
	}
	if (s[n] != '\0' && s[n + 1] != '\0') {
		*why = "is not a size (a number with an optional K, M or G "
		    "suffix)";
		return -1;
	}
	memcpy(digits, s, n);
	digits[n] = '\0';
	v = strtonum(digits, 0, LLONG_MAX, &errstr);
	if (errstr != NULL || v > UINT64_MAX / mult) {
		*why = "is too large";
		return -1;
	}
	v *= mult;
	if (v < min) {
		*why = "is too small";
		return -1;
	}
	if (v > max) {
		*why = "is too large";
		return -1;
	}
	*out = v;
	return 0;
}

int
conf_parse_mode(const char *s, mode_t *mode, const char **why)
{
	unsigned long	 v = 0;
	size_t		 i;

	if (s[0] == '\0' || strlen(s) > 4 || strspn(s, "01234567") !=
	    strlen(s)) {
		*why = "is not an octal mode (up to 4 digits 0-7)";
		return -1;
	}
	for (i = 0; s[i] != '\0'; i++)
		v = v * 8 + (unsigned long)(s[i] - '0');
	if (v & ~0777UL) {
		*why = "sets bits beyond 0777 (setuid, setgid, sticky)";
		return -1;
	}
	/* Any local user could reach the peer check; the socket is the
	 * first gate, the allow rules the second: keep both. */
	if (v & 0002) {
		*why = "lets every local user write to the socket (use "
		    "socket-group and allow rules)";
		return -1;
	}
	*mode = (mode_t)v;
	return 0;
}
