/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * gates.h: the one header of gates/ -- the gate evaluation engine of
 * interop.md part G, a library of pure functions linked by the provider
 * runner and sbxctl.
 *
 * Each block belongs to one group of source files; keep declarations in
 * the block of the files that define them.
 */
#ifndef SBX_GATES_H
#define SBX_GATES_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

/* ---- statistics (gates/stats*.c) ---- */
/*
 * The statistics of interop.md §G9, bit for bit as the reference's
 * JavaScript computes them: every operation in JavaScript's left-to-right
 * order, in double precision, and with JavaScript's Math.round, Math.min
 * and Math.max.  Numbers that come from a gate document or a metrics
 * document (counts, levels, seeds, margins) are taken as doubles, the
 * reference's numbers, and validated here, so the engine passes JSON
 * numbers through unchanged; a non-number in the document is passed as
 * NaN, which fails every check the reference makes of it with the same
 * message.
 *
 * Math.log and Math.exp are V8's (fdlibm's algorithms, gates/jsmath.c),
 * not the C library's, whose last bits differ and would move a
 * Clopper-Pearson figure by one bps where the root is a bps boundary.
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
/* Math.log and Math.exp as V8 computes them (jsmath.c). */
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

/* ---- engine ---------------------------------------------------------- */

/*
 * What refused, as the reference's error classes: the CLI prints only the
 * message, but tests and callers tell a schema failure from a registry
 * or an evaluation refusal.
 */
enum gates_errkind {
	GATES_OK = 0,
	GATES_E_ADMISSION,	/* EntryAdmissionError */
	GATES_E_SCHEMA,		/* GateSchemaError */
	GATES_E_REGISTRY,	/* GateRegistryError */
	GATES_E_EVALUATION,	/* GateEvaluationError */
	GATES_E_INPUT		/* the CLI's file loaders (plain Error) */
};

#define GATES_ERRMSG_MAX	4096
struct gates_error {
	enum gates_errkind	 kind;
	char			 msg[GATES_ERRMSG_MAX];
};

int	 gates_fail(struct gates_error *, enum gates_errkind, const char *, ...)
	    SBX_PRINTF(3, 4);
/* "prefix: " before the message already there. */
void	 gates_prefix(struct gates_error *, const char *, ...)
	    SBX_PRINTF(2, 3);

/* ---- tree.c: reading and building json_value trees --------------------- */
int	 gt_str_is(const struct json_value *, const char *);
int	 gt_is_obj(const struct json_value *);
int	 gt_is_str(const struct json_value *);
int	 gt_is_num(const struct json_value *);
/* Number.isSafeInteger */
int	 gt_is_safeint(const struct json_value *);
/* A string as malloc'd UTF-8 (lone surrogates become U+FFFD): never NULL
 * for a string; NULL for anything else. */
char	*gt_cstr(const struct json_value *);
char	*gt_jstr_cstr(const struct json_string *);
/* A string value's UTF-8 into dst, truncated; "" for a non-string. */
void	 gt_strlcpy(char *, const struct json_value *, size_t);
void	 gt_copy(struct json_value *, const struct json_value *);
struct json_value *gt_dup(const struct json_value *);
void	 gt_set_obj(struct json_value *);
void	 gt_set_arr(struct json_value *);
/* Append a member (no check for an existing one) / an element. */
struct json_value *gt_add(struct json_value *, const char *);
struct json_value *gt_push(struct json_value *);
void	 gt_set_str(struct json_value *, const char *);
void	 gt_set_num(struct json_value *, double);
void	 gt_set_bool(struct json_value *, int);
void	 gt_set_null(struct json_value *);
/* Structural equality as canonical JSON would see it (key order aside). */
int	 gt_equal(const struct json_value *, const struct json_value *);
/* 1 if the array (NULL or not an array: none) holds an element gt_equal
 * to the value. */
int	 gt_in_array(const struct json_value *, const struct json_value *);
/* Canonical JSON text equality (interop.md §G2.7 "compared as canonical"). */
int	 gt_canon_equal(const struct json_value *, const struct json_value *);
/* Remove a member by key; 1 if it was there. */
int	 gt_remove(struct json_value *, const char *);

