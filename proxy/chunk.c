/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * chunk.c: a chunked body (RFC 9112 7.1) checked byte by byte as it
 * passes, so the proxy knows where the message ends without buffering
 * it and refuses the forms parsers disagree on: a size that is not
 * plain hex or overflows, whitespace or bare CR/LF in a size line,
 * chunk data longer than its size, obs-fold or NUL in the trailer.
 * The bytes are forwarded as they came; only their framing is judged.
 */
#include <sys/types.h>

#include <string.h>

#include "hex.h"
#include "proxy.h"

enum {
	C_SIZE = 0,		/* hex digits of a chunk size */
	C_EXT,			/* ";ext" after the size */
	C_SIZE_LF,		/* the size line's LF */
	C_DATA,
	C_DATA_CR,		/* CRLF after a chunk's data */
	C_DATA_LF,
	C_TRAILER_START,	/* a trailer line, or the final CRLF */
	C_TRAILER,
	C_TRAILER_LF,
	C_END_LF,
	C_DONE
};

#define CHUNK_DIGITS_MAX	15	/* 2^60 - 1: no overflow in remain */

void
chunk_init(struct chunk_dec *c)
{
	memset(c, 0, sizeof(*c));
	c->state = C_SIZE;
}

static int
ctl(int c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

ssize_t
chunk_feed(struct chunk_dec *c, const uint8_t *p, size_t len, int *done,
    const char **why)
{
	size_t	 i = 0, n;
	int	 d, ch;

	*done = 0;
	while (i < len) {
		ch = p[i];
		switch (c->state) {
		case C_SIZE:
			if (++c->linelen > CHUNK_LINE_MAX)
				goto toolong;
			if ((d = hexval(ch)) != -1) {
				if (++c->digits > CHUNK_DIGITS_MAX) {
					*why = "chunk size too large";
					return -1;
				}
				c->remain = c->remain * 16 + (unsigned int)d;
			} else if (c->digits == 0) {
				*why = "chunk size is not hex";
				return -1;
			} else if (ch == ';')
				c->state = C_EXT;
			else if (ch == '\r')
				c->state = C_SIZE_LF;
			else {
				*why = "junk after a chunk size";
				return -1;
			}
			i++;
			break;
		case C_EXT:
			if (++c->linelen > CHUNK_LINE_MAX)
				goto toolong;
			if (ch == '\r')
				c->state = C_SIZE_LF;
			else if (ctl(ch)) {
				*why = "control character in a chunk "
				    "extension";
				return -1;
			}
			i++;
			break;
		case C_SIZE_LF:
			if (ch != '\n') {
				*why = "bare CR in a chunk size line";
				return -1;
			}
			c->linelen = 0;
			c->digits = 0;
			c->state = c->remain == 0 ? C_TRAILER_START : C_DATA;
			i++;
			break;
		case C_DATA:
			n = len - i;
			if (n > c->remain)
				n = (size_t)c->remain;
			c->remain -= n;
			i += n;
			if (c->remain == 0)
				c->state = C_DATA_CR;
			break;
		case C_DATA_CR:
			if (ch != '\r') {
				*why = "chunk data longer than its size";
				return -1;
			}
			c->state = C_DATA_LF;
			i++;
			break;
		case C_DATA_LF:
			if (ch != '\n') {
				*why = "bare CR after chunk data";
				return -1;
			}
			c->state = C_SIZE;
			i++;
			break;
		case C_TRAILER_START:
			if (ch == '\r') {
				c->state = C_END_LF;
				i++;
				break;
			}
			if (ch == ' ' || ch == '\t') {
				*why = "obs-fold in the trailer";
				return -1;
			}
			c->linelen = 0;
			c->state = C_TRAILER;
			/* FALLTHROUGH */
		case C_TRAILER:
			if (++c->linelen > CHUNK_LINE_MAX ||
			    ++c->trailer > CHUNK_TRAILER_MAX)
				goto toolong;
			if (ch == '\r')
				c->state = C_TRAILER_LF;
			else if (ctl(ch)) {
				*why = "control character in the trailer";
				return -1;
			}
			i++;
			break;
		case C_TRAILER_LF:
		case C_END_LF:
			if (ch != '\n') {
				*why = "bare CR in the trailer";
				return -1;
			}
			i++;
			if (c->state == C_END_LF) {
				c->state = C_DONE;
				*done = 1;
				return (ssize_t)i;
			}
			c->state = C_TRAILER_START;
			break;
		default:
			*why = "bytes after the end of a chunked body";
			return -1;
		}
	}
	return (ssize_t)i;
 toolong:
	*why = "chunk size line or trailer too long";
	return -1;
}
