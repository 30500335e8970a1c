/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * sbx-provider-runner: everything about gate metric providers that
 * touches untrusted bytes (design.md §1, §5).  It serves the monitor's
 * requests on descriptor 3: the operator's allowlist, loads of bundles
 * handed over as directory descriptors, and invokes of issued providers
 * over records; each provider run happens in a sandbox the monitor
 * starts for it on request (sbrun.c).
 *
 * Like every role it applies its privilege file
 * (provider-runner/provider-runner.priv) before it reads anything.  The
 * protocol is closed: a message type outside this table, a payload of the
 * wrong size, a descriptor where none belongs or a missing one ends the
 * role -- and with it, by design, the service (the monitor fails closed).
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common.h"
#include "proto.h"
#include "role.h"
#include "runner.h"

/* The message carries a descriptor exactly when it should. */
static int
take_fd(struct imsg *imsg, int want)
{
	int	 fd = imsg_get_fd(imsg);

	if (want && fd == -1)
		fatalx("message type %u for job %u lacks its descriptor",
		    imsg_get_type(imsg), imsg_get_id(imsg));
	if (!want && fd != -1)
		fatalx("message type %u for job %u carries a descriptor",
		    imsg_get_type(imsg), imsg_get_id(imsg));
	return fd;
}

static void
h_allowlist(struct imsgbuf *ib, struct imsg *imsg)
{
	(void)ib;
	take_fd(imsg, 0);
	if (imsg_get_len(imsg) > PR_CHUNK)
		fatalx("allowlist chunk of %zu bytes", imsg_get_len(imsg));
	runner_allowlist_chunk(imsg->data, imsg_get_len(imsg));
}

static void
h_allowlist_end(struct imsgbuf *ib, struct imsg *imsg)
{
	struct pr_allowlist_end	 end;
	struct prov_error	 err;
	struct pr_done		 d;

	(void)ib;
	take_fd(imsg, 0);
	if (imsg_get_data(imsg, &end, sizeof(end)) == -1)
		fatalx("allowlist end: bad size");
	runner_allowlist_end(end.total, &err);
	memset(&d, 0, sizeof(d));
	if (err.code != PROV_OK) {
		log_warnx("allowlist refused: %s", err.msg);
		d.code = (int32_t)err.code;
		strlcpy(d.msg, err.msg, sizeof(d.msg));
	}
	runner_send(IMSG_PR_ALLOWLIST_OK, imsg_get_id(imsg), -1, &d,
	    sizeof(d));
}

static void
h_recheck(struct imsgbuf *ib, struct imsg *imsg)
{
	struct pr_recheck	 rc;

	(void)ib;
	take_fd(imsg, 0);
	if (imsg_get_data(imsg, &rc, sizeof(rc)) == -1)
		fatalx("recheck: bad size");
	jobload_recheck(&rc);
	runner_send(IMSG_PR_RECHECKED, 0, -1, &rc, sizeof(rc));
}

static void
h_load(struct imsgbuf *ib, struct imsg *imsg)
{
	struct pr_load	 pl;
	int		 fd;

	(void)ib;
	fd = take_fd(imsg, 1);
	if (imsg_get_data(imsg, &pl, sizeof(pl)) == -1)
		fatalx("load: bad size");
	jobload_start(imsg_get_id(imsg), fd, &pl);
}

static void
h_output(struct imsgbuf *ib, struct imsg *imsg)
{
	struct pr_job	 pj;
	int		 fd;

	(void)ib;
	fd = take_fd(imsg, 1);
	if (imsg_get_data(imsg, &pj, sizeof(pj)) == -1)
		fatalx("output: bad size");
	if (pj.job != imsg_get_id(imsg))
		fatalx("output: job %u in a message for job %u", pj.job,
		    imsg_get_id(imsg));
	jobinvoke_output(imsg_get_id(imsg), fd);
}

static void
h_blob(struct imsgbuf *ib, struct imsg *imsg)
{
	(void)ib;
	take_fd(imsg, 0);
	if (imsg_get_len(imsg) == 0 || imsg_get_len(imsg) > PR_CHUNK)
		fatalx("blob chunk of %zu bytes", imsg_get_len(imsg));
	/* A gates job's lookups bring blobs too (jobgates.c). */
	if (jobgates_has(imsg_get_id(imsg)))
		jobgates_blob(imsg_get_id(imsg), imsg->data,
		    imsg_get_len(imsg));
	else
		jobinvoke_blob(imsg_get_id(imsg), imsg->data,
		    imsg_get_len(imsg));
}

static void
h_invoke(struct imsgbuf *ib, struct imsg *imsg)
{
	struct pr_invoke	 inv;
	int			 fd;

	(void)ib;
	fd = take_fd(imsg, 1);
	if (imsg_get_data(imsg, &inv, sizeof(inv)) == -1)
		fatalx("invoke: bad size");
	jobinvoke_start(imsg_get_id(imsg), fd, &inv);
}

static void
h_gates_doc(struct imsgbuf *ib, struct imsg *imsg)
{
	struct pr_gates_doc	 gd;
	int			 fd;

	(void)ib;
	if (imsg_get_data(imsg, &gd, sizeof(gd)) == -1)
		fatalx("gates doc: bad size");
	/* A document its opener could not reach comes as its errno. */
	fd = take_fd(imsg, gd.err == 0);
	jobgates_doc(imsg_get_id(imsg), fd, &gd);
}

