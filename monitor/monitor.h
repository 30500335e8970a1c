/*
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

/* ---- configuration: conf.c, parse.c, validate.c, dump.c, resolve.c ---- */

/* SBX_SYSCONFDIR: configure --sysconfdir (config.h); /etc for packages. */
#ifndef SBX_SYSCONFDIR
#define SBX_SYSCONFDIR		"/etc"
#endif
/* SBX_ROLEDIR: the roles, relative to sbx-monitor's directory (proc.c). */
#ifndef SBX_ROLEDIR
#define SBX_ROLEDIR		"../libexec/sbx"
#endif
#define SBX_CONF_FILE		SBX_SYSCONFDIR "/sbx/sbx.conf"
#define SBX_CONF_SOCKET		"/run/sbx/sbx.sock"
#define SBX_CONF_USER		"_sbx"
#define SBX_CONF_SANDBOX_USER	"_sbxsandbox"	/* identity service */
#define SBX_CONF_ALLOWLIST	SBX_SYSCONFDIR "/sbx/providers.json"
#define SBX_CONF_RUNTIME	"/usr/bin/node"

/* Bounds of the parser: a hostile or broken file cannot make it grow. */
#define SBX_CONF_MAXFILE	(1024 * 1024)	/* bytes per file */
#define SBX_CONF_MAXDEPTH	8		/* include nesting */
#define SBX_CONF_MAXERRORS	64		/* then give up */
#define SBX_CONF_MAXTOKEN	4096		/* one value, unescaped */
#define SBX_CONF_MAXMACROS	256
#define SBX_CONF_MAXPROFILES	256
#define SBX_CONF_MAXLIST	1024		/* entries in one list */
#define SBX_CONF_NAMEMAX	64		/* profile and macro names */
#define SBX_CONF_DOMAINMAX	253		/* RFC 1035, without the dot */
/*
 * role-timeout (ms): how long a role may leave the monitor's liveness
 * probe unanswered before the monitor treats it as lost.  Generous by
 * default: the launcher's self-test and the runner's node probe are
 * synchronous and take seconds on a loaded host.
 */
#define ROLE_TIMEOUT_DEFAULT	30000
#define ROLE_TIMEOUT_MIN	100
#define ROLE_TIMEOUT_MAX	600000

/* A user or group given by number or by name. */
struct conf_id {
	int		 set;
	char		*name;		/* NULL: given as a number */
	uint32_t	 id;		/* conf_resolve() fills it for names */
};

enum conf_allow_type {
	CONF_ALLOW_UID,
	CONF_ALLOW_GID
};

struct conf_allow {
	TAILQ_ENTRY(conf_allow)	 entry;
	enum conf_allow_type	 type;
	struct conf_id		 who;
};
TAILQ_HEAD(conf_allows, conf_allow);

enum conf_mount_type {
	CONF_MOUNT_RO,
	CONF_MOUNT_RW,
	CONF_MOUNT_TMPFS
};

struct conf_mount {
	TAILQ_ENTRY(conf_mount)	 entry;
	enum conf_mount_type	 type;
	char			*path;	/* host path = sandbox path */
	uint64_t		 size;	/* tmpfs only, bytes */
	int			 noexec;	/* rw, tmpfs: no execute */
};

enum conf_identity {
	CONF_IDENTITY_CALLER,		/* the default */
	CONF_IDENTITY_SERVICE,
	CONF_IDENTITY_RANGE
};
TAILQ_HEAD(conf_mounts, conf_mount);

struct conf_env {
	TAILQ_ENTRY(conf_env)	 entry;
	char			*name;
};
TAILQ_HEAD(conf_envs, conf_env);

/*
 * "example.org", "*.example.com:443": host is lower case without the "*.";
 * a wildcard matches names strictly below host, never host itself.
 */
struct conf_domain {
	TAILQ_ENTRY(conf_domain) entry;
	char			 host[SBX_CONF_DOMAINMAX + 1];
	int			 wildcard;
	uint16_t		 port;	/* 0: any port */
};
TAILQ_HEAD(conf_domains, conf_domain);

struct conf_cidr {
	TAILQ_ENTRY(conf_cidr)	 entry;
	sa_family_t		 af;	/* AF_INET or AF_INET6 */
	union {
		struct in_addr	 v4;
		struct in6_addr	 v6;
	}			 addr;	/* host bits are zero */
	uint8_t			 prefixlen;
};
TAILQ_HEAD(conf_cidrs, conf_cidr);

