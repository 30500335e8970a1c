/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_manifest: bundle manifest bytes into the gateProviders validator.
 * Any input is parsed or refused without a crash or leak; an accepted
 * manifest holds only what the schema allows (a well-formed bundle id, at
 * most 20 entries with unique ids and modules, module and review paths
 * that pass the path rules, exactly one review form); a refusal carries
 * a printable message and a manifest code.  Anything else aborts.
 *
 *	make build/fuzz/fuzz_manifest
 *	build/fuzz/fuzz_manifest regress/fuzz/corpus/fuzz_manifest
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
	struct prov_manifest	 m;
	struct prov_error	 err;
	const struct prov_entry	*e;
	size_t			 i, j;
	int64_t			 ms;

	if (prov_manifest_parse(data, size, &m, &err) == -1) {
		if (m.nentries != 0 || (err.code != PROV_INVALID_MODULE &&
		    err.code != PROV_DUPLICATE && err.code != PROV_OVERSIZE))
			abort();
		check_message(&err);
		return 0;
	}
	if (m.bundle_id[0] == '\0' ||
	    strlen(m.bundle_id) > PROV_BUNDLE_ID_MAX ||
	    m.nentries > PROV_MAX_PROVIDERS)
		abort();
	for (i = 0; i < m.nentries; i++) {
		e = &m.entries[i];
		if (!prov_path_module_ok(e->module, strlen(e->module)) ||
		    strchr(e->id, '/') == NULL || e->version[0] == '\0' ||
		    e->description[0] == '\0')
			abort();
		if (e->has_review) {
			if (e->review_file[0] != '\0' ||
			    !prov_digest_ok(e->review.code_digest) ||
			    prov_datetime_zod(e->review.reviewed_at,
			    &ms) == -1 ||
			    e->review.reviewer[0] == '\0')
				abort();
		} else if (!prov_path_review_ok(e->review_file,
		    strlen(e->review_file)))
			abort();
		for (j = 0; j < i; j++)
			if (strcmp(m.entries[j].id, e->id) == 0 ||
			    strcmp(m.entries[j].module, e->module) == 0)
				abort();
	}
	return 0;
}
