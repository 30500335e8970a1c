/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * changesreq.c: the changeset requests (issue 23; sbx-protocol(7)):
 * CHANGES_LIST, CHANGES_OPEN and CHANGES_DISCARD, on the store of
 * csstore.c, which is opened at start.  A caller sees its own uid's
 * changesets only: another uid's id gets exactly the unknown-id answer.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "conf/conf.h"
#include "csstore.h"
#include "libsbx/sbx.h"
#include "monitor.h"

static int	 store = -1;
static char	 store_err[PATH_MAX + 128] =
    "changesets: the store is not open";

/*
 * At start, as root when started so: make the store its user's; then,
 * as that user, open it.  A store that cannot be had leaves changesets
 * unavailable (the requests say why), not the service.
 */
void
changes_init(const struct sbx_conf *conf, int root_started, uid_t uid,
    gid_t gid)
{
	char	 path[PATH_MAX];

	if (csstore_path(conf->changeset_dir, root_started, path,
	    sizeof(path), store_err, sizeof(store_err)) == -1) {
		log_warnx("%s", store_err);
		return;
	}
	if (geteuid() == 0 && uid != 0) {
		/* Made here, owned by the service user, then opened as it. */
		if (mkdir(path, 0700) == 0 || errno == EEXIST) {
			struct stat	 st;

			if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
			    st.st_uid == 0 && chown(path, uid, gid) == -1)
				log_warn("changeset-dir %s: chown", path);
		}
		return;
	}
	if ((store = csstore_open(path, store_err, sizeof(store_err))) == -1)
		log_warnx("%s; overlay runs and changesets unavailable",
		    store_err);
}

/* After dropping root: open what changes_init made. */
void
changes_open(const struct sbx_conf *conf, int root_started)
{
	char	 path[PATH_MAX];

	if (store != -1 || csstore_path(conf->changeset_dir, root_started,
	    path, sizeof(path), store_err, sizeof(store_err)) == -1)
		return;
	if ((store = csstore_open(path, store_err, sizeof(store_err))) == -1)
		log_warnx("%s; overlay runs and changesets unavailable",
		    store_err);
}

/* The store's descriptor, or -1 and why in err. */
int
changes_store(char *err, size_t errlen)
{
	if (store == -1)
		snprintf(err, errlen, "%s", store_err);
	return store;
}

/*
 * Expiry (changeset-max-age): everyone's at start (uid -1) and at most
 * once a minute, the caller's own before each of its overlay runs.  One
 * tenant's store is not read for every other tenant's runs: that was
 * every changeset's metadata of every uid, each overlay run.
 */
void
changes_expire(const struct sbx_conf *conf, int64_t uid)
{
	static time_t	 all_at;
	time_t		 now = time(NULL);
	int		 n = 0, k;

	if (store == -1)
		return;
	if (uid >= 0 && (k = csstore_expire_uid(store, (uint32_t)uid,
	    (int64_t)now, conf->changeset_max_age)) > 0)
		n += k;
	if (uid < 0 || all_at == 0 || now - all_at >= 60) {
		all_at = now;
		if ((k = csstore_expire(store, (int64_t)now,
		    conf->changeset_max_age)) > 0)
			n += k;
	}
	if (n > 0)
		audit("changes-expired", 0, 0, "%d changeset%s older than "
		    "changeset-max-age %u s removed", n, n == 1 ? "" : "s",
		    conf->changeset_max_age);
}

static int
add_one(const struct cs_meta *m, void *arg)
{
	cJSON	*a = arg, *o;

	if ((o = cJSON_CreateObject()) == NULL)
		fatalx("cJSON: out of memory");
	cJSON_AddStringToObject(o, "id", m->id);
	cJSON_AddStringToObject(o, "dir", m->dir);
	cJSON_AddNumberToObject(o, "created", (double)m->created);
	cJSON_AddNumberToObject(o, "last_run", (double)m->last_run);
	cJSON_AddNumberToObject(o, "size", (double)m->size);
	cJSON_AddNumberToObject(o, "entries", (double)m->entries);
	cJSON_AddNumberToObject(o, "runs", m->runs);
	cJSON_AddItemToArray(a, o);
	return 0;
}

