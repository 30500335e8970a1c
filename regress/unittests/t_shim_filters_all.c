/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_shim_filters_all: every system call against every role and payload filter.
 *
 * For each filter one case forks a child per system call number (and per
 * argument vector where the file has conditions), lets the child put
 * itself under the filter exactly as the role does (priv_apply for the
 * roles, the precompiled programs of shim/filter.c for the payloads and
 * pid 1), makes the call, and compares how it ended with what the
 * privilege file says, the file read from the source tree by the
 * project's own parser (priv_parse_file): killed by SIGSYS, trapped,
 * failed with the file's errno, or permitted.
 *
 * How "permitted" is seen without running anything.  Before the role's
 * filter, the child installs an observer filter that answers
 * SECCOMP_RET_USER_NOTIF for the one call under test -- recognised by a
 * 64-bit cookie in an argument no rule of that call looks at -- and
 * allows everything else.  The kernel runs every filter and keeps the
 * action of highest precedence (seccomp(2): KILL_PROCESS, KILL_THREAD,
 * TRAP, ERRNO, USER_NOTIF, TRACE, LOG, ALLOW), so:
 *  - the role's filter kills, traps or fails the call: that wins;
 *  - the role's filter allows (or logs) it: the call reaches this
 *    process, the supervisor, as a notification, which proves the filter
 *    let it through, and is answered with ENOTRECOVERABLE, so it never
 *    runs.
 * No call under test ever executes, which is why there is no list of
 * calls too dangerous to try (exit, exit_group, rt_sigreturn, vfork,
 * clone, pause, kill, reboot, ...): when the file permits them they are
 * answered by the supervisor; when it denies them the filter stops them.
 * The arguments are inert all the same (fds and pids far out of range,
 * non-canonical pointers), in case the observer itself were wrong.
 *
 * Which calls: every number from 0 to 64 past the last one libseccomp
 * names (numbers it does not name get the file's default, since no rule
 * can name them either, except that a default of allow or log answers
 * them ENOSYS, sbx.priv(5)); for a call the file has conditions on, every
 * value that meets each condition ("in" sets member by member) and one
 * that fails it.  Calls through foreign ABIs: the x32 numbers
 * (nr | 0x40000000) are seen by the observer like native ones, so an x32
 * call a filter let through would show as permitted; i386 calls
 * (int 0x80, getpid) are not observed and would simply run.  Both must
 * kill under every filter, whatever its default.
 *
 * The one exception is decided by the kernel, not by a list here: a call
 * that seccomp never sees (recent kernels pass uretprobe and uprobe
 * through every filter, see one()) is accepted when it ends exactly as
 * it does with no filter at all, and is printed.  Each case also prints
 * its counts and any numbers past libseccomp's table that the filter
 * permits (none, since default-allow filters answer them ENOSYS).
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "spec.h"
#include "shim/shim.h"

#ifndef SYS_SECCOMP
#define SYS_SECCOMP	1	/* si_code of a SIGSYS from seccomp (uapi) */
#endif

#define X32_BIT		0x40000000U
#define NR_SCAN_PAST	64	/* numbers past the last one libseccomp names */
#define NR_LIMIT	4096	/* where the search for that last one stops */
#define MAX_VECS	512	/* argument vectors per system call */

/*
 * The cookie marks the call under test.  Read as an int (fd, pid) its low
 * half is far above any descriptor or pid; as a pointer it is
 * non-canonical.  Arguments no rule looks at get ARG_INERT, likewise out
 * of range as a descriptor or a pid.
 */
#define COOKIE		0x5bc0ffee7ffff0c1ULL
#define ARG_INERT	0x7ffff000ULL
#define ANSWER		ENOTRECOVERABLE	/* the supervisor's reply */

/* Exit codes of the child besides an errno (all errnos are below 200). */
#define EXIT_SETUP	250	/* could not put itself under the filter */
#define EXIT_TRAPPED	251	/* SIGSYS from SECCOMP_RET_TRAP, this call */
#define EXIT_RAN	252	/* the call returned >= 0: it ran */
#define EXIT_STRAY	253	/* SIGSYS, but not for this call */

enum verdict {
	V_PERMIT = 1,		/* allow or log */
	V_ERRNO,
	V_KILL,			/* SIGSYS, the handler bypassed */
	V_TRAP,			/* SIGSYS delivered to the handler */
	V_BROKEN		/* none of these: the test itself failed */
};

enum abi {
	ABI_NATIVE = 0,
	ABI_I386		/* int 0x80 */
};

struct outcome {
	enum verdict	 v;
	int		 err;		/* V_ERRNO */
	int		 status;	/* as waitpid(2) returned it */
	char		 why[160];	/* V_BROKEN */
};

struct probe {
	int		 nr;		/* as the kernel sees it */
	enum abi	 abi;
	uint64_t	 args[PRIV_ARGS];
	int		 cookie;	/* index of the cookie argument */
};

struct target;
typedef void (*apply_fn)(const struct target *);

/* A filter, and how its process puts itself under it. */
struct target {
	const char		*name;
	const struct priv_table	*table;		/* compiled, what runs */
	apply_fn		 apply;
	int			 class;		/* payloads: SBX_CLASS_* */
	const struct target	*under;		/* the filter inherited */
};

/*
 * The files of the filters in force, in the order they are installed
 * (at most two: the launcher's and its child's); also, with the compiled
 * tables, the sources of argument vectors.
 */
#define STACK_MAX	4
struct stack {
	const struct priv_table	*t[STACK_MAX];
	size_t			 n;
};

typedef void (*report_fn)(void *, const struct probe *, const char *);

struct sweep_stats {
	size_t	 probes;
	size_t	 permit;
	size_t	 err;
	size_t	 kill;
	size_t	 trap;
	size_t	 unseen;	/* calls seccomp never sees */
	size_t	 mismatches;
	int	 last;		/* the last number libseccomp names */
	int	 past[NR_SCAN_PAST];	/* numbers past it, permitted */
	size_t	 npast;
};

/*
 * Children leave with a raw exit_group: libc's _exit() may be wrapped
 * (sanitizer exit hooks), and the filter may forbid what a wrapper does.
 */
static void
child_exit(int code)
{
	syscall(SYS_exit_group, code);
}

static volatile sig_atomic_t	 probed_nr = -1;

