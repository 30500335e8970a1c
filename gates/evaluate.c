/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * evaluate.c: evaluateGates (interop.md §G8, §G10): the refusals in the
 * reference's order, the gate loop and the report with its self digest.
 *
 * Threat: an evaluation over inputs other than the preregistered ones.
 * The binding is resolved here from the registry (never taken resolved
 * from a caller), every pin and seal is recomputed, and every
 * precondition refuses before any gate observes any metric; the report
 * carries the digests of everything it was computed from.
 *
 * Pure: the caller (sbxctl offline, or the provider runner role) reads
 * the files; this only computes.  Bundle-provider sections need the
 * isolated re-run of interop.md §P7: the provider runner does it between
 * a precheck call and the evaluating call and hands the sealed sections
 * in (struct gates_rerun); without them a binding pinning a bundle
 * provider is refused as the reference's CLI refuses it.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates.h"

#define EVAL(...)	gates_fail(err, GATES_E_EVALUATION, __VA_ARGS__)

static enum gates_outcome
max_outcome(enum gates_outcome a, enum gates_outcome b)
{
	return a > b ? a : b;
}

static int
recheck_packs(const struct gates_registry *reg, const struct json_value *bnd,
    const struct gates_resolved *res, struct gates_error *err)
{
	const struct json_value	*pins = json_get(json_get(bnd, "spec"), "packs");
	const struct json_value	*pin;
	struct json_value	*composed;
	char			 d[DIGEST_STR_LEN + 1];
	size_t			 i, j;

	if (res->npacks != pins->u.array.n)
		return EVAL("binding pins do not match resolved packs 1:1");
	for (i = 0; i < res->npacks; i++) {
		const struct gates_pack	*p = res->packs[i].pack;

		if (gates_digest(p->authored, d, err) == -1 ||
		    strcmp(d, p->digest) != 0)
			return EVAL("pack digest mismatch for %s", p->id);
		/* The evaluator's own composition, never the stored one. */
		if (gates_compose(reg, p->authored, &composed, err) == -1)
			return -1;
		j = gates_digest(composed, d, err) == -1 ||
		    strcmp(d, p->resolved_digest) != 0;
		json_free(composed);
		if (j)
			return EVAL("composed pack digest mismatch for %s",
			    p->id);
		pin = NULL;
		for (j = 0; j < pins->u.array.n && pin == NULL; j++)
			if (gt_str_is(json_get(&pins->u.array.v[j], "id"), p->id))
				pin = &pins->u.array.v[j];
		if (pin == NULL || !gt_equal(json_get(pin, "version"),
		    json_get(json_get(p->authored, "metadata"), "version")) ||
		    !gt_str_is(json_get(pin, "digest"), p->digest) ||
		    !gt_str_is(json_get(pin, "resolvedDigest"),
		    p->resolved_digest))
			return EVAL("pack pin mismatch for %s", p->id);
	}
	return 0;
}

static const struct gates_rerun *
rerun_find(const struct gates_eval_input *in, const struct json_value *id)
{
	size_t	 i;

	for (i = 0; i < in->nreruns; i++)
		if (gt_str_is(id, in->reruns[i].id))
			return &in->reruns[i];
	return NULL;
}

