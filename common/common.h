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
void	 log_relay(const char *);
__dead void fatal(const char *, ...) SBX_PRINTF(1, 2);
__dead void fatalx(const char *, ...) SBX_PRINTF(1, 2);

/* ---- xmalloc.c ------------------------------------------------------ */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
void	*xrecallocarray(void *, size_t, size_t, size_t);
char	*xstrdup(const char *);
int	 xasprintf(char **, const char *, ...) SBX_PRINTF(2, 3);

/* ---- clock.c -------------------------------------------------------- */
uint64_t monotonic_ms(void);

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
const char *priv_act_word(enum priv_act);
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
 * 0, or -1 with a message naming the step and what is missing.
 * priv_apply_compiled: the same with the table's filter compiled before
 * (priv_seccomp_compile of the same table), which it keeps. */
int	 priv_apply(const struct priv_table *, char *err, size_t errlen);
struct priv_bpf;
int	 priv_apply_compiled(const struct priv_table *,
	    const struct priv_bpf *, char *err, size_t errlen);

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
/* Compile once, load many times: install keeps the program. */
int	 priv_seccomp_install(const struct priv_bpf *, char *err,
	    size_t errlen);
/*
 * Sanitizer builds (make sanitize: SBX_SANITIZE) add to every filter whose
 * default refuses the system calls the ASan/UBSan runtime makes while it
 * runs and reports (sbx.priv(5), SANITIZER BUILDS); release builds add
 * nothing.  1 when this build's filter for the table allows NAME only for
 * that reason, 2 when it answers it with an errno for that reason, else 0.
 */
int	 priv_sanitizer_extra(const struct priv_table *, const char *name);
/* Under default allow|log, numbers below this that libseccomp cannot
 * name are answered ENOSYS (priv_seccomp.c, sbx.priv(5)). */
#define PRIV_NR_BOUND	1024

/*
 * Each sandboxed program (the monitor, every role) puts this at file scope
 * in its main.c.  In sanitizer builds it compiles in the runtime options
 * those programs need: they start with an empty environment, and their
 * privileges rule out what LeakSanitizer's exit check does (a tracer
 * thread that ptrace()s the process and lists /proc/self/task: no fork,
 * no ptrace, no /proc by design), so leaks there are found by the unit
 * tests, which run the same code in-process, and by valgrind
 * (scripts/valgrind).  Reports go unsymbolised (no llvm-symbolizer child
 * in a sandbox): module+offset, for llvm-symbolizer afterwards.
 */
#ifdef SBX_SANITIZE
#define SBX_SANITIZER_ROLE_OPTIONS					\
const char	*__asan_default_options(void);				\
const char	*__ubsan_default_options(void);				\
const char *								\
__asan_default_options(void)						\
{									\
	return "detect_leaks=0:symbolize=0:abort_on_error=0:"		\
	    "quarantine_size_mb=1";					\
}									\
const char *								\
__ubsan_default_options(void)						\
{									\
	return "print_stacktrace=1:halt_on_error=1:symbolize=0";	\
}
#else
#define SBX_SANITIZER_ROLE_OPTIONS
#endif

/* The compiled tables (libsbxpriv.a), one per DIR/NAME.priv file. */
#define PRIV_TABLES(X)							\
	X(command) X(launcher) X(monitor) X(provider) X(provider_runner) \
	X(proxy) X(shim) X(spawner) X(mapper)
#define PRIV_TABLE_DECLARE(n)	extern const struct priv_table priv_table_##n;
PRIV_TABLES(PRIV_TABLE_DECLARE)

/* ---- json.c, numfmt.c, numscan.c, canon.c, digest.c: canonical JSON -- */
/*
 * json.c parses untrusted bytes (RFC 8259, JSON.parse semantics) into a
 * tree; canon.c writes the canonical text of provider-spec 2 (sorted keys,
 * no whitespace, ECMAScript JSON.stringify scalars); digest.c hashes it.
 * Nothing here calls fatal() on bad input: every refusal is returned.
 */
enum json_type {
	JSON_NULL,
	JSON_FALSE,
	JSON_TRUE,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT
};

/* UTF-16 code units, as JavaScript sees a string (lone surrogates kept). */
struct json_string {
	uint16_t		*u;	/* NULL when len == 0 */
	size_t			 len;	/* code units */
};

struct json_member;

struct json_value {
	enum json_type		 type;
	union {
		double		 number;	/* always finite */
		struct json_string string;
		struct {
			struct json_value	*v;
			size_t			 n;
		}		 array;
		struct {
			/* order of first occurrence; keys unique */
			struct json_member	*m;
			size_t			 n;
		}		 object;
	}			 u;
};

struct json_member {
	struct json_string	 key;
	struct json_value	 value;
};

/*
 * Limits on untrusted input; each one bounds a resource a hostile document
 * could otherwise exhaust (memory by size and node count, the stack by
 * depth).  A zero field means the default.
 */
#define JSON_MAX_BYTES_DEFAULT	(32U * 1024 * 1024)
#define JSON_MAX_DEPTH_DEFAULT	512
#define JSON_MAX_NODES_DEFAULT	(4U * 1024 * 1024)
#define JSON_MAX_DEPTH_LIMIT	4096	/* recursion bound, whatever asked */

struct json_limits {
	size_t			 max_bytes;	/* input length */
	size_t			 max_depth;	/* nesting; top level is 1 */
	size_t			 max_nodes;	/* values, keys not counted */
};

