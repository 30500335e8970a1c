/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * kinds.c: one gate over one target observation (interop.md §G8.3, §G8.4)
 * and the pooling of the pooled scope (4.3).  Every shortfall -- a missing
 * observation, unknown support, an unresolved parameter, a statistic the
 * data cannot support -- is `insufficient`, which holds and never
 * promotes; only an observed breach is `fail`.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates.h"

#define ERRSZ	GATES_STATS_ERRSZ

/* supportOf: n when it is a safe integer >= 0. */
static int
support(const struct json_value *obs, double *n)
{
	const struct json_value	*v = json_get(obs, "n");

	if (!gt_is_safeint(v) || v->u.number < 0)
		return 0;
	*n = v->u.number;
	return 1;
}

static int
is_count(const struct json_value *v)
{
	return gt_is_safeint(v) && v->u.number >= 0;
}

/* resolveGateNumber: literal, or the binding's qualified value. */
static int
gate_number(const struct json_value *v, const struct gates_target_ctx *ctx,
    double *out)
{
	const struct json_value	*r;
	char			*q;

	if (v == NULL)
		return 0;
	if (gt_is_num(v)) {
		*out = v->u.number;
		return 1;
	}
	if (!gp_is_ref(v))
		return 0;
	q = gp_qualify(ctx->pack_id, json_get(v, "param"));
	r = json_get(ctx->params, q);
	free(q);
	if (!gt_is_num(r))
		return 0;
	*out = r->u.number;
	return 1;
}

static int
threshold_value(const struct json_value *gate,
    const struct gates_target_ctx *ctx, double *out)
{
	const struct json_value	*t = json_get(gate, "threshold"), *v, *r;
	char			*q;

	if ((v = json_get(t, "value")) != NULL) {
		*out = v->u.number;
		return 1;
	}
	if ((v = json_get(t, "param")) != NULL) {
		q = gp_qualify(ctx->pack_id, v);
		r = json_get(ctx->params, q);
		free(q);
		if (!gt_is_num(r))
			return 0;
		*out = r->u.number;
		return 1;
	}
	return 0;
}

static void
set_threshold(const struct json_value *gate, double target,
    struct gates_target_eval *ev)
{
	const struct json_value	*t = json_get(gate, "threshold");

	ev->thr_set = 1;
	ev->op = gt_str_is(json_get(t, "op"), "lte") ? "lte" : "gte";
	if (json_get(t, "value") != NULL) {
		ev->thr_value = 1;
		ev->value = json_get(t, "value")->u.number;
	} else {
		ev->thr_param = 1;
		ev->param = json_get(t, "param");
	}
	ev->resolved = target;
}

static void
set_stat(struct gates_target_eval *ev, const char *method)
{
	ev->stat_set = 1;
	strlcpy(ev->method, method, sizeof(ev->method));
}

static void
set_full(struct gates_target_eval *ev, const struct json_value *mv,
    const char *dflt, double level, double lo, double up, double est)
{
	char	*m = gt_cstr(mv);

	set_stat(ev, m != NULL ? m : dflt);
	free(m);
	ev->stat_full = 1;
	ev->level = level;
	ev->lower = lo;
	ev->upper = up;
	ev->estimate = est;
}

static void
insufficient(struct gates_target_eval *ev, const char *reason)
{
	ev->status = "insufficient";
	ev->reason = reason;
}

static void
verdict(struct gates_target_eval *ev, int passed, const char *ok,
    const char *bad)
{
	ev->status = passed ? "pass" : "fail";
	ev->reason = passed ? ok : bad;
}

/* events checks of interval-bound and the counts: 0 to go on. */
static int
events_of(const struct json_value *obs, struct gates_target_eval *ev)
{
	const struct json_value	*e = json_get(obs, "events");

	ev->events_set = 1;
	if (!is_count(e)) {
		ev->events_null = 1;
		insufficient(ev, "events-unknown");
		return -1;
	}
	ev->events = e->u.number;
	if (ev->events > ev->n) {
		insufficient(ev, "events-exceed-n");
		return -1;
	}
	return 0;
}

