/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_provider_manifest: manifest.json gateProviders validation
 * (interop.md §P1), in-bundle reviews (inline and files), and the
 * load-time check order on the example bundle (snapshot, review,
 * allowlist), each refusal with its code and a message naming the entry
 * and field.
 */
#include "provtest.h"

#define GOOD_ENTRY \
	"{\"id\":\"example.count/v1\",\"version\":\"1.0.0\"," \
	"\"module\":\"gate-providers/example.mjs\",\"description\":\"d\"," \
	"\"reviewFile\":\"gate-providers/example-review.json\"}"
#define DIGEST_A \
	"sha256:6088dc95a50be00fa4f7b1fa2082" \
	"179150f781967c911eae5ffce3b9e8710cd1"
#define INLINE_REVIEW \
	"{\"reviewer\":\"R\",\"reviewedAt\":\"2026-08-15T00:00:00.000Z\"," \
	"\"codeDigest\":\"" DIGEST_A "\"}"
#define ENTRY_WITH(field) \
	"{\"id\":\"gates-example\",\"gateProviders\":[{\"id\":\"a.b/v1\"," \
	"\"version\":\"1.0.0\",\"module\":\"gp/p.mjs\",\"description\":\"d\"," \
	field "}]}"
#define ENTRY_ONLY(fields) \
	"{\"id\":\"gates-example\",\"gateProviders\":[{" fields "}]}"
#define NOW_MS	1788393600000LL		/* 2026-09-03T00:00:00.000Z */

