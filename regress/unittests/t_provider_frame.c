/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_provider_frame: what crosses the sandbox boundary -- the result frame
 * parser (interop.md §P5.5: one line, the right nonce, nothing before or
 * after, under the cap, a JSON object with ok: true), the inspect
 * descriptor, nonces, and the request a run writes to the driver's stdin
 * (5.3).
 */
#include "spec.h"
#include "provtest.h"

#define N "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define PFX "AIWG-RESULT " N " "
#define OKBODY "{\"ok\":true,\"result\":{\"metrics\":{}}}"

static int
frame(const char *out, size_t len, size_t cap, struct json_value **body,
    struct prov_error *err)
{
	memset(err, 0, sizeof(*err));
	return prov_frame_parse(out, len, N, cap, body, err);
}

static void
refused(const char *out, size_t len, size_t cap, const char *want)
{
	struct json_value	*body;
	struct prov_error	 err;
	int			 r;

	r = frame(out, len, cap, &body, &err);
	TP_CHECK_ERR(r, err, PROV_REJECTED, want);
	ATF_CHECK(body == NULL);
	if (r == 0)
		json_free(body);
}

#define REFUSED(lit, want) \
	refused(lit, sizeof(lit) - 1, PROV_OUTPUT_DEFAULT, want)

ATF_TC_WITHOUT_HEAD(good_frame);
ATF_TC_BODY(good_frame, tc)
{
	static const char	 out[] = PFX OKBODY "\n";
	struct json_value	*body;
	struct prov_error	 err;
	const struct json_value	*res;

	ATF_REQUIRE_EQ(PROV_FRAME_OVERHEAD, 78);
	ATF_REQUIRE_MSG(frame(out, sizeof(out) - 1, PROV_OUTPUT_DEFAULT, &body,
	    &err) == 0, "%s", err.msg);
	ATF_REQUIRE(body != NULL);
	res = json_get(body, "result");
	ATF_REQUIRE(res != NULL && res->type == JSON_OBJECT);
	ATF_CHECK(json_get(res, "metrics") != NULL);
	json_free(body);
	/* Exactly at the cap is allowed; one byte less is not. */
	ATF_CHECK(frame(out, sizeof(out) - 1, sizeof(out) - 1, &body,
	    &err) == 0);
	json_free(body);
	refused(out, sizeof(out) - 1, sizeof(out) - 2,
	    "exceeds its output cap");
}

ATF_TC_WITHOUT_HEAD(forgeries);
ATF_TC_BODY(forgeries, tc)
{
	/* Wrong nonce: one digit off, upper case, missing, too short. */
	REFUSED("AIWG-RESULT 1123456789abcdef0123456789abcdef0123456789abcdef"
	    "0123456789abcdef " OKBODY "\n", "outside its result frame (no "
	    "\"AIWG-RESULT <nonce> \" prefix)");
	REFUSED("AIWG-RESULT 0123456789ABCDEF0123456789abcdef0123456789abcdef"
	    "0123456789abcdef " OKBODY "\n", "no \"AIWG-RESULT <nonce> \"");
	REFUSED("AIWG-RESULT " OKBODY "\n", "no \"AIWG-RESULT <nonce> \"");
	REFUSED("AIWG-RESULT 0123 " OKBODY "\n", "no \"AIWG-RESULT <nonce> \"");
	REFUSED("AIWG-RESULT " N OKBODY "\n", "no \"AIWG-RESULT <nonce> \"");
	REFUSED("AIWG-RESULT  " N " " OKBODY "\n", "no \"AIWG-RESULT");
	REFUSED("aiwg-result " N " " OKBODY "\n", "no \"AIWG-RESULT");
	/* Anything before the frame. */
	REFUSED("noise" PFX OKBODY "\n", "no \"AIWG-RESULT <nonce> \"");
	REFUSED("\n" PFX OKBODY "\n", "no \"AIWG-RESULT <nonce> \"");
	REFUSED(PFX "{\"ok\":true}\n" PFX OKBODY "\n",
	    "outside its result frame (113 bytes after the first line)");
	/* Anything after it, or no end. */
	REFUSED(PFX OKBODY "\n" PFX OKBODY "\n", "bytes after the first line");
	REFUSED(PFX OKBODY "\nx",
	    "outside its result frame (no final newline)");
	REFUSED(PFX OKBODY "\nx\n", "(2 bytes after the first line)");
	REFUSED(PFX OKBODY "\n\n", "(1 bytes after the first line)");
	REFUSED(PFX OKBODY, "no final newline");
	REFUSED(PFX OKBODY "\r", "no final newline");
	REFUSED("", "no \"AIWG-RESULT <nonce> \"");
	REFUSED("AIWG-RESULT " N, "no \"AIWG-RESULT <nonce> \"");
	REFUSED(PFX, "no final newline");
	/* A NUL cannot hide the rest of the output. */
	REFUSED(PFX OKBODY "\0\n", "unreadable message");
}

