/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * resolve.c: the start-up half of configuration checking.  `sbx-monitor -n`
 * checks a file for what it says; these checks depend on the machine it
 * runs on (the user database, files that must exist), so they run when the
 * service starts or reloads, and their failure refuses the configuration
 * the same way.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "conf.h"

/*
 * ptrace yes: the payload may trace its own processes under seccomp.
 * Before Linux 4.8 a tracer could change a tracee's system call after
 * the filter had checked it (the seccomp bypass fixed in 4.8, the floor
 * Docker uses for allowing ptrace), so such a kernel refuses the keyword.
 */
static int
ptrace_kernel_ok(void)
{
	struct utsname	 u;
	unsigned int	 maj = 0, min = 0;

	if (uname(&u) == -1 || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		return 0;
	return maj > 4 || (maj == 4 && min >= 8);
}

static int
resolve_user(const char *ctx, struct conf_id *id, uint32_t *gid)
{
	struct passwd	*pw;

	errno = 0;
	pw = id->name != NULL ? getpwnam(id->name) : getpwuid(id->id);
	if (pw == NULL && id->name != NULL) {
		log_warnx("%s \"%s\": %s", ctx, id->name,
		    errno != 0 ? strerror(errno) : "no such user");
		return -1;
	}
	if (pw != NULL) {
		id->id = pw->pw_uid;
		if (gid != NULL)
			*gid = pw->pw_gid;
	} else if (gid != NULL)
		*gid = id->id;	/* a bare uid without a passwd entry */
	return 0;
}

static int
resolve_group(const char *ctx, struct conf_id *id)
{
	struct group	*gr;

	if (id->name == NULL)
		return 0;
	errno = 0;
	if ((gr = getgrnam(id->name)) == NULL) {
		log_warnx("%s \"%s\": %s", ctx, id->name,
		    errno != 0 ? strerror(errno) : "no such group");
		return -1;
	}
	id->id = gr->gr_gid;
	return 0;
}

/* The parser's rule for numeric ids, now that names have ids too. */
static int
in_uid_range(const struct sbx_conf *conf, const char *ctx,
    const struct conf_id *id)
{
	if (!id->set || !conf_uid_range_has(conf, id->id))
		return 0;
	log_warnx("sandbox-uid-range %u-%llu contains %s %u: sandboxed "
	    "processes would run as it", conf->uid_range_start,
	    (unsigned long long)conf->uid_range_start +
	    conf->uid_range_count - 1, ctx, id->id);
	return 1;
}

static int
check_file(const char *ctx, const char *path, int exec)
{
	struct stat	 st;

	if (stat(path, &st) == -1) {
		log_warn("%s \"%s\"", ctx, path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		log_warnx("%s \"%s\": not a regular file", ctx, path);
		return -1;
	}
	if (exec && (st.st_mode & 0111) == 0) {
		log_warnx("%s \"%s\": not executable", ctx, path);
		return -1;
	}
	return 0;
}

/*
 * A service started as root runs identity service sandboxes (and a root
 * peer's, and provider runs) as sandbox-user: its ids, or -1.  Neither
 * its uid nor its group may be the service's (nor the socket-group).  A missing
 * user is fatal: the self-test's sandbox runs as it before any other
 * (monitor/selftest.c), and no sandbox ever runs as the service user
 * instead.
 */
static int
resolve_sandbox_user(struct sbx_conf *conf, uid_t service_uid,
    gid_t service_gid)
{
	struct conf_id	 id = conf->sandbox_user;
	uint32_t	 gid = 0;
	const char	*name = id.name != NULL ? id.name : "(number)";

	conf->sandbox_user_uid = 0;
	conf->sandbox_user_gid = 0;
	if (id.name != NULL) {
		errno = 0;
		if (getpwnam(id.name) == NULL) {
			log_warnx("sandbox-user \"%s\": %s; identity service "
			    "sandboxes (and provider runs) run as it, never "
			    "as the service user: create it (systemd-sysusers "
			    "sbx.conf, or useradd --system --user-group "
			    "--no-create-home --shell /usr/sbin/nologin %s)",
			    id.name, errno != 0 ? strerror(errno) :
			    "no such user", id.name);
			return -1;
		}
	}
	if (resolve_user("sandbox-user", &id, &gid) == -1)
		return -1;
	if (id.id == 0 || gid == 0) {
		log_warnx("sandbox-user \"%s\": uid %u gid %u: sandboxes never "
		    "run as host root or its group", name, id.id, gid);
		return -1;
	}
	if (id.id == (uint32_t)service_uid) {
		log_warnx("sandbox-user \"%s\" is uid %u, the service user "
		    "(user \"%s\"): name a user of its own", name, id.id,
		    conf->user.name != NULL ? conf->user.name : "(number)");
		return -1;
	}
	/* The service's group, or the socket's, would give every such
	 * sandbox the service's group rights on the host. */
	if (gid == (uint32_t)service_gid || (conf->socket_group.set &&
	    gid == conf->socket_group.id)) {
		log_warnx("sandbox-user \"%s\": its group %u is the service "
		    "user's or the socket-group: give it a group of its own",
		    name, gid);
		return -1;
	}
	if (in_uid_range(conf, "the sandbox-user", &id))
		return -1;
	conf->sandbox_user.id = id.id;
	conf->sandbox_user_uid = (uid_t)id.id;
	conf->sandbox_user_gid = (gid_t)gid;
	return 0;
}

/*
 * need_user: the monitor runs as root and will switch to `user`, so that
 * user must exist; a monitor started as an ordinary user ignores it.
 * root_started: started as root (now, or before dropping to `user`: a
 * reload), so identity service sandboxes need sandbox-user.
 */
int
conf_resolve(struct sbx_conf *conf, int need_user, int root_started)
{
	struct conf_allow		*a;
	const struct conf_profile	*prof;
	const struct conf_mount		*m;
	struct stat			 st;
	int				 rv = 0;

	if (need_user && resolve_user("user", &conf->user,
	    &conf->user_gid) == -1)
		rv = -1;
	if (conf->socket_group.set && resolve_group("socket-group",
	    &conf->socket_group) == -1)
		rv = -1;
	TAILQ_FOREACH(a, &conf->allows, entry) {
		if (a->type == CONF_ALLOW_UID) {
			if (a->who.name != NULL && resolve_user("allow uid",
			    &a->who, NULL) == -1)
				rv = -1;
		} else if (resolve_group("allow gid", &a->who) == -1)
			rv = -1;
	}
	if ((need_user || root_started) && resolve_sandbox_user(conf,
	    need_user ? (uid_t)conf->user.id : getuid(),
	    need_user ? (gid_t)conf->user_gid : getgid()) == -1)
		rv = -1;
	if (rv == 0) {
		if (need_user && in_uid_range(conf, "the user", &conf->user))
			rv = -1;
		if (in_uid_range(conf, "the socket-group",
		    &conf->socket_group))
			rv = -1;
		TAILQ_FOREACH(a, &conf->allows, entry) {
			if (in_uid_range(conf, a->type == CONF_ALLOW_UID ?
			    "allowed uid" : "allowed gid", &a->who))
				rv = -1;
		}
	}
	if (conf->bundle_providers) {
		if (check_file("provider-allowlist", conf->provider_allowlist,
		    0) == -1)
			rv = -1;
		if (check_file("provider-runtime", conf->provider_runtime,
		    1) == -1)
			rv = -1;
	}
	/* A bind whose source is missing would fail every spawn later;
	 * say so once, now. */
	TAILQ_FOREACH(prof, &conf->profiles, entry) {
		if (prof->ptrace && !ptrace_kernel_ok()) {
			log_warnx("profile \"%s\": ptrace yes needs Linux 4.8 "
			    "or later (seccomp can be bypassed by a tracer "
			    "before)", prof->name);
			rv = -1;
		}
		TAILQ_FOREACH(m, &prof->mounts, entry) {
			if (m->type == CONF_MOUNT_TMPFS)
				continue;
			if (m->optional)
				continue;	/* runspec.c skips it if missing */
			if (stat(m->path, &st) == -1) {
				log_warn("profile \"%s\": %s \"%s\"",
				    prof->name, m->type == CONF_MOUNT_RO ?
				    "ro" : "rw", m->path);
				rv = -1;
			}
		}
	}
	return rv;
}
