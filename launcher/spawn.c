/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * spawn.c: create one sandbox -- clone into fresh namespaces, let the
 * parent write the id maps, then run the shim (shim/shim.c) in the clone
 * child itself as the sandbox's pid 1, with the spec the launcher already
 * parsed and every other descriptor closed.  No program is exec'd until
 * the payload: like bubblewrap's pid 1, ours is a copy of the launcher.
 *
 * The clone child runs on a copy of the launcher's memory and stack, like
 * fork(), but without glibc's fork handlers.  That is safe because the
 * launcher is single-threaded (libevent without threads, no library that
 * starts any): no lock can be held by another thread at clone time.  The
 * child never touches the launcher's event loop or channel (their
 * descriptors are closed before the shim runs).
 */
#include <sys/types.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/capability.h>
#include <linux/sched.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "fdpass.h"
#include "spec.h"
#include "launcher.h"
#include "shim/shim.h"

/* Every namespace type: a sandbox shares nothing it can name. */
#define SANDBOX_CLONE_FLAGS	(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | \
				    CLONE_NEWNET | CLONE_NEWIPC | \
				    CLONE_NEWUTS | CLONE_NEWCGROUP)

/*
 * What the shim needs to build the sandbox.  The clone child holds every
 * capability in its new user namespace; it keeps only these, in the
 * permitted and effective sets (none inheritable, none ambient), and the
 * shim drops all of them before the payload exists.
 */
static const int shim_caps[] = {
	CAP_SYS_ADMIN,		/* mounts, pivot_root, sethostname */
	CAP_NET_ADMIN,		/* bring lo up */
	CAP_SETPCAP,		/* drop the bounding set, lock securebits */
	CAP_SYS_RESOURCE,	/* user.max_user_namespaces = 0 */
};

/* Above any fixed shim descriptor, so the dup2 pass cannot collide. */
#define CHILD_FD_HIGH		64

static __dead void
child_fail(int statusfd, const char *step)
{
	struct sbx_status	 st;
	int			 e = errno;

	memset(&st, 0, sizeof(st));
	st.type = SBX_STATUS_SETUP;
	st.error = e;
	strlcpy(st.step, step, sizeof(st.step));
	if (write(statusfd, &st, sizeof(st)) != (ssize_t)sizeof(st))
		_exit(126);
	_exit(127);
}

static int
child_caps(int overlay)
{
	struct __user_cap_header_struct	 hdr;
	struct __user_cap_data_struct	 data[2];
	size_t				 i;

	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	for (i = 0; i < nitems(shim_caps); i++) {
		data[shim_caps[i] / 32].permitted |= 1U << (shim_caps[i] % 32);
		data[shim_caps[i] / 32].effective |= 1U << (shim_caps[i] % 32);
	}
	/*
	 * An overlay run's workdir: overlayfs makes its work directory
	 * mode 0 and its temporary files there as the mounter, so the mount
	 * fails with EACCES without CAP_DAC_OVERRIDE (Linux 6.18, checked).
	 * In the sandbox's own user namespace only, dropped with the rest
	 * before the payload exists (shim/capdrop.c).
	 */
	if (overlay) {
		data[CAP_DAC_OVERRIDE / 32].permitted |=
		    1U << (CAP_DAC_OVERRIDE % 32);
		data[CAP_DAC_OVERRIDE / 32].effective |=
		    1U << (CAP_DAC_OVERRIDE % 32);
	}
	return (int)syscall(SYS_capset, &hdr, data);
}

