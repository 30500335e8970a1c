/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_proxy_http: the proxy's HTTP/1.1 head parser and chunked decoder:
 * what a forward proxy must accept (absolute-URI requests, CONNECT,
 * bodies by length or chunks, keep-alive), and every smuggling and
 * oversize form it must refuse, each with its status and reason.
 */
#include <sys/socket.h>

#include <atf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "proxy/proxy.h"

static struct http_msg	 msg;

static void
good(const char *req)
{
	struct http_error	 err;
	ssize_t			 n;

	n = http_head_len(req, strlen(req), &err);
	ATF_REQUIRE_MSG(n == (ssize_t)strlen(req), "head length %zd of %zu",
	    n, strlen(req));
	ATF_REQUIRE_MSG(http_parse_request(req, strlen(req), &msg, &err) == 0,
	    "%s", err.why);
}

static void
bad(const char *req, unsigned int status, const char *want)
{
	struct http_error	 err;
	ssize_t			 n;

	n = http_head_len(req, strlen(req), &err);
	if (n == -1) {
		ATF_CHECK_MSG(err.status == status && strstr(err.why, want),
		    "%u %s, want %u %s", err.status, err.why, status, want);
		return;
	}
	ATF_REQUIRE_MSG(n > 0, "head not complete: %s", req);
	ATF_CHECK_MSG(http_parse_request(req, n, &msg, &err) == -1,
	    "accepted: %s", req);
	ATF_CHECK_MSG(err.status == status && strstr(err.why, want) != NULL,
	    "%u \"%s\", want %u \"%s\"", err.status, err.why, status, want);
}

#define H(s)	"GET http://example.org/ HTTP/1.1\r\nHost: example.org\r\n" s

ATF_TC_WITHOUT_HEAD(requests);
ATF_TC_BODY(requests, tc)
{
	char	 out[HTTP_HEAD_MAX + 512];
	size_t	 n;

	good("GET http://Example.ORG/a?b=c HTTP/1.1\r\nHost: example.org\r\n"
	    "Accept: */*\r\nConnection: keep-alive\r\n"
	    "Proxy-Connection: keep-alive\r\n\r\n");
	ATF_CHECK(msg.method == HTTP_GET);
	ATF_CHECK_STREQ(msg.host.name, "example.org");
	ATF_CHECK_EQ(msg.port, 80);
	ATF_CHECK(msg.targetlen == 6 && memcmp(msg.target, "/a?b=c", 6) == 0);
	ATF_CHECK(msg.keepalive);
	ATF_CHECK(msg.body == HTTP_BODY_NONE);
	n = http_build_request(&msg, out, sizeof(out));
	out[n] = '\0';
	ATF_CHECK_STREQ(out, "GET /a?b=c HTTP/1.1\r\nHost: example.org\r\n"
	    "Accept: */*\r\nVia: 1.1 sbx-proxy\r\n\r\n");

	good("POST http://example.org:8080 HTTP/1.1\r\n"
	    "Host: EXAMPLE.org.:8080\r\nContent-Length: 5\r\n"
	    "Connection: close, X-Hop\r\nX-Hop: 1\r\nTE: trailers\r\n\r\n");
	ATF_CHECK(msg.body == HTTP_BODY_LENGTH && msg.length == 5);
	ATF_CHECK(!msg.keepalive);
	n = http_build_request(&msg, out, sizeof(out));
	out[n] = '\0';
	ATF_CHECK_STREQ(out, "POST / HTTP/1.1\r\nHost: example.org:8080\r\n"
	    "Content-Length: 5\r\nVia: 1.1 sbx-proxy\r\n\r\n");

	good("PUT http://[::1]:81/x HTTP/1.1\r\nHost: [::1]:81\r\n"
	    "Transfer-Encoding: Chunked\r\n\r\n");
	ATF_CHECK(msg.body == HTTP_BODY_CHUNKED);
	ATF_CHECK(msg.host.kind == HOST_ADDR);
	n = http_build_request(&msg, out, sizeof(out));
	out[n] = '\0';
	ATF_CHECK(strstr(out, "Host: [::1]:81\r\n") != NULL);

	good("CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n"
	    "\r\n");
	ATF_CHECK(msg.method == HTTP_CONNECT && msg.port == 443);
	good("CONNECT example.org:443 HTTP/1.1\r\nHost: example.org\r\n\r\n");
	good("CONNECT [2001:db8::1]:8443 HTTP/1.1\r\n"
	    "Host: [2001:db8::1]:8443\r\n\r\n");
	good("HEAD http://example.org/ HTTP/1.0\r\n\r\n");
	ATF_CHECK(!msg.keepalive && msg.minor == 0);
	good("OPTIONS http://example.org/ HTTP/1.1\r\nHost: example.org\r\n"
	    "\r\n");
	good("DELETE http://example.org/ HTTP/1.1\r\nHost: example.org\r\n"
	    "Content-Length: 0\r\n\r\n");
	ATF_CHECK(msg.body == HTTP_BODY_NONE);
	good("PATCH http://example.org/ HTTP/1.1\r\nHost:example.org  \r\n"
	    "X-Empty:\r\n\r\n");
}

