/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * warm.c: a warm sandbox's pid 1 between its set-up and its run.  The
 * sandbox is built (mounts, network, cgroups, capabilities gone,
 * no_new_privs, Landlock) before anyone asked for it; pid 1 then blocks
 * on SBX_SHIM_FD_ARM for the one run it will serve: the run's spec and
 * its stdio, sent by the launcher (sandbox_arm).  It checks that the
 * run's spec is the one the sandbox was built from in everything the
 * set-up read (sbx_spec_warm_key: the monitor and the launcher checked
 * too), takes the run's argv, environment, output cap and deadline, puts
 * the stdio on 0-2 and goes on as a cold sandbox's pid 1 would.  The arm
 * socket closes here: nothing reaches this sandbox a second time.
 */
#include <sys/types.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fdpass.h"
#include "spec.h"
#include "shim.h"

static uint8_t		 arm_buf[sizeof(struct sbx_arm) + SBX_SPEC_WIRE_MAX];
static uint8_t		 key_a[SBX_SPEC_WIRE_MAX], key_b[SBX_SPEC_WIRE_MAX];
static struct sbx_spec	 arm_spec, run_spec;

const struct sbx_spec *
shim_warm(const struct sbx_spec *sp)
{
	struct sbx_arm	 a;
	char		 err[SBX_SPEC_ERRLEN];
	int		 fds[3], got[3] = { -1, -1, -1 };
	size_t		 nfd = 0, la, lb, i, k;
	ssize_t		 n;

	n = fdpass_recv(SBX_SHIM_FD_ARM, arm_buf, sizeof(arm_buf), fds,
	    nitems(fds), &nfd, 0);
	/* The launcher released it unused (idle, a reload, a stop). */
	if (n == 0)
		_exit(SHIM_EXIT_SETUP);
	if (n == -1)
		shim_fail(errno, "arm: %s", errno == EMSGSIZE ?
		    "a record or descriptors beyond a run's" : "recvmsg");
	if ((size_t)n < sizeof(a))
		shim_fail(EPROTO, "arm: truncated record");
	memcpy(&a, arm_buf, sizeof(a));
	if (a.speclen != (size_t)n - sizeof(a) || (a.slots & ~7U) != 0 ||
	    (size_t)__builtin_popcount(a.slots) != nfd)
		shim_fail(EPROTO, "arm: malformed record");
	if (sbx_spec_parse(&arm_spec, arm_buf + sizeof(a), a.speclen, err,
	    sizeof(err)) == -1)
		shim_fail(EPROTO, "arm: %s", err);
	/* The set-up done is the run's own, or the run does not start. */
	if (sbx_spec_warm_key(sp, key_a, sizeof(key_a), &la, err,
	    sizeof(err)) == -1 || sbx_spec_warm_key(&arm_spec, key_b,
	    sizeof(key_b), &lb, err, sizeof(err)) == -1)
		shim_fail(EPROTO, "arm: %s", err);
	if (arm_spec.warm || la != lb || memcmp(key_a, key_b, la) != 0)
		shim_fail(EPERM, "arm: the run's spec is not the one this "
		    "sandbox was built from");
	for (i = 0, k = 0; i < 3; i++)
		if (a.slots & (1U << i))
			got[i] = fds[k++];
	for (i = 0; i < 3; i++) {
		if (got[i] == -1)
			continue;
		/* dup2 leaves the new descriptor without close-on-exec. */
		if (dup2(got[i], (int)i) == -1)
			shim_fail(errno, "arm: dup2 stdio");
	}
	for (i = 0; i < 3; i++)
		if (got[i] != -1 && got[i] > 2)
			close(got[i]);
	close(SBX_SHIM_FD_ARM);

	run_spec = *sp;
	run_spec.warm = 0;
	run_spec.argc = arm_spec.argc;
	memcpy(run_spec.argv, arm_spec.argv, sizeof(run_spec.argv));
	run_spec.envc = arm_spec.envc;
	memcpy(run_spec.env, arm_spec.env, sizeof(run_spec.env));
	run_spec.output = arm_spec.output;
	run_spec.timeout_ms = arm_spec.timeout_ms;
	return &run_spec;
}
