/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_shim_cgroupfs.c: shim/cgroupfs.c's reading of mountinfo -- which
 * cgroup layout a sandbox gets at /sys/fs/cgroup, and which v1
 * hierarchies, on a v1, a hybrid and a v2-only host.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "common.h"
#include "spec.h"
#include "shim/shim.h"

static const char *
write_file(const char *text)
{
	FILE	*fp;

	ATF_REQUIRE((fp = fopen("mountinfo", "w")) != NULL);
	ATF_REQUIRE(fputs(text, fp) >= 0);
	ATF_REQUIRE(fclose(fp) == 0);
	return "mountinfo";
}

/* Debian 12 with systemd in hybrid mode, as on the test machine. */
static const char v1_host[] =
    "25 30 0:23 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs "
    "sysfs rw\n"
    "26 25 0:24 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:8 - tmpfs "
    "tmpfs ro,mode=755\n"
    "27 26 0:25 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime "
    "shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"
    "28 26 0:26 / /sys/fs/cgroup/systemd rw,nosuid shared:10 - cgroup "
    "cgroup rw,xattr,name=systemd\n"
    "32 26 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:14 - cgroup "
    "cgroup rw,cpu,cpuacct\n"
    "33 26 0:31 / /sys/fs/cgroup/memory rw,nosuid shared:15 - cgroup "
    "cgroup rw,memory\n"
    "34 26 0:32 / /sys/fs/cgroup/net_cls,net_prio rw,nosuid shared:16 - "
    "cgroup cgroup rw,net_cls,net_prio\n"
    "35 26 0:33 / /sys/fs/cgroup/pids rw,nosuid shared:17 - cgroup cgroup "
    "rw,pids\n"
    "36 26 0:34 / /sys/fs/cgroup/cpuset rw,nosuid shared:18 - cgroup "
    "cgroup rw,cpuset,clone_children\n"
    /* The same hierarchy bound elsewhere: listed once. */
    "40 30 0:31 /x /srv/mem rw shared:15 - cgroup cgroup rw,memory\n";

static const char v2_host[] =
    "25 30 0:23 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs "
    "sysfs rw\n"
    "26 25 0:24 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:8 "
    "- cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";

ATF_TC_WITHOUT_HEAD(v1_hierarchies);
ATF_TC_BODY(v1_hierarchies, tc)
{
	char	 names[256];

	ATF_CHECK_EQ(shim_cgroup_layout(write_file(v1_host), names,
	    sizeof(names)), 1);
	/* memory and pids, and what a JVM needs besides; never name=,
	 * net_cls or the v2 mount of a hybrid host. */
	ATF_CHECK_STREQ(names, "cpu,cpuacct memory pids cpuset");
}

ATF_TC_WITHOUT_HEAD(v2_unified);
ATF_TC_BODY(v2_unified, tc)
{
	char	 names[256] = "x";

	ATF_CHECK_EQ(shim_cgroup_layout(write_file(v2_host), names,
	    sizeof(names)), 2);
	ATF_CHECK_STREQ(names, "");
}

ATF_TC_WITHOUT_HEAD(no_cgroups);
ATF_TC_BODY(no_cgroups, tc)
{
	char	 names[256] = "x";

	ATF_CHECK_EQ(shim_cgroup_layout(write_file(
	    "25 30 0:23 / /sys rw - sysfs sysfs rw\n"
	    "28 26 0:26 / /sys/fs/cgroup/systemd rw - cgroup cgroup "
	    "rw,xattr,name=systemd\n"), names, sizeof(names)), 0);
	ATF_CHECK_STREQ(names, "");
	ATF_CHECK_EQ(shim_cgroup_layout("no-such-file", NULL, 0), -1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, v1_hierarchies);
	ATF_TP_ADD_TC(tp, v2_unified);
	ATF_TP_ADD_TC(tp, no_cgroups);
	return atf_no_error();
}
