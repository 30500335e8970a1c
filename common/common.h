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

/* Messages.  imsg_get: 1 got one, 0 need more bytes, -1 protocol error
 * (errno: ERANGE bad length, EBADMSG fd without a message / stray fd). */
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
/*
 * A parsed privilege file.  The same structure is produced by priv_parse()
 * (heap, released with priv_free()) and by sbx-privgen (pure const data
 * compiled into libsbxpriv.a as priv_table_NAME), so the table a role
 * applies is the file an operator audits.
 */
#include <stdio.h>			/* FILE, for priv_print() */

#define PRIV_ARGS		6	/* seccomp sees arg0..arg5 */
#define PRIV_RLIM_INFINITY	UINT64_MAX

enum priv_root {
	PRIV_ROOT_NONE = 1,		/* keep the file system view */
	PRIV_ROOT_EMPTY			/* private, empty, read-only root */
};
enum priv_llmode {
	PRIV_LL_OFF = 0,		/* no landlock statements */
	PRIV_LL_REQUIRED,
	PRIV_LL_BEST_EFFORT
};
enum priv_llfs {			/* "landlock fs": access everywhere */
	PRIV_LLFS_OFF = 0,		/* file system not restricted */
	PRIV_LLFS_NONE,
	PRIV_LLFS_RO,
	PRIV_LLFS_RX
};
enum priv_llaccess {			/* "landlock ro|rx|rw PATH" */
	PRIV_LLA_RO = 1,
	PRIV_LLA_RX,
	PRIV_LLA_RW
};
enum priv_llport_kind {			/* "landlock bind|connect PORT" */
	PRIV_LLP_BIND = 1,
	PRIV_LLP_CONNECT
};
#define PRIV_LLSCOPE_ABSTRACT_UNIX	0x1	/* "landlock scope ..." */
#define PRIV_LLSCOPE_SIGNAL		0x2

enum priv_act {
	PRIV_ACT_ALLOW = 1,
	PRIV_ACT_KILL,			/* SECCOMP_RET_KILL_PROCESS */
	PRIV_ACT_TRAP,
	PRIV_ACT_LOG,
	PRIV_ACT_ERRNO
};
enum priv_op {
	PRIV_OP_EQ = 1,			/* argN == V */
	PRIV_OP_NE,			/* argN != V (deny rules only) */
	PRIV_OP_MASKED_EQ,		/* argN & M == V */
	PRIV_OP_IN			/* argN in {A, B, ...} */
};

struct priv_value {
	uint64_t	 v;
	const char	*text;		/* as written: constant name or number */
};
struct priv_cond {
	unsigned int		 arg;		/* 0..PRIV_ARGS-1 */
	enum priv_op		 op;
	struct priv_value	 mask;		/* PRIV_OP_MASKED_EQ only */
	const struct priv_value	*vals;		/* 1, or the PRIV_OP_IN set */
	size_t			 nvals;
};
struct priv_syscall {
	const char	*name;
	int		 nr;		/* x86_64 number (libseccomp) */
};
struct priv_rule {
	unsigned int		   line;	/* in the source file */
	enum priv_act		   act;
	int			   err;		/* PRIV_ACT_ERRNO */
	const struct priv_syscall *sys;
	size_t			   nsys;
	const struct priv_cond	  *conds;	/* all must hold */
	size_t			   nconds;
	const char		  *waiver;	/* lint-ok "reason", or NULL */
};
struct priv_rlimit {
	int		 resource;	/* RLIMIT_* */
	uint64_t	 value;		/* soft = hard; PRIV_RLIM_INFINITY */
};
struct priv_llpath {
	enum priv_llaccess	 access;
	const char		*path;
};
struct priv_llport {
	enum priv_llport_kind	 kind;
	uint16_t		 port;
};
struct priv_table {
	const char		  *file;	/* source, for messages */
	const char		  *role;
	const char		  *user;	/* NULL: "same" */
	enum priv_root		   root;
	int			   no_new_privs;
	const struct priv_rlimit  *rlimits;
	size_t			   nrlimits;
	enum priv_llmode	   ll_mode;
	enum priv_llfs		   ll_fs;
	const struct priv_llpath  *ll_paths;
	size_t			   nll_paths;
	int			   ll_net;	/* "landlock net none" */
	const struct priv_llport  *ll_ports;
	size_t			   nll_ports;
	unsigned int		   ll_scopes;	/* PRIV_LLSCOPE_* */
	enum priv_act		   def_act;	/* seccomp default action */
	int			   def_err;
	unsigned int		   def_line;
	const struct priv_rule	  *rules;
	size_t			   nrules;
};

