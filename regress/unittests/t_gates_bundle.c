/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_gates_bundle: a pack bundle's manifest.json as the reference's
 * discovery reads it (interop.md §G11.2; gates/bundle.c), and the runner's
 * reader over a bundle directory (gates/read.c): the
 * declared gate-packs directory, the name filter and its "missing"
 * refusal, the safe-path rule, every file checked before any is read,
 * and a claimed operator bundle id.
 */
#include "gatestest.h"
#include "provider/provider.h"

static struct json_value *
manifest(const char *text)
{
	struct json_value	*m;

	ATF_REQUIRE_MSG(gates_manifest_parse(text, strlen(text), &m) == 0,
	    "manifest %s", text);
	return m;
}

/* The declaration as "dir|name,name" ("-" no dir, "*" no filter). */
static char *
decl_of(const char *text)
{
	struct gates_bundle_decl	 d;
	struct json_value		*m = manifest(text);
	char				*s, *t;
	size_t				 i;

	gates_bundle_declaration(m, &d);
	xasprintf(&s, "%s|%s", d.dir != NULL ? d.dir : "-",
	    d.has_names ? "" : "*");
	for (i = 0; i < d.nnames; i++) {
		xasprintf(&t, "%s%s%s", s, i > 0 ? "," : "", d.names[i]);
		free(s);
		s = t;
	}
	gates_bundle_decl_free(&d);
	json_free(m);
	return s;
}

#define DECL(text, want) do {						\
	char	*_s = decl_of(text);					\
	ATF_CHECK_STREQ_MSG(_s, want, "%s", text);			\
	free(_s);							\
} while (0)

ATF_TC_WITHOUT_HEAD(declaration);
ATF_TC_BODY(declaration, tc)
{
	struct json_value	*m;

	(void)tc;
	DECL("{}", "-|*");
	DECL("{\"entry\":{\"gatePacks\":\"packs\"}}", "packs|*");
	DECL("{\"entry\":{\"gate-packs\":\"p2\"}}", "p2|*");
	/* entry.gatePacks wins over entry["gate-packs"]. */
	DECL("{\"entry\":{\"gatePacks\":\"a\",\"gate-packs\":\"b\"}}", "a|*");
	/* Non-strings are dropped from the list, not refused. */
	DECL("{\"gatePacks\":[\"x\",1,\"y\"]}", "-|x,y");
	DECL("{\"gatePacks\":[]}", "-|");
	DECL("{\"gatePacks\":\"x\"}", "-|*");
	/* A config block's list when the top level has none. */
	DECL("{\"addonConfig\":{\"gatePacks\":[\"a\"]},"
	    "\"entry\":{\"gatePacks\":\"d\"}}", "d|a");
	/* Its entry names the directory the top level left out. */
	DECL("{\"extensionConfig\":{\"entry\":{\"gatePacks\":\"e\"}},"
	    "\"gatePacks\":[\"t\"]}", "e|t");
	/* The first config block that says anything answers. */
	DECL("{\"addonConfig\":{\"entry\":{\"gatePacks\":\"a\"}},"
	    "\"frameworkConfig\":{\"gatePacks\":[\"f\"]}}", "a|*");
	/* With a top-level list, a config entry names the directory. */
	DECL("{\"gatePacks\":[\"t\"],\"frameworkConfig\":{\"gatePacks\":"
	    "[\"f\"],\"entry\":{\"gatePacks\":\"fd\"}}}", "fd|t");
	/* Both at the top level: frameworkConfig's list still wins last,
	 * and its entry's directory over the top level's. */
	DECL("{\"gatePacks\":[\"t\"],\"entry\":{\"gatePacks\":\"d\"},"
	    "\"frameworkConfig\":{\"gatePacks\":[\"f\"],\"entry\":"
	    "{\"gatePacks\":\"fd\"}}}", "fd|f");
	DECL("{\"addonConfig\":null,\"gatePacks\":[\"t\"]}", "-|t");
	/* Not an object, not JSON, over the cap: no manifest at all. */
	ATF_CHECK(gates_manifest_parse("[1]", 3, &m) == -1);
	ATF_CHECK(gates_manifest_parse("{", 1, &m) == -1);
	ATF_CHECK(gates_manifest_parse("{}", GATES_MANIFEST_MAX + 1,
	    &m) == -1);
}

