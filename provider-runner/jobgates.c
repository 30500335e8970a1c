/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * jobgates.c: IMSG_PR_GATES_* -- "sbxctl gates evaluate" with isolated
 * re-runs of the bundle providers a binding pins (interop.md §P7, step
 * 5; interop.md §G8.1, refusal 20).
 *
 * A job opens with the agent's documents (DOC, one descriptor each) and
 * starts with EVAL (the clock, the trusted binding digest, the limits,
 * the result descriptor).  Then, in order:
 *
 *  1. the binding is read, and for every pin that is not a core provider
 *     the monitor is asked (LOOKUP, one at a time) which provider it
 *     issued to this agent with that id: exactly the pin's identity
 *     (its blob follows), another one, or none.  What was issued becomes
 *     the registry's bundle provider, so resolution refuses a pin the
 *     monitor never issued ("pins unknown provider") or issued with other
 *     code ("provider code pin mismatch") with the reference's words;
 *  2. the registry (shipped packs, the operator's gate-packs, the agent's
 *     pack dirs), the floors (the operator's gates configuration), the
 *     metrics, holdout and upstream, and each records file (parsed,
 *     canonical, digested);
 *  3. the engine's refusals 1 to 19 (a precheck call), so that every
 *     earlier refusal wins over a re-run as in the reference;
 *  4. per pin with a code digest, in pin order: records and an exactly
 *     issued provider, or the reference's "requires an isolated re-run"
 *     refusal; the records' digest equal to the pin's; then the re-run --
 *     the blob re-digested to the pin's code digest, the seed
 *     deriveIsolatedSeed(codeDigest, recordsDigest), the clock frozen at
 *     --now, the configured timeout and the 1 MiB output cap -- several
 *     at once, at most "parallel" (the monitor's bound), none started
 *     past a pin that already refused;
 *  5. the evaluating call, which takes each pin's sealed section (or its
 *     refusal, the first in pin order winning), so the report does not
 *     depend on the order the re-runs finished in.
 *
 * The report goes to the result descriptor as the reference's pretty
 * JSON; GATES_DONE carries the decision or the refusal.
 *
 * "sbxctl gates verify" is the same job with a REPORT document (read
 * first) and verify set: the clock is the report's evaluatedAt, every
 * step is the same, and step 5 is gates_verify, whose {valid, reasons}
 * goes to the result descriptor instead.  A report that is no GateReport,
 * or inputs the engine refuses before any re-run, start no re-run: the
 * verdict does not depend on one.  Only code the
 * monitor issued ever runs: records files are identity tokens and data,
 * never code.
 */
#include <sys/queue.h>
#include <sys/stat.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "runner.h"
#include "gates/gates.h"

/* The reference's re-run output cap (interop.md §P7, step 5.6). */
#define JOBGATES_OUTPUT	1048576
#define JOBGATES_PINS_MAX	64
#define JOBGATES_RETRY_MS	20	/* a sandbox slot, asked again */

enum gpin_state {
	GPIN_IDLE,
	GPIN_RUNNING,
	GPIN_DONE
};

struct gpin {
	struct jobgates		*job;
	size_t			 index;
	char			 id[PR_ID_MAX];
	char			 version[PR_VERSION_MAX];
	char			 code_digest[PR_DIGEST_MAX];
	char			 source_digest[PR_DIGEST_MAX];
	char			 records_pin[PR_DIGEST_MAX];
	int			 bundle;	/* the pin has a code digest */
	int			 core;
	uint32_t		 match;		/* PR_GATES_* */
	struct pr_provider	 issued;
	unsigned char		*blob;
	size_t			 bloblen;
	struct gates_provider_metric *metrics;
	size_t			 nmetrics;
	struct json_value	*decl;		/* the issued metrics */
	/* the records file for this id, if any */
	int			 has_records;
	struct json_value	*records;
	char			*records_text;
	size_t			 records_len;
	char			 records_digest[DIGEST_STR_LEN + 1];
	/* the re-run */
	enum gpin_state		 state;
	uint64_t		 started;
	char			*refusal;
	struct json_value	*section;
};

struct jobgates {
	TAILQ_ENTRY(jobgates)	 entry;
	uint32_t		 id;
	int			 started;
	int			 outfd;
	struct pr_gates_doc	 docs[PR_GATES_DOCS_MAX];
	int			 fds[PR_GATES_DOCS_MAX];
	size_t			 ndocs;
	struct pr_gates_eval	 ev;
	struct gates_error	 binding_err;	/* reported in its turn */
	int			 binding_failed;
	int64_t			 clock_ms;
	uint32_t		 timeout_ms;
	struct json_value	*binding, *metrics, *hdoc, *holdout, *upstream;
	struct json_value	*report;	/* verify */
	char			*now;		/* --now, or evaluatedAt */
	struct gates_registry	 reg;
	struct gates_floors	 floors;
	struct gates_provider	*extra;
	size_t			 nextra;
	struct gpin		 pins[JOBGATES_PINS_MAX];
	size_t			 npins;
	size_t			 lookup;	/* the pin being looked up */
	unsigned char		*blob;		/* its chunks, arriving */
	size_t			 bloblen;
	size_t			 running;
	size_t			 stop;		/* start no pin past this */
	int			 decision;	/* of the report written */
	struct event		 retry;		/* waiting for a sandbox slot */
	struct pio		*io;
};
TAILQ_HEAD(jobgateses, jobgates);

static struct jobgateses	 jobs = TAILQ_HEAD_INITIALIZER(jobs);

static void	 jobgates_lookup_next(struct jobgates *);
static void	 rerun_retry(int, short, void *);

static struct jobgates *
job_find(uint32_t id)
{
	struct jobgates	*j;

	TAILQ_FOREACH(j, &jobs, entry)
		if (j->id == id)
			return j;
	return NULL;
}

int
jobgates_has(uint32_t id)
{
	return job_find(id) != NULL;
}

static uint64_t
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static const char *
kind_name(enum gates_errkind k)
{
	switch (k) {
	case GATES_E_ADMISSION:
		return "admission";
	case GATES_E_SCHEMA:
		return "schema";
	case GATES_E_REGISTRY:
		return "registry";
	case GATES_E_EVALUATION:
		return "evaluation";
	default:
		return "input";
	}
}

static void
job_free(struct jobgates *j)
{
	size_t	 i, k;

	TAILQ_REMOVE(&jobs, j, entry);
	evtimer_del(&j->retry);
	for (i = 0; i < j->ndocs; i++)
		if (j->fds[i] != -1)
			close(j->fds[i]);
	if (j->outfd != -1)
		close(j->outfd);
	pio_free(j->io);
	for (i = 0; i < j->npins; i++) {
		freezero(j->pins[i].blob, j->pins[i].bloblen);
		for (k = 0; k < j->pins[i].nmetrics; k++) {
			free((char *)j->pins[i].metrics[k].name);
			free((char *)j->pins[i].metrics[k].description);
		}
		free(j->pins[i].metrics);
		json_free(j->pins[i].decl);
		json_free(j->pins[i].records);
		free(j->pins[i].records_text);
		free(j->pins[i].refusal);
		json_free(j->pins[i].section);
	}
	freezero(j->blob, j->bloblen);
	/* The registry points into extra and the pins: free it first. */
	gates_registry_free(&j->reg);
	free(j->extra);
	gates_floors_free(&j->floors);
	json_free(j->binding);
	json_free(j->metrics);
	json_free(j->hdoc);
	json_free(j->holdout);
	json_free(j->upstream);
	json_free(j->report);
	free(j->now);
	free(j);
}

/*
 * The job's end: the decision, or the refusal.  A refusal's whole message
 * goes to the result descriptor too (DONE's copy is bounded, and the
 * reference's messages, a floors list for one, can be longer): one write
 * of at most GATES_ERRMSG_MAX bytes into an empty pipe, which holds at
 * least a page.
 */
static void
job_finish(struct jobgates *j, const struct gates_error *err, int decision)
{
	struct pr_gates_done	 d;
	int			 fl;

	memset(&d, 0, sizeof(d));
	if (err != NULL) {
		if (j->outfd != -1 && (fl = fcntl(j->outfd, F_GETFL)) != -1 &&
		    fcntl(j->outfd, F_SETFL, fl | O_NONBLOCK) != -1 &&
		    write(j->outfd, err->msg, strlen(err->msg)) == -1)
			log_debug("gates job %u: refusal not written: %s",
			    j->id, strerror(errno));
		d.status = PR_GATES_REFUSED;
		strlcpy(d.kind, kind_name(err->kind), sizeof(d.kind));
		strlcpy(d.msg, err->msg, sizeof(d.msg));
		log_info("gates job %u refused: %s: %s", j->id, d.kind,
		    err->msg);
	} else
		d.decision = (uint32_t)decision;
	runner_gates_done(j->id, &d);
	job_free(j);
}

void
jobgates_doc(uint32_t id, int fd, const struct pr_gates_doc *doc)
{
	struct jobgates	*j;

	if ((j = job_find(id)) == NULL) {
		runner_job_claim(id);
		j = xcalloc(1, sizeof(*j));
		j->id = id;
		j->outfd = -1;
		gates_registry_init(&j->reg);
		evtimer_set(&j->retry, rerun_retry, j);
		TAILQ_INSERT_TAIL(&jobs, j, entry);
	}
	if (j->started || j->ndocs == PR_GATES_DOCS_MAX)
		fatalx("gates job %u: document out of protocol", id);
	if (doc->kind < PR_GATES_BINDING || doc->kind > PR_GATES_REPORT ||
	    (fd == -1) != (doc->err != 0) || doc->err < 0 ||
	    memchr(doc->name, '\0', sizeof(doc->name)) == NULL ||
	    memchr(doc->id, '\0', sizeof(doc->id)) == NULL)
		fatalx("gates job %u: malformed document", id);
	j->docs[j->ndocs] = *doc;
	j->fds[j->ndocs++] = fd;
}

void
jobgates_blob(uint32_t id, const void *data, size_t len)
{
	struct jobgates	*j;

	if ((j = job_find(id)) == NULL || !j->started ||
	    j->lookup >= j->npins)
		fatalx("blob chunk for gates job %u, which awaits none", id);
	if (len > PR_BLOB_MAX - j->bloblen)
		fatalx("blob of gates job %u exceeds %d bytes", id,
		    PR_BLOB_MAX);
	j->blob = xrecallocarray(j->blob, j->bloblen, j->bloblen + len, 1);
	memcpy(j->blob + j->bloblen, data, len);
	j->bloblen += len;
}

/*
 * The first document of a kind not taken yet: 0, its descriptor in *fd
 * (now the caller's) or -1 with the errno its opener met in *e; -1 when
 * there is none.
 */
static int
take_doc(struct jobgates *j, uint32_t kind, const char **name, int *fd,
    int *e)
{
	size_t	 i;

	for (i = 0; i < j->ndocs; i++) {
		if (j->docs[i].kind != kind || (j->fds[i] == -1 &&
		    j->docs[i].err == 0))
			continue;
		*fd = j->fds[i];
		*e = j->docs[i].err;
		j->fds[i] = -1;
		j->docs[i].err = 0;
		*name = j->docs[i].name;
		return 0;
	}
	return -1;
}

/* A document: read, or refused as the reference's readFile would be. */
static int
take_read(struct jobgates *j, uint32_t kind, const char *what,
    const char **name, struct json_value **out, struct gates_error *err)
{
	int	 fd, e;

	if (take_doc(j, kind, name, &fd, &e) == -1)
		return gates_fail(err, GATES_E_INPUT, "no %s document", what);
	if (fd == -1) {
		gates_io_error(err, e, "open", *name);
		return -1;
	}
	return gread_doc(fd, *name, out, err);
}

/*
 * A pin's string as a C string, or -1 (dst "") when it is none, holds a
 * NUL or a lone surrogate, or does not fit: such a pin can name no
 * provider the monitor issued, so it is not looked up, and the engine
 * refuses it by its own rules.
 */
static int
cstr_field(char *dst, size_t dstsz, const struct json_value *v)
{
	const char	*why;

	dst[0] = '\0';
	if (!gt_is_str(v) || prov_json_cstr(&v->u.string, dstsz - 1, dst,
	    dstsz, &why) == -1) {
		dst[0] = '\0';
		return -1;
	}
	return 0;
}

static int
is_core(const char *id)
{
	const struct gates_provider	*core;
	size_t				 i, n;

	core = gates_core_providers(&n);
	for (i = 0; i < n; i++)
		if (strcmp(core[i].id, id) == 0)
			return 1;
	return 0;
}

/* Step 1: the binding, and the pins the monitor is to be asked about. */
static int
read_binding(struct jobgates *j, struct gates_error *err)
{
	const struct json_value	*pins, *pin;
	const char		*name;
	struct gpin		*g;
	size_t			 i;
	int			 bad;

	/* The reference reads the binding after the registry and floors:
	 * its refusal waits for their turn (read_rest). */
	if (take_read(j, PR_GATES_BINDING, "binding", &name, &j->binding,
	    &j->binding_err) == -1) {
		json_free(j->binding);
		j->binding = NULL;
		j->binding_failed = 1;
		return 0;
	}
	(void)err;
	pins = json_get(json_get(j->binding, "spec"), "metricProviders");
	if (pins == NULL || pins->type != JSON_ARRAY)
		return 0;	/* the engine's schema check refuses it */
	if (pins->u.array.n > JOBGATES_PINS_MAX)
		return gates_fail(err, GATES_E_INPUT, "%s: more than %d metric "
		    "provider pins", name, JOBGATES_PINS_MAX);
	for (i = 0; i < pins->u.array.n; i++) {
		pin = &pins->u.array.v[i];
		g = &j->pins[j->npins];
		g->job = j;
		g->index = j->npins++;
		bad = cstr_field(g->id, sizeof(g->id), json_get(pin, "id"));
		bad |= cstr_field(g->version, sizeof(g->version),
		    json_get(pin, "version"));
		(void)cstr_field(g->code_digest, sizeof(g->code_digest),
		    json_get(pin, "codeDigest"));
		(void)cstr_field(g->source_digest, sizeof(g->source_digest),
		    json_get(pin, "sourceDigest"));
		(void)cstr_field(g->records_pin, sizeof(g->records_pin),
		    json_get(pin, "recordsDigest"));
		g->bundle = gt_is_str(json_get(pin, "codeDigest"));
		g->core = bad || is_core(g->id);
	}
	return 0;
}

/* The issued provider's metric declarations, for the registry. */
static int
issued_metrics(struct gpin *g, struct gates_error *err)
{
	struct json_error	 jerr;
	const struct json_value	*m;
	size_t			 i, n;

	if (json_parse(g->issued.metrics, strlen(g->issued.metrics), NULL,
	    &g->decl, &jerr) == -1 || g->decl->type != JSON_OBJECT)
		return gates_fail(err, GATES_E_INPUT, "provider %s: issued "
		    "metrics are unreadable", g->id);
	n = g->decl->u.object.n;
	g->metrics = xcalloc(n + 1, sizeof(*g->metrics));
	for (i = 0; i < n; i++) {
		m = &g->decl->u.object.m[i].value;
		g->metrics[i].name = gt_jstr_cstr(&g->decl->u.object.m[i].key);
		g->metrics[i].kind = gates_metric_kind_parse(json_get(m,
		    "kind"));
		g->metrics[i].description = gt_cstr(json_get(m, "description"));
	}
	g->nmetrics = n;
	return 0;
}

/* Step 2: registry, floors, metrics, holdout, upstream and records. */
static int
read_rest(struct jobgates *j, struct gates_error *err)
{
	struct prov_error	 perr;
	struct stat		 st;
	struct json_value	*recs;
	const char		*name;
	unsigned char		*buf;
	struct gpin		*g;
	size_t			 i, k, len;
	int			 fd, r, e, opfd = -1;

	/* Bundle providers first: packs are validated against them. */
	j->extra = xcalloc(j->npins + 1, sizeof(*j->extra));
	for (i = 0; i < j->npins; i++) {
		g = &j->pins[i];
		if (g->core || g->match == PR_GATES_NONE)
			continue;
		for (k = 0; k < j->nextra; k++)
			if (strcmp(j->extra[k].id, g->id) == 0)
				break;
		if (k < j->nextra)
			continue;
		if (issued_metrics(g, err) == -1)
			return -1;
		j->extra[j->nextra].id = g->issued.id;
		j->extra[j->nextra].version = g->issued.version;
		j->extra[j->nextra].metrics = g->metrics;
		j->extra[j->nextra].nmetrics = g->nmetrics;
		j->extra[j->nextra].code_digest = g->issued.code_digest;
		j->extra[j->nextra].source_digest = g->issued.source_digest;
		j->nextra++;
	}
	if (gates_registry_bootstrap(&j->reg, err) == -1)
		return -1;
	j->reg.extra = j->extra;
	j->reg.nextra = j->nextra;
	/* The reference's order: registry, floors, binding, metrics,
	 * holdout, upstream. */
	if (take_doc(j, PR_GATES_OPERATOR, &name, &fd, &e) == 0 && fd != -1) {
		/* Kept to tell an agent's bundle from the operator's (a
		 * second descriptor the one way this role opens: beneath). */
		if ((opfd = open_beneath(fd, ".", O_RDONLY |
		    O_DIRECTORY)) == -1) {
			gates_fail(err, GATES_E_INPUT, "%s: %s", name,
			    strerror(errno));
			close(fd);
			goto fail;
		}
		if (gread_operator_packs(&j->reg, fd, name, err) == -1)
			goto fail;
	}
	while (take_doc(j, PR_GATES_PACKDIR, &name, &fd, &e) == 0)
		if (gread_pack_dir(&j->reg, fd, e, name, opfd, err) == -1)
			goto fail;
	if (opfd != -1)
		close(opfd);
	opfd = -1;
	if (take_doc(j, PR_GATES_CONFIG, &name, &fd, &e) == -1) {
		/* No configuration named: the empty one. */
		fd = -1;
		e = ENOENT;
		name = "";
	}
	if (gread_config(&j->reg, fd, e, name, &j->floors, err) == -1) {
		gates_prefix(err, "refusing evaluation: ");
		return -1;
	}
	if (j->binding_failed) {
		*err = j->binding_err;
		return -1;
	}
	if (take_read(j, PR_GATES_METRICS, "metrics", &name, &j->metrics,
	    err) == -1)
		return -1;
	if (take_read(j, PR_GATES_HOLDOUT, "holdout", &name, &j->hdoc,
	    err) == -1 ||
	    gates_load_holdout(j->hdoc, name, &j->holdout, err) == -1)
		return -1;
	if (take_doc(j, PR_GATES_UPSTREAM, &name, &fd, &e) == 0) {
		if (fd == -1) {
			gates_io_error(err, e, "open", name);
			return -1;
		}
		if (gread_doc(fd, name, &j->upstream, err) == -1 ||
		    gates_load_upstream(j->upstream, name, err) == -1)
			return -1;
	}
	for (i = 0; i < j->ndocs; i++) {
		if (j->docs[i].kind != PR_GATES_RECORDS)
			continue;
		if (j->fds[i] == -1 && j->docs[i].err != 0) {
			gates_io_error(err, j->docs[i].err, "open",
			    j->docs[i].name);
			return -1;
		}
		if (j->fds[i] == -1)
			continue;
		fd = j->fds[i];
		j->fds[i] = -1;
		name = j->docs[i].name;
		for (k = 0; k < j->npins; k++)
			if (strcmp(j->pins[k].id, j->docs[i].id) == 0)
				break;
		/* A FIFO the agent holds open would stall the role. */
		if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
			close(fd);
			return gates_fail(err, GATES_E_INPUT, "records %s: not "
			    "a regular file", name);
		}
		if (read_bounded(fd, RUNNER_RECORDS_BYTES, &buf,
		    &len) == -1) {
			r = errno;
			close(fd);
			return gates_fail(err, GATES_E_INPUT, "records %s: %s",
			    name, strerror(r));
		}
		close(fd);
		if (len > RUNNER_RECORDS_BYTES) {
			free(buf);
			return gates_fail(err, GATES_E_INPUT, "records %s: "
			    "more than %u bytes", name,
			    (unsigned int)RUNNER_RECORDS_BYTES);
		}
		/* Records for a provider the binding does not pin are
		 * read (they are the agent's input) and not used. */
		r = prov_records_parse(buf, len, j->ev.max_records, &recs,
		    &perr);
		free(buf);
		if (r == 0 && k < j->npins) {
			g = &j->pins[k];
			r = prov_records_canonical(recs, j->ev.max_records,
			    &g->records_text, &g->records_len,
			    g->records_digest, &perr);
			g->has_records = r == 0;
			if (r == 0 && g->records == NULL) {
				g->records = recs;
				recs = NULL;
			}
		}
		json_free(recs);
		if (r == -1)
			return gates_fail(err, GATES_E_INPUT, "records %s for "
			    "%s: %s: %s", name, j->docs[i].id,
			    prov_code_name(perr.code), perr.msg);
	}
	return 0;
 fail:
	if (opfd != -1)
		close(opfd);
	return -1;
}

