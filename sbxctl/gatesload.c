/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * gatesload.c: what the offline "sbxctl gates" subcommands (validate,
 * list, show, digest, the seals) read before the gate engine (gates/)
 * computes: gate documents from files, the operator's gate packs and
 * gates configuration named by sbx.conf, an agent's --pack-dir packs,
 * and the rules that name packs (list --rule).  Directories and packs
 * are read by the provider runner's own readers (provider-runner/
 * gates/read.c) over descriptors opened here, so an offline look and an
 * evaluation see the same packs by the same rules.
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
#include "beneath.h"
#include "sbxctl.h"
#include "gates/gates.h"
#include "conf/conf.h"
#include "provider/provider.h"

#define RULE_FILES_MAX	500	/* packsReferencedByRule's bounds */
#define RULE_DEPTH_MAX	5
#define RULE_BYTES_MAX	65536

/*
 * Read a file of at most max bytes (one more is read to tell), refusing a
 * symbolic link when nofollow is set.  0, or -1 with err.
 */
static int
read_file(const char *path, int nofollow, size_t max, char **bufp,
    size_t *lenp, struct gates_error *err)
{
	struct stat	 st;
	unsigned char	*buf;
	int		 fd, serr = 0;

	*bufp = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC |
	    (nofollow ? O_NOFOLLOW : 0))) == -1) {
		gates_io_error(err, errno, "open", path);
		return -1;
	}
	if (fstat(fd, &st) == -1)
		serr = errno;
	else if (!S_ISREG(st.st_mode))
		serr = S_ISDIR(st.st_mode) ? EISDIR : EIO;
	if (serr != 0) {
		gates_io_error(err, serr, "read", path);
		close(fd);
		return -1;
	}
	if (read_bounded(fd, max, &buf, lenp) == -1) {
		gates_io_error(err, errno, "open", path);
		close(fd);
		return -1;
	}
	close(fd);
	*bufp = (char *)buf;
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

/*
 * path.resolve(cwd, path), as the reference names the files in its
 * messages: absolute, ".", ".." and repeated or trailing "/" folded away
 * by the text alone (symbolic links stay as written).
 */
char *
gl_abs_path(const char *path)
{
	char	*cwd, *in, *out, *seg, *save;
	size_t	 sz;

	if (path[0] == '/' || (cwd = getcwd(NULL, 0)) == NULL)
		in = xstrdup(path);
	else {
		xasprintf(&in, "%s/%s", cwd, path);
		free(cwd);
	}
	/* Never longer than its input and a "/". */
	sz = strlen(in) + 2;
	out = xcalloc(1, sz);
	for (seg = strtok_r(in, "/", &save); seg != NULL;
	    seg = strtok_r(NULL, "/", &save)) {
		if (strcmp(seg, ".") == 0)
			continue;
		if (strcmp(seg, "..") == 0) {
			if (out[0] != '\0')
				*strrchr(out, '/') = '\0';
			continue;
		}
		strlcat(out, "/", sz);
		strlcat(out, seg, sz);
	}
	if (out[0] == '\0')
		strlcpy(out, "/", sz);
	free(in);
	return out;
}

/*
 * A --pack-dir as the caller reaches it: its descriptor, or -1 with the
 * errno (ELOOP for a symbolic link, never followed).
 */