/* Only SECCOMP_RET_TRAP reaches a handler; a kill bypasses it. */
static void
on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == SYS_SECCOMP && si->si_syscall == probed_nr)
		child_exit(EXIT_TRAPPED);
	child_exit(EXIT_STRAY);
}

/* ---- how each process applies its filter -------------------------------- */

static void
setup_failed(const struct target *tg, const char *what, const char *err)
{
	dprintf(2, "%s: %s: %s\n", tg->name, what, err);
	child_exit(EXIT_SETUP);
}

/* The roles (common/role.c role_init, monitor/main.c): the whole table. */
static void
apply_role(const struct target *tg)
{
	char	 err[512];

	if (priv_apply(tg->table, err, sizeof(err)) == -1)
		setup_failed(tg, "priv_apply", err);
}

/* A payload child (shim): the program the launcher compiled, installed. */
static void
apply_payload(const struct target *tg)
{
	if (shim_payload_filter(tg->class, 0) == -1)
		setup_failed(tg, "shim_payload_filter", strerror(errno));
}

/* A command of a profile with ptrace yes (command-ptrace.priv). */
static void
apply_payload_ptrace(const struct target *tg)
{
	if (shim_payload_filter(tg->class, 1) == -1)
		setup_failed(tg, "shim_payload_filter", strerror(errno));
}

/* Pid 1 once the payload runs; shim_fail reports on the status fd. */
static void
apply_reaper(const struct target *tg)
{
	int	 fd;

	if ((fd = open("/dev/null", O_WRONLY)) == -1 ||
	    dup2(fd, SBX_SHIM_FD_STATUS) == -1)
		setup_failed(tg, "status descriptor", strerror(errno));
	shim_reaper_filter();
}

static const struct target spawner = {
	"spawner", &priv_table_spawner, apply_role, 0, NULL
};

/*
 * Each filter alone; then as it is in force in a sandbox, where the
 * shim and the payload inherit the spawner's filter, the payload floor
 * (the shim is the launcher's spawner's clone child), and add their own.
 * The launcher's front and mapper are allow-lists no sandbox inherits.
 */
static const struct target targets[] = {
	{ "monitor", &priv_table_monitor, apply_role, 0, NULL },
	{ "launcher", &priv_table_launcher, apply_role, 0, NULL },
	{ "spawner", &priv_table_spawner, apply_role, 0, NULL },
	{ "mapper", &priv_table_mapper, apply_role, 0, NULL },
	{ "proxy", &priv_table_proxy, apply_role, 0, NULL },
	{ "provider-runner", &priv_table_provider_runner, apply_role, 0,
	    NULL },
	{ "shim", &priv_table_shim, apply_reaper, 0, NULL },
	{ "command", &priv_table_command, apply_payload, SBX_CLASS_COMMAND,
	    NULL },
	{ "selftest", &priv_table_command, apply_payload, SBX_CLASS_SELFTEST,
	    NULL },
	{ "provider", &priv_table_provider, apply_payload, SBX_CLASS_PROVIDER,
	    NULL },
	{ "spawner+shim", &priv_table_shim, apply_reaper, 0, &spawner },
	{ "spawner+command", &priv_table_command, apply_payload,
	    SBX_CLASS_COMMAND, &spawner },
	{ "spawner+provider", &priv_table_provider, apply_payload,
	    SBX_CLASS_PROVIDER, &spawner },
	{ "command-ptrace", &priv_table_command_ptrace, apply_payload_ptrace,
	    SBX_CLASS_COMMAND, NULL },
	{ "spawner+command-ptrace", &priv_table_command_ptrace,
	    apply_payload_ptrace, SBX_CLASS_COMMAND, &spawner },
};

/* ---- the child ----------------------------------------------------------- */

/*
 * The observer: SECCOMP_RET_USER_NOTIF for (native arch, nr, cookie in
 * args[cookie]), SECCOMP_RET_ALLOW for everything else -- including
 * foreign architectures, so that only the role's filter decides those.
 * Written by hand rather than with libseccomp, whose bad-arch and x32
 * handling would itself answer calls the role's filter must decide.
 */
static int
observer(const struct probe *p)
{
	size_t			 lo = offsetof(struct seccomp_data, args) +
				    (size_t)p->cookie * sizeof(uint64_t);
	struct sock_filter	 insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 7),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)p->nr, 0, 5),
		/* x86_64 is little-endian: the low word comes first */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)lo),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)COOKIE, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)lo + 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(COOKIE >> 32),
		    0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog	 prog;

	prog.len = nitems(insns);
	prog.filter = insns;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

static int
send_fd(int sock, int fd)
{
	struct msghdr	 msg;
	struct iovec	 iov;
	union {
		struct cmsghdr	 hdr;
		char		 buf[CMSG_SPACE(sizeof(int))];
	}		 cm;
	char		 c = 'L';

	memset(&msg, 0, sizeof(msg));
	memset(&cm, 0, sizeof(cm));
	iov.iov_base = &c;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cm.buf;
	msg.msg_controllen = sizeof(cm.buf);
	cm.hdr.cmsg_level = SOL_SOCKET;
	cm.hdr.cmsg_type = SCM_RIGHTS;
	cm.hdr.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&cm.hdr), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

/* i386 getpid through the 32-bit entry point. */
static long
call_int80(int nr)
{
	long	 ret;

	__asm__ volatile ("int $0x80" : "=a"(ret) : "a"((long)nr) :
	    "memory");
	return ret;
}

