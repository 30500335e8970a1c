/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * xmalloc.h: xmalloc.c -- allocation that cannot fail: fatal() on
 * exhaustion or overflow.
 */
#ifndef SBX_XMALLOC_H
#define SBX_XMALLOC_H

#include <stddef.h>

#include "defs.h"

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
void	*xrecallocarray(void *, size_t, size_t, size_t);
char	*xstrdup(const char *);
int	 xasprintf(char **, const char *, ...) SBX_PRINTF(2, 3);

#endif /* SBX_XMALLOC_H */
