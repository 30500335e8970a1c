/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_spec: sbx_spec_parse on arbitrary bytes.  The launcher parses what
 * the monitor wrote, but a parser that trusts its input is one bug away from
 * trusting a corrupted one: it must never crash, and whatever it accepts
 * must serialise back to exactly the bytes it accepted.  Its warm key
 * (what a warm sandbox is built from, and each run held to) must parse,
 * and be its own key: nothing of a run survives into it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "spec.h"

int	 LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static uint8_t	 again[SBX_SPEC_WIRE_MAX], key[SBX_SPEC_WIRE_MAX];
	static uint8_t	 key2[SBX_SPEC_WIRE_MAX];
	struct sbx_spec	 sp, ks;
	char		 err[SBX_SPEC_ERRLEN];
	size_t		 len2, klen, klen2;

	if (sbx_spec_parse(&sp, data, len, err, sizeof(err)) == -1)
		return 0;
	if (sbx_spec_serialise(&sp, again, sizeof(again), &len2, err,
	    sizeof(err)) == -1 || len2 != len || memcmp(again, data, len) != 0)
		abort();
	/* Every valid spec has a key, never larger than itself. */
	if (sbx_spec_warm_key(&sp, key, sizeof(key), &klen, err,
	    sizeof(err)) == -1 || klen > len)
		abort();
	if (sbx_spec_parse(&ks, key, klen, err, sizeof(err)) == -1 ||
	    sbx_spec_warm_key(&ks, key2, sizeof(key2), &klen2, err,
	    sizeof(err)) == -1 || klen2 != klen ||
	    memcmp(key, key2, klen) != 0)
		abort();
	return 0;
}
