/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * json.c: a strict RFC 8259 parser for untrusted bytes.
 *
 * Records files, provider output and agent requests come from processes we
 * do not trust, and the digests we compute over them must equal the ones
 * the reference computes after JSON.parse.  So where the RFC leaves room
 * the parser does what JSON.parse does: a duplicate key keeps the place of
 * its first occurrence and the value of its last; strings are UTF-16 code
 * units, so a \u escape of a lone surrogate survives; numbers are correctly
 * rounded.  It refuses what JSON.parse could not have been given as text:
 * raw bytes that are not UTF-8 (reading them as text would have turned them
 * into U+FFFD and silently changed the digest) and numbers beyond the range
 * of a double (the reference refuses non-finite numbers).
 *
 * Threat: a hostile document sized to exhaust memory or the stack.  Every
 * resource it can make us spend is bounded by struct json_limits, and the
 * recursion depth by JSON_MAX_DEPTH_LIMIT whatever the caller asks.  Bad
 * input never reaches fatal(): every refusal is returned with the byte
 * offset and the rule.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "hex.h"

struct parser {
	const unsigned char	*buf;
	size_t			 len;
	size_t			 pos;
	size_t			 depth;
	size_t			 nodes;
	struct json_limits	 lim;
	struct json_error	*err;
	uint16_t		*scratch;	/* the string being decoded */
	size_t			 scratchlen;
	size_t			 scratchcap;
	size_t			 duplicates;	/* keys given again */
	/* Elements and members of the containers being parsed, innermost
	 * last: each container takes one exact allocation when it closes. */
	struct json_value	*vstack;
	size_t			 vtop;
	size_t			 vcap;
	struct json_member	*mstack;
	size_t			 mtop;
	size_t			 mcap;
};

static int	fail(struct parser *, size_t, const char *, ...)
		    SBX_PRINTF(3, 4);
static int	parse_value(struct parser *, struct json_value *);

static int
fail(struct parser *ps, size_t offset, const char *fmt, ...)
{
	va_list	 ap;

	if (ps->err == NULL)
		return -1;
	ps->err->offset = offset;
	va_start(ap, fmt);
	vsnprintf(ps->err->reason, sizeof(ps->err->reason), fmt, ap);
	va_end(ap);
	snprintf(ps->err->msg, sizeof(ps->err->msg),
	    "invalid JSON at byte offset %zu: %s", offset, ps->err->reason);
	return -1;
}

/* Name a byte for an error message without echoing control bytes. */
static void
describe(unsigned char c, char *out, size_t outsz)
{
	if (c > 0x20 && c < 0x7f)
		snprintf(out, outsz, "'%c'", c);
	else
		snprintf(out, outsz, "byte 0x%02x", c);
}

static int
expected(struct parser *ps, const char *what)
{
	char	 d[16];

	if (ps->pos >= ps->len)
		return fail(ps, ps->pos,
		    "unexpected end of input (%s expected)", what);
	describe(ps->buf[ps->pos], d, sizeof(d));
	return fail(ps, ps->pos, "unexpected %s (%s expected)", d, what);
}

static int
peek(const struct parser *ps)
{
	return ps->pos < ps->len ? ps->buf[ps->pos] : -1;
}

static int
isdigit_ascii(int c)
{
	return c >= '0' && c <= '9';
}

static void
skip_ws(struct parser *ps)
{
	while (ps->pos < ps->len) {
		switch (ps->buf[ps->pos]) {
		case ' ':
		case '\t':
		case '\n':
		case '\r':
			ps->pos++;
			break;
		default:
			return;
		}
	}
}

/*
 * One UTF-8 sequence: its length, or 0 when it is not the shortest
 * encoding of a scalar value (overlongs, UTF-16 surrogates, > U+10FFFF and
 * truncated sequences are all refused).
 */
static size_t
utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp)
{
	uint32_t	 v, min;
	size_t		 n, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		v = s[0] & 0x1f;
		min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		v = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		v = s[0] & 0x07;
		min = 0x10000;
	} else
		return 0;
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* Append one code point as UTF-16; room for two units is guaranteed. */
static size_t
utf16_put(uint16_t *out, uint32_t cp)
{
	if (cp < 0x10000) {
		out[0] = (uint16_t)cp;
		return 1;
	}
	cp -= 0x10000;
	out[0] = (uint16_t)(0xd800 + (cp >> 10));
	out[1] = (uint16_t)(0xdc00 + (cp & 0x3ff));
	return 2;
}