static int
check_sections(const struct gates_eval_input *in,
    const struct json_value *metrics, struct gates_error *err)
{
	const struct json_value	*bnd = in->binding;
	const struct gates_rerun *rr;
	const struct json_value	*pins, *pin, *providers, *sec, *code, *rec;
	char			*id, *rs;
	size_t			 i, j;
	int			 ok, bad;

	pins = json_get(json_get(bnd, "spec"), "metricProviders");
	providers = json_get(metrics, "providers");
	for (i = 0; i < pins->u.array.n; i++) {
		pin = &pins->u.array.v[i];
		id = gt_cstr(json_get(pin, "id"));
		sec = json_get(providers, id);
		/* No caller section is needed where the re-run covers it. */
		rr = rerun_find(in, json_get(pin, "id"));
		if (sec == NULL && rr != NULL && rr->covered) {
			free(id);
			continue;
		}
		bad = sec == NULL || !gt_is_str(json_get(sec, "version")) ||
		    !gt_equal(json_get(sec, "version"), json_get(pin, "version")) ||
		    !gt_is_str(json_get(sec, "sourceDigest")) ||
		    !gt_equal(json_get(sec, "sourceDigest"),
		    json_get(pin, "sourceDigest"));
		code = json_get(pin, "codeDigest");
		if (!bad && gt_is_str(code)) {
			rec = json_get(sec, "recordsDigest");
			rs = gt_cstr(rec);
			bad = json_get(sec, "codeDigest") == NULL ||
			    !gt_equal(json_get(sec, "codeDigest"), code) ||
			    rs == NULL || !gates_digest_ok(rs);
			free(rs);
		} else if (!bad && json_get(sec, "codeDigest") != NULL)
			bad = 1;
		if (bad) {
			EVAL("metric provider pin mismatch for %s", id);
			free(id);
			return -1;
		}
		free(id);
	}
	for (i = 0; gt_is_obj(providers) && i < providers->u.object.n; i++) {
		for (ok = 0, j = 0; j < pins->u.array.n && !ok; j++) {
			const struct json_value	*pid;

			pid = json_get(&pins->u.array.v[j], "id");
			ok = json_string_compare(&pid->u.string,
			    &providers->u.object.m[i].key) == 0;
		}
		if (!ok) {
			id = gt_jstr_cstr(&providers->u.object.m[i].key);
			EVAL("metric provider %s is not pinned by the binding",
			    id);
			free(id);
			return -1;
		}
	}
	return 0;
}

/*
 * Refusal 20 (interop.md §P7 step 5): every pin with a code digest takes
 * its section from the isolated re-run, in pin order, the first refusal
 * winning; the caller's own section is replaced, never consulted, so a
 * forged section can neither roll back a clean re-run nor hide a
 * regression.  *eff is NULL when no pin has a code digest.
 */
static int
effective_metrics(const struct gates_eval_input *in,
    const struct json_value *pins, struct json_value **eff,
    struct gates_error *err)
{
	const struct json_value		*pin;
	const struct gates_rerun	*rr;
	struct json_value		*providers, *slot;
	char				*id;
	size_t				 i;

	*eff = NULL;
	for (i = 0; i < pins->u.array.n; i++) {
		pin = &pins->u.array.v[i];
		if (!gt_is_str(json_get(pin, "codeDigest")))
			continue;
		if (*eff == NULL) {
			*eff = gt_dup(in->metrics);
			if (!gt_is_obj(json_get(*eff, "providers"))) {
				gt_remove(*eff, "providers");
				gt_set_obj(gt_add(*eff, "providers"));
			}
		}
		id = gt_cstr(json_get(pin, "id"));
		rr = rerun_find(in, json_get(pin, "id"));
		if (rr == NULL || !rr->covered) {
			EVAL("metric provider %s requires an isolated re-run "
			    "over its pinned records: caller-asserted metrics "
			    "cannot reproduce provider output", id);
			free(id);
			return -1;
		}
		if (rr->refusal != NULL || rr->section == NULL) {
			EVAL("%s", rr->refusal != NULL ? rr->refusal :
			    "metric provider re-run gave no section");
			free(id);
			return -1;
		}
		providers = (struct json_value *)json_get(*eff, "providers");
		if ((slot = (struct json_value *)json_get(providers, id)) != NULL)
			json_value_clear(slot);
		else
			slot = gt_add(providers, id);
		gt_copy(slot, rr->section);
		free(id);
	}
	return 0;
}

static int
has_upstream_gate(const struct gates_resolved *res)
{
	const struct json_value	*gates;
	size_t			 i, j;

	for (i = 0; i < res->npacks; i++) {
		gates = gp_gates(res->packs[i].pack->composed);
		for (j = 0; j < gates->u.array.n; j++)
			if (gt_str_is(json_get(&gates->u.array.v[j], "kind"),
			    "upstream-ceiling"))
				return 1;
	}
	return 0;
}

