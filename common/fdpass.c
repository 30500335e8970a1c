/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fdpass.c: one message and its descriptors over a Unix socket, each way.
 * imsg (common/imsg.c) frames the roles' channels; these are the
 * launcher's sockets that carry one record at a time with descriptors:
 * the front and its spawner and mapper, pid 1 handing out its proxy
 * listeners, the front arming a warm sandbox.  Each of those used to
 * build its control message by hand; this is the one place that does.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "fdpass.h"

/*
 * Send len bytes of buf and nfds descriptors (at most FDPASS_MAX) in one
 * message; flags are sendmsg's (MSG_NOSIGNAL is always added: a peer
 * that went is an error, not a signal).  Retried on EINTR.  0, or -1
 * with errno: E2BIG for too many descriptors, EMSGSIZE for a short send.
 */
int
fdpass_send(int fd, const void *buf, size_t len, const int *fds, size_t nfds,
    int flags)
{
	union {
		struct cmsghdr	 hdr;
		char		 buf[CMSG_SPACE(sizeof(int) * FDPASS_MAX)];
	}		 cm;
	struct msghdr	 msg;
	struct iovec	 iov;
	struct cmsghdr	*c;
	ssize_t		 n;

	if (nfds > FDPASS_MAX) {
		errno = E2BIG;
		return -1;
	}
	memset(&msg, 0, sizeof(msg));
	memset(&cm, 0, sizeof(cm));
	iov.iov_base = (void *)(uintptr_t)buf;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (nfds > 0) {
		msg.msg_control = cm.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	do {
		n = sendmsg(fd, &msg, flags | MSG_NOSIGNAL);
	} while (n == -1 && errno == EINTR);
	if (n == -1)
		return -1;
	if ((size_t)n != len) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

/*
 * Receive one message of at most len bytes into buf and its descriptors,
 * close-on-exec, into fds (*nfds of them, at most maxfds); flags are
 * recvmsg's (MSG_CMSG_CLOEXEC is always added).  Retried on EINTR.  The
 * bytes received, 0 at end of file, or -1 with errno; EMSGSIZE when the
 * message, or its descriptors, did not fit: then every descriptor that
 * came is closed and *nfds is 0, so a peer cannot leave any here.
 */
ssize_t
fdpass_recv(int fd, void *buf, size_t len, int *fds, size_t maxfds,
    size_t *nfds, int flags)
{
	union {
		struct cmsghdr	 hdr;
		char		 buf[CMSG_SPACE(sizeof(int) * FDPASS_MAX)];
	}		 cm;
	struct msghdr	 msg;
	struct iovec	 iov;
	struct cmsghdr	*c;
	ssize_t		 n;
	size_t		 i, got, k;
	int		 f, over = 0;

	*nfds = 0;
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = buf;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cm.buf;
	msg.msg_controllen = sizeof(cm.buf);
	do {
		n = recvmsg(fd, &msg, flags | MSG_CMSG_CLOEXEC);
	} while (n == -1 && errno == EINTR);
	if (n == -1)
		return -1;
	for (c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		got = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < got; i++) {
			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(f));
			if (*nfds < maxfds)
				fds[(*nfds)++] = f;
			else {
				close(f);
				over = 1;
			}
		}
	}
	if (over || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		for (k = 0; k < *nfds; k++)
			close(fds[k]);
		*nfds = 0;
		errno = EMSGSIZE;
		return -1;
	}
	return n;
}
