/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * help.c: "--help" (or -h) anywhere in a command line, before a "--",
 * prints that command's usage with every option explained, on stdout,
 * and exits 0: "sbxctl --help", "sbxctl gates --help", "sbxctl gates
 * evaluate --help".  The texts are sbxctl(1)'s, shortened; a command
 * or subcommand with no entry gets its synopsis lines.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "sbxctl.h"

struct help {
	const char	*cmd;
	const char	*sub;		/* NULL: the command itself */
	const char	*text;
};

#define GATES_DOCS \
"  --binding file       the GateBinding (JSON or YAML)\n" \
"  --metrics file       the metrics document the providers produced\n" \
"  --holdout file       the sealed holdout record\n" \
"  --upstream file      the sealed upstream record, when a gate needs it\n" \
"  --trusted-binding-digest sha256:HEX\n" \
"                       the binding's digest as the caller trusts it\n" \
"  --pack-dir dir       a project pack directory or file (repeatable)\n" \
"  --records id=file    the records a pinned bundle provider is re-run\n" \
"                       over (repeatable, one per provider)\n" \
"  --offline            do not ask sbx-monitor: run the job in a provider\n" \
"                       runner sbxctl starts (also without a monitor)\n" \
"  --config sbx.conf    offline: the sbx.conf whose gate-packs and\n" \
"                       provider-allowlist (floors, ceilings) apply\n" \
"                       (default: the system's, when readable)\n"

static const struct help helps[] = {
	{ "digest", NULL,
"Digests of provider inputs, computed locally.\n"
"  records file|-       the recordsDigest of a records file (- is stdin)\n"
"  bundle dir module    the codeDigest and sourceDigest of a bundle\n" },
	{ "gates", NULL,
"Gate packs, bindings and reports.\n"
"  validate   check a pack, binding or report against the schemas\n"
"  evaluate   decide PROMOTE, HOLD or ROLLBACK; print the GateReport\n"
"  verify     re-derive a report from its inputs; print {valid, reasons}\n"
"  render     print a report for people: text or a markdown table\n"
"  list       the registered packs (shipped, operator, --pack-dir)\n"
"  show       one pack, composed\n"
"  digest     the canonical digest of a document\n"
"  seal-holdout, seal-upstream\n"
"             seal a holdout or upstream record\n"
"Each takes --help.  evaluate and verify go through sbx-monitor, or\n"
"offline through a provider runner sbxctl starts (--offline).\n" },
	{ "gates", "validate",
"  pack|binding|report|auto   what the file is (auto: by its kind)\n"
"  --pack-dir dir       a project pack directory or file (repeatable)\n"
"  --config sbx.conf    the sbx.conf naming the operator's packs\n"
"Exit 0 valid, 2 not valid.\n" },
	{ "gates", "evaluate",
GATES_DOCS
"  --now time           the evaluation time (ISO 8601)\n"
"  --exit-decision      exit 0 PROMOTE, 10 HOLD, 11 ROLLBACK\n"
"  --format json|text|markdown\n"
"                       json (default) prints the report; text or\n"
"                       markdown print it rendered, the JSON going to\n"
"                       --report file\n"
"  --report file        with --format text|markdown: where the JSON goes\n"
"Exit 0 (or the decision's status), 1 refused, 2 usage.\n" },
	{ "gates", "verify",
"  --report file        the GateReport to verify\n"
GATES_DOCS
"The report's evaluatedAt is the clock.  Exit 0 valid, 1 not.\n" },
	{ "gates", "render",
"  report               a GateReport (JSON) file, or - for stdin\n"
"  --format text|markdown\n"
"                       text (default; coloured on a terminal unless\n"
"                       NO_COLOR is set) or a GitHub-flavoured markdown\n"
"                       table for a pull-request comment\n" },
	{ "gates", "list",
"  --namespace ns       only the packs of this namespace\n"
"  --rule [rule]        only the packs a rules/ file names\n"
"  --pack-dir dir       a project pack directory or file (repeatable)\n"
"  --config sbx.conf    the sbx.conf naming the operator's packs\n" },
	{ "gates", "show",
"  id                   a pack id, or a name only one pack has\n"
"  --pack-dir dir, --config sbx.conf   as for list\n" },
	{ "gates", "digest",
"  file                 a JSON or YAML document; prints its digest\n" },
	{ "gates", "seal-holdout",
"  --binding file       the binding the holdout record is sealed to\n"
"  --accessed-at time   when the holdout was last accessed (ISO 8601)\n" },
	{ "gates", "seal-upstream",
"  file                 the upstream metadata to seal\n" },
	{ "apply", NULL,
"Write changeset ID's changes into its directory, as you.\n"
"  PATH ...             only these paths and what lies beneath them\n"
"  --all-or-nothing     write nothing if any path conflicts\n"
"A path changed in the directory since is a conflict: named on stderr,\n"
"not written, exit 4.  A full apply discards the changeset.\n" },
	{ "changes", NULL,
"Your changesets (overlay runs' changes): id, directory, age, size,\n"
"paths changed, runs.\n"
"  ID                   its changes: A, M or D and the path, one a line\n" },
	{ "diff", NULL,
"Changeset ID's changes as a git-style unified diff against its\n"
"directory (git apply, patch -p1).\n"
"  PATH ...             only these paths and what lies beneath them\n" },
	{ "discard", NULL,
"  ID                   drop the changeset ID\n" },
	{ "ping", NULL,
"Ask sbx-monitor whether it answers; exit 3 when it is unreachable.\n" },
	{ "status", NULL,
"The monitor's state: its roles, sandboxes and limits.\n" },
	{ "privs", NULL,
"  name                 print one role's compiled privilege table\n"
"                       (default: all of them)\n" },
	{ "provider", NULL,
"Gate metric providers, loaded into sbx-monitor.\n"
"  load dir             load the bundle in dir; prints its handle\n"
"  list                 the providers issued to you\n"
"  inspect provider     one provider's identity and metrics\n"
"  invoke provider      run it over records in a provider sandbox\n" },
	{ "provider", "invoke",
"  --records file|-     the records (- is stdin)\n"
"  --clock-ms ms        the clock the provider sees (ms since the epoch)\n"
"  --timeout-ms ms      the run's deadline\n"
"  --max-records n      refuse more records than this\n"
"  --max-output-bytes n the output cap\n" },
	{ "run", NULL,
"  -p profile           the sbx.conf profile to run under\n"
"  -t seconds           kill the sandbox after this long (exit 124)\n"
"  -w dir               the work directory, writable in the sandbox\n"
"  --overlay           with -w: work on a copy-on-write view of dir and\n"
"                       keep the changes as a changeset\n"
"  --overlay-into ID    with -w: a further run on changeset ID\n"
"  -e name[=value]      pass an environment variable (repeatable)\n"
"  -- command [arg...]  the command; sbxctl exits with its status\n" },
};

