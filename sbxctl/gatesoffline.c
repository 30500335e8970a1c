/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * gatesoffline.c: "sbxctl gates evaluate" and "verify" with no monitor
 * (or --offline): the same job as gatesreq.c routes, run in a provider
 * runner that sbxctl starts itself (common/rolespawn.c) -- the same
 * program under the same privilege file (seccomp allow-list, Landlock,
 * empty root, no network), the documents passed as descriptors, so the
 * report is the routed one byte for byte for the same inputs and floors.
 * The gate documents are untrusted: they are never parsed in this
 * process (design.md §5), and there is no unconfined fallback.
 *
 * This side speaks the monitor's half of the runner's channel for the
 * gates job alone: DOC per document, the operator's packs and gates
 * configuration (from --config sbx.conf, or the system's sbx.conf when
 * readable, else none: the shipped packs and default floors), EVAL with
 * the result pipe, then LOOKUP answers and DONE.  Offline no provider
 * was ever issued: a pin without a code digest is answered "not issued"
 * (the engine words that refusal as routed), and a pin of a bundle
 * provider, whose re-run needs a sandbox only sbx-monitor starts, ends
 * the evaluation with a message naming the pin and the socket tried.
 */
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "proto.h"
#include "rolespawn.h"
#include "sbxctl.h"
#include "conf/conf.h"
#include "gates/gates.h"

#define OFFLINE_JOB		1
#define OFFLINE_REPORT_MAX	(64 * 1024 * 1024)
#define OFFLINE_USER		"nobody"	/* a root caller's runner */

struct offline {
	struct role_spawned	 rs;
	const char		*what;
	const char		*sock;
	int			 done;
	struct pr_gates_done	 d;
	char			 pin[PR_ID_MAX + PR_DIGEST_MAX + 32];
};

static void
send_msg(struct offline *o, uint32_t type, int fd, const void *data,
    size_t len)
{
	if (imsg_compose(&o->rs.ibuf, type, OFFLINE_JOB, 0, fd, data,
	    len) == -1)
		fatal("%s: compose", o->what);
}

static int
add_doc(struct docs *d, uint32_t kind, const char *name, int fd, int err)
{
	if (d->n == DOCS_MAX)
		return -1;
	d->kind[d->n] = kind;
	d->id[d->n] = NULL;
	d->name[d->n] = xstrdup(name);
	d->fd[d->n] = fd;
	d->err[d->n++] = fd == -1 ? (err == 0 ? EIO : err) : 0;
	return 0;
}

/*
 * The operator's gate-packs and gates configuration, opened as the
 * monitor opens them (gatesreq.c).  0, or an exit status printed.
 */
static int
operator_docs(struct sbxctl *ctx, struct offline *o, const char *config,
    struct docs *d)
{
	struct gates_error	 err;
	char			*packs = NULL, *cfg = NULL;
	const char		*path = config;
	int			 fd, r = 0;

