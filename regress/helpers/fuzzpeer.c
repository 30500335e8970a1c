/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzzpeer: a live fuzzer for the services' listeners, for
 * regress/badinput.sh.  For SECONDS it opens connection after connection
 * and sends random and mutated input, then prints what it did.
 *
 *	fuzzpeer ctl SOCKET SECONDS SEED
 *		sbx-monitor's control socket: frames of the agent protocol
 *		(imsg header + JSON), well-formed ones mutated, header
 *		lies, raw bytes, descriptors of every kind attached
 *	fuzzpeer http PORT SECONDS SEED UPSTREAM
 *		an HTTP proxy on 127.0.0.1:PORT (sbx-proxy's listener
 *		inside a sandbox): requests to 127.0.0.1:UPSTREAM mutated,
 *		raw bytes, partial writes, abrupt closes
 *
 * Output, one line: "connections N frames N fds N replies N refused N".
 * The same SEED sends the same bytes (what comes back may differ), so a
 * failure found by a random seed is replayed with it.  Exit 0 when the
 * run finished, 1 when the service went away (connect failed with
 * anything but a transient error) or the fuzzer itself failed.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "libsbx/sbx.h"

#define BUF_MAX		20000	/* a mutated message, above the 16 KiB cap */
#define HELD_MAX	6	/* connections left open at once */

static uint64_t	 rng;
static unsigned long	 nconn, nframes, nfds, nreplies, nrefused;

static uint64_t
rnd(void)
{
	/* xorshift64*: reproducible from the seed, no libc state. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static size_t
below(size_t n)
{
	return n == 0 ? 0 : (size_t)(rnd() % n);
}

static uint64_t
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- mutation ------------------------------------------------------------ */

static const char *const tokens[] = {
	"{", "}", "[", "]", "\"", ":", ",", "\\", "\\u0000", "\\ud800",
	"null", "true", "1e999", "-0", "18446744073709551616", "0.0000001",
	"\"argv\"", "\"version\"", "\"provider\"", "\"fds\"", "\"env\"",
	"\"profile\"", "[[[[[[[[[[[[[[[[", "\xff", "\xc0\x80", "\r\n", "\n",
	" ", "\0", "%", ":", "Content-Length: ", "Transfer-Encoding: chunked",
	"HTTP/1.1", "HTTP/1.0", "CONNECT ", "GET ", "Host: ", "\r\n\r\n",
	"0\r\n\r\n", "ffffffffffffffff\r\n", "-1", "99999999999",
	"[::1]", "127.0.0.1:0", "localhost", "@", "#", "?", "\t",
};

/* Mutate buf (len bytes, capacity BUF_MAX) a few times; the new length. */
static size_t
mutate(char *buf, size_t len)
{
	const char	*t;
	size_t		 i, n, pos, tl, rounds = 1 + below(4);

	for (i = 0; i < rounds; i++) {
		pos = below(len + 1);
		switch (below(7)) {
		case 0:		/* flip a bit */
			if (len > 0)
				buf[below(len)] ^= (char)(1 << below(8));
			break;
		case 1:		/* a random byte */
			if (len > 0)
				buf[below(len)] = (char)rnd();
			break;
		case 2:		/* insert a token */
			t = tokens[below(nitems(tokens))];
			tl = *t == '\0' ? 1 : strlen(t);
			if (len + tl > BUF_MAX)
				break;
			memmove(buf + pos + tl, buf + pos, len - pos);
			memcpy(buf + pos, t, tl);
			len += tl;
			break;
		case 3:		/* cut the tail */
			len = pos;
			break;
		case 4:		/* delete a span */
			n = below(len - pos + 1);
			memmove(buf + pos, buf + pos + n, len - pos - n);
			len -= n;
			break;
		case 5:		/* repeat a span, sometimes many times */
			n = below(len - pos + 1);
			if (n == 0)
				break;
			tl = below(4) == 0 ? 1 + below(800) : 1;
			while (tl-- > 0 && len + n <= BUF_MAX) {
				memmove(buf + pos + n, buf + pos, len - pos);
				len += n;
			}
			break;
		default:	/* a run of random bytes */
			n = 1 + below(32);
			if (len + n > BUF_MAX)
				break;
			memmove(buf + pos + n, buf + pos, len - pos);
			for (tl = 0; tl < n; tl++)
				buf[pos + tl] = (char)rnd();
			len += n;
		}
	}
	return len;
}

/* ---- I/O ----------------------------------------------------------------- */

/* Send what the peer takes; 0, or -1 once it hung up. */
static int
put(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		if ((n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT)) ==
		    -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd pfd = { fd, POLLOUT, 0 };

				if (poll(&pfd, 1, 200) <= 0)
					return -1;
				continue;
			}
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* Read what arrives within ms; -1 once the peer closed. */
static int
drain(int fd, int ms)
{
	struct pollfd	 pfd = { fd, POLLIN, 0 };
	char		 buf[8192];
	ssize_t		 n;

	while (poll(&pfd, 1, ms) == 1) {
		if ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) <= 0)
			return n == 0 || errno != EAGAIN ? -1 : 0;
		nreplies++;
		ms = 0;
	}
	return 0;
}

