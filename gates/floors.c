/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * floors.c: the operator's gates configuration (interop.md §G6): floors,
 * ceilings and the provider allowlist of an aiwg.config-shaped file, and
 * their enforcement over a resolved binding.
 *
 * Threat: an agent's binding that loosens project policy -- drops a floor
 * gate, sets a parameter below the floor's minimum, declares a ceiling
 * above the project's.  Floors come only from the operator's file (never
 * from an agent), every matching binding gate must prove it tightens the
 * floor gate with its preregistered values substituted, and the shipped
 * integrity ceiling applies unless an operator floor governs it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates.h"

#define REG(...)	gates_fail(err, GATES_E_REGISTRY, __VA_ARGS__)
#define DEFAULT_FLOOR	"aiwg:decision-engine/integrity-ceiling"

struct errlist {
	char	*s;
	size_t	 n;
};

static void
push(struct errlist *el, const char *fmt, ...) SBX_PRINTF(2, 3);

static void
push(struct errlist *el, const char *fmt, ...)
{
	char	*line, *old = el->s;
	va_list	 ap;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) == -1)
		fatal("vasprintf");
	va_end(ap);
	if (old == NULL)
		el->s = line;
	else {
		xasprintf(&el->s, "%s\n%s", old, line);
		free(old);
		free(line);
	}
	el->n++;
}

static int
outcome_rank(const struct json_value *v)
{
	enum gates_outcome	 o;

	return gates_outcome_parse(v, &o) == -1 ? -1 : (int)o;
}

static int
blank(const struct json_value *v)
{
	size_t	 i;
	uint16_t c;

	for (i = 0; i < v->u.string.len; i++) {
		c = v->u.string.u[i];
		if (!(c == ' ' || (c >= 9 && c <= 13) || c == 0xa0 ||
		    c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
		    c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f ||
		    c == 0x3000 || c == 0xfeff))
			return 0;
	}
	return 1;
}

static void
inline_pack(struct errlist *el, const struct json_value *pack,
    const char *where)
{
	struct gates_error	 e;
	const struct json_value	*gates, *g;
	char			 ns[GATES_NS_MAX], *id;
	size_t			 i;

	if (gates_validate_document(pack, &e) == -1) {
		push(el, "%s.pack: %s", where, e.msg);
		return;
	}
	if (!gt_str_is(json_get(pack, "kind"), "GatePack")) {
		push(el, "%s.pack: floor pack must have kind GatePack", where);
		return;
	}
	id = gt_cstr(json_get(json_get(pack, "metadata"), "id"));
	if (gates_split_pack_id(id, ns, NULL, &e) == -1) {
		push(el, "%s.pack: %s", where, e.msg);
		free(id);
		return;
	}
	if (strcmp(ns, "project") != 0) {
		push(el, "%s.pack: floor pack id must use the project: "
		    "namespace (got '%s')", where, id);
		free(id);
		return;
	}
	free(id);
	gates = gp_gates(pack);
	for (i = 0; i < gates->u.array.n; i++) {
		g = &gates->u.array.v[i];
		if (gt_str_is(json_get(g, "id"), "integrity-ceiling") &&
		    (!gt_str_is(json_get(g, "kind"), "upstream-ceiling") ||
		    !gt_str_is(json_get(json_get(g, "scope"), "mode"), "all")))
			push(el, "%s.pack: floor gate 'integrity-ceiling' must "
			    "be an all-scoped upstream-ceiling gate to govern "
			    "the default ceiling (a weaker same-id gate never "
			    "suppresses it; full tightening against the shipped "
			    "pack is enforced at resolution)", where);
	}
}

