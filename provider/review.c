/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * review.c: in-bundle reviews (interop.md §P1, §P4).
 *
 * A bundle may say who reviewed which digest, inline or in a review file.
 * That claim is bundle data, so it authorises nothing: only the
 * operator's allowlist does (allowlist.c).  We check it for consistency
 * -- the shape, that it covers the bytes in the snapshot, that it is not
 * dated in the future -- so a stale or forged review is reported as such
 * rather than silently ignored.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "provider.h"

#define REVIEW_MAX_DEPTH	8
#define REVIEW_MAX_NODES	64

static const char *const review_keys[] = {
	"reviewer", "reviewedAt", "codeDigest"
};

int
prov_review_parse(const struct json_value *v, const char *where,
    enum prov_code code, struct prov_review *r, struct prov_error *err)
{
	const struct json_value	*f;
	const char		*why;
	char			 q[PROV_QUOTE_MAX];
	int64_t			 ms;
	size_t			 i, k;

	memset(r, 0, sizeof(*r));
	if (v->type != JSON_OBJECT)
		return prov_fail(err, code, "%s: must be an object", where);
	for (i = 0; i < v->u.object.n; i++) {
		for (k = 0; k < nitems(review_keys); k++)
			if (json_key_is(&v->u.object.m[i].key,
			    review_keys[k]))
				break;
		if (k == nitems(review_keys)) {
			prov_json_key_quote(q, &v->u.object.m[i].key);
			return prov_fail(err, code, "%s.%s: unknown field",
			    where, q);
		}
	}
	if ((f = json_get(v, "reviewer")) == NULL ||
	    f->type != JSON_STRING || f->u.string.len == 0)
		return prov_fail(err, code, "%s.reviewer: required, must be a "
		    "non-empty string", where);
	if (prov_json_cstr(&f->u.string, PROV_REVIEWER_MAX, r->reviewer,
	    sizeof(r->reviewer), &why) == -1)
		return prov_fail(err, code, "%s.reviewer: %s (at most %d "
		    "characters)", where, why, PROV_REVIEWER_MAX);
	if ((f = json_get(v, "reviewedAt")) == NULL ||
	    f->type != JSON_STRING ||
	    prov_json_cstr(&f->u.string, PROV_DATETIME_MAX, r->reviewed_at,
	    sizeof(r->reviewed_at), &why) == -1 ||
	    prov_datetime_zod(r->reviewed_at, &ms) == -1)
		return prov_fail(err, code, "%s.reviewedAt: required, must be "
		    "a date-time YYYY-MM-DDTHH:MM:SS[.fff]Z", where);
	if ((f = json_get(v, "codeDigest")) == NULL ||
	    f->type != JSON_STRING ||
	    prov_json_cstr(&f->u.string, DIGEST_STR_LEN, r->code_digest,
	    sizeof(r->code_digest), &why) == -1 ||
	    !prov_digest_ok(r->code_digest))
		return prov_fail(err, code, "%s.codeDigest: required, must be "
		    "a sha256 digest (^sha256:[0-9a-f]{64}$)", where);
	return 0;
}

int
prov_review_read(int rootfd, const struct prov_entry *e,
    struct prov_review *r, struct prov_error *err)
{
	struct json_limits	 lim;
	struct json_error	 jerr;
	struct json_value	*v;
	struct stat		 st;
	unsigned char		*buf;
	size_t			 len;
	char			 where[PROV_PATH_MAX + 32];
	int			 fd, saved, ret;

	if (e->has_review) {
		*r = e->review;
		return 0;
	}
	memset(r, 0, sizeof(*r));
	if (!prov_path_review_ok(e->review_file, strlen(e->review_file)))
		return prov_fail(err, PROV_PATH_ESCAPE, "provider %s: review "
		    "file is not a bundle-relative .json path", e->id);
	/* The path passed the pattern: plain ASCII, safe to print. */
	snprintf(where, sizeof(where), "provider %s: review file %s", e->id,
	    e->review_file);
	if ((fd = open_beneath(rootfd, e->review_file,
	    O_RDONLY | O_NOFOLLOW | O_NONBLOCK)) == -1) {
		if (errno == ELOOP || errno == EXDEV)
			return prov_fail(err, PROV_PATH_ESCAPE, "%s: symlink "
			    "or escape from the bundle root", where);
		return prov_fail(err, PROV_MISSING_ATTESTATION,
		    "%s: cannot be opened: %s", where, strerror(errno));
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return prov_fail(err, PROV_MISSING_ATTESTATION,
		    "%s: not a regular file", where);
	}
	if (read_bounded(fd, PROV_REVIEW_FILE_MAX, &buf, &len) == -1) {
		saved = errno;
		close(fd);
		return prov_fail(err, PROV_MISSING_ATTESTATION,
		    "%s: cannot be read: %s", where, strerror(saved));
	}
	close(fd);
	if (len > PROV_REVIEW_FILE_MAX) {
		free(buf);
		return prov_fail(err, PROV_OVERSIZE, "%s: more than %d bytes",
		    where, PROV_REVIEW_FILE_MAX);
	}
	memset(&lim, 0, sizeof(lim));
	lim.max_bytes = PROV_REVIEW_FILE_MAX;
	lim.max_depth = REVIEW_MAX_DEPTH;
	lim.max_nodes = REVIEW_MAX_NODES;
	if (json_parse(buf, len, &lim, &v, &jerr) == -1) {
		free(buf);
		return prov_fail(err, PROV_MISSING_ATTESTATION, "%s: %s",
		    where, jerr.msg);
	}
	free(buf);
	ret = prov_review_parse(v, where, PROV_MISSING_ATTESTATION, r, err);
	json_free(v);
	return ret;
}

/*
 * Consistency of a review with the snapshot: it must cover exactly these
 * bytes, and it must not claim a review that has not happened yet.
 */
int
prov_review_check(const struct prov_review *r, const char *id,
    const char *code_digest, int64_t now_ms, struct prov_error *err)
{
	int64_t	 at;

	if (strcmp(r->code_digest, code_digest) != 0)
		return prov_fail(err, PROV_ATTESTATION_MISMATCH, "provider %s: "
		    "the in-bundle review covers %s, the snapshot is %s", id,
		    r->code_digest, code_digest);
	if (prov_datetime_zod(r->reviewed_at, &at) == -1)
		return prov_fail(err, PROV_MISSING_ATTESTATION, "provider %s: "
		    "review date \"%s\" is not a date-time", id,
		    r->reviewed_at);
	if (at > now_ms)
		return prov_fail(err, PROV_MISSING_ATTESTATION, "provider %s: "
		    "review date %s is in the future", id, r->reviewed_at);
	return 0;
}
