/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * read.c: the gate documents of an evaluation, from descriptors: the
 * binding, metrics, holdout and upstream files, the operator's gate-packs
 * directory, the agent's --pack-dir packs (a pack file, or a bundle
 * directory with its manifest.json, interop.md §G11.2), and the floors
 * from the gates configuration.  The runner reads what the monitor
 * relayed; sbxctl's offline validate, list and show call the same
 * functions over descriptors it opened, so both see the same packs by the
 * same rules.  Opening is only ever beneath a directory descriptor, with
 * openat2 refusing "..", absolute paths and symbolic links: this role
 * has an empty root and opens nothing by path (provider-runner.priv).
 *
 * Trust: the operator's packs register in the aiwg: namespace beside the
 * shipped ones, an agent's packs only as project: packs (a manifest
 * claiming an operator's bundle id refuses), and floors come only from
 * the operator's file.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "beneath.h"
#include "provider/provider.h"
#include "gates.h"

#define GREAD_NAMES_MAX	1024	/* entries looked at per directory */

static int
io_fail(struct gates_error *err, int e, const char *name)
{
	return gates_fail(err, GATES_E_INPUT, "%s: %s", name, strerror(e));
}

/* A regular file's bytes, at most cap + 1 (the cap's refusal is the
 * parser's).  The descriptor is closed. */
static int
read_regular(int fd, const char *name, size_t cap, unsigned char **buf,
    size_t *len, struct gates_error *err)
{
	struct stat	 st;
	int		 e;

	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		/* node's readFile of a directory (which names no path). */
		close(fd);
		return gates_fail(err, GATES_E_INPUT, "EISDIR: illegal "
		    "operation on a directory, read");
	}
	/* Threat: a FIFO or device the agent holds would stall the role. */
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return gates_fail(err, GATES_E_INPUT, "%s: not a regular file",
		    name);
	}
	if (read_bounded(fd, cap, buf, len) == -1) {
		e = errno;
		close(fd);
		return io_fail(err, e, name);
	}
	close(fd);
	return 0;
}

int
gread_doc(int fd, const char *name, struct json_value **out,
    struct gates_error *err)
{
	unsigned char	*buf;
	size_t		 len;
	int		 r;

	*out = NULL;
	if (read_regular(fd, name, GATES_DOC_MAX, &buf, &len, err) == -1)
		return -1;
	r = gates_doc_parse(buf, len, gates_path_is_json(name), out, err);
	free(buf);
	return r;
}

int
gread_report(int fd, const char *name, struct json_value **out,
    struct gates_error *err)
{
	unsigned char	*buf;
	size_t		 len;
	int		 r;

	*out = NULL;
	if (read_regular(fd, name, GATES_REPORT_TEXT_MAX, &buf, &len,
	    err) == -1)
		return -1;
	r = gates_report_parse(buf, len, gates_path_is_json(name), out, err);
	free(buf);
	return r;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The sorted names in a directory (consumed: closed) that keep() accepts,
 * NULL-terminated; NULL on failure.  keep sees the directory descriptor.
 */
static char **
list_dir(int dfd, const char *name, int (*keep)(int, const char *),
    struct gates_error *err)
{
	DIR		*d;
	struct dirent	*de;
	char		**v = NULL;
	size_t		 n = 0;

	if ((d = fdopendir(dfd)) == NULL) {
		io_fail(err, errno, name);
		close(dfd);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || !keep(dirfd(d), de->d_name))
			continue;
		if (n == GREAD_NAMES_MAX) {
			gates_fail(err, GATES_E_INPUT, "%s: more than %d "
			    "entries", name, GREAD_NAMES_MAX);
			break;
		}
		v = xreallocarray(v, n + 2, sizeof(*v));
		v[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	v = xreallocarray(v, n + 1, sizeof(*v));
	v[n] = NULL;
	if (n == GREAD_NAMES_MAX) {
		for (n = 0; v[n] != NULL; n++)
			free(v[n]);
		free(v);
		return NULL;
	}
	qsort(v, n, sizeof(*v), cmp_names);
	return v;
}

static void
free_list(char **v)
{
	size_t	 i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

static int
keep_pack(int dfd, const char *name)
{
	(void)dfd;
	return gates_path_is_pack(name);
}

static int
keep_dir(int dfd, const char *name)
{
	struct stat	 st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode);
}

/*
 * A pack file's bytes as a gate document: parsed ("unparseable"), then
 * schema-checked and of kind GatePack ("invalid"), as loadGatePackFile.
 * The descriptor is closed.
 */
static int
load_pack_fd(int fd, const char *label, struct json_value **doc,
    struct gates_error *err)
{
	unsigned char	*buf;
	char		*k;
	size_t		 len;
	int		 r;

