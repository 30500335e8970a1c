/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * schema.c: the closed JSON Schemas of gate documents, checked the way the
 * reference checks them (Ajv 2020-12 with allErrors and ajv-formats), so a
 * document refused by one side is refused by the other with the same
 * message.  Only the keywords our own schemas (schemas.c) use are
 * implemented; an unknown keyword in them is a programming error.
 *
 * Ajv reports in the order of its keyword rules, not of the schema text:
 * untyped keywords ($ref, const, enum, not, anyOf, oneOf, allOf, if/then)
 * first, then the number, string, array and object groups, each in the
 * order Ajv's vocabularies define them.  A type error comes first unless
 * the schema has keywords of that type's group, in which case it takes
 * that group's place.  Messages are Ajv's English ones.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates.h"

struct sctx {
	const struct json_value	*root;
	char			*out;		/* "; "-joined errors */
	size_t			 outsz;
	size_t			 nerr;
	int			 quiet;		/* counting only */
};

struct spath {
	char	 p[1024];
	size_t	 len;
};

static int	check(struct sctx *, const struct json_value *,
		    const struct json_value *, struct spath *);

static void
report(struct sctx *c, const struct spath *path, const char *fmt, ...)
    SBX_PRINTF(3, 4);

static void
report(struct sctx *c, const struct spath *path, const char *fmt, ...)
{
	char	 msg[512];
	va_list	 ap;

	c->nerr++;
	if (c->quiet || c->out == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->out[0] != '\0')
		strlcat(c->out, "; ", c->outsz);
	strlcat(c->out, path->len ? path->p : "/", c->outsz);
	strlcat(c->out, " ", c->outsz);
	strlcat(c->out, msg, c->outsz);
}

static size_t
path_push_key(struct spath *path, const struct json_string *key)
{
	size_t	 old = path->len;
	char	*k, *s, buf[8];

	k = gt_jstr_cstr(key);
	strlcat(path->p, "/", sizeof(path->p));
	for (s = k; *s != '\0'; s++) {
		if (*s == '~')
			strlcpy(buf, "~0", sizeof(buf));
		else if (*s == '/')
			strlcpy(buf, "~1", sizeof(buf));
		else {
			buf[0] = *s;
			buf[1] = '\0';
		}
		strlcat(path->p, buf, sizeof(path->p));
	}
	free(k);
	path->len = strlen(path->p);
	return old;
}

static size_t
path_push_index(struct spath *path, size_t i)
{
	size_t	 old = path->len;
	char	 buf[32];

	snprintf(buf, sizeof(buf), "/%zu", i);
	strlcat(path->p, buf, sizeof(path->p));
	path->len = strlen(path->p);
	return old;
}

static void
path_pop(struct spath *path, size_t old)
{
	path->len = old;
	path->p[old] = '\0';
}

static const char *
jtype(const struct json_value *v)
{
	switch (v->type) {
	case JSON_NULL:
		return "null";
	case JSON_TRUE:
	case JSON_FALSE:
		return "boolean";
	case JSON_NUMBER:
		return "number";
	case JSON_STRING:
		return "string";
	case JSON_ARRAY:
		return "array";
	default:
		return "object";
	}
}

/* JavaScript's x % 1 == 0 for a finite double. */
static int
is_integer(double d)
{
	return floor(d) == d;
}

static int
type_is(const struct json_value *v, const struct json_value *t)
{
	if (gt_str_is(t, "integer"))
		return gt_is_num(v) && is_integer(v->u.number);
	if (gt_str_is(t, "number"))
		return gt_is_num(v);
	return gt_str_is(t, jtype(v));
}

static int
data_type_ok(const struct json_value *v, const struct json_value *type)
{
	size_t	 i;

	if (type->type == JSON_STRING)
		return type_is(v, type);
	for (i = 0; i < type->u.array.n; i++)
		if (type_is(v, &type->u.array.v[i]))
			return 1;
	return 0;
}

static void
type_error(struct sctx *c, const struct json_value *type,
    const struct spath *path)
{
	char	 list[128] = "";
	char	*s;
	size_t	 i;

	if (type->type == JSON_STRING) {
		s = gt_cstr(type);
		report(c, path, "must be %s", s);
		free(s);
		return;
	}
	for (i = 0; i < type->u.array.n; i++) {
		s = gt_cstr(&type->u.array.v[i]);
		if (i > 0)
			strlcat(list, ",", sizeof(list));
		strlcat(list, s, sizeof(list));
		free(s);
	}
	report(c, path, "must be %s", list);
}

