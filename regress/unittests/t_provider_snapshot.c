/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_provider_snapshot: the snapshot walk and code digest of interop.md §P2 --
 * every lstat and size rule with its code and message, UTF-8 validity,
 * entry paths, ordering, and digests checked against the spec's worked
 * example and against node (regress/provider-ref.mjs) on trees built here.
 */
#include "provtest.h"

#define EX_HASH1 \
	"cbf7d763853153fc4970cce83df81b81" \
	"c9e1d60c0580b44ca3f6c266c3596607"
#define EX_HASH2 \
	"80ba5452bc9220216023f740d58a61d8" \
	"93c55e072c7d195bb26a85548a3a20e6"
#define EX_DIGEST \
	"sha256:76cd4dcb9af82fc27461a8452544" \
	"01bd66e96f8f5198cbb57c28c1f99511a590"

/* Take a snapshot of dir/entry; the result of prov_snapshot_take. */
static int
take(const char *dir, const char *entry, struct prov_snapshot *snap,
    struct prov_error *err)
{
	int	 fd, r;

	fd = tp_opendir(dir);
	memset(err, 0, sizeof(*err));
	r = prov_snapshot_take(fd, entry, snap, err);
	close(fd);
	return r;
}

static void
expect_refusal(const char *dir, const char *entry, enum prov_code code,
    const char *want)
{
	struct prov_snapshot	 snap;
	struct prov_error	 err;
	int			 r;

	r = take(dir, entry, &snap, &err);
	TP_CHECK_ERR(r, err, code, want);
	if (r == 0)
		prov_snapshot_free(&snap);
	else
		ATF_CHECK_EQ(snap.nmods, 0);	/* nothing half-taken */
}

/* A minimal good provider at b/gp/p.mjs. */
static void
good_bundle(void)
{
	tp_writes("b/gp/p.mjs", "export const provider = {};\n");
}

ATF_TC_WITHOUT_HEAD(spec_worked_example);
ATF_TC_BODY(spec_worked_example, tc)
{
	struct prov_module	 mods[2];
	char			 d[DIGEST_STR_LEN + 1];

	/* The reference fixture's two hashes give the reference digest. */
	memset(mods, 0, sizeof(mods));
	mods[0].path = "gate-providers/example.mjs";
	strlcpy(mods[0].sha256, EX_HASH1, sizeof(mods[0].sha256));
	mods[1].path = "gate-providers/helper.mjs";
	strlcpy(mods[1].sha256, EX_HASH2, sizeof(mods[1].sha256));
	ATF_REQUIRE(prov_code_digest(mods, 2, d) == 0);
	ATF_CHECK_STREQ(d, EX_DIGEST);
	/* Order is part of the digest. */
	mods[0].path = "gate-providers/helper.mjs";
	mods[1].path = "gate-providers/example.mjs";
	ATF_REQUIRE(prov_code_digest(mods, 2, d) == 0);
	ATF_CHECK(strcmp(d, EX_DIGEST) != 0);
	/* No files: the digest of {"externals":[],"files":[]}. */
	digest_bytes("{\"externals\":[],\"files\":[]}", 27, d);
	{
		char	 d0[DIGEST_STR_LEN + 1];

		ATF_REQUIRE(prov_code_digest(mods, 0, d0) == 0);
		ATF_CHECK_STREQ(d0, d);
	}
}