static const struct {
	const char	*json;
	const char	*want;		/* NULL: accepted */
	enum prov_code	 code;
} cases[] = {
	{ "{\"id\":\"gates-example\",\"gateProviders\":[" GOOD_ENTRY "]}",
	    NULL, PROV_OK },
	{ ENTRY_WITH("\"review\":" INLINE_REVIEW), NULL, PROV_OK },
	{ "{\"id\":\"gates-example\"}", NULL, PROV_OK },
	{ "{\"id\":\"gates-example\",\"gateProviders\":[]}", NULL, PROV_OK },
	/* The bundle's other keys are the installing tool's business. */
	{ "{\"id\":\"x\",\"type\":\"extension\",\"version\":\"1.0.0\","
	    "\"manifestVersion\":\"1\",\"name\":{\"any\":[1]}}", NULL,
	    PROV_OK },
	{ ENTRY_WITH("\"reviewFile\":\"r.json\"") , NULL, PROV_OK },
	{ ENTRY_ONLY("\"id\":\"A.b_c-d/v1.2\",\"version\":\"10.20.30-rc.1+x\","
	    "\"module\":\"a/B_c/d-e.mjs\",\"description\":\" \","
	    "\"reviewFile\":\"r/r.json\""), NULL, PROV_OK },

	{ "[]", "manifest.json: must be an object", PROV_INVALID_MODULE },
	{ "{", "manifest.json: invalid JSON at byte offset 1",
	    PROV_INVALID_MODULE },
	{ "{\"id\":\"x\"} x", "manifest.json: invalid JSON at byte offset 11",
	    PROV_INVALID_MODULE },
	{ "{\"gateProviders\":[]}", "manifest.json: id: required",
	    PROV_INVALID_MODULE },
	{ "{\"id\":\"Gates\"}", "manifest.json: id: must be a bundle id",
	    PROV_INVALID_MODULE },
	{ "{\"id\":\"-x\"}", "id: must be a bundle id", PROV_INVALID_MODULE },
	{ "{\"id\":\"x-\"}", "id: must be a bundle id", PROV_INVALID_MODULE },
	{ "{\"id\":\"\"}", "id: must be a bundle id", PROV_INVALID_MODULE },
	{ "{\"id\":\"a_b\"}", "id: must be a bundle id", PROV_INVALID_MODULE },
	/* 64 characters are the most a bundle id may have. */
	{ "{\"id\":\"" "0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef" "\"}", NULL, PROV_OK },
	{ "{\"id\":\"" "0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef" "0\"}",
	    "id: must be a bundle id", PROV_INVALID_MODULE },
	{ "{\"id\":1}", "id: must be a bundle id", PROV_INVALID_MODULE },
	{ "{\"id\":\"x\",\"gateProviders\":\"yes\"}",
	    "manifest.json: gateProviders: must be an array",
	    PROV_INVALID_MODULE },
	{ "{\"id\":\"x\",\"gateProviders\":{}}",
	    "gateProviders: must be an array", PROV_INVALID_MODULE },
	{ "{\"id\":\"x\",\"gateProviders\":[1]}",
	    "manifest.json: gateProviders[0]: must be an object",
	    PROV_INVALID_MODULE },
	{ ENTRY_WITH("\"reviewFile\":\"r.json\",\"foo\":1"),
	    "manifest.json: gateProviders[0].foo: unknown field",
	    PROV_INVALID_MODULE },
	{ ENTRY_WITH("\"reviewFile\":\"r.json\",\"\\u001b[1m\":1"),
	    "gateProviders[0].\\u001b[1m: unknown field", PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"version\":\"1.0.0\",\"module\":\"a.mjs\","
	    "\"description\":\"d\",\"reviewFile\":\"r.json\""),
	    "gateProviders[0].id: required", PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":7,\"version\":\"1.0.0\",\"module\":\"a.mjs\","
	    "\"description\":\"d\",\"reviewFile\":\"r.json\""),
	    "gateProviders[0].id: must be a string", PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":\"noslash\",\"version\":\"1.0.0\","
	    "\"module\":\"a.mjs\",\"description\":\"d\","
	    "\"reviewFile\":\"r.json\""),
	    "gateProviders[0].id: must be <scope>/<name>",
	    PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":\"a/b/c\",\"version\":\"1.0.0\","
	    "\"module\":\"a.mjs\",\"description\":\"d\","
	    "\"reviewFile\":\"r.json\""),
	    "gateProviders[0].id: must be <scope>/<name>",
	    PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":\"a /b\",\"version\":\"1.0.0\","
	    "\"module\":\"a.mjs\",\"description\":\"d\","
	    "\"reviewFile\":\"r.json\""),
	    "gateProviders[0].id: must be <scope>/<name>",
	    PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":\"a.b/v1\",\"version\":\"1.0\","
	    "\"module\":\"a.mjs\",\"description\":\"d\","
	    "\"reviewFile\":\"r.json\""),
	    "gateProviders[0].version: must start with MAJOR.MINOR.PATCH",
	    PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":\"a.b/v1\",\"version\":\"v1.0.0\","
	    "\"module\":\"a.mjs\",\"description\":\"d\","
	    "\"reviewFile\":\"r.json\""),
	    "gateProviders[0].version: must start with MAJOR.MINOR.PATCH",
	    PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":\"a.b/v1\",\"version\":\"\","
	    "\"module\":\"a.mjs\",\"description\":\"d\","
	    "\"reviewFile\":\"r.json\""),
	    "gateProviders[0].version: must not be empty",
	    PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":\"a.b/v1\",\"version\":\"1.0.0\","
	    "\"module\":\"../escape.mjs\",\"description\":\"d\","
	    "\"reviewFile\":\"r.json\""),
	    "gateProviders[0].module: must be a bundle-relative .mjs path",
	    PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":\"a.b/v1\",\"version\":\"1.0.0\","
	    "\"module\":\"/abs.mjs\",\"description\":\"d\","
	    "\"reviewFile\":\"r.json\""),
	    "gateProviders[0].module: must be a bundle-relative .mjs path",
	    PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":\"a.b/v1\",\"version\":\"1.0.0\","
	    "\"module\":\"..\\\\escape.mjs\",\"description\":\"d\","
	    "\"reviewFile\":\"r.json\""),
	    "gateProviders[0].module: must be a bundle-relative .mjs path",
	    PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":\"a.b/v1\",\"version\":\"1.0.0\","
	    "\"module\":\"a.b.mjs\",\"description\":\"d\","
	    "\"reviewFile\":\"r.json\""),
	    "gateProviders[0].module: must be a bundle-relative .mjs path",
	    PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":\"a.b/v1\",\"version\":\"1.0.0\","
	    "\"module\":\"a.cjs\",\"description\":\"d\","
	    "\"reviewFile\":\"r.json\""),
	    "gateProviders[0].module: must be a bundle-relative .mjs path",
	    PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":\"a.b/v1\",\"version\":\"1.0.0\","
	    "\"module\":\"a.mjs\",\"description\":\"\","
	    "\"reviewFile\":\"r.json\""),
	    "gateProviders[0].description: must not be empty",
	    PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":\"a.b/v1\",\"version\":\"1.0.0\","
	    "\"module\":\"a.mjs\",\"description\":\"\\ud800\","
	    "\"reviewFile\":\"r.json\""),
	    "gateProviders[0].description: must not contain a lone surrogate",
	    PROV_INVALID_MODULE },
	{ ENTRY_ONLY("\"id\":\"a.b/v1\",\"version\":\"1.0.0\","
	    "\"module\":\"a.mjs\",\"description\":\"a\\u0000b\","
	    "\"reviewFile\":\"r.json\""),
	    "gateProviders[0].description: must not contain U+0000",
	    PROV_INVALID_MODULE },
	{ ENTRY_WITH("\"x\":1"), "gateProviders[0].x: unknown field",
	    PROV_INVALID_MODULE },
	{ ENTRY_WITH("\"reviewFile\":\"r.json\",\"review\":" INLINE_REVIEW),
	    "gateProviders[0]: exactly one of review or reviewFile is required",
	    PROV_INVALID_MODULE },
	{ "{\"id\":\"gates-example\",\"gateProviders\":[{\"id\":\"a.b/v1\","
	    "\"version\":\"1.0.0\",\"module\":\"gp/p.mjs\","
	    "\"description\":\"d\"}]}",
	    "gateProviders[0]: exactly one of review or reviewFile is required",
	    PROV_INVALID_MODULE },
	{ ENTRY_WITH("\"reviewFile\":\"../r.json\""),
	    "gateProviders[0].reviewFile: must be a bundle-relative .json path",
	    PROV_INVALID_MODULE },
	{ ENTRY_WITH("\"reviewFile\":\"r.mjs\""),
	    "gateProviders[0].reviewFile: must be a bundle-relative .json path",
	    PROV_INVALID_MODULE },
	{ ENTRY_WITH("\"review\":null"),
	    "gateProviders[0].review: must be an object", PROV_INVALID_MODULE },
	{ ENTRY_WITH("\"review\":{\"reviewer\":\"R\",\"reviewedAt\":"
	    "\"2026-08-15T00:00:00.000Z\",\"codeDigest\":\"nope\"}"),
	    "gateProviders[0].review.codeDigest: required, must be a sha256 "
	    "digest", PROV_INVALID_MODULE },
	{ ENTRY_WITH("\"review\":{\"reviewer\":\"R\",\"reviewedAt\":"
	    "\"2026-08-15T00:00:00.000Z\",\"codeDigest\":"
	    "\"SHA256:6088dc95a50be00fa4f7b1fa2082179150f781967c911eae5ffce3b9"
	    "e8710cd1\"}"),
	    "gateProviders[0].review.codeDigest: required",
	    PROV_INVALID_MODULE },
	{ ENTRY_WITH("\"review\":{\"reviewer\":\"R\",\"reviewedAt\":"
	    "\"2026-08-15\",\"codeDigest\":\"" DIGEST_A "\"}"),
	    "gateProviders[0].review.reviewedAt: required, must be a date-time",
	    PROV_INVALID_MODULE },
	{ ENTRY_WITH("\"review\":{\"reviewer\":\"R\",\"reviewedAt\":"
	    "\"2026-08-15T00:00:00+00:00\",\"codeDigest\":\"" DIGEST_A "\"}"),
	    "gateProviders[0].review.reviewedAt: required, must be a date-time",
	    PROV_INVALID_MODULE },
	{ ENTRY_WITH("\"review\":{\"reviewer\":\"\",\"reviewedAt\":"
	    "\"2026-08-15T00:00:00Z\",\"codeDigest\":\"" DIGEST_A "\"}"),
	    "gateProviders[0].review.reviewer: required, must be a non-empty "
	    "string", PROV_INVALID_MODULE },
	{ ENTRY_WITH("\"review\":{\"reviewer\":\"R\",\"reviewedAt\":"
	    "\"2026-08-15T00:00:00Z\",\"codeDigest\":\"" DIGEST_A "\","
	    "\"note\":\"x\"}"),
	    "gateProviders[0].review.note: unknown field",
	    PROV_INVALID_MODULE },
	{ "{\"id\":\"x\",\"gateProviders\":[" GOOD_ENTRY "," GOOD_ENTRY "]}",
	    "manifest.json: gateProviders[1].id: provider id "
	    "\"example.count/v1\" is declared twice (also gateProviders[0])",
	    PROV_DUPLICATE },
	{ "{\"id\":\"x\",\"gateProviders\":[" GOOD_ENTRY ",{\"id\":\"o.b/v1\","
	    "\"version\":\"1.0.0\",\"module\":\"gate-providers/example.mjs\","
	    "\"description\":\"d\",\"reviewFile\":\"r.json\"}]}",
	    "gateProviders[1].module: module \"gate-providers/example.mjs\" is "
	    "declared twice (also gateProviders[0])", PROV_INVALID_MODULE },
};

