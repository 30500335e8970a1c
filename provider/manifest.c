/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * manifest.c: the gateProviders declaration of a bundle's manifest.json
 * (interop.md §P1).
 *
 * The manifest is bundle data, so hostile: it is read beneath the
 * bundle's directory fd with a 64 KiB cap and parsed by common/json.c
 * with tight limits.  Each entry is checked as the reference's strict
 * schema checks it -- unknown keys refuse, every field has its shape, and
 * exactly one of an inline review or a review file -- so that a manifest
 * sbx accepts is one the reference accepts, and nothing a schema did not
 * name (a key the runtime might one day read) slips through unreviewed.
 * Of the top level only "id" (the bundle id the allowlist is keyed on)
 * and "gateProviders" are sbx's business; the bundle's other keys belong
 * to the tool that installs it and are not interpreted here.
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

#define MANIFEST_MAX_DEPTH	32
#define MANIFEST_MAX_NODES	16384

static const char *const entry_keys[] = {
	"id", "version", "module", "description", "review", "reviewFile"
};

/* ^[a-z0-9]([a-z0-9-]*[a-z0-9])?$ */
static int
bundle_id_ok(const char *s)
{
	size_t	 i, n = strlen(s);

	if (n == 0 || n > PROV_BUNDLE_ID_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return s[0] != '-' && s[n - 1] != '-';
}

/* ^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+$ */
static int
provider_id_ok(const char *s)
{
	size_t	 i, left = 0, right = 0, slashes = 0;

	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] == '/')
			slashes++;
		else if ((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '.' || s[i] == '_' || s[i] == '-')
			*(slashes == 0 ? &left : &right) += 1;
		else
			return 0;
	}
	return slashes == 1 && left > 0 && right > 0;
}

/* ^\d+\.\d+\.\d+ (a prefix: anything may follow). */
static int
version_ok(const char *s)
{
	int	 part;
	size_t	 n;

	for (part = 0; part < 3; part++) {
		for (n = 0; s[n] >= '0' && s[n] <= '9'; n++)
			;
		if (n == 0)
			return 0;
		s += n;
		if (part < 2) {
			if (*s != '.')
				return 0;
			s++;
		}
	}
	return 1;
}

/* A required string field of min..max UTF-16 units into dst. */
static int
get_string(const struct json_value *obj, const char *where,
    const char *field, size_t min, size_t max, char *dst, size_t dstsz,
    struct prov_error *err)
{
	const struct json_value	*v;
	const char		*why;

	if ((v = json_get(obj, field)) == NULL)
		return prov_fail(err, PROV_INVALID_MODULE,
		    "%s.%s: required", where, field);
	if (v->type != JSON_STRING)
		return prov_fail(err, PROV_INVALID_MODULE,
		    "%s.%s: must be a string", where, field);
	if (v->u.string.len < min)
		return prov_fail(err, PROV_INVALID_MODULE,
		    "%s.%s: must not be empty", where, field);
	if (prov_json_cstr(&v->u.string, max, dst, dstsz, &why) == -1) {
		if (v->u.string.len > max)
			return prov_fail(err, PROV_INVALID_MODULE,
			    "%s.%s: longer than %zu characters", where, field,
			    max);
		return prov_fail(err, PROV_INVALID_MODULE, "%s.%s: %s",
		    where, field, why);
	}
	return 0;
}

static int
parse_entry(const struct json_value *v, size_t idx, struct prov_entry *e,
    struct prov_error *err)
{
	const struct json_value	*review, *file;
	char			 where[48], q[PROV_QUOTE_MAX];
	size_t			 i, k;

