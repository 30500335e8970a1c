/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_launcher_spawn: what sandbox_spawn refuses before any namespace exists (a
 * caller with an environment among it), the exit report's wording, and
 * the namespace diagnostics.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "spec.h"
#include "launcher/launcher.h"
#include "emptyenv.h"

/* refuses_environment starts this program again with it set. */
#define ENV_CHILD	"SBX_T_LAUNCHER_SPAWN_WITH_ENVIRONMENT"

static void	 environment_setup(int, char *[], char *[])
		    __attribute__((__constructor__));

static void
conf_init(struct launcher_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->sandbox_uid = SANDBOX_UID_DEFAULT;
	c->sandbox_gid = SANDBOX_UID_DEFAULT;
}

static void
spec_init(struct sbx_spec *sp)
{
	ATF_REQUIRE(sbx_spec_default(sp) == 0);
	ATF_REQUIRE(sbx_spec_add_arg(sp, "/usr/bin/true") == 0);
}

/*
 * Before main().  Normally: start over with an empty environment, which
 * sandbox_spawn requires (emptyenv.h).  As refuses_environment's child,
 * started with an environment on purpose: try to spawn a valid sandbox,
 * print the launcher's answer and exit, without ATF.
 */
static void
environment_setup(int argc, char *argv[], char *envp[])
{
	struct launcher_conf	 c;
	struct sbx_spec		 sp;
	struct sandbox_io	 io = { -1, -1, -1, -1, -1, -1 };
	struct sandbox		 sb;
	struct sandbox_exit	 ex;
	char			 err[SANDBOX_ERRLEN] = "";

	(void)argc;
	if (getenv(ENV_CHILD) == NULL) {
		emptyenv_reexec(argv, envp);
		return;
	}
	memset(&c, 0, sizeof(c));
	c.sandbox_uid = c.sandbox_gid = SANDBOX_UID_DEFAULT;
	if (sbx_spec_default(&sp) == -1 ||
	    sbx_spec_add_arg(&sp, "/usr/bin/true") == -1)
		_exit(3);
	if (sandbox_spawn(&sb, &c, &sp, &io, err, sizeof(err)) == 0) {
		dprintf(STDOUT_FILENO, "spawned\n");
		(void)sandbox_wait(&sb, &ex);
		sandbox_release(&sb);
		_exit(2);
	}
	dprintf(STDOUT_FILENO, "%s\n", err);
	_exit(0);
}

static void
refuse(const struct launcher_conf *c, const struct sbx_spec *sp,
    const struct sandbox_io *io, const char *want)
{
	struct sandbox	 sb;
	char		 err[SANDBOX_ERRLEN] = "";

	ATF_CHECK_EQ_MSG(sandbox_spawn(&sb, c, sp, io, err, sizeof(err)), -1,
	    "spawned although it should fail with \"%s\"", want);
	ATF_CHECK_MSG(strstr(err, want) != NULL,
	    "error \"%s\" does not mention \"%s\"", err, want);
	ATF_CHECK_EQ(sb.pidfd, -1);
}

