/*
 * input.c: reading a command's input file, or standard input for "-".
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "sbxctl.h"

/*
 * Read all of path, but never more than max + 1 bytes: the consumer (the
 * JSON parser's size limit) then refuses an oversized input by name
 * instead of this process growing without bound.  0, or -1 with errno.
 */
int
input_read(const char *path, size_t max, char **bufp, size_t *lenp)
{
	struct stat	 st;
	char		*buf = NULL;
	size_t		 len = 0, cap = 0, ncap;
	ssize_t		 n;
	int		 fd, saved;

	*bufp = NULL;
	*lenp = 0;
	if (max == SIZE_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	/*
	 * A regular file's size is known: one buffer of that size (and one
	 * byte more, to see the end) instead of doubling from 64 KiB, which
	 * copied and faulted in every byte of a large records file twice.
	 */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uintmax_t)st.st_size <= max) {
		cap = (size_t)st.st_size + 1;
		buf = xreallocarray(NULL, cap, 1);
	}
	for (;;) {
		if (len == cap) {
			if (cap > max)
				break;
			ncap = cap == 0 ? 65536 : cap * 2;
			if (ncap > max + 1 || ncap < cap)
				ncap = max + 1;
			buf = xreallocarray(buf, ncap, 1);
			cap = ncap;
		}
		if ((n = read(fd, buf + len, cap - len)) == -1) {
			if (errno == EINTR)
				continue;
			saved = errno;
			free(buf);
			if (fd != STDIN_FILENO)
				close(fd);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (fd != STDIN_FILENO)
		close(fd);
	*bufp = buf;
	*lenp = len;
	return 0;
}