static void
pack_ref(struct errlist *el, const struct json_value *ref, const char *where)
{
	struct gates_error	 e;
	const struct json_value	*v;
	char			 ns[GATES_NS_MAX], *s, *k;
	size_t			 i;

	if (!gt_is_obj(ref)) {
		push(el, "%s.packRef: must be an object", where);
		return;
	}
	for (i = 0; i < ref->u.object.n; i++) {
		k = gt_jstr_cstr(&ref->u.object.m[i].key);
		if (strcmp(k, "id") != 0 && strcmp(k, "version") != 0 &&
		    strcmp(k, "digest") != 0)
			push(el, "%s.packRef.%s: unknown field", where, k);
		free(k);
	}
	v = json_get(ref, "id");
	if (!gt_is_str(v) || v->u.string.len == 0)
		push(el, "%s.packRef.id: required, must be a non-empty string",
		    where);
	else {
		s = gt_cstr(v);
		if (gates_split_pack_id(s, ns, NULL, &e) == -1)
			push(el, "%s.packRef.id: %s", where, e.msg);
		free(s);
	}
	s = gt_cstr(json_get(ref, "version"));
	if (s == NULL || !gates_semver_ok(s))
		push(el, "%s.packRef.version: required, must be a semantic "
		    "version (X.Y.Z)", where);
	free(s);
	s = gt_cstr(json_get(ref, "digest"));
	if (s == NULL || !gates_digest_ok(s))
		push(el, "%s.packRef.digest: required, must be a sha256 digest",
		    where);
	free(s);
}

static void
floor_source(struct errlist *el, const struct json_value *e,
    const char *where)
{
	const struct json_value	*pack, *ref;
	char			*k;
	size_t			 i;

	if (!gt_is_obj(e)) {
		push(el, "%s: must be an object with exactly one of 'pack' or "
		    "'packRef'", where);
		return;
	}
	for (i = 0; i < e->u.object.n; i++) {
		k = gt_jstr_cstr(&e->u.object.m[i].key);
		if (strcmp(k, "pack") != 0 && strcmp(k, "packRef") != 0) {
			push(el, "%s.%s: unknown field", where, k);
			free(k);
			return;
		}
		free(k);
	}
	pack = json_get(e, "pack");
	ref = json_get(e, "packRef");
	if ((pack != NULL) == (ref != NULL))
		push(el, "%s: must set exactly one of 'pack' or 'packRef'",
		    where);
	else if (pack != NULL)
		inline_pack(el, pack, where);
	else
		pack_ref(el, ref, where);
}

static void
ceilings(struct errlist *el, const struct json_value *c)
{
	const struct json_value	*star;
	char			*k, *sv;
	size_t			 i, studies = 0;
	int			 sr;

	if (!gt_is_obj(c)) {
		push(el, "gates.ceilings: must be an object mapping study ids "
		    "to outcome ceilings");
		return;
	}
	for (i = 0; i < c->u.object.n; i++) {
		struct json_value	 key;

		key.type = JSON_STRING;
		key.u.string = c->u.object.m[i].key;
		if (!json_key_is(&c->u.object.m[i].key, "*"))
			studies++;
		if (blank(&key))
			push(el, "gates.ceilings: study id must be a non-empty "
			    "string");
		else if (outcome_rank(&c->u.object.m[i].value) == -1) {
			k = gt_jstr_cstr(&c->u.object.m[i].key);
			push(el, "gates.ceilings.%s: must be PROMOTE, HOLD or "
			    "ROLLBACK", k);
			free(k);
		}
	}
	star = json_get(c, "*");
	sr = star != NULL ? outcome_rank(star) : -1;
	if (studies > 0 && sr == -1)
		push(el, "gates.ceilings: per-study ceilings require the "
		    "project-wide '*' default ceiling");
	if (sr == -1)
		return;
	sv = gt_cstr(star);
	for (i = 0; i < c->u.object.n; i++) {
		if (json_key_is(&c->u.object.m[i].key, "*"))
			continue;
		if (outcome_rank(&c->u.object.m[i].value) != -1 &&
		    outcome_rank(&c->u.object.m[i].value) < sr) {
			k = gt_jstr_cstr(&c->u.object.m[i].key);
			push(el, "gates.ceilings.%s: must tighten the project "
			    "default ceiling %s, not loosen it", k, sv);
			free(k);
		}
	}
	free(sv);
}