ATF_TC_WITHOUT_HEAD(table);
ATF_TC_BODY(table, tc)
{
	struct prov_manifest	 m;
	struct prov_error	 err;
	size_t			 i;
	int			 r;

	for (i = 0; i < nitems(cases); i++) {
		memset(&err, 0, sizeof(err));
		r = prov_manifest_parse(cases[i].json, strlen(cases[i].json),
		    &m, &err);
		if (cases[i].want == NULL) {
			ATF_CHECK_MSG(r == 0, "case %zu refused: %s", i,
			    err.msg);
			continue;
		}
		TP_CHECK_ERR(r, err, cases[i].code, cases[i].want);
		ATF_CHECK_EQ_MSG(m.nentries, 0, "case %zu", i);
	}
}

ATF_TC_WITHOUT_HEAD(limits);
ATF_TC_BODY(limits, tc)
{
	struct prov_manifest	 m;
	struct prov_error	 err;
	char			*json, *t;
	int			 i;

	/* 20 entries are the most; 21 refuse. */
	json = xstrdup("{\"id\":\"x\",\"gateProviders\":[");
	for (i = 0; i < 21; i++) {
		xasprintf(&t, "%s%s{\"id\":\"a.b/v%d\",\"version\":\"1.0.0\","
		    "\"module\":\"m%d.mjs\",\"description\":\"d\","
		    "\"reviewFile\":\"r.json\"}", json, i ? "," : "", i, i);
		free(json);
		json = t;
		if (i == 19) {
			xasprintf(&t, "%s]}", json);
			ATF_CHECK_MSG(prov_manifest_parse(t, strlen(t), &m,
			    &err) == 0, "%s", err.msg);
			ATF_CHECK_EQ(m.nentries, 20);
			ATF_CHECK_STREQ(m.entries[19].module, "m19.mjs");
			free(t);
		}
	}
	xasprintf(&t, "%s]}", json);
	TP_CHECK_ERR(prov_manifest_parse(t, strlen(t), &m, &err), err,
	    PROV_INVALID_MODULE, "gateProviders: at most 20 entries");
	free(t);
	free(json);

	/* Lengths count UTF-16 code units, as the reference's schema does. */
	json = xmalloc(2048);
	snprintf(json, 2048, ENTRY_ONLY("\"id\":\"a/%0127d\",\"version\":"
	    "\"1.0.0\",\"module\":\"a.mjs\",\"description\":\"d\","
	    "\"reviewFile\":\"r.json\""), 0);
	ATF_CHECK_MSG(prov_manifest_parse(json, strlen(json), &m, &err) == -1,
	    "129-character id accepted");
	ATF_CHECK(strstr(err.msg, "gateProviders[0].id: longer than 128") !=
	    NULL);
	snprintf(json, 2048, ENTRY_ONLY("\"id\":\"a/%0126d\",\"version\":"
	    "\"1.0.0\",\"module\":\"a.mjs\",\"description\":\"d\","
	    "\"reviewFile\":\"r.json\""), 0);
	ATF_CHECK_MSG(prov_manifest_parse(json, strlen(json), &m, &err) == 0,
	    "%s", err.msg);
	/* 512 characters of description, each three bytes of UTF-8. */
	t = xmalloc(512 * 6 + 1);
	t[0] = '\0';
	for (i = 0; i < 512; i++)
		strlcat(t, "\\u20ac", 512 * 6 + 1);
	free(json);
	xasprintf(&json, ENTRY_ONLY("\"id\":\"a/b\",\"version\":\"1.0.0\","
	    "\"module\":\"a.mjs\",\"description\":\"%s\","
	    "\"reviewFile\":\"r.json\""), t);
	ATF_CHECK_MSG(prov_manifest_parse(json, strlen(json), &m, &err) == 0,
	    "%s", err.msg);
	ATF_CHECK_EQ(strlen(m.entries[0].description), 512 * 3);
	free(json);
	xasprintf(&json, ENTRY_ONLY("\"id\":\"a/b\",\"version\":\"1.0.0\","
	    "\"module\":\"a.mjs\",\"description\":\"%sx\","
	    "\"reviewFile\":\"r.json\""), t);
	TP_CHECK_ERR(prov_manifest_parse(json, strlen(json), &m, &err), err,
	    PROV_INVALID_MODULE, "description: longer than 512 characters");
	free(json);
	free(t);

	/* 64 KiB is the cap on the file. */
	json = xmalloc(PROV_MANIFEST_MAX + 2);
	memset(json, ' ', PROV_MANIFEST_MAX + 1);
	memcpy(json, "{\"id\":\"x\"}", 10);
	ATF_CHECK_MSG(prov_manifest_parse(json, PROV_MANIFEST_MAX, &m,
	    &err) == 0, "%s", err.msg);
	TP_CHECK_ERR(prov_manifest_parse(json, PROV_MANIFEST_MAX + 1, &m,
	    &err), err, PROV_OVERSIZE, "manifest.json: more than 65536 bytes");
	free(json);
}

