/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * pingloop: an agent linked with libsbx, for regress/bench/b_control.sh.
 *
 *	pingloop SOCKET ping N
 *	pingloop SOCKET hold N
 *
 * ping: connect once, then N PING requests one after the other, each
 * waiting for its reply, and print "N requests in S s: R requests/s".
 * This is the control round trip without the cost of starting a process
 * and saying hello, which `sbxctl ping` pays every time.
 *
 * hold: open N connections, each past hello, print "holding N" once all
 * are established, and keep them open and idle until SIGTERM or SIGINT,
 * so the monitor's memory with N idle clients can be read.
 *
 * Exits 0 on success, 1 (with the reason on stderr) when the monitor
 * cannot be reached or answers anything but the expected reply: a figure
 * from a run that failed would be meaningless.
 */
#include <sys/resource.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "common.h"
#include "libsbx/sbx.h"

#define PING_MAX	100000000LL
#define HOLD_MAX	65536LL
#define FD_SPARE	16	/* stdio, and what libc may open */

static __dead void
usage(void)
{
	fprintf(stderr, "usage: pingloop socket ping|hold count\n");
	exit(1);
}

static struct sbx_conn *
dial(const char *path)
{
	struct sbx_conn	*c;
	char		 err[512];

	if ((c = sbx_connect(path, "pingloop", err, sizeof(err))) == NULL)
		fatalx("%s", err);
	return c;
}

static double
elapsed(const struct timespec *t0, const struct timespec *t1)
{
	return (double)(t1->tv_sec - t0->tv_sec) +
	    (double)(t1->tv_nsec - t0->tv_nsec) / 1e9;
}

static void
ping(const char *path, long long n)
{
	struct sbx_conn	*c;
	struct sbx_msg	 m;
	struct timespec	 t0, t1;
	char		 err[512], code[64], msg[256];
	long long	 i;
	double		 s;

	c = dial(path);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		if (sbx_call(c, SBX_MSG_PING, "{}", &m, err,
		    sizeof(err)) == -1)
			fatalx("request %lld of %lld: %s", i + 1, n, err);
		if (m.type == SBX_MSG_ERROR) {
			if (sbx_error(&m, code, sizeof(code), msg,
			    sizeof(msg)) == -1)
				fatalx("request %lld: malformed error", i + 1);
			fatalx("request %lld: %s: %s", i + 1, code, msg);
		}
		if (m.type != (SBX_MSG_PING | SBX_REPLY))
			fatalx("request %lld: reply type %#x, expected %#x",
			    i + 1, m.type, SBX_MSG_PING | SBX_REPLY);
		sbx_msg_free(&m);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sbx_disconnect(c);
	s = elapsed(&t0, &t1);
	printf("%lld requests in %.3f s: %.0f requests/s\n", n, s,
	    s > 0 ? (double)n / s : 0.0);
}

/* N connections need N descriptors: raise the soft limit if we may. */
static void
fd_room(long long n)
{
	struct rlimit	 rl;
	rlim_t		 need = (rlim_t)n + FD_SPARE;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		fatal("getrlimit RLIMIT_NOFILE");
	if (rl.rlim_cur >= need)
		return;
	if (rl.rlim_max < need)
		fatalx("hold %lld: needs %llu descriptors, RLIMIT_NOFILE hard "
		    "limit is %llu", n, (unsigned long long)need,
		    (unsigned long long)rl.rlim_max);
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		fatal("setrlimit RLIMIT_NOFILE %llu",
		    (unsigned long long)need);
}

static void
hold(const char *path, long long n)
{
	struct sbx_conn	**conns;
	sigset_t	  set;
	long long	  i;
	int		  sig;

	fd_room(n);
	/* Blocked before the first connection, so a signal sent as soon
	 * as "holding" appears is waited for, not fatal. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
		fatal("sigprocmask");
	conns = xcalloc((size_t)n, sizeof(*conns));
	for (i = 0; i < n; i++)
		conns[i] = dial(path);
	printf("holding %lld\n", n);
	if (fflush(stdout) == EOF)
		fatal("stdout");
	if ((errno = sigwait(&set, &sig)) != 0)
		fatal("sigwait");
	for (i = 0; i < n; i++)
		sbx_disconnect(conns[i]);
	free(conns);
}

int
main(int argc, char *argv[])
{
	const char	*errstr;
	long long	 n;

	log_init(1, LOG_USER);
	log_procinit("pingloop");
	if (argc != 4)
		usage();
	if (strcmp(argv[2], "ping") == 0) {
		n = strtonum(argv[3], 1, PING_MAX, &errstr);
		if (errstr != NULL)
			fatalx("ping count \"%s\" is %s (1..%lld)", argv[3],
			    errstr, PING_MAX);
		ping(argv[1], n);
	} else if (strcmp(argv[2], "hold") == 0) {
		n = strtonum(argv[3], 1, HOLD_MAX, &errstr);
		if (errstr != NULL)
			fatalx("hold count \"%s\" is %s (1..%lld)", argv[3],
			    errstr, HOLD_MAX);
		hold(argv[1], n);
	} else
		usage();
	return 0;
}