	snprintf(where, sizeof(where), "gateProviders[%zu]", idx);
	if (v->type != JSON_OBJECT)
		return prov_fail(err, PROV_INVALID_MODULE,
		    "%s: must be an object", where);
	for (i = 0; i < v->u.object.n; i++) {
		for (k = 0; k < nitems(entry_keys); k++)
			if (json_key_is(&v->u.object.m[i].key,
			    entry_keys[k]))
				break;
		if (k == nitems(entry_keys)) {
			prov_json_key_quote(q, &v->u.object.m[i].key);
			return prov_fail(err, PROV_INVALID_MODULE,
			    "%s.%s: unknown field", where, q);
		}
	}
	if (get_string(v, where, "id", 1, PROV_ID_MAX, e->id, sizeof(e->id),
	    err) == -1)
		return -1;
	if (!provider_id_ok(e->id))
		return prov_fail(err, PROV_INVALID_MODULE, "%s.id: must be "
		    "<scope>/<name> (^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+$)",
		    where);
	if (get_string(v, where, "version", 1, PROV_VERSION_MAX, e->version,
	    sizeof(e->version), err) == -1)
		return -1;
	if (!version_ok(e->version))
		return prov_fail(err, PROV_INVALID_MODULE, "%s.version: must "
		    "start with MAJOR.MINOR.PATCH (^\\d+\\.\\d+\\.\\d+)",
		    where);
	if (get_string(v, where, "module", 1, PROV_PATH_MAX, e->module,
	    sizeof(e->module), err) == -1)
		return -1;
	if (!prov_path_module_ok(e->module, strlen(e->module)))
		return prov_fail(err, PROV_INVALID_MODULE, "%s.module: must be "
		    "a bundle-relative .mjs path "
		    "(^[a-zA-Z0-9_-]+(/[a-zA-Z0-9_-]+)*\\.mjs$)", where);
	if (get_string(v, where, "description", 1, PROV_DESC_MAX,
	    e->description, sizeof(e->description), err) == -1)
		return -1;

	review = json_get(v, "review");
	file = json_get(v, "reviewFile");
	if ((review == NULL) == (file == NULL))
		return prov_fail(err, PROV_INVALID_MODULE, "%s: exactly one of "
		    "review or reviewFile is required", where);
	if (review != NULL) {
		char	 rwhere[64];

		snprintf(rwhere, sizeof(rwhere), "%s.review", where);
		e->has_review = 1;
		return prov_review_parse(review, rwhere, PROV_INVALID_MODULE,
		    &e->review, err);
	}
	if (get_string(v, where, "reviewFile", 1, PROV_PATH_MAX,
	    e->review_file, sizeof(e->review_file), err) == -1)
		return -1;
	if (!prov_path_review_ok(e->review_file, strlen(e->review_file)))
		return prov_fail(err, PROV_INVALID_MODULE, "%s.reviewFile: "
		    "must be a bundle-relative .json path "
		    "(^[a-zA-Z0-9_-]+(/[a-zA-Z0-9_-]+)*\\.json$)", where);
	return 0;
}

int
prov_manifest_parse(const void *buf, size_t len, struct prov_manifest *m,
    struct prov_error *err)
{
	struct json_limits	 lim;
	struct json_error	 jerr;
	struct json_value	*root = NULL;
	const struct json_value	*v, *gp;
	const char		*why;
	size_t			 i, j;
	int			 r = -1;

