/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * sbx-launcher: the only process that creates namespaces.  The monitor
 * sends a sandbox as SPEC (the serialised spec), one FD per descriptor and
 * START; the launcher clones it, reports STARTED, watches its pidfd and
 * deadline, and reports EXIT.  It forks its spawner and mapper (split.c)
 * and applies its privilege file (launcher/launcher.priv, an allow-list)
 * before it reads anything, and any message outside its table ends it.
 */
#include <sys/types.h>
#include <sys/queue.h>

#include <errno.h>
#include <event.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdcheck.h"
#include "proto.h"
#include "role.h"
#include "spec.h"
#include "launcher.h"
#include "shim/shim.h"

#define LAUNCH_MAX	4096	/* sandboxes at once; the monitor caps lower */

enum launch_state {
	L_COLLECT,		/* SPEC and FDs arriving */
	L_RUNNING
};

struct launch {
	TAILQ_ENTRY(launch)	 entry;
	uint32_t		 id;
	enum launch_state	 state;
	uint8_t			*spec;
	size_t			 speclen;
	int			 fds[LAUNCH_NSLOTS];
	int			 refused;	/* a descriptor failed
						   passed_fd_check */
	int			 warm;		/* built, waiting for ARM */
	int			 armed;		/* ARM came: its run */
	uint8_t			*key;		/* warm: sbx_spec_warm_key */
	size_t			 keylen;
	char			 armerr[SBX_STEP_MAX];	/* why ARM
						   failed, for its EXIT */
	struct sandbox		 sb;
	struct event		 ev;		/* pidfd readable */
	struct event		 tmo;		/* deadline */
	struct event		 pev;		/* proxy listeners arriving */
};
TAILQ_HEAD(launches, launch);

static struct launches		 launches = TAILQ_HEAD_INITIALIZER(launches);
static size_t			 nlaunches;
static struct launcher_conf	 lconf;
static struct imsgbuf		*chan;
static struct launch		*spawning;	/* in sandbox_spawn, or NULL */
static struct event		 spare_ev;	/* make the next cgroups */
static struct event		 part_ev[2];	/* spawner, mapper */
static struct event		 term_ev;

static void	 launch_free(struct launch *);

/*
 * The spawner's and the mapper's sockets are read only for an answer
 * the front waits for; readable otherwise means the part is gone (or
 * said something unasked): the launcher ends, and the monitor with it,
 * as for any lost role.
 */
static void
part_lost(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	fatalx("the launcher's %s is gone or spoke unasked",
	    (const char *)arg);
}

static void
part_watch(void)
{
	static const char	*names[2] = { "spawner", "mapper" };
	int			 fds[2], i;

	fds[0] = split_spawner();
	fds[1] = split_mapper();
	for (i = 0; i < 2; i++) {
		if (fds[i] == -1)
			continue;
		event_set(&part_ev[i], fds[i], EV_READ | EV_PERSIST,
		    part_lost, (void *)(uintptr_t)names[i]);
		event_add(&part_ev[i], NULL);
	}
}

/*
 * SIGTERM, the monitor's orderly stop: every sandbox is killed and reaped
 * and its cgroups removed, the spare pair too, so a stopped service
 * leaves nothing in the cgroup tree.  (A launcher killed outright leaves
 * them to the next one's sweep; its sandboxes die with it either way.)
 */
static void
launch_term(int sig, short event, void *arg)
{
	struct launch	*l;

	(void)sig;
	(void)event;
	(void)arg;
	while ((l = TAILQ_FIRST(&launches)) != NULL)
		launch_free(l);
	cgroup_v1_flush(&lconf);
	exit(0);
}

/* Idle work, once a spawn or an exit is answered: ended sandboxes'
 * cgroups go, the next sandbox's are made. */
static void
spare_make(int fd, short event, void *arg)
{
	struct timeval	 later = { 0, 20 * 1000 };

	(void)fd;
	(void)event;
	(void)arg;
	/* A memory cgroup still busy: another try in 20 ms. */
	if (cgroup_v1_idle(&lconf) > 0)
		evtimer_add(&spare_ev, &later);
}

