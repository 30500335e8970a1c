/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * hex.c: reading hexadecimal digits.  Locale-free on purpose: what
 * counts as a digit is fixed by the formats read (JSON, HTTP, inet_aton),
 * not by isxdigit's idea of the current locale.
 */
#include "hex.h"

int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