/* Room for two more code units; bounded by the input length. */
static void
scratch_reserve(struct parser *ps)
{
	size_t	 ncap;

	if (ps->scratchlen + 2 <= ps->scratchcap)
		return;
	ncap = ps->scratchcap == 0 ? 64 : ps->scratchcap * 2;
	ps->scratch = xreallocarray(ps->scratch, ncap, sizeof(*ps->scratch));
	ps->scratchcap = ncap;
}

/* After the backslash; appends the escaped code unit. */
static int
parse_escape(struct parser *ps)
{
	const unsigned char	*b = ps->buf;
	size_t			 esc = ps->pos - 1, i;
	unsigned int		 u = 0;
	int			 h;
	char			 d[16];

	if (ps->pos >= ps->len)
		return expected(ps, "escape character");
	switch (b[ps->pos]) {
	case '"':
	case '\\':
	case '/':
		u = b[ps->pos];
		break;
	case 'b':
		u = '\b';
		break;
	case 'f':
		u = '\f';
		break;
	case 'n':
		u = '\n';
		break;
	case 'r':
		u = '\r';
		break;
	case 't':
		u = '\t';
		break;
	case 'u':
		for (i = 1; i <= 4; i++) {
			if (ps->pos + i >= ps->len ||
			    (h = hexval(b[ps->pos + i])) == -1)
				return fail(ps, esc, "invalid \\u escape "
				    "(4 hex digits expected)");
			u = (u << 4) | (unsigned int)h;
		}
		ps->pos += 4;
		break;
	default:
		describe(b[ps->pos], d, sizeof(d));
		return fail(ps, esc, "invalid escape \\ followed by %s", d);
	}
	ps->pos++;
	ps->scratch[ps->scratchlen++] = (uint16_t)u;
	return 0;
}

/*
 * A string without escapes (nearly all of them) is decoded straight into
 * its own allocation, sized by its byte length, which bounds its length
 * in UTF-16 code units; anything else goes through the scratch buffer.
 */
static int
parse_string(struct parser *ps, struct json_string *out)
{
	const unsigned char	*b = ps->buf;
	size_t			 start = ps->pos, n, i, k, end;
	uint16_t		*u;
	uint32_t		 cp;

	for (end = start + 1; end < ps->len && b[end] != '"' &&
	    b[end] != '\\' && b[end] >= 0x20; end++)
		;
	if (end < ps->len && b[end] == '"') {
		out->u = NULL;
		out->len = 0;
		if (end == start + 1) {
			ps->pos = end + 1;
			return 0;
		}
		u = xreallocarray(NULL, end - start - 1, sizeof(*u));
		for (i = start + 1, n = 0; i < end;) {
			if (b[i] < 0x80) {
				u[n++] = b[i++];
				continue;
			}
			if ((k = utf8_decode(b + i, end - i, &cp)) == 0) {
				free(u);
				return fail(ps, i, "invalid UTF-8 in string "
				    "(byte 0x%02x)", b[i]);
			}
			i += k;
			n += utf16_put(u + n, cp);
		}
		ps->pos = end + 1;
		out->u = u;
		out->len = n;
		return 0;
	}

	ps->pos++;				/* the opening quote */
	ps->scratchlen = 0;
	for (;;) {
		if (ps->pos >= ps->len)
			return fail(ps, ps->pos, "unterminated string "
			    "(opened at byte offset %zu)", start);
		scratch_reserve(ps);
		if (b[ps->pos] == '"') {
			ps->pos++;
			break;
		}
		if (b[ps->pos] == '\\') {
			ps->pos++;
			if (parse_escape(ps) == -1)
				return -1;
		} else if (b[ps->pos] < 0x20) {
			return fail(ps, ps->pos, "unescaped control character "
			    "0x%02x in string", b[ps->pos]);
		} else {
			if ((n = utf8_decode(b + ps->pos, ps->len - ps->pos,
			    &cp)) == 0)
				return fail(ps, ps->pos, "invalid UTF-8 in "
				    "string (byte 0x%02x)", b[ps->pos]);
			ps->pos += n;
			ps->scratchlen += utf16_put(ps->scratch +
			    ps->scratchlen, cp);
		}
	}
	out->len = ps->scratchlen;
	out->u = NULL;
	if (out->len > 0) {
		out->u = xreallocarray(NULL, out->len, sizeof(*out->u));
		memcpy(out->u, ps->scratch, out->len * sizeof(*out->u));
	}
	return 0;
}

