/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_launcher_sandbox: end-to-end sandboxes.  Each case spawns real
 * sandboxes with the launcher's code, runs regress/helpers/probe inside,
 * and judges what the probe saw.  make check runs this as root and as an
 * unprivileged user; nothing here depends on which, except where a case
 * says so.
 */
#include <sys/types.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "spec.h"
#include "launcher/launcher.h"
/* sandbox_spawn refuses a caller with an environment (emptyenv.h). */
#define EMPTYENV_AT_START
#include "emptyenv.h"
#include "probeloc.h"

#define PROBE		"/sbx/probe"	/* where the probe is bound inside */
#define RANGE_ID	231072		/* dedicated host id for root runs */

struct buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
	int	 fd;
};

struct run {
	struct launcher_conf	 conf;
	struct sbx_spec		 spec;
	const void		*in;		/* stdin bytes, or NULL */
	size_t			 inlen;
	int			 no_stdin;	/* -1 to the launcher */
	int			 workdir;	/* fd or -1 */
	int			 ready_signal;	/* sent on "ready\n" */
	void			 (*on_ready)(struct run *);
	struct sandbox		 sb;
	struct buf		 out;
	struct buf		 err;
	struct sandbox_exit	 ex;
	char			 why[SANDBOX_ERRLEN];
};

static void
run_init(const atf_tc_t *tc, struct run *r)
{
	probe_locate(tc);
	/* A payload that stops reading stdin must not kill the test. */
	signal(SIGPIPE, SIG_IGN);
	memset(r, 0, sizeof(*r));
	r->conf.sandbox_uid = SANDBOX_UID_DEFAULT;
	r->conf.sandbox_gid = SANDBOX_UID_DEFAULT;
	r->workdir = -1;
	ATF_REQUIRE(sbx_spec_default(&r->spec) == 0);
	ATF_REQUIRE(sbx_spec_add_mount(&r->spec, SBX_MOUNT_RO, probe_path,
	    PROBE, 0) == 0);
	/* A hang fails the case instead of blocking the suite. */
	r->spec.timeout_ms = 60 * 1000;
#if defined(__SANITIZE_ADDRESS__)
	/* ASan reserves terabytes of shadow address space, which no
	 * RLIMIT_AS can allow; sanitizer builds run without the cap. */
	r->spec.memory = SBX_SPEC_UNLIMITED - 1;
#endif
	ATF_REQUIRE(sbx_spec_add_arg(&r->spec, PROBE) == 0);
}

static void
arg(struct run *r, const char *a)
{
	ATF_REQUIRE(sbx_spec_add_arg(&r->spec, a) == 0);
}

static void
buf_read(struct buf *b)
{
	ssize_t	 n;

	if (b->cap - b->len < 65536) {
		b->p = xrecallocarray(b->p, b->cap, b->cap + 262144, 1);
		b->cap += 262144;
	}
	n = read(b->fd, b->p + b->len, b->cap - b->len - 1);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(b->fd);
		b->fd = -1;
		return;
	}
	b->len += (size_t)n;
	b->p[b->len] = '\0';
}

/*
 * Spawn, feed stdin, collect stdout and stderr, and wait, all in one poll
 * loop so that neither a full pipe nor the deadline can wedge the test.
 * Returns 0, or -1 when the launcher refused (why says it).
 */
static int
run(struct run *r)
{
	struct sandbox_io	 io;
	struct pollfd		 pfd[4];
	int			 in[2] = { -1, -1 }, out[2], err[2];
	size_t			 inoff = 0;
	uint64_t		 left;
	int			 nfd, done = 0, ready = 0, i, t;
	ssize_t			 n;

	free(r->out.p);
	free(r->err.p);
	memset(&r->out, 0, sizeof(r->out));
	memset(&r->err, 0, sizeof(r->err));
	ATF_REQUIRE(pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0);
	if (!r->no_stdin)
		ATF_REQUIRE(pipe2(in, O_CLOEXEC) == 0);
	io.in = in[0];
	io.out = out[1];
	io.err = err[1];
	io.workdir = r->workdir;
	io.changes = -1;
	io.csbase = -1;
	if (sandbox_spawn(&r->sb, &r->conf, &r->spec, &io, r->why,
	    sizeof(r->why)) == -1) {
		close(out[0]); close(out[1]); close(err[0]); close(err[1]);
		if (in[0] != -1) {
			close(in[0]);
			close(in[1]);
		}
		return -1;
	}
	close(out[1]);
	close(err[1]);
	if (in[0] != -1) {
		close(in[0]);
		ATF_REQUIRE(fcntl(in[1], F_SETFL, O_NONBLOCK) == 0);
		if (r->in == NULL || r->inlen == 0) {
			close(in[1]);
			in[1] = -1;
		}
	}
	r->out.fd = out[0];
	r->err.fd = err[0];

	while (!done || r->out.fd != -1 || r->err.fd != -1) {
		nfd = 0;
		if (in[1] != -1) {
			pfd[nfd].fd = in[1];
			pfd[nfd++].events = POLLOUT;
		}
		if (r->out.fd != -1) {
			pfd[nfd].fd = r->out.fd;
			pfd[nfd++].events = POLLIN;
		}
		if (r->err.fd != -1) {
			pfd[nfd].fd = r->err.fd;
			pfd[nfd++].events = POLLIN;
		}
		if (!done) {
			pfd[nfd].fd = sandbox_fd(&r->sb);
			pfd[nfd++].events = POLLIN;
		}
		t = -1;
		if (!done && !r->sb.timedout && !r->sb.killed) {
			left = sandbox_remaining(&r->sb);
			t = left > INT_MAX ? INT_MAX : (int)left;
		}
		if (poll(pfd, (nfds_t)nfd, t) == -1 && errno != EINTR)
			atf_tc_fail("poll: %s", strerror(errno));
		for (i = 0; i < nfd; i++) {
			if (pfd[i].revents == 0)
				continue;
			if (pfd[i].fd == in[1]) {
				n = write(in[1], (const char *)r->in + inoff,
				    r->inlen - inoff);
				if (n > 0)
					inoff += (size_t)n;
				if (n == -1 && errno != EAGAIN) {
					close(in[1]);	/* EPIPE */
					in[1] = -1;
				} else if (inoff == r->inlen) {
					close(in[1]);
					in[1] = -1;
				}
			} else if (pfd[i].fd == r->out.fd) {
				buf_read(&r->out);
			} else if (pfd[i].fd == r->err.fd) {
				buf_read(&r->err);
			}
		}
		if (!ready && r->out.p != NULL &&
		    strstr(r->out.p, "ready\n") != NULL) {
			ready = 1;
			if (r->on_ready != NULL)
				r->on_ready(r);
			if (r->ready_signal == SIGKILL)
				ATF_CHECK(sandbox_kill(&r->sb) == 0);
			else if (r->ready_signal != 0)
				ATF_CHECK(sandbox_signal(&r->sb,
				    r->ready_signal) == 0);
		}
		if (!done) {
			switch (sandbox_poll(&r->sb, &r->ex)) {
			case 1:
				done = 1;
				break;
			case -1:
				atf_tc_fail("sandbox_poll: %s",
				    strerror(errno));
			}
		}
	}
	if (in[1] != -1)
		close(in[1]);
	sandbox_release(&r->sb);
	return 0;
}

