/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * civil.c: the proleptic Gregorian calendar arithmetic that the two date
 * readers share (provider/datetime.c for reviewedAt, gates/jsdate.c for
 * JavaScript's Date.parse): fixed-width decimal fields, month lengths and
 * days since the epoch for any year.
 */
#include <stdint.h>

#include "common.h"
#include "civil.h"

/* n decimal digits, nothing else: 0 and the value, or -1. */
int
civil_digits(const char *s, size_t n, int *out)
{
	size_t	 i;
	int	 v = 0;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

static int
leap(long y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days in month m (1-12) of year y. */
int
civil_month_days(long y, int m)
{
	static const int	 d[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30,
	    31, 30, 31 };

	return m == 2 && leap(y) ? 29 : d[m - 1];
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian), any sign. */
int64_t
civil_days(long y, int m, int d)
{
	int64_t	 era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}
