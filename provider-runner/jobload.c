/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * jobload.c: IMSG_PR_LOAD -- load a bundle's gate providers
 * (interop.md §P6, "Check order in loadGateBundleProviders").
 *
 * Once, before the entries: the bundle root is a directory (path-escape),
 * the manifest and its gateProviders entries (invalid-module, duplicate,
 * oversize; no entries is a load of none), then the clock, the timeout
 * and the output cap (invalid-records).  Then per entry, in manifest
 * order: the load-time checks of load.c (snapshot, in-bundle review,
 * review digest, review date, allowlist entry, allowlist digest, reviewer
 * and date, digest pattern), the sandboxed inspect run (seed 1, the
 * load's clock), its frame, the descriptor (present, metrics an object,
 * kinds valid) and its sourceDigest.
 *
 * The first refusal refuses the whole load, as the reference's does, and
 * nothing is issued until every entry has passed: a refused load must
 * register nothing (interop.md §P8, "A refused load registers nothing"),
 * and a monitor that never sees a provider of a refused load cannot
 * register one by mistake.  So the snapshots wait here until the end,
 * then each goes out as its blob and its IMSG_PR_PROVIDER, then DONE.
 */
#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "runner.h"

/* ECMAScript's time value range, in ms either side of the epoch. */
#define TIME_VALUE_MAX	8640000000000000LL

struct issued {
	struct prov_loaded	 ld;
	struct prov_descriptor	 d;
};

struct jobload {
	uint32_t		 id;
	int			 dirfd;
	int64_t			 now_ms;
	uint32_t		 timeout_ms;
	size_t			 max_output;
	struct prov_manifest	*m;
	struct runner_allowlist	*trust;
	struct issued		*issued;
	size_t			 next;		/* entry being inspected */
};

static const struct prov_allowlist	 no_allowlist;

static void	 jobload_next(struct jobload *);

static void
jobload_finish(struct jobload *j, const struct prov_error *err,
    uint32_t count)
{
	size_t	 i;

	if (j->dirfd != -1)
		close(j->dirfd);
	for (i = 0; j->issued != NULL && i < j->next; i++) {
		prov_snapshot_free(&j->issued[i].ld.snap);
		prov_descriptor_free(&j->issued[i].d);
	}
	free(j->issued);
	free(j->m);
	runner_allowlist_unref(j->trust);
	runner_done(j->id, err, count);
	free(j);
}

static void
jobload_refuse(struct jobload *j, const struct prov_error *err)
{
	log_info("load job %u refused: %s: %s", j->id,
	    prov_code_name(err->code), err->msg);
	jobload_finish(j, err, 0);
}

/* Every entry passed: issue them all, in manifest order. */
static void
jobload_publish(struct jobload *j)
{
	struct prov_error	 err;
	struct pr_provider	*pp;
	unsigned char		**blobs;
	size_t			*lens, i, n = j->next;
	int			 failed = 0;

	blobs = xcalloc(n, sizeof(*blobs));
	lens = xcalloc(n, sizeof(*lens));
	for (i = 0; i < n; i++) {
		if (prov_blob_encode(&j->issued[i].ld.snap, &blobs[i],
		    &lens[i]) == -1) {
			prov_fail(&err, PROV_OVERSIZE, "provider %s: its "
			    "snapshot does not fit a blob of %d bytes",
			    j->m->entries[i].id, PR_BLOB_MAX);
			failed = 1;
			goto out;
		}
	}
	pp = xcalloc(1, sizeof(*pp));
	for (i = 0; i < n; i++) {
		memset(pp, 0, sizeof(*pp));
		pp->blob_len = (uint32_t)lens[i];
		strlcpy(pp->bundle_id, j->m->bundle_id, sizeof(pp->bundle_id));
		strlcpy(pp->id, j->issued[i].d.id, sizeof(pp->id));
		strlcpy(pp->version, j->issued[i].d.version,
		    sizeof(pp->version));
		strlcpy(pp->code_digest, j->issued[i].ld.snap.code_digest,
		    sizeof(pp->code_digest));
		strlcpy(pp->source_digest, j->issued[i].d.source_digest,
		    sizeof(pp->source_digest));
		memcpy(pp->metrics, j->issued[i].d.metrics,
		    j->issued[i].d.metricslen);
		strlcpy(pp->reviewer, j->issued[i].ld.review.reviewer,
		    sizeof(pp->reviewer));
		strlcpy(pp->reviewed_at, j->issued[i].ld.review.reviewed_at,
		    sizeof(pp->reviewed_at));
		strlcpy(pp->review_digest, j->issued[i].ld.review.code_digest,
		    sizeof(pp->review_digest));
		runner_send_blob(j->id, blobs[i], lens[i]);
		runner_send(IMSG_PR_PROVIDER, j->id, -1, pp, sizeof(*pp));
		log_info("load job %u: issued %s %s (%s)", j->id, pp->id,
		    pp->version, pp->code_digest);
	}
	free(pp);
 out:
	for (i = 0; i < n; i++)
		free(blobs[i]);
	free(blobs);
	free(lens);
	if (failed)
		jobload_refuse(j, &err);
	else
		jobload_finish(j, NULL, (uint32_t)n);
}

