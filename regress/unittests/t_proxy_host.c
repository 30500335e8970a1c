/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_proxy_host: the proxy's canonical host (every spelling of an IP
 * literal, case, trailing dot, IDN, zone ids), the address classifier
 * (loopback, private, metadata, the IPv6 forms that embed IPv4) and the
 * per-sandbox policy (deny over allow, "*.", ":port", allow-cidr).
 */
#include <sys/socket.h>

#include <atf-c.h>
#include <string.h>

#include "common.h"
#include "proxy/proxy.h"

static void
canon_addr(const char *in, const char *want)
{
	struct proxy_host	 h;
	const char		*why = NULL;

	ATF_CHECK_MSG(host_canon(in, strlen(in), &h, &why) == 0,
	    "%s: %s", in, why);
	ATF_CHECK_MSG(h.kind == HOST_ADDR, "%s: not an address", in);
	ATF_CHECK_MSG(strcmp(h.name, want) == 0, "%s: %s, want %s", in,
	    h.name, want);
}

static void
canon_name(const char *in, const char *want)
{
	struct proxy_host	 h;
	const char		*why = NULL;

	ATF_CHECK_MSG(host_canon(in, strlen(in), &h, &why) == 0,
	    "%s: %s", in, why);
	ATF_CHECK_MSG(h.kind == HOST_NAME, "%s: not a name", in);
	ATF_CHECK_MSG(strcmp(h.name, want) == 0, "%s: %s, want %s", in,
	    h.name, want);
}

static void
canon_bad(const char *in, size_t len, const char *want)
{
	struct proxy_host	 h;
	const char		*why = "";

	ATF_CHECK_MSG(host_canon(in, len, &h, &why) == -1, "%s accepted", in);
	ATF_CHECK_MSG(strstr(why, want) != NULL, "%s: \"%s\", want \"%s\"",
	    in, why, want);
}
#define BAD(s, w)	canon_bad(s, sizeof(s) - 1, w)

ATF_TC_WITHOUT_HEAD(ipv4_spellings);
ATF_TC_BODY(ipv4_spellings, tc)
{
	canon_addr("127.0.0.1", "127.0.0.1");
	canon_addr("2130706433", "127.0.0.1");
	canon_addr("0x7f000001", "127.0.0.1");
	canon_addr("0x7f.1", "127.0.0.1");
	canon_addr("0X7F.0.0.1", "127.0.0.1");
	canon_addr("0177.0.0.1", "127.0.0.1");
	canon_addr("0177.1", "127.0.0.1");
	canon_addr("127.1", "127.0.0.1");
	canon_addr("127.0.1", "127.0.0.1");
	canon_addr("127.0.0.1.", "127.0.0.1");
	canon_addr("017700000001", "127.0.0.1");
	canon_addr("0", "0.0.0.0");
	canon_addr("169.254.43518", "169.254.169.254");
	canon_addr("0xa9fea9fe", "169.254.169.254");
	canon_addr("10.0.0.0", "10.0.0.0");
	canon_addr("1.2.3.4", "1.2.3.4");
	canon_addr("1.0x2.03.4", "1.2.3.4");
	/* Malformed literals are refused, never taken for names. */
	BAD("256.0.0.1", "malformed IPv4");
	BAD("127.0.0.1.1", "malformed IPv4");
	BAD("1.2.3.0x", "malformed IPv4");
	BAD("0x", "malformed IPv4");
	BAD("08.0.0.1", "malformed IPv4");
	BAD("4294967296", "malformed IPv4");
	BAD("1.16777216", "malformed IPv4");
	BAD("1..1", "malformed IPv4");
	BAD("example.123", "malformed IPv4");
	BAD("0x7g.1", "malformed IPv4");
	canon_name("0x7g", "0x7g");
}

ATF_TC_WITHOUT_HEAD(ipv6_spellings);
ATF_TC_BODY(ipv6_spellings, tc)
{
	canon_addr("[::1]", "::1");
	canon_addr("[0:0:0:0:0:0:0:1]", "::1");
	canon_addr("[2001:DB8::1]", "2001:db8::1");
	/* Mapped is the IPv4 address itself. */
	canon_addr("[::ffff:127.0.0.1]", "127.0.0.1");
	canon_addr("[::ffff:7f00:1]", "127.0.0.1");
	canon_addr("[::127.0.0.1]", "::127.0.0.1");
	canon_addr("[64:ff9b::7f00:1]", "64:ff9b::7f00:1");
	canon_addr("[2002:7f00:1::]", "2002:7f00:1::");
	BAD("[fe80::1%eth0]", "zone ids are refused");
	BAD("[fe80::1%25eth0]", "zone ids are refused");
	BAD("[::1", "closing ']'");
	BAD("[::g]", "malformed IPv6");
	BAD("[]", "malformed IPv6");
	BAD("[1.2.3.4]", "malformed IPv6");
	BAD("::1", "IPv6 literals need brackets");
}

