/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * validate.c: validateResolvedPack (interop.md §G2.5), the semantic checks
 * a schema cannot express, run on every composed pack at registration
 * and on floor packs.  Confused authoring (a bound with the wrong op, a
 * statistic field its kind ignores) fails at load instead of quietly
 * evaluating something else; the first failure is reported, in the
 * reference's order and words.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates.h"

#define REG(...)	gates_fail(err, GATES_E_REGISTRY, __VA_ARGS__)

static int
is_safe_nonneg(double d)
{
	return isfinite(d) && floor(d) == d && fabs(d) <= 9007199254740991.0 &&
	    d >= 0;
}

static int
check_parameter(const char *name, const struct json_value *p,
    struct gates_error *err)
{
	const struct json_value	*def = json_get(p, "default");
	double			 d;

	if (def == NULL)
		return 0;
	d = def->u.number;
	if (!isfinite(d))
		return REG("parameter %s default must be finite", name);
	if (gt_str_is(json_get(p, "type"), "bps") && (d < 0 || d > 10000))
		return REG("parameter %s bps default must be within 0..10000",
		    name);
	if (gt_str_is(json_get(p, "type"), "level") && (!gt_is_safeint(def) ||
	    d <= 5000 || d >= 9999))
		return REG("parameter %s level default must be an integer "
		    "strictly between 5000 and 9999", name);
	if (gt_str_is(json_get(p, "type"), "count") && !is_safe_nonneg(d))
		return REG("parameter %s count default must be a non-negative "
		    "integer", name);
	return 0;
}

static const struct json_value *
param_decl(const struct json_value *params, const struct json_value *name)
{
	char				*n;
	const struct json_value		*d;

	if ((n = gt_cstr(name)) == NULL)
		return NULL;
	d = json_get(params, n);
	free(n);
	return d;
}

static int
check_param_ref(const char *gid, const struct json_value *value,
    const struct json_value *params, const char *type, const char *what,
    struct gates_error *err)
{
	const struct json_value	*d;
	char			*pn;
	int			 r = 0;

	if (value == NULL || gt_is_num(value))
		return 0;
	pn = gt_cstr(json_get(value, "param"));
	if (!gp_is_ref(value) || (d = param_decl(params,
	    json_get(value, "param"))) == NULL)
		r = REG("gate %s %s references unknown parameter '%s'", gid,
		    what, pn != NULL ? pn : "undefined");
	else if (!gt_str_is(json_get(d, "type"), type))
		r = REG("gate %s %s parameter '%s' must have type %s", gid,
		    what, pn, type);
	free(pn);
	return r;
}

static int
check_threshold(const struct json_value *gate, const char *gid,
    const char *kind, const struct json_value *params,
    struct gates_error *err)
{
	const struct json_value	*t, *v, *pname, *decl = NULL, *stat, *bound;
	const char		*want;
	char			*pn;
	int			 need, is_lte, op_lte;

