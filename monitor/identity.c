/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * identity.c: whose host identity a sandbox has (design.md §1).  The monitor
 * decides it -- from the peer's SO_PEERCRED credentials and the profile --
 * and the launcher only checks it again, so a bug or a compromise of the
 * launcher's input cannot pick a host id the peer did not have.
 *
 *	service	sandbox-user, a host user of its own (started as root),
 *		never the service user, which owns the socket, the roles
 *		and every sandbox's user namespace: a payload running as
 *		it could reach all of them (issue 20);
 *	caller	the peer's uid and gid, so the payload reaches exactly what
 *		the peer reaches and what it writes belongs to the peer;
 *	range	a fresh id of sandbox-uid-range per sandbox, so that no two
 *		sandboxes are ever the same host user.
 *
 * Only a service started as root can map other ids (its launcher keeps
 * CAP_SETUID/CAP_SETGID, caps.c).  A service a user started runs every
 * sandbox as that user: caller and service are the same thing there,
 * and range is refused rather than quietly given less separation.  Host
 * root is never mapped: a root peer's sandbox runs as sandbox-user.
 */
#include <sys/types.h>

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "spec.h"
#include "monitor.h"

/* One bit per id of sandbox-uid-range in use (4096 sandboxes at most). */
#define RANGE_SLOTS	4096
static uint8_t		 range_used[RANGE_SLOTS / 8];

const char *
identity_name(uint32_t mode)
{
	switch (mode) {
	case SBX_IDENTITY_CALLER:
		return "caller";
	case SBX_IDENTITY_RANGE:
		return "range";
	default:
		return "service";
	}
}

/* Is uid named by an "allow uid" line (by number or name)? */
static int
uid_named(uid_t uid)
{
	const struct conf_allow	*a;

	TAILQ_FOREACH(a, &monitor_conf->allows, entry)
		if (a->type == CONF_ALLOW_UID && a->who.set &&
		    a->who.id == (uint32_t)uid)
			return 1;
	return 0;
}

static int
range_take(struct sbx_identity *id, char *err, size_t errlen)
{
	uint32_t	 n, i;

	if (!monitor_conf->uid_range_set) {
		snprintf(err, errlen, "identity range: no sandbox-uid-range "
		    "is configured");
		return -1;
	}
	n = monitor_conf->uid_range_count;
	if (n > RANGE_SLOTS)
		n = RANGE_SLOTS;
	for (i = 0; i < n; i++)
		if ((range_used[i / 8] & (1U << (i % 8))) == 0)
			break;
	if (i == n) {
		snprintf(err, errlen, "identity range: all %u ids of "
		    "sandbox-uid-range are in use", n);
		return -1;
	}
	range_used[i / 8] |= 1U << (i % 8);
	id->range_slot = (int)i;
	id->uid = id->gid = monitor_conf->uid_range_start + i;
	return 0;
}

void
identity_release(struct sbx_identity *id)
{
	int	 i = id->range_slot;

	if (i >= 0 && i < RANGE_SLOTS)
		range_used[i / 8] &= ~(1U << (i % 8));
	id->range_slot = -1;
}

/*
 * identity service of a service started as root: sandbox-user's ids, or
 * -1 when it did not resolve (never the service user instead).
 */
int
identity_service(struct sbx_identity *id, char *err, size_t errlen)
{
	id->mode = SBX_IDENTITY_SERVICE;
	id->uid = id->gid = 0;
	if (!caps_granted())
		return 0;	/* a user's service: that user */
	if (monitor_conf->sandbox_user_uid == 0 ||
	    monitor_conf->sandbox_user_gid == 0) {
		snprintf(err, errlen, "identity service: sandbox-user \"%s\" "
		    "does not exist on this host, and sandboxes never run as "
		    "the service user (create it: systemd-sysusers sbx.conf)",
		    monitor_conf->sandbox_user.name != NULL ?
		    monitor_conf->sandbox_user.name : "(number)");
		return -1;
	}
	id->uid = (uint32_t)monitor_conf->sandbox_user_uid;
	id->gid = (uint32_t)monitor_conf->sandbox_user_gid;
	return 0;
}

