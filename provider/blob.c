/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * blob.c: a provider snapshot as bytes, for the monitor's registry.
 *
 * The monitor keeps the bytes of every provider it issued and hands them
 * back with each invoke; it never parses them.  So the runner both writes
 * and reads this format, and reads it as it reads anything else that has
 * been outside its address space: the registry's copy may be damaged or,
 * if the monitor's memory were ever corrupted, chosen.  The threat is code
 * running that is not the code the allowlist pinned.  Decoding therefore
 * takes the exact shape or nothing (every length is explicit and checked
 * against what remains, no trailing bytes, the snapshot limits of
 * interop.md §P2), and the caller re-digests the decoded modules against
 * the issued code digest before a single byte reaches a sandbox.
 *
 * Layout, every integer a big-endian u32:
 *
 *	"sbxblob1" nmods entry_len entry { path_len path len bytes } x nmods
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "proto.h"
#include "provider.h"

struct wbuf {
	unsigned char	*p;
	size_t		 off;
};

static void
put_u32(struct wbuf *w, uint32_t v)
{
	w->p[w->off++] = (unsigned char)(v >> 24);
	w->p[w->off++] = (unsigned char)(v >> 16);
	w->p[w->off++] = (unsigned char)(v >> 8);
	w->p[w->off++] = (unsigned char)v;
}

static void
put_bytes(struct wbuf *w, const void *b, size_t len)
{
	put_u32(w, (uint32_t)len);
	if (len > 0)
		memcpy(w->p + w->off, b, len);
	w->off += len;
}

int
prov_blob_encode(const struct prov_snapshot *snap, unsigned char **out,
    size_t *outlen)
{
	struct wbuf	 w;
	size_t		 len, i;

	*out = NULL;
	*outlen = 0;
	if (snap->entry == NULL || snap->nmods == 0 ||
	    snap->nmods > PROV_MAX_FILES) {
		errno = EINVAL;
		return -1;
	}
	len = PROV_BLOB_MAGIC_LEN + 4 + 4 + strlen(snap->entry);
	for (i = 0; i < snap->nmods; i++)
		len += 4 + strlen(snap->mods[i].path) + 4 + snap->mods[i].len;
	if (len > PR_BLOB_MAX) {
		errno = EFBIG;
		return -1;
	}
	w.p = xmalloc(len);
	w.off = 0;
	memcpy(w.p, PROV_BLOB_MAGIC, PROV_BLOB_MAGIC_LEN);
	w.off = PROV_BLOB_MAGIC_LEN;
	put_u32(&w, (uint32_t)snap->nmods);
	put_bytes(&w, snap->entry, strlen(snap->entry));
	for (i = 0; i < snap->nmods; i++) {
		put_bytes(&w, snap->mods[i].path, strlen(snap->mods[i].path));
		put_bytes(&w, snap->mods[i].bytes, snap->mods[i].len);
	}
	*out = w.p;
	*outlen = w.off;
	return 0;
}

struct rbuf {
	const unsigned char	*p;
	size_t			 len;
	size_t			 off;
};

static int
get_u32(struct rbuf *r, uint32_t *v)
{
	if (r->len - r->off < 4)
		return -1;
	*v = (uint32_t)r->p[r->off] << 24 | (uint32_t)r->p[r->off + 1] << 16 |
	    (uint32_t)r->p[r->off + 2] << 8 | (uint32_t)r->p[r->off + 3];
	r->off += 4;
	return 0;
}

/* A length-prefixed field of at most max bytes: a pointer into r. */
static int
get_field(struct rbuf *r, size_t max, const unsigned char **b, size_t *len)
{
	uint32_t	 n;

	if (get_u32(r, &n) == -1 || n > max || n > r->len - r->off)
		return -1;
	*b = r->p + r->off;
	*len = n;
	r->off += n;
	return 0;
}

/* A bundle-relative path: 1..PROV_PATH_MAX bytes of UTF-8, no NUL. */
static char *
get_path(struct rbuf *r)
{
	const unsigned char	*b;
	char			*s;
	size_t			 len;

	if (get_field(r, PROV_PATH_MAX, &b, &len) == -1 || len == 0 ||
	    memchr(b, '\0', len) != NULL || utf8_check(b, len) != len)
		return NULL;
	s = xmalloc(len + 1);
	memcpy(s, b, len);
	s[len] = '\0';
	return s;
}

int
prov_blob_decode(const void *buf, size_t len, struct prov_snapshot *snap,
    struct prov_error *err)
{
	struct rbuf		 r;
	struct prov_module	*m;
	const unsigned char	*b;
	uint32_t		 nmods;
	size_t			 i, blen;
	int			 entry_found = 0;

	memset(snap, 0, sizeof(*snap));
	r.p = buf;
	r.len = len;
	r.off = 0;
	if (len > PR_BLOB_MAX)
		return prov_fail(err, PROV_ATTESTATION_MISMATCH, "snapshot "
		    "blob: %zu bytes, more than %d", len, PR_BLOB_MAX);
	if (len < PROV_BLOB_MAGIC_LEN ||
	    memcmp(buf, PROV_BLOB_MAGIC, PROV_BLOB_MAGIC_LEN) != 0)
		return prov_fail(err, PROV_ATTESTATION_MISMATCH,
		    "snapshot blob: not a snapshot (bad magic)");
	r.off = PROV_BLOB_MAGIC_LEN;
	if (get_u32(&r, &nmods) == -1 || nmods == 0 ||
	    nmods > PROV_MAX_FILES)
		return prov_fail(err, PROV_ATTESTATION_MISMATCH, "snapshot "
		    "blob: module count must be 1 to %d", PROV_MAX_FILES);
	if ((snap->entry = get_path(&r)) == NULL) {
		prov_fail(err, PROV_ATTESTATION_MISMATCH,
		    "snapshot blob: entry path is malformed");
		goto bad;
	}
	for (i = 0; i < nmods; i++) {
		m = &snap->mods[i];
		if ((m->path = get_path(&r)) == NULL) {
			prov_fail(err, PROV_ATTESTATION_MISMATCH, "snapshot "
			    "blob: module %zu: path is malformed", i);
			goto bad;
		}
		snap->nmods++;
		if (get_field(&r, PROV_MAX_FILE_BYTES, &b, &blen) == -1) {
			prov_fail(err, PROV_ATTESTATION_MISMATCH, "snapshot "
			    "blob: module %zu: length is out of range", i);
			goto bad;
		}
		if (blen > PROV_MAX_TOTAL_BYTES - snap->total) {
			prov_fail(err, PROV_ATTESTATION_MISMATCH, "snapshot "
			    "blob: modules exceed %d bytes in total",
			    PROV_MAX_TOTAL_BYTES);
			goto bad;
		}
		m->bytes = xmalloc(blen == 0 ? 1 : blen);
		memcpy(m->bytes, b, blen);
		m->len = blen;
		digest_sha256_hex(m->bytes, m->len, m->sha256);
		snap->total += blen;
		if (strcmp(m->path, snap->entry) == 0)
			entry_found = 1;
	}
	if (r.off != r.len) {
		prov_fail(err, PROV_ATTESTATION_MISMATCH, "snapshot blob: "
		    "%zu bytes after the last module", r.len - r.off);
		goto bad;
	}
	if (!entry_found) {
		prov_fail(err, PROV_ATTESTATION_MISMATCH,
		    "snapshot blob: the entry module is not among its modules");
		goto bad;
	}
	return 0;
 bad:
	prov_snapshot_free(snap);
	return -1;
}