#define JSON_REASON_MAX		96
#define JSON_ERRMSG_MAX		160
struct json_error {
	size_t			 offset;	/* byte offset of the refusal */
	char			 reason[JSON_REASON_MAX];
	/* "invalid JSON at byte offset N: <reason>" */
	char			 msg[JSON_ERRMSG_MAX];
	/* Set on success too: keys JSON.parse let a later one override
	 * (documents whose reference refuses duplicates look here). */
	size_t			 duplicates;
};

/* json.c: 0 and *out set, or -1 with err filled in (err may be NULL). */
/* Lookups on a parsed tree: an object's member by ASCII key, or NULL. */
int	 json_key_is(const struct json_string *, const char *);
const struct json_value *json_get(const struct json_value *, const char *);
int	 json_parse(const void *buf, size_t len, const struct json_limits *,
	    struct json_value **out, struct json_error *err);
/* The elements of a top-level array one at a time (see json.c). */
int	 json_parse_elements(const void *, size_t, const struct json_limits *,
	    int (*fn)(void *, const struct json_value *, size_t), void *,
	    int *array, struct json_error *err);
void	 json_free(struct json_value *);	/* tree from json_parse */
void	 json_value_clear(struct json_value *);	/* contents only */
/* Decode UTF-8 (strictly: no overlongs, no surrogates) for building trees
 * by hand; -1 and EILSEQ on invalid input. */
int	 json_string_from_utf8(struct json_string *, const char *, size_t);

/*
 * numfmt.c: json_number_format writes ECMAScript Number::toString of a
 * finite double: the length, or -1 (EDOM non-finite, ERANGE buffer too
 * small).  numscan.c: json_number_scan converts text that json.c has
 * checked against the JSON number grammar to the nearest double: 0, or
 * -1 when it is beyond the range of a double (underflow gives zero).
 */
#define JSON_NUMBER_BUFSZ	32
int	 json_number_format(double, char *, size_t);
int	 json_number_scan(const char *, size_t, double *);

/*
 * pow10.c (generated by scripts/pow10.mjs): 10^e for POW10_MIN <= e <=
 * POW10_MAX as { high, low } 64 bits of a 128-bit integer T in [2^127,
 * 2^128), truncated: 10^e = T * 2^(POW10_FLOG2(e) - 127) * (1 + r) with
 * 0 <= r < 2^-127.  The POW10_FLOG* macros are floors of logarithms by
 * integer arithmetic; the generator checks them against exact values for
 * every exponent a double has.
 */
#define POW10_MIN	(-343)
#define POW10_MAX	324
extern const uint64_t pow10_tab[POW10_MAX - POW10_MIN + 1][2];
#define POW10_FLOG2(e)		(((e) * 1741647) >> 19)	/* log2(10^e) */
#define POW10_FLOG10_2(q)	(((q) * 315653) >> 20)	/* log10(2^q) */
#define POW10_FLOG10_34_2(q)	(((q) * 315653 - 131237) >> 20) /* 3/4 2^q */

/*
 * canon.c.  json_canonical returns a NUL-terminated malloc'd text and its
 * length, or -1 with errno (EDOM non-finite number, EINVAL duplicate key,
 * ELOOP deeper than JSON_MAX_DEPTH_LIMIT, EOVERFLOW size).
 */
int	 json_string_compare(const struct json_string *,
	    const struct json_string *);
int	 json_canonical(const struct json_value *, char **out, size_t *outlen);
/* The same text handed to sink in pieces (a sink's digest is the text's). */
int	 json_canonical_stream(const struct json_value *,
	    void (*sink)(void *, const void *, size_t), void *);
/* The same, built from values and punctuation, for json_parse_elements. */
struct json_writer {
	char		*b;
	size_t		 len;
	size_t		 cap;
	void		(*sink)(void *, const void *, size_t);
	void		*arg;
};
void	 json_writer_open(struct json_writer *,
	    void (*sink)(void *, const void *, size_t), void *);
int	 json_writer_value(struct json_writer *, const struct json_value *,
	    size_t depth);
int	 json_writer_raw(struct json_writer *, const char *, size_t);
void	 json_writer_close(struct json_writer *, int abandon);

/*
 * sha256.c: SHA-256, incrementally: the CPU's SHA extensions where there
 * are some, else libsodium's; portable asks for libsodium's (the tests
 * compare the two).
 */
#define SHA256_LEN		32
struct sha256_ctx {
	int			 shani;
	uint32_t		 h[8];
	uint64_t		 bytes;
	size_t			 fill;
	unsigned char		 block[64];
	union {
		uint64_t	 align;
		unsigned char	 state[128];	/* libsodium's */
	}			 sodium;
};
void	 sha256_init(struct sha256_ctx *, int portable);
void	 sha256_update(struct sha256_ctx *, const void *, size_t);
void	 sha256_final(struct sha256_ctx *, unsigned char md[SHA256_LEN]);

/* digest.c: "sha256:" and 64 lowercase hex digits. */
#define DIGEST_PREFIX		"sha256:"
#define DIGEST_HEX_LEN		64
#define DIGEST_STR_LEN		(sizeof(DIGEST_PREFIX) - 1 + DIGEST_HEX_LEN)
void	 digest_sha256_hex(const void *, size_t, char hex[DIGEST_HEX_LEN + 1]);
void	 digest_bytes(const void *, size_t, char out[DIGEST_STR_LEN + 1]);
int	 digest_json(const struct json_value *, char out[DIGEST_STR_LEN + 1]);
int	 digest_json_text(const void *, size_t, const struct json_limits *,
	    char out[DIGEST_STR_LEN + 1], struct json_error *);

