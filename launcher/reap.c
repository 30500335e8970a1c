/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * reap.c: a running sandbox -- its deadline, signals, reaping through the
 * pidfd, and the report of how it ended.
 *
 * Everything goes through the pidfd, never the numeric pid, so a recycled
 * pid can never make the launcher signal or reap a stranger.  Killing the
 * shim (pid 1 of the sandbox's pid namespace) kills every process in it,
 * so one SIGKILL ends the whole sandbox; the shim is reapable only after
 * the kernel has reaped the rest, so nothing outlives the report.
 */
#include <sys/types.h>
#include <sys/pidfd.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "proto.h"
#include "spec.h"
#include "launcher.h"


int
sandbox_fd(const struct sandbox *sb)
{
	return sb->pidfd;
}

/* Milliseconds until the deadline, 0 once it has passed. */
uint64_t
sandbox_remaining(const struct sandbox *sb)
{
	uint64_t	 now = monotonic_ms();

	return now >= sb->deadline ? 0 : sb->deadline - now;
}

/*
 * The shim forwards SIGTERM, SIGINT, SIGQUIT and SIGHUP to the payload's
 * process group; the kernel
 * discards any other signal sent to a pid namespace's init from outside,
 * so asking for one is a caller error, not a silent no-op.
 */
/*
 * A pty's window size, down the lifeline (design.md §1): one 4-byte
 * record, rows << 16 | columns, which a pipe writes whole.  A full pipe
 * (pid 1 behind) drops it; the next resize brings the current size.
 */
int
sandbox_resize(struct sandbox *sb, uint16_t rows, uint16_t cols)
{
	uint32_t	 rec;

	if (!sb->pty || sb->reaped || sb->lifeline == -1)
		return 0;
	rec = (uint32_t)rows << 16 | cols;
	if (write(sb->lifeline, &rec, sizeof(rec)) == -1 &&
	    errno != EAGAIN && errno != EPIPE)
		return -1;
	return 0;
}

int
sandbox_signal(struct sandbox *sb, int sig)
{
	if (sig != SIGTERM && sig != SIGINT && sig != SIGHUP &&
	    sig != SIGQUIT && sig != SIGKILL) {
		errno = EINVAL;
		return -1;
	}
	if (sb->reaped || sb->pidfd == -1) {
		errno = ESRCH;
		return -1;
	}
	if (pidfd_send_signal(sb->pidfd, sig, NULL, 0) == -1)
		return errno == ESRCH ? 0 : -1;
	return 0;
}

int
sandbox_kill(struct sandbox *sb)
{
	if (sandbox_signal(sb, SIGKILL) == -1)
		return -1;
	cgroup_kill(sb);
	if (!sb->timedout)
		sb->killed = 1;
	return 0;
}

/*
 * The last record the shim wrote decides; a sandbox that died without one
 * was either killed by us or lost its shim, and the report says which.
 */
static void
collect(struct sandbox *sb, const siginfo_t *si, struct sandbox_exit *ex)
{
	struct sbx_status	 st, got_exit, got_setup;
	int			 have_exit = 0, have_setup = 0, bad = 0;
	ssize_t			 n;

	memset(ex, 0, sizeof(*ex));
	ex->limits = sb->limits;
	memset(&got_exit, 0, sizeof(got_exit));
	memset(&got_setup, 0, sizeof(got_setup));
	for (;;) {
		n = read(sb->statusfd, &st, sizeof(st));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (n != (ssize_t)sizeof(st) || sbx_status_check(&st) == -1) {
			bad = 1;
			break;
		}
		if (st.type == SBX_STATUS_EXIT) {
			got_exit = st;
			have_exit = 1;
		} else {
			got_setup = st;
			have_setup = 1;
		}
	}

	if (have_exit && !bad) {
		ex->reason = WIFSIGNALED(got_exit.wstatus) ?
		    SANDBOX_SIGNALED : SANDBOX_EXITED;
		ex->wstatus = got_exit.wstatus;
		ex->limits = got_exit.limits;
		ex->user_us = got_exit.utime_us;
		ex->sys_us = got_exit.stime_us;
		ex->peak_bytes = got_exit.maxrss_kb * 1024;
		ex->tasks = got_exit.tasks;
		ex->stdout_bytes = got_exit.out_bytes;
		ex->stderr_bytes = got_exit.err_bytes;
		ex->stdout_error = got_exit.out_error;
		ex->stderr_error = got_exit.err_error;
	} else if (have_setup && !bad) {
		ex->reason = SANDBOX_SETUP_FAILED;
		ex->error = got_setup.error;
		strlcpy(ex->step, got_setup.step, sizeof(ex->step));
	} else if (sb->timedout) {
		ex->reason = SANDBOX_TIMEOUT;
	} else if (sb->killed) {
		ex->reason = SANDBOX_KILLED;
	} else if (!bad && si->si_code == CLD_KILLED &&
	    si->si_status == SIGKILL) {
		/*
		 * Nobody in sbx sent it (sb->killed is ours): pid 1 was
		 * killed from outside -- an operator, the OOM killer.  The
		 * sandbox was lost, not badly set up (design.md §1: reported as
		 * killed).
		 */
		ex->reason = SANDBOX_KILLED;
		strlcpy(ex->step, "its pid 1 was killed by signal 9 from "
		    "outside sbx", sizeof(ex->step));
	} else {
		ex->reason = SANDBOX_SETUP_FAILED;
		if (bad)
			strlcpy(ex->step, "shim: malformed status record",
			    sizeof(ex->step));
		else if (si->si_code == CLD_EXITED)
			snprintf(ex->step, sizeof(ex->step), "shim: exited "
			    "%d without a report", si->si_status);
		else
			snprintf(ex->step, sizeof(ex->step), "shim: killed "
			    "by signal %d without a report", si->si_status);
	}
}

/*
 * A new deadline, timeout_ms from now: a pooled provider sandbox gets its
 * run's deadline when a run takes it.  Not after the kill was sent.
 */
void
sandbox_set_deadline(struct sandbox *sb, uint32_t timeout_ms)
{
	if (sb->timedout || sb->killed || sb->reaped)
		return;
	sb->deadline = monotonic_ms() + timeout_ms;
}

/* 1: ended (ex filled), 0: still running, -1: error. */
int
sandbox_poll(struct sandbox *sb, struct sandbox_exit *ex)
{
	siginfo_t	 si;

	if (sb->reaped || sb->pidfd == -1) {
		errno = ECHILD;
		return -1;
	}
	if (!sb->timedout && !sb->killed && sandbox_remaining(sb) == 0) {
		if (pidfd_send_signal(sb->pidfd, SIGKILL, NULL, 0) == -1 &&
		    errno != ESRCH)
			return -1;
		cgroup_kill(sb);
		sb->timedout = 1;
	}
	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)sb->pidfd, &si, WEXITED | WNOHANG) == -1)
		return -1;
	if (si.si_pid == 0)
		return 0;
	sb->reaped = 1;
	collect(sb, &si, ex);
	/* The cgroups go with sandbox_release, after the report; the
	 * shim's record says cgroup or rlimit, this which version. */
	ex->limits |= sb->limits & SBX_LIMIT_CGV2;
	cgroup_collect(sb, ex);
	ex->wall_ms = monotonic_ms() - sb->started;
	/*
	 * cpu-time: SIGXCPU (or the SIGKILL of the hard limit a second
	 * later), or the processes together past it, each of which
	 * RLIMIT_CPU counts alone.
	 */
	if (sb->cpu_time != 0 && (ex->reason == SANDBOX_EXITED ||
	    ex->reason == SANDBOX_SIGNALED) &&
	    ((WIFSIGNALED(ex->wstatus) && WTERMSIG(ex->wstatus) == SIGXCPU) ||
	    ex->user_us + ex->sys_us >= sb->cpu_time * 1000000))
		ex->limits |= SBX_LIMIT_CPU;
	return 1;
}

