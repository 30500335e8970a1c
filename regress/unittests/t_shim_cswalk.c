/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_shim_cswalk: an overlay's upper layer as a changeset stream
 * (shim/cswalk.c, issue 23), on an upper and a lower directory laid out
 * here as overlayfs lays them out: new, modified, mode-changed and
 * copied-up-but-equal files, whiteouts, an opaque directory made again,
 * a type change, symlinks; then the stream read back with the parser.
 */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "changeset.h"
#include "spec.h"
#include "shim/shim.h"

static void
put(int dir, const char *name, const char *text, mode_t mode)
{
	int	 fd;

	ATF_REQUIRE_MSG((fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC,
	    mode)) != -1, "%s: %s", name, strerror(errno));
	ATF_REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	ATF_REQUIRE(fchmod(fd, mode) == 0);
	close(fd);
}

static int
opendir_fd(const char *path)
{
	int	 fd;

	ATF_REQUIRE((fd = open(path, O_RDONLY | O_DIRECTORY)) != -1);
	return fd;
}

/* The stream's records as "OP kind path" lines. */
static char *
listing(int fd)
{
	struct sbx_cs_reader	*r;
	struct sbx_cs_rec	 rec;
	char			 err[256], *buf = NULL;
	size_t			 len = 0;
	FILE			*fp;
	int			 n;

	ATF_REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
	ATF_REQUIRE_MSG((r = sbx_cs_open(fd, err, sizeof(err))) != NULL,
	    "%s", err);
	ATF_REQUIRE((fp = open_memstream(&buf, &len)) != NULL);
	while ((n = sbx_cs_next(r, &rec)) == 1) {
		fprintf(fp, "%c %c %s", sbx_cs_op(&rec), rec.kind, rec.path);
		if (rec.kind == SBX_CS_SYMLINK)
			fprintf(fp, " -> %s", rec.target);
		else if (rec.kind != SBX_CS_WHITEOUT)
			fprintf(fp, " %04o", (unsigned)rec.mode);
		fputc('\n', fp);
	}
	ATF_REQUIRE_MSG(n == 0, "%s", sbx_cs_error(r));
	sbx_cs_close(r);
	fclose(fp);
	return buf;
}

