/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * provreg.c: gate metric providers, the monitor's part (design.md §1, §5).
 *
 * The monitor holds the trusted state: the opt-in, the operator's
 * allowlist (read here, validated by the runner), and the registry of
 * issued providers with the exact snapshot bytes each was issued for.  It
 * never parses a bundle, a record or a provider's output: those bytes go
 * from the agent's descriptors to the runner and back out through the
 * agent's output descriptor.  A provider handle is an unguessable token
 * bound to the uid that loaded it; any other handle is "unregistered".
 * The registry's rules (quotas, re-loads, unload, expiry) are
 * provtable.c's; here are the requests and revocation: every allowlist
 * the runner accepts re-judges the issued providers, and what fails is
 * refused "revoked" from then on.
 */
#include <sys/types.h>
#include <sys/queue.h>
#include <sys/stat.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "proto.h"
#include "spec.h"
#include "libsbx/sbx.h"
#include "monitor.h"
#include "provider/provider.h"

/* A provider a load's runner job issued, not in the registry yet. */
struct pend {
	struct pr_provider	 p;
	uint8_t			*blob;
	size_t			 bloblen;
};

/* A load or an invoke; r first (rjob.c's table holds it). */
struct job {
	struct rjob		 r;
	uint8_t			*blob;		/* load: chunks arriving */
	size_t			 bloblen;
	struct pend		*pend;		/* load: all or none */
	size_t			 npend;
	/* invoke: waiting for the output descriptor */
	int			 recfd;
	int			 outfd;		/* until sent: see invoke_go */
	struct ptab_entry	*prov;		/* held (ptab_ref) */
	struct pr_invoke	 inv;
};

/* Called once the allowlist and every issued provider are judged. */
struct waiter {
	TAILQ_ENTRY(waiter)	 entry;
	void			(*fn)(void *);
	void			*arg;
};
TAILQ_HEAD(waiters, waiter);

static int		 allowlist_ok;
static int		 allowlist_pending;	/* sent, no verdict yet */
static char		 allowlist_why[PR_MSG_MAX] = "not sent yet";
static size_t		 rechecks;		/* sent, no answer yet */
static struct waiters	 waiters = TAILQ_HEAD_INITIALIZER(waiters);

static void	 revoke_entry(struct ptab_entry *, const char *, ...)
		    SBX_PRINTF(2, 3);
static void	 rechecks_send(void);

/* Spawns the runner asked for, until both descriptors are here. */
static int		 spawn_stdout = -1;
static uint32_t		 spawn_tag;

static struct role *
runner(void)
{
	return &roles[ROLE_PROVIDER_RUNNER];
}

/* ---- the allowlist -------------------------------------------------- */

/* Send the operator's allowlist file; the runner validates it. */
void
provider_allowlist_send(void)
{
	struct pr_allowlist_end	 end;
	struct stat		 st;
	uint8_t			 buf[PR_CHUNK];
	ssize_t			 n;
	int			 fd;

	if (!monitor_conf->bundle_providers)
		return;
	memset(&end, 0, sizeof(end));
	/* The trust root is the operator's: it is opened by path, here,
	 * never handed in by an agent. */
	if ((fd = open(monitor_conf->provider_allowlist, O_RDONLY |
	    O_CLOEXEC | O_NOFOLLOW)) == -1 || fstat(fd, &st) == -1 ||
	    !S_ISREG(st.st_mode) || st.st_size > PR_ALLOWLIST_MAX) {
		snprintf(allowlist_why, sizeof(allowlist_why), "%s: %s",
		    monitor_conf->provider_allowlist, fd == -1 ?
		    strerror(errno) : "not a regular file of at most 1 MiB");
		log_warnx("provider-allowlist %s", allowlist_why);
		allowlist_ok = 0;
		if (fd != -1)
			close(fd);
		return;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (imsg_compose(&runner()->ibuf, IMSG_PR_ALLOWLIST, 0, 0, -1,
		    buf, n) == -1)
			fatal("%s: compose", __func__);
		end.total += n;
	}
	close(fd);
	if (imsg_compose(&runner()->ibuf, IMSG_PR_ALLOWLIST_END, 0, 0, -1,
	    &end, sizeof(end)) == -1)
		fatal("%s: compose", __func__);
	allowlist_pending++;
	proc_event_add(runner());
}

/*
 * At start-up, the runner's verdict on the allowlist exists before the
 * first agent is served: a load that raced it would be refused as "not
 * sent yet" for no fault of the agent's.
 */
void
provider_allowlist_startup(void)
{
	time_t	 deadline = time(NULL) + PROVIDER_STARTUP_WAIT;

	provider_allowlist_send();
	while (allowlist_pending > 0 && time(NULL) < deadline)
		event_loop(EVLOOP_ONCE);
	if (allowlist_pending > 0) {
		log_warnx("the provider runner did not judge the allowlist "
		    "within %d seconds", PROVIDER_STARTUP_WAIT);
		monitor_shutdown(1);
	}
}

