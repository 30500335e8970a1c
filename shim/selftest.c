/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * selftest.c: the capability self-test's checks, its sandbox side (one
 * self-test in three files: monitor/selftest.c, launcher/selftest.c and
 * this).  The launcher starts a
 * real sandbox of class SBX_CLASS_SELFTEST (the built-in default spec);
 * its payload child, after everything a payload gets -- the mount tree,
 * capabilities, no_new_privs, Landlock, rlimits and command.priv's filter
 * -- runs these checks instead of an exec, so they see exactly what a
 * payload would see.  Each prints "ok NAME" or "fail NAME: what was seen";
 * the exit status is the number of failures (capped).  The launcher
 * decides nothing from anything else, and the monitor refuses every
 * sandbox unless all passed (fail closed).
 *
 *	argv: NAME -S PORT NS_USER NS_PID NS_MNT NS_NET NS_IPC NS_UTS
 *	    NS_CGROUP [HIDDEN-PATH ...]
 *
 * PORT is a TCP listener of the monitor on the host's 127.0.0.1; the NS_*
 * are the monitor's namespace inode numbers; the paths must be invisible.
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

extern char	**environ;

static int	 failures;

static void
result(int ok, const char *name, const char *fmt, ...) SBX_PRINTF(3, 4);

static void
result(int ok, const char *name, const char *fmt, ...)
{
	va_list	 ap;

	if (ok) {
		printf("ok %s\n", name);
		return;
	}
	failures++;
	printf("fail %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* The value of a "Name:\tvalue" line of /proc/self/status, or NULL. */
static const char *
status_field(const char *name, char *buf, size_t len)
{
	FILE	*fp;
	size_t	 n = strlen(name);
	char	*nl;

	if ((fp = fopen("/proc/self/status", "r")) == NULL)
		return NULL;
	while (fgets(buf, len, fp) != NULL) {
		if (strncmp(buf, name, n) != 0 || buf[n] != ':')
			continue;
		fclose(fp);
		if ((nl = strchr(buf, '\n')) != NULL)
			*nl = '\0';
		return buf + n + 1 + strspn(buf + n + 1, " \t");
	}
	fclose(fp);
	return NULL;
}

/*
 * The size of this process's exec-time environment block, from fields 50
 * and 51 of /proc/self/stat (env_start, env_end): /proc/self/environ
 * itself belongs to root while the process is not dumpable, and this one,
 * a fork of pid 1, is not.  -1 with errno when it cannot be read.
 */
static long long
environ_block_size(void)
{
	char		 buf[2048], *p, *end;
	unsigned long long start = 0, stop = 0;
	ssize_t		 n;
	int		 fd, field;

	if ((fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		errno = n == 0 ? EIO : errno;
		return -1;
	}
	buf[n] = '\0';
	/* The command name may hold anything: count from its ')'. */
	if ((p = strrchr(buf, ')')) == NULL) {
		errno = EPROTO;
		return -1;
	}
	for (field = 2; field < 51 && p != NULL; field++) {
		p = strchr(p + 1, ' ');
		if (p == NULL)
			break;
		if (field + 1 == 50)
			start = strtoull(p + 1, &end, 10);
		else if (field + 1 == 51)
			stop = strtoull(p + 1, &end, 10);
	}
	if (field != 51 || start == 0 || stop < start) {
		errno = EPROTO;
		return -1;
	}
	return (long long)(stop - start);
}

/*
 * The environment two ways: what libc sees, and the exec-time block this
 * process shares with pid 1 -- both are copies of the launcher, neither
 * exec'd -- which is what /proc/1/environ shows to whoever may read it.
 */
static void
check_env(void)
{
	long long	 n;

	result(environ == NULL || environ[0] == NULL, "environment",
	    "not empty: %.64s", environ != NULL && environ[0] != NULL ?
	    environ[0] : "");
	n = environ_block_size();
	result(n == 0, "pid1-environment", "/proc/1/environ: %s",
	    n == -1 ? strerror(errno) : "not empty");
}

static void
check_namespaces(char *ns[])
{
	static const char *const names[] = {
		"user", "pid", "mnt", "net", "ipc", "uts", "cgroup"
	};
	char		 path[64], name[32];
	struct stat	 st;
	unsigned long long host;
	size_t		 i;

	for (i = 0; i < nitems(names); i++) {
		snprintf(name, sizeof(name), "namespace-%s", names[i]);
		snprintf(path, sizeof(path), "/proc/self/ns/%s", names[i]);
		host = strtoull(ns[i], NULL, 10);
		if (stat(path, &st) == -1)
			result(0, name, "%s: %s", path, strerror(errno));
		else
			result((unsigned long long)st.st_ino != host, name,
			    "same as the monitor's (inode %llu)", host);
	}
}

static void
check_hidden(const char *path)
{
	struct stat	 st, root;
	char		 name[300];

	snprintf(name, sizeof(name), "hidden %s", path);
	/* On the root tmpfs itself it is the shim's own (etc.c: the
	 * generated /etc/passwd), never a host file: host trees come in
	 * only as binds, which are other mounts. */
	if (stat(path, &st) == 0 && stat("/", &root) == 0 &&
	    st.st_dev == root.st_dev && S_ISREG(st.st_mode))
		result(1, name, "%s", "");
	else if (stat(path, &st) == 0)
		result(0, name, "visible inside the sandbox");
	else
		result(errno == ENOENT || errno == EACCES, name, "%s",
		    strerror(errno));
}

static void
check_tcp(const char *port)
{
	struct sockaddr_in	 sin;
	const char		*errstr;
	int			 s, r;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)strtonum(port, 1, 65535, &errstr));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (errstr != NULL) {
		result(0, "network", "bad port %s", port);
		return;
	}
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1) {
		result(1, "network", "%s", "");
		return;
	}
	r = connect(s, (struct sockaddr *)&sin, sizeof(sin));
	result(r == -1, "network", "connected to the monitor's listener on "
	    "127.0.0.1:%s", port);
	close(s);
}

