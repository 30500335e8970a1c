/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_common_fdcheck: what a passed descriptor must be (common/fdcheck.c)
 * and the hook through which imsg drops received descriptors
 * (imsgbuf_set_rdrop), issue 20.  The FUSE refusal itself needs a FUSE
 * daemon: regress/tenants.sh:fd_fuse.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "fdcheck.h"

ATF_TC_WITHOUT_HEAD(check_kernel_objects);
ATF_TC_BODY(check_kernel_objects, tc)
{
	char	 err[256];
	int	 p[2], s[2], fd;

	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0);
	ATF_CHECK(passed_fd_check(p[0], err, sizeof(err)) == 0);
	ATF_CHECK(passed_fd_check(s[0], err, sizeof(err)) == 0);
	/* A file and a directory of a mount in our own namespace. */
	ATF_REQUIRE((fd = open(".", O_RDONLY | O_DIRECTORY)) != -1);
	ATF_CHECK_MSG(passed_fd_check(fd, err, sizeof(err)) == 0, "%s", err);
	close(fd);
	ATF_REQUIRE((fd = open("/proc/self/status", O_RDONLY)) != -1);
	ATF_CHECK_MSG(passed_fd_check(fd, err, sizeof(err)) == 0, "%s", err);
	close(fd);
	/* Not a descriptor at all. */
	ATF_CHECK(passed_fd_check(999, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "/proc/self/fd/999") != NULL);
	close(p[0]);
	close(p[1]);
	close(s[0]);
	close(s[1]);
}

ATF_TC_WITHOUT_HEAD(mode_opath_refused);
ATF_TC_BODY(mode_opath_refused, tc)
{
	char	 err[256];
	int	 fd;

	ATF_REQUIRE((fd = open(".", O_PATH | O_DIRECTORY)) != -1);
	/* What the check rests on: F_GETFL shows O_PATH, access O_RDONLY. */
	ATF_CHECK((fcntl(fd, F_GETFL) & O_PATH) != 0);
	ATF_CHECK((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY);
	ATF_CHECK(passed_fd_mode(fd, PASSED_FD_READ | PASSED_FD_DIR,
	    "bundle directory", err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "the bundle directory descriptor was opened "
	    "with O_PATH, which checks no permission");
	/* O_PATH is refused even where nothing is read. */
	ATF_CHECK(passed_fd_mode(fd, 0, "result", err, sizeof(err)) == -1);
	close(fd);
}

ATF_TC_WITHOUT_HEAD(mode_read_and_dir);
ATF_TC_BODY(mode_read_and_dir, tc)
{
	char	 err[256];
	int	 fd, p[2];

	ATF_REQUIRE((fd = open(".", O_RDONLY | O_DIRECTORY)) != -1);
	ATF_CHECK(passed_fd_mode(fd, PASSED_FD_READ | PASSED_FD_DIR,
	    "bundle directory", err, sizeof(err)) == 0);
	close(fd);
	ATF_REQUIRE((fd = open("f", O_WRONLY | O_CREAT, 0644)) != -1);
	ATF_CHECK(passed_fd_mode(fd, PASSED_FD_READ, "records", err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "the records descriptor is not open for reading");
	ATF_CHECK(passed_fd_mode(fd, 0, "output", err, sizeof(err)) == 0);
	close(fd);
	ATF_REQUIRE((fd = open("f", O_RDONLY)) != -1);
	ATF_CHECK(passed_fd_mode(fd, PASSED_FD_READ | PASSED_FD_DIR,
	    "bundle directory", err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "the bundle directory descriptor is not a "
	    "directory");
	close(fd);
	ATF_REQUIRE(pipe(p) == 0);
	ATF_CHECK(passed_fd_mode(p[0], PASSED_FD_READ, "document", err,
	    sizeof(err)) == 0);
	close(p[0]);
	close(p[1]);
}

static int	 dropped[4];
static int	 ndropped;

static void
drop(int fd, void *arg)
{
	ATF_REQUIRE(arg == (void *)&ndropped);
	if (ndropped < 4)
		dropped[ndropped++] = fd;
}

/*
 * Two descriptors in one sendmsg: imsg refuses the message; both go to
 * the hook, not to close(2), which on a FUSE file
 * would wait for its daemon.
 */
ATF_TC_WITHOUT_HEAD(rdrop_gets_refused_fds);
ATF_TC_BODY(rdrop_gets_refused_fds, tc)
{
	union {
		struct cmsghdr	 hdr;
		char		 buf[CMSG_SPACE(2 * sizeof(int))];
	} cbuf;
	struct imsgbuf	 ib;
	struct msghdr	 msg;
	struct cmsghdr	*cm;
	struct iovec	 iov;
	uint32_t	 hdr[4] = { 2, 16 | IMSG_FD_MARK, 1, 0 };
	int		 sv[2], fds[2], p[2], i;

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	ATF_REQUIRE(pipe(p) == 0);
	fds[0] = p[0];
	fds[1] = p[1];
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = hdr;
	iov.iov_len = sizeof(hdr);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf.buf;
	msg.msg_controllen = sizeof(cbuf.buf);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	ATF_REQUIRE(sendmsg(sv[0], &msg, 0) == (ssize_t)sizeof(hdr));

	ATF_REQUIRE(imsgbuf_init(&ib, sv[1]) == 0);
	imsgbuf_allow_fdpass(&ib);
	imsgbuf_set_rdrop(&ib, drop, &ndropped);
	/* imsg's control buffer (CMSG_SPACE of one int, padded to eight
	 * bytes) takes both; a third would be cut by the kernel, which
	 * drops it without a flush. */
	ATF_CHECK(imsgbuf_read(&ib) == -1);
	ATF_CHECK_EQ(errno, EBADMSG);
	ATF_CHECK_EQ_MSG(ndropped, 2, "%d dropped", ndropped);
	for (i = 0; i < ndropped; i++) {
		/* Still open: the hook owns it now. */
		ATF_CHECK(fcntl(dropped[i], F_GETFD) != -1);
		close(dropped[i]);
	}
	imsgbuf_clear(&ib);
	close(sv[0]);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, check_kernel_objects);
	ATF_TP_ADD_TC(tp, mode_opath_refused);
	ATF_TP_ADD_TC(tp, mode_read_and_dir);
	ATF_TP_ADD_TC(tp, rdrop_gets_refused_fds);
	return atf_no_error();
}
