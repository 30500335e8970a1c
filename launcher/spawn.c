/*
 * spawn.c: create one sandbox -- clone into fresh namespaces, let the
 * parent write the id maps, then exec sbx-shim with the spec on a sealed
 * memfd and every other descriptor closed.
 *
 * The clone child runs on a copy of the launcher's stack, like fork(), but
 * without glibc's fork handlers: until execve it uses only raw system
 * calls and memory prepared by the parent, so a lock some other thread
 * held at clone time cannot deadlock it.
 */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
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

#include "launcher.h"

/* Every namespace type: a sandbox shares nothing it can name. */
#define SANDBOX_CLONE_FLAGS	(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | \
				    CLONE_NEWNET | CLONE_NEWIPC | \
				    CLONE_NEWUTS | CLONE_NEWCGROUP)

/*
 * What the shim needs to build the sandbox, carried across its exec as
 * ambient capabilities (the sandbox id is not root, so exec would drop
 * them otherwise).  They are capabilities in the new user namespace only,
 * and the shim drops all of them before the payload exists.
 */
static const int shim_caps[] = {
	CAP_SYS_ADMIN,		/* mounts, pivot_root, sethostname */
	CAP_NET_ADMIN,		/* bring lo up */
	CAP_SETPCAP,		/* drop the bounding set, lock securebits */
	CAP_SYS_RESOURCE,	/* user.max_user_namespaces = 0 */
};

/* Above any fixed shim descriptor, so the dup2 pass cannot collide. */
#define CHILD_FD_HIGH		64

struct child {
	int		 fds[SBX_SHIM_NFDS];	/* -1: leave closed */
	int		 lifeline_w;		/* parent's end; close it */
	int		 status;		/* where setup errors go */
	uid_t		 uid;
	gid_t		 gid;
	int		 dropgroups;
	const char	*shim;
	int		 shimfd;		/* -1: exec shim by path */
	char		 execstep[SBX_STEP_MAX];
};

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

/* Inherited dispositions and masks would reach the payload. */
static void
child_reset_signals(void)
{
	struct sigaction	 sa;
	sigset_t		 set;
	int			 sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);
	sigemptyset(&set);
	(void)sigprocmask(SIG_SETMASK, &set, NULL);
}

static int
child_caps(void)
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
		data[shim_caps[i] / 32].inheritable |=
		    1U << (shim_caps[i] % 32);
	}
	if (syscall(SYS_capset, &hdr, data) == -1)
		return -1;
	for (i = 0; i < nitems(shim_caps); i++)
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE,
		    (unsigned long)shim_caps[i], 0UL, 0UL) == -1)
			return -1;
	return 0;
}

static __dead void
child_main(const struct child *c)
{
	char *const	 argv[] = { "sbx-shim", NULL };
	char *const	 envp[] = { NULL };
	int		 hi[SBX_SHIM_NFDS];
	int		 sfd = c->status;
	char		 go;
	int		 i, exefd, shimhi;

	/* If the launcher dies before the shim runs, so does the child. */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0UL, 0UL, 0UL);
	(void)close(c->lifeline_w);
	child_reset_signals();

	/* The maps are written once the parent's byte arrives. */
	if (read(c->fds[SBX_SHIM_FD_LIFELINE], &go, 1) != 1)
		_exit(127);

	if (c->dropgroups && syscall(SYS_setgroups, 0, NULL) == -1)
		child_fail(sfd, "setgroups");
	if (syscall(SYS_setresgid, c->gid, c->gid, c->gid) == -1)
		child_fail(sfd, "setresgid");
	if (prctl(PR_SET_KEEPCAPS, 1UL, 0UL, 0UL, 0UL) == -1)
		child_fail(sfd, "keepcaps");
	if (syscall(SYS_setresuid, c->uid, c->uid, c->uid) == -1)
		child_fail(sfd, "setresuid");
	if (child_caps() == -1)
		child_fail(sfd, "shim capabilities");

	/* The shim's descriptor may sit where 0-6 are about to go. */
	shimhi = -1;
	if (c->shimfd != -1 && (shimhi = fcntl(c->shimfd, F_DUPFD_CLOEXEC,
	    CHILD_FD_HIGH)) == -1)
		child_fail(sfd, "dup shim descriptor");
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
	/* Nothing of the launcher's reaches the sandbox. */
	for (i = SBX_SHIM_NFDS - 1; i >= 0 && hi[i] == -1; i--)
		;
	if (shimhi != -1) {
		/* The shim's descriptor survives just above them, close on
		 * exec; everything else goes. */
		if ((exefd = fcntl(shimhi, F_DUPFD_CLOEXEC, i + 1)) == -1)
			child_fail(sfd, "dup shim descriptor");
		if (exefd > i + 1 && syscall(SYS_close_range, (unsigned)(i + 1),
		    (unsigned)(exefd - 1), 0U) == -1)
			child_fail(sfd, "close_range");
		if (syscall(SYS_close_range, (unsigned)(exefd + 1), ~0U,
		    0U) == -1)
			child_fail(sfd, "close_range");
		syscall(SYS_execveat, exefd, "", argv, envp, AT_EMPTY_PATH);
		child_fail(sfd, c->execstep);
	}
	if (syscall(SYS_close_range, (unsigned)(i + 1), ~0U, 0U) == -1)
		child_fail(sfd, "close_range");

	execve(c->shim, argv, envp);
	child_fail(sfd, c->execstep);
}

