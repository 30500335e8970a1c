/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_common_canon: canonical JSON and digests against checked-in vectors -- the
 * records and code digests of interop.md §P2-§P3, ECMAScript number and
 * string formatting, parse errors with their offsets, and the limits.
 * regress/canon.sh compares the same code against node at test time.
 */
#include <atf-c.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* Canonical text of a JSON document, or NULL with the parse error. */
static char *
canon_of(const char *json, size_t len, struct json_error *err)
{
	struct json_value	*v;
	char			*text;
	size_t			 tlen;

	if (json_parse(json, len, NULL, &v, err) == -1)
		return NULL;
	ATF_REQUIRE_MSG(json_canonical(v, &text, &tlen) == 0,
	    "json_canonical: %s", strerror(errno));
	ATF_REQUIRE_EQ(strlen(text), tlen);
	json_free(v);
	return text;
}

static void
check_canon(const char *json, const char *want)
{
	struct json_error	 err;
	char			*got;

	got = canon_of(json, strlen(json), &err);
	if (got == NULL) {
		atf_tc_fail_nonfatal("%s: %s", json, err.msg);
		return;
	}
	ATF_CHECK_MSG(strcmp(got, want) == 0, "%s: got %s, want %s", json,
	    got, want);
	free(got);
}

static void
check_digest(const char *json, const char *want)
{
	struct json_error	 err;
	char			 got[DIGEST_STR_LEN + 1];

	if (digest_json_text(json, strlen(json), NULL, got, &err) == -1) {
		atf_tc_fail_nonfatal("%s: %s", json, err.msg);
		return;
	}
	ATF_CHECK_STREQ_MSG(got, want, "digest of %s", json);
}

/* The reference tests' flakeRecords(): 10 of slice a, then 10 of b. */
static char *
flake_records(int afail, int bfail, const char *sep)
{
	char	*s = xstrdup("["), *t;
	int	 i;

	for (i = 0; i < 20; i++) {
		xasprintf(&t, "%s%s{\"slice\":%s\"%s\",%s\"failed\":%s}", s,
		    i == 0 ? "" : ",", sep, i < 10 ? "a" : "b", sep,
		    (i < 10 ? i < afail : i - 10 < bfail) ? "true" : "false");
		free(s);
		s = t;
	}
	xasprintf(&t, "%s]", s);
	free(s);
	return t;
}

ATF_TC_WITHOUT_HEAD(records_digests);
ATF_TC_BODY(records_digests, tc)
{
	char	*r;

	check_digest("[]", "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d"
	    "8e11ba873c2f11161202b945");
	check_digest(" [ ]\n", "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab"
	    "4d8e11ba873c2f11161202b945");
	check_digest("[{\"slice\":\"a\",\"failed\":false}]", "sha256:7c9f2b02"
	    "32a4f7f63e8770a5a217a135e0cd065e08cabeeea28eb8c029493ec3");
	check_canon("[{\"slice\":\"a\",\"failed\":false}]",
	    "[{\"failed\":false,\"slice\":\"a\"}]");

	r = flake_records(0, 0, "");
	check_digest(r, "sha256:1cdc0d373ad3a1af2990c0383eb27d5791e580c92bb441"
	    "1ed1f648cda3f9b2ad");
	free(r);
	r = flake_records(0, 0, "\n\t ");
	check_digest(r, "sha256:1cdc0d373ad3a1af2990c0383eb27d5791e580c92bb441"
	    "1ed1f648cda3f9b2ad");
	free(r);
	r = flake_records(0, 1, "");
	check_digest(r, "sha256:665cbbbfe00f4c9fbd4fbeba0fe645d11750c1e6fdacc3"
	    "d90e40876d07b4e1ae");
	free(r);
}

#define EX_HASH1 "cbf7d763853153fc4970cce83df81b81c9e1d60c0580b44ca3f6c266c3596607"
#define EX_HASH2 "80ba5452bc9220216023f740d58a61d893c55e072c7d195bb26a85548a3a20e6"
#define EX_CANON "{\"externals\":[],\"files\":[" \
	"{\"path\":\"gate-providers/example.mjs\",\"sha256\":\"" EX_HASH1 "\"}," \
	"{\"path\":\"gate-providers/helper.mjs\",\"sha256\":\"" EX_HASH2 "\"}]}"
#define EX_DIGEST "sha256:76cd4dcb9af82fc27461a845254401bd66e96f8f5198cbb57c28c1f99511a590"

static void
set_str(struct json_value *v, const char *s)
{
	v->type = JSON_STRING;
	ATF_REQUIRE(json_string_from_utf8(&v->u.string, s, strlen(s)) == 0);
}

