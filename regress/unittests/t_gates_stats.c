/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_gates_stats: the gate statistics (interop.md §G9) against the vectors
 * the reference's tests assert (12.1, with their tolerances), the values
 * the spec's author computed by reimplementation (12.2, exact figures),
 * the reference's error messages in its order of checks, and JavaScript's
 * rounding.  regress/gates-stats.sh compares a grid with Python and SciPy
 * at test time.
 */
#include <atf-c.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gates/gates.h"

#define TWO53	9007199254740992.0	/* 2^53: the first unsafe integer */

static char	 err[GATES_STATS_ERRSZ];

/* want == got to within tol, with both printed in full when not. */
#define CHECK_NEAR(got, want, tol) \
	ATF_CHECK_MSG(fabs((got) - (want)) < (tol), \
	    "%s: got %.17g, want %.17g within %g", #got, (double)(got), \
	    (double)(want), (double)(tol))

/* A call that must fail with code and exactly the reference's message. */
#define CHECK_ERR(call, code, msg) do { \
	memset(err, 0, sizeof(err)); \
	ATF_CHECK_EQ_MSG((call), (code), "%s did not fail", #call); \
	ATF_CHECK_STREQ_MSG(err, (msg), "%s", #call); \
} while (0)

static const char LEVEL_MSG[] =
    "levelBps must be an integer strictly between 5000 and 9999";

/* ---- JavaScript rounding ------------------------------------------- */

ATF_TC_WITHOUT_HEAD(js_round);
ATF_TC_BODY(js_round, tc)
{
	/* Halves go toward +Infinity (9.8): -2.5 is -2, C's round() -3. */
	ATF_CHECK_EQ(gates_js_round(-2.5), -2);
	ATF_CHECK(round(-2.5) == -3);
	ATF_CHECK_EQ(gates_js_round(2.5), 3);
	ATF_CHECK_EQ(gates_js_round(-0.5), 0);
	ATF_CHECK(signbit(gates_js_round(-0.5)));
	ATF_CHECK(signbit(gates_js_round(-0.2)));
	ATF_CHECK(!signbit(gates_js_round(0.2)));
	ATF_CHECK_EQ(gates_js_round(-3.5), -3);
	ATF_CHECK_EQ(gates_js_round(-2.5000000000000004), -3);
	ATF_CHECK_EQ(gates_js_round(1.4999999999999998), 1);
	/* floor(x + 0.5) gets these two wrong. */
	ATF_CHECK_EQ(gates_js_round(0.49999999999999994), 0);
	ATF_CHECK_EQ(gates_js_round(4503599627370497.0), 4503599627370497.0);
	ATF_CHECK_EQ(gates_js_round(-4503599627370497.0), -4503599627370497.0);
	ATF_CHECK(isnan(gates_js_round(NAN)));
	ATF_CHECK(isinf(gates_js_round(-INFINITY)));

	ATF_CHECK(signbit(gates_js_min(0.0, -0.0)));
	ATF_CHECK(signbit(gates_js_min(-0.0, 0.0)));
	ATF_CHECK(!signbit(gates_js_max(-0.0, 0.0)));
	ATF_CHECK(!signbit(gates_js_max(0.0, -0.0)));
	ATF_CHECK(isnan(gates_js_max(0, NAN)));
	ATF_CHECK(isnan(gates_js_min(NAN, 1)));
	ATF_CHECK_EQ(gates_js_max(-1, -2), -1);
	ATF_CHECK_EQ(gates_js_min(-1, -2), -2);

	ATF_CHECK(gates_js_is_safe_integer(TWO53 - 1));
	ATF_CHECK(gates_js_is_safe_integer(-(TWO53 - 1)));
	ATF_CHECK(!gates_js_is_safe_integer(TWO53));
	ATF_CHECK(!gates_js_is_safe_integer(1.5));
	ATF_CHECK(!gates_js_is_safe_integer(NAN));
	ATF_CHECK(!gates_js_is_safe_integer(INFINITY));
	ATF_CHECK(gates_js_is_safe_integer(-0.0));
	ATF_CHECK(gates_js_is_count(-0.0));
	ATF_CHECK(!gates_js_is_count(-1));
}

/* ---- normal quantile ------------------------------------------------ */

static double
z_of(double level)
{
	double	 z;

	ATF_REQUIRE_EQ_MSG(gates_two_sided_z(level, &z, err, sizeof(err)), 0,
	    "level %g: %s", level, err);
	return z;
}

ATF_TC_WITHOUT_HEAD(normal_quantile);
ATF_TC_BODY(normal_quantile, tc)
{
	double	 z;

	/* 12.1: to 8 decimals (vitest's toBeCloseTo(x, 8): < 5e-9). */
	ATF_REQUIRE_EQ(gates_normal_quantile(0.975, &z, err, sizeof(err)), 0);
	CHECK_NEAR(z, 1.959963984540054, 5e-9);
	/* 9.1 (computed): the central branch's value, not the exact z. */
	ATF_CHECK_EQ(z, 1.959963986120195);
	ATF_CHECK(z != 1.959963984540054);
	ATF_CHECK_EQ(z_of(9500), z);
	/* Symmetric in p for the central branch, by construction. */
	ATF_REQUIRE_EQ(gates_normal_quantile(0.025, &z, err, sizeof(err)), 0);
	CHECK_NEAR(z, -1.959963984540054, 1e-8);

	/* 12.2 (computed): z at levels, through both branches. */
	ATF_CHECK_EQ(z_of(9000), 1.644853625133699);
	ATF_CHECK_EQ(z_of(5001), 0.6746471018263756);
	ATF_CHECK_EQ(z_of(9900), 2.5758293064439264);
	ATF_CHECK_EQ(z_of(9998), 3.719016482125131);
	/* Beyond 9515 the upper-tail branch: still within Acklam's error. */
	CHECK_NEAR(z_of(9900), 2.5758293035489, 2.6 * 1.15e-9);
	CHECK_NEAR(z_of(9998), 3.7190164854557084, 3.8 * 1.15e-9);
	/* The lower tail of the function itself. */
	ATF_REQUIRE_EQ(gates_normal_quantile(0.001, &z, err, sizeof(err)), 0);
	CHECK_NEAR(z, -3.090232306167813, 3.1 * 1.15e-9);

	CHECK_ERR(gates_normal_quantile(0, &z, err, sizeof(err)),
	    GATES_STATS_INVALID, "normal quantile requires 0 < p < 1");
	CHECK_ERR(gates_normal_quantile(1, &z, err, sizeof(err)),
	    GATES_STATS_INVALID, "normal quantile requires 0 < p < 1");
	CHECK_ERR(gates_normal_quantile(NAN, &z, err, sizeof(err)),
	    GATES_STATS_INVALID, "normal quantile requires 0 < p < 1");
	CHECK_ERR(gates_normal_quantile(-INFINITY, &z, err, sizeof(err)),
	    GATES_STATS_INVALID, "normal quantile requires 0 < p < 1");

	CHECK_ERR(gates_two_sided_z(5000, &z, err, sizeof(err)),
	    GATES_STATS_INVALID, LEVEL_MSG);
	CHECK_ERR(gates_two_sided_z(9999, &z, err, sizeof(err)),
	    GATES_STATS_INVALID, LEVEL_MSG);
	CHECK_ERR(gates_two_sided_z(9500.5, &z, err, sizeof(err)),
	    GATES_STATS_INVALID, LEVEL_MSG);
	CHECK_ERR(gates_two_sided_z(NAN, &z, err, sizeof(err)),
	    GATES_STATS_INVALID, LEVEL_MSG);
	CHECK_ERR(gates_two_sided_z(-9500, &z, err, sizeof(err)),
	    GATES_STATS_INVALID, LEVEL_MSG);
	/* A NULL buffer is allowed, and a short one truncates. */
	ATF_CHECK_EQ(gates_two_sided_z(5000, &z, NULL, 0),
	    GATES_STATS_INVALID);
	ATF_CHECK_EQ(gates_two_sided_z(5000, &z, err, 9), GATES_STATS_INVALID);
	ATF_CHECK_STREQ(err, "levelBps");
}

/* ---- Wilson --------------------------------------------------------- */

struct prop_vec {
	double		 events, n, level;
	double		 lower, upper, estimate;	/* bps */
};

static void
check_wilson_bps(const struct prop_vec *v, size_t nv)
{
	double	 lo, hi, lb, ub, eb;
	size_t	 i;

	for (i = 0; i < nv; i++) {
		if (gates_wilson_interval(v[i].events, v[i].n, v[i].level, &lo,
		    &hi, err, sizeof(err)) != 0) {
			atf_tc_fail_nonfatal("wilson %g/%g: %s", v[i].events,
			    v[i].n, err);
			continue;
		}
		gates_proportion_bps(lo, hi, v[i].events, v[i].n, &lb, &ub,
		    &eb);
		ATF_CHECK_MSG(lb == v[i].lower && ub == v[i].upper &&
		    eb == v[i].estimate, "wilson %g/%g @%g: %g/%g/%g, want "
		    "%g/%g/%g", v[i].events, v[i].n, v[i].level, lb, ub, eb,
		    v[i].lower, v[i].upper, v[i].estimate);
	}
}

ATF_TC_WITHOUT_HEAD(wilson);
ATF_TC_BODY(wilson, tc)
{
	/* 12.2: the fixture report and its breaches, and D29's figures. */
	static const struct prop_vec v[] = {
		{ 0, 2000, 9500, 0, 20, 0 },
		{ 1000, 2000, 9500, 4781, 5219, 5000 },
		{ 12, 2000, 9500, 34, 105, 60 },
		{ 6, 2000, 9500, 13, 66, 30 },
		{ 600, 2000, 9500, 2803, 3205, 3000 },
		{ 200, 2000, 9500, 876, 1140, 1000 },
		{ 1, 2001, 9500, 0, 29, 5 },
		{ 11, 2001, 9500, 30, 99, 55 },
		{ 11, 2001, 9998, 18, 159, 55 },
		{ 21, 2001, 9500, 68, 160, 105 },
		{ 1, 801, 9500, 2, 71, 12 },
		{ 9, 801, 9500, 59, 213, 112 },
		{ 1500, 2000, 9500, 7305, 7685, 7500 },
		{ 190, 200, 9500, 9104, 9727, 9500 },
		{ 60, 200, 9500, 2407, 3668, 3000 },
	};
	double	 lo, hi, z, l2, u2;

	/* 12.1: 0/10 at 95 %: lower exactly 0, upper 0.2775328 (5e-7). */
	ATF_REQUIRE_EQ(gates_wilson_interval(0, 10, 9500, &lo, &hi, err,
	    sizeof(err)), 0);
	ATF_CHECK_EQ(lo, 0);
	ATF_CHECK(!signbit(lo));
	CHECK_NEAR(hi, 0.2775328, 5e-7);
	/* Hand-derived: center = margin = (z^2/20) / (1 + z^2/10). */
	z = z_of(9500);
	CHECK_NEAR(hi, 2 * (z * z / 20) / (1 + z * z / 10), 1e-15);
	/* n/n is the mirror image of 0/n. */
	ATF_REQUIRE_EQ(gates_wilson_interval(10, 10, 9500, &l2, &u2, err,
	    sizeof(err)), 0);
	ATF_CHECK_EQ(u2, 1);
	CHECK_NEAR(l2, 1 - hi, 1e-15);

	check_wilson_bps(v, sizeof(v) / sizeof(v[0]));

	/* The level is checked first, then the counts. */
	CHECK_ERR(gates_wilson_interval(11, 10, 5000, &lo, &hi, err,
	    sizeof(err)), GATES_STATS_INVALID, LEVEL_MSG);
#define WILSON_MSG "wilson interval requires integer counts with " \
	"0 <= events <= n and n > 0"
	CHECK_ERR(gates_wilson_interval(11, 10, 9500, &lo, &hi, err,
	    sizeof(err)), GATES_STATS_INVALID, WILSON_MSG);
	CHECK_ERR(gates_wilson_interval(-1, 10, 9500, &lo, &hi, err,
	    sizeof(err)), GATES_STATS_INVALID, WILSON_MSG);
	CHECK_ERR(gates_wilson_interval(1.5, 10, 9500, &lo, &hi, err,
	    sizeof(err)), GATES_STATS_INVALID, WILSON_MSG);
	CHECK_ERR(gates_wilson_interval(0, 0, 9500, &lo, &hi, err,
	    sizeof(err)), GATES_STATS_INVALID, WILSON_MSG);
	CHECK_ERR(gates_wilson_interval(1, TWO53, 9500, &lo, &hi, err,
	    sizeof(err)), GATES_STATS_INVALID, WILSON_MSG);
	CHECK_ERR(gates_wilson_interval(NAN, 10, 9500, &lo, &hi, err,
	    sizeof(err)), GATES_STATS_INVALID, WILSON_MSG);
	/* The largest safe n is accepted. */
	ATF_CHECK_EQ(gates_wilson_interval(1, TWO53 - 1, 9500, &lo, &hi, err,
	    sizeof(err)), 0);
}

/* ---- Clopper-Pearson ------------------------------------------------ */

static void
cp(double events, double n, double level, int sided, double *lo, double *hi)
{
	struct gates_cp_input	 in = { events, n, level, sided };

	ATF_REQUIRE_EQ_MSG(gates_clopper_pearson(&in, lo, hi, err,
	    sizeof(err)), 0, "cp %g/%g @%g: %s", events, n, level, err);
}

/*
 * P(X >= k) by direct summation of binomial coefficients, independent of
 * the library's log-space sums (the reference's test does the same).
 */
static double
tail_ge(int k0, int n, double p)
{
	double	 sum = 0, comb;
	int	 k, i;

	for (k = k0; k <= n; k++) {
		comb = 1;
		for (i = 1; i <= k; i++)
			comb = comb * (n - k + i) / i;
		sum += comb * pow(p, k) * pow(1 - p, n - k);
	}
	return sum;
}

ATF_TC_WITHOUT_HEAD(clopper_pearson);
ATF_TC_BODY(clopper_pearson, tc)
{
	/* 12.1, two-sided 95 %, tolerance 5e-7. */
	static const double cases[][4] = {
		{ 0, 10, 0, 0.308497 }, { 1, 10, 0.002529, 0.445016 },
		{ 5, 10, 0.187086, 0.812914 }, { 9, 10, 0.554984, 0.997471 },
		{ 10, 10, 0.691503, 1 }, { 2, 100, 0.002431, 0.070384 },
		{ 3, 1000, 0.000619, 0.008742 }, { 0, 1, 0, 0.975 },
		{ 1, 1, 0.025, 1 },
	};
	/* 12.2 (computed): the same cases in bps. */
	static const double bps[][2] = {
		{ 0, 3085 }, { 25, 4451 }, { 1870, 8130 }, { 5549, 9975 },
		{ 6915, 10000 }, { 24, 704 }, { 6, 88 }, { 0, 9750 },
		{ 250, 10000 },
	};
	static const int sym[][2] = {
		{ 1, 10 }, { 5, 10 }, { 2, 100 }, { 0, 50 }, { 50, 50 },
	};
	static const double levels[] = { 6000, 8000, 9500, 9998 };
	double	 lo, hi, lo2, hi2, lb, ub, eb, width, prev;
	size_t	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cp(cases[i][0], cases[i][1], 9500, GATES_CP_TWO_SIDED, &lo,
		    &hi);
		CHECK_NEAR(lo, cases[i][2], 5e-7);
		CHECK_NEAR(hi, cases[i][3], 5e-7);
		gates_proportion_bps(lo, hi, cases[i][0], cases[i][1], &lb, &ub,
		    &eb);
		ATF_CHECK_MSG(lb == bps[i][0] && ub == bps[i][1],
		    "cp %g/%g: %g/%g bps, want %g/%g", cases[i][0],
		    cases[i][1], lb, ub, bps[i][0], bps[i][1]);
		/* Bounds at 0 and 1 are exact, not approximated. */
		if (cases[i][0] == 0)
			ATF_CHECK_EQ(lo, 0);
		if (cases[i][0] == cases[i][1])
			ATF_CHECK_EQ(hi, 1);
	}

	/* One-sided bounds (toBeCloseTo(x, 6): < 5e-7). */
	cp(0, 10, 9500, GATES_CP_UPPER, &lo, &hi);
	ATF_CHECK_EQ(lo, 0);
	CHECK_NEAR(hi, 0.258866, 5e-7);
	cp(5, 10, 9500, GATES_CP_LOWER, &lo, &hi);
	CHECK_NEAR(lo, 0.222441, 5e-7);
	ATF_CHECK_EQ(hi, 1);
	cp(5, 10, 9500, GATES_CP_UPPER, &lo, &hi);
	ATF_CHECK_EQ(lo, 0);
	CHECK_NEAR(hi, 0.777559, 5e-7);
	/* One-sided 95 % is strictly tighter than two-sided 95 %. */
	cp(5, 10, 9500, GATES_CP_TWO_SIDED, &lo, &hi);
	ATF_CHECK(lo < 0.222441);
	ATF_CHECK(hi > 0.777559);

	/* Closed forms (toBeCloseTo(x, 9): < 5e-10). */
	cp(0, 10, 9500, GATES_CP_TWO_SIDED, &lo, &hi);
	CHECK_NEAR(hi, 1 - pow(0.025, 0.1), 5e-10);
	cp(10, 10, 9500, GATES_CP_TWO_SIDED, &lo, &hi);
	CHECK_NEAR(lo, pow(0.025, 0.1), 5e-10);

	/* Symmetric, and the bounds invert the exact tail (to 1e-9). */
	for (i = 0; i < sizeof(sym) / sizeof(sym[0]); i++) {
		int	 e = sym[i][0], n = sym[i][1];

		cp(e, n, 9500, GATES_CP_TWO_SIDED, &lo, &hi);
		cp(n - e, n, 9500, GATES_CP_TWO_SIDED, &lo2, &hi2);
		CHECK_NEAR(lo, 1 - hi2, 5e-10);
		CHECK_NEAR(hi, 1 - lo2, 5e-10);
		ATF_CHECK(lo <= (double)e / n);
		ATF_CHECK(hi >= (double)e / n);
		if (e > 0)
			CHECK_NEAR(tail_ge(e, n, lo), 0.025, 1e-9);
		if (e < n)
			CHECK_NEAR(1 - tail_ge(e + 1, n, hi), 0.025, 1e-9);
	}

	/* Strictly wider with the level, for (4, 20). */
	prev = 0;
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		cp(4, 20, levels[i], GATES_CP_TWO_SIDED, &lo, &hi);
		width = hi - lo;
		ATF_CHECK_MSG(width > prev, "level %g: width %g <= %g",
		    levels[i], width, prev);
		prev = width;
	}
}

