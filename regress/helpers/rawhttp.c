/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * rawhttp: send bytes to 127.0.0.1:PORT exactly as given (the proxy
 * tests need requests no well-behaved client would send) and print what
 * comes back until the peer closes or TIMEOUT ms pass without a byte.
 *
 *	rawhttp [-d DELAY_MS] [-t TIMEOUT_MS] [-w WAIT_MS] [-c] [-e] PORT
 *	    < request
 *
 * -d sends one byte every DELAY_MS (slowloris); -w reads nothing for
 * WAIT_MS after sending (a stalled reader); -c prints only the number
 * of bytes received, as "bytes N"; -e prints the elapsed
 * milliseconds on stderr as "elapsed N".  Exit 0 when the peer closed,
 * 2 on the timeout.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
main(int argc, char *argv[])
{
	static char		 req[1 << 20];
	char			 buf[65536];
	struct sockaddr_in	 sin;
	struct pollfd		 pfd;
	size_t			 len = 0, off = 0;
	ssize_t			 n;
	uint64_t		 start, next = 0;
	int			 ch, fd, delay = 0, timeout = 5000, elapsed = 0;
	int			 wait, stall = 0, count = 0;
	uint64_t		 total = 0;

	while ((ch = getopt(argc, argv, "cd:et:w:")) != -1) {
		switch (ch) {
		case 'd':
			delay = atoi(optarg);
			break;
		case 'c':
			count = 1;
			break;
		case 'e':
			elapsed = 1;
			break;
		case 'w':
			stall = atoi(optarg);
			break;
		case 't':
			timeout = atoi(optarg);
			break;
		default:
			errx(1, "usage: rawhttp [-d ms] [-t ms] [-e] port");
		}
	}
	if (optind + 1 != argc)
		errx(1, "usage: rawhttp [-d ms] [-t ms] [-e] port");
	while ((n = read(STDIN_FILENO, req + len, sizeof(req) - len)) > 0)
		len += n;
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		err(1, "socket");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(atoi(argv[optind]));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		err(1, "connect");
	start = now_ms();
	if (delay == 0) {
		for (off = 0; off < len; off += n)
			if ((n = write(fd, req + off, len - off)) == -1)
				err(1, "write");
	}
	if (stall > 0)
		poll(NULL, 0, stall);
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		wait = timeout;
		if (delay > 0 && off < len) {
			if (now_ms() >= next) {
				if (write(fd, req + off, 1) == -1)
					break;	/* cut off */
				off++;
				next = now_ms() + delay;
			}
			wait = delay;
		}
		if ((n = poll(&pfd, 1, wait)) == -1)
			err(1, "poll");
		if (n == 0) {
			if (delay > 0 && off < len)
				continue;
			if (elapsed)
				fprintf(stderr, "elapsed %llu\n",
				    (unsigned long long)(now_ms() - start));
			return 2;
		}
		if ((n = read(fd, buf, sizeof(buf))) <= 0)
			break;
		total += n;
		if (!count) {
			fwrite(buf, 1, n, stdout);
			fflush(stdout);
		}
	}
	if (elapsed)
		fprintf(stderr, "elapsed %llu\n",
		    (unsigned long long)(now_ms() - start));
	if (count)
		printf("bytes %llu\n", (unsigned long long)total);
	return 0;
}