/* Run, and require that the sandbox started and the payload exited 0. */
static void
run_ok(struct run *r)
{
	char	 how[512];

	if (run(r) == -1)
		atf_tc_fail("spawn: %s", r->why);
	sandbox_exit_format(&r->ex, how, sizeof(how));
	ATF_REQUIRE_MSG(r->ex.reason == SANDBOX_EXITED &&
	    WEXITSTATUS(r->ex.wstatus) == 0, "%s; stdout: %s; stderr: %s",
	    how, r->out.p ? r->out.p : "", r->err.p ? r->err.p : "");
}

/* The value of the line "key value" in the probe's output. */
static const char *
value(struct run *r, const char *key)
{
	static char	 v[1024];
	const char	*p = r->out.p, *nl;
	size_t		 n = strlen(key);

	while (p != NULL && *p != '\0') {
		nl = strchr(p, '\n');
		if (strncmp(p, key, n) == 0 && p[n] == ' ') {
			p += n + 1;
			if (nl == NULL)
				nl = p + strlen(p);
			snprintf(v, sizeof(v), "%.*s", (int)(nl - p), p);
			return v;
		}
		p = nl ? nl + 1 : NULL;
	}
	atf_tc_fail("probe printed no \"%s\"; stdout: %s; stderr: %s", key,
	    r->out.p ? r->out.p : "", r->err.p ? r->err.p : "");
}

static int
count_lines(struct run *r, const char *prefix)
{
	const char	*p;
	int		 n = 0;

	for (p = r->out.p; p != NULL && *p != '\0'; p = strchr(p, '\n'),
	    p = p ? p + 1 : NULL)
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			n++;
	return n;
}

static void
run_free(struct run *r)
{
	free(r->out.p);
	free(r->err.p);
	r->out.p = r->err.p = NULL;
}

/* ---- what the payload can see ---------------------------------------- */

ATF_TC_WITHOUT_HEAD(host_paths_invisible);
ATF_TC_BODY(host_paths_invisible, tc)
{
	/* /etc/passwd is the shim's own (shim/etc.c, etc_generated). */
	static const char *const hidden[] = {
		"/etc/shadow", "/home", "/root", "/var", "/run", "/srv",
	};
	struct run	 r;
	char		 cwd[PATH_MAX], key[PATH_MAX + 8];
	size_t		 i;

	run_init(tc, &r);
	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	arg(&r, "paths");
	for (i = 0; i < nitems(hidden); i++)
		arg(&r, hidden[i]);
	arg(&r, cwd);
	arg(&r, probe_build);
	arg(&r, "/usr/bin");		/* bound: must be there */
	run_ok(&r);
	for (i = 0; i < nitems(hidden); i++) {
		snprintf(key, sizeof(key), "path %s", hidden[i]);
		ATF_CHECK_STREQ_MSG(value(&r, key), "ENOENT", "%s", key);
	}
	snprintf(key, sizeof(key), "path %s", cwd);
	ATF_CHECK_STREQ_MSG(value(&r, key), "ENOENT", "caller's cwd");
	snprintf(key, sizeof(key), "path %s", probe_build);
	ATF_CHECK_STREQ_MSG(value(&r, key), "ENOENT", "the build tree");
	ATF_CHECK_STREQ(value(&r, "path /usr/bin"), "ok");
	run_free(&r);
}

/*
 * shim/etc.c: the sandbox user has a name, the spec's, with its ids as
 * seen inside; the spec's own loopback works unless no_loopback.
 */
ATF_TC_WITHOUT_HEAD(etc_generated);
ATF_TC_BODY(etc_generated, tc)
{
	struct run	 r;
	char		 want[128];

	run_init(tc, &r);
	r.spec.user = "agent_7";
	arg(&r, "escape");
	arg(&r, "read:/etc/passwd");
	arg(&r, "hostusers:/etc/passwd");
	arg(&r, "hostusers:/etc/group");
	run_ok(&r);
	ATF_CHECK_STREQ(value(&r, "escape read:/etc/passwd"), "ok ALLOWED");
	ATF_CHECK_STREQ(value(&r, "escape hostusers:/etc/passwd"),
	    "ENODATA denied lines=2");
	ATF_CHECK_STREQ(value(&r, "escape hostusers:/etc/group"),
	    "ENODATA denied lines=2");
	run_free(&r);

	run_init(tc, &r);
	r.spec.user = "agent_7";
	arg(&r, "read");
	arg(&r, "/etc/passwd");
	run_ok(&r);
	snprintf(want, sizeof(want), "agent_7:x:%u:%u:agent_7:/:/bin/sh",
	    SANDBOX_UID_DEFAULT, SANDBOX_UID_DEFAULT);
	ATF_CHECK_STREQ(value(&r, "read /etc/passwd"), want);
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(own_loopback);
ATF_TC_BODY(own_loopback, tc)
{
	struct run	 r;

	run_init(tc, &r);
	arg(&r, "loopback");
	run_ok(&r);
	ATF_CHECK_STREQ(value(&r, "loopback tcp 127.0.0.1"), "ok");
	ATF_CHECK_STREQ(value(&r, "loopback udp 127.0.0.1"), "ok");
	run_free(&r);

	/* loopback no: TCP refused by Landlock (ABI 4, Linux 6.7), UDP,
	 * which Landlock does not cover, still works. */
	run_init(tc, &r);
	r.spec.no_loopback = 1;
	arg(&r, "loopback");
	run_ok(&r);
	if (syscall(SYS_landlock_create_ruleset, NULL, 0, 1UL) >= 4)
		ATF_CHECK_STREQ(value(&r, "loopback tcp 127.0.0.1"),
		    "EACCES step=bind");
	ATF_CHECK_STREQ(value(&r, "loopback udp 127.0.0.1"), "ok");
	run_free(&r);
}

/* The value of "Name:" in /proc/PID/status, leading blanks skipped. */
static int
status_field(pid_t pid, const char *name, char *v, size_t len)
{
	char	 path[64], line[512];
	FILE	*f;
	size_t	 n = strlen(name);
	int	 found = 0;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, name, n) != 0 || line[n] != ':')
			continue;
		line[strcspn(line, "\n")] = '\0';
		strlcpy(v, line + n + 1 + strspn(line + n + 1, " \t"), len);
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}

/*
 * pid 1 seen from the host, while the payload runs.  pid 1 is a copy of
 * the launcher (here: of this test program), so what it may hold is
 * checked here, not only what the payload sees:
 *  - its environment block (/proc/PID/environ): root can read it and must
 *    find nothing; for anyone else the non-dumpable pid 1's /proc files
 *    belong to root, so the read fails.  That a caller with an
 *    environment is refused is t_launcher_spawn's refuses_environment;
 *  - its credentials: no capability in any set, no_new_privs, and the
 *    filter of shim.priv, which pid 1 applies once the payload runs (so
 *    this waits for it, bounded);
 *  - as root, its descriptors: stdin (now /dev/null), the caller's
 *    stdout and stderr, the status pipe and the lifeline, and above them
 *    only the relay's own (shim/stdrelay.c): ns_last_pid, the read ends
 *    of the payload's two pipes and its signalfd; nothing of this
 *    process's.
 */
