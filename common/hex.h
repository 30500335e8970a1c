/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * hex.h: one hexadecimal digit's value (hex.c), for the JSON parser's
 * \u escapes and the proxy's chunk sizes and numeric host names.
 */
#ifndef SBX_HEX_H
#define SBX_HEX_H

/* 0 to 15 for 0-9, a-f and A-F; -1 for any other character. */
int	 hexval(int);

#endif /* SBX_HEX_H */
