/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * benchrun: time commands side by side, for the benchmarks.
 *
 *	benchrun [-w WARMUP] [-p PREPARE] N ::: LABEL CMD [ARG ...] ::: ...
 *
 * Each command runs WARMUP times untimed, then N times, the commands
 * interleaved run by run, so that whatever else the machine is doing
 * (other builds on the same cores, a cold cache, frequency changes) falls
 * on all of them alike instead of on whichever happened to run last.  A
 * run is timed from just before posix_spawn to just after its wait, stdio
 * on /dev/null; a run that does not exit 0 ends the benchmark, since its
 * time would not measure the same work.  PREPARE, a shell command, runs
 * untimed before every run of every command (it must exit 0): a
 * benchmark uses it to let the machine settle, such as a provider pool
 * refilling.  One line per command:
 *
 *	LABEL n N median US p90 US min US max US mean US p99 US
 *
 * A command "@sbx SOCKET PROGRAM [PROFILE]" is an agent that keeps its
 * connection: PROGRAM (an absolute path, no arguments) runs in a sandbox
 * of PROFILE (the built-in one) through one libsbx connection to SOCKET,
 * opened at its
 * first run and kept, each run timed from sbx_run to its EXIT event; the
 * other commands are then what the same agent starts itself.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "libsbx/sbx.h"

#define MAXCMDS		8
#define SEP		":::"

extern char	**environ;

struct cmd {
	const char	*label;
	char		**argv;
	uint64_t	*us;		/* N samples */
};

static void __dead
usage(void)
{
	fprintf(stderr, "usage: benchrun [-w warmup] [-p prepare] runs ::: "
	    "label command [argument ...] ...\n");
	exit(2);
}

static const char	*prepare;

/* Spawn path with argv, wait for it: its wait status. */
static int
spawn_wait(const char *path, char *const argv[],
    const posix_spawn_file_actions_t *fa)
{
	pid_t	 pid;
	int	 st, e;

	if ((e = posix_spawn(&pid, path, fa, NULL, argv, environ)) != 0) {
		fprintf(stderr, "benchrun: %s: %s\n", path, strerror(e));
		exit(1);
	}
	while (waitpid(pid, &st, 0) == -1) {
		if (errno != EINTR) {
			perror("benchrun: waitpid");
			exit(1);
		}
	}
	return st;
}

/* PREPARE, untimed; it must succeed. */
static void
prepare_run(const posix_spawn_file_actions_t *fa)
{
	char	*argv[] = { "sh", "-c", NULL, NULL };
	int	 st;

	if (prepare == NULL)
		return;
	argv[2] = (char *)prepare;
	st = spawn_wait("/bin/sh", argv, fa);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "benchrun: prepare command failed\n");
		exit(1);
	}
}

static uint64_t
now_ns(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1) {
		perror("benchrun: clock_gettime");
		exit(1);
	}
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static __dead void
sbx_die(const char *why, const char *what)
{
	fprintf(stderr, "benchrun: @sbx: %s: %s\n", why, what);
	exit(1);
}

/* "@sbx SOCKET PROGRAM [PROFILE]": one sandbox on the kept connection,
 * to its EXIT. */
static void
sbx_once(char *const argv[])
{
	static struct sbx_conn	*c;
	struct sbx_msg		 m;
	const cJSON		*reason, *st;
	cJSON			*ev;
	const int		 fds[SBX_RUN_NFDS] = { -1, -1, -1, -1 };
	char			 req[PATH_MAX + 128], err[512];
	uint32_t		 reqid, sandbox;
	int			 r;

	if (argv[1] == NULL || argv[2] == NULL || argv[2][0] != '/' ||
	    strpbrk(argv[2], "\"\\") != NULL || (argv[3] != NULL &&
	    (strpbrk(argv[3], "\"\\") != NULL || strlen(argv[3]) > 64 ||
	    argv[4] != NULL)))
		usage();
	if (c == NULL && (c = sbx_connect(argv[1], "benchrun", err,
	    sizeof(err))) == NULL)
		sbx_die(argv[1], err);
	if (argv[3] != NULL)
		snprintf(req, sizeof(req), "{\"argv\":[\"%s\"],"
		    "\"profile\":\"%s\"}", argv[2], argv[3]);
	else
		snprintf(req, sizeof(req), "{\"argv\":[\"%s\"]}", argv[2]);
	if (sbx_run(c, req, fds, &reqid, &sandbox, err, sizeof(err)) != 0)
		sbx_die("run", err);
	for (;;) {
		if ((r = sbx_recv(c, &m)) != 1)
			sbx_die("run", r == 0 ? "the monitor closed the "
			    "connection" : strerror(errno));
		if ((m.type == SBX_MSG_EXIT && m.id == reqid) ||
		    (m.type == SBX_MSG_ERROR && m.id == 0))
			break;
		sbx_msg_free(&m);
	}
	if (m.type == SBX_MSG_ERROR ||
	    (ev = cJSON_ParseWithLength(m.json, m.len)) == NULL)
		sbx_die("run", m.json);
	reason = cJSON_GetObjectItemCaseSensitive(ev, "reason");
	st = cJSON_GetObjectItemCaseSensitive(ev, "status");
	if (!cJSON_IsString(reason) || strcmp(reason->valuestring,
	    "exited") != 0 || !cJSON_IsNumber(st) || st->valueint != 0)
		sbx_die("the sandbox did not exit 0", m.json);
	cJSON_Delete(ev);
	sbx_msg_free(&m);
}

