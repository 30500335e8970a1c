/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * split.c: the launcher's three processes (issue 20), forked before the
 * launcher reads anything.
 *
 *   front    the process the monitor started: its channel, pidfds,
 *            deadlines, cgroups, the shims' status records and proxy
 *            listeners, the self-test.  It reads what sandboxes send, so
 *            it holds no capability and runs under an allow-list
 *            (launcher.priv).
 *   spawner  clones each sandbox for the front (CLONE_PARENT: the
 *            sandbox is the front's child, so the front keeps waitid,
 *            its pidfd, SIGCHLD and the shim's pdeathsig), from vetted
 *            requests: the serialised spec (sbx_spec_parse again here)
 *            and the shim's descriptors.  Every sandbox inherits its
 *            filter (spawner.priv, the payload floor: a deny-list with no
 *            rule on ids); it holds no capability, so the kernel itself
 *            refuses it and every payload any host id change.  It never
 *            reads what a sandbox sends.
 *   mapper   only when the service was started as root: the one process
 *            that keeps CAP_SETUID and CAP_SETGID, to write a new
 *            sandbox's setgroups, uid_map and gid_map.  It takes its
 *            policy from the monitor on LAUNCH_POLICY_FD, never from the
 *            front, and refuses on its own whatever the policy does not
 *            allow (idmap_policy_check).  mapper.priv: an allow-list in
 *            which every set*id call and capset kill it.
 *
 * The front talks to both over SOCK_SEQPACKET socketpairs, one request
 * at a time, synchronously (each answer is a few system calls away).
 */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/capability.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdpass.h"
#include "proto.h"
#include "role.h"
#include "spec.h"
#include "launcher.h"
#include "shim/shim.h"

static int	 spawner_fd = -1;	/* the front's ends */
static int	 mapper_fd = -1;

int
split_spawner(void)
{
	return spawner_fd;
}

int
split_mapper(void)
{
	return mapper_fd;
}

static int
capset3(uint64_t eff, uint64_t perm)
{
	struct __user_cap_header_struct	 hdr;
	struct __user_cap_data_struct	 data[2];

	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	data[0].effective = (uint32_t)eff;
	data[1].effective = (uint32_t)(eff >> 32);
	data[0].permitted = (uint32_t)perm;
	data[1].permitted = (uint32_t)(perm >> 32);
	return (int)syscall(SYS_capset, &hdr, data);
}

/*
 * Keep exactly the capabilities of keep (permitted, effective, bounding),
 * none inheritable or ambient.  The bounding set can shrink only while
 * SETPCAP is held, which a launcher of a service started as root has
 * until here (monitor/caps.c); one started by a user holds nothing and
 * its exec under no_new_privs can gain nothing either.
 */
void
split_caps_only(uint64_t keep)
{
	unsigned long	 c;

	for (c = 0; c < 64; c++) {
		if (prctl(PR_CAPBSET_READ, c, 0UL, 0UL, 0UL) != 1)
			continue;
		if (keep & (1ULL << c))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0UL, 0UL, 0UL) == -1 &&
		    errno != EPERM)
			fatal("PR_CAPBSET_DROP %lu", c);
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0UL, 0UL,
	    0UL) == -1)
		fatal("PR_CAP_AMBIENT_CLEAR_ALL");
	if (capset3(keep, keep) == -1)
		fatal("capset %#llx", (unsigned long long)keep);
}

/* A forked part: its own name, its own death with the front, default
 * signal dispositions, and only the descriptors it was given. */
static void
part_init(const char *name, int fd)
{
	struct sigaction	 sa;
	char			 comm[16];
	int			 sig;

	snprintf(comm, sizeof(comm), "sbx-%s", name);
	(void)prctl(PR_SET_NAME, comm, 0UL, 0UL, 0UL);
	log_procinit(name);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0UL, 0UL, 0UL) == -1)
		fatal("prctl(PR_SET_PDEATHSIG)");
	if (getppid() == 1)
		_exit(0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	(void)sigaction(SIGPIPE, &sa, NULL);
	/* Descriptor 3 (the monitor's channel) becomes ours. */
	if (dup2(fd, ROLE_FD) == -1)
		fatal("dup2");
	/*
	 * -N is for the front alone.  The mapper reads its own
	 * /proc/self/fdinfo (target_check), which a process that is not
	 * dumpable may not; the spawner is the one process that may trace,
	 * so keeping it from being traced protects nothing.  Neither can be
	 * traced by the spawner anyway: the mapper holds capabilities the
	 * spawner lacks.
	 */
	priv_set_nodump(0);
}

