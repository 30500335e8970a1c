/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_gates_d29: the shipped aiwg:decision-engine/absolute-screening and
 * integrity-ceiling packs over the D29 absolute-screening study
 * (interop.md §G12.1 "D29 absolute screening", figures of 12.2): a binding
 * pinning both shipped packs with default parameters, ten slices, a
 * HOLD ceiling, held-out digests and a sealed access record, metrics as
 * the decision.screening/v1 provider shapes them.
 */
#include "gatestest.h"

#define FROZEN		"2026-09-30T00:00:00.000Z"
#define ACCESSED	"2026-10-01T00:00:00.000Z"
#define NOW		"2026-10-02T00:00:00.000Z"
#define SCREENING_SRC	"sha256:737b20f3320b50c7118c01f561cebcc67f113c8cf12f" \
	"23f4776984c6a3506288"
#define AS		"aiwg:decision-engine/absolute-screening"

static const char *const slices[] = {
	"citation-supports", "citation-contradicts", "citation-unclear",
	"citation-does-not-support", "criterion-ready", "criterion-incomplete",
	"missing-artifact", "failed-test", "citation-injection",
	"criterion-injection",
};
#define NSLICES	nitems(slices)

struct d29 {
	int	 fr[NSLICES], fr_n[NSLICES];	/* false-ready events, n */
	int	 fs[NSLICES], fs_n[NSLICES];	/* false-support (citation) */
	int	 cov[NSLICES], acc[NSLICES];
	const char *ceiling;
	const char *params;			/* binding parameters JSON */
	const char *accessed;			/* NULL: never */
};

/* The four gold-support classes; citation-injection is a blocking
 * slice, not one (false-support 1/801 in interop.md §G12.2). */
static int
citation(size_t i)
{
	return i < 4;
}

static void
d29_default(struct d29 *d)
{
	size_t	 i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < NSLICES; i++) {
		d->fr_n[i] = 200;
		d->fs_n[i] = citation(i) ? 200 : 0;
		d->cov[i] = 150;
		d->acc[i] = 190;
	}
	/* One extra false-ready and false-support record on
	 * citation-supports. */
	d->fr[0] = 1;
	d->fr_n[0] = 201;
	d->fs[0] = 1;
	d->fs_n[0] = 201;
	d->ceiling = "HOLD";
	d->params = "{}";
	d->accessed = ACCESSED;
}

static char *
append(char *s, const char *fmt, ...) SBX_PRINTF(2, 3);

static char *
append(char *s, const char *fmt, ...)
{
	char	*t, *u;
	va_list	 ap;

	va_start(ap, fmt);
	if (vasprintf(&t, fmt, ap) == -1)
		atf_tc_fail("vasprintf");
	va_end(ap);
	xasprintf(&u, "%s%s", s, t);
	free(s);
	free(t);
	return u;
}

/* A proportion series over the slices with n > 0, pooled the sum. */
static char *
series(char *s, const char *name, const int *events, const int *n,
    int last)
{
	size_t	 i;
	int	 pn = 0, pe = 0, first = 1;

	s = append(s, "\"%s\":{\"bySlice\":{", name);
	for (i = 0; i < NSLICES; i++) {
		if (n[i] == 0)
			continue;
		s = append(s, "%s\"%s\":{\"n\":%d,\"events\":%d}",
		    first ? "" : ",", slices[i], n[i], events[i]);
		first = 0;
		pn += n[i];
		pe += events[i];
	}
	return append(s, "},\"pooled\":{\"n\":%d,\"events\":%d}}%s", pn, pe,
	    last ? "" : ",");
}

static char *
metrics(const struct d29 *d)
{
	int	 n200[NSLICES];
	size_t	 i;
	char	*s;

	for (i = 0; i < NSLICES; i++)
		n200[i] = 200;
	s = xstrdup("{\"providers\":{\"decision.screening/v1\":{\"version\":"
	    "\"1.0.0\",\"sourceDigest\":\"" SCREENING_SRC "\",\"metrics\":{");
	s = series(s, "false-ready", d->fr, d->fr_n, 0);
	s = series(s, "false-support", d->fs, d->fs_n, 0);
	s = series(s, "coverage", d->cov, n200, 0);
	s = series(s, "accuracy", d->acc, n200, 0);
	return append(s, "\"calibration\":{\"bySlice\":{},\"pooled\":"
	    "{\"available\":[{\"id\":\"d29-heldout-class-support\",\"passed\":"
	    "true},{\"id\":\"d29-heldout-evaluated-at\",\"passed\":true},"
	    "{\"id\":\"d29-heldout-slices-registered\",\"passed\":true},"
	    "{\"id\":\"d29-heldout-split\",\"passed\":true},{\"id\":"
	    "\"staged-calibration-artifact\",\"passed\":true}]}}}}}}");
}