/* Refusals 11-19: the clock, the trusted digest and the holdout seal. */
static int
check_holdout(const struct gates_eval_input *in, int64_t *now_ms,
    struct gates_error *err)
{
	const struct json_value	*spec = json_get(in->binding, "spec");
	const struct json_value	*fz, *at, *dg;
	struct json_value	 payload;
	char			 d[DIGEST_STR_LEN + 1];
	int64_t			 frozen, accessed;
	int			 r;

	if (gates_date_parse(in->now, now_ms) == -1)
		return EVAL("evaluation timestamp is not a valid date-time");
	if (gates_digest(in->binding, d, err) == -1)
		return -1;
	if (in->trusted_binding_digest == NULL ||
	    strcmp(d, in->trusted_binding_digest) != 0)
		return EVAL("binding digest does not match its trusted pin");
	if (in->holdout == NULL || in->holdout->type == JSON_NULL)
		return EVAL("trusted holdout inputs are required for "
		    "evaluation");
	fz = json_get(in->holdout, "frozenDigest");
	at = json_get(in->holdout, "firstAccessedAt");
	dg = json_get(in->holdout, "digest");
	/* {frozenDigest, firstAccessedAt}: an undefined member is left out
	 * of the JSON, as JSON.stringify leaves it out. */
	gt_set_obj(&payload);
	if (fz != NULL)
		gt_copy(gt_add(&payload, "frozenDigest"), fz);
	if (at != NULL)
		gt_copy(gt_add(&payload, "firstAccessedAt"), at);
	r = !gt_is_str(dg) || gates_digest(&payload, d, NULL) == -1 ||
	    !gt_str_is(dg, d);
	json_value_clear(&payload);
	if (r)
		return EVAL("holdout record seal does not match its content");
	if (!gt_str_is(fz, in->trusted_binding_digest))
		return EVAL("binding digest does not match the frozen record "
		    "digest");
	if (at == NULL || (at->type != JSON_NULL && !gt_is_str(at)))
		return EVAL("trusted holdout first-access time must be a "
		    "date-time or null");
	if (at->type == JSON_NULL && (json_get(spec, "splitDigest") != NULL ||
	    json_get(spec, "corpusDigest") != NULL ||
	    json_get(spec, "goldDigest") != NULL))
		return EVAL("holdout record reports no access but the binding "
		    "declares held-out data");
	if (gates_date_parse_v(json_get(spec, "frozenAt"), &frozen) == -1)
		return EVAL("binding freeze timestamp is not a valid date-time");
	if (frozen > *now_ms)
		return EVAL("binding freezes after the evaluation timestamp");
	if (at->type != JSON_NULL) {
		if (gates_date_parse_v(at, &accessed) == -1)
			return EVAL("holdout access timestamp is not a valid "
			    "date-time");
		if (frozen >= accessed)
			return EVAL("binding froze at or after holdout access: "
			    "evaluation refused");
		if (accessed > *now_ms)
			return EVAL("holdout access timestamp is after the "
			    "evaluation timestamp");
	}
	return 0;
}

/* gateEvidence[].scope: mode and a copy of slices, never except. */
static void
put_scope(struct json_value *dst, const struct json_value *scope)
{
	gt_set_obj(dst);
	gt_copy(gt_add(dst, "mode"), json_get(scope, "mode"));
	if (json_get(scope, "slices") != NULL)
		gt_copy(gt_add(dst, "slices"), json_get(scope, "slices"));
}

static void
put_entry(struct json_value *arr, const struct json_value *gate,
    const char *slice, const struct gates_target_eval *ev,
    enum gates_outcome outcome)
{
	struct json_value	*e, *s, *t;
	char			*gid, *reason;

