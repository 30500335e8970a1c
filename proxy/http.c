/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * http.c: HTTP/1.1 request and response heads (RFC 9110, 9112), parsed
 * strictly because the proxy stands between two parsers it does not
 * control.
 *
 * The threat is request smuggling: a head the proxy frames one way and
 * the upstream (or, for responses, the sandbox's client) another, so
 * that bytes the policy never saw become a request of their own.  Every
 * construct that parsers disagree on is refused rather than normalised:
 * Content-Length together with Transfer-Encoding, two Content-Lengths
 * (even equal ones), a Transfer-Encoding other than a lone "chunked",
 * obs-fold, a bare CR or LF, NUL, whitespace before a header's colon,
 * and a Connection header that names a framing header.  The head is
 * bounded (line, field count, total) so a slow or endless one costs a
 * fixed amount of memory.  Nothing here allocates: fields point into
 * the caller's buffer.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "proxy.h"

static const struct {
	enum http_method	 m;
	const char		*name;
} methods[] = {
	{ HTTP_GET, "GET" }, { HTTP_HEAD, "HEAD" }, { HTTP_POST, "POST" },
	{ HTTP_PUT, "PUT" }, { HTTP_PATCH, "PATCH" },
	{ HTTP_DELETE, "DELETE" }, { HTTP_OPTIONS, "OPTIONS" },
	{ HTTP_CONNECT, "CONNECT" },
};

/* Hop-by-hop: they describe one connection, never forwarded (RFC 9110
 * 7.6.1).  Host is rebuilt from the checked authority; Proxy-* belong
 * to us. */
static const char *const hop_by_hop[] = {
	"connection", "keep-alive", "proxy-connection", "proxy-authorization",
	"proxy-authenticate", "te", "trailer", "upgrade", "host",
};

const char *
http_method_name(enum http_method m)
{
	size_t	 i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (methods[i].m == m)
			return methods[i].name;
	return "?";
}

const char *
http_reason(unsigned int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 405:
		return "Method Not Allowed";
	case 408:
		return "Request Timeout";
	case 414:
		return "URI Too Long";
	case 431:
		return "Request Header Fields Too Large";
	case 501:
		return "Not Implemented";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	case 505:
		return "HTTP Version Not Supported";
	}
	return "Error";
}

static int
fail(struct http_error *err, unsigned int status, const char *fmt, ...)
    __attribute__((__format__(printf, 3, 4)));

static int
fail(struct http_error *err, unsigned int status, const char *fmt, ...)
{
	va_list	 ap;

	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->why, sizeof(err->why), fmt, ap);
	va_end(ap);
	return -1;
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Case-insensitive compare of a counted string with a lower-case word. */
static int
ieq(const char *s, size_t len, const char *word)
{
	size_t	 i;

	if (strlen(word) != len)
		return 0;
	for (i = 0; i < len; i++)
		if (lower((unsigned char)s[i]) != word[i])
			return 0;
	return 1;
}

static int
tchar(int c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return 1;
	return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

ssize_t
http_head_len(const char *buf, size_t len, struct http_error *err)
{
	const char	*nl;
	size_t		 i;

	nl = memchr(buf, '\n', len);
	if (nl == NULL && len > HTTP_LINE_MAX)
		return fail(err, 414, "request line longer than %d bytes",
		    HTTP_LINE_MAX);
	if (nl != NULL && (size_t)(nl - buf) >= HTTP_LINE_MAX)
		return fail(err, 414, "request line longer than %d bytes",
		    HTTP_LINE_MAX);
	/* The head ends at an empty line: LF (CR) LF.  A bare LF is
	 * refused by the parser, but it must still end the head here, or a
	 * client sending LF-only lines would be waited for until a cap. */
	for (i = 0; i < len && i < HTTP_HEAD_MAX; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < len && buf[i + 1] == '\n')
			return (ssize_t)(i + 2);
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return (ssize_t)(i + 3);
	}
	if (len >= HTTP_HEAD_MAX)
		return fail(err, 431, "head longer than %d bytes",
		    HTTP_HEAD_MAX);
	return 0;
}

/*
 * Lines of the head: every line ends in CRLF, no other CR or LF, no NUL,
 * no control character but HTAB.  Returns the next line's start.
 */
