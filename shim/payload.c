/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * payload.c: pid 1's job once the sandbox is built -- start the payload
 * as a child, reap every process that ends up ours, forward SIGTERM,
 * SIGINT, SIGQUIT and SIGHUP to the payload's process group, as a
 * terminal would, and when the payload ends report its
 * raw wait status and exit.  Exiting makes the kernel kill whatever else
 * still runs in the pid namespace: a sandbox lives as long as its payload.
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "spec.h"
#include "shim.h"

/* What the payload child sends back when it cannot become the payload. */
struct exec_error {
	int	 error;
	int	 step;		/* STEP_* */
};
#define STEP_FILTER	1
#define STEP_EXEC	2

static __dead void
child_fail(int fd, int step)
{
	struct exec_error	 ee;

	ee.error = errno;
	ee.step = step;
	if (write(fd, &ee, sizeof(ee)) != (ssize_t)sizeof(ee))
		_exit(126);
	_exit(127);
}

/*
 * Every signal's disposition back to the default and none blocked, so
 * that what a parent installed or blocked (the launcher's libevent
 * handlers, pid 1's blocked SIGCHLD) reaches neither the shim nor the
 * payload.  Only system calls: it runs in the launcher's clone child and
 * in pid 1's vfork child.  0, or -1 with errno from sigprocmask.
 */
int
shim_reset_signals(void)
{
	struct sigaction	 sa;
	sigset_t		 set;
	int			 sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);
	sigemptyset(&set);
	return sigprocmask(SIG_SETMASK, &set, NULL);
}

/*
 * argv[0] as typed, the way a shell runs it, inside the sandbox: a name
 * with a '/' as it is (relative ones from the working directory, which is
 * the workdir), a bare name in each directory of the payload's PATH (the
 * spec always has one: monitor/runspec.c adds the default).  An empty
 * element of PATH, which a shell reads as the working directory, is
 * skipped: a name typed without "./" never runs a file of the workdir.
 * Only system calls and the stack: it runs in the vfork child.  Returns
 * only on failure, with errno EACCES if some candidate was not
 * executable, else the last error.
 */
static void
exec_payload(const struct sbx_spec *sp)
{
	const char	*cmd = sp->argv[0], *path = NULL, *p, *end;
	char		 buf[PATH_MAX];
	size_t		 i, n, clen;
	int		 eacces = 0;

	if (strchr(cmd, '/') != NULL) {
		execve(cmd, (char *const *)sp->argv, (char *const *)sp->env);
		return;
	}
	for (i = 0; i < sp->envc; i++)
		if (strncmp(sp->env[i], "PATH=", 5) == 0)
			path = sp->env[i] + 5;
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	clen = strlen(cmd);
	errno = ENOENT;
	for (p = path; *p != '\0'; p = *end != '\0' ? end + 1 : end) {
		if ((end = strchr(p, ':')) == NULL)
			end = p + strlen(p);
		n = (size_t)(end - p);
		if (n == 0 || n + 1 + clen + 1 > sizeof(buf))
			continue;
		memcpy(buf, p, n);
		buf[n] = '/';
		memcpy(buf + n + 1, cmd, clen + 1);
		execve(buf, (char *const *)sp->argv, (char *const *)sp->env);
		if (errno == EACCES)
			eacces = 1;
		else if (errno != ENOENT && errno != ENOTDIR)
			return;
	}
	if (eacces)
		errno = EACCES;
}

/* Commands without a pty; a provider's stdio is the runner's channel,
 * the self-test's the monitor's. */
static int
relayed(const struct sbx_spec *sp)
{
	return !sp->pty && sp->class == SBX_CLASS_COMMAND;
}

/*
 * Runs in a vfork child (see start_payload): system calls on its own
 * descriptor table, signal handlers and mask, and the stack below pid 1's
 * suspended frames only; it never returns.
 */