void
provider_allowlist_ok(struct role *r, struct imsg *imsg)
{
	struct pr_done	 d;

	(void)r;
	if (imsg_get_data(imsg, &d, sizeof(d)) == -1)
		fatalx("%s: bad size", __func__);
	d.msg[sizeof(d.msg) - 1] = '\0';
	if (allowlist_pending > 0)
		allowlist_pending--;
	allowlist_ok = d.code == 0;
	strlcpy(allowlist_why, d.msg, sizeof(allowlist_why));
	if (allowlist_ok)
		log_info("provider-allowlist %s accepted",
		    monitor_conf->provider_allowlist);
	else
		log_warnx("provider-allowlist %s refused: %s",
		    monitor_conf->provider_allowlist, d.msg);
	audit("allowlist", getuid(), getpid(), "%s: %s",
	    monitor_conf->provider_allowlist, allowlist_ok ? "accepted" :
	    d.msg);
	rechecks_send();
}

/* ---- revocation ------------------------------------------------------- */

static int64_t
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static time_t
mono(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void
revoke_entry(struct ptab_entry *e, const char *fmt, ...)
{
	va_list	 ap;

	if (e->revoked[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(e->revoked, sizeof(e->revoked), fmt, ap);
	va_end(ap);
	if (e->revoked[0] == '\0')
		strlcpy(e->revoked, "revoked", sizeof(e->revoked));
	log_warnx("provider %s (%s) revoked: %s", e->handle, e->p.id,
	    e->revoked);
	audit("provider-revoked", e->uid, getpid(), "%s %s@%s %s: %s",
	    e->handle, e->p.id, e->p.version, e->p.code_digest, e->revoked);
}

/* True while an allowlist or an issued provider awaits its verdict. */
int
provider_rechecking(void)
{
	return allowlist_pending > 0 || rechecks > 0;
}

/* fn(arg) now if nothing awaits a verdict, else once nothing does. */
void
provider_when_rechecked(void (*fn)(void *), void *arg)
{
	struct waiter	*w;

	if (!provider_rechecking()) {
		fn(arg);
		return;
	}
	w = xcalloc(1, sizeof(*w));
	w->fn = fn;
	w->arg = arg;
	TAILQ_INSERT_TAIL(&waiters, w, entry);
}

static void
rechecks_over(void)
{
	struct waiter	*w;

	while (!provider_rechecking() && (w = TAILQ_FIRST(&waiters)) !=
	    NULL) {
		TAILQ_REMOVE(&waiters, w, entry);
		w->fn(w->arg);
		free(w);
	}
}

/*
 * After the runner accepted an allowlist: every issued provider is judged
 * again by the load's checks (design.md §5), in the runner
 * (IMSG_PR_RECHECK), in order behind the allowlist on its channel.  Runs
 * asked for meanwhile wait (waiters), so nothing asked for after a reload
 * runs code the reload revoked.  A file the runner refused changed
 * nothing: its previous allowlist stays the trust root, and loads are
 * refused until a valid one comes (trust.c).
 */
static void
rechecks_send(void)
{
	struct pr_recheck	 rc;
	struct ptab_entry	*e;

	if (allowlist_pending > 0)
		return;		/* a later verdict supersedes this one */
	TAILQ_FOREACH(e, ptab_all(), entry) {
		if (e->revoked[0] != '\0' || !allowlist_ok)
			continue;
		memset(&rc, 0, sizeof(rc));
		strlcpy(rc.handle, e->handle, sizeof(rc.handle));
		rc.now_ms = now_ms();
		strlcpy(rc.bundle_id, e->p.bundle_id, sizeof(rc.bundle_id));
		strlcpy(rc.id, e->p.id, sizeof(rc.id));
		strlcpy(rc.code_digest, e->p.code_digest,
		    sizeof(rc.code_digest));
		strlcpy(rc.reviewer, e->p.reviewer, sizeof(rc.reviewer));
		strlcpy(rc.reviewed_at, e->p.reviewed_at,
		    sizeof(rc.reviewed_at));
		strlcpy(rc.review_digest, e->p.review_digest,
		    sizeof(rc.review_digest));
		if (imsg_compose(&runner()->ibuf, IMSG_PR_RECHECK, 0, 0, -1,
		    &rc, sizeof(rc)) == -1)
			fatal("%s: compose", __func__);
		rechecks++;
	}
	if (rechecks > 0)
		proc_event_add(runner());
	rechecks_over();
}

void
provider_rechecked(struct role *r, struct imsg *imsg)
{
	struct pr_recheck	 rc;
	struct ptab_entry	*e;

	(void)r;
	if (imsg_get_data(imsg, &rc, sizeof(rc)) == -1 || rechecks == 0)
		fatalx("runner: recheck answer out of protocol");
	rc.handle[sizeof(rc.handle) - 1] = '\0';
	rc.msg[sizeof(rc.msg) - 1] = '\0';
	rechecks--;
	/* Unloaded or expired meanwhile: nothing left to revoke. */
	if ((e = ptab_find(rc.handle, 0)) != NULL && rc.code != 0)
		revoke_entry(e, "%s: %s", prov_code_name(rc.code), rc.msg);
	rechecks_over();
}

static void
expired(const struct ptab_entry *e)
{
	audit("provider-expired", e->uid, getpid(), "%s %s@%s: unused for "
	    "provider-idle-timeout %u s", e->handle, e->p.id, e->p.version,
	    monitor_conf->provider_idle_timeout);
}

/* provider-idle-timeout: checked whenever the registry is used. */
static void
sweep(void)
{
	(void)ptab_expire(mono(), monitor_conf->provider_idle_timeout,
	    expired);
}

/* ---- jobs ------------------------------------------------------------ */

static void
job_release(struct rjob *r)
{
	struct job	*j = (struct job *)r;

	size_t		 i;

	if (j->recfd != -1)
		close(j->recfd);
	if (j->outfd != -1)
		close(j->outfd);
	if (j->prov != NULL)
		ptab_unref(j->prov);
	free(j->blob);
	for (i = 0; i < j->npend; i++)
		free(j->pend[i].blob);
	free(j->pend);
	free(j);
}

static struct job *
job_new(enum rjob_kind kind, struct ctl_conn *c, uint32_t reqid, uid_t uid,
    pid_t peerpid)
{
	struct job	*j;

	j = xcalloc(1, sizeof(*j));
	j->recfd = -1;
	j->outfd = -1;
	rjob_add(&j->r, kind, c, reqid, uid, peerpid, job_release);
	return j;
}

static struct job *
job_find(uint32_t id, enum rjob_kind kind)
{
	return (struct job *)rjob_find(id, RJOB_MASK(kind));
}

/* ---- agent requests --------------------------------------------------- */

static int
enabled(struct ctl_conn *c, uint32_t id, const cJSON *req)
{
	const cJSON	*opt;
	char		 why[256];

	opt = cJSON_GetObjectItemCaseSensitive(req, "allowBundleProviders");
	/* Both halves of the opt-in (seed P5): the operator's and the
	 * request's.  Nothing else enables anything. */
	if (!monitor_conf->bundle_providers) {
		reply_error(c, id, 0, SBX_E_DISABLED, "bundle providers are "
		    "disabled: sbx.conf does not say bundle-providers yes");
		return 0;
	}
	if (req != NULL && !cJSON_IsTrue(opt)) {
		reply_error(c, id, 0, SBX_E_DISABLED, "bundle providers are "
		    "disabled: the request does not set allowBundleProviders");
		return 0;
	}
	if (!runtime_ok(why, sizeof(why))) {
		reply_error(c, id, 0, "sandbox-unavailable", "%s", why);
		return 0;
	}
	if (!selftest_ok(why, sizeof(why))) {
		reply_error(c, id, 0, "sandbox-unavailable", "%s", why);
		return 0;
	}
	return 1;
}

void
provider_load(struct ctl_conn *c, uint32_t id, uid_t uid, pid_t pid,
    const cJSON *req, int fd)
{
	struct pr_load	 pl;
	struct stat	 st;
	struct job	*j;

	if (!enabled(c, id, req)) {
		close(fd);
		return;
	}
	if (!allowlist_ok) {
		close(fd);
		reply_error(c, id, 0, "invalid-allowlist", "the operator's "
		    "provider-allowlist is not usable: %s", allowlist_why);
		return;
	}
	if (fstat(fd, &st) == -1 || !S_ISDIR(st.st_mode)) {
		close(fd);
		reply_error(c, id, 0, "path-escape", "the bundle descriptor "
		    "is not a directory");
		return;
	}
	sweep();
	j = job_new(RJOB_LOAD, c, id, uid, pid);
	memset(&pl, 0, sizeof(pl));
	pl.now_ms = now_ms();
	pl.timeout_ms = monitor_conf->provider_timeout;
	pl.max_output = (uint32_t)monitor_conf->provider_max_output;
	if (imsg_compose(&runner()->ibuf, IMSG_PR_LOAD, j->r.id, 0, fd, &pl,
	    sizeof(pl)) == -1)
		fatal("%s: compose", __func__);
	j->r.sent = 1;
	proc_event_add(runner());
	audit("provider-load", uid, pid, "job %u", j->r.id);
}

/*
 * The provider issued to uid (root: to anyone, as with handles) for a
 * binding pin: exactly its identity if one was issued (PR_GATES_EXACT,
 * with its blob), else the first with its id (PR_GATES_OTHER: its
 * identity only, so resolution can say what differs), else
 * PR_GATES_NONE.  Only what the monitor issued can be named here; an
 * agent's files never become code.
 */
uint32_t
provider_lookup(uid_t uid, const struct pr_gates_lookup *l,
    struct pr_provider *out, const uint8_t **blob, size_t *bloblen,
    char *revoked, size_t revokedlen)
{
	struct ptab_entry	*p, *other = NULL, *gone = NULL;

	*blob = NULL;
	*bloblen = 0;
	revoked[0] = '\0';
	sweep();
	TAILQ_FOREACH(p, ptab_all(), entry) {
		if ((p->uid != uid && uid != 0) || strcmp(p->p.id, l->id) != 0)
			continue;
		if (strcmp(p->p.version, l->version) == 0 &&
		    strcmp(p->p.code_digest, l->code_digest) == 0 &&
		    strcmp(p->p.source_digest, l->source_digest) == 0) {
			/* Never re-run revoked code; say why, once no
			 * usable one was issued either. */
			if (p->revoked[0] != '\0') {
				if (gone == NULL)
					gone = p;
				continue;
			}
			p->used = mono();
			*out = p->p;
			*blob = p->blob;
			*bloblen = p->bloblen;
			return PR_GATES_EXACT;
		}
		if (other == NULL)
			other = p;
	}
	if (gone != NULL)
		snprintf(revoked, revokedlen, "provider %s (%s) was revoked: "
		    "%s", gone->handle, gone->p.id, gone->revoked);
	if (other == NULL || gone != NULL)
		return PR_GATES_NONE;
	*out = other->p;
	out->blob_len = 0;
	return PR_GATES_OTHER;
}

static cJSON *
issued_json(const struct ptab_entry *p, int metrics)
{
	cJSON	*o, *m;

	if ((o = cJSON_CreateObject()) == NULL)
		fatalx("out of memory");
	cJSON_AddStringToObject(o, "provider", p->handle);
	cJSON_AddStringToObject(o, "bundleId", p->p.bundle_id);
	cJSON_AddStringToObject(o, "id", p->p.id);
	cJSON_AddStringToObject(o, "version", p->p.version);
	cJSON_AddStringToObject(o, "codeDigest", p->p.code_digest);
	cJSON_AddStringToObject(o, "sourceDigest", p->p.source_digest);
	cJSON_AddNumberToObject(o, "owner", p->uid);
	if (p->revoked[0] != '\0')
		cJSON_AddStringToObject(o, "revoked", p->revoked);
	/* The runner produced canonical JSON; cJSON re-reads it only to
	 * embed it, and a failure is reported, not guessed around. */
	if (metrics) {
		if ((m = cJSON_Parse(p->p.metrics)) == NULL)
			cJSON_AddStringToObject(o, "metricsError",
			    "unreadable");
		else
			cJSON_AddItemToObject(o, "metrics", m);
	}
	return o;
}

void
provider_list(struct ctl_conn *c, uint32_t id, uid_t uid)
{
	struct ptab_entry	*p;
	cJSON			*o, *arr;

	sweep();
	if ((o = cJSON_CreateObject()) == NULL ||
	    (arr = cJSON_AddArrayToObject(o, "providers")) == NULL)
		fatalx("out of memory");
	TAILQ_FOREACH(p, ptab_all(), entry)
		if (p->uid == uid || uid == 0)
			cJSON_AddItemToArray(arr, issued_json(p, 0));
	reply_send(c, SBX_MSG_PROVIDER_LIST, id, o);
}

void
provider_inspect(struct ctl_conn *c, uint32_t id, uid_t uid,
    const char *handle)
{
	struct ptab_entry	*p;

	sweep();
	if ((p = ptab_find(handle, uid)) == NULL) {
		reply_error(c, id, 0, SBX_E_UNREGISTERED, "no provider "
		    "\"%.64s\" was issued to you", handle);
		return;
	}
	p->used = mono();
	reply_send(c, SBX_MSG_PROVIDER_INSPECT, id, issued_json(p, 1));
}

/*
 * The owner's or root's; anyone else hears what an unknown handle gets,
 * so a handle cannot be probed.  A run already using it finishes (its
 * bytes stay until then); nothing can start with it any more.
 */
void
provider_unload(struct ctl_conn *c, uint32_t id, uid_t uid, pid_t pid,
    const char *handle)
{
	struct ptab_entry	*p;
	cJSON			*o;

	sweep();
	if ((p = ptab_find(handle, uid)) == NULL) {
		reply_error(c, id, 0, SBX_E_UNREGISTERED, "no provider "
		    "\"%.64s\" was issued to you", handle);
		return;
	}
	audit("provider-unload", uid, pid, "%s %s@%s (owner uid %u)",
	    p->handle, p->p.id, p->p.version, (unsigned)p->uid);
	if ((o = cJSON_CreateObject()) == NULL)
		fatalx("out of memory");
	cJSON_AddStringToObject(o, "provider", p->handle);
	cJSON_AddBoolToObject(o, "unloaded", 1);
	ptab_remove(p);
	reply_send(c, SBX_MSG_PROVIDER_UNLOAD, id, o);
}

static void
invoke_send(struct job *j)
{
	struct pr_job	 pj;
	size_t		 off, n;
	int		 outfd = j->outfd;

	memset(&pj, 0, sizeof(pj));
	pj.job = j->r.id;
	if (imsg_compose(&runner()->ibuf, IMSG_PR_OUTPUT, j->r.id, 0, outfd,
	    &pj, sizeof(pj)) == -1)
		fatal("%s: compose", __func__);
	j->outfd = -1;
	/* Exactly the bytes issued; the runner re-digests them. */
	for (off = 0; off < j->prov->bloblen; off += n) {
		n = j->prov->bloblen - off;
		if (n > PR_CHUNK)
			n = PR_CHUNK;
		if (imsg_compose(&runner()->ibuf, IMSG_PR_BLOB, j->r.id, 0, -1,
		    j->prov->blob + off, n) == -1)
			fatal("%s: compose", __func__);
	}
	if (imsg_compose(&runner()->ibuf, IMSG_PR_INVOKE, j->r.id, 0, j->recfd,
	    &j->inv, sizeof(j->inv)) == -1)
		fatal("%s: compose", __func__);
	j->recfd = -1;
	j->r.sent = 1;
	rjob_fds_sent(&j->r);
	proc_event_add(runner());
}

/*
 * An invoke whose descriptors are all here, once no verdict is pending:
 * gone if its agent went away meanwhile (rjob.c freed it), refused if a
 * reload revoked its provider, else sent.  The check is here, before
 * the runner has anything, so no sandbox -- pooled or cold -- is ever
 * handed revoked code.
 */
static void
invoke_go(void *arg)
{
	struct job	*j;

	if ((j = (struct job *)rjob_find((uint32_t)(uintptr_t)arg,
	    RJOB_MASK(RJOB_INVOKE))) == NULL || j->r.sent)
		return;
	if (j->prov->revoked[0] != '\0' || j->prov->gone) {
		audit("provider-invoke", j->r.uid, j->r.peerpid, "job %u: "
		    "%s: %s", j->r.id, j->prov->gone ? "unregistered" :
		    "revoked", j->prov->gone ? "unloaded" : j->prov->revoked);
		if (j->r.conn != NULL) {
			if (j->prov->gone)
				reply_error(j->r.conn, j->r.reqid, 0,
				    SBX_E_UNREGISTERED, "provider %s was "
				    "unloaded", j->prov->handle);
			else
				reply_error(j->r.conn, j->r.reqid, 0,
				    SBX_E_REVOKED, "provider %s (%s) was "
				    "revoked: %s", j->prov->handle,
				    j->prov->p.id, j->prov->revoked);
		}
		rjob_free(&j->r);
		return;
	}
	invoke_send(j);
}

void
provider_invoke(struct ctl_conn *c, uint32_t id, uid_t uid, pid_t pid,
    const cJSON *req, int fd)
{
	const cJSON		*h, *clk, *tmo, *mr, *mo;
	struct ptab_entry	*p;
	struct job		*j;
	int			 fl;

	h = cJSON_GetObjectItemCaseSensitive(req, "provider");
	clk = cJSON_GetObjectItemCaseSensitive(req, "clockMs");
	tmo = cJSON_GetObjectItemCaseSensitive(req, "timeoutMs");
	mr = cJSON_GetObjectItemCaseSensitive(req, "maxRecords");
	mo = cJSON_GetObjectItemCaseSensitive(req, "maxOutputBytes");
	if (!enabled(c, id, NULL)) {
		close(fd);
		return;
	}
	/* As for the output descriptor: the runner's fatal, not ours. */
	if ((fl = fcntl(fd, F_GETFL)) == -1 || (fl & O_ACCMODE) == O_WRONLY) {
		close(fd);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "invoke: the records "
		    "descriptor is not readable");
		return;
	}
	sweep();
	if ((p = ptab_find(h->valuestring, uid)) == NULL) {
		close(fd);
		reply_error(c, id, 0, SBX_E_UNREGISTERED, "no provider "
		    "\"%.64s\" was issued to you", h->valuestring);
		return;
	}
	if (p->revoked[0] != '\0') {
		close(fd);
		reply_error(c, id, 0, SBX_E_REVOKED, "provider %s (%s) was "
		    "revoked: %s", p->handle, p->p.id, p->revoked);
		return;
	}
	/* The operator's limits are ceilings an agent may only lower. */
	if (clk->valuedouble < 0 || clk->valuedouble > 8.64e15 ||
	    (tmo != NULL && (tmo->valuedouble < 1 ||
	    tmo->valuedouble > monitor_conf->provider_timeout)) ||
	    (mr != NULL && (mr->valuedouble < 0 ||
	    mr->valuedouble > monitor_conf->provider_max_records)) ||
	    (mo != NULL && (mo->valuedouble < 1 ||
	    mo->valuedouble > monitor_conf->provider_max_output))) {
		close(fd);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "invoke: clockMs "
		    "must be an epoch time in ms; timeoutMs, maxRecords and "
		    "maxOutputBytes at most sbx.conf's provider-timeout %u, "
		    "provider-max-records %u, provider-max-output %llu",
		    monitor_conf->provider_timeout,
		    monitor_conf->provider_max_records,
		    (unsigned long long)monitor_conf->provider_max_output);
		return;
	}
	j = job_new(RJOB_INVOKE, c, id, uid, pid);
	j->prov = p;
	ptab_ref(p);
	p->used = mono();
	j->recfd = fd;
	rjob_fd_hold(&j->r);
	j->inv.blob_len = (uint32_t)p->bloblen;
	strlcpy(j->inv.id, p->p.id, sizeof(j->inv.id));
	strlcpy(j->inv.version, p->p.version, sizeof(j->inv.version));
	strlcpy(j->inv.code_digest, p->p.code_digest,
	    sizeof(j->inv.code_digest));
	strlcpy(j->inv.source_digest, p->p.source_digest,
	    sizeof(j->inv.source_digest));
	j->inv.clock_ms = (int64_t)clk->valuedouble;
	j->inv.timeout_ms = tmo != NULL ? (uint32_t)tmo->valuedouble :
	    monitor_conf->provider_timeout;
	j->inv.max_records = mr != NULL ? (uint32_t)mr->valuedouble :
	    monitor_conf->provider_max_records;
	j->inv.max_output = mo != NULL ? (uint32_t)mo->valuedouble :
	    (uint32_t)monitor_conf->provider_max_output;
	audit("provider-invoke", uid, pid, "job %u: %s %s", j->r.id, p->p.id,
	    p->p.code_digest);
	/* The output descriptor follows (SBX_MSG_PROVIDER_OUTPUT). */
}

void
provider_output(struct ctl_conn *c, uint32_t id, int fd)
{
	struct job	*j;
	int		 fl;

	j = (struct job *)rjob_waiting(c, id, RJOB_MASK(RJOB_INVOKE));
	if (j == NULL) {
		close(fd);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "output: no invoke "
		    "%u is waiting for its output descriptor", id);
		return;
	}
	/* The runner ends itself (and the service) on a result descriptor
	 * it cannot write: an agent must not be able to cause that. */
	if ((fl = fcntl(fd, F_GETFL)) == -1 || (fl & O_ACCMODE) == O_RDONLY) {
		close(fd);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "output: the "
		    "descriptor is not writable");
		return;
	}
	j->outfd = fd;
	/* After a reload, the verdicts on the issued providers first. */
	provider_when_rechecked(invoke_go, (void *)(uintptr_t)j->r.id);
}

