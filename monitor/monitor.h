/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * monitor.h: the one header of sbx-monitor -- configuration (sbx.conf(5)),
 * and later control socket, roles and registry.
 */
#ifndef SBX_MONITOR_H
#define SBX_MONITOR_H

#include <sys/types.h>
#include <sys/queue.h>

#include <netinet/in.h>

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <event.h>

#include "proto.h"
#include "conf/conf.h"

/* ---- proc.c: roles (design.md §1: fork+exec, fd 3, lost child) --------- */
enum role_id {
	ROLE_LAUNCHER,
	ROLE_PROXY,
	ROLE_PROVIDER_RUNNER,
	ROLE_MAX
};

struct role {
	enum role_id	 id;
	const char	*name;		/* "launcher" */
	const char	*exe;		/* "sbx-launcher" */
	pid_t		 pid;
	uid_t		 uid;		/* as the role reported itself */
	gid_t		 gid;
	char		 user[64];	/* its name, resolved at start */
	int		 ready;
	struct imsgbuf	 ibuf;
	struct event	 ev;
	short		 events;
	int		 exefd;		/* its executable, O_PATH */
	int		 logfd;		/* read end of the role's stderr */
	struct event	 logev;
	char		 logbuf[1024];
	size_t		 loglen;
	uint64_t	 ping_seq;	/* liveness probe (role-timeout) */
	int		 ping_out;	/* sent, not answered yet */
	struct timespec	 ping_sent;	/* CLOCK_MONOTONIC */
};

extern struct role	 roles[ROLE_MAX];

void	 proc_open_all(void);		/* before root is given up */
void	 proc_start_all(int debug, int verbose);
void	 proc_policy_send(const struct sbx_conf *);
void	 proc_shutdown(void);		/* kill roles, reap; no exit */
int	 proc_reap(void);		/* -1: a role was lost */
void	 proc_event_add(struct role *);
void	 proc_watchdog_arm(void);	/* after a reload too */
const char *proc_libexec(void);

/* ---- caps.c: CAP_SETUID/CAP_SETGID for the launcher, as root ------- */
void	 caps_keep(void);
void	 caps_trim(void);
void	 caps_launcher_child(void);
void	 caps_role_child(void);
void	 caps_drop(void);
int	 caps_granted(void);

/* ---- cgroups.c: the launcher's cgroup subtree (v2, else v1) ---------- */
void	 cgroups_prepare(const char *root, int favordynmods, uid_t, gid_t);
int	 cgroups_favordynmods(void);
int	 cgroups_v2_setup(const char *base, uid_t, gid_t, int flags,
	    char *err, size_t errlen);
int	 cgroups_v2_discover(const char *mountinfo, const char *cgfile,
	    char *base, size_t len);
const char *cgroups_mechanism(void);

/* ---- identity.c: whose host ids a sandbox has (design.md §1) ----------- */
struct sbx_identity {
	uint32_t	 mode;		/* SBX_IDENTITY_* */
	uint32_t	 uid;		/* host ids; 0 for service */
	uint32_t	 gid;
	int		 range_slot;	/* identity range: the id taken, or -1 */
};
int	 identity_decide(const struct conf_profile *, uid_t, gid_t,
	    struct sbx_identity *, char *, size_t);
void	 identity_release(struct sbx_identity *);
int	 identity_service(struct sbx_identity *, char *, size_t);
#define SBX_SANDBOX_USER	"sbx"	/* the sandbox user's name, unless
					   it is the caller's own */
const char *identity_user_name(const struct conf_profile *,
	    const struct sbx_identity *, uid_t, char *, size_t);
const char *identity_name(uint32_t);

/* ---- egress.c: network proxy sandboxes and sbx-proxy ------------------ */
void	 egress_policy(uint32_t, uid_t, const struct conf_profile *);
void	 egress_listener(uint32_t, int);
void	 egress_end(uint32_t);
void	 egress_audit(struct role *, struct imsg *);
struct ctl_conn;
void	 egress_status(struct ctl_conn *, uint32_t);
void	 egress_conn_gone(struct ctl_conn *);
void	 egress_tunnel(struct role *, struct imsg *);
void	 egress_stats(struct role *, struct imsg *);

/* ---- runspec.c: RUN requests to sandbox specs ------------------------ */
/* A run's audit line: profile, ids, and the command's path (argv[0]), of
 * any real length; longer ones end in "...", so the cut shows. */
