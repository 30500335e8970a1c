/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * jsdate.c: the two readings of a timestamp the reference makes.
 *
 * gates_date_parse is JavaScript's Date.parse (V8) on the forms a gate
 * document can carry: the ECMAScript Date Time String Format (date, or
 * date and time with an optional offset), with what V8 also accepts
 * there -- a lowercase "t"/"z", a space for "T", "+HHMM" offsets, any
 * number of fraction digits (milliseconds truncated), 24:00:00 and a day
 * 29..31 that rolls into the next month.  Anything else is NaN (-1); V8's
 * legacy parser would take more ("2026-9-2") but in local time, which a
 * confined role has no business reading.  For the same reason a date-time
 * without an offset, local time in JavaScript, is read as UTC here: the
 * same instant as the reference running with TZ=UTC (sbx-gates(5)).
 *
 * gates_format_datetime is ajv-formats' "date-time" (full mode), which the
 * binding schema applies to registeredAt and frozenAt.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "civil.h"
#include "gates.h"

#define TIME_MAX	8640000000000000LL

int
gates_date_parse(const char *s, int64_t *ms)
{
	long	 year;
	int	 y4, mon = 1, day = 1, hh = 0, mm = 0, ss = 0, frac = 0;
	int	 oh = 0, om = 0, sign = 1, v, nf;
	int64_t	 t;
	const char *p = s;

	if (*p == '+' || *p == '-') {
		sign = *p == '-' ? -1 : 1;
		if (civil_digits(p + 1, 6, &v) == -1)
			return -1;
		if (sign == -1 && v == 0)
			return -1;	/* -000000 is not a year */
		year = sign * (long)v;
		p += 7;
	} else {
		if (civil_digits(p, 4, &y4) == -1)
			return -1;
		year = y4;
		p += 4;
	}
	if (*p == '-') {
		if (civil_digits(p + 1, 2, &mon) == -1 || mon < 1 || mon > 12)
			return -1;
		p += 3;
		if (*p == '-') {
			if (civil_digits(p + 1, 2, &day) == -1 || day < 1 ||
			    day > 31)
				return -1;
			p += 3;
		}
	}
	if (*p == '\0') {
		t = (civil_days(year, mon, day)) * 86400000LL;
		goto done;
	}
	if (*p != 'T' && *p != 't' && *p != ' ')
		return -1;
	p++;
	if (civil_digits(p, 2, &hh) == -1 || p[2] != ':' ||
	    civil_digits(p + 3, 2, &mm) == -1)
		return -1;
	p += 5;
	if (*p == ':') {
		if (civil_digits(p + 1, 2, &ss) == -1)
			return -1;
		p += 3;
		if (*p == '.') {
			p++;
			for (nf = 0; *p >= '0' && *p <= '9'; p++, nf++)
				if (nf < 3)
					frac = frac * 10 + (*p - '0');
			if (nf == 0)
				return -1;
			for (; nf < 3; nf++)
				frac *= 10;
		}
	}
	if (hh > 24 || mm > 59 || ss > 59 ||
	    (hh == 24 && (mm != 0 || ss != 0 || frac != 0)))
		return -1;
	if (*p == 'Z' || *p == 'z')
		p++;
	else if (*p == '+' || *p == '-') {
		sign = *p == '-' ? -1 : 1;
		if (civil_digits(p + 1, 2, &oh) == -1)
			return -1;
		p += 3;
		if (*p == ':')
			p++;
		if (civil_digits(p, 2, &om) == -1)
			return -1;
		p += 2;
		if (oh > 23 || om > 59)
			return -1;
	}
	if (*p != '\0')
		return -1;
	t = ((civil_days(year, mon, day) * 24 + hh) * 60 + mm) * 60000 +
	    (int64_t)ss * 1000 + frac - (int64_t)sign * (oh * 60 + om) * 60000;
 done:
	if (t > TIME_MAX || t < -TIME_MAX)
		return -1;
	*ms = t;
	return 0;
}

int
gates_date_parse_v(const struct json_value *v, int64_t *ms)
{
	char	*s;
	int	 r;

	if ((s = gt_cstr(v)) == NULL)
		return -1;
	r = gates_date_parse(s, ms);
	free(s);
	return r;
}

/* ajv-formats: ^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$ */
static int
format_time(const char *p)
{
	int	 hr, min, sec, tzh = 0, tzm = 0, sign = 1, utcmin, utchr;

	if (civil_digits(p, 2, &hr) == -1 || p[2] != ':' ||
	    civil_digits(p + 3, 2, &min) == -1 || p[5] != ':' ||
	    civil_digits(p + 6, 2, &sec) == -1)
		return 0;
	p += 8;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'z' || *p == 'Z')
		p++;
	else if (*p == '+' || *p == '-') {
		sign = *p == '-' ? -1 : 1;
		if (civil_digits(p + 1, 2, &tzh) == -1)
			return 0;
		p += 3;
		if (*p == ':')
			p++;
		if (*p != '\0') {
			if (civil_digits(p, 2, &tzm) == -1)
				return 0;
			p += 2;
		}
	} else
		return 0;	/* strictTimeZone: an offset is required */
	if (*p != '\0' || tzh > 23 || tzm > 59)
		return 0;
	if (hr <= 23 && min <= 59 && sec < 60)
		return 1;
	/* A leap second, only at 23:59 UTC. */
	utcmin = min - tzm * sign;
	utchr = hr - tzh * sign - (utcmin < 0 ? 1 : 0);
	return (utchr == 23 || utchr == -1) && (utcmin == 59 || utcmin == -1) &&
	    sec < 61;
}

int
gates_format_datetime(const char *s)
{
	int	 y, m, d;
	size_t	 i, seps = 0, at = 0;

	/* str.split(/t|\s/i) must give exactly two parts. */
	for (i = 0; s[i] != '\0'; i++)
		if (s[i] == 't' || s[i] == 'T' || s[i] == ' ' ||
		    s[i] == '\t' || s[i] == '\n' || s[i] == '\r' ||
		    s[i] == '\v' || s[i] == '\f') {
			seps++;
			at = i;
		}
	if (seps != 1 || at != 10)
		return 0;
	if (civil_digits(s, 4, &y) == -1 || s[4] != '-' ||
	    civil_digits(s + 5, 2, &m) == -1 || s[7] != '-' ||
	    civil_digits(s + 8, 2, &d) == -1)
		return 0;
	if (m < 1 || m > 12 || d < 1 || d > civil_month_days(y, m))
		return 0;
	return format_time(s + 11);
}
