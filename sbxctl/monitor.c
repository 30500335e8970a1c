/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * monitor.c: the sbxctl commands that ask sbx-monitor something: ping,
 * status, privs.  They speak the agent protocol through libsbx exactly as
 * any agent would; nothing here is privileged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "common.h"
#include "libsbx/sbx.h"
#include "sbxctl.h"

const char *const cmd_ping_synopsis[] = { "ping", NULL };
const char *const cmd_status_synopsis[] = { "status", NULL };
const char *const cmd_privs_synopsis[] = { "privs [name]", NULL };

/* Connect; on failure report it with the right exit status. */
struct sbx_conn *
ctl_connect(struct sbxctl *ctx, int *status)
{
	struct sbx_conn	*c;
	char		 err[512];

	if ((c = sbx_connect(sbx_socket_path(ctx->socket),
	    "sbxctl " SBX_VERSION, err, sizeof(err))) != NULL)
		return c;
	/* The monitor answered and said no: that is a refusal, not an
	 * unreachable monitor. */
	if (errno == EPERM)
		*status = out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_REFUSED,
		    "%s", err);
	else if (errno == EPROTO)
		*status = out_error(ctx, SBXCTL_EXIT_ERROR,
		    SBXCTL_ERR_PROTOCOL, "%s", err);
	else
		*status = out_error(ctx, SBXCTL_EXIT_UNREACHABLE,
		    SBXCTL_ERR_UNREACHABLE, "%s", err);
	return NULL;
}

/*
 * One request, its reply parsed.  On an error reply or a transport failure
 * the reason is reported and NULL returned with *status set.
 */
static cJSON *
ctl_call(struct sbxctl *ctx, struct sbx_conn *c, uint32_t type,
    const char *req, int *status)
{
	struct sbx_msg	 m;
	char		 err[512], code[64];
	cJSON		*o;

	if (sbx_call(c, type, req, &m, err, sizeof(err)) == -1) {
		*status = out_error(ctx, SBXCTL_EXIT_UNREACHABLE,
		    SBXCTL_ERR_UNREACHABLE, "%s", err);
		return NULL;
	}
	if (m.type == SBX_MSG_ERROR) {
		if (sbx_error(&m, code, sizeof(code), err, sizeof(err)) == -1)
			*status = out_error(ctx, SBXCTL_EXIT_ERROR,
			    SBXCTL_ERR_PROTOCOL, "malformed error from the "
			    "monitor");
		else
			*status = out_error(ctx, SBXCTL_EXIT_ERROR, code,
			    "%s: %s", code, err);
		sbx_msg_free(&m);
		return NULL;
	}
	if (m.type != (type | SBX_REPLY) ||
	    (o = cJSON_ParseWithLength(m.json, m.len)) == NULL ||
	    !cJSON_IsObject(o)) {
		*status = out_error(ctx, SBXCTL_EXIT_ERROR,
		    SBXCTL_ERR_PROTOCOL, "unexpected reply type %u from the "
		    "monitor", m.type);
		sbx_msg_free(&m);
		return NULL;
	}
	sbx_msg_free(&m);
	return o;
}

static void
print_json(cJSON *o)
{
	char	*s;

	if ((s = cJSON_PrintUnformatted(o)) == NULL)
		fatalx("cJSON: out of memory");
	printf("%s\n", s);
	cJSON_free(s);
}

static double
num(const cJSON *o, const char *name)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static const char *
str(const cJSON *o, const char *name)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsString(v) ? v->valuestring : "?";
}

int
cmd_ping(struct sbxctl *ctx, int argc, char **argv)
{
	struct sbx_conn	*c;
	struct timespec	 t0, t1;
	cJSON		*o;
	double		 ms;
	int		 status = SBXCTL_EXIT_OK;

	if ((status = args_operands(ctx, "ping", &argc, &argv)) != 0)
		return status;
	if (argc != 0)
		return out_usage(ctx, "ping takes no arguments");
	if ((c = ctl_connect(ctx, &status)) == NULL)
		return status;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	o = ctl_call(ctx, c, SBX_MSG_PING, "{}", &status);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o != NULL) {
		ms = (t1.tv_sec - t0.tv_sec) * 1e3 +
		    (t1.tv_nsec - t0.tv_nsec) / 1e6;
		if (ctx->json) {
			cJSON_AddStringToObject(o, "server", sbx_server(c));
			cJSON_AddNumberToObject(o, "ms", ms);
			print_json(o);
		} else
			printf("%s answered in %.3f ms\n", sbx_server(c), ms);
		cJSON_Delete(o);
	}
	sbx_disconnect(c);
	return status;
}

