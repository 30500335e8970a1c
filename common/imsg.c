/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * imsg.c: message framing for every sbx channel (design.md §3), our own
 * implementation of the current OpenBSD imsg wire layout.
 *
 * A message is a 16-byte host-order header {type, len, peerid, pid} followed
 * by len - 16 bytes of payload; the top bit of len (IMSG_FD_MARK) says that
 * one descriptor rides along.  The sender passes that descriptor with
 * SCM_RIGHTS in the same sendmsg as the first byte of its message.
 *
 * This file is also built into libsbx (-DSBX_LIBRARY), the library agents
 * link into their own processes, so it never logs, never exits and never
 * uses the x* allocators: every failure is -1 with errno, and the caller
 * decides how fatal it is.  It keeps no global state; everything lives in
 * the imsgbuf.
 *
 * The peer is not trusted.  Its threats, and the answers below:
 *  - framing lies (a length below the header or above the cap): ERANGE,
 *    and the read side of the channel stays failed, because after a desync
 *    every later "header" would be attacker-chosen bytes;
 *  - descriptor games (more than one fd, an fd no header asks for, a
 *    header that claims an fd that never came, an fd on a channel that
 *    does not pass them): the fds are closed at once and EBADMSG, so a
 *    peer can neither leak descriptors into us nor make one message carry
 *    another's descriptor;
 *  - memory and descriptor exhaustion: we read only while the buffered
 *    bytes hold no complete message, so at most one maximum-size message
 *    plus one read chunk is buffered, and at most IMSG_RFD_SLOTS received
 *    descriptors wait for their message.
 */
#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define IMSG_IOV_MAX	128		/* messages gathered per sendmsg */

/*
 * Received descriptors waiting for their message.  A read brings at most
 * one (the kernel ends a stream read after the first skb that carries
 * rights).  While the buffer holds only an incomplete message, the only
 * descriptor that can still be legitimate is the one whose read began at
 * or before that message's header; a new read adds one more.  Two slots
 * therefore always suffice; a third would mean a stray we failed to catch,
 * and is refused rather than trusted.
 */
#define IMSG_RFD_SLOTS	2

struct imsg_wbuf {
	TAILQ_ENTRY(imsg_wbuf)	 entry;
	unsigned char		*buf;
	size_t			 len;		/* header + payload */
	size_t			 off;		/* bytes already sent */
	int			 fd;		/* -1, or sent with byte 0 */
};

/*
 * A descriptor received by one read, tied to the stream offsets of the
 * bytes that read brought: the message it belongs to must have its header
 * start inside [start, end).
 */
struct imsg_rfd {
	int		 fd;			/* -1: slot free */
	uint64_t	 start;
	uint64_t	 end;
};

struct imsgbuf_impl {
	TAILQ_HEAD(, imsg_wbuf)	 wq;
	uint32_t		 wcount;	/* queued messages */
	size_t			 wbytes;	/* their bytes not yet sent */
	uint32_t		 maxsize;	/* whole message, header included */
	int			 fdpass;
	pid_t			 pid;		/* header pid when caller says 0 */

	unsigned char		*rbuf;
	size_t			 rcap;
	size_t			 roff;		/* next header at rbuf + roff */
	size_t			 rlen;		/* bytes held from roff on */
	uint64_t		 rabs;		/* stream offset of rbuf + roff */
	struct imsg_rfd		 rfd[IMSG_RFD_SLOTS];
	int			 rerr;		/* sticky read-side error */
	uint32_t		 badlen;	/* the length ERANGE refused */
	void			(*rdrop)(int, void *);	/* or close */
	void			*rdrop_arg;
};

/* What check_head learnt about the message at the head of the buffer. */
struct imsg_head {
	struct imsg_hdr	 hdr;		/* len with IMSG_FD_MARK stripped */
	int		 marked;
	int		 slot;		/* rfd slot it claims, or -1 */
};