int
sandbox_wait(struct sandbox *sb, struct sandbox_exit *ex)
{
	struct pollfd	 pfd;
	uint64_t	 left;
	int		 r, timeout;

	for (;;) {
		if ((r = sandbox_poll(sb, ex)) != 0)
			return r;
		timeout = -1;
		if (!sb->timedout && !sb->killed) {
			left = sandbox_remaining(sb);
			timeout = left > INT_MAX ? INT_MAX : (int)left;
		}
		pfd.fd = sb->pidfd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, timeout) == -1 && errno != EINTR)
			return -1;
	}
}

/* Kill and reap whatever is left, then drop every descriptor. */
void
sandbox_release(struct sandbox *sb)
{
	siginfo_t	 si;

	if (sb->pidfd != -1 && !sb->reaped) {
		(void)pidfd_send_signal(sb->pidfd, SIGKILL, NULL, 0);
		cgroup_kill(sb);
		while (waitid(P_PIDFD, (id_t)sb->pidfd, &si, WEXITED) == -1 &&
		    errno == EINTR)
			;
		sb->reaped = 1;
	}
	if (sb->pidfd != -1)
		close(sb->pidfd);
	if (sb->statusfd != -1)
		close(sb->statusfd);
	if (sb->lifeline != -1)
		close(sb->lifeline);
	/* The sandbox's mounts go here (see hold_mntns in spawn.c). */
	if (sb->mntns != -1)
		close(sb->mntns);
	if (sb->proxyfd != -1)
		close(sb->proxyfd);
	if (sb->armfd != -1)
		close(sb->armfd);
	sb->pidfd = sb->statusfd = sb->lifeline = sb->mntns = -1;
	sb->proxyfd = sb->armfd = -1;
	cgroup_destroy(sb);
}

int
sandbox_exit_format(const struct sandbox_exit *ex, char *buf, size_t len)
{
	const char	*lim;
	int		 n;

	lim = (ex->limits & SBX_LIMIT_OOM) ? "cgroup, the memory limit "
	    "killed a process" : (ex->limits & SBX_LIMIT_PIDS) ? "cgroup, "
	    "the pids limit refused a fork" : (ex->limits & SBX_LIMIT_CGV2) ?
	    "cgroup v2" : (ex->limits & SBX_LIMIT_CGROUP) ? "cgroup" :
	    "rlimit";
	switch (ex->reason) {
	case SANDBOX_EXITED:
		n = snprintf(buf, len, "exited %d (limits: %s)",
		    WEXITSTATUS(ex->wstatus), lim);
		break;
	case SANDBOX_SIGNALED:
		n = snprintf(buf, len, "signaled %d (limits: %s)",
		    WTERMSIG(ex->wstatus), lim);
		break;
	case SANDBOX_TIMEOUT:
		n = snprintf(buf, len, "timeout (limits: %s)", lim);
		break;
	case SANDBOX_KILLED:
		if (ex->step[0] != '\0')
			n = snprintf(buf, len, "killed: %s (limits: %s)",
			    ex->step, lim);
		else
			n = snprintf(buf, len, "killed (limits: %s)", lim);
		break;
	case SANDBOX_SETUP_FAILED:
		if (ex->error != 0)
			n = snprintf(buf, len, "setup-failed: %s: %s",
			    ex->step, sbx_errname(ex->error));
		else
			n = snprintf(buf, len, "setup-failed: %s", ex->step);
		break;
	default:
		n = snprintf(buf, len, "unknown reason %d", ex->reason);
		break;
	}
	return n;
}