static void
interval_bound(const struct json_value *gate, const struct json_value *obs,
    const struct gates_target_ctx *ctx, struct gates_target_eval *ev)
{
	const struct json_value	*stat = json_get(gate, "statistic");
	struct gates_cp_input	 cp;
	char			 err[ERRSZ];
	double			 target, level, lo, up, lb, ub, eb;
	int			 r;

	if (events_of(obs, ev) == -1)
		return;
	if (!threshold_value(gate, ctx, &target) ||
	    !gate_number(json_get(stat, "levelBps"), ctx, &level)) {
		insufficient(ev, "parameter-missing");
		return;
	}
	if (gt_str_is(json_get(stat, "method"), "clopper-pearson")) {
		memset(&cp, 0, sizeof(cp));
		cp.events = ev->events;
		cp.n = ev->n;
		cp.level_bps = level;
		cp.sided = GATES_CP_TWO_SIDED;
		r = gates_clopper_pearson(&cp, &lo, &up, err, sizeof(err));
	} else
		r = gates_wilson_interval(ev->events, ev->n, level, &lo, &up,
		    err, sizeof(err));
	if (r != GATES_STATS_OK) {
		insufficient(ev, "statistic-invalid");
		return;
	}
	gates_proportion_bps(lo, up, ev->events, ev->n, &lb, &ub, &eb);
	verdict(ev, gt_str_is(json_get(stat, "bound"), "upper") ? ub <= target :
	    lb >= target, "bound-within-threshold", "bound-breaches-threshold");
	set_full(ev, json_get(stat, "method"), "wilson", level, lb, ub, eb);
	set_threshold(gate, target, ev);
}

static void
paired_difference(const struct json_value *gate, const struct json_value *obs,
    const struct gates_target_ctx *ctx, struct gates_target_eval *ev)
{
	static const char *const cells[] = { "both", "candidateOnly",
	    "baselineOnly", "neither" };
	const struct json_value		*stat = json_get(gate, "statistic");
	const struct json_value		*p = json_get(obs, "paired"), *c[4], *mode;
	struct gates_paired_counts	 pc;
	struct gates_bps_interval	 iv;
	const char			*why;
	char				 err[ERRSZ];
	double				 level, margin, sum = 0;
	size_t				 i;
	int				 decision;

	if (!gt_is_obj(p)) {
		insufficient(ev, "paired-unknown");
		return;
	}
	for (i = 0; i < 4; i++) {
		c[i] = json_get(p, cells[i]);
		if (!is_count(c[i])) {
			insufficient(ev, "paired-unknown");
			return;
		}
		sum += c[i]->u.number;
	}
	if (ev->n != sum) {
		insufficient(ev, "observation-mismatch");
		return;
	}
	if (!gate_number(json_get(stat, "levelBps"), ctx, &level)) {
		insufficient(ev, "parameter-missing");
		return;
	}
	memset(&pc, 0, sizeof(pc));
	pc.form = GATES_PAIRED_TABLE;
	pc.both = c[0]->u.number;
	pc.candidate_only = c[1]->u.number;
	pc.baseline_only = c[2]->u.number;
	pc.neither = c[3]->u.number;
	if (gates_paired_difference(&pc, level,
	    gt_str_is(json_get(stat, "method"), "tango") ? GATES_PAIRED_TANGO :
	    GATES_PAIRED_NEWCOMBE10, &iv, err, sizeof(err)) != GATES_STATS_OK) {
		insufficient(ev, "paired-invalid");
		return;
	}
	mode = json_get(stat, "mode");
	margin = gt_is_num(json_get(stat, "marginBps")) ?
	    json_get(stat, "marginBps")->u.number : 0;
	set_full(ev, json_get(stat, "method"), "newcombe", level, iv.lower_bps,
	    iv.upper_bps, iv.estimate_bps);
	ev->thr_set = 1;
	ev->op = "gte";
	ev->resolved = margin;
	if (mode == NULL || gt_str_is(mode, "non-inferiority")) {
		/* Load validation keeps the margin in range: an error here
		 * is the reference's uncaught throw, treated as invalid. */
		if (gates_paired_noninferiority(&iv, margin, &decision, &why,
		    err, sizeof(err)) != GATES_STATS_OK ||
		    decision == GATES_NI_INSUFFICIENT) {
			insufficient(ev, "paired-invalid");
			return;
		}
		verdict(ev, decision == GATES_NI_NON_INFERIOR,
		    "lower-bound-at-or-above-margin", "lower-bound-below-margin");
		return;
	}
	verdict(ev, iv.lower_bps > margin, "lower-bound-above-margin",
	    "lower-bound-at-or-below-margin");
}

