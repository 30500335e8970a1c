/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * stats_js.c: the JavaScript number semantics the gate statistics must
 * reproduce to give the reference's results bit for bit (interop.md §G9.8),
 * and the one way the statistics report an error.
 */
#include <math.h>
#include <string.h>

#include "gates.h"

/* Number.MAX_SAFE_INTEGER, 2^53 - 1. */
#define JS_MAX_SAFE	9007199254740991.0

/*
 * Math.round: the integer nearest x, halves toward +Infinity, so -2.5
 * gives -2 where C's round() gives -3.  floor(x + 0.5) is wrong twice
 * (0.49999999999999994 + 0.5 rounds up to 1, and so do large odd values
 * near 2^52), so take the fraction instead: x - floor(x) is exact here
 * (Sterbenz for |x| >= 1, and for -1 < x < 0 an inexact x + 1 can only
 * round within [0.5, 1)).  A zero result keeps x's sign, as Math.round
 * gives -0 for -0.5 <= x <= -0.
 */
double
gates_js_round(double x)
{
	double	 r;

	if (!isfinite(x))
		return x;
	r = floor(x);
	if (x - r >= 0.5)
		r += 1.0;
	if (r == 0.0)
		return signbit(x) ? -0.0 : 0.0;
	return r;
}

/*
 * Math.min and Math.max: NaN wins, and -0 is below +0.  fmin/fmax would
 * drop a NaN and may return either zero.
 */
double
gates_js_min(double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == b)
		return signbit(a) ? a : b;
	return a < b ? a : b;
}

double
gates_js_max(double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == b)
		return signbit(a) ? b : a;
	return a > b ? a : b;
}

/* Number.isSafeInteger; -0 is one. */
int
gates_js_is_safe_integer(double x)
{
	return isfinite(x) && floor(x) == x && fabs(x) <= JS_MAX_SAFE;
}

/* The reference's isCount: a safe integer that is not negative. */
int
gates_js_is_count(double x)
{
	return gates_js_is_safe_integer(x) && x >= 0;
}

int
gates_stats_error(char *err, size_t errlen, int code, const char *msg)
{
	if (err != NULL && errlen > 0)
		strlcpy(err, msg, errlen);
	return code;
}
