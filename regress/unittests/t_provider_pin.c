/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_provider_pin: records digests, deriveIsolatedSeed, binding pins and sealed
 * sections (interop.md §P3) against the spec's worked values, and the
 * record bound sbx uses instead of the reference's 4,096-record ceiling.
 */
#include "provtest.h"

#define CODE_EX \
	"sha256:76cd4dcb9af82fc27461a8452544" \
	"01bd66e96f8f5198cbb57c28c1f99511a590"
#define REC_EMPTY \
	"sha256:4f53cda18c2baa0c0354bb5f9a3e" \
	"cbe5ed12ab4d8e11ba873c2f11161202b945"
#define REC_ONE \
	"sha256:7c9f2b0232a4f7f63e8770a5a217" \
	"a135e0cd065e08cabeeea28eb8c029493ec3"
#define REC_A0B0 \
	"sha256:1cdc0d373ad3a1af2990c0383eb2" \
	"7d5791e580c92bb4411ed1f648cda3f9b2ad"
#define REC_A0B1 \
	"sha256:665cbbbfe00f4c9fbd4fbeba0fe6" \
	"45d11750c1e6fdacc3d90e40876d07b4e1ae"
#define SRC \
	"sha256:fdefe6ab09c01c296971d4ad9844" \
	"95c8266bae14b73c372404396d24536d12ca"

/* flakeRecords: 10 records of slice a, then 10 of b, failures first. */
static char *
flake(int afail, int bfail)
{
	char	*s = xstrdup("["), *t;
	int	 i;

	for (i = 0; i < 20; i++) {
		xasprintf(&t, "%s%s{\"slice\":\"%s\",\"failed\":%s}", s,
		    i == 0 ? "" : ",", i < 10 ? "a" : "b",
		    (i < 10 ? i < afail : i - 10 < bfail) ? "true" : "false");
		free(s);
		s = t;
	}
	xasprintf(&t, "%s]", s);
	free(s);
	return t;
}

static struct json_value *
records(const char *json, size_t max)
{
	struct json_value	*v;
	struct prov_error	 err;

	ATF_REQUIRE_MSG(prov_records_parse(json, strlen(json), max, &v,
	    &err) == 0, "%s: %s", json, err.msg);
	return v;
}

static void
check_records_digest(const char *json, const char *want)
{
	struct json_value	*v = records(json, 0);
	struct prov_error	 err;
	char			 d[DIGEST_STR_LEN + 1];

	ATF_REQUIRE_MSG(prov_records_digest(v, 0, d, &err) == 0, "%s",
	    err.msg);
	ATF_CHECK_STREQ_MSG(d, want, "records %s", json);
	json_free(v);
}

ATF_TC_WITHOUT_HEAD(records_digests);
ATF_TC_BODY(records_digests, tc)
{
	char	*s;

	check_records_digest("[]", REC_EMPTY);
	check_records_digest("[{\"slice\":\"a\",\"failed\":false}]", REC_ONE);
	check_records_digest(" [ {\"failed\" : false, \"slice\":\"a\"} ]\n",
	    REC_ONE);
	s = flake(0, 0);
	check_records_digest(s, REC_A0B0);
	free(s);
	s = flake(0, 1);
	check_records_digest(s, REC_A0B1);
	free(s);
}

ATF_TC_WITHOUT_HEAD(records_refusals);
ATF_TC_BODY(records_refusals, tc)
{
	struct json_value	*v;
	struct prov_error	 err;
	char			 d[DIGEST_STR_LEN + 1];

	TP_CHECK_ERR(prov_records_parse("{}", 2, 0, &v, &err), err,
	    PROV_INVALID_RECORDS, "records must be an array");
	ATF_CHECK(v == NULL);
	TP_CHECK_ERR(prov_records_parse("[1,", 3, 0, &v, &err), err,
	    PROV_INVALID_RECORDS, "records: invalid JSON at byte offset 3");
	TP_CHECK_ERR(prov_records_parse("[1,2,3]", 7, 2, &v, &err), err,
	    PROV_BUDGET_EXCEEDED, "3 records exceed the limit of 2");
	v = records("[1,2]", 2);
	TP_CHECK_ERR(prov_records_digest(v, 1, d, &err), err,
	    PROV_BUDGET_EXCEEDED, "2 records exceed the limit of 1");
	ATF_CHECK(prov_records_digest(v, 2, d, &err) == 0);
	json_free(v);
	TP_CHECK_ERR(prov_records_digest(NULL, 0, d, &err), err,
	    PROV_INVALID_RECORDS, "records must be an array");
}