#define RUNSPEC_WHAT_MAX	640
void	 runspec_init(void);
void	 runspec_what(char *, size_t, const char *,
	    const struct sbx_identity *, const char *);

/* ---- control.c: the agent socket (sbx-protocol(7)) ------------------- */
int	 control_open(const struct sbx_conf *, uid_t);
void	 control_listen(void);
void	 control_close(void);
void	 control_conf(struct sbx_conf *);	/* after SIGHUP */

/* ---- reply.c: how request handlers answer an agent -------------------- */
/*
 * A connection to an agent.  Its fields are control.c's (reading) and
 * reply.c's (answering, what it holds); every other file only passes it
 * on and answers through the functions below.
 */
enum ctl_state {
	CTL_NEW,		/* before HELLO */
	CTL_READY,
	CTL_CLOSING		/* final error queued; close when sent */
};

struct ctl_conn {
	TAILQ_ENTRY(ctl_conn)	 entry;
	struct imsgbuf		 ibuf;
	struct event		 ev;
	struct event		 tmo;
	short			 events;
	enum ctl_state		 state;
	int			 refused;	/* never admitted: not counted */
	int			 shut;		/* our write side is closed */
	int			 paused;	/* replies unread: not read */
	int			 doomed;	/* past the hard cap: closing */
	int			 more;		/* requests may wait buffered */
	int			 limited;	/* a limit refusal was audited */
	uint32_t		 inflight;	/* requests not yet answered */
	uint32_t		 fds;		/* descriptors held for it */
	uid_t			 uid;
	gid_t			 gid;
	pid_t			 pid;
};

struct cJSON;
void	 reply_send(struct ctl_conn *, uint32_t, uint32_t, struct cJSON *);
void	 reply_event(struct ctl_conn *, uint32_t, uint32_t, struct cJSON *);
void	 reply_send_fd(struct ctl_conn *, uint32_t, uint32_t, struct cJSON *,
	    int);
void	 reply_error(struct ctl_conn *, uint32_t, int, const char *,
	    const char *, ...) SBX_PRINTF(5, 6);
void	 reply_error_limit(struct ctl_conn *, uint32_t, const char *,
	    const char *, const char *, ...) SBX_PRINTF(5, 6);
struct cJSON *reply_object(void);
void	 reply_goodbye(const char *, ...) SBX_PRINTF(1, 2);
/* control.c's side: its reader, its configuration, its connections. */
void	 reply_init(void (*)(int, short, void *));
void	 reply_conf(const struct sbx_conf *);
void	 conn_link(struct ctl_conn *);
void	 conn_unlink(struct ctl_conn *);
struct ctl_conn *conn_first(void);
void	 conn_event_add(struct ctl_conn *);
unsigned conn_count(void);
unsigned conn_refused(void);
unsigned conn_count_uid(uid_t);
void	 conn_uid_totals(uid_t, uint32_t *, uint32_t *);
/*
 * What a connection holds, for its caps (client-requests-max,
 * client-fds-max and the peer-* totals): a request's owner holds it from
 * when it records the request until its answer; a descriptor is held
 * while the monitor keeps it for the connection (not once it went to a
 * role, or was closed).  A NULL connection (the agent left) is ignored.
 */
void	 conn_req_hold(struct ctl_conn *);
void	 conn_req_release(struct ctl_conn *);
void	 conn_fd_hold(struct ctl_conn *, unsigned);
void	 conn_fd_release(struct ctl_conn *, unsigned);

/* ---- statusreq.c: the answer to STATUS --------------------------------- */
void	 status_send(struct ctl_conn *, uint32_t, struct cJSON *);

/* closer.c: closes passed descriptors off the event loop (issue 20). */
#define CLOSER_PER_UID	16	/* held for one uid before its client goes */
void		 closer_init(void);
int		 closer_hand(int, uid_t);

/* ---- sbxtable.c: live sandboxes and the launcher's traffic ------------- */
struct cs_meta;
int	 msb_changeset_busy(uid_t, const char *);
int	 msb_changes(struct ctl_conn *, uint32_t, int, int,
	    const struct cs_meta *);
void	 msb_drop(struct ctl_conn *, uint32_t);
int	 msb_new(struct ctl_conn *, uint32_t, uid_t, gid_t, pid_t,
	    const struct sbx_identity *, const struct conf_profile *,
	    const uint8_t *, size_t, uint32_t, const char *);
