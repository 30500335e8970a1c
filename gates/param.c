/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * param.c: pack parameters and the literal-or-reference numbers gates
 * carry (thresholds, minimumN, levelBps), read the reference's way.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates.h"

const struct json_value *
gp_params(const struct json_value *pack)
{
	const struct json_value	*p;

	p = json_get(json_get(pack, "spec"), "parameters");
	return gt_is_obj(p) ? p : NULL;
}

const struct json_value *
gp_gates(const struct json_value *pack)
{
	return json_get(json_get(pack, "spec"), "gates");
}

int
gp_is_ref(const struct json_value *v)
{
	return gt_is_obj(v) && gt_is_str(json_get(v, "param"));
}

static const struct json_value *
declared(const struct json_value *params, const struct json_value *name)
{
	char				*n;
	const struct json_value		*d;

	if ((n = gt_cstr(name)) == NULL)
		return NULL;
	d = json_get(params, n);
	free(n);
	return d;
}

enum gp_rn
gp_resolve_default(const struct json_value *value,
    const struct json_value *params, const char *type, double *out)
{
	const struct json_value	*d, *def;

	if (value == NULL)
		return GP_UNDEF;
	if (gt_is_num(value)) {
		*out = value->u.number;
		return GP_VALUE;
	}
	if (!gp_is_ref(value))
		return GP_NULL;
	d = declared(params, json_get(value, "param"));
	if (d == NULL || !gt_str_is(json_get(d, "type"), type))
		return GP_NULL;
	if (!gt_is_num(def = json_get(d, "default")))
		return GP_NULL;
	*out = def->u.number;
	return GP_VALUE;
}

/* No type check here, as in the reference: only the default is read. */
enum gp_rn
gp_threshold_default(const struct json_value *gate,
    const struct json_value *params, double *out)
{
	const struct json_value	*t, *v, *d;

	if ((t = json_get(gate, "threshold")) == NULL)
		return GP_NULL;
	if ((v = json_get(t, "value")) != NULL) {
		if (!gt_is_num(v))
			return GP_NULL;
		*out = v->u.number;
		return GP_VALUE;
	}
	if ((v = json_get(t, "param")) == NULL)
		return GP_NULL;
	d = declared(params, v);
	if (d == NULL || !gt_is_num(json_get(d, "default")))
		return GP_NULL;
	*out = json_get(d, "default")->u.number;
	return GP_VALUE;
}

const char *
gp_num(double d, char buf[JSON_NUMBER_BUFSZ])
{
	if (json_number_format(d, buf, JSON_NUMBER_BUFSZ) == -1)
		strlcpy(buf, "NaN", JSON_NUMBER_BUFSZ);
	return buf;
}

char *
gp_qualify(const char *pack_id, const struct json_value *name)
{
	char	*n, *q;

	n = gt_cstr(name);
	xasprintf(&q, "%s.%s", pack_id, n != NULL ? n : "undefined");
	free(n);
	return q;
}