static struct imsgbuf_impl *
impl_of(struct imsgbuf *ibuf)
{
	if (ibuf == NULL || ibuf->impl == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return ibuf->impl;
}

static void
close_keep_errno(int fd)
{
	int	 saved = errno;

	if (fd >= 0)
		(void)close(fd);
	errno = saved;
}

/*
 * A received descriptor we drop ourselves: the owner's hook decides how
 * (a client's may be on a file system whose close(2) stalls; see
 * imsgbuf_set_rdrop), else close(2).
 */
static void
rfd_drop(struct imsgbuf_impl *im, int fd)
{
	int	 saved = errno;

	if (fd >= 0 && im->rdrop != NULL)
		im->rdrop(fd, im->rdrop_arg);
	else if (fd >= 0)
		(void)close(fd);
	errno = saved;
}

static void
rfd_release_all(struct imsgbuf_impl *im)
{
	size_t	 i;

	for (i = 0; i < nitems(im->rfd); i++) {
		rfd_drop(im, im->rfd[i].fd);
		im->rfd[i].fd = -1;
	}
}

/*
 * A protocol error poisons the read side for good: nothing after a framing
 * or descriptor violation can be trusted, and descriptors held for
 * messages we will never deliver are closed now rather than at clear.
 */
static int
read_fail(struct imsgbuf_impl *im, int err)
{
	rfd_release_all(im);
	im->rerr = err;
	errno = err;
	return -1;
}

/*
 * Validate whatever is known about the message at the head of the read
 * buffer.  Returns 1 with *h filled when the header is complete and
 * acceptable (the payload may still be incomplete), 0 when fewer than
 * IMSG_HEADER_SIZE bytes are buffered, -1 on a protocol error.
 */
static int
check_head(struct imsgbuf_impl *im, struct imsg_head *h)
{
	struct imsg_rfd	*r;
	uint64_t	 next;
	uint32_t	 total;
	size_t		 i;
	int		 known;

	if (im->rerr != 0) {
		errno = im->rerr;
		return -1;
	}
	memset(h, 0, sizeof(*h));
	h->slot = -1;
	known = im->rlen >= IMSG_HEADER_SIZE;
	if (known) {
		memcpy(&h->hdr, im->rbuf + im->roff, sizeof(h->hdr));
		h->marked = (h->hdr.len & IMSG_FD_MARK) != 0;
		total = h->hdr.len & ~IMSG_FD_MARK;
		h->hdr.len = total;
		if (total < IMSG_HEADER_SIZE || total > im->maxsize) {
			im->badlen = total;
			return read_fail(im, ERANGE);
		}
		next = im->rabs + total;
	} else {
		/* The next header starts beyond every byte we hold. */
		next = im->rabs + im->rlen + 1;
	}

	for (i = 0; i < nitems(im->rfd); i++) {
		r = &im->rfd[i];
		if (r->fd == -1)
			continue;
		if (r->start <= im->rabs && im->rabs < r->end) {
			/* Its read began at or before our header. */
			if (!known)
				continue;
			if (h->marked) {
				h->slot = (int)i;
				continue;
			}
		}
		/*
		 * Not ours: a later header must start inside its read, and
		 * the next header is the first candidate.  If that lies at
		 * or past the read's end, no message will ever claim the
		 * descriptor.
		 */
		if (next >= r->end)
			return read_fail(im, EBADMSG);
	}
	if (h->marked && h->slot == -1)
		return read_fail(im, EBADMSG);	/* marked, no fd came */
	return known ? 1 : 0;
}

int
imsgbuf_init(struct imsgbuf *ibuf, int fd)
{
	struct imsgbuf_impl	*im;
	size_t			 i;

	if (ibuf == NULL || fd < 0) {
		errno = EINVAL;
		return -1;
	}
	if ((im = calloc(1, sizeof(*im))) == NULL)
		return -1;
	TAILQ_INIT(&im->wq);
	im->maxsize = IMSG_MAXSIZE_DEFAULT;
	im->pid = getpid();
	for (i = 0; i < nitems(im->rfd); i++)
		im->rfd[i].fd = -1;
	ibuf->fd = fd;
	ibuf->impl = im;
	return 0;
}

void
imsgbuf_allow_fdpass(struct imsgbuf *ibuf)
{
	struct imsgbuf_impl	*im;

	if ((im = impl_of(ibuf)) != NULL)
		im->fdpass = 1;
}

/*
 * Received descriptors the buffer drops itself (a protocol violation, a
 * clear with messages not taken) go to fn instead of close(2).
 */
void
imsgbuf_set_rdrop(struct imsgbuf *ibuf, void (*fn)(int, void *), void *arg)
{
	struct imsgbuf_impl	*im;

	if ((im = impl_of(ibuf)) != NULL) {
		im->rdrop = fn;
		im->rdrop_arg = arg;
	}
}

int
imsgbuf_set_maxsize(struct imsgbuf *ibuf, uint32_t maxsize)
{
	struct imsgbuf_impl	*im;

	if ((im = impl_of(ibuf)) == NULL)
		return -1;
	/* The top bit of len is the fd mark, so it cannot be a length. */
	if (maxsize < IMSG_HEADER_SIZE || (maxsize & IMSG_FD_MARK) != 0) {
		errno = ERANGE;
		return -1;
	}
	im->maxsize = maxsize;
	return 0;
}

void
imsgbuf_clear(struct imsgbuf *ibuf)
{
	struct imsgbuf_impl	*im;
	struct imsg_wbuf	*wb;

	if (ibuf == NULL || (im = ibuf->impl) == NULL)
		return;
	while ((wb = TAILQ_FIRST(&im->wq)) != NULL) {
		TAILQ_REMOVE(&im->wq, wb, entry);
		close_keep_errno(wb->fd);
		freezero(wb->buf, wb->len);
		free(wb);
	}
	rfd_release_all(im);
	freezero(im->rbuf, im->rcap);
	freezero(im, sizeof(*im));
	ibuf->impl = NULL;
}

/* Make room for one read chunk after the bytes we hold. */
static int
rbuf_reserve(struct imsgbuf_impl *im)
{
	unsigned char	*p;
	size_t		 need;

	if (im->roff > 0) {
		memmove(im->rbuf, im->rbuf + im->roff, im->rlen);
		/* Delivered payloads were copied out; do not keep them. */
		explicit_bzero(im->rbuf + im->rlen, im->roff);
		im->roff = 0;
	}
	need = im->rlen + IMSG_READ_CHUNK;
	if (im->rcap >= need)
		return 0;
	if ((p = recallocarray(im->rbuf, im->rcap, need, 1)) == NULL)
		return -1;
	im->rbuf = p;
	im->rcap = need;
	return 0;
}

/*
 * Take the descriptors out of a received control buffer.  Anything but
 * exactly one SCM_RIGHTS descriptor on a channel that passes them is a
 * violation; every descriptor received is closed before we say so, so a
 * refused message cannot leave one behind.
 */
static int
take_rights(struct imsgbuf_impl *im, struct msghdr *msg, int *fdp)
{
	struct cmsghdr	*cm;
	size_t		 i, n;
	int		 fd, got = -1, bad = 0;

	*fdp = -1;
	if (msg->msg_flags & MSG_CTRUNC)
		bad = 1;	/* the kernel dropped rights that did not fit */
	for (cm = CMSG_FIRSTHDR(msg); cm != NULL; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS ||
		    cm->cmsg_len < CMSG_LEN(0)) {
			bad = 1;
			continue;
		}
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int),
			    sizeof(fd));
			if (got == -1 && !bad)
				got = fd;
			else {
				rfd_drop(im, fd);
				bad = 1;
			}
		}
	}
	if (got != -1 && !im->fdpass)
		bad = 1;
	if (bad) {
		rfd_drop(im, got);
		return -1;
	}
	*fdp = got;
	return 0;
}

