/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * proto.h: the internal protocol between the processes -- one header for
 * every channel, the imsg types and their fixed-size message structs, each
 * documented beside its struct:
 *   monitor <-> every role: READY, the liveness probe (role.c answers it)
 *   monitor <-> launcher: sandbox specs, descriptors, start, signals,
 *     deadlines, exits, the capability self-test, the id-map policy
 *   monitor <-> provider-runner: allowlist, load, invoke, spawn, gates
 *   monitor <-> proxy: network policies, listeners, audit, statistics
 * The launcher <-> shim records (struct sbx_status) and the spec itself
 * are spec.h's.  Builders of the proxy's messages: proxy_msg.h.
 */
#ifndef SBX_PROTO_H
#define SBX_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "imsg.h"
#include "spec.h"

/* ---- types on every role channel (ROLE_FD); the proxy's: proxy_imsg -- */
#define ROLE_PROTOCOL_VERSION	1

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
	/* monitor <-> provider-runner: revocation (peerid: 0) */
	IMSG_PR_RECHECK,		/* -> struct pr_recheck: judge an
					      issued provider by the current
					      allowlist (after a reload) */
	IMSG_PR_RECHECKED,		/* <- struct pr_recheck, code and
					      msg filled in */
	IMSG_LAUNCH_RESIZE,		/* monitor -> launcher: struct
					   launch_resize */
	IMSG_LAUNCH_ARM,		/* monitor -> launcher: a warm
					   sandbox takes its run: the run's
					   serialised spec, after an FD for
					   each of its stdio slots (only
					   0-2); answered with STARTED */
};

/* ---- monitor <-> provider-runner ------------------------------------ */
/* Bulk bytes travel in chunks below the channel cap (design.md §3). */
#define PR_CHUNK		(IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE)
#define PR_BLOB_MAX		(2 * 1024 * 1024)	/* a snapshot blob */
#define PR_ALLOWLIST_MAX	(1024 * 1024)
#define PR_ID_MAX		129	/* provider id, NUL included */
#define PR_VERSION_MAX		385
#define PR_DIGEST_MAX		72	/* "sha256:" + 64 hex + NUL */
#define PR_METRICS_MAX		8192	/* canonical JSON, NUL included */
#define PR_MSG_MAX		512
#define PR_REVIEWER_MAX		385	/* PROV_U8(PROV_REVIEWER_MAX) */
#define PR_DATETIME_MAX		65	/* PROV_DATETIME_MAX + 1 */
#define PR_HANDLE_MAX		40	/* "prv-" + 32 hex + NUL, and room */

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
	/* The in-bundle review it was issued on: a reload re-judges it
	 * (IMSG_PR_RECHECK) without the bundle. */
	char		 reviewer[PR_REVIEWER_MAX];
	char		 reviewed_at[PR_DATETIME_MAX];
	char		 review_digest[PR_DIGEST_MAX];
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
	int32_t		 code;		/* 0, or an error code of interop.md §P6
					   (enum prov_code) */
	uint32_t	 count;		/* load: providers issued */
	uint32_t	 limit;		/* with code: the SBX_LIMIT_* that
					   ended the run (OUTPUT, TIMEOUT,
					   FSIZE, OOM, PIDS), or 0 */
	char		 msg[PR_MSG_MAX];
};

/*
 * After every allowlist the runner judged, the monitor asks it to re-judge
 * each provider it holds with the load's checks that need no bundle: the
 * review (its digest, its date by now_ms), the allowlist entry, its
 * digest, its reviewer and date.  The answer is the same struct with
 * code (0: still trusted; else enum prov_code) and msg.
 */
struct pr_recheck {
	char		 handle[PR_HANDLE_MAX];
	int64_t		 now_ms;
	char		 bundle_id[PR_ID_MAX];
	char		 id[PR_ID_MAX];
	char		 code_digest[PR_DIGEST_MAX];
	char		 reviewer[PR_REVIEWER_MAX];
	char		 reviewed_at[PR_DATETIME_MAX];
	char		 review_digest[PR_DIGEST_MAX];
	int32_t		 code;
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

/* ---- monitor <-> launcher ------------------------------------------- */
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
#define LAUNCH_SLOT_CHANGES	4	/* the monitor's, never an agent's:
					   an overlay run's stream file */
#define LAUNCH_SLOT_CSBASE	5	/* the monitor's: overlay into's
					   stored stream */
#define LAUNCH_NSLOTS		6

struct launch_fd {
	uint32_t	 slot;		/* LAUNCH_SLOT_* */
};

/*
 * Whose host identity a sandbox has (design.md §1).  The monitor decides it
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
	int32_t		 signo;		/* SIGTERM, SIGINT, SIGHUP, SIGQUIT,
					   SIGKILL */
};

/*
 * A pty sandbox's new window size (SBX_MSG_RESIZE).  The launcher writes
 * it down the sandbox's lifeline pipe, where pid 1 reads it and sets it
 * on the pty master; a sandbox without a pty ignores it.
 */
struct launch_resize {
	uint16_t	 rows;		/* 1..65535 */
	uint16_t	 cols;
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
	/*
	 * What the run cost (sbx-protocol(7), "stats"); zero for a sandbox
	 * that never started.  wall_ms from the clone to the reap; user_us
	 * and sys_us what pid 1 reaped (wait4); peak_bytes the memory
	 * cgroup's high-water mark, else the largest rusage maxrss.
	 */
	uint64_t	 wall_ms;
	uint64_t	 user_us;
	uint64_t	 sys_us;
	uint64_t	 peak_bytes;
	uint32_t	 peak_cgroup;	/* 1: peak_bytes is the cgroup's */
	uint32_t	 reserved;	/* 0 */
	/* The shim's record (spec.h, struct sbx_status): tasks started
	 * (0: unknown), bytes relayed from stdout and stderr, and the
	 * errno that ended either relay early (0: none). */
	uint64_t	 tasks;
	uint64_t	 stdout_bytes;
	uint64_t	 stderr_bytes;
	int32_t		 stdout_error;
	int32_t		 stderr_error;
};

/* ---- monitor <-> every role ----------------------------------------- */
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

/* ---- monitor <-> proxy (design.md §1; sbx-protocol(7)) ----------------- */
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

#endif /* SBX_PROTO_H */
