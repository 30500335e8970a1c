/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * pin.c: records digests, run seeds, binding pins and sealed sections
 * (interop.md §P3).
 *
 * A binding pins a bundle provider's code digest and its input records'
 * digest; evaluation re-runs the pinned code over records with that
 * digest and uses only the re-run output.  All digests here are
 * artifactDigest: sha256 over common/canon.c's canonical text, so they
 * equal the reference's wherever the reference can compute one.
 *
 * Unlike the reference, a records array is not limited to 4,096 records
 * (or 8,192 JSON nodes, 256 KiB of text): the bound is the operator's
 * provider-max-records, checked before anything is digested, plus the
 * JSON parser's limits on the records text.  The reference refuses
 * larger inputs as "not digestible"; sbx digests them, and for every
 * input both accept the digests are identical.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "provider.h"

static size_t
max_or_default(size_t max)
{
	return max == 0 ? PROV_MAX_RECORDS_DEFAULT : max;
}

int
prov_records_parse(const void *buf, size_t len, size_t max,
    struct json_value **out, struct prov_error *err)
{
	struct json_error	 jerr;
	struct json_value	*v;
	size_t			 n;

	*out = NULL;
	if (json_parse(buf, len, NULL, &v, &jerr) == -1)
		return prov_fail(err, PROV_INVALID_RECORDS, "records: %s",
		    jerr.msg);
	if (v->type != JSON_ARRAY) {
		json_free(v);
		return prov_fail(err, PROV_INVALID_RECORDS,
		    "records must be an array");
	}
	if ((n = v->u.array.n) > max_or_default(max)) {
		json_free(v);
		return prov_fail(err, PROV_BUDGET_EXCEEDED, "%zu records "
		    "exceed the limit of %zu", n, max_or_default(max));
	}
	*out = v;
	return 0;
}

/*
 * The records' canonical text and its digest, in one pass: an invoke
 * needs both (the digest for the seed and the seal, the text for the
 * request).  The text is the caller's to free.
 */
int
prov_records_canonical(const struct json_value *records, size_t max,
    char **text, size_t *len, char digest[DIGEST_STR_LEN + 1],
    struct prov_error *err)
{
	*text = NULL;
	*len = 0;
	if (records == NULL || records->type != JSON_ARRAY)
		return prov_fail(err, PROV_INVALID_RECORDS,
		    "records must be an array");
	if (records->u.array.n > max_or_default(max))
		return prov_fail(err, PROV_BUDGET_EXCEEDED, "%zu records "
		    "exceed the limit of %zu", records->u.array.n,
		    max_or_default(max));
	if (json_canonical(records, text, len) == -1)
		return prov_fail(err, PROV_INVALID_RECORDS,
		    "records are not digestible: %s", strerror(errno));
	digest_bytes(*text, *len, digest);
	return 0;
}

/* The digest alone: the same checks, the text dropped. */
int
prov_records_digest(const struct json_value *records, size_t max,
    char out[DIGEST_STR_LEN + 1], struct prov_error *err)
{
	char	*text;
	size_t	 len;

	if (prov_records_canonical(records, max, &text, &len, out, err) == -1)
		return -1;
	free(text);
	return 0;
}

/*
 * deriveIsolatedSeed: the first 32 bits of sha256(codeDigest ||
 * recordsDigest), both as their "sha256:..." text.  Identical inputs give
 * identical seeds, so re-runs are byte-identical.
 */
int
prov_seed_derive(const char *code, const char *records, uint32_t *seed,
    struct prov_error *err)
{
	char		 buf[2 * DIGEST_STR_LEN], hex[DIGEST_HEX_LEN + 1];
	uint32_t	 v = 0;
	int		 i;

	*seed = 0;
	if (code == NULL || !prov_digest_ok(code))
		return prov_fail(err, PROV_ATTESTATION_MISMATCH,
		    "code digest is not a sha256 digest");
	if (records == NULL || !prov_digest_ok(records))
		return prov_fail(err, PROV_INVALID_RECORDS,
		    "records digest is not a sha256 digest");
	memcpy(buf, code, DIGEST_STR_LEN);
	memcpy(buf + DIGEST_STR_LEN, records, DIGEST_STR_LEN);
	digest_sha256_hex(buf, sizeof(buf), hex);
	for (i = 0; i < 8; i++)
		v = v << 4 | (uint32_t)(hex[i] <= '9' ? hex[i] - '0' :
		    hex[i] - 'a' + 10);
	*seed = v;
	return 0;
}

/*
 * An object of string members plus at most one borrowed subtree: built,
 * canonicalised or digested, then cleared without freeing what it
 * borrowed.
 */
struct member {
	const char		*key;
	const char		*str;		/* or NULL: use tree */
	const struct json_value	*tree;
};

static int
object_text(const struct member *mv, size_t n, char **text, size_t *len,
    char digest[DIGEST_STR_LEN + 1])
{
	struct json_value	 obj, *slot;
	size_t			 i;
	int			 r = -1;

	prov_json_object(&obj, n);
	for (i = 0; i < n; i++) {
		slot = prov_json_member(&obj, i, mv[i].key);
		if (mv[i].str != NULL) {
			if (prov_json_string(slot, mv[i].str,
			    strlen(mv[i].str)) == -1) {
				errno = EILSEQ;
				goto out;
			}
		} else
			*slot = *mv[i].tree;	/* borrowed */
	}
	if (digest != NULL)
		r = digest_json(&obj, digest);
	else
		r = json_canonical(&obj, text, len);
 out:
	for (i = 0; i < n; i++)
		if (mv[i].str == NULL)
			obj.u.object.m[i].value.type = JSON_NULL;
	json_value_clear(&obj);
	return r;
}

