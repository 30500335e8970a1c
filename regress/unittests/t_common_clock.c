/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 */
/*
 * t_common_clock: file_clock_pass (common/clock.c), the wait an overlay
 * run's payload makes on its T0.  After it, a file written at once must
 * have a ctime after T0 -- the property apply's conflicts rest on -- with
 * the probe and without.  How many writes would have failed without the
 * wait is printed, not asserted: it depends on the machine's ticks.
 */
#include <sys/stat.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "clock.h"

static int64_t
ctime_ns(int fd)
{
	struct stat	 st;

	ATF_REQUIRE(fstat(fd, &st) == 0);
	return (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
}

/* n writes, each right after a T0 (and the wait unless nowait): how
 * many had a ctime at or before their T0; the naps in *naps. */
static int
stamps(int probe, int n, int nowait, int *naps)
{
	int64_t	 t0;
	int	 i, w, bad = 0, fd;

	*naps = 0;
	fd = open("target", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	ATF_REQUIRE(fd != -1);
	for (i = 0; i < n; i++) {
		ATF_REQUIRE((t0 = realtime_ns(0)) > 0);
		if (!nowait) {
			ATF_REQUIRE(file_clock_pass(probe, t0, &w) == 0);
			*naps += w;
		}
		ATF_REQUIRE(write(fd, "x", 1) == 1);
		if (ctime_ns(fd) <= t0)
			bad++;
		/* Spread the T0s over the tick. */
		usleep(500 + (i % 7) * 300);
	}
	close(fd);
	return bad;
}

ATF_TC_WITHOUT_HEAD(after_the_wait);
ATF_TC_BODY(after_the_wait, tc)
{
	int	 probe, naps, bad;

	probe = open("probe", O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
	ATF_REQUIRE(probe != -1);
	bad = stamps(probe, 300, 1, &naps);
	fprintf(stderr, "no wait: %d of 300 writes at or before T0\n", bad);
	bad = stamps(probe, 300, 0, &naps);
	fprintf(stderr, "with the probe: %d of 300, %d naps\n", bad, naps);
	ATF_CHECK_EQ_MSG(bad, 0, "%d writes after the wait have a ctime "
	    "at or before T0", bad);
	/* The coarse clock alone: as correct, only longer. */
	bad = stamps(-1, 40, 0, &naps);
	fprintf(stderr, "without a probe: %d of 40, %d naps\n", bad, naps);
	ATF_CHECK_EQ_MSG(bad, 0, "%d writes after the wait (no probe) have a "
	    "ctime at or before T0", bad);
	close(probe);
}

ATF_TC_WITHOUT_HEAD(past_and_failing_probe);
ATF_TC_BODY(past_and_failing_probe, tc)
{
	int	 naps, bad;

	/* A T0 a second ago: passed already, no nap. */
	ATF_REQUIRE(file_clock_pass(-1, realtime_ns(0) - 1000000000LL,
	    &naps) == 0);
	ATF_CHECK_EQ(naps, 0);
	/* A probe that fails (not open) is dropped, not an error, and the
	 * wait still holds. */
	ATF_REQUIRE(fcntl(900, F_GETFD) == -1 && errno == EBADF);
	bad = stamps(900, 20, 0, &naps);
	ATF_CHECK_EQ(bad, 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, after_the_wait);
	ATF_TP_ADD_TC(tp, past_and_failing_probe);
	return atf_no_error();
}
