/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_provider_run: the node command line and a whole provider run through the C
 * code without the sandbox -- the probe (against its parser and against
 * the node on this machine), the argv, the embedded driver, and the
 * example bundle loaded, inspected and invoked end to end: snapshot,
 * allowlist, request, node, frame, descriptor, seed, pin and sealed
 * section.
 */
#include "provtest.h"

#define NOW_MS	1788393600000LL		/* 2026-09-03T00:00:00.000Z */

ATF_TC(embedded_driver);
ATF_TC_HEAD(embedded_driver, tc)
{
	atf_tc_set_md_var(tc, "descr", "The driver in the binary is "
	    "provider/driver.mjs byte for byte, fit for one argv "
	    "string");
}
ATF_TC_BODY(embedded_driver, tc)
{
	char		 top[PATH_MAX], path[PATH_MAX + 64];
	unsigned char	*file;
	const char	*src;
	size_t		 len, flen;
	int		 fd;

	tp_top(tc, top, sizeof(top));
	snprintf(path, sizeof(path), "%s/provider/driver.mjs", top);
	ATF_REQUIRE((fd = open(path, O_RDONLY)) != -1);
	ATF_REQUIRE(read_bounded(fd, 1 << 20, &file, &flen) == 0);
	close(fd);
	src = prov_driver_source(&len);
	ATF_CHECK_EQ(len, flen);
	ATF_CHECK(memcmp(src, file, flen) == 0);
	ATF_CHECK_EQ(strlen(src), len);
	/* Linux caps one argument at 32 pages (MAX_ARG_STRLEN). */
	ATF_CHECK(len < 32 * 4096);
	free(file);
}

ATF_TC_WITHOUT_HEAD(probe_parse);
ATF_TC_BODY(probe_parse, tc)
{
	static const struct {
		const char	*out;
		const char	*want;		/* NULL: accepted */
	} t[] = {
		{ "sbx-node-probe v20.20.2 "
		    "permission=--experimental-permission "
		    "vm=--experimental-vm-modules codegen=yes\n", NULL },
		{ "sbx-node-probe v24.1.0 permission=--permission vm=builtin "
		    "codegen=yes\n", NULL },
		{ "sbx-node-probe v18.0.0 permission=none "
		    "vm=--experimental-vm-modules codegen=yes\n",
		    "node v18.0.0 has no permission model" },
		{ "sbx-node-probe v20.0.0 permission=--permission vm=none "
		    "codegen=yes\n",
		    "node v20.0.0 has no vm.SourceTextModule" },
		{ "sbx-node-probe v20.0.0 permission=--permission vm=builtin "
		    "codegen=no\n",
		    "lacks --disallow-code-generation-from-strings" },
		{ "sbx-node-probe v20.0.0 permission=--allow-all vm=builtin "
		    "codegen=yes\n", "has no permission model" },
		{ "sbx-node-probe v20.0.0 permission=--permission vm=--inspect "
		    "codegen=yes\n", "has no vm.SourceTextModule" },
		{ "sbx-node-probe v20.0.0 permission=--permission vm=builtin "
		    "codegen=yes", "not one line of output" },
		{ "sbx-node-probe v20.0.0 permission=--permission vm=builtin "
		    "codegen=yes\n\n", "not one line of output" },
		{ "warning\nsbx-node-probe v20.0.0 permission=--permission "
		    "vm=builtin codegen=yes\n", "not one line of output" },
		{ "", "not one line of output" },
		{ "node v20\n", "unexpected output" },
		{ "sbx-node-probe 20.0.0 permission=--permission vm=builtin "
		    "codegen=yes\n", "no version" },
		{ "sbx-node-probe v20.0.0 vm=builtin permission=--permission "
		    "codegen=yes\n", "malformed report" },
		{ "sbx-node-probe v20.0.0 permission=--permission vm=builtin "
		    "codegen=yes extra=1\n", "malformed report" },
		{ "sbx-node-probe v20.0.0 permission= vm=builtin codegen=yes\n",
		    "malformed report" },
	};
	struct prov_node	 node;
	struct prov_error	 err;
	size_t			 i;
	int			 r;

	for (i = 0; i < nitems(t); i++) {
		memset(&err, 0, sizeof(err));
		r = prov_node_probe_parse(t[i].out, strlen(t[i].out), &node,
		    &err);
		if (t[i].want == NULL)
			ATF_CHECK_MSG(r == 0, "case %zu: %s", i, err.msg);
		else
			TP_CHECK_ERR(r, err, PROV_SANDBOX_UNAVAILABLE,
			    t[i].want);
	}
	ATF_REQUIRE(prov_node_probe_parse(t[0].out, strlen(t[0].out), &node,
	    &err) == 0);
	ATF_CHECK_STREQ(node.version, "v20.20.2");
	ATF_CHECK_STREQ(node.permission, "--experimental-permission");
	ATF_CHECK_STREQ(node.vm_modules, "--experimental-vm-modules");
	ATF_REQUIRE(prov_node_probe_parse(t[1].out, strlen(t[1].out), &node,
	    &err) == 0);
	ATF_CHECK_STREQ(node.permission, "--permission");
	ATF_CHECK_STREQ(node.vm_modules, "");
}

