/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_sbxctl_csview: sbxctl's output for a changeset's entries and apply
 * (sbxctl/csview.c, issue 23) on streams written here: the text lines,
 * the --json objects, the exit statuses, and DIR refused when it is not
 * the changeset's directory.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <atf-c.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "changeset.h"
#include "libsbx/sbx.h"
#include "sbxctl/sbxctl.h"

/* A stream: a new file "a b", a deleted "gone", a symlink "l". */
static int
stream(void)
{
	struct sbx_cs_writer	*w;
	struct sbx_cs_rec	 rec;
	char			 err[256];
	int			 fd;

	ATF_REQUIRE((fd = memfd_create("cs", 0)) != -1);
	ATF_REQUIRE((w = sbx_cs_write_begin(fd, 3, err, sizeof(err))) !=
	    NULL);
	memset(&rec, 0, sizeof(rec));
	rec.kind = 'f';
	rec.mode = 0640;
	rec.size = 3;
	strlcpy(rec.path, "a b", sizeof(rec.path));
	ATF_REQUIRE(sbx_cs_write(w, &rec, -1, "hi\n") == 0);
	memset(&rec, 0, sizeof(rec));
	rec.kind = 'w';
	rec.base_kind = 'f';
	rec.base_mode = S_IFREG | 0644;
	strlcpy(rec.path, "gone", sizeof(rec.path));
	ATF_REQUIRE(sbx_cs_write(w, &rec, -1, NULL) == 0);
	memset(&rec, 0, sizeof(rec));
	rec.kind = 'l';
	rec.mode = 0777;
	rec.size = 3;
	strlcpy(rec.target, "a b", sizeof(rec.target));
	strlcpy(rec.path, "l", sizeof(rec.path));
	ATF_REQUIRE(sbx_cs_write(w, &rec, -1, NULL) == 0);
	ATF_REQUIRE(sbx_cs_write_end(w) == 0);
	sbx_cs_write_free(w);
	ATF_REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
	return fd;
}

/* Run f with stdout into "out"; its status. */
static int
captured(int (*f)(struct sbxctl *, int), struct sbxctl *ctx, int fd)
{
	int	 saved, o, rc;

	fflush(stdout);
	ATF_REQUIRE((saved = dup(1)) != -1);
	ATF_REQUIRE((o = open("out", O_WRONLY | O_CREAT | O_TRUNC, 0644)) !=
	    -1);
	ATF_REQUIRE(dup2(o, 1) == 1);
	rc = f(ctx, fd);
	fflush(stdout);
	ATF_REQUIRE(dup2(saved, 1) == 1);
	close(o);
	close(saved);
	return rc;
}

ATF_TC_WITHOUT_HEAD(entries);
ATF_TC_BODY(entries, tc)
{
	struct sbxctl	 ctx;
	int		 fd;

	memset(&ctx, 0, sizeof(ctx));
	fd = stream();
	ATF_CHECK_EQ(captured(cs_entries_out, &ctx, fd), SBXCTL_EXIT_OK);
	ATF_CHECK(atf_utils_compare_file("out", "A a b\nD gone\nA l\n"));
	close(fd);
	fd = stream();
	ctx.json = 1;
	ATF_CHECK_EQ(captured(cs_entries_out, &ctx, fd), SBXCTL_EXIT_OK);
	ATF_CHECK(atf_utils_compare_file("out", "{\"changes\":["
	    "{\"op\":\"A\",\"kind\":\"file\",\"was\":\"none\",\"mode\":"
	    "\"0640\",\"size\":3,\"path\":\"a b\"},"
	    "{\"op\":\"D\",\"kind\":\"deleted\",\"was\":\"file\",\"path\":"
	    "\"gone\"},"
	    "{\"op\":\"A\",\"kind\":\"symlink\",\"was\":\"none\",\"mode\":"
	    "\"0777\",\"path\":\"l\",\"target\":\"a b\"}]}\n"));
	close(fd);
}

static int	 dirfd_g;

static int
apply_all(struct sbxctl *ctx, int fd)
{
	struct sbx_changes_dir	 dir;
	struct stat		 st;
	int			 rc;

	ATF_REQUIRE(fstat(dirfd_g, &st) == 0);
	rc = cs_dir_open(ctx, "d", st.st_dev, st.st_ino, 0, &dir);
	if (rc != SBXCTL_EXIT_OK)
		return rc;
	rc = cs_apply_run(ctx, fd, &dir, NULL, 0);
	close(dir.fd);
	return rc;
}

ATF_TC_WITHOUT_HEAD(apply);
ATF_TC_BODY(apply, tc)
{
	struct sbxctl		 ctx;
	struct sbx_changes_dir	 dir;
	struct stat		 st;
	int			 fd;

	memset(&ctx, 0, sizeof(ctx));
	ATF_REQUIRE(mkdir("d", 0755) == 0);
	ATF_REQUIRE((dirfd_g = open("d", O_RDONLY | O_DIRECTORY)) != -1);
	/* "gone" is not in DIR: deleted already, not a conflict. */
	fd = stream();
	ATF_CHECK_EQ(captured(apply_all, &ctx, fd), SBXCTL_EXIT_OK);
	ATF_CHECK(atf_utils_compare_file("out", ""));
	ATF_CHECK(atf_utils_compare_file("d/a b", "hi\n"));
	ATF_REQUIRE(lstat("d/a b", &st) == 0);
	ATF_CHECK((st.st_mode & 07777) == 0640);
	close(fd);
	/* The host changed "a b" and made "l": conflicts, exit 4. */
	ATF_REQUIRE(unlink("d/a b") == 0);
	atf_utils_create_file("d/a b", "host\n");
	ATF_REQUIRE(unlink("d/l") == 0);
	atf_utils_create_file("d/l", "x");
	fd = stream();
	ctx.json = 1;
	ATF_CHECK_EQ(captured(apply_all, &ctx, fd), SBXCTL_EXIT_CONFLICT);
	ATF_CHECK(atf_utils_compare_file("out", "{\"conflicts\":["
	    "{\"reason\":\"created in DIR since\",\"path\":\"a b\"},"
	    "{\"reason\":\"created in DIR since\",\"path\":\"l\"}],"
	    "\"applied\":false}\n"));
	close(fd);
	/* Another directory at DIR's path is refused. */
	ATF_REQUIRE(rename("d", "d.old") == 0);
	ATF_REQUIRE(mkdir("d", 0755) == 0);
	ctx.json = 0;
	ATF_REQUIRE(fstat(dirfd_g, &st) == 0);
	ATF_CHECK_EQ(cs_dir_open(&ctx, "d", st.st_dev, st.st_ino, 0, &dir),
	    SBXCTL_EXIT_ERROR);
	ATF_CHECK_EQ(dir.fd, -1);
	close(dirfd_g);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, entries);
	ATF_TP_ADD_TC(tp, apply);
	return 0;
}
