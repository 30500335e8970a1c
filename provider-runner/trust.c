/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * trust.c: the operator's allowlist, the trust root (interop.md §P4), as
 * the monitor relays it: the file's bytes in chunks, then END with the
 * total.
 *
 * Only a valid allowlist replaces the current one: a bad file (a typo in
 * a reload) must not leave the service with no trust root or a partial
 * one, and the monitor hears why.  Before any valid allowlist the trust
 * root is empty, which the reference defines as refusing every provider
 * ("unregistered"; an omitted allowlist is []).  A load in progress keeps
 * a reference to the allowlist it started with, so a reload cannot free
 * the entries under it, and each load is judged by one trust root.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "proto.h"
#include "runner.h"

static unsigned char		*pending;
static size_t			 pending_len;
static int			 pending_oversize;
static struct runner_allowlist	*current;

void
runner_allowlist_chunk(const void *data, size_t len)
{
	if (pending_oversize)
		return;
	if (len > PR_ALLOWLIST_MAX - pending_len) {
		/* Keep counting nothing: the END reply says why. */
		pending_oversize = 1;
		freezero(pending, pending_len);
		pending = NULL;
		pending_len = 0;
		return;
	}
	pending = xrecallocarray(pending, pending_len, pending_len + len, 1);
	memcpy(pending + pending_len, data, len);
	pending_len += len;
}

void
runner_allowlist_end(uint32_t total, struct prov_error *err)
{
	struct runner_allowlist	*ra;

	memset(err, 0, sizeof(*err));
	ra = xcalloc(1, sizeof(*ra));
	if (pending_oversize)
		prov_fail(err, PROV_INVALID_ALLOWLIST, "allowlist: more than "
		    "%d bytes", PR_ALLOWLIST_MAX);
	else if (total != pending_len)
		prov_fail(err, PROV_INVALID_ALLOWLIST, "allowlist: %u bytes "
		    "announced, %zu received", total, pending_len);
	else if (prov_allowlist_parse(pending, pending_len, &ra->al,
	    err) == 0) {
		ra->refs = 1;
		/* The same file is the gates configuration (floors and
		 * ceilings) that evaluations read. */
		ra->raw = pending;
		ra->rawlen = pending_len;
		pending = NULL;
		runner_allowlist_unref(current);
		current = ra;
		ra = NULL;
		err->code = PROV_OK;
		log_info("allowlist: %zu entries", current->al.n);
	}
	free(ra);
	freezero(pending, pending_len);
	pending = NULL;
	pending_len = 0;
	pending_oversize = 0;
}

/* The current trust root, or NULL before any valid allowlist. */
struct runner_allowlist *
runner_allowlist_ref(void)
{
	if (current != NULL)
		current->refs++;
	return current;
}

void
runner_allowlist_unref(struct runner_allowlist *ra)
{
	if (ra == NULL || --ra->refs > 0)
		return;
	prov_allowlist_free(&ra->al);
	freezero(ra->raw, ra->rawlen);
	free(ra);
}
