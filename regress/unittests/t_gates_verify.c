/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_gates_verify: validateGateReport (interop.md §G10.3) over the
 * conformance pack and binding: an honest report verifies, each tampered
 * input or field gives its reason, in the reference's order, and the
 * reference's own report-validation scenarios (an upgraded decision, a
 * contradictory resealed report, whitewashed evidence).
 */
#include "gatestest.h"

#define BINDING_DIGEST	"sha256:713127fce4b97506487ce80c65998b29b110aff1481" \
	"56496336c6a859948149c"
#define ZEROS		"sha256:000000000000000000000000000000000000000000" \
	"0000000000000000000000"
#define PACK_ID		"aiwg:test-gates/conformance-v1"

struct vx {
	struct gates_registry	 reg;
	struct json_value	*binding, *metrics, *holdout, *upstream;
	struct gates_floors	 floors;
	const char		*trusted;
	int			 runtime;
	struct json_value	*verdict;
};

static void
vx_setup(const atf_tc_t *tc, struct vx *v, const char *metrics)
{
	struct json_value	 empty;
	struct gates_error	 err;

	memset(v, 0, sizeof(*v));
	tg_registry(tc, &v->reg);
	v->binding = tg_fixture(tc, "conformance-run.binding.json");
	v->metrics = tg_fixture(tc, metrics);
	ATF_REQUIRE(gates_seal_holdout(BINDING_DIGEST, NULL, &v->holdout,
	    &err) == 0);
	v->upstream = tg_fixture(tc, "upstream-clean.json");
	gt_set_obj(&empty);
	gates_floors_resolve(&empty, &v->floors);
	v->trusted = BINDING_DIGEST;
}

static void
vx_free(struct vx *v)
{
	json_free(v->binding);
	json_free(v->metrics);
	json_free(v->holdout);
	json_free(v->upstream);
	json_free(v->verdict);
	gates_floors_free(&v->floors);
	gates_registry_free(&v->reg);
}

static void
vx_input(struct vx *v, struct gates_eval_input *in, const char *now)
{
	memset(in, 0, sizeof(*in));
	in->binding = v->binding;
	in->trusted_binding_digest = v->trusted;
	in->holdout = v->holdout;
	in->metrics = v->metrics;
	in->upstream = v->upstream;
	in->floors = &v->floors;
	in->now = now;
	in->attestation = "offline-cli";
}

/* The report sbxctl gates evaluate gives for these inputs. */
static struct json_value *
vx_report(struct vx *v)
{
	struct gates_eval_input	 in;
	struct gates_error	 err;
	struct json_value	*rep;

	vx_input(v, &in, "2026-09-03T00:00:00.000Z");
	ATF_REQUIRE_MSG(gates_evaluate(&v->reg, &in, &rep, &err) == 0, "%s",
	    err.msg);
	return rep;
}

/* Verify and compare the reasons with want (NULL-terminated), in order. */
static void
vx_check(struct vx *v, const struct json_value *report, const char **want)
{
	struct gates_eval_input	 in;
	const struct json_value	*rs;
	char			*got = NULL, *t, *s;
	size_t			 i, n;
	int			 valid;

	vx_input(v, &in, "not-used");
	json_free(v->verdict);
	valid = gates_verify(&v->reg, &in, v->runtime, report, &v->verdict);
	rs = json_get(v->verdict, "reasons");
	ATF_REQUIRE(rs != NULL && rs->type == JSON_ARRAY);
	for (i = 0; i < rs->u.array.n; i++) {
		s = gt_cstr(&rs->u.array.v[i]);
		xasprintf(&t, "%s%s%s", got != NULL ? got : "", i ? " | " : "",
		    s);
		free(got);
		free(s);
		got = t;
	}
	for (n = 0; want[n] != NULL; n++)
		;
	ATF_CHECK_EQ_MSG(valid, n == 0, "valid %d with %zu reasons", valid,
	    n);
	ATF_CHECK_EQ(json_get(v->verdict, "valid")->type,
	    n == 0 ? JSON_TRUE : JSON_FALSE);
	ATF_CHECK_EQ_MSG(rs->u.array.n, n, "reasons: %s",
	    got != NULL ? got : "(none)");
	for (i = 0; i < n && i < rs->u.array.n; i++)
		ATF_CHECK_MSG(gt_str_is(&rs->u.array.v[i], want[i]),
		    "reason %zu: wanted '%s', got: %s", i, want[i], got);
	free(got);
}

