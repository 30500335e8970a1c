/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_common_changeset: the changeset stream, version 1 (common/changeset.c,
 * issue 23): a round trip through the writer and the parser, every rule
 * the writer refuses, every rule the parser refuses (on raw bytes built
 * here, past the writer's checks), and the limits.
 */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "changeset.h"

static int
memfd(void)
{
	int	 fd;

	ATF_REQUIRE((fd = memfd_create("cs", 0)) != -1);
	return fd;
}

static void
rec_init(struct sbx_cs_rec *rec, int kind, const char *path, uint64_t size)
{
	memset(rec, 0, sizeof(*rec));
	rec->kind = kind;
	rec->mode = kind == SBX_CS_WHITEOUT ? 0 : 0644;
	rec->size = size;
	strlcpy(rec->path, path, sizeof(rec->path));
}

static void
rec_base(struct sbx_cs_rec *rec, int base_kind, uint32_t mode)
{
	rec->base_kind = base_kind;
	rec->base_mode = mode;
	rec->base_size = 7;
	rec->base_ino = 1234;
	rec->base_dev = 0x801;
	rec->base_mtime_ns = 1700000000123456789LL;
	rec->base_ctime_ns = -5;
	if (base_kind == SBX_CS_FILE)
		memset(rec->base_sha256, 0xab, sizeof(rec->base_sha256));
}

/* Parse fd from the start: the error, or "" when valid; records in n. */
static const char *
parse_all(int fd, int *n)
{
	static char		 err[512];
	static struct sbx_cs_rec rec;
	struct sbx_cs_reader	*r;
	char			 buf[1000];
	int			 rc;

	*n = 0;
	err[0] = '\0';
	ATF_REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
	if ((r = sbx_cs_open(fd, err, sizeof(err))) == NULL)
		return err;
	while ((rc = sbx_cs_next(r, &rec)) == 1) {
		(*n)++;
		/* Read part of every other file's data: the rest is skipped. */
		if (*n % 2 == 0 && sbx_cs_read(r, buf, sizeof(buf)) == -1)
			break;
	}
	if (rc != 0)
		strlcpy(err, sbx_cs_error(r), sizeof(err));
	sbx_cs_close(r);
	return err;
}

ATF_TC_WITHOUT_HEAD(round_trip);
ATF_TC_BODY(round_trip, tc)
{
	struct sbx_cs_writer	*w;
	struct sbx_cs_reader	*r;
	struct sbx_cs_rec	 rec, got;
	char			 err[512], big[200000], back[200000];
	int			 fd, src;
	size_t			 i, have;
	ssize_t			 k;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 + i / 300);
	src = memfd();
	ATF_REQUIRE(write(src, big, sizeof(big)) == (ssize_t)sizeof(big));
	ATF_REQUIRE(lseek(src, 0, SEEK_SET) == 0);

	fd = memfd();
	/* Count unknown: the end patches the header. */
	ATF_REQUIRE((w = sbx_cs_write_begin(fd, -1, err, sizeof(err))) !=
	    NULL);
	rec_init(&rec, SBX_CS_FILE, "a", 5);
	rec_base(&rec, SBX_CS_FILE, S_IFREG | 0600);
	ATF_REQUIRE_MSG(sbx_cs_write(w, &rec, -1, "hello") == 0, "%s",
	    sbx_cs_werror(w));
	rec_init(&rec, SBX_CS_WHITEOUT, "a-gone", 0);
	rec_base(&rec, SBX_CS_DIR, S_IFDIR | 0755);
	ATF_REQUIRE_MSG(sbx_cs_write(w, &rec, -1, NULL) == 0, "%s",
	    sbx_cs_werror(w));
	rec_init(&rec, SBX_CS_DIR, "b", 0);
	rec.mode = 0700;
	ATF_REQUIRE(sbx_cs_write(w, &rec, -1, NULL) == 0);
	rec_init(&rec, SBX_CS_FILE, "b/big.bin", sizeof(big));
	rec.mode = 04755;
	ATF_REQUIRE_MSG(sbx_cs_write(w, &rec, src, NULL) == 0, "%s",
	    sbx_cs_werror(w));
	rec_init(&rec, SBX_CS_SYMLINK, "b/link", 8);
	rec.mode = 0777;
	rec_base(&rec, SBX_CS_OTHER, S_IFIFO | 0644);
	strlcpy(rec.target, "../a\x01\xff/x", sizeof(rec.target));
	ATF_REQUIRE_MSG(sbx_cs_write(w, &rec, -1, NULL) == 0, "%s",
	    sbx_cs_werror(w));
	rec_init(&rec, SBX_CS_FILE, "empty", 0);
	ATF_REQUIRE(sbx_cs_write(w, &rec, -1, NULL) == 0);
	ATF_REQUIRE_MSG(sbx_cs_write_end(w) == 0, "%s", sbx_cs_werror(w));
	sbx_cs_write_free(w);

	ATF_REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
	ATF_REQUIRE_MSG((r = sbx_cs_open(fd, err, sizeof(err))) != NULL, "%s",
	    err);
	ATF_CHECK_EQ(sbx_cs_count(r), 6);
	ATF_REQUIRE(sbx_cs_next(r, &got) == 1);
	ATF_CHECK(got.kind == 'f' && got.base_kind == 'f');
	ATF_CHECK_STREQ(got.path, "a");
	ATF_CHECK(got.path_len == 1 && got.size == 5 && got.mode == 0644);
	ATF_CHECK(got.base_mode == (S_IFREG | 0600) && got.base_size == 7 &&
	    got.base_ino == 1234 && got.base_dev == 0x801 &&
	    got.base_mtime_ns == 1700000000123456789LL &&
	    got.base_ctime_ns == -5 && got.base_sha256[31] == 0xab);
	ATF_CHECK(sbx_cs_op(&got) == 'M');
	ATF_REQUIRE(sbx_cs_read(r, back, 2) == 2);
	ATF_REQUIRE(sbx_cs_read(r, back + 2, 100) == 3);
	ATF_CHECK(sbx_cs_read(r, back, 100) == 0);
	ATF_CHECK(memcmp(back, "hello", 5) == 0);
	ATF_REQUIRE(sbx_cs_next(r, &got) == 1);
	ATF_CHECK_STREQ(got.path, "a-gone");
	ATF_CHECK(sbx_cs_op(&got) == 'D');
	ATF_REQUIRE(sbx_cs_next(r, &got) == 1);
	ATF_CHECK(got.kind == 'd' && got.mode == 0700 && sbx_cs_op(&got) ==
	    'A');
	ATF_REQUIRE(sbx_cs_next(r, &got) == 1);
	ATF_CHECK_STREQ(got.path, "b/big.bin");
	ATF_CHECK(got.mode == 04755 && got.size == sizeof(big));
	have = 0;
	while ((k = sbx_cs_read(r, back + have, 70000)) > 0)
		have += (size_t)k;
	ATF_REQUIRE(k == 0);
	ATF_CHECK(have == sizeof(big) && memcmp(back, big, have) == 0);
	ATF_REQUIRE(sbx_cs_next(r, &got) == 1);
	ATF_CHECK(got.kind == 'l' && got.size == 8);
	ATF_CHECK_STREQ(got.target, "../a\x01\xff/x");
	/* The empty file's data is nothing; its record is the last. */
	ATF_REQUIRE(sbx_cs_next(r, &got) == 1);
	ATF_CHECK_STREQ(got.path, "empty");
	ATF_CHECK_EQ(sbx_cs_next(r, &got), 0);
	ATF_CHECK_EQ(sbx_cs_next(r, &got), 0);
	sbx_cs_close(r);
	close(fd);
	close(src);
}

