/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * libsbx.c: the client side of the agent protocol (sbx-protocol(7)).
 *
 * Linked into agents, so it never exits, never logs and never keeps global
 * state: every failure comes back as -1/NULL with errno and a message.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "defs.h"
#include "imsg.h"
#include "sbx.h"

struct sbx_conn {
	struct imsgbuf	 ibuf;
	uint32_t	 nextid;
	char		 server[128];
};

static void
seterr(char *err, size_t errlen, const char *fmt, ...) SBX_PRINTF(3, 4);

static void
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list	 ap;
	int	 saved = errno;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	errno = saved;
}

/*
 * Without an override or $SBX_SOCKET: the system service's socket, unless
 * there is none and the user runs a monitor of their own (the systemd
 * user unit), whose socket is $XDG_RUNTIME_DIR/sbx/sbx.sock.  The system
 * socket wins whenever it exists, so a user's variable cannot divert an
 * agent that was meant for the system service.  The path is built in a
 * per-thread buffer: the only state this library keeps, and only so that
 * the interface stays a returned string.
 */
const char *
sbx_socket_path(const char *override)
{
	static __thread char	 user[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char		*env, *xdg;
	struct stat		 st;

	if (override != NULL && *override != '\0')
		return override;
	if ((env = getenv("SBX_SOCKET")) != NULL && *env != '\0')
		return env;
	if (lstat(SBX_SOCKET_DEFAULT, &st) == -1 && errno == ENOENT &&
	    (xdg = getenv("XDG_RUNTIME_DIR")) != NULL && xdg[0] == '/' &&
	    (size_t)snprintf(user, sizeof(user), "%s/%s", xdg,
	    SBX_SOCKET_USER) < sizeof(user))
		return user;
	return SBX_SOCKET_DEFAULT;
}

int
sbx_conn_fd(const struct sbx_conn *c)
{
	return c->ibuf.fd;
}

const char *
sbx_server(const struct sbx_conn *c)
{
	return c->server;
}

int
sbx_send_id(struct sbx_conn *c, uint32_t type, uint32_t id,
    const char *json, int fd)
{
	int	 dupfd = -1;

	if (json == NULL)
		json = "{}";
	/* imsg closes what it sends; the caller keeps its own descriptor. */
	if (fd != -1 && (dupfd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) == -1)
		return -1;
	if (imsg_compose(&c->ibuf, type, id, 0, dupfd, json,
	    strlen(json)) == -1) {
		if (dupfd != -1)
			close(dupfd);
		return -1;
	}
	return imsgbuf_flush(&c->ibuf);
}

int
sbx_send(struct sbx_conn *c, uint32_t type, const char *json, int fd,
    uint32_t *idp)
{
	uint32_t	 id;

	id = c->nextid++;
	if (c->nextid == 0)
		c->nextid = 1;
	if (sbx_send_id(c, type, id, json, fd) == -1)
		return -1;
	if (idp != NULL)
		*idp = id;
	return 0;
}

/* Hand a received imsg over as an sbx_msg.  1, or -1 with errno. */
static int
msg_take(struct imsg *imsg, struct sbx_msg *m)
{
	size_t	 len;

	len = imsg_get_len(imsg);
	if ((m->json = malloc(len + 1)) == NULL) {
		imsg_free(imsg);
		return -1;
	}
	if (len > 0)
		memcpy(m->json, imsg->data, len);
	m->json[len] = '\0';
	m->len = len;
	m->type = imsg_get_type(imsg);
	m->id = imsg_get_id(imsg);
	m->fd = imsg_get_fd(imsg);
	imsg_free(imsg);
	return 1;
}

int
sbx_recv(struct sbx_conn *c, struct sbx_msg *m)
{
	struct imsg	 imsg;
	struct pollfd	 pfd;
	int		 r;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	for (;;) {
		if ((r = imsg_get(&c->ibuf, &imsg)) == -1)
			return -1;
		if (r == 1)
			break;
		pfd.fd = c->ibuf.fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, -1) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if ((r = imsgbuf_read(&c->ibuf)) == -1)
			return -1;
		if (r == 0)
			return 0;
	}
	return msg_take(&imsg, m);
}

/*
 * One read from the socket may bring several messages (a RUN reply and,
 * for a short payload, its EXIT event); poll() on sbx_conn_fd() says
 * nothing about those already read.  A caller with its own event loop
 * drains them here before it polls, or it would wait forever for a
 * message it already has.
 */
int
sbx_recv_buffered(struct sbx_conn *c, struct sbx_msg *m)
{
	struct imsg	 imsg;
	int		 r;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	if ((r = imsg_get(&c->ibuf, &imsg)) != 1)
		return r;
	return msg_take(&imsg, m);
}

