/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * registry.c: pack ids, namespaces and registration (interop.md §G2.3,
 * §G2.4).  The registry is a plain value the caller owns; registration
 * runs the reference's checks in its order, so the first refusal is the
 * one the reference would report.
 *
 * Threat: a project pack (an agent's --pack-dir) posing as an operator
 * or shipped pack.  Namespaces tie a pack to where it came from, and an
 * aiwg: rest path may not exist in any other namespace, so a project
 * pack can never shadow a shipped one whatever the registration order.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates.h"

static const char *const namespaces[] = {
	"aiwg", "framework", "addon", "extension", "project"
};

void
gates_registry_init(struct gates_registry *reg)
{
	memset(reg, 0, sizeof(*reg));
}

void
gates_registry_free(struct gates_registry *reg)
{
	size_t	 i;

	for (i = 0; i < reg->npacks; i++) {
		free(reg->packs[i].id);
		json_free(reg->packs[i].authored);
		json_free(reg->packs[i].composed);
	}
	free(reg->packs);
	memset(reg, 0, sizeof(*reg));
}

const struct gates_provider *
gates_registry_provider(const struct gates_registry *reg, const char *id)
{
	size_t	 i;

	for (i = 0; i < reg->nproviders; i++)
		if (strcmp(reg->providers[i].id, id) == 0)
			return &reg->providers[i];
	for (i = 0; i < reg->nextra; i++)
		if (strcmp(reg->extra[i].id, id) == 0)
			return &reg->extra[i];
	return NULL;
}

/* JavaScript's \s: the whitespace a regular expression's \s matches. */
static int
has_js_space(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;

	for (; *p != '\0'; p++) {
		if (*p == ' ' || (*p >= 0x09 && *p <= 0x0d))
			return 1;
		/* U+00A0, U+1680, U+2000-200A, U+2028/9, U+202F, U+205F,
		 * U+3000, U+FEFF in UTF-8. */
		if (p[0] == 0xc2 && p[1] == 0xa0)
			return 1;
		if (p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80)
			return 1;
		if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] <= 0x8a ||
		    p[2] == 0xa8 || p[2] == 0xa9 || p[2] == 0xaf))
			return 1;
		if (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f)
			return 1;
		if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80)
			return 1;
		if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
			return 1;
	}
	return 0;
}

int
gates_split_pack_id(const char *id, char ns[GATES_NS_MAX], char **restp,
    struct gates_error *err)
{
	const char	*colon, *rest, *slash;
	size_t		 i, nslen;
	int		 known = 0;

	if (restp != NULL)
		*restp = NULL;
	colon = strchr(id, ':');
	nslen = colon != NULL ? (size_t)(colon - id) : 0;
	for (i = 0; colon != NULL && i < nitems(namespaces); i++)
		if (strlen(namespaces[i]) == nslen &&
		    strncmp(namespaces[i], id, nslen) == 0)
			known = 1;
	rest = colon != NULL ? colon + 1 : "";
	if (!known || *rest == '\0' || has_js_space(rest))
		return gates_fail(err, GATES_E_REGISTRY, "pack id must be "
		    "<namespace>:<path> with namespace aiwg/framework/addon/"
		    "extension/project: '%s'", id);
	if (nslen == 7 && strncmp(id, "project", 7) == 0) {
		if (strchr(rest, ':') != NULL || strchr(rest, '/') != NULL)
			return gates_fail(err, GATES_E_REGISTRY, "project pack "
			    "ids are project:<name>: '%s'", id);
	} else {
		slash = strchr(rest, '/');
		if (slash == NULL || slash == rest || slash[1] == '\0' ||
		    strchr(slash + 1, '/') != NULL || strchr(rest, ':') != NULL)
			return gates_fail(err, GATES_E_REGISTRY, "pack id must "
			    "be %.*s:<bundle>/<name>: '%s'", (int)nslen, id, id);
	}
	memcpy(ns, id, nslen);
	ns[nslen] = '\0';
	if (restp != NULL)
		*restp = xstrdup(rest);
	return 0;
}

const struct gates_pack *
gates_registry_find(const struct gates_registry *reg, const char *id)
{
	size_t	 i;

	for (i = 0; i < reg->npacks; i++)
		if (strcmp(reg->packs[i].id, id) == 0)
			return &reg->packs[i];
	return NULL;
}

