/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_common_sanitizer: what a sanitizer build (make sanitize, SBX_SANITIZE)
 * adds to the role filters, and that a release build adds nothing
 * (sbx.priv(5), SANITIZER BUILDS).  Both builds run every case, each
 * checking what its own build must do: the suite runs once per build.
 */
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#ifdef SBX_SANITIZE
#define SANITIZER_BUILD	1
#else
#define SANITIZER_BUILD	0
#endif

#define NAMED(n)	{ #n, &priv_table_##n },
static const struct {
	const char		*name;
	const struct priv_table	*t;
} tables[] = {
	PRIV_TABLES(NAMED)
};

/* Every name either list could hold, and some neither does. */
static const char *const names[] = {
	"sigaltstack", "madvise", "futex", "sched_yield", "getpid", "gettid",
	"munmap", "openat", "readlink", "readlinkat", "ptrace", "clone",
	"execve", "prctl", "socket"
};

/* Children leave through a raw exit_group: the table may refuse the rest. */
static void
child_exit(int code)
{
	syscall(SYS_exit_group, code);
}

/*
 * Put a child under TABLE's filter alone and make system call NR; the
 * child exits 0 when it returned 0, 1 when it failed with EPERM, 2 for
 * anything else.  Returns the wait status.
 */
static int
try_under(const struct priv_table *t, long nr)
{
	char	 err[512];
	pid_t	 pid;
	long	 rc;
	int	 st;

	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if (priv_apply_seccomp(t, err, sizeof(err)) == -1)
			child_exit(3);
		if (nr == SYS_sigaltstack) {
			stack_t	 ss;

			rc = syscall(SYS_sigaltstack, NULL, &ss);
		} else
			rc = syscall(nr, AT_FDCWD, "/", O_RDONLY);
		child_exit(rc == 0 || rc > 2 ? 0 : errno == EPERM ? 1 : 2);
	}
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	return st;
}

ATF_TC_WITHOUT_HEAD(extra_lists);
ATF_TC_BODY(extra_lists, tc)
{
	size_t	 i, j;
	int	 x;

	for (i = 0; i < nitems(tables); i++) {
		for (j = 0; j < nitems(names); j++) {
			x = priv_sanitizer_extra(tables[i].t, names[j]);
			if (!SANITIZER_BUILD)
				ATF_CHECK_MSG(x == 0, "release build: %s: %s "
				    "added (%d)", tables[i].name, names[j], x);
			/* Default-allow tables are never widened. */
			if (tables[i].t->def_act == PRIV_ACT_ALLOW)
				ATF_CHECK_MSG(x == 0, "%s (default allow): "
				    "%s added (%d)", tables[i].name, names[j],
				    x);
		}
	}
	if (!SANITIZER_BUILD)
		return;
	/* The shim's table names none of these: all added. */
	ATF_CHECK_EQ(priv_sanitizer_extra(&priv_table_shim, "sigaltstack"), 1);
	ATF_CHECK_EQ(priv_sanitizer_extra(&priv_table_shim, "futex"), 1);
	ATF_CHECK_EQ(priv_sanitizer_extra(&priv_table_shim, "openat"), 2);
	ATF_CHECK_EQ(priv_sanitizer_extra(&priv_table_shim, "ptrace"), 0);
	ATF_CHECK_EQ(priv_sanitizer_extra(&priv_table_shim, "clone"), 0);
	/* The monitor's has its own openat and madvise rules: kept. */
	ATF_CHECK_EQ(priv_sanitizer_extra(&priv_table_monitor, "openat"), 0);
	ATF_CHECK_EQ(priv_sanitizer_extra(&priv_table_monitor, "madvise"),
	    0);
	ATF_CHECK_EQ(priv_sanitizer_extra(&priv_table_monitor,
	    "sigaltstack"), 1);
}

ATF_TC_WITHOUT_HEAD(extra_enforced);
ATF_TC_BODY(extra_enforced, tc)
{
	int	 st;

	/* sigaltstack: allowed in a sanitizer build, killed in a release
	 * build (shim.priv's default is kill). */
	st = try_under(&priv_table_shim, SYS_sigaltstack);
	if (SANITIZER_BUILD)
		ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "sigaltstack under shim.priv: status %#x", st);
	else
		ATF_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
		    "sigaltstack under shim.priv: status %#x", st);
	/* openat: EPERM in a sanitizer build, killed in a release build. */
	st = try_under(&priv_table_shim, SYS_openat);
	if (SANITIZER_BUILD)
		ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 1,
		    "openat under shim.priv: status %#x", st);
	else
		ATF_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
		    "openat under shim.priv: status %#x", st);
	/* Nothing else changes: ptrace stays killed in both. */
	st = try_under(&priv_table_shim, SYS_ptrace);
	ATF_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
	    "ptrace under shim.priv: status %#x", st);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, extra_lists);
	ATF_TP_ADD_TC(tp, extra_enforced);
	return atf_no_error();
}