/* ---- admit.c: admitEntry (interop.md §P2) ----------------------------- */
#define GATES_ADMIT_BYTES	262144
#define GATES_ADMIT_DEPTH	32
#define GATES_ADMIT_PROPS	4096
#define GATES_ADMIT_ARRAY	4096
#define GATES_ADMIT_STRING	65536
#define GATES_ADMIT_ENTRIES	8192
/* 0, or -1 with "Decision entry rejected: <reason>". */
int	 gates_admit(const struct json_value *, struct gates_error *);
/* admitEntry, then the canonical digest (artifactDigest). */
int	 gates_digest(const struct json_value *, char[DIGEST_STR_LEN + 1],
	    struct gates_error *);

/* ---- doc.c: parseDecisionJson / parseDecisionYaml ---------------------- */
#define GATES_DOC_MAX		262144	/* serialized-bytes */
/*
 * Parse a document's bytes: JSON when is_json (the path ends in .json,
 * case-insensitive), YAML otherwise; then admitEntry.  0 and *out, or -1.
 */
int	 gates_doc_parse(const void *, size_t, int is_json,
	    struct json_value **, struct gates_error *);
/*
 * A report as gates evaluate printed it, for gates verify: its members
 * are bounded by admitEntry as every document's (the evaluator digests
 * it), but its two-space indentation can take the text past
 * GATES_DOC_MAX, so the text alone has a larger cap.
 */
#define GATES_REPORT_TEXT_MAX	(4 * GATES_DOC_MAX)
int	 gates_report_parse(const void *, size_t, int is_json,
	    struct json_value **, struct gates_error *);
int	 gates_path_is_json(const char *);
int	 gates_path_is_doc(const char *);
int	 gates_path_is_pack(const char *);

/* ---- bundle.c: a pack bundle's manifest.json (interop.md §G11.2) ------- */
#define GATES_MANIFEST_MAX	65536	/* MANIFEST_MAX_BYTES */
#define GATES_PACKS_DIR		"gate-packs"
struct gates_bundle_decl {
	char		*dir;		/* entry.gatePacks; NULL: gate-packs */
	char		**names;	/* the filter, when has_names */
	size_t		 nnames;
	int		 has_names;
};
/* JSON.parse of an object within the cap: 0, or -1 (read as no manifest). */
int	 gates_manifest_parse(const void *, size_t, struct json_value **);
/* readBundleGatePacksDeclaration; manifest NULL: the empty declaration. */
void	 gates_bundle_declaration(const struct json_value *,
	    struct gates_bundle_decl *);
void	 gates_bundle_decl_free(struct gates_bundle_decl *);
int	 gates_bundle_wants(const struct gates_bundle_decl *, const char *);
/* SAFE_RELATIVE_DIR: segments of [A-Za-z0-9_-], no "..", no leading "/". */
int	 gates_packs_dir_ok(const char *);
/* A pack file's short name (no .gatepack.* suffix), into buf. */
const char *gates_pack_short(const char *, char *, size_t);
/* originForPackDir's {id, type} claim: the id (malloc'd), or NULL. */
char	*gates_bundle_claim(const struct json_value *);
/* node's "<CODE>: <text>, <syscall> '<path>'" for a failed call. */
void	 gates_io_error(struct gates_error *, int, const char *,
	    const char *);

/* ---- jsdate.c: Date.parse ---------------------------------------------- */
/*
 * The ECMAScript Date Time String Format as V8's Date.parse reads it:
 * 0 and epoch milliseconds, or -1 (NaN).  A date-time without an offset is
 * local time in JavaScript; sbx reads it as UTC (sbx-gates(5)).
 */
int	 gates_date_parse(const char *, int64_t *);
int	 gates_date_parse_v(const struct json_value *, int64_t *);
/* ajv-formats "date-time" (full mode, time zone required). */
int	 gates_format_datetime(const char *);

/* ---- schema.c, schemas.c: the closed JSON Schemas ---------------------- */
enum gates_schema {
	GATES_SCHEMA_PACK,
	GATES_SCHEMA_BINDING,
	GATES_SCHEMA_REPORT
};
/*
 * validateGateDocument: "Gate document must be an object", "Unsupported
 * gate kind/version '<apiVersion>:<kind>'" or "<kind> schema validation
 * failed: <path> <message>; ..." (Ajv's wording and order).
 */
int	 gates_validate_document(const struct json_value *,
	    struct gates_error *);
/* One schema by name; errors joined into err->msg as Ajv's errorsText. */
int	 gates_schema_check(enum gates_schema, const struct json_value *,
	    const char *prefix, struct gates_error *);
const char *gates_schema_text(enum gates_schema);
/* Regular expressions the schemas use, by their source text. */
int	 gates_pattern_match(const char *pattern, const char *);
int	 gates_digest_ok(const char *);
int	 gates_semver_ok(const char *);
int	 gates_param_name_ok(const char *);

