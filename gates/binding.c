/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * binding.c: resolveGateBinding (interop.md §G3.2).  A binding pins every
 * pack (authored and composed digests) and every provider it uses and
 * preregisters the parameter values; resolution proves the pins against
 * the registry, fills parameters from defaults, range-checks them and,
 * when floors are given, enforces the project's floors and ceilings.
 *
 * Threat: a binding that evaluates something other than what was
 * preregistered (a repinned pack, an unpinned provider, a parameter the
 * pack never declared).  Every check refuses rather than repairs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates.h"

#define REG(...)	gates_fail(err, GATES_E_REGISTRY, __VA_ARGS__)

void
gates_resolved_free(struct gates_resolved *res)
{
	free(res->packs);
	json_value_clear(&res->params);
	memset(res, 0, sizeof(*res));
}

static int
check_value(const char *name, const struct json_value *decl, double v,
    struct gates_error *err)
{
	const struct json_value	*type = json_get(decl, "type");
	int			 safe;

	safe = isfinite(v) && floor(v) == v && fabs(v) <= 9007199254740991.0;
	if (!isfinite(v))
		return REG("binding parameter %s must be finite", name);
	if (gt_str_is(type, "bps") && (v < 0 || v > 10000))
		return REG("binding parameter %s must be within 0..10000 bps",
		    name);
	if (gt_str_is(type, "level") && (!safe || v <= 5000 || v >= 9999))
		return REG("binding parameter %s must be an integer strictly "
		    "between 5000 and 9999", name);
	if (gt_str_is(type, "count") && (!safe || v < 0))
		return REG("binding parameter %s must be a non-negative integer",
		    name);
	return 0;
}

static int
resolve_pins(const struct gates_registry *reg, const char *bid,
    const struct json_value *pins, struct gates_resolved *res,
    struct gates_error *err)
{
	const struct json_value	*pin;
	const struct gates_pack	*p;
	char			*id, *ver;
	size_t			 i;
	int			 r;

	res->packs = xcalloc(pins->u.array.n, sizeof(*res->packs));
	for (i = 0; i < pins->u.array.n; i++) {
		pin = &pins->u.array.v[i];
		id = gt_cstr(json_get(pin, "id"));
		ver = gt_cstr(json_get(pin, "version"));
		r = 0;
		if ((p = gates_registry_lookup(reg, id, err)) == NULL)
			r = -1;
		else if (strcmp(p->id, id) != 0)
			r = REG("binding %s must pin the full pack id (got "
			    "'%s')", bid, id);
		else if (!gt_str_is(json_get(json_get(p->authored, "metadata"),
		    "version"), ver) ||
		    !gt_str_is(json_get(pin, "digest"), p->digest))
			r = REG("binding %s pack pin mismatch for %s@%s", bid,
			    id, ver);
		else if (!gt_str_is(json_get(pin, "resolvedDigest"),
		    p->resolved_digest))
			r = REG("binding %s composed-pack pin mismatch for "
			    "%s@%s", bid, id, ver);
		free(id);
		free(ver);
		if (r == -1)
			return -1;
		res->packs[res->npacks++].pack = p;
	}
	return 0;
}

static int
check_providers(const struct gates_registry *reg, const char *bid,
    const struct json_value *pins, const struct gates_resolved *res,
    struct gates_error *err)
{
	const struct json_value		*pin, *gates, *metric;
	const struct gates_provider	*prov;
	char				 sd[DIGEST_STR_LEN + 1], *id = NULL, *mp;
	size_t				 i, j, k;
	int				 pinned;

