/*
 * canon.c: the canonical JSON text of provider-spec 2 -- object keys sorted
 * by UTF-16 code units (the JavaScript default sort), no whitespace, arrays
 * in order, and every string and number written byte for byte as
 * ECMAScript JSON.stringify writes it.
 *
 * The text is hashed into code and records digests that must equal the
 * reference's, so one differing byte is a refused provider or a forged
 * binding that verifies.  We own the number formatting (a design decision):
 * no library on the system produces ECMAScript's shortest round-trip
 * digits, and the test suite compares this code against node directly.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

struct cbuf {
	char	*b;
	size_t	 len;
	size_t	 cap;
};

/* Enough for "d.dddddddddddddddde-ddd" with the 17 digits of a double. */
#define NUMTEXT_MAX	40
#define DIGITS_MAX	17

/*
 * printf and strtod follow LC_NUMERIC; the digits must not depend on a
 * locale some caller chose, so the conversions run in the C locale.
 */
static locale_t
canon_c_locale(void)
{
	static locale_t	 loc = (locale_t)0;

	if (loc == (locale_t)0 &&
	    (loc = newlocale(LC_ALL_MASK, "C", (locale_t)0)) == (locale_t)0)
		fatal("newlocale C");
	return loc;
}

/*
 * Split printf's "%.*e" output "d.ddde[+-]x" into its digits and the
 * decimal exponent of the first digit.
 */
static int
split_exp(const char *s, char *digits, int *ndigits, int *exp10)
{
	const char	*e;
	int		 n = 0;

	for (; *s != '\0' && *s != 'e'; s++) {
		if (*s == '.')
			continue;
		if (n == DIGITS_MAX)
			return -1;
		digits[n++] = *s;
	}
	if (*s != 'e' || n == 0)
		return -1;
	e = s + 1;
	*exp10 = (int)strtol(e, NULL, 10);
	*ndigits = n;
	return 0;
}

/* Does "0.d1d2...dn * 10^(exp10+1)" read back as exactly v? */
static int
roundtrips(double v, const char *digits, int ndigits, int exp10)
{
	char	 text[NUMTEXT_MAX];

	snprintf(text, sizeof(text), "%c.%.*se%d", digits[0], ndigits - 1,
	    digits + 1, exp10);
	return strtod(text, NULL) == v;
}

/*
 * A k-digit decimal that reads back as v (v finite, > 0), the closest to v
 * if there are several: 1 and its digits, or 0 if none exists.  printf's
 * "%.*e" gives the correctly rounded candidate, which is the answer
 * whenever any k-digit decimal reads back, with one exception: at a power
 * of two the interval of decimals that read back as v is twice as wide
 * above v as below, so a candidate rounded down may miss it while the
 * next one up, one unit in the last place away, lies inside.
 */
static int
candidate(double v, int k, char *digits, int *ndigits, int *exp10)
{
	char	 text[NUMTEXT_MAX], up[DIGITS_MAX];
	double	 back;
	int	 i, n, e;

	snprintf(text, sizeof(text), "%.*e", k - 1, v);
	if (split_exp(text, digits, &n, &e) == -1)
		fatalx("%s: unexpected printf output \"%s\"", __func__, text);
	*ndigits = n;
	*exp10 = e;
	if ((back = strtod(text, NULL)) == v)
		return 1;
	if (back > v)
		return 0;
	memcpy(up, digits, n);
	for (i = n - 1; i >= 0 && up[i] == '9'; i--)
		up[i] = '0';
	if (i < 0) {
		/* 99..9 + 1: the next power of ten. */
		up[0] = '1';
		e++;
	} else
		up[i]++;
	if (!roundtrips(v, up, n, e))
		return 0;
	memcpy(digits, up, n);
	*exp10 = e;
	return 1;
}

/*
 * The shortest digits that read back as v, the closest to v among those:
 * what ECMAScript Number::toString requires and V8 computes.  Whether
 * some k-digit decimal reads back is monotonic in k (a k-digit decimal is
 * also a (k+1)-digit one) and true at 17, so the least k is found by
 * bisection: about five conversions instead of up to seventeen.
 */