/* ---- civil.c: calendar arithmetic of the date readers ------------------ */
int	 civil_digits(const char *, size_t, int *);
int	 civil_month_days(long, int);
int64_t	 civil_days(long, int, int);

/* ---- sandbox spec: launcher <-> shim (DESIGN 1) ----------------------- */
/*
 * spec.c, spec_default.c, shimstatus.c.  The spec is what one sandbox gets: the
 * monitor serialises it onto the launcher's channel, the launcher parses
 * it back, refuses anything malformed and hands the parsed spec to the
 * shim code its clone child runs.  Strings are not owned by the struct:
 * after sbx_spec_parse() they point into the caller's wire buffer, before
 * serialisation into whatever the caller built it from.
 */
#define SBX_SPEC_MAGIC		0x53425853U	/* "SBXS" */
#define SBX_SPEC_VERSION	1
#define SBX_SPEC_WIRE_MAX	65536		/* whole serialised spec */
#define SBX_SPEC_MAXARGS	256
#define SBX_SPEC_MAXENV		128
#define SBX_SPEC_MAXMOUNTS	64
#define SBX_SPEC_STRMAX		32768		/* one string, NUL included (the
						   provider driver is an argument) */
#define SBX_SPEC_ERRLEN		256		/* error buffers */
#define SBX_SPEC_UNLIMITED	UINT64_MAX	/* nofile, fsize: inherit */

#define SBX_CLASS_COMMAND	1		/* payload classes */
#define SBX_CLASS_PROVIDER	2
#define SBX_CLASS_SELFTEST	3		/* the shim's own checks run as
						   the payload, under command.priv,
						   without an exec */

#define SBX_NET_NONE		1		/* empty netns, lo up */
#define SBX_NET_PROXY		2		/* the same, and pid 1 makes the
						   proxy's listeners in it */
#define SBX_PROXY_PORT		3128		/* 127.0.0.1 and [::1] inside */

#define SBX_MOUNT_RO		1		/* read-only bind */
#define SBX_MOUNT_RW		2		/* read-write bind */
#define SBX_MOUNT_TMPFS		3		/* sized tmpfs */
#define SBX_MOUNT_SYMLINK	4		/* symlink dst -> src, made in
						   the root tmpfs (merged /usr) */

#define SBX_MOUNT_F_NOEXEC	0x1		/* rw bind, tmpfs: no execute */
#define SBX_MOUNT_F_ALL		SBX_MOUNT_F_NOEXEC

struct sbx_mount {
	uint32_t	 kind;		/* SBX_MOUNT_* */
	uint32_t	 flags;		/* SBX_MOUNT_F_* */
	const char	*src;		/* host path (binds), NULL for tmpfs;
					   the relative target (symlink) */
	const char	*dst;		/* absolute path inside the sandbox */
	uint64_t	 size;		/* tmpfs bytes, 0 for binds */
};

struct sbx_spec {
	uint32_t	 class;		/* SBX_CLASS_* */
	uint32_t	 net;		/* SBX_NET_* */
	size_t		 argc;
	const char	*argv[SBX_SPEC_MAXARGS + 1];	/* NULL-terminated */
	size_t		 envc;
	const char	*env[SBX_SPEC_MAXENV + 1];	/* "NAME=value" */
	const char	*workdir;	/* mount point inside, or NULL */
	int		 workdir_fd;	/* 1: a directory fd is passed */
	size_t		 nmounts;
	struct sbx_mount mounts[SBX_SPEC_MAXMOUNTS];
	uint64_t	 root_size;	/* tmpfs root, read-only after setup */
	uint64_t	 tmp_size;	/* /tmp; also /dev/shm when asked */
	int		 dev_shm;	/* 1: a /dev/shm tmpfs */
	int		 tmp_noexec;	/* 1: /tmp (and /dev/shm) noexec */
	int		 workdir_noexec;	/* 1: the workdir noexec */
	uint64_t	 timeout_ms;	/* wall clock, then SIGKILL */
	uint64_t	 memory;	/* bytes */
	uint64_t	 pids;		/* processes, the shim included */
	uint64_t	 nofile;	/* RLIMIT_NOFILE or UNLIMITED */
	uint64_t	 fsize;		/* RLIMIT_FSIZE or UNLIMITED */
	int		 cgroup;	/* set by the launcher: memory and
					   pids are capped by a cgroup */
	int		 cgroup_wait;	/* launcher only, never on the wire:
					   pid 1 is moved into its cgroups
					   while it builds the sandbox and
					   waits for that before the payload */
};

void	 sbx_spec_init(struct sbx_spec *);
int	 sbx_spec_default(struct sbx_spec *);
int	 sbx_spec_add_arg(struct sbx_spec *, const char *);
int	 sbx_spec_add_env(struct sbx_spec *, const char *);
int	 sbx_spec_add_mount(struct sbx_spec *, uint32_t kind, const char *src,
	    const char *dst, uint64_t size);
int	 sbx_spec_add_mount_flags(struct sbx_spec *, uint32_t kind,
	    uint32_t flags, const char *src, const char *dst, uint64_t size);
int	 sbx_spec_check(const struct sbx_spec *, char *err, size_t errlen);
int	 sbx_spec_serialise(const struct sbx_spec *, uint8_t *buf,
	    size_t buflen, size_t *lenp, char *err, size_t errlen);
int	 sbx_spec_parse(struct sbx_spec *, const uint8_t *buf, size_t len,
	    char *err, size_t errlen);

/*
 * The shim's descriptors when the launcher's clone child calls it, fixed
 * so that neither side negotiates: 0-2 the payload's stdio, then these.
 * Everything else is closed.
 */
