/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * shimstatus.c: the record the shim (a sandbox's pid 1) sends back to
 * sbx-launcher over the status pipe, and errno names for the
 * "step: ENOENT" messages both sides print.
 */
#include <sys/wait.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "spec.h"

/*
 * The launcher reports what this record says to the monitor, so a record
 * with an unknown type, unknown limit bits or an unterminated step is
 * refused rather than half-believed.
 */
int
sbx_status_check(const struct sbx_status *st)
{
	if (st->type != SBX_STATUS_SETUP && st->type != SBX_STATUS_EXIT)
		return -1;
	if ((st->limits & ~(SBX_LIMIT_CGROUP | SBX_LIMIT_RLIMIT |
	    SBX_LIMIT_OUTPUT | SBX_LIMIT_CHANGES)) != 0)
		return -1;
	if (memchr(st->step, '\0', sizeof(st->step)) == NULL)
		return -1;
	if (st->type == SBX_STATUS_SETUP && st->step[0] == '\0')
		return -1;
	if (st->error < 0 || st->out_error < 0 || st->err_error < 0)
		return -1;
	if (st->type == SBX_STATUS_EXIT &&
	    !WIFEXITED(st->wstatus) && !WIFSIGNALED(st->wstatus))
		return -1;
	return 0;
}

/* "ENOENT" rather than a sentence: it is what operators grep for. */
const char *
sbx_errname(int e)
{
	static char	 buf[32];
	const char	*n;

	if ((n = strerrorname_np(e)) != NULL)
		return n;
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

/*
 * The limit that ended a run, as reports name it (sbx-protocol(7),
 * "limit"): the first of the SBX_LIMIT_* event bits set, NULL for none.
 */
const char *
sbx_limit_name(uint32_t limits)
{
	if (limits & SBX_LIMIT_OUTPUT)
		return "output";
	if (limits & SBX_LIMIT_TIMEOUT)
		return "timeout";
	if (limits & SBX_LIMIT_FSIZE)
		return "fsize";
	if (limits & SBX_LIMIT_CPU)
		return "cpu";
	if (limits & SBX_LIMIT_OOM)
		return "memory";
	if (limits & SBX_LIMIT_PIDS)
		return "pids";
	return NULL;
}
