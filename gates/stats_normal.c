/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * stats_normal.c: the standard normal quantile and the z of a two-sided
 * level (interop.md §G9.1).  Acklam's rational approximation without the
 * refinement step, because that is what the reference computes: the
 * refined value is closer to the true quantile and would therefore give
 * different bounds.
 */
#include <math.h>

#include "gates.h"

static const double acklam_a[6] = {
	-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
	1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00
};
static const double acklam_b[5] = {
	-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
	6.680131188771972e+01, -1.328068155288572e+01
};
static const double acklam_c[6] = {
	-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
	-2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00
};
static const double acklam_d[4] = {
	7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
	3.754408661907416e+00
};

/* The break point between the central and the tail approximations. */
#define ACKLAM_PLOW	0.02425

/* Both tails, in Horner order as the reference writes them. */
static double
acklam_tail(double q)
{
	const double	*c = acklam_c, *d = acklam_d;

	return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q +
	    c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
}

int
gates_normal_quantile(double p, double *z, char *err, size_t errlen)
{
	const double	*a = acklam_a, *b = acklam_b;
	double		 q, r;

	if (!isfinite(p) || p <= 0 || p >= 1)
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "normal quantile requires 0 < p < 1");
	if (p < ACKLAM_PLOW) {
		*z = acklam_tail(sqrt(-2 * gates_js_log(p)));
		return GATES_STATS_OK;
	}
	if (p > 1 - ACKLAM_PLOW) {
		*z = -acklam_tail(sqrt(-2 * gates_js_log(1 - p)));
		return GATES_STATS_OK;
	}
	q = p - 0.5;
	r = q * q;
	*z = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r +
	    a[5]) * q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r +
	    b[4]) * r + 1);
	return GATES_STATS_OK;
}

/*
 * Levels of 5000 or less would put the interval on one side of the
 * estimate, and 9999 or more make a tail too thin to mean anything; the
 * reference refuses both, and so does every caller of this.
 */
int
gates_two_sided_z(double level_bps, double *z, char *err, size_t errlen)
{
	if (!gates_js_is_safe_integer(level_bps) || level_bps <= 5000 ||
	    level_bps >= 9999)
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "levelBps must be an integer strictly between 5000 and "
		    "9999");
	return gates_normal_quantile((10000 + level_bps) / 20000, z, err,
	    errlen);
}
