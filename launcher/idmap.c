/*
 * idmap.c: the uid/gid maps of a new sandbox's user namespace.
 *
 * Inside, the sandbox runs as one unprivileged id (1000 by default) and
 * uid 0 is never mapped, so nothing inside can hold root's file ownership
 * or regain capabilities by exec'ing as root.  Outside, that id is:
 *   - the launcher's own uid/gid when the launcher is unprivileged (the
 *     only mapping the kernel allows it, and only after setgroups is
 *     denied, or the sandbox could drop a group that denies it access);
 *   - a dedicated host id when root configured a range;
 *   - root itself otherwise.  The payload then owns what host root owns
 *     on the mounts it can see, which the read-only binds and Landlock
 *     contain, and RLIMIT_NPROC does not bind it (the kernel exempts
 *     host uid 0); a dedicated range is the better configuration.
 */
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"

int
idmap_privileged(void)
{
	return geteuid() == 0;
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
	if (conf->use_range && !idmap_privileged()) {
		snprintf(err, errlen, "uid range %u: the launcher runs as "
		    "uid %u and can map only its own id (a range needs "
		    "root)", (unsigned)conf->range_uid, (unsigned)geteuid());
		return -1;
	}
	if (conf->use_range && (conf->range_uid == 0 ||
	    conf->range_gid == 0)) {
		snprintf(err, errlen, "uid range %u/%u: a dedicated range "
		    "must not be root", (unsigned)conf->range_uid,
		    (unsigned)conf->range_gid);
		return -1;
	}
	return 0;
}

int
idmap_write(pid_t pid, const struct launcher_conf *conf, char *err,
    size_t errlen)
{
	char	 map[64];
	uid_t	 hostuid;
	gid_t	 hostgid;
	int	 priv = idmap_privileged();

	if (idmap_check(conf, err, errlen) == -1)
		return -1;
	if (priv && conf->use_range) {
		hostuid = conf->range_uid;
		hostgid = conf->range_gid;
	} else {
		hostuid = geteuid();
		hostgid = getegid();
	}
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
