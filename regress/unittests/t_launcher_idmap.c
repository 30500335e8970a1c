/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_launcher_idmap: the launcher's mapper refuses on its own (issue
 * 20).  Every rule of idmap_policy_check, the one decision between a
 * compromised front and a host id, with a passwd file of the test's own
 * making.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "spec.h"
#include "launcher/launcher.h"

#define SELF_UID	997	/* the service user, as the mapper sees it */
#define SELF_GID	996

static char	 passwd[64];
static char	 why[SANDBOX_ERRLEN];

static void
policy(struct idmap_policy *p)
{
	FILE	*f;
	int	 fd;

	memset(p, 0, sizeof(*p));
	p->version = IDMAP_POLICY_VERSION;
	p->caller_min_uid = 1000;
	p->range_set = 1;
	p->range_start = 200000;
	p->range_count = 64;
	p->caller_set = 1;
	p->nallow = 1;
	p->allow_uid[0] = 990;		/* a system user named by "allow uid" */
	strlcpy(passwd, "/tmp/t_launcher_idmap.XXXXXX", sizeof(passwd));
	ATF_REQUIRE((fd = mkstemp(passwd)) != -1);
	ATF_REQUIRE((f = fdopen(fd, "w")) != NULL);
	fprintf(f, "root:x:0:0:root:/root:/bin/sh\n"
	    "agent:x:990:42:agent:/:/bin/sh\n"
	    "alice:x:1001:100:alice:/home/alice:/bin/sh\n"
	    "bob:x:1002:1002:bob:/home/bob:/bin/sh\n");
	ATF_REQUIRE(fclose(f) == 0);
}

static int
check(const struct idmap_policy *p, uint32_t identity, uid_t uid, gid_t gid)
{
	why[0] = '\0';
	return idmap_policy_check(p, identity, uid, gid, SELF_UID, SELF_GID,
	    passwd, why, sizeof(why));
}

#define REFUSED(p, i, u, g, word) do {					\
	ATF_CHECK_EQ_MSG(check(p, i, u, g), -1, "%u/%u accepted",	\
	    (unsigned)(u), (unsigned)(g));				\
	ATF_CHECK_MSG(strstr(why, word) != NULL, "%u/%u: \"%s\" lacks "	\
	    "\"%s\"", (unsigned)(u), (unsigned)(g), why, word);		\
} while (0)
#define ACCEPTED(p, i, u, g)						\
	ATF_CHECK_EQ_MSG(check(p, i, u, g), 0, "%u/%u refused: %s",	\
	    (unsigned)(u), (unsigned)(g), why)

ATF_TC_WITHOUT_HEAD(host_root);
ATF_TC_BODY(host_root, tc)
{
	struct idmap_policy	 p;
	uint32_t		 i;

	(void)tc;
	policy(&p);
	/* In every identity, whatever the rest of the policy says. */
	p.sandbox_user_uid = 0;
	p.caller_min_uid = 0;
	for (i = SBX_IDENTITY_SERVICE; i <= SBX_IDENTITY_RANGE; i++) {
		REFUSED(&p, i, 0, 1001, "host root");
		REFUSED(&p, i, 1001, 0, "host root");
		REFUSED(&p, i, (uid_t)-1, 1001, "-1");
		REFUSED(&p, i, 1001, (gid_t)-1, "-1");
	}
	unlink(passwd);
}

ATF_TC_WITHOUT_HEAD(caller_min_uid);
ATF_TC_BODY(caller_min_uid, tc)
{
	struct idmap_policy	 p;

	(void)tc;
	policy(&p);
	REFUSED(&p, SBX_IDENTITY_CALLER, 999, 1999, "caller-min-uid");
	REFUSED(&p, SBX_IDENTITY_CALLER, 1, 1001, "caller-min-uid");
	ACCEPTED(&p, SBX_IDENTITY_CALLER, 1000, 1000);
	/* "allow uid" 990, with its own primary group 42 */
	ACCEPTED(&p, SBX_IDENTITY_CALLER, 990, 42);
	/* Not allowed any more after a reload drops the line. */
	p.nallow = 0;
	REFUSED(&p, SBX_IDENTITY_CALLER, 990, 42, "allow uid");
	unlink(passwd);
}

