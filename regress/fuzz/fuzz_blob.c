/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_blob: the snapshot blob decoder (provider/blob.c), which
 * reads the registry's copy of a provider's bytes back.  A blob it
 * accepts must hold 1 to 20 modules within the snapshot limits, name an
 * entry that is one of them, and encode back to exactly the input bytes
 * (the format has one spelling per snapshot, so nothing the decoder
 * skipped can hide in it).  A refusal must be an attestation-mismatch
 * and leave the snapshot empty.  Anything else aborts.
 *
 *	make build/fuzz/fuzz_blob
 *	build/fuzz/fuzz_blob regress/fuzz/corpus/fuzz_blob
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "provider/provider.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct prov_snapshot	 snap;
	struct prov_error	 err;
	unsigned char		*again;
	size_t			 againlen, i, total = 0;
	int			 entry = 0;

	if (prov_blob_decode(data, len, &snap, &err) == -1) {
		if (err.code != PROV_ATTESTATION_MISMATCH || snap.nmods != 0 ||
		    snap.entry != NULL)
			abort();
		return 0;
	}
	if (snap.nmods == 0 || snap.nmods > PROV_MAX_FILES ||
	    snap.entry == NULL)
		abort();
	for (i = 0; i < snap.nmods; i++) {
		if (snap.mods[i].len > PROV_MAX_FILE_BYTES)
			abort();
		total += snap.mods[i].len;
		if (strcmp(snap.mods[i].path, snap.entry) == 0)
			entry = 1;
	}
	if (!entry || total > PROV_MAX_TOTAL_BYTES || total != snap.total)
		abort();
	if (prov_blob_encode(&snap, &again, &againlen) == -1 ||
	    againlen != len || memcmp(again, data, len) != 0)
		abort();
	free(again);
	prov_snapshot_free(&snap);
	return 0;
}
