/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fdpass.h: fdpass.c -- one message with descriptors (SCM_RIGHTS) on the
 * launcher's own sockets, outside imsg framing: its parts, pid 1's proxy
 * listeners, and a warm sandbox's run.
 */
#ifndef SBX_FDPASS_H
#define SBX_FDPASS_H

#include <sys/types.h>
#include <stddef.h>

/* The most descriptors one message carries either way. */
#define FDPASS_MAX	16

int	 fdpass_send(int, const void *, size_t, const int *, size_t, int);
ssize_t	 fdpass_recv(int, void *, size_t, int *, size_t, size_t *, int);

#endif /* SBX_FDPASS_H */