	*doc = NULL;
	if (read_regular(fd, label, GATES_DOC_MAX, &buf, &len, err) == -1) {
		gates_prefix(err, "gate pack unreadable: %s: ", label);
		return -1;
	}
	r = gates_doc_parse(buf, len, gates_path_is_json(label), doc, err);
	free(buf);
	if (r == -1) {
		gates_prefix(err, "gate pack unparseable: %s: ", label);
		return -1;
	}
	if (gates_validate_document(*doc, err) == -1)
		r = -1;
	else if (!gt_str_is(json_get(*doc, "kind"), "GatePack")) {
		k = gt_cstr(json_get(*doc, "kind"));
		gates_fail(err, GATES_E_SCHEMA, "expected kind GatePack, got "
		    "'%s'", k != NULL ? k : "undefined");
		free(k);
		r = -1;
	}
	if (r == -1) {
		json_free(*doc);
		*doc = NULL;
		gates_prefix(err, "gate pack invalid: %s: ", label);
	}
	return r;
}

/* The checks made of a pack file before reading (lstat, as listed). */
static int
check_pack_stat(int ok, const struct stat *st, int e, const char *label,
    struct gates_error *err)
{
	if (!ok) {
		gates_io_error(err, e, "lstat", label);
		gates_prefix(err, "gate pack unreadable: %s: ", label);
		return -1;
	}
	if (S_ISLNK(st->st_mode))
		return gates_fail(err, GATES_E_INPUT, "gate pack must not be a "
		    "symlink: %s", label);
	if (!S_ISREG(st->st_mode))
		return gates_fail(err, GATES_E_INPUT, "gate pack is not a "
		    "regular file: %s", label);
	if (st->st_size > GATES_DOC_MAX)
		return gates_fail(err, GATES_E_INPUT, "gate pack exceeds 256 "
		    "KiB before reading: %s", label);
	return 0;
}

/*
 * The manifest beneath a bundle (interop.md §G11.2): none, or unreadable,
 * or over its cap, or not a JSON object, is no manifest, as in the
 * reference; a symbolic link is refused, since beneath a descriptor it
 * cannot be followed.
 */
static int
read_manifest(int bfd, const char *blabel, struct json_value **m,
    struct gates_error *err)
{
	struct stat	 st;
	unsigned char	*buf;
	size_t		 len;
	int		 fd, r;

