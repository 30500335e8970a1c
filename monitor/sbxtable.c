/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * sbxtable.c: the monitor's table of live sandboxes and its traffic with
 * the launcher.  A sandbox belongs to the connection that asked for it; it
 * collects that agent's descriptors, goes to the launcher as SPEC, FDs and
 * START, and its STARTED and EXIT come back to the agent as the RUN reply
 * and an EXIT event.  When the agent goes away its sandboxes are killed:
 * nothing runs on behalf of a peer that can no longer see it.
 */
#include <sys/types.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>
#include <event.h>

#include "clock.h"
#include "common.h"
#include "proto.h"
#include "spec.h"
#include "libsbx/sbx.h"
#include "monitor.h"
#include "csstore.h"

enum msb_state {
	MSB_COLLECT,		/* waiting for the agent's descriptors */
	MSB_STARTING,		/* sent to the launcher */
	MSB_RUNNING
};

struct msb {
	TAILQ_ENTRY(msb)	 entry;
	uint32_t		 id;
	struct ctl_conn		*conn;		/* NULL: the agent is gone */
	uint32_t		 reqid;
	uid_t			 uid;
	pid_t			 peerpid;
	struct sbx_identity	 ident;		/* host ids it runs as */
	enum msb_state		 state;
	uint8_t			*spec;
	size_t			 speclen;
	uint32_t		 expect;	/* slots the agent announced */
	int			 fds[LAUNCH_NSLOTS];
	unsigned		 held;		/* of fds[], the agent's */
	int			 inflight;	/* RUN not yet answered */
	int			 kill_on_start;
	int			 runner;	/* a provider run's sandbox */
	int			 pooled;	/* booted ahead of its run */
	int			 reserved;	/* ... for one job's run */
	int			 armed;		/* pooled, and now in use */
	int			 egress;	/* its policy is at the proxy */
	uint32_t		 tag;		/* the runner's name for it */
	pid_t			 pid;
	char			 what[RUNSPEC_WHAT_MAX]; /* audit log */
	struct cs_meta		*cs;		/* overlay: its changeset */
	int			 warm;		/* built ahead, no run yet */
	int			 took;		/* was warm, now a run's */
	const char		*cold;		/* a warm profile's run that
						   started cold: why */
	uint64_t		 built;		/* warm: monotonic ms, STARTED */
	uint8_t			*wkey;		/* a run a warm sandbox could
						   serve: sbx_spec_warm_key */
	size_t			 wkeylen;
	uint32_t		 wgen;		/* warm_gen of wkey */
	gid_t			 gid;		/* the caller's, for fills */
	char			 wprof[64];	/* its profile, for fills */
};
TAILQ_HEAD(msbs, msb);

static struct msbs	 msbs = TAILQ_HEAD_INITIALIZER(msbs);
static unsigned		 nmsbs;
static uint32_t		 nextid = 1;
static uint32_t		 limits_seen;	/* SBX_LIMIT_* the launcher used */
static unsigned		 nwarm;		/* of nmsbs: warm, no run yet */
static uint32_t		 warm_gen;	/* +1 per reload: older keys stale */
static struct event	 warm_ev;	/* idle release */

static void	 warm_take_forward(struct msb *);
static void	 warm_fill(const struct msb *);
static void	 warm_make_room(void);
static void	 msb_conn_gone_one(struct msb *);

/* Sandboxes that run, or are starting to, for a run: warm ones that
 * wait for one are counted apart (msb_warm_count). */
unsigned
msb_count(void)
{
	return nmsbs - nwarm;
}

uint32_t
msb_limits(void)
{
	return limits_seen;
}

unsigned
msb_count_uid(uid_t uid)
{
	struct msb	*s;
	unsigned	 n = 0;

	TAILQ_FOREACH(s, &msbs, entry)
		if (s->uid == uid && !s->warm)
			n++;
	return n;
}

static struct msb *
msb_byid(uint32_t id)
{
	struct msb	*s;

	TAILQ_FOREACH(s, &msbs, entry)
		if (s->id == id)
			return s;
	return NULL;
}

/* The uid whose connection started sandbox id (a provider run's: the
 * service's own); -1 when there is no such sandbox. */
int
msb_owner(uint32_t id, uid_t *uid)
{
	struct msb	*s;

	if ((s = msb_byid(id)) == NULL)
		return -1;
	*uid = s->uid;
	return 0;
}

static void
msb_free(struct msb *s)
{
	char	 err[64];
	int	 i, store;

	for (i = 0; i < LAUNCH_NSLOTS; i++)
		if (s->fds[i] != -1)
			close(s->fds[i]);
	if (s->cs != NULL) {
		if ((store = changes_store(err, sizeof(err))) != -1)
			csstore_abandon(store, s->cs->uid, s->cs->id);
		free(s->cs);
	}
	conn_fd_release(s->conn, s->held);
	if (s->inflight)
		conn_req_release(s->conn);
	free(s->spec);
	identity_release(&s->ident);
	if (s->egress)
		egress_end(s->id);
	if (s->warm)
		nwarm--;
	free(s->wkey);
	TAILQ_REMOVE(&msbs, s, entry);
	nmsbs--;
	free(s);
}

static void
launcher_signal(struct msb *s, int signo)
{
	struct launch_signal	 ls;
	struct role		*r = &roles[ROLE_LAUNCHER];

	memset(&ls, 0, sizeof(ls));
	ls.signo = signo;
	if (imsg_compose(&r->ibuf, IMSG_LAUNCH_SIGNAL, s->id, 0, -1, &ls,
	    sizeof(ls)) == -1)
		fatal("%s: compose", __func__);
	proc_event_add(r);
}

static void
launcher_resize(struct msb *s, uint16_t rows, uint16_t cols)
{
	struct launch_resize	 lr;
	struct role		*r = &roles[ROLE_LAUNCHER];

	memset(&lr, 0, sizeof(lr));
	lr.rows = rows;
	lr.cols = cols;
	if (imsg_compose(&r->ibuf, IMSG_LAUNCH_RESIZE, s->id, 0, -1, &lr,
	    sizeof(lr)) == -1)
		fatal("%s: compose", __func__);
	proc_event_add(r);
}

/*
 * The descriptors of slots below n, one FD each; they are then the
 * launcher's, no longer the connection's to hold.  The slots sent.
 */