	e = gt_push(arr);
	gt_set_obj(e);
	gt_copy(gt_add(e, "gateId"), json_get(gate, "id"));
	gt_copy(gt_add(e, "kind"), json_get(gate, "kind"));
	put_scope(gt_add(e, "scope"), json_get(gate, "scope"));
	if (slice != NULL)
		gt_set_str(gt_add(e, "slice"), slice);
	else
		gt_set_null(gt_add(e, "slice"));
	if (ev->has_n)
		gt_set_num(gt_add(e, "n"), ev->n);
	else
		gt_set_null(gt_add(e, "n"));
	if (ev->events_set) {
		if (ev->events_null)
			gt_set_null(gt_add(e, "events"));
		else
			gt_set_num(gt_add(e, "events"), ev->events);
	}
	if (ev->stat_set) {
		s = gt_add(e, "statistic");
		gt_set_obj(s);
		gt_set_str(gt_add(s, "method"), ev->method);
		if (ev->stat_full) {
			gt_set_num(gt_add(s, "levelBps"), ev->level);
			gt_set_num(gt_add(s, "lowerBps"), ev->lower);
			gt_set_num(gt_add(s, "upperBps"), ev->upper);
			gt_set_num(gt_add(s, "estimateBps"), ev->estimate);
		}
	}
	if (ev->thr_set) {
		t = gt_add(e, "threshold");
		gt_set_obj(t);
		gt_set_str(gt_add(t, "op"), ev->op);
		if (ev->thr_value)
			gt_set_num(gt_add(t, "value"), ev->value);
		else if (ev->thr_param)
			gt_copy(gt_add(t, "param"), ev->param);
		gt_set_num(gt_add(t, "resolved"), ev->resolved);
	}
	gt_set_str(gt_add(e, "status"), ev->status);
	gt_set_str(gt_add(e, "outcome"), gates_outcome_name(outcome));
	gid = gt_cstr(json_get(gate, "id"));
	xasprintf(&reason, "%s:%s", gid, ev->reason);
	t = gt_add(e, "reasons");
	gt_set_arr(t);
	gt_set_str(gt_push(t), reason);
	free(gid);
	free(reason);
}

/* seriesFor: only a metric the resolved pack declares for that provider. */
static const struct json_value *
series_for(const struct json_value *gate, const struct json_value *pack,
    const struct json_value *metrics, char *kind, size_t kindsz)
{
	const struct json_value	*m = json_get(gate, "metric"), *decl;
	char			*name, *prov;
	const struct json_value	*s;

	kind[0] = '\0';
	if (m == NULL)
		return NULL;
	name = gt_cstr(json_get(m, "name"));
	prov = gt_cstr(json_get(m, "provider"));
	decl = json_get(json_get(json_get(pack, "spec"), "metrics"), name);
	gt_strlcpy(kind, json_get(decl, "kind"), kindsz);
	s = NULL;
	if (decl != NULL && gt_equal(json_get(decl, "provider"),
	    json_get(m, "provider")))
		s = json_get(json_get(json_get(json_get(metrics, "providers"), prov),
		    "metrics"), name);
	free(name);
	free(prov);
	if (s != NULL && s->type == JSON_NULL)
		s = NULL;
	return s;
}

static const struct json_value *
by_slice(const struct json_value *series, const struct json_value *slice)
{
	const struct json_value	*bs = json_get(series, "bySlice"), *v;
	char			*name;

	name = gt_cstr(slice);
	v = json_get(bs, name);
	free(name);
	return v != NULL && v->type == JSON_NULL ? NULL : v;
}

static enum gates_outcome
entry_outcome(const struct json_value *gate,
    const struct gates_target_eval *ev, const struct json_value *upstream)
{
	struct gates_upstream_verdict	 uv;
	enum gates_outcome		 o = GATES_HOLD;

	if (strcmp(ev->status, "pass") == 0)
		return GATES_PROMOTE;
	if (strcmp(ev->status, "fail") == 0) {
		/* An upstream-ceiling gate mirrors the trusted verdict; its
		 * own onFail never escalates or softens it. */
		if (gt_str_is(json_get(gate, "kind"), "upstream-ceiling")) {
			gates_upstream_judge(upstream, &uv);
			return uv.ceiling;
		}
		gates_outcome_parse(json_get(gate, "onFail"), &o);
		return o;
	}
	return GATES_HOLD;	/* onInsufficient is always HOLD */
}

