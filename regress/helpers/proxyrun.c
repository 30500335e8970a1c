/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * proxyrun: start sbx-proxy the way sbx-monitor does (its socketpair at
 * descriptor 3, "-P proxy", wait for READY) and play the monitor's part
 * for one sandbox: send its policy and a listening socket on
 * 127.0.0.1 (an ephemeral port), then serve commands on stdin.  The
 * tests drive the real proxy through it without sandboxes.
 *
 *	proxyrun [-A] [-a allow-domain] [-d deny-domain] [-c allow-cidr]
 *	    [-H header_ms] [-I idle_ms] [-C connect_ms] [-O io_ms]
 *	    [-m max_conns] [-s sandbox] [-u uid] [-v] PROXY
 *
 * Prints "pid N" (the proxy's) and "port N" once the listener is handed
 * over.  Commands on stdin:
 * "end" (IMSG_PROXY_END), "listen" (one more listener, "port N" again),
 * "sandbox ID RULE..." (another sandbox, with rules "a:NAME", "d:NAME",
 * "c:CIDR", and a listener of its own: "port N" again), "end ID",
 * "badend" (a policy whose POLICY_END miscounts its rules: the proxy
 * must die), "quit".  With -A (PROXY_F_AUDIT) each IMSG_PROXY_AUDIT is printed as
 * one "audit ..." line.  EOF on stdin ends it, and the proxy with it
 * (it dies with its parent).  The proxy's stderr is a pipe, as the
 * monitor makes it ("rlimit fsize 0" kills a role writing to a file):
 * its lines are copied to ours.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "proxy_msg.h"
#include "role.h"

#define MAXRULES	64

extern char **environ;

static struct proxy_rule_msg	 rules[MAXRULES];
static size_t			 nrules;
static struct proxy_policy_msg	 pol;
static struct imsgbuf		 ibuf;

/* "name", "*.name", "name:port", as sbx.conf spells them. */
static void
domain(uint32_t kind, const char *s)
{
	char	 host[PROXY_HOST_MAX], *colon;
	int	 wild = 0, port = 0;

	if (nrules == MAXRULES)
		errx(1, "too many rules");
	if (strncmp(s, "*.", 2) == 0) {
		wild = 1;
		s += 2;
	}
	strlcpy(host, s, sizeof(host));
	if ((colon = strchr(host, ':')) != NULL) {
		*colon = '\0';
		port = atoi(colon + 1);
	}
	if (proxy_rule_domain(&rules[nrules++], kind == PROXY_RULE_DENY,
	    host, wild, (uint16_t)port) == -1)
		err(1, "%s", s);
}

static void
cidr(const char *s)
{
	uint8_t	 a[16];
	char	 buf[64], *slash;
	int	 r;

	if (nrules == MAXRULES)
		errx(1, "too many rules");
	strlcpy(buf, s, sizeof(buf));
	if ((slash = strchr(buf, '/')) != NULL)
		*slash++ = '\0';
	if (inet_pton(AF_INET, buf, a) == 1)
		r = proxy_rule_cidr(&rules[nrules++], AF_INET, a,
		    slash ? atoi(slash) : 32);
	else if (inet_pton(AF_INET6, buf, a) == 1)
		r = proxy_rule_cidr(&rules[nrules++], AF_INET6, a,
		    slash ? atoi(slash) : 128);
	else
		errx(1, "%s: not an address", s);
	if (r == -1)
		err(1, "%s", s);
}

static void	 send_msg(uint32_t, int, const void *, size_t);
static void	 listener(void);

/*
 * Send the policy and rules gathered so far (as the monitor would, with
 * proxy_send_policy), then a listener.  miscount: by hand, announcing
 * one rule that never comes.
 */
static void
send_policy(int miscount)
{
	struct proxy_policy_end	 end;

	if (!miscount) {
		if (proxy_send_policy(&ibuf, &pol, rules, nrules) == -1 ||
		    imsgbuf_flush(&ibuf) == -1)
			err(1, "sending the policy");
		listener();
		return;
	}
	pol.nallow = 1;
	pol.ndeny = pol.ncidr = 0;
	send_msg(IMSG_PROXY_POLICY, -1, &pol, sizeof(pol));
	end.sandbox = pol.sandbox;
	end.nrules = 1;
	send_msg(IMSG_PROXY_POLICY_END, -1, &end, sizeof(end));
}

/* "sandbox ID a:NAME d:NAME c:CIDR ...": a second sandbox. */
static void
another(char *line)
{
	char	*w, *last;

	nrules = 0;
	if ((w = strtok_r(line, " \n", &last)) == NULL ||
	    (w = strtok_r(NULL, " \n", &last)) == NULL)
		errx(1, "sandbox: no id");
	pol.sandbox = atoi(w);
	while ((w = strtok_r(NULL, " \n", &last)) != NULL) {
		if (strncmp(w, "a:", 2) == 0)
			domain(PROXY_RULE_ALLOW, w + 2);
		else if (strncmp(w, "d:", 2) == 0)
			domain(PROXY_RULE_DENY, w + 2);
		else if (strncmp(w, "c:", 2) == 0)
			cidr(w + 2);
		else
			errx(1, "sandbox: rule %s", w);
	}
	send_policy(0);
}

static void
send_msg(uint32_t type, int fd, const void *p, size_t len)
{
	if (imsg_compose(&ibuf, type, pol.sandbox, 0, fd, p, len) == -1)
		err(1, "imsg_compose");
	if (imsgbuf_flush(&ibuf) == -1)
		err(1, "imsgbuf_flush");
}

static void
listener(void)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof(sin);
	int			 fd;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		err(1, "socket");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, 128) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		err(1, "listener");
	printf("port %u\n", ntohs(sin.sin_port));
	fflush(stdout);
	if (proxy_send_listener(&ibuf, pol.sandbox, fd) == -1 ||
	    imsgbuf_flush(&ibuf) == -1)
		err(1, "sending the listener");
}

