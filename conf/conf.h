/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * conf.h: sbx.conf(5) -- the configuration object, its parser, the checks
 * of every value's syntax, the dump (sbx-monitor -d) and the start-up
 * resolution of names.  A library: the monitor parses and serves the
 * configuration, sbxctl reads its gate settings offline.
 */
#ifndef SBX_CONF_H
#define SBX_CONF_H

#include <sys/types.h>
#include <sys/queue.h>

#include <netinet/in.h>

#include <stdint.h>
#include <stdio.h>

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
/* Changesets (sbxctl run --overlay): kept age, upper layer size, count. */
#define CHANGESET_AGE_DEFAULT	(7 * 86400)
#define CHANGESET_AGE_MIN	60
#define CHANGESET_AGE_MAX	(366 * 86400)
#define CHANGESET_SIZE_DEFAULT	(256ULL << 20)
#define CHANGESET_SIZE_MIN	(1ULL << 20)
#define CHANGESET_SIZE_MAX	(1ULL << 40)
#define CHANGESETS_PER_PEER_DEFAULT 16

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
	int			 per_caller;	/* rw: path/<caller uid> */
	int			 optional;	/* ro: skipped when missing */
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
	int			 loopback;	/* TCP on its own loopback */
	int			 workdir_same;	/* workdir same: at its host
						   path (workdir is NULL) */
	int			 ptrace;	/* ptrace yes */
	char			*home;		/* home PATH, or NULL */
	uint32_t		 cpu_time;	/* seconds of CPU, 0: none */
	uint32_t		 cpus_milli;	/* cpus N.N * 1000, 0: none */
	uint64_t		 output;	/* bytes of stdout and stderr,
						   0: none */
	uint32_t		 warm;		/* warm N: sandboxes kept built
						   per caller, 0: none */
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
	int			 cgroup_favordynmods;	/* cgroups.c */
	int			 bundle_providers;
	char			*provider_allowlist;	/* also gates floors */
	char			*gate_packs;	/* NULL: shipped packs only */
	char			*provider_runtime;
	uint32_t		 provider_pool;
	uint32_t		 warm_idle;	/* seconds a warm sandbox waits
						   for a run */
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
	uint32_t		 providers_per_peer;	/* issued, per uid */
	uint32_t		 max_providers;		/* issued, in all */
	uint32_t		 provider_idle_timeout;	/* s; 0: never */
	char			*changeset_dir;	/* NULL: by who started */
	uint32_t		 changeset_max_age;	/* seconds */
	uint64_t		 changeset_max_size;	/* bytes, tmpfs upper */
	uint32_t		 changesets_per_peer;	/* kept, per uid */
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
int		 conf_fmt_duration(uint32_t, char *, size_t);

/*
 * resolve.c: start-up checks (names to ids, files that must exist).
 * need_user: started as root, about to become `user`; root_started: the
 * service was started as root (now or before a reload) and so runs
 * identity service sandboxes as sandbox-user.
 */
int		 conf_resolve(struct sbx_conf *, int need_user, int root_started);

/* values.c: value syntax; 0, or -1 and *why names the rule broken */
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
int		 conf_parse_cpus(const char *, uint32_t *);
int		 conf_parse_size(const char *, uint64_t min, uint64_t max,
		    uint64_t *, const char **why);
int		 conf_parse_mode(const char *, mode_t *, const char **why);
int		 conf_parse_duration(const char *, uint32_t min, uint32_t max,
		    uint32_t *, const char **why);
int		 conf_path_covers(const char *outer, const char *inner);

#endif /* SBX_CONF_H */