/* The writer never writes what the parser would refuse. */
ATF_TC_WITHOUT_HEAD(writer_refuses);
ATF_TC_BODY(writer_refuses, tc)
{
	static const struct {
		const char	*prev;		/* NULL: none */
		int		 prevkind;
		const char	*path;
		int		 kind;
		const char	*rule;
	} cases[] = {
		{ "b", 'f', "a", 'f', "path: sorts before" },
		{ "a", 'f', "a", 'f', "path: repeats" },
		{ "a", 'f', "a/b", 'f', "beneath an earlier record" },
		{ "a", 'w', "a/b/c", 'd', "beneath an earlier record" },
		{ "a", 'l', "a/b", 'f', "beneath an earlier record" },
		{ NULL, 0, "/a", 'f', "path: is absolute" },
		{ NULL, 0, "a//b", 'f', "empty component" },
		{ NULL, 0, "a/", 'f', "trailing" },
		{ NULL, 0, "a/../b", 'f', "\"..\" component" },
		{ NULL, 0, "./a", 'f', "\"..\" component" },
		{ NULL, 0, "", 'f', "path_len: 0" },
		{ NULL, 0, "a", 'x', "kind: 0x78" },
	};
	struct sbx_cs_writer	*w;
	struct sbx_cs_rec	 rec;
	char			 err[512];
	size_t			 i;
	int			 fd;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fd = memfd();
		ATF_REQUIRE((w = sbx_cs_write_begin(fd, -1, err,
		    sizeof(err))) != NULL);
		if (cases[i].prev != NULL) {
			rec_init(&rec, cases[i].prevkind, cases[i].prev, 0);
			if (cases[i].prevkind == 'w')
				rec_base(&rec, 'd', S_IFDIR | 0755);
			if (cases[i].prevkind == 'l') {
				rec.size = 1;
				strlcpy(rec.target, "x", sizeof(rec.target));
			}
			ATF_REQUIRE_MSG(sbx_cs_write(w, &rec, -1, NULL) == 0,
			    "%zu: %s", i, sbx_cs_werror(w));
		}
		rec_init(&rec, cases[i].kind, cases[i].path, 0);
		ATF_CHECK_MSG(sbx_cs_write(w, &rec, -1, NULL) == -1,
		    "case %zu accepted", i);
		ATF_CHECK_MSG(strstr(sbx_cs_werror(w), cases[i].rule) != NULL,
		    "case %zu: %s", i, sbx_cs_werror(w));
		ATF_CHECK_MSG(strncmp(sbx_cs_werror(w), "record ", 7) == 0,
		    "case %zu: %s", i, sbx_cs_werror(w));
		/* A failed writer stays failed. */
		rec_init(&rec, 'f', "zzz", 0);
		ATF_CHECK(sbx_cs_write(w, &rec, -1, NULL) == -1);
		ATF_CHECK(sbx_cs_write_end(w) == -1);
		sbx_cs_write_free(w);
		close(fd);
	}

	/* Field rules. */
	fd = memfd();
	ATF_REQUIRE((w = sbx_cs_write_begin(fd, 2, err, sizeof(err))) !=
	    NULL);
	rec_init(&rec, 'w', "a", 0);
	ATF_CHECK(sbx_cs_write(w, &rec, -1, NULL) == -1);
	ATF_CHECK(strstr(sbx_cs_werror(w), "base_kind: a deleted path") !=
	    NULL);
	sbx_cs_write_free(w);
