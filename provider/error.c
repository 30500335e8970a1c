/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * error.c: refusals.  Codes are the reference's GateProviderError codes
 * (interop.md §P6) so that an agent sees the same code for the same
 * refusal from sbx and from the reference; messages name the input and
 * the rule.  Untrusted bytes (file names, provider error text) enter a
 * message only through prov_quote, so a hostile name cannot forge log
 * lines or terminal output.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* We use strvisx only; pick the OpenBSD flavour libbsd asks us to name. */
#define LIBBSD_OPENBSD_VIS
#include <vis.h>

#include "common.h"
#include "provider.h"

static const char *const names[] = {
	[PROV_OK] = "ok",
	[PROV_DISABLED] = "disabled",
	[PROV_PATH_ESCAPE] = "path-escape",
	[PROV_OVERSIZE] = "oversize",
	[PROV_MISSING_ATTESTATION] = "missing-attestation",
	[PROV_ATTESTATION_MISMATCH] = "attestation-mismatch",
	[PROV_INVALID_MODULE] = "invalid-module",
	[PROV_UNREGISTERED] = "unregistered",
	[PROV_TIMEOUT] = "timeout",
	[PROV_CANCELLED] = "cancelled",
	[PROV_REJECTED] = "rejected",
	[PROV_BUDGET_EXCEEDED] = "budget-exceeded",
	[PROV_INVALID_RECORDS] = "invalid-records",
	[PROV_DUPLICATE] = "duplicate",
	[PROV_SANDBOX_UNAVAILABLE] = "sandbox-unavailable",
	[PROV_INVALID_ALLOWLIST] = "invalid-allowlist",
};

const char *
prov_code_name(enum prov_code code)
{
	if ((size_t)code >= nitems(names) || names[code] == NULL)
		return "unknown";
	return names[code];
}

/* Fill err (which may be NULL) and return -1, for "return prov_fail()". */
int
prov_fail(struct prov_error *err, enum prov_code code, const char *fmt, ...)
{
	va_list	 ap;

	if (err == NULL)
		return -1;
	err->code = code;
	err->limit = 0;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Untrusted bytes as printable ASCII: C-style escapes for controls,
 * backslashes and every non-ASCII byte, cut at PROV_QUOTE_SRC_MAX bytes
 * with "..." so a message stays bounded.
 */
void
prov_quote(char dst[PROV_QUOTE_MAX], const void *src, size_t len)
{
	size_t	 n = len > PROV_QUOTE_SRC_MAX ? PROV_QUOTE_SRC_MAX : len;

	strvisx(dst, src, n, VIS_CSTYLE | VIS_OCTAL | VIS_TAB | VIS_NL);
	if (n < len)
		strlcat(dst, "...", PROV_QUOTE_MAX);
}

/* Put "<prefix>: " before err's message (the input that carried it). */
void
prov_prefix(struct prov_error *err, const char *fmt, ...)
{
	char	 prefix[PROV_ERRMSG_MAX], msg[PROV_ERRMSG_MAX];
	va_list	 ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	strlcpy(msg, err->msg, sizeof(msg));
	strlcpy(err->msg, prefix, sizeof(err->msg));
	strlcat(err->msg, ": ", sizeof(err->msg));
	strlcat(err->msg, msg, sizeof(err->msg));
}
