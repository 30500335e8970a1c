/*
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
 * Prints "port N" once the listener is handed over.  Commands on stdin:
 * "end" (IMSG_PROXY_END), "listen" (one more listener, "port N" again),
 * "quit".  With -A (PROXY_F_AUDIT) each IMSG_PROXY_AUDIT is printed as
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

#define MAXRULES	64

extern char **environ;

static struct proxy_rule_msg	 rules[MAXRULES];
static size_t			 nrules;
static struct proxy_policy_msg	 pol;
static struct imsgbuf		 ibuf;

static void
domain(uint32_t kind, const char *s)
{
	struct proxy_rule_msg	*r;
	const char		*colon;
	size_t			 i;

	if (nrules == MAXRULES)
		errx(1, "too many rules");
	r = &rules[nrules++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	if (strncmp(s, "*.", 2) == 0) {
		r->wildcard = 1;
		s += 2;
	}
	if ((colon = strchr(s, ':')) != NULL)
		r->port = (uint16_t)atoi(colon + 1);
	for (i = 0; s[i] != '\0' && s + i != colon && i + 1 <
	    sizeof(r->host); i++)
		r->host[i] = s[i];
	if (kind == PROXY_RULE_ALLOW)
		pol.nallow++;
	else
		pol.ndeny++;
}

static void
cidr(const char *s)
{
	struct proxy_rule_msg	*r;
	char			 buf[64], *slash;

	if (nrules == MAXRULES)
		errx(1, "too many rules");
	r = &rules[nrules++];
	memset(r, 0, sizeof(*r));
	r->kind = PROXY_RULE_CIDR;
	strlcpy(buf, s, sizeof(buf));
	if ((slash = strchr(buf, '/')) != NULL)
		*slash++ = '\0';
	if (inet_pton(AF_INET, buf, r->addr) == 1) {
		r->af = AF_INET;
		r->prefixlen = slash ? atoi(slash) : 32;
	} else if (inet_pton(AF_INET6, buf, r->addr) == 1) {
		r->af = AF_INET6;
		r->prefixlen = slash ? atoi(slash) : 128;
	} else
		errx(1, "%s: not an address", s);
	pol.ncidr++;
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
	struct proxy_sandbox_msg m = { pol.sandbox };
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
	send_msg(IMSG_PROXY_LISTEN, fd, &m, sizeof(m));
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
	struct proxy_policy_end	 end;
	struct proxy_sandbox_msg m;
	struct imsg		 imsg;
	struct pollfd		 pfd[3];
	char			 line[64], *av[5], logbuf[4096];
	ssize_t			 ln;
	int			 lp[2];
	size_t			 i;
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

	send_msg(IMSG_PROXY_POLICY, -1, &pol, sizeof(pol));
	for (i = 0; i < nrules; i++) {
		rules[i].sandbox = pol.sandbox;
		send_msg(IMSG_PROXY_RULE, -1, &rules[i], sizeof(rules[i]));
	}
	end.sandbox = pol.sandbox;
	end.nrules = nrules;
	send_msg(IMSG_PROXY_POLICY_END, -1, &end, sizeof(end));
	listener();

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
			m.sandbox = pol.sandbox;
			send_msg(IMSG_PROXY_END, -1, &m, sizeof(m));
			printf("ended\n");
			fflush(stdout);
		} else if (strcmp(line, "listen\n") == 0)
			listener();
		else if (strcmp(line, "quit\n") == 0)
			break;
	}
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	return 0;
}