static void
shortest_digits(double v, char *digits, int *ndigits, int *exp10)
{
	char	 d[DIGITS_MAX];
	int	 lo = 1, hi = DIGITS_MAX, mid, n, e, have = 0;

	/* Invariant: a hi-digit decimal reads back; none with < lo digits. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (candidate(v, mid, d, &n, &e)) {
			hi = mid;
			memcpy(digits, d, n);
			*ndigits = n;
			*exp10 = e;
			have = mid;
		} else
			lo = mid + 1;
	}
	/* 17 digits always read back (IEEE 754); a libc that breaks that
	 * must not produce digests. */
	if (have != hi && !candidate(v, hi, digits, ndigits, exp10))
		fatalx("%s: %a does not round-trip in %d digits", __func__, v,
		    hi);
	/* A carry can leave trailing zeros; they are not significant. */
	while (*ndigits > 1 && digits[*ndigits - 1] == '0')
		(*ndigits)--;
}

int
json_number_format(double v, char *buf, size_t bufsz)
{
	char		 digits[DIGITS_MAX], out[NUMTEXT_MAX];
	locale_t	 old;
	size_t		 o = 0;
	int		 k, n, e, i, neg;

	if (!isfinite(v)) {
		errno = EDOM;
		return -1;
	}
	/* -0 too: JSON.stringify(-0) is "0". */
	if (v == 0) {
		if (bufsz < 2) {
			errno = ERANGE;
			return -1;
		}
		strlcpy(buf, "0", bufsz);
		return 1;
	}
	if ((neg = v < 0))
		v = -v;
	old = uselocale(canon_c_locale());
	shortest_digits(v, digits, &k, &e);
	uselocale(old);
	/* v = 0.d1..dk * 10^n in the terms of ECMA-262 Number::toString. */
	n = e + 1;

	if (neg)
		out[o++] = '-';
	if (k <= n && n <= 21) {
		memcpy(out + o, digits, k);
		o += k;
		for (i = 0; i < n - k; i++)
			out[o++] = '0';
	} else if (0 < n && n <= 21) {
		memcpy(out + o, digits, n);
		o += n;
		out[o++] = '.';
		memcpy(out + o, digits + n, k - n);
		o += k - n;
	} else if (-6 < n && n <= 0) {
		out[o++] = '0';
		out[o++] = '.';
		for (i = 0; i < -n; i++)
			out[o++] = '0';
		memcpy(out + o, digits, k);
		o += k;
	} else {
		out[o++] = digits[0];
		if (k > 1) {
			out[o++] = '.';
			memcpy(out + o, digits + 1, k - 1);
			o += k - 1;
		}
		o += snprintf(out + o, sizeof(out) - o, "e%c%d",
		    n - 1 >= 0 ? '+' : '-', abs(n - 1));
	}
	if (o + 1 > bufsz) {
		errno = ERANGE;
		return -1;
	}
	memcpy(buf, out, o);
	buf[o] = '\0';
	return (int)o;
}

int
json_string_compare(const struct json_string *a, const struct json_string *b)
{
	size_t	 i, n = a->len < b->len ? a->len : b->len;

	for (i = 0; i < n; i++)
		if (a->u[i] != b->u[i])
			return a->u[i] < b->u[i] ? -1 : 1;
	if (a->len == b->len)
		return 0;
	return a->len < b->len ? -1 : 1;
}

static int	cbuf_reserve(struct cbuf *, size_t);

static int
cbuf_add(struct cbuf *cb, const void *p, size_t n)
{
	if (cbuf_reserve(cb, n) == -1)
		return -1;
	memcpy(cb->b + cb->len, p, n);
	cb->len += n;
	cb->b[cb->len] = '\0';
	return 0;
}

static int
cbuf_addc(struct cbuf *cb, char c)
{
	return cbuf_add(cb, &c, 1);
}

