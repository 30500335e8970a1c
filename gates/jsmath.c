/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * jsmath.c: Math.log and Math.exp as V8 computes them.
 *
 * The reference runs on node, whose Math.log and Math.exp are V8's port
 * of Sun's fdlibm (e_log.c, e_exp.c).  glibc's log and exp are just as
 * accurate (both under one ulp) but round differently in the last bit
 * on a few percent of arguments, and Clopper-Pearson's bisection and
 * the normal quantile's tail turn such a bit into a different bps figure
 * now and then, so a report digest would differ from the reference's.
 * This file computes the same algorithm with the same constants and the
 * same order of operations, so that every result is the same double.
 * It is compiled with -ffp-contract=off (Makefile): a fused multiply-add
 * would round once where fdlibm rounds twice.
 *
 * The algorithms (W. Kahan / K.C. Ng's, as fdlibm documents them):
 *
 * log(x): write x = 2^k (1 + f) with sqrt(2)/2 < 1 + f < sqrt(2); then
 * log(1 + f) = 2s + 2/3 s^3 + 2/5 s^5 + ... with s = f / (2 + f), the
 * tail by a degree-14 minimax polynomial in s (coefficients Lg1..Lg7),
 * and k ln2 added as a high part with trailing zeros (exact in k * hi)
 * and a low part.
 *
 * exp(x): reduce x = k ln2 + r with |r| <= ln2 / 2 (ln2 again in two
 * parts), approximate r (e^r + 1)/(e^r - 1) by a degree-10 minimax
 * polynomial in r (P1..P5), recover e^r, and scale by 2^k.
 *
 * The constants are the published fdlibm values, given as their bit
 * patterns so that no decimal conversion can move them.
 */
#include <stdint.h>
#include <string.h>

#include "gates.h"

static double
from_bits(uint64_t u)
{
	double	 d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

static uint64_t
to_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static double
with_high(double d, uint32_t hi)
{
	return from_bits((to_bits(d) & 0xffffffffULL) | (uint64_t)hi << 32);
}

#define HI(d)	((int32_t)(to_bits(d) >> 32))
#define LO(d)	((uint32_t)to_bits(d))

/* ln 2 split: hi has 32 trailing zero bits, so k * hi is exact. */
#define LN2_HI	from_bits(0x3fe62e42fee00000ULL)	/* 6.9314718036e-01 */
#define LN2_LO	from_bits(0x3dea39ef35793c76ULL)	/* 1.9082149293e-10 */
#define TWO54	from_bits(0x4350000000000000ULL)	/* 2^54 */

#define LG1	from_bits(0x3fe5555555555593ULL)
#define LG2	from_bits(0x3fd999999997fa04ULL)
#define LG3	from_bits(0x3fd2492494229359ULL)
#define LG4	from_bits(0x3fcc71c51d8e78afULL)
#define LG5	from_bits(0x3fc7466496cb03deULL)
#define LG6	from_bits(0x3fc39a09d078c69fULL)
#define LG7	from_bits(0x3fc2f112df3e5244ULL)

double
gates_js_log(double x)
{
	double	 f, s, z, w, t1, t2, r, hfsq, dk;
	int32_t	 hx, i, j, k;
	uint32_t lx;

	hx = HI(x);
	lx = LO(x);
	k = 0;
	if (hx < 0x00100000) {			/* x < 2^-1022 */
		if (((hx & 0x7fffffff) | lx) == 0)
			return -TWO54 / 0.0;	/* log(+-0) = -Infinity */
		if (hx < 0)
			return (x - x) / 0.0;	/* log(negative) = NaN */
		k -= 54;			/* subnormal: scale up */
		x *= TWO54;
		hx = HI(x);
	}
	if (hx >= 0x7ff00000)
		return x + x;			/* Infinity or NaN */
	k += (hx >> 20) - 1023;
	hx &= 0x000fffff;
	/* Normalise x or x/2 into [sqrt(2)/2, sqrt(2)). */
	i = (hx + 0x95f64) & 0x100000;
	x = with_high(x, (uint32_t)(hx | (i ^ 0x3ff00000)));
	k += i >> 20;
	f = x - 1.0;
	if ((0x000fffff & (2 + hx)) < 3) {	/* |f| < 2^-20 */
		if (f == 0.0) {
			if (k == 0)
				return 0.0;
			dk = (double)k;
			return dk * LN2_HI + dk * LN2_LO;
		}
		r = f * f * (0.5 - 0.33333333333333333 * f);
		if (k == 0)
			return f - r;
		dk = (double)k;
		return dk * LN2_HI - ((r - dk * LN2_LO) - f);
	}
	s = f / (2.0 + f);
	dk = (double)k;
	z = s * s;
	i = hx - 0x6147a;
	w = z * z;
	j = 0x6b851 - hx;
	t1 = w * (LG2 + w * (LG4 + w * LG6));
	t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
	i |= j;
	r = t2 + t1;
	if (i > 0) {
		hfsq = 0.5 * f * f;
		if (k == 0)
			return f - (hfsq - s * (hfsq + r));
		return dk * LN2_HI - ((hfsq - (s * (hfsq + r) +
		    dk * LN2_LO)) - f);
	}
	if (k == 0)
		return f - s * (f - r);
	return dk * LN2_HI - ((s * (f - r) - dk * LN2_LO) - f);
}

#define O_THRESHOLD	from_bits(0x40862e42fefa39efULL) /* 709.78... */
#define U_THRESHOLD	from_bits(0xc0874910d52d3051ULL) /* -745.13... */
#define INVLN2		from_bits(0x3ff71547652b82feULL)
#define TWOM1000	from_bits(0x0170000000000000ULL) /* 2^-1000 */
#define TWO1023		from_bits(0x7fe0000000000000ULL) /* 2^1023 */
#define HUGE_D		1.0e300

#define P1	from_bits(0x3fc555555555553eULL)
#define P2	from_bits(0xbf66c16c16bebd93ULL)
#define P3	from_bits(0x3f11566aaf25de2cULL)
#define P4	from_bits(0xbebbbd41c5d26bf1ULL)
#define P5	from_bits(0x3e66376972bea4d0ULL)

double
gates_js_exp(double x)
{
	double	 hi = 0.0, lo = 0.0, c, t, y, twopk;
	int32_t	 k = 0, xsb;
	uint32_t hx;

	hx = (uint32_t)HI(x);
	xsb = (hx >> 31) & 1;
	hx &= 0x7fffffff;

	if (hx >= 0x40862e42) {			/* |x| >= 709.78... */
		if (hx >= 0x7ff00000) {
			if (((hx & 0xfffff) | LO(x)) != 0)
				return x + x;	/* NaN */
			return xsb == 0 ? x : 0.0; /* exp(+-Infinity) */
		}
		if (x > O_THRESHOLD)
			return HUGE_D * HUGE_D;	/* overflow: Infinity */
		if (x < U_THRESHOLD)
			return TWOM1000 * TWOM1000; /* underflow: 0 */
	}

	if (hx > 0x3fd62e42) {			/* |x| > ln2 / 2 */
		if (hx < 0x3ff0a2b2) {		/* and |x| < 1.5 ln2 */
			/*
			 * V8 returns Math.E for exp(1), where the algorithm
			 * gives the next double up; so must we.
			 */
			if (x == 1.0)
				return from_bits(0x4005bf0a8b145769ULL);
			hi = xsb ? x + LN2_HI : x - LN2_HI;
			lo = xsb ? -LN2_LO : LN2_LO;
			k = 1 - xsb - xsb;
		} else {
			k = (int32_t)(INVLN2 * x + (xsb ? -0.5 : 0.5));
			t = (double)k;
			hi = x - t * LN2_HI;	/* exact: t * LN2_HI */
			lo = t * LN2_LO;
		}
		x = hi - lo;
	} else if (hx < 0x3e300000) {		/* |x| < 2^-28 */
		return 1.0 + x;
	} else
		k = 0;

	t = x * x;
	if (k >= -1021)
		twopk = from_bits((uint64_t)(0x3ff00000 + k * 0x100000) << 32);
	else
		twopk = from_bits((uint64_t)(0x3ff00000 + (k + 1000) *
		    0x100000) << 32);
	c = x - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
	if (k == 0)
		return 1.0 - ((x * c) / (c - 2.0) - x);
	y = 1.0 - ((lo - (x * c) / (2.0 - c)) - hi);
	if (k >= -1021) {
		if (k == 1024)
			return y * 2.0 * TWO1023;
		return y * twopk;
	}
	return y * twopk * TWOM1000;
}