ATF_TC_WITHOUT_HEAD(clopper_pearson_fixture);
ATF_TC_BODY(clopper_pearson_fixture, tc)
{
	/* 12.2 (computed): the fixture's false-ready-exact gate. */
	static const struct prop_vec v[] = {
		{ 0, 1000, 9500, 0, 37, 0 },
		{ 12, 1000, 9500, 62, 209, 120 },
		{ 1, 1000, 9500, 0, 56, 10 },
		{ 300, 1000, 9500, 2717, 3295, 3000 },
	};
	double	 lo, hi, lb, ub, eb;
	size_t	 i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		cp(v[i].events, v[i].n, v[i].level, GATES_CP_TWO_SIDED, &lo,
		    &hi);
		gates_proportion_bps(lo, hi, v[i].events, v[i].n, &lb, &ub,
		    &eb);
		ATF_CHECK_MSG(lb == v[i].lower && ub == v[i].upper &&
		    eb == v[i].estimate, "cp %g/%g: %g/%g/%g, want %g/%g/%g",
		    v[i].events, v[i].n, lb, ub, eb, v[i].lower, v[i].upper,
		    v[i].estimate);
	}
}

/*
 * For n = 1 the lower bound's root is the tail itself, (10000 - L) /
 * 20000, a bps boundary when L is even; the bisection then lands on one
 * side or the other by the last bit of exp(log(p)).  node 20 (V8's fdlibm
 * log and exp) gives 0.05000000000000002 at 9000, so 500 bps; glibc's log
 * and exp give 0.049999999999999996, so 499, which is why gates/jsmath.c
 * exists.
 */
