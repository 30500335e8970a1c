/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * pool.c: provider sandboxes booted ahead of their runs (provider-pool).
 *
 * Node's start-up is most of a cold run.  A pooled sandbox is asked for
 * exactly like a cold one (the monitor builds it from its own launch
 * plan), but before any run needs it: node and the driver start and block
 * reading stdin, holding nothing of any request.  A run takes one, writes
 * its nonce and request as a cold run would, and never gives it back;
 * a replacement is asked for at once.  So a pooled sandbox is used once,
 * like a cold one, and results cannot depend on which path ran.
 *
 * The run's deadline must start when the run does, not when the sandbox
 * booted: the monitor gives a pooled sandbox an idle lifetime
 * (PR_POOL_IDLE_MS) and the runner sends IMSG_PR_ARM with the run's
 * timeout when it takes one; the launcher then enforces it like any
 * other.  A sandbox too close to the end of its idle life is not taken
 * (the deadline could pass before the monitor relays the new one): it is
 * retired, which closes its stdin, so the driver ends on a request that
 * never came.
 *
 * An invoke that finds no pooled sandbox idle reserves one as it starts
 * (pool_reserve): node boots while the runner reads, parses and digests
 * the records and builds the request, instead of after; the run then
 * claims it (pool_claim) and arms its deadline from there, as a pooled
 * run does.  A refused invoke releases it unused: no request is ever
 * written to it.  That costs no more than a valid invoke would, and the
 * monitor's sandbox limits bound both.
 *
 * Threats: a pool that respawns in a tight loop when sandboxes cannot
 * start (no runtime, self-test failing, max-sandboxes): each failure
 * doubles a pause before the next attempt, up to a minute, and says why
 * once per pause; and descriptors: two per pooled sandbox, at most
 * PR_POOL_MAX of them.
 */
#include <sys/queue.h>
#include <sys/wait.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "clock.h"
#include "proto.h"
#include "spec.h"
#include "runner.h"

#define POOL_BACKOFF_MIN_MS	250
#define POOL_BACKOFF_MAX_MS	60000

struct pooled {
	TAILQ_ENTRY(pooled)	 entry;
	uint32_t		 tag;
	int			 in;		/* write end of its stdin */
	int			 out;		/* read end of its stdout */
	uint64_t		 born;		/* CLOCK_MONOTONIC, ms */
	int			 retired;	/* stdin closed, not reaped */
	int			 reserved;	/* a job's, not the pool's */
};
TAILQ_HEAD(pooleds, pooled);

static struct pooleds	 pool = TAILQ_HEAD_INITIALIZER(pool);
static uint32_t		 target;	/* the monitor's provider-pool */
static uint32_t		 nidle;		/* the pool's, not retired */
static uint32_t		 backoff_ms;	/* 0: spawn at once */
static struct event	 backoff_ev;
static int		 backoff_set;

static void
close_if(int *fd)
{
	if (*fd != -1) {
		close(*fd);
		*fd = -1;
	}
}

int
pool_busy(uint32_t tag)
{
	struct pooled	*p;

	TAILQ_FOREACH(p, &pool, entry)
		if (p->tag == tag)
			return 1;
	return 0;
}

/* Closing its stdin ends the driver: a request that never came. */
static void
pool_retire(struct pooled *p)
{
	if (p->retired)
		return;
	p->retired = 1;
	if (!p->reserved)
		nidle--;
	close_if(&p->in);
	close_if(&p->out);
}

/* Ask the monitor for one pooled (or reserved) sandbox: its tag, or 0
 * (logged). */
static uint32_t
pool_spawn_one(int reserved)
{
	struct pooled	*p;
	struct pr_spawn	 sp;
	int		 inp[2], outp[2];

	if (pipe2(inp, O_CLOEXEC) == -1) {
		log_warn("provider pool: pipe2");
		return 0;
	}
	if (pipe2(outp, O_CLOEXEC) == -1) {
		log_warn("provider pool: pipe2");
		close(inp[0]);
		close(inp[1]);
		return 0;
	}
	p = xcalloc(1, sizeof(*p));
	p->tag = runner_tag_new();
	p->in = inp[1];
	p->out = outp[0];
	p->born = monotonic_ms();
	p->reserved = reserved;
	TAILQ_INSERT_TAIL(&pool, p, entry);
	if (!reserved)
		nidle++;

	memset(&sp, 0, sizeof(sp));
	sp.tag = p->tag;
	sp.flags = PR_SPAWN_POOLED | (reserved ? PR_SPAWN_RESERVED : 0);
	/* imsg owns and closes the sandbox's ends from here on. */
	runner_send(IMSG_PR_SPAWN_STDOUT, 0, outp[1], &sp, sizeof(sp));
	runner_send(IMSG_PR_SPAWN, 0, inp[0], &sp, sizeof(sp));
	log_debug("provider pool: sandbox %u asked for%s", p->tag,
	    reserved ? " (reserved for a run)" : "");
	return p->tag;
}

/* Ask for sandboxes until the pool is full (unless pausing). */
void
pool_fill(void)
{
	while (nidle < target && !backoff_set)
		if (pool_spawn_one(0) == 0)
			break;
}

static void
pool_backoff_done(int fd, short event, void *arg)
{
	(void)fd;
	(void)event;
	(void)arg;
	backoff_set = 0;
	pool_fill();
}

void
pool_resize(uint32_t size)
{
	struct pooled	*p;

	if (size > PR_POOL_MAX)
		fatalx("provider pool of %u: more than %d", size, PR_POOL_MAX);
	if (size != target)
		log_info("provider pool: %u sandboxes booted ahead (was %u)",
		    size, target);
	target = size;
	/* A new setting is a new chance: whatever failed may work now. */
	backoff_ms = 0;
	if (backoff_set) {
		evtimer_del(&backoff_ev);
		backoff_set = 0;
	}
	/* Retire the newest first: the oldest are the most booted. */
	TAILQ_FOREACH_REVERSE(p, &pool, pooleds, entry) {
		if (nidle <= target)
			break;
		if (!p->reserved)
			pool_retire(p);
	}
	pool_fill();
}

