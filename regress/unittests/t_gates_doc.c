/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_gates_doc: reading gate documents (interop.md §G1): the size cap,
 * JSON.parse, duplicate keys, admitEntry's limits in order, YAML with the
 * core schema, Date.parse and ajv-formats date-time, and the closed
 * schemas' messages in Ajv's order.
 */
#include "gatestest.h"

#define REJ	"Decision entry rejected: "

ATF_TC_WITHOUT_HEAD(json_rules);
ATF_TC_BODY(json_rules, tc)
{
	char	*big;

	ATF_CHECK_STREQ(tg_refusal("{", 1, 1), REJ "invalid-json");
	ATF_CHECK_STREQ(tg_refusal("{\"a\":1,\"a\":2}", 13, 1),
	    REJ "duplicate-or-invalid-key");
	/* invalid-json wins over a duplicate before the syntax error. */
	ATF_CHECK_STREQ(tg_refusal("{\"a\":1,\"a\":2", 12, 1),
	    REJ "invalid-json");
	big = xmalloc(GATES_DOC_MAX + 2);
	memset(big, ' ', GATES_DOC_MAX + 1);
	big[0] = '1';
	ATF_CHECK_STREQ(tg_refusal(big, GATES_DOC_MAX + 1, 1),
	    REJ "serialized-bytes");
	ATF_CHECK_STREQ(tg_refusal(big, GATES_DOC_MAX, 1), "(accepted)");
	free(big);
	ATF_CHECK_STREQ(tg_refusal("{\"__proto__\":1}", 15, 1),
	    REJ "unsafe-key");
	ATF_CHECK_STREQ(tg_refusal("{\"x\":{\"constructor\":1}}", 23, 1),
	    REJ "unsafe-key");
	ATF_CHECK(gates_path_is_json("a/b.JSON"));
	ATF_CHECK(!gates_path_is_json("a/b.yaml"));
}

static char *
nest(int depth)
{
	char	*s;
	int	 i;

	s = xmalloc(depth * 2 + 2);
	for (i = 0; i < depth; i++)
		s[i] = '[';
	s[depth] = '1';
	for (i = 0; i < depth; i++)
		s[depth + 1 + i] = ']';
	s[depth * 2 + 1] = '\0';
	return s;
}

static char *
array_of(size_t n, const char *item)
{
	char	*s, *p;
	size_t	 i, il = strlen(item);

	s = p = xmalloc(n * (il + 1) + 3);
	*p++ = '[';
	for (i = 0; i < n; i++) {
		if (i > 0)
			*p++ = ',';
		memcpy(p, item, il);
		p += il;
	}
	*p++ = ']';
	*p = '\0';
	return s;
}

