/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * csview.c: `sbxctl changes ID`, `sbxctl diff` and `sbxctl apply` once the
 * changeset's stream is open (issue 23): the entries, the diff and the
 * apply are libsbx's (sbx_changes_*); here they get sbxctl's output
 * (text or --json) and exit statuses.  The command words, the request
 * that opens the stream and the discard after a full apply are in the
 * command's file.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "beneath.h"
#include "libsbx/sbx.h"
#include "sbxctl.h"

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
