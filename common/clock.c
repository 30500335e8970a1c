/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * clock.c: the one monotonic clock every deadline in sbx is measured on
 * (sandbox deadlines, pooled sandboxes' idle life, a run's early verdict,
 * the node probe).  Wall-clock time would move with the administrator's
 * clock; CLOCK_MONOTONIC does not.
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