ATF_TC_WITHOUT_HEAD(smuggling);
ATF_TC_BODY(smuggling, tc)
{
	bad(H("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"), 400,
	    "both Content-Length and Transfer-Encoding");
	bad(H("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"), 400,
	    "both");
	bad(H("Content-Length: 5\r\nContent-Length: 5\r\n\r\n"), 400,
	    "more than one Content-Length");
	bad(H("Content-Length: 5\r\nContent-Length: 6\r\n\r\n"), 400,
	    "more than one Content-Length");
	bad(H("Content-Length: 5, 5\r\n\r\n"), 400, "not a number");
	bad(H("Content-Length: +5\r\n\r\n"), 400, "not a number");
	bad(H("Content-Length: 0x5\r\n\r\n"), 400, "not a number");
	bad(H("Content-Length: \r\n\r\n"), 400, "not a number");
	bad(H("Content-Length: 1234567890123456789\r\n\r\n"), 400,
	    "at most 18 digits");
	bad(H("Transfer-Encoding: gzip, chunked\r\n\r\n"), 400,
	    "other than \"chunked\"");
	bad(H("Transfer-Encoding: chunked, chunked\r\n\r\n"), 400,
	    "other than");
	bad(H("Transfer-Encoding: identity\r\n\r\n"), 400, "other than");
	bad(H("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"
	    "\r\n"), 400, "more than one Transfer-Encoding");
	bad(H("Transfer-Encoding : chunked\r\n\r\n"), 400,
	    "whitespace before ':'");
	bad(H("Content-Length\t: 5\r\n\r\n"), 400, "whitespace before ':'");
	bad(H("X-A: 1\r\n folded\r\n\r\n"), 400, "obs-fold");
	bad(H("X-A: 1\r\n\tfolded\r\n\r\n"), 400, "obs-fold");
	bad(H("X-A: 1\nX-B: 2\r\n\r\n"), 400, "bare LF");
	bad(H("X-A: 1\rX-B: 2\r\n\r\n"), 400, "bare CR");
	bad("GET http://example.org/ HTTP/1.1\nHost: example.org\n\n", 400,
	    "bare LF");
	bad(H("X-A: \x01\r\n\r\n"), 400, "control character");
	bad(H("Connection: content-length\r\nContent-Length: 3\r\n\r\n"),
	    400, "names the framing header");
	bad(H("Connection: Transfer-Encoding\r\n\r\n"), 400, "framing");
	bad(H(": x\r\n\r\n"), 400, "empty header name");
	bad("POST http://example.org/ HTTP/1.0\r\nTransfer-Encoding: chunked"
	    "\r\n\r\n", 400, "Transfer-Encoding in an HTTP/1.0 message");
	bad(H("X(A): x\r\n\r\n"), 400, "invalid character in a header name");
	bad(H("NoColon\r\n\r\n"), 400, "without ':'");
	bad("CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n"
	    "Content-Length: 4\r\n\r\n", 400, "CONNECT with a body");
}

ATF_TC_WITHOUT_HEAD(nul_byte);
ATF_TC_BODY(nul_byte, tc)
{
	static const char	 req[] = "GET http://example.org/ HTTP/1.1\r\n"
	    "Host: example.org\r\nX-A: a\0b\r\n\r\n";
	struct http_error	 err;

	ATF_CHECK(http_parse_request(req, sizeof(req) - 1, &msg, &err) == -1);
	ATF_CHECK(err.status == 400 && strstr(err.why, "NUL") != NULL);
}

