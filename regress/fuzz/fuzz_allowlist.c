/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_allowlist: the operator's allowlist file into its validator.  An
 * accepted allowlist has only well-formed entries (non-blank ids, sha256
 * digests, valid date-times, no duplicate bundle/provider pair) and every
 * entry matches itself at load; a refusal leaves nothing behind and
 * carries a printable message.  Anything else aborts.
 *
 *	make build/fuzz/fuzz_allowlist
 *	build/fuzz/fuzz_allowlist regress/fuzz/corpus/fuzz_allowlist
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "provider/provider.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_message(const struct prov_error *err)
{
	size_t	 i, n = strnlen(err->msg, sizeof(err->msg));

	if (n == 0 || n == sizeof(err->msg))
		abort();
	for (i = 0; i < n; i++)
		if (err->msg[i] < 0x20 || err->msg[i] > 0x7e)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_allowlist	 al;
	struct prov_error	 err;
	struct prov_review	 r;
	const struct prov_allow	*a, *got;
	size_t			 i, j;

	if (prov_allowlist_parse(data, size, &al, &err) == -1) {
		if (al.v != NULL || al.n != 0 ||
		    err.code != PROV_INVALID_ALLOWLIST)
			abort();
		check_message(&err);
		return 0;
	}
	for (i = 0; i < al.n; i++) {
		a = &al.v[i];
		if (a->bundle_id[0] == '\0' || a->provider_id[0] == '\0' ||
		    a->reviewer[0] == '\0' || !prov_digest_ok(a->code_digest) ||
		    prov_datetime_es(a->reviewed_at) == -1)
			abort();
		for (j = 0; j < i; j++)
			if (strcmp(al.v[j].bundle_id, a->bundle_id) == 0 &&
			    strcmp(al.v[j].provider_id, a->provider_id) == 0)
				abort();
		memset(&r, 0, sizeof(r));
		strlcpy(r.reviewer, a->reviewer, sizeof(r.reviewer));
		strlcpy(r.reviewed_at, a->reviewed_at, sizeof(r.reviewed_at));
		if (prov_allowlist_match(&al, a->bundle_id, a->provider_id,
		    a->code_digest, &r, &got, &err) == -1 || got != a)
			abort();
	}
	prov_allowlist_free(&al);
	return 0;
}
