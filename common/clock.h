/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * clock.h: clock.c -- the monotonic clock, in milliseconds, the
 * real-time clocks file times are stamped from, in nanoseconds, and the
 * wait until every file time stamped is after a given one.
 */
#ifndef SBX_CLOCK_H
#define SBX_CLOCK_H

#include <stdint.h>

uint64_t monotonic_ms(void);
int64_t	 realtime_ns(int);
int	 file_clock_pass(int, int64_t, int *);

#endif /* SBX_CLOCK_H */
