/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * stats_paired.c: intervals for the difference of two paired proportions
 * (interop.md §G9.4-§G9.6): Newcombe's method 10 and Tango's score interval,
 * their conversion to basis points, and the non-inferiority verdict.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "gates.h"

struct cells {
	double		 e, f, g, h, n;
	int		 full;		/* e and h known */
};

static const char *const method_names[] = {
	[GATES_METHOD_NEWCOMBE] = "newcombe-hybrid-score",
	[GATES_METHOD_TANGO] = "tango-score",
	[GATES_METHOD_BOOTSTRAP] = "percentile-bootstrap",
};

const char *
gates_method_name(int method)
{
	if (method < 0 || (size_t)method >= sizeof(method_names) /
	    sizeof(method_names[0]))
		return NULL;
	return method_names[method];
}

/* pairedCells: one form or the other, counts that are safe integers. */
static int
paired_cells(const struct gates_paired_counts *pc, struct cells *c,
    char *err, size_t errlen)
{
	if (pc == NULL)
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "paired counts are required");
	if (pc->form == GATES_PAIRED_TABLE) {
		if (!gates_js_is_count(pc->both) ||
		    !gates_js_is_count(pc->candidate_only) ||
		    !gates_js_is_count(pc->baseline_only) ||
		    !gates_js_is_count(pc->neither))
			return gates_stats_error(err, errlen,
			    GATES_STATS_INVALID, "paired cell counts must be "
			    "non-negative safe integers");
		c->n = pc->both + pc->candidate_only + pc->baseline_only +
		    pc->neither;
		if (c->n == 0 || !gates_js_is_safe_integer(c->n))
			return gates_stats_error(err, errlen,
			    GATES_STATS_INVALID, "paired table requires n > 0");
		c->e = pc->both;
		c->f = pc->candidate_only;
		c->g = pc->baseline_only;
		c->h = pc->neither;
		c->full = 1;
		return GATES_STATS_OK;
	}
	if (pc->form == GATES_PAIRED_DISCORDANT) {
		if (!gates_js_is_count(pc->b) || !gates_js_is_count(pc->c) ||
		    !gates_js_is_count(pc->n) || pc->n == 0 ||
		    pc->b + pc->c > pc->n)
			return gates_stats_error(err, errlen,
			    GATES_STATS_INVALID, "discordant counts require "
			    "non-negative integers with b + c <= n and n > 0");
		c->e = c->h = NAN;
		c->f = pc->b;
		c->g = pc->c;
		c->n = pc->n;
		c->full = 0;
		return GATES_STATS_OK;
	}
	return gates_stats_error(err, errlen, GATES_STATS_INVALID,
	    "provide either the full paired table or discordant b, c and n");
}

/*
 * Outward rounding: a reported bound is never tighter than the computed
 * one.  The estimate uses Math.round, whose halves go up (-2.5 is -2).
 */
int
gates_to_bps_interval(double low, double high, double estimate, double n,
    int method, struct gates_bps_interval *out, char *err, size_t errlen)
{
	if (!isfinite(low) || !isfinite(high) || !isfinite(estimate) ||
	    low > estimate || estimate > high)
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "paired interval computation was not finite and ordered");
	out->lower_bps = gates_js_max(-10000, floor(low * 10000));
	out->upper_bps = gates_js_min(10000, ceil(high * 10000));
	out->estimate_bps = gates_js_round(estimate * 10000);
	out->n = n;
	out->method = method;
	out->low = low;
	out->high = high;
	out->estimate = estimate;
	return GATES_STATS_OK;
}

/*
 * Newcombe (1998) method 10: square-and-add of the two marginals' Wilson
 * intervals, with the correlation's numerator shrunk by n/2 when positive.
 * (x) ** 2 in the reference is x * x: V8's pow special-cases exponent 2,
 * and both are the correctly rounded square.
 */
static int
newcombe(const struct cells *c, double z, double estimate,
    struct gates_bps_interval *out, char *err, size_t errlen)
{
	double	 e = c->e, f = c->f, g = c->g, h = c->h, n = c->n;
	double	 p1, p2, l1, u1, l2, u2, den, cross, phi, delta, epsilon;
	double	 a, b;

	p1 = (e + f) / n;
	p2 = (e + g) / n;
	gates_wilson_score(e + f, n, z, &l1, &u1);
	gates_wilson_score(e + g, n, z, &l2, &u2);
	den = sqrt((e + f) * (g + h) * (e + g) * (f + h));
	cross = e * h - f * g;
	if (den == 0)
		phi = 0;
	else if (cross > 0)
		phi = gates_js_max(cross - n / 2, 0) / den;
	else
		phi = cross / den;
	a = p1 - l1;
	b = u2 - p2;
	delta = sqrt(gates_js_max(0, a * a - 2 * phi * a * b + b * b));
	a = u1 - p1;
	b = p2 - l2;
	epsilon = sqrt(gates_js_max(0, a * a - 2 * phi * a * b + b * b));
	return gates_to_bps_interval(gates_js_max(-1, estimate - delta),
	    gates_js_min(1, estimate + epsilon), estimate, n,
	    GATES_METHOD_NEWCOMBE, out, err, errlen);
}

