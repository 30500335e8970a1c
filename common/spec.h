/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * spec.h: spec.c, spec_default.c, shimstatus.c -- the sandbox spec the
 * monitor sends the launcher, the shim's descriptors and the status
 * records it writes the launcher (launcher <-> shim, design.md §1).
 */
#ifndef SBX_SPEC_H
#define SBX_SPEC_H

#include <stddef.h>
#include <stdint.h>

/*
 * spec.c, spec_default.c, shimstatus.c.  The spec is what one sandbox gets: the
 * monitor serialises it onto the launcher's channel, the launcher parses
 * it back, refuses anything malformed and hands the parsed spec to the
 * shim code its clone child runs.  Strings are not owned by the struct:
 * after sbx_spec_parse() they point into the caller's wire buffer, before
 * serialisation into whatever the caller built it from.
 */
#define SBX_SPEC_MAGIC		0x53425853U	/* "SBXS" */
#define SBX_SPEC_VERSION	2
#define SBX_SPEC_WIRE_MAX	65536		/* whole serialised spec */
#define SBX_SPEC_MAXARGS	256
#define SBX_SPEC_MAXENV		128
#define SBX_SPEC_MAXMOUNTS	64
#define SBX_SPEC_STRMAX		32768		/* one string, NUL included (the
						   provider driver is an argument) */
#define SBX_SPEC_USERMAX	32		/* user: bytes, NUL excluded */
#define SBX_SPEC_ERRLEN		256		/* error buffers */
#define SBX_SPEC_UNLIMITED	UINT64_MAX	/* nofile, fsize: inherit */

#define SBX_CLASS_COMMAND	1		/* payload classes */
#define SBX_CLASS_PROVIDER	2
#define SBX_CLASS_SELFTEST	3		/* the shim's own checks run as
						   the payload, under command.priv,
						   without an exec */
#define SBX_SELFTEST_CPU_TIME	300		/* its cpu-time, seconds: the
						   payload checks its RLIMIT_CPU */

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
#define SBX_MOUNT_F_PERCALLER	0x2		/* rw bind: src's last component
						   is the caller's own directory,
						   made by the shim (mount.c) */
#define SBX_MOUNT_F_ALL		(SBX_MOUNT_F_NOEXEC | SBX_MOUNT_F_PERCALLER)

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
	int		 no_loopback;	/* 1: no TCP bind/connect, not even on
					   the sandbox's own loopback */
	const char	*user;		/* the sandbox user's name in its
					   /etc/passwd, or NULL: "sbx" */
	int		 ptrace;	/* 1: the payload filter allows ptrace
					   (command-ptrace.priv) */
	int		 workdir_same;	/* 1: workdir is NULL and the shim
					   mounts the fd's directory at its
					   own host path */
	int		 pty;		/* 1: the payload's stdio is a pty of
					   the sandbox's own devpts, pid 1
					   relays it (design.md §1) */
	uint16_t	 pty_rows;	/* its first window size; 0: none */
	uint16_t	 pty_cols;
	uint64_t	 cpu_time;	/* seconds of CPU, RLIMIT_CPU and the
					   cgroup's usage; 0: none */
	uint32_t	 cpus_milli;	/* cpus N.N times 1000 (a cgroup CPU
					   quota); 0: none */
	uint64_t	 output;	/* bytes pid 1 relays from stdout and
					   stderr before it ends the run;
					   0: none */
	int		 overlay;	/* 1: the workdir is an overlay on the
					   fd's directory (never written), its
					   upper layer a tmpfs of overlay_size
					   (sbxctl run --overlay) */
	uint64_t	 overlay_size;	/* bytes; 0 without overlay */
	int		 overlay_into;	/* 1: the upper layer starts as a
					   stored changeset's (its stream
					   on SBX_SHIM_FD_CSBASE) */
	int64_t		 overlay_t0;	/* a changeset's first run: its T0
					   (realtime_ns(0)); the payload
					   starts once the coarse clock is
					   past it.  0 otherwise */
	int		 warm;		/* 1: pid 1 builds the sandbox, then
					   waits on SBX_SHIM_FD_ARM for the
					   run it serves (shim/warm.c) */
};

