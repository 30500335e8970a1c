/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * frame.c: the one line a provider run may write (interop.md §P5.5),
 *
 *	AIWG-RESULT <nonce> <json>\n
 *
 * Threat: provider code that escapes the vm context (or node itself,
 * subverted) writes its own result -- a forged "ok", a second line after
 * ours, bytes before ours, or a flood.  The nonce was read by the driver
 * before any provider code ran and never reached the context, so only a
 * line carrying it is ours; anything before it, after it, or beside it
 * is a forgery and the whole output is rejected (never "the first good
 * line").  The nonce is compared in constant time so that a provider
 * able to submit many frames cannot learn it byte by byte from timing.
 * The JSON body is parsed by common/json.c under tight limits, since its
 * every byte is provider-chosen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common.h"
#include "spec.h"
#include "provider.h"

int
prov_frame_parse(const void *outv, size_t len, const char *nonce, size_t cap,
    struct json_value **bodyp, struct prov_error *err)
{
	const unsigned char	*out = outv;
	const unsigned char	*nl;
	struct json_limits	 lim;
	struct json_error	 jerr;
	struct json_value	*body;
	const struct json_value	*ok, *e;
	char			 text[PROV_ERRMSG_MAX / 2];
	size_t			 plen = sizeof(PROV_FRAME_PREFIX) - 1, i;
	int			 out_cap;

	*bodyp = NULL;
	if (nonce == NULL || strlen(nonce) != PROV_NONCE_HEX)
		return prov_fail(err, PROV_REJECTED, "run nonce is malformed");
	for (i = 0; i < PROV_NONCE_HEX; i++)
		if (!((nonce[i] >= '0' && nonce[i] <= '9') ||
		    (nonce[i] >= 'a' && nonce[i] <= 'f')))
			return prov_fail(err, PROV_REJECTED,
			    "run nonce is malformed");
	if (len > cap) {
		prov_fail(err, PROV_REJECTED, "provider output exceeds its "
		    "output cap (%zu > %zu bytes)", len, cap);
		if (err != NULL)
			err->limit = SBX_LIMIT_OUTPUT;
		return -1;
	}
	if (len < PROV_FRAME_OVERHEAD - 1 ||
	    memcmp(out, PROV_FRAME_PREFIX, plen) != 0 ||
	    sodium_memcmp(out + plen, nonce, PROV_NONCE_HEX) != 0 ||
	    out[plen + PROV_NONCE_HEX] != ' ')
		return prov_fail(err, PROV_REJECTED, "provider wrote outside "
		    "its result frame (no \"%s<nonce> \" prefix)",
		    PROV_FRAME_PREFIX);
	if (out[len - 1] != '\n')
		return prov_fail(err, PROV_REJECTED, "provider wrote outside "
		    "its result frame (no final newline)");
	nl = memchr(out, '\n', len);
	if (nl != out + len - 1)
		return prov_fail(err, PROV_REJECTED, "provider wrote outside "
		    "its result frame (%zu bytes after the first line)",
		    (size_t)(out + len - 1 - nl));

	memset(&lim, 0, sizeof(lim));
	lim.max_bytes = cap;
	lim.max_depth = PROV_FRAME_MAX_DEPTH;
	lim.max_nodes = PROV_FRAME_MAX_NODES;
	if (json_parse(out + PROV_FRAME_OVERHEAD - 1,
	    len - PROV_FRAME_OVERHEAD, &lim, &body, &jerr) == -1)
		return prov_fail(err, PROV_REJECTED, "provider returned an "
		    "unreadable message: %s", jerr.msg);
	if (body->type != JSON_OBJECT) {
		json_free(body);
		return prov_fail(err, PROV_REJECTED,
		    "provider message is not an object");
	}
	ok = json_get(body, "ok");
	if (ok == NULL || ok->type != JSON_TRUE) {
		/* Provider-chosen text: escaped and cut short. */
		if ((e = json_get(body, "error")) != NULL &&
		    e->type == JSON_STRING)
			prov_json_quote(text, sizeof(text), &e->u.string,
			    PROV_EXCERPT_MAX);
		else
			strlcpy(text, "unknown", sizeof(text));
		/* The driver's refusal of a result past the output cap, in
		 * the reference's words (driver.mjs, frameOf; the frame
		 * itself must stay the reference's).  A provider that throws
		 * the same words only mislabels its own failure, which
		 * stays a rejection either way. */
		out_cap = e != NULL && e->type == JSON_STRING &&
		    json_key_is(&e->u.string, PROV_DRIVER_CAP_ERROR);
		json_free(body);
		prov_fail(err, PROV_REJECTED, "provider rejected: %s", text);
		if (err != NULL && out_cap)
			err->limit = SBX_LIMIT_OUTPUT;
		return -1;
	}
	*bodyp = body;
	return 0;
}