static void
spare_later(void)
{
	struct timeval	 now = { 0, 0 };

	if (lconf.cgv1)
		evtimer_add(&spare_ev, &now);
}

static struct launch *
launch_find(uint32_t id)
{
	struct launch	*l;

	TAILQ_FOREACH(l, &launches, entry)
		if (l->id == id)
			return l;
	return NULL;
}

/*
 * Run in each sandbox's clone child (lconf.child_scrub).  pid 1 is a copy
 * of this process, and the specs of other sandboxes still being collected
 * hold their environment values and paths.  pid 1 is not dumpable and the
 * payload filter refuses ptrace and process_vm_readv, so a payload cannot
 * read them; they are wiped anyway, a cheap second wall against a payload
 * that takes over pid 1 reading another sandbox's secrets.  Specs of
 * sandboxes already started are gone (freezero after their spawn).
 */
static void
launch_scrub(void)
{
	struct launch	*l;

	TAILQ_FOREACH(l, &launches, entry)
		if (l != spawning && l->spec != NULL)
			explicit_bzero(l->spec, l->speclen);
}

static void
launch_free(struct launch *l)
{
	int	 i;

	if (event_initialized(&l->ev))
		event_del(&l->ev);
	if (event_initialized(&l->tmo))
		evtimer_del(&l->tmo);
	if (event_initialized(&l->pev))
		event_del(&l->pev);
	if (l->state == L_RUNNING)
		sandbox_release(&l->sb);
	for (i = 0; i < LAUNCH_NSLOTS; i++)
		if (l->fds[i] != -1)
			close(l->fds[i]);
	if (l->spec != NULL)
		freezero(l->spec, l->speclen);
	free(l->key);
	TAILQ_REMOVE(&launches, l, entry);
	nlaunches--;
	free(l);
}

static void
send_exit(uint32_t id, const struct sandbox_exit *ex)
{
	struct launch_exit	 le;

	memset(&le, 0, sizeof(le));
	le.reason = ex->reason;
	le.wstatus = ex->wstatus;
	le.error = ex->error;
	le.limits = ex->limits;
	strlcpy(le.step, ex->step, sizeof(le.step));
	le.wall_ms = ex->wall_ms;
	le.user_us = ex->user_us;
	le.sys_us = ex->sys_us;
	le.peak_bytes = ex->peak_bytes;
	le.peak_cgroup = ex->peak_cgroup;
	le.tasks = ex->tasks;
	le.stdout_bytes = ex->stdout_bytes;
	le.stderr_bytes = ex->stderr_bytes;
	le.stdout_error = ex->stdout_error;
	le.stderr_error = ex->stderr_error;
	if (imsg_compose(chan, IMSG_LAUNCH_EXIT, id, 0, -1, &le,
	    sizeof(le)) == -1)
		fatal("compose exit");
	role_event_add();
}

static void
send_setup_failed(uint32_t id, const char *why)
{
	struct sandbox_exit	 ex;

	memset(&ex, 0, sizeof(ex));
	ex.reason = SANDBOX_SETUP_FAILED;
	strlcpy(ex.step, why, sizeof(ex.step));
	send_exit(id, &ex);
}

static void	 launch_arm(struct launch *);

/*
 * network proxy: pid 1's listeners, made inside the sandbox, go to the
 * monitor (and on to sbx-proxy), one message each.  A sandbox whose
 * listeners are not what they should be is killed: its payload would
 * otherwise wait for a proxy that never answers, or worse.
 */
static void
launch_listeners(int fd, short event, void *arg)
{
	struct launch		*l = arg;
	struct launch_listener	 ll;
	char			 err[SANDBOX_ERRLEN];
	int			 fds[2], fam[2], n, i;

	(void)fd;
	(void)event;
	if ((n = sandbox_listeners(&l->sb, fds, fam, nitems(fds), err,
	    sizeof(err))) == -2) {
		event_add(&l->pev, NULL);
		return;
	}
	if (n == -1) {
		/* pid 1 that failed its setup says why in its own record. */
		log_warnx("sandbox %u: %s", l->id, err);
		if (sandbox_kill(&l->sb) == -1 && errno != ESRCH)
			fatal("sandbox %u: kill", l->id);
		return;
	}
	for (i = 0; i < n; i++) {
		memset(&ll, 0, sizeof(ll));
		ll.family = (uint32_t)fam[i];
		if (imsg_compose(chan, IMSG_LAUNCH_LISTENER, l->id, 0, fds[i],
		    &ll, sizeof(ll)) == -1)
			fatal("compose listener");
	}
	role_event_add();
}

