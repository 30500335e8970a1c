/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * tcpbulk: both ends of the proxy benchmark, in C so that the ends are
 * never what is measured.
 *
 *	tcpbulk serve PORTFILE [ADDR]
 *		HTTP/1.1 on 127.0.0.1, or the IPv4 address ADDR (ephemeral
 *		port, written to PORTFILE): "GET /N" answers N bytes,
 *		keep-alive; one process per connection.
 *	tcpbulk get [-x PROXYPORT] [-t] PORT HOST BYTES COUNT
 *		COUNT keep-alive GETs of BYTES bytes each from HOST:PORT
 *		(connecting to HOST when it is an IPv4 literal, else to
 *		127.0.0.1), directly, through the proxy at
 *		127.0.0.1:PROXYPORT with absolute URIs, or (-t) through a
 *		CONNECT tunnel of that proxy; prints "requests N seconds S
 *		rps R MBps M reconnects K" (a proxy that closes after each
 *		answer costs a new connection, and its CONNECT, per request).
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUFSZ	(256 * 1024)

static char	 buf[BUFSZ];

static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 0, or -1 when the peer is gone. */
static int
writeall(int fd, const char *p, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE || errno == ECONNRESET)
				return -1;
			err(1, "write");
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* Read a head into buf (NUL-terminated); its length, 0 on EOF. */
static size_t
readhead(int fd, size_t *have)
{
	char	*end;
	ssize_t	 n;
	size_t	 len;

	for (;;) {
		buf[*have] = '\0';
		if ((end = strstr(buf, "\r\n\r\n")) != NULL) {
			len = end + 4 - buf;
			return len;
		}
		if (*have >= BUFSZ - 1)
			errx(1, "head too long");
		if ((n = read(fd, buf + *have, BUFSZ - 1 - *have)) <= 0)
			return 0;
		*have += n;
	}
}

static void
consume(size_t *have, size_t len)
{
	memmove(buf, buf + len, *have - len);
	*have -= len;
}

static void
serve_one(int fd)
{
	char		 head[128];
	size_t		 have = 0, len;
	unsigned long long n, chunk;
	int		 hl;

	static char	 zeros[BUFSZ];

	memset(zeros, 'z', sizeof(zeros));
	while ((len = readhead(fd, &have)) > 0) {
		if (strncmp(buf, "GET /", 5) != 0)
			errx(1, "serve: not a GET");
		n = strtoull(buf + 5, NULL, 10);
		consume(&have, len);
		hl = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\n"
		    "Content-Length: %llu\r\n\r\n", n);
		if (writeall(fd, head, hl) == -1)
			_exit(0);
		for (; n > 0; n -= chunk) {
			chunk = n < sizeof(zeros) ? n : sizeof(zeros);
			if (writeall(fd, zeros, chunk) == -1)
				_exit(0);
		}
	}
	_exit(0);
}

static int
serve(const char *portfile, const char *addr)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof(sin);
	FILE			*f;
	int			 s, c, one = 1;

	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		err(1, "socket");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (addr != NULL && inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		errx(1, "serve: %s is not an IPv4 address", addr);
	if (bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(s, 128) == -1 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) == -1)
		err(1, "listen");
	if ((f = fopen(portfile, "w")) == NULL)
		err(1, "%s", portfile);
	fprintf(f, "%u\n", ntohs(sin.sin_port));
	fclose(f);
	for (;;) {
		if ((c = accept(s, NULL, NULL)) == -1) {
			if (errno == EINTR)
				continue;
			err(1, "accept");
		}
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (fork() == 0) {
			close(s);
			serve_one(c);
		}
		close(c);
	}
}

