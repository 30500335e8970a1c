/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * cgroupfs.c: the sandbox's own cgroup, read-only at /sys/fs/cgroup, so
 * that runtimes which size themselves from their limits (the JVM's heap,
 * Go's GOMEMLIMIT tooling, .NET, Node) see the profile's memory and pids
 * caps instead of the host's memory.
 *
 * Runtimes find their cgroup through /proc/self/mountinfo (a cgroup mount,
 * its root) and /proc/self/cgroup (the process's path); both are shown
 * relative to the reader's cgroup namespace.  So once pid 1 is in its
 * cgroups (the launcher's move, shim.c) it enters a new cgroup namespace
 * rooted there, and mounts the hierarchies from inside it: each mount's
 * root is the sandbox's cgroup, /proc/self/cgroup says "/", and nothing of
 * the host's cgroup tree above is reachable or named.
 *
 *   v2  the unified hierarchy at /sys/fs/cgroup (memory.max, pids.max).
 *   v1  the memory and pids hierarchies at /sys/fs/cgroup/memory and
 *       /sys/fs/cgroup/pids, and, because the JVM accepts a v1 layout
 *       only when cpu, cpuacct and cpuset are mounted too, those
 *       hierarchies as well: they are rooted at pid 1's cgroup in them
 *       (the launcher's), which shows its CPU shares and quota, and usage
 *       figures no finer than /proc/stat already gives.  Those extra
 *       mounts are best effort (a host may combine controllers in ways a
 *       namespace cannot mount); memory and pids must succeed.
 *
 * The layout is read from the host's mountinfo while the host tree is
 * still there (shim_cgroup_plan, from shim_mounts), the mount points made
 * in the root tmpfs before it is read-only; the mounts come after the
 * move (shim_cgroup_mount).  No cgroup (rlimits only): no /sys at all.
 */
#include <sys/types.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec.h"
#include "shim.h"

#define CG_DIR		"/sys/fs/cgroup"
#define CG_MAXV1	8
#define CG_NAMELEN	64
#define CG_MNTFLAGS	(MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)

/* The v1 controllers a runtime reads; required ones end the sandbox. */
static const struct {
	const char	*name;
	int		 required;
} wanted[] = {
	{ "memory", 1 }, { "pids", 1 },
	{ "cpu", 0 }, { "cpuacct", 0 }, { "cpuset", 0 },
};

static struct {
	int	 version;		/* 0 none, 1, 2 */
	size_t	 nv1;
	struct {
		char	 name[CG_NAMELEN];	/* "cpu,cpuacct": the mount
						   options and the directory */
		int	 required;
	} v1[CG_MAXV1];
} plan;

/* Mount options that name no controller. */
static int
not_controller(const char *tok)
{
	static const char *const flags[] = {
		"rw", "ro", "xattr", "noprefix", "clone_children",
		"cpuset_v2_mode", "favordynmods",
	};
	size_t	 i;

	if (strchr(tok, '=') != NULL)
		return 1;
	for (i = 0; i < nitems(flags); i++)
		if (strcmp(tok, flags[i]) == 0)
			return 1;
	return 0;
}

/* One v1 hierarchy from its super options ("rw,cpu,cpuacct"). */
static void
plan_v1(char *opts)
{
	char	 name[CG_NAMELEN], *tok, *save;
	size_t	 i, j;
	int	 want = 0, req = 0;

	name[0] = '\0';
	for (tok = strtok_r(opts, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if (not_controller(tok))
			continue;
		for (i = 0; i < nitems(wanted); i++)
			if (strcmp(tok, wanted[i].name) == 0) {
				want = 1;
				req |= wanted[i].required;
			}
		if (name[0] != '\0')
			strlcat(name, ",", sizeof(name));
		if (strlcat(name, tok, sizeof(name)) >= sizeof(name))
			return;
	}
	if (!want)
		return;
	for (j = 0; j < plan.nv1; j++)
		if (strcmp(plan.v1[j].name, name) == 0)
			return;		/* another bind of the same one */
	if (plan.nv1 == CG_MAXV1)
		return;
	strlcpy(plan.v1[plan.nv1].name, name, CG_NAMELEN);
	plan.v1[plan.nv1].required = req;
	plan.nv1++;
}

/* "id parent maj:min root point opts [optional...] - type source super" */
static int
read_mountinfo(const char *path, int *v2)
{
	FILE	*fp;
	char	*line = NULL, *sep, type[32], super[512];
	size_t	 cap = 0;

	*v2 = 0;
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	while (getline(&line, &cap, fp) != -1) {
		if ((sep = strstr(line, " - ")) == NULL ||
		    sscanf(sep + 3, "%31s %*s %511s", type, super) != 2)
			continue;
		if (strcmp(type, "cgroup2") == 0)
			*v2 = 1;
		else if (strcmp(type, "cgroup") == 0)
			plan_v1(super);
	}
	free(line);
	fclose(fp);
	return 0;
}

/*
 * Which layout a mountinfo file describes: 1 (v1, a memory hierarchy;
 * the launcher capped memory there, launcher/cgroup.c), 2 (cgroup2 and no
 * v1 memory), 0 (neither), -1 (unreadable, errno).  The v1 hierarchies
 * to mount are left in plan; names, if not NULL, gets them space-separated
 * (for the unit tests).
 */
int
shim_cgroup_layout(const char *mountinfo, char *names, size_t len)
{
	char	 one[CG_NAMELEN], *tok, *save;
	size_t	 i;
	int	 v2, mem = 0;

	memset(&plan, 0, sizeof(plan));
	if (read_mountinfo(mountinfo, &v2) == -1)
		return -1;
	for (i = 0; i < plan.nv1; i++) {
		strlcpy(one, plan.v1[i].name, sizeof(one));
		for (tok = strtok_r(one, ",", &save); tok != NULL;
		    tok = strtok_r(NULL, ",", &save))
			if (strcmp(tok, "memory") == 0)
				mem = 1;
	}
	if (mem)
		plan.version = 1;
	else {
		plan.version = v2 ? 2 : 0;
		plan.nv1 = 0;
	}
	if (names != NULL && len > 0) {
		names[0] = '\0';
		for (i = 0; i < plan.nv1; i++) {
			if (i > 0)
				strlcat(names, " ", len);
			strlcat(names, plan.v1[i].name, len);
		}
	}
	return plan.version;
}

static void
stage_dir(const char *inside)
{
	char	 path[PATH_MAX], *p;

	if ((size_t)snprintf(path, sizeof(path), "%s%s", SHIM_STAGE,
	    inside) >= sizeof(path))
		shim_fail(ENAMETOOLONG, "%s", inside);
	for (p = path + strlen(SHIM_STAGE) + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		if (*p == '/') {
			*p = '\0';
			if (mkdir(path, 0755) == -1 && errno != EEXIST)
				shim_fail(errno, "mkdir %s", inside);
			*p = '/';
			continue;
		}
		if (mkdir(path, 0755) == -1 && errno != EEXIST)
			shim_fail(errno, "mkdir %s", inside);
		return;
	}
}

/*
 * Before pivot_root: which hierarchies, and their mount points.  Only a
 * sandbox whose pid 1 is moved into cgroups of its own gets any.
 */
void
shim_cgroup_plan(const struct sbx_spec *sp)
{
	char	 dir[PATH_MAX], link[PATH_MAX], one[CG_NAMELEN], *tok, *save;
	size_t	 i;

	memset(&plan, 0, sizeof(plan));
	if (!sp->cgroup_wait)
		return;
	if (shim_cgroup_layout("/proc/self/mountinfo", NULL, 0) == -1)
		shim_fail(errno, "cgroup: /proc/self/mountinfo");
	if (plan.version == 0)
		return;
	stage_dir(CG_DIR);
	for (i = 0; i < plan.nv1; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", CG_DIR, plan.v1[i].name);
		stage_dir(dir);
		/* cpu -> cpu,cpuacct, as on the host. */
		if (strchr(plan.v1[i].name, ',') == NULL)
			continue;
		strlcpy(one, plan.v1[i].name, sizeof(one));
		for (tok = strtok_r(one, ",", &save); tok != NULL;
		    tok = strtok_r(NULL, ",", &save)) {
			snprintf(link, sizeof(link), "%s%s/%s", SHIM_STAGE,
			    CG_DIR, tok);
			if (symlink(plan.v1[i].name, link) == -1 &&
			    errno != EEXIST)
				shim_fail(errno, "symlink %s/%s", CG_DIR, tok);
		}
	}
}

/*
 * After the move, before the capabilities go: a cgroup namespace rooted
 * at the sandbox's cgroups, and the read-only mounts from within it.
 * pid 1 enters it too, so every payload process starts in it.
 */
void
shim_cgroup_mount(void)
{
	char	 dir[PATH_MAX];
	size_t	 i;

	if (plan.version == 0)
		return;
	if (unshare(CLONE_NEWCGROUP) == -1)
		shim_fail(errno, "unshare CLONE_NEWCGROUP");
	if (plan.version == 2) {
		if (mount("cgroup2", CG_DIR, "cgroup2", CG_MNTFLAGS,
		    NULL) == -1)
			shim_fail(errno, "mount cgroup2 %s", CG_DIR);
		return;
	}
	for (i = 0; i < plan.nv1; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", CG_DIR, plan.v1[i].name);
		if (mount("cgroup", dir, "cgroup", CG_MNTFLAGS,
		    plan.v1[i].name) == -1 && plan.v1[i].required)
			shim_fail(errno, "mount cgroup %s", dir);
	}
}
