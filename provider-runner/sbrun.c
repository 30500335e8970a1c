/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * sbrun.c: one provider run in a sandbox the monitor starts for us
 * (design.md §1, §5; interop.md §P5).
 *
 * The runner may not create processes or namespaces (its filter forbids
 * both): it makes the two pipes, hands the monitor the sandbox's ends
 * (SPAWN_STDOUT with the stdout write end, then SPAWN with the stdin read
 * end, which starts the sandbox), writes "<nonce>\n<request>" into stdin,
 * reads stdout under the output cap, and judges the run once it has both
 * the end of stdout and the monitor's EXITED report (judge.c).  Our
 * copies of the sandbox's ends are gone once imsg has sent them, so EOF
 * on stdout means every writer in the sandbox is gone.
 *
 * One shortcut: the driver closes stdout right after its frame, and
 * node's teardown after that takes milliseconds.  A run whose stdout
 * ended, before its deadline, with a well-formed frame that says ok is
 * judged then, as if it had exited 0 (which is what the driver does
 * next); its EXITED report only ends the bookkeeping.  Anything else
 * (no frame, a refusal, a flood, the deadline passed) waits for EXITED
 * as before, so timeouts, signals and exit statuses keep their codes.
 * This gives nothing to a provider: writing a frame at all needs the
 * nonce, which only the driver holds.
 *
 * Threats: a provider that floods stdout (bounded, and the pipe closed
 * at the cap), one that never reads stdin or never exits (neither stalls
 * the role: both pipes are event-driven, and the monitor's deadline ends
 * the sandbox), and output that outlives its sandbox (a grace period
 * after EXITED, then the run is refused rather than waited on forever).
 */
#include <sys/queue.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "clock.h"
#include "proto.h"
#include "runner.h"

/* After EXITED, how long the rest of stdout may take to drain. */
#define SBRUN_DRAIN_MS	2000
#define SBRUN_PIPE_DEFAULT	65536
#define SBRUN_PIPE_MAX		1048576

struct sbrun {
	TAILQ_ENTRY(sbrun)	 entry;
	uint32_t		 job;
	uint32_t		 tag;
	uint32_t		 timeout_ms;
	size_t			 max_output;
	char			 nonce[PROV_NONCE_HEX + 1];
	struct pio		*in;
	struct pio		*out;
	int			 out_done;
	int			 overflow;
	int			 unfinished;
	int			 exited;
	int			 answered;	/* judged early, cb ran */
	uint64_t		 deadline;	/* CLOCK_MONOTONIC, ms */
	struct launch_exit	 exit;
	struct event		 drain;
	int			 drain_added;
	sbrun_cb		 cb;
	void			*arg;
};
TAILQ_HEAD(sbruns, sbrun);

static struct sbruns	 sbruns = TAILQ_HEAD_INITIALIZER(sbruns);

static struct sbrun *
sbrun_find(uint32_t tag)
{
	struct sbrun	*r;

	TAILQ_FOREACH(r, &sbruns, entry)
		if (r->tag == tag)
			return r;
	return NULL;
}

int
sbrun_busy(uint32_t tag)
{
	return sbrun_find(tag) != NULL;
}

static void
sbrun_free(struct sbrun *r)
{
	TAILQ_REMOVE(&sbruns, r, entry);
	if (r->drain_added)
		evtimer_del(&r->drain);
	pio_free(r->in);
	pio_free(r->out);
	explicit_bzero(r->nonce, sizeof(r->nonce));
	free(r);
}

