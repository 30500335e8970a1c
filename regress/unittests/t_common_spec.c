/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_common_spec: the sandbox spec -- what the builder refuses, that the
 * wire form round-trips exactly, and that the parser refuses every
 * malformed buffer (truncations, mutations, each header rule) instead of
 * guessing.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "spec.h"

/* Offsets in the wire header (see common/spec.c). */
#define OFF_MAGIC	0
#define OFF_VERSION	4
#define OFF_TOTAL	8
#define OFF_RSV0	12
#define OFF_CLASS	16
#define OFF_FLAGS	24
#define OFF_RSV1	28
#define OFF_ARGC	88
#define OFF_RSV2	100
#define OFF_FIRSTSTR	104

static uint8_t	 wire[SBX_SPEC_WIRE_MAX];
static uint8_t	 copy[SBX_SPEC_WIRE_MAX + 16];

static void
full_spec(struct sbx_spec *sp)
{
	sbx_spec_init(sp);
	sp->class = SBX_CLASS_PROVIDER;
	sp->root_size = 1 << 20;
	sp->tmp_size = 8 << 20;
	sp->dev_shm = 1;
	sp->timeout_ms = 1234;
	sp->memory = 256ULL << 20;
	sp->pids = 17;
	sp->nofile = 99;
	sp->fsize = 1 << 30;
	sp->no_loopback = 1;
	sp->user = "build_user-1.x";
	sp->cpu_time = 30;
	sp->cpus_milli = 1500;
	sp->output = 1ULL << 20;
	ATF_REQUIRE(sbx_spec_add_arg(sp, "/usr/bin/node") == 0);
	ATF_REQUIRE(sbx_spec_add_arg(sp, "--flag") == 0);
	ATF_REQUIRE(sbx_spec_add_arg(sp, "") == 0);
	ATF_REQUIRE(sbx_spec_add_env(sp, "LANG=C.UTF-8") == 0);
	ATF_REQUIRE(sbx_spec_add_env(sp, "EMPTY=") == 0);
	ATF_REQUIRE(sbx_spec_add_mount(sp, SBX_MOUNT_RO, "/usr", "/usr",
	    0) == 0);
	ATF_REQUIRE(sbx_spec_add_mount(sp, SBX_MOUNT_TMPFS, NULL, "/data",
	    4096) == 0);
	ATF_REQUIRE(sbx_spec_add_mount_flags(sp, SBX_MOUNT_RW,
	    SBX_MOUNT_F_NOEXEC, "/srv/cache", "/data/cache", 0) == 0);
	ATF_REQUIRE(sbx_spec_add_mount(sp, SBX_MOUNT_SYMLINK, "usr/lib64",
	    "/lib64", 0) == 0);
	sp->workdir = "/work";
	sp->workdir_fd = 1;
	sp->tmp_noexec = 1;
	sp->workdir_noexec = 1;
	sp->ptrace = 1;
}

static size_t
serialise(const struct sbx_spec *sp)
{
	char	 err[SBX_SPEC_ERRLEN];
	size_t	 len = 0;

	if (sbx_spec_serialise(sp, wire, sizeof(wire), &len, err,
	    sizeof(err)) == -1)
		atf_tc_fail("serialise: %s", err);
	return len;
}

static void
put32(uint8_t *buf, size_t off, uint32_t v)
{
	memcpy(buf + off, &v, sizeof(v));
}

/* Parse must fail and say something containing want. */
static void
refuse_wire(const uint8_t *buf, size_t len, const char *want)
{
	struct sbx_spec	 sp;
	char		 err[SBX_SPEC_ERRLEN] = "";

	ATF_CHECK_EQ_MSG(sbx_spec_parse(&sp, buf, len, err, sizeof(err)), -1,
	    "accepted a buffer that should fail with \"%s\"", want);
	ATF_CHECK_MSG(strstr(err, want) != NULL,
	    "error \"%s\" does not mention \"%s\"", err, want);
}

static void
refuse_spec(const struct sbx_spec *sp, const char *want)
{
	char	 err[SBX_SPEC_ERRLEN] = "";
	size_t	 len;

	ATF_CHECK_EQ_MSG(sbx_spec_check(sp, err, sizeof(err)), -1,
	    "accepted a spec that should fail with \"%s\"", want);
	ATF_CHECK_MSG(strstr(err, want) != NULL,
	    "error \"%s\" does not mention \"%s\"", err, want);
	/* The serialiser runs the same check: nothing invalid goes out. */
	ATF_CHECK_EQ(sbx_spec_serialise(sp, wire, sizeof(wire), &len, err,
	    sizeof(err)), -1);
}