static pid_t
do_clone(int cgroupfd, int *pidfd)
{
	struct clone_args	 ca;
	pid_t			 pid;

	memset(&ca, 0, sizeof(ca));
	ca.flags = SANDBOX_CLONE_FLAGS | CLONE_PIDFD;
	ca.pidfd = (uint64_t)(uintptr_t)pidfd;
	ca.exit_signal = SIGCHLD;
	if (cgroupfd != -1) {
		ca.flags |= CLONE_INTO_CGROUP;
		ca.cgroup = (uint64_t)cgroupfd;
	}
	pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	/* A filter may answer ENOSYS for clone3; clone has the same flags. */
	if (pid == -1 && errno == ENOSYS && cgroupfd == -1)
		pid = (pid_t)syscall(SYS_clone, (unsigned long)
		    (SANDBOX_CLONE_FLAGS | CLONE_PIDFD | SIGCHLD), NULL,
		    pidfd, NULL, NULL);
	return pid;
}

/* The spec travels on a sealed memfd: the shim reads exactly what we
 * checked, and nothing in the sandbox can rewrite it. */
static int
spec_memfd(const struct sbx_spec *sp, char *err, size_t errlen)
{
	static uint8_t	 wire[SBX_SPEC_WIRE_MAX];
	char		 why[SBX_SPEC_ERRLEN];
	size_t		 len, off;
	ssize_t		 n;
	int		 fd;

	if (sbx_spec_serialise(sp, wire, sizeof(wire), &len, why,
	    sizeof(why)) == -1) {
		snprintf(err, errlen, "spec refused: %s", why);
		return -1;
	}
	if ((fd = memfd_create("sbx-spec", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING)) == -1) {
		snprintf(err, errlen, "memfd_create: %s", sbx_errname(errno));
		return -1;
	}
	for (off = 0; off < len; off += (size_t)n) {
		if ((n = write(fd, wire + off, len - off)) <= 0) {
			snprintf(err, errlen, "write spec memfd: %s",
			    n == 0 ? "short write" : sbx_errname(errno));
			close(fd);
			return -1;
		}
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_WRITE | F_SEAL_SEAL) == -1 ||
	    lseek(fd, 0, SEEK_SET) == -1) {
		snprintf(err, errlen, "seal spec memfd: %s",
		    sbx_errname(errno));
		close(fd);
		return -1;
	}
	return fd;
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

int
sandbox_spawn(struct sandbox *sb, const struct launcher_conf *conf,
    const struct sbx_spec *spec, const struct sandbox_io *io, char *err,
    size_t errlen)
{
	struct sbx_spec	 sp;
	struct child	 c;
	int		 spipe[2] = { -1, -1 }, life[2] = { -1, -1 };
	int		 memfd = -1, devnull = -1, pidfd = -1, saved;
	pid_t		 pid;

	memset(sb, 0, sizeof(*sb));
	sb->pidfd = sb->statusfd = sb->lifeline = -1;
	sb->cgroupfd = sb->cgroupdir = -1;
	if (conf->shim_fd == -1 &&
	    (conf->shim_path == NULL || conf->shim_path[0] != '/')) {
		snprintf(err, errlen, "shim path \"%s\": not absolute",
		    conf->shim_path ? conf->shim_path : "");
		return -1;
	}
	if (idmap_check(conf, err, errlen) == -1 ||
	    check_io(spec, io, err, errlen) == -1)
		return -1;

	sp = *spec;
	sp.cgroup = 0;
	sb->limits = SBX_LIMIT_RLIMIT;
	if (conf->cgroup_dir != NULL) {
		if (cgroup_create(sb, conf->cgroup_dir, &sp, err,
		    errlen) == -1)
			return -1;
		sp.cgroup = 1;
		sb->limits = SBX_LIMIT_CGROUP;
	}
	if ((memfd = spec_memfd(&sp, err, errlen)) == -1)
		goto fail;
	if (pipe2(spipe, O_CLOEXEC) == -1 || pipe2(life, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe2: %s", sbx_errname(errno));
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
	c.fds[SBX_SHIM_FD_SPEC] = memfd;
	c.fds[SBX_SHIM_FD_STATUS] = spipe[1];
	c.fds[SBX_SHIM_FD_LIFELINE] = life[0];
	c.fds[SBX_SHIM_FD_WORKDIR] = io->workdir;
	c.lifeline_w = life[1];
	c.status = spipe[1];
	c.uid = conf->sandbox_uid;
	c.gid = conf->sandbox_gid;
	c.dropgroups = idmap_privileged();
	c.shim = conf->shim_path;
	c.shimfd = conf->shim_fd;
	snprintf(c.execstep, sizeof(c.execstep), "execve %s",
	    conf->shim_path);

	if ((pid = do_clone(sb->cgroupfd, &pidfd)) == -1) {
		saved = errno;
		nsdiag_explain(saved, err, errlen);
		goto fail;
	}
	if (pid == 0)
		child_main(&c);

	sb->pid = pid;
	sb->pidfd = pidfd;
	close_if(&spipe[1]);
	close_if(&life[0]);
	close_if(&memfd);
	close_if(&devnull);
	sb->statusfd = spipe[0];
	sb->lifeline = life[1];
	/* Records are read after the reap, when every writer is gone. */
	if (fcntl(sb->statusfd, F_SETFL, O_NONBLOCK) == -1) {
		snprintf(err, errlen, "status pipe: %s", sbx_errname(errno));
		sandbox_release(sb);
		return -1;
	}
	if (idmap_write(pid, conf, err, errlen) == -1) {
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
	sb->deadline = sandbox_now_ms() + sp.timeout_ms;
	return 0;

 fail:
	close_if(&memfd);
	close_if(&spipe[0]);
	close_if(&spipe[1]);
	close_if(&life[0]);
	close_if(&life[1]);
	close_if(&devnull);
	cgroup_destroy(sb);
	return -1;
}
