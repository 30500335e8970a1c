/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * run.c: sbxctl run -- run a command in a fresh sandbox and behave like
 * running it directly.  The payload gets sbxctl's own stdin, stdout and
 * stderr (passed as descriptors, so output streams), SIGINT, SIGQUIT,
 * SIGTERM and SIGHUP to sbxctl reach its process group, as a terminal's
 * would, and sbxctl exits with its status (128+N for
 * a signal, as a shell reports it).  What went wrong on sbx's side has its
 * own exit codes (sbxctl(1)) and a line on stderr saying why.
 */
#include <sys/types.h>
#include <sys/signalfd.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "libsbx/sbx.h"
#include "sbxctl.h"

const char *const cmd_run_synopsis[] = {
	"run [-T | --no-pty] [--overlay | --overlay-into ID] [--stats] "
	    "[-p profile] [-t seconds] [-w dir] [-e name[=value]] -- command "
	    "[argument ...]",
	NULL
};

static int
fd_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

/*
 * One line for each limit that ended or held back the run (the EXIT
 * event's "limits_hit", whose words are "limit"'s): "sbxctl: limit
 * memory: ...".  How many; none with --json, which has the event.
 */
static int
limit_lines(struct sbxctl *ctx, const cJSON *ev)
{
	const cJSON	*hits, *h, *w, *msg;
	int		 n = 0;

	hits = cJSON_GetObjectItemCaseSensitive(ev, "limits_hit");
	cJSON_ArrayForEach(h, hits) {
		w = cJSON_GetObjectItemCaseSensitive(h, "limit");
		msg = cJSON_GetObjectItemCaseSensitive(h, "message");
		if (!cJSON_IsString(w) || !cJSON_IsString(msg))
			continue;
		if (!ctx->json)
			fprintf(stderr, "sbxctl: limit %s: %s\n", w->valuestring,
			    msg->valuestring);
		n++;
	}
	return n;
}

static double
stat_num(const cJSON *stats, const char *name)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(stats, name);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* " stdout_error=EPIPE" when the relay of that stream ended early. */
static void
stat_error(const cJSON *stats, const char *name)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(stats, name);

	if (cJSON_IsString(v))
		fprintf(stderr, " %s=%s", name, v->valuestring);
}

/* --stats: what the run cost, one line, key=value (sbxctl(1)). */
static void
stats_line(struct sbxctl *ctx, const cJSON *ev)
{
	const cJSON	*stats, *src;

	(void)ctx;
	stats = cJSON_GetObjectItemCaseSensitive(ev, "stats");
	if (!cJSON_IsObject(stats)) {
		fprintf(stderr, "sbxctl: stats: none (the sandbox did not "
		    "start)\n");
		return;
	}
	src = cJSON_GetObjectItemCaseSensitive(stats, "peak_source");
	fprintf(stderr, "sbxctl: stats: wall_ms=%.0f user_ms=%.0f "
	    "sys_ms=%.0f peak_memory=%.0f peak_source=%s",
	    stat_num(stats, "wall_ms"), stat_num(stats, "user_ms"),
	    stat_num(stats, "sys_ms"), stat_num(stats, "peak_memory"),
	    cJSON_IsString(src) ? src->valuestring : "none");
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(stats, "tasks")))
		fprintf(stderr, " tasks=%.0f", stat_num(stats, "tasks"));
	fprintf(stderr, " stdout_bytes=%.0f stderr_bytes=%.0f",
	    stat_num(stats, "stdout_bytes"), stat_num(stats, "stderr_bytes"));
	stat_error(stats, "stdout_error");
	stat_error(stats, "stderr_error");
	fputc('\n', stderr);
}

