/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * csview.c: `sbxctl changes ID`, `sbxctl diff` and `sbxctl apply` (issue
 * 23): the changeset's stream and metadata come from sbx_changes_open
 * (CHANGES_OPEN); the entries, the diff and the apply are libsbx's
 * (sbx_changes_*); here they get sbxctl's output (text or --json) and
 * exit statuses, and a full apply discards the changeset.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "beneath.h"
#include "libsbx/sbx.h"
#include "sbxctl.h"

const char *const cmd_diff_synopsis[] = { "diff [--json] ID [PATH ...]",
    NULL };
const char *const cmd_apply_synopsis[] = {
    "apply [--json] ID [--all-or-nothing] [PATH ...]", NULL };

struct cs_print {
	struct sbxctl	*ctx;
	cJSON		*arr;
};

/* A path from a stream, as a JSON string: as is when it is UTF-8. */
static void
json_path(cJSON *obj, const char *key, const char *path)
{
	char	*v;

	if (utf8_check((const unsigned char *)path, strlen(path)) ==
	    strlen(path)) {
		if (cJSON_AddStringToObject(obj, key, path) == NULL)
			fatalx("cJSON: out of memory");
		return;
	}
	v = out_name(path);
	if (cJSON_AddStringToObject(obj, key, v) == NULL)
		fatalx("cJSON: out of memory");
	free(v);
}

static const char *
kind_name(char k)
{
	switch (k) {
	case 'f':	return "file";
	case 'l':	return "symlink";
	case 'd':	return "directory";
	case 'w':	return "deleted";
	case 'o':	return "other";
	default:	return "none";
	}
}

static int
entry_out(const struct sbx_change *c, void *arg)
{
	struct cs_print	*p = arg;
	char		 q[3 * 4096 + 8], mode[8];
	cJSON		*e;

	if (!p->ctx->json) {
		sbx_changes_quote(c->path, q, sizeof(q));
		printf("%c %s\n", c->op, q);
		return 0;
	}
	snprintf(mode, sizeof(mode), "%04o", c->mode);
	if ((e = cJSON_CreateObject()) == NULL ||
	    !cJSON_AddItemToArray(p->arr, e) ||
	    cJSON_AddStringToObject(e, "op", (char []){ c->op, '\0' }) ==
	    NULL ||
	    cJSON_AddStringToObject(e, "kind", kind_name(c->kind)) == NULL ||
	    cJSON_AddStringToObject(e, "was", kind_name(c->base_kind)) ==
	    NULL ||
	    (c->kind != 'w' && cJSON_AddStringToObject(e, "mode", mode) ==
	    NULL) ||
	    (c->kind == 'f' && cJSON_AddNumberToObject(e, "size",
	    (double)c->size) == NULL))
		fatalx("cJSON: out of memory");
	json_path(e, "path", c->path);
	if (c->target != NULL)
		json_path(e, "target", c->target);
	return 0;
}

/* The --json result, one line. */
static int
json_done(cJSON *obj)
{
	char	*s;

	if ((s = cJSON_PrintUnformatted(obj)) == NULL)
		fatalx("cJSON: out of memory");
	printf("%s\n", s);
	cJSON_free(s);
	cJSON_Delete(obj);
	return 0;
}

int
cs_entries_out(struct sbxctl *ctx, int stream)
{
	struct cs_print	 p;
	cJSON		*obj = NULL;
	char		 err[1024];

	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	if (ctx->json && ((obj = cJSON_CreateObject()) == NULL ||
	    (p.arr = cJSON_AddArrayToObject(obj, "changes")) == NULL))
		fatalx("cJSON: out of memory");
	if (sbx_changes_entries(stream, entry_out, &p, err, sizeof(err)) ==
	    -1) {
		cJSON_Delete(obj);
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_PROTOCOL,
		    "%s", err);
	}
	if (obj != NULL)
		json_done(obj);
	return out_finish(SBXCTL_EXIT_OK);
}

/*
 * DIR for diff and apply: opened by its path as the caller, and refused
 * unless it is the directory the changeset was made on (dev, ino).
 */