static char *
binding(const struct gates_registry *reg, const struct d29 *d)
{
	const struct gates_pack	*a, *c;
	char			*s, dd[DIGEST_STR_LEN + 1];
	size_t			 i;

	a = gates_registry_find(reg, AS);
	c = gates_registry_find(reg, "aiwg:decision-engine/integrity-ceiling");
	ATF_REQUIRE(a != NULL && c != NULL);
	ATF_REQUIRE(gates_provider_source_digest(gates_registry_provider(reg,
	    "decision.screening/v1"), dd) == 0);
	ATF_CHECK_STREQ(dd, SCREENING_SRC);
	xasprintf(&s, "{\"apiVersion\":\"gates.aiwg.io/v1alpha1\",\"kind\":"
	    "\"GateBinding\",\"metadata\":{\"id\":\"d29-synthetic-v7-absolute-"
	    "gates\",\"version\":\"1.0.0\",\"description\":\"D29\"},\"spec\":{"
	    "\"packs\":[{\"id\":\"%s\",\"version\":\"1.0.0\",\"digest\":\"%s\","
	    "\"resolvedDigest\":\"%s\"},{\"id\":\"%s\",\"version\":\"1.0.0\","
	    "\"digest\":\"%s\",\"resolvedDigest\":\"%s\"}],\"parameters\":%s,"
	    "\"slices\":[", a->id, a->digest, a->resolved_digest, c->id,
	    c->digest, c->resolved_digest, d->params);
	for (i = 0; i < NSLICES; i++)
		s = append(s, "%s\"%s\"", i ? "," : "", slices[i]);
	return append(s, "],\"sliceGroups\":{\"blocking\":[\"missing-artifact\","
	    "\"failed-test\",\"citation-injection\",\"criterion-injection\"]},"
	    "\"references\":[{\"name\":\"always-review\",\"kind\":"
	    "\"always-review\"}],\"metricProviders\":[{\"id\":"
	    "\"decision.screening/v1\",\"version\":\"1.0.0\",\"sourceDigest\":"
	    "\"" SCREENING_SRC "\"}],\"ceiling\":\"%s\",\"registeredAt\":\""
	    FROZEN "\",\"frozenAt\":\"" FROZEN "\",\"splitDigest\":\"sha256:"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\","
	    "\"corpusDigest\":\"sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	    "bbbbbbbbbbbbbbbbbbbbbbbb\",\"goldDigest\":\"sha256:cccccccccccccc"
	    "cccccccccccccccccccccccccccccccccccccccccccccccccc\"}}",
	    d->ceiling);
}

#define UPSTREAM "{\"sample_n\":1500,\"uncertainty\":{\"profile\":\"test\"}," \
	"\"paired_baseline\":{\"baseline\":\"test\"},\"integrity_mode\":\"fresh\"," \
	"\"fresh_workspace_required\":true,\"fresh_workspace_verified\":true," \
	"\"integrity_state\":\"verified\",\"trusted_score_source\":\"fresh-workspace\"," \
	"\"compromise_labels\":[],\"weak_signal_reason\":null," \
	"\"release_gate\":{\"decision\":\"%s\",\"reasons\":[]}}"

struct out {
	int			 rc;
	struct gates_error	 err;
	struct json_value	*report;
};

static void
evaluate(const atf_tc_t *tc, const struct d29 *d, const char *release,
    struct out *o)
{
	struct gates_registry	 reg;
	struct gates_floors	 floors;
	struct gates_eval_input	 in;
	struct json_value	*b, *m, *h, *u, *meta, empty;
	struct gates_error	 err;
	char			*bs, *ms, *us, bd[DIGEST_STR_LEN + 1];

