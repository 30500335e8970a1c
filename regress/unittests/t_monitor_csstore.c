/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_monitor_csstore: the changeset store's metadata and files
 * (monitor/csstore.c, issue 23): the JSON round trip and every refusal of
 * the strict parser, ids, the store directory's checks, one uid never
 * seeing another's changeset, list order, discard and expiry.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "monitor/csstore.h"

static void
meta_init(struct cs_meta *m, const char *id, uint32_t uid)
{
	memset(m, 0, sizeof(*m));
	strlcpy(m->id, id, sizeof(m->id));
	m->uid = uid;
	strlcpy(m->dir, "/home/a/proj \"q\"", sizeof(m->dir));
	m->dev = UINT64_MAX;
	m->ino = (1ULL << 53) + 1;
	m->created = 1796300000;
	m->last_run = 1796300010;
	m->first_run_start = 1796300000123456789LL;
	m->runs = 2;
	m->size = 4096;
	m->entries = 3;
}

ATF_TC_WITHOUT_HEAD(meta_roundtrip);
ATF_TC_BODY(meta_roundtrip, tc)
{
	struct cs_meta	 a, b;
	char		 err[256], *s;

	meta_init(&a, "0123456789ab", 1000);
	s = csstore_meta_json(&a);
	if (csstore_meta_parse(s, strlen(s), &b, err, sizeof(err)) == -1)
		atf_tc_fail("parse %s: %s", s, err);
	ATF_CHECK(memcmp(&a, &b, sizeof(a)) == 0);
	/* Big values stay exact: strings, not doubles. */
	ATF_CHECK(strstr(s, "\"dev\":\"18446744073709551615\"") != NULL);
	ATF_CHECK(strstr(s, "\"ino\":\"9007199254740993\"") != NULL);
	ATF_CHECK(strstr(s, "\"first_run_start\":\"1796300000123456789\"") !=
	    NULL);
	free(s);
}

ATF_TC_WITHOUT_HEAD(meta_refused);
ATF_TC_BODY(meta_refused, tc)
{
	static const struct {
		const char	*from, *to, *why;
	} cases[] = {
		{ "\"id\":\"0123456789ab\"", "\"id\":\"0123456789AB\"",
		    "\"id\": not 12 lowercase hex" },
		{ "\"id\":\"0123456789ab\"", "\"id\":\"0123456789a\"",
		    "\"id\": not 12" },
		{ "\"uid\":1000", "\"uid\":-1", "\"uid\": not a whole" },
		{ "\"uid\":1000", "\"uid\":1.5", "\"uid\": not a whole" },
		{ "\"uid\":1000", "\"uid\":\"1000\"", "\"uid\": not a whole" },
		{ "\"dir\":\"/home", "\"dir\":\"home", "\"dir\": not an "
		    "absolute" },
		{ "\"dev\":\"18446744073709551615\"",
		    "\"dev\":\"18446744073709551616\"",
		    "\"dev\": not an unsigned" },
		{ "\"dev\":\"18446744073709551615\"", "\"dev\":\"01\"",
		    "\"dev\": not an unsigned" },
		{ "\"dev\":\"18446744073709551615\"", "\"dev\":18",
		    "\"dev\": not an unsigned" },
		{ "\"first_run_start\":\"1796300000123456789\"",
		    "\"first_run_start\":\" 1\"", "\"first_run_start\": not a "
		    "signed" },
		{ "\"first_run_start\":\"1796300000123456789\"",
		    "\"first_run_start\":\"-0\"", "\"first_run_start\": not "
		    "a signed" },
		{ "\"runs\":2", "\"runs\":0", "\"runs\": 0" },
		{ "\"entries\":3", "\"entries\":1000001", "\"entries\": not "
		    "a whole number in 0..1000000" },
		{ "\"runs\":2", "\"runs\":2,\"x\":1", "unknown key \"x\"" },
		{ "\"runs\":2,", "", "10 keys, not the 11" },
		{ "{", "[", "not a JSON object" },
	};
	struct cs_meta	 a, b;
	char		 err[256], text[2048], *s, *p;
	size_t		 i;

	meta_init(&a, "0123456789ab", 1000);
	s = csstore_meta_json(&a);
	for (i = 0; i < nitems(cases); i++) {
		ATF_REQUIRE_MSG((p = strstr(s, cases[i].from)) != NULL,
		    "case %zu: %s not in %s", i, cases[i].from, s);
		snprintf(text, sizeof(text), "%.*s%s%s", (int)(p - s), s,
		    cases[i].to, p + strlen(cases[i].from));
		ATF_CHECK_MSG(csstore_meta_parse(text, strlen(text), &b, err,
		    sizeof(err)) == -1, "case %zu accepted: %s", i, text);
		ATF_CHECK_MSG(strstr(err, cases[i].why) != NULL,
		    "case %zu: \"%s\" does not say \"%s\"", i, err,
		    cases[i].why);
	}
	/* A NUL byte, and too much. */
	memcpy(text, s, strlen(s));
	ATF_CHECK(csstore_meta_parse(text, strlen(s) + 1, &b, err,
	    sizeof(err)) == -1);
	free(s);
}