ATF_TC_WITHOUT_HEAD(walk_captures_mjs_only);
ATF_TC_BODY(walk_captures_mjs_only, tc)
{
	struct prov_snapshot	 snap;
	struct prov_error	 err;
	char			 hex[DIGEST_HEX_LEN + 1];

	tp_writes("b/gp/p.mjs", "import './lib/h.mjs';\n");
	tp_writes("b/gp/lib/h.mjs", "export const h = 1;\n");
	tp_writes("b/gp/dead.mjs", "// never imported, still captured\n");
	tp_writes("b/gp/notes.txt", "inert\n");
	tp_writes("b/gp/review.json", "{}");
	tp_fill("b/gp/big.bin", PROV_MAX_FILE_BYTES + 10, 'x');
	tp_writes("b/gp/bad.txt", "\xff\xfe not utf-8");
	tp_writes("b/gp/p.cjs", "module.exports = 1;\n");
	tp_writes("b/other/x.mjs", "outside the provider directory\n");
	tp_writes("b/top.mjs", "at the bundle root\n");
	ATF_REQUIRE_MSG(take("b", "gp/p.mjs", &snap, &err) == 0, "%s",
	    err.msg);
	ATF_REQUIRE_EQ(snap.nmods, 3);
	ATF_CHECK_STREQ(snap.mods[0].path, "gp/dead.mjs");
	ATF_CHECK_STREQ(snap.mods[1].path, "gp/lib/h.mjs");
	ATF_CHECK_STREQ(snap.mods[2].path, "gp/p.mjs");
	ATF_CHECK_STREQ(snap.entry, "gp/p.mjs");
	ATF_CHECK_EQ(snap.mods[1].len, 20);
	ATF_CHECK(memcmp(snap.mods[1].bytes, "export const h = 1;\n", 20) == 0);
	digest_sha256_hex("export const h = 1;\n", 20, hex);
	ATF_CHECK_STREQ(snap.mods[1].sha256, hex);
	ATF_CHECK_EQ(snap.total, 34 + 20 + 22);
	ATF_CHECK(prov_digest_ok(snap.code_digest));
	prov_snapshot_free(&snap);

	/* An entry at the root walks the whole bundle. */
	ATF_REQUIRE_MSG(take("b", "top.mjs", &snap, &err) == 0, "%s",
	    err.msg);
	ATF_CHECK_EQ(snap.nmods, 5);
	ATF_CHECK_STREQ(snap.mods[0].path, "gp/dead.mjs");
	ATF_CHECK_STREQ(snap.mods[3].path, "other/x.mjs");
	ATF_CHECK_STREQ(snap.mods[4].path, "top.mjs");
	prov_snapshot_free(&snap);
}

ATF_TC_WITHOUT_HEAD(symlinks);
ATF_TC_BODY(symlinks, tc)
{
	good_bundle();
	tp_writes("outside.mjs", "secret\n");
	ATF_REQUIRE(symlink("../../outside.mjs", "b/gp/link.mjs") == 0);
	expect_refusal("b", "gp/p.mjs", PROV_PATH_ESCAPE,
	    "gp/link.mjs: must not be a symlink");
	ATF_REQUIRE(unlink("b/gp/link.mjs") == 0);

	/* A symlink that is not .mjs, and one to a directory, refuse too. */
	ATF_REQUIRE(symlink("p.mjs", "b/gp/link.txt") == 0);
	expect_refusal("b", "gp/p.mjs", PROV_PATH_ESCAPE,
	    "gp/link.txt: must not be a symlink");
	ATF_REQUIRE(unlink("b/gp/link.txt") == 0);
	tp_mkdirs("elsewhere", 1);
	tp_writes("elsewhere/e.mjs", "x\n");
	ATF_REQUIRE(symlink("../../elsewhere", "b/gp/dir") == 0);
	expect_refusal("b", "gp/p.mjs", PROV_PATH_ESCAPE,
	    "gp/dir: must not be a symlink");
	ATF_REQUIRE(unlink("b/gp/dir") == 0);

	/* The entry itself, or a directory on its path, as a symlink. */
	ATF_REQUIRE(symlink("p.mjs", "b/gp/entry.mjs") == 0);
	expect_refusal("b", "gp/entry.mjs", PROV_PATH_ESCAPE,
	    "entry module \"gp/entry.mjs\": must not be a symlink");
	ATF_REQUIRE(unlink("b/gp/entry.mjs") == 0);
	ATF_REQUIRE(symlink("gp", "b/alias") == 0);
	expect_refusal("b", "alias/p.mjs", PROV_PATH_ESCAPE,
	    "a symlink is on its path");
	ATF_REQUIRE(symlink("../elsewhere", "b/out") == 0);
	expect_refusal("b", "out/e.mjs", PROV_PATH_ESCAPE,
	    "a symlink is on its path");
}

