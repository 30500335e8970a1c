/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_common_imsg: imsg framing (common/imsg.c) over real socketpairs: the wire
 * layout, reassembly of fragments, descriptor passing and every way a peer
 * can get descriptors or lengths wrong, the write queue, the read bound and
 * a flood.  Every case also checks that it leaves no descriptor behind.
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define FLOOD_COUNT	200000

struct chan {
	int		 sv[2];
	struct imsgbuf	 a;		/* sender, on sv[0] */
	struct imsgbuf	 b;		/* receiver, on sv[1] */
};

static int
fd_count(void)
{
	DIR		*d;
	struct dirent	*de;
	int		 n = 0;

	ATF_REQUIRE((d = opendir("/proc/self/fd")) != NULL);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void
chan_open(struct chan *c, int nonblock, int fdpass_a, int fdpass_b)
{
	int	 type = SOCK_STREAM | SOCK_CLOEXEC;

	if (nonblock)
		type |= SOCK_NONBLOCK;
	ATF_REQUIRE(socketpair(AF_UNIX, type, 0, c->sv) == 0);
	ATF_REQUIRE(imsgbuf_init(&c->a, c->sv[0]) == 0);
	ATF_REQUIRE(imsgbuf_init(&c->b, c->sv[1]) == 0);
	if (fdpass_a)
		imsgbuf_allow_fdpass(&c->a);
	if (fdpass_b)
		imsgbuf_allow_fdpass(&c->b);
}

static void
chan_close(struct chan *c)
{
	imsgbuf_clear(&c->a);
	imsgbuf_clear(&c->b);
	if (c->sv[0] != -1)
		close(c->sv[0]);
	if (c->sv[1] != -1)
		close(c->sv[1]);
	c->sv[0] = c->sv[1] = -1;
}

static void
fill(unsigned char *p, size_t n, unsigned int seed)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i * 31 + (i >> 8));
}

static int
pattern_ok(const unsigned char *p, size_t n, unsigned int seed)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (p[i] != (unsigned char)(seed + i * 31 + (i >> 8)))
			return 0;
	return 1;
}

static void
mkhdr(unsigned char *p, uint32_t type, uint32_t len, uint32_t peerid,
    uint32_t pid)
{
	struct imsg_hdr	 h;

	h.type = type;
	h.len = len;
	h.peerid = peerid;
	h.pid = pid;
	memcpy(p, &h, sizeof(h));
}

/* One sendmsg of raw bytes with nfds descriptors in one SCM_RIGHTS. */
static void
send_raw(int s, const void *buf, size_t len, const int *fds, int nfds)
{
	struct msghdr	 msg;
	struct iovec	 iov;
	struct cmsghdr	*cm;
	union {
		struct cmsghdr	 hdr;
		unsigned char	 buf[CMSG_SPACE(sizeof(int) * 4)];
	} cbuf;

	ATF_REQUIRE(nfds >= 0 && nfds <= 4);
	memset(&msg, 0, sizeof(msg));
	memset(&cbuf, 0, sizeof(cbuf));
	iov.iov_base = (void *)(uintptr_t)buf;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (nfds > 0) {
		msg.msg_control = cbuf.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
	}
	ATF_REQUIRE_EQ(sendmsg(s, &msg, MSG_NOSIGNAL), (ssize_t)len);
}

static int
readable(int fd)
{
	struct pollfd	 pfd;

	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	ATF_REQUIRE(poll(&pfd, 1, 0) != -1);
	return (pfd.revents & (POLLIN | POLLHUP)) != 0;
}

/*
 * Receive the next message on c->b, writing c->a's queue as we go, so
 * that messages larger than the socket buffer move on one thread.  Works
 * on blocking and non-blocking pairs.  Fails (never hangs) when no message
 * can arrive because nothing is in flight.
 */
static int
recv_one(struct chan *c, struct imsg *m)
{
	int	 r;

	for (;;) {
		if ((r = imsg_get(&c->b, m)) != 0)
			return r;
		if (imsgbuf_queuelen(&c->a) > 0)
			ATF_REQUIRE_EQ(imsgbuf_write(&c->a), 0);
		else
			ATF_REQUIRE_MSG(readable(c->sv[1]),
			    "a message was expected but none is in flight");
		if (!readable(c->sv[1]))
			continue;
		r = imsgbuf_read(&c->b);
		ATF_REQUIRE_MSG(r == 1, "imsgbuf_read: %d (%s)", r,
		    r == -1 ? strerror(errno) : "EOF");
	}
}

/* Read and get until one or the other reports a result other than "more". */
static int
read_get(struct imsgbuf *b, struct imsg *m)
{
	int	 r;

	for (;;) {
		if ((r = imsg_get(b, m)) != 0)
			return r;
		if ((r = imsgbuf_read(b)) != 1)
			return r == 0 ? -2 : -1;
	}
}

