/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_provider_allowlist: the operator's allowlist (interop.md §P4) -- the
 * validateGatesConfig rules as a table of good and bad files with the
 * expected message naming the entry and field, and matching at load
 * (unregistered, attestation-mismatch, exact string comparisons).
 */
#include "provtest.h"

#define D1 \
	"sha256:76cd4dcb9af82fc27461a8452544" \
	"01bd66e96f8f5198cbb57c28c1f99511a590"
#define D0 \
	"sha256:0000000000000000000000000000" \
	"000000000000000000000000000000000000"
#define ENTRY(b, p, d, r, at) \
	"{\"bundleId\":" b ",\"providerId\":" p ",\"codeDigest\":" d \
	",\"reviewer\":" r ",\"reviewedAt\":" at "}"
#define GOOD \
	ENTRY("\"gates-example\"", "\"example.count/v1\"", "\"" D1 "\"", \
	"\"Example Reviewer\"", "\"2026-08-15T00:00:00.000Z\"")
#define WITH(e)		"{\"gates\":{\"providers\":[" e "]}}"

static const struct {
	const char	*json;
	const char	*want;	/* NULL: valid */
	size_t		 n;	/* entries when valid */
} cases[] = {
	{ WITH(GOOD), NULL, 1 },
	{ "{\"gates\":{\"providers\":[]}}", NULL, 0 },
	{ "{\"gates\":{}}", NULL, 0 },
	{ "{\"gates\":null}", NULL, 0 },
	{ "{}", NULL, 0 },
	{ "{\"gates\":{\"floors\":{\"x\":1},\"ceilings\":[],\"providers\":[]}}",
	    NULL, 0 },
	{ WITH(GOOD "," ENTRY("\"gates-example\"", "\"other/v1\"",
	    "\"" D0 "\"", "\" R \"", "\"2026-08-15\"")), NULL, 2 },
	{ WITH(ENTRY("\"b\"", "\"p\"", "\"" D1 "\"", "\"R\"",
	    "\"2026-08-15T10:00+02:00\"")), NULL, 1 },

	{ "[]", "allowlist: must be an object", 0 },
	{ "{\"gates\":", "allowlist: invalid JSON at byte offset 9", 0 },
	{ "{\"gate\":{}}", "gate: unknown field", 0 },
	{ "{\"gates\":[]}", "gates: must be an object", 0 },
	{ "{\"gates\":\"yes\"}", "gates: must be an object", 0 },
	{ "{\"gates\":{\"allow\":[]}}", "gates.allow: unknown field", 0 },
	{ "{\"gates\":{\"providers\":\"yes\"}}",
	    "gates.providers: must be an array", 0 },
	{ "{\"gates\":{\"providers\":{}}}",
	    "gates.providers: must be an array", 0 },
	{ WITH("1"), "gates.providers[0]: must be an object", 0 },
	{ WITH(GOOD ",null"), "gates.providers[1]: must be an object", 0 },
	{ WITH("{\"bundleId\":\"b\",\"providerId\":\"p\",\"codeDigest\":\"" D1
	    "\",\"reviewer\":\"R\",\"reviewedAt\":\"2026-08-15\",\"x\":1}"),
	    "gates.providers[0].x: unknown field", 0 },
	{ WITH("{\"providerId\":\"p\",\"codeDigest\":\"" D1 "\","
	    "\"reviewer\":\"R\",\"reviewedAt\":\"2026-08-15\"}"),
	    "gates.providers[0].bundleId: required, must be a non-empty string",
	    0 },
	{ WITH(ENTRY("\"  \\t\\u00a0\\u3000\\ufeff\"", "\"p\"", "\"" D1 "\"",
	    "\"R\"", "\"2026-08-15\"")),
	    "gates.providers[0].bundleId: required, must be a non-empty string",
	    0 },
	{ WITH(ENTRY("\"b\"", "7", "\"" D1 "\"", "\"R\"", "\"2026-08-15\"")),
	    "gates.providers[0].providerId: required, must be a non-empty "
	    "string", 0 },
	{ WITH(ENTRY("\"b\"", "\"\"", "\"" D1 "\"", "\"R\"",
	    "\"2026-08-15\"")),
	    "gates.providers[0].providerId: required, must be a non-empty "
	    "string", 0 },
	{ WITH(ENTRY("\"b\"", "\"p\"", "\"nope\"", "\"R\"",
	    "\"2026-08-15\"")),
	    "gates.providers[0].codeDigest: required, must be a sha256 digest",
	    0 },
	{ WITH(ENTRY("\"b\"", "\"p\"", "\"" D1 "0\"", "\"R\"",
	    "\"2026-08-15\"")),
	    "gates.providers[0].codeDigest: required, must be a sha256 digest",
	    0 },
	{ WITH(ENTRY("\"b\"", "\"p\"", "\"sha256:76CD4dcb9af82fc27461a8452544"
	    "01bd66e96f8f5198cbb57c28c1f99511a590\"", "\"R\"",
	    "\"2026-08-15\"")),
	    "gates.providers[0].codeDigest: required, must be a sha256 digest",
	    0 },
	{ WITH("{\"bundleId\":\"b\",\"providerId\":\"p\",\"reviewer\":\"R\","
	    "\"reviewedAt\":\"2026-08-15\"}"),
	    "gates.providers[0].codeDigest: required, must be a sha256 digest",
	    0 },
	{ WITH(ENTRY("\"b\"", "\"p\"", "\"" D1 "\"", "\"\"",
	    "\"2026-08-15\"")),
	    "gates.providers[0].reviewer: required, must be a non-empty string "
	    "of at most 128 characters", 0 },
	{ WITH(ENTRY("\"b\"", "\"p\"", "\"" D1 "\"", "\" \"",
	    "\"2026-08-15\"")),
	    "gates.providers[0].reviewer: required", 0 },
	{ WITH(ENTRY("\"b\"", "\"p\"", "\"" D1 "\"", "[\"R\"]",
	    "\"2026-08-15\"")),
	    "gates.providers[0].reviewer: required", 0 },
	{ WITH(ENTRY("\"b\"", "\"p\"", "\"" D1 "\"", "\"R\"",
	    "\"not-a-date\"")),
	    "gates.providers[0].reviewedAt: required, must be a date-time", 0 },
	{ WITH(ENTRY("\"b\"", "\"p\"", "\"" D1 "\"", "\"R\"", "1786752000000")),
	    "gates.providers[0].reviewedAt: required, must be a date-time", 0 },
	{ WITH(ENTRY("\"b\"", "\"p\"", "\"" D1 "\"", "\"R\"",
	    "\"2026-02-30\"")),
	    "gates.providers[0].reviewedAt: required, must be a date-time", 0 },
	{ WITH(GOOD "," ENTRY("\"gates-example\"", "\"example.count/v1\"",
	    "\"" D0 "\"", "\"Other\"", "\"2026-08-16T00:00:00Z\"")),
	    "gates.providers[1]: duplicate allowlist entry for gates-example "
	    "example.count/v1", 0 },
	{ WITH(ENTRY("\"b\\u0000\"", "\"p\"", "\"" D1 "\"", "\"R\"",
	    "\"2026-08-15\"")),
	    "gates.providers[0].bundleId: must not contain U+0000", 0 },
	{ WITH(ENTRY("\"b\"", "\"p\"", "\"" D1 "\"", "\"R\\udc00\"",
	    "\"2026-08-15\"")), "gates.providers[0].reviewer: required", 0 },
};

