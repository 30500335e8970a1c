/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * clock.c: the one monotonic clock every deadline in sbx is measured on
 * (sandbox deadlines, pooled sandboxes' idle life, a run's early verdict,
 * the node probe).  Wall-clock time would move with the administrator's
 * clock; CLOCK_MONOTONIC does not.  And the clock of file times, for an
 * overlay's T0 (changesets).
 */
#include <stdint.h>
#include <time.h>

#include "common.h"
#include "clock.h"

/* Milliseconds on CLOCK_MONOTONIC. */
uint64_t
monotonic_ms(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		fatal("clock_gettime CLOCK_MONOTONIC");
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Nanoseconds since the epoch, or -1: on CLOCK_REALTIME, or with coarse
 * on CLOCK_REALTIME_COARSE, which the kernel stamps most file times from
 * (current_time(); a fine-grained stamp comes from the precise clock).
 * The coarse clock is the precise one as of the last timekeeping
 * update: never ahead of it, behind it by a tick or more (3 to 7 ms on
 * these 4 ms-tick machines, idle or loaded: idle CPUs skip ticks).
 */
int64_t
realtime_ns(int coarse)
{
	struct timespec	 ts;

	if (clock_gettime(coarse ? CLOCK_REALTIME_COARSE : CLOCK_REALTIME,
	    &ts) == -1)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
