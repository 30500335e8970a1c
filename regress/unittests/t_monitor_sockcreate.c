/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_monitor_sockcreate: control_open() makes the control socket without ever
 * changing a file by a path another user could redirect (issue 20).
 *
 * The race is played deterministically: this program defines chown,
 * lchown, chmod, fchownat and fchmodat itself, so the monitor's calls
 * from the archive linked in come here first.  Each swaps the socket's
 * name for a symlink to a victim file, as a user owning the socket's
 * directory could between bind(2) and the call, and only then does what
 * was asked.  A path-based chown or chmod then lands on the victim.
 */
#include <sys/types.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <atf-c.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "monitor/monitor.h"

/* What sbx-monitor's main.c defines, for the archive's control.o. */
struct sbx_conf	*monitor_conf;
time_t		 monitor_started;
char		 monitor_user[64];

__dead void
monitor_shutdown(int code)
{
	exit(code);
}

#define SVC_UID		65534	/* the service's user, as root */
#define SOCK_GID	4242	/* socket-group */
#define USER_GID	4243	/* the service user's group */

static char	 sockname[PATH_MAX];	/* the socket's path */
static char	 victim[PATH_MAX];	/* what a swapped symlink names */
static int	 swaps;

/* The tenant's move: the socket's name now names the victim. */
static void
swap(const char *path)
{
	char	 moved[PATH_MAX + 8];

	if (sockname[0] == '\0' || strcmp(path, sockname) != 0)
		return;
	snprintf(moved, sizeof(moved), "%s.moved", sockname);
	if (rename(sockname, moved) == -1 || symlink(victim, sockname) == -1)
		return;
	swaps++;
}

int
chown(const char *path, uid_t u, gid_t g)
{
	swap(path);
	return syscall(SYS_fchownat, AT_FDCWD, path, u, g, 0);
}

int
lchown(const char *path, uid_t u, gid_t g)
{
	swap(path);
	return syscall(SYS_fchownat, AT_FDCWD, path, u, g,
	    AT_SYMLINK_NOFOLLOW);
}

int
chmod(const char *path, mode_t m)
{
	swap(path);
	return syscall(SYS_fchmodat, AT_FDCWD, path, m);
}

int
fchownat(int dfd, const char *path, uid_t u, gid_t g, int flags)
{
	char	 full[PATH_MAX * 2];

	/* Relative to the socket's directory: its name swapped too. */
	if (dfd != AT_FDCWD && strchr(path, '/') == NULL &&
	    strrchr(sockname, '/') != NULL &&
	    strcmp(strrchr(sockname, '/') + 1, path) == 0) {
		snprintf(full, sizeof(full), "%s", sockname);
		swap(full);
	} else if (dfd == AT_FDCWD)
		swap(path);
	return syscall(SYS_fchownat, dfd, path, u, g, flags);
}

int
fchmodat(int dfd, const char *path, mode_t m, int flags)
{
	if (flags != 0) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (dfd == AT_FDCWD)
		swap(path);
	return syscall(SYS_fchmodat, dfd, path, m);
}

/* A private directory D for the socket and a victim file beside it. */
static struct sbx_conf *
setup(char *dir, size_t len, uid_t dirowner, mode_t dirmode)
{
	struct sbx_conf	*c;
	char		 run[PATH_MAX];
	int		 fd;

	snprintf(dir, len, "/tmp/t_monitor_sockcreate.XXXXXX");
	ATF_REQUIRE(mkdtemp(dir) != NULL);
	ATF_REQUIRE(chmod(dir, 0711) == 0);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	ATF_REQUIRE((fd = open(victim, O_WRONLY | O_CREAT | O_EXCL, 0600))
	    != -1);
	close(fd);
	ATF_REQUIRE(chmod(victim, 0600) == 0);
	sockname[0] = '\0';
	snprintf(run, sizeof(run), "%s/run", dir);
	ATF_REQUIRE(mkdir(run, 0700) == 0);
	if (dirowner != (uid_t)-1)
		ATF_REQUIRE(chown(run, dirowner, (gid_t)-1) == 0);
	ATF_REQUIRE(chmod(run, dirmode) == 0);
	strlcpy(sockname, run, sizeof(sockname));
	strlcat(sockname, "/sbx.sock", sizeof(sockname));

	c = conf_new();
	free(c->socket);
	c->socket = xstrdup(sockname);
	c->user_gid = USER_GID;
	monitor_conf = c;
	swaps = 0;
	return c;
}

static void
check_victim(uid_t uid, gid_t gid)
{
	struct stat	 st;

	ATF_REQUIRE(lstat(victim, &st) == 0);
	ATF_CHECK_MSG(st.st_uid == uid && st.st_gid == gid,
	    "the victim was chowned to %u:%u through the swapped name",
	    (unsigned)st.st_uid, (unsigned)st.st_gid);
	ATF_CHECK_MSG((st.st_mode & 07777) == 0600,
	    "the victim was chmodded to %04o through the swapped name",
	    (unsigned)(st.st_mode & 07777));
}