ATF_TC_WITHOUT_HEAD(special_files);
ATF_TC_BODY(special_files, tc)
{
	good_bundle();
	ATF_REQUIRE(mkfifo("b/gp/fifo.mjs", 0644) == 0);
	expect_refusal("b", "gp/p.mjs", PROV_PATH_ESCAPE,
	    "gp/fifo.mjs: not a regular file or directory");
	ATF_REQUIRE(unlink("b/gp/fifo.mjs") == 0);
	/* Not .mjs, still refused: the walk never reads it, but refuses. */
	ATF_REQUIRE(mkfifo("b/gp/queue", 0644) == 0);
	expect_refusal("b", "gp/p.mjs", PROV_PATH_ESCAPE,
	    "gp/queue: not a regular file or directory");
	ATF_REQUIRE(unlink("b/gp/queue") == 0);
	/* The entry as a fifo or a directory. */
	ATF_REQUIRE(mkfifo("b/gp/f.mjs", 0644) == 0);
	expect_refusal("b", "gp/f.mjs", PROV_PATH_ESCAPE,
	    "entry module \"gp/f.mjs\": not a regular file");
	ATF_REQUIRE(unlink("b/gp/f.mjs") == 0);
	tp_mkdirs("b/gp/d.mjs", 1);
	expect_refusal("b", "gp/d.mjs", PROV_PATH_ESCAPE,
	    "entry module \"gp/d.mjs\": not a regular file");
}

ATF_TC_WITHOUT_HEAD(reserved_names);
ATF_TC_BODY(reserved_names, tc)
{
	good_bundle();
	tp_writes("b/gp/__aiwg_request.mjs", "x\n");
	expect_refusal("b", "gp/p.mjs", PROV_INVALID_MODULE,
	    "gp/__aiwg_request.mjs: the \"__aiwg_\" prefix is reserved");
	ATF_REQUIRE(unlink("b/gp/__aiwg_request.mjs") == 0);
	tp_writes("b/gp/__aiwg_request.json", "{}");
	expect_refusal("b", "gp/p.mjs", PROV_INVALID_MODULE,
	    "gp/__aiwg_request.json: the \"__aiwg_\" prefix is reserved");
	ATF_REQUIRE(unlink("b/gp/__aiwg_request.json") == 0);
	tp_mkdirs("b/gp/sub/__aiwg_dir", 1);
	expect_refusal("b", "gp/p.mjs", PROV_INVALID_MODULE,
	    "gp/sub/__aiwg_dir: the \"__aiwg_\" prefix is reserved");
	ATF_REQUIRE(rmdir("b/gp/sub/__aiwg_dir") == 0);
	/* Only a prefix: the name elsewhere is fine. */
	tp_writes("b/gp/x__aiwg_.mjs", "x\n");
	{
		struct prov_snapshot	 snap;
		struct prov_error	 err;

		ATF_REQUIRE_MSG(take("b", "gp/p.mjs", &snap, &err) == 0,
		    "%s", err.msg);
		ATF_CHECK_EQ(snap.nmods, 2);
		prov_snapshot_free(&snap);
	}
	/* The entry itself may not use the prefix either. */
	tp_writes("b/gp/__aiwg_entry.mjs", "x\n");
	expect_refusal("b", "gp/__aiwg_entry.mjs", PROV_INVALID_MODULE,
	    "the \"__aiwg_\" prefix is reserved");
}

ATF_TC_WITHOUT_HEAD(mjs_directory);
ATF_TC_BODY(mjs_directory, tc)
{
	good_bundle();
	tp_mkdirs("b/gp/x.mjs", 1);
	expect_refusal("b", "gp/p.mjs", PROV_INVALID_MODULE,
	    "gp/x.mjs: a directory must not be named *.mjs");
	tp_writes("b/gp/x.mjs/inner.mjs", "x\n");
	expect_refusal("b", "gp/p.mjs", PROV_INVALID_MODULE,
	    "gp/x.mjs: a directory must not be named *.mjs");
}