#define SBX_SHIM_FD_STATUS	3	/* status pipe, shim -> launcher */
#define SBX_SHIM_FD_LIFELINE	4	/* read end; HUP when launcher died */
#define SBX_SHIM_FD_WORKDIR	5	/* optional workdir directory */
#define SBX_SHIM_FD_PROXY	6	/* network proxy: a unix socket the
					   listeners go out on, shim -> launcher */
#define SBX_SHIM_NFDS		7

/* One record per write(), smaller than PIPE_BUF so it arrives whole. */
#define SBX_STATUS_SETUP	1	/* setup failed: step, error */
#define SBX_STATUS_EXIT		2	/* payload finished: wstatus */
#define SBX_LIMIT_CGROUP	0x1	/* memory/pids by a cgroup */
#define SBX_LIMIT_RLIMIT	0x2	/* memory/pids by RLIMIT_AS/NPROC */
#define SBX_LIMIT_OOM		0x4	/* launcher -> monitor only: the
					   memory cgroup killed a process of
					   the sandbox */
#define SBX_LIMIT_PIDS		0x8	/* launcher -> monitor only: the
					   pids cgroup refused a fork */
#define SBX_LIMIT_CGV2		0x10	/* launcher -> monitor only: the
					   cgroup is v2 (else v1) */
/* runner -> monitor only (struct pr_done): what ended a provider run */
#define SBX_LIMIT_OUTPUT	0x20	/* stdout passed the output cap */
#define SBX_LIMIT_TIMEOUT	0x40	/* the run's deadline */
#define SBX_LIMIT_FSIZE		0x80	/* SIGXFSZ (RLIMIT_FSIZE) */
#define SBX_STEP_MAX		160

struct sbx_status {
	uint32_t	 type;		/* SBX_STATUS_* */
	int32_t		 error;		/* errno of the failing step */
	int32_t		 wstatus;	/* raw wait status of the payload */
	uint32_t	 limits;	/* SBX_LIMIT_* in force */
	char		 step[SBX_STEP_MAX];	/* NUL-terminated */
};

int	 sbx_status_check(const struct sbx_status *);
const char *sbx_limit_name(uint32_t);

/* ---- cgv2.c: cgroup v2 files (monitor/cgroups.c, launcher/cgroup.c) --- */
#define CGV2_FAKE		0x1	/* tests: a plain directory laid out
					   like a cgroup2 mount */
#define CGV2_LEAF		"supervisor"	/* the service's own leaf */
int	 cgv2_write(int dfd, const char *file, const char *val, int flags);
int	 cgv2_is_cgroup2(int dfd, int flags);
int	 cgv2_missing(int dfd, const char *file, const char *const *want,
	    size_t nwant, char *missing, size_t mlen);
long long cgv2_event(int dfd, const char *file, const char *key);
int	 cgv2_mountpoint(const char *mountinfo, char *path, size_t len);
int	 cgv2_self(const char *cgfile, char *path, size_t len);
int	 cgv2_rmdir(int dfd, const char *name, int flags);
const char *sbx_errname(int);

/* ---- role.c: the channel between the monitor and each role ------------ */
#define ROLE_FD			3	/* the socketpair, in every role */
#define ROLE_PROTOCOL_VERSION	1
#define ROLE_LEN_ANY		((size_t)-1)

enum role_imsg {
	IMSG_ROLE_READY = 1,		/* role -> monitor: struct role_ready */
	/* monitor <-> launcher; peerid is the sandbox id */
	IMSG_LAUNCH_SPEC,		/* -> serialised struct sbx_spec */
	IMSG_LAUNCH_FD,			/* -> struct launch_fd + descriptor */
	IMSG_LAUNCH_START,		/* -> struct launch_start */
	IMSG_LAUNCH_SIGNAL,		/* -> struct launch_signal */
	IMSG_LAUNCH_STARTED,		/* <- struct launch_started */
	IMSG_LAUNCH_EXIT,		/* <- struct launch_exit */
	IMSG_LAUNCH_SELFTEST,		/* -> struct selftest_req */
	IMSG_LAUNCH_SELFTEST_RESULT,	/* <- struct selftest_result */
	/*
	 * monitor <-> provider-runner; peerid is the monitor's job id.
	 * "->" is monitor to runner, "<-" runner to monitor.
	 */
	IMSG_PR_ALLOWLIST,		/* -> a chunk of the allowlist file */
	IMSG_PR_ALLOWLIST_END,		/* -> struct pr_allowlist_end */
	IMSG_PR_ALLOWLIST_OK,		/* <- struct pr_done (the verdict) */
	IMSG_PR_LOAD,			/* -> struct pr_load + bundle dirfd */
	IMSG_PR_BLOB,			/* <-> a chunk of a snapshot blob */
	IMSG_PR_PROVIDER,		/* <- struct pr_provider (after its
					      blob's chunks) */
	IMSG_PR_INVOKE,			/* -> struct pr_invoke + records fd
					      (after the blob's chunks) */
	IMSG_PR_OUTPUT,			/* -> struct pr_job + result fd */
	IMSG_PR_SPAWN,			/* <- struct pr_spawn + stdin fd */
	IMSG_PR_SPAWN_STDOUT,		/* <- struct pr_spawn + stdout fd */
	IMSG_PR_EXITED,			/* -> struct launch_exit (peerid: the
					      spawn's tag, see pr_spawn) */
	IMSG_PR_DONE,			/* <- struct pr_done: job finished */
	IMSG_PR_POOL,			/* -> struct pr_pool: keep this many
					      provider sandboxes booted */
	IMSG_PR_ARM,			/* <- struct pr_arm: a pooled sandbox
					      is in use; its deadline starts */
	IMSG_LAUNCH_DEADLINE,		/* monitor -> launcher: struct
					      launch_deadline (peerid: the
					      sandbox id) */
	IMSG_LAUNCH_LISTENER,		/* launcher -> monitor: struct
					      launch_listener + a listening
					      socket made in the sandbox's
					      network namespace (network
					      proxy; peerid: the sandbox id) */
	/* monitor <-> provider-runner: gates evaluate (peerid: the job) */
	IMSG_PR_GATES_DOC,		/* -> struct pr_gates_doc + its fd */
	IMSG_PR_GATES_EVAL,		/* -> struct pr_gates_eval + result
					      fd (after every DOC) */
	IMSG_PR_GATES_LOOKUP,		/* <- struct pr_gates_lookup: the
					      provider issued for a pin */
	IMSG_PR_GATES_ISSUED,		/* -> struct pr_gates_issued (after
					      its blob's chunks, if any) */
	IMSG_PR_GATES_RERUN,		/* <- struct pr_gates_rerun: how a
					      re-run ended (for the audit) */
	IMSG_PR_GATES_DONE,		/* <- struct pr_gates_done: the
					      decision or the refusal */
	/* monitor <-> every role: liveness (role.c answers it) */
	IMSG_ROLE_PING,			/* -> struct role_ping */
	IMSG_ROLE_PONG,			/* <- struct role_ping, echoed */
};