/* providerSourceDigest: artifactDigest({id, version, metrics}). */
int
prov_source_digest(const char *id, const char *version,
    const struct json_value *metrics, char out[DIGEST_STR_LEN + 1],
    struct prov_error *err)
{
	struct member	 mv[3] = {
		{ "id", id, NULL },
		{ "version", version, NULL },
		{ "metrics", NULL, metrics },
	};

	if (metrics == NULL || metrics->type != JSON_OBJECT)
		return prov_fail(err, PROV_INVALID_MODULE,
		    "metrics must be an object");
	if (object_text(mv, nitems(mv), NULL, NULL, out) == -1)
		return prov_fail(err, PROV_INVALID_MODULE,
		    "metrics are not digestible: %s", strerror(errno));
	return 0;
}

int
prov_binding_pin(const struct prov_identity *id,
    const struct json_value *records, size_t max, struct prov_pin *pin,
    struct prov_error *err)
{
	memset(pin, 0, sizeof(*pin));
	if (!prov_digest_ok(id->code_digest))
		return prov_fail(err, PROV_ATTESTATION_MISMATCH, "provider %s: "
		    "code digest is not a sha256 digest", id->id);
	if (prov_records_digest(records, max, pin->records_digest,
	    err) == -1)
		return -1;
	pin->ident = *id;
	return 0;
}

/* The binding's metricProviders entry, as canonical JSON text. */
int
prov_pin_json(const struct prov_pin *pin, char **out, size_t *outlen)
{
	struct member	 mv[5] = {
		{ "id", pin->ident.id, NULL },
		{ "version", pin->ident.version, NULL },
		{ "sourceDigest", pin->ident.source_digest, NULL },
		{ "codeDigest", pin->ident.code_digest, NULL },
		{ "recordsDigest", pin->records_digest, NULL },
	};

	return object_text(mv, nitems(mv), out, outlen, NULL);
}

/*
 * sealProviderSection: the section evaluation uses, built from the
 * re-run's metrics and the provider's own identity; a result's
 * self-declared version or sourceDigest is ignored.
 */
static int
seal(const struct prov_identity *id, const struct json_value *records,
    size_t max, const char *digest, const struct json_value *result,
    int with_result, char **out, size_t *outlen, struct prov_error *err)
{
	char			 rd[DIGEST_STR_LEN + 1];
	const struct json_value	*metrics;
	struct member		 mv[6];

	*out = NULL;
	*outlen = 0;
	/* digest: the records' own, computed by the caller, or NULL. */
	if (digest != NULL) {
		if (!prov_digest_ok(digest))
			return prov_fail(err, PROV_INVALID_RECORDS,
			    "records digest is not a sha256 digest");
		strlcpy(rd, digest, sizeof(rd));
	} else if (prov_records_digest(records, max, rd, err) == -1)
		return -1;
	if (result == NULL || result->type != JSON_OBJECT ||
	    (metrics = json_get(result, "metrics")) == NULL ||
	    metrics->type != JSON_OBJECT)
		return prov_fail(err, PROV_REJECTED, "provider %s returned no "
		    "metrics", id->id);
	if (!prov_digest_ok(id->code_digest))
		return prov_fail(err, PROV_ATTESTATION_MISMATCH, "provider %s: "
		    "code digest is not a sha256 digest", id->id);
	mv[0] = (struct member){ "version", id->version, NULL };
	mv[1] = (struct member){ "sourceDigest", id->source_digest, NULL };
	mv[2] = (struct member){ "codeDigest", id->code_digest, NULL };
	mv[3] = (struct member){ "recordsDigest", rd, NULL };
	mv[4] = (struct member){ "metrics", NULL, metrics };
	mv[5] = (struct member){ "result", NULL, result };
	if (object_text(mv, with_result ? 6 : 5, out, outlen, NULL) == -1)
		return prov_fail(err, PROV_REJECTED, "provider %s: sealed "
		    "section: %s", id->id, strerror(errno));
	return 0;
}

int
prov_seal_section(const struct prov_identity *id,
    const struct json_value *records, size_t max, const char *digest,
    const struct json_value *result, char **out, size_t *outlen,
    struct prov_error *err)
{
	return seal(id, records, max, digest, result, 0, out, outlen, err);
}

/*
 * What `sbxctl provider invoke` prints: the sealed section with the
 * provider's whole returned object beside it under "result", extra keys
 * included, as the reference's invokeBundleProvider returns it (provider
 * spec 6; scenario B 21's "surface" key).  Evaluation still takes only
 * the section's own members.
 */
int
prov_seal_invoke(const struct prov_identity *id, const char *digest,
    const struct json_value *result, char **out, size_t *outlen,
    struct prov_error *err)
{
	return seal(id, NULL, 0, digest, result, 1, out, outlen, err);
}
