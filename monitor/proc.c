/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * proc.c: the monitor's roles.  Each role is its own executable, started
 * with fork+exec (a fresh address space and ASLR layout per role) with its
 * socketpair at descriptor 3 and nothing else open.  A role that dies is
 * never restarted: the whole service shuts down (design.md §1, "lost child"),
 * because a role killed by its seccomp filter must not get another try.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "role.h"
#include "rolespawn.h"
#include "monitor.h"

#define PROC_READS_MAX	8	/* reads per event before others get a turn */

struct role roles[ROLE_MAX] = {
	{ .id = ROLE_LAUNCHER, .name = "launcher", .exe = "sbx-launcher",
	  .exefd = -1, .logfd = -1 },
	{ .id = ROLE_PROXY, .name = "proxy", .exe = "sbx-proxy",
	  .exefd = -1, .logfd = -1 },
	{ .id = ROLE_PROVIDER_RUNNER, .name = "provider-runner",
	  .exe = "sbx-provider-runner", .exefd = -1, .logfd = -1 },
};

static char	 libexec[PATH_MAX];
static struct event	 ev_watchdog;

static void	 proc_dispatch(int, short, void *);
static void	 proc_logread(int, short, void *);
static void	 proc_reap_role(struct role *);
static void	 proc_watchdog(int, short, void *);

/*
 * Relay a role's stderr, line by line, into the monitor's log.  Lines are
 * bounded: a longer one is cut and marked, so a role cannot make the
 * monitor buffer without limit.
 */
static void
proc_logdrain(struct role *r)
{
	char	*nl;
	ssize_t	 n;
	size_t	 len;

	for (;;) {
		n = read(r->logfd, r->logbuf + r->loglen,
		    sizeof(r->logbuf) - 1 - r->loglen);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		r->loglen += n;
		r->logbuf[r->loglen] = '\0';
		while ((nl = memchr(r->logbuf, '\n', r->loglen)) != NULL) {
			*nl = '\0';
			log_relay(r->logbuf);
			len = nl + 1 - r->logbuf;
			memmove(r->logbuf, nl + 1, r->loglen - len);
			r->loglen -= len;
		}
		if (r->loglen == sizeof(r->logbuf) - 1) {
			r->logbuf[r->loglen] = '\0';
			log_relay(r->logbuf);
			log_warnx("role %s: log line cut at %zu bytes",
			    r->name, r->loglen);
			r->loglen = 0;
		}
	}
	if (n == 0 && r->loglen > 0) {
		r->logbuf[r->loglen] = '\0';
		log_relay(r->logbuf);
		r->loglen = 0;
	}
}

static void
proc_logread(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	proc_logdrain(arg);
}

/*
 * Roles live in SBX_ROLEDIR (../libexec/sbx unless configure was given
 * other --sbindir/--libexecdir) relative to the monitor's own executable,
 * both in the build tree and when installed, so no absolute path is
 * compiled in: a build tree runs as it is and DESTDIR or PREFIX can move
 * an installation.
 */
const char *
proc_libexec(void)
{
	if (libexec[0] == '\0' &&
	    role_dir(SBX_ROLEDIR, libexec, sizeof(libexec)) == -1)
		fatal("locating the roles (%s from our own directory)",
		    SBX_ROLEDIR);
	return libexec;
}

static int
open_exe(const char *name)
{
	char	 path[PATH_MAX];
	int	 fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", proc_libexec(),
	    name) >= sizeof(path))
		fatalx("%s: path too long", name);
	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1)
		fatal("%s", path);
	return fd;
}

/*
 * Open every program the service runs -- the roles -- while it can still
 * reach them: started as root from a build tree in a private directory
 * (/root/..., mktemp -d), the run-as user could not walk there.
 * They are executed by descriptor (execveat), which checks the file's own
 * permissions but no path.
 */
void
proc_open_all(void)
{
	int	 i;

	for (i = 0; i < ROLE_MAX; i++)
		roles[i].exefd = open_exe(roles[i].exe);
}

#ifdef SBX_VALGRIND
/*
 * make valgrind only (scripts/valgrind): with SBX_VALGRIND_DIR set in the
 * monitor's environment, the provider runner runs under valgrind's
 * memcheck, its report in DIR/provider-runner.PID.log.  Returns only if
 * that is not asked for or valgrind cannot be run.
 */