/* The proxy's live tunnels and its totals since it started. */
static void
status_proxy(const cJSON *p, int own)
{
	const cJSON	*live, *t;
	double		 listed = 0;

	if (p == NULL)
		return;
	if (own)
		printf("proxy %.0f tunnels of yours (the service's totals "
		    "are shown to root only)\n", num(p, "tunnels"));
	else
		printf("proxy %.0f connections, %.0f tunnels; since start "
		    "%.0f connections (%.0f over a cap), %.0f requests, %.0f "
		    "denied, %.0f bytes up, %.0f down\n",
		    num(p, "connections"), num(p, "tunnels"),
		    num(p, "accepted"), num(p, "over_cap"),
		    num(p, "requests"), num(p, "denied"), num(p, "bytes_up"),
		    num(p, "bytes_down"));
	live = cJSON_GetObjectItemCaseSensitive(p, "live");
	cJSON_ArrayForEach(t, live) {
		printf("tunnel sandbox %-6.0f %s:%.0f (%s) up %.0f down %.0f "
		    "age %.1f s\n", num(t, "sandbox"), str(t, "host"),
		    num(t, "port"), str(t, "addr"), num(t, "bytes_up"),
		    num(t, "bytes_down"), num(t, "age_ms") / 1000);
		listed++;
	}
	if (num(p, "tunnels") > listed)
		printf("tunnel ... and %.0f more\n", num(p, "tunnels") -
		    listed);
}

int
cmd_status(struct sbxctl *ctx, int argc, char **argv)
{
	struct sbx_conn	*c;
	const cJSON	*r, *roles, *st;
	cJSON		*o;
	int		 status = SBXCTL_EXIT_OK, own;

	if ((status = args_operands(ctx, "status", &argc, &argv)) != 0)
		return status;
	if (argc != 0)
		return out_usage(ctx, "status takes no arguments");
	if ((c = ctl_connect(ctx, &status)) == NULL)
		return status;
	if ((o = ctl_call(ctx, c, SBX_MSG_STATUS, "{}", &status)) != NULL) {
		if (ctx->json)
			print_json(o);
		else {
			printf("sbx-monitor %s, pid %.0f, user %s, up %.0f s\n",
			    str(o, "version"), num(o, "pid"), str(o, "user"),
			    num(o, "uptime"));
			/* A peer other than root sees its own only. */
			own = strcmp(str(o, "scope"), "own") == 0;
			printf("connections %.0f, sandboxes %.0f%s, memory and "
			    "pids limits by %s%s%s%s\n", num(o, "connections"),
			    num(o, "sandboxes"), own ? " (yours)" : "",
			    str(o, "limits"),
			    cJSON_HasObjectItem(o, "cgroup") ? " " : "",
			    cJSON_HasObjectItem(o, "cgroup") ? str(o, "cgroup") :
			    "", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o,
			    "favordynmods")) ? ", favordynmods" : "");
			st = cJSON_GetObjectItemCaseSensitive(o,
			    "provider_pool");
			if (num(st, "size") > 0)
				printf("provider pool %.0f, %.0f booted and "
				    "idle\n", num(st, "size"), num(st, "idle"));
			st = cJSON_GetObjectItemCaseSensitive(o, "warm");
			if (num(st, "idle") > 0 || num(st, "building") > 0) {
				printf("warm sandboxes %.0f%s, built and "
				    "waiting for a run", num(st, "idle"),
				    own ? " (yours)" : "");
				if (num(st, "building") > 0)
					printf("; %.0f being built",
					    num(st, "building"));
				putchar('\n');
			}
			st = cJSON_GetObjectItemCaseSensitive(o, "selftest");
			if (strcmp(str(st, "verdict"), "passed") == 0)
				printf("selftest passed (%.0f checks)\n",
				    num(st, "checks"));
			else
				printf("selftest %s: %s (every sandbox is "
				    "refused)\n", str(st, "verdict"),
				    str(st, "detail"));
			roles = cJSON_GetObjectItemCaseSensitive(o, "roles");
			cJSON_ArrayForEach(r, roles)
				printf("role %-16s pid %-8.0f user %s\n",
				    str(r, "name"), num(r, "pid"),
				    str(r, "user"));
			status_proxy(cJSON_GetObjectItemCaseSensitive(o,
			    "proxy"), own);
			st = cJSON_GetObjectItemCaseSensitive(o, "usage");
			cJSON_ArrayForEach(r, st)
				printf("usage uid %-6.0f %.0f runs, wall %.3f s, "
				    "user %.3f s, sys %.3f s, peak memory "
				    "%.0f bytes at most, %.0f tasks, stdout "
				    "%.0f bytes, stderr %.0f bytes\n",
				    num(r, "uid"), num(r, "runs"),
				    num(r, "wall_ms") / 1000,
				    num(r, "user_ms") / 1000,
				    num(r, "sys_ms") / 1000,
				    num(r, "peak_memory_max"), num(r, "tasks"),
				    num(r, "stdout_bytes"),
				    num(r, "stderr_bytes"));
		}
		cJSON_Delete(o);
	}
	sbx_disconnect(c);
	return status;
}

