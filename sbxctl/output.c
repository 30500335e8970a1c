/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * output.c: how sbxctl reports.  Plain mode prints results on stdout and
 * one "sbxctl: ..." line on stderr for an error; --json prints one JSON
 * object per invocation on stdout, {"error":{"code":..,"message":..}} for
 * an error, so a client in any language can rely on its shape.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* We use stravis only; pick the OpenBSD flavour libbsd asks us to name. */
#define LIBBSD_OPENBSD_VIS
#include <vis.h>

#include <cJSON.h>

#include "common.h"
#include "sbxctl.h"

static void
print_json(cJSON *obj)
{
	char	*s;

	if ((s = cJSON_PrintUnformatted(obj)) == NULL)
		fatalx("cJSON_PrintUnformatted: out of memory");
	printf("%s\n", s);
	cJSON_free(s);
	cJSON_Delete(obj);
}

static void
json_error(const char *code, const char *msg)
{
	cJSON	*obj, *err;

	if ((obj = cJSON_CreateObject()) == NULL ||
	    (err = cJSON_AddObjectToObject(obj, "error")) == NULL ||
	    cJSON_AddStringToObject(err, "code", code) == NULL ||
	    cJSON_AddStringToObject(err, "message", msg) == NULL)
		fatalx("cJSON: out of memory");
	print_json(obj);
}

static int
verror(struct sbxctl *ctx, int status, const char *code, const char *fmt,
    va_list ap)
{
	char	*msg;

	if (vasprintf(&msg, fmt, ap) == -1)
		fatal("vasprintf");
	if (ctx->json)
		json_error(code, msg);
	else
		fprintf(stderr, "sbxctl: %s\n", msg);
	free(msg);
	return status;
}

/* Report a failure of the command; returns status for the caller. */
int
out_error(struct sbxctl *ctx, int status, const char *code,
    const char *fmt, ...)
{
	va_list	 ap;
	int	 r;

	va_start(ap, fmt);
	r = verror(ctx, status, code, fmt, ap);
	va_end(ap);
	return r;
}

/* A wrong command line: the reason, then the synopsis on stderr. */
int
out_usage(struct sbxctl *ctx, const char *fmt, ...)
{
	va_list	 ap;

	cmd_tools();	/* sbxctl: sbxctl-tools says it, with the usage */
	va_start(ap, fmt);
	verror(ctx, SBXCTL_EXIT_USAGE, SBXCTL_ERR_USAGE, fmt, ap);
	va_end(ap);
	cmd_usage(stderr);
	return SBXCTL_EXIT_USAGE;
}

/* A result that is one string: the string, or {"key":"value"}. */
int
out_string(struct sbxctl *ctx, const char *key, const char *value)
{
	cJSON	*obj;

	if (!ctx->json) {
		printf("%s\n", value);
		return SBXCTL_EXIT_OK;
	}
	if ((obj = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(obj, key, value) == NULL)
		fatalx("cJSON: out of memory");
	print_json(obj);
	return SBXCTL_EXIT_OK;
}

/*
 * A file name or argument as it may appear in a message: these are
 * caller-chosen bytes, and echoing control characters to a terminal (or
 * invalid UTF-8 into --json output) would let them forge output.
 */
char *
out_name(const char *s)
{
	char	*out;

	if (stravis(&out, s, VIS_CSTYLE | VIS_OCTAL | VIS_TAB | VIS_NL |
	    VIS_NOLOCALE) == -1)
		fatal("stravis");
	return out;
}

/* A result nobody received is a failure (full disk, closed pipe). */
int
out_finish(int status)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "sbxctl: standard output: write failed\n");
		return SBXCTL_EXIT_ERROR;
	}
	return status;
}
