/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_gates_registry: pack ids and registration (interop.md §G2.3, §G2.4),
 * validateResolvedPack (2.5), extends and tightening (2.6, 2.7), binding
 * resolution (3.2) and the gates configuration (6.2), each refusal with
 * the reference's message.
 */
#include "gatestest.h"

static const char *
split_msg(const char *id)
{
	static struct gates_error	 err;
	char				 ns[GATES_NS_MAX], *rest;

	memset(&err, 0, sizeof(err));
	if (gates_split_pack_id(id, ns, &rest, &err) == 0) {
		snprintf(err.msg, sizeof(err.msg), "%s|%s", ns, rest);
		free(rest);
	}
	return err.msg;
}

ATF_TC_WITHOUT_HEAD(pack_ids);
ATF_TC_BODY(pack_ids, tc)
{
	ATF_CHECK_STREQ(split_msg("aiwg:b/n"), "aiwg|b/n");
	ATF_CHECK_STREQ(split_msg("project:n"), "project|n");
	ATF_CHECK_STREQ(split_msg("nope:b/n"), "pack id must be "
	    "<namespace>:<path> with namespace aiwg/framework/addon/extension/"
	    "project: 'nope:b/n'");
	ATF_CHECK_STREQ(split_msg("aiwg:"), "pack id must be "
	    "<namespace>:<path> with namespace aiwg/framework/addon/extension/"
	    "project: 'aiwg:'");
	ATF_CHECK_STREQ(split_msg("aiwg:b /n"), "pack id must be "
	    "<namespace>:<path> with namespace aiwg/framework/addon/extension/"
	    "project: 'aiwg:b /n'");
	ATF_CHECK_STREQ(split_msg("project:a/b"),
	    "project pack ids are project:<name>: 'project:a/b'");
	ATF_CHECK_STREQ(split_msg("addon:b"),
	    "pack id must be addon:<bundle>/<name>: 'addon:b'");
	ATF_CHECK_STREQ(split_msg("addon:b/n/x"),
	    "pack id must be addon:<bundle>/<name>: 'addon:b/n/x'");
}

#define PACK(id, extra, gates) "{\"apiVersion\":\"gates.aiwg.io/v1alpha1\"," \
	"\"kind\":\"GatePack\",\"metadata\":{\"id\":\"" id "\",\"version\":" \
	"\"1.0.0\",\"description\":\"d\"},\"spec\":{" extra "\"metrics\":{" \
	"\"false-ready\":{\"provider\":\"test.proportion/v1\",\"kind\":" \
	"\"proportion\"}},\"gates\":[" gates "]}}"
#define CAP(id, value, extra) "{\"id\":\"" id "\",\"kind\":\"count-max\"," \
	"\"metric\":{\"provider\":\"test.proportion/v1\",\"name\":" \
	"\"false-ready\"},\"threshold\":{\"op\":\"lte\"," value "}," \
	"\"scope\":{\"mode\":\"all\"},\"direction\":\"lower-is-stricter\"," \
	extra "\"onFail\":\"HOLD\"}"

static const char *
reg_msg(struct gates_registry *reg, const char *json, const char *ns,
    const char *bundle)
{
	static struct gates_error	 err;
	struct json_value		*doc = tg_parse(json, 1);

	memset(&err, 0, sizeof(err));
	if (gates_register_pack(reg, doc, ns, bundle, &err) == 0)
		return "(registered)";
	json_free(doc);
	return err.msg;
}

/* ATF_CHECK_STREQ evaluates its arguments twice: register once. */
static void
reg_is(struct gates_registry *reg, const char *json, const char *ns,
    const char *bundle, const char *want)
{
	const char	*got = reg_msg(reg, json, ns, bundle);

	ATF_CHECK_STREQ(got, want);
}