static uint32_t
msb_send_fds(struct msb *s, int n)
{
	struct role		*r = &roles[ROLE_LAUNCHER];
	struct launch_fd	 lf;
	uint32_t		 slots = 0;
	int			 i;

	for (i = 0; i < n; i++) {
		if (s->fds[i] == -1)
			continue;
		memset(&lf, 0, sizeof(lf));
		lf.slot = i;
		/* imsg owns (and closes) the descriptor once queued. */
		if (imsg_compose(&r->ibuf, IMSG_LAUNCH_FD, s->id, 0, s->fds[i],
		    &lf, sizeof(lf)) == -1)
			fatal("%s: compose fd", __func__);
		s->fds[i] = -1;
		slots |= 1U << i;
	}
	conn_fd_release(s->conn, s->held);
	s->held = 0;
	return slots;
}

/* Everything is here: hand the sandbox to the launcher. */
static void
msb_forward(struct msb *s)
{
	struct role		*r = &roles[ROLE_LAUNCHER];
	struct launch_start	 ls;

	if (s->took) {
		warm_take_forward(s);
		return;
	}
	if (imsg_compose(&r->ibuf, IMSG_LAUNCH_SPEC, s->id, 0, -1, s->spec,
	    s->speclen) == -1)
		fatal("%s: compose spec", __func__);
	memset(&ls, 0, sizeof(ls));
	ls.slots = msb_send_fds(s, LAUNCH_NSLOTS);
	ls.identity = s->ident.mode;
	ls.host_uid = s->ident.uid;
	ls.host_gid = s->ident.gid;
	if (imsg_compose(&r->ibuf, IMSG_LAUNCH_START, s->id, 0, -1, &ls,
	    sizeof(ls)) == -1)
		fatal("%s: compose start", __func__);
	free(s->spec);
	s->spec = NULL;
	s->state = MSB_STARTING;
	proc_event_add(r);
}

/*
 * A new sandbox in the table, collecting its descriptors (none yet): what
 * an agent's RUN and a provider run share.  The spec is copied.
 */
static struct msb *
msb_alloc(uid_t uid, pid_t peerpid, const struct sbx_identity *ident,
    const uint8_t *spec, size_t speclen, const char *what)
{
	struct msb	*s;
	int		 i;

	s = xcalloc(1, sizeof(*s));
	s->id = nextid++;
	if (nextid == 0)
		nextid = 1;
	s->uid = uid;
	s->peerpid = peerpid;
	s->ident = *ident;
	s->state = MSB_COLLECT;
	s->spec = xmalloc(speclen);
	memcpy(s->spec, spec, speclen);
	s->speclen = speclen;
	for (i = 0; i < LAUNCH_NSLOTS; i++)
		s->fds[i] = -1;
	strlcpy(s->what, what, sizeof(s->what));
	TAILQ_INSERT_TAIL(&msbs, s, entry);
	nmsbs++;
	return s;
}

/* ---- warm sandboxes ------------------------------------------------ */

/*
 * The key of a run a warm sandbox could serve: a command without a
 * workdir descriptor, an overlay or a pty (their set-up depends on the
 * run; such runs start cold), as sbx_spec_warm_key's bytes.  NULL when
 * the run cannot be served warm.
 */
static uint8_t *
warm_key(const uint8_t *spec, size_t speclen, size_t *keylen)
{
	static uint8_t	 buf[SBX_SPEC_WIRE_MAX];
	struct sbx_spec	 sp;
	char		 err[SBX_SPEC_ERRLEN];
	uint8_t		*key;

	if (sbx_spec_parse(&sp, spec, speclen, err, sizeof(err)) == -1)
		fatalx("%s: own spec: %s", __func__, err);
	if (sp.class != SBX_CLASS_COMMAND || sp.workdir_fd || sp.overlay ||
	    sp.pty)
		return NULL;
	if (sbx_spec_warm_key(&sp, buf, sizeof(buf), keylen, err,
	    sizeof(err)) == -1)
		fatalx("%s: %s", __func__, err);
	key = xmalloc(*keylen);
	memcpy(key, buf, *keylen);
	return key;
}

/* The same caller, the same ids, the same set-up. */
static int
warm_matches(const struct msb *s, uid_t uid, const struct sbx_identity *id,
    const uint8_t *key, size_t keylen)
{
	if (s->uid != uid || s->ident.mode != id->mode)
		return 0;
	/* identity range: each sandbox has ids of its own anyway. */
	if (id->mode != SBX_IDENTITY_RANGE && (s->ident.uid != id->uid ||
	    s->ident.gid != id->gid))
		return 0;
	return s->wkeylen == keylen && memcmp(s->wkey, key, keylen) == 0;
}

/* A built warm sandbox that can take this caller's run, the oldest. */
static struct msb *
warm_find(uid_t uid, const struct sbx_identity *id, const uint8_t *key,
    size_t keylen)
{
	struct msb	*s;

	TAILQ_FOREACH(s, &msbs, entry)
		if (s->warm && s->state == MSB_RUNNING && !s->kill_on_start &&
		    warm_matches(s, uid, id, key, keylen))
			return s;
	return NULL;
}

/* Release a warm sandbox: killed now, or when its STARTED comes. */
static void
warm_release(struct msb *s, const char *why)
{
	if (s->kill_on_start)
		return;
	s->kill_on_start = 1;
	audit("warm-release", s->uid, s->peerpid, "sandbox %u: %s", s->id,
	    why);
	if (s->state == MSB_RUNNING)
		launcher_signal(s, SIGKILL);
}

static void
warm_make_room(void)
{
	struct msb	*s;

	TAILQ_FOREACH(s, &msbs, entry)
		if (s->warm && !s->kill_on_start) {
			warm_release(s, "its place went to a run");
			return;
		}
}

/* Idle past warm-idle: released.  Runs while warm sandboxes exist. */
static void
warm_check(int fd, short event, void *arg)
{
	struct timeval	 tv = { 1, 0 };
	struct msb	*s;
	uint64_t	 now = monotonic_ms();

	(void)fd;
	(void)event;
	(void)arg;
	TAILQ_FOREACH(s, &msbs, entry)
		if (s->warm && s->state == MSB_RUNNING &&
		    now - s->built >= (uint64_t)monitor_conf->warm_idle * 1000)
			warm_release(s, "idle for warm-idle");
	if (nwarm > 0)
		evtimer_add(&warm_ev, &tv);
}

