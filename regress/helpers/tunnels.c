/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * tunnels: many CONNECT tunnels at once through one proxy, for the
 * connection caps of regress/egress.sh and regress/proxy.sh.
 *
 *	tunnels [-n] [-h SECONDS] [-p PROXYPORT] HOST PORT N
 *
 * Opens N connections to the proxy on 127.0.0.1:PROXYPORT (3128, the
 * port inside a network proxy sandbox, by default) and asks each for
 * CONNECT HOST:PORT, all before reading any answer, so that all N are
 * open together.  Then reads every answer, and sends "GET /tunnel/I"
 * through every tunnel that was established, all before reading the
 * replies, and checks each reply names its own path.  Prints
 *
 *	established N
 *	refused N
 *	working N
 *	refusal STATUS X-Sbx-Error	(for each distinct refusal)
 *
 * and exits 0 when it could count; it asserts nothing itself.  -n sends
 * no requests (the tunnels only fill a cap; "working" is 0).  With -h
 * the tunnels stay open SECONDS after that (to fill a cap for another
 * client).
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TMAX		4096
#define WAIT_MS		20000
#define BUF		4096

struct reason {
	char	 text[256];
};

/* Read into buf until it holds want (or EOF, error, timeout). */
static size_t
read_until(int fd, char *buf, size_t len, const char *want)
{
	struct pollfd	 pfd;
	size_t		 have = 0;
	ssize_t		 n;

	buf[0] = '\0';
	while (have + 1 < len && strstr(buf, want) == NULL) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, WAIT_MS) <= 0)
			break;
		if ((n = read(fd, buf + have, len - 1 - have)) <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
	}
	return have;
}

static void
writeall(int fd, const char *p, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return;		/* counted as not working */
		}
		p += n;
		len -= (size_t)n;
	}
}

int
main(int argc, char *argv[])
{
	static int		 fds[TMAX], ok[TMAX];
	static struct reason	 reasons[16];
	struct sockaddr_in	 sin;
	struct rlimit		 rl;
	size_t			 nreasons = 0, j;
	char			 buf[BUF], req[512], want[64], *p, *e;
	int			 ch, i, n, proxyport = 3128, hold = 0, send = 1;
	int			 established = 0, refused = 0, working = 0;

	while ((ch = getopt(argc, argv, "h:np:")) != -1) {
		if (ch == 'n')
			send = 0;
		else if (ch == 'h')
			hold = atoi(optarg);
		else if (ch == 'p')
			proxyport = atoi(optarg);
		else
			errx(2, "usage: tunnels [-h seconds] [-p proxyport] "
			    "host port n");
	}
	argc -= optind;
	argv += optind;
	if (argc != 3 || (n = atoi(argv[2])) < 1 || n > TMAX)
		errx(2, "usage: tunnels [-p proxyport] host port n (<= %d)",
		    TMAX);
	/* A thousand sockets: the soft limit may be 1024. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(proxyport);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	snprintf(req, sizeof(req), "CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s"
	    "\r\n\r\n", argv[0], argv[1], argv[0], argv[1]);
	for (i = 0; i < n; i++) {
		if ((fds[i] = socket(AF_INET, SOCK_STREAM, 0)) == -1)
			err(1, "socket %d", i);
		if (connect(fds[i], (struct sockaddr *)&sin,
		    sizeof(sin)) == -1)
			err(1, "connect %d", i);
		writeall(fds[i], req, strlen(req));
	}
	for (i = 0; i < n; i++) {
		read_until(fds[i], buf, sizeof(buf), "\r\n\r\n");
		if (strncmp(buf, "HTTP/1.1 200 ", 13) == 0) {
			ok[i] = 1;
			established++;
			continue;
		}
		refused++;
		/* "STATUS X-Sbx-Error" names the refusal. */
		if ((p = strstr(buf, "X-Sbx-Error: ")) != NULL &&
		    (e = strstr(p, "\r\n")) != NULL)
			*e = '\0';
		snprintf(req, sizeof(req), "%.3s %s", strlen(buf) > 9 ?
		    buf + 9 : "---", p != NULL ? p + 13 : "(no answer)");
		for (j = 0; j < nreasons; j++)
			if (strcmp(reasons[j].text, req) == 0)
				break;
		if (j == nreasons && nreasons < sizeof(reasons) / sizeof(reasons[0]))
			strlcpy(reasons[nreasons++].text, req,
			    sizeof(reasons[0].text));
		close(fds[i]);
	}
	for (i = 0; i < n && send; i++) {
		if (!ok[i])
			continue;
		snprintf(req, sizeof(req), "GET /tunnel/%d HTTP/1.1\r\n"
		    "Host: x\r\n\r\n", i);
		writeall(fds[i], req, strlen(req));
	}
	for (i = 0; i < n && send; i++) {
		if (!ok[i])
			continue;
		snprintf(want, sizeof(want), "path /tunnel/%d\n", i);
		read_until(fds[i], buf, sizeof(buf), want);
		if (strstr(buf, want) != NULL)
			working++;
	}
	printf("established %d\nrefused %d\nworking %d\n", established,
	    refused, working);
	for (j = 0; j < nreasons; j++)
		printf("refusal %s\n", reasons[j].text);
	fflush(stdout);
	if (hold > 0)
		sleep(hold);
	return 0;
}