static int
parse_number(struct parser *ps, struct json_value *v)
{
	const unsigned char	*b = ps->buf;
	size_t			 start = ps->pos;
	double			 d;

	if (peek(ps) == '-')
		ps->pos++;
	if (!isdigit_ascii(peek(ps)))
		return expected(ps, "digit");
	if (b[ps->pos] == '0') {
		ps->pos++;
		if (isdigit_ascii(peek(ps)))
			return fail(ps, ps->pos, "leading zero in number");
	} else {
		while (isdigit_ascii(peek(ps)))
			ps->pos++;
	}
	if (peek(ps) == '.') {
		ps->pos++;
		if (!isdigit_ascii(peek(ps)))
			return expected(ps, "digit after '.'");
		while (isdigit_ascii(peek(ps)))
			ps->pos++;
	}
	if (peek(ps) == 'e' || peek(ps) == 'E') {
		ps->pos++;
		if (peek(ps) == '+' || peek(ps) == '-')
			ps->pos++;
		if (!isdigit_ascii(peek(ps)))
			return expected(ps, "digit in exponent");
		while (isdigit_ascii(peek(ps)))
			ps->pos++;
	}

	/* Underflow to zero is what JSON.parse does; overflow is refused. */
	if (json_number_scan((const char *)b + start, ps->pos - start,
	    &d) == -1)
		return fail(ps, start, "number out of range");
	v->type = JSON_NUMBER;
	v->u.number = d;
	return 0;
}

static int
parse_literal(struct parser *ps, const char *word, enum json_type t,
    struct json_value *v)
{
	size_t	 i, n = strlen(word);
	char	 what[16];

	for (i = 0; i < n; i++) {
		if (ps->pos + i >= ps->len ||
		    ps->buf[ps->pos + i] != (unsigned char)word[i]) {
			ps->pos += i;
			snprintf(what, sizeof(what), "'%s'", word);
			return expected(ps, what);
		}
	}
	ps->pos += n;
	v->type = t;
	return 0;
}

/* Room for one more element or member on the parser's stacks. */
static void
vstack_reserve(struct parser *ps)
{
	size_t	 ncap;

	if (ps->vtop < ps->vcap)
		return;
	ncap = ps->vcap == 0 ? 64 : ps->vcap * 2;
	ps->vstack = xreallocarray(ps->vstack, ncap, sizeof(*ps->vstack));
	ps->vcap = ncap;
}

static void
mstack_reserve(struct parser *ps)
{
	size_t	 ncap;

	if (ps->mtop < ps->mcap)
		return;
	ncap = ps->mcap == 0 ? 64 : ps->mcap * 2;
	ps->mstack = xreallocarray(ps->mstack, ncap, sizeof(*ps->mstack));
	ps->mcap = ncap;
}

/*
 * A container's elements are parsed onto the parser's stack (a nested
 * one's go above them) and copied into one allocation of the exact size
 * when it closes: no slots left unused, and none of the reallocs that
 * growing each container by doubling cost per small record.  Each value
 * is parsed into a local first, as the stack may move meanwhile.  On an
 * error a container frees what it had parsed and is left empty.
 */
static int
parse_array(struct parser *ps, struct json_value *v)
{
	struct json_value	 elem;
	size_t			 base = ps->vtop, n, i;

	v->type = JSON_ARRAY;
	v->u.array.v = NULL;
	v->u.array.n = 0;
	ps->pos++;				/* '[' */
	skip_ws(ps);
	if (peek(ps) == ']') {
		ps->pos++;
		return 0;
	}
	for (;;) {
		elem.type = JSON_NULL;
		if (parse_value(ps, &elem) == -1) {
			json_value_clear(&elem);
			goto bad;
		}
		vstack_reserve(ps);
		ps->vstack[ps->vtop++] = elem;
		skip_ws(ps);
		if (peek(ps) == ',') {
			ps->pos++;
			continue;
		}
		if (peek(ps) == ']') {
			ps->pos++;
			break;
		}
		expected(ps, "',' or ']'");
		goto bad;
	}
	n = ps->vtop - base;
	v->u.array.v = xreallocarray(NULL, n, sizeof(*v->u.array.v));
	memcpy(v->u.array.v, ps->vstack + base, n * sizeof(*v->u.array.v));
	v->u.array.n = n;
	ps->vtop = base;
	return 0;
 bad:
	for (i = base; i < ps->vtop; i++)
		json_value_clear(&ps->vstack[i]);
	ps->vtop = base;
	return -1;
}