ATF_TC_WITHOUT_HEAD(registration);
ATF_TC_BODY(registration, tc)
{
	struct gates_registry	 reg;
	struct gates_error	 err;

	gates_registry_init(&reg);
	ATF_REQUIRE(gates_registry_bootstrap(&reg, &err) == 0);
	reg_is(&reg, PACK("project:p", "",
	    CAP("c", "\"value\":1", "")), "project", NULL, "(registered)");
	reg_is(&reg, PACK("project:p", "",
	    CAP("c", "\"value\":1", "")), "project", NULL,
	    "duplicate gate pack: project:p");
	reg_is(&reg, PACK("addon:b/p", "",
	    CAP("c", "\"value\":1", "")), "project", NULL,
	    "pack addon:b/p namespace does not match contribution origin "
	    "project");
	reg_is(&reg, PACK("addon:b/p", "",
	    CAP("c", "\"value\":1", "")), "addon", "c",
	    "pack addon:b/p does not belong to bundle c");
	reg_is(&reg, PACK("addon:decision-engine/"
	    "integrity-ceiling", "", CAP("c", "\"value\":1", "")), "addon",
	    "decision-engine", "pack addon:decision-engine/integrity-ceiling "
	    "shadows shipped pack aiwg:decision-engine/integrity-ceiling");
	reg_is(&reg, "{\"kind\":\"GateBinding\"}",
	    "project", NULL, "Unsupported gate kind/version "
	    "'undefined:GateBinding'");
	reg_is(&reg, PACK("project:q", "",
	    CAP("c", "\"value\":1", "") "," CAP("c", "\"value\":2", "")),
	    "project", NULL, "pack project:q has duplicate gate ids");
	reg_is(&reg, PACK("project:q", "",
	    CAP("c", "\"value\":1.5", "")), "project", NULL,
	    "gate c threshold must be a non-negative integer count");
	reg_is(&reg, PACK("project:q", "",
	    CAP("c", "\"param\":\"nope\"", "")), "project", NULL,
	    "gate c references unknown parameter 'nope'");
	reg_is(&reg, PACK("project:q", "\"parameters\":{"
	    "\"lvl\":{\"type\":\"level\",\"direction\":\"higher-is-stricter\","
	    "\"default\":5000}},", CAP("c", "\"value\":1", "")), "project",
	    NULL, "parameter lvl level default must be an integer strictly "
	    "between 5000 and 9999");
	reg_is(&reg, PACK("project:q", "",
	    CAP("c", "\"value\":1", "\"onInsufficient\":\"HOLD\",")),
	    "project", NULL, "(registered)");
	/* Lookups: full id, a rest path, an ambiguous rest path. */
	ATF_CHECK(gates_registry_lookup(&reg, "decision-engine/"
	    "absolute-screening", &err) != NULL);
	ATF_CHECK(gates_registry_lookup(&reg, "p", &err) != NULL);
	ATF_CHECK(gates_registry_lookup(&reg, "project:zz", &err) == NULL);
	ATF_CHECK_STREQ(err.msg, "unknown gate pack: project:zz");
	gates_registry_free(&reg);
}