ATF_TC(many_records);
ATF_TC_HEAD(many_records, tc)
{
	atf_tc_set_md_var(tc, "descr", "Beyond the reference's 4,096 "
	    "records: up to provider-max-records digest, with the digest of "
	    "the canonical text");
}
ATF_TC_BODY(many_records, tc)
{
	struct json_value	*v;
	struct prov_error	 err;
	char			*text, *canon, d[DIGEST_STR_LEN + 1];
	char			 want[DIGEST_STR_LEN + 1];
	size_t			 i, off = 0, coff = 0, cap = 60 * 50000;

	/* Written with spaces and keys out of order; canonical by hand. */
	text = xmalloc(cap);
	canon = xmalloc(cap);
	off += (size_t)snprintf(text + off, cap - off, "[");
	coff += (size_t)snprintf(canon + coff, cap - coff, "[");
	for (i = 0; i < PROV_MAX_RECORDS_DEFAULT; i++) {
		off += (size_t)snprintf(text + off, cap - off,
		    "%s{\"slice\": \"s%zu\", \"failed\": %s}", i ? ", " : "",
		    i % 7, i % 3 ? "false" : "true");
		coff += (size_t)snprintf(canon + coff, cap - coff,
		    "%s{\"failed\":%s,\"slice\":\"s%zu\"}", i ? "," : "",
		    i % 3 ? "false" : "true", i % 7);
	}
	snprintf(text + off, cap - off, "]");
	snprintf(canon + coff, cap - coff, "]");
	v = records(text, 0);
	ATF_CHECK_EQ(v->u.array.n, PROV_MAX_RECORDS_DEFAULT);
	ATF_REQUIRE_MSG(prov_records_digest(v, 0, d, &err) == 0, "%s",
	    err.msg);
	digest_bytes(canon, coff + 1, want);
	ATF_CHECK_STREQ(d, want);
	json_free(v);
	/* One more than the default limit: budget-exceeded. */
	text[off] = '\0';
	strlcat(text, ",{}]", cap);
	TP_CHECK_ERR(prov_records_parse(text, strlen(text), 0, &v, &err), err,
	    PROV_BUDGET_EXCEEDED, "50001 records exceed the limit of 50000");
	free(text);
	free(canon);
}

ATF_TC_WITHOUT_HEAD(seeds);
ATF_TC_BODY(seeds, tc)
{
	struct prov_error	 err;
	uint32_t		 seed;

	/* interop.md §P3's worked values. */
	ATF_REQUIRE(prov_seed_derive(CODE_EX, REC_EMPTY, &seed, &err) == 0);
	ATF_CHECK_EQ(seed, 635942133U);
	ATF_REQUIRE(prov_seed_derive(CODE_EX, REC_A0B0, &seed, &err) == 0);
	ATF_CHECK_EQ(seed, 1374762198U);
	/* Order matters: code digest first. */
	ATF_REQUIRE(prov_seed_derive(REC_EMPTY, CODE_EX, &seed, &err) == 0);
	ATF_CHECK(seed != 635942133U);
	TP_CHECK_ERR(prov_seed_derive("sha256:76cd", REC_EMPTY, &seed, &err),
	    err, PROV_ATTESTATION_MISMATCH, "code digest is not a sha256");
	TP_CHECK_ERR(prov_seed_derive(CODE_EX, "7c9f", &seed, &err), err,
	    PROV_INVALID_RECORDS, "records digest is not a sha256 digest");
	ATF_CHECK_EQ(seed, 0);
}

static void
identity(struct prov_identity *id)
{
	memset(id, 0, sizeof(*id));
	strlcpy(id->id, "example.count/v1", sizeof(id->id));
	strlcpy(id->version, "1.0.0", sizeof(id->version));
	strlcpy(id->source_digest, SRC, sizeof(id->source_digest));
	strlcpy(id->code_digest, CODE_EX, sizeof(id->code_digest));
}

ATF_TC_WITHOUT_HEAD(binding_pins);
ATF_TC_BODY(binding_pins, tc)
{
	struct prov_identity	 id;
	struct prov_pin		 pin;
	struct prov_error	 err;
	struct json_value	*v, obj;
	char			*s, *text;
	size_t			 len;

	identity(&id);
	s = flake(0, 0);
	v = records(s, 0);
	free(s);
	ATF_REQUIRE_MSG(prov_binding_pin(&id, v, 0, &pin, &err) == 0, "%s",
	    err.msg);
	ATF_CHECK_STREQ(pin.records_digest, REC_A0B0);
	ATF_REQUIRE(prov_pin_json(&pin, &text, &len) == 0);
	/* The spec's fixture pin, in canonical key order. */
	ATF_CHECK_STREQ(text, "{\"codeDigest\":\"" CODE_EX "\",\"id\":"
	    "\"example.count/v1\",\"recordsDigest\":\"" REC_A0B0 "\","
	    "\"sourceDigest\":\"" SRC "\",\"version\":\"1.0.0\"}");
	ATF_CHECK_EQ(strlen(text), len);
	free(text);

	prov_json_object(&obj, 0);
	TP_CHECK_ERR(prov_binding_pin(&id, &obj, 0, &pin, &err), err,
	    PROV_INVALID_RECORDS, "records must be an array");
	strlcpy(id.code_digest, "sha256:xyz", sizeof(id.code_digest));
	TP_CHECK_ERR(prov_binding_pin(&id, v, 0, &pin, &err), err,
	    PROV_ATTESTATION_MISMATCH, "provider example.count/v1: code digest "
	    "is not a sha256 digest");
	/* Checked before the records. */
	TP_CHECK_ERR(prov_binding_pin(&id, &obj, 0, &pin, &err), err,
	    PROV_ATTESTATION_MISMATCH, "code digest is not a sha256 digest");
	json_free(v);
}

