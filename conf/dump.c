/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * dump.c: print the effective configuration in sbx.conf(5) syntax, every
 * setting including defaults, in one fixed order (like sshd -T).  Reading
 * the output back yields the same configuration, so an operator can see
 * exactly what a file means and tests can compare configurations as text.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>

#include <inttypes.h>
#include <stdio.h>

#include "common.h"
#include "conf.h"

/* The largest unit that divides the size exactly; the parser reads it. */
int
conf_fmt_size(uint64_t v, char *buf, size_t len)
{
	static const struct {
		char		 suffix;
		uint64_t	 unit;
	} units[] = {
		{ 'G', 1ULL << 30 }, { 'M', 1ULL << 20 }, { 'K', 1ULL << 10 }
	};
	size_t	 i;

	for (i = 0; v != 0 && i < nitems(units); i++) {
		if (v % units[i].unit == 0)
			return snprintf(buf, len, "%" PRIu64 "%c",
			    v / units[i].unit, units[i].suffix);
	}
	return snprintf(buf, len, "%" PRIu64, v);
}

/* The largest unit that divides the duration exactly (d, h, m, s). */
int
conf_fmt_duration(uint32_t v, char *buf, size_t len)
{
	static const struct {
		char		 suffix;
		uint32_t	 unit;
	} units[] = {
		{ 'd', 86400 }, { 'h', 3600 }, { 'm', 60 }
	};
	size_t	 i;

	for (i = 0; v != 0 && i < nitems(units); i++) {
		if (v % units[i].unit == 0)
			return snprintf(buf, len, "%" PRIu32 "%c",
			    v / units[i].unit, units[i].suffix);
	}
	return snprintf(buf, len, "%" PRIu32 "s", v);
}

