/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * payload.c: pid 1's job once the sandbox is built -- start the payload
 * as a child, reap every process that ends up ours, forward SIGTERM,
 * SIGINT and SIGHUP to the payload, and when the payload ends report its
 * raw wait status and exit.  Exiting makes the kernel kill whatever else
 * still runs in the pid namespace: a sandbox lives as long as its payload.
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
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
 * Runs in a vfork child (see start_payload): system calls on its own
 * descriptor table, signal handlers and mask, and the stack below pid 1's
 * suspended frames only; it never returns.
 */
static __dead void
payload_child(const struct sbx_spec *sp, int errfd)
{
	if (shim_reset_signals() == -1)
		child_fail(errfd, STEP_EXEC);
	/* Only 0-2 reach the payload; errfd closes on a successful exec. */
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == -1)
		child_fail(errfd, STEP_EXEC);
	/* Sanitizer builds only (limits.c); the self-test runs the shim's
	 * own code, which no RLIMIT_AS leaves room for there. */
	if (sp->class != SBX_CLASS_SELFTEST && shim_limits_payload(sp) == -1)
		child_fail(errfd, STEP_EXEC);
	/* Last, so the filter has to permit nothing of the shim's. */
	if (shim_payload_filter((int)sp->class) == -1)
		child_fail(errfd, STEP_FILTER);
	/* The self-test checks what a payload would see at this very
	 * point; it needs no executable visible inside the sandbox. */
	if (sp->class == SBX_CLASS_SELFTEST) {
		close(errfd);
		_exit(shim_selftest((int)sp->argc, (char **)sp->argv));
	}
	execve(sp->argv[0], (char *const *)sp->argv, (char *const *)sp->env);
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
	siginfo_t		 si;
	sigset_t		 set;
	struct rusage		 ru;
	struct shim_usage	 use;
	pid_t			 child, p;
	ssize_t			 n;
	int			 ep[2], ws;

	memset(&use, 0, sizeof(use));

	/* Blocked before fork, so nothing is lost before sigwaitinfo. */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
		shim_fail(errno, "sigprocmask");
	if (pipe2(ep, O_CLOEXEC) == -1)
		shim_fail(errno, "pipe2");

	if ((child = start_payload(sp, ep)) == -1)
		shim_fail(errno, "fork payload");
	close(ep[1]);
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
	shim_reaper_filter();

	for (;;) {
		if (sigwaitinfo(&set, &si) == -1) {
			if (errno == EINTR)
				continue;
			shim_fail(errno, "sigwaitinfo");
		}
		if (si.si_signo != SIGCHLD) {
			(void)kill(child, si.si_signo);
			continue;
		}
		while ((p = wait4(-1, &ws, WNOHANG, &ru)) > 0) {
			/* Each one's rusage includes the descendants it
			 * reaped itself; the orphans come here. */
			use.utime_us += (uint64_t)ru.ru_utime.tv_sec *
			    1000000 + (uint64_t)ru.ru_utime.tv_usec;
			use.stime_us += (uint64_t)ru.ru_stime.tv_sec *
			    1000000 + (uint64_t)ru.ru_stime.tv_usec;
			if ((uint64_t)ru.ru_maxrss > use.maxrss_kb)
				use.maxrss_kb = (uint64_t)ru.ru_maxrss;
			if (p != child)
				continue;
			shim_report_exit(ws, limits, &use);
			_exit(WIFEXITED(ws) ? WEXITSTATUS(ws) :
			    128 + WTERMSIG(ws));
		}
	}
}
