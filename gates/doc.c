/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * doc.c: reading a gate document's bytes into a tree, as the reference's
 * parseDecisionJson does for a path ending in .json and (sbx's reading of
 * the unstored parseDecisionYaml, interop.md §G13.4) for every other path.
 *
 * JSON: the size cap first, then JSON.parse ("invalid-json"), then
 * duplicate keys ("duplicate-or-invalid-key"), then admitEntry.
 *
 * YAML is read by libyaml into the same tree, with the YAML 1.2 core
 * schema's scalar rules (what the reference's `yaml` library applies).
 * Threat: a YAML document is a richer language than the data it carries.
 * Anchors and aliases let a small file expand into a huge tree ("billion
 * laughs") and tags ask for types no gate document has, so both are
 * refused; duplicate and non-scalar keys are refused as the reference's
 * uniqueKeys parse refuses duplicates; one document per file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "common.h"
#include "gates.h"

#define REJECT		"Decision entry rejected: "
/* Nesting bound for the YAML builder's recursion; admitEntry's own
 * depth limit (32) refuses far earlier, this only protects the stack. */
#define YAML_DEPTH_MAX	64

int
gates_path_is_json(const char *path)
{
	size_t	 n = strlen(path);

	return n >= 5 && strcasecmp(path + n - 5, ".json") == 0;
}

static int
has_suffix(const char *s, const char *suffix)
{
	size_t	 n = strlen(s), m = strlen(suffix);

	return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/* A name a pack file may have: .json, .yaml or .yml (case-blind). */
int
gates_path_is_doc(const char *path)
{
	return has_suffix(path, ".json") || has_suffix(path, ".yaml") ||
	    has_suffix(path, ".yml");
}

/* A pack of a directory of packs: *.gatepack.{yaml,yml,json}. */
int
gates_path_is_pack(const char *path)
{
	return has_suffix(path, ".gatepack.yaml") ||
	    has_suffix(path, ".gatepack.yml") ||
	    has_suffix(path, ".gatepack.json");
}

static int
parse_json(const void *buf, size_t len, size_t cap, struct json_value **out,
    struct gates_error *err)
{
	struct json_error	 jerr;
	struct json_limits	 lim;

	memset(&lim, 0, sizeof(lim));
	lim.max_bytes = cap;
	if (json_parse(buf, len, &lim, out, &jerr) == -1)
		return gates_fail(err, GATES_E_ADMISSION, REJECT "invalid-json");
	if (jerr.duplicates > 0) {
		json_free(*out);
		*out = NULL;
		return gates_fail(err, GATES_E_ADMISSION,
		    REJECT "duplicate-or-invalid-key");
	}
	return 0;
}

/* ---- YAML ------------------------------------------------------------ */

struct ybuild {
	yaml_parser_t	 parser;
	const char	*reason;	/* invalid-yaml, duplicate-or-invalid-key */
};

static int
yfail(struct ybuild *yb, const char *reason)
{
	if (yb->reason == NULL)
		yb->reason = reason;
	return -1;
}

static int
match_digits(const char *s, const char *set)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (strchr(set, *s) == NULL)
			return 0;
	return 1;
}

/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? with the core
 * schema's two float forms: an exponent, or a fraction point. */
static int
is_core_float(const char *s)
{
	const char	*p = s;
	int		 mant = 0, point = 0, exp = 0;

	if (*p == '-' || *p == '+')
		p++;
	if (*p == '.') {
		point = 1;
		p++;
		if (*p < '0' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
		mant = 1;
	} else {
		while (*p >= '0' && *p <= '9') {
			p++;
			mant = 1;
		}
		if (!mant)
			return 0;
		if (*p == '.') {
			point = 1;
			p++;
			while (*p >= '0' && *p <= '9')
				p++;
		}
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (*p < '0' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
		exp = 1;
	}
	return *p == '\0' && (point || exp);
}

/* A plain scalar under the YAML 1.2 core schema. */
static int
plain_scalar(struct ybuild *yb, const char *s, size_t len,
    struct json_value *v)
{
	const char	*p;
	double		 d;
	int		 neg = 0;

	if (strlen(s) != len)
		return yfail(yb, "invalid-yaml");	/* NUL inside */
	if (len == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	    strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0) {
		gt_set_null(v);
		return 0;
	}
	if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 ||
	    strcmp(s, "TRUE") == 0) {
		gt_set_bool(v, 1);
		return 0;
	}
	if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 ||
	    strcmp(s, "FALSE") == 0) {
		gt_set_bool(v, 0);
		return 0;
	}
	if (strncmp(s, "0o", 2) == 0 && match_digits(s + 2, "01234567")) {
		for (d = 0, p = s + 2; *p != '\0'; p++)
			d = d * 8 + (*p - '0');
		gt_set_num(v, d);
		return 0;
	}
	if (strncmp(s, "0x", 2) == 0 &&
	    match_digits(s + 2, "0123456789abcdefABCDEF")) {
		for (d = 0, p = s + 2; *p != '\0'; p++)
			d = d * 16 + (*p <= '9' ? *p - '0' :
			    (*p | 0x20) - 'a' + 10);
		gt_set_num(v, d);
		return 0;
	}
	p = s;
	if (*p == '-' || *p == '+') {
		neg = *p == '-';
		p++;
	}
	if (strcmp(p, ".inf") == 0 || strcmp(p, ".Inf") == 0 ||
	    strcmp(p, ".INF") == 0 || strcmp(s, ".nan") == 0 ||
	    strcmp(s, ".NaN") == 0 || strcmp(s, ".NAN") == 0) {
		/* Not JSON: admitEntry would refuse it as nonfinite. */
		(void)neg;
		return yfail(yb, "nonfinite-number");
	}
	if (match_digits(p, "0123456789") || is_core_float(s)) {
		errno = 0;
		d = strtod(s, NULL);
		if (!isfinite(d))
			return yfail(yb, "nonfinite-number");
		gt_set_num(v, d);
		return 0;
	}
	if (json_string_from_utf8(&v->u.string, s, len) == -1)
		return yfail(yb, "invalid-yaml");
	v->type = JSON_STRING;
	return 0;
}

static int	ynode(struct ybuild *, yaml_event_t *, struct json_value *,
		    size_t);

static int
ynext(struct ybuild *yb, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&yb->parser, ev))
		return yfail(yb, "invalid-yaml");
	return 0;
}