	*m = NULL;
	if ((fd = open_beneath(bfd, "manifest.json", O_RDONLY)) == -1) {
		if (errno == ELOOP)
			return gates_fail(err, GATES_E_INPUT, "bundle manifest "
			    "must not be a symlink: %s", blabel);
		return 0;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > GATES_MANIFEST_MAX) {
		close(fd);
		return 0;
	}
	r = read_bounded(fd, GATES_MANIFEST_MAX, &buf, &len);
	close(fd);
	if (r == -1)
		return 0;
	(void)gates_manifest_parse(buf, len, m);
	free(buf);
	return 0;
}

/* "dir/" as path.resolve leaves it: without the trailing "/". */
static char *
join_label(const char *a, const char *b)
{
	char	*s;
	size_t	 n;

	xasprintf(&s, "%s/%s", a, b);
	n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
	return s;
}

/*
 * registerBundleGatePacks: the packs of one bundle directory (bfd, kept
 * open) in its declared gate-packs directory, all checked before any is
 * read, then those the manifest names loaded and registered; a name the
 * manifest declares with no file refuses.
 */
static int
load_bundle(struct gates_registry *reg, int bfd, const char *blabel,
    const char *ns, const char *bundle, struct gates_error *err)
{
	struct gates_bundle_decl	 decl;
	struct json_value		*m = NULL, *doc;
	struct stat			 st;
	const char			*sub;
	char				**files = NULL, *dlabel, *label;
	char				 shortname[256];
	size_t				 i, k;
	int				 r = -1, sfd, lfd, ok, e;

	if (read_manifest(bfd, blabel, &m, err) == -1)
		return -1;
	gates_bundle_declaration(m, &decl);
	json_free(m);
	sub = decl.dir != NULL ? decl.dir : GATES_PACKS_DIR;
	dlabel = join_label(blabel, sub);
	if (gates_packs_dir_ok(sub) && fstatat(bfd, sub, &st,
	    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
		gates_fail(err, GATES_E_INPUT, "bundle gate-packs dir must not "
		    "be a symlink: %s", blabel);
		goto out;
	}
	if (!gates_packs_dir_ok(sub)) {
		gates_fail(err, GATES_E_INPUT, "gatePacks dir '%s' must be a "
		    "relative path inside the bundle (alphanumeric + _-, no "
		    "leading slash, no ..): %s", sub, blabel);
		goto out;
	}
	/* A missing directory has no packs (readdir failing, there). */
	if ((sfd = open_beneath(bfd, sub, O_RDONLY | O_DIRECTORY)) ==
	    -1) {
		if (errno == ELOOP) {
			gates_fail(err, GATES_E_INPUT, "gatePacks dir '%s' "
			    "escapes its bundle: %s", sub, blabel);
			goto out;
		}
		files = xcalloc(1, sizeof(*files));
	} else {
		if ((lfd = open_beneath(sfd, ".", O_RDONLY |
		    O_DIRECTORY)) == -1 || (files = list_dir(lfd, dlabel,
		    keep_pack, err)) == NULL) {
			if (lfd == -1)
				io_fail(err, errno, dlabel);
			close(sfd);
			goto out;
		}
		/* listGatePackFiles: every file passes before any is read. */
		for (i = 0; files[i] != NULL; i++) {
			ok = fstatat(sfd, files[i], &st,
			    AT_SYMLINK_NOFOLLOW) == 0;
			e = errno;
			label = join_label(dlabel, files[i]);
			k = check_pack_stat(ok, &st, e, label, err);
			free(label);
			if (k != 0) {
				close(sfd);
				goto out;
			}
		}
		for (i = 0; files[i] != NULL; i++) {
			gates_pack_short(files[i], shortname,
			    sizeof(shortname));
			if (!gates_bundle_wants(&decl, shortname))
				continue;
			label = join_label(dlabel, files[i]);
			if ((lfd = open_beneath(sfd, files[i],
			    O_RDONLY)) == -1) {
				if (errno == ELOOP)
					gates_fail(err, GATES_E_INPUT, "gate "
					    "pack must not be a symlink: %s",
					    label);
				else
					io_fail(err, errno, label);
				free(label);
				close(sfd);
				goto out;
			}
			if (load_pack_fd(lfd, label, &doc, err) == -1 ||
			    gates_register_pack(reg, doc, ns, bundle,
			    err) == -1) {
				if (doc != NULL) {
					json_free(doc);
					gates_prefix(err, "gate pack rejected: "
					    "%s: ", label);
				}
				free(label);
				close(sfd);
				goto out;
			}
			free(label);
		}
		close(sfd);
	}
	for (k = 0; k < decl.nnames; k++) {
		for (i = 0; files[i] != NULL; i++)
			if (strcmp(gates_pack_short(files[i], shortname,
			    sizeof(shortname)), decl.names[k]) == 0)
				break;
		if (files[i] == NULL) {
			gates_fail(err, GATES_E_INPUT, "gate pack missing: "
			    "%s/%s.gatepack.yaml (declared by manifest)",
			    dlabel, decl.names[k]);
			goto out;
		}
	}
	r = 0;
 out:
	free_list(files);
	free(dlabel);
	gates_bundle_decl_free(&decl);
	return r;
}

/*
 * The operator's gate-packs directory, laid out as the reference's
 * shipped tree: BUNDLE/gate-packs/ (or its manifest's directory) as
 * aiwg:BUNDLE/NAME; a bundle with no pack in gate-packs/ is skipped, as
 * discoverShippedGatePacks does.  Any failure is "shipped gate packs
 * rejected".
 */
int
gread_operator_packs(struct gates_registry *reg, int fd, const char *name,
    struct gates_error *err)
{
	char			**bundles, **files, *blabel, *dlabel;
	size_t			 i;
	int			 r = 0, bfd, lfd, sfd;

	/* list_dir consumes its descriptor; keep one to open beneath. */
	if ((lfd = open_beneath(fd, ".", O_RDONLY | O_DIRECTORY)) == -1) {
		io_fail(err, errno, name);
		close(fd);
		return -1;
	}
	if ((bundles = list_dir(lfd, name, keep_dir, err)) == NULL) {
		close(fd);
		return -1;
	}
	for (i = 0; bundles[i] != NULL && r == 0; i++) {
		if ((bfd = open_beneath(fd, bundles[i], O_RDONLY |
		    O_DIRECTORY)) == -1)
			continue;
		blabel = join_label(name, bundles[i]);
		dlabel = join_label(blabel, GATES_PACKS_DIR);
		files = NULL;
		if ((sfd = open_beneath(bfd, GATES_PACKS_DIR, O_RDONLY |
		    O_DIRECTORY)) != -1 && (files = list_dir(sfd, dlabel,
		    keep_pack, err)) == NULL)
			r = -1;
		if (r == 0 && files != NULL && files[0] != NULL)
			r = load_bundle(reg, bfd, blabel, "aiwg", bundles[i],
			    err);
		free_list(files);
		free(dlabel);
		free(blabel);
		close(bfd);
	}
	free_list(bundles);
	close(fd);
	if (r == -1)
		gates_prefix(err, "shipped gate packs rejected: ");
	return r;
}

/*
 * originForPackDir: a --pack-dir bundle whose manifest claims the id of
 * a bundle of the operator's (shipped or in gate-packs, opfd) that is
 * not this very directory refuses.  Threat: an agent's directory passing
 * itself off as the operator's bundle.
 */
static int
check_claim(const struct gates_registry *reg, int fd, int opfd,
    const char *name, struct gates_error *err)
{
	struct json_value	*m = NULL;
	struct stat		 own, st;
	char			*id, *prefix;
	size_t			 i, n;
	int			 candidate = 0, same = 0;

	if (read_manifest(fd, name, &m, err) == -1)
		return -1;
	id = gates_bundle_claim(m);
	json_free(m);
	if (id == NULL)
		return 0;
	xasprintf(&prefix, "aiwg:%s/", id);
	n = strlen(prefix);
	for (i = 0; i < reg->npacks; i++)
		if (strncmp(reg->packs[i].id, prefix, n) == 0)
			candidate = 1;
	free(prefix);
	if (opfd != -1 && strchr(id, '/') == NULL && strcmp(id, ".") != 0 &&
	    strcmp(id, "..") != 0 && fstatat(opfd, id, &st,
	    AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
		candidate = 1;
		same = fstat(fd, &own) == 0 && own.st_dev == st.st_dev &&
		    own.st_ino == st.st_ino;
	}
	if (candidate && !same) {
		gates_fail(err, GATES_E_INPUT, "pack-dir bundle claims a "
		    "shipped bundle id '%s' that is not its own directory: %s",
		    id, name);
		free(id);
		return -1;
	}
	free(id);
	return 0;
}

/*
 * An agent's --pack-dir: one pack file, always a project: pack, or a
 * bundle directory whose packs register only as project: packs.  err_in
 * is the errno sbxctl met reaching it (fd -1); opfd the operator's
 * gate-packs directory or -1.
 */
int
gread_pack_dir(struct gates_registry *reg, int fd, int err_in,
    const char *name, int opfd, struct gates_error *err)
{
	struct json_value	*doc;
	struct stat		 st;
	char			 ns[GATES_NS_MAX], *id;
	int			 r;

	if (fd == -1) {
		/* Threat: a link sends the reader somewhere else. */
		if (err_in == ELOOP)
			return gates_fail(err, GATES_E_INPUT, "gate pack path "
			    "must not be a symlink: %s", name);
		gates_io_error(err, err_in, "lstat", name);
		gates_prefix(err, "gate pack unreadable: %s: ", name);
		return -1;
	}
	if (fstat(fd, &st) == -1) {
		io_fail(err, errno, name);
		close(fd);
		return -1;
	}
	if (gates_path_is_doc(name) || !S_ISDIR(st.st_mode)) {
		if (!gates_path_is_doc(name)) {
			close(fd);
			return gates_fail(err, GATES_E_INPUT, "gate pack file "
			    "must end in .json, .yaml or .yml: %s", name);
		}
		if (check_pack_stat(1, &st, 0, name, err) == -1) {
			close(fd);
			return -1;
		}
		if (load_pack_fd(fd, name, &doc, err) == -1)
			return -1;
		id = gt_cstr(json_get(json_get(doc, "metadata"), "id"));
		r = gates_split_pack_id(id, ns, NULL, err);
		if (r == 0 && strcmp(ns, "project") != 0)
			r = gates_fail(err, GATES_E_REGISTRY, "gate pack "
			    "rejected: %s: pack %s from --pack-dir must use "
			    "the project: namespace (aiwg: is reserved for "
			    "shipped packs; addon:/framework:/extension: packs "
			    "load only from manifest-declared bundles)", name,
			    id);
		else if (r == 0 && gates_register_pack(reg, doc, "project",
		    NULL, err) == -1) {
			gates_prefix(err, "gate pack rejected: %s: ", name);
			r = -1;
		}
		free(id);
		if (r == -1)
			json_free(doc);
		return r;
	}
	r = check_claim(reg, fd, opfd, name, err);
	if (r == 0)
		r = load_bundle(reg, fd, name, "project", NULL, err);
	close(fd);
	return r;
}

/*
 * The operator's floors (interop.md §G6), as sbxctl's gl_floors reads them:
 * no configuration is the empty one; anything invalid is the reference's
 * refusal without its "refusing evaluation: " prefix.
 */
int
gread_floors(const struct gates_registry *reg, const unsigned char *buf,
    size_t len, struct gates_floors *floors, struct gates_error *err)
{
	struct json_value	*doc = NULL, empty;
	char			*errs;

	gt_set_obj(&empty);
	if (buf == NULL) {
		gates_floors_resolve(&empty, floors);
		return 0;
	}
	if (gates_doc_parse(buf, len, 1, &doc, err) == -1) {
		gates_prefix(err, "invalid gates section in aiwg.config:\n");
		return -1;
	}
	if (!gt_is_obj(doc)) {
		json_free(doc);
		return gates_fail(err, GATES_E_INPUT, "invalid gates section "
		    "in aiwg.config:\naiwg.config: must be an object");
	}
	if (gates_config_validate(json_get(doc, "gates"), reg, &errs) == -1) {
		gates_fail(err, GATES_E_INPUT, "invalid gates section in "
		    "aiwg.config:\n%s", errs);
		free(errs);
		json_free(doc);
		return -1;
	}
	gates_floors_resolve(json_get(doc, "gates"), floors);
	json_free(doc);
	return 0;
}

/*
 * The operator's gates configuration from its descriptor (the monitor
 * opened it; err_in its errno when it could not): a missing file is the
 * empty configuration, anything else unreadable refuses (fail closed:
 * floors may be in it).
 */
int
gread_config(const struct gates_registry *reg, int fd, int err_in,
    const char *name, struct gates_floors *floors, struct gates_error *err)
{
	unsigned char	*buf;
	size_t		 len;
	int		 r;

	if (fd == -1 && err_in == ENOENT)
		return gread_floors(reg, NULL, 0, floors, err);
	if (fd == -1) {
		io_fail(err, err_in, name);
		gates_prefix(err, "invalid gates section in aiwg.config:\n");
		return -1;
	}
	if (read_regular(fd, name, GATES_DOC_MAX, &buf, &len, err) == -1) {
		gates_prefix(err, "invalid gates section in aiwg.config:\n");
		return -1;
	}
	r = gread_floors(reg, buf, len, floors, err);
	free(buf);
	return r;
}