/* The pidfd became readable or the deadline passed. */
static void
launch_check(int fd, short event, void *arg)
{
	struct launch		*l = arg;
	struct sandbox_exit	 ex;
	int			 r;

	(void)fd;
	(void)event;
	if ((r = sandbox_poll(&l->sb, &ex)) == -1)
		fatal("sandbox %u: poll", l->id);
	if (r == 0) {
		launch_arm(l);
		return;
	}
	/* Killed because its run could not reach it: say why. */
	if (l->armerr[0] != '\0') {
		ex.reason = SANDBOX_SETUP_FAILED;
		ex.error = 0;
		strlcpy(ex.step, l->armerr, sizeof(ex.step));
	}
	send_exit(l->id, &ex);
	launch_free(l);
	spare_later();
}

static void
launch_arm(struct launch *l)
{
	struct timeval	 tv;
	uint64_t	 ms;

	if (!event_initialized(&l->ev)) {
		event_set(&l->ev, sandbox_fd(&l->sb), EV_READ | EV_PERSIST,
		    launch_check, l);
		event_add(&l->ev, NULL);
		evtimer_set(&l->tmo, launch_check, l);
	}
	/* After the deadline the kill is sent; only the pidfd matters. */
	if (l->sb.timedout || l->sb.killed)
		return;
	ms = sandbox_remaining(&l->sb);
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(&l->tmo, &tv);
}

static void
h_spec(struct imsgbuf *ib, struct imsg *imsg)
{
	struct launch	*l;
	size_t		 len = imsg_get_len(imsg);
	int		 i;

	(void)ib;
	if (launch_find(imsg_get_id(imsg)) != NULL)
		fatalx("spec for sandbox %u, which exists", imsg_get_id(imsg));
	if (nlaunches >= LAUNCH_MAX)
		fatalx("more than %d sandboxes", LAUNCH_MAX);
	if (len == 0 || len > SBX_SPEC_WIRE_MAX)
		fatalx("spec of %zu bytes", len);
	l = xcalloc(1, sizeof(*l));
	l->id = imsg_get_id(imsg);
	l->state = L_COLLECT;
	l->spec = xmalloc(len);
	memcpy(l->spec, imsg->data, len);
	l->speclen = len;
	/* One copy of a spec in this process, wiped when done with. */
	explicit_bzero(imsg->data, len);
	for (i = 0; i < LAUNCH_NSLOTS; i++)
		l->fds[i] = -1;
	TAILQ_INSERT_TAIL(&launches, l, entry);
	nlaunches++;
}

static void
h_fd(struct imsgbuf *ib, struct imsg *imsg)
{
	struct launch_fd	 lf;
	struct launch		*l;
	char			 why[160];
	int			 fd;

	(void)ib;
	if (imsg_get_data(imsg, &lf, sizeof(lf)) == -1)
		fatalx("fd: bad size");
	l = launch_find(imsg_get_id(imsg));
	/* A warm sandbox collects its run's stdio before ARM; one that
	 * ended meanwhile drops them (its EXIT is on the way). */
	if (l == NULL && (fd = imsg_get_fd(imsg)) != -1) {
		close(fd);
		return;
	}
	if (l == NULL || (l->state != L_COLLECT && !(l->warm &&
	    !l->armed && lf.slot <= LAUNCH_SLOT_STDERR)))
		fatalx("fd for sandbox %u, which is not collecting",
		    imsg_get_id(imsg));
	if (lf.slot >= LAUNCH_NSLOTS || l->fds[lf.slot] != -1)
		fatalx("fd slot %u for sandbox %u", lf.slot, l->id);
	if ((fd = imsg_get_fd(imsg)) == -1)
		fatalx("fd message for sandbox %u without a descriptor",
		    l->id);
	/* A second wall behind the monitor's (control.c): a descriptor
	 * whose close waits for a client's daemon is left open on purpose,
	 * unused, since closing it (or exiting) here would stall every
	 * launch; START then fails the sandbox instead of running it. */
	if (passed_fd_check(fd, why, sizeof(why)) == -1) {
		log_warnx("sandbox %u, slot %u: %s (left open)", l->id,
		    lf.slot, why);
		l->refused = 1;
		return;
	}
	l->fds[lf.slot] = fd;
}