ATF_TC_WITHOUT_HEAD(bodies);
ATF_TC_BODY(bodies, tc)
{
	char	*deep, *t;
	int	 i;

	REFUSED(PFX "\n", "provider returned an unreadable message: invalid "
	    "JSON at byte offset 0: unexpected end of input");
	REFUSED(PFX "{\n", "unreadable message: invalid JSON at byte offset 1");
	REFUSED(PFX "{\"ok\":true,}\n", "unreadable message");
	REFUSED(PFX "{\"ok\":true} {}\n", "unreadable message");
	REFUSED(PFX "{\"ok\":tru\xc3\xa9}\n", "unreadable message");
	REFUSED(PFX "{\"ok\":true,\"s\":\"\xff\"}\n", "invalid UTF-8");
	REFUSED(PFX "{\"ok\":true,\"n\":1e999}\n", "number out of range");
	REFUSED(PFX "[1]\n", "provider message is not an object");
	REFUSED(PFX "\"ok\"\n", "provider message is not an object");
	REFUSED(PFX "null\n", "provider message is not an object");
	REFUSED(PFX "{\"ok\":false,\"error\":\"boom\"}\n",
	    "provider rejected: boom");
	REFUSED(PFX "{\"ok\":false}\n", "provider rejected: unknown");
	REFUSED(PFX "{\"ok\":\"true\"}\n", "provider rejected: unknown");
	REFUSED(PFX "{\"ok\":1,\"error\":7}\n", "provider rejected: unknown");
	REFUSED(PFX "{\"result\":{}}\n", "provider rejected: unknown");
	/* Provider text is escaped: no raw controls reach a log. */
	REFUSED(PFX "{\"ok\":false,\"error\":\"a\\nb\\u001b[2J\\\\\"}\n",
	    "provider rejected: a\\u000ab\\u001b[2J\\u005c");
	/* Tight limits: 64 levels of nesting, not 65. */
	deep = xstrdup("");
	for (i = 0; i < 63; i++) {
		xasprintf(&t, "[%s]", deep);
		free(deep);
		deep = t;
	}
	xasprintf(&t, PFX "{\"ok\":true,\"d\":%s}\n", deep);
	{
		struct json_value	*body;
		struct prov_error	 err;

		ATF_CHECK_MSG(frame(t, strlen(t), PROV_OUTPUT_DEFAULT, &body,
		    &err) == 0, "%s", err.msg);
		json_free(body);
	}
	free(t);
	xasprintf(&t, PFX "{\"ok\":true,\"d\":[%s]}\n", deep);
	refused(t, strlen(t), PROV_OUTPUT_DEFAULT, "nesting deeper than 64");
	free(t);
	free(deep);
}

ATF_TC_WITHOUT_HEAD(long_error);
ATF_TC_BODY(long_error, tc)
{
	struct json_value	*body;
	struct prov_error	 err;
	char			*msg, *out;

	msg = xmalloc(2001);
	memset(msg, 'e', 2000);
	msg[2000] = '\0';
	xasprintf(&out, PFX "{\"ok\":false,\"error\":\"%s\"}\n", msg);
	ATF_CHECK(frame(out, strlen(out), PROV_OUTPUT_DEFAULT, &body,
	    &err) == -1);
	ATF_CHECK_STREQ(prov_code_name(err.code), "rejected");
	ATF_CHECK(strlen(err.msg) < sizeof(err.msg));
	ATF_CHECK(strstr(err.msg, "eee...") != NULL);
	free(out);
	free(msg);
}

/* Which limit a refusal names: the output cap, by the parser's own
 * check or by the driver's refusal (the reference's frame, recognised by
 * its exact words); any other rejection none. */