/* Stay up when the peer resets: a connection refused is a result. */
static int
dial_ok(int fd, const struct sockaddr *sa, socklen_t salen)
{
	int	 tries;

	for (tries = 0; tries < 50; tries++) {
		if (connect(fd, sa, salen) == 0) {
			nconn++;
			return 0;
		}
		/* A full backlog or the connection limit: later. */
		if (errno != EAGAIN && errno != ECONNREFUSED &&
		    errno != EINTR)
			break;
		nrefused++;
		usleep(2000);
	}
	return -1;
}

/* ---- the control protocol -------------------------------------------------- */

static const char	*ctlpath;
static int		 passfds[6];

static const struct {
	uint32_t	 type;
	const char	*json;
} ctl_templates[] = {
	{ SBX_MSG_HELLO, "{\"version\":1,\"client\":\"fuzzpeer\"}" },
	{ SBX_MSG_PING, "{}" },
	{ SBX_MSG_STATUS, "{}" },
	{ SBX_MSG_PRIVS, "{\"name\":\"proxy\"}" },
	{ SBX_MSG_RUN, "{\"argv\":[\"/bin/true\"],\"timeout\":5}" },
	{ SBX_MSG_RUN, "{\"argv\":[\"/bin/true\"],\"profile\":\"default\","
	    "\"env\":{\"LANG\":\"C\"},\"fds\":[0,1,2]}" },
	{ SBX_MSG_FD, "{\"slot\":0}" },
	{ SBX_MSG_SIGNAL, "{\"sandbox\":1,\"signal\":\"TERM\"}" },
	{ SBX_MSG_SIGNAL, "{\"sandbox\":1,\"signal\":\"QUIT\"}" },
	{ SBX_MSG_RUN, "{\"argv\":[\"/bin/true\"],\"pty\":true,\"rows\":24,"
	    "\"cols\":80,\"fds\":[\"stdin\",\"stdout\"]}" },
	{ SBX_MSG_RESIZE, "{\"sandbox\":1,\"rows\":24,\"cols\":80}" },
	{ SBX_MSG_PROVIDER_LOAD, "{\"allowBundleProviders\":true}" },
	{ SBX_MSG_PROVIDER_LIST, "{}" },
	{ SBX_MSG_PROVIDER_INSPECT, "{\"provider\":\"prv-0000\"}" },
	{ SBX_MSG_PROVIDER_INVOKE, "{\"provider\":\"prv-0000\","
	    "\"clockMs\":1788393600000}" },
	{ SBX_MSG_PROVIDER_OUTPUT, "{}" },
	{ SBX_MSG_GATES_EVALUATE, "{\"now\":\"2026-08-15T00:00:00Z\"}" },
	{ SBX_MSG_GATES_DOC, "{}" },
};

static int
ctl_dial(void)
{
	struct sockaddr_un	 sun;
	int			 fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, ctlpath, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path))
		errx(1, "%s: path too long", ctlpath);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(1, "socket");
	if (dial_ok(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		warn("connect %s", ctlpath);
		close(fd);
		return -1;
	}
	return fd;
}

/* One frame: header (sometimes lying) and payload, with a descriptor
 * now and then.  0, or -1 once the monitor hung up. */
