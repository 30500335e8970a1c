/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * sha256.c: SHA-256 (FIPS 180-4) for the digests, incrementally.
 *
 * libsodium's SHA-256 is portable C, about 400 MB/s here: a sixth of the
 * time a records digest of 50,000 records took.  x86 CPUs with the SHA
 * extensions do the compression function in hardware, four to five
 * times as fast, so on those the block function below is used, and
 * libsodium everywhere else.  Both compute the same function;
 * regress/unittests/t_common_canon.c compares them on every length up to a few
 * blocks and on large random inputs, and with the FIPS test vectors.
 */
#include <string.h>

#include <sodium.h>

#include "common.h"
#include "sha256.h"

/* libsodium's state lives in storage sha256.h reserves for it. */
_Static_assert(sizeof(crypto_hash_sha256_state) <=
    sizeof(((struct sha256_ctx *)NULL)->sodium), "sha256_ctx.sodium");
#define SODIUM(ctx)	((crypto_hash_sha256_state *)(void *)&(ctx)->sodium)

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_SHANI	1
#endif

#ifdef HAVE_SHANI
static const uint32_t	 K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

static const uint32_t	 H0[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c,
	0x1f83d9ab, 0x5be0cd19
};

/*
 * Compress n 64-byte blocks into h.  The instructions keep the state as
 * two vectors, {a, b, e, f} and {c, d, g, h} (highest lane first), and
 * do two rounds per call, taking the two words W[t] + K[t] in the low
 * lanes of their third operand; the message schedule for four words at
 * a time is msg1 (W[t-16] + s0(W[t-15])), plus W[t-7], then msg2 (adds
 * s1(W[t-2]), including the words it is computing).
 */
__attribute__((target("sha,ssse3,sse4.1")))
static void
shani_blocks(uint32_t h[8], const unsigned char *p, size_t n)
{
	const __m128i	 bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL,
			    0x0405060700010203LL);
	__m128i		 abef, cdgh, abef0, cdgh0, m[4], w, t;
	int		 i;

	/* {a b c d} {e f g h} (lane 0 first) to {f e b a} {h g d c}. */
	t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xb1);
	cdgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]),
	    0x1b);
	abef = _mm_alignr_epi8(t, cdgh, 8);
	cdgh = _mm_blend_epi16(cdgh, t, 0xf0);

	for (; n > 0; n--, p += 64) {
		abef0 = abef;
		cdgh0 = cdgh;
		for (i = 0; i < 16; i++) {
			if (i < 4)
				m[i] = _mm_shuffle_epi8(_mm_loadu_si128(
				    (const __m128i *)(p + 16 * i)), bswap);
			else {
				t = _mm_sha256msg1_epu32(m[i & 3],
				    m[(i + 1) & 3]);
				t = _mm_add_epi32(t, _mm_alignr_epi8(
				    m[(i + 3) & 3], m[(i + 2) & 3], 4));
				m[i & 3] = _mm_sha256msg2_epu32(t,
				    m[(i + 3) & 3]);
			}
			w = _mm_add_epi32(m[i & 3],
			    _mm_loadu_si128((const __m128i *)&K[4 * i]));
			cdgh = _mm_sha256rnds2_epu32(cdgh, abef, w);
			abef = _mm_sha256rnds2_epu32(abef, cdgh,
			    _mm_shuffle_epi32(w, 0x0e));
		}
		abef = _mm_add_epi32(abef, abef0);
		cdgh = _mm_add_epi32(cdgh, cdgh0);
	}

	/* Back to {a b c d} {e f g h}. */
	t = _mm_shuffle_epi32(abef, 0x1b);		/* a b e f */
	cdgh = _mm_shuffle_epi32(cdgh, 0xb1);		/* g h c d */
	_mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(t, cdgh, 0xf0));
	_mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(cdgh, t, 8));
}

/* CPUID: SHA is leaf 7 EBX bit 29; SSSE3 and SSE4.1 leaf 1 ECX 9, 19. */
static int
shani_usable(void)
{
	static int	 usable = -1;
	unsigned int	 a, b, c, d;

	if (usable == -1) {
		usable = 0;
		if (__get_cpuid(1, &a, &b, &c, &d) && (c & 1U << 9) &&
		    (c & 1U << 19) && __get_cpuid_count(7, 0, &a, &b, &c, &d))
			usable = (b & 1U << 29) != 0;
	}
	return usable;
}
#endif /* HAVE_SHANI */

void
sha256_init(struct sha256_ctx *ctx, int portable)
{
	memset(ctx, 0, sizeof(*ctx));
#ifdef HAVE_SHANI
	if (!portable && shani_usable()) {
		ctx->shani = 1;
		memcpy(ctx->h, H0, sizeof(ctx->h));
		return;
	}
#endif
	(void)portable;
	/* Without a working libsodium no digest can be trusted. */
	if (sodium_init() == -1)
		fatalx("sodium_init failed");
	crypto_hash_sha256_init(SODIUM(ctx));
}

void
sha256_update(struct sha256_ctx *ctx, const void *buf, size_t len)
{
#ifdef HAVE_SHANI
	const unsigned char	*p = buf;
	size_t			 n;

	if (ctx->shani) {
		ctx->bytes += len;
		if (ctx->fill > 0) {
			n = sizeof(ctx->block) - ctx->fill;
			if (n > len)
				n = len;
			memcpy(ctx->block + ctx->fill, p, n);
			ctx->fill += n;
			p += n;
			len -= n;
			if (ctx->fill < sizeof(ctx->block))
				return;
			shani_blocks(ctx->h, ctx->block, 1);
			ctx->fill = 0;
		}
		if (len >= 64) {
			shani_blocks(ctx->h, p, len / 64);
			p += len & ~(size_t)63;
			len &= 63;
		}
		memcpy(ctx->block, p, len);
		ctx->fill = len;
		return;
	}
#endif
	crypto_hash_sha256_update(SODIUM(ctx), buf, len);
}

void
sha256_final(struct sha256_ctx *ctx, unsigned char md[SHA256_LEN])
{
#ifdef HAVE_SHANI
	uint64_t	 bits;
	int		 i;

	if (ctx->shani) {
		/* 0x80, zeros to 56 mod 64, the length in bits big-endian. */
		bits = ctx->bytes * 8;
		ctx->block[ctx->fill++] = 0x80;
		if (ctx->fill > 56) {
			memset(ctx->block + ctx->fill, 0, 64 - ctx->fill);
			shani_blocks(ctx->h, ctx->block, 1);
			ctx->fill = 0;
		}
		memset(ctx->block + ctx->fill, 0, 56 - ctx->fill);
		for (i = 0; i < 8; i++)
			ctx->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
		shani_blocks(ctx->h, ctx->block, 1);
		for (i = 0; i < 8; i++) {
			md[4 * i] = (unsigned char)(ctx->h[i] >> 24);
			md[4 * i + 1] = (unsigned char)(ctx->h[i] >> 16);
			md[4 * i + 2] = (unsigned char)(ctx->h[i] >> 8);
			md[4 * i + 3] = (unsigned char)ctx->h[i];
		}
		explicit_bzero(ctx, sizeof(*ctx));
		return;
	}
#endif
	crypto_hash_sha256_final(SODIUM(ctx), md);
	explicit_bzero(ctx, sizeof(*ctx));
}