ATF_TC_WITHOUT_HEAD(names);
ATF_TC_BODY(names, tc)
{
	char	 big[300];

	canon_name("Example.ORG", "example.org");
	canon_name("example.org.", "example.org");
	canon_name("xn--bcher-kva.example", "xn--bcher-kva.example");
	canon_name("a_b.example", "a_b.example");
	canon_name("localhost", "localhost");
	canon_name("1.example", "1.example");
	canon_name("0x7f.example", "0x7f.example");
	BAD("example.org..", "empty label");
	BAD(".example.org", "empty label");
	BAD("a..b", "empty label");
	BAD(".", "empty label");
	BAD("", "empty host");
	BAD("b\xc3\xbc" "cher.example", "punycode");
	BAD("exa mple.org", "character");
	BAD("exa%2e.org", "percent-encoded");
	BAD("-a.example", "starts or ends with '-'");
	BAD("a-.example", "starts or ends with '-'");
	canon_bad("a\0b.example", 11, "character");
	memset(big, 'a', sizeof(big));
	big[64] = '\0';
	canon_bad(big, 64, "longer than 63");
	big[64] = '.';
	canon_bad(big, 254, "longer than 253");
}

ATF_TC_WITHOUT_HEAD(authority);
ATF_TC_BODY(authority, tc)
{
	struct proxy_host	 h;
	const char		*why = "";
	uint16_t		 port;

#define AUTH(s, dp) host_authority(s, sizeof(s) - 1, dp, &h, &port, &why)
	ATF_CHECK(AUTH("example.org", 80) == 0 && port == 80);
	ATF_CHECK(AUTH("example.org:8080", 80) == 0 && port == 8080 &&
	    strcmp(h.name, "example.org") == 0);
	ATF_CHECK(AUTH("[::1]:443", 0) == 0 && port == 443 &&
	    h.kind == HOST_ADDR);
	ATF_CHECK(AUTH("[::1]", 80) == 0 && port == 80);
	ATF_CHECK(AUTH("example.org:", 80) == -1);
	ATF_CHECK(AUTH("example.org:0", 80) == -1);
	ATF_CHECK(AUTH("example.org:65536", 80) == -1);
	ATF_CHECK(AUTH("example.org:99999999999", 80) == -1);
	ATF_CHECK(AUTH("example.org:+80", 80) == -1);
	ATF_CHECK(AUTH("example.org:80:80", 80) == -1);
	ATF_CHECK(AUTH("[::1]x", 80) == -1);
	ATF_CHECK(AUTH("[::1", 80) == -1);
	ATF_CHECK(AUTH("1:2::3", 80) == -1);
	ATF_CHECK(AUTH("example.org:65535", 80) == 0 && port == 65535);
#undef AUTH
}

static const char *
class_of(const char *lit)
{
	struct proxy_host	 h;
	const char		*why;

	ATF_REQUIRE_MSG(host_canon(lit, strlen(lit), &h, &why) == 0, "%s",
	    lit);
	return addr_class(&h.addr);
}

static void
refused(const char *lit, const char *want)
{
	const char	*c = class_of(lit);

	ATF_CHECK_MSG(c != NULL && strstr(c, want) != NULL,
	    "%s: \"%s\", want \"%s\"", lit, c ? c : "(public)", want);
}

ATF_TC_WITHOUT_HEAD(classes);
ATF_TC_BODY(classes, tc)
{
	refused("127.0.0.1", "loopback");
	refused("127.255.255.254", "loopback");
	refused("0.0.0.0", "unspecified");
	refused("0.1.2.3", "this network");
	refused("10.1.2.3", "private");
	refused("172.16.0.1", "private");
	refused("172.31.255.255", "private");
	refused("192.168.1.1", "private");
	refused("100.64.0.1", "carrier-grade NAT");
	refused("100.127.255.255", "carrier-grade NAT");
	refused("169.254.1.1", "link-local");
	refused("169.254.169.254", "metadata");
	refused("224.0.0.1", "multicast");
	refused("239.255.255.255", "multicast");
	refused("255.255.255.255", "broadcast");
	refused("240.0.0.1", "reserved");
	refused("192.0.2.1", "documentation");
	refused("198.18.0.1", "benchmarking");
	refused("[::1]", "loopback");
	refused("[::]", "unspecified");
	refused("[::ffff:10.0.0.1]", "private");
	refused("[::ffff:169.254.169.254]", "metadata");
	refused("[::127.0.0.1]", "IPv4-compatible");
	refused("[64:ff9b::127.0.0.1]", "loopback");
	refused("[64:ff9b::a9fe:a9fe]", "metadata");
	refused("[2002:7f00:1::1]", "loopback");
	refused("[2002:c0a8:101::]", "private");
	refused("[fd00:ec2::254]", "metadata");
	refused("[fd12::1]", "unique local");
	refused("[fc00::1]", "unique local");
	refused("[fe80::1]", "link-local");
	refused("[fec0::1]", "site-local");
	refused("[ff02::1]", "multicast");
	refused("[2001:db8::1]", "documentation");
	refused("[2001::1]", "Teredo");
	refused("[100::1]", "discard");
	refused("[4000::1]", "outside 2000::/3");
	/* Public. */
	ATF_CHECK(class_of("1.1.1.1") == NULL);
	ATF_CHECK(class_of("172.32.0.1") == NULL);
	ATF_CHECK(class_of("100.128.0.1") == NULL);
	ATF_CHECK(class_of("[2606:4700::1111]") == NULL);
	ATF_CHECK(class_of("[64:ff9b::1.1.1.1]") == NULL);
	ATF_CHECK(class_of("[2002:101:101::1]") == NULL);
	ATF_CHECK(class_of("[::ffff:8.8.8.8]") == NULL);
}

