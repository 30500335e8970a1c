/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * gates_stats_bench: time the percentile bootstrap of a bootstrap-bound
 * gate in process, for regress/bench/b_gates.sh.
 *
 *	gates_stats_bench RESAMPLES [NDIFF [RUNS]]
 *
 * NDIFF differences (default 1000) from a fixed formula that
 * regress/gates-stats-ref.mjs reproduces, level 9500, seed 7; one
 * untimed run, then RUNS (default 5) timed ones.  One line:
 *
 *	c resamples R n N runs K median MS min MS bps LOWER/UPPER/EST
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common.h"
#include "gates/gates.h"

static double
now_ms(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		fatal("clock_gettime");
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static long
number(const char *s, long lo, long hi, const char *what)
{
	const char	*errstr;
	long		 v;

	v = strtonum(s, lo, hi, &errstr);
	if (errstr != NULL)
		fatalx("%s \"%s\" is %s", what, s, errstr);
	return v;
}

int
main(int argc, char *argv[])
{
	struct gates_bps_interval	 iv;
	static const double		 bounds[2] = { -1, 1 };
	char				 err[GATES_STATS_ERRSZ];
	double				*d, *work, *ms, t0;
	long				 res, n = 1000, runs = 5, i;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: gates_stats_bench RESAMPLES "
		    "[NDIFF [RUNS]]\n");
		return 2;
	}
	res = number(argv[1], 1, GATES_BOOTSTRAP_MAX_RESAMPLES, "resamples");
	if (argc > 2)
		n = number(argv[2], 2, 4096, "differences");
	if (argc > 3)
		runs = number(argv[3], 1, 1000, "runs");
	d = xcalloc(n, sizeof(*d));
	work = xcalloc(res, sizeof(*work));
	ms = xcalloc(runs, sizeof(*ms));
	/* Spread over [-0.5, 0.5] in a scrambled order, exact in binary. */
	for (i = 0; i < n; i++)
		d[i] = (double)((i * 7919) % 1024 - 512) / 1024;

	for (i = -1; i < runs; i++) {
		t0 = now_ms();
		if (gates_bootstrap_paired_mean(d, n, 9500, 7, res, bounds, 2,
		    work, res, &iv, err, sizeof(err)) != 0)
			fatalx("bootstrap: %s", err);
		if (i >= 0)
			ms[i] = now_ms() - t0;
	}
	qsort(ms, runs, sizeof(*ms), cmp_double);
	printf("c resamples %ld n %ld runs %ld median %.2f ms min %.2f ms "
	    "bps %g/%g/%g\n", res, n, runs, ms[runs / 2], ms[0], iv.lower_bps,
	    iv.upper_bps, iv.estimate_bps);
	free(d);
	free(work);
	free(ms);
	return 0;
}