/* Bulk bytes travel in chunks below the channel cap (DESIGN 3). */
#define PR_CHUNK		(IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE)
#define PR_BLOB_MAX		(2 * 1024 * 1024)	/* a snapshot blob */
#define PR_ALLOWLIST_MAX	(1024 * 1024)
#define PR_ID_MAX		129	/* provider id, NUL included */
#define PR_VERSION_MAX		385
#define PR_DIGEST_MAX		72	/* "sha256:" + 64 hex + NUL */
#define PR_METRICS_MAX		8192	/* canonical JSON, NUL included */
#define PR_MSG_MAX		512

struct pr_allowlist_end {
	uint32_t	 total;		/* bytes sent in chunks */
};

struct pr_job {
	uint32_t	 job;
};

struct pr_load {
	int64_t		 now_ms;	/* for review dates */
	uint32_t	 timeout_ms;	/* each inspect run */
	uint32_t	 max_output;	/* bytes of a run's stdout */
};

/* One provider that loaded and passed inspection. */
struct pr_provider {
	uint32_t	 blob_len;	/* its snapshot blob, sent before */
	char		 bundle_id[PR_ID_MAX];
	char		 id[PR_ID_MAX];
	char		 version[PR_VERSION_MAX];
	char		 code_digest[PR_DIGEST_MAX];
	char		 source_digest[PR_DIGEST_MAX];
	char		 metrics[PR_METRICS_MAX];	/* canonical JSON */
};

struct pr_invoke {
	uint32_t	 blob_len;	/* the registry's blob, sent before */
	char		 id[PR_ID_MAX];
	char		 version[PR_VERSION_MAX];
	char		 code_digest[PR_DIGEST_MAX];	/* as issued */
	char		 source_digest[PR_DIGEST_MAX];
	int64_t		 clock_ms;
	uint32_t	 timeout_ms;
	uint32_t	 max_records;
	uint32_t	 max_output;
};

/*
 * The runner asks for a provider sandbox: the monitor builds it from its
 * own launch plan (node, its libraries, the driver) -- the runner only
 * supplies the pipe ends.  tag names the spawn in IMSG_PR_EXITED.
 */
struct pr_spawn {
	uint32_t	 tag;
	uint32_t	 timeout_ms;	/* 0 when PR_SPAWN_POOLED */
	uint32_t	 flags;
};
/*
 * A pooled sandbox boots now and waits, blocked reading stdin, for a
 * request that may come much later: the monitor gives it an idle
 * lifetime instead of a run's deadline, and the run's deadline starts
 * when the runner takes it (IMSG_PR_ARM).
 */
#define PR_SPAWN_POOLED		0x1
#define PR_SPAWN_RESERVED	0x2	/* with POOLED: booted for one job
					   that is preparing its request */
#define PR_POOL_MAX		64		/* provider-pool's bound */
#define PR_TIMEOUT_MAX		600000		/* provider-timeout's bound */
#define PR_POOL_IDLE_MS		600000		/* a pooled sandbox's life
						   before it is used */
#define PR_POOL_MARGIN_MS	5000		/* not taken closer to it */

struct pr_pool {
	uint32_t	 size;		/* 0: every run starts cold */
};

struct pr_arm {
	uint32_t	 tag;
	uint32_t	 timeout_ms;	/* from now */
};

struct pr_done {
	int32_t		 code;		/* 0, or a provider-spec error code
					   (enum prov_code) */
	uint32_t	 count;		/* load: providers issued */
	uint32_t	 limit;		/* with code: the SBX_LIMIT_* that
					   ended the run (OUTPUT, TIMEOUT,
					   FSIZE, OOM, PIDS), or 0 */
	char		 msg[PR_MSG_MAX];
};

/*
 * gates evaluate (sbx-protocol(7)): the agent's documents reach the runner
 * as descriptors, one DOC each, in the order binding, metrics, holdout,
 * upstream, pack dirs, records, then the operator's gate-packs directory
 * and gates configuration; the monitor opens only those two and parses
 * none.  name is the path (for messages and the .json rule), id the
 * provider a records file is for.  A document its opener could not reach
 * comes without a descriptor and with the errno (err), so that the
 * runner refuses it at the point the reference would read it.  gates
 * verify is the same job with the report's DOC before the binding's and
 * verify set in EVAL: the report is re-derived from the same inputs.
 */
