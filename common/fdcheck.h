/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fdcheck.h: fdcheck.c -- descriptors passed by clients (issue 20).
 */
#ifndef SBX_FDCHECK_H
#define SBX_FDCHECK_H

#include <stddef.h>

#define PASSED_FD_READ	0x1	/* opened for reading (not O_PATH) */
#define PASSED_FD_DIR	0x2	/* a directory */
int	 passed_fd_check(int, char *, size_t);
int	 passed_fd_mode(int, int, const char *, char *, size_t);

#endif /* SBX_FDCHECK_H */
