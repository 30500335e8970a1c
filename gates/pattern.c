/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * pattern.c: the "pattern" keywords of the gate documents' JSON schemas
 * (gates/schemas.c), each matched by hand: the schemas use four fixed
 * regular expressions, and a regex engine in a confined role would be
 * more code to trust than these four loops.
 */
#include <string.h>

#include "common.h"
#include "gates.h"

int
gates_digest_ok(const char *s)
{
	size_t	 i;

	if (strncmp(s, DIGEST_PREFIX, 7) != 0)
		return 0;
	for (i = 7; i < 7 + DIGEST_HEX_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[i] == '\0';
}

/* ^\d+\.\d+\.\d+$ */
int
gates_semver_ok(const char *s)
{
	int	 part, n;

	for (part = 0; part < 3; part++) {
		for (n = 0; *s >= '0' && *s <= '9'; s++)
			n++;
		if (n == 0)
			return 0;
		if (part < 2 && *s++ != '.')
			return 0;
	}
	return *s == '\0';
}

/* ^[A-Za-z][A-Za-z0-9_]*$ */
int
gates_param_name_ok(const char *s)
{
	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return 0;
	for (s++; *s != '\0'; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		    (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* ^[a-z0-9][a-z0-9-]*$ */
static int
gate_id_ok(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
		return 0;
	for (s++; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		    *s == '-'))
			return 0;
	return 1;
}

int
gates_pattern_match(const char *pattern, const char *s)
{
	if (strcmp(pattern, "^sha256:[0-9a-f]{64}$") == 0)
		return gates_digest_ok(s);
	if (strcmp(pattern, "^\\d+\\.\\d+\\.\\d+$") == 0)
		return gates_semver_ok(s);
	if (strcmp(pattern, "^[A-Za-z][A-Za-z0-9_]*$") == 0)
		return gates_param_name_ok(s);
	if (strcmp(pattern, "^[a-z0-9][a-z0-9-]*$") == 0)
		return gate_id_ok(s);
	fatalx("gates schema: unknown pattern %s", pattern);
}