int
gl_open_pack_dir(const char *path, int *e)
{
	struct stat	 st;
	int		 fd;

	*e = 0;
	if (lstat(path, &st) == -1) {
		*e = errno;
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		*e = ELOOP;
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		*e = errno;
	return fd;
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
	char	*name;
	size_t	 i;
	int	 fd, e, r = 0, opfd = -1;

	gates_registry_init(reg);
	if (gates_registry_bootstrap(reg, err) == -1)
		return -1;
	if (gate_packs != NULL) {
		if ((fd = open(gate_packs, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) == -1) {
			gates_io_error(err, errno, "scandir", gate_packs);
			gates_prefix(err, "shipped gate packs rejected: ");
			return -1;
		}
		if ((opfd = dup(fd)) == -1)
			fatal("dup");
		if (gread_operator_packs(reg, fd, gate_packs, err) == -1) {
			close(opfd);
			return -1;
		}
	}
	for (i = 0; i < npack_dirs && r == 0; i++) {
		name = gl_abs_path(pack_dirs[i]);
		fd = gl_open_pack_dir(pack_dirs[i], &e);
		r = gread_pack_dir(reg, fd, e, name, opfd, err);
		free(name);
	}
	if (opfd != -1)
		close(opfd);
	return r;
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
	int	 fd = -1, e = ENOENT;

	if (path != NULL && (fd = open(path, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		e = errno;
	return gread_config(reg, fd, fd == -1 ? e : 0, path != NULL ? path :
	    "", floors, err);
}

/* ---- list --rule: packsReferencedByRule --------------------------------- */

struct rulewalk {
	char	**files;
	size_t	 nfiles;
};

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rules/ .md files under dir, bounded in depth and count, links not
 * taken. */
static void
rule_walk(struct rulewalk *w, const char *dir, int depth)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	char		**names = NULL, *full;
	size_t		 n = 0, i, len;

	if (depth > RULE_DEPTH_MAX || w->nfiles > RULE_FILES_MAX ||
	    (d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL && n < 4096) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		names = xreallocarray(names, n + 1, sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		if (w->nfiles > RULE_FILES_MAX)
			break;
		xasprintf(&full, "%s/%s", dir, names[i]);
		len = strlen(names[i]);
		if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (strcmp(names[i], "node_modules") != 0 &&
			    strncmp(names[i], ".git", 4) != 0)
				rule_walk(w, full, depth + 1);
		} else if (S_ISREG(st.st_mode) && len >= 3 &&
		    strcmp(names[i] + len - 3, ".md") == 0 &&
		    strstr(full, "/rules/") != NULL) {
			w->files = xreallocarray(w->files, w->nfiles + 1,
			    sizeof(*w->files));
			w->files[w->nfiles++] = full;
			full = NULL;
		}
		free(full);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ruleId.endsWith(name), or equal. */
static int
rule_names_match(const char *rule, const char *name)
{
	size_t	 rl = strlen(rule), nl = strlen(name);

	return nl <= rl && strcmp(rule + rl - nl, name) == 0;
}

/*
 * The front matter of a rule file ("---\n...\n---\n" at its start), or
 * NULL; *len its length.
 */
static const char *
front_matter(const char *text, size_t *len)
{
	const char	*p, *body;

	if (strncmp(text, "---\n", 4) == 0)
		body = text + 4;
	else if (strncmp(text, "---\r\n", 5) == 0)
		body = text + 5;
	else
		return NULL;
	/* The first "\n---\n" (or with \r) after it closes the block. */
	for (p = body; (p = strstr(p, "\n---")) != NULL; p++) {
		if (p[4] == '\n' || (p[4] == '\r' && p[5] == '\n')) {
			*len = p - body;
			if (*len > 0 && body[*len - 1] == '\r')
				(*len)--;
			return body;
		}
	}
	return NULL;
}

static void
rule_ids(char ***ids, size_t *nids, const char *fm, size_t fmlen)
{
	static const char *const nss[] = { "aiwg:", "framework:", "addon:",
	    "extension:", "project:" };
	const char	*line, *end, *p, *hit, *q;
	char		*id;
	size_t		 i, k, len, best;

	for (line = fm; line < fm + fmlen; line = end + 1) {
		if ((end = memchr(line, '\n', fm + fmlen - line)) == NULL)
			end = fm + fmlen;
		/* The first namespace:rest on the line. */
		hit = NULL;
		best = 0;
		for (p = line; p < end && hit == NULL; p++)
			for (k = 0; k < nitems(nss); k++) {
				len = strlen(nss[k]);
				if ((size_t)(end - p) > len &&
				    strncmp(p, nss[k], len) == 0 &&
				    strchr(" \t\r\n\v\f,'\"]", p[len]) ==
				    NULL) {
					hit = p;
					best = len;
					break;
				}
			}
		if (hit == NULL)
			continue;
		for (q = hit + best; q < end && strchr(" \t\r\n\v\f,'\"]#",
		    *q) == NULL; q++)
			;
		/* id.split('#')[0] */
		xasprintf(&id, "%.*s", (int)(q - hit), hit);
		for (i = 0; i < *nids; i++)
			if (strcmp((*ids)[i], id) == 0)
				break;
		if (i < *nids) {
			free(id);
			continue;
		}
		*ids = xreallocarray(*ids, *nids + 2, sizeof(**ids));
		(*ids)[(*nids)++] = id;
		(*ids)[*nids] = NULL;
	}
}

/*
 * The pack ids that rule files naming rule list in an enforcedBy front
 * matter (the reference's stub of its #2830): rules/ *.md under the
 * operator's gate-packs directory (the analogue of the reference's
 * shipped tree) and under ./.aiwg.  NULL-terminated, never NULL.
 */
char **
gl_rule_packs(const char *rule, const char *gate_packs)
{
	struct rulewalk	 w;
	const char	*fm, *base, *slash;
	char		**ids, *text, *name, *dir;
	size_t		 i, len, fmlen, nids = 0;
	int		 match;

	memset(&w, 0, sizeof(w));
	if (gate_packs != NULL)
		rule_walk(&w, gate_packs, 0);
	rule_walk(&w, ".aiwg", 0);
	ids = xcalloc(1, sizeof(*ids));
	for (i = 0; i < w.nfiles; i++) {
		if (read_file(w.files[i], 1, RULE_BYTES_MAX, &text, &len,
		    NULL) == -1)
			continue;
		if (len > RULE_BYTES_MAX || (fm = front_matter(text,
		    &fmlen)) == NULL || memmem(fm, fmlen, "enforcedBy",
		    10) == NULL) {
			free(text);
			continue;
		}
		base = strrchr(w.files[i], '/') + 1;
		xasprintf(&name, "%.*s", (int)(strlen(base) - 3), base);
		match = strcmp(rule, w.files[i]) == 0 ||
		    rule_names_match(rule, name) ||
		    rule_names_match(rule, w.files[i]);
		slash = base - 1;
		if (!match && slash > w.files[i]) {
			len = slash - w.files[i];
			while (len > 0 && w.files[i][len - 1] != '/')
				len--;
			xasprintf(&dir, "%.*s/%s", (int)(slash - w.files[i] -
			    len), w.files[i] + len, name);
			if (strncmp(dir, "rules/", 6) != 0)
				match = rule_names_match(rule, dir);
			free(dir);
		}
		if (match)
			rule_ids(&ids, &nids, fm, fmlen);
		free(name);
		free(text);
	}
	for (i = 0; i < w.nfiles; i++)
		free(w.files[i]);
	free(w.files);
	return ids;
}

int
gl_rule_has(char *const *ids, const char *id)
{
	for (; ids != NULL && *ids != NULL; ids++)
		if (strcmp(*ids, id) == 0)
			return 1;
	return 0;
}

void
gl_rule_free(char **ids)
{
	size_t	 i;

	for (i = 0; ids != NULL && ids[i] != NULL; i++)
		free(ids[i]);
	free(ids);
}