/* One gate of one pack: its entries appended to arr; the worst outcome. */
static enum gates_outcome
run_gate(const struct json_value *gate, const struct gates_pack *pack,
    const struct json_value *metrics, const struct json_value *slices,
    const struct gates_target_ctx *ctx, struct json_value *arr)
{
	const struct json_value		*series, *scope, *list, *exc, *obs;
	const struct json_value		**members;
	struct gates_target_eval	 ev;
	struct json_value		*pooled;
	enum gates_outcome		 o, worst = GATES_PROMOTE;
	char				 kind[32], *slice;
	size_t				 i, n, ntargets = 0;

	scope = json_get(gate, "scope");
	if (gt_str_is(json_get(gate, "kind"), "upstream-ceiling") ||
	    gt_str_is(json_get(gate, "kind"), "predicate")) {
		gates_eval_target(gate, NULL, "", ctx, &ev);
		o = entry_outcome(gate, &ev, ctx->upstream);
		put_entry(arr, gate, NULL, &ev, o);
		return o;
	}
	series = series_for(gate, pack->composed, metrics, kind, sizeof(kind));
	if (gt_str_is(json_get(scope, "mode"), "all")) {
		obs = json_get(series, "pooled");
		if (obs != NULL && obs->type == JSON_NULL)
			obs = NULL;
		gates_eval_target(gate, obs, kind, ctx, &ev);
		o = entry_outcome(gate, &ev, ctx->upstream);
		put_entry(arr, gate, NULL, &ev, o);
		return o;
	}
	if (gt_str_is(json_get(scope, "mode"), "pooled")) {
		list = json_get(scope, "slices");
		n = list != NULL ? list->u.array.n : 0;
		members = xcalloc(n + 1, sizeof(*members));
		pooled = NULL;
		for (i = 0; i < n; i++)
			if ((members[i] = by_slice(series,
			    &list->u.array.v[i])) == NULL)
				break;
		if (i == n)
			pooled = gates_pool(kind, members, n);
		free(members);
		gates_eval_target(gate, pooled, kind, ctx, &ev);
		json_free(pooled);
		o = entry_outcome(gate, &ev, ctx->upstream);
		put_entry(arr, gate, NULL, &ev, o);
		return o;
	}
	if (gt_str_is(json_get(scope, "mode"), "each")) {
		list = slices;
		exc = json_get(scope, "except");
	} else {
		list = json_get(scope, "slices");
		exc = NULL;
	}
	for (i = 0; list != NULL && i < list->u.array.n; i++) {
		if (gt_in_array(exc, &list->u.array.v[i]))
			continue;
		ntargets++;
		gates_eval_target(gate, by_slice(series, &list->u.array.v[i]),
		    kind, ctx, &ev);
		o = entry_outcome(gate, &ev, ctx->upstream);
		slice = gt_cstr(&list->u.array.v[i]);
		put_entry(arr, gate, slice, &ev, o);
		free(slice);
		worst = max_outcome(worst, o);
	}
	if (ntargets == 0) {
		/* Unreachable after resolution; never promote vacuously. */
		memset(&ev, 0, sizeof(ev));
		ev.status = "insufficient";
		ev.reason = "no-evaluation-targets";
		put_entry(arr, gate, NULL, &ev, GATES_HOLD);
		return GATES_HOLD;
	}
	return worst;
}

static void
put_pin_copy(struct json_value *dst, const struct json_value *pin)
{
	gt_copy(dst, pin);
}

int
gates_evaluate(const struct gates_registry *reg,
    const struct gates_eval_input *in, struct json_value **out,
    struct gates_error *err)
{
	const struct json_value		*spec, *meta, *pins, *gates, *refs;
	struct gates_resolved		 res;
	struct gates_target_ctx		 ctx;
	struct gates_upstream_verdict	 uv;
	struct json_value		*rep, *v, *o, input, *eff = NULL;
	const struct json_value		*metrics;
	enum gates_outcome		 pack_o = GATES_PROMOTE, bind_o;
	enum gates_outcome		 decision;
	char				 d[DIGEST_STR_LEN + 1], *s, *id;
	size_t				 i, j;
	int64_t				 now_ms;