static void
proc_exec_valgrind(const struct role *r, int exe, char *const argv[],
    char *const envp[])
{
	static char	 log[PATH_MAX], prog[64];
	const char	*dir = getenv("SBX_VALGRIND_DIR");
	char		*vargv[24];
	int		 n = 0, i;

	if (dir == NULL || r->id != ROLE_PROVIDER_RUNNER)
		return;
	if ((size_t)snprintf(log, sizeof(log), "--log-file=%s/%s.%%p.log",
	    dir, r->exe) >= sizeof(log))
		return;
	/* valgrind reads the program by name: the descriptor's. */
	snprintf(prog, sizeof(prog), "/proc/self/fd/%d", exe);
	if (fcntl(exe, F_SETFD, 0) == -1)
		return;
	vargv[n++] = "valgrind";
	vargv[n++] = "--error-exitcode=99";
	vargv[n++] = "--leak-check=full";
	vargv[n++] = "--errors-for-leak-kinds=definite,indirect";
	vargv[n++] = "--vgdb=no";
	vargv[n++] = log;
	vargv[n++] = prog;
	for (i = 1; argv[i] != NULL && n < (int)nitems(vargv) - 1; i++)
		vargv[n++] = argv[i];
	vargv[n] = NULL;
	execve("/usr/bin/valgrind", vargv, envp);
}
#endif

/* Our end of the launcher's LAUNCH_POLICY_FD (proto.h), or -1. */
static int	 policy_fd = -1;

/*
 * The id-map policy, for the launcher's mapper alone: at start and after
 * each reload.  It goes on its own socket, never through the launcher's
 * channel, whose reader (the launcher's front) is assumed compromised by
 * the mapper.  A launcher that holds no capabilities has no mapper and
 * closed its end: the write fails with EPIPE, which is not an error.
 */
void
proc_policy_send(const struct sbx_conf *conf)
{
	struct idmap_policy	 pol;
	const struct conf_allow	*a;
	const struct conf_profile *prof;

	if (policy_fd == -1)
		return;
	memset(&pol, 0, sizeof(pol));
	pol.version = IDMAP_POLICY_VERSION;
	pol.caller_min_uid = conf->caller_min_uid;
	pol.range_set = conf->uid_range_set;
	pol.range_start = conf->uid_range_start;
	pol.range_count = conf->uid_range_count;
	pol.sandbox_user_uid = (uint32_t)conf->sandbox_user_uid;
	pol.sandbox_user_gid = (uint32_t)conf->sandbox_user_gid;
	/* Without a profile of identity caller, no sandbox is a caller's:
	 * the mapper then maps no caller uid whatever the front asks. */
	TAILQ_FOREACH(prof, &conf->profiles, entry)
		if (prof->identity == CONF_IDENTITY_CALLER)
			pol.caller_set = 1;
	TAILQ_FOREACH(a, &conf->allows, entry) {
		if (a->type != CONF_ALLOW_UID || !a->who.set)
			continue;
		if (pol.nallow == IDMAP_ALLOW_MAX) {
			log_warnx("more than %d \"allow uid\" lines: the "
			    "launcher maps only the first %d below "
			    "caller-min-uid", IDMAP_ALLOW_MAX, IDMAP_ALLOW_MAX);
			break;
		}
		pol.allow_uid[pol.nallow++] = a->who.id;
	}
	if (write(policy_fd, &pol, sizeof(pol)) != (ssize_t)sizeof(pol) &&
	    errno != EPIPE)
		log_warn("id-map policy to the launcher");
}

