/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * sbx.h: the public C interface to sbx-monitor (libsbx) and the constants of
 * the agent protocol, documented in sbx-protocol(7).
 *
 * This is the installed API header; it is deliberately separate from
 * sbxctl.h (the command-line program's internals) so that agents include
 * nothing but the protocol.
 *
 * The wire: a unix stream socket carrying imsg frames (16-byte host-order
 * header {type, len, peerid, pid}, len's top bit marking an attached
 * descriptor), each payload a JSON object.  peerid is the client's request
 * id and comes back on every reply and event for that request.
 */
#ifndef SBX_H
#define SBX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SBX_PROTOCOL_VERSION	1
#define SBX_SOCKET_DEFAULT	"/run/sbx/sbx.sock"
/* A user's own monitor, under $XDG_RUNTIME_DIR (see sbx_socket_path). */
#define SBX_SOCKET_USER		"sbx/sbx.sock"
#define SBX_MSG_MAXSIZE		16384	/* whole frame, header included */

/* Requests (agent -> monitor).  Replies use the request type | SBX_REPLY. */
#define SBX_MSG_HELLO		1	/* {version, client?} */
#define SBX_MSG_PING		2	/* {} */
#define SBX_MSG_STATUS		3	/* {} */
#define SBX_MSG_PRIVS		4	/* {name?} */
#define SBX_MSG_RUN		5	/* {argv, profile?, timeout?, env?, fds?,
					   pty?, rows?, cols?, overlay?,
					   overlay_into?} */
#define SBX_MSG_FD		6	/* {slot}, with the descriptor */
#define SBX_MSG_SIGNAL		7	/* {sandbox, signal} */
#define SBX_MSG_EXIT		8	/* event: how a sandbox ended */
#define SBX_MSG_PROVIDER_LOAD	9	/* {allowBundleProviders}, bundle dir fd */
#define SBX_MSG_PROVIDER_LIST	10	/* {} */
#define SBX_MSG_PROVIDER_INSPECT 11	/* {provider} */
#define SBX_MSG_PROVIDER_INVOKE	12	/* {provider, clockMs, ...}, records fd */
#define SBX_MSG_PROVIDER_OUTPUT	13	/* {}, the invoke's result fd */
#define SBX_MSG_GATES_EVALUATE	14	/* {now, trustedBindingDigest, binding,
					   metrics, holdout, upstream?,
					   packDirs?, records?}, result fd */
#define SBX_MSG_GATES_DOC	15	/* {}, one document's fd, in order */
#define SBX_MSG_GATES_VERIFY	16	/* {trustedBindingDigest, report,
					   binding, metrics, holdout,
					   upstream?, packDirs?, records?},
					   result fd */
#define SBX_MSG_PROVIDER_UNLOAD	17	/* {provider} */
#define SBX_MSG_RESIZE		18	/* {sandbox, rows, cols}: a pty's
					   window size */
#define SBX_MSG_CHANGES_LIST	19	/* {}: the caller's changesets */
#define SBX_MSG_CHANGES_OPEN	20	/* {id}: its metadata, and its stream
					   as a read-only descriptor */
#define SBX_MSG_CHANGES_DISCARD	21	/* {id} */
#define SBX_REPLY		0x10000U
#define SBX_MSG_ERROR		0xffffU	/* {code, message}; see below */

/* Error codes carried in SBX_MSG_ERROR's "code". */
#define SBX_E_BAD_JSON		"bad-json"	 /* payload is not a JSON object */
#define SBX_E_BAD_REQUEST	"bad-request"	 /* schema: field missing/extra/type */
#define SBX_E_BAD_FRAME		"bad-frame"	 /* framing: lengths, stray fds */
#define SBX_E_OVERSIZE		"oversize"	 /* frame above SBX_MSG_MAXSIZE */
#define SBX_E_UNKNOWN_TYPE	"unknown-type"
#define SBX_E_UNEXPECTED_FD	"unexpected-fd"
#define SBX_E_HELLO_REQUIRED	"hello-required"
#define SBX_E_VERSION		"version"
#define SBX_E_REFUSED		"refused"	 /* peer not allowed by sbx.conf */
#define SBX_E_LIMIT		"limit"		 /* connection or sandbox limits */
#define SBX_E_NOT_FOUND		"not-found"
#define SBX_E_UNAVAILABLE	"sandbox-unavailable"
#define SBX_E_INTERNAL		"internal"
#define SBX_E_SETUP		"setup-failed"	 /* the sandbox could not start */
/*
 * Provider requests also answer with the reference's GateProviderError
 * codes: disabled, path-escape, oversize, missing-attestation,
 * attestation-mismatch, invalid-module, unregistered, timeout, cancelled,
 * rejected, budget-exceeded, invalid-records, duplicate,
 * sandbox-unavailable (and invalid-allowlist for the operator's file).
 */
