/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * probeloc.h: for test programs that bind regress/helpers/probe into
 * sandboxes they spawn in-process (t_launcher_sandbox, t_launcher_warm).
 * probe_locate() sets probe_path (absolute, no "." or "..": a bind's
 * source may have none) and probe_build (the build tree's regress/
 * unittests directory).  A sandbox mapped to a dedicated uid (as root)
 * may not be able to walk to a build tree in a private directory
 * (/root/..., mktemp -d): there the probe is a copy in a directory
 * anyone may enter, removed at exit.
 */
#ifndef PROBELOC_H
#define PROBELOC_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf-c.h>

static char	 probe_path[PATH_MAX];
static char	 probe_build[PATH_MAX];
static char	 probe_dir[64];		/* "/tmp/sbx-probe.XXXXXX" */

static void
probe_dir_remove(void)
{
	char	 p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/probe", probe_dir);
	unlink(p);
	rmdir(probe_dir);
}

static void
probe_reachable(void)
{
	char	 dst[PATH_MAX], buf[65536];
	ssize_t	 n;
	int	 in, out;

	if (geteuid() != 0 || probe_dir[0] != '\0')
		return;
	strlcpy(probe_dir, "/tmp/sbx-probe.XXXXXX", sizeof(probe_dir));
	if (mkdtemp(probe_dir) == NULL || chmod(probe_dir, 0755) == -1)
		atf_tc_fail("mkdtemp: %s", strerror(errno));
	atexit(probe_dir_remove);
	snprintf(dst, sizeof(dst), "%s/probe", probe_dir);
	if ((in = open(probe_path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    (out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0755)) == -1)
		atf_tc_fail("copying the probe: %s", strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			atf_tc_fail("copying the probe: %s", strerror(errno));
	close(in);
	if (close(out) == -1 || n == -1)
		atf_tc_fail("copying the probe: %s", strerror(errno));
	strlcpy(probe_path, dst, sizeof(probe_path));
}

static void
probe_locate(const atf_tc_t *tc)
{
	char	 dir[PATH_MAX];

	if (realpath(atf_tc_get_config_var(tc, "srcdir"), dir) == NULL)
		atf_tc_fail("realpath srcdir: %s", strerror(errno));
	/* srcdir is build/regress/unittests */
	strlcpy(probe_build, dir, sizeof(probe_build));
	if ((size_t)snprintf(probe_path, sizeof(probe_path),
	    "%s/../helpers/probe", dir) >= sizeof(probe_path))
		atf_tc_fail("srcdir %s: path too long", dir);
	if (realpath(probe_path, dir) == NULL)
		atf_tc_fail("%s: %s", probe_path, strerror(errno));
	strlcpy(probe_path, dir, sizeof(probe_path));
	probe_reachable();
}

#endif /* PROBELOC_H */
