/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_gates_date: timestamps into Date.parse (gates_date_parse) and
 * ajv-formats date-time.  Never a crash, and an accepted value is within
 * ECMAScript's time range.  (The two accept different sets, as in the
 * reference: ajv takes "+02" as an offset, V8's Date.parse does not.)
 *
 *	make build/fuzz/fuzz_gates_date
 *	build/fuzz/fuzz_gates_date regress/fuzz/corpus/fuzz_gates_date
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
	char	 s[128];
	int64_t	 ms;

	if (size >= sizeof(s))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (gates_date_parse(s, &ms) == 0 &&
	    (ms > 8640000000000000LL || ms < -8640000000000000LL))
		abort();
	(void)gates_format_datetime(s);
	return 0;
}