/*
 * 0 with *id filled, or -1 with the reason in err (the request is
 * refused; nothing runs with less separation than the profile asked).
 */
int
identity_decide(const struct conf_profile *prof, uid_t uid, gid_t gid,
    struct sbx_identity *id, char *err, size_t errlen)
{
	memset(id, 0, sizeof(*id));
	id->mode = SBX_IDENTITY_SERVICE;
	id->range_slot = -1;

	if (!caps_granted()) {
		/* A service a user started: its sandboxes are that user. */
		if (prof->identity == CONF_IDENTITY_RANGE) {
			snprintf(err, errlen, "profile \"%s\": identity range "
			    "needs a service started as root (this one runs "
			    "as uid %u and can map only its own id)",
			    prof->name, (unsigned)getuid());
			return -1;
		}
		return 0;
	}
	switch (prof->identity) {
	case CONF_IDENTITY_SERVICE:
		return identity_service(id, err, errlen);
	case CONF_IDENTITY_RANGE:
		id->mode = SBX_IDENTITY_RANGE;
		return range_take(id, err, errlen);
	case CONF_IDENTITY_CALLER:
		break;
	}
	/* Host root is never mapped: root's sandboxes are sandbox-user's. */
	if (uid == 0)
		return identity_service(id, err, errlen);
	if (gid == 0) {
		snprintf(err, errlen, "identity caller: your primary group is "
		    "gid 0, which is never mapped into a sandbox (use a "
		    "profile with identity service)");
		return -1;
	}
	if (uid < monitor_conf->caller_min_uid && !uid_named(uid)) {
		snprintf(err, errlen, "identity caller: uid %u is below "
		    "caller-min-uid %u and no \"allow uid\" line names it",
		    (unsigned)uid, monitor_conf->caller_min_uid);
		return -1;
	}
	/* The service user itself: its sandboxes are not it either. */
	if (monitor_conf->user.set && (uint32_t)uid == monitor_conf->user.id)
		return identity_service(id, err, errlen);
	id->mode = SBX_IDENTITY_CALLER;
	id->uid = (uint32_t)uid;
	id->gid = (uint32_t)gid;
	return 0;
}

/*
 * The name the sandbox user gets in the sandbox's own /etc/passwd: the
 * peer's login name when the profile asks for the caller's identity and
 * the sandbox runs as the peer's host uid, SBX_SANDBOX_USER otherwise.
 *
 * Read from /etc/passwd with fgetpwent_r, never getpwuid: NSS may load a
 * module (libnss_systemd, sss), which needs executable mappings the
 * monitor's filter kills it for, and would talk to daemons it has no
 * business with.  The file is root's and world-readable; opening it is
 * what the monitor already does for sbx.conf (openat), so no privilege is
 * added.  A user only another NSS source knows, or a name outside the
 * portable set (sbx_spec_user_ok), gets the fixed name: a sandbox starts
 * either way.
 */
const char *
identity_user_name(const struct conf_profile *prof,
    const struct sbx_identity *id, uid_t peer, char *buf, size_t len)
{
	struct passwd	 pw, *res;
	char		 line[1024];
	FILE		*fp;
	int		 own;

	own = id->mode == SBX_IDENTITY_CALLER ||
	    (id->mode == SBX_IDENTITY_SERVICE && !caps_granted() &&
	    peer == getuid());
	if (prof->identity != CONF_IDENTITY_CALLER || !own)
		return SBX_SANDBOX_USER;
	if ((fp = fopen("/etc/passwd", "re")) == NULL)
		return SBX_SANDBOX_USER;
	strlcpy(buf, SBX_SANDBOX_USER, len);
	while (fgetpwent_r(fp, &pw, line, sizeof(line), &res) == 0)
		if (res->pw_uid == peer) {
			if (sbx_spec_user_ok(res->pw_name))
				strlcpy(buf, res->pw_name, len);
			break;
		}
	fclose(fp);
	return buf;
}
