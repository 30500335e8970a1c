/*
 * digest.c: "sha256:<hex>" digests (provider-spec 2, artifactDigest) of
 * bytes and of canonical JSON.  SHA-256 is sha256.c's; the format
 * (prefix, lowercase hex) is what the reference writes and what allowlists
 * and binding pins compare as strings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

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

int
digest_json_text(const void *buf, size_t len, const struct json_limits *lim,
    char out[DIGEST_STR_LEN + 1], struct json_error *err)
{
	struct json_value	*v;
	int			 r;

	if (json_parse(buf, len, lim, &v, err) == -1)
		return -1;
	/* A parsed tree is always canonicalisable short of EOVERFLOW. */
	if ((r = digest_json(v, out)) == -1 && err != NULL)
		snprintf(err->msg, sizeof(err->msg), "canonical JSON: %s",
		    strerror(errno));
	json_free(v);
	return r;
}
