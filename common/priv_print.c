/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * priv_print.c: a table back in canonical sbx.priv(5) syntax.
 *
 * "sbx-monitor -P" prints the compiled tables with this, and the tests
 * compare its output with the source files, so what it writes is what the
 * role enforces: directives in the order they take effect, one per line,
 * values spelled as the file spelled them, waivers included.
 */
#include <inttypes.h>
#include <stdio.h>

#include "common.h"

#define KW	"%-9s"		/* the shipped files' keyword column */

static void
print_value(FILE *fp, const struct priv_value *pv)
{
	if (pv->text != NULL)
		fputs(pv->text, fp);
	else if (pv->v < 0x10000)
		fprintf(fp, "%" PRIu64, pv->v);
	else
		fprintf(fp, "0x%" PRIx64, pv->v);
}

static void
print_cond(FILE *fp, const struct priv_cond *c)
{
	size_t	 i;

	fprintf(fp, " arg%u ", c->arg);
	switch (c->op) {
	case PRIV_OP_EQ:
		fputs("== ", fp);
		print_value(fp, &c->vals[0]);
		break;
	case PRIV_OP_NE:
		fputs("!= ", fp);
		print_value(fp, &c->vals[0]);
		break;
	case PRIV_OP_MASKED_EQ:
		fputs("& ", fp);
		print_value(fp, &c->mask);
		fputs(" == ", fp);
		print_value(fp, &c->vals[0]);
		break;
	case PRIV_OP_IN:
		fputs("in {", fp);
		for (i = 0; i < c->nvals; i++) {
			if (i > 0)
				fputs(", ", fp);
			print_value(fp, &c->vals[i]);
		}
		fputs("}", fp);
		break;
	}
}

static const char *
errno_word(int err)
{
	const char	*n = priv_errno_name(err);

	return n != NULL ? n : "?";
}

static void
print_landlock(FILE *fp, const struct priv_table *t)
{
	static const char *fs[] = { "", "none", "ro", "rx" };
	static const char *acc[] = { "", "ro", "rx", "rw" };
	size_t		 i;

	if (t->ll_mode == PRIV_LL_OFF)
		return;
	fprintf(fp, KW " %s\n", "landlock", t->ll_mode == PRIV_LL_REQUIRED ?
	    "required" : "best-effort");
	if (t->ll_fs != PRIV_LLFS_OFF && (size_t)t->ll_fs < nitems(fs))
		fprintf(fp, KW " fs %s\n", "landlock", fs[t->ll_fs]);
	for (i = 0; i < t->nll_paths; i++)
		if ((size_t)t->ll_paths[i].access < nitems(acc))
			fprintf(fp, KW " %s \"%s\"\n", "landlock",
			    acc[t->ll_paths[i].access], t->ll_paths[i].path);
	if (t->ll_net)
		fprintf(fp, KW " net none\n", "landlock");
	for (i = 0; i < t->nll_ports; i++)
		fprintf(fp, KW " %s %u\n", "landlock",
		    t->ll_ports[i].kind == PRIV_LLP_BIND ? "bind" : "connect",
		    t->ll_ports[i].port);
	if (t->ll_scopes & PRIV_LLSCOPE_ABSTRACT_UNIX)
		fprintf(fp, KW " scope abstract-unix-socket\n", "landlock");
	if (t->ll_scopes & PRIV_LLSCOPE_SIGNAL)
		fprintf(fp, KW " scope signal\n", "landlock");
}

int
priv_print(FILE *fp, const struct priv_table *t)
{
	const struct priv_rule	*r;
	const char		*n;
	size_t			 i, j;

	fprintf(fp, KW " %s\n", "role", t->role);
	fprintf(fp, KW " %s\n", "user", t->user != NULL ? t->user : "same");
	fprintf(fp, KW " %s\n", "root",
	    t->root == PRIV_ROOT_EMPTY ? "empty" : "none");
	for (i = 0; i < t->nrlimits; i++) {
		n = priv_rlimit_name(t->rlimits[i].resource);
		if (t->rlimits[i].value == PRIV_RLIM_INFINITY)
			fprintf(fp, KW " %s infinity\n", "rlimit",
			    n != NULL ? n : "?");
		else
			fprintf(fp, KW " %s %" PRIu64 "\n", "rlimit",
			    n != NULL ? n : "?", t->rlimits[i].value);
	}
	if (t->no_new_privs)
		fputs("no_new_privs yes\n", fp);
	print_landlock(fp, t);
	if (t->def_act == PRIV_ACT_ERRNO)
		fprintf(fp, KW " errno %s\n", "default",
		    errno_word(t->def_err));
	else
		fprintf(fp, KW " %s\n", "default", priv_act_word(t->def_act));
	for (i = 0; i < t->nrules; i++) {
		r = &t->rules[i];
		fprintf(fp, KW, priv_act_word(r->act));
		if (r->act == PRIV_ACT_ERRNO)
			fprintf(fp, " %s", errno_word(r->err));
		for (j = 0; j < r->nsys; j++)
			fprintf(fp, " %s", r->sys[j].name);
		for (j = 0; j < r->nconds; j++)
			print_cond(fp, &r->conds[j]);
		if (r->waiver != NULL)
			fprintf(fp, " lint-ok \"%s\"", r->waiver);
		fputc('\n', fp);
	}
	fflush(fp);
	return ferror(fp) ? -1 : 0;
}