static void
child(const struct target *tg, const struct probe *p, int sock)
{
	struct sigaction	 sa;
	struct rlimit		 rl;
	sigset_t		 none;
	long			 rc;
	int			 lfd;

	/* core_pattern may be a plain file name: no core in the cwd. */
	rl.rlim_cur = rl.rlim_max = 0;
	if (setrlimit(RLIMIT_CORE, &rl) == -1)
		setup_failed(tg, "setrlimit core", strerror(errno));
	sigemptyset(&none);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	probed_nr = p->nr;
	if (sigprocmask(SIG_SETMASK, &none, NULL) == -1 ||
	    sigaction(SIGSYS, &sa, NULL) == -1)
		setup_failed(tg, "SIGSYS handler", strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		setup_failed(tg, "no_new_privs", strerror(errno));
	if ((lfd = observer(p)) == -1)
		setup_failed(tg, "observer filter", strerror(errno));
	if (send_fd(sock, lfd) == -1)
		setup_failed(tg, "send the listener", strerror(errno));
	close(lfd);
	close(sock);

	if (tg->under != NULL)
		tg->under->apply(tg->under);
	tg->apply(tg);

	if (p->abi == ABI_I386) {
		rc = call_int80(p->nr);
		child_exit(rc >= 0 ? EXIT_RAN : (int)(-rc & 0xff));
	}
	rc = syscall(p->nr, p->args[0], p->args[1], p->args[2], p->args[3],
	    p->args[4], p->args[5]);
	child_exit(rc == -1 ? (errno & 0xff) : EXIT_RAN);
}

/* ---- the supervisor ------------------------------------------------------ */

static int
recv_fd(int sock)
{
	struct msghdr	 msg;
	struct iovec	 iov;
	struct cmsghdr	*h;
	union {
		struct cmsghdr	 hdr;
		char		 buf[CMSG_SPACE(sizeof(int))];
	}		 cm;
	ssize_t		 n;
	char		 c;
	int		 fd = -1;

	memset(&msg, 0, sizeof(msg));
	iov.iov_base = &c;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cm.buf;
	msg.msg_controllen = sizeof(cm.buf);
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n == -1 && errno == EINTR);
	if (n != 1)
		return -1;		/* the child died in its setup */
	h = CMSG_FIRSTHDR(&msg);
	if (h != NULL && h->cmsg_level == SOL_SOCKET &&
	    h->cmsg_type == SCM_RIGHTS && h->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(h), sizeof(int));
	return fd;
}

/*
 * Answer notifications until the child is gone.  The child is blocked in
 * the call while a notification is pending, so it cannot have exited
 * with one unanswered: when the pidfd says it ended, nothing is left.
 */
static void
supervise(int lfd, int pidfd, pid_t pid, const struct probe *p,
    int *notified, int *stray)
{
	struct seccomp_notif		 req;
	struct seccomp_notif_resp	 resp;
	struct pollfd			 pf[2];
	int				 i, ok;

	for (;;) {
		pf[0].fd = lfd;
		pf[0].events = POLLIN;
		pf[1].fd = pidfd;
		pf[1].events = POLLIN;
		pf[0].revents = pf[1].revents = 0;
		if (poll(pf, 2, -1) == -1) {
			ATF_REQUIRE_MSG(errno == EINTR, "poll: %s",
			    strerror(errno));
			continue;
		}
		if (pf[0].revents & POLLIN) {
			memset(&req, 0, sizeof(req));
			if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) == -1) {
				/* ENOENT: the child died meanwhile */
				ATF_REQUIRE_MSG(errno == ENOENT ||
				    errno == EINTR, "NOTIF_RECV: %s",
				    strerror(errno));
				continue;
			}
			ok = req.pid == (uint32_t)pid &&
			    req.data.arch == AUDIT_ARCH_X86_64 &&
			    req.data.nr == p->nr;
			for (i = 0; i < PRIV_ARGS; i++)
				ok = ok && req.data.args[i] == p->args[i];
			if (ok)
				(*notified)++;
			else
				(*stray)++;
			memset(&resp, 0, sizeof(resp));
			resp.id = req.id;
			resp.error = -ANSWER;
			/* ENOENT: killed while we looked; nothing to answer */
			if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == -1)
				ATF_REQUIRE_MSG(errno == ENOENT, "NOTIF_SEND: "
				    "%s", strerror(errno));
			continue;
		}
		if (pf[1].revents & POLLIN)
			return;
		ATF_REQUIRE_MSG(!(pf[0].revents & (POLLERR | POLLNVAL)),
		    "listener revents 0x%x", pf[0].revents);
	}
}

static void
run_probe(const struct target *tg, const struct probe *p, struct outcome *o)
{
	pid_t	 pid;
	int	 sv[2], lfd, pidfd, st, code, notified = 0, stray = 0;

	memset(o, 0, sizeof(*o));
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv) == 0);
	fflush(NULL);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		close(sv[0]);
		child(tg, p, sv[1]);
		child_exit(EXIT_SETUP);
	}
	close(sv[1]);
	lfd = recv_fd(sv[0]);
	close(sv[0]);
	if (lfd != -1) {
		ATF_REQUIRE_MSG((pidfd = (int)syscall(SYS_pidfd_open, pid,
		    0)) != -1, "pidfd_open: %s", strerror(errno));
		supervise(lfd, pidfd, pid, p, &notified, &stray);
		close(pidfd);
		close(lfd);
	}
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	o->status = st;

	o->v = V_BROKEN;
	if (stray != 0) {
		snprintf(o->why, sizeof(o->why), "%d notifications for other "
		    "calls", stray);
		return;
	}
	if (WIFSIGNALED(st)) {
		if (WTERMSIG(st) == SIGSYS && notified == 0)
			o->v = V_KILL;
		else
			snprintf(o->why, sizeof(o->why), "died of signal %d "
			    "after %d notifications", WTERMSIG(st), notified);
		return;
	}
	code = WEXITSTATUS(st);
	if (notified == 1 && code == ANSWER) {
		o->v = V_PERMIT;
		return;
	}
	if (notified != 0) {
		snprintf(o->why, sizeof(o->why), "notified %d times, then "
		    "exit %d", notified, code);
		return;
	}
	switch (code) {
	case EXIT_SETUP:
		snprintf(o->why, sizeof(o->why), "could not apply the filter "
		    "(its message is on stderr)");
		return;
	case EXIT_TRAPPED:
		o->v = V_TRAP;
		return;
	case EXIT_STRAY:
		snprintf(o->why, sizeof(o->why), "SIGSYS for another call");
		return;
	case EXIT_RAN:
		/* i386 calls are not observed: running is being permitted. */
		if (p->abi == ABI_I386)
			o->v = V_PERMIT;
		else
			snprintf(o->why, sizeof(o->why), "the call ran: "
			    "neither filter stopped it");
		return;
	case 0:
		snprintf(o->why, sizeof(o->why), "exit 0");
		return;
	}
	o->v = V_ERRNO;
	o->err = code;
}

/* ---- what the file says -------------------------------------------------- */