	(void)tc;
	gates_registry_init(&reg);
	ATF_REQUIRE(gates_registry_bootstrap(&reg, &err) == 0);
	bs = binding(&reg, d);
	b = tg_parse(bs, 1);
	ms = metrics(d);
	m = tg_parse(ms, 1);
	ATF_REQUIRE(gates_digest(b, bd, &err) == 0);
	ATF_REQUIRE(gates_seal_holdout(bd, d->accessed, &h, &err) == 0);
	xasprintf(&us, UPSTREAM, release);
	meta = tg_parse(us, 1);
	u = xcalloc(1, sizeof(*u));
	gt_set_obj(u);
	ATF_REQUIRE(gates_digest(meta, bd, &err) == 0);
	*gt_add(u, "metadata") = *meta;
	free(meta);
	gt_set_str(gt_add(u, "digest"), bd);
	ATF_REQUIRE(gates_digest(b, bd, &err) == 0);
	gt_set_obj(&empty);
	gates_floors_resolve(&empty, &floors);
	memset(&in, 0, sizeof(in));
	in.binding = b;
	in.trusted_binding_digest = bd;
	in.holdout = h;
	in.metrics = m;
	in.upstream = u;
	in.floors = &floors;
	in.now = NOW;
	memset(o, 0, sizeof(*o));
	o->rc = gates_evaluate(&reg, &in, &o->report, &o->err);
	gates_floors_free(&floors);
	json_free(b);
	json_free(m);
	json_free(h);
	json_free(u);
	free(bs);
	free(ms);
	free(us);
	gates_registry_free(&reg);
}

static const struct json_value *
entry(struct out *o, const char *gid, const char *slice)
{
	const struct json_value	*ev, *e;
	size_t			 i;

	ATF_REQUIRE_MSG(o->rc == 0, "refused: %s", o->err.msg);
	ev = json_get(o->report, "gateEvidence");
	for (i = 0; i < ev->u.array.n; i++) {
		e = &ev->u.array.v[i];
		if (gt_str_is(json_get(e, "gateId"), gid) && (slice == NULL ||
		    gt_str_is(json_get(e, "slice"), slice)))
			return e;
	}
	atf_tc_fail("no entry %s", gid);
	return NULL;
}

static void
check_bps(struct out *o, const char *gid, const char *slice, double lo,
    double up, double est)
{
	const struct json_value	*s = json_get(entry(o, gid, slice), "statistic");

	ATF_CHECK_EQ_MSG(json_get(s, "lowerBps")->u.number, lo, "%s lower", gid);
	ATF_CHECK_EQ_MSG(json_get(s, "upperBps")->u.number, up, "%s upper", gid);
	ATF_CHECK_EQ_MSG(json_get(s, "estimateBps")->u.number, est,
	    "%s estimate", gid);
}

static int
decision_is(struct out *o, const char *want)
{
	ATF_REQUIRE_MSG(o->rc == 0, "refused: %s", o->err.msg);
	return gt_str_is(json_get(o->report, "decision"), want);
}

static int
status_is(struct out *o, const char *gid, const char *slice,
    const char *status, const char *outcome)
{
	const struct json_value	*e = entry(o, gid, slice);

	return gt_str_is(json_get(e, "status"), status) &&
	    gt_str_is(json_get(e, "outcome"), outcome);
}

ATF_TC_WITHOUT_HEAD(promote_and_figures);
ATF_TC_BODY(promote_and_figures, tc)
{
	struct d29		 d;
	struct out		 o;
	const struct json_value	*ev;
	size_t			 i;

	d29_default(&d);
	d.ceiling = "PROMOTE";
	evaluate(tc, &d, "PROMOTE", &o);
	ATF_CHECK(decision_is(&o, "PROMOTE"));
	ev = json_get(o.report, "gateEvidence");
	for (i = 0; i < ev->u.array.n; i++)
		ATF_CHECK_MSG(gt_str_is(json_get(&ev->u.array.v[i], "status"),
		    "pass"), "entry %zu is not pass", i);
	check_bps(&o, "false-ready-upper", NULL, 0, 29, 5);
	check_bps(&o, "false-support-upper", NULL, 2, 71, 12);
	check_bps(&o, "coverage-lower", NULL, 7305, 7685, 7500);
	check_bps(&o, "accuracy-floor", "failed-test", 9104, 9727, 9500);
	json_free(o.report);

	d29_default(&d);
	evaluate(tc, &d, "PROMOTE", &o);
	ATF_CHECK(decision_is(&o, "HOLD"));
	ATF_CHECK(gt_str_is(json_get(json_get(o.report, "ceilings"),
	    "packOutcome"), "PROMOTE"));
	json_free(o.report);
}

