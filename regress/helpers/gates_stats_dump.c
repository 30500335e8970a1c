/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * gates_stats_dump: exposes the gate statistics to regress/gates-stats.sh,
 * which compares them with Python, SciPy and node at test time.  Each
 * input line is one computation; each output line its result, doubles as
 * %.17g (which round-trips exactly), or "error <message>".
 *
 *	q P			normal quantile
 *	z LEVEL			twoSidedZ
 *	w EVENTS N LEVEL	Wilson: lower upper lowerBps upperBps estBps
 *	c EVENTS N LEVEL SIDE	Clopper-Pearson, SIDE two-sided|lower|upper
 *	p E F G H LEVEL METHOD	paired, METHOD newcombe|tango:
 *				low high estimate lowerBps upperBps estBps
 *	b LEVEL SEED RES D...	bootstrap of the differences D, as for p
 *	l X			Math.log (gates_js_log)
 *	e X			Math.exp (gates_js_exp)
 *
 * Numbers are parsed with strtod, so "nan" stands for a non-number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates/gates.h"

#define MAXARGS		4200	/* the reference admits 4096 differences */

static char	 err[GATES_STATS_ERRSZ];

static void
print_doubles(const double *v, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		printf("%s%.17g", i == 0 ? "" : " ", v[i]);
	printf("\n");
}

static void
print_interval(int rc, const struct gates_bps_interval *iv)
{
	double	 v[6];

	if (rc != 0) {
		printf("error %s\n", err);
		return;
	}
	v[0] = iv->low;
	v[1] = iv->high;
	v[2] = iv->estimate;
	v[3] = iv->lower_bps;
	v[4] = iv->upper_bps;
	v[5] = iv->estimate_bps;
	print_doubles(v, 6);
}

static int
sided_of(const char *s)
{
	if (strcmp(s, "two-sided") == 0)
		return GATES_CP_TWO_SIDED;
	if (strcmp(s, "lower") == 0)
		return GATES_CP_LOWER;
	if (strcmp(s, "upper") == 0)
		return GATES_CP_UPPER;
	fatalx("unknown side \"%s\"", s);
}

static void
dump(char op, const double *a, size_t na, char **words)
{
	struct gates_cp_input		 cp;
	struct gates_paired_counts	 pc;
	struct gates_bps_interval	 iv;
	double				 v[5];
	int				 rc, method;

	switch (op) {
	case 'q':
	case 'z':
		if (na != 1)
			fatalx("%c: 1 number expected", op);
		rc = op == 'q' ? gates_normal_quantile(a[0], &v[0], err,
		    sizeof(err)) : gates_two_sided_z(a[0], &v[0], err,
		    sizeof(err));
		if (rc != 0)
			printf("error %s\n", err);
		else
			print_doubles(v, 1);
		break;
	case 'w':
		if (na != 3)
			fatalx("w: 3 numbers expected");
		if (gates_wilson_interval(a[0], a[1], a[2], &v[0], &v[1], err,
		    sizeof(err)) != 0) {
			printf("error %s\n", err);
			break;
		}
		gates_proportion_bps(v[0], v[1], a[0], a[1], &v[2], &v[3],
		    &v[4]);
		print_doubles(v, 5);
		break;
	case 'c':
		if (na != 4)
			fatalx("c: 3 numbers and a side expected");
		cp.events = a[0];
		cp.n = a[1];
		cp.level_bps = a[2];
		cp.sided = sided_of(words[3]);
		if (gates_clopper_pearson(&cp, &v[0], &v[1], err,
		    sizeof(err)) != 0) {
			printf("error %s\n", err);
			break;
		}
		gates_proportion_bps(v[0], v[1], a[0], a[1], &v[2], &v[3],
		    &v[4]);
		print_doubles(v, 5);
		break;
	case 'p':
		if (na != 6)
			fatalx("p: 5 numbers and a method expected");
		memset(&pc, 0, sizeof(pc));
		pc.form = GATES_PAIRED_TABLE;
		pc.both = a[0];
		pc.candidate_only = a[1];
		pc.baseline_only = a[2];
		pc.neither = a[3];
		method = strcmp(words[5], "tango") == 0 ? GATES_PAIRED_TANGO :
		    GATES_PAIRED_NEWCOMBE10;
		rc = gates_paired_difference(&pc, a[4], method, &iv, err,
		    sizeof(err));
		print_interval(rc, &iv);
		break;
	case 'b':
		if (na < 3)
			fatalx("b: level, seed and resamples expected");
		rc = gates_bootstrap_paired_mean(a + 3, na - 3, a[0], a[1],
		    a[2], (const double[]){ -1, 1 }, 2, NULL, 0, &iv, err,
		    sizeof(err));
		print_interval(rc, &iv);
		break;
	case 'l':
	case 'e':
		if (na != 1)
			fatalx("%c: 1 number expected", op);
		v[0] = op == 'l' ? gates_js_log(a[0]) : gates_js_exp(a[0]);
		print_doubles(v, 1);
		break;
	default:
		fatalx("unknown operation '%c'", op);
	}
}

int
main(void)
{
	static double	 a[MAXARGS];
	static char	*words[MAXARGS];
	char		*line = NULL, *p, *w, *end;
	size_t		 cap = 0, na;
	ssize_t		 len;
	char		 op;

	while ((len = getline(&line, &cap, stdin)) != -1) {
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		p = line;
		if ((w = strsep(&p, " ")) == NULL || strlen(w) != 1)
			fatalx("line \"%s\": no operation", line);
		op = w[0];
		na = 0;
		while ((w = strsep(&p, " ")) != NULL) {
			if (*w == '\0')
				continue;
			if (na == MAXARGS)
				fatalx("too many numbers on a line");
			words[na] = w;
			/* A word (side, method) is kept in words[] only. */
			a[na] = strtod(w, &end);
			if (*end != '\0')
				a[na] = 0;
			na++;
		}
		dump(op, a, na, words);
	}
	free(line);
	if (ferror(stdin) || fflush(stdout) != 0)
		fatal("gates_stats_dump");
	return 0;
}