/* STARTED: the sandbox runs (or, warm, its run was handed over). */
static void
send_started(struct imsgbuf *ib, struct launch *l)
{
	struct launch_started	 st;

	memset(&st, 0, sizeof(st));
	st.pid = l->sb.pid;
	st.limits = l->sb.limits;
	if (imsg_compose(ib, IMSG_LAUNCH_STARTED, l->id, 0, -1, &st,
	    sizeof(st)) == -1)
		fatal("compose started");
}

static void
h_start(struct imsgbuf *ib, struct imsg *imsg)
{
	struct launch_start	 ls;
	struct launcher_conf	 conf;
	struct launch		*l;
	struct sbx_spec		 spec;
	struct sandbox_io	 io;
	char			 err[SANDBOX_ERRLEN];
	uint32_t		 have = 0;
	int			 i;

	if (imsg_get_data(imsg, &ls, sizeof(ls)) == -1)
		fatalx("start: bad size");
	if ((l = launch_find(imsg_get_id(imsg))) == NULL ||
	    l->state != L_COLLECT)
		fatalx("start for sandbox %u, which is not collecting",
		    imsg_get_id(imsg));
	if (l->refused) {
		send_setup_failed(l->id, "a descriptor was refused "
		    "(the launcher's log says why)");
		launch_free(l);
		return;
	}
	for (i = 0; i < LAUNCH_NSLOTS; i++)
		if (l->fds[i] != -1)
			have |= 1U << i;
	if (have != ls.slots)
		fatalx("sandbox %u: descriptors %#x announced, %#x came",
		    l->id, ls.slots, have);
	/* The monitor built the spec; a bad one is its bug, not a peer's,
	 * but it is checked all the same. */
	if (sbx_spec_parse(&spec, l->spec, l->speclen, err,
	    sizeof(err)) == -1) {
		send_setup_failed(l->id, err);
		launch_free(l);
		return;
	}
	if ((spec.workdir_fd != 0) != (l->fds[LAUNCH_SLOT_WORKDIR] != -1))
		fatalx("sandbox %u: workdir descriptor and spec disagree",
		    l->id);
	/* Warm: what its set-up is built from, to hold each run to. */
	if (spec.warm) {
		if (ls.slots != 0)
			fatalx("sandbox %u: warm, with descriptors", l->id);
		l->key = xmalloc(SBX_SPEC_WIRE_MAX);
		if (sbx_spec_warm_key(&spec, l->key, SBX_SPEC_WIRE_MAX,
		    &l->keylen, err, sizeof(err)) == -1)
			fatalx("sandbox %u: warm key: %s", l->id, err);
	}
	io.in = l->fds[LAUNCH_SLOT_STDIN];
	io.out = l->fds[LAUNCH_SLOT_STDOUT];
	io.err = l->fds[LAUNCH_SLOT_STDERR];
	io.workdir = l->fds[LAUNCH_SLOT_WORKDIR];
	if (spec.overlay != (l->fds[LAUNCH_SLOT_CHANGES] != -1))
		fatalx("sandbox %u: changeset descriptor and spec disagree",
		    l->id);
	io.changes = l->fds[LAUNCH_SLOT_CHANGES];
	io.csbase = l->fds[LAUNCH_SLOT_CSBASE];
	/*
	 * The monitor decided the host identity from the peer's
	 * credentials; idmap_check() refuses host root again here.
	 */
	conf = lconf;
	conf.identity = ls.identity;
	switch (ls.identity) {
	case SBX_IDENTITY_SERVICE:
		/* sandbox-user: the dedicated user's ids, mapped like any
		 * other (the mapper allows that pair); 0/0: our own. */
		if ((ls.host_uid != 0) != (ls.host_gid != 0))
			fatalx("sandbox %u: identity service with host ids "
			    "%u/%u", l->id, ls.host_uid, ls.host_gid);
		if (ls.host_uid != 0) {
			conf.map_host = 1;
			conf.host_uid = ls.host_uid;
			conf.host_gid = ls.host_gid;
		}
		break;
	case SBX_IDENTITY_CALLER:
	case SBX_IDENTITY_RANGE:
		conf.map_host = 1;
		conf.host_uid = ls.host_uid;
		conf.host_gid = ls.host_gid;
		break;
	default:
		fatalx("sandbox %u: identity %u", l->id, ls.identity);
	}
	spawning = l;
	if (sandbox_spawn(&l->sb, &conf, &spec, &io, err,
	    sizeof(err)) == -1) {
		spawning = NULL;
		spare_later();
		send_setup_failed(l->id, err);
		launch_free(l);
		return;
	}
	spawning = NULL;
	spare_later();
	l->state = L_RUNNING;
	l->warm = spec.warm;
	/* The shim holds the payload's descriptors now; ours must go, or
	 * the caller would never see EOF on its pipes. */
	for (i = 0; i < LAUNCH_NSLOTS; i++) {
		if (l->fds[i] != -1)
			close(l->fds[i]);
		l->fds[i] = -1;
	}
	freezero(l->spec, l->speclen);
	l->spec = NULL;
	send_started(ib, l);
	launch_arm(l);
	if (l->sb.proxyfd != -1) {
		event_set(&l->pev, l->sb.proxyfd, EV_READ, launch_listeners, l);
		event_add(&l->pev, NULL);
	}
}