ATF_TC_WITHOUT_HEAD(ids);
ATF_TC_BODY(ids, tc)
{
	char	 a[CS_ID_LEN + 1], b[CS_ID_LEN + 1];

	csstore_new_id(a);
	csstore_new_id(b);
	ATF_CHECK(csstore_id_ok(a) && csstore_id_ok(b));
	ATF_CHECK(strcmp(a, b) != 0);
	ATF_CHECK(!csstore_id_ok("../../etc/pa"));
	ATF_CHECK(!csstore_id_ok("0123456789abc"));
	ATF_CHECK(!csstore_id_ok(""));
}

struct seen {
	char	 ids[8][CS_ID_LEN + 1];
	int	 n;
};

static int
collect(const struct cs_meta *m, void *arg)
{
	struct seen	*s = arg;

	strlcpy(s->ids[s->n++], m->id, sizeof(s->ids[0]));
	return 0;
}

ATF_TC_WITHOUT_HEAD(store);
ATF_TC_BODY(store, tc)
{
	struct cs_meta	 m, got;
	struct seen	 s;
	struct stat	 st;
	char		 err[256], path[256], cwd[200];
	int		 fd;

	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	/* The default: the user's state directory when not root-started. */
	setenv("XDG_STATE_HOME", "/x/state", 1);
	ATF_REQUIRE(csstore_path(NULL, 0, path, sizeof(path), err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(path, "/x/state/sbx/changes");
	ATF_REQUIRE(csstore_path(NULL, 1, path, sizeof(path), err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(path, "/var/lib/sbx/changes");
	ATF_REQUIRE(csstore_path("/srv/cs", 1, path, sizeof(path), err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(path, "/srv/cs");

	/* Made 0700 with its parents; one that others may enter refused. */
	snprintf(path, sizeof(path), "%s/state/sbx/changes", cwd);
	fd = csstore_open(path, err, sizeof(err));
	ATF_REQUIRE_MSG(fd != -1, "%s", err);
	ATF_REQUIRE(fstat(fd, &st) == 0);
	ATF_CHECK_EQ(st.st_mode & 07777, 0700);
	ATF_REQUIRE(mkdir("open", 0755) == 0);
	snprintf(path, sizeof(path), "%s/open", cwd);
	ATF_CHECK(csstore_open(path, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "that no one else may enter (mode 0700)") !=
	    NULL);

	meta_init(&m, "00000000000b", 1000);
	ATF_REQUIRE(csstore_put(fd, &m) == 0);
	meta_init(&m, "00000000000a", 1000);
	m.last_run = 100;
	ATF_REQUIRE(csstore_put(fd, &m) == 0);
	ATF_REQUIRE(close(openat(fd, "1000/00000000000a.cs", O_WRONLY |
	    O_CREAT, 0600)) == 0);
	meta_init(&m, "00000000000c", 1001);
	ATF_REQUIRE(csstore_put(fd, &m) == 0);
	/* Not metadata, or broken: skipped. */
	ATF_REQUIRE(close(openat(fd, "1000/junk.meta", O_WRONLY | O_CREAT,
	    0600)) == 0);
	ATF_REQUIRE(close(openat(fd, "1000/00000000000d.meta", O_WRONLY |
	    O_CREAT, 0600)) == 0);

	memset(&s, 0, sizeof(s));
	ATF_CHECK_EQ(csstore_list(fd, 1000, collect, &s), 2);
	ATF_CHECK_EQ(s.n, 2);
	ATF_CHECK_STREQ(s.ids[0], "00000000000a");
	ATF_CHECK_STREQ(s.ids[1], "00000000000b");
	memset(&s, 0, sizeof(s));
	ATF_CHECK_EQ(csstore_list(fd, 1002, collect, &s), 0);

	/* Replaced whole (an exchange): the new metadata is there. */
	meta_init(&m, "00000000000a", 1000);
	m.last_run = 200;
	ATF_REQUIRE(csstore_put(fd, &m) == 0);
	ATF_CHECK(csstore_get(fd, 1000, "00000000000a", &got) == 0 &&
	    got.last_run == 200);
	/* The old one waits at the temporary name, skipped by the list,
	 * until csstore_abandon (after the run's EXIT). */
	ATF_CHECK(faccessat(fd, "1000/00000000000a.meta.tmp", F_OK, 0) == 0);
	m.last_run = 100;
	ATF_REQUIRE(csstore_put(fd, &m) == 0);
	csstore_abandon(fd, 1000, "00000000000a");
	ATF_CHECK(faccessat(fd, "1000/00000000000a.meta.tmp", F_OK, 0) == -1 &&
	    errno == ENOENT);
	ATF_CHECK(csstore_get(fd, 1000, "00000000000a", &got) == 0 &&
	    got.last_run == 100);

	/* Another uid's id is an unknown id. */
	ATF_CHECK(csstore_get(fd, 1000, "00000000000a", &got) == 0);
	ATF_CHECK_EQ(got.last_run, 100);
	errno = 0;
	ATF_CHECK(csstore_get(fd, 1001, "00000000000a", &got) == -1 &&
	    errno == ENOENT);
	ATF_CHECK(csstore_discard(fd, 1001, "00000000000a") == -1 &&
	    errno == ENOENT);
	ATF_CHECK(csstore_get(fd, 1000, "../1001/0000", &got) == -1 &&
	    errno == ENOENT);

	/* Counted by name: the broken 00000000000d.meta takes a place
	 * under the cap, junk.meta does not. */
	ATF_CHECK_EQ(csstore_count(fd, 1000), 3);
	ATF_CHECK_EQ(csstore_count(fd, 1002), 0);

	/* Expiry: last run before now - max_age; one uid's leaves the
	 * others' alone. */
	ATF_CHECK_EQ(csstore_expire_uid(fd, 1001, 1000, 600), 0);
	ATF_CHECK(faccessat(fd, "1000/00000000000a.meta", F_OK, 0) == 0);
	ATF_CHECK_EQ(csstore_expire(fd, 1000, 600), 1);
	ATF_CHECK(faccessat(fd, "1000/00000000000a.cs", F_OK, 0) == -1);
	ATF_CHECK(faccessat(fd, "1000/00000000000a.meta", F_OK, 0) == -1);
	ATF_CHECK(csstore_get(fd, 1000, "00000000000b", &got) == 0);

	ATF_CHECK(csstore_discard(fd, 1000, "00000000000b") == 0);
	ATF_CHECK(csstore_get(fd, 1000, "00000000000b", &got) == -1 &&
	    errno == ENOENT);
	memset(&s, 0, sizeof(s));
	ATF_CHECK_EQ(csstore_list(fd, 1001, collect, &s), 1);
	close(fd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, meta_roundtrip);
	ATF_TP_ADD_TC(tp, meta_refused);
	ATF_TP_ADD_TC(tp, ids);
	ATF_TP_ADD_TC(tp, store);
	return atf_no_error();
}
