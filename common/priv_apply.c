/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * priv_apply.c: put the calling process under a privilege table.
 *
 * Order (sbx.priv(5)): compile the seccomp filter (so a bad table fails
 * before anything changed), root, user, rlimits, no_new_privs, Landlock,
 * and loading the filter last.  Each step that cannot be done fails the
 * whole apply with a message naming the step and what is missing; the
 * caller fatalx()es.  Call it before creating threads: unshare(2) of a
 * user namespace refuses multi-threaded processes.
 */
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <linux/capability.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

/*
 * make valgrind (SBX_VALGRIND) only: valgrind 3.19 runs neither seccomp(2)
 * nor the Landlock calls (it answers ENOSYS), so a program under valgrind
 * skips those two steps of its table and says so; everything else of the
 * table applies.  The same build run without valgrind applies all of it.
 * Release and sanitizer builds compile none of this.
 */
#ifdef SBX_VALGRIND
#include <valgrind/valgrind.h>
#define UNDER_VALGRIND()	(RUNNING_ON_VALGRIND != 0)
#else
#define UNDER_VALGRIND()	0
#endif

/* Where the empty root is mounted before pivot_root(2) moves it to "/";
 * it is covered only inside the new mount namespace. */
#define EMPTY_ROOT_MNT	"/tmp"

static int	aerr(char *, size_t, const struct priv_table *, const char *,
		    ...) SBX_PRINTF(4, 5);

static int
aerr(char *err, size_t errlen, const struct priv_table *t, const char *fmt,
    ...)
{
	char	 msg[384];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s: %s", t->file, msg);
	return -1;
}

static int
write_file(const char *path, const char *s)
{
	size_t	 len = strlen(s);
	ssize_t	 w;
	int	 fd, saved;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	w = write(fd, s, len);
	saved = errno;
	close(fd);
	errno = saved;
	if (w == -1)
		return -1;
	if ((size_t)w != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * A user namespace mapping only our own ids, so "user same" stays true
 * inside and nothing else is reachable.  setgroups is denied first: the
 * kernel requires it before an unprivileged gid_map, and it keeps the
 * process from dropping supplementary groups that deny access.
 */
static int
enter_userns(const struct priv_table *t, char *err, size_t errlen)
{
	char	 map[64];
	uid_t	 uid = geteuid();
	gid_t	 gid = getegid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
		return aerr(err, errlen, t, "root empty: unshare(CLONE_NEWUSER"
		    "|CLONE_NEWNS): %s (user namespaces unavailable? see "
		    "user.max_user_namespaces)", strerror(errno));
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (write_file("/proc/self/uid_map", map) == -1)
		return aerr(err, errlen, t, "root empty: /proc/self/uid_map: "
		    "%s", strerror(errno));
	if (write_file("/proc/self/setgroups", "deny") == -1)
		return aerr(err, errlen, t, "root empty: /proc/self/setgroups: "
		    "%s", strerror(errno));
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if (write_file("/proc/self/gid_map", map) == -1)
		return aerr(err, errlen, t, "root empty: /proc/self/gid_map: "
		    "%s", strerror(errno));
	return 0;
}

/*
 * The capabilities a fresh user namespace grants were only needed for
 * the mounts above; keeping them would let the role remount its root.
 */
static int
drop_caps(const struct priv_table *t, char *err, size_t errlen)
{
	struct __user_cap_header_struct	 hdr;
	struct __user_cap_data_struct	 data[2];

	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capset, &hdr, data) == -1)
		return aerr(err, errlen, t, "root empty: capset: %s",
		    strerror(errno));
	return 0;
}

/*
 * root empty: a private mount namespace whose root is an empty,
 * read-only tmpfs, with the old root detached, so a compromised role
 * finds no file to read, write or execute (threat: a role exploited
 * through the untrusted bytes it parses).
 */