ATF_TC_WITHOUT_HEAD(code_digest_example);
ATF_TC_BODY(code_digest_example, tc)
{
	struct json_value	 root, files[2];
	struct json_member	 top[2], f[2][2];
	char			 got[DIGEST_STR_LEN + 1], *text;
	size_t			 len, i;

	/* interop.md §P2, worked example: the text as given ... */
	digest_bytes(EX_CANON, strlen(EX_CANON), got);
	ATF_CHECK_STREQ(got, EX_DIGEST);

	/* ... reached from a scrambled, spaced, escaped rendering ... */
	check_canon("{ \"files\" : [ {\"sha256\":\"" EX_HASH1 "\", \"path\":"
	    "\"gate-providers\\/example.mjs\"},\n{\"path\":\"gate-provider\\u0073"
	    "/helper.mjs\",\"sha256\":\"" EX_HASH2 "\"} ],\r\n\"externals\":[ ] }",
	    EX_CANON);
	check_digest("{\"files\":[{\"sha256\":\"" EX_HASH1 "\",\"path\":"
	    "\"gate-providers/example.mjs\"},{\"sha256\":\"" EX_HASH2 "\","
	    "\"path\":\"gate-providers/helper.mjs\"}],\"externals\":[]}",
	    EX_DIGEST);

	/* ... and from a tree built by hand, as the provider runner will. */
	memset(&root, 0, sizeof(root));
	memset(top, 0, sizeof(top));
	memset(f, 0, sizeof(f));
	memset(files, 0, sizeof(files));
	for (i = 0; i < 2; i++) {
		ATF_REQUIRE(json_string_from_utf8(&f[i][0].key, "sha256", 6) ==
		    0);
		set_str(&f[i][0].value, i == 0 ? EX_HASH1 : EX_HASH2);
		ATF_REQUIRE(json_string_from_utf8(&f[i][1].key, "path", 4) == 0);
		set_str(&f[i][1].value, i == 0 ? "gate-providers/example.mjs" :
		    "gate-providers/helper.mjs");
		files[i].type = JSON_OBJECT;
		files[i].u.object.m = f[i];
		files[i].u.object.n = 2;
	}
	ATF_REQUIRE(json_string_from_utf8(&top[0].key, "files", 5) == 0);
	top[0].value.type = JSON_ARRAY;
	top[0].value.u.array.v = files;
	top[0].value.u.array.n = 2;
	ATF_REQUIRE(json_string_from_utf8(&top[1].key, "externals", 9) == 0);
	top[1].value.type = JSON_ARRAY;
	root.type = JSON_OBJECT;
	root.u.object.m = top;
	root.u.object.n = 2;
	ATF_REQUIRE(json_canonical(&root, &text, &len) == 0);
	ATF_CHECK_STREQ(text, EX_CANON);
	free(text);
	ATF_REQUIRE(digest_json(&root, got) == 0);
	ATF_CHECK_STREQ(got, EX_DIGEST);
	for (i = 0; i < 2; i++) {
		free(f[i][0].key.u);
		free(f[i][1].key.u);
		json_value_clear(&f[i][0].value);
		json_value_clear(&f[i][1].value);
		free(top[i].key.u);
	}
}

ATF_TC_WITHOUT_HEAD(digest_bytes_known);
ATF_TC_BODY(digest_bytes_known, tc)
{
	char	 hex[DIGEST_HEX_LEN + 1], d[DIGEST_STR_LEN + 1];

	/* FIPS 180-2 test vectors. */
	digest_sha256_hex("", 0, hex);
	ATF_CHECK_STREQ(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934c"
	    "a495991b7852b855");
	digest_bytes("abc", 3, d);
	ATF_CHECK_STREQ(d, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a3961"
	    "77a9cb410ff61f20015ad");
	ATF_CHECK_EQ(strlen(d), DIGEST_STR_LEN);
}

static const struct {
	double		 v;
	const char	*want;
} numbers[] = {
	{ 0.0, "0" },
	{ -0.0, "0" },
	{ 1, "1" },
	{ -1, "-1" },
	{ 100, "100" },
	{ 0.5, "0.5" },
	{ 0.1, "0.1" },
	{ 0.1 + 0.2, "0.30000000000000004" },
	{ 4.35, "4.35" },
	{ 123.456, "123.456" },
	{ -123.456e-10, "-1.23456e-8" },
	{ 1e20, "100000000000000000000" },
	{ 123456789012345680000.0, "123456789012345680000" },
	{ 1e21, "1e+21" },
	{ 1.5e21, "1.5e+21" },
	{ 1e23, "1e+23" },
	{ 9.999999999999998e22, "9.999999999999997e+22" },
	{ 1e100, "1e+100" },
	{ -1.5e300, "-1.5e+300" },
	{ 0.000001, "0.000001" },
	{ 0.000001234, "0.000001234" },
	{ 1e-7, "1e-7" },
	{ 1.5e-7, "1.5e-7" },
	{ -1e-7, "-1e-7" },
	{ 0x1p53, "9007199254740992" },
	{ 0x1p53 + 2, "9007199254740994" },
	{ 0x1p53 - 1, "9007199254740991" },
	{ 0x1p64, "18446744073709552000" },
	{ 0x1p70, "1.1805916207174113e+21" },
	{ DBL_MAX, "1.7976931348623157e+308" },
	{ -DBL_MAX, "-1.7976931348623157e+308" },
	{ DBL_MIN, "2.2250738585072014e-308" },
	{ 0x1p-1074, "5e-324" },
	{ -0x1p-1074, "-5e-324" },
	{ 0x0.fffffffffffffp-1022, "2.225073858507201e-308" },
	{ 1.7976931348623155e308, "1.7976931348623155e+308" },
	/*
	 * Powers of two where the correctly rounded shortest candidate
	 * lies below v outside the narrow lower half-interval and the
	 * neighbour above is the answer (values from node).
	 */
	{ 0x1p89, "6.189700196426902e+26" },
	{ 0x1p976, "6.386688990511104e+293" },
	{ 0x1p-44, "5.684341886080802e-14" },
	{ 0x1p-1017, "7.120236347223045e-307" },
	{ -0x1p-1007, "-7.291122019556398e-304" },
	/* Powers of two where the plain candidate is right. */
	{ 0x1p-1022, "2.2250738585072014e-308" },
	{ 0x1p1023, "8.98846567431158e+307" },
	{ 0x1p-20, "9.5367431640625e-7" },
};