#define FIELD_CASE(setup, rule) do {					\
	ATF_REQUIRE((w = sbx_cs_write_begin(fd, -1, err,		\
	    sizeof(err))) != NULL);					\
	rec_init(&rec, 'f', "a", 0);					\
	setup;								\
	ATF_CHECK_MSG(sbx_cs_write(w, &rec, -1, "x") == -1, "%s", rule); \
	ATF_CHECK_MSG(strstr(sbx_cs_werror(w), rule) != NULL, "%s",	\
	    sbx_cs_werror(w));						\
	sbx_cs_write_free(w);						\
} while (0)
	FIELD_CASE(rec.mode = 010644, "mode: 010644 has bits");
	FIELD_CASE((rec.kind = 'w', rec_base(&rec, 'f', S_IFREG | 0644)),
	    "mode: must be 0");
	FIELD_CASE((rec.kind = 'd', rec.size = 1), "size: must be 0");
	FIELD_CASE(rec.kind = 'l', "size: a symlink's target");
	FIELD_CASE((rec.kind = 'l', rec.size = 4096),
	    "size: a symlink's target");
	FIELD_CASE((rec.kind = 'l', rec.size = 2), "target holds a NUL");
	ATF_REQUIRE((w = sbx_cs_write_begin(fd, -1, err, sizeof(err))) !=
	    NULL);
	rec_init(&rec, 'l', "a", 1);
	ATF_CHECK(sbx_cs_write(w, &rec, fd, NULL) == -1);
	ATF_CHECK(strstr(sbx_cs_werror(w), "not a descriptor") != NULL);
	sbx_cs_write_free(w);
	FIELD_CASE(rec.base_ino = 3, "base: fields must be 0");
	FIELD_CASE(rec.base_kind = 'x', "base_kind: 0x78");
	FIELD_CASE(rec_base(&rec, 'f', S_IFDIR | 0755),
	    "base_mode: 040755 does not fit base_kind 'f'");
	FIELD_CASE(rec_base(&rec, 'o', S_IFREG | 0755),
	    "does not fit base_kind 'o'");
	FIELD_CASE((rec_base(&rec, 'd', S_IFDIR | 0755),
	    rec.base_sha256[0] = 1), "base_sha256: must be zero");
	ATF_REQUIRE((w = sbx_cs_write_begin(fd, -1, err, sizeof(err))) !=
	    NULL);
	rec_init(&rec, 'f', "a", 2);
	ATF_CHECK(sbx_cs_write(w, &rec, -1, NULL) == -1);
	ATF_CHECK(strstr(sbx_cs_werror(w), "data: none given") != NULL);
	sbx_cs_write_free(w);

	/* Counts: more than declared, fewer than declared. */
	ATF_REQUIRE((w = sbx_cs_write_begin(fd, 1, err, sizeof(err))) !=
	    NULL);
	rec_init(&rec, 'd', "a", 0);
	ATF_CHECK(sbx_cs_write(w, &rec, -1, NULL) == 0);
	rec_init(&rec, 'd', "b", 0);
	ATF_CHECK(sbx_cs_write(w, &rec, -1, NULL) == -1);
	sbx_cs_write_free(w);
	ATF_REQUIRE((w = sbx_cs_write_begin(fd, 2, err, sizeof(err))) !=
	    NULL);
	ATF_CHECK(sbx_cs_write_end(w) == -1);
	ATF_CHECK(strstr(sbx_cs_werror(w), "0 records written, the header "
	    "says 2") != NULL);
	sbx_cs_write_free(w);
	ATF_CHECK(sbx_cs_write_begin(fd, SBX_CS_MAX_RECORDS + 1, err,
	    sizeof(err)) == NULL);
	ATF_CHECK(strstr(err, "above the limit") != NULL);
	close(fd);
}