ATF_TC_WITHOUT_HEAD(admission_limits);
ATF_TC_BODY(admission_limits, tc)
{
	char	*s, *t;

	/* depth: root 0, 32 levels of containers around a scalar pass. */
	s = nest(32);
	ATF_CHECK_STREQ(tg_refusal(s, strlen(s), 1), "(accepted)");
	free(s);
	s = nest(33);
	ATF_CHECK_STREQ(tg_refusal(s, strlen(s), 1), REJ "nesting-depth");
	free(s);
	s = array_of(4096, "0");
	ATF_CHECK_STREQ(tg_refusal(s, strlen(s), 1), "(accepted)");
	free(s);
	s = array_of(4097, "0");
	ATF_CHECK_STREQ(tg_refusal(s, strlen(s), 1), REJ "array-length");
	free(s);
	/* 1 + 3 x 2731 = 8194 entries */
	s = array_of(2731, "[0,0]");
	ATF_CHECK_STREQ(tg_refusal(s, strlen(s), 1), REJ "entry-count");
	free(s);
	s = array_of(4095, "{\"a\":0}");	/* 1 + 2 x 4095 entries */
	ATF_CHECK_STREQ(tg_refusal(s, strlen(s), 1), "(accepted)");
	free(s);
	s = array_of(4096, "{\"a\":0}");
	ATF_CHECK_STREQ(tg_refusal(s, strlen(s), 1), REJ "entry-count");
	free(s);
	s = array_of(4095, "{\"a\":0}");
	xasprintf(&t, "{\"x\":%s,\"y\":1,\"z\":2}", s);
	ATF_CHECK_STREQ(tg_refusal(t, strlen(t), 1), REJ "property-count");
	free(s);
	free(t);
	s = xmalloc(65540);
	s[0] = '"';
	memset(s + 1, 'a', 65537);
	s[65538] = '"';
	s[65539] = '\0';
	ATF_CHECK_STREQ(tg_refusal(s, strlen(s), 1), REJ "string-length");
	s[65537] = '"';
	s[65538] = '\0';
	ATF_CHECK_STREQ(tg_refusal(s, strlen(s), 1), "(accepted)");
	free(s);
	/* serialized bytes count scalars and keys, not punctuation. */
	s = array_of(4000, "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"");
	ATF_CHECK_STREQ(tg_refusal(s, strlen(s), 1), REJ "serialized-bytes");
	free(s);
	s = array_of(3900, "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"");
	ATF_CHECK_STREQ(tg_refusal(s, strlen(s), 1), "(accepted)");
	free(s);
}

ATF_TC_WITHOUT_HEAD(yaml_core_schema);
ATF_TC_BODY(yaml_core_schema, tc)
{
	struct json_value	*v;
	const char		*y = "a: 1\nb: 0x10\nc: 0o17\nd: 1.5e3\n"
	    "e: true\nf: ~\ng: \"1\"\nh: yes\ni: 1_000\nj: .5\nk: -3\n"
	    "l: [x, 'y']\n2: two\n";

	v = tg_parse(y, 0);
	ATF_CHECK_EQ(json_get(v, "a")->u.number, 1);
	ATF_CHECK_EQ(json_get(v, "b")->u.number, 16);
	ATF_CHECK_EQ(json_get(v, "c")->u.number, 15);
	ATF_CHECK_EQ(json_get(v, "d")->u.number, 1500);
	ATF_CHECK_EQ(json_get(v, "e")->type, JSON_TRUE);
	ATF_CHECK_EQ(json_get(v, "f")->type, JSON_NULL);
	ATF_CHECK(gt_str_is(json_get(v, "g"), "1"));
	ATF_CHECK(gt_str_is(json_get(v, "h"), "yes"));	/* YAML 1.2 */
	ATF_CHECK(gt_str_is(json_get(v, "i"), "1_000"));
	ATF_CHECK_EQ(json_get(v, "j")->u.number, 0.5);
	ATF_CHECK_EQ(json_get(v, "k")->u.number, -3);
	ATF_CHECK(gt_str_is(&json_get(v, "l")->u.array.v[1], "y"));
	ATF_CHECK(gt_str_is(json_get(v, "2"), "two"));
	json_free(v);
	ATF_CHECK_STREQ(tg_refusal("a: 1\na: 2\n", 10, 0),
	    REJ "duplicate-or-invalid-key");
	ATF_CHECK_STREQ(tg_refusal("a: &x 1\nb: *x\n", 14, 0),
	    REJ "invalid-yaml");
	ATF_CHECK_STREQ(tg_refusal("a: !!str 1\n", 11, 0),
	    REJ "invalid-yaml");
	ATF_CHECK_STREQ(tg_refusal("a: [\n", 5, 0), REJ "invalid-yaml");
	ATF_CHECK_STREQ(tg_refusal("a: 1\n---\nb: 2\n", 14, 0),
	    REJ "invalid-yaml");
	ATF_CHECK_STREQ(tg_refusal("a: .inf\n", 8, 0),
	    REJ "nonfinite-number");
	ATF_CHECK_STREQ(tg_refusal("{__proto__: 1}\n", 15, 0),
	    REJ "unsafe-key");
	ATF_CHECK_STREQ(tg_refusal("[1, {b: [2]}]", 13, 0), "(accepted)");
}

ATF_TC_WITHOUT_HEAD(shipped_digests);
ATF_TC_BODY(shipped_digests, tc)
{
	const struct gates_shipped	*s;
	struct json_value		*v;
	size_t				 n;

	s = gates_shipped_packs(&n);
	ATF_REQUIRE_EQ(n, 2);
	ATF_CHECK_EQ(strlen(s[0].text), 9777);
	ATF_CHECK_EQ(strlen(s[1].text), 588);
	v = tg_parse(s[0].text, 0);
	tg_digest_is(v, "sha256:ada18c60383b1e1ebd7744e77fca3cc2eb4f7a9c73e4"
	    "ce508afb71bffcacd138");
	json_free(v);
	v = tg_parse(s[1].text, 0);
	tg_digest_is(v, "sha256:dd943cf0b2c8116f14bfe31eb68a5498ae292b7f33c6"
	    "97306eb18492bcf70058");
	json_free(v);
	v = tg_fixture(tc, "conformance-v1.gatepack.json");
	tg_digest_is(v, "sha256:38a59f70033bf01a7395b776f2b44849254127508ef4"
	    "b5816a73ed6be450daed");
	json_free(v);
	v = tg_fixture(tc, "conformance-run.binding.json");
	tg_digest_is(v, "sha256:713127fce4b97506487ce80c65998b29b110aff14815"
	    "6496336c6a859948149c");
	json_free(v);
}

static void
check_date(const char *s, int64_t want)
{
	int64_t	 ms;

	if (want == -1) {
		ATF_CHECK_MSG(gates_date_parse(s, &ms) == -1, "%s accepted", s);
		return;
	}
	ATF_REQUIRE_MSG(gates_date_parse(s, &ms) == 0, "%s refused", s);
	ATF_CHECK_EQ_MSG(ms, want, "%s: %lld", s, (long long)ms);
}

ATF_TC_WITHOUT_HEAD(dates);
ATF_TC_BODY(dates, tc)
{
	/* Values from node 20's Date.parse. */
	check_date("2026-09-03T00:00:00.000Z", 1788393600000LL);
	check_date("2026-09-02T00:00:00Z", 1788307200000LL);
	check_date("2026-09-02t00:00:00z", 1788307200000LL);
	check_date("2026-09-02 00:00:00Z", 1788307200000LL);
	check_date("2026-09-02T00:00:00+0000", 1788307200000LL);
	check_date("2026-09-02T02:00:00+02:00", 1788307200000LL);
	check_date("2026-09-02T24:00:00Z", 1788393600000LL);
	check_date("2026-09-02T00:00Z", 1788307200000LL);
	check_date("2026-09-02T00:00:00.123456Z", 1788307200123LL);
	check_date("+002026-09-02T00:00:00Z", 1788307200000LL);
	check_date("2026", 1767225600000LL);
	check_date("2026-09", 1788220800000LL);
	check_date("2019-02-30", 1551484800000LL);
	check_date("2019-02-31T00:00:00Z", 1551571200000LL);
	check_date("2026-09-02T23:59:60Z", -1);
	check_date("2026-09-02T24:00:01Z", -1);
	check_date("2026-09-02T00:00:00.Z", -1);
	check_date("2019-02-32T00:00:00Z", -1);
	check_date("not a date", -1);
	check_date("", -1);

	ATF_CHECK(gates_format_datetime("2026-09-02T00:00:00Z"));
	ATF_CHECK(gates_format_datetime("2026-09-02t00:00:00.5+01:00"));
	ATF_CHECK(gates_format_datetime("2026-09-02 00:00:00z"));
	ATF_CHECK(gates_format_datetime("2026-12-31T23:59:60Z"));
	ATF_CHECK(!gates_format_datetime("2026-09-02T00:00:00"));
	ATF_CHECK(!gates_format_datetime("2026-02-30T00:00:00Z"));
	ATF_CHECK(!gates_format_datetime("2026-09-02"));
	ATF_CHECK(!gates_format_datetime("2026-09-02T10:59:60Z"));
}

static const char *
schema_msg(const char *json)
{
	static struct gates_error	 err;
	struct json_value		*v = tg_parse(json, 1);

	memset(&err, 0, sizeof(err));
	if (gates_validate_document(v, &err) == 0)
		strlcpy(err.msg, "(valid)", sizeof(err.msg));
	json_free(v);
	return err.msg;
}

#define PACKHDR "{\"apiVersion\":\"gates.aiwg.io/v1alpha1\",\"kind\":\"GatePack\"," \
	"\"metadata\":{\"id\":\"project:p\",\"version\":\"1.0.0\",\"description\":\"d\"},"

ATF_TC_WITHOUT_HEAD(schema_messages);
ATF_TC_BODY(schema_messages, tc)
{
	ATF_CHECK_STREQ(schema_msg("[]"), "Gate document must be an object");
	ATF_CHECK_STREQ(schema_msg("{\"kind\":\"GatePack\"}"),
	    "Unsupported gate kind/version 'undefined:GatePack'");
	ATF_CHECK_STREQ(schema_msg(PACKHDR "\"spec\":{\"metrics\":{},"
	    "\"gates\":[{\"id\":\"g\",\"kind\":\"upstream-ceiling\","
	    "\"scope\":{\"mode\":\"all\"},\"direction\":\"higher-is-stricter\","
	    "\"onFail\":\"HOLD\"}]}}"), "(valid)");
	ATF_CHECK_STREQ(schema_msg(PACKHDR "\"spec\":{\"metrics\":{},"
	    "\"gates\":[],\"x\":1}}"), "GatePack schema validation failed: "
	    "/spec must NOT have additional properties; "
	    "/spec/gates must NOT have fewer than 1 items");
	ATF_CHECK_STREQ(schema_msg(PACKHDR "\"spec\":{\"metrics\":{},"
	    "\"gates\":[{\"id\":\"G\",\"kind\":\"interval-bound\","
	    "\"scope\":{\"mode\":\"all\"},\"direction\":\"up\","
	    "\"onFail\":\"HOLD\",\"statistic\":{\"kind\":\"interval-bound\","
	    "\"levelBps\":9999}}]}}"), "GatePack schema validation failed: "
	    "/spec/gates/0 must have required property 'metric'; "
	    "/spec/gates/0 must match \"then\" schema; "
	    "/spec/gates/0 must have required property 'threshold'; "
	    "/spec/gates/0 must match \"then\" schema; "
	    "/spec/gates/0/id must match pattern \"^[a-z0-9][a-z0-9-]*$\"; "
	    "/spec/gates/0/statistic/levelBps must be <= 9998; "
	    "/spec/gates/0/statistic/levelBps must be object; "
	    "/spec/gates/0/statistic/levelBps must match a schema in anyOf; "
	    "/spec/gates/0/direction must be equal to one of the allowed "
	    "values");
}

/* Which names are documents, and which are packs of a pack directory. */
ATF_TC_WITHOUT_HEAD(file_names);
ATF_TC_BODY(file_names, tc)
{
	ATF_CHECK(gates_path_is_json("a/b.JSON"));
	ATF_CHECK(!gates_path_is_json("b.json.yaml"));
	ATF_CHECK(gates_path_is_doc("p.yaml") && gates_path_is_doc("p.YML") &&
	    gates_path_is_doc("p.json"));
	ATF_CHECK(!gates_path_is_doc("p.txt") && !gates_path_is_doc("yaml"));
	ATF_CHECK(gates_path_is_pack("x.gatepack.yaml") &&
	    gates_path_is_pack("x.GatePack.yml") &&
	    gates_path_is_pack("x.gatepack.json"));
	ATF_CHECK(!gates_path_is_pack("x.yaml") &&
	    !gates_path_is_pack("gatepack.yaml") &&
	    !gates_path_is_pack("x.gatepack.txt"));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, json_rules);
	ATF_TP_ADD_TC(tp, admission_limits);
	ATF_TP_ADD_TC(tp, yaml_core_schema);
	ATF_TP_ADD_TC(tp, shipped_digests);
	ATF_TP_ADD_TC(tp, dates);
	ATF_TP_ADD_TC(tp, schema_messages);
	ATF_TP_ADD_TC(tp, file_names);
	return atf_no_error();
}