/* ---- spawner ---------------------------------------------------------- */

static uint8_t	 spawn_buf[sizeof(struct spawn_msg) + SBX_SPEC_WIRE_MAX];

static __dead void
spawner_main(int fd)
{
	struct spawn_msg	 m;
	struct spawn_reply	 r;
	struct spawn_args	 a;
	struct sbx_spec		 sp;
	char			 err[SANDBOX_ERRLEN];
	char			 path[64];
	int			 got[SBX_SHIM_NFDS], out[2], pidfd, mntns, n, i;
	int			 mapped;
	size_t			 ngot, k;
	pid_t			 pid;

	part_init("spawner", fd);
	fd = ROLE_FD;
	closefrom(ROLE_FD + 1);
	/* A mapper exists (the service was started as root): every
	 * sandbox's maps are another host id's, and pid 1 must shed the
	 * service's groups (its own gid, which the mapper refuses as a
	 * caller's) whatever the front says. */
	mapped = idmap_privileged();
	split_caps_only(0);
	if (shim_filters_init(err, sizeof(err)) == -1)
		fatalx("%s", err);
	if (priv_apply(&priv_table_spawner, err, sizeof(err)) == -1)
		fatalx("%s: %s", priv_table_spawner.file, err);

	for (;;) {
		n = (int)fdpass_recv(fd, spawn_buf, sizeof(spawn_buf), got,
		    nitems(got), &ngot, 0);
		if (n == 0)
			_exit(0);	/* the front is gone */
		if (n == -1)
			fatal("spawner: recvmsg");
		/* The front is not trusted to have framed it right. */
		if ((size_t)n < sizeof(m))
			fatalx("spawner: request of %d bytes", n);
		memcpy(&m, spawn_buf, sizeof(m));
		if (m.speclen != (size_t)n - sizeof(m) ||
		    (size_t)__builtin_popcount(m.fdmask) != ngot ||
		    (m.fdmask >> SBX_SHIM_NFDS) != 0 || m.uid == 0 ||
		    m.gid == 0)
			fatalx("spawner: malformed request");
		memset(&r, 0, sizeof(r));
		memset(&a, 0, sizeof(a));
		for (i = 0, k = 0; i < SBX_SHIM_NFDS; i++)
			a.fds[i] = (m.fdmask & (1U << i)) ? got[k++] : -1;
		if (a.fds[SBX_SHIM_FD_STATUS] == -1 ||
		    a.fds[SBX_SHIM_FD_LIFELINE] == -1)
			fatalx("spawner: no status or lifeline descriptor");
		a.lifeline_w = -1;
		a.uid = m.uid;
		a.gid = m.gid;
		a.dropgroups = m.dropgroups != 0;
		a.keep_suid = m.keep_suid != 0;
		a.spec = &sp;
		pidfd = mntns = -1;
		r.pid = -1;
		r.error = EINVAL;
		if (mapped && !a.dropgroups) {
			log_warnx("spawner: refused a sandbox that keeps the "
			    "service's groups");
			r.error = EPERM;
		} else if (sbx_spec_parse(&sp, spawn_buf + sizeof(m),
		    m.speclen, err, sizeof(err)) == -1 ||
		    sbx_spec_check(&sp, err, sizeof(err)) == -1)
			log_warnx("spawner: spec refused: %s", err);
		else {
			sp.cgroup = m.cgroup != 0;
			sp.cgroup_wait = m.cgroup_wait != 0;
			if ((pid = spawn_clone(&a, 1, &pidfd)) == -1)
				r.error = errno;
			else {
				r.pid = pid;
				/*
				 * The front holds the sandbox's mount
				 * namespace (spawn.c, hold_mntns) but may
				 * not open it: its Landlock domain refuses
				 * ptrace access, which /proc/PID/ns needs.
				 * Best effort, as there.
				 */
				snprintf(path, sizeof(path),
				    "/proc/%ld/ns/mnt", (long)pid);
				mntns = open(path, O_RDONLY | O_CLOEXEC);
			}
		}
		explicit_bzero(spawn_buf, (size_t)n);
		for (k = 0; k < ngot; k++)
			close(got[k]);
		/* The pidfd first, then the mount namespace if opened. */
		out[0] = pidfd;
		out[1] = mntns;
		r.mntns = mntns != -1;
		if (fdpass_send(fd, &r, sizeof(r), out, pidfd == -1 ? 0 :
		    mntns == -1 ? 1 : 2, 0) == -1)
			_exit(0);
		if (pidfd != -1)
			close(pidfd);
		if (mntns != -1)
			close(mntns);
	}
}