ATF_TC_WITHOUT_HEAD(roundtrip);
ATF_TC_BODY(roundtrip, tc)
{
	struct sbx_spec	 a, b;
	char		 err[SBX_SPEC_ERRLEN];
	size_t		 len, i;

	full_spec(&a);
	len = serialise(&a);
	if (sbx_spec_parse(&b, wire, len, err, sizeof(err)) == -1)
		atf_tc_fail("parse: %s", err);
	ATF_CHECK_EQ(b.class, a.class);
	ATF_CHECK_EQ(b.net, a.net);
	ATF_REQUIRE_EQ(b.argc, a.argc);
	for (i = 0; i < a.argc; i++)
		ATF_CHECK_STREQ(b.argv[i], a.argv[i]);
	ATF_CHECK(b.argv[b.argc] == NULL);
	ATF_REQUIRE_EQ(b.envc, a.envc);
	for (i = 0; i < a.envc; i++)
		ATF_CHECK_STREQ(b.env[i], a.env[i]);
	ATF_CHECK(b.env[b.envc] == NULL);
	ATF_CHECK_EQ(b.ptrace, 1);
	ATF_CHECK_EQ(b.workdir_same, 0);
	ATF_CHECK_STREQ(b.workdir, "/work");
	ATF_CHECK_EQ(b.workdir_fd, 1);
	ATF_REQUIRE_EQ(b.nmounts, a.nmounts);
	for (i = 0; i < a.nmounts; i++) {
		ATF_CHECK_EQ(b.mounts[i].kind, a.mounts[i].kind);
		ATF_CHECK_EQ(b.mounts[i].flags, a.mounts[i].flags);
		ATF_CHECK_EQ(b.mounts[i].size, a.mounts[i].size);
		ATF_CHECK_STREQ(b.mounts[i].dst, a.mounts[i].dst);
		if (a.mounts[i].src == NULL)
			ATF_CHECK(b.mounts[i].src == NULL);
		else
			ATF_CHECK_STREQ(b.mounts[i].src, a.mounts[i].src);
	}
	ATF_CHECK_EQ(b.root_size, a.root_size);
	ATF_CHECK_EQ(b.tmp_size, a.tmp_size);
	ATF_CHECK_EQ(b.dev_shm, 1);
	ATF_CHECK_EQ(b.timeout_ms, a.timeout_ms);
	ATF_CHECK_EQ(b.memory, a.memory);
	ATF_CHECK_EQ(b.pids, a.pids);
	ATF_CHECK_EQ(b.nofile, a.nofile);
	ATF_CHECK_EQ(b.fsize, a.fsize);
	ATF_CHECK_EQ(b.cpu_time, 30);
	ATF_CHECK_EQ(b.cpus_milli, 1500);
	ATF_CHECK_EQ(b.output, 1ULL << 20);
	ATF_CHECK_EQ(b.cgroup, 0);
	ATF_CHECK_EQ(b.tmp_noexec, 1);
	ATF_CHECK_EQ(b.workdir_noexec, 1);
	ATF_CHECK_EQ(b.no_loopback, 1);
	ATF_REQUIRE(b.user != NULL);
	ATF_CHECK_STREQ(b.user, "build_user-1.x");
	/* Strings point into the buffer: no hidden allocation. */
	ATF_CHECK((const uint8_t *)b.argv[0] > wire &&
	    (const uint8_t *)b.argv[0] < wire + len);
}

/* pty mode (issue 26): the flag and the window size travel; a pty is a
 * command's only, and a size without a pty is refused. */
ATF_TC_WITHOUT_HEAD(pty);
ATF_TC_BODY(pty, tc)
{
	struct sbx_spec	 a, b;
	char		 err[SBX_SPEC_ERRLEN];
	size_t		 len;
	uint32_t	 flags;

	full_spec(&a);
	ATF_CHECK_EQ(a.pty, 0);
	len = serialise(&a);
	ATF_REQUIRE(sbx_spec_parse(&b, wire, len, err, sizeof(err)) == 0);
	ATF_CHECK_EQ(b.pty, 0);
	ATF_CHECK_EQ(b.pty_rows, 0);

	a.class = SBX_CLASS_COMMAND;
	a.pty = 1;
	a.pty_rows = 40;
	a.pty_cols = 65535;
	len = serialise(&a);
	if (sbx_spec_parse(&b, wire, len, err, sizeof(err)) == -1)
		atf_tc_fail("parse: %s", err);
	ATF_CHECK_EQ(b.pty, 1);
	ATF_CHECK_EQ(b.pty_rows, 40);
	ATF_CHECK_EQ(b.pty_cols, 65535);

	a.class = SBX_CLASS_PROVIDER;
	ATF_CHECK(sbx_spec_check(&a, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "pty") != NULL);
	a.class = SBX_CLASS_COMMAND;
	a.pty = 0;
	ATF_CHECK(sbx_spec_check(&a, err, sizeof(err)) == -1);
	a.pty = 2;
	ATF_CHECK(sbx_spec_check(&a, err, sizeof(err)) == -1);

	/* On the wire: a size without the flag, and a missing size word. */
	a.pty = 1;
	len = serialise(&a);
	memcpy(&flags, &wire[24], 4);
	ATF_CHECK(flags & 0x80);
	flags &= ~0x80U;			/* SPEC_F_PTY off */
	memcpy(&wire[24], &flags, 4);
	ATF_CHECK(sbx_spec_parse(&b, wire, len, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "pty 0 (40x65535)") != NULL);
	a.pty = 0;
	a.pty_rows = a.pty_cols = 0;
	len = serialise(&a);
	/* The size word, then the CPU limits (u64, u32, u32) and the
	 * output limit (u64), the overlay size and T0 (u64s) after it. */
	memcpy(&wire[8], &(uint32_t){ (uint32_t)len - 44 }, 4);
	ATF_CHECK(sbx_spec_parse(&b, wire, len - 44, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "window size") != NULL);
}

/* overlay (issue 23): the flag, the upper's size and a first run's T0
 * travel, at the end of the wire form; an overlay needs the workdir fd
 * and a size in range, a size without the flag is refused, and a T0 goes
 * with a changeset's first run and nothing else. */
