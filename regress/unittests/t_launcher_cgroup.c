/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_launcher_cgroup: the cgroup v2 code paths against a fake cgroup tree -- a
 * directory laid out like a cgroup2 mount (cgroup.controllers,
 * cgroup.subtree_control, cgroup.procs, ...), which CGV2_FAKE lets the
 * code use although it is not cgroup2.  What is tested: the monitor's
 * layout of the delegated subtree (controllers enabled, itself moved
 * into its leaf, the subtree given to the service user), its refusal
 * when a controller is missing, the discovery of the base; the
 * launcher's discovery of its subtree, its refusals, one cgroup per
 * sandbox with the limits written, pid 1 moved in, cgroup.kill, the
 * events read after the exit, removal and the sweep of stale cgroups.
 * The machines this runs on have no v2 controllers, which is why the
 * tree is fake; limits-v2.sh runs the real thing where there are.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "cgv2.h"
#include "proto.h"
#include "spec.h"
#include "launcher/launcher.h"
#include "monitor/monitor.h"

static void
put(const char *path, const char *text)
{
	FILE	*fp;

	ATF_REQUIRE_MSG((fp = fopen(path, "w")) != NULL, "%s: %s", path,
	    strerror(errno));
	fputs(text, fp);
	ATF_REQUIRE(fclose(fp) == 0);
}