static void
providers(struct errlist *el, const struct json_value *p)
{
	const struct json_value	*e, *v, *b, *pr;
	const char		*f;
	char			 where[64], *k, *s;
	size_t			 i, j, l;
	int64_t			 ms;

	if (p->type != JSON_ARRAY) {
		push(el, "gates.providers: must be an array");
		return;
	}
	for (i = 0; i < p->u.array.n; i++) {
		e = &p->u.array.v[i];
		snprintf(where, sizeof(where), "gates.providers[%zu]", i);
		if (!gt_is_obj(e)) {
			push(el, "%s: must be an object", where);
			continue;
		}
		for (j = 0; j < e->u.object.n; j++) {
			k = gt_jstr_cstr(&e->u.object.m[j].key);
			if (strcmp(k, "bundleId") != 0 &&
			    strcmp(k, "providerId") != 0 &&
			    strcmp(k, "codeDigest") != 0 &&
			    strcmp(k, "reviewer") != 0 &&
			    strcmp(k, "reviewedAt") != 0)
				push(el, "%s.%s: unknown field", where, k);
			free(k);
		}
		for (j = 0; j < 2; j++) {
			f = j == 0 ? "bundleId" : "providerId";
			v = json_get(e, f);
			if (!gt_is_str(v) || blank(v))
				push(el, "%s.%s: required, must be a non-empty "
				    "string", where, f);
		}
		s = gt_cstr(json_get(e, "codeDigest"));
		if (s == NULL || !gates_digest_ok(s))
			push(el, "%s.codeDigest: required, must be a sha256 "
			    "digest", where);
		free(s);
		v = json_get(e, "reviewer");
		if (!gt_is_str(v) || blank(v) || v->u.string.len > 128)
			push(el, "%s.reviewer: required, must be a non-empty "
			    "string", where);
		if (gates_date_parse_v(json_get(e, "reviewedAt"), &ms) == -1)
			push(el, "%s.reviewedAt: required, must be a date-time",
			    where);
		b = json_get(e, "bundleId");
		pr = json_get(e, "providerId");
		if (!gt_is_str(b) || !gt_is_str(pr))
			continue;
		for (l = 0; l < i; l++) {
			const struct json_value *o = &p->u.array.v[l];

			if (gt_is_obj(o) && gt_is_str(json_get(o, "bundleId")) &&
			    gt_is_str(json_get(o, "providerId")) &&
			    gt_equal(json_get(o, "bundleId"), b) &&
			    gt_equal(json_get(o, "providerId"), pr)) {
				char	*bs = gt_cstr(b), *ps = gt_cstr(pr);

				push(el, "%s: duplicate allowlist entry for %s "
				    "%s", where, bs, ps);
				free(bs);
				free(ps);
				break;
			}
		}
	}
}

int
gates_config_validate(const struct json_value *gates,
    const struct gates_registry *reg, char **errors)
{
	struct errlist		 el = { NULL, 0 };
	const struct json_value	*floors;
	char			 where[64], *k;
	size_t			 i;

	(void)reg;
	*errors = NULL;
	if (gates == NULL || gates->type == JSON_NULL)
		return 0;
	if (!gt_is_obj(gates)) {
		*errors = xstrdup("gates: must be an object");
		return -1;
	}
	for (i = 0; i < gates->u.object.n; i++) {
		k = gt_jstr_cstr(&gates->u.object.m[i].key);
		if (strcmp(k, "floors") != 0 && strcmp(k, "ceilings") != 0 &&
		    strcmp(k, "providers") != 0)
			push(&el, "gates.%s: unknown field", k);
		free(k);
	}
	if ((floors = json_get(gates, "floors")) != NULL) {
		if (floors->type != JSON_ARRAY)
			push(&el, "gates.floors: must be an array");
		else
			for (i = 0; i < floors->u.array.n; i++) {
				snprintf(where, sizeof(where),
				    "gates.floors[%zu]", i);
				floor_source(&el, &floors->u.array.v[i], where);
			}
	}
	if (json_get(gates, "ceilings") != NULL)
		ceilings(&el, json_get(gates, "ceilings"));
	if (json_get(gates, "providers") != NULL)
		providers(&el, json_get(gates, "providers"));
	*errors = el.s;
	return el.n == 0 ? 0 : -1;
}