	for (i = 0; i < pins->u.array.n; i++) {
		pin = &pins->u.array.v[i];
		id = gt_cstr(json_get(pin, "id"));
		if ((prov = gates_registry_provider(reg, id)) == NULL) {
			REG("binding %s pins unknown provider %s", bid, id);
			goto fail;
		}
		gates_provider_source_digest(prov, sd);
		if (!gt_str_is(json_get(pin, "version"), prov->version) ||
		    !gt_str_is(json_get(pin, "sourceDigest"), sd)) {
			REG("binding %s provider pin mismatch for %s", bid, id);
			goto fail;
		}
		if (prov->code_digest != NULL) {
			if (!gt_str_is(json_get(pin, "codeDigest"),
			    prov->code_digest)) {
				REG("binding %s provider code pin mismatch for "
				    "%s", bid, id);
				goto fail;
			}
			mp = gt_cstr(json_get(pin, "recordsDigest"));
			if (mp == NULL || !gates_digest_ok(mp)) {
				free(mp);
				REG("binding %s provider records pin mismatch "
				    "for %s", bid, id);
				goto fail;
			}
			free(mp);
		} else {
			if (json_get(pin, "codeDigest") != NULL) {
				REG("binding %s provider code pin mismatch for "
				    "%s", bid, id);
				goto fail;
			}
			if (json_get(pin, "recordsDigest") != NULL) {
				REG("binding %s provider records pin mismatch "
				    "for %s", bid, id);
				goto fail;
			}
		}
		free(id);
		id = NULL;
	}
	/* Every provider a gate reads must be pinned (first seen first). */
	for (i = 0; i < res->npacks; i++) {
		gates = gp_gates(res->packs[i].pack->composed);
		for (j = 0; j < gates->u.array.n; j++) {
			metric = json_get(&gates->u.array.v[j], "metric");
			if (metric == NULL)
				continue;
			for (pinned = 0, k = 0; k < pins->u.array.n && !pinned;
			    k++)
				pinned = gt_equal(json_get(&pins->u.array.v[k],
				    "id"), json_get(metric, "provider"));
			if (!pinned) {
				id = gt_cstr(json_get(metric, "provider"));
				REG("binding %s leaves provider %s used by a "
				    "gate unpinned", bid, id);
				goto fail;
			}
		}
	}
	return 0;
 fail:
	free(id);
	return -1;
}

static int
resolve_params(const char *bid, const struct json_value *bparams,
    struct gates_resolved *res, struct gates_error *err)
{
	const struct json_value	*params, *decl, *v;
	struct json_value	 declared;
	char			*q = NULL;
	size_t			 i, j, l;
	double			 d;
	int			 found;

	/* declared: qualified name -> declaration, in pack then
	 * declaration order (a later pack's same name replaces). */
	gt_set_obj(&declared);
	gt_set_obj(&res->params);
	for (i = 0; i < res->npacks; i++) {
		params = gp_params(res->packs[i].pack->composed);
		for (j = 0; params != NULL && j < params->u.object.n; j++) {
			struct json_value	 k;

			k.type = JSON_STRING;
			k.u.string = params->u.object.m[j].key;
			q = gp_qualify(res->packs[i].pack->id, &k);
			/* Map.set: a known key keeps its place. */
			for (l = 0; l < declared.u.object.n; l++)
				if (json_key_is(&declared.u.object.m[l].key, q))
					break;
			if (l < declared.u.object.n) {
				json_value_clear(&declared.u.object.m[l].value);
				gt_copy(&declared.u.object.m[l].value,
				    &params->u.object.m[j].value);
			} else
				gt_copy(gt_add(&declared, q),
				    &params->u.object.m[j].value);
			free(q);
		}
	}
	for (i = 0; i < declared.u.object.n; i++) {
		q = gt_jstr_cstr(&declared.u.object.m[i].key);
		decl = &declared.u.object.m[i].value;
		if ((v = json_get(bparams, q)) == NULL)
			v = json_get(decl, "default");
		if (v == NULL) {
			REG("binding %s is missing required parameter %s",
			    bid, q);
			goto fail;
		}
		d = v->u.number;
		if (check_value(q, decl, d, err) == -1)
			goto fail;
		gt_set_num(gt_add(&res->params, q), d);
		free(q);
	}
	for (i = 0; i < bparams->u.object.n; i++) {
		for (found = 0, j = 0; j < declared.u.object.n && !found; j++)
			found = json_string_compare(
			    &declared.u.object.m[j].key,
			    &bparams->u.object.m[i].key) == 0;
		if (!found) {
			q = gt_jstr_cstr(&bparams->u.object.m[i].key);
			REG("binding %s sets undeclared parameter %s", bid, q);
			goto fail;
		}
	}
	json_value_clear(&declared);
	return 0;
 fail:
	free(q);
	json_value_clear(&declared);
	return -1;
}