static double
num_or_nan(const struct json_value *v)
{
	return gt_is_num(v) ? v->u.number : NAN;
}

static void
bootstrap_bound(const struct json_value *gate, const struct json_value *obs,
    const struct gates_target_ctx *ctx, struct gates_target_eval *ev)
{
	const struct json_value		*stat = json_get(gate, "statistic");
	const struct json_value		*d = json_get(obs, "differences"), *bv;
	struct gates_bps_interval	 iv;
	char				 err[ERRSZ];
	double				*diffs, bounds[2], target, level;
	size_t				 i, nb = 0;
	int				 r;

	if (d == NULL || d->type != JSON_ARRAY) {
		insufficient(ev, "differences-unknown");
		return;
	}
	if ((double)d->u.array.n != ev->n) {
		insufficient(ev, "observation-mismatch");
		return;
	}
	if (!threshold_value(gate, ctx, &target) ||
	    !gate_number(json_get(stat, "levelBps"), ctx, &level)) {
		insufficient(ev, "parameter-missing");
		return;
	}
	diffs = xcalloc(d->u.array.n + 1, sizeof(*diffs));
	for (i = 0; i < d->u.array.n; i++)
		diffs[i] = num_or_nan(&d->u.array.v[i]);
	bv = json_get(stat, "bounds");
	if (bv != NULL && bv->type == JSON_ARRAY)
		for (i = 0; i < bv->u.array.n && nb < 2; i++)
			bounds[nb++] = num_or_nan(&bv->u.array.v[i]);
	if (bv != NULL && bv->type == JSON_ARRAY && bv->u.array.n != 2)
		nb = bv->u.array.n > 2 ? 3 : nb;	/* not a pair: refused */
	r = gates_bootstrap_paired_mean(diffs, d->u.array.n, level,
	    num_or_nan(json_get(stat, "seed")),
	    num_or_nan(json_get(stat, "resamples")), bounds, nb > 2 ? 0 : nb,
	    NULL, 0, &iv, err, sizeof(err));
	free(diffs);
	if (r != GATES_STATS_OK) {
		insufficient(ev, "statistic-invalid");
		return;
	}
	verdict(ev, gt_str_is(json_get(stat, "bound"), "upper") ?
	    iv.upper_bps <= target : iv.lower_bps >= target,
	    "bound-within-threshold", "bound-breaches-threshold");
	set_stat(ev, "bootstrap");
	ev->stat_full = 1;
	ev->level = level;
	ev->lower = iv.lower_bps;
	ev->upper = iv.upper_bps;
	ev->estimate = iv.estimate_bps;
	set_threshold(gate, target, ev);
}

static void
counts(const struct json_value *gate, const struct json_value *obs,
    const struct gates_target_ctx *ctx, struct gates_target_eval *ev)
{
	double	 target;

	if (events_of(obs, ev) == -1)
		return;
	if (!threshold_value(gate, ctx, &target)) {
		insufficient(ev, "parameter-missing");
		return;
	}
	verdict(ev, gt_str_is(json_get(gate, "kind"), "count-max") ?
	    ev->events <= target : ev->events >= target,
	    "count-within-threshold", "count-breaches-threshold");
	set_stat(ev, "exact-count");
	set_threshold(gate, target, ev);
}

static void
value_threshold(const struct json_value *gate, const struct json_value *obs,
    const struct gates_target_ctx *ctx, struct gates_target_eval *ev)
{
	const struct json_value	*v = json_get(obs, "value");
	double			 target;

	if (!gt_is_num(v)) {
		insufficient(ev, "value-unknown");
		return;
	}
	if (!threshold_value(gate, ctx, &target)) {
		insufficient(ev, "parameter-missing");
		return;
	}
	verdict(ev, gt_str_is(json_get(json_get(gate, "threshold"), "op"), "lte") ?
	    v->u.number <= target : v->u.number >= target,
	    "value-within-threshold", "value-breaches-threshold");
	set_stat(ev, "exact-value");
	set_threshold(gate, target, ev);
}

