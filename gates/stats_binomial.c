/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * stats_binomial.c: the Wilson score interval of a binomial proportion
 * (interop.md §G9.2) and the bps figures of an interval-bound gate (8.4).
 */
#include <math.h>

#include "gates.h"

/*
 * The reference's expression order, which C's left-to-right grouping of
 * the same operators reproduces: z * z / n is (z * z) / n.
 */
void
gates_wilson_score(double events, double n, double z, double *lower,
    double *upper)
{
	double	 rate, den, center, margin;

	rate = events / n;
	den = 1 + z * z / n;
	center = (rate + z * z / (2 * n)) / den;
	margin = z * sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / den;
	*lower = gates_js_max(0, center - margin);
	*upper = gates_js_min(1, center + margin);
}

/* The level is checked before the counts, as the reference does. */
int
gates_wilson_interval(double events, double n, double level_bps,
    double *lower, double *upper, char *err, size_t errlen)
{
	double	 z;
	int	 rc;

	if ((rc = gates_two_sided_z(level_bps, &z, err, errlen)) != 0)
		return rc;
	if (!gates_js_is_count(events) || !gates_js_is_count(n) || n == 0 ||
	    events > n)
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "wilson interval requires integer counts with "
		    "0 <= events <= n and n > 0");
	gates_wilson_score(events, n, z, lower, upper);
	return GATES_STATS_OK;
}

/*
 * Outward: the reported bounds never claim more than the computed ones.
 * floor and ceil apply to the double products, which are not exact, so
 * the figures depend on the last bit of lower and upper (spec 9.8).
 */
void
gates_proportion_bps(double lower, double upper, double events, double n,
    double *lower_bps, double *upper_bps, double *estimate_bps)
{
	*lower_bps = gates_js_max(0, floor(lower * 10000));
	*upper_bps = gates_js_min(10000, ceil(upper * 10000));
	*estimate_bps = gates_js_round(events / n * 10000);
}
