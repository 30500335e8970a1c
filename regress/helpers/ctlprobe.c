/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * ctlprobe: misbehave on sbx-monitor's control socket in one named way and
 * print what the monitor answered, for regress/monitor.sh.
 *
 *	ctlprobe SOCKET SCENARIO [N]
 *
 * Prints one line: "ok", "closed" (the monitor hung up without a word), or
 * "error CODE MESSAGE" (the first error it sent).  Exits 0 when it could
 * run the scenario at all, 1 when the probe itself failed.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "libsbx/sbx.h"

static const char	*sockpath;

static int
dial(void)
{
	struct sockaddr_un	 sun;
	int			 fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strlcpy(sun.sun_path, sockpath, sizeof(sun.sun_path));
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(1, "socket");
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		err(1, "connect %s", sockpath);
	return fd;
}

static void
raw(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		if ((n = send(fd, p, len, MSG_NOSIGNAL)) == -1) {
			if (errno == EPIPE || errno == ECONNRESET)
				return;	/* it hung up on us: read why */
			err(1, "send");
		}
		p += n;
		len -= n;
	}
}

static void
frame(int fd, uint32_t type, uint32_t len, const void *data, size_t dlen)
{
	struct imsg_hdr	 h;

	h.type = type;
	h.len = len;
	h.peerid = 7;
	h.pid = 0;
	raw(fd, &h, sizeof(h));
	if (dlen > 0)
		raw(fd, data, dlen);
}

static void
msg(int fd, uint32_t type, const char *json)
{
	size_t	 n = strlen(json);

	frame(fd, type, IMSG_HEADER_SIZE + n, json, n);
}

/* A frame with a descriptor: header + payload in one sendmsg. */
static void
msg_fd(int fd, uint32_t type, const char *json, int passfd)
{
	struct imsg_hdr	 h;
	struct msghdr	 mh;
	struct iovec	 iov[2];
	union {
		struct cmsghdr	 hdr;
		char		 buf[CMSG_SPACE(sizeof(int))];
	}		 cm;
	struct cmsghdr	*c;

	h.type = type;
	h.len = (IMSG_HEADER_SIZE + strlen(json)) | IMSG_FD_MARK;
	h.peerid = 7;
	h.pid = 0;
	iov[0].iov_base = &h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = (void *)json;
	iov[1].iov_len = strlen(json);
	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	mh.msg_control = &cm;
	mh.msg_controllen = sizeof(cm.buf);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &passfd, sizeof(int));
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) == -1 && errno != EPIPE &&
	    errno != ECONNRESET)
		err(1, "sendmsg");
}

static const char *outcome_until(int, int, uint32_t);

/*
 * Read frames until an error, the reply to a request (type|REPLY) counted
 * down to zero, or EOF.  Returns the line to print (static).
 */
static const char *
outcome(int fd, int replies)
{
	return outcome_until(fd, replies, 0);
}

/* The same, and "ok" at the first frame of type until (0: none). */
static const char *
outcome_until(int fd, int replies, uint32_t until)
{
	static char	 line[1024];
	struct imsgbuf	 ib;
	struct imsg	 im;
	struct pollfd	 pfd;
	cJSON		*o, *code, *m;
	int		 n;

	if (imsgbuf_init(&ib, fd) == -1)
		err(1, "imsgbuf_init");
	if (imsgbuf_set_maxsize(&ib, 1024 * 1024) == -1)
		err(1, "imsgbuf_set_maxsize");
	for (;;) {
		while ((n = imsg_get(&ib, &im)) == 1) {
			if (imsg_get_type(&im) == SBX_MSG_ERROR) {
				o = cJSON_ParseWithLength(im.data,
				    imsg_get_len(&im));
				code = cJSON_GetObjectItem(o, "code");
				m = cJSON_GetObjectItem(o, "message");
				snprintf(line, sizeof(line), "error %s %s",
				    cJSON_IsString(code) ? code->valuestring :
				    "?", cJSON_IsString(m) ? m->valuestring :
				    "?");
				cJSON_Delete(o);
				imsg_free(&im);
				imsgbuf_clear(&ib);
				return line;
			}
			if (until != 0 && imsg_get_type(&im) == until)
				replies = 1;
			imsg_free(&im);
			if (--replies == 0) {
				imsgbuf_clear(&ib);
				return "ok";
			}
		}
		if (n == -1)
			err(1, "bad frame from the monitor");
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 5000) <= 0)
			errx(1, "no answer within 5 s");
		if ((n = imsgbuf_read(&ib)) == 0 ||
		    (n == -1 && errno == ECONNRESET)) {
			imsgbuf_clear(&ib);
			return "closed";
		}
		if (n == -1)
			err(1, "read");
	}
}