/* The whole of a small file, or "" when it is missing. */
static const char *
get(const char *path)
{
	static char	 buf[1024];
	ssize_t		 n;
	int		 fd;

	buf[0] = '\0';
	if ((fd = open(path, O_RDONLY)) == -1)
		return buf;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static int
exists(const char *path)
{
	struct stat	 st;

	return lstat(path, &st) == 0;
}

/* An absolute path of name in the test's work directory. */
static const char *
here(const char *name)
{
	static char	 buf[4][PATH_MAX];
	static int	 i;

	i = (i + 1) % 4;
	ATF_REQUIRE(getcwd(buf[i], sizeof(buf[i]) - 64) != NULL);
	ATF_REQUIRE(strlcat(buf[i], "/", sizeof(buf[i])) < sizeof(buf[i]));
	ATF_REQUIRE(strlcat(buf[i], name, sizeof(buf[i])) < sizeof(buf[i]));
	return buf[i];
}

/* A cgroup2 mount at mnt, among the v1 ones, in a mountinfo file. */
static void
mountinfo(const char *file, const char *mnt)
{
	char	 text[2048];

	snprintf(text, sizeof(text),
	    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw\n"
	    "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
	    "50 31 0:38 /sub /mnt/bind rw - cgroup2 cgroup2 rw\n"
	    "41 31 0:38 / %s rw,relatime shared:9 - cgroup2 cgroup2 rw\n",
	    mnt);
	put(file, text);
}

ATF_TC_WITHOUT_HEAD(mountpoint);
ATF_TC_BODY(mountpoint, tc)
{
	char	 path[PATH_MAX];

	(void)tc;
	mountinfo("mi", "/sys/fs/cgroup/unified");
	ATF_CHECK_EQ(cgv2_mountpoint("mi", path, sizeof(path)), 0);
	ATF_CHECK_STREQ(path, "/sys/fs/cgroup/unified");
	/* Too long for the buffer: an error, not a cut path. */
	ATF_CHECK_EQ(cgv2_mountpoint("mi", path, 8), -1);
	put("mi", "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup "
	    "rw,memory\n50 31 0:38 /sub /mnt/bind rw - cgroup2 cgroup2 rw\n");
	ATF_CHECK_EQ(cgv2_mountpoint("mi", path, sizeof(path)), 1);
	ATF_CHECK_EQ(cgv2_mountpoint("missing", path, sizeof(path)), -1);
}

ATF_TC_WITHOUT_HEAD(self);
ATF_TC_BODY(self, tc)
{
	char	 path[PATH_MAX];

	(void)tc;
	put("cg", "4:memory:/process_api/x\n0::/system.slice/sbx.service\n");
	ATF_CHECK_EQ(cgv2_self("cg", path, sizeof(path)), 0);
	ATF_CHECK_STREQ(path, "/system.slice/sbx.service");
	put("cg", "4:memory:/\n1:cpu:/\n");
	ATF_CHECK_EQ(cgv2_self("cg", path, sizeof(path)), 1);
	/* Outside our cgroup namespace the kernel writes no leading /. */
	put("cg", "0::../../elsewhere\n");
	ATF_CHECK_EQ(cgv2_self("cg", path, sizeof(path)), -1);
}

ATF_TC_WITHOUT_HEAD(missing_controllers);
ATF_TC_BODY(missing_controllers, tc)
{
	static const char *const want[] = { "memory", "pids" };
	char	 miss[128];
	int	 dfd;

	(void)tc;
	ATF_REQUIRE((dfd = open(".", O_RDONLY | O_DIRECTORY)) != -1);
	put("cgroup.controllers", "cpuset cpu io memory hugetlb\n");
	ATF_CHECK_EQ(cgv2_missing(dfd, "cgroup.controllers", want, 2, miss,
	    sizeof(miss)), 1);
	ATF_CHECK_STREQ(miss, "pids");
	put("cgroup.controllers", "hugetlb\n");
	ATF_CHECK_EQ(cgv2_missing(dfd, "cgroup.controllers", want, 2, miss,
	    sizeof(miss)), 1);
	ATF_CHECK_STREQ(miss, "memory pids");
	/* A word that only starts like one does not count. */
	put("cgroup.controllers", "memoryx pids\n");
	ATF_CHECK_EQ(cgv2_missing(dfd, "cgroup.controllers", want, 2, miss,
	    sizeof(miss)), 1);
	ATF_CHECK_STREQ(miss, "memory");
	put("cgroup.controllers", "pids cpu memory\n");
	ATF_CHECK_EQ(cgv2_missing(dfd, "cgroup.controllers", want, 2, miss,
	    sizeof(miss)), 0);
	ATF_CHECK_STREQ(miss, "");
	ATF_CHECK_EQ(cgv2_missing(dfd, "nothing", want, 2, miss,
	    sizeof(miss)), -1);
	ATF_CHECK_MSG(strstr(miss, "nothing unreadable: ENOENT") != NULL,
	    "%s", miss);
	close(dfd);
}

ATF_TC_WITHOUT_HEAD(events);
ATF_TC_BODY(events, tc)
{
	int	 dfd;

	(void)tc;
	ATF_REQUIRE((dfd = open(".", O_RDONLY | O_DIRECTORY)) != -1);
	put("memory.events", "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\n"
	    "oom_group_kill 0\n");
	ATF_CHECK_EQ(cgv2_event(dfd, "memory.events", "oom_kill"), 1);
	ATF_CHECK_EQ(cgv2_event(dfd, "memory.events", "oom"), 2);
	ATF_CHECK_EQ(cgv2_event(dfd, "memory.events", "max"), 12);
	ATF_CHECK_EQ(cgv2_event(dfd, "memory.events", "swap"), 0);
	put("pids.events", "max 7\n");
	ATF_CHECK_EQ(cgv2_event(dfd, "pids.events", "max"), 7);
	/* v1's memory.oom_control has the same shape. */
	put("memory.oom_control", "oom_kill_disable 0\nunder_oom 0\n"
	    "oom_kill 3\n");
	ATF_CHECK_EQ(cgv2_event(dfd, "memory.oom_control", "oom_kill"), 3);
	put("pids.events", "max x\n");
	ATF_CHECK_EQ(cgv2_event(dfd, "pids.events", "max"), 0);
	ATF_CHECK_EQ(cgv2_event(dfd, "none.events", "max"), 0);
	close(dfd);
}

/* A fake delegated base: the controllers offered, none enabled. */
static void
fake_base(const char *controllers)
{
	ATF_REQUIRE(mkdir("base", 0755) == 0);
	put("base/cgroup.controllers", controllers);
	put("base/cgroup.subtree_control", "");
	put("base/cgroup.procs", "");
}

ATF_TC_WITHOUT_HEAD(monitor_setup);
ATF_TC_BODY(monitor_setup, tc)
{
	struct stat	 st;
	char		 err[512] = "", pid[32], sub[64], path[128];
	uid_t		 uid = geteuid() == 0 ? 65534 : geteuid();

	(void)tc;
	fake_base("cpuset cpu io memory pids\n");
	ATF_REQUIRE_MSG(cgroups_v2_setup(here("base"), uid, uid, CGV2_FAKE,
	    err, sizeof(err)) == 0, "%s", err);
	snprintf(sub, sizeof(sub), "base/sbx.%u", (unsigned)uid);
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	/* Controllers for the base's children, then for the subtree's. */
	ATF_CHECK_STREQ(get("base/cgroup.subtree_control"), "+memory +pids");
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", sub);
	ATF_CHECK_STREQ(get(path), "+memory +pids");
	/* The monitor itself in the leaf, not in a cgroup with children. */
	snprintf(path, sizeof(path), "%s/supervisor/cgroup.procs", sub);
	ATF_CHECK_STREQ(get(path), pid);
	ATF_CHECK_STREQ(get("base/cgroup.procs"), "");
	/* The subtree is the service user's (as root: another uid). */
	ATF_REQUIRE(stat(sub, &st) == 0);
	ATF_CHECK_EQ(st.st_uid, uid);
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", sub);
	ATF_REQUIRE(stat(path, &st) == 0);
	ATF_CHECK_EQ(st.st_uid, uid);
	/* ... but not its leaf, nor the base. */
	snprintf(path, sizeof(path), "%s/supervisor", sub);
	ATF_REQUIRE(stat(path, &st) == 0);
	ATF_CHECK_EQ(st.st_uid, geteuid());
	ATF_REQUIRE(stat("base", &st) == 0);
	ATF_CHECK_EQ(st.st_uid, geteuid());

	/* Again, as at the next start: nothing to redo, no error. */
	put("base/cgroup.subtree_control", "memory pids\n");
	ATF_REQUIRE_MSG(cgroups_v2_setup(here("base"), uid, uid, CGV2_FAKE,
	    err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_STREQ(get("base/cgroup.subtree_control"), "memory pids\n");
}

/* Fail closed: a base without pids says so and makes nothing. */
ATF_TC_WITHOUT_HEAD(monitor_refuses_missing);
ATF_TC_BODY(monitor_refuses_missing, tc)
{
	char	 err[512] = "";

	(void)tc;
	fake_base("cpu memory hugetlb\n");
	ATF_CHECK_EQ(cgroups_v2_setup(here("base"), 1000, 1000, CGV2_FAKE,
	    err, sizeof(err)), -1);
	ATF_CHECK_MSG(strstr(err, "cgroup.controllers lacks): pids") != NULL,
	    "%s", err);
	ATF_CHECK_MSG(strstr(err, here("base")) != NULL, "%s", err);
	ATF_CHECK(!exists("base/sbx.1000"));
	ATF_CHECK_STREQ(get("base/cgroup.subtree_control"), "");
	/* A real directory is refused as not being cgroup2. */
	ATF_CHECK_EQ(cgroups_v2_setup(here("base"), 1000, 1000, 0, err,
	    sizeof(err)), -1);
	ATF_CHECK_MSG(strstr(err, "not a cgroup v2 directory") != NULL, "%s",
	    err);
	ATF_CHECK_EQ(cgroups_v2_setup(here("nowhere"), 1000, 1000, CGV2_FAKE,
	    err, sizeof(err)), -1);
	ATF_CHECK_MSG(strstr(err, "nowhere: ENOENT") != NULL, "%s", err);
}

/* A failure after the move: the monitor goes back to its base and what
 * it made is removed, so the launcher finds no half-made subtree. */
ATF_TC_WITHOUT_HEAD(monitor_setup_undone);
ATF_TC_BODY(monitor_setup_undone, tc)
{
	char	 err[512] = "", pid[32];

	(void)tc;
	ATF_REQUIRE(mkdir("base", 0755) == 0);
	put("base/cgroup.controllers", "memory pids\n");
	put("base/cgroup.procs", "");
	/* The kernel's EBUSY, as near as a plain tree gets: the file
	 * cannot be written. */
	ATF_REQUIRE(mkdir("base/cgroup.subtree_control", 0755) == 0);
	ATF_CHECK_EQ(cgroups_v2_setup(here("base"), 1000, 1000, CGV2_FAKE,
	    err, sizeof(err)), -1);
	ATF_CHECK_MSG(strstr(err, "cannot enable memory and pids in its "
	    "cgroup.subtree_control") != NULL, "%s", err);
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	ATF_CHECK_STREQ(get("base/cgroup.procs"), pid);
	ATF_CHECK(!exists("base/sbx.1000"));
}

/* Which own cgroup counts as delegated. */
ATF_TC_WITHOUT_HEAD(discover);
ATF_TC_BODY(discover, tc)
{
	char	 base[PATH_MAX], want[PATH_MAX];

	(void)tc;
	ATF_REQUIRE(mkdir("mnt", 0755) == 0);
	ATF_REQUIRE(mkdir("mnt/svc", 0755) == 0);
	mountinfo("mi", here("mnt"));
	put("cg", "0::/\n");
	/* The root of the hierarchy: root's, not a user's. */
	ATF_CHECK_EQ(cgroups_v2_discover("mi", "cg", base, sizeof(base)),
	    geteuid() == 0 ? 0 : 1);
	if (geteuid() == 0)
		ATF_CHECK_STREQ(base, here("mnt"));
	put("cg", "0::/svc\n");
	snprintf(want, sizeof(want), "%s/svc", here("mnt"));
	if (geteuid() == 0) {
		/* Root's service cgroup: only when marked delegated. */
		ATF_CHECK_EQ(cgroups_v2_discover("mi", "cg", base,
		    sizeof(base)), 1);
		ATF_REQUIRE_MSG(setxattr("mnt/svc", "trusted.delegate", "1",
		    1, 0) == 0, "setxattr: %s", strerror(errno));
		ATF_CHECK_EQ(cgroups_v2_discover("mi", "cg", base,
		    sizeof(base)), 0);
		ATF_CHECK_STREQ(base, want);
	} else {
		/* A user's: when it is the user's own. */
		ATF_CHECK_EQ(cgroups_v2_discover("mi", "cg", base,
		    sizeof(base)), 0);
		ATF_CHECK_STREQ(base, want);
	}
	put("cg", "1:cpu:/\n");
	ATF_CHECK_EQ(cgroups_v2_discover("mi", "cg", base, sizeof(base)), 1);
}

/* The launcher finds its subtree from its own leaf, and only that. */
ATF_TC_WITHOUT_HEAD(launcher_find);
ATF_TC_BODY(launcher_find, tc)
{
	char	 dir[PATH_MAX], line[128];

	(void)tc;
	mountinfo("mi", "/sys/fs/cgroup");
	snprintf(line, sizeof(line), "0::/system.slice/sbx.service/sbx.%u/"
	    "supervisor\n", (unsigned)geteuid());
	put("cg", line);
	ATF_CHECK_EQ(cgroup_v2_find("mi", "cg", dir, sizeof(dir)), 0);
	snprintf(line, sizeof(line), "/sys/fs/cgroup/system.slice/"
	    "sbx.service/sbx.%u", (unsigned)geteuid());
	ATF_CHECK_STREQ(dir, line);
	/* Another uid's subtree, another leaf, the top: not ours. */
	put("cg", "0::/svc/sbx.4000000000/supervisor\n");
	ATF_CHECK_EQ(cgroup_v2_find("mi", "cg", dir, sizeof(dir)), 1);
	snprintf(line, sizeof(line), "0::/svc/sbx.%u/other\n",
	    (unsigned)geteuid());
	put("cg", line);
	ATF_CHECK_EQ(cgroup_v2_find("mi", "cg", dir, sizeof(dir)), 1);
	put("cg", "0::/supervisor\n");
	ATF_CHECK_EQ(cgroup_v2_find("mi", "cg", dir, sizeof(dir)), 1);
	put("cg", "0::/\n");
	ATF_CHECK_EQ(cgroup_v2_find("mi", "cg", dir, sizeof(dir)), 1);
}

/* A delegated sbx.<uid> as the monitor leaves it. */
static void
fake_subtree(const char *enabled)
{
	ATF_REQUIRE(mkdir("sub", 0755) == 0);
	ATF_REQUIRE(mkdir("sub/supervisor", 0755) == 0);
	put("sub/cgroup.subtree_control", enabled);
	put("sub/cgroup.procs", "");
}

static void
conf_init(struct launcher_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->cgv2_dir = c->cgv1_mem = c->cgv1_pids = -1;
}

ATF_TC_WITHOUT_HEAD(launcher_refusals);
ATF_TC_BODY(launcher_refusals, tc)
{
	struct launcher_conf	 c;
	char			 err[SANDBOX_ERRLEN];

	(void)tc;
	conf_init(&c);
	fake_subtree("memory\n");
	ATF_CHECK_EQ(cgroup_v2_open(&c, here("sub"), CGV2_FAKE, err,
	    sizeof(err)), -1);
	ATF_CHECK_MSG(strstr(err, "controllers not enabled in "
	    "cgroup.subtree_control: pids") != NULL, "%s", err);
	ATF_CHECK_EQ(c.cgv2, 0);
	put("sub/cgroup.subtree_control", "memory pids\n");
	ATF_CHECK_EQ(cgroup_v2_open(&c, here("sub"), 0, err, sizeof(err)),
	    -1);
	ATF_CHECK_MSG(strstr(err, "not a cgroup v2 directory") != NULL, "%s",
	    err);
	ATF_REQUIRE(unlink("sub/cgroup.procs") == 0);
	ATF_CHECK_EQ(cgroup_v2_open(&c, here("sub"), CGV2_FAKE, err,
	    sizeof(err)), -1);
	ATF_CHECK_MSG(strstr(err, "not delegated to this launcher") != NULL,
	    "%s", err);
	ATF_CHECK_EQ(c.cgv2, 0);
	ATF_CHECK_EQ(c.cgv2_dir, -1);
}

/* One sandbox's cgroup, from creation to removal. */
ATF_TC_WITHOUT_HEAD(sandbox_cgroup);
ATF_TC_BODY(sandbox_cgroup, tc)
{
	struct launcher_conf	 c;
	struct sandbox		 sb;
	struct sandbox_exit	 ex;
	struct sbx_spec		 sp;
	char			 err[SANDBOX_ERRLEN], path[256], d[128];

	(void)tc;
	conf_init(&c);
	fake_subtree("memory pids\n");
	ATF_REQUIRE_MSG(cgroup_v2_open(&c, here("sub"), CGV2_FAKE, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK_EQ(c.cgv2, 1);
	ATF_REQUIRE(sbx_spec_default(&sp) == 0);
	sp.memory = 128ULL << 20;
	sp.pids = 32;
	memset(&sb, 0, sizeof(sb));
	sb.cgroupfd = sb.cgv2_dir = sb.cgv1_mem = sb.cgv1_pids = -1;
	ATF_REQUIRE_MSG(cgroup_v2_create(&sb, &c, &sp, err,
	    sizeof(err)) == 0, "%s", err);
	snprintf(path, sizeof(path), "sbx.%ld.", (long)getpid());
	ATF_CHECK_MSG(strncmp(sb.cgroup, path, strlen(path)) == 0, "%s",
	    sb.cgroup);
	snprintf(d, sizeof(d), "sub/%s", sb.cgroup);
	snprintf(path, sizeof(path), "%s/memory.max", d);
	ATF_CHECK_STREQ(get(path), "134217728");
	snprintf(path, sizeof(path), "%s/memory.swap.max", d);
	ATF_CHECK_STREQ(get(path), "0");
	snprintf(path, sizeof(path), "%s/pids.max", d);
	ATF_CHECK_STREQ(get(path), "32");
	/* pid 1 moved in, then everything killed at once. */
	ATF_REQUIRE_MSG(cgroup_attach(&sb, 4321, err, sizeof(err)) == 0, "%s",
	    err);
	snprintf(path, sizeof(path), "%s/cgroup.procs", d);
	ATF_CHECK_STREQ(get(path), "4321");
	snprintf(path, sizeof(path), "%s/cgroup.kill", d);
	ATF_CHECK(!exists(path));
	cgroup_kill(&sb);
	ATF_CHECK_STREQ(get(path), "1");
	/* The kernel's counts after the exit: both limits reported. */
	memset(&ex, 0, sizeof(ex));
	cgroup_collect(&sb, &ex);
	ATF_CHECK_EQ(ex.limits, 0);
	snprintf(path, sizeof(path), "%s/memory.events", d);
	put(path, "low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\n");
	cgroup_collect(&sb, &ex);
	ATF_CHECK_EQ(ex.limits, SBX_LIMIT_OOM);
	snprintf(path, sizeof(path), "%s/pids.events", d);
	put(path, "max 2\n");
	cgroup_collect(&sb, &ex);
	ATF_CHECK_EQ(ex.limits, SBX_LIMIT_OOM | SBX_LIMIT_PIDS);
	/* Removed with its files; the subtree and its leaf stay. */
	cgroup_destroy(&sb);
	ATF_CHECK(!exists(d));
	ATF_CHECK_EQ(sb.cgroupfd, -1);
	ATF_CHECK(exists("sub/supervisor"));
	cgroup_v2_close(&c);
}

/* A limit that cannot be written refuses the sandbox, and leaves
 * nothing. */
ATF_TC_WITHOUT_HEAD(sandbox_refused);
ATF_TC_BODY(sandbox_refused, tc)
{
	struct launcher_conf	 c;
	struct sandbox		 sb;
	struct sbx_spec		 sp;
	char			 err[SANDBOX_ERRLEN];

	(void)tc;
	conf_init(&c);
	fake_subtree("memory pids\n");
	ATF_REQUIRE_MSG(cgroup_v2_open(&c, here("sub"), 0 | CGV2_FAKE, err,
	    sizeof(err)) == 0, "%s", err);
	/* Without CGV2_FAKE the files must exist, as in the kernel's. */
	c.cgv2_flags = 0;
	ATF_REQUIRE(sbx_spec_default(&sp) == 0);
	memset(&sb, 0, sizeof(sb));
	sb.cgroupfd = sb.cgv2_dir = sb.cgv1_mem = sb.cgv1_pids = -1;
	ATF_CHECK_EQ(cgroup_v2_create(&sb, &c, &sp, err, sizeof(err)), -1);
	ATF_CHECK_MSG(strstr(err, "/memory.max: ENOENT") != NULL &&
	    strstr(err, here("sub")) != NULL, "%s", err);
	ATF_CHECK_STREQ(get("sub/cgroup.procs"), "");
	snprintf(err, sizeof(err), "sub/%s", sb.cgroup);
	ATF_CHECK_MSG(!exists(err), "%s left behind", err);
	cgroup_v2_close(&c);
}

/* Stale cgroups of a launcher that is gone go; live ones stay. */
ATF_TC_WITHOUT_HEAD(sweep);
ATF_TC_BODY(sweep, tc)
{
	struct launcher_conf	 c;
	char			 err[SANDBOX_ERRLEN], dead[64], mine[64];
	pid_t			 pid;
	int			 st;

	(void)tc;
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0)
		_exit(0);
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	conf_init(&c);
	fake_subtree("memory pids\n");
	snprintf(dead, sizeof(dead), "sub/sbx.%ld.3", (long)pid);
	snprintf(mine, sizeof(mine), "sub/sbx.%ld.0", (long)getpid());
	ATF_REQUIRE(mkdir(dead, 0755) == 0);
	ATF_REQUIRE(mkdir(mine, 0755) == 0);
	ATF_REQUIRE(mkdir("sub/sbx.1.0", 0755) == 0);	/* init: alive */
	put("sub/sbx.1.0/pids.max", "8");
	ATF_REQUIRE_MSG(cgroup_v2_open(&c, here("sub"), CGV2_FAKE, err,
	    sizeof(err)) == 0, "%s", err);
	cgroup_sweep(&c);
	ATF_CHECK(!exists(dead));
	ATF_CHECK(exists(mine));
	ATF_CHECK(exists("sub/sbx.1.0/pids.max"));
	ATF_CHECK(exists("sub/supervisor"));
	cgroup_v2_close(&c);
}

ATF_TC_WITHOUT_HEAD(exit_format);
ATF_TC_BODY(exit_format, tc)
{
	struct sandbox_exit	 ex;
	char			 buf[256];

	(void)tc;
	memset(&ex, 0, sizeof(ex));
	ex.reason = SANDBOX_EXITED;
	ex.limits = SBX_LIMIT_CGROUP | SBX_LIMIT_CGV2;
	sandbox_exit_format(&ex, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "exited 0 (limits: cgroup v2)");
	ex.limits |= SBX_LIMIT_PIDS;
	sandbox_exit_format(&ex, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "exited 0 (limits: cgroup, the pids limit "
	    "refused a fork)");
	ex.limits |= SBX_LIMIT_OOM;
	sandbox_exit_format(&ex, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "exited 0 (limits: cgroup, the memory limit "
	    "killed a process)");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, mountpoint);
	ATF_TP_ADD_TC(tp, self);
	ATF_TP_ADD_TC(tp, missing_controllers);
	ATF_TP_ADD_TC(tp, events);
	ATF_TP_ADD_TC(tp, monitor_setup);
	ATF_TP_ADD_TC(tp, monitor_refuses_missing);
	ATF_TP_ADD_TC(tp, monitor_setup_undone);
	ATF_TP_ADD_TC(tp, discover);
	ATF_TP_ADD_TC(tp, launcher_find);
	ATF_TP_ADD_TC(tp, launcher_refusals);
	ATF_TP_ADD_TC(tp, sandbox_cgroup);
	ATF_TP_ADD_TC(tp, sandbox_refused);
	ATF_TP_ADD_TC(tp, sweep);
	ATF_TP_ADD_TC(tp, exit_format);
	return atf_no_error();
}