static int
member_ptr_cmp(const void *a, const void *b)
{
	const struct json_member	*ma, *mb;
	int				 c;

	ma = *(const struct json_member * const *)a;
	mb = *(const struct json_member * const *)b;
	if ((c = json_string_compare(&ma->key, &mb->key)) != 0)
		return c;
	/* Same key: keep input order, so the run starts with the first. */
	return (ma > mb) - (ma < mb);
}

/*
 * JSON.parse semantics for duplicate keys: the property stays where it
 * first appeared and holds the last value.  Sorting makes this O(n log n);
 * a linear scan per key would let one object with many keys cost
 * quadratic time.
 */
#define OBJECT_DEDUPE_SMALL	8

static size_t
object_dedupe(struct json_value *v)
{
	struct json_member	*m = v->u.object.m, **sorted, *first, *last;
	unsigned char		*gone;
	size_t			 n = v->u.object.n, i, j, k, out;
	size_t			 dups = 0;

	if (n < 2)
		return 0;
	/* Records are mostly small objects: without a duplicate (the
	 * usual case) a few compares settle it with no allocation. */
	if (n <= OBJECT_DEDUPE_SMALL) {
		for (i = 0; i < n && !dups; i++)
			for (j = i + 1; j < n && !dups; j++)
				if (json_string_compare(&m[i].key,
				    &m[j].key) == 0)
					dups = 1;
		if (!dups)
			return 0;
		dups = 0;
	}
	sorted = xreallocarray(NULL, n, sizeof(*sorted));
	for (i = 0; i < n; i++)
		sorted[i] = &m[i];
	qsort(sorted, n, sizeof(*sorted), member_ptr_cmp);
	gone = xcalloc(n, 1);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n &&
		    json_string_compare(&sorted[i]->key, &sorted[j]->key) == 0;
		    j++)
			;
		if (j - i == 1)
			continue;
		dups += j - i - 1;
		first = sorted[i];
		last = sorted[j - 1];
		json_value_clear(&first->value);
		first->value = last->value;
		last->value.type = JSON_NULL;
		for (k = i + 1; k < j; k++) {
			free(sorted[k]->key.u);
			json_value_clear(&sorted[k]->value);
			gone[sorted[k] - m] = 1;
		}
	}
	if (dups) {
		for (i = 0, out = 0; i < n; i++)
			if (!gone[i])
				m[out++] = m[i];
		v->u.object.n = out;
		v->u.object.m = xreallocarray(m, out, sizeof(*m));
	}
	free(gone);
	free(sorted);
	return dups;
}

static int
parse_object(struct parser *ps, struct json_value *v)
{
	struct json_member	 mb;
	size_t			 base = ps->mtop, n, i;

	v->type = JSON_OBJECT;
	v->u.object.m = NULL;
	v->u.object.n = 0;
	ps->pos++;				/* '{' */
	skip_ws(ps);
	if (peek(ps) == '}') {
		ps->pos++;
		return 0;
	}
	for (;;) {
		skip_ws(ps);
		if (peek(ps) != '"') {
			expected(ps, "string key");
			goto bad;
		}
		mb.key.u = NULL;
		mb.key.len = 0;
		mb.value.type = JSON_NULL;
		if (parse_string(ps, &mb.key) == -1)
			goto bad;
		skip_ws(ps);
		if (peek(ps) != ':') {
			free(mb.key.u);
			expected(ps, "':'");
			goto bad;
		}
		ps->pos++;
		if (parse_value(ps, &mb.value) == -1) {
			free(mb.key.u);
			json_value_clear(&mb.value);
			goto bad;
		}
		mstack_reserve(ps);
		ps->mstack[ps->mtop++] = mb;
		skip_ws(ps);
		if (peek(ps) == ',') {
			ps->pos++;
			continue;
		}
		if (peek(ps) == '}') {
			ps->pos++;
			break;
		}
		expected(ps, "',' or '}'");
		goto bad;
	}
	n = ps->mtop - base;
	v->u.object.m = xreallocarray(NULL, n, sizeof(*v->u.object.m));
	memcpy(v->u.object.m, ps->mstack + base, n * sizeof(*v->u.object.m));
	v->u.object.n = n;
	ps->mtop = base;
	ps->duplicates += object_dedupe(v);
	return 0;
 bad:
	for (i = base; i < ps->mtop; i++) {
		free(ps->mstack[i].key.u);
		json_value_clear(&ps->mstack[i].value);
	}
	ps->mtop = base;
	return -1;
}