/* The inspect run of entry j->next has ended. */
static void
jobload_inspected(void *arg, struct json_value *body,
    const struct prov_error *rerr)
{
	struct jobload		*j = arg;
	const struct prov_entry	*e = &j->m->entries[j->next];
	struct issued		*is = &j->issued[j->next];
	struct prov_error	 err;

	if (rerr != NULL) {
		err = *rerr;
		/* The reference re-throws these unchanged; any other
		 * failure of the inspect run means the module is bad. */
		if (err.code != PROV_TIMEOUT && err.code != PROV_CANCELLED &&
		    err.code != PROV_SANDBOX_UNAVAILABLE) {
			err.code = PROV_INVALID_MODULE;
			prov_prefix(&err, "provider %s module is invalid",
			    e->id);
		}
		goto bad;
	}
	if (prov_descriptor_check(body, e, &is->d, &err) == -1)
		goto bad;
	json_free(body);
	body = NULL;
	if (is->d.metricslen >= PR_METRICS_MAX) {
		prov_fail(&err, PROV_OVERSIZE, "provider %s: its metrics "
		    "declaration is %zu bytes of canonical JSON, more than %d",
		    e->id, is->d.metricslen, PR_METRICS_MAX - 1);
		prov_descriptor_free(&is->d);
		goto bad;
	}
	j->next++;
	jobload_next(j);
	return;
 bad:
	json_free(body);
	/* This entry's snapshot is not among the issued ones yet. */
	prov_snapshot_free(&is->ld.snap);
	jobload_refuse(j, &err);
}

static void
jobload_next(struct jobload *j)
{
	const struct prov_entry	*e;
	struct issued		*is;
	struct prov_run		 run;
	struct prov_error	 err;
	char			 nonce[PROV_NONCE_HEX + 1], *req;
	size_t			 reqlen;

	if (j->next == j->m->nentries) {
		jobload_publish(j);
		return;
	}
	e = &j->m->entries[j->next];
	is = &j->issued[j->next];
	if (prov_load_entry(j->dirfd, j->m, j->next, j->trust != NULL ?
	    &j->trust->al : &no_allowlist, j->now_ms, &is->ld, &err) == -1) {
		jobload_refuse(j, &err);
		return;
	}
	memset(&run, 0, sizeof(run));
	run.mode = PROV_INSPECT;
	run.snap = &is->ld.snap;
	run.issued_digest = is->ld.snap.code_digest;
	run.expected_id = e->id;
	run.expected_version = e->version;
	run.clock_ms = j->now_ms;
	run.seed = PROV_INSPECT_SEED;
	run.max_output = j->max_output;
	prov_nonce_new(nonce);
	if (prov_request_build(&run, nonce, &req, &reqlen, &err) == -1) {
		explicit_bzero(nonce, sizeof(nonce));
		prov_snapshot_free(&is->ld.snap);
		jobload_refuse(j, &err);
		return;
	}
	if (sbrun_start(j->id, req, reqlen, nonce, j->timeout_ms,
	    j->max_output, 0, jobload_inspected, j, &err) == -1) {
		prov_snapshot_free(&is->ld.snap);
		jobload_refuse(j, &err);
	}
	explicit_bzero(nonce, sizeof(nonce));
}