ATF_TC(example_manifest);
ATF_TC_HEAD(example_manifest, tc)
{
	atf_tc_set_md_var(tc, "descr", "The example bundle's manifest loads "
	    "through its directory fd, and its review file reads back");
}
ATF_TC_BODY(example_manifest, tc)
{
	struct prov_manifest	 m;
	struct prov_review	 r;
	struct prov_error	 err;
	char			 top[PATH_MAX], dir[PATH_MAX + 64];
	int			 fd;

	tp_top(tc, top, sizeof(top));
	snprintf(dir, sizeof(dir), "%s/regress/fixtures/"
	    "gates-example-extension", top);
	fd = tp_opendir(dir);
	ATF_REQUIRE_MSG(prov_manifest_load(fd, &m, &err) == 0, "%s", err.msg);
	ATF_CHECK_STREQ(m.bundle_id, "gates-example");
	ATF_REQUIRE_EQ(m.nentries, 1);
	ATF_CHECK_STREQ(m.entries[0].id, "example.count/v1");
	ATF_CHECK_STREQ(m.entries[0].version, "1.0.0");
	ATF_CHECK_STREQ(m.entries[0].module, "gate-providers/example.mjs");
	ATF_CHECK_STREQ(m.entries[0].description, "Example per-slice failure "
	    "counts for offline gate evaluation.");
	ATF_CHECK_EQ(m.entries[0].has_review, 0);
	ATF_CHECK_STREQ(m.entries[0].review_file,
	    "gate-providers/example-review.json");
	ATF_REQUIRE_MSG(prov_review_read(fd, &m.entries[0], &r, &err) == 0,
	    "%s", err.msg);
	ATF_CHECK_STREQ(r.reviewer, "Example Reviewer");
	ATF_CHECK_STREQ(r.reviewed_at, "2026-08-15T00:00:00.000Z");
	ATF_CHECK(prov_digest_ok(r.code_digest));
	close(fd);
}

