/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * conf.c: the configuration object -- defaults for everything sbx.conf(5)
 * documents, the built-in "default" profile, lookup and release.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "proto.h"
#include "conf.h"

/* Host directories the built-in profile binds read-only, if present. */
static const char *const default_ro[] = {
	"/usr", "/bin", "/lib", "/lib64", "/etc/ssl/certs", "/etc/alternatives"
};

struct sbx_conf *
conf_new(void)
{
	struct sbx_conf	*conf;

	conf = xcalloc(1, sizeof(*conf));
	conf->socket = xstrdup(SBX_CONF_SOCKET);
	conf->socket_mode = 0660;
	conf->user.set = 1;
	conf->user.name = xstrdup(SBX_CONF_USER);
	conf->sandbox_user.set = 1;
	conf->sandbox_user.name = xstrdup(SBX_CONF_SANDBOX_USER);
	TAILQ_INIT(&conf->allows);
	conf->max_sandboxes = 64;
	conf->max_sandboxes_per_peer = 16;
	conf->max_connections = 128;
	conf->max_connections_per_peer = 16;
	conf->client_queue_max = 1024 * 1024;
	conf->client_requests_max = 64;
	conf->client_fds_max = 256;
	conf->peer_requests_max = 256;
	conf->peer_fds_max = 1024;
	conf->caller_min_uid = 1000;
	conf->provider_allowlist = xstrdup(SBX_CONF_ALLOWLIST);
	conf->provider_runtime = xstrdup(SBX_CONF_RUNTIME);
	conf->provider_pool = 0;
	conf->warm_idle = 60;
	conf->provider_timeout = 5000;
	conf->role_timeout = ROLE_TIMEOUT_DEFAULT;
	conf->provider_max_output = 1024 * 1024;
	conf->provider_max_records = 50000;
	conf->providers_per_peer = 16;
	conf->max_providers = 256;
	conf->provider_idle_timeout = 0;
	conf->changeset_max_age = CHANGESET_AGE_DEFAULT;
	conf->changeset_max_size = CHANGESET_SIZE_DEFAULT;
	conf->changesets_per_peer = CHANGESETS_PER_PEER_DEFAULT;
	TAILQ_INIT(&conf->profiles);
	return conf;
}

struct conf_profile *
conf_profile_new(const char *name)
{
	struct conf_profile	*prof;

	prof = xcalloc(1, sizeof(*prof));
	prof->name = xstrdup(name);
	prof->network = CONF_NET_NONE;
	TAILQ_INIT(&prof->mounts);
	prof->workdir = xstrdup("/work");
	TAILQ_INIT(&prof->env);
	prof->timeout = 600;
	prof->memory = 1ULL << 30;
	prof->pids = 256;
	prof->nofile = 1024;
	prof->fsize = 1ULL << 30;
	prof->dev_shm = 1;
	prof->tmpfs_root = 16ULL << 20;
	TAILQ_INIT(&prof->allow_domains);
	TAILQ_INIT(&prof->deny_domains);
	TAILQ_INIT(&prof->allow_cidrs);
	prof->proxy_conns = PROXY_SANDBOX_CONNS;
	prof->loopback = 1;
	return prof;
}

/*
 * The mounts of the built-in profile, also given to a profile that names
 * none.  Presence is decided now (at load or reload), so that the dump shows
 * exactly what a sandbox will get.
 */
void
conf_profile_default_mounts(struct conf_profile *prof)
{
	struct conf_mount	*m;
	struct stat		 st;
	size_t			 i;

	for (i = 0; i < nitems(default_ro); i++) {
		if (stat(default_ro[i], &st) == -1 || !S_ISDIR(st.st_mode))
			continue;
		m = xcalloc(1, sizeof(*m));
		m->type = CONF_MOUNT_RO;
		m->path = xstrdup(default_ro[i]);
		TAILQ_INSERT_TAIL(&prof->mounts, m, entry);
	}
	m = xcalloc(1, sizeof(*m));
	m->type = CONF_MOUNT_TMPFS;
	m->path = xstrdup("/tmp");
	m->size = 64ULL << 20;
	TAILQ_INSERT_TAIL(&prof->mounts, m, entry);
}

/* The built-in profile passes the locale and the terminal type, if the
 * agent sends them; nothing else of anyone's environment. */
void
conf_profile_default_env(struct conf_profile *prof)
{
	static const char *const names[] = { "LANG", "TERM" };
	struct conf_env		*e;
	size_t			 i;

	for (i = 0; i < nitems(names); i++) {
		e = xcalloc(1, sizeof(*e));
		e->name = xstrdup(names[i]);
		TAILQ_INSERT_TAIL(&prof->env, e, entry);
	}
}