int
imsgbuf_read(struct imsgbuf *ibuf)
{
	struct imsgbuf_impl	*im;
	struct imsg_head	 h;
	struct msghdr		 msg;
	struct iovec		 iov;
	union {
		struct cmsghdr	 hdr;
		unsigned char	 buf[CMSG_SPACE(sizeof(int))];
	} cmsgbuf;
	ssize_t			 n;
	size_t			 i;
	int			 fd, r;

	if ((im = impl_of(ibuf)) == NULL)
		return -1;
	if ((r = check_head(im, &h)) == -1)
		return -1;
	/*
	 * Bound the buffer: while a complete message waits, the caller must
	 * take it with imsg_get before we read again.
	 */
	if (r == 1 && im->rlen >= h.hdr.len)
		return 1;
	if (rbuf_reserve(im) == -1)
		return -1;

	memset(&msg, 0, sizeof(msg));
	memset(&cmsgbuf, 0, sizeof(cmsgbuf));
	iov.iov_base = im->rbuf + im->rlen;
	iov.iov_len = IMSG_READ_CHUNK;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	/*
	 * Always recvmsg, even on channels that do not pass descriptors:
	 * read(2) would let the kernel discard rights silently, and a peer
	 * that sends them where none are expected is misbehaving.
	 */
	msg.msg_control = cmsgbuf.buf;
	msg.msg_controllen = sizeof(cmsgbuf.buf);
	/* MSG_CMSG_CLOEXEC: a received fd must not leak into an exec. */
	if ((n = recvmsg(ibuf->fd, &msg, MSG_CMSG_CLOEXEC)) == -1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 1;
		return -1;
	}
	if (take_rights(im, &msg, &fd) == -1)
		return read_fail(im, EBADMSG);
	if (n == 0) {
		rfd_drop(im, fd);	/* rights cannot come without data */
		return 0;
	}
	if (fd != -1) {
		for (i = 0; i < nitems(im->rfd); i++)
			if (im->rfd[i].fd == -1)
				break;
		if (i == nitems(im->rfd)) {
			rfd_drop(im, fd);
			return read_fail(im, EBADMSG);
		}
		im->rfd[i].fd = fd;
		im->rfd[i].start = im->rabs + im->rlen;
		im->rfd[i].end = im->rfd[i].start + (uint64_t)n;
	}
	im->rlen += (size_t)n;
	return 1;
}

