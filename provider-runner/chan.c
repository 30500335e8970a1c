/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * chan.c: the runner's side of its channel to the monitor -- composing
 * replies, blobs in chunks, the table of jobs in progress and the tags
 * that name provider sandboxes.
 *
 * Job ids are the monitor's; a job is open from its first message until
 * the DONE that ends it, and an id may not be reused while open (two jobs
 * sharing an id would have their results confused, so the monitor's
 * reusing one is a protocol error and ends the role).  Spawn tags are
 * ours, unique among the sandboxes in flight, so an EXITED report is
 * matched to exactly one run.
 */
#include <string.h>

#include "common.h"
#include "proto.h"
#include "role.h"
#include "runner.h"

#define RUNNER_JOBS_MAX	1024	/* jobs open at once; the monitor caps lower */

static struct imsgbuf	*chan;
static uint32_t		 jobs[RUNNER_JOBS_MAX];
static size_t		 njobs;
static uint32_t		 next_tag = 1;
static int		(*tag_busy)(uint32_t);
static void		(*job_ended)(void);

void
runner_chan_init(struct imsgbuf *ibuf, int (*busy)(uint32_t),
    void (*ended)(void))
{
	chan = ibuf;
	tag_busy = busy;
	job_ended = ended;
}

/* Queue one message; fd (or -1) is sent and then closed by imsg. */
void
runner_send(uint32_t type, uint32_t peerid, int fd, const void *data,
    size_t len)
{
	if (imsg_compose(chan, type, peerid, 0, fd, data, len) == -1)
		fatal("compose message type %u", type);
	role_event_add();
}

/* A blob as IMSG_PR_BLOB chunks below the channel's message cap. */
void
runner_send_blob(uint32_t job, const unsigned char *blob, size_t len)
{
	size_t	 off, n;

	for (off = 0; off < len; off += n) {
		n = len - off > PR_CHUNK ? PR_CHUNK : len - off;
		runner_send(IMSG_PR_BLOB, job, -1, blob + off, n);
	}
}

void
runner_job_claim(uint32_t job)
{
	size_t	 i;

	for (i = 0; i < njobs; i++)
		if (jobs[i] == job)
			fatalx("job %u is already in progress", job);
	if (njobs == RUNNER_JOBS_MAX)
		fatalx("more than %d jobs in progress", RUNNER_JOBS_MAX);
	jobs[njobs++] = job;
}

static void
job_release(uint32_t job)
{
	size_t	 i;

	for (i = 0; i < njobs; i++)
		if (jobs[i] == job)
			break;
	if (i == njobs)
		fatalx("job %u finished but was never started", job);
	jobs[i] = jobs[--njobs];
}

/* IMSG_PR_GATES_DONE ends a gates job, as runner_done ends the others. */
void
runner_gates_done(uint32_t job, const struct pr_gates_done *d)
{
	job_release(job);
	runner_send(IMSG_PR_GATES_DONE, job, -1, d, sizeof(*d));
	job_ended();
}

/* IMSG_PR_DONE ends a job: success with count, or err's refusal. */
void
runner_done(uint32_t job, const struct prov_error *err, uint32_t count)
{
	struct pr_done	 d;

	job_release(job);

	memset(&d, 0, sizeof(d));
	d.count = count;
	if (err != NULL) {
		d.code = (int32_t)err->code;
		d.limit = err->limit;
		strlcpy(d.msg, err->msg, sizeof(d.msg));
		log_debug("job %u: %s: %s", job, prov_code_name(err->code),
		    err->msg);
	}
	runner_send(IMSG_PR_DONE, job, -1, &d, sizeof(d));
	/*
	 * Sandboxes a job took from the pool are replaced now that its
	 * answer is on its way: booting node takes a core for tens of
	 * milliseconds, which the job should not have had to share.
	 * (job_ended: pool_fill, as main.c set it up.)
	 */
	job_ended();
}

/* A tag no sandbox in flight has; 0 is never one. */
uint32_t
runner_tag_new(void)
{
	uint32_t	 t;

	do {
		t = next_tag++;
	} while (t == 0 || tag_busy(t));
	return t;
}

/*
 * A job's deadline and output cap: 0 means the reference's default; the
 * bounds are those sbx.conf accepts.  0, or -1 (invalid-records, as the
 * reference answers a bad limit) with the value and the range.
 */
int
runner_limits(uint32_t timeout_in, uint32_t output_in, uint32_t *timeout,
    size_t *output, struct prov_error *err)
{
	*timeout = timeout_in == 0 ? RUNNER_TIMEOUT_DEFAULT : timeout_in;
	if (*timeout > RUNNER_TIMEOUT_MAX)
		return prov_fail(err, PROV_INVALID_RECORDS, "timeoutMs %u is "
		    "out of range (1 to %d)", *timeout, RUNNER_TIMEOUT_MAX);
	*output = output_in == 0 ? PROV_OUTPUT_DEFAULT : output_in;
	if (*output > RUNNER_OUTPUT_MAX || *output < RUNNER_OUTPUT_MIN)
		return prov_fail(err, PROV_INVALID_RECORDS, "maxOutputBytes "
		    "%zu is out of range (%d to %d)", *output,
		    RUNNER_OUTPUT_MIN, RUNNER_OUTPUT_MAX);
	return 0;
}
