/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * rjob.c: the requests the monitor has handed to the provider runner
 * (provider loads and invokes, gates evaluations and verifications), one
 * table for all, keyed by the runner's job id.  The owners (provreg.c,
 * gatesreq.c) embed a struct rjob first in their own job and give it the
 * function that frees the rest; this file keeps what they share: ids,
 * lookups, and what happens when the agent that asked goes away.
 */
#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>

#include "common.h"
#include "monitor.h"

TAILQ_HEAD(rjobs, rjob);
static struct rjobs	 rjobs = TAILQ_HEAD_INITIALIZER(rjobs);
static uint32_t		 nextjob = 1;

/* A job id the runner has not seen in use: 0 is never one. */
static uint32_t
rjob_id(void)
{
	uint32_t	 id = nextjob++;

	if (nextjob == 0)
		nextjob = 1;
	return id;
}

void
rjob_add(struct rjob *j, enum rjob_kind kind, struct ctl_conn *c,
    uint32_t reqid, uid_t uid, pid_t peerpid, void (*release)(struct rjob *))
{
	j->id = rjob_id();
	j->kind = kind;
	j->conn = c;
	j->reqid = reqid;
	j->uid = uid;
	j->peerpid = peerpid;
	j->sent = 0;
	j->fds = 0;
	j->release = release;
	TAILQ_INSERT_TAIL(&rjobs, j, entry);
	/* In flight from here to rjob_free (client-requests-max). */
	conn_req_hold(c);
}

/* One more of the agent's descriptors kept for the job (client-fds-max). */
void
rjob_fd_hold(struct rjob *j)
{
	j->fds++;
	conn_fd_hold(j->conn, 1);
}

/* The job's descriptors went to the runner: the agent holds none here. */
void
rjob_fds_sent(struct rjob *j)
{
	conn_fd_release(j->conn, j->fds);
	j->fds = 0;
}

/* The job with the runner's id, if it is of one of the kinds (a mask). */
struct rjob *
rjob_find(uint32_t id, unsigned int kinds)
{
	struct rjob	*j;

	TAILQ_FOREACH(j, &rjobs, entry)
		if (j->id == id)
			return (kinds & RJOB_MASK(j->kind)) ? j : NULL;
	return NULL;
}

/* The agent's request still waiting for a descriptor it will send. */
struct rjob *
rjob_waiting(struct ctl_conn *c, uint32_t reqid, unsigned int kinds)
{
	struct rjob	*j;

	TAILQ_FOREACH(j, &rjobs, entry)
		if (j->conn == c && j->reqid == reqid && !j->sent &&
		    (kinds & RJOB_MASK(j->kind)))
			return j;
	return NULL;
}

void
rjob_free(struct rjob *j)
{
	TAILQ_REMOVE(&rjobs, j, entry);
	conn_fd_release(j->conn, j->fds);
	conn_req_release(j->conn);
	j->release(j);
}

void
rjob_conn_gone(struct ctl_conn *c)
{
	struct rjob	*j, *next;

	for (j = TAILQ_FIRST(&rjobs); j != NULL; j = next) {
		next = TAILQ_NEXT(j, entry);
		if (j->conn != c)
			continue;
		/* Sent jobs finish in the runner; their answer is dropped.
		 * The connection's counts go with it. */
		if (j->sent)
			j->conn = NULL;
		else
			rjob_free(j);
	}
}