static void
warm_timer(void)
{
	struct timeval	 tv = { 1, 0 };

	if (!event_initialized(&warm_ev))
		evtimer_set(&warm_ev, warm_check, NULL);
	if (!evtimer_pending(&warm_ev, NULL))
		evtimer_add(&warm_ev, &tv);
}

/* Reload: every warm sandbox goes, and keys of older runs are stale. */
void
msb_warm_release_all(const char *why)
{
	struct msb	*s;

	warm_gen++;
	TAILQ_FOREACH(s, &msbs, entry)
		if (s->warm)
			warm_release(s, why);
}

/* Warm sandboxes not released, everyone's or uid's: built and able to
 * take a run (built != 0; what STATUS calls idle), or built or being
 * built (what the caps count). */
unsigned
msb_warm_count(int all, uid_t uid, int built)
{
	struct msb	*s;
	unsigned	 n = 0;

	TAILQ_FOREACH(s, &msbs, entry)
		if (s->warm && !s->kill_on_start && (all || s->uid == uid) &&
		    (!built || s->state == MSB_RUNNING))
			n++;
	return n;
}

/* One warm sandbox like run's: its key's spec, warm, with the idle
 * lifetime (and a margin) as the launcher's deadline.  0, or -1. */
static int
warm_spawn(const struct msb *run, const struct conf_profile *prof)
{
	static uint8_t		 buf[SBX_SPEC_WIRE_MAX];
	struct sbx_identity	 ident;
	struct sbx_spec		 sp;
	struct msb		*s;
	char			 err[SBX_SPEC_ERRLEN];
	char			 what[RUNSPEC_WHAT_MAX];
	size_t			 len;

	if (identity_decide(prof, run->uid, run->gid, &ident, err,
	    sizeof(err)) == -1) {
		log_warnx("warm: uid %u: %s", (unsigned)run->uid, err);
		return -1;
	}
	if (ident.mode != run->ident.mode || (ident.mode !=
	    SBX_IDENTITY_RANGE && (ident.uid != run->ident.uid ||
	    ident.gid != run->ident.gid))) {
		identity_release(&ident);
		return -1;
	}
	if (sbx_spec_parse(&sp, run->wkey, run->wkeylen, err,
	    sizeof(err)) == -1)
		fatalx("%s: key: %s", __func__, err);
	sp.warm = 1;
	sp.timeout_ms = ((uint64_t)monitor_conf->warm_idle + 10) * 1000;
	if (sbx_spec_serialise(&sp, buf, sizeof(buf), &len, err,
	    sizeof(err)) == -1)
		fatalx("%s: %s", __func__, err);
	snprintf(what, sizeof(what), "warm, profile %s, for uid %u",
	    prof->name, (unsigned)run->uid);
	s = msb_alloc(run->uid, run->peerpid, &ident, buf, len, what);
	s->warm = 1;
	nwarm++;
	s->gid = run->gid;
	s->wkey = xmalloc(run->wkeylen);
	memcpy(s->wkey, run->wkey, run->wkeylen);
	s->wkeylen = run->wkeylen;
	s->wgen = warm_gen;
	strlcpy(s->wprof, prof->name, sizeof(s->wprof));
	if (prof->network == CONF_NET_PROXY) {
		egress_policy(s->id, run->uid, prof);
		s->egress = 1;
	}
	msb_forward(s);
	return 0;
}

/*
 * A run that a warm sandbox could have served ended: its caller gets up
 * to the profile's warm N of them, built now, while the caller reads
 * the EXIT -- never on a run's own path.  Within max-sandboxes, and at
 * most max-sandboxes-per-peer warm ones per caller over all its
 * profiles and keys.
 */
static void
warm_fill(const struct msb *run)
{
	const struct conf_profile	*prof;
	struct msb			*s;
	unsigned			 have = 0;

	if (run->wkey == NULL || run->wgen != warm_gen ||
	    (prof = conf_profile(monitor_conf, run->wprof)) == NULL ||
	    prof->warm == 0)
		return;
	TAILQ_FOREACH(s, &msbs, entry)
		if (s->warm && !s->kill_on_start &&
		    warm_matches(s, run->uid, &run->ident, run->wkey,
		    run->wkeylen))
			have++;
	/* The run that ended is still listed; its place is free. */
	for (; have < prof->warm; have++) {
		if (nmsbs - 1 >= monitor_conf->max_sandboxes)
			break;
		/* At the caller's cap, its oldest idle one of another
		 * key gives way: the latest kind of run wins. */
		if (msb_warm_count(0, run->uid, 0) >=
		    monitor_conf->max_sandboxes_per_peer) {
			TAILQ_FOREACH(s, &msbs, entry)
				if (s->warm && !s->kill_on_start &&
				    s->uid == run->uid &&
				    !warm_matches(s, run->uid, &run->ident,
				    run->wkey, run->wkeylen))
					break;
			if (s == NULL)
				break;
			warm_release(s, "its caller's warm sandboxes are at "
			    "max-sandboxes-per-peer; a newer kind of run "
			    "took its place");
		}
		if (warm_spawn(run, prof) == -1)
			break;
	}
}

/* A warm sandbox's run has its descriptors: stdio, then ARM. */
static void
warm_take_forward(struct msb *s)
{
	struct role		*r = &roles[ROLE_LAUNCHER];

	/* Stdio only: a warm run has no workdir or changeset. */
	(void)msb_send_fds(s, LAUNCH_SLOT_STDERR + 1);
	if (imsg_compose(&r->ibuf, IMSG_LAUNCH_ARM, s->id, 0, -1, s->spec,
	    s->speclen) == -1)
		fatal("%s: compose arm", __func__);
	freezero(s->spec, s->speclen);
	s->spec = NULL;
	s->state = MSB_STARTING;
	proc_event_add(r);
}

/*
 * A RUN request passed its checks: record the sandbox, or hand the run
 * a warm one of the caller's built from the same spec (warm.c's key).
 * 0, or -1 with a limit error already sent to the agent.
 */