static int
parse_value(struct parser *ps, struct json_value *v)
{
	int	 r;

	skip_ws(ps);
	if (ps->pos >= ps->len)
		return expected(ps, "value");
	if (ps->nodes >= ps->lim.max_nodes)
		return fail(ps, ps->pos, "more than %zu values",
		    ps->lim.max_nodes);
	ps->nodes++;
	switch (ps->buf[ps->pos]) {
	case '{':
	case '[':
		if (ps->depth >= ps->lim.max_depth)
			return fail(ps, ps->pos, "nesting deeper than %zu",
			    ps->lim.max_depth);
		ps->depth++;
		if (ps->buf[ps->pos] == '{')
			r = parse_object(ps, v);
		else
			r = parse_array(ps, v);
		ps->depth--;
		return r;
	case '"':
		v->type = JSON_STRING;
		v->u.string.u = NULL;
		v->u.string.len = 0;
		return parse_string(ps, &v->u.string);
	case 't':
		return parse_literal(ps, "true", JSON_TRUE, v);
	case 'f':
		return parse_literal(ps, "false", JSON_FALSE, v);
	case 'n':
		return parse_literal(ps, "null", JSON_NULL, v);
	case '-':
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return parse_number(ps, v);
	default:
		return expected(ps, "value");
	}
}

static void
parser_init(struct parser *ps, const void *buf, size_t len,
    const struct json_limits *lim, struct json_error *err)
{
	memset(ps, 0, sizeof(*ps));
	ps->buf = buf;
	ps->len = len;
	ps->err = err;
	if (lim != NULL)
		ps->lim = *lim;
	if (ps->lim.max_bytes == 0)
		ps->lim.max_bytes = JSON_MAX_BYTES_DEFAULT;
	if (ps->lim.max_depth == 0)
		ps->lim.max_depth = JSON_MAX_DEPTH_DEFAULT;
	if (ps->lim.max_depth > JSON_MAX_DEPTH_LIMIT)
		ps->lim.max_depth = JSON_MAX_DEPTH_LIMIT;
	if (ps->lim.max_nodes == 0)
		ps->lim.max_nodes = JSON_MAX_NODES_DEFAULT;
	if (err != NULL)
		memset(err, 0, sizeof(*err));
}

static void
parser_done(struct parser *ps)
{
	free(ps->scratch);
	free(ps->vstack);
	free(ps->mstack);
}

/* Nothing but whitespace may follow the value. */
static int
parse_end(struct parser *ps)
{
	char	 d[16];

	skip_ws(ps);
	if (ps->pos == ps->len)
		return 0;
	describe(ps->buf[ps->pos], d, sizeof(d));
	return fail(ps, ps->pos, "unexpected %s after the JSON value", d);
}

int
json_parse(const void *buf, size_t len, const struct json_limits *lim,
    struct json_value **out, struct json_error *err)
{
	struct parser		 ps;
	struct json_value	*v;

	parser_init(&ps, buf, len, lim, err);
	*out = NULL;
	if (len > ps.lim.max_bytes)
		return fail(&ps, ps.lim.max_bytes, "input exceeds %zu bytes",
		    ps.lim.max_bytes);
	v = xcalloc(1, sizeof(*v));
	v->type = JSON_NULL;
	if (parse_value(&ps, v) == -1 || parse_end(&ps) == -1) {
		parser_done(&ps);
		json_free(v);
		return -1;
	}
	if (err != NULL)
		err->duplicates = ps.duplicates;
	parser_done(&ps);
	*out = v;
	return 0;
}

/*
 * json_parse for a consumer that needs each element of a top-level array
 * only once, in order (a digest of records): each is handed to fn as
 * soon as it is parsed, then freed, so only one element's tree exists at
 * a time -- no megabytes of small allocations to fault in and free
 * again.  The refusals, their offsets and the limits are json_parse's:
 * this is its parse_value and parse_array for the outermost '[', step
 * for step.  Any other document is parsed whole and handed to fn once,
 * with index SIZE_MAX.  fn returns 0, or -1 to stop (its errno is kept,
 * err->msg names it).  *array says whether the document was an array.
 */
