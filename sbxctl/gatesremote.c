/*
 * gatesremote.c: "sbxctl gates evaluate" through sbx-monitor, for
 * bindings that pin bundle providers (--records PROVIDER_ID=FILE): the
 * evaluation with isolated re-runs happens in the provider runner
 * (provider-spec 7), over providers the monitor issued; this side only
 * opens the agent's files and passes them as descriptors, and prints the
 * report that comes back through a pipe.
 *
 * GATES_EVALUATE carries the names (for messages and the .json rule)
 * and the result pipe; one GATES_DOC per file follows, in the order
 * binding, metrics, holdout, upstream, pack dirs, records.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "sbx.h"
#include "sbxctl.h"
#include "gates/gates.h"

#define REPORT_MAX	(64 * 1024 * 1024)
#define DOCS_MAX	96

struct docs {
	int	 fd[DOCS_MAX];
	size_t	 n;
};

static void
docs_close(struct docs *d)
{
	size_t	 i;

	for (i = 0; i < d->n; i++)
		close(d->fd[i]);
	d->n = 0;
}

static int
fail(struct sbxctl *ctx, const struct gates_error *err)
{
	return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_REFUSED, "%s",
	    err->msg);
}

/* A document, opened as the agent: its own permissions decide. */
static int
open_doc(struct sbxctl *ctx, struct docs *d, const char *path)
{
	struct gates_error	 err;
	int			 fd;

	if (d->n == DOCS_MAX)
		return out_usage(ctx, "gates evaluate: too many files");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		memset(&err, 0, sizeof(err));
		gl_io_error(&err, errno, path);
		return fail(ctx, &err);
	}
	d->fd[d->n++] = fd;
	return 0;
}

/* A pack dir: a pack file or a directory, never a symbolic link. */
static int
open_pack_dir(struct sbxctl *ctx, struct docs *d, const char *path)
{
	struct gates_error	 err;
	struct stat		 st;
	int			 fd;

	memset(&err, 0, sizeof(err));
	if (d->n == DOCS_MAX)
		return out_usage(ctx, "gates evaluate: too many files");
	if (lstat(path, &st) == -1) {
		gl_io_error(&err, errno, path);
		return fail(ctx, &err);
	}
	if (S_ISLNK(st.st_mode)) {
		gates_fail(&err, GATES_E_INPUT, "gate pack path must not be a "
		    "symlink: %s", path);
		return fail(ctx, &err);
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		gl_io_error(&err, errno, path);
		return fail(ctx, &err);
	}
	d->fd[d->n++] = fd;
	return 0;
}

/* The request and the descriptors, in the order the request names. */
static int
prepare(struct sbxctl *ctx, const struct gates_remote *g, struct docs *d,
    char **json)
{
	cJSON		*req, *arr = NULL, *o;
	char		*id;
	const char	*eq;
	size_t		 i, k;
	int		 r;

	if ((req = cJSON_CreateObject()) == NULL)
		fatalx("cJSON: out of memory");
	cJSON_AddStringToObject(req, "now", g->now);
	cJSON_AddStringToObject(req, "trustedBindingDigest", g->trusted);
	cJSON_AddStringToObject(req, "binding", g->binding);
	cJSON_AddStringToObject(req, "metrics", g->metrics);
	cJSON_AddStringToObject(req, "holdout", g->holdout);
	if ((r = open_doc(ctx, d, g->binding)) != 0 ||
	    (r = open_doc(ctx, d, g->metrics)) != 0 ||
	    (r = open_doc(ctx, d, g->holdout)) != 0)
		goto out;
	if (g->upstream != NULL) {
		cJSON_AddStringToObject(req, "upstream", g->upstream);
		if ((r = open_doc(ctx, d, g->upstream)) != 0)
			goto out;
	}
	if (g->npack_dirs > 0) {
		arr = cJSON_AddArrayToObject(req, "packDirs");
		for (i = 0; i < g->npack_dirs; i++) {
			cJSON_AddItemToArray(arr,
			    cJSON_CreateString(g->pack_dirs[i]));
			if ((r = open_pack_dir(ctx, d, g->pack_dirs[i])) != 0)
				goto out;
		}
	}
	if (g->nrecords > 0)
		arr = cJSON_AddArrayToObject(req, "records");
	for (i = 0; i < g->nrecords; i++) {
		if ((eq = strchr(g->records[i], '=')) == NULL ||
		    eq == g->records[i] || eq[1] == '\0') {
			r = out_usage(ctx, "gates evaluate: --records wants "
			    "PROVIDER_ID=FILE, not \"%s\"", g->records[i]);
			goto out;
		}
		xasprintf(&id, "%.*s", (int)(eq - g->records[i]),
		    g->records[i]);
		for (k = 0; k < i; k++)
			if (strncmp(g->records[k], g->records[i],
			    eq - g->records[i] + 1) == 0)
				break;
		if (k < i) {
			r = out_usage(ctx, "gates evaluate: --records names "
			    "provider %s twice", id);
			free(id);
			goto out;
		}
		if ((o = cJSON_CreateObject()) == NULL)
			fatalx("cJSON: out of memory");
		cJSON_AddStringToObject(o, "provider", id);
		cJSON_AddStringToObject(o, "file", eq + 1);
		cJSON_AddItemToArray(arr, o);
		free(id);
		if ((r = open_doc(ctx, d, eq + 1)) != 0)
			goto out;
	}
	if ((*json = cJSON_PrintUnformatted(req)) == NULL)
		fatalx("cJSON: out of memory");
	r = 0;
 out:
	cJSON_Delete(req);
	return r;
}