int
imsg_get(struct imsgbuf *ibuf, struct imsg *imsg)
{
	struct imsgbuf_impl	*im;
	struct imsg_head	 h;
	size_t			 datalen;
	void			*data = NULL;
	int			 r;

	if (imsg != NULL) {
		memset(imsg, 0, sizeof(*imsg));
		imsg->fd = -1;
	}
	if ((im = impl_of(ibuf)) == NULL)
		return -1;
	if (imsg == NULL) {
		errno = EINVAL;
		return -1;
	}
	if ((r = check_head(im, &h)) != 1)
		return r;
	if (im->rlen < h.hdr.len)
		return 0;

	datalen = h.hdr.len - IMSG_HEADER_SIZE;
	if (datalen > 0) {
		if ((data = malloc(datalen)) == NULL)
			return -1;	/* not sticky: the message stays */
		memcpy(data, im->rbuf + im->roff + IMSG_HEADER_SIZE, datalen);
	}
	imsg->hdr = h.hdr;
	imsg->data = data;
	if (h.slot != -1) {
		imsg->fd = im->rfd[h.slot].fd;
		im->rfd[h.slot].fd = -1;
	}
	im->roff += h.hdr.len;
	im->rlen -= h.hdr.len;
	im->rabs += h.hdr.len;
	return 1;
}