ATF_TC_WITHOUT_HEAD(table);
ATF_TC_BODY(table, tc)
{
	struct prov_allowlist	 al;
	struct prov_error	 err;
	size_t			 i;
	int			 r;

	for (i = 0; i < nitems(cases); i++) {
		memset(&err, 0, sizeof(err));
		r = prov_allowlist_parse(cases[i].json, strlen(cases[i].json),
		    &al, &err);
		if (cases[i].want == NULL) {
			ATF_CHECK_MSG(r == 0, "case %zu refused: %s", i,
			    err.msg);
			ATF_CHECK_EQ_MSG(al.n, cases[i].n, "case %zu", i);
		} else {
			TP_CHECK_ERR(r, err, PROV_INVALID_ALLOWLIST,
			    cases[i].want);
			ATF_CHECK_EQ_MSG(al.n, 0, "case %zu kept entries", i);
			ATF_CHECK_MSG(al.v == NULL, "case %zu", i);
		}
		prov_allowlist_free(&al);
	}
}

ATF_TC_WITHOUT_HEAD(fields);
ATF_TC_BODY(fields, tc)
{
	static const char json[] = WITH(GOOD "," ENTRY("\"b\"",
	    "\"p\\u00e9\"", "\"" D0 "\"", "\"R\\ud83d\\ude00\"",
	    "\"2026-08-15\""));
	struct prov_allowlist	 al;
	struct prov_error	 err;

	ATF_REQUIRE_MSG(prov_allowlist_parse(json, strlen(json), &al,
	    &err) == 0, "%s", err.msg);
	ATF_REQUIRE_EQ(al.n, 2);
	ATF_CHECK_STREQ(al.v[0].bundle_id, "gates-example");
	ATF_CHECK_STREQ(al.v[0].provider_id, "example.count/v1");
	ATF_CHECK_STREQ(al.v[0].code_digest, D1);
	ATF_CHECK_STREQ(al.v[0].reviewer, "Example Reviewer");
	ATF_CHECK_STREQ(al.v[0].reviewed_at, "2026-08-15T00:00:00.000Z");
	ATF_CHECK_STREQ(al.v[1].provider_id, "p\xc3\xa9");
	ATF_CHECK_STREQ(al.v[1].reviewer, "R\xf0\x9f\x98\x80");
	prov_allowlist_free(&al);
}