/* What the re-runs cover and gave, per bundle pin, for the engine. */
static size_t
fill_reruns(const struct jobgates *j, struct gates_rerun *rr)
{
	const struct gpin	*g;
	size_t			 i, n = 0;

	for (i = 0; i < j->npins; i++) {
		g = &j->pins[i];
		if (!g->bundle)
			continue;
		rr[n].id = g->id;
		rr[n].covered = g->has_records && g->match == PR_GATES_EXACT;
		rr[n].refusal = g->refusal;
		rr[n].section = g->section;
		n++;
	}
	return n;
}

static void
eval_input(struct jobgates *j, struct gates_eval_input *in)
{
	memset(in, 0, sizeof(*in));
	in->binding = j->binding;
	in->trusted_binding_digest = j->ev.trusted;
	in->holdout = j->holdout;
	in->metrics = j->metrics;
	in->upstream = j->upstream;
	in->floors = &j->floors;
	in->now = j->now;
	in->attestation = "offline-cli";
}

static void
report_written(struct pio *p, void *arg)
{
	struct jobgates		*j = arg;
	struct gates_error	 err;

	if (pio_status(p) == PIO_DONE) {
		job_finish(j, NULL, j->decision);
		return;
	}
	gates_fail(&err, GATES_E_INPUT, "result descriptor: %s",
	    pio_status(p) == PIO_TIMEOUT ? "not taken in time" :
	    strerror(pio_error(p)));
	job_finish(j, &err, 0);
}

