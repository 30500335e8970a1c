/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * runspec.c: what a RUN request becomes -- the sandbox spec built from the
 * operator's profile and the agent's request.  The profile decides every
 * path, limit and the environment pass-list; the agent chooses only the
 * command, which of the listed variables to pass (with their values), a
 * shorter timeout, and whether a working directory comes with it.  So an
 * agent cannot widen what the operator configured.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "clock.h"
#include "spec.h"
#include "libsbx/sbx.h"
#include "monitor.h"

/*
 * Merged /usr: the host's top-level names that are symlinks into /usr
 * ("/bin" -> "usr/bin"), read once at start-up, before the monitor's
 * filter, since the host layout does not change under a running service.
 * A profile that binds /usr gets the same links in its sandboxes, the way
 * the reference launch plan does it, so that /lib64's ELF interpreter and
 * #!/bin/sh lines resolve without binding those directories too.
 */
static const char *const usr_names[] = {
	"bin", "sbin", "lib", "lib32", "lib64", "libx32",
};
static char	 usr_links[nitems(usr_names)][32];	/* "usr/bin", or "" */
static char	 usr_dsts[nitems(usr_names)][16];	/* "/bin" */

void
runspec_init(void)
{
	char		 path[16], target[PATH_MAX];
	const char	*t;
	struct stat	 st;
	ssize_t		 n;
	size_t		 i;

	for (i = 0; i < nitems(usr_names); i++) {
		usr_links[i][0] = '\0';
		snprintf(path, sizeof(path), "/%s", usr_names[i]);
		strlcpy(usr_dsts[i], path, sizeof(usr_dsts[i]));
		if (lstat(path, &st) == -1 || !S_ISLNK(st.st_mode))
			continue;
		if ((n = readlink(path, target, sizeof(target) - 1)) == -1)
			continue;
		target[n] = '\0';
		t = target[0] == '/' ? target + 1 : target;
		/* Only a link to usr/<the same name>: anything else is the
		 * host's own arrangement, which a profile binds if it wants. */
		if (strncmp(t, "usr/", 4) != 0 ||
		    strcmp(t + 4, usr_names[i]) != 0)
			continue;
		strlcpy(usr_links[i], t, sizeof(usr_links[i]));
	}
}

/* Does the profile bind or mount anything at or beneath path? */
static int
profile_uses(const struct conf_profile *prof, const char *path)
{
	const struct conf_mount	*m;

	TAILQ_FOREACH(m, &prof->mounts, entry)
		if (conf_path_covers(path, m->path) ||
		    conf_path_covers(m->path, path))
			return 1;
	return prof->workdir != NULL && (conf_path_covers(path,
	    prof->workdir) || conf_path_covers(prof->workdir, path));
}

static int
add_usr_links(const struct conf_profile *prof, struct sbx_spec *spec,
    char *err, size_t errlen)
{
	const struct conf_mount	*m;
	size_t			 i;
	int			 usr = 0;

	TAILQ_FOREACH(m, &prof->mounts, entry)
		if (m->type != CONF_MOUNT_TMPFS && strcmp(m->path, "/usr") == 0)
			usr = 1;
	if (!usr)
		return 0;
	for (i = 0; i < nitems(usr_names); i++) {
		if (usr_links[i][0] == '\0' ||
		    profile_uses(prof, usr_dsts[i]))
			continue;
		if (sbx_spec_add_mount(spec, SBX_MOUNT_SYMLINK, usr_links[i],
		    usr_dsts[i], 0) == -1) {
			snprintf(err, errlen, "profile \"%s\": more than %d "
			    "mounts with the merged-/usr links", prof->name,
			    SBX_SPEC_MAXMOUNTS);
			return -1;
		}
	}
	return 0;
}

/*
 * network proxy: the payload finds the proxy through the usual variables,
 * whatever its pass-list says, and has no NO_PROXY exception (everything
 * goes through the proxy; there is no other route anyway).
 */
static const char *const proxy_env[] = {
	"HTTP_PROXY=http://127.0.0.1:3128",
	"HTTPS_PROXY=http://127.0.0.1:3128",
	"http_proxy=http://127.0.0.1:3128",
	"https_proxy=http://127.0.0.1:3128",
	"ALL_PROXY=http://127.0.0.1:3128",
	"all_proxy=http://127.0.0.1:3128",
	"NO_PROXY=",
	"no_proxy=",
};