static struct proxy_policy *
mkpolicy(const char **allow, const char **deny, const char **cidr)
{
	static struct proxy_policy	 p;
	const char			*why = "";

	memset(&p, 0, sizeof(p));
	for (; allow && *allow; allow++)
		ATF_REQUIRE_MSG(policy_add_domain(&p, 0, *allow, &why) == 0,
		    "%s: %s", *allow, why);
	for (; deny && *deny; deny++)
		ATF_REQUIRE_MSG(policy_add_domain(&p, 1, *deny, &why) == 0,
		    "%s: %s", *deny, why);
	for (; cidr && *cidr; cidr++)
		ATF_REQUIRE_MSG(policy_add_cidr(&p, *cidr, &why) == 0,
		    "%s: %s", *cidr, why);
	return &p;
}

static int
name_ok(const struct proxy_policy *p, const char *host, uint16_t port,
    const char *want)
{
	char	 why[POLICY_WHY_MAX];
	int	 r;

	r = policy_name(p, host, port, why, sizeof(why));
	ATF_CHECK_MSG(strstr(why, want) != NULL, "%s:%u: \"%s\", want "
	    "\"%s\"", host, (unsigned)port, why, want);
	return r;
}

ATF_TC_WITHOUT_HEAD(policy_names);
ATF_TC_BODY(policy_names, tc)
{
	const char *allow[] = { "example.org", "*.example.com:443",
	    "api.example.net:8080", "*.wild.test", NULL };
	const char *deny[] = { "private.example.com", "*.secret.wild.test",
	    "bad.wild.test:80", NULL };
	struct proxy_policy *p = mkpolicy(allow, deny, NULL);

	ATF_CHECK(name_ok(p, "example.org", 80, "allow-domain \"example.org\""));
	ATF_CHECK(name_ok(p, "example.org", 443, "allow-domain"));
	ATF_CHECK(!name_ok(p, "www.example.org", 80, "no allow-domain "
	    "matches www.example.org:80"));
	ATF_CHECK(name_ok(p, "a.example.com", 443, "*.example.com:443"));
	ATF_CHECK(name_ok(p, "a.b.example.com", 443, "*.example.com:443"));
	ATF_CHECK(!name_ok(p, "a.example.com", 80, "no allow-domain"));
	/* "*." is below the name only, and on a label boundary. */
	ATF_CHECK(!name_ok(p, "example.com", 443, "no allow-domain"));
	ATF_CHECK(!name_ok(p, "badexample.com", 443, "no allow-domain"));
	/* Deny beats allow. */
	ATF_CHECK(!name_ok(p, "private.example.com", 443,
	    "deny-domain \"private.example.com\""));
	ATF_CHECK(name_ok(p, "x.private.example.com", 443, "allow-domain"));
	ATF_CHECK(!name_ok(p, "a.secret.wild.test", 80, "deny-domain "
	    "\"*.secret.wild.test\""));
	ATF_CHECK(name_ok(p, "secret.wild.test", 80, "*.wild.test"));
	ATF_CHECK(!name_ok(p, "bad.wild.test", 80, "deny-domain "
	    "\"bad.wild.test:80\""));
	ATF_CHECK(name_ok(p, "bad.wild.test", 81, "*.wild.test"));
	ATF_CHECK(name_ok(p, "api.example.net", 8080, "allow-domain"));
	ATF_CHECK(!name_ok(p, "api.example.net", 80, "no allow-domain"));
	/* No rules: nothing. */
	p = mkpolicy(NULL, NULL, NULL);
	ATF_CHECK(!name_ok(p, "example.org", 80, "no allow-domain rules"));
}

