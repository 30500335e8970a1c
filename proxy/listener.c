/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * listener.c: the listening sockets each sandbox's pid 1 made in the
 * sandbox's own network namespace and handed over.  A connection on one
 * can only come from that sandbox, so the listener names the policy.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "common.h"
#include "role.h"
#include "proxy.h"

static void
listener_accept(struct evconnlistener *lev, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	(void)lev;
	(void)salen;
	conn_accept(arg, fd, sa);
}

static void
listener_error(struct evconnlistener *lev, void *arg)
{
	struct proxy_sandbox	*sb = arg;

	(void)lev;
	/* EMFILE and the like: the caps keep us well below nofile, so this
	 * is worth a line, and accepting goes on. */
	log_warn("sandbox %u: accept", sb->id);
}

int
listener_add(struct proxy_sandbox *sb, int fd, char *err, size_t errlen)
{
	struct proxy_listener	*l;
	socklen_t		 len;
	int			 v, fl;

	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &len) == -1 ||
	    v == 0) {
		snprintf(err, errlen, "descriptor is not a listening socket");
		return -1;
	}
	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len) == -1 ||
	    (v != AF_INET && v != AF_INET6)) {
		snprintf(err, errlen, "listener is not TCP/IP");
		return -1;
	}
	/* accept4 must never wait: a connection reset between the event
	 * and the call would stall every sandbox. */
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1) {
		snprintf(err, errlen, "fcntl: %s", strerror(errno));
		return -1;
	}
	l = xcalloc(1, sizeof(*l));
	l->sb = sb;
	/* backlog 0: it listens already (and listen(2) is not ours). */
	if ((l->lev = evconnlistener_new(role_base(), listener_accept, sb,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, fd)) == NULL) {
		free(l);
		snprintf(err, errlen, "evconnlistener_new failed");
		return -1;
	}
	evconnlistener_set_error_cb(l->lev, listener_error);
	TAILQ_INSERT_TAIL(&sb->listeners, l, entry);
	log_debug("sandbox %u: listening on descriptor %d", sb->id, fd);
	return 0;
}

void
listener_free(struct proxy_listener *l)
{
	TAILQ_REMOVE(&l->sb->listeners, l, entry);
	evconnlistener_free(l->lev);
	free(l);
}