ATF_TC_WITHOUT_HEAD(number_format);
ATF_TC_BODY(number_format, tc)
{
	char	 buf[JSON_NUMBER_BUFSZ];
	size_t	 i;
	int	 n;

	for (i = 0; i < nitems(numbers); i++) {
		n = json_number_format(numbers[i].v, buf, sizeof(buf));
		ATF_CHECK_MSG(n == (int)strlen(numbers[i].want) &&
		    strcmp(buf, numbers[i].want) == 0, "%a: got \"%s\" (%d), "
		    "want \"%s\"", numbers[i].v, n == -1 ? "" : buf, n,
		    numbers[i].want);
	}

	/* The reference refuses non-finite numbers; so do we. */
	errno = 0;
	ATF_CHECK_EQ(json_number_format(INFINITY, buf, sizeof(buf)), -1);
	ATF_CHECK_EQ(errno, EDOM);
	ATF_CHECK_EQ(json_number_format(-INFINITY, buf, sizeof(buf)), -1);
	ATF_CHECK_EQ(json_number_format(NAN, buf, sizeof(buf)), -1);
	ATF_CHECK_EQ(errno, EDOM);
	/* Buffer bounds are explicit. */
	errno = 0;
	ATF_CHECK_EQ(json_number_format(0.1, buf, 3), -1);
	ATF_CHECK_EQ(errno, ERANGE);
	ATF_CHECK_EQ(json_number_format(0.1, buf, 4), 3);
	ATF_CHECK_STREQ(buf, "0.1");
	ATF_CHECK_EQ(json_number_format(-0.0, buf, 1), -1);
}

ATF_TC_WITHOUT_HEAD(number_parse);
ATF_TC_BODY(number_parse, tc)
{
	struct json_error	 err;
	char			*big;

	check_canon("-0", "0");
	check_canon("[-0.0,0e5,-0E-5]", "[0,0,0]");
	check_canon("1E2", "100");
	check_canon("1e+2", "100");
	check_canon("0.1e1", "1");
	check_canon("100e-2", "1");
	check_canon("1e-400", "0");		/* underflow: JSON.parse gives 0 */
	check_canon("3e-324", "5e-324");
	check_canon("2e-324", "0");
	check_canon("123456789012345678901234567890",
	    "1.2345678901234568e+29");
	check_canon("0.30000000000000004441", "0.30000000000000004");
	check_canon("1.7976931348623158e308", "1.7976931348623157e+308");
	check_canon("9007199254740993", "9007199254740992");
	/* A long mantissa is read whole (correct rounding needs it). */
	big = xmalloc(1100);
	memcpy(big, "0.", 2);
	memset(big + 2, '0', 1000);
	strlcpy(big + 1002, "1e1005", 1100 - 1002);
	check_canon(big, "10000");
	big[0] = '[';
	big[1] = '1';
	strlcpy(big + 1002, "]", 1100 - 1002);
	ATF_CHECK(canon_of(big, strlen(big), &err) == NULL);
	ATF_CHECK_EQ(err.offset, 1);
	ATF_CHECK_STREQ(err.reason, "number out of range");
	free(big);
}

ATF_TC_WITHOUT_HEAD(string_escapes);
ATF_TC_BODY(string_escapes, tc)
{
	/* Named escapes, as JSON.stringify writes them. */
	check_canon("\"\\b\\f\\n\\r\\t\\\"\\\\\"", "\"\\b\\f\\n\\r\\t\\\"\\\\\"");
	check_canon("\"\\u0008\\u000C\\u000a\\u000D\\u0009\\u0022\\u005c\"",
	    "\"\\b\\f\\n\\r\\t\\\"\\\\\"");
	/* Other controls: lowercase \u00xx. */
	check_canon("\"\\u0000\\u0001\\u001F\\u000b\\u001e\"",
	    "\"\\u0000\\u0001\\u001f\\u000b\\u001e\"");
	/* "/" and DEL are written raw. */
	check_canon("\"\\/a/\"", "\"/a/\"");
	check_canon("\"\\u007f\"", "\"\x7f\"");
	check_canon("\"\\u0041\\u0062\"", "\"Ab\"");
	/* Non-ASCII raw UTF-8, whether it came escaped or raw. */
	check_canon("\"\\u00e9\\u00E9\xc3\xa9\"", "\"\xc3\xa9\xc3\xa9\xc3\xa9\"");
	check_canon("\"\\u20ac\\u2028\\u2029\\ufeff\\uffff\"",
	    "\"\xe2\x82\xac\xe2\x80\xa8\xe2\x80\xa9\xef\xbb\xbf\xef\xbf\xbf\"");
	/* Astral: a surrogate pair is one code point, written raw. */
	check_canon("\"\\ud83d\\ude00\"", "\"\xf0\x9f\x98\x80\"");
	check_canon("\"\xf0\x9f\x98\x80\"", "\"\xf0\x9f\x98\x80\"");
	check_canon("\"\\uDBFF\\uDFFF\"", "\"\xf4\x8f\xbf\xbf\"");
	check_canon("\"\xf0\x90\x80\x80\"", "\"\xf0\x90\x80\x80\"");
	/* Lone surrogates survive, lowercase (well-formed JSON.stringify). */
	check_canon("\"\\uD800\"", "\"\\ud800\"");
	check_canon("\"\\uDC00\"", "\"\\udc00\"");
	check_canon("\"\\ude00\\ud83d\"", "\"\\ude00\\ud83d\"");
	check_canon("\"\\ud83d x\"", "\"\\ud83d x\"");
	check_canon("\"x\\ud83d\"", "\"x\\ud83d\"");
	check_canon("\"\\ud83d\\ud83d\\ude00\"",
	    "\"\\ud83d\xf0\x9f\x98\x80\"");
	check_canon("\"\\udfff\\udbff\"", "\"\\udfff\\udbff\"");
	/* Escapes in keys are the same strings. */
	check_canon("{\"\\u0000\":1,\"\\ud800\":2}",
	    "{\"\\u0000\":1,\"\\ud800\":2}");
}

