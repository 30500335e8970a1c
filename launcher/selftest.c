/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * selftest.c: the launcher's side of the capability self-test (one self-test
 * in three files: monitor/selftest.c, this, shim/selftest.c), run inside a
 * real sandbox (the built-in default spec, exactly as a command would get
 * it) whose payload child runs the checks of shim/selftest.c instead of an
 * exec.  The verdict goes back to the monitor, which refuses every sandbox
 * unless the last self-test passed: a kernel or configuration that cannot
 * isolate is found before a payload runs, never after.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto.h"
#include "spec.h"
#include "cgv2.h"
#include "launcher.h"

#define SELFTEST_TIMEOUT_MS	10000
#define SELFTEST_OUTMAX		8192

static void
detail_add(struct selftest_result *res, const char *line)
{
	if (res->detail[0] != '\0')
		strlcat(res->detail, "; ", sizeof(res->detail));
	strlcat(res->detail, line, sizeof(res->detail));
}

/* Read the payload's report until EOF or the deadline. */
static size_t
collect(int fd, struct sandbox *sb, char *buf, size_t len)
{
	struct pollfd	 pfd;
	uint64_t	 left;
	size_t		 got = 0;
	ssize_t		 n;

	for (;;) {
		if ((left = sandbox_remaining(sb)) == 0)
			break;
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left) <= 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		n = read(fd, buf + got, len - 1 - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got == len - 1)
			break;
	}
	buf[got] = '\0';
	return got;
}

/* cpus can be had: v1's cpu directory, or cpu enabled in v2's. */
static int
cpu_controller(const struct launcher_conf *lc)
{
	static const char *const cpu[] = { "cpu" };

	if (lc->cgv2)
		return cgv2_missing(lc->cgv2_dir, "cgroup.subtree_control", cpu,
		    1, NULL, 0) == 0;
	return lc->cgv1 && lc->cgv1_cpu != -1;
}

/* The sandbox's cgroup has the one-cpu quota (100 ms a 100 ms period). */
static void
check_quota(struct sandbox *sb, struct selftest_result *res)
{
	char		 path[128];
	long long	 q = -1;

	if (sb->cgroupfd != -1)
		q = cgv2_value(sb->cgroupfd, "cpu.max");
	else if (sb->cgv1_cpu != -1) {
		snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us",
		    sb->cgroup);
		q = cgv2_value(sb->cgv1_cpu, path);
	}
	res->checks++;
	if (q != 100000) {
		res->failed++;
		snprintf(path, sizeof(path), "cpus: the sandbox's cgroup "
		    "quota is %lld us, not 100000", q);
		detail_add(res, path);
	}
}

void
selftest_run(const struct launcher_conf *lc, const struct selftest_req *rq,
    struct selftest_result *res)
{
	struct sbx_spec		 spec;
	struct sandbox		 sb;
	struct sandbox_exit	 ex;
	struct sandbox_io	 io;
	char			 port[16];
	char			 ns[SELFTEST_NS][24], err[SANDBOX_ERRLEN];
	char			 out[SELFTEST_OUTMAX], *line, *next;
	int			 p[2], i, summary = 0;
	uint32_t		 h;

	memset(res, 0, sizeof(*res));
	snprintf(port, sizeof(port), "%u", rq->port);
	/* No executable: the payload child runs the checks (class
	 * SELFTEST); argv only carries their arguments. */
	if (sbx_spec_default(&spec) == -1 ||
	    sbx_spec_add_arg(&spec, "/sbx-selftest") == -1 ||
	    sbx_spec_add_arg(&spec, "-S") == -1 ||
	    sbx_spec_add_arg(&spec, port) == -1) {
		detail_add(res, "cannot build the self-test spec");
		return;
	}
	spec.class = SBX_CLASS_SELFTEST;
	for (i = 0; i < SELFTEST_NS; i++) {
		snprintf(ns[i], sizeof(ns[i]), "%" PRIu64, rq->ns[i]);
		if (sbx_spec_add_arg(&spec, ns[i]) == -1)
			return;
	}
	for (h = 0; h < rq->nhidden && h < SELFTEST_NHIDDEN; h++)
		if (sbx_spec_add_arg(&spec, rq->hidden[h]) == -1)
			return;
	spec.timeout_ms = SELFTEST_TIMEOUT_MS;
	/*
	 * The CPU limits as a profile sets them: cpu-time (the payload side
	 * checks its RLIMIT_CPU), and a one-cpu quota where this launcher
	 * has a cgroup cpu controller (checked here, in the cgroup).
	 */
	spec.cpu_time = SBX_SELFTEST_CPU_TIME;
	if (cpu_controller(lc))
		spec.cpus_milli = 1000;

	if (pipe2(p, O_CLOEXEC) == -1) {
		snprintf(err, sizeof(err), "pipe2: %s", strerror(errno));
		detail_add(res, err);
		return;
	}
	io.in = -1;
	io.out = p[1];
	io.err = -1;
	io.workdir = -1;
	io.changes = -1;
	io.csbase = -1;
	if (sandbox_spawn(&sb, lc, &spec, &io, err, sizeof(err)) == -1) {
		close(p[0]);
		close(p[1]);
		detail_add(res, err);
		return;
	}
	close(p[1]);
	if (spec.cpus_milli != 0)
		check_quota(&sb, res);
	collect(p[0], &sb, out, sizeof(out));
	close(p[0]);
	if (sandbox_wait(&sb, &ex) == -1) {
		snprintf(err, sizeof(err), "waiting: %s", strerror(errno));
		detail_add(res, err);
		sandbox_release(&sb);
		return;
	}
	sandbox_release(&sb);

	for (line = out; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strcmp(line, "selftest: 0 failed") == 0)
			summary = 1;
		else if (strncmp(line, "ok ", 3) == 0)
			res->checks++;
		else if (strncmp(line, "fail ", 5) == 0) {
			res->checks++;
			res->failed++;
			detail_add(res, line + 5);
		}
	}
	if (ex.reason != SANDBOX_EXITED) {
		sandbox_exit_format(&ex, err, sizeof(err));
		detail_add(res, err);
		return;
	}
	/* Passed: every check reported, none failed, and it said so. */
	if (WEXITSTATUS(ex.wstatus) == 0 && res->failed == 0 &&
	    res->checks > 0 && summary)
		res->passed = 1;
	if (res->checks == 0)
		detail_add(res, "the self-test payload reported nothing");
}