static void
proc_exec(struct role *r, int debug, int verbose)
{
	char	 path[PATH_MAX];
	char	*argv[8], *envp[] = { NULL };
	int	 sp[2], lp[2], pol[2] = { -1, -1 }, argc = 0, nullfd, exe;
	int	 polhi = -1, first;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", proc_libexec(),
	    r->exe) >= sizeof(path))
		fatalx("role path too long");
	if (r->exefd == -1)
		fatalx("role %s: not opened", r->name);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0, sp) == -1)
		fatal("socketpair");
	/* The role's stderr: the monitor relays it (see proc_logread). */
	if (pipe2(lp, O_CLOEXEC) == -1)
		fatal("pipe2");
	if (r->id == ROLE_LAUNCHER && socketpair(AF_UNIX, SOCK_SEQPACKET |
	    SOCK_CLOEXEC, 0, pol) == -1)
		fatal("socketpair");

	switch (r->pid = fork()) {
	case -1:
		fatal("fork");
	case 0:
		break;
	default:
		close(sp[1]);
		close(lp[1]);
		if (pol[1] != -1) {
			close(pol[1]);
			if (fcntl(pol[0], F_SETFL, O_NONBLOCK) == -1)
				fatal("fcntl");
			policy_fd = pol[0];
		}
		if (imsgbuf_init(&r->ibuf, sp[0]) == -1)
			fatal("imsgbuf_init");
		imsgbuf_allow_fdpass(&r->ibuf);
		if (r->id == ROLE_LAUNCHER && imsgbuf_set_maxsize(&r->ibuf,
		    LAUNCH_MSG_MAXSIZE) == -1)
			fatal("imsgbuf_set_maxsize");
		if (fcntl(lp[0], F_SETFL, O_NONBLOCK) == -1)
			fatal("fcntl");
		r->logfd = lp[0];
		r->loglen = 0;
		event_set(&r->logev, r->logfd, EV_READ | EV_PERSIST,
		    proc_logread, r);
		event_add(&r->logev, NULL);
		return;
	}

	/* Child.  Own session: a ^C at the monitor's terminal is the
	 * monitor's to handle, not each role's. */
	setsid();
	/* The executable's descriptor may sit where fd 3 is about to go. */
	if ((exe = fcntl(r->exefd, F_DUPFD_CLOEXEC, 64)) == -1)
		_exit(127);
	if (pol[1] != -1 && (polhi = fcntl(pol[1], F_DUPFD_CLOEXEC,
	    64)) == -1)
		_exit(127);
	if (sp[1] == ROLE_FD) {
		if (fcntl(sp[1], F_SETFD, 0) == -1)
			_exit(127);
	} else if (dup2(sp[1], ROLE_FD) == -1)
		_exit(127);
	if ((nullfd = open("/dev/null", O_RDWR)) == -1)
		_exit(127);
	dup2(nullfd, STDIN_FILENO);
	dup2(nullfd, STDOUT_FILENO);
	dup2(lp[1], STDERR_FILENO);
	/* The launcher's policy socket, for its mapper (proto.h). */
	first = ROLE_FD + 1;
	if (polhi != -1) {
		if (dup2(polhi, LAUNCH_POLICY_FD) == -1)
			_exit(127);
		first = LAUNCH_POLICY_FD + 1;
	}
	/* Nothing else of the monitor's reaches the role. */
	if (syscall(SYS_close_range, first, exe - 1, 0) == -1 ||
	    syscall(SYS_close_range, exe + 1, ~0U, 0) == -1)
		_exit(127);

	if (r->id == ROLE_LAUNCHER)
		caps_launcher_child();
	else
		caps_role_child();
	argv[argc++] = (char *)r->exe;
	argv[argc++] = "-P";
	argv[argc++] = (char *)r->name;
	if (debug)
		argv[argc++] = "-d";
	if (verbose)
		argv[argc++] = "-v";
	/* Not dumpable (role_init): every role, so the launcher's spawner,
	 * the one process that may trace, can trace none of them.  The
	 * launcher's front takes it alone: its mapper and spawner reset it
	 * (launcher/split.c, part_init). */
	if (caps_granted())
		argv[argc++] = "-N";
	argv[argc] = NULL;
#ifdef SBX_VALGRIND
	proc_exec_valgrind(r, exe, argv, envp);
#endif
	/* Roles need no environment; nothing of the caller's leaks in. */
	syscall(SYS_execveat, exe, "", argv, envp, AT_EMPTY_PATH);
	fprintf(stderr, "sbx-monitor: exec %s: %s\n", path, strerror(errno));
	_exit(127);
}