/* Unicode code points, as Ajv's ucs2length counts a string. */
static size_t
ucs2len(const struct json_string *s)
{
	size_t	 i, n = 0;

	for (i = 0; i < s->len; i++, n++)
		if (s->u[i] >= 0xd800 && s->u[i] <= 0xdbff && i + 1 < s->len &&
		    s->u[i + 1] >= 0xdc00 && s->u[i + 1] <= 0xdfff)
			i++;
	return n;
}

static const struct json_value *
resolve_ref(struct sctx *c, const struct json_value *ref)
{
	char	*r;
	const struct json_value *t;

	r = gt_cstr(ref);
	if (strncmp(r, "#/$defs/", 8) != 0)
		fatalx("gates schema: unsupported $ref %s", r);
	t = json_get(json_get(c->root, "$defs"), r + 8);
	if (t == NULL)
		fatalx("gates schema: dangling $ref %s", r);
	free(r);
	return t;
}

/* Does data pass schema?  Without reporting anything. */
static int
passes(struct sctx *c, const struct json_value *schema,
    const struct json_value *data, struct spath *path)
{
	struct sctx	 q = *c;

	q.quiet = 1;
	q.nerr = 0;
	return check(&q, schema, data, path) == 0;
}

/* The untyped keywords, in Ajv's rule order. */
static void
untyped(struct sctx *c, const struct json_value *s,
    const struct json_value *d, struct spath *path)
{
	const struct json_value	*k, *then;
	size_t			 i, before;
	int			 ok;

	if ((k = json_get(s, "$ref")) != NULL)
		check(c, resolve_ref(c, k), d, path);
	if ((k = json_get(s, "const")) != NULL && !gt_equal(k, d))
		report(c, path, "must be equal to constant");
	if ((k = json_get(s, "enum")) != NULL) {
		for (ok = 0, i = 0; i < k->u.array.n && !ok; i++)
			ok = gt_equal(&k->u.array.v[i], d);
		if (!ok)
			report(c, path, "must be equal to one of the allowed "
			    "values");
	}
	if ((k = json_get(s, "anyOf")) != NULL) {
		for (ok = 0, i = 0; i < k->u.array.n && !ok; i++)
			ok = passes(c, &k->u.array.v[i], d, path);
		if (!ok) {
			/* allErrors keeps every branch's errors. */
			for (i = 0; i < k->u.array.n; i++)
				check(c, &k->u.array.v[i], d, path);
			report(c, path, "must match a schema in anyOf");
		}
	}
	if ((k = json_get(s, "allOf")) != NULL)
		for (i = 0; i < k->u.array.n; i++)
			check(c, &k->u.array.v[i], d, path);
	if ((k = json_get(s, "if")) != NULL &&
	    (then = json_get(s, "then")) != NULL && passes(c, k, d, path)) {
		before = c->nerr;
		check(c, then, d, path);
		if (c->nerr != before)
			report(c, path, "must match \"then\" schema");
	}
}

static void
number_group(struct sctx *c, const struct json_value *s, double d,
    struct spath *path)
{
	const struct json_value	*k;
	char			 num[JSON_NUMBER_BUFSZ];

	if ((k = json_get(s, "maximum")) != NULL && !(d <= k->u.number)) {
		json_number_format(k->u.number, num, sizeof(num));
		report(c, path, "must be <= %s", num);
	}
	if ((k = json_get(s, "minimum")) != NULL && !(d >= k->u.number)) {
		json_number_format(k->u.number, num, sizeof(num));
		report(c, path, "must be >= %s", num);
	}
}

static void
string_group(struct sctx *c, const struct json_value *s,
    const struct json_value *d, struct spath *path)
{
	const struct json_value	*k;
	char			*str, *pat;
	size_t			 n = ucs2len(&d->u.string);

	if ((k = json_get(s, "maxLength")) != NULL && n > k->u.number)
		report(c, path, "must NOT have more than %.0f characters",
		    k->u.number);
	if ((k = json_get(s, "minLength")) != NULL && n < k->u.number)
		report(c, path, "must NOT have fewer than %.0f characters",
		    k->u.number);
	if ((k = json_get(s, "pattern")) != NULL) {
		str = gt_cstr(d);
		pat = gt_cstr(k);
		if (!gates_pattern_match(pat, str))
			report(c, path, "must match pattern \"%s\"", pat);
		free(str);
		free(pat);
	}
	if ((k = json_get(s, "format")) != NULL) {
		if (!gt_str_is(k, "date-time"))
			fatalx("gates schema: unsupported format");
		str = gt_cstr(d);
		if (!gates_format_datetime(str))
			report(c, path, "must match format \"date-time\"");
		free(str);
	}
}