ATF_TC_WITHOUT_HEAD(extends_tightening);
ATF_TC_BODY(extends_tightening, tc)
{
	struct gates_registry	 reg;
	struct gates_error	 err;
	const struct gates_pack	*parent;
	char			 ext[512], json[4096], pdigest[DIGEST_STR_LEN + 1];

	gates_registry_init(&reg);
	ATF_REQUIRE(gates_registry_bootstrap(&reg, &err) == 0);
	reg_is(&reg, PACK("project:base",
	    "\"parameters\":{\"cap\":{\"type\":\"count\",\"direction\":"
	    "\"lower-is-stricter\",\"default\":5}},",
	    CAP("c", "\"param\":\"cap\"", "\"floor\":true,") ","
	    CAP("d", "\"value\":3", "")), "project", NULL, "(registered)");
	parent = gates_registry_find(&reg, "project:base");
	ATF_REQUIRE(parent != NULL);
	/* Registration moves packs: keep the digest, not the pointer. */
	strlcpy(pdigest, parent->digest, sizeof(pdigest));
	snprintf(ext, sizeof(ext), "\"extends\":{\"id\":\"project:base\","
	    "\"version\":\"1.0.0\",\"digest\":\"%s\"},", pdigest);

	/* A tighter default and a dropped non-floor gate compose. */
	snprintf(json, sizeof(json), PACK("project:child", "%s"
	    "\"parameters\":{\"cap\":{\"type\":\"count\",\"direction\":"
	    "\"lower-is-stricter\",\"default\":2}},",
	    CAP("c", "\"param\":\"cap\"", "\"floor\":true,")), ext);
	reg_is(&reg, json, "project", NULL, "(registered)");
	ATF_CHECK_EQ(gp_gates(gates_registry_find(&reg,
	    "project:child")->composed)->u.array.n, 1);

	snprintf(json, sizeof(json), PACK("project:c2", "%s"
	    "\"parameters\":{\"cap\":{\"type\":\"count\",\"direction\":"
	    "\"lower-is-stricter\",\"default\":9}},",
	    CAP("c", "\"param\":\"cap\"", "\"floor\":true,")), ext);
	reg_is(&reg, json, "project", NULL,
	    "pack project:c2 parameter cap default loosens");

	snprintf(json, sizeof(json), PACK("project:c3", "%s",
	    CAP("d", "\"value\":3", "")), ext);
	reg_is(&reg, json, "project", NULL,
	    "pack project:c3 may not remove floor gate c");

	snprintf(json, sizeof(json), PACK("project:c4", "%s",
	    CAP("c", "\"param\":\"cap\"", "\"floor\":true,") ","
	    CAP("d", "\"value\":4", "")), ext);
	reg_is(&reg, json, "project", NULL,
	    "gate d threshold 3 -> 4 loosens direction lower-is-stricter");

	/* A parameter with a default resolves: value 1 <= cap 5. */
	snprintf(json, sizeof(json), PACK("project:c5", "%s",
	    CAP("c", "\"value\":1", "\"floor\":true,")), ext);
	reg_is(&reg, json, "project", NULL, "(registered)");
	snprintf(json, sizeof(json), PACK("project:c9", "%s",
	    CAP("c", "\"param\":\"cap\"", "\"floor\":true,") ","
	    CAP("d", "\"param\":\"cap\"", "")), ext);
	reg_is(&reg, json, "project", NULL,
	    "gate d may not convert a literal threshold into a parameter");

	snprintf(json, sizeof(json), PACK("project:c6", "%s",
	    CAP("c", "\"param\":\"cap\"", "")), ext);
	reg_is(&reg, json, "project", NULL,
	    "gate c is a floor gate and cannot be un-floored");

	snprintf(json, sizeof(json), PACK("project:c7", "\"extends\":{\"id\":"
	    "\"project:base\",\"version\":\"1.0.1\",\"digest\":\"%s\"},",
	    CAP("c", "\"param\":\"cap\"", "\"floor\":true,")), pdigest);
	reg_is(&reg, json, "project", NULL,
	    "pack project:c7 parent pin mismatch for project:base@1.0.1");

	snprintf(json, sizeof(json), PACK("project:c8", "\"extends\":{\"id\":"
	    "\"project:none\",\"version\":\"1.0.0\",\"digest\":\"%s\"},",
	    CAP("c", "\"value\":1", "")), pdigest);
	reg_is(&reg, json, "project", NULL,
	    "pack project:c8 extends unknown pack project:none");
	gates_registry_free(&reg);
}

/* assertGateTightens over scope transitions (interop.md §G2.7 item 9). */
static const char *
tighten(const char *parent, const char *child)
{
	static struct gates_error	 err;
	struct json_value		*p = tg_parse(parent, 1);
	struct json_value		*c = tg_parse(child, 1);

	memset(&err, 0, sizeof(err));
	if (gates_gate_tightens(p, c, NULL, &err) == 0)
		strlcpy(err.msg, "(tightens)", sizeof(err.msg));
	json_free(p);
	json_free(c);
	return err.msg;
}

