/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * render.c: "sbxctl gates render REPORT [--format text|markdown]" -- a
 * GateReport for people: the decision first, then one row per gate
 * evidence (gate, kind, scope and slice, what was observed, the
 * threshold, the interval where the statistic has one, the status),
 * the reasons of the gates that did not pass, then floors, ceilings,
 * holdout, upstream and references.  Text is coloured only on a
 * terminal and never with NO_COLOR set; markdown is a GitHub-flavoured
 * table for a pull-request comment.
 *
 * A report is untrusted input here (a pull request carries it): it is
 * parsed with cJSON, bounded, and every field is checked for its type
 * before use; a missing or odd field renders as "?".  Strings keep only
 * printable ASCII (others become "?"), so a report can neither move a
 * terminal's cursor nor smuggle markup: markdown's special characters
 * are escaped, and only what has a digest's shape goes into code spans.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "sbxctl.h"

#define RENDER_COLS	7
#define RENDER_ROWS_MAX	4096		/* evidence rows shown */
#define RENDER_CELL_MAX	96		/* bytes of one value shown */

struct row {
	char	*cell[RENDER_COLS];
	char	*status;		/* colour key: pass, fail, ... */
};

struct out {
	FILE	*fp;
	int	 md;
	int	 colour;
};

static const char *const heads[RENDER_COLS] = { "Gate", "Kind",
    "Scope/slice", "Observed", "Threshold", "Interval", "Status" };

/* Printable ASCII, bounded. */
static char *
clean(const char *s)
{
	size_t	 i, n = strlen(s);
	char	*r;

	if (n > RENDER_CELL_MAX)
		n = RENDER_CELL_MAX;
	r = xmalloc(n + 4);
	for (i = 0; i < n; i++)
		r[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (n < strlen(s))
		memcpy(r + n, "...", 3), n += 3;
	r[n] = '\0';
	return r;
}

static const cJSON *
get(const cJSON *o, const char *k)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) :
	    NULL;
}

/* v when it is an array (object), else NULL: cJSON_ArrayForEach. */
static const cJSON *
arr(const cJSON *v)
{
	return cJSON_IsArray(v) ? v : NULL;
}

static const cJSON *
obj(const cJSON *v)
{
	return cJSON_IsObject(v) ? v : NULL;
}

/* A number as JSON would print it (integers without a fraction). */
static void
num(char *buf, size_t len, double d)
{
	if (!isfinite(d))
		snprintf(buf, len, "?");
	else if (d == floor(d) && fabs(d) < 1e15)
		snprintf(buf, len, "%.0f", d);
	else
		snprintf(buf, len, "%.6g", d);
}

/* Any scalar as text; NULL when absent or not a scalar. */
static char *
scalar(const cJSON *v)
{
	char	 b[64];

	if (cJSON_IsString(v))
		return clean(v->valuestring);
	if (cJSON_IsNumber(v)) {
		num(b, sizeof(b), v->valuedouble);
		return xstrdup(b);
	}
	if (cJSON_IsBool(v))
		return xstrdup(cJSON_IsTrue(v) ? "true" : "false");
	if (cJSON_IsNull(v))
		return xstrdup("null");
	return NULL;
}

static char *
scalar_or(const cJSON *v, const char *dflt)
{
	char	*s = scalar(v);

	return s != NULL ? s : xstrdup(dflt);
}

