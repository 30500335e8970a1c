/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fdcheck.c: what a descriptor passed by a client must be before the
 * service touches it (issue 20).
 *
 * A file system whose answers come from a process the client runs can
 * stall whatever touches the descriptor: close(2) calls the file's
 * ->flush, and FUSE's waits for the daemon's reply (interruptibly, then
 * killably only), so a daemon that never answers FLUSH freezes the
 * thread that closes.  Any user who can run fusermount3, or mount FUSE
 * in a user namespace of their own, runs such a daemon.  Only the
 * descriptors the kernel drops without closing them (left unreceived
 * in a socket, cut by MSG_CTRUNC) escape the flush, so the check comes
 * first, and the caller closes a refused descriptor where a stall
 * blocks nothing (monitor/closer.c).
 *
 * The check itself must not ask the file system: fstatfs(2) and fstat(2)
 * of a FUSE file send STATFS and GETATTR to the daemon whenever the
 * caller is "allowed" by the mount (same uid as its owner, as a monitor
 * run by a user is, or allow_other), and the daemon may sit on those
 * too.  So the file system is read from /proc instead, which answers
 * from the kernel's own records: the link /proc/self/fd/N (a path, or
 * pipe:[..], socket:[..], anon_inode:.. for the kernel's internal file
 * systems, which have no daemon), the mount id in /proc/self/fdinfo/N,
 * and that mount's type in /proc/self/mountinfo.  A mount that is not
 * there belongs to another mount namespace (a client's own user
 * namespace, where it may mount FUSE): nothing says what it is without
 * asking it, so it is refused as well.
 *
 * Refused: FUSE in all its forms (fuse, fuseblk, fuse.SUBTYPE), and the
 * other file systems served by a user space daemon, Coda (venus) and
 * OrangeFS (pvfs2, its client-core).  Not refused: NFS, CIFS/SMB, 9p,
 * Ceph and AFS, whose servers a client cannot start or mount: root
 * mounts them, and decides whether they are trusted.  Also not refused:
 * overlayfs, whose flush passes to its lower layer; a client can stack
 * one on its own FUSE mount only inside its own mount namespace, which
 * the rule above refuses.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "fdcheck.h"

static const char *const stallfs[] = { "fuse", "fuseblk", "coda", "pvfs2" };

/* The mount id of fd, from /proc/self/fdinfo; -1 if it cannot be read. */
static long
fd_mnt_id(int fd)
{
	char	 path[64], line[256], *ep;
	FILE	*f;
	long	 id = -1;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "mnt_id:", 7) == 0) {
			errno = 0;
			id = strtol(line + 7, &ep, 10);
			if (errno != 0 || ep == line + 7 || id < 0)
				id = -1;
			break;
		}
	fclose(f);
	return id;
}

/*
 * The type of mount id in /proc/self/mountinfo into type: 0, or -1 when
 * the mount is not there (another namespace) or the file is unreadable.
 * A line: ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS...] - TYPE SOURCE
 * SUPEROPTIONS; spaces in paths are escaped (\040), so fields split on
 * spaces.
 */
static int
mnt_type(long id, char *type, size_t typelen)
{
	FILE	*f;
	char	*line = NULL, *p, *q, *ep;
	size_t	 cap = 0;
	long	 n;
	int	 ret = -1;

	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL)
		return -1;
	while (getline(&line, &cap, f) != -1) {
		errno = 0;
		n = strtol(line, &ep, 10);
		if (errno != 0 || ep == line || *ep != ' ' || n != id)
			continue;
		if ((p = strstr(line, " - ")) == NULL)
			break;
		p += 3;
		if ((q = strchr(p, ' ')) == NULL)
			break;
		*q = '\0';
		if (strlcpy(type, p, typelen) < typelen)
			ret = 0;
		break;
	}
	free(line);
	fclose(f);
	return ret;
}

int
passed_fd_check(int fd, char *err, size_t errlen)
{
	char	 path[64], link[8], type[64];
	ssize_t	 n;
	size_t	 i, l;
	long	 id;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if ((n = readlink(path, link, sizeof(link))) == -1) {
		snprintf(err, errlen, "descriptor: %s: %s", path,
		    strerror(errno));
		return -1;
	}
	/* pipe:[N], socket:[N], anon_inode:...: the kernel's own. */
	if (n > 0 && link[0] != '/')
		return 0;
	if ((id = fd_mnt_id(fd)) == -1) {
		snprintf(err, errlen, "descriptor: no mount id in "
		    "/proc/self/fdinfo/%d", fd);
		return -1;
	}
	if (mnt_type(id, type, sizeof(type)) == -1) {
		snprintf(err, errlen, "descriptor on mount %ld, which is not "
		    "in the service's mount namespace: refused, its file "
		    "system (FUSE?) cannot be told without asking it", id);
		return -1;
	}
	for (i = 0; i < nitems(stallfs); i++) {
		l = strlen(stallfs[i]);
		if (strncmp(type, stallfs[i], l) == 0 &&
		    (type[l] == '\0' || (type[l] == '.' &&
		    strcmp(stallfs[i], "fuse") == 0))) {
			snprintf(err, errlen, "descriptor on a %s file system "
			    "(%s): refused, its close would wait for a daemon "
			    "the client controls", i < 2 ? "FUSE" : type, type);
			return -1;
		}
	}
	return 0;
}

/*
 * The caller's right to what the service will do with the descriptor is
 * the open(2) the caller made: it checked read permission for O_RDONLY
 * and O_RDWR, write permission for O_WRONLY and O_RDWR.  An O_PATH open
 * checks nothing (F_GETFL shows O_PATH and an access mode of O_RDONLY),
 * and the service could reach through it what the caller cannot (openat
 * beneath it, a reopen through /proc/self/fd): it is always refused.
 */
int
passed_fd_mode(int fd, int want, const char *what, char *err, size_t errlen)
{
	struct stat	 st;
	int		 fl, acc;

	if ((fl = fcntl(fd, F_GETFL)) == -1) {
		snprintf(err, errlen, "the %s descriptor: fcntl: %s", what,
		    strerror(errno));
		return -1;
	}
	if (fl & O_PATH) {
		snprintf(err, errlen, "the %s descriptor was opened with "
		    "O_PATH, which checks no permission", what);
		return -1;
	}
	acc = fl & O_ACCMODE;
	if ((want & PASSED_FD_READ) && acc != O_RDONLY && acc != O_RDWR) {
		snprintf(err, errlen, "the %s descriptor is not open for "
		    "reading", what);
		return -1;
	}
	if (want & PASSED_FD_DIR) {
		if (fstat(fd, &st) == -1) {
			snprintf(err, errlen, "the %s descriptor: fstat: %s",
			    what, strerror(errno));
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "the %s descriptor is not a "
			    "directory", what);
			return -1;
		}
	}
	return 0;
}