ATF_TC_WITHOUT_HEAD(spawn_refusals);
ATF_TC_BODY(spawn_refusals, tc)
{
	struct launcher_conf	 c;
	struct sbx_spec		 sp;
	struct sandbox_io	 io = { -1, -1, -1, -1, -1, -1 };
	int			 dirfd, filefd;

	conf_init(&c);
	spec_init(&sp);
	c.sandbox_uid = 0;
	refuse(&c, &sp, &io, "id 0 inside a sandbox is refused");

	conf_init(&c);
	c.map_host = 1;
	c.host_uid = c.host_gid = 0;
	refuse(&c, &sp, &io, "never mapped to host root");

	conf_init(&c);
	sp.timeout_ms = 0;
	refuse(&c, &sp, &io, "spec refused: timeout_ms 0");

	spec_init(&sp);
	sp.workdir = "/work";
	sp.workdir_fd = 1;
	refuse(&c, &sp, &io, "no directory fd was given");

	ATF_REQUIRE((dirfd = open(".", O_RDONLY | O_DIRECTORY)) != -1);
	ATF_REQUIRE((filefd = open("/dev/null", O_RDONLY)) != -1);
	io.workdir = filefd;
	refuse(&c, &sp, &io, "not a directory");
	spec_init(&sp);
	io.workdir = dirfd;
	refuse(&c, &sp, &io, "the spec names no workdir");
	io.workdir = -1;

	/* A cgroup v2 subtree in which the sandbox's cgroup cannot be
	 * made refuses the spawn (fail closed), naming it. */
	c.cgv2 = 1;
	c.cgv2_dir = filefd;
	strlcpy(c.cgv2_path, "/fake/sbx.1000", sizeof(c.cgv2_path));
	refuse(&c, &sp, &io, "cgroup /fake/sbx.1000/sbx.");
	refuse(&c, &sp, &io, "mkdir: ENOTDIR");
	close(dirfd);
	close(filefd);
}

/*
 * pid 1 of a sandbox is a copy of the caller and shows the caller's
 * exec-time environment as /proc/1/environ: a caller started with one is
 * refused before anything is created, and told why.
 */