static void
evidence(const struct json_value *gate, const struct json_value *obs,
    const struct gates_target_ctx *ctx, struct gates_target_eval *ev)
{
	const struct json_value	*avail = json_get(obs, "available"), *req, *e;
	const struct json_value	*exp;
	size_t			 i, j;
	int64_t			 ms;

	if (avail == NULL || avail->type != JSON_ARRAY) {
		insufficient(ev, "evidence-unknown");
		return;
	}
	set_stat(ev, "evidence-present");
	req = json_get(json_get(gate, "evidence"), "required");
	for (i = 0; req != NULL && i < req->u.array.n; i++) {
		e = NULL;
		for (j = 0; j < avail->u.array.n && e == NULL; j++)
			if (gt_is_str(json_get(&avail->u.array.v[j], "id")) &&
			    gt_equal(json_get(&avail->u.array.v[j], "id"),
			    &req->u.array.v[i]))
				e = &avail->u.array.v[j];
		if (e == NULL) {
			insufficient(ev, "evidence-missing");
			return;
		}
		if (json_get(e, "passed") == NULL ||
		    json_get(e, "passed")->type != JSON_TRUE) {
			verdict(ev, 0, NULL, "evidence-failed");
			return;
		}
		exp = json_get(e, "expiresAt");
		if (exp != NULL && exp->type != JSON_NULL &&
		    (gates_date_parse_v(exp, &ms) == -1 || ms <= ctx->now_ms)) {
			verdict(ev, 0, NULL, "evidence-expired");
			return;
		}
	}
	verdict(ev, 1, "evidence-present", NULL);
}

void
gates_eval_target(const struct json_value *gate, const struct json_value *obs,
    const char *mkind, const struct gates_target_ctx *ctx,
    struct gates_target_eval *ev)
{
	struct gates_upstream_verdict	 uv;
	double				 minn = 0, target;
	char				 kind[32];
	enum gates_tri			 t;

	(void)mkind;
	memset(ev, 0, sizeof(*ev));
	gt_strlcpy(kind, json_get(gate, "kind"), sizeof(kind));
	ev->has_n = obs != NULL && support(obs, &ev->n);
	if (strcmp(kind, "upstream-ceiling") != 0 &&
	    strcmp(kind, "predicate") != 0 && strcmp(kind, "evidence") != 0) {
		if (obs == NULL || obs->type == JSON_NULL) {
			insufficient(ev, "metric-missing");
			return;
		}
		if (!ev->has_n) {
			insufficient(ev, "support-unknown");
			return;
		}
		if (json_get(gate, "minimumN") != NULL &&
		    !gate_number(json_get(gate, "minimumN"), ctx, &minn)) {
			insufficient(ev, "parameter-missing");
			return;
		}
		if (ev->n < minn) {
			insufficient(ev, "below-minimum-n");
			return;
		}
	}
	if (strcmp(kind, "minimum-n") == 0) {
		set_stat(ev, "support-count");
		if (!gate_number(json_get(gate, "minimumN"), ctx, &target)) {
			insufficient(ev, "parameter-missing");
			return;
		}
		if (ev->n >= target)
			verdict(ev, 1, "support-met", NULL);
		else
			insufficient(ev, "below-minimum-n");
	} else if (strcmp(kind, "interval-bound") == 0)
		interval_bound(gate, obs, ctx, ev);
	else if (strcmp(kind, "paired-difference") == 0)
		paired_difference(gate, obs, ctx, ev);
	else if (strcmp(kind, "bootstrap-bound") == 0)
		bootstrap_bound(gate, obs, ctx, ev);
	else if (strcmp(kind, "count-max") == 0 ||
	    strcmp(kind, "count-min") == 0)
		counts(gate, obs, ctx, ev);
	else if (strcmp(kind, "value-threshold") == 0)
		value_threshold(gate, obs, ctx, ev);
	else if (strcmp(kind, "evidence") == 0)
		evidence(gate, obs, ctx, ev);
	else if (strcmp(kind, "predicate") == 0) {
		set_stat(ev, "predicate");
		t = gates_predicate_eval(json_get(gate, "predicate"), ctx->input);
		if (t == GATES_TRUE)
			verdict(ev, 1, "predicate-true", NULL);
		else if (t == GATES_FALSE)
			verdict(ev, 0, NULL, "predicate-false");
		else
			insufficient(ev, "predicate-unknown");
	} else {
		set_stat(ev, "upstream-integrity");
		if (ctx->upstream == NULL) {
			insufficient(ev, "upstream-missing");
			return;
		}
		gates_upstream_judge(ctx->upstream, &uv);
		if (uv.nproblems == 0)
			verdict(ev, 1, "upstream-clean", NULL);
		else
			verdict(ev, 0, NULL, uv.compromised ?
			    "upstream-compromised" : "upstream-allowlist");
	}
}

