/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * sha256.h: sha256.c -- SHA-256, incrementally.
 */
#ifndef SBX_SHA256_H
#define SBX_SHA256_H

#include <stddef.h>
#include <stdint.h>

/*
 * sha256.c: SHA-256, incrementally: the CPU's SHA extensions where there
 * are some, else libsodium's; portable asks for libsodium's (the tests
 * compare the two).
 */
#define SHA256_LEN		32
struct sha256_ctx {
	int			 shani;
	uint32_t		 h[8];
	uint64_t		 bytes;
	size_t			 fill;
	unsigned char		 block[64];
	union {
		uint64_t	 align;
		unsigned char	 state[128];	/* libsodium's */
	}			 sodium;
};
void	 sha256_init(struct sha256_ctx *, int portable);
void	 sha256_update(struct sha256_ctx *, const void *, size_t);
void	 sha256_final(struct sha256_ctx *, unsigned char md[SHA256_LEN]);

#endif /* SBX_SHA256_H */