/* Fetch one table's text; NULL (reported) on failure. */
static cJSON *
privs_one(struct sbxctl *ctx, struct sbx_conn *c, const char *name,
    int *status)
{
	cJSON	*req, *o;
	char	*text;

	if ((req = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(req, "name", name) == NULL ||
	    (text = cJSON_PrintUnformatted(req)) == NULL)
		fatalx("cJSON: out of memory");
	cJSON_Delete(req);
	o = ctl_call(ctx, c, SBX_MSG_PRIVS, text, status);
	cJSON_free(text);
	return o;
}

int
cmd_privs(struct sbxctl *ctx, int argc, char **argv)
{
	struct sbx_conn	*c;
	const cJSON	*n, *names;
	cJSON		*list = NULL, *out, *arr, *o;
	int		 status = SBXCTL_EXIT_OK, first = 1;

	if ((status = args_operands(ctx, "privs", &argc, &argv)) != 0)
		return status;
	if (argc > 1)
		return out_usage(ctx, "privs takes at most one name");
	if ((c = ctl_connect(ctx, &status)) == NULL)
		return status;
	/* One table per request keeps every frame small (design.md §3). */
	if (argc == 1) {
		if ((list = cJSON_CreateObject()) == NULL ||
		    (arr = cJSON_AddArrayToObject(list, "names")) == NULL)
			fatalx("cJSON: out of memory");
		cJSON_AddItemToArray(arr, cJSON_CreateString(argv[0]));
	} else if ((list = ctl_call(ctx, c, SBX_MSG_PRIVS, "{}",
	    &status)) == NULL) {
		sbx_disconnect(c);
		return status;
	}
	if ((out = cJSON_CreateObject()) == NULL ||
	    (arr = cJSON_AddArrayToObject(out, "privs")) == NULL)
		fatalx("cJSON: out of memory");
	names = cJSON_GetObjectItemCaseSensitive(list, "names");
	cJSON_ArrayForEach(n, names) {
		if (!cJSON_IsString(n))
			continue;
		if ((o = privs_one(ctx, c, n->valuestring, &status)) == NULL)
			break;
		if (!ctx->json) {
			if (!first)
				putchar('\n');
			fputs(str(o, "text"), stdout);
		}
		first = 0;
		cJSON_AddItemToArray(arr, o);
	}
	if (ctx->json && status == SBXCTL_EXIT_OK)
		print_json(out);
	cJSON_Delete(out);
	cJSON_Delete(list);
	sbx_disconnect(c);
	return status;
}