/* ---- the runner's messages ------------------------------------------- */

void
provider_blob(struct role *r, struct imsg *imsg)
{
	struct job	*j;
	size_t		 len = imsg_get_len(imsg);

	(void)r;
	if ((j = job_find(imsg_get_id(imsg), RJOB_LOAD)) == NULL ||
	    len == 0 || len > PR_CHUNK || j->bloblen + len > PR_BLOB_MAX)
		fatalx("runner: blob chunk for job %u out of protocol",
		    imsg_get_id(imsg));
	j->blob = xrecallocarray(j->blob, j->bloblen, j->bloblen + len, 1);
	memcpy(j->blob + j->bloblen, imsg->data, len);
	j->bloblen += len;
}

void
provider_issued(struct role *r, struct imsg *imsg)
{
	struct pend	*p;
	struct job	*j;

	(void)r;
	if ((j = job_find(imsg_get_id(imsg), RJOB_LOAD)) == NULL ||
	    j->npend >= PROV_MAX_PROVIDERS)
		fatalx("runner: provider for job %u out of protocol",
		    imsg_get_id(imsg));
	j->pend = xrecallocarray(j->pend, j->npend, j->npend + 1,
	    sizeof(*j->pend));
	p = &j->pend[j->npend];
	if (imsg_get_data(imsg, &p->p, sizeof(p->p)) == -1)
		fatalx("%s: bad size", __func__);
	if (p->p.blob_len != j->bloblen || j->bloblen == 0)
		fatalx("runner: provider blob of %zu bytes, announced %u",
		    j->bloblen, p->p.blob_len);
#define TERM(f)	(f)[sizeof(f) - 1] = '\0'
	TERM(p->p.bundle_id);
	TERM(p->p.id);
	TERM(p->p.version);
	TERM(p->p.code_digest);
	TERM(p->p.source_digest);
	TERM(p->p.metrics);
	TERM(p->p.reviewer);
	TERM(p->p.reviewed_at);
	TERM(p->p.review_digest);
#undef TERM
	p->blob = j->blob;
	p->bloblen = j->bloblen;
	j->blob = NULL;
	j->bloblen = 0;
	j->npend++;
}