/* One run; its wall time in microseconds. */
static uint64_t
run_once(const struct cmd *c, const posix_spawn_file_actions_t *fa)
{
	uint64_t	 t0, t1;
	int		 st;

	t0 = now_ns();
	if (strcmp(c->argv[0], "@sbx") == 0) {
		sbx_once(c->argv);
		return (now_ns() - t0 + 500) / 1000;
	}
	st = spawn_wait(c->argv[0], c->argv, fa);
	t1 = now_ns();
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "benchrun: %s: %s %d\n", c->label,
		    WIFEXITED(st) ? "exited" : "killed by signal",
		    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		exit(1);
	}
	return (t1 - t0 + 500) / 1000;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	 x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted samples. */
static uint64_t
pct(const uint64_t *v, size_t n, unsigned p)
{
	size_t	 rank = (n * p + 99) / 100;

	return v[rank > 0 ? rank - 1 : 0];
}

int
main(int argc, char *argv[])
{
	posix_spawn_file_actions_t	 fa;
	struct cmd			 cmds[MAXCMDS];
	const char			*errstr;
	long long			 runs, warm = 5;
	uint64_t			 sum;
	size_t				 ncmds = 0, i, r;
	int				 a, ch;

	while ((ch = getopt(argc, argv, "+p:w:")) != -1) {
		switch (ch) {
		case 'p':
			prepare = optarg;
			break;
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
	if (argc < 1)
		usage();
	runs = strtonum(argv[0], 1, 1000000, &errstr);
	if (errstr != NULL || argc < 2 || strcmp(argv[1], SEP) != 0)
		usage();
	/* Split at ":::" in place: each command's argv ends at the next. */
	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], SEP) != 0)
			continue;
		argv[a] = NULL;
		if (a + 2 >= argc || strcmp(argv[a + 1], SEP) == 0 ||
		    strcmp(argv[a + 2], SEP) == 0 || ncmds == MAXCMDS)
			usage();
		cmds[ncmds].label = argv[a + 1];
		cmds[ncmds].argv = &argv[a + 2];
		cmds[ncmds].us = calloc((size_t)runs, sizeof(uint64_t));
		if (cmds[ncmds].us == NULL) {
			perror("benchrun: calloc");
			return 1;
		}
		ncmds++;
	}

	if (posix_spawn_file_actions_init(&fa) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
	    0) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY,
	    0) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY,
	    0) != 0) {
		fprintf(stderr, "benchrun: file actions\n");
		return 1;
	}
	for (r = 0; r < (size_t)warm; r++)
		for (i = 0; i < ncmds; i++) {
			prepare_run(&fa);
			(void)run_once(&cmds[i], &fa);
		}
	for (r = 0; r < (size_t)runs; r++)
		for (i = 0; i < ncmds; i++) {
			prepare_run(&fa);
			cmds[i].us[r] = run_once(&cmds[i], &fa);
		}

	for (i = 0; i < ncmds; i++) {
		qsort(cmds[i].us, (size_t)runs, sizeof(uint64_t), cmp_u64);
		for (r = 0, sum = 0; r < (size_t)runs; r++)
			sum += cmds[i].us[r];
		printf("%s n %lld median %llu p90 %llu min %llu max %llu "
		    "mean %llu p99 %llu\n", cmds[i].label, runs,
		    (unsigned long long)pct(cmds[i].us, (size_t)runs, 50),
		    (unsigned long long)pct(cmds[i].us, (size_t)runs, 90),
		    (unsigned long long)cmds[i].us[0],
		    (unsigned long long)cmds[i].us[runs - 1],
		    (unsigned long long)(sum / (uint64_t)runs),
		    (unsigned long long)pct(cmds[i].us, (size_t)runs, 99));
		free(cmds[i].us);
	}
	posix_spawn_file_actions_destroy(&fa);
	return 0;
}
