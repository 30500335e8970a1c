/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_gates_verify: validateGateReport (gates_verify) over arbitrary
 * inputs.  The bytes are a JSON array [pack, binding, metrics, holdout,
 * upstream, report]: the pack registers as aiwg:test-gates/..., the rest
 * are the trusted inputs and the report, with the empty floors.  Whatever
 * they are, the verdict comes back (never a crash, leak or refusal),
 * valid exactly when it has no reason, every reason one of the
 * reference's; and a valid report is the evaluator's own at its
 * evaluatedAt, digest for digest.
 *
 *	make build/fuzz/fuzz_gates_verify
 *	build/fuzz/fuzz_gates_verify regress/fuzz/corpus/fuzz_gates_verify
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates/gates.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const char *const reasons[] = {
	"report-schema:", "report-digest-mismatch", "report-binding-mismatch",
	"report-binding-untrusted", "report-holdout-mismatch",
	"report-pack-mismatch:", "report-metrics-mismatch",
	"report-floors-mismatch", "report-upstream-mismatch",
	"report-reevaluation:", "report-reevaluation-mismatch",
	"report-decision-mismatch", "report-upgrades-component"
};

static int
known(const struct json_value *v)
{
	char	*s = gt_cstr(v);
	size_t	 i, n;
	int	 ok = 0;

	for (i = 0; s != NULL && i < nitems(reasons) && !ok; i++) {
		n = strlen(reasons[i]);
		ok = reasons[i][n - 1] == ':' ? strncmp(s, reasons[i], n) == 0 :
		    strcmp(s, reasons[i]) == 0;
	}
	free(s);
	return ok;
}

static const struct json_value *
item(const struct json_value *arr, size_t i)
{
	const struct json_value	*v = &arr->u.array.v[i];

	return v->type == JSON_NULL ? NULL : v;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gates_registry	 reg;
	struct gates_error	 err;
	struct gates_floors	 floors;
	struct gates_eval_input	 in;
	struct json_value	*doc, *pack, *verdict, *again, empty;
	const struct json_value	*rs, *rep;
	char			 d[DIGEST_STR_LEN + 1], *now;
	size_t			 i;
	int			 valid;

	memset(&err, 0, sizeof(err));
	if (gates_report_parse(data, size, 1, &doc, &err) == -1)
		return 0;
	if (doc->type != JSON_ARRAY || doc->u.array.n != 6) {
		json_free(doc);
		return 0;
	}
	gates_registry_init(&reg);
	if (gates_registry_bootstrap(&reg, &err) == -1)
		abort();
	pack = gt_dup(&doc->u.array.v[0]);
	if (gates_register_pack(&reg, pack, "aiwg", "test-gates", &err) == -1)
		json_free(pack);
	gt_set_obj(&empty);
	gates_floors_resolve(&empty, &floors);
	json_value_clear(&empty);
	memset(&in, 0, sizeof(in));
	in.binding = &doc->u.array.v[1];
	if (gates_digest(in.binding, d, NULL) == -1)
		strlcpy(d, "sha256:", sizeof(d));
	in.trusted_binding_digest = d;
	in.metrics = &doc->u.array.v[2];
	in.holdout = item(doc, 3);
	in.upstream = item(doc, 4);
	in.floors = &floors;
	in.now = "unused";
	in.attestation = "offline-cli";
	rep = &doc->u.array.v[5];
	valid = gates_verify(&reg, &in, data[0] & 1, rep, &verdict);
	rs = json_get(verdict, "reasons");
	if (rs == NULL || rs->type != JSON_ARRAY ||
	    valid != (rs->u.array.n == 0) ||
	    json_get(verdict, "valid")->type != (valid ? JSON_TRUE :
	    JSON_FALSE))
		abort();
	for (i = 0; i < rs->u.array.n; i++)
		if (!known(&rs->u.array.v[i]))
			abort();
	if (valid) {
		now = gt_cstr(json_get(rep, "evaluatedAt"));
		in.now = now;
		if (gates_evaluate(&reg, &in, &again, &err) == -1 ||
		    !gt_equal(json_get(again, "digest"),
		    json_get(rep, "digest")))
			abort();
		json_free(again);
		free(now);
	}
	json_free(verdict);
	gates_floors_free(&floors);
	gates_registry_free(&reg);
	json_free(doc);
	return 0;
}