static int
cond_holds(const struct priv_cond *c, uint64_t x)
{
	size_t	 i;

	switch (c->op) {
	case PRIV_OP_EQ:
		return x == c->vals[0].v;
	case PRIV_OP_NE:
		return x != c->vals[0].v;
	case PRIV_OP_MASKED_EQ:
		return (x & c->mask.v) == c->vals[0].v;
	case PRIV_OP_IN:
		for (i = 0; i < c->nvals; i++)
			if (x == c->vals[i].v)
				return 1;
		return 0;
	}
	return 0;
}

static int
names(const struct priv_rule *r, int nr)
{
	size_t	 i;

	for (i = 0; i < r->nsys; i++)
		if (r->sys[i].nr == nr)
			return 1;
	return 0;
}

static int
rule_holds(const struct priv_rule *r, const uint64_t *args)
{
	size_t	 i;

	for (i = 0; i < r->nconds; i++)
		if (!cond_holds(&r->conds[i], args[r->conds[i].arg]))
			return 0;
	return 1;
}

/*
 * sbx.priv(5): the rules naming a call all share one action (or are
 * unconditional), conditions of a line are and-ed, lines or-ed, and a
 * call no rule matches gets the default.  Foreign ABIs are killed
 * whatever the file says.
 */
#ifdef SBX_SANITIZE
/*
 * Sanitizer builds (make sanitize) add the calls the ASan and UBSan
 * runtime makes to the filters whose default refuses them, for calls the
 * table has no rule for (priv_sanitizer_extra, priv_seccomp.c): there the
 * build, not the file, decides.  Release builds compile none of this.
 */
static void
sanitizer_extra(const struct priv_table *t, int nr, enum priv_act *act,
    int *err)
{
	char	*name;

	if ((name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64,
	    nr)) == NULL)
		return;
	switch (priv_sanitizer_extra(t, name)) {
	case 1:
		*act = PRIV_ACT_ALLOW;
		break;
	case 2:
		*act = PRIV_ACT_ERRNO;
		*err = EPERM;
		break;
	}
	free(name);
}
#endif

static int
nameable(int nr)
{
	char	*name;

	if ((name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64,
	    nr)) == NULL)
		return 0;
	free(name);
	return 1;
}

/* The file names nr, though libseccomp may not (priv_parse's fchmodat2). */
static int
table_names(const struct priv_table *t, int nr)
{
	size_t	 i;

	for (i = 0; i < t->nrules; i++)
		if (names(&t->rules[i], nr))
			return 1;
	return 0;
}

static void
expected_one(const struct priv_table *t, const struct probe *p,
    struct outcome *o, unsigned int *line)
{
	enum priv_act	 act = t->def_act;
	int		 err = t->def_err;
	size_t		 i;

	memset(o, 0, sizeof(*o));
	*line = t->def_line;
	if (p->abi != ABI_NATIVE || ((uint32_t)p->nr & X32_BIT) != 0) {
		o->v = V_KILL;
		*line = 0;
		return;
	}
	for (i = 0; i < t->nrules; i++) {
		if (names(&t->rules[i], p->nr) &&
		    rule_holds(&t->rules[i], p->args)) {
			act = t->rules[i].act;
			err = t->rules[i].err;
			*line = t->rules[i].line;
			break;
		}
	}
	/*
	 * sbx.priv(5): under default allow or log, a number neither
	 * libseccomp nor the file names is answered ENOSYS below 1024.
	 */
	if (i == t->nrules && (act == PRIV_ACT_ALLOW || act == PRIV_ACT_LOG) &&
	    p->nr >= 0 && p->nr < 1024 && !nameable(p->nr) &&
	    !table_names(t, p->nr)) {
		act = PRIV_ACT_ERRNO;
		err = ENOSYS;
	}
#ifdef SBX_SANITIZE
	if (i == t->nrules)
		sanitizer_extra(t, p->nr, &act, &err);
#endif
	switch (act) {
	case PRIV_ACT_ALLOW:
	case PRIV_ACT_LOG:
		o->v = V_PERMIT;
		break;
	case PRIV_ACT_ERRNO:
		o->v = V_ERRNO;
		o->err = err;
		break;
	case PRIV_ACT_KILL:
		o->v = V_KILL;
		break;
	case PRIV_ACT_TRAP:
		o->v = V_TRAP;
		break;
	}
}

static int
precedence(enum verdict v)
{
	switch (v) {
	case V_KILL:
		return 4;
	case V_TRAP:
		return 3;
	case V_ERRNO:
		return 2;
	case V_PERMIT:
	case V_BROKEN:
		break;
	}
	return 1;
}

/*
 * Several filters: the kernel runs them all, newest first, and keeps the
 * first action of the highest precedence it sees; *by is the file that
 * decides.
 */
static void
expected(const struct stack *st, const struct probe *p, struct outcome *o,
    const struct priv_table **by, unsigned int *line)
{
	struct outcome	 one;
	unsigned int	 l;
	size_t		 i;

	for (i = 0; i < st->n; i++) {
		expected_one(st->t[i], p, &one, &l);
		if (i == 0 || precedence(one.v) >= precedence(o->v)) {
			*o = one;
			*line = l;
			*by = st->t[i];
		}
	}
}

static const char *
describe(const struct outcome *o, char *buf, size_t len)
{
	switch (o->v) {
	case V_PERMIT:
		return "permitted";
	case V_ERRNO:
		snprintf(buf, len, "errno %s", sbx_errname(o->err));
		return buf;
	case V_KILL:
		return "killed (SIGSYS)";
	case V_TRAP:
		return "trapped (SIGSYS to its handler)";
	case V_BROKEN:
		snprintf(buf, len, "broken: %s", o->why);
		return buf;
	}
	return "?";
}

/* ---- argument vectors ---------------------------------------------------- */

struct vecs {
	uint64_t	 v[MAX_VECS][PRIV_ARGS];
	size_t		 n;
};

static void
add_vec(struct vecs *vs, const uint64_t *a)
{
	size_t	 i;

	for (i = 0; i < vs->n; i++)
		if (memcmp(vs->v[i], a, sizeof(vs->v[i])) == 0)
			return;
	ATF_REQUIRE_MSG(vs->n < MAX_VECS, "more than %d argument vectors",
	    MAX_VECS);
	memcpy(vs->v[vs->n++], a, sizeof(vs->v[0]));
}

