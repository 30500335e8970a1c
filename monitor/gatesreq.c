/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * gatesreq.c: GATES_EVALUATE -- every "sbxctl gates evaluate", with isolated
 * re-runs of the bundle providers a binding pins (interop.md §P7;
 * sbx-protocol(7)).
 *
 * Gate documents are untrusted and are parsed only in the provider
 * runner (design.md §1, §5): the monitor routes.  The agent's request names
 * its documents; their descriptors follow as GATES_DOC messages in a
 * fixed order (or, for one the agent could not open, the errno), and
 * once all are here the monitor relays them, plus its own descriptors of
 * sbx.conf's gate-packs directory and of the gates configuration (the
 * provider-allowlist file, whose floors bind every evaluation whether or
 * not bundle providers are on), to the runner as one job, with the
 * result pipe the request carried.  What the monitor
 * decides is what it holds: which provider it issued to this agent for
 * each pin the runner asks about (LOOKUP), by exact identity, with the
 * bytes it issued -- never a provider it did not issue -- and how many
 * re-runs may go at once.  Every re-run is an audit line.
 *
 * GATES_VERIFY ("sbxctl gates verify") is the same job with the report's
 * descriptor first and no clock of the agent's: the runner re-derives
 * the report from the same documents, the operator's packs and floors,
 * and the providers this agent was issued, at the report's evaluatedAt.
 */
#include <sys/types.h>
#include <sys/queue.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "proto.h"
#include "libsbx/sbx.h"
#include "monitor.h"
#include "provider/provider.h"

#define GATES_PARALLEL_MAX	8	/* re-runs at once, per evaluation */
#define GATES_PACK_DIRS_MAX	64

struct gdoc {
	struct pr_gates_doc	 d;
	int			 fd;
};

/* An evaluation or a verification; r first (rjob.c's table holds it). */
struct gjob {
	struct rjob		 r;
	int			 outfd;
	struct gdoc		 docs[PR_GATES_DOCS_MAX];
	size_t			 ndocs;		/* announced */
	size_t			 have;		/* descriptors so far */
	struct pr_gates_eval	 ev;
	int			 verify;
	char			 revoked[PR_MSG_MAX];	/* a pin's: why */
};

/* A lookup waiting for the verdicts of a reload (provreg.c). */
struct plookup {
	uint32_t		 job;
	struct pr_gates_lookup	 l;
};

static struct role *
runner(void)
{
	return &roles[ROLE_PROVIDER_RUNNER];
}

static void
gjob_release(struct rjob *r)
{
	struct gjob	*j = (struct gjob *)r;
	size_t		 i;

	for (i = 0; i < j->ndocs; i++)
		if (j->docs[i].fd != -1)
			close(j->docs[i].fd);
	if (j->outfd != -1)
		close(j->outfd);
	free(j);
}

static struct gjob *
gjob_find(uint32_t id)
{
	return (struct gjob *)rjob_find(id, RJOB_MASK(RJOB_GATES));
}

/* A name from the request: a string that fits, no NUL inside. */
static int
add_doc(struct gjob *j, uint32_t kind, const cJSON *name, const char *id)
{
	struct gdoc	*g;

	/* Two slots stay for the operator's packs and configuration. */
	if (!cJSON_IsString(name) || j->ndocs + 2 >= PR_GATES_DOCS_MAX ||
	    name->valuestring[0] == '\0' ||
	    strlen(name->valuestring) >= sizeof(g->d.name) ||
	    (id != NULL && strlen(id) >= sizeof(g->d.id)))
		return -1;
	g = &j->docs[j->ndocs++];
	memset(g, 0, sizeof(*g));
	g->d.kind = kind;
	strlcpy(g->d.name, name->valuestring, sizeof(g->d.name));
	if (id != NULL)
		strlcpy(g->d.id, id, sizeof(g->d.id));
	g->fd = -1;
	return 0;
}

static int
records_twice(const struct gjob *j)
{
	const struct gdoc	*last = &j->docs[j->ndocs - 1];
	size_t			 i;

	for (i = 0; i + 1 < j->ndocs; i++)
		if (j->docs[i].d.kind == PR_GATES_RECORDS &&
		    strcmp(j->docs[i].d.id, last->d.id) == 0)
			return 1;
	return 0;
}