void
gates_floors_resolve(const struct json_value *gates, struct gates_floors *f)
{
	const struct json_value	*v;

	memset(f, 0, sizeof(*f));
	f->object = xcalloc(1, sizeof(*f->object));
	gt_set_obj(f->object);
	if ((v = json_get(gates, "floors")) != NULL)
		gt_copy(gt_add(f->object, "floors"), v);
	else
		gt_set_arr(gt_add(f->object, "floors"));
	if ((v = json_get(gates, "ceilings")) != NULL)
		gt_copy(gt_add(f->object, "ceilings"), v);
	else
		gt_set_obj(gt_add(f->object, "ceilings"));
	if ((v = json_get(gates, "providers")) != NULL)
		gt_copy(gt_add(f->object, "providers"), v);
}

void
gates_floors_free(struct gates_floors *f)
{
	json_free(f->object);
	memset(f, 0, sizeof(*f));
}

/* ---- expansion and enforcement (interop.md §G6.4) ---------------------- */

struct xfloor {
	char			*pack_id;
	struct json_value	*composed;	/* owned */
};

static void
xfloors_free(struct xfloor *x, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		free(x[i].pack_id);
		json_free(x[i].composed);
	}
	free(x);
}

static size_t
alen_safe(const struct json_value *a)
{
	return a != NULL && a->type == JSON_ARRAY ? a->u.array.n : 0;
}

static int
check_floor_defaults(const struct json_value *composed,
    struct gates_error *err)
{
	const struct json_value	*gates, *g, *refs[3], *params;
	char			*gid, *name;
	size_t			 i, j;
	int			 r = 0;

	gates = gp_gates(composed);
	params = gp_params(composed);
	for (i = 0; i < gates->u.array.n && r == 0; i++) {
		g = &gates->u.array.v[i];
		refs[0] = json_get(json_get(g, "threshold"), "param");
		refs[1] = gp_is_ref(json_get(g, "minimumN")) ?
		    json_get(json_get(g, "minimumN"), "param") : NULL;
		refs[2] = gp_is_ref(json_get(json_get(g, "statistic"),
		    "levelBps")) ? json_get(json_get(json_get(g, "statistic"),
		    "levelBps"), "param") : NULL;
		for (j = 0; j < 3 && r == 0; j++) {
			if (refs[j] == NULL)
				continue;
			name = gt_cstr(refs[j]);
			if (json_get(json_get(params, name), "default") == NULL) {
				gid = gt_cstr(json_get(g, "id"));
				r = REG("project floor gate '%s' parameter '%s' "
				    "requires a default: it is the enforced "
				    "minimum", gid, name);
				free(gid);
			}
			free(name);
		}
	}
	return r;
}

static int
expand(const struct gates_registry *reg, const struct gates_floors *floors,
    struct xfloor **xp, size_t *np, struct gates_error *err)
{
	const struct json_value	*list, *src, *ref, *pack, *dgates, *dg = NULL;
	const struct json_value	*gates, *g;
	const struct gates_pack	*p;
	struct xfloor		*x;
	struct json_value	*composed;
	char			*id, *ver;
	size_t			 i, j, n = 0;
	int			 governed = 0;

