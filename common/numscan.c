/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * numscan.c: JSON number text to the nearest double (ties to even), as
 * JSON.parse reads it.
 *
 * strtod was the other half of the time a records digest took; nearly
 * all of it went into the multiple-precision arithmetic glibc uses for
 * every input.  Here the decimal's first 19 significant digits w and its
 * exponent e give bounds on the value: w * 10^e is at least w times the
 * table's 128-bit truncation T of 10^e, and below (w + 1) (T + 1) times
 * the same power of two (w + 1 only when digits were dropped, T + 1
 * only when T is not exact).  Rounding to nearest is monotonic, so when
 * both bounds round to the same double that double is the answer; when
 * they do not, strtod decides.  The bounds are about 2^-126 of the value
 * apart, or 2^-60 when digits past the 19th were dropped, so strtod sees
 * only numbers made to sit on a rounding boundary (exact halfway points
 * between doubles) and about one in two hundred of those longer than 19
 * digits, which JSON.stringify never writes.  The idea is Clinger's and
 * Lemire's (Number Parsing at a Gigabyte per Second, 2021); the
 * bracketing keeps the proof to that one argument.
 */
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

typedef unsigned __int128 u128;

#define DIGITS_MAX	19		/* w < 10^19 < 2^64 */
#define EXP_CLAMP	100000		/* beyond any double either way */

/* 10^e is exact in 128 bits for 0 <= e <= 55 (5^55 < 2^128). */
#define POW10_EXACT_MAX	55

/*
 * strtod honours LC_NUMERIC; a caller that set a locale with a decimal
 * comma must not change what "0.5" means.
 */
static locale_t
c_locale(void)
{
	static locale_t	 loc = (locale_t)0;

	if (loc == (locale_t)0 &&
	    (loc = newlocale(LC_ALL_MASK, "C", (locale_t)0)) == (locale_t)0)
		fatal("newlocale C");
	return loc;
}

/* p[0..2] (low to high) = a * (bhi * 2^64 + blo). */
static void
mul_64x128(uint64_t a, uint64_t bhi, uint64_t blo, uint64_t p[3])
{
	u128	 lo, hi, mid;

	lo = (u128)a * blo;
	hi = (u128)a * bhi;
	mid = (lo >> 64) + (uint64_t)hi;
	p[0] = (uint64_t)lo;
	p[1] = (uint64_t)mid;
	p[2] = (uint64_t)(hi >> 64) + (uint64_t)(mid >> 64);
}

/*
 * The bits of the double nearest to p * 2^sc, ties to even, p in
 * [2^190, 2^192): 0, or -1 when it is beyond the largest double.
 */
static int
round_192(const uint64_t p[3], int sc, uint64_t *bits)
{
	uint64_t	 m, half, below;
	int		 top, e, keep, cut, sticky;

	top = 191 - __builtin_clzll(p[2]);
	e = top + sc;			/* 2^e <= value < 2^(e+1) */
	keep = 53;
	if (e < -1022)			/* subnormal: fewer bits */
		keep = 53 - (-1022 - e);
	if (keep < 0) {			/* below half the least subnormal */
		*bits = 0;
		return 0;
	}
	/* Bit cut of p is the lowest kept; cut - 128 >= 10, all in p[2]. */
	cut = top - keep + 1;
	m = cut - 128 < 64 ? p[2] >> (cut - 128) : 0;
	half = (p[2] >> (cut - 129)) & 1;
	below = cut - 129 > 0 ? p[2] & ((UINT64_C(1) << (cut - 129)) - 1) :
	    0;
	sticky = below != 0 || p[1] != 0 || p[0] != 0;
	if (half && (sticky || (m & 1)))
		m++;
	/* m carries into the exponent field by itself when it rounds up
	 * to 2^53 (or a subnormal to the least normal). */
	if (e >= -1022)
		*bits = ((uint64_t)(e + 1022) << 52) + m;
	else
		*bits = m;
	return *bits >= UINT64_C(0x7ff0000000000000) ? -1 : 0;
}

static int
slow(const char *s, size_t len, double *out)
{
	char	 sbuf[64], *t, *end;
	double	 d;
	int	 whole;

	t = len < sizeof(sbuf) ? sbuf : xmalloc(len + 1);
	memcpy(t, s, len);
	t[len] = '\0';
	d = strtod_l(t, &end, c_locale());
	whole = end == t + len;
	if (t != sbuf)
		free(t);
	if (!whole || d > 1.7976931348623157e308 ||
	    d < -1.7976931348623157e308)
		return -1;
	*out = d;
	return 0;
}

int
json_number_scan(const char *s, size_t len, double *out)
{
	const char	*p = s, *end = s + len;
	uint64_t	 w = 0, wn, lo[3], hi[3], blo, bhi, t1, t0;
	long		 e10 = 0, x = 0;
	int		 neg = 0, nd = 0, more = 0, frac = 0, xneg = 0, lz, sc;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	for (; p < end; p++) {
		if (*p == '.') {
			frac = 1;
			continue;
		}
		if (*p < '0' || *p > '9')
			break;
		if (nd == 0 && *p == '0') {
			/* leading zeros are not significant */
			e10 -= frac;
		} else if (nd < DIGITS_MAX) {
			w = w * 10 + (uint64_t)(*p - '0');
			nd++;
			e10 -= frac;
		} else {
			more |= *p != '0';
			e10 += !frac;
		}
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			xneg = *p++ == '-';
		for (; p < end && *p >= '0' && *p <= '9'; p++)
			if (x < EXP_CLAMP)
				x = x * 10 + (*p - '0');
	}
	if (p != end)
		return slow(s, len, out);
	e10 += xneg ? -x : x;

	if (w == 0) {
		*out = neg ? -0.0 : 0.0;
		return 0;
	}
	/* w * 10^e10 is in [10^(e10 + nd - 1), 10^(e10 + nd)). */
	if (e10 + nd - 1 > 308)
		return -1;
	if (e10 + nd < -324) {
		*out = neg ? -0.0 : 0.0;
		return 0;
	}

	/* w * 10^e10 = (w << lz) T 2^(POW10_FLOG2(e10) - 127 - lz) */
	lz = __builtin_clzll(w);
	wn = w << lz;
	t1 = pow10_tab[e10 - POW10_MIN][0];
	t0 = pow10_tab[e10 - POW10_MIN][1];
	sc = POW10_FLOG2((int)e10) - 127 - lz;
	mul_64x128(wn, t1, t0, lo);
	if (round_192(lo, sc, &blo) == -1)
		return -1;
	/* The upper bound; (w + 1) << lz cannot carry past 2^64 unless w
	 * is all ones, which no 19-digit w is (10^19 < 2^64 - 1) ... */
	bhi = blo;
	if (more || e10 < 0 || e10 > POW10_EXACT_MAX) {
		wn = (w + more) << lz;
		/* ... except that w + 1 may be a power of two: then the
		 * shift drops its bit, and the bound is left to strtod. */
		if (wn == 0 || (wn >> lz) != w + more)
			return slow(s, len, out);
		if (e10 < 0 || e10 > POW10_EXACT_MAX) {
			t0++;
			t1 += t0 == 0;
		}
		mul_64x128(wn, t1, t0, hi);
		if (round_192(hi, sc, &bhi) == -1 || bhi != blo)
			return slow(s, len, out);
	}
	blo |= (uint64_t)neg << 63;
	memcpy(out, &blo, sizeof(*out));
	return 0;
}
