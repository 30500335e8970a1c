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
#include <sys/stat.h>

#include <errno.h>
#include <poll.h>
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

/* probe's ctime after a change of its mode, in ns; -1 on an error. */
static int64_t
probe_ctime(int probe)
{
	struct stat	 st;

	/* Its ctime read first: a change must then pass the ctime read,
	 * so a kernel with multigrain timestamps (Linux 6.13) stamps it
	 * from the precise clock when the coarse one has not moved, and
	 * raises the floor every later stamp is taken from to that time. */
	if (fstat(probe, &st) == -1 ||
	    fchmod(probe, (st.st_mode & 0777) == 0600 ? 0400 : 0600) == -1 ||
	    fstat(probe, &st) == -1)
		return -1;
	return (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
}

/*
 * Return once every file time the kernel stamps from then on is after
 * t0 (ns on CLOCK_REALTIME, not in the future): 0, or -1 with errno when
 * a clock could not be read or a nap failed.  *waited (if not NULL): the
 * naps taken.
 *
 * File times come from the coarse clock (realtime_ns) and, on Linux 6.13
 * and later, from a floor that every precise stamp raises; either way
 * each stamp is at least every earlier one, on every file system that
 * takes its times from the kernel.  So one stamp after t0 proves it for
 * all later ones: the coarse clock itself once it has passed t0, else the
 * ctime of probe (a file of ours, owned by us, on a file system with
 * nanosecond times such as a tmpfs; -1: none) after a change.  With
 * multigrain timestamps that change takes a precise stamp and nothing
 * waits; without, its stamp is the coarse clock's, and the loop waits for
 * it to pass t0 in 0.2 ms naps (the tick's moment is not known, and every
 * bit of a nap past it is the caller's).  Measured here (Linux 6.18):
 * of 500 ext4 writes just after a t0, 73 had a ctime at or before it;
 * after this, none (on ramfs, which takes no precise stamps of its own:
 * 500, and none); t_common_clock checks it.  A probe that fails is
 * dropped: the wait on the coarse clock alone is as correct, only
 * longer.
 */
int
file_clock_pass(int probe, int64_t t0, int *waited)
{
	const struct timespec	 nap = { 0, 200 * 1000 };
	int64_t			 now;
	int			 tries = 0;

	if (waited != NULL)
		*waited = 0;
	for (;;) {
		if ((now = realtime_ns(1)) == -1)
			return -1;
		if (now > t0)
			return 0;
		if (probe != -1) {
			if ((now = probe_ctime(probe)) > t0)
				return 0;
			if (now == -1)
				probe = -1;
		}
		/* Twice without a nap: the first change may take a coarse
		 * stamp (the coarse clock moved since the probe's last
		 * one), the second then a precise one. */
		if (++tries < 2 && probe != -1)
			continue;
		if (ppoll(NULL, 0, &nap, NULL) == -1 && errno != EINTR)
			return -1;
		if (waited != NULL)
			(*waited)++;
	}
}