static __dead void
child_main(const struct spawn_args *c)
{
	int	 hi[SBX_SHIM_NFDS];
	int	 sfd = c->fds[SBX_SHIM_FD_STATUS];
	char	 go;
	int	 i;

	/* If the launcher dies before the shim runs, so does the child
	 * (the front: cloned by the spawner, the child is the front's). */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0UL, 0UL, 0UL);
	if (c->lifeline_w != -1)
		(void)close(c->lifeline_w);
	/* Inherited dispositions (libevent's handlers) and masks would
	 * reach pid 1 and the payload. */
	(void)shim_reset_signals();
	if (c->scrub != NULL)
		c->scrub();

	/* The maps are written once the parent's byte arrives. */
	if (read(c->fds[SBX_SHIM_FD_LIFELINE], &go, 1) != 1)
		_exit(127);

	if (c->dropgroups && syscall(SYS_setgroups, 0, NULL) == -1)
		child_fail(sfd, "setgroups");
	if (syscall(SYS_setresgid, c->gid, c->gid, c->gid) == -1)
		child_fail(sfd, "setresgid");
	if (prctl(PR_SET_KEEPCAPS, 1UL, 0UL, 0UL, 0UL) == -1)
		child_fail(sfd, "keepcaps");
	/*
	 * cgroup v1 lets the launcher move a process only while that
	 * process's real or saved uid is the launcher's: the saved uid stays
	 * the launcher's (unmapped here, so nothing can switch to it) until
	 * the move is done, and the shim sets it to the sandbox id before
	 * the payload exists (shim.c, cgroups_joined).
	 */
	if (syscall(SYS_setresuid, c->uid, c->uid,
	    c->keep_suid ? (uid_t)-1 : c->uid) == -1)
		child_fail(sfd, "setresuid");
	if (child_caps(c->spec != NULL && c->spec->overlay) == -1)
		child_fail(sfd, "shim capabilities");

	for (i = 0; i < SBX_SHIM_NFDS; i++) {
		hi[i] = -1;
		if (c->fds[i] != -1 &&
		    (hi[i] = fcntl(c->fds[i], F_DUPFD_CLOEXEC,
		    CHILD_FD_HIGH)) == -1)
			child_fail(sfd, "dup descriptors");
	}
	for (i = 0; i < SBX_SHIM_NFDS; i++) {
		if (hi[i] == -1)
			continue;
		if (dup2(hi[i], i) == -1)
			child_fail(sfd, "dup descriptors");
		if (i == SBX_SHIM_FD_STATUS)
			sfd = i;
	}
	/* Nothing of the launcher's reaches the sandbox: not its channel,
	 * not its event loop, not other sandboxes' descriptors -- not even
	 * one whose number is an unused slot below the last used one (a
	 * warm sandbox's pid 1 holding the launcher's end of its own arm
	 * socket would never see it close). */
	for (i = 3; i < SBX_SHIM_NFDS; i++)
		if (hi[i] == -1)
			(void)close(i);
	for (i = SBX_SHIM_NFDS - 1; i >= 0 && hi[i] == -1; i--)
		;
	if (syscall(SYS_close_range, (unsigned)(i + 1), ~0U, 0U) == -1)
		child_fail(sfd, "close_range");

	shim_main(c->spec);
}

/*
 * No CLONE_INTO_CGROUP: the launcher's own filter answers clone3 with
 * ENOSYS, and pid 1 joins its cgroup before its release instead (below).
 * parent: CLONE_PARENT, the spawner cloning for the front (split.c).
 */
static pid_t
do_clone(int *pidfd, int parent)
{
	struct clone_args	 ca;
	unsigned long		 flags;
	pid_t			 pid;

	flags = SANDBOX_CLONE_FLAGS | CLONE_PIDFD |
	    (parent ? CLONE_PARENT : 0);
	memset(&ca, 0, sizeof(ca));
	ca.flags = flags;
	ca.pidfd = (uint64_t)(uintptr_t)pidfd;
	ca.exit_signal = SIGCHLD;
	pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	/* A filter may answer ENOSYS for clone3; clone has the same flags. */
	if (pid == -1 && errno == ENOSYS)
		pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL,
		    pidfd, NULL, NULL);
	return pid;
}

/* Clone one sandbox whose pid 1 runs the shim; its pid, or -1 (errno). */
pid_t
spawn_clone(const struct spawn_args *a, int parent, int *pidfd)
{
	pid_t	 pid;

	if ((pid = do_clone(pidfd, parent)) == 0)
		child_main(a);
	return pid;
}

static int
check_io(const struct sbx_spec *sp, const struct sandbox_io *io, char *err,
    size_t errlen)
{
	struct stat	 st;

	if (sp->workdir_fd && io->workdir == -1) {
		snprintf(err, errlen, "workdir \"%s\": the spec names a "
		    "workdir but no directory fd was given", sp->workdir);
		return -1;
	}
	if (!sp->workdir_fd && io->workdir != -1) {
		snprintf(err, errlen, "workdir: a directory fd was given but "
		    "the spec names no workdir");
		return -1;
	}
	if (io->workdir != -1 && (fstat(io->workdir, &st) == -1 ||
	    !S_ISDIR(st.st_mode))) {
		snprintf(err, errlen, "workdir fd %d: not a directory",
		    io->workdir);
		return -1;
	}
	/* overlay: the changeset's stream file, and only then. */
	if (sp->overlay != (io->changes != -1) || (io->changes != -1 &&
	    (fstat(io->changes, &st) == -1 || !S_ISREG(st.st_mode)))) {
		snprintf(err, errlen, "changes: an overlay needs the "
		    "changeset's file, and only an overlay gets one");
		return -1;
	}
	if (sp->overlay_into != (io->csbase != -1)) {
		snprintf(err, errlen, "changes: overlay into needs the stored "
		    "stream, and only it gets one");
		return -1;
	}
	return 0;
}

