/*
 * gates.h: the one header of gates/ -- the gate evaluation engine of
 * gates-spec.md, a library of pure functions linked by the provider
 * runner and sbxctl.
 *
 * Each block belongs to one group of source files; keep declarations in
 * the block of the files that define them.
 */
#ifndef SBX_GATES_H
#define SBX_GATES_H

#include <stddef.h>
#include <stdint.h>

/* ---- statistics (gates/stats*.c) ---- */
/*
 * The statistics of gates-spec 9, bit for bit as the reference's
 * JavaScript computes them: every operation in JavaScript's left-to-right
 * order, in double precision, and with JavaScript's Math.round, Math.min
 * and Math.max.  Numbers that come from a gate document or a metrics
 * document (counts, levels, seeds, margins) are taken as doubles, the
 * reference's numbers, and validated here, so the engine passes JSON
 * numbers through unchanged; a non-number in the document is passed as
 * NaN, which fails every check the reference makes of it with the same
 * message.
 *
 * The one known departure: Math.log and Math.exp are glibc's, not V8's
 * (gates_js_log), so Clopper-Pearson bounds and z beyond 9515 bps can
 * differ from node's in the last bits, and a Clopper-Pearson figure by
 * one bps where the exact root is a bps boundary (seen for n = 1).
 *
 * No I/O, no globals.  Every function returns GATES_STATS_OK, or a
 * negative code with a message in err (when err is not NULL and errlen is
 * not 0; truncated to errlen, GATES_STATS_ERRSZ always suffices).  For
 * GATES_STATS_INVALID the message is the reference's PairedDifferenceError
 * text; the other codes are this library's own limits and have no
 * counterpart in the reference (see each function).  Outputs are written
 * only on success.
 */
#define GATES_STATS_ERRSZ	128

#define GATES_STATS_OK		0
#define GATES_STATS_INVALID	-1	/* PairedDifferenceError */
#define GATES_STATS_NOMEM	-2	/* a documented allocation failed */
#define GATES_STATS_LIMIT	-3	/* input beyond this library's bound */

/* JavaScript number semantics (stats_js.c), for the engine as well. */
double	 gates_js_round(double);		/* Math.round: halves up */
double	 gates_js_min(double, double);		/* Math.min: NaN, -0 < +0 */
double	 gates_js_max(double, double);		/* Math.max */
int	 gates_js_is_safe_integer(double);	/* Number.isSafeInteger */
int	 gates_js_is_count(double);		/* safe integer >= 0 */
/* Math.log and Math.exp; see stats_js.c for how they may differ from V8. */
double	 gates_js_log(double);
double	 gates_js_exp(double);
/* Internal to the statistics files: store msg in err, return code. */
int	 gates_stats_error(char *err, size_t errlen, int code, const char *msg);

/* Normal quantile, Acklam without refinement (stats_normal.c, spec 9.1). */
int	 gates_normal_quantile(double p, double *z, char *err, size_t errlen);
/* z of a two-sided level in bps: a safe integer, 5000 < level < 9999. */
int	 gates_two_sided_z(double level_bps, double *z, char *err,
	    size_t errlen);

/* Wilson score interval (stats_binomial.c, spec 9.2). */
int	 gates_wilson_interval(double events, double n, double level_bps,
	    double *lower, double *upper, char *err, size_t errlen);
/* wilsonScore itself: no validation (events/n and z already checked). */
void	 gates_wilson_score(double events, double n, double z, double *lower,
	    double *upper);
/*
 * An interval-bound gate's figures (spec 8.4): lower clamped at 0 and
 * floored, upper clamped at 10000 and ceiled, estimate Math.round of
 * events/n, all in bps on the double products.  No validation: use it on
 * the result of a successful interval over the same events and n.
 */
void	 gates_proportion_bps(double lower, double upper, double events,
	    double n, double *lower_bps, double *upper_bps,
	    double *estimate_bps);

/* Clopper-Pearson exact interval (stats_cp.c, spec 9.3). */
#define GATES_CP_TWO_SIDED	0	/* the reference's default */
#define GATES_CP_LOWER		1	/* [bound, 1] at the one-sided level */
#define GATES_CP_UPPER		2	/* [0, bound] */
/*
 * The bisection evaluates binomial tails with a table of n + 1 log
 * factorials; it is allocated per call, so n above GATES_CP_MAX_N (80 MB
 * of table, seconds of work) is refused with GATES_STATS_LIMIT where the
 * reference would try, and an allocation failure gives GATES_STATS_NOMEM.
 */
