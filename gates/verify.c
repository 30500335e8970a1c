/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * verify.c: validateGateReport (interop.md §G10.3): is this report what the
 * trusted inputs give?  {valid, reasons}, never a refusal.
 *
 * Threat: a report that claims a decision its inputs do not support --
 * an upgraded decision, evidence flipped to pass and resealed, a report
 * over another binding, holdout, pack, metrics document, floors or
 * upstream record.  The self digest only shows the report is intact;
 * what makes it true is re-deriving it: the evaluator is deterministic,
 * so the honest report's canonical bytes are reproduced exactly from the
 * same inputs at the report's own evaluatedAt, and any other report
 * differs.  The cheap comparisons before the re-evaluation name which
 * input disagrees.
 *
 * The reasons, their order and their words are the reference's.  Where
 * the reference would throw out of a function documented never to throw
 * (a document of another kind given as the report, an input whose digest
 * cannot be computed, a binding without a packs array), this answers
 * with a reason instead (sbx-gates(5)):
 *  - a valid pack or binding given as the report:
 *    "report-schema:expected kind GateReport";
 *  - an input whose canonical digest cannot be computed (admitEntry
 *    refuses it) equals no digest in the report: the comparison's
 *    mismatch;
 *  - a binding whose spec.packs or spec.metricProviders is not an array
 *    has no pins to compare; the re-evaluation refuses it.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates.h"

/* One reason: prefix, then detail (NULL: none). */
static void
reason(struct json_value *reasons, const char *prefix, const char *detail)
{
	char	*s;

	xasprintf(&s, "%s%s", prefix, detail != NULL ? detail : "");
	gt_set_str(gt_push(reasons), s);
	free(s);
}

/*
 * JavaScript's ===, for values from parsed documents: undefined (NULL)
 * only equals undefined, primitives by value, an object or array never
 * equals another one (identity).
 */
static int
js_same(const struct json_value *a, const struct json_value *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case JSON_NULL:
	case JSON_FALSE:
	case JSON_TRUE:
		return 1;
	case JSON_NUMBER:
	case JSON_STRING:
		return gt_equal(a, b);
	default:
		return 0;
	}
}

/* artifactDigest(v) === s; a digest that cannot be computed equals none. */
static int
digest_is(const struct json_value *v, const struct json_value *s)
{
	char	 d[DIGEST_STR_LEN + 1];

	if (v == NULL || gates_digest(v, d, NULL) == -1)
		return 0;
	return gt_str_is(s, d);
}

/* A copy of the report without its digest: the fields it seals. */
static struct json_value *
fields_of(const struct json_value *report)
{
	struct json_value	*f = gt_dup(report);

	gt_remove(f, "digest");
	return f;
}

static int
canon_same(const struct json_value *a, const struct json_value *b)
{
	char	*ta = NULL, *tb = NULL;
	size_t	 la, lb;
	int	 same;

	same = json_canonical(a, &ta, &la) == 0 &&
	    json_canonical(b, &tb, &lb) == 0 && la == lb &&
	    memcmp(ta, tb, la) == 0;
	free(ta);
	free(tb);
	return same;
}

static const struct json_value *
array_or_null(const struct json_value *v)
{
	return v != NULL && v->type == JSON_ARRAY ? v : NULL;
}

/* Step 2: the comparisons with the trusted inputs, in the reference's
 * order. */
static void
compare_inputs(const struct gates_eval_input *in, int provider_runtime,
    const struct json_value *rep, const struct json_value *fields,
    struct json_value *reasons)
{
	const struct json_value	*bdig, *hold, *rhold, *pins, *pin, *packs;
	const struct json_value	*found, *rfl, *rup;
	char			 d[DIGEST_STR_LEN + 1], *id;
	size_t			 i, k;
	int			 bundle, same;

	bdig = json_get(json_get(rep, "binding"), "digest");
	if (!digest_is(fields, json_get(rep, "digest")))
		reason(reasons, "report-digest-mismatch", NULL);
	if (!digest_is(in->binding, bdig))
		reason(reasons, "report-binding-mismatch", NULL);
	if (in->trusted_binding_digest == NULL ||
	    !gt_str_is(bdig, in->trusted_binding_digest))
		reason(reasons, "report-binding-untrusted", NULL);

	/* Three separate checks, each its own reason, as the reference. */
	hold = in->holdout != NULL && in->holdout->type != JSON_NULL ?
	    in->holdout : NULL;
	rhold = json_get(rep, "holdout");
	if (hold == NULL || !js_same(json_get(hold, "frozenDigest"), bdig))
		reason(reasons, "report-holdout-mismatch", NULL);
	if (hold != NULL && (!js_same(json_get(hold, "digest"),
	    json_get(rhold, "digest")) ||
	    !js_same(json_get(hold, "firstAccessedAt"),
	    json_get(rhold, "firstAccessedAt"))))
		reason(reasons, "report-holdout-mismatch", NULL);
	if (json_get(rhold, "digest") == NULL ||
	    !js_same(json_get(rhold, "frozenDigest"), bdig))
		reason(reasons, "report-holdout-mismatch", NULL);

	/* Every pin of the trusted binding, the first report entry with
	 * its id. */
	pins = array_or_null(json_get(json_get(in->binding, "spec"), "packs"));
	packs = json_get(rep, "packs");
	for (i = 0; pins != NULL && i < pins->u.array.n; i++) {
		pin = &pins->u.array.v[i];
		found = NULL;
		for (k = 0; k < packs->u.array.n && found == NULL; k++)
			if (js_same(json_get(&packs->u.array.v[k], "id"),
			    json_get(pin, "id")))
				found = &packs->u.array.v[k];
		if (found == NULL || !js_same(json_get(found, "digest"),
		    json_get(pin, "digest")) ||
		    !js_same(json_get(found, "resolvedDigest"),
		    json_get(pin, "resolvedDigest"))) {
			/* ${pin.id}: the binding's schema makes it a string
			 * for any binding the re-evaluation accepts. */
			id = gt_cstr(json_get(pin, "id"));
			reason(reasons, "report-pack-mismatch:",
			    id != NULL ? id : "undefined");
			free(id);
		}
	}