ATF_TC_WITHOUT_HEAD(refuses_environment);
ATF_TC_BODY(refuses_environment, tc)
{
	char *const	 argv[] = { "t_launcher_spawn", NULL };
	char *const	 envp[] = { ENV_CHILD "=1", "SECRET=leak123", NULL };
	char		 out[SANDBOX_ERRLEN + 64];
	size_t		 got = 0;
	ssize_t		 n;
	pid_t		 pid;
	int		 p[2], status;

	(void)tc;
	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if (dup2(p[1], STDOUT_FILENO) == -1)
			_exit(4);
		execve("/proc/self/exe", argv, envp);
		_exit(5);
	}
	close(p[1]);
	while (got < sizeof(out) - 1 &&
	    (n = read(p[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(p[0]);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "child status 0x%x, said: %s", status, out);
	ATF_CHECK_MSG(strstr(out, "non-empty environment") != NULL &&
	    strstr(out, "/proc/1/environ") != NULL, "said: %s", out);
}

/* No descriptor survives a refused spawn. */
ATF_TC_WITHOUT_HEAD(refusal_leaks_nothing);
ATF_TC_BODY(refusal_leaks_nothing, tc)
{
	struct launcher_conf	 c;
	struct sbx_spec		 sp;
	struct sandbox_io	 io = { -1, -1, -1, -1, -1, -1 };
	struct sandbox		 sb;
	char			 err[SANDBOX_ERRLEN];
	int			 before, after, i;

	conf_init(&c);
	spec_init(&sp);
	c.cgv2 = 1;
	ATF_REQUIRE((c.cgv2_dir = open("/dev/null", O_RDONLY)) != -1);
	before = dup(0);
	close(before);
	for (i = 0; i < 50; i++)
		ATF_REQUIRE(sandbox_spawn(&sb, &c, &sp, &io, err,
		    sizeof(err)) == -1);
	after = dup(0);
	close(after);
	ATF_CHECK_EQ(before, after);
}

ATF_TC_WITHOUT_HEAD(exit_format);
ATF_TC_BODY(exit_format, tc)
{
	struct sandbox_exit	 ex;
	char			 buf[256];

	memset(&ex, 0, sizeof(ex));
	ex.reason = SANDBOX_EXITED;
	ex.wstatus = 42 << 8;
	ex.limits = SBX_LIMIT_RLIMIT;
	sandbox_exit_format(&ex, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "exited 42 (limits: rlimit)");
	ex.reason = SANDBOX_SIGNALED;
	ex.wstatus = SIGSEGV;
	ex.limits = SBX_LIMIT_CGROUP;
	sandbox_exit_format(&ex, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "signaled 11 (limits: cgroup)");
	ex.reason = SANDBOX_TIMEOUT;
	sandbox_exit_format(&ex, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "timeout (limits: cgroup)");
	ex.reason = SANDBOX_KILLED;
	sandbox_exit_format(&ex, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "killed (limits: cgroup)");
	ex.reason = SANDBOX_SETUP_FAILED;
	ex.error = ENOENT;
	strlcpy(ex.step, "bind /usr", sizeof(ex.step));
	sandbox_exit_format(&ex, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "setup-failed: bind /usr: ENOENT");
	ex.error = 0;
	sandbox_exit_format(&ex, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "setup-failed: bind /usr");
}

ATF_TC_WITHOUT_HEAD(signal_refusals);
ATF_TC_BODY(signal_refusals, tc)
{
	struct sandbox	 sb;

	memset(&sb, 0, sizeof(sb));
	sb.pidfd = -1;
	/* pid 1 of a namespace ignores other signals from outside. */
	ATF_CHECK_EQ(sandbox_signal(&sb, SIGUSR1), -1);
	ATF_CHECK_EQ(errno, EINVAL);
	ATF_CHECK_EQ(sandbox_signal(&sb, SIGTERM), -1);
	ATF_CHECK_EQ(errno, ESRCH);
}

static int
write_file(const char *path, const char *s)
{
	int	 fd, r;

	if ((fd = open(path, O_WRONLY)) == -1)
		return -1;
	r = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
	close(fd);
	return r;
}

/*
 * A namespace type the kernel will not create must fail the spawn with a
 * message naming it.  A child user namespace of our own can set its
 * max_net_namespaces to 0, which is exactly what an operator's sysctl
 * does host-wide.
 */
ATF_TC_WITHOUT_HEAD(missing_namespace);
ATF_TC_BODY(missing_namespace, tc)
{
	struct launcher_conf	 c;
	struct sbx_spec		 sp;
	struct sandbox_io	 io = { -1, -1, -1, -1, -1, -1 };
	struct sandbox		 sb;
	char			 err[SANDBOX_ERRLEN] = "", map[64];
	uid_t			 uid = geteuid();
	gid_t			 gid = getegid();
	pid_t			 pid;
	int			 status, p[2];
	ssize_t			 n;

	conf_init(&c);
	spec_init(&sp);
	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		close(p[0]);
		if (unshare(CLONE_NEWUSER) == -1)
			_exit(2);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
		if (write_file("/proc/self/setgroups", "deny") == -1 ||
		    write_file("/proc/self/uid_map", map) == -1)
			_exit(3);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
		if (write_file("/proc/self/gid_map", map) == -1 ||
		    write_file("/proc/sys/user/max_net_namespaces",
		    "0") == -1)
			_exit(4);
		if (sandbox_spawn(&sb, &c, &sp, &io, err,
		    sizeof(err)) == 0) {
			sandbox_release(&sb);
			_exit(5);
		}
		if (write(p[1], err, strlen(err)) == -1)
			_exit(6);
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], err, sizeof(err) - 1);
	close(p[0]);
	err[n > 0 ? n : 0] = '\0';
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "child status 0x%x", status);
	ATF_CHECK_MSG(strstr(err, "network namespaces are disabled "
	    "(user.max_net_namespaces = 0)") != NULL, "error: %s", err);
	ATF_CHECK_MSG(strstr(err, "clone: ENOSPC") != NULL, "error: %s", err);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, spawn_refusals);
	ATF_TP_ADD_TC(tp, refuses_environment);
	ATF_TP_ADD_TC(tp, refusal_leaks_nothing);
	ATF_TP_ADD_TC(tp, exit_format);
	ATF_TP_ADD_TC(tp, signal_refusals);
	ATF_TP_ADD_TC(tp, missing_namespace);
	return atf_no_error();
}
