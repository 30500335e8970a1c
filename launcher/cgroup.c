/*
 * cgroup.c: memory and pids caps from a delegated cgroup v2 subtree.
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

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"

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

void
cgroup_destroy(struct sandbox *sb)
{
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