ATF_TC_WITHOUT_HEAD(overlay);
ATF_TC_BODY(overlay, tc)
{
	struct sbx_spec	 a, b;
	char		 err[SBX_SPEC_ERRLEN];
	size_t		 len;
	uint32_t	 flags;

	full_spec(&a);
	len = serialise(&a);
	ATF_REQUIRE(sbx_spec_parse(&b, wire, len, err, sizeof(err)) == 0);
	ATF_CHECK_EQ(b.overlay, 0);
	ATF_CHECK_EQ(b.overlay_size, 0);

	a.overlay = 1;
	a.overlay_size = 3ULL << 20;
	/* A first run without its T0, or with a negative one. */
	ATF_CHECK(sbx_spec_check(&a, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "overlay_t0 0: a time for the first overlay "
	    "run of a changeset only") != NULL, "%s", err);
	a.overlay_t0 = -5;
	ATF_CHECK(sbx_spec_check(&a, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "overlay_t0 -5") != NULL);
	a.overlay_t0 = 1796300000123456789LL;
	len = serialise(&a);
	if (sbx_spec_parse(&b, wire, len, err, sizeof(err)) == -1)
		atf_tc_fail("parse: %s", err);
	ATF_CHECK_EQ(b.overlay, 1);
	ATF_CHECK_EQ(b.overlay_size, 3ULL << 20);
	ATF_CHECK_EQ(b.overlay_t0, 1796300000123456789LL);
	/* The size, then T0: the wire's last fields. */
	ATF_CHECK_EQ(wire[len - 14], 0x30);
	ATF_CHECK(memcmp(&wire[len - 8], &a.overlay_t0, 8) == 0);
	/* A T0 above INT64_MAX on the wire. */
	memset(&wire[len - 8], 0xff, 8);
	ATF_CHECK(sbx_spec_parse(&b, wire, len, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "overlay t0 18446744073709551615: out of "
	    "range") != NULL, "%s", err);

	len = serialise(&a);
	memcpy(&flags, &wire[24], 4);
	ATF_CHECK(flags & 0x200);
	flags &= ~0x200U;			/* SPEC_F_OVERLAY off */
	memcpy(&wire[24], &flags, 4);
	ATF_CHECK(sbx_spec_parse(&b, wire, len, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "overlay_size 3145728 without overlay") !=
	    NULL, "%s", err);
	/* No T0 word, then no size word either: truncated. */
	len = serialise(&a);
	memcpy(&wire[8], &(uint32_t){ (uint32_t)len - 8 }, 4);
	ATF_CHECK(sbx_spec_parse(&b, wire, len - 8, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "overlay t0: truncated") != NULL);
	memcpy(&wire[8], &(uint32_t){ (uint32_t)len - 16 }, 4);
	ATF_CHECK(sbx_spec_parse(&b, wire, len - 16, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "overlay size: truncated") != NULL);

	a.overlay_size = 4096;
	ATF_CHECK(sbx_spec_check(&a, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "overlay_size 4096: outside") != NULL);
	a.overlay_size = 1 << 20;
	a.workdir_fd = 0;
	a.workdir = NULL;
	ATF_CHECK(sbx_spec_check(&a, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "overlay: no workdir directory");
	a.workdir_fd = 1;
	a.workdir = "/work";
	a.overlay = 2;
	ATF_CHECK(sbx_spec_check(&a, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "overlay 2") != NULL);

	/* overlay_into (0x400): only with overlay, and it travels; a
	 * further run has no T0 of its own (the changeset keeps its first). */
	a.overlay = 0;
	a.overlay_size = 0;
	a.overlay_t0 = 0;
	a.overlay_into = 1;
	ATF_CHECK(sbx_spec_check(&a, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "overlay_into 1") != NULL);
	a.overlay = 1;
	a.overlay_size = 1 << 20;
	a.overlay_t0 = 7;
	ATF_CHECK(sbx_spec_check(&a, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "overlay_t0 7") != NULL);
	a.overlay_t0 = 0;
	len = serialise(&a);
	memcpy(&flags, &wire[24], 4);
	ATF_CHECK((flags & 0x600) == 0x600);
	if (sbx_spec_parse(&b, wire, len, err, sizeof(err)) == -1)
		atf_tc_fail("parse: %s", err);
	ATF_CHECK_EQ(b.overlay_into, 1);
}

ATF_TC_WITHOUT_HEAD(default_spec);
ATF_TC_BODY(default_spec, tc)
{
	struct sbx_spec	 sp;
	struct stat	 st;
	char		 err[SBX_SPEC_ERRLEN];
	size_t		 i;
	int		 have_usr = 0;

	ATF_REQUIRE(sbx_spec_default(&sp) == 0);
	ATF_CHECK_EQ(sp.class, SBX_CLASS_COMMAND);
	ATF_CHECK_EQ(sp.net, SBX_NET_NONE);
	ATF_CHECK_EQ(sp.tmp_size, 64ULL << 20);
	ATF_CHECK_EQ(sp.timeout_ms, 600ULL * 1000);
	ATF_CHECK_EQ(sp.memory, 1ULL << 30);
	ATF_CHECK_EQ(sp.pids, 256);
	ATF_CHECK_EQ(sp.nofile, 1024);
	ATF_CHECK_EQ(sp.dev_shm, 0);
	ATF_CHECK(sp.workdir == NULL);
	for (i = 0; i < sp.nmounts; i++) {
		ATF_CHECK_EQ(sp.mounts[i].kind, SBX_MOUNT_RO);
		ATF_CHECK_STREQ(sp.mounts[i].src, sp.mounts[i].dst);
		ATF_CHECK_MSG(stat(sp.mounts[i].src, &st) == 0 &&
		    S_ISDIR(st.st_mode), "%s: bound but not a directory",
		    sp.mounts[i].src);
		if (strcmp(sp.mounts[i].dst, "/usr") == 0)
			have_usr = 1;
	}
	ATF_CHECK_MSG(have_usr, "/usr is not bound");
	/* Present directories of the list are all there. */
	if (stat("/etc/ssl/certs", &st) == 0) {
		for (i = 0; i < sp.nmounts; i++)
			if (strcmp(sp.mounts[i].dst, "/etc/ssl/certs") == 0)
				break;
		ATF_CHECK_MSG(i < sp.nmounts, "/etc/ssl/certs not bound");
	}
	/* Complete once the caller names a command. */
	ATF_CHECK_EQ(sbx_spec_check(&sp, err, sizeof(err)), -1);
	ATF_REQUIRE(sbx_spec_add_arg(&sp, "/usr/bin/true") == 0);
	if (sbx_spec_check(&sp, err, sizeof(err)) == -1)
		atf_tc_fail("default + argv refused: %s", err);
}

ATF_TC_WITHOUT_HEAD(builder_refusals);
ATF_TC_BODY(builder_refusals, tc)
{
	struct sbx_spec	 sp;
	char		 err[SBX_SPEC_ERRLEN];

#define FRESH()	do { full_spec(&sp); } while (0)
	FRESH(); sp.cpu_time = 8ULL * 24 * 3600;
	refuse_spec(&sp, "cpu_time 691200: outside 1..604800");
	FRESH(); sp.cpus_milli = 5;
	refuse_spec(&sp, "cpus_milli 5: outside 10..1024000");
	FRESH(); sp.output = (1ULL << 40) + 1;
	refuse_spec(&sp, "output 1099511627777: outside 1..1099511627776");
	FRESH(); sp.argc = 0; sp.argv[0] = NULL;
	refuse_spec(&sp, "argv: 0 arguments");
	/* argv[0] as typed: a bare name and a relative path are the shim's
	 * to resolve inside (payload.c); an empty one is nothing. */
	FRESH(); sp.argv[0] = "ls";
	if (sbx_spec_check(&sp, err, sizeof(err)) == -1)
		atf_tc_fail("bare argv[0] refused: %s", err);
	FRESH(); sp.argv[0] = "./run-tests.sh";
	if (sbx_spec_check(&sp, err, sizeof(err)) == -1)
		atf_tc_fail("relative argv[0] refused: %s", err);
	FRESH(); sp.argv[0] = "";
	refuse_spec(&sp, "argv[0]: empty");
	FRESH(); sp.argv[0] = "/usr/../bin/ls";
	refuse_spec(&sp, "'..'");
	FRESH(); sp.env[0] = "NOEQUALS";
	refuse_spec(&sp, "NAME=value");
	FRESH(); sp.env[0] = "=value";
	refuse_spec(&sp, "NAME=value");
	FRESH(); sp.env[0] = "1A=b";
	refuse_spec(&sp, "NAME=value");
	FRESH(); sp.env[0] = "A-B=c";
	refuse_spec(&sp, "[A-Za-z0-9_]");
	FRESH(); sp.env[1] = "LANG=C";
	refuse_spec(&sp, "duplicate of env[0]");
	FRESH(); sp.mounts[0].dst = "usr";
	refuse_spec(&sp, "not an absolute path");
	FRESH(); sp.mounts[0].dst = "/usr/./lib";
	refuse_spec(&sp, "'.' or '..'");
	FRESH(); sp.mounts[0].dst = "/a//b";
	refuse_spec(&sp, "empty component");
	FRESH(); sp.mounts[0].dst = "/a/";
	refuse_spec(&sp, "ends in '/'");
	FRESH(); sp.mounts[0].dst = "/";
	refuse_spec(&sp, "sandbox root");
	FRESH(); sp.mounts[0].dst = "/proc/sys";
	refuse_spec(&sp, "/proc or /dev");
	FRESH(); sp.mounts[0].dst = "/dev";
	refuse_spec(&sp, "/proc or /dev");
	FRESH(); sp.mounts[0].dst = "/tmp";
	refuse_spec(&sp, "tmp_size");
	FRESH(); sp.mounts[0].src = NULL;
	refuse_spec(&sp, "needs a source");
	FRESH(); sp.mounts[0].src = "relative";
	refuse_spec(&sp, "not an absolute path");
	FRESH(); sp.mounts[0].size = 4096;
	refuse_spec(&sp, "a bind has no size");
	/* noexec is for what a payload can write, not read-only binds. */
	FRESH(); sp.mounts[0].flags = SBX_MOUNT_F_NOEXEC;
	refuse_spec(&sp, "noexec is for rw binds and tmpfs");
	/* per-caller: only a read-write bind is someone's own directory. */
	FRESH(); sp.mounts[0].flags = SBX_MOUNT_F_PERCALLER;
	refuse_spec(&sp, "per-caller for rw binds");
	/* workdir same: the shim names the mount point, never the spec. */
	FRESH(); sp.workdir_same = 1;
	refuse_spec(&sp, "no path may be given");
	FRESH(); sp.workdir_same = 1; sp.workdir = NULL;
	if (sbx_spec_check(&sp, err, sizeof(err)) == -1)
		atf_tc_fail("workdir same refused: %s", err);
	if (sbx_spec_workdir_problem(&sp, "/home/u/proj", 1, err,
	    sizeof(err)) == -1)
		atf_tc_fail("workdir same /home/u/proj refused: %s", err);
	ATF_CHECK(sbx_spec_workdir_problem(&sp, "/usr/src/p", 1, err,
	    sizeof(err)) == -1 && strstr(err, "own /usr") != NULL);
	ATF_CHECK(sbx_spec_workdir_problem(&sp, "/etc", 1, err,
	    sizeof(err)) == -1 && strstr(err, "own /etc") != NULL);
	ATF_CHECK(sbx_spec_workdir_problem(&sp, "/sys/fs", 1, err,
	    sizeof(err)) == -1 && strstr(err, "own /sys") != NULL);
	ATF_CHECK(sbx_spec_workdir_problem(&sp, "/data", 1, err,
	    sizeof(err)) == -1 && strstr(err, "would hide mount") != NULL);
	ATF_CHECK(sbx_spec_workdir_problem(&sp, "/", 1, err,
	    sizeof(err)) == -1 && strstr(err, "sandbox root") != NULL);
	FRESH(); sp.mounts[1].flags = 0x80;
	refuse_spec(&sp, "flags 0x80");
	/* Merged-/usr links: relative, canonical, top level, nothing under. */
	FRESH(); sp.mounts[3].src = "/usr/lib64";
	refuse_spec(&sp, "relative to the root");
	FRESH(); sp.mounts[3].src = "usr/../../etc";
	refuse_spec(&sp, "'.' or '..'");
	FRESH(); sp.mounts[3].src = NULL;
	refuse_spec(&sp, "needs a target");
	FRESH(); sp.mounts[3].dst = "/a/lib64";
	refuse_spec(&sp, "top-level name");
	FRESH(); sp.mounts[3].size = 1;
	refuse_spec(&sp, "no size or flags");
	FRESH(); sp.mounts[2].dst = "/lib64/x"; sp.mounts[3].dst = "/lib64";
	sp.mounts[2].src = "/srv/cache";
	refuse_spec(&sp, "hide earlier mount");
	FRESH(); sp.workdir = "/lib64/w";
	refuse_spec(&sp, "lies inside");
	FRESH(); sp.mounts[1].src = "/x";
	refuse_spec(&sp, "a tmpfs has no source");
	FRESH(); sp.mounts[1].size = 0;
	refuse_spec(&sp, "tmpfs size 0");
	FRESH(); sp.mounts[0].kind = 9;
	refuse_spec(&sp, "unknown kind 9");
	FRESH(); sp.mounts[1].dst = "/usr";
	refuse_spec(&sp, "duplicate of mount 0");
	FRESH(); sp.mounts[1].dst = "/usr/local";
	refuse_spec(&sp, "lies inside bind mount 0");
	FRESH(); sp.mounts[0].dst = "/data/usr";
	refuse_spec(&sp, "would hide earlier mount 0");
	FRESH(); sp.workdir_fd = 0;
	refuse_spec(&sp, "no directory fd");
	FRESH(); sp.workdir = NULL;
	refuse_spec(&sp, "no mount point is named");
	FRESH(); sp.workdir = "/usr/src";
	refuse_spec(&sp, "lies inside bind mount 0");
	FRESH(); sp.workdir = "/data";
	refuse_spec(&sp, "would hide mount 1");
	FRESH(); sp.workdir = "/proc";
	refuse_spec(&sp, "/proc or /dev");
	FRESH(); sp.timeout_ms = 0;
	refuse_spec(&sp, "timeout_ms 0");
	FRESH(); sp.memory = 0;
	refuse_spec(&sp, "memory 0");
	FRESH(); sp.pids = 1;
	refuse_spec(&sp, "pids 1");
	FRESH(); sp.nofile = 3;
	refuse_spec(&sp, "nofile 3");
	FRESH(); sp.tmp_size = 0;
	refuse_spec(&sp, "tmp_size 0");
	FRESH(); sp.root_size = 0;
	refuse_spec(&sp, "root_size 0");
	FRESH(); sp.class = 4;
	refuse_spec(&sp, "class 4");
	FRESH(); sp.net = 3;
	refuse_spec(&sp, "net 3");
	/* full_spec is a provider's: no network, not even the proxy. */
	FRESH(); sp.net = SBX_NET_PROXY;
	refuse_spec(&sp, "net proxy: only for commands");
	FRESH(); sp.dev_shm = 2;
	refuse_spec(&sp, "dev_shm 2");
	FRESH(); sp.no_loopback = 2;
	refuse_spec(&sp, "no_loopback 2");
	/* The user name becomes a passwd line: no field or line breaks. */
	FRESH(); sp.user = "a:b";
	refuse_spec(&sp, "user \"a:b\"");
	FRESH(); sp.user = "a\nroot";
	refuse_spec(&sp, "user \"a\nroot\"");
	FRESH(); sp.user = "";
	refuse_spec(&sp, "user \"\"");
	FRESH(); sp.user = "-rf";
	refuse_spec(&sp, "user \"-rf\"");
	FRESH(); sp.user = "abcdefghijklmnopqrstuvwxyz0123456";
	refuse_spec(&sp, "user \"abcdefghijklmnopqrstuvwxyz0123456\"");
#undef FRESH

	/* A tmpfs may hold other mounts and the workdir. */
	full_spec(&sp);
	sp.workdir = "/data/work";
	if (sbx_spec_check(&sp, err, sizeof(err)) == -1)
		atf_tc_fail("nested in tmpfs refused: %s", err);
	/* So may /tmp, which the shim mounts first. */
	sp.workdir = "/tmp/work";
	if (sbx_spec_check(&sp, err, sizeof(err)) == -1)
		atf_tc_fail("workdir in /tmp refused: %s", err);
}

ATF_TC_WITHOUT_HEAD(builder_limits);
ATF_TC_BODY(builder_limits, tc)
{
	struct sbx_spec	 sp;
	size_t		 i;

	sbx_spec_init(&sp);
	for (i = 0; i < SBX_SPEC_MAXARGS; i++)
		ATF_REQUIRE(sbx_spec_add_arg(&sp, "/a") == 0);
	ATF_CHECK_EQ(sbx_spec_add_arg(&sp, "/a"), -1);
	ATF_CHECK_EQ(errno, E2BIG);
	ATF_CHECK(sp.argv[SBX_SPEC_MAXARGS] == NULL);
	for (i = 0; i < SBX_SPEC_MAXENV; i++)
		ATF_REQUIRE(sbx_spec_add_env(&sp, "A=1") == 0);
	ATF_CHECK_EQ(sbx_spec_add_env(&sp, "A=1"), -1);
	for (i = 0; i < SBX_SPEC_MAXMOUNTS; i++)
		ATF_REQUIRE(sbx_spec_add_mount(&sp, SBX_MOUNT_RO, "/a", "/a",
		    0) == 0);
	ATF_CHECK_EQ(sbx_spec_add_mount(&sp, SBX_MOUNT_RO, "/a", "/a", 0), -1);
	ATF_CHECK_EQ(sbx_spec_add_arg(&sp, NULL), -1);
}

ATF_TC_WITHOUT_HEAD(wire_header_refusals);
ATF_TC_BODY(wire_header_refusals, tc)
{
	struct sbx_spec	 sp;
	size_t		 len;

	full_spec(&sp);
	len = serialise(&sp);

#define MUT(off, val, want) do {					\
	memcpy(copy, wire, len);					\
	put32(copy, (off), (val));					\
	refuse_wire(copy, len, (want));					\
} while (0)
	MUT(OFF_MAGIC, 0x12345678, "magic");
	MUT(OFF_VERSION, 1, "version 1");	/* before overlay_t0 */
	MUT(OFF_VERSION, 3, "version 3");
	MUT(OFF_TOTAL, (uint32_t)len + 1, "header says");
	MUT(OFF_RSV0, 1, "reserved");
	MUT(OFF_RSV1, 1, "reserved");
	MUT(OFF_RSV2, 1, "reserved");
	MUT(OFF_FLAGS, 0x1000, "unknown flags");
	MUT(OFF_CLASS, 7, "class 7");
	MUT(OFF_ARGC, 0, "counts");
	MUT(OFF_ARGC, SBX_SPEC_MAXARGS + 1, "counts");
	/* First string: /usr/bin/node, 14 bytes with its NUL. */
	MUT(OFF_FIRSTSTR, SBX_SPEC_STRMAX + 1, "string limit");
	MUT(OFF_FIRSTSTR, 0x7fffffff, "exceeds");
	MUT(OFF_FIRSTSTR, 0, "argv 0: empty");
#undef MUT

	/* Embedded and missing NUL. */
	memcpy(copy, wire, len);
	copy[OFF_FIRSTSTR + 4 + 4] = '\0';
	refuse_wire(copy, len, "contains a NUL byte");
	memcpy(copy, wire, len);
	copy[OFF_FIRSTSTR + 4 + 13] = 'x';
	refuse_wire(copy, len, "not NUL-terminated");

	/* Trailing bytes, with the header telling the truth about them. */
	memcpy(copy, wire, len);
	copy[len] = 0;
	put32(copy, OFF_TOTAL, (uint32_t)len + 1);
	refuse_wire(copy, len + 1, "trailing");

	/* Over the wire limit, whatever it holds. */
	refuse_wire(copy, SBX_SPEC_WIRE_MAX + 1, "exceeds the limit");
}