/* A file that changes while copied is refused, never misrecorded. */
ATF_TC_WITHOUT_HEAD(writer_copy_size);
ATF_TC_BODY(writer_copy_size, tc)
{
	struct sbx_cs_writer	*w;
	struct sbx_cs_rec	 rec;
	char			 err[512];
	int			 fd, src;

	fd = memfd();
	src = memfd();
	ATF_REQUIRE(write(src, "abcdef", 6) == 6);
	ATF_REQUIRE(lseek(src, 0, SEEK_SET) == 0);
	ATF_REQUIRE((w = sbx_cs_write_begin(fd, -1, err, sizeof(err))) !=
	    NULL);
	rec_init(&rec, 'f', "a", 10);
	ATF_CHECK(sbx_cs_write(w, &rec, src, NULL) == -1);
	ATF_CHECK(strstr(sbx_cs_werror(w), "after 6 of 10 bytes") != NULL);
	sbx_cs_write_free(w);
	ATF_REQUIRE(lseek(src, 0, SEEK_SET) == 0);
	ATF_REQUIRE((w = sbx_cs_write_begin(fd, -1, err, sizeof(err))) !=
	    NULL);
	rec_init(&rec, 'f', "a", 4);
	ATF_CHECK(sbx_cs_write(w, &rec, src, NULL) == -1);
	ATF_CHECK(strstr(sbx_cs_werror(w), "it grew") != NULL);
	sbx_cs_write_free(w);
	/* An unknown count needs a seekable stream. */
	{
		int p[2];

		ATF_REQUIRE(pipe(p) == 0);
		ATF_CHECK(sbx_cs_write_begin(p[1], -1, err, sizeof(err)) ==
		    NULL);
		ATF_CHECK(strstr(err, "not seekable") != NULL);
		close(p[0]);
		close(p[1]);
	}
	close(fd);
	close(src);
}

