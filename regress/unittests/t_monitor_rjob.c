/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_monitor_rjob: the monitor's table of requests handed to the provider
 * runner (monitor/rjob.c), which provider loads and invokes and gates
 * evaluations share: ids are unique across kinds and never 0, a lookup
 * sees only the kinds asked for, a request waiting for its descriptors is
 * found by its agent and request id, and when an agent goes away its
 * unsent requests are freed (by their owner's release) while the sent ones
 * stay for the runner's answer, which then goes nowhere.
 */
#include <sys/types.h>

#include <atf-c.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "monitor/monitor.h"

static int	 released;

static void
release(struct rjob *j)
{
	released++;
	free(j);
}

static struct rjob *
add(enum rjob_kind kind, struct ctl_conn *c, uint32_t reqid)
{
	struct rjob	*j;

	j = xcalloc(1, sizeof(*j));
	rjob_add(j, kind, c, reqid, 1000, 42, release);
	return j;
}

/* Agents are only compared by address here: any distinct pointers. */
static char	 agent_a, agent_b;
#define A	((struct ctl_conn *)&agent_a)
#define B	((struct ctl_conn *)&agent_b)

/*
 * reply.c's counts of what a connection holds, for its caps: here
 * only for A and B, so that a hold without its release (or a release
 * of a connection that is gone) shows.
 */
static int	 reqs[2], fds[2];

static int
agent(struct ctl_conn *c)
{
	if (c == A)
		return 0;
	if (c == B)
		return 1;
	atf_tc_fail("a hold or release for an unknown connection");
	return 0;
}

void
conn_req_hold(struct ctl_conn *c)
{
	if (c != NULL)
		reqs[agent(c)]++;
}

void
conn_req_release(struct ctl_conn *c)
{
	if (c != NULL)
		reqs[agent(c)]--;
}

void
conn_fd_hold(struct ctl_conn *c, unsigned n)
{
	if (c != NULL)
		fds[agent(c)] += (int)n;
}

void
conn_fd_release(struct ctl_conn *c, unsigned n)
{
	if (c != NULL)
		fds[agent(c)] -= (int)n;
}

ATF_TC_WITHOUT_HEAD(ids_and_kinds);
ATF_TC_BODY(ids_and_kinds, tc)
{
	struct rjob	*l, *i, *g;
	uint32_t	 gid;

	l = add(RJOB_LOAD, A, 1);
	i = add(RJOB_INVOKE, A, 2);
	g = add(RJOB_GATES, B, 1);
	ATF_CHECK(l->id != 0 && i->id != 0 && g->id != 0);
	ATF_CHECK(l->id != i->id && i->id != g->id && l->id != g->id);
	ATF_CHECK_EQ(l->uid, 1000);
	ATF_CHECK_EQ(l->peerpid, 42);
	ATF_CHECK_EQ(l->sent, 0);
	ATF_CHECK_EQ(rjob_find(l->id, RJOB_MASK(RJOB_LOAD)), l);
	ATF_CHECK_EQ(rjob_find(l->id, RJOB_MASK(RJOB_INVOKE)), NULL);
	ATF_CHECK_EQ(rjob_find(g->id, RJOB_MASK(RJOB_LOAD) |
	    RJOB_MASK(RJOB_INVOKE)), NULL);
	ATF_CHECK_EQ(rjob_find(g->id, RJOB_MASK(RJOB_GATES)), g);
	ATF_CHECK_EQ(rjob_find(i->id, RJOB_MASK(RJOB_LOAD) |
	    RJOB_MASK(RJOB_INVOKE)), i);
	ATF_CHECK_EQ(rjob_find(g->id + 1000, ~0U), NULL);
	gid = g->id;
	released = 0;
	rjob_free(l);
	rjob_free(i);
	rjob_free(g);
	ATF_CHECK_EQ(released, 3);
	ATF_CHECK_EQ(rjob_find(gid, ~0U), NULL);
}

ATF_TC_WITHOUT_HEAD(waiting);
ATF_TC_BODY(waiting, tc)
{
	struct rjob	*i, *g;

	i = add(RJOB_INVOKE, A, 7);
	g = add(RJOB_GATES, A, 7);
	/* The same request id from the same agent, told apart by kind. */
	ATF_CHECK_EQ(rjob_waiting(A, 7, RJOB_MASK(RJOB_INVOKE)), i);
	ATF_CHECK_EQ(rjob_waiting(A, 7, RJOB_MASK(RJOB_GATES)), g);
	ATF_CHECK_EQ(rjob_waiting(B, 7, RJOB_MASK(RJOB_GATES)), NULL);
	ATF_CHECK_EQ(rjob_waiting(A, 8, RJOB_MASK(RJOB_GATES)), NULL);
	/* Once the runner has it, it waits for nothing from the agent. */
	g->sent = 1;
	ATF_CHECK_EQ(rjob_waiting(A, 7, RJOB_MASK(RJOB_GATES)), NULL);
	rjob_free(i);
	rjob_free(g);
}

ATF_TC_WITHOUT_HEAD(conn_gone);
ATF_TC_BODY(conn_gone, tc)
{
	struct rjob	*sent, *unsent, *other;
	uint32_t	 sid, uid, oid;

	sent = add(RJOB_INVOKE, A, 1);
	unsent = add(RJOB_GATES, A, 2);
	other = add(RJOB_LOAD, B, 1);
	sent->sent = 1;
	sid = sent->id;
	uid = unsent->id;
	oid = other->id;
	released = 0;
	rjob_conn_gone(A);
	ATF_CHECK_EQ(released, 1);
	ATF_CHECK_EQ(rjob_find(uid, ~0U), NULL);
	ATF_CHECK_EQ(rjob_find(sid, ~0U), sent);
	ATF_CHECK_EQ(sent->conn, NULL);
	ATF_CHECK_EQ(rjob_find(oid, ~0U), other);
	ATF_CHECK_EQ(other->conn, B);
	rjob_free(sent);
	rjob_free(other);
	ATF_CHECK_EQ(released, 3);
}

/* A job is in flight for its agent until freed; its descriptors are
 * held until sent to the runner or freed; a gone agent's counts are not
 * touched again. */
ATF_TC_WITHOUT_HEAD(holds);
ATF_TC_BODY(holds, tc)
{
	struct rjob	*g, *i, *s;

	memset(reqs, 0, sizeof(reqs));
	memset(fds, 0, sizeof(fds));
	g = add(RJOB_GATES, A, 1);
	i = add(RJOB_INVOKE, A, 2);
	ATF_CHECK_EQ(reqs[0], 2);
	rjob_fd_hold(g);
	rjob_fd_hold(g);
	rjob_fd_hold(i);
	ATF_CHECK_EQ(fds[0], 3);
	/* Sent: the descriptors are the runner's, the request in flight. */
	g->sent = 1;
	rjob_fds_sent(g);
	ATF_CHECK_EQ(fds[0], 1);
	ATF_CHECK_EQ(reqs[0], 2);
	/* Freed unsent: its descriptor and its request are let go. */
	rjob_free(i);
	ATF_CHECK_EQ(fds[0], 0);
	ATF_CHECK_EQ(reqs[0], 1);
	rjob_free(g);
	ATF_CHECK_EQ(reqs[0], 0);
	/* The agent leaves: unsent jobs release, sent ones keep quiet. */
	s = add(RJOB_GATES, B, 1);
	rjob_fd_hold(s);
	s->sent = 1;
	rjob_fds_sent(s);
	g = add(RJOB_GATES, B, 2);
	rjob_fd_hold(g);
	ATF_CHECK_EQ(reqs[1], 2);
	ATF_CHECK_EQ(fds[1], 1);
	rjob_conn_gone(B);
	ATF_CHECK_EQ(reqs[1], 1);
	ATF_CHECK_EQ(fds[1], 0);
	rjob_free(s);
	ATF_CHECK_EQ(reqs[1], 1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, holds);
	ATF_TP_ADD_TC(tp, ids_and_kinds);
	ATF_TP_ADD_TC(tp, waiting);
	ATF_TP_ADD_TC(tp, conn_gone);
	return atf_no_error();
}