ATF_TC_WITHOUT_HEAD(argv);
ATF_TC_BODY(argv, tc)
{
	struct prov_node	 node;
	const char		*av[PROV_NODE_ARGV_MAX];

	memset(&node, 0, sizeof(node));
	strlcpy(node.permission, "--experimental-permission",
	    sizeof(node.permission));
	strlcpy(node.vm_modules, "--experimental-vm-modules",
	    sizeof(node.vm_modules));
	ATF_REQUIRE_EQ(prov_node_argv("/usr/bin/node", &node, av,
	    nitems(av)), 7);
	ATF_CHECK_STREQ(av[0], "/usr/bin/node");
	ATF_CHECK_STREQ(av[1], "--experimental-permission");
	ATF_CHECK_STREQ(av[2], "--disallow-code-generation-from-strings");
	ATF_CHECK_STREQ(av[3], "--experimental-vm-modules");
	ATF_CHECK_STREQ(av[4], "--no-warnings");
	/* A script, not --input-type=module (driver.mjs says why). */
	ATF_CHECK_STREQ(av[5], "-e");
	ATF_CHECK(av[6] == prov_driver_source(NULL));
	ATF_CHECK(av[7] == NULL);
	/* vm.SourceTextModule built in: no flag for it. */
	node.vm_modules[0] = '\0';
	ATF_REQUIRE_EQ(prov_node_argv("node", &node, av, nitems(av)), 6);
	ATF_CHECK_STREQ(av[3], "--no-warnings");
	ATF_CHECK(av[6] == NULL);
	/* No room, or no permission flag: nothing. */
	ATF_CHECK_EQ(prov_node_argv("node", &node, av, 5), 0);
	node.permission[0] = '\0';
	ATF_CHECK_EQ(prov_node_argv("node", &node, av, nitems(av)), 0);
}

ATF_TC(probe_this_node);
ATF_TC_HEAD(probe_this_node, tc)
{
	atf_tc_set_md_var(tc, "descr", "The probe run against this machine's "
	    "node finds flags that node accepts");
}
ATF_TC_BODY(probe_this_node, tc)
{
	struct prov_node	 node;
	struct prov_error	 err;
	char			 path[PATH_MAX], *out;
	const char		*av[6];
	size_t			 outlen;
	int			 st;

	tp_node(path, sizeof(path));
	ATF_REQUIRE_MSG(prov_node_probe(path, &node, &err) == 0, "%s",
	    err.msg);
	ATF_CHECK(strcmp(node.permission, "--permission") == 0 ||
	    strcmp(node.permission, "--experimental-permission") == 0);
	/* Node 20 spells them the long way (interop.md §P0 and §P5.2). */
	if (strncmp(node.version, "v20.", 4) == 0) {
		ATF_CHECK_STREQ(node.permission, "--experimental-permission");
		ATF_CHECK_STREQ(node.vm_modules, "--experimental-vm-modules");
	}
	/* The flags found are flags this node runs with. */
	av[0] = path;
	av[1] = node.permission;
	av[2] = node.vm_modules[0] != '\0' ? node.vm_modules : "--no-warnings";
	av[3] = "-e";
	av[4] = "process.stdout.write(typeof require('node:vm')"
	    ".SourceTextModule)";
	av[5] = NULL;
	st = tp_run(av, NULL, 0, &out, &outlen);
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	ATF_CHECK(outlen == 8 && memcmp(out, "function", 8) == 0);
	free(out);
}

