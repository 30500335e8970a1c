/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * numfmt.c: ECMAScript Number::toString of a finite double (ECMA-262,
 * Number::toString with radix 10), the text JSON.stringify writes for a
 * number and so the text canonical JSON hashes.
 *
 * The digits are the shortest decimal that reads back as the double and,
 * of those, the closest to it.  We own this code (a design decision): the
 * C library has no shortest mode, and finding one by trying printf
 * precisions and reading each back with strtod took half the time of a
 * records digest.  The method is Raffaello Giulietti's "Schubfach"
 * (The Schubfach way to render doubles, 2020): scale the rounding
 * interval of the double by a power of ten chosen so that it is between
 * 1 and 10 units wide; then it holds at most one multiple of 10, which,
 * if present, is the shortest answer, and otherwise the answer is one of
 * the two integers around the scaled double.  The scaling multiplies by a
 * 126-bit approximation of the power of ten and rounds the product to
 * odd, which the paper proves keeps every comparison below exact.
 * regress/canon.sh compares the result with node on hundreds of
 * thousands of doubles each run.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "common.h"

typedef unsigned __int128 u128;

#define MASK63		((UINT64_C(1) << 63) - 1)
#define SIG_BITS	52
#define EXP_BIAS	1075	/* unbiased exponent of the integer significand */

/*
 * g * cp / 2^127 rounded to odd, g = g1 * 2^63 + g0 (126 bits), cp <
 * 2^63: the integer part, with its lowest bit set when the bits after
 * the point are not all zero.  Only bits 64 and up of the product count:
 * below them lies the error of g, which is rounded up.
 */
static uint64_t
rop(uint64_t g1, uint64_t g0, uint64_t cp)
{
	u128		 y;
	uint64_t	 x1, y0, y1, z;

	x1 = (uint64_t)(((u128)g0 * cp) >> 64);
	y = (u128)g1 * cp;
	y0 = (uint64_t)y;
	y1 = (uint64_t)(y >> 64);
	z = (y0 >> 1) + x1;
	return (y1 + (z >> 63)) | (((z & MASK63) + MASK63) >> 63);
}

/*
 * v = c * 2^q (c > 0): the shortest decimal d * 10^e10 that reads back as
 * v, the closest to v of those (ties to even d).  irregular: c is a power
 * of two whose predecessor is a quarter, not a half, unit away.
 */
static void
shortest(uint64_t c, int q, int irregular, uint64_t *dec, int *e10)
{
	const uint64_t	*t;
	u128		 g;
	uint64_t	 g1, g0, cb, cbl, cbr, vb, vbl, vbr, out;
	uint64_t	 s, sp10, tp10;
	int64_t		 cmp;
	int		 k, h, upin, wpin;

	/* Endpoints of the rounding interval read back as v iff c is even. */
	out = c & 1;
	cb = c << 2;
	cbr = cb + 2;
	if (irregular) {
		cbl = cb - 1;
		k = POW10_FLOG10_34_2(q);
	} else {
		cbl = cb - 2;
		k = POW10_FLOG10_2(q);
	}
	/* 4 v 10^-k, 2 bits more than the scaled v, by g ~ 10^-k 2^-r. */
	h = q + POW10_FLOG2(-k) + 2;
	t = pow10_tab[-k - POW10_MIN];
	g = ((((u128)t[0] << 64) | t[1]) >> 2) + 1;
	g1 = (uint64_t)(g >> 63);
	g0 = (uint64_t)g & MASK63;
	vb = rop(g1, g0, cb << h);
	vbl = rop(g1, g0, cbl << h);
	vbr = rop(g1, g0, cbr << h);

	/* The one multiple of 10 the interval may hold. */
	s = vb >> 2;
	sp10 = s / 10 * 10;
	tp10 = sp10 + 10;
	upin = vbl + out <= sp10 << 2;
	wpin = (tp10 << 2) + out <= vbr;
	if (upin != wpin) {
		*dec = upin ? sp10 : tp10;
		*e10 = k;
		return;
	}
	/* Otherwise s or s + 1, whichever is inside, or the closer one. */
	upin = vbl + out <= s << 2;
	wpin = ((s + 1) << 2) + out <= vbr;
	*e10 = k;
	if (upin != wpin) {
		*dec = upin ? s : s + 1;
		return;
	}
	cmp = (int64_t)(vb - ((2 * s + 1) << 1));
	*dec = cmp < 0 || (cmp == 0 && (s & 1) == 0) ? s : s + 1;
}

