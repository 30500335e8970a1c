/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * idmap.c: the uid/gid maps of a new sandbox's user namespace.
 *
 * Inside, the sandbox runs as one unprivileged id (1000 by default) and
 * uid 0 is never mapped, so nothing inside can hold root's file ownership
 * or regain capabilities by exec'ing as root.  Outside, that id is:
 *   - the launcher's own uid/gid (identity service, and every sandbox of
 *     a service a user started: the only mapping the kernel allows an
 *     unprivileged process, and only after setgroups is denied, or the
 *     sandbox could drop a group that denies it access);
 *   - the requesting peer's uid/gid (identity caller) or a dedicated id
 *     of sandbox-uid-range (identity range), which the monitor decided.
 *     Writing a map onto another host id needs CAP_SETUID and CAP_SETGID
 *     in the initial user namespace: in a service started as root only
 *     the launcher's mapper holds them (split.c), and it writes every
 *     map, by its own policy (idmap_policy_check), whatever the front
 *     asks.  Host id 0 is never mapped.
 */
#include <sys/types.h>
#include <sys/syscall.h>

#include <linux/capability.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proto.h"
#include "spec.h"
#include "launcher.h"

/* CAP_SETUID and CAP_SETGID effective: maps onto other host ids. */
int
idmap_privileged(void)
{
	struct __user_cap_header_struct	 hdr;
	struct __user_cap_data_struct	 data[2];
	uint32_t			 want;

	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &hdr, data) == -1)
		return 0;
	want = (1U << CAP_SETUID) | (1U << CAP_SETGID);
	return (data[0].effective & want) == want;
}

/* Maps onto other host ids can be written: by the mapper (split), or
 * by this process itself (the unit tests, run as root). */
int
idmap_can_map(void)
{
	/* Split, the front holds nothing and asks nothing (no capget). */
	if (split_spawner() != -1)
		return split_mapper() != -1;
	return idmap_privileged();
}

static int
write_file(pid_t pid, const char *name, const char *data, char *err,
    size_t errlen)
{
	char	 path[64];
	size_t	 len = strlen(data);
	ssize_t	 n;
	int	 fd, saved;

	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "open %s: %s", path,
		    sbx_errname(errno));
		return -1;
	}
	n = write(fd, data, len);
	saved = errno;
	close(fd);
	if (n != (ssize_t)len) {
		snprintf(err, errlen, "write \"%.*s\" to %s: %s",
		    (int)strcspn(data, "\n"), data, path,
		    n == -1 ? sbx_errname(saved) : "short write");
		return -1;
	}
	return 0;
}

/* Refuse a configuration the kernel would refuse, before any clone. */
int
idmap_check(const struct launcher_conf *conf, char *err, size_t errlen)
{
	if (conf->sandbox_uid == 0 || conf->sandbox_gid == 0) {
		snprintf(err, errlen, "sandbox uid/gid %u/%u: id 0 inside a "
		    "sandbox is refused", (unsigned)conf->sandbox_uid,
		    (unsigned)conf->sandbox_gid);
		return -1;
	}
	if (!conf->map_host)
		return 0;
	/* Checked before the capability: a request to map host root is
	 * refused as such, whoever runs the launcher. */
	if (conf->host_uid == 0 || conf->host_gid == 0 ||
	    conf->host_uid == (uid_t)-1 || conf->host_gid == (gid_t)-1) {
		snprintf(err, errlen, "host uid/gid %u/%u: a sandbox is never "
		    "mapped to host root (or to the id -1)",
		    (unsigned)conf->host_uid, (unsigned)conf->host_gid);
		return -1;
	}
	if (!idmap_can_map()) {
		snprintf(err, errlen, "host uid/gid %u/%u: the launcher runs "
		    "as uid %u without CAP_SETUID and CAP_SETGID and can map "
		    "only its own id (the service must be started as root to "
		    "run sandboxes as another user)",
		    (unsigned)conf->host_uid, (unsigned)conf->host_gid,
		    (unsigned)geteuid());
		return -1;
	}
	return 0;
}

int
idmap_write(pid_t pid, int pidfd, const struct launcher_conf *conf,
    char *err, size_t errlen)
{
	char	 map[64];
	uid_t	 hostuid;
	gid_t	 hostgid;
	int	 priv = idmap_can_map();

	if (idmap_check(conf, err, errlen) == -1)
		return -1;
	if (conf->map_host) {
		hostuid = conf->host_uid;
		hostgid = conf->host_gid;
	} else {
		hostuid = geteuid();
		hostgid = getegid();
	}
	/* The mapper checks the request against the monitor's policy. */
	if (split_mapper() != -1)
		return mapper_request(pid, pidfd, conf->map_host ?
		    conf->identity : SBX_IDENTITY_SERVICE, conf->sandbox_uid,
		    conf->sandbox_gid, hostuid, hostgid, err, errlen);
	if (!priv && write_file(pid, "setgroups", "deny", err, errlen) == -1)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)conf->sandbox_uid,
	    (unsigned)hostuid);
	if (write_file(pid, "uid_map", map, err, errlen) == -1)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)conf->sandbox_gid,
	    (unsigned)hostgid);
	if (write_file(pid, "gid_map", map, err, errlen) == -1)
		return -1;
	return 0;
}