int
json_parse_elements(const void *buf, size_t len,
    const struct json_limits *lim,
    int (*fn)(void *, const struct json_value *, size_t), void *arg,
    int *array, struct json_error *err)
{
	struct parser		 ps;
	struct json_value	*v, elem;
	size_t			 i = 0;
	int			 r, saved;

	parser_init(&ps, buf, len, lim, err);
	*array = 0;
	if (len > ps.lim.max_bytes)
		return fail(&ps, ps.lim.max_bytes, "input exceeds %zu bytes",
		    ps.lim.max_bytes);
	skip_ws(&ps);
	if (peek(&ps) != '[') {
		if (json_parse(buf, len, lim, &v, err) == -1)
			return -1;
		r = fn(arg, v, SIZE_MAX);
		saved = errno;
		json_free(v);
		errno = saved;
		goto called;
	}
	/* parse_value's checks for a container, then parse_array's loop */
	if (ps.nodes >= ps.lim.max_nodes)
		return fail(&ps, ps.pos, "more than %zu values",
		    ps.lim.max_nodes);
	ps.nodes++;
	if (ps.depth >= ps.lim.max_depth)
		return fail(&ps, ps.pos, "nesting deeper than %zu",
		    ps.lim.max_depth);
	ps.depth++;
	*array = 1;
	ps.pos++;				/* '[' */
	skip_ws(&ps);
	r = 0;
	if (peek(&ps) == ']')
		ps.pos++;
	else {
		for (;;) {
			elem.type = JSON_NULL;
			if (parse_value(&ps, &elem) == -1) {
				json_value_clear(&elem);
				goto bad;
			}
			r = fn(arg, &elem, i++);
			saved = errno;
			json_value_clear(&elem);
			errno = saved;
			if (r == -1)
				break;
			skip_ws(&ps);
			if (peek(&ps) == ',') {
				ps.pos++;
				continue;
			}
			if (peek(&ps) == ']') {
				ps.pos++;
				break;
			}
			expected(&ps, "',' or ']'");
			goto bad;
		}
	}
	ps.depth--;
	if (r == 0 && parse_end(&ps) == -1)
		goto bad;
	parser_done(&ps);
 called:
	if (r == -1 && err != NULL) {
		saved = errno;
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(saved));
		errno = saved;
	}
	return r;
 bad:
	parser_done(&ps);
	return -1;
}

void
json_value_clear(struct json_value *v)
{
	size_t	 i;

	switch (v->type) {
	case JSON_STRING:
		free(v->u.string.u);
		break;
	case JSON_ARRAY:
		for (i = 0; i < v->u.array.n; i++)
			json_value_clear(&v->u.array.v[i]);
		free(v->u.array.v);
		break;
	case JSON_OBJECT:
		for (i = 0; i < v->u.object.n; i++) {
			free(v->u.object.m[i].key.u);
			json_value_clear(&v->u.object.m[i].value);
		}
		free(v->u.object.m);
		break;
	default:
		break;
	}
	memset(v, 0, sizeof(*v));
	v->type = JSON_NULL;
}

void
json_free(struct json_value *v)
{
	if (v == NULL)
		return;
	json_value_clear(v);
	free(v);
}

int
json_string_from_utf8(struct json_string *out, const char *s, size_t len)
{
	const unsigned char	*b = (const unsigned char *)s;
	uint16_t		*u;
	size_t			 pos = 0, n, ulen = 0;
	uint32_t		 cp;

	out->u = NULL;
	out->len = 0;
	if (len == 0)
		return 0;
	/* Each byte yields at most one unit; four bytes make a pair. */
	u = xreallocarray(NULL, len, sizeof(*u));
	while (pos < len) {
		if ((n = utf8_decode(b + pos, len - pos, &cp)) == 0) {
			free(u);
			errno = EILSEQ;
			return -1;
		}
		pos += n;
		ulen += utf16_put(u + ulen, cp);
	}
	out->u = xreallocarray(u, ulen, sizeof(*u));
	out->len = ulen;
	return 0;
}

/* Does a JSON key spell the ASCII string key exactly? */
int
json_key_is(const struct json_string *k, const char *key)
{
	size_t	 i, n = strlen(key);

	if (k->len != n)
		return 0;
	for (i = 0; i < n; i++)
		if (k->u[i] != (unsigned char)key[i])
			return 0;
	return 1;
}

/* The member key of an object, or NULL (also when v is no object). */
const struct json_value *
json_get(const struct json_value *v, const char *key)
{
	size_t	 i;

	if (v == NULL || v->type != JSON_OBJECT)
		return NULL;
	for (i = 0; i < v->u.object.n; i++)
		if (json_key_is(&v->u.object.m[i].key, key))
			return &v->u.object.m[i].value;
	return NULL;
}