ATF_TC_WITHOUT_HEAD(key_order);
ATF_TC_BODY(key_order, tc)
{
	check_canon("{\"b\":1,\"a\":2,\"aa\":3,\"A\":4,\"\":5}",
	    "{\"\":5,\"A\":4,\"a\":2,\"aa\":3,\"b\":1}");
	/* Strings, not JS integer-key enumeration order. */
	check_canon("{\"10\":1,\"9\":2,\"1\":3}", "{\"1\":3,\"10\":1,\"9\":2}");
	/* UTF-16 code units: U+1F600 (D83D DE00) sorts before U+FFFF,
	 * the reverse of code point order; U+00E9 before both. */
	check_canon("{\"\\uffff\":1,\"\\ud83d\\ude00\":2,\"\\u00e9\":3}",
	    "{\"\xc3\xa9\":3,\"\xf0\x9f\x98\x80\":2,\"\xef\xbf\xbf\":1}");
	check_canon("{\"\\ud83d\":1,\"\\ud83d\\ude00\":2,\"\\ud83c\":3}",
	    "{\"\\ud83c\":3,\"\\ud83d\":1,\"\xf0\x9f\x98\x80\":2}");
	/* Nested objects sorted at every level; arrays keep order. */
	check_canon("{\"z\":[{\"y\":1,\"x\":2},3,{}],\"a\":{\"c\":{\"e\":1,"
	    "\"d\":2},\"b\":null}}", "{\"a\":{\"b\":null,\"c\":{\"d\":2,\"e\":1}},"
	    "\"z\":[{\"x\":2,\"y\":1},3,{}]}");
	/* Up to 8 keys are sorted on the stack, more by qsort: both
	 * sides of that line, in reverse and in shuffled order. */
	check_canon("{\"h\":8,\"g\":7,\"f\":6,\"e\":5,\"d\":4,\"c\":3,"
	    "\"b\":2,\"a\":1}", "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,"
	    "\"e\":5,\"f\":6,\"g\":7,\"h\":8}");
	check_canon("{\"i\":9,\"h\":8,\"g\":7,\"f\":6,\"e\":5,\"d\":4,"
	    "\"c\":3,\"b\":2,\"a\":1}", "{\"a\":1,\"b\":2,\"c\":3,"
	    "\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9}");
	check_canon("{\"d\":4,\"a\":1,\"g\":7,\"c\":3,\"h\":8,\"b\":2,"
	    "\"f\":6,\"e\":5}", "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,"
	    "\"e\":5,\"f\":6,\"g\":7,\"h\":8}");
	check_canon(" true ", "true");
	check_canon("null", "null");
	check_canon("false", "false");
	check_canon("\"\"", "\"\"");
}

/*
 * Containers of every size up to past the first growth of the parser's
 * element and member stacks (64): each element is there, in order.
 */
ATF_TC_WITHOUT_HEAD(slot_sizes);
ATF_TC_BODY(slot_sizes, tc)
{
	struct json_value	*v;
	struct json_error	 err;
	char			 arr[2048], obj[4096];
	size_t			 n, i, al, ol;

	for (n = 0; n <= 140; n++) {
		al = strlcpy(arr, "[", sizeof(arr));
		ol = strlcpy(obj, "{", sizeof(obj));
		for (i = 0; i < n; i++) {
			al += (size_t)snprintf(arr + al, sizeof(arr) - al,
			    "%s%zu", i > 0 ? "," : "", i);
			ol += (size_t)snprintf(obj + ol, sizeof(obj) - ol,
			    "%s\"k%03zu\":%zu", i > 0 ? "," : "", i, i);
		}
		ATF_REQUIRE(strlcat(arr, "]", sizeof(arr)) < sizeof(arr));
		ATF_REQUIRE(strlcat(obj, "}", sizeof(obj)) < sizeof(obj));
		check_canon(arr, arr);
		check_canon(obj, obj);
		ATF_REQUIRE(json_parse(obj, strlen(obj), NULL, &v, &err) == 0);
		ATF_CHECK_EQ(v->u.object.n, n);
		for (i = 0; i < v->u.object.n; i++)
			ATF_CHECK(v->u.object.m[i].value.u.number == (double)i);
		json_free(v);
	}
	/* Nested containers that move the stacks while their parents are
	 * still open, and an error deep inside them (nothing may leak). */
	check_canon("[[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,"
	    "22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,"
	    "43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,"
	    "64,65,[66,{\"b\":[67,68],\"a\":69}]],70]",
	    "[[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,"
	    "22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,"
	    "43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,"
	    "64,65,[66,{\"a\":69,\"b\":[67,68]}]],70]");
	ATF_CHECK(json_parse("[[\"a\",{\"k\":[\"b\",{\"x\":\"c\",\"y\":"
	    "[1,2,x]}]}]]", 41, NULL, &v, &err) == -1);
	ATF_CHECK_EQ(err.offset, 34);
}