/* A proxy, or HOST itself when it is an IPv4 literal, else loopback. */
static int
dial(int port, const char *host)
{
	struct sockaddr_in	 sin;
	int			 fd, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		err(1, "socket");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (host != NULL && inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		err(1, "connect to port %d", port);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int
open_path(int port, int proxy, int tunnel, const char *host)
{
	char	 req[512];
	size_t	 have = 0, len;
	int	 fd, rl;

	fd = proxy ? dial(proxy, NULL) : dial(port, host);
	if (!tunnel)
		return fd;
	rl = snprintf(req, sizeof(req), "CONNECT %s:%d HTTP/1.1\r\n"
	    "Host: %s:%d\r\n\r\n", host, port, host, port);
	if (writeall(fd, req, rl) == -1 || (len = readhead(fd, &have)) == 0 ||
	    (strncmp(buf, "HTTP/1.1 200", 12) != 0 &&
	    strncmp(buf, "HTTP/1.0 200", 12) != 0))
		errx(1, "CONNECT refused: %.80s", buf);
	if (have != len)
		errx(1, "bytes after the CONNECT answer");
	return fd;
}

static int
get(int argc, char *argv[])
{
	char			 req[512], *cl;
	size_t			 have = 0, len;
	unsigned long long	 bytes, n, want, total = 0;
	double			 t0, t;
	ssize_t			 r;
	int			 ch, proxy = 0, tunnel = 0, port, count, i, fd, rl;
	int			 reconnects = 0, retry;
	const char		*host;

	optind = 1;
	while ((ch = getopt(argc, argv, "tx:")) != -1) {
		switch (ch) {
		case 't':
			tunnel = 1;
			break;
		case 'x':
			proxy = atoi(optarg);
			break;
		default:
			errx(1, "usage: tcpbulk get [-x port] [-t] port host "
			    "bytes count");
		}
	}
	if (argc - optind != 4)
		errx(1, "usage: tcpbulk get [-x port] [-t] port host bytes "
		    "count");
	port = atoi(argv[optind]);
	host = argv[optind + 1];
	bytes = strtoull(argv[optind + 2], NULL, 10);
	count = atoi(argv[optind + 3]);
	signal(SIGPIPE, SIG_IGN);
	t0 = now();
	fd = open_path(port, proxy, tunnel, host);
	for (i = 0; i < count; i++) {
		if (proxy && !tunnel)
			rl = snprintf(req, sizeof(req), "GET http://%s:%d/%llu "
			    "HTTP/1.1\r\nHost: %s:%d\r\n\r\n", host, port,
			    bytes, host, port);
		else
			rl = snprintf(req, sizeof(req), "GET /%llu HTTP/1.1\r\n"
			    "Host: %s:%d\r\n\r\n", bytes, host, port);
		for (retry = 0; ; retry++) {
			if (writeall(fd, req, rl) == 0 &&
			    (len = readhead(fd, &have)) > 0)
				break;
			if (retry > 0 || have > 0)
				errx(1, "request %d: connection closed", i);
			close(fd);
			fd = open_path(port, proxy, tunnel, host);
			reconnects++;
		}
		if (strncmp(buf + 9, "200", 3) != 0)
			errx(1, "request %d: %.80s", i, buf);
		if ((cl = strcasestr(buf, "\r\nContent-Length:")) == NULL)
			errx(1, "request %d: no Content-Length", i);
		want = strtoull(cl + 17, NULL, 10);
		consume(&have, len);
		n = have < want ? have : want;
		consume(&have, n);
		while (n < want) {
			r = read(fd, buf, want - n < BUFSZ - 1 ? want - n :
			    BUFSZ - 1);
			if (r <= 0)
				errx(1, "request %d: body cut", i);
			n += r;
		}
		total += want;
	}
	t = now() - t0;
	printf("requests %d seconds %.3f rps %.0f MBps %.1f reconnects %d\n",
	    count, t, count / t, total / t / 1e6, reconnects);
	return 0;
}

int
main(int argc, char *argv[])
{
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "serve") == 0)
		return serve(argv[2], argc == 4 ? argv[3] : NULL);
	if (argc >= 2 && strcmp(argv[1], "get") == 0)
		return get(argc - 1, argv + 1);
	errx(1, "usage: tcpbulk serve portfile [addr] | tcpbulk get ...");
}
