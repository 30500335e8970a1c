/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * predicate.c: DecisionPredicate over the evaluation input (interop.md
 * §G8.4): three-valued logic, RFC 6901 pointers, structural equality.  A
 * predicate can only read; anything it cannot decide is unknown, which
 * holds and never promotes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates.h"

/* Bound on nested all/any/not: the schema admits 32 levels of nesting. */
#define PRED_DEPTH_MAX	64

/* A token of the pointer, unescaped (~1 is '/', ~0 is '~'). */
static size_t
token(const uint16_t *p, size_t len, struct json_string *out)
{
	size_t	 i = 0, n = 0;

	out->u = len ? xreallocarray(NULL, len, sizeof(uint16_t)) : NULL;
	while (i < len && p[i] != '/') {
		if (p[i] == '~' && i + 1 < len && p[i + 1] == '1') {
			out->u[n++] = '/';
			i += 2;
		} else if (p[i] == '~' && i + 1 < len && p[i + 1] == '0') {
			out->u[n++] = '~';
			i += 2;
		} else
			out->u[n++] = p[i++];
	}
	out->len = n;
	return i;
}

static int
array_index(const struct json_string *t, size_t *idx)
{
	size_t	 i, v = 0;

	if (t->len == 0 || (t->u[0] == '0' && t->len > 1))
		return -1;
	for (i = 0; i < t->len; i++) {
		if (t->u[i] < '0' || t->u[i] > '9' || v > 100000000)
			return -1;
		v = v * 10 + (t->u[i] - '0');
	}
	*idx = v;
	return 0;
}

const struct json_value *
gates_json_pointer(const struct json_value *doc, const struct json_value *ptr)
{
	const struct json_value	*cur = doc, *next;
	struct json_string	 t;
	const uint16_t		*p;
	size_t			 len, used, idx, i;

	if (!gt_is_str(ptr))
		return NULL;
	p = ptr->u.string.u;
	len = ptr->u.string.len;
	if (len == 0)
		return doc;
	if (p[0] != '/')
		return NULL;
	while (len > 0 && p[0] == '/') {
		p++;
		len--;
		used = token(p, len, &t);
		p += used;
		len -= used;
		next = NULL;
		if (cur->type == JSON_ARRAY) {
			if (array_index(&t, &idx) == 0 && idx < cur->u.array.n)
				next = &cur->u.array.v[idx];
		} else if (cur->type == JSON_OBJECT) {
			for (i = 0; i < cur->u.object.n; i++)
				if (json_string_compare(&cur->u.object.m[i].key,
				    &t) == 0) {
					next = &cur->u.object.m[i].value;
					break;
				}
		}
		free(t.u);
		if (next == NULL)
			return NULL;
		cur = next;
	}
	return cur;
}

/* Object.is for leaves; arrays by order; objects by key sets. */
static int
same(const struct json_value *a, const struct json_value *b)
{
	if (a->type == JSON_NUMBER && b->type == JSON_NUMBER)
		return a->u.number == b->u.number &&
		    signbit(a->u.number) == signbit(b->u.number);
	return gt_equal(a, b);
}

static enum gates_tri
compare(const char *op, const struct json_value *l,
    const struct json_value *r)
{
	int	 c;

	if (l->type == JSON_NUMBER && r->type == JSON_NUMBER) {
		c = l->u.number < r->u.number ? -1 :
		    l->u.number > r->u.number ? 1 : 0;
	} else if (l->type == JSON_STRING && r->type == JSON_STRING)
		c = json_string_compare(&l->u.string, &r->u.string);
	else
		return GATES_UNKNOWN;
	if (strcmp(op, "lt") == 0)
		return c < 0;
	if (strcmp(op, "lte") == 0)
		return c <= 0;
	if (strcmp(op, "gt") == 0)
		return c > 0;
	return c >= 0;
}

static enum gates_tri
leaf(const struct json_value *pred, const struct json_value *input)
{
	const struct json_value	*left, *found = NULL, *right;
	char			*op;
	enum gates_tri		 t;

	left = json_get(pred, "left");
	if (gt_str_is(json_get(left, "source"), "input"))
		found = gates_json_pointer(input, json_get(left, "pointer"));
	/* Source "decision" reads decisions[alias].spec: never present. */
	if (gt_str_is(json_get(pred, "op"), "exists"))
		return found != NULL;
	if (found == NULL)
		return GATES_UNKNOWN;
	right = json_get(pred, "right");
	op = gt_cstr(json_get(pred, "op"));
	if (op == NULL)
		return GATES_UNKNOWN;
	if (strcmp(op, "eq") == 0 || strcmp(op, "ne") == 0) {
		/* right absent is undefined: never equal to a JSON value. */
		t = right != NULL && same(found, right);
		if (strcmp(op, "ne") == 0)
			t = !t;
	} else if (right == NULL)
		t = GATES_UNKNOWN;
	else
		t = compare(op, found, right);
	free(op);
	return t;
}

static enum gates_tri
eval(const struct json_value *pred, const struct json_value *input,
    size_t depth)
{
	const struct json_value	*list;
	enum gates_tri		 t, acc;
	size_t			 i;
	int			 unknown = 0;

	if (depth > PRED_DEPTH_MAX || !gt_is_obj(pred))
		return GATES_UNKNOWN;
	if ((list = json_get(pred, "all")) != NULL &&
	    list->type == JSON_ARRAY) {
		for (i = 0; i < list->u.array.n; i++) {
			t = eval(&list->u.array.v[i], input, depth + 1);
			if (t == GATES_FALSE)
				return GATES_FALSE;
			unknown |= t == GATES_UNKNOWN;
		}
		return unknown ? GATES_UNKNOWN : GATES_TRUE;
	}
	if ((list = json_get(pred, "any")) != NULL &&
	    list->type == JSON_ARRAY) {
		for (i = 0; i < list->u.array.n; i++) {
			t = eval(&list->u.array.v[i], input, depth + 1);
			if (t == GATES_TRUE)
				return GATES_TRUE;
			unknown |= t == GATES_UNKNOWN;
		}
		return unknown ? GATES_UNKNOWN : GATES_FALSE;
	}
	if (json_get(pred, "not") != NULL) {
		acc = eval(json_get(pred, "not"), input, depth + 1);
		return acc == GATES_UNKNOWN ? GATES_UNKNOWN : !acc;
	}
	if (json_get(pred, "op") != NULL)
		return leaf(pred, input);
	return GATES_UNKNOWN;
}

enum gates_tri
gates_predicate_eval(const struct json_value *pred,
    const struct json_value *input)
{
	return eval(pred, input, 0);
}