/*
 * Math.log and Math.exp as node 20 computes them, on arguments where the
 * C library's log and exp give the neighbouring double (about 6% of
 * arguments do), and the edges.
 */
ATF_TC_WITHOUT_HEAD(js_log_exp);
ATF_TC_BODY(js_log_exp, tc)
{
	static const struct {
		char	 op;
		double	 x, want;
	} v[] = {
		{ 'l', 0.29664825008059736, -1.2152081852310124 },
		{ 'l', 1.2058849312539994, 0.18721368019893336 },
		{ 'l', 0.33992217683701, -1.079038579227476 },
		{ 'l', 0.6936096884695387, -0.36584588523167394 },
		{ 'l', 0.8750153468909999, -0.13351385347433453 },
		{ 'e', -43.06523609770898, 1.9815525808493962e-19 },
		{ 'e', -0.8900774307351971, 0.4106239566065123 },
		{ 'e', 538.3999839688101, 6.670249737945928e+233 },
		/* V8 returns Math.E here, fdlibm the next double up. */
		{ 'e', 1, 2.718281828459045 },
		{ 'e', -1, 0.36787944117144233 },
		{ 'e', 0, 1 },
		{ 'e', -0.0, 1 },
		{ 'l', 1, 0 },
		{ 'l', 4.9406564584124654e-324, -744.4400719213812 },
		{ 'l', 1.7976931348623157e+308, 709.782712893384 },
		{ 'e', 709.782712893384, 1.7976931348622732e+308 },
		{ 'e', 710, INFINITY },
		{ 'e', -746, 0 },
		{ 'e', -745, 5e-324 },
		{ 'e', INFINITY, INFINITY },
		{ 'e', -INFINITY, 0 },
		{ 'l', INFINITY, INFINITY },
		{ 'l', 0, -INFINITY },
		{ 'l', -0.0, -INFINITY },
	};
	double	 got;
	size_t	 i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		got = v[i].op == 'l' ? gates_js_log(v[i].x) :
		    gates_js_exp(v[i].x);
		ATF_CHECK_MSG(got == v[i].want, "%s(%.17g) = %.17g, want %.17g",
		    v[i].op == 'l' ? "log" : "exp", v[i].x, got, v[i].want);
	}
	ATF_CHECK(isnan(gates_js_log(-1)));
	ATF_CHECK(isnan(gates_js_log(-INFINITY)));
	ATF_CHECK(isnan(gates_js_log(NAN)));
	ATF_CHECK(isnan(gates_js_exp(NAN)));
}

