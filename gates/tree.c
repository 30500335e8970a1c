/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * tree.c: reading and building the json_value trees of common/json.c.
 * Strings there are UTF-16 code units as JavaScript sees them, so keys
 * and values compare the way the reference compares them; C strings are
 * made only for messages and for ids we hold on to.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates.h"

int
gates_fail(struct gates_error *err, enum gates_errkind kind,
    const char *fmt, ...)
{
	va_list	 ap;

	if (err == NULL)
		return -1;
	err->kind = kind;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void
gates_prefix(struct gates_error *err, const char *fmt, ...)
{
	char	 pre[GATES_ERRMSG_MAX], old[GATES_ERRMSG_MAX];
	va_list	 ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	strlcpy(old, err->msg, sizeof(old));
	strlcpy(err->msg, pre, sizeof(err->msg));
	strlcat(err->msg, old, sizeof(err->msg));
}

int
gt_str_is(const struct json_value *v, const char *s)
{
	return v != NULL && v->type == JSON_STRING &&
	    json_key_is(&v->u.string, s);
}

int
gt_is_obj(const struct json_value *v)
{
	return v != NULL && v->type == JSON_OBJECT;
}

int
gt_is_str(const struct json_value *v)
{
	return v != NULL && v->type == JSON_STRING;
}

int
gt_is_num(const struct json_value *v)
{
	return v != NULL && v->type == JSON_NUMBER;
}

int
gt_is_safeint(const struct json_value *v)
{
	double	 d;

	if (!gt_is_num(v))
		return 0;
	d = v->u.number;
	return isfinite(d) && floor(d) == d && fabs(d) <= 9007199254740991.0;
}

char *
gt_jstr_cstr(const struct json_string *s)
{
	char		*out, *p;
	size_t		 i;
	uint32_t	 cp;

	out = xmalloc(s->len * 3 + 1);
	p = out;
	for (i = 0; i < s->len; i++) {
		cp = s->u[i];
		if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < s->len &&
		    s->u[i + 1] >= 0xdc00 && s->u[i + 1] <= 0xdfff) {
			cp = 0x10000 + ((cp - 0xd800) << 10) +
			    (s->u[i + 1] - 0xdc00);
			i++;
		} else if ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0)
			cp = 0xfffd;	/* no C string form: never compares
					   equal to what it is not */
		if (cp < 0x80)
			*p++ = cp;
		else if (cp < 0x800) {
			*p++ = 0xc0 | (cp >> 6);
			*p++ = 0x80 | (cp & 0x3f);
		} else if (cp < 0x10000) {
			*p++ = 0xe0 | (cp >> 12);
			*p++ = 0x80 | ((cp >> 6) & 0x3f);
			*p++ = 0x80 | (cp & 0x3f);
		} else {
			*p++ = 0xf0 | (cp >> 18);
			*p++ = 0x80 | ((cp >> 12) & 0x3f);
			*p++ = 0x80 | ((cp >> 6) & 0x3f);
			*p++ = 0x80 | (cp & 0x3f);
		}
	}
	*p = '\0';
	return out;
}

char *
gt_cstr(const struct json_value *v)
{
	if (!gt_is_str(v))
		return NULL;
	return gt_jstr_cstr(&v->u.string);
}

void
gt_strlcpy(char *dst, const struct json_value *v, size_t dstsz)
{
	char	*s;

	if ((s = gt_cstr(v)) == NULL) {
		if (dstsz > 0)
			dst[0] = '\0';
		return;
	}
	strlcpy(dst, s, dstsz);
	free(s);
}

static void
copy_string(struct json_string *dst, const struct json_string *src)
{
	dst->len = src->len;
	dst->u = NULL;
	if (src->len > 0) {
		dst->u = xreallocarray(NULL, src->len, sizeof(uint16_t));
		memcpy(dst->u, src->u, src->len * sizeof(uint16_t));
	}
}

void
gt_copy(struct json_value *dst, const struct json_value *src)
{
	size_t	 i, n;

	dst->type = src->type;
	switch (src->type) {
	case JSON_NUMBER:
		dst->u.number = src->u.number;
		break;
	case JSON_STRING:
		copy_string(&dst->u.string, &src->u.string);
		break;
	case JSON_ARRAY:
		n = src->u.array.n;
		dst->u.array.n = n;
		dst->u.array.v = n ? xcalloc(n, sizeof(struct json_value)) :
		    NULL;
		for (i = 0; i < n; i++)
			gt_copy(&dst->u.array.v[i], &src->u.array.v[i]);
		break;
	case JSON_OBJECT:
		n = src->u.object.n;
		dst->u.object.n = n;
		dst->u.object.m = n ? xcalloc(n, sizeof(struct json_member)) :
		    NULL;
		for (i = 0; i < n; i++) {
			copy_string(&dst->u.object.m[i].key,
			    &src->u.object.m[i].key);
			gt_copy(&dst->u.object.m[i].value,
			    &src->u.object.m[i].value);
		}
		break;
	default:
		break;
	}
}

