/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * limits.c: resource limits of pid 1 and, by inheritance, the payload.
 *
 * Memory and process caps come from the cgroup the launcher cloned us
 * into when it had one (spec->cgroup); otherwise from RLIMIT_AS and
 * RLIMIT_NPROC, which is what the exit report then says.  The kernel does
 * not enforce RLIMIT_NPROC for host uid 0, which is one reason root
 * should give the launcher a dedicated id range.  Limits are only ever
 * lowered: a spec asking for more than the launcher's own hard limit gets
 * that hard limit.
 */
#include <sys/types.h>
#include <sys/resource.h>

#include <errno.h>

#include "spec.h"
#include "shim.h"

static void
lower(int resource, const char *name, uint64_t want)
{
	struct rlimit	 rl;

	if (getrlimit(resource, &rl) == -1)
		shim_fail(errno, "getrlimit %s", name);
	if (want != SBX_SPEC_UNLIMITED &&
	    (rl.rlim_max == RLIM_INFINITY || want < rl.rlim_max))
		rl.rlim_max = want;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(resource, &rl) == -1)
		shim_fail(errno, "setrlimit %s", name);
}

/*
 * cpu-time: SIGXCPU at the limit, SIGKILL a second later for a payload
 * that catches or ignores it.  RLIMIT_CPU counts each process alone (a
 * child starts from 0), so the launcher also checks the sum pid 1
 * collected (reap.c) and reports "cpu" when it passed the limit.
 */
static void
cpu_limit(uint64_t secs)
{
	struct rlimit	 rl;

	if (getrlimit(RLIMIT_CPU, &rl) == -1)
		shim_fail(errno, "getrlimit cpu");
	if (rl.rlim_max == RLIM_INFINITY || secs + 1 < rl.rlim_max)
		rl.rlim_max = secs + 1;
	rl.rlim_cur = secs < rl.rlim_max ? secs : rl.rlim_max;
	if (setrlimit(RLIMIT_CPU, &rl) == -1)
		shim_fail(errno, "setrlimit cpu");
}

uint32_t
shim_limits(const struct sbx_spec *sp)
{
	/* No core files: a dump is written where the payload could not
	 * write, or piped to a host helper by core_pattern. */
	lower(RLIMIT_CORE, "core", 0);
	lower(RLIMIT_NOFILE, "nofile", sp->nofile);
	lower(RLIMIT_FSIZE, "fsize", sp->fsize);
	if (sp->cpu_time != 0)
		cpu_limit(sp->cpu_time);
	if (sp->cgroup)
		return SBX_LIMIT_CGROUP;
#ifndef SBX_SANITIZE
	lower(RLIMIT_AS, "as", sp->memory);
#endif
	lower(RLIMIT_NPROC, "nproc", sp->pids);
	return SBX_LIMIT_RLIMIT;
}

/*
 * Sanitizer builds (make sanitize) only: ASan reserves terabytes of
 * shadow address space, so no RLIMIT_AS a sandbox asks for leaves the
 * shim's own (instrumented) code room to allocate.  There the limit is
 * set in the payload child just before execve, for the payload alone,
 * which is what it limits in the release build too (pid 1 allocates
 * nothing after it).  -1 with errno when it cannot be set.
 */
int
shim_limits_payload(const struct sbx_spec *sp)
{
#ifdef SBX_SANITIZE
	struct rlimit	 rl;

	if (sp->cgroup || sp->memory == SBX_SPEC_UNLIMITED)
		return 0;
	if (getrlimit(RLIMIT_AS, &rl) == -1)
		return -1;
	if (rl.rlim_max == RLIM_INFINITY || sp->memory < rl.rlim_max)
		rl.rlim_max = sp->memory;
	rl.rlim_cur = rl.rlim_max;
	return setrlimit(RLIMIT_AS, &rl);
#else
	(void)sp;
	return 0;
#endif
}