/* Step 5: the evaluation over the sealed sections, and the report. */
static void
evaluate(struct jobgates *j)
{
	struct gates_eval_input	 in;
	struct gates_rerun	 rr[JOBGATES_PINS_MAX];
	struct gates_error	 err;
	struct json_value	*report;
	char			*text;
	int			 fd;

	memset(&err, 0, sizeof(err));
	eval_input(j, &in);
	in.reruns = rr;
	in.nreruns = fill_reruns(j, rr);
	if (j->ev.verify) {
		/* This role is the provider runtime: bundle sections are the
		 * re-runs', whatever the caller's metrics say. */
		j->decision = gates_verify(&j->reg, &in, 1, j->report,
		    &report) ? 0 : 1;
	} else if (gates_evaluate(&j->reg, &in, &report, &err) == -1) {
		job_finish(j, &err, 0);
		return;
	} else
		j->decision = (int)gates_report_decision(report);
	text = gates_print_pretty(report);
	json_free(report);
	fd = j->outfd;
	j->outfd = -1;
	j->io = pio_write(fd, (unsigned char *)text, strlen(text),
	    j->timeout_ms, report_written, j);
}

static void	 rerun_next(struct jobgates *);

static void
rerun_audit(const struct gpin *g, const struct prov_error *perr)
{
	struct pr_gates_rerun	 a;

	memset(&a, 0, sizeof(a));
	strlcpy(a.id, g->id, sizeof(a.id));
	strlcpy(a.code_digest, g->code_digest, sizeof(a.code_digest));
	strlcpy(a.records_digest, g->records_digest,
	    sizeof(a.records_digest));
	a.duration_ms = (uint32_t)(now_ms() - g->started);
	if (perr != NULL) {
		a.code = (int32_t)perr->code;
		strlcpy(a.msg, perr->msg, sizeof(a.msg));
	}
	runner_send(IMSG_PR_GATES_RERUN, g->job->id, -1, &a, sizeof(a));
}