static int
proxy_var(const char *name)
{
	size_t	 i, n = strlen(name);

	for (i = 0; i < nitems(proxy_env); i++)
		if (strncmp(proxy_env[i], name, n) == 0 &&
		    proxy_env[i][n] == '=')
			return 1;
	return 0;
}

static int
add_proxy_env(struct sbx_spec *spec, char *err, size_t errlen)
{
	size_t	 i;

	for (i = 0; i < nitems(proxy_env); i++)
		if (sbx_spec_add_env(spec, proxy_env[i]) == -1) {
			snprintf(err, errlen, "env: no room for the proxy's "
			    "variables");
			return -1;
		}
	return 0;
}

/*
 * What every program expects even when the caller passed nothing: PATH,
 * systemd's default for services without the sbin directories (a
 * sandbox administers nothing), and HOME when the profile names one.
 * Nothing else of the caller's environment.
 */
#define RUNSPEC_PATH	"PATH=/usr/local/bin:/usr/bin:/bin"

static int
env_has(const struct sbx_spec *spec, const char *name)
{
	size_t	 i, n = strlen(name);

	for (i = 0; i < spec->envc; i++)
		if (strncmp(spec->env[i], name, n) == 0 &&
		    spec->env[i][n] == '=')
			return 1;
	return 0;
}

static int
add_default_env(const struct conf_profile *prof, struct sbx_spec *spec,
    char *err, size_t errlen)
{
	static char	 home[5 + PATH_MAX];

	if (!env_has(spec, "PATH") &&
	    sbx_spec_add_env(spec, RUNSPEC_PATH) == -1)
		goto full;
	if (prof->home != NULL && !env_has(spec, "HOME")) {
		/* The spec points into it until it is serialised. */
		snprintf(home, sizeof(home), "HOME=%s", prof->home);
		if (sbx_spec_add_env(spec, home) == -1)
			goto full;
	}
	return 0;
 full:
	snprintf(err, errlen, "env: no room for PATH and HOME");
	return -1;
}

static int
env_listed(const struct conf_profile *prof, const char *name)
{
	const struct conf_env	*e;

	TAILQ_FOREACH(e, &prof->env, entry)
		if (strcmp(e->name, name) == 0)
			return 1;
	return 0;
}

/*
 * Build and serialise the spec.  req has passed the RUN schema (types are
 * right); the values are checked here.  0, or -1 with the reason in err
 * (a bad-request the agent can act on).
 */
/* 1 if j is a window dimension: a whole number in 1..65535. */
int
runspec_winsize(const cJSON *j)
{
	return cJSON_IsNumber(j) && j->valuedouble >= 1 &&
	    j->valuedouble <= 65535 &&
	    j->valuedouble == (double)(long)j->valuedouble;
}

/* "pty": true, with "rows" and "cols" (both or neither), only with it. */
static int
add_pty(struct sbx_spec *sp, const cJSON *req, char *err, size_t errlen)
{
	const cJSON	*pty, *rw, *cl;

	pty = cJSON_GetObjectItemCaseSensitive(req, "pty");
	rw = cJSON_GetObjectItemCaseSensitive(req, "rows");
	cl = cJSON_GetObjectItemCaseSensitive(req, "cols");
	if (!cJSON_IsTrue(pty)) {
		if (rw != NULL || cl != NULL) {
			snprintf(err, errlen, "rows and cols: only with "
			    "\"pty\": true");
			return -1;
		}
		return 0;
	}
	if ((rw == NULL) != (cl == NULL) || (rw != NULL &&
	    (!runspec_winsize(rw) || !runspec_winsize(cl)))) {
		snprintf(err, errlen, "pty: rows and cols come together, "
		    "whole numbers in 1..65535");
		return -1;
	}
	sp->pty = 1;
	if (rw != NULL) {
		sp->pty_rows = (uint16_t)rw->valuedouble;
		sp->pty_cols = (uint16_t)cl->valuedouble;
	}
	return 0;
}

