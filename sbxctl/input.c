/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * input.c: reading a command's input file, or standard input for "-".
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "beneath.h"
#include "sbxctl.h"

/*
 * Read all of path, but never more than max + 1 bytes: the consumer (the
 * JSON parser's size limit) then refuses an oversized input by name
 * instead of this process growing without bound.  0, or -1 with errno.
 */
int
input_read(const char *path, size_t max, char **bufp, size_t *lenp)
{
	unsigned char	*buf;
	int		 fd, r, saved;

	*bufp = NULL;
	*lenp = 0;
	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	r = read_bounded(fd, max, &buf, lenp);
	saved = errno;
	if (fd != STDIN_FILENO)
		close(fd);
	errno = saved;
	if (r == 0)
		*bufp = (char *)buf;
	return r;
}
