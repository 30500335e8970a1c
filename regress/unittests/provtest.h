/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * provtest.h: helpers shared by the provider unit tests
 * (t_provider_snapshot, t_provider_manifest, t_provider_allowlist,
 * t_provider_frame, t_provider_pin, t_provider_run): building bundle trees
 * in the test's work directory, finding the source tree and node, and
 * running a program with input and captured output.  Static functions, each
 * test program uses a subset.
 */
#ifndef PROVTEST_H
#define PROVTEST_H

#include <sys/stat.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "provider/provider.h"

#define TP_UNUSED	__attribute__((__unused__))

extern char **environ;

/* mkdir -p for the directories of path (and path itself if dir). */
static TP_UNUSED void
tp_mkdirs(const char *path, int self)
{
	char	 buf[PATH_MAX], *p;

	ATF_REQUIRE(strlcpy(buf, path, sizeof(buf)) < sizeof(buf));
	for (p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) == -1 && errno != EEXIST)
			atf_tc_fail("mkdir %s: %s", buf, strerror(errno));
		*p = '/';
	}
	if (self && mkdir(buf, 0755) == -1 && errno != EEXIST)
		atf_tc_fail("mkdir %s: %s", buf, strerror(errno));
}

static TP_UNUSED void
tp_write(const char *path, const void *buf, size_t len)
{
	int	 fd;

	tp_mkdirs(path, 0);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1)
		atf_tc_fail("open %s: %s", path, strerror(errno));
	ATF_REQUIRE_EQ_MSG(write(fd, buf, len), (ssize_t)len, "write %s",
	    path);
	close(fd);
}

static TP_UNUSED void
tp_writes(const char *path, const char *s)
{
	tp_write(path, s, strlen(s));
}

/* A file of len bytes of c. */
static TP_UNUSED void
tp_fill(const char *path, size_t len, int c)
{
	char	*buf = xmalloc(len == 0 ? 1 : len);

	memset(buf, c, len);
	tp_write(path, buf, len);
	free(buf);
}

static TP_UNUSED int
tp_opendir(const char *path)
{
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		atf_tc_fail("open %s: %s", path, strerror(errno));
	return fd;
}

/* The source tree: srcdir is build/regress/unittests, top is beside it. */
static TP_UNUSED void
tp_top(const atf_tc_t *tc, char *buf, size_t len)
{
	char	 p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/../top",
	    atf_tc_get_config_var(tc, "srcdir"));
	ATF_REQUIRE_MSG(realpath(p, buf) != NULL && strlen(buf) < len,
	    "realpath %s: %s", p, strerror(errno));
}

/* node from PATH, or skip: every provider run needs it. */
static TP_UNUSED void
tp_node(char *buf, size_t len)
{
	const char	*path = getenv("PATH");
	char		*copy, *dir, *save = NULL;

	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir != NULL;
	    dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, len, "%s/node", dir);
		if (access(buf, X_OK) == 0) {
			free(copy);
			return;
		}
	}
	free(copy);
	atf_tc_skip("node is not on PATH; provider runs need it "
	    "(scripts/deps installs nodejs)");
}

/*
 * Run argv[0] with input on stdin and stdout captured (stderr passes
 * through for the test log); the wait status.  Both pipes are driven
 * with poll, so a child that writes before it has read all its input
 * cannot deadlock us.
 */
static TP_UNUSED int
tp_run(const char *const argv[], const void *in, size_t inlen, char **outp,
    size_t *outlenp)
{
	posix_spawn_file_actions_t	 fa;
	struct pollfd			 pfd[2];
	char				*out = NULL;
	size_t				 off = 0, len = 0, cap = 0;
	ssize_t				 n;
	pid_t				 pid;
	int				 ip[2], op[2], status, r;

	ATF_REQUIRE(pipe2(ip, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(op, O_CLOEXEC) == 0);
	ATF_REQUIRE(posix_spawn_file_actions_init(&fa) == 0);
	ATF_REQUIRE(posix_spawn_file_actions_adddup2(&fa, ip[0], 0) == 0);
	ATF_REQUIRE(posix_spawn_file_actions_adddup2(&fa, op[1], 1) == 0);
	r = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv,
	    environ);
	ATF_REQUIRE_MSG(r == 0, "spawn %s: %s", argv[0], strerror(r));
	posix_spawn_file_actions_destroy(&fa);
	close(ip[0]);
	close(op[1]);
	signal(SIGPIPE, SIG_IGN);
	if (inlen == 0) {
		close(ip[1]);
		ip[1] = -1;
	}
	for (;;) {
		pfd[0].fd = ip[1];
		pfd[0].events = POLLOUT;
		pfd[1].fd = op[0];
		pfd[1].events = POLLIN;
		if (pfd[1].fd == -1 && pfd[0].fd == -1)
			break;
		if (poll(pfd, 2, -1) == -1) {
			ATF_REQUIRE(errno == EINTR);
			continue;
		}
		if (pfd[0].fd != -1 && pfd[0].revents != 0) {
			n = write(ip[1], (const char *)in + off, inlen - off);
			if (n > 0)
				off += (size_t)n;
			if (n == -1 || off == inlen) {
				close(ip[1]);
				ip[1] = -1;
			}
		}
		if (pfd[1].fd != -1 && pfd[1].revents != 0) {
			if (len == cap) {
				out = xrecallocarray(out, cap,
				    cap == 0 ? 65536 : cap * 2, 1);
				cap = cap == 0 ? 65536 : cap * 2;
			}
			n = read(op[0], out + len, cap - len);
			if (n <= 0) {
				close(op[0]);
				op[0] = -1;
			} else
				len += (size_t)n;
		}
	}
	while (waitpid(pid, &status, 0) == -1)
		ATF_REQUIRE(errno == EINTR);
	*outp = out;
	*outlenp = len;
	return status;
}

/* Check a refusal: the code, and the message contains want. */
#define TP_CHECK_ERR(r, err, wcode, want) do {				\
	ATF_CHECK_EQ_MSG((r), -1, "accepted; expected %s: %s",		\
	    prov_code_name(wcode), (want));				\
	if ((r) == -1) {						\
		ATF_CHECK_STREQ_MSG(prov_code_name((err).code),		\
		    prov_code_name(wcode), "code for \"%s\"",		\
		    (err).msg);						\
		ATF_CHECK_MSG(strstr((err).msg, (want)) != NULL,	\
		    "message \"%s\" lacks \"%s\"", (err).msg, (want));	\
	}								\
} while (0)

#endif /* PROVTEST_H */
