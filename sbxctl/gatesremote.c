/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * gatesremote.c: "sbxctl gates evaluate", through sbx-monitor: the
 * gate documents are untrusted and are parsed only in the provider runner
 * (design.md §5), which also re-runs the bundle providers a binding pins
 * (--records PROVIDER_ID=FILE; interop.md §P7) over providers the
 * monitor issued.  This side only opens the agent's files, as the agent,
 * and passes them as descriptors, and prints the report (or the
 * refusal's message) that comes back through a pipe.  There is no
 * in-process fallback: without a monitor (or with --offline) the same
 * job goes to a provider runner sbxctl starts (gatesoffline.c).
 *
 * GATES_EVALUATE carries the names (absolute, as the reference resolves
 * them, for messages and the .json rule) and the result pipe; one
 * GATES_DOC per file follows, in the order binding, metrics, holdout,
 * upstream, pack dirs, records: a descriptor, or the errno that kept
 * this side from opening it, so that the runner refuses it in the
 * reference's order.
 *
 * "sbxctl gates verify" goes the same way: GATES_VERIFY, with the
 * report's descriptor first and no clock (the report's evaluatedAt is
 * the runner's).  It re-evaluates, so it must see the same operator's
 * packs and floors and the same issued providers as evaluate; what comes
 * back through the pipe is {valid, reasons}.
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
#include "proto.h"
#include "libsbx/sbx.h"
#include "sbxctl.h"
#include "gates/gates.h"

#define REPORT_MAX	(64 * 1024 * 1024)

void
docs_close(struct docs *d)
{
	size_t	 i;

	for (i = 0; i < d->n; i++) {
		if (d->fd[i] != -1)
			close(d->fd[i]);
		free(d->name[i]);
		free(d->id[i]);
	}
	d->n = 0;
}

/*
 * A document, opened as the agent: its own permissions decide.  One that
 * cannot be opened is sent as its errno (the runner words the refusal).
 * pack: a --pack-dir, which must not be a symbolic link (sent as ELOOP).
 */
static int
open_doc(struct sbxctl *ctx, struct docs *d, const char *path, int pack,
    uint32_t kind, const char *id)
{
	int	 fd, e = 0;

	if (d->n == DOCS_MAX)
		return out_usage(ctx, "gates: too many files");
	d->kind[d->n] = kind;
	d->id[d->n] = id != NULL ? xstrdup(id) : NULL;
	d->name[d->n] = gl_abs_path(path);
	if (pack)
		fd = gl_open_pack_dir(path, &e);
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		e = errno;
	d->fd[d->n] = fd;
	d->err[d->n++] = e == 0 && fd == -1 ? EIO : e;
	return 0;
}

/* The request and the descriptors, in the order the request names. */
int
gr_prepare(struct sbxctl *ctx, const struct gates_remote *g, struct docs *d,
    char **json)
{
	cJSON		*req, *arr = NULL, *o;
	char		*id;
	const char	*eq;
	size_t		 i, k;
	int		 r;

	if ((req = cJSON_CreateObject()) == NULL)
		fatalx("cJSON: out of memory");
	if (g->report == NULL)
		cJSON_AddStringToObject(req, "now", g->now);
	cJSON_AddStringToObject(req, "trustedBindingDigest", g->trusted);
	if (g->report != NULL) {
		if ((r = open_doc(ctx, d, g->report, 0, PR_GATES_REPORT, NULL)) != 0)
			goto out;
		cJSON_AddStringToObject(req, "report", d->name[d->n - 1]);
	}
	if ((r = open_doc(ctx, d, g->binding, 0, PR_GATES_BINDING, NULL)) != 0)
		goto out;
	cJSON_AddStringToObject(req, "binding", d->name[d->n - 1]);
	if ((r = open_doc(ctx, d, g->metrics, 0, PR_GATES_METRICS, NULL)) != 0)
		goto out;
	cJSON_AddStringToObject(req, "metrics", d->name[d->n - 1]);
	if ((r = open_doc(ctx, d, g->holdout, 0, PR_GATES_HOLDOUT, NULL)) != 0)
		goto out;
	cJSON_AddStringToObject(req, "holdout", d->name[d->n - 1]);
	if (g->upstream != NULL) {
		if ((r = open_doc(ctx, d, g->upstream, 0, PR_GATES_UPSTREAM, NULL)) != 0)
			goto out;
		cJSON_AddStringToObject(req, "upstream", d->name[d->n - 1]);
	}
	if (g->npack_dirs > 0) {
		arr = cJSON_AddArrayToObject(req, "packDirs");
		for (i = 0; i < g->npack_dirs; i++) {
			if ((r = open_doc(ctx, d, g->pack_dirs[i], 1, PR_GATES_PACKDIR, NULL)) != 0)
				goto out;
			cJSON_AddItemToArray(arr,
			    cJSON_CreateString(d->name[d->n - 1]));
		}
	}
	if (g->nrecords > 0)
		arr = cJSON_AddArrayToObject(req, "records");
	for (i = 0; i < g->nrecords; i++) {
		if ((eq = strchr(g->records[i], '=')) == NULL ||
		    eq == g->records[i] || eq[1] == '\0') {
			r = out_usage(ctx, "gates: --records wants "
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
			r = out_usage(ctx, "gates: --records names "
			    "provider %s twice", id);
			free(id);
			goto out;
		}
		if ((o = cJSON_CreateObject()) == NULL)
			fatalx("cJSON: out of memory");
		if ((r = open_doc(ctx, d, eq + 1, 0, PR_GATES_RECORDS, id)) != 0) {
			cJSON_Delete(o);
			free(id);
			goto out;
		}
		cJSON_AddStringToObject(o, "provider", id);
		cJSON_AddStringToObject(o, "file", d->name[d->n - 1]);
		cJSON_AddItemToArray(arr, o);
		free(id);
	}
	if ((*json = cJSON_PrintUnformatted(req)) == NULL)
		fatalx("cJSON: out of memory");
	r = 0;
 out:
	cJSON_Delete(req);
	return r;
}

/*
 * A refusal.  The engine's (a "gates-" code) read as the reference's
 * messages do, whole: the runner wrote it to the result pipe (text),
 * the error reply's copy being bounded.
 */
static int
refused(struct sbxctl *ctx, const struct sbx_msg *m, const char *text)
{
	char	 code[64], msg[2048];

	if (sbx_error(m, code, sizeof(code), msg, sizeof(msg)) == -1)
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_PROTOCOL,
		    "malformed error from the monitor");
	if (strncmp(code, "gates-", 6) == 0)
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_REFUSED,
		    "%s", text != NULL && *text != '\0' ? text : msg);
	return out_error(ctx, SBXCTL_EXIT_ERROR, code, "%s", msg);
}

