/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * sbxctl: the command-line client of sbx.
 *
 *	sbxctl [-s socket] [--json] command [argument ...]
 *	sbxctl -h | --help
 *
 * Global options, then a command from the table in cmd.c.  Commands that
 * talk to sbx-monitor use the socket; the digest commands work locally.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "sbxctl.h"

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "json",	no_argument,	NULL,	'J' },
		{ "help",	no_argument,	NULL,	'h' },
		{ NULL,		0,		NULL,	0 }
	};
	struct sbxctl			 ctx;
	const struct sbxctl_cmd		*cmd;
	char				*name, *msg;
	int64_t				 t_main;
	int				 ch, r;

	/* First: the earlier an overlay run's T0, the less its payload
	 * waits for the file clock (run.c). */
	t_main = realtime_ns(0);

	/* Messages go to stderr, log.c's default: no log_init(), whose
	 * tzset() reads /etc/localtime on every run for times sbxctl never
	 * prints. */
	log_procinit("sbxctl");
	cmd_keep(argc, argv);
	memset(&ctx, 0, sizeof(ctx));
	ctx.t_main = t_main;
	ctx.socket = NULL;	/* -s, else $SBX_SOCKET, else the default */

	/* "+": stop at the command word; its arguments are its own. */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+hs:", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			ctx.socket = optarg;
			break;
		case 'J':
			ctx.json = 1;
			break;
		case 'h':
			/* Asked for: the usage on stdout, and success. */
			help_top(stdout);
			return 0;
		default:
			if (optopt == 's')
				msg = xstrdup("option -s needs a socket path");
			else if (optopt != 0)
				xasprintf(&msg, "unknown option -%c", optopt);
			else {
				name = out_name(argv[optind - 1]);
				xasprintf(&msg, "unknown option %s", name);
				free(name);
			}
			/* Still honour a later --json for the report. */
			args_take_json(&ctx, &argc, argv);
			r = out_usage(&ctx, "%s", msg);
			free(msg);
			return out_finish(r);
		}
	}
	argc -= optind;
	argv += optind;
	args_take_json(&ctx, &argc, argv);
	if (argc == 0)
		return out_finish(out_usage(&ctx, "command expected"));
	if ((cmd = cmd_lookup(argv[0])) == NULL) {
		name = out_name(argv[0]);
		r = out_usage(&ctx, "unknown command \"%s\"", name);
		free(name);
		return out_finish(r);
	}
	/* "sbxctl COMMAND [SUB] --help": that command's usage, exit 0. */
	if (help_wanted(cmd, argc, argv))
		return out_finish(SBXCTL_EXIT_OK);
	return out_finish(cmd->run(&ctx, argc, argv));
}