/* Both reports are in: judge, hand the verdict over, forget the run. */
static void
sbrun_judge(struct sbrun *r)
{
	struct prov_outcome	 o;
	struct prov_error	 err;
	struct json_value	*body = NULL;
	sbrun_cb		 cb = r->cb;
	void			*arg = r->arg;
	int			 rv;

	memset(&o, 0, sizeof(o));
	memset(&err, 0, sizeof(err));
	o.exit = &r->exit;
	o.timeout_ms = r->timeout_ms;
	o.overflow = r->overflow;
	o.unfinished = r->unfinished;
	o.out = pio_data(r->out, &o.outlen);
	o.max_output = r->max_output;
	o.nonce = r->nonce;
	rv = prov_run_judge(&o, &body, &err);
	log_debug("job %u: sandbox %u: %s", r->job, r->tag,
	    rv == 0 ? "framed result" : err.msg);
	sbrun_free(r);
	cb(arg, body, rv == 0 ? NULL : &err);
}

/*
 * stdout ended before EXITED: if it holds an ok frame and the deadline
 * has not passed, answer now.  1 if answered.
 */
static int
sbrun_judge_early(struct sbrun *r)
{
	struct prov_outcome	 o;
	struct prov_error	 err;
	struct launch_exit	 clean;
	struct json_value	*body = NULL;
	sbrun_cb		 cb = r->cb;

	if (r->overflow || r->unfinished || monotonic_ms() >= r->deadline)
		return 0;
	memset(&clean, 0, sizeof(clean));
	clean.reason = SANDBOX_EXITED;
	memset(&o, 0, sizeof(o));
	memset(&err, 0, sizeof(err));
	o.exit = &clean;
	o.timeout_ms = r->timeout_ms;
	o.out = pio_data(r->out, &o.outlen);
	o.max_output = r->max_output;
	o.nonce = r->nonce;
	if (prov_run_judge(&o, &body, &err) == -1)
		return 0;
	log_debug("job %u: sandbox %u: framed result before its exit",
	    r->job, r->tag);
	r->answered = 1;
	r->cb = NULL;
	cb(r->arg, body, NULL);
	return 1;
}

static void
sbrun_in_done(struct pio *p, void *arg)
{
	struct sbrun	*r = arg;

	/* EPIPE: the driver ended early; EXITED and stdout say how. */
	if (pio_status(p) != PIO_DONE)
		log_debug("job %u: sandbox %u: stdin: %s", r->job, r->tag,
		    strerror(pio_error(p)));
}

static void
sbrun_out_done(struct pio *p, void *arg)
{
	struct sbrun	*r = arg;

	r->out_done = 1;
	switch (pio_status(p)) {
	case PIO_DONE:
		break;
	case PIO_OVERFLOW:
		r->overflow = 1;
		break;
	default:
		/* A read error is as bad as output that never ended. */
		r->unfinished = 1;
		break;
	}
	if (r->exited)
		sbrun_judge(r);
	else if (pio_status(p) == PIO_DONE)
		(void)sbrun_judge_early(r);
}

static void
sbrun_drain_expired(int fd, short event, void *arg)
{
	struct sbrun	*r = arg;

	(void)fd;
	(void)event;
	r->drain_added = 0;
	if (r->out_done)
		return;
	r->unfinished = 1;
	sbrun_judge(r);
}