ATF_TC_WITHOUT_HEAD(manifest_file);
ATF_TC_BODY(manifest_file, tc)
{
	struct prov_manifest	 m;
	struct prov_error	 err;
	int			 fd;

	tp_mkdirs("empty", 1);
	fd = tp_opendir("empty");
	TP_CHECK_ERR(prov_manifest_load(fd, &m, &err), err,
	    PROV_INVALID_MODULE, "manifest.json: cannot be opened: No such");
	close(fd);
	tp_writes("real.json", "{\"id\":\"x\"}");
	tp_mkdirs("link", 1);
	ATF_REQUIRE(symlink("../real.json", "link/manifest.json") == 0);
	fd = tp_opendir("link");
	TP_CHECK_ERR(prov_manifest_load(fd, &m, &err), err, PROV_PATH_ESCAPE,
	    "manifest.json: cannot be opened");
	close(fd);
	tp_mkdirs("dir/manifest.json", 1);
	fd = tp_opendir("dir");
	TP_CHECK_ERR(prov_manifest_load(fd, &m, &err), err,
	    PROV_INVALID_MODULE, "manifest.json: not a regular file");
	close(fd);
}

/* A one-entry manifest at b/ with a review file r/review.json. */
static void
review_bundle(struct prov_entry *e)
{
	memset(e, 0, sizeof(*e));
	strlcpy(e->id, "a.b/v1", sizeof(e->id));
	strlcpy(e->review_file, "r/review.json", sizeof(e->review_file));
	tp_mkdirs("b/r", 1);
}