static int
refused(struct sbxctl *ctx, const struct sbx_msg *m)
{
	char	 code[64], msg[2048];

	if (sbx_error(m, code, sizeof(code), msg, sizeof(msg)) == -1)
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_PROTOCOL,
		    "malformed error from the monitor");
	/* The engine's refusals read as the offline evaluate's do. */
	if (strncmp(code, "gates-", 6) == 0)
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_REFUSED,
		    "%s", msg);
	return out_error(ctx, SBXCTL_EXIT_ERROR, code, "%s", msg);
}

int
gr_evaluate(struct sbxctl *ctx, const struct gates_remote *g, int *decision)
{
	struct sbx_conn	*c;
	struct sbx_msg	 m;
	struct pollfd	 pfd[2];
	struct docs	 d;
	cJSON		*rep;
	const cJSON	*dv;
	char		*json = NULL, *res = NULL;
	size_t		 reslen = 0, i;
	ssize_t		 n;
	uint32_t	 id;
	int		 p[2], r, status = SBXCTL_EXIT_OK, done = 0, eof = 0;

	*decision = 0;
	memset(&d, 0, sizeof(d));
	if ((r = prepare(ctx, g, &d, &json)) != 0) {
		docs_close(&d);
		return r;
	}
	if ((c = ctl_connect(ctx, &status)) == NULL) {
		docs_close(&d);
		cJSON_free(json);
		return status;
	}
	if (pipe2(p, O_CLOEXEC) == -1)
		fatal("pipe2");
	if (sbx_send(c, SBX_MSG_GATES_EVALUATE, json, p[1], &id) == -1)
		goto unreachable;
	close(p[1]);
	p[1] = -1;
	for (i = 0; i < d.n; i++)
		if (sbx_send_id(c, SBX_MSG_GATES_DOC, id, "{}", d.fd[i]) == -1)
			goto unreachable;
	docs_close(&d);
	cJSON_free(json);
	json = NULL;

	/* The report may be more than a pipe holds: read it meanwhile. */
	pfd[0].fd = sbx_conn_fd(c);
	pfd[0].events = POLLIN;
	pfd[1].fd = p[0];
	pfd[1].events = POLLIN;
	while (!done || !eof) {
		if (!done && (r = sbx_recv_buffered(c, &m)) == 1)
			goto message;
		if (poll(pfd, eof ? 1 : 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			fatal("poll");
		}
		if (!eof && (pfd[1].revents & (POLLIN | POLLHUP))) {
			res = xrecallocarray(res, reslen, reslen + 65536, 1);
			if ((n = read(p[0], res + reslen, 65536)) <= 0)
				eof = 1;
			else if ((reslen += n) > REPORT_MAX)
				fatalx("gates evaluate: report over %d bytes",
				    REPORT_MAX);
		}
		if (done || !(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (sbx_recv(c, &m) != 1) {
			status = out_error(ctx, SBXCTL_EXIT_UNREACHABLE,
			    SBXCTL_ERR_UNREACHABLE, "the monitor went away");
			break;
		}
 message:
		if (m.id != id && m.id != 0) {
			sbx_msg_free(&m);
			continue;
		}
		done = 1;
		if (m.type == SBX_MSG_ERROR) {
			status = refused(ctx, &m);
			eof = 1;	/* a refusal writes nothing */
		} else if ((rep = cJSON_ParseWithLength(m.json,
		    m.len)) != NULL) {
			dv = cJSON_GetObjectItemCaseSensitive(rep, "decision");
			if (cJSON_IsString(dv) &&
			    strcmp(dv->valuestring, "ROLLBACK") == 0)
				*decision = 2;
			else if (cJSON_IsString(dv) &&
			    strcmp(dv->valuestring, "HOLD") == 0)
				*decision = 1;
			cJSON_Delete(rep);
		}
		sbx_msg_free(&m);
	}
	close(p[0]);
	sbx_disconnect(c);
	if (status == SBXCTL_EXIT_OK) {
		if (reslen == 0)
			status = out_error(ctx, SBXCTL_EXIT_ERROR,
			    SBXCTL_ERR_PROTOCOL, "gates evaluate: no report");
		else if (fwrite(res, 1, reslen, stdout) != reslen)
			status = SBXCTL_EXIT_ERROR;
	}
	free(res);
	return status;
 unreachable:
	docs_close(&d);
	close(p[0]);
	if (p[1] != -1)
		close(p[1]);
	cJSON_free(json);
	sbx_disconnect(c);
	return out_error(ctx, SBXCTL_EXIT_UNREACHABLE, SBXCTL_ERR_UNREACHABLE,
	    "sending: %s", strerror(errno));
}