int
imsg_composev(struct imsgbuf *ibuf, uint32_t type, uint32_t peerid, pid_t pid,
    int fd, const struct iovec *iov, int iovcnt)
{
	struct imsgbuf_impl	*im;
	struct imsg_wbuf	*wb;
	struct imsg_hdr		 hdr;
	size_t			 total = IMSG_HEADER_SIZE, off;
	int			 i;

	if ((im = impl_of(ibuf)) == NULL)
		return -1;
	if (iovcnt < 0 || (iovcnt > 0 && iov == NULL) || fd < -1) {
		errno = EINVAL;
		return -1;
	}
	/* A channel that does not pass descriptors never sends one. */
	if (fd != -1 && !im->fdpass) {
		errno = EINVAL;
		return -1;
	}
	/* Catch a bad descriptor here, not as a failed sendmsg later. */
	if (fd != -1 && fcntl(fd, F_GETFD) == -1)
		return -1;
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len > 0 && iov[i].iov_base == NULL) {
			errno = EINVAL;
			return -1;
		}
		if (iov[i].iov_len > im->maxsize - total) {
			errno = ERANGE;
			return -1;
		}
		total += iov[i].iov_len;
	}
	if (im->wcount == UINT32_MAX) {
		errno = ENOBUFS;
		return -1;
	}

	if ((wb = calloc(1, sizeof(*wb))) == NULL)
		return -1;
	if ((wb->buf = malloc(total)) == NULL) {
		free(wb);
		return -1;
	}
	hdr.type = type;
	hdr.len = (uint32_t)total | (fd != -1 ? IMSG_FD_MARK : 0);
	hdr.peerid = peerid;
	hdr.pid = (uint32_t)(pid == 0 ? im->pid : pid);
	memcpy(wb->buf, &hdr, sizeof(hdr));
	off = IMSG_HEADER_SIZE;
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len == 0)
			continue;
		memcpy(wb->buf + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	wb->len = total;
	wb->fd = fd;
	TAILQ_INSERT_TAIL(&im->wq, wb, entry);
	im->wcount++;
	im->wbytes += total;
	return 0;
}

int
imsg_compose(struct imsgbuf *ibuf, uint32_t type, uint32_t peerid, pid_t pid,
    int fd, const void *data, size_t datalen)
{
	struct iovec	 iov;

	if (datalen > 0 && data == NULL) {
		errno = EINVAL;
		return -1;
	}
	iov.iov_base = (void *)(uintptr_t)data;
	iov.iov_len = datalen;
	return imsg_composev(ibuf, type, peerid, pid, fd, &iov,
	    datalen > 0 ? 1 : 0);
}

/* Drop n sent bytes from the head of the write queue. */
static void
wq_consume(struct imsgbuf_impl *im, size_t n)
{
	struct imsg_wbuf	*wb;
	size_t			 left;

	while (n > 0 && (wb = TAILQ_FIRST(&im->wq)) != NULL) {
		left = wb->len - wb->off;
		if (n < left) {
			wb->off += n;
			im->wbytes -= n;
			return;
		}
		n -= left;
		TAILQ_REMOVE(&im->wq, wb, entry);
		im->wcount--;
		im->wbytes -= left;
		close_keep_errno(wb->fd);
		freezero(wb->buf, wb->len);
		free(wb);
	}
}

/*
 * One sendmsg: from the head of the queue up to, not including, the next
 * message that carries a descriptor.  1 sent, 0 nothing to send or the
 * socket would block, -1 error.
 */
static int
write_one(struct imsgbuf *ibuf, struct imsgbuf_impl *im)
{
	struct imsg_wbuf	*wb, *fdbuf = NULL;
	struct iovec		 iov[IMSG_IOV_MAX];
	struct msghdr		 msg;
	struct cmsghdr		*cm;
	union {
		struct cmsghdr	 hdr;
		unsigned char	 buf[CMSG_SPACE(sizeof(int))];
	} cmsgbuf;
	ssize_t			 n;
	int			 i = 0;

	/*
	 * A descriptor goes with the first byte of its own message: gather
	 * from the head, and stop before any later message that carries
	 * one, so the receiver can tie each fd to exactly one header.
	 */
	TAILQ_FOREACH(wb, &im->wq, entry) {
		if (i == IMSG_IOV_MAX || (i > 0 && wb->fd != -1))
			break;
		iov[i].iov_base = wb->buf + wb->off;
		iov[i].iov_len = wb->len - wb->off;
		if (wb->fd != -1)
			fdbuf = wb;
		i++;
	}
	if (i == 0)
		return 0;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = iov;
	msg.msg_iovlen = (size_t)i;
	if (fdbuf != NULL) {
		memset(&cmsgbuf, 0, sizeof(cmsgbuf));
		msg.msg_control = cmsgbuf.buf;
		msg.msg_controllen = sizeof(cmsgbuf.buf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		memcpy(CMSG_DATA(cm), &fdbuf->fd, sizeof(int));
	}
	/* MSG_NOSIGNAL: a peer that hangs up must not kill us by SIGPIPE. */
	if ((n = sendmsg(ibuf->fd, &msg, MSG_NOSIGNAL)) == -1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == EINTR || errno == ENOBUFS)
			return 0;
		return -1;
	}
	/* Bytes went, so the rights went with them; drop our copy. */
	if (fdbuf != NULL) {
		close_keep_errno(fdbuf->fd);
		fdbuf->fd = -1;
	}
	wq_consume(im, (size_t)n);
	return 1;
}