void
proc_event_add(struct role *r)
{
	short	 events = EV_READ;

	/* Messages go now: the socket almost always takes them, and waiting
	 * for EV_WRITE costs an event-loop round.  An error stays queued
	 * and is met again by proc_dispatch. */
	if (imsgbuf_queuelen(&r->ibuf) > 0)
		(void)imsgbuf_write(&r->ibuf);
	if (imsgbuf_queuelen(&r->ibuf) > 0)
		events |= EV_WRITE;
	/* One-shot events: re-arm after every dispatch. */
	if (event_initialized(&r->ev))
		event_del(&r->ev);
	r->events = events;
	event_set(&r->ev, r->ibuf.fd, events, proc_dispatch, r);
	event_add(&r->ev, NULL);
}

/* Wait (bounded) until every role reported ready: a role applies its
 * privilege file before it says so, so nothing is served before that. */
static void
proc_wait_ready(void)
{
	struct imsg		 imsg;
	struct role_ready	 rr;
	struct passwd		*pw;
	struct timespec		 pause = { 0, 10 * 1000 * 1000 };
	int			 i, n, pending, tries;

	for (tries = 0; tries < 1000; tries++) {
		pending = 0;
		for (i = 0; i < ROLE_MAX; i++) {
			struct role *r = &roles[i];

			if (r->ready)
				continue;
			if ((n = imsgbuf_read(&r->ibuf)) == -1) {
				log_warn("role %s: read", r->name);
				monitor_shutdown(1);
			}
			/* proc_reap() names the role and how it ended. */
			if (proc_reap() == -1)
				monitor_shutdown(1);
			if (n == 0) {
				log_warnx("role %s closed its channel during "
				    "start-up", r->name);
				monitor_shutdown(1);
			}
			if ((n = imsg_get(&r->ibuf, &imsg)) == -1) {
				log_warn("role %s: malformed message",
				    r->name);
				monitor_shutdown(1);
			}
			if (n == 0) {
				pending++;
				continue;
			}
			if (imsg_get_type(&imsg) != IMSG_ROLE_READY ||
			    imsg_get_data(&imsg, &rr, sizeof(rr)) == -1) {
				log_warnx("role %s: unexpected message %u "
				    "(len %zu) during start-up", r->name,
				    imsg_get_type(&imsg), imsg_get_len(&imsg));
				monitor_shutdown(1);
			}
			if (rr.version != ROLE_PROTOCOL_VERSION ||
			    rr.pid != (uint32_t)r->pid) {
				log_warnx("role %s: ready message names "
				    "version %u pid %u, expected %u pid %d",
				    r->name, rr.version, rr.pid,
				    ROLE_PROTOCOL_VERSION, (int)r->pid);
				monitor_shutdown(1);
			}
			imsg_free(&imsg);
			r->uid = rr.uid;
			r->gid = rr.gid;
			/* Named now: the monitor's own filter comes later. */
			if ((pw = getpwuid(r->uid)) != NULL)
				strlcpy(r->user, pw->pw_name, sizeof(r->user));
			else
				snprintf(r->user, sizeof(r->user), "%u",
				    (unsigned)r->uid);
			r->ready = 1;
			log_debug("role %s ready, pid %d uid %u", r->name,
			    (int)r->pid, (unsigned)r->uid);
		}
		if (pending == 0)
			return;
		nanosleep(&pause, NULL);
	}
	log_warnx("roles did not report ready within 10 seconds");
	monitor_shutdown(1);
}

void
proc_start_all(int debug, int verbose)
{
	int	 i;

	for (i = 0; i < ROLE_MAX; i++) {
		proc_exec(&roles[i], debug, verbose);
		close(roles[i].exefd);
		roles[i].exefd = -1;
	}
	proc_wait_ready();
	for (i = 0; i < ROLE_MAX; i++)
		proc_event_add(&roles[i]);
	evtimer_set(&ev_watchdog, proc_watchdog, NULL);
	proc_watchdog_arm();
}

/* ---- liveness -----------------------------------------------------------
 *
 * A role that is stopped (SIGSTOP, a debugger) or stuck in a loop keeps
 * its channel open and answers nothing: without a bound, every client
 * whose request needs it would wait forever.  The monitor probes each
 * role every half role-timeout; a probe unanswered for role-timeout means
 * the role is treated as lost (design.md §1): clients are told why, the role
 * is killed and the service stops, fail closed, for the service manager
 * to restart.  A probe is answered from the role's event loop (role.c),
 * so it measures exactly what serving a request needs.
 */