static int
ctl_frame(int fd, uint32_t type, const char *data, size_t len)
{
	struct imsg_hdr	 h;
	struct msghdr	 mh;
	struct iovec	 iov[2];
	union {
		struct cmsghdr	 hdr;
		char		 buf[CMSG_SPACE(2 * sizeof(int))];
	}		 cm;
	struct cmsghdr	*c;
	int		 nfd = 0, fds[2];

	memset(&h, 0, sizeof(h));
	h.type = type;
	h.len = (uint32_t)(IMSG_HEADER_SIZE + len);
	h.peerid = (uint32_t)below(16);
	switch (below(12)) {
	case 0:		/* a length that lies */
		h.len = (uint32_t)rnd();
		break;
	case 1:		/* any type */
		h.type = below(2) ? (uint32_t)below(20) : (uint32_t)rnd();
		break;
	case 2:
	case 3:		/* a descriptor, marked or not */
		nfd = 1 + (below(5) == 0);
		if (below(4) != 0)
			h.len |= IMSG_FD_MARK;
		break;
	}
	nframes++;
	if (nfd == 0) {
		if (put(fd, &h, sizeof(h)) == -1)
			return -1;
		return put(fd, data, len);
	}
	fds[0] = passfds[below(nitems(passfds))];
	fds[1] = passfds[below(nitems(passfds))];
	iov[0].iov_base = &h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = (void *)data;
	iov[1].iov_len = len > 4096 ? 4096 : len;
	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	mh.msg_control = &cm;
	mh.msg_controllen = CMSG_SPACE(nfd * sizeof(int));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfd * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfd * sizeof(int));
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) == -1)
		return -1;
	nfds += nfd;
	return put(fd, data + iov[1].iov_len, len - iov[1].iov_len);
}

static int
ctl_session(void)
{
	char	 buf[BUF_MAX + 1];
	size_t	 len, i, t, n;
	int	 fd;

	if ((fd = ctl_dial()) == -1)
		return -1;
	switch (below(8)) {
	case 0:		/* raw bytes */
		len = 1 + below(below(8) == 0 ? BUF_MAX : 256);
		for (i = 0; i < len; i++)
			buf[i] = (char)rnd();
		(void)put(fd, buf, len);
		break;
	case 1:		/* a mutated hello */
		len = strlcpy(buf, ctl_templates[0].json, sizeof(buf));
		len = mutate(buf, len);
		(void)ctl_frame(fd, SBX_MSG_HELLO, buf, len);
		break;
	default:	/* a hello, then requests, mostly mutated */
		len = strlen(ctl_templates[0].json);
		if (ctl_frame(fd, SBX_MSG_HELLO, ctl_templates[0].json,
		    len) == -1)
			break;
		n = 1 + below(6);
		for (i = 0; i < n; i++) {
			t = 1 + below(nitems(ctl_templates) - 1);
			len = strlcpy(buf, ctl_templates[t].json,
			    sizeof(buf));
			if (below(5) != 0)
				len = mutate(buf, len);
			if (ctl_frame(fd, ctl_templates[t].type, buf,
			    len) == -1)
				break;
			if (below(3) == 0 && drain(fd, 1) == -1)
				break;
		}
	}
	/* Read the answers, or hang up without. */
	if (below(3) != 0)
		(void)drain(fd, (int)below(10));
	if (below(4) == 0)
		shutdown(fd, SHUT_WR);
	return fd;
}

/* Descriptors a request may carry: a pipe end, /dev/null, an empty
 * directory, a socket, an O_PATH file, a memfd-like temporary file. */