/*
 * A load the runner passed: its providers enter the registry all or
 * none (a refused load registers nothing).  One the agent already holds
 * with the same snapshot gets its handle back; the new ones must fit the
 * agent's quota and the registry's, else the load is refused "limit",
 * naming the quota.  NULL: refused, why says so.
 */
static cJSON *
load_register(struct job *j, char *why, size_t len)
{
	struct ptab_entry	*e;
	struct pend		*p;
	cJSON			*arr;
	size_t			 i, k, fresh = 0;
	int			 dup;

	for (i = 0; i < j->npend; i++) {
		dup = ptab_same(j->r.uid, &j->pend[i].p) != NULL;
		/* The same entry twice in one manifest is the runner's
		 * "duplicate"; count it once all the same. */
		for (k = 0; k < i && !dup; k++)
			dup = strcmp(j->pend[k].p.id, j->pend[i].p.id) == 0 &&
			    strcmp(j->pend[k].p.code_digest,
			    j->pend[i].p.code_digest) == 0;
		if (!dup)
			fresh++;
	}
	if (ptab_admit(j->r.uid, fresh, monitor_conf->providers_per_peer,
	    monitor_conf->max_providers, why, len) == -1)
		return NULL;
	if ((arr = cJSON_CreateArray()) == NULL)
		fatalx("out of memory");
	for (i = 0; i < j->npend; i++) {
		p = &j->pend[i];
		if ((e = ptab_same(j->r.uid, &p->p)) != NULL) {
			e->used = mono();
			audit("provider-issued", j->r.uid, j->r.peerpid,
			    "%s %s@%s %s (already held)", e->handle, e->p.id,
			    e->p.version, e->p.code_digest);
		} else {
			e = ptab_add(j->r.uid, &p->p, p->blob, p->bloblen,
			    mono());
			p->blob = NULL;
			audit("provider-issued", j->r.uid, j->r.peerpid,
			    "%s %s@%s %s", e->handle, e->p.id, e->p.version,
			    e->p.code_digest);
		}
		cJSON_AddItemToArray(arr, issued_json(e, 1));
	}
	return arr;
}