/* ---- poolObservations (interop.md §G4.3) ------------------------------- */

struct json_value *
gates_pool(const char *kind, const struct json_value *const *obs, size_t n)
{
	static const char *const cells[] = { "both", "candidateOnly",
	    "baselineOnly", "neither" };
	struct json_value	*out, *arr, *p;
	const struct json_value	*c, *d;
	double			 sn = 0, se = 0, tot[4] = { 0, 0, 0, 0 }, w = 0;
	double			 on, sum;
	size_t			 i, j;

	if (n == 0)
		return NULL;
	out = xcalloc(1, sizeof(*out));
	gt_set_obj(out);
	if (strcmp(kind, "proportion") == 0) {
		for (i = 0; i < n; i++) {
			if (!support(obs[i], &on) ||
			    !is_count(json_get(obs[i], "events")) ||
			    json_get(obs[i], "events")->u.number > on)
				goto refuse;
			sn += on;
			se += json_get(obs[i], "events")->u.number;
		}
		gt_set_num(gt_add(out, "n"), sn);
		gt_set_num(gt_add(out, "events"), se);
	} else if (strcmp(kind, "paired") == 0) {
		for (i = 0; i < n; i++) {
			p = (struct json_value *)json_get(obs[i], "paired");
			if (!support(obs[i], &on) || !gt_is_obj(p))
				goto refuse;
			for (sum = 0, j = 0; j < 4; j++) {
				c = json_get(p, cells[j]);
				if (!is_count(c))
					goto refuse;
				sum += c->u.number;
			}
			if (on != sum)
				goto refuse;
			sn += on;
			for (j = 0; j < 4; j++)
				tot[j] += json_get(p, cells[j])->u.number;
		}
		gt_set_num(gt_add(out, "n"), sn);
		p = gt_add(out, "paired");
		gt_set_obj(p);
		for (j = 0; j < 4; j++)
			gt_set_num(gt_add(p, cells[j]), tot[j]);
	} else if (strcmp(kind, "scalar") == 0) {
		for (i = 0; i < n; i++) {
			if (!support(obs[i], &on) ||
			    !gt_is_num(json_get(obs[i], "value")))
				goto refuse;
			sn += on;
			w += on * json_get(obs[i], "value")->u.number;
		}
		if (sn == 0)
			goto refuse;
		gt_set_num(gt_add(out, "n"), sn);
		gt_set_num(gt_add(out, "value"), w / sn);
	} else if (strcmp(kind, "differences") == 0) {
		for (i = 0; i < n; i++) {
			d = json_get(obs[i], "differences");
			if (!support(obs[i], &on) || d == NULL ||
			    d->type != JSON_ARRAY)
				goto refuse;
			for (j = 0; j < d->u.array.n; j++)
				if (!gt_is_num(&d->u.array.v[j]))
					goto refuse;
			if (on != (double)d->u.array.n)
				goto refuse;
			sn += on;
		}
		gt_set_num(gt_add(out, "n"), sn);
		arr = gt_add(out, "differences");
		gt_set_arr(arr);
		for (i = 0; i < n; i++) {
			d = json_get(obs[i], "differences");
			for (j = 0; j < d->u.array.n; j++)
				gt_copy(gt_push(arr), &d->u.array.v[j]);
		}
	} else if (strcmp(kind, "evidence") == 0) {
		for (i = 0; i < n; i++) {
			d = json_get(obs[i], "available");
			if (d == NULL || d->type != JSON_ARRAY)
				goto refuse;
		}
		arr = gt_add(out, "available");
		gt_set_arr(arr);
		for (i = 0; i < n; i++) {
			d = json_get(obs[i], "available");
			for (j = 0; j < d->u.array.n; j++)
				gt_copy(gt_push(arr), &d->u.array.v[j]);
		}
	} else
		goto refuse;
	return out;
 refuse:
	json_free(out);
	return NULL;
}