int
runspec_build(const struct conf_profile *prof, const cJSON *req,
    int workdir, const char *user, uid_t caller, int64_t t0, uint8_t *buf,
    size_t buflen, size_t *len, char *err, size_t errlen)
{
	struct sbx_spec		 spec;
	struct stat		 st;
	const struct conf_mount	*m;
	const cJSON		*argv, *a, *env, *e, *tmo;
	const char		*path;
	char			*pairs[SBX_SPEC_MAXENV + SBX_SPEC_MAXMOUNTS];
	size_t			 npairs = 0, i;
	uint32_t		 flags;
	uint64_t		 timeout;
	int			 rv = -1;

	sbx_spec_init(&spec);
	spec.class = SBX_CLASS_COMMAND;
	spec.net = prof->network == CONF_NET_PROXY ? SBX_NET_PROXY :
	    SBX_NET_NONE;

	argv = cJSON_GetObjectItemCaseSensitive(req, "argv");
	if (cJSON_GetArraySize(argv) < 1) {
		snprintf(err, errlen, "argv: at least the command is needed");
		return -1;
	}
	cJSON_ArrayForEach(a, argv) {
		if (!cJSON_IsString(a)) {
			snprintf(err, errlen, "argv: every element must be a "
			    "string");
			return -1;
		}
		if (sbx_spec_add_arg(&spec, a->valuestring) == -1) {
			snprintf(err, errlen, "argv: more than %d arguments, "
			    "or one longer than %d bytes", SBX_SPEC_MAXARGS,
			    SBX_SPEC_STRMAX - 1);
			return -1;
		}
	}
	/* argv[0] as typed: the shim resolves a relative path or a bare
	 * name inside the sandbox (shim/payload.c), never on the host. */

	if ((env = cJSON_GetObjectItemCaseSensitive(req, "env")) != NULL) {
		cJSON_ArrayForEach(e, env) {
			if (!cJSON_IsString(e)) {
				snprintf(err, errlen, "env \"%.64s\": the "
				    "value must be a string", e->string);
				goto out;
			}
			/* The proxy's variables are the sandbox's own. */
			if (spec.net == SBX_NET_PROXY &&
			    proxy_var(e->string))
				continue;
			if (!env_listed(prof, e->string)) {
				snprintf(err, errlen, "env \"%.64s\" is not in "
				    "profile \"%s\"'s pass-list", e->string,
				    prof->name);
				goto out;
			}
			if (npairs == nitems(pairs)) {
				snprintf(err, errlen, "env: more than %zu "
				    "variables", nitems(pairs));
				goto out;
			}
			xasprintf(&pairs[npairs], "%s=%s", e->string,
			    e->valuestring);
			if (sbx_spec_add_env(&spec, pairs[npairs++]) == -1) {
				snprintf(err, errlen, "env \"%.64s\": value "
				    "too long", e->string);
				goto out;
			}
		}
	}

	if (spec.net == SBX_NET_PROXY && add_proxy_env(&spec, err,
	    errlen) == -1)
		goto out;
	if (add_default_env(prof, &spec, err, errlen) == -1)
		goto out;
	timeout = (uint64_t)prof->timeout * 1000;
	if ((tmo = cJSON_GetObjectItemCaseSensitive(req, "timeout")) != NULL) {
		if (tmo->valuedouble <= 0 ||
		    tmo->valuedouble > prof->timeout) {
			snprintf(err, errlen, "timeout %g s: must be above 0 "
			    "and at most profile \"%s\"'s %u s",
			    tmo->valuedouble, prof->name, prof->timeout);
			goto out;
		}
		timeout = (uint64_t)(tmo->valuedouble * 1000);
		if (timeout == 0)
			timeout = 1;
	}
	spec.timeout_ms = timeout;
	spec.memory = prof->memory;
	spec.pids = prof->pids;
	spec.nofile = prof->nofile;
	spec.fsize = prof->fsize;
	spec.cpu_time = prof->cpu_time;
	spec.cpus_milli = prof->cpus_milli;
	spec.output = prof->output;
	spec.root_size = prof->tmpfs_root;
	spec.dev_shm = prof->dev_shm;
	spec.no_loopback = !prof->loopback;
	spec.user = user;
	spec.tmp_size = 64ULL << 20;
	TAILQ_FOREACH(m, &prof->mounts, entry) {
		uint32_t	 kind;

		if (m->type == CONF_MOUNT_TMPFS && strcmp(m->path, "/tmp") == 0) {
			spec.tmp_size = m->size;
			spec.tmp_noexec = m->noexec;
			continue;
		}
		kind = m->type == CONF_MOUNT_RO ? SBX_MOUNT_RO :
		    m->type == CONF_MOUNT_RW ? SBX_MOUNT_RW : SBX_MOUNT_TMPFS;
		/* ro PATH optional: left out while the host has no PATH. */
		if (m->optional && lstat(m->path, &st) == -1)
			continue;
		path = m->path;
		flags = m->noexec ? SBX_MOUNT_F_NOEXEC : 0;
		if (m->per_caller) {
			/* PATH/<uid>, at the same place inside; the shim
			 * makes it as the sandbox's own user. */
			if (npairs == nitems(pairs)) {
				snprintf(err, errlen, "profile \"%s\": too "
				    "many per-caller mounts", prof->name);
				goto out;
			}
			xasprintf(&pairs[npairs], "%s/%u", m->path,
			    (unsigned)caller);
			path = pairs[npairs++];
			flags |= SBX_MOUNT_F_PERCALLER;
		}
		if (sbx_spec_add_mount_flags(&spec, kind, flags,
		    kind == SBX_MOUNT_TMPFS ? NULL : path, path,
		    m->size) == -1) {
			snprintf(err, errlen, "profile \"%s\": more than %d "
			    "mounts", prof->name, SBX_SPEC_MAXMOUNTS);
			goto out;
		}
	}
	if (add_usr_links(prof, &spec, err, errlen) == -1)
		goto out;
	if (workdir) {
		if (prof->workdir == NULL && !prof->workdir_same) {
			snprintf(err, errlen, "profile \"%s\" has no workdir",
			    prof->name);
			goto out;
		}
		/* workdir same: the shim mounts the directory at the path
		 * it resolves from the descriptor itself (shim/mount.c),
		 * never at one the agent names. */
		spec.workdir = prof->workdir;
		spec.workdir_same = prof->workdir_same;
		spec.workdir_fd = 1;
		spec.workdir_noexec = prof->workdir_noexec;
	}
	/* --overlay: the workdir is the lower layer, never written; the
	 * upper layer is a tmpfs of changeset-max-size (shim/mount.c). */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "overlay")) ||
	    cJSON_GetObjectItemCaseSensitive(req, "overlay_into") != NULL) {
		if (!workdir) {
			snprintf(err, errlen, "overlay: needs a workdir "
			    "(-w DIR)");
			goto out;
		}
		spec.overlay = 1;
		spec.overlay_into = cJSON_GetObjectItemCaseSensitive(req,
		    "overlay_into") != NULL;
		spec.overlay_size = monitor_conf->changeset_max_size;
		if (!spec.overlay_into)
			spec.overlay_t0 = t0;
	}
	spec.ptrace = prof->ptrace;
	if (add_pty(&spec, req, err, errlen) == -1)
		goto out;
	if (sbx_spec_check(&spec, err, errlen) == -1 ||
	    sbx_spec_serialise(&spec, buf, buflen, len, err, errlen) == -1)
		goto out;
	rv = 0;
 out:
	for (i = 0; i < npairs; i++)
		free(pairs[i]);
	return rv;
}