/*
 * "metric provider pin mismatch for ID" with no --records for ID: the
 * usual cause is a bundle provider's pin evaluated without the records
 * its re-run needs; say so (the refusal itself stays the reference's).
 */
void
gr_hint(struct sbxctl *ctx, const struct gates_remote *g, const char *text)
{
	static const char	 pat[] = "metric provider pin mismatch for ";
	const char		*p;
	size_t			 n, i;

	if (ctx->json || text == NULL ||
	    (p = strstr(text, pat)) == NULL)
		return;
	p += sizeof(pat) - 1;
	n = strcspn(p, " \t\r\n\"");
	if (n == 0 || n >= PR_ID_MAX)
		return;
	for (i = 0; i < g->nrecords; i++)
		if (strncmp(g->records[i], p, n) == 0 &&
		    g->records[i][n] == '=')
			return;
	fprintf(stderr, "sbxctl: hint: the binding pins provider %.*s; if "
	    "it is a bundle provider, its section comes from a re-run over "
	    "its pinned records: pass --records %.*s=FILE\n", (int)n, p,
	    (int)n, p);
}

/*
 * The monitor, or NULL with why not in err: evaluation then goes to a
 * provider runner of our own (gatesoffline.c), never into this process.
 */
static struct sbx_conn *
connect_monitor(struct sbxctl *ctx, char *err, size_t errlen)
{
	return sbx_connect(sbx_socket_path(ctx->socket), "sbxctl "
	    SBX_VERSION, err, errlen);
}

