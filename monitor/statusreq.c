/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * statusreq.c: the answer to STATUS (sbx-protocol(7)).  control.c hands the
 * request to the self-test (selftest_status), which asks the proxy for
 * its live figures once it ran (egress_status); with them, egress.c
 * comes here, and the reply is assembled from every part of the monitor.
 * Its own file, so that control.c, which reads requests, is called by
 * none of the parts it calls.
 */
#include <sys/types.h>

#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "libsbx/sbx.h"
#include "monitor.h"

/*
 * Who sees what in STATUS: root and the monitor's own user see every
 * tenant; any other peer only what connections of its own uid started.
 * The service's own state (roles, self-test, pool, limits) is no
 * tenant's and is shown to all.
 */
static int
status_sees_all(const struct ctl_conn *c)
{
	return c->uid == 0 || c->uid == getuid();
}

/*
 * The proxy's figures as a peer that sees only its own may have them:
 * its own live tunnels and their number.  The service-wide totals
 * (connections, requests, denials, bytes) add up every tenant's traffic
 * and are left out, as is every tunnel of a sandbox another uid started
 * (its host, address and bytes).  Takes proxy; returns the new object.
 */
static cJSON *
status_proxy_own(cJSON *proxy, uid_t uid)
{
	cJSON	*o, *own, *live, *t, *next, *sb;
	uid_t	 owner;

	if ((o = cJSON_CreateObject()) == NULL ||
	    (own = cJSON_CreateArray()) == NULL)
		fatalx("out of memory");
	live = cJSON_GetObjectItemCaseSensitive(proxy, "live");
	for (t = live != NULL ? live->child : NULL; t != NULL; t = next) {
		next = t->next;
		sb = cJSON_GetObjectItemCaseSensitive(t, "sandbox");
		if (!cJSON_IsNumber(sb) || sb->valuedouble < 0 ||
		    sb->valuedouble > UINT32_MAX ||
		    msb_owner((uint32_t)sb->valuedouble, &owner) == -1 ||
		    owner != uid)
			continue;
		cJSON_AddItemToArray(own, cJSON_DetachItemViaPointer(live, t));
	}
	cJSON_AddNumberToObject(o, "tunnels", cJSON_GetArraySize(own));
	cJSON_AddItemToObject(o, "live", own);
	cJSON_Delete(proxy);
	return o;
}

void
status_send(struct ctl_conn *c, uint32_t id, cJSON *proxy)
{
	cJSON		*o, *arr, *r;
	unsigned	 n;
	int		 i, all = status_sees_all(c);

	o = reply_object();
	cJSON_AddStringToObject(o, "version", SBX_VERSION);
	cJSON_AddNumberToObject(o, "uptime",
	    (double)(time(NULL) - monitor_started));
	cJSON_AddNumberToObject(o, "pid", (double)getpid());
	cJSON_AddStringToObject(o, "user", monitor_user);
	if ((arr = cJSON_AddArrayToObject(o, "roles")) == NULL)
		fatalx("out of memory");
	for (i = 0; i < ROLE_MAX; i++) {
		if ((r = cJSON_CreateObject()) == NULL)
			fatalx("out of memory");
		cJSON_AddStringToObject(r, "name", roles[i].name);
		cJSON_AddNumberToObject(r, "pid", (double)roles[i].pid);
		cJSON_AddStringToObject(r, "user", roles[i].user);
		cJSON_AddItemToArray(arr, r);
	}
	/* "own": connections, sandboxes and proxy are the peer's only. */
	cJSON_AddStringToObject(o, "scope", all ? "all" : "own");
	cJSON_AddNumberToObject(o, "connections", all ? conn_count() :
	    conn_count_uid(c->uid));
	cJSON_AddNumberToObject(o, "sandboxes", all ? msb_count() :
	    msb_count_uid(c->uid));
	/* Pooled provider sandboxes booted and waiting for a run. */
	if ((r = cJSON_AddObjectToObject(o, "provider_pool")) == NULL)
		fatalx("out of memory");
	cJSON_AddNumberToObject(r, "size", provider_pool_size());
	cJSON_AddNumberToObject(r, "idle", msb_pool_idle());
	/* Warm command sandboxes built ahead of a run (sbx.conf warm N),
	 * everyone's or the peer's own: those that can take a run now,
	 * and those still being built, which a run would not wait for. */
	if ((r = cJSON_AddObjectToObject(o, "warm")) == NULL)
		fatalx("out of memory");
	n = msb_warm_count(all, c->uid, 1);
	cJSON_AddNumberToObject(r, "idle", n);
	cJSON_AddNumberToObject(r, "building",
	    msb_warm_count(all, c->uid, 0) - n);
	/* Memory and pids caps: what the launcher used, or before any
	 * sandbox, what the subtree laid out at start-up offers. */
	if (msb_limits() != 0)
		msb_limits_json(o, msb_limits());
	else if (strcmp(cgroups_mechanism(), "rlimit") == 0)
		msb_limits_json(o, SBX_LIMIT_RLIMIT);
	else
		msb_limits_json(o, SBX_LIMIT_CGROUP |
		    (strcmp(cgroups_mechanism(), "cgroup v2") == 0 ?
		    SBX_LIMIT_CGV2 : 0));
	/* cgroup-favordynmods held: no grace period per cgroup move. */
	if (cgroups_favordynmods())
		cJSON_AddBoolToObject(o, "favordynmods", 1);
	/* What the sandboxes of each peer uid cost, summed since start. */
	cJSON_AddItemToObject(o, "usage", msb_usage_json(all, c->uid));
	cJSON_AddItemToObject(o, "selftest", selftest_json());
	cJSON_AddItemToObject(o, "proxy", all ? proxy :
	    status_proxy_own(proxy, c->uid));
	reply_send(c, SBX_MSG_STATUS, id, o);
}