ATF_TC_WITHOUT_HEAD(review_files);
ATF_TC_BODY(review_files, tc)
{
	struct prov_entry	 e;
	struct prov_review	 r;
	struct prov_error	 err;
	int			 fd;

	review_bundle(&e);
	fd = tp_opendir("b");
	TP_CHECK_ERR(prov_review_read(fd, &e, &r, &err), err,
	    PROV_MISSING_ATTESTATION, "provider a.b/v1: review file "
	    "r/review.json: cannot be opened: No such file");
	tp_writes("b/r/review.json", INLINE_REVIEW);
	ATF_CHECK_MSG(prov_review_read(fd, &e, &r, &err) == 0, "%s", err.msg);
	ATF_CHECK_STREQ(r.reviewer, "R");
	tp_writes("b/r/review.json", "{\"reviewer\":\"R\"");
	TP_CHECK_ERR(prov_review_read(fd, &e, &r, &err), err,
	    PROV_MISSING_ATTESTATION,
	    "review file r/review.json: invalid JSON");
	tp_writes("b/r/review.json", "{\"reviewer\":\"R\",\"reviewedAt\":"
	    "\"2026-08-15T00:00:00Z\",\"codeDigest\":\"" DIGEST_A "\","
	    "\"extra\":true}");
	TP_CHECK_ERR(prov_review_read(fd, &e, &r, &err), err,
	    PROV_MISSING_ATTESTATION, "r/review.json.extra: unknown field");
	tp_writes("b/r/review.json", "[]");
	TP_CHECK_ERR(prov_review_read(fd, &e, &r, &err), err,
	    PROV_MISSING_ATTESTATION, "r/review.json: must be an object");
	tp_fill("b/r/review.json", PROV_REVIEW_FILE_MAX + 1, ' ');
	TP_CHECK_ERR(prov_review_read(fd, &e, &r, &err), err, PROV_OVERSIZE,
	    "r/review.json: more than 8192 bytes");
	ATF_REQUIRE(unlink("b/r/review.json") == 0);
	tp_writes("b/elsewhere.json", INLINE_REVIEW);
	ATF_REQUIRE(symlink("../elsewhere.json", "b/r/review.json") == 0);
	TP_CHECK_ERR(prov_review_read(fd, &e, &r, &err), err,
	    PROV_PATH_ESCAPE, "symlink or escape from the bundle root");
	ATF_REQUIRE(unlink("b/r/review.json") == 0);
	tp_mkdirs("b/r/review.json", 1);
	TP_CHECK_ERR(prov_review_read(fd, &e, &r, &err), err,
	    PROV_MISSING_ATTESTATION, "r/review.json: not a regular file");
	strlcpy(e.review_file, "../x.json", sizeof(e.review_file));
	TP_CHECK_ERR(prov_review_read(fd, &e, &r, &err), err,
	    PROV_PATH_ESCAPE,
	    "review file is not a bundle-relative .json path");
	close(fd);
}

ATF_TC_WITHOUT_HEAD(review_consistency);
ATF_TC_BODY(review_consistency, tc)
{
	struct prov_review	 r;
	struct prov_error	 err;
	int64_t			 at;

	memset(&r, 0, sizeof(r));
	strlcpy(r.reviewer, "R", sizeof(r.reviewer));
	strlcpy(r.reviewed_at, "2026-08-15T00:00:00.000Z",
	    sizeof(r.reviewed_at));
	strlcpy(r.code_digest, DIGEST_A, sizeof(r.code_digest));
	ATF_CHECK(prov_review_check(&r, "a.b/v1", DIGEST_A, NOW_MS, &err) == 0);
	ATF_REQUIRE(prov_datetime_zod(r.reviewed_at, &at) == 0);
	ATF_CHECK_EQ(at, 1786752000000LL);
	/* Reviewed this very millisecond: fine; one later: the future. */
	ATF_CHECK(prov_review_check(&r, "a.b/v1", DIGEST_A, at, &err) == 0);
	TP_CHECK_ERR(prov_review_check(&r, "a.b/v1", DIGEST_A, at - 1, &err),
	    err, PROV_MISSING_ATTESTATION, "provider a.b/v1: review date "
	    "2026-08-15T00:00:00.000Z is in the future");
	TP_CHECK_ERR(prov_review_check(&r, "a.b/v1", "sha256:0000000000000000"
	    "000000000000000000000000000000000000000000000000", NOW_MS, &err),
	    err, PROV_ATTESTATION_MISMATCH, "provider a.b/v1: the in-bundle "
	    "review covers " DIGEST_A ", the snapshot is sha256:0000");
}

