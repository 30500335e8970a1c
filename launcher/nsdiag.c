/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * nsdiag.c: say which namespace type is missing when clone fails.
 *
 * clone reports one errno for seven namespace types; an operator told
 * "EPERM" or "ENOSPC" cannot fix anything, so look at the kernel's knobs
 * and name the first one that explains the failure.  The launcher never
 * retries with fewer namespaces: a sandbox without one of them is not the
 * sandbox the profile asked for.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec.h"
#include "launcher.h"

static const struct {
	const char	*name;		/* for the message */
	const char	*nsfile;	/* /proc/self/ns/<nsfile> */
	const char	*sysctl;	/* /proc/sys/user/<sysctl> */
} nstypes[] = {
	{ "user",	"user",		"max_user_namespaces" },
	{ "pid",	"pid",		"max_pid_namespaces" },
	{ "mount",	"mnt",		"max_mnt_namespaces" },
	{ "network",	"net",		"max_net_namespaces" },
	{ "ipc",	"ipc",		"max_ipc_namespaces" },
	{ "uts",	"uts",		"max_uts_namespaces" },
	{ "cgroup",	"cgroup",	"max_cgroup_namespaces" },
};

/* The integer in a /proc/sys file, or -1 when absent or unreadable. */
static long
read_knob(const char *path)
{
	char	 buf[32], *end;
	ssize_t	 n;
	long	 v;
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno != 0 || end == buf)
		return -1;
	return v;
}

void
nsdiag_explain(int err, char *buf, size_t len)
{
	char	 path[96];
	size_t	 i;

	for (i = 0; i < nitems(nstypes); i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s",
		    nstypes[i].nsfile);
		if (access(path, F_OK) == -1 && errno == ENOENT) {
			snprintf(buf, len, "clone: %s: %s namespaces are "
			    "missing from this kernel (no %s)",
			    sbx_errname(err), nstypes[i].name, path);
			return;
		}
		snprintf(path, sizeof(path), "/proc/sys/user/%s",
		    nstypes[i].sysctl);
		if (read_knob(path) == 0) {
			snprintf(buf, len, "clone: %s: %s namespaces are "
			    "disabled (user.%s = 0)", sbx_errname(err),
			    nstypes[i].name, nstypes[i].sysctl);
			return;
		}
	}
	if (geteuid() != 0 &&
	    read_knob("/proc/sys/kernel/unprivileged_userns_clone") == 0) {
		snprintf(buf, len, "clone: %s: unprivileged user namespaces "
		    "are disabled (kernel.unprivileged_userns_clone = 0)",
		    sbx_errname(err));
		return;
	}
	if (geteuid() != 0 && read_knob(
	    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1) {
		snprintf(buf, len, "clone: %s: AppArmor restricts "
		    "unprivileged user namespaces "
		    "(kernel.apparmor_restrict_unprivileged_userns = 1)",
		    sbx_errname(err));
		return;
	}
	snprintf(buf, len, "clone: %s: cannot create the user, pid, mount, "
	    "network, ipc, uts and cgroup namespaces%s", sbx_errname(err),
	    err == ENOSPC ? " (a namespace count limit is exhausted)" : "");
}