int
msb_new(struct ctl_conn *c, uint32_t reqid, uid_t uid, gid_t gid,
    pid_t peerpid, const struct sbx_identity *ident,
    const struct conf_profile *prof, const uint8_t *spec, size_t speclen,
    uint32_t expect, const char *argv0)
{
	struct sbx_identity	 mine;
	struct msb		*s;
	char			 what[RUNSPEC_WHAT_MAX];
	uint8_t			*key = NULL;
	size_t			 keylen = 0;

	if (msb_count() >= monitor_conf->max_sandboxes) {
		reply_error(c, reqid, 0, SBX_E_LIMIT, "max-sandboxes %u "
		    "reached", monitor_conf->max_sandboxes);
		return -1;
	}
	if (msb_count_uid(uid) >= monitor_conf->max_sandboxes_per_peer) {
		reply_error(c, reqid, 0, SBX_E_LIMIT, "max-sandboxes-per-peer"
		    " %u reached for uid %u",
		    monitor_conf->max_sandboxes_per_peer, (unsigned)uid);
		return -1;
	}
	if (prof->warm > 0)
		key = warm_key(spec, speclen, &keylen);
	if (key != NULL && (s = warm_find(uid, ident, key, keylen)) != NULL) {
		free(key);
		/* The warm sandbox keeps the ids it was built with; the
		 * ones decided for this run (a range slot) go back. */
		mine = *ident;
		identity_release(&mine);
		s->warm = 0;
		nwarm--;
		s->took = 1;
		s->conn = c;
		s->reqid = reqid;
		s->peerpid = peerpid;
		s->expect = expect;
		s->state = MSB_COLLECT;
		s->spec = xmalloc(speclen);
		memcpy(s->spec, spec, speclen);
		s->speclen = speclen;
		/* The ids it runs as are the warm sandbox's own. */
		runspec_what(s->what, sizeof(s->what), prof->name, &s->ident,
		    argv0);
		s->inflight = 1;
		conn_req_hold(c);
		if (expect == 0)
			msb_forward(s);
		return 0;
	}
	/* Warm sandboxes yield their places to runs. */
	if (nmsbs >= monitor_conf->max_sandboxes)
		warm_make_room();
	runspec_what(what, sizeof(what), prof->name, ident, argv0);
	s = msb_alloc(uid, peerpid, ident, spec, speclen, what);
	/* A warm profile's run that starts cold says why (audit log). */
	if (prof->warm > 0)
		s->cold = key == NULL ? "a workdir, an overlay or a pty" :
		    "none was built and waiting";
	s->conn = c;
	s->reqid = reqid;
	s->expect = expect;
	s->gid = gid;
	s->wkey = key;
	s->wkeylen = keylen;
	s->wgen = warm_gen;
	strlcpy(s->wprof, prof->name, sizeof(s->wprof));
	/* In flight until the RUN is answered (started, or why not). */
	s->inflight = 1;
	conn_req_hold(c);
	/* The proxy knows the sandbox's rules before its listeners exist;
	 * they are the profile's as of now, whatever a reload does later. */
	if (prof->network == CONF_NET_PROXY) {
		egress_policy(s->id, uid, prof);
		s->egress = 1;
	}
	if (expect == 0)
		msb_forward(s);
	return 0;
}

/*
 * An overlay RUN that msb_new took: its changeset's stream file (the
 * monitor's descriptor, for the launcher) and id.  0, or -1 when there
 * is no such sandbox collecting descriptors.
 */
int
msb_changes(struct ctl_conn *c, uint32_t reqid, int fd, int base,
    const struct cs_meta *m)
{
	struct msb	*s;

	TAILQ_FOREACH(s, &msbs, entry)
		if (s->conn == c && s->reqid == reqid &&
		    s->state == MSB_COLLECT)
			break;
	if (s == NULL)
		return -1;
	s->fds[LAUNCH_SLOT_CHANGES] = fd;
	s->fds[LAUNCH_SLOT_CSBASE] = base;
	s->cs = xmalloc(sizeof(*s->cs));
	*s->cs = *m;
	return 0;
}

/* 1: a sandbox of this monitor is running on uid's changeset id. */
int
msb_changeset_busy(uid_t uid, const char *id)
{
	struct msb	*s;

	TAILQ_FOREACH(s, &msbs, entry)
		if (s->cs != NULL && s->cs->uid == (uint32_t)uid &&
		    strcmp(s->cs->id, id) == 0)
			return 1;
	return 0;
}

/* A RUN that msb_new took but that was refused after (already answered). */
void
msb_drop(struct ctl_conn *c, uint32_t reqid)
{
	struct msb	*s;

	TAILQ_FOREACH(s, &msbs, entry)
		if (s->conn == c && s->reqid == reqid &&
		    s->state == MSB_COLLECT) {
			if (s->took) {
				msb_conn_gone_one(s);
				return;
			}
			msb_free(s);
			return;
		}
}

/* Tell the runner its sandbox could not start (or ended). */
static void
runner_exited(uint32_t tag, const struct launch_exit *le)
{
	struct role	*r = &roles[ROLE_PROVIDER_RUNNER];

	if (imsg_compose(&r->ibuf, IMSG_PR_EXITED, tag, 0, -1, le,
	    sizeof(*le)) == -1)
		fatal("%s: compose", __func__);
	proc_event_add(r);
}

void
msb_runner_refused(uint32_t tag, const char *why)
{
	struct launch_exit	 le;

	memset(&le, 0, sizeof(le));
	le.reason = SANDBOX_SETUP_FAILED;
	strlcpy(le.step, why, sizeof(le.step));
	runner_exited(tag, &le);
}

/*
 * A provider run's sandbox, asked for by the runner: its stdin and stdout
 * are the runner's pipes, its stderr /dev/null.  It counts against
 * max-sandboxes like any other.
 */
void
msb_new_runner(uint32_t tag, const uint8_t *spec, size_t speclen, int in,
    int out, uint32_t flags)
{
	struct sbx_identity	 ident;
	struct msb		*s;
	char			 err[256];
	int			 pooled, reserved;

	if (msb_count() >= monitor_conf->max_sandboxes) {
		close(in);
		close(out);
		msb_runner_refused(tag, "max-sandboxes reached");
		return;
	}
	if (nmsbs >= monitor_conf->max_sandboxes)
		warm_make_room();
	/* Provider runs touch no caller file: identity service, which is
	 * sandbox-user when started as root, never the service user. */
	memset(&ident, 0, sizeof(ident));
	ident.range_slot = -1;
	if (identity_service(&ident, err, sizeof(err)) == -1) {
		close(in);
		close(out);
		msb_runner_refused(tag, err);
		return;
	}
	pooled = (flags & PR_SPAWN_POOLED) != 0;
	reserved = (flags & PR_SPAWN_RESERVED) != 0;
	s = msb_alloc(getuid(), roles[ROLE_PROVIDER_RUNNER].pid, &ident,
	    spec, speclen, pooled && !reserved ? "pooled provider sandbox" :
	    "provider run");
	s->runner = 1;
	s->pooled = pooled;
	s->reserved = reserved;
	s->tag = tag;
	s->fds[LAUNCH_SLOT_STDIN] = in;
	s->fds[LAUNCH_SLOT_STDOUT] = out;
	msb_forward(s);
}