/* The report's digest recomputed over its (edited) fields. */
static void
reseal(struct json_value *rep)
{
	struct gates_error	 err;
	char			 d[DIGEST_STR_LEN + 1];

	gt_remove(rep, "digest");
	ATF_REQUIRE(gates_digest(rep, d, &err) == 0);
	gt_set_str(gt_add(rep, "digest"), d);
}

static void
set_str(struct json_value *obj, const char *key, const char *s)
{
	struct json_value	*f = (struct json_value *)json_get(obj, key);

	ATF_REQUIRE_MSG(f != NULL, "no %s", key);
	json_value_clear(f);
	gt_set_str(f, s);
}

/* The gate entry with this id. */
static struct json_value *
entry(struct json_value *rep, const char *gid)
{
	struct json_value	*ev;
	size_t			 i;

	ev = (struct json_value *)json_get(rep, "gateEvidence");
	for (i = 0; i < ev->u.array.n; i++)
		if (gt_str_is(json_get(&ev->u.array.v[i], "gateId"), gid))
			return &ev->u.array.v[i];
	atf_tc_fail("no entry %s", gid);
	return NULL;
}

ATF_TC_WITHOUT_HEAD(honest);
ATF_TC_BODY(honest, tc)
{
	static const char	*none[] = { NULL };
	struct vx		 v;
	struct json_value	*rep, *again;
	char			*text;

	vx_setup(tc, &v, "passing.metrics.json");
	rep = vx_report(&v);
	vx_check(&v, rep, none);
	/* As printed and read back, the way sbxctl gates verify reads it. */
	text = gates_print_pretty(rep);
	again = tg_parse(text, 1);
	free(text);
	vx_check(&v, again, none);
	json_free(again);
	/* A report made at another time verifies at its own evaluatedAt. */
	set_str(rep, "evaluatedAt", "2026-09-04T08:00:00.000Z");
	reseal(rep);
	vx_check(&v, rep, none);
	json_free(rep);

	/* So does a HOLD report, against its own metrics. */
	json_free(v.metrics);
	v.metrics = tg_fixture(tc, "fr-a12.metrics.json");
	rep = vx_report(&v);
	ATF_CHECK(gt_str_is(json_get(rep, "decision"), "HOLD"));
	vx_check(&v, rep, none);
	json_free(rep);
	vx_free(&v);
}

ATF_TC_WITHOUT_HEAD(schema);
ATF_TC_BODY(schema, tc)
{
	static const char	*notobj[] = {
		"report-schema:Gate document must be an object", NULL };
	static const char	*nofloors[] = {
		"report-schema:GateReport schema validation failed: / must "
		"have required property 'floors'", NULL };
	static const char	*kind[] = {
		"report-schema:expected kind GateReport", NULL };
	static const char	*attest[] = {
		"report-schema:GateReport schema validation failed: "
		"/attestation must be equal to constant", NULL };
	struct vx		 v;
	struct json_value	*rep, *arr;

	vx_setup(tc, &v, "passing.metrics.json");
	arr = tg_parse("[1]", 1);
	vx_check(&v, arr, notobj);
	json_free(arr);
	/* Early: nothing else is compared, however wrong the inputs. */
	rep = vx_report(&v);
	gt_remove(rep, "floors");
	v.trusted = ZEROS;
	vx_check(&v, rep, nofloors);
	v.trusted = BINDING_DIGEST;
	json_free(rep);
	rep = vx_report(&v);
	set_str(rep, "attestation", "forged");
	reseal(rep);
	vx_check(&v, rep, attest);
	json_free(rep);
	/* A valid document of another kind is no report. */
	vx_check(&v, v.binding, kind);
	vx_free(&v);
}