/* No anchor and no explicit tag: the only nodes taken (with aliases,
 * anything else is invalid-yaml). */
static int
yplain(const yaml_char_t *anchor, const yaml_char_t *tag, int implicit)
{
	return anchor == NULL && (tag == NULL || implicit);
}

/* The next event's type; the event itself (stream and document
 * boundaries) carries nothing kept. */
static int
ytype(struct ybuild *yb, yaml_event_type_t *type)
{
	yaml_event_t	 ev;

	if (ynext(yb, &ev) == -1)
		return -1;
	*type = ev.type;
	yaml_event_delete(&ev);
	return 0;
}

/* The next event must be of this type. */
static int
yexpect(struct ybuild *yb, yaml_event_type_t want)
{
	yaml_event_type_t	 type;

	if (ytype(yb, &type) == -1)
		return -1;
	if (type != want)
		return yfail(yb, "invalid-yaml");
	return 0;
}

static int
ymapping(struct ybuild *yb, struct json_value *v, size_t depth)
{
	yaml_event_t		 ev;
	struct json_value	 key, *slot;
	size_t			 i;

	gt_set_obj(v);
	for (;;) {
		if (ynext(yb, &ev) == -1)
			return -1;
		if (ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		if (ev.type != YAML_SCALAR_EVENT) {
			yaml_event_delete(&ev);
			return yfail(yb, "duplicate-or-invalid-key");
		}
		memset(&key, 0, sizeof(key));
		if (!yplain(ev.data.scalar.anchor, ev.data.scalar.tag,
		    ev.data.scalar.plain_implicit ||
		    ev.data.scalar.quoted_implicit)) {
			yaml_event_delete(&ev);
			return yfail(yb, "invalid-yaml");
		}
		/* Keys are strings in a JavaScript object whatever they
		 * look like ("1: x" is the key "1"). */
		if (json_string_from_utf8(&key.u.string,
		    (const char *)ev.data.scalar.value,
		    ev.data.scalar.length) == -1) {
			yaml_event_delete(&ev);
			return yfail(yb, "invalid-yaml");
		}
		yaml_event_delete(&ev);
		for (i = 0; i < v->u.object.n; i++)
			if (json_string_compare(&v->u.object.m[i].key,
			    &key.u.string) == 0) {
				free(key.u.string.u);
				return yfail(yb, "duplicate-or-invalid-key");
			}
		v->u.object.m = xreallocarray(v->u.object.m,
		    v->u.object.n + 1, sizeof(*v->u.object.m));
		v->u.object.m[v->u.object.n].key = key.u.string;
		slot = &v->u.object.m[v->u.object.n].value;
		slot->type = JSON_NULL;
		v->u.object.n++;
		if (ynext(yb, &ev) == -1)
			return -1;
		if (ynode(yb, &ev, slot, depth + 1) == -1)
			return -1;
	}
}

static int
ysequence(struct ybuild *yb, struct json_value *v, size_t depth)
{
	yaml_event_t		 ev;
	struct json_value	*slot;

	gt_set_arr(v);
	for (;;) {
		if (ynext(yb, &ev) == -1)
			return -1;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		slot = gt_push(v);
		if (ynode(yb, &ev, slot, depth + 1) == -1)
			return -1;
	}
}

/* Build the node ev starts; ev is consumed. */
static int
ynode(struct ybuild *yb, yaml_event_t *ev, struct json_value *v, size_t depth)
{
	yaml_char_t	*anchor = NULL, *tag = NULL;
	int		 implicit = 1, r;

	if (depth > YAML_DEPTH_MAX) {
		yaml_event_delete(ev);
		return yfail(yb, "nesting-depth");
	}
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		yaml_event_delete(ev);
		return yfail(yb, "invalid-yaml");
	case YAML_SCALAR_EVENT:
		anchor = ev->data.scalar.anchor;
		tag = ev->data.scalar.tag;
		implicit = ev->data.scalar.plain_implicit ||
		    ev->data.scalar.quoted_implicit;
		if (!yplain(anchor, tag, implicit)) {
			yaml_event_delete(ev);
			return yfail(yb, "invalid-yaml");
		}
		if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			r = plain_scalar(yb, (const char *)ev->data.scalar.value,
			    ev->data.scalar.length, v);
		else {
			memset(v, 0, sizeof(*v));
			r = json_string_from_utf8(&v->u.string,
			    (const char *)ev->data.scalar.value,
			    ev->data.scalar.length);
			if (r == 0)
				v->type = JSON_STRING;
			else
				r = yfail(yb, "invalid-yaml");
		}
		yaml_event_delete(ev);
		return r;
	case YAML_MAPPING_START_EVENT:
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
		implicit = ev->data.mapping_start.implicit;
		yaml_event_delete(ev);
		if (!yplain(anchor, tag, implicit))
			return yfail(yb, "invalid-yaml");
		return ymapping(yb, v, depth);
	case YAML_SEQUENCE_START_EVENT:
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
		implicit = ev->data.sequence_start.implicit;
		yaml_event_delete(ev);
		if (!yplain(anchor, tag, implicit))
			return yfail(yb, "invalid-yaml");
		return ysequence(yb, v, depth);
	default:
		yaml_event_delete(ev);
		return yfail(yb, "invalid-yaml");
	}
}