	*out = NULL;
	if (reg == NULL)
		return EVAL("a GateRegistry is required for internal "
		    "resolution");
	if (in->floors == NULL)
		return EVAL("project floors are required: pass "
		    "resolveProjectFloors(config) or 'none-explicit-opt-out' "
		    "with a documented reason");
	if (gates_resolve_binding(reg, in->binding, in->floors->opt_out ?
	    NULL : in->floors, &res, err) == -1)
		return -1;
	if (recheck_packs(reg, in->binding, &res, err) == -1 ||
	    check_sections(in, in->metrics, err) == -1)
		goto fail;
	if (in->upstream != NULL) {
		/* A record without metadata seals nothing (the CLI's loader
		 * refuses it first; a library caller may not). */
		if (json_get(in->upstream, "metadata") != NULL &&
		    gates_digest(json_get(in->upstream, "metadata"), d,
		    err) == -1)
			goto fail;
		if (json_get(in->upstream, "metadata") == NULL ||
		    !gt_str_is(json_get(in->upstream, "digest"), d)) {
			EVAL("upstream integrity digest does not match its "
			    "report");
			goto fail;
		}
	} else if (has_upstream_gate(&res)) {
		EVAL("evaluation requires a sealed upstream record: the binding "
		    "observes an upstream-ceiling gate");
		goto fail;
	}
	if (check_holdout(in, &now_ms, err) == -1)
		goto fail;
	if (in->precheck) {
		gates_resolved_free(&res);
		return 0;
	}
	spec = json_get(in->binding, "spec");
	pins = json_get(spec, "metricProviders");
	if (effective_metrics(in, pins, &eff, err) == -1)
		goto fail;
	metrics = eff != NULL ? eff : in->metrics;

	/* The predicate input: {metrics, parameters, slices}. */
	gt_set_obj(&input);
	gt_copy(gt_add(&input, "metrics"), metrics);
	gt_copy(gt_add(&input, "parameters"), &res.params);
	gt_copy(gt_add(&input, "slices"), json_get(spec, "slices"));
	memset(&ctx, 0, sizeof(ctx));
	ctx.params = &res.params;
	ctx.input = &input;
	ctx.upstream = in->upstream != NULL ?
	    json_get(in->upstream, "metadata") : NULL;
	ctx.now_ms = now_ms;

	meta = json_get(in->binding, "metadata");
	rep = xcalloc(1, sizeof(*rep));
	gt_set_obj(rep);
	gt_copy(gt_add(rep, "apiVersion"), json_get(in->binding, "apiVersion"));
	gt_set_str(gt_add(rep, "kind"), "GateReport");
	v = gt_add(rep, "metadata");
	gt_set_obj(v);
	gt_copy(gt_add(v, "id"), json_get(meta, "id"));
	gt_copy(gt_add(v, "version"), json_get(meta, "version"));
	s = gt_cstr(json_get(meta, "id"));
	xasprintf(&id, "GateReport for %s", s);
	gt_set_str(gt_add(v, "description"), id);
	free(id);
	free(s);
	v = gt_add(rep, "binding");
	gt_set_obj(v);
	gt_copy(gt_add(v, "id"), json_get(meta, "id"));
	gt_copy(gt_add(v, "version"), json_get(meta, "version"));
	gt_set_str(gt_add(v, "digest"), in->trusted_binding_digest);
	v = gt_add(rep, "packs");
	gt_set_arr(v);
	for (i = 0; i < res.npacks; i++) {
		o = gt_push(v);
		gt_set_obj(o);
		gt_set_str(gt_add(o, "id"), res.packs[i].pack->id);
		gt_copy(gt_add(o, "version"),
		    json_get(json_get(res.packs[i].pack->authored, "metadata"),
		    "version"));
		gt_set_str(gt_add(o, "digest"), res.packs[i].pack->digest);
		gt_set_str(gt_add(o, "resolvedDigest"),
		    res.packs[i].pack->resolved_digest);
	}
	v = gt_add(rep, "metricProviders");
	gt_set_arr(v);
	for (i = 0; i < pins->u.array.n; i++)
		put_pin_copy(gt_push(v), &pins->u.array.v[i]);
	if (gates_digest(metrics, d, err) == -1)
		goto fail_rep;
	gt_set_str(gt_add(rep, "metricsDigest"), d);
	v = gt_add(rep, "floors");
	gt_set_obj(v);
	if (in->floors->opt_out)
		gt_set_str(gt_add(v, "mode"), "opt-out");
	else {
		gt_set_str(gt_add(v, "mode"), "applied");
		if (gates_digest(in->floors->object, d, err) == -1)
			goto fail_rep;
		gt_set_str(gt_add(v, "digest"), d);
	}
	v = gt_add(rep, "holdout");
	gt_set_obj(v);
	gt_copy(gt_add(v, "digest"), json_get(in->holdout, "digest"));
	gt_copy(gt_add(v, "frozenDigest"), json_get(in->holdout, "frozenDigest"));
	gt_copy(gt_add(v, "firstAccessedAt"),
	    json_get(in->holdout, "firstAccessedAt"));

