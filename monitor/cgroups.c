/*
 * cgroups.c: a cgroup subtree for the launcher, made while the monitor is
 * still root (DESIGN 1, Limits).  Memory and pids caps then hold for the
 * whole sandbox -- every process in it together -- instead of per process
 * as RLIMIT_AS and RLIMIT_NPROC do.
 *
 * On a host with the cgroup v1 memory and pids hierarchies, the service
 * user gets /sys/fs/cgroup/memory/sbx.<uid> and /sys/fs/cgroup/pids/
 * sbx.<uid>; the launcher, running as that user, makes one cgroup per
 * sandbox in each (launcher/cgroup.c).  The directories stay when the
 * service stops (removing them needs root again) and are reused by the
 * next start.  Without those hierarchies, or started as a user, nothing
 * is made here and the caps are rlimits, which `sbxctl status` and every
 * exit report say.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <linux/magic.h>

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "common.h"
#include "monitor.h"

#define CG_ROOT		"/sys/fs/cgroup"

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

/* As root, before the switch to uid. */
void
cgroups_prepare(uid_t uid, gid_t gid)
{
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
	log_info("cgroups: %s/{memory,pids}/sbx.%u for the launcher", CG_ROOT,
	    (unsigned)uid);
}
