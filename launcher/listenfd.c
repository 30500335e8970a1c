/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * listenfd.c: the listening sockets a network-proxy sandbox's pid 1 made
 * inside the sandbox's network namespace (shim/net.c) and handed out over
 * its SBX_SHIM_FD_PROXY socket.  The launcher passes them to the monitor,
 * which passes them to sbx-proxy; here they are only received and checked.
 *
 * pid 1 sends them before any payload exists, but it is a process of the
 * sandbox all the same: each descriptor must be what it claims to be (a
 * listening TCP socket, IPv4 or IPv6) before it goes anywhere, and at
 * most one message of at most two is taken.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fdpass.h"
#include "spec.h"
#include "launcher.h"

#define LISTENERS_MAX	2

static int
check_listener(int fd, int *family, char *err, size_t errlen)
{
	int		 v;
	socklen_t	 len;

	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len) == -1 ||
	    (v != AF_INET && v != AF_INET6)) {
		snprintf(err, errlen, "proxy listener: not an inet socket");
		return -1;
	}
	*family = v;
	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &len) == -1 ||
	    v != SOCK_STREAM) {
		snprintf(err, errlen, "proxy listener: not a stream socket");
		return -1;
	}
	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &len) == -1 ||
	    v != 1) {
		snprintf(err, errlen, "proxy listener: not listening");
		return -1;
	}
	return 0;
}

/*
 * Take pid 1's one message: the number of listeners (their descriptors in
 * fds, close-on-exec), -2 when none has come yet, or -1 with err.  On
 * anything but -2 the hand-out socket is closed: there is no second
 * message.
 */
int
sandbox_listeners(struct sandbox *sb, int *fds, int *families, size_t max,
    char *err, size_t errlen)
{
	char		 byte;
	ssize_t		 r;
	size_t		 n = 0, i;
	int		 got[LISTENERS_MAX], rv = -1, e;

	if (sb->proxyfd == -1) {
		snprintf(err, errlen, "proxy listeners: no hand-out socket");
		return -1;
	}
	r = fdpass_recv(sb->proxyfd, &byte, 1, got, nitems(got), &n,
	    MSG_DONTWAIT);
	e = errno;
	if (r == -1 && (e == EAGAIN || e == EWOULDBLOCK))
		return -2;
	close(sb->proxyfd);
	sb->proxyfd = -1;
	if (r == -1 && e == EMSGSIZE)
		snprintf(err, errlen, "proxy listeners: more than %d, or a "
		    "record longer than a byte", LISTENERS_MAX);
	else if (r == -1)
		snprintf(err, errlen, "proxy listeners: %s", sbx_errname(e));
	else if (r == 0)
		snprintf(err, errlen, "proxy listeners: pid 1 sent none");
	else if (n == 0 || n > max)
		snprintf(err, errlen, "proxy listeners: %zu descriptors", n);
	else {
		for (i = 0; i < n; i++)
			if (check_listener(got[i], &families[i], err,
			    errlen) == -1)
				break;
		if (i == n) {
			memcpy(fds, got, n * sizeof(int));
			return (int)n;
		}
	}
	for (i = 0; i < n; i++)
		close(got[i]);
	return rv;
}