/* priv_parse.c: NULL on error, with "file:line: reason" in err. */
struct priv_table *priv_parse(const char *file, const char *buf, size_t len,
	    char *err, size_t errlen);
struct priv_table *priv_parse_file(const char *path, char *err,
	    size_t errlen);
void	 priv_free(struct priv_table *);

/* priv_const.c: the names a privilege file may use. */
int	 priv_const_lookup(const char *name, uint64_t *);
int	 priv_errno_lookup(const char *name, int *);
const char *priv_errno_name(int);
int	 priv_rlimit_lookup(const char *name, int *);
const char *priv_rlimit_name(int);

/* priv_print.c: the table in canonical sbx.priv(5) syntax. */
int	 priv_print(FILE *, const struct priv_table *);

/* priv_lint.c: dangerous syscalls allowed without a condition. */
struct priv_finding {
	unsigned int	 line;
	int		 waived;	/* the rule carries lint-ok "reason" */
	char		 msg[256];
};
size_t	 priv_lint(const struct priv_table *, struct priv_finding *,
	    size_t max);

/* priv_apply.c: root, user, rlimits, no_new_privs, Landlock, seccomp.
 * 0, or -1 with a message naming the step and what is missing. */
int	 priv_apply(const struct priv_table *, char *err, size_t errlen);

/* priv_landlock.c */
struct priv_llplan {
	int		 abi;		/* kernel ABI, capped at the newest known */
	uint64_t	 handled_fs;
	uint64_t	 handled_net;
	uint64_t	 scoped;
	char		 dropped[256];	/* best-effort: what is not enforced */
};
int	 priv_landlock_abi(void);	/* -1 with errno when unavailable */
int	 priv_landlock_plan(const struct priv_table *, int abi,
	    struct priv_llplan *, char *err, size_t errlen);
int	 priv_landlock_apply(const struct priv_table *, char *err,
	    size_t errlen);

/* priv_seccomp.c: the filter alone (the shim loads the payload's as the
 * last step before execve), a dry compile, and libseccomp's PFC dump. */
int	 priv_apply_seccomp(const struct priv_table *, char *err,
	    size_t errlen);
int	 priv_seccomp_check(const struct priv_table *, char *err,
	    size_t errlen);
int	 priv_export_pfc(const struct priv_table *, int fd, char *err,
	    size_t errlen);
/* For priv_apply(): compile before anything is applied, load last. */
struct priv_bpf;
struct priv_bpf *priv_seccomp_compile(const struct priv_table *, char *err,
	    size_t errlen);
int	 priv_seccomp_load(struct priv_bpf *, char *err, size_t errlen);
void	 priv_bpf_free(struct priv_bpf *);

/* The compiled tables (libsbxpriv.a), one per DIR/NAME.priv file. */
#define PRIV_TABLES(X)							\
	X(command) X(launcher) X(monitor) X(provider) X(provider_runner) \
	X(proxy) X(shim)
#define PRIV_TABLE_DECLARE(n)	extern const struct priv_table priv_table_##n;
PRIV_TABLES(PRIV_TABLE_DECLARE)

/* ---- json.c, canon.c, digest.c: canonical JSON and digests ------------ */
/* (owned by the canonical-JSON work) */

/* ---- sandbox spec: launcher <-> shim (DESIGN 1) ----------------------- */
/* (owned by the sandbox work) */

#endif /* SBX_COMMON_H */