static void
synopsis(FILE *fp, const struct sbxctl_cmd *c, const char *sub)
{
	const char *const	*s;
	size_t			 n, first = 1;

	for (s = c->synopsis; *s != NULL; s++) {
		n = strlen(c->name);
		if (sub != NULL && (strncmp(*s + n + 1, sub, strlen(sub)) != 0 ||
		    ((*s)[n + 1 + strlen(sub)] != ' ' &&
		    (*s)[n + 1 + strlen(sub)] != '\0')))
			continue;
		fprintf(fp, "%s sbxctl %s\n", first ? "usage:" : "      ", *s);
		first = 0;
	}
}

static const struct help *
find(const char *cmd, const char *sub)
{
	size_t	 i;

	for (i = 0; i < nitems(helps); i++)
		if (strcmp(helps[i].cmd, cmd) == 0 && (sub == NULL ?
		    helps[i].sub == NULL : helps[i].sub != NULL &&
		    strcmp(helps[i].sub, sub) == 0))
			return &helps[i];
	return NULL;
}

/* The top level: every command's synopsis and the global options. */
void
help_top(FILE *fp)
{
	cmd_usage(fp);
	fprintf(fp, "\n"
"  -s socket            the monitor's socket (default: $SBX_SOCKET, else\n"
"                       the system's)\n"
"  --json               print results and errors as JSON\n"
"  -h, --help           this text; \"sbxctl COMMAND --help\" for a command's\n"
"Exit 0 success, 1 failed, 2 usage, 3 the monitor is unreachable.\n");
}

/*
 * argv[0] is the command word.  1 (and the help printed) when --help or
 * -h comes before any "--"; the subcommand is argv[1] when it has help
 * or a synopsis of its own.
 */
int
help_wanted(const struct sbxctl_cmd *c, int argc, char **argv)
{
	const struct help	*h;
	const char		*sub = NULL;
	int			 i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0)
			break;
	}
	if (i >= argc)
		return 0;
	if (argc > 1 && argv[1][0] != '-' && i > 1)
		sub = argv[1];
	if (sub != NULL && (h = find(c->name, sub)) != NULL) {
		synopsis(stdout, c, sub);
		fputs(h->text, stdout);
		return 1;
	}
	synopsis(stdout, c, NULL);
	if ((h = find(c->name, NULL)) != NULL)
		fputs(h->text, stdout);
	return 1;
}