ATF_TC_WITHOUT_HEAD(file_count);
ATF_TC_BODY(file_count, tc)
{
	struct prov_snapshot	 snap;
	struct prov_error	 err;
	char			 path[64];
	int			 i;

	/* p.mjs and m01..m19: 20 modules, the limit. */
	good_bundle();
	for (i = 1; i < PROV_MAX_FILES; i++) {
		snprintf(path, sizeof(path), "b/gp/m%02d.mjs", i);
		tp_writes(path, "x\n");
	}
	ATF_REQUIRE_MSG(take("b", "gp/p.mjs", &snap, &err) == 0, "%s",
	    err.msg);
	ATF_CHECK_EQ(snap.nmods, PROV_MAX_FILES);
	prov_snapshot_free(&snap);
	/* Non-.mjs files do not count. */
	tp_writes("b/gp/z.txt", "x\n");
	ATF_REQUIRE_MSG(take("b", "gp/p.mjs", &snap, &err) == 0, "%s",
	    err.msg);
	prov_snapshot_free(&snap);
	/* The 21st module, in walk order, is the one named. */
	tp_writes("b/gp/m20.mjs", "x\n");
	expect_refusal("b", "gp/p.mjs", PROV_OVERSIZE,
	    "gp/p.mjs: provider exceeds 20 files");
}

ATF_TC_WITHOUT_HEAD(file_size);
ATF_TC_BODY(file_size, tc)
{
	struct prov_snapshot	 snap;
	struct prov_error	 err;

	good_bundle();
	tp_fill("b/gp/big.mjs", PROV_MAX_FILE_BYTES, ' ');
	ATF_REQUIRE_MSG(take("b", "gp/p.mjs", &snap, &err) == 0, "%s",
	    err.msg);
	ATF_CHECK_EQ(snap.mods[0].len, PROV_MAX_FILE_BYTES);
	prov_snapshot_free(&snap);
	tp_fill("b/gp/big.mjs", PROV_MAX_FILE_BYTES + 1, ' ');
	expect_refusal("b", "gp/p.mjs", PROV_OVERSIZE,
	    "gp/big.mjs: more than 262144 bytes (the per-file limit)");
}

ATF_TC_WITHOUT_HEAD(total_size);
ATF_TC_BODY(total_size, tc)
{
	struct prov_snapshot	 snap;
	struct prov_error	 err;

	/* Four full files are exactly 1 MiB; the entry then tips it. */
	tp_fill("b/gp/a.mjs", PROV_MAX_FILE_BYTES, ' ');
	tp_fill("b/gp/b.mjs", PROV_MAX_FILE_BYTES, ' ');
	tp_fill("b/gp/c.mjs", PROV_MAX_FILE_BYTES, ' ');
	tp_fill("b/gp/d.mjs", PROV_MAX_FILE_BYTES, ' ');
	ATF_REQUIRE_MSG(take("b", "gp/a.mjs", &snap, &err) == 0, "%s",
	    err.msg);
	ATF_CHECK_EQ(snap.total, PROV_MAX_TOTAL_BYTES);
	prov_snapshot_free(&snap);
	tp_writes("b/gp/e.mjs", "x");
	expect_refusal("b", "gp/a.mjs", PROV_OVERSIZE,
	    "gp/e.mjs: provider exceeds 1048576 bytes in total");
	/* An empty module adds nothing and is fine. */
	tp_writes("b/gp/e.mjs", "");
	ATF_REQUIRE_MSG(take("b", "gp/a.mjs", &snap, &err) == 0, "%s",
	    err.msg);
	ATF_CHECK_EQ(snap.nmods, 5);
	prov_snapshot_free(&snap);
}

