/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * canon.c: the canonical JSON text of interop.md §P2 -- object keys sorted
 * by UTF-16 code units (the JavaScript default sort), no whitespace, arrays
 * in order, and every string and number written byte for byte as
 * ECMAScript JSON.stringify writes it.
 *
 * The text is hashed into code and records digests that must equal the
 * reference's, so one differing byte is a refused provider or a forged
 * binding that verifies.  Numbers are numfmt.c's; the test suite compares
 * both with node directly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* What a streaming writer holds back before it hands it on. */
#define CBUF_STREAM	(64 * 1024)

int
json_string_compare(const struct json_string *a, const struct json_string *b)
{
	size_t	 i, n = a->len < b->len ? a->len : b->len;

	for (i = 0; i < n; i++)
		if (a->u[i] != b->u[i])
			return a->u[i] < b->u[i] ? -1 : 1;
	if (a->len == b->len)
		return 0;
	return a->len < b->len ? -1 : 1;
}

static int	cbuf_reserve(struct json_writer *, size_t);

static int
cbuf_add(struct json_writer *cb, const void *p, size_t n)
{
	if (cbuf_reserve(cb, n) == -1)
		return -1;
	memcpy(cb->b + cb->len, p, n);
	cb->len += n;
	cb->b[cb->len] = '\0';
	return 0;
}

static int
cbuf_addc(struct json_writer *cb, char c)
{
	return cbuf_add(cb, &c, 1);
}

/* Room for n more bytes (and the NUL).  0, or -1 with errno. */
static int
cbuf_reserve(struct json_writer *cb, size_t n)
{
	size_t	 ncap;

	if (n > SIZE_MAX - 1 - cb->len) {
		errno = EOVERFLOW;
		return -1;
	}
	if (cb->len + n + 1 <= cb->cap)
		return 0;
	if (cb->sink != NULL && cb->len > 0) {
		cb->sink(cb->arg, cb->b, cb->len);
		cb->len = 0;
		if (n + 1 <= cb->cap)
			return 0;
	}
	ncap = cb->cap == 0 ? 256 : cb->cap;
	while (ncap < cb->len + n + 1) {
		if (ncap > SIZE_MAX / 2) {
			errno = EOVERFLOW;
			return -1;
		}
		ncap *= 2;
	}
	cb->b = xreallocarray(cb->b, ncap, 1);
	cb->cap = ncap;
	return 0;
}

/*
 * JSON.stringify's QuoteJSONString, well-formed variant (ES2019).
 * Records and requests run to megabytes of strings, so the worst case
 * (six bytes per code unit, "\uXXXX") is reserved once and the bytes
 * are written straight into the buffer.
 */
static int
put_string(struct json_writer *cb, const struct json_string *s)
{
	static const char	 hex[] = "0123456789abcdef";
	unsigned char		*t;
	size_t			 i;
	uint32_t		 c, lo;

	if (s->len > (SIZE_MAX - 2) / 6) {
		errno = EOVERFLOW;
		return -1;
	}
	if (cbuf_reserve(cb, 6 * s->len + 2) == -1)
		return -1;
	t = (unsigned char *)cb->b + cb->len;
	*t++ = '"';
	for (i = 0; i < s->len; i++) {
		c = s->u[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			*t++ = (unsigned char)c;
			continue;
		}
		switch (c) {
		case '"':
		case '\\':
			*t++ = '\\';
			*t++ = (unsigned char)c;
			break;
		case '\b':
			*t++ = '\\';
			*t++ = 'b';
			break;
		case '\f':
			*t++ = '\\';
			*t++ = 'f';
			break;
		case '\n':
			*t++ = '\\';
			*t++ = 'n';
			break;
		case '\r':
			*t++ = '\\';
			*t++ = 'r';
			break;
		case '\t':
			*t++ = '\\';
			*t++ = 't';
			break;
		default:
			if (c >= 0xd800 && c <= 0xdbff && i + 1 < s->len &&
			    (lo = s->u[i + 1]) >= 0xdc00 && lo <= 0xdfff) {
				c = 0x10000 + ((c - 0xd800) << 10) +
				    (lo - 0xdc00);
				i++;
				*t++ = (unsigned char)(0xf0 | (c >> 18));
				*t++ = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
				*t++ = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
				*t++ = (unsigned char)(0x80 | (c & 0x3f));
			} else if (c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) {
				/* Controls and lone surrogates. */
				*t++ = '\\';
				*t++ = 'u';
				*t++ = (unsigned char)hex[(c >> 12) & 0xf];
				*t++ = (unsigned char)hex[(c >> 8) & 0xf];
				*t++ = (unsigned char)hex[(c >> 4) & 0xf];
				*t++ = (unsigned char)hex[c & 0xf];
			} else if (c < 0x800) {
				*t++ = (unsigned char)(0xc0 | (c >> 6));
				*t++ = (unsigned char)(0x80 | (c & 0x3f));
			} else {
				*t++ = (unsigned char)(0xe0 | (c >> 12));
				*t++ = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
				*t++ = (unsigned char)(0x80 | (c & 0x3f));
			}
			break;
		}
	}
	*t++ = '"';
	cb->len = (size_t)(t - (unsigned char *)cb->b);
	cb->b[cb->len] = '\0';
	return 0;
}

static int
member_cmp(const void *a, const void *b)
{
	const struct json_member	*ma, *mb;

	ma = *(const struct json_member * const *)a;
	mb = *(const struct json_member * const *)b;
	return json_string_compare(&ma->key, &mb->key);
}

