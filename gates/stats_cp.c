/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * stats_cp.c: the Clopper-Pearson exact interval of a binomial proportion
 * (interop.md §G9.3): each bound inverts the exact binomial tail by
 * bisection, rounding outward.
 */
#include <math.h>
#include <stdlib.h>

#include "gates.h"

/* exp() of anything below this is +0 in IEEE double (and in V8). */
#define EXP_UNDERFLOW	-746.0

/*
 * P(X >= k0) for X ~ Binomial(n, p), summed in log space relative to the
 * largest term so that large n neither underflows nor overflows.  lf[i]
 * is ln(i!) as the reference builds it, a running sum of ln(i); the
 * reference rebuilds it on every call, but it is the same table every
 * time, so one per interval gives the same bits.  The terms are computed
 * twice (for the peak, then for the sum) rather than stored: the same
 * expression gives the same value, and no second n-sized buffer is
 * needed.  A term whose exp() underflows to +0 adds nothing, so its exp()
 * is skipped.
 */
static double
upper_tail(double k0, double n, double p, const double *lf)
{
	double	 logp, logq, term, peak, sum, k;

	if (p <= 0)
		return k0 <= 0 ? 1 : 0;
	if (p >= 1)
		return k0 <= n ? 1 : 0;
	logp = gates_js_log(p);
	logq = gates_js_log(1 - p);
	peak = -INFINITY;
	for (k = k0; k <= n; k++) {
		term = lf[(size_t)n] - lf[(size_t)k] - lf[(size_t)(n - k)] +
		    k * logp + (n - k) * logq;
		if (term > peak)
			peak = term;
	}
	sum = 0;
	for (k = k0; k <= n; k++) {
		term = lf[(size_t)n] - lf[(size_t)k] - lf[(size_t)(n - k)] +
		    k * logp + (n - k) * logq;
		if (term - peak >= EXP_UNDERFLOW)
			sum += gates_js_exp(term - peak);
	}
	return gates_js_min(1, sum * gates_js_exp(peak));
}

/*
 * P(X >= events | p) rises from 0 to 1 with p; the loop keeps below under
 * the root and returns it, so the lower bound rounds down.
 */
static double
solve_lower(double events, double n, double tail, const double *lf)
{
	double	 below = 0, above = 1, mid;
	int	 i;

	for (i = 0; i < 200; i++) {
		mid = (below + above) / 2;
		if (mid == below || mid == above)
			break;
		if (upper_tail(events, n, mid, lf) > tail)
			above = mid;
		else
			below = mid;
	}
	return below;
}

/*
 * P(X <= events | p) = 1 - P(X >= events + 1 | p) falls from 1 to 0; the
 * loop keeps above over the root and returns it, so the upper bound
 * rounds up.
 */
static double
solve_upper(double events, double n, double tail, const double *lf)
{
	double	 below = 0, above = 1, mid;
	int	 i;

	for (i = 0; i < 200; i++) {
		mid = (below + above) / 2;
		if (mid == below || mid == above)
			break;
		if (1 - upper_tail(events + 1, n, mid, lf) > tail)
			below = mid;
		else
			above = mid;
	}
	return above;
}

/* The reference checks the counts before the level, unlike Wilson. */
int
gates_clopper_pearson(const struct gates_cp_input *in, double *lower,
    double *upper, char *err, size_t errlen)
{
	double	*lf, tail, events, n, lo, hi, z;
	size_t	 i;
	int	 rc;

	if (in == NULL)
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "clopper-pearson interval input is required");
	events = in->events;
	n = in->n;
	if (!gates_js_is_count(events) || !gates_js_is_count(n) || n == 0 ||
	    events > n)
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "clopper-pearson interval requires integer counts with "
		    "0 <= events <= n and n > 0");
	/* The level rule and message are twoSidedZ's; z itself is unused. */
	if ((rc = gates_two_sided_z(in->level_bps, &z, err, errlen)) != 0)
		return rc;
	if (in->sided != GATES_CP_TWO_SIDED && in->sided != GATES_CP_LOWER &&
	    in->sided != GATES_CP_UPPER)
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "clopper-pearson sided must be two-sided, lower or upper");
	if (n > GATES_CP_MAX_N)
		return gates_stats_error(err, errlen, GATES_STATS_LIMIT,
		    "clopper-pearson n above 10000000 is beyond this "
		    "engine's bound");

	/* A one-sided bound puts the whole of 1 - level in its tail. */
	if (in->sided == GATES_CP_TWO_SIDED)
		tail = (10000 - in->level_bps) / 20000;
	else
		tail = (10000 - in->level_bps) / 10000;

	if ((lf = calloc((size_t)n + 1, sizeof(*lf))) == NULL)
		return gates_stats_error(err, errlen, GATES_STATS_NOMEM,
		    "clopper-pearson: cannot allocate the log-factorial table");
	lf[0] = 0;
	for (i = 1; i <= (size_t)n; i++)
		lf[i] = lf[i - 1] + gates_js_log((double)i);

	lo = 0;
	hi = 1;
	if (in->sided != GATES_CP_UPPER && events != 0)
		lo = solve_lower(events, n, tail, lf);
	if (in->sided != GATES_CP_LOWER && events != n)
		hi = solve_upper(events, n, tail, lf);
	free(lf);
	*lower = lo;
	*upper = hi;
	return GATES_STATS_OK;
}
