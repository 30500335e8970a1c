/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * compose.c: `extends` composition and the tightening proof (interop.md
 * §G2.6, §G2.7).
 *
 * Threat: a child pack (or a binding under a project floor) that claims to
 * extend a strict parent while loosening it -- a raised cap, a lowered
 * minimum, a literal turned into a parameter the binding can set, a
 * ROLLBACK demoted to HOLD, a scope that stops watching a slice.  Every
 * change must be proved a tightening or the pack is refused; what cannot
 * be compared (a parameter without a default) must stay identical.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates.h"

#define REG(...)	gates_fail(err, GATES_E_REGISTRY, __VA_ARGS__)

static size_t
alen(const struct json_value *arr)
{
	return arr != NULL && arr->type == JSON_ARRAY ? arr->u.array.n : 0;
}

static int
scope_tightens(const char *cid, const struct json_value *parent,
    const struct json_value *child, struct gates_error *err)
{
	const struct json_value	*from = json_get(parent, "scope");
	const struct json_value	*to = json_get(child, "scope");
	const struct json_value	*fs, *ts, *fe, *te;
	char			*fm, *tm, *s;
	size_t			 i, n;
	int			 r = 0;

	fm = gt_cstr(json_get(from, "mode"));
	tm = gt_cstr(json_get(to, "mode"));
	fs = json_get(from, "slices");
	ts = json_get(to, "slices");
	fe = json_get(from, "except");
	te = json_get(to, "except");
	if (strcmp(fm, tm) == 0) {
		if (strcmp(tm, "listed") == 0) {
			for (i = 0; i < alen(fs); i++)
				if (!gt_in_array(ts, &fs->u.array.v[i])) {
					r = REG("gate %s scope listed may not "
					    "drop inherited slices", cid);
					goto out;
				}
		} else if (strcmp(tm, "pooled") == 0) {
			/* Set sizes: the schema keeps both unique. */
			n = alen(ts);
			for (i = 0; i < n && r == 0; i++)
				if (!gt_in_array(fs, &ts->u.array.v[i]))
					r = -1;
			if (n != alen(fs) || r == -1) {
				r = REG("gate %s scope pooled may not change "
				    "its slice set", cid);
				goto out;
			}
		}
		for (i = 0; i < alen(te); i++)
			if (!gt_in_array(fe, &te->u.array.v[i])) {
				r = REG("gate %s scope may only narrow "
				    "inherited exceptions", cid);
				goto out;
			}
		goto out;
	}
	if (strcmp(fm, "listed") == 0 && strcmp(tm, "each") == 0) {
		for (i = 0; i < alen(fs); i++)
			if (gt_in_array(te, &fs->u.array.v[i])) {
				s = gt_cstr(&fs->u.array.v[i]);
				r = REG("gate %s scope listed -> each may not "
				    "except inherited slice '%s'", cid, s);
				free(s);
				goto out;
			}
		goto out;
	}
	if (strcmp(fm, "all") == 0 && strcmp(tm, "each") == 0 &&
	    (gt_str_is(json_get(child, "kind"), "count-min") ||
	    gt_str_is(json_get(child, "kind"), "minimum-n"))) {
		if (alen(te) > 0)
			r = REG("gate %s scope all -> each may not except "
			    "slices", cid);
		goto out;
	}
	r = REG("gate %s scope change %s -> %s is not a monotone tightening",
	    cid, fm, tm);
 out:
	free(fm);
	free(tm);
	return r;
}

/* A copy of a statistic with levelBps set to 0 ({...s, levelBps: 0}). */
static void
stat_sans_level(struct json_value *dst, const struct json_value *s)
{
	if (s == NULL)
		gt_set_obj(dst);
	else
		gt_copy(dst, s);
	if (!gt_is_obj(dst)) {
		json_value_clear(dst);
		gt_set_obj(dst);
	}
	gt_remove(dst, "levelBps");
	gt_set_num(gt_add(dst, "levelBps"), 0);
}