void
provider_done(struct role *r, struct imsg *imsg)
{
	struct pr_done	 d;
	struct job	*j;
	cJSON		*o, *arr = NULL;
	char		 why[PR_MSG_MAX];

	(void)r;
	if (imsg_get_data(imsg, &d, sizeof(d)) == -1)
		fatalx("%s: bad size", __func__);
	d.msg[sizeof(d.msg) - 1] = '\0';
	j = (struct job *)rjob_find(imsg_get_id(imsg), RJOB_MASK(RJOB_LOAD) |
	    RJOB_MASK(RJOB_INVOKE));
	if (j == NULL || !j->r.sent)
		fatalx("runner: done for job %u out of protocol",
		    imsg_get_id(imsg));
	why[0] = '\0';
	if (j->r.kind == RJOB_LOAD && d.code == 0 &&
	    (arr = load_register(j, why, sizeof(why))) == NULL) {
		audit("provider-load", j->r.uid, j->r.peerpid, "job %u: %s: "
		    "%s", j->r.id, SBX_E_LIMIT, why);
		log_warnx("provider load job %u (uid %u) refused: %s", j->r.id,
		    (unsigned)j->r.uid, why);
	} else
		audit(j->r.kind == RJOB_LOAD ? "provider-load" :
		    "provider-invoke", j->r.uid, j->r.peerpid, "job %u: %s%s%s",
		    j->r.id, d.code == 0 ? "ok" : prov_code_name(d.code),
		    d.code ? ": " : "", d.msg);
	if (j->r.conn == NULL)
		cJSON_Delete(arr);
	else {
		if (why[0] != '\0')
			reply_error(j->r.conn, j->r.reqid, 0, SBX_E_LIMIT,
			    "provider load: %s", why);
		else if (d.code != 0 && sbx_limit_name(d.limit) != NULL)
			reply_error_limit(j->r.conn, j->r.reqid,
			    prov_code_name(d.code), sbx_limit_name(d.limit),
			    "%s", d.msg);
		else if (d.code != 0)
			reply_error(j->r.conn, j->r.reqid, 0,
			    prov_code_name(d.code), "%s", d.msg);
		else {
			if ((o = cJSON_CreateObject()) == NULL)
				fatalx("out of memory");
			if (j->r.kind == RJOB_LOAD)
				cJSON_AddItemToObject(o, "providers", arr);
			reply_send(j->r.conn, j->r.kind == RJOB_LOAD ?
			    SBX_MSG_PROVIDER_LOAD : SBX_MSG_PROVIDER_INVOKE,
			    j->r.reqid, o);
		}
	}
	rjob_free(&j->r);
}