/*
 * Tango's (1998) score statistic at a hypothesised difference delta; it
 * decreases in delta.  The restricted MLE of the baseline-only cell is
 * closed form (q21).
 */
static double
tango_statistic(double b, double c, double n, double delta)
{
	double	 bb, q21, num, var;

	bb = -b - c + (2 * n - b + c) * delta;
	q21 = (sqrt(gates_js_max(0, bb * bb + 8 * n * c * delta *
	    (1 - delta))) - bb) / (4 * n);
	num = b - c - n * delta;
	var = n * (2 * q21 + delta * (1 - delta));
	if (num == 0)
		return 0;
	return var > 0 ? num / sqrt(var) : num * INFINITY;
}

/*
 * Each search keeps outer outside the acceptance region and returns it,
 * so rounding only widens.  upper selects the rejection side: T < -z
 * beyond the upper bound, T > z below the lower.
 */
static double
tango_search(double b, double c, double n, double z, double outer,
    double inner, int upper)
{
	double	 mid, t;
	int	 i, rejects;

	for (i = 0; i < 200; i++) {
		mid = (outer + inner) / 2;
		if (mid == outer || mid == inner)
			break;
		t = tango_statistic(b, c, n, mid);
		rejects = upper ? t < -z : t > z;
		if (rejects)
			outer = mid;
		else
			inner = mid;
	}
	return outer;
}

/* Level first, then the counts, then the method: the reference's order. */
int
gates_paired_difference(const struct gates_paired_counts *counts,
    double level_bps, int method, struct gates_bps_interval *out,
    char *err, size_t errlen)
{
	struct cells	 c;
	double		 z, estimate, low, high;
	int		 rc;

	/* gcc cannot see that an error return is never 0. */
	memset(&c, 0, sizeof(c));
	if ((rc = gates_two_sided_z(level_bps, &z, err, errlen)) != 0)
		return rc;
	if ((rc = paired_cells(counts, &c, err, errlen)) != 0)
		return rc;
	estimate = (c.f - c.g) / c.n;
	if (method == GATES_PAIRED_TANGO) {
		low = estimate == -1 ? -1 :
		    tango_search(c.f, c.g, c.n, z, -1, estimate, 0);
		high = estimate == 1 ? 1 :
		    tango_search(c.f, c.g, c.n, z, 1, estimate, 1);
		return gates_to_bps_interval(low, high, estimate, c.n,
		    GATES_METHOD_TANGO, out, err, errlen);
	}
	if (method != GATES_PAIRED_NEWCOMBE10)
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "unknown paired interval method");
	if (!c.full)
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "newcombe method 10 requires the full paired table");
	return newcombe(&c, z, estimate, out, err, errlen);
}

/* A figure of a well-formed interval: a safe integer within +-10000. */
static int
bps_ok(double v)
{
	return gates_js_is_safe_integer(v) && v >= -10000 && v <= 10000;
}

/*
 * A malformed interval is never a pass: it is a verdict of its own, while
 * a bad margin is the caller's error (load validation keeps it in range).
 */
int
gates_paired_noninferiority(const struct gates_bps_interval *iv,
    double margin_bps, int *decision, const char **reason, char *err,
    size_t errlen)
{
	if (!gates_js_is_safe_integer(margin_bps) || margin_bps > 0 ||
	    margin_bps < -10000)
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "marginBps must be an integer in [-10000, 0]");
	if (iv == NULL || !bps_ok(iv->lower_bps) || !bps_ok(iv->upper_bps) ||
	    !bps_ok(iv->estimate_bps) || !gates_js_is_safe_integer(iv->n) ||
	    iv->n <= 0 || iv->lower_bps > iv->estimate_bps ||
	    iv->estimate_bps > iv->upper_bps ||
	    iv->method < GATES_METHOD_NEWCOMBE ||
	    iv->method > GATES_METHOD_BOOTSTRAP) {
		*decision = GATES_NI_INSUFFICIENT;
		*reason = "invalid-interval";
	} else if (iv->lower_bps >= margin_bps) {
		*decision = GATES_NI_NON_INFERIOR;
		*reason = "lower-bound-at-or-above-margin";
	} else {
		*decision = GATES_NI_NOT_NON_INFERIOR;
		*reason = "lower-bound-below-margin";
	}
	return GATES_STATS_OK;
}