static void
h_signal(struct imsgbuf *ib, struct imsg *imsg)
{
	struct launch_signal	 ls;
	struct launch		*l;

	(void)ib;
	if (imsg_get_data(imsg, &ls, sizeof(ls)) == -1)
		fatalx("signal: bad size");
	if (ls.signo != SIGTERM && ls.signo != SIGINT && ls.signo != SIGHUP &&
	    ls.signo != SIGQUIT && ls.signo != SIGKILL)
		fatalx("signal %d is not one the monitor may send", ls.signo);
	if ((l = launch_find(imsg_get_id(imsg))) == NULL)
		return;		/* already ended; its EXIT is on the way */
	if (l->state != L_RUNNING)
		fatalx("signal for sandbox %u before it started", l->id);
	if (ls.signo == SIGKILL) {
		if (sandbox_kill(&l->sb) == -1 && errno != ESRCH)
			fatal("sandbox %u: kill", l->id);
	} else if (sandbox_signal(&l->sb, ls.signo) == -1 && errno != ESRCH)
		fatal("sandbox %u: signal %d", l->id, ls.signo);
}

static void
h_resize(struct imsgbuf *ib, struct imsg *imsg)
{
	struct launch_resize	 lr;
	struct launch		*l;

	(void)ib;
	if (imsg_get_data(imsg, &lr, sizeof(lr)) == -1)
		fatalx("resize: bad size");
	if (lr.rows == 0 || lr.cols == 0)
		fatalx("resize: %ux%u", lr.rows, lr.cols);
	if ((l = launch_find(imsg_get_id(imsg))) == NULL)
		return;		/* already ended; its EXIT is on the way */
	if (l->state != L_RUNNING)
		fatalx("resize for sandbox %u before it started", l->id);
	if (sandbox_resize(&l->sb, lr.rows, lr.cols) == -1)
		log_warn("sandbox %u: resize", l->id);
}