static int64_t
proc_elapsed_ms(const struct timespec *since)
{
	struct timespec	 now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(now.tv_sec - since->tv_sec) * 1000 +
	    (now.tv_nsec - since->tv_nsec) / 1000000;
}

/* (Re)arm the probe's timer; a reload may have changed role-timeout. */
void
proc_watchdog_arm(void)
{
	struct timeval	 tv;
	uint32_t	 half = monitor_conf->role_timeout / 2;

	if (!event_initialized(&ev_watchdog))
		return;
	tv.tv_sec = half / 1000;
	tv.tv_usec = (half % 1000) * 1000;
	evtimer_del(&ev_watchdog);
	evtimer_add(&ev_watchdog, &tv);
}

static __dead void
proc_hung(struct role *r, int64_t ms)
{
	int	 status;

	log_warnx("lost child: role %s (pid %d) did not answer for %lld ms "
	    "(role-timeout %u ms): stopped or stuck; killing it",
	    r->name, (int)r->pid, (long long)ms,
	    (unsigned)monitor_conf->role_timeout);
	audit("role-lost", getuid(), r->pid, "role %s did not answer "
	    "within role-timeout %u ms", r->name,
	    (unsigned)monitor_conf->role_timeout);
	reply_goodbye("role %s did not answer within role-timeout %u ms; "
	    "the service stops", r->name,
	    (unsigned)monitor_conf->role_timeout);
	/* SIGKILL: a stopped process would keep a SIGTERM pending. */
	kill(r->pid, SIGKILL);
	while (waitpid(r->pid, &status, 0) == -1 && errno == EINTR)
		;
	r->pid = 0;
	monitor_shutdown(1);
}

static void
proc_watchdog(int fd, short event, void *arg)
{
	struct role	*r;
	struct role_ping p;
	int64_t		 ms;
	int		 i;

	(void)fd;
	(void)event;
	(void)arg;
	for (i = 0; i < ROLE_MAX; i++) {
		r = &roles[i];
		if (r->pid <= 0)
			continue;
		if (r->ping_out) {
			ms = proc_elapsed_ms(&r->ping_sent);
			if (ms >= monitor_conf->role_timeout)
				proc_hung(r, ms);
			continue;
		}
		memset(&p, 0, sizeof(p));
		p.seq = ++r->ping_seq;
		if (imsg_compose(&r->ibuf, IMSG_ROLE_PING, 0, 0, -1, &p,
		    sizeof(p)) == -1)
			fatal("role %s: composing ping", r->name);
		r->ping_out = 1;
		clock_gettime(CLOCK_MONOTONIC, &r->ping_sent);
		proc_event_add(r);
	}
	proc_watchdog_arm();
}

static void
proc_pong(struct role *r, struct imsg *imsg)
{
	struct role_ping	 p;

	if (imsg_get_data(imsg, &p, sizeof(p)) == -1 || !r->ping_out ||
	    p.seq != r->ping_seq) {
		log_warnx("role %s: liveness answer of %zu bytes does not "
		    "match the probe sent (%llu)", r->name,
		    imsg_get_len(imsg), (unsigned long long)r->ping_seq);
		monitor_shutdown(1);
	}
	r->ping_out = 0;
}

static struct role *
proc_byfd(int fd)
{
	int	 i;

	for (i = 0; i < ROLE_MAX; i++)
		if (roles[i].pid > 0 && roles[i].ibuf.fd == fd)
			return &roles[i];
	return NULL;
}

/*
 * The role channels are a closed protocol: (role, type, exact size,
 * handler); anything else from a role ends the service.
 */
