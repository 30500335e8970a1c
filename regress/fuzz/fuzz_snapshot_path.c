/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_snapshot_path: the path rules of the snapshot and the linker.
 *  - prov_path_module_ok and prov_path_review_ok against POSIX regexec
 *    running the reference's patterns: they must agree on every input;
 *  - utf8_check against common/json.c's UTF-8 decoder: both must
 *    call the same byte strings valid;
 *  - prov_path_resolve (the driver's linker rule) on a parent and a
 *    specifier split at the first NUL: an accepted result is a clean
 *    relative .mjs path (no ".", "..", empty segment, leading '/' or
 *    reserved name) that fits its buffer.
 * Anything else aborts.
 *
 *	make build/fuzz/fuzz_snapshot_path
 *	build/fuzz/fuzz_snapshot_path regress/fuzz/corpus/fuzz_snapshot_path
 */
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "provider/provider.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static regex_t	 module_re, review_re;

static void
init(void)
{
	static int	 done;

	if (done)
		return;
	if (regcomp(&module_re, "^[a-zA-Z0-9_-]+(/[a-zA-Z0-9_-]+)*\\.mjs$",
	    REG_EXTENDED | REG_NOSUB) != 0 ||
	    regcomp(&review_re, "^[a-zA-Z0-9_-]+(/[a-zA-Z0-9_-]+)*\\.json$",
	    REG_EXTENDED | REG_NOSUB) != 0)
		abort();
	done = 1;
}

static void
check_resolved(const char *out, size_t outsz)
{
	const char	*seg, *end;
	size_t		 n = strlen(out);

	if (n == 0 || n >= outsz || out[0] == '/' || out[n - 1] == '/' ||
	    !prov_name_module(out) || prov_name_reserved(out) ||
	    strstr(out, "/" PROV_RESERVED_PREFIX) != NULL ||
	    strstr(out, "//") != NULL)
		abort();
	for (seg = out; *seg != '\0'; seg = *end == '\0' ? end : end + 1) {
		end = strchr(seg, '/');
		if (end == NULL)
			end = seg + strlen(seg);
		if ((end - seg == 1 && seg[0] == '.') ||
		    (end - seg == 2 && seg[0] == '.' && seg[1] == '.'))
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_string	 u;
	struct prov_error	 err;
	char			*s, out[PROV_PATH_MAX + 1];
	const char		*spec;
	int			 valid;

	init();
	s = malloc(size + 2);
	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	s[size + 1] = '\0';

	/* The pattern checks over the whole input, NUL-free and in bounds. */
	if (memchr(data, '\0', size) == NULL && size <= PROV_PATH_MAX) {
		if (prov_path_module_ok(s, size) !=
		    (regexec(&module_re, s, 0, NULL, 0) == 0))
			abort();
		if (prov_path_review_ok(s, size) !=
		    (regexec(&review_re, s, 0, NULL, 0) == 0))
			abort();
	}

	/* Two UTF-8 validators, one verdict. */
	valid = json_string_from_utf8(&u, s, size) == 0;
	if (valid)
		free(u.u);
	if ((utf8_check(data, size) == size) != valid)
		abort();

	/* The linker rule: parent, NUL, specifier. */
	spec = s + strlen(s) + 1;
	if (prov_path_resolve(s, spec, out, sizeof(out), &err) == 0)
		check_resolved(out, sizeof(out));
	else if (err.code != PROV_INVALID_MODULE)
		abort();
	free(s);
	return 0;
}