static int
check_bytes(const char *buf, size_t len, struct http_error *err,
    unsigned int status)
{
	size_t	 i;
	unsigned char c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)buf[i];
		if (c == '\0')
			return fail(err, status, "NUL byte in the head");
		if (c == '\r' && (i + 1 == len || buf[i + 1] != '\n'))
			return fail(err, status, "bare CR in the head");
		if (c == '\n' && (i == 0 || buf[i - 1] != '\r'))
			return fail(err, status, "bare LF in the head");
		if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') ||
		    c == 0x7f)
			return fail(err, status, "control character 0x%02x "
			    "in the head", c);
	}
	return 0;
}

static int
field_is(const struct http_field *f, const char *word)
{
	return ieq(f->name, f->namelen, word);
}

/* Mark a field hop-by-hop when a Connection token names it. */
static int
connection_tokens(struct http_msg *msg, const struct http_field *f,
    int *close, struct http_error *err, unsigned int status)
{
	const char	*p = f->value, *end = f->value + f->valuelen, *t;
	size_t		 tl, i;

	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == ','))
			p++;
		t = p;
		while (p < end && *p != ',' && *p != ' ' && *p != '\t')
			p++;
		if ((tl = p - t) == 0)
			break;
		if (ieq(t, tl, "close"))
			*close = 1;
		else if (ieq(t, tl, "content-length") ||
		    ieq(t, tl, "transfer-encoding") || ieq(t, tl, "host"))
			return fail(err, status, "Connection names the "
			    "framing header %.*s", (int)tl, t);
		for (i = 0; i < msg->nfields; i++)
			if (msg->fields[i].namelen == tl &&
			    strncasecmp(msg->fields[i].name, t, tl) == 0)
				msg->fields[i].drop = 1;
	}
	return 0;
}

/*
 * The fields between the start line and the empty line, and what they
 * say about framing.  status is 400 for requests, 502 for responses.
 */
static int
parse_fields(const char *p, const char *end, struct http_msg *msg,
    struct http_error *err, unsigned int status)
{
	struct http_field	*f;
	const char		*eol, *colon, *v, *ve;
	size_t			 i, j;
	int			 ncl = 0, nte = 0, close = 0;
	uint64_t		 cl = 0;

	for (; p < end; p = eol + 2) {
		eol = memchr(p, '\r', end - p);
		if (eol == NULL)
			return fail(err, status, "unterminated header line");
		if (eol == p)
			break;		/* the empty line */
		if (eol - p > HTTP_LINE_MAX)
			return fail(err, status == 400 ? 431 : status,
			    "header line longer than %d bytes",
			    HTTP_LINE_MAX);
		if (*p == ' ' || *p == '\t')
			return fail(err, status, "obs-fold (a header line "
			    "starting with whitespace)");
		if (msg->nfields == HTTP_HDRS_MAX)
			return fail(err, status == 400 ? 431 : status,
			    "more than %d header fields", HTTP_HDRS_MAX);
		if ((colon = memchr(p, ':', eol - p)) == NULL)
			return fail(err, status, "header line without ':'");
		if (colon == p)
			return fail(err, status, "empty header name");
		for (v = p; v < colon; v++) {
			if (*v == ' ' || *v == '\t')
				return fail(err, status, "whitespace before "
				    "':' in a header");
			if (!tchar((unsigned char)*v))
				return fail(err, status, "invalid character "
				    "in a header name");
		}
		v = colon + 1;
		ve = eol;
		while (v < ve && (*v == ' ' || *v == '\t'))
			v++;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		f = &msg->fields[msg->nfields++];
		f->name = p;
		f->namelen = colon - p;
		f->value = v;
		f->valuelen = ve - v;
		f->drop = 0;
		for (i = 0; i < sizeof(hop_by_hop) / sizeof(hop_by_hop[0]);
		    i++)
			if (field_is(f, hop_by_hop[i]))
				f->drop = 1;
		if (field_is(f, "content-length")) {
			if (++ncl > 1)
				return fail(err, status, "more than one "
				    "Content-Length");
			if (f->valuelen == 0 || f->valuelen > 18)
				return fail(err, status, "Content-Length is "
				    "not a number of at most 18 digits");
			for (j = 0; j < f->valuelen; j++) {
				if (f->value[j] < '0' || f->value[j] > '9')
					return fail(err, status,
					    "Content-Length is not a number");
				cl = cl * 10 + (uint64_t)(f->value[j] - '0');
			}
		} else if (field_is(f, "transfer-encoding")) {
			if (++nte > 1)
				return fail(err, status, "more than one "
				    "Transfer-Encoding");
			if (!ieq(f->value, f->valuelen, "chunked"))
				return fail(err, status, "Transfer-Encoding "
				    "other than \"chunked\"");
		}
	}
	if (p >= end)
		return fail(err, status, "head without its empty line");
	if (ncl && nte)
		return fail(err, status, "both Content-Length and "
		    "Transfer-Encoding");
	/* HTTP/1.0 has no chunked framing: RFC 9112 6.1 calls such a
	 * message's framing faulty. */
	if (nte && msg->minor == 0)
		return fail(err, status, "Transfer-Encoding in an HTTP/1.0 "
		    "message");
	for (i = 0; i < msg->nfields; i++)
		if (field_is(&msg->fields[i], "connection") &&
		    connection_tokens(msg, &msg->fields[i], &close, err,
		    status) == -1)
			return -1;
	msg->keepalive = msg->minor == 1 && !close;
	if (nte) {
		msg->body = HTTP_BODY_CHUNKED;
	} else if (ncl) {
		msg->body = cl > 0 ? HTTP_BODY_LENGTH : HTTP_BODY_NONE;
		msg->length = cl;
	} else
		msg->body = HTTP_BODY_NONE;
	return 0;
}

