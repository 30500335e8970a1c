/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * allowlist.c: the operator's allowlist, the only trust root for bundle
 * providers (interop.md §P4), in the aiwg.config shape
 *
 *	{"gates": {"providers": [{bundleId, providerId, codeDigest,
 *	    reviewer, reviewedAt}, ...]}}
 *
 * so one file serves sbx and the reference alike.  It is validated with
 * the reference's validateGatesConfig rules and messages (required
 * fields, digest and date-time shapes, no duplicates, no unknown fields);
 * any error refuses the whole file, because a half-read trust root would
 * authorise something the operator did not write or drop what they did.
 * "floors" and "ceilings" belong to gate evaluation and are not read
 * here.  Matching at load is exact string equality on every field: the
 * allowlist pins the bytes (codeDigest) and the review of record
 * (reviewer, reviewedAt), and a bundle's own review must agree with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "provider.h"

#define ALLOWLIST_MAX_DEPTH	16
#define ALLOWLIST_MAX_NODES	(PROV_ALLOW_MAX * 8 + 64)

static const char *const gates_keys[] = {
	"floors", "ceilings", "providers"
};

static const char *const allow_keys[] = {
	"bundleId", "providerId", "codeDigest", "reviewer", "reviewedAt"
};

static int
known(const struct json_string *k, const char *const *keys, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (json_key_is(k, keys[i]))
			return 1;
	return 0;
}

static int
get_id(const struct json_value *obj, const char *where, const char *field,
    char *dst, size_t dstsz, struct prov_error *err)
{
	const struct json_value	*v;
	const char		*why;

	if ((v = json_get(obj, field)) == NULL ||
	    v->type != JSON_STRING || prov_json_blank(&v->u.string))
		return prov_fail(err, PROV_INVALID_ALLOWLIST, "%s.%s: "
		    "required, must be a non-empty string", where, field);
	if (prov_json_cstr(&v->u.string, PROV_ALLOW_ID_MAX, dst, dstsz,
	    &why) == -1)
		return prov_fail(err, PROV_INVALID_ALLOWLIST, "%s.%s: %s "
		    "(at most %d characters)", where, field, why,
		    PROV_ALLOW_ID_MAX);
	return 0;
}

static int
parse_allow(const struct json_value *v, const char *where,
    struct prov_allow *a, struct prov_error *err)
{
	const struct json_value	*f;
	const char		*why;
	char			 q[PROV_QUOTE_MAX];
	size_t			 i;

	if (v->type != JSON_OBJECT)
		return prov_fail(err, PROV_INVALID_ALLOWLIST,
		    "%s: must be an object", where);
	for (i = 0; i < v->u.object.n; i++) {
		if (!known(&v->u.object.m[i].key, allow_keys,
		    nitems(allow_keys))) {
			prov_json_key_quote(q, &v->u.object.m[i].key);
			return prov_fail(err, PROV_INVALID_ALLOWLIST,
			    "%s.%s: unknown field", where, q);
		}
	}
	if (get_id(v, where, "bundleId", a->bundle_id, sizeof(a->bundle_id),
	    err) == -1 || get_id(v, where, "providerId", a->provider_id,
	    sizeof(a->provider_id), err) == -1)
		return -1;
	if ((f = json_get(v, "codeDigest")) == NULL ||
	    f->type != JSON_STRING ||
	    prov_json_cstr(&f->u.string, DIGEST_STR_LEN, a->code_digest,
	    sizeof(a->code_digest), &why) == -1 ||
	    !prov_digest_ok(a->code_digest))
		return prov_fail(err, PROV_INVALID_ALLOWLIST, "%s.codeDigest: "
		    "required, must be a sha256 digest", where);
	if ((f = json_get(v, "reviewer")) == NULL ||
	    f->type != JSON_STRING || prov_json_blank(&f->u.string) ||
	    prov_json_cstr(&f->u.string, PROV_REVIEWER_MAX, a->reviewer,
	    sizeof(a->reviewer), &why) == -1)
		return prov_fail(err, PROV_INVALID_ALLOWLIST, "%s.reviewer: "
		    "required, must be a non-empty string of at most %d "
		    "characters", where, PROV_REVIEWER_MAX);
	if ((f = json_get(v, "reviewedAt")) == NULL ||
	    f->type != JSON_STRING ||
	    prov_json_cstr(&f->u.string, PROV_DATETIME_MAX, a->reviewed_at,
	    sizeof(a->reviewed_at), &why) == -1 ||
	    prov_datetime_es(a->reviewed_at) == -1)
		return prov_fail(err, PROV_INVALID_ALLOWLIST, "%s.reviewedAt: "
		    "required, must be a date-time", where);
	return 0;
}

int
prov_allowlist_parse(const void *buf, size_t len, struct prov_allowlist *al,
    struct prov_error *err)
{
	struct json_limits	 lim;
	struct json_error	 jerr;
	struct json_value	*root = NULL;
	const struct json_value	*gates, *pv;
	char			 where[48], q[PROV_QUOTE_MAX];
	char			 bq[PROV_QUOTE_MAX], pq[PROV_QUOTE_MAX];
	size_t			 i, j;
	int			 r = -1;

