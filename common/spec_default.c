/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * spec_default.c: the built-in sandbox that the "default" profile maps to.
 * The caller adds argv, env and the workdir; everything else is here so
 * that a profile which names nothing still gets every limit.
 */
#include <sys/stat.h>

#include <errno.h>

#include "common.h"
#include "spec.h"

/*
 * The system directories a dynamically linked command needs, read-only.
 * Only those present are bound: on a merged-/usr system /bin, /lib and
 * /lib64 are symlinks and bind the same trees again under their old names,
 * which is what binaries with those interpreter paths expect.
 */
static const char *const default_ro[] = {
	"/usr",
	"/bin",
	"/lib",
	"/lib64",
	"/etc/ssl/certs",
	"/etc/alternatives",
};

int
sbx_spec_default(struct sbx_spec *sp)
{
	struct stat	 st;
	size_t		 i;

	sbx_spec_init(sp);
	sp->class = SBX_CLASS_COMMAND;
	sp->net = SBX_NET_NONE;
	sp->root_size = 1ULL << 20;	/* mount points only; read-only */
	sp->tmp_size = 64ULL << 20;
	sp->timeout_ms = 600ULL * 1000;
	sp->memory = 1ULL << 30;
	sp->pids = 256;
	sp->nofile = 1024;
	sp->fsize = SBX_SPEC_UNLIMITED;
	for (i = 0; i < nitems(default_ro); i++) {
		if (stat(default_ro[i], &st) == -1 || !S_ISDIR(st.st_mode))
			continue;
		if (sbx_spec_add_mount(sp, SBX_MOUNT_RO, default_ro[i],
		    default_ro[i], 0) == -1)
			return -1;
	}
	return 0;
}