/* The exit status a shell would give, and sbx's own for its failures. */
static int
exit_code(struct sbxctl *ctx, const cJSON *ev)
{
	const cJSON	*reason, *st, *sig, *step, *err, *msg;
	const char	*r, *m;
	int		 nlim;

	reason = cJSON_GetObjectItemCaseSensitive(ev, "reason");
	st = cJSON_GetObjectItemCaseSensitive(ev, "status");
	sig = cJSON_GetObjectItemCaseSensitive(ev, "signal");
	step = cJSON_GetObjectItemCaseSensitive(ev, "step");
	err = cJSON_GetObjectItemCaseSensitive(ev, "error");
	msg = cJSON_GetObjectItemCaseSensitive(ev, "message");
	r = cJSON_IsString(reason) ? reason->valuestring : "";
	m = cJSON_IsString(msg) ? msg->valuestring : r;

	if (ctx->json) {
		char	*s = cJSON_PrintUnformatted(ev);

		if (s != NULL)
			fprintf(stderr, "%s\n", s);
		cJSON_free(s);
	}
	nlim = limit_lines(ctx, ev);
	if (ctx->stats)
		stats_line(ctx, ev);
	if (strcmp(r, "exited") == 0 && cJSON_IsNumber(st))
		return (int)st->valuedouble;
	if (strcmp(r, "signaled") == 0 && cJSON_IsNumber(sig))
		return 128 + (int)sig->valuedouble;
	/* A limit's own line already said why it ended. */
	if (!ctx->json && nlim == 0)
		fprintf(stderr, "sbxctl: sandbox %s\n", m);
	if (strcmp(r, "limit") == 0 && cJSON_IsNumber(sig))
		return 128 + (int)sig->valuedouble;
	if (strcmp(r, "timeout") == 0)
		return SBXCTL_EXIT_TIMEOUT;
	if (strcmp(r, "setup-failed") == 0 && cJSON_IsString(step) &&
	    strncmp(step->valuestring, "execve ", 7) == 0 &&
	    cJSON_IsString(err)) {
		if (strcmp(err->valuestring, "ENOENT") == 0)
			return SBXCTL_EXIT_NOTFOUND;
		if (strcmp(err->valuestring, "EACCES") == 0 ||
		    strcmp(err->valuestring, "ENOEXEC") == 0)
			return SBXCTL_EXIT_NOEXEC;
	}
	if (strcmp(r, "killed") == 0)
		return 128 + SIGKILL;
	return SBXCTL_EXIT_SBX;
}

static const char *
signame(int sig)
{
	switch (sig) {
	case SIGINT:
		return "INT";
	case SIGHUP:
		return "HUP";
	case SIGQUIT:
		return "QUIT";
	default:
		return "TERM";
	}
}

/*
 * The EXIT event for our request.  1 and *status when m is it, 0 for
 * anything else (replies to our signals, errors about them).  An error
 * about the connection as a whole (id 0: the service is stopping, a role
 * was lost or stopped answering) ends the wait with its reason.
 */
static int
exit_event(struct sbxctl *ctx, struct sbx_msg *m, uint32_t reqid,
    int *status)
{
	cJSON	*ev;
	char	 code[64], msg[512];

	if ((m->type == SBX_MSG_ERROR && m->id == 0) ||
	    (m->type == SBX_MSG_EXIT && m->id == reqid))
		tty_restore();	/* before anything is printed */
	if (m->type == SBX_MSG_ERROR && m->id == 0) {
		if (sbx_error(m, code, sizeof(code), msg, sizeof(msg)) == -1)
			fatalx("run: malformed error from the monitor");
		*status = out_error(ctx, SBXCTL_EXIT_SBX, code, "%s: run: %s",
		    code, msg);
		sbx_msg_free(m);
		return 1;
	}
	if (m->type != SBX_MSG_EXIT || m->id != reqid) {
		sbx_msg_free(m);
		return 0;
	}
	if ((ev = cJSON_ParseWithLength(m->json, m->len)) == NULL)
		fatalx("run: malformed exit event");
	/* --overlay: what the run changed is kept (issue 23). */
	if (!ctx->json && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(ev,
	    "changes")))
		fprintf(stderr, "sbx: changes kept as %s\n",
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev,
		    "changes")));
	if (!ctx->json && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(ev,
	    "changes_error")))
		fprintf(stderr, "sbx: changes not kept: %s\n",
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev,
		    "changes_error")));
	*status = exit_code(ctx, ev);
	cJSON_Delete(ev);
	sbx_msg_free(m);
	return 1;
}

/*
 * Forward signals until the sandbox's EXIT event comes.  Messages that
 * arrived with an earlier read are taken first: poll() cannot see them,
 * and an EXIT that came together with the RUN reply (a short payload)
 * would otherwise be waited for forever.
 */