static void
ctl_passfds(void)
{
	char	 dir[] = "/tmp/fuzzpeer.XXXXXX";
	int	 p[2], s[2];

	if (pipe2(p, O_CLOEXEC) == -1 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s) == -1)
		err(1, "pipe");
	passfds[0] = p[0];
	passfds[1] = p[1];
	passfds[2] = s[0];
	if ((passfds[3] = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1 ||
	    (passfds[4] = open("/", O_PATH | O_CLOEXEC)) == -1)
		err(1, "open");
	if (mkdtemp(dir) == NULL ||
	    (passfds[5] = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1)
		err(1, "%s", dir);
	(void)rmdir(dir);	/* still open: an empty, unlinked directory */
}

/* ---- HTTP ------------------------------------------------------------------ */

static struct sockaddr_in	 proxy_sin;
static unsigned			 upstream;

static const char *const http_templates[] = {
	"GET http://127.0.0.1:PORT/fuzz HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\n",
	"GET http://localhost:PORT/a?b=c HTTP/1.1\r\nHost: localhost\r\n"
	    "Connection: keep-alive\r\nAccept: */*\r\n\r\n",
	"CONNECT 127.0.0.1:PORT HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\n"
	    "GET /t HTTP/1.1\r\nHost: x\r\n\r\n",
	"POST http://127.0.0.1:PORT/p HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"
	    "Content-Length: 5\r\n\r\nhello",
	"POST http://127.0.0.1:PORT/c HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
	"GET http://127.0.0.1:PORT/1 HTTP/1.1\r\nHost: h\r\n\r\n"
	    "GET http://127.0.0.1:PORT/2 HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET http://denied.test/ HTTP/1.0\r\n\r\n",
	"GET /relative HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\n",
};

/* A template with each PORT replaced by the upstream's port. */
static size_t
http_fill(char *buf, size_t size, const char *t)
{
	char	 port[8];
	size_t	 len = 0, pl;

	pl = (size_t)snprintf(port, sizeof(port), "%u", upstream);
	while (*t != '\0' && len + pl < size) {
		if (strncmp(t, "PORT", 4) == 0) {
			memcpy(buf + len, port, pl);
			len += pl;
			t += 4;
		} else
			buf[len++] = *t++;
	}
	return len;
}

static int
http_session(void)
{
	char	 buf[BUF_MAX + 1];
	size_t	 len, i, part;
	int	 fd;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(1, "socket");
	if (dial_ok(fd, (struct sockaddr *)&proxy_sin,
	    sizeof(proxy_sin)) == -1) {
		warn("connect 127.0.0.1:%u", ntohs(proxy_sin.sin_port));
		close(fd);
		return -1;
	}
	if (below(10) == 0) {
		len = 1 + below(below(4) == 0 ? BUF_MAX : 512);
		for (i = 0; i < len; i++)
			buf[i] = (char)rnd();
	} else {
		len = http_fill(buf, sizeof(buf),
		    http_templates[below(nitems(http_templates))]);
		if (below(6) != 0)
			len = mutate(buf, len);
	}
	nframes++;
	/* In pieces now and then: parsers must not assume one read. */
	if (below(4) == 0) {
		for (i = 0; i < len; i += part) {
			part = 1 + below(64);
			if (part > len - i)
				part = len - i;
			if (put(fd, buf + i, part) == -1)
				break;
			if (below(8) == 0)
				(void)drain(fd, 1);
		}
	} else
		(void)put(fd, buf, len);
	if (below(3) != 0)
		(void)drain(fd, (int)below(20));
	if (below(4) == 0)
		shutdown(fd, SHUT_WR);
	return fd;
}

/* -------------------------------------------------------------------------- */

static __dead void
usage(void)
{
	fprintf(stderr, "usage: fuzzpeer ctl SOCKET SECONDS SEED\n"
	    "       fuzzpeer http PORT SECONDS SEED UPSTREAM\n");
	exit(1);
}

int
main(int argc, char *argv[])
{
	int		 held[HELD_MAX], nheld = 0, fd, http, i;
	uint64_t	 end;
	const char	*errstr;
	long long	 secs;

	if (argc < 5)
		usage();
	http = strcmp(argv[1], "http") == 0;
	if (!http && strcmp(argv[1], "ctl") != 0)
		usage();
	if (http && argc != 6)
		usage();
	if (!http && argc != 5)
		usage();
	secs = strtonum(argv[3], 1, 3600, &errstr);
	if (errstr != NULL)
		errx(1, "seconds %s: %s", argv[3], errstr);
	rng = strtoull(argv[4], NULL, 0) | 1;
	signal(SIGPIPE, SIG_IGN);
	if (http) {
		memset(&proxy_sin, 0, sizeof(proxy_sin));
		proxy_sin.sin_family = AF_INET;
		proxy_sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		proxy_sin.sin_port = htons((uint16_t)strtonum(argv[2], 1,
		    65535, &errstr));
		if (errstr != NULL)
			errx(1, "port %s: %s", argv[2], errstr);
		upstream = (unsigned)strtonum(argv[5], 1, 65535, &errstr);
		if (errstr != NULL)
			errx(1, "upstream %s: %s", argv[5], errstr);
	} else {
		ctlpath = argv[2];
		ctl_passfds();
	}
	end = now_ms() + (uint64_t)secs * 1000;
	while (now_ms() < end) {
		if ((fd = http ? http_session() : ctl_session()) == -1) {
			printf("connections %lu frames %lu fds %lu replies %lu "
			    "refused %lu\n", nconn, nframes, nfds, nreplies,
			    nrefused);
			errx(1, "the service went away");
		}
		/* Most connections close at once; a few stay open. */
		if (below(8) == 0 && nheld < HELD_MAX) {
			held[nheld++] = fd;
			continue;
		}
		close(fd);
		if (nheld == HELD_MAX || (nheld > 0 && below(16) == 0))
			close(held[--nheld]);
	}
	for (i = 0; i < nheld; i++)
		close(held[i]);
	printf("connections %lu frames %lu fds %lu replies %lu refused %lu\n",
	    nconn, nframes, nfds, nreplies, nrefused);
	return 0;
}
