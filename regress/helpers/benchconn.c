/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * benchconn: an agent that keeps its connection, for regress/bench/b_run.sh.
 *
 *	benchconn [-w warmup] socket runs program [-- command [argument ...]]
 *
 * Connects to the monitor once, then runs program (an absolute path, no
 * arguments) in a sandbox of the built-in profile runs times, each with
 * sbx_run and a wait for its EXIT event, and, interleaved run by run,
 * starts command (bwrap with the reference plan) the way such an agent
 * would start it itself: fork, exec, wait.  Each runs warmup times
 * untimed first.  Both have stdio on /dev/null.  One line each, as
 * benchrun prints them:
 *
 *	conn n N median US p90 US min US max US mean US p99 US
 *	exec n N median US p90 US min US max US mean US p99 US
 *
 * A run that does not exit 0 ends the benchmark (exit 1, the reason on
 * stderr): its time would not measure the same work.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "libsbx/sbx.h"

static __dead void
usage(void)
{
	fprintf(stderr, "usage: benchconn [-w warmup] socket runs program "
	    "[-- command [argument ...]]\n");
	exit(2);
}

static __dead void
die(const char *what, const char *why)
{
	fprintf(stderr, "benchconn: %s: %s\n", what, why);
	exit(1);
}

static uint64_t
now_ns(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		die("clock_gettime", strerror(errno));
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One sandbox on the open connection, up to its EXIT event. */
static void
sbx_once(struct sbx_conn *c, const char *req)
{
	struct sbx_msg	 m;
	const cJSON	*reason, *st;
	cJSON		*ev;
	const int	 fds[SBX_RUN_NFDS] = { -1, -1, -1, -1 };
	char		 err[512];
	uint32_t	 reqid, sandbox;
	int		 r;

	if (sbx_run(c, req, fds, &reqid, &sandbox, err, sizeof(err)) != 0)
		die("run", err);
	for (;;) {
		if ((r = sbx_recv(c, &m)) != 1)
			die("run", r == 0 ? "the monitor closed the connection" :
			    strerror(errno));
		if ((m.type == SBX_MSG_EXIT && m.id == reqid) ||
		    (m.type == SBX_MSG_ERROR && m.id == 0))
			break;
		sbx_msg_free(&m);
	}
	if (m.type == SBX_MSG_ERROR)
		die("run", m.json);
	if ((ev = cJSON_ParseWithLength(m.json, m.len)) == NULL)
		die("run", "malformed exit event");
	reason = cJSON_GetObjectItemCaseSensitive(ev, "reason");
	st = cJSON_GetObjectItemCaseSensitive(ev, "status");
	if (!cJSON_IsString(reason) || strcmp(reason->valuestring,
	    "exited") != 0 || !cJSON_IsNumber(st) || st->valueint != 0)
		die("run: the sandbox did not exit 0", m.json);
	cJSON_Delete(ev);
	sbx_msg_free(&m);
}

/* The command, started as an agent starts it: fork, exec, wait. */
static void
exec_once(char *const argv[], int null)
{
	pid_t	 pid;
	int	 st;

	if ((pid = fork()) == -1)
		die("fork", strerror(errno));
	if (pid == 0) {
		if (dup2(null, 0) == -1 || dup2(null, 1) == -1 ||
		    dup2(null, 2) == -1)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			die("waitpid", strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		die(argv[0], "did not exit 0");
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	 x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, as benchrun. */
static uint64_t
pct(const uint64_t *v, size_t n, unsigned p)
{
	size_t	 rank = (n * p + 99) / 100;

	return v[rank > 0 ? rank - 1 : 0];
}

static void
report(const char *label, uint64_t *us, size_t n)
{
	uint64_t	 sum = 0;
	size_t		 i;

	qsort(us, n, sizeof(*us), cmp_u64);
	for (i = 0; i < n; i++)
		sum += us[i];
	printf("%s n %zu median %llu p90 %llu min %llu max %llu mean %llu "
	    "p99 %llu\n", label, n, (unsigned long long)pct(us, n, 50),
	    (unsigned long long)pct(us, n, 90), (unsigned long long)us[0],
	    (unsigned long long)us[n - 1], (unsigned long long)(sum / n),
	    (unsigned long long)pct(us, n, 99));
}

int
main(int argc, char *argv[])
{
	struct sbx_conn	*c;
	cJSON		*req, *args;
	const char	*errstr;
	char		**cmd = NULL, *text, err[512];
	uint64_t	*us_conn, *us_exec, t0;
	long long	 runs, warm = 5, i;
	int		 ch, null;

	while ((ch = getopt(argc, argv, "+w:")) != -1) {
		switch (ch) {
		case 'w':
			warm = strtonum(optarg, 0, 1000, &errstr);
			if (errstr != NULL)
				usage();
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 3 || argv[2][0] != '/')
		usage();
	runs = strtonum(argv[1], 1, 1000000, &errstr);
	if (errstr != NULL)
		usage();
	if (argc > 3) {
		if (strcmp(argv[3], "--") != 0 || argc < 5)
			usage();
		cmd = &argv[4];
	}
	if ((req = cJSON_CreateObject()) == NULL ||
	    (args = cJSON_AddArrayToObject(req, "argv")) == NULL ||
	    !cJSON_AddItemToArray(args, cJSON_CreateString(argv[2])) ||
	    (text = cJSON_PrintUnformatted(req)) == NULL)
		die("cJSON", "out of memory");
	cJSON_Delete(req);
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1)
		die("/dev/null", strerror(errno));
	us_conn = xcalloc(runs, sizeof(*us_conn));
	us_exec = xcalloc(runs, sizeof(*us_exec));

	if ((c = sbx_connect(argv[0], "benchconn", err, sizeof(err))) == NULL)
		die(argv[0], err);
	for (i = -warm; i < runs; i++) {
		t0 = now_ns();
		sbx_once(c, text);
		if (i >= 0)
			us_conn[i] = (now_ns() - t0 + 500) / 1000;
		if (cmd == NULL)
			continue;
		t0 = now_ns();
		exec_once(cmd, null);
		if (i >= 0)
			us_exec[i] = (now_ns() - t0 + 500) / 1000;
	}
	sbx_disconnect(c);
	report("conn", us_conn, runs);
	if (cmd != NULL)
		report("exec", us_exec, runs);
	free(text);
	free(us_conn);
	free(us_exec);
	return 0;
}