/* A value meeting the condition: the idx-th member of an "in" set. */
static uint64_t
meet_value(const struct priv_cond *c, size_t idx)
{
	switch (c->op) {
	case PRIV_OP_NE:
		return c->vals[0].v ^ 1;
	case PRIV_OP_IN:
		return c->vals[idx].v;
	case PRIV_OP_EQ:
	case PRIV_OP_MASKED_EQ:
		break;
	}
	return c->vals[0].v;
}

static size_t
meet_count(const struct priv_cond *c)
{
	return c->op == PRIV_OP_IN ? c->nvals : 1;
}

/* A value failing it; 0 when none exists (a mask of 0 always holds). */
static int
fail_value(const struct priv_cond *c, uint64_t *x)
{
	uint64_t	 v;

	switch (c->op) {
	case PRIV_OP_EQ:
		*x = c->vals[0].v ^ 1;
		return 1;
	case PRIV_OP_NE:
		*x = c->vals[0].v;
		return 1;
	case PRIV_OP_MASKED_EQ:
		if (c->mask.v == 0)
			return 0;
		/* flip the lowest bit the mask looks at */
		*x = c->vals[0].v ^ (c->mask.v & -c->mask.v);
		return 1;
	case PRIV_OP_IN:
		for (v = c->vals[0].v + 1; cond_holds(c, v); v++)
			;
		*x = v;
		return 1;
	}
	return 0;
}

/*
 * The vectors for one call: the inert one; for every rule naming it, each
 * value that meets each condition (every member of an "in" set) with the
 * others met, and each condition failed with the others met; and one
 * vector failing every rule at once where the rules allow it, which is
 * where a call with several deny lines (setresuid in launcher.priv) is
 * permitted.  What each vector should get is decided by expected(), not
 * here.
 */
static void
make_vecs(const struct priv_table *t, int nr, int cookie, struct vecs *vs)
{
	const struct priv_rule	*r;
	uint64_t		 base[PRIV_ARGS], a[PRIV_ARGS], x;
	unsigned int		 fixed;
	size_t			 i, j, k, m;

	for (i = 0; i < PRIV_ARGS; i++)
		base[i] = ARG_INERT;
	base[cookie] = COOKIE;
	add_vec(vs, base);
	for (i = 0; i < t->nrules; i++) {
		r = &t->rules[i];
		if (!names(r, nr) || r->nconds == 0)
			continue;
		for (j = 0; j < r->nconds; j++) {
			for (m = 0; m < meet_count(&r->conds[j]); m++) {
				memcpy(a, base, sizeof(a));
				for (k = 0; k < r->nconds; k++)
					a[r->conds[k].arg] =
					    meet_value(&r->conds[k], 0);
				a[r->conds[j].arg] =
				    meet_value(&r->conds[j], m);
				add_vec(vs, a);
			}
			if (!fail_value(&r->conds[j], &x))
				continue;
			memcpy(a, base, sizeof(a));
			for (k = 0; k < r->nconds; k++)
				a[r->conds[k].arg] =
				    meet_value(&r->conds[k], 0);
			a[r->conds[j].arg] = x;
			add_vec(vs, a);
		}
	}
	/* every rule failed at once, where no two need the same argument */
	memcpy(a, base, sizeof(a));
	fixed = 0;
	for (i = 0; i < t->nrules; i++) {
		r = &t->rules[i];
		if (!names(r, nr) || r->nconds == 0 || !rule_holds(r, a))
			continue;
		for (j = 0; j < r->nconds; j++) {
			if ((fixed & (1U << r->conds[j].arg)) ||
			    !fail_value(&r->conds[j], &x))
				continue;
			a[r->conds[j].arg] = x;
			fixed |= 1U << r->conds[j].arg;
			break;
		}
	}
	add_vec(vs, a);
}

/* The highest argument no rule naming nr looks at; -1 if none is free. */
static int
cookie_arg(const struct stack *st, int nr)
{
	const struct priv_table	*t;
	unsigned int		 used = 0;
	size_t			 i, j, n;
	int			 k;

	for (n = 0; n < st->n; n++) {
		t = st->t[n];
		for (i = 0; i < t->nrules; i++)
			if (names(&t->rules[i], nr))
				for (j = 0; j < t->rules[i].nconds; j++)
					used |= 1U <<
					    t->rules[i].conds[j].arg;
	}
	for (k = PRIV_ARGS - 1; k >= 0; k--)
		if (!(used & (1U << k)))
			return k;
	return -1;
}

/* ---- the sweep ----------------------------------------------------------- */

/* The last number libseccomp names on x86_64. */
static int
last_named(void)
{
	char	*s;
	int	 nr, last = -1;

	for (nr = 0; nr < NR_LIMIT; nr++) {
		s = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
		if (s != NULL)
			last = nr;
		free(s);
	}
	return last;
}

static void
call_text(const struct probe *p, char *buf, size_t len)
{
	char	*name;
	size_t	 off;
	int	 i, nr = (int)((uint32_t)p->nr & ~X32_BIT);

	name = seccomp_syscall_resolve_num_arch(p->abi == ABI_I386 ?
	    SCMP_ARCH_X86 : SCMP_ARCH_X86_64, nr);
	if (name != NULL)
		off = (size_t)snprintf(buf, len, "%s%s%s(", p->abi == ABI_I386 ?
		    "i386 " : "", ((uint32_t)p->nr & X32_BIT) ? "x32 " : "",
		    name);
	else
		off = (size_t)snprintf(buf, len, "unnamed #%d(", nr);
	free(name);
	for (i = 0; p->abi == ABI_NATIVE && i < PRIV_ARGS && off < len; i++) {
		if (i != 0)
			off += (size_t)snprintf(buf + off, len - off, ", ");
		if (off >= len)
			break;
		if (i == p->cookie)
			off += (size_t)snprintf(buf + off, len - off,
			    "cookie");
		else if (p->args[i] == ARG_INERT)
			off += (size_t)snprintf(buf + off, len - off, "inert");
		else
			off += (size_t)snprintf(buf + off, len - off, "%#llx",
			    (unsigned long long)p->args[i]);
	}
	if (off < len)
		snprintf(buf + off, len - off, ")");
}

/* For messages: the file as named in the tree, not the path to it. */
static const char *
file_name(const struct priv_table *file)
{
	const char	*s = strstr(file->file, "/top/");

	return s != NULL ? s + 5 : file->file;
}

/* No filter but the observer: what the kernel itself does with a call. */
static void
apply_none(const struct target *tg)
{
	(void)tg;
}