ATF_TC_WITHOUT_HEAD(probe_failures);
ATF_TC_BODY(probe_failures, tc)
{
	struct prov_node	 node;
	struct prov_error	 err;

	TP_CHECK_ERR(prov_node_probe("/nonexistent/node", &node, &err), err,
	    PROV_SANDBOX_UNAVAILABLE, "node probe: cannot run "
	    "/nonexistent/node");
	TP_CHECK_ERR(prov_node_probe("/bin/true", &node, &err), err,
	    PROV_SANDBOX_UNAVAILABLE, "node probe: not one line of output");
	TP_CHECK_ERR(prov_node_probe("/bin/false", &node, &err), err,
	    PROV_SANDBOX_UNAVAILABLE, "node probe: /bin/false failed");
}

struct fixture {
	char			 node[PATH_MAX];
	struct prov_node	 flags;
	struct prov_manifest	 m;
	struct prov_allowlist	 al;
	struct prov_loaded	 ld;
	int			 rootfd;
};

static void
fixture_load(const atf_tc_t *tc, struct fixture *f)
{
	struct prov_error	 err;
	char			 top[PATH_MAX], dir[PATH_MAX + 64];
	unsigned char		*buf;
	size_t			 len;
	int			 fd;

	tp_node(f->node, sizeof(f->node));
	ATF_REQUIRE_MSG(prov_node_probe(f->node, &f->flags, &err) == 0, "%s",
	    err.msg);
	tp_top(tc, top, sizeof(top));
	snprintf(dir, sizeof(dir), "%s/regress/fixtures/"
	    "gates-example-extension", top);
	f->rootfd = tp_opendir(dir);
	ATF_REQUIRE_MSG(prov_manifest_load(f->rootfd, &f->m, &err) == 0, "%s",
	    err.msg);
	ATF_REQUIRE((fd = openat(f->rootfd, "providers.json", O_RDONLY)) !=
	    -1);
	ATF_REQUIRE(read_bounded(fd, PROV_ALLOWLIST_MAX, &buf,
	    &len) == 0);
	close(fd);
	ATF_REQUIRE_MSG(prov_allowlist_parse(buf, len, &f->al, &err) == 0,
	    "%s", err.msg);
	free(buf);
	ATF_REQUIRE_MSG(prov_load_entry(f->rootfd, &f->m, 0, &f->al, NOW_MS,
	    &f->ld, &err) == 0, "%s", err.msg);
}

static void
fixture_free(struct fixture *f)
{
	prov_snapshot_free(&f->ld.snap);
	prov_allowlist_free(&f->al);
	close(f->rootfd);
}

/* One run: request on stdin, node as the sandbox runs it; stdout. */
static char *
run_node(struct fixture *f, const struct prov_run *run, const char *nonce,
    size_t *outlen)
{
	struct prov_snapshot	 copy;
	struct prov_run		 r = *run;
	struct prov_error	 err;
	const char		*av[PROV_NODE_ARGV_MAX];
	char			*in, *out;
	size_t			 inlen;
	int			 st;

	/* Each run sends its own copy of the issued bytes. */
	prov_snapshot_copy(&copy, &f->ld.snap);
	r.snap = &copy;
	ATF_REQUIRE_MSG(prov_request_build(&r, nonce, &in, &inlen, &err) == 0,
	    "%s", err.msg);
	prov_snapshot_free(&copy);
	ATF_REQUIRE(prov_node_argv(f->node, &f->flags, av, nitems(av)) > 0);
	st = tp_run(av, in, inlen, &out, outlen);
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "driver status %d", st);
	free(in);
	return out;
}