	v = gt_add(rep, "gateEvidence");
	gt_set_arr(v);
	for (i = 0; i < res.npacks; i++) {
		ctx.pack_id = res.packs[i].pack->id;
		gates = gp_gates(res.packs[i].pack->composed);
		for (j = 0; j < gates->u.array.n; j++)
			pack_o = max_outcome(pack_o, run_gate(
			    &gates->u.array.v[j], res.packs[i].pack,
			    metrics, json_get(spec, "slices"), &ctx, v));
	}

	refs = json_get(spec, "references");
	v = gt_add(rep, "references");
	gt_set_arr(v);
	for (i = 0; i < refs->u.array.n; i++) {
		o = gt_push(v);
		gt_set_obj(o);
		gt_copy(gt_add(o, "name"), json_get(&refs->u.array.v[i], "name"));
		gt_copy(gt_add(o, "kind"), json_get(&refs->u.array.v[i], "kind"));
		s = gt_cstr(json_get(&refs->u.array.v[i], "name"));
		gt_set_bool(gt_add(o, "observed"),
		    json_get(json_get(metrics, "references"), s) != NULL);
		free(s);
	}
	gates_upstream_judge(ctx.upstream, &uv);
	v = gt_add(rep, "upstream");
	if (in->upstream == NULL)
		gt_set_null(v);
	else {
		gt_set_obj(v);
		gt_set_str(gt_add(v, "decision"), gates_outcome_name(uv.ceiling));
		o = gt_add(v, "reasons");
		gt_set_arr(o);
		for (i = 0; i < uv.nproblems; i++) {
			xasprintf(&s, "upstream:%s", uv.problems[i]);
			gt_set_str(gt_push(o), s);
			free(s);
		}
		gt_copy(gt_add(v, "digest"), json_get(in->upstream, "digest"));
	}
	bind_o = GATES_PROMOTE;
	if (json_get(spec, "ceiling") != NULL)
		gates_outcome_parse(json_get(spec, "ceiling"), &bind_o);
	decision = max_outcome(max_outcome(pack_o, uv.ceiling), bind_o);
	v = gt_add(rep, "ceilings");
	gt_set_obj(v);
	gt_set_str(gt_add(v, "packOutcome"), gates_outcome_name(pack_o));
	gt_set_str(gt_add(v, "upstreamCeiling"), gates_outcome_name(uv.ceiling));
	gt_set_str(gt_add(v, "bindingCeiling"), gates_outcome_name(bind_o));
	gt_set_str(gt_add(rep, "decision"), gates_outcome_name(decision));
	gt_set_str(gt_add(rep, "evaluatedAt"), in->now);
	if (in->attestation != NULL)
		gt_set_str(gt_add(rep, "attestation"), in->attestation);
	if (gates_digest(rep, d, err) == -1)
		goto fail_rep;
	gt_set_str(gt_add(rep, "digest"), d);
	json_value_clear(&input);
	json_free(eff);
	gates_resolved_free(&res);
	*out = rep;
	return 0;
 fail_rep:
	json_value_clear(&input);
	json_free(rep);
 fail:
	json_free(eff);
	gates_resolved_free(&res);
	return -1;
}

enum gates_outcome
gates_report_decision(const struct json_value *report)
{
	enum gates_outcome	 o = GATES_HOLD;

	gates_outcome_parse(json_get(report, "decision"), &o);
	return o;
}