	/*
	 * Bundle-provider sections come from the isolated re-run, not from
	 * the caller's document, so with a provider runtime the document
	 * is not the one evaluated; the re-derivation decides for them.
	 */
	bundle = 0;
	pins = array_or_null(json_get(json_get(in->binding, "spec"),
	    "metricProviders"));
	for (i = 0; pins != NULL && i < pins->u.array.n; i++)
		if (gt_is_str(json_get(&pins->u.array.v[i], "codeDigest")))
			bundle = 1;
	if (!digest_is(in->metrics, json_get(rep, "metricsDigest")) &&
	    !(provider_runtime && bundle))
		reason(reasons, "report-metrics-mismatch", NULL);

	/* Which floors governed: an applied digest or the opt-out. */
	rfl = json_get(rep, "floors");
	if (in->floors == NULL)
		same = 0;
	else if (in->floors->opt_out)
		same = !gt_str_is(json_get(rfl, "mode"), "applied");
	else
		same = gt_str_is(json_get(rfl, "mode"), "applied") &&
		    gates_digest(in->floors->object, d, NULL) == 0 &&
		    gt_str_is(json_get(rfl, "digest"), d);
	if (!same)
		reason(reasons, "report-floors-mismatch", NULL);

	/* input.upstream?.digest ?? null against the report's. */
	rup = json_get(json_get(rep, "upstream"), "digest");
	hold = in->upstream != NULL && in->upstream->type != JSON_NULL ?
	    json_get(in->upstream, "digest") : NULL;
	if (hold != NULL && hold->type == JSON_NULL)
		hold = NULL;
	if (rup != NULL && rup->type == JSON_NULL)
		rup = NULL;
	if (!js_same(hold, rup))
		reason(reasons, "report-upstream-mismatch", NULL);
}

/* maxOutcome(decision, every component) must be the decision itself. */
static int
upgrades(const struct json_value *rep)
{
	const struct json_value	*ev = json_get(rep, "gateEvidence");
	const struct json_value	*ce = json_get(rep, "ceilings");
	enum gates_outcome	 d, o, worst = GATES_PROMOTE;
	size_t			 i;

	for (i = 0; i < ev->u.array.n; i++)
		if (gates_outcome_parse(json_get(&ev->u.array.v[i], "outcome"),
		    &o) == 0 && o > worst)
			worst = o;
	if (gates_outcome_parse(json_get(ce, "packOutcome"), &o) == 0 &&
	    o > worst)
		worst = o;
	if (gates_outcome_parse(json_get(ce, "upstreamCeiling"), &o) == 0 &&
	    o > worst)
		worst = o;
	if (gates_outcome_parse(json_get(ce, "bindingCeiling"), &o) == 0 &&
	    o > worst)
		worst = o;
	if (gates_outcome_parse(json_get(rep, "decision"), &d) == -1)
		return 1;
	return worst > d;
}

static int
verdict(struct json_value *reasons, struct json_value **out)
{
	struct json_value	*v;
	int			 valid = reasons->u.array.n == 0;

	v = xcalloc(1, sizeof(*v));
	gt_set_obj(v);
	gt_set_bool(gt_add(v, "valid"), valid);
	*gt_add(v, "reasons") = *reasons;
	free(reasons);
	*out = v;
	return valid;
}

int
gates_verify(const struct gates_registry *reg,
    const struct gates_eval_input *in, int provider_runtime,
    const struct json_value *report, struct json_value **out)
{
	struct gates_eval_input	 again;
	struct gates_error	 err;
	struct json_value	*reasons, *fields, *expected, *efields;
	char			*now;
	int			 r;

	reasons = xcalloc(1, sizeof(*reasons));
	gt_set_arr(reasons);
	memset(&err, 0, sizeof(err));
	if (gates_validate_document(report, &err) == -1) {
		reason(reasons, "report-schema:", err.msg);
		return verdict(reasons, out);
	}
	/* The reference would read a pack's missing binding and throw. */
	if (!gt_str_is(json_get(report, "kind"), "GateReport")) {
		reason(reasons, "report-schema:expected kind GateReport", NULL);
		return verdict(reasons, out);
	}
	fields = fields_of(report);
	compare_inputs(in, provider_runtime, report, fields, reasons);

	/* Step 3: the same inputs at the report's own clock. */
	again = *in;
	again.precheck = 0;
	now = gt_cstr(json_get(report, "evaluatedAt"));
	again.now = now;
	r = gates_evaluate(reg, &again, &expected, &err);
	free(now);
	if (r == -1) {
		reason(reasons, "report-reevaluation:", err.msg);
		json_free(fields);
		return verdict(reasons, out);
	}
	/* Digests, then canonical bytes: the second route is independent
	 * of the digest function. */
	efields = fields_of(expected);
	if (!js_same(json_get(expected, "digest"),
	    json_get(report, "digest")) || !canon_same(efields, fields))
		reason(reasons, "report-reevaluation-mismatch", NULL);
	if (!js_same(json_get(expected, "decision"),
	    json_get(report, "decision")))
		reason(reasons, "report-decision-mismatch", NULL);
	if (upgrades(report))
		reason(reasons, "report-upgrades-component", NULL);
	json_free(efields);
	json_free(expected);
	json_free(fields);
	return verdict(reasons, out);
}