static void
array_group(struct sctx *c, const struct json_value *s,
    const struct json_value *d, struct spath *path)
{
	const struct json_value	*k, *items;
	size_t			 n = d->u.array.n, i, j, old;

	if ((k = json_get(s, "maxItems")) != NULL && n > k->u.number)
		report(c, path, "must NOT have more than %.0f items",
		    k->u.number);
	if ((k = json_get(s, "minItems")) != NULL && n < k->u.number)
		report(c, path, "must NOT have fewer than %.0f items",
		    k->u.number);
	if ((k = json_get(s, "uniqueItems")) != NULL && k->type == JSON_TRUE) {
		/* Ajv walks from the end and names the later index first;
		 * items of the wrong type are skipped (typed items). */
		for (i = n; i-- > 0;) {
			if (d->u.array.v[i].type != JSON_STRING)
				continue;
			for (j = n; j-- > i + 1;)
				if (d->u.array.v[j].type == JSON_STRING &&
				    gt_equal(&d->u.array.v[i],
				    &d->u.array.v[j]))
					break;
			if (j != (size_t)-1 && j > i &&
			    gt_equal(&d->u.array.v[i], &d->u.array.v[j])) {
				report(c, path, "must NOT have duplicate items "
				    "(items ## %zu and %zu are identical)", j, i);
				break;
			}
		}
	}
	if ((items = json_get(s, "items")) != NULL)
		for (i = 0; i < n; i++) {
			old = path_push_index(path, i);
			check(c, items, &d->u.array.v[i], path);
			path_pop(path, old);
		}
}

static void
object_group(struct sctx *c, const struct json_value *s,
    const struct json_value *d, struct spath *path)
{
	const struct json_value	*k, *props, *addl, *sub;
	char			*name;
	size_t			 i, old;

	if ((k = json_get(s, "minProperties")) != NULL &&
	    d->u.object.n < k->u.number)
		report(c, path, "must NOT have fewer than %.0f properties",
		    k->u.number);
	if ((k = json_get(s, "required")) != NULL)
		for (i = 0; i < k->u.array.n; i++) {
			name = gt_cstr(&k->u.array.v[i]);
			if (json_get(d, name) == NULL)
				report(c, path, "must have required property "
				    "'%s'", name);
			free(name);
		}
	props = json_get(s, "properties");
	if ((addl = json_get(s, "additionalProperties")) != NULL)
		for (i = 0; i < d->u.object.n; i++) {
			if (props != NULL) {
				name = gt_jstr_cstr(&d->u.object.m[i].key);
				sub = json_get(props, name);
				free(name);
				if (sub != NULL)
					continue;
			}
			if (addl->type == JSON_FALSE)
				report(c, path, "must NOT have additional "
				    "properties");
			else {
				old = path_push_key(path,
				    &d->u.object.m[i].key);
				check(c, addl, &d->u.object.m[i].value, path);
				path_pop(path, old);
			}
		}
	if (props != NULL)
		for (i = 0; i < props->u.object.n; i++) {
			name = gt_jstr_cstr(&props->u.object.m[i].key);
			sub = json_get(d, name);
			free(name);
			if (sub == NULL)
				continue;
			old = path_push_key(path, &props->u.object.m[i].key);
			check(c, &props->u.object.m[i].value, sub, path);
			path_pop(path, old);
		}
}

static int
has_any(const struct json_value *s, const char *const *keys)
{
	for (; *keys != NULL; keys++)
		if (json_get(s, *keys) != NULL)
			return 1;
	return 0;
}

static const char *const numkw[] = { "maximum", "minimum", NULL };
static const char *const strkw[] = { "maxLength", "minLength", "pattern",
	"format", NULL };
static const char *const arrkw[] = { "maxItems", "minItems", "uniqueItems",
	"items", NULL };
static const char *const objkw[] = { "minProperties", "required",
	"additionalProperties", "properties", NULL };