ATF_TC_WITHOUT_HEAD(limit_named);
ATF_TC_BODY(limit_named, tc)
{
	static const char	 capped[] = PFX "{\"ok\":false,\"error\":"
	    "\"isolated provider response exceeds the output cap\"}\n";
	static const char	 other[] = PFX "{\"ok\":false,\"error\":"
	    "\"isolated provider response exceeds the output\"}\n";
	static const char	 plain[] = PFX "{\"ok\":false,\"error\":"
	    "\"boom\"}\n";
	static const char	 ok[] = PFX OKBODY "\n";
	struct json_value	*body;
	struct prov_error	 err;

	(void)tc;
	ATF_CHECK(frame(capped, sizeof(capped) - 1, PROV_OUTPUT_DEFAULT,
	    &body, &err) == -1);
	ATF_CHECK_EQ(err.limit, SBX_LIMIT_OUTPUT);
	ATF_CHECK_STREQ(sbx_limit_name(err.limit), "output");
	ATF_CHECK(frame(other, sizeof(other) - 1, PROV_OUTPUT_DEFAULT,
	    &body, &err) == -1);
	ATF_CHECK_EQ(err.limit, 0);
	ATF_CHECK(frame(plain, sizeof(plain) - 1, PROV_OUTPUT_DEFAULT,
	    &body, &err) == -1);
	ATF_CHECK_EQ(err.limit, 0);
	ATF_CHECK(sbx_limit_name(err.limit) == NULL);
	ATF_CHECK(frame(ok, sizeof(ok) - 1, sizeof(ok) - 2, &body,
	    &err) == -1);
	ATF_CHECK_EQ(err.limit, SBX_LIMIT_OUTPUT);
	ATF_CHECK_MSG(strstr(err.msg, "exceeds its output cap") != NULL, "%s",
	    err.msg);
}

ATF_TC_WITHOUT_HEAD(bad_nonce_argument);
ATF_TC_BODY(bad_nonce_argument, tc)
{
	static const char	 out[] = PFX OKBODY "\n";
	struct json_value	*body;
	struct prov_error	 err;

	TP_CHECK_ERR(prov_frame_parse(out, sizeof(out) - 1, "abc",
	    PROV_OUTPUT_DEFAULT, &body, &err), err, PROV_REJECTED,
	    "run nonce is malformed");
	TP_CHECK_ERR(prov_frame_parse(out, sizeof(out) - 1, NULL,
	    PROV_OUTPUT_DEFAULT, &body, &err), err, PROV_REJECTED,
	    "run nonce is malformed");
	TP_CHECK_ERR(prov_frame_parse(out, sizeof(out) - 1,
	    "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef",
	    PROV_OUTPUT_DEFAULT, &body, &err), err, PROV_REJECTED,
	    "run nonce is malformed");
}

ATF_TC_WITHOUT_HEAD(nonces);
ATF_TC_BODY(nonces, tc)
{
	char	 a[PROV_NONCE_HEX + 1], b[PROV_NONCE_HEX + 1];
	size_t	 i;

	memset(a, 'x', sizeof(a));
	prov_nonce_new(a);
	prov_nonce_new(b);
	ATF_CHECK_EQ(strlen(a), PROV_NONCE_HEX);
	for (i = 0; i < PROV_NONCE_HEX; i++)
		ATF_CHECK_MSG((a[i] >= '0' && a[i] <= '9') ||
		    (a[i] >= 'a' && a[i] <= 'f'), "%s", a);
	/* 256 random bits: equal twice would be a broken generator. */
	ATF_CHECK(strcmp(a, b) != 0);
}

static const struct prov_entry *
entry(void)
{
	static struct prov_entry	 e;

	memset(&e, 0, sizeof(e));
	strlcpy(e.id, "a.b/v1", sizeof(e.id));
	strlcpy(e.version, "1.0.0", sizeof(e.version));
	return &e;
}

static int
descriptor(const char *json, struct prov_descriptor *d,
    struct prov_error *err)
{
	struct json_value	*v;
	int			 r;

	ATF_REQUIRE_MSG(json_parse(json, strlen(json), NULL, &v, NULL) == 0,
	    "%s", json);
	memset(err, 0, sizeof(*err));
	r = prov_descriptor_check(v, entry(), d, err);
	json_free(v);
	return r;
}

#define DESC(fields) "{\"ok\":true,\"descriptor\":{" fields "}}"
#define IDV "\"id\":\"a.b/v1\",\"version\":\"1.0.0\","

