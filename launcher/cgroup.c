/*
 * cgroup.c: memory and pids caps for the whole sandbox, from a delegated
 * cgroup v2 subtree or, on hosts that have the v1 memory and pids
 * hierarchies (these machines), from this launcher's directory in each:
 * /sys/fs/cgroup/{memory,pids}/sbx.<uid>, which sbx-monitor, still root,
 * made and gave to the service user (monitor/cgroups.c).
 *
 * A configured subtree that cannot be used refuses the spawn instead of
 * falling back to rlimits: the operator asked for a hard cap on the whole
 * sandbox, and RLIMIT_AS/RLIMIT_NPROC are per-process approximations.
 * Without a configured subtree the shim applies the rlimits and the exit
 * report says so.  The sandbox is cloned straight into its cgroup
 * (CLONE_INTO_CGROUP), so no process of it ever runs uncapped.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <linux/magic.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"

#define CGV1_ROOT	"/sys/fs/cgroup"

static int
cg_write(int dfd, const char *file, const char *val)
{
	ssize_t	 n;
	int	 fd, saved;

	if ((fd = openat(dfd, file, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	n = write(fd, val, strlen(val));
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

/* Is each word of want among the space-separated words of file? */
static int
cg_has_controllers(int dfd, const char *file, const char *const *want,
    size_t nwant)
{
	char	 buf[512], *p, *w, *save;
	size_t	 i, found = 0;
	ssize_t	 n;
	int	 fd;

	if ((fd = openat(dfd, file, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (p = buf; (w = strtok_r(p, " \n", &save)) != NULL; p = NULL)
		for (i = 0; i < nwant; i++)
			if (strcmp(w, want[i]) == 0)
				found |= 1U << i;
	return found == (1U << nwant) - 1;
}

int
cgroup_create(struct sandbox *sb, const char *dir, const struct sbx_spec *sp,
    char *err, size_t errlen)
{
	static const char *const want[] = { "memory", "pids" };
	static unsigned int	 seq;
	struct statfs		 sfs;
	char			 val[32];
	int			 dfd;

	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cgroup %s: %s", dir, sbx_errname(errno));
		return -1;
	}
	if (fstatfs(dfd, &sfs) == -1 || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		snprintf(err, errlen, "cgroup %s: not a cgroup v2 directory",
		    dir);
		close(dfd);
		return -1;
	}
	if (!cg_has_controllers(dfd, "cgroup.subtree_control", want,
	    nitems(want))) {
		snprintf(err, errlen, "cgroup %s: the memory and pids "
		    "controllers are not enabled in its "
		    "cgroup.subtree_control", dir);
		close(dfd);
		return -1;
	}
	snprintf(sb->cgroup, sizeof(sb->cgroup), "sbx.%ld.%u",
	    (long)getpid(), seq++);
	if (mkdirat(dfd, sb->cgroup, 0755) == -1) {
		snprintf(err, errlen, "cgroup %s/%s: mkdir: %s", dir,
		    sb->cgroup, sbx_errname(errno));
		close(dfd);
		return -1;
	}
	sb->cgroupdir = dfd;
	if ((sb->cgroupfd = openat(dfd, sb->cgroup, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cgroup %s/%s: %s", dir, sb->cgroup,
		    sbx_errname(errno));
		cgroup_destroy(sb);
		return -1;
	}
	snprintf(val, sizeof(val), "%llu", (unsigned long long)sp->memory);
	if (cg_write(sb->cgroupfd, "memory.max", val) == -1) {
		snprintf(err, errlen, "cgroup %s/%s/memory.max: %s", dir,
		    sb->cgroup, sbx_errname(errno));
		cgroup_destroy(sb);
		return -1;
	}
	snprintf(val, sizeof(val), "%llu", (unsigned long long)sp->pids);
	if (cg_write(sb->cgroupfd, "pids.max", val) == -1) {
		snprintf(err, errlen, "cgroup %s/%s/pids.max: %s", dir,
		    sb->cgroup, sbx_errname(errno));
		cgroup_destroy(sb);
		return -1;
	}
	/* Swap would let the payload exceed memory.max; absent without
	 * swap accounting, which is fine.  One OOM kill ends the sandbox
	 * rather than leaving a half-killed process tree. */
	if (cg_write(sb->cgroupfd, "memory.swap.max", "0") == -1 &&
	    errno != ENOENT) {
		snprintf(err, errlen, "cgroup %s/%s/memory.swap.max: %s", dir,
		    sb->cgroup, sbx_errname(errno));
		cgroup_destroy(sb);
		return -1;
	}
	(void)cg_write(sb->cgroupfd, "memory.oom.group", "1");
	return 0;
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
	conf->cgv1_mem = conf->cgv1_pids = -1;
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
 * launcher that died is removed by the next one (cgroup_v1_sweep).
 */
static char	 spare[64];
static int	 have_spare;
static unsigned	 cgseq;

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

/* Empty cgroups "sbx.PID.N" of launchers that are gone. */
static void
sweep_dir(int dfd)
{
	struct dirent	*de;
	DIR		*d;
	long		 pid;
	char		*end;
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
		(void)unlinkat(dfd, de->d_name, AT_REMOVEDIR);
	}
	rewinddir(d);
	closedir(d);
}

void
cgroup_v1_sweep(const struct launcher_conf *conf)
{
	if (!conf->cgv1)
		return;
	sweep_dir(conf->cgv1_mem);
	sweep_dir(conf->cgv1_pids);
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
	return 0;
}

/* v1 has no CLONE_INTO_CGROUP: pid 1 moves in while it still waits for
 * its release, so nothing of the sandbox ever runs outside. */
int
cgroup_v1_attach(struct sandbox *sb, pid_t pid, char *err, size_t errlen)
{
	char	 val[32];

	if (sb->cgv1_mem == -1)
		return 0;
	snprintf(val, sizeof(val), "%ld", (long)pid);
	if (cg_write_at(sb->cgv1_mem, sb->cgroup, "cgroup.procs", val) == -1 ||
	    cg_write_at(sb->cgv1_pids, sb->cgroup, "cgroup.procs",
	    val) == -1) {
		snprintf(err, errlen, "cgroup %s: move pid %ld in: %s",
		    sb->cgroup, (long)pid, sbx_errname(errno));
		return -1;
	}
	return 0;
}

/* "oom_kill N" of memory.oom_control (v1) or memory.events (v2). */
static long
oom_kills(int dfd, const char *file)
{
	char	 buf[512], *p;
	ssize_t	 n;
	int	 fd;

	if ((fd = openat(dfd, file, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((p = strstr(buf, "oom_kill ")) == NULL)
		return 0;
	return strtol(p + 9, NULL, 10);
}

/* After the reap: did the memory cap kill anything?  The report says so. */
void
cgroup_collect(struct sandbox *sb, struct sandbox_exit *ex)
{
	char	 path[128];

	if (sb->cgv1_mem != -1) {
		snprintf(path, sizeof(path), "%s/memory.oom_control",
		    sb->cgroup);
		if (oom_kills(sb->cgv1_mem, path) > 0)
			ex->limits |= SBX_LIMIT_OOM;
	} else if (sb->cgroupfd != -1 &&
	    oom_kills(sb->cgroupfd, "memory.events") > 0)
		ex->limits |= SBX_LIMIT_OOM;
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

void
cgroup_destroy(struct sandbox *sb)
{
	if (sb->cgv1_mem != -1)
		v1_release(sb);
	if (sb->cgroupfd != -1) {
		close(sb->cgroupfd);
		sb->cgroupfd = -1;
	}
	if (sb->cgroupdir != -1) {
		if (unlinkat(sb->cgroupdir, sb->cgroup, AT_REMOVEDIR) == -1 &&
		    errno != ENOENT)
			log_warn("cgroup %s: rmdir", sb->cgroup);
		close(sb->cgroupdir);
		sb->cgroupdir = -1;
	}
}