/* ---- providers.c: the core metric providers (interop.md §G4.4) --------- */
enum gates_metric_kind {
	GATES_MK_NONE = 0,
	GATES_MK_PROPORTION,
	GATES_MK_PAIRED,
	GATES_MK_SCALAR,
	GATES_MK_DIFFERENCES,
	GATES_MK_EVIDENCE
};
struct gates_provider_metric {
	const char		*name;
	enum gates_metric_kind	 kind;
	const char		*description;	/* NULL: only kind */
};
struct gates_provider {
	const char				*id;
	const char				*version;
	const struct gates_provider_metric	*metrics;
	size_t					 nmetrics;
	/* A bundle provider's code digest; NULL for core providers. */
	const char				*code_digest;
	/* A bundle provider's source digest as issued; NULL: computed. */
	const char				*source_digest;
};
const struct gates_provider *gates_core_providers(size_t *);
const char *gates_metric_kind_name(enum gates_metric_kind);
enum gates_metric_kind gates_metric_kind_parse(const struct json_value *);
/* artifactDigest({id, version, metrics}) */
int	 gates_provider_source_digest(const struct gates_provider *,
	    char[DIGEST_STR_LEN + 1]);

/* ---- registry.c: packs and ids (interop.md §G2.3, §G2.4) --------------- */
#define GATES_NS_MAX		16
struct gates_pack {
	char			*id;
	char			 ns[GATES_NS_MAX];
	struct json_value	*authored;	/* owned */
	struct json_value	*composed;	/* owned */
	char			 digest[DIGEST_STR_LEN + 1];
	char			 resolved_digest[DIGEST_STR_LEN + 1];
};

struct gates_registry {
	struct gates_pack			*packs;
	size_t					 npacks;
	const struct gates_provider		*providers;
	size_t					 nproviders;
	/* Providers of other registries (bundle providers), if any. */
	const struct gates_provider		*extra;
	size_t					 nextra;
};

void	 gates_registry_init(struct gates_registry *);
void	 gates_registry_free(struct gates_registry *);
const struct gates_provider *gates_registry_provider(
	    const struct gates_registry *, const char *);
/* splitPackId: 0 and ns/rest (rest malloc'd), or -1. */
int	 gates_split_pack_id(const char *, char ns[GATES_NS_MAX], char **rest,
	    struct gates_error *);
/*
 * registerPack(doc, origin): takes ownership of doc on success.  bundle
 * is NULL for project packs.
 */
int	 gates_register_pack(struct gates_registry *, struct json_value *doc,
	    const char *ns, const char *bundle, struct gates_error *);
/*
 * Lookup by full id or a rest path owned by exactly one namespace.  The
 * pointer is valid until the next registration (the array grows).
 */
const struct gates_pack *gates_registry_lookup(const struct gates_registry *,
	    const char *, struct gates_error *);
const struct gates_pack *gates_registry_find(const struct gates_registry *,
	    const char *);

/* ---- param.c: parameters and their references ----------------------- */
/* spec.parameters of a pack (NULL when absent). */
const struct json_value *gp_params(const struct json_value *pack);
const struct json_value *gp_gates(const struct json_value *pack);
/* {param: string}: isParamRef */
int	 gp_is_ref(const struct json_value *);
/* resolveNumberDefault: absent, null (unresolvable) or a number. */
enum gp_rn { GP_UNDEF, GP_NULL, GP_VALUE };
enum gp_rn gp_resolve_default(const struct json_value *value,
	    const struct json_value *params, const char *type, double *);
/* resolveThresholdDefault */
enum gp_rn gp_threshold_default(const struct json_value *gate,
	    const struct json_value *params, double *);
/* ${n} of a JavaScript template. */
const char *gp_num(double, char[JSON_NUMBER_BUFSZ]);
/* "<packId>.<param>" */
char	*gp_qualify(const char *pack_id, const struct json_value *name);

/* ---- validate.c: validateResolvedPack (interop.md §G2.5) --------------- */
int	 gates_validate_pack(const struct json_value *pack,
	    const struct gates_registry *, struct gates_error *);

/* ---- compose.c: extends and tightening (interop.md §G2.6, §G2.7) ------- */
/* The composed pack as a new tree (a pack without extends: a copy with
 * parameters always present). */
int	 gates_compose(const struct gates_registry *, const struct json_value *,
	    struct json_value **, struct gates_error *);
