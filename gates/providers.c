/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * providers.c: the core metric providers the reference's offline CLI
 * registers (interop.md §G4.4).  Offline evaluation never runs them (their
 * sections come from the caller's metrics document and are checked
 * against the pins), so only their identity is here: id, version, the
 * metric vocabulary and the sourceDigest computed from it, exactly the
 * object the reference digests (descriptions where its source has them).
 */
#include <string.h>

#include "common.h"
#include "gates.h"

static const struct gates_provider_metric proportion_metrics[] = {
	{ "false-ready", GATES_MK_PROPORTION, "False-ready events per slice." },
	{ "coverage", GATES_MK_PROPORTION,
	    "Accepted (advisory-ready) share per slice." },
};

static const struct gates_provider_metric paired_metrics[] = {
	{ "contrast", GATES_MK_PAIRED, NULL },
};

static const struct gates_provider_metric scalar_metrics[] = {
	{ "measurement", GATES_MK_SCALAR, NULL },
	{ "delta", GATES_MK_DIFFERENCES, NULL },
};

static const struct gates_provider_metric evidence_metrics[] = {
	{ "attestations", GATES_MK_EVIDENCE, NULL },
};

static const struct gates_provider_metric screening_metrics[] = {
	{ "false-ready", GATES_MK_PROPORTION, "False-ready events per slice: "
	    "advisory-ready with non-ready gold." },
	{ "false-support", GATES_MK_PROPORTION, "False-support events per "
	    "citation slice: accepted support with non-support gold." },
	{ "coverage", GATES_MK_PROPORTION, "Advisory-ready share per slice; "
	    "the always-review reference rate is 0." },
	{ "accuracy", GATES_MK_PROPORTION, "Joint candidate correctness per "
	    "slice: route matches gold readiness and support." },
	{ "calibration", GATES_MK_EVIDENCE, "Staged D09 calibration artifact "
	    "binding for the scored phase." },
};

/* Registration order of createCoreProviderRegistry(). */
static const struct gates_provider core[] = {
	{ "test.proportion/v1", "1.0.0", proportion_metrics,
	    nitems(proportion_metrics), NULL, NULL },
	{ "test.paired/v1", "1.0.0", paired_metrics, nitems(paired_metrics),
	    NULL, NULL },
	{ "test.scalar/v1", "1.0.0", scalar_metrics, nitems(scalar_metrics),
	    NULL, NULL },
	{ "test.evidence/v1", "1.0.0", evidence_metrics,
	    nitems(evidence_metrics), NULL, NULL },
	{ "decision.screening/v1", "1.0.0", screening_metrics,
	    nitems(screening_metrics), NULL, NULL },
};

const struct gates_provider *
gates_core_providers(size_t *n)
{
	*n = nitems(core);
	return core;
}

static const char *const kind_names[] = {
	[GATES_MK_NONE] = "none",
	[GATES_MK_PROPORTION] = "proportion",
	[GATES_MK_PAIRED] = "paired",
	[GATES_MK_SCALAR] = "scalar",
	[GATES_MK_DIFFERENCES] = "differences",
	[GATES_MK_EVIDENCE] = "evidence",
};

const char *
gates_metric_kind_name(enum gates_metric_kind k)
{
	return kind_names[k];
}

enum gates_metric_kind
gates_metric_kind_parse(const struct json_value *v)
{
	size_t	 i;

	for (i = 1; i < nitems(kind_names); i++)
		if (gt_str_is(v, kind_names[i]))
			return i;
	return GATES_MK_NONE;
}

int
gates_provider_source_digest(const struct gates_provider *p,
    char out[DIGEST_STR_LEN + 1])
{
	struct json_value	 doc, *metrics, *m;
	size_t			 i;
	int			 r;

	/* A bundle provider's digest is the one its inspect run gave. */
	if (p->source_digest != NULL) {
		if (strlcpy(out, p->source_digest, DIGEST_STR_LEN + 1) >
		    DIGEST_STR_LEN)
			return -1;
		return 0;
	}
	gt_set_obj(&doc);
	gt_set_str(gt_add(&doc, "id"), p->id);
	gt_set_str(gt_add(&doc, "version"), p->version);
	metrics = gt_add(&doc, "metrics");
	gt_set_obj(metrics);
	for (i = 0; i < p->nmetrics; i++) {
		m = gt_add(metrics, p->metrics[i].name);
		gt_set_obj(m);
		gt_set_str(gt_add(m, "kind"),
		    gates_metric_kind_name(p->metrics[i].kind));
		if (p->metrics[i].description != NULL)
			gt_set_str(gt_add(m, "description"),
			    p->metrics[i].description);
	}
	r = digest_json(&doc, out);
	json_value_clear(&doc);
	return r;
}