/* A pin refused or its re-run failed: nothing past it matters. */
static void
pin_refused(struct gpin *g, char *msg)
{
	struct jobgates	*j = g->job;

	free(g->refusal);
	g->refusal = msg;
	if (g->index < j->stop)
		j->stop = g->index;
}

static void
rerun_failed(struct gpin *g, const struct prov_error *perr)
{
	char	*msg;

	rerun_audit(g, perr);
	xasprintf(&msg, "metric provider %s re-run failed: %s", g->id,
	    perr->msg);
	pin_refused(g, msg);
}

/* sealProviderSection, as a tree for the engine. */
static int
seal(struct gpin *g, const struct json_value *result)
{
	const struct json_value	*metrics;
	struct json_value	*s;

	if (!gt_is_obj(result) ||
	    !gt_is_obj(metrics = json_get(result, "metrics")))
		return -1;
	s = xcalloc(1, sizeof(*s));
	gt_set_obj(s);
	/* version and sourceDigest are the issued provider's: a result's
	 * own claims are ignored. */
	gt_set_str(gt_add(s, "version"), g->issued.version);
	gt_set_str(gt_add(s, "sourceDigest"), g->issued.source_digest);
	gt_set_str(gt_add(s, "codeDigest"), g->issued.code_digest);
	gt_set_str(gt_add(s, "recordsDigest"), g->records_digest);
	gt_copy(gt_add(s, "metrics"), metrics);
	g->section = s;
	return 0;
}