/* assertGateTightens: 0, or -1 with the reason (no prefix). */
int	 gates_gate_tightens(const struct json_value *parent,
	    const struct json_value *child, const struct json_value *params,
	    struct gates_error *);

/* ---- floors.c: the gates configuration (interop.md §G6) ---------------- */
struct gates_floors {
	struct json_value	*object;	/* {floors, ceilings[, providers]} */
	int			 opt_out;	/* 'none-explicit-opt-out' */
};
/* validateGatesConfig: the error list, one per line; 0 when valid. */
int	 gates_config_validate(const struct json_value *gates,
	    const struct gates_registry *, char **errors);
/* resolveProjectFloors(gates) into f->object. */
void	 gates_floors_resolve(const struct json_value *gates,
	    struct gates_floors *);
void	 gates_floors_free(struct gates_floors *);

/* ---- binding.c: resolveGateBinding (interop.md §G3.2) ------------------ */
struct gates_rpack {
	const struct gates_pack	*pack;
};
struct gates_resolved {
	const struct json_value	*binding;
	struct gates_rpack	*packs;		/* pin order */
	size_t			 npacks;
	struct json_value	 params;	/* qualified name -> number */
};
int	 gates_resolve_binding(const struct gates_registry *,
	    const struct json_value *binding, const struct gates_floors *,
	    struct gates_resolved *, struct gates_error *);
void	 gates_resolved_free(struct gates_resolved *);
/* Floors expansion and enforcement (floors.c). */
int	 gates_enforce_floors(const struct gates_registry *,
	    const struct gates_resolved *, const struct gates_floors *,
	    struct gates_error *);

/* ---- upstream.c: the upstream allowlist and ceiling (interop.md §G5.2) --- */
enum gates_outcome {
	GATES_PROMOTE = 0,
	GATES_HOLD = 1,
	GATES_ROLLBACK = 2
};
const char *gates_outcome_name(enum gates_outcome);
int	 gates_outcome_parse(const struct json_value *, enum gates_outcome *);
#define GATES_UPSTREAM_PROBLEMS_MAX	10
struct gates_upstream_verdict {
	const char		*problems[GATES_UPSTREAM_PROBLEMS_MAX];
	size_t			 nproblems;
	int			 compromised;
	enum gates_outcome	 ceiling;
};
/* metadata NULL: no upstream. */
void	 gates_upstream_judge(const struct json_value *metadata,
	    struct gates_upstream_verdict *);

/* ---- predicate.c: DecisionPredicate (interop.md §G8.4) ----------------- */
enum gates_tri { GATES_FALSE = 0, GATES_TRUE = 1, GATES_UNKNOWN = 2 };
enum gates_tri gates_predicate_eval(const struct json_value *pred,
	    const struct json_value *input);
/* RFC 6901 on a tree: the value or NULL. */
const struct json_value *gates_json_pointer(const struct json_value *,
	    const struct json_value *pointer);

/* ---- evaluate.c, kinds.c, report.c: evaluateGates (interop.md §G8, §G10) --- */
/*
 * interop.md §P7 step 5 for one bundle pin, as the caller (the provider
 * runner) did it: the engine stays pure, so the isolated re-run happens
 * outside it, between a precheck call (refusals 1-19) and the evaluating
 * call, which takes the sealed sections from here.
 */
struct gates_rerun {
	const char		*id;
	int			 covered;	/* records and an issued provider */
	const char		*refusal;	/* the pin's step-5 refusal */
	const struct json_value	*section;	/* sealed re-run section */
};
struct gates_eval_input {
	const struct json_value		*binding;
	const char			*trusted_binding_digest;
	/* {frozenDigest, firstAccessedAt, digest}; NULL: none */
	const struct json_value		*holdout;
	const struct json_value		*metrics;
	/* {metadata, digest}; NULL: no upstream */
	const struct json_value		*upstream;
	const struct gates_floors	*floors;	/* NULL: refused */
	const char			*now;
	const char			*attestation;	/* NULL: none */
	/* Stop after refusal 19: 0 and no report when none refused. */
	int				 precheck;
	const struct gates_rerun	*reruns;	/* by pin id */
	size_t				 nreruns;
};
/* 0 and the report tree (with its digest), or -1. */
int	 gates_evaluate(const struct gates_registry *,
	    const struct gates_eval_input *, struct json_value **report,
	    struct gates_error *);
enum gates_outcome gates_report_decision(const struct json_value *);