ATF_TC_WITHOUT_HEAD(system_gid);
ATF_TC_BODY(system_gid, tc)
{
	struct idmap_policy	 p;

	(void)tc;
	policy(&p);
	/* alice's primary group is 100 (users): hers to keep */
	ACCEPTED(&p, SBX_IDENTITY_CALLER, 1001, 100);
	/* but not shadow (42), disk (6), or bob's... */
	REFUSED(&p, SBX_IDENTITY_CALLER, 1001, 42, "primary group");
	REFUSED(&p, SBX_IDENTITY_CALLER, 1001, 6, "primary group");
	REFUSED(&p, SBX_IDENTITY_CALLER, 1002, 100, "primary group");
	/* a uid passwd does not name has no system group at all */
	REFUSED(&p, SBX_IDENTITY_CALLER, 5000, 100, "primary group");
	ACCEPTED(&p, SBX_IDENTITY_CALLER, 5000, 5000);
	/* 1000 and up are not system groups */
	ACCEPTED(&p, SBX_IDENTITY_CALLER, 1001, 1002);
	unlink(passwd);
}

ATF_TC_WITHOUT_HEAD(range);
ATF_TC_BODY(range, tc)
{
	struct idmap_policy	 p;

	(void)tc;
	policy(&p);
	ACCEPTED(&p, SBX_IDENTITY_RANGE, 200000, 200000);
	ACCEPTED(&p, SBX_IDENTITY_RANGE, 200063, 200063);
	REFUSED(&p, SBX_IDENTITY_RANGE, 200064, 200064, "outside");
	REFUSED(&p, SBX_IDENTITY_RANGE, 199999, 199999, "outside");
	REFUSED(&p, SBX_IDENTITY_RANGE, 1001, 100, "outside");
	REFUSED(&p, SBX_IDENTITY_RANGE, 200001, 100, "not range uid");
	p.range_set = 0;
	REFUSED(&p, SBX_IDENTITY_RANGE, 200000, 200000, "outside");
	unlink(passwd);
}

ATF_TC_WITHOUT_HEAD(service);
ATF_TC_BODY(service, tc)
{
	struct idmap_policy	 p;

	(void)tc;
	policy(&p);
	/* its own pair, which the kernel lets any process map */
	ACCEPTED(&p, SBX_IDENTITY_SERVICE, SELF_UID, SELF_GID);
	REFUSED(&p, SBX_IDENTITY_SERVICE, SELF_UID, 100, "own pair");
	REFUSED(&p, SBX_IDENTITY_SERVICE, 1001, 100, "own pair");
	/* sandbox-user: that pair, below caller-min-uid, and no other --
	 * not even the service's own any more */
	p.sandbox_user_uid = 995;
	p.sandbox_user_gid = 994;
	ACCEPTED(&p, SBX_IDENTITY_SERVICE, 995, 994);
	REFUSED(&p, SBX_IDENTITY_SERVICE, SELF_UID, SELF_GID, "sandbox-user");
	REFUSED(&p, SBX_IDENTITY_SERVICE, 995, 42, "sandbox-user");
	REFUSED(&p, SBX_IDENTITY_SERVICE, 990, 42, "sandbox-user");
	/* ... and not as a caller either */
	REFUSED(&p, SBX_IDENTITY_CALLER, 995, 994, "caller-min-uid");
	REFUSED(&p, 7, 1001, 100, "identity 7");
	unlink(passwd);
}