void	 msb_warm_release_all(const char *);
unsigned msb_warm_count(int, uid_t, int);
void	 msb_listener(struct role *, struct imsg *);
int	 msb_fd(struct ctl_conn *, uint32_t, uint32_t, int, char *, size_t);
int	 msb_signal(struct ctl_conn *, uint32_t, int, char *, size_t);
int	 msb_resize(struct ctl_conn *, uint32_t, uint16_t, uint16_t, char *,
	    size_t);
void	 msb_conn_gone(struct ctl_conn *);
void	 msb_started(struct role *, struct imsg *);
void	 msb_exited(struct role *, struct imsg *);
unsigned msb_count(void);
unsigned msb_count_uid(uid_t);
int	 msb_owner(uint32_t, uid_t *);
void	 msb_new_runner(uint32_t, const uint8_t *, size_t, int, int,
	    uint32_t);
int	 msb_arm(uint32_t, uint32_t);
unsigned msb_pool_idle(void);
void	 msb_runner_refused(uint32_t, const char *);
uint32_t msb_limits(void);
void	 msb_limits_json(struct cJSON *, uint32_t);
struct cJSON *msb_usage_json(int, uid_t);

/* ---- selftest.c: the capability self-test (fail closed) ------------- */
void	 selftest_init(void);
void	 selftest_startup(void);
void	 selftest_request(void);
void	 selftest_result(struct role *, struct imsg *);
void	 selftest_status(struct ctl_conn *, uint32_t);
void	 selftest_conn_gone(struct ctl_conn *);
int	 selftest_ok(char *, size_t);
struct cJSON *selftest_json(void);

/* ---- runtime.c: the provider launch plan ---------------------------- */
void	 runtime_init(const char *);
int	 runtime_ok(char *, size_t);
int	 runtime_spec(uint32_t, int, uint8_t *, size_t, size_t *, char *,
	    size_t);

/* ---- rjob.c: the requests handed to the provider runner ---------------- */
enum rjob_kind {
	RJOB_LOAD,		/* provreg.c */
	RJOB_INVOKE,
	RJOB_GATES		/* gatesreq.c: evaluate and verify */
};
#define RJOB_MASK(k)	(1U << (k))
struct rjob {
	TAILQ_ENTRY(rjob)	 entry;
	uint32_t		 id;		/* the runner's job */
	enum rjob_kind		 kind;
	struct ctl_conn		*conn;		/* NULL: the agent is gone */
	uint32_t		 reqid;		/* the agent's request */
	uid_t			 uid;
	pid_t			 peerpid;
	int			 sent;		/* the runner has it */
	unsigned		 fds;		/* the agent's it holds */
	void			(*release)(struct rjob *); /* frees all */
};
void	 rjob_add(struct rjob *, enum rjob_kind, struct ctl_conn *, uint32_t,
	    uid_t, pid_t, void (*)(struct rjob *));
struct rjob *rjob_find(uint32_t, unsigned int);
struct rjob *rjob_waiting(struct ctl_conn *, uint32_t, unsigned int);
void	 rjob_free(struct rjob *);
void	 rjob_conn_gone(struct ctl_conn *);
void	 rjob_fd_hold(struct rjob *);
void	 rjob_fds_sent(struct rjob *);

/* ---- provreg.c: the registry and provider requests ------------------ */
void	 provider_allowlist_send(void);
void	 provider_allowlist_startup(void);
#define PROVIDER_STARTUP_WAIT	10	/* seconds for the allowlist verdict */
void	 provider_allowlist_ok(struct role *, struct imsg *);
void	 provider_load(struct ctl_conn *, uint32_t, uid_t, pid_t,
	    const struct cJSON *, int);
void	 provider_list(struct ctl_conn *, uint32_t, uid_t);
void	 provider_inspect(struct ctl_conn *, uint32_t, uid_t, const char *);
void	 provider_invoke(struct ctl_conn *, uint32_t, uid_t, pid_t,
	    const struct cJSON *, int);
void	 provider_output(struct ctl_conn *, uint32_t, int);
void	 provider_blob(struct role *, struct imsg *);
void	 provider_issued(struct role *, struct imsg *);
void	 provider_done(struct role *, struct imsg *);
void	 provider_spawn_stdout(struct role *, struct imsg *);
void	 provider_spawn(struct role *, struct imsg *);
void	 provider_arm(struct role *, struct imsg *);
void	 provider_pool_send(void);
struct pr_gates_lookup;
struct pr_provider;
uint32_t provider_lookup(uid_t, const struct pr_gates_lookup *,
	    struct pr_provider *, const uint8_t **, size_t *, char *, size_t);
