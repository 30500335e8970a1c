/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * audit.c: the audit line of sbx-proxy, as monitor/audit.c is the
 * monitor's: one line per decision of the proxy -- which sandbox and peer,
 * what was asked, where it went, allowed or not and why, bytes each way
 * and how long.  The line goes to the log (stderr, which the monitor
 * relays); with PROXY_F_AUDIT the same record goes to the monitor as
 * IMSG_PROXY_AUDIT, for its JSON audit file.
 */
#include <sys/types.h>

#include <stdio.h>
#include <string.h>

#include "common.h"
#include "proto.h"
#include "role.h"
#include "proxy.h"

static struct imsgbuf	*audit_ibuf;

void
audit_init(struct imsgbuf *ibuf)
{
	audit_ibuf = ibuf;
}

/* Request bytes never reach the log as they are: only printable ASCII,
 * and '"' becomes '\'' so the quoted reason cannot be closed early. */
static void
clean(char *dst, const char *src, size_t len)
{
	size_t	 i;

	for (i = 0; src[i] != '\0' && i + 1 < len; i++)
		dst[i] = src[i] == '"' ? '\'' :
		    (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = '\0';
}

void
audit_decision(const struct proxy_sandbox *sb, const struct proxy_decision *d)
{
	struct proxy_audit	 a;

	memset(&a, 0, sizeof(a));
	a.sandbox = sb->id;
	a.uid = sb->uid;
	a.status = d->status;
	a.allowed = d->allowed != 0;
	a.bytes_up = d->up;
	a.bytes_down = d->down;
	a.duration_ms = d->ms;
	a.port = d->port;
	clean(a.method, d->method != NULL ? d->method : "-", sizeof(a.method));
	clean(a.host, d->host != NULL ? d->host : "-", sizeof(a.host));
	clean(a.addr, d->addr != NULL ? d->addr : "-", sizeof(a.addr));
	clean(a.reason, d->reason != NULL ? d->reason : "-",
	    sizeof(a.reason));
	log_info("audit: proxy sandbox=%u uid=%u method=%s host=%s port=%u "
	    "addr=%s decision=%s status=%u reason=\"%s\" up=%llu down=%llu "
	    "ms=%llu", a.sandbox, a.uid, a.method, a.host, a.port, a.addr,
	    a.allowed ? "allow" : "deny", a.status, a.reason,
	    (unsigned long long)a.bytes_up, (unsigned long long)a.bytes_down,
	    (unsigned long long)a.duration_ms);
	if (!(sb->flags & PROXY_F_AUDIT) || audit_ibuf == NULL)
		return;
	if (imsg_compose(audit_ibuf, IMSG_PROXY_AUDIT, sb->id, 0, -1, &a,
	    sizeof(a)) == -1)
		fatal("composing an audit record");
	role_event_add();
}
