/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * load.c: the load-time checks of one manifest entry, in the reference's
 * order (interop.md §P6, "Check order in loadGateBundleProviders"), up
 * to the sandboxed inspect run: snapshot, in-bundle review, review
 * consistency, allowlist.  The order matters to an operator reading the
 * refusal (a tampered file reports attestation-mismatch before a missing
 * allowlist entry reports unregistered) and is the reference's, so both
 * refuse the same bundle with the same code.
 */
#include <string.h>

#include "common.h"
#include "provider.h"

int
prov_load_entry(int rootfd, const struct prov_manifest *m, size_t idx,
    const struct prov_allowlist *al, int64_t now_ms, struct prov_loaded *out,
    struct prov_error *err)
{
	const struct prov_entry	*e;
	const struct prov_allow	*a;

	memset(out, 0, sizeof(*out));
	if (idx >= m->nentries)
		return prov_fail(err, PROV_INVALID_MODULE,
		    "gateProviders[%zu]: no such entry", idx);
	e = &m->entries[idx];
	if (prov_snapshot_take(rootfd, e->module, &out->snap, err) == -1) {
		prov_prefix(err, "provider %s", e->id);
		return -1;
	}
	if (prov_review_read(rootfd, e, &out->review, err) == -1 ||
	    prov_review_check(&out->review, e->id, out->snap.code_digest,
	    now_ms, err) == -1 ||
	    prov_allowlist_match(al, m->bundle_id, e->id,
	    out->snap.code_digest, &out->review, &a, err) == -1)
		goto bad;
	if (!prov_digest_ok(out->snap.code_digest)) {
		prov_fail(err, PROV_ATTESTATION_MISMATCH, "provider %s: code "
		    "digest is not a sha256 digest", e->id);
		goto bad;
	}
	out->trusted = *a;
	return 0;
 bad:
	prov_snapshot_free(&out->snap);
	memset(out, 0, sizeof(*out));
	return -1;
}
