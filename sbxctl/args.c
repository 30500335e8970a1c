/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * args.c: command-line conventions shared by every sbxctl command.
 */
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "sbxctl.h"

/*
 * --json is a global option but may also follow the command word
 * ("sbxctl digest records f --json"), so it is taken out of the
 * command's arguments up to a "--", after which everything is an operand.
 */
void
args_take_json(struct sbxctl *ctx, int *argc, char **argv)
{
	int	 i, o;

	for (i = o = 0; i < *argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			while (i < *argc)
				argv[o++] = argv[i++];
			break;
		}
		if (strcmp(argv[i], "--json") == 0)
			ctx->json = 1;
		else
			argv[o++] = argv[i];
	}
	argv[o] = NULL;
	*argc = o;
}

/*
 * For a (sub)command without options: step past argv[0], honour "--",
 * and refuse anything that looks like an option ("-" alone is an operand,
 * standard input).  0, or an SBXCTL_EXIT_USAGE status already reported;
 * what names the command in that report.
 */
int
args_operands(struct sbxctl *ctx, const char *what, int *argc, char ***argv)
{
	int	 ch;

	optind = 0;		/* glibc: full reset for this argv */
	opterr = 0;
	if ((ch = getopt(*argc, *argv, "+")) != -1)
		return out_usage(ctx, "%s: unknown option -%c", what, optopt);
	*argc -= optind;
	*argv += optind;
	return 0;
}
