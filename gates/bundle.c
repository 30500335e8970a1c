/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * bundle.c: what a pack bundle's manifest.json says about its gate packs
 * (interop.md §G11.2), as the reference's discovery reads it: the gate-packs
 * directory (entry.gatePacks), the names that filter its files, and the
 * bundle id and type it claims.  Pure: the readers (provider-runner/
 * read.c, for the runner and sbxctl alike) open and read the files.
 *
 * Threat: the manifest is the agent's.  What it can say is bounded here:
 * a gate-packs directory that is a safe relative path (no "..", no
 * leading "/"), names that only filter what is there, and a claimed id
 * that the reader refuses when it names a bundle of the operator's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"
#include "gates.h"

/* JSON.parse of the manifest: the reference ignores one it cannot read. */
int
gates_manifest_parse(const void *buf, size_t len, struct json_value **out)
{
	struct json_error	 jerr;

	*out = NULL;
	if (len > GATES_MANIFEST_MAX || memchr(buf, '\0', len) != NULL)
		return -1;
	if (json_parse(buf, len, NULL, out, &jerr) == -1)
		return -1;
	if (!gt_is_obj(*out)) {
		json_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

static char *
str_or_null(const struct json_value *v)
{
	return gt_is_str(v) ? gt_cstr(v) : NULL;
}

/* The strings of an array (others dropped); NULL when v is no array. */
static char **
names_of(const struct json_value *v, size_t *n)
{
	char	**names;
	size_t	 i;

	*n = 0;
	if (v == NULL || v->type != JSON_ARRAY)
		return NULL;
	names = xcalloc(v->u.array.n + 1, sizeof(*names));
	for (i = 0; i < v->u.array.n; i++)
		if (gt_is_str(&v->u.array.v[i]))
			names[(*n)++] = gt_cstr(&v->u.array.v[i]);
	return names;
}

static void
set_names(struct gates_bundle_decl *d, char **names, size_t n)
{
	size_t	 i;

	for (i = 0; i < d->nnames; i++)
		free(d->names[i]);
	free(d->names);
	d->names = names;
	d->nnames = n;
}

/*
 * readBundleGatePacksDeclaration over a parsed manifest (NULL: none):
 * entry.gatePacks (or entry["gate-packs"]) names the directory, a
 * top-level gatePacks list the names, and the first of addonConfig,
 * extensionConfig and frameworkConfig with a list or an entry fills in
 * what the top level left out; a frameworkConfig list wins last.
 */
void
gates_bundle_declaration(const struct json_value *m,
    struct gates_bundle_decl *d)
{
	static const char *const keys[] = { "addonConfig", "extensionConfig",
	    "frameworkConfig" };
	const struct json_value	*entry, *cfg, *fw;
	char			**top, **names, *dir;
	size_t			 ntop, n, i;

	memset(d, 0, sizeof(*d));
	if (!gt_is_obj(m))
		return;
	entry = json_get(m, "entry");
	if ((dir = str_or_null(json_get(entry, "gatePacks"))) == NULL)
		dir = str_or_null(json_get(entry, "gate-packs"));
	top = names_of(json_get(m, "gatePacks"), &ntop);
	for (i = 0; i < nitems(keys); i++) {
		cfg = json_get(m, keys[i]);
		/* typeof config === 'object': arrays are objects too. */
		if (cfg == NULL || (cfg->type != JSON_OBJECT &&
		    cfg->type != JSON_ARRAY))
			continue;
		if (top == NULL && (names = names_of(json_get(cfg,
		    "gatePacks"), &n)) != NULL) {
			d->dir = dir;
			set_names(d, names, n);
			d->has_names = 1;
			return;
		}
		if (dir == NULL && gt_is_str(json_get(json_get(cfg, "entry"),
		    "gatePacks"))) {
			d->dir = gt_cstr(json_get(json_get(cfg, "entry"),
			    "gatePacks"));
			if (top != NULL) {
				set_names(d, top, ntop);
				d->has_names = 1;
			}
			return;
		}
	}
	fw = json_get(m, "frameworkConfig");
	if (fw != NULL && (fw->type == JSON_OBJECT || fw->type == JSON_ARRAY) &&
	    (names = names_of(json_get(fw, "gatePacks"), &n)) != NULL) {
		if (gt_is_str(json_get(json_get(fw, "entry"), "gatePacks"))) {
			free(dir);
			dir = gt_cstr(json_get(json_get(fw, "entry"),
			    "gatePacks"));
		}
		d->dir = dir;
		set_names(d, names, n);
		d->has_names = 1;
		for (i = 0; i < ntop; i++)
			free(top[i]);
		free(top);
		return;
	}
	d->dir = dir;
	if (top != NULL) {
		set_names(d, top, ntop);
		d->has_names = 1;
	}
}

void
gates_bundle_decl_free(struct gates_bundle_decl *d)
{
	set_names(d, NULL, 0);
	free(d->dir);
	memset(d, 0, sizeof(*d));
}

int
gates_bundle_wants(const struct gates_bundle_decl *d, const char *shortname)
{
	size_t	 i;

	if (!d->has_names)
		return 1;
	for (i = 0; i < d->nnames; i++)
		if (strcmp(d->names[i], shortname) == 0)
			return 1;
	return 0;
}

/* /^[a-zA-Z0-9_-]+(?:\/[a-zA-Z0-9_-]+)*\/?$/ */
int
gates_packs_dir_ok(const char *s)
{
	size_t	 seg = 0, nseg = 0;

	for (; *s != '\0'; s++) {
		if (*s == '/') {
			/* No empty segment: no leading or double "/". */
			if (seg == 0)
				return 0;
			seg = 0;
			nseg++;
			continue;
		}
		if (!(*s == '_' || *s == '-' || (*s >= '0' && *s <= '9') ||
		    (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			return 0;
		seg++;
	}
	/* Ends in a segment, or in one "/" after one. */
	return seg > 0 || nseg > 0;
}

/* The file name without .gatepack.(yaml|yml|json), case-blind, in buf. */
const char *
gates_pack_short(const char *file, char *buf, size_t len)
{
	static const char *const suffixes[] = { ".gatepack.yaml",
	    ".gatepack.yml", ".gatepack.json" };
	size_t	 n = strlen(file), m, i;

	strlcpy(buf, file, len);
	for (i = 0; i < nitems(suffixes); i++) {
		m = strlen(suffixes[i]);
		if (n >= m && strcasecmp(file + n - m, suffixes[i]) == 0) {
			if (n - m < len)
				buf[n - m] = '\0';
			break;
		}
	}
	return buf;
}

/*
 * originForPackDir's claim: {id, type} with a non-blank string id and a
 * type framework, addon or extension.  The id (malloc'd) or NULL.
 */
char *
gates_bundle_claim(const struct json_value *m)
{
	const struct json_value	*type = json_get(m, "type");
	char			*id;
	size_t			 i;

	if (!gt_str_is(type, "framework") && !gt_str_is(type, "addon") &&
	    !gt_str_is(type, "extension"))
		return NULL;
	if ((id = str_or_null(json_get(m, "id"))) == NULL)
		return NULL;
	/* String.prototype.trim() !== '': ASCII white space suffices for a
	 * bundle id, which names a directory. */
	for (i = 0; id[i] != '\0'; i++)
		if (strchr(" \t\n\v\f\r", id[i]) == NULL)
			return id;
	free(id);
	return NULL;
}

/*
 * node's message for a failed file system call, which the reference
 * prints: "ENOENT: no such file or directory, open '<path>'".
 */
void
gates_io_error(struct gates_error *err, int e, const char *syscall,
    const char *path)
{
	const char	*code, *what;

	switch (e) {
	case ENOENT:
		code = "ENOENT";
		what = "no such file or directory";
		break;
	case EACCES:
		code = "EACCES";
		what = "permission denied";
		break;
	case EISDIR:
		code = "EISDIR";
		what = "illegal operation on a directory";
		break;
	case ELOOP:
		code = "ELOOP";
		what = "too many symbolic links encountered";
		break;
	case ENOTDIR:
		code = "ENOTDIR";
		what = "not a directory";
		break;
	default:
		code = "EIO";
		what = strerror(e);
		break;
	}
	gates_fail(err, GATES_E_INPUT, "%s: %s, %s '%s'", code, what, syscall,
	    path);
}