static int
json_or_null_equal(const struct json_value *a, const struct json_value *b)
{
	static const struct json_value	 null = { .type = JSON_NULL };

	return gt_equal(a != NULL ? a : &null, b != NULL ? b : &null);
}

/* statistic.mode ?? 'non-inferiority' */
static const struct json_value *
mode_of(const struct json_value *stat)
{
	static const uint16_t		 ni[] = { 'n', 'o', 'n', '-', 'i', 'n',
	    'f', 'e', 'r', 'i', 'o', 'r', 'i', 't', 'y' };
	static const struct json_value	 dflt = { .type = JSON_STRING,
	    .u.string = { (uint16_t *)ni, nitems(ni) } };
	const struct json_value		*m = json_get(stat, "mode");

	return m != NULL ? m : &dflt;
}

static int
ref_param_equal(const struct json_value *a, const struct json_value *b)
{
	return gt_equal(json_get(a, "param"), json_get(b, "param"));
}

int
gates_gate_tightens(const struct json_value *parent,
    const struct json_value *child, const struct json_value *params,
    struct gates_error *err)
{
	const struct json_value	*ps, *cs, *pl, *cl, *pt, *ct, *pm, *cm, *pe;
	const struct json_value	*ce;
	struct json_value	 a, b;
	char			 cid[256], pk[64], ck[64], n1[32], n2[32], *s;
	char			 dir[64];
	enum gp_rn		 rb, ra;
	double			 before = 0, after = 0;
	size_t			 i;
	int			 eq;