void
sbx_msg_free(struct sbx_msg *m)
{
	if (m->fd != -1)
		close(m->fd);
	free(m->json);
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

int
sbx_error(const struct sbx_msg *m, char *code, size_t codelen,
    char *message, size_t msglen)
{
	cJSON	*root, *c, *msg;
	int	 ret = -1;

	if (m->type != SBX_MSG_ERROR ||
	    (root = cJSON_ParseWithLength(m->json, m->len)) == NULL)
		return -1;
	c = cJSON_GetObjectItemCaseSensitive(root, "code");
	msg = cJSON_GetObjectItemCaseSensitive(root, "message");
	if (cJSON_IsString(c) && cJSON_IsString(msg)) {
		strlcpy(code, c->valuestring, codelen);
		strlcpy(message, msg->valuestring, msglen);
		ret = 0;
	}
	cJSON_Delete(root);
	return ret;
}

int
sbx_call(struct sbx_conn *c, uint32_t type, const char *json,
    struct sbx_msg *reply, char *err, size_t errlen)
{
	uint32_t	 id;
	int		 r, saved;

	if (sbx_send(c, type, json, -1, &id) == -1) {
		/* A monitor that refused us may have said why before it
		 * hung up: read that rather than report a broken pipe. */
		saved = errno;
		if ((saved == EPIPE || saved == ECONNRESET) &&
		    sbx_recv(c, reply) == 1) {
			if (reply->type == SBX_MSG_ERROR)
				return 0;
			sbx_msg_free(reply);
		}
		errno = saved;
		seterr(err, errlen, "sending request: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		if ((r = sbx_recv(c, reply)) == -1) {
			seterr(err, errlen, "reading reply: %s",
			    strerror(errno));
			return -1;
		}
		if (r == 0) {
			errno = ECONNRESET;
			seterr(err, errlen, "monitor closed the connection");
			return -1;
		}
		/* Errors about the connection itself carry id 0. */
		if (reply->id == id || (reply->type == SBX_MSG_ERROR &&
		    reply->id == 0))
			return 0;
		sbx_msg_free(reply);
	}
}

static int
hello(struct sbx_conn *c, const char *client, char *err, size_t errlen)
{
	struct sbx_msg	 m;
	cJSON		*req, *root, *v, *srv;
	char		*text, code[64], msg[256];
	int		 ret = -1;

	if ((req = cJSON_CreateObject()) == NULL ||
	    cJSON_AddNumberToObject(req, "version",
	    SBX_PROTOCOL_VERSION) == NULL ||
	    cJSON_AddStringToObject(req, "client",
	    client != NULL ? client : "libsbx") == NULL ||
	    (text = cJSON_PrintUnformatted(req)) == NULL) {
		cJSON_Delete(req);
		errno = ENOMEM;
		seterr(err, errlen, "out of memory");
		return -1;
	}
	cJSON_Delete(req);
	if (sbx_call(c, SBX_MSG_HELLO, text, &m, err, errlen) == -1) {
		free(text);
		return -1;
	}
	free(text);
	if (m.type == SBX_MSG_ERROR) {
		/* EPERM: the monitor answered and said no; EPROTO: it
		 * answered something that is not the protocol. */
		if (sbx_error(&m, code, sizeof(code), msg, sizeof(msg)) == 0) {
			seterr(err, errlen, "%s: %s", code, msg);
			errno = EPERM;
		} else {
			seterr(err, errlen, "malformed error reply");
			errno = EPROTO;
		}
		sbx_msg_free(&m);
		return -1;
	}
	root = cJSON_ParseWithLength(m.json, m.len);
	v = cJSON_GetObjectItemCaseSensitive(root, "version");
	srv = cJSON_GetObjectItemCaseSensitive(root, "server");
	if (m.type != (SBX_MSG_HELLO | SBX_REPLY) || !cJSON_IsNumber(v) ||
	    v->valuedouble != SBX_PROTOCOL_VERSION || !cJSON_IsString(srv)) {
		errno = EPROTO;
		seterr(err, errlen, "unexpected hello reply from monitor");
	} else {
		strlcpy(c->server, srv->valuestring, sizeof(c->server));
		ret = 0;
	}
	cJSON_Delete(root);
	sbx_msg_free(&m);
	return ret;
}

struct sbx_conn *
sbx_connect(const char *path, const char *client, char *err, size_t errlen)
{
	struct sockaddr_un	 sun;
	struct sbx_conn		*c;
	int			 fd, saved;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, path, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		seterr(err, errlen, "%s: socket path too long", path);
		return NULL;
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		seterr(err, errlen, "socket: %s", strerror(errno));
		return NULL;
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		saved = errno;
		seterr(err, errlen, "cannot reach the monitor at %s: %s",
		    path, strerror(saved));
		close(fd);
		errno = saved;
		return NULL;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		close(fd);
		seterr(err, errlen, "out of memory");
		return NULL;
	}
	if (imsgbuf_init(&c->ibuf, fd) == -1) {
		saved = errno;
		free(c);
		close(fd);
		errno = saved;
		seterr(err, errlen, "out of memory");
		return NULL;
	}
	imsgbuf_allow_fdpass(&c->ibuf);
	c->nextid = 1;
	if (hello(c, client, err, errlen) == -1) {
		saved = errno;
		sbx_disconnect(c);
		errno = saved;
		return NULL;
	}
	return c;
}

