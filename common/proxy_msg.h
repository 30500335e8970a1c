/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * proxy_msg.h: proxy_msg.c -- building and queueing the monitor's
 * messages to the proxy (proto.h).
 */
#ifndef SBX_PROXY_MSG_H
#define SBX_PROXY_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "imsg.h"
#include "proto.h"

void	 proxy_policy_init(struct proxy_policy_msg *, uint32_t sandbox,
	    uint32_t uid);
int	 proxy_rule_domain(struct proxy_rule_msg *, int deny, const char *host,
	    int wildcard, uint16_t port);
int	 proxy_rule_cidr(struct proxy_rule_msg *, int af, const void *addr,
	    unsigned int prefixlen);
int	 proxy_send_policy(struct imsgbuf *, struct proxy_policy_msg *,
	    struct proxy_rule_msg *, size_t);
int	 proxy_send_listener(struct imsgbuf *, uint32_t sandbox, int fd);
int	 proxy_send_end(struct imsgbuf *, uint32_t sandbox);

#endif /* SBX_PROXY_MSG_H */
