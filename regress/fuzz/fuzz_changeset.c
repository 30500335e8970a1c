/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_changeset: the changeset stream parser (common/changeset.c) on
 * arbitrary bytes.  Any input is refused with a reason or accepted; an
 * accepted one is written again record by record with the writer, which
 * must take every record the parser took and produce the same bytes.
 * Anything else aborts.
 */
#include <sys/mman.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "changeset.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
memfd_with(const uint8_t *data, size_t size)
{
	int	 fd;

	if ((fd = memfd_create("fuzz", 0)) == -1)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	if (lseek(fd, 0, SEEK_SET) != 0)
		abort();
	return fd;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sbx_cs_rec rec;
	struct sbx_cs_reader	*r;
	struct sbx_cs_writer	*w;
	unsigned char		*buf, *out;
	char			 err[512];
	size_t			 have;
	ssize_t			 k;
	int			 in, fd, rc;

	in = memfd_with(data, size);
	/* What the monitor asks first: a failed writer's mark? */
	if (sbx_cs_failure(in, err, sizeof(err)) == -1)
		abort();
	if ((r = sbx_cs_open(in, err, sizeof(err))) == NULL) {
		if (err[0] == '\0')
			abort();
		close(in);
		return 0;
	}
	if ((fd = memfd_create("again", 0)) == -1)
		abort();
	if ((w = sbx_cs_write_begin(fd, sbx_cs_count(r), err,
	    sizeof(err))) == NULL)
		abort();
	if ((buf = malloc(size + 1)) == NULL)
		abort();
	while ((rc = sbx_cs_next(r, &rec)) == 1) {
		have = 0;
		while ((k = sbx_cs_read(r, buf + have, 7)) > 0)
			have += (size_t)k;
		if (k == -1)
			break;
		if (rec.kind == SBX_CS_FILE && have != rec.size)
			abort();
		if (sbx_cs_write(w, &rec, -1, rec.kind == SBX_CS_FILE ? buf :
		    NULL) == -1)
			abort();	/* the writer refuses what was read */
	}
	if (rc == 0) {
		if (sbx_cs_write_end(w) == -1 || lseek(fd, 0, SEEK_END) !=
		    (off_t)size)
			abort();
		if ((out = malloc(size)) == NULL)
			abort();
		if (pread(fd, out, size, 0) != (ssize_t)size ||
		    memcmp(out, data, size) != 0)
			abort();
		free(out);
	} else if (sbx_cs_error(r)[0] == '\0')
		abort();
	free(buf);
	sbx_cs_write_free(w);
	sbx_cs_close(r);
	close(fd);
	close(in);
	return 0;
}