static int
check(struct sctx *c, const struct json_value *s,
    const struct json_value *d, struct spath *path)
{
	const struct json_value	*type;
	size_t			 before = c->nerr;
	const char		*late = NULL;	/* group holding the type error */
	int			 typeok = 1;

	if (s->type == JSON_TRUE)
		return 0;
	if (s->type == JSON_FALSE) {
		report(c, path, "boolean schema is false");
		return -1;
	}
	if ((type = json_get(s, "type")) != NULL) {
		typeok = data_type_ok(d, type);
		if (type->type == JSON_STRING) {
			if (gt_str_is(type, "number") && has_any(s, numkw))
				late = "number";
			else if (gt_str_is(type, "string") && has_any(s, strkw))
				late = "string";
			else if (gt_str_is(type, "array") && has_any(s, arrkw))
				late = "array";
			else if (gt_str_is(type, "object") && has_any(s, objkw))
				late = "object";
		}
		if (!typeok && late == NULL)
			type_error(c, type, path);
	}
	untyped(c, s, d, path);
	if (d->type == JSON_NUMBER)
		number_group(c, s, d->u.number, path);
	else if (!typeok && late != NULL && strcmp(late, "number") == 0)
		type_error(c, type, path);
	if (d->type == JSON_STRING)
		string_group(c, s, d, path);
	else if (!typeok && late != NULL && strcmp(late, "string") == 0)
		type_error(c, type, path);
	if (d->type == JSON_ARRAY)
		array_group(c, s, d, path);
	else if (!typeok && late != NULL && strcmp(late, "array") == 0)
		type_error(c, type, path);
	if (d->type == JSON_OBJECT)
		object_group(c, s, d, path);
	else if (!typeok && late != NULL && strcmp(late, "object") == 0)
		type_error(c, type, path);
	return c->nerr == before ? 0 : -1;
}

static const char *
schema_title(enum gates_schema which)
{
	switch (which) {
	case GATES_SCHEMA_PACK:
		return "GatePack";
	case GATES_SCHEMA_BINDING:
		return "GateBinding";
	default:
		return "GateReport";
	}
}

int
gates_schema_check(enum gates_schema which, const struct json_value *doc,
    const char *prefix, struct gates_error *err)
{
	struct json_value	*schema;
	struct json_error	 jerr;
	struct sctx		 c;
	struct spath		 path;
	char			 buf[GATES_ERRMSG_MAX];
	const char		*text = gates_schema_text(which);

	if (json_parse(text, strlen(text), NULL, &schema, &jerr) == -1)
		fatalx("gates schema %s: %s", schema_title(which), jerr.msg);
	memset(&c, 0, sizeof(c));
	memset(&path, 0, sizeof(path));
	buf[0] = '\0';
	c.root = schema;
	c.out = buf;
	c.outsz = sizeof(buf);
	check(&c, schema, doc, &path);
	json_free(schema);
	if (c.nerr == 0)
		return 0;
	return gates_fail(err, GATES_E_SCHEMA, "%s%s schema validation "
	    "failed: %s", prefix != NULL ? prefix : "", schema_title(which),
	    buf);
}

/* String(v) for the reference's message template. */
static char *
js_string(const struct json_value *v)
{
	char	 num[JSON_NUMBER_BUFSZ];

	if (v == NULL)
		return xstrdup("undefined");
	switch (v->type) {
	case JSON_STRING:
		return gt_cstr(v);
	case JSON_NUMBER:
		json_number_format(v->u.number, num, sizeof(num));
		return xstrdup(num);
	case JSON_NULL:
		return xstrdup("null");
	case JSON_TRUE:
		return xstrdup("true");
	case JSON_FALSE:
		return xstrdup("false");
	case JSON_ARRAY:
		return xstrdup("[array]");
	default:
		return xstrdup("[object Object]");
	}
}

int
gates_validate_document(const struct json_value *doc,
    struct gates_error *err)
{
	const struct json_value	*api, *kind;
	char			*a, *k;
	int			 r;

	if (!gt_is_obj(doc))
		return gates_fail(err, GATES_E_SCHEMA,
		    "Gate document must be an object");
	api = json_get(doc, "apiVersion");
	kind = json_get(doc, "kind");
	if (gt_str_is(api, "gates.aiwg.io/v1alpha1")) {
		if (gt_str_is(kind, "GatePack"))
			return gates_schema_check(GATES_SCHEMA_PACK, doc, NULL,
			    err);
		if (gt_str_is(kind, "GateBinding"))
			return gates_schema_check(GATES_SCHEMA_BINDING, doc,
			    NULL, err);
		if (gt_str_is(kind, "GateReport"))
			return gates_schema_check(GATES_SCHEMA_REPORT, doc,
			    NULL, err);
	}
	/* String(undefined) in the reference's template. */
	a = js_string(api);
	k = js_string(kind);
	r = gates_fail(err, GATES_E_SCHEMA,
	    "Unsupported gate kind/version '%s:%s'", a, k);
	free(a);
	free(k);
	return r;
}