#define PR_GATES_BINDING	1
#define PR_GATES_METRICS	2
#define PR_GATES_HOLDOUT	3
#define PR_GATES_UPSTREAM	4
#define PR_GATES_OPERATOR	5	/* sbx.conf gate-packs, a directory */
#define PR_GATES_PACKDIR	6
#define PR_GATES_RECORDS	7
#define PR_GATES_CONFIG		8	/* the gates configuration (floors) */
#define PR_GATES_REPORT		9	/* verify: the report, first */
#define PR_GATES_NAME_MAX	1024
#define PR_GATES_DOCS_MAX	96	/* 4 + 64 pack dirs + 16 records + the
					   operator's packs and configuration,
					   and room */
#define PR_GATES_RECORDS_MAX	16	/* --records files per evaluation */
#define PR_GATES_NOW_MAX	64
#define PR_GATES_MSG_MAX	1024

struct pr_gates_doc {
	uint32_t	 kind;		/* PR_GATES_* */
	int32_t		 err;		/* 0, or the errno: no descriptor */
	char		 name[PR_GATES_NAME_MAX];
	char		 id[PR_ID_MAX];	/* records: the provider */
};

struct pr_gates_eval {
	uint32_t	 ndocs;		/* DOCs sent before */
	uint32_t	 verify;	/* 1: verify the REPORT document
					   (now unused: its evaluatedAt) */
	uint32_t	 timeout_ms;	/* each re-run */
	uint32_t	 max_records;
	uint32_t	 parallel;	/* re-runs at once */
	char		 now[PR_GATES_NOW_MAX];
	char		 trusted[PR_DIGEST_MAX];
};

/* The pin's identity the runner asks about; index names its answer. */
struct pr_gates_lookup {
	uint32_t	 index;
	char		 id[PR_ID_MAX];
	char		 version[PR_VERSION_MAX];
	char		 code_digest[PR_DIGEST_MAX];
	char		 source_digest[PR_DIGEST_MAX];
};

#define PR_GATES_NONE		0	/* no provider with that id issued */
#define PR_GATES_OTHER		1	/* issued, another identity: no blob */
#define PR_GATES_EXACT		2	/* exactly the pin's: blob sent */
struct pr_gates_issued {
	uint32_t		 index;
	uint32_t		 match;		/* PR_GATES_NONE/OTHER/EXACT */
	struct pr_provider	 p;
};

struct pr_gates_rerun {
	char		 id[PR_ID_MAX];
	char		 code_digest[PR_DIGEST_MAX];
	char		 records_digest[PR_DIGEST_MAX];
	uint32_t	 duration_ms;
	int32_t		 code;		/* 0, or enum prov_code */
	char		 msg[PR_MSG_MAX];
};

#define PR_GATES_OK		0
#define PR_GATES_REFUSED	1
struct pr_gates_done {
	int32_t		 status;	/* PR_GATES_OK or PR_GATES_REFUSED */
	uint32_t	 decision;	/* 0 PROMOTE, 1 HOLD, 2 ROLLBACK;
					   verify: 0 valid, 1 not */
	char		 kind[32];	/* the refusal's class */
	char		 msg[PR_GATES_MSG_MAX];
};

/*
 * The capability self-test: what the sandbox must not see of the monitor.
 * Strings are NUL-terminated within their arrays (checked on receipt).
 */
#define SELFTEST_NS		7	/* user pid mnt net ipc uts cgroup */
#define SELFTEST_NHIDDEN	8
#define SELFTEST_PATHMAX	256
struct selftest_req {
	uint32_t	 port;		/* monitor's listener on 127.0.0.1 */
	/* identity service's host ids (sandbox-user) when the service
	 * was started as root; 0/0: the launcher's own (a user's service) */
	uint32_t	 host_uid;
	uint32_t	 host_gid;
	uint32_t	 nhidden;
	uint64_t	 ns[SELFTEST_NS];
	char		 hidden[SELFTEST_NHIDDEN][SELFTEST_PATHMAX];
};

struct selftest_result {
	int32_t		 passed;	/* 1 only if every check passed */
	uint32_t	 checks;
	uint32_t	 failed;
	char		 detail[1024];	/* the failures, or why it could
					   not run */
};

/* The launcher channel carries whole specs, so its cap is larger. */
#define LAUNCH_MSG_MAXSIZE	(IMSG_HEADER_SIZE + SBX_SPEC_WIRE_MAX)

#define LAUNCH_SLOT_STDIN	0
#define LAUNCH_SLOT_STDOUT	1
#define LAUNCH_SLOT_STDERR	2
#define LAUNCH_SLOT_WORKDIR	3
#define LAUNCH_NSLOTS		4

struct launch_fd {
	uint32_t	 slot;		/* LAUNCH_SLOT_* */
};

/*
 * Whose host identity a sandbox has (DESIGN 1).  The monitor decides it
 * from the requesting peer's SO_PEERCRED and the profile; the launcher
 * checks it again and never maps host id 0.
 */
#define SBX_IDENTITY_SERVICE	0	/* the launcher's own uid/gid */
#define SBX_IDENTITY_CALLER	1	/* the peer's uid/gid */
#define SBX_IDENTITY_RANGE	2	/* a fresh id of sandbox-uid-range */