/*
 * A service user the caller rules would admit (nobody, 65534, above
 * caller-min-uid; or inside the range): with a sandbox-user set, a
 * compromised front naming it as a caller or a range id gets nothing.
 */
ATF_TC_WITHOUT_HEAD(service_as_caller);
ATF_TC_BODY(service_as_caller, tc)
{
	struct idmap_policy	 p;

	(void)tc;
	policy(&p);
	p.sandbox_user_uid = 995;
	p.sandbox_user_gid = 994;
	p.range_start = 65500;
	p.range_count = 64;
	why[0] = '\0';
	ATF_CHECK_EQ(idmap_policy_check(&p, SBX_IDENTITY_CALLER, 65534,
	    65534, 65534, 65534, passwd, why, sizeof(why)), -1);
	ATF_CHECK_MSG(strstr(why, "service's own") != NULL, "%s", why);
	/* its group alone, with a caller's uid */
	ATF_CHECK_EQ(idmap_policy_check(&p, SBX_IDENTITY_CALLER, 1002,
	    65534, 65534, 65534, passwd, why, sizeof(why)), -1);
	ATF_CHECK_EQ(idmap_policy_check(&p, SBX_IDENTITY_RANGE, 65534,
	    65534, 65534, 65534, passwd, why, sizeof(why)), -1);
	ATF_CHECK_MSG(strstr(why, "service's own") != NULL, "%s", why);
	/* another caller and another range id are still fine */
	ATF_CHECK_EQ_MSG(idmap_policy_check(&p, SBX_IDENTITY_CALLER, 1002,
	    1002, 65534, 65534, passwd, why, sizeof(why)), 0, "%s", why);
	ATF_CHECK_EQ_MSG(idmap_policy_check(&p, SBX_IDENTITY_RANGE, 65533,
	    65533, 65534, 65534, passwd, why, sizeof(why)), 0, "%s", why);
	unlink(passwd);
}

/*
 * The front runs as the service user, which owns every sandbox's user
 * namespace (so it holds CAP_SYS_PTRACE in each) and is the spawner's
 * own uid: under its table (launcher.priv, which allows openat, lseek and
 * write) it must still not open another process's memory, or it could
 * rewrite the spawner or any payload of any caller.  Run as root, which
 * could open it without the table's Landlock domain.
 */
/*
 * A configuration without any profile of identity caller: the monitor
 * never asks for a caller's map, so a compromised front asking for one
 * (any uid at or above caller-min-uid would pass the other rules) is
 * refused.
 */
ATF_TC_WITHOUT_HEAD(no_caller_profile);
ATF_TC_BODY(no_caller_profile, tc)
{
	struct idmap_policy	 p;

	(void)tc;
	policy(&p);
	ACCEPTED(&p, SBX_IDENTITY_CALLER, 1002, 1002);
	p.caller_set = 0;
	REFUSED(&p, SBX_IDENTITY_CALLER, 1002, 1002, "no profile");
	REFUSED(&p, SBX_IDENTITY_CALLER, 990, 42, "no profile");
	/* the service's own pair and range ids do not depend on it */
	ACCEPTED(&p, SBX_IDENTITY_SERVICE, SELF_UID, SELF_GID);
	ACCEPTED(&p, SBX_IDENTITY_RANGE, 200001, 200001);
	unlink(passwd);
}

