/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * selftest.c: the monitor's side of the capability self-test (one self-test
 * in three files: this, launcher/selftest.c and shim/selftest.c), fail
 * closed.  At start-up, before any agent is served, and again on every
 * STATUS request, the launcher runs the self-test in a real sandbox; the
 * monitor refuses every sandbox with "sandbox-unavailable" unless the latest
 * run passed.  There is no unsandboxed fallback.
 *
 * What the sandbox must not see is gathered here, before the monitor's
 * own filter: its namespaces, its user's home, the directory it was
 * started from, a TCP listener of its own on 127.0.0.1, and the usual
 * host paths.
 */
#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <event.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "proto.h"
#include "libsbx/sbx.h"
#include "monitor.h"

#define SELFTEST_STARTUP_WAIT	20	/* seconds, at start-up */

struct pending {
	TAILQ_ENTRY(pending)	 entry;
	struct ctl_conn		*conn;
	uint32_t		 reqid;
};
TAILQ_HEAD(pendings, pending);

static struct selftest_req	 req;
static struct selftest_result	 last;
static int			 verdict = -1;	/* -1 never ran, 0, 1 */
static int			 inflight;
static time_t			 when;
static int			 listenfd = -1;
static struct pendings		 pendings = TAILQ_HEAD_INITIALIZER(pendings);

/* Paths the built-in sandbox binds: a hidden path inside one of them
 * would be visible by design, not by a leak. */
static int
bound_by_default(const char *path)
{
	static const char *const bound[] = {
		"/usr", "/bin", "/lib", "/lib64", "/etc/ssl/certs",
		"/etc/alternatives"
	};
	size_t	 i, n;

	if (strcmp(path, "/") == 0)
		return 1;
	for (i = 0; i < nitems(bound); i++) {
		n = strlen(bound[i]);
		if (strncmp(path, bound[i], n) == 0 &&
		    (path[n] == '\0' || path[n] == '/'))
			return 1;
	}
	return 0;
}

static void
hide(const char *path)
{
	if (path == NULL || path[0] != '/' || bound_by_default(path) ||
	    req.nhidden == SELFTEST_NHIDDEN ||
	    strlen(path) >= SELFTEST_PATHMAX)
		return;
	strlcpy(req.hidden[req.nhidden++], path, SELFTEST_PATHMAX);
}

