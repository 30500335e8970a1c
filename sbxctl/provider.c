/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * provider.c: sbxctl provider load|list|inspect|invoke|unload|pin -- gate metric
 * providers through sbx-monitor.  Bundles, records and results travel as
 * descriptors: the bundle directory is opened here and passed, records
 * are read by the provider runner from the file (or standard input)
 * passed, and the result comes back through a pipe, so nothing large goes
 * through the control socket.
 */
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "libsbx/sbx.h"
#include "provider/provider.h"
#include "sbxctl.h"

#define RESULT_MAX	(160 * 1024 * 1024)	/* twice the output cap */
#define PIN_RECORDS_MAX	10000000	/* provider-max-records' bound */

const char *const cmd_provider_synopsis[] = {
	"provider load dir",
	"provider list",
	"provider inspect provider",
	"provider invoke provider --records file|- --clock-ms ms "
	    "[--timeout-ms ms] [--max-records n] [--max-output-bytes n]",
	"provider unload provider",
	"provider pin provider --records file|-",
	NULL
};

/*
 * Errors as the issue asks: "error: <code>: <message>", exit 1.  With
 * --json, the limit that ended the run when one did ("limit":"output",
 * "timeout", ...: sbx-protocol(7)) goes with them.
 */
static int
refused(struct sbxctl *ctx, const struct sbx_msg *m)
{
	char	 code[64], msg[1024], *s;
	cJSON	*root, *lim, *o, *e;

	if (sbx_error(m, code, sizeof(code), msg, sizeof(msg)) == -1)
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_PROTOCOL,
		    "malformed error from the monitor");
	if (ctx->json && (root = cJSON_ParseWithLength(m->json,
	    m->len)) != NULL) {
		lim = cJSON_GetObjectItemCaseSensitive(root, "limit");
		if (cJSON_IsString(lim)) {
			if ((o = cJSON_CreateObject()) == NULL ||
			    (e = cJSON_AddObjectToObject(o, "error")) == NULL ||
			    cJSON_AddStringToObject(e, "code", code) == NULL ||
			    cJSON_AddStringToObject(e, "message", msg) ==
			    NULL || cJSON_AddStringToObject(e, "limit",
			    lim->valuestring) == NULL ||
			    (s = cJSON_PrintUnformatted(o)) == NULL)
				fatalx("cJSON: out of memory");
			printf("%s\n", s);
			cJSON_free(s);
			cJSON_Delete(o);
			cJSON_Delete(root);
			return SBXCTL_EXIT_ERROR;
		}
		cJSON_Delete(root);
	}
	if (ctx->json)
		return out_error(ctx, SBXCTL_EXIT_ERROR, code, "%s", msg);
	fprintf(stderr, "error: %s: %s\n", code, msg);
	return SBXCTL_EXIT_ERROR;
}

/* Send a request (with an optional descriptor), wait for its answer. */
static int
request(struct sbxctl *ctx, struct sbx_conn *c, uint32_t type,
    const char *json, int fd, cJSON **out)
{
	struct sbx_msg	 m;
	uint32_t	 id;
	int		 r;

	if (sbx_send(c, type, json, fd, &id) == -1)
		return out_error(ctx, SBXCTL_EXIT_UNREACHABLE,
		    SBXCTL_ERR_UNREACHABLE, "sending: %s", strerror(errno));
	for (;;) {
		if ((r = sbx_recv(c, &m)) != 1)
			return out_error(ctx, SBXCTL_EXIT_UNREACHABLE,
			    SBXCTL_ERR_UNREACHABLE, "the monitor went away");
		if (m.id == id || m.id == 0)
			break;
		sbx_msg_free(&m);
	}
	if (m.type == SBX_MSG_ERROR) {
		r = refused(ctx, &m);
		sbx_msg_free(&m);
		return r;
	}
	if ((*out = cJSON_ParseWithLength(m.json, m.len)) == NULL) {
		sbx_msg_free(&m);
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_PROTOCOL,
		    "unreadable reply from the monitor");
	}
	sbx_msg_free(&m);
	return SBXCTL_EXIT_OK;
}