ATF_TC_WITHOUT_HEAD(digest_and_decision);
ATF_TC_BODY(digest_and_decision, tc)
{
	static const char	*upgraded[] = { "report-digest-mismatch",
	    "report-reevaluation-mismatch", "report-decision-mismatch",
	    "report-upgrades-component", NULL };
	static const char	*contradictory[] = {
	    "report-reevaluation-mismatch", "report-decision-mismatch",
	    "report-upgrades-component", NULL };
	static const char	*washed[] = { "report-digest-mismatch",
	    "report-reevaluation-mismatch", NULL };
	static const char	*resealed[] = {
	    "report-reevaluation-mismatch", NULL };
	struct vx		 v;
	struct json_value	*rep, *e, *r0;

	vx_setup(tc, &v, "fr-a12.metrics.json");

	/* A breached report upgraded to PROMOTE. */
	rep = vx_report(&v);
	set_str(rep, "decision", "PROMOTE");
	vx_check(&v, rep, upgraded);
	json_free(rep);

	/* Resealed, promoting past a ROLLBACK component. */
	rep = vx_report(&v);
	e = entry(rep, "blocking-events");
	set_str(e, "status", "fail");
	set_str(e, "outcome", "ROLLBACK");
	r0 = &((struct json_value *)json_get(e, "reasons"))->u.array.v[0];
	json_value_clear(r0);
	gt_set_str(r0, "blocking-events:count-breaches-threshold");
	set_str(rep, "decision", "PROMOTE");
	reseal(rep);
	vx_check(&v, rep, contradictory);
	json_free(rep);

	/* Breached evidence flipped to pass, decision kept. */
	rep = vx_report(&v);
	e = entry(rep, "false-ready-upper");
	set_str(e, "status", "pass");
	set_str(e, "outcome", "PROMOTE");
	vx_check(&v, rep, washed);
	/* Resealed, only the re-derivation tells. */
	reseal(rep);
	vx_check(&v, rep, resealed);
	json_free(rep);

	/* A report without the attestation this evaluation gives. */
	rep = vx_report(&v);
	gt_remove(rep, "attestation");
	reseal(rep);
	vx_check(&v, rep, resealed);
	json_free(rep);
	vx_free(&v);
}

ATF_TC_WITHOUT_HEAD(binding);
ATF_TC_BODY(binding, tc)
{
	static const char	*other[] = { "report-binding-mismatch",
	    "report-reevaluation:binding digest does not match its trusted "
	    "pin", NULL };
	static const char	*untrusted[] = { "report-binding-untrusted",
	    "report-reevaluation:binding digest does not match its trusted "
	    "pin", NULL };
	struct vx		 v;
	struct json_value	*rep;

	vx_setup(tc, &v, "passing.metrics.json");
	rep = vx_report(&v);
	set_str((struct json_value *)json_get(v.binding, "metadata"),
	    "description", "Another binding.");
	vx_check(&v, rep, other);
	json_free(v.binding);
	v.binding = tg_fixture(tc, "conformance-run.binding.json");
	v.trusted = ZEROS;
	vx_check(&v, rep, untrusted);
	v.trusted = NULL;
	vx_check(&v, rep, untrusted);
	json_free(rep);
	vx_free(&v);
}

ATF_TC_WITHOUT_HEAD(holdout);
ATF_TC_BODY(holdout, tc)
{
	static const char	*accessed[] = { "report-holdout-mismatch",
	    "report-reevaluation-mismatch", NULL };
	static const char	*missing[] = { "report-holdout-mismatch",
	    "report-reevaluation:trusted holdout inputs are required for "
	    "evaluation", NULL };
	static const char	*other[] = { "report-holdout-mismatch",
	    "report-holdout-mismatch", "report-reevaluation:binding digest "
	    "does not match the frozen record digest", NULL };
	static const char	*thrice[] = { "report-holdout-mismatch",
	    "report-holdout-mismatch", "report-holdout-mismatch",
	    "report-reevaluation:binding digest does not match the frozen "
	    "record digest", NULL };
	struct vx		 v;
	struct json_value	*rep, *h;
	struct gates_error	 err;

	vx_setup(tc, &v, "passing.metrics.json");
	rep = vx_report(&v);
	/* Same binding, a holdout first read after the freeze. */
	json_free(v.holdout);
	ATF_REQUIRE(gates_seal_holdout(BINDING_DIGEST,
	    "2026-09-02T12:00:00.000Z", &v.holdout, &err) == 0);
	vx_check(&v, rep, accessed);
	json_free(v.holdout);
	v.holdout = NULL;
	vx_check(&v, rep, missing);
	/* Sealed for another binding: its frozen digest and seal differ. */
	ATF_REQUIRE(gates_seal_holdout(ZEROS, NULL, &v.holdout, &err) == 0);
	vx_check(&v, rep, other);
	/* And the report's own holdout names another binding too. */
	h = (struct json_value *)json_get(rep, "holdout");
	set_str(h, "frozenDigest", ZEROS);
	reseal(rep);
	vx_check(&v, rep, thrice);
	json_free(rep);
	vx_free(&v);
}

