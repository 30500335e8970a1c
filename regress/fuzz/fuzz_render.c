/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_render: sbxctl/render.c (gates render) on arbitrary reports.
 *
 * The first byte picks the format (bit 0: markdown) and the rest is the
 * report.  Whatever it holds, the rendering must not crash, leak or
 * hang, and what it prints must be inert: only printable ASCII and
 * newlines (no terminal escape, with colour off), and in markdown no
 * '<' or '|' that is not escaped (no HTML, no extra table cell).
 * Anything else aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "sbxctl/sbxctl.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE	*fp;
	char	*out = NULL, err[128];
	size_t	 len = 0, i, bs;
	int	 md, cell;

	if (size < 1)
		return 0;
	md = data[0] & 1;
	if ((fp = open_memstream(&out, &len)) == NULL)
		abort();
	(void)render_report((const char *)data + 1, size - 1, md, 0, fp, err,
	    sizeof(err));
	if (fclose(fp) != 0)
		abort();
	bs = 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)out[i];

		if (c != '\n' && (c < 0x20 || c > 0x7e))
			abort();
		/* The table's own pipes start a cell ("| ") or end a row
		 * ("|\n", "|---"); any other is the report's, escaped. */
		cell = c == '|' && (i + 1 == len || out[i + 1] == ' ' ||
		    out[i + 1] == '\n' || out[i + 1] == '-') &&
		    (i == 0 || out[i - 1] == '\n' || out[i - 1] == ' ' ||
		    out[i - 1] == '-');
		if (md && (c == '<' || (c == '|' && !cell)) && bs % 2 == 0)
			abort();
		bs = c == '\\' ? bs + 1 : 0;
	}
	free(out);
	return 0;
}
