/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * stats_bootstrap.c: the seeded percentile bootstrap of a mean paired
 * difference (interop.md §G9.7).  Every draw, sum and order statistic is the
 * reference's, so the same seed gives the same interval bit for bit.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "gates.h"

/*
 * mulberry32 as the reference runs it: 32-bit wrap-around arithmetic
 * (Math.imul is the low half of the product, and ToInt32/ToUint32 of the
 * sums are mod 2^32, so unsigned C arithmetic gives the same bits).  The
 * draw is the uint32 itself, not scaled to [0, 1).  Seed 0 stays 0.
 */
static uint32_t
mulberry32(uint32_t *state)
{
	uint32_t	 t;

	*state += 0x6d2b79f5U;
	t = *state;
	t = (t ^ (t >> 15)) * (t | 1);
	t ^= t + (t ^ (t >> 7)) * (t | 61);
	return t ^ (t >> 14);
}

/*
 * An unbiased index in [0, n): draws in the incomplete top block of the
 * 2^32 range are rejected, as many draws as that takes.
 */
static size_t
uniform_index(uint32_t *state, uint64_t n)
{
	uint64_t	 limit, draw;

	limit = (UINT64_C(1) << 32) / n * n;
	for (;;) {
		draw = mulberry32(state);
		if (draw < limit)
			return (size_t)(draw % n);
	}
}

/* Float64Array.prototype.sort: ascending; the means hold no NaN or -0. */
static int
cmp_double(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
gates_bootstrap_paired_mean(const double *differences, size_t ndiff,
    double level_bps, double seed, double resamples, const double *bounds,
    size_t nbounds, double *work, size_t nwork,
    struct gates_bps_interval *out, char *err, size_t errlen)
{
	double		 z, tail, sum, estimate, low, high, n, *means;
	size_t		 i, r, nres, t;
	uint32_t	 state;
	int		 rc;

	/* The reference's order of checks, so the first failure's message. */
	if ((rc = gates_two_sided_z(level_bps, &z, err, errlen)) != 0)
		return rc;
	if (bounds == NULL || nbounds != 2 || !isfinite(bounds[0]) ||
	    !isfinite(bounds[1]) || bounds[0] < -1 || bounds[1] > 1 ||
	    bounds[0] >= bounds[1])
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "bounds must be finite with -1 <= min < max <= 1");
	if (differences == NULL || ndiff < 2)
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "bootstrap requires at least two paired differences");
	for (i = 0; i < ndiff; i++)
		if (!isfinite(differences[i]) || differences[i] < bounds[0] ||
		    differences[i] > bounds[1])
			return gates_stats_error(err, errlen,
			    GATES_STATS_INVALID, "paired differences must be "
			    "finite and within bounds");
	if (!gates_js_is_safe_integer(seed) || seed < 0 || seed > 0xffffffffU)
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "seed must be an unsigned 32-bit integer");
	tail = gates_js_is_safe_integer(resamples) ?
	    floor(resamples * (10000 - level_bps) / 20000) : 0;
	if (!gates_js_is_safe_integer(resamples) ||
	    resamples > GATES_BOOTSTRAP_MAX_RESAMPLES || tail < 5)
		return gates_stats_error(err, errlen, GATES_STATS_INVALID,
		    "resamples must be an integer <= 1000000 leaving at least "
		    "5 per tail");
	/* The reference's index draw cannot end for n > 2^32 either. */
	if (ndiff > UINT32_MAX)
		return gates_stats_error(err, errlen, GATES_STATS_LIMIT,
		    "bootstrap: more than 2^32 paired differences");

	nres = (size_t)resamples;
	t = (size_t)tail;
	if (work != NULL && nwork < nres)
		return gates_stats_error(err, errlen, GATES_STATS_LIMIT,
		    "bootstrap: the work buffer is shorter than resamples");
	if ((means = work) == NULL &&
	    (means = calloc(nres, sizeof(*means))) == NULL)
		return gates_stats_error(err, errlen, GATES_STATS_NOMEM,
		    "bootstrap: cannot allocate the resample means");

	n = (double)ndiff;
	state = (uint32_t)seed;
	for (r = 0; r < nres; r++) {
		sum = 0;
		for (i = 0; i < ndiff; i++)
			sum += differences[uniform_index(&state, ndiff)];
		means[r] = sum / n;
	}
	qsort(means, nres, sizeof(*means), cmp_double);

	sum = 0;
	for (i = 0; i < ndiff; i++)
		sum += differences[i];
	estimate = sum / n;
	low = gates_js_min(means[t - 1], estimate);
	high = gates_js_max(means[nres - t], estimate);
	if (means != work)
		free(means);
	return gates_to_bps_interval(low, high, estimate, n,
	    GATES_METHOD_BOOTSTRAP, out, err, errlen);
}