/* Before daemon(3) (which moves to /) and before the monitor's filter. */
void
selftest_init(void)
{
	static const char *const fixed[] = {
		"/etc/passwd", "/home", "/root", "/var", "/run", "/srv"
	};
	static const char *const ns[SELFTEST_NS] = {
		"user", "pid", "mnt", "net", "ipc", "uts", "cgroup"
	};
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof(sin);
	struct passwd		*pw;
	struct stat		 st;
	char			 path[64], cwd[PATH_MAX];
	size_t			 i;

	memset(&req, 0, sizeof(req));
	for (i = 0; i < SELFTEST_NS; i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns[i]);
		if (stat(path, &st) == -1)
			fatal("%s (the self-test compares namespaces)", path);
		req.ns[i] = st.st_ino;
	}
	for (i = 0; i < nitems(fixed); i++)
		hide(fixed[i]);
	if ((pw = getpwuid(getuid())) != NULL)
		hide(pw->pw_dir);
	if (getcwd(cwd, sizeof(cwd)) != NULL)
		hide(cwd);

	/* A listener nobody accepts on: a sandbox that can connect to it
	 * shares the host's network, and the self-test fails. */
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((listenfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(listenfd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(listenfd, 1) == -1 ||
	    getsockname(listenfd, (struct sockaddr *)&sin, &len) == -1)
		fatal("self-test listener on 127.0.0.1");
	req.port = ntohs(sin.sin_port);
}

void
selftest_request(void)
{
	struct role		*r = &roles[ROLE_LAUNCHER];
	struct sbx_identity	 id;
	char			 err[256];

	if (inflight)
		return;
	/* The self-test's sandbox runs as identity service sandboxes do
	 * (sandbox-user when root-started), never as the service user;
	 * conf_resolve() refused a configuration without that user. */
	if (identity_service(&id, err, sizeof(err)) == -1)
		fatalx("self-test: %s", err);
	req.host_uid = id.uid;
	req.host_gid = id.gid;
	if (imsg_compose(&r->ibuf, IMSG_LAUNCH_SELFTEST, 0, 0, -1, &req,
	    sizeof(req)) == -1)
		fatal("%s: compose", __func__);
	inflight = 1;
	proc_event_add(r);
}

void
selftest_result(struct role *r, struct imsg *imsg)
{
	struct pending	*p;

	(void)r;
	if (!inflight)
		fatalx("launcher: self-test result nobody asked for");
	if (imsg_get_data(imsg, &last, sizeof(last)) == -1)
		fatalx("%s: bad size", __func__);
	last.detail[sizeof(last.detail) - 1] = '\0';
	inflight = 0;
	when = time(NULL);
	if (verdict != last.passed)
		audit("selftest", getuid(), getpid(), "%s: %u checks, %u "
		    "failed%s%s", last.passed ? "passed" : "FAILED",
		    last.checks, last.failed, last.detail[0] ? ": " : "",
		    last.detail);
	verdict = last.passed ? 1 : 0;
	while ((p = TAILQ_FIRST(&pendings)) != NULL) {
		TAILQ_REMOVE(&pendings, p, entry);
		/* Handed on: the proxy's figures hold it from here, and
		 * come back to status_send. */
		conn_req_release(p->conn);
		egress_status(p->conn, p->reqid);
		free(p);
	}
}

/* At start-up: run it once and wait (bounded) for the verdict. */
void
selftest_startup(void)
{
	time_t	 deadline = time(NULL) + SELFTEST_STARTUP_WAIT;

	selftest_request();
	while (inflight && time(NULL) < deadline)
		event_loop(EVLOOP_ONCE);
	if (inflight) {
		log_warnx("the sandbox self-test did not finish within %d "
		    "seconds", SELFTEST_STARTUP_WAIT);
		monitor_shutdown(1);
	}
	if (verdict != 1)
		log_warnx("sandbox self-test FAILED: %s; every sandbox will be "
		    "refused (sandbox-unavailable)", last.detail);
	else
		log_info("sandbox self-test passed (%u checks)", last.checks);
}

/* STATUS: a fresh run first, then the proxy's figures and the reply
 * (egress_status, then status_send). */
void
selftest_status(struct ctl_conn *c, uint32_t reqid)
{
	struct pending	*p;

	p = xcalloc(1, sizeof(*p));
	p->conn = c;
	p->reqid = reqid;
	conn_req_hold(c);	/* until the reply (egress_stats) */
	TAILQ_INSERT_TAIL(&pendings, p, entry);
	selftest_request();
}

void
selftest_conn_gone(struct ctl_conn *c)
{
	struct pending	*p, *next;

	for (p = TAILQ_FIRST(&pendings); p != NULL; p = next) {
		next = TAILQ_NEXT(p, entry);
		if (p->conn == c) {
			TAILQ_REMOVE(&pendings, p, entry);
			free(p);
		}
	}
}

/* 1 when sandboxes may run; otherwise 0 and why. */
int
selftest_ok(char *why, size_t whylen)
{
	if (verdict == 1)
		return 1;
	if (verdict == -1)
		snprintf(why, whylen, "the sandbox self-test has not run");
	else
		snprintf(why, whylen, "the sandbox self-test failed: %s",
		    last.detail);
	return 0;
}

cJSON *
selftest_json(void)
{
	cJSON	*o;

	if ((o = cJSON_CreateObject()) == NULL)
		fatalx("out of memory");
	cJSON_AddStringToObject(o, "verdict", verdict == 1 ? "passed" :
	    verdict == 0 ? "failed" : "not run");
	cJSON_AddNumberToObject(o, "checks", last.checks);
	cJSON_AddNumberToObject(o, "failed", last.failed);
	cJSON_AddStringToObject(o, "detail", last.detail);
	cJSON_AddNumberToObject(o, "time", (double)when);
	return o;
}