#define G(kind, scope) "{\"id\":\"g\",\"kind\":\"" kind "\",\"scope\":" \
	scope ",\"direction\":\"higher-is-stricter\",\"onFail\":\"HOLD\"}"

ATF_TC_WITHOUT_HEAD(scope_transitions);
ATF_TC_BODY(scope_transitions, tc)
{
	ATF_CHECK_STREQ(tighten(G("count-min", "{\"mode\":\"all\"}"),
	    G("count-min", "{\"mode\":\"each\"}")), "(tightens)");
	ATF_CHECK_STREQ(tighten(G("count-max", "{\"mode\":\"all\"}"),
	    G("count-max", "{\"mode\":\"each\"}")),
	    "gate g scope change all -> each is not a monotone tightening");
	ATF_CHECK_STREQ(tighten(G("minimum-n", "{\"mode\":\"all\"}"),
	    G("minimum-n", "{\"mode\":\"each\",\"except\":[\"a\"]}")),
	    "gate g scope all -> each may not except slices");
	ATF_CHECK_STREQ(tighten(G("count-max", "{\"mode\":\"listed\","
	    "\"slices\":[\"a\"]}"), G("count-max", "{\"mode\":\"listed\","
	    "\"slices\":[\"a\",\"b\"]}")), "(tightens)");
	ATF_CHECK_STREQ(tighten(G("count-max", "{\"mode\":\"listed\","
	    "\"slices\":[\"a\",\"b\"]}"), G("count-max", "{\"mode\":"
	    "\"listed\",\"slices\":[\"a\"]}")),
	    "gate g scope listed may not drop inherited slices");
	ATF_CHECK_STREQ(tighten(G("count-max", "{\"mode\":\"pooled\","
	    "\"slices\":[\"a\",\"b\"]}"), G("count-max", "{\"mode\":"
	    "\"pooled\",\"slices\":[\"b\",\"a\"]}")), "(tightens)");
	ATF_CHECK_STREQ(tighten(G("count-max", "{\"mode\":\"pooled\","
	    "\"slices\":[\"a\",\"b\"]}"), G("count-max", "{\"mode\":"
	    "\"pooled\",\"slices\":[\"a\"]}")),
	    "gate g scope pooled may not change its slice set");
	ATF_CHECK_STREQ(tighten(G("count-max", "{\"mode\":\"listed\","
	    "\"slices\":[\"a\"]}"), G("count-max", "{\"mode\":\"each\","
	    "\"except\":[\"a\"]}")),
	    "gate g scope listed -> each may not except inherited slice 'a'");
	ATF_CHECK_STREQ(tighten(G("count-max", "{\"mode\":\"each\"}"),
	    G("count-max", "{\"mode\":\"each\",\"except\":[\"z\"]}")),
	    "gate g scope may only narrow inherited exceptions");
	ATF_CHECK_STREQ(tighten(G("count-max", "{\"mode\":\"each\"}"),
	    G("count-min", "{\"mode\":\"each\"}")),
	    "gate g may not change kind count-max -> count-min");
}

static const char *
resolve_msg(const atf_tc_t *tc, const char *from, const char *to)
{
	static struct gates_error	 err;
	struct gates_registry		 reg;
	struct gates_resolved		 res;
	struct json_value		*b;
	char				*text, *edited, *at;
	size_t				 len;

	tg_registry(tc, &reg);
	b = tg_fixture(tc, "conformance-run.binding.json");
	ATF_REQUIRE(json_canonical(b, &text, &len) == 0);
	json_free(b);
	if (from != NULL) {
		at = strstr(text, from);
		ATF_REQUIRE_MSG(at != NULL, "no '%s' in the binding", from);
		xasprintf(&edited, "%.*s%s%s", (int)(at - text), text, to,
		    at + strlen(from));
		free(text);
		text = edited;
	}
	b = tg_parse(text, 1);
	free(text);
	memset(&err, 0, sizeof(err));
	if (gates_resolve_binding(&reg, b, NULL, &res, &err) == 0) {
		strlcpy(err.msg, "(resolved)", sizeof(err.msg));
		gates_resolved_free(&res);
	}
	json_free(b);
	gates_registry_free(&reg);
	return err.msg;
}

