/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * gates_eval_bench: time the gate engine alone, in process, on one
 * evaluation, for regress/bench/b_gates.sh: the same call the provider
 * runner makes (gates_evaluate), without reading, routing or printing.
 *
 *	gates_eval_bench PACK BUNDLE BINDING METRICS HOLDOUT UPSTREAM NOW
 *	    DIGEST [RUNS]
 *
 * PACK is registered as an operator pack of BUNDLE (aiwg:BUNDLE/...)
 * beside the shipped ones, with no floors configured.  One untimed run,
 * then RUNS (default 100) timed ones.  One line:
 *
 *	engine runs K median MS p99 MS decision D digest SHA
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "gates/gates.h"

static double
now_ms(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		fatal("clock_gettime");
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static struct json_value *
doc(const char *path)
{
	struct gates_error	 err;
	struct json_value	*v;
	FILE			*f;
	char			*buf;
	size_t			 len;

	if ((f = fopen(path, "r")) == NULL)
		fatal("%s", path);
	buf = xmalloc(GATES_DOC_MAX + 1);
	len = fread(buf, 1, GATES_DOC_MAX + 1, f);
	fclose(f);
	if (gates_doc_parse(buf, len, gates_path_is_json(path), &v,
	    &err) == -1)
		fatalx("%s: %s", path, err.msg);
	free(buf);
	return v;
}

int
main(int argc, char *argv[])
{
	struct gates_registry	 reg;
	struct gates_floors	 floors;
	struct gates_eval_input	 in;
	struct gates_error	 err;
	struct json_value	*binding, *metrics, *hdoc, *holdout, *up;
	struct json_value	*report, empty;
	const struct json_value	*d;
	const char		*errstr;
	double			*ms, t0;
	long			 runs = 100, i;

	if (argc < 9 || argc > 10) {
		fprintf(stderr, "usage: gates_eval_bench PACK BUNDLE BINDING "
		    "METRICS HOLDOUT UPSTREAM NOW DIGEST [RUNS]\n");
		return 2;
	}
	if (argc == 10 && ((runs = strtonum(argv[9], 1, 100000,
	    &errstr)), errstr != NULL))
		fatalx("runs \"%s\" is %s", argv[9], errstr);
	memset(&err, 0, sizeof(err));
	memset(&floors, 0, sizeof(floors));
	gates_registry_init(&reg);
	if (gates_registry_bootstrap(&reg, &err) == -1 ||
	    gates_register_pack(&reg, doc(argv[1]), "aiwg", argv[2],
	    &err) == -1)
		fatalx("registry: %s", err.msg);
	gt_set_obj(&empty);
	gates_floors_resolve(&empty, &floors);
	binding = doc(argv[3]);
	metrics = doc(argv[4]);
	hdoc = doc(argv[5]);
	up = doc(argv[6]);
	if (gates_load_holdout(hdoc, argv[5], &holdout, &err) == -1 ||
	    gates_load_upstream(up, argv[6], &err) == -1)
		fatalx("%s", err.msg);
	memset(&in, 0, sizeof(in));
	in.binding = binding;
	in.trusted_binding_digest = argv[8];
	in.holdout = holdout;
	in.metrics = metrics;
	in.upstream = up;
	in.floors = &floors;
	in.now = argv[7];
	in.attestation = "offline-cli";
	ms = xcalloc(runs, sizeof(*ms));
	report = NULL;
	for (i = -1; i < runs; i++) {
		json_free(report);
		t0 = now_ms();
		if (gates_evaluate(&reg, &in, &report, &err) == -1)
			fatalx("evaluate: %s", err.msg);
		if (i >= 0)
			ms[i] = now_ms() - t0;
	}
	qsort(ms, runs, sizeof(*ms), cmp_double);
	d = json_get(report, "digest");
	printf("engine runs %ld median %.3f p99 %.3f decision %s digest %s\n",
	    runs, ms[runs / 2], ms[(runs * 99) / 100 < runs ?
	    (runs * 99) / 100 : runs - 1],
	    gates_outcome_name(gates_report_decision(report)),
	    d != NULL && d->type == JSON_STRING ? gt_cstr(d) : "?");
	return 0;
}