ATF_TC_WITHOUT_HEAD(limits);
ATF_TC_BODY(limits, tc)
{
	struct prov_allowlist	 al;
	struct prov_error	 err;
	char			*json, *t;
	size_t			 i;

	/* A reviewer of 128 characters is the most. */
	xasprintf(&json, WITH(ENTRY("\"b\"", "\"p\"", "\"" D1 "\"",
	    "\"%0128d\"", "\"2026-08-15\"")), 0);
	ATF_CHECK_MSG(prov_allowlist_parse(json, strlen(json), &al,
	    &err) == 0, "%s", err.msg);
	prov_allowlist_free(&al);
	free(json);
	xasprintf(&json, WITH(ENTRY("\"b\"", "\"p\"", "\"" D1 "\"",
	    "\"%0129d\"", "\"2026-08-15\"")), 0);
	TP_CHECK_ERR(prov_allowlist_parse(json, strlen(json), &al, &err), err,
	    PROV_INVALID_ALLOWLIST, "gates.providers[0].reviewer: required, "
	    "must be a non-empty string of at most 128 characters");
	free(json);

	/* Many entries are fine (no duplicates); the file cap refuses. */
	json = xstrdup("{\"gates\":{\"providers\":[");
	for (i = 0; i < 500; i++) {
		xasprintf(&t, "%s%s" ENTRY("\"b\"", "\"p%zu\"", "\"" D1 "\"",
		    "\"R\"", "\"2026-08-15\""), json, i ? "," : "", i);
		free(json);
		json = t;
	}
	xasprintf(&t, "%s]}}", json);
	free(json);
	ATF_CHECK_MSG(prov_allowlist_parse(t, strlen(t), &al, &err) == 0,
	    "%s", err.msg);
	ATF_CHECK_EQ(al.n, 500);
	prov_allowlist_free(&al);
	free(t);
	json = xmalloc(PROV_ALLOWLIST_MAX + 1);
	memset(json, ' ', PROV_ALLOWLIST_MAX + 1);
	memcpy(json, "{}", 2);
	TP_CHECK_ERR(prov_allowlist_parse(json, PROV_ALLOWLIST_MAX + 1, &al,
	    &err), err, PROV_INVALID_ALLOWLIST, "more than 1048576 bytes");
	free(json);
}