static int
wait_exit(struct sbxctl *ctx, struct sbx_conn *c, int sfd, uint32_t reqid,
    uint32_t sandbox)
{
	struct signalfd_siginfo	 ssi;
	struct sbx_msg		 m;
	struct pollfd		 pfd[2];
	char			 json[96];
	unsigned		 rows, cols;
	int			 r, status;

	memset(&ssi, 0, sizeof(ssi));
	pfd[0].fd = sbx_conn_fd(c);
	pfd[0].events = POLLIN;
	pfd[1].fd = sfd;
	pfd[1].events = POLLIN;
	for (;;) {
		while ((r = sbx_recv_buffered(c, &m)) == 1)
			if (exit_event(ctx, &m, reqid, &status))
				return status;
		if (r == -1)
			break;
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			fatal("poll");
		}
		if (pfd[1].revents & POLLIN) {
			if (read(sfd, &ssi, sizeof(ssi)) == sizeof(ssi) &&
			    ssi.ssi_signo == SIGWINCH) {
				if (tty_size(STDIN_FILENO, &rows, &cols) == 0 ||
				    tty_size(STDOUT_FILENO, &rows, &cols) == 0)
					(void)sbx_resize(c, sandbox, rows,
					    cols);
			} else if (ssi.ssi_signo != 0) {
				snprintf(json, sizeof(json), "{\"sandbox\":%u,"
				    "\"signal\":\"%s\"}", sandbox,
				    signame((int)ssi.ssi_signo));
				(void)sbx_send(c, SBX_MSG_SIGNAL, json, -1,
				    NULL);
			}
		}
		if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (sbx_recv(c, &m) != 1)
			break;
		if (exit_event(ctx, &m, reqid, &status))
			return status;
	}
	tty_restore();
	return out_error(ctx, SBXCTL_EXIT_SBX, SBXCTL_ERR_UNREACHABLE,
	    "run: the monitor went away before sandbox %u ended", sandbox);
}