	need = strcmp(kind, "interval-bound") == 0 ||
	    strcmp(kind, "bootstrap-bound") == 0 ||
	    strcmp(kind, "count-max") == 0 || strcmp(kind, "count-min") == 0 ||
	    strcmp(kind, "value-threshold") == 0;
	if ((t = json_get(gate, "threshold")) == NULL) {
		if (need)
			return REG("gate %s of kind %s requires a threshold",
			    gid, kind);
		return 0;
	}
	if (!need)
		return REG("gate %s of kind %s must not carry a threshold",
		    gid, kind);
	pname = json_get(t, "param");
	if (pname != NULL && (decl = param_decl(params, pname)) == NULL) {
		pn = gt_cstr(pname);
		REG("gate %s references unknown parameter '%s'", gid, pn);
		free(pn);
		return -1;
	}
	want = strcmp(kind, "interval-bound") == 0 ||
	    strcmp(kind, "bootstrap-bound") == 0 ? "bps" :
	    strncmp(kind, "count-", 6) == 0 ? "count" : "value";
	if (decl != NULL && !gt_str_is(json_get(decl, "type"), want)) {
		pn = gt_cstr(pname);
		REG("gate %s parameter '%s' must have type %s", gid, pn, want);
		free(pn);
		return -1;
	}
	if ((v = json_get(t, "value")) != NULL) {
		if (!isfinite(v->u.number))
			return REG("gate %s threshold value must be finite",
			    gid);
		if (strcmp(want, "bps") == 0 && (v->u.number < 0 ||
		    v->u.number > 10000))
			return REG("gate %s threshold must be within 0..10000 "
			    "bps", gid);
		if (strcmp(want, "count") == 0 && !is_safe_nonneg(v->u.number))
			return REG("gate %s threshold must be a non-negative "
			    "integer count", gid);
	}
	op_lte = gt_str_is(json_get(t, "op"), "lte");
	is_lte = strcmp(kind, "count-max") == 0 ? 1 :
	    strcmp(kind, "count-min") == 0 ? 0 : op_lte;
	if (strcmp(kind, "count-max") == 0 && !op_lte)
		return REG("gate %s count-max requires op lte", gid);
	if (strcmp(kind, "count-min") == 0 && !gt_str_is(json_get(t, "op"),
	    "gte"))
		return REG("gate %s count-min requires op gte", gid);
	stat = json_get(gate, "statistic");
	bound = json_get(stat, "bound");
	if (strcmp(kind, "interval-bound") == 0 && gt_str_is(bound, "upper") &&
	    !op_lte)
		return REG("gate %s upper-bound gates require op lte", gid);
	if (strcmp(kind, "interval-bound") == 0 && gt_str_is(bound, "lower") &&
	    !gt_str_is(json_get(t, "op"), "gte"))
		return REG("gate %s lower-bound gates require op gte", gid);
	if (strcmp(kind, "value-threshold") == 0) {
		if (op_lte && !gt_str_is(json_get(gate, "direction"),
		    "lower-is-stricter"))
			return REG("gate %s lte requires direction "
			    "lower-is-stricter", gid);
		if (gt_str_is(json_get(t, "op"), "gte") &&
		    !gt_str_is(json_get(gate, "direction"), "higher-is-stricter"))
			return REG("gate %s gte requires direction "
			    "higher-is-stricter", gid);
	}
	if (strcmp(kind, "interval-bound") == 0 ||
	    strcmp(kind, "bootstrap-bound") == 0) {
		if (is_lte && !gt_str_is(json_get(gate, "direction"),
		    "lower-is-stricter"))
			return REG("gate %s upper-bound gates require "
			    "direction lower-is-stricter", gid);
		if (!is_lte && gt_str_is(json_get(t, "op"), "gte") &&
		    !gt_str_is(json_get(gate, "direction"), "higher-is-stricter"))
			return REG("gate %s lower-bound gates require "
			    "direction higher-is-stricter", gid);
	}
	return 0;
}

static int
statistical(const char *kind)
{
	return strcmp(kind, "interval-bound") == 0 ||
	    strcmp(kind, "paired-difference") == 0 ||
	    strcmp(kind, "bootstrap-bound") == 0;
}

static int
check_statistic(const struct json_value *gate, const char *gid,
    const char *kind, const struct json_value *params,
    struct gates_error *err)
{
	const struct json_value	*s, *method, *bound, *level, *mode, *margin;
	const struct json_value	*seed, *resamples, *bounds;
	int			 ni;

	if ((s = json_get(gate, "statistic")) == NULL) {
		if (statistical(kind))
			return REG("gate %s of kind %s requires a statistic",
			    gid, kind);
		return 0;
	}
	if (!statistical(kind))
		return REG("gate %s of kind %s must not carry a statistic", gid,
		    kind);
	if (!gt_str_is(json_get(s, "kind"), kind))
		return REG("gate %s statistic kind must match the gate kind",
		    gid);
	method = json_get(s, "method");
	bound = json_get(s, "bound");
	level = json_get(s, "levelBps");
	mode = json_get(s, "mode");
	margin = json_get(s, "marginBps");
	seed = json_get(s, "seed");
	resamples = json_get(s, "resamples");
	bounds = json_get(s, "bounds");
	if (strcmp(kind, "interval-bound") == 0) {
		if (method != NULL && !gt_str_is(method, "wilson") &&
		    !gt_str_is(method, "clopper-pearson"))
			return REG("gate %s interval-bound method must be "
			    "wilson or clopper-pearson", gid);
		if (!gt_str_is(bound, "upper") && !gt_str_is(bound, "lower"))
			return REG("gate %s interval-bound requires bound "
			    "upper|lower", gid);
		if (level == NULL)
			return REG("gate %s interval-bound requires levelBps",
			    gid);
		if (check_param_ref(gid, level, params, "level", "levelBps",
		    err) == -1)
			return -1;
		if (mode != NULL || margin != NULL || seed != NULL ||
		    resamples != NULL || bounds != NULL)
			return REG("gate %s interval-bound must not carry mode, "
			    "margin, seed, resamples or bounds", gid);
	} else if (strcmp(kind, "paired-difference") == 0) {
		if (method != NULL && !gt_str_is(method, "newcombe") &&
		    !gt_str_is(method, "tango"))
			return REG("gate %s paired-difference method must be "
			    "newcombe or tango", gid);
		if (bound != NULL)
			return REG("gate %s paired-difference must not carry "
			    "bound", gid);
		if (level == NULL)
			return REG("gate %s paired-difference requires "
			    "levelBps", gid);
		if (check_param_ref(gid, level, params, "level", "levelBps",
		    err) == -1)
			return -1;
		ni = mode == NULL || gt_str_is(mode, "non-inferiority");
		if (!ni && !gt_str_is(mode, "superiority"))
			return REG("gate %s unknown paired mode", gid);
		if (ni && margin == NULL)
			return REG("gate %s non-inferiority requires marginBps",
			    gid);
		if (ni && margin->u.number > 0)
			return REG("gate %s non-inferiority marginBps must be "
			    "non-positive", gid);
		if (!ni && margin != NULL && margin->u.number < 0)
			return REG("gate %s superiority marginBps must be "
			    "non-negative", gid);
		if (seed != NULL || resamples != NULL || bounds != NULL)
			return REG("gate %s paired-difference must not carry "
			    "seed, resamples or bounds", gid);
	} else {
		if (method != NULL && !gt_str_is(method, "bootstrap"))
			return REG("gate %s bootstrap-bound method must be "
			    "bootstrap", gid);
		if (!gt_str_is(bound, "upper") && !gt_str_is(bound, "lower"))
			return REG("gate %s bootstrap-bound requires bound "
			    "upper|lower", gid);
		if (level == NULL || seed == NULL || resamples == NULL ||
		    bounds == NULL)
			return REG("gate %s bootstrap-bound requires levelBps, "
			    "seed, resamples and bounds", gid);
		if (check_param_ref(gid, level, params, "level", "levelBps",
		    err) == -1)
			return -1;
		if (mode != NULL || margin != NULL)
			return REG("gate %s bootstrap-bound must not carry mode "
			    "or margin", gid);
	}
	return 0;
}