static int
open_tmp(const char *name)
{
	int	 fd;

	fd = open(name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ATF_REQUIRE_MSG(fd != -1, "open %s: %s", name, strerror(errno));
	return fd;
}

static void
same_file(int a, int b)
{
	struct stat	 sa, sb;

	ATF_REQUIRE(fstat(a, &sa) == 0);
	ATF_REQUIRE(fstat(b, &sb) == 0);
	ATF_CHECK_EQ(sa.st_dev, sb.st_dev);
	ATF_CHECK_EQ(sa.st_ino, sb.st_ino);
}

static int
is_closed(int fd)
{
	return fcntl(fd, F_GETFD) == -1 && errno == EBADF;
}

/* ---- wire layout ---------------------------------------------------- */

/*
 * The bytes queued and not yet sent, which the monitor caps per client
 * (client-queue-max): counted whole at compose, less what each partial
 * write took, zero once all went.
 */
ATF_TC_WITHOUT_HEAD(queue_bytes);
ATF_TC_BODY(queue_bytes, tc)
{
	static unsigned char	 big[8000], sink[8192];
	struct chan		 c;
	size_t			 total, got = 0;
	ssize_t			 n;
	int			 i, sz = 4096;

	chan_open(&c, 1, 0, 0);
	ATF_REQUIRE(setsockopt(c.sv[0], SOL_SOCKET, SO_SNDBUF, &sz,
	    sizeof(sz)) == 0);
	ATF_CHECK_EQ(imsgbuf_queuebytes(&c.a), 0);
	for (i = 0; i < 64; i++)
		ATF_REQUIRE(imsg_compose(&c.a, 1, i, 0, -1, big,
		    sizeof(big)) == 0);
	total = 64 * (IMSG_HEADER_SIZE + sizeof(big));
	ATF_CHECK_EQ(imsgbuf_queuebytes(&c.a), total);
	/* The peer reads nothing: a write takes part of the queue. */
	ATF_REQUIRE(imsgbuf_write(&c.a) == 0);
	ATF_CHECK(imsgbuf_queuebytes(&c.a) > 0);
	ATF_CHECK(imsgbuf_queuebytes(&c.a) < total);
	/* It reads everything: the queue drains to nothing. */
	while (imsgbuf_queuebytes(&c.a) > 0) {
		ATF_REQUIRE(imsgbuf_write(&c.a) != -1);
		while ((n = read(c.sv[1], sink, sizeof(sink))) > 0)
			got += (size_t)n;
	}
	while ((n = read(c.sv[1], sink, sizeof(sink))) > 0)
		got += (size_t)n;
	ATF_CHECK_EQ(got, total);
	ATF_CHECK_EQ(imsgbuf_queuelen(&c.a), 0);
	chan_close(&c);
}

ATF_TC_WITHOUT_HEAD(wire_layout);
ATF_TC_BODY(wire_layout, tc)
{
	struct chan	 c;
	struct imsg_hdr	 h;
	struct msghdr	 msg;
	struct iovec	 iov;
	struct cmsghdr	*cm;
	union {
		struct cmsghdr	 hdr;
		unsigned char	 buf[CMSG_SPACE(sizeof(int))];
	} cbuf;
	unsigned char	 raw[64];
	int		 base = fd_count(), fd, got;

	chan_open(&c, 0, 1, 0);
	ATF_REQUIRE(imsg_compose(&c.a, 0x01020304, 0xa0b0c0d0, 4242, -1,
	    "hello", 5) == 0);
	ATF_REQUIRE(imsg_compose(&c.a, 7, 0, 0, -1, NULL, 0) == 0);
	ATF_CHECK_EQ(imsgbuf_queuelen(&c.a), 2);
	ATF_REQUIRE(imsgbuf_flush(&c.a) == 0);
	ATF_CHECK_EQ(imsgbuf_queuelen(&c.a), 0);
	ATF_REQUIRE_EQ(read(c.sv[1], raw, sizeof(raw)), 21 + 16);

	memcpy(&h, raw, sizeof(h));
	ATF_CHECK_EQ(h.type, 0x01020304);
	ATF_CHECK_EQ(h.len, 21);
	ATF_CHECK_EQ(h.peerid, 0xa0b0c0d0);
	ATF_CHECK_EQ(h.pid, 4242);
	ATF_CHECK(memcmp(raw + 16, "hello", 5) == 0);
	memcpy(&h, raw + 21, sizeof(h));
	ATF_CHECK_EQ(h.type, 7);
	ATF_CHECK_EQ(h.len, 16);
	ATF_CHECK_EQ(h.peerid, 0);
	ATF_CHECK_EQ(h.pid, (uint32_t)getpid());	/* pid 0: ours */

	/* With a descriptor: the mark in len, one SCM_RIGHTS, same sendmsg. */
	fd = open_tmp("wire.tmp");
	ATF_REQUIRE(imsg_compose(&c.a, 9, 1, 1, fd, "xy", 2) == 0);
	ATF_REQUIRE(imsgbuf_flush(&c.a) == 0);
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = raw;
	iov.iov_len = sizeof(raw);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf.buf;
	msg.msg_controllen = sizeof(cbuf.buf);
	ATF_REQUIRE_EQ(recvmsg(c.sv[1], &msg, MSG_CMSG_CLOEXEC), 18);
	memcpy(&h, raw, sizeof(h));
	ATF_CHECK_EQ(h.len, 18 | IMSG_FD_MARK);
	cm = CMSG_FIRSTHDR(&msg);
	ATF_REQUIRE(cm != NULL);
	ATF_CHECK_EQ(cm->cmsg_type, SCM_RIGHTS);
	ATF_REQUIRE_EQ(cm->cmsg_len, CMSG_LEN(sizeof(int)));
	memcpy(&got, CMSG_DATA(cm), sizeof(got));
	close(got);

	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

/* ---- round trips ---------------------------------------------------- */

ATF_TC_WITHOUT_HEAD(roundtrip_many);
ATF_TC_BODY(roundtrip_many, tc)
{
	static const size_t sizes[] = { 0, 1, 2, 15, 16, 17, 255, 256, 1000,
	    4096, 8191, 16000, IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE };
	struct chan	 c;
	struct imsg	 m;
	unsigned char	*buf;
	size_t		 i, n = nitems(sizes) * 20, sz;
	int		 base = fd_count();

	ATF_REQUIRE((buf = malloc(IMSG_MAXSIZE_DEFAULT)) != NULL);
	chan_open(&c, 1, 0, 0);
	/* Queue everything first: the queue holds more than the socket. */
	for (i = 0; i < n; i++) {
		sz = sizes[i % nitems(sizes)];
		fill(buf, sz, (unsigned int)i);
		ATF_REQUIRE(imsg_compose(&c.a, (uint32_t)(i * 7 + 1),
		    (uint32_t)i, (pid_t)(1000 + i), -1, buf, sz) == 0);
	}
	ATF_CHECK_EQ(imsgbuf_queuelen(&c.a), n);
	for (i = 0; i < n; i++) {
		sz = sizes[i % nitems(sizes)];
		ATF_REQUIRE_EQ(recv_one(&c, &m), 1);
		ATF_CHECK_EQ(imsg_get_type(&m), i * 7 + 1);
		ATF_CHECK_EQ(imsg_get_id(&m), i);
		ATF_CHECK_EQ(imsg_get_pid(&m), (pid_t)(1000 + i));
		ATF_REQUIRE_EQ(imsg_get_len(&m), sz);
		ATF_CHECK_EQ(m.hdr.len, sz + IMSG_HEADER_SIZE);
		ATF_CHECK_EQ(m.fd, -1);
		if (sz == 0)
			ATF_CHECK(m.data == NULL);
		else
			ATF_CHECK(pattern_ok(m.data, sz, (unsigned int)i));
		imsg_free(&m);
	}
	ATF_CHECK_EQ(imsgbuf_queuelen(&c.a), 0);
	ATF_CHECK_EQ(imsg_get(&c.b, &m), 0);
	chan_close(&c);
	free(buf);
	ATF_CHECK_EQ(fd_count(), base);
}

ATF_TC_WITHOUT_HEAD(composev_gathers);
ATF_TC_BODY(composev_gathers, tc)
{
	struct chan	 c;
	struct imsg	 m;
	struct iovec	 iov[4];
	char		 out[16];
	int		 base = fd_count();

	chan_open(&c, 0, 0, 0);
	iov[0].iov_base = (void *)"abc";
	iov[0].iov_len = 3;
	iov[1].iov_base = NULL;
	iov[1].iov_len = 0;
	iov[2].iov_base = (void *)"defg";
	iov[2].iov_len = 4;
	iov[3].iov_base = (void *)"h";
	iov[3].iov_len = 1;
	ATF_REQUIRE(imsg_composev(&c.a, 3, 4, 5, -1, iov, 4) == 0);
	ATF_REQUIRE(imsg_composev(&c.a, 6, 0, 0, -1, NULL, 0) == 0);
	/* Refused: negative count, missing vector, NULL base with length. */
	ATF_CHECK(imsg_composev(&c.a, 3, 4, 5, -1, iov, -1) == -1 &&
	    errno == EINVAL);
	ATF_CHECK(imsg_composev(&c.a, 3, 4, 5, -1, NULL, 2) == -1 &&
	    errno == EINVAL);
	iov[1].iov_len = 1;
	ATF_CHECK(imsg_composev(&c.a, 3, 4, 5, -1, iov, 4) == -1 &&
	    errno == EINVAL);
	ATF_CHECK(imsg_compose(&c.a, 3, 4, 5, -1, NULL, 1) == -1 &&
	    errno == EINVAL);
	ATF_CHECK_EQ(imsgbuf_queuelen(&c.a), 2);
	ATF_REQUIRE(imsgbuf_flush(&c.a) == 0);

	ATF_REQUIRE_EQ(read_get(&c.b, &m), 1);
	ATF_CHECK_EQ(imsg_get_type(&m), 3);
	ATF_REQUIRE_EQ(imsg_get_len(&m), 8);
	ATF_REQUIRE(imsg_get_data(&m, out, 8) == 0);
	ATF_CHECK(memcmp(out, "abcdefgh", 8) == 0);
	imsg_free(&m);
	ATF_REQUIRE_EQ(read_get(&c.b, &m), 1);
	ATF_CHECK_EQ(imsg_get_type(&m), 6);
	ATF_CHECK_EQ(imsg_get_len(&m), 0);
	imsg_free(&m);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

/* ---- fragments ------------------------------------------------------ */

ATF_TC_WITHOUT_HEAD(fragmented_bytes);
ATF_TC_BODY(fragmented_bytes, tc)
{
	static const size_t sizes[] = { 0, 5, 300, 16, 1 };
	struct chan	 x, y;
	struct imsg	 m;
	unsigned char	 buf[512], *stream;
	size_t		 i, total = 0, off, end, k;
	int		 base = fd_count();

	/* Let one channel compose, and take its bytes off the socket raw. */
	chan_open(&x, 0, 0, 0);
	for (i = 0; i < nitems(sizes); i++) {
		fill(buf, sizes[i], (unsigned int)i + 40);
		ATF_REQUIRE(imsg_compose(&x.a, (uint32_t)(100 + i),
		    (uint32_t)i, 77, -1, buf, sizes[i]) == 0);
		total += IMSG_HEADER_SIZE + sizes[i];
	}
	ATF_REQUIRE(imsgbuf_flush(&x.a) == 0);
	ATF_REQUIRE((stream = malloc(total)) != NULL);
	for (off = 0; off < total; off += (size_t)k) {
		ssize_t	 r = read(x.sv[1], stream + off, total - off);

		ATF_REQUIRE(r > 0);
		k = (size_t)r;
	}
	chan_close(&x);

	/* Feed them to another channel one byte at a time. */
	chan_open(&y, 0, 0, 0);
	off = 0;
	for (i = 0; i < nitems(sizes); i++) {
		end = off + IMSG_HEADER_SIZE + sizes[i];
		for (; off < end; off++) {
			ATF_REQUIRE_EQ(write(y.sv[0], stream + off, 1), 1);
			ATF_REQUIRE_EQ(imsgbuf_read(&y.b), 1);
			if (off + 1 < end) {
				ATF_REQUIRE_MSG(imsg_get(&y.b, &m) == 0,
				    "message %zu complete at byte %zu", i,
				    off);
				continue;
			}
			ATF_REQUIRE_EQ(imsg_get(&y.b, &m), 1);
			ATF_CHECK_EQ(imsg_get_type(&m), 100 + i);
			ATF_CHECK_EQ(imsg_get_id(&m), i);
			ATF_CHECK_EQ(imsg_get_pid(&m), 77);
			ATF_REQUIRE_EQ(imsg_get_len(&m), sizes[i]);
			ATF_CHECK(sizes[i] == 0 ||
			    pattern_ok(m.data, sizes[i], (unsigned int)i + 40));
			imsg_free(&m);
			ATF_CHECK_EQ(imsg_get(&y.b, &m), 0);
		}
	}
	chan_close(&y);
	free(stream);
	ATF_CHECK_EQ(fd_count(), base);
}

ATF_TC_WITHOUT_HEAD(short_header_pending);
ATF_TC_BODY(short_header_pending, tc)
{
	struct chan	 c;
	struct imsg	 m;
	unsigned char	 h[IMSG_HEADER_SIZE];
	int		 base = fd_count();

	chan_open(&c, 1, 0, 0);
	mkhdr(h, 5, IMSG_HEADER_SIZE, 6, 7);
	ATF_CHECK_EQ(imsg_get(&c.b, &m), 0);		/* nothing yet */
	ATF_CHECK_EQ(imsgbuf_read(&c.b), 1);		/* EAGAIN is not EOF */
	ATF_REQUIRE_EQ(write(c.sv[0], h, 10), 10);
	ATF_REQUIRE_EQ(imsgbuf_read(&c.b), 1);
	ATF_CHECK_EQ(imsg_get(&c.b, &m), 0);
	ATF_CHECK_EQ(imsg_get(&c.b, &m), 0);
	ATF_REQUIRE_EQ(write(c.sv[0], h + 10, 6), 6);
	ATF_REQUIRE_EQ(imsgbuf_read(&c.b), 1);
	ATF_REQUIRE_EQ(imsg_get(&c.b, &m), 1);
	ATF_CHECK_EQ(imsg_get_type(&m), 5);
	ATF_CHECK_EQ(imsg_get_len(&m), 0);
	imsg_free(&m);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

ATF_TC_WITHOUT_HEAD(eof);
ATF_TC_BODY(eof, tc)
{
	struct chan	 c;
	struct imsg	 m;
	unsigned char	 h[IMSG_HEADER_SIZE];
	int		 base = fd_count();

	chan_open(&c, 0, 0, 0);
	ATF_REQUIRE(imsg_compose(&c.a, 1, 2, 3, -1, "z", 1) == 0);
	ATF_REQUIRE(imsgbuf_flush(&c.a) == 0);
	/* Half a message, then the peer goes away. */
	mkhdr(h, 1, 40, 0, 0);
	ATF_REQUIRE_EQ(write(c.sv[0], h, sizeof(h)), (ssize_t)sizeof(h));
	close(c.sv[0]);
	c.sv[0] = -1;
	ATF_REQUIRE_EQ(read_get(&c.b, &m), 1);
	ATF_CHECK_EQ(imsg_get_type(&m), 1);
	imsg_free(&m);
	ATF_CHECK_EQ(read_get(&c.b, &m), -2);	/* imsgbuf_read said 0 */
	ATF_CHECK_EQ(imsgbuf_read(&c.b), 0);
	ATF_CHECK_EQ(imsg_get(&c.b, &m), 0);	/* the half stays half */
	/* Writing to the gone peer is an error, not a SIGPIPE. */
	ATF_REQUIRE(imsg_compose(&c.b, 1, 0, 0, -1, NULL, 0) == 0);
	ATF_CHECK(imsgbuf_write(&c.b) == -1 && errno == EPIPE);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

/* ---- lengths and caps ----------------------------------------------- */

static void
expect_erange(uint32_t len, uint32_t cap)
{
	struct chan	 c;
	struct imsg	 m;
	unsigned char	 h[IMSG_HEADER_SIZE];

	chan_open(&c, 1, 1, 1);
	if (cap != 0)
		ATF_REQUIRE(imsgbuf_set_maxsize(&c.b, cap) == 0);
	mkhdr(h, 1, len, 0, 0);
	ATF_REQUIRE_EQ(write(c.sv[0], h, sizeof(h)), (ssize_t)sizeof(h));
	errno = 0;
	ATF_CHECK_MSG(read_get(&c.b, &m) == -1 && errno == ERANGE,
	    "len %#x cap %u: %s", len, cap, strerror(errno));
	/* The refused length is reported without the fd mark. */
	ATF_CHECK_EQ(imsgbuf_badlen(&c.b), len & ~IMSG_FD_MARK);
	/* The channel stays failed; more bytes do not resync it. */
	ATF_CHECK(imsg_get(&c.b, &m) == -1 && errno == ERANGE);
	ATF_CHECK(imsgbuf_read(&c.b) == -1 && errno == ERANGE);
	chan_close(&c);
}

ATF_TC_WITHOUT_HEAD(len_below_header);
ATF_TC_BODY(len_below_header, tc)
{
	int	 base = fd_count();

	expect_erange(0, 0);
	expect_erange(1, 0);
	expect_erange(IMSG_HEADER_SIZE - 1, 0);
	expect_erange(IMSG_FD_MARK, 0);
	expect_erange((IMSG_HEADER_SIZE - 1) | IMSG_FD_MARK, 0);
	ATF_CHECK_EQ(fd_count(), base);
}

ATF_TC_WITHOUT_HEAD(len_above_cap);
ATF_TC_BODY(len_above_cap, tc)
{
	struct chan	 c;
	struct imsg	 m;
	unsigned char	*buf;
	int		 base = fd_count();

	/* Refused from the header alone, before any payload arrives. */
	expect_erange(IMSG_MAXSIZE_DEFAULT + 1, 0);
	expect_erange(0x7fffffff, 0);
	expect_erange(0xffffffff, 0);
	expect_erange(65, 64);

	/* Exactly the cap is fine. */
	ATF_REQUIRE((buf = calloc(1, IMSG_MAXSIZE_DEFAULT)) != NULL);
	mkhdr(buf, 2, IMSG_MAXSIZE_DEFAULT, 0, 0);
	chan_open(&c, 0, 0, 0);
	ATF_REQUIRE_EQ(write(c.sv[0], buf, IMSG_MAXSIZE_DEFAULT),
	    IMSG_MAXSIZE_DEFAULT);
	ATF_REQUIRE_EQ(read_get(&c.b, &m), 1);
	ATF_CHECK_EQ(imsg_get_len(&m), IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE);
	imsg_free(&m);
	chan_close(&c);
	free(buf);
	ATF_CHECK_EQ(fd_count(), base);
}

ATF_TC_WITHOUT_HEAD(oversize_compose);
ATF_TC_BODY(oversize_compose, tc)
{
	struct chan	 c;
	struct iovec	 iov[2];
	unsigned char	*buf;
	int		 base = fd_count(), fd;

	ATF_REQUIRE((buf = calloc(1, IMSG_MAXSIZE_DEFAULT + 1)) != NULL);
	chan_open(&c, 1, 1, 0);
	ATF_CHECK(imsg_compose(&c.a, 1, 0, 0, -1, buf,
	    IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE) == 0);
	ATF_CHECK(imsg_compose(&c.a, 1, 0, 0, -1, buf,
	    IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE + 1) == -1 &&
	    errno == ERANGE);
	/* The sum of a vector counts, and cannot wrap around. */
	iov[0].iov_base = buf;
	iov[0].iov_len = 10000;
	iov[1].iov_base = buf;
	iov[1].iov_len = 10000;
	ATF_CHECK(imsg_composev(&c.a, 1, 0, 0, -1, iov, 2) == -1 &&
	    errno == ERANGE);
	iov[1].iov_len = SIZE_MAX - 5;
	ATF_CHECK(imsg_composev(&c.a, 1, 0, 0, -1, iov, 2) == -1 &&
	    errno == ERANGE);
	/* A refused compose leaves the descriptor with the caller. */
	fd = open_tmp("oversize.tmp");
	ATF_CHECK(imsg_compose(&c.a, 1, 0, 0, fd, buf,
	    IMSG_MAXSIZE_DEFAULT) == -1 && errno == ERANGE);
	ATF_CHECK(!is_closed(fd));
	close(fd);
	ATF_CHECK_EQ(imsgbuf_queuelen(&c.a), 1);
	chan_close(&c);
	free(buf);
	ATF_CHECK_EQ(fd_count(), base);
}

ATF_TC_WITHOUT_HEAD(set_maxsize_bounds);
ATF_TC_BODY(set_maxsize_bounds, tc)
{
	struct chan	 c;
	struct imsg	 m;
	unsigned char	*buf;
	size_t		 big = 1024 * 1024;
	int		 base = fd_count();

	chan_open(&c, 1, 0, 0);
	ATF_CHECK(imsgbuf_set_maxsize(&c.a, 0) == -1 && errno == ERANGE);
	ATF_CHECK(imsgbuf_set_maxsize(&c.a, IMSG_HEADER_SIZE - 1) == -1 &&
	    errno == ERANGE);
	ATF_CHECK(imsgbuf_set_maxsize(&c.a, IMSG_FD_MARK) == -1 &&
	    errno == ERANGE);
	ATF_CHECK(imsgbuf_set_maxsize(&c.a, 0xffffffff) == -1 &&
	    errno == ERANGE);
	ATF_CHECK(imsgbuf_set_maxsize(&c.a, IMSG_FD_MARK - 1) == 0);

	/* A header-only cap allows exactly header-only messages. */
	ATF_REQUIRE(imsgbuf_set_maxsize(&c.a, IMSG_HEADER_SIZE) == 0);
	ATF_CHECK(imsg_compose(&c.a, 1, 0, 0, -1, NULL, 0) == 0);
	ATF_CHECK(imsg_compose(&c.a, 1, 0, 0, -1, "x", 1) == -1 &&
	    errno == ERANGE);
	ATF_REQUIRE(imsgbuf_set_maxsize(&c.a, 100) == 0);
	ATF_REQUIRE(imsgbuf_set_maxsize(&c.b, 100) == 0);
	ATF_REQUIRE((buf = calloc(1, big)) != NULL);
	ATF_CHECK(imsg_compose(&c.a, 2, 0, 0, -1, buf, 84) == 0);
	ATF_CHECK(imsg_compose(&c.a, 2, 0, 0, -1, buf, 85) == -1 &&
	    errno == ERANGE);
	ATF_REQUIRE_EQ(recv_one(&c, &m), 1);
	ATF_CHECK_EQ(imsg_get_type(&m), 1);
	imsg_free(&m);
	ATF_REQUIRE_EQ(recv_one(&c, &m), 1);
	ATF_CHECK_EQ(imsg_get_len(&m), 84);
	imsg_free(&m);

	/* Raised on both ends, a 1 MiB message crosses in one piece. */
	ATF_REQUIRE(imsgbuf_set_maxsize(&c.a, big + IMSG_HEADER_SIZE) == 0);
	ATF_REQUIRE(imsgbuf_set_maxsize(&c.b, big + IMSG_HEADER_SIZE) == 0);
	fill(buf, big, 9);
	ATF_REQUIRE(imsg_compose(&c.a, 3, 0, 0, -1, buf, big) == 0);
	ATF_REQUIRE_EQ(recv_one(&c, &m), 1);
	ATF_REQUIRE_EQ(imsg_get_len(&m), big);
	ATF_CHECK(pattern_ok(m.data, big, 9));
	imsg_free(&m);
	chan_close(&c);
	free(buf);
	ATF_CHECK_EQ(fd_count(), base);
}

ATF_TC_WITHOUT_HEAD(get_data_exact);
ATF_TC_BODY(get_data_exact, tc)
{
	struct chan	 c;
	struct imsg	 m;
	struct { uint32_t a, b; } s = { 11, 22 }, out;
	unsigned char	 big[16];
	int		 base = fd_count();

	chan_open(&c, 0, 0, 0);
	ATF_REQUIRE(imsg_compose(&c.a, 1, 0, 0, -1, &s, sizeof(s)) == 0);
	ATF_REQUIRE(imsg_compose(&c.a, 2, 0, 0, -1, NULL, 0) == 0);
	ATF_REQUIRE(imsgbuf_flush(&c.a) == 0);
	ATF_REQUIRE_EQ(read_get(&c.b, &m), 1);

	memset(big, 0xee, sizeof(big));
	ATF_CHECK(imsg_get_data(&m, big, sizeof(s) + 1) == -1 &&
	    errno == EBADMSG);
	ATF_CHECK(imsg_get_data(&m, big, sizeof(s) - 1) == -1 &&
	    errno == EBADMSG);
	ATF_CHECK(imsg_get_data(&m, big, 0) == -1 && errno == EBADMSG);
	ATF_CHECK_EQ(big[0], 0xee);		/* refused: nothing copied */
	ATF_CHECK(imsg_get_data(&m, NULL, sizeof(s)) == -1 &&
	    errno == EINVAL);
	memset(&out, 0, sizeof(out));
	ATF_REQUIRE(imsg_get_data(&m, &out, sizeof(out)) == 0);
	ATF_CHECK_EQ(out.a, 11);
	ATF_CHECK_EQ(out.b, 22);
	imsg_free(&m);

	ATF_REQUIRE_EQ(read_get(&c.b, &m), 1);
	ATF_CHECK(imsg_get_data(&m, NULL, 0) == 0);
	ATF_CHECK(imsg_get_data(&m, &out, 1) == -1 && errno == EBADMSG);
	imsg_free(&m);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

/* ---- descriptors ---------------------------------------------------- */

ATF_TC_WITHOUT_HEAD(fd_pass);
ATF_TC_BODY(fd_pass, tc)
{
	struct chan	 c;
	struct imsg	 m;
	int		 base = fd_count(), fd, ref, got;

	chan_open(&c, 0, 1, 1);
	ref = open_tmp("fdpass.tmp");
	ATF_REQUIRE((fd = dup(ref)) != -1);
	ATF_REQUIRE(imsg_compose(&c.a, 4, 0, 0, fd, "f", 1) == 0);
	ATF_CHECK(!is_closed(fd));		/* queued, not yet sent */
	ATF_REQUIRE(imsgbuf_flush(&c.a) == 0);
	/* Checked before the receiver can reuse the number. */
	ATF_CHECK_MSG(is_closed(fd), "sender still holds fd %d", fd);

	ATF_REQUIRE_EQ(read_get(&c.b, &m), 1);
	ATF_CHECK_EQ(imsg_get_type(&m), 4);
	ATF_CHECK_EQ(m.hdr.len, IMSG_HEADER_SIZE + 1);	/* mark stripped */
	ATF_REQUIRE((got = imsg_get_fd(&m)) != -1);
	ATF_CHECK_EQ(imsg_get_fd(&m), -1);		/* only once */
	same_file(got, ref);
	ATF_CHECK(fcntl(got, F_GETFD) & FD_CLOEXEC);
	imsg_free(&m);
	ATF_CHECK(!is_closed(got));		/* taken: ours, not imsg's */
	close(got);
	close(ref);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

ATF_TC_WITHOUT_HEAD(fd_free_closes_untaken);
ATF_TC_BODY(fd_free_closes_untaken, tc)
{
	struct chan	 c;
	struct imsg	 m;
	int		 base = fd_count(), fd, got;

	chan_open(&c, 0, 1, 1);
	fd = open_tmp("untaken.tmp");
	ATF_REQUIRE(imsg_compose(&c.a, 4, 0, 0, fd, NULL, 0) == 0);
	ATF_REQUIRE(imsgbuf_flush(&c.a) == 0);
	ATF_REQUIRE_EQ(read_get(&c.b, &m), 1);
	got = m.fd;
	ATF_REQUIRE(got >= 0 && !is_closed(got));
	imsg_free(&m);
	ATF_CHECK_MSG(is_closed(got), "imsg_free left fd %d open", got);
	ATF_CHECK_EQ(m.fd, -1);
	imsg_free(&m);				/* twice is harmless */
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

/*
 * Descriptors and plain messages mixed, all queued before the receiver
 * reads, so one recvmsg brings plain bytes and a descriptor together:
 * each fd must land on its own message and nowhere else.
 */
ATF_TC_WITHOUT_HEAD(fd_mixed_messages);
ATF_TC_BODY(fd_mixed_messages, tc)
{
	struct chan	 c;
	struct imsg	 m;
	struct stat	 st[40];
	int		 p[2], i, base = fd_count(), got;

	chan_open(&c, 0, 1, 1);
	for (i = 0; i < 40; i++) {
		if (i % 3 == 1) {
			ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
			ATF_REQUIRE(fstat(p[0], &st[i]) == 0);
			close(p[1]);
			ATF_REQUIRE(imsg_compose(&c.a, (uint32_t)i, 0, 0,
			    p[0], &i, sizeof(i)) == 0);
		} else
			ATF_REQUIRE(imsg_compose(&c.a, (uint32_t)i, 0, 0, -1,
			    &i, sizeof(i)) == 0);
	}
	ATF_REQUIRE(imsgbuf_flush(&c.a) == 0);
	for (i = 0; i < 40; i++) {
		struct stat	 sb;

		ATF_REQUIRE_EQ(read_get(&c.b, &m), 1);
		ATF_REQUIRE_EQ(imsg_get_type(&m), (uint32_t)i);
		got = imsg_get_fd(&m);
		if (i % 3 == 1) {
			ATF_REQUIRE_MSG(got != -1, "message %d lost its fd", i);
			ATF_REQUIRE(fstat(got, &sb) == 0);
			ATF_CHECK_EQ(sb.st_ino, st[i].st_ino);
			ATF_CHECK_EQ(sb.st_dev, st[i].st_dev);
			close(got);
		} else
			ATF_CHECK_MSG(got == -1, "message %d got an fd", i);
		imsg_free(&m);
	}
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

/* The descriptor comes with only the first bytes of its header. */
ATF_TC_WITHOUT_HEAD(fd_with_partial_header);
ATF_TC_BODY(fd_with_partial_header, tc)
{
	struct chan	 c;
	struct imsg	 m;
	unsigned char	 msg[40];
	size_t		 off;
	int		 base = fd_count(), fd, got;

	chan_open(&c, 1, 1, 1);
	fd = open_tmp("partial.tmp");
	mkhdr(msg, 8, sizeof(msg) | IMSG_FD_MARK, 0, 0);
	fill(msg + IMSG_HEADER_SIZE, sizeof(msg) - IMSG_HEADER_SIZE, 3);
	send_raw(c.sv[0], msg, 3, &fd, 1);
	for (off = 3; off < sizeof(msg); off++) {
		ATF_REQUIRE_EQ(imsgbuf_read(&c.b), 1);
		ATF_REQUIRE_EQ(imsg_get(&c.b, &m), 0);
		ATF_REQUIRE_EQ(write(c.sv[0], msg + off, 1), 1);
	}
	ATF_REQUIRE_EQ(imsgbuf_read(&c.b), 1);
	ATF_REQUIRE_EQ(imsg_get(&c.b, &m), 1);
	ATF_REQUIRE((got = imsg_get_fd(&m)) != -1);
	same_file(got, fd);
	close(got);
	imsg_free(&m);
	close(fd);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

ATF_TC_WITHOUT_HEAD(compose_fd_without_fdpass);
ATF_TC_BODY(compose_fd_without_fdpass, tc)
{
	struct chan	 c;
	int		 base = fd_count(), fd;

	chan_open(&c, 0, 0, 0);
	fd = open_tmp("nofdpass.tmp");
	ATF_CHECK(imsg_compose(&c.a, 1, 0, 0, fd, NULL, 0) == -1 &&
	    errno == EINVAL);
	ATF_CHECK(!is_closed(fd));		/* still the caller's */
	ATF_CHECK_EQ(imsgbuf_queuelen(&c.a), 0);
	imsgbuf_allow_fdpass(&c.a);
	ATF_CHECK(imsg_compose(&c.a, 1, 0, 0, -2, NULL, 0) == -1 &&
	    errno == EINVAL);
	close(fd);
	ATF_CHECK(imsg_compose(&c.a, 1, 0, 0, fd, NULL, 0) == -1 &&
	    errno == EBADF);
	ATF_CHECK_EQ(imsgbuf_queuelen(&c.a), 0);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

ATF_TC_WITHOUT_HEAD(recv_fd_without_fdpass);
ATF_TC_BODY(recv_fd_without_fdpass, tc)
{
	struct chan	 c;
	struct imsg	 m;
	int		 base = fd_count(), fd, before;

	chan_open(&c, 0, 1, 0);
	fd = open_tmp("nofdrecv.tmp");
	ATF_REQUIRE(imsg_compose(&c.a, 1, 0, 0, fd, "q", 1) == 0);
	ATF_REQUIRE(imsgbuf_flush(&c.a) == 0);
	before = fd_count();
	ATF_CHECK(imsgbuf_read(&c.b) == -1 && errno == EBADMSG);
	ATF_CHECK_EQ(fd_count(), before);	/* the copy was closed */
	ATF_CHECK(imsg_get(&c.b, &m) == -1 && errno == EBADMSG);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

/* A marked header on a channel without fd passing is refused too. */
ATF_TC_WITHOUT_HEAD(marked_header_without_fd);
ATF_TC_BODY(marked_header_without_fd, tc)
{
	struct chan	 c;
	struct imsg	 m;
	unsigned char	 h[IMSG_HEADER_SIZE];
	int		 base = fd_count(), pass;

	for (pass = 0; pass < 2; pass++) {
		chan_open(&c, 0, pass, pass);
		mkhdr(h, 1, IMSG_HEADER_SIZE | IMSG_FD_MARK, 0, 0);
		ATF_REQUIRE_EQ(write(c.sv[0], h, sizeof(h)),
		    (ssize_t)sizeof(h));
		ATF_CHECK_MSG(read_get(&c.b, &m) == -1 && errno == EBADMSG,
		    "fdpass %d: marked header without fd accepted", pass);
		chan_close(&c);
	}
	ATF_CHECK_EQ(fd_count(), base);
}

/* Two marked headers arrive with one descriptor: one fd per message. */
ATF_TC_WITHOUT_HEAD(one_fd_two_marked_headers);
ATF_TC_BODY(one_fd_two_marked_headers, tc)
{
	struct chan	 c;
	struct imsg	 m;
	unsigned char	 h[2 * IMSG_HEADER_SIZE];
	int		 base = fd_count(), fd;

	chan_open(&c, 0, 1, 1);
	fd = open_tmp("twomarks.tmp");
	mkhdr(h, 1, IMSG_HEADER_SIZE | IMSG_FD_MARK, 0, 0);
	mkhdr(h + IMSG_HEADER_SIZE, 2, IMSG_HEADER_SIZE | IMSG_FD_MARK, 0, 0);
	send_raw(c.sv[0], h, sizeof(h), &fd, 1);
	close(fd);
	ATF_REQUIRE_EQ(read_get(&c.b, &m), 1);
	ATF_CHECK(m.fd != -1);
	imsg_free(&m);
	ATF_CHECK(read_get(&c.b, &m) == -1 && errno == EBADMSG);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

/* SCM_RIGHTS with a header that does not ask for a descriptor. */
ATF_TC_WITHOUT_HEAD(fd_without_message);
ATF_TC_BODY(fd_without_message, tc)
{
	struct chan	 c;
	struct imsg	 m;
	unsigned char	 h[IMSG_HEADER_SIZE];
	int		 base = fd_count(), fd;

	chan_open(&c, 0, 1, 1);
	fd = open_tmp("stray.tmp");
	mkhdr(h, 1, IMSG_HEADER_SIZE, 0, 0);
	send_raw(c.sv[0], h, sizeof(h), &fd, 1);
	close(fd);
	ATF_CHECK(read_get(&c.b, &m) == -1 && errno == EBADMSG);
	ATF_CHECK(imsg_get(&c.b, &m) == -1 && errno == EBADMSG);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

/* A descriptor sent with bytes from the middle of a payload. */
ATF_TC_WITHOUT_HEAD(fd_inside_payload);
ATF_TC_BODY(fd_inside_payload, tc)
{
	struct chan	 c;
	struct imsg	 m;
	unsigned char	 msg[32];
	int		 base = fd_count(), fd, r;

	chan_open(&c, 1, 1, 1);
	fd = open_tmp("inside.tmp");
	memset(msg, 0, sizeof(msg));
	mkhdr(msg, 1, sizeof(msg), 0, 0);
	ATF_REQUIRE_EQ(write(c.sv[0], msg, 20), 20);
	ATF_REQUIRE_EQ(imsgbuf_read(&c.b), 1);
	ATF_REQUIRE_EQ(imsg_get(&c.b, &m), 0);
	send_raw(c.sv[0], msg + 20, 4, &fd, 1);
	close(fd);
	ATF_REQUIRE_EQ(write(c.sv[0], msg + 24, 8), 8);
	r = read_get(&c.b, &m);
	ATF_CHECK_MSG(r == -1 && errno == EBADMSG, "got %d", r);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

/*
 * The descriptor comes after the header had begun to arrive: a sender
 * passes an fd with the first byte of its message, so this one belongs to
 * no message and the marked header has none.
 */
ATF_TC_WITHOUT_HEAD(fd_after_header_start);
ATF_TC_BODY(fd_after_header_start, tc)
{
	struct chan	 c;
	struct imsg	 m;
	unsigned char	 msg[32];
	int		 base = fd_count(), fd, r;

	chan_open(&c, 1, 1, 1);
	fd = open_tmp("late.tmp");
	memset(msg, 0, sizeof(msg));
	mkhdr(msg, 1, sizeof(msg) | IMSG_FD_MARK, 0, 0);
	ATF_REQUIRE_EQ(write(c.sv[0], msg, 10), 10);
	ATF_REQUIRE_EQ(imsgbuf_read(&c.b), 1);
	ATF_REQUIRE_EQ(imsg_get(&c.b, &m), 0);
	send_raw(c.sv[0], msg + 10, sizeof(msg) - 10, &fd, 1);
	close(fd);
	r = read_get(&c.b, &m);
	ATF_CHECK_MSG(r == -1 && errno == EBADMSG, "got %d", r);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

static void
several_fds(int nfds)
{
	struct chan	 c;
	struct imsg	 m;
	unsigned char	 h[IMSG_HEADER_SIZE];
	int		 fds[4], i, base = fd_count(), before;

	chan_open(&c, 0, 1, 1);
	for (i = 0; i < nfds; i++)
		fds[i] = open_tmp("several.tmp");
	mkhdr(h, 1, IMSG_HEADER_SIZE | IMSG_FD_MARK, 0, 0);
	send_raw(c.sv[0], h, sizeof(h), fds, nfds);
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	before = fd_count();
	ATF_CHECK_MSG(imsgbuf_read(&c.b) == -1 && errno == EBADMSG,
	    "%d fds in one cmsg accepted", nfds);
	ATF_CHECK_EQ_MSG(fd_count(), before, "%d fds: received copies leak",
	    nfds);
	ATF_CHECK(imsg_get(&c.b, &m) == -1 && errno == EBADMSG);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

ATF_TC_WITHOUT_HEAD(two_fds_one_cmsg);
ATF_TC_BODY(two_fds_one_cmsg, tc)
{
	several_fds(2);
}

/* More than the control space holds: the kernel truncates (MSG_CTRUNC). */
ATF_TC_WITHOUT_HEAD(four_fds_truncated);
ATF_TC_BODY(four_fds_truncated, tc)
{
	several_fds(4);
}

ATF_TC_WITHOUT_HEAD(clear_releases);
ATF_TC_BODY(clear_releases, tc)
{
	struct chan	 c;
	unsigned char	 h[IMSG_HEADER_SIZE];
	int		 fds[3], i, base = fd_count(), fd, before;

	chan_open(&c, 0, 1, 1);
	for (i = 0; i < 3; i++) {
		fds[i] = open_tmp("clear.tmp");
		ATF_REQUIRE(imsg_compose(&c.a, 1, 0, 0, fds[i], "abc", 3) ==
		    0);
	}
	ATF_CHECK_EQ(imsgbuf_queuelen(&c.a), 3);
	imsgbuf_clear(&c.a);
	for (i = 0; i < 3; i++)
		ATF_CHECK_MSG(is_closed(fds[i]), "queued fd %d left open",
		    fds[i]);
	ATF_CHECK_EQ(imsgbuf_queuelen(&c.a), 0);
	ATF_CHECK(imsg_compose(&c.a, 1, 0, 0, -1, NULL, 0) == -1 &&
	    errno == EINVAL);

	/* A received fd still waiting for the rest of its header. */
	fd = open_tmp("clear2.tmp");
	mkhdr(h, 1, 64 | IMSG_FD_MARK, 0, 0);
	send_raw(c.sv[0], h, 5, &fd, 1);
	close(fd);
	ATF_REQUIRE_EQ(imsgbuf_read(&c.b), 1);
	before = fd_count();
	imsgbuf_clear(&c.b);
	ATF_CHECK_EQ(fd_count(), before - 1);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

/* ---- queueing, bounds, volume --------------------------------------- */

ATF_TC_WITHOUT_HEAD(write_queue_partial);
ATF_TC_BODY(write_queue_partial, tc)
{
	struct chan	 c;
	struct imsg	 m;
	unsigned char	 buf[4000];
	uint32_t	 q0, q1, i, n = 600;
	int		 base = fd_count();

	chan_open(&c, 1, 0, 0);
	for (i = 0; i < n; i++) {
		fill(buf, sizeof(buf), i);
		ATF_REQUIRE(imsg_compose(&c.a, i, i, 0, -1, buf,
		    sizeof(buf)) == 0);
	}
	q0 = imsgbuf_queuelen(&c.a);
	ATF_REQUIRE_EQ(q0, n);
	/*
	 * 2.4 MB cannot fit in a socket: write until the socket is full;
	 * imsgbuf_write keeps returning 0 (EAGAIN is not an error) and the
	 * rest stays queued.
	 */
	ATF_REQUIRE_EQ(imsgbuf_write(&c.a), 0);
	ATF_CHECK(imsgbuf_queuelen(&c.a) < q0);
	for (i = 0; i < n; i++) {
		q1 = imsgbuf_queuelen(&c.a);
		ATF_REQUIRE_EQ(imsgbuf_write(&c.a), 0);
		if (imsgbuf_queuelen(&c.a) == q1)
			break;
	}
	ATF_CHECK(imsgbuf_queuelen(&c.a) > 0);
	for (i = 0; i < n; i++) {
		ATF_REQUIRE_EQ(recv_one(&c, &m), 1);
		ATF_REQUIRE_EQ(imsg_get_id(&m), i);
		ATF_CHECK(pattern_ok(m.data, sizeof(buf), i));
		imsg_free(&m);
	}
	ATF_CHECK_EQ(imsgbuf_queuelen(&c.a), 0);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

/*
 * A peer that keeps sending while we keep calling imsgbuf_read (and never
 * imsg_get) must not make us buffer more than one maximum-size message
 * plus one read chunk; what we did not read stays in the kernel.
 */
ATF_TC_WITHOUT_HEAD(read_bounded);
ATF_TC_BODY(read_bounded, tc)
{
	struct chan	 c;
	struct imsg	 m;
	unsigned char	*buf;
	size_t		 psz = IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE;
	uint32_t	 i, n = 64, got = 0;
	int		 base = fd_count(), inq0, inq1, sndbuf = 1 << 20;
	const int	 bound = IMSG_MAXSIZE_DEFAULT + IMSG_READ_CHUNK;

	chan_open(&c, 1, 0, 0);
	(void)setsockopt(c.sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf,
	    sizeof(sndbuf));
	ATF_REQUIRE((buf = calloc(1, psz)) != NULL);
	for (i = 0; i < n; i++)
		ATF_REQUIRE(imsg_compose(&c.a, i, 0, 0, -1, buf, psz) == 0);
	for (;;) {
		uint32_t q = imsgbuf_queuelen(&c.a);

		ATF_REQUIRE_EQ(imsgbuf_write(&c.a), 0);
		if (imsgbuf_queuelen(&c.a) == q)
			break;
	}
	ATF_REQUIRE(ioctl(c.sv[1], FIONREAD, &inq0) == 0);
	ATF_REQUIRE_MSG(inq0 > 2 * bound,
	    "the kernel queued only %d bytes, cannot exceed the bound", inq0);
	for (i = 0; i < 100; i++)
		ATF_REQUIRE_EQ(imsgbuf_read(&c.b), 1);
	ATF_REQUIRE(ioctl(c.sv[1], FIONREAD, &inq1) == 0);
	ATF_CHECK_MSG(inq0 - inq1 <= bound,
	    "buffered %d bytes, bound is %d", inq0 - inq1, bound);
	ATF_CHECK(inq0 - inq1 > 0);

	/* Draining in the usual way still delivers everything, in order. */
	while (got < n) {
		ATF_REQUIRE_EQ(recv_one(&c, &m), 1);
		ATF_REQUIRE_EQ(imsg_get_type(&m), got);
		imsg_free(&m);
		got++;
	}
	chan_close(&c);
	free(buf);
	ATF_CHECK_EQ(fd_count(), base);
}

/* Child side of the flood: compose, flush in batches, exit with status. */
static __dead void
flood_child(int s)
{
	struct imsgbuf	 ib;
	unsigned char	 pl[16];
	uint32_t	 i;

	if (imsgbuf_init(&ib, s) == -1)
		_exit(2);
	memset(pl, 0xa5, sizeof(pl));
	for (i = 0; i < FLOOD_COUNT; i++) {
		memcpy(pl, &i, sizeof(i));
		if (imsg_compose(&ib, 1 + (i % 5), i, 0, -1, pl,
		    sizeof(i) + i % 7) == -1)
			_exit(3);
		if (imsgbuf_queuelen(&ib) >= 1000 && imsgbuf_flush(&ib) == -1)
			_exit(4);
	}
	if (imsgbuf_flush(&ib) == -1)
		_exit(5);
	imsgbuf_clear(&ib);
	_exit(0);
}

ATF_TC_WITHOUT_HEAD(flood_in_order);
ATF_TC_BODY(flood_in_order, tc)
{
	struct chan	 c;
	struct imsg	 m;
	uint32_t	 i, v;
	pid_t		 pid;
	int		 base = fd_count(), st, r;

	chan_open(&c, 0, 0, 0);
	if ((pid = fork()) == 0) {
		close(c.sv[1]);
		flood_child(c.sv[0]);
	}
	ATF_REQUIRE(pid != -1);
	close(c.sv[0]);
	c.sv[0] = -1;
	for (i = 0; i < FLOOD_COUNT; i++) {
		r = read_get(&c.b, &m);
		ATF_REQUIRE_MSG(r == 1, "message %u: %d (%s)", i, r,
		    strerror(errno));
		ATF_REQUIRE_EQ(imsg_get_id(&m), i);
		ATF_REQUIRE_EQ(imsg_get_type(&m), 1 + (i % 5));
		ATF_REQUIRE_EQ(imsg_get_pid(&m), pid);
		ATF_REQUIRE_EQ(imsg_get_len(&m), sizeof(i) + i % 7);
		memcpy(&v, m.data, sizeof(v));
		ATF_REQUIRE_EQ(v, i);
		imsg_free(&m);
	}
	ATF_CHECK_EQ(read_get(&c.b, &m), -2);	/* then EOF, nothing more */
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "writer status %#x", st);
	chan_close(&c);
	ATF_CHECK_EQ(fd_count(), base);
}

ATF_TC_WITHOUT_HEAD(cleared_buf_refuses);
ATF_TC_BODY(cleared_buf_refuses, tc)
{
	struct imsgbuf	 ib;
	struct imsg	 m;
	int		 sv[2], base = fd_count();

	ATF_CHECK(imsgbuf_init(&ib, -1) == -1 && errno == EINVAL);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	ATF_REQUIRE(imsgbuf_init(&ib, sv[0]) == 0);
	imsgbuf_clear(&ib);
	imsgbuf_clear(&ib);			/* twice is harmless */
	ATF_CHECK(imsgbuf_read(&ib) == -1 && errno == EINVAL);
	ATF_CHECK(imsgbuf_write(&ib) == -1 && errno == EINVAL);
	ATF_CHECK(imsgbuf_flush(&ib) == -1 && errno == EINVAL);
	ATF_CHECK(imsg_get(&ib, &m) == -1 && errno == EINVAL);
	ATF_CHECK_EQ(m.fd, -1);
	ATF_CHECK(m.data == NULL);
	ATF_CHECK_EQ(imsgbuf_queuelen(&ib), 0);
	close(sv[0]);
	close(sv[1]);
	ATF_CHECK_EQ(fd_count(), base);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, wire_layout);
	ATF_TP_ADD_TC(tp, queue_bytes);
	ATF_TP_ADD_TC(tp, roundtrip_many);
	ATF_TP_ADD_TC(tp, composev_gathers);
	ATF_TP_ADD_TC(tp, fragmented_bytes);
	ATF_TP_ADD_TC(tp, short_header_pending);
	ATF_TP_ADD_TC(tp, eof);
	ATF_TP_ADD_TC(tp, len_below_header);
	ATF_TP_ADD_TC(tp, len_above_cap);
	ATF_TP_ADD_TC(tp, oversize_compose);
	ATF_TP_ADD_TC(tp, set_maxsize_bounds);
	ATF_TP_ADD_TC(tp, get_data_exact);
	ATF_TP_ADD_TC(tp, fd_pass);
	ATF_TP_ADD_TC(tp, fd_free_closes_untaken);
	ATF_TP_ADD_TC(tp, fd_mixed_messages);
	ATF_TP_ADD_TC(tp, fd_with_partial_header);
	ATF_TP_ADD_TC(tp, compose_fd_without_fdpass);
	ATF_TP_ADD_TC(tp, recv_fd_without_fdpass);
	ATF_TP_ADD_TC(tp, marked_header_without_fd);
	ATF_TP_ADD_TC(tp, one_fd_two_marked_headers);
	ATF_TP_ADD_TC(tp, fd_without_message);
	ATF_TP_ADD_TC(tp, fd_inside_payload);
	ATF_TP_ADD_TC(tp, fd_after_header_start);
	ATF_TP_ADD_TC(tp, two_fds_one_cmsg);
	ATF_TP_ADD_TC(tp, four_fds_truncated);
	ATF_TP_ADD_TC(tp, clear_releases);
	ATF_TP_ADD_TC(tp, write_queue_partial);
	ATF_TP_ADD_TC(tp, read_bounded);
	ATF_TP_ADD_TC(tp, flood_in_order);
	ATF_TP_ADD_TC(tp, cleared_buf_refuses);
	return atf_no_error();
}