ATF_TC_WITHOUT_HEAD(front_no_ptrace);
ATF_TC_BODY(front_no_ptrace, tc)
{
	char	 path[64], err[256];
	pid_t	 victim, front;
	int	 st, fd;

	(void)tc;
	ATF_REQUIRE((victim = fork()) != -1);
	if (victim == 0) {
		pause();
		_exit(0);
	}
	snprintf(path, sizeof(path), "/proc/%ld/mem", (long)victim);
	ATF_REQUIRE((front = fork()) != -1);
	if (front == 0) {
		if (priv_apply(&priv_table_launcher, err, sizeof(err)) == -1)
			_exit(3);
		if ((fd = open(path, O_RDWR | O_CLOEXEC)) != -1)
			_exit(1);
		_exit(errno == EPERM || errno == EACCES ? 0 : 2);
	}
	ATF_REQUIRE(waitpid(front, &st, 0) == front);
	kill(victim, SIGKILL);
	(void)waitpid(victim, NULL, 0);
	ATF_REQUIRE_MSG(WIFEXITED(st), "the front's table killed it "
	    "(status %#x)", st);
	ATF_CHECK_MSG(WEXITSTATUS(st) != 3, "priv_apply failed");
	ATF_CHECK_MSG(WEXITSTATUS(st) != 1, "under launcher.priv, %s opened "
	    "for writing", path);
	ATF_CHECK_MSG(WEXITSTATUS(st) != 2, "%s: unexpected error", path);
}

/*
 * The mapper itself, driven by a test process playing the compromised
 * front (which, unlike the real one, can fork and unshare to make
 * targets): it maps a fresh unmapped child of the front as policy allows,
 * and refuses a child already mapped, a pid whose pidfd is another
 * process's, a process with no user namespace of its own (the spawner),
 * a reaped child's pid, and host root.  As root only: the mapper holds
 * CAP_SETUID and CAP_SETGID.
 */