static const struct proc_handler {
	enum role_id	 role;
	uint32_t	 type;
	size_t		 len;
	void		(*fn)(struct role *, struct imsg *);
} proc_table[] = {
	{ ROLE_LAUNCHER, IMSG_LAUNCH_STARTED, sizeof(struct launch_started),
	  msb_started },
	{ ROLE_LAUNCHER, IMSG_LAUNCH_EXIT, sizeof(struct launch_exit),
	  msb_exited },
	{ ROLE_LAUNCHER, IMSG_LAUNCH_SELFTEST_RESULT,
	  sizeof(struct selftest_result), selftest_result },
	{ ROLE_LAUNCHER, IMSG_LAUNCH_LISTENER, sizeof(struct launch_listener),
	  msb_listener },
	{ ROLE_PROXY, IMSG_PROXY_AUDIT, sizeof(struct proxy_audit),
	  egress_audit },
	{ ROLE_PROXY, IMSG_PROXY_TUNNEL, sizeof(struct proxy_tunnel),
	  egress_tunnel },
	{ ROLE_PROXY, IMSG_PROXY_STATS, sizeof(struct proxy_stats),
	  egress_stats },
	{ ROLE_PROVIDER_RUNNER, IMSG_PR_ALLOWLIST_OK, sizeof(struct pr_done),
	  provider_allowlist_ok },
	{ ROLE_PROVIDER_RUNNER, IMSG_PR_BLOB, ROLE_LEN_ANY, provider_blob },
	{ ROLE_PROVIDER_RUNNER, IMSG_PR_PROVIDER, sizeof(struct pr_provider),
	  provider_issued },
	{ ROLE_PROVIDER_RUNNER, IMSG_PR_DONE, sizeof(struct pr_done),
	  provider_done },
	{ ROLE_PROVIDER_RUNNER, IMSG_PR_SPAWN_STDOUT, sizeof(struct pr_spawn),
	  provider_spawn_stdout },
	{ ROLE_PROVIDER_RUNNER, IMSG_PR_SPAWN, sizeof(struct pr_spawn),
	  provider_spawn },
	{ ROLE_PROVIDER_RUNNER, IMSG_PR_ARM, sizeof(struct pr_arm),
	  provider_arm },
	{ ROLE_PROVIDER_RUNNER, IMSG_PR_GATES_LOOKUP,
	  sizeof(struct pr_gates_lookup), mgates_lookup },
	{ ROLE_PROVIDER_RUNNER, IMSG_PR_GATES_RERUN,
	  sizeof(struct pr_gates_rerun), mgates_rerun },
	{ ROLE_PROVIDER_RUNNER, IMSG_PR_GATES_DONE,
	  sizeof(struct pr_gates_done), mgates_done },
	{ ROLE_PROVIDER_RUNNER, IMSG_PR_RECHECKED,
	  sizeof(struct pr_recheck), provider_rechecked },
	{ ROLE_MAX, 0, 0, NULL }
};

/* Handle every complete message of a role: how many, or -1 after the
 * service was told to stop. */
static int
proc_handle(struct role *r)
{
	const struct proc_handler	*h;
	struct imsg			 imsg;
	int				 n, got = 0;

	for (;;) {
		if ((n = imsg_get(&r->ibuf, &imsg)) == -1) {
			log_warn("role %s: malformed message", r->name);
			monitor_shutdown(1);
			return -1;
		}
		if (n == 0)
			return got;
		if (imsg_get_type(&imsg) == IMSG_ROLE_PONG) {
			proc_pong(r, &imsg);
			imsg_free(&imsg);
			got++;
			continue;
		}
		for (h = proc_table; h->fn != NULL; h++)
			if (h->role == r->id && h->type == imsg_get_type(&imsg))
				break;
		if (h->fn == NULL || (h->len != ROLE_LEN_ANY &&
		    imsg_get_len(&imsg) != h->len)) {
			log_warnx("role %s: message type %u length %zu is "
			    "outside its protocol", r->name,
			    imsg_get_type(&imsg), imsg_get_len(&imsg));
			imsg_free(&imsg);
			monitor_shutdown(1);
			return -1;
		}
		h->fn(r, &imsg);
		imsg_free(&imsg);
		got++;
	}
}

