/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_conf: sbx.conf(5) reader.  Any input must be parsed or refused
 * without a crash, leak or hang; an accepted input must survive
 * dump -> parse -> dump unchanged (the dump is what -nv shows operators).
 *
 *	make build/fuzz/fuzz_conf
 *	build/fuzz/fuzz_conf -dict=regress/fuzz/fuzz_conf.dict CORPUS etc
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "conf/conf.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char	 dir[] = "/tmp/fuzz_conf.XXXXXX";
static char	 input[PATH_MAX], redump[PATH_MAX];

static void
quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static void
put(const char *path, const void *data, size_t len)
{
	int	 fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1)
		fatal("open %s", path);
	if (len > 0 && write(fd, data, len) != (ssize_t)len)
		fatal("write %s", path);
	close(fd);
}

static char *
dump(const struct sbx_conf *conf, size_t *len)
{
	char	*buf = NULL;
	FILE	*fp;

	if ((fp = open_memstream(&buf, len)) == NULL)
		fatal("open_memstream");
	conf_dump(fp, conf);
	if (fclose(fp) != 0)
		fatal("fclose");
	return buf;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbx_conf	*conf, *again;
	char		*d1, *d2;
	size_t		 l1, l2;

	/* A private directory: includes in the input resolve into it, and
	 * nothing is left there between runs. */
	if (input[0] == '\0') {
		if (mkdtemp(dir) == NULL)
			fatal("mkdtemp");
		snprintf(input, sizeof(input), "%s/input.conf", dir);
		snprintf(redump, sizeof(redump), "%s/dump.conf", dir);
	}
	put(input, data, size);
	conf = conf_parse_cb(input, quiet, NULL);
	unlink(input);
	if (conf == NULL)
		return 0;

	d1 = dump(conf, &l1);
	put(redump, d1, l1);
	again = conf_parse_cb(redump, quiet, NULL);
	unlink(redump);
	if (again == NULL) {
		fprintf(stderr, "dump of an accepted input refused:\n%s", d1);
		abort();
	}
	d2 = dump(again, &l2);
	if (l1 != l2 || memcmp(d1, d2, l1) != 0) {
		fprintf(stderr, "dump changed on re-reading:\n%s---\n%s", d1,
		    d2);
		abort();
	}
	free(d1);
	free(d2);
	conf_free(again);
	conf_free(conf);
	return 0;
}