/* Room for n more bytes (and the NUL).  0, or -1 with errno. */
static int
cbuf_reserve(struct cbuf *cb, size_t n)
{
	size_t	 ncap;

	if (n > SIZE_MAX - 1 - cb->len) {
		errno = EOVERFLOW;
		return -1;
	}
	if (cb->len + n + 1 <= cb->cap)
		return 0;
	ncap = cb->cap == 0 ? 256 : cb->cap;
	while (ncap < cb->len + n + 1) {
		if (ncap > SIZE_MAX / 2) {
			errno = EOVERFLOW;
			return -1;
		}
		ncap *= 2;
	}
	cb->b = xreallocarray(cb->b, ncap, 1);
	cb->cap = ncap;
	return 0;
}

/*
 * JSON.stringify's QuoteJSONString, well-formed variant (ES2019).
 * Records and requests run to megabytes of strings, so the worst case
 * (six bytes per code unit, "\uXXXX") is reserved once and the bytes
 * are written straight into the buffer.
 */
static int
put_string(struct cbuf *cb, const struct json_string *s)
{
	static const char	 hex[] = "0123456789abcdef";
	unsigned char		*t;
	size_t			 i;
	uint32_t		 c, lo;

	if (s->len > (SIZE_MAX - 2) / 6) {
		errno = EOVERFLOW;
		return -1;
	}
	if (cbuf_reserve(cb, 6 * s->len + 2) == -1)
		return -1;
	t = (unsigned char *)cb->b + cb->len;
	*t++ = '"';
	for (i = 0; i < s->len; i++) {
		c = s->u[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			*t++ = (unsigned char)c;
			continue;
		}
		switch (c) {
		case '"':
		case '\\':
			*t++ = '\\';
			*t++ = (unsigned char)c;
			break;
		case '\b':
			*t++ = '\\';
			*t++ = 'b';
			break;
		case '\f':
			*t++ = '\\';
			*t++ = 'f';
			break;
		case '\n':
			*t++ = '\\';
			*t++ = 'n';
			break;
		case '\r':
			*t++ = '\\';
			*t++ = 'r';
			break;
		case '\t':
			*t++ = '\\';
			*t++ = 't';
			break;
		default:
			if (c >= 0xd800 && c <= 0xdbff && i + 1 < s->len &&
			    (lo = s->u[i + 1]) >= 0xdc00 && lo <= 0xdfff) {
				c = 0x10000 + ((c - 0xd800) << 10) +
				    (lo - 0xdc00);
				i++;
				*t++ = (unsigned char)(0xf0 | (c >> 18));
				*t++ = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
				*t++ = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
				*t++ = (unsigned char)(0x80 | (c & 0x3f));
			} else if (c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) {
				/* Controls and lone surrogates. */
				*t++ = '\\';
				*t++ = 'u';
				*t++ = (unsigned char)hex[(c >> 12) & 0xf];
				*t++ = (unsigned char)hex[(c >> 8) & 0xf];
				*t++ = (unsigned char)hex[(c >> 4) & 0xf];
				*t++ = (unsigned char)hex[c & 0xf];
			} else if (c < 0x800) {
				*t++ = (unsigned char)(0xc0 | (c >> 6));
				*t++ = (unsigned char)(0x80 | (c & 0x3f));
			} else {
				*t++ = (unsigned char)(0xe0 | (c >> 12));
				*t++ = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
				*t++ = (unsigned char)(0x80 | (c & 0x3f));
			}
			break;
		}
	}
	*t++ = '"';
	cb->len = (size_t)(t - (unsigned char *)cb->b);
	cb->b[cb->len] = '\0';
	return 0;
}

static int
member_cmp(const void *a, const void *b)
{
	const struct json_member	*ma, *mb;

	ma = *(const struct json_member * const *)a;
	mb = *(const struct json_member * const *)b;
	return json_string_compare(&ma->key, &mb->key);
}

/* depth: containers around v. */
static int	put_value(struct cbuf *, const struct json_value *, size_t);