static int
check_slices(const char *bid, const struct json_value *spec,
    const struct gates_resolved *res, struct gates_error *err)
{
	const struct json_value	*slices, *groups, *members, *gates, *gate;
	const struct json_value	*scope, *lists[2], *refs, *vs;
	char			*g, *s;
	size_t			 i, j, k, l;
	int			 all, found;

	slices = json_get(spec, "slices");
	groups = json_get(spec, "sliceGroups");
	for (i = 0; groups != NULL && i < groups->u.object.n; i++) {
		members = &groups->u.object.m[i].value;
		for (j = 0; j < members->u.array.n; j++)
			if (!gt_in_array(slices, &members->u.array.v[j])) {
				g = gt_jstr_cstr(&groups->u.object.m[i].key);
				s = gt_cstr(&members->u.array.v[j]);
				REG("binding %s sliceGroup '%s' names slice '%s' "
				    "outside the binding inventory", bid, g, s);
				free(g);
				free(s);
				return -1;
			}
	}
	refs = json_get(spec, "references");
	for (i = 0; i < res->npacks; i++) {
		gates = gp_gates(res->packs[i].pack->composed);
		for (j = 0; j < gates->u.array.n; j++) {
			gate = &gates->u.array.v[j];
			g = gt_cstr(json_get(gate, "id"));
			scope = json_get(gate, "scope");
			lists[0] = json_get(scope, "slices");
			lists[1] = json_get(scope, "except");
			for (l = 0; l < 2; l++)
				for (k = 0; lists[l] != NULL &&
				    k < lists[l]->u.array.n; k++)
					if (!gt_in_array(slices,
					    &lists[l]->u.array.v[k])) {
						s = gt_cstr(
						    &lists[l]->u.array.v[k]);
						REG("gate %s names slice '%s' "
						    "outside the binding "
						    "inventory", g, s);
						free(s);
						free(g);
						return -1;
					}
			vs = json_get(json_get(gate, "statistic"), "vs");
			if (vs != NULL) {
				for (found = 0, k = 0; k < refs->u.array.n &&
				    !found; k++)
					found = gt_equal(json_get(
					    &refs->u.array.v[k], "name"), vs);
				if (!found) {
					s = gt_cstr(vs);
					REG("gate %s contrasts undeclared "
					    "reference '%s'", g, s);
					free(s);
					free(g);
					return -1;
				}
			}
			if (gt_str_is(json_get(scope, "mode"), "each")) {
				for (all = 1, k = 0; k < slices->u.array.n &&
				    all; k++)
					all = gt_in_array(lists[1],
					    &slices->u.array.v[k]);
				if (all) {
					REG("gate %s each-scope excludes every "
					    "binding slice", g);
					free(g);
					return -1;
				}
			}
			free(g);
		}
	}
	return 0;
}

int
gates_resolve_binding(const struct gates_registry *reg,
    const struct json_value *doc, const struct gates_floors *floors,
    struct gates_resolved *res, struct gates_error *err)
{
	const struct json_value	*spec, *pins;
	char			 bid[1024], *a, *b;
	size_t			 i, j;
	int64_t			 reg_at, frozen_at;

	memset(res, 0, sizeof(*res));
	gt_set_obj(&res->params);
	if (gates_validate_document(doc, err) == -1)
		return -1;
	if (!gt_str_is(json_get(doc, "kind"), "GateBinding"))
		return REG("resolveBinding requires a GateBinding document");
	res->binding = doc;
	gt_strlcpy(bid, json_get(json_get(doc, "metadata"), "id"), sizeof(bid));
	spec = json_get(doc, "spec");
	pins = json_get(spec, "packs");
	for (i = 0; i < pins->u.array.n; i++)
		for (j = 0; j < i; j++)
			if (gt_equal(json_get(&pins->u.array.v[i], "id"),
			    json_get(&pins->u.array.v[j], "id"))) {
				a = gt_cstr(json_get(&pins->u.array.v[i], "id"));
				REG("binding %s pins pack %s twice", bid, a);
				free(a);
				goto fail;
			}
	if (resolve_pins(reg, bid, pins, res, err) == -1 ||
	    check_providers(reg, bid, json_get(spec, "metricProviders"), res,
	    err) == -1 ||
	    resolve_params(bid, json_get(spec, "parameters"), res, err) == -1 ||
	    check_slices(bid, spec, res, err) == -1)
		goto fail;
	a = gt_cstr(json_get(spec, "registeredAt"));
	b = gt_cstr(json_get(spec, "frozenAt"));
	i = gates_date_parse(a, &reg_at) == -1 ||
	    gates_date_parse(b, &frozen_at) == -1;
	free(a);
	free(b);
	if (i) {
		REG("binding %s has unparseable preregistration timestamps",
		    bid);
		goto fail;
	}
	if (reg_at > frozen_at) {
		REG("binding %s registers after it freezes", bid);
		goto fail;
	}
	if (floors != NULL && !floors->opt_out &&
	    gates_enforce_floors(reg, res, floors, err) == -1)
		goto fail;
	return 0;
 fail:
	gates_resolved_free(res);
	return -1;
}
