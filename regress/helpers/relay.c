/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * relay: the floor a CONNECT proxy can reach on this machine, for
 * regress/bench/b_proxy.sh.  It serves one tunnel at a time with no
 * policy, no event library and no parsing beyond the end of the CONNECT
 * head, so what it measures is the cost of a third process relaying the
 * bytes, nothing of sbx-proxy's own.
 *
 *	relay splice|copy PORTFILE UPSTREAMPORT [UPSTREAMADDR]
 *		listen on 127.0.0.1 (ephemeral port, written to PORTFILE);
 *		for each connection: read the CONNECT head, connect to
 *		UPSTREAMADDR (IPv4, default 127.0.0.1) port UPSTREAMPORT,
 *		answer 200, then relay both ways with splice(2) through a
 *		256 KiB pipe per direction, or with read/write through a
 *		256 KiB buffer, until both sides end.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUFSZ	(256 * 1024)

struct dir {
	int	 src, dst;
	int	 p[2];
	size_t	 held;			/* in the pipe, or buf */
	size_t	 off;
	int	 eof, shut;
	char	*buf;
};

static int	 use_splice;
static struct in_addr upaddr;

/* -1 when a socket failed; the direction is then over. */
static int
step(struct dir *d)
{
	ssize_t	 n;

	if (!d->eof && d->held == 0) {
		if (use_splice)
			n = splice(d->src, NULL, d->p[1], NULL, BUFSZ,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		else
			n = read(d->src, d->buf, BUFSZ);
		if (n == 0)
			d->eof = 1;
		else if (n > 0) {
			d->held = (size_t)n;
			d->off = 0;
		} else if (errno != EAGAIN)
			return -1;
	}
	if (d->held > 0) {
		if (use_splice)
			n = splice(d->p[0], NULL, d->dst, NULL, d->held,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		else
			n = write(d->dst, d->buf + d->off, d->held);
		if (n > 0) {
			d->held -= (size_t)n;
			d->off += (size_t)n;
		} else if (errno != EAGAIN)
			return -1;
	}
	if (d->eof && d->held == 0 && !d->shut) {
		shutdown(d->dst, SHUT_WR);
		d->shut = 1;
	}
	return 0;
}

static void
tunnel(int c, int upport)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	struct sockaddr_in sin;
	struct pollfd	 pfd[2];
	struct dir	 d[2];
	char		 head[4096];
	size_t		 have = 0;
	ssize_t		 n;
	int		 u, i, one = 1;

	for (;;) {
		if ((n = read(c, head + have, sizeof(head) - 1 - have)) <= 0)
			return;
		have += (size_t)n;
		head[have] = '\0';
		if (strstr(head, "\r\n\r\n") != NULL)
			break;
		if (have == sizeof(head) - 1)
			return;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(upport);
	sin.sin_addr = upaddr;
	if ((u = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    connect(u, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		err(1, "connect");
	if (write(c, ok, sizeof(ok) - 1) != sizeof(ok) - 1)
		err(1, "write");
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(u, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(c, F_SETFL, O_NONBLOCK);
	fcntl(u, F_SETFL, O_NONBLOCK);
	memset(d, 0, sizeof(d));
	d[0].src = d[1].dst = c;
	d[0].dst = d[1].src = u;
	for (i = 0; i < 2; i++) {
		if (use_splice) {
			/* 256 KiB, as sbx-proxy's first tunnels have. */
			if (pipe2(d[i].p, O_NONBLOCK) == -1 ||
			    fcntl(d[i].p[1], F_SETPIPE_SZ, BUFSZ) == -1)
				err(1, "pipe2");
		} else if ((d[i].buf = malloc(BUFSZ)) == NULL)
			err(1, "malloc");
	}
	while (!d[0].shut || !d[1].shut) {
		pfd[0].fd = c;
		pfd[1].fd = u;
		pfd[0].events = pfd[1].events = 0;
		for (i = 0; i < 2; i++) {
			if (!d[i].eof && d[i].held == 0)
				pfd[i].events |= POLLIN;
			if (d[i].held > 0)
				pfd[1 - i].events |= POLLOUT;
		}
		if (poll(pfd, 2, -1) == -1)
			err(1, "poll");
		if (step(&d[0]) == -1 || step(&d[1]) == -1)
			break;
	}
	for (i = 0; i < 2; i++) {
		if (use_splice) {
			close(d[i].p[0]);
			close(d[i].p[1]);
		}
		free(d[i].buf);
	}
	close(u);
}

int
main(int argc, char *argv[])
{
	struct sockaddr_in sin;
	socklen_t	 len = sizeof(sin);
	FILE		*f;
	int		 s, c;

	if ((argc != 4 && argc != 5) || (strcmp(argv[1], "splice") != 0 &&
	    strcmp(argv[1], "copy") != 0))
		errx(2, "usage: relay splice|copy PORTFILE UPSTREAMPORT "
		    "[UPSTREAMADDR]");
	upaddr.s_addr = htonl(INADDR_LOOPBACK);
	if (argc == 5 && inet_pton(AF_INET, argv[4], &upaddr) != 1)
		errx(2, "%s is not an IPv4 address", argv[4]);
	use_splice = strcmp(argv[1], "splice") == 0;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(s, 16) == -1 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) == -1)
		err(1, "listen");
	if ((f = fopen(argv[2], "w")) == NULL)
		err(1, "%s", argv[2]);
	fprintf(f, "%u\n", ntohs(sin.sin_port));
	fclose(f);
	for (;;) {
		if ((c = accept(s, NULL, NULL)) == -1)
			err(1, "accept");
		tunnel(c, atoi(argv[3]));
		close(c);
	}
}
