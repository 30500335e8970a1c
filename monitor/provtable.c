/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * provtable.c: the registry of issued providers (provreg.c's table), kept
 * apart from the requests so that its rules are testable alone
 * (t_monitor_provreg): who may see a handle, when a load re-issues a
 * handle instead of a new one, the quotas, unload and idle expiry.
 *
 * Threats it answers: one agent filling the registry for every other
 * (providers-per-peer below max-providers: a flood costs its own quota
 * only); a handle copied to another peer (it is "no provider issued to
 * you" for anyone but its owner and root, the same words whether it
 * exists or not, so a handle cannot be probed); a run still using an
 * entry that an unload, an expiry or a reload removed (the entry leaves
 * the table at once and its bytes stay until the last run lets go).
 */
#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "proto.h"
#include "monitor.h"

static struct ptab_entries	 table = TAILQ_HEAD_INITIALIZER(table);
static size_t			 ntable;

struct ptab_entries *
ptab_all(void)
{
	return &table;
}

size_t
ptab_count(uid_t uid, int all)
{
	struct ptab_entry	*e;
	size_t			 n = 0;

	if (all)
		return ntable;
	TAILQ_FOREACH(e, &table, entry)
		if (e->uid == uid)
			n++;
	return n;
}

/* A handle copied to another peer is not theirs; root sees every one. */
struct ptab_entry *
ptab_find(const char *handle, uid_t uid)
{
	struct ptab_entry	*e;

	TAILQ_FOREACH(e, &table, entry)
		if (strcmp(e->handle, handle) == 0)
			return e->uid == uid || uid == 0 ? e : NULL;
	return NULL;
}

/*
 * The entry uid already holds for exactly this snapshot (bundle, id,
 * version, code and source digests): a second load of the same bundle
 * gets that handle back.  A revoked one is never handed out again.
 */
struct ptab_entry *
ptab_same(uid_t uid, const struct pr_provider *p)
{
	struct ptab_entry	*e;

	TAILQ_FOREACH(e, &table, entry)
		if (e->uid == uid && e->revoked[0] == '\0' &&
		    strcmp(e->p.bundle_id, p->bundle_id) == 0 &&
		    strcmp(e->p.id, p->id) == 0 &&
		    strcmp(e->p.version, p->version) == 0 &&
		    strcmp(e->p.code_digest, p->code_digest) == 0 &&
		    strcmp(e->p.source_digest, p->source_digest) == 0)
			return e;
	return NULL;
}

/*
 * May uid get n more entries?  0, or -1 with why naming the quota that
 * refuses (sbx.conf's keyword and its value).
 */
int
ptab_admit(uid_t uid, size_t n, uint32_t per_peer, uint32_t max, char *why,
    size_t len)
{
	size_t	 mine = ptab_count(uid, 0);

	if (mine + n > per_peer) {
		snprintf(why, len, "providers-per-peer %u: uid %u holds %zu "
		    "provider%s, %zu more would exceed it (provider unload "
		    "frees them)", per_peer, (unsigned)uid, mine,
		    mine == 1 ? "" : "s", n);
		return -1;
	}
	if (ntable + n > max) {
		snprintf(why, len, "max-providers %u: the registry holds %zu "
		    "providers, %zu more would exceed it", max, ntable, n);
		return -1;
	}
	return 0;
}

static void
handle_new(char out[PR_HANDLE_MAX])
{
	uint8_t	 rnd[16];
	size_t	 i;

	arc4random_buf(rnd, sizeof(rnd));
	memcpy(out, "prv-", 4);
	for (i = 0; i < sizeof(rnd); i++)
		snprintf(out + 4 + i * 2, 3, "%02x", rnd[i]);
}

/* Takes blob (malloc'd); the handle is new and unguessable. */
struct ptab_entry *
ptab_add(uid_t uid, const struct pr_provider *p, uint8_t *blob,
    size_t bloblen, time_t now)
{
	struct ptab_entry	*e;

	e = xcalloc(1, sizeof(*e));
	do
		handle_new(e->handle);
	while (ptab_find(e->handle, 0) != NULL);
	e->uid = uid;
	e->p = *p;
	e->blob = blob;
	e->bloblen = bloblen;
	e->used = now;
	TAILQ_INSERT_TAIL(&table, e, entry);
	ntable++;
	return e;
}

static void
entry_free(struct ptab_entry *e)
{
	free(e->blob);
	free(e);
}

/* Out of the table now; freed when no run holds it any more. */
void
ptab_remove(struct ptab_entry *e)
{
	if (e->gone)
		return;
	TAILQ_REMOVE(&table, e, entry);
	ntable--;
	e->gone = 1;
	if (e->refs == 0)
		entry_free(e);
}

void
ptab_ref(struct ptab_entry *e)
{
	e->refs++;
}

void
ptab_unref(struct ptab_entry *e)
{
	if (e->refs == 0)
		fatalx("%s: %s not held", __func__, e->handle);
	if (--e->refs == 0 && e->gone)
		entry_free(e);
}

/*
 * Entries unused for idle seconds or more (0: never), none of them in a
 * run, leave the table; fn (if set) hears of each before it goes.
 */
size_t
ptab_expire(time_t now, uint32_t idle, void (*fn)(const struct ptab_entry *))
{
	struct ptab_entry	*e, *next;
	size_t			 n = 0;

	if (idle == 0)
		return 0;
	TAILQ_FOREACH_SAFE(e, &table, entry, next) {
		if (e->refs > 0 || now - e->used < (time_t)idle)
			continue;
		if (fn != NULL)
			fn(e);
		ptab_remove(e);
		n++;
	}
	return n;
}