/*
 * As much of the queue as the socket takes now: a message with a
 * descriptor needs a sendmsg of its own, and stopping after the first
 * would cost the caller an event-loop round per descriptor.
 */
int
imsgbuf_write(struct imsgbuf *ibuf)
{
	struct imsgbuf_impl	*im;
	int			 r;

	if ((im = impl_of(ibuf)) == NULL)
		return -1;
	while ((r = write_one(ibuf, im)) == 1)
		;
	return r;
}

int
imsgbuf_flush(struct imsgbuf *ibuf)
{
	struct imsgbuf_impl	*im;
	struct pollfd		 pfd;

	if ((im = impl_of(ibuf)) == NULL)
		return -1;
	while (im->wcount > 0) {
		if (imsgbuf_write(ibuf) == -1)
			return -1;
		if (im->wcount == 0)
			break;
		pfd.fd = ibuf->fd;
		pfd.events = POLLOUT;
		pfd.revents = 0;
		if (poll(&pfd, 1, -1) == -1 && errno != EINTR)
			return -1;
	}
	return 0;
}

uint32_t
imsgbuf_queuelen(struct imsgbuf *ibuf)
{
	if (ibuf == NULL || ibuf->impl == NULL)
		return 0;
	return ibuf->impl->wcount;
}

/* Bytes queued and not yet sent: what a peer that does not read costs. */
size_t
imsgbuf_queuebytes(struct imsgbuf *ibuf)
{
	if (ibuf == NULL || ibuf->impl == NULL)
		return 0;
	return ibuf->impl->wbytes;
}

uint32_t
imsg_get_type(const struct imsg *imsg)
{
	return imsg->hdr.type;
}

uint32_t
imsg_get_id(const struct imsg *imsg)
{
	return imsg->hdr.peerid;
}

pid_t
imsg_get_pid(const struct imsg *imsg)
{
	return (pid_t)imsg->hdr.pid;
}

size_t
imsg_get_len(const struct imsg *imsg)
{
	if (imsg->hdr.len < IMSG_HEADER_SIZE)
		return 0;
	return imsg->hdr.len - IMSG_HEADER_SIZE;
}

int
imsg_get_fd(struct imsg *imsg)
{
	int	 fd = imsg->fd;

	imsg->fd = -1;
	return fd;
}

/*
 * Fixed-size payloads are checked for their exact size: a short one would
 * leave fields of the caller's struct unset, a long one means the peer
 * speaks another version of the message.
 */
int
imsg_get_data(const struct imsg *imsg, void *buf, size_t len)
{
	if (len != imsg_get_len(imsg)) {
		errno = EBADMSG;
		return -1;
	}
	if (len == 0)
		return 0;
	if (buf == NULL || imsg->data == NULL) {
		errno = EINVAL;
		return -1;
	}
	memcpy(buf, imsg->data, len);
	return 0;
}

void
imsg_free(struct imsg *imsg)
{
	if (imsg == NULL)
		return;
	close_keep_errno(imsg->fd);
	freezero(imsg->data, imsg_get_len(imsg));
	memset(imsg, 0, sizeof(*imsg));
	imsg->fd = -1;
}

/* After ERANGE on the read side: the frame length that was refused, so a
 * server can tell its peer exactly what was wrong (0 if none). */
uint32_t
imsgbuf_badlen(struct imsgbuf *ibuf)
{
	struct imsgbuf_impl	*im;

	if ((im = impl_of(ibuf)) == NULL)
		return 0;
	return im->badlen;
}