ATF_TC_WITHOUT_HEAD(clopper_pearson_n1_node);
ATF_TC_BODY(clopper_pearson_n1_node, tc)
{
	double	 lo, hi, lb, ub, eb;

	cp(1, 1, 9000, GATES_CP_TWO_SIDED, &lo, &hi);
	gates_proportion_bps(lo, hi, 1, 1, &lb, &ub, &eb);
	/* Either way the root is right to an ulp or so. */
	CHECK_NEAR(lo, 0.05, 4e-17);
	ATF_CHECK_EQ(lo, 0.05000000000000002);
	ATF_CHECK_EQ(lb, 500);
}

ATF_TC_WITHOUT_HEAD(clopper_pearson_errors);
ATF_TC_BODY(clopper_pearson_errors, tc)
{
	/* The reference's bad inputs, and its order: counts, level, side. */
	static const struct {
		struct gates_cp_input	 in;
		const char		*msg;
	} bad[] = {
#define CP_COUNTS "clopper-pearson interval requires integer counts with " \
	"0 <= events <= n and n > 0"
#define CP_SIDED "clopper-pearson sided must be two-sided, lower or upper"
		{ { 1, 10, 5000, 0 }, LEVEL_MSG },
		{ { 1, 10, 9999, 0 }, LEVEL_MSG },
		{ { 11, 10, 9500, 0 }, CP_COUNTS },
		{ { -1, 10, 9500, 0 }, CP_COUNTS },
		{ { 1.5, 10, 9500, 0 }, CP_COUNTS },
		{ { 1, 0, 9500, 0 }, CP_COUNTS },
		{ { 1, 10, 9500, 7 }, CP_SIDED },
		{ { 1, 10, 9500, -1 }, CP_SIDED },
		{ { 1, TWO53, 9500, 0 }, CP_COUNTS },
		{ { 11, 10, 5000, 7 }, CP_COUNTS },
		{ { 1, 10, 5000, 7 }, LEVEL_MSG },
		{ { 1, 10, NAN, 0 }, LEVEL_MSG },
	};
	struct gates_cp_input	 big = { 0, GATES_CP_MAX_N + 1.0, 9500, 0 };
	double			 lo = -7, hi = -7;
	size_t			 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_ERR(gates_clopper_pearson(&bad[i].in, &lo, &hi, err,
		    sizeof(err)), GATES_STATS_INVALID, bad[i].msg);
	/* null and undefined: no input object at all. */
	CHECK_ERR(gates_clopper_pearson(NULL, &lo, &hi, err, sizeof(err)),
	    GATES_STATS_INVALID, "clopper-pearson interval input is required");
	/* Nothing is written on failure. */
	ATF_CHECK_EQ(lo, -7);
	ATF_CHECK_EQ(hi, -7);
	/* This engine's own bound, after the reference's checks. */
	ATF_CHECK_EQ(gates_clopper_pearson(&big, &lo, &hi, err, sizeof(err)),
	    GATES_STATS_LIMIT);
	ATF_CHECK(strstr(err, "10000000") != NULL);
}

/* ---- paired differences -------------------------------------------- */

static struct gates_paired_counts
table(double e, double f, double g, double h)
{
	struct gates_paired_counts	 c;

	memset(&c, 0, sizeof(c));
	c.form = GATES_PAIRED_TABLE;
	c.both = e;
	c.candidate_only = f;
	c.baseline_only = g;
	c.neither = h;
	return c;
}

static struct gates_bps_interval
paired(struct gates_paired_counts c, double level, int method)
{
	struct gates_bps_interval	 iv;

	ATF_REQUIRE_EQ_MSG(gates_paired_difference(&c, level, method, &iv,
	    err, sizeof(err)), 0, "paired: %s", err);
	return iv;
}

