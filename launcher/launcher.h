/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * launcher.h: sbx-launcher -- creating sandboxes, holding their pidfds,
 * enforcing deadlines and reporting how each one ended.
 *
 * The interface is synchronous library code so that the role's imsg
 * dispatch (and the tests) call it directly: sandbox_spawn() returns once
 * the sandbox's pid 1 (the shim) has been started; sandbox_fd() and
 * sandbox_remaining() feed an event loop, sandbox_poll() reaps.
 */
#ifndef SBX_LAUNCHER_H
#define SBX_LAUNCHER_H

#include <sys/types.h>

#include <stdint.h>

#include "common.h"
#include "proto.h"
#include "spec.h"

#define SANDBOX_UID_DEFAULT	1000	/* unprivileged id inside */
#define SANDBOX_ERRLEN		256

struct launcher_conf {
	uid_t		 sandbox_uid;	/* id inside; never 0 */
	gid_t		 sandbox_gid;
	/*
	 * Map the sandbox id to these host ids instead of the launcher's own
	 * (identity caller or range, as the monitor decided; design.md §1).
	 * Needs CAP_SETUID and CAP_SETGID; host id 0 is always refused.
	 */
	int		 map_host;
	uint32_t	 identity;	/* SBX_IDENTITY_*, for the mapper */
	uid_t		 host_uid;
	gid_t		 host_gid;
	/* cgroup v2, when cgv2 is set: the delegated directory the monitor
	 * laid out (cgroup_v2_open), which this launcher's own leaf is in. */
	int		 cgv2;
	int		 cgv2_dir;
	int		 cgv2_flags;	/* CGV2_FAKE in tests */
	char		 cgv2_path[256];	/* for messages */
	/* Otherwise cgroup v1, when cgv1 is set: this launcher's
	 * directories in the memory and pids hierarchies (cgroup_v1_open). */
	int		 cgv1;
	int		 cgv1_mem;
	int		 cgv1_pids;
	int		 cgv1_cpu;	/* v1 cpu hierarchy's, or -1 (cpus) */
	/*
	 * Called first thing in each sandbox's clone child, or NULL.  The
	 * child -- pid 1 of the sandbox -- is a copy of the launcher and
	 * holds whatever the launcher holds, such as other sandboxes' specs
	 * (their environment values); the hook wipes what it can.
	 */
	void		(*child_scrub)(void);
};

/* The payload's descriptors; -1 means /dev/null (in, out, err). */
struct sandbox_io {
	int		 in;
	int		 out;
	int		 err;
	int		 workdir;	/* directory fd, or -1 */
	int		 changes;	/* overlay: stream file, or -1 */
	int		 csbase;	/* overlay into: stored stream, or -1 */
};

/* How a sandbox ended: SANDBOX_* in proto.h (the monitor reports it). */

struct sandbox_exit {
	int		 reason;	/* SANDBOX_* */
	int		 wstatus;	/* raw wait status (EXITED/SIGNALED) */
	int		 error;		/* errno (SETUP_FAILED), else 0 */
	char		 step[SBX_STEP_MAX];	/* "bind /usr" */
	uint32_t	 limits;	/* SBX_LIMIT_* that were in force */
	uint64_t	 wall_ms;	/* the accounting of launch_exit */
	uint64_t	 user_us;
	uint64_t	 sys_us;
	uint64_t	 peak_bytes;
	int		 peak_cgroup;
	uint64_t	 tasks;		/* the shim's record: 0 unknown */
	uint64_t	 stdout_bytes;
	uint64_t	 stderr_bytes;
	int		 stdout_error;	/* errno, 0 */
	int		 stderr_error;
};

struct sandbox {
	pid_t		 pid;		/* in the launcher's pid namespace */
	int		 pidfd;
	int		 statusfd;	/* read end of the shim's records */
	int		 lifeline;	/* write end; its close kills setup */
	int		 mntns;		/* its mount namespace, or -1 */
	int		 proxyfd;	/* network proxy: where pid 1 hands
					   out its listeners, or -1 */
	int		 cgroupfd;	/* v2: our cgroup, or -1 */
	int		 cgv2_dir;	/* v2: the parent (not owned), or -1 */
	int		 cgv2_flags;
	char		 cgroup[64];	/* our cgroup's name under it */
	int		 cgv1_mem;	/* v1: the parents (not owned), */
	int		 cgv1_pids;	/* or -1 */
	uint64_t	 deadline;	/* CLOCK_MONOTONIC, ms */
	int		 cgv1_cpu;	/* v1: the cpu parent (cpus), or -1 */
	uint64_t	 started;	/* CLOCK_MONOTONIC, ms, at the clone */
	uint64_t	 cpu_time;	/* the spec's cpu-time, seconds */
	uint32_t	 limits;
	int		 timedout;
	int		 killed;
	int		 reaped;
	int		 pty;		/* pid 1 reads window sizes from the
					   lifeline (sandbox_resize) */
	int		 armfd;		/* warm: where its run's arm record
					   goes (sandbox_arm), until then;
					   else -1 */
};

/*
 * The launcher's split (split.c).  The front asks its spawner for a
 * clone and its mapper for id maps over SOCK_SEQPACKET socketpairs.
 */
