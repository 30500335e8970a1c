/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * flood: one hostile connection to sbx-monitor's control socket, for
 * regress/tenants.sh and the flood figures (issue 20).
 *
 *	flood SOCKET MODE N HOLD
 *
 * MODE:
 *   status  N STATUS requests, never reading a reply;
 *   gates   N GATES_EVALUATE requests, each with a result descriptor
 *           (a pipe's write end), whose documents never come;
 *   docs    GATES_EVALUATE requests of 60 pack directories each, and
 *           their documents but the last: N descriptors in all.
 * Requests go as fast as the socket takes them; a write that would block
 * waits (poll) for at most HOLD seconds in all.  Then "gates" and "docs"
 * read the replies (until 2 s pass without one) and count them; "status"
 * reads nothing.  The connection stays open until HOLD seconds after the
 * start, so that the monitor can be measured meanwhile, or until SIGUSR1
 * once the replies are counted: a test that has measured sends it rather
 * than wait out HOLD.  Prints one line:
 *
 *	sent=K limit=L other=O closed=0|1
 *
 * K requests and descriptors sent, L replies with error code "limit",
 * O other replies, closed 1 when the monitor hung up.  Writes "ready" to
 * stderr once the flood is sent.  Exits 0, or 1 when it could not run.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "libsbx/sbx.h"

#define PACKS		60	/* pack directories per evaluation (docs) */

static int		 sock = -1;
static int		 closed;
static volatile sig_atomic_t released;	/* SIGUSR1: stop holding */
static time_t		 deadline;

static void
release(int sig)
{
	(void)sig;
	released = 1;
}

static int
dial(const char *path)
{
	struct sockaddr_un	 sun;
	int			 fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, path, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path))
		errx(1, "%s: path too long", path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1)
		err(1, "socket");
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		err(1, "connect %s", path);
	return fd;
}

/* One frame, and its descriptor with its first byte.  0 sent, -1 not
 * (the monitor hung up, or HOLD ran out while it did not read). */
static int
frame(uint32_t type, uint32_t id, const char *json, int fd)
{
	struct imsg_hdr	 h;
	struct msghdr	 m;
	struct iovec	 iov[2];
	struct pollfd	 pfd;
	union {
		struct cmsghdr	 hdr;
		unsigned char	 buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct cmsghdr	*c;
	size_t		 len = strlen(json), off = 0, total;
	ssize_t		 n;
	char		 buf[SBX_MSG_MAXSIZE];

	total = sizeof(h) + len;
	h.type = type;
	h.len = (uint32_t)total | (fd != -1 ? IMSG_FD_MARK : 0);
	h.peerid = id;
	h.pid = 0;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), json, len);
	while (off < total) {
		if (closed)
			return -1;
		memset(&m, 0, sizeof(m));
		iov[0].iov_base = buf + off;
		iov[0].iov_len = total - off;
		m.msg_iov = iov;
		m.msg_iovlen = 1;
		if (off == 0 && fd != -1) {
			memset(&cm, 0, sizeof(cm));
			m.msg_control = cm.buf;
			m.msg_controllen = sizeof(cm.buf);
			c = CMSG_FIRSTHDR(&m);
			c->cmsg_len = CMSG_LEN(sizeof(int));
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			memcpy(CMSG_DATA(c), &fd, sizeof(int));
		}
		if ((n = sendmsg(sock, &m, MSG_NOSIGNAL)) == -1) {
			if (errno == EPIPE || errno == ECONNRESET) {
				closed = 1;
				return -1;
			}
			if (errno != EAGAIN && errno != EINTR)
				err(1, "sendmsg");
			if (time(NULL) >= deadline)
				return -1;
			pfd.fd = sock;
			pfd.events = POLLOUT;
			if (poll(&pfd, 1, 500) == 1 &&
			    (pfd.revents & (POLLHUP | POLLERR))) {
				closed = 1;
				return -1;
			}
			continue;
		}
		off += (size_t)n;
	}
	return 0;
}

