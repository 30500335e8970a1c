/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_gates_eval: evaluateGates over the reference's conformance pack and
 * binding (interop.md §G12.1 "Fixture evaluation"): the passing report and
 * its digests (12.2), each asserted change, and the refusals in order.
 */
#include "gatestest.h"

#define NOW		"2026-09-03T00:00:00.000Z"
#define BINDING_DIGEST	"sha256:713127fce4b97506487ce80c65998b29b110aff1481" \
	"56496336c6a859948149c"

struct mx {
	int	 fr_a_n, fr_a_e, fr_b_n, fr_b_e;	/* false-ready */
	int	 cov_a_n, cov_a_e, cov_b_n, cov_b_e;	/* coverage */
	int	 pa[4], pb[4];				/* paired cells */
	double	 sa_v, sb_v;				/* scalar values */
	int	 sa_n, sb_n;
	const char *evidence;				/* available JSON */
	int	 fr_noslices;				/* false-ready bySlice {} */
	double	 delta;					/* every difference */
	int	 delta_set;
};

static void
mx_default(struct mx *m)
{
	memset(m, 0, sizeof(*m));
	m->fr_a_n = m->fr_b_n = 1000;
	m->cov_a_n = m->cov_b_n = 1000;
	m->cov_a_e = m->cov_b_e = 500;
	m->pa[0] = m->pb[0] = 450;
	m->pa[1] = m->pb[1] = 30;
	m->pa[2] = m->pb[2] = 30;
	m->pa[3] = m->pb[3] = 490;
	m->sa_n = m->sb_n = 100;
	m->sa_v = 0.08;
	m->sb_v = 0.12;
	m->evidence = "[{\"id\":\"review-passed\",\"passed\":true}]";
}

static char *
num(double d)
{
	char	 b[JSON_NUMBER_BUFSZ];

	json_number_format(d, b, sizeof(b));
	return xstrdup(b);
}

/* The core providers' shapes (interop.md §G4.4) for these observations. */
static char *
mx_json(const struct mx *m)
{
	char	*s, *da, *db, *dall, *t, *va, *vb, *vp, *x;
	int	 i;
	double	 pooled, sum;

	da = xstrdup("");
	db = xstrdup("");
	for (i = 0; i < m->sa_n; i++) {
		x = num(m->delta_set ? m->delta : m->sa_v);
		xasprintf(&t, "%s%s%s", da, i ? "," : "", x);
		free(da);
		da = t;
		free(x);
	}
	for (i = 0; i < m->sb_n; i++) {
		x = num(m->delta_set ? m->delta : m->sb_v);
		xasprintf(&t, "%s%s%s", db, i ? "," : "", x);
		free(db);
		db = t;
		free(x);
	}
	xasprintf(&dall, "%s%s%s", da, *da && *db ? "," : "", db);
	/* The scalar provider's means: a left-to-right sum over n. */
	for (pooled = 0, i = 0; i < m->sa_n; i++)
		pooled += m->sa_v;
	va = num(pooled / m->sa_n);
	for (sum = 0, i = 0; i < m->sb_n; i++)
		sum += m->sb_v;
	vb = num(sum / m->sb_n);
	for (i = 0; i < m->sb_n; i++)
		pooled += m->sb_v;
	vp = num(pooled / (m->sa_n + m->sb_n));
	xasprintf(&s, "{\"providers\":{"
	    "\"test.proportion/v1\":{\"version\":\"1.0.0\",\"sourceDigest\":"
	    "\"sha256:8e533b21822c74d7eded47528bd1c65d4ea2466e157e63fca5093ca0f412e737\","
	    "\"metrics\":{\"false-ready\":{\"bySlice\":%s,"
	    "\"pooled\":{\"n\":%d,\"events\":%d}},"
	    "\"coverage\":{\"bySlice\":{\"a\":{\"n\":%d,\"events\":%d},"
	    "\"b\":{\"n\":%d,\"events\":%d}},\"pooled\":{\"n\":%d,\"events\":%d}}}},"
	    "\"test.paired/v1\":{\"version\":\"1.0.0\",\"sourceDigest\":"
	    "\"sha256:f9ec7b3f4c3bb42967e2ce6ab7d1f371c89100a5d08f573004a6fda9a3265b58\","
	    "\"metrics\":{\"contrast\":{\"bySlice\":{"
	    "\"a\":{\"n\":%d,\"paired\":{\"both\":%d,\"candidateOnly\":%d,\"baselineOnly\":%d,\"neither\":%d}},"
	    "\"b\":{\"n\":%d,\"paired\":{\"both\":%d,\"candidateOnly\":%d,\"baselineOnly\":%d,\"neither\":%d}}},"
	    "\"pooled\":{\"n\":%d,\"paired\":{\"both\":%d,\"candidateOnly\":%d,\"baselineOnly\":%d,\"neither\":%d}}}}},"
	    "\"test.scalar/v1\":{\"version\":\"1.0.0\",\"sourceDigest\":"
	    "\"sha256:860560783009be16b08b079dfb3dfadd732bb4d93bf27f3b372772212bc96391\","
	    "\"metrics\":{\"measurement\":{\"bySlice\":{\"a\":{\"n\":%d,\"value\":%s},"
	    "\"b\":{\"n\":%d,\"value\":%s}},\"pooled\":{\"n\":%d,\"value\":%s}},"
	    "\"delta\":{\"bySlice\":{\"a\":{\"n\":%d,\"differences\":[%s]},"
	    "\"b\":{\"n\":%d,\"differences\":[%s]}},\"pooled\":{\"n\":%d,"
	    "\"differences\":[%s]}}}},"
	    "\"test.evidence/v1\":{\"version\":\"1.0.0\",\"sourceDigest\":"
	    "\"sha256:4c8b2c0ba53d60f6a53ce97d7a3a8909a9df6295a01e0f07d51eed6a9d704271\","
	    "\"metrics\":{\"attestations\":{\"bySlice\":{},\"pooled\":{\"available\":%s}}}}}}",
	    m->fr_noslices ? "{}" : "", m->fr_a_n + m->fr_b_n,
	    m->fr_a_e + m->fr_b_e,
	    m->cov_a_n, m->cov_a_e, m->cov_b_n, m->cov_b_e,
	    m->cov_a_n + m->cov_b_n, m->cov_a_e + m->cov_b_e,
	    m->pa[0] + m->pa[1] + m->pa[2] + m->pa[3], m->pa[0], m->pa[1],
	    m->pa[2], m->pa[3],
	    m->pb[0] + m->pb[1] + m->pb[2] + m->pb[3], m->pb[0], m->pb[1],
	    m->pb[2], m->pb[3],
	    m->pa[0] + m->pa[1] + m->pa[2] + m->pa[3] + m->pb[0] + m->pb[1] +
	    m->pb[2] + m->pb[3], m->pa[0] + m->pb[0], m->pa[1] + m->pb[1],
	    m->pa[2] + m->pb[2], m->pa[3] + m->pb[3],
	    m->sa_n, va, m->sb_n, vb, m->sa_n + m->sb_n, vp,
	    m->sa_n, da, m->sb_n, db, m->sa_n + m->sb_n, dall, m->evidence);
	if (!m->fr_noslices) {
		/* bySlice of false-ready, spliced in. */
		xasprintf(&t, "{\"a\":{\"n\":%d,\"events\":%d},\"b\":{\"n\":%d,"
		    "\"events\":%d}}", m->fr_a_n, m->fr_a_e, m->fr_b_n,
		    m->fr_b_e);
		x = strstr(s, "\"bySlice\":,");
		ATF_REQUIRE(x != NULL);
		free(dall);
		xasprintf(&dall, "%.*s\"bySlice\":%s,%s", (int)(x - s), s, t,
		    x + strlen("\"bySlice\":,"));
		free(s);
		free(t);
		s = dall;
	} else
		free(dall);
	free(da);
	free(db);
	free(va);
	free(vb);
	free(vp);
	return s;
}