	gt_strlcpy(cid, json_get(child, "id"), sizeof(cid));
	gt_strlcpy(pk, json_get(parent, "kind"), sizeof(pk));
	gt_strlcpy(ck, json_get(child, "kind"), sizeof(ck));
	if (strcmp(pk, ck) != 0)
		return REG("gate %s may not change kind %s -> %s", cid, pk, ck);
	if (!json_or_null_equal(json_get(parent, "metric"),
	    json_get(child, "metric")))
		return REG("gate %s may not change its metric reference", cid);
	if (!gt_equal(json_get(parent, "direction"), json_get(child, "direction")))
		return REG("gate %s may not change its tightening direction",
		    cid);
	ps = json_get(parent, "statistic");
	cs = json_get(child, "statistic");
	stat_sans_level(&a, ps);
	stat_sans_level(&b, cs);
	eq = gt_equal(&a, &b);
	json_value_clear(&a);
	json_value_clear(&b);
	if (!eq)
		return REG("gate %s may not change its statistic (levelBps "
		    "aside)", cid);
	pl = json_get(ps, "levelBps");
	cl = json_get(cs, "levelBps");
	if (gt_is_num(pl) && gp_is_ref(cl))
		return REG("gate %s may not convert a literal levelBps into a "
		    "parameter", cid);
	if (gp_is_ref(pl) && gp_is_ref(cl) && !ref_param_equal(pl, cl))
		return REG("gate %s may not rename its levelBps parameter", cid);
	rb = gp_resolve_default(pl, params, "level", &before);
	ra = gp_resolve_default(cl, params, "level", &after);
	if (rb == GP_NULL || ra == GP_NULL) {
		if (!json_or_null_equal(pl, cl))
			return REG("gate %s levelBps change is unresolvable "
			    "without parameter defaults", cid);
	} else if ((ra != GP_UNDEF || rb != GP_UNDEF) &&
	    (ra == GP_VALUE ? after : 0) < (rb == GP_VALUE ? before : 0))
		return REG("gate %s may only raise levelBps", cid);
	if (!gt_equal(mode_of(ps), mode_of(cs)))
		return REG("gate %s may not change its paired mode", cid);
	pm = json_get(ps, "marginBps");
	cm = json_get(cs, "marginBps");
	if (gt_is_num(pm) && gt_is_num(cm) && cm->u.number < pm->u.number)
		return REG("gate %s may only raise marginBps", cid);
	pt = json_get(parent, "threshold");
	ct = json_get(child, "threshold");
	if (json_get(pt, "value") != NULL && json_get(ct, "param") != NULL)
		return REG("gate %s may not convert a literal threshold into a "
		    "parameter", cid);
	if (json_get(pt, "param") != NULL && json_get(ct, "param") != NULL &&
	    !gt_equal(json_get(pt, "param"), json_get(ct, "param")))
		return REG("gate %s may not rename its threshold parameter",
		    cid);
	rb = gp_threshold_default(parent, params, &before);
	ra = gp_threshold_default(child, params, &after);
	gt_strlcpy(dir, json_get(child, "direction"), sizeof(dir));
	if (rb != GP_VALUE || ra != GP_VALUE) {
		if (!json_or_null_equal(pt, ct))
			return REG("gate %s threshold change is unresolvable "
			    "without parameter defaults", cid);
	} else if (strcmp(dir, "lower-is-stricter") == 0 ? after > before :
	    after < before)
		return REG("gate %s threshold %s -> %s loosens direction %s",
		    cid, gp_num(before, n1), gp_num(after, n2), dir);
	pm = json_get(parent, "minimumN");
	cm = json_get(child, "minimumN");
	if (gt_is_num(pm) && gp_is_ref(cm))
		return REG("gate %s may not convert a literal minimumN into a "
		    "parameter", cid);
	if (gp_is_ref(pm) && gp_is_ref(cm) && !ref_param_equal(pm, cm))
		return REG("gate %s may not rename its minimumN parameter", cid);
	before = after = 0;
	rb = pm == NULL ? GP_VALUE : gp_resolve_default(pm, params, "count",
	    &before);
	ra = cm == NULL ? GP_VALUE : gp_resolve_default(cm, params, "count",
	    &after);
	if (rb != GP_VALUE || ra != GP_VALUE) {
		if (!json_or_null_equal(pm, cm))
			return REG("gate %s minimumN change is unresolvable "
			    "without parameter defaults", cid);
	} else if (after < before)
		return REG("gate %s may only raise minimumN", cid);
	if (gt_str_is(json_get(parent, "onFail"), "ROLLBACK") &&
	    !gt_str_is(json_get(child, "onFail"), "ROLLBACK"))
		return REG("gate %s may not demote onFail ROLLBACK -> HOLD",
		    cid);
	if ((json_get(parent, "onInsufficient") != NULL &&
	    !gt_str_is(json_get(parent, "onInsufficient"), "HOLD")) ||
	    (json_get(child, "onInsufficient") != NULL &&
	    !gt_str_is(json_get(child, "onInsufficient"), "HOLD")))
		return REG("gate %s onInsufficient must be HOLD: insufficient "
		    "evidence never rolls back", cid);
	if (json_get(parent, "floor") != NULL &&
	    json_get(parent, "floor")->type == JSON_TRUE &&
	    (json_get(child, "floor") == NULL ||
	    json_get(child, "floor")->type != JSON_TRUE))
		return REG("gate %s is a floor gate and cannot be un-floored",
		    cid);
	if (scope_tightens(cid, parent, child, err) == -1)
		return -1;
	pe = json_get(json_get(parent, "evidence"), "required");
	ce = json_get(json_get(child, "evidence"), "required");
	for (i = 0; i < alen(pe); i++)
		if (!gt_in_array(ce, &pe->u.array.v[i])) {
			s = gt_cstr(&pe->u.array.v[i]);
			REG("gate %s may not drop required evidence %s", cid, s);
			free(s);
			return -1;
		}
	if (!json_or_null_equal(json_get(parent, "predicate"),
	    json_get(child, "predicate")))
		return REG("gate %s may not change its predicate", cid);
	return 0;
}

/* applyGateExtends(parentResolved, child) into *out. */
static int
apply_extends(const struct json_value *parent, const struct json_value *child,
    struct json_value **out, struct gates_error *err)
{
	const struct json_value	*cspec, *cparams, *pgates, *cgates, *over;
	const struct json_value	*cmetrics, *pmetrics, *before, *p, *pd, *cd;
	struct json_value	*doc, *spec, *params, *metrics, *gates, *slot;
	struct json_value	 mp;
	char			 cid[1024], *name;
	size_t			 i, j;
	int			 tight, found;

