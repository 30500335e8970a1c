/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * cmd.c: the table of sbxctl commands.  Adding a command is one entry
 * here and one file; usage text is drawn from the table so it cannot
 * drift from what is dispatched.
 *
 * This file is compiled twice.  As itself it is the table of
 * sbxctl-tools (libexec), which has every command.  With SBXCTL_LEAN it
 * is the table of sbxctl (bindir), the program agents start for each
 * command they run: it links libsbx and what libsbx needs only (libc,
 * libcjson, libbsd), so its rows are the commands that need no more (a
 * TOOL() row is left out of it); a command it does not have, a usage
 * error and the usage text are sbxctl-tools's job, which sbxctl
 * exec's with the command line as given (cmd_tools()).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "rolespawn.h"
#include "sbxctl.h"

/* A command that links more than libsbx (the gates engine, the provider
 * and conf archives, libsodium, libyaml): only in sbxctl-tools. */
#ifdef SBXCTL_LEAN
#define TOOL(name, run, synopsis)
#else
#define TOOL(name, run, synopsis)	{ name, run, synopsis },
#endif

static const struct sbxctl_cmd cmds[] = {
	TOOL("apply",	cmd_apply,	cmd_apply_synopsis)
	TOOL("changes",	cmd_changes,	cmd_changes_synopsis)
	TOOL("diff",	cmd_diff,	cmd_diff_synopsis)
	TOOL("digest",	cmd_digest,	cmd_digest_synopsis)
	TOOL("discard",	cmd_discard,	cmd_discard_synopsis)
	TOOL("gates",	cmd_gates,	cmd_gates_synopsis)
	{ "ping",	cmd_ping,	cmd_ping_synopsis },
	{ "privs",	cmd_privs,	cmd_privs_synopsis },
	TOOL("provider", cmd_provider,	cmd_provider_synopsis)
	{ "run",	cmd_run,	cmd_run_synopsis },
	{ "status",	cmd_status,	cmd_status_synopsis },
};

#ifdef SBXCTL_LEAN
static char	**cmdline;	/* sbxctl's argv as given */
#endif

/* Called first thing: the command line sbxctl-tools gets. */
void
cmd_keep(int argc, char **argv)
{
#ifdef SBXCTL_LEAN
	/* A copy: a command's getopt_long() permutes argv in place. */
	cmdline = xreallocarray(NULL, argc + 1, sizeof(*argv));
	memcpy(cmdline, argv, (argc + 1) * sizeof(*argv));
#else
	/* sbxctl-tools execs nothing: keeping a copy would only leak it. */
	(void)argc;
	(void)argv;
#endif
}

/*
 * sbxctl: exec sbxctl-tools, at SBX_BIN_ROLEDIR from sbxctl's directory,
 * with the command line as given; it says what sbxctl would have said.
 * sbxctl-tools: nothing (returns).
 */
void
cmd_tools(void)
{
#ifdef SBXCTL_LEAN
	char	 dir[PATH_MAX], path[PATH_MAX];

	if (role_dir(SBX_BIN_ROLEDIR, dir, sizeof(dir)) == -1 ||
	    (size_t)snprintf(path, sizeof(path), "%s/sbxctl-tools", dir) >=
	    sizeof(path)) {
		fprintf(stderr, "sbxctl: locating sbxctl-tools: %s\n",
		    strerror(errno == 0 ? ENAMETOOLONG : errno));
		exit(SBXCTL_EXIT_ERROR);
	}
	execv(path, cmdline);
	fprintf(stderr, "sbxctl: %s: %s\n", path, strerror(errno));
	exit(SBXCTL_EXIT_ERROR);
#endif
}

const struct sbxctl_cmd *
cmd_lookup(const char *name)
{
	size_t	 i;

	for (i = 0; i < nitems(cmds); i++)
		if (strcmp(cmds[i].name, name) == 0)
			return &cmds[i];
	return NULL;
}

void
cmd_usage(FILE *fp)
{
	const char *const	*s;
	size_t			 i;

	cmd_tools();
	fprintf(fp, "usage: sbxctl [-s socket] [--json] command "
	    "[argument ...]\n");
	for (i = 0; i < nitems(cmds); i++)
		for (s = cmds[i].synopsis; *s != NULL; s++)
			fprintf(fp, "       sbxctl %s\n", *s);
}