static void
close_if(int *fd)
{
	if (*fd != -1) {
		close(*fd);
		*fd = -1;
	}
}

/*
 * pid 1 of every sandbox is a copy of this process, so /proc/1/environ
 * shows this process's environment block from its exec -- readable by
 * root on the host, and a leak of whatever the caller's environment held
 * (tokens, paths).  The monitor starts the launcher with an empty one;
 * anyone else calling this must too.  The block cannot grow after exec
 * (only CAP_SYS_RESOURCE can move it), so once empty means always empty.
 */
static char	 env_problem[256] = "the environment was not checked";
static int	 env_checked;

/*
 * Once, at start (split_start), while the front may still read its own
 * /proc entries: started as root it is not dumpable afterwards (-N), and
 * /proc/self/environ is then root's.  The answer cannot change later.
 */
void
spawn_environment_check(void)
{
	char		 c;
	ssize_t		 n;
	int		 fd;

	env_checked = 1;
	if ((fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(env_problem, sizeof(env_problem), "/proc/self/environ: "
		    "%s (the launcher must see its own environment block to "
		    "start sandboxes)", sbx_errname(errno));
		return;
	}
	do {
		n = read(fd, &c, 1);
	} while (n == -1 && errno == EINTR);
	close(fd);
	if (n == -1)
		snprintf(env_problem, sizeof(env_problem),
		    "/proc/self/environ: %s", sbx_errname(errno));
	else if (n != 0)
		snprintf(env_problem, sizeof(env_problem), "environment: the "
		    "launching process was started with a non-empty "
		    "environment, which every sandbox would show as "
		    "/proc/1/environ; start it with an empty one");
	else
		env_problem[0] = '\0';
}

static int
environment_empty(char *err, size_t errlen)
{
	/* The self-test and the unit tests call sandbox_spawn directly. */
	if (!env_checked)
		spawn_environment_check();
	if (env_problem[0] == '\0')
		return 0;
	snprintf(err, errlen, "%s", env_problem);
	return -1;
}

/*
 * Hold the sandbox's mount namespace until the sandbox is released.
 * Otherwise the last process to leave it, pid 1, tears its mounts down on
 * its way out -- an RCU grace period and every umount -- before its exit
 * reaches the pidfd, so each exit report would wait for it.  Held here,
 * the teardown happens in sandbox_release, after the report went out;
 * no process of the sandbox is left by then either way.  The child is
 * blocked on the lifeline and cannot be reaped, so the pid is its own.
 * Best effort: without it the report only comes later.
 */
static void
hold_mntns(struct sandbox *sb)
{
	char	 path[64];

	snprintf(path, sizeof(path), "/proc/%ld/ns/mnt", (long)sb->pid);
	sb->mntns = open(path, O_RDONLY | O_CLOEXEC);
}

int
sandbox_spawn(struct sandbox *sb, const struct launcher_conf *conf,
    const struct sbx_spec *spec, const struct sandbox_io *io, char *err,
    size_t errlen)
{
	struct sbx_spec	 sp;
	struct spawn_args c;
	char		 why[SBX_SPEC_ERRLEN];
	int		 spipe[2] = { -1, -1 }, life[2] = { -1, -1 };
	int		 psock[2] = { -1, -1 }, arm[2] = { -1, -1 };
	int		 devnull = -1, pidfd = -1, saved;
	pid_t		 pid;
	int		 mntns = -1;

	memset(sb, 0, sizeof(*sb));
	sb->pidfd = sb->statusfd = sb->lifeline = sb->mntns = -1;
	sb->cgroupfd = sb->cgv2_dir = sb->proxyfd = -1;
	sb->cgv1_mem = sb->cgv1_pids = sb->cgv1_cpu = -1;
	sb->armfd = -1;
	sb->cpu_time = spec->cpu_time;
	if (environment_empty(err, errlen) == -1 ||
	    idmap_check(conf, err, errlen) == -1 ||
	    check_io(spec, io, err, errlen) == -1)
		return -1;
	if (sbx_spec_check(spec, why, sizeof(why)) == -1) {
		snprintf(err, errlen, "spec refused: %s", why);
		return -1;
	}
	/* Once per process: every sandbox loads the same programs. */
	if (shim_filters_init(why, sizeof(why)) == -1) {
		snprintf(err, errlen, "payload filters: %s", why);
		return -1;
	}

	/* cpus is a cgroup quota: no rlimit can stand in for it. */
	if (spec->cpus_milli != 0 && !conf->cgv2 && !conf->cgv1) {
		snprintf(err, errlen, "cpus %u.%03u: this launcher has no "
		    "cgroups (memory and pids are rlimits), and only a cgroup "
		    "cpu controller can cap CPU", spec->cpus_milli / 1000,
		    spec->cpus_milli % 1000);
		return -1;
	}
	sp = *spec;
	sp.cgroup = 0;
	sb->limits = SBX_LIMIT_RLIMIT;
	if (conf->cgv2) {
		if (cgroup_v2_create(sb, conf, &sp, err, errlen) == -1)
			return -1;
		sp.cgroup = 1;
		sp.cgroup_wait = 1;
		sb->limits = SBX_LIMIT_CGROUP | SBX_LIMIT_CGV2;
	} else if (conf->cgv1) {
		if (cgroup_v1_create(sb, conf, &sp, err, errlen) == -1)
			return -1;
		sp.cgroup = 1;
		sp.cgroup_wait = 1;
		sb->limits = SBX_LIMIT_CGROUP;
	}
	if (pipe2(spipe, O_CLOEXEC) == -1 || pipe2(life, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe2: %s", sbx_errname(errno));
		goto fail;
	}
	/* Datagrams: the listeners come as one message, or not at all. */
	if (sp.net == SBX_NET_PROXY && socketpair(AF_UNIX, SOCK_SEQPACKET |
	    SOCK_CLOEXEC, 0, psock) == -1) {
		snprintf(err, errlen, "socketpair: %s", sbx_errname(errno));
		goto fail;
	}
	/* Warm: pid 1 waits for its run on a socket of its own, which
	 * carries the run's stdio (sandbox_arm, shim/warm.c). */
	if (sp.warm && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    arm) == -1) {
		snprintf(err, errlen, "socketpair: %s", sbx_errname(errno));
		goto fail;
	}
	if ((io->in == -1 || io->out == -1 || io->err == -1) &&
	    (devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "open /dev/null: %s",
		    sbx_errname(errno));
		goto fail;
	}

	memset(&c, 0, sizeof(c));
	c.fds[0] = io->in != -1 ? io->in : devnull;
	c.fds[1] = io->out != -1 ? io->out : devnull;
	c.fds[2] = io->err != -1 ? io->err : devnull;
	c.fds[SBX_SHIM_FD_STATUS] = spipe[1];
	c.fds[SBX_SHIM_FD_LIFELINE] = life[0];
	c.fds[SBX_SHIM_FD_WORKDIR] = io->workdir;
	c.fds[SBX_SHIM_FD_CHANGES] = io->changes;
	c.fds[SBX_SHIM_FD_CSBASE] = io->csbase;
	c.fds[SBX_SHIM_FD_PROXY] = psock[1];
	c.fds[SBX_SHIM_FD_ARM] = arm[1];
	c.lifeline_w = life[1];
	c.uid = conf->sandbox_uid;
	c.gid = conf->sandbox_gid;
	/* v2 checks no uid of the process moved, only the writer's
	 * access to the cgroups' files. */
	c.keep_suid = sp.cgroup_wait && !conf->cgv2;
	/* Maps written with CAP_SETUID/CAP_SETGID leave setgroups allowed:
	 * pid 1 drops the service's groups, and payloads own theirs. */
	c.dropgroups = idmap_can_map();
	/* The child's copy of sp: the strings point into the caller's
	 * buffers, which the child's copy of memory holds too. */
	c.spec = &sp;
	c.scrub = conf->child_scrub;

	/*
	 * Split (split.c): the spawner clones, under the payload floor's
	 * filter and without capabilities; the sandbox is still our child.
	 * Otherwise (the unit tests) this process clones itself.
	 */
	if (split_spawner() != -1)
		pid = spawner_request(&c, &pidfd, &mntns);
	else
		pid = spawn_clone(&c, 0, &pidfd);
	if (pid == -1) {
		saved = errno;
		nsdiag_explain(saved, err, errlen);
		goto fail;
	}

	sb->pid = pid;
	sb->pidfd = pidfd;
	sb->started = monotonic_ms();
	close_if(&spipe[1]);
	close_if(&life[0]);
	close_if(&psock[1]);
	close_if(&arm[1]);
	close_if(&devnull);
	sb->proxyfd = psock[0];
	sb->armfd = arm[0];
	sb->statusfd = spipe[0];
	sb->lifeline = life[1];
	/* Split, the spawner opened it: the front may not (split.c). */
	if (split_spawner() != -1)
		sb->mntns = mntns;
	else
		hold_mntns(sb);
	/* Records are read after the reap, when every writer is gone. */
	if (fcntl(sb->statusfd, F_SETFL, O_NONBLOCK) == -1) {
		snprintf(err, errlen, "status pipe: %s", sbx_errname(errno));
		sandbox_release(sb);
		return -1;
	}
	if (idmap_write(pid, sb->pidfd, conf, err, errlen) == -1) {
		/* Never let a sandbox start without its maps. */
		sandbox_release(sb);
		return -1;
	}
	if (write(sb->lifeline, "g", 1) != 1) {
		snprintf(err, errlen, "release sandbox: %s",
		    sbx_errname(errno));
		sandbox_release(sb);
		return -1;
	}
	/*
	 * Without CLONE_INTO_CGROUP (v1 has none; v2's needs clone3), and
	 * since moving a process takes the kernel's cgroup_threadgroup_rwsem,
	 * which may wait for an RCU grace period: pid 1 moves in while it
	 * builds the sandbox, and waits for this second byte before its
	 * payload exists, so no payload process runs outside the sandbox's
	 * cgroups and the move costs no latency of its own.  A failed move
	 * kills the sandbox.
	 */
	if (sp.cgroup_wait) {
		if (cgroup_attach(sb, pid, err, errlen) == -1) {
			sandbox_release(sb);
			return -1;
		}
		/* EPIPE: pid 1 already failed building the sandbox (a
		 * refused workdir, a missing bind) and ended; its status
		 * record says why, and the reap reads it as for any end. */
		if (write(sb->lifeline, "c", 1) != 1 && errno != EPIPE) {
			snprintf(err, errlen, "release sandbox to its payload: "
			    "%s", sbx_errname(errno));
			sandbox_release(sb);
			return -1;
		}
	}
	/* From here on the lifeline carries only window sizes, which a
	 * slow pid 1 may drop rather than stall the launcher. */
	if (sp.pty && fcntl(sb->lifeline, F_SETFL, O_NONBLOCK) == -1) {
		snprintf(err, errlen, "lifeline: %s", sbx_errname(errno));
		sandbox_release(sb);
		return -1;
	}
	sb->pty = sp.pty;
	sb->deadline = monotonic_ms() + sp.timeout_ms;
	return 0;

 fail:
	close_if(&spipe[0]);
	close_if(&spipe[1]);
	close_if(&psock[0]);
	close_if(&psock[1]);
	close_if(&arm[0]);
	close_if(&arm[1]);
	close_if(&life[0]);
	close_if(&life[1]);
	close_if(&devnull);
	cgroup_destroy(sb);
	return -1;
}

/*
 * A warm sandbox's run: its spec and stdio (fds[i] -1: the /dev/null pid
 * 1 already has) go to pid 1 as one datagram, the only one the socket
 * ever carries -- our end closes after it, so no second run can reach
 * this sandbox.  The run's deadline and wall clock start now.  0, or -1
 * with err (the caller kills the sandbox).
 */
int
sandbox_arm(struct sandbox *sb, const uint8_t *spec, size_t speclen,
    const int fds[3], uint32_t timeout_ms, char *err, size_t errlen)
{
	static uint8_t	 buf[sizeof(struct sbx_arm) + SBX_SPEC_WIRE_MAX];
	struct sbx_arm	 a;
	int		 send[3], rv;
	size_t		 n = 0, i;

	if (sb->armfd == -1 || speclen > SBX_SPEC_WIRE_MAX) {
		snprintf(err, errlen, "arm: %s", sb->armfd == -1 ?
		    "not a warm sandbox, or armed already" : "spec too long");
		return -1;
	}
	memset(&a, 0, sizeof(a));
	for (i = 0; i < 3; i++)
		if (fds[i] != -1) {
			a.slots |= 1U << i;
			send[n++] = fds[i];
		}
	a.speclen = (uint32_t)speclen;
	memcpy(buf, &a, sizeof(a));
	memcpy(buf + sizeof(a), spec, speclen);
	/* pid 1 is blocked in recvmsg on an empty socket: never a wait. */
	rv = fdpass_send(sb->armfd, buf, sizeof(a) + speclen, send, n,
	    MSG_DONTWAIT);
	if (rv == -1)
		snprintf(err, errlen, "arm: %s", sbx_errname(errno));
	explicit_bzero(buf, sizeof(a) + speclen);
	close(sb->armfd);
	sb->armfd = -1;
	if (rv == -1)
		return -1;
	sb->started = monotonic_ms();
	sandbox_set_deadline(sb, timeout_ms);
	return 0;
}
