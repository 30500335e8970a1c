/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_gates_rerun.c: the engine's side of interop.md §P7 step 5 (interop.md
 * §G8.1 refusal 20) over regress/fixtures/gates-example: sections come
 * from the caller's re-runs (struct gates_rerun), replace the caller's
 * own, and refuse in the reference's words when missing; the precheck
 * call stops after refusal 19.
 */
#include "gatestest.h"

#define PROV	"example.count/v1"
#define NOW	"2026-09-03T00:00:00.000Z"
#define CODE	"sha256:6088dc95a50be00fa4f7b1fa2082179150f781967c911eae5ffce3b9e8710cd1"
#define SOURCE	"sha256:e8e7de3b1cb04ae8af169cf3b279b73022b46208f02a5d5ffa2fda62cbd8b01e"
#define CLEAN	"sha256:1cdc0d373ad3a1af2990c0383eb27d5791e580c92bb4411ed1f648cda3f9b2ad"

static const struct gates_provider_metric example_metrics[] = {
	{ "failures", GATES_MK_PROPORTION,
	    "Records with failed: true, per slice and pooled." },
};
static const struct gates_provider example = {
	PROV, "1.0.0", example_metrics, 1, CODE, SOURCE
};

struct fx {
	struct gates_registry	 reg;
	struct gates_floors	 floors;
	struct json_value	*binding, *hdoc, *holdout, *upstream;
	struct json_value	*metrics;
	char			 trusted[DIGEST_STR_LEN + 1];
	struct gates_eval_input	 in;
};

static void
fx_init(const atf_tc_t *tc, struct fx *f)
{
	struct gates_error	 err;
	struct json_value	 empty, *pack;

	memset(f, 0, sizeof(*f));
	gates_registry_init(&f->reg);
	ATF_REQUIRE(gates_registry_bootstrap(&f->reg, &err) == 0);
	f->reg.extra = &example;
	f->reg.nextra = 1;
	pack = tg_fixture(tc, "../gates-example/pack.json");
	ATF_REQUIRE_MSG(gates_register_pack(&f->reg, pack, "project", NULL,
	    &err) == 0, "%s", err.msg);
	gt_set_obj(&empty);
	gates_floors_resolve(&empty, &f->floors);
	f->binding = tg_fixture(tc, "../gates-example/binding.json");
	f->hdoc = tg_fixture(tc, "../gates-example/holdout.json");
	ATF_REQUIRE(gates_load_holdout(f->hdoc, "holdout.json", &f->holdout,
	    &err) == 0);
	f->upstream = tg_fixture(tc, "../gates-example/upstream.json");
	ATF_REQUIRE(gates_load_upstream(f->upstream, "upstream.json",
	    &err) == 0);
	f->metrics = tg_fixture(tc, "../gates-example/metrics.json");
	ATF_REQUIRE(gates_digest(f->binding, f->trusted, &err) == 0);
	f->in.binding = f->binding;
	f->in.trusted_binding_digest = f->trusted;
	f->in.holdout = f->holdout;
	f->in.metrics = f->metrics;
	f->in.upstream = f->upstream;
	f->in.floors = &f->floors;
	f->in.now = NOW;
	f->in.attestation = "offline-cli";
}

static void
fx_free(struct fx *f)
{
	json_free(f->binding);
	json_free(f->hdoc);
	json_free(f->holdout);
	json_free(f->upstream);
	json_free(f->metrics);
	gates_floors_free(&f->floors);
	gates_registry_free(&f->reg);
}

/* A sealed (or forged) section: events failures in slice b. */
static struct json_value *
section(int events)
{
	char	 text[1024];

	snprintf(text, sizeof(text), "{\"version\":\"1.0.0\","
	    "\"sourceDigest\":\"%s\",\"codeDigest\":\"%s\","
	    "\"recordsDigest\":\"%s\",\"metrics\":{\"failures\":{"
	    "\"bySlice\":{\"a\":{\"n\":10,\"events\":0},"
	    "\"b\":{\"n\":10,\"events\":%d}},"
	    "\"pooled\":{\"n\":20,\"events\":%d}}}}", SOURCE, CODE, CLEAN,
	    events, events);
	return tg_parse(text, 1);
}

static struct json_value *
metrics_with(int events)
{
	struct json_value	*m, *s;

	m = tg_parse("{\"providers\":{}}", 1);
	s = section(events);
	gt_copy(gt_add((struct json_value *)json_get(m, "providers"), PROV), s);
	json_free(s);
	return m;
}

static const char *
decision(struct fx *f, const struct gates_rerun *rr, char *md, size_t mdlen)
{
	struct json_value	*rep;
	struct gates_error	 err;
	static char		 d[16];

	f->in.reruns = rr;
	f->in.nreruns = rr != NULL ? 1 : 0;
	ATF_REQUIRE_MSG(gates_evaluate(&f->reg, &f->in, &rep, &err) == 0,
	    "%s", err.msg);
	gt_strlcpy(d, json_get(rep, "decision"), sizeof(d));
	if (md != NULL)
		gt_strlcpy(md, json_get(rep, "metricsDigest"), mdlen);
	json_free(rep);
	return d;
}