#define S(lit)	lit, sizeof(lit) - 1
ATF_TC_WITHOUT_HEAD(utf8);
ATF_TC_BODY(utf8, tc)
{
	static const struct {
		const char	*bytes;
		size_t		 len;
		size_t		 offset;	/* (size_t)-1: valid */
	} t[] = {
		{ S("\xef\xbb\xbf// BOM first\n"), (size_t)-1 },
		{ S("// U+FFFD \xef\xbf\xbd is a character\n"), (size_t)-1 },
		{ S("nul \0 is valid"), (size_t)-1 },
		{ S("\xf0\x9f\x98\x80 astral, \xe2\x80\xa8 LS"), (size_t)-1 },
		{ S("\xf4\x8f\xbf\xbf max"), (size_t)-1 },
		{ S("bad \xff byte"), 4 },
		{ S("overlong \xc0\xaf slash"), 9 },
		{ S("overlong \xe0\x80\xaf"), 9 },
		{ S("surrogate \xed\xa0\x80 half"), 10 },
		{ S("above \xf4\x90\x80\x80"), 6 },
		{ S("cut \xe2\x82"), 4 },
		{ S("lone \x80 continuation"), 5 },
		{ S("\xf8\x88\x80\x80\x80 five"), 0 },
	};
	char	 want[96];
	size_t	 i;

	good_bundle();
	for (i = 0; i < nitems(t); i++) {
		ATF_CHECK_EQ_MSG(utf8_check((const unsigned char *)
		    t[i].bytes, t[i].len), t[i].offset == (size_t)-1 ?
		    t[i].len : t[i].offset, "case %zu", i);
		tp_write("b/gp/u.mjs", t[i].bytes, t[i].len);
		if (t[i].offset == (size_t)-1) {
			struct prov_snapshot	 snap;
			struct prov_error	 err;

			ATF_CHECK_MSG(take("b", "gp/p.mjs", &snap, &err) == 0,
			    "case %zu: %s", i, err.msg);
			prov_snapshot_free(&snap);
		} else {
			snprintf(want, sizeof(want), "gp/u.mjs: not valid "
			    "UTF-8 (byte offset %zu)", t[i].offset);
			expect_refusal("b", "gp/p.mjs", PROV_INVALID_MODULE,
			    want);
		}
	}
}

ATF_TC_WITHOUT_HEAD(names);
ATF_TC_BODY(names, tc)
{
	good_bundle();
	/* A name that is not UTF-8 cannot be read back by the reference. */
	tp_writes("b/gp/\xff.mjs", "x\n");
	expect_refusal("b", "gp/p.mjs", PROV_PATH_ESCAPE,
	    "gp/\\377.mjs: name is not valid UTF-8");
	ATF_REQUIRE(unlink("b/gp/\xff.mjs") == 0);
	/* Control characters in names are escaped in messages. */
	ATF_REQUIRE(mkfifo("b/gp/a\nb\033[1m", 0644) == 0);
	expect_refusal("b", "gp/p.mjs", PROV_PATH_ESCAPE,
	    "gp/a\\nb\\033[1m: not a regular file or directory");
}

ATF_TC_WITHOUT_HEAD(entry_paths);
ATF_TC_BODY(entry_paths, tc)
{
	static const char *const bad[] = {
		"../escape.mjs", "/abs.mjs", "..\\escape.mjs", "gp/../p.mjs",
		"gp/./p.mjs", "gp//p.mjs", "./gp/p.mjs", "gp/p.js", "gp/p",
		"gp/.mjs", "gp/p.mjs/", "", "gp/p q.mjs", "gp/p.MJS",
		"gp/p.min.mjs", "gp\\p.mjs",
	};
	size_t	 i;

	good_bundle();
	for (i = 0; i < nitems(bad); i++)
		expect_refusal("b", bad[i], PROV_PATH_ESCAPE,
		    "not a bundle-relative .mjs path");
	/* Well-formed but absent. */
	expect_refusal("b", "gp/missing.mjs", PROV_PATH_ESCAPE,
	    "entry module \"gp/missing.mjs\": cannot be opened: No such file");
	expect_refusal("b", "nodir/p.mjs", PROV_PATH_ESCAPE,
	    "cannot be opened: No such file");
}