ATF_TC_WITHOUT_HEAD(packs_metrics_floors_upstream);
ATF_TC_BODY(packs_metrics_floors_upstream, tc)
{
	static const char	*pack[] = {
	    "report-pack-mismatch:" PACK_ID,
	    "report-reevaluation-mismatch", NULL };
	static const char	*metrics[] = { "report-metrics-mismatch",
	    "report-reevaluation-mismatch", "report-decision-mismatch",
	    NULL };
	static const char	*floors[] = { "report-floors-mismatch",
	    "report-reevaluation-mismatch", NULL };
	static const char	*upstream[] = { "report-upstream-mismatch",
	    "report-reevaluation-mismatch", "report-decision-mismatch",
	    NULL };
	static const char	*noupstream[] = { "report-upstream-mismatch",
	    "report-reevaluation:evaluation requires a sealed upstream "
	    "record: the binding observes an upstream-ceiling gate", NULL };
	static const char	*nometa[] = { "report-upstream-mismatch",
	    "report-reevaluation:upstream integrity digest does not match "
	    "its report", NULL };
	static const char	*order[] = { "report-digest-mismatch",
	    "report-binding-untrusted", "report-holdout-mismatch",
	    "report-pack-mismatch:" PACK_ID, "report-metrics-mismatch",
	    "report-floors-mismatch", "report-upstream-mismatch",
	    "report-reevaluation:binding digest does not match its trusted "
	    "pin", NULL };
	struct vx		 v;
	struct json_value	*rep, *p;

	vx_setup(tc, &v, "passing.metrics.json");
	rep = vx_report(&v);
	p = &((struct json_value *)json_get(rep, "packs"))->u.array.v[0];
	set_str(p, "resolvedDigest", ZEROS);
	reseal(rep);
	vx_check(&v, rep, pack);
	/* A report entry for the pin, under another id, is no entry. */
	set_str(p, "resolvedDigest", "sha256:38a59f70033bf01a7395b776f2b448"
	    "49254127508ef4b5816a73ed6be450daed");
	set_str(p, "id", "aiwg:test-gates/other");
	reseal(rep);
	vx_check(&v, rep, pack);
	json_free(rep);

	rep = vx_report(&v);
	json_free(v.metrics);
	v.metrics = tg_fixture(tc, "fr-a12.metrics.json");
	vx_check(&v, rep, metrics);
	/* A provider runtime alone does not excuse it: no pin is a bundle
	 * provider's. */
	v.runtime = 1;
	vx_check(&v, rep, metrics);
	v.runtime = 0;
	json_free(v.metrics);
	v.metrics = tg_fixture(tc, "passing.metrics.json");

	v.floors.opt_out = 1;
	vx_check(&v, rep, floors);
	v.floors.opt_out = 0;

	json_free(v.upstream);
	v.upstream = tg_fixture(tc, "upstream-hold.json");
	vx_check(&v, rep, upstream);
	json_free(v.upstream);
	v.upstream = NULL;
	vx_check(&v, rep, noupstream);
	/* A record without metadata seals nothing (found by
	 * fuzz_gates_verify: the evaluator digested the missing member). */
	v.upstream = tg_parse("{\"digest\":\"" ZEROS "\"}", 1);
	vx_check(&v, rep, nometa);
	json_free(v.upstream);
	v.upstream = tg_fixture(tc, "upstream-clean.json");

	/* Everything at once: the reference's order, the re-evaluation's
	 * refusal last. */
	p = &((struct json_value *)json_get(rep, "packs"))->u.array.v[0];
	set_str(p, "digest", ZEROS);
	json_free(v.metrics);
	v.metrics = tg_fixture(tc, "fr-a12.metrics.json");
	v.floors.opt_out = 1;
	json_free(v.upstream);
	v.upstream = tg_fixture(tc, "upstream-hold.json");
	v.trusted = ZEROS;
	json_free(v.holdout);
	v.holdout = NULL;
	vx_check(&v, rep, order);
	json_free(rep);
	vx_free(&v);
}