ATF_TC(example_end_to_end);
ATF_TC_HEAD(example_end_to_end, tc)
{
	atf_tc_set_md_var(tc, "descr", "The example bundle: load, inspect, "
	    "invoke over flake records, seal and pin, through node");
}
ATF_TC_BODY(example_end_to_end, tc)
{
	static const char	 recs[] =
	    "[{\"slice\":\"a\",\"failed\":false},{\"slice\":\"a\",\"failed\":"
	    "false},{\"slice\":\"b\",\"failed\":true},{\"slice\":\"b\","
	    "\"failed\":false}]";
	struct fixture		 f;
	struct prov_run		 run;
	struct prov_descriptor	 d;
	struct prov_identity	 id;
	struct prov_pin		 pin;
	struct prov_error	 err;
	struct json_value	*body, *records;
	char			 nonce[PROV_NONCE_HEX + 1], *out, *text;
	char			 rd[DIGEST_STR_LEN + 1];
	size_t			 outlen, len;
	uint32_t		 seed;

	fixture_load(tc, &f);

	/* Inspect: seed 1, the load's clock. */
	memset(&run, 0, sizeof(run));
	run.mode = PROV_INSPECT;
	run.issued_digest = f.ld.snap.code_digest;
	run.expected_id = f.m.entries[0].id;
	run.expected_version = f.m.entries[0].version;
	run.clock_ms = NOW_MS;
	run.seed = PROV_INSPECT_SEED;
	run.max_output = PROV_OUTPUT_DEFAULT;
	prov_nonce_new(nonce);
	out = run_node(&f, &run, nonce, &outlen);
	ATF_REQUIRE_MSG(prov_frame_parse(out, outlen, nonce, run.max_output,
	    &body, &err) == 0, "%s: %.*s", err.msg, (int)outlen, out);
	free(out);
	ATF_REQUIRE_MSG(prov_descriptor_check(body, &f.m.entries[0], &d,
	    &err) == 0, "%s", err.msg);
	json_free(body);
	ATF_CHECK_STREQ(d.metrics, "{\"failures\":{\"description\":\"Records "
	    "with failed: true, per slice and pooled.\",\"kind\":"
	    "\"proportion\"}}");
	ATF_CHECK_EQ(d.nmetrics, 1);

	/* Invoke: the seed from the code and records digests. */
	ATF_REQUIRE(prov_records_parse(recs, sizeof(recs) - 1, 0, &records,
	    &err) == 0);
	ATF_REQUIRE(prov_records_digest(records, 0, rd, &err) == 0);
	ATF_REQUIRE(prov_seed_derive(f.ld.snap.code_digest, rd, &seed,
	    &err) == 0);
	run.mode = PROV_INVOKE;
	run.records = records;
	run.seed = seed;
	run.pinned_digest = f.ld.snap.code_digest;
	out = run_node(&f, &run, nonce, &outlen);
	ATF_REQUIRE_MSG(prov_frame_parse(out, outlen, nonce, run.max_output,
	    &body, &err) == 0, "%s: %.*s", err.msg, (int)outlen, out);

	memset(&id, 0, sizeof(id));
	strlcpy(id.id, d.id, sizeof(id.id));
	strlcpy(id.version, d.version, sizeof(id.version));
	strlcpy(id.source_digest, d.source_digest, sizeof(id.source_digest));
	strlcpy(id.code_digest, f.ld.snap.code_digest,
	    sizeof(id.code_digest));
	ATF_REQUIRE_MSG(prov_seal_section(&id, records, 0, NULL,
	    json_get(body, "result"), &text, &len, &err) == 0, "%s",
	    err.msg);
	/* The records' text and digest in one pass, as an invoke takes
	 * them: the same digest, the same canonical text, the same seal. */
	{
		char	 rd1[DIGEST_STR_LEN + 1], rd2[DIGEST_STR_LEN + 1];
		char	*canon, *canon2, *text2;
		size_t	 clen, clen2, len2;

		ATF_REQUIRE(prov_records_digest(records, 0, rd1, &err) == 0);
		ATF_REQUIRE(prov_records_canonical(records, 0, &canon, &clen,
		    rd2, &err) == 0);
		ATF_CHECK_STREQ(rd1, rd2);
		ATF_REQUIRE(json_canonical(records, &canon2, &clen2) == 0);
		ATF_CHECK_EQ(clen, clen2);
		ATF_CHECK(memcmp(canon, canon2, clen) == 0);
		ATF_REQUIRE(prov_seal_section(&id, records, 0, rd2,
		    json_get(body, "result"), &text2, &len2,
		    &err) == 0);
		ATF_CHECK_EQ(len, len2);
		ATF_CHECK_STREQ(text, text2);
		TP_CHECK_ERR(prov_seal_section(&id, records, 0, "sha256:x",
		    json_get(body, "result"), &text2, &len2, &err), err,
		    PROV_INVALID_RECORDS, "not a sha256 digest");
		free(canon);
		free(canon2);
		free(text2);
	}
	{
		char	*want;

		xasprintf(&want, "{\"codeDigest\":\"%s\",\"metrics\":"
		    "{\"failures\":{\"bySlice\":{\"a\":{\"events\":0,\"n\":2},"
		    "\"b\":{\"events\":1,\"n\":2}},\"pooled\":{\"events\":1,"
		    "\"n\":4}}},\"recordsDigest\":\"%s\",\"sourceDigest\":"
		    "\"%s\",\"version\":\"1.0.0\"}", id.code_digest, rd,
		    d.source_digest);
		ATF_CHECK_STREQ(text, want);
		free(want);
	}
	free(text);
	json_free(body);

	/* The same run again: byte-identical output. */
	{
		char	*again;
		size_t	 againlen;

		again = run_node(&f, &run, nonce, &againlen);
		ATF_CHECK(againlen == outlen &&
		    memcmp(again, out, outlen) == 0);
		free(again);
	}
	/* Another run's nonce does not validate this output. */
	{
		char	 other[PROV_NONCE_HEX + 1];

		prov_nonce_new(other);
		TP_CHECK_ERR(prov_frame_parse(out, outlen, other,
		    run.max_output, &body, &err), err, PROV_REJECTED,
		    "outside its result frame");
	}
	free(out);

	ATF_REQUIRE(prov_binding_pin(&id, records, 0, &pin, &err) == 0);
	ATF_CHECK_STREQ(pin.records_digest, rd);
	json_free(records);
	prov_descriptor_free(&d);
	fixture_free(&f);
}