/*
 * The runner took a pooled sandbox for a run: from now on it has the
 * run's deadline instead of its idle lifetime.  The launcher enforces it
 * like any other.  0, or -1 if the runner broke the protocol.
 */
int
msb_arm(uint32_t tag, uint32_t timeout_ms)
{
	struct launch_deadline	 ld;
	struct role		*r = &roles[ROLE_LAUNCHER];
	struct msb		*s;

	TAILQ_FOREACH(s, &msbs, entry)
		if (s->runner && s->tag == tag)
			break;
	/* Gone already: its EXITED is on its way to the runner. */
	if (s == NULL)
		return 0;
	if (!s->pooled || s->armed)
		return -1;
	s->armed = 1;
	if (!s->reserved)
		audit("pool-take", s->uid, s->peerpid, "sandbox %u: pooled, "
		    "taken by a provider run with a %u ms deadline", s->id,
		    timeout_ms);
	memset(&ld, 0, sizeof(ld));
	ld.timeout_ms = timeout_ms;
	if (imsg_compose(&r->ibuf, IMSG_LAUNCH_DEADLINE, s->id, 0, -1, &ld,
	    sizeof(ld)) == -1)
		fatal("%s: compose", __func__);
	proc_event_add(r);
	return 0;
}

/* Pooled provider sandboxes not yet taken by a run. */
unsigned
msb_pool_idle(void)
{
	struct msb	*s;
	unsigned	 n = 0;

	TAILQ_FOREACH(s, &msbs, entry)
		if (s->runner && s->pooled && !s->reserved && !s->armed)
			n++;
	return n;
}

/* A descriptor for the agent's pending RUN.  0, or -1 with why. */
int
msb_fd(struct ctl_conn *c, uint32_t reqid, uint32_t slot, int fd,
    char *why, size_t whylen)
{
	struct msb	*s;
	uint32_t	 got = 0;
	int		 i;

	TAILQ_FOREACH(s, &msbs, entry)
		if (s->conn == c && s->reqid == reqid &&
		    s->state == MSB_COLLECT)
			break;
	if (s == NULL) {
		snprintf(why, whylen, "no run request %u is waiting for "
		    "descriptors", reqid);
		return -1;
	}
	if (!(s->expect & (1U << slot)) || s->fds[slot] != -1) {
		snprintf(why, whylen, "descriptor slot %u was not announced "
		    "or came twice", slot);
		return -1;
	}
	s->fds[slot] = fd;
	s->held++;
	conn_fd_hold(c, 1);
	if (slot == LAUNCH_SLOT_WORKDIR && s->cs != NULL &&
	    s->cs->runs > 0) {
		struct stat	 st;

		/* --overlay-into: the same directory, by dev and ino. */
		if (fstat(fd, &st) == -1 || (uint64_t)st.st_dev !=
		    s->cs->dev || (uint64_t)st.st_ino != s->cs->ino) {
			s->fds[slot] = -1;
			s->held--;
			conn_fd_release(c, 1);
			snprintf(why, whylen, "--overlay-into: -w is not "
			    "changeset %s's directory %s", s->cs->id,
			    s->cs->dir);
			return -1;
		}
	} else if (slot == LAUNCH_SLOT_WORKDIR && s->cs != NULL) {
		struct stat	 st;
		char		 link[64];
		ssize_t		 n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		if (fstat(fd, &st) == 0) {
			s->cs->dev = (uint64_t)st.st_dev;
			s->cs->ino = (uint64_t)st.st_ino;
		}
		if ((n = readlink(link, s->cs->dir,
		    sizeof(s->cs->dir) - 1)) > 0)
			s->cs->dir[n] = '\0';
		else
			strlcpy(s->cs->dir, "/", sizeof(s->cs->dir));
	}
	for (i = 0; i < LAUNCH_SLOT_CHANGES; i++)
		if (s->fds[i] != -1)
			got |= 1U << i;
	/* LAUNCH_SLOT_CHANGES and _CSBASE are the monitor's, not counted. */
	if (got == s->expect)
		msb_forward(s);
	return 0;
}

/* The agent asks to signal one of its sandboxes. */
int
msb_signal(struct ctl_conn *c, uint32_t id, int signo, char *why,
    size_t whylen)
{
	struct msb	*s;

	if ((s = msb_byid(id)) == NULL || s->conn != c) {
		snprintf(why, whylen, "sandbox %u is not one of yours", id);
		return -1;
	}
	if (s->state != MSB_RUNNING) {
		snprintf(why, whylen, "sandbox %u has not started", id);
		return -1;
	}
	launcher_signal(s, signo);
	return 0;
}

/* The agent resizes one of its sandboxes' pty; one without a pty
 * ignores it (the launcher knows, from the spec it parsed). */
int
msb_resize(struct ctl_conn *c, uint32_t id, uint16_t rows, uint16_t cols,
    char *why, size_t whylen)
{
	struct msb	*s;

	if ((s = msb_byid(id)) == NULL || s->conn != c) {
		snprintf(why, whylen, "sandbox %u is not one of yours", id);
		return -1;
	}
	if (s->state != MSB_RUNNING) {
		snprintf(why, whylen, "sandbox %u has not started", id);
		return -1;
	}
	launcher_resize(s, rows, cols);
	return 0;
}

/*
 * A warm sandbox that took a run whose agent went before its descriptors
 * came: out of the connection's accounts, and killed; its EXIT frees it.
 */
static void
msb_conn_gone_one(struct msb *s)
{
	if (s->inflight)
		conn_req_release(s->conn);
	s->inflight = 0;
	conn_fd_release(s->conn, s->held);
	s->held = 0;
	s->conn = NULL;
	launcher_signal(s, SIGKILL);
}