static void
rerun_ran(void *arg, struct json_value *body, const struct prov_error *rerr)
{
	struct gpin		*g = arg;
	struct jobgates		*j = g->job;
	struct prov_error	 perr;

	j->running--;
	/*
	 * The sandbox of a run judged from its frame may still count
	 * against max-sandboxes for a moment after: a refusal for want of
	 * a slot is a wait, not the pin's failure, until the deadline.
	 */
	if (rerr != NULL && rerr->code == PROV_SANDBOX_UNAVAILABLE &&
	    strstr(rerr->msg, "max-sandboxes reached") != NULL &&
	    now_ms() - g->started < j->timeout_ms) {
		g->state = GPIN_IDLE;
		json_free(body);
		if (!evtimer_pending(&j->retry, NULL)) {
			struct timeval	 tv = { 0, JOBGATES_RETRY_MS * 1000 };

			evtimer_add(&j->retry, &tv);
		}
		return;
	}
	g->state = GPIN_DONE;
	if (rerr != NULL)
		rerun_failed(g, rerr);
	else if (seal(g, json_get(body, "result")) == -1) {
		prov_fail(&perr, PROV_REJECTED, "provider %s returned no "
		    "metrics", g->id);
		rerun_failed(g, &perr);
	} else
		rerun_audit(g, NULL);
	json_free(body);
	rerun_next(j);
}

