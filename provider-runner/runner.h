/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * runner.h: the one header of sbx-provider-runner -- its channel to the
 * monitor, bounded descriptor I/O, provider sandboxes (pooled or not) and
 * the jobs the monitor hands it.  What it does to bundles, records and
 * frames is the provider library's (provider/provider.h).
 */
#ifndef SBX_RUNNER_H
#define SBX_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "proto.h"
#include "provider/provider.h"

/* ---- pio.c: bounded, event-driven I/O on one descriptor ---------------- */
enum pio_status {
	PIO_RUNNING,
	PIO_DONE,		/* reader: EOF; writer: every byte written */
	PIO_OVERFLOW,		/* reader: more than max bytes */
	PIO_ERROR,		/* error holds errno */
	PIO_TIMEOUT
};

struct pio;
typedef void	(*pio_cb)(struct pio *, void *);

/*
 * Read fd to EOF (at most max bytes) or write len bytes of buf (owned from
 * here on) to it; cb runs once, from the event loop, when the transfer
 * ends.  The descriptor is owned and closed when the transfer ends.  A
 * timeout of 0 means none.
 */
struct pio	*pio_read(int, size_t, uint32_t, pio_cb, void *);
struct pio	*pio_write(int, unsigned char *, size_t, uint32_t, pio_cb,
		    void *);
enum pio_status	 pio_status(const struct pio *);
int		 pio_error(const struct pio *);
const unsigned char *pio_data(const struct pio *, size_t *);
void		 pio_free(struct pio *);

/* ---- chan.c: the role's side of the monitor channel --------------------- */
/*
 * runner_chan_init(channel, tag_busy, job_ended): the sandboxes (sbrun.c,
 * pool.c) use the channel, so the channel does not call them: main.c
 * names, once, what says whether a tag is taken and what runs after a
 * job's answer went out (refilling the pool).
 */
void	 runner_chan_init(struct imsgbuf *, int (*)(uint32_t), void (*)(void));
/* runner_send(type, peerid, fd or -1, data, len); fatal on failure. */
void	 runner_send(uint32_t, uint32_t, int, const void *, size_t);
void	 runner_send_blob(uint32_t, const unsigned char *, size_t);
void	 runner_job_claim(uint32_t);
void	 runner_done(uint32_t, const struct prov_error *, uint32_t);
void	 runner_gates_done(uint32_t, const struct pr_gates_done *);
uint32_t runner_tag_new(void);

/* ---- trust.c: the operator's allowlist as the monitor sent it ---------- */
struct runner_allowlist {
	struct prov_allowlist	 al;
	unsigned char		*raw;		/* the file's bytes */
	size_t			 rawlen;
	int			 refs;
};

void	 runner_allowlist_chunk(const void *, size_t);
void	 runner_allowlist_end(uint32_t, struct prov_error *);
struct runner_allowlist *runner_allowlist_ref(void);
void	 runner_allowlist_unref(struct runner_allowlist *);

/* ---- sbrun.c: one provider sandbox, through the monitor ----------------- */
/* The verdict: the frame's body (the callee's to free), or the refusal. */
typedef void	(*sbrun_cb)(void *, struct json_value *,
		    const struct prov_error *);

/*
 * sbrun_start(job, request, reqlen, nonce, timeout_ms, max_output,
 * reserved, cb, arg, err): ask the monitor for a sandbox (or use the job's
 * reserved one, pool_reserve, if not 0) and feed it request (owned from
 * here on); cb runs once with the verdict.  0, or -1 with err when
 * the run could not even be asked for.
 */
int	 sbrun_start(uint32_t, char *, size_t, const char *, uint32_t,
	    size_t, uint32_t, sbrun_cb, void *, struct prov_error *);
void	 sbrun_exited(uint32_t, const struct launch_exit *);
int	 sbrun_busy(uint32_t);

/* ---- pool.c: provider sandboxes booted ahead (provider-pool) ----------- */
void	 pool_resize(uint32_t);
int	 pool_take(uint32_t *, int *, int *);
uint32_t pool_reserve(void);
int	 pool_claim(uint32_t, int *, int *);
void	 pool_release(uint32_t);
void	 pool_fill(void);
int	 pool_exited(uint32_t, const struct launch_exit *);
int	 pool_busy(uint32_t);

/* ---- jobload.c, jobinvoke.c: the monitor's requests --------------------- */
/* The ranges sbx.conf accepts (provider-timeout, provider-max-output):
 * the monitor never sends more, and a valid configuration must work. */
#define RUNNER_TIMEOUT_DEFAULT	5000		/* ms */
#define RUNNER_TIMEOUT_MAX	PR_TIMEOUT_MAX
#define RUNNER_OUTPUT_MIN	2048
#define RUNNER_OUTPUT_MAX	(64 * 1024 * 1024)
#define RUNNER_RECORDS_BYTES	JSON_MAX_BYTES_DEFAULT
/* A result is the frame's JSON twice (the section's metrics and the whole
 * result) plus the pins. */
#define RUNNER_RESULT_MAX	(2 * RUNNER_OUTPUT_MAX + 64 * 1024)

int	 runner_limits(uint32_t, uint32_t, uint32_t *, size_t *,
	    struct prov_error *);
void	 jobload_start(uint32_t, int, const struct pr_load *);
struct pr_recheck;
void	 jobload_recheck(struct pr_recheck *);
void	 jobinvoke_output(uint32_t, int);
void	 jobinvoke_blob(uint32_t, const void *, size_t);
void	 jobinvoke_start(uint32_t, int, const struct pr_invoke *);

/* ---- jobgates.c: gates evaluate with isolated re-runs ------------------- */
void	 jobgates_doc(uint32_t, int, const struct pr_gates_doc *);
void	 jobgates_blob(uint32_t, const void *, size_t);
void	 jobgates_issued(uint32_t, const struct pr_gates_issued *);
void	 jobgates_start(uint32_t, int, const struct pr_gates_eval *);
int	 jobgates_has(uint32_t);

#endif /* SBX_RUNNER_H */