static const char	 pairs[201] =
    "00010203040506070809101112131415161718192021222324"
    "25262728293031323334353637383940414243444546474849"
    "50515253545556575859606162636465666768697071727374"
    "75767778798081828384858687888990919293949596979899";

/* The decimal digits of d (< 10^20) at out: their number. */
static int
put_digits(uint64_t d, char *out)
{
	uint64_t	 p = 10;
	int		 n = 1, i;

	while (n < 20 && d >= p) {
		n++;
		if (n < 20)
			p *= 10;
	}
	i = n;
	while (d >= 100) {
		i -= 2;
		memcpy(out + i, pairs + 2 * (d % 100), 2);
		d /= 100;
	}
	if (d >= 10) {
		i -= 2;
		memcpy(out + i, pairs + 2 * d, 2);
	} else
		out[--i] = (char)('0' + d);
	return n;
}

int
json_number_format(double v, char *buf, size_t bufsz)
{
	char		 digits[24], out[JSON_NUMBER_BUFSZ];
	uint64_t	 bits, f, c, dec;
	size_t		 o = 0;
	int		 be, q, e10, k, n, x, i;

	if (!isfinite(v)) {
		errno = EDOM;
		return -1;
	}
	memcpy(&bits, &v, sizeof(bits));
	f = bits & ((UINT64_C(1) << SIG_BITS) - 1);
	be = (int)((bits >> SIG_BITS) & 0x7ff);
	/* -0 too: JSON.stringify(-0) is "0". */
	if (be == 0 && f == 0) {
		if (bufsz < 2) {
			errno = ERANGE;
			return -1;
		}
		memcpy(buf, "0", 2);
		return 1;
	}
	if (be == 0) {
		c = f;
		q = 1 - EXP_BIAS;
	} else {
		c = f | UINT64_C(1) << SIG_BITS;
		q = be - EXP_BIAS;
	}
	/*
	 * Integers up to 2^53 (counts, ids) are their own shortest form:
	 * the rounding interval is at most one unit wide, so no other
	 * integer, and no decimal with fewer digits, reads back as v.
	 */
	if (q <= 0 && q > -SIG_BITS - 1 &&
	    (c & ((UINT64_C(1) << -q) - 1)) == 0) {
		dec = c >> -q;
		e10 = 0;
	} else {
		shortest(c, q, be > 1 && f == 0, &dec, &e10);
		while (dec % 10 == 0) {
			dec /= 10;
			e10++;
		}
	}
	k = put_digits(dec, digits);
	/* v = 0.d1..dk * 10^n in the terms of ECMA-262 Number::toString. */
	n = e10 + k;

	if (bits >> 63)
		out[o++] = '-';
	if (k <= n && n <= 21) {
		memcpy(out + o, digits, k);
		o += k;
		memset(out + o, '0', n - k);
		o += n - k;
	} else if (0 < n && n <= 21) {
		memcpy(out + o, digits, n);
		o += n;
		out[o++] = '.';
		memcpy(out + o, digits + n, k - n);
		o += k - n;
	} else if (-6 < n && n <= 0) {
		out[o++] = '0';
		out[o++] = '.';
		memset(out + o, '0', -n);
		o += -n;
		memcpy(out + o, digits, k);
		o += k;
	} else {
		out[o++] = digits[0];
		if (k > 1) {
			out[o++] = '.';
			memcpy(out + o, digits + 1, k - 1);
			o += k - 1;
		}
		out[o++] = 'e';
		out[o++] = n - 1 >= 0 ? '+' : '-';
		x = n - 1 >= 0 ? n - 1 : 1 - n;
		i = put_digits((uint64_t)x, out + o);
		o += i;
	}
	if (o + 1 > bufsz) {
		errno = ERANGE;
		return -1;
	}
	memcpy(buf, out, o);
	buf[o] = '\0';
	return (int)o;
}
