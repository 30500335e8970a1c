/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * admit.c: admitEntry (interop.md §P2), the limits every digested
 * document passes before anything reads it, and artifactDigest.
 *
 * Threat: a document sized to make every later step (schema checks,
 * composition, the report) expensive.  The limits are the reference's, in
 * its order, so a document one side admits the other admits too; the
 * time budget is not needed here because every check is linear.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "gates.h"

struct admit {
	size_t			 entries;
	size_t			 props;
	size_t			 bytes;
	const char		*reason;
};

static int
refuse(struct admit *a, const char *reason)
{
	a->reason = reason;
	return -1;
}

/* UTF-8 bytes of JSON.stringify(s) (quotes and escapes included). */
static size_t
string_json_bytes(const struct json_string *s)
{
	size_t		 i, n = 2;
	uint16_t	 c;

	for (i = 0; i < s->len; i++) {
		c = s->u[i];
		if (c == '"' || c == '\\' || c == '\b' || c == '\f' ||
		    c == '\n' || c == '\r' || c == '\t')
			n += 2;
		else if (c < 0x20)
			n += 6;
		else if (c < 0x80)
			n += 1;
		else if (c < 0x800)
			n += 2;
		else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s->len &&
		    s->u[i + 1] >= 0xdc00 && s->u[i + 1] <= 0xdfff) {
			n += 4;
			i++;
		} else if (c >= 0xd800 && c <= 0xdfff)
			n += 6;		/* well-formed stringify: \udXXX */
		else
			n += 3;
	}
	return n;
}

static int
add(struct admit *a, size_t n)
{
	a->bytes += n;
	if (a->bytes > GATES_ADMIT_BYTES)
		return refuse(a, "serialized-bytes");
	return 0;
}

static int
visit(struct admit *a, const struct json_value *v, size_t depth)
{
	char		 num[JSON_NUMBER_BUFSZ];
	const struct json_string *k;
	size_t		 i;
	int		 n;

	if (++a->entries > GATES_ADMIT_ENTRIES)
		return refuse(a, "entry-count");
	if (depth > GATES_ADMIT_DEPTH)
		return refuse(a, "nesting-depth");
	switch (v->type) {
	case JSON_NULL:
		return add(a, 4);
	case JSON_TRUE:
		return add(a, 4);
	case JSON_FALSE:
		return add(a, 5);
	case JSON_NUMBER:
		if ((n = json_number_format(v->u.number, num,
		    sizeof(num))) == -1)
			return refuse(a, "nonfinite-number");
		return add(a, n);
	case JSON_STRING:
		if (v->u.string.len > GATES_ADMIT_STRING)
			return refuse(a, "string-length");
		return add(a, string_json_bytes(&v->u.string));
	case JSON_ARRAY:
		if (v->u.array.n > GATES_ADMIT_ARRAY)
			return refuse(a, "array-length");
		for (i = 0; i < v->u.array.n; i++)
			if (visit(a, &v->u.array.v[i], depth + 1) == -1)
				return -1;
		return 0;
	case JSON_OBJECT:
		a->props += v->u.object.n;
		if (a->props > GATES_ADMIT_PROPS)
			return refuse(a, "property-count");
		for (i = 0; i < v->u.object.n; i++) {
			k = &v->u.object.m[i].key;
			if (json_key_is(k, "__proto__") ||
			    json_key_is(k, "prototype") ||
			    json_key_is(k, "constructor"))
				return refuse(a, "unsafe-key");
			if (add(a, string_json_bytes(k)) == -1)
				return -1;
			if (visit(a, &v->u.object.m[i].value, depth + 1) == -1)
				return -1;
		}
		return 0;
	}
	return refuse(a, "non-json-value");
}

int
gates_admit(const struct json_value *v, struct gates_error *err)
{
	struct admit	 a;

	memset(&a, 0, sizeof(a));
	if (visit(&a, v, 0) == -1)
		return gates_fail(err, GATES_E_ADMISSION,
		    "Decision entry rejected: %s", a.reason);
	return 0;
}

int
gates_digest(const struct json_value *v, char out[DIGEST_STR_LEN + 1],
    struct gates_error *err)
{
	if (gates_admit(v, err) == -1)
		return -1;
	if (digest_json(v, out) == -1)
		return gates_fail(err, GATES_E_ADMISSION,
		    "Decision entry rejected: non-json-value");
	return 0;
}