ATF_TC_WITHOUT_HEAD(duplicate_keys);
ATF_TC_BODY(duplicate_keys, tc)
{
	struct json_value	*v;
	struct json_error	 err;
	const char		*doc = "{\"a\":1,\"b\":2,\"a\":3}";

	/* JSON.parse: last value wins, at the first key's position. */
	check_canon(doc, "{\"a\":3,\"b\":2}");
	ATF_REQUIRE(json_parse(doc, strlen(doc), NULL, &v, &err) == 0);
	ATF_REQUIRE_EQ(v->type, JSON_OBJECT);
	ATF_REQUIRE_EQ(v->u.object.n, 2);
	ATF_CHECK(v->u.object.m[0].key.len == 1 &&
	    v->u.object.m[0].key.u[0] == 'a');
	ATF_CHECK(v->u.object.m[0].value.type == JSON_NUMBER &&
	    v->u.object.m[0].value.u.number == 3);
	ATF_CHECK(v->u.object.m[1].key.len == 1 &&
	    v->u.object.m[1].key.u[0] == 'b');
	json_free(v);

	check_canon("{\"k\":1,\"k\":2,\"k\":3,\"k\":[4]}", "{\"k\":[4]}");
	check_canon("{\"a\":[1,{\"x\":\"y\"}],\"a\":{\"x\":1,\"x\":{}}}",
	    "{\"a\":{\"x\":{}}}");
	check_canon("{\"\\u0061\":1,\"a\":2}", "{\"a\":2}");
	check_canon("{\"b\":1,\"a\":1,\"b\":2,\"c\":0,\"a\":null}",
	    "{\"a\":null,\"b\":2,\"c\":0}");
}

ATF_TC_WITHOUT_HEAD(tree_shape);
ATF_TC_BODY(tree_shape, tc)
{
	struct json_value	*v;
	struct json_error	 err;
	const char		*doc = "[\"a\\ud800\xf0\x9f\x98\x80\",\"\\u0000z\","
				    "-2.5,[],{}]";
	const struct json_value	*a;

	ATF_REQUIRE(json_parse(doc, strlen(doc), NULL, &v, &err) == 0);
	ATF_REQUIRE_EQ(v->type, JSON_ARRAY);
	ATF_REQUIRE_EQ(v->u.array.n, 5);
	a = v->u.array.v;
	/* UTF-16 units; the lone surrogate is kept, the pair split. */
	ATF_REQUIRE_EQ(a[0].type, JSON_STRING);
	ATF_REQUIRE_EQ(a[0].u.string.len, 4);
	ATF_CHECK_EQ(a[0].u.string.u[0], 0x61);
	ATF_CHECK_EQ(a[0].u.string.u[1], 0xd800);
	ATF_CHECK_EQ(a[0].u.string.u[2], 0xd83d);
	ATF_CHECK_EQ(a[0].u.string.u[3], 0xde00);
	/* U+0000 does not end the string (cJSON would truncate here). */
	ATF_REQUIRE_EQ(a[1].u.string.len, 2);
	ATF_CHECK_EQ(a[1].u.string.u[0], 0);
	ATF_CHECK_EQ(a[1].u.string.u[1], 'z');
	ATF_CHECK(a[2].type == JSON_NUMBER && a[2].u.number == -2.5);
	ATF_CHECK(a[3].type == JSON_ARRAY && a[3].u.array.n == 0);
	ATF_CHECK(a[4].type == JSON_OBJECT && a[4].u.object.n == 0);
	json_free(v);
}

