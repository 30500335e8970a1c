/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * rolespawn.c: where the roles are, and starting one outside the monitor.
 *
 * The roles live in SBX_ROLEDIR relative to the directory of the program
 * that starts them (configure computes it for sbx-monitor's sbindir and
 * for sbxctl's bindir), so a build tree and any moved installation work
 * with no absolute path compiled in.
 *
 * role_spawn is the monitor's way of starting a role (design.md §1) for
 * a program that needs one role on its own: sbxctl runs an offline gate
 * evaluation in the provider runner, the same program that applies the
 * same privilege file (seccomp allow-list, Landlock, empty root), never
 * the engine in its own unconfined process.  The role is opened by path
 * and executed by descriptor, with its channel on descriptor 3 and
 * nothing else of ours but its stderr; a root caller's role is started as
 * an unprivileged user, as the monitor's roles are (threat: a root CI
 * job evaluating hostile documents with every capability at hand).
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "role.h"
#include "rolespawn.h"

#define SPAWN_READY_MS	30000	/* the role's default role-timeout */

int
role_dir(const char *rel, char *buf, size_t len)
{
	char	 self[PATH_MAX], *slash;
	ssize_t	 n;

	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) == -1)
		return -1;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) == NULL) {
		errno = ENOENT;
		return -1;
	}
	*slash = '\0';
	if ((size_t)snprintf(buf, len, "%s/%s", self, rel) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int
spawn_err(char *err, size_t errlen, const char *what, int e)
{
	snprintf(err, errlen, "%s: %s", what, strerror(e));
	return -1;
}

/* The child: never returns. */
static __dead void
spawn_child(int exe, int chan, int errfd, const char *exename,
    const char *name, const struct passwd *pw)
{
	char	*argv[4], *envp[] = { NULL };
	int	 nullfd;

	setsid();
	if (pw != NULL && (setgroups(0, NULL) == -1 ||
	    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) == -1 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) == -1 ||
	    getuid() == 0 || geteuid() == 0)) {
		fprintf(stderr, "sbx: %s: cannot drop to uid %u\n", exename,
		    (unsigned)pw->pw_uid);
		_exit(127);
	}
	/* Out of the way of descriptors 0 to 3, which are about to change. */
	if ((exe = fcntl(exe, F_DUPFD_CLOEXEC, 64)) == -1 ||
	    (errfd != -1 && (errfd = fcntl(errfd, F_DUPFD_CLOEXEC, 64)) == -1))
		_exit(127);
	if (chan == ROLE_FD) {
		if (fcntl(chan, F_SETFD, 0) == -1)
			_exit(127);
	} else if (dup2(chan, ROLE_FD) == -1)
		_exit(127);
	if ((nullfd = open("/dev/null", O_RDWR)) == -1)
		_exit(127);
	dup2(nullfd, STDIN_FILENO);
	dup2(nullfd, STDOUT_FILENO);
	if (errfd != -1)
		dup2(errfd, STDERR_FILENO);
	/* Nothing else of the caller's reaches the role. */
	if (syscall(SYS_close_range, ROLE_FD + 1, exe - 1, 0) == -1 ||
	    syscall(SYS_close_range, exe + 1, ~0U, 0) == -1)
		_exit(127);
	argv[0] = (char *)exename;
	argv[1] = "-P";
	argv[2] = (char *)name;
	argv[3] = NULL;
	syscall(SYS_execveat, exe, "", argv, envp, AT_EMPTY_PATH);
	fprintf(stderr, "sbx: exec %s: %s\n", exename, strerror(errno));
	_exit(127);
}

int
role_spawn(const char *dir, const char *exe, const char *name,
    const char *as, int errfd, struct role_spawned *rs, char *err,
    size_t errlen)
{
	struct passwd		*pw = NULL, pwc;
	struct role_ready	 rr;
	struct imsg		 imsg;
	struct pollfd		 pfd;
	char			 path[PATH_MAX];
	int			 sp[2], fd, n, e;

	memset(rs, 0, sizeof(*rs));
	rs->pid = -1;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, exe) >=
	    sizeof(path)) {
		snprintf(err, errlen, "%s/%s: path too long", dir, exe);
		return -1;
	}
	if (getuid() == 0 || geteuid() == 0) {
		if ((pw = getpwnam(as)) == NULL || pw->pw_uid == 0) {
			snprintf(err, errlen, "user %s: not found (or root): "
			    "a role never runs as root", as);
			return -1;
		}
		pwc = *pw;
		pw = &pwc;
	}
	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1)
		return spawn_err(err, errlen, path, errno);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1) {
		e = errno;
		close(fd);
		return spawn_err(err, errlen, "socketpair", e);
	}
	switch (rs->pid = fork()) {
	case -1:
		e = errno;
		close(fd);
		close(sp[0]);
		close(sp[1]);
		return spawn_err(err, errlen, "fork", e);
	case 0:
		close(sp[0]);
		spawn_child(fd, sp[1], errfd, exe, name, pw);
	default:
		break;
	}
	close(fd);
	close(sp[1]);
	if (imsgbuf_init(&rs->ibuf, sp[0]) == -1)
		fatal("imsgbuf_init");
	imsgbuf_allow_fdpass(&rs->ibuf);
	/* READY comes once the privilege file is in force, or the role
	 * died trying (its stderr, ours, said why). */
	pfd.fd = sp[0];
	pfd.events = POLLIN;
	for (;;) {
		if ((n = imsg_get(&rs->ibuf, &imsg)) == -1)
			goto broken;
		if (n == 1)
			break;
		if ((n = poll(&pfd, 1, SPAWN_READY_MS)) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "%s: no READY within %d ms", exe,
			    SPAWN_READY_MS);
			goto fail;
		}
		if ((n = imsgbuf_read(&rs->ibuf)) == -1)
			goto broken;
		if (n == 0) {
			snprintf(err, errlen, "%s ended before it was ready "
			    "(exit status %d)", exe, role_reap(rs));
			return -1;
		}
	}
	if (imsg_get_type(&imsg) != IMSG_ROLE_READY ||
	    imsg_get_data(&imsg, &rr, sizeof(rr)) == -1 ||
	    rr.version != ROLE_PROTOCOL_VERSION ||
	    rr.pid != (uint32_t)rs->pid) {
		imsg_free(&imsg);
		snprintf(err, errlen, "%s: unexpected first message", exe);
		goto fail;
	}
	imsg_free(&imsg);
	rs->uid = rr.uid;
	return 0;
 broken:
	snprintf(err, errlen, "%s: channel: %s", exe, strerror(errno));
 fail:
	kill(rs->pid, SIGKILL);
	role_reap(rs);
	return -1;
}

int
role_reap(struct role_spawned *rs)
{
	int	 status = 0;

	if (rs->ibuf.fd != -1) {
		close(rs->ibuf.fd);
		imsgbuf_clear(&rs->ibuf);
		rs->ibuf.fd = -1;
	}
	if (rs->pid > 0) {
		while (waitpid(rs->pid, &status, 0) == -1 && errno == EINTR)
			;
		rs->pid = -1;
	}
	return status;
}