#define GATES_CP_MAX_N		10000000
struct gates_cp_input {
	double		 events;
	double		 n;
	double		 level_bps;
	int		 sided;		/* GATES_CP_* */
};
/* in NULL is the reference's missing input object. */
int	 gates_clopper_pearson(const struct gates_cp_input *in, double *lower,
	    double *upper, char *err, size_t errlen);

/* Paired differences (stats_paired.c, spec 9.4-9.6). */
#define GATES_PAIRED_TABLE	1	/* the full table of four cells */
#define GATES_PAIRED_DISCORDANT	2	/* b, c, n: Tango only */
struct gates_paired_counts {
	int		 form;		/* GATES_PAIRED_*; else refused */
	double		 both;
	double		 candidate_only;
	double		 baseline_only;
	double		 neither;
	double		 b;		/* candidateOnly, discordant form */
	double		 c;		/* baselineOnly, discordant form */
	double		 n;		/* discordant form */
};
#define GATES_PAIRED_NEWCOMBE10	1	/* 'newcombe-10', the default */
#define GATES_PAIRED_TANGO	2	/* 'tango' */

#define GATES_METHOD_NEWCOMBE	1	/* "newcombe-hybrid-score" */
#define GATES_METHOD_TANGO	2	/* "tango-score" */
#define GATES_METHOD_BOOTSTRAP	3	/* "percentile-bootstrap" */
/* The reference's method string, or NULL for an unknown method. */
const char *gates_method_name(int method);

/*
 * PairedDifferenceInterval.  The bps fields are JavaScript numbers, hence
 * doubles: integers (possibly -0, which JSON writes as 0) within
 * [-10000, 10000] for every interval this library computes.  low, high
 * and estimate are the doubles the bps were rounded from (not in the
 * reference's object; for tests and diagnostics).
 */
struct gates_bps_interval {
	double		 lower_bps;
	double		 upper_bps;
	double		 estimate_bps;
	double		 n;
	int		 method;	/* GATES_METHOD_* */
	double		 low;
	double		 high;
	double		 estimate;
};
/* toBpsInterval: outward rounding; needs finite low <= estimate <= high. */
int	 gates_to_bps_interval(double low, double high, double estimate,
	    double n, int method, struct gates_bps_interval *out, char *err,
	    size_t errlen);
/*
 * pairedBinaryDifferenceInterval; counts NULL is the missing table.  The
 * evaluator passes GATES_PAIRED_TANGO for a gate method "tango" and
 * GATES_PAIRED_NEWCOMBE10 otherwise (spec 8.4); other values are the
 * reference's unknown method.
 */
int	 gates_paired_difference(const struct gates_paired_counts *counts,
	    double level_bps, int method, struct gates_bps_interval *out,
	    char *err, size_t errlen);

#define GATES_NI_NON_INFERIOR		1
#define GATES_NI_NOT_NON_INFERIOR	2
#define GATES_NI_INSUFFICIENT		3	/* malformed interval */
/*
 * pairedNonInferiority: the margin must be a safe integer in [-10000, 0]
 * (GATES_STATS_INVALID otherwise); a malformed interval (or NULL) is a
 * verdict, GATES_NI_INSUFFICIENT, not an error.  reason gets the
 * reference's reason string.
 */
int	 gates_paired_noninferiority(const struct gates_bps_interval *iv,
	    double margin_bps, int *decision, const char **reason, char *err,
	    size_t errlen);

/* Percentile bootstrap of a mean difference (stats_bootstrap.c, 9.7). */
#define GATES_BOOTSTRAP_MAX_RESAMPLES	1000000
/*
 * pairedMeanDifferenceBootstrap.  bounds has nbounds numbers (the
 * reference wants exactly 2).  The resample means need resamples doubles:
 * pass work with nwork >= resamples, or work NULL to have them allocated
 * for the call (at most GATES_BOOTSTRAP_MAX_RESAMPLES doubles, 8 MB;
 * GATES_STATS_NOMEM if that fails, GATES_STATS_LIMIT if nwork is short).
 * Both checks come after the reference's validation.
 */
int	 gates_bootstrap_paired_mean(const double *differences, size_t ndiff,
	    double level_bps, double seed, double resamples,
	    const double *bounds, size_t nbounds, double *work, size_t nwork,
	    struct gates_bps_interval *out, char *err, size_t errlen);
/* ---- end statistics ---- */

#endif /* SBX_GATES_H */