/* The front: clone a sandbox through the spawner. */
pid_t
spawner_request(const struct spawn_args *a, int *pidfd, int *mntns)
{
	static uint8_t		 buf[sizeof(struct spawn_msg) +
				    SBX_SPEC_WIRE_MAX];
	struct spawn_msg	 m;
	struct spawn_reply	 r;
	char			 err[SBX_SPEC_ERRLEN];
	int			 fds[SBX_SHIM_NFDS], got[2], n, i;
	size_t			 nfds = 0, ngot, len;

	memset(&m, 0, sizeof(m));
	if (sbx_spec_serialise(a->spec, buf + sizeof(m), sizeof(buf) -
	    sizeof(m), &len, err, sizeof(err)) == -1) {
		log_warnx("spawner: %s", err);
		errno = EINVAL;
		return -1;
	}
	/* Set by this launcher, never on the wire (spec.h). */
	m.cgroup = a->spec->cgroup != 0;
	m.cgroup_wait = a->spec->cgroup_wait != 0;
	m.uid = a->uid;
	m.gid = a->gid;
	m.dropgroups = a->dropgroups;
	m.keep_suid = a->keep_suid;
	m.speclen = (uint32_t)len;
	for (i = 0; i < SBX_SHIM_NFDS; i++)
		if (a->fds[i] != -1) {
			m.fdmask |= 1U << i;
			fds[nfds++] = a->fds[i];
		}
	memcpy(buf, &m, sizeof(m));
	if (fdpass_send(spawner_fd, buf, sizeof(m) + len, fds, nfds, 0) == -1)
		fatal("spawner: send");
	explicit_bzero(buf, sizeof(m) + len);
	n = (int)fdpass_recv(spawner_fd, &r, sizeof(r), got, nitems(got),
	    &ngot, 0);
	if (n == 0)
		fatalx("the spawner is gone");
	if (n != (int)sizeof(r) || (r.pid > 0) != (ngot >= 1) ||
	    ngot != (r.pid > 0 ? 1U + (r.mntns != 0) : 0U))
		fatalx("spawner: malformed answer");
	if (r.pid <= 0) {
		errno = r.error;
		return -1;
	}
	*pidfd = got[0];
	*mntns = ngot == 2 ? got[1] : -1;
	return r.pid;
}

/* ---- mapper ----------------------------------------------------------- */

static int
uid_allowed(const struct idmap_policy *pol, uid_t uid)
{
	uint32_t	 i;

	for (i = 0; i < pol->nallow && i < IDMAP_ALLOW_MAX; i++)
		if (pol->allow_uid[i] == (uint32_t)uid)
			return 1;
	return 0;
}

/* uid's primary gid in the passwd file at path (no NSS: the file only). */
static int
primary_gid(const char *path, uid_t uid, gid_t *gid)
{
	struct passwd	*pw;
	FILE		*f;
	int		 found = 0;

	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while ((pw = fgetpwent(f)) != NULL)
		if (pw->pw_uid == uid) {
			*gid = pw->pw_gid;
			found = 1;
			break;
		}
	fclose(f);
	return found ? 0 : -1;
}

/*
 * May the mapper map a sandbox's one id onto host uid/gid?  self is the
 * mapper's own pair (the service user's), which any process may map for
 * itself; everything else comes from the monitor's policy and passwd.
 * 0, or -1 with the rule that refused in err.
 */