/* ---- raw streams, past the writer's checks --------------------------- */

static void
be(unsigned char *p, uint64_t v, int n)
{
	while (n-- > 0) {
		p[n] = v & 0xff;
		v >>= 8;
	}
}

static void
raw_header(int fd, uint32_t count, uint32_t reserved)
{
	unsigned char	 h[16];

	memcpy(h, "SBXCS\0\1\0", 8);
	be(h + 8, count, 4);
	be(h + 12, reserved, 4);
	ATF_REQUIRE(write(fd, h, sizeof(h)) == sizeof(h));
}

static void
raw_rec(int fd, int kind, int base_kind, const char *path, size_t plen,
    uint32_t mode, uint64_t size, uint32_t base_mode, uint32_t reserved,
    const char *data)
{
	unsigned char	 h[96];

	memset(h, 0, sizeof(h));
	h[0] = kind;
	h[1] = base_kind;
	be(h + 2, plen, 2);
	be(h + 4, mode, 4);
	be(h + 8, size, 8);
	be(h + 56, base_mode, 4);
	be(h + 60, reserved, 4);
	ATF_REQUIRE(write(fd, h, sizeof(h)) == sizeof(h));
	if (plen > 0)
		ATF_REQUIRE(write(fd, path, plen) == (ssize_t)plen);
	if (data != NULL)
		ATF_REQUIRE(write(fd, data, size) == (ssize_t)size);
}

static void
wr(int fd, const void *p, size_t n)
{
	ATF_REQUIRE(write(fd, p, n) == (ssize_t)n);
}

static void
cut(int fd, off_t len)
{
	ATF_REQUIRE(ftruncate(fd, len) == 0);
}

static void
raw_end(int fd)
{
	raw_rec(fd, 'E', 0, NULL, 0, 0, 0, 0, 0, NULL);
}

#define F(fd, path)	raw_rec(fd, 'f', 0, path, strlen(path), 0644, 0, 0, \
			    0, NULL)