ATF_TC_WITHOUT_HEAD(wire_truncations);
ATF_TC_BODY(wire_truncations, tc)
{
	struct sbx_spec	 sp, out;
	char		 err[SBX_SPEC_ERRLEN];
	size_t		 len, cut;

	full_spec(&sp);
	len = serialise(&sp);
	for (cut = 0; cut < len; cut++) {
		memcpy(copy, wire, cut);
		/* Keep the length field honest where it fits, so the
		 * string and count checks are what refuse it. */
		if (cut >= OFF_TOTAL + 4)
			put32(copy, OFF_TOTAL, (uint32_t)cut);
		ATF_CHECK_EQ_MSG(sbx_spec_parse(&out, copy, cut, err,
		    sizeof(err)), -1, "accepted %zu of %zu bytes", cut, len);
	}
	ATF_CHECK_EQ(sbx_spec_parse(&out, wire, len, err, sizeof(err)), 0);
}

/*
 * Flip every byte in turn: the parser must never crash, and whatever it
 * accepts must be canonical -- serialising the result gives back exactly
 * the accepted bytes, so no two wire forms mean the same sandbox.
 */
ATF_TC_WITHOUT_HEAD(wire_mutations);
ATF_TC_BODY(wire_mutations, tc)
{
	static uint8_t	 again[SBX_SPEC_WIRE_MAX];
	struct sbx_spec	 sp, out;
	char		 err[SBX_SPEC_ERRLEN];
	size_t		 len, i, len2;
	int		 accepted = 0, refused = 0, bit;

	full_spec(&sp);
	len = serialise(&sp);
	for (i = 0; i < len; i++) {
		for (bit = 0; bit < 8; bit++) {
			memcpy(copy, wire, len);
			copy[i] ^= (uint8_t)(1U << bit);
			if (sbx_spec_parse(&out, copy, len, err,
			    sizeof(err)) == -1) {
				refused++;
				continue;
			}
			accepted++;
			ATF_REQUIRE(sbx_spec_serialise(&out, again,
			    sizeof(again), &len2, err, sizeof(err)) == 0);
			ATF_CHECK_MSG(len2 == len &&
			    memcmp(again, copy, len) == 0,
			    "byte %zu bit %d: accepted form not canonical", i,
			    bit);
		}
	}
	/* Both outcomes happen: numbers and letters may change, structure
	 * may not. */
	ATF_CHECK(accepted > 0);
	ATF_CHECK(refused > 0);
}