/*
 * gates evaluate refuses with "gates-" and the reference's error class:
 * gates-input, gates-admission, gates-schema, gates-registry,
 * gates-evaluation; the message is the reference's.
 */
#define SBX_E_DISABLED		"disabled"
#define SBX_E_UNREGISTERED	"unregistered"
#define SBX_E_REVOKED		"revoked"	 /* an allowlist reload revoked
						    the provider */

struct sbx_conn;

struct sbx_msg {
	uint32_t	 type;
	uint32_t	 id;		/* the request id it answers */
	int		 fd;		/* -1 or a descriptor now owned by you */
	char		*json;		/* NUL-terminated payload */
	size_t		 len;		/* payload bytes, without the NUL */
};

/*
 * Socket path: override if not NULL, else $SBX_SOCKET, else
 * SBX_SOCKET_DEFAULT, or $XDG_RUNTIME_DIR/SBX_SOCKET_USER when that does
 * not exist and $XDG_RUNTIME_DIR is set.  The result may point into a
 * per-thread buffer that the next call in the thread overwrites.
 */
const char	*sbx_socket_path(const char *override);

/*
 * Connect and exchange hellos.  On failure returns NULL, writes a one-line
 * reason to err and leaves errno set: EPERM, the monitor refused (err has
 * its code and reason); EPROTO, it did not speak the protocol; anything
 * else (ENOENT, ECONNREFUSED, EACCES, ...), it could not be reached.
 */
struct sbx_conn	*sbx_connect(const char *path, const char *client,
		    char *err, size_t errlen);
void		 sbx_disconnect(struct sbx_conn *);
int		 sbx_conn_fd(const struct sbx_conn *);
const char	*sbx_server(const struct sbx_conn *);

/* Send one request (fd may be -1; a sent fd stays yours). 0 or -1/errno. */
int		 sbx_send(struct sbx_conn *, uint32_t type, const char *json,
		    int fd, uint32_t *id);
/* A follow-up about an earlier request (its id), e.g. a RUN's FD. */
int		 sbx_send_id(struct sbx_conn *, uint32_t type, uint32_t id,
		    const char *json, int fd);
/* Block for the next message: 1 got one, 0 monitor closed, -1 error. */
int		 sbx_recv(struct sbx_conn *, struct sbx_msg *);
/*
 * A message already read and buffered, without touching the socket: 1 got
 * one, 0 none is buffered, -1 error.  Whoever polls sbx_conn_fd() calls
 * this until it returns 0 before each poll: one read can bring several
 * messages, and poll() only sees what is still in the socket.
 */
int		 sbx_recv_buffered(struct sbx_conn *, struct sbx_msg *);
void		 sbx_msg_free(struct sbx_msg *);
/*
 * Send and wait for the reply to that request (events for other ids are
 * dropped).  0: *reply filled (check reply->type for SBX_MSG_ERROR);
 * -1: transport failure, reason in err.
 */
int		 sbx_call(struct sbx_conn *, uint32_t type, const char *json,
		    struct sbx_msg *reply, char *err, size_t errlen);
/*
 * Start a sandbox.  json is the RUN request without "fds"; fds[] are the
 * payload's stdin, stdout, stderr and working directory (-1: not passed;
 * /dev/null or no workdir inside).  The descriptors stay yours.
 * 0: started, *sandbox is its id and *reqid the id its SBX_MSG_EXIT event
 * will carry.  1: refused, code and reason in err ("code: message").
 * -1: transport failure, reason in err.
 */
#define SBX_RUN_NFDS	4
int		 sbx_run(struct sbx_conn *, const char *json,
		    const int fds[SBX_RUN_NFDS], uint32_t *reqid,
		    uint32_t *sandbox, char *err, size_t errlen);
/*
 * Changesets (sbx_changes_list(3)): the caller's own only; another
 * user's id gets the unknown-id answer.  0 done; 1 refused, "code:
 * message" in err; -1 transport failure or a bad argument, reason in err.
 * list: *json, to free, is {"changesets": [{id, dir, created, last_run,
 * size, entries, runs}]}.  open: *stream is a read-only descriptor of the
 * changeset's stream, at its start, and *meta, to free, its metadata
 * (JSON).  discard: drops it.
 */