/* Read replies until none came for 2 s; count "limit" errors. */
static void
count(unsigned *limit, unsigned *other)
{
	struct imsgbuf	 ib;
	struct imsg	 im;
	struct pollfd	 pfd;
	cJSON		*o, *code;
	int		 n;

	if (imsgbuf_init(&ib, sock) == -1 ||
	    imsgbuf_set_maxsize(&ib, SBX_MSG_MAXSIZE) == -1)
		err(1, "imsgbuf_init");
	for (;;) {
		while ((n = imsg_get(&ib, &im)) == 1) {
			o = cJSON_ParseWithLength(im.data, imsg_get_len(&im));
			code = cJSON_GetObjectItemCaseSensitive(o, "code");
			if (imsg_get_type(&im) == SBX_MSG_ERROR &&
			    cJSON_IsString(code) &&
			    strcmp(code->valuestring, SBX_E_LIMIT) == 0)
				(*limit)++;
			else
				(*other)++;
			cJSON_Delete(o);
			imsg_free(&im);
		}
		if (n == -1)
			errx(1, "a malformed reply");
		pfd.fd = sock;
		pfd.events = POLLIN;
		if ((n = poll(&pfd, 1, 2000)) == -1 && errno == EINTR)
			continue;	/* SIGUSR1 only ends the hold */
		if (n != 1)
			break;
		if ((n = imsgbuf_read(&ib)) == 0) {
			closed = 1;
			break;
		}
		if (n == -1)
			err(1, "read");
	}
	/* The socket stays open: the caller holds it until HOLD
	 * (imsgbuf_clear frees the buffers, not the descriptor). */
	imsgbuf_clear(&ib);
}

static const char *
gates_json(int packs)
{
	static char	 buf[8192];
	size_t		 off;
	int		 i;

	off = (size_t)snprintf(buf, sizeof(buf), "{\"now\":\"2026-01-01T00:00:"
	    "00Z\",\"trustedBindingDigest\":\"sha256:00\",\"binding\":\"b\","
	    "\"metrics\":\"m\",\"holdout\":\"h\"%s", packs > 0 ?
	    ",\"packDirs\":[" : "");
	for (i = 0; i < packs; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off,
		    "%s\"p%d\"", i > 0 ? "," : "", i);
	snprintf(buf + off, sizeof(buf) - off, "%s}", packs > 0 ? "]" : "");
	return buf;
}

int
main(int argc, char *argv[])
{
	unsigned	 sent = 0, limit = 0, other = 0, id = 1;
	long		 n, hold, i, d;
	time_t		 start;
	int		 p[2];

	if (argc != 5)
		errx(1, "usage: flood SOCKET status|gates|docs N HOLD");
	n = strtol(argv[3], NULL, 10);
	hold = strtol(argv[4], NULL, 10);
	if (n < 1 || hold < 1)
		errx(1, "N and HOLD are positive");
	signal(SIGUSR1, release);
	start = time(NULL);
	deadline = start + hold;
	sock = dial(argv[1]);
	if (pipe2(p, O_CLOEXEC) == -1)
		err(1, "pipe");
	if (frame(SBX_MSG_HELLO, id++, "{\"version\":1,\"client\":\"flood\"}",
	    -1) == -1)
		errx(1, "hello: the monitor hung up");
	if (strcmp(argv[2], "status") == 0) {
		for (i = 0; i < n; i++) {
			if (frame(SBX_MSG_STATUS, id++, "{}", -1) == -1)
				break;
			sent++;
		}
	} else if (strcmp(argv[2], "gates") == 0) {
		for (i = 0; i < n; i++) {
			if (frame(SBX_MSG_GATES_EVALUATE, id++, gates_json(0),
			    p[1]) == -1)
				break;
			sent++;
		}
	} else if (strcmp(argv[2], "docs") == 0) {
		/* 3 + PACKS documents each; the last never comes. */
		while ((long)sent < n) {
			if (frame(SBX_MSG_GATES_EVALUATE, id, gates_json(PACKS),
			    p[1]) == -1)
				break;
			sent++;
			for (d = 0; d < 3 + PACKS - 1 && (long)sent < n; d++) {
				if (frame(SBX_MSG_GATES_DOC, id, "{}",
				    p[0]) == -1)
					break;
				sent++;
			}
			id++;
		}
	} else
		errx(1, "%s: not status, gates or docs", argv[2]);
	fprintf(stderr, "ready\n");
	if (strcmp(argv[2], "status") != 0 && !closed)
		count(&limit, &other);
	while (!closed && !released && time(NULL) < deadline) {
		struct pollfd	 pfd = { sock, POLLRDHUP, 0 };

		/* Replies may sit unread in our socket: only a hang-up
		 * counts, not POLLIN. */
		if (poll(&pfd, 1, 1000) == 1 &&
		    (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)))
			closed = 1;
	}
	printf("sent=%u limit=%u other=%u closed=%d\n", sent, limit, other,
	    closed);
	return 0;
}
