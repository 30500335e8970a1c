/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_common_fdpass: one message and its descriptors each way
 * (common/fdpass.c), as the launcher's parts, pid 1's proxy listeners
 * and a warm sandbox's arm record use it: what arrives is what was sent,
 * close-on-exec; a message or descriptors beyond what the receiver takes
 * is refused with nothing left open; end of file, EAGAIN and a gone peer
 * are told apart, the last without SIGPIPE.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fdpass.h"

/* Descriptors open in this process. */
static int
open_fds(void)
{
	DIR		*d;
	struct dirent	*e;
	int		 n = 0;

	ATF_REQUIRE((d = opendir("/proc/self/fd")) != NULL);
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;		/* the directory's own */
}

static void
pair(int sv[2])
{
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv) == 0);
}

static int
same_file(int a, int b)
{
	struct stat	 sa, sb;

	ATF_REQUIRE(fstat(a, &sa) == 0);
	ATF_REQUIRE(fstat(b, &sb) == 0);
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

ATF_TC_WITHOUT_HEAD(round_trip);
ATF_TC_BODY(round_trip, tc)
{
	int	 sv[2], p[2], send[3], got[3];
	char	 buf[16];
	size_t	 n, i;

	pair(sv);
	ATF_REQUIRE(pipe(p) == 0);
	send[0] = p[0];
	send[1] = p[1];
	ATF_REQUIRE((send[2] = open("/dev/null", O_RDONLY)) != -1);
	ATF_REQUIRE(fdpass_send(sv[0], "abc", 3, send, 3, 0) == 0);
	ATF_REQUIRE_EQ(fdpass_recv(sv[1], buf, sizeof(buf), got, 3, &n, 0),
	    3);
	ATF_CHECK(memcmp(buf, "abc", 3) == 0);
	ATF_REQUIRE_EQ(n, 3);
	for (i = 0; i < 3; i++) {
		ATF_CHECK(got[i] != send[i]);
		ATF_CHECK(same_file(got[i], send[i]));
		ATF_CHECK_MSG((fcntl(got[i], F_GETFD) & FD_CLOEXEC) != 0,
		    "descriptor %zu arrived without close-on-exec", i);
		close(got[i]);
		close(send[i]);
	}
	close(sv[0]);
	close(sv[1]);
}

ATF_TC_WITHOUT_HEAD(no_descriptors);
ATF_TC_BODY(no_descriptors, tc)
{
	int	 sv[2], got[2];
	char	 buf[8];
	size_t	 n = 99;

	pair(sv);
	ATF_REQUIRE(fdpass_send(sv[0], "x", 1, NULL, 0, 0) == 0);
	ATF_CHECK_EQ(fdpass_recv(sv[1], buf, sizeof(buf), got, 2, &n, 0), 1);
	ATF_CHECK_EQ(n, 0);
	close(sv[0]);
	close(sv[1]);
}

ATF_TC_WITHOUT_HEAD(most_descriptors);
ATF_TC_BODY(most_descriptors, tc)
{
	int	 sv[2], send[FDPASS_MAX + 1], got[FDPASS_MAX];
	char	 b;
	size_t	 n, i;

	pair(sv);
	for (i = 0; i < FDPASS_MAX + 1; i++)
		ATF_REQUIRE((send[i] = open("/dev/null", O_RDONLY)) != -1);
	errno = 0;
	ATF_CHECK(fdpass_send(sv[0], "m", 1, send, FDPASS_MAX + 1, 0) == -1);
	ATF_CHECK_EQ(errno, E2BIG);
	ATF_REQUIRE(fdpass_send(sv[0], "m", 1, send, FDPASS_MAX, 0) == 0);
	ATF_REQUIRE_EQ(fdpass_recv(sv[1], &b, 1, got, FDPASS_MAX, &n, 0), 1);
	ATF_CHECK_EQ(n, FDPASS_MAX);
	for (i = 0; i < n; i++)
		close(got[i]);
	for (i = 0; i < FDPASS_MAX + 1; i++)
		close(send[i]);
	close(sv[0]);
	close(sv[1]);
}

/* More descriptors than the receiver takes: refused, none left open. */
ATF_TC_WITHOUT_HEAD(too_many_for_receiver);
ATF_TC_BODY(too_many_for_receiver, tc)
{
	int	 sv[2], send[4], got[2], before, i;
	char	 b;
	size_t	 n = 99;

	pair(sv);
	for (i = 0; i < 4; i++)
		ATF_REQUIRE((send[i] = open("/dev/null", O_RDONLY)) != -1);
	ATF_REQUIRE(fdpass_send(sv[0], "t", 1, send, 4, 0) == 0);
	before = open_fds();
	errno = 0;
	ATF_CHECK(fdpass_recv(sv[1], &b, 1, got, 2, &n, 0) == -1);
	ATF_CHECK_EQ(errno, EMSGSIZE);
	ATF_CHECK_EQ(n, 0);
	ATF_CHECK_EQ_MSG(open_fds(), before, "%d descriptors left open",
	    open_fds() - before);
	for (i = 0; i < 4; i++)
		close(send[i]);
	close(sv[0]);
	close(sv[1]);
}

/* A record longer than the buffer: refused with its descriptors. */
ATF_TC_WITHOUT_HEAD(record_too_long);
ATF_TC_BODY(record_too_long, tc)
{
	char	 big[100], small[10];
	int	 sv[2], fd, got[1], before;
	size_t	 n = 99;

	memset(big, 'b', sizeof(big));
	pair(sv);
	ATF_REQUIRE((fd = open("/dev/null", O_RDONLY)) != -1);
	ATF_REQUIRE(fdpass_send(sv[0], big, sizeof(big), &fd, 1, 0) == 0);
	before = open_fds();
	errno = 0;
	ATF_CHECK(fdpass_recv(sv[1], small, sizeof(small), got, 1, &n,
	    0) == -1);
	ATF_CHECK_EQ(errno, EMSGSIZE);
	ATF_CHECK_EQ(n, 0);
	ATF_CHECK_EQ(open_fds(), before);
	close(fd);
	close(sv[0]);
	close(sv[1]);
}

ATF_TC_WITHOUT_HEAD(eof_eagain_gone);
ATF_TC_BODY(eof_eagain_gone, tc)
{
	int	 sv[2], got[1];
	char	 b;
	size_t	 n;

	pair(sv);
	/* Nothing there yet, and the caller will not wait. */
	errno = 0;
	ATF_CHECK(fdpass_recv(sv[1], &b, 1, got, 1, &n, MSG_DONTWAIT) == -1);
	ATF_CHECK(errno == EAGAIN || errno == EWOULDBLOCK);
	/* The peer went: end of file. */
	close(sv[0]);
	ATF_CHECK_EQ(fdpass_recv(sv[1], &b, 1, got, 1, &n, 0), 0);
	ATF_CHECK_EQ(n, 0);
	close(sv[1]);
	/* Sending to a gone peer is EPIPE, not SIGPIPE (we are alive). */
	pair(sv);
	close(sv[1]);
	errno = 0;
	ATF_CHECK(fdpass_send(sv[0], "g", 1, NULL, 0, 0) == -1);
	ATF_CHECK_EQ(errno, EPIPE);
	close(sv[0]);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, round_trip);
	ATF_TP_ADD_TC(tp, no_descriptors);
	ATF_TP_ADD_TC(tp, most_descriptors);
	ATF_TP_ADD_TC(tp, too_many_for_receiver);
	ATF_TP_ADD_TC(tp, record_too_long);
	ATF_TP_ADD_TC(tp, eof_eagain_gone);
	return atf_no_error();
}