/* depth: containers around v. */
static int	put_value(struct json_writer *, const struct json_value *, size_t);

/*
 * Records are mostly small objects: up to PUT_OBJECT_SMALL members are
 * sorted on the stack by insertion, without an allocation or a qsort call
 * each (10,000 records made 10,000 of both).
 */
#define PUT_OBJECT_SMALL	8

static int
put_object(struct json_writer *cb, const struct json_value *v, size_t depth)
{
	const struct json_member	 *small[PUT_OBJECT_SMALL], **sorted;
	const struct json_member	 *m;
	size_t				  i, j, n = v->u.object.n;
	int				  r = -1;

	if (n == 0)
		return cbuf_add(cb, "{}", 2);
	if (n <= PUT_OBJECT_SMALL) {
		sorted = small;
		for (i = 0; i < n; i++) {
			m = &v->u.object.m[i];
			for (j = i; j > 0 && json_string_compare(
			    &sorted[j - 1]->key, &m->key) > 0; j--)
				sorted[j] = sorted[j - 1];
			sorted[j] = m;
		}
	} else {
		sorted = xreallocarray(NULL, n, sizeof(*sorted));
		for (i = 0; i < n; i++)
			sorted[i] = &v->u.object.m[i];
		qsort(sorted, n, sizeof(*sorted), member_cmp);
	}
	/*
	 * A hand-built tree may repeat a key; there is no canonical text
	 * for that, and picking one value would hide which one was meant.
	 */
	for (i = 1; i < n; i++) {
		if (json_string_compare(&sorted[i - 1]->key,
		    &sorted[i]->key) == 0) {
			errno = EINVAL;
			goto out;
		}
	}
	if (cbuf_addc(cb, '{') == -1)
		goto out;
	for (i = 0; i < n; i++) {
		if (i > 0 && cbuf_addc(cb, ',') == -1)
			goto out;
		if (put_string(cb, &sorted[i]->key) == -1 ||
		    cbuf_addc(cb, ':') == -1 ||
		    put_value(cb, &sorted[i]->value, depth + 1) == -1)
			goto out;
	}
	r = cbuf_addc(cb, '}');
 out:
	if (sorted != small)
		free(sorted);
	return r;
}

static int
put_value(struct json_writer *cb, const struct json_value *v, size_t depth)
{
	char	 num[JSON_NUMBER_BUFSZ];
	size_t	 i;
	int	 n;

	/* Hand-built trees have no parser limit; keep the stack bounded. */
	if ((v->type == JSON_ARRAY || v->type == JSON_OBJECT) &&
	    depth >= JSON_MAX_DEPTH_LIMIT) {
		errno = ELOOP;
		return -1;
	}
	switch (v->type) {
	case JSON_NULL:
		return cbuf_add(cb, "null", 4);
	case JSON_FALSE:
		return cbuf_add(cb, "false", 5);
	case JSON_TRUE:
		return cbuf_add(cb, "true", 4);
	case JSON_NUMBER:
		if ((n = json_number_format(v->u.number, num,
		    sizeof(num))) == -1)
			return -1;
		return cbuf_add(cb, num, (size_t)n);
	case JSON_STRING:
		return put_string(cb, &v->u.string);
	case JSON_ARRAY:
		if (cbuf_addc(cb, '[') == -1)
			return -1;
		for (i = 0; i < v->u.array.n; i++) {
			if (i > 0 && cbuf_addc(cb, ',') == -1)
				return -1;
			if (put_value(cb, &v->u.array.v[i], depth + 1) == -1)
				return -1;
		}
		return cbuf_addc(cb, ']');
	case JSON_OBJECT:
		return put_object(cb, v, depth);
	}
	errno = EINVAL;
	return -1;
}

int
json_canonical(const struct json_value *v, char **out, size_t *outlen)
{
	struct json_writer	 cb;

	memset(&cb, 0, sizeof(cb));
	*out = NULL;
	*outlen = 0;
	if (put_value(&cb, v, 0) == -1) {
		free(cb.b);
		return -1;
	}
	*out = cb.b;
	*outlen = cb.len;
	return 0;
}

/*
 * A canonical text handed to sink in pieces, never all of it in memory:
 * a digest of megabytes of records then costs no buffer of that size
 * (and no page faults to fill one).  A writer takes values (at the
 * depth they sit in the whole text, for the recursion bound) and the
 * punctuation between them.
 */
void
json_writer_open(struct json_writer *w,
    void (*sink)(void *, const void *, size_t), void *arg)
{
	memset(w, 0, sizeof(*w));
	w->b = xmalloc(CBUF_STREAM);
	w->cap = CBUF_STREAM;
	w->sink = sink;
	w->arg = arg;
}

/* 0, or -1 with errno as json_canonical. */
int
json_writer_value(struct json_writer *w, const struct json_value *v,
    size_t depth)
{
	return put_value(w, v, depth);
}

int
json_writer_raw(struct json_writer *w, const char *s, size_t n)
{
	return cbuf_add(w, s, n);
}

/* Hands on what is left (unless the text was abandoned) and frees. */
void
json_writer_close(struct json_writer *w, int abandon)
{
	if (!abandon && w->len > 0)
		w->sink(w->arg, w->b, w->len);
	free(w->b);
	memset(w, 0, sizeof(*w));
}

int
json_canonical_stream(const struct json_value *v,
    void (*sink)(void *, const void *, size_t), void *arg)
{
	struct json_writer	 w;
	int			 r;

	json_writer_open(&w, sink, arg);
	r = put_value(&w, v, 0);
	json_writer_close(&w, r == -1);
	return r;
}
