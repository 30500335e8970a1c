/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * beneath.c: every file of a bundle is opened here, relative to a
 * directory descriptor the monitor handed over, and read with a bound.
 *
 * Threat: a bundle is attacker-controlled.  A path that climbs out with
 * "..", an absolute path, a symlink (anywhere on the way, not just at the
 * end) or a /proc magic link would make us read, digest and run host
 * files the operator never reviewed.  openat2 refuses all of them in the
 * kernel, atomically with the open, so there is no check-then-open race.
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "beneath.h"

int
open_beneath(int dirfd, const char *path, int flags)
{
	struct open_how	 how;
	long		 fd;
	int		 tries = 0;

	memset(&how, 0, sizeof(how));
	/* openat2 refuses flags O_PATH ignores; O_NOCTTY only without it. */
	if ((flags & O_PATH) == 0)
		flags |= O_NOCTTY;
	how.flags = (uint64_t)(flags | O_CLOEXEC);
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
	    RESOLVE_NO_MAGICLINKS;
	/* EAGAIN: a rename raced the lookup; retry a few times. */
	do {
		fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	} while (fd == -1 && (errno == EINTR || errno == EAGAIN) &&
	    ++tries < 16);
	return (int)fd;
}

int
read_bounded(int fd, size_t max, unsigned char **bufp, size_t *lenp)
{
	struct stat	 st;
	unsigned char	*buf = NULL;
	size_t		 len = 0, cap = 0, ncap;
	ssize_t		 n;
	int		 saved;

	*bufp = NULL;
	*lenp = 0;
	if (max >= SIZE_MAX - 1) {
		errno = EINVAL;
		return -1;
	}
	/*
	 * cap bytes of data and the NUL after them.  A regular file's size
	 * is known: one buffer of that size (and one byte more, to see the
	 * end) instead of doubling up to it, which would copy and fault in
	 * every byte of a large file twice.
	 */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uintmax_t)st.st_size <= max) {
		cap = (size_t)st.st_size + 1;
		buf = xcalloc(cap + 1, 1);
	}
	for (;;) {
		if (len == cap) {
			if (cap > max)
				break;
			ncap = cap == 0 ? 65536 : cap * 2;
			if (ncap > max + 1 || ncap < cap)
				ncap = max + 1;
			buf = xrecallocarray(buf, buf == NULL ? 0 : cap + 1,
			    ncap + 1, 1);
			cap = ncap;
		}
		if ((n = read(fd, buf + len, cap - len)) == -1) {
			if (errno == EINTR)
				continue;
			saved = errno;
			freezero(buf, cap + 1);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

/*
 * Strict UTF-8, as a WHATWG decoder reads it without replacement: no
 * overlongs, no surrogates, nothing above U+10FFFF, no truncated
 * sequence.  Exactly the byte strings that survive decode-then-encode
 * unchanged; a BOM and U+FFFD are ordinary characters.
 */
size_t
utf8_check(const unsigned char *s, size_t len)
{
	size_t		 i = 0, n, k;
	uint32_t	 c, min;

	while (i < len) {
		c = s[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			n = 2;
			c &= 0x1f;
			min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 3;
			c &= 0x0f;
			min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 4;
			c &= 0x07;
			min = 0x10000;
		} else
			return i;
		if (len - i < n)
			return i;
		for (k = 1; k < n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return i;
			c = (c << 6) | (s[i + k] & 0x3f);
		}
		if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			return i;
		i += n;
	}
	return len;
}
