/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * upstream.c: outcomes and the upstream integrity verdict (interop.md
 * §G5.2): qualificationIntegrityAllowlistProblems and upstreamOutcome.
 * A malformed record is one problem ("integrity-invalid"), never a pass;
 * a missing record holds.
 */
#include <string.h>

#include "common.h"
#include "gates.h"

static const char *const outcome_names[] = {
	[GATES_PROMOTE] = "PROMOTE",
	[GATES_HOLD] = "HOLD",
	[GATES_ROLLBACK] = "ROLLBACK",
};

const char *
gates_outcome_name(enum gates_outcome o)
{
	return outcome_names[o];
}

int
gates_outcome_parse(const struct json_value *v, enum gates_outcome *o)
{
	size_t	 i;

	for (i = 0; i < nitems(outcome_names); i++)
		if (gt_str_is(v, outcome_names[i])) {
			*o = i;
			return 0;
		}
	return -1;
}

static int
is_bool(const struct json_value *v)
{
	return v != NULL && (v->type == JSON_TRUE || v->type == JSON_FALSE);
}

static int
malformed(const struct json_value *m)
{
	const struct json_value	*labels, *weak, *gate;
	enum gates_outcome	 o;
	size_t			 i;

	if (!gt_is_obj(m))
		return 1;
	if (!gt_is_safeint(json_get(m, "sample_n")) ||
	    json_get(m, "sample_n")->u.number < 0)
		return 1;
	if (!gt_is_str(json_get(m, "integrity_mode")) ||
	    !gt_is_str(json_get(m, "integrity_state")) ||
	    !gt_is_str(json_get(m, "trusted_score_source")))
		return 1;
	if (!is_bool(json_get(m, "fresh_workspace_required")) ||
	    !is_bool(json_get(m, "fresh_workspace_verified")))
		return 1;
	labels = json_get(m, "compromise_labels");
	if (labels == NULL || labels->type != JSON_ARRAY)
		return 1;
	for (i = 0; i < labels->u.array.n; i++)
		if (labels->u.array.v[i].type != JSON_STRING)
			return 1;
	weak = json_get(m, "weak_signal_reason");
	if (weak == NULL || (weak->type != JSON_NULL && !gt_is_str(weak)))
		return 1;
	if (json_get(m, "uncertainty") == NULL ||
	    json_get(m, "paired_baseline") == NULL)
		return 1;
	gate = json_get(m, "release_gate");
	if (gates_outcome_parse(json_get(gate, "decision"), &o) == -1)
		return 1;
	if (json_get(gate, "reasons") == NULL ||
	    json_get(gate, "reasons")->type != JSON_ARRAY)
		return 1;
	return 0;
}

static void
add(struct gates_upstream_verdict *v, const char *p)
{
	if (v->nproblems < GATES_UPSTREAM_PROBLEMS_MAX)
		v->problems[v->nproblems++] = p;
}

void
gates_upstream_judge(const struct json_value *m,
    struct gates_upstream_verdict *v)
{
	const struct json_value	*mode, *src, *u, *pb;
	enum gates_outcome	 release = GATES_PROMOTE;
	size_t			 i;

	memset(v, 0, sizeof(*v));
	if (m == NULL) {
		v->ceiling = GATES_HOLD;
		return;
	}
	if (malformed(m))
		add(v, "integrity-invalid");
	else {
		if (!gt_str_is(json_get(m, "integrity_state"), "verified"))
			add(v, "integrity-not-verified");
		mode = json_get(m, "integrity_mode");
		src = json_get(m, "trusted_score_source");
		if (!gt_str_is(mode, "fresh") && !gt_str_is(mode, "locked") &&
		    !gt_str_is(mode, "full-locked"))
			add(v, "integrity-mode-not-allowlisted");
		else if ((gt_str_is(mode, "fresh") &&
		    !gt_str_is(src, "fresh-workspace")) ||
		    (gt_str_is(mode, "locked") &&
		    !gt_str_is(src, "locked-artifact-snapshot")) ||
		    (gt_str_is(mode, "full-locked") &&
		    !gt_str_is(src, "full-locked-workspace")))
			add(v, "untrusted-score-source");
		if (json_get(m, "fresh_workspace_required")->type == JSON_TRUE &&
		    json_get(m, "fresh_workspace_verified")->type != JSON_TRUE)
			add(v, "fresh-workspace-unverified");
		u = json_get(m, "uncertainty");
		if (u->type == JSON_NULL)
			add(v, "uncertainty-missing");
		pb = json_get(m, "paired_baseline");
		if (pb->type == JSON_NULL)
			add(v, "paired-baseline-missing");
		if (json_get(m, "weak_signal_reason")->type != JSON_NULL)
			add(v, "weak-signal");
		if (json_get(m, "compromise_labels")->u.array.n > 0)
			add(v, "compromised");
		if (json_get(m, "sample_n")->u.number <= 0)
			add(v, "insufficient-samples");
		gates_outcome_parse(json_get(json_get(m, "release_gate"),
		    "decision"), &release);
		if (release == GATES_HOLD)
			add(v, "upstream-integrity-hold");
		else if (release == GATES_ROLLBACK)
			add(v, "upstream-integrity-rollback");
	}
	/* upstreamOutcome: compromise rolls back, any problem holds. */
	for (i = 0; i < v->nproblems; i++)
		if (strcmp(v->problems[i], "compromised") == 0)
			v->compromised = 1;
	if (gt_is_obj(m)) {
		enum gates_outcome	 d;

		if (gates_outcome_parse(json_get(json_get(m, "release_gate"),
		    "decision"), &d) == 0 && d == GATES_ROLLBACK)
			v->compromised = 1;
		if (gt_str_is(json_get(m, "integrity_state"), "compromised"))
			v->compromised = 1;
		if (gates_outcome_parse(json_get(json_get(m, "release_gate"),
		    "decision"), &d) == 0)
			release = d;
	}
	if (v->compromised)
		v->ceiling = GATES_ROLLBACK;
	else if (v->nproblems > 0 || release == GATES_HOLD)
		v->ceiling = GATES_HOLD;
	else
		v->ceiling = GATES_PROMOTE;
}
