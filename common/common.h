/*
 * common.h: the one header of common/ -- logging, allocation, imsg framing,
 * privilege files, canonical JSON and digests, and the internal protocol.
 *
 * Each section belongs to one source file; keep declarations in the section
 * of the file that defines them.
 */
#ifndef SBX_COMMON_H
#define SBX_COMMON_H

#include <sys/types.h>
#include <sys/uio.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifndef __dead
#define __dead		__attribute__((__noreturn__))
#endif
#define SBX_PRINTF(a, b) __attribute__((__format__(printf, a, b)))

#ifndef nitems
#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* ---- log.c ---------------------------------------------------------- */
void	 log_init(int debug, int facility);
void	 log_procinit(const char *role);
void	 log_setverbose(int);
int	 log_getverbose(void);
void	 log_warn(const char *, ...) SBX_PRINTF(1, 2);
void	 log_warnx(const char *, ...) SBX_PRINTF(1, 2);
void	 log_info(const char *, ...) SBX_PRINTF(1, 2);
void	 log_debug(const char *, ...) SBX_PRINTF(1, 2);
void	 vlog(int, const char *, va_list) SBX_PRINTF(2, 0);
__dead void fatal(const char *, ...) SBX_PRINTF(1, 2);
__dead void fatalx(const char *, ...) SBX_PRINTF(1, 2);

/* ---- xmalloc.c ------------------------------------------------------ */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
void	*xrecallocarray(void *, size_t, size_t, size_t);
char	*xstrdup(const char *);
int	 xasprintf(char **, const char *, ...) SBX_PRINTF(2, 3);

/* ---- imsg.c: framing of the current OpenBSD layout (DESIGN 3) -------- */
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
/* Cap on a whole message (header included); ERANGE when out of range. */
int	 imsgbuf_set_maxsize(struct imsgbuf *, uint32_t);
void	 imsgbuf_clear(struct imsgbuf *);	/* frees queues, closes fds */

/* I/O.  read: 1 data (or EAGAIN), 0 EOF, -1 error.  write: 0 (also on
 * EAGAIN), -1 error.  flush: blocks until the queue is empty, -1 error. */
int	 imsgbuf_read(struct imsgbuf *);
int	 imsgbuf_write(struct imsgbuf *);
int	 imsgbuf_flush(struct imsgbuf *);
uint32_t imsgbuf_queuelen(struct imsgbuf *);
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

/* ---- priv_*.c: privilege files (DESIGN 2, sbx.priv(5)) --------------- */
/* (owned by the privilege-file work) */

/* ---- json.c, canon.c, digest.c: canonical JSON and digests ------------ */
/* (owned by the canonical-JSON work) */

/* ---- sandbox spec: launcher <-> shim (DESIGN 1) ----------------------- */
/* (owned by the sandbox work) */

#endif /* SBX_COMMON_H */