static const struct {
	const char	*in;
	size_t		 len;		/* 0: strlen */
	size_t		 offset;
	const char	*reason;
} bad[] = {
	{ "", 0, 0, "unexpected end of input (value expected)" },
	{ " \n\t\r", 0, 4, "unexpected end of input (value expected)" },
	{ "[1,]", 0, 3, "unexpected ']' (value expected)" },
	{ "[1 2]", 0, 3, "unexpected '2' (',' or ']' expected)" },
	{ "[1", 0, 2, "unexpected end of input (',' or ']' expected)" },
	{ "{\"a\" 1}", 0, 5, "unexpected '1' (':' expected)" },
	{ "{a:1}", 0, 1, "unexpected 'a' (string key expected)" },
	{ "{\"a\":1,}", 0, 7, "unexpected '}' (string key expected)" },
	{ "{\"a\":1 \"b\":2}", 0, 7, "unexpected '\"' (',' or '}' expected)" },
	{ "{\"a\":}", 0, 5, "unexpected '}' (value expected)" },
	{ "01", 0, 1, "leading zero in number" },
	{ "-01", 0, 2, "leading zero in number" },
	{ "-", 0, 1, "unexpected end of input (digit expected)" },
	{ "-a", 0, 1, "unexpected 'a' (digit expected)" },
	{ "1.", 0, 2, "unexpected end of input (digit after '.' expected)" },
	{ "1.e5", 0, 2, "unexpected 'e' (digit after '.' expected)" },
	{ "1e", 0, 2, "unexpected end of input (digit in exponent expected)" },
	{ "1e+", 0, 3, "unexpected end of input (digit in exponent expected)" },
	{ "+1", 0, 0, "unexpected '+' (value expected)" },
	{ ".5", 0, 0, "unexpected '.' (value expected)" },
	{ "NaN", 0, 0, "unexpected 'N' (value expected)" },
	{ "Infinity", 0, 0, "unexpected 'I' (value expected)" },
	{ "0x10", 0, 1, "unexpected 'x' after the JSON value" },
	{ "1e400", 0, 0, "number out of range" },
	{ "[0,-1e309]", 0, 3, "number out of range" },
	{ "tru", 0, 3, "unexpected end of input ('true' expected)" },
	{ "trUe", 0, 2, "unexpected 'U' ('true' expected)" },
	{ "nul", 0, 3, "unexpected end of input ('null' expected)" },
	{ "[falsy]", 0, 5, "unexpected 'y' ('false' expected)" },
	{ "\"abc", 0, 4, "unterminated string (opened at byte offset 0)" },
	{ "[\"a\\\"]", 0, 6, "unterminated string (opened at byte offset 1)" },
	{ "\"a\\x\"", 0, 2, "invalid escape \\ followed by 'x'" },
	{ "\"a\\U0041\"", 0, 2, "invalid escape \\ followed by 'U'" },
	{ "\"\\u12G4\"", 0, 1, "invalid \\u escape (4 hex digits expected)" },
	{ "\"\\u12\"", 0, 1, "invalid \\u escape (4 hex digits expected)" },
	{ "\"\\u", 0, 1, "invalid \\u escape (4 hex digits expected)" },
	{ "\"\\", 0, 2, "unexpected end of input (escape character expected)" },
	{ "\"a\tb\"", 0, 2, "unescaped control character 0x09 in string" },
	{ "\"a\nb\"", 0, 2, "unescaped control character 0x0a in string" },
	{ "\"\0\"", 3, 1, "unescaped control character 0x00 in string" },
	{ "\"\xc3\"", 0, 1, "invalid UTF-8 in string (byte 0xc3)" },
	{ "\"\xc0\x80\"", 0, 1, "invalid UTF-8 in string (byte 0xc0)" },
	{ "\"\xe0\x80\xaf\"", 0, 1, "invalid UTF-8 in string (byte 0xe0)" },
	{ "\"\xed\xa0\x80\"", 0, 1, "invalid UTF-8 in string (byte 0xed)" },
	{ "\"ok\xf4\x90\x80\x80\"", 0, 3, "invalid UTF-8 in string (byte 0xf4)" },
	{ "\"\xf0\x9f\x98\"", 0, 1, "invalid UTF-8 in string (byte 0xf0)" },
	{ "\"\xff\"", 0, 1, "invalid UTF-8 in string (byte 0xff)" },
	{ "\"\x80\"", 0, 1, "invalid UTF-8 in string (byte 0x80)" },
	{ "\xef\xbb\xbf[]", 0, 0, "unexpected byte 0xef (value expected)" },
	{ "[] x", 0, 3, "unexpected 'x' after the JSON value" },
	{ "[]]", 0, 2, "unexpected ']' after the JSON value" },
	{ "{} {}", 0, 3, "unexpected '{' after the JSON value" },
	{ "\"a\"\0", 4, 3, "unexpected byte 0x00 after the JSON value" },
	{ "[\n  1,\n  x]", 0, 9, "unexpected 'x' (value expected)" },
	{ "/* c */ 1", 0, 0, "unexpected '/' (value expected)" },
	{ "'a'", 0, 0, "unexpected ''' (value expected)" },
	{ "[\v]", 0, 1, "unexpected byte 0x0b (value expected)" },
	{ "\xc2\xa0" "1", 0, 0, "unexpected byte 0xc2 (value expected)" },
};

ATF_TC_WITHOUT_HEAD(parse_errors);
ATF_TC_BODY(parse_errors, tc)
{
	struct json_value	*v;
	struct json_error	 err;
	char			 msg[JSON_ERRMSG_MAX];
	size_t			 i, len;

	for (i = 0; i < nitems(bad); i++) {
		len = bad[i].len ? bad[i].len : strlen(bad[i].in);
		v = (struct json_value *)&err;	/* must be reset */
		if (json_parse(bad[i].in, len, NULL, &v, &err) == 0) {
			atf_tc_fail_nonfatal("case %zu: accepted", i);
			json_free(v);
			continue;
		}
		ATF_CHECK_MSG(v == NULL, "case %zu: out not cleared", i);
		ATF_CHECK_MSG(err.offset == bad[i].offset &&
		    strcmp(err.reason, bad[i].reason) == 0,
		    "case %zu: got offset %zu \"%s\", want %zu \"%s\"", i,
		    err.offset, err.reason, bad[i].offset, bad[i].reason);
		snprintf(msg, sizeof(msg), "invalid JSON at byte offset %zu: %s",
		    bad[i].offset, bad[i].reason);
		ATF_CHECK_STREQ_MSG(err.msg, msg, "case %zu", i);
	}
	/* A NULL error pointer is allowed. */
	ATF_CHECK_EQ(json_parse("[", 1, NULL, &v, NULL), -1);
}

/* "[[[...]]]" with n levels around a 0. */
static char *
nested(size_t n, char open, char close)
{
	char	*s;
	size_t	 i;

	s = xmalloc(2 * n + 2);
	for (i = 0; i < n; i++) {
		s[i] = open;
		s[n + 1 + i] = close;
	}
	s[n] = '0';
	s[2 * n + 1] = '\0';
	return s;
}

static int
parses(const char *s, const struct json_limits *lim, struct json_error *err)
{
	struct json_value	*v;

	if (json_parse(s, strlen(s), lim, &v, err) == -1)
		return 0;
	json_free(v);
	return 1;
}

