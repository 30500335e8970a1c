/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * descriptor.c: the inspect run's answer (interop.md §P1, "Metrics
 * declaration"; 3, sourceDigest).
 *
 * The descriptor comes out of the sandbox, so it is as hostile as any
 * provider output; the driver already required the identity to match,
 * and we check it again here, in the process that decides, because the
 * driver's checks ran next to the provider code.  The metrics declaration
 * must be an object whose every metric names one of the gate metric
 * kinds; the sourceDigest binds id, version and that declaration.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "provider.h"

static const char *const kinds[] = {
	"proportion", "paired", "scalar", "differences", "evidence"
};

static const char *const desc_keys[] = {
	"id", "version", "description", "metrics"
};

static int
only_keys(const struct json_value *v, const char *const *keys, size_t n,
    const char *where, const char *id, struct prov_error *err)
{
	char	 q[PROV_QUOTE_MAX];
	size_t	 i, k;

	for (i = 0; i < v->u.object.n; i++) {
		for (k = 0; k < n; k++)
			if (json_key_is(&v->u.object.m[i].key, keys[k]))
				break;
		if (k == n) {
			prov_json_key_quote(q, &v->u.object.m[i].key);
			return prov_fail(err, PROV_INVALID_MODULE,
			    "provider %s module is invalid: %s.%s: unknown "
			    "field", id, where, q);
		}
	}
	return 0;
}

int
prov_descriptor_check(const struct json_value *body,
    const struct prov_entry *e, struct prov_descriptor *d,
    struct prov_error *err)
{
	static const char *const body_keys[] = { "ok", "descriptor" };
	const struct json_value	*desc, *f, *metrics, *kind;
	char			 q[PROV_QUOTE_MAX];
	const char		*why;
	size_t			 i, k;

	memset(d, 0, sizeof(*d));
	if (body == NULL || body->type != JSON_OBJECT)
		return prov_fail(err, PROV_INVALID_MODULE, "provider %s module "
		    "is invalid: no result", e->id);
	if (only_keys(body, body_keys, nitems(body_keys), "result", e->id,
	    err) == -1)
		return -1;
	if ((desc = json_get(body, "descriptor")) == NULL ||
	    desc->type != JSON_OBJECT)
		return prov_fail(err, PROV_INVALID_MODULE, "provider %s module "
		    "is invalid: no provider descriptor", e->id);
	if (only_keys(desc, desc_keys, nitems(desc_keys), "descriptor", e->id,
	    err) == -1)
		return -1;
	if ((f = json_get(desc, "id")) == NULL || f->type != JSON_STRING ||
	    prov_json_cstr(&f->u.string, PROV_ID_MAX, d->id, sizeof(d->id),
	    &why) == -1 || strcmp(d->id, e->id) != 0 ||
	    (f = json_get(desc, "version")) == NULL ||
	    f->type != JSON_STRING ||
	    prov_json_cstr(&f->u.string, PROV_VERSION_MAX, d->version,
	    sizeof(d->version), &why) == -1 ||
	    strcmp(d->version, e->version) != 0)
		return prov_fail(err, PROV_INVALID_MODULE, "provider %s module "
		    "is invalid: identity does not match its manifest "
		    "declaration", e->id);
	if ((f = json_get(desc, "description")) == NULL ||
	    f->type != JSON_STRING || f->u.string.len == 0 ||
	    prov_json_cstr(&f->u.string, PROV_DESC_MAX, d->description,
	    sizeof(d->description), &why) == -1)
		return prov_fail(err, PROV_INVALID_MODULE, "provider %s module "
		    "is invalid: description must be a non-empty string of at "
		    "most %d characters", e->id, PROV_DESC_MAX);
	if ((metrics = json_get(desc, "metrics")) == NULL ||
	    metrics->type != JSON_OBJECT)
		return prov_fail(err, PROV_INVALID_MODULE, "provider %s module "
		    "is invalid: metrics must be an object", e->id);
	for (i = 0; i < metrics->u.object.n; i++) {
		prov_json_key_quote(q, &metrics->u.object.m[i].key);
		f = &metrics->u.object.m[i].value;
		if (f->type != JSON_OBJECT)
			return prov_fail(err, PROV_INVALID_MODULE, "provider "
			    "%s module is invalid: metric \"%s\" must be an "
			    "object", e->id, q);
		kind = json_get(f, "kind");
		for (k = 0; kind != NULL && kind->type == JSON_STRING &&
		    k < nitems(kinds); k++)
			if (json_key_is(&kind->u.string, kinds[k]))
				break;
		if (kind == NULL || kind->type != JSON_STRING ||
		    k == nitems(kinds))
			return prov_fail(err, PROV_INVALID_MODULE, "provider "
			    "%s module is invalid: metric \"%s\": kind must be "
			    "proportion, paired, scalar, differences or "
			    "evidence", e->id, q);
	}
	d->nmetrics = metrics->u.object.n;
	if (json_canonical(metrics, &d->metrics, &d->metricslen) == -1 ||
	    prov_source_digest(d->id, d->version, metrics, d->source_digest,
	    err) == -1) {
		prov_descriptor_free(d);
		return prov_fail(err, PROV_INVALID_MODULE, "provider %s module "
		    "is invalid: metrics are not digestible", e->id);
	}
	return 0;
}

void
prov_descriptor_free(struct prov_descriptor *d)
{
	free(d->metrics);
	memset(d, 0, sizeof(*d));
}