ATF_TC(output_cap);
ATF_TC_HEAD(output_cap, tc)
{
	atf_tc_set_md_var(tc, "descr", "The driver keeps its frame within the "
	    "run's output cap: a result that would exceed it is refused");
}
ATF_TC_BODY(output_cap, tc)
{
	struct fixture		 f;
	struct prov_run		 run;
	struct prov_error	 err;
	struct json_value	*body, *records;
	char			 nonce[PROV_NONCE_HEX + 1], *out, *json, *t;
	size_t			 outlen, i;

	fixture_load(tc, &f);
	/* 300 slices make a result of about 9 KiB. */
	json = xstrdup("[");
	for (i = 0; i < 300; i++) {
		xasprintf(&t, "%s%s{\"slice\":\"slice-%03zu\",\"failed\":true}",
		    json, i ? "," : "", i);
		free(json);
		json = t;
	}
	xasprintf(&t, "%s]", json);
	free(json);
	ATF_REQUIRE(prov_records_parse(t, strlen(t), 0, &records, &err) == 0);
	free(t);
	memset(&run, 0, sizeof(run));
	run.mode = PROV_INVOKE;
	run.issued_digest = f.ld.snap.code_digest;
	run.expected_id = f.m.entries[0].id;
	run.expected_version = f.m.entries[0].version;
	run.records = records;
	run.clock_ms = NOW_MS;
	run.max_output = 4096;
	prov_nonce_new(nonce);
	out = run_node(&f, &run, nonce, &outlen);
	ATF_CHECK(outlen <= run.max_output);
	TP_CHECK_ERR(prov_frame_parse(out, outlen, nonce, run.max_output,
	    &body, &err), err, PROV_REJECTED, "provider rejected: isolated "
	    "provider response exceeds the output cap");
	free(out);
	run.max_output = 65536;
	out = run_node(&f, &run, nonce, &outlen);
	ATF_CHECK_MSG(prov_frame_parse(out, outlen, nonce, run.max_output,
	    &body, &err) == 0, "%s", err.msg);
	json_free(body);
	free(out);
	json_free(records);
	fixture_free(&f);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, embedded_driver);
	ATF_TP_ADD_TC(tp, probe_parse);
	ATF_TP_ADD_TC(tp, argv);
	ATF_TP_ADD_TC(tp, probe_this_node);
	ATF_TP_ADD_TC(tp, probe_failures);
	ATF_TP_ADD_TC(tp, example_end_to_end);
	ATF_TP_ADD_TC(tp, output_cap);
	return atf_no_error();
}