#define HELLO	"{\"version\":1,\"client\":\"ctlprobe\"}"

/*
 * RUN requests refused from their fields alone.  Pty requests (issue 26):
 * window sizes and what they need.  An overlay run's T0 from the agent
 * (issue 23): a whole number of microseconds, checked before the workdir
 * the request lacks; one out of the last second is no error (now serves
 * instead).
 */
static const struct {
	const char	*name;
	const char	*req;
} runs[] = {
	{ "run-pty-nofds", "{\"argv\":[\"/bin/true\"],\"pty\":true}" },
	{ "run-rows-no-pty",
	    "{\"argv\":[\"/bin/true\"],\"rows\":24,\"cols\":80}" },
	{ "run-pty-rows-only", "{\"argv\":[\"/bin/true\"],\"pty\":true,"
	    "\"rows\":24,\"fds\":[\"stdin\",\"stdout\"]}" },
	{ "run-t0-frac", "{\"argv\":[\"/bin/true\"],\"overlay\":true,"
	    "\"t0_us\":1796300000000000.5}" },
	{ "run-t0-negative", "{\"argv\":[\"/bin/true\"],\"overlay\":true,"
	    "\"t0_us\":-1}" },
	{ "run-t0-string", "{\"argv\":[\"/bin/true\"],\"overlay\":true,"
	    "\"t0_us\":\"1\"}" },
	{ "run-t0-future", "{\"argv\":[\"/bin/true\"],\"overlay\":true,"
	    "\"t0_us\":4000000000000000}" },
};

