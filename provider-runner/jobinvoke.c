/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * jobinvoke.c: IMSG_PR_OUTPUT, IMSG_PR_BLOB and IMSG_PR_INVOKE -- run an
 * issued provider over records (interop.md §P6, "Check order in
 * invokeBundleProvider"; 3, seeds and sealed sections).
 *
 * A job opens with OUTPUT (where the result goes), receives the
 * registry's copy of the provider's blob in chunks, and starts with
 * INVOKE (the identity as issued, the limits, the records descriptor).
 * Checks, in the reference's order: the timeout, the records budget and
 * the output cap (invalid-records); the records -- read bounded, an
 * array, within the budget (budget-exceeded), digestible
 * (invalid-records); the clock, a safe integer (invalid-records); then
 * the provider itself: its issued code and source digests well formed,
 * and the blob decoded and re-digested to exactly the issued code digest
 * (attestation-mismatch) -- the "every run re-digests its own copy" rule,
 * which answers a registry copy that was damaged or swapped: code that is
 * not the pinned code never reaches a sandbox.  Then the seed from the
 * code and records digests, the request, the sandbox, the frame.
 *
 * The result is the sealed section (sealProviderSection) as one line of
 * canonical JSON: {codeDigest, metrics, recordsDigest, sourceDigest,
 * version}, plus the provider's whole returned object under "result"
 * (extra keys kept, as invokeBundleProvider returns it); everything but
 * metrics and result comes from the issued identity
 * and the records we digested, so a provider cannot declare its own
 * version or digests; it is what evaluation consumes.  On any refusal
 * nothing at all is written: the descriptor is closed empty and DONE
 * carries the code and the reason.
 */
#include <sys/queue.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "runner.h"

/* Number.MAX_SAFE_INTEGER */
#define SAFE_INT_MAX	9007199254740991LL

struct jobinvoke {
	TAILQ_ENTRY(jobinvoke)	 entry;
	uint32_t		 id;
	int			 started;	/* INVOKE came */
	int			 outfd;
	unsigned char		*blob;
	size_t			 bloblen;
	struct pr_invoke	 inv;
	uint32_t		 timeout_ms;
	uint32_t		 max_records;
	size_t			 max_output;
	struct pio		*io;		/* records, then result */
	struct json_value	*records;
	char			*records_text;	/* canonical, digested */
	size_t			 records_len;
	char			 records_digest[DIGEST_STR_LEN + 1];
	struct prov_identity	 ident;
	uint32_t		 reserved;	/* its sandbox, booting */
};
TAILQ_HEAD(jobinvokes, jobinvoke);

static struct jobinvokes	 jobs = TAILQ_HEAD_INITIALIZER(jobs);

static struct jobinvoke *
jobinvoke_find(uint32_t id)
{
	struct jobinvoke	*j;

	TAILQ_FOREACH(j, &jobs, entry)
		if (j->id == id)
			return j;
	return NULL;
}

static void
jobinvoke_finish(struct jobinvoke *j, const struct prov_error *err)
{
	if (err != NULL)
		log_info("invoke job %u refused: %s: %s", j->id,
		    prov_code_name(err->code), err->msg);
	TAILQ_REMOVE(&jobs, j, entry);
	/* On a refusal the result descriptor is closed empty. */
	if (j->outfd != -1)
		close(j->outfd);
	pio_free(j->io);
	/* A sandbox reserved for a run that never came ends unused. */
	if (j->reserved != 0)
		pool_release(j->reserved);
	json_free(j->records);
	free(j->records_text);
	freezero(j->blob, j->bloblen);
	runner_done(j->id, err, 0);
	free(j);
}

static void
jobinvoke_written(struct pio *p, void *arg)
{
	struct jobinvoke	*j = arg;
	struct prov_error	 err;

	if (pio_status(p) == PIO_DONE) {
		jobinvoke_finish(j, NULL);
		return;
	}
	/* Whoever held the other end stopped taking the result. */
	prov_fail(&err, PROV_CANCELLED, "result descriptor: %s",
	    pio_status(p) == PIO_TIMEOUT ? "not taken in time" :
	    strerror(pio_error(p)));
	jobinvoke_finish(j, &err);
}

static void
jobinvoke_ran(void *arg, struct json_value *body,
    const struct prov_error *rerr)
{
	struct jobinvoke	*j = arg;
	struct prov_error	 err;
	char			*text, *line;
	size_t			 len;
	int			 fd;

	if (rerr != NULL) {
		jobinvoke_finish(j, rerr);
		return;
	}
	if (prov_seal_invoke(&j->ident, j->records_digest,
	    json_get(body, "result"), &text, &len, &err) == -1) {
		json_free(body);
		jobinvoke_finish(j, &err);
		return;
	}
	json_free(body);
	if (len >= RUNNER_RESULT_MAX) {
		free(text);
		prov_fail(&err, PROV_REJECTED, "provider %s: its sealed result "
		    "is %zu bytes, more than %d", j->ident.id, len + 1,
		    RUNNER_RESULT_MAX);
		jobinvoke_finish(j, &err);
		return;
	}
	line = xmalloc(len + 1);
	memcpy(line, text, len);
	line[len] = '\n';
	free(text);
	fd = j->outfd;
	j->outfd = -1;
	j->io = pio_write(fd, (unsigned char *)line, len + 1, j->timeout_ms,
	    jobinvoke_written, j);
}

/* Steps 9 to 12: clock, issued identity, blob, seed, sandbox. */
static void
jobinvoke_run(struct jobinvoke *j)
{
	const struct pr_invoke	*inv = &j->inv;
	struct prov_snapshot	 snap;
	struct prov_run		 run;
	struct prov_error	 err;
	char			 nonce[PROV_NONCE_HEX + 1], *req;
	size_t			 reqlen;
	uint32_t		 seed;
	int			 r;

	if (inv->clock_ms > SAFE_INT_MAX || inv->clock_ms < -SAFE_INT_MAX) {
		prov_fail(&err, PROV_INVALID_RECORDS, "clockMs (%lld) must "
		    "be a safe integer", (long long)inv->clock_ms);
		goto bad;
	}
	if (!prov_digest_ok(inv->code_digest) ||
	    !prov_digest_ok(inv->source_digest)) {
		prov_fail(&err, PROV_ATTESTATION_MISMATCH, "provider %s: "
		    "issued code or source digest is not a sha256 digest",
		    inv->id);
		goto bad;
	}
	if (prov_blob_decode(j->blob, j->bloblen, &snap, &err) == -1) {
		prov_prefix(&err, "provider %s", inv->id);
		goto bad;
	}
	freezero(j->blob, j->bloblen);
	j->blob = NULL;
	j->bloblen = 0;
	if (prov_snapshot_verify(&snap, inv->code_digest, &err) == -1) {
		prov_snapshot_free(&snap);
		prov_prefix(&err, "provider %s", inv->id);
		goto bad;
	}
	strlcpy(snap.code_digest, inv->code_digest, sizeof(snap.code_digest));
	if (prov_seed_derive(inv->code_digest, j->records_digest, &seed,
	    &err) == -1) {
		prov_snapshot_free(&snap);
		goto bad;
	}
	memset(&run, 0, sizeof(run));
	run.mode = PROV_INVOKE;
	run.snap = &snap;
	run.issued_digest = inv->code_digest;
	run.expected_id = inv->id;
	run.expected_version = inv->version;
	run.records = j->records;
	run.records_text = j->records_text;
	run.records_len = j->records_len;
	run.clock_ms = inv->clock_ms;
	run.seed = seed;
	run.max_output = j->max_output;
	prov_nonce_new(nonce);
	r = prov_request_build(&run, nonce, &req, &reqlen, &err);
	prov_snapshot_free(&snap);
	if (r == -1) {
		explicit_bzero(nonce, sizeof(nonce));
		goto bad;
	}
	r = sbrun_start(j->id, req, reqlen, nonce, j->timeout_ms,
	    j->max_output, j->reserved, jobinvoke_ran, j, &err);
	/* Claimed by the run, or gone: either way no longer the job's. */
	j->reserved = 0;
	explicit_bzero(nonce, sizeof(nonce));
	if (r == 0) {
		/*
		 * The request is on its way (sbrun writes what the pipe takes
		 * at once); the records' tree is not needed again -- the seal
		 * takes their digest -- and freeing ten thousand of them now
		 * overlaps with the provider's run instead of following it.
		 */
		json_free(j->records);
		j->records = NULL;
		return;
	}
 bad:
	jobinvoke_finish(j, &err);
}

/* Steps 4 to 8: the records, read whole and bounded, then digested. */
static void
jobinvoke_records(struct pio *p, void *arg)
{
	struct jobinvoke	*j = arg;
	struct prov_error	 err;
	const unsigned char	*buf;
	size_t			 len;

	j->io = NULL;
	switch (pio_status(p)) {
	case PIO_DONE:
		break;
	case PIO_OVERFLOW:
		prov_fail(&err, PROV_INVALID_RECORDS, "records: more than %u "
		    "bytes", (unsigned int)RUNNER_RECORDS_BYTES);
		goto bad;
	case PIO_TIMEOUT:
		prov_fail(&err, PROV_INVALID_RECORDS, "records: not complete "
		    "within %u ms", j->timeout_ms);
		goto bad;
	default:
		prov_fail(&err, PROV_INVALID_RECORDS, "records: cannot be "
		    "read: %s", strerror(pio_error(p)));
		goto bad;
	}
	buf = pio_data(p, &len);
	if (prov_records_parse(buf, len, j->max_records, &j->records,
	    &err) == -1 ||
	    prov_records_canonical(j->records, j->max_records,
	    &j->records_text, &j->records_len, j->records_digest, &err) == -1)
		goto bad;
	pio_free(p);
	jobinvoke_run(j);
	return;
 bad:
	pio_free(p);
	jobinvoke_finish(j, &err);
}

void
jobinvoke_output(uint32_t id, int fd)
{
	struct jobinvoke	*j;
	int			 fl;

	if ((fl = fcntl(fd, F_GETFL)) == -1 || (fl & O_ACCMODE) == O_RDONLY)
		fatalx("result descriptor of job %u is not writable", id);
	runner_job_claim(id);
	j = xcalloc(1, sizeof(*j));
	j->id = id;
	j->outfd = fd;
	TAILQ_INSERT_TAIL(&jobs, j, entry);
}

void
jobinvoke_blob(uint32_t id, const void *data, size_t len)
{
	struct jobinvoke	*j;

	if ((j = jobinvoke_find(id)) == NULL || j->started)
		fatalx("blob chunk for job %u, which awaits none", id);
	if (len > PR_BLOB_MAX - j->bloblen)
		fatalx("blob of job %u exceeds %d bytes", id, PR_BLOB_MAX);
	j->blob = xrecallocarray(j->blob, j->bloblen, j->bloblen + len, 1);
	memcpy(j->blob + j->bloblen, data, len);
	j->bloblen += len;
}

static int
cstr_ok(const char *s, size_t len)
{
	return s[0] != '\0' && memchr(s, '\0', len) != NULL;
}

void
jobinvoke_start(uint32_t id, int fd, const struct pr_invoke *inv)
{
	struct jobinvoke	*j;
	struct prov_error	 err;
	int			 fl;

	if ((j = jobinvoke_find(id)) == NULL || j->started)
		fatalx("invoke for job %u, which has no result descriptor",
		    id);
	if (inv->blob_len != j->bloblen)
		fatalx("job %u: blob of %u bytes announced, %zu came", id,
		    inv->blob_len, j->bloblen);
	if (!cstr_ok(inv->id, sizeof(inv->id)) ||
	    !cstr_ok(inv->version, sizeof(inv->version)) ||
	    memchr(inv->code_digest, '\0', sizeof(inv->code_digest)) == NULL ||
	    memchr(inv->source_digest, '\0',
	    sizeof(inv->source_digest)) == NULL)
		fatalx("job %u: identity strings are not terminated", id);
	if ((fl = fcntl(fd, F_GETFL)) == -1 || (fl & O_ACCMODE) == O_WRONLY)
		fatalx("records descriptor of job %u is not readable", id);
	j->started = 1;
	j->inv = *inv;
	strlcpy(j->ident.id, inv->id, sizeof(j->ident.id));
	strlcpy(j->ident.version, inv->version, sizeof(j->ident.version));
	strlcpy(j->ident.code_digest, inv->code_digest,
	    sizeof(j->ident.code_digest));
	strlcpy(j->ident.source_digest, inv->source_digest,
	    sizeof(j->ident.source_digest));

	j->max_records = inv->max_records == 0 ? PROV_MAX_RECORDS_DEFAULT :
	    inv->max_records;
	if (runner_limits(inv->timeout_ms, inv->max_output, &j->timeout_ms,
	    &j->max_output, &err) == -1)
		goto bad;
	/* Node boots while the records are read and checked (pool.c):
	 * ask for its sandbox first, since pio_read reads a regular file
	 * at once. */
	j->reserved = pool_reserve();
	j->io = pio_read(fd, RUNNER_RECORDS_BYTES, j->timeout_ms,
	    jobinvoke_records, j);
	return;
 bad:
	close(fd);
	jobinvoke_finish(j, &err);
}
