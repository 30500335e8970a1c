/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_monitor_provreg: the registry of issued providers (monitor/provtable.c)
 * -- a handle is its owner's and root's only, a second load of the same
 * snapshot by the same uid finds the first (another uid's, another
 * bundle's or a revoked one does not), the quotas count per uid and in
 * all and name the keyword that refuses, a removed entry a run still
 * holds stays readable until the run lets go, and idle expiry takes only
 * unused, unheld entries, and none when the timeout is off.
 */
#include <sys/types.h>

#include <atf-c.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "monitor/monitor.h"

static struct pr_provider
prov(const char *bundle, const char *id, const char *digest)
{
	struct pr_provider	 p;

	memset(&p, 0, sizeof(p));
	strlcpy(p.bundle_id, bundle, sizeof(p.bundle_id));
	strlcpy(p.id, id, sizeof(p.id));
	strlcpy(p.version, "1.0.0", sizeof(p.version));
	strlcpy(p.code_digest, digest, sizeof(p.code_digest));
	strlcpy(p.source_digest, "sha256:5", sizeof(p.source_digest));
	return p;
}

static struct ptab_entry *
add(uid_t uid, const char *bundle, const char *digest, time_t now)
{
	struct pr_provider	 p = prov(bundle, "x/v1", digest);
	uint8_t			*blob = xmalloc(4);

	memcpy(blob, "blob", 4);
	return ptab_add(uid, &p, blob, 4, now);
}

/* Empty the table between cases (one process runs them all). */
static void
clear(void)
{
	struct ptab_entry	*e;

	while ((e = TAILQ_FIRST(ptab_all())) != NULL)
		ptab_remove(e);
}

ATF_TC_WITHOUT_HEAD(handles);
ATF_TC_BODY(handles, tc)
{
	struct ptab_entry	*a, *b;

	clear();
	a = add(1000, "b", "sha256:1", 0);
	b = add(1000, "b2", "sha256:1", 0);
	ATF_CHECK(strncmp(a->handle, "prv-", 4) == 0);
	ATF_CHECK_EQ(strlen(a->handle), 36);
	ATF_CHECK(strcmp(a->handle, b->handle) != 0);
	ATF_CHECK(ptab_find(a->handle, 1000) == a);
	/* Root sees it; another uid does not, exactly as for no handle. */
	ATF_CHECK(ptab_find(a->handle, 0) == a);
	ATF_CHECK(ptab_find(a->handle, 1001) == NULL);
	ATF_CHECK(ptab_find("prv-0", 1000) == NULL);
	ATF_CHECK_EQ(ptab_count(1000, 0), 2);
	ATF_CHECK_EQ(ptab_count(1001, 0), 0);
	ATF_CHECK_EQ(ptab_count(1001, 1), 2);
	clear();
}

ATF_TC_WITHOUT_HEAD(same);
ATF_TC_BODY(same, tc)
{
	struct pr_provider	 p = prov("b", "x/v1", "sha256:1");
	struct ptab_entry	*a;

	clear();
	a = add(1000, "b", "sha256:1", 0);
	ATF_CHECK(ptab_same(1000, &p) == a);
	/* Another uid, bundle, code, version or source: not the same. */
	ATF_CHECK(ptab_same(1001, &p) == NULL);
	p = prov("c", "x/v1", "sha256:1");
	ATF_CHECK(ptab_same(1000, &p) == NULL);
	p = prov("b", "x/v1", "sha256:2");
	ATF_CHECK(ptab_same(1000, &p) == NULL);
	p = prov("b", "x/v1", "sha256:1");
	strlcpy(p.version, "1.0.1", sizeof(p.version));
	ATF_CHECK(ptab_same(1000, &p) == NULL);
	p = prov("b", "x/v1", "sha256:1");
	strlcpy(p.source_digest, "sha256:6", sizeof(p.source_digest));
	ATF_CHECK(ptab_same(1000, &p) == NULL);
	/* A revoked one is never handed out again. */
	p = prov("b", "x/v1", "sha256:1");
	strlcpy(a->revoked, "unregistered: gone", sizeof(a->revoked));
	ATF_CHECK(ptab_same(1000, &p) == NULL);
	clear();
}

ATF_TC_WITHOUT_HEAD(quotas);
ATF_TC_BODY(quotas, tc)
{
	char	 why[256];

	clear();
	ATF_CHECK_EQ(ptab_admit(1000, 2, 2, 3, why, sizeof(why)), 0);
	add(1000, "a", "sha256:1", 0);
	add(1000, "b", "sha256:1", 0);
	ATF_CHECK_EQ(ptab_admit(1000, 0, 2, 3, why, sizeof(why)), 0);
	ATF_CHECK_EQ(ptab_admit(1000, 1, 2, 3, why, sizeof(why)), -1);
	ATF_CHECK_MSG(strstr(why, "providers-per-peer 2: uid 1000 holds 2 "
	    "providers, 1 more would exceed it") != NULL, "%s", why);
	/* Another uid has its own quota, within the total. */
	ATF_CHECK_EQ(ptab_admit(1001, 1, 2, 3, why, sizeof(why)), 0);
	ATF_CHECK_EQ(ptab_admit(1001, 2, 2, 3, why, sizeof(why)), -1);
	ATF_CHECK_MSG(strstr(why, "max-providers 3: the registry holds 2 "
	    "providers, 2 more would exceed it") != NULL, "%s", why);
	clear();
	ATF_CHECK_EQ(ptab_count(1000, 1), 0);
}

ATF_TC_WITHOUT_HEAD(held);
ATF_TC_BODY(held, tc)
{
	struct ptab_entry	*a;
	char			 h[PR_HANDLE_MAX];

	clear();
	a = add(1000, "b", "sha256:1", 0);
	strlcpy(h, a->handle, sizeof(h));
	ptab_ref(a);
	ptab_remove(a);
	/* Out of the table at once, its bytes still the run's. */
	ATF_CHECK(ptab_find(h, 0) == NULL);
	ATF_CHECK_EQ(ptab_count(1000, 1), 0);
	ATF_CHECK(a->gone);
	ATF_CHECK(memcmp(a->blob, "blob", 4) == 0);
	ptab_remove(a);		/* twice: no effect */
	ptab_unref(a);		/* freed here (ASan and valgrind see it) */
}

static int	 heard;

static void
hear(const struct ptab_entry *e)
{
	(void)e;
	heard++;
}

ATF_TC_WITHOUT_HEAD(expire);
ATF_TC_BODY(expire, tc)
{
	struct ptab_entry	*old, *busy, *fresh;

	clear();
	old = add(1000, "a", "sha256:1", 100);
	busy = add(1000, "b", "sha256:1", 100);
	fresh = add(1000, "c", "sha256:1", 195);
	ptab_ref(busy);
	/* Off: nothing goes, however old. */
	ATF_CHECK_EQ(ptab_expire(1000000, 0, hear), 0);
	ATF_CHECK_EQ(ptab_count(0, 1), 3);
	heard = 0;
	ATF_CHECK_EQ(ptab_expire(200, 100, hear), 1);
	ATF_CHECK_EQ(heard, 1);
	ATF_CHECK(ptab_find(busy->handle, 0) == busy);
	ATF_CHECK(ptab_find(fresh->handle, 0) == fresh);
	ATF_CHECK_EQ(ptab_count(0, 1), 2);
	(void)old;
	ptab_unref(busy);
	ATF_CHECK_EQ(ptab_expire(200, 100, NULL), 1);
	ATF_CHECK_EQ(ptab_expire(295, 100, NULL), 1);
	ATF_CHECK_EQ(ptab_count(0, 1), 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, handles);
	ATF_TP_ADD_TC(tp, same);
	ATF_TP_ADD_TC(tp, quotas);
	ATF_TP_ADD_TC(tp, held);
	ATF_TP_ADD_TC(tp, expire);
	return 0;
}