static const char *
scenario(const char *name, int count)
{
	char	*big;
	int	 fd, i, devnull, *fds;

	fd = dial();
	if (strcmp(name, "hello") == 0) {
		msg(fd, SBX_MSG_HELLO, HELLO);
		msg(fd, SBX_MSG_PING, "{}");
		return outcome(fd, 2);
	}
	if (strcmp(name, "no-hello") == 0) {
		msg(fd, SBX_MSG_PING, "{}");
		return outcome(fd, 1);
	}
	if (strcmp(name, "bad-version") == 0) {
		msg(fd, SBX_MSG_HELLO, "{\"version\":2}");
		return outcome(fd, 1);
	}
	if (strcmp(name, "twice-hello") == 0) {
		msg(fd, SBX_MSG_HELLO, HELLO);
		msg(fd, SBX_MSG_HELLO, HELLO);
		return outcome(fd, 2);
	}
	if (strcmp(name, "schema-unknown") == 0) {
		msg(fd, SBX_MSG_HELLO, "{\"version\":1,\"colour\":\"red\"}");
		return outcome(fd, 1);
	}
	if (strcmp(name, "schema-type") == 0) {
		msg(fd, SBX_MSG_HELLO, "{\"version\":\"1\"}");
		return outcome(fd, 1);
	}
	if (strcmp(name, "schema-missing") == 0) {
		msg(fd, SBX_MSG_HELLO, "{}");
		return outcome(fd, 1);
	}
	if (strcmp(name, "schema-dup") == 0) {
		msg(fd, SBX_MSG_HELLO, "{\"version\":1,\"version\":1}");
		return outcome(fd, 1);
	}
	if (strcmp(name, "not-object") == 0) {
		msg(fd, SBX_MSG_HELLO, "[1]");
		return outcome(fd, 1);
	}
	if (strcmp(name, "garbage") == 0) {
		msg(fd, SBX_MSG_HELLO, HELLO);
		msg(fd, SBX_MSG_PING, "\x01\xff{not json");
		return outcome(fd, 2);
	}
	/* Pty requests (issue 26): window sizes and what they need. */
	if (strcmp(name, "resize-range") == 0) {
		msg(fd, SBX_MSG_HELLO, HELLO);
		msg(fd, SBX_MSG_RESIZE, "{\"sandbox\":1,\"rows\":0,"
		    "\"cols\":80}");
		return outcome(fd, 2);
	}
	if (strcmp(name, "resize-frac") == 0) {
		msg(fd, SBX_MSG_HELLO, HELLO);
		msg(fd, SBX_MSG_RESIZE, "{\"sandbox\":1,\"rows\":24.5,"
		    "\"cols\":80}");
		return outcome(fd, 2);
	}
	if (strcmp(name, "resize-missing") == 0) {
		msg(fd, SBX_MSG_HELLO, HELLO);
		msg(fd, SBX_MSG_RESIZE, "{\"sandbox\":1,\"rows\":24}");
		return outcome(fd, 2);
	}
	if (strcmp(name, "resize-not-yours") == 0) {
		msg(fd, SBX_MSG_HELLO, HELLO);
		msg(fd, SBX_MSG_RESIZE, "{\"sandbox\":4000,\"rows\":24,"
		    "\"cols\":80}");
		return outcome(fd, 2);
	}
	/* A RUN request alone after the hello: its refusal (runs). */
	for (i = 0; i < (int)nitems(runs); i++)
		if (strcmp(name, runs[i].name) == 0) {
			msg(fd, SBX_MSG_HELLO, HELLO);
			msg(fd, SBX_MSG_RUN, runs[i].req);
			return outcome(fd, 2);
		}
	/*
	 * A whole overlay run with the agent's T0 in $CTLPROBE_T0_US on
	 * the directory $CTLPROBE_DIR, profile "caller" (changes.sh's);
	 * the payload makes one file, so a changeset is kept.  "ok" at its
	 * EXIT event.
	 */
	if (strcmp(name, "run-t0-dir") == 0) {
		const char	*dir = getenv("CTLPROBE_DIR");
		const char	*t0 = getenv("CTLPROBE_T0_US");
		char		 req[256];
		int		 dfd;

		if (dir == NULL || t0 == NULL)
			errx(1, "run-t0-dir: CTLPROBE_DIR and CTLPROBE_T0_US");
		if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
			err(1, "%s", dir);
		snprintf(req, sizeof(req), "{\"argv\":[\"/bin/sh\",\"-c\","
		    "\": > made\"],\"profile\":\"caller\",\"overlay\":true,"
		    "\"t0_us\":%s,"
		    "\"fds\":[\"workdir\"]}", t0);
		msg(fd, SBX_MSG_HELLO, HELLO);
		msg(fd, SBX_MSG_RUN, req);
		msg_fd(fd, SBX_MSG_FD, "{\"slot\":\"workdir\"}", dfd);
		close(dfd);
		return outcome_until(fd, 100, SBX_MSG_EXIT);
	}
	if (strcmp(name, "unknown-type") == 0) {
		msg(fd, SBX_MSG_HELLO, HELLO);
		msg(fd, 999, "{}");
		return outcome(fd, 2);
	}
	if (strcmp(name, "short-len") == 0) {
		frame(fd, SBX_MSG_HELLO, 8, NULL, 0);
		return outcome(fd, 1);
	}
	if (strcmp(name, "oversize") == 0) {
		/* A 1 MiB payload: refused from its header. */
		if ((big = calloc(1, 1024 * 1024)) == NULL)
			err(1, "calloc");
		memset(big, 'x', 1024 * 1024);
		frame(fd, SBX_MSG_HELLO, IMSG_HEADER_SIZE + 1024 * 1024,
		    big, 1024 * 1024);
		free(big);
		return outcome(fd, 1);
	}
	if (strcmp(name, "truncated") == 0) {
		/* Ten bytes of a header, then silence and EOF. */
		raw(fd, "\x01\x00\x00\x00\x40\x00\x00\x00\x07\x00", 10);
		shutdown(fd, SHUT_WR);
		return outcome(fd, 1);
	}
	if (strcmp(name, "length-lie") == 0) {
		/* The header promises 100 bytes; 20 come, then EOF. */
		frame(fd, SBX_MSG_HELLO, IMSG_HEADER_SIZE + 100,
		    "{\"version\":1}       ", 20);
		shutdown(fd, SHUT_WR);
		return outcome(fd, 1);
	}
	if (strcmp(name, "fd-on-ping") == 0) {
		if ((devnull = open("/dev/null", O_RDONLY)) == -1)
			err(1, "/dev/null");
		msg(fd, SBX_MSG_HELLO, HELLO);
		msg_fd(fd, SBX_MSG_PING, "{}", devnull);
		return outcome(fd, 2);
	}
	if (strcmp(name, "fd-flood") == 0) {
		/* count descriptors in a row, each on its own frame. */
		if ((devnull = open("/dev/null", O_RDONLY)) == -1)
			err(1, "/dev/null");
		msg(fd, SBX_MSG_HELLO, HELLO);
		for (i = 0; i < count; i++)
			msg_fd(fd, SBX_MSG_PING, "{}", devnull);
		return outcome(fd, 2);
	}
	if (strcmp(name, "many") == 0) {
		/* count clients connected at once, each says hello and
		 * pings; all stay open until every one was answered. */
		if ((fds = calloc(count, sizeof(int))) == NULL)
			err(1, "calloc");
		close(fd);
		for (i = 0; i < count; i++) {
			fds[i] = dial();
			msg(fds[i], SBX_MSG_HELLO, HELLO);
			msg(fds[i], SBX_MSG_PING, "{}");
		}
		for (i = 0; i < count; i++)
			if (strcmp(outcome(fds[i], 2), "ok") != 0)
				errx(1, "client %d of %d was not served", i,
				    count);
		for (i = 0; i < count; i++)
			close(fds[i]);
		free(fds);
		return "ok";
	}
	/*
	 * Descriptors of the wrong access mode, which the provider runner
	 * would take as a protocol violation (and end the service): the
	 * monitor refuses them first.
	 */
	if (strcmp(name, "gates-readonly-result") == 0 ||
	    strcmp(name, "gates-records-twice") == 0 ||
	    strcmp(name, "invoke-writeonly-records") == 0) {
		int	 p[2];

		if (pipe(p) == -1)
			err(1, "pipe");
		msg(fd, SBX_MSG_HELLO, HELLO);
		if (strcmp(name, "invoke-writeonly-records") == 0)
			msg_fd(fd, SBX_MSG_PROVIDER_INVOKE, "{\"provider\":"
			    "\"prv-0\",\"clockMs\":1}", p[1]);
		else
			msg_fd(fd, SBX_MSG_GATES_EVALUATE, strcmp(name,
			    "gates-readonly-result") == 0 ? "{\"now\":\"x\","
			    "\"trustedBindingDigest\":\"x\",\"binding\":"
			    "\"b\",\"metrics\":\"m\",\"holdout\":\"h\"}" :
			    "{\"now\":\"x\",\"trustedBindingDigest\":\"x\","
			    "\"binding\":\"b\",\"metrics\":\"m\","
			    "\"holdout\":\"h\",\"records\":["
			    "{\"provider\":\"p/v1\",\"file\":\"r\"},"
			    "{\"provider\":\"p/v1\",\"file\":\"r\"}]}",
			    strcmp(name, "gates-readonly-result") == 0 ?
			    p[0] : p[1]);
		return outcome(fd, 2);
	}
	/* Requests that need a descriptor, sent without one. */
	if (strcmp(name, "invoke-no-fd") == 0) {
		msg(fd, SBX_MSG_HELLO, HELLO);
		msg(fd, SBX_MSG_PROVIDER_INVOKE, "{\"provider\":\"prv-0\","
		    "\"clockMs\":1}");
		return outcome(fd, 2);
	}
	/* PROVIDER_UNLOAD: its schema, and a handle never issued. */
	if (strcmp(name, "unload-schema") == 0) {
		msg(fd, SBX_MSG_HELLO, HELLO);
		msg(fd, SBX_MSG_PROVIDER_UNLOAD, "{}");
		return outcome(fd, 2);
	}
	if (strcmp(name, "unload-unknown") == 0) {
		msg(fd, SBX_MSG_HELLO, HELLO);
		msg(fd, SBX_MSG_PROVIDER_UNLOAD, "{\"provider\":\"prv-0\"}");
		return outcome(fd, 2);
	}
	if (strcmp(name, "verify-no-fd") == 0) {
		msg(fd, SBX_MSG_HELLO, HELLO);
		msg(fd, SBX_MSG_GATES_VERIFY, "{\"trustedBindingDigest\":"
		    "\"x\",\"report\":\"r\",\"binding\":\"b\","
		    "\"metrics\":\"m\",\"holdout\":\"h\"}");
		return outcome(fd, 2);
	}
	if (strcmp(name, "silent") == 0) {
		/* Say nothing; the caller runs other clients meanwhile and
		 * then kills us.  Print once connected. */
		printf("connected\n");
		fflush(stdout);
		pause();
		return "closed";
	}
	errx(1, "unknown scenario %s", name);
}

int
main(int argc, char *argv[])
{
	int	 count = 100;

	if (argc < 3 || argc > 4)
		errx(1, "usage: ctlprobe socket scenario [count]");
	sockpath = argv[1];
	if (argc == 4 && (count = atoi(argv[3])) <= 0)
		errx(1, "bad count %s", argv[3]);
	printf("%s\n", scenario(argv[2], count));
	return 0;
}