	list = json_get(floors->object, "floors");
	x = xcalloc(alen_safe(list) + 1, sizeof(*x));
	for (i = 0; list != NULL && i < list->u.array.n; i++) {
		src = &list->u.array.v[i];
		if ((ref = json_get(src, "packRef")) != NULL) {
			id = gt_cstr(json_get(ref, "id"));
			ver = gt_cstr(json_get(ref, "version"));
			if ((p = gates_registry_lookup(reg, id, err)) == NULL) {
				free(id);
				free(ver);
				goto fail;
			}
			if (!gt_str_is(json_get(json_get(p->authored, "metadata"),
			    "version"), ver) ||
			    !gt_str_is(json_get(ref, "digest"), p->digest)) {
				REG("project floor pack pin mismatch for %s@%s",
				    id, ver);
				free(id);
				free(ver);
				goto fail;
			}
			free(id);
			free(ver);
			composed = gt_dup(p->composed);
			x[n].pack_id = xstrdup(p->id);
		} else {
			pack = json_get(src, "pack");
			if (gates_validate_document(pack, err) == -1)
				goto fail;
			if (!gt_str_is(json_get(pack, "kind"), "GatePack")) {
				REG("project floor pack requires a GatePack "
				    "document");
				goto fail;
			}
			if (gates_compose(reg, pack, &composed, err) == -1)
				goto fail;
			x[n].pack_id = gt_cstr(json_get(json_get(pack, "metadata"),
			    "id"));
		}
		x[n++].composed = composed;
		if (gates_validate_pack(composed, reg, err) == -1)
			goto fail;
		if (ref == NULL && check_floor_defaults(composed, err) == -1)
			goto fail;
	}
	if ((p = gates_registry_find(reg, DEFAULT_FLOOR)) == NULL) {
		REG("unknown gate pack: %s", DEFAULT_FLOOR);
		goto fail;
	}
	if (gates_validate_pack(p->composed, reg, err) == -1)
		goto fail;
	dgates = gp_gates(p->composed);
	for (i = 0; i < dgates->u.array.n && dg == NULL; i++)
		if (gt_str_is(json_get(&dgates->u.array.v[i], "id"),
		    "integrity-ceiling"))
			dg = &dgates->u.array.v[i];
	if (dg == NULL) {
		REG("shipped default floor %s has no integrity-ceiling gate",
		    DEFAULT_FLOOR);
		goto fail;
	}
	for (i = 0; i < n && !governed; i++) {
		gates = gp_gates(x[i].composed);
		for (j = 0; j < gates->u.array.n && !governed; j++) {
			g = &gates->u.array.v[j];
			if (!gt_str_is(json_get(g, "id"), "integrity-ceiling") ||
			    !gt_str_is(json_get(g, "kind"), "upstream-ceiling") ||
			    !gt_str_is(json_get(json_get(g, "scope"), "mode"),
			    "all"))
				continue;
			governed = gates_gate_tightens(dg, g,
			    gp_params(x[i].composed), NULL) == 0;
		}
	}
	if (!governed) {
		x[n].pack_id = xstrdup(p->id);
		x[n++].composed = gt_dup(p->composed);
	}
	*xp = x;
	*np = n;
	return 0;
 fail:
	xfloors_free(x, n);
	return -1;
}

/* synthesizeFloorCandidate: the binding's values in place of references. */
static int
materialise(const struct json_value *gate, const char *pack_id,
    const struct json_value *params, struct json_value *out,
    struct gates_error *err)
{
	const struct json_value	*ref, *v;
	struct json_value	*t, *s;
	char			*q, *gid, *name;

	gt_copy(out, gate);
	/* slots: threshold.param, minimumN, statistic.levelBps */
	if ((ref = json_get(json_get(gate, "threshold"), "param")) != NULL) {
		q = gp_qualify(pack_id, ref);
		v = json_get(params, q);
		free(q);
		if (v == NULL)
			goto missing;
		t = (struct json_value *)json_get(out, "threshold");
		gt_remove(t, "value");
		gt_remove(t, "param");
		gt_set_num(gt_add(t, "value"), v->u.number);
	}
	if (gp_is_ref(json_get(gate, "minimumN"))) {
		ref = json_get(json_get(gate, "minimumN"), "param");
		q = gp_qualify(pack_id, ref);
		v = json_get(params, q);
		free(q);
		if (v == NULL)
			goto missing;
		gt_remove(out, "minimumN");
		gt_set_num(gt_add(out, "minimumN"), v->u.number);
	}
	if (gp_is_ref(json_get(json_get(gate, "statistic"), "levelBps"))) {
		ref = json_get(json_get(json_get(gate, "statistic"), "levelBps"),
		    "param");
		q = gp_qualify(pack_id, ref);
		v = json_get(params, q);
		free(q);
		if (v == NULL)
			goto missing;
		s = (struct json_value *)json_get(out, "statistic");
		gt_remove(s, "levelBps");
		gt_set_num(gt_add(s, "levelBps"), v->u.number);
	}
	return 0;
 missing:
	gid = gt_cstr(json_get(gate, "id"));
	name = gt_cstr(ref);
	REG("binding gate '%s' parameter '%s' has no resolved value", gid,
	    name);
	free(gid);
	free(name);
	json_value_clear(out);
	return -1;
}