ATF_TC_WITHOUT_HEAD(datetimes);
ATF_TC_BODY(datetimes, tc)
{
	static const struct {
		const char	*s;
		int		 zod, es;
		int64_t		 ms;	/* zod */
	} t[] = {
		{ "2026-08-15T00:00:00.000Z", 1, 1, 1786752000000LL },
		{ "2026-08-15T00:00:00Z", 1, 1, 1786752000000LL },
		{ "2026-08-15T12:34:56.7Z", 1, 1, 1786797296700LL },
		{ "2026-08-15T12:34:56.123456Z", 1, 1, 1786797296123LL },
		{ "2024-02-29T23:59:59Z", 1, 1, 1709251199000LL },
		{ "1969-12-31T23:59:59.999Z", 1, 1, -1LL },
		{ "0000-01-01T00:00:00Z", 1, 1, -62167219200000LL },
		{ "2026-08-15", 0, 1, 0 },
		{ "2026-08", 0, 1, 0 },
		{ "2026", 0, 1, 0 },
		{ "2026-08-15T10:00", 0, 1, 0 },
		{ "2026-08-15T10:00Z", 0, 1, 0 },
		{ "2026-08-15T00:00:00+02:00", 0, 1, 0 },
		{ "2026-08-15T00:00:00-23:59", 0, 1, 0 },
		{ "+002026-08-15T00:00:00Z", 0, 1, 0 },
		{ "-000001-01-01T00:00:00Z", 0, 1, 0 },
		{ "2026-08-15T24:00:00Z", 0, 1, 0 },
		{ "2026-08-15T24:00:01Z", 0, 0, 0 },
		{ "2026-02-29T00:00:00Z", 0, 0, 0 },
		{ "1900-02-29", 0, 0, 0 },
		{ "2026-13-01", 0, 0, 0 },
		{ "2026-00-01", 0, 0, 0 },
		{ "2026-08-00", 0, 0, 0 },
		{ "2026-08-32", 0, 0, 0 },
		{ "2026-08-15T00:60:00Z", 0, 0, 0 },
		{ "2026-08-15T00:00:60Z", 0, 0, 0 },
		{ "2026-08-15T00:00:00.Z", 0, 0, 0 },
		{ "2026-08-15t00:00:00z", 0, 0, 0 },
		{ "2026-08-15 00:00:00Z", 0, 0, 0 },
		{ "2026-08-15T00:00:00+24:00", 0, 0, 0 },
		{ "2026-08-15T00:00:00+0200", 0, 0, 0 },
		{ "-000000-01-01T00:00:00Z", 0, 0, 0 },
		{ "+275760-09-13T00:00:00Z", 0, 0, 0 },
		{ " 2026-08-15", 0, 0, 0 },
		{ "not-a-date", 0, 0, 0 },
		{ "", 0, 0, 0 },
	};
	size_t	 i;
	int64_t	 ms;

	for (i = 0; i < nitems(t); i++) {
		ATF_CHECK_EQ_MSG(prov_datetime_zod(t[i].s, &ms) == 0, t[i].zod,
		    "zod %s", t[i].s);
		if (t[i].zod)
			ATF_CHECK_EQ_MSG(ms, t[i].ms, "ms of %s", t[i].s);
		ATF_CHECK_EQ_MSG(prov_datetime_es(t[i].s) == 0, t[i].es,
		    "es %s", t[i].s);
	}
}

/* Copy the example bundle to ./ex and load its allowlist. */
static int
example_copy(const atf_tc_t *tc, struct prov_manifest *m,
    struct prov_allowlist *al)
{
	struct prov_error	 err;
	char			 top[PATH_MAX], src[PATH_MAX + 64], *out;
	unsigned char		*buf;
	size_t			 len, outlen;
	const char		*argv[5];
	int			 fd, afd, st;

	tp_top(tc, top, sizeof(top));
	snprintf(src, sizeof(src), "%s/regress/fixtures/"
	    "gates-example-extension", top);
	argv[0] = "/bin/cp";
	argv[1] = "-R";
	argv[2] = src;
	argv[3] = "ex";
	argv[4] = NULL;
	st = tp_run(argv, NULL, 0, &out, &outlen);
	free(out);
	ATF_REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	fd = tp_opendir("ex");
	ATF_REQUIRE_MSG(prov_manifest_load(fd, m, &err) == 0, "%s", err.msg);
	ATF_REQUIRE((afd = open("ex/providers.json", O_RDONLY)) != -1);
	ATF_REQUIRE(read_bounded(afd, PROV_ALLOWLIST_MAX, &buf,
	    &len) == 0);
	close(afd);
	ATF_REQUIRE_MSG(prov_allowlist_parse(buf, len, al, &err) == 0, "%s",
	    err.msg);
	free(buf);
	return fd;
}

ATF_TC(load_example);
ATF_TC_HEAD(load_example, tc)
{
	atf_tc_set_md_var(tc, "descr", "The example bundle loads against its "
	    "allowlist; the allowlist and review pin what the snapshot "
	    "computes");
}
ATF_TC_BODY(load_example, tc)
{
	struct prov_manifest	 m;
	struct prov_allowlist	 al;
	struct prov_loaded	 ld;
	struct prov_error	 err;
	int			 fd;

	fd = example_copy(tc, &m, &al);
	ATF_REQUIRE_MSG(prov_load_entry(fd, &m, 0, &al, NOW_MS, &ld,
	    &err) == 0, "%s", err.msg);
	ATF_CHECK_EQ(ld.snap.nmods, 2);
	ATF_CHECK_STREQ(ld.snap.mods[0].path, "gate-providers/example.mjs");
	ATF_CHECK_STREQ(ld.snap.mods[1].path, "gate-providers/helper.mjs");
	ATF_CHECK_STREQ(ld.snap.code_digest, al.v[0].code_digest);
	ATF_CHECK_STREQ(ld.snap.code_digest, ld.review.code_digest);
	ATF_CHECK_STREQ(ld.trusted.reviewer, "Example Reviewer");
	prov_snapshot_free(&ld.snap);

	TP_CHECK_ERR(prov_load_entry(fd, &m, 1, &al, NOW_MS, &ld, &err), err,
	    PROV_INVALID_MODULE, "gateProviders[1]: no such entry");
	prov_allowlist_free(&al);
	close(fd);
}