ATF_TC_WITHOUT_HEAD(order);
ATF_TC_BODY(order, tc)
{
	struct prov_snapshot	 snap;
	struct prov_error	 err;

	/*
	 * Paths sort by UTF-16 code units: "a-b" < "a/x" ('-' < '/'),
	 * astral characters (surrogates, 0xd8xx) before U+E000..U+FFFF,
	 * though their UTF-8 bytes sort the other way round.
	 */
	tp_writes("b/gp/a/x.mjs", "1\n");
	tp_writes("b/gp/a-b.mjs", "2\n");
	tp_writes("b/gp/\xef\xbc\xa1.mjs", "3\n");		/* U+FF21 */
	tp_writes("b/gp/\xf0\x9f\x98\x80.mjs", "4\n");	/* U+1F600 */
	tp_writes("b/gp/B.mjs", "5\n");
	ATF_REQUIRE_MSG(take("b", "gp/B.mjs", &snap, &err) == 0, "%s",
	    err.msg);
	ATF_REQUIRE_EQ(snap.nmods, 5);
	ATF_CHECK_STREQ(snap.mods[0].path, "gp/B.mjs");
	ATF_CHECK_STREQ(snap.mods[1].path, "gp/a-b.mjs");
	ATF_CHECK_STREQ(snap.mods[2].path, "gp/a/x.mjs");
	ATF_CHECK_STREQ(snap.mods[3].path, "gp/\xf0\x9f\x98\x80.mjs");
	ATF_CHECK_STREQ(snap.mods[4].path, "gp/\xef\xbc\xa1.mjs");
	prov_snapshot_free(&snap);

	/* The first offence in walk order is the one reported. */
	tp_writes("b/gp/__aiwg_z.mjs", "x\n");
	ATF_REQUIRE(symlink("B.mjs", "b/gp/A.mjs") == 0);
	expect_refusal("b", "gp/B.mjs", PROV_PATH_ESCAPE, "gp/A.mjs");
}

ATF_TC_WITHOUT_HEAD(depth);
ATF_TC_BODY(depth, tc)
{
	char	 path[1024];
	int	 i;

	good_bundle();
	strlcpy(path, "b/gp", sizeof(path));
	for (i = 0; i < PROV_MAX_DEPTH; i++)
		strlcat(path, "/d", sizeof(path));
	strlcat(path, "/x.mjs", sizeof(path));
	tp_writes(path, "x\n");
	{
		struct prov_snapshot	 snap;
		struct prov_error	 err;

		ATF_REQUIRE_MSG(take("b", "gp/p.mjs", &snap, &err) == 0,
		    "%s", err.msg);
		ATF_CHECK_EQ(snap.nmods, 2);
		prov_snapshot_free(&snap);
	}
	*strrchr(path, '/') = '\0';
	strlcat(path, "/d", sizeof(path));
	tp_mkdirs(path, 1);
	expect_refusal("b", "gp/p.mjs", PROV_OVERSIZE,
	    "nested deeper than 32 directories");
}

ATF_TC(digest_matches_node);
ATF_TC_HEAD(digest_matches_node, tc)
{
	atf_tc_set_md_var(tc, "descr", "Code digests of trees built here "
	    "equal those node computes (regress/provider-ref.mjs)");
}
ATF_TC_BODY(digest_matches_node, tc)
{
	static const char *const entries[] = {
		"gp/p.mjs", "gp/sub/deep/e.mjs", "root.mjs"
	};
	struct prov_snapshot	 snap;
	struct prov_error	 err;
	char			 node[PATH_MAX], top[PATH_MAX];
	char			 ref[PATH_MAX + 64];
	char			*out;
	size_t			 i, outlen;
	const char		*argv[6];
	int			 st;

	tp_node(node, sizeof(node));
	tp_top(tc, top, sizeof(top));
	snprintf(ref, sizeof(ref), "%s/regress/provider-ref.mjs", top);
	tp_writes("b/gp/p.mjs", "import { h } from './sub/h.mjs';\n");
	tp_writes("b/gp/sub/h.mjs", "export const h = '\xc3\xa9';\n");
	tp_writes("b/gp/sub/deep/e.mjs", "\xef\xbb\xbf// BOM\r\n");
	tp_write("b/gp/a-b.mjs", "\0\x01\x7f\n", 4);
	tp_writes("b/gp/\xf0\x9f\x98\x80.mjs", "astral\n");
	tp_writes("b/gp/\xef\xbc\xa1.mjs", "fullwidth A\n");
	tp_writes("b/gp/ignored.json", "{}");
	tp_writes("b/root.mjs", "");
	for (i = 0; i < nitems(entries); i++) {
		ATF_REQUIRE_MSG(take("b", entries[i], &snap, &err) == 0,
		    "%s: %s", entries[i], err.msg);
		argv[0] = node;
		argv[1] = ref;
		argv[2] = "digest";
		argv[3] = "b";
		argv[4] = entries[i];
		argv[5] = NULL;
		st = tp_run(argv, NULL, 0, &out, &outlen);
		ATF_REQUIRE_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "node digest %s failed", entries[i]);
		ATF_REQUIRE(outlen == DIGEST_STR_LEN + 1);
		ATF_CHECK_MSG(memcmp(out, snap.code_digest,
		    DIGEST_STR_LEN) == 0, "%s: sbx %s, node %.*s", entries[i],
		    snap.code_digest, (int)DIGEST_STR_LEN, out);
		free(out);
		prov_snapshot_free(&snap);
	}
}

