/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_launcher_warm: warm sandboxes with the launcher's own code.  A warm
 * sandbox is built before its run is known and waits; sandbox_arm gives
 * it one run (spec and stdio), once.  pid 1 refuses a run whose spec is
 * not the one the sandbox was built from, and the run's deadline, not
 * the idle one, applies once it is armed.  Runs as root and as a user.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "spec.h"
#include "launcher/launcher.h"
/* sandbox_spawn refuses a caller with an environment (emptyenv.h). */
#define EMPTYENV_AT_START
#include "emptyenv.h"
#include "probeloc.h"

#define PROBE		"/sbx/probe"

/* A spec with the probe bound, argv as given (NULL-terminated). */
static void
spec_make(struct sbx_spec *sp, const char *const *argv)
{
	ATF_REQUIRE(sbx_spec_default(sp) == 0);
	ATF_REQUIRE(sbx_spec_add_mount(sp, SBX_MOUNT_RO, probe_path, PROBE,
	    0) == 0);
	sp->timeout_ms = 60 * 1000;
#if defined(__SANITIZE_ADDRESS__)
	sp->memory = SBX_SPEC_UNLIMITED - 1;
#endif
	for (; *argv != NULL; argv++)
		ATF_REQUIRE(sbx_spec_add_arg(sp, *argv) == 0);
}

/* A warm sandbox of the probe's spec, no stdio of its own. */
static void
warm_spawn(struct sandbox *sb, struct launcher_conf *conf)
{
	static const char *const argv[] = { "-", NULL };
	struct sandbox_io	 io;
	struct sbx_spec		 sp;
	char			 err[SANDBOX_ERRLEN];

	memset(conf, 0, sizeof(*conf));
	conf->sandbox_uid = SANDBOX_UID_DEFAULT;
	conf->sandbox_gid = SANDBOX_UID_DEFAULT;
	spec_make(&sp, argv);
	sp.warm = 1;
	io.in = io.out = io.err = io.workdir = io.changes = io.csbase = -1;
	if (sandbox_spawn(sb, conf, &sp, &io, err, sizeof(err)) == -1)
		atf_tc_fail("warm spawn: %s", err);
	ATF_REQUIRE(sb->armfd != -1);
}

/* Arm sb with argv (and an extra mount when odd is set); the payload's
 * stdin is in, its stdout a pipe read to EOF into out. */
static int
arm(struct sandbox *sb, const char *const *argv, int odd, uint32_t tmo,
    const char *in, char *out, size_t outlen, char *err, size_t errlen)
{
	static uint8_t	 buf[SBX_SPEC_WIRE_MAX];
	struct sbx_spec	 sp;
	size_t		 len, off = 0;
	ssize_t		 n;
	int		 ip[2], op[2], fds[3], rv;

	spec_make(&sp, argv);
	sp.timeout_ms = tmo;
	if (odd)
		ATF_REQUIRE(sbx_spec_add_mount(&sp, SBX_MOUNT_TMPFS, NULL,
		    "/odd", 1 << 20) == 0);
	ATF_REQUIRE(sbx_spec_serialise(&sp, buf, sizeof(buf), &len, err,
	    errlen) == 0);
	ATF_REQUIRE(pipe2(ip, O_CLOEXEC) == 0 && pipe2(op, O_CLOEXEC) == 0);
	fds[0] = ip[0];
	fds[1] = op[1];
	fds[2] = -1;
	rv = sandbox_arm(sb, buf, len, fds, tmo, err, errlen);
	close(ip[0]);
	close(op[1]);
	if (in != NULL)
		ATF_REQUIRE(write(ip[1], in, strlen(in)) ==
		    (ssize_t)strlen(in));
	close(ip[1]);
	/* No output wanted: nothing waits for the payload's EOF. */
	while (out != NULL && off + 1 < outlen && (n = read(op[0],
	    out + off, outlen - off - 1)) > 0)
		off += (size_t)n;
	if (out != NULL)
		out[off] = '\0';
	close(op[0]);
	return rv;
}

