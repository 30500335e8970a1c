/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * request.c: one run's standard input (interop.md §P5.3),
 * "<nonce>\n<request JSON>".
 *
 * The nonce is 256 bits from libsodium's CSPRNG, new for every run: the
 * driver reads it before any provider code is compiled and frames the
 * one result line with it, so provider code that escapes the vm context
 * still cannot write a result line we accept (it never saw the nonce).
 *
 * The request carries the module text of exactly the bytes the load
 * digested: we re-digest the run's own copy here, immediately before
 * serialising it, and refuse if it is not the issued (and pinned) digest.
 * Records go as their canonical JSON text, so what the provider reads is
 * a function of the records digest alone: two record arrays with one
 * digest give byte-identical runs.  (The reference sends
 * JSON.stringify's order, which the digest does not pin.)
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common.h"
#include "provider.h"

/* Number.MAX_SAFE_INTEGER */
#define SAFE_INT_MAX	9007199254740991LL

/* The records member as canonicalised with an empty placeholder. */
#define RECORDS_SLOT	"\"recordsJson\":\"\""

/*
 * Put the records' canonical text into the request's recordsJson string.
 * That text is canonical JSON we made: valid UTF-8 with no raw control
 * character and no lone surrogate, so quoting it as JSON.stringify would
 * only puts a backslash before each '"' and '\\' -- the bytes the
 * UTF-16 round trip of the general path (prov_json_string, put_string)
 * gives, without two passes over megabytes.  The placeholder is unique:
 * quotes inside string values are escaped, and recordsJson is a
 * top-level key only (module paths end in .mjs).  -1 if either premise
 * fails (never silently a different request).
 */
static int
records_splice(char **textp, size_t *lenp, const char *rec, size_t reclen)
{
	const size_t	 slotlen = sizeof(RECORDS_SLOT) - 1;
	char		*text = *textp, *at, *out, *o;
	size_t		 i, extra = 0, head, len = *lenp;

	if ((at = memmem(text, len, RECORDS_SLOT, slotlen)) == NULL ||
	    memmem(at + 1, len - (size_t)(at + 1 - text), RECORDS_SLOT,
	    slotlen) != NULL)
		return -1;
	for (i = 0; i < reclen; i++) {
		if ((unsigned char)rec[i] < 0x20)
			return -1;
		if (rec[i] == '"' || rec[i] == '\\')
			extra++;
	}
	if (reclen > SIZE_MAX / 2 - len)
		return -1;
	head = (size_t)(at - text) + slotlen - 1;	/* up to the 2nd '"' */
	out = xmalloc(len + reclen + extra + 1);
	memcpy(out, text, head);
	o = out + head;
	for (i = 0; i < reclen; i++) {
		if (rec[i] == '"' || rec[i] == '\\')
			*o++ = '\\';
		*o++ = rec[i];
	}
	memcpy(o, text + head, len - head + 1);	/* '"', the rest, NUL */
	free(text);
	*textp = out;
	*lenp = len + reclen + extra;
	return 0;
}

void
prov_nonce_new(char nonce[PROV_NONCE_HEX + 1])
{
	unsigned char	 raw[PROV_NONCE_BYTES];

	if (sodium_init() == -1)
		fatalx("sodium_init failed");
	randombytes_buf(raw, sizeof(raw));
	sodium_bin2hex(nonce, PROV_NONCE_HEX + 1, raw, sizeof(raw));
	sodium_memzero(raw, sizeof(raw));
}

static int
nonce_ok(const char *n)
{
	size_t	 i;

	for (i = 0; i < PROV_NONCE_HEX; i++)
		if (!((n[i] >= '0' && n[i] <= '9') ||
		    (n[i] >= 'a' && n[i] <= 'f')))
			return 0;
	return n[PROV_NONCE_HEX] == '\0';
}

int
prov_request_build(const struct prov_run *run, const char *nonce,
    char **outp, size_t *outlenp, struct prov_error *err)
{
	const struct prov_snapshot	*snap = run->snap;
	struct json_value		 req, *mods, *v;
	char				*text = NULL, *records = NULL, *out;
	size_t				 textlen, recordslen = 0, i, n;
	int				 r = -1;

	*outp = NULL;
	*outlenp = 0;
	if (nonce == NULL || !nonce_ok(nonce))
		return prov_fail(err, PROV_REJECTED,
		    "run nonce is not 64 lowercase hex digits");
	if (run->expected_id == NULL || *run->expected_id == '\0' ||
	    run->expected_version == NULL || *run->expected_version == '\0')
		return prov_fail(err, PROV_INVALID_MODULE,
		    "run has no expected provider id and version");
	if (run->clock_ms > SAFE_INT_MAX || run->clock_ms < -SAFE_INT_MAX)
		return prov_fail(err, PROV_INVALID_RECORDS,
		    "clock is not a safe integer");
	if (run->max_output < PROV_FRAME_OVERHEAD + 1024)
		return prov_fail(err, PROV_INVALID_RECORDS,
		    "output cap %zu is too small", run->max_output);
	if (prov_snapshot_verify(snap, run->issued_digest, err) == -1)
		return -1;
	if (run->pinned_digest != NULL &&
	    prov_snapshot_verify(snap, run->pinned_digest, err) == -1)
		return -1;
	if (run->mode == PROV_INVOKE) {
		if (run->records == NULL || run->records->type != JSON_ARRAY)
			return prov_fail(err, PROV_INVALID_RECORDS,
			    "records must be an array");
		/* The text the caller digested, when it has it: records
		 * run to megabytes, canonicalised once per run. */
		if (run->records_text != NULL) {
			records = xmalloc(run->records_len + 1);
			memcpy(records, run->records_text, run->records_len);
			records[run->records_len] = '\0';
			recordslen = run->records_len;
		} else if (json_canonical(run->records, &records,
		    &recordslen) == -1)
			return prov_fail(err, PROV_INVALID_RECORDS,
			    "records are not digestible: %s", strerror(errno));
	}

	n = run->mode == PROV_INVOKE ? 9 : 8;
	prov_json_object(&req, n);
	i = 0;
	if (prov_json_string(prov_json_member(&req, i++, "entry"), snap->entry,
	    strlen(snap->entry)) == -1)
		goto enc;
	mods = prov_json_member(&req, i++, "modules");
	prov_json_object(mods, snap->nmods);
	for (n = 0; n < snap->nmods; n++) {
		if ((v = prov_json_member_n(mods, n, snap->mods[n].path,
		    strlen(snap->mods[n].path))) == NULL ||
		    prov_json_string(v, (const char *)snap->mods[n].bytes,
		    snap->mods[n].len) == -1)
			goto enc;
	}
	if (prov_json_string(prov_json_member(&req, i++, "mode"),
	    run->mode == PROV_INVOKE ? "invoke" : "inspect",
	    run->mode == PROV_INVOKE ? 6 : 7) == -1)
		goto enc;
	/* Megabytes of records are spliced in after canonicalising. */
	if (run->mode == PROV_INVOKE &&
	    prov_json_string(prov_json_member(&req, i++, "recordsJson"),
	    "", 0) == -1)
		goto enc;
	prov_json_number(prov_json_member(&req, i++, "clockMs"),
	    (double)run->clock_ms);
	prov_json_number(prov_json_member(&req, i++, "seed"),
	    (double)run->seed);
	if (prov_json_string(prov_json_member(&req, i++, "expectedId"),
	    run->expected_id, strlen(run->expected_id)) == -1 ||
	    prov_json_string(prov_json_member(&req, i++, "expectedVersion"),
	    run->expected_version, strlen(run->expected_version)) == -1)
		goto enc;
	prov_json_number(prov_json_member(&req, i++, "maxOutputBytes"),
	    (double)run->max_output);

	if (json_canonical(&req, &text, &textlen) == -1) {
		prov_fail(err, PROV_INVALID_RECORDS, "request: %s",
		    strerror(errno));
		goto out;
	}
	if (run->mode == PROV_INVOKE &&
	    records_splice(&text, &textlen, records, recordslen) == -1) {
		prov_fail(err, PROV_INVALID_RECORDS, "request: records are "
		    "not canonical JSON text");
		goto out;
	}
	out = xmalloc(PROV_NONCE_HEX + 1 + textlen + 1);
	memcpy(out, nonce, PROV_NONCE_HEX);
	out[PROV_NONCE_HEX] = '\n';
	memcpy(out + PROV_NONCE_HEX + 1, text, textlen + 1);
	*outp = out;
	*outlenp = PROV_NONCE_HEX + 1 + textlen;
	r = 0;
	goto out;
 enc:
	prov_fail(err, PROV_INVALID_MODULE, "request: a string is not UTF-8");
 out:
	json_value_clear(&req);
	free(text);
	free(records);
	return r;
}
