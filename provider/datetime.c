/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * datetime.c: the two date-time shapes of interop.md §P1 and §P4.
 *
 * In-bundle reviews carry Zod's datetime(): "YYYY-MM-DDTHH:MM:SS", an
 * optional fraction and "Z".  The allowlist takes whatever Date.parse
 * accepts; V8's parser also takes legacy forms no specification pins
 * down, so sbx accepts the ECMAScript Date Time String Format only, which
 * every Date.parse accepts.  Both checkers accept a subset of what the
 * reference accepts, never more: a value sbx takes is one the reference
 * takes too.  Calendar dates are checked (V8 lets 2026-02-30 roll over;
 * a reviewer who wrote that made a mistake we would rather hear about).
 */
#include <string.h>

#include "common.h"
#include "civil.h"
#include "provider.h"

/* ECMAScript's time value range: +-8.64e15 ms around the epoch. */
#define TIME_MAX	8640000000000000LL

struct dt {
	long	 year;
	int	 mon, day, hour, min, sec, ms;
	int	 offset;		/* minutes east of UTC */
};

static int64_t
dt_ms(const struct dt *t)
{
	return ((civil_days(t->year, t->mon, t->day) * 24 + t->hour) *
	    60 + t->min - t->offset) * 60000 + (int64_t)t->sec * 1000 + t->ms;
}

/* HH:MM[:SS[.f+]], advancing *sp; -1 on a malformed or out-of-range time. */
static int
parse_time(const char **sp, struct dt *t, int need_seconds)
{
	const char	*s = *sp;
	size_t		 n;
	int		 f = 0;

	if (civil_digits(s, 2, &t->hour) == -1 || s[2] != ':' ||
	    civil_digits(s + 3, 2, &t->min) == -1)
		return -1;
	s += 5;
	t->sec = t->ms = 0;
	if (*s == ':') {
		if (civil_digits(s + 1, 2, &t->sec) == -1)
			return -1;
		s += 3;
		if (*s == '.') {
			s++;
			for (n = 0; s[n] >= '0' && s[n] <= '9'; n++)
				;
			if (n == 0)
				return -1;
			/* Milliseconds; further digits are truncated. */
			civil_digits(s, n < 3 ? n : 3, &f);
			t->ms = n == 1 ? f * 100 : n == 2 ? f * 10 : f;
			s += n;
		}
	} else if (need_seconds)
		return -1;
	if (t->min > 59 || t->sec > 59)
		return -1;
	if (t->hour > 24 || (t->hour == 24 &&
	    (t->min != 0 || t->sec != 0 || t->ms != 0)))
		return -1;
	*sp = s;
	return 0;
}

int
prov_datetime_zod(const char *s, int64_t *ms)
{
	struct dt	 t;
	int		 y;

	memset(&t, 0, sizeof(t));
	if (strlen(s) > PROV_DATETIME_MAX)
		return -1;
	if (civil_digits(s, 4, &y) == -1 || s[4] != '-' ||
	    civil_digits(s + 5, 2, &t.mon) == -1 || s[7] != '-' ||
	    civil_digits(s + 8, 2, &t.day) == -1 || s[10] != 'T')
		return -1;
	t.year = y;
	s += 11;
	if (parse_time(&s, &t, 1) == -1 || t.hour > 23)
		return -1;
	if (s[0] != 'Z' || s[1] != '\0')
		return -1;
	if (t.mon < 1 || t.mon > 12 || t.day < 1 ||
	    t.day > civil_month_days(t.year, t.mon))
		return -1;
	*ms = dt_ms(&t);
	return 0;
}

int
prov_datetime_es(const char *s)
{
	struct dt	 t;
	int		 y, oh, om;
	int64_t		 v;

	memset(&t, 0, sizeof(t));
	t.mon = t.day = 1;
	if (strlen(s) > PROV_DATETIME_MAX)
		return -1;
	if (s[0] == '+' || s[0] == '-') {
		if (civil_digits(s + 1, 6, &y) == -1)
			return -1;
		/* -000000 is the one spelling the format forbids. */
		if (s[0] == '-' && y == 0)
			return -1;
		t.year = s[0] == '-' ? -(long)y : y;
		s += 7;
	} else {
		if (civil_digits(s, 4, &y) == -1)
			return -1;
		t.year = y;
		s += 4;
	}
	if (*s == '-') {
		if (civil_digits(s + 1, 2, &t.mon) == -1)
			return -1;
		s += 3;
		if (*s == '-') {
			if (civil_digits(s + 1, 2, &t.day) == -1)
				return -1;
			s += 3;
		}
	}
	if (t.mon < 1 || t.mon > 12 || t.day < 1 ||
	    t.day > civil_month_days(t.year, t.mon))
		return -1;
	if (*s == 'T') {
		s++;
		if (parse_time(&s, &t, 0) == -1)
			return -1;
		if (*s == 'Z')
			s++;
		else if (*s == '+' || *s == '-') {
			if (civil_digits(s + 1, 2, &oh) == -1 || s[3] != ':' ||
			    civil_digits(s + 4, 2, &om) == -1 || oh > 23 || om > 59)
				return -1;
			t.offset = (s[0] == '-' ? -1 : 1) * (oh * 60 + om);
			s += 6;
		}
	}
	if (*s != '\0')
		return -1;
	/* A day inside the range, so a local time is in range in any zone. */
	v = dt_ms(&t);
	if (v > TIME_MAX - 86400000LL || v < -TIME_MAX + 86400000LL)
		return -1;
	return 0;
}
