/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_gates_bundle: a pack bundle's manifest.json (gates/bundle.c), the
 * agent's input that steers which pack files are read: JSON.parse within
 * the cap, the declaration (directory, names), the claimed id.  Never a
 * crash or a leak; a declared directory the safe-path rule accepts has
 * no "..", no leading "/" and no empty segment.
 *
 *	make build/fuzz/fuzz_gates_bundle
 *	build/fuzz/fuzz_gates_bundle regress/fuzz/corpus/fuzz_gates_bundle
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates/gates.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gates_bundle_decl	 d;
	struct json_value		*m;
	char				*id, buf[64];
	size_t				 i;

	if (gates_manifest_parse(data, size, &m) == -1)
		return 0;
	gates_bundle_declaration(m, &d);
	if (d.dir != NULL && gates_packs_dir_ok(d.dir) &&
	    (d.dir[0] == '/' || strstr(d.dir, "..") != NULL ||
	    strstr(d.dir, "//") != NULL))
		abort();
	for (i = 0; i < d.nnames; i++) {
		(void)gates_bundle_wants(&d, d.names[i]);
		(void)gates_pack_short(d.names[i], buf, sizeof(buf));
	}
	id = gates_bundle_claim(m);
	free(id);
	gates_bundle_decl_free(&d);
	json_free(m);
	return 0;
}