/* A pooled sandbox was taken by a run: its deadline starts now. */
static void
h_deadline(struct imsgbuf *ib, struct imsg *imsg)
{
	struct launch_deadline	 ld;
	struct launch		*l;

	(void)ib;
	if (imsg_get_data(imsg, &ld, sizeof(ld)) == -1 || ld.timeout_ms == 0)
		fatalx("deadline: bad size or zero");
	if ((l = launch_find(imsg_get_id(imsg))) == NULL)
		return;		/* already ended; its EXIT is on the way */
	if (l->state != L_RUNNING)
		fatalx("deadline for sandbox %u before it started", l->id);
	sandbox_set_deadline(&l->sb, ld.timeout_ms);
	if (!l->sb.timedout && !l->sb.killed) {
		evtimer_del(&l->tmo);
		launch_arm(l);
	}
}

/* A warm sandbox's failed arm: killed, and its EXIT says why. */
static void
arm_fail(struct launch *l, const char *why)
{
	log_warnx("sandbox %u: %s", l->id, why);
	strlcpy(l->armerr, why, sizeof(l->armerr));
	if (sandbox_kill(&l->sb) == -1 && errno != ESRCH)
		fatal("sandbox %u: kill", l->id);
}

/*
 * ARM: a warm sandbox takes its run.  The run's spec must have the key
 * the sandbox was built from (the monitor matched them; checked again
 * here, and by pid 1); it goes to pid 1 with the stdio collected since,
 * and STARTED answers as for a cold start.
 */
static void
h_arm(struct imsgbuf *ib, struct imsg *imsg)
{
	static uint8_t		 key[SBX_SPEC_WIRE_MAX];
	struct launch		*l;
	struct sbx_spec		 spec;
	char			 err[SANDBOX_ERRLEN];
	size_t			 len = imsg_get_len(imsg), keylen;
	int			 fds[3], i;

	if ((l = launch_find(imsg_get_id(imsg))) == NULL) {
		explicit_bzero(imsg->data, len);
		return;		/* already ended; its EXIT is on the way */
	}
	if (!l->warm || l->armed)
		fatalx("arm for sandbox %u, which is not warm and waiting",
		    l->id);
	if (len == 0 || len > SBX_SPEC_WIRE_MAX ||
	    sbx_spec_parse(&spec, imsg->data, len, err, sizeof(err)) == -1 ||
	    sbx_spec_warm_key(&spec, key, sizeof(key), &keylen, err,
	    sizeof(err)) == -1)
		fatalx("arm for sandbox %u: %s", l->id, len == 0 ||
		    len > SBX_SPEC_WIRE_MAX ? "spec size" : err);
	if (spec.warm || keylen != l->keylen ||
	    memcmp(key, l->key, keylen) != 0)
		fatalx("arm for sandbox %u: the run's spec is not the one it "
		    "was built from", l->id);
	l->armed = 1;
	for (i = 0; i < 3; i++)
		fds[i] = l->fds[i];
	if (l->refused)
		arm_fail(l, "a descriptor was refused (the launcher's log "
		    "says why)");
	else if (sandbox_arm(&l->sb, imsg->data, len, fds,
	    (uint32_t)spec.timeout_ms, err, sizeof(err)) == -1)
		arm_fail(l, err);
	explicit_bzero(imsg->data, len);
	/* pid 1 holds the payload's descriptors now, or nobody needs them. */
	for (i = 0; i < 3; i++) {
		if (l->fds[i] != -1)
			close(l->fds[i]);
		l->fds[i] = -1;
	}
	if (!l->sb.timedout && !l->sb.killed) {
		evtimer_del(&l->tmo);
		launch_arm(l);
	}
	send_started(ib, l);
}