static const char *
expected_metric_kind(const char *kind)
{
	if (strcmp(kind, "interval-bound") == 0 ||
	    strcmp(kind, "count-max") == 0 || strcmp(kind, "count-min") == 0)
		return "proportion";
	if (strcmp(kind, "paired-difference") == 0)
		return "paired";
	if (strcmp(kind, "bootstrap-bound") == 0)
		return "differences";
	if (strcmp(kind, "value-threshold") == 0)
		return "scalar";
	if (strcmp(kind, "evidence") == 0)
		return "evidence";
	return NULL;
}

static int
check_gate(const char *packid, const struct json_value *gate,
    const struct json_value *metrics, const struct json_value *params,
    struct gates_error *err)
{
	const struct json_value	*metric, *decl = NULL, *mkind = NULL, *mn;
	const struct json_value	*scope, *ev, *req, *slices;
	char			 gid[256], kind[64], *prov, *name, *mode;
	const char		*want;
	enum gp_rn		 rn;
	double			 d = 0;
	int			 r;

	(void)packid;
	gt_strlcpy(gid, json_get(gate, "id"), sizeof(gid));
	gt_strlcpy(kind, json_get(gate, "kind"), sizeof(kind));
	if (!gt_str_is(json_get(gate, "onFail"), "HOLD") &&
	    !gt_str_is(json_get(gate, "onFail"), "ROLLBACK"))
		return REG("gate %s onFail must be HOLD or ROLLBACK, never "
		    "PROMOTE", gid);
	if (json_get(gate, "onInsufficient") != NULL &&
	    !gt_str_is(json_get(gate, "onInsufficient"), "HOLD"))
		return REG("gate %s onInsufficient must be HOLD: insufficient "
		    "evidence never rolls back", gid);
	if ((metric = json_get(gate, "metric")) != NULL) {
		name = gt_cstr(json_get(metric, "name"));
		prov = gt_cstr(json_get(metric, "provider"));
		decl = json_get(metrics, name);
		if (decl == NULL || !gt_canon_equal(json_get(decl, "provider"),
		    json_get(metric, "provider"))) {
			REG("gate %s references undeclared metric %s:%s", gid,
			    prov, name);
			free(name);
			free(prov);
			return -1;
		}
		free(name);
		free(prov);
		mkind = json_get(decl, "kind");
	}
	want = expected_metric_kind(kind);
	if (want != NULL && !gt_str_is(mkind, want))
		return REG("gate %s of kind %s requires a %s metric", gid, kind,
		    want);
	if (check_threshold(gate, gid, kind, params, err) == -1 ||
	    check_statistic(gate, gid, kind, params, err) == -1)
		return -1;
	mn = json_get(gate, "minimumN");
	if (check_param_ref(gid, mn, params, "count", "minimumN", err) == -1)
		return -1;
	if (strcmp(kind, "minimum-n") == 0) {
		if (mn == NULL)
			return REG("gate %s minimum-n requires minimumN >= 1",
			    gid);
		rn = gp_resolve_default(mn, params, "count", &d);
		if (gt_is_num(mn) && mn->u.number < 1)
			return REG("gate %s minimum-n requires minimumN >= 1",
			    gid);
		if (gp_is_ref(mn) && (decl = param_decl(params,
		    json_get(mn, "param"))) != NULL &&
		    json_get(decl, "default") != NULL &&
		    (rn == GP_VALUE ? d : 0) < 1)
			return REG("gate %s minimum-n requires minimumN >= 1",
			    gid);
		if (gt_str_is(mkind, "evidence"))
			return REG("gate %s minimum-n cannot observe an "
			    "evidence metric", gid);
	} else if (gt_is_num(mn) && !is_safe_nonneg(mn->u.number))
		return REG("gate %s minimumN must be a non-negative integer",
		    gid);
	ev = json_get(gate, "evidence");
	req = json_get(ev, "required");
	if (strcmp(kind, "evidence") == 0 && (ev == NULL || req == NULL ||
	    req->u.array.n == 0))
		return REG("gate %s evidence requires a nonempty required list",
		    gid);
	if (strcmp(kind, "evidence") != 0 && ev != NULL)
		return REG("gate %s of kind %s must not carry evidence", gid,
		    kind);
	if (strcmp(kind, "predicate") != 0 && json_get(gate, "predicate") != NULL)
		return REG("gate %s of kind %s must not carry a predicate", gid,
		    kind);
	scope = json_get(gate, "scope");
	slices = json_get(scope, "slices");
	mode = gt_cstr(json_get(scope, "mode"));
	r = 0;
	if ((strcmp(mode, "listed") == 0 || strcmp(mode, "pooled") == 0) &&
	    (slices == NULL || slices->u.array.n == 0))
		r = REG("gate %s scope %s requires a nonempty slices list", gid,
		    mode);
	else if (json_get(scope, "except") != NULL && strcmp(mode, "each") != 0)
		r = REG("gate %s scope except is only allowed with mode each",
		    gid);
	free(mode);
	return r;
}

