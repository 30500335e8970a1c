/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_imsg: feed arbitrary bytes and descriptors through a socketpair into
 * imsgbuf_read/imsg_get, as a hostile peer would.  Besides the sanitizers'
 * findings, a descriptor left open after a run is a crash: a peer must not
 * be able to leak fds into us.
 *
 * Input layout:
 *   byte 0      flags: bit 0 allow fd passing on the receiver; bits 1-2
 *               pick the receiver's cap (default, 16, 64, 1024); bit 3
 *               take fds with imsg_get_fd (else imsg_free closes them);
 *               bit 4 ask imsg_get_data for one byte too many; bit 5
 *               drain only at the end
 *   then        segments "ctl len data[len]": ctl bits 0-1 say how many
 *               descriptors ride on this segment's sendmsg (one
 *               SCM_RIGHTS), bit 2 drains the receiver after it; a short
 *               last segment sends whatever is left
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define FD_SCAN		256

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct rx {
	struct imsgbuf	 ib;
	int		 fd;
	int		 dead;		/* protocol error or EOF seen */
	int		 take_fd;
	int		 data_plus;
};

static int
open_fds(void)
{
	int	 fd, n = 0;

	for (fd = 0; fd < FD_SCAN; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			n++;
	return n;
}

static int
readable(int fd)
{
	struct pollfd	 pfd;

	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	if (poll(&pfd, 1, 0) == -1)
		return 0;
	return (pfd.revents & (POLLIN | POLLHUP)) != 0;
}

static void
consume(struct rx *rx, struct imsg *m)
{
	unsigned char	 buf[64];
	size_t		 len;
	int		 fd;

	len = imsg_get_len(m);
	(void)imsg_get_type(m);
	(void)imsg_get_id(m);
	(void)imsg_get_pid(m);
	/* Touch the payload's last byte: ASan checks the copy is len long. */
	if (len > 0 && ((const unsigned char *)m->data)[len - 1] == 0xff)
		buf[0] = 1;
	if (len + (size_t)rx->data_plus <= sizeof(buf))
		(void)imsg_get_data(m, buf, len + (size_t)rx->data_plus);
	if (rx->take_fd && (fd = imsg_get_fd(m)) != -1) {
		if (fcntl(fd, F_GETFD) == -1 || imsg_get_fd(m) != -1)
			abort();	/* not a live fd, or handed out twice */
		close(fd);
	}
	imsg_free(m);
}

static void
drain(struct rx *rx)
{
	struct imsg	 m;
	int		 r;

	while (!rx->dead) {
		while ((r = imsg_get(&rx->ib, &m)) == 1)
			consume(rx, &m);
		if (r == -1) {
			if (errno != ERANGE && errno != EBADMSG &&
			    errno != ENOMEM)
				abort();	/* an error we do not document */
			rx->dead = 1;
			break;
		}
		if (!readable(rx->fd))
			break;
		if ((r = imsgbuf_read(&rx->ib)) != 1)
			rx->dead = 1;
	}
}

static void
send_segment(struct rx *rx, int s, const uint8_t *p, size_t len, int nfds,
    int spare)
{
	struct msghdr	 msg;
	struct iovec	 iov;
	struct cmsghdr	*cm;
	union {
		struct cmsghdr	 hdr;
		unsigned char	 buf[CMSG_SPACE(sizeof(int) * 3)];
	} cbuf;
	int		 fds[3] = { spare, spare, spare };
	ssize_t		 n;

	while (len > 0 && !rx->dead) {
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = (void *)(uintptr_t)p;
		iov.iov_len = len;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		if (nfds > 0) {
			memset(&cbuf, 0, sizeof(cbuf));
			msg.msg_control = cbuf.buf;
			msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			cm = CMSG_FIRSTHDR(&msg);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
		}
		n = sendmsg(s, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n == -1) {
			if (errno != EAGAIN && errno != EINTR)
				abort();
			drain(rx);	/* make room, then try again */
			continue;
		}
		p += n;
		len -= (size_t)n;
		nfds = 0;		/* the rights went with those bytes */
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t caps[] = { IMSG_MAXSIZE_DEFAULT, 16, 64, 1024 };
	static int	 spare = -1, baseline = -1;
	struct rx	 rx;
	size_t		 off, len;
	int		 sv[2], flags, ctl, late;

	if (spare == -1 && (spare = open("/dev/null", O_RDONLY)) == -1)
		abort();
	if (baseline == -1)
		baseline = open_fds();
	if (size < 1)
		return 0;

	flags = data[0];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
	    sv) == -1)
		abort();
	memset(&rx, 0, sizeof(rx));
	rx.fd = sv[1];
	rx.take_fd = (flags & 8) != 0;
	rx.data_plus = (flags & 16) != 0;
	late = (flags & 32) != 0;
	if (imsgbuf_init(&rx.ib, sv[1]) == -1)
		abort();
	if (flags & 1)
		imsgbuf_allow_fdpass(&rx.ib);
	if (imsgbuf_set_maxsize(&rx.ib, caps[(flags >> 1) & 3]) == -1)
		abort();

	for (off = 1; off < size && !rx.dead; off += len) {
		ctl = data[off++];
		if (off < size)
			len = data[off++];
		else
			len = 0;
		if (len > size - off)
			len = size - off;
		send_segment(&rx, sv[0], data + off, len, ctl & 3, spare);
		if ((ctl & 4) && !late)
			drain(&rx);
	}
	/*
	 * The peer hangs up: what is left must parse or fail cleanly, and
	 * draining must end in EOF or a protocol error, nothing else.
	 */
	close(sv[0]);
	drain(&rx);
	if (!rx.dead)
		abort();
	imsgbuf_clear(&rx.ib);
	close(sv[1]);
	if (open_fds() != baseline)
		abort();		/* a descriptor leaked */
	return 0;
}