void
conf_profile_free(struct conf_profile *prof)
{
	struct conf_mount	*m;
	struct conf_env		*e;
	struct conf_domain	*d;
	struct conf_cidr	*c;

	if (prof == NULL)
		return;
	while ((m = TAILQ_FIRST(&prof->mounts)) != NULL) {
		TAILQ_REMOVE(&prof->mounts, m, entry);
		free(m->path);
		free(m);
	}
	while ((e = TAILQ_FIRST(&prof->env)) != NULL) {
		TAILQ_REMOVE(&prof->env, e, entry);
		free(e->name);
		free(e);
	}
	while ((d = TAILQ_FIRST(&prof->allow_domains)) != NULL) {
		TAILQ_REMOVE(&prof->allow_domains, d, entry);
		free(d);
	}
	while ((d = TAILQ_FIRST(&prof->deny_domains)) != NULL) {
		TAILQ_REMOVE(&prof->deny_domains, d, entry);
		free(d);
	}
	while ((c = TAILQ_FIRST(&prof->allow_cidrs)) != NULL) {
		TAILQ_REMOVE(&prof->allow_cidrs, c, entry);
		free(c);
	}
	free(prof->workdir);
	free(prof->home);
	free(prof->name);
	free(prof);
}

void
conf_free(struct sbx_conf *conf)
{
	struct conf_allow	*a;
	struct conf_profile	*prof;

	if (conf == NULL)
		return;
	while ((a = TAILQ_FIRST(&conf->allows)) != NULL) {
		TAILQ_REMOVE(&conf->allows, a, entry);
		free(a->who.name);
		free(a);
	}
	while ((prof = TAILQ_FIRST(&conf->profiles)) != NULL) {
		TAILQ_REMOVE(&conf->profiles, prof, entry);
		conf_profile_free(prof);
	}
	free(conf->socket);
	free(conf->socket_group.name);
	free(conf->user.name);
	free(conf->sandbox_user.name);
	free(conf->log_file);
	free(conf->cgroup_root);
	free(conf->provider_allowlist);
	free(conf->gate_packs);
	free(conf->changeset_dir);
	free(conf->provider_runtime);
	free(conf);
}

const struct conf_profile *
conf_profile(const struct sbx_conf *conf, const char *name)
{
	const struct conf_profile	*prof;

	TAILQ_FOREACH(prof, &conf->profiles, entry) {
		if (strcmp(prof->name, name) == 0)
			return prof;
	}
	return NULL;
}

/*
 * Does this bind mount make a file of the monitor visible inside the
 * sandbox?  The control socket would let a payload talk to the monitor
 * (only peer credentials would stand in the way), the audit log would leak
 * other agents' activity, and a writable allowlist would let a payload widen
 * the trust root.  Returns the keyword naming the exposed file, or NULL.
 * Lexical: symbolic links are not followed here.
 */
const char *
conf_exposes(const struct sbx_conf *conf, const struct conf_mount *m)
{
	if (m->type == CONF_MOUNT_TMPFS)
		return NULL;
	if (conf_path_covers(m->path, conf->socket))
		return "socket";
	if (conf->log_file != NULL && conf_path_covers(m->path,
	    conf->log_file))
		return "log-file";
	if (m->type == CONF_MOUNT_RW && conf_path_covers(m->path,
	    conf->provider_allowlist))
		return "provider-allowlist";
	/* Operator gate packs are trust roots like the allowlist. */
	if (m->type == CONF_MOUNT_RW && conf->gate_packs != NULL &&
	    conf_path_covers(m->path, conf->gate_packs))
		return "gate-packs";
	/* Changesets are other runs' (and users') files. */
	if (conf->changeset_dir != NULL && conf_path_covers(m->path,
	    conf->changeset_dir))
		return "changeset-dir";
	return NULL;
}

/*
 * Sandboxed processes run on the host as ids of sandbox-uid-range: if one
 * of them were an allowed peer (or the monitor's user or socket group), a
 * payload that reached the socket would pass the peer check.
 */
int
conf_uid_range_has(const struct sbx_conf *conf, uint32_t id)
{
	return conf->uid_range_set && id >= conf->uid_range_start &&
	    (uint64_t)id < (uint64_t)conf->uid_range_start +
	    conf->uid_range_count;
}

/* sbx-monitor -s: the same rules as the socket keyword. */
int
conf_set_socket(struct sbx_conf *conf, const char *path, const char **why)
{
	const struct conf_profile	*prof;
	const struct conf_mount		*m;

	if (conf_check_socketpath(path, why) == -1)
		return -1;
	TAILQ_FOREACH(prof, &conf->profiles, entry) {
		TAILQ_FOREACH(m, &prof->mounts, entry) {
			if (m->type != CONF_MOUNT_TMPFS &&
			    conf_path_covers(m->path, path)) {
				*why = "lies under a directory that a profile "
				    "binds into its sandboxes";
				return -1;
			}
		}
	}
	free(conf->socket);
	conf->socket = xstrdup(path);
	return 0;
}