static const struct target bare = { "no filter", NULL, apply_none, 0, NULL };

static void
one(const struct target *tg, const struct stack *st,
    const struct probe *p, struct sweep_stats *ss, report_fn report,
    void *ctx)
{
	const struct priv_table	*by = NULL;
	struct outcome		 want, got, base;
	unsigned int		 line = 0;
	char		 call[256], msg[640], wb[192], gb[192];

	expected(st, p, &want, &by, &line);
	run_probe(tg, p, &got);
	ss->probes++;
	switch (got.v) {
	case V_PERMIT:
		ss->permit++;
		if (p->nr > ss->last && p->abi == ABI_NATIVE &&
		    !((uint32_t)p->nr & X32_BIT) && ss->npast < NR_SCAN_PAST)
			ss->past[ss->npast++] = p->nr;
		break;
	case V_ERRNO:
		ss->err++;
		break;
	case V_KILL:
		ss->kill++;
		break;
	case V_TRAP:
		ss->trap++;
		break;
	case V_BROKEN:
		break;
	}
	if (got.v == want.v && (want.v != V_ERRNO || got.err == want.err))
		return;
	call_text(p, call, sizeof(call));
	/*
	 * A call that the observer does not see without any other filter
	 * either never reaches seccomp: the kernel decides it before any
	 * filter runs (uretprobe and uprobe on recent kernels, which act
	 * only when called from the kernel's own uprobe trampoline and
	 * otherwise end the caller with SIGILL or fail with ENXIO).  No
	 * privilege file can decide those; the filter under test passed
	 * if the call ended exactly as it does with no filter at all.
	 */
	if (p->abi == ABI_NATIVE && !((uint32_t)p->nr & X32_BIT)) {
		run_probe(&bare, p, &base);
		if (base.v != V_PERMIT && base.status == got.status) {
			ss->unseen++;
			printf("%s: %s: never reaches seccomp on this kernel "
			    "(with no filter it ends the same: %s); no file "
			    "can decide it\n", tg->name, call,
			    describe(&got, gb, sizeof(gb)));
			return;
		}
	}
	ss->mismatches++;
	if (line != 0)
		snprintf(msg, sizeof(msg), "%s: %s: %s:%u says %s, the filter "
		    "%s", tg->name, call, file_name(by), line,
		    describe(&want, wb, sizeof(wb)),
		    describe(&got, gb, sizeof(gb)));
	else
		snprintf(msg, sizeof(msg), "%s: %s: must be killed "
		    "(foreign ABI), the filter %s", tg->name, call,
		    describe(&got, gb, sizeof(gb)));
	report(ctx, p, msg);
}

/*
 * Every number from 0 to NR_SCAN_PAST past the last one libseccomp names
 * (unnamed ones get the default, or ENOSYS under allow), each with its
 * argument vectors; then the foreign ABIs.  nrs, when not NULL, limits
 * the native numbers to that list (the harness's own check).
 */
static void
sweep(const struct target *tg, const struct stack *st,
    const int *nrs, size_t nnrs, struct sweep_stats *ss, report_fn report,
    void *ctx)
{
	struct vecs	*vs = xcalloc(1, sizeof(*vs));
	struct stack	 src;
	struct probe	 p;
	size_t		 i, j;
	int		 nr, top = last_named() + NR_SCAN_PAST, cookie;

	ATF_REQUIRE(top > NR_SCAN_PAST);
	/*
	 * Vectors from the files and from the compiled tables applied: a
	 * condition only the filter has is tried too (the expectation still
	 * comes from the files alone).
	 */
	ATF_REQUIRE(st->n <= 2);
	src = *st;
	if (tg->under != NULL)
		src.t[src.n++] = tg->under->table;
	if (tg->table != NULL)
		src.t[src.n++] = tg->table;
	memset(ss, 0, sizeof(*ss));
	ss->last = top - NR_SCAN_PAST;
	for (i = 0; nrs != NULL ? i < nnrs : (int)i <= top; i++) {
		nr = nrs != NULL ? nrs[i] : (int)i;
		cookie = cookie_arg(&src, nr);
		ATF_REQUIRE_MSG(cookie != -1, "%s: syscall %d: every argument "
		    "has a condition; no room for the cookie", tg->name, nr);
		vs->n = 0;
		for (j = 0; j < src.n; j++)
			make_vecs(src.t[j], nr, cookie, vs);
		for (j = 0; j < vs->n; j++) {
			memset(&p, 0, sizeof(p));
			p.nr = nr;
			p.abi = ABI_NATIVE;
			p.cookie = cookie;
			memcpy(p.args, vs->v[j], sizeof(p.args));
			one(tg, st, &p, ss, report, ctx);
		}
	}
	/* x32: a number the file allows natively, and getpid */
	memset(&p, 0, sizeof(p));
	for (i = 0; i < PRIV_ARGS; i++)
		p.args[i] = ARG_INERT;
	p.cookie = PRIV_ARGS - 1;
	p.args[p.cookie] = COOKIE;
	p.nr = (int)(X32_BIT | SYS_getpid);
	one(tg, st, &p, ss, report, ctx);
	p.nr = (int)(X32_BIT | SYS_exit_group);
	one(tg, st, &p, ss, report, ctx);
	/* i386: getpid is 20 there */
	memset(&p, 0, sizeof(p));
	p.abi = ABI_I386;
	p.nr = 20;
	one(tg, st, &p, ss, report, ctx);
	free(vs);
}

static void
fail_report(void *ctx, const struct probe *p, const char *msg)
{
	(void)ctx;
	(void)p;
	atf_tc_fail_nonfatal("%s", msg);
}

static char *
top_path(const atf_tc_t *tc, const char *rel)
{
	char	*p;

	ATF_REQUIRE(xasprintf(&p, "%s/../top/%s",
	    atf_tc_get_config_var(tc, "srcdir"), rel) > 0);
	return p;
}

static const struct target *
target_named(const char *name)
{
	size_t	 i;

	for (i = 0; i < nitems(targets); i++)
		if (strcmp(targets[i].name, name) == 0)
			return &targets[i];
	atf_tc_fail("no target %s", name);
	return NULL;
}

/* One filter against its file as it is in the source tree. */
static struct priv_table *
parse_tree_file(const atf_tc_t *tc, const struct priv_table *compiled)
{
	struct priv_table	*t;
	char			*path, err[512];

	path = top_path(tc, compiled->file);
	t = priv_parse_file(path, err, sizeof(err));
	ATF_REQUIRE_MSG(t != NULL, "%s", err);
	free(path);
	return t;
}