static void
review_of(struct prov_review *r, const char *who, const char *at)
{
	memset(r, 0, sizeof(*r));
	strlcpy(r->reviewer, who, sizeof(r->reviewer));
	strlcpy(r->reviewed_at, at, sizeof(r->reviewed_at));
	strlcpy(r->code_digest, D1, sizeof(r->code_digest));
}

ATF_TC_WITHOUT_HEAD(matching);
ATF_TC_BODY(matching, tc)
{
	static const char json[] = WITH(GOOD "," ENTRY("\"gates-example\"",
	    "\"second/v1\"", "\"" D0 "\"", "\"Example Reviewer\"",
	    "\"2026-08-15T00:00:00.000Z\""));
	const struct prov_allow	*a;
	struct prov_allowlist	 al;
	struct prov_review	 r;
	struct prov_error	 err;

	ATF_REQUIRE(prov_allowlist_parse(json, strlen(json), &al, &err) == 0);
	review_of(&r, "Example Reviewer", "2026-08-15T00:00:00.000Z");
	ATF_CHECK_MSG(prov_allowlist_match(&al, "gates-example",
	    "example.count/v1", D1, &r, &a, &err) == 0, "%s", err.msg);
	ATF_CHECK(a == &al.v[0]);

	/* The reference's mismatch cases, one field at a time. */
	TP_CHECK_ERR(prov_allowlist_match(&al, "gates-example",
	    "example.count/v1", D0, &r, &a, &err), err,
	    PROV_ATTESTATION_MISMATCH, "provider example.count/v1 of bundle "
	    "gates-example: the allowlist pins " D1 ", the snapshot is " D0);
	ATF_CHECK(a == NULL);
	TP_CHECK_ERR(prov_allowlist_match(&al, "other-bundle",
	    "example.count/v1", D1, &r, &a, &err), err, PROV_UNREGISTERED,
	    "provider example.count/v1 is not allowlisted for bundle "
	    "other-bundle: refusing registration");
	TP_CHECK_ERR(prov_allowlist_match(&al, "gates-example",
	    "other.scope/v9", D1, &r, &a, &err), err, PROV_UNREGISTERED,
	    "provider other.scope/v9 is not allowlisted");
	review_of(&r, "Mallory", "2026-08-15T00:00:00.000Z");
	TP_CHECK_ERR(prov_allowlist_match(&al, "gates-example",
	    "example.count/v1", D1, &r, &a, &err), err,
	    PROV_ATTESTATION_MISMATCH, "reviewer and review date differ");
	review_of(&r, "Example Reviewer", "2026-08-16T00:00:00.000Z");
	TP_CHECK_ERR(prov_allowlist_match(&al, "gates-example",
	    "example.count/v1", D1, &r, &a, &err), err,
	    PROV_ATTESTATION_MISMATCH, "reviewer and review date differ");
	/* Exact strings: the same instant spelled otherwise is not it. */
	review_of(&r, "Example Reviewer", "2026-08-15T00:00:00Z");
	TP_CHECK_ERR(prov_allowlist_match(&al, "gates-example",
	    "example.count/v1", D1, &r, &a, &err), err,
	    PROV_ATTESTATION_MISMATCH, "reviewer and review date differ");
	review_of(&r, "example reviewer", "2026-08-15T00:00:00.000Z");
	TP_CHECK_ERR(prov_allowlist_match(&al, "gates-example",
	    "example.count/v1", D1, &r, &a, &err), err,
	    PROV_ATTESTATION_MISMATCH, "reviewer and review date differ");
	/* No allowlist at all is an empty one. */
	TP_CHECK_ERR(prov_allowlist_match(NULL, "gates-example",
	    "example.count/v1", D1, &r, &a, &err), err, PROV_UNREGISTERED,
	    "is not allowlisted");
	prov_allowlist_free(&al);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, table);
	ATF_TP_ADD_TC(tp, fields);
	ATF_TP_ADD_TC(tp, limits);
	ATF_TP_ADD_TC(tp, matching);
	return atf_no_error();
}