ATF_TC_WITHOUT_HEAD(descriptors);
ATF_TC_BODY(descriptors, tc)
{
	static const struct {
		const char	*json;
		const char	*want;
	} bad[] = {
		{ "[]", "provider a.b/v1 module is invalid: no result" },
		{ "{\"ok\":true}", "no provider descriptor" },
		{ "{\"ok\":true,\"descriptor\":[]}", "no provider descriptor" },
		{ "{\"ok\":true,\"result\":{}}",
		    "result.result: unknown field" },
		{ DESC(IDV "\"description\":\"d\",\"metrics\":{},\"x\":1"),
		    "descriptor.x: unknown field" },
		{ DESC("\"id\":\"a.b/v2\",\"version\":\"1.0.0\","
		    "\"description\":\"d\",\"metrics\":{}"),
		    "identity does not match its manifest declaration" },
		{ DESC("\"id\":\"a.b/v1\",\"version\":\"1.0.1\","
		    "\"description\":\"d\",\"metrics\":{}"),
		    "identity does not match" },
		{ DESC("\"version\":\"1.0.0\",\"description\":\"d\","
		    "\"metrics\":{}"), "identity does not match" },
		{ DESC(IDV "\"description\":\"\",\"metrics\":{}"),
		    "description must be a non-empty string" },
		{ DESC(IDV "\"description\":1,\"metrics\":{}"),
		    "description must be a non-empty string" },
		{ DESC(IDV "\"description\":\"d\",\"metrics\":[]"),
		    "metrics must be an object" },
		{ DESC(IDV "\"description\":\"d\",\"metrics\":null"),
		    "metrics must be an object" },
		{ DESC(IDV "\"description\":\"d\""),
		    "metrics must be an object" },
		{ DESC(IDV "\"description\":\"d\",\"metrics\":{\"m\":null}"),
		    "metric \"m\" must be an object" },
		{ DESC(IDV "\"description\":\"d\",\"metrics\":{\"m\":{}}"),
		    "metric \"m\": kind must be proportion, paired, scalar, "
		    "differences or evidence" },
		{ DESC(IDV "\"description\":\"d\",\"metrics\":"
		    "{\"m\":{\"kind\":\"Scalar\"}}"), "metric \"m\": kind" },
		{ DESC(IDV "\"description\":\"d\",\"metrics\":"
		    "{\"a\":{\"kind\":\"scalar\"},\"b\\n\":{\"kind\":7}}"),
		    "metric \"b\\u000a\": kind" },
	};
	struct prov_descriptor	 d;
	struct prov_error	 err;
	char			 want[DIGEST_STR_LEN + 1];
	size_t			 i;

	ATF_REQUIRE_MSG(descriptor(DESC(IDV "\"description\":\"Counts.\","
	    "\"metrics\":{\"m\":{\"kind\":\"scalar\",\"description\":\"m\"},"
	    "\"e\":{\"kind\":\"evidence\"}}"), &d, &err) == 0, "%s", err.msg);
	ATF_CHECK_STREQ(d.id, "a.b/v1");
	ATF_CHECK_STREQ(d.description, "Counts.");
	ATF_CHECK_EQ(d.nmetrics, 2);
	ATF_CHECK_STREQ(d.metrics, "{\"e\":{\"kind\":\"evidence\"},\"m\":"
	    "{\"description\":\"m\",\"kind\":\"scalar\"}}");
	/* sourceDigest = artifactDigest({id, version, metrics}). */
	digest_bytes("{\"id\":\"a.b/v1\",\"metrics\":{\"e\":{\"kind\":"
	    "\"evidence\"},\"m\":{\"description\":\"m\",\"kind\":\"scalar\"}},"
	    "\"version\":\"1.0.0\"}", 109, want);
	ATF_CHECK_STREQ(d.source_digest, want);
	prov_descriptor_free(&d);
	for (i = 0; i < nitems(bad); i++) {
		TP_CHECK_ERR(descriptor(bad[i].json, &d, &err), err,
		    PROV_INVALID_MODULE, bad[i].want);
		ATF_CHECK(d.metrics == NULL);
	}
}

