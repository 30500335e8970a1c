/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * defs.h: the attributes and macros the other headers of common/ use:
 * __dead (does not return), SBX_PRINTF (printf-like arguments), nitems.
 */
#ifndef SBX_DEFS_H
#define SBX_DEFS_H

#ifndef __dead
#define __dead		__attribute__((__noreturn__))
#endif
#define SBX_PRINTF(a, b) __attribute__((__format__(printf, a, b)))

#ifndef nitems
#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#endif /* SBX_DEFS_H */