#define P "aiwg:test-gates/conformance-v1"

ATF_TC_WITHOUT_HEAD(binding_resolution);
ATF_TC_BODY(binding_resolution, tc)
{
	ATF_CHECK_STREQ(resolve_msg(tc, NULL, NULL), "(resolved)");
	ATF_CHECK_STREQ(resolve_msg(tc, "\"id\":\"" P "\"",
	    "\"id\":\"test-gates/conformance-v1\""),
	    "binding test-gates/conformance-run must pin the full pack id "
	    "(got 'test-gates/conformance-v1')");
	ATF_CHECK_STREQ(resolve_msg(tc, "\"version\":\"1.0.0\"}],\"parameters",
	    "\"version\":\"1.0.1\"}],\"parameters"),
	    "binding test-gates/conformance-run pack pin mismatch for " P
	    "@1.0.1");
	ATF_CHECK_STREQ(resolve_msg(tc, "\"resolvedDigest\":\"sha256:38",
	    "\"resolvedDigest\":\"sha256:48"),
	    "binding test-gates/conformance-run composed-pack pin mismatch "
	    "for " P "@1.0.0");
	ATF_CHECK_STREQ(resolve_msg(tc, "\"" P ".maxLatency\":500,", ""),
	    "(resolved)");	/* defaults fill it */
	ATF_CHECK_STREQ(resolve_msg(tc, "\"" P ".maxLatency\":500",
	    "\"maxLatency\":500"),
	    "binding test-gates/conformance-run sets undeclared parameter "
	    "maxLatency");
	ATF_CHECK_STREQ(resolve_msg(tc, "\"" P ".falseReadyMaxBps\":100",
	    "\"" P ".falseReadyMaxBps\":10001"),
	    "binding parameter " P ".falseReadyMaxBps must be within "
	    "0..10000 bps");
	ATF_CHECK_STREQ(resolve_msg(tc, "\"" P ".minTotalN\":50",
	    "\"" P ".minTotalN\":-1"),
	    "binding parameter " P ".minTotalN must be a non-negative integer");
	ATF_CHECK_STREQ(resolve_msg(tc, ",{\"id\":\"test.evidence/v1\","
	    "\"sourceDigest\":\"sha256:4c8b2c0ba53d60f6a53ce97d7a3a8909a9df62"
	    "95a01e0f07d51eed6a9d704271\",\"version\":\"1.0.0\"}", ""),
	    "binding test-gates/conformance-run leaves provider "
	    "test.evidence/v1 used by a gate unpinned");
	ATF_CHECK_STREQ(resolve_msg(tc, "\"version\":\"1.0.0\"}],\"packs",
	    "\"version\":\"2.0.0\"}],\"packs"),
	    "binding test-gates/conformance-run provider pin mismatch for "
	    "test.evidence/v1");
	ATF_CHECK_STREQ(resolve_msg(tc, "\"slices\":[\"a\",\"b\"]",
	    "\"slices\":[\"a\"]"), "gate blocking-events names slice 'b' "
	    "outside the binding inventory");
	ATF_CHECK_STREQ(resolve_msg(tc, "\"registeredAt\":\"2026-09-01",
	    "\"registeredAt\":\"2026-09-03"),
	    "binding test-gates/conformance-run registers after it freezes");
	ATF_CHECK_STREQ(resolve_msg(tc, "\"name\":\"always-review\"",
	    "\"name\":\"other\""), "gate contrast-ni contrasts undeclared "
	    "reference 'always-review'");
	ATF_CHECK_STREQ(resolve_msg(tc, "\"frozenAt\":\"2026-09-02T00:00:00."
	    "000Z\"", "\"frozenAt\":\"2026-09-02\""),
	    "GateBinding schema validation failed: /spec/frozenAt must match "
	    "format \"date-time\"");
}