static void
put_quoted(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static void
put_string(FILE *fp, const char *indent, const char *kw, const char *s)
{
	fprintf(fp, "%s%s ", indent, kw);
	put_quoted(fp, s);
	fputc('\n', fp);
}

static void
put_size(FILE *fp, const char *indent, const char *kw, uint64_t v)
{
	char	 buf[32];

	conf_fmt_size(v, buf, sizeof(buf));
	fprintf(fp, "%s%s %s\n", indent, kw, buf);
}

static void
put_id(FILE *fp, const struct conf_id *id)
{
	if (id->name != NULL)
		put_quoted(fp, id->name);
	else
		fprintf(fp, "%" PRIu32, id->id);
}

static void
put_domains(FILE *fp, const char *kw, const struct conf_domains *list)
{
	const struct conf_domain	*d;

	TAILQ_FOREACH(d, list, entry) {
		fprintf(fp, "\t%s \"%s%s", kw, d->wildcard ? "*." : "",
		    d->host);
		if (d->port != 0)
			fprintf(fp, ":%u", (unsigned int)d->port);
		fputs("\"\n", fp);
	}
}

static void
dump_profile(FILE *fp, const struct conf_profile *prof)
{
	const struct conf_mount	*m;
	const struct conf_env	*e;
	const struct conf_cidr	*c;
	char			 addr[INET6_ADDRSTRLEN], sz[32];

	fputs("\nprofile ", fp);
	put_quoted(fp, prof->name);
	fputs(" {\n", fp);
	fprintf(fp, "\tnetwork %s\n",
	    prof->network == CONF_NET_PROXY ? "proxy" : "none");
	fprintf(fp, "\tidentity %s\n",
	    prof->identity == CONF_IDENTITY_SERVICE ? "service" :
	    prof->identity == CONF_IDENTITY_RANGE ? "range" : "caller");
	TAILQ_FOREACH(m, &prof->mounts, entry) {
		switch (m->type) {
		case CONF_MOUNT_RO:
			fputs("\tro ", fp);
			put_quoted(fp, m->path);
			if (m->optional)
				fputs(" optional", fp);
			break;
		case CONF_MOUNT_RW:
			fputs("\trw ", fp);
			put_quoted(fp, m->path);
			if (m->per_caller)
				fputs(" per-caller", fp);
			break;
		case CONF_MOUNT_TMPFS:
			conf_fmt_size(m->size, sz, sizeof(sz));
			fputs("\ttmpfs ", fp);
			put_quoted(fp, m->path);
			fprintf(fp, " size %s", sz);
			break;
		}
		fputs(m->noexec ? " noexec\n" : "\n", fp);
	}
	conf_fmt_size(prof->tmpfs_root, sz, sizeof(sz));
	fprintf(fp, "\ttmpfs-root size %s\n", sz);
	if (prof->workdir != NULL) {
		fputs("\tworkdir ", fp);
		put_quoted(fp, prof->workdir);
		fputs(prof->workdir_noexec ? " noexec\n" : "\n", fp);
	} else if (prof->workdir_same)
		fputs(prof->workdir_noexec ? "\tworkdir same noexec\n" :
		    "\tworkdir same\n", fp);
	if (prof->home != NULL) {
		fputs("\thome ", fp);
		put_quoted(fp, prof->home);
		fputc('\n', fp);
	}
	if (!TAILQ_EMPTY(&prof->env)) {
		fputs("\tenv", fp);
		TAILQ_FOREACH(e, &prof->env, entry) {
			fputc(' ', fp);
			put_quoted(fp, e->name);
		}
		fputc('\n', fp);
	}
	fprintf(fp, "\ttimeout %" PRIu32 "\n", prof->timeout);
	put_size(fp, "\t", "memory", prof->memory);
	fprintf(fp, "\tpids %" PRIu32 "\n", prof->pids);
	fprintf(fp, "\tnofile %" PRIu32 "\n", prof->nofile);
	put_size(fp, "\t", "fsize", prof->fsize);
	fprintf(fp, "\tdev-shm %s\n", prof->dev_shm ? "yes" : "no");
	put_domains(fp, "allow-domain", &prof->allow_domains);
	put_domains(fp, "deny-domain", &prof->deny_domains);
	TAILQ_FOREACH(c, &prof->allow_cidrs, entry) {
		if (inet_ntop(c->af, &c->addr, addr, sizeof(addr)) == NULL)
			fatal("%s: inet_ntop", __func__);
		fprintf(fp, "\tallow-cidr \"%s/%u\"\n", addr,
		    (unsigned int)c->prefixlen);
	}
	fprintf(fp, "\tproxy-connections %" PRIu32 "\n", prof->proxy_conns);
	fprintf(fp, "\tloopback %s\n", prof->loopback ? "yes" : "no");
	fprintf(fp, "\tptrace %s\n", prof->ptrace ? "yes" : "no");
	/* Only when set: 0 (none) is no value either keyword takes. */
	if (prof->cpu_time != 0)
		fprintf(fp, "\tcpu-time %" PRIu32 "\n", prof->cpu_time);
	if (prof->warm != 0)
		fprintf(fp, "\twarm %" PRIu32 "\n", prof->warm);
	if (prof->cpus_milli != 0)
		fprintf(fp, "\tcpus %" PRIu32 ".%03" PRIu32 "\n",
		    prof->cpus_milli / 1000, prof->cpus_milli % 1000);
	if (prof->output != 0)
		put_size(fp, "\t", "output", prof->output);
	fputs("}\n", fp);
}

void
conf_dump(FILE *fp, const struct sbx_conf *conf)
{
	const struct conf_allow		*a;
	const struct conf_profile	*prof;
	char				 dur[32];

	put_string(fp, "", "socket", conf->socket);
	fprintf(fp, "socket-mode %04o\n", (unsigned int)conf->socket_mode);
	if (conf->socket_group.set) {
		fputs("socket-group ", fp);
		put_id(fp, &conf->socket_group);
		fputc('\n', fp);
	}
	fputs("user ", fp);
	put_id(fp, &conf->user);
	fputc('\n', fp);
	fputs("sandbox-user ", fp);
	put_id(fp, &conf->sandbox_user);
	fputc('\n', fp);
	TAILQ_FOREACH(a, &conf->allows, entry) {
		fprintf(fp, "allow %s ",
		    a->type == CONF_ALLOW_UID ? "uid" : "gid");
		put_id(fp, &a->who);
		fputc('\n', fp);
	}
	fprintf(fp, "max-sandboxes %" PRIu32 "\n", conf->max_sandboxes);
	fprintf(fp, "max-sandboxes-per-peer %" PRIu32 "\n",
	    conf->max_sandboxes_per_peer);
	fprintf(fp, "max-connections %" PRIu32 "\n", conf->max_connections);
	fprintf(fp, "max-connections-per-peer %" PRIu32 "\n",
	    conf->max_connections_per_peer);
	put_size(fp, "", "client-queue-max", conf->client_queue_max);
	fprintf(fp, "client-requests-max %" PRIu32 "\n",
	    conf->client_requests_max);
	fprintf(fp, "client-fds-max %" PRIu32 "\n", conf->client_fds_max);
	fprintf(fp, "peer-requests-max %" PRIu32 "\n", conf->peer_requests_max);
	fprintf(fp, "peer-fds-max %" PRIu32 "\n", conf->peer_fds_max);
	fprintf(fp, "caller-min-uid %" PRIu32 "\n", conf->caller_min_uid);
	if (conf->uid_range_set)
		fprintf(fp, "sandbox-uid-range %" PRIu32 " %" PRIu32 "\n",
		    conf->uid_range_start, conf->uid_range_count);
	if (conf->log_file != NULL)
		put_string(fp, "", "log-file", conf->log_file);
	if (conf->cgroup_root != NULL)
		put_string(fp, "", "cgroup-root", conf->cgroup_root);
	fprintf(fp, "cgroup-favordynmods %s\n",
	    conf->cgroup_favordynmods ? "yes" : "no");
	fprintf(fp, "bundle-providers %s\n",
	    conf->bundle_providers ? "yes" : "no");
	put_string(fp, "", "provider-allowlist", conf->provider_allowlist);
	if (conf->gate_packs != NULL)
		put_string(fp, "", "gate-packs", conf->gate_packs);
	put_string(fp, "", "provider-runtime", conf->provider_runtime);
	fprintf(fp, "provider-pool %" PRIu32 "\n", conf->provider_pool);
	fprintf(fp, "warm-idle %" PRIu32 "\n", conf->warm_idle);
	fprintf(fp, "provider-timeout %" PRIu32 "\n", conf->provider_timeout);
	fprintf(fp, "role-timeout %" PRIu32 "\n", conf->role_timeout);
	put_size(fp, "", "provider-max-output", conf->provider_max_output);
	fprintf(fp, "provider-max-records %" PRIu32 "\n",
	    conf->provider_max_records);
	fprintf(fp, "providers-per-peer %" PRIu32 "\n",
	    conf->providers_per_peer);
	fprintf(fp, "max-providers %" PRIu32 "\n", conf->max_providers);
	fprintf(fp, "provider-idle-timeout %" PRIu32 "\n",
	    conf->provider_idle_timeout);
	if (conf->changeset_dir != NULL)
		put_string(fp, "", "changeset-dir", conf->changeset_dir);
	conf_fmt_duration(conf->changeset_max_age, dur, sizeof(dur));
	fprintf(fp, "changeset-max-age %s\n", dur);
	put_size(fp, "", "changeset-max-size", conf->changeset_max_size);
	fprintf(fp, "changesets-per-peer %" PRIu32 "\n",
	    conf->changesets_per_peer);
	TAILQ_FOREACH(prof, &conf->profiles, entry)
		dump_profile(fp, prof);
}
