/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * overlay.c: the workdir of an overlay run (sbxctl run --overlay, issue
 * 23): an overlay whose lower layer is the caller's directory, never
 * written, and whose upper and work directories are on a tmpfs of the
 * spec's overlay_size, made here in the sandbox's own user namespace with
 * the new mount API.  Both layers end up attached beneath the overlay at
 * the workdir, where nothing reaches them: the payload sees only the
 * merged view, pid 1 and the writer keep the layers' descriptors.  A
 * kernel that cannot is a refusal naming what is missing, never a live
 * bind.
 */
#include <sys/types.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "changeset.h"
#include "clock.h"
#include "spec.h"
#include "shim.h"

static int	 upper_root = -1;	/* the tmpfs: "upper", "work" */
static int	 lower_keep = -1;	/* the lower layer, for the walk */
static pid_t	 writer = -1;		/* the changeset writer */
static int	 writer_go = -1;	/* its pipe: closed when it may walk */
static int	 writer_done = -1;	/* its pipe back: its result byte */
static int	 writer_forked;		/* 1: one task of the sandbox is it */
static int	 t0_probe = -1;		/* a file of the tmpfs: its ctime */

/* Why fsconfig failed, as the kernel logged it on the context, if it did. */
static const char *
fs_log(int fsfd, char *buf, size_t len)
{
	ssize_t	 n;
	int	 saved = errno;

	n = read(fsfd, buf, len - 1);
	errno = saved;
	if (n <= 0)
		return "";
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/*
 * lower: a detached clone of the workdir made in this mount namespace
 * (open_tree; one opened in the caller's namespace is refused: "failed
 * to clone lowerpath").  Returns the overlay's detached mount, attrs
 * (nosuid, nodev, noexec as the profile's workdir) applied.
 */
int
shim_overlay(int lower, const struct sbx_spec *sp, const struct stat *dir)
{
	char		 size[32], log[256];
	unsigned int	 attrs;
	int		 fs, tmp, upper, work, ovl, mnt;

	if ((fs = fsopen("tmpfs", FSOPEN_CLOEXEC)) == -1)
		shim_fail(errno, "overlay: fsopen tmpfs (the upper layer)");
	snprintf(size, sizeof(size), "%llu",
	    (unsigned long long)sp->overlay_size);
	if (fsconfig(fs, FSCONFIG_SET_STRING, "size", size, 0) == -1 ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0700", 0) == -1 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == -1)
		shim_fail(errno, "overlay: the upper layer's tmpfs%s%s",
		    *fs_log(fs, log, sizeof(log)) ? ": " : "", log);
	if ((tmp = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV)) == -1)
		shim_fail(errno, "overlay: fsmount tmpfs");
	close(fs);
	/* The merged root shows the upper root's owner and mode: the
	 * directory's own (its owner is this sandbox's user). */
	if (mkdirat(tmp, "upper", dir->st_mode & 07777) == -1 ||
	    mkdirat(tmp, "work", 0700) == -1)
		shim_fail(errno, "overlay: upper and work directories");
	if ((upper = openat(tmp, "upper", O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) == -1 ||
	    (work = openat(tmp, "work", O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		shim_fail(errno, "overlay: open upper and work");
	if (fchmodat(tmp, "upper", dir->st_mode & 07777, 0) == -1)
		shim_fail(errno, "overlay: mode of the upper root");
	/* --overlay-into: the stored changeset's upper layer first. */
	if (sp->overlay_into) {
		char	 why[256];
		int	 ud;

		if ((ud = openat(tmp, "upper", O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) == -1)
			shim_fail(errno, "overlay: open upper");
		if (shim_cs_rebuild(ud, lower, SBX_SHIM_FD_CSBASE, why,
		    sizeof(why)) == -1)
			shim_fail(EINVAL, "overlay into: %s", why);
		close(ud);
		close(SBX_SHIM_FD_CSBASE);
	}

	/* Layers by descriptor (Linux 6.13: FSCONFIG_SET_FD for overlay),
	 * user.* xattrs for whiteouts and opaque directories (userxattr:
	 * an unprivileged user namespace may not set trusted.*). */
	if ((fs = fsopen("overlay", FSOPEN_CLOEXEC)) == -1)
		shim_fail(errno, "overlay: this kernel cannot make an overlay "
		    "in the sandbox's user namespace (fsopen overlay: "
		    "overlayfs missing or not allowed); --overlay is "
		    "refused, never a live bind");
	if (fsconfig(fs, FSCONFIG_SET_FD, "lowerdir+", NULL, lower) == -1 ||
	    fsconfig(fs, FSCONFIG_SET_FD, "upperdir", NULL, upper) == -1 ||
	    fsconfig(fs, FSCONFIG_SET_FD, "workdir", NULL, work) == -1 ||
	    fsconfig(fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0) == -1)
		shim_fail(errno, "overlay: this kernel cannot take layers "
		    "by descriptor with userxattr (Linux 6.13 and later "
		    "can)%s%s", *fs_log(fs, log, sizeof(log)) ? ": " : "",
		    log);
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == -1)
		shim_fail(errno, "overlay: the kernel refused the overlay "
		    "in the sandbox's user namespace%s%s",
		    *fs_log(fs, log, sizeof(log)) ? ": " : "", log);
	attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
	    (sp->workdir_noexec ? MOUNT_ATTR_NOEXEC : 0);
	if ((mnt = fsmount(fs, FSMOUNT_CLOEXEC, attrs)) == -1)
		shim_fail(errno, "overlay: fsmount overlay");
	ovl = fs;
	close(ovl);
	close(upper);
	close(work);
	upper_root = tmp;
	if ((lower_keep = fcntl(lower, F_DUPFD_CLOEXEC, 0)) == -1)
		shim_fail(errno, "overlay: keep the lower layer");
	/* A changeset's first run: a file beside the layers, for the
	 * wait on T0 (shim_cs_t0_wait); made now, before Landlock. */
	if (sp->overlay_t0 != 0 && (t0_probe = openat(tmp, "t0",
	    O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600)) == -1)
		shim_fail(errno, "overlay: the T0 probe");
	return mnt;
}

/*
 * Attach both layers at the workdir's mount point, under where the
 * overlay goes next, so that they end with the sandbox's mount namespace.
 * Left detached, they would be dissolved when the last descriptor of each
 * closed -- the writer's, at its exit -- and each dissolve waits for an
 * RCU grace period (namespace_unlock): 0.36 ms of every overlay run's
 * end, measured with sched tracepoints, against one wait for the whole
 * namespace at pid 1's exit.  Covered by the overlay, they are out of
 * the payload's reach: a path resolves to the top of the stack, and
 * uncovering one takes CAP_SYS_ADMIN, which nothing in the sandbox keeps.
 */
void
shim_overlay_bury(const char *path)
{
	if (upper_root == -1 || lower_keep == -1)
		shim_fail(EBADF, "overlay: no layers to attach at %s", path);
	if (move_mount(upper_root, "", AT_FDCWD, path,
	    MOVE_MOUNT_F_EMPTY_PATH) == -1)
		shim_fail(errno, "overlay: attach the upper layer's tmpfs");
	if (move_mount(lower_keep, "", AT_FDCWD, path,
	    MOVE_MOUNT_F_EMPTY_PATH) == -1)
		shim_fail(errno, "overlay: attach the lower layer");
}

/* The upper layer's tmpfs (its "upper" directory is the changes), or -1. */
int
shim_overlay_upper(void)
{
	return upper_root;
}

/*
 * The changeset writer: forked at the end of set-up, before the payload
 * and before pid 1 drops its capabilities, so that it is not bound by
 * the reaper's table (which opens nothing).  It drops every capability
 * itself, takes the payload's own filter (command.priv) and stdio of
 * /dev/null, and waits; once the payload has exited, pid 1 closes the
 * pipe and it writes the upper layer's changes to the store's file
 * (SBX_SHIM_FD_CHANGES), which only it holds.  Result 0 written, 2 nothing
 * changed, 1 failed (its reason on the status pipe is pid 1's to give),
 * with 8 added when the upper layer is full: one byte on the done pipe,
 * then its exit.  pid 1 goes on at the byte: the writer's exit (its copy
 * of pid 1's address space torn down) overlaps pid 1's report instead of
 * preceding it.
 */
/*
 * In the writer: what it wrote so far is replaced by the failure mark
 * and its reason, so the monitor says why the run's changes are lost
 * instead of taking an empty file for "nothing changed"
 * (sbx_cs_failure, common/changeset.h).
 */
static __dead void
writer_failed(const char *what, const char *why)
{
	char	 buf[SBX_CS_FAIL_MAX];
	int	 n;

	n = snprintf(buf, sizeof(buf), "%s%s%s%s", SBX_CS_FAIL_MARK, what,
	    why != NULL ? ": " : "", why != NULL ? why : "");
	if (n < 0 || (size_t)n >= sizeof(buf))
		n = (int)sizeof(buf) - 1;
	/* 3: not even the mark; the stream as it stands is then refused
	 * by the monitor, which still says the changes are lost. */
	_exit(ftruncate(SBX_SHIM_FD_CHANGES, 0) == 0 &&
	    pwrite(SBX_SHIM_FD_CHANGES, buf, (size_t)n, 0) == n ? 1 : 3);
}

void
shim_cs_writer_start(const struct sbx_spec *sp)
{
	struct statvfs	 vfs;
	char		 err[256];
	long long	 n;
	ssize_t		 r;
	int		 go[2], done[2], up, fd, full;
	char		 c;

	if (!sp->overlay)
		return;
	if (pipe2(go, O_CLOEXEC) == -1 || pipe2(done, O_CLOEXEC) == -1)
		shim_fail(errno, "changeset writer: pipe2");
	if ((writer = fork()) == -1)
		shim_fail(errno, "changeset writer: fork");
	writer_forked = writer != 0;
	if (writer == 0) {
		close(go[1]);
		close(done[0]);
		if (t0_probe != -1)
			close(t0_probe);
		close(SBX_SHIM_FD_STATUS);
		close(SBX_SHIM_FD_LIFELINE);
		if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1 ||
		    dup2(fd, 0) == -1 || dup2(fd, 1) == -1 ||
		    dup2(fd, 2) == -1)
			_exit(1);
		shim_drop_caps();
		if (prctl(PR_SET_NO_NEW_PRIVS, 1UL, 0UL, 0UL, 0UL) == -1 ||
		    shim_payload_filter(SBX_CLASS_COMMAND, 0) == -1)
			_exit(1);
		do {
			r = read(go[0], &c, 1);
		} while (r == -1 && errno == EINTR);
		if ((up = openat(upper_root, "upper", O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
			writer_failed("the upper layer", strerror(errno));
		n = shim_cs_walk(up, lower_keep, SBX_SHIM_FD_CHANGES, err,
		    sizeof(err));
		if (n < 0)
			writer_failed(err, NULL);
		/* 8: the upper layer is full (changeset-max-size). */
		full = fstatvfs(up, &vfs) == 0 && (vfs.f_bavail == 0 ||
		    vfs.f_favail == 0) ? 8 : 0;
		c = (char)(full | (n == 0 ? 2 : 0));
		/* No byte: pid 1 takes it as a failure, which the stream
		 * itself will show. */
		_exit(write(done[1], &c, 1) == 1 ? c : 1);
	}
	close(go[0]);
	close(done[1]);
	writer_go = go[1];
	writer_done = done[0];
	close(SBX_SHIM_FD_CHANGES);
	close(upper_root);
	close(lower_keep);
	upper_root = lower_keep = -1;
}

/* Tasks that are sbx's own, not the payload's: the writer, if any. */
int
shim_cs_writer_tasks(void)
{
	return writer_forked;
}

/* pid 1's reaper: 1 when p was the writer (its result came on its pipe),
 * else 0. */
int
shim_cs_writer_reaped(pid_t p)
{
	if (writer == -1 || p != writer)
		return 0;
	writer = -1;
	return 1;
}

/*
 * The payload has exited: let the writer walk, and wait until it has
 * written (its byte, or the end of its pipe when it ended without one).
 * SBX_LIMIT_CHANGES when the upper layer was full, else 0.
 */
uint32_t
shim_cs_writer_finish(void)
{
	ssize_t	 n;
	char	 c;

	if (writer_go == -1)
		return 0;
	/*
	 * What the payload left running in the background (a daemon, a
	 * build server) must not change the upper layer while the writer
	 * walks it: the writer refuses a file that changes under it, and
	 * the run's changes would be lost.  Every process of the namespace
	 * but pid 1 stops, the writer goes on; all die with pid 1.  (The
	 * writer changed its credentials, so neither signal reaches it
	 * today: kill(-1) skips it, the SIGCONT gets EPERM.  Both follow
	 * the same permission rule, so if one ever reaches it the other
	 * does too.)
	 */
	if (writer != -1) {
		(void)kill(-1, SIGSTOP);
		(void)kill(writer, SIGCONT);
	}
	close(writer_go);
	writer_go = -1;
	/* Only the writer holds the write end: EOF once it has ended. */
	do {
		n = read(writer_done, &c, 1);
	} while (n == -1 && errno == EINTR);
	close(writer_done);
	writer_done = -1;
	return n == 1 && (c & 8) ? SBX_LIMIT_CHANGES : 0;
}

/*
 * A changeset's first run: the payload starts only once every file time
 * the kernel stamps from now on is after the T0 the monitor chose (the
 * agent's start or the request's arrival, on the precise clock).  A
 * change the host makes while the payload runs then has a ctime after
 * T0, and apply calls it a conflict; one made before T0 -- an agent's
 * edit just before it asked for the run -- has one at or before it, and
 * is not.
 *
 * The probe, a file of the upper layer's tmpfs beside "upper" and
 * "work", makes that wait none on Linux 6.13 and later
 * (file_clock_pass, common/clock.c): without it, 24 of 40 back-to-back
 * runs waited, 1 ms on average.
 */
void
shim_cs_t0_wait(const struct sbx_spec *sp)
{
	if (sp->overlay_t0 == 0)
		return;
	if (file_clock_pass(t0_probe, sp->overlay_t0, NULL) == -1)
		shim_fail(errno, "waiting for the file clock to pass T0");
	if (t0_probe != -1)
		close(t0_probe);
	t0_probe = -1;
}