static const char *
rest_of(const char *id)
{
	const char	*c = strchr(id, ':');

	return c != NULL ? c + 1 : id;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const struct gates_pack *
gates_registry_lookup(const struct gates_registry *reg, const char *id,
    struct gates_error *err)
{
	const struct gates_pack	*p, *found = NULL;
	const char		**ids;
	char			 list[GATES_ERRMSG_MAX / 2] = "";
	size_t			 i, n = 0;

	if (strchr(id, ':') != NULL) {
		if ((p = gates_registry_find(reg, id)) == NULL)
			gates_fail(err, GATES_E_REGISTRY,
			    "unknown gate pack: %s", id);
		return p;
	}
	ids = xcalloc(reg->npacks + 1, sizeof(*ids));
	for (i = 0; i < reg->npacks; i++)
		if (strcmp(rest_of(reg->packs[i].id), id) == 0) {
			ids[n++] = reg->packs[i].id;
			found = &reg->packs[i];
		}
	if (n == 1) {
		free(ids);
		return found;
	}
	if (n == 0) {
		free(ids);
		gates_fail(err, GATES_E_REGISTRY, "unknown gate pack: %s", id);
		return NULL;
	}
	qsort(ids, n, sizeof(*ids), cmp_str);
	for (i = 0; i < n; i++) {
		if (i > 0)
			strlcat(list, ", ", sizeof(list));
		strlcat(list, ids[i], sizeof(list));
	}
	free(ids);
	gates_fail(err, GATES_E_REGISTRY, "ambiguous gate pack '%s': %s (pin "
	    "the full id)", id, list);
	return NULL;
}

int
gates_register_pack(struct gates_registry *reg, struct json_value *doc,
    const char *ns, const char *bundle, struct gates_error *err)
{
	const struct json_value	*ext;
	const struct gates_pack	*parent;
	struct gates_pack	 p;
	char			 pns[GATES_NS_MAX], *rest = NULL, *pid = NULL;
	char			*pver = NULL, *pdig = NULL;
	size_t			 i, blen;
	int			 r = -1;

	memset(&p, 0, sizeof(p));
	if (gates_validate_document(doc, err) == -1)
		return -1;
	if (!gt_str_is(json_get(doc, "kind"), "GatePack"))
		return gates_fail(err, GATES_E_REGISTRY,
		    "registerPack requires a GatePack document");
	p.id = gt_cstr(json_get(json_get(doc, "metadata"), "id"));
	if (gates_split_pack_id(p.id, pns, &rest, err) == -1)
		goto out;
	if (strcmp(pns, ns) != 0) {
		gates_fail(err, GATES_E_REGISTRY, "pack %s namespace does not "
		    "match contribution origin %s", p.id, ns);
		goto out;
	}
	if (strcmp(ns, "project") != 0) {
		if (bundle == NULL || *bundle == '\0') {
			gates_fail(err, GATES_E_REGISTRY, "bundle origin is "
			    "required outside project:");
			goto out;
		}
		blen = strlen(bundle);
		if (strncmp(rest, bundle, blen) != 0 ||
		    rest[blen] != '/') {
			gates_fail(err, GATES_E_REGISTRY, "pack %s does not "
			    "belong to bundle %s", p.id, bundle);
			goto out;
		}
	}
	if (gates_registry_find(reg, p.id) != NULL) {
		gates_fail(err, GATES_E_REGISTRY, "duplicate gate pack: %s",
		    p.id);
		goto out;
	}
	/* A shipped rest path is owned by aiwg: in every namespace. */
	for (i = 0; i < reg->npacks; i++) {
		if (strcmp(rest_of(reg->packs[i].id), rest) != 0)
			continue;
		if (strcmp(ns, "aiwg") == 0 ||
		    strcmp(reg->packs[i].ns, "aiwg") == 0) {
			/* Name the non-shipped one as the shadow. */
			if (strcmp(ns, "aiwg") == 0)
				gates_fail(err, GATES_E_REGISTRY, "pack %s "
				    "shadows shipped pack %s", reg->packs[i].id,
				    p.id);
			else
				gates_fail(err, GATES_E_REGISTRY, "pack %s "
				    "shadows shipped pack %s", p.id,
				    reg->packs[i].id);
			goto out;
		}
	}
	ext = json_get(json_get(doc, "spec"), "extends");
	if (ext != NULL) {
		pid = gt_cstr(json_get(ext, "id"));
		pver = gt_cstr(json_get(ext, "version"));
		pdig = gt_cstr(json_get(ext, "digest"));
		if ((parent = gates_registry_find(reg, pid)) == NULL) {
			gates_fail(err, GATES_E_REGISTRY, "pack %s extends "
			    "unknown pack %s", p.id, pid);
			goto out;
		}
		if (!gt_str_is(json_get(json_get(parent->authored, "metadata"),
		    "version"), pver) || strcmp(parent->digest, pdig) != 0) {
			gates_fail(err, GATES_E_REGISTRY, "pack %s parent pin "
			    "mismatch for %s@%s", p.id, pid, pver);
			goto out;
		}
	}
	if (gates_compose(reg, doc, &p.composed, err) == -1)
		goto out;
	if (gates_validate_pack(p.composed, reg, err) == -1)
		goto out;
	if (gates_digest(doc, p.digest, err) == -1 ||
	    gates_digest(p.composed, p.resolved_digest, err) == -1)
		goto out;
	strlcpy(p.ns, ns, sizeof(p.ns));
	p.authored = doc;
	reg->packs = xreallocarray(reg->packs, reg->npacks + 1,
	    sizeof(*reg->packs));
	reg->packs[reg->npacks++] = p;
	memset(&p, 0, sizeof(p));
	r = 0;
 out:
	free(p.id);
	json_free(p.composed);
	free(rest);
	free(pid);
	free(pver);
	free(pdig);
	return r;
}