struct json_value *
gt_dup(const struct json_value *src)
{
	struct json_value	*v;

	v = xcalloc(1, sizeof(*v));
	gt_copy(v, src);
	return v;
}

void
gt_set_obj(struct json_value *v)
{
	memset(v, 0, sizeof(*v));
	v->type = JSON_OBJECT;
}

void
gt_set_arr(struct json_value *v)
{
	memset(v, 0, sizeof(*v));
	v->type = JSON_ARRAY;
}

struct json_value *
gt_add(struct json_value *obj, const char *key)
{
	struct json_member	*m;
	size_t			 n = obj->u.object.n;

	obj->u.object.m = xreallocarray(obj->u.object.m, n + 1, sizeof(*m));
	m = &obj->u.object.m[n];
	memset(m, 0, sizeof(*m));
	if (json_string_from_utf8(&m->key, key, strlen(key)) == -1)
		fatalx("gt_add: key is not UTF-8");
	m->value.type = JSON_NULL;
	obj->u.object.n = n + 1;
	return &m->value;
}

struct json_value *
gt_push(struct json_value *arr)
{
	struct json_value	*v;
	size_t			 n = arr->u.array.n;

	arr->u.array.v = xreallocarray(arr->u.array.v, n + 1, sizeof(*v));
	v = &arr->u.array.v[n];
	memset(v, 0, sizeof(*v));
	v->type = JSON_NULL;
	arr->u.array.n = n + 1;
	return v;
}

void
gt_set_str(struct json_value *v, const char *s)
{
	memset(v, 0, sizeof(*v));
	v->type = JSON_STRING;
	if (json_string_from_utf8(&v->u.string, s, strlen(s)) == -1)
		fatalx("gt_set_str: not UTF-8");
}

void
gt_set_num(struct json_value *v, double d)
{
	memset(v, 0, sizeof(*v));
	v->type = JSON_NUMBER;
	/* JSON has no negative zero: JSON.stringify(-0) is "0". */
	v->u.number = d == 0 ? 0 : d;
}

void
gt_set_bool(struct json_value *v, int b)
{
	memset(v, 0, sizeof(*v));
	v->type = b ? JSON_TRUE : JSON_FALSE;
}

void
gt_set_null(struct json_value *v)
{
	memset(v, 0, sizeof(*v));
	v->type = JSON_NULL;
}

int
gt_equal(const struct json_value *a, const struct json_value *b)
{
	const struct json_value	*bv;
	size_t			 i, j;

	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case JSON_NUMBER:
		return a->u.number == b->u.number;
	case JSON_STRING:
		return json_string_compare(&a->u.string, &b->u.string) == 0;
	case JSON_ARRAY:
		if (a->u.array.n != b->u.array.n)
			return 0;
		for (i = 0; i < a->u.array.n; i++)
			if (!gt_equal(&a->u.array.v[i], &b->u.array.v[i]))
				return 0;
		return 1;
	case JSON_OBJECT:
		if (a->u.object.n != b->u.object.n)
			return 0;
		for (i = 0; i < a->u.object.n; i++) {
			bv = NULL;
			for (j = 0; j < b->u.object.n; j++)
				if (json_string_compare(&a->u.object.m[i].key,
				    &b->u.object.m[j].key) == 0) {
					bv = &b->u.object.m[j].value;
					break;
				}
			if (bv == NULL || !gt_equal(&a->u.object.m[i].value, bv))
				return 0;
		}
		return 1;
	default:
		return 1;
	}
}

int
gt_in_array(const struct json_value *arr, const struct json_value *v)
{
	size_t	 i;

	for (i = 0; arr != NULL && arr->type == JSON_ARRAY &&
	    i < arr->u.array.n; i++)
		if (gt_equal(&arr->u.array.v[i], v))
			return 1;
	return 0;
}

int
gt_canon_equal(const struct json_value *a, const struct json_value *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return gt_equal(a, b);
}

int
gt_remove(struct json_value *obj, const char *key)
{
	size_t	 i;

	if (!gt_is_obj(obj))
		return 0;
	for (i = 0; i < obj->u.object.n; i++) {
		if (!json_key_is(&obj->u.object.m[i].key, key))
			continue;
		free(obj->u.object.m[i].key.u);
		json_value_clear(&obj->u.object.m[i].value);
		memmove(&obj->u.object.m[i], &obj->u.object.m[i + 1],
		    (obj->u.object.n - i - 1) * sizeof(obj->u.object.m[0]));
		obj->u.object.n--;
		return 1;
	}
	return 0;
}