static int
parse_yaml(const void *buf, size_t len, struct json_value **out,
    struct gates_error *err)
{
	struct ybuild		 yb;
	yaml_event_t		 ev;
	yaml_event_type_t	 type;
	struct json_value	*v;
	int			 r = -1;

	memset(&yb, 0, sizeof(yb));
	v = xcalloc(1, sizeof(*v));
	v->type = JSON_NULL;
	if (!yaml_parser_initialize(&yb.parser))
		fatalx("yaml_parser_initialize: out of memory");
	yaml_parser_set_input_string(&yb.parser, buf, len);
	yaml_parser_set_encoding(&yb.parser, YAML_UTF8_ENCODING);
	if (yexpect(&yb, YAML_STREAM_START_EVENT) == -1 ||
	    ytype(&yb, &type) == -1)
		goto done;
	/* An empty file is the null document. */
	if (type == YAML_STREAM_END_EVENT) {
		r = 0;
		goto done;
	}
	if (type != YAML_DOCUMENT_START_EVENT) {
		yfail(&yb, "invalid-yaml");
		goto done;
	}
	if (ynext(&yb, &ev) == -1 || ynode(&yb, &ev, v, 0) == -1)
		goto done;
	/* One document per file: a second one is ignored nowhere. */
	if (yexpect(&yb, YAML_DOCUMENT_END_EVENT) == -1 ||
	    yexpect(&yb, YAML_STREAM_END_EVENT) == -1)
		goto done;
	r = 0;
 done:
	yaml_parser_delete(&yb.parser);
	if (r == -1) {
		json_free(v);
		return gates_fail(err, GATES_E_ADMISSION, REJECT "%s",
		    yb.reason != NULL ? yb.reason : "invalid-yaml");
	}
	*out = v;
	return 0;
}

static int
doc_parse(const void *buf, size_t len, size_t cap, int is_json,
    struct json_value **out, struct gates_error *err)
{
	*out = NULL;
	if (len > cap)
		return gates_fail(err, GATES_E_ADMISSION,
		    REJECT "serialized-bytes");
	/* A NUL byte is no text either parser should see. */
	if (memchr(buf, '\0', len) != NULL)
		return gates_fail(err, GATES_E_ADMISSION, REJECT "%s",
		    is_json ? "invalid-json" : "invalid-yaml");
	if ((is_json ? parse_json(buf, len, cap, out, err) :
	    parse_yaml(buf, len, out, err)) == -1)
		return -1;
	if (gates_admit(*out, err) == -1) {
		json_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int
gates_doc_parse(const void *buf, size_t len, int is_json,
    struct json_value **out, struct gates_error *err)
{
	return doc_parse(buf, len, GATES_DOC_MAX, is_json, out, err);
}

int
gates_report_parse(const void *buf, size_t len, int is_json,
    struct json_value **out, struct gates_error *err)
{
	return doc_parse(buf, len, GATES_REPORT_TEXT_MAX, is_json, out, err);
}