/* The agent's connection closed: its sandboxes go with it. */
void
msb_conn_gone(struct ctl_conn *c)
{
	struct msb	*s, *next;

	for (s = TAILQ_FIRST(&msbs); s != NULL; s = next) {
		next = TAILQ_NEXT(s, entry);
		if (s->conn != c)
			continue;
		switch (s->state) {
		case MSB_COLLECT:
			/* A warm one that took the run is a live sandbox. */
			if (s->took) {
				msb_conn_gone_one(s);
				break;
			}
			s->conn = NULL;
			msb_free(s);
			break;
		case MSB_STARTING:
			s->conn = NULL;
			s->kill_on_start = 1;
			break;
		case MSB_RUNNING:
			s->conn = NULL;
			audit("kill", s->uid, s->peerpid, "sandbox %u: its "
			    "agent disconnected", s->id);
			launcher_signal(s, SIGKILL);
			break;
		}
	}
}

void
msb_started(struct role *r, struct imsg *imsg)
{
	struct launch_started	 st;
	struct msb		*s;
	cJSON			*o;

	(void)r;
	if (imsg_get_data(imsg, &st, sizeof(st)) == -1)
		fatalx("%s: bad size", __func__);
	if ((s = msb_byid(imsg_get_id(imsg))) == NULL ||
	    s->state != MSB_STARTING)
		fatalx("launcher: started for sandbox %u, which is not "
		    "starting", imsg_get_id(imsg));
	s->state = MSB_RUNNING;
	s->pid = st.pid;
	/* Built, and waiting for a run of its caller's. */
	if (s->warm) {
		limits_seen |= st.limits;
		s->built = monotonic_ms();
		audit("warm", s->uid, s->peerpid, "sandbox %u pid %d: %s",
		    s->id, (int)s->pid, s->what);
		if (s->kill_on_start)
			launcher_signal(s, SIGKILL);
		else
			warm_timer();
		return;
	}
	/* Answered below (or the agent is gone): out of flight. */
	if (s->inflight) {
		conn_req_release(s->conn);
		s->inflight = 0;
	}
	limits_seen |= st.limits;
	audit("spawn", s->uid, s->peerpid, "sandbox %u pid %d: %s%s%s%s%s",
	    s->id, (int)s->pid, s->took ? "warm, " : "",
	    s->cold != NULL ? "cold (" : "", s->cold != NULL ? s->cold : "",
	    s->cold != NULL ? "), " : "", s->what);
	if (s->runner)
		return;
	if (s->kill_on_start || s->conn == NULL) {
		launcher_signal(s, SIGKILL);
		return;
	}
	if ((o = cJSON_CreateObject()) == NULL)
		fatalx("out of memory");
	cJSON_AddNumberToObject(o, "sandbox", s->id);
	if (s->took)
		cJSON_AddBoolToObject(o, "warm", 1);
	msb_limits_json(o, st.limits);
	reply_send(s->conn, SBX_MSG_RUN, s->reqid, o);
}

/* "limits": cgroup or rlimit, and "cgroup": v1 or v2 for a cgroup. */
void
msb_limits_json(cJSON *o, uint32_t limits)
{
	cJSON_AddStringToObject(o, "limits", limits & SBX_LIMIT_CGROUP ?
	    "cgroup" : "rlimit");
	if (limits & SBX_LIMIT_CGROUP)
		cJSON_AddStringToObject(o, "cgroup", limits & SBX_LIMIT_CGV2 ?
		    "v2" : "v1");
}

/*
 * Which limit ended the sandbox, when one did: the deadline, the payload
 * killed by the signal of RLIMIT_FSIZE (or RLIMIT_CPU), a process killed
 * by the memory cgroup, a fork the pids cgroup refused.  NULL otherwise.
 * With rlimits a memory or pids failure is only an error inside the
 * payload (ENOMEM, EAGAIN), which nothing outside can tell apart.
 */
static const char *
limit_name(const struct launch_exit *le)
{
	if (le->reason == SANDBOX_TIMEOUT)
		return "timeout";
	if (le->limits & SBX_LIMIT_OUTPUT)
		return "output";
	if (le->reason == SANDBOX_SIGNALED &&
	    WTERMSIG(le->wstatus) == SIGXFSZ)
		return "fsize";
	/* pid 1 relays under the profile's fsize too (shim/stdrelay.c). */
	if (le->stdout_error == EFBIG || le->stderr_error == EFBIG)
		return "fsize";
	if (le->reason == SANDBOX_SIGNALED &&
	    WTERMSIG(le->wstatus) == SIGXCPU)
		return "cpu";
	if (le->limits & SBX_LIMIT_CPU)
		return "cpu";
	if (le->limits & SBX_LIMIT_OOM)
		return "memory";
	if (le->limits & SBX_LIMIT_PIDS)
		return "pids";
	if (le->limits & SBX_LIMIT_CHANGES)
		return "changes";
	return NULL;
}

/*
 * Every limit that ended or held back the run, in the order limit_name
 * picks the first, each {"limit": word, "message": what it did}: the
 * words are the EXIT event's "limit" values, and sbxctl prints one line
 * for each.
 */
static void
hit(cJSON *a, const char *word, const char *message)
{
	cJSON	*o;

	if ((o = cJSON_CreateObject()) == NULL)
		fatalx("out of memory");
	cJSON_AddStringToObject(o, "limit", word);
	cJSON_AddStringToObject(o, "message", message);
	cJSON_AddItemToArray(a, o);
}