/* The descriptors the agent is to send, in their order. */
static int
plan_docs(struct gjob *j, const cJSON *req, char *why, size_t whylen)
{
	const cJSON	*v, *e, *p, *f;

	if (j->verify && add_doc(j, PR_GATES_REPORT,
	    cJSON_GetObjectItemCaseSensitive(req, "report"), NULL) == -1) {
		snprintf(why, whylen, "report names a file (1 to %d bytes)",
		    PR_GATES_NAME_MAX - 1);
		return -1;
	}
	if (add_doc(j, PR_GATES_BINDING, cJSON_GetObjectItemCaseSensitive(req,
	    "binding"), NULL) == -1 ||
	    add_doc(j, PR_GATES_METRICS, cJSON_GetObjectItemCaseSensitive(req,
	    "metrics"), NULL) == -1 ||
	    add_doc(j, PR_GATES_HOLDOUT, cJSON_GetObjectItemCaseSensitive(req,
	    "holdout"), NULL) == -1) {
		snprintf(why, whylen, "binding, metrics and holdout name "
		    "files (1 to %d bytes)", PR_GATES_NAME_MAX - 1);
		return -1;
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(req, "upstream")) != NULL &&
	    add_doc(j, PR_GATES_UPSTREAM, v, NULL) == -1) {
		snprintf(why, whylen, "upstream names a file");
		return -1;
	}
	v = cJSON_GetObjectItemCaseSensitive(req, "packDirs");
	if (cJSON_GetArraySize(v) > GATES_PACK_DIRS_MAX) {
		snprintf(why, whylen, "at most %d packDirs",
		    GATES_PACK_DIRS_MAX);
		return -1;
	}
	cJSON_ArrayForEach(e, v)
		if (add_doc(j, PR_GATES_PACKDIR, e, NULL) == -1) {
			snprintf(why, whylen, "packDirs lists paths");
			return -1;
		}
	v = cJSON_GetObjectItemCaseSensitive(req, "records");
	if (cJSON_GetArraySize(v) > PR_GATES_RECORDS_MAX) {
		snprintf(why, whylen, "at most %d records files",
		    PR_GATES_RECORDS_MAX);
		return -1;
	}
	cJSON_ArrayForEach(e, v) {
		p = cJSON_GetObjectItemCaseSensitive(e, "provider");
		f = cJSON_GetObjectItemCaseSensitive(e, "file");
		if (!cJSON_IsObject(e) || cJSON_GetArraySize(e) != 2 ||
		    !cJSON_IsString(p) || p->valuestring[0] == '\0' ||
		    add_doc(j, PR_GATES_RECORDS, f, p->valuestring) == -1) {
			snprintf(why, whylen, "records lists {provider, file} "
			    "objects (provider id below %d bytes)", PR_ID_MAX);
			return -1;
		}
		/* One records file per pin: which one a re-run read must
		 * never depend on the order they came in. */
		if (records_twice(j)) {
			snprintf(why, whylen, "records names provider %.64s "
			    "twice", p->valuestring);
			return -1;
		}
	}
	return 0;
}

/* Re-runs at once: what max-sandboxes leaves beside the pool. */
static uint32_t
parallel(void)
{
	uint32_t	 pool = provider_pool_size(), n;

	n = monitor_conf->max_sandboxes > pool ?
	    monitor_conf->max_sandboxes - pool : 1;
	return n > GATES_PARALLEL_MAX ? GATES_PARALLEL_MAX : n;
}

static void
gjob_compose(struct gjob *j, const struct pr_gates_doc *d, int fd)
{
	if (imsg_compose(&runner()->ibuf, IMSG_PR_GATES_DOC, j->r.id, 0, fd, d,
	    sizeof(*d)) == -1)
		fatal("%s: compose", __func__);
}