ATF_TC_WITHOUT_HEAD(serialise_small_buffer);
ATF_TC_BODY(serialise_small_buffer, tc)
{
	struct sbx_spec	 sp;
	char		 err[SBX_SPEC_ERRLEN] = "";
	size_t		 len, need;

	full_spec(&sp);
	need = serialise(&sp);
	ATF_CHECK_EQ(sbx_spec_serialise(&sp, wire, need - 1, &len, err,
	    sizeof(err)), -1);
	ATF_CHECK(strstr(err, "does not fit") != NULL);
	ATF_CHECK_EQ(sbx_spec_serialise(&sp, wire, 8, &len, err,
	    sizeof(err)), -1);
	ATF_CHECK_EQ(sbx_spec_serialise(&sp, wire, need, &len, err,
	    sizeof(err)), 0);
	ATF_CHECK_EQ(len, need);
}

ATF_TC_WITHOUT_HEAD(status_records);
ATF_TC_BODY(status_records, tc)
{
	struct sbx_status	 st;

	memset(&st, 0, sizeof(st));
	st.type = SBX_STATUS_EXIT;
	st.wstatus = 3 << 8;		/* exited 3 */
	st.limits = SBX_LIMIT_RLIMIT;
	ATF_CHECK_EQ(sbx_status_check(&st), 0);
	st.wstatus = SIGKILL;		/* signaled 9 */
	ATF_CHECK_EQ(sbx_status_check(&st), 0);
	st.wstatus = 0x137f;		/* stopped: not an end */
	ATF_CHECK_EQ(sbx_status_check(&st), -1);
	st.wstatus = 0;
	st.limits = 0x10;
	ATF_CHECK_EQ(sbx_status_check(&st), -1);
	/* The launcher's own bits never come from the shim. */
	st.limits = SBX_LIMIT_CPU;
	ATF_CHECK_EQ(sbx_status_check(&st), -1);
	/* pid 1 itself ends a run past its output limit. */
	st.limits = SBX_LIMIT_RLIMIT | SBX_LIMIT_OUTPUT;
	ATF_CHECK_EQ(sbx_status_check(&st), 0);
	/* An overlay's full upper layer is the shim's to say. */
	st.limits = SBX_LIMIT_RLIMIT | SBX_LIMIT_CHANGES;
	ATF_CHECK_EQ(sbx_status_check(&st), 0);
	st.limits = SBX_LIMIT_RLIMIT;
	st.utime_us = 1500000;
	st.maxrss_kb = 4096;
	ATF_CHECK_EQ(sbx_status_check(&st), 0);
	/* The relay's figures, and the errno that ended one early. */
	st.tasks = 6;
	st.out_bytes = 300007;
	st.err_bytes = 70001;
	st.out_error = EPIPE;
	ATF_CHECK_EQ(sbx_status_check(&st), 0);
	st.err_error = -1;
	ATF_CHECK_EQ(sbx_status_check(&st), -1);
	st.err_error = 0;
	st.out_error = -32;
	ATF_CHECK_EQ(sbx_status_check(&st), -1);
	st.out_error = 0;
	st.limits = 0;
	st.type = 7;
	ATF_CHECK_EQ(sbx_status_check(&st), -1);

	memset(&st, 0, sizeof(st));
	st.type = SBX_STATUS_SETUP;
	st.error = ENOENT;
	ATF_CHECK_EQ(sbx_status_check(&st), -1);	/* no step */
	strlcpy(st.step, "bind /usr", sizeof(st.step));
	ATF_CHECK_EQ(sbx_status_check(&st), 0);
	memset(st.step, 'a', sizeof(st.step));		/* unterminated */
	ATF_CHECK_EQ(sbx_status_check(&st), -1);
	strlcpy(st.step, "x", sizeof(st.step));
	st.error = -1;
	ATF_CHECK_EQ(sbx_status_check(&st), -1);

	ATF_CHECK_STREQ(sbx_limit_name(SBX_LIMIT_CPU), "cpu");
	ATF_CHECK_STREQ(sbx_limit_name(SBX_LIMIT_FSIZE | SBX_LIMIT_CPU),
	    "fsize");
	ATF_CHECK(sbx_limit_name(SBX_LIMIT_CPUS) == NULL);
	ATF_CHECK_STREQ(sbx_errname(ENOENT), "ENOENT");
	ATF_CHECK_STREQ(sbx_errname(EROFS), "EROFS");
	ATF_CHECK_STREQ(sbx_errname(9999), "errno 9999");
}

