/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * beneath.h: opening and reading files beneath a directory descriptor
 * (beneath.c).  The provider library opens every file of a bundle here,
 * the gates readers every pack and report.
 */
#ifndef SBX_BENEATH_H
#define SBX_BENEATH_H

#include <stddef.h>

/*
 * openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS: a hostile bundle cannot name a file outside its
 * root by "..", by an absolute path, by a symlink or by /proc magic.
 */
int	 open_beneath(int, const char *, int);
/*
 * Read fd to EOF, at most max + 1 bytes (so *lenp > max means "too big"),
 * into a buffer the caller frees; a NUL byte, not counted in *lenp, follows
 * the data.  0, or -1 with errno.
 */
int	 read_bounded(int, size_t, unsigned char **, size_t *);
/* Offset of the first byte that breaks strict UTF-8, or len if none. */
size_t	 utf8_check(const unsigned char *, size_t);

#endif /* SBX_BENEATH_H */
