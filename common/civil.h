/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * civil.h: civil.c -- calendar arithmetic of the date readers.
 */
#ifndef SBX_CIVIL_H
#define SBX_CIVIL_H

#include <stddef.h>
#include <stdint.h>

int	 civil_digits(const char *, size_t, int *);
int	 civil_month_days(long, int);
int64_t	 civil_days(long, int, int);

#endif /* SBX_CIVIL_H */
