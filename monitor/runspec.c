/*
 * runspec.c: what a RUN request becomes -- the sandbox spec built from the
 * operator's profile and the agent's request.  The profile decides every
 * path, limit and the environment pass-list; the agent chooses only the
 * command, which of the listed variables to pass (with their values), a
 * shorter timeout, and whether a working directory comes with it.  So an
 * agent cannot widen what the operator configured.
 */
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "common.h"
#include "monitor.h"

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
int
runspec_build(const struct conf_profile *prof, const cJSON *req,
    int workdir, uint8_t *buf, size_t buflen, size_t *len, char *err,
    size_t errlen)
{
	struct sbx_spec		 spec;
	const struct conf_mount	*m;
	const cJSON		*argv, *a, *env, *e, *tmo;
	char			*pairs[SBX_SPEC_MAXENV];
	size_t			 npairs = 0, i;
	uint64_t		 timeout;
	int			 rv = -1;

	sbx_spec_init(&spec);
	spec.class = SBX_CLASS_COMMAND;
	if (prof->network != CONF_NET_NONE) {
		snprintf(err, errlen, "profile \"%s\": network proxy is not "
		    "available in this version of sbx", prof->name);
		return -1;
	}
	spec.net = SBX_NET_NONE;

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
	/* Nothing inside searches PATH: the caller resolves the command. */
	if (spec.argv[0][0] != '/') {
		snprintf(err, errlen, "argv[0] \"%.64s\" is not an absolute "
		    "path", spec.argv[0]);
		return -1;
	}

	if ((env = cJSON_GetObjectItemCaseSensitive(req, "env")) != NULL) {
		cJSON_ArrayForEach(e, env) {
			if (!cJSON_IsString(e)) {
				snprintf(err, errlen, "env \"%.64s\": the "
				    "value must be a string", e->string);
				goto out;
			}
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
	spec.root_size = prof->tmpfs_root;
	spec.dev_shm = prof->dev_shm;
	spec.tmp_size = 64ULL << 20;
	TAILQ_FOREACH(m, &prof->mounts, entry) {
		uint32_t	 kind;

		if (m->type == CONF_MOUNT_TMPFS && strcmp(m->path, "/tmp") == 0) {
			spec.tmp_size = m->size;
			continue;
		}
		kind = m->type == CONF_MOUNT_RO ? SBX_MOUNT_RO :
		    m->type == CONF_MOUNT_RW ? SBX_MOUNT_RW : SBX_MOUNT_TMPFS;
		if (sbx_spec_add_mount(&spec, kind,
		    kind == SBX_MOUNT_TMPFS ? NULL : m->path, m->path,
		    m->size) == -1) {
			snprintf(err, errlen, "profile \"%s\": more than %d "
			    "mounts", prof->name, SBX_SPEC_MAXMOUNTS);
			goto out;
		}
	}
	if (workdir) {
		if (prof->workdir == NULL) {
			snprintf(err, errlen, "profile \"%s\" has no workdir",
			    prof->name);
			goto out;
		}
		spec.workdir = prof->workdir;
		spec.workdir_fd = 1;
	}
	if (sbx_spec_check(&spec, err, errlen) == -1 ||
	    sbx_spec_serialise(&spec, buf, buflen, len, err, errlen) == -1)
		goto out;
	rv = 0;
 out:
	for (i = 0; i < npairs; i++)
		free(pairs[i]);
	return rv;
}