static void
gjob_send(struct gjob *j)
{
	struct pr_gates_doc	 od;
	size_t			 i, n = j->ndocs;
	int			 fd = -1;

	/* The operator's packs, opened here: the trust root is read by
	 * the monitor's own path, never handed in by an agent. */
	if (monitor_conf->gate_packs != NULL &&
	    (fd = open(monitor_conf->gate_packs, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1) {
		/* Fail closed: the operator's packs may hold floors. */
		reply_error(j->r.conn, j->r.reqid, 0, "gates-input",
		    "gate-packs %s: %s", monitor_conf->gate_packs,
		    strerror(errno));
		rjob_free(&j->r);
		return;
	}
	for (i = 0; i < j->ndocs; i++) {
		gjob_compose(j, &j->docs[i].d, j->docs[i].fd);
		j->docs[i].fd = -1;
	}
	if (fd != -1) {
		memset(&od, 0, sizeof(od));
		od.kind = PR_GATES_OPERATOR;
		strlcpy(od.name, monitor_conf->gate_packs, sizeof(od.name));
		gjob_compose(j, &od, fd);
		n++;
	}
	/* The floors: the runner refuses an unreadable file, and reads a
	 * missing one as the empty configuration, as the reference does. */
	memset(&od, 0, sizeof(od));
	od.kind = PR_GATES_CONFIG;
	strlcpy(od.name, monitor_conf->provider_allowlist, sizeof(od.name));
	if ((fd = open(monitor_conf->provider_allowlist, O_RDONLY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1)
		od.err = errno == 0 ? EIO : errno;
	gjob_compose(j, &od, fd);
	n++;
	j->ev.ndocs = (uint32_t)n;
	if (imsg_compose(&runner()->ibuf, IMSG_PR_GATES_EVAL, j->r.id, 0,
	    j->outfd, &j->ev, sizeof(j->ev)) == -1)
		fatal("%s: compose", __func__);
	j->outfd = -1;
	j->r.sent = 1;
	rjob_fds_sent(&j->r);
	proc_event_add(runner());
}

void
mgates_evaluate(struct ctl_conn *c, uint32_t id, uid_t uid, pid_t pid,
    const cJSON *req, int fd, int verify)
{
	const char	*what = verify ? "gates verify" : "gates evaluate";
	const cJSON	*now, *tr;
	struct gjob	*j;
	char		 why[160];
	int		 fl;

	/* verify: the report's own evaluatedAt, which only the runner
	 * reads; the request has no clock (its schema has no "now"). */
	now = cJSON_GetObjectItemCaseSensitive(req, "now");
	tr = cJSON_GetObjectItemCaseSensitive(req, "trustedBindingDigest");
	/*
	 * No bundle-providers opt-in is needed: without it no provider was
	 * issued, so a pin asking for a re-run is refused by the engine's
	 * own words, and everything else is the reference's offline
	 * evaluation, which sbxctl no longer does in process.
	 */
	/* The runner takes a result descriptor it cannot write as a
	 * protocol violation (the end of the service): refuse it here. */
	if ((fl = fcntl(fd, F_GETFL)) == -1 || (fl & O_ACCMODE) == O_RDONLY) {
		close(fd);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "%s: the result "
		    "descriptor is not writable", what);
		return;
	}
	j = xcalloc(1, sizeof(*j));
	j->outfd = fd;
	j->verify = verify;
	j->ev.verify = verify;
	if ((now != NULL && strlen(now->valuestring) >= sizeof(j->ev.now)) ||
	    strlen(tr->valuestring) >= sizeof(j->ev.trusted)) {
		snprintf(why, sizeof(why), "now and trustedBindingDigest are "
		    "below %d and %d bytes", PR_GATES_NOW_MAX, PR_DIGEST_MAX);
		goto bad;
	}
	if (plan_docs(j, req, why, sizeof(why)) == -1)
		goto bad;
	if (now != NULL)
		strlcpy(j->ev.now, now->valuestring, sizeof(j->ev.now));
	strlcpy(j->ev.trusted, tr->valuestring, sizeof(j->ev.trusted));
	j->ev.timeout_ms = monitor_conf->provider_timeout;
	j->ev.max_records = monitor_conf->provider_max_records;
	j->ev.parallel = parallel();
	rjob_add(&j->r, RJOB_GATES, c, id, uid, pid, gjob_release);
	rjob_fd_hold(&j->r);	/* the result descriptor */
	if (verify)
		audit("gates-verify", uid, pid, "job %u: %zu documents",
		    j->r.id, j->ndocs);
	else
		audit("gates-evaluate", uid, pid, "job %u: now %s, %zu "
		    "documents", j->r.id, j->ev.now, j->ndocs);
	/* The documents' descriptors follow (GATES_DOC). */
	return;
 bad:
	close(fd);
	free(j);
	reply_error(c, id, 0, SBX_E_BAD_REQUEST, "%s: %s", what, why);
}

/* One document: its descriptor, or (fd -1) the errno the agent met. */
void
mgates_doc(struct ctl_conn *c, uint32_t id, int fd, int err)
{
	struct gjob	*j;

	j = (struct gjob *)rjob_waiting(c, id, RJOB_MASK(RJOB_GATES));
	if (j == NULL) {
		close(fd);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "gates doc: no "
		    "evaluation %u is waiting for a document", id);
		return;
	}
	j->docs[j->have].fd = fd;
	j->docs[j->have++].d.err = fd == -1 ? err : 0;
	if (fd != -1)
		rjob_fd_hold(&j->r);
	if (j->have == j->ndocs)
		gjob_send(j);
}

/* ---- the runner's messages ------------------------------------------- */

/*
 * The answer to a lookup, once no reload's verdict is pending: a pin on
 * a revoked provider is answered "not issued" (the runner never gets its
 * bytes) and the evaluation is refused "revoked" with the reason.
 */
static void
lookup_answer(void *arg)
{
	static struct pr_gates_issued	 gi;
	struct plookup			*pl = arg;
	struct pr_gates_lookup		*lp = &pl->l;
	struct gjob			*j;
	const uint8_t			*blob;
	size_t				 bloblen, off, n;
	char				 revoked[PR_MSG_MAX];

	/* A sent job stays until the runner's DONE, which needs this. */
	if ((j = gjob_find(pl->job)) == NULL)
		fatalx("%s: gates job %u vanished", __func__, pl->job);
	memset(&gi, 0, sizeof(gi));
	gi.index = lp->index;
	gi.match = provider_lookup(j->r.uid, lp, &gi.p, &blob, &bloblen,
	    revoked, sizeof(revoked));
	if (revoked[0] != '\0' && j->revoked[0] == '\0')
		strlcpy(j->revoked, revoked, sizeof(j->revoked));
	/* Exactly the bytes issued; the runner re-digests them. */
	for (off = 0; off < bloblen; off += n) {
		n = bloblen - off > PR_CHUNK ? PR_CHUNK : bloblen - off;
		if (imsg_compose(&runner()->ibuf, IMSG_PR_BLOB, j->r.id, 0, -1,
		    blob + off, n) == -1)
			fatal("%s: compose", __func__);
	}
	if (imsg_compose(&runner()->ibuf, IMSG_PR_GATES_ISSUED, j->r.id, 0, -1,
	    &gi, sizeof(gi)) == -1)
		fatal("%s: compose", __func__);
	proc_event_add(runner());
	if (gi.match != PR_GATES_EXACT)
		audit("gates-lookup", j->r.uid, j->r.peerpid,
		    "job %u: %s %s: %s", j->r.id, lp->id, lp->code_digest,
		    revoked[0] != '\0' ? revoked : gi.match == PR_GATES_NONE ?
		    "not issued" : "issued with another identity");
	free(pl);
}

void
mgates_lookup(struct role *r, struct imsg *imsg)
{
	struct plookup	*pl;
	struct gjob	*j;

	(void)r;
	pl = xcalloc(1, sizeof(*pl));
	if (imsg_get_data(imsg, &pl->l, sizeof(pl->l)) == -1 ||
	    (j = gjob_find(imsg_get_id(imsg))) == NULL || !j->r.sent)
		fatalx("runner: gates lookup for job %u out of protocol",
		    imsg_get_id(imsg));
	pl->job = j->r.id;
#define TERM(f)	(f)[sizeof(f) - 1] = '\0'
	TERM(pl->l.id);
	TERM(pl->l.version);
	TERM(pl->l.code_digest);
	TERM(pl->l.source_digest);
#undef TERM
	provider_when_rechecked(lookup_answer, pl);
}

void
mgates_rerun(struct role *r, struct imsg *imsg)
{
	struct pr_gates_rerun	 a;
	struct gjob		*j;

	(void)r;
	if (imsg_get_data(imsg, &a, sizeof(a)) == -1 ||
	    (j = gjob_find(imsg_get_id(imsg))) == NULL || !j->r.sent)
		fatalx("runner: gates re-run for job %u out of protocol",
		    imsg_get_id(imsg));
	a.id[sizeof(a.id) - 1] = '\0';
	a.code_digest[sizeof(a.code_digest) - 1] = '\0';
	a.records_digest[sizeof(a.records_digest) - 1] = '\0';
	a.msg[sizeof(a.msg) - 1] = '\0';
	audit("gates-rerun", j->r.uid, j->r.peerpid, "job %u: provider %s "
	    "codeDigest %s recordsDigest %s %u ms: %s%s%s", j->r.id, a.id,
	    a.code_digest, a.records_digest, a.duration_ms,
	    a.code == 0 ? "ok" : prov_code_name(a.code), a.code ? ": " : "",
	    a.msg);
}

void
mgates_done(struct role *r, struct imsg *imsg)
{
	static const char *const decisions[] = { "PROMOTE", "HOLD",
	    "ROLLBACK" };
	struct pr_gates_done	 d;
	struct gjob		*j;
	cJSON			*o;
	char			 code[48];

	(void)r;
	if (imsg_get_data(imsg, &d, sizeof(d)) == -1 ||
	    (j = gjob_find(imsg_get_id(imsg))) == NULL || !j->r.sent ||
	    (d.status == PR_GATES_OK && d.decision >= nitems(decisions)))
		fatalx("runner: gates done for job %u out of protocol",
		    imsg_get_id(imsg));
	d.kind[sizeof(d.kind) - 1] = '\0';
	d.msg[sizeof(d.msg) - 1] = '\0';
	if (j->verify && d.status == PR_GATES_OK && d.decision > 1)
		fatalx("runner: gates verify job %u: verdict %u", j->r.id,
		    d.decision);
	if (j->verify && d.status == PR_GATES_OK)
		audit("gates-verify", j->r.uid, j->r.peerpid, "job %u: %s",
		    j->r.id, d.decision == 0 ? "valid" : "not valid");
	else if (j->verify)
		audit("gates-verify", j->r.uid, j->r.peerpid, "job %u: refused "
		    "(%s): %s", j->r.id, d.kind, d.msg);
	else if (d.status == PR_GATES_OK)
		audit("gates-evaluate", j->r.uid, j->r.peerpid, "job %u: %s",
		    j->r.id, decisions[d.decision]);
	else
		audit("gates-evaluate", j->r.uid, j->r.peerpid, "job %u: "
		    "refused (%s): %s", j->r.id, d.kind, d.msg);
	if (j->revoked[0] != '\0')
		audit("gates-evaluate", j->r.uid, j->r.peerpid, "job %u: "
		    "refused (revoked): %s", j->r.id, j->revoked);
	if (j->r.conn != NULL) {
		/* The engine saw the pin unissued; the agent hears why. */
		if (j->revoked[0] != '\0')
			reply_error(j->r.conn, j->r.reqid, 0, SBX_E_REVOKED,
			    "%s", j->revoked);
		else if (d.status != PR_GATES_OK) {
			snprintf(code, sizeof(code), "gates-%s", d.kind);
			reply_error(j->r.conn, j->r.reqid, 0, code, "%s",
			    d.msg);
		} else {
			if ((o = cJSON_CreateObject()) == NULL)
				fatalx("out of memory");
			if (j->verify) {
				cJSON_AddBoolToObject(o, "valid",
				    d.decision == 0);
				reply_send(j->r.conn, SBX_MSG_GATES_VERIFY,
				    j->r.reqid, o);
			} else {
				cJSON_AddStringToObject(o, "decision",
				    decisions[d.decision]);
				reply_send(j->r.conn, SBX_MSG_GATES_EVALUATE,
				    j->r.reqid, o);
			}
		}
	}
	rjob_free(&j->r);
}
