/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * digest.c: "sha256:<hex>" digests (interop.md §P2, artifactDigest) of
 * bytes and of canonical JSON.  SHA-256 is sha256.c's; the format
 * (prefix, lowercase hex) is what the reference writes and what allowlists
 * and binding pins compare as strings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "sha256.h"

static void
hex_of(const unsigned char md[SHA256_LEN], char hex[DIGEST_HEX_LEN + 1])
{
	static const char	 x[] = "0123456789abcdef";
	int			 i;

	for (i = 0; i < SHA256_LEN; i++) {
		hex[2 * i] = x[md[i] >> 4];
		hex[2 * i + 1] = x[md[i] & 0xf];
	}
	hex[DIGEST_HEX_LEN] = '\0';
}

static void
digest_str(const unsigned char md[SHA256_LEN], char out[DIGEST_STR_LEN + 1])
{
	memcpy(out, DIGEST_PREFIX, sizeof(DIGEST_PREFIX) - 1);
	hex_of(md, out + sizeof(DIGEST_PREFIX) - 1);
}

void
digest_sha256_hex(const void *buf, size_t len, char hex[DIGEST_HEX_LEN + 1])
{
	struct sha256_ctx	 ctx;
	unsigned char		 md[SHA256_LEN];

	sha256_init(&ctx, 0);
	sha256_update(&ctx, buf, len);
	sha256_final(&ctx, md);
	hex_of(md, hex);
}

void
digest_bytes(const void *buf, size_t len, char out[DIGEST_STR_LEN + 1])
{
	struct sha256_ctx	 ctx;
	unsigned char		 md[SHA256_LEN];

	sha256_init(&ctx, 0);
	sha256_update(&ctx, buf, len);
	sha256_final(&ctx, md);
	digest_str(md, out);
}

static void
digest_sink(void *arg, const void *buf, size_t len)
{
	sha256_update(arg, buf, len);
}

/* -1 with errno from json_canonical (EDOM, EINVAL, ELOOP, EOVERFLOW). */
int
digest_json(const struct json_value *v, char out[DIGEST_STR_LEN + 1])
{
	struct sha256_ctx	 ctx;
	unsigned char		 md[SHA256_LEN];

	sha256_init(&ctx, 0);
	if (json_canonical_stream(v, digest_sink, &ctx) == -1) {
		explicit_bzero(&ctx, sizeof(ctx));
		return -1;
	}
	sha256_final(&ctx, md);
	digest_str(md, out);
	return 0;
}

struct text_digest {
	struct json_writer	 w;
	int			 n;
};

static int
text_element(void *arg, const struct json_value *v, size_t i)
{
	struct text_digest	*td = arg;

	if (i == SIZE_MAX)			/* not an array */
		return json_writer_value(&td->w, v, 0);
	if (json_writer_raw(&td->w, i == 0 ? "[" : ",", 1) == -1)
		return -1;
	td->n++;
	return json_writer_value(&td->w, v, 1);
}

/*
 * The digest of a JSON text's canonical form.  A records array is
 * digested element by element as it is parsed (json_parse_elements):
 * the same digest as digest_json of the whole tree, at a fraction of
 * the memory and time.
 */
int
digest_json_text(const void *buf, size_t len, const struct json_limits *lim,
    char out[DIGEST_STR_LEN + 1], struct json_error *err)
{
	struct sha256_ctx	 ctx;
	struct text_digest	 td;
	unsigned char		 md[SHA256_LEN];
	int			 array, r;

	sha256_init(&ctx, 0);
	json_writer_open(&td.w, digest_sink, &ctx);
	td.n = 0;
	r = json_parse_elements(buf, len, lim, text_element, &td, &array,
	    err);
	if (r == 0 && array)
		r = json_writer_raw(&td.w, td.n == 0 ? "[]" : "]",
		    td.n == 0 ? 2 : 1);
	json_writer_close(&td.w, r == -1);
	if (r == -1) {
		/* A parsed tree is canonicalisable short of EOVERFLOW. */
		if (err != NULL && err->reason[0] == '\0')
			snprintf(err->msg, sizeof(err->msg),
			    "canonical JSON: %s", strerror(errno));
		explicit_bzero(&ctx, sizeof(ctx));
		return -1;
	}
	sha256_final(&ctx, md);
	digest_str(md, out);
	return 0;
}