/*
 * Revocation (IMSG_PR_RECHECK): the load's checks that need no bundle,
 * in the load's order, by the allowlist now current -- so a reload that
 * removed the entry, changed its digest or its review refuses the issued
 * provider with the words a fresh load of it would get.
 */
void
jobload_recheck(struct pr_recheck *rc)
{
	struct runner_allowlist	*trust;
	struct prov_review	 rv;
	struct prov_error	 err;

#define TERM(f)	(f)[sizeof(f) - 1] = '\0'
	TERM(rc->handle);
	TERM(rc->bundle_id);
	TERM(rc->id);
	TERM(rc->code_digest);
	TERM(rc->reviewer);
	TERM(rc->reviewed_at);
	TERM(rc->review_digest);
#undef TERM
	memset(&rv, 0, sizeof(rv));
	strlcpy(rv.reviewer, rc->reviewer, sizeof(rv.reviewer));
	strlcpy(rv.reviewed_at, rc->reviewed_at, sizeof(rv.reviewed_at));
	strlcpy(rv.code_digest, rc->review_digest, sizeof(rv.code_digest));
	memset(&err, 0, sizeof(err));
	trust = runner_allowlist_ref();
	rc->code = 0;
	rc->msg[0] = '\0';
	if (prov_review_check(&rv, rc->id, rc->code_digest, rc->now_ms,
	    &err) == -1 || prov_allowlist_match(trust != NULL ? &trust->al :
	    &no_allowlist, rc->bundle_id, rc->id, rc->code_digest, &rv, NULL,
	    &err) == -1) {
		rc->code = (int32_t)err.code;
		strlcpy(rc->msg, err.msg, sizeof(rc->msg));
		log_info("provider %s (%s) no longer trusted: %s", rc->handle,
		    rc->id, err.msg);
	}
	runner_allowlist_unref(trust);
}

void
jobload_start(uint32_t id, int dirfd, const struct pr_load *pl)
{
	struct jobload		*j;
	struct prov_error	 err;
	struct stat		 st;

	runner_job_claim(id);
	j = xcalloc(1, sizeof(*j));
	j->id = id;
	j->dirfd = dirfd;
	j->m = xcalloc(1, sizeof(*j->m));
	if (fstat(dirfd, &st) == -1 || !S_ISDIR(st.st_mode)) {
		prov_fail(&err, PROV_PATH_ESCAPE,
		    "bundle root is unavailable: not a directory");
		goto bad;
	}
	if (prov_manifest_load(dirfd, j->m, &err) == -1)
		goto bad;
	if (j->m->nentries == 0) {
		jobload_finish(j, NULL, 0);
		return;
	}
	if (pl->now_ms < -TIME_VALUE_MAX || pl->now_ms > TIME_VALUE_MAX) {
		prov_fail(&err, PROV_INVALID_RECORDS, "now (%lld ms) is not "
		    "a valid time", (long long)pl->now_ms);
		goto bad;
	}
	j->now_ms = pl->now_ms;
	if (runner_limits(pl->timeout_ms, pl->max_output, &j->timeout_ms,
	    &j->max_output, &err) == -1)
		goto bad;
	j->trust = runner_allowlist_ref();
	j->issued = xcalloc(j->m->nentries, sizeof(*j->issued));
	log_debug("load job %u: bundle %s, %zu providers", id,
	    j->m->bundle_id, j->m->nentries);
	jobload_next(j);
	return;
 bad:
	jobload_refuse(j, &err);
}
