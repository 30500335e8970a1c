/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * shim.h: the shim, pid 1 of every sandbox: the launcher's clone child
 * (launcher/spawn.c) calls shim_main().  It builds the sandbox from the
 * spec in a fixed order (shim.c), then runs the payload as its child and
 * reports how it ended.  Every setup step either succeeds or ends the
 * shim with a "step: errno" record to the launcher; nothing is skipped.
 */
#ifndef SBX_SHIM_H
#define SBX_SHIM_H

#include <signal.h>
#include <stdint.h>

#include "common.h"
#include "spec.h"

/* Where the new root is assembled before pivot_root: a directory every
 * host has, covered by the root tmpfs in the sandbox's mount namespace
 * only, after every host path the spec names has been opened. */
#define SHIM_STAGE		"/tmp"
#define SHIM_HOSTNAME		"sbx"
#define SHIM_USER		"sbx"	/* /etc/passwd, unless the spec names
					   the caller */
#define SHIM_EXIT_SETUP		125	/* exit code after a setup record */

/* shim.c: never returns; the sandbox ends when pid 1 exits. */
__dead void shim_main(const struct sbx_spec *);

/* status.c */
__dead void shim_fail(int, const char *, ...) SBX_PRINTF(2, 3);
/* What pid 1 collected from the processes it reaped (wait4). */
struct shim_usage {
	uint64_t	 utime_us;
	uint64_t	 stime_us;
	uint64_t	 maxrss_kb;
	uint64_t	 tasks;		/* relay.c, at the report */
	uint64_t	 out_bytes;	/* relayed to the caller's stdout */
	uint64_t	 err_bytes;
	int		 out_error;	/* errno that ended a relay, 0 */
	int		 err_error;
};
void	 shim_report_exit(int, uint32_t, const struct shim_usage *);
struct rusage;
void	 shim_usage_add(struct shim_usage *, const struct rusage *);
void	 shim_forward(pid_t, int);
int	 shim_reap(pid_t, struct shim_usage *, int *);
__dead void shim_end(int, uint32_t, const struct shim_usage *);

/* overlay.c: sbxctl run --overlay's workdir */
struct stat;
int	 shim_overlay(int, const struct sbx_spec *, const struct stat *);
int	 shim_overlay_upper(void);
void	 shim_overlay_bury(const char *);
void	 shim_cs_writer_start(const struct sbx_spec *);
int	 shim_cs_writer_reaped(pid_t);
int	 shim_cs_writer_tasks(void);
uint32_t shim_cs_writer_finish(void);
void	 shim_cs_t0_wait(const struct sbx_spec *);

/* cswalk.c: the upper layer's changes as a changeset stream */
long long shim_cs_walk(int upper, int lower, int out, char *err,
	    size_t errlen);
int	 shim_cs_rebuild(int upper, int lower, int in, char *err,
	    size_t errlen);

/* mount.c */
void	 shim_mounts(const struct sbx_spec *);
const char *shim_workdir(const struct sbx_spec *);

/* etc.c: /etc/passwd, group, hosts, nsswitch.conf in the stage */
void	 shim_etc(const struct sbx_spec *);

/* cgroupfs.c: the sandbox's cgroups at /sys/fs/cgroup */
void	 shim_cgroup_plan(const struct sbx_spec *);
void	 shim_cgroup_mount(void);
int	 shim_cgroup_layout(const char *, char *, size_t);

/* net.c */
void	 shim_net(const struct sbx_spec *);

/* capdrop.c */
void	 shim_drop_caps(void);

/* landlock.c */
void	 shim_landlock(const struct sbx_spec *);

/* limits.c */
uint32_t shim_limits(const struct sbx_spec *);
int	 shim_limits_payload(const struct sbx_spec *);

/* warm.c: a warm sandbox's wait for its run; the run's spec */
const struct sbx_spec *shim_warm(const struct sbx_spec *);

/* payload.c */
__dead void shim_run(const struct sbx_spec *, uint32_t);
int	 shim_reset_signals(void);

/* stdrelay.c: tasks started; stdout and stderr relayed without a pty */
void	 shim_tasks_open(void);
void	 shim_relay_pipes(void);
int	 shim_relay_child(void);
void	 shim_relay_parent(const sigset_t *);
int	 shim_relay_setup(int, int, const sigset_t *);
__dead void shim_relay_loop(pid_t, uint32_t);
void	 shim_usage_relay(struct shim_usage *);
int	 shim_write_all(int, const char *, size_t);
void	 shim_output_init(uint64_t, pid_t);
size_t	 shim_output_take(size_t);
uint32_t shim_relay_limits(void);

/* pty.c */
void	 shim_pty_open(const struct sbx_spec *);
int	 shim_pty_child(void);
void	 shim_pty_parent(const sigset_t *);
__dead void shim_pty_relay(pid_t, uint32_t);

/* filter.c: shim_filters_init compiles once, in the launcher, before
 * the first sandbox; the other two load what it compiled. */
int	 shim_filters_init(char *err, size_t errlen);
int	 shim_payload_filter(int, int);
void	 shim_reaper_filter(void);

/* selftest.c */
int	 shim_selftest(int, char *[]);

#endif /* SBX_SHIM_H */
