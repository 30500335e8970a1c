/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * cmd.c: the table of sbxctl commands.  Adding a command is one entry
 * here and one file; usage text is drawn from the table so it cannot
 * drift from what is dispatched.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "sbxctl.h"

static const struct sbxctl_cmd cmds[] = {
	{ "apply",	cmd_apply,	cmd_apply_synopsis },
	{ "changes",	cmd_changes,	cmd_changes_synopsis },
	{ "diff",	cmd_diff,	cmd_diff_synopsis },
	{ "digest",	cmd_digest,	cmd_digest_synopsis },
	{ "discard",	cmd_discard,	cmd_discard_synopsis },
	{ "gates",	cmd_gates,	cmd_gates_synopsis },
	{ "ping",	cmd_ping,	cmd_ping_synopsis },
	{ "privs",	cmd_privs,	cmd_privs_synopsis },
	{ "provider",	cmd_provider,	cmd_provider_synopsis },
	{ "run",	cmd_run,	cmd_run_synopsis },
	{ "status",	cmd_status,	cmd_status_synopsis },
};

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

	fprintf(fp, "usage: sbxctl [-s socket] [--json] command "
	    "[argument ...]\n");
	for (i = 0; i < nitems(cmds); i++)
		for (s = cmds[i].synopsis; *s != NULL; s++)
			fprintf(fp, "       sbxctl %s\n", *s);
}