#define UPSTREAM_CLEAN "{\"sample_n\":10,\"uncertainty\":{\"profile\":\"test\"}," \
	"\"paired_baseline\":{\"baseline\":\"test\"},\"integrity_mode\":\"fresh\"," \
	"\"fresh_workspace_required\":true,\"fresh_workspace_verified\":true," \
	"\"integrity_state\":\"verified\",\"trusted_score_source\":\"fresh-workspace\"," \
	"\"compromise_labels\":[],\"weak_signal_reason\":null," \
	"\"release_gate\":{\"decision\":\"PROMOTE\",\"reasons\":[]}}"

struct run {
	struct gates_registry	 reg;
	struct json_value	*binding, *metrics, *holdout, *upstream;
	struct gates_floors	 floors;
	struct json_value	*report;
	struct gates_error	 err;
	const char		*trusted;
	const char		*now;
	int			 rc;
};

static struct json_value *
sealed_upstream(const char *meta)
{
	struct json_value	*m, *u;
	char			 d[DIGEST_STR_LEN + 1];
	struct gates_error	 err;

	m = tg_parse(meta, 1);
	ATF_REQUIRE(gates_digest(m, d, &err) == 0);
	u = xcalloc(1, sizeof(*u));
	gt_set_obj(u);
	*gt_add(u, "metadata") = *m;
	free(m);
	gt_set_str(gt_add(u, "digest"), d);
	return u;
}

static void
run_setup(const atf_tc_t *tc, struct run *r)
{
	struct json_value	 empty;
	struct gates_error	 err;

	memset(r, 0, sizeof(*r));
	tg_registry(tc, &r->reg);
	r->binding = tg_fixture(tc, "conformance-run.binding.json");
	ATF_REQUIRE(gates_seal_holdout(BINDING_DIGEST, NULL, &r->holdout,
	    &err) == 0);
	r->upstream = sealed_upstream(UPSTREAM_CLEAN);
	gt_set_obj(&empty);
	gates_floors_resolve(&empty, &r->floors);
	r->trusted = BINDING_DIGEST;
	r->now = NOW;
}