static struct json_value *
parse(const char *json)
{
	struct json_value	*v;

	ATF_REQUIRE_MSG(json_parse(json, strlen(json), NULL, &v, NULL) == 0,
	    "%s", json);
	return v;
}

ATF_TC_WITHOUT_HEAD(sealed_sections);
ATF_TC_BODY(sealed_sections, tc)
{
	struct prov_identity	 id;
	struct prov_error	 err;
	struct json_value	*recs, *res, obj;
	char			*text;
	size_t			 len;

	identity(&id);
	recs = records("[{\"slice\":\"a\",\"failed\":false}]", 0);
	/* A lying result: its own version and sourceDigest are ignored. */
	res = parse("{\"metrics\":{\"failures\":{\"pooled\":{\"n\":1,"
	    "\"events\":0}}},\"version\":\"9.9.9\",\"sourceDigest\":\"x\"}");
	ATF_REQUIRE_MSG(prov_seal_section(&id, recs, 0, NULL, res, &text, &len,
	    &err) == 0, "%s", err.msg);
	ATF_CHECK_STREQ(text, "{\"codeDigest\":\"" CODE_EX "\",\"metrics\":"
	    "{\"failures\":{\"pooled\":{\"events\":0,\"n\":1}}},"
	    "\"recordsDigest\":\"" REC_ONE "\",\"sourceDigest\":\"" SRC "\","
	    "\"version\":\"1.0.0\"}");
	free(text);
	json_free(res);

	/* The reference's check order: records, metrics, code digest. */
	res = parse("{\"metrics\":[]}");
	TP_CHECK_ERR(prov_seal_section(&id, recs, 0, NULL, res, &text, &len,
	    &err),
	    err, PROV_REJECTED,
	    "provider example.count/v1 returned no metrics");
	ATF_CHECK(text == NULL);
	json_free(res);
	res = parse("{\"result\":{}}");
	TP_CHECK_ERR(prov_seal_section(&id, recs, 0, NULL, res, &text, &len,
	    &err),
	    err, PROV_REJECTED, "returned no metrics");
	TP_CHECK_ERR(prov_seal_section(&id, recs, 0, NULL, NULL, &text, &len,
	    &err),
	    err, PROV_REJECTED, "returned no metrics");
	strlcpy(id.code_digest, "sha256:", sizeof(id.code_digest));
	TP_CHECK_ERR(prov_seal_section(&id, recs, 0, NULL, res, &text, &len,
	    &err),
	    err, PROV_REJECTED, "returned no metrics");
	json_free(res);
	res = parse("{\"metrics\":{}}");
	TP_CHECK_ERR(prov_seal_section(&id, recs, 0, NULL, res, &text, &len,
	    &err),
	    err, PROV_ATTESTATION_MISMATCH, "code digest is not a sha256");
	prov_json_object(&obj, 0);
	TP_CHECK_ERR(prov_seal_section(&id, &obj, 0, NULL, res, &text, &len,
	    &err),
	    err, PROV_INVALID_RECORDS, "records must be an array");
	TP_CHECK_ERR(prov_seal_section(&id, recs, 0, NULL, res, &text, &len,
	    &err),
	    err, PROV_ATTESTATION_MISMATCH, "code digest is not a sha256");
	json_free(res);
	json_free(recs);
}

ATF_TC_WITHOUT_HEAD(source_digests);
ATF_TC_BODY(source_digests, tc)
{
	struct prov_error	 err;
	struct json_value	*m;
	char			 d[DIGEST_STR_LEN + 1];
	char			 want[DIGEST_STR_LEN + 1];
	static const char	 canon[] = "{\"id\":\"a.b/v1\",\"metrics\":"
	    "{\"m\":{\"description\":\"\\u0000\\ud800\",\"kind\":\"scalar\"}},"
	    "\"version\":\"1.0.0\"}";

	m = parse("{\"m\":{\"kind\":\"scalar\",\"description\":"
	    "\"\\u0000\\uD800\"}}");
	ATF_REQUIRE(prov_source_digest("a.b/v1", "1.0.0", m, d, &err) == 0);
	digest_bytes(canon, sizeof(canon) - 1, want);
	ATF_CHECK_STREQ(d, want);
	json_free(m);
	m = parse("[]");
	TP_CHECK_ERR(prov_source_digest("a.b/v1", "1.0.0", m, d, &err), err,
	    PROV_INVALID_MODULE, "metrics must be an object");
	json_free(m);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, records_digests);
	ATF_TP_ADD_TC(tp, records_refusals);
	ATF_TP_ADD_TC(tp, many_records);
	ATF_TP_ADD_TC(tp, seeds);
	ATF_TP_ADD_TC(tp, binding_pins);
	ATF_TP_ADD_TC(tp, sealed_sections);
	ATF_TP_ADD_TC(tp, source_digests);
	return atf_no_error();
}