/*
 * The runner asks for a provider sandbox.  It supplies the pipe ends;
 * everything else is the monitor's launch plan (runtime.c).
 */
void
provider_spawn_stdout(struct role *r, struct imsg *imsg)
{
	struct pr_spawn	 ps;
	int		 fd;

	(void)r;
	if (imsg_get_data(imsg, &ps, sizeof(ps)) == -1 ||
	    (fd = imsg_get_fd(imsg)) == -1 || spawn_stdout != -1)
		fatalx("runner: spawn stdout out of protocol");
	spawn_stdout = fd;
	spawn_tag = ps.tag;
}

void
provider_spawn(struct role *r, struct imsg *imsg)
{
	static uint8_t	 spec[SBX_SPEC_WIRE_MAX];
	struct pr_spawn	 ps;
	char		 err[SBX_SPEC_ERRLEN];
	size_t		 len;
	uint32_t	 timeout_ms;
	int		 fd, pooled, reserved;

	(void)r;
	if (imsg_get_data(imsg, &ps, sizeof(ps)) == -1 ||
	    (fd = imsg_get_fd(imsg)) == -1 || spawn_stdout == -1 ||
	    ps.tag != spawn_tag ||
	    (ps.flags & ~(PR_SPAWN_POOLED | PR_SPAWN_RESERVED)) != 0 ||
	    ps.flags == PR_SPAWN_RESERVED)
		fatalx("runner: spawn out of protocol");
	pooled = (ps.flags & PR_SPAWN_POOLED) != 0;
	reserved = (ps.flags & PR_SPAWN_RESERVED) != 0;
	/*
	 * A pooled sandbox idles until a run takes it (IMSG_PR_ARM).  A
	 * run's timeout was checked against provider-timeout when its
	 * request came; a reload may have lowered it since, so only the
	 * bound sbx.conf accepts is a protocol violation here.
	 */
	if (pooled ? ps.timeout_ms != 0 : (ps.timeout_ms == 0 ||
	    ps.timeout_ms > PR_TIMEOUT_MAX + 1000))
		fatalx("runner: spawn with timeout %u ms out of protocol",
		    ps.timeout_ms);
	timeout_ms = pooled ? PR_POOL_IDLE_MS : ps.timeout_ms;
	/* Nothing is booted ahead while sandboxes are unavailable. */
	err[0] = '\0';
	if (pooled && !reserved && provider_pool_size() == 0)
		strlcpy(err, "provider-pool is 0", sizeof(err));
	else if (pooled)
		(void)selftest_ok(err, sizeof(err));
	/* Only the pool's sandboxes wait long enough to warm up; one
	 * reserved for a job gets its request within milliseconds. */
	if (err[0] != '\0' || runtime_spec(timeout_ms, pooled && !reserved,
	    spec, sizeof(spec), &len, err, sizeof(err)) == -1) {
		close(fd);
		close(spawn_stdout);
		spawn_stdout = -1;
		msb_runner_refused(ps.tag, err);
		return;
	}
	msb_new_runner(ps.tag, spec, len, fd, spawn_stdout, ps.flags);
	spawn_stdout = -1;
}

