/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * cgroups.c: a cgroup subtree for the launcher, laid out before the roles
 * start (design.md §1, Limits).  Memory and pids caps then hold for the whole
 * sandbox -- every process in it together -- instead of per process as
 * RLIMIT_AS and RLIMIT_NPROC do.  The launcher makes one cgroup per
 * sandbox in it (launcher/cgroup.c).
 *
 * cgroup v2, first choice.  The base is the cgroup-root of sbx.conf, or
 * else this process's own cgroup (/proc/self/cgroup) when it is delegated
 * to the service: the root of the hierarchy for a monitor started as
 * root, a cgroup owned by the user for one started as a user (systemd
 * Delegate=yes in a user unit), or one that systemd marked delegated
 * (the trusted.delegate or user.delegate attribute, Delegate=yes).  The
 * base must offer the memory and pids controllers.  Under it:
 *
 *	BASE/sbx.<uid>			the service user's (chowned, as the
 *					kernel's delegation rules say)
 *	BASE/sbx.<uid>/supervisor	the monitor and its roles
 *	BASE/sbx.<uid>/sbx.PID.N	one per sandbox (the launcher)
 *
 * The monitor moves itself into the leaf "supervisor" because a cgroup
 * that hands controllers to its children may hold no process itself (the
 * "no internal processes" rule), and because the kernel lets the
 * launcher move a sandbox's pid 1 only within a subtree whose common
 * cgroup.procs the launcher may write -- sbx.<uid>, the service user's.
 *
 * cgroup v1, where the host has no usable v2 (these machines): started as
 * root, the service user gets /sys/fs/cgroup/memory/sbx.<uid> and
 * /sys/fs/cgroup/pids/sbx.<uid>.  The directories stay when the service
 * stops (removing them needs root again) and are reused by the next
 * start.  Otherwise the caps are rlimits; `sbxctl status` and every exit
 * report say which mechanism is in force.
 */
#include <sys/types.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/xattr.h>

#include <linux/magic.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "cgv2.h"
#include "spec.h"
#include "monitor.h"

#define CG_ROOT		"/sys/fs/cgroup"

static const char *const want[] = { "memory", "pids" };
static const char	*mechanism = "rlimit";
static int		 favor_mnt = -1;	/* cgroup-favordynmods */

const char *
cgroups_mechanism(void)
{
	return mechanism;
}

/* 1: the favordynmods hierarchy is held (cgroup-favordynmods yes). */
int
cgroups_favordynmods(void)
{
	return favor_mnt != -1;
}

/*
 * cgroup-favordynmods (cgroup v1).  Moving a process into a cgroup, as
 * the launcher does with each sandbox's pid 1, takes the kernel's global
 * threadgroup rwsem for writing, and that waits for an RCU grace period
 * (7 to 15 ms on these machines) unless a cgroup hierarchy mounted with
 * favordynmods (Linux 6.0) keeps the rwsem in its slow-reader mode.  It
 * is a hierarchy of our own with no controller, made with the new mount
 * API and never attached anywhere, so no mount table shows it; this
 * descriptor holds it for the service's life.  Host-wide, hence the
 * operator's choice: every migration is fast, every fork and exit a
 * little slower.  Asked for and impossible ends the start.
 */
/*
 * One try at the hierarchy: its context, created, or -1 with errno and
 * the kernel's reason in log.
 */
static int
favor_try(char *log, size_t len)
{
	ssize_t	 n;
	int	 fs, e;

	log[0] = '\0';
	if ((fs = fsopen("cgroup", FSOPEN_CLOEXEC)) == -1)
		fatal("cgroup-favordynmods: fsopen cgroup");
	if (fsconfig(fs, FSCONFIG_SET_FLAG, "none", NULL, 0) == -1 ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "name", "sbx.favordynmods",
	    0) == -1 ||
	    fsconfig(fs, FSCONFIG_SET_FLAG, "favordynmods", NULL, 0) == -1 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == -1) {
		e = errno;
		/* The kernel's reason, as it logged it on the context. */
		if ((n = read(fs, log, len - 1)) <= 0)
			n = 0;
		log[n] = '\0';
		log[strcspn(log, "\n")] = '\0';
		close(fs);
		errno = e;
		return -1;
	}
	return fs;
}