/* One filter (or a stack of them) against its files in the source tree. */
static void
sweep_target(const atf_tc_t *tc, const char *name)
{
	const struct target	*tg = target_named(name);
	struct stack		 st;
	struct sweep_stats	 ss;
	char			 err[512];
	size_t			 i;

	memset(&st, 0, sizeof(st));
	if (tg->under != NULL)
		st.t[st.n++] = parse_tree_file(tc, tg->under->table);
	st.t[st.n++] = parse_tree_file(tc, tg->table);
	/* as the launcher does once, before any sandbox */
	ATF_REQUIRE_MSG(shim_filters_init(err, sizeof(err)) == 0, "%s", err);
	sweep(tg, &st, NULL, 0, &ss, fail_report, NULL);
	printf("%s (%s%s%s): %zu probes: %zu permitted, %zu errno, "
	    "%zu killed, %zu trapped, %zu never reach seccomp; %zu disagree "
	    "with the file\n", tg->name, tg->under != NULL ?
	    tg->under->table->file : "", tg->under != NULL ? " + " : "",
	    tg->table->file, ss.probes, ss.permit, ss.err, ss.kill, ss.trap,
	    ss.unseen, ss.mismatches);
	/*
	 * What a deny-list lets through without naming it: numbers newer
	 * than libseccomp's table, which a file cannot name either.
	 */
	printf("%s: numbers past #%d (the last libseccomp names) "
	    "permitted:", tg->name, ss.last);
	for (i = 0; i < ss.npast; i++)
		printf(" %d", ss.past[i]);
	printf("%s\n", ss.npast == 0 ? " none" : "");
	/* A sweep that saw only one kind of answer saw nothing. */
	ATF_CHECK(ss.permit > 0);
	ATF_CHECK(ss.err + ss.kill > 0);
	for (i = 0; i < st.n; i++)
		priv_free((struct priv_table *)st.t[i]);
}

#define SWEEP_CASE(id, name)						\
	ATF_TC_WITHOUT_HEAD(id);					\
	ATF_TC_BODY(id, tc)						\
	{								\
		sweep_target(tc, name);					\
	}

SWEEP_CASE(role_monitor, "monitor")
SWEEP_CASE(role_launcher, "launcher")
SWEEP_CASE(role_spawner, "spawner")
SWEEP_CASE(role_mapper, "mapper")
SWEEP_CASE(role_proxy, "proxy")
SWEEP_CASE(role_provider_runner, "provider-runner")
SWEEP_CASE(reaper_shim, "shim")
SWEEP_CASE(payload_command, "command")
SWEEP_CASE(payload_selftest, "selftest")
SWEEP_CASE(payload_provider, "provider")
SWEEP_CASE(sandbox_shim, "spawner+shim")
SWEEP_CASE(sandbox_command, "spawner+command")
SWEEP_CASE(sandbox_provider, "spawner+provider")
SWEEP_CASE(payload_command_ptrace, "command-ptrace")
SWEEP_CASE(sandbox_command_ptrace, "spawner+command-ptrace")

/* A privilege file added to the tree gets a sweep of its own here. */
ATF_TC_WITHOUT_HEAD(every_table_swept);
ATF_TC_BODY(every_table_swept, tc)
{
#define PRIV_TABLE_ADDR(n)	&priv_table_##n,
	static const struct priv_table *compiled[] = {
		PRIV_TABLES(PRIV_TABLE_ADDR)
	};
	size_t	 i, j;
	int	 found;

	(void)tc;
	for (i = 0; i < nitems(compiled); i++) {
		for (found = 0, j = 0; j < nitems(targets); j++)
			found |= targets[j].table == compiled[i];
		ATF_CHECK_MSG(found, "%s has no try-syscall case",
		    compiled[i]->file);
	}
}

/* ---- the harness tells a filter from a file that disagrees ------------ */

#define HDR	"role test\nuser same\nroot none\nno_new_privs yes\n"

static const struct priv_table	*harness_filter;

static void
apply_harness(const struct target *tg)
{
	char	 err[512];

	if (priv_apply(harness_filter, err, sizeof(err)) == -1)
		setup_failed(tg, "priv_apply", err);
}

struct collected {
	char	 lines[16][640];
	size_t	 n;
};

static void
collect(void *ctx, const struct probe *p, const char *msg)
{
	struct collected	*c = ctx;

	(void)p;
	if (c->n < nitems(c->lines))
		strlcpy(c->lines[c->n], msg, sizeof(c->lines[0]));
	c->n++;
}

static int
collected_has(const struct collected *c, const char *s)
{
	size_t	 i;

	for (i = 0; i < c->n && i < nitems(c->lines); i++)
		if (strstr(c->lines[i], s) != NULL)
			return 1;
	return 0;
}

static struct priv_table *
parse_text(const char *text)
{
	struct priv_table	*t;
	char			 err[512];

	t = priv_parse("harness.priv", text, strlen(text), err, sizeof(err));
	ATF_REQUIRE_MSG(t != NULL, "%s", err);
	return t;
}

/*
 * The filter applied and the file expected differ in exactly four
 * places; the sweep must name those four and nothing else.  The rest
 * agree, and show that each verdict -- permitted (allow and log), errno,
 * kill, trap, foreign ABI -- is told apart.
 */