static void
h_selftest(struct imsgbuf *ib, struct imsg *imsg)
{
	struct selftest_req	 rq;
	struct selftest_result	 res;
	struct launcher_conf	 conf;
	uint32_t		 i;

	if (imsg_get_data(imsg, &rq, sizeof(rq)) == -1)
		fatalx("selftest: bad size");
	if (rq.nhidden > SELFTEST_NHIDDEN || rq.port == 0 ||
	    rq.port > 65535)
		fatalx("selftest: %u hidden paths, port %u", rq.nhidden,
		    rq.port);
	for (i = 0; i < rq.nhidden; i++)
		if (memchr(rq.hidden[i], '\0', SELFTEST_PATHMAX) == NULL ||
		    rq.hidden[i][0] != '/')
			fatalx("selftest: hidden path %u malformed", i);
	if ((rq.host_uid != 0) != (rq.host_gid != 0))
		fatalx("selftest: host ids %u/%u", rq.host_uid, rq.host_gid);
	/* As identity service: sandbox-user's ids (the mapper allows only
	 * that pair then), or our own in a user's service. */
	conf = lconf;
	conf.identity = SBX_IDENTITY_SERVICE;
	if (rq.host_uid != 0) {
		conf.map_host = 1;
		conf.host_uid = rq.host_uid;
		conf.host_gid = rq.host_gid;
	}
	/* Synchronous: a few milliseconds, bounded by its own deadline. */
	selftest_run(&conf, &rq, &res);
	if (imsg_compose(ib, IMSG_LAUNCH_SELFTEST_RESULT, imsg_get_id(imsg),
	    0, -1, &res, sizeof(res)) == -1)
		fatal("compose selftest result");
}

static const struct role_handler handlers[] = {
	{ IMSG_LAUNCH_SPEC, ROLE_LEN_ANY, h_spec },
	{ IMSG_LAUNCH_FD, sizeof(struct launch_fd), h_fd },
	{ IMSG_LAUNCH_START, sizeof(struct launch_start), h_start },
	{ IMSG_LAUNCH_SIGNAL, sizeof(struct launch_signal), h_signal },
	{ IMSG_LAUNCH_DEADLINE, sizeof(struct launch_deadline), h_deadline },
	{ IMSG_LAUNCH_RESIZE, sizeof(struct launch_resize), h_resize },
	{ IMSG_LAUNCH_ARM, ROLE_LEN_ANY, h_arm },
	{ IMSG_LAUNCH_SELFTEST, sizeof(struct selftest_req), h_selftest },
};

SBX_SANITIZER_ROLE_OPTIONS

int
main(int argc, char *argv[])
{
	static struct imsgbuf	 ibuf;
	char			 err[SANDBOX_ERRLEN], v2dir[PATH_MAX];

	memset(&lconf, 0, sizeof(lconf));
	lconf.sandbox_uid = SANDBOX_UID_DEFAULT;
	lconf.sandbox_gid = SANDBOX_UID_DEFAULT;
	lconf.child_scrub = launch_scrub;
	/*
	 * Before launcher.priv and before anything is read: fork the mapper
	 * (it alone keeps the monitor's policy socket) and the spawner, and
	 * drop every capability (split.c).
	 */
	role_keep_fd(LAUNCH_POLICY_FD);
	role_before_priv(split_start);
	role_init(argc, argv, "launcher", &priv_table_launcher, &ibuf);
	/* Memory and pids caps for whole sandboxes where the service made
	 * this launcher cgroups (v2 first, then v1); rlimits otherwise, and
	 * the reports say which.  Cgroups that exist but cannot be used
	 * end the role. */
	lconf.cgv2_dir = lconf.cgv1_mem = lconf.cgv1_pids = -1;
	lconf.cgv1_cpu = -1;
	if (cgroup_v2_find("/proc/self/mountinfo", "/proc/self/cgroup", v2dir,
	    sizeof(v2dir)) == 0) {
		if (cgroup_v2_open(&lconf, v2dir, 0, err, sizeof(err)) == -1)
			fatalx("%s", err);
	} else if (cgroup_v1_open(&lconf, err, sizeof(err)) == -1)
		fatalx("%s", err);
	cgroup_sweep(&lconf);
	if (imsgbuf_set_maxsize(&ibuf, LAUNCH_MSG_MAXSIZE) == -1)
		fatal("imsgbuf_set_maxsize");
	/* The payload filters and pid 1's, compiled once for every sandbox
	 * from the constant tables; one that does not compile ends the
	 * role before any sandbox exists (fail closed). */
	if (shim_filters_init(err, sizeof(err)) == -1)
		fatalx("%s", err);
	chan = &ibuf;
	part_watch();
	evtimer_set(&spare_ev, spare_make, NULL);
	spare_later();
	signal_set(&term_ev, SIGTERM, launch_term, NULL);
	signal_add(&term_ev, NULL);
	role_serve(&ibuf, handlers, nitems(handlers));
}
