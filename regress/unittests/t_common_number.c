/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_common_number: numfmt.c and numscan.c without node -- the edge cases by
 * value, the formatter against a brute-force oracle (printf at every
 * precision, read back by strtod), the scanner against strtod on random
 * decimals and on exact halfway points between doubles, and SHA-256 on
 * the CPU's extensions against libsodium's.  regress/canon.sh compares
 * the same code with node.
 */
#include <atf-c.h>
#include <float.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "sha256.h"

static uint64_t	 rs = 0x9e3779b97f4a7c15ULL;

static uint64_t
rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static double
from_bits(uint64_t b)
{
	double	 d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

static uint64_t
to_bits(double d)
{
	uint64_t	 b;

	memcpy(&b, &d, sizeof(b));
	return b;
}

/* Neighbours of a positive finite double (no libm here). */
static double
next_up(double d)
{
	return from_bits(to_bits(d) + 1);
}

static double
next_down(double d)
{
	return d == 0 ? d : from_bits(to_bits(d) - 1);
}

/* A finite double, random over all bit patterns. */
static double
rnd_double(void)
{
	double	 d;

	do
		d = from_bits(rnd());
	while (!isfinite(d));
	return d;
}

/*
 * Reduce a decimal text (JSON number or printf "%e" output) to its
 * significant digits and n, the text's value being 0.digits * 10^n:
 * what ECMA-262 Number::toString's layout is a function of.
 */
static void
normalise(const char *s, char *digits, size_t dsz, int *n)
{
	const char	*p;
	size_t		 k = 0;
	int		 point = -1, i = 0, x = 0;

	if (*s == '-')
		s++;
	for (p = s; *p != '\0' && *p != 'e' && *p != 'E'; p++) {
		if (*p == '.') {
			point = i;
			continue;
		}
		if (k == 0 && *p == '0') {	/* leading zero */
			i++;
			if (point == -1)
				continue;
			continue;
		}
		ATF_REQUIRE(k + 1 < dsz);
		digits[k++] = *p;
		i++;
	}
	if (point == -1)
		point = i;
	if (*p != '\0')
		x = atoi(p + 1);
	/* Leading zeros before the first digit move the point. */
	for (p = s, i = 0; *p == '0' || *p == '.'; p++)
		if (*p == '0')
			i++;
	while (k > 1 && digits[k - 1] == '0')
		k--;
	digits[k] = '\0';
	*n = point - i + x;
	if (k == 0) {
		strlcpy(digits, "0", dsz);
		*n = 1;
	}
}

/*
 * The oracle: for k = 1, 2, ... the k-digit decimal printf rounds v to,
 * or at a power of two (where the interval of decimals that read back as
 * v is wider above v than below) the next one up, whichever strtod reads
 * back as v first.  Slow and obviously shortest.
 */
static void
oracle(double v, char *digits, size_t dsz, int *n)
{
	char	 t[64], d[24];
	int	 k, i, e;

	if (v < 0)
		v = -v;
	for (k = 1; k <= 17; k++) {
		snprintf(t, sizeof(t), "%.*e", k - 1, v);
		if (strtod(t, NULL) == v) {
			normalise(t, digits, dsz, n);
			return;
		}
		if (strtod(t, NULL) > v)
			continue;
		normalise(t, d, sizeof(d), &e);
		/* pad to k digits, add one in the last place */
		for (i = (int)strlen(d); i < k; i++)
			d[i] = '0';
		d[k] = '\0';
		for (i = k - 1; i >= 0 && d[i] == '9'; i--)
			d[i] = '0';
		if (i < 0) {
			memmove(d + 1, d, (size_t)k);
			d[0] = '1';
			d[k] = '\0';
			e++;
		} else
			d[i]++;
		snprintf(t, sizeof(t), "0.%se%d", d, e);
		if (strtod(t, NULL) == v) {
			normalise(t, digits, dsz, n);
			return;
		}
	}
	atf_tc_fail("oracle: %a has no 17-digit form", v);
}

static void
check_oracle(double v)
{
	char	 buf[JSON_NUMBER_BUFSZ], got[32], want[32];
	int	 gn, wn;

	ATF_REQUIRE_MSG(json_number_format(v, buf, sizeof(buf)) > 0, "%a", v);
	if (v == 0) {
		ATF_CHECK_STREQ(buf, "0");
		return;
	}
	normalise(buf, got, sizeof(got), &gn);
	oracle(v, want, sizeof(want), &wn);
	ATF_CHECK_MSG(strcmp(got, want) == 0 && gn == wn, "%a: \"%s\" is "
	    "0.%s e%d, the oracle says 0.%s e%d", v, buf, got, gn, want, wn);
	/* and it reads back */
	ATF_CHECK_MSG(strtod(buf, NULL) == v, "%a: \"%s\" reads back as %a",
	    v, buf, strtod(buf, NULL));
}

ATF_TC_WITHOUT_HEAD(format_layout);
ATF_TC_BODY(format_layout, tc)
{
	static const struct {
		double		 v;
		const char	*want;
	} t[] = {
		/* the two smallest subnormals: 9 and 10 units apart */
		{ 0x1p-1074, "5e-324" },
		{ 0x1p-1073, "1e-323" },
		{ 0x3p-1074, "1.5e-323" },
		{ 0x0.0000000000fffp-1022, "2.023e-320" },
		/* n = 21 is the last plain integer, 22 the first exponent */
		{ 999999999999999900000.0, "999999999999999900000" },
		{ 1e21, "1e+21" },
		{ 0x1.b1ae4d6e2ef51p+69, "1.0000000000000001e+21" },
		{ 123456789012345678901.0, "123456789012345680000" },
		/* n = -5 is the last plain fraction, -6 the first exponent */
		{ 0.000001, "0.000001" },
		{ 0x1.0c6f7a0b5ed8cp-20, "9.999999999999997e-7" },
		{ 1e-7, "1e-7" },
		{ 0x1.ad7f29abcaf49p-24, "1.0000000000000001e-7" },
		{ 0x1.ad7f29abcaf47p-24, "9.999999999999998e-8" },
		{ 0.00000123, "0.00000123" },
		{ 1.23e-7, "1.23e-7" },
		/* plain with a point; 17 significant digits */
		{ 1.2345678901234567, "1.2345678901234567" },
		{ 12345678901234567e-20, "0.00012345678901234567" },
		{ 0.1 + 0.7, "0.7999999999999999" },
		{ 1.0 / 3, "0.3333333333333333" },
		{ 2.0 / 3, "0.6666666666666666" },
		{ 5e-7 * 3, "0.0000015" },
		/* integers: the direct path and the general one */
		{ 0x1p53 - 1, "9007199254740991" },
		{ 0x1p53, "9007199254740992" },
		{ 0x1p53 + 2, "9007199254740994" },
		{ 0x1p63, "9223372036854776000" },
		{ 1e15 + 0.5, "1000000000000000.5" },
		{ 4503599627370495.5, "4503599627370495.5" },
		{ 123e18, "123000000000000000000" },
		{ -0x1p52, "-4503599627370496" },
		/* exponents of every width */
		{ 1e22, "1e+22" },
		{ 1e300, "1e+300" },
		{ 5e-10, "5e-10" },
		{ 2.5e-100, "2.5e-100" },
		{ -3.75e-310, "-3.75e-310" },
		{ 0x1.fffffffffffffp1023, "1.7976931348623157e+308" },
	};
	char	 buf[JSON_NUMBER_BUFSZ];
	size_t	 i;

	for (i = 0; i < nitems(t); i++) {
		ATF_CHECK(json_number_format(t[i].v, buf, sizeof(buf)) ==
		    (int)strlen(t[i].want));
		ATF_CHECK_MSG(strcmp(buf, t[i].want) == 0, "%a: got %s, "
		    "want %s", t[i].v, buf, t[i].want);
	}
}

ATF_TC_WITHOUT_HEAD(format_oracle);
ATF_TC_BODY(format_oracle, tc)
{
	double	 p;
	int	 i, e;

	/* every power of two and both neighbours */
	for (e = -1074; e <= 1023; e++) {
		p = ldexp(1, e);
		check_oracle(p);
		check_oracle(next_up(p));
		check_oracle(next_down(p));
	}
	/* every power of ten and both neighbours */
	for (e = -323; e <= 308; e++) {
		char	 t[16];

		snprintf(t, sizeof(t), "1e%d", e);
		p = strtod(t, NULL);
		check_oracle(p);
		check_oracle(next_up(p));
		check_oracle(next_down(p));
	}
	/* the smallest subnormals */
	for (i = 1; i < 2000; i++)
		check_oracle(i * 0x1p-1074);
	/* random bit patterns, random subnormals, short decimals */
	for (i = 0; i < 30000; i++) {
		char	 t[40];

		check_oracle(rnd_double());
		check_oracle(from_bits(rnd() & 0x800fffffffffffffULL));
		snprintf(t, sizeof(t), "%" PRIu64 "e%d",
		    rnd() % 1000000000, (int)(rnd() % 640) - 330);
		if (isfinite(strtod(t, NULL)))
			check_oracle(strtod(t, NULL));
	}
}

/* json_number_scan on text of any length. */
static int
scan(const char *s, double *d)
{
	return json_number_scan(s, strlen(s), d);
}

ATF_TC_WITHOUT_HEAD(scan_edges);
ATF_TC_BODY(scan_edges, tc)
{
	static const struct {
		const char	*s;
		double		 want;
	} t[] = {
		{ "0", 0.0 },
		{ "-0", -0.0 },
		{ "-0.0e-5", -0.0 },
		{ "0.1", 0.1 },
		{ "1e23", 1e23 },
		{ "9007199254740993", 0x1p53 },		/* tie: even */
		{ "9007199254740995", 0x1p53 + 4 },	/* tie: even */
		{ "9007199254740993.0000000000000000001", 0x1p53 + 2 },
		{ "18446744073709551615", 0x1p64 },
		{ "1.7976931348623157e308", DBL_MAX },
		{ "1.7976931348623158e308", DBL_MAX },
		{ "2.4703282292062327e-324", 0.0 },	/* below half */
		{ "2.4703282292062328e-324", 0x1p-1074 },
		{ "2.2250738585072011e-308", 0x0.fffffffffffffp-1022 },
		{ "2.2250738585072012e-308", 0x1p-1022 },
		{ "1e-400", 0.0 },
		{ "0.000000000000000000000000000001e30", 1.0 },
		{ "100000000000000000000000000000000e-32", 1.0 },
		{ "0.1000000000000000055511151231257827021181583404541015625",
		    0.1 },
		{ "1e-999999999999999999999", 0.0 },
		{ "0e999999999999999999999", 0.0 },
	};
	double	 d;
	size_t	 i;

	for (i = 0; i < nitems(t); i++) {
		ATF_CHECK_MSG(scan(t[i].s, &d) == 0, "%s refused", t[i].s);
		ATF_CHECK_MSG(to_bits(d) == to_bits(t[i].want), "%s: got %a, "
		    "want %a", t[i].s, d, t[i].want);
	}
	/* beyond the largest double: refused, as JSON.parse's Infinity */
	ATF_CHECK_EQ(scan("1.7976931348623159e308", &d), -1);
	ATF_CHECK_EQ(scan("-1e309", &d), -1);
	ATF_CHECK_EQ(scan("1e999999999999999999999", &d), -1);
}

static void
check_strtod(const char *s)
{
	locale_t	 c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	double		 want, got;
	int		 r;

	want = strtod_l(s, NULL, c);
	freelocale(c);
	r = json_number_scan(s, strlen(s), &got);
	if (!isfinite(want)) {
		ATF_CHECK_MSG(r == -1, "%s: %a accepted, strtod overflows", s,
		    got);
		return;
	}
	ATF_CHECK_MSG(r == 0 && to_bits(got) == to_bits(want), "%s: got %a "
	    "(%d), strtod %a", s, got, r, want);
}

ATF_TC_WITHOUT_HEAD(scan_strtod);
ATF_TC_BODY(scan_strtod, tc)
{
	char		 s[1300];
	long double	 mid;
	double		 d, up;
	size_t		 n, i;
	int		 k, len;

	/* random decimals of 1 to 40 digits, any exponent */
	for (k = 0; k < 100000; k++) {
		len = 0;
		if (rnd() & 1)
			s[len++] = '-';
		n = 1 + rnd() % 40;
		s[len++] = (char)('1' + rnd() % 9);
		for (i = 1; i < n; i++) {
			if (i == 1 && (rnd() & 1))
				s[len++] = '.';
			s[len++] = (char)('0' + rnd() % 10);
		}
		snprintf(s + len, sizeof(s) - len, "e%d",
		    (int)(rnd() % 760) - 380);
		check_strtod(s);
	}
	/*
	 * Exact halfway points between adjacent doubles (a long double
	 * holds them exactly; glibc prints them exactly), and a hair
	 * either side: where bounds disagree and strtod must decide.
	 */
	for (k = 0; k < 5000; k++) {
		d = fabs(k & 1 ? rnd_double() :
		    from_bits(rnd() & 0x000fffffffffffffULL));
		up = next_up(d);
		if (!isfinite(up))
			continue;
		mid = ((long double)d + up) / 2;
		snprintf(s, sizeof(s), "%.1100Le", mid);
		check_strtod(s);
		/* one more digit below or above the halfway point */
		len = (int)(strchr(s, 'e') - s);
		memmove(s + len + 1, s + len, strlen(s + len) + 1);
		s[len] = '1';
		check_strtod(s);
	}
}

/* SHA-256 in pieces of random sizes. */
static void
sha_pieces(int portable, const unsigned char *p, size_t len,
    unsigned char md[SHA256_LEN])
{
	struct sha256_ctx	 ctx;
	size_t			 n;

	sha256_init(&ctx, portable);
	while (len > 0) {
		n = rnd() % 3 == 0 ? len : rnd() % (len + 1);
		sha256_update(&ctx, p, n);
		p += n;
		len -= n;
	}
	sha256_final(&ctx, md);
}

ATF_TC_WITHOUT_HEAD(sha256_engines);
ATF_TC_BODY(sha256_engines, tc)
{
	struct sha256_ctx	 ctx;
	unsigned char		*buf, a[SHA256_LEN], b[SHA256_LEN];
	char			 hex[DIGEST_HEX_LEN + 1];
	size_t			 len, i;

	sha256_init(&ctx, 0);
	printf("engine: %s\n", ctx.shani ? "the CPU's SHA extensions" :
	    "libsodium (both sides)");
	sha256_final(&ctx, a);
	buf = xmalloc(1000000);
	for (i = 0; i < 1000000; i++)
		buf[i] = (unsigned char)rnd();
	/* every length across the padding boundaries, then large ones */
	for (len = 0; len <= 1000000; len = len < 300 ? len + 1 :
	    len * 3 + 7) {
		sha_pieces(0, buf, len, a);
		sha_pieces(1, buf, len, b);
		ATF_CHECK_MSG(memcmp(a, b, sizeof(a)) == 0, "length %zu", len);
	}
	/* FIPS 180-2 vectors, through whichever engine the CPU runs */
	digest_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomn"
	    "opnopq", 56, hex);
	ATF_CHECK_STREQ(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167"
	    "f6ecedd419db06c1");
	memset(buf, 'a', 1000000);
	digest_sha256_hex(buf, 1000000, hex);
	ATF_CHECK_STREQ(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e"
	    "046d39ccc7112cd0");
	free(buf);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, format_layout);
	ATF_TP_ADD_TC(tp, format_oracle);
	ATF_TP_ADD_TC(tp, scan_edges);
	ATF_TP_ADD_TC(tp, scan_strtod);
	ATF_TP_ADD_TC(tp, sha256_engines);
	return atf_no_error();
}