void	 sbx_spec_init(struct sbx_spec *);
int	 sbx_spec_default(struct sbx_spec *);
int	 sbx_spec_add_arg(struct sbx_spec *, const char *);
int	 sbx_spec_add_env(struct sbx_spec *, const char *);
int	 sbx_spec_add_mount(struct sbx_spec *, uint32_t kind, const char *src,
	    const char *dst, uint64_t size);
int	 sbx_spec_add_mount_flags(struct sbx_spec *, uint32_t kind,
	    uint32_t flags, const char *src, const char *dst, uint64_t size);
int	 sbx_spec_user_ok(const char *);
int	 sbx_spec_check(const struct sbx_spec *, char *err, size_t errlen);
int	 sbx_spec_workdir_problem(const struct sbx_spec *, const char *path,
	    int same, char *err, size_t errlen);
int	 sbx_spec_serialise(const struct sbx_spec *, uint8_t *buf,
	    size_t buflen, size_t *lenp, char *err, size_t errlen);
int	 sbx_spec_parse(struct sbx_spec *, const uint8_t *buf, size_t len,
	    char *err, size_t errlen);
int	 sbx_spec_warm_key(const struct sbx_spec *, uint8_t *buf,
	    size_t buflen, size_t *lenp, char *err, size_t errlen);

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
#define SBX_SHIM_FD_CHANGES	7	/* overlay: the changeset stream's
					   file in the store, write-only */
#define SBX_SHIM_FD_CSBASE	8	/* overlay into: the stored stream,
					   read-only */
#define SBX_SHIM_FD_ARM		9	/* warm: a SOCK_SEQPACKET socket the
					   arm record comes on, launcher ->
					   shim (struct sbx_arm) */
#define SBX_SHIM_NFDS		10

/*
 * A warm sandbox's arm record: this header, then the run's serialised
 * spec, with the stdio descriptors of slots (bit 0-2: stdin, stdout,
 * stderr) as SCM_RIGHTS, in that order.  One datagram.
 */
struct sbx_arm {
	uint32_t	 slots;
	uint32_t	 speclen;
};

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
#define SBX_LIMIT_CPU		0x100	/* launcher -> monitor only: the
					   sandbox used its cpu-time (SIGXCPU,
					   or the cgroup's usage) */
#define SBX_LIMIT_CPUS		0x200	/* launcher -> monitor only: the cpu
					   quota throttled it (cpus) */
#define SBX_LIMIT_CHANGES	0x400	/* shim -> monitor: an overlay's
					   upper layer (changeset-max-size)
					   was full */
#define SBX_STEP_MAX		160

struct sbx_status {
	uint32_t	 type;		/* SBX_STATUS_* */
	int32_t		 error;		/* errno of the failing step */
	int32_t		 wstatus;	/* raw wait status of the payload */
	uint32_t	 limits;	/* SBX_LIMIT_* in force */
	char		 step[SBX_STEP_MAX];	/* NUL-terminated */
	/* EXIT: the rusage pid 1 collected with wait4() from every process
	 * it reaped (the payload, with the descendants it reaped itself,
	 * and the orphans pid 1 reaped) */
	uint64_t	 utime_us;
	uint64_t	 stime_us;
	uint64_t	 maxrss_kb;	/* the largest of them, not a sum */
	/* EXIT: the tasks the sandbox started (ns_last_pid - 1), 0 if
	 * unknown; the bytes pid 1 relayed from the payload's stdout (or
	 * its pty) and stderr to the caller's; the errno that ended the
	 * relay of either early (EPIPE: the caller closed it), else 0 */
	uint64_t	 tasks;
	uint64_t	 out_bytes;
	uint64_t	 err_bytes;
	int32_t		 out_error;
	int32_t		 err_error;
};

int	 sbx_status_check(const struct sbx_status *);
const char *sbx_limit_name(uint32_t);

/* shimstatus.c: an errno's name ("ENOENT"), for messages. */
const char *sbx_errname(int);

#endif /* SBX_SPEC_H */