	if (path == NULL && access(SBX_CONF_FILE, R_OK) == 0)
		path = SBX_CONF_FILE;
	if (path == NULL) {
		fprintf(stderr, "sbxctl: %s: offline: no sbx.conf (%s not "
		    "readable): the shipped packs and their default floors "
		    "apply\n", o->what, SBX_CONF_FILE);
		return 0;
	}
	memset(&err, 0, sizeof(err));
	if (gl_conf(path, &packs, &cfg, &err) == -1)
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_REFUSED,
		    "%s: %s", o->what, err.msg);
	if (packs != NULL) {
		if ((fd = open(packs, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) == -1) {
			/* Fail closed, as the monitor: they may hold floors. */
			r = out_error(ctx, SBXCTL_EXIT_ERROR,
			    SBXCTL_ERR_REFUSED, "gate-packs %s: %s", packs,
			    strerror(errno));
			goto out;
		}
		if (add_doc(d, PR_GATES_OPERATOR, packs, fd, 0) == -1) {
			close(fd);
			r = out_usage(ctx, "gates: too many files");
			goto out;
		}
	}
	/* The floors: a missing file reads as the empty configuration. */
	fd = open(cfg, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (add_doc(d, PR_GATES_CONFIG, cfg, fd, errno) == -1) {
		if (fd != -1)
			close(fd);
		r = out_usage(ctx, "gates: too many files");
		goto out;
	}
	/* The report holds the floors' digest, not where they came from:
	 * that goes here, the report staying the routed one. */
	fprintf(stderr, "sbxctl: %s: offline: %s: gate-packs %s, floors and "
	    "ceilings from %s%s\n", o->what, path, packs != NULL ? packs :
	    "none", cfg, fd == -1 ? " (missing: none)" : "");
 out:
	free(packs);
	free(cfg);
	return r;
}

/* One message from the runner; -1 ends the job (o->pin says why). */
static int
handle(struct offline *o, struct imsg *imsg)
{
	struct pr_gates_lookup	 l;
	struct pr_gates_issued	 gi;
	int			 fd;

	if ((fd = imsg_get_fd(imsg)) != -1) {
		close(fd);
		return -1;
	}
	if (imsg_get_id(imsg) != OFFLINE_JOB)
		return -1;
	switch (imsg_get_type(imsg)) {
	case IMSG_PR_GATES_LOOKUP:
		if (imsg_get_data(imsg, &l, sizeof(l)) == -1)
			return -1;
		l.id[sizeof(l.id) - 1] = '\0';
		l.code_digest[sizeof(l.code_digest) - 1] = '\0';
		if (l.code_digest[0] != '\0') {
			snprintf(o->pin, sizeof(o->pin), "%s (codeDigest %s)",
			    l.id, l.code_digest);
			return -1;
		}
		/* Nothing was issued: the engine refuses in its words. */
		memset(&gi, 0, sizeof(gi));
		gi.index = l.index;
		gi.match = PR_GATES_NONE;
		send_msg(o, IMSG_PR_GATES_ISSUED, -1, &gi, sizeof(gi));
		return 0;
	case IMSG_PR_GATES_RERUN:
		return 0;
	case IMSG_PR_GATES_DONE:
		if (imsg_get_data(imsg, &o->d, sizeof(o->d)) == -1)
			return -1;
		o->d.kind[sizeof(o->d.kind) - 1] = '\0';
		o->d.msg[sizeof(o->d.msg) - 1] = '\0';
		o->done = 1;
		return 0;
	default:
		return -1;
	}
}

/*
 * The runner's stderr: its log lines (the monitor relays them to its
 * log); shown only when the job did not end with its DONE.
 */
static void
drain_log(int fd, char **buf, size_t *len)
{
	ssize_t	 n;

	for (;;) {
		*buf = xrecallocarray(*buf, *len, *len + 4097, 1);
		if ((n = read(fd, *buf + *len, 4096)) <= 0)
			break;
		*len += n;
		if (*len > 65536) {	/* enough to say why; keep the tail */
			memmove(*buf, *buf + *len - 32768, 32768);
			*len = 32768;
		}
	}
}

int
go_evaluate(struct sbxctl *ctx, const struct gates_remote *g,
    const char *sock, int *decision)
{
	struct offline		 o;
	struct pr_gates_doc	 pd;
	struct pr_gates_eval	 ev;
	struct pollfd		 pfd[3];
	struct imsg		 imsg;
	struct docs		 dd, *d = &dd;
	char			 dir[PATH_MAX], err[512], *res = NULL;
	char			*log = NULL, *json = NULL;
	size_t			 i, reslen = 0, loglen = 0;
	ssize_t			 n;
	int			 p[2] = { -1, -1 }, lp[2], r, eof = 0, broken = 0;
	int			 np;

	memset(&o, 0, sizeof(o));
	memset(d, 0, sizeof(*d));
	o.what = g->report != NULL ? "gates verify" : "gates evaluate";
	o.sock = sock;
	*decision = g->report != NULL;
	/* sbxctl-tools is in the roles' directory (sbxctl, in bindir,
	 * starts it). */
	if (role_dir(".", dir, sizeof(dir)) == -1)
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_IO,
		    "%s: locating sbx-provider-runner: %s", o.what,
		    strerror(errno));
	if (pipe2(lp, O_CLOEXEC | O_NONBLOCK) == -1)
		fatal("pipe2");
	/* Started first: it is confined before any document is opened. */
	r = role_spawn(dir, "sbx-provider-runner", "provider-runner",
	    OFFLINE_USER, lp[1], &o.rs, err, sizeof(err));
	close(lp[1]);
	if (r == -1) {
		drain_log(lp[0], &log, &loglen);
		close(lp[0]);
		if (loglen > 0)
			fwrite(log, 1, loglen, stderr);
		free(log);
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_IO,
		    "%s: offline: starting the provider runner: %s", o.what,
		    err);
	}
	if ((r = gr_prepare(ctx, g, d, &json)) != 0 ||
	    (r = operator_docs(ctx, &o, g->config, d)) != 0) {
		cJSON_free(json);
		docs_close(d);
		close(lp[0]);
		free(log);
		role_reap(&o.rs);
		return r;
	}
	cJSON_free(json);
	if (pipe2(p, O_CLOEXEC) == -1)
		fatal("pipe2");
	for (i = 0; i < d->n; i++) {
		memset(&pd, 0, sizeof(pd));
		pd.kind = d->kind[i];
		pd.err = d->fd[i] == -1 ? d->err[i] : 0;
		if (strlcpy(pd.name, d->name[i], sizeof(pd.name)) >=
		    sizeof(pd.name) || (d->id[i] != NULL && strlcpy(pd.id,
		    d->id[i], sizeof(pd.id)) >= sizeof(pd.id))) {
			close(p[0]);
			close(p[1]);
			close(lp[0]);
			docs_close(d);
			role_reap(&o.rs);
			return out_usage(ctx, "%s: a file name or provider id "
			    "is too long (%d, %d bytes at most)", o.what,
			    PR_GATES_NAME_MAX - 1, PR_ID_MAX - 1);
		}
		send_msg(&o, IMSG_PR_GATES_DOC, d->fd[i], &pd, sizeof(pd));
		d->fd[i] = -1;		/* imsg closes it once sent */
	}
	memset(&ev, 0, sizeof(ev));
	ev.ndocs = (uint32_t)d->n;
	ev.verify = g->report != NULL;
	ev.parallel = 1;
	if (g->report == NULL)
		strlcpy(ev.now, g->now, sizeof(ev.now));
	strlcpy(ev.trusted, g->trusted, sizeof(ev.trusted));
	docs_close(d);
	send_msg(&o, IMSG_PR_GATES_EVAL, p[1], &ev, sizeof(ev));
	p[1] = -1;
	if (imsgbuf_flush(&o.rs.ibuf) == -1)
		broken = 1;

	pfd[0].fd = o.rs.ibuf.fd;
	pfd[0].events = POLLIN;
	pfd[1].fd = p[0];
	pfd[1].events = POLLIN;
	pfd[2].fd = lp[0];
	pfd[2].events = POLLIN;
	while (!broken && (!o.done || !eof)) {
		if (!o.done) {
			if ((r = imsg_get(&o.rs.ibuf, &imsg)) == -1) {
				broken = 1;
				break;
			}
			if (r == 1) {
				r = handle(&o, &imsg);
				imsg_free(&imsg);
				if (r == -1 || imsgbuf_flush(&o.rs.ibuf) == -1)
					broken = 1;
				continue;
			}
		}
		pfd[0].fd = o.done ? -1 : o.rs.ibuf.fd;
		pfd[1].fd = eof ? -1 : p[0];
		np = pfd[2].fd == -1 ? 2 : 3;
		if (poll(pfd, np, -1) == -1) {
			if (errno == EINTR)
				continue;
			fatal("poll");
		}
		if (np == 3 && (pfd[2].revents & (POLLIN | POLLHUP))) {
			drain_log(lp[0], &log, &loglen);
			if (!(pfd[2].revents & POLLIN))
				pfd[2].fd = -1;
		}
		if (!eof && (pfd[1].revents & (POLLIN | POLLHUP))) {
			res = xrecallocarray(res, reslen, reslen + 65537, 1);
			if ((n = read(p[0], res + reslen, 65536)) <= 0)
				eof = 1;
			else if ((reslen += n) > OFFLINE_REPORT_MAX)
				fatalx("%s: result over %d bytes", o.what,
				    OFFLINE_REPORT_MAX);
		}
		if (!o.done && (pfd[0].revents & (POLLIN | POLLHUP |
		    POLLERR)) && imsgbuf_read(&o.rs.ibuf) != 1)
			broken = 1;
	}
	close(p[0]);
	if (broken)
		kill(o.rs.pid, SIGKILL);
	r = role_reap(&o.rs);
	drain_log(lp[0], &log, &loglen);
	close(lp[0]);
	/* Its log is the monitor's business routed; offline it is shown
	 * only when the runner broke off. */
	if ((broken || !o.done) && o.pin[0] == '\0' && loglen > 0)
		fwrite(log, 1, loglen, stderr);
	free(log);
	if (o.pin[0] != '\0') {
		free(res);
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_REFUSED,
		    "%s: the binding pins bundle provider %s: re-running it "
		    "needs sbx-monitor, which is not reachable at %s", o.what,
		    o.pin, sock);
	}
	if (broken || !o.done) {
		free(res);
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_PROTOCOL,
		    "%s: offline: the provider runner failed (status %d)",
		    o.what, r);
	}
	if (o.d.status != PR_GATES_OK) {
		if (res != NULL)
			res[reslen] = '\0';
		r = out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_REFUSED, "%s",
		    res != NULL && *res != '\0' ? res : o.d.msg);
		gr_hint(ctx, g, res != NULL && *res != '\0' ? res : o.d.msg);
		free(res);
		return r;
	}
	*decision = (int)o.d.decision;
	r = SBXCTL_EXIT_OK;
	if (reslen == 0)
		r = out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_PROTOCOL,
		    "%s: no result", o.what);
	else if (fwrite(res, 1, reslen, g->out != NULL ? g->out :
		    stdout) != reslen)
		r = SBXCTL_EXIT_ERROR;
	free(res);
	return r;
}