	memset(al, 0, sizeof(*al));
	if (len > PROV_ALLOWLIST_MAX)
		return prov_fail(err, PROV_INVALID_ALLOWLIST,
		    "allowlist: more than %d bytes", PROV_ALLOWLIST_MAX);
	memset(&lim, 0, sizeof(lim));
	lim.max_bytes = PROV_ALLOWLIST_MAX;
	lim.max_depth = ALLOWLIST_MAX_DEPTH;
	lim.max_nodes = ALLOWLIST_MAX_NODES;
	if (json_parse(buf, len, &lim, &root, &jerr) == -1)
		return prov_fail(err, PROV_INVALID_ALLOWLIST, "allowlist: %s",
		    jerr.msg);
	if (root->type != JSON_OBJECT) {
		prov_fail(err, PROV_INVALID_ALLOWLIST,
		    "allowlist: must be an object");
		goto out;
	}
	for (i = 0; i < root->u.object.n; i++) {
		if (!json_key_is(&root->u.object.m[i].key, "gates")) {
			prov_json_key_quote(q, &root->u.object.m[i].key);
			prov_fail(err, PROV_INVALID_ALLOWLIST,
			    "%s: unknown field", q);
			goto out;
		}
	}
	gates = json_get(root, "gates");
	if (gates == NULL || gates->type == JSON_NULL) {
		r = 0;
		goto out;
	}
	if (gates->type != JSON_OBJECT) {
		prov_fail(err, PROV_INVALID_ALLOWLIST,
		    "gates: must be an object");
		goto out;
	}
	for (i = 0; i < gates->u.object.n; i++) {
		if (!known(&gates->u.object.m[i].key, gates_keys,
		    nitems(gates_keys))) {
			prov_json_key_quote(q, &gates->u.object.m[i].key);
			prov_fail(err, PROV_INVALID_ALLOWLIST,
			    "gates.%s: unknown field", q);
			goto out;
		}
	}
	if ((pv = json_get(gates, "providers")) == NULL) {
		r = 0;
		goto out;
	}
	if (pv->type != JSON_ARRAY) {
		prov_fail(err, PROV_INVALID_ALLOWLIST,
		    "gates.providers: must be an array");
		goto out;
	}
	if (pv->u.array.n > PROV_ALLOW_MAX) {
		prov_fail(err, PROV_INVALID_ALLOWLIST, "gates.providers: at "
		    "most %d entries", PROV_ALLOW_MAX);
		goto out;
	}
	if (pv->u.array.n > 0)
		al->v = xcalloc(pv->u.array.n, sizeof(*al->v));
	for (i = 0; i < pv->u.array.n; i++) {
		snprintf(where, sizeof(where), "gates.providers[%zu]", i);
		if (parse_allow(&pv->u.array.v[i], where, &al->v[i], err) == -1)
			goto out;
		al->n++;
		for (j = 0; j < i; j++) {
			if (strcmp(al->v[j].bundle_id, al->v[i].bundle_id) ||
			    strcmp(al->v[j].provider_id, al->v[i].provider_id))
				continue;
			prov_quote(bq, al->v[i].bundle_id,
			    strlen(al->v[i].bundle_id));
			prov_quote(pq, al->v[i].provider_id,
			    strlen(al->v[i].provider_id));
			prov_fail(err, PROV_INVALID_ALLOWLIST, "%s: duplicate "
			    "allowlist entry for %s %s", where, bq, pq);
			goto out;
		}
	}
	r = 0;
 out:
	json_free(root);
	if (r == -1)
		prov_allowlist_free(al);
	return r;
}

void
prov_allowlist_free(struct prov_allowlist *al)
{
	free(al->v);
	al->v = NULL;
	al->n = 0;
}

/*
 * Matching at load (interop.md §P4): the first entry for (bundle id,
 * provider id) is the one; none is "unregistered", and an entry whose
 * digest, reviewer or review date differs from the snapshot and the
 * bundle's review is an "attestation-mismatch".
 */
int
prov_allowlist_match(const struct prov_allowlist *al, const char *bundle_id,
    const char *provider_id, const char *code_digest,
    const struct prov_review *review, const struct prov_allow **out,
    struct prov_error *err)
{
	const struct prov_allow	*a = NULL;
	char			 bq[PROV_QUOTE_MAX], pq[PROV_QUOTE_MAX];
	size_t			 i;

	if (out != NULL)
		*out = NULL;
	prov_quote(bq, bundle_id, strlen(bundle_id));
	prov_quote(pq, provider_id, strlen(provider_id));
	for (i = 0; al != NULL && i < al->n; i++) {
		if (strcmp(al->v[i].bundle_id, bundle_id) == 0 &&
		    strcmp(al->v[i].provider_id, provider_id) == 0) {
			a = &al->v[i];
			break;
		}
	}
	if (a == NULL)
		return prov_fail(err, PROV_UNREGISTERED, "provider %s is not "
		    "allowlisted for bundle %s: refusing registration", pq, bq);
	if (strcmp(a->code_digest, code_digest) != 0)
		return prov_fail(err, PROV_ATTESTATION_MISMATCH, "provider %s "
		    "of bundle %s: the allowlist pins %s, the snapshot is %s",
		    pq, bq, a->code_digest, code_digest);
	if (strcmp(a->reviewer, review->reviewer) != 0 ||
	    strcmp(a->reviewed_at, review->reviewed_at) != 0)
		return prov_fail(err, PROV_ATTESTATION_MISMATCH, "provider %s "
		    "of bundle %s: the allowlist's reviewer and review date "
		    "differ from the bundle's review", pq, bq);
	if (out != NULL)
		*out = a;
	return 0;
}
