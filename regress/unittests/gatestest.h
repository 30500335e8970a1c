/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * gatestest.h: helpers shared by the t_gates_* unit tests.
 */
#ifndef GATESTEST_H
#define GATESTEST_H

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "common.h"
#include "gates/gates.h"

#define TG_UNUSED	__attribute__((__unused__))

/* The source tree: srcdir is build/regress/unittests, top is beside it. */
static TG_UNUSED void
tg_top(const atf_tc_t *tc, char *buf, size_t len)
{
	char	 p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/../top",
	    atf_tc_get_config_var(tc, "srcdir"));
	ATF_REQUIRE_MSG(realpath(p, buf) != NULL && strlen(buf) < len,
	    "realpath %s: %s", p, strerror(errno));
}

/* A fixture under regress/fixtures/gates, parsed as its name says. */
static TG_UNUSED struct json_value *
tg_fixture(const atf_tc_t *tc, const char *name)
{
	struct json_value	*v;
	struct gates_error	 err;
	char			 top[PATH_MAX], path[PATH_MAX + 64], *buf;
	struct stat		 st;
	ssize_t			 n;
	int			 fd;

	tg_top(tc, top, sizeof(top));
	snprintf(path, sizeof(path), "%s/regress/fixtures/gates/%s", top,
	    name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1)
		atf_tc_fail("open %s: %s", path, strerror(errno));
	buf = xmalloc(st.st_size + 1);
	n = read(fd, buf, st.st_size);
	ATF_REQUIRE_EQ(n, st.st_size);
	close(fd);
	ATF_REQUIRE_MSG(gates_doc_parse(buf, n, gates_path_is_json(name), &v,
	    &err) == 0, "%s: %s", name, err.msg);
	free(buf);
	return v;
}

static TG_UNUSED struct json_value *
tg_parse(const char *text, int is_json)
{
	struct json_value	*v;
	struct gates_error	 err;

	ATF_REQUIRE_MSG(gates_doc_parse(text, strlen(text), is_json, &v,
	    &err) == 0, "%s: %s", text, err.msg);
	return v;
}

/* The refusal message of parsing text. */
static TG_UNUSED const char *
tg_refusal(const char *text, size_t len, int is_json)
{
	static struct gates_error	 err;
	struct json_value		*v;

	memset(&err, 0, sizeof(err));
	if (gates_doc_parse(text, len, is_json, &v, &err) == 0) {
		json_free(v);
		return "(accepted)";
	}
	return err.msg;
}

static TG_UNUSED void
tg_digest_is(const struct json_value *v, const char *want)
{
	char			 d[DIGEST_STR_LEN + 1];
	struct gates_error	 err;

	ATF_REQUIRE_MSG(gates_digest(v, d, &err) == 0, "%s", err.msg);
	ATF_CHECK_STREQ(d, want);
}

/* A registry with the core providers, the shipped packs and the
 * reference's conformance pack (aiwg:test-gates/conformance-v1). */
static TG_UNUSED void
tg_registry(const atf_tc_t *tc, struct gates_registry *reg)
{
	struct gates_error	 err;
	struct json_value	*p;

	gates_registry_init(reg);
	ATF_REQUIRE_MSG(gates_registry_bootstrap(reg, &err) == 0, "%s",
	    err.msg);
	p = tg_fixture(tc, "conformance-v1.gatepack.json");
	ATF_REQUIRE_MSG(gates_register_pack(reg, p, "aiwg", "test-gates",
	    &err) == 0, "%s", err.msg);
}

#endif /* GATESTEST_H */
