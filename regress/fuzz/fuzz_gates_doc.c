/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_gates_doc: gate document bytes, read as JSON and as YAML
 * (parseDecisionJson / parseDecisionYaml), into the closed schemas, the
 * registry and the gates configuration validator.  Any input is parsed
 * or refused without a crash or leak; an accepted document passes
 * admitEntry again and digests; a refusal names its rule in a message.
 * The first byte picks the reading (odd: JSON).
 *
 *	make build/fuzz/fuzz_gates_doc
 *	build/fuzz/fuzz_gates_doc regress/fuzz/corpus/fuzz_gates_doc
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gates/gates.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_message(const struct gates_error *err)
{
	if (err->kind == GATES_OK || err->msg[0] == '\0' ||
	    strnlen(err->msg, sizeof(err->msg)) == sizeof(err->msg))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gates_registry	 reg;
	struct gates_error	 err;
	struct json_value	*doc, *copy;
	char			 d[DIGEST_STR_LEN + 1], *errs, *pretty;

	if (size == 0)
		return 0;
	memset(&err, 0, sizeof(err));
	if (gates_doc_parse(data + 1, size - 1, data[0] & 1, &doc,
	    &err) == -1) {
		check_message(&err);
		if (strncmp(err.msg, "Decision entry rejected: ", 25) != 0)
			abort();
		return 0;
	}
	if (gates_admit(doc, &err) == -1 || gates_digest(doc, d, &err) == -1)
		abort();
	/* The pretty text reads back as the same tree. */
	pretty = gates_print_pretty(doc);
	if (gates_doc_parse(pretty, strlen(pretty), 1, &copy, &err) == 0) {
		if (!gt_equal(doc, copy))
			abort();
		json_free(copy);
	}
	free(pretty);
	memset(&err, 0, sizeof(err));
	if (gates_validate_document(doc, &err) == -1)
		check_message(&err);
	gates_registry_init(&reg);
	if (gates_registry_bootstrap(&reg, &err) == -1)
		abort();
	memset(&err, 0, sizeof(err));
	if (gates_register_pack(&reg, doc, "project", NULL, &err) == -1) {
		check_message(&err);
		json_free(doc);
	}
	gates_registry_free(&reg);
	if (gates_doc_parse(data + 1, size - 1, data[0] & 1, &doc,
	    &err) == 0) {
		if (gates_config_validate(doc, NULL, &errs) == -1 &&
		    (errs == NULL || errs[0] == '\0'))
			abort();
		free(errs);
		json_free(doc);
	}
	return 0;
}