#define CHECK_BPS(iv, lo, hi, est) \
	ATF_CHECK_MSG((iv).lower_bps == (lo) && (iv).upper_bps == (hi) && \
	    (iv).estimate_bps == (est), "%s: %g/%g/%g, want %d/%d/%d", #iv, \
	    (iv).lower_bps, (iv).upper_bps, (iv).estimate_bps, (lo), (hi), \
	    (est))

ATF_TC_WITHOUT_HEAD(newcombe);
ATF_TC_BODY(newcombe, tc)
{
	struct gates_bps_interval	 iv;

	/* 12.1: Newcombe (1998) Table III, {36, 12, 2, 0} at 95 %. */
	iv = paired(table(36, 12, 2, 0), 9500, GATES_PAIRED_NEWCOMBE10);
	ATF_CHECK_STREQ(gates_method_name(iv.method), "newcombe-hybrid-score");
	ATF_CHECK_EQ(iv.estimate_bps, gates_js_round(10.0 / 50 * 10000));
	ATF_CHECK(gates_js_round(0.0569 * 10000) - iv.lower_bps >= 0);
	ATF_CHECK(iv.upper_bps - gates_js_round(0.3404 * 10000) >= 0);
	ATF_CHECK_EQ(iv.n, 50);
	/* 12.2 (computed). */
	CHECK_BPS(iv, 569, 3405, 2000);

	/* The fixture's pooled contrast, and its ROLLBACK breach. */
	iv = paired(table(900, 60, 60, 980), 9500, GATES_PAIRED_NEWCOMBE10);
	CHECK_BPS(iv, -108, 108, 0);
	iv = paired(table(600, 10, 180, 1210), 9500, GATES_PAIRED_NEWCOMBE10);
	CHECK_BPS(iv, -981, -719, -850);
	iv = paired(table(900, 3, 3, 94), 9500, GATES_PAIRED_NEWCOMBE10);
	CHECK_BPS(iv, -61, 61, 0);

	/*
	 * 9.8: est * 10000 is exactly -2.5 and Math.round gives -2, where
	 * C's round() would give -3.
	 */
	iv = paired(table(1000, 0, 1, 2999), 9500, GATES_PAIRED_NEWCOMBE10);
	ATF_CHECK_EQ(iv.estimate * 10000, -2.5);
	CHECK_BPS(iv, -11, 6, -2);
	ATF_CHECK_EQ(round(iv.estimate * 10000), -3);

	/* A table with a zero margin: phi is 0, D is 0. */
	iv = paired(table(0, 0, 0, 10), 9500, GATES_PAIRED_NEWCOMBE10);
	ATF_CHECK_EQ(iv.estimate_bps, 0);
	ATF_CHECK(iv.lower_bps < 0 && iv.upper_bps > 0);
	/* Every pair candidate-only: the upper bound is clamped at 1. */
	iv = paired(table(0, 10, 0, 0), 9500, GATES_PAIRED_NEWCOMBE10);
	ATF_CHECK_EQ(iv.estimate_bps, 10000);
	ATF_CHECK_EQ(iv.upper_bps, 10000);
}

ATF_TC_WITHOUT_HEAD(tango);
ATF_TC_BODY(tango, tc)
{
	struct gates_paired_counts	 d;
	struct gates_bps_interval	 iv, iv2;

	/* 12.2 (computed): b = 12, c = 2, n = 50; both forms agree. */
	memset(&d, 0, sizeof(d));
	d.form = GATES_PAIRED_DISCORDANT;
	d.b = 12;
	d.c = 2;
	d.n = 50;
	iv = paired(d, 9500, GATES_PAIRED_TANGO);
	ATF_CHECK_STREQ(gates_method_name(iv.method), "tango-score");
	CHECK_BPS(iv, 611, 3448, 2000);
	iv2 = paired(table(36, 12, 2, 0), 9500, GATES_PAIRED_TANGO);
	ATF_CHECK_EQ(iv2.low, iv.low);
	ATF_CHECK_EQ(iv2.high, iv.high);
	iv = paired(table(600, 10, 180, 1210), 9500, GATES_PAIRED_TANGO);
	CHECK_BPS(iv, -987, -726, -850);

	/* The extremes: est = 1 and est = -1 are exact bounds. */
	iv = paired(table(0, 10, 0, 0), 9500, GATES_PAIRED_TANGO);
	ATF_CHECK_EQ(iv.high, 1);
	ATF_CHECK(iv.low < 1 && iv.low > 0);
	iv = paired(table(0, 0, 10, 0), 9500, GATES_PAIRED_TANGO);
	ATF_CHECK_EQ(iv.low, -1);
	ATF_CHECK_EQ(iv.lower_bps, -10000);
	/* Wider at a higher level. */
	iv = paired(d, 9000, GATES_PAIRED_TANGO);
	iv2 = paired(d, 9900, GATES_PAIRED_TANGO);
	ATF_CHECK(iv2.low < iv.low && iv2.high > iv.high);
}

ATF_TC_WITHOUT_HEAD(paired_errors);
ATF_TC_BODY(paired_errors, tc)
{
	struct gates_paired_counts	 c, d;
	struct gates_bps_interval	 iv;

#define PD(cnt, lvl, m) gates_paired_difference((cnt), (lvl), (m), &iv, err, \
	sizeof(err))
	c = table(1, 2, 3, 4);
	/* The level comes first, even before a missing table. */
	CHECK_ERR(PD(NULL, 5000, GATES_PAIRED_NEWCOMBE10), GATES_STATS_INVALID,
	    LEVEL_MSG);
	CHECK_ERR(PD(NULL, 9500, GATES_PAIRED_NEWCOMBE10), GATES_STATS_INVALID,
	    "paired counts are required");
	c.form = 0;
	CHECK_ERR(PD(&c, 9500, GATES_PAIRED_NEWCOMBE10), GATES_STATS_INVALID,
	    "provide either the full paired table or discordant b, c and n");
	c = table(1, -2, 3, 4);
	CHECK_ERR(PD(&c, 9500, GATES_PAIRED_NEWCOMBE10), GATES_STATS_INVALID,
	    "paired cell counts must be non-negative safe integers");
	c = table(1, 2, 3.5, 4);
	CHECK_ERR(PD(&c, 9500, GATES_PAIRED_TANGO), GATES_STATS_INVALID,
	    "paired cell counts must be non-negative safe integers");
	c = table(0, 0, 0, 0);
	CHECK_ERR(PD(&c, 9500, GATES_PAIRED_NEWCOMBE10), GATES_STATS_INVALID,
	    "paired table requires n > 0");
	/* Each cell safe, the sum not. */
	c = table(TWO53 - 1, 1, 0, 0);
	CHECK_ERR(PD(&c, 9500, GATES_PAIRED_NEWCOMBE10), GATES_STATS_INVALID,
	    "paired table requires n > 0");
	/* Cells before the method. */
	c = table(0, 0, 0, 0);
	CHECK_ERR(PD(&c, 9500, 99), GATES_STATS_INVALID,
	    "paired table requires n > 0");
	c = table(1, 2, 3, 4);
	CHECK_ERR(PD(&c, 9500, 99), GATES_STATS_INVALID,
	    "unknown paired interval method");

	memset(&d, 0, sizeof(d));
	d.form = GATES_PAIRED_DISCORDANT;
	d.b = 6;
	d.c = 5;
	d.n = 10;