static void
check_status(void)
{
	static const char *const caps[] = {
		"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"
	};
	const char	*v;
	char		 buf[256];
	size_t		 i;

	v = status_field("Seccomp", buf, sizeof(buf));
	result(v != NULL && strcmp(v, "2") == 0, "seccomp", "Seccomp: %s",
	    v != NULL ? v : "?");
	v = status_field("NoNewPrivs", buf, sizeof(buf));
	result(v != NULL && strcmp(v, "1") == 0, "no_new_privs",
	    "NoNewPrivs: %s", v != NULL ? v : "?");
	for (i = 0; i < nitems(caps); i++) {
		v = status_field(caps[i], buf, sizeof(buf));
		result(v != NULL && strspn(v, "0") == strlen(v) &&
		    *v != '\0', caps[i], "%s: %s", caps[i],
		    v != NULL ? v : "?");
	}
}

/*
 * cpu-time: the launcher's self-test spec sets SBX_SELFTEST_CPU_TIME;
 * the payload must see it as its RLIMIT_CPU, with the hard limit a
 * second above (SIGKILL for one that ignores SIGXCPU).
 */
static void
check_cpu_time(void)
{
	struct rlimit	 rl;

	if (getrlimit(RLIMIT_CPU, &rl) == -1) {
		result(0, "cpu-time", "getrlimit: %s", strerror(errno));
		return;
	}
	result(rl.rlim_cur == SBX_SELFTEST_CPU_TIME &&
	    rl.rlim_max == SBX_SELFTEST_CPU_TIME + 1, "cpu-time",
	    "RLIMIT_CPU %llu/%llu, not %d/%d", (unsigned long long)rl.rlim_cur,
	    (unsigned long long)rl.rlim_max, SBX_SELFTEST_CPU_TIME,
	    SBX_SELFTEST_CPU_TIME + 1);
}

int
shim_selftest(int argc, char *argv[])
{
	int	 i;

	if (argc < 10) {
		printf("fail usage: name -S port ns*7 [hidden ...]\n");
		return 1;
	}
	check_env();
	check_namespaces(argv + 3);
	check_tcp(argv[2]);
	for (i = 10; i < argc; i++)
		check_hidden(argv[i]);
	check_status();
	check_cpu_time();
	printf("selftest: %d failed\n", failures);
	fflush(stdout);
	return failures > 100 ? 100 : failures;
}