struct launch_start {
	uint32_t	 slots;		/* bit per LAUNCH_SLOT_* sent */
	uint32_t	 identity;	/* SBX_IDENTITY_* */
	uint32_t	 host_uid;	/* CALLER, RANGE: the host ids that */
	uint32_t	 host_gid;	/* the sandbox's id 1000 maps to;
					 * SERVICE: sandbox-user's, or 0/0
					 * for the launcher's own */
};

struct launch_signal {
	int32_t		 signo;		/* SIGTERM, SIGINT, SIGHUP, SIGKILL */
};

/* Replace a running sandbox's deadline: it ends timeout_ms from now. */
struct launch_deadline {
	uint32_t	 timeout_ms;
};

struct launch_listener {
	uint32_t	 family;	/* AF_INET or AF_INET6 */
};

/*
 * The id-map policy (issue 20).  The monitor gives the launcher a second
 * descriptor at exec, LAUNCH_POLICY_FD, a SOCK_SEQPACKET socket whose
 * other end it keeps; only the launcher's mapper (launcher/mapper.c)
 * keeps it, and the monitor writes one struct idmap_policy on it at start
 * and after each reload.  The policy so never passes through the part of
 * the launcher that reads what sandboxes send.
 */
#define LAUNCH_POLICY_FD	4
#define IDMAP_POLICY_VERSION	2
#define IDMAP_ALLOW_MAX		64	/* "allow uid" lines passed on */

struct idmap_policy {
	uint32_t	 version;	/* IDMAP_POLICY_VERSION */
	uint32_t	 caller_min_uid;
	uint32_t	 range_set;
	uint32_t	 range_start;
	uint32_t	 range_count;
	uint32_t	 sandbox_user_uid;	/* 0: none */
	uint32_t	 sandbox_user_gid;
	uint32_t	 nallow;
	uint32_t	 allow_uid[IDMAP_ALLOW_MAX];
	uint32_t	 caller_set;	/* a profile has identity caller */
};

struct launch_started {
	int32_t		 pid;		/* in the launcher's namespace */
	uint32_t	 limits;	/* SBX_LIMIT_* in force */
};

/* How a sandbox ended. */
#define SANDBOX_EXITED		1	/* wstatus: WIFEXITED */
#define SANDBOX_SIGNALED	2	/* wstatus: WIFSIGNALED */
#define SANDBOX_TIMEOUT		3	/* deadline passed, SIGKILLed */
#define SANDBOX_SETUP_FAILED	4	/* step + error say where */
#define SANDBOX_KILLED		5	/* killed on request or shutdown */

/* How a sandbox ended, or why it never started (SANDBOX_SETUP_FAILED). */
struct launch_exit {
	int32_t		 reason;	/* SANDBOX_* of launcher.h */
	int32_t		 wstatus;
	int32_t		 error;		/* errno of the failing step */
	uint32_t	 limits;
	char		 step[SBX_STEP_MAX];
};

struct role_ready {
	uint32_t	 version;	/* ROLE_PROTOCOL_VERSION */
	uint32_t	 pid;
	uint32_t	 uid;
	uint32_t	 gid;
};

/* The monitor's liveness probe (role-timeout in sbx.conf(5)). */
struct role_ping {
	uint64_t	 seq;
};

struct role_handler {
	uint32_t	 type;
	size_t		 len;		/* exact payload size, or ROLE_LEN_ANY */
	void		(*fn)(struct imsgbuf *, struct imsg *);
};

/* Parse "-P name [-dv]", check fd 3, die with the monitor, apply the
 * privilege file, send READY.  Any failure is fatal.  role_before_priv
 * names a function role_init runs just before the privilege file is
 * applied (once the event base, role_base(), exists). */
struct event_base;
void	 role_before_priv(void (*)(void));
void	 role_keep_fd(int);	/* one more descriptor survives role_init */
struct event_base *role_base(void);
void	 role_init(int, char *[], const char *, const struct priv_table *,
	    struct imsgbuf *);
__dead void role_serve(struct imsgbuf *, const struct role_handler *,
	    size_t);
void	 role_event_add(void);		/* after queueing a reply */

/* ---- monitor <-> proxy (DESIGN 1; sbx-protocol(7)) -------------------- */
/*
 * A sandbox's network policy is sent once, when the sandbox starts, and
 * the proxy keeps it unchanged for the sandbox's life (a reload does not
 * widen a running sandbox).  Then come its listeners, each a listening
 * TCP socket the sandbox's pid 1 made in the sandbox's network namespace;
 * END closes them and every connection of the sandbox.  Numbered apart
 * from enum role_imsg so that neither list renumbers the other.  "->" is
 * monitor to proxy, "<-" proxy to monitor.
 */
enum proxy_imsg {
	IMSG_PROXY_POLICY = 64,		/* -> struct proxy_policy_msg */
	IMSG_PROXY_RULE,		/* -> struct proxy_rule_msg, n times */
	IMSG_PROXY_POLICY_END,		/* -> struct proxy_policy_end */
	IMSG_PROXY_LISTEN,		/* -> struct proxy_sandbox_msg + fd */
	IMSG_PROXY_END,			/* -> struct proxy_sandbox_msg */
	IMSG_PROXY_AUDIT,		/* <- struct proxy_audit (only with
					      PROXY_F_AUDIT) */
	IMSG_PROXY_STATS_REQ,		/* -> struct proxy_stats_req */
	IMSG_PROXY_TUNNEL,		/* <- struct proxy_tunnel, at most
					      PROXY_STATUS_TUNNELS times */
	IMSG_PROXY_STATS		/* <- struct proxy_stats: the answer
					      ends */
};

#define PROXY_F_AUDIT		0x1	/* send IMSG_PROXY_AUDIT per decision */

