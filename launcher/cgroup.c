/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * cgroup.c: memory and pids caps for the whole sandbox -- every process
 * in it together, where RLIMIT_AS and RLIMIT_NPROC cap each process
 * alone.  One sandbox is one cgroup:
 *
 *  - cgroup v2, when this launcher runs in the leaf "supervisor" of a
 *    subtree "sbx.<uid>" that sbx-monitor laid out in its delegated
 *    cgroup and gave to the service user (monitor/cgroups.c): the
 *    sandboxes' cgroups are siblings of that leaf, so the launcher may
 *    move pid 1 into one (the kernel wants write access to the common
 *    parent's cgroup.procs, which is the service user's);
 *  - otherwise cgroup v1, from this launcher's directories in the memory
 *    and pids hierarchies, /sys/fs/cgroup/{memory,pids}/sbx.<uid>, which
 *    sbx-monitor, still root, made and gave to the service user;
 *  - otherwise the shim applies rlimits and every report says so.
 *
 * A subtree that is there but cannot be used ends the launcher instead of
 * falling back to rlimits: the operator's service prepared cgroups, and
 * quietly capping per process would be less than it asked for.  In both
 * versions pid 1 is moved into its cgroup while it builds the sandbox
 * and before any payload exists (spawn.c); no clone3 is needed (the
 * launcher's filter answers it with ENOSYS, so CLONE_INTO_CGROUP is not
 * to be had).
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <linux/magic.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgv2.h"
#include "spec.h"
#include "launcher.h"

#define CGV1_ROOT	"/sys/fs/cgroup"

static const char *const cgv2_want[] = { "memory", "pids" };
#define CPU_PERIOD_US	100000	/* cpus: the quota's period, 100 ms */
static unsigned	 cgseq;		/* "sbx.PID.N": N, for both versions */

static int
cg_write(int dfd, const char *file, const char *val)
{
	return cgv2_write(dfd, file, val, 0);
}

/*
 * v2: is this launcher in ".../sbx.<uid>/supervisor", the leaf the
 * monitor made for itself and its roles?  0 with the parent's path in
 * dir, 1 when not (no cgroup2, another cgroup).  Both the leaf's and the
 * parent's names must match, so a launcher started some other way never
 * mistakes a stranger's cgroup for its subtree.
 */
int
cgroup_v2_find(const char *mountinfo, const char *cgfile, char *dir,
    size_t len)
{
	char	 mnt[PATH_MAX], self[PATH_MAX], want[32], *slash, *base;

	if (cgv2_mountpoint(mountinfo, mnt, sizeof(mnt)) != 0 ||
	    cgv2_self(cgfile, self, sizeof(self)) != 0)
		return 1;
	if ((slash = strrchr(self, '/')) == NULL || slash == self ||
	    strcmp(slash + 1, CGV2_LEAF) != 0)
		return 1;
	*slash = '\0';
	base = strrchr(self, '/') + 1;
	snprintf(want, sizeof(want), "sbx.%u", (unsigned)geteuid());
	if (strcmp(base, want) != 0)
		return 1;
	if ((size_t)snprintf(dir, len, "%s%s", strcmp(mnt, "/") == 0 ? "" :
	    mnt, self) >= len)
		return 1;
	return 0;
}

/*
 * v2: take the delegated directory dir.  It must be a cgroup2 directory
 * of this launcher's uid, with the memory and pids controllers enabled
 * for its children and its cgroup.procs writable; the error names what
 * is missing.
 */