static void
check_socket(uid_t uid, gid_t gid, mode_t mode)
{
	struct stat	 st;

	ATF_REQUIRE_MSG(lstat(sockname, &st) == 0, "%s: %s", sockname,
	    strerror(errno));
	ATF_CHECK_MSG(S_ISSOCK(st.st_mode), "%s is not a socket", sockname);
	ATF_CHECK_EQ(st.st_uid, uid);
	ATF_CHECK_EQ(st.st_gid, gid);
	ATF_CHECK_EQ(st.st_mode & 07777, mode);
}

static void
cleanup_dir(const char *dir)
{
	char	 cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		warnx("%s failed", cmd);
}

ATF_TC_WITHOUT_HEAD(symlink_swapped_root);
ATF_TC_BODY(symlink_swapped_root, tc)
{
	struct sbx_conf	*c;
	char		 dir[PATH_MAX];

	if (geteuid() != 0)
		atf_tc_skip("needs root: the socket is handed to another "
		    "user only by root (symlink_swapped_user covers a user)");
	c = setup(dir, sizeof(dir), SVC_UID, 0755);
	c->socket_group.set = 1;
	c->socket_group.id = SOCK_GID;
	c->socket_mode = 0660;
	ATF_CHECK_EQ(control_open(c, SVC_UID), 0);
	check_victim(0, getegid());
	check_socket(SVC_UID, SOCK_GID, 0660);
	ATF_CHECK_EQ(swaps, 0);
	/* Root's own rights are back. */
	ATF_CHECK_EQ(setfsuid(-1), 0);
	control_close();
	cleanup_dir(dir);
}

ATF_TC_WITHOUT_HEAD(symlink_swapped_user);
ATF_TC_BODY(symlink_swapped_user, tc)
{
	struct sbx_conf	*c;
	char		 dir[PATH_MAX];

	if (geteuid() == 0)
		atf_tc_skip("as root symlink_swapped_root is the case");
	c = setup(dir, sizeof(dir), (uid_t)-1, 0755);
	c->socket_mode = 0640;
	ATF_CHECK_EQ(control_open(c, (uid_t)-1), 0);
	check_victim(geteuid(), getegid());
	check_socket(geteuid(), getegid(), 0640);
	control_close();
	cleanup_dir(dir);
}

/*
 * A socket directory root owns: refused for a service that runs as
 * another user after start (it could not remove the socket at exit),
 * nothing made; for a service that stays root, the socket is root's,
 * group and mode as configured.
 */
ATF_TC_WITHOUT_HEAD(root_directory);
ATF_TC_BODY(root_directory, tc)
{
	struct sbx_conf	*c;
	struct stat	 st;
	char		 dir[PATH_MAX];

	if (geteuid() != 0)
		atf_tc_skip("needs root: a directory of root's");
	c = setup(dir, sizeof(dir), 0, 0755);
	c->socket_mode = 0660;
	ATF_CHECK_EQ(control_open(c, SVC_UID), -1);
	ATF_CHECK_MSG(lstat(sockname, &st) == -1 && errno == ENOENT,
	    "a socket was made in root's directory for uid %u",
	    (unsigned)SVC_UID);
	ATF_CHECK_EQ(control_open(c, 0), 0);
	check_socket(0, USER_GID, 0660);
	check_victim(0, getegid());
	control_close();
	cleanup_dir(dir);
}

/* Directories another user can write are refused, nothing made. */
static void
refused(uid_t owner, mode_t mode)
{
	struct sbx_conf	*c;
	struct stat	 st;
	char		 dir[PATH_MAX];

	c = setup(dir, sizeof(dir), owner, mode);
	ATF_CHECK_EQ(control_open(c, SVC_UID), -1);
	ATF_CHECK_MSG(lstat(sockname, &st) == -1 && errno == ENOENT,
	    "a socket was made in a directory of uid %u mode %04o",
	    (unsigned)owner, (unsigned)mode);
	conf_free(c);
	cleanup_dir(dir);
}

ATF_TC_WITHOUT_HEAD(unsafe_directory);
ATF_TC_BODY(unsafe_directory, tc)
{
	if (geteuid() != 0)
		atf_tc_skip("needs root: directories of other users");
	refused(SVC_UID, 0777);		/* anyone can write */
	refused(SVC_UID, 01777);	/* /tmp: anyone can squat the name */
	refused(SVC_UID, 0775);		/* its group can */
	refused(0, 0770);
	refused(12345, 0755);		/* neither root's nor the service's */
}

ATF_TP_ADD_TCS(tp)
{
	/* Root hands the socket to another user; a user's monitor makes
	 * its own: each run lists the cases that are its own. */
	if (geteuid() == 0) {
		ATF_TP_ADD_TC(tp, symlink_swapped_root);
		ATF_TP_ADD_TC(tp, root_directory);
		ATF_TP_ADD_TC(tp, unsafe_directory);
	} else
		ATF_TP_ADD_TC(tp, symlink_swapped_user);
	return atf_no_error();
}
