/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * imsg.h: imsg.c -- message framing on a socket, in the current OpenBSD
 * layout (design.md §3), descriptors passed alongside.  Also built into libsbx
 * (PIC), so nothing here logs or exits.  The messages themselves are in
 * proto.h.
 */
#ifndef SBX_IMSG_H
#define SBX_IMSG_H

#include <sys/types.h>
#include <sys/uio.h>

#include <stddef.h>
#include <stdint.h>

#define IMSG_HEADER_SIZE	16		/* sizeof(struct imsg_hdr) */
#define IMSG_MAXSIZE_DEFAULT	16384		/* total, header included */
#define IMSG_FD_MARK		0x80000000U	/* in hdr.len: an fd rides along */
/* Bytes asked of the kernel per read.  A channel buffers at most one
 * maximum-size message plus one chunk: imsgbuf_read does not read while a
 * complete message waits for imsg_get. */
#define IMSG_READ_CHUNK		65536

struct imsg_hdr {
	uint32_t	 type;
	uint32_t	 len;		/* header + payload, | IMSG_FD_MARK */
	uint32_t	 peerid;
	uint32_t	 pid;
};

struct imsg {
	struct imsg_hdr	 hdr;		/* len without IMSG_FD_MARK */
	int		 fd;		/* -1, or owned until imsg_get_fd() */
	void		*data;		/* payload, hdr.len - 16 bytes */
};

struct imsgbuf_impl;			/* queues; private to imsg.c */
struct imsgbuf {
	int			 fd;
	struct imsgbuf_impl	*impl;
};

/* Setup.  imsgbuf_init returns 0, or -1 with errno (ENOMEM). */
int	 imsgbuf_init(struct imsgbuf *, int fd);
void	 imsgbuf_allow_fdpass(struct imsgbuf *);
void	 imsgbuf_set_rdrop(struct imsgbuf *, void (*)(int, void *), void *);
/* Cap on a whole message (header included); ERANGE when out of range. */
int	 imsgbuf_set_maxsize(struct imsgbuf *, uint32_t);
void	 imsgbuf_clear(struct imsgbuf *);	/* frees queues, closes fds */

/* I/O.  read: 1 data (or EAGAIN), 0 EOF, -1 error.  write: 0 (also on
 * EAGAIN), -1 error.  flush: blocks until the queue is empty, -1 error. */
int	 imsgbuf_read(struct imsgbuf *);
int	 imsgbuf_write(struct imsgbuf *);
int	 imsgbuf_flush(struct imsgbuf *);
uint32_t imsgbuf_queuelen(struct imsgbuf *);
size_t	 imsgbuf_queuebytes(struct imsgbuf *);	/* unsent bytes queued */
uint32_t imsgbuf_badlen(struct imsgbuf *);	/* length refused by ERANGE */

/* Messages.  imsg_get: 1 got one, 0 need more bytes, -1 protocol error
 * (errno: ERANGE bad length, EBADMSG fd without a message / stray fd).
 * Protocol errors are sticky: the read side stays failed.  compose takes
 * ownership of fd (-1 for none) only when it succeeds; the fd is closed
 * once sent, or by imsgbuf_clear.  pid 0 means our own pid. */
int	 imsg_get(struct imsgbuf *, struct imsg *);
int	 imsg_compose(struct imsgbuf *, uint32_t type, uint32_t peerid,
	    pid_t pid, int fd, const void *data, size_t datalen);
int	 imsg_composev(struct imsgbuf *, uint32_t type, uint32_t peerid,
	    pid_t pid, int fd, const struct iovec *iov, int iovcnt);
uint32_t imsg_get_type(const struct imsg *);
uint32_t imsg_get_id(const struct imsg *);
pid_t	 imsg_get_pid(const struct imsg *);
size_t	 imsg_get_len(const struct imsg *);	/* payload length */
int	 imsg_get_fd(struct imsg *);		/* once; then -1 */
/* Copy out exactly len bytes: -1/EBADMSG when the payload differs. */
int	 imsg_get_data(const struct imsg *, void *, size_t);
void	 imsg_free(struct imsg *);		/* closes an untaken fd */

#endif /* SBX_IMSG_H */