int
cgroup_v2_open(struct launcher_conf *conf, const char *dir, int flags,
    char *err, size_t errlen)
{
	struct stat	 st;
	char		 missing[128];
	int		 dfd, r;

	conf->cgv2 = 0;
	conf->cgv2_dir = -1;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cgroup %s: %s", dir, sbx_errname(errno));
		return -1;
	}
	if (!cgv2_is_cgroup2(dfd, flags)) {
		snprintf(err, errlen, "cgroup %s: not a cgroup v2 directory",
		    dir);
		goto fail;
	}
	if (fstat(dfd, &st) == -1 || st.st_uid != geteuid() ||
	    faccessat(dfd, ".", W_OK, AT_EACCESS) == -1 ||
	    faccessat(dfd, "cgroup.procs", W_OK, AT_EACCESS) == -1) {
		snprintf(err, errlen, "cgroup %s: not delegated to this "
		    "launcher (uid %u): the directory and its cgroup.procs "
		    "must be its to write", dir, (unsigned)geteuid());
		goto fail;
	}
	if ((r = cgv2_missing(dfd, "cgroup.subtree_control", cgv2_want,
	    nitems(cgv2_want), missing, sizeof(missing))) != 0) {
		snprintf(err, errlen, "cgroup %s: %s%s", dir, r == -1 ? "" :
		    "controllers not enabled in cgroup.subtree_control: ",
		    missing);
		goto fail;
	}
	conf->cgv2 = 1;
	conf->cgv2_dir = dfd;
	conf->cgv2_flags = flags;
	strlcpy(conf->cgv2_path, dir, sizeof(conf->cgv2_path));
	return 0;
 fail:
	close(dfd);
	return -1;
}

void
cgroup_v2_close(struct launcher_conf *conf)
{
	if (conf->cgv2_dir != -1)
		close(conf->cgv2_dir);
	conf->cgv2_dir = -1;
	conf->cgv2 = 0;
}

/*
 * v2: one cgroup per sandbox, its caps written before any process is in
 * it.  memory.swap.max 0 counts swap against the cap: without it a
 * payload could page out and keep going past memory.max (the file is
 * absent without swap accounting, and then there is nothing to count).
 * No memory.oom.group: like v1, the kernel kills the largest process and
 * the report says the memory limit did it.
 */
