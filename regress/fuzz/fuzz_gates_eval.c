/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_gates_eval: the gate evaluator's untrusted inputs -- a binding,
 * a metrics document, holdout and upstream records and a gates
 * configuration -- through the record loaders (seal checks), floors,
 * binding resolution and evaluateGates.  The input is one JSON object
 * whose members are those documents:
 *
 *	"pack"        a gate pack registered as aiwg's, bundle test-gates
 *	"binding"     the binding; the trusted digest is its own digest
 *	"metrics"     the metrics document
 *	"holdout"     a holdout record, loaded with its seal checked; the
 *	              string "seal" instead seals one for the binding here
 *	              (a fuzzer cannot forge SHA-256, and without a valid
 *	              seal evaluation stops at the first refusal)
 *	"upstream"    an upstream record, its seal checked
 *	"upstreamMetadata"  metadata sealed here, for the same reason
 *	"config"      the gates configuration the floors come from
 *	"now"         the evaluation time (default a fixed instant)
 *
 * Nothing may crash or leak; a refusal carries a terminated, non-empty
 * message; an accepted evaluation yields a report with a decision that
 * prints and digests.  Anything else aborts.
 *
 *	make build/fuzz/fuzz_gates_eval
 *	build/fuzz/fuzz_gates_eval regress/fuzz/corpus/fuzz_gates_eval
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates/gates.h"

#define NOW	"2026-09-03T00:00:00.000Z"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_refusal(const struct gates_error *err)
{
	if (err->kind == GATES_OK || err->msg[0] == '\0' ||
	    strnlen(err->msg, sizeof(err->msg)) == sizeof(err->msg))
		abort();
}

/* {metadata, digest} sealed over metadata, as a producer would write it. */
static struct json_value *
seal_upstream(const struct json_value *meta)
{
	struct json_value	*u;
	struct gates_error	 err;
	char			 d[DIGEST_STR_LEN + 1];

	memset(&err, 0, sizeof(err));
	if (gates_digest(meta, d, &err) == -1) {
		check_refusal(&err);
		return NULL;
	}
	u = xcalloc(1, sizeof(*u));
	gt_set_obj(u);
	gt_copy(gt_add(u, "metadata"), meta);
	gt_set_str(gt_add(u, "digest"), d);
	return u;
}

static void
evaluate(struct gates_registry *reg, const struct json_value *doc)
{
	struct gates_eval_input	 in;
	struct gates_floors	 floors;
	struct gates_error	 err;
	struct json_value	*holdout = NULL, *up = NULL, *report = NULL;
	struct json_value	 empty;
	const struct json_value	*binding, *v;
	char			 trusted[DIGEST_STR_LEN + 1];
	char			 now[64], *pretty;
	enum gates_outcome	 d;

	memset(&err, 0, sizeof(err));
	if ((binding = json_get(doc, "binding")) == NULL)
		return;
	if (gates_digest(binding, trusted, &err) == -1) {
		check_refusal(&err);
		return;
	}
	v = json_get(doc, "holdout");
	if (gt_str_is(v, "seal")) {
		if (gates_seal_holdout(trusted, NULL, &holdout, &err) == -1)
			abort();
	} else if (v != NULL &&
	    gates_load_holdout(v, "fuzz.holdout", &holdout, &err) == -1) {
		check_refusal(&err);
		return;
	}
	if ((v = json_get(doc, "upstreamMetadata")) != NULL)
		up = seal_upstream(v);
	else if ((v = json_get(doc, "upstream")) != NULL) {
		if (gates_load_upstream(v, "fuzz.upstream", &err) == -1)
			check_refusal(&err);
		else
			up = gt_dup(v);
	}
	memset(&err, 0, sizeof(err));
	if ((v = json_get(doc, "config")) != NULL)
		gates_floors_resolve(v, &floors);
	else {
		gt_set_obj(&empty);
		gates_floors_resolve(&empty, &floors);
		json_value_clear(&empty);
	}
	strlcpy(now, NOW, sizeof(now));
	if ((v = json_get(doc, "now")) != NULL && gt_is_str(v))
		gt_strlcpy(now, v, sizeof(now));

	memset(&in, 0, sizeof(in));
	in.binding = binding;
	in.trusted_binding_digest = trusted;
	in.holdout = holdout;
	in.metrics = json_get(doc, "metrics");
	in.upstream = up;
	in.floors = &floors;
	in.now = now;
	in.attestation = "offline-cli";
	if (gates_evaluate(reg, &in, &report, &err) == -1) {
		check_refusal(&err);
		if (report != NULL)
			abort();
	} else {
		if (report == NULL)
			abort();
		d = gates_report_decision(report);
		if (d != GATES_PROMOTE && d != GATES_HOLD &&
		    d != GATES_ROLLBACK)
			abort();
		if ((pretty = gates_print_pretty(report)) == NULL ||
		    pretty[0] == '\0')
			abort();
		free(pretty);
		json_free(report);
	}
	json_free(holdout);
	json_free(up);
	gates_floors_free(&floors);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gates_registry	 reg;
	struct gates_error	 err;
	struct json_value	*doc, *pack;
	const struct json_value	*v;

	memset(&err, 0, sizeof(err));
	if (gates_doc_parse(data, size, 1, &doc, &err) == -1) {
		check_refusal(&err);
		return 0;
	}
	if (!gt_is_obj(doc)) {
		json_free(doc);
		return 0;
	}
	gates_registry_init(&reg);
	if (gates_registry_bootstrap(&reg, &err) == -1)
		abort();
	if ((v = json_get(doc, "pack")) != NULL) {
		pack = gt_dup(v);
		memset(&err, 0, sizeof(err));
		/* Registered, the registry owns the pack; refused, we do. */
		if (gates_register_pack(&reg, pack, "aiwg", "test-gates",
		    &err) == -1) {
			check_refusal(&err);
			json_free(pack);
		}
	}
	evaluate(&reg, doc);
	gates_registry_free(&reg);
	json_free(doc);
	return 0;
}