int
idmap_policy_check(const struct idmap_policy *pol, uint32_t identity,
    uid_t uid, gid_t gid, uid_t self_uid, gid_t self_gid,
    const char *passwd, char *err, size_t errlen)
{
	gid_t	 pgid;

	if (uid == 0 || gid == 0 || uid == (uid_t)-1 || gid == (gid_t)-1) {
		snprintf(err, errlen, "host uid/gid %u/%u: host root and the "
		    "id -1 are never mapped", (unsigned)uid, (unsigned)gid);
		return -1;
	}
	switch (identity) {
	case SBX_IDENTITY_SERVICE:
		/* With a sandbox-user, no sandbox runs as the service user
		 * (which owns the socket, the roles and every sandbox's
		 * namespaces); without one, its own pair is all there is. */
		if (pol->sandbox_user_uid != 0) {
			if (uid == (uid_t)pol->sandbox_user_uid &&
			    gid == (gid_t)pol->sandbox_user_gid)
				return 0;
			snprintf(err, errlen, "identity service: host uid/gid "
			    "%u/%u is not sandbox-user's %u/%u", (unsigned)uid,
			    (unsigned)gid, pol->sandbox_user_uid,
			    pol->sandbox_user_gid);
			return -1;
		}
		if (uid == self_uid && gid == self_gid)
			return 0;
		snprintf(err, errlen, "identity service: host uid/gid %u/%u "
		    "is not the service's own pair (no sandbox-user)",
		    (unsigned)uid, (unsigned)gid);
		return -1;
	case SBX_IDENTITY_RANGE:
	case SBX_IDENTITY_CALLER:
		/* With a sandbox-user the service's own ids are never a
		 * sandbox's, whatever identity the front names: a service
		 * user at or above caller-min-uid (nobody, or an account
		 * made without --system) or inside the range would
		 * otherwise be reachable as a caller. */
		if (pol->sandbox_user_uid != 0 && (uid == self_uid ||
		    gid == self_gid)) {
			snprintf(err, errlen, "host uid/gid %u/%u: the "
			    "service's own uid %u or gid %u is never a "
			    "sandbox's (sandbox-user is set)", (unsigned)uid,
			    (unsigned)gid, (unsigned)self_uid,
			    (unsigned)self_gid);
			return -1;
		}
		break;
	default:
		snprintf(err, errlen, "identity %u unknown", identity);
		return -1;
	}
	switch (identity) {
	case SBX_IDENTITY_RANGE:
		if (!pol->range_set || uid < pol->range_start ||
		    uid - pol->range_start >= pol->range_count) {
			snprintf(err, errlen, "identity range: host uid %u is "
			    "outside sandbox-uid-range", (unsigned)uid);
			return -1;
		}
		if (gid != (gid_t)uid) {
			snprintf(err, errlen, "identity range: host gid %u is "
			    "not range uid %u's own", (unsigned)gid,
			    (unsigned)uid);
			return -1;
		}
		return 0;
	default:
		break;
	}
	if (!pol->caller_set) {
		snprintf(err, errlen, "identity caller: host uid %u: no "
		    "profile of the configuration has identity caller",
		    (unsigned)uid);
		return -1;
	}
	if (uid < pol->caller_min_uid && !uid_allowed(pol, uid)) {
		snprintf(err, errlen, "host uid %u: below caller-min-uid %u "
		    "and named by no \"allow uid\" line", (unsigned)uid,
		    (unsigned)pol->caller_min_uid);
		return -1;
	}
	if (gid < 1000 && (primary_gid(passwd, uid, &pgid) == -1 ||
	    pgid != gid)) {
		snprintf(err, errlen, "host gid %u: a system group (below "
		    "1000) that is not uid %u's primary group in %s",
		    (unsigned)gid, (unsigned)uid, passwd);
		return -1;
	}
	return 0;
}