ATF_TC_WITHOUT_HEAD(upper_to_stream);
ATF_TC_BODY(upper_to_stream, tc)
{
	char		 err[256], *got;
	int		 lo, up, out;
	long long	 n;

	ATF_REQUIRE(mkdir("lower", 0755) == 0 && mkdir("upper", 0755) == 0);
	lo = opendir_fd("lower");
	up = opendir_fd("upper");
	/* DIR as the caller had it. */
	put(lo, "same", "same\n", 0644);
	put(lo, "mod", "old\n", 0644);
	put(lo, "chm", "x\n", 0644);
	put(lo, "copied", "equal\n", 0644);
	put(lo, "del", "gone\n", 0644);
	put(lo, "a-b", "dash\n", 0644);
	put(lo, "f2d", "file\n", 0644);
	ATF_REQUIRE(symlinkat("same", lo, "link") == 0);
	ATF_REQUIRE(mkdirat(lo, "a", 0755) == 0);
	put(lo, "a/keep", "k\n", 0644);
	ATF_REQUIRE(mkdirat(lo, "re", 0755) == 0);
	ATF_REQUIRE(mkdirat(lo, "re/sub", 0755) == 0);
	put(lo, "re/sub/old", "o\n", 0644);
	put(lo, "re/top", "t\n", 0644);
	ATF_REQUIRE(mkdirat(lo, "rmdir", 0755) == 0);
	put(lo, "rmdir/x", "x\n", 0644);

	/* What overlayfs left in the upper layer. */
	put(up, "new", "new\n", 0600);
	put(up, "mod", "new content\n", 0644);
	put(up, "chm", "x\n", 0755);
	put(up, "copied", "equal\n", 0644);
	if (mknodat(up, "del", S_IFCHR | 0, makedev(0, 0)) == -1)
		atf_tc_skip("mknodat whiteout: %s", strerror(errno));
	ATF_REQUIRE(mknodat(up, "rmdir", S_IFCHR | 0, makedev(0, 0)) == 0);
	ATF_REQUIRE(mkdirat(up, "a", 0755) == 0);	/* a parent only */
	put(up, "a/b", "below a\n", 0644);
	ATF_REQUIRE(mkdirat(up, "f2d", 0700) == 0);
	ATF_REQUIRE(symlinkat("../elsewhere", up, "link") == 0);
	ATF_REQUIRE(symlinkat("same", up, "samelink") == 0);
	/* re removed and made again, with sub again below it. */
	ATF_REQUIRE(mkdirat(up, "re", 0755) == 0);
	if (setxattr("upper/re", "user.overlay.opaque", "y", 1, 0) == -1)
		atf_tc_skip("user xattrs here: %s", strerror(errno));
	ATF_REQUIRE(mkdirat(up, "re/sub", 0755) == 0);
	put(up, "re/sub/new", "n\n", 0644);

	ATF_REQUIRE((out = memfd_create("cs", 0)) != -1);
	n = shim_cs_walk(up, lo, out, err, sizeof(err));
	ATF_REQUIRE_MSG(n >= 0, "walk: %s", err);
	got = listing(out);
	ATF_CHECK_STREQ(got,
	    "A f a/b 0644\n"
	    "M f chm 0755\n"
	    "D w del\n"
	    "M d f2d 0700\n"
	    "M l link -> ../elsewhere\n"
	    "M f mod 0644\n"
	    "A f new 0600\n"
	    "M d re 0755\n"
	    "M d re/sub 0755\n"
	    "A f re/sub/new 0644\n"
	    "D w re/sub/old\n"
	    "D w re/top\n"
	    "D w rmdir\n"
	    "A l samelink -> same\n");
	ATF_CHECK_EQ(n, 14);

	/* --overlay-into: the stream rebuilt into a fresh upper layer
	 * walks to the same changes, except that a directory made again
	 * comes back as the directory with whiteouts, which overlayfs
	 * shows the same (re and re/sub are no records then). */
	{
		char	*again;
		int	 up3, out2;

		ATF_REQUIRE(mkdir("up3", 0755) == 0);
		up3 = opendir_fd("up3");
		ATF_REQUIRE(lseek(out, 0, SEEK_SET) == 0);
		ATF_REQUIRE_MSG(shim_cs_rebuild(up3, lo, out, err,
		    sizeof(err)) == 0, "rebuild: %s", err);
		ATF_REQUIRE((out2 = memfd_create("cs", 0)) != -1);
		ATF_REQUIRE_MSG(shim_cs_walk(up3, lo, out2, err,
		    sizeof(err)) >= 0, "walk again: %s", err);
		again = listing(out2);
		ATF_CHECK_STREQ(again,
		    "A f a/b 0644\n"
		    "M f chm 0755\n"
		    "D w del\n"
		    "M d f2d 0700\n"
		    "M l link -> ../elsewhere\n"
		    "M f mod 0644\n"
		    "A f new 0600\n"
		    "A f re/sub/new 0644\n"
		    "D w re/sub/old\n"
		    "D w re/top\n"
		    "D w rmdir\n"
		    "A l samelink -> same\n");
		free(again);
		close(out2);
		close(up3);
	}
	free(got);
	close(out);

	/* Nothing changed: no records, nothing written. */
	ATF_REQUIRE(mkdir("up2", 0755) == 0);
	close(up);
	up = opendir_fd("up2");
	ATF_REQUIRE((out = memfd_create("cs", 0)) != -1);
	ATF_CHECK_EQ(shim_cs_walk(up, lo, out, err, sizeof(err)), 0);
	ATF_CHECK_EQ(lseek(out, 0, SEEK_END), 0);
	close(out);
	close(up);
	close(lo);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, upper_to_stream);
	return atf_no_error();
}
