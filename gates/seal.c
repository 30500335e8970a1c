/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * seal.c: the holdout record and the upstream record (interop.md §G5), as
 * the reference's CLI loads them.  A record must arrive sealed: the
 * loaders never seal on the caller's behalf (an unsealed file would let
 * whoever wrote it choose the content the seal then vouches for), they
 * only check the seal against the content.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates.h"

#define INPUT(...)	gates_fail(err, GATES_E_INPUT, __VA_ARGS__)

/* artifactDigest({frozenDigest, firstAccessedAt}) */
static int
holdout_digest(const struct json_value *frozen, const struct json_value *at,
    char out[DIGEST_STR_LEN + 1], struct gates_error *err)
{
	struct json_value	 o;
	int			 r;

	gt_set_obj(&o);
	gt_copy(gt_add(&o, "frozenDigest"), frozen);
	gt_copy(gt_add(&o, "firstAccessedAt"), at);
	r = gates_digest(&o, out, err);
	json_value_clear(&o);
	return r;
}

int
gates_seal_holdout(const char *frozen, const char *accessed_at,
    struct json_value **out, struct gates_error *err)
{
	struct json_value	*o, fz, at;
	char			 d[DIGEST_STR_LEN + 1];

	*out = NULL;
	gt_set_str(&fz, frozen);
	if (accessed_at != NULL)
		gt_set_str(&at, accessed_at);
	else
		gt_set_null(&at);
	if (holdout_digest(&fz, &at, d, err) == -1) {
		json_value_clear(&fz);
		json_value_clear(&at);
		return -1;
	}
	o = xcalloc(1, sizeof(*o));
	gt_set_obj(o);
	*gt_add(o, "frozenDigest") = fz;
	*gt_add(o, "firstAccessedAt") = at;
	gt_set_str(gt_add(o, "digest"), d);
	*out = o;
	return 0;
}

int
gates_load_holdout(const struct json_value *doc, const char *path,
    struct json_value **out, struct gates_error *err)
{
	const struct json_value	*fz, *at, *dg;
	struct json_value	*o;
	char			 d[DIGEST_STR_LEN + 1];

	*out = NULL;
	if (!gt_is_obj(doc))
		return INPUT("holdout file must be an object: %s", path);
	fz = json_get(doc, "frozenDigest");
	at = json_get(doc, "firstAccessedAt");
	dg = json_get(doc, "digest");
	if (!gt_is_str(fz) || at == NULL || (at->type != JSON_NULL &&
	    !gt_is_str(at)))
		return INPUT("holdout file must carry {frozenDigest, "
		    "firstAccessedAt}: %s", path);
	if (!gt_is_str(dg))
		return INPUT("holdout file must already carry its sealed digest "
		    "(refusing to auto-seal): %s", path);
	if (holdout_digest(fz, at, d, err) == -1)
		return -1;
	if (!gt_str_is(dg, d))
		return INPUT("holdout record seal does not match its content: "
		    "%s", path);
	/* Extra keys are dropped: the evaluator sees only the record. */
	o = xcalloc(1, sizeof(*o));
	gt_set_obj(o);
	gt_copy(gt_add(o, "frozenDigest"), fz);
	gt_copy(gt_add(o, "firstAccessedAt"), at);
	gt_copy(gt_add(o, "digest"), dg);
	*out = o;
	return 0;
}

int
gates_load_upstream(const struct json_value *doc, const char *path,
    struct gates_error *err)
{
	char	 d[DIGEST_STR_LEN + 1];

	if (!gt_is_obj(doc) || !gt_is_obj(json_get(doc, "metadata")) ||
	    !gt_is_str(json_get(doc, "digest")))
		return INPUT("upstream file must be a sealed record {metadata, "
		    "digest} (refusing to auto-seal)");
	if (gates_digest(json_get(doc, "metadata"), d, err) == -1)
		return -1;
	if (!gt_str_is(json_get(doc, "digest"), d))
		return INPUT("upstream integrity digest does not match its "
		    "report: %s", path);
	return 0;
}