/* The runner took a pooled sandbox: its run's deadline starts now. */
void
provider_arm(struct role *r, struct imsg *imsg)
{
	struct pr_arm	 pa;

	(void)r;
	if (imsg_get_data(imsg, &pa, sizeof(pa)) == -1 ||
	    pa.timeout_ms == 0 || pa.timeout_ms > PR_TIMEOUT_MAX + 1000 ||
	    msb_arm(pa.tag, pa.timeout_ms) == -1)
		fatalx("runner: arm of sandbox %u out of protocol", pa.tag);
}

/*
 * How many provider sandboxes to keep booted: the configured pool, but
 * only while provider runs can happen at all.
 */
uint32_t
provider_pool_size(void)
{
	char	 why[PR_MSG_MAX];

	if (!monitor_conf->bundle_providers || !runtime_ok(why, sizeof(why)))
		return 0;
	return monitor_conf->provider_pool;
}

void
provider_pool_send(void)
{
	struct pr_pool	 pp;

	memset(&pp, 0, sizeof(pp));
	pp.size = provider_pool_size();
	if (imsg_compose(&runner()->ibuf, IMSG_PR_POOL, 0, 0, -1, &pp,
	    sizeof(pp)) == -1)
		fatal("%s: compose", __func__);
	proc_event_add(runner());
}
