/*
 * gatesload.c: what "sbxctl gates" reads before the gate engine (gates/)
 * computes: gate documents from files, the operator's gate packs and
 * gates configuration named by sbx.conf, and an agent's --pack-dir packs.
 *
 * Trust: operator packs (sbx.conf gate-packs) register in the aiwg:
 * namespace beside the embedded shipped packs, and floors and ceilings
 * come only from the operator's gates configuration (the provider
 * allowlist file, aiwg.config-shaped).  An agent's --pack-dir packs
 * always register as project: packs, which can never shadow a shipped id
 * and never define floors, so an agent cannot loosen a floor.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "sbxctl.h"
#include "gates/gates.h"
#include "monitor/monitor.h"

/* node's message for a failed open, which the reference reports. */
void
gl_io_error(struct gates_error *err, int e, const char *path)
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
	default:
		code = "EIO";
		what = strerror(e);
		break;
	}
	gates_fail(err, GATES_E_INPUT, "%s: %s, open '%s'", code, what, path);
}

/*
 * Read a file of at most max bytes (one more is read to tell), refusing a
 * symbolic link when nofollow is set.  0, or -1 with err.
 */
static int
read_file(const char *path, int nofollow, size_t max, char **bufp,
    size_t *lenp, struct gates_error *err)
{
	struct stat	 st;
	char		*buf;
	size_t		 len = 0;
	ssize_t		 n;
	int		 fd;

	*bufp = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC |
	    (nofollow ? O_NOFOLLOW : 0))) == -1) {
		gl_io_error(err, errno, path);
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		gl_io_error(err, S_ISDIR(st.st_mode) ? EISDIR : EIO, path);
		close(fd);
		return -1;
	}
	buf = xmalloc(max + 2);
	while (len <= max) {
		if ((n = read(fd, buf + len, max + 1 - len)) == -1) {
			if (errno == EINTR)
				continue;
			gl_io_error(err, errno, path);
			free(buf);
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

int
gl_read_doc(const char *path, struct json_value **out,
    struct gates_error *err)
{
	char	*buf;
	size_t	 len;
	int	 r;

	/* One byte over the cap is enough for the cap's own refusal. */
	if (read_file(path, 0, GATES_DOC_MAX, &buf, &len, err) == -1)
		return -1;
	r = gates_doc_parse(buf, len, gates_path_is_json(path), out, err);
	free(buf);
	return r;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in dir passing keep(); NULL-terminated, or NULL. */
static char **
list_dir(const char *dir, int (*keep)(const char *, const char *),
    struct gates_error *err)
{
	DIR		*d;
	struct dirent	*de;
	char		**v = NULL;
	size_t		 n = 0;

	if ((d = opendir(dir)) == NULL) {
		gl_io_error(err, errno, dir);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || !keep(dir, de->d_name))
			continue;
		v = xreallocarray(v, n + 2, sizeof(*v));
		v[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	v = xreallocarray(v, n + 1, sizeof(*v));
	v[n] = NULL;
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
keep_pack(const char *dir, const char *name)
{
	(void)dir;
	return gates_path_is_pack(name);
}

static int
keep_dir(const char *dir, const char *name)
{
	struct stat	 st;
	char		*p;
	int		 r;

	xasprintf(&p, "%s/%s", dir, name);
	r = lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
	free(p);
	return r;
}

/*
 * One pack file: lstat (no symlink, regular, the 256 KiB cap) before
 * reading, as the reference's discovery checks shipped packs.
 */
static int
load_pack_file(const char *path, struct json_value **doc,
    struct gates_error *err)
{
	struct stat	 st;

	if (lstat(path, &st) == -1) {
		gl_io_error(err, errno, path);
		return -1;
	}
	if (S_ISLNK(st.st_mode))
		return gates_fail(err, GATES_E_INPUT, "gate pack must not be a "
		    "symlink: %s", path);
	if (!S_ISREG(st.st_mode))
		return gates_fail(err, GATES_E_INPUT, "gate pack is not a "
		    "regular file: %s", path);
	if (st.st_size > GATES_DOC_MAX)
		return gates_fail(err, GATES_E_INPUT, "gate pack exceeds 256 KiB "
		    "before reading: %s", path);
	if (gl_read_doc(path, doc, err) == -1 ||
	    gates_validate_document(*doc, err) == -1) {
		json_free(*doc);
		*doc = NULL;
		gates_prefix(err, "gate pack invalid: %s: ", path);
		return -1;
	}
	return 0;
}

/* DIR/BUNDLE/gate-packs/NAME.gatepack.{yaml,yml,json} as aiwg:BUNDLE. */
static int
load_operator_packs(struct gates_registry *reg, const char *dir,
    struct gates_error *err)
{
	char			**bundles, **files, *sub, *path;
	struct json_value	*doc;
	size_t			 i, j;
	int			 r = 0;

	if ((bundles = list_dir(dir, keep_dir, err)) == NULL)
		return -1;
	for (i = 0; bundles[i] != NULL && r == 0; i++) {
		xasprintf(&sub, "%s/%s/gate-packs", dir, bundles[i]);
		if (access(sub, F_OK) == -1) {
			free(sub);
			continue;
		}
		if ((files = list_dir(sub, keep_pack, err)) == NULL) {
			free(sub);
			r = -1;
			break;
		}
		for (j = 0; files[j] != NULL && r == 0; j++) {
			xasprintf(&path, "%s/%s", sub, files[j]);
			if (load_pack_file(path, &doc, err) == -1)
				r = -1;
			else if (gates_register_pack(reg, doc, "aiwg",
			    bundles[i], err) == -1) {
				json_free(doc);
				gates_prefix(err, "shipped gate packs rejected: ");
				r = -1;
			}
			free(path);
		}
		free_list(files);
		free(sub);
	}
	free_list(bundles);
	return r;
}

static int
register_project(struct gates_registry *reg, const char *path,
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
		gates_prefix(err, "gate pack rejected: %s: ", path);
	}
	return r;
}

/* An agent's --pack-dir: one pack file, or a directory of pack files. */
static int
load_pack_dir(struct gates_registry *reg, const char *path,
    struct gates_error *err)
{
	struct json_value	*doc;
	struct stat		 st;
	char			**files, *file;
	size_t			 i;
	int			 r = 0;

	if (lstat(path, &st) == -1) {
		gl_io_error(err, errno, path);
		return -1;
	}
	if (S_ISLNK(st.st_mode))
		return gates_fail(err, GATES_E_INPUT, "gate pack path must not "
		    "be a symlink: %s", path);
	if (!S_ISDIR(st.st_mode)) {
		if (!gates_path_is_doc(path))
			return gates_fail(err, GATES_E_INPUT, "gate pack file "
			    "must end in .json, .yaml or .yml: %s", path);
		if (load_pack_file(path, &doc, err) == -1)
			return -1;
		return register_project(reg, path, doc, err);
	}
	if ((files = list_dir(path, keep_pack, err)) == NULL)
		return -1;
	for (i = 0; files[i] != NULL && r == 0; i++) {
		xasprintf(&file, "%s/%s", path, files[i]);
		if (load_pack_file(file, &doc, err) == -1 ||
		    register_project(reg, file, doc, err) == -1)
			r = -1;
		free(file);
	}
	free_list(files);
	return r;
}

/* The paths sbx.conf names; a missing default sbx.conf names nothing. */
static void
conf_errors(void *arg, const char *msg)
{
	struct gates_error	*err = arg;

	if (err->msg[0] == '\0')
		gates_fail(err, GATES_E_INPUT, "%s", msg);
}

int
gl_conf(const char *path, char **gate_packs, char **gates_config,
    struct gates_error *err)
{
	struct sbx_conf	*conf;
	int		 explicit = path != NULL;

	*gate_packs = *gates_config = NULL;
	if (path == NULL)
		path = SBX_CONF_FILE;
	if (!explicit && access(path, F_OK) == -1)
		return 0;
	memset(err, 0, sizeof(*err));
	if ((conf = conf_parse_cb(path, conf_errors, err)) == NULL) {
		if (err->msg[0] == '\0')
			gates_fail(err, GATES_E_INPUT, "%s: invalid", path);
		return -1;
	}
	if (conf->gate_packs != NULL)
		*gate_packs = xstrdup(conf->gate_packs);
	if (conf->provider_allowlist != NULL)
		*gates_config = xstrdup(conf->provider_allowlist);
	conf_free(conf);
	return 0;
}

int
gl_registry(struct gates_registry *reg, const char *gate_packs,
    char *const *pack_dirs, size_t npack_dirs, struct gates_error *err)
{
	size_t	 i;

	gates_registry_init(reg);
	if (gates_registry_bootstrap(reg, err) == -1)
		return -1;
	if (gate_packs != NULL && load_operator_packs(reg, gate_packs,
	    err) == -1)
		return -1;
	for (i = 0; i < npack_dirs; i++)
		if (load_pack_dir(reg, pack_dirs[i], err) == -1)
			return -1;
	return 0;
}

/*
 * The operator's floors: the gates section of the gates configuration.
 * A missing file is the empty configuration ({floors: [], ceilings: {}});
 * anything unreadable or invalid is the reference's refusal text (without
 * its "refusing evaluation: " prefix, which the caller adds).
 */
int
gl_floors(const struct gates_registry *reg, const char *path,
    struct gates_floors *floors, struct gates_error *err)
{
	struct json_value	*doc = NULL;
	struct json_value	 empty;
	char			*buf, *errs;
	size_t			 len;
	int			 r;

	gt_set_obj(&empty);
	if (path == NULL || access(path, F_OK) == -1) {
		gates_floors_resolve(&empty, floors);
		return 0;
	}
	if (read_file(path, 0, GATES_DOC_MAX, &buf, &len, err) == -1 ||
	    gates_doc_parse(buf, len, 1, &doc, err) == -1) {
		free(buf);
		gates_prefix(err, "invalid gates section in aiwg.config:\n");
		return -1;
	}
	free(buf);
	if (!gt_is_obj(doc)) {
		json_free(doc);
		return gates_fail(err, GATES_E_INPUT, "invalid gates section in "
		    "aiwg.config:\naiwg.config: must be an object");
	}
	r = gates_config_validate(json_get(doc, "gates"), reg, &errs);
	if (r == -1) {
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
