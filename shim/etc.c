/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * etc.c: the few files under /etc that everyday tools read to know who and
 * where they are, generated into the root tmpfs before it becomes
 * read-only (design.md §8, step 7):
 *
 *   passwd, group  the sandbox user (its uid and gid as seen inside) under
 *                  the spec's name ("sbx" unless the monitor named the
 *                  caller), with the profile's HOME and /bin/sh; nothing
 *                  of the host's user database.
 *   hosts          localhost (127.0.0.1, ::1) and the sandbox's host name,
 *                  so a test server on loopback is reachable by name.
 *   nsswitch.conf  files only: no NSS module of the host's (systemd, sss,
 *                  ldap) is loaded by the payload, and no lookup leaves the
 *                  sandbox through a daemon's socket.
 *
 * A file the profile already put there (a bind of the host's /etc or of
 * the file itself) wins: the profile asked for it.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "spec.h"
#include "shim.h"

/*
 * Every host id but the sandbox's own shows as the kernel's overflow ids
 * inside (root-owned /usr, the proc files of the host): 65534 unless an
 * administrator changed kernel.overflowuid.  Naming them nobody/nogroup
 * lets ls -l and find -user print a name, as on the host.  Root is not
 * listed: uid 0 is never mapped into a sandbox (launcher/idmap.c), so no
 * file or process inside is root's.
 */
#define OVERFLOW_ID	65534

static void
put_file(const char *inside, const char *text)
{
	char		 path[PATH_MAX];
	struct stat	 st;
	size_t		 len, off;
	ssize_t		 n;
	int		 fd;

	if ((size_t)snprintf(path, sizeof(path), "%s%s", SHIM_STAGE,
	    inside) >= sizeof(path))
		shim_fail(ENAMETOOLONG, "%s", inside);
	if (lstat(path, &st) == 0)
		return;
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1) {
		/* /etc is a read-only bind of the profile's: its choice. */
		if (errno == EROFS)
			return;
		shim_fail(errno, "create %s", inside);
	}
	len = strlen(text);
	for (off = 0; off < len; off += (size_t)n)
		if ((n = write(fd, text + off, len - off)) <= 0)
			shim_fail(n == -1 ? errno : EIO, "write %s", inside);
	close(fd);
}

/* The profile's HOME, if it is one a passwd line can hold. */
static const char *
home_of(const struct sbx_spec *sp)
{
	const char	*h;
	size_t		 i;

	for (i = 0; i < sp->envc; i++) {
		if (strncmp(sp->env[i], "HOME=", 5) != 0)
			continue;
		h = sp->env[i] + 5;
		if (h[0] == '/' && strpbrk(h, ":\n") == NULL &&
		    strlen(h) < PATH_MAX / 2)
			return h;
	}
	return "/";
}

void
shim_etc(const struct sbx_spec *sp)
{
	char		 buf[PATH_MAX * 2], path[PATH_MAX];
	const char	*user;
	uid_t		 uid = getuid();
	gid_t		 gid = getgid();
	int		 n;

	if ((size_t)snprintf(path, sizeof(path), "%s/etc", SHIM_STAGE) >=
	    sizeof(path))
		shim_fail(ENAMETOOLONG, "/etc");
	if (mkdir(path, 0755) == -1 && errno != EEXIST)
		shim_fail(errno, "mkdir /etc");
	user = sp->user != NULL ? sp->user : SHIM_USER;

	/* The name is also the comment field: git takes its default
	 * author name from it and refuses an empty one. */
	n = snprintf(buf, sizeof(buf), "%s:x:%u:%u:%s:%s:/bin/sh\n", user,
	    (unsigned)uid, (unsigned)gid, user, home_of(sp));
	if (uid != OVERFLOW_ID && n > 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n,
		    "nobody:x:%u:%u:nobody:/nonexistent:/usr/sbin/nologin\n",
		    OVERFLOW_ID, OVERFLOW_ID);
	put_file("/etc/passwd", buf);

	n = snprintf(buf, sizeof(buf), "%s:x:%u:\n", user, (unsigned)gid);
	if (gid != OVERFLOW_ID && n > 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n, "nogroup:x:%u:\n",
		    OVERFLOW_ID);
	put_file("/etc/group", buf);

	/*
	 * The host name has a line with a dotted first name (Debian's
	 * 127.0.1.1 convention): a canonical name with a dot is what git
	 * needs for a default e-mail address.
	 */
	snprintf(buf, sizeof(buf),
	    "127.0.0.1\tlocalhost\n"
	    "::1\t\tlocalhost ip6-localhost ip6-loopback\n"
	    "127.0.1.1\t%s.localdomain %s\n", SHIM_HOSTNAME, SHIM_HOSTNAME);
	put_file("/etc/hosts", buf);

	put_file("/etc/nsswitch.conf",
	    "passwd:\tfiles\n"
	    "group:\tfiles\n"
	    "hosts:\tfiles\n");
}