static int
root_empty(const struct priv_table *t, char *err, size_t errlen)
{
	int	 userns = 0;

	/* root normally holds CAP_SYS_ADMIN: a mount namespace suffices;
	 * root without it (a container) needs a user namespace like anyone. */
	if (geteuid() != 0 || unshare(CLONE_NEWNS) == -1) {
		if (geteuid() == 0 && errno != EPERM)
			return aerr(err, errlen, t, "root empty: "
			    "unshare(CLONE_NEWNS): %s", strerror(errno));
		if (enter_userns(t, err, errlen) == -1)
			return -1;
		userns = 1;
	}
	/* Nothing done below may propagate back to the host's mounts. */
	/* The type is ignored for a propagation change; "none" rather than
	 * NULL so that checkers reading it as a string (valgrind) may. */
	if (mount(NULL, "/", "none", MS_REC | MS_PRIVATE, NULL) == -1)
		return aerr(err, errlen, t, "root empty: make / private: %s",
		    strerror(errno));
	if (mount("sbx-empty", EMPTY_ROOT_MNT, "tmpfs", MS_RDONLY | MS_NOSUID |
	    MS_NODEV | MS_NOEXEC, "size=4k,nr_inodes=2,mode=0555") == -1)
		return aerr(err, errlen, t, "root empty: mount tmpfs on %s: %s",
		    EMPTY_ROOT_MNT, strerror(errno));
	if (chdir(EMPTY_ROOT_MNT) == -1)
		return aerr(err, errlen, t, "root empty: chdir %s: %s",
		    EMPTY_ROOT_MNT, strerror(errno));
	/* pivot_root(".", ".") stacks the old root on top; detach it. */
	if (syscall(SYS_pivot_root, ".", ".") == -1)
		return aerr(err, errlen, t, "root empty: pivot_root: %s",
		    strerror(errno));
	if (umount2(".", MNT_DETACH) == -1)
		return aerr(err, errlen, t, "root empty: detach the old root: "
		    "%s", strerror(errno));
	if (chdir("/") == -1)
		return aerr(err, errlen, t, "root empty: chdir /: %s",
		    strerror(errno));
	if (userns && drop_caps(t, err, errlen) == -1)
		return -1;
	return 0;
}

/*
 * "user NAME": as root, become NAME for good (groups, gid, uid, then
 * verify).  Not as root: only NAME's own uid is acceptable, since the
 * switch is impossible and running as someone else would be a silent
 * policy change.
 */
static int
lookup_user(const struct priv_table *t, struct passwd *pw, char *buf,
    size_t buflen, char *err, size_t errlen)
{
	struct passwd	*res = NULL;
	int		 rc;

	if ((rc = getpwnam_r(t->user, pw, buf, buflen, &res)) != 0 ||
	    res == NULL)
		return aerr(err, errlen, t, "user %s: %s", t->user,
		    rc != 0 ? strerror(rc) : "no such user");
	if (geteuid() != 0 && pw->pw_uid != geteuid())
		return aerr(err, errlen, t, "user %s: running as uid %u "
		    "without privilege to become uid %u", t->user,
		    (unsigned)geteuid(), (unsigned)pw->pw_uid);
	return 0;
}

static int
become_user(const struct priv_table *t, const struct passwd *pw, char *err,
    size_t errlen)
{
	uid_t	 ru, eu, su;
	gid_t	 gid = pw->pw_gid;

	if (geteuid() != 0)
		return 0;
	if (setgroups(1, &gid) == -1 ||
	    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) == -1 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) == -1)
		return aerr(err, errlen, t, "user %s: cannot switch to uid %u: "
		    "%s", t->user, (unsigned)pw->pw_uid, strerror(errno));
	if (getresuid(&ru, &eu, &su) == -1 || ru != pw->pw_uid ||
	    eu != pw->pw_uid || su != pw->pw_uid ||
	    (pw->pw_uid != 0 && setuid(0) != -1))
		return aerr(err, errlen, t, "user %s: uid switch did not "
		    "stick", t->user);
	return 0;
}

/*
 * soft = hard = the value.  A value above the current hard limit cannot
 * be granted without privilege: the lower hard limit is kept (it is
 * stricter than the file) and a warning says so.
 */