int
cgroup_v2_create(struct sandbox *sb, const struct launcher_conf *conf,
    const struct sbx_spec *sp, char *err, size_t errlen)
{
	char	 val[32];
	int	 fl = conf->cgv2_flags;

	snprintf(sb->cgroup, sizeof(sb->cgroup), "sbx.%ld.%u",
	    (long)getpid(), cgseq++);
	if (mkdirat(conf->cgv2_dir, sb->cgroup, 0755) == -1) {
		snprintf(err, errlen, "cgroup %s/%s: mkdir: %s",
		    conf->cgv2_path, sb->cgroup, sbx_errname(errno));
		return -1;
	}
	sb->cgv2_dir = conf->cgv2_dir;
	sb->cgv2_flags = fl;
	if ((sb->cgroupfd = openat(conf->cgv2_dir, sb->cgroup, O_RDONLY |
	    O_DIRECTORY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cgroup %s/%s: %s", conf->cgv2_path,
		    sb->cgroup, sbx_errname(errno));
		cgroup_destroy(sb);
		return -1;
	}
	snprintf(val, sizeof(val), "%llu", (unsigned long long)sp->memory);
	if (cgv2_write(sb->cgroupfd, "memory.max", val, fl) == -1) {
		snprintf(err, errlen, "cgroup %s/%s/memory.max: %s",
		    conf->cgv2_path, sb->cgroup, sbx_errname(errno));
		cgroup_destroy(sb);
		return -1;
	}
	if (cgv2_write(sb->cgroupfd, "memory.swap.max", "0", fl) == -1 &&
	    errno != ENOENT) {
		snprintf(err, errlen, "cgroup %s/%s/memory.swap.max: %s",
		    conf->cgv2_path, sb->cgroup, sbx_errname(errno));
		cgroup_destroy(sb);
		return -1;
	}
	snprintf(val, sizeof(val), "%llu", (unsigned long long)sp->pids);
	if (cgv2_write(sb->cgroupfd, "pids.max", val, fl) == -1) {
		snprintf(err, errlen, "cgroup %s/%s/pids.max: %s",
		    conf->cgv2_path, sb->cgroup, sbx_errname(errno));
		cgroup_destroy(sb);
		return -1;
	}
	/* cpus: a quota of cpus_milli/1000 periods each period. */
	snprintf(val, sizeof(val), "%u %u", sp->cpus_milli * CPU_PERIOD_US /
	    1000, CPU_PERIOD_US);
	if (sp->cpus_milli != 0 &&
	    cgv2_write(sb->cgroupfd, "cpu.max", val, fl) == -1) {
		snprintf(err, errlen, "cpus: cgroup %s/%s/cpu.max: %s%s",
		    conf->cgv2_path, sb->cgroup, sbx_errname(errno),
		    errno == ENOENT ? " (the cpu controller is not enabled "
		    "in the delegated subtree)" : "");
		cgroup_destroy(sb);
		return -1;
	}
	return 0;
}

/*
 * v2: every process of the sandbox at once (cgroup.kill, Linux 5.14),
 * when it ends, times out or is killed.  SIGKILL to pid 1 ends its pid
 * namespace as well; this also catches a process that is in the cgroup
 * but was never in the namespace.  A kernel without the file has only
 * the pid 1 kill.
 */
void
cgroup_kill(struct sandbox *sb)
{
	if (sb->cgroupfd == -1)
		return;
	if (cgv2_write(sb->cgroupfd, "cgroup.kill", "1", sb->cgv2_flags) ==
	    -1 && errno != ENOENT)
		log_warn("cgroup %s: cgroup.kill", sb->cgroup);
}

/*
 * v1: this launcher's directories, when they exist.  0 and the two fds in
 * conf, 1 when there are none (rlimits then), -1 with err when they exist
 * but cannot be used: the operator's service prepared cgroups, and
 * quietly capping with rlimits instead would be less than it asked for.
 */
int
cgroup_v1_open(struct launcher_conf *conf, char *err, size_t errlen)
{
	static const char *const ctl[] = { "memory", "pids" };
	static const char *const probe[] = { "memory.limit_in_bytes",
	    "pids.max" };
	struct statfs	 sfs;
	struct stat	 st;
	char		 path[96];
	int		 fds[2] = { -1, -1 };
	size_t		 i;

	conf->cgv1 = 0;
	conf->cgv1_mem = conf->cgv1_pids = conf->cgv1_cpu = -1;
	for (i = 0; i < nitems(ctl); i++) {
		snprintf(path, sizeof(path), "%s/%s/sbx.%u", CGV1_ROOT, ctl[i],
		    (unsigned)geteuid());
		if ((fds[i] = open(path, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) == -1) {
			if (errno == ENOENT) {
				if (i == 1)
					close(fds[0]);
				return 1;
			}
			snprintf(err, errlen, "cgroup %s: %s", path,
			    sbx_errname(errno));
			goto fail;
		}
		if (fstatfs(fds[i], &sfs) == -1 ||
		    sfs.f_type != CGROUP_SUPER_MAGIC ||
		    faccessat(fds[i], probe[i], F_OK, 0) == -1) {
			snprintf(err, errlen, "cgroup %s: not a cgroup v1 %s "
			    "directory", path, ctl[i]);
			goto fail;
		}
		if (fstat(fds[i], &st) == -1 || st.st_uid != geteuid() ||
		    faccessat(fds[i], ".", W_OK, AT_EACCESS) == -1) {
			snprintf(err, errlen, "cgroup %s: not this launcher's "
			    "(uid %u) to create cgroups in", path,
			    (unsigned)geteuid());
			goto fail;
		}
	}
	conf->cgv1_mem = fds[0];
	conf->cgv1_pids = fds[1];
	conf->cgv1 = 1;
	/* The cpu hierarchy is optional: without it "cpus" is refused
	 * at the request (cgroup_v1_create), the rest works. */
	snprintf(path, sizeof(path), "%s/cpu/sbx.%u", CGV1_ROOT,
	    (unsigned)geteuid());
	conf->cgv1_cpu = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (conf->cgv1_cpu != -1 && (fstatfs(conf->cgv1_cpu, &sfs) == -1 ||
	    sfs.f_type != CGROUP_SUPER_MAGIC ||
	    faccessat(conf->cgv1_cpu, "cpu.cfs_quota_us", F_OK, 0) == -1 ||
	    faccessat(conf->cgv1_cpu, ".", W_OK, AT_EACCESS) == -1)) {
		close(conf->cgv1_cpu);
		conf->cgv1_cpu = -1;
	}
	return 0;
 fail:
	for (i = 0; i < nitems(fds); i++)
		if (fds[i] != -1)
			close(fds[i]);
	return -1;
}

static int
cg_write_at(int dfd, const char *name, const char *file, const char *val)
{
	char	 path[128];

	snprintf(path, sizeof(path), "%s/%s", name, file);
	return cg_write(dfd, path, val);
}

/*
 * A spare pair of empty cgroups, made while the launcher is idle: making
 * a memory cgroup is the dearest step of the ones a spawn needs (the
 * kernel allocates its accounting), so the next spawn takes a ready one
 * and only writes its limits.  At most one pair waits; a pair left by a
 * launcher that died is removed by the next one (cgroup_sweep).
 */
static char	 spare[64];
static int	 have_spare;

void
cgroup_v1_spare(const struct launcher_conf *conf)
{
	if (!conf->cgv1 || have_spare)
		return;
	snprintf(spare, sizeof(spare), "sbx.%ld.%u", (long)getpid(),
	    cgseq++);
	if (mkdirat(conf->cgv1_mem, spare, 0755) == -1)
		return;
	if (mkdirat(conf->cgv1_pids, spare, 0755) == -1) {
		(void)unlinkat(conf->cgv1_mem, spare, AT_REMOVEDIR);
		return;
	}
	have_spare = 1;
}

void
cgroup_v1_spare_drop(const struct launcher_conf *conf)
{
	if (!have_spare)
		return;
	(void)unlinkat(conf->cgv1_mem, spare, AT_REMOVEDIR);
	(void)unlinkat(conf->cgv1_pids, spare, AT_REMOVEDIR);
	have_spare = 0;
}

/*
 * Cgroups "sbx.PID.N" of launchers that are gone.  v1's are empty (their
 * sandboxes died with the launcher's lifeline); a v2 one is killed whole
 * first, in case a process of it is still there.
 */
static void
sweep_dir(int dfd, int v2, int flags)
{
	struct dirent	*de;
	DIR		*d;
	long		 pid;
	char		*end, path[300];
	int		 fd;

	if ((fd = dup(dfd)) == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "sbx.", 4) != 0)
			continue;
		pid = strtol(de->d_name + 4, &end, 10);
		if (end == de->d_name + 4 || *end != '.' || pid <= 0 ||
		    pid == (long)getpid() ||
		    (kill((pid_t)pid, 0) == -1 ? errno != ESRCH : 1))
			continue;
		if (v2) {
			snprintf(path, sizeof(path), "%s/cgroup.kill",
			    de->d_name);
			(void)cgv2_write(dfd, path, "1", flags);
			(void)cgv2_rmdir(dfd, de->d_name, flags);
		} else
			(void)unlinkat(dfd, de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

void
cgroup_sweep(const struct launcher_conf *conf)
{
	if (conf->cgv2)
		sweep_dir(conf->cgv2_dir, 1, conf->cgv2_flags);
	if (!conf->cgv1)
		return;
	sweep_dir(conf->cgv1_mem, 0, 0);
	sweep_dir(conf->cgv1_pids, 0, 0);
	if (conf->cgv1_cpu != -1)
		sweep_dir(conf->cgv1_cpu, 0, 0);
}

/*
 * v1 cpus: a cgroup in the cpu hierarchy, made only for a sandbox that
 * asks (the CFS quota is all it is for), with period and quota set
 * before pid 1 moves in.
 */
static int
v1_cpu(struct sandbox *sb, const struct launcher_conf *conf,
    const struct sbx_spec *sp, char *err, size_t errlen)
{
	char	 val[32];

	if (conf->cgv1_cpu == -1) {
		snprintf(err, errlen, "cpus %u.%03u: no cgroup v1 cpu "
		    "hierarchy for this launcher (%s/cpu/sbx.%u): the "
		    "service makes it at start where the cpu controller is "
		    "mounted", sp->cpus_milli / 1000, sp->cpus_milli % 1000,
		    CGV1_ROOT, (unsigned)geteuid());
		return -1;
	}
	if (mkdirat(conf->cgv1_cpu, sb->cgroup, 0755) == -1) {
		snprintf(err, errlen, "cgroup cpu/%s: mkdir: %s", sb->cgroup,
		    sbx_errname(errno));
		return -1;
	}
	sb->cgv1_cpu = conf->cgv1_cpu;
	snprintf(val, sizeof(val), "%u", CPU_PERIOD_US);
	if (cg_write_at(sb->cgv1_cpu, sb->cgroup, "cpu.cfs_period_us",
	    val) == -1) {
		snprintf(err, errlen, "cgroup cpu/%s/cpu.cfs_period_us: %s",
		    sb->cgroup, sbx_errname(errno));
		return -1;
	}
	snprintf(val, sizeof(val), "%u", sp->cpus_milli * CPU_PERIOD_US /
	    1000);
	if (cg_write_at(sb->cgv1_cpu, sb->cgroup, "cpu.cfs_quota_us",
	    val) == -1) {
		snprintf(err, errlen, "cgroup cpu/%s/cpu.cfs_quota_us: %s",
		    sb->cgroup, sbx_errname(errno));
		return -1;
	}
	return 0;
}

/*
 * v1: one cgroup per sandbox in each hierarchy, with the caps set before
 * any process is in it.  Swap is capped with memory where the kernel
 * accounts it (memory.memsw), so a payload cannot page its way past the
 * limit.
 */
int
cgroup_v1_create(struct sandbox *sb, const struct launcher_conf *conf,
    const struct sbx_spec *sp, char *err, size_t errlen)
{
	char			 val[32];

	if (have_spare) {
		strlcpy(sb->cgroup, spare, sizeof(sb->cgroup));
		have_spare = 0;
		sb->cgv1_mem = conf->cgv1_mem;
		sb->cgv1_pids = conf->cgv1_pids;
		goto limits;
	}
	snprintf(sb->cgroup, sizeof(sb->cgroup), "sbx.%ld.%u",
	    (long)getpid(), cgseq++);
	if (mkdirat(conf->cgv1_mem, sb->cgroup, 0755) == -1) {
		snprintf(err, errlen, "cgroup memory/%s: mkdir: %s",
		    sb->cgroup, sbx_errname(errno));
		return -1;
	}
	sb->cgv1_mem = conf->cgv1_mem;
	if (mkdirat(conf->cgv1_pids, sb->cgroup, 0755) == -1) {
		snprintf(err, errlen, "cgroup pids/%s: mkdir: %s",
		    sb->cgroup, sbx_errname(errno));
		cgroup_destroy(sb);
		return -1;
	}
	sb->cgv1_pids = conf->cgv1_pids;
 limits:
	snprintf(val, sizeof(val), "%llu", (unsigned long long)sp->memory);
	if (cg_write_at(sb->cgv1_mem, sb->cgroup, "memory.limit_in_bytes",
	    val) == -1 || (cg_write_at(sb->cgv1_mem, sb->cgroup,
	    "memory.memsw.limit_in_bytes", val) == -1 && errno != ENOENT)) {
		snprintf(err, errlen, "cgroup memory/%s: limit %s: %s",
		    sb->cgroup, val, sbx_errname(errno));
		cgroup_destroy(sb);
		return -1;
	}
	snprintf(val, sizeof(val), "%llu", (unsigned long long)sp->pids);
	if (cg_write_at(sb->cgv1_pids, sb->cgroup, "pids.max", val) == -1) {
		snprintf(err, errlen, "cgroup pids/%s/pids.max: %s",
		    sb->cgroup, sbx_errname(errno));
		cgroup_destroy(sb);
		return -1;
	}
	if (sp->cpus_milli != 0 && v1_cpu(sb, conf, sp, err, errlen) == -1) {
		cgroup_destroy(sb);
		return -1;
	}
	return 0;
}

/*
 * pid 1 moves in while it still waits for its release (spawn.c), so
 * nothing of the sandbox ever runs outside.  v1 moves it in each
 * hierarchy; v2 once.
 */
int
cgroup_attach(struct sandbox *sb, pid_t pid, char *err, size_t errlen)
{
	char	 val[32];

	snprintf(val, sizeof(val), "%ld", (long)pid);
	if (sb->cgroupfd != -1) {
		if (cgv2_write(sb->cgroupfd, "cgroup.procs", val,
		    sb->cgv2_flags) == -1) {
			snprintf(err, errlen, "cgroup %s: move pid %ld in: %s",
			    sb->cgroup, (long)pid, sbx_errname(errno));
			return -1;
		}
		return 0;
	}
	if (sb->cgv1_mem == -1)
		return 0;
	if (cg_write_at(sb->cgv1_mem, sb->cgroup, "cgroup.procs", val) == -1 ||
	    cg_write_at(sb->cgv1_pids, sb->cgroup, "cgroup.procs",
	    val) == -1 || (sb->cgv1_cpu != -1 && cg_write_at(sb->cgv1_cpu,
	    sb->cgroup, "cgroup.procs", val) == -1)) {
		snprintf(err, errlen, "cgroup %s: move pid %ld in: %s",
		    sb->cgroup, (long)pid, sbx_errname(errno));
		return -1;
	}
	return 0;
}

/*
 * After the reap: did a cap stop anything?  The memory cgroup's OOM kills
 * (v1 memory.oom_control, v2 memory.events) and the forks the pids
 * cgroup refused (pids.events, both versions); the report says which.
 */
void
cgroup_collect(struct sandbox *sb, struct sandbox_exit *ex)
{
	char		 path[128];
	long long	 peak = -1;

	if (sb->cgv1_mem != -1) {
		snprintf(path, sizeof(path), "%s/memory.oom_control",
		    sb->cgroup);
		if (cgv2_event(sb->cgv1_mem, path, "oom_kill") > 0)
			ex->limits |= SBX_LIMIT_OOM;
		snprintf(path, sizeof(path), "%s/pids.events", sb->cgroup);
		if (sb->cgv1_pids != -1 &&
		    cgv2_event(sb->cgv1_pids, path, "max") > 0)
			ex->limits |= SBX_LIMIT_PIDS;
		snprintf(path, sizeof(path), "%s/memory.max_usage_in_bytes",
		    sb->cgroup);
		peak = cgv2_value(sb->cgv1_mem, path);
		snprintf(path, sizeof(path), "%s/cpu.stat", sb->cgroup);
		if (sb->cgv1_cpu != -1 &&
		    cgv2_event(sb->cgv1_cpu, path, "nr_throttled") > 0)
			ex->limits |= SBX_LIMIT_CPUS;
	} else if (sb->cgroupfd != -1) {
		if (cgv2_event(sb->cgroupfd, "memory.events", "oom_kill") > 0)
			ex->limits |= SBX_LIMIT_OOM;
		if (cgv2_event(sb->cgroupfd, "pids.events", "max") > 0)
			ex->limits |= SBX_LIMIT_PIDS;
		if (cgv2_event(sb->cgroupfd, "cpu.stat", "nr_throttled") > 0)
			ex->limits |= SBX_LIMIT_CPUS;
		/* cpu-time against every process of the cgroup, those pid 1
		 * never reaped included (v1's cpu hierarchy counts none). */
		if (sb->cpu_time != 0 && cgv2_event(sb->cgroupfd, "cpu.stat",
		    "usage_usec") >= (long long)sb->cpu_time * 1000000)
			ex->limits |= SBX_LIMIT_CPU;
		peak = cgv2_value(sb->cgroupfd, "memory.peak");
	}
	/* The cgroup saw every process, the rusage only those pid 1 reaped
	 * (and the kernel charges page cache to the cgroup as well). */
	if (peak >= 0) {
		ex->peak_bytes = (uint64_t)peak;
		ex->peak_cgroup = 1;
	}
}

/*
 * pid 1 is reaped only after every process of its pid namespace exited,
 * so the cgroups are empty; a v1 memory cgroup may still be busy for a
 * moment while its charges move up.  Removing one can take a while, so
 * it is done when the launcher is idle (after the exit report went out
 * and the next spawn was served): names wait here, EBUSY ones stay for
 * the next idle moment.  Only a full queue, or the launcher's end, waits
 * for them.
 */
#define PENDING_MAX	64
static char	 pending[PENDING_MAX][64];
static size_t	 npending;
static int	 pend_mem = -1, pend_pids = -1;

static int
v1_try_rmdir(const char *name)
{
	int	 m, p;

	m = unlinkat(pend_mem, name, AT_REMOVEDIR) == 0 || errno == ENOENT;
	if (!m && errno != EBUSY)
		log_warn("cgroup memory/%s: rmdir", name);
	p = unlinkat(pend_pids, name, AT_REMOVEDIR) == 0 || errno == ENOENT;
	if (!p && errno != EBUSY)
		log_warn("cgroup pids/%s: rmdir", name);
	return m && p;
}

/* Idle work: remove what can be, keep what is still busy. */
static void
v1_reap(int wait)
{
	struct timespec	 ms = { 0, 1000 * 1000 };
	size_t		 i, kept;
	int		 tries;

	for (tries = 0; npending > 0 && tries < (wait ? 50 : 1); tries++) {
		if (tries > 0)
			nanosleep(&ms, NULL);
		for (i = kept = 0; i < npending; i++)
			if (!v1_try_rmdir(pending[i]))
				memmove(pending[kept++], pending[i],
				    sizeof(pending[i]));
		npending = kept;
	}
	if (wait && npending > 0) {
		log_warnx("%zu cgroups still busy; the next launcher removes "
		    "them", npending);
		npending = 0;
	}
}

static void
v1_release(struct sandbox *sb)
{
	pend_mem = sb->cgv1_mem;
	pend_pids = sb->cgv1_pids != -1 ? sb->cgv1_pids : sb->cgv1_mem;
	if (npending == PENDING_MAX)
		v1_reap(1);
	strlcpy(pending[npending++], sb->cgroup, sizeof(pending[0]));
	sb->cgv1_mem = sb->cgv1_pids = -1;
}

/* The launcher is idle: old cgroups go, the next pair is made.  How
 * many are still busy (the caller comes back for them). */
size_t
cgroup_v1_idle(const struct launcher_conf *conf)
{
	if (!conf->cgv1)
		return 0;
	v1_reap(0);
	cgroup_v1_spare(conf);
	return npending;
}

/* The launcher ends: every cgroup of its own goes now. */
void
cgroup_v1_flush(const struct launcher_conf *conf)
{
	if (!conf->cgv1)
		return;
	v1_reap(1);
	cgroup_v1_spare_drop(conf);
}

/*
 * v2: the cgroup is empty once pid 1 is reaped (every process of its pid
 * namespace went first); one that is not (a process that never was in
 * the namespace) is killed whole and removed when it empties, within a
 * bounded wait.
 */
static void
v2_remove(struct sandbox *sb)
{
	struct timespec	 ms = { 0, 1000 * 1000 };
	int		 tries;

	for (tries = 0; tries < 100; tries++) {
		if (cgv2_rmdir(sb->cgv2_dir, sb->cgroup, sb->cgv2_flags) ==
		    0 || errno == ENOENT)
			return;
		if (errno != EBUSY)
			break;
		if (tries == 0)
			cgroup_kill(sb);
		nanosleep(&ms, NULL);
	}
	log_warn("cgroup %s: rmdir", sb->cgroup);
}

void
cgroup_destroy(struct sandbox *sb)
{
	/* A cpu cgroup holds no charges: empty, it goes at once. */
	if (sb->cgv1_cpu != -1) {
		if (unlinkat(sb->cgv1_cpu, sb->cgroup, AT_REMOVEDIR) == -1 &&
		    errno != ENOENT)
			log_warn("cgroup cpu/%s: rmdir", sb->cgroup);
		sb->cgv1_cpu = -1;
	}
	if (sb->cgv1_mem != -1)
		v1_release(sb);
	if (sb->cgv2_dir != -1) {
		if (sb->cgroupfd != -1) {
			close(sb->cgroupfd);
			sb->cgroupfd = -1;
		}
		v2_remove(sb);
		sb->cgv2_dir = -1;
	}
}
