/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * cslist.c: `sbxctl changes` (the caller's changesets) and `sbxctl
 * discard ID` (issue 23), through libsbx's sbx_changes_list and
 * sbx_changes_discard.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "common.h"
#include "libsbx/sbx.h"
#include "sbxctl.h"

const char *const cmd_changes_synopsis[] = { "changes [--json] [ID]",
    NULL };
const char *const cmd_discard_synopsis[] = { "discard [--json] ID", NULL };

static void
put_json(cJSON *o)
{
	char	*s;

	if ((s = cJSON_PrintUnformatted(o)) == NULL)
		fatalx("cJSON: out of memory");
	printf("%s\n", s);
	cJSON_free(s);
}

/* An age as people read it: 45s, 12m, 3h, 6d. */
static void
fmt_age(double secs, char *buf, size_t len)
{
	long long	 s = secs < 0 ? 0 : (long long)secs;

	if (s < 60)
		snprintf(buf, len, "%llds", s);
	else if (s < 3600)
		snprintf(buf, len, "%lldm", s / 60);
	else if (s < 86400)
		snprintf(buf, len, "%lldh", s / 3600);
	else
		snprintf(buf, len, "%lldd", s / 86400);
}

static double
num(const cJSON *o, const char *key)
{
	const cJSON	*j = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(j) ? j->valuedouble : 0;
}

static const char *
str(const cJSON *o, const char *key)
{
	const cJSON	*j = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(j) ? j->valuestring : "?";
}

int
cmd_changes(struct sbxctl *ctx, int argc, char **argv)
{
	struct sbx_conn	*c;
	const cJSON	*a, *e;
	cJSON		*o;
	char		 err[512], age[32], *json, *dir;
	int		 status = SBXCTL_EXIT_OK, r;

	if ((status = args_operands(ctx, "changes", &argc, &argv)) != 0)
		return status;
	if (argc == 1)
		return cs_changes_id(ctx, argv[0]);	/* csview.c */
	if (argc != 0)
		return out_usage(ctx, "changes takes at most a changeset ID");
	if ((c = ctl_connect(ctx, &status)) == NULL)
		return status;
	r = sbx_changes_list(c, &json, err, sizeof(err));
	sbx_disconnect(c);
	if (r == -1)
		return out_error(ctx, SBXCTL_EXIT_UNREACHABLE,
		    SBXCTL_ERR_UNREACHABLE, "changes: %s", err);
	if (r == 1)
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_REFUSED,
		    "changes: %s", err);
	o = cJSON_Parse(json);
	free(json);
	a = cJSON_GetObjectItemCaseSensitive(o, "changesets");
	if (!cJSON_IsArray(a)) {
		cJSON_Delete(o);
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_PROTOCOL,
		    "changes: the monitor's reply has no changesets list");
	}
	if (ctx->json)
		put_json(o);
	else {
		cJSON_ArrayForEach(e, a) {
			fmt_age(difftime(time(NULL), (time_t)num(e,
			    "last_run")), age, sizeof(age));
			dir = out_name(str(e, "dir"));
			printf("%s  %s  %s  %.0f bytes  %.0f changed  "
			    "%.0f run%s\n", str(e, "id"), dir, age,
			    num(e, "size"), num(e, "entries"), num(e, "runs"),
			    num(e, "runs") == 1 ? "" : "s");
			free(dir);
		}
	}
	cJSON_Delete(o);
	return status;
}

int
cmd_discard(struct sbxctl *ctx, int argc, char **argv)
{
	struct sbx_conn	*c;
	cJSON		*o;
	char		 err[512];
	int		 status = SBXCTL_EXIT_OK, r;

	if ((status = args_operands(ctx, "discard", &argc, &argv)) != 0)
		return status;
	if (argc != 1)
		return out_usage(ctx, "discard takes one changeset ID");
	if ((c = ctl_connect(ctx, &status)) == NULL)
		return status;
	r = sbx_changes_discard(c, argv[0], err, sizeof(err));
	sbx_disconnect(c);
	if (r == -1)
		return out_error(ctx, errno == EINVAL ? SBXCTL_EXIT_USAGE :
		    SBXCTL_EXIT_UNREACHABLE, errno == EINVAL ?
		    SBXCTL_ERR_USAGE : SBXCTL_ERR_UNREACHABLE, "discard: %s",
		    err);
	if (r == 1)
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_REFUSED,
		    "discard: %s", err);
	if (ctx->json) {
		if ((o = cJSON_CreateObject()) == NULL)
			fatalx("cJSON: out of memory");
		cJSON_AddStringToObject(o, "discarded", argv[0]);
		put_json(o);
		cJSON_Delete(o);
	}
	return status;
}