/* One re-run: the exact bytes issued, re-digested to the pin's code. */
static int
rerun_start(struct gpin *g, struct prov_error *err)
{
	struct jobgates		*j = g->job;
	struct prov_snapshot	 snap;
	struct prov_run		 run;
	char			 nonce[PROV_NONCE_HEX + 1], *req;
	size_t			 reqlen;
	uint32_t		 seed;
	int			 r;

	if (prov_blob_decode(g->blob, g->bloblen, &snap, err) == -1) {
		prov_prefix(err, "provider %s", g->id);
		return -1;
	}
	if (prov_snapshot_verify(&snap, g->code_digest, err) == -1) {
		prov_snapshot_free(&snap);
		prov_prefix(err, "provider %s", g->id);
		return -1;
	}
	strlcpy(snap.code_digest, g->code_digest, sizeof(snap.code_digest));
	if (prov_seed_derive(g->code_digest, g->records_pin, &seed,
	    err) == -1) {
		prov_snapshot_free(&snap);
		return -1;
	}
	memset(&run, 0, sizeof(run));
	run.mode = PROV_INVOKE;
	run.snap = &snap;
	run.issued_digest = g->issued.code_digest;
	run.pinned_digest = g->code_digest;
	run.expected_id = g->issued.id;
	run.expected_version = g->issued.version;
	run.records = g->records;
	run.records_text = g->records_text;
	run.records_len = g->records_len;
	run.clock_ms = j->clock_ms;
	run.seed = seed;
	run.max_output = JOBGATES_OUTPUT;
	prov_nonce_new(nonce);
	r = prov_request_build(&run, nonce, &req, &reqlen, err);
	prov_snapshot_free(&snap);
	if (r == 0)
		r = sbrun_start(j->id, req, reqlen, nonce, j->timeout_ms,
		    JOBGATES_OUTPUT, 0, rerun_ran, g, err);
	explicit_bzero(nonce, sizeof(nonce));
	return r;
}