void
sbx_disconnect(struct sbx_conn *c)
{
	if (c == NULL)
		return;
	imsgbuf_clear(&c->ibuf);
	close(c->ibuf.fd);
	free(c);
}

int
sbx_resize(struct sbx_conn *c, uint32_t sandbox, unsigned rows,
    unsigned cols)
{
	char	 json[96];

	if (rows < 1 || rows > 65535 || cols < 1 || cols > 65535) {
		errno = EINVAL;
		return -1;
	}
	snprintf(json, sizeof(json), "{\"sandbox\":%u,\"rows\":%u,"
	    "\"cols\":%u}", sandbox, rows, cols);
	return sbx_send(c, SBX_MSG_RESIZE, json, -1, NULL);
}

int
sbx_run(struct sbx_conn *c, const char *json, const int fds[SBX_RUN_NFDS],
    uint32_t *reqid, uint32_t *sandbox, char *err, size_t errlen)
{
	static const char *const slots[SBX_RUN_NFDS] = {
		"stdin", "stdout", "stderr", "workdir"
	};
	struct sbx_msg	 m;
	cJSON		*req, *arr, *o, *sb;
	char		*text, code[64], msg[512], fdjson[64];
	uint32_t	 id;
	int		 i, ret = -1;

	if ((req = cJSON_Parse(json)) == NULL || !cJSON_IsObject(req)) {
		cJSON_Delete(req);
		errno = EINVAL;
		seterr(err, errlen, "run: the request is not a JSON object");
		return -1;
	}
	if ((arr = cJSON_AddArrayToObject(req, "fds")) == NULL)
		goto nomem;
	for (i = 0; i < SBX_RUN_NFDS; i++)
		if (fds[i] != -1)
			cJSON_AddItemToArray(arr, cJSON_CreateString(slots[i]));
	if ((text = cJSON_PrintUnformatted(req)) == NULL)
		goto nomem;
	cJSON_Delete(req);
	if (sbx_send(c, SBX_MSG_RUN, text, -1, &id) == -1) {
		free(text);
		seterr(err, errlen, "sending run: %s", strerror(errno));
		return -1;
	}
	free(text);
	for (i = 0; i < SBX_RUN_NFDS; i++) {
		if (fds[i] == -1)
			continue;
		snprintf(fdjson, sizeof(fdjson), "{\"slot\":\"%s\"}",
		    slots[i]);
		if (sbx_send_id(c, SBX_MSG_FD, id, fdjson, fds[i]) == -1) {
			seterr(err, errlen, "sending %s: %s", slots[i],
			    strerror(errno));
			/* A refusal may already be waiting: read it below. */
			break;
		}
	}
	for (;;) {
		if ((i = sbx_recv(c, &m)) != 1) {
			if (i == 0)
				errno = ECONNRESET;
			seterr(err, errlen, "waiting for the sandbox: %s",
			    i == 0 ? "the monitor closed the connection" :
			    strerror(errno));
			return -1;
		}
		if (m.id == id || m.id == 0)
			break;
		sbx_msg_free(&m);
	}
	if (m.type == SBX_MSG_ERROR) {
		if (sbx_error(&m, code, sizeof(code), msg, sizeof(msg)) == 0)
			seterr(err, errlen, "%s: %s", code, msg);
		else
			seterr(err, errlen, "malformed error from the monitor");
		ret = 1;
	} else if (m.type == (SBX_MSG_RUN | SBX_REPLY) &&
	    (o = cJSON_ParseWithLength(m.json, m.len)) != NULL) {
		sb = cJSON_GetObjectItemCaseSensitive(o, "sandbox");
		if (cJSON_IsNumber(sb)) {
			*sandbox = (uint32_t)sb->valuedouble;
			*reqid = id;
			ret = 0;
		} else {
			errno = EPROTO;
			seterr(err, errlen, "run reply without a sandbox id");
		}
		cJSON_Delete(o);
	} else {
		errno = EPROTO;
		seterr(err, errlen, "unexpected reply type %u to run", m.type);
	}
	sbx_msg_free(&m);
	return ret;
 nomem:
	cJSON_Delete(req);
	errno = ENOMEM;
	seterr(err, errlen, "out of memory");
	return -1;
}