int
gates_validate_pack(const struct json_value *pack,
    const struct gates_registry *reg, struct gates_error *err)
{
	const struct json_value		*gates, *params, *metrics, *m;
	const struct gates_provider	*prov;
	char				 packid[1024], *name, *pname;
	size_t				 i, j, k;
	int				 r;

	gt_strlcpy(packid, json_get(json_get(pack, "metadata"), "id"),
	    sizeof(packid));
	gates = gp_gates(pack);
	for (i = 0; i < gates->u.array.n; i++)
		for (j = i + 1; j < gates->u.array.n; j++)
			if (gt_canon_equal(json_get(&gates->u.array.v[i], "id"),
			    json_get(&gates->u.array.v[j], "id")))
				return REG("pack %s has duplicate gate ids",
				    packid);
	params = gp_params(pack);
	for (i = 0; params != NULL && i < params->u.object.n; i++) {
		name = gt_jstr_cstr(&params->u.object.m[i].key);
		r = check_parameter(name, &params->u.object.m[i].value, err);
		free(name);
		if (r == -1)
			return -1;
	}
	metrics = json_get(json_get(pack, "spec"), "metrics");
	for (i = 0; metrics != NULL && i < metrics->u.object.n; i++) {
		m = &metrics->u.object.m[i].value;
		name = gt_jstr_cstr(&metrics->u.object.m[i].key);
		pname = gt_cstr(json_get(m, "provider"));
		r = 0;
		if ((prov = gates_registry_provider(reg, pname)) == NULL)
			r = REG("pack %s metric %s names unknown provider %s",
			    packid, name, pname);
		else {
			for (k = 0; k < prov->nmetrics; k++)
				if (strcmp(prov->metrics[k].name, name) == 0)
					break;
			if (k == prov->nmetrics)
				r = REG("pack %s metric %s is not computed by "
				    "%s", packid, name, pname);
			else if (gates_metric_kind_parse(json_get(m, "kind")) !=
			    prov->metrics[k].kind) {
				char	*mk = gt_cstr(json_get(m, "kind"));

				r = REG("pack %s metric %s kind %s does not "
				    "match provider kind %s", packid, name, mk,
				    gates_metric_kind_name(
				    prov->metrics[k].kind));
				free(mk);
			}
		}
		free(name);
		free(pname);
		if (r == -1)
			return -1;
	}
	for (i = 0; i < gates->u.array.n; i++)
		if (check_gate(packid, &gates->u.array.v[i], metrics, params,
		    err) == -1)
			return -1;
	return 0;
}