int
gates_enforce_floors(const struct gates_registry *reg,
    const struct gates_resolved *res, const struct gates_floors *floors,
    struct gates_error *err)
{
	const struct json_value	*ceil, *conf, *decl, *fgates, *fg, *gates;
	struct gates_error	 e;
	struct xfloor		*x = NULL;
	struct json_value	 cand;
	char			*errs, bid[1024], *fid, *cs;
	size_t			 nx = 0, i, j, k, l, matches;
	enum gates_outcome	 declared;
	int			 r = -1;

	gt_strlcpy(bid, json_get(json_get(res->binding, "metadata"), "id"),
	    sizeof(bid));
	/* assertCeilingDefaults: the star rules, again (floors handed in
	 * directly never passed validateGatesConfig). */
	ceil = json_get(floors->object, "ceilings");
	if (ceil != NULL) {
		struct errlist	 el = { NULL, 0 };

		ceilings(&el, ceil);
		if (el.n > 0) {
			errs = el.s;
			if ((cs = strchr(errs, '\n')) != NULL)
				*cs = '\0';
			REG("%s", errs);
			free(errs);
			return -1;
		}
	}
	conf = json_get(ceil, bid);
	if (conf == NULL)
		conf = json_get(ceil, "*");
	decl = json_get(json_get(res->binding, "spec"), "ceiling");
	declared = GATES_PROMOTE;
	if (decl != NULL)
		gates_outcome_parse(decl, &declared);
	if (conf != NULL && (int)declared < outcome_rank(conf)) {
		cs = gt_cstr(conf);
		REG("binding '%s' declares ceiling %s below the project ceiling "
		    "%s for this study", bid, gates_outcome_name(declared), cs);
		free(cs);
		return -1;
	}
	if (expand(reg, floors, &x, &nx, err) == -1)
		return -1;
	for (i = 0; i < nx; i++) {
		fgates = gp_gates(x[i].composed);
		for (j = 0; j < fgates->u.array.n; j++) {
			fg = &fgates->u.array.v[j];
			fid = gt_cstr(json_get(fg, "id"));
			matches = 0;
			for (k = 0; k < res->npacks; k++) {
				gates = gp_gates(res->packs[k].pack->composed);
				for (l = 0; l < gates->u.array.n; l++) {
					if (!gt_equal(json_get(&gates->u.array.v[l],
					    "id"), json_get(fg, "id")))
						continue;
					matches++;
					if (materialise(&gates->u.array.v[l],
					    res->packs[k].pack->id, &res->params,
					    &cand, err) == -1) {
						free(fid);
						goto out;
					}
					if (gates_gate_tightens(fg, &cand,
					    gp_params(x[i].composed), &e) == -1) {
						REG("binding '%s' loosens project "
						    "floor gate '%s' (floor pack "
						    "'%s'): %s", bid, fid,
						    x[i].pack_id, e.msg);
						json_value_clear(&cand);
						free(fid);
						goto out;
					}
					json_value_clear(&cand);
				}
			}
			if (matches == 0) {
				REG("binding '%s' omits project floor gate '%s' "
				    "(floor pack '%s'): every binding in this "
				    "project must include and tighten it", bid,
				    fid, x[i].pack_id);
				free(fid);
				goto out;
			}
			free(fid);
		}
	}
	r = 0;
 out:
	xfloors_free(x, nx);
	return r;
}