static void
check_pid1(struct run *r)
{
	static const char *const caps[] = {
		"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
	};
	struct dirent	*de;
	DIR		*d;
	char		 path[64], link[PATH_MAX], buf[256], v[128], fdp[128];
	ssize_t		 n;
	size_t		 i;
	int		 fd, tries, nfd = 0, relay = 0, pipes = 0;

	snprintf(path, sizeof(path), "/proc/%ld/environ", (long)r->sb.pid);
	fd = open(path, O_RDONLY);
	if (geteuid() != 0) {
		ATF_CHECK_MSG(fd == -1 && errno == EACCES,
		    "%s readable by uid %u", path, (unsigned)geteuid());
		if (fd != -1)
			close(fd);
	} else {
		ATF_REQUIRE_MSG(fd != -1, "%s: %s", path, strerror(errno));
		n = read(fd, buf, sizeof(buf));
		close(fd);
		ATF_CHECK_EQ_MSG(n, 0, "%s holds %zd bytes", path, n);
	}

	for (tries = 0; tries < 1000; tries++) {
		ATF_REQUIRE(status_field(r->sb.pid, "Seccomp", v,
		    sizeof(v)) == 0);
		if (strcmp(v, "2") == 0)
			break;
		usleep(10000);
	}
	ATF_CHECK_STREQ_MSG(v, "2", "pid 1 without its filter (shim.priv)");
	ATF_REQUIRE(status_field(r->sb.pid, "NoNewPrivs", v, sizeof(v)) == 0);
	ATF_CHECK_STREQ_MSG(v, "1", "pid 1 NoNewPrivs");
	for (i = 0; i < nitems(caps); i++) {
		ATF_REQUIRE(status_field(r->sb.pid, caps[i], v,
		    sizeof(v)) == 0);
		ATF_CHECK_STREQ_MSG(v, "0000000000000000", "pid 1 %s",
		    caps[i]);
	}

	if (geteuid() != 0)
		return;
	snprintf(path, sizeof(path), "/proc/%ld/fd", (long)r->sb.pid);
	ATF_REQUIRE_MSG((d = opendir(path)) != NULL, "%s: %s", path,
	    strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		nfd++;
		if (strtol(de->d_name, NULL, 10) <= SBX_SHIM_FD_LIFELINE)
			continue;
		snprintf(fdp, sizeof(fdp), "%s/%.16s", path, de->d_name);
		if ((n = readlink(fdp, link, sizeof(link) - 1)) == -1)
			continue;	/* gone meanwhile */
		link[n] = '\0';
		if (strncmp(link, "pipe:", 5) == 0 && pipes < 2)
			pipes++;
		else if (strcmp(link, "anon_inode:[signalfd]") != 0 &&
		    (n < 23 || strcmp(link + n - 23,
		    "/sys/kernel/ns_last_pid") != 0)) {
			ATF_CHECK_MSG(0, "pid 1 holds descriptor %s: %s",
			    de->d_name, link);
			continue;
		}
		relay++;
	}
	closedir(d);
	ATF_CHECK_EQ_MSG(nfd, SBX_SHIM_FD_LIFELINE + 1 + relay, "pid 1 holds "
	    "%d descriptors", nfd);
	ATF_CHECK_MSG(relay <= 4, "pid 1 holds %d relay descriptors", relay);
}

