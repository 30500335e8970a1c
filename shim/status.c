/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * status.c: the shim's only voice.  Its stderr is the payload's stderr, so
 * the shim never prints there; it sends one record over the status pipe
 * (SBX_SHIM_FD_STATUS) and the launcher reports it.
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "spec.h"
#include "shim.h"

static void
send_record(const struct sbx_status *st)
{
	ssize_t	 n;

	do {
		n = write(SBX_SHIM_FD_STATUS, st, sizeof(*st));
	} while (n == -1 && errno == EINTR);
	/* A lost record makes the launcher report "exited without a
	 * report", which is still a failure; nothing better to do here. */
}

void
shim_fail(int err, const char *fmt, ...)
{
	struct sbx_status	 st;
	va_list			 ap;

	memset(&st, 0, sizeof(st));
	st.type = SBX_STATUS_SETUP;
	st.error = err < 0 ? 0 : err;
	va_start(ap, fmt);
	vsnprintf(st.step, sizeof(st.step), fmt, ap);
	va_end(ap);
	if (st.step[0] == '\0')
		strlcpy(st.step, "shim", sizeof(st.step));
	send_record(&st);
	_exit(SHIM_EXIT_SETUP);
}

void
shim_report_exit(int wstatus, uint32_t limits, const struct shim_usage *u)
{
	struct sbx_status	 st;
	struct shim_usage	 all = *u;

	shim_usage_relay(&all);
	memset(&st, 0, sizeof(st));
	st.type = SBX_STATUS_EXIT;
	st.wstatus = wstatus;
	st.limits = limits | shim_relay_limits();
	st.utime_us = all.utime_us;
	st.stime_us = all.stime_us;
	st.maxrss_kb = all.maxrss_kb;
	st.tasks = all.tasks;
	st.out_bytes = all.out_bytes;
	st.err_bytes = all.err_bytes;
	st.out_error = all.out_error;
	st.err_error = all.err_error;
	send_record(&st);
}

/*
 * One reaped process's rusage into the sandbox's total.  Each rusage
 * includes the descendants that process reaped itself; the orphans are
 * pid 1's and come here on their own, so nothing is counted twice.
 */
void
shim_usage_add(struct shim_usage *u, const struct rusage *ru)
{
	u->utime_us += (uint64_t)ru->ru_utime.tv_sec * 1000000 +
	    (uint64_t)ru->ru_utime.tv_usec;
	u->stime_us += (uint64_t)ru->ru_stime.tv_sec * 1000000 +
	    (uint64_t)ru->ru_stime.tv_usec;
	if ((uint64_t)ru->ru_maxrss > u->maxrss_kb)
		u->maxrss_kb = (uint64_t)ru->ru_maxrss;
}

/* A signal for the payload: its process group's, or its own if it left
 * the group. */
void
shim_forward(pid_t child, int sig)
{
	if (kill(-child, sig) == -1)
		(void)kill(child, sig);
}

/*
 * Reap what has exited: 1 when the payload was among it (its wait status
 * in *ws), else 0.  Everything reaped counts toward u but the overlay's
 * changeset writer, which is sbx's own.
 */
int
shim_reap(pid_t child, struct shim_usage *u, int *ws)
{
	struct rusage	 ru;
	pid_t		 p;
	int		 st;

	while ((p = wait4(-1, &st, WNOHANG, &ru)) > 0) {
		if (shim_cs_writer_reaped(p))
			continue;
		shim_usage_add(u, &ru);
		if (p == child) {
			*ws = st;
			return 1;
		}
	}
	return 0;
}

/* The payload was reaped: an overlay's changes written, then the report
 * and pid 1's end, which ends the sandbox. */
void
shim_end(int ws, uint32_t limits, const struct shim_usage *u)
{
	limits |= shim_cs_writer_finish();
	shim_report_exit(ws, limits, u);
	_exit(WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws));
}