static int
parse_version(const char *p, size_t len, struct http_msg *msg,
    struct http_error *err, unsigned int status)
{
	if (len != 8 || memcmp(p, "HTTP/", 5) != 0 || p[6] != '.' ||
	    p[5] < '0' || p[5] > '9' || p[7] < '0' || p[7] > '9')
		return fail(err, status, "malformed HTTP version");
	if (p[5] != '1' || (p[7] != '0' && p[7] != '1'))
		return fail(err, status == 400 ? 505 : status,
		    "HTTP version %.8s is not supported", p);
	msg->minor = (unsigned int)(p[7] - '0');
	return 0;
}

/* "http://authority[/path][?query]": the authority and the origin-form
 * target.  Only http: https goes through CONNECT, end to end. */
static int
parse_absolute(const char *t, size_t tl, struct http_msg *msg,
    struct http_error *err)
{
	const char	*auth, *end, *why;
	size_t		 i;

	if (tl < 7 || !ieq(t, 7, "http://")) {
		if (tl > 0 && t[0] == '/')
			return fail(err, 400, "not a proxy request: the "
			    "target must be an absolute http:// URI");
		if (tl >= 8 && ieq(t, 8, "https://"))
			return fail(err, 400, "https:// URIs go through "
			    "CONNECT");
		return fail(err, 400, "the target must be an absolute "
		    "http:// URI");
	}
	for (i = 0; i < tl; i++)
		if (t[i] == '#')
			return fail(err, 400, "fragment in the target");
	auth = t + 7;
	for (end = auth; end < t + tl && *end != '/' && *end != '?'; end++)
		if (*end == '@')
			return fail(err, 400, "userinfo in the URI");
	if (end == auth)
		return fail(err, 400, "empty host in the URI");
	if (host_authority(auth, end - auth, 80, &msg->host, &msg->port,
	    &why) == -1)
		return fail(err, 400, "URI host: %s", why);
	if (end == t + tl) {
		msg->target = "/";
		msg->targetlen = 1;
	} else if (*end == '?')
		return fail(err, 400, "query without a path in the URI");
	else {
		msg->target = end;
		msg->targetlen = t + tl - end;
	}
	return 0;
}

/* Host must name what the URI names (RFC 9112 3.2.2): otherwise the
 * policy checks one host and the upstream serves another. */
