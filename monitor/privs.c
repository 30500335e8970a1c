/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * privs.c: the compiled privilege tables, for operators.  `sbx-monitor -P`
 * and `sbxctl privs` print exactly the tables the roles apply (they are
 * linked in from the same generated objects), in sbx.priv(5) syntax.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "monitor.h"

const struct monitor_priv monitor_privs[] = {
	{ "monitor", &priv_table_monitor },
	{ "launcher", &priv_table_launcher },
	{ "spawner", &priv_table_spawner },
	{ "mapper", &priv_table_mapper },
	{ "shim", &priv_table_shim },
	{ "command", &priv_table_command },
	{ "command-ptrace", &priv_table_command_ptrace },
	{ "provider", &priv_table_provider },
	{ "proxy", &priv_table_proxy },
	{ "provider-runner", &priv_table_provider_runner },
	{ NULL, NULL }
};

/* The table as text; the caller frees it. */
char *
monitor_priv_text(const struct monitor_priv *p)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*fp;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		fatal("open_memstream");
	if (priv_print(fp, p->table) == -1)
		fatalx("printing privilege table %s failed", p->name);
	if (fclose(fp) == EOF)
		fatal("open_memstream");
	return buf;
}

int
monitor_privs_print(FILE *fp)
{
	const struct monitor_priv	*p;

	for (p = monitor_privs; p->name != NULL; p++) {
		if (p != monitor_privs)
			fputc('\n', fp);
		if (priv_print(fp, p->table) == -1)
			return -1;
	}
	return fflush(fp) == EOF ? -1 : 0;
}