struct spawn_args {
	int		 fds[SBX_SHIM_NFDS];	/* -1: leave closed */
	int		 lifeline_w;	/* the front's end (local clone only) */
	uid_t		 uid;		/* ids inside */
	gid_t		 gid;
	int		 dropgroups;
	int		 keep_suid;
	const struct sbx_spec *spec;
	void		(*scrub)(void);
};

/* front -> spawner, + the descriptors of fdmask (SCM_RIGHTS) */
struct spawn_msg {
	uint32_t	 uid;
	uint32_t	 gid;
	uint32_t	 dropgroups;
	uint32_t	 keep_suid;
	uint32_t	 fdmask;	/* bit per SBX_SHIM_FD_* sent */
	uint32_t	 cgroup;	/* sbx_spec's, which the wire omits */
	uint32_t	 cgroup_wait;
	uint32_t	 speclen;	/* serialised spec bytes that follow */
};

/* spawner -> front, + the pidfd when pid > 0 */
struct spawn_reply {
	int32_t		 pid;
	int32_t		 error;		/* errno of the clone */
	int32_t		 mntns;		/* its mount namespace follows */
};

/* front -> mapper, + the target's pidfd */
struct map_req {
	int32_t		 pid;
	uint32_t	 identity;	/* SBX_IDENTITY_* */
	uint32_t	 uid_inside;
	uint32_t	 gid_inside;
	uint32_t	 host_uid;
	uint32_t	 host_gid;
};

struct map_reply {
	int32_t		 ok;
	char		 why[SANDBOX_ERRLEN];
};

/* split.c */
void	 split_start(void);
void	 split_caps_only(uint64_t);
int	 split_spawner(void);
int	 split_mapper(void);
pid_t	 spawner_request(const struct spawn_args *, int *, int *);
int	 mapper_request(pid_t, int, uint32_t, uid_t, gid_t, uid_t, gid_t,
	    char *, size_t);
int	 idmap_policy_check(const struct idmap_policy *, uint32_t, uid_t,
	    gid_t, uid_t, gid_t, const char *, char *, size_t);

/* spawn.c */
pid_t	 spawn_clone(const struct spawn_args *, int, int *);
void	 spawn_environment_check(void);
int	 sandbox_spawn(struct sandbox *, const struct launcher_conf *,
	    const struct sbx_spec *, const struct sandbox_io *,
	    char *err, size_t errlen);
int	 sandbox_arm(struct sandbox *, const uint8_t *, size_t,
	    const int [3], uint32_t, char *, size_t);

/* idmap.c */
int	 idmap_check(const struct launcher_conf *, char *, size_t);
int	 idmap_write(pid_t, int, const struct launcher_conf *, char *, size_t);
int	 idmap_can_map(void);
int	 idmap_privileged(void);

/* listenfd.c: the proxy listeners pid 1 hands out (network proxy) */
int	 sandbox_listeners(struct sandbox *, int *fds, int *families,
	    size_t max, char *err, size_t errlen);

/* reap.c */
int	 sandbox_fd(const struct sandbox *);
uint64_t sandbox_remaining(const struct sandbox *);
void	 sandbox_set_deadline(struct sandbox *, uint32_t);
int	 sandbox_resize(struct sandbox *, uint16_t, uint16_t);
int	 sandbox_signal(struct sandbox *, int);
int	 sandbox_kill(struct sandbox *);
int	 sandbox_poll(struct sandbox *, struct sandbox_exit *);
int	 sandbox_wait(struct sandbox *, struct sandbox_exit *);
void	 sandbox_release(struct sandbox *);
int	 sandbox_exit_format(const struct sandbox_exit *, char *, size_t);

/* cgroup.c */
int	 cgroup_v2_find(const char *mountinfo, const char *cgfile, char *dir,
	    size_t);
int	 cgroup_v2_open(struct launcher_conf *, const char *dir, int flags,
	    char *, size_t);
int	 cgroup_v2_create(struct sandbox *, const struct launcher_conf *,
	    const struct sbx_spec *, char *, size_t);
void	 cgroup_kill(struct sandbox *);
void	 cgroup_v2_close(struct launcher_conf *);
int	 cgroup_v1_open(struct launcher_conf *, char *, size_t);
void	 cgroup_sweep(const struct launcher_conf *);
void	 cgroup_v1_spare(const struct launcher_conf *);
void	 cgroup_v1_spare_drop(const struct launcher_conf *);
size_t	 cgroup_v1_idle(const struct launcher_conf *);
void	 cgroup_v1_flush(const struct launcher_conf *);
int	 cgroup_v1_create(struct sandbox *, const struct launcher_conf *,
	    const struct sbx_spec *, char *, size_t);
int	 cgroup_attach(struct sandbox *, pid_t, char *, size_t);
void	 cgroup_collect(struct sandbox *, struct sandbox_exit *);
void	 cgroup_destroy(struct sandbox *);

/* selftest.c */
void	 selftest_run(const struct launcher_conf *, const struct selftest_req *,
	    struct selftest_result *);

/* nsdiag.c */
void	 nsdiag_explain(int, char *, size_t);

#endif /* SBX_LAUNCHER_H */