static int
check_host_field(struct http_msg *msg, struct http_error *err)
{
	const struct http_field	*f, *host = NULL;
	struct proxy_host	 h;
	const char		*why;
	uint16_t		 port;
	size_t			 i;

	for (i = 0; i < msg->nfields; i++) {
		f = &msg->fields[i];
		if (!field_is(f, "host"))
			continue;
		if (host != NULL)
			return fail(err, 400, "more than one Host");
		host = f;
	}
	if (host == NULL) {
		if (msg->minor == 1)
			return fail(err, 400, "HTTP/1.1 request without Host");
		return 0;
	}
	if (host_authority(host->value, host->valuelen, msg->port, &h, &port,
	    &why) == -1)
		return fail(err, 400, "Host: %s", why);
	if (h.kind != msg->host.kind || strcmp(h.name, msg->host.name) != 0 ||
	    port != msg->port)
		return fail(err, 400, "Host \"%.*s\" does not match the "
		    "target %s:%u", (int)(host->valuelen > 64 ? 64 :
		    host->valuelen), host->value, msg->host.name,
		    (unsigned)msg->port);
	return 0;
}

int
http_parse_request(const char *buf, size_t len, struct http_msg *msg,
    struct http_error *err)
{
	const char	*end = buf + len, *eol, *sp1, *sp2, *why;
	size_t		 i, ml;

	memset(msg, 0, sizeof(*msg));
	memset(err, 0, sizeof(*err));
	if (check_bytes(buf, len, err, 400) == -1)
		return -1;
	if (len < 4 || memcmp(end - 4, "\r\n\r\n", 4) != 0)
		return fail(err, 400, "head does not end in an empty line");
	eol = memchr(buf, '\r', len);
	if (eol - buf > HTTP_LINE_MAX)
		return fail(err, 414, "request line longer than %d bytes",
		    HTTP_LINE_MAX);
	if ((sp1 = memchr(buf, ' ', eol - buf)) == NULL ||
	    (sp2 = memchr(sp1 + 1, ' ', eol - sp1 - 1)) == NULL ||
	    memchr(sp2 + 1, ' ', eol - sp2 - 1) != NULL)
		return fail(err, 400, "malformed request line");
	ml = sp1 - buf;
	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strlen(methods[i].name) == ml &&
		    memcmp(methods[i].name, buf, ml) == 0)
			msg->method = methods[i].m;
	if (msg->method == 0) {
		for (i = 0; i < ml; i++)
			if (!tchar((unsigned char)buf[i]))
				return fail(err, 400, "malformed method");
		return fail(err, 501, "method %.*s is not supported",
		    (int)(ml > 16 ? 16 : ml), buf);
	}
	if (parse_version(sp2 + 1, eol - sp2 - 1, msg, err, 400) == -1)
		return -1;
	for (i = 1; sp1 + i < sp2; i++)
		if ((unsigned char)sp1[i] <= 0x20 ||
		    (unsigned char)sp1[i] >= 0x7f)
			return fail(err, 400, "invalid character in the "
			    "target");
	if (sp2 == sp1 + 1)
		return fail(err, 400, "empty target");
	if (msg->method == HTTP_CONNECT) {
		if (memchr(sp1 + 1, ':', sp2 - sp1 - 1) == NULL ||
		    sp2[-1] == ']')
			return fail(err, 400, "CONNECT target must be "
			    "host:port");
		if (memchr(sp1 + 1, '/', sp2 - sp1 - 1) != NULL ||
		    memchr(sp1 + 1, '@', sp2 - sp1 - 1) != NULL)
			return fail(err, 400, "CONNECT target must be "
			    "host:port");
		if (host_authority(sp1 + 1, sp2 - sp1 - 1, 0, &msg->host,
		    &msg->port, &why) == -1)
			return fail(err, 400, "CONNECT target: %s", why);
		msg->target = sp1 + 1;
		msg->targetlen = sp2 - sp1 - 1;
	} else if (parse_absolute(sp1 + 1, sp2 - sp1 - 1, msg, err) == -1)
		return -1;
	if (parse_fields(eol + 2, end, msg, err, 400) == -1)
		return -1;
	if (msg->minor == 0)
		msg->keepalive = 0;
	if (check_host_field(msg, err) == -1)
		return -1;
	if (msg->method == HTTP_CONNECT && msg->body != HTTP_BODY_NONE)
		return fail(err, 400, "CONNECT with a body");
	msg->headlen = len;
	return 0;
}

int
http_parse_response(const char *buf, size_t len, enum http_method req,
    struct http_msg *msg, struct http_error *err)
{
	const char	*end = buf + len, *eol;
	unsigned int	 st;
	size_t		 i;