static void
favor_dynmods(void)
{
	/* 10 ms apart, 2 s in all: a previous monitor's hierarchy dies
	 * within a few grace periods. */
	const struct timespec	 nap = { 0, 10 * 1000 * 1000 };
	char			 log[256];
	int			 fs, i;

	/*
	 * EBUSY: a hierarchy of that name is still dying -- the previous
	 * monitor's, just stopped, on a restart.  The kernel would wait
	 * and restart the call, but a restarted FSCONFIG_CMD_CREATE finds
	 * its context spent and fails with EBUSY (every other immediate
	 * restart failed so); a new context is the retry that works.
	 */
	for (i = 0; (fs = favor_try(log, sizeof(log))) == -1 &&
	    errno == EBUSY && i < 200; i++)
		(void)nanosleep(&nap, NULL);
	if (fs == -1)
		fatalx("cgroup-favordynmods: a cgroup v1 hierarchy with "
		    "favordynmods (Linux 6.0 or later): %s%s%s",
		    strerror(errno), *log ? ": " : "", log);
	if ((favor_mnt = fsmount(fs, FSMOUNT_CLOEXEC, 0)) == -1)
		fatal("cgroup-favordynmods: fsmount");
	close(fs);
	log_info("cgroups: favordynmods held (cgroup-favordynmods): moving "
	    "a sandbox into its cgroups waits for no RCU grace period");
}

static int
is_v1(const char *path, const char *probe)
{
	struct statfs	 sfs;
	char		 p[128];

	if (statfs(path, &sfs) == -1 || sfs.f_type != CGROUP_SUPER_MAGIC)
		return 0;
	if (probe == NULL)
		return 1;
	snprintf(p, sizeof(p), "%s/%s", path, probe);
	return access(p, F_OK) == 0;
}

static int
make_dir(const char *ctl, uid_t uid, gid_t gid)
{
	char	 path[128];

	snprintf(path, sizeof(path), "%s/%s/sbx.%u", CG_ROOT, ctl,
	    (unsigned)uid);
	if (mkdir(path, 0755) == -1 && errno != EEXIST) {
		log_warn("cgroup %s", path);
		return -1;
	}
	if (chown(path, uid, gid) == -1 || chmod(path, 0755) == -1) {
		log_warn("cgroup %s: chown to uid %u", path, (unsigned)uid);
		return -1;
	}
	return 0;
}

/*
 * cpu for dfd's children where the kernel offers it, for the profiles'
 * "cpus" (cpu.max); without it only those are refused (the launcher says
 * why), so its absence is no error.  Not in the unit tests' fake tree,
 * whose writes replace a file's contents.
 */
static void
enable_cpu(int dfd, int flags)
{
	static const char *const cpu[] = { "cpu" };

	if (flags & CGV2_FAKE)
		return;
	if (cgv2_missing(dfd, "cgroup.subtree_control", cpu, 1, NULL, 0) != 0 &&
	    cgv2_write(dfd, "cgroup.subtree_control", "+cpu", flags) == -1)
		log_info("cgroup: cpu controller not enabled (%s): profiles "
		    "with cpus are refused", sbx_errname(errno));
}

/* Enable memory and pids for dfd's children, unless they are. */
static int
enable(int dfd, const char *path, int flags, char *err, size_t errlen)
{
	enable_cpu(dfd, flags);
	if (cgv2_missing(dfd, "cgroup.subtree_control", want, nitems(want),
	    NULL, 0) == 0)
		return 0;
	if (cgv2_write(dfd, "cgroup.subtree_control", "+memory +pids",
	    flags) == 0)
		return 0;
	snprintf(err, errlen, "cgroup %s: cannot enable memory and pids in "
	    "its cgroup.subtree_control: %s%s", path, sbx_errname(errno),
	    errno == EBUSY ? " (processes other than sbx-monitor live in it; "
	    "a delegated cgroup must hold only the service)" : "");
	return -1;
}

