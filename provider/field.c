/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * field.c: reading values out of trees from common/json.c for schema
 * checks.  Strings in those trees are UTF-16 code units, as JavaScript
 * sees them, so length limits count what the reference's Zod schemas
 * count; we convert to C strings only after refusing what a C string
 * cannot hold faithfully (U+0000 would silently shorten a compared
 * reviewer name; a lone surrogate has no UTF-8 form).
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "provider.h"

int
prov_digest_ok(const char *s)
{
	size_t	 i, plen = sizeof(DIGEST_PREFIX) - 1;

	if (strncmp(s, DIGEST_PREFIX, plen) != 0)
		return 0;
	for (i = 0; i < DIGEST_HEX_LEN; i++) {
		if (!((s[plen + i] >= '0' && s[plen + i] <= '9') ||
		    (s[plen + i] >= 'a' && s[plen + i] <= 'f')))
			return 0;
	}
	return s[plen + DIGEST_HEX_LEN] == '\0';
}

/* Encode units as UTF-8 into dst (NUL-terminated): bytes, or -1. */
static int
units_utf8(const struct json_string *s, char *dst, size_t dstsz,
    const char **why)
{
	size_t		 i, n = 0, need;
	uint32_t	 c, lo;
	char		 t[4];

	for (i = 0; i < s->len; i++) {
		c = s->u[i];
		if (c == 0) {
			*why = "must not contain U+0000";
			return -1;
		}
		if (c >= 0xd800 && c <= 0xdbff && i + 1 < s->len &&
		    (lo = s->u[i + 1]) >= 0xdc00 && lo <= 0xdfff) {
			c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
			i++;
		} else if (c >= 0xd800 && c <= 0xdfff) {
			*why = "must not contain a lone surrogate";
			return -1;
		}
		if (c < 0x80) {
			t[0] = (char)c;
			need = 1;
		} else if (c < 0x800) {
			t[0] = (char)(0xc0 | (c >> 6));
			t[1] = (char)(0x80 | (c & 0x3f));
			need = 2;
		} else if (c < 0x10000) {
			t[0] = (char)(0xe0 | (c >> 12));
			t[1] = (char)(0x80 | ((c >> 6) & 0x3f));
			t[2] = (char)(0x80 | (c & 0x3f));
			need = 3;
		} else {
			t[0] = (char)(0xf0 | (c >> 18));
			t[1] = (char)(0x80 | ((c >> 12) & 0x3f));
			t[2] = (char)(0x80 | ((c >> 6) & 0x3f));
			t[3] = (char)(0x80 | (c & 0x3f));
			need = 4;
		}
		if (dstsz - n <= need) {
			*why = "is too long";
			return -1;
		}
		memcpy(dst + n, t, need);
		n += need;
	}
	dst[n] = '\0';
	return (int)n;
}

int
prov_json_cstr(const struct json_string *s, size_t maxunits, char *dst,
    size_t dstsz, const char **why)
{
	static const char	*ignored;

	if (why == NULL)
		why = &ignored;
	if (dstsz == 0) {
		*why = "is too long";
		return -1;
	}
	dst[0] = '\0';
	if (s->len > maxunits) {
		*why = "is too long";
		return -1;
	}
	if (units_utf8(s, dst, dstsz, why) == -1) {
		dst[0] = '\0';		/* never a half-written string */
		return -1;
	}
	return 0;
}

/*
 * A JSON string for a message: printable ASCII as is, every other code
 * unit as a \uXXXX escape (so text holding controls, U+0000 or lone
 * surrogates is still shown faithfully and cannot forge a log line), at
 * most maxunits units and never past dst; "..." marks a cut.
 */
void
prov_json_quote(char *dst, size_t dstsz, const struct json_string *s,
    size_t maxunits)
{
	size_t	 i, n = 0, need;

	if (dstsz < 4) {
		if (dstsz > 0)
			dst[0] = '\0';
		return;
	}
	for (i = 0; i < s->len && i < maxunits; i++) {
		need = s->u[i] >= 0x20 && s->u[i] < 0x7f &&
		    s->u[i] != '\\' ? 1 : 6;
		if (n + need + 4 > dstsz)
			break;
		if (need == 1)
			dst[n++] = (char)s->u[i];
		else
			n += (size_t)snprintf(dst + n, dstsz - n, "\\u%04x",
			    s->u[i]);
	}
	dst[n] = '\0';
	if (i < s->len)
		strlcat(dst, "...", dstsz);
}

void
prov_json_key_quote(char dst[PROV_QUOTE_MAX], const struct json_string *k)
{
	prov_json_quote(dst, PROV_QUOTE_MAX, k, PROV_QUOTE_SRC_MAX);
}

/* WhiteSpace and LineTerminator of ECMAScript, which trim() removes. */
static int
js_space(uint16_t c)
{
	switch (c) {
	case 0x0009: case 0x000a: case 0x000b: case 0x000c: case 0x000d:
	case 0x0020: case 0x00a0: case 0x1680: case 0x2028: case 0x2029:
	case 0x202f: case 0x205f: case 0x3000: case 0xfeff:
		return 1;
	default:
		return c >= 0x2000 && c <= 0x200a;
	}
}

int
prov_json_blank(const struct json_string *s)
{
	size_t	 i;

	for (i = 0; i < s->len; i++)
		if (!js_space(s->u[i]))
			return 0;
	return 1;
}

/*
 * Building trees for json_canonical.  Everything is allocated with the
 * xmalloc family so json_value_clear frees a built tree like a parsed
 * one.  Keys are our own ASCII constants.
 */
void
prov_json_object(struct json_value *v, size_t n)
{
	memset(v, 0, sizeof(*v));
	v->type = JSON_OBJECT;
	v->u.object.n = n;
	v->u.object.m = n == 0 ? NULL : xcalloc(n, sizeof(*v->u.object.m));
}

void
prov_json_array(struct json_value *v, size_t n)
{
	memset(v, 0, sizeof(*v));
	v->type = JSON_ARRAY;
	v->u.array.n = n;
	v->u.array.v = n == 0 ? NULL : xcalloc(n, sizeof(*v->u.array.v));
}

/* Member i of obj gets key (len bytes of UTF-8): its value, or NULL. */
struct json_value *
prov_json_member_n(struct json_value *obj, size_t i, const char *key,
    size_t len)
{
	struct json_member	*m = &obj->u.object.m[i];

	if (json_string_from_utf8(&m->key, key, len) == -1)
		return NULL;
	m->value.type = JSON_NULL;
	return &m->value;
}

/* The same for our own ASCII key constants. */
struct json_value *
prov_json_member(struct json_value *obj, size_t i, const char *key)
{
	struct json_value	*v;

	if ((v = prov_json_member_n(obj, i, key, strlen(key))) == NULL)
		fatalx("%s: key is not UTF-8", __func__);
	return v;
}

int
prov_json_string(struct json_value *v, const char *s, size_t len)
{
	memset(v, 0, sizeof(*v));
	v->type = JSON_NULL;
	if (json_string_from_utf8(&v->u.string, s, len) == -1)
		return -1;
	v->type = JSON_STRING;
	return 0;
}

void
prov_json_number(struct json_value *v, double d)
{
	memset(v, 0, sizeof(*v));
	v->type = JSON_NUMBER;
	v->u.number = d;
}
