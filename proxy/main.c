/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * sbx-proxy: the HTTP/1.1 egress proxy of sbx (design.md §1).  It serves
 * listeners that sandboxes' pid 1 made in their own network namespaces,
 * with each sandbox's policy as the monitor sent it, and nothing else.
 * Like every role it applies its privilege file (proxy/proxy.priv)
 * before it reads anything, and any message outside its table ends it;
 * the resolver and the host's addresses are read just before that.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <signal.h>
#include <stddef.h>

#include "common.h"
#include "proto.h"
#include "role.h"
#include "proxy.h"

static const struct role_handler proxy_handlers[] = {
	{ IMSG_PROXY_POLICY, sizeof(struct proxy_policy_msg),
	    sandbox_imsg_policy },
	{ IMSG_PROXY_RULE, sizeof(struct proxy_rule_msg), sandbox_imsg_rule },
	{ IMSG_PROXY_POLICY_END, sizeof(struct proxy_policy_end),
	    sandbox_imsg_policy_end },
	{ IMSG_PROXY_LISTEN, sizeof(struct proxy_sandbox_msg),
	    sandbox_imsg_listen },
	{ IMSG_PROXY_END, sizeof(struct proxy_sandbox_msg),
	    sandbox_imsg_end },
	{ IMSG_PROXY_STATS_REQ, sizeof(struct proxy_stats_req),
	    sandbox_imsg_stats },
};

static void
proxy_prepare(void)
{
	/* A client gone mid-write must be an error return, not a kill. */
	signal(SIGPIPE, SIG_IGN);
	resolve_init(role_base());
}

SBX_SANITIZER_ROLE_OPTIONS

int
main(int argc, char *argv[])
{
	struct imsgbuf	 ibuf;

	role_before_priv(proxy_prepare);
	role_init(argc, argv, "proxy", &priv_table_proxy, &ibuf);
	audit_init(&ibuf);
	role_serve(&ibuf, proxy_handlers, nitems(proxy_handlers));
}