ATF_TC_WITHOUT_HEAD(environment_clean);
ATF_TC_BODY(environment_clean, tc)
{
	struct run	 r;
	const char	*v;

	ATF_REQUIRE(setenv("SBX_SECRET_MARKER", "leak123", 1) == 0);
	run_init(tc, &r);
	ATF_REQUIRE(sbx_spec_add_env(&r.spec, "LANG=C.UTF-8") == 0);
	ATF_REQUIRE(sbx_spec_add_env(&r.spec, "SBX_PASSED=yes") == 0);
	arg(&r, "environ");
	run_ok(&r);
	/* pid 1 is not dumpable, so the payload may not even look. */
	v = value(&r, "proc1_environ");
	ATF_CHECK_MSG(strcmp(v, "0") == 0 || strcmp(v, "EACCES") == 0,
	    "/proc/1/environ: %s", v);
	ATF_CHECK_EQ(count_lines(&r, "env "), 2);
	ATF_CHECK(strstr(r.out.p, "env LANG=C.UTF-8\n") != NULL);
	ATF_CHECK(strstr(r.out.p, "env SBX_PASSED=yes\n") != NULL);
	ATF_CHECK(strstr(r.out.p, "leak123") == NULL);
	run_free(&r);

	/* And pid 1, seen from the host. */
	run_init(tc, &r);
	arg(&r, "sleep");
	r.on_ready = check_pid1;
	r.ready_signal = SIGKILL;
	ATF_REQUIRE(run(&r) == 0);
	ATF_CHECK_EQ(r.ex.reason, SANDBOX_KILLED);
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(network_none);
ATF_TC_BODY(network_none, tc)
{
	struct sockaddr_in	 sin;
	struct sockaddr_un	 sun;
	struct run		 r;
	socklen_t		 len;
	char			 tport[16], uport[16], name[64], c;
	int			 ts, us, xs;

	/* Listeners on the host's loopback, and an abstract socket. */
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ATF_REQUIRE((ts = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) != -1);
	ATF_REQUIRE(bind(ts, (struct sockaddr *)&sin, sizeof(sin)) == 0);
	ATF_REQUIRE(listen(ts, 8) == 0);
	len = sizeof(sin);
	ATF_REQUIRE(getsockname(ts, (struct sockaddr *)&sin, &len) == 0);
	snprintf(tport, sizeof(tport), "%u", ntohs(sin.sin_port));

	sin.sin_port = 0;
	ATF_REQUIRE((us = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) != -1);
	ATF_REQUIRE(bind(us, (struct sockaddr *)&sin, sizeof(sin)) == 0);
	len = sizeof(sin);
	ATF_REQUIRE(getsockname(us, (struct sockaddr *)&sin, &len) == 0);
	snprintf(uport, sizeof(uport), "%u", ntohs(sin.sin_port));

	snprintf(name, sizeof(name), "sbx-test-%ld", (long)getpid());
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path + 1, name, strlen(name));
	ATF_REQUIRE((xs = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) != -1);
	ATF_REQUIRE(bind(xs, (struct sockaddr *)&sun, (socklen_t)(offsetof(
	    struct sockaddr_un, sun_path) + 1 + strlen(name))) == 0);
	ATF_REQUIRE(listen(xs, 8) == 0);

	run_init(tc, &r);
	arg(&r, "net");
	arg(&r, tport);
	arg(&r, uport);
	arg(&r, name);
	run_ok(&r);
	ATF_CHECK_MSG(strcmp(value(&r, "tcp"), "ok") != 0,
	    "tcp connected");
	ATF_CHECK_MSG(strcmp(value(&r, "udp_reply"), "ok") != 0,
	    "udp_reply connected");
	ATF_CHECK_MSG(strcmp(value(&r, "unix"), "ok") != 0,
	    "unix connected");
	/* lo works inside: the datagram was refused by the sandbox's own
	 * loopback, not lost on a missing interface. */
	ATF_CHECK_STREQ(value(&r, "lo"), "up");
	ATF_CHECK_STREQ(value(&r, "udp_reply"), "ECONNREFUSED");

	/* Nothing reached the host's listeners. */
	ATF_CHECK(accept(ts, NULL, NULL) == -1 && errno == EAGAIN);
	ATF_CHECK(recv(us, &c, 1, 0) == -1 && errno == EAGAIN);
	ATF_CHECK(accept(xs, NULL, NULL) == -1 && errno == EAGAIN);
	close(ts);
	close(us);
	close(xs);
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(namespaces_differ);
ATF_TC_BODY(namespaces_differ, tc)
{
	static const char *const ns[] = {
		"cgroup", "ipc", "mnt", "net", "pid", "user", "uts",
	};
	static char	 args[nitems(ns)][64];
	struct run	 r;
	struct stat	 st;
	char		 path[64], key[32];
	size_t		 i;

	run_init(tc, &r);
	arg(&r, "ns");
	for (i = 0; i < nitems(ns); i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns[i]);
		ATF_REQUIRE(stat(path, &st) == 0);
		snprintf(args[i], sizeof(args[i]), "%s=%llu", ns[i],
		    (unsigned long long)st.st_ino);
		arg(&r, args[i]);
	}
	run_ok(&r);
	for (i = 0; i < nitems(ns); i++) {
		snprintf(key, sizeof(key), "ns %s", ns[i]);
		ATF_CHECK_STREQ_MSG(value(&r, key), "differs", "%s", key);
	}
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(credentials);
ATF_TC_BODY(credentials, tc)
{
	static const char *const caps[] = {
		"status CapInh:", "status CapPrm:", "status CapEff:",
		"status CapBnd:", "status CapAmb:",
	};
	struct run	 r;
	const char	*v;
	unsigned int	 in, out, cnt;
	size_t		 i;

	run_init(tc, &r);
	arg(&r, "status");
	run_ok(&r);
	for (i = 0; i < nitems(caps); i++)
		ATF_CHECK_STREQ_MSG(value(&r, caps[i]), "0000000000000000",
		    "%s", caps[i]);
	ATF_CHECK_STREQ(value(&r, "status NoNewPrivs:"), "1");
	/* The payload runs under command.priv's filter (mode 2). */
	v = value(&r, "status Seccomp:");
	ATF_CHECK_MSG(strcmp(v, "2") == 0, "Seccomp: %s", v);
	ATF_CHECK_STREQ(value(&r, "status Uid:"), "1000 1000 1000 1000");
	ATF_CHECK_STREQ(value(&r, "status Gid:"), "1000 1000 1000 1000");
	/* One id mapped, never 0; to ourselves (no range configured). */
	ATF_CHECK_EQ(count_lines(&r, "uid_map "), 1);
	v = value(&r, "uid_map");
	ATF_CHECK_MSG(sscanf(v, "%u %u %u", &in, &out, &cnt) == 3 &&
	    in == 1000 && out == (unsigned)geteuid() && cnt == 1,
	    "uid_map: %s", v);
	ATF_CHECK_STREQ(value(&r, "hostname"), "sbx");
	/* The payload is pid 1's first child in a new pid namespace. */
	ATF_CHECK_STREQ(value(&r, "pid"), "2");
	run_free(&r);
}

/*
 * Root may map the sandbox to a dedicated host id; an unprivileged
 * launcher cannot and must say so instead of mapping something else.
 */
ATF_TC_WITHOUT_HEAD(dedicated_range);
ATF_TC_BODY(dedicated_range, tc)
{
	struct run	 r;
	const char	*v;
	unsigned int	 in, out, cnt;

	run_init(tc, &r);
	r.conf.map_host = 1;
	r.conf.host_uid = RANGE_ID;
	r.conf.host_gid = RANGE_ID;
	arg(&r, "status");
	if (geteuid() != 0) {
		ATF_CHECK_EQ(run(&r), -1);
		ATF_CHECK_MSG(strstr(r.why, "must be started as root") != NULL,
		    "%s", r.why);
		return;
	}
	run_ok(&r);
	v = value(&r, "uid_map");
	ATF_CHECK_MSG(sscanf(v, "%u %u %u", &in, &out, &cnt) == 3 &&
	    in == 1000 && out == RANGE_ID && cnt == 1, "uid_map: %s", v);
	ATF_CHECK_STREQ(value(&r, "status Uid:"), "1000 1000 1000 1000");
	/* Root's supplementary groups are dropped, not carried in. */
	v = value(&r, "status Groups:");
	ATF_CHECK_MSG(v[strspn(v, " ")] == '\0', "Groups: %s", v);
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(read_only_outside_tmp_and_workdir);
ATF_TC_BODY(read_only_outside_tmp_and_workdir, tc)
{
	static const char *const ro[] = {
		"/x", "/usr/x", "/etc/x", "/dev/x", "/sbx/x", PROBE,
		"/proc/sys/kernel/hostname",
	};
	struct run	 r;
	struct stat	 st;
	char		 dir[] = "wd.XXXXXX", key[64], path[64];
	const char	*v;
	size_t		 i;

	ATF_REQUIRE(mkdtemp(dir) != NULL);
	run_init(tc, &r);
	r.spec.workdir = "/work";
	r.spec.workdir_fd = 1;
	ATF_REQUIRE((r.workdir = open(dir, O_RDONLY | O_DIRECTORY)) != -1);
	arg(&r, "write");
	for (i = 0; i < nitems(ro); i++)
		arg(&r, ro[i]);
	arg(&r, "/tmp/x");
	arg(&r, "/work/out");
	run_ok(&r);
	for (i = 0; i < nitems(ro); i++) {
		snprintf(key, sizeof(key), "write %s", ro[i]);
		v = value(&r, key);
		ATF_CHECK_MSG(strcmp(v, "EROFS") == 0 ||
		    strcmp(v, "EACCES") == 0, "%s: %s", key, v);
	}
	ATF_CHECK_STREQ(value(&r, "write /tmp/x"), "ok");
	ATF_CHECK_STREQ(value(&r, "write /work/out"), "ok");
	snprintf(path, sizeof(path), "%s/out", dir);
	ATF_CHECK(stat(path, &st) == 0 && st.st_size == 1);
	close(r.workdir);
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(privileged_operations_fail);
ATF_TC_BODY(privileged_operations_fail, tc)
{
	static const char *const eperm[] = {
		"mount", "remount", "umount", "mntns", "chroot", "sethostname",
	};
	struct run	 r;
	const char	*v;
	size_t		 i;

	run_init(tc, &r);
	arg(&r, "privileged");
	run_ok(&r);
	for (i = 0; i < nitems(eperm); i++)
		ATF_CHECK_STREQ_MSG(value(&r, eperm[i]), "EPERM", "%s",
		    eperm[i]);
	/* user.max_user_namespaces = 0 inside answers ENOSPC. */
	v = value(&r, "userns");
	ATF_CHECK_MSG(strcmp(v, "ENOSPC") == 0 || strcmp(v, "EPERM") == 0,
	    "nested user namespace: %s", v);
	ATF_CHECK_MSG(strcmp(value(&r, "setuid"), "ok") != 0,
	    "setuid(0) succeeded");
	run_free(&r);
}

/*
 * Execution policy: by default a payload runs what it wrote in /tmp, the
 * workdir, rw binds and tmpfs mounts (an agent builds and tests code
 * there); noexec on any of them forbids it, by the mount flag and by
 * Landlock alike.
 */
static const char *
exec_in(const atf_tc_t *tc, const char *where, int noexec, int tmpfs)
{
	static char	 got[64];
	struct run	 r;
	char		 dir[] = "wx.XXXXXX", path[PATH_MAX];

	run_init(tc, &r);
	if (strcmp(where, "/tmp") == 0)
		r.spec.tmp_noexec = noexec;
	else if (strcmp(where, "/work") == 0) {
		ATF_REQUIRE(mkdtemp(dir) != NULL);
		ATF_REQUIRE(chmod(dir, 0777) == 0);
		r.spec.workdir = "/work";
		r.spec.workdir_fd = 1;
		r.spec.workdir_noexec = noexec;
		ATF_REQUIRE((r.workdir = open(dir, O_RDONLY |
		    O_DIRECTORY)) != -1);
	} else if (tmpfs)
		ATF_REQUIRE(sbx_spec_add_mount_flags(&r.spec, SBX_MOUNT_TMPFS,
		    noexec ? SBX_MOUNT_F_NOEXEC : 0, NULL, where,
		    1 << 20) == 0);
	else {
		ATF_REQUIRE(mkdtemp(dir) != NULL);
		ATF_REQUIRE(chmod(dir, 0777) == 0);
		ATF_REQUIRE(realpath(dir, path) != NULL);
		ATF_REQUIRE(sbx_spec_add_mount_flags(&r.spec, SBX_MOUNT_RW,
		    noexec ? SBX_MOUNT_F_NOEXEC : 0, xstrdup(path), where,
		    0) == 0);
	}
	snprintf(path, sizeof(path), "%s/p", where);
	arg(&r, "exec");
	arg(&r, path);
	run_ok(&r);
	ATF_CHECK_STREQ_MSG(value(&r, "exec_copy"), "ok", "%s", where);
	strlcpy(got, value(&r, "exec"), sizeof(got));
	run_free(&r);
	return got;
}

ATF_TC_WITHOUT_HEAD(exec_where_written);
ATF_TC_BODY(exec_where_written, tc)
{
	ATF_CHECK_STREQ(exec_in(tc, "/tmp", 0, 0), "ok");
	ATF_CHECK_STREQ(exec_in(tc, "/work", 0, 0), "ok");
	ATF_CHECK_STREQ(exec_in(tc, "/scratch", 0, 1), "ok");
	ATF_CHECK_STREQ(exec_in(tc, "/rw", 0, 0), "ok");
}

ATF_TC_WITHOUT_HEAD(noexec_mounts);
ATF_TC_BODY(noexec_mounts, tc)
{
	ATF_CHECK_STREQ(exec_in(tc, "/tmp", 1, 0), "EACCES");
	ATF_CHECK_STREQ(exec_in(tc, "/work", 1, 0), "EACCES");
	ATF_CHECK_STREQ(exec_in(tc, "/scratch", 1, 1), "EACCES");
	ATF_CHECK_STREQ(exec_in(tc, "/rw", 1, 0), "EACCES");
}

/*
 * network proxy: pid 1 makes listeners on 127.0.0.1:3128 and [::1]:3128
 * inside the sandbox's network namespace and hands them out; this
 * process, on the host's side, accepts the payload's connections through
 * them (as sbx-proxy does).  Any other port is refused inside.
 */
ATF_TC_WITHOUT_HEAD(proxy_listeners);
ATF_TC_BODY(proxy_listeners, tc)
{
	struct run		 r;
	struct sandbox_io	 io;
	struct sandbox_exit	 ex;
	struct pollfd		 pfd[3];
	char			 out[4096], buf[64], how[256], cmd[512];
	size_t			 outlen = 0;
	ssize_t			 n;
	int			 fds[2], fam[2], nl = -2, op[2], c, i, eof = 0;

	run_init(tc, &r);
	r.spec.net = SBX_NET_PROXY;
	r.spec.argc = 0;
	snprintf(cmd, sizeof(cmd), "%s connect 127.0.0.1 3128; %s connect "
	    "::1 3128; %s connect 127.0.0.1 3129", PROBE, PROBE, PROBE);
	arg(&r, "/bin/sh");
	arg(&r, "-c");
	arg(&r, cmd);
	ATF_REQUIRE(pipe2(op, O_CLOEXEC) == 0);
	io.in = -1;
	io.out = op[1];
	io.err = -1;
	io.workdir = -1;
	io.changes = -1;
	io.csbase = -1;
	ATF_REQUIRE_MSG(sandbox_spawn(&r.sb, &r.conf, &r.spec, &io, r.why,
	    sizeof(r.why)) == 0, "%s", r.why);
	close(op[1]);
	ATF_REQUIRE(r.sb.proxyfd != -1);
	for (i = 0; i < 100 && nl == -2; i++) {
		pfd[0].fd = r.sb.proxyfd;
		pfd[0].events = POLLIN;
		(void)poll(pfd, 1, 100);
		nl = sandbox_listeners(&r.sb, fds, fam, 2, r.why,
		    sizeof(r.why));
	}
	ATF_REQUIRE_MSG(nl >= 1, "listeners: %d %s", nl, r.why);
	ATF_CHECK_EQ(r.sb.proxyfd, -1);
	ATF_CHECK_EQ(fam[0], AF_INET);
	while (!eof) {
		pfd[0].fd = op[0];
		pfd[0].events = POLLIN;
		for (i = 0; i < nl; i++) {
			pfd[1 + i].fd = fds[i];
			pfd[1 + i].events = POLLIN;
		}
		ATF_REQUIRE(poll(pfd, 1 + nl, 30000) > 0);
		for (i = 0; i < nl; i++) {
			if (!(pfd[1 + i].revents & POLLIN))
				continue;
			if ((c = accept4(fds[i], NULL, NULL,
			    SOCK_CLOEXEC)) == -1)
				continue;
			if (read(c, buf, sizeof(buf)) > 0) {
				snprintf(buf, sizeof(buf), "pong-%d\n",
				    fam[i] == AF_INET ? 4 : 6);
				ATF_CHECK(write(c, buf, strlen(buf)) > 0);
			}
			close(c);
		}
		if (pfd[0].revents & (POLLIN | POLLHUP)) {
			n = read(op[0], out + outlen, sizeof(out) - 1 - outlen);
			if (n <= 0)
				eof = 1;
			else
				outlen += (size_t)n;
		}
	}
	out[outlen] = '\0';
	ATF_REQUIRE(sandbox_wait(&r.sb, &ex) == 1);
	sandbox_exit_format(&ex, how, sizeof(how));
	ATF_CHECK_MSG(strncmp(how, "exited 0", 8) == 0, "%s", how);
	ATF_CHECK_MSG(strstr(out, "connect 127.0.0.1 3128 ok pong-4\n") !=
	    NULL, "out: %s", out);
	if (nl == 2)
		ATF_CHECK_MSG(strstr(out, "connect ::1 3128 ok pong-6\n") !=
		    NULL, "out: %s", out);
	/* Landlock: connect to the proxy's port only (ECONNREFUSED where
	 * the kernel has no Landlock network rules: nothing listens). */
	ATF_CHECK_MSG(strstr(out, "connect 127.0.0.1 3129 EACCES\n") != NULL ||
	    strstr(out, "connect 127.0.0.1 3129 ECONNREFUSED\n") != NULL,
	    "out: %s", out);
	for (i = 0; i < nl; i++)
		close(fds[i]);
	close(op[0]);
	sandbox_release(&r.sb);
	run_free(&r);
}

/*
 * Merged /usr: a symlink entry makes /lib64 -> usr/lib64 in the root, so
 * a dynamic program finds its ELF interpreter with only /usr bound.
 */
ATF_TC_WITHOUT_HEAD(merged_usr_links);
ATF_TC_BODY(merged_usr_links, tc)
{
	struct run	 r;
	struct stat	 st;

	if (lstat("/lib64", &st) == -1 || !S_ISLNK(st.st_mode))
		atf_tc_skip("/lib64 is not a symlink on this host (no merged "
		    "/usr to mirror)");
	run_init(tc, &r);
	r.spec.nmounts = 0;
	ATF_REQUIRE(sbx_spec_add_mount(&r.spec, SBX_MOUNT_RO, "/usr", "/usr",
	    0) == 0);
	ATF_REQUIRE(sbx_spec_add_mount(&r.spec, SBX_MOUNT_SYMLINK, "usr/lib64",
	    "/lib64", 0) == 0);
	ATF_REQUIRE(sbx_spec_add_mount(&r.spec, SBX_MOUNT_SYMLINK, "usr/bin",
	    "/bin", 0) == 0);
	/* Debian's interpreter link is absolute: /lib/x86_64-linux-gnu/. */
	ATF_REQUIRE(sbx_spec_add_mount(&r.spec, SBX_MOUNT_SYMLINK, "usr/lib",
	    "/lib", 0) == 0);
	r.spec.argc = 0;
	arg(&r, "/bin/sh");
	arg(&r, "-c");
	arg(&r, "readlink /lib64; readlink /bin; echo dynamic-ok");
	run_ok(&r);
	ATF_CHECK_MSG(strstr(r.out.p, "usr/lib64\nusr/bin\ndynamic-ok\n") !=
	    NULL, "stdout: %s", r.out.p);
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(workdir_is_the_directory_passed);
ATF_TC_BODY(workdir_is_the_directory_passed, tc)
{
	struct run	 r;
	struct stat	 st;
	char		 dir[] = "wd.XXXXXX", path[64], marker[64], want[64];
	FILE		*f;

	ATF_REQUIRE(mkdtemp(dir) != NULL);
	snprintf(marker, sizeof(marker), "marker-%ld-%u", (long)getpid(),
	    arc4random());
	snprintf(path, sizeof(path), "%s/marker", dir);
	ATF_REQUIRE((f = fopen(path, "w")) != NULL);
	fprintf(f, "%s\n", marker);
	fclose(f);

	run_init(tc, &r);
	r.spec.workdir = "/work";
	r.spec.workdir_fd = 1;
	ATF_REQUIRE((r.workdir = open(dir, O_RDONLY | O_DIRECTORY)) != -1);
	ATF_REQUIRE(fstat(r.workdir, &st) == 0);
	arg(&r, "read");
	arg(&r, "/work/marker");
	run_ok(&r);
	ATF_CHECK_STREQ(value(&r, "read /work/marker"), marker);

	r.spec.argc = 2;	/* keep PROBE and replace the command */
	r.spec.argv[2] = NULL;
	r.spec.argv[1] = "stat";
	arg(&r, "/work");
	run_ok(&r);
	snprintf(want, sizeof(want), "%llu:%llu",
	    (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	ATF_CHECK_STREQ(value(&r, "stat /work"), want);

	r.spec.argc = 1;
	r.spec.argv[1] = NULL;
	arg(&r, "cwd");
	run_ok(&r);
	ATF_CHECK_STREQ(value(&r, "cwd"), "/work");
	close(r.workdir);
	run_free(&r);
}

/* A directory removed after it was opened has no path to bind. */
ATF_TC_WITHOUT_HEAD(workdir_removed);
ATF_TC_BODY(workdir_removed, tc)
{
	struct run	 r;
	char		 dir[] = "wd.XXXXXX";

	ATF_REQUIRE(mkdtemp(dir) != NULL);
	run_init(tc, &r);
	r.spec.workdir = "/work";
	r.spec.workdir_fd = 1;
	ATF_REQUIRE((r.workdir = open(dir, O_RDONLY | O_DIRECTORY)) != -1);
	ATF_REQUIRE(rmdir(dir) == 0);
	arg(&r, "cwd");
	ATF_REQUIRE(run(&r) == 0);
	ATF_CHECK_EQ(r.ex.reason, SANDBOX_SETUP_FAILED);
	ATF_CHECK_MSG(strncmp(r.ex.step, "workdir", 7) == 0, "step: %s",
	    r.ex.step);
	ATF_CHECK(r.ex.error != 0);
	close(r.workdir);
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(tmpfs_sizes);
ATF_TC_BODY(tmpfs_sizes, tc)
{
	struct run	 r;
	const char	*v;
	long		 written;

	run_init(tc, &r);
	r.spec.tmp_size = 1 << 20;
	arg(&r, "fill");
	arg(&r, "/tmp/fill");
	arg(&r, "4194304");
	run_ok(&r);
	v = value(&r, "fill");
	ATF_REQUIRE_MSG(strncmp(v, "ENOSPC written ", 15) == 0, "fill: %s", v);
	written = strtol(v + 15, NULL, 10);
	ATF_CHECK_MSG(written <= (1 << 20), "wrote %ld into 1 MiB", written);
	run_free(&r);

	run_init(tc, &r);
	ATF_REQUIRE(sbx_spec_add_mount(&r.spec, SBX_MOUNT_TMPFS, NULL,
	    "/scratch", 256 * 1024) == 0);
	arg(&r, "fill");
	arg(&r, "/scratch/fill");
	arg(&r, "1048576");
	run_ok(&r);
	v = value(&r, "fill");
	ATF_REQUIRE_MSG(strncmp(v, "ENOSPC written ", 15) == 0, "fill: %s", v);
	ATF_CHECK(strtol(v + 15, NULL, 10) <= 256 * 1024);
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(dev_minimal);
ATF_TC_BODY(dev_minimal, tc)
{
	static const char *const want[] = {
		"null", "zero", "full", "random", "urandom",
		"fd", "stdin", "stdout", "stderr",
	};
	struct run	 r;
	char		 key[32];
	size_t		 i;

	run_init(tc, &r);
	arg(&r, "dev");
	run_ok(&r);
	ATF_CHECK_EQ(count_lines(&r, "dev "), (int)nitems(want));
	for (i = 0; i < nitems(want); i++) {
		snprintf(key, sizeof(key), "dev %s\n", want[i]);
		ATF_CHECK_MSG(strstr(r.out.p, key) != NULL, "no /dev/%s",
		    want[i]);
	}
	ATF_CHECK(strstr(r.out.p, "dev tty") == NULL);
	ATF_CHECK(strstr(r.out.p, "dev shm") == NULL);
	run_free(&r);

	run_init(tc, &r);
	r.spec.dev_shm = 1;
	arg(&r, "write");
	arg(&r, "/dev/shm/x");
	arg(&r, "/dev/null");
	run_ok(&r);
	ATF_CHECK_STREQ(value(&r, "write /dev/shm/x"), "ok");
	ATF_CHECK_STREQ(value(&r, "write /dev/null"), "ok");
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(proc_masked);
ATF_TC_BODY(proc_masked, tc)
{
	struct run	 r;
	struct stat	 st;
	char		 want[64];

	ATF_REQUIRE(stat("/dev/null", &st) == 0);
	snprintf(want, sizeof(want), "%llu:%llu",
	    (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	run_init(tc, &r);
	arg(&r, "stat");
	arg(&r, "/proc/keys");
	run_ok(&r);
	ATF_CHECK_STREQ(value(&r, "stat /proc/keys"), want);
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(no_descriptor_leaks_in);
ATF_TC_BODY(no_descriptor_leaks_in, tc)
{
	struct run	 r;
	int		 stray;

	/* Not close-on-exec: the launcher must close it anyway. */
	ATF_REQUIRE((stray = open("/dev/null", O_RDONLY)) != -1);
	run_init(tc, &r);
	arg(&r, "fds");
	run_ok(&r);
	ATF_CHECK_EQ(count_lines(&r, "fd "), 3);
	ATF_CHECK(strstr(r.out.p, "fd 0\n") && strstr(r.out.p, "fd 1\n") &&
	    strstr(r.out.p, "fd 2\n"));
	close(stray);
	run_free(&r);
}

/* ---- how it ends ----------------------------------------------------- */

ATF_TC_WITHOUT_HEAD(exit_status_exact);
ATF_TC_BODY(exit_status_exact, tc)
{
	static const int codes[] = { 0, 1, 42, 255 };
	static const int sigs[] = { SIGUSR1, SIGSEGV, SIGKILL, SIGABRT };
	struct run	 r;
	char		 n[16];
	size_t		 i;

	for (i = 0; i < nitems(codes); i++) {
		run_init(tc, &r);
		arg(&r, "exit");
		snprintf(n, sizeof(n), "%d", codes[i]);
		arg(&r, n);
		ATF_REQUIRE(run(&r) == 0);
		ATF_CHECK_EQ(r.ex.reason, SANDBOX_EXITED);
		ATF_CHECK(WIFEXITED(r.ex.wstatus));
		ATF_CHECK_EQ(WEXITSTATUS(r.ex.wstatus), codes[i]);
		ATF_CHECK_EQ(r.ex.limits, SBX_LIMIT_RLIMIT);
		run_free(&r);
	}
	for (i = 0; i < nitems(sigs); i++) {
		run_init(tc, &r);
		arg(&r, "signal");
		snprintf(n, sizeof(n), "%d", sigs[i]);
		arg(&r, n);
		ATF_REQUIRE(run(&r) == 0);
		ATF_CHECK_EQ(r.ex.reason, SANDBOX_SIGNALED);
		ATF_CHECK(WIFSIGNALED(r.ex.wstatus));
		ATF_CHECK_EQ(WTERMSIG(r.ex.wstatus), sigs[i]);
		/* RLIMIT_CORE is 0: no core, whatever core_pattern says. */
		ATF_CHECK(!WCOREDUMP(r.ex.wstatus));
		run_free(&r);
	}
}

ATF_TC_WITHOUT_HEAD(timeout_kills);
ATF_TC_BODY(timeout_kills, tc)
{
	struct run	 r;

	run_init(tc, &r);
	r.spec.timeout_ms = 200;
	arg(&r, "sleep");
	ATF_REQUIRE(run(&r) == 0);
	ATF_CHECK_EQ(r.ex.reason, SANDBOX_TIMEOUT);
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(signal_forwarded);
ATF_TC_BODY(signal_forwarded, tc)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct run	 r;
	size_t		 i;

	for (i = 0; i < nitems(sigs); i++) {
		run_init(tc, &r);
		arg(&r, "sleep");
		r.ready_signal = sigs[i];
		ATF_REQUIRE(run(&r) == 0);
		ATF_CHECK_EQ(r.ex.reason, SANDBOX_SIGNALED);
		ATF_CHECK_EQ(WTERMSIG(r.ex.wstatus), sigs[i]);
		run_free(&r);
	}
}

ATF_TC_WITHOUT_HEAD(killed);
ATF_TC_BODY(killed, tc)
{
	struct run	 r;

	run_init(tc, &r);
	arg(&r, "sleep");
	r.ready_signal = SIGKILL;
	ATF_REQUIRE(run(&r) == 0);
	ATF_CHECK_EQ(r.ex.reason, SANDBOX_KILLED);
	run_free(&r);
}

/* pid 1 killed from outside sbx (sandbox_kill not called): a sandbox
 * lost, reported as killed and said so, not as a failed setup. */
static void
kill_pid1(struct run *r)
{
	ATF_REQUIRE(kill(r->sb.pid, SIGKILL) == 0);
}

ATF_TC_WITHOUT_HEAD(pid1_killed_outside);
ATF_TC_BODY(pid1_killed_outside, tc)
{
	struct run	 r;
	char		 how[256];

	run_init(tc, &r);
	arg(&r, "sleep");
	r.on_ready = kill_pid1;
	ATF_REQUIRE(run(&r) == 0);
	ATF_CHECK_EQ(r.ex.reason, SANDBOX_KILLED);
	sandbox_exit_format(&r.ex, how, sizeof(how));
	ATF_CHECK_MSG(strstr(how, "killed: its pid 1 was killed by signal 9 "
	    "from outside sbx") != NULL, "%s", how);
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(setup_failures_named);
ATF_TC_BODY(setup_failures_named, tc)
{
	struct run	 r;
	char		 how[256];

	run_init(tc, &r);
	ATF_REQUIRE(sbx_spec_add_mount(&r.spec, SBX_MOUNT_RO,
	    "/nonexistent-sbx-test", "/opt", 0) == 0);
	arg(&r, "exit");
	arg(&r, "0");
	ATF_REQUIRE(run(&r) == 0);
	sandbox_exit_format(&r.ex, how, sizeof(how));
	ATF_CHECK_STREQ(how, "setup-failed: bind /nonexistent-sbx-test: "
	    "ENOENT");
	run_free(&r);

	run_init(tc, &r);
	r.spec.argv[0] = "/usr/bin/nonexistent-sbx-test";
	ATF_REQUIRE(run(&r) == 0);
	sandbox_exit_format(&r.ex, how, sizeof(how));
	ATF_CHECK_STREQ(how, "setup-failed: execve "
	    "/usr/bin/nonexistent-sbx-test: ENOENT");
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(pids_limit);
ATF_TC_BODY(pids_limit, tc)
{
	struct run	 r;
	const char	*v;
	long		 n;

	run_init(tc, &r);
	/* The kernel exempts host uid 0 from RLIMIT_NPROC: as root, map
	 * the sandbox to a dedicated id, as root deployments should. */
	if (geteuid() == 0) {
		r.conf.map_host = 1;
		r.conf.host_uid = RANGE_ID;
		r.conf.host_gid = RANGE_ID;
	}
	r.spec.pids = 8;
	arg(&r, "fork");
	arg(&r, "64");
	run_ok(&r);
	v = value(&r, "forked");
	n = strtol(v, NULL, 10);
	ATF_CHECK_MSG(n < 8 && strstr(v, "EAGAIN") != NULL, "forked %s", v);
	run_free(&r);
}

/* ---- stdio fidelity -------------------------------------------------- */

ATF_TC_WITHOUT_HEAD(stdio_binary);
ATF_TC_BODY(stdio_binary, tc)
{
	struct run	 r;
	unsigned char	*in;
	size_t		 len = 3 * 1024 * 1024 + 7, i;

	in = xmalloc(len);
	for (i = 0; i < len; i++)
		in[i] = (unsigned char)(i * 131 + (i >> 9));
	run_init(tc, &r);
	arg(&r, "cat");
	r.in = in;
	r.inlen = len;
	run_ok(&r);
	ATF_REQUIRE_EQ(r.out.len, len);
	ATF_CHECK(memcmp(r.out.p, in, len) == 0);
	ATF_CHECK_EQ(r.err.len, 0);
	free(in);
	run_free(&r);
}

static unsigned char
spew_byte(long i, int s)
{
	return (unsigned char)((i * 31 + (s ? 7 : 0)) ^ (i >> 8));
}

ATF_TC_WITHOUT_HEAD(stdio_large_output);
ATF_TC_BODY(stdio_large_output, tc)
{
	struct run	 r;
	long		 i, nout = 8L << 20, nerr = (1L << 20) + 3;

	run_init(tc, &r);
	arg(&r, "spew");
	arg(&r, "8388608");
	arg(&r, "1048579");
	run_ok(&r);
	ATF_REQUIRE_EQ(r.out.len, (size_t)nout);
	ATF_REQUIRE_EQ(r.err.len, (size_t)nerr);
	for (i = 0; i < nout; i++)
		if ((unsigned char)r.out.p[i] != spew_byte(i, 0))
			atf_tc_fail("stdout byte %ld differs", i);
	for (i = 0; i < nerr; i++)
		if ((unsigned char)r.err.p[i] != spew_byte(i, 1))
			atf_tc_fail("stderr byte %ld differs", i);
	run_free(&r);
}

ATF_TC_WITHOUT_HEAD(stdin_closed);
ATF_TC_BODY(stdin_closed, tc)
{
	struct run	 r;

	/* A pipe whose write end is closed at once. */
	run_init(tc, &r);
	arg(&r, "stdin");
	run_ok(&r);
	ATF_CHECK_STREQ(value(&r, "stdin"), "eof 0");
	run_free(&r);

	/* No stdin at all: /dev/null. */
	run_init(tc, &r);
	r.no_stdin = 1;
	arg(&r, "stdin");
	run_ok(&r);
	ATF_CHECK_STREQ(value(&r, "stdin"), "eof 0");
	run_free(&r);
}

/* ---- lifetime and hygiene -------------------------------------------- */

/*
 * A launcher that dies takes its sandboxes with it.  The intermediate
 * process spawns a sandbox, waits until the payload runs, and exits; the
 * payload holds the pipe's only other write end, so EOF on it means the
 * sandbox is gone.  A surviving sandbox would hang this case until kyua's
 * timeout fails it.
 */
ATF_TC(die_with_parent);
ATF_TC_HEAD(die_with_parent, tc)
{
	atf_tc_set_md_var(tc, "timeout", "120");
}
ATF_TC_BODY(die_with_parent, tc)
{
	struct sandbox_io	 io;
	struct run		 r;
	char			 buf[256];
	size_t			 got = 0;
	ssize_t			 n;
	pid_t			 pid;
	int			 p[2], status;

	run_init(tc, &r);
	arg(&r, "sleep");
	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		io.in = -1;
		io.out = p[1];
		io.err = -1;
		io.workdir = -1;
		io.changes = -1;
		io.csbase = -1;
		if (sandbox_spawn(&r.sb, &r.conf, &r.spec, &io, r.why,
		    sizeof(r.why)) == -1)
			_exit(1);
		close(p[1]);
		while (got < 6 && (n = read(p[0], buf + got, 6 - got)) > 0)
			got += (size_t)n;
		_exit(got == 6 && memcmp(buf, "ready\n", 6) == 0 ? 0 : 2);
	}
	close(p[1]);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "intermediate status 0x%x", status);
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		;
	ATF_CHECK_EQ(n, 0);
	close(p[0]);
}

static int
count_fds(void)
{
	struct dirent	*de;
	DIR		*d;
	int		 n = 0;

	ATF_REQUIRE((d = opendir("/proc/self/fd")) != NULL);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own descriptor */
}

static char *
slurp(const char *path)
{
	char	*p = NULL;
	size_t	 len = 0, cap = 0;
	ssize_t	 n;
	int	 fd;

	ATF_REQUIRE((fd = open(path, O_RDONLY)) != -1);
	for (;;) {
		if (cap - len < 4096) {
			p = xrecallocarray(p, cap, cap + 65536, 1);
			cap += 65536;
		}
		if ((n = read(fd, p + len, cap - len - 1)) <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	p[len] = '\0';
	return p;
}

ATF_TC(many_sandboxes_leave_nothing);
ATF_TC_HEAD(many_sandboxes_leave_nothing, tc)
{
	atf_tc_set_md_var(tc, "timeout", "300");
}
ATF_TC_BODY(many_sandboxes_leave_nothing, tc)
{
	struct run	 r;
	siginfo_t	 si;
	char		*before, *after;
	int		 fds, i;

	run_init(tc, &r);
	arg(&r, "exit");
	arg(&r, "7");
	/* Warm up: the first run allocates the harness's buffers. */
	ATF_REQUIRE(run(&r) == 0);
	run_free(&r);
	fds = count_fds();
	before = slurp("/proc/self/mountinfo");
	for (i = 0; i < 200; i++) {
		ATF_REQUIRE_MSG(run(&r) == 0, "run %d: %s", i, r.why);
		ATF_REQUIRE_MSG(r.ex.reason == SANDBOX_EXITED &&
		    WEXITSTATUS(r.ex.wstatus) == 7, "run %d: reason %d", i,
		    r.ex.reason);
		run_free(&r);
	}
	after = slurp("/proc/self/mountinfo");
	ATF_CHECK_EQ(count_fds(), fds);
	ATF_CHECK_STREQ(after, before);
	/* No zombie: nothing of ours is left to wait for. */
	memset(&si, 0, sizeof(si));
	ATF_CHECK(waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == -1 &&
	    errno == ECHILD);
	free(before);
	free(after);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, host_paths_invisible);
	ATF_TP_ADD_TC(tp, etc_generated);
	ATF_TP_ADD_TC(tp, own_loopback);
	ATF_TP_ADD_TC(tp, environment_clean);
	ATF_TP_ADD_TC(tp, network_none);
	ATF_TP_ADD_TC(tp, namespaces_differ);
	ATF_TP_ADD_TC(tp, credentials);
	ATF_TP_ADD_TC(tp, dedicated_range);
	ATF_TP_ADD_TC(tp, read_only_outside_tmp_and_workdir);
	ATF_TP_ADD_TC(tp, privileged_operations_fail);
	ATF_TP_ADD_TC(tp, exec_where_written);
	ATF_TP_ADD_TC(tp, noexec_mounts);
	ATF_TP_ADD_TC(tp, merged_usr_links);
	ATF_TP_ADD_TC(tp, proxy_listeners);
	ATF_TP_ADD_TC(tp, workdir_is_the_directory_passed);
	ATF_TP_ADD_TC(tp, workdir_removed);
	ATF_TP_ADD_TC(tp, tmpfs_sizes);
	ATF_TP_ADD_TC(tp, dev_minimal);
	ATF_TP_ADD_TC(tp, proc_masked);
	ATF_TP_ADD_TC(tp, no_descriptor_leaks_in);
	ATF_TP_ADD_TC(tp, exit_status_exact);
	ATF_TP_ADD_TC(tp, timeout_kills);
	ATF_TP_ADD_TC(tp, signal_forwarded);
	ATF_TP_ADD_TC(tp, killed);
	ATF_TP_ADD_TC(tp, pid1_killed_outside);
	ATF_TP_ADD_TC(tp, setup_failures_named);
	ATF_TP_ADD_TC(tp, pids_limit);
	ATF_TP_ADD_TC(tp, stdio_binary);
	ATF_TP_ADD_TC(tp, stdio_large_output);
	ATF_TP_ADD_TC(tp, stdin_closed);
	ATF_TP_ADD_TC(tp, die_with_parent);
	ATF_TP_ADD_TC(tp, many_sandboxes_leave_nothing);
	return atf_no_error();
}