int
cs_dir_open(struct sbxctl *ctx, const char *path, uint64_t dev,
    uint64_t ino, int64_t first_run_start, struct sbx_changes_dir *dir)
{
	struct stat	 st;
	char		*v;
	int		 status;

	memset(dir, 0, sizeof(*dir));
	if ((dir->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1 || fstat(dir->fd, &st) == -1) {
		v = out_name(path);
		status = out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_IO,
		    "%s: %s", v, strerror(errno));
		free(v);
		if (dir->fd != -1)
			close(dir->fd);
		dir->fd = -1;
		return status;
	}
	if ((uint64_t)st.st_dev != dev || (uint64_t)st.st_ino != ino) {
		v = out_name(path);
		status = out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_IO,
		    "%s is no longer the directory the changeset was made "
		    "on (another file system object is at that path)", v);
		free(v);
		close(dir->fd);
		dir->fd = -1;
		return status;
	}
	dir->dev = dev;
	dir->ino = ino;
	dir->first_run_start = first_run_start;
	return SBXCTL_EXIT_OK;
}

int
cs_diff_out(struct sbxctl *ctx, int stream, const struct sbx_changes_dir *dir,
    char *const *paths)
{
	char	 err[1024];

	if (sbx_changes_diff(stream, dir, (const char *const *)paths, stdout,
	    err, sizeof(err)) == -1)
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_IO, "%s",
		    err);
	return out_finish(SBXCTL_EXIT_OK);
}

static void
conflict_out(const char *path, const char *why, void *arg)
{
	struct cs_print	*p = arg;
	char		 q[3 * 4096 + 8];
	cJSON		*e;

	if (!p->ctx->json) {
		sbx_changes_quote(path, q, sizeof(q));
		fprintf(stderr, "sbxctl: conflict: %s: %s\n", q, why);
		return;
	}
	if ((e = cJSON_CreateObject()) == NULL ||
	    !cJSON_AddItemToArray(p->arr, e) ||
	    cJSON_AddStringToObject(e, "reason", why) == NULL)
		fatalx("cJSON: out of memory");
	json_path(e, "path", path);
}

/*
 * Apply; SBXCTL_EXIT_OK when everything selected is in DIR now,
 * SBXCTL_EXIT_CONFLICT when some path conflicted (named one a line on
 * stderr, or in "conflicts" with --json), SBXCTL_EXIT_ERROR otherwise.
 */
int
cs_apply_run(struct sbxctl *ctx, int stream, const struct sbx_changes_dir *dir,
    char *const *paths, int all_or_nothing)
{
	struct cs_print	 p;
	cJSON		*obj = NULL;
	char		 err[1024];
	int		 rc;

	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	if (ctx->json && ((obj = cJSON_CreateObject()) == NULL ||
	    (p.arr = cJSON_AddArrayToObject(obj, "conflicts")) == NULL))
		fatalx("cJSON: out of memory");
	rc = sbx_changes_apply(stream, dir, (const char *const *)paths,
	    all_or_nothing ? SBX_APPLY_ALL_OR_NOTHING : 0, conflict_out, &p,
	    err, sizeof(err));
	if (rc == -1) {
		cJSON_Delete(obj);
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_IO, "%s",
		    err);
	}
	if (obj != NULL) {
		if (cJSON_AddBoolToObject(obj, "applied", rc == 0) == NULL)
			fatalx("cJSON: out of memory");
		json_done(obj);
	}
	return out_finish(rc == 0 ? SBXCTL_EXIT_OK : SBXCTL_EXIT_CONFLICT);
}

/* A decimal string of the metadata (dev, ino, first_run_start). */
static int
meta_num(const cJSON *o, const char *key, uint64_t *v)
{
	const cJSON	*j = cJSON_GetObjectItemCaseSensitive(o, key);
	char		*end;

	if (!cJSON_IsString(j) || j->valuestring[0] < '0' ||
	    j->valuestring[0] > '9')
		return -1;
	errno = 0;
	*v = strtoull(j->valuestring, &end, 10);
	return *end != '\0' || errno != 0 ? -1 : 0;
}

/*
 * Open changeset id: its stream, and (if dir is not NULL) DIR as the
 * metadata names it.  The connection stays open in *cp for a discard.
 */
static int
cs_open_id(struct sbxctl *ctx, const char *what, const char *id,
    struct sbx_conn **cp, int *stream, struct sbx_changes_dir *dir)
{
	const cJSON	*d;
	cJSON		*o;
	uint64_t	 dev, ino, t0;
	char		 err[512], *meta;
	int		 status = SBXCTL_EXIT_OK, r;