/* A snapshot of b/gp/p.mjs = "x\n" (and b/gp/h.mjs when two). */
static void
small_snapshot(struct prov_snapshot *snap, int two)
{
	struct prov_error	 err;
	int			 fd;

	tp_writes("b/gp/p.mjs", "x\n");
	if (two)
		tp_writes("b/gp/h.mjs", "\"\\\t\xe2\x82\xac\x01\n");
	fd = tp_opendir("b");
	ATF_REQUIRE_MSG(prov_snapshot_take(fd, "gp/p.mjs", snap, &err) == 0,
	    "%s", err.msg);
	close(fd);
}

static void
run_init(struct prov_run *run, const struct prov_snapshot *snap)
{
	memset(run, 0, sizeof(*run));
	run->mode = PROV_INSPECT;
	run->snap = snap;
	run->issued_digest = snap->code_digest;
	run->expected_id = "a.b/v1";
	run->expected_version = "1.0.0";
	run->clock_ms = 1700000000000LL;
	run->seed = PROV_INSPECT_SEED;
	run->max_output = PROV_OUTPUT_DEFAULT;
}

ATF_TC_WITHOUT_HEAD(requests);
ATF_TC_BODY(requests, tc)
{
	static const char	 records[] =
	    "[{\"slice\":\"a\",\"failed\":false}, {\"z\":1,\"a\":[1e0]}]";
	struct prov_snapshot	 snap;
	struct prov_run		 run;
	struct prov_error	 err;
	struct json_value	*recs;
	char			*out;
	size_t			 len;

	small_snapshot(&snap, 1);
	run_init(&run, &snap);
	ATF_REQUIRE_MSG(prov_request_build(&run, N, &out, &len, &err) == 0,
	    "%s", err.msg);
	ATF_CHECK_EQ(strlen(out), len);
	ATF_CHECK_STREQ(out, N "\n{\"clockMs\":1700000000000,\"entry\":"
	    "\"gp/p.mjs\",\"expectedId\":\"a.b/v1\",\"expectedVersion\":"
	    "\"1.0.0\",\"maxOutputBytes\":1048576,\"mode\":\"inspect\","
	    "\"modules\":{\"gp/h.mjs\":\"\\\"\\\\\\t\xe2\x82\xac\\u0001\\n\","
	    "\"gp/p.mjs\":\"x\\n\"},\"seed\":1}");
	free(out);

	/* Invoke: records travel as their canonical text. */
	ATF_REQUIRE(prov_records_parse(records, sizeof(records) - 1, 0, &recs,
	    &err) == 0);
	run.mode = PROV_INVOKE;
	run.records = recs;
	run.seed = 4294967295U;
	run.clock_ms = -1;
	ATF_REQUIRE_MSG(prov_request_build(&run, N, &out, &len, &err) == 0,
	    "%s", err.msg);
	ATF_CHECK_STREQ(out, N "\n{\"clockMs\":-1,\"entry\":\"gp/p.mjs\","
	    "\"expectedId\":\"a.b/v1\",\"expectedVersion\":\"1.0.0\","
	    "\"maxOutputBytes\":1048576,\"mode\":\"invoke\",\"modules\":"
	    "{\"gp/h.mjs\":\"\\\"\\\\\\t\xe2\x82\xac\\u0001\\n\",\"gp/p.mjs\":"
	    "\"x\\n\"},\"recordsJson\":\"[{\\\"failed\\\":false,\\\"slice\\\":"
	    "\\\"a\\\"},{\\\"a\\\":[1],\\\"z\\\":1}]\",\"seed\":4294967295}");
	free(out);
	json_free(recs);

	/*
	 * The records text is spliced in quoted (request.c): it must be
	 * byte for byte what quoting it through the general UTF-16 path
	 * gives, for quotes, backslashes, escaped controls, U+2028,
	 * astral characters and lone surrogates alike.
	 */
	{
		static const char	 tricky[] = "[{\"q\":\"\\\"\\\\\","
		    "\"c\":\"\\u0001\\n\\t\",\"s\":\"\\u2028\xe2\x82\xac"
		    "\xf0\x9f\x98\x80\\ud800x\\udc00\",\"k\\\"\\\\\":"
		    "\"recordsJson\\\":\\\"\\\"\"}]";
		struct json_value	 want;
		char			*canon, *quoted;
		size_t			 clen, qlen;

		ATF_REQUIRE(prov_records_parse(tricky, sizeof(tricky) - 1,
		    0, &recs, &err) == 0);
		run.records = recs;
		ATF_REQUIRE_MSG(prov_request_build(&run, N, &out, &len,
		    &err) == 0, "%s", err.msg);
		ATF_REQUIRE(json_canonical(recs, &canon, &clen) == 0);
		memset(&want, 0, sizeof(want));
		ATF_REQUIRE(prov_json_string(&want, canon, clen) == 0);
		ATF_REQUIRE(json_canonical(&want, &quoted, &qlen) == 0);
		ATF_CHECK_MSG(memmem(out, len, quoted, qlen) != NULL,
		    "spliced records differ from %s", quoted);
		ATF_CHECK_EQ(len, strlen(out));
		free(out);
		free(canon);
		free(quoted);
		json_value_clear(&want);
		json_free(recs);
	}
	prov_snapshot_free(&snap);
}

