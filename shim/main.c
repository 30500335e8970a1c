/*
 * sbx-shim: pid 1 of a sandbox.  Started by sbx-launcher in fresh user,
 * pid, mount, network, ipc, uts and cgroup namespaces, with an empty
 * environment, the payload's stdio on 0-2, the spec on SBX_SHIM_FD_SPEC
 * and the capabilities it needs to build the sandbox as ambient ones.
 *
 * The order follows bubblewrap's: nothing of the payload's runs until the
 * mount tree is final, the capabilities are gone, no_new_privs, Landlock
 * and the rlimits are in place; the payload's seccomp filter comes last,
 * in the payload child itself, right before execve.
 */
#include <sys/types.h>
#include <sys/prctl.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

extern char		**environ;

/*
 * In the sanitizer build (make sanitize) this program carries ASan, whose
 * leak checker ptrace()s the process at exit.  Inside a sandbox the
 * payload filter refuses ptrace, as it must, so leak checking is off here;
 * the code it would check is exercised leak-checked outside sandboxes.
 */
#if defined(__SANITIZE_ADDRESS__)
const char	*__asan_default_options(void);

const char *
__asan_default_options(void)
{
	return "detect_leaks=0";
}
#endif

static uint8_t		 wire[SBX_SPEC_WIRE_MAX + 1];
static struct sbx_spec	 spec;

/*
 * PR_SET_PDEATHSIG covers the launcher dying from now on; the lifeline
 * pipe (the launcher holds its only write end) covers it having died
 * before: getppid() cannot tell, it is 0 for a pid namespace's init.
 */
static void
die_with_parent(void)
{
	struct pollfd	 pfd;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0UL, 0UL, 0UL) == -1)
		shim_fail(errno, "prctl PR_SET_PDEATHSIG");
	pfd.fd = SBX_SHIM_FD_LIFELINE;
	pfd.events = POLLIN;
	pfd.revents = 0;
	if (poll(&pfd, 1, 0) == -1)
		shim_fail(errno, "poll lifeline");
	if (pfd.revents & POLLNVAL)
		shim_fail(EBADF, "lifeline fd %d", SBX_SHIM_FD_LIFELINE);
	/* Nobody is left to read a report. */
	if (pfd.revents & (POLLHUP | POLLERR))
		_exit(SHIM_EXIT_SETUP);
}

static void
read_spec(void)
{
	char	 err[SBX_SPEC_ERRLEN];
	size_t	 len = 0;
	ssize_t	 n;

	for (;;) {
		n = read(SBX_SHIM_FD_SPEC, wire + len, sizeof(wire) - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			shim_fail(errno, "read spec");
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == sizeof(wire))
			shim_fail(E2BIG, "spec: more than %d bytes",
			    SBX_SPEC_WIRE_MAX);
	}
	close(SBX_SHIM_FD_SPEC);
	if (sbx_spec_parse(&spec, wire, len, err, sizeof(err)) == -1)
		shim_fail(0, "spec: %s", err);
}

int
main(int argc, char *argv[])
{
	uint32_t	 limits;
	int		 fd;

	(void)argc;
	(void)argv;

	/* /proc/1/environ is readable to whoever may read pid 1: an
	 * environment here would be the caller's secrets on display. */
	if (environ != NULL && environ[0] != NULL)
		shim_fail(EINVAL, "shim: started with a non-empty environment");
	die_with_parent();
	if (getpid() != 1)
		shim_fail(EINVAL, "shim: not pid 1 of a new pid namespace");
	/* The payload runs as the same uid: without this it could ptrace
	 * pid 1 and forge the exit record or read the status pipe. */
	if (prctl(PR_SET_DUMPABLE, 0UL, 0UL, 0UL, 0UL) == -1)
		shim_fail(errno, "prctl PR_SET_DUMPABLE");
	for (fd = SBX_SHIM_FD_STATUS; fd < SBX_SHIM_NFDS; fd++)
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1 && errno != EBADF)
			shim_fail(errno, "fcntl %d FD_CLOEXEC", fd);

	read_spec();
	shim_mounts(&spec);
	if (sethostname(SHIM_HOSTNAME, strlen(SHIM_HOSTNAME)) == -1)
		shim_fail(errno, "sethostname");
	shim_net(&spec);
	/* A new session: no controlling terminal, so no TIOCSTI into the
	 * caller's terminal (CVE-2017-5226). */
	if (setsid() == -1)
		shim_fail(errno, "setsid");
	shim_drop_caps();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1UL, 0UL, 0UL, 0UL) == -1)
		shim_fail(errno, "prctl PR_SET_NO_NEW_PRIVS");
	shim_landlock(&spec);
	limits = shim_limits(&spec);
	shim_run(&spec, limits);
}