static cJSON *
limits_hit(const struct launch_exit *le)
{
	cJSON	*a;

	if ((a = cJSON_CreateArray()) == NULL)
		fatalx("out of memory");
	if (le->reason == SANDBOX_TIMEOUT)
		hit(a, "timeout", "the sandbox timed out and was killed");
	if (le->limits & SBX_LIMIT_OUTPUT)
		hit(a, "output", "the payload wrote more than its output "
		    "limit to stdout and stderr and was killed");
	if (le->reason == SANDBOX_SIGNALED &&
	    WTERMSIG(le->wstatus) == SIGXFSZ)
		hit(a, "fsize", "a file reached the fsize limit (SIGXFSZ)");
	else if (le->stdout_error == EFBIG || le->stderr_error == EFBIG)
		hit(a, "fsize", "the file the payload's output was relayed "
		    "to reached the fsize limit (EFBIG; the payload's pipe "
		    "was closed)");
	if (le->limits & SBX_LIMIT_CPU)
		hit(a, "cpu", "the sandbox used its cpu-time");
	if (le->limits & SBX_LIMIT_OOM)
		hit(a, "memory", "the memory limit killed a process (out of "
		    "memory in the sandbox's cgroup)");
	if (le->limits & SBX_LIMIT_PIDS)
		hit(a, "pids", "the pids limit refused a fork");
	if (le->limits & SBX_LIMIT_CPUS)
		hit(a, "cpu", "the cpus quota throttled the sandbox");
	if (le->limits & SBX_LIMIT_CHANGES)
		hit(a, "changes", "the overlay's changes filled "
		    "changeset-max-size (ENOSPC inside)");
	return a;
}

/* What the run cost (sbx-protocol(7), "stats"). */
static cJSON *
stats_json(const struct launch_exit *le)
{
	cJSON	*o;

	if ((o = cJSON_CreateObject()) == NULL)
		fatalx("out of memory");
	cJSON_AddNumberToObject(o, "wall_ms", (double)le->wall_ms);
	cJSON_AddNumberToObject(o, "user_ms", (double)(le->user_us / 1000));
	cJSON_AddNumberToObject(o, "sys_ms", (double)(le->sys_us / 1000));
	cJSON_AddNumberToObject(o, "peak_memory", (double)le->peak_bytes);
	cJSON_AddStringToObject(o, "peak_source", le->peak_cgroup ?
	    "cgroup" : "rusage");
	/* 0: the kernel has no ns_last_pid (CONFIG_CHECKPOINT_RESTORE). */
	if (le->tasks != 0)
		cJSON_AddNumberToObject(o, "tasks", (double)le->tasks);
	cJSON_AddNumberToObject(o, "stdout_bytes", (double)le->stdout_bytes);
	cJSON_AddNumberToObject(o, "stderr_bytes", (double)le->stderr_bytes);
	if (le->stdout_error != 0)
		cJSON_AddStringToObject(o, "stdout_error",
		    sbx_errname(le->stdout_error));
	if (le->stderr_error != 0)
		cJSON_AddStringToObject(o, "stderr_error",
		    sbx_errname(le->stderr_error));
	return o;
}

/*
 * The sums STATUS shows (sbx-protocol(7), "usage"): per uid of the peer
 * that asked for the run, since the monitor started.  Entries are never
 * removed; there is one for each uid that ran a sandbox.
 */
struct usage {
	uid_t		 uid;
	uint64_t	 runs;
	uint64_t	 wall_ms;
	uint64_t	 user_us;
	uint64_t	 sys_us;
	uint64_t	 peak_max;
	uint64_t	 tasks;
	uint64_t	 stdout_bytes;
	uint64_t	 stderr_bytes;
};
static struct usage	*usage;
static size_t		 nusage;

static void
usage_add(uid_t uid, const struct launch_exit *le)
{
	struct usage	*u = NULL;
	size_t		 i;

	for (i = 0; i < nusage; i++)
		if (usage[i].uid == uid)
			u = &usage[i];
	if (u == NULL) {
		usage = xreallocarray(usage, nusage + 1, sizeof(*usage));
		u = &usage[nusage++];
		memset(u, 0, sizeof(*u));
		u->uid = uid;
	}
	u->runs++;
	u->wall_ms += le->wall_ms;
	u->user_us += le->user_us;
	u->sys_us += le->sys_us;
	if (le->peak_bytes > u->peak_max)
		u->peak_max = le->peak_bytes;
	u->tasks += le->tasks;
	u->stdout_bytes += le->stdout_bytes;
	u->stderr_bytes += le->stderr_bytes;
}