ATF_TC_WITHOUT_HEAD(request_refusals);
ATF_TC_BODY(request_refusals, tc)
{
	struct prov_snapshot	 snap;
	struct prov_run		 run;
	struct prov_error	 err;
	struct json_value	 obj;
	char			*out, other[DIGEST_STR_LEN + 1];
	size_t			 len;

	small_snapshot(&snap, 0);
	run_init(&run, &snap);
	TP_CHECK_ERR(prov_request_build(&run, "N", &out, &len, &err), err,
	    PROV_REJECTED, "run nonce is not 64 lowercase hex digits");
	ATF_CHECK(out == NULL);
	/* The bytes sent must be the bytes issued, and pinned. */
	snap.mods[0].bytes[0] = 'y';
	TP_CHECK_ERR(prov_request_build(&run, N, &out, &len, &err), err,
	    PROV_ATTESTATION_MISMATCH, "code does not match its pinned digest");
	snap.mods[0].bytes[0] = 'x';
	ATF_CHECK(prov_request_build(&run, N, &out, &len, &err) == 0);
	free(out);
	digest_bytes("else", 4, other);
	run.pinned_digest = other;
	TP_CHECK_ERR(prov_request_build(&run, N, &out, &len, &err), err,
	    PROV_ATTESTATION_MISMATCH, "code does not match its pinned digest");
	run.pinned_digest = snap.code_digest;
	run.issued_digest = NULL;
	TP_CHECK_ERR(prov_request_build(&run, N, &out, &len, &err), err,
	    PROV_ATTESTATION_MISMATCH, "not a sha256 digest");
	run.issued_digest = snap.code_digest;
	/* Invoke needs an array of records; the clock a safe integer. */
	run.mode = PROV_INVOKE;
	TP_CHECK_ERR(prov_request_build(&run, N, &out, &len, &err), err,
	    PROV_INVALID_RECORDS, "records must be an array");
	prov_json_object(&obj, 0);
	run.records = &obj;
	TP_CHECK_ERR(prov_request_build(&run, N, &out, &len, &err), err,
	    PROV_INVALID_RECORDS, "records must be an array");
	run.mode = PROV_INSPECT;
	run.clock_ms = 9007199254740992LL;
	TP_CHECK_ERR(prov_request_build(&run, N, &out, &len, &err), err,
	    PROV_INVALID_RECORDS, "clock is not a safe integer");
	run.clock_ms = 9007199254740991LL;
	ATF_CHECK(prov_request_build(&run, N, &out, &len, &err) == 0);
	free(out);
	run.max_output = 100;
	TP_CHECK_ERR(prov_request_build(&run, N, &out, &len, &err), err,
	    PROV_INVALID_RECORDS, "output cap 100 is too small");
	run.max_output = PROV_OUTPUT_DEFAULT;
	run.expected_version = "";
	TP_CHECK_ERR(prov_request_build(&run, N, &out, &len, &err), err,
	    PROV_INVALID_MODULE, "no expected provider id and version");
	prov_snapshot_free(&snap);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, good_frame);
	ATF_TP_ADD_TC(tp, forgeries);
	ATF_TP_ADD_TC(tp, bodies);
	ATF_TP_ADD_TC(tp, long_error);
	ATF_TP_ADD_TC(tp, limit_named);
	ATF_TP_ADD_TC(tp, bad_nonce_argument);
	ATF_TP_ADD_TC(tp, nonces);
	ATF_TP_ADD_TC(tp, descriptors);
	ATF_TP_ADD_TC(tp, requests);
	ATF_TP_ADD_TC(tp, request_refusals);
	return atf_no_error();
}
