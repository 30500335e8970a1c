/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * judge.c: how a provider run ended, as an error code of interop.md §P6
 * (5.5 frames, 5.6 timeouts, caps and exit codes).
 *
 * The run's verdict combines two reports: the monitor's, of how the
 * sandbox ended (struct launch_exit; trusted), and the sandbox's own
 * stdout (hostile).  The order below answers the threats in turn:
 *  - a sandbox that never started says nothing about the provider, and
 *    there is no unsandboxed fallback: sandbox-unavailable;
 *  - a flood of output is refused whatever else happened (we stopped
 *    reading at the cap, which is how the reference's kill shows up);
 *  - a run killed at its deadline is a timeout even if it had printed a
 *    plausible frame first, so a provider cannot race its own deadline;
 *  - any other unclean end (signal, non-zero exit, output that never
 *    ended) is a rejection;
 *  - only a clean exit gets its one line parsed, and that parse
 *    (frame.c) refuses anything but our nonce's single frame.
 */
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "proto.h"
#include "spec.h"
#include "provider.h"

/* What the driver's documented exit statuses mean (driver.mjs). */
static const char *
driver_status(int st)
{
	switch (st) {
	case 9:
		return " (node refused its command line)";
	case 70:
		return " (it answered before reading its nonce)";
	case 71:
		return " (its nonce line was malformed)";
	case 74:
		return " (it could not write its result)";
	default:
		return "";
	}
}

static int
judge(const struct prov_outcome *o, struct json_value **bodyp,
    struct prov_error *err)
{
	const struct launch_exit	*ex = o->exit;
	char				 step[PROV_QUOTE_MAX];

	*bodyp = NULL;
	if (ex->reason == SANDBOX_SETUP_FAILED) {
		prov_quote(step, ex->step, strnlen(ex->step,
		    sizeof(ex->step)));
		return prov_fail(err, PROV_SANDBOX_UNAVAILABLE, "provider "
		    "sandbox could not be set up: %s%s%s", step,
		    ex->error != 0 ? ": " : "",
		    ex->error != 0 ? strerror(ex->error) : "");
	}
	if (o->overflow)
		return prov_fail(err, PROV_REJECTED, "provider output exceeds "
		    "its output cap of %zu bytes", o->max_output);
	switch (ex->reason) {
	case SANDBOX_TIMEOUT:
		return prov_fail(err, PROV_TIMEOUT, "provider run timed out "
		    "after %u ms", o->timeout_ms);
	case SANDBOX_KILLED:
		return prov_fail(err, PROV_CANCELLED,
		    "provider run was killed before it finished");
	case SANDBOX_SIGNALED:
		return prov_fail(err, PROV_REJECTED, "provider sandbox was "
		    "killed by signal %d",
		    WIFSIGNALED(ex->wstatus) ? WTERMSIG(ex->wstatus) : 0);
	case SANDBOX_EXITED:
		break;
	default:
		return prov_fail(err, PROV_REJECTED,
		    "provider sandbox ended in an unknown way (%d)",
		    (int)ex->reason);
	}
	if (!WIFEXITED(ex->wstatus) || WEXITSTATUS(ex->wstatus) != 0)
		return prov_fail(err, PROV_REJECTED, "provider driver exited "
		    "with status %d%s", WIFEXITED(ex->wstatus) ?
		    WEXITSTATUS(ex->wstatus) : -1, WIFEXITED(ex->wstatus) ?
		    driver_status(WEXITSTATUS(ex->wstatus)) : "");
	if (o->unfinished)
		return prov_fail(err, PROV_REJECTED,
		    "provider output did not end with its sandbox");
	return prov_frame_parse(o->out, o->outlen, o->nonce, o->max_output,
	    bodyp, err);
}

/*
 * The verdict, and on a refusal which limit ended the run, for the
 * agent's report (sbx-protocol(7), "limit"): the output cap, the
 * deadline, RLIMIT_FSIZE's signal, or what the sandbox's cgroups saw
 * (the memory cgroup killed a process, the pids cgroup refused a fork).
 */
int
prov_run_judge(const struct prov_outcome *o, struct json_value **bodyp,
    struct prov_error *err)
{
	const struct launch_exit	*ex = o->exit;

	if (judge(o, bodyp, err) == 0)
		return 0;
	if (err == NULL)
		return -1;
	if (ex->reason == SANDBOX_SETUP_FAILED)
		err->limit = 0;
	else if (o->overflow)
		err->limit = SBX_LIMIT_OUTPUT;
	else if (ex->reason == SANDBOX_TIMEOUT)
		err->limit = SBX_LIMIT_TIMEOUT;
	else if (ex->reason == SANDBOX_SIGNALED &&
	    WIFSIGNALED(ex->wstatus) && WTERMSIG(ex->wstatus) == SIGXFSZ)
		err->limit = SBX_LIMIT_FSIZE;
	else if (err->limit == 0)	/* the driver's own cap (frame.c) */
		err->limit = ex->limits & (SBX_LIMIT_OOM | SBX_LIMIT_PIDS);
	return -1;
}