static int
unavailable(struct ctl_conn *c, uint32_t id, const char *what)
{
	char	 err[PATH_MAX + 128];

	if (changes_store(err, sizeof(err)) != -1)
		return 0;
	reply_error(c, id, 0, SBX_E_UNAVAILABLE, "%s: %s", what, err);
	return 1;
}

static void
unknown(struct ctl_conn *c, uint32_t id, const char *what, const char *cs)
{
	reply_error(c, id, 0, SBX_E_NOT_FOUND, "%s: no changeset \"%.16s\"",
	    what, cs);
}

void
ctl_changes_list(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	cJSON	*o, *a;

	(void)req;
	(void)fd;
	if (unavailable(c, id, "changes"))
		return;
	o = reply_object();
	if ((a = cJSON_AddArrayToObject(o, "changesets")) == NULL)
		fatalx("cJSON: out of memory");
	if (csstore_list(store, (uint32_t)c->uid, add_one, a) == -1) {
		cJSON_Delete(o);
		reply_error(c, id, 0, SBX_E_INTERNAL, "changes: %s",
		    strerror(errno));
		return;
	}
	reply_send(c, SBX_MSG_CHANGES_LIST, id, o);
}

void
ctl_changes_open(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	struct cs_meta	 m;
	const cJSON	*j;
	cJSON		*o;
	char		 name[32], *text;
	int		 dir, sfd;

	(void)fd;
	if (unavailable(c, id, "changes open"))
		return;
	j = cJSON_GetObjectItemCaseSensitive(req, "id");
	if (csstore_get(store, (uint32_t)c->uid, j->valuestring, &m) == -1) {
		unknown(c, id, "changes open", j->valuestring);
		return;
	}
	snprintf(name, sizeof(name), "%u/%s.cs", (unsigned)m.uid, m.id);
	if ((dir = openat(store, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || (sfd = openat(dir, name, O_RDONLY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1) {
		if (dir != -1)
			close(dir);
		unknown(c, id, "changes open", j->valuestring);
		return;
	}
	close(dir);
	text = csstore_meta_json(&m);
	if ((o = cJSON_Parse(text)) == NULL)
		fatalx("cJSON: out of memory");
	free(text);
	reply_send_fd(c, SBX_MSG_CHANGES_OPEN, id, o, sfd);
}

void
ctl_changes_discard(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	const cJSON	*j;

	(void)fd;
	if (unavailable(c, id, "discard"))
		return;
	j = cJSON_GetObjectItemCaseSensitive(req, "id");
	if (csstore_discard(store, (uint32_t)c->uid, j->valuestring) == -1) {
		unknown(c, id, "discard", j->valuestring);
		return;
	}
	audit("changes-discarded", c->uid, c->pid, "changeset %s",
	    j->valuestring);
	reply_send(c, SBX_MSG_CHANGES_DISCARD, id, reply_object());
}

/*
 * An overlay RUN msb_new took: the store must be there and the caller
 * under changesets-per-peer; a new id and its stream file go with the
 * sandbox.  0, or -1 with the error sent.
 */
int
changes_begin(struct ctl_conn *c, uint32_t id, uid_t uid, const char *into,
    int64_t t0)
{
	struct cs_meta	 m;
	char		 cs[CS_ID_LEN + 1], err[PATH_MAX + 128], name[32];
	int		 n, fd, base = -1;

	if (changes_store(err, sizeof(err)) == -1) {
		reply_error(c, id, 0, SBX_E_UNAVAILABLE, "run: --overlay: %s",
		    err);
		return -1;
	}
	changes_expire(monitor_conf, (int64_t)uid);
	memset(&m, 0, sizeof(m));
	if (into != NULL) {
		/* A further run on the caller's changeset: its stream is
		 * the new upper layer's start, its metadata carries on. */
		if (csstore_get(store, (uint32_t)uid, into, &m) == -1) {
			reply_error(c, id, 0, SBX_E_NOT_FOUND, "run: "
			    "--overlay-into: no changeset \"%.16s\"", into);
			return -1;
		}
		snprintf(name, sizeof(name), "%u/%s.cs", (unsigned)uid, m.id);
		if ((base = openat(store, name, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC)) == -1) {
			reply_error(c, id, 0, SBX_E_NOT_FOUND, "run: "
			    "--overlay-into: no changeset \"%.16s\"", into);
			return -1;
		}
		/*
		 * Its stream file of a run still there, with no run of
		 * ours on it: a monitor that died during one left it, and
		 * it would refuse every further run.  Dropped.
		 */
		if ((fd = csstore_create(store, (uint32_t)uid, m.id)) == -1 &&
		    errno == EEXIST && !msb_changeset_busy(uid, m.id)) {
			log_warnx("changeset %s: a stream left by a run that "
			    "did not end, dropped", m.id);
			csstore_abandon(store, (uint32_t)uid, m.id);
			fd = csstore_create(store, (uint32_t)uid, m.id);
		}
		if (fd == -1) {
			close(base);
			reply_error(c, id, 0, SBX_E_LIMIT, "run: "
			    "--overlay-into: changeset %s: another run on it "
			    "is going on", m.id);
			return -1;
		}
		if (msb_changes(c, id, fd, base, &m) == -1) {
			close(fd);
			close(base);
			csstore_abandon(store, (uint32_t)uid, m.id);
			return -1;
		}
		return 0;
	}
	if ((n = csstore_count(store, (uint32_t)uid)) == -1) {
		reply_error(c, id, 0, SBX_E_INTERNAL, "run: --overlay: the "
		    "changeset store: %s", strerror(errno));
		return -1;
	}
	if ((uint32_t)n >= monitor_conf->changesets_per_peer) {
		reply_error(c, id, 0, SBX_E_LIMIT, "run: --overlay: "
		    "changesets-per-peer %u reached for uid %u (sbxctl "
		    "discard one)", monitor_conf->changesets_per_peer,
		    (unsigned)uid);
		return -1;
	}
	csstore_new_id(cs);
	if ((fd = csstore_create(store, (uint32_t)uid, cs)) == -1) {
		reply_error(c, id, 0, SBX_E_INTERNAL, "run: --overlay: the "
		    "changeset store: %s", strerror(errno));
		return -1;
	}
	strlcpy(m.id, cs, sizeof(m.id));
	m.uid = (uint32_t)uid;
	/* The T0 the run's spec carries (runspec.c). */
	m.first_run_start = t0;
	if (msb_changes(c, id, fd, -1, &m) == -1) {
		close(fd);
		csstore_abandon(store, (uint32_t)uid, cs);
		return -1;
	}
	return 0;
}

/* The overlay run ended: 1 its changeset is kept, 0 nothing changed,
 * -1 the stream was refused (why in err: the run's changes are lost). */
int
changes_finish(struct cs_meta *m, pid_t peerpid, char *err, size_t errlen)
{
	int	 r;

	if (store == -1)
		return 0;
	m->last_run = (int64_t)time(NULL);
	if (m->runs == 0)
		m->created = m->last_run;
	m->runs++;
	r = csstore_finish(store, m, err, errlen);
	/* A further run that undid everything: nothing is left to keep. */
	if (r == 0 && m->runs > 1)
		(void)csstore_discard(store, m->uid, m->id);
	if (r == -1)
		audit("changes-refused", m->uid, peerpid, "changeset %s: %s",
		    m->id, err);
	else if (r == 1)
		audit("changes-kept", m->uid, peerpid, "changeset %s: %llu "
		    "paths, %llu bytes, of %s", m->id,
		    (unsigned long long)m->entries,
		    (unsigned long long)m->size, m->dir);
	return r;
}