/*
 * Lay out BASE/sbx.<uid>/supervisor, move this process into the leaf and
 * give sbx.<uid> to uid.  flags: CGV2_FAKE for a plain directory tree in
 * the unit tests (no file system check; writes create their files).  On
 * an error after the move, this process goes back to base, so that the
 * launcher it starts does not find a half-made subtree.
 */
int
cgroups_v2_setup(const char *base, uid_t uid, gid_t gid, int flags,
    char *err, size_t errlen)
{
	static const char *const files[] = { "cgroup.procs",
	    "cgroup.subtree_control", "cgroup.threads" };
	char	 name[32], missing[128], pid[32], path[PATH_MAX];
	size_t	 i;
	int	 bfd, sfd = -1, lfd = -1, moved = 0, r;

	if ((bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cgroup %s: %s", base,
		    sbx_errname(errno));
		return -1;
	}
	if (!cgv2_is_cgroup2(bfd, flags)) {
		snprintf(err, errlen, "cgroup %s: not a cgroup v2 directory",
		    base);
		goto fail;
	}
	if ((r = cgv2_missing(bfd, "cgroup.controllers", want, nitems(want),
	    missing, sizeof(missing))) != 0) {
		snprintf(err, errlen, "cgroup %s: %s%s", base, r == -1 ? "" :
		    "controllers not available (cgroup.controllers lacks): ",
		    missing);
		goto fail;
	}
	snprintf(name, sizeof(name), "sbx.%u", (unsigned)uid);
	snprintf(path, sizeof(path), "%s/%s", base, name);
	if ((mkdirat(bfd, name, 0755) == -1 && errno != EEXIST) ||
	    (sfd = openat(bfd, name, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cgroup %s: %s", path,
		    sbx_errname(errno));
		goto fail;
	}
	if ((mkdirat(sfd, CGV2_LEAF, 0755) == -1 && errno != EEXIST) ||
	    (lfd = openat(sfd, CGV2_LEAF, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cgroup %s/%s: %s", path, CGV2_LEAF,
		    sbx_errname(errno));
		goto fail;
	}
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if (cgv2_write(lfd, "cgroup.procs", pid, flags) == -1) {
		snprintf(err, errlen, "cgroup %s/%s: move sbx-monitor (pid %s) "
		    "in: %s", path, CGV2_LEAF, pid, sbx_errname(errno));
		goto fail;
	}
	moved = 1;
	/* The base first: its children get the controllers only then. */
	if (enable(bfd, base, flags, err, errlen) == -1 ||
	    enable(sfd, path, flags, err, errlen) == -1)
		goto fail;
	/* Delegation: the directory and these files, nothing else. */
	if (geteuid() == 0 && uid != 0) {
		if (fchown(sfd, uid, gid) == -1) {
			snprintf(err, errlen, "cgroup %s: chown to uid %u: %s",
			    path, (unsigned)uid, sbx_errname(errno));
			goto fail;
		}
		for (i = 0; i < nitems(files); i++)
			if (fchownat(sfd, files[i], uid, gid, 0) == -1 &&
			    errno != ENOENT) {
				snprintf(err, errlen, "cgroup %s/%s: chown to "
				    "uid %u: %s", path, files[i],
				    (unsigned)uid, sbx_errname(errno));
				goto fail;
			}
	}
	close(lfd);
	close(sfd);
	close(bfd);
	return 0;
 fail:
	if (moved)
		(void)cgv2_write(bfd, "cgroup.procs", pid, flags);
	if (lfd != -1)
		close(lfd);
	/* Best effort: what this start made goes (a cgroup with anything
	 * in it refuses, and stays). */
	if (sfd != -1) {
		(void)cgv2_rmdir(sfd, CGV2_LEAF, flags);
		close(sfd);
		(void)cgv2_rmdir(bfd, name, flags);
	}
	close(bfd);
	return -1;
}

/*
 * The base cgroup v2 found for this process, when it is delegated (see
 * the top of the file); 0 with its path, 1 when there is none.
 */
int
cgroups_v2_discover(const char *mountinfo, const char *cgfile, char *base,
    size_t len)
{
	struct stat	 st;
	char		 mnt[PATH_MAX], self[PATH_MAX], x[8];
	ssize_t		 n;

	if (cgv2_mountpoint(mountinfo, mnt, sizeof(mnt)) != 0 ||
	    cgv2_self(cgfile, self, sizeof(self)) != 0)
		return 1;
	if ((size_t)snprintf(base, len, "%s%s", mnt, strcmp(self, "/") == 0 ?
	    "" : self) >= len)
		return 1;
	if (strcmp(self, "/") == 0)
		return geteuid() == 0 ? 0 : 1;
	if (geteuid() != 0 && stat(base, &st) == 0 && st.st_uid == geteuid())
		return 0;
	if ((n = getxattr(base, geteuid() == 0 ? "trusted.delegate" :
	    "user.delegate", x, sizeof(x))) == 1 && x[0] == '1')
		return 0;
	return 1;
}

/*
 * Before the roles start (they inherit this process's cgroup), as root
 * before the switch to uid or as the user itself.  A configured
 * cgroup-root that cannot be used ends the service (the operator asked
 * for it); a discovered one that cannot is logged, and v1 or rlimits
 * follow.
 */
static void
prepare(const char *root, uid_t uid, gid_t gid)
{
	char	 base[PATH_MAX], err[512];

	if (root != NULL) {
		if (cgroups_v2_setup(root, uid, gid, 0, err,
		    sizeof(err)) == -1)
			fatalx("cgroup-root: %s", err);
		mechanism = "cgroup v2";
		log_info("cgroups: v2, %s/sbx.%u for the launcher", root,
		    (unsigned)uid);
		return;
	}
	if (cgroups_v2_discover("/proc/self/mountinfo", "/proc/self/cgroup",
	    base, sizeof(base)) == 0) {
		if (cgroups_v2_setup(base, uid, gid, 0, err,
		    sizeof(err)) == 0) {
			mechanism = "cgroup v2";
			log_info("cgroups: v2, %s/sbx.%u for the launcher",
			    base, (unsigned)uid);
			return;
		}
		log_info("cgroup v2 not used: %s", err);
	}
	if (geteuid() != 0)
		return;
	if (!is_v1(CG_ROOT "/memory", "memory.limit_in_bytes") ||
	    !is_v1(CG_ROOT "/pids", NULL)) {
		log_info("no cgroup v1 memory and pids hierarchies: memory "
		    "and pids caps are rlimits");
		return;
	}
	/* The host allows cgroups but not these: the last resort, said. */
	if (make_dir("memory", uid, gid) == -1 ||
	    make_dir("pids", uid, gid) == -1) {
		log_warnx("memory and pids caps are rlimits (see above)");
		return;
	}
	mechanism = "cgroup v1";
	log_info("cgroups: v1, %s/{memory,pids}/sbx.%u for the launcher",
	    CG_ROOT, (unsigned)uid);
	/* cpus: optional; without it only profiles with cpus are refused. */
	if (is_v1(CG_ROOT "/cpu", "cpu.cfs_quota_us") &&
	    make_dir("cpu", uid, gid) == 0)
		log_info("cgroups: v1, %s/cpu/sbx.%u for cpus", CG_ROOT,
		    (unsigned)uid);
	else
		log_info("cgroups: no v1 cpu hierarchy: profiles with cpus "
		    "are refused");
}

void
cgroups_prepare(const char *root, int favordynmods, uid_t uid, gid_t gid)
{
	prepare(root, uid, gid);
	if (!favordynmods)
		return;
	if (strcmp(mechanism, "cgroup v1") == 0)
		favor_dynmods();
	else if (strcmp(mechanism, "cgroup v2") == 0)
		/* A cgroup2 mount of our own would reapply its options to
		 * the host's one hierarchy (nsdelegate among them). */
		log_warnx("cgroup-favordynmods: not done on cgroup v2; the "
		    "host's cgroup2 mount takes it (mount -o "
		    "remount,favordynmods /sys/fs/cgroup)");
	else
		log_info("cgroup-favordynmods: nothing to do: the caps are "
		    "rlimits, nothing moves between cgroups");
}