	memset(m, 0, sizeof(*m));
	if (len > PROV_MANIFEST_MAX)
		return prov_fail(err, PROV_OVERSIZE, "%s: more than %d bytes",
		    PROV_MANIFEST_NAME, PROV_MANIFEST_MAX);
	memset(&lim, 0, sizeof(lim));
	lim.max_bytes = PROV_MANIFEST_MAX;
	lim.max_depth = MANIFEST_MAX_DEPTH;
	lim.max_nodes = MANIFEST_MAX_NODES;
	if (json_parse(buf, len, &lim, &root, &jerr) == -1)
		return prov_fail(err, PROV_INVALID_MODULE, "%s: %s",
		    PROV_MANIFEST_NAME, jerr.msg);
	if (root->type != JSON_OBJECT) {
		prov_fail(err, PROV_INVALID_MODULE, "%s: must be an object",
		    PROV_MANIFEST_NAME);
		goto out;
	}
	if ((v = json_get(root, "id")) == NULL) {
		prov_fail(err, PROV_INVALID_MODULE, "%s: id: required",
		    PROV_MANIFEST_NAME);
		goto out;
	}
	if (v->type != JSON_STRING || prov_json_cstr(&v->u.string,
	    PROV_BUNDLE_ID_MAX, m->bundle_id, sizeof(m->bundle_id),
	    &why) == -1 || !bundle_id_ok(m->bundle_id)) {
		prov_fail(err, PROV_INVALID_MODULE, "%s: id: must be a bundle "
		    "id of 1 to %d characters "
		    "(^[a-z0-9]([a-z0-9-]*[a-z0-9])?$)", PROV_MANIFEST_NAME,
		    PROV_BUNDLE_ID_MAX);
		goto out;
	}
	if ((gp = json_get(root, "gateProviders")) == NULL) {
		r = 0;
		goto out;
	}
	if (gp->type != JSON_ARRAY) {
		prov_fail(err, PROV_INVALID_MODULE, "%s: gateProviders: must "
		    "be an array", PROV_MANIFEST_NAME);
		goto out;
	}
	if (gp->u.array.n > PROV_MAX_PROVIDERS) {
		prov_fail(err, PROV_INVALID_MODULE, "%s: gateProviders: at "
		    "most %d entries", PROV_MANIFEST_NAME, PROV_MAX_PROVIDERS);
		goto out;
	}
	for (i = 0; i < gp->u.array.n; i++) {
		if (parse_entry(&gp->u.array.v[i], i, &m->entries[i],
		    err) == -1) {
			/* Name the file before the entry and field. */
			prov_prefix(err, "%s", PROV_MANIFEST_NAME);
			goto out;
		}
		m->nentries++;
		for (j = 0; j < i; j++) {
			if (strcmp(m->entries[j].id, m->entries[i].id) == 0) {
				prov_fail(err, PROV_DUPLICATE, "%s: "
				    "gateProviders[%zu].id: provider id \"%s\" "
				    "is declared twice "
				    "(also gateProviders[%zu])",
				    PROV_MANIFEST_NAME, i, m->entries[i].id, j);
				goto out;
			}
			if (strcmp(m->entries[j].module,
			    m->entries[i].module) == 0) {
				prov_fail(err, PROV_INVALID_MODULE, "%s: "
				    "gateProviders[%zu].module: module \"%s\" "
				    "is declared twice "
				    "(also gateProviders[%zu])",
				    PROV_MANIFEST_NAME, i, m->entries[i].module,
				    j);
				goto out;
			}
		}
	}
	r = 0;
 out:
	json_free(root);
	if (r == -1)
		memset(m, 0, sizeof(*m));
	return r;
}

int
prov_manifest_load(int rootfd, struct prov_manifest *m,
    struct prov_error *err)
{
	struct stat	 st;
	unsigned char	*buf;
	size_t		 len;
	int		 fd, r, saved;

	memset(m, 0, sizeof(*m));
	if ((fd = open_beneath(rootfd, PROV_MANIFEST_NAME,
	    O_RDONLY | O_NOFOLLOW | O_NONBLOCK)) == -1)
		return prov_fail(err, errno == ELOOP || errno == EXDEV ?
		    PROV_PATH_ESCAPE : PROV_INVALID_MODULE,
		    "%s: cannot be opened: %s", PROV_MANIFEST_NAME,
		    strerror(errno));
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return prov_fail(err, PROV_INVALID_MODULE,
		    "%s: not a regular file", PROV_MANIFEST_NAME);
	}
	if (read_bounded(fd, PROV_MANIFEST_MAX, &buf, &len) == -1) {
		saved = errno;
		close(fd);
		return prov_fail(err, PROV_INVALID_MODULE,
		    "%s: cannot be read: %s", PROV_MANIFEST_NAME,
		    strerror(saved));
	}
	close(fd);
	r = prov_manifest_parse(buf, len, m, err);
	free(buf);
	return r;
}
