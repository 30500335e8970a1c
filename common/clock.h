/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * clock.h: clock.c -- the monotonic clock, in milliseconds.
 */
#ifndef SBX_CLOCK_H
#define SBX_CLOCK_H

#include <stdint.h>

uint64_t monotonic_ms(void);

#endif /* SBX_CLOCK_H */