int
sbrun_start(uint32_t job, char *request, size_t reqlen, const char *nonce,
    uint32_t timeout_ms, size_t max_output, uint32_t reserved, sbrun_cb cb,
    void *arg, struct prov_error *err)
{
	struct sbrun	*r;
	struct pr_spawn	 sp;
	struct pr_arm	 pa;
	uint32_t	 tag = 0;
	int		 inp[2] = { -1, -1 }, outp[2] = { -1, -1 };
	int		 pooled, saved;

	/* The job's reserved sandbox, a pooled one if one is idle
	 * (pool.c), else a cold one. */
	if (reserved != 0 && pool_claim(reserved, &inp[1], &outp[0])) {
		pooled = 1;
		tag = reserved;
	} else
		pooled = pool_take(&tag, &inp[1], &outp[0]);
	/* Out of descriptors (too many runs at once) costs this run only. */
	if (!pooled && pipe2(inp, O_CLOEXEC) == -1) {
		saved = errno;
		free(request);
		return prov_fail(err, PROV_SANDBOX_UNAVAILABLE, "provider "
		    "sandbox pipes: %s", strerror(saved));
	}
	if (!pooled && pipe2(outp, O_CLOEXEC) == -1) {
		saved = errno;
		close(inp[0]);
		close(inp[1]);
		free(request);
		return prov_fail(err, PROV_SANDBOX_UNAVAILABLE, "provider "
		    "sandbox pipes: %s", strerror(saved));
	}
	r = xcalloc(1, sizeof(*r));
	r->job = job;
	r->tag = pooled ? tag : runner_tag_new();
	r->timeout_ms = timeout_ms;
	r->deadline = monotonic_ms() + timeout_ms;
	r->max_output = max_output;
	strlcpy(r->nonce, nonce, sizeof(r->nonce));
	r->cb = cb;
	r->arg = arg;
	evtimer_set(&r->drain, sbrun_drain_expired, r);
	TAILQ_INSERT_TAIL(&sbruns, r, entry);

	if (pooled) {
		/* Its deadline starts now, before it sees the request. */
		memset(&pa, 0, sizeof(pa));
		pa.tag = r->tag;
		pa.timeout_ms = timeout_ms;
		runner_send(IMSG_PR_ARM, job, -1, &pa, sizeof(pa));
	} else {
		memset(&sp, 0, sizeof(sp));
		sp.tag = r->tag;
		sp.timeout_ms = timeout_ms;
		/* imsg owns and closes the sandbox's ends from here on. */
		runner_send(IMSG_PR_SPAWN_STDOUT, job, outp[1], &sp,
		    sizeof(sp));
		runner_send(IMSG_PR_SPAWN, job, inp[0], &sp, sizeof(sp));
	}
	/*
	 * A request larger than a pipe's 64 KiB would go over in
	 * pieces, a wake-up of each side per piece: let the pipe hold it
	 * (up to the 1 MiB an unprivileged process may ask for; beyond
	 * that, or if refused, it simply goes in pieces).
	 */
	if (reqlen > SBRUN_PIPE_DEFAULT)
		(void)fcntl(inp[1], F_SETPIPE_SZ, reqlen > SBRUN_PIPE_MAX ?
		    SBRUN_PIPE_MAX : (int)reqlen);
	r->in = pio_write(inp[1], (unsigned char *)request, reqlen, 0,
	    sbrun_in_done, r);
	r->out = pio_read(outp[0], max_output, 0, sbrun_out_done, r);
	log_debug("job %u: sandbox %u%s: %zu request bytes", job, r->tag,
	    pooled ? " (pooled)" : "", reqlen);
	return 0;
}

void
sbrun_exited(uint32_t tag, const struct launch_exit *ex)
{
	struct sbrun	*r;
	struct timeval	 tv;

	if ((r = sbrun_find(tag)) == NULL || r->exited)
		fatalx("exit report for sandbox %u, which is not running",
		    tag);
	if (ex->reason < SANDBOX_EXITED || ex->reason > SANDBOX_KILLED ||
	    memchr(ex->step, '\0', sizeof(ex->step)) == NULL)
		fatalx("exit report for sandbox %u is malformed", tag);
	r->exited = 1;
	r->exit = *ex;
	if (r->answered) {
		/* Judged from its frame; the driver exits 0 right after. */
		if (ex->reason != SANDBOX_EXITED || ex->wstatus != 0)
			log_warnx("job %u: sandbox %u ended uncleanly after "
			    "its result (reason %d, status %#x)", r->job,
			    r->tag, ex->reason, ex->wstatus);
		sbrun_free(r);
		return;
	}
	if (r->out_done) {
		sbrun_judge(r);
		return;
	}
	tv.tv_sec = SBRUN_DRAIN_MS / 1000;
	tv.tv_usec = (SBRUN_DRAIN_MS % 1000) * 1000;
	evtimer_add(&r->drain, &tv);
	r->drain_added = 1;
}
