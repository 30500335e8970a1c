/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * shim.c: pid 1 of a sandbox.  There is no sbx-shim program: the
 * launcher's clone child -- a copy of the single-threaded launcher, like
 * bubblewrap's pid 1 is a copy of bwrap -- comes here with the spec the
 * launcher already checked, in fresh user, pid, mount, network, ipc, uts
 * and cgroup namespaces, with the sandbox's ids, the capabilities it needs
 * to build the sandbox (launcher/spawn.c), the payload's stdio on 0-2,
 * SBX_SHIM_FD_* above them and nothing else open.  Saving an exec saves a
 * program start-up (dynamic loading, libc initialisation) per sandbox.
 *
 * The order follows bubblewrap's: nothing of the payload's runs until the
 * mount tree is final, the capabilities are gone, no_new_privs, Landlock
 * and the rlimits are in place; the payload's seccomp filter comes last,
 * in the payload child itself, right before execve.
 *
 * pid 1 ends only through _exit (shim_fail, shim_report_exit's caller), so
 * no atexit handler of the launcher's -- nor a sanitizer's leak check,
 * which would ptrace under a filter that forbids it -- runs in here.
 */
#include <sys/types.h>
#include <sys/prctl.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec.h"
#include "shim.h"

/*
 * PR_SET_PDEATHSIG covers the launcher dying from now on; the lifeline
 * pipe (the launcher holds its only write end) covers it having died
 * before: getppid() cannot tell, it is 0 for a pid namespace's init.  Set
 * here, after the launcher child changed ids: a change of the effective
 * ids clears the parent-death signal.
 */
static void
die_with_parent(void)
{
	struct pollfd	 pfd;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0UL, 0UL, 0UL) == -1)
		shim_fail(errno, "prctl PR_SET_PDEATHSIG");
	pfd.fd = SBX_SHIM_FD_LIFELINE;
	pfd.events = POLLIN;
	pfd.revents = 0;
	if (poll(&pfd, 1, 0) == -1)
		shim_fail(errno, "poll lifeline");
	if (pfd.revents & POLLNVAL)
		shim_fail(EBADF, "lifeline fd %d", SBX_SHIM_FD_LIFELINE);
	/* Nobody is left to read a report. */
	if (pfd.revents & (POLLHUP | POLLERR))
		_exit(SHIM_EXIT_SETUP);
}

/*
 * cgroup v1: the launcher moved this process into the sandbox's cgroups
 * while it built the sandbox; the payload starts only once it says so.
 * Anything but its byte (the launcher gone, or a failed move) ends pid 1
 * and the sandbox with it.
 */
static void
cgroups_joined(void)
{
	char	 c;
	ssize_t	 n;

	do {
		n = read(SBX_SHIM_FD_LIFELINE, &c, 1);
	} while (n == -1 && errno == EINTR);
	if (n != 1 || c != 'c')
		shim_fail(n == -1 ? errno : EPIPE, "cgroups: not joined");
	/* Moved: the saved uid, kept for the move, is the sandbox's too. */
	if (setresuid(getuid(), getuid(), getuid()) == -1)
		shim_fail(errno, "setresuid after the cgroup move");
}

void
shim_main(const struct sbx_spec *sp)
{
	uint32_t	 limits;
	int		 fd;

	/*
	 * The launcher's exec-time environment block, which /proc/1/environ
	 * shows, is empty (sandbox_spawn refuses otherwise); its run-time
	 * variables go too, so nothing here or in the self-test sees them.
	 */
	if (clearenv() != 0)
		shim_fail(errno, "clearenv");
	die_with_parent();
	if (getpid() != 1)
		shim_fail(EINVAL, "shim: not pid 1 of a new pid namespace");
	/* The payload runs as the same uid: without this it could ptrace
	 * pid 1 and forge the exit record, read the status pipe, or read
	 * the launcher's memory this process is a copy of. */
	if (prctl(PR_SET_DUMPABLE, 0UL, 0UL, 0UL, 0UL) == -1)
		shim_fail(errno, "prctl PR_SET_DUMPABLE");
	/* The payload gets 0-2 only. */
	for (fd = SBX_SHIM_FD_STATUS; fd < SBX_SHIM_NFDS; fd++)
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1 && errno != EBADF)
			shim_fail(errno, "fcntl %d FD_CLOEXEC", fd);

	shim_mounts(sp);
	/* The sandbox's own /proc now; Landlock would refuse it later. */
	shim_tasks_open();
	if (sethostname(SHIM_HOSTNAME, strlen(SHIM_HOSTNAME)) == -1)
		shim_fail(errno, "sethostname");
	shim_net(sp);
	/* In its cgroups now, and still holding CAP_SYS_ADMIN: a cgroup
	 * namespace rooted there, and /sys/fs/cgroup (cgroupfs.c). */
	if (sp->cgroup_wait)
		cgroups_joined();
	shim_cgroup_mount();
	/* A new session: no controlling terminal, so no TIOCSTI into the
	 * caller's terminal (CVE-2017-5226).  In pty mode the payload's
	 * terminal is the sandbox's own pty (pty.c). */
	if (setsid() == -1)
		shim_fail(errno, "setsid");
	if (sp->pty)
		shim_pty_open(sp);
	/* overlay: the changeset writer, before the capabilities go. */
	shim_cs_writer_start(sp);
	shim_drop_caps();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1UL, 0UL, 0UL, 0UL) == -1)
		shim_fail(errno, "prctl PR_SET_NO_NEW_PRIVS");
	shim_landlock(sp);
	/* Warm: built; the rest waits for the run (warm.c).  Before the
	 * rlimits, which a small nofile would make refuse its stdio. */
	if (sp->warm)
		sp = shim_warm(sp);
	limits = shim_limits(sp);
	shim_cs_t0_wait(sp);
	shim_run(sp, limits);
}
