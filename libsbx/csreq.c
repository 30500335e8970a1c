/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * csreq.c: the changeset requests (issue 23; sbx_changes_list(3)):
 * CHANGES_LIST, CHANGES_OPEN and CHANGES_DISCARD.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "sbx.h"

/* 0 a reply of type, 1 an error reply (code: message in err), -1. */
static int
cs_call(struct sbx_conn *c, uint32_t type, const char *json,
    struct sbx_msg *m, char *err, size_t errlen)
{
	char	 code[64], msg[512];

	if (sbx_call(c, type, json, m, err, errlen) == -1)
		return -1;
	if (m->type == SBX_MSG_ERROR) {
		if (sbx_error(m, code, sizeof(code), msg, sizeof(msg)) == -1)
			snprintf(err, errlen, "malformed error reply");
		else
			snprintf(err, errlen, "%s: %s", code, msg);
		sbx_msg_free(m);
		return 1;
	}
	if (m->type != (type | SBX_REPLY)) {
		snprintf(err, errlen, "unexpected reply type %u", m->type);
		sbx_msg_free(m);
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/* {"id": id}, or NULL with errno EINVAL for an id that cannot be one. */
static char *
id_request(const char *id, char *err, size_t errlen)
{
	cJSON	*o;
	char	*s;

	if (id == NULL || strlen(id) == 0 || strlen(id) > 64) {
		snprintf(err, errlen, "changeset id: 1 to 64 bytes");
		errno = EINVAL;
		return NULL;
	}
	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(o, "id", id) == NULL ||
	    (s = cJSON_PrintUnformatted(o)) == NULL) {
		cJSON_Delete(o);
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	cJSON_Delete(o);
	return s;
}

int
sbx_changes_list(struct sbx_conn *c, char **json, char *err, size_t errlen)
{
	struct sbx_msg	 m;
	int		 r;

	*json = NULL;
	if ((r = cs_call(c, SBX_MSG_CHANGES_LIST, "{}", &m, err,
	    errlen)) != 0)
		return r;
	*json = m.json;
	m.json = NULL;
	sbx_msg_free(&m);
	return 0;
}

int
sbx_changes_open(struct sbx_conn *c, const char *id, int *stream,
    char **meta, char *err, size_t errlen)
{
	struct sbx_msg	 m;
	char		*req;
	int		 r;

	*stream = -1;
	*meta = NULL;
	if ((req = id_request(id, err, errlen)) == NULL)
		return -1;
	r = cs_call(c, SBX_MSG_CHANGES_OPEN, req, &m, err, errlen);
	free(req);
	if (r != 0)
		return r;
	if (m.fd == -1) {
		snprintf(err, errlen, "changes open: no stream descriptor "
		    "in the reply");
		sbx_msg_free(&m);
		errno = EPROTO;
		return -1;
	}
	*stream = m.fd;
	*meta = m.json;
	m.json = NULL;
	m.fd = -1;
	sbx_msg_free(&m);
	return 0;
}

int
sbx_changes_discard(struct sbx_conn *c, const char *id, char *err,
    size_t errlen)
{
	struct sbx_msg	 m;
	char		*req;
	int		 r;

	if ((req = id_request(id, err, errlen)) == NULL)
		return -1;
	r = cs_call(c, SBX_MSG_CHANGES_DISCARD, req, &m, err, errlen);
	free(req);
	if (r != 0)
		return r;
	sbx_msg_free(&m);
	return 0;
}