static void
h_gates_eval(struct imsgbuf *ib, struct imsg *imsg)
{
	struct pr_gates_eval	 ge;
	int			 fd;

	(void)ib;
	fd = take_fd(imsg, 1);
	if (imsg_get_data(imsg, &ge, sizeof(ge)) == -1)
		fatalx("gates eval: bad size");
	jobgates_start(imsg_get_id(imsg), fd, &ge);
}

static void
h_gates_issued(struct imsgbuf *ib, struct imsg *imsg)
{
	static struct pr_gates_issued	 gi;

	(void)ib;
	take_fd(imsg, 0);
	if (imsg_get_data(imsg, &gi, sizeof(gi)) == -1)
		fatalx("gates issued: bad size");
	jobgates_issued(imsg_get_id(imsg), &gi);
}

static void
h_exited(struct imsgbuf *ib, struct imsg *imsg)
{
	struct launch_exit	 ex;

	(void)ib;
	take_fd(imsg, 0);
	if (imsg_get_data(imsg, &ex, sizeof(ex)) == -1)
		fatalx("exited: bad size");
	if (!pool_exited(imsg_get_id(imsg), &ex))
		sbrun_exited(imsg_get_id(imsg), &ex);
}

static void
h_pool(struct imsgbuf *ib, struct imsg *imsg)
{
	struct pr_pool	 pp;

	(void)ib;
	take_fd(imsg, 0);
	if (imsg_get_data(imsg, &pp, sizeof(pp)) == -1)
		fatalx("pool: bad size");
	pool_resize(pp.size);
}

/* Spawn tags name one sandbox in flight, a run's or a pooled one. */
static int
tag_busy(uint32_t tag)
{
	return sbrun_busy(tag) || pool_busy(tag);
}

static const struct role_handler handlers[] = {
	{ IMSG_PR_ALLOWLIST, ROLE_LEN_ANY, h_allowlist },
	{ IMSG_PR_ALLOWLIST_END, sizeof(struct pr_allowlist_end),
	    h_allowlist_end },
	{ IMSG_PR_LOAD, sizeof(struct pr_load), h_load },
	{ IMSG_PR_RECHECK, sizeof(struct pr_recheck), h_recheck },
	{ IMSG_PR_OUTPUT, sizeof(struct pr_job), h_output },
	{ IMSG_PR_BLOB, ROLE_LEN_ANY, h_blob },
	{ IMSG_PR_INVOKE, sizeof(struct pr_invoke), h_invoke },
	{ IMSG_PR_EXITED, sizeof(struct launch_exit), h_exited },
	{ IMSG_PR_POOL, sizeof(struct pr_pool), h_pool },
	{ IMSG_PR_GATES_DOC, sizeof(struct pr_gates_doc), h_gates_doc },
	{ IMSG_PR_GATES_EVAL, sizeof(struct pr_gates_eval), h_gates_eval },
	{ IMSG_PR_GATES_ISSUED, sizeof(struct pr_gates_issued),
	    h_gates_issued },
};

/*
 * An invoke of 10,000 records allocates a few megabytes -- the records
 * buffer, the parsed tree, its canonical text, the request -- and frees
 * them at its end.  With glibc's defaults the big buffers come from mmap
 * and the heap is trimmed after every run, so the next run pays a page
 * fault and a zeroed page for every 4 KiB of it again: about 1.5 ms on
 * top of the 3.5 ms that parsing, canonicalising and hashing such
 * records take, measured.  Keeping up to
 * RUNNER_HEAP_KEEP bytes of freed heap makes runs reuse warm memory; a
 * run larger than that still gets mmap and returns it.
 */
#define RUNNER_HEAP_KEEP	(16 * 1024 * 1024)

static void
memory_tune(void)
{
#ifndef SBX_SANITIZE
	if (mallopt(M_MMAP_THRESHOLD, RUNNER_HEAP_KEEP) != 1 ||
	    mallopt(M_TRIM_THRESHOLD, RUNNER_HEAP_KEEP) != 1)
		log_warnx("mallopt %d failed; runs will fault their memory "
		    "in again", RUNNER_HEAP_KEEP);
#endif
	/* A sanitizer build's allocator is ASan's: nothing to tune. */
}

SBX_SANITIZER_ROLE_OPTIONS

int
main(int argc, char *argv[])
{
	static struct imsgbuf	 ibuf;

	/*
	 * A provider sandbox that dies while we write its stdin must cost
	 * that run an EPIPE, not the role its life.  A result descriptor
	 * that is a file past our size limit fails the same way.
	 */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	role_init(argc, argv, "provider-runner", &priv_table_provider_runner,
	    &ibuf);
	/* Nonces come from libsodium: set it up once, under the filter. */
	if (sodium_init() == -1)
		fatalx("sodium_init failed");
	memory_tune();
	runner_chan_init(&ibuf, tag_busy, pool_fill);
	role_serve(&ibuf, handlers, nitems(handlers));
}