int
gr_evaluate(struct sbxctl *ctx, const struct gates_remote *g, int *decision)
{
	const char	*what = g->report != NULL ? "gates verify" :
			    "gates evaluate";
	struct sbx_conn	*c;
	struct sbx_msg	 m;
	struct pollfd	 pfd[2];
	struct docs	 d;
	cJSON		*rep;
	const cJSON	*dv;
	struct sbx_msg	 err;
	char		*json = NULL, *res = NULL, ebuf[32], cerr[512];
	size_t		 reslen = 0, i;
	ssize_t		 n;
	uint32_t	 id;
	int		 p[2], r, status = SBXCTL_EXIT_OK, done = 0, eof = 0;
	int		 failed = 0;

	/* verify: not valid until the monitor says it is. */
	*decision = g->report != NULL;
	memset(&err, 0, sizeof(err));
	memset(&d, 0, sizeof(d));
	if (g->offline || (c = connect_monitor(ctx, cerr,
	    sizeof(cerr))) == NULL) {
		if (!g->offline)
			fprintf(stderr, "sbxctl: %s: no monitor (%s): "
			    "evaluating offline in sbx-provider-runner\n",
			    what, cerr);
		return go_evaluate(ctx, g, sbx_socket_path(ctx->socket),
		    decision);
	}
	/* The floors and packs are the monitor's: a --config here would
	 * only look as if it applied. */
	if (g->config != NULL) {
		sbx_disconnect(c);
		return out_usage(ctx, "%s: --config has no effect with a "
		    "monitor at %s: its sbx.conf names the gate packs and "
		    "floors (--offline to use this one)", what,
		    sbx_socket_path(ctx->socket));
	}
	if ((r = gr_prepare(ctx, g, &d, &json)) != 0) {
		docs_close(&d);
		sbx_disconnect(c);
		return r;
	}
	if (pipe2(p, O_CLOEXEC) == -1)
		fatal("pipe2");
	if (sbx_send(c, g->report != NULL ? SBX_MSG_GATES_VERIFY :
	    SBX_MSG_GATES_EVALUATE, json, p[1], &id) == -1)
		goto unreachable;
	close(p[1]);
	p[1] = -1;
	for (i = 0; i < d.n; i++) {
		snprintf(ebuf, sizeof(ebuf), "{\"errno\":%d}", d.err[i]);
		if (sbx_send_id(c, SBX_MSG_GATES_DOC, id, d.fd[i] == -1 ?
		    ebuf : "{}", d.fd[i]) == -1)
			goto unreachable;
	}
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
			res = xrecallocarray(res, reslen, reslen + 65537, 1);
			if ((n = read(p[0], res + reslen, 65536)) <= 0)
				eof = 1;
			else if ((reslen += n) > REPORT_MAX)
				fatalx("%s: result over %d bytes", what,
				    REPORT_MAX);
		}
		if (done || !(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (sbx_recv(c, &m) != 1) {
			status = out_error(ctx, SBXCTL_EXIT_ERROR,
			    SBXCTL_ERR_UNREACHABLE, "%s: the monitor went "
			    "away", what);
			break;
		}
 message:
		if (m.id != id && m.id != 0) {
			sbx_msg_free(&m);
			continue;
		}
		done = 1;
		if (m.type == SBX_MSG_ERROR) {
			/* Its whole text follows in the pipe, if any. */
			failed = 1;
			err = m;
			continue;
		} else if ((rep = cJSON_ParseWithLength(m.json,
		    m.len)) != NULL) {
			dv = cJSON_GetObjectItemCaseSensitive(rep, "decision");
			/* verify: anything but a true "valid" is not. */
			if (g->report != NULL)
				*decision = !cJSON_IsTrue(
				    cJSON_GetObjectItemCaseSensitive(rep,
				    "valid"));
			else if (cJSON_IsString(dv) &&
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
	if (failed) {
		if (res != NULL)
			res[reslen] = '\0';
		status = refused(ctx, &err, res);
		gr_hint(ctx, g, res);
		sbx_msg_free(&err);
	} else if (status == SBXCTL_EXIT_OK) {
		if (reslen == 0)
			status = out_error(ctx, SBXCTL_EXIT_ERROR,
			    SBXCTL_ERR_PROTOCOL, "%s: no result", what);
		else if (fwrite(res, 1, reslen, g->out != NULL ? g->out :
		    stdout) != reslen)
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
	return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_UNREACHABLE,
	    "%s: sending to the monitor: %s", what, strerror(errno));
}