ATF_TC_WITHOUT_HEAD(parser_rejects);
ATF_TC_BODY(parser_rejects, tc)
{
	const char	*e;
	unsigned char	 h[96];
	int		 fd, n;

#define REJECT(build, rule) do {					\
	fd = memfd();							\
	build;								\
	e = parse_all(fd, &n);						\
	ATF_CHECK_MSG(strstr(e, rule) != NULL, "want \"%s\", got \"%s\"", \
	    rule, e);							\
	close(fd);							\
} while (0)
	/* A valid one first, so the cases below fail for their reason. */
	fd = memfd();
	raw_header(fd, 2, 0);
	F(fd, "a");
	F(fd, "b");
	raw_end(fd);
	e = parse_all(fd, &n);
	ATF_CHECK_STREQ(e, "");
	ATF_CHECK_EQ(n, 2);
	close(fd);

	REJECT(ATF_REQUIRE(write(fd, "SBXCS\0\2\0\0\0\0\0\0\0\0\0", 16) ==
	    16), "header: magic: not a changeset stream of version 1");
	REJECT(ATF_REQUIRE(write(fd, "SBXCS\0\1", 7) == 7),
	    "header: length: the stream ends inside it");
	REJECT(raw_header(fd, 0, 1), "header: reserved: not 0");
	REJECT(raw_header(fd, SBX_CS_MAX_RECORDS + 1, 0),
	    "header: record count: 1000001 above the limit 1000000");
	REJECT((raw_header(fd, 0, 0)), "end record: end record: the stream "
	    "ends inside it");
	REJECT((raw_header(fd, 0, 0), raw_end(fd), F(fd, "x")),
	    "end record: bytes follow the end record");
	REJECT((raw_header(fd, 0, 0), F(fd, "x")),
	    "end record: kind: more records than the header's count (0)");
	REJECT((raw_header(fd, 0, 0), raw_rec(fd, 'E', 0, NULL, 0, 0, 1, 0, 0,
	    NULL)), "end record: fields: must all be zero");
	REJECT((raw_header(fd, 2, 0), F(fd, "a"), raw_end(fd)),
	    "record 2: kind: the end record after 1 of 2 records");
	REJECT((raw_header(fd, 2, 0), F(fd, "b"), F(fd, "a"), raw_end(fd)),
	    "record 2: path: sorts before");
	REJECT((raw_header(fd, 2, 0), F(fd, "a"), F(fd, "a"), raw_end(fd)),
	    "record 2: path: repeats");
	REJECT((raw_header(fd, 3, 0), F(fd, "a"), F(fd, "a-b"),
	    F(fd, "a/c"), raw_end(fd)),
	    "record 3: path: lies beneath an earlier record that is not a "
	    "directory");
	REJECT((raw_header(fd, 2, 0), raw_rec(fd, 'w', 'f', "a", 1, 0, 0,
	    S_IFREG | 0644, 0, NULL), raw_rec(fd, 'd', 0, "a/b", 3, 0755, 0,
	    0, 0, NULL), raw_end(fd)), "record 2: path: lies beneath");
	REJECT((raw_header(fd, 1, 0), raw_rec(fd, 'f', 0, "a", 1, 0644, 0, 0,
	    7, NULL), raw_end(fd)), "record 1: reserved: not 0");
	REJECT((raw_header(fd, 1, 0), raw_rec(fd, 'f', 0, "", 0, 0644, 0, 0,
	    0, NULL), raw_end(fd)), "record 1: path_len: 0 is outside");
	REJECT((raw_header(fd, 1, 0), raw_rec(fd, 'f', 0, "a\0b", 3, 0644, 0,
	    0, 0, NULL), raw_end(fd)), "record 1: path: holds a NUL byte");
	REJECT((raw_header(fd, 1, 0), raw_rec(fd, 'f', 0, "a/..", 4, 0644, 0,
	    0, 0, NULL), raw_end(fd)), "record 1: path: has a \".\" or");
	REJECT((raw_header(fd, 1, 0), raw_rec(fd, 'q', 0, "a", 1, 0644, 0, 0,
	    0, NULL), raw_end(fd)), "record 1: kind: 0x71");
	REJECT((raw_header(fd, 1, 0), raw_rec(fd, 'w', 0, "a", 1, 0, 0, 0, 0,
	    NULL), raw_end(fd)), "record 1: base_kind: a deleted path");
	REJECT((raw_header(fd, 1, 0), raw_rec(fd, 'l', 0, "a", 1, 0777, 3, 0,
	    0, "a\0b"), raw_end(fd)), "record 1: data: a symlink's target "
	    "holds a NUL");
	REJECT((raw_header(fd, 1, 0), raw_rec(fd, 'f', 0, "a", 1, 0644, 10,
	    0, 0, NULL), wr(fd, "12345", 5)),
	    "record 1: data: the stream ends inside it");
	REJECT((raw_header(fd, 1, 0), raw_rec(fd, 'f', 0, "abc", 3, 0644, 0,
	    0, 0, NULL)), "end record: end record: the stream ends");
	REJECT((raw_header(fd, 1, 0), raw_rec(fd, 'f', 0, "abc", 3, 0644, 0,
	    0, 0, NULL), cut(fd, 16 + 96 + 2)),
	    "record 1: path: the stream ends inside it");
	/* A record header cut short. */
	fd = memfd();
	raw_header(fd, 1, 0);
	memset(h, 0, sizeof(h));
	h[0] = 'f';
	ATF_REQUIRE(write(fd, h, 50) == 50);
	e = parse_all(fd, &n);
	ATF_CHECK_MSG(strstr(e, "record 1: record header: the stream ends") !=
	    NULL, "%s", e);
	close(fd);
}