/* The fuzz target's seeds are specs the parser accepts: a seed the wire
 * form has outgrown only teaches the fuzzer about the truncation error
 * (they had, by the overlay size, until issue 23's T0 made it noticed). */
ATF_TC_WITHOUT_HEAD(corpus_seeds_parse);
ATF_TC_BODY(corpus_seeds_parse, tc)
{
	static uint8_t	 buf[SBX_SPEC_WIRE_MAX];
	struct sbx_spec	 sp;
	struct dirent	*de;
	DIR		*d;
	FILE		*fp;
	char		 dir[PATH_MAX], path[PATH_MAX + 256];
	char		 err[SBX_SPEC_ERRLEN];
	size_t		 n;
	int		 seeds = 0;

	snprintf(dir, sizeof(dir), "%s/../top/regress/fuzz/corpus/fuzz_spec",
	    atf_tc_get_config_var(tc, "srcdir"));
	if ((d = opendir(dir)) == NULL)
		atf_tc_fail("%s: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		ATF_REQUIRE((fp = fopen(path, "rb")) != NULL);
		n = fread(buf, 1, sizeof(buf), fp);
		fclose(fp);
		ATF_CHECK_MSG(sbx_spec_parse(&sp, buf, n, err,
		    sizeof(err)) == 0, "seed %s: %s", de->d_name, err);
		seeds++;
	}
	closedir(d);
	ATF_CHECK_MSG(seeds >= 7, "%d seeds in %s", seeds, dir);
}