ATF_TC_WITHOUT_HEAD(breaches);
ATF_TC_BODY(breaches, tc)
{
	struct d29	 d;
	struct out	 o;

	d29_default(&d);
	d.ceiling = "PROMOTE";
	d.fr[6] = 1;			/* missing-artifact */
	evaluate(tc, &d, "PROMOTE", &o);
	ATF_CHECK(decision_is(&o, "ROLLBACK"));
	ATF_CHECK(status_is(&o, "blocking-false-ready-events",
	    "missing-artifact", "fail", "ROLLBACK"));
	json_free(o.report);

	d29_default(&d);
	d.ceiling = "PROMOTE";
	d.fr[0] = 21;			/* citation-supports: 20 more */
	evaluate(tc, &d, "PROMOTE", &o);
	ATF_CHECK(decision_is(&o, "HOLD"));
	check_bps(&o, "false-ready-upper", NULL, 68, 160, 105);
	json_free(o.report);

	d29_default(&d);
	d.ceiling = "PROMOTE";
	d.fs[1] = 8;			/* citation-contradicts */
	evaluate(tc, &d, "PROMOTE", &o);
	ATF_CHECK(decision_is(&o, "HOLD"));
	check_bps(&o, "false-support-upper", NULL, 59, 213, 112);
	json_free(o.report);

	d29_default(&d);
	d.ceiling = "PROMOTE";
	d.fr[4] = 10;			/* criterion-ready */
	evaluate(tc, &d, "PROMOTE", &o);
	ATF_CHECK(status_is(&o, "false-ready-upper", NULL, "pass", "PROMOTE"));
	check_bps(&o, "false-ready-upper", NULL, 30, 99, 55);
	json_free(o.report);
	d.params = "{\"" AS ".confidenceLevelBps\":9998}";
	evaluate(tc, &d, "PROMOTE", &o);
	ATF_CHECK(status_is(&o, "false-ready-upper", NULL, "fail", "HOLD"));
	check_bps(&o, "false-ready-upper", NULL, 18, 159, 55);
	json_free(o.report);

	d29_default(&d);
	d.ceiling = "PROMOTE";
	d.params = "{\"" AS ".supportTotalMinN\":2002}";
	evaluate(tc, &d, "PROMOTE", &o);
	ATF_CHECK(status_is(&o, "support-total", NULL, "insufficient", "HOLD"));
	json_free(o.report);

	d29_default(&d);
	d.ceiling = "PROMOTE";
	d.acc[3] = 60;
	evaluate(tc, &d, "PROMOTE", &o);
	check_bps(&o, "accuracy-floor", "citation-does-not-support", 2407,
	    3668, 3000);
	ATF_CHECK(status_is(&o, "accuracy-floor", "citation-does-not-support",
	    "fail", "HOLD"));
	json_free(o.report);
}

ATF_TC_WITHOUT_HEAD(upstream_and_holdout);
ATF_TC_BODY(upstream_and_holdout, tc)
{
	struct d29	 d;
	struct out	 o;

	d29_default(&d);
	d.ceiling = "PROMOTE";
	evaluate(tc, &d, "HOLD", &o);
	ATF_CHECK(decision_is(&o, "HOLD"));
	json_free(o.report);
	evaluate(tc, &d, "ROLLBACK", &o);
	ATF_CHECK(decision_is(&o, "ROLLBACK"));
	json_free(o.report);

	d.accessed = FROZEN;
	evaluate(tc, &d, "PROMOTE", &o);
	ATF_CHECK_EQ(o.rc, -1);
	ATF_CHECK_STREQ(o.err.msg, "binding froze at or after holdout access: "
	    "evaluation refused");
	d.accessed = NULL;
	evaluate(tc, &d, "PROMOTE", &o);
	ATF_CHECK_EQ(o.rc, -1);
	ATF_CHECK_STREQ(o.err.msg, "holdout record reports no access but the "
	    "binding declares held-out data");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, promote_and_figures);
	ATF_TP_ADD_TC(tp, breaches);
	ATF_TP_ADD_TC(tp, upstream_and_holdout);
	return atf_no_error();
}