/* kinds.c: one target of one gate (evaluateObservation), for evaluate.c. */
struct gates_target_ctx {
	const char			*pack_id;
	const struct json_value		*params;	/* qualified -> number */
	const struct json_value		*input;		/* predicate input */
	const struct json_value		*upstream;	/* NULL: none */
	int64_t				 now_ms;
};
struct gates_target_eval {
	const char	*status;	/* pass, fail, insufficient */
	const char	*reason;
	int		 has_n;
	double		 n;
	int		 events_set;	/* events key present */
	int		 events_null;
	double		 events;
	int		 stat_set;	/* statistic present */
	int		 stat_full;	/* with level and the three bps */
	char		 method[32];
	double		 level, lower, upper, estimate;
	int		 thr_set;	/* threshold present */
	const char	*op;
	int		 thr_value;	/* value (1) or param (0) or neither */
	int		 thr_param;
	double		 value;
	const struct json_value	*param;
	double		 resolved;
};
void	 gates_eval_target(const struct json_value *gate,
	    const struct json_value *observation, const char *metric_kind,
	    const struct gates_target_ctx *, struct gates_target_eval *);
/* poolObservations: a new tree, or NULL (pooling refused). */
struct json_value *gates_pool(const char *metric_kind,
	    const struct json_value *const *, size_t);

/* ---- verify.c: validateGateReport (interop.md §G10.3) ------------------ */
/*
 * Is report what in gives?  The trusted inputs as gates_evaluate takes
 * them (in->now is not used: the re-evaluation runs at the report's own
 * evaluatedAt; in->precheck neither).  provider_runtime: the caller
 * re-runs bundle providers (in->reruns), so a metrics document that
 * differs for a binding pinning one is not a mismatch by itself.
 * *out is {valid, reasons} with the reference's reasons in its order;
 * the return is valid (1) or not (0).  Never a refusal: an input the
 * evaluator refuses is the reason "report-reevaluation:<message>".
 */
int	 gates_verify(const struct gates_registry *,
	    const struct gates_eval_input *in, int provider_runtime,
	    const struct json_value *report, struct json_value **out);

/* ---- seal.c: holdout and upstream records (interop.md §G5) ------------- */
int	 gates_seal_holdout(const char *frozen_digest, const char *accessed_at,
	    struct json_value **, struct gates_error *);
/* The CLI loaders: the tree as the evaluator takes it, or -1. */
int	 gates_load_holdout(const struct json_value *, const char *path,
	    struct json_value **, struct gates_error *);
int	 gates_load_upstream(const struct json_value *, const char *path,
	    struct gates_error *);

/* ---- print.c: JSON.stringify(value, null, 2) -------------------------- */
/* malloc'd text with a trailing newline. */
char	*gates_print_pretty(const struct json_value *);

/* ---- shipped.c: the reference's decision-engine packs ----------------- */
struct gates_shipped {
	const char	*bundle;
	const char	*file;
	const char	*text;
};
const struct gates_shipped *gates_shipped_packs(size_t *);
/* Register the core providers and the shipped packs. */
int	 gates_registry_bootstrap(struct gates_registry *,
	    struct gates_error *);

/* ---- read.c: gate documents from descriptors ------------------------- */
struct gates_registry;
struct gates_floors;
struct gates_error;
struct json_value;
/* A document (the .json rule by name), read bounded and parsed. */
int	 gread_doc(int, const char *, struct json_value **,
	    struct gates_error *);
/* A report for gates verify: the larger text cap of its indentation. */
int	 gread_report(int, const char *, struct json_value **,
	    struct gates_error *);
/* The operator's gate-packs directory: BUNDLE/gate-packs/ as aiwg:. */
int	 gread_operator_packs(struct gates_registry *, int, const char *,
	    struct gates_error *);
/* An agent's --pack-dir (a pack file or a bundle directory; fd -1: the
 * errno met reaching it), beside the operator's gate-packs (or -1). */
int	 gread_pack_dir(struct gates_registry *, int, int, const char *, int,
	    struct gates_error *);
/* Floors from the gates configuration's bytes (NULL: none). */
int	 gread_floors(const struct gates_registry *, const unsigned char *,
	    size_t, struct gates_floors *, struct gates_error *);
/* Floors from the gates configuration's descriptor (fd -1: errno). */
int	 gread_config(const struct gates_registry *, int, int, const char *,
	    struct gates_floors *, struct gates_error *);


#endif /* SBX_GATES_H */