	*stream = -1;
	if ((*cp = ctl_connect(ctx, &status)) == NULL)
		return status;
	r = sbx_changes_open(*cp, id, stream, &meta, err, sizeof(err));
	if (r != 0) {
		sbx_disconnect(*cp);
		*cp = NULL;
		if (r == 1)
			return out_error(ctx, SBXCTL_EXIT_ERROR,
			    SBXCTL_ERR_REFUSED, "%s: %s", what, err);
		return out_error(ctx, errno == EINVAL ? SBXCTL_EXIT_USAGE :
		    SBXCTL_EXIT_UNREACHABLE, errno == EINVAL ?
		    SBXCTL_ERR_USAGE : SBXCTL_ERR_UNREACHABLE, "%s: %s", what,
		    err);
	}
	o = cJSON_Parse(meta);
	free(meta);
	if (dir == NULL) {
		cJSON_Delete(o);
		return SBXCTL_EXIT_OK;
	}
	d = cJSON_GetObjectItemCaseSensitive(o, "dir");
	if (!cJSON_IsString(d) || meta_num(o, "dev", &dev) == -1 ||
	    meta_num(o, "ino", &ino) == -1 ||
	    meta_num(o, "first_run_start", &t0) == -1 || t0 > INT64_MAX) {
		cJSON_Delete(o);
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_PROTOCOL,
		    "%s: the changeset's metadata lacks dir, dev, ino or "
		    "first_run_start", what);
	}
	status = cs_dir_open(ctx, d->valuestring, dev, ino, (int64_t)t0,
	    dir);
	cJSON_Delete(o);
	return status;
}

static void
cs_close(struct sbx_conn *c, int stream, struct sbx_changes_dir *dir)
{
	if (stream != -1)
		close(stream);
	if (dir != NULL && dir->fd != -1)
		close(dir->fd);
	if (c != NULL)
		sbx_disconnect(c);
}

/* `sbxctl changes ID`: cmd_changes with one operand comes here. */
int
cs_changes_id(struct sbxctl *ctx, const char *id)
{
	struct sbx_conn	*c;
	int		 stream, status;

	if ((status = cs_open_id(ctx, "changes", id, &c, &stream, NULL)) !=
	    SBXCTL_EXIT_OK)
		return status;
	status = cs_entries_out(ctx, stream);
	cs_close(c, stream, NULL);
	return status;
}

int
cmd_diff(struct sbxctl *ctx, int argc, char **argv)
{
	struct sbx_changes_dir	 dir;
	struct sbx_conn		*c;
	int			 stream, status;

	if ((status = args_operands(ctx, "diff", &argc, &argv)) != 0)
		return status;
	if (argc < 1)
		return out_usage(ctx, "diff takes a changeset ID");
	dir.fd = -1;
	if ((status = cs_open_id(ctx, "diff", argv[0], &c, &stream,
	    &dir)) == SBXCTL_EXIT_OK)
		status = cs_diff_out(ctx, stream, &dir, argv + 1);
	cs_close(c, stream, &dir);
	return status;
}

int
cmd_apply(struct sbxctl *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all-or-nothing",	no_argument,	NULL,	'A' },
		{ NULL,			0,		NULL,	0 }
	};
	struct sbx_changes_dir	 dir;
	struct sbx_conn		*c;
	char			 err[512];
	int			 ch, aon = 0, stream, status;

	optind = 0;		/* glibc: full reset for this argv */
	opterr = 0;
	/* Options may follow the ID (not "+"): "apply ID --all-or-nothing". */
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (ch != 'A')
			return out_usage(ctx, "apply: unknown option %s",
			    argv[optind - 1]);
		aon = 1;
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return out_usage(ctx, "apply takes a changeset ID");
	dir.fd = -1;
	if ((status = cs_open_id(ctx, "apply", argv[0], &c, &stream,
	    &dir)) != SBXCTL_EXIT_OK) {
		cs_close(c, stream, &dir);
		return status;
	}
	status = cs_apply_run(ctx, stream, &dir, argv + 1, aon);
	/* All of it is in DIR now: the changeset has done its work. */
	if (status == SBXCTL_EXIT_OK && argc == 1 &&
	    sbx_changes_discard(c, argv[0], err, sizeof(err)) != 0) {
		fprintf(stderr, "sbxctl: apply: applied, but the changeset "
		    "was not discarded: %s\n", err);
		status = SBXCTL_EXIT_ERROR;
	}
	cs_close(c, stream, &dir);
	return status;
}