static void
proc_dispatch(int fd, short event, void *arg)
{
	struct role	*r = arg;
	int		 n, reads;

	if (proc_byfd(fd) != r)
		fatalx("%s: stray descriptor %d", __func__, fd);
	/*
	 * A role that dies with our messages unread resets the channel
	 * (ECONNRESET, EPIPE) instead of closing it: the same loss, and it
	 * must end the same way -- the lost-child line naming the role and
	 * how it died, the clients told, an orderly exit.
	 */
	if (event & EV_WRITE) {
		if (imsgbuf_write(&r->ibuf) == -1) {
			log_warn("role %s: write", r->name);
			proc_reap_role(r);
			monitor_shutdown(1);
		}
	}
	/* Read again while reads bring messages (bounded): a message with
	 * a descriptor comes in a recvmsg of its own. */
	for (reads = 0; reads < PROC_READS_MAX; reads++) {
		if (event & EV_READ) {
			if ((n = imsgbuf_read(&r->ibuf)) == -1) {
				log_warn("role %s: read", r->name);
				proc_reap_role(r);
				monitor_shutdown(1);
			}
			if (n == 0) {
				log_warnx("role %s closed its channel",
				    r->name);
				proc_reap_role(r);
				monitor_shutdown(1);
			}
		}
		if ((n = proc_handle(r)) == -1)
			return;
		if (n == 0 || !(event & EV_READ))
			break;
	}
	proc_event_add(r);
}

static const char *
proc_describe(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d",
		    WEXITSTATUS(status));
	else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
		snprintf(buf, len, "killed by signal %d (SIGSYS: its seccomp "
		    "filter caught a system call outside its privilege file)",
		    WTERMSIG(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)",
		    WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "stopped (status %#x)", status);
	return buf;
}

/*
 * A role closed its channel: it is exiting, or it is misbehaving.  Give it
 * a moment to exit so the log says how it ended, then stop waiting and
 * kill it -- a role that closes fd 3 and carries on is not trusted either.
 */
static void
proc_reap_role(struct role *r)
{
	struct timespec	 pause = { 0, 10 * 1000 * 1000 };
	int		 tries;

	for (tries = 0; tries < 100 && r->pid > 0; tries++) {
		if (proc_reap() == -1 || r->pid <= 0)
			return;
		nanosleep(&pause, NULL);
	}
	if (r->pid > 0) {
		log_warnx("role %s (pid %d) closed its channel but kept "
		    "running; killing it", r->name, (int)r->pid);
		kill(r->pid, SIGKILL);
		(void)proc_reap();
	}
}

/* Reap whatever exited.  -1 when a role was lost (the caller shuts down). */
int
proc_reap(void)
{
	char	 how[160];
	pid_t	 pid;
	int	 i, status, lost = 0;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (i = 0; i < ROLE_MAX; i++) {
			if (roles[i].pid != pid)
				continue;
			roles[i].pid = 0;
			lost = 1;
			/* Its last words first: usually why it died. */
			if (roles[i].logfd != -1)
				proc_logdrain(&roles[i]);
			log_warnx("lost child: role %s (pid %d) %s",
			    roles[i].name, (int)pid,
			    proc_describe(status, how, sizeof(how)));
			audit("role-lost", getuid(), pid, "role %s %s",
			    roles[i].name, how);
			reply_goodbye("role %s was lost (%s); the service "
			    "stops", roles[i].name, how);
		}
	}
	return lost ? -1 : 0;
}

/*
 * Stop every role: SIGTERM, a short grace, then SIGKILL.  Sandboxes are
 * children of the launcher and die with it (their shims hold
 * PR_SET_PDEATHSIG), so killing the roles kills every sandbox.
 */
void
proc_shutdown(void)
{
	struct timespec	 pause = { 0, 10 * 1000 * 1000 };
	int		 i, alive, tries, status;

	for (i = 0; i < ROLE_MAX; i++) {
		if (roles[i].pid <= 0)
			continue;
		if (event_initialized(&roles[i].ev))
			event_del(&roles[i].ev);
		kill(roles[i].pid, SIGTERM);
	}
	for (tries = 0; tries < 50; tries++) {
		alive = 0;
		for (i = 0; i < ROLE_MAX; i++) {
			if (roles[i].pid <= 0)
				continue;
			if (waitpid(roles[i].pid, &status, WNOHANG) ==
			    roles[i].pid)
				roles[i].pid = 0;
			else
				alive++;
		}
		if (alive == 0)
			return;
		nanosleep(&pause, NULL);
	}
	for (i = 0; i < ROLE_MAX; i++) {
		if (roles[i].pid <= 0)
			continue;
		log_warnx("role %s (pid %d) ignored SIGTERM; killing it",
		    roles[i].name, (int)roles[i].pid);
		kill(roles[i].pid, SIGKILL);
		waitpid(roles[i].pid, &status, 0);
		roles[i].pid = 0;
	}
}
