/*
 * gatesread.c: the gate documents of an evaluation, from the descriptors
 * the monitor relayed (sbxctl opened them as the agent): the binding,
 * metrics, holdout and upstream files, the operator's gate-packs
 * directory and the agent's --pack-dir packs, and the floors from the
 * gates configuration.  It does what sbxctl/gatesload.c does with paths,
 * with descriptors: this role has an empty root and opens nothing by
 * path (provider-runner.priv), only beneath a directory it was handed,
 * with openat2 refusing "..", absolute paths and symbolic links.
 *
 * Trust is as in gatesload.c: the operator's packs register in the aiwg:
 * namespace beside the shipped ones, an agent's packs only as project:
 * packs, and floors come only from the operator's file.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "runner.h"
#include "gates/gates.h"

#define GREAD_NAMES_MAX	1024	/* entries looked at per directory */

static int
io_fail(struct gates_error *err, int e, const char *name)
{
	return gates_fail(err, GATES_E_INPUT, "%s: %s", name, strerror(e));
}

/* A regular file's bytes, at most GATES_DOC_MAX + 1 (the cap's refusal
 * is the parser's).  The descriptor is closed. */
static int
read_regular(int fd, const char *name, unsigned char **buf, size_t *len,
    struct gates_error *err)
{
	struct stat	 st;
	int		 e;

	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return gates_fail(err, GATES_E_INPUT, "%s: not a regular file",
		    name);
	}
	if (prov_read_bounded(fd, GATES_DOC_MAX, buf, len) == -1) {
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
	if (read_regular(fd, name, &buf, &len, err) == -1)
		return -1;
	r = gates_doc_parse(buf, len, gates_path_is_json(name), out, err);
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
 * One pack file beneath dfd: no symbolic link (openat2 refuses one with
 * ELOOP), a regular file within the cap, a valid gate document.
 */
static int
load_pack_at(int dfd, const char *file, const char *label,
    struct json_value **doc, struct gates_error *err)
{
	struct stat	 st;
	int		 fd;

	*doc = NULL;
	if ((fd = prov_open_beneath(dfd, file, O_RDONLY)) == -1) {
		if (errno == ELOOP)
			return gates_fail(err, GATES_E_INPUT, "gate pack must "
			    "not be a symlink: %s", label);
		return io_fail(err, errno, label);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return gates_fail(err, GATES_E_INPUT, "gate pack is not a "
		    "regular file: %s", label);
	}
	if (st.st_size > GATES_DOC_MAX) {
		close(fd);
		return gates_fail(err, GATES_E_INPUT, "gate pack exceeds 256 "
		    "KiB before reading: %s", label);
	}
	if (gread_doc(fd, label, doc, err) == -1 ||
	    gates_validate_document(*doc, err) == -1) {
		json_free(*doc);
		*doc = NULL;
		gates_prefix(err, "gate pack invalid: %s: ", label);
		return -1;
	}
	return 0;
}

int
gread_operator_packs(struct gates_registry *reg, int fd, const char *name,
    struct gates_error *err)
{
	struct json_value	*doc;
	char			**bundles, **files, *sub, *label;
	size_t			 i, j;
	int			 r = 0, sfd, lfd;

	/* list_dir consumes its descriptor; keep one to open beneath. */
	if ((lfd = prov_open_beneath(fd, ".", O_RDONLY | O_DIRECTORY)) == -1) {
		io_fail(err, errno, name);
		close(fd);
		return -1;
	}
	if ((bundles = list_dir(lfd, name, keep_dir, err)) == NULL) {
		close(fd);
		return -1;
	}
	for (i = 0; bundles[i] != NULL && r == 0; i++) {
		xasprintf(&sub, "%s/gate-packs", bundles[i]);
		if ((sfd = prov_open_beneath(fd, sub, O_RDONLY |
		    O_DIRECTORY)) == -1) {
			if (errno != ENOENT) {
				xasprintf(&label, "%s/%s", name, sub);
				io_fail(err, errno, label);
				free(label);
				r = -1;
			}
			free(sub);
			continue;
		}
		lfd = prov_open_beneath(sfd, ".", O_RDONLY | O_DIRECTORY);
		if (lfd == -1 || (files = list_dir(lfd, sub, keep_pack,
		    err)) == NULL) {
			if (lfd == -1)
				io_fail(err, errno, sub);
			close(sfd);
			free(sub);
			r = -1;
			break;
		}
		for (j = 0; files[j] != NULL && r == 0; j++) {
			xasprintf(&label, "%s/%s/%s", name, sub, files[j]);
			if (load_pack_at(sfd, files[j], label, &doc, err) == -1)
				r = -1;
			else if (gates_register_pack(reg, doc, "aiwg",
			    bundles[i], err) == -1) {
				json_free(doc);
				gates_prefix(err, "shipped gate packs "
				    "rejected: ");
				r = -1;
			}
			free(label);
		}
		free_list(files);
		close(sfd);
		free(sub);
	}
	free_list(bundles);
	close(fd);
	return r;
}

static int
register_project(struct gates_registry *reg, const char *label,
    struct json_value *doc, struct gates_error *err)
{
	char	 ns[GATES_NS_MAX], *id;
	int	 r;

	id = gt_cstr(json_get(json_get(doc, "metadata"), "id"));
	r = gates_split_pack_id(id, ns, NULL, err);
	if (r == 0 && strcmp(ns, "project") != 0)
		r = gates_fail(err, GATES_E_REGISTRY, "pack %s must use the "
		    "project: namespace", id);
	free(id);
	if (r == 0)
		r = gates_register_pack(reg, doc, "project", NULL, err);
	if (r == -1) {
		json_free(doc);
		gates_prefix(err, "gate pack rejected: %s: ", label);
	}
	return r;
}

int
gread_pack_dir(struct gates_registry *reg, int fd, const char *name,
    struct gates_error *err)
{
	struct json_value	*doc;
	struct stat		 st;
	char			**files, *label;
	size_t			 i;
	int			 r = 0, lfd;

	if (fstat(fd, &st) == -1) {
		io_fail(err, errno, name);
		close(fd);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (!gates_path_is_doc(name)) {
			close(fd);
			return gates_fail(err, GATES_E_INPUT, "gate pack file "
			    "must end in .json, .yaml or .yml: %s", name);
		}
		if (!S_ISREG(st.st_mode)) {
			close(fd);
			return gates_fail(err, GATES_E_INPUT, "gate pack is "
			    "not a regular file: %s", name);
		}
		if (st.st_size > GATES_DOC_MAX) {
			close(fd);
			return gates_fail(err, GATES_E_INPUT, "gate pack "
			    "exceeds 256 KiB before reading: %s", name);
		}
		if (gread_doc(fd, name, &doc, err) == -1 ||
		    gates_validate_document(doc, err) == -1) {
			json_free(doc);
			gates_prefix(err, "gate pack invalid: %s: ", name);
			return -1;
		}
		return register_project(reg, name, doc, err);
	}
	if ((lfd = prov_open_beneath(fd, ".", O_RDONLY | O_DIRECTORY)) == -1) {
		io_fail(err, errno, name);
		close(fd);
		return -1;
	}
	if ((files = list_dir(lfd, name, keep_pack, err)) == NULL) {
		close(fd);
		return -1;
	}
	for (i = 0; files[i] != NULL && r == 0; i++) {
		xasprintf(&label, "%s/%s", name, files[i]);
		if (load_pack_at(fd, files[i], label, &doc, err) == -1 ||
		    register_project(reg, label, doc, err) == -1)
			r = -1;
		free(label);
	}
	free_list(files);
	close(fd);
	return r;
}

/*
 * The operator's floors (gates-spec 6), as sbxctl's gl_floors reads them:
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