ATF_TC_WITHOUT_HEAD(targets);
ATF_TC_BODY(targets, tc)
{
	bad("GET / HTTP/1.1\r\nHost: example.org\r\n\r\n", 400,
	    "not a proxy request");
	bad("GET https://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n",
	    400, "through CONNECT");
	bad("GET ftp://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n",
	    400, "absolute http:// URI");
	bad("GET http://user@example.org/ HTTP/1.1\r\nHost: example.org\r\n"
	    "\r\n", 400, "userinfo");
	bad("GET http://example.org/#f HTTP/1.1\r\nHost: example.org\r\n\r\n",
	    400, "fragment");
	bad("GET http:/// HTTP/1.1\r\nHost: example.org\r\n\r\n", 400,
	    "empty host");
	bad("GET http://[fe80::1%25eth0]/ HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	    "zone ids are refused");
	bad("GET http://example.org/ HTTP/1.1\r\n\r\n", 400, "without Host");
	bad(H("Host: example.org\r\n\r\n"), 400, "more than one Host");
	bad("GET http://example.org/ HTTP/1.1\r\nHost: evil.example\r\n\r\n",
	    400, "does not match the target example.org:80");
	bad("GET http://example.org/ HTTP/1.1\r\nHost: example.org:81\r\n\r\n",
	    400, "does not match");
	bad("GET http://127.1/ HTTP/1.1\r\nHost: 127.0.0.2\r\n\r\n", 400,
	    "does not match");
	bad("CONNECT example.org HTTP/1.1\r\nHost: example.org\r\n\r\n", 400,
	    "host:port");
	bad("CONNECT [::1] HTTP/1.1\r\nHost: x\r\n\r\n", 400, "host:port");
	bad("CONNECT http://example.org:443/ HTTP/1.1\r\nHost: x\r\n\r\n",
	    400, "host:port");
	bad("CONNECT example.org:0 HTTP/1.1\r\nHost: x\r\n\r\n", 400, "port");
	bad("CONNECT a:b:443 HTTP/1.1\r\nHost: x\r\n\r\n", 400, "':'");
	bad("TRACE http://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n",
	    501, "TRACE is not supported");
	bad("get http://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n",
	    501, "not supported");
	bad("GET http://example.org/ HTTP/2.0\r\nHost: example.org\r\n\r\n",
	    505, "not supported");
	bad("GET http://example.org/ HTTP/1.1x\r\nHost: example.org\r\n\r\n",
	    400, "malformed HTTP version");
	bad("GET  http://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n",
	    400, "malformed request line");
	bad("GET http://example.org/ HTTP/1.1 \r\nHost: example.org\r\n\r\n",
	    400, "malformed request line");
	bad("GET http://ex\x7f.org/ HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	    "control character");
}

ATF_TC_WITHOUT_HEAD(caps);
ATF_TC_BODY(caps, tc)
{
	struct http_error	 err;
	char			*buf;
	size_t			 i, off;

	buf = malloc(HTTP_HEAD_MAX * 2);
	ATF_REQUIRE(buf != NULL);
	/* A request line with no end in sight. */
	memset(buf, 'A', HTTP_LINE_MAX + 1);
	ATF_CHECK(http_head_len(buf, HTTP_LINE_MAX + 1, &err) == -1 &&
	    err.status == 414);
	ATF_CHECK(http_head_len(buf, HTTP_LINE_MAX, &err) == 0);
	/* Too many fields. */
	off = snprintf(buf, HTTP_HEAD_MAX, "GET http://a.example/ HTTP/1.1\r\n"
	    "Host: a.example\r\n");
	for (i = 0; i < HTTP_HDRS_MAX; i++)
		off += snprintf(buf + off, HTTP_HEAD_MAX - off, "X-%zu: y\r\n",
		    i);
	off += snprintf(buf + off, HTTP_HEAD_MAX - off, "\r\n");
	ATF_REQUIRE(http_head_len(buf, off, &err) == (ssize_t)off);
	ATF_CHECK(http_parse_request(buf, off, &msg, &err) == -1);
	ATF_CHECK(err.status == 431 && strstr(err.why, "header fields"));
	/* One line too long. */
	off = snprintf(buf, HTTP_HEAD_MAX, "GET http://a.example/ HTTP/1.1\r\n"
	    "Host: a.example\r\nX-Big: ");
	memset(buf + off, 'b', HTTP_LINE_MAX);
	off += HTTP_LINE_MAX;
	off += snprintf(buf + off, HTTP_HEAD_MAX, "\r\n\r\n");
	ATF_CHECK(http_parse_request(buf, off, &msg, &err) == -1);
	ATF_CHECK(err.status == 431 && strstr(err.why, "header line longer"));
	/* A head with no end. */
	off = snprintf(buf, HTTP_HEAD_MAX * 2, "GET http://a.example/ "
	    "HTTP/1.1\r\n");
	while (off < HTTP_HEAD_MAX + 10)
		off += snprintf(buf + off, HTTP_HEAD_MAX * 2 - off,
		    "X-A: 12345678901234567890\r\n");
	ATF_CHECK(http_head_len(buf, off, &err) == -1 && err.status == 431);
	/* A long request line within the cap is fine. */
	off = snprintf(buf, HTTP_HEAD_MAX, "GET http://a.example/");
	memset(buf + off, 'p', 4000);
	off += 4000;
	off += snprintf(buf + off, HTTP_HEAD_MAX - off, " HTTP/1.1\r\n"
	    "Host: a.example\r\n\r\n");
	ATF_CHECK(http_parse_request(buf, off, &msg, &err) == 0);
	free(buf);
}

static void
rgood(const char *resp, enum http_method m, enum http_body body,
    int keepalive)
{
	struct http_error	 err;

	ATF_REQUIRE_MSG(http_parse_response(resp, strlen(resp), m, &msg,
	    &err) == 0, "%s", err.why);
	ATF_CHECK_EQ(msg.body, body);
	ATF_CHECK_EQ(msg.keepalive, keepalive);
}

ATF_TC_WITHOUT_HEAD(responses);
ATF_TC_BODY(responses, tc)
{
	struct http_error	 err;
	char			 out[1024];
	size_t			 n;

	rgood("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nKeep-Alive: x\r\n\r\n",
	    HTTP_GET, HTTP_BODY_LENGTH, 1);
	ATF_CHECK(msg.status == 200 && msg.length == 3);
	n = http_build_response(&msg, 0, out, sizeof(out));
	out[n] = '\0';
	ATF_CHECK_STREQ(out, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n"
	    "Via: 1.1 sbx-proxy\r\n\r\n");
	rgood("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", HTTP_HEAD,
	    HTTP_BODY_NONE, 1);
	rgood("HTTP/1.1 204 No Content\r\n\r\n", HTTP_GET, HTTP_BODY_NONE, 1);
	rgood("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n",
	    HTTP_GET, HTTP_BODY_NONE, 1);
	rgood("HTTP/1.1 100 Continue\r\n\r\n", HTTP_POST, HTTP_BODY_NONE, 1);
	rgood("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
	    HTTP_GET, HTTP_BODY_CHUNKED, 1);
	rgood("HTTP/1.0 200 OK\r\nServer: x\r\n\r\n", HTTP_GET,
	    HTTP_BODY_CLOSE, 0);
	n = http_build_response(&msg, 1, out, sizeof(out));
	out[n] = '\0';
	ATF_CHECK_STREQ(out, "HTTP/1.1 200 OK\r\nServer: x\r\n"
	    "Via: 1.0 sbx-proxy\r\nConnection: close\r\n\r\n");
	rgood("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", HTTP_GET,
	    HTTP_BODY_NONE, 1);
#define RBAD(s, w) do { \
	ATF_CHECK(http_parse_response(s, sizeof(s) - 1, HTTP_GET, &msg, \
	    &err) == -1); \
	ATF_CHECK_MSG(err.status == 502 && strstr(err.why, w) != NULL, \
	    "%u %s", err.status, err.why); } while (0)
	RBAD("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n"
	    "\r\n", "more than one Content-Length");
	RBAD("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", "both");
	RBAD("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
	    "other than");
	RBAD("HTTP/1.1 2000 OK\r\n\r\n", "malformed status line");
	RBAD("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
	    "HTTP/1.0");
	RBAD("HTTP/1.1 20x OK\r\n\r\n", "malformed status code");
	RBAD("HTTP/2.0 200 OK\r\n\r\n", "not supported");
	RBAD("ICY 200 OK\r\n\r\n", "malformed");
	RBAD("HTTP/1.1 200 OK\nX: y\r\n\r\n", "bare LF");
#undef RBAD
}

/* Feed a chunked body in pieces of every size; the body ends where
 * expected, or is refused with want. */
static void
chunked(const char *body, size_t len, ssize_t end, const char *want)
{
	struct chunk_dec	 c;
	const char		*why = NULL;
	size_t			 step, off;
	ssize_t			 n;
	int			 done;

	for (step = 1; step <= len; step++) {
		chunk_init(&c);
		done = 0;
		for (off = 0; off < len && !done; off += n) {
			n = chunk_feed(&c, (const uint8_t *)body + off,
			    len - off < step ? len - off : step, &done, &why);
			if (n == -1)
				break;
		}
		if (want != NULL) {
			ATF_CHECK_MSG(n == -1 && strstr(why, want) != NULL,
			    "step %zu: %s, want %s", step, n == -1 ? why :
			    "accepted", want);
			continue;
		}
		ATF_CHECK_MSG(n != -1, "step %zu: %s", step, why);
		ATF_CHECK_MSG(done && (ssize_t)off == end,
		    "step %zu: done %d at %zu, want %zd", step, done, off,
		    end);
	}
}
#define CGOOD(s, end)	chunked(s, sizeof(s) - 1, end, NULL)
#define CBAD(s, w)	chunked(s, sizeof(s) - 1, 0, w)

ATF_TC_WITHOUT_HEAD(chunks);
ATF_TC_BODY(chunks, tc)
{
	struct chunk_dec	 c;
	const char		*why;
	int			 done;

	CGOOD("0\r\n\r\n", 5);
	CGOOD("5\r\nhello\r\n0\r\n\r\n", 15);
	CGOOD("5\r\nhello\r\n0\r\n\r\nGET next", 15);
	CGOOD("A;name=value\r\n0123456789\r\n0\r\n\r\n", 31);
	CGOOD("1\r\nx\r\n0\r\nX-Trailer: 1\r\nY: 2\r\n\r\n", 31);
	CGOOD("000005\r\nhello\r\n00\r\n\r\n", 21);
	CBAD("\r\n", "not hex");
	CBAD("-5\r\nhello\r\n0\r\n\r\n", "not hex");
	CBAD("5 \r\nhello\r\n0\r\n\r\n", "junk after a chunk size");
	CBAD("5\nhello\r\n0\r\n\r\n", "junk after");
	CBAD("5\r\rhello\r\n0\r\n\r\n", "bare CR");
	CBAD("5\r\nhello!\r\n0\r\n\r\n", "longer than its size");
	CBAD("5\r\nhello\n0\r\n\r\n", "longer than its size");
	CBAD("1000000000000000\r\n", "too large");
	CBAD("5;a\x01\r\nhello\r\n0\r\n\r\n", "control character");
	CBAD("0\r\n X: folded\r\n\r\n", "obs-fold");
	CBAD("0\r\nX: a\0b\r\n\r\n", "control character");
	CBAD("0\r\nX: 1\n\r\n", "control character");
	CBAD("0\r\n\r\r", "bare CR");
	/* The size line is bounded. */
	{
		static char	 line[CHUNK_LINE_MAX + 10];

		memset(line, '0', sizeof(line));
		chunked(line, sizeof(line), 0, "too large");
		line[0] = '1';
		line[1] = ';';
		memset(line + 2, 'e', sizeof(line) - 2);
		chunked(line, sizeof(line), 0, "too long");
	}
	/* Nothing is taken after the end. */
	chunk_init(&c);
	ATF_CHECK(chunk_feed(&c, (const uint8_t *)"0\r\n\r\n", 5, &done,
	    &why) == 5 && done);
	ATF_CHECK(chunk_feed(&c, (const uint8_t *)"x", 1, &done, &why) == -1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, requests);
	ATF_TP_ADD_TC(tp, smuggling);
	ATF_TP_ADD_TC(tp, nul_byte);
	ATF_TP_ADD_TC(tp, targets);
	ATF_TP_ADD_TC(tp, caps);
	ATF_TP_ADD_TC(tp, responses);
	ATF_TP_ADD_TC(tp, chunks);
	return atf_no_error();
}
