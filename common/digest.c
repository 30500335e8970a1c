/*
 * digest.c: "sha256:<hex>" digests (provider-spec 2, artifactDigest) of
 * bytes and of canonical JSON.  SHA-256 comes from libsodium; the format
 * (prefix, lowercase hex) is what the reference writes and what allowlists
 * and binding pins compare as strings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common.h"

static void
digest_init(void)
{
	static int	 done;

	if (done)
		return;
	/* Without a working libsodium no digest can be trusted. */
	if (sodium_init() == -1)
		fatalx("sodium_init failed");
	done = 1;
}

void
digest_sha256_hex(const void *buf, size_t len, char hex[DIGEST_HEX_LEN + 1])
{
	unsigned char	 md[crypto_hash_sha256_BYTES];

	digest_init();
	crypto_hash_sha256(md, buf, len);
	sodium_bin2hex(hex, DIGEST_HEX_LEN + 1, md, sizeof(md));
}

void
digest_bytes(const void *buf, size_t len, char out[DIGEST_STR_LEN + 1])
{
	char	 hex[DIGEST_HEX_LEN + 1];

	digest_sha256_hex(buf, len, hex);
	strlcpy(out, DIGEST_PREFIX, DIGEST_STR_LEN + 1);
	strlcat(out, hex, DIGEST_STR_LEN + 1);
}

/* -1 with errno from json_canonical (EDOM, EINVAL, ELOOP, EOVERFLOW). */
int
digest_json(const struct json_value *v, char out[DIGEST_STR_LEN + 1])
{
	char	*text;
	size_t	 len;

	if (json_canonical(v, &text, &len) == -1)
		return -1;
	digest_bytes(text, len, out);
	free(text);
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