static const char *const slot_names[LAUNCH_SLOT_CHANGES] = {
	"stdin", "stdout", "stderr", "workdir"
};

/* A descriptor slot's number by its name in RUN's "fds" and FD. */
int
runspec_slot(const char *name)
{
	int	 i;

	for (i = 0; i < LAUNCH_SLOT_CHANGES; i++)
		if (strcmp(slot_names[i], name) == 0)
			return i;
	return -1;
}

/*
 * An overlay run's T0: the agent's own (t0_us, when it asked) if that
 * lies within the last second, else now, when the request came.  Both
 * are correct: what matters is that T0 is not after the payload starts
 * (it waits for the file clock to pass T0, shim/overlay.c).  The agent's
 * is earlier, so the set-up has more often outlasted that wait by the
 * time the payload would start.  An earlier T0 only makes more host
 * changes conflicts, for the agent's own apply; one from before the last
 * second is a request that waited somewhere, and now serves it as well.
 * -1 with err set: not a whole number of microseconds.
 */
static int
run_t0(const cJSON *req, int64_t now, int64_t *t0, char *err, size_t errlen)
{
	const cJSON	*j;
	double		 us;

	*t0 = now;
	if ((j = cJSON_GetObjectItemCaseSensitive(req, "t0_us")) == NULL)
		return 0;
	us = j->valuedouble;
	/* Below 2^53: exact in a double, and no overflow in ns. */
	if (!(us >= 0 && us < 9007199254740992.0) ||
	    us != (double)(int64_t)us) {
		snprintf(err, errlen, "t0_us: not a whole number of "
		    "microseconds since the epoch");
		return -1;
	}
	if ((int64_t)us * 1000 <= now &&
	    (int64_t)us * 1000 >= now - 1000000000LL)
		*t0 = (int64_t)us * 1000;
	return 0;
}

/* A run's line in the audit log: its profile, the host ids it runs as
 * (unless the service's own), its command.  A line cut to len ends in
 * "...": an operator must not read a cut path as another command. */
