/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * spec.c: the sandbox spec -- building it, checking it, and its wire form
 * between sbx-monitor and sbx-launcher.
 *
 * Wire form (host byte order; both ends run on the same host):
 *
 *	u32 magic, u32 version, u32 total length, u32 reserved (0)
 *	u32 class, u32 net, u32 flags, u32 reserved (0)
 *	u64 root_size, tmp_size, timeout_ms, memory, pids, nofile, fsize
 *	u32 argc, u32 envc, u32 nmounts, u32 reserved (0)
 *	argc strings, envc strings, one workdir string (length 0: none)
 *	nmounts times: u32 kind, u32 flags, u64 size, string src,
 *	    string dst
 *	string user (the sandbox user's name; length 0: "sbx")
 *	u32 pty window size: rows << 16 | columns (0 without a pty)
 *	u64 cpu_time, u32 cpus_milli, u32 reserved (0)
 *	u64 output
 *	u64 overlay_size (0 without the overlay flag)
 *	u64 overlay_t0 (a changeset's first run only; else 0)
 *
 * A string is a u32 length followed by that many bytes; a non-empty string
 * ends in its only NUL, so the parsed spec can point into the buffer and
 * the parser allocates nothing.  The parser refuses every byte it does not
 * understand (unknown flags, non-zero reserved fields, trailing data) and
 * then runs the same semantic check the builder ran: the launcher must
 * never act on a spec the monitor would not have produced.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "spec.h"

#define SPEC_F_DEV_SHM		0x1
#define SPEC_F_WORKDIR_FD	0x2
#define SPEC_F_CGROUP		0x4
#define SPEC_F_TMP_NOEXEC	0x8
#define SPEC_F_WORKDIR_NOEXEC	0x10
#define SPEC_F_PTRACE		0x20
#define SPEC_F_WORKDIR_SAME	0x40
#define SPEC_F_PTY		0x80
#define SPEC_F_NO_LOOPBACK	0x100
#define SPEC_F_OVERLAY		0x200
#define SPEC_F_OVERLAY_INTO	0x400
#define SPEC_F_WARM		0x800
#define SPEC_F_ALL		(SPEC_F_DEV_SHM | SPEC_F_WORKDIR_FD | \
				    SPEC_F_CGROUP | SPEC_F_TMP_NOEXEC | \
				    SPEC_F_WORKDIR_NOEXEC | SPEC_F_PTRACE | \
				    SPEC_F_WORKDIR_SAME | SPEC_F_PTY | \
				    SPEC_F_NO_LOOPBACK | SPEC_F_OVERLAY | \
				    SPEC_F_OVERLAY_INTO | SPEC_F_WARM)

/* Upper bounds that keep a typo from becoming a host-wide resource sink. */
#define SPEC_SIZE_MAX		(64ULL << 30)	/* any one tmpfs */
#define SPEC_TIMEOUT_MAX	(7ULL * 24 * 3600 * 1000)
#define SPEC_PIDS_MAX		(1ULL << 22)
#define SPEC_NOFILE_MIN		8	/* below this even exec fails */
#define SPEC_NOFILE_MAX		(1ULL << 20)
#define SPEC_CPU_TIME_MAX	(7ULL * 24 * 3600)	/* seconds */
#define SPEC_CPUS_MILLI_MAX	(1024ULL * 1000)	/* 1024 cpus */
#define SPEC_OUTPUT_MAX		(1ULL << 40)

struct wbuf {
	uint8_t		*p;
	size_t		 len;
	size_t		 off;
};

struct rbuf {
	const uint8_t	*p;
	size_t		 len;
	size_t		 off;
};

static void
seterr(char *err, size_t errlen, const char *fmt, ...)
    SBX_PRINTF(3, 4);

static void
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list	 ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void
sbx_spec_init(struct sbx_spec *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->class = SBX_CLASS_COMMAND;
	sp->net = SBX_NET_NONE;
	sp->nofile = SBX_SPEC_UNLIMITED;
	sp->fsize = SBX_SPEC_UNLIMITED;
}

int
sbx_spec_add_arg(struct sbx_spec *sp, const char *arg)
{
	if (arg == NULL || sp->argc >= SBX_SPEC_MAXARGS) {
		errno = arg == NULL ? EINVAL : E2BIG;
		return -1;
	}
	sp->argv[sp->argc++] = arg;
	sp->argv[sp->argc] = NULL;
	return 0;
}

int
sbx_spec_add_env(struct sbx_spec *sp, const char *kv)
{
	if (kv == NULL || sp->envc >= SBX_SPEC_MAXENV) {
		errno = kv == NULL ? EINVAL : E2BIG;
		return -1;
	}
	sp->env[sp->envc++] = kv;
	sp->env[sp->envc] = NULL;
	return 0;
}

int
sbx_spec_add_mount(struct sbx_spec *sp, uint32_t kind, const char *src,
    const char *dst, uint64_t size)
{
	return sbx_spec_add_mount_flags(sp, kind, 0, src, dst, size);
}

int
sbx_spec_add_mount_flags(struct sbx_spec *sp, uint32_t kind, uint32_t flags,
    const char *src, const char *dst, uint64_t size)
{
	struct sbx_mount	*m;

	if (dst == NULL || sp->nmounts >= SBX_SPEC_MAXMOUNTS) {
		errno = dst == NULL ? EINVAL : E2BIG;
		return -1;
	}
	m = &sp->mounts[sp->nmounts++];
	m->kind = kind;
	m->flags = flags;
	m->src = src;
	m->dst = dst;
	m->size = size;
	return 0;
}

/* ---- semantic check ------------------------------------------------- */

/*
 * Canonical absolute paths only: the shim creates mount points by walking
 * these names component by component, so "..", "." and "//" would let a
 * spec escape the directory it names or alias another mount.
 */
static const char *
path_problem(const char *path)
{
	const char	*p, *c;
	size_t		 n;

	n = strnlen(path, SBX_SPEC_STRMAX);
	if (n >= SBX_SPEC_STRMAX)
		return "longer than the string limit";
	if (path[0] != '/')
		return "not an absolute path";
	if (n > 1 && path[n - 1] == '/')
		return "ends in '/'";
	for (p = path; *p != '\0'; p = c) {
		p++;			/* skip the '/' */
		c = strchr(p, '/');
		if (c == NULL)
			c = p + strlen(p);
		if (c == p && *c != '\0')
			return "contains an empty component ('//')";
		if ((c - p == 1 && p[0] == '.') ||
		    (c - p == 2 && p[0] == '.' && p[1] == '.'))
			return "contains a '.' or '..' component";
	}
	return NULL;
}

/* Is path equal to or beneath dir?  Both canonical. */
static int
path_within(const char *path, const char *dir)
{
	size_t	 n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

/*
 * /proc and /dev are built by the shim and must look the same in every
 * sandbox (a bind over /proc/sys or /dev/null would undo the masking); "/"
 * is the tmpfs root itself; /tmp has its own size field.
 */
static const char *
dst_problem(const char *dst)
{
	const char	*why;

	if ((why = path_problem(dst)) != NULL)
		return why;
	if (strcmp(dst, "/") == 0)
		return "is the sandbox root";
	if (path_within(dst, "/proc") || path_within(dst, "/dev"))
		return "lies in /proc or /dev, which the shim builds";
	if (strcmp(dst, "/tmp") == 0)
		return "is /tmp, which is sized by tmp_size";
	return NULL;
}

/*
 * argv[0] is the command as typed (sbxctl(1)): an absolute path, a path
 * relative to the sandbox's working directory, or a bare name the shim
 * looks up in the payload's PATH (payload.c).  None of these is a host
 * path, so the only rules are those of a string; an absolute one is
 * canonical like every other path in the spec.
 */
static int
check_argv(const struct sbx_spec *sp, char *err, size_t errlen)
{
	size_t	 i;

	if (sp->argc == 0 || sp->argc > SBX_SPEC_MAXARGS) {
		seterr(err, errlen, "argv: %zu arguments, need 1 to %d",
		    sp->argc, SBX_SPEC_MAXARGS);
		return -1;
	}
	for (i = 0; i < sp->argc; i++) {
		if (sp->argv[i] == NULL ||
		    strnlen(sp->argv[i], SBX_SPEC_STRMAX) >= SBX_SPEC_STRMAX) {
			seterr(err, errlen, "argv[%zu]: missing or longer "
			    "than %d bytes", i, SBX_SPEC_STRMAX - 1);
			return -1;
		}
	}
	if (sp->argv[0][0] == '\0') {
		seterr(err, errlen, "argv[0]: empty");
		return -1;
	}
	if (sp->argv[0][0] == '/' && path_problem(sp->argv[0]) != NULL) {
		seterr(err, errlen, "argv[0] \"%s\": %s", sp->argv[0],
		    path_problem(sp->argv[0]));
		return -1;
	}
	return 0;
}

/* Names as POSIX shells accept them; duplicates would be ambiguous. */
static int
check_env(const struct sbx_spec *sp, char *err, size_t errlen)
{
	const char	*kv, *p, *eq;
	size_t		 i, j, n;

	if (sp->envc > SBX_SPEC_MAXENV) {
		seterr(err, errlen, "env: %zu entries, limit %d", sp->envc,
		    SBX_SPEC_MAXENV);
		return -1;
	}
	for (i = 0; i < sp->envc; i++) {
		kv = sp->env[i];
		if (kv == NULL ||
		    strnlen(kv, SBX_SPEC_STRMAX) >= SBX_SPEC_STRMAX) {
			seterr(err, errlen, "env[%zu]: missing or too long",
			    i);
			return -1;
		}
		eq = strchr(kv, '=');
		if (eq == NULL || eq == kv ||
		    !((kv[0] >= 'A' && kv[0] <= 'Z') ||
		    (kv[0] >= 'a' && kv[0] <= 'z') || kv[0] == '_')) {
			seterr(err, errlen, "env[%zu] \"%.64s\": not of the "
			    "form NAME=value", i, kv);
			return -1;
		}
		for (p = kv; p < eq; p++) {
			if (!((*p >= 'A' && *p <= 'Z') ||
			    (*p >= 'a' && *p <= 'z') ||
			    (*p >= '0' && *p <= '9') || *p == '_')) {
				seterr(err, errlen, "env[%zu] \"%.64s\": "
				    "name has a character outside "
				    "[A-Za-z0-9_]", i, kv);
				return -1;
			}
		}
		n = eq - kv + 1;
		for (j = 0; j < i; j++) {
			if (strncmp(sp->env[j], kv, n) == 0) {
				seterr(err, errlen, "env[%zu] \"%.*s\": "
				    "duplicate of env[%zu]", i, (int)(n - 1),
				    kv, j);
				return -1;
			}
		}
	}
	return 0;
}

/*
 * A symlink's target: relative to the root and canonical ("usr/bin"), so
 * it resolves inside the sandbox the way the host's merged-/usr links do,
 * and never climbs out with "..".
 */
static const char *
link_problem(const char *target)
{
	char	 abs[SBX_SPEC_STRMAX + 1];
	size_t	 n;

	n = strnlen(target, SBX_SPEC_STRMAX);
	if (n == 0 || n >= SBX_SPEC_STRMAX - 1)
		return "empty or longer than the string limit";
	if (target[0] == '/')
		return "the target must be relative to the root";
	abs[0] = '/';
	memcpy(abs + 1, target, n + 1);
	return path_problem(abs);
}

/*
 * Mount layout.  A destination inside a bind would make the shim create
 * its mount point in the caller's file system (stray directories on the
 * host), so only tmpfs mounts (and /tmp) may hold other mounts.  A later
 * mount that is a parent of an earlier one would hide it.
 */
static int
check_mounts(const struct sbx_spec *sp, char *err, size_t errlen)
{
	const struct sbx_mount	*m, *o;
	const char		*why;
	size_t			 i, j;

	if (sp->nmounts > SBX_SPEC_MAXMOUNTS) {
		seterr(err, errlen, "mounts: %zu, limit %d", sp->nmounts,
		    SBX_SPEC_MAXMOUNTS);
		return -1;
	}
	for (i = 0; i < sp->nmounts; i++) {
		m = &sp->mounts[i];
		if (m->dst == NULL) {
			seterr(err, errlen, "mount %zu: no destination", i);
			return -1;
		}
		if ((why = dst_problem(m->dst)) != NULL) {
			seterr(err, errlen, "mount %zu destination \"%.200s\": "
			    "%s", i, m->dst, why);
			return -1;
		}
		switch (m->kind) {
		case SBX_MOUNT_RO:
		case SBX_MOUNT_RW:
			if (m->src == NULL ||
			    (why = path_problem(m->src)) != NULL) {
				seterr(err, errlen, "mount %zu source "
				    "\"%.200s\": %s", i,
				    m->src ? m->src : "", m->src ? why :
				    "a bind needs a source");
				return -1;
			}
			if (m->size != 0) {
				seterr(err, errlen, "mount %zu \"%.200s\": a "
				    "bind has no size", i, m->dst);
				return -1;
			}
			break;
		case SBX_MOUNT_SYMLINK:
			if (m->src == NULL ||
			    (why = link_problem(m->src)) != NULL) {
				seterr(err, errlen, "symlink %zu \"%.200s\" -> "
				    "\"%.200s\": %s", i, m->dst,
				    m->src ? m->src : "", m->src ? why :
				    "a symlink needs a target");
				return -1;
			}
			if (m->size != 0 || m->flags != 0) {
				seterr(err, errlen, "symlink %zu \"%.200s\": "
				    "a symlink has no size or flags", i,
				    m->dst);
				return -1;
			}
			if (strchr(m->dst + 1, '/') != NULL) {
				seterr(err, errlen, "symlink %zu \"%.200s\": "
				    "only a top-level name of the root may be "
				    "a symlink", i, m->dst);
				return -1;
			}
			break;
		case SBX_MOUNT_TMPFS:
			if (m->src != NULL) {
				seterr(err, errlen, "mount %zu \"%.200s\": a "
				    "tmpfs has no source", i, m->dst);
				return -1;
			}
			if (m->size == 0 || m->size > SPEC_SIZE_MAX) {
				seterr(err, errlen, "mount %zu \"%.200s\": "
				    "tmpfs size %llu outside 1..%llu", i,
				    m->dst, (unsigned long long)m->size,
				    (unsigned long long)SPEC_SIZE_MAX);
				return -1;
			}
			break;
		default:
			seterr(err, errlen, "mount %zu: unknown kind %u", i,
			    m->kind);
			return -1;
		}
		if ((m->flags & ~SBX_MOUNT_F_ALL) != 0 ||
		    ((m->flags & SBX_MOUNT_F_NOEXEC) &&
		    m->kind == SBX_MOUNT_RO) ||
		    ((m->flags & SBX_MOUNT_F_PERCALLER) &&
		    m->kind != SBX_MOUNT_RW)) {
			seterr(err, errlen, "mount %zu \"%.200s\": flags 0x%x "
			    "(noexec is for rw binds and tmpfs mounts, "
			    "per-caller for rw binds)", i, m->dst, m->flags);
			return -1;
		}
		for (j = 0; j < i; j++) {
			o = &sp->mounts[j];
			if (strcmp(o->dst, m->dst) == 0) {
				seterr(err, errlen, "mount %zu \"%.200s\": "
				    "duplicate of mount %zu", i, m->dst, j);
				return -1;
			}
			if (path_within(m->dst, o->dst) &&
			    o->kind != SBX_MOUNT_TMPFS) {
				/* A name under a symlink would be made through
				 * it, in whatever it points to. */
				seterr(err, errlen, "mount %zu \"%.200s\": "
				    "lies inside bind mount %zu \"%.200s\"",
				    i, m->dst, j, o->dst);
				return -1;
			}
			if (path_within(o->dst, m->dst)) {
				seterr(err, errlen, "mount %zu \"%.200s\": "
				    "would hide earlier mount %zu \"%.200s\"",
				    i, m->dst, j, o->dst);
				return -1;
			}
		}
	}
	return 0;
}

/*
 * The sandbox's own tree, which a workdir at its host path (workdir same)
 * must neither hide nor lie in: the root, what the shim builds (/proc,
 * /dev, /sys), /tmp itself, and /usr and /etc, whose contents the sandbox
 * takes from the profile's binds or generates.  A workdir beneath /tmp
 * lies in the sandbox's own tmpfs and hides nothing.
 */
static const char *const own_tree[] = {
	"/proc", "/dev", "/sys", "/usr", "/etc",
};

/*
 * Where the workdir may be mounted: path, checked against the spec's
 * mounts (and, for a path the shim found, the sandbox's own tree).  0, or
 * -1 with the path and the rule in err.
 */
int
sbx_spec_workdir_problem(const struct sbx_spec *sp, const char *path,
    int same, char *err, size_t errlen)
{
	const struct sbx_mount	*o;
	const char		*why;
	size_t			 i;

	if ((why = dst_problem(path)) != NULL) {
		seterr(err, errlen, "workdir \"%.200s\": %s", path, why);
		return -1;
	}
	for (i = 0; same && i < nitems(own_tree); i++) {
		if (path_within(own_tree[i], path) ||
		    path_within(path, own_tree[i])) {
			seterr(err, errlen, "workdir same \"%.200s\": would "
			    "hide or lie in the sandbox's own %s (a workdir at "
			    "its host path must be outside /, /proc, /dev, "
			    "/sys, /usr, /etc and the profile's mounts)", path,
			    own_tree[i]);
			return -1;
		}
	}
	for (i = 0; i < sp->nmounts; i++) {
		o = &sp->mounts[i];
		if (path_within(o->dst, path)) {
			seterr(err, errlen, "workdir \"%.200s\": would hide "
			    "mount %zu \"%.200s\"", path, i, o->dst);
			return -1;
		}
		if (path_within(path, o->dst) &&
		    o->kind != SBX_MOUNT_TMPFS) {
			seterr(err, errlen, "workdir \"%.200s\": lies inside "
			    "bind mount %zu \"%.200s\"", path, i,
			    o->dst);
			return -1;
		}
	}
	return 0;
}

/* The workdir is mounted last, like a read-write bind. */
static int
check_workdir(const struct sbx_spec *sp, char *err, size_t errlen)
{
	if (sp->workdir_same) {
		if (sp->workdir != NULL || !sp->workdir_fd) {
			seterr(err, errlen, "workdir same: the shim names the "
			    "mount point from the directory fd, which must be "
			    "passed, and no path may be given");
			return -1;
		}
		return 0;
	}
	if (sp->workdir == NULL) {
		if (sp->workdir_fd) {
			seterr(err, errlen, "workdir: a directory fd is "
			    "passed but no mount point is named");
			return -1;
		}
		return 0;
	}
	if (!sp->workdir_fd) {
		seterr(err, errlen, "workdir \"%.200s\": no directory fd "
		    "is passed for it", sp->workdir);
		return -1;
	}
	return sbx_spec_workdir_problem(sp, sp->workdir, 0, err, errlen);
}

static int
check_range(const char *name, uint64_t v, uint64_t lo, uint64_t hi,
    char *err, size_t errlen)
{
	if (v < lo || v > hi) {
		seterr(err, errlen, "%s %llu: outside %llu..%llu", name,
		    (unsigned long long)v, (unsigned long long)lo,
		    (unsigned long long)hi);
		return -1;
	}
	return 0;
}

/*
 * The sandbox user's name goes into its /etc/passwd and /etc/group: no
 * ':' or newline that would add a field or an entry, and the portable
 * user name set (POSIX, useradd's default rule) so every tool accepts it.
 */
int
sbx_spec_user_ok(const char *s)
{
	size_t	 i, n;

	n = strlen(s);
	if (n == 0 || n > SBX_SPEC_USERMAX || s[0] == '-' || s[0] == '.')
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

/*
 * Every limit is mandatory: a sandbox without a deadline, a memory cap or
 * a process cap lets one payload hold the host's resources indefinitely.
 */
static int
check_limits(const struct sbx_spec *sp, char *err, size_t errlen)
{
	if (check_range("root_size", sp->root_size, 1, SPEC_SIZE_MAX,
	    err, errlen) == -1 ||
	    check_range("tmp_size", sp->tmp_size, 1, SPEC_SIZE_MAX,
	    err, errlen) == -1 ||
	    check_range("timeout_ms", sp->timeout_ms, 1, SPEC_TIMEOUT_MAX,
	    err, errlen) == -1 ||
	    check_range("memory", sp->memory, 1 << 20, UINT64_MAX - 1,
	    err, errlen) == -1 ||
	    check_range("pids", sp->pids, 2, SPEC_PIDS_MAX,
	    err, errlen) == -1)
		return -1;
	if (sp->nofile != SBX_SPEC_UNLIMITED &&
	    check_range("nofile", sp->nofile, SPEC_NOFILE_MIN,
	    SPEC_NOFILE_MAX, err, errlen) == -1)
		return -1;
	/* 0: no CPU limit of either kind. */
	if (sp->cpu_time != 0 && check_range("cpu_time", sp->cpu_time, 1,
	    SPEC_CPU_TIME_MAX, err, errlen) == -1)
		return -1;
	if (sp->cpus_milli != 0 && check_range("cpus_milli", sp->cpus_milli,
	    10, SPEC_CPUS_MILLI_MAX, err, errlen) == -1)
		return -1;
	if (sp->output != 0 && check_range("output", sp->output, 1,
	    SPEC_OUTPUT_MAX, err, errlen) == -1)
		return -1;
	return 0;
}

int
sbx_spec_check(const struct sbx_spec *sp, char *err, size_t errlen)
{
	if (sp->class != SBX_CLASS_COMMAND && sp->class != SBX_CLASS_PROVIDER &&
	    sp->class != SBX_CLASS_SELFTEST) {
		seterr(err, errlen, "class %u: not command (%d), provider (%d) "
		    "or selftest (%d)", sp->class, SBX_CLASS_COMMAND,
		    SBX_CLASS_PROVIDER, SBX_CLASS_SELFTEST);
		return -1;
	}
	if (sp->net != SBX_NET_NONE && sp->net != SBX_NET_PROXY) {
		seterr(err, errlen, "net %u: not none (%d) or proxy (%d)",
		    sp->net, SBX_NET_NONE, SBX_NET_PROXY);
		return -1;
	}
	/* Only commands go through the proxy: a provider has no network. */
	if (sp->net == SBX_NET_PROXY && sp->class != SBX_CLASS_COMMAND) {
		seterr(err, errlen, "net proxy: only for commands (class %d)",
		    SBX_CLASS_COMMAND);
		return -1;
	}
	if (sp->dev_shm != 0 && sp->dev_shm != 1) {
		seterr(err, errlen, "dev_shm %d: not 0 or 1", sp->dev_shm);
		return -1;
	}
	if ((sp->tmp_noexec != 0 && sp->tmp_noexec != 1) ||
	    (sp->workdir_noexec != 0 && sp->workdir_noexec != 1)) {
		seterr(err, errlen, "tmp_noexec %d, workdir_noexec %d: not 0 "
		    "or 1", sp->tmp_noexec, sp->workdir_noexec);
		return -1;
	}
	if (sp->no_loopback != 0 && sp->no_loopback != 1) {
		seterr(err, errlen, "no_loopback %d: not 0 or 1",
		    sp->no_loopback);
		return -1;
	}
	/* An overlay needs the directory under it, and a sized upper. */
	if (sp->overlay != 0 && sp->overlay != 1) {
		seterr(err, errlen, "overlay %d: not 0 or 1", sp->overlay);
		return -1;
	}
	if ((sp->overlay_into != 0 && sp->overlay_into != 1) ||
	    (sp->overlay_into && !sp->overlay)) {
		seterr(err, errlen, "overlay_into %d: not 0, or 1 with "
		    "overlay", sp->overlay_into);
		return -1;
	}
	if (sp->overlay && !sp->workdir_fd) {
		seterr(err, errlen, "overlay: no workdir directory");
		return -1;
	}
	if (!sp->overlay && sp->overlay_size != 0) {
		seterr(err, errlen, "overlay_size %llu without overlay",
		    (unsigned long long)sp->overlay_size);
		return -1;
	}
	if (sp->overlay && check_range("overlay_size", sp->overlay_size,
	    1 << 20, SPEC_SIZE_MAX, err, errlen) == -1)
		return -1;
	/* A T0 for, and only for, a changeset's first run. */
	if (sp->overlay_t0 < 0 || (sp->overlay_t0 != 0) !=
	    (sp->overlay && !sp->overlay_into)) {
		seterr(err, errlen, "overlay_t0 %lld: a time for the first "
		    "overlay run of a changeset only",
		    (long long)sp->overlay_t0);
		return -1;
	}
	if (sp->user != NULL && sbx_spec_user_ok(sp->user) == 0) {
		seterr(err, errlen, "user \"%.40s\": not 1 to %d of "
		    "[A-Za-z0-9._-], starting with a letter, digit or _",
		    sp->user, SBX_SPEC_USERMAX);
		return -1;
	}
	if ((sp->pty != 0 && sp->pty != 1) ||
	    (sp->pty && sp->class != SBX_CLASS_COMMAND) ||
	    (!sp->pty && (sp->pty_rows != 0 || sp->pty_cols != 0))) {
		seterr(err, errlen, "pty %d (%ux%u): only 0, or 1 for a "
		    "command", sp->pty, sp->pty_rows, sp->pty_cols);
		return -1;
	}
	/*
	 * Warm: built before its run is known, so nothing of the run may
	 * shape the set-up -- no workdir descriptor, no overlay, no pty --
	 * and only a command's (a provider's pool is the runner's own).
	 */
	if ((sp->warm != 0 && sp->warm != 1) || (sp->warm &&
	    (sp->class != SBX_CLASS_COMMAND || sp->workdir_fd ||
	    sp->overlay || sp->pty))) {
		seterr(err, errlen, "warm %d: only 0, or 1 for a command "
		    "without a workdir, an overlay or a pty", sp->warm);
		return -1;
	}
	if (check_argv(sp, err, errlen) == -1 ||
	    check_env(sp, err, errlen) == -1 ||
	    check_mounts(sp, err, errlen) == -1 ||
	    check_workdir(sp, err, errlen) == -1 ||
	    check_limits(sp, err, errlen) == -1)
		return -1;
	return 0;
}

/* ---- serialisation -------------------------------------------------- */

static int
put(struct wbuf *w, const void *p, size_t n)
{
	if (n > w->len - w->off)
		return -1;
	if (n > 0)
		memcpy(w->p + w->off, p, n);
	w->off += n;
	return 0;
}

static int
put_u32(struct wbuf *w, uint32_t v)
{
	return put(w, &v, sizeof(v));
}

static int
put_u64(struct wbuf *w, uint64_t v)
{
	return put(w, &v, sizeof(v));
}

static int
put_str(struct wbuf *w, const char *s)
{
	size_t	 n;

	if (s == NULL)
		return put_u32(w, 0);
	n = strlen(s) + 1;
	if (put_u32(w, (uint32_t)n) == -1)
		return -1;
	return put(w, s, n);
}

int
sbx_spec_serialise(const struct sbx_spec *sp, uint8_t *buf, size_t buflen,
    size_t *lenp, char *err, size_t errlen)
{
	struct wbuf	 w;
	uint32_t	 flags = 0;
	size_t		 i;
	int		 r = 0;

	if (sbx_spec_check(sp, err, errlen) == -1)
		return -1;
	if (buflen > SBX_SPEC_WIRE_MAX)
		buflen = SBX_SPEC_WIRE_MAX;
	w.p = buf;
	w.len = buflen;
	w.off = 0;
	if (sp->dev_shm)
		flags |= SPEC_F_DEV_SHM;
	if (sp->workdir_fd)
		flags |= SPEC_F_WORKDIR_FD;
	if (sp->cgroup)
		flags |= SPEC_F_CGROUP;
	if (sp->tmp_noexec)
		flags |= SPEC_F_TMP_NOEXEC;
	if (sp->workdir_noexec)
		flags |= SPEC_F_WORKDIR_NOEXEC;
	if (sp->no_loopback)
		flags |= SPEC_F_NO_LOOPBACK;
	if (sp->ptrace)
		flags |= SPEC_F_PTRACE;
	if (sp->workdir_same)
		flags |= SPEC_F_WORKDIR_SAME;
	if (sp->pty)
		flags |= SPEC_F_PTY;
	if (sp->overlay)
		flags |= SPEC_F_OVERLAY;
	if (sp->overlay_into)
		flags |= SPEC_F_OVERLAY_INTO;
	if (sp->warm)
		flags |= SPEC_F_WARM;

	r |= put_u32(&w, SBX_SPEC_MAGIC);
	r |= put_u32(&w, SBX_SPEC_VERSION);
	r |= put_u32(&w, 0);		/* length, patched below */
	r |= put_u32(&w, 0);
	r |= put_u32(&w, sp->class);
	r |= put_u32(&w, sp->net);
	r |= put_u32(&w, flags);
	r |= put_u32(&w, 0);
	r |= put_u64(&w, sp->root_size);
	r |= put_u64(&w, sp->tmp_size);
	r |= put_u64(&w, sp->timeout_ms);
	r |= put_u64(&w, sp->memory);
	r |= put_u64(&w, sp->pids);
	r |= put_u64(&w, sp->nofile);
	r |= put_u64(&w, sp->fsize);
	r |= put_u32(&w, (uint32_t)sp->argc);
	r |= put_u32(&w, (uint32_t)sp->envc);
	r |= put_u32(&w, (uint32_t)sp->nmounts);
	r |= put_u32(&w, 0);
	for (i = 0; i < sp->argc; i++)
		r |= put_str(&w, sp->argv[i]);
	for (i = 0; i < sp->envc; i++)
		r |= put_str(&w, sp->env[i]);
	r |= put_str(&w, sp->workdir);
	for (i = 0; i < sp->nmounts; i++) {
		r |= put_u32(&w, sp->mounts[i].kind);
		r |= put_u32(&w, sp->mounts[i].flags);
		r |= put_u64(&w, sp->mounts[i].size);
		r |= put_str(&w, sp->mounts[i].src);
		r |= put_str(&w, sp->mounts[i].dst);
	}
	r |= put_str(&w, sp->user);
	r |= put_u32(&w, (uint32_t)sp->pty_rows << 16 | sp->pty_cols);
	r |= put_u64(&w, sp->cpu_time);
	r |= put_u32(&w, sp->cpus_milli);
	r |= put_u32(&w, 0);
	r |= put_u64(&w, sp->output);
	r |= put_u64(&w, sp->overlay_size);
	r |= put_u64(&w, (uint64_t)sp->overlay_t0);
	if (r != 0) {
		seterr(err, errlen, "spec: does not fit in %zu bytes", buflen);
		return -1;
	}
	memcpy(buf + 8, &(uint32_t){ (uint32_t)w.off }, sizeof(uint32_t));
	*lenp = w.off;
	return 0;
}

/*
 * What a warm sandbox's set-up was built from, as bytes: the spec's wire
 * form with what only the run itself reads emptied -- argv, the
 * environment but HOME (shim/etc.c writes it into /etc/passwd), the
 * output cap, the deadline -- and what the launcher sets.  A warm sandbox
 * serves a run only if their keys are the same bytes (monitor/sbxtable.c),
 * and pid 1 checks that again before it takes the run (shim/warm.c).
 */
int
sbx_spec_warm_key(const struct sbx_spec *sp, uint8_t *buf, size_t buflen,
    size_t *lenp, char *err, size_t errlen)
{
	struct sbx_spec	*k;
	size_t		 i;
	int		 rv;

	/* Large (the argv and env arrays): not on pid 1's stack twice. */
	if ((k = malloc(sizeof(*k))) == NULL) {
		seterr(err, errlen, "warm key: %s", strerror(errno));
		return -1;
	}
	*k = *sp;
	k->argc = 1;
	k->argv[0] = "-";
	k->argv[1] = NULL;
	k->envc = 0;
	for (i = 0; i < sp->envc; i++)
		if (strncmp(sp->env[i], "HOME=", 5) == 0)
			k->env[k->envc++] = sp->env[i];
	k->env[k->envc] = NULL;
	k->output = 0;
	k->timeout_ms = 1;
	k->warm = 0;
	k->cgroup = 0;
	k->cgroup_wait = 0;
	rv = sbx_spec_serialise(k, buf, buflen, lenp, err, errlen);
	free(k);
	return rv;
}

/* ---- parsing -------------------------------------------------------- */

static int
get(struct rbuf *r, void *p, size_t n)
{
	if (n > r->len - r->off)
		return -1;
	memcpy(p, r->p + r->off, n);
	r->off += n;
	return 0;
}

static int
get_u32(struct rbuf *r, uint32_t *v)
{
	return get(r, v, sizeof(*v));
}

static int
get_u64(struct rbuf *r, uint64_t *v)
{
	return get(r, v, sizeof(*v));
}

/*
 * A string must end in its only NUL: an embedded NUL would make the shim
 * act on a shorter name than the one the launcher checked.
 */
static int
get_str(struct rbuf *r, const char **sp, const char *what, size_t idx,
    char *err, size_t errlen)
{
	uint32_t	 n;
	const char	*s;

	if (get_u32(r, &n) == -1) {
		seterr(err, errlen, "%s %zu: truncated length", what, idx);
		return -1;
	}
	if (n == 0) {
		*sp = NULL;
		return 0;
	}
	if (n > SBX_SPEC_STRMAX || n > r->len - r->off) {
		seterr(err, errlen, "%s %zu: length %u exceeds %s", what, idx,
		    n, n > SBX_SPEC_STRMAX ? "the string limit" :
		    "the buffer");
		return -1;
	}
	s = (const char *)r->p + r->off;
	if (memchr(s, '\0', n) != s + n - 1) {
		seterr(err, errlen, "%s %zu: %s", what, idx,
		    s[n - 1] != '\0' ? "not NUL-terminated" :
		    "contains a NUL byte");
		return -1;
	}
	r->off += n;
	*sp = s;
	return 0;
}

static int
get_nonempty(struct rbuf *r, const char **sp, const char *what, size_t idx,
    char *err, size_t errlen)
{
	if (get_str(r, sp, what, idx, err, errlen) == -1)
		return -1;
	if (*sp == NULL) {
		seterr(err, errlen, "%s %zu: empty", what, idx);
		return -1;
	}
	return 0;
}

int
sbx_spec_parse(struct sbx_spec *sp, const uint8_t *buf, size_t len,
    char *err, size_t errlen)
{
	struct rbuf	 r;
	uint32_t	 magic, version, total, rsv[4], flags, argc, envc, nm;
	uint32_t	 kind, winsz;
	uint64_t	 t0;
	size_t		 i;

	memset(sp, 0, sizeof(*sp));
	if (len > SBX_SPEC_WIRE_MAX) {
		seterr(err, errlen, "spec: %zu bytes exceeds the limit %d",
		    len, SBX_SPEC_WIRE_MAX);
		return -1;
	}
	r.p = buf;
	r.len = len;
	r.off = 0;
	if (get_u32(&r, &magic) == -1 || get_u32(&r, &version) == -1 ||
	    get_u32(&r, &total) == -1 || get_u32(&r, &rsv[0]) == -1 ||
	    get_u32(&r, &sp->class) == -1 || get_u32(&r, &sp->net) == -1 ||
	    get_u32(&r, &flags) == -1 || get_u32(&r, &rsv[1]) == -1 ||
	    get_u64(&r, &sp->root_size) == -1 ||
	    get_u64(&r, &sp->tmp_size) == -1 ||
	    get_u64(&r, &sp->timeout_ms) == -1 ||
	    get_u64(&r, &sp->memory) == -1 || get_u64(&r, &sp->pids) == -1 ||
	    get_u64(&r, &sp->nofile) == -1 || get_u64(&r, &sp->fsize) == -1 ||
	    get_u32(&r, &argc) == -1 || get_u32(&r, &envc) == -1 ||
	    get_u32(&r, &nm) == -1 || get_u32(&r, &rsv[2]) == -1) {
		seterr(err, errlen, "spec: %zu bytes is shorter than the "
		    "fixed header", len);
		return -1;
	}
	if (magic != SBX_SPEC_MAGIC || version != SBX_SPEC_VERSION) {
		seterr(err, errlen, "spec: magic 0x%08x version %u, want "
		    "0x%08x version %d", magic, version, SBX_SPEC_MAGIC,
		    SBX_SPEC_VERSION);
		return -1;
	}
	if (total != len) {
		seterr(err, errlen, "spec: header says %u bytes, got %zu",
		    total, len);
		return -1;
	}
	if (rsv[0] != 0 || rsv[1] != 0 || rsv[2] != 0) {
		seterr(err, errlen, "spec: reserved header field not zero");
		return -1;
	}
	if ((flags & ~SPEC_F_ALL) != 0) {
		seterr(err, errlen, "spec: unknown flags 0x%x",
		    flags & ~SPEC_F_ALL);
		return -1;
	}
	sp->dev_shm = (flags & SPEC_F_DEV_SHM) != 0;
	sp->workdir_fd = (flags & SPEC_F_WORKDIR_FD) != 0;
	sp->cgroup = (flags & SPEC_F_CGROUP) != 0;
	sp->tmp_noexec = (flags & SPEC_F_TMP_NOEXEC) != 0;
	sp->workdir_noexec = (flags & SPEC_F_WORKDIR_NOEXEC) != 0;
	sp->no_loopback = (flags & SPEC_F_NO_LOOPBACK) != 0;
	sp->ptrace = (flags & SPEC_F_PTRACE) != 0;
	sp->workdir_same = (flags & SPEC_F_WORKDIR_SAME) != 0;
	sp->overlay = (flags & SPEC_F_OVERLAY) != 0;
	sp->overlay_into = (flags & SPEC_F_OVERLAY_INTO) != 0;
	sp->warm = (flags & SPEC_F_WARM) != 0;
	if (argc == 0 || argc > SBX_SPEC_MAXARGS || envc > SBX_SPEC_MAXENV ||
	    nm > SBX_SPEC_MAXMOUNTS) {
		seterr(err, errlen, "spec: counts argc %u envc %u mounts %u "
		    "outside 1..%d, 0..%d, 0..%d", argc, envc, nm,
		    SBX_SPEC_MAXARGS, SBX_SPEC_MAXENV, SBX_SPEC_MAXMOUNTS);
		return -1;
	}
	for (i = 0; i < argc; i++)
		if (get_nonempty(&r, &sp->argv[i], "argv", i, err,
		    errlen) == -1)
			return -1;
	sp->argc = argc;
	for (i = 0; i < envc; i++)
		if (get_nonempty(&r, &sp->env[i], "env", i, err,
		    errlen) == -1)
			return -1;
	sp->envc = envc;
	if (get_str(&r, &sp->workdir, "workdir", 0, err, errlen) == -1)
		return -1;
	for (i = 0; i < nm; i++) {
		if (get_u32(&r, &kind) == -1 ||
		    get_u32(&r, &sp->mounts[i].flags) == -1 ||
		    get_u64(&r, &sp->mounts[i].size) == -1) {
			seterr(err, errlen, "mount %zu: truncated", i);
			return -1;
		}
		sp->mounts[i].kind = kind;
		if (get_str(&r, &sp->mounts[i].src, "mount source", i, err,
		    errlen) == -1 ||
		    get_nonempty(&r, &sp->mounts[i].dst, "mount destination",
		    i, err, errlen) == -1)
			return -1;
	}
	sp->nmounts = nm;
	if (get_str(&r, &sp->user, "user", 0, err, errlen) == -1)
		return -1;
	if (get_u32(&r, &winsz) == -1) {
		seterr(err, errlen, "spec: no pty window size");
		return -1;
	}
	sp->pty = (flags & SPEC_F_PTY) != 0;
	sp->pty_rows = (uint16_t)(winsz >> 16);
	sp->pty_cols = (uint16_t)(winsz & 0xffff);
	if (get_u64(&r, &sp->cpu_time) == -1 ||
	    get_u32(&r, &sp->cpus_milli) == -1 ||
	    get_u32(&r, &rsv[3]) == -1) {
		seterr(err, errlen, "spec: cpu limits: truncated");
		return -1;
	}
	if (rsv[3] != 0) {
		seterr(err, errlen, "spec: reserved cpu field not zero");
		return -1;
	}
	if (get_u64(&r, &sp->output) == -1) {
		seterr(err, errlen, "spec: output limit: truncated");
		return -1;
	}
	if (get_u64(&r, &sp->overlay_size) == -1) {
		seterr(err, errlen, "spec: overlay size: truncated");
		return -1;
	}
	if (get_u64(&r, &t0) == -1) {
		seterr(err, errlen, "spec: overlay t0: truncated");
		return -1;
	}
	if (t0 > INT64_MAX) {
		seterr(err, errlen, "spec: overlay t0 %llu: out of range",
		    (unsigned long long)t0);
		return -1;
	}
	sp->overlay_t0 = (int64_t)t0;
	if (r.off != r.len) {
		seterr(err, errlen, "spec: %zu trailing bytes", r.len - r.off);
		return -1;
	}
	return sbx_spec_check(sp, err, errlen);
}