/*
 * The provider-runtime exception: with a runtime and a pin with a code
 * digest, the caller's metrics document is not compared (the re-run
 * sections replace it); without either it is.
 */
ATF_TC_WITHOUT_HEAD(runtime_exception);
ATF_TC_BODY(runtime_exception, tc)
{
	struct vx		 v;
	struct json_value	*rep, *pin;
	const struct json_value	*rs;
	char			*last;
	size_t			 i;
	int			 runtime, has;

	vx_setup(tc, &v, "passing.metrics.json");
	rep = vx_report(&v);
	json_free(v.metrics);
	v.metrics = tg_fixture(tc, "fr-a12.metrics.json");
	pin = &((struct json_value *)json_get(json_get(v.binding, "spec"),
	    "metricProviders"))->u.array.v[0];
	gt_set_str(gt_add(pin, "codeDigest"), ZEROS);
	for (runtime = 0; runtime <= 1; runtime++) {
		struct gates_eval_input	 in;

		vx_input(&v, &in, "not-used");
		json_free(v.verdict);
		ATF_CHECK_EQ(gates_verify(&v.reg, &in, runtime, rep,
		    &v.verdict), 0);
		rs = json_get(v.verdict, "reasons");
		for (has = 0, i = 0; i < rs->u.array.n; i++)
			if (gt_str_is(&rs->u.array.v[i],
			    "report-metrics-mismatch"))
				has = 1;
		ATF_CHECK_EQ_MSG(has, !runtime, "runtime %d: metrics mismatch "
		    "%s", runtime, has ? "reported" : "not reported");
		/* The re-evaluation still decides: it refuses the pin. */
		last = gt_cstr(&rs->u.array.v[rs->u.array.n - 1]);
		ATF_CHECK_MSG(strncmp(last, "report-reevaluation:", 20) == 0,
		    "last reason: %s", last);
		free(last);
	}
	json_free(rep);
	vx_free(&v);
}

/*
 * A report's text has a larger cap than other documents' (its
 * indentation): padded past GATES_DOC_MAX it still reads and verifies;
 * past GATES_REPORT_TEXT_MAX it is refused as any oversized document.
 */
ATF_TC_WITHOUT_HEAD(report_text);
ATF_TC_BODY(report_text, tc)
{
	static const char	*none[] = { NULL };
	struct vx		 v;
	struct json_value	*rep, *again;
	struct gates_error	 err;
	char			*text, *big;
	size_t			 len;

	vx_setup(tc, &v, "passing.metrics.json");
	rep = vx_report(&v);
	text = gates_print_pretty(rep);
	len = strlen(text);
	big = xmalloc(GATES_REPORT_TEXT_MAX + 2);
	memcpy(big, text, len);
	memset(big + len, ' ', GATES_DOC_MAX + 1 - len);
	ATF_CHECK_STREQ(tg_refusal(big, GATES_DOC_MAX + 1, 1),
	    "Decision entry rejected: serialized-bytes");
	ATF_REQUIRE_MSG(gates_report_parse(big, GATES_DOC_MAX + 1, 1, &again,
	    &err) == 0, "%s", err.msg);
	vx_check(&v, again, none);
	json_free(again);
	memset(big + len, ' ', GATES_REPORT_TEXT_MAX + 1 - len);
	ATF_CHECK(gates_report_parse(big, GATES_REPORT_TEXT_MAX + 1, 1,
	    &again, &err) == -1);
	ATF_CHECK_STREQ(err.msg, "Decision entry rejected: serialized-bytes");
	free(big);
	free(text);
	json_free(rep);
	vx_free(&v);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, honest);
	ATF_TP_ADD_TC(tp, schema);
	ATF_TP_ADD_TC(tp, digest_and_decision);
	ATF_TP_ADD_TC(tp, binding);
	ATF_TP_ADD_TC(tp, holdout);
	ATF_TP_ADD_TC(tp, packs_metrics_floors_upstream);
	ATF_TP_ADD_TC(tp, runtime_exception);
	ATF_TP_ADD_TC(tp, report_text);
	return atf_no_error();
}