ATF_TC_WITHOUT_HEAD(paths_and_claims);
ATF_TC_BODY(paths_and_claims, tc)
{
	struct json_value	*m;
	char			 buf[64], *id;

	(void)tc;
	ATF_CHECK(gates_packs_dir_ok("gate-packs"));
	ATF_CHECK(gates_packs_dir_ok("a/b_c/D-1/"));
	ATF_CHECK(!gates_packs_dir_ok(""));
	ATF_CHECK(!gates_packs_dir_ok("/abs"));
	ATF_CHECK(!gates_packs_dir_ok("../x"));
	ATF_CHECK(!gates_packs_dir_ok("a/../b"));
	ATF_CHECK(!gates_packs_dir_ok("a//b"));
	ATF_CHECK(!gates_packs_dir_ok("a b"));
	ATF_CHECK(!gates_packs_dir_ok("a/b//"));
	ATF_CHECK_STREQ(gates_pack_short("x.GatePack.YAML", buf,
	    sizeof(buf)), "x");
	ATF_CHECK_STREQ(gates_pack_short("x.gatepack.json", buf,
	    sizeof(buf)), "x");
	ATF_CHECK_STREQ(gates_pack_short("x.json", buf, sizeof(buf)),
	    "x.json");
	m = manifest("{\"id\":\"test-gates\",\"type\":\"addon\"}");
	id = gates_bundle_claim(m);
	ATF_CHECK_STREQ(id != NULL ? id : "(none)", "test-gates");
	free(id);
	json_free(m);
	m = manifest("{\"id\":\"  \",\"type\":\"addon\"}");
	ATF_CHECK(gates_bundle_claim(m) == NULL);
	json_free(m);
	m = manifest("{\"id\":\"x\",\"type\":\"plugin\"}");
	ATF_CHECK(gates_bundle_claim(m) == NULL);
	json_free(m);
}

ATF_TC_WITHOUT_HEAD(io_messages);
ATF_TC_BODY(io_messages, tc)
{
	struct gates_error	 err;

	(void)tc;
	gates_io_error(&err, ENOENT, "open", "/x/m.json");
	ATF_CHECK_STREQ(err.msg, "ENOENT: no such file or directory, open "
	    "'/x/m.json'");
	gates_io_error(&err, EACCES, "lstat", "/p");
	ATF_CHECK_STREQ(err.msg, "EACCES: permission denied, lstat '/p'");
}

/* ---- the runner's reader over a real directory ----------------------- */

static const char pack_fmt[] =
    "{\"apiVersion\":\"gates.aiwg.io/v1alpha1\",\"kind\":\"GatePack\","
    "\"metadata\":{\"id\":\"project:%s\",\"version\":\"1.0.0\","
    "\"description\":\"t\"},\"spec\":{\"metrics\":{},\"gates\":[{\"id\":"
    "\"g\",\"kind\":\"upstream-ceiling\",\"onFail\":\"HOLD\",\"direction\":"
    "\"lower-is-stricter\",\"scope\":{\"mode\":\"all\"}}]}}";

static void
put(const char *path, const char *text)
{
	FILE	*f;

	ATF_REQUIRE_MSG((f = fopen(path, "w")) != NULL, "%s", path);
	fputs(text, f);
	fclose(f);
}

static void
put_pack(const char *path, const char *name)
{
	char	*s;

	xasprintf(&s, pack_fmt, name);
	put(path, s);
	free(s);
}

/* gread_pack_dir on dir ("" when it registered, else the refusal). */
static char *
load(const char *dir, int opfd, size_t *npacks)
{
	struct gates_registry	 reg;
	struct gates_error	 err;
	char			 abs[PATH_MAX];
	int			 fd, r;

	ATF_REQUIRE(realpath(dir, abs) != NULL);
	memset(&err, 0, sizeof(err));
	ATF_REQUIRE(gates_registry_bootstrap(&reg, &err) == 0);
	ATF_REQUIRE((fd = open(dir, O_RDONLY | O_DIRECTORY)) != -1);
	r = gread_pack_dir(&reg, fd, 0, abs, opfd, &err);
	*npacks = reg.npacks;
	gates_registry_free(&reg);
	return xstrdup(r == 0 ? "" : err.msg);
}