ATF_TC_WITHOUT_HEAD(limits);
ATF_TC_BODY(limits, tc)
{
	struct sbx_cs_writer	*w;
	struct sbx_cs_rec	 rec;
	char			 err[512], path[5000];
	const char		*e;
	int			 fd, n;

	/* The longest path and symlink target pass; one more byte not. */
	memset(path, 'p', sizeof(path));
	path[SBX_CS_PATH_MAX] = '\0';
	fd = memfd();
	ATF_REQUIRE((w = sbx_cs_write_begin(fd, 2, err, sizeof(err))) !=
	    NULL);
	rec_init(&rec, 'l', path, SBX_CS_LINK_MAX);
	memset(rec.target, 't', SBX_CS_LINK_MAX);
	rec.target[SBX_CS_LINK_MAX] = '\0';
	ATF_REQUIRE_MSG(sbx_cs_write(w, &rec, -1, NULL) == 0, "%s",
	    sbx_cs_werror(w));
	rec_init(&rec, 'd', "q", 0);
	ATF_REQUIRE(sbx_cs_write(w, &rec, -1, NULL) == 0);
	ATF_REQUIRE(sbx_cs_write_end(w) == 0);
	sbx_cs_write_free(w);
	e = parse_all(fd, &n);
	ATF_CHECK_STREQ(e, "");
	ATF_CHECK_EQ(n, 2);
	close(fd);

	fd = memfd();
	raw_header(fd, 1, 0);
	raw_rec(fd, 'f', 0, path, SBX_CS_PATH_MAX + 1, 0644, 0, 0, 0, NULL);
	raw_end(fd);
	e = parse_all(fd, &n);
	ATF_CHECK_MSG(strstr(e, "record 1: path_len: 4096 is outside 1..4095")
	    != NULL, "%s", e);
	close(fd);
	fd = memfd();
	raw_header(fd, 1, 0);
	raw_rec(fd, 'l', 0, "a", 1, 0777, SBX_CS_LINK_MAX + 1, 0, 0, NULL);
	raw_end(fd);
	e = parse_all(fd, &n);
	ATF_CHECK_MSG(strstr(e, "record 1: size: a symlink's target is "
	    "1..4095 bytes, not 4096") != NULL, "%s", e);
	close(fd);
	/* A file's size far beyond the stream: refused as truncated. */
	fd = memfd();
	raw_header(fd, 1, 0);
	raw_rec(fd, 'f', 0, "a", 1, 0644, (uint64_t)1 << 62, 0, 0, NULL);
	raw_end(fd);
	e = parse_all(fd, &n);
	ATF_CHECK_MSG(strstr(e, "record 1: data: the stream ends inside it") !=
	    NULL, "%s", e);
	close(fd);
	fd = memfd();
	raw_header(fd, 1, 0);
	raw_rec(fd, 'f', 0, "a", 1, 0644, (uint64_t)1 << 63, 0, 0, NULL);
	raw_end(fd);
	e = parse_all(fd, &n);
	ATF_CHECK_MSG(strstr(e, "record 1: size: above 2^63 - 1") != NULL,
	    "%s", e);
	close(fd);
}