	gt_strlcpy(cid, json_get(json_get(child, "metadata"), "id"), sizeof(cid));
	cspec = json_get(child, "spec");
	/* Merged parameters, in the parent's order, then new ones. */
	if (gp_params(parent) != NULL)
		gt_copy(&mp, gp_params(parent));
	else
		gt_set_obj(&mp);
	cparams = gp_params(child);
	for (i = 0; cparams != NULL && i < cparams->u.object.n; i++) {
		p = &cparams->u.object.m[i].value;
		name = gt_jstr_cstr(&cparams->u.object.m[i].key);
		before = json_get(&mp, name);
		if (before == NULL) {
			gt_copy(gt_add(&mp, name), p);
			free(name);
			continue;
		}
		pd = json_get(before, "default");
		cd = json_get(p, "default");
		if (!gt_equal(json_get(before, "type"), json_get(p, "type")) ||
		    !gt_equal(json_get(before, "direction"),
		    json_get(p, "direction"))) {
			REG("pack %s may not change parameter %s type or "
			    "direction", cid, name);
			goto fail_name;
		}
		if (pd == NULL && cd != NULL) {
			REG("pack %s may not add a default to required "
			    "parameter %s", cid, name);
			goto fail_name;
		}
		if (pd != NULL && cd != NULL) {
			tight = gt_str_is(json_get(p, "direction"),
			    "lower-is-stricter") ?
			    cd->u.number <= pd->u.number :
			    cd->u.number >= pd->u.number;
			if (!tight) {
				REG("pack %s parameter %s default loosens",
				    cid, name);
				goto fail_name;
			}
		}
		/* Replace in place: the key keeps its first position. */
		for (j = 0; j < mp.u.object.n; j++)
			if (json_key_is(&mp.u.object.m[j].key, name)) {
				json_value_clear(&mp.u.object.m[j].value);
				gt_copy(&mp.u.object.m[j].value, p);
			}
		free(name);
		continue;
 fail_name:
		free(name);
		json_value_clear(&mp);
		return -1;
	}
	doc = xcalloc(1, sizeof(*doc));
	gt_set_obj(doc);
	gt_copy(gt_add(doc, "apiVersion"), json_get(child, "apiVersion"));
	gt_copy(gt_add(doc, "kind"), json_get(child, "kind"));
	gt_copy(gt_add(doc, "metadata"), json_get(child, "metadata"));
	spec = gt_add(doc, "spec");
	gt_set_obj(spec);
	if (json_get(cspec, "extends") != NULL)
		gt_copy(gt_add(spec, "extends"), json_get(cspec, "extends"));
	params = gt_add(spec, "parameters");
	*params = mp;
	metrics = gt_add(spec, "metrics");
	gt_set_obj(metrics);
	gates = gt_add(spec, "gates");
	gt_set_arr(gates);
	if (json_get(cspec, "combine") != NULL)
		gt_copy(gt_add(spec, "combine"), json_get(cspec, "combine"));
	/* Pointers into spec are stable from here: no more members. */
	params = (struct json_value *)json_get(spec, "parameters");
	metrics = (struct json_value *)json_get(spec, "metrics");
	gates = (struct json_value *)json_get(spec, "gates");