static void
audits(void)
{
	struct imsg		 imsg;
	struct proxy_audit	 a;
	int			 n;

	if ((n = imsgbuf_read(&ibuf)) == -1 && errno != EAGAIN)
		err(1, "channel read");
	if (n == 0)
		errx(1, "the proxy closed its channel");
	while ((n = imsg_get(&ibuf, &imsg)) > 0) {
		if (imsg_get_type(&imsg) != IMSG_PROXY_AUDIT ||
		    imsg_get_data(&imsg, &a, sizeof(a)) == -1)
			errx(1, "unexpected message %u", imsg_get_type(&imsg));
		printf("audit sandbox=%u uid=%u allowed=%u status=%u host=%s "
		    "port=%u addr=%s up=%llu down=%llu reason=%s\n",
		    a.sandbox, a.uid, a.allowed, a.status, a.host, a.port,
		    a.addr, (unsigned long long)a.bytes_up,
		    (unsigned long long)a.bytes_down, a.reason);
		fflush(stdout);
		imsg_free(&imsg);
	}
	if (n == -1)
		err(1, "imsg_get");
}

int
main(int argc, char *argv[])
{
	struct imsg		 imsg;
	struct pollfd		 pfd[3];
	char			 line[512], *av[5], logbuf[4096];
	ssize_t			 ln;
	int			 lp[2];
	pid_t			 pid;
	int			 sp[2], ch, n, ac = 0, verbose = 0;

	pol.sandbox = 7;
	pol.uid = getuid();
	while ((ch = getopt(argc, argv, "Aa:C:c:d:H:I:m:O:s:u:v")) != -1) {
		switch (ch) {
		case 'A':
			pol.flags |= PROXY_F_AUDIT;
			break;
		case 'a':
			domain(PROXY_RULE_ALLOW, optarg);
			break;
		case 'C':
			pol.connect_ms = atoi(optarg);
			break;
		case 'c':
			cidr(optarg);
			break;
		case 'd':
			domain(PROXY_RULE_DENY, optarg);
			break;
		case 'H':
			pol.header_ms = atoi(optarg);
			break;
		case 'I':
			pol.idle_ms = atoi(optarg);
			break;
		case 'm':
			pol.max_conns = atoi(optarg);
			break;
		case 'O':
			pol.io_ms = atoi(optarg);
			break;
		case 's':
			pol.sandbox = atoi(optarg);
			break;
		case 'u':
			pol.uid = atoi(optarg);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			errx(1, "usage: proxyrun [options] PROXY");
		}
	}
	if (optind + 1 != argc)
		errx(1, "usage: proxyrun [options] PROXY");
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1)
		err(1, "socketpair");
	if (pipe2(lp, O_CLOEXEC) == -1)
		err(1, "pipe2");
	switch (pid = fork()) {
	case -1:
		err(1, "fork");
	case 0:
		if (dup2(sp[1], ROLE_FD) == -1 ||
		    dup2(lp[1], STDERR_FILENO) == -1)
			_exit(127);
		av[ac++] = argv[optind];
		av[ac++] = "-P";
		av[ac++] = "proxy";
		if (verbose)
			av[ac++] = "-v";
		av[ac] = NULL;
		execve(argv[optind], av, environ);
		_exit(127);
	}
	close(sp[1]);
	close(lp[1]);
	if (imsgbuf_init(&ibuf, sp[0]) == -1)
		err(1, "imsgbuf_init");
	imsgbuf_allow_fdpass(&ibuf);
	/* READY, as proc_wait_ready takes it. */
	for (;;) {
		if ((n = imsgbuf_read(&ibuf)) == 0)
			errx(1, "sbx-proxy exited during start-up");
		if (n == -1 && errno != EAGAIN)
			err(1, "read");
		if ((n = imsg_get(&ibuf, &imsg)) == -1)
			err(1, "imsg_get");
		if (n == 1)
			break;
	}
	if (imsg_get_type(&imsg) != IMSG_ROLE_READY)
		errx(1, "expected READY, got %u", imsg_get_type(&imsg));
	imsg_free(&imsg);

	printf("pid %d\n", (int)pid);
	send_policy(0);

	pfd[0].fd = STDIN_FILENO;
	pfd[0].events = POLLIN;
	pfd[1].fd = sp[0];
	pfd[1].events = POLLIN;
	pfd[2].fd = lp[0];
	pfd[2].events = POLLIN;
	for (;;) {
		if (poll(pfd, 3, -1) == -1) {
			if (errno == EINTR)
				continue;
			err(1, "poll");
		}
		if (pfd[2].revents & (POLLIN | POLLHUP)) {
			if ((ln = read(lp[0], logbuf, sizeof(logbuf))) <= 0)
				pfd[2].fd = -1;
			else if (write(STDERR_FILENO, logbuf, ln) != ln)
				err(1, "stderr");
		}
		if (pfd[1].revents & (POLLIN | POLLHUP))
			audits();
		if (!(pfd[0].revents & (POLLIN | POLLHUP)))
			continue;
		if (fgets(line, sizeof(line), stdin) == NULL)
			break;
		if (strcmp(line, "end\n") == 0) {
			if (proxy_send_end(&ibuf, pol.sandbox) == -1)
				err(1, "end");
			if (imsgbuf_flush(&ibuf) == -1)
				err(1, "flush");
			printf("ended\n");
			fflush(stdout);
		} else if (strncmp(line, "end ", 4) == 0) {
			if (proxy_send_end(&ibuf, atoi(line + 4)) == -1)
				err(1, "end");
			if (imsgbuf_flush(&ibuf) == -1)
				err(1, "flush");
			printf("ended\n");
			fflush(stdout);
		} else if (strcmp(line, "listen\n") == 0)
			listener();
		else if (strncmp(line, "sandbox ", 8) == 0)
			another(line);
		else if (strcmp(line, "badend\n") == 0) {
			pol.sandbox = 99;
			send_policy(1);
		}
		else if (strcmp(line, "quit\n") == 0)
			break;
	}
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	return 0;
}