/* all: every uid's; else only uid's (an empty array when it ran none). */
cJSON *
msb_usage_json(int all, uid_t uid)
{
	cJSON	*a, *o;
	size_t	 i;

	if ((a = cJSON_CreateArray()) == NULL)
		fatalx("out of memory");
	for (i = 0; i < nusage; i++) {
		if (!all && usage[i].uid != uid)
			continue;
		if ((o = cJSON_CreateObject()) == NULL)
			fatalx("out of memory");
		cJSON_AddNumberToObject(o, "uid", (double)usage[i].uid);
		cJSON_AddNumberToObject(o, "runs", (double)usage[i].runs);
		cJSON_AddNumberToObject(o, "wall_ms",
		    (double)usage[i].wall_ms);
		cJSON_AddNumberToObject(o, "user_ms",
		    (double)(usage[i].user_us / 1000));
		cJSON_AddNumberToObject(o, "sys_ms",
		    (double)(usage[i].sys_us / 1000));
		cJSON_AddNumberToObject(o, "peak_memory_max",
		    (double)usage[i].peak_max);
		cJSON_AddNumberToObject(o, "tasks", (double)usage[i].tasks);
		cJSON_AddNumberToObject(o, "stdout_bytes",
		    (double)usage[i].stdout_bytes);
		cJSON_AddNumberToObject(o, "stderr_bytes",
		    (double)usage[i].stderr_bytes);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static const char *
reason_name(int reason, int wstatus)
{
	switch (reason) {
	case SANDBOX_EXITED:
		return "exited";
	case SANDBOX_SIGNALED:
		/* Signals the kernel sends for a resource limit. */
		if (WTERMSIG(wstatus) == SIGXFSZ || WTERMSIG(wstatus) == SIGXCPU)
			return "limit";
		return "signaled";
	case SANDBOX_TIMEOUT:
		return "timeout";
	case SANDBOX_SETUP_FAILED:
		return "setup-failed";
	case SANDBOX_KILLED:
		return "killed";
	}
	return "unknown";
}

void
msb_exited(struct role *r, struct imsg *imsg)
{
	struct launch_exit	 le;
	struct msb		*s;
	const char		*reason, *lim;
	char			 msg[256], cserr[256];
	cJSON			*o, *a;
	int			 kept;

	(void)r;
	if (imsg_get_data(imsg, &le, sizeof(le)) == -1)
		fatalx("%s: bad size", __func__);
	/* A warm sandbox collecting its run's descriptors is running. */
	if ((s = msb_byid(imsg_get_id(imsg))) == NULL ||
	    (s->state == MSB_COLLECT && !s->took))
		fatalx("launcher: exit for sandbox %u, which is not running",
		    imsg_get_id(imsg));
	le.step[sizeof(le.step) - 1] = '\0';
	reason = reason_name(le.reason, le.wstatus);
	switch (le.reason) {
	case SANDBOX_EXITED:
		snprintf(msg, sizeof(msg), "exited with status %d",
		    WEXITSTATUS(le.wstatus));
		break;
	case SANDBOX_SIGNALED:
		snprintf(msg, sizeof(msg), "killed by signal %d (%s)",
		    WTERMSIG(le.wstatus), strsignal(WTERMSIG(le.wstatus)));
		break;
	case SANDBOX_TIMEOUT:
		snprintf(msg, sizeof(msg), "timed out and was killed");
		break;
	case SANDBOX_SETUP_FAILED:
		if (le.error != 0)
			snprintf(msg, sizeof(msg), "setup failed: %s: %s",
			    le.step, strerror(le.error));
		else
			snprintf(msg, sizeof(msg), "setup failed: %s",
			    le.step);
		break;
	default:
		if (le.step[0] != '\0')
			snprintf(msg, sizeof(msg), "killed: %s", le.step);
		else
			snprintf(msg, sizeof(msg), "killed");
	}
	/* Which limit ended it, when one did. */
	if (le.limits & SBX_LIMIT_OOM)
		strlcat(msg, "; the memory limit killed a process",
		    sizeof(msg));
	if (le.limits & SBX_LIMIT_PIDS)
		strlcat(msg, "; the pids limit refused a fork", sizeof(msg));
	if (le.limits & SBX_LIMIT_OUTPUT)
		strlcat(msg, "; it wrote more than its output limit",
		    sizeof(msg));
	if (le.reason == SANDBOX_SIGNALED && WTERMSIG(le.wstatus) == SIGXFSZ)
		strlcat(msg, "; a file reached the fsize limit", sizeof(msg));
	if (le.limits & SBX_LIMIT_CPU)
		strlcat(msg, "; the sandbox used its cpu-time", sizeof(msg));
	if (le.limits & SBX_LIMIT_CPUS)
		strlcat(msg, "; the cpus quota throttled it", sizeof(msg));
	/* The audit record carries the same "stats" and "limits" as the
	 * EXIT event; a sandbox that never started cost nothing. */
	if ((a = cJSON_CreateObject()) == NULL)
		fatalx("out of memory");
	/* A warm sandbox that served no run cost its caller nothing. */
	if (le.reason != SANDBOX_SETUP_FAILED && !s->warm) {
		cJSON_AddItemToObject(a, "stats", stats_json(&le));
		cJSON_AddItemToObject(a, "limits_hit", limits_hit(&le));
		usage_add(s->uid, &le);
	}
	audit_with("exit", s->uid, s->peerpid, a, "sandbox %u: %s%s", s->id,
	    s->warm ? "warm, no run: " : "", msg);
	if (s->warm) {
		msb_free(s);
		return;
	}
	if (s->runner) {
		runner_exited(s->tag, &le);
		msb_free(s);
		return;
	}
	/* A sandbox that never started answers the RUN with an error. */
	if (s->conn != NULL && s->state != MSB_RUNNING) {
		reply_error(s->conn, s->reqid, 0, SBX_E_SETUP, "%s", msg);
	} else if (s->conn != NULL) {
		if ((o = cJSON_CreateObject()) == NULL)
			fatalx("out of memory");
		cJSON_AddNumberToObject(o, "sandbox", s->id);
		cJSON_AddStringToObject(o, "reason", reason);
		if (le.reason == SANDBOX_EXITED)
			cJSON_AddNumberToObject(o, "status",
			    WEXITSTATUS(le.wstatus));
		if (le.reason == SANDBOX_SIGNALED)
			cJSON_AddNumberToObject(o, "signal",
			    WTERMSIG(le.wstatus));
		if (le.reason == SANDBOX_SETUP_FAILED) {
			cJSON_AddStringToObject(o, "step", le.step);
			if (le.error != 0)
				cJSON_AddStringToObject(o, "error",
				    sbx_errname(le.error));
		}
		msb_limits_json(o, le.limits);
		if ((lim = limit_name(&le)) != NULL)
			cJSON_AddStringToObject(o, "limit", lim);
		if (s->cs != NULL) {
			kept = changes_finish(s->cs, s->peerpid, cserr,
			    sizeof(cserr));
			if (kept == 1)
				cJSON_AddStringToObject(o, "changes",
				    s->cs->id);
			/* Never lost without a word. */
			else if (kept == -1)
				cJSON_AddStringToObject(o, "changes_error",
				    cserr);
		}
		cJSON_AddStringToObject(o, "message", msg);
		if (le.reason != SANDBOX_SETUP_FAILED) {
			cJSON_AddItemToObject(o, "limits_hit",
			    limits_hit(&le));
			cJSON_AddItemToObject(o, "stats", stats_json(&le));
		}
		reply_event(s->conn, SBX_MSG_EXIT, s->reqid, o);
	}
	/* A run ended: its caller's next one may find a warm sandbox.
	 * Its ids (a range slot) are free first, for the next sandbox. */
	identity_release(&s->ident);
	if (le.reason != SANDBOX_SETUP_FAILED)
		warm_fill(s);
	msb_free(s);
}

/* network proxy: a listener the sandbox's pid 1 made, for the proxy. */
void
msb_listener(struct role *r, struct imsg *imsg)
{
	struct launch_listener	 ll;
	struct msb		*s;
	int			 fd;

	(void)r;
	if (imsg_get_data(imsg, &ll, sizeof(ll)) == -1)
		fatalx("%s: size", __func__);
	if ((fd = imsg_get_fd(imsg)) == -1) {
		log_warnx("launcher: listener for sandbox %u without a "
		    "descriptor", imsg_get_id(imsg));
		monitor_shutdown(1);
		return;
	}
	s = msb_byid(imsg_get_id(imsg));
	if (s == NULL || !s->egress) {
		/* Ended already, or not a proxy sandbox: nothing takes it. */
		if (s != NULL)
			log_warnx("sandbox %u: a listener, but its profile "
			    "has no network proxy", s->id);
		close(fd);
		return;
	}
	egress_listener(s->id, fd);
}