	pgates = gp_gates(parent);
	cgates = gp_gates(child);
	for (i = 0; i < alen(pgates); i++) {
		p = &pgates->u.array.v[i];
		over = NULL;
		for (j = 0; j < alen(cgates) && over == NULL; j++)
			if (gt_equal(json_get(&cgates->u.array.v[j], "id"),
			    json_get(p, "id")))
				over = &cgates->u.array.v[j];
		if (over == NULL) {
			if (json_get(p, "floor") != NULL &&
			    json_get(p, "floor")->type == JSON_TRUE) {
				name = gt_cstr(json_get(p, "id"));
				REG("pack %s may not remove floor gate %s", cid,
				    name);
				free(name);
				goto fail;
			}
			continue;
		}
		if (gates_gate_tightens(p, over, params, err) == -1)
			goto fail;
		gt_copy(gt_push(gates), over);
	}
	for (i = 0; i < alen(cgates); i++) {
		for (found = 0, j = 0; j < alen(pgates) && !found; j++)
			found = gt_equal(json_get(&pgates->u.array.v[j], "id"),
			    json_get(&cgates->u.array.v[i], "id"));
		/* A second override of a parent gate is dropped
		 * (interop.md §G13.10); new gates all go in, and validation
		 * refuses duplicates among them. */
		if (!found)
			gt_copy(gt_push(gates), &cgates->u.array.v[i]);
	}
	pmetrics = json_get(json_get(parent, "spec"), "metrics");
	if (pmetrics != NULL) {
		json_value_clear(metrics);
		gt_copy(metrics, pmetrics);
	}
	cmetrics = json_get(cspec, "metrics");
	for (i = 0; cmetrics != NULL && i < cmetrics->u.object.n; i++) {
		name = gt_jstr_cstr(&cmetrics->u.object.m[i].key);
		before = json_get(metrics, name);
		p = &cmetrics->u.object.m[i].value;
		if (before != NULL && (!gt_equal(json_get(before, "provider"),
		    json_get(p, "provider")) || !gt_equal(json_get(before, "kind"),
		    json_get(p, "kind")))) {
			REG("pack %s may not change inherited metric %s", cid,
			    name);
			free(name);
			goto fail;
		}
		if (before != NULL) {
			for (j = 0; j < metrics->u.object.n; j++)
				if (json_key_is(&metrics->u.object.m[j].key,
				    name)) {
					slot = &metrics->u.object.m[j].value;
					json_value_clear(slot);
					gt_copy(slot, p);
				}
		} else
			gt_copy(gt_add(metrics, name), p);
		free(name);
	}
	*out = doc;
	return 0;
 fail:
	json_free(doc);
	return -1;
}

static int
compose(const struct gates_registry *reg, const struct json_value *pack,
    struct json_value **out, size_t depth, struct gates_error *err)
{
	const struct json_value	*ext;
	const struct gates_pack	*parent;
	struct json_value	*presolved;
	char			 cid[1024], *pid, *pver;
	int			 r;

	ext = json_get(json_get(pack, "spec"), "extends");
	if (ext == NULL) {
		/* Its own composition: resolvedDigest == digest. */
		*out = gt_dup(pack);
		return 0;
	}
	gt_strlcpy(cid, json_get(json_get(pack, "metadata"), "id"), sizeof(cid));
	/* Registered packs form no cycle (a parent registers first); the
	 * bound only protects against a caller's hand-built registry. */
	if (depth > 64)
		return REG("pack %s extends chain is too deep", cid);
	pid = gt_cstr(json_get(ext, "id"));
	pver = gt_cstr(json_get(ext, "version"));
	if ((parent = gates_registry_find(reg, pid)) == NULL) {
		r = REG("pack %s extends unknown pack %s", cid, pid);
		goto out;
	}
	if (!gt_str_is(json_get(json_get(parent->authored, "metadata"),
	    "version"), pver) || !gt_str_is(json_get(ext, "digest"),
	    parent->digest)) {
		r = REG("pack %s parent pin mismatch for %s@%s", cid, pid, pver);
		goto out;
	}
	if ((r = compose(reg, parent->authored, &presolved, depth + 1,
	    err)) == -1)
		goto out;
	r = apply_extends(presolved, pack, out, err);
	json_free(presolved);
 out:
	free(pid);
	free(pver);
	return r;
}

int
gates_compose(const struct gates_registry *reg, const struct json_value *pack,
    struct json_value **out, struct gates_error *err)
{
	*out = NULL;
	return compose(reg, pack, out, 0, err);
}