/* A request naming one provider, {"provider":ID}, and its answer. */
static int
provider_request(struct sbxctl *ctx, struct sbx_conn *c, uint32_t type,
    const char *id, cJSON **out)
{
	cJSON	*req;
	char	*text;
	int	 r;

	if ((req = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(req, "provider", id) == NULL ||
	    (text = cJSON_PrintUnformatted(req)) == NULL)
		fatalx("cJSON: out of memory");
	cJSON_Delete(req);
	r = request(ctx, c, type, text, -1, out);
	cJSON_free(text);
	return r;
}

static const char *
str(const cJSON *o, const char *name)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsString(v) ? v->valuestring : "?";
}

static void
print_provider(const cJSON *p)
{
	const cJSON	*m, *metrics;
	int		 first = 1;

	printf("provider %s\n", str(p, "provider"));
	printf("\tid %s\n\tversion %s\n\tbundle %s\n", str(p, "id"),
	    str(p, "version"), str(p, "bundleId"));
	printf("\tcodeDigest %s\n\tsourceDigest %s\n", str(p, "codeDigest"),
	    str(p, "sourceDigest"));
	if ((metrics = cJSON_GetObjectItemCaseSensitive(p, "metrics")) !=
	    NULL) {
		printf("\tmetrics");
		cJSON_ArrayForEach(m, metrics) {
			printf("%s%s", first ? " " : ", ", m->string);
			first = 0;
		}
		printf("\n");
	}
}

static void
print_json(const cJSON *o)
{
	char	*s;

	if ((s = cJSON_PrintUnformatted(o)) == NULL)
		fatalx("cJSON: out of memory");
	printf("%s\n", s);
	cJSON_free(s);
}

