/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_shim_filter: the sandbox's seccomp filters as the launcher installs
 * them -- compiled once (shim_filters_init), then loaded from that program
 * in each sandbox (shim_payload_filter, shim_reaper_filter).  Each case
 * loads a filter in a forked child and tries calls the privilege file
 * denies or kills, so what is checked is the filter in force, not the
 * table. t_launcher_sandbox and regress/run.sh check the same through real
 * sandboxes.
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/netlink.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "common.h"
#include "spec.h"
#include "shim/shim.h"

#ifndef AF_VSOCK
#define AF_VSOCK	40
#endif

/* One line per call tried: "NAME ERRNO-NAME" or "NAME ok". */
static void
say(int fd, const char *name, long rc)
{
	dprintf(fd, "%s %s\n", name, rc == -1 ? sbx_errname(errno) : "ok");
}

/* The number after "Name:" in /proc/self/status, -1 if none. */
static long
status_value(const char *name)
{
	char	 line[256];
	FILE	*f;
	size_t	 n = strlen(name);
	long	 v = -1;

	if ((f = fopen("/proc/self/status", "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, name, n) == 0 && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/* Relative to the test process: whatever runs us may filter it too. */
static void
say_filters(int fd, long before)
{
	dprintf(fd, "filters +%ld\n", status_value("Seccomp_filters") -
	    before);
}

/* Run fn in a child whose stdout is a pipe; its output and status. */
static void
in_child(void (*fn)(int), char *out, size_t outlen, int *status)
{
	size_t	 got = 0;
	ssize_t	 n;
	pid_t	 pid;
	int	 p[2];

	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		close(p[0]);
		fn(p[1]);
		_exit(0);
	}
	close(p[1]);
	while (got < outlen - 1 &&
	    (n = read(p[0], out + got, outlen - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(p[0]);
	ATF_REQUIRE(waitpid(pid, status, 0) == pid);
}

static void
expect(const char *out, const char *line)
{
	char	 want[128];

	snprintf(want, sizeof(want), "%s\n", line);
	ATF_CHECK_MSG(strstr(out, want) != NULL, "no \"%s\" in:\n%s", line,
	    out);
}

/*
 * Every call below is harmless without the filter too (a bad pointer, a
 * missing path, a pid we do not trace), so a filter that failed to load
 * shows up as a wrong answer, never as damage to the host.
 */
static void
load_command(int fd)
{
	char	 err[256];
	long	 before = status_value("Seccomp_filters");

	if (shim_filters_init(err, sizeof(err)) == -1) {
		dprintf(fd, "init %s\n", err);
		_exit(1);
	}
	if (shim_payload_filter(SBX_CLASS_COMMAND, 0) == -1) {
		say(fd, "load", -1);
		_exit(1);
	}
	say(fd, "load", 0);
	say_filters(fd, before);
	dprintf(fd, "mode %ld\n", status_value("Seccomp"));
	say(fd, "getpid", getpid());
	say(fd, "bpf", syscall(SYS_bpf, 0, NULL, 0));
	say(fd, "perf_event_open", syscall(SYS_perf_event_open, NULL, 0, -1,
	    -1, 0));
	say(fd, "keyctl", syscall(SYS_keyctl, 0, 0, 0, 0, 0));
	say(fd, "ptrace", syscall(SYS_ptrace, 2 /* PEEKDATA */, 1, 0, 0));
	say(fd, "userfaultfd", syscall(SYS_userfaultfd, 0));
	say(fd, "io_uring_setup", syscall(SYS_io_uring_setup, 1, NULL));
	say(fd, "clone3", syscall(SYS_clone3, NULL, 0));
	say(fd, "unshare", syscall(SYS_unshare, CLONE_NEWUSER));
	say(fd, "mount", mount("none", "/proc/self/nonexistent-sbx",
	    "tmpfs", 0, NULL));
	say(fd, "setns", syscall(SYS_setns, -1, 0));
	/* The high bits must not get TIOCSTI past the filter. */
	say(fd, "tiocsti", syscall(SYS_ioctl, 0, 0x100000000UL | TIOCSTI,
	    "x"));
	say(fd, "personality", syscall(SYS_personality, 0xffffffffUL));
	say(fd, "vsock", socket(AF_VSOCK, SOCK_STREAM, 0));
	say(fd, "netlink_audit", socket(AF_NETLINK, SOCK_RAW,
	    NETLINK_AUDIT));
	say(fd, "netlink_route", socket(AF_NETLINK, SOCK_RAW,
	    NETLINK_ROUTE));
	say(fd, "inet", socket(AF_INET, SOCK_DGRAM, 0));
}

ATF_TC_WITHOUT_HEAD(command_filter_denies);
ATF_TC_BODY(command_filter_denies, tc)
{
	char	 out[4096];
	int	 status;

	(void)tc;
	in_child(load_command, out, sizeof(out), &status);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "status 0x%x:\n%s", status, out);
	expect(out, "load ok");
	expect(out, "mode 2");
	/* Exactly one program more: the precompiled one. */
	expect(out, "filters +1");
	expect(out, "getpid ok");
	expect(out, "bpf EPERM");
	expect(out, "perf_event_open EPERM");
	expect(out, "keyctl EPERM");
	expect(out, "ptrace EPERM");
	expect(out, "userfaultfd EPERM");
	expect(out, "io_uring_setup ENOSYS");
	expect(out, "clone3 ENOSYS");
	expect(out, "unshare EPERM");
	expect(out, "mount EPERM");
	expect(out, "setns EPERM");
	expect(out, "tiocsti EPERM");
	expect(out, "personality EPERM");
	expect(out, "vsock EPERM");
	expect(out, "netlink_audit EPERM");
	expect(out, "netlink_route ok");
	expect(out, "inet ok");
}

static void
load_command_and_kexec(int fd)
{
	char	 err[256];

	if (shim_filters_init(err, sizeof(err)) == -1 ||
	    shim_payload_filter(SBX_CLASS_SELFTEST, 0) == -1)
		_exit(1);
	dprintf(fd, "loaded\n");
	syscall(SYS_finit_module, -1, "", 0);
	dprintf(fd, "survived\n");
}

/* "kill" rules end the whole process with SIGSYS; the self-test class
 * gets command.priv too. */
ATF_TC_WITHOUT_HEAD(command_filter_kills);
ATF_TC_BODY(command_filter_kills, tc)
{
	char	 out[256];
	int	 status;

	(void)tc;
	in_child(load_command_and_kexec, out, sizeof(out), &status);
	ATF_CHECK_STREQ(out, "loaded\n");
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
	    "status 0x%x", status);
}

static void
load_provider(int fd)
{
	int	 sv[2];
	char	 err[256];

	if (shim_filters_init(err, sizeof(err)) == -1 ||
	    shim_payload_filter(SBX_CLASS_PROVIDER, 0) == -1)
		_exit(1);
	say(fd, "load", 0);
	say(fd, "inet", socket(AF_INET, SOCK_STREAM, 0));
	say(fd, "unix", socket(AF_UNIX, SOCK_STREAM, 0));
	say(fd, "socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	say(fd, "bpf", syscall(SYS_bpf, 0, NULL, 0));
	say(fd, "getpid", getpid());
}

ATF_TC_WITHOUT_HEAD(provider_filter_denies);
ATF_TC_BODY(provider_filter_denies, tc)
{
	char	 out[1024];
	int	 status;

	(void)tc;
	in_child(load_provider, out, sizeof(out), &status);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "status 0x%x:\n%s", status, out);
	expect(out, "load ok");
	expect(out, "inet EPERM");
	expect(out, "unix EPERM");
	expect(out, "socketpair EPERM");
	expect(out, "bpf EPERM");
	expect(out, "getpid ok");
}

/*
 * Set-id bits (issue 20): every call that sets a mode refuses S_ISUID and
 * S_ISGID under both payload filters.  The paths do not exist and the
 * descriptor is -1, so without the filter each call fails harmlessly
 * (ENOENT, EBADF); the same calls without the bits show the rules are
 * conditional.  fchmodat2 (452) is named by number where libseccomp
 * cannot name it; openat2 is ENOSYS.
 */
#define NOPATH		"/proc/self/nonexistent-sbx/f"
#define NR_FCHMODAT2	452

static void
try_setid(int fd, const char *tag, mode_t bit)
{
	char		 name[64];
	uint64_t	 how[3];
	mode_t		 m = 0755 | bit;

#define T(what, call) do {						\
	snprintf(name, sizeof(name), "%s %s", what, tag);		\
	say(fd, name, (call));						\
} while (0)
	T("chmod", syscall(SYS_chmod, NOPATH, m));
	T("fchmod", syscall(SYS_fchmod, -1, m));
	T("fchmodat", syscall(SYS_fchmodat, AT_FDCWD, NOPATH, m));
	T("fchmodat2", syscall(NR_FCHMODAT2, AT_FDCWD, NOPATH, m, 0));
	T("creat", syscall(SYS_creat, NOPATH, m));
	T("open", syscall(SYS_open, NOPATH, O_WRONLY | O_CREAT, m));
	T("open_tmpfile", syscall(SYS_open, NOPATH, O_WRONLY | O_TMPFILE,
	    m));
	T("openat", syscall(SYS_openat, AT_FDCWD, NOPATH, O_WRONLY | O_CREAT,
	    m));
	T("openat_tmpfile", syscall(SYS_openat, AT_FDCWD, NOPATH,
	    O_WRONLY | O_TMPFILE, m));
	/* The high bits of a 32-bit flags argument must not matter. */
	T("openat_high", syscall(SYS_openat, AT_FDCWD, NOPATH,
	    0x100000000UL | O_WRONLY | O_CREAT, m));
	T("mkdir", syscall(SYS_mkdir, NOPATH, 0775 | bit));
	T("mkdirat", syscall(SYS_mkdirat, AT_FDCWD, NOPATH, 0775 | bit));
	T("mknod", syscall(SYS_mknod, NOPATH, S_IFREG | m, 0));
	T("mknodat", syscall(SYS_mknodat, AT_FDCWD, NOPATH, S_IFREG | m, 0));
	how[0] = O_WRONLY | O_CREAT;
	how[1] = m;
	how[2] = 0;
	T("openat2", syscall(SYS_openat2, AT_FDCWD, NOPATH, how,
	    sizeof(how)));
#undef T
}

static void
load_setid(int fd, int class)
{
	char	 err[256];

	if (shim_filters_init(err, sizeof(err)) == -1 ||
	    shim_payload_filter(class, 0) == -1)
		_exit(1);
	try_setid(fd, "setuid", S_ISUID);
	try_setid(fd, "setgid", S_ISGID);
	try_setid(fd, "plain", 0);
	/* Without O_CREAT or O_TMPFILE the mode is unused: not refused. */
	say(fd, "open_nocreat", syscall(SYS_open, NOPATH, O_RDONLY,
	    0755 | S_ISUID));
}

static void
load_setid_command(int fd)
{
	load_setid(fd, SBX_CLASS_COMMAND);
}

static void
load_setid_provider(int fd)
{
	load_setid(fd, SBX_CLASS_PROVIDER);
}

static void
check_setid(void (*fn)(int))
{
	static const char *const calls[] = {
		"chmod", "fchmod", "fchmodat", "fchmodat2", "creat", "open",
		"open_tmpfile", "openat", "openat_tmpfile", "openat_high",
		"mkdir", "mkdirat", "mknod", "mknodat"
	};
	char		 out[8192], line[64];
	size_t		 i;
	int		 status;

	in_child(fn, out, sizeof(out), &status);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "status 0x%x:\n%s", status, out);
	for (i = 0; i < nitems(calls); i++) {
		snprintf(line, sizeof(line), "%s setuid EPERM", calls[i]);
		expect(out, line);
		snprintf(line, sizeof(line), "%s setgid EPERM", calls[i]);
		expect(out, line);
		/* The kernel's own answer: the path or descriptor is bad. */
		snprintf(line, sizeof(line), "%s plain %s", calls[i],
		    strcmp(calls[i], "fchmod") == 0 ? "EBADF" : "ENOENT");
		expect(out, line);
	}
	expect(out, "openat2 setuid ENOSYS");
	expect(out, "openat2 setgid ENOSYS");
	expect(out, "openat2 plain ENOSYS");
	expect(out, "open_nocreat ENOENT");
}

ATF_TC_WITHOUT_HEAD(payload_filters_setid);
ATF_TC_BODY(payload_filters_setid, tc)
{
	(void)tc;
	check_setid(load_setid_command);
	check_setid(load_setid_provider);
}

static void
load_reaper(int fd)
{
	char	 err[256];

	/* shim_fail reports on the status descriptor. */
	if (dup2(fd, SBX_SHIM_FD_STATUS) == -1 ||
	    shim_filters_init(err, sizeof(err)) == -1)
		_exit(1);
	shim_reaper_filter();
	/* write and getpid are pid 1's; getppid is not. */
	if (write(fd, "applied\n", 8) != 8)
		_exit(2);
	(void)getpid();
	syscall(SYS_getppid);
	if (write(fd, "survived\n", 9) != 9)
		_exit(3);
}

/* pid 1's own filter, default kill: once it is loaded the reaper can do
 * its job and nothing else. */
ATF_TC_WITHOUT_HEAD(reaper_filter_kills);
ATF_TC_BODY(reaper_filter_kills, tc)
{
	char	 out[512];
	int	 status;

	(void)tc;
	in_child(load_reaper, out, sizeof(out), &status);
	ATF_CHECK_STREQ(out, "applied\n");
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
	    "status 0x%x: %s", status, out);
}

static void
load_uncompiled(int fd)
{
	long	 before = status_value("Seccomp_filters");

	say(fd, "command", shim_payload_filter(SBX_CLASS_COMMAND, 0));
	say(fd, "provider", shim_payload_filter(SBX_CLASS_PROVIDER, 0));
	say_filters(fd, before);
}

static void
load_unknown(int fd)
{
	char	 err[256];
	long	 before = status_value("Seccomp_filters");

	/* Twice: the second call finds the programs compiled. */
	if (shim_filters_init(err, sizeof(err)) == -1 ||
	    shim_filters_init(err, sizeof(err)) == -1)
		_exit(1);
	say(fd, "class 0", shim_payload_filter(0, 0));
	say(fd, "class 99", shim_payload_filter(99, 0));
	say_filters(fd, before);
}

/* Fail closed: no payload runs without its filter, whatever the caller
 * forgot. */
ATF_TC_WITHOUT_HEAD(no_filter_no_payload);
ATF_TC_BODY(no_filter_no_payload, tc)
{
	char	 out[512];
	int	 status;

	(void)tc;
	in_child(load_uncompiled, out, sizeof(out), &status);
	ATF_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	expect(out, "command ENOEXEC");
	expect(out, "provider ENOEXEC");
	expect(out, "filters +0");
	in_child(load_unknown, out, sizeof(out), &status);
	ATF_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	expect(out, "class 0 EINVAL");
	expect(out, "class 99 EINVAL");
	expect(out, "filters +0");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, command_filter_denies);
	ATF_TP_ADD_TC(tp, command_filter_kills);
	ATF_TP_ADD_TC(tp, provider_filter_denies);
	ATF_TP_ADD_TC(tp, payload_filters_setid);
	ATF_TP_ADD_TC(tp, reaper_filter_kills);
	ATF_TP_ADD_TC(tp, no_filter_no_payload);
	return atf_no_error();
}
