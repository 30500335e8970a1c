/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * canonify: exposes the canonical-JSON code to regress/canon.sh, which
 * compares it line by line with what node computes.
 *
 *   canonify -n	each input line is a double as 16 hex digits (its bit
 *			pattern, so no decimal conversion stands between node
 *			and us); prints json_number_format of it
 *   canonify -j	each input line is a JSON document; prints its
 *			canonical text, or "error <offset>: <reason>"
 *   canonify -p	each input line is a JSON number; prints the bit
 *			pattern of the double it parses to as 16 hex digits,
 *			or "error"
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static __dead void
usage(void)
{
	fprintf(stderr, "usage: canonify -n | -j | -p\n");
	exit(2);
}

static void
number_line(const char *line, size_t len)
{
	char		 buf[JSON_NUMBER_BUFSZ], *end;
	uint64_t	 bits;
	double		 d;

	if (len != 16)
		fatalx("number line \"%s\": 16 hex digits expected", line);
	errno = 0;
	bits = strtoull(line, &end, 16);
	if (errno != 0 || end != line + 16)
		fatalx("number line \"%s\": not hex", line);
	memcpy(&d, &bits, sizeof(d));
	if (json_number_format(d, buf, sizeof(buf)) == -1)
		printf("error: %s\n", strerror(errno));
	else
		printf("%s\n", buf);
}

static void
parse_line(const char *line, size_t len)
{
	struct json_value	*v;
	struct json_error	 err;
	uint64_t		 bits;

	if (json_parse(line, len, NULL, &v, &err) == -1) {
		printf("error\n");
		return;
	}
	if (v->type != JSON_NUMBER)
		fatalx("parse line \"%s\": not a number", line);
	memcpy(&bits, &v->u.number, sizeof(bits));
	printf("%016" PRIx64 "\n", bits);
	json_free(v);
}

static void
json_line(const char *line, size_t len)
{
	struct json_value	*v;
	struct json_error	 err;
	char			*text;
	size_t			 tlen;

	if (json_parse(line, len, NULL, &v, &err) == -1) {
		printf("error %zu: %s\n", err.offset, err.reason);
		return;
	}
	if (json_canonical(v, &text, &tlen) == -1)
		fatal("json_canonical");
	fwrite(text, 1, tlen, stdout);
	putchar('\n');
	free(text);
	json_free(v);
}

int
main(int argc, char *argv[])
{
	char	*line = NULL;
	size_t	 cap = 0;
	ssize_t	 len;
	int	 ch, mode = 0;

	while ((ch = getopt(argc, argv, "njp")) != -1) {
		switch (ch) {
		case 'n':
		case 'j':
		case 'p':
			mode = ch;
			break;
		default:
			usage();
		}
	}
	if (mode == 0 || optind != argc)
		usage();
	while ((len = getline(&line, &cap, stdin)) != -1) {
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (mode == 'n')
			number_line(line, (size_t)len);
		else if (mode == 'p')
			parse_line(line, (size_t)len);
		else
			json_line(line, (size_t)len);
	}
	if (ferror(stdin))
		fatal("stdin");
	free(line);
	if (fflush(stdout) == EOF || ferror(stdout))
		fatal("stdout");
	return 0;
}