ATF_TC_WITHOUT_HEAD(reader);
ATF_TC_BODY(reader, tc)
{
	char	*r, abs[PATH_MAX], want[PATH_MAX + 128];
	size_t	 shipped, n;
	int	 opfd;

	(void)tc;
	/* No gate-packs/: nothing registers, as in the reference. */
	ATF_REQUIRE(mkdir("b", 0755) == 0);
	r = load("b", -1, &shipped);
	ATF_CHECK_STREQ(r, "");
	free(r);
	/* The default directory. */
	ATF_REQUIRE(mkdir("b/gate-packs", 0755) == 0);
	put_pack("b/gate-packs/one.gatepack.json", "one");
	r = load("b", -1, &n);
	ATF_CHECK_STREQ(r, "");
	ATF_CHECK_EQ(n, shipped + 1);
	free(r);
	/* The manifest's directory and name filter: a broken pack it does
	 * not name is never parsed. */
	ATF_REQUIRE(mkdir("b/packs", 0755) == 0);
	put_pack("b/packs/two.gatepack.json", "two");
	put("b/packs/broken.gatepack.json", "{");
	put("b/manifest.json", "{\"entry\":{\"gatePacks\":\"packs\"},"
	    "\"gatePacks\":[\"two\"]}");
	r = load("b", -1, &n);
	ATF_CHECK_STREQ(r, "");
	ATF_CHECK_EQ(n, shipped + 1);
	free(r);
	/* Named, the broken one refuses as unparseable. */
	put("b/manifest.json", "{\"entry\":{\"gatePacks\":\"packs\"}}");
	r = load("b", -1, &n);
	ATF_REQUIRE(realpath("b", abs) != NULL);
	snprintf(want, sizeof(want), "gate pack unparseable: %s/packs/"
	    "broken.gatepack.json: Decision entry rejected: invalid-json",
	    abs);
	ATF_CHECK_STREQ(r, want);
	free(r);
	/* A declared name with no file. */
	put("b/manifest.json", "{\"entry\":{\"gatePacks\":\"packs/\"},"
	    "\"gatePacks\":[\"two\",\"three\"]}");
	r = load("b", -1, &n);
	snprintf(want, sizeof(want), "gate pack missing: %s/packs/"
	    "three.gatepack.yaml (declared by manifest)", abs);
	ATF_CHECK_STREQ(r, want);
	free(r);
	/* Every file is checked before any is read: a link among them
	 * refuses even though the one before it is broken. */
	ATF_REQUIRE(unlink("b/packs/broken.gatepack.json") == 0);
	put("b/packs/a.gatepack.json", "{");
	ATF_REQUIRE(symlink("two.gatepack.json",
	    "b/packs/z.gatepack.json") == 0);
	put("b/manifest.json", "{\"entry\":{\"gatePacks\":\"packs\"}}");
	r = load("b", -1, &n);
	snprintf(want, sizeof(want), "gate pack must not be a symlink: "
	    "%s/packs/z.gatepack.json", abs);
	ATF_CHECK_STREQ(r, want);
	free(r);
	/* Out of the bundle. */
	put("b/manifest.json", "{\"entry\":{\"gatePacks\":\"../x\"}}");
	r = load("b", -1, &n);
	snprintf(want, sizeof(want), "gatePacks dir '../x' must be a "
	    "relative path inside the bundle (alphanumeric + _-, no leading "
	    "slash, no ..): %s", abs);
	ATF_CHECK_STREQ(r, want);
	free(r);
	/* Claiming the shipped bundle, or an operator's bundle that is
	 * not this directory; claiming its own directory is fine. */
	put("b/manifest.json", "{\"id\":\"decision-engine\",\"type\":"
	    "\"addon\"}");
	r = load("b", -1, &n);
	snprintf(want, sizeof(want), "pack-dir bundle claims a shipped "
	    "bundle id 'decision-engine' that is not its own directory: %s",
	    abs);
	ATF_CHECK_STREQ(r, want);
	free(r);
	ATF_REQUIRE(mkdir("ops", 0755) == 0);
	ATF_REQUIRE(mkdir("ops/mine", 0755) == 0);
	ATF_REQUIRE((opfd = open("ops", O_RDONLY | O_DIRECTORY)) != -1);
	put("b/manifest.json", "{\"id\":\"mine\",\"type\":\"extension\"}");
	r = load("b", opfd, &n);
	ATF_CHECK(strstr(r, "claims a shipped bundle id 'mine'") != NULL);
	free(r);
	put("ops/mine/manifest.json", "{\"id\":\"mine\",\"type\":"
	    "\"extension\"}");
	r = load("ops/mine", opfd, &n);
	ATF_CHECK_STREQ(r, "");
	free(r);
	close(opfd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, declaration);
	ATF_TP_ADD_TC(tp, paths_and_claims);
	ATF_TP_ADD_TC(tp, io_messages);
	ATF_TP_ADD_TC(tp, reader);
	return atf_no_error();
}