ATF_TC(load_order);
ATF_TC_HEAD(load_order, tc)
{
	atf_tc_set_md_var(tc, "descr", "Load refusals come in the reference's "
	    "order: snapshot, review digest, review date, allowlist");
}
ATF_TC_BODY(load_order, tc)
{
	struct prov_manifest	 m;
	struct prov_allowlist	 al, empty;
	struct prov_loaded	 ld;
	struct prov_error	 err;
	char			 saved[PROV_U8(PROV_REVIEWER_MAX)];
	int			 fd;

	fd = example_copy(tc, &m, &al);
	memset(&empty, 0, sizeof(empty));
	TP_CHECK_ERR(prov_load_entry(fd, &m, 0, &empty, NOW_MS, &ld, &err),
	    err, PROV_UNREGISTERED, "provider example.count/v1 is not "
	    "allowlisted for bundle gates-example: refusing registration");
	TP_CHECK_ERR(prov_load_entry(fd, &m, 0, NULL, NOW_MS, &ld, &err),
	    err, PROV_UNREGISTERED, "is not allowlisted");
	/* Before the review date, the review is not yet valid. */
	TP_CHECK_ERR(prov_load_entry(fd, &m, 0, &al, 1786752000000LL - 1, &ld,
	    &err), err, PROV_MISSING_ATTESTATION, "is in the future");
	/* The allowlist's reviewer must be the review's. */
	strlcpy(saved, al.v[0].reviewer, sizeof(saved));
	strlcpy(al.v[0].reviewer, "Mallory", sizeof(al.v[0].reviewer));
	TP_CHECK_ERR(prov_load_entry(fd, &m, 0, &al, NOW_MS, &ld, &err), err,
	    PROV_ATTESTATION_MISMATCH, "the allowlist's reviewer and review "
	    "date differ from the bundle's review");
	strlcpy(al.v[0].reviewer, saved, sizeof(al.v[0].reviewer));
	al.v[0].code_digest[10] ^= 1;
	TP_CHECK_ERR(prov_load_entry(fd, &m, 0, &al, NOW_MS, &ld, &err), err,
	    PROV_ATTESTATION_MISMATCH, "the allowlist pins");
	al.v[0].code_digest[10] ^= 1;
	/* Another bundle id: not allowlisted. */
	strlcpy(m.bundle_id, "other-bundle", sizeof(m.bundle_id));
	TP_CHECK_ERR(prov_load_entry(fd, &m, 0, &al, NOW_MS, &ld, &err), err,
	    PROV_UNREGISTERED, "for bundle other-bundle");
	strlcpy(m.bundle_id, "gates-example", sizeof(m.bundle_id));

	/* The helper edited: the review no longer covers the bytes,
	 * refused before the allowlist is consulted. */
	tp_writes("ex/gate-providers/helper.mjs", "// tweak\n");
	TP_CHECK_ERR(prov_load_entry(fd, &m, 0, &empty, NOW_MS, &ld, &err),
	    err, PROV_ATTESTATION_MISMATCH, "the in-bundle review covers");
	/* And a broken tree refuses before the review is read. */
	ATF_REQUIRE(symlink("helper.mjs", "ex/gate-providers/l.mjs") == 0);
	ATF_REQUIRE(unlink("ex/gate-providers/example-review.json") == 0);
	TP_CHECK_ERR(prov_load_entry(fd, &m, 0, &al, NOW_MS, &ld, &err), err,
	    PROV_PATH_ESCAPE, "provider example.count/v1: "
	    "gate-providers/l.mjs: must not be a symlink");
	ATF_REQUIRE(unlink("ex/gate-providers/l.mjs") == 0);
	TP_CHECK_ERR(prov_load_entry(fd, &m, 0, &al, NOW_MS, &ld, &err), err,
	    PROV_MISSING_ATTESTATION, "cannot be opened");
	prov_allowlist_free(&al);
	close(fd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, table);
	ATF_TP_ADD_TC(tp, limits);
	ATF_TP_ADD_TC(tp, example_manifest);
	ATF_TP_ADD_TC(tp, manifest_file);
	ATF_TP_ADD_TC(tp, review_files);
	ATF_TP_ADD_TC(tp, review_consistency);
	ATF_TP_ADD_TC(tp, datetimes);
	ATF_TP_ADD_TC(tp, load_example);
	ATF_TP_ADD_TC(tp, load_order);
	return atf_no_error();
}
