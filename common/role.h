/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * role.h: role.c -- a role's start (privilege file, READY) and event
 * loop, on its channel to the monitor; the messages are in proto.h.
 */
#ifndef SBX_ROLE_H
#define SBX_ROLE_H

#include "defs.h"
#include "imsg.h"
#include "priv.h"

#define ROLE_FD			3	/* the socketpair, in every role */
#define ROLE_LEN_ANY		((size_t)-1)

struct role_handler {
	uint32_t	 type;
	size_t		 len;		/* exact payload size, or ROLE_LEN_ANY */
	void		(*fn)(struct imsgbuf *, struct imsg *);
};

/* Parse "-P name [-dv]", check fd 3, die with the monitor, apply the
 * privilege file, send READY.  Any failure is fatal.  role_before_priv
 * names a function role_init runs just before the privilege file is
 * applied (once the event base, role_base(), exists). */
struct event_base;
void	 role_before_priv(void (*)(void));
void	 role_keep_fd(int);	/* one more descriptor survives role_init */
struct event_base *role_base(void);
void	 role_init(int, char *[], const char *, const struct priv_table *,
	    struct imsgbuf *);
__dead void role_serve(struct imsgbuf *, const struct role_handler *,
	    size_t);
void	 role_event_add(void);		/* after queueing a reply */

#endif /* SBX_ROLE_H */