static struct proxy_addr *
lit(const char *s, struct proxy_host *h)
{
	const char	*why;

	ATF_REQUIRE_MSG(host_canon(s, strlen(s), h, &why) == 0, "%s", s);
	return &h->addr;
}

ATF_TC_WITHOUT_HEAD(policy_addresses);
ATF_TC_BODY(policy_addresses, tc)
{
	const char *allow[] = { "example.org", NULL };
	const char *cidr[] = { "127.0.0.1/32", "10.0.0.0/8", "fd00::/8", NULL };
	struct proxy_policy *p;
	struct proxy_addr own[1];
	struct proxy_host h;
	char why[POLICY_WHY_MAX];

#define LIT(s) lit(s, &h)
	p = mkpolicy(allow, NULL, NULL);
	/* A literal is never a name, even a public one. */
	ATF_CHECK(!policy_literal(p, LIT("93.184.216.34"), why, sizeof(why)));
	ATF_CHECK(strstr(why, "no allow-cidr covers it") != NULL);
	ATF_CHECK(policy_resolved(p, LIT("93.184.216.34"), NULL, 0, why,
	    sizeof(why)));
	ATF_CHECK(!policy_resolved(p, LIT("127.0.0.1"), NULL, 0, why,
	    sizeof(why)));
	ATF_CHECK_MSG(strstr(why, "127.0.0.1 is loopback") != NULL, "%s", why);
	/* The host's own public address. */
	own[0] = *LIT("93.184.216.34");
	ATF_CHECK(!policy_resolved(p, LIT("93.184.216.34"), own, 1, why,
	    sizeof(why)));
	ATF_CHECK(strstr(why, "proxy's host") != NULL);

	p = mkpolicy(allow, NULL, cidr);
	ATF_CHECK(policy_literal(p, LIT("127.0.0.1"), why, sizeof(why)));
	ATF_CHECK(strstr(why, "allow-cidr \"127.0.0.1/32\"") != NULL);
	ATF_CHECK(policy_literal(p, LIT("0x7f.1"), why, sizeof(why)));
	ATF_CHECK(policy_literal(p, LIT("[::ffff:127.0.0.1]"), why,
	    sizeof(why)));
	ATF_CHECK(!policy_literal(p, LIT("127.0.0.2"), why, sizeof(why)));
	ATF_CHECK(policy_resolved(p, LIT("10.9.8.7"), NULL, 0, why,
	    sizeof(why)));
	ATF_CHECK(policy_resolved(p, LIT("[fd00:ec2::254]"), NULL, 0, why,
	    sizeof(why)));
	ATF_CHECK(!policy_resolved(p, LIT("169.254.169.254"), NULL, 0, why,
	    sizeof(why)));
	ATF_CHECK(strstr(why, "metadata") != NULL);
#undef LIT
}

ATF_TC_WITHOUT_HEAD(policy_rules);
ATF_TC_BODY(policy_rules, tc)
{
	struct proxy_policy	 p;
	const char		*why = "";

	memset(&p, 0, sizeof(p));
	ATF_CHECK(policy_add_domain(&p, 0, "Example.ORG:443", &why) == 0);
	ATF_CHECK(strcmp(p.allow[0].host, "example.org") == 0 &&
	    p.allow[0].port == 443);
	ATF_CHECK(policy_add_domain(&p, 0, "1.2.3.4", &why) == -1);
	ATF_CHECK(policy_add_domain(&p, 0, "x.org:0", &why) == -1);
	ATF_CHECK(policy_add_domain(&p, 0, "x.org:", &why) == -1);
	ATF_CHECK(policy_add_domain(&p, 0, "x.org:70000", &why) == -1);
	ATF_CHECK(policy_add_cidr(&p, "10.0.0.1/8", &why) == -1);
	ATF_CHECK(strstr(why, "beyond the prefix") != NULL);
	ATF_CHECK(policy_add_cidr(&p, "10.0.0.0/33", &why) == -1);
	ATF_CHECK(policy_add_cidr(&p, "0x7f.1", &why) == -1);
	ATF_CHECK(policy_add_cidr(&p, "::1/129", &why) == -1);
	ATF_CHECK(policy_add_cidr(&p, "::1", &why) == 0);
	ATF_CHECK(policy_add_cidr(&p, "0.0.0.0/0", &why) == 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, ipv4_spellings);
	ATF_TP_ADD_TC(tp, ipv6_spellings);
	ATF_TP_ADD_TC(tp, names);
	ATF_TP_ADD_TC(tp, authority);
	ATF_TP_ADD_TC(tp, classes);
	ATF_TP_ADD_TC(tp, policy_names);
	ATF_TP_ADD_TC(tp, policy_addresses);
	ATF_TP_ADD_TC(tp, policy_rules);
	return atf_no_error();
}