	memset(msg, 0, sizeof(*msg));
	memset(err, 0, sizeof(*err));
	if (check_bytes(buf, len, err, 502) == -1)
		return -1;
	if (len < 4 || memcmp(end - 4, "\r\n\r\n", 4) != 0)
		return fail(err, 502, "head does not end in an empty line");
	eol = memchr(buf, '\r', len);
	if (eol - buf < 12 || buf[8] != ' ' || (eol - buf > 12 &&
	    buf[12] != ' '))
		return fail(err, 502, "malformed status line");
	if (parse_version(buf, 8, msg, err, 502) == -1)
		return -1;
	for (st = 0, i = 9; i < 12; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return fail(err, 502, "malformed status code");
		st = st * 10 + (unsigned int)(buf[i] - '0');
	}
	if (st < 100)
		return fail(err, 502, "status code %u", st);
	msg->status = st;
	msg->target = eol - buf > 13 ? buf + 13 : "";
	msg->targetlen = eol - buf > 13 ? (size_t)(eol - buf - 13) : 0;
	if (parse_fields(eol + 2, end, msg, err, 502) == -1)
		return -1;
	/* No body, whatever the fields say (RFC 9112 6.3). */
	if (req == HTTP_HEAD || st < 200 || st == 204 || st == 304)
		msg->body = HTTP_BODY_NONE;
	else if (msg->body == HTTP_BODY_NONE) {
		for (i = 0; i < msg->nfields; i++)
			if (field_is(&msg->fields[i], "content-length"))
				break;
		if (i == msg->nfields) {
			msg->body = HTTP_BODY_CLOSE;
			msg->keepalive = 0;
		}
	}
	msg->headlen = len;
	return 0;
}

struct out {
	char	*buf;
	size_t	 len, off;
	int	 full;
};

static void
put(struct out *o, const char *s, size_t n)
{
	if (o->full || n > o->len - o->off) {
		o->full = 1;
		return;
	}
	memcpy(o->buf + o->off, s, n);
	o->off += n;
}

static void
puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void
put_fields(struct out *o, const struct http_msg *msg)
{
	const struct http_field	*f;
	size_t			 i;

	for (i = 0; i < msg->nfields; i++) {
		f = &msg->fields[i];
		if (f->drop)
			continue;
		put(o, f->name, f->namelen);
		puts_(o, ": ");
		put(o, f->value, f->valuelen);
		puts_(o, "\r\n");
	}
}

size_t
http_build_request(const struct http_msg *msg, char *buf, size_t len)
{
	struct out	 o = { buf, len, 0, 0 };
	char		 port[16];
	int		 v6;

	puts_(&o, http_method_name(msg->method));
	puts_(&o, " ");
	put(&o, msg->target, msg->targetlen);
	/* Host comes from the authority that was checked, never from the
	 * client's field (which had to match it anyway). */
	puts_(&o, " HTTP/1.1\r\nHost: ");
	v6 = msg->host.kind == HOST_ADDR && msg->host.addr.af == AF_INET6;
	if (v6)
		puts_(&o, "[");
	puts_(&o, msg->host.name);
	if (v6)
		puts_(&o, "]");
	if (msg->port != 80) {
		snprintf(port, sizeof(port), ":%u", (unsigned)msg->port);
		puts_(&o, port);
	}
	puts_(&o, "\r\n");
	put_fields(&o, msg);
	puts_(&o, msg->minor == 0 ? "Via: 1.0 sbx-proxy\r\n" :
	    "Via: 1.1 sbx-proxy\r\n");
	puts_(&o, "\r\n");
	return o.full ? 0 : o.off;
}

size_t
http_build_response(const struct http_msg *msg, int close, char *buf,
    size_t len)
{
	struct out	 o = { buf, len, 0, 0 };
	char		 st[16];

	snprintf(st, sizeof(st), "HTTP/1.1 %03u ", msg->status);
	puts_(&o, st);
	put(&o, msg->target, msg->targetlen);
	puts_(&o, "\r\n");
	put_fields(&o, msg);
	puts_(&o, msg->minor == 0 ? "Via: 1.0 sbx-proxy\r\n" :
	    "Via: 1.1 sbx-proxy\r\n");
	if (close)
		puts_(&o, "Connection: close\r\n");
	puts_(&o, "\r\n");
	return o.full ? 0 : o.off;
}