void	 provider_unload(struct ctl_conn *, uint32_t, uid_t, pid_t,
	    const char *);
void	 provider_rechecked(struct role *, struct imsg *);
int	 provider_rechecking(void);
void	 provider_when_rechecked(void (*)(void *), void *);

/* ---- provtable.c: the registry's entries and rules (provreg.c's) ------- */
struct ptab_entry {
	TAILQ_ENTRY(ptab_entry)	 entry;
	char			 handle[PR_HANDLE_MAX];
	uid_t			 uid;
	struct pr_provider	 p;
	uint8_t			*blob;
	size_t			 bloblen;
	time_t			 used;		/* CLOCK_MONOTONIC, s */
	uint32_t		 refs;		/* runs holding its blob */
	int			 gone;		/* out of the table */
	char			 revoked[PR_MSG_MAX];	/* "" or why */
};
TAILQ_HEAD(ptab_entries, ptab_entry);
struct ptab_entries *ptab_all(void);
size_t	 ptab_count(uid_t, int);
struct ptab_entry *ptab_find(const char *, uid_t);
struct ptab_entry *ptab_same(uid_t, const struct pr_provider *);
int	 ptab_admit(uid_t, size_t, uint32_t, uint32_t, char *, size_t);
struct ptab_entry *ptab_add(uid_t, const struct pr_provider *, uint8_t *,
	    size_t, time_t);
void	 ptab_remove(struct ptab_entry *);
void	 ptab_ref(struct ptab_entry *);
void	 ptab_unref(struct ptab_entry *);
size_t	 ptab_expire(time_t, uint32_t, void (*)(const struct ptab_entry *));

/* ---- gatesreq.c: gates evaluate and verify, routed to the provider runner */
/* The last argument: 1 for GATES_VERIFY. */
void	 mgates_evaluate(struct ctl_conn *, uint32_t, uid_t, pid_t,
	    const struct cJSON *, int, int);
void	 mgates_doc(struct ctl_conn *, uint32_t, int, int);
void	 mgates_lookup(struct role *, struct imsg *);
void	 mgates_rerun(struct role *, struct imsg *);
void	 mgates_done(struct role *, struct imsg *);
uint32_t provider_pool_size(void);

/* ---- runspec.c: a RUN request and a profile make a sandbox spec ------- */
int	 runspec_build(const struct conf_profile *, const struct cJSON *, int,
	    const char *, uid_t, int64_t, uint8_t *, size_t, size_t *, char *,
	    size_t);
int	 runspec_slot(const char *);
int	 runspec_winsize(const struct cJSON *);
void	 runspec_run(struct ctl_conn *, uint32_t, uid_t, gid_t, pid_t,
	    const struct cJSON *);

/* ---- audit.c: one line per decision ---------------------------------- */
int	 audit_open(const char *path);
void	 audit(const char *event, uid_t uid, pid_t pid, const char *fmt, ...)
	    SBX_PRINTF(4, 5);
void	 audit_with(const char *event, uid_t uid, pid_t pid, struct cJSON *extra,
	    const char *fmt, ...) SBX_PRINTF(5, 6);

/* ---- privs.c: the compiled privilege tables, for -P and PRIVS -------- */
struct monitor_priv {
	const char		*name;
	const struct priv_table	*table;
};
extern const struct monitor_priv monitor_privs[];
char	*monitor_priv_text(const struct monitor_priv *);
int	 monitor_privs_print(FILE *);

/* ---- main.c ------------------------------------------------------------ */
extern struct sbx_conf	*monitor_conf;

/* changesreq.c: the changeset store and its requests (issue 23) */
struct cs_meta;
void	 changes_init(const struct sbx_conf *, int, uid_t, gid_t);
void	 changes_open(const struct sbx_conf *, int);
int	 changes_store(char *, size_t);
void	 changes_expire(const struct sbx_conf *, int64_t);
struct cs_meta;
int	 changes_finish(struct cs_meta *, pid_t, char *, size_t);
int	 changes_begin(struct ctl_conn *, uint32_t, uid_t, const char *,
	    int64_t);
void	 ctl_changes_list(struct ctl_conn *, uint32_t, struct cJSON *, int);
void	 ctl_changes_open(struct ctl_conn *, uint32_t, struct cJSON *, int);
void	 ctl_changes_discard(struct ctl_conn *, uint32_t, struct cJSON *,
	    int);
extern time_t		 monitor_started;
extern char		 monitor_user[64];
__dead void monitor_shutdown(int);

#endif /* SBX_MONITOR_H */