static const char *
config_msg(const char *json)
{
	static char		 buf[GATES_ERRMSG_MAX];
	struct json_value	*v = tg_parse(json, 1);
	char			*errs;

	if (gates_config_validate(v, NULL, &errs) == 0)
		strlcpy(buf, "(valid)", sizeof(buf));
	else {
		strlcpy(buf, errs, sizeof(buf));
		free(errs);
	}
	json_free(v);
	return buf;
}

ATF_TC_WITHOUT_HEAD(gates_config);
ATF_TC_BODY(gates_config, tc)
{
	ATF_CHECK_STREQ(config_msg("{}"), "(valid)");
	ATF_CHECK_STREQ(config_msg("[]"), "gates: must be an object");
	ATF_CHECK_STREQ(config_msg("{\"x\":1,\"floors\":{}}"),
	    "gates.x: unknown field\ngates.floors: must be an array");
	ATF_CHECK_STREQ(config_msg("{\"floors\":[1,{\"pack\":{},\"q\":1},"
	    "{}]}"), "gates.floors[0]: must be an object with exactly one of "
	    "'pack' or 'packRef'\ngates.floors[1].q: unknown field\n"
	    "gates.floors[2]: must set exactly one of 'pack' or 'packRef'");
	ATF_CHECK_STREQ(config_msg("{\"floors\":[{\"packRef\":{\"id\":"
	    "\"bad\",\"version\":\"1\",\"digest\":\"x\",\"y\":0}}]}"),
	    "gates.floors[0].packRef.y: unknown field\n"
	    "gates.floors[0].packRef.id: pack id must be <namespace>:<path> "
	    "with namespace aiwg/framework/addon/extension/project: 'bad'\n"
	    "gates.floors[0].packRef.version: required, must be a semantic "
	    "version (X.Y.Z)\ngates.floors[0].packRef.digest: required, must "
	    "be a sha256 digest");
	ATF_CHECK_STREQ(config_msg("{\"ceilings\":{\"s\":\"HOLD\"}}"),
	    "gates.ceilings: per-study ceilings require the project-wide '*' "
	    "default ceiling");
	ATF_CHECK_STREQ(config_msg("{\"ceilings\":{\"*\":\"HOLD\",\"s\":"
	    "\"PROMOTE\",\" \":\"HOLD\",\"t\":\"MAYBE\"}}"),
	    "gates.ceilings: study id must be a non-empty string\n"
	    "gates.ceilings.t: must be PROMOTE, HOLD or ROLLBACK\n"
	    "gates.ceilings.s: must tighten the project default ceiling HOLD, "
	    "not loosen it");
	ATF_CHECK_STREQ(config_msg("{\"providers\":[{\"bundleId\":\"b\","
	    "\"providerId\":\"p\",\"codeDigest\":\"sha256:0000000000000000000"
	    "000000000000000000000000000000000000000000000\",\"reviewer\":"
	    "\"r\",\"reviewedAt\":\"2026-08-15\"},{\"bundleId\":\"b\","
	    "\"providerId\":\"p\"}]}"),
	    "gates.providers[1].codeDigest: required, must be a sha256 digest\n"
	    "gates.providers[1].reviewer: required, must be a non-empty "
	    "string\ngates.providers[1].reviewedAt: required, must be a "
	    "date-time\ngates.providers[1]: duplicate allowlist entry for b p");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, pack_ids);
	ATF_TP_ADD_TC(tp, registration);
	ATF_TP_ADD_TC(tp, extends_tightening);
	ATF_TP_ADD_TC(tp, scope_transitions);
	ATF_TP_ADD_TC(tp, binding_resolution);
	ATF_TP_ADD_TC(tp, gates_config);
	return atf_no_error();
}