static void
run_eval(struct run *r, const struct mx *m)
{
	struct gates_eval_input	 in;
	char			*mj;

	mj = mx_json(m);
	json_free(r->metrics);
	r->metrics = tg_parse(mj, 1);
	free(mj);
	json_free(r->report);
	r->report = NULL;
	memset(&in, 0, sizeof(in));
	in.binding = r->binding;
	in.trusted_binding_digest = r->trusted;
	in.holdout = r->holdout;
	in.metrics = r->metrics;
	in.upstream = r->upstream;
	in.floors = &r->floors;
	in.now = r->now;
	in.attestation = "offline-cli";
	memset(&r->err, 0, sizeof(r->err));
	r->rc = gates_evaluate(&r->reg, &in, &r->report, &r->err);
}

static void
run_free(struct run *r)
{
	json_free(r->binding);
	json_free(r->metrics);
	json_free(r->holdout);
	json_free(r->upstream);
	json_free(r->report);
	gates_floors_free(&r->floors);
	gates_registry_free(&r->reg);
}

static const char *
decision(struct run *r)
{
	ATF_REQUIRE_MSG(r->rc == 0, "refused: %s", r->err.msg);
	return json_get(r->report, "decision")->u.string.len == 7 ?
	    (gt_str_is(json_get(r->report, "decision"), "PROMOTE") ? "PROMOTE" :
	    "?") : gt_str_is(json_get(r->report, "decision"), "HOLD") ? "HOLD" :
	    gt_str_is(json_get(r->report, "decision"), "ROLLBACK") ? "ROLLBACK" :
	    "?";
}

/* The entry of gate id (and slice, or NULL for the first). */
static const struct json_value *
entry(struct run *r, const char *gid, const char *slice)
{
	const struct json_value	*ev = json_get(r->report, "gateEvidence"), *e;
	size_t			 i;

	for (i = 0; i < ev->u.array.n; i++) {
		e = &ev->u.array.v[i];
		if (!gt_str_is(json_get(e, "gateId"), gid))
			continue;
		if (slice == NULL || gt_str_is(json_get(e, "slice"), slice))
			return e;
	}
	atf_tc_fail("no entry %s[%s]", gid, slice ? slice : "-");
	return NULL;
}

static void
check_entry(struct run *r, const char *gid, const char *slice,
    const char *status, const char *outcome)
{
	const struct json_value	*e = entry(r, gid, slice);

	ATF_CHECK_MSG(gt_str_is(json_get(e, "status"), status),
	    "%s status not %s", gid, status);
	ATF_CHECK_MSG(gt_str_is(json_get(e, "outcome"), outcome),
	    "%s outcome not %s", gid, outcome);
}

static double
stat_of(struct run *r, const char *gid, const char *slice, const char *k)
{
	const struct json_value	*v;

	v = json_get(json_get(entry(r, gid, slice), "statistic"), k);
	ATF_REQUIRE_MSG(gt_is_num(v), "%s.%s missing", gid, k);
	return v->u.number;
}

