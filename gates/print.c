/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * print.c: JSON.stringify(value, null, 2) of a tree, member order kept,
 * so sbxctl prints reports and validation results byte for byte as the
 * reference's CLI does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates.h"

struct buf {
	char	*b;
	size_t	 len, cap;
};

static void
put(struct buf *b, const char *s, size_t n)
{
	size_t	 ncap;

	if (b->len + n + 1 > b->cap) {
		ncap = b->cap ? b->cap : 256;
		while (ncap < b->len + n + 1)
			ncap *= 2;
		b->b = xreallocarray(b->b, ncap, 1);
		b->cap = ncap;
	}
	memcpy(b->b + b->len, s, n);
	b->len += n;
	b->b[b->len] = '\0';
}

static void
puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void
indent(struct buf *b, size_t depth)
{
	size_t	 i;

	put(b, "\n", 1);
	for (i = 0; i < depth; i++)
		put(b, "  ", 2);
}

static void
put_string(struct buf *b, const struct json_string *s)
{
	char		 u8[8];
	size_t		 i;
	uint32_t	 c;

	put(b, "\"", 1);
	for (i = 0; i < s->len; i++) {
		c = s->u[i];
		switch (c) {
		case '"':
			puts_(b, "\\\"");
			continue;
		case '\\':
			puts_(b, "\\\\");
			continue;
		case '\b':
			puts_(b, "\\b");
			continue;
		case '\f':
			puts_(b, "\\f");
			continue;
		case '\n':
			puts_(b, "\\n");
			continue;
		case '\r':
			puts_(b, "\\r");
			continue;
		case '\t':
			puts_(b, "\\t");
			continue;
		}
		if (c < 0x20) {
			snprintf(u8, sizeof(u8), "\\u%04x", c);
			puts_(b, u8);
		} else if (c < 0x80) {
			u8[0] = c;
			put(b, u8, 1);
		} else if (c < 0x800) {
			u8[0] = 0xc0 | (c >> 6);
			u8[1] = 0x80 | (c & 0x3f);
			put(b, u8, 2);
		} else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s->len &&
		    s->u[i + 1] >= 0xdc00 && s->u[i + 1] <= 0xdfff) {
			c = 0x10000 + ((c - 0xd800) << 10) + (s->u[i + 1] - 0xdc00);
			i++;
			u8[0] = 0xf0 | (c >> 18);
			u8[1] = 0x80 | ((c >> 12) & 0x3f);
			u8[2] = 0x80 | ((c >> 6) & 0x3f);
			u8[3] = 0x80 | (c & 0x3f);
			put(b, u8, 4);
		} else if (c >= 0xd800 && c <= 0xdfff) {
			/* Well-formed JSON.stringify escapes a lone half. */
			snprintf(u8, sizeof(u8), "\\u%04x", c);
			puts_(b, u8);
		} else {
			u8[0] = 0xe0 | (c >> 12);
			u8[1] = 0x80 | ((c >> 6) & 0x3f);
			u8[2] = 0x80 | (c & 0x3f);
			put(b, u8, 3);
		}
	}
	put(b, "\"", 1);
}

static void
put_value(struct buf *b, const struct json_value *v, size_t depth)
{
	char	 num[JSON_NUMBER_BUFSZ];
	size_t	 i;

	switch (v->type) {
	case JSON_NULL:
		puts_(b, "null");
		break;
	case JSON_TRUE:
		puts_(b, "true");
		break;
	case JSON_FALSE:
		puts_(b, "false");
		break;
	case JSON_NUMBER:
		if (json_number_format(v->u.number, num, sizeof(num)) == -1)
			strlcpy(num, "null", sizeof(num));
		puts_(b, num);
		break;
	case JSON_STRING:
		put_string(b, &v->u.string);
		break;
	case JSON_ARRAY:
		if (v->u.array.n == 0) {
			puts_(b, "[]");
			break;
		}
		puts_(b, "[");
		for (i = 0; i < v->u.array.n; i++) {
			if (i > 0)
				puts_(b, ",");
			indent(b, depth + 1);
			put_value(b, &v->u.array.v[i], depth + 1);
		}
		indent(b, depth);
		puts_(b, "]");
		break;
	case JSON_OBJECT:
		if (v->u.object.n == 0) {
			puts_(b, "{}");
			break;
		}
		puts_(b, "{");
		for (i = 0; i < v->u.object.n; i++) {
			if (i > 0)
				puts_(b, ",");
			indent(b, depth + 1);
			put_string(b, &v->u.object.m[i].key);
			puts_(b, ": ");
			put_value(b, &v->u.object.m[i].value, depth + 1);
		}
		indent(b, depth);
		puts_(b, "}");
		break;
	}
}

char *
gates_print_pretty(const struct json_value *v)
{
	struct buf	 b = { NULL, 0, 0 };

	put_value(&b, v, 0);
	put(&b, "\n", 1);
	return b.b;
}