void
runspec_what(char *buf, size_t len, const char *prof,
    const struct sbx_identity *id, const char *argv0)
{
	int	n;

	if (id->mode == SBX_IDENTITY_SERVICE && id->uid == 0)
		n = snprintf(buf, len, "profile %s: %s", prof, argv0);
	else
		n = snprintf(buf, len, "profile %s as %s %u:%u: %s", prof,
		    identity_name(id->mode), id->uid, id->gid, argv0);
	if (n >= 0 && (size_t)n >= len && len > 3)
		memcpy(buf + len - 4, "...", 4);
}

/*
 * RUN: checked against the self-test, the profile and the identity,
 * then handed to the sandbox table (msb_new) with the request's spec.
 */
void
runspec_run(struct ctl_conn *c, uint32_t id, uid_t uid, gid_t gid,
    pid_t pid, const cJSON *req)
{
	static uint8_t			 spec[SBX_SPEC_WIRE_MAX];
	const struct conf_profile	*prof;
	struct sbx_identity		 ident;
	const cJSON			*p, *fds, *f, *argv0;
	const char			*pname = "default";
	char				 err[SBX_SPEC_ERRLEN];
	char				 user[SBX_SPEC_USERMAX + 1];
	uint32_t			 mask = 0;
	size_t				 len;
	int64_t				 t0;
	int				 slot;

	/* Fail closed: no sandbox unless the self-test passed. */
	if (!selftest_ok(err, sizeof(err))) {
		reply_error(c, id, 0, SBX_E_UNAVAILABLE, "run: %s", err);
		return;
	}
	if ((p = cJSON_GetObjectItemCaseSensitive(req, "profile")) != NULL)
		pname = p->valuestring;
	if ((prof = conf_profile(monitor_conf, pname)) == NULL) {
		reply_error(c, id, 0, SBX_E_NOT_FOUND, "run: no profile "
		    "\"%.64s\" in sbx.conf", pname);
		return;
	}
	fds = cJSON_GetObjectItemCaseSensitive(req, "fds");
	cJSON_ArrayForEach(f, fds) {
		if (!cJSON_IsString(f) ||
		    (slot = runspec_slot(f->valuestring)) == -1 ||
		    (mask & (1U << slot))) {
			reply_error(c, id, 0, SBX_E_BAD_REQUEST, "run: fds "
			    "lists stdin, stdout, stderr or workdir, each at "
			    "most once");
			return;
		}
		mask |= 1U << slot;
	}
	/* pid 1 relays the pty to the caller's stdin and stdout. */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "pty")) &&
	    (mask & 3) != 3) {
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "run: a pty needs "
		    "stdin and stdout in fds");
		return;
	}
	/*
	 * Decided first: the sandbox's /etc/passwd names its user.
	 * per-caller directories are named for the peer when sandboxes run
	 * as their callers' ids; a service started as a user runs them all
	 * as itself, so there is one: its own.
	 */
	if (identity_decide(prof, uid, gid, &ident, err,
	    sizeof(err)) == -1) {
		reply_error(c, id, 0, SBX_E_REFUSED, "run: %s", err);
		return;
	}
	/*
	 * A changeset's T0, as early as the request allows: the payload
	 * waits until the file clock has passed it (shim/overlay.c), and
	 * the later it is read the likelier that wait.
	 */
	if ((t0 = realtime_ns(0)) == -1)
		fatal("clock_gettime CLOCK_REALTIME");
	if (run_t0(req, t0, &t0, err, sizeof(err)) == -1) {
		identity_release(&ident);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "run: %s", err);
		return;
	}
	if (runspec_build(prof, req, (mask >> LAUNCH_SLOT_WORKDIR) & 1,
	    identity_user_name(prof, &ident, uid, user, sizeof(user)),
	    caps_granted() ? uid : getuid(), t0, spec, sizeof(spec), &len,
	    err, sizeof(err)) == -1) {
		identity_release(&ident);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "run: %s", err);
		return;
	}
	argv0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(req,
	    "argv"), 0);
	if (msb_new(c, id, uid, gid, pid, &ident, prof, spec, len, mask,
	    argv0->valuestring) == -1) {
		identity_release(&ident);
		return;
	}
	/* --overlay: a changeset for the caller (changesreq.c). */
	if ((cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "overlay")) ||
	    cJSON_GetObjectItemCaseSensitive(req, "overlay_into") != NULL) &&
	    changes_begin(c, id, uid, cJSON_GetStringValue(
	    cJSON_GetObjectItemCaseSensitive(req, "overlay_into")), t0) == -1)
		msb_drop(c, id);
}