/* Read all of a small /proc file into buf (NUL-terminated). */
static ssize_t
proc_read(int dir, const char *name, char *buf, size_t len)
{
	ssize_t	 n;
	size_t	 off = 0;
	int	 fd;

	if ((fd = openat(dir, name, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while (off < len - 1) {
		if ((n = read(fd, buf + off, len - 1 - off)) <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	buf[off] = '\0';
	return (ssize_t)off;
}

/* Line "key\t..." of a /proc status text, or NULL. */
static const char *
status_line(const char *text, const char *key)
{
	const char	*p = text;
	size_t		 kl = strlen(key);

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, kl) == 0)
			return p + kl;
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return NULL;
}

/*
 * The target must be the front's child, still running as the service's
 * own ids (the clone child before its maps), with no map yet, and the
 * pidfd the front passed must be that very process.
 */
static int
target_check(pid_t pid, int pidfd, int *dirp, char *err, size_t errlen)
{
	char		 path[64], text[4096];
	unsigned long	 a, b, c, d;
	const char	*l;
	int		 dir;
	long		 ppid, fpid;

	snprintf(path, sizeof(path), "/proc/%ld", (long)pid);
	if ((dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, sbx_errname(errno));
		return -1;
	}
	if (proc_read(dir, "status", text, sizeof(text)) == -1 ||
	    (l = status_line(text, "PPid:")) == NULL ||
	    sscanf(l, "%ld", &ppid) != 1 || ppid != (long)getppid()) {
		snprintf(err, errlen, "pid %ld is not the launcher's child",
		    (long)pid);
		goto fail;
	}
	if ((l = status_line(text, "Uid:")) == NULL ||
	    sscanf(l, "%lu %lu %lu %lu", &a, &b, &c, &d) != 4 ||
	    a != getuid() || b != getuid() || c != getuid() ||
	    d != getuid() || (l = status_line(text, "Gid:")) == NULL ||
	    sscanf(l, "%lu %lu %lu %lu", &a, &b, &c, &d) != 4 ||
	    a != getgid() || b != getgid() || c != getgid() ||
	    d != getgid()) {
		snprintf(err, errlen, "pid %ld does not run as the service's "
		    "own ids", (long)pid);
		goto fail;
	}
	if (proc_read(dir, "uid_map", text, sizeof(text)) != 0 ||
	    proc_read(dir, "gid_map", text, sizeof(text)) != 0) {
		snprintf(err, errlen, "pid %ld: already mapped, or not in a "
		    "user namespace of its own", (long)pid);
		goto fail;
	}
	/* Checked last: the directory is the pidfd's process, not a
	 * process that took a reaped one's pid meanwhile. */
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if (proc_read(AT_FDCWD, path, text, sizeof(text)) == -1 ||
	    (l = status_line(text, "Pid:")) == NULL ||
	    sscanf(l, "%ld", &fpid) != 1 || fpid != (long)pid) {
		snprintf(err, errlen, "pid %ld: the descriptor passed is not "
		    "its pidfd", (long)pid);
		goto fail;
	}
	*dirp = dir;
	return 0;
 fail:
	close(dir);
	return -1;
}

static int
map_write(int dir, const char *name, const char *data, char *err,
    size_t errlen)
{
	size_t	 len = strlen(data);
	int	 fd, saved;
	ssize_t	 n;

	if ((fd = openat(dir, name, O_WRONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "open %s: %s", name, sbx_errname(errno));
		return -1;
	}
	n = write(fd, data, len);
	saved = errno;
	close(fd);
	if (n != (ssize_t)len) {
		snprintf(err, errlen, "write %s: %s", name,
		    n == -1 ? sbx_errname(saved) : "short write");
		return -1;
	}
	return 0;
}

static void
mapper_one(const struct idmap_policy *pol, int havepol,
    const struct map_req *q, int pidfd, struct map_reply *r)
{
	char	 map[64];
	int	 dir = -1;

	if (!havepol) {
		snprintf(r->why, sizeof(r->why), "no id-map policy from the "
		    "monitor yet");
		goto refuse;
	}
	if (q->uid_inside == 0 || q->gid_inside == 0) {
		snprintf(r->why, sizeof(r->why), "id 0 inside is refused");
		goto refuse;
	}
	if (idmap_policy_check(pol, q->identity, q->host_uid, q->host_gid,
	    getuid(), getgid(), "/etc/passwd", r->why, sizeof(r->why)) == -1)
		goto refuse;
	if (target_check(q->pid, pidfd, &dir, r->why, sizeof(r->why)) == -1)
		goto refuse;
	snprintf(map, sizeof(map), "%u %u 1\n", q->uid_inside, q->host_uid);
	if (map_write(dir, "uid_map", map, r->why, sizeof(r->why)) == -1)
		goto fail;
	snprintf(map, sizeof(map), "%u %u 1\n", q->gid_inside, q->host_gid);
	if (map_write(dir, "gid_map", map, r->why, sizeof(r->why)) == -1)
		goto fail;
	close(dir);
	r->ok = 1;
	return;
 refuse:
	log_warnx("refused to map pid %d onto %u/%u: %s", q->pid,
	    q->host_uid, q->host_gid, r->why);
 fail:
	if (dir != -1)
		close(dir);
	r->ok = 0;
}

static __dead void
mapper_main(int fd)
{
	struct idmap_policy	 pol, npol;
	struct map_req		 q;
	struct map_reply	 r;
	struct pollfd		 pfd[2];
	char			 err[SANDBOX_ERRLEN];
	int			 got[2], havepol = 0, n;
	size_t			 ngot, k;

	part_init("mapper", fd);
	fd = ROLE_FD;
	closefrom(LAUNCH_POLICY_FD + 1);
	split_caps_only((1ULL << CAP_SETUID) | (1ULL << CAP_SETGID));
	if (priv_apply(&priv_table_mapper, err, sizeof(err)) == -1)
		fatalx("%s: %s", priv_table_mapper.file, err);
	memset(&pol, 0, sizeof(pol));

	for (;;) {
		pfd[0].fd = LAUNCH_POLICY_FD;
		pfd[0].events = POLLIN;
		pfd[1].fd = fd;
		pfd[1].events = POLLIN;
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			fatal("mapper: poll");
		}
		/* A new policy first: a reload applies to the next map. */
		if (pfd[0].revents != 0) {
			n = (int)read(LAUNCH_POLICY_FD, &npol, sizeof(npol));
			if (n == 0)
				_exit(0);	/* the monitor is gone */
			if (n != (int)sizeof(npol) ||
			    npol.version != IDMAP_POLICY_VERSION ||
			    npol.nallow > IDMAP_ALLOW_MAX)
				fatalx("mapper: malformed policy (%d bytes)",
				    n);
			pol = npol;
			havepol = 1;
			continue;
		}
		if (pfd[1].revents == 0)
			continue;
		n = (int)fdpass_recv(fd, &q, sizeof(q), got, nitems(got),
		    &ngot, 0);
		if (n == 0)
			_exit(0);	/* the front is gone */
		if (n != (int)sizeof(q) || ngot != 1)
			fatalx("mapper: malformed request");
		memset(&r, 0, sizeof(r));
		mapper_one(&pol, havepol, &q, got[0], &r);
		for (k = 0; k < ngot; k++)
			close(got[k]);
		if (fdpass_send(fd, &r, sizeof(r), NULL, 0, 0) == -1)
			_exit(0);
	}
}

/* The front: have the mapper write pid's maps. */
int
mapper_request(pid_t pid, int pidfd, uint32_t identity, uid_t uin,
    gid_t gin, uid_t huid, gid_t hgid, char *err, size_t errlen)
{
	struct map_req		 q;
	struct map_reply	 r;
	int			 got[1], n;
	size_t			 ngot;

	memset(&q, 0, sizeof(q));
	q.pid = pid;
	q.identity = identity;
	q.uid_inside = uin;
	q.gid_inside = gin;
	q.host_uid = huid;
	q.host_gid = hgid;
	if (fdpass_send(mapper_fd, &q, sizeof(q), &pidfd, 1, 0) == -1)
		fatal("mapper: send");
	n = (int)fdpass_recv(mapper_fd, &r, sizeof(r), got, nitems(got),
	    &ngot, 0);
	if (n == 0)
		fatalx("the mapper is gone");
	if (n != (int)sizeof(r) || ngot != 0)
		fatalx("mapper: malformed answer");
	if (!r.ok) {
		r.why[sizeof(r.why) - 1] = '\0';
		snprintf(err, errlen, "id map refused: %s", r.why);
		return -1;
	}
	return 0;
}

/*
 * role_init's hook, after the event base and before launcher.priv: fork
 * the mapper (when this launcher holds CAP_SETUID and CAP_SETGID) and the
 * spawner, then drop every capability.  Nothing has been read yet.
 */
void
split_start(void)
{
	struct stat	 st;
	int		 sv[2], havepol, privileged;

	/* Read /proc/self/environ now: the front is not dumpable once
	 * launcher.priv is applied (-N) and may not read it then. */
	spawn_environment_check();
	havepol = fstat(LAUNCH_POLICY_FD, &st) == 0 && S_ISSOCK(st.st_mode);
	privileged = idmap_privileged();
	if (privileged) {
		if (!havepol)
			fatalx("CAP_SETUID and CAP_SETGID held but no id-map "
			    "policy socket at descriptor %d: the monitor "
			    "starts the launcher", LAUNCH_POLICY_FD);
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
		    sv) == -1)
			fatal("socketpair");
		switch (fork()) {
		case -1:
			fatal("fork mapper");
		case 0:
			close(sv[0]);
			mapper_main(sv[1]);
		}
		close(sv[1]);
		mapper_fd = sv[0];
	}
	/* The policy is the mapper's alone. */
	if (havepol)
		close(LAUNCH_POLICY_FD);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		fatal("socketpair");
	switch (fork()) {
	case -1:
		fatal("fork spawner");
	case 0:
		close(sv[0]);
		spawner_main(sv[1]);
	}
	close(sv[1]);
	spawner_fd = sv[0];
	split_caps_only(0);
}