/*
 * Records are mostly small objects: up to PUT_OBJECT_SMALL members are
 * sorted on the stack by insertion, without an allocation or a qsort call
 * each (10,000 records made 10,000 of both).
 */
#define PUT_OBJECT_SMALL	8

static int
put_object(struct cbuf *cb, const struct json_value *v, size_t depth)
{
	const struct json_member	 *small[PUT_OBJECT_SMALL], **sorted;
	const struct json_member	 *m;
	size_t				  i, j, n = v->u.object.n;
	int				  r = -1;

	if (n == 0)
		return cbuf_add(cb, "{}", 2);
	if (n <= PUT_OBJECT_SMALL) {
		sorted = small;
		for (i = 0; i < n; i++) {
			m = &v->u.object.m[i];
			for (j = i; j > 0 && json_string_compare(
			    &sorted[j - 1]->key, &m->key) > 0; j--)
				sorted[j] = sorted[j - 1];
			sorted[j] = m;
		}
	} else {
		sorted = xreallocarray(NULL, n, sizeof(*sorted));
		for (i = 0; i < n; i++)
			sorted[i] = &v->u.object.m[i];
		qsort(sorted, n, sizeof(*sorted), member_cmp);
	}
	/*
	 * A hand-built tree may repeat a key; there is no canonical text
	 * for that, and picking one value would hide which one was meant.
	 */
	for (i = 1; i < n; i++) {
		if (json_string_compare(&sorted[i - 1]->key,
		    &sorted[i]->key) == 0) {
			errno = EINVAL;
			goto out;
		}
	}
	if (cbuf_addc(cb, '{') == -1)
		goto out;
	for (i = 0; i < n; i++) {
		if (i > 0 && cbuf_addc(cb, ',') == -1)
			goto out;
		if (put_string(cb, &sorted[i]->key) == -1 ||
		    cbuf_addc(cb, ':') == -1 ||
		    put_value(cb, &sorted[i]->value, depth + 1) == -1)
			goto out;
	}
	r = cbuf_addc(cb, '}');
 out:
	if (sorted != small)
		free(sorted);
	return r;
}

static int
put_value(struct cbuf *cb, const struct json_value *v, size_t depth)
{
	char	 num[JSON_NUMBER_BUFSZ];
	size_t	 i;
	int	 n;

	/* Hand-built trees have no parser limit; keep the stack bounded. */
	if ((v->type == JSON_ARRAY || v->type == JSON_OBJECT) &&
	    depth >= JSON_MAX_DEPTH_LIMIT) {
		errno = ELOOP;
		return -1;
	}
	switch (v->type) {
	case JSON_NULL:
		return cbuf_add(cb, "null", 4);
	case JSON_FALSE:
		return cbuf_add(cb, "false", 5);
	case JSON_TRUE:
		return cbuf_add(cb, "true", 4);
	case JSON_NUMBER:
		if ((n = json_number_format(v->u.number, num,
		    sizeof(num))) == -1)
			return -1;
		return cbuf_add(cb, num, (size_t)n);
	case JSON_STRING:
		return put_string(cb, &v->u.string);
	case JSON_ARRAY:
		if (cbuf_addc(cb, '[') == -1)
			return -1;
		for (i = 0; i < v->u.array.n; i++) {
			if (i > 0 && cbuf_addc(cb, ',') == -1)
				return -1;
			if (put_value(cb, &v->u.array.v[i], depth + 1) == -1)
				return -1;
		}
		return cbuf_addc(cb, ']');
	case JSON_OBJECT:
		return put_object(cb, v, depth);
	}
	errno = EINVAL;
	return -1;
}

int
json_canonical(const struct json_value *v, char **out, size_t *outlen)
{
	struct cbuf	 cb;

	memset(&cb, 0, sizeof(cb));
	*out = NULL;
	*outlen = 0;
	if (put_value(&cb, v, 0) == -1) {
		free(cb.b);
		return -1;
	}
	*out = cb.b;
	*outlen = cb.len;
	return 0;
}