ATF_TC_WITHOUT_HEAD(copy_and_verify);
ATF_TC_BODY(copy_and_verify, tc)
{
	struct prov_snapshot	 snap, copy;
	struct prov_error	 err;
	char			 other[DIGEST_STR_LEN + 1];

	tp_writes("b/gp/p.mjs", "export const provider = {};\n");
	tp_writes("b/gp/h.mjs", "export const h = 1;\n");
	ATF_REQUIRE(take("b", "gp/p.mjs", &snap, &err) == 0);
	prov_snapshot_copy(&copy, &snap);
	ATF_CHECK(copy.mods[0].bytes != snap.mods[0].bytes);
	ATF_CHECK(prov_snapshot_verify(&copy, snap.code_digest, &err) == 0);

	/* Later edits to the files do not reach the snapshot. */
	tp_writes("b/gp/h.mjs", "export const h = 2;\n");
	ATF_CHECK(prov_snapshot_verify(&copy, snap.code_digest, &err) == 0);

	/* A changed byte in memory is caught: the bytes are re-hashed. */
	copy.mods[0].bytes[0] ^= 1;
	TP_CHECK_ERR(prov_snapshot_verify(&copy, snap.code_digest, &err),
	    err, PROV_ATTESTATION_MISMATCH,
	    "code does not match its pinned digest");
	copy.mods[0].bytes[0] ^= 1;
	/* Another digest, or a malformed one, refuses. */
	digest_bytes("other", 5, other);
	TP_CHECK_ERR(prov_snapshot_verify(&copy, other, &err), err,
	    PROV_ATTESTATION_MISMATCH, "code does not match its pinned digest");
	TP_CHECK_ERR(prov_snapshot_verify(&copy, "sha256:abc", &err), err,
	    PROV_ATTESTATION_MISMATCH, "not a sha256 digest");
	prov_snapshot_free(&copy);
	prov_snapshot_free(&snap);
}

ATF_TC_WITHOUT_HEAD(not_a_directory);
ATF_TC_BODY(not_a_directory, tc)
{
	struct prov_snapshot	 snap;
	struct prov_error	 err;
	int			 fd;

	tp_writes("file", "x");
	ATF_REQUIRE((fd = open("file", O_RDONLY)) != -1);
	TP_CHECK_ERR(prov_snapshot_take(fd, "gp/p.mjs", &snap, &err), err,
	    PROV_PATH_ESCAPE, "bundle root is unavailable");
	close(fd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, spec_worked_example);
	ATF_TP_ADD_TC(tp, walk_captures_mjs_only);
	ATF_TP_ADD_TC(tp, symlinks);
	ATF_TP_ADD_TC(tp, special_files);
	ATF_TP_ADD_TC(tp, reserved_names);
	ATF_TP_ADD_TC(tp, mjs_directory);
	ATF_TP_ADD_TC(tp, file_count);
	ATF_TP_ADD_TC(tp, file_size);
	ATF_TP_ADD_TC(tp, total_size);
	ATF_TP_ADD_TC(tp, utf8);
	ATF_TP_ADD_TC(tp, names);
	ATF_TP_ADD_TC(tp, entry_paths);
	ATF_TP_ADD_TC(tp, order);
	ATF_TP_ADD_TC(tp, depth);
	ATF_TP_ADD_TC(tp, digest_matches_node);
	ATF_TP_ADD_TC(tp, copy_and_verify);
	ATF_TP_ADD_TC(tp, not_a_directory);
	return atf_no_error();
}