static const char *
refusal(struct fx *f, const struct gates_rerun *rr)
{
	static struct gates_error	 err;
	struct json_value		*rep = NULL;

	f->in.reruns = rr;
	f->in.nreruns = rr != NULL ? 1 : 0;
	ATF_REQUIRE(gates_evaluate(&f->reg, &f->in, &rep, &err) == -1);
	ATF_CHECK(rep == NULL);
	return err.msg;
}

ATF_TC(sections);
ATF_TC_HEAD(sections, tc)
{
	atf_tc_set_md_var(tc, "descr", "The re-run's section decides: clean "
	    "PROMOTE, a failure in b ROLLBACK");
}
ATF_TC_BODY(sections, tc)
{
	struct gates_rerun	 rr = { PROV, 1, NULL, NULL };
	struct json_value	*clean = section(0), *failing = section(1);
	struct fx		 f;

	fx_init(tc, &f);
	rr.section = clean;
	ATF_CHECK_STREQ(decision(&f, &rr, NULL, 0), "PROMOTE");
	rr.section = failing;
	ATF_CHECK_STREQ(decision(&f, &rr, NULL, 0), "ROLLBACK");
	json_free(clean);
	json_free(failing);
	fx_free(&f);
}

ATF_TC(forged);
ATF_TC_HEAD(forged, tc)
{
	atf_tc_set_md_var(tc, "descr", "A caller section is replaced both "
	    "ways; metricsDigest covers the effective metrics");
}
ATF_TC_BODY(forged, tc)
{
	struct gates_rerun	 rr = { PROV, 1, NULL, NULL };
	struct json_value	*clean = section(0), *failing = section(1);
	struct json_value	*alarm = metrics_with(5), *fake = metrics_with(0);
	char			 m1[80], m2[80];
	struct fx		 f;

	fx_init(tc, &f);
	rr.section = clean;
	ATF_CHECK_STREQ(decision(&f, &rr, m1, sizeof(m1)), "PROMOTE");
	f.in.metrics = alarm;
	ATF_CHECK_STREQ(decision(&f, &rr, m2, sizeof(m2)), "PROMOTE");
	ATF_CHECK_STREQ(m1, m2);
	rr.section = failing;
	f.in.metrics = fake;
	ATF_CHECK_STREQ(decision(&f, &rr, NULL, 0), "ROLLBACK");
	json_free(clean);
	json_free(failing);
	json_free(alarm);
	json_free(fake);
	fx_free(&f);
}

ATF_TC(refusals);
ATF_TC_HEAD(refusals, tc)
{
	atf_tc_set_md_var(tc, "descr", "No re-run, an uncovered pin and a "
	    "failed re-run refuse in the reference's words");
}
ATF_TC_BODY(refusals, tc)
{
	struct gates_rerun	 rr = { PROV, 0, NULL, NULL };
	struct json_value	*sec = metrics_with(0);
	struct fx		 f;

	fx_init(tc, &f);
	/* No caller section and no coverage: refusal 7. */
	ATF_CHECK_STREQ(refusal(&f, NULL),
	    "metric provider pin mismatch for " PROV);
	f.in.metrics = sec;
	ATF_CHECK_STREQ(refusal(&f, NULL), "metric provider " PROV
	    " requires an isolated re-run over its pinned records: "
	    "caller-asserted metrics cannot reproduce provider output");
	ATF_CHECK_STREQ(refusal(&f, &rr), "metric provider " PROV
	    " requires an isolated re-run over its pinned records: "
	    "caller-asserted metrics cannot reproduce provider output");
	rr.covered = 1;
	rr.refusal = "metric provider " PROV " re-run failed: boom";
	ATF_CHECK_STREQ(refusal(&f, &rr), rr.refusal);
	json_free(sec);
	fx_free(&f);
}

ATF_TC(precheck);
ATF_TC_HEAD(precheck, tc)
{
	atf_tc_set_md_var(tc, "descr", "The precheck stops after refusal 19: "
	    "no report, and earlier refusals win over the re-run");
}
ATF_TC_BODY(precheck, tc)
{
	struct gates_rerun	 rr = { PROV, 1, NULL, NULL };
	struct json_value	*rep = (struct json_value *)1;
	struct gates_error	 err;
	struct fx		 f;

	fx_init(tc, &f);
	f.in.precheck = 1;
	f.in.reruns = &rr;
	f.in.nreruns = 1;
	ATF_CHECK(gates_evaluate(&f.reg, &f.in, &rep, &err) == 0);
	ATF_CHECK(rep == NULL);
	f.in.trusted_binding_digest = CLEAN;
	ATF_CHECK(gates_evaluate(&f.reg, &f.in, &rep, &err) == -1);
	ATF_CHECK_STREQ(err.msg, "binding digest does not match its trusted "
	    "pin");
	fx_free(&f);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, sections);
	ATF_TP_ADD_TC(tp, forged);
	ATF_TP_ADD_TC(tp, refusals);
	ATF_TP_ADD_TC(tp, precheck);
	return atf_no_error();
}