ATF_TC_WITHOUT_HEAD(passing_report);
ATF_TC_BODY(passing_report, tc)
{
	struct run	 r;
	struct mx	 m;
	char		*a, *b;
	const struct json_value *ev;
	size_t		 i;

	run_setup(tc, &r);
	mx_default(&m);
	run_eval(&r, &m);
	ATF_CHECK_STREQ(decision(&r), "PROMOTE");
	ev = json_get(r.report, "gateEvidence");
	ATF_CHECK_EQ(ev->u.array.n, 13);
	for (i = 0; i < ev->u.array.n; i++)
		ATF_CHECK_MSG(gt_str_is(json_get(&ev->u.array.v[i], "status"),
		    "pass"), "entry %zu not pass", i);
	ATF_CHECK(gt_str_is(json_get(json_get(r.report, "metricsDigest") ?
	    r.report : NULL, "metricsDigest"), "sha256:cd88612ae6517f444e8ac1"
	    "ada02eb2550dded565e7156c94acf7027a45ec3ca0"));
	ATF_CHECK(gt_str_is(json_get(json_get(r.report, "holdout"), "digest"),
	    "sha256:49210709d46d444720202b53e2c24959c8cdb81398e79f87e036ebe0"
	    "332b36ac"));
	ATF_CHECK(gt_str_is(json_get(json_get(r.report, "upstream"), "digest"),
	    "sha256:c790bc46394becaa2d592da08deeaeeb3abb0451123af7b5b46b70e8"
	    "ec3bf381"));
	ATF_CHECK(gt_str_is(json_get(json_get(r.report, "floors"), "digest"),
	    "sha256:27219d2e415e6d6904d372444d83f4e3e62b823fbe2d504a5fa265a4"
	    "d0dc56b3"));
	/* interop.md §G12.2 figures */
	ATF_CHECK_EQ(stat_of(&r, "false-ready-upper", NULL, "upperBps"), 20);
	ATF_CHECK_EQ(stat_of(&r, "false-ready-exact", "a", "upperBps"), 37);
	ATF_CHECK_EQ(stat_of(&r, "coverage-lower", NULL, "lowerBps"), 4781);
	ATF_CHECK_EQ(stat_of(&r, "coverage-lower", NULL, "upperBps"), 5219);
	ATF_CHECK_EQ(stat_of(&r, "contrast-ni", NULL, "lowerBps"), -108);
	ATF_CHECK_EQ(stat_of(&r, "contrast-ni", NULL, "upperBps"), 108);
	ATF_CHECK_EQ(stat_of(&r, "delta-bootstrap", NULL, "lowerBps"), 971);
	ATF_CHECK_EQ(stat_of(&r, "delta-bootstrap", NULL, "upperBps"), 1028);
	ATF_CHECK_EQ(stat_of(&r, "delta-bootstrap", NULL, "estimateBps"),
	    1000);
	ATF_CHECK(gt_str_is(json_get(r.report, "digest"), "sha256:52659cbd46e4"
	    "5885d84f2ce3d8f7148f3b4f0343243b6a06f1efb1e34b645667"));
	/* Byte-deterministic: a second run prints the same bytes. */
	a = gates_print_pretty(r.report);
	run_eval(&r, &m);
	b = gates_print_pretty(r.report);
	ATF_CHECK_STREQ(a, b);
	free(a);
	free(b);
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(asserted_changes);
ATF_TC_BODY(asserted_changes, tc)
{
	struct run		 r;
	struct mx		 m;
	const struct json_value	*t;

	run_setup(tc, &r);

	mx_default(&m);
	m.fr_a_e = 12;
	run_eval(&r, &m);
	ATF_CHECK_STREQ(decision(&r), "HOLD");
	check_entry(&r, "false-ready-upper", NULL, "fail", "HOLD");
	ATF_CHECK(gt_str_is(&json_get(entry(&r, "false-ready-upper", NULL),
	    "reasons")->u.array.v[0], "false-ready-upper:bound-breaches-"
	    "threshold"));
	t = json_get(entry(&r, "false-ready-upper", NULL), "threshold");
	ATF_CHECK(gt_str_is(json_get(t, "param"), "falseReadyMaxBps"));
	ATF_CHECK_EQ(json_get(t, "resolved")->u.number, 100);
	ATF_CHECK_EQ(stat_of(&r, "false-ready-upper", NULL, "lowerBps"), 34);
	ATF_CHECK_EQ(stat_of(&r, "false-ready-upper", NULL, "upperBps"), 105);
	ATF_CHECK_EQ(stat_of(&r, "false-ready-exact", "a", "lowerBps"), 62);
	ATF_CHECK_EQ(stat_of(&r, "false-ready-exact", "a", "upperBps"), 209);

	mx_default(&m);
	m.fr_b_e = 1;
	run_eval(&r, &m);
	ATF_CHECK_STREQ(decision(&r), "ROLLBACK");
	check_entry(&r, "blocking-events", "b", "fail", "ROLLBACK");

	mx_default(&m);
	m.pa[0] = m.pb[0] = 300;
	m.pa[1] = m.pb[1] = 5;
	m.pa[2] = m.pb[2] = 90;
	m.pa[3] = m.pb[3] = 605;
	run_eval(&r, &m);
	ATF_CHECK_STREQ(decision(&r), "ROLLBACK");
	check_entry(&r, "contrast-ni", NULL, "fail", "ROLLBACK");
	ATF_CHECK_EQ(stat_of(&r, "contrast-ni", NULL, "lowerBps"), -981);
	ATF_CHECK_EQ(stat_of(&r, "contrast-ni", NULL, "upperBps"), -719);

	mx_default(&m);
	m.cov_a_e = m.cov_b_e = 3;
	run_eval(&r, &m);
	ATF_CHECK_STREQ(decision(&r), "HOLD");
	check_entry(&r, "coverage-lower", NULL, "fail", "HOLD");
	check_entry(&r, "coverage-events", NULL, "fail", "HOLD");

	mx_default(&m);
	m.sa_v = 900;
	m.sb_v = 950;
	run_eval(&r, &m);
	ATF_CHECK_STREQ(decision(&r), "HOLD");
	check_entry(&r, "latency-cap", NULL, "fail", "HOLD");
	check_entry(&r, "delta-bootstrap", NULL, "insufficient", "HOLD");

	mx_default(&m);
	m.delta_set = 1;
	m.delta = -0.5;
	m.sa_v = m.sb_v = -0.5;
	run_eval(&r, &m);
	ATF_CHECK_STREQ(decision(&r), "HOLD");
	check_entry(&r, "delta-bootstrap", NULL, "fail", "HOLD");
	ATF_CHECK_EQ(stat_of(&r, "delta-bootstrap", NULL, "lowerBps"), -5000);

	mx_default(&m);
	m.evidence = "[]";
	run_eval(&r, &m);
	ATF_CHECK_STREQ(decision(&r), "HOLD");
	check_entry(&r, "release-evidence", NULL, "insufficient", "HOLD");

	mx_default(&m);
	m.evidence = "[{\"id\":\"review-passed\",\"passed\":false}]";
	run_eval(&r, &m);
	check_entry(&r, "release-evidence", NULL, "fail", "HOLD");

	mx_default(&m);
	m.fr_noslices = 1;
	run_eval(&r, &m);
	ATF_CHECK_STREQ(decision(&r), "HOLD");
	check_entry(&r, "support-total", NULL, "pass", "PROMOTE");
	check_entry(&r, "false-ready-exact", "a", "insufficient", "HOLD");
	check_entry(&r, "false-ready-exact", "b", "insufficient", "HOLD");
	check_entry(&r, "blocking-events", "b", "insufficient", "HOLD");

	mx_default(&m);
	m.fr_a_e = m.fr_b_e = 300;
	run_eval(&r, &m);
	ATF_CHECK(strcmp(decision(&r), "PROMOTE") != 0);
	ATF_CHECK_EQ(stat_of(&r, "false-ready-exact", "a", "lowerBps"), 2717);
	ATF_CHECK_EQ(stat_of(&r, "false-ready-exact", "a", "upperBps"), 3295);
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(upstream_ceilings);
ATF_TC_BODY(upstream_ceilings, tc)
{
	struct run	 r;
	struct mx	 m;

	run_setup(tc, &r);
	mx_default(&m);
	json_free(r.upstream);
	r.upstream = sealed_upstream("{\"sample_n\":10,\"uncertainty\":"
	    "{\"profile\":\"test\"},\"paired_baseline\":{\"baseline\":\"test\"},"
	    "\"integrity_mode\":\"fresh\",\"fresh_workspace_required\":true,"
	    "\"fresh_workspace_verified\":true,\"integrity_state\":\"verified\","
	    "\"trusted_score_source\":\"fresh-workspace\",\"compromise_labels\":"
	    "[],\"weak_signal_reason\":null,\"release_gate\":{\"decision\":"
	    "\"HOLD\",\"reasons\":[\"manual-review\"]}}");
	ATF_CHECK(gt_str_is(json_get(r.upstream, "digest"), "sha256:bd020a1965"
	    "014a06409ab17e3c3b7cc244f305257dda6ebfbf13ec22904cdd40"));
	run_eval(&r, &m);
	ATF_CHECK_STREQ(decision(&r), "HOLD");
	check_entry(&r, "integrity-ceiling", NULL, "fail", "HOLD");
	ATF_CHECK(gt_str_is(json_get(json_get(r.report, "ceilings"),
	    "upstreamCeiling"), "HOLD"));

	json_free(r.upstream);
	r.upstream = sealed_upstream("{\"sample_n\":10,\"uncertainty\":"
	    "{\"profile\":\"test\"},\"paired_baseline\":{\"baseline\":\"test\"},"
	    "\"integrity_mode\":\"fresh\",\"fresh_workspace_required\":true,"
	    "\"fresh_workspace_verified\":true,\"integrity_state\":"
	    "\"compromised\",\"trusted_score_source\":\"fresh-workspace\","
	    "\"compromise_labels\":[\"injected-fixture\"],\"weak_signal_reason\":"
	    "null,\"release_gate\":{\"decision\":\"ROLLBACK\",\"reasons\":"
	    "[\"integrity\"]}}");
	ATF_CHECK(gt_str_is(json_get(r.upstream, "digest"), "sha256:40cf2ca476"
	    "3fd75377aaee1da3e0519eb4b46ec0bf9c36e665a06007f039cdf2"));
	run_eval(&r, &m);
	ATF_CHECK_STREQ(decision(&r), "ROLLBACK");
	check_entry(&r, "integrity-ceiling", NULL, "fail", "ROLLBACK");

	json_free(r.upstream);
	r.upstream = NULL;
	run_eval(&r, &m);
	ATF_CHECK_EQ(r.rc, -1);
	ATF_CHECK(strstr(r.err.msg, "sealed upstream") != NULL);
	run_free(&r);
}

static void
expect_refusal(struct run *r, const char *want)
{
	struct mx	 m;

	mx_default(&m);
	run_eval(r, &m);
	ATF_CHECK_EQ_MSG(r->rc, -1, "accepted, wanted %s", want);
	ATF_CHECK_MSG(strstr(r->err.msg, want) != NULL, "got '%s', wanted "
	    "'%s'", r->err.msg, want);
}

ATF_TC_WITHOUT_HEAD(holdout_refusals);
ATF_TC_BODY(holdout_refusals, tc)
{
	struct run		 r;
	struct gates_error	 err;
	struct json_value	*v;

	run_setup(tc, &r);
	json_free(r.holdout);
	ATF_REQUIRE(gates_seal_holdout(BINDING_DIGEST,
	    "2026-09-02T00:00:00.000Z", &r.holdout, &err) == 0);
	expect_refusal(&r, "binding froze at or after holdout access: "
	    "evaluation refused");
	json_free(r.holdout);
	ATF_REQUIRE(gates_seal_holdout(BINDING_DIGEST,
	    "2026-09-03T00:01:00.000Z", &r.holdout, &err) == 0);
	expect_refusal(&r, "holdout access timestamp is after the evaluation "
	    "timestamp");
	json_free(r.holdout);
	ATF_REQUIRE(gates_seal_holdout("sha256:00000000000000000000000000000"
	    "00000000000000000000000000000000000", NULL, &r.holdout, &err) == 0);
	expect_refusal(&r, "binding digest does not match the frozen record "
	    "digest");
	json_free(r.holdout);
	ATF_REQUIRE(gates_seal_holdout(BINDING_DIGEST, NULL, &r.holdout,
	    &err) == 0);
	v = (struct json_value *)json_get(r.holdout, "firstAccessedAt");
	gt_set_str(v, "2026-09-02T12:00:00.000Z");	/* unsealed edit */
	expect_refusal(&r, "holdout record seal does not match its content");
	json_free(r.holdout);
	ATF_REQUIRE(gates_seal_holdout(BINDING_DIGEST, NULL, &r.holdout,
	    &err) == 0);
	r.trusted = "sha256:000000000000000000000000000000000000000000000000"
	    "0000000000000000";
	expect_refusal(&r, "binding digest does not match its trusted pin");
	r.trusted = BINDING_DIGEST;
	r.now = "2026-09-01T00:00:00.000Z";
	expect_refusal(&r, "binding freezes after the evaluation timestamp");
	r.now = "yesterday";
	expect_refusal(&r, "evaluation timestamp is not a valid date-time");
	r.now = NOW;
	json_free(r.holdout);
	r.holdout = NULL;
	expect_refusal(&r, "trusted holdout inputs are required for "
	    "evaluation");
	run_free(&r);
}

/*
 * A variant of the conformance pack and binding: replace pfrom by pto in
 * the pack's canonical text and bfrom by bto in the binding's, repin the
 * binding on the new pack and trust the new binding digest.
 */
static char	 variant_digest[DIGEST_STR_LEN + 1];

static void
variant(const atf_tc_t *tc, struct run *r, const char *pfrom,
    const char *pto, const char *bfrom, const char *bto)
{
	struct gates_error	 err;
	struct json_value	*p, *b;
	const struct gates_pack	*pk;
	char			*t, *u, *v, *at;
	size_t			 len;

	memset(r, 0, sizeof(*r));
	gates_registry_init(&r->reg);
	ATF_REQUIRE(gates_registry_bootstrap(&r->reg, &err) == 0);
	p = tg_fixture(tc, "conformance-v1.gatepack.json");
	ATF_REQUIRE(json_canonical(p, &t, &len) == 0);
	json_free(p);
	if (pfrom != NULL) {
		ATF_REQUIRE_MSG((at = strstr(t, pfrom)) != NULL, "%s", pfrom);
		xasprintf(&u, "%.*s%s%s", (int)(at - t), t, pto,
		    at + strlen(pfrom));
		free(t);
		t = u;
	}
	p = tg_parse(t, 1);
	free(t);
	ATF_REQUIRE_MSG(gates_register_pack(&r->reg, p, "aiwg", "test-gates",
	    &err) == 0, "%s", err.msg);
	pk = gates_registry_find(&r->reg, "aiwg:test-gates/conformance-v1");
	b = tg_fixture(tc, "conformance-run.binding.json");
	ATF_REQUIRE(json_canonical(b, &t, &len) == 0);
	json_free(b);
	xasprintf(&u, "\"digest\":\"%s\",\"id\":\"aiwg:test-gates/"
	    "conformance-v1\",\"resolvedDigest\":\"%s\"", pk->digest,
	    pk->resolved_digest);
	at = strstr(t, "\"digest\":\"sha256:38a5");
	ATF_REQUIRE(at != NULL);
	len = strstr(at, ",\"version\"") - at;
	xasprintf(&v, "%.*s%s%s", (int)(at - t), t, u, at + len);
	free(u);
	free(t);
	t = v;
	if (bfrom != NULL) {
		ATF_REQUIRE_MSG((at = strstr(t, bfrom)) != NULL, "%s", bfrom);
		xasprintf(&u, "%.*s%s%s", (int)(at - t), t, bto,
		    at + strlen(bfrom));
		free(t);
		t = u;
	}
	r->binding = tg_parse(t, 1);
	free(t);
	ATF_REQUIRE(gates_digest(r->binding, variant_digest, &err) == 0);
	ATF_REQUIRE(gates_seal_holdout(variant_digest, NULL, &r->holdout,
	    &err) == 0);
	r->upstream = sealed_upstream(UPSTREAM_CLEAN);
	{
		struct json_value	 empty;

		gt_set_obj(&empty);
		gates_floors_resolve(&empty, &r->floors);
	}
	r->trusted = variant_digest;
	r->now = NOW;
}

ATF_TC_WITHOUT_HEAD(variants);
ATF_TC_BODY(variants, tc)
{
	struct run		 r;
	struct mx		 m;
	struct gates_eval_input	 in;
	struct json_value	*rep;

	mx_default(&m);
	/* The report digests of interop.md §G12.2 without attestation. */
	run_setup(tc, &r);
	run_eval(&r, &m);
	memset(&in, 0, sizeof(in));
	in.binding = r.binding;
	in.trusted_binding_digest = r.trusted;
	in.holdout = r.holdout;
	in.metrics = r.metrics;
	in.upstream = r.upstream;
	in.floors = &r.floors;
	in.now = r.now;
	ATF_REQUIRE(gates_evaluate(&r.reg, &in, &rep, &r.err) == 0);
	ATF_CHECK(gt_str_is(json_get(rep, "digest"), "sha256:ad774e9680915dbef"
	    "24e424f1932e970373f172de2d7fcb3560c13ad62806fe1"));
	json_free(rep);
	r.floors.opt_out = 1;
	ATF_REQUIRE(gates_evaluate(&r.reg, &in, &rep, &r.err) == 0);
	ATF_CHECK(gt_str_is(json_get(rep, "digest"), "sha256:6a9a6417b3280e137"
	    "3974d641845a2c2e2aaa6ba1293e1beb309788189f73209"));
	ATF_CHECK(gt_str_is(json_get(json_get(rep, "floors"), "mode"), "opt-out"));
	json_free(rep);
	/* A report without floors fails the report schema. */
	gt_remove(r.report, "floors");
	ATF_CHECK(gates_validate_document(r.report, &r.err) == -1);
	ATF_CHECK(strstr(r.err.msg, "must have required property 'floors'") !=
	    NULL);
	run_free(&r);

	variant(tc, &r, NULL, NULL, "\"ceiling\":\"PROMOTE\"",
	    "\"ceiling\":\"HOLD\"");
	run_eval(&r, &m);
	ATF_CHECK_STREQ(decision(&r), "HOLD");
	ATF_CHECK(gt_str_is(json_get(json_get(r.report, "ceilings"),
	    "bindingCeiling"), "HOLD"));
	run_free(&r);

	/* A ceiling gate's own onFail never escalates the verdict. */
	variant(tc, &r, "\"onFail\":\"HOLD\",\"scope\":{\"mode\":\"all\"}}]",
	    "\"onFail\":\"ROLLBACK\",\"scope\":{\"mode\":\"all\"}}]", NULL,
	    NULL);
	json_free(r.upstream);
	r.upstream = sealed_upstream("{\"sample_n\":10,\"uncertainty\":"
	    "{\"profile\":\"test\"},\"paired_baseline\":{\"baseline\":"
	    "\"test\"},\"integrity_mode\":\"fresh\",\"fresh_workspace_"
	    "required\":true,\"fresh_workspace_verified\":true,\"integrity_"
	    "state\":\"verified\",\"trusted_score_source\":\"fresh-"
	    "workspace\",\"compromise_labels\":[],\"weak_signal_reason\":"
	    "null,\"release_gate\":{\"decision\":\"HOLD\",\"reasons\":"
	    "[\"manual-review\"]}}");
	run_eval(&r, &m);
	check_entry(&r, "integrity-ceiling", NULL, "fail", "HOLD");
	run_free(&r);

	/* each minus every slice: refused at resolution. */
	variant(tc, &r, "\"scope\":{\"mode\":\"each\"}",
	    "\"scope\":{\"except\":[\"a\",\"b\"],\"mode\":\"each\"}",
	    NULL, NULL);
	run_eval(&r, &m);
	ATF_CHECK_EQ(r.rc, -1);
	ATF_CHECK_STREQ(r.err.msg, "gate false-ready-exact each-scope excludes "
	    "every binding slice");
	run_free(&r);

	/* No upstream-ceiling gate, no upstream, floors opted out: the
	 * missing upstream still holds. */
	variant(tc, &r, ",{\"description\":\"Eval-integrity ceiling: "
	    "allowlist problems hold, compromise rolls back through the "
	    "ceiling.\",\"direction\":\"higher-is-stricter\",\"floor\":"
	    "true,\"id\":\"integrity-ceiling\",\"kind\":\"upstream-"
	    "ceiling\",\"onFail\":\"HOLD\",\"scope\":{\"mode\":\"all\"}}",
	    "", NULL, NULL);
	json_free(r.upstream);
	r.upstream = NULL;
	r.floors.opt_out = 1;
	run_eval(&r, &m);
	ATF_CHECK_STREQ(decision(&r), "HOLD");
	ATF_CHECK(gt_str_is(json_get(json_get(r.report, "ceilings"),
	    "upstreamCeiling"), "HOLD"));
	ATF_CHECK(gt_str_is(json_get(json_get(r.report, "ceilings"),
	    "packOutcome"), "PROMOTE"));
	ATF_CHECK_EQ(json_get(r.report, "upstream")->type, JSON_NULL);
	/* With the operator's floors the shipped integrity ceiling binds. */
	r.floors.opt_out = 0;
	run_eval(&r, &m);
	ATF_CHECK_EQ(r.rc, -1);
	ATF_CHECK_STREQ(r.err.msg, "binding 'test-gates/conformance-run' "
	    "omits project floor gate 'integrity-ceiling' (floor pack "
	    "'aiwg:decision-engine/integrity-ceiling'): every binding in this "
	    "project must include and tighten it");
	run_free(&r);

	variant(tc, &r, NULL, NULL, "\"frozenAt\":\"2026-09-02",
	    "\"frozenAt\":\"2026-09-10");
	run_eval(&r, &m);
	ATF_CHECK_EQ(r.rc, -1);
	ATF_CHECK_STREQ(r.err.msg, "binding freezes after the evaluation "
	    "timestamp");
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(paired_methods);
ATF_TC_BODY(paired_methods, tc)
{
	struct run	 r;
	struct mx	 m;
	const struct json_value *t;

	mx_default(&m);
	m.pa[0] = m.pb[0] = 300;
	m.pa[1] = m.pb[1] = 5;
	m.pa[2] = m.pb[2] = 90;
	m.pa[3] = m.pb[3] = 605;
	variant(tc, &r, "\"method\":\"newcombe\"", "\"method\":\"tango\"",
	    NULL, NULL);
	run_eval(&r, &m);
	check_entry(&r, "contrast-ni", NULL, "fail", "ROLLBACK");
	ATF_CHECK(gt_str_is(json_get(json_get(entry(&r, "contrast-ni", NULL),
	    "statistic"), "method"), "tango"));
	ATF_CHECK_EQ(stat_of(&r, "contrast-ni", NULL, "lowerBps"), -987);
	ATF_CHECK_EQ(stat_of(&r, "contrast-ni", NULL, "upperBps"), -726);
	ATF_CHECK_EQ(stat_of(&r, "contrast-ni", NULL, "estimateBps"), -850);
	t = json_get(entry(&r, "contrast-ni", NULL), "threshold");
	ATF_CHECK_EQ(json_get(t, "resolved")->u.number, -250);
	ATF_CHECK(json_get(t, "value") == NULL && json_get(t, "param") == NULL);
	run_free(&r);

	/* Superiority at margin 0: an interval straddling 0 fails. */
	mx_default(&m);
	variant(tc, &r, "\"marginBps\":-250,\"method\":\"newcombe\","
	    "\"mode\":\"non-inferiority\"", "\"marginBps\":0,\"method\":"
	    "\"newcombe\",\"mode\":\"superiority\"", NULL, NULL);
	run_eval(&r, &m);
	check_entry(&r, "contrast-ni", NULL, "fail", "ROLLBACK");
	ATF_CHECK(gt_str_is(&json_get(entry(&r, "contrast-ni", NULL),
	    "reasons")->u.array.v[0], "contrast-ni:lower-bound-at-or-below-"
	    "margin"));
	run_free(&r);
}

static struct json_value *
pool_of(const char *kind, const char *a, const char *b)
{
	const struct json_value	*obs[2];
	struct json_value	*va = tg_parse(a, 1), *vb = tg_parse(b, 1);
	struct json_value	*p;

	obs[0] = va;
	obs[1] = vb;
	p = gates_pool(kind, obs, 2);
	json_free(va);
	json_free(vb);
	return p;
}

static void
pool_is(const char *kind, const char *a, const char *b, const char *want)
{
	struct json_value	*p = pool_of(kind, a, b);
	char			*text;
	size_t			 len;

	if (want == NULL) {
		ATF_CHECK_MSG(p == NULL, "%s pooled, should not", kind);
		json_free(p);
		return;
	}
	ATF_REQUIRE_MSG(p != NULL, "%s refused", kind);
	ATF_REQUIRE(json_canonical(p, &text, &len) == 0);
	ATF_CHECK_STREQ(text, want);
	free(text);
	json_free(p);
}

ATF_TC_WITHOUT_HEAD(pooling);
ATF_TC_BODY(pooling, tc)
{
	pool_is("proportion", "{\"n\":10,\"events\":2}",
	    "{\"n\":5,\"events\":1}", "{\"events\":3,\"n\":15}");
	pool_is("proportion", "{\"n\":10,\"events\":11}",
	    "{\"n\":5,\"events\":1}", NULL);
	pool_is("proportion", "{\"n\":1.5,\"events\":1}",
	    "{\"n\":5,\"events\":1}", NULL);
	pool_is("paired", "{\"n\":4,\"paired\":{\"both\":1,"
	    "\"candidateOnly\":1,\"baselineOnly\":1,\"neither\":1}}",
	    "{\"n\":2,\"paired\":{\"both\":2,\"candidateOnly\":0,"
	    "\"baselineOnly\":0,\"neither\":0}}",
	    "{\"n\":6,\"paired\":{\"baselineOnly\":1,\"both\":3,"
	    "\"candidateOnly\":1,\"neither\":1}}");
	pool_is("paired", "{\"n\":5,\"paired\":{\"both\":1,"
	    "\"candidateOnly\":1,\"baselineOnly\":1,\"neither\":1}}",
	    "{\"n\":2,\"paired\":{\"both\":2,\"candidateOnly\":0,"
	    "\"baselineOnly\":0,\"neither\":0}}", NULL);
	pool_is("scalar", "{\"n\":1,\"value\":1}", "{\"n\":3,"
	    "\"value\":3}", "{\"n\":4,\"value\":2.5}");
	pool_is("scalar", "{\"n\":0,\"value\":1}", "{\"n\":0,"
	    "\"value\":3}", NULL);
	pool_is("differences", "{\"n\":2,\"differences\":[0.5,-0.5]}",
	    "{\"n\":1,\"differences\":[0.25]}",
	    "{\"differences\":[0.5,-0.5,0.25],\"n\":3}");
	pool_is("differences", "{\"n\":3,\"differences\":[0.5,-0.5]}",
	    "{\"n\":1,\"differences\":[0.25]}", NULL);
	pool_is("evidence", "{\"available\":[{\"id\":\"x\"}]}",
	    "{\"available\":[]}", "{\"available\":[{\"id\":\"x\"}]}");
	pool_is("evidence", "{\"available\":[]}", "{}", NULL);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, paired_methods);
	ATF_TP_ADD_TC(tp, pooling);
	ATF_TP_ADD_TC(tp, variants);
	ATF_TP_ADD_TC(tp, passing_report);
	ATF_TP_ADD_TC(tp, asserted_changes);
	ATF_TP_ADD_TC(tp, upstream_ceilings);
	ATF_TP_ADD_TC(tp, holdout_refusals);
	return atf_no_error();
}