enum conf_network {
	CONF_NET_NONE,
	CONF_NET_PROXY
};

struct conf_profile {
	TAILQ_ENTRY(conf_profile) entry;
	char			*name;
	enum conf_network	 network;
	struct conf_mounts	 mounts;	/* in the order given */
	char			*workdir;	/* sbxctl run -w mounts here */
	struct conf_envs	 env;		/* names passed through */
	uint32_t		 timeout;	/* seconds */
	uint64_t		 memory;	/* bytes */
	uint32_t		 pids;
	uint32_t		 nofile;
	uint64_t		 fsize;		/* bytes, RLIMIT_FSIZE */
	int			 dev_shm;
	uint64_t		 tmpfs_root;	/* bytes */
	enum conf_identity	 identity;
	int			 identity_set;	/* named in the profile */
	int			 workdir_noexec;
	struct conf_domains	 allow_domains;
	struct conf_domains	 deny_domains;
	struct conf_cidrs	 allow_cidrs;
	uint32_t		 proxy_conns;	/* client connections, live */
};
TAILQ_HEAD(conf_profiles, conf_profile);

struct sbx_conf {
	char			*socket;
	mode_t			 socket_mode;
	struct conf_id		 socket_group;	/* unset: the user's group */
	struct conf_id		 user;
	uint32_t		 user_gid;	/* conf_resolve() fills it */
	/*
	 * sandbox-user: whom identity service sandboxes run as when the
	 * service was started as root, never `user` (which owns the socket,
	 * the roles and the sandboxes' namespaces).  conf_resolve() fills
	 * the ids; 0 when not root-started or not resolved.
	 */
	struct conf_id		 sandbox_user;
	uid_t			 sandbox_user_uid;
	gid_t			 sandbox_user_gid;
	struct conf_allows	 allows;
	uint32_t		 max_sandboxes;
	uint32_t		 max_sandboxes_per_peer;
	uint32_t		 max_connections;
	uint32_t		 max_connections_per_peer;
	uint64_t		 client_queue_max;	/* bytes; 4x closes */
	uint32_t		 client_requests_max;	/* in flight */
	uint32_t		 client_fds_max;	/* held */
	uint32_t		 peer_requests_max;	/* per uid, in total */
	uint32_t		 peer_fds_max;
	char			*log_file;	/* NULL: no audit log */
	char			*cgroup_root;	/* NULL: discovered (cgroups.c) */
	int			 bundle_providers;
	char			*provider_allowlist;	/* also gates floors */
	char			*gate_packs;	/* NULL: shipped packs only */
	char			*provider_runtime;
	uint32_t		 provider_pool;
	uint32_t		 provider_timeout;	/* ms */
	uint32_t		 role_timeout;		/* ms */
	uint64_t		 provider_max_output;	/* bytes */
	uint32_t		 provider_max_records;
	uint32_t		 caller_min_uid;	/* identity caller */
	int			 uid_range_set;
	uint32_t		 uid_range_start;
	uint32_t		 uid_range_count;
	struct conf_profiles	 profiles;	/* "default" always present */
	size_t			 nprofiles;
};

/* Receives each error, already formatted as "file:line: reason". */
typedef void (*conf_errfn)(void *arg, const char *msg);

/* conf.c: allocation, defaults, the built-in profile, lookup */
struct sbx_conf	*conf_new(void);
void		 conf_free(struct sbx_conf *);
struct conf_profile *conf_profile_new(const char *name);
void		 conf_profile_free(struct conf_profile *);
void		 conf_profile_default_mounts(struct conf_profile *);
void		 conf_profile_default_env(struct conf_profile *);
const struct conf_profile *conf_profile(const struct sbx_conf *,
		    const char *name);
int		 conf_set_socket(struct sbx_conf *, const char *path,
		    const char **why);
const char	*conf_exposes(const struct sbx_conf *,
		    const struct conf_mount *);
int		 conf_uid_range_has(const struct sbx_conf *, uint32_t);

/* parse.c: NULL on error, every error reported ("file:line: reason") */
struct sbx_conf	*conf_parse(const char *path);
struct sbx_conf	*conf_parse_cb(const char *path, conf_errfn, void *arg);
int		 conf_define(const char *name_value, const char **why);

