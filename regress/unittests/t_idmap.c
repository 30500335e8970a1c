/*
 * t_idmap: the launcher's mapper refuses on its own (issue 20).  Every
 * rule of idmap_policy_check, the one decision between a compromised
 * front and a host id, with a passwd file of the test's own making.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
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
	strlcpy(passwd, "/tmp/t_idmap.XXXXXX", sizeof(passwd));
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
	return atf_no_error();
}