#define DISC_MSG "discordant counts require non-negative integers with " \
	"b + c <= n and n > 0"
	CHECK_ERR(PD(&d, 9500, GATES_PAIRED_TANGO), GATES_STATS_INVALID,
	    DISC_MSG);
	d.b = 1;
	d.n = 0;
	CHECK_ERR(PD(&d, 9500, GATES_PAIRED_TANGO), GATES_STATS_INVALID,
	    DISC_MSG);
	d.n = NAN;
	CHECK_ERR(PD(&d, 9500, GATES_PAIRED_TANGO), GATES_STATS_INVALID,
	    DISC_MSG);
	d.n = 10;
	CHECK_ERR(PD(&d, 9500, GATES_PAIRED_NEWCOMBE10), GATES_STATS_INVALID,
	    "newcombe method 10 requires the full paired table");
	CHECK_ERR(PD(&d, 9500, 0), GATES_STATS_INVALID,
	    "unknown paired interval method");
	ATF_CHECK_EQ(PD(&d, 9500, GATES_PAIRED_TANGO), 0);
#undef PD
}

ATF_TC_WITHOUT_HEAD(to_bps);
ATF_TC_BODY(to_bps, tc)
{
	struct gates_bps_interval	 iv;

#define TB(l, h, e) gates_to_bps_interval((l), (h), (e), 10, \
	GATES_METHOD_NEWCOMBE, &iv, err, sizeof(err))
#define TB_MSG "paired interval computation was not finite and ordered"
	/* Outward: floor below, ceil above, clamped to +-10000. */
	ATF_REQUIRE_EQ(TB(-0.00031, 0.00011, -0.00025), 0);
	ATF_CHECK_EQ(iv.lower_bps, -4);
	ATF_CHECK_EQ(iv.upper_bps, 2);
	/* -0.00025 * 10000 is -2.5 exactly: Math.round gives -2. */
	ATF_CHECK_EQ(-0.00025 * 10000, -2.5);
	ATF_CHECK_EQ(iv.estimate_bps, -2);
	ATF_REQUIRE_EQ(TB(-1, 1, 0.00025), 0);
	ATF_CHECK_EQ(iv.estimate_bps, 3);
	ATF_CHECK_EQ(iv.lower_bps, -10000);
	ATF_CHECK_EQ(iv.upper_bps, 10000);
	ATF_REQUIRE_EQ(TB(-2, 2, 0), 0);
	ATF_CHECK_EQ(iv.lower_bps, -10000);
	ATF_CHECK_EQ(iv.upper_bps, 10000);
	/*
	 * floor/ceil apply to the inexact products: 0.0051 * 10000 is above
	 * 51 and 0.0003 * 10000 below 3, so a bound of "51 bps" ceils to 52
	 * and one of "3 bps" floors to 2.
	 */
	ATF_REQUIRE_EQ(TB(0.0003, 0.0051, 0.001), 0);
	ATF_CHECK_EQ(0.0051 * 10000, 51.00000000000001);
	ATF_CHECK_EQ(0.0003 * 10000, 2.9999999999999996);
	ATF_CHECK_EQ(iv.upper_bps, 52);
	ATF_CHECK_EQ(iv.lower_bps, 2);
	ATF_CHECK_EQ(iv.n, 10);
	ATF_CHECK_STREQ(gates_method_name(iv.method), "newcombe-hybrid-score");

	CHECK_ERR(TB(0.2, 0.3, 0.1), GATES_STATS_INVALID, TB_MSG);
	CHECK_ERR(TB(0.1, 0.3, 0.4), GATES_STATS_INVALID, TB_MSG);
	CHECK_ERR(TB(NAN, 0.3, 0.1), GATES_STATS_INVALID, TB_MSG);
	CHECK_ERR(TB(-INFINITY, 0.3, 0.1), GATES_STATS_INVALID, TB_MSG);
	ATF_CHECK(gates_method_name(0) == NULL);
	ATF_CHECK(gates_method_name(4) == NULL);
	ATF_CHECK_STREQ(gates_method_name(GATES_METHOD_BOOTSTRAP),
	    "percentile-bootstrap");
#undef TB
}

ATF_TC_WITHOUT_HEAD(noninferiority);
ATF_TC_BODY(noninferiority, tc)
{
	struct gates_bps_interval	 iv, bad;
	const char			*reason;
	int				 d;

#define NI(i, m) gates_paired_noninferiority((i), (m), &d, &reason, err, \
	sizeof(err))
	/* 12.1: {900, 3, 3, 94} at 95 %, margin -250. */
	iv = paired(table(900, 3, 3, 94), 9500, GATES_PAIRED_NEWCOMBE10);
	ATF_REQUIRE_EQ(NI(&iv, -250), 0);
	ATF_CHECK_EQ(d, GATES_NI_NON_INFERIOR);
	ATF_CHECK_STREQ(reason, "lower-bound-at-or-above-margin");
	bad = iv;
	bad.lower_bps = -251;
	ATF_REQUIRE_EQ(NI(&bad, -250), 0);
	ATF_CHECK_EQ(d, GATES_NI_NOT_NON_INFERIOR);
	ATF_CHECK_STREQ(reason, "lower-bound-below-margin");
	/* At exactly the margin is non-inferior. */
	bad.lower_bps = -250;
	ATF_REQUIRE_EQ(NI(&bad, -250), 0);
	ATF_CHECK_EQ(d, GATES_NI_NON_INFERIOR);

	/* Malformed intervals are a verdict, never a pass. */