static int
is_digest(const char *s)
{
	size_t	 i;

	if (strncmp(s, "sha256:", 7) != 0 || strlen(s) != 71)
		return 0;
	for (i = 7; i < 71; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Markdown: a clean string with its special characters escaped. */
static void
put(struct out *o, const char *s)
{
	if (!o->md) {
		fputs(s, o->fp);
		return;
	}
	if (is_digest(s)) {
		fprintf(o->fp, "`%s`", s);
		return;
	}
	for (; *s != '\0'; s++) {
		if (strchr("\\`*_[]<>|~&#", *s) != NULL)
			fputc('\\', o->fp);
		fputc(*s, o->fp);
	}
}

static const char *
op_name(const char *op)
{
	if (strcmp(op, "lte") == 0)
		return "<=";
	if (strcmp(op, "gte") == 0)
		return ">=";
	if (strcmp(op, "lt") == 0)
		return "<";
	if (strcmp(op, "gt") == 0)
		return ">";
	if (strcmp(op, "eq") == 0)
		return "=";
	return NULL;
}

static char *
scope_cell(const cJSON *e)
{
	const cJSON	*sc = get(e, "scope"), *v;
	char		*mode, *slice, *r, *list = NULL, *t, *x;
	int		 k = 0;

	mode = scalar_or(get(sc, "mode"), "?");
	cJSON_ArrayForEach(v, arr(get(sc, "slices"))) {
		if (++k > 8) {
			xasprintf(&t, "%s,...", list);
			free(list);
			list = t;
			break;
		}
		x = scalar_or(v, "?");
		if (list == NULL)
			list = x;
		else {
			xasprintf(&t, "%s,%s", list, x);
			free(list);
			free(x);
			list = t;
		}
	}
	slice = scalar(get(e, "slice"));
	xasprintf(&r, "%s%s%s%s%s%s", mode, list != NULL ? "[" : "",
	    list != NULL ? list : "", list != NULL ? "]" : "",
	    slice != NULL && strcmp(slice, "null") != 0 ? " / " : "",
	    slice != NULL && strcmp(slice, "null") != 0 ? slice : "");
	free(mode);
	free(list);
	free(slice);
	return r;
}

static char *
observed_cell(const cJSON *e)
{
	const cJSON	*st = get(e, "statistic");
	char		 n[64], ev[64], est[64], *r;

	if (cJSON_IsNumber(get(e, "n")))
		num(n, sizeof(n), get(e, "n")->valuedouble);
	else
		n[0] = '\0';
	if (cJSON_IsNumber(get(e, "events")))
		num(ev, sizeof(ev), get(e, "events")->valuedouble);
	else
		ev[0] = '\0';
	est[0] = '\0';
	if (cJSON_IsNumber(get(st, "estimateBps"))) {
		num(est, sizeof(est), get(st, "estimateBps")->valuedouble);
		strlcat(est, " bps", sizeof(est));
	} else if (cJSON_IsNumber(get(st, "value")))
		num(est, sizeof(est), get(st, "value")->valuedouble);
	if (ev[0] != '\0' && n[0] != '\0')
		xasprintf(&r, "%s/%s events%s%s", ev, n, est[0] ? ", " : "",
		    est);
	else if (n[0] != '\0')
		xasprintf(&r, "n=%s%s%s", n, est[0] ? ", " : "", est);
	else
		r = xstrdup(est[0] ? est : "-");
	return r;
}

static char *
threshold_cell(const cJSON *e)
{
	const cJSON	*t = get(e, "threshold");
	const char	*op;
	char		*o, *v, *p, *r;

	if (t == NULL)
		return xstrdup("-");
	o = scalar_or(get(t, "op"), "?");
	v = scalar(get(t, "resolved"));
	if (v == NULL)
		v = scalar_or(get(t, "value"), "?");
	p = scalar(get(t, "param"));
	op = op_name(o);
	xasprintf(&r, "%s %s%s%s%s", op != NULL ? op : o, v,
	    p != NULL ? " (" : "", p != NULL ? p : "", p != NULL ? ")" : "");
	free(o);
	free(v);
	free(p);
	return r;
}

static char *
interval_cell(const cJSON *e)
{
	const cJSON	*st = get(e, "statistic");
	char		 lo[64], hi[64], lv[64], *m, *r;

	m = scalar_or(get(st, "method"), "?");
	if (!cJSON_IsNumber(get(st, "lowerBps")) ||
	    !cJSON_IsNumber(get(st, "upperBps"))) {
		r = m;
		return r;
	}
	num(lo, sizeof(lo), get(st, "lowerBps")->valuedouble);
	num(hi, sizeof(hi), get(st, "upperBps")->valuedouble);
	if (cJSON_IsNumber(get(st, "levelBps")))
		num(lv, sizeof(lv), get(st, "levelBps")->valuedouble / 100);
	else
		strlcpy(lv, "?", sizeof(lv));
	xasprintf(&r, "%s %s%%: [%s, %s] bps", m, lv, lo, hi);
	free(m);
	return r;
}

static char *
status_cell(const cJSON *e, char **key)
{
	char	*s, *oc, *r;

	s = scalar_or(get(e, "status"), "?");
	oc = scalar(get(e, "outcome"));
	if (oc != NULL && strcmp(oc, "PROMOTE") != 0)
		xasprintf(&r, "%s (%s)", s, oc);
	else
		r = xstrdup(s);
	*key = s;
	free(oc);
	return r;
}

/* ANSI colour for a status or decision word, on a terminal only. */
static const char *
colour_of(const char *key)
{
	if (strcmp(key, "pass") == 0 || strcmp(key, "PROMOTE") == 0)
		return "\033[32m";
	if (strcmp(key, "fail") == 0 || strcmp(key, "ROLLBACK") == 0)
		return "\033[31m";
	return "\033[33m";
}

static void
put_word(struct out *o, const char *word, const char *key, int width)
{
	int	 n = (int)strlen(word);

	if (o->md && strcmp(key, "pass") != 0 && strcmp(key, "PROMOTE") != 0) {
		fputs("**", o->fp);
		put(o, word);
		fputs("**", o->fp);
		return;
	}
	if (o->colour)
		fputs(colour_of(key), o->fp);
	put(o, word);
	if (o->colour)
		fputs("\033[0m", o->fp);
	if (!o->md)
		fprintf(o->fp, "%*s", width > n ? width - n : 0, "");
}

static void
table(struct out *o, struct row *rows, size_t nrows)
{
	size_t	 w[RENDER_COLS], i, k;

	for (k = 0; k < RENDER_COLS; k++) {
		w[k] = strlen(heads[k]);
		for (i = 0; i < nrows; i++)
			if (strlen(rows[i].cell[k]) > w[k])
				w[k] = strlen(rows[i].cell[k]);
	}
	if (o->md) {
		for (k = 0; k < RENDER_COLS; k++)
			fprintf(o->fp, "| %s ", heads[k]);
		fputs("|\n", o->fp);
		for (k = 0; k < RENDER_COLS; k++)
			fputs("|---", o->fp);
		fputs("|\n", o->fp);
	} else {
		for (k = 0; k < RENDER_COLS; k++)
			fprintf(o->fp, "%-*s%s", k + 1 < RENDER_COLS ?
			    (int)w[k] : 0, heads[k], k + 1 < RENDER_COLS ?
			    "  " : "\n");
	}
	for (i = 0; i < nrows; i++) {
		for (k = 0; k < RENDER_COLS; k++) {
			if (o->md)
				fputs("| ", o->fp);
			if (k == RENDER_COLS - 1)
				put_word(o, rows[i].cell[k], rows[i].status, 0);
			else {
				put(o, rows[i].cell[k]);
				if (!o->md)
					fprintf(o->fp, "%*s", (int)(w[k] -
					    strlen(rows[i].cell[k]) + 2), "");
			}
			if (o->md)
				fputc(' ', o->fp);
		}
		fputs(o->md ? "|\n" : "\n", o->fp);
	}
}

/* "Label: value" (text) or "- **Label**: value" (markdown). */
static void
line(struct out *o, const char *label, const char *value)
{
	if (o->md)
		fprintf(o->fp, "- **%s**: ", label);
	else
		fprintf(o->fp, "%s:%*s", label, label[0] != '\0' &&
		    strlen(label) < 15 ? (int)(15 - strlen(label)) : 1, "");
	put(o, value);
	fputc('\n', o->fp);
}

/* Each member of a flat object as "key value, ..."; NULL if none. */
static char *
members(const cJSON *o, const char *skip)
{
	const cJSON	*v;
	char		*r = NULL, *k, *s, *t;
	int		 n = 0;

	cJSON_ArrayForEach(v, obj(o)) {
		if (skip != NULL && strcmp(v->string, skip) == 0)
			continue;
		if (++n > 16)
			break;
		k = clean(v->string);
		if ((s = scalar(v)) == NULL)
			s = xstrdup(cJSON_IsArray(v) ?
			    (cJSON_GetArraySize(v) == 0 ? "none" : "[...]") :
			    "{...}");
		xasprintf(&t, "%s%s%s %s", r != NULL ? r : "", r != NULL ?
		    ", " : "", k, s);
		free(r);
		free(k);
		free(s);
		r = t;
	}
	return r;
}

static void
summary(struct out *o, const char *label, const cJSON *v, const char *skip,
    const char *none)
{
	char	*s;

	if (cJSON_IsObject(v) && (s = members(v, skip)) != NULL) {
		line(o, label, s);
		free(s);
	} else
		line(o, label, none);
}

static void
row_free(struct row *r)
{
	size_t	 k;

	for (k = 0; k < RENDER_COLS; k++)
		free(r->cell[k]);
	free(r->status);
}

/* Reasons of every gate that did not pass. */
static void
reasons(struct out *o, const cJSON *ev)
{
	const cJSON	*e, *r;
	char		*s, *g, *sl;
	size_t		 n = 0, k;

	cJSON_ArrayForEach(e, ev) {
		s = scalar_or(get(e, "status"), "?");
		if (strcmp(s, "pass") == 0) {
			free(s);
			continue;
		}
		free(s);
		if (n++ == 0)
			fputs(o->md ? "\n**Reasons**\n\n" : "\nReasons\n", o->fp);
		if (n > RENDER_ROWS_MAX)
			break;
		g = scalar_or(get(e, "gateId"), "?");
		sl = scalar(get(e, "slice"));
		fputs(o->md ? "- " : "  ", o->fp);
		put(o, g);
		if (sl != NULL && strcmp(sl, "null") != 0) {
			fputc('/', o->fp);
			put(o, sl);
		}
		fputs(":", o->fp);
		k = 0;
		cJSON_ArrayForEach(r, arr(get(e, "reasons"))) {
			if (++k > 16)
				break;
			s = scalar_or(r, "?");
			fputc(' ', o->fp);
			put(o, s);
			free(s);
		}
		fputc('\n', o->fp);
		free(g);
		free(sl);
	}
}

int
render_report(const char *buf, size_t len, int markdown, int colour,
    FILE *fp, char *err, size_t errlen)
{
	struct out	 o;
	cJSON		*rep;
	const cJSON	*ev, *e, *v, *b;
	struct row	*rows = NULL;
	size_t		 nrows = 0, i;
	char		*dec, *s, *t, *u, *x;

	if ((rep = cJSON_ParseWithLength(buf, len)) == NULL ||
	    !cJSON_IsObject(rep)) {
		cJSON_Delete(rep);
		snprintf(err, errlen, "not a JSON object");
		return -1;
	}
	if (!cJSON_IsString(get(rep, "kind")) ||
	    strcmp(get(rep, "kind")->valuestring, "GateReport") != 0) {
		cJSON_Delete(rep);
		snprintf(err, errlen, "not a GateReport (its kind)");
		return -1;
	}
	o.fp = fp;
	o.md = markdown;
	o.colour = colour && !markdown;

	/* The decision first. */
	dec = scalar_or(get(rep, "decision"), "?");
	fputs(o.md ? "### Gate decision: " : "Decision:       ", fp);
	if (o.md)
		put(&o, dec);
	else
		put_word(&o, dec, dec, 0);
	fputc('\n', fp);
	if (o.md)
		fputc('\n', fp);
	b = get(rep, "binding");
	s = scalar_or(get(b, "id"), "?");
	t = scalar_or(get(b, "version"), "?");
	xasprintf(&u, "%s %s", s, t);
	line(&o, "Binding", u);
	free(s);
	free(t);
	free(u);
	s = scalar_or(get(b, "digest"), "?");
	line(&o, "Binding digest", s);
	free(s);
	s = scalar_or(get(rep, "evaluatedAt"), "?");
	t = scalar_or(get(rep, "attestation"), "?");
	xasprintf(&u, "%s (%s)", s, t);
	line(&o, "Evaluated", u);
	free(s);
	free(t);
	free(u);
	s = scalar_or(get(rep, "digest"), "?");
	line(&o, "Report", s);
	free(s);
	fputc('\n', fp);

	ev = get(rep, "gateEvidence");
	if (!cJSON_IsArray(ev))
		ev = NULL;
	cJSON_ArrayForEach(e, ev) {
		if (nrows == RENDER_ROWS_MAX)
			break;
		rows = xreallocarray(rows, nrows + 1, sizeof(*rows));
		rows[nrows].cell[0] = scalar_or(get(e, "gateId"), "?");
		rows[nrows].cell[1] = scalar_or(get(e, "kind"), "?");
		rows[nrows].cell[2] = scope_cell(e);
		rows[nrows].cell[3] = observed_cell(e);
		rows[nrows].cell[4] = threshold_cell(e);
		rows[nrows].cell[5] = interval_cell(e);
		rows[nrows].cell[6] = status_cell(e, &rows[nrows].status);
		nrows++;
	}
	table(&o, rows, nrows);
	if (cJSON_GetArraySize(ev) > RENDER_ROWS_MAX)
		fprintf(fp, "(%d more gate rows not shown)\n",
		    cJSON_GetArraySize(ev) - RENDER_ROWS_MAX);
	reasons(&o, ev);
	fputc('\n', fp);

	summary(&o, "Floors", get(rep, "floors"), NULL, "none");
	summary(&o, "Ceilings", get(rep, "ceilings"), NULL, "none");
	summary(&o, "Holdout", get(rep, "holdout"), NULL, "none");
	v = get(rep, "upstream");
	if (cJSON_IsObject(v)) {
		s = members(v, "reasons");
		t = NULL;
		i = 0;
		cJSON_ArrayForEach(e, arr(get(v, "reasons"))) {
			if (++i > 16)
				break;
			x = scalar_or(e, "?");
			xasprintf(&u, "%s%s%s", t != NULL ? t : "", t != NULL ?
			    " " : "", x);
			free(t);
			free(x);
			t = u;
		}
		xasprintf(&u, "%s, reasons %s", s != NULL ? s : "?",
		    t != NULL ? t : "none");
		line(&o, "Upstream", u);
		free(s);
		free(t);
		free(u);
	} else
		line(&o, "Upstream", "none");
	t = NULL;
	i = 0;
	cJSON_ArrayForEach(e, arr(get(rep, "references"))) {
		if (++i > 16)
			break;
		s = members(e, NULL);
		xasprintf(&u, "%s%s%s", t != NULL ? t : "", t != NULL ? "; " :
		    "", s != NULL ? s : "?");
		free(s);
		free(t);
		t = u;
	}
	line(&o, "References", t != NULL ? t : "none");
	free(t);

	for (i = 0; i < nrows; i++)
		row_free(&rows[i]);
	free(rows);
	free(dec);
	cJSON_Delete(rep);
	return ferror(fp) ? -1 : 0;
}