/* key K's bytes for a spec made by base() then changed by f. */
static size_t
warm_key_of(void (*f)(struct sbx_spec *), uint8_t *buf, size_t len)
{
	struct sbx_spec	 sp;
	char		 err[SBX_SPEC_ERRLEN];
	size_t		 n;

	ATF_REQUIRE(sbx_spec_default(&sp) == 0);
	ATF_REQUIRE(sbx_spec_add_arg(&sp, "/bin/true") == 0);
	ATF_REQUIRE(sbx_spec_add_env(&sp, "PATH=/usr/bin") == 0);
	ATF_REQUIRE(sbx_spec_add_env(&sp, "HOME=/home/a") == 0);
	sp.timeout_ms = 5000;
	sp.output = 1 << 20;
	if (f != NULL)
		f(&sp);
	ATF_REQUIRE_MSG(sbx_spec_warm_key(&sp, buf, len, &n, err,
	    sizeof(err)) == 0, "%s", err);
	return n;
}

static void run_args(struct sbx_spec *sp) { sp->argv[0] = "/bin/false";
    ATF_REQUIRE(sbx_spec_add_arg(sp, "x") == 0); }
static void run_env(struct sbx_spec *sp) { sp->env[0] = "PATH=/bin";
    ATF_REQUIRE(sbx_spec_add_env(sp, "TOKEN=secret") == 0); }