static int
set_rlimits(const struct priv_table *t, char *err, size_t errlen)
{
	struct rlimit	 rl, cur;
	const char	*name;
	size_t		 i;

	for (i = 0; i < t->nrlimits; i++) {
		/* valgrind keeps the highest descriptors for itself and
		 * refuses to move the limit (make valgrind only). */
		if (UNDER_VALGRIND() && t->rlimits[i].resource == RLIMIT_NOFILE)
			continue;
		name = priv_rlimit_name(t->rlimits[i].resource);
		if (name == NULL)
			name = "?";
		rl.rlim_cur = rl.rlim_max =
		    t->rlimits[i].value == PRIV_RLIM_INFINITY ?
		    RLIM_INFINITY : (rlim_t)t->rlimits[i].value;
		if (setrlimit(t->rlimits[i].resource, &rl) == 0)
			continue;
		if (errno != EPERM ||
		    getrlimit(t->rlimits[i].resource, &cur) == -1 ||
		    cur.rlim_max >= rl.rlim_max)
			return aerr(err, errlen, t, "rlimit %s: setrlimit: %s",
			    name, strerror(errno));
		rl.rlim_cur = rl.rlim_max = cur.rlim_max;
		if (setrlimit(t->rlimits[i].resource, &rl) == -1)
			return aerr(err, errlen, t, "rlimit %s: setrlimit: %s",
			    name, strerror(errno));
		log_warnx("%s: rlimit %s: kept the lower hard limit %llu",
		    t->file, name, (unsigned long long)cur.rlim_max);
	}
	return 0;
}

/* Every step but the filter, in order; the caller loads the filter. */
static int
apply_steps(const struct priv_table *t, char *err, size_t errlen)
{
	struct passwd	 pw;
	char		 pwbuf[1024];

	/* The user database is out of reach once the root is empty. */
	if (t->user != NULL &&
	    lookup_user(t, &pw, pwbuf, sizeof(pwbuf), err, errlen) == -1)
		return -1;
	if (t->root == PRIV_ROOT_EMPTY && root_empty(t, err, errlen) == -1)
		return -1;
	if (t->user != NULL && become_user(t, &pw, err, errlen) == -1)
		return -1;
	if (set_rlimits(t, err, errlen) == -1)
		return -1;
	/* Before Landlock: landlock_restrict_self(2) needs it unless the
	 * process holds CAP_SYS_ADMIN. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return aerr(err, errlen, t, "prctl(PR_SET_NO_NEW_PRIVS): %s",
		    strerror(errno));
	if (UNDER_VALGRIND()) {
		log_warnx("%s: under valgrind: Landlock and seccomp not "
		    "applied (make valgrind)", t->file);
		return 0;
	}
	return priv_landlock_apply(t, err, errlen);
}

/* Roles of a service started as root: see role_init(). */
static int	 priv_nodump;

void
priv_set_nodump(int on)
{
	priv_nodump = on;
}

int
priv_apply(const struct priv_table *t, char *err, size_t errlen)
{
	struct priv_bpf	*bpf;

	if (!t->no_new_privs)
		return aerr(err, errlen, t, "no_new_privs yes is required");
	if (UNDER_VALGRIND())
		return apply_steps(t, err, errlen);
	/* Compiled first: a table that does not compile changes nothing. */
	if ((bpf = priv_seccomp_compile(t, err, errlen)) == NULL)
		return -1;
	if (apply_steps(t, err, errlen) == -1) {
		priv_bpf_free(bpf);
		return -1;
	}
	if (priv_nodump && prctl(PR_SET_DUMPABLE, 0UL, 0UL, 0UL, 0UL) == -1) {
		priv_bpf_free(bpf);
		return aerr(err, errlen, t, "prctl PR_SET_DUMPABLE: %s",
		    strerror(errno));
	}
	return priv_seccomp_load(bpf, err, errlen);
}

/*
 * The same with the filter compiled earlier from this very table (the
 * launcher compiles shim.priv once; pid 1 of every sandbox applies it).
 */
int
priv_apply_compiled(const struct priv_table *t, const struct priv_bpf *bpf,
    char *err, size_t errlen)
{
	if (!t->no_new_privs)
		return aerr(err, errlen, t, "no_new_privs yes is required");
	if (apply_steps(t, err, errlen) == -1)
		return -1;
	if (UNDER_VALGRIND())
		return 0;
	return priv_seccomp_install(bpf, err, errlen);
}