ATF_TC_WITHOUT_HEAD(limits);
ATF_TC_BODY(limits, tc)
{
	struct json_limits	 lim;
	struct json_error	 err;
	struct json_value	*chain, *v;
	char			*s, *text;
	size_t			 i, len;

	/* Default depth: 512 levels parse, 513 do not. */
	s = nested(JSON_MAX_DEPTH_DEFAULT, '[', ']');
	ATF_CHECK(parses(s, NULL, &err));
	free(s);
	s = nested(JSON_MAX_DEPTH_DEFAULT + 1, '[', ']');
	ATF_CHECK(!parses(s, NULL, &err));
	ATF_CHECK_EQ(err.offset, JSON_MAX_DEPTH_DEFAULT);
	ATF_CHECK_STREQ(err.reason, "nesting deeper than 512");
	free(s);

	/* Explicit limits. */
	memset(&lim, 0, sizeof(lim));
	lim.max_depth = 3;
	ATF_CHECK(parses("[{\"a\":[1]}]", &lim, &err));
	ATF_CHECK(!parses("[{\"a\":[{}]}]", &lim, &err));
	ATF_CHECK_EQ(err.offset, 7);
	ATF_CHECK_STREQ(err.reason, "nesting deeper than 3");

	memset(&lim, 0, sizeof(lim));
	lim.max_bytes = 10;
	ATF_CHECK(parses("[1,2,3,45]", &lim, &err));
	ATF_CHECK(!parses("[1,2,3,456]", &lim, &err));
	ATF_CHECK_EQ(err.offset, 10);
	ATF_CHECK_STREQ(err.msg, "invalid JSON at byte offset 10: input "
	    "exceeds 10 bytes");

	memset(&lim, 0, sizeof(lim));
	lim.max_nodes = 4;
	ATF_CHECK(parses("{\"a\":[1,2]}", &lim, &err));
	ATF_CHECK(!parses("{\"a\":[1,2,3]}", &lim, &err));
	ATF_CHECK_EQ(err.offset, 10);
	ATF_CHECK_STREQ(err.reason, "more than 4 values");

	/* Whatever a caller asks, recursion stops at the hard limit. */
	memset(&lim, 0, sizeof(lim));
	lim.max_depth = (size_t)1 << 40;
	s = nested(JSON_MAX_DEPTH_LIMIT, '[', ']');
	ATF_CHECK(parses(s, &lim, &err));
	free(s);
	s = nested(JSON_MAX_DEPTH_LIMIT + 1, '[', ']');
	ATF_CHECK(!parses(s, &lim, &err));
	ATF_CHECK_EQ(err.offset, JSON_MAX_DEPTH_LIMIT);
	free(s);

	/* The deepest parsable tree canonicalises ... */
	s = nested(JSON_MAX_DEPTH_LIMIT, '[', ']');
	ATF_REQUIRE(json_parse(s, strlen(s), &lim, &v, &err) == 0);
	ATF_REQUIRE(json_canonical(v, &text, &len) == 0);
	ATF_CHECK_STREQ(text, s);
	free(text);
	json_free(v);
	free(s);
	/* ... and a deeper hand-built one is refused, not recursed. */
	chain = xcalloc(JSON_MAX_DEPTH_LIMIT + 1, sizeof(*chain));
	for (i = 0; i < JSON_MAX_DEPTH_LIMIT + 1; i++) {
		chain[i].type = JSON_ARRAY;
		if (i < JSON_MAX_DEPTH_LIMIT) {
			chain[i].u.array.v = &chain[i + 1];
			chain[i].u.array.n = 1;
		}
	}
	errno = 0;
	ATF_CHECK_EQ(json_canonical(chain, &text, &len), -1);
	ATF_CHECK_EQ(errno, ELOOP);
	ATF_CHECK(text == NULL);
	ATF_CHECK_EQ(json_canonical(&chain[1], &text, &len), 0);
	free(text);
	free(chain);

	/* Objects count toward depth too. */
	s = xstrdup("{\"a\":{\"a\":{\"a\":{}}}}");
	memset(&lim, 0, sizeof(lim));
	lim.max_depth = 3;
	ATF_CHECK(!parses(s, &lim, &err));
	ATF_CHECK_EQ(err.offset, 15);
	free(s);
}

/*
 * digest_json_text digests a top-level array element by element as it
 * parses; it must refuse what json_parse refuses, at the same offset for
 * the same reason, under every limit, and otherwise digest the same text.
 */
ATF_TC_WITHOUT_HEAD(digest_text_elements);
ATF_TC_BODY(digest_text_elements, tc)
{
	static const char	*docs[] = {
		"[]", " [ ] ", "[1]", "[1,2,3]", "[[],{}]", "[[1,[2,[3]]]]",
		"[{\"b\":1,\"a\":[true,null]},\"x\",-0,1e21]",
		"{\"a\":[1,2]}", "\"s\"", "5", "null", "[1,]", "[1 2]",
		"[1", "[", "]", "[1]]", "[1] x", "[,1]", "[\"\\ud800\"]",
		"[1e400]", "[[[[[[]]]]]]", "[{\"a\":1,\"a\":2}]", "",
		"[\"\xff\"]", "[{}, [{}], 3.5e-7 ]\n",
	};
	struct json_limits	 lim[4];
	struct json_value	*v;
	struct json_error	 e1, e2;
	char			 d1[DIGEST_STR_LEN + 1], d2[DIGEST_STR_LEN + 1];
	size_t			 i, j;
	int			 r1, r2;

	memset(lim, 0, sizeof(lim));
	lim[1].max_depth = 1;
	lim[2].max_depth = 3;
	lim[2].max_nodes = 4;
	lim[3].max_bytes = 5;
	for (j = 0; j < nitems(lim); j++) {
		for (i = 0; i < nitems(docs); i++) {
			r1 = json_parse(docs[i], strlen(docs[i]), &lim[j], &v,
			    &e1);
			if (r1 == 0) {
				ATF_REQUIRE(digest_json(v, d1) == 0);
				json_free(v);
			}
			r2 = digest_json_text(docs[i], strlen(docs[i]),
			    &lim[j], d2, &e2);
			ATF_CHECK_EQ_MSG(r1, r2, "%s, limits %zu", docs[i], j);
			if (r1 == 0 && r2 == 0)
				ATF_CHECK_STREQ_MSG(d1, d2, "%s", docs[i]);
			if (r1 == -1 && r2 == -1) {
				ATF_CHECK_EQ_MSG(e1.offset, e2.offset, "%s",
				    docs[i]);
				ATF_CHECK_STREQ(e1.msg, e2.msg);
			}
		}
	}
}