int		 sbx_changes_list(struct sbx_conn *, char **json, char *err,
		    size_t errlen);
int		 sbx_changes_open(struct sbx_conn *, const char *id,
		    int *stream, char **meta, char *err, size_t errlen);
int		 sbx_changes_discard(struct sbx_conn *, const char *id,
		    char *err, size_t errlen);
/*
 * A pty sandbox's (RUN with "pty": true) new window size, as after
 * SIGWINCH.  Sent, not waited for: its reply comes like any other.
 * 0, or -1 with errno (EINVAL: rows or cols outside 1..65535).
 */
int		 sbx_resize(struct sbx_conn *, uint32_t sandbox,
		    unsigned rows, unsigned cols);
/* From an SBX_MSG_ERROR reply: 0 and code/message, or -1 if malformed. */
int		 sbx_error(const struct sbx_msg *, char *code, size_t codelen,
		    char *message, size_t msglen);

/*
 * Changesets (issue 23): what runs on an overlay changed beneath their
 * workdir DIR, read from the changeset's stream (a descriptor open on
 * it, at its start, as SBX_MSG_CHANGES_OPEN passes it).  The stream is
 * parsed strictly and incrementally: a stream that breaks a rule is
 * refused with the record, field and rule in err.  sbx_changes(3).
 */
struct sbx_change {
	char		 op;		/* 'A', 'M' or 'D' */
	char		 kind;		/* 'f', 'l', 'd'; 'w' when deleted */
	char		 base_kind;	/* what DIR held: 0, 'f', 'l', 'd',
					   'o' (anything else) */
	unsigned	 mode;		/* the new entry's permission bits */
	uint64_t	 size;		/* a file's bytes, a target's length */
	const char	*path;		/* relative to DIR */
	const char	*target;	/* a symlink's target, else NULL */
};
/*
 * Each change in path order (a directory that only holds changes is not
 * one); cb returning non-zero stops the walk and is returned.  0 done,
 * -1 the stream was refused or unreadable (reason in err).
 */
int		 sbx_changes_entries(int stream,
		    int (*cb)(const struct sbx_change *, void *), void *arg,
		    char *err, size_t errlen);
/* DIR as the caller opened it, and the changeset's metadata about it. */
struct sbx_changes_dir {
	int		 fd;		/* DIR, O_RDONLY | O_DIRECTORY */
	uint64_t	 dev;		/* DIR's st_dev and st_ino when the */
	uint64_t	 ino;		/*   changeset began (0, 0: unchecked) */
	int64_t		 first_run_start; /* ns since the epoch: T0 */
};
/*
 * A unified diff of the changes (paths: NULL, or a NULL-terminated list
 * of paths that selects those and what lies beneath them) against what
 * DIR holds now, in git's form: a/ and b/ prefixes, mode and type
 * headers, binary files as "GIT binary patch" literals with full index
 * lines.  0, or -1 with the reason in err.
 */
int		 sbx_changes_diff(int stream, const struct sbx_changes_dir *,
		    const char *const *paths, FILE *out, char *err,
		    size_t errlen);
/*
 * Write the changes into DIR as the calling process: each file by a
 * temporary file, fsync and rename, every parent opened beneath DIR
 * without following a symlink.  A path whose content in DIR is no longer
 * what the changeset started from (or changed after first_run_start) is
 * a conflict: it is not written, and conflict(path, reason, arg) is
 * called.  A path that already holds the change is skipped.  With
 * SBX_APPLY_ALL_OR_NOTHING, nothing is written unless no path conflicts
 * (the stream must then be seekable: it is read twice).  0 all applied,
 * 1 conflicts, -1 failed (reason in err; what was written stays).
 */
#define SBX_APPLY_ALL_OR_NOTHING	0x1
int		 sbx_changes_apply(int stream, const struct sbx_changes_dir *,
		    const char *const *paths, int flags,
		    void (*conflict)(const char *, const char *, void *),
		    void *arg, char *err, size_t errlen);
/*
 * A path as git shows it: as is, or in double quotes with C escapes when
 * it holds a control character, '"', '\\' or a byte above 0x7e.
 * Returns the length it needs (excluding the NUL), like snprintf.
 */
size_t		 sbx_changes_quote(const char *path, char *buf, size_t len);

#endif /* SBX_H */