#define CHECK_INSUFF(field, value) do { \
	bad = iv; \
	bad.field = (value); \
	d = 0; \
	ATF_CHECK_EQ(NI(&bad, -250), 0); \
	ATF_CHECK_EQ_MSG(d, GATES_NI_INSUFFICIENT, "%s = %g", #field, \
	    (double)(value)); \
	ATF_CHECK_STREQ(reason, "invalid-interval"); \
} while (0)
	CHECK_INSUFF(lower_bps, -10001);
	CHECK_INSUFF(lower_bps, 1);		/* above the estimate */
	CHECK_INSUFF(upper_bps, 10001);
	CHECK_INSUFF(upper_bps, -1);		/* below the estimate */
	CHECK_INSUFF(estimate_bps, 0.5);
	CHECK_INSUFF(estimate_bps, NAN);
	CHECK_INSUFF(n, 0);
	CHECK_INSUFF(n, 1.5);
	CHECK_INSUFF(method, 0);
	CHECK_INSUFF(method, 4);
	d = 0;
	ATF_CHECK_EQ(NI(NULL, -250), 0);
	ATF_CHECK_EQ(d, GATES_NI_INSUFFICIENT);

	/* A bad margin is an error, checked before the interval. */
#define NI_MSG "marginBps must be an integer in [-10000, 0]"
	CHECK_ERR(NI(&iv, 1), GATES_STATS_INVALID, NI_MSG);
	CHECK_ERR(NI(NULL, -10001), GATES_STATS_INVALID, NI_MSG);
	CHECK_ERR(NI(&iv, -2.5), GATES_STATS_INVALID, NI_MSG);
	CHECK_ERR(NI(&iv, NAN), GATES_STATS_INVALID, NI_MSG);
	ATF_CHECK_EQ(NI(&iv, 0), 0);
	ATF_CHECK_EQ(NI(&iv, -10000), 0);
#undef NI
}

/* ---- bootstrap ------------------------------------------------------ */

static const double ex_diffs[] = {
	0.02, -0.01, 0.03, 0, 0.01, -0.02, 0.04, 0.01
};
static const double full_bounds[] = { -1, 1 };

/* Field by field: the struct has padding, memcmp would read it. */
static int
same_iv(const struct gates_bps_interval *a, const struct gates_bps_interval *b)
{
	return memcmp(&a->lower_bps, &b->lower_bps, sizeof(double)) == 0 &&
	    memcmp(&a->upper_bps, &b->upper_bps, sizeof(double)) == 0 &&
	    memcmp(&a->estimate_bps, &b->estimate_bps, sizeof(double)) == 0 &&
	    a->n == b->n && a->method == b->method &&
	    memcmp(&a->low, &b->low, sizeof(double)) == 0 &&
	    memcmp(&a->high, &b->high, sizeof(double)) == 0 &&
	    memcmp(&a->estimate, &b->estimate, sizeof(double)) == 0;
}

#define BOOT(d, nd, lvl, seed, res, b, nb, iv) \
	gates_bootstrap_paired_mean((d), (nd), (lvl), (seed), (res), (b), \
	    (nb), NULL, 0, (iv), err, sizeof(err))

static void
check_seeds_differ(double s1, double s2)
{
	struct gates_bps_interval	 iv;
	double				 w1[2000], w2[2000];

	ATF_REQUIRE_EQ(gates_bootstrap_paired_mean(ex_diffs, 8, 9500, s1, 2000,
	    full_bounds, 2, w1, 2000, &iv, err, sizeof(err)), 0);
	ATF_REQUIRE_EQ(gates_bootstrap_paired_mean(ex_diffs, 8, 9500, s2, 2000,
	    full_bounds, 2, w2, 2000, &iv, err, sizeof(err)), 0);
	ATF_CHECK_MSG(memcmp(w1, w2, sizeof(w1)) != 0,
	    "seeds %g and %g give the same resamples", s1, s2);
}

ATF_TC_WITHOUT_HEAD(bootstrap);
ATF_TC_BODY(bootstrap, tc)
{
	struct gates_bps_interval	 a, b, c;
	double				*work, *neg;
	size_t				 i;

	/* 12.1: level 9500, seed 7, 2000 resamples: deterministic. */
	ATF_REQUIRE_EQ_MSG(BOOT(ex_diffs, 8, 9500, 7, 2000, full_bounds, 2,
	    &a), 0, "%s", err);
	ATF_REQUIRE_EQ(BOOT(ex_diffs, 8, 9500, 7, 2000, full_bounds, 2, &b),
	    0);
	ATF_CHECK(same_iv(&a, &b));
	ATF_CHECK_STREQ(gates_method_name(a.method), "percentile-bootstrap");
	ATF_CHECK(a.lower_bps <= a.estimate_bps);
	ATF_CHECK(a.estimate_bps <= a.upper_bps);
	ATF_CHECK_EQ(a.n, 8);
	/* 12.2 (computed): raw -0.00375 and 0.0225, so -38/226/100. */
	CHECK_NEAR(a.low, -0.00375, 1e-17);
	CHECK_NEAR(a.high, 0.0225, 1e-17);
	CHECK_BPS(a, -38, 226, 100);
	/* The estimate is the plain left-to-right mean. */
	ATF_CHECK_EQ(a.estimate, (0.02 + -0.01 + 0.03 + 0 + 0.01 + -0.02 +
	    0.04 + 0.01) / 8);

	/* A caller's buffer gives the same bits. */
	work = calloc(2000, sizeof(*work));
	ATF_REQUIRE(work != NULL);
	ATF_REQUIRE_EQ(gates_bootstrap_paired_mean(ex_diffs, 8, 9500, 7, 2000,
	    full_bounds, 2, work, 2000, &c, err, sizeof(err)), 0);
	ATF_CHECK(same_iv(&a, &c));
	/* ... sorted ascending, as the reference's Float64Array is. */
	for (i = 1; i < 2000; i++)
		ATF_REQUIRE(work[i - 1] <= work[i]);
	ATF_CHECK_EQ(gates_bootstrap_paired_mean(ex_diffs, 8, 9500, 7, 2000,
	    full_bounds, 2, work, 1999, &c, err, sizeof(err)),
	    GATES_STATS_LIMIT);
	free(work);

	/*
	 * Another seed draws other resamples: the sorted means differ
	 * (the bounds alone may not, 8 values give a coarse lattice).
	 * Seed 0 is a seed like any other, not replaced by 1.
	 */
	check_seeds_differ(7, 8);
	check_seeds_differ(0, 1);
	ATF_CHECK_EQ(BOOT(ex_diffs, 8, 9500, 4294967295.0, 2000,
	    full_bounds, 2, &b), 0);

	/* 12.2 (computed): 200 differences of -0.5 give -5000 throughout. */
	neg = calloc(200, sizeof(*neg));
	ATF_REQUIRE(neg != NULL);
	for (i = 0; i < 200; i++)
		neg[i] = -0.5;
	ATF_REQUIRE_EQ(BOOT(neg, 200, 9500, 7, 2000, full_bounds, 2, &b), 0);
	CHECK_BPS(b, -5000, -5000, -5000);
	free(neg);
}