ATF_TC_WITHOUT_HEAD(hand_built_refusals);
ATF_TC_BODY(hand_built_refusals, tc)
{
	struct json_value	 obj, num;
	struct json_member	 m[2], big[10];
	struct json_string	 s;
	char			*text = NULL, d[DIGEST_STR_LEN + 1], k[1];
	size_t			 len, i;

	/* No canonical text exists for a repeated key. */
	memset(m, 0, sizeof(m));
	ATF_REQUIRE(json_string_from_utf8(&m[0].key, "k", 1) == 0);
	ATF_REQUIRE(json_string_from_utf8(&m[1].key, "k", 1) == 0);
	m[1].value.type = JSON_TRUE;
	memset(&obj, 0, sizeof(obj));
	obj.type = JSON_OBJECT;
	obj.u.object.m = m;
	obj.u.object.n = 2;
	errno = 0;
	ATF_CHECK_EQ(json_canonical(&obj, &text, &len), -1);
	ATF_CHECK_EQ(errno, EINVAL);
	ATF_CHECK_EQ(digest_json(&obj, d), -1);
	free(m[0].key.u);
	free(m[1].key.u);

	/* The same in an object sorted by qsort (more than 8 keys). */
	memset(big, 0, sizeof(big));
	for (i = 0; i < nitems(big); i++) {
		k[0] = (char)('a' + i % 9);
		ATF_REQUIRE(json_string_from_utf8(&big[i].key, k, 1) == 0);
		big[i].value.type = JSON_NULL;
	}
	obj.u.object.m = big;
	obj.u.object.n = nitems(big);
	errno = 0;
	ATF_CHECK_EQ(json_canonical(&obj, &text, &len), -1);
	ATF_CHECK_EQ(errno, EINVAL);
	obj.u.object.n = 9;		/* the first 9 keys are distinct */
	ATF_REQUIRE_EQ(json_canonical(&obj, &text, &len), 0);
	ATF_CHECK_STREQ(text, "{\"a\":null,\"b\":null,\"c\":null,"
	    "\"d\":null,\"e\":null,\"f\":null,\"g\":null,\"h\":null,"
	    "\"i\":null}");
	free(text);
	for (i = 0; i < nitems(big); i++)
		free(big[i].key.u);

	/* Non-finite numbers are refused, as the reference does. */
	memset(&num, 0, sizeof(num));
	num.type = JSON_NUMBER;
	num.u.number = NAN;
	errno = 0;
	ATF_CHECK_EQ(json_canonical(&num, &text, &len), -1);
	ATF_CHECK_EQ(errno, EDOM);
	num.u.number = INFINITY;
	ATF_CHECK_EQ(digest_json(&num, d), -1);

	/* UTF-8 decoding for hand-built strings is as strict as the parser. */
	errno = 0;
	ATF_CHECK_EQ(json_string_from_utf8(&s, "a\xed\xa0\x80", 4), -1);
	ATF_CHECK_EQ(errno, EILSEQ);
	ATF_CHECK_EQ(json_string_from_utf8(&s, "\xc0\xaf", 2), -1);
	ATF_CHECK_EQ(json_string_from_utf8(&s, "\xf0\x9f\x98", 3), -1);
	ATF_REQUIRE_EQ(json_string_from_utf8(&s, "\xf0\x9f\x98\x80\0", 5), 0);
	ATF_REQUIRE_EQ(s.len, 3);
	ATF_CHECK(s.u[0] == 0xd83d && s.u[1] == 0xde00 && s.u[2] == 0);
	free(s.u);
	ATF_REQUIRE_EQ(json_string_from_utf8(&s, "", 0), 0);
	ATF_CHECK(s.len == 0 && s.u == NULL);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, records_digests);
	ATF_TP_ADD_TC(tp, code_digest_example);
	ATF_TP_ADD_TC(tp, digest_bytes_known);
	ATF_TP_ADD_TC(tp, number_format);
	ATF_TP_ADD_TC(tp, number_parse);
	ATF_TP_ADD_TC(tp, string_escapes);
	ATF_TP_ADD_TC(tp, key_order);
	ATF_TP_ADD_TC(tp, slot_sizes);
	ATF_TP_ADD_TC(tp, duplicate_keys);
	ATF_TP_ADD_TC(tp, tree_shape);
	ATF_TP_ADD_TC(tp, parse_errors);
	ATF_TP_ADD_TC(tp, limits);
	ATF_TP_ADD_TC(tp, digest_text_elements);
	ATF_TP_ADD_TC(tp, hand_built_refusals);
	return atf_no_error();
}
