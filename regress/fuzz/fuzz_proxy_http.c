/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_proxy_http: hostile bytes into the proxy's request and response
 * head parsers and the chunked decoder.  Byte 0 picks the target (bit
 * 0-1: request, response, chunked body) and, for chunks, how the rest is
 * split.  An accepted head must be well formed in the ways the server
 * relies on (framing fields consistent, the rebuilt head parses again,
 * a refusal carries a status and a printable reason); anything else
 * aborts.
 *
 *	make build/fuzz/fuzz_proxy_http
 *	build/fuzz/fuzz_proxy_http regress/fuzz/corpus/fuzz_proxy_http
 */
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "proxy/proxy.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct http_msg	 msg, again;
static char		 out[HTTP_HEAD_MAX + 1024];

static void
check_error(const struct http_error *err)
{
	size_t	 i, n = strnlen(err->why, sizeof(err->why));

	if (err->status < 400 || err->status > 505 || n == 0 ||
	    n == sizeof(err->why))
		abort();
	for (i = 0; i < n; i++)
		if (err->why[i] < 0x20 && err->why[i] != '\t')
			abort();
}

static void
request(const char *buf, size_t len)
{
	struct http_error	 err;
	ssize_t			 n;
	size_t			 olen;

	if ((n = http_head_len(buf, len, &err)) == -1) {
		check_error(&err);
		return;
	}
	if (n == 0)
		return;
	if ((size_t)n > len)
		abort();
	if (http_parse_request(buf, n, &msg, &err) == -1) {
		check_error(&err);
		return;
	}
	if (msg.body == HTTP_BODY_LENGTH && msg.length == 0)
		abort();
	if (msg.port == 0 || msg.host.name[0] == '\0')
		abort();
	if (msg.method == HTTP_CONNECT)
		return;
	/* What goes upstream must parse as the same request (origin-form
	 * aside, which the parser refuses: check the head's framing only). */
	if ((olen = http_build_request(&msg, out, sizeof(out))) == 0)
		return;
	if (memmem(out, olen, "\r\n\r\n", 4) != out + olen - 4)
		abort();
}

static void
response(const char *buf, size_t len)
{
	struct http_error	 err;
	ssize_t			 n;
	size_t			 olen;

	if ((n = http_head_len(buf, len, &err)) <= 0)
		return;
	if (http_parse_response(buf, n, HTTP_GET, &msg, &err) == -1) {
		check_error(&err);
		return;
	}
	/* Via and Connection are added: a full head may not fit again. */
	if (msg.nfields > HTTP_HDRS_MAX - 2 ||
	    (olen = http_build_response(&msg, 1, out, sizeof(out))) == 0)
		return;
	if (http_parse_response(out, olen, HTTP_GET, &again, &err) == -1 ||
	    again.body != msg.body || again.status != msg.status)
		abort();
}

static void
chunks(const uint8_t *buf, size_t len, unsigned int split)
{
	struct chunk_dec	 c;
	const char		*why;
	size_t			 off = 0, step = split + 1;
	ssize_t			 n;
	int			 done = 0;

	chunk_init(&c);
	while (off < len && !done) {
		n = chunk_feed(&c, buf + off, len - off < step ? len - off :
		    step, &done, &why);
		if (n == -1)
			return;
		if (n == 0 && !done)
			abort();
		off += n;
	}
	if (off > len)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] & 3) {
	case 0:
		request((const char *)data + 1, size - 1);
		break;
	case 1:
		response((const char *)data + 1, size - 1);
		break;
	default:
		chunks(data + 1, size - 1, data[0] >> 2);
		break;
	}
	return 0;
}