ATF_TC_WITHOUT_HEAD(harness_finds_disagreement);
ATF_TC_BODY(harness_finds_disagreement, tc)
{
	static const char *filter_text = HDR
	    "default kill\n"
	    "allow exit_group read\n"
	    "allow getpid\n"
	    "allow getuid\n"
	    "errno EACCES getppid\n"
	    "allow socket arg0 == AF_UNIX\n"
	    "trap uname\n"
	    "trap getgid\n"
	    "errno ENOSYS clone3\n"
	    "errno EPERM kill arg1 in {SIGTERM, SIGKILL}\n";
	static const char *file_text = HDR
	    "default kill\n"
	    "allow exit_group read\n"
	    "errno EPERM getpid\n"		/* the filter permits */
	    "log getuid\n"			/* log is permitted too */
	    "allow getppid\n"			/* the filter says EACCES */
	    "allow socket arg0 in {AF_UNIX, AF_INET}\n"	/* AF_INET killed */
	    "kill uname\n"			/* the filter traps */
	    "trap getgid\n"
	    "errno ENOSYS clone3\n"
	    "errno EPERM kill arg1 in {SIGTERM, SIGKILL}\n";
	static const int nrs[] = {
		SYS_read, SYS_write, SYS_exit_group, SYS_getpid, SYS_getuid,
		SYS_getppid, SYS_socket, SYS_uname, SYS_getgid, SYS_clone3,
		SYS_kill, SYS_reboot, SYS_exit, SYS_rt_sigreturn, SYS_vfork,
	};
	struct target		 tg = { "harness", NULL, apply_harness, 0,
				    NULL };
	struct priv_table	*filter, *file;
	struct stack		 st;
	struct collected	 c;
	struct sweep_stats	 ss;
	size_t			 i;

	(void)tc;
	filter = parse_text(filter_text);
	file = parse_text(file_text);
	harness_filter = filter;
	tg.table = filter;
	memset(&c, 0, sizeof(c));
	st.t[0] = file;
	st.n = 1;
	sweep(&tg, &st, nrs, nitems(nrs), &ss, collect, &c);
	for (i = 0; i < c.n && i < nitems(c.lines); i++)
		printf("%s\n", c.lines[i]);
	ATF_CHECK_EQ_MSG(c.n, 4, "%zu disagreements", c.n);
	ATF_CHECK(collected_has(&c, "getpid(inert, inert, inert, inert, "
	    "inert, cookie): harness.priv:7 says errno EPERM, the filter "
	    "permitted"));
	ATF_CHECK(collected_has(&c, "getppid(inert, inert, inert, inert, "
	    "inert, cookie): harness.priv:9 says permitted, the filter "
	    "errno EACCES"));
	ATF_CHECK(collected_has(&c, "socket(0x2, inert, inert, inert, inert, "
	    "cookie): harness.priv:10 says permitted, the filter "
	    "killed (SIGSYS)"));
	ATF_CHECK(collected_has(&c, "uname(inert, inert, inert, inert, "
	    "inert, cookie): harness.priv:11 says killed (SIGSYS), the "
	    "filter trapped"));
	/*
	 * Permitted: read, exit_group, getpid, getuid, socket(AF_UNIX).
	 * errno: getppid, clone3, kill with SIGTERM and SIGKILL.  Trapped:
	 * uname, getgid.  Killed: write; socket with the inert value, 0
	 * (from the filter's condition), AF_INET and 3 (from the file's);
	 * kill with the inert signal and 16; reboot, exit, rt_sigreturn,
	 * vfork; x32 twice, i386.
	 */
	ATF_CHECK_EQ(ss.permit, 5);
	ATF_CHECK_EQ(ss.err, 4);
	ATF_CHECK_EQ(ss.trap, 2);
	ATF_CHECK_EQ(ss.kill, 14);
	ATF_CHECK_EQ(ss.probes, 25);
	priv_free(filter);
	priv_free(file);
}

/* The same harness with the file itself: no disagreement at all. */
ATF_TC_WITHOUT_HEAD(harness_agrees_with_itself);
ATF_TC_BODY(harness_agrees_with_itself, tc)
{
	static const char *text = HDR
	    "default allow\n"
	    "kill reboot\n"
	    "errno EPERM setuid arg0 != 1000\n"
	    "errno EPERM ioctl arg1 in {TIOCSTI, TIOCLINUX}\n"
	    "errno EPERM personality arg0 & ADDR_NO_RANDOMIZE == "
	    "ADDR_NO_RANDOMIZE\n";
	static const int nrs[] = {
		SYS_reboot, SYS_setuid, SYS_ioctl, SYS_personality,
		SYS_exit, SYS_exit_group, SYS_rt_sigreturn, SYS_vfork,
		SYS_fork, SYS_pause, SYS_kill,
	};
	struct target		 tg = { "harness", NULL, apply_harness, 0,
				    NULL };
	struct priv_table	*t;
	struct stack		 st;
	struct collected	 c;
	struct sweep_stats	 ss;
	size_t			 i;

	(void)tc;
	t = parse_text(text);
	harness_filter = t;
	tg.table = t;
	memset(&c, 0, sizeof(c));
	st.t[0] = t;
	st.n = 1;
	sweep(&tg, &st, nrs, nitems(nrs), &ss, collect, &c);
	for (i = 0; i < c.n && i < nitems(c.lines); i++)
		printf("%s\n", c.lines[i]);
	ATF_CHECK_EQ_MSG(c.n, 0, "%zu disagreements", c.n);
	/*
	 * reboot killed; setuid refused twice (inert, 1001) and permitted
	 * (1000); ioctl refused for both requests; personality refused
	 * twice (inert has the bit, and the bit alone); the rest permitted
	 * without running; x32 twice and i386 killed.
	 */
	ATF_CHECK_EQ(ss.kill, 1 + 3);
	ATF_CHECK_EQ(ss.err, 2 + 2 + 2);
	/* setuid(1000), ioctl twice, personality(0), and the 7 others */
	ATF_CHECK_EQ(ss.permit, 1 + 2 + 1 + 7);
	priv_free(t);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, harness_finds_disagreement);
	ATF_TP_ADD_TC(tp, harness_agrees_with_itself);
	ATF_TP_ADD_TC(tp, every_table_swept);
	ATF_TP_ADD_TC(tp, role_monitor);
	ATF_TP_ADD_TC(tp, role_launcher);
	ATF_TP_ADD_TC(tp, role_spawner);
	ATF_TP_ADD_TC(tp, role_mapper);
	ATF_TP_ADD_TC(tp, role_proxy);
	ATF_TP_ADD_TC(tp, role_provider_runner);
	ATF_TP_ADD_TC(tp, reaper_shim);
	ATF_TP_ADD_TC(tp, payload_command);
	ATF_TP_ADD_TC(tp, payload_selftest);
	ATF_TP_ADD_TC(tp, payload_provider);
	ATF_TP_ADD_TC(tp, sandbox_shim);
	ATF_TP_ADD_TC(tp, sandbox_command);
	ATF_TP_ADD_TC(tp, payload_command_ptrace);
	ATF_TP_ADD_TC(tp, sandbox_command_ptrace);
	ATF_TP_ADD_TC(tp, sandbox_provider);
	return atf_no_error();
}