/* Limits; 0 in a message means the default. */
#define PROXY_HEADER_MS		10000	/* a request head, first byte to last */
#define PROXY_IDLE_MS		30000	/* keep-alive wait for the next request */
#define PROXY_CONNECT_MS	10000	/* upstream connect */
#define PROXY_IO_MS		120000	/* silence within a request or tunnel */
#define PROXY_SANDBOX_CONNS	64	/* client connections of one sandbox */
#define PROXY_CONNS_MAX		1024	/* all of them (nofile 4096: two
					   sockets each, and the listeners) */
#define PROXY_RULES_MAX		128	/* each of allow, deny, cidr */

struct proxy_policy_msg {
	uint32_t	 sandbox;	/* the monitor's sandbox id */
	uint32_t	 uid;		/* the peer that started it (audit) */
	uint32_t	 flags;		/* PROXY_F_* */
	uint32_t	 max_conns;
	uint32_t	 header_ms;
	uint32_t	 idle_ms;
	uint32_t	 connect_ms;
	uint32_t	 io_ms;
	uint32_t	 nallow;	/* rules that follow, by kind */
	uint32_t	 ndeny;
	uint32_t	 ncidr;
};

#define PROXY_RULE_ALLOW	1	/* allow-domain */
#define PROXY_RULE_DENY		2	/* deny-domain */
#define PROXY_RULE_CIDR		3	/* allow-cidr */
#define PROXY_HOST_MAX		256	/* NUL-terminated, <= 253 chars */

struct proxy_rule_msg {
	uint32_t	 sandbox;
	uint32_t	 kind;		/* PROXY_RULE_* */
	uint16_t	 port;		/* domains: 0 any */
	uint8_t		 wildcard;	/* domains: "*." */
	uint8_t		 prefixlen;	/* cidr */
	uint8_t		 af;		/* cidr: AF_INET or AF_INET6 */
	uint8_t		 pad[3];
	uint8_t		 addr[16];	/* cidr, network order, host bits 0 */
	char		 host[PROXY_HOST_MAX];	/* domains, lower case */
};

struct proxy_policy_end {
	uint32_t	 sandbox;
	uint32_t	 nrules;	/* all three kinds */
};

struct proxy_sandbox_msg {
	uint32_t	 sandbox;
};

#define PROXY_AUDIT_REASON	320
struct proxy_audit {
	uint32_t	 sandbox;
	uint32_t	 uid;
	uint32_t	 status;	/* HTTP status answered (200 for a
					   tunnel), 0 for none */
	uint32_t	 allowed;	/* 1 allowed, 0 refused */
	uint64_t	 bytes_up;	/* client to upstream */
	uint64_t	 bytes_down;
	uint64_t	 duration_ms;
	uint16_t	 port;
	uint8_t		 pad[6];
	char		 method[16];
	char		 host[PROXY_HOST_MAX];
	char		 addr[48];	/* the address connected, or "-" */
	char		 reason[PROXY_AUDIT_REASON];
};

/*
 * sbxctl status: the proxy's live tunnels and its totals since it
 * started.  The reply to a STATS_REQ is its TUNNELs (the oldest first,
 * at most PROXY_STATUS_TUNNELS, so that the status reply stays within
 * one control frame) and then STATS with the same seq; requests are
 * answered in order.
 */
#define PROXY_STATUS_TUNNELS	24

struct proxy_stats_req {
	uint32_t	 seq;
};

struct proxy_tunnel {
	uint32_t	 seq;
	uint32_t	 sandbox;
	uint16_t	 port;
	uint8_t		 pad[6];
	uint64_t	 bytes_up;	/* client to upstream, so far */
	uint64_t	 bytes_down;
	uint64_t	 age_ms;	/* since the CONNECT was read */
	char		 host[PROXY_HOST_MAX];
	char		 addr[48];
};

struct proxy_stats {
	uint32_t	 seq;
	uint32_t	 conns;		/* live client connections */
	uint32_t	 tunnels;	/* of which established tunnels */
	uint32_t	 listed;	/* TUNNELs sent before this */
	uint64_t	 accepted;	/* client connections, since start */
	uint64_t	 over_cap;	/* refused by a connection cap (503) */
	uint64_t	 requests;	/* decisions (requests and tunnels) */
	uint64_t	 denied;	/* of which refused (4xx, 503) */
	uint64_t	 bytes_up;	/* all client to upstream bytes */
	uint64_t	 bytes_down;
};

/* proxy_msg.c: building and queueing the messages above. */
void	 proxy_policy_init(struct proxy_policy_msg *, uint32_t sandbox,
	    uint32_t uid);
int	 proxy_rule_domain(struct proxy_rule_msg *, int deny, const char *host,
	    int wildcard, uint16_t port);
int	 proxy_rule_cidr(struct proxy_rule_msg *, int af, const void *addr,
	    unsigned int prefixlen);
int	 proxy_send_policy(struct imsgbuf *, struct proxy_policy_msg *,
	    struct proxy_rule_msg *, size_t);
int	 proxy_send_listener(struct imsgbuf *, uint32_t sandbox, int fd);
int	 proxy_send_end(struct imsgbuf *, uint32_t sandbox);

/* fdcheck.c: descriptors passed by clients (issue 20). */
#define PASSED_FD_READ	0x1	/* opened for reading (not O_PATH) */
#define PASSED_FD_DIR	0x2	/* a directory */
int	 passed_fd_check(int, char *, size_t);
int	 passed_fd_mode(int, int, const char *, char *, size_t);

#endif /* SBX_COMMON_H */