ATF_TC_WITHOUT_HEAD(arm_runs_once);
ATF_TC_BODY(arm_runs_once, tc)
{
	static const char *const cat[] = { PROBE, "cat", NULL };
	struct launcher_conf	 conf;
	struct sandbox		 sb;
	struct sandbox_exit	 ex;
	char			 out[256], err[SANDBOX_ERRLEN], how[512];
	int			 fds[3] = { -1, -1, -1 };

	probe_locate(tc);
	signal(SIGPIPE, SIG_IGN);
	warm_spawn(&sb, &conf);
	ATF_REQUIRE_MSG(arm(&sb, cat, 0, 60000, "through a warm one\n", out,
	    sizeof(out), err, sizeof(err)) == 0, "arm: %s", err);
	ATF_CHECK_STREQ(out, "through a warm one\n");
	/* Once: the arm socket is gone with the first run. */
	ATF_CHECK(sandbox_arm(&sb, (const uint8_t *)"x", 1, fds, 1000, err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "armed already") != NULL);
	ATF_REQUIRE(sandbox_wait(&sb, &ex) == 1);
	sandbox_exit_format(&ex, how, sizeof(how));
	ATF_CHECK_MSG(ex.reason == SANDBOX_EXITED &&
	    WEXITSTATUS(ex.wstatus) == 0, "%s", how);
	sandbox_release(&sb);
}

ATF_TC_WITHOUT_HEAD(arm_other_spec_refused);
ATF_TC_BODY(arm_other_spec_refused, tc)
{
	static const char *const cat[] = { PROBE, "cat", NULL };
	struct launcher_conf	 conf;
	struct sandbox		 sb;
	struct sandbox_exit	 ex;
	char			 out[256], err[SANDBOX_ERRLEN];

	probe_locate(tc);
	signal(SIGPIPE, SIG_IGN);
	warm_spawn(&sb, &conf);
	/* A run with a mount the sandbox was not built with: pid 1 ends
	 * with a setup record, and nothing of the run's ran. */
	ATF_REQUIRE_MSG(arm(&sb, cat, 1, 60000, "must not come out\n", out,
	    sizeof(out), err, sizeof(err)) == 0, "arm: %s", err);
	ATF_CHECK_STREQ(out, "");
	ATF_REQUIRE(sandbox_wait(&sb, &ex) == 1);
	ATF_CHECK_EQ(ex.reason, SANDBOX_SETUP_FAILED);
	ATF_CHECK_MSG(strstr(ex.step, "not the one this sandbox was built "
	    "from") != NULL, "step: %s", ex.step);
	sandbox_release(&sb);
}

ATF_TC_WITHOUT_HEAD(run_deadline_applies);
ATF_TC_BODY(run_deadline_applies, tc)
{
	static const char *const slp[] = { PROBE, "sleep", NULL };
	struct launcher_conf	 conf;
	struct sandbox		 sb;
	struct sandbox_exit	 ex;
	char			 err[SANDBOX_ERRLEN];

	probe_locate(tc);
	signal(SIGPIPE, SIG_IGN);
	/* Built with an idle deadline of 60 s; the run's is 300 ms. */
	warm_spawn(&sb, &conf);
	ATF_REQUIRE(sandbox_remaining(&sb) > 30000);
	ATF_REQUIRE_MSG(arm(&sb, slp, 0, 300, NULL, NULL, 0, err,
	    sizeof(err)) == 0, "arm: %s", err);
	ATF_REQUIRE(sandbox_remaining(&sb) <= 300);
	ATF_REQUIRE(sandbox_wait(&sb, &ex) == 1);
	ATF_CHECK_EQ(ex.reason, SANDBOX_TIMEOUT);
	sandbox_release(&sb);
}

ATF_TC_WITHOUT_HEAD(released_unarmed);
ATF_TC_BODY(released_unarmed, tc)
{
	struct launcher_conf	 conf;
	struct sandbox		 sb;
	struct sandbox_exit	 ex;

	probe_locate(tc);
	warm_spawn(&sb, &conf);
	/* Its end of the arm socket closed: pid 1 ends, no payload. */
	close(sb.armfd);
	sb.armfd = -1;
	ATF_REQUIRE(sandbox_wait(&sb, &ex) == 1);
	ATF_CHECK_MSG(ex.reason != SANDBOX_EXITED ||
	    WEXITSTATUS(ex.wstatus) != 0, "a warm sandbox without a run "
	    "reported a payload's success");
	sandbox_release(&sb);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, arm_runs_once);
	ATF_TP_ADD_TC(tp, arm_other_spec_refused);
	ATF_TP_ADD_TC(tp, run_deadline_applies);
	ATF_TP_ADD_TC(tp, released_unarmed);
	return atf_no_error();
}
