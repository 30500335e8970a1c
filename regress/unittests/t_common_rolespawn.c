/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_common_rolespawn: common/rolespawn.c -- the roles' directory relative
 * to our own executable, and a role started outside the monitor: the
 * built provider runner says READY (its privilege file applied) and ends
 * with its channel, as a root caller's runner never runs as root; a
 * missing program and one that exits before READY are errors that say so.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "common.h"
#include "rolespawn.h"

static void
roles(const atf_tc_t *tc, char *buf, size_t len)
{
	snprintf(buf, len, "%s/../../libexec/sbx",
	    atf_tc_get_config_var(tc, "srcdir"));
}

ATF_TC_WITHOUT_HEAD(dir);
ATF_TC_BODY(dir, tc)
{
	char	 self[PATH_MAX], want[PATH_MAX + 16], got[PATH_MAX];
	ssize_t	 n;

	(void)tc;
	ATF_REQUIRE((n = readlink("/proc/self/exe", self,
	    sizeof(self) - 1)) > 0);
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(want, sizeof(want), "%s/../x", self);
	ATF_REQUIRE(role_dir("../x", got, sizeof(got)) == 0);
	ATF_REQUIRE_STREQ(got, want);
	errno = 0;
	ATF_REQUIRE(role_dir("x", got, 4) == -1);
	ATF_REQUIRE_EQ(errno, ENAMETOOLONG);
}

ATF_TC_WITHOUT_HEAD(runner_ready);
ATF_TC_BODY(runner_ready, tc)
{
	struct role_spawned	 rs;
	struct passwd		*pw;
	char			 dir[PATH_MAX], err[512];
	int			 st;

	roles(tc, dir, sizeof(dir));
	ATF_REQUIRE_MSG(role_spawn(dir, "sbx-provider-runner",
	    "provider-runner", "nobody", -1, &rs, err, sizeof(err)) == 0,
	    "%s", err);
	ATF_REQUIRE(rs.pid > 0);
	if (getuid() == 0) {
		ATF_REQUIRE((pw = getpwnam("nobody")) != NULL);
		ATF_REQUIRE_EQ(rs.uid, pw->pw_uid);
	} else
		ATF_REQUIRE_EQ(rs.uid, getuid());
	/* The channel closed, the role ends by itself, exit 0. */
	st = role_reap(&rs);
	ATF_REQUIRE_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "status %d", st);
}

ATF_TC_WITHOUT_HEAD(refusals);
ATF_TC_BODY(refusals, tc)
{
	struct role_spawned	 rs;
	char			 dir[PATH_MAX], err[512];

	roles(tc, dir, sizeof(dir));
	ATF_REQUIRE(role_spawn(dir, "sbx-no-such-role", "x", "nobody", -1,
	    &rs, err, sizeof(err)) == -1);
	ATF_REQUIRE_MSG(strstr(err, "sbx-no-such-role: No such file") !=
	    NULL, "%s", err);
	/* A program that is no role: it ends before any READY. */
	ATF_REQUIRE(role_spawn("/bin", "true", "x", "nobody", -1, &rs, err,
	    sizeof(err)) == -1);
	ATF_REQUIRE_MSG(strstr(err, "true ended before it was ready") !=
	    NULL, "%s", err);
	if (getuid() == 0) {
		ATF_REQUIRE(role_spawn(dir, "sbx-provider-runner",
		    "provider-runner", "root", -1, &rs, err,
		    sizeof(err)) == -1);
		ATF_REQUIRE_MSG(strstr(err, "never runs as root") != NULL,
		    "%s", err);
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, dir);
	ATF_TP_ADD_TC(tp, runner_ready);
	ATF_TP_ADD_TC(tp, refusals);
	return atf_no_error();
}