/* Deep nesting keeps one stack entry a level, popped as paths move on. */
ATF_TC_WITHOUT_HEAD(nesting);
ATF_TC_BODY(nesting, tc)
{
	struct sbx_cs_writer	*w;
	struct sbx_cs_rec	 rec;
	char			 err[512], path[SBX_CS_PATH_MAX + 1];
	const char		*e;
	size_t			 len;
	int			 fd, n, count = 0;

	fd = memfd();
	ATF_REQUIRE((w = sbx_cs_write_begin(fd, -1, err, sizeof(err))) !=
	    NULL);
	path[0] = '\0';
	for (len = 0; len + 2 <= 2000; len += 2) {
		strlcat(path, len == 0 ? "d" : "/d", sizeof(path));
		/* d..., then d...-f (a file beside, sorts before d.../) */
		rec_init(&rec, 'd', path, 0);
		ATF_REQUIRE_MSG(sbx_cs_write(w, &rec, -1, NULL) == 0, "%s",
		    sbx_cs_werror(w));
		count++;
		if (strlen(path) + 2 < sizeof(path)) {
			rec_init(&rec, 'f', path, 0);
			strlcat(rec.path, "-f", sizeof(rec.path));
			ATF_REQUIRE_MSG(sbx_cs_write(w, &rec, -1, NULL) == 0,
			    "%s", sbx_cs_werror(w));
			count++;
		}
	}
	ATF_REQUIRE_MSG(sbx_cs_write_end(w) == 0, "%s", sbx_cs_werror(w));
	sbx_cs_write_free(w);
	e = parse_all(fd, &n);
	ATF_CHECK_STREQ(e, "");
	ATF_CHECK_EQ(n, count);
	close(fd);
}

/* A failed writer's mark is told from a stream and from nothing. */
ATF_TC_WITHOUT_HEAD(failure_mark);
ATF_TC_BODY(failure_mark, tc)
{
	char	 why[64];
	int	 fd;

	fd = memfd_create("t", 0);
	ATF_REQUIRE(fd != -1);
	/* Empty, and a stream's magic: not a mark. */
	ATF_CHECK_EQ(sbx_cs_failure(fd, why, sizeof(why)), 0);
	ATF_REQUIRE(write(fd, SBX_CS_MAGIC, 8) == 8);
	ATF_CHECK_EQ(sbx_cs_failure(fd, why, sizeof(why)), 0);
	ATF_CHECK_EQ(lseek(fd, 0, SEEK_CUR), 0);
	/* A mark: its reason, non-printable bytes as '?', bounded, and the
	 * descriptor left at its start. */
	ATF_REQUIRE(ftruncate(fd, 0) == 0);
	ATF_REQUIRE(write(fd, SBX_CS_FAIL_MARK "a/\033b: grew\n", 24) == 24);
	ATF_CHECK_EQ(sbx_cs_failure(fd, why, sizeof(why)), 1);
	ATF_CHECK_STREQ(why, "a/?b: grew?");
	ATF_CHECK_EQ(lseek(fd, 0, SEEK_CUR), 0);
	ATF_CHECK_EQ(sbx_cs_failure(fd, why, 4), 1);
	ATF_CHECK_STREQ(why, "a/?");
	close(fd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, round_trip);
	ATF_TP_ADD_TC(tp, writer_refuses);
	ATF_TP_ADD_TC(tp, writer_copy_size);
	ATF_TP_ADD_TC(tp, parser_rejects);
	ATF_TP_ADD_TC(tp, limits);
	ATF_TP_ADD_TC(tp, nesting);
	ATF_TP_ADD_TC(tp, failure_mark);
	return 0;
}