static __dead void
payload_child(const struct sbx_spec *sp, int errfd)
{
	if (shim_reset_signals() == -1)
		child_fail(errfd, STEP_EXEC);
	/* Its own process group, so that a forwarded SIGINT reaches what
	 * it started too (bash -c 'sleep 6; echo done' ends on ^C); in pty
	 * mode its own session, with the pty as its terminal. */
	if (sp->pty ? shim_pty_child() == -1 : setpgid(0, 0) == -1)
		child_fail(errfd, STEP_EXEC);
	/* A command's stdout and stderr: pid 1's pipes (stdrelay.c). */
	if (relayed(sp) && shim_relay_child() == -1)
		child_fail(errfd, STEP_EXEC);
	/* Only 0-2 reach the payload; errfd closes on a successful exec. */
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == -1)
		child_fail(errfd, STEP_EXEC);
	/* Sanitizer builds only (limits.c); the self-test runs the shim's
	 * own code, which no RLIMIT_AS leaves room for there. */
	if (sp->class != SBX_CLASS_SELFTEST && shim_limits_payload(sp) == -1)
		child_fail(errfd, STEP_EXEC);
	/* Last, so the filter has to permit nothing of the shim's. */
	if (shim_payload_filter((int)sp->class, sp->ptrace) == -1)
		child_fail(errfd, STEP_FILTER);
	/* The self-test checks what a payload would see at this very
	 * point; it needs no executable visible inside the sandbox. */
	if (sp->class == SBX_CLASS_SELFTEST) {
		close(errfd);
		_exit(shim_selftest((int)sp->argc, (char **)sp->argv));
	}
	exec_payload(sp);
	child_fail(errfd, STEP_EXEC);
}

/*
 * The payload child.  A command or provider execs at once, so pid 1 -- a
 * copy of the launcher's address space -- is not copied a second time:
 * vfork shares it until the exec (pid 1 waits), which spares copying the
 * page tables and every copy-on-write fault.  The self-test runs its
 * checks in the child itself, with stdio and the heap, so it gets a copy
 * of its own.
 */
static pid_t
start_payload(const struct sbx_spec *sp, const int ep[2])
{
	pid_t	 pid;

	if (sp->class == SBX_CLASS_SELFTEST)
		pid = fork();
	else
		pid = vfork();
	if (pid == 0) {
		close(ep[0]);
		payload_child(sp, ep[1]);
	}
	return pid;
}

/* pid 1 keeps none of the payload's stdio: EOF and EPIPE must reach the
 * caller when the payload closes them, not when pid 1 exits. */
static void
drop_stdio(void)
{
	int	 fd, i;

	if ((fd = open("/dev/null", O_RDWR)) == -1)
		shim_fail(errno, "open /dev/null");
	for (i = 0; i < 3; i++)
		if (fd != i && dup2(fd, i) == -1)
			shim_fail(errno, "dup2 /dev/null");
	if (fd > 2)
		close(fd);
}

void
shim_run(const struct sbx_spec *sp, uint32_t limits)
{
	struct exec_error	 ee;
	struct sigaction	 sa;
	siginfo_t		 si;
	sigset_t		 set;
	struct shim_usage	 use;
	pid_t			 child;
	ssize_t			 n;
	int			 ep[2], ws;

	memset(&use, 0, sizeof(use));

	/* Blocked before fork, so nothing is lost before sigwaitinfo. */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
		shim_fail(errno, "sigprocmask");
	if (pipe2(ep, O_CLOEXEC) == -1)
		shim_fail(errno, "pipe2");
	if (relayed(sp))
		shim_relay_pipes();

	if ((child = start_payload(sp, ep)) == -1)
		shim_fail(errno, "fork payload");
	close(ep[1]);
	/* A caller's descriptor that fails is an errno in the record
	 * (EPIPE, EFBIG past pid 1's fsize), never the end of pid 1. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL) == -1 ||
	    sigaction(SIGXFSZ, &sa, NULL) == -1)
		shim_fail(errno, "sigaction");
	if (sp->pty)
		shim_pty_parent(&set);
	else if (relayed(sp))
		shim_relay_parent(&set);
	else
		drop_stdio();

	do {
		n = read(ep[0], &ee, sizeof(ee));
	} while (n == -1 && errno == EINTR);
	if (n == (ssize_t)sizeof(ee)) {
		(void)waitpid(child, &ws, 0);
		if (ee.step == STEP_FILTER)
			shim_fail(ee.error, "payload seccomp filter");
		shim_fail(ee.error, "execve %s", sp->argv[0]);
	}
	if (n != 0)
		shim_fail(n == -1 ? errno : EPROTO, "payload exec status");
	close(ep[0]);
	/* The payload runs; pid 1 is only a reaper from here on. */
	shim_output_init(sp->output, child);
	shim_reaper_filter();
	if (sp->pty)
		shim_pty_relay(child, limits);
	if (relayed(sp))
		shim_relay_loop(child, limits);

	for (;;) {
		if (sigwaitinfo(&set, &si) == -1) {
			if (errno == EINTR)
				continue;
			shim_fail(errno, "sigwaitinfo");
		}
		if (si.si_signo != SIGCHLD)
			shim_forward(child, si.si_signo);
		else if (shim_reap(child, &use, &ws))
			shim_end(ws, limits, &use);
	}
}