/* dump.c: the effective configuration in sbx.conf syntax (like sshd -T) */
void		 conf_dump(FILE *, const struct sbx_conf *);
int		 conf_fmt_size(uint64_t, char *, size_t);

/* resolve.c: start-up checks (names to ids, files that must exist) */
int		 conf_resolve(struct sbx_conf *, int need_user);

/* validate.c: value syntax; 0, or -1 and *why names the rule broken */
int		 conf_check_path(const char *, const char **why);
int		 conf_check_mountpath(const char *, const char **why);
int		 conf_check_socketpath(const char *, const char **why);
int		 conf_check_name(const char *, const char **why);
int		 conf_check_macroname(const char *, const char **why);
int		 conf_check_envname(const char *, const char **why);
int		 conf_check_username(const char *, const char **why);
int		 conf_parse_domain(const char *, struct conf_domain *,
		    const char **why);
int		 conf_parse_cidr(const char *, struct conf_cidr *,
		    const char **why);
int		 conf_parse_size(const char *, uint64_t min, uint64_t max,
		    uint64_t *, const char **why);
int		 conf_parse_mode(const char *, mode_t *, const char **why);
int		 conf_path_covers(const char *outer, const char *inner);

/* ---- proc.c: roles (DESIGN 1: fork+exec, fd 3, lost child) ------------- */
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
void	 cgroups_prepare(const char *root, uid_t, gid_t);
int	 cgroups_v2_setup(const char *base, uid_t, gid_t, int flags,
	    char *err, size_t errlen);
int	 cgroups_v2_discover(const char *mountinfo, const char *cgfile,
	    char *base, size_t len);
const char *cgroups_mechanism(void);

/* ---- identity.c: whose host ids a sandbox has (DESIGN 1) ------------- */
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
void	 runspec_init(void);

/* ---- control.c: the agent socket (sbx-protocol(7)) ------------------- */
struct ctl_conn;
struct cJSON;
void	 control_reply(struct ctl_conn *, uint32_t, uint32_t, struct cJSON *);
void	 control_event(struct ctl_conn *, uint32_t, uint32_t, struct cJSON *);
void	 control_error(struct ctl_conn *, uint32_t, int, const char *,
	    const char *, ...) SBX_PRINTF(5, 6);
void	 control_error_limit(struct ctl_conn *, uint32_t, const char *,
	    const char *, const char *, ...) SBX_PRINTF(5, 6);
void	 control_status_reply(struct ctl_conn *, uint32_t);
void	 control_status_send(struct ctl_conn *, uint32_t, struct cJSON *);
int	 control_open(const struct sbx_conf *, uid_t);
void	 control_listen(void);
void	 control_close(void);
void	 control_goodbye(const char *, ...) SBX_PRINTF(1, 2);
void	 control_conf(struct sbx_conf *);	/* after SIGHUP */
unsigned control_nconns(void);
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

/* closer.c: closes passed descriptors off the event loop (issue 20). */
#define CLOSER_PER_UID	16	/* held for one uid before its client goes */
void		 closer_init(void);
int		 closer_hand(int, uid_t);

/* ---- sandbox.c: live sandboxes and the launcher's traffic ------------- */
int	 msb_new(struct ctl_conn *, uint32_t, uid_t, pid_t,
	    const struct sbx_identity *, const struct conf_profile *,
	    const uint8_t *, size_t, uint32_t, const char *);
void	 msb_listener(struct role *, struct imsg *);
int	 msb_fd(struct ctl_conn *, uint32_t, uint32_t, int, char *, size_t);
int	 msb_signal(struct ctl_conn *, uint32_t, int, char *, size_t);
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
	RJOB_LOAD,		/* provider.c */
	RJOB_INVOKE,
	RJOB_GATES		/* gates.c: evaluate and verify */
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

/* ---- provider.c: the registry and provider requests ------------------ */
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
	    struct pr_provider *, const uint8_t **, size_t *);

/* ---- gates.c: gates evaluate and verify, routed to the provider runner */
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
	    uint8_t *, size_t, size_t *, char *, size_t);

/* ---- audit.c: one line per decision ---------------------------------- */
int	 audit_open(const char *path);
void	 audit(const char *event, uid_t uid, pid_t pid, const char *fmt, ...)
	    SBX_PRINTF(4, 5);

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
extern time_t		 monitor_started;
extern char		 monitor_user[64];
__dead void monitor_shutdown(int);

#endif /* SBX_MONITOR_H */