/*
 * Whether a pooled sandbox still waits: its stdout has a writer and has
 * said nothing.  One that died idle (its EXITED not read yet) would cost
 * the run that took it an error instead of a cold start; one that wrote
 * before any request broke the driver's protocol.  Both are retired.
 */
static int
pool_alive(struct pooled *p)
{
	char	 c;
	ssize_t	 n;
	int	 fl;

	if ((fl = fcntl(p->out, F_GETFL)) == -1 ||
	    fcntl(p->out, F_SETFL, fl | O_NONBLOCK) == -1)
		return 0;
	n = read(p->out, &c, 1);
	return n == -1 && errno == EAGAIN;
}

/*
 * Take the oldest pooled sandbox that still has its margin.  1 with its
 * tag and pipe ends (the caller's from now on), or 0: run cold.
 */
int
pool_take(uint32_t *tag, int *in, int *out)
{
	struct pooled	*p, *next;
	uint64_t	 now = monotonic_ms();
	int		 got = 0;

	for (p = TAILQ_FIRST(&pool); p != NULL && !got; p = next) {
		next = TAILQ_NEXT(p, entry);
		if (p->retired || p->reserved)
			continue;
		if (now - p->born + PR_POOL_MARGIN_MS >= PR_POOL_IDLE_MS ||
		    !pool_alive(p)) {
			pool_retire(p);
			continue;
		}
		*tag = p->tag;
		*in = p->in;
		*out = p->out;
		TAILQ_REMOVE(&pool, p, entry);
		nidle--;
		free(p);
		got = 1;
		backoff_ms = 0;
	}
	/* runner_done() calls pool_fill() once the job has answered. */
	return got;
}

/*
 * A sandbox of the pool ended before a run took it.  1 if tag was one of
 * the pool's (handled), 0 if it is a run's.
 */
int
pool_exited(uint32_t tag, const struct launch_exit *ex)
{
	struct pooled	*p;
	struct timeval	 tv;
	char		 why[SBX_STEP_MAX + 64];
	int		 reserved, retired;

	TAILQ_FOREACH(p, &pool, entry)
		if (p->tag == tag)
			break;
	if (p == NULL)
		return 0;
	reserved = p->reserved;
	retired = p->retired;
	if (!retired && !reserved)
		nidle--;
	close_if(&p->in);
	close_if(&p->out);
	TAILQ_REMOVE(&pool, p, entry);
	free(p);
	/* A job's: its run starts cold and reports what went wrong. */
	if (reserved)
		return 1;
	/* Retired by us, or replaced at the end of a healthy idle life. */
	if (retired || ex->reason == SANDBOX_TIMEOUT) {
		if (!retired)
			backoff_ms = 0;
		pool_fill();
		return 1;
	}
	/* It could not start or died waiting: do not respawn in a loop. */
	backoff_ms = backoff_ms == 0 ? POOL_BACKOFF_MIN_MS :
	    backoff_ms * 2 > POOL_BACKOFF_MAX_MS ? POOL_BACKOFF_MAX_MS :
	    backoff_ms * 2;
	if (ex->reason == SANDBOX_SETUP_FAILED)
		snprintf(why, sizeof(why), "setup failed: %s%s%s", ex->step,
		    ex->error != 0 ? ": " : "", ex->error != 0 ?
		    strerror(ex->error) : "");
	else if (ex->reason == SANDBOX_EXITED)
		snprintf(why, sizeof(why), "exited with status %d",
		    WEXITSTATUS(ex->wstatus));
	else if (ex->reason == SANDBOX_SIGNALED)
		snprintf(why, sizeof(why), "killed by signal %d",
		    WTERMSIG(ex->wstatus));
	else
		snprintf(why, sizeof(why), "killed");
	log_warnx("provider pool: sandbox %u ended before any run took it "
	    "(%s); the next one in %u ms", tag, why, backoff_ms);
	if (!backoff_set) {
		evtimer_set(&backoff_ev, pool_backoff_done, NULL);
		tv.tv_sec = backoff_ms / 1000;
		tv.tv_usec = (backoff_ms % 1000) * 1000;
		evtimer_add(&backoff_ev, &tv);
		backoff_set = 1;
	}
	return 1;
}

/*
 * A sandbox booting for one job (see the top): its tag, or 0 when a
 * pooled one is idle (the run will take that) or none could be asked
 * for (the run starts cold).
 */
uint32_t
pool_reserve(void)
{
	struct pooled	*p;

	TAILQ_FOREACH(p, &pool, entry)
		if (!p->retired && !p->reserved)
			return 0;
	return pool_spawn_one(1);
}

/* The job's reserved sandbox: 1 with its pipe ends, 0 if it is gone. */
int
pool_claim(uint32_t tag, int *in, int *out)
{
	struct pooled	*p;

	TAILQ_FOREACH(p, &pool, entry)
		if (p->tag == tag && p->reserved && !p->retired)
			break;
	if (p == NULL)
		return 0;
	*in = p->in;
	*out = p->out;
	TAILQ_REMOVE(&pool, p, entry);
	free(p);
	return 1;
}

/* The job ended without a run: its reserved sandbox ends unused. */
void
pool_release(uint32_t tag)
{
	struct pooled	*p;

	TAILQ_FOREACH(p, &pool, entry)
		if (p->tag == tag && p->reserved) {
			pool_retire(p);
			return;
		}
}