ATF_TC_WITHOUT_HEAD(bootstrap_errors);
ATF_TC_BODY(bootstrap_errors, tc)
{
	static const double	 short_diffs[] = { 0.5 };
	static const double	 out_diffs[] = { 0.5, 0.7 };
	static const double	 nan_diffs[] = { 0.5, NAN };
	static const double	 b_rev[] = { 0.5, -0.5 }, b_wide[] = { -2, 1 };
	static const double	 b_nan[] = { NAN, 1 }, b_three[] = { -1, 0, 1 };
	static const double	 b_half[] = { -0.6, 0.6 };
	struct gates_bps_interval iv;

#define B_BOUNDS "bounds must be finite with -1 <= min < max <= 1"
#define B_TWO "bootstrap requires at least two paired differences"
#define B_DIFFS "paired differences must be finite and within bounds"
#define B_SEED "seed must be an unsigned 32-bit integer"
#define B_RES "resamples must be an integer <= 1000000 leaving at least 5 " \
	"per tail"
	/* One failure each, everything else valid. */
	CHECK_ERR(BOOT(ex_diffs, 8, 9999, 7, 2000, full_bounds, 2, &iv),
	    GATES_STATS_INVALID, LEVEL_MSG);
	CHECK_ERR(BOOT(ex_diffs, 8, 9500, 7, 2000, b_rev, 2, &iv),
	    GATES_STATS_INVALID, B_BOUNDS);
	CHECK_ERR(BOOT(ex_diffs, 8, 9500, 7, 2000, b_wide, 2, &iv),
	    GATES_STATS_INVALID, B_BOUNDS);
	CHECK_ERR(BOOT(ex_diffs, 8, 9500, 7, 2000, b_nan, 2, &iv),
	    GATES_STATS_INVALID, B_BOUNDS);
	CHECK_ERR(BOOT(ex_diffs, 8, 9500, 7, 2000, b_three, 3, &iv),
	    GATES_STATS_INVALID, B_BOUNDS);
	CHECK_ERR(BOOT(ex_diffs, 8, 9500, 7, 2000, NULL, 0, &iv),
	    GATES_STATS_INVALID, B_BOUNDS);
	CHECK_ERR(BOOT(short_diffs, 1, 9500, 7, 2000, full_bounds, 2, &iv),
	    GATES_STATS_INVALID, B_TWO);
	CHECK_ERR(BOOT(NULL, 0, 9500, 7, 2000, full_bounds, 2, &iv),
	    GATES_STATS_INVALID, B_TWO);
	CHECK_ERR(BOOT(out_diffs, 2, 9500, 7, 2000, b_half, 2, &iv),
	    GATES_STATS_INVALID, B_DIFFS);
	CHECK_ERR(BOOT(nan_diffs, 2, 9500, 7, 2000, full_bounds, 2, &iv),
	    GATES_STATS_INVALID, B_DIFFS);
	CHECK_ERR(BOOT(ex_diffs, 8, 9500, -1, 2000, full_bounds, 2, &iv),
	    GATES_STATS_INVALID, B_SEED);
	CHECK_ERR(BOOT(ex_diffs, 8, 9500, 4294967296.0, 2000, full_bounds, 2,
	    &iv), GATES_STATS_INVALID, B_SEED);
	CHECK_ERR(BOOT(ex_diffs, 8, 9500, 7.5, 2000, full_bounds, 2, &iv),
	    GATES_STATS_INVALID, B_SEED);
	/* tail = floor(resamples * 500 / 20000) at 9500: 199 gives 4. */
	CHECK_ERR(BOOT(ex_diffs, 8, 9500, 7, 199, full_bounds, 2, &iv),
	    GATES_STATS_INVALID, B_RES);
	ATF_CHECK_EQ(BOOT(ex_diffs, 8, 9500, 7, 200, full_bounds, 2, &iv), 0);
	CHECK_ERR(BOOT(ex_diffs, 8, 9500, 7, 1000001, full_bounds, 2, &iv),
	    GATES_STATS_INVALID, B_RES);
	CHECK_ERR(BOOT(ex_diffs, 8, 9500, 7, 2000.5, full_bounds, 2, &iv),
	    GATES_STATS_INVALID, B_RES);
	CHECK_ERR(BOOT(ex_diffs, 8, 9500, 7, -2000, full_bounds, 2, &iv),
	    GATES_STATS_INVALID, B_RES);
	CHECK_ERR(BOOT(ex_diffs, 8, 9500, 7, TWO53, full_bounds, 2, &iv),
	    GATES_STATS_INVALID, B_RES);
	/* At 9998 a tail of 5 needs 50000 resamples. */
	CHECK_ERR(BOOT(ex_diffs, 8, 9998, 7, 49999, full_bounds, 2, &iv),
	    GATES_STATS_INVALID, B_RES);
	ATF_CHECK_EQ(BOOT(ex_diffs, 8, 9998, 7, 50000, full_bounds, 2, &iv),
	    0);

	/* Several failures at once: the first in the reference's order. */
	CHECK_ERR(BOOT(short_diffs, 1, 5000, -1, 1, b_rev, 2, &iv),
	    GATES_STATS_INVALID, LEVEL_MSG);
	CHECK_ERR(BOOT(short_diffs, 1, 9500, -1, 1, b_rev, 2, &iv),
	    GATES_STATS_INVALID, B_BOUNDS);
	CHECK_ERR(BOOT(short_diffs, 1, 9500, -1, 1, full_bounds, 2, &iv),
	    GATES_STATS_INVALID, B_TWO);
	CHECK_ERR(BOOT(out_diffs, 2, 9500, -1, 1, b_half, 2, &iv),
	    GATES_STATS_INVALID, B_DIFFS);
	CHECK_ERR(BOOT(ex_diffs, 8, 9500, -1, 1, full_bounds, 2, &iv),
	    GATES_STATS_INVALID, B_SEED);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, js_round);
	ATF_TP_ADD_TC(tp, normal_quantile);
	ATF_TP_ADD_TC(tp, wilson);
	ATF_TP_ADD_TC(tp, clopper_pearson);
	ATF_TP_ADD_TC(tp, clopper_pearson_fixture);
	ATF_TP_ADD_TC(tp, js_log_exp);
	ATF_TP_ADD_TC(tp, clopper_pearson_n1_node);
	ATF_TP_ADD_TC(tp, clopper_pearson_errors);
	ATF_TP_ADD_TC(tp, newcombe);
	ATF_TP_ADD_TC(tp, tango);
	ATF_TP_ADD_TC(tp, paired_errors);
	ATF_TP_ADD_TC(tp, to_bps);
	ATF_TP_ADD_TC(tp, noninferiority);
	ATF_TP_ADD_TC(tp, bootstrap);
	ATF_TP_ADD_TC(tp, bootstrap_errors);
	return atf_no_error();
}