/*
 * Step 4: start what may start, in pin order, none past a refused pin;
 * evaluate once nothing runs or waits.
 */
static void
rerun_next(struct jobgates *j)
{
	struct prov_error	 perr;
	struct gpin		*g;
	size_t			 i;
	char			*msg;
	int			 waiting = 0;

	for (i = 0; i < j->npins && i <= j->stop; i++) {
		g = &j->pins[i];
		if (!g->bundle || g->state != GPIN_IDLE)
			continue;
		if (j->running >= j->ev.parallel ||
		    evtimer_pending(&j->retry, NULL)) {
			waiting = 1;
			continue;
		}
		if (!g->has_records || g->match != PR_GATES_EXACT) {
			/* The engine words this refusal itself. */
			g->state = GPIN_DONE;
			if (g->index < j->stop)
				j->stop = g->index;
			continue;
		}
		if (strcmp(g->records_digest, g->records_pin) != 0) {
			g->state = GPIN_DONE;
			xasprintf(&msg, "metric provider %s records do not "
			    "match the pinned records digest", g->id);
			pin_refused(g, msg);
			continue;
		}
		g->state = GPIN_RUNNING;
		if (g->started == 0)
			g->started = now_ms();
		j->running++;
		if (rerun_start(g, &perr) == -1) {
			g->state = GPIN_DONE;
			j->running--;
			rerun_failed(g, &perr);
		}
	}
	if (j->running == 0 && !waiting)
		evaluate(j);
}

static void
rerun_retry(int fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	rerun_next(arg);
}

/* Steps 2 and 3, once every lookup is answered. */
static void
prepare(struct jobgates *j)
{
	struct gates_eval_input	 in;
	struct gates_rerun	 rr[JOBGATES_PINS_MAX];
	struct gates_error	 err;
	struct json_value	*none = NULL;

	memset(&err, 0, sizeof(err));
	if (read_rest(j, &err) == -1) {
		job_finish(j, &err, 0);
		return;
	}
	/* Coverage matters to refusal 7 (a covered pin needs no caller
	 * section): the precheck knows what the re-runs will cover. */
	eval_input(j, &in);
	in.precheck = 1;
	in.reruns = rr;
	in.nreruns = fill_reruns(j, rr);
	/* verify: a report that is none is the schema's verdict alone. */
	if (j->ev.verify && (gates_validate_document(j->report, &err) == -1 ||
	    !gt_str_is(json_get(j->report, "kind"), "GateReport"))) {
		evaluate(j);
		return;
	}
	if (gates_evaluate(&j->reg, &in, &none, &err) == -1) {
		/* verify: the re-evaluation refuses the same way, re-run or
		 * not, and the refusal is a reason of the verdict. */
		if (j->ev.verify)
			evaluate(j);
		else
			job_finish(j, &err, 0);
		return;
	}
	json_free(none);
	j->stop = j->npins;
	rerun_next(j);
}