static pid_t
target(int *pidfd)
{
	pid_t	 pid;
	int	 p[2];
	char	 c;

	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		close(p[0]);
		if (unshare(CLONE_NEWUSER) == -1)
			_exit(1);
		if (write(p[1], "u", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	ATF_REQUIRE(read(p[0], &c, 1) == 1);
	close(p[0]);
	ATF_REQUIRE((*pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) != -1);
	return pid;
}

ATF_TC_WITHOUT_HEAD(mapper_targets);
ATF_TC_BODY(mapper_targets, tc)
{
	struct idmap_policy	 p;
	char			 err[SANDBOX_ERRLEN], path[64], map[64];
	pid_t			 a, b, c, spawner;
	int			 sv[2], fa, fb, fc, fs, fd, i, reused = 0, tries;
	int			 setter[2], setack[2];
	pid_t			 helper;
	ssize_t			 n;

	(void)tc;
	if (geteuid() != 0)
		atf_tc_skip("the mapper exists only in a service started as "
		    "root");
	policy(&p);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv) == 0);
	/* The monitor's end well away from descriptor 4. */
	ATF_REQUIRE((fd = fcntl(sv[1], F_DUPFD_CLOEXEC, 100)) != -1);
	sv[1] = fd;
	ATF_REQUIRE(dup2(sv[0], LAUNCH_POLICY_FD) == LAUNCH_POLICY_FD);
	ATF_REQUIRE(write(sv[1], &p, sizeof(p)) == (ssize_t)sizeof(p));
	/* Writing ns_last_pid takes CAP_SYS_ADMIN, which split_start drops
	 * here: a helper forked first keeps it. */
	ATF_REQUIRE(pipe(setter) == 0 && pipe(setack) == 0);
	ATF_REQUIRE((helper = fork()) != -1);
	if (helper == 0) {
		long	 want;
		FILE	*f;

		while (read(setter[0], &want, sizeof(want)) == sizeof(want)) {
			if ((f = fopen("/proc/sys/kernel/ns_last_pid",
			    "w")) == NULL)
				_exit(1);
			fprintf(f, "%ld", want);
			if (fclose(f) != 0 || write(setack[1], "y", 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	split_start();
	ATF_REQUIRE(split_mapper() != -1);
	a = target(&fa);
	b = target(&fb);
	c = target(&fc);

	/* host root, whatever the target */
	ATF_CHECK(mapper_request(a, fa, SBX_IDENTITY_CALLER, 1000, 1000, 0, 0,
	    err, sizeof(err)) == -1);
	/* b's pid with a's pidfd */
	ATF_CHECK(mapper_request(b, fa, SBX_IDENTITY_CALLER, 1000, 1000, 1001,
	    1001, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "not its pidfd") != NULL, "%s", err);
	/* the spawner: the front's child, but the host's user namespace.
	 * It names itself after the fork (split.c: part_init), so look
	 * again for a while until it has. */
	spawner = 0;
	for (tries = 0; spawner == 0 && tries < 500; tries++) {
		char	 line[256];
		FILE	*f;

		if (tries > 0)
			usleep(10000);

		snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children",
		    (long)getpid(), (long)getpid());
		ATF_REQUIRE((f = fopen(path, "r")) != NULL);
		if (fgets(line, sizeof(line), f) != NULL) {
			char	*t, *sp;

			for (t = strtok_r(line, " \n", &sp); t != NULL;
			    t = strtok_r(NULL, " \n", &sp)) {
				char	 comm[64] = "", cp[64];
				FILE	*g;

				snprintf(cp, sizeof(cp), "/proc/%s/comm", t);
				if ((g = fopen(cp, "r")) == NULL)
					continue;
				if (fgets(comm, sizeof(comm), g) != NULL &&
				    strncmp(comm, "sbx-spawner", 11) == 0)
					spawner = (pid_t)atol(t);
				fclose(g);
			}
		}
		fclose(f);
	}
	ATF_REQUIRE(spawner > 0);
	ATF_REQUIRE((fs = (int)syscall(SYS_pidfd_open, spawner, 0)) != -1);
	ATF_CHECK(mapper_request(spawner, fs, SBX_IDENTITY_CALLER, 1000, 1000,
	    1001, 1001, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "already mapped") != NULL, "%s", err);
	/* a reaped child: its pid and pidfd name no process any more */
	kill(c, SIGKILL);
	ATF_REQUIRE(waitpid(c, NULL, 0) == c);
	ATF_CHECK(mapper_request(c, fc, SBX_IDENTITY_CALLER, 1000, 1000, 1001,
	    1001, err, sizeof(err)) == -1);
	/* ... and when a fresh, mappable child takes the reaped one's pid
	 * (ns_last_pid; a few tries, other processes fork too), the stale
	 * pidfd still does not name it. */
	for (i = 0; i < 20; i++) {
		pid_t	 d;
		int	 fdd;

		long	 want = (long)c - 1;
		char	 ack;

		if (write(setter[1], &want, sizeof(want)) != sizeof(want) ||
		    read(setack[0], &ack, 1) != 1 || ack != 'y')
			break;
		d = target(&fdd);
		if (d == c) {
			ATF_CHECK(mapper_request(d, fc, SBX_IDENTITY_CALLER,
			    1000, 1000, 1001, 1001, err, sizeof(err)) == -1);
			ATF_CHECK_MSG(strstr(err, "not its pidfd") != NULL,
			    "%s", err);
			reused = 1;
		}
		kill(d, SIGKILL);
		(void)waitpid(d, NULL, 0);
		close(fdd);
		if (reused)
			break;
	}
	if (!reused)
		fprintf(stderr, "pid %ld was not reused: that case untried\n",
		    (long)c);
	kill(helper, SIGKILL);
	(void)waitpid(helper, NULL, 0);
	/* a fresh child, as the policy allows: mapped, once */
	ATF_CHECK_MSG(mapper_request(a, fa, SBX_IDENTITY_CALLER, 1000, 1000,
	    1001, 1001, err, sizeof(err)) == 0, "%s", err);
	snprintf(path, sizeof(path), "/proc/%ld/uid_map", (long)a);
	ATF_REQUIRE((fd = open(path, O_RDONLY)) != -1);
	ATF_REQUIRE((n = read(fd, map, sizeof(map) - 1)) > 0);
	map[n] = '\0';
	close(fd);
	ATF_CHECK_MSG(strstr(map, "1000") != NULL && strstr(map, "1001") !=
	    NULL, "uid_map: %s", map);
	ATF_CHECK(mapper_request(a, fa, SBX_IDENTITY_CALLER, 1000, 1000, 1002,
	    1002, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "already mapped") != NULL, "%s", err);
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	(void)waitpid(a, NULL, 0);
	(void)waitpid(b, NULL, 0);
	unlink(passwd);
}

/*
 * In a service started as root (a mapper exists) the spawner refuses a
 * request that would leave pid 1 the service's supplementary groups:
 * its own gid, which the mapper refuses as a caller's, would otherwise
 * reach a sandbox mapped to another user through a compromised front.
 */
ATF_TC_WITHOUT_HEAD(spawner_drops_groups);
ATF_TC_BODY(spawner_drops_groups, tc)
{
	struct idmap_policy	 p;
	struct sbx_spec		 sp;
	struct spawn_args	 a;
	int			 sv[2], st[2], life[2], fd, pidfd, mntns, i;
	pid_t			 pid;

	(void)tc;
	if (geteuid() != 0)
		atf_tc_skip("the mapper exists only in a service started as "
		    "root");
	policy(&p);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv) == 0);
	ATF_REQUIRE((fd = fcntl(sv[1], F_DUPFD_CLOEXEC, 100)) != -1);
	sv[1] = fd;
	ATF_REQUIRE(dup2(sv[0], LAUNCH_POLICY_FD) == LAUNCH_POLICY_FD);
	ATF_REQUIRE(write(sv[1], &p, sizeof(p)) == (ssize_t)sizeof(p));
	split_start();
	ATF_REQUIRE(split_mapper() != -1 && split_spawner() != -1);

	ATF_REQUIRE(sbx_spec_default(&sp) == 0);
	ATF_REQUIRE(sbx_spec_add_arg(&sp, "/bin/true") == 0);
	ATF_REQUIRE(pipe2(st, O_CLOEXEC) == 0 && pipe2(life, O_CLOEXEC) == 0);
	memset(&a, 0, sizeof(a));
	for (i = 0; i < SBX_SHIM_NFDS; i++)
		a.fds[i] = -1;
	a.fds[SBX_SHIM_FD_STATUS] = st[1];
	a.fds[SBX_SHIM_FD_LIFELINE] = life[0];
	a.lifeline_w = -1;
	a.uid = a.gid = 1000;
	a.spec = &sp;
	a.dropgroups = 0;
	pid = spawner_request(&a, &pidfd, &mntns);
	if (pid > 0) {
		kill(pid, SIGKILL);
		(void)waitpid(pid, NULL, 0);
	}
	ATF_CHECK_MSG(pid == -1 && errno == EPERM, "a sandbox keeping the "
	    "service's groups was cloned (pid %ld)", (long)pid);
	/* the same request with the groups dropped is cloned */
	a.dropgroups = 1;
	pid = spawner_request(&a, &pidfd, &mntns);
	ATF_CHECK_MSG(pid > 0, "errno %d", errno);
	if (pid > 0) {
		kill(pid, SIGKILL);
		(void)waitpid(pid, NULL, 0);
	}
	unlink(passwd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, host_root);
	ATF_TP_ADD_TC(tp, caller_min_uid);
	ATF_TP_ADD_TC(tp, system_gid);
	ATF_TP_ADD_TC(tp, range);
	ATF_TP_ADD_TC(tp, service);
	ATF_TP_ADD_TC(tp, service_as_caller);
	ATF_TP_ADD_TC(tp, front_no_ptrace);
	ATF_TP_ADD_TC(tp, no_caller_profile);
	/* The mapper exists only in a service started as root. */
	if (geteuid() == 0) {
		ATF_TP_ADD_TC(tp, mapper_targets);
		ATF_TP_ADD_TC(tp, spawner_drops_groups);
	}
	return atf_no_error();
}