int
cmd_run(struct sbxctl *ctx, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "pty", no_argument, NULL, 'T' },
		{ "no-pty", no_argument, NULL, 'N' },
		{ "stats", no_argument, NULL, 'S' },
		{ "overlay", no_argument, NULL, 'O' },
		{ "overlay-into", required_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 }
	};
	struct sbx_conn		*c;
	sigset_t		 set;
	const char		*profile = NULL, *tmo = NULL, *wdir = NULL;
	const char		*errstr, *v;
	cJSON			*req, *args, *env;
	char			 err[512], *text, *eq;
	int			 fds[SBX_RUN_NFDS], ch, i, sfd, r, status;
	uint32_t		 reqid, sandbox;
	long long		 secs;
	unsigned		 rows, cols;
	int			 pty = -1;	/* -1: if both are terminals */
	int			 overlay = 0;
	const char		*into = NULL;

	if ((req = cJSON_CreateObject()) == NULL ||
	    (env = cJSON_CreateObject()) == NULL)
		fatalx("cJSON: out of memory");
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+e:p:t:Tw:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'e':
			if ((eq = strchr(optarg, '=')) != NULL) {
				*eq = '\0';
				v = eq + 1;
			} else if ((v = getenv(optarg)) == NULL) {
				r = out_usage(ctx, "run: -e %s: not set in "
				    "the environment (use -e %s=value)",
				    optarg, optarg);
				goto fail;
			}
			if (*optarg == '\0') {
				r = out_usage(ctx, "run: -e: empty name");
				goto fail;
			}
			cJSON_DeleteItemFromObjectCaseSensitive(env, optarg);
			cJSON_AddStringToObject(env, optarg, v);
			break;
		case 'p':
			profile = optarg;
			break;
		case 't':
			tmo = optarg;
			break;
		case 'w':
			wdir = optarg;
			break;
		case 'J':
			ctx->json = 1;
			break;
		case 'T':
			pty = 1;
			break;
		case 'N':
			pty = 0;
			break;
		case 'S':
			ctx->stats = 1;
			break;
		case 'O':
			overlay = 1;
			break;
		case 'I':
			into = optarg;
			break;
		default:
			r = out_usage(ctx, "run: unknown option or missing "
			    "argument");
			goto fail;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		r = out_usage(ctx, "run: no command given");
		goto fail;
	}
	/*
	 * The command goes as typed: the sandbox resolves it from its own
	 * working directory and PATH (the shim, as a shell would), since a
	 * host path means nothing inside (the workdir is mounted elsewhere,
	 * the host's PATH names host directories).
	 */
	if (argv[0][0] == '\0') {
		r = out_usage(ctx, "run: empty command");
		goto fail;
	}

	if ((args = cJSON_AddArrayToObject(req, "argv")) == NULL)
		fatalx("cJSON: out of memory");
	for (i = 0; i < argc; i++)
		cJSON_AddItemToArray(args, cJSON_CreateString(argv[i]));
	if (profile != NULL)
		cJSON_AddStringToObject(req, "profile", profile);
	if (tmo != NULL) {
		secs = strtonum(tmo, 1, 86400 * 365, &errstr);
		if (errstr != NULL) {
			r = out_usage(ctx, "run: -t %s: %s", tmo, errstr);
			goto fail;
		}
		cJSON_AddNumberToObject(req, "timeout", (double)secs);
	}
	/* Like ssh: a pty when both ends are a terminal, or when asked. */
	if (pty == -1)
		pty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	if (pty) {
		if (!fd_open(STDIN_FILENO) || !fd_open(STDOUT_FILENO)) {
			r = out_usage(ctx, "run: -T: stdin and stdout must be "
			    "open");
			goto fail;
		}
		cJSON_AddBoolToObject(req, "pty", 1);
		if (tty_size(STDIN_FILENO, &rows, &cols) == 0 ||
		    tty_size(STDOUT_FILENO, &rows, &cols) == 0) {
			cJSON_AddNumberToObject(req, "rows", rows);
			cJSON_AddNumberToObject(req, "cols", cols);
		}
	}
	if (overlay || into != NULL) {
		if (wdir == NULL) {
			r = out_usage(ctx, "run: %s: needs -w DIR", overlay ?
			    "--overlay" : "--overlay-into");
			goto fail;
		}
		if (overlay && into != NULL) {
			r = out_usage(ctx, "run: --overlay or --overlay-into, "
			    "not both");
			goto fail;
		}
		/* t0_us: when this agent asked, sbxctl's start; the
		 * monitor takes it for the changeset's T0 when it lies
		 * within the last second (sbx-protocol(7)). */
		if (overlay) {
			cJSON_AddBoolToObject(req, "overlay", 1);
			if (ctx->t_main > 0)
				cJSON_AddNumberToObject(req, "t0_us",
				    (double)(ctx->t_main / 1000));
		} else
			cJSON_AddStringToObject(req, "overlay_into", into);
	}
	if (cJSON_GetArraySize(env) > 0)
		cJSON_AddItemToObject(req, "env", env);
	else
		cJSON_Delete(env);
	env = NULL;		/* req's now, or gone */

	/* A closed descriptor of ours is /dev/null inside. */
	for (i = 0; i < 3; i++)
		fds[i] = fd_open(i) ? i : -1;
	fds[3] = -1;
	if (wdir != NULL && (fds[3] = open(wdir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1) {
		r = out_error(ctx, SBXCTL_EXIT_SBX, SBXCTL_ERR_IO,
		    "run: -w %s: %s", wdir, strerror(errno));
		goto fail;
	}

	if ((c = ctl_connect(ctx, &status)) == NULL) {
		if (fds[3] != -1)
			close(fds[3]);
		r = SBXCTL_EXIT_SBX;
		goto fail;
	}
	/* Signals are ours to forward from here on. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (pty)
		sigaddset(&set, SIGWINCH);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1 ||
	    (sfd = signalfd(-1, &set, SFD_CLOEXEC)) == -1)
		fatal("signalfd");
	/* Every key to the sandbox's pty, whose line discipline does ^C,
	 * ^Z and ^\; restored on every way out (tty.c). */
	if (pty && isatty(STDIN_FILENO) && tty_raw(STDIN_FILENO) == -1)
		fatal("run: raw mode on stdin");

	if ((text = cJSON_PrintUnformatted(req)) == NULL)
		fatalx("cJSON: out of memory");
	cJSON_Delete(req);
	r = sbx_run(c, text, fds, &reqid, &sandbox, err, sizeof(err));
	free(text);
	if (fds[3] != -1)
		close(fds[3]);
	if (r != 0) {
		tty_restore();
		sbx_disconnect(c);
		return out_error(ctx, SBXCTL_EXIT_SBX, r == 1 ? "refused" :
		    SBXCTL_ERR_UNREACHABLE, "%s", err);
	}

	status = wait_exit(ctx, c, sfd, reqid, sandbox);
	sbx_disconnect(c);
	close(sfd);
	return status;

 fail:
	/* A refusal before the request went out: nothing of it is kept. */
	cJSON_Delete(env);
	cJSON_Delete(req);
	return r;
}