static int
p_load(struct sbxctl *ctx, struct sbx_conn *c, int argc, char **argv)
{
	const cJSON	*p, *list;
	cJSON		*o = NULL;
	int		 fd, r;

	if (argc != 1)
		return out_usage(ctx, "provider load: one bundle directory");
	if ((fd = open(argv[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_IO,
		    "provider load: %s: %s", argv[0], strerror(errno));
	/* The request's half of the opt-in (seed P5); sbx.conf's
	 * bundle-providers is the other. */
	r = request(ctx, c, SBX_MSG_PROVIDER_LOAD,
	    "{\"allowBundleProviders\":true}", fd, &o);
	close(fd);
	if (r != SBXCTL_EXIT_OK)
		return r;
	if (ctx->json)
		print_json(o);
	else {
		list = cJSON_GetObjectItemCaseSensitive(o, "providers");
		cJSON_ArrayForEach(p, list)
			print_provider(p);
	}
	cJSON_Delete(o);
	return SBXCTL_EXIT_OK;
}

static int
p_list(struct sbxctl *ctx, struct sbx_conn *c, int argc)
{
	const cJSON	*p, *list, *owner;
	cJSON		*o = NULL;
	int		 r;

	if (argc != 0)
		return out_usage(ctx, "provider list takes no arguments");
	if ((r = request(ctx, c, SBX_MSG_PROVIDER_LIST, "{}", -1, &o)) != 0)
		return r;
	if (ctx->json)
		print_json(o);
	else {
		list = cJSON_GetObjectItemCaseSensitive(o, "providers");
		cJSON_ArrayForEach(p, list) {
			printf("%s %s@%s %s", str(p, "provider"),
			    str(p, "id"), str(p, "version"),
			    str(p, "codeDigest"));
			/* root sees everyone's: whose is whose. */
			if (cJSON_IsNumber(owner = cJSON_GetObjectItemCaseSensitive(
			    p, "owner")) && owner->valuedouble != (double)getuid())
				printf(" uid %.0f", owner->valuedouble);
			if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(p,
			    "revoked")))
				printf(" revoked: %s", str(p, "revoked"));
			printf("\n");
		}
	}
	cJSON_Delete(o);
	return SBXCTL_EXIT_OK;
}

static int
p_inspect(struct sbxctl *ctx, struct sbx_conn *c, int argc, char **argv)
{
	cJSON	*o = NULL;
	int	 r;

	if (argc != 1)
		return out_usage(ctx, "provider inspect: one provider");
	r = provider_request(ctx, c, SBX_MSG_PROVIDER_INSPECT, argv[0], &o);
	if (r != SBXCTL_EXIT_OK)
		return r;
	if (ctx->json)
		print_json(o);
	else {
		print_provider(o);
		printf("\tmetrics ");
		print_json(cJSON_GetObjectItemCaseSensitive(o, "metrics"));
	}
	cJSON_Delete(o);
	return SBXCTL_EXIT_OK;
}

static int
p_unload(struct sbxctl *ctx, struct sbx_conn *c, int argc, char **argv)
{
	cJSON	*o = NULL;
	int	 r;

	if (argc != 1)
		return out_usage(ctx, "provider unload: one provider");
	r = provider_request(ctx, c, SBX_MSG_PROVIDER_UNLOAD, argv[0], &o);
	if (r != SBXCTL_EXIT_OK)
		return r;
	if (ctx->json)
		print_json(o);
	else
		printf("unloaded %s\n", str(o, "provider"));
	cJSON_Delete(o);
	return SBXCTL_EXIT_OK;
}

/*
 * The binding pin of an issued provider over a records file: its
 * identity as the monitor issued it (provider inspect) and the records'
 * digest computed exactly as an evaluation computes it (the records
 * parsed as an array and digested by their canonical text, pin.c), so
 * the pin an evaluation checks is the one printed, in a binding's
 * metricProviders order.
 */
static int
p_pin(struct sbxctl *ctx, struct sbx_conn *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "records", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'J' },
		{ NULL, 0, NULL, 0 }
	};
	struct prov_error	 perr;
	struct json_value	*recs;
	const char		*records = NULL;
	cJSON			*o = NULL, *pin, *w;
	char			 digest[DIGEST_STR_LEN + 1], *buf;
	char			*name, *rtext;
	size_t			 len, rlen;
	int			 ch, r;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'r':
			records = optarg;
			break;
		case 'J':
			ctx->json = 1;
			break;
		default:
			return out_usage(ctx, "provider pin: unknown option "
			    "or missing argument");
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1 || records == NULL)
		return out_usage(ctx, "provider pin: a provider and --records "
		    "are needed");
	name = out_name(records);
	if (input_read(records, JSON_MAX_BYTES_DEFAULT, &buf, &len) == -1) {
		r = out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_IO,
		    "provider pin: %s: %s", name, strerror(errno));
		free(name);
		return r;
	}
	r = prov_records_parse(buf, len, PIN_RECORDS_MAX, &recs, &perr);
	free(buf);
	if (r == 0) {
		r = prov_records_canonical(recs, PIN_RECORDS_MAX, &rtext,
		    &rlen, digest, &perr);
		free(rtext);
		json_free(recs);
	}
	if (r == -1) {
		r = out_error(ctx, SBXCTL_EXIT_ERROR, prov_code_name(perr.code),
		    "provider pin: %s: %s", name, perr.msg);
		free(name);
		return r;
	}
	free(name);
	r = provider_request(ctx, c, SBX_MSG_PROVIDER_INSPECT, argv[0], &o);
	if (r != SBXCTL_EXIT_OK)
		return r;
	if ((pin = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(pin, "id", str(o, "id")) == NULL ||
	    cJSON_AddStringToObject(pin, "version", str(o, "version")) ==
	    NULL || cJSON_AddStringToObject(pin, "sourceDigest",
	    str(o, "sourceDigest")) == NULL ||
	    cJSON_AddStringToObject(pin, "codeDigest", str(o, "codeDigest")) ==
	    NULL || cJSON_AddStringToObject(pin, "recordsDigest", digest) ==
	    NULL)
		fatalx("cJSON: out of memory");
	cJSON_Delete(o);
	if (ctx->json) {
		if ((w = cJSON_CreateObject()) == NULL)
			fatalx("cJSON: out of memory");
		cJSON_AddItemToObject(w, "pin", pin);
		print_json(w);
		cJSON_Delete(w);
	} else {
		print_json(pin);
		cJSON_Delete(pin);
	}
	return SBXCTL_EXIT_OK;
}