static void run_limits(struct sbx_spec *sp) { sp->timeout_ms = 1;
    sp->output = 7; }
static void run_warm(struct sbx_spec *sp) { sp->warm = 1; }
static void set_home(struct sbx_spec *sp) { sp->env[1] = "HOME=/home/b"; }
static void set_mount(struct sbx_spec *sp) { ATF_REQUIRE(
    sbx_spec_add_mount(sp, SBX_MOUNT_TMPFS, NULL, "/x", 1 << 20) == 0); }
static void set_memory(struct sbx_spec *sp) { sp->memory += 4096; }
static void set_user(struct sbx_spec *sp) { sp->user = "alice"; }
static void set_net(struct sbx_spec *sp) { sp->net = SBX_NET_PROXY; }
static void set_ptrace(struct sbx_spec *sp) { sp->ptrace = 1; }

/*
 * The warm key holds everything a sandbox's set-up reads and nothing of
 * the run alone: the same for another argv, environment (but HOME,
 * which goes into /etc/passwd), deadline or output cap, different for
 * any mount, limit, user, network or filter change.
 */
ATF_TC_WITHOUT_HEAD(warm_key);
ATF_TC_BODY(warm_key, tc)
{
	static void (*const same[])(struct sbx_spec *) = { run_args,
	    run_env, run_limits, run_warm };
	static void (*const other[])(struct sbx_spec *) = { set_home,
	    set_mount, set_memory, set_user, set_net, set_ptrace };
	static uint8_t	 a[SBX_SPEC_WIRE_MAX], b[SBX_SPEC_WIRE_MAX];
	struct sbx_spec	 sp;
	char		 err[SBX_SPEC_ERRLEN];
	size_t		 la, lb, i;

	(void)tc;
	la = warm_key_of(NULL, a, sizeof(a));
	for (i = 0; i < nitems(same); i++) {
		lb = warm_key_of(same[i], b, sizeof(b));
		ATF_CHECK_MSG(la == lb && memcmp(a, b, la) == 0,
		    "change %zu of the run alone changed the key", i);
	}
	for (i = 0; i < nitems(other); i++) {
		lb = warm_key_of(other[i], b, sizeof(b));
		ATF_CHECK_MSG(la != lb || memcmp(a, b, la) != 0,
		    "set-up change %zu left the key the same", i);
	}
	/* Nothing of the run's own in it: no secret value, no argv. */
	lb = warm_key_of(run_env, b, sizeof(b));
	ATF_CHECK(memmem(b, lb, "secret", 6) == NULL);
	ATF_CHECK(memmem(b, lb, "/bin/true", 9) == NULL);
	/* The key parses: it is what a warm sandbox is built from. */
	ATF_CHECK_MSG(sbx_spec_parse(&sp, a, la, err, sizeof(err)) == 0,
	    "%s", err);
	/* A warm spec runs a command only, with no workdir, overlay or
	 * pty: its set-up cannot depend on the run. */
	ATF_REQUIRE(sbx_spec_default(&sp) == 0);
	ATF_REQUIRE(sbx_spec_add_arg(&sp, "/bin/true") == 0);
	sp.warm = 1;
	ATF_CHECK(sbx_spec_check(&sp, err, sizeof(err)) == 0);
	sp.pty = 1;
	ATF_CHECK(sbx_spec_check(&sp, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "warm") != NULL);
	sp.pty = 0;
	sp.class = SBX_CLASS_PROVIDER;
	ATF_CHECK(sbx_spec_check(&sp, err, sizeof(err)) == -1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, warm_key);
	ATF_TP_ADD_TC(tp, roundtrip);
	ATF_TP_ADD_TC(tp, pty);
	ATF_TP_ADD_TC(tp, overlay);
	ATF_TP_ADD_TC(tp, default_spec);
	ATF_TP_ADD_TC(tp, builder_refusals);
	ATF_TP_ADD_TC(tp, builder_limits);
	ATF_TP_ADD_TC(tp, wire_header_refusals);
	ATF_TP_ADD_TC(tp, wire_truncations);
	ATF_TP_ADD_TC(tp, wire_mutations);
	ATF_TP_ADD_TC(tp, serialise_small_buffer);
	ATF_TP_ADD_TC(tp, status_records);
	ATF_TP_ADD_TC(tp, corpus_seeds_parse);
	return atf_no_error();
}