static void
jobgates_lookup_next(struct jobgates *j)
{
	struct pr_gates_lookup	 l;
	struct gpin		*g;

	while (j->lookup < j->npins && j->pins[j->lookup].core)
		j->lookup++;
	if (j->lookup == j->npins) {
		prepare(j);
		return;
	}
	g = &j->pins[j->lookup];
	memset(&l, 0, sizeof(l));
	l.index = (uint32_t)j->lookup;
	strlcpy(l.id, g->id, sizeof(l.id));
	strlcpy(l.version, g->version, sizeof(l.version));
	strlcpy(l.code_digest, g->code_digest, sizeof(l.code_digest));
	strlcpy(l.source_digest, g->source_digest, sizeof(l.source_digest));
	runner_send(IMSG_PR_GATES_LOOKUP, j->id, -1, &l, sizeof(l));
}

void
jobgates_issued(uint32_t id, const struct pr_gates_issued *is)
{
	struct jobgates	*j;
	struct gpin	*g;

	if ((j = job_find(id)) == NULL || !j->started ||
	    j->lookup >= j->npins || is->index != j->lookup)
		fatalx("issued provider for gates job %u out of protocol", id);
	g = &j->pins[j->lookup];
	if (is->match > PR_GATES_EXACT ||
	    (is->match == PR_GATES_EXACT) != (j->bloblen > 0) ||
	    (is->match == PR_GATES_EXACT && is->p.blob_len != j->bloblen))
		fatalx("gates job %u: issued provider and blob disagree", id);
	g->match = is->match;
	g->issued = is->p;
	g->issued.bundle_id[sizeof(g->issued.bundle_id) - 1] = '\0';
	g->issued.id[sizeof(g->issued.id) - 1] = '\0';
	g->issued.version[sizeof(g->issued.version) - 1] = '\0';
	g->issued.code_digest[sizeof(g->issued.code_digest) - 1] = '\0';
	g->issued.source_digest[sizeof(g->issued.source_digest) - 1] = '\0';
	g->issued.metrics[sizeof(g->issued.metrics) - 1] = '\0';
	if (g->match != PR_GATES_NONE && strcmp(g->issued.id, g->id) != 0)
		fatalx("gates job %u: issued provider for another id", id);
	g->blob = j->blob;
	g->bloblen = j->bloblen;
	j->blob = NULL;
	j->bloblen = 0;
	j->lookup++;
	jobgates_lookup_next(j);
}

void
jobgates_start(uint32_t id, int fd, const struct pr_gates_eval *ev)
{
	struct jobgates		*j;
	struct gates_error	 err;
	const char		*name;
	int			 fl, rfd, e, r;

	if ((j = job_find(id)) == NULL || j->started)
		fatalx("gates evaluate for job %u out of protocol", id);
	if (ev->ndocs != j->ndocs || ev->verify > 1 ||
	    memchr(ev->now, '\0', sizeof(ev->now)) == NULL ||
	    memchr(ev->trusted, '\0', sizeof(ev->trusted)) == NULL)
		fatalx("gates job %u: %u documents announced, %zu came", id,
		    ev->ndocs, j->ndocs);
	if ((fl = fcntl(fd, F_GETFL)) == -1 || (fl & O_ACCMODE) == O_RDONLY)
		fatalx("result descriptor of gates job %u is not writable",
		    id);
	j->started = 1;
	j->ev = *ev;
	j->outfd = fd;
	if (j->ev.parallel == 0)
		j->ev.parallel = 1;
	j->timeout_ms = ev->timeout_ms == 0 ? RUNNER_TIMEOUT_DEFAULT :
	    ev->timeout_ms;
	if (j->timeout_ms > RUNNER_TIMEOUT_MAX)
		j->timeout_ms = RUNNER_TIMEOUT_MAX;
	memset(&err, 0, sizeof(err));
	if (ev->verify) {
		/* The report first: its evaluatedAt is the clock. */
		if (take_doc(j, PR_GATES_REPORT, &name, &rfd, &e) == -1)
			r = gates_fail(&err, GATES_E_INPUT, "no report "
			    "document");
		else if (rfd == -1) {
			gates_io_error(&err, e, "open", name);
			r = -1;
		} else
			r = gread_report(rfd, name, &j->report, &err);
		if (r == -1) {
			job_finish(j, &err, 0);
			return;
		}
		j->now = gt_cstr(json_get(j->report, "evaluatedAt"));
		if (j->now == NULL)
			j->now = xstrdup("");	/* the schema refuses it */
	} else
		j->now = xstrdup(ev->now);
	/* The clock every re-run sees: --now, as Date.parse reads it. */
	if (gates_date_parse(j->now, &j->clock_ms) == -1)
		j->clock_ms = 0;	/* refused by the engine (refusal 11) */
	if (read_binding(j, &err) == -1) {
		job_finish(j, &err, 0);
		return;
	}
	jobgates_lookup_next(j);
}