static int
number(struct sbxctl *ctx, const char *opt, const char *arg, long long max,
    long long *out)
{
	const char	*errstr;

	*out = strtonum(arg, 0, max, &errstr);
	if (errstr != NULL)
		return out_usage(ctx, "provider invoke: %s %s: %s", opt, arg,
		    errstr);
	return 0;
}

static int
p_invoke(struct sbxctl *ctx, struct sbx_conn *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "records", required_argument, NULL, 'r' },
		{ "clock-ms", required_argument, NULL, 'c' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "max-records", required_argument, NULL, 'n' },
		{ "max-output-bytes", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'J' },
		{ NULL, 0, NULL, 0 }
	};
	struct sbx_msg	 m;
	struct pollfd	 pfd[2];
	const char	*records = NULL, *handle;
	cJSON		*req;
	char		*text, *res = NULL;
	size_t		 reslen = 0;
	ssize_t		 n;
	long long	 v;
	uint32_t	 id;
	int		 ch, recfd, p[2], r, have_clock = 0, done = 0;
	int		 status = SBXCTL_EXIT_OK, eof = 0;

	if ((req = cJSON_CreateObject()) == NULL)
		fatalx("cJSON: out of memory");
	optind = 0;
	opterr = 0;
	/* Options may follow the provider (GNU argument permutation). */
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'r':
			records = optarg;
			break;
		case 'c':
			if ((r = number(ctx, "--clock-ms", optarg,
			    8640000000000000LL, &v)) != 0)
				goto refuse;
			cJSON_AddNumberToObject(req, "clockMs", (double)v);
			have_clock = 1;
			break;
		case 't':
		case 'n':
		case 'o':
			if ((r = number(ctx, argv[optind - 1], optarg,
			    1LL << 40, &v)) != 0)
				goto refuse;
			cJSON_AddNumberToObject(req, ch == 't' ? "timeoutMs" :
			    ch == 'n' ? "maxRecords" : "maxOutputBytes",
			    (double)v);
			break;
		case 'J':
			ctx->json = 1;
			break;
		default:
			r = out_usage(ctx, "provider invoke: unknown option "
			    "or missing argument");
			goto refuse;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1 || records == NULL || !have_clock) {
		r = out_usage(ctx, "provider invoke: provider, --records "
		    "and --clock-ms are needed");
		goto refuse;
	}
	handle = argv[0];
	cJSON_AddStringToObject(req, "provider", handle);
	if (strcmp(records, "-") == 0)
		recfd = STDIN_FILENO;
	else if ((recfd = open(records, O_RDONLY | O_CLOEXEC)) == -1) {
		r = out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_IO,
		    "provider invoke: %s: %s", records, strerror(errno));
		goto refuse;
	}
	if (pipe2(p, O_CLOEXEC) == -1)
		fatal("pipe2");
	if ((text = cJSON_PrintUnformatted(req)) == NULL)
		fatalx("cJSON: out of memory");
	cJSON_Delete(req);
	if (sbx_send(c, SBX_MSG_PROVIDER_INVOKE, text, recfd, &id) == -1 ||
	    sbx_send_id(c, SBX_MSG_PROVIDER_OUTPUT, id, "{}", p[1]) == -1)
		return out_error(ctx, SBXCTL_EXIT_UNREACHABLE,
		    SBXCTL_ERR_UNREACHABLE, "sending: %s", strerror(errno));
	cJSON_free(text);
	close(p[1]);
	if (recfd != STDIN_FILENO)
		close(recfd);

	/* Read the result while waiting for the verdict: it may be more
	 * than a pipe holds. */
	pfd[0].fd = sbx_conn_fd(c);
	pfd[0].events = POLLIN;
	pfd[1].fd = p[0];
	pfd[1].events = POLLIN;
	while (!done || !eof) {
		if (poll(pfd, eof ? 1 : 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			fatal("poll");
		}
		if (!eof && (pfd[1].revents & (POLLIN | POLLHUP))) {
			res = xrecallocarray(res, reslen, reslen + 65536, 1);
			if ((n = read(p[0], res + reslen, 65536)) <= 0)
				eof = 1;
			else if ((reslen += n) > RESULT_MAX)
				fatalx("provider invoke: result over %d bytes",
				    RESULT_MAX);
		}
		if (done || !(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if ((r = sbx_recv(c, &m)) != 1)
			return out_error(ctx, SBXCTL_EXIT_UNREACHABLE,
			    SBXCTL_ERR_UNREACHABLE, "the monitor went away");
		if (m.id != id && m.id != 0) {
			sbx_msg_free(&m);
			continue;
		}
		if (m.type == SBX_MSG_ERROR)
			status = refused(ctx, &m);
		done = 1;
		sbx_msg_free(&m);
		/* A refusal writes nothing; do not wait for the pipe. */
		if (status != SBXCTL_EXIT_OK)
			eof = 1;
	}
	close(p[0]);
	if (status == SBXCTL_EXIT_OK) {
		if (reslen == 0)
			status = out_error(ctx, SBXCTL_EXIT_ERROR,
			    SBXCTL_ERR_PROTOCOL, "provider invoke: no result");
		else if (fwrite(res, 1, reslen, stdout) != reslen)
			status = SBXCTL_EXIT_ERROR;
		else if (res[reslen - 1] != '\n')
			putchar('\n');
	}
	free(res);
	return status;

 refuse:
	/* Refused before anything was sent: the request goes with it. */
	cJSON_Delete(req);
	return r;
}

int
cmd_provider(struct sbxctl *ctx, int argc, char **argv)
{
	struct sbx_conn	*c;
	const char	*sub;
	int		 status = SBXCTL_EXIT_OK;

	if (argc < 2)
		return out_usage(ctx, "provider: load, list, inspect, invoke, "
		    "unload or pin");
	sub = argv[1];
	argc -= 2;
	argv += 2;
	if (strcmp(sub, "load") != 0 && strcmp(sub, "list") != 0 &&
	    strcmp(sub, "inspect") != 0 && strcmp(sub, "invoke") != 0 &&
	    strcmp(sub, "unload") != 0 && strcmp(sub, "pin") != 0)
		return out_usage(ctx, "provider: unknown subcommand %s", sub);
	if ((c = ctl_connect(ctx, &status)) == NULL)
		return status;
	if (strcmp(sub, "load") == 0)
		status = p_load(ctx, c, argc, argv);
	else if (strcmp(sub, "list") == 0)
		status = p_list(ctx, c, argc);
	else if (strcmp(sub, "inspect") == 0)
		status = p_inspect(ctx, c, argc, argv);
	else if (strcmp(sub, "unload") == 0)
		status = p_unload(ctx, c, argc, argv);
	else if (strcmp(sub, "pin") == 0)
		status = p_pin(ctx, c, argc + 1, argv - 1);
	else
		status = p_invoke(ctx, c, argc + 1, argv - 1);
	sbx_disconnect(c);
	return status;
}
