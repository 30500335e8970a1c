/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * probe: run inside a sandbox by the tests; tries one thing and prints
 * what happened as "key value" lines ("ok" or an errno name), so the test
 * decides what is allowed.  It never decides itself: a probe that judged
 * its own results could not be caught lying by the test.
 *
 *	probe paths P...		open each for reading
 *	probe write P...		create/truncate each and write a byte
 *	probe read P			print P's first line
 *	probe stat P			print P's device and inode
 *	probe environ			/proc/1/environ size, own environment
 *	probe net TCPPORT UDPPORT NAME	reach 127.0.0.1 and an abstract socket
 *	probe ns NAME=INODE...		compare own namespaces with the host's
 *	probe status			credentials, caps, seccomp, hostname
 *	probe privileged		mount, umount, unshare, chroot, setuid
 *	probe fill PATH BYTES		write until BYTES or an error
 *	probe exec PATH			copy self to PATH and try to run it
 *	probe fork N			fork until N or an error
 *	probe fds | dev | cwd		list descriptors, /dev, print cwd
 *	probe cat | stdin		copy stdin to stdout | count stdin
 *	probe spew OUT ERR		OUT bytes to stdout, ERR to stderr
 *	probe exit N | signal N		end that way
 *	probe sleep			print "ready", then wait forever
 *	probe escape ATTEMPT...		try each way out (see do_escape)
 *	probe listen NAME		host listeners for the net attempts
 *	probe connect ADDR PORT		TCP to ADDR (127.0.0.1, ::1), send
 *					"ping\n", print the reply's first line
 *	probe loopback			a TCP listener and a UDP socket of its
 *					own on 127.0.0.1 and ::1, each reached
 *					from a second socket: one line each
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/rtnetlink.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * In the sanitizer build (make sanitize) this program carries ASan, whose
 * leak checker ptrace()s the process at exit.  Inside a sandbox the
 * payload filter refuses ptrace, as it must, so leak checking is off here;
 * the code it would check is exercised leak-checked outside sandboxes.
 */
#if defined(__SANITIZE_ADDRESS__)
const char	*__asan_default_options(void);

const char *
__asan_default_options(void)
{
	return "detect_leaks=0";
}
#endif

#ifndef nitems
#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#endif

static const char *
ename(int e)
{
	const char	*n = strerrorname_np(e);

	return n != NULL ? n : "EUNKNOWN";
}

static const char *
res(int r)
{
	return r == -1 ? ename(errno) : "ok";
}

static int
num(const char *s)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 0 || v > 0x7fffffffL) {
		fprintf(stderr, "probe: bad number \"%s\"\n", s);
		exit(2);
	}
	return (int)v;
}

static int
writeall(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void
do_paths(int argc, char **argv)
{
	int	 i, fd;

	for (i = 0; i < argc; i++) {
		fd = open(argv[i], O_RDONLY | O_CLOEXEC);
		printf("path %s %s\n", argv[i], res(fd));
		if (fd != -1)
			close(fd);
	}
}

static void
do_write(int argc, char **argv)
{
	int	 i, fd, r;

	for (i = 0; i < argc; i++) {
		fd = open(argv[i], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0644);
		r = fd == -1 ? -1 : (int)write(fd, "x", 1);
		printf("write %s %s\n", argv[i], r == -1 ? ename(errno) :
		    "ok");
		if (fd != -1)
			close(fd);
	}
}

static void
do_read(const char *path)
{
	char	 buf[512];
	FILE	*f;

	if ((f = fopen(path, "re")) == NULL) {
		printf("read %s %s\n", path, ename(errno));
		return;
	}
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	printf("read %s %s\n", path, buf);
	fclose(f);
}

static void
do_stat(const char *path)
{
	struct stat	 st;

	if (stat(path, &st) == -1)
		printf("stat %s %s\n", path, ename(errno));
	else
		printf("stat %s %llu:%llu\n", path,
		    (unsigned long long)st.st_dev,
		    (unsigned long long)st.st_ino);
}

static void
do_environ(void)
{
	char	 buf[8192];
	ssize_t	 n, i, start;
	int	 fd;

	if ((fd = open("/proc/1/environ", O_RDONLY | O_CLOEXEC)) == -1) {
		printf("proc1_environ %s\n", ename(errno));
	} else {
		n = read(fd, buf, sizeof(buf));
		if (n == -1)
			printf("proc1_environ %s\n", ename(errno));
		else
			printf("proc1_environ %zd\n", n);
		close(fd);
	}
	if ((fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC)) == -1) {
		printf("self_environ %s\n", ename(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	for (i = 0, start = 0; i < n; i++) {
		if (buf[i] != '\0')
			continue;
		printf("env %s\n", buf + start);
		start = i + 1;
	}
	printf("env_end\n");
}

static void
do_connect(const char *addr, const char *port)
{
	struct sockaddr_in	 sin;
	struct sockaddr_in6	 sin6;
	struct timeval		 tv = { 5, 0 };
	char			 buf[64];
	ssize_t			 n;
	int			 s, r, af;

	af = strchr(addr, ':') != NULL ? AF_INET6 : AF_INET;
	if ((s = socket(af, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		printf("connect %s %s %s\n", addr, port, ename(errno));
		return;
	}
	(void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (af == AF_INET) {
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons((uint16_t)num(port));
		r = inet_pton(AF_INET, addr, &sin.sin_addr) == 1 ?
		    connect(s, (struct sockaddr *)&sin, sizeof(sin)) : -1;
	} else {
		memset(&sin6, 0, sizeof(sin6));
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = htons((uint16_t)num(port));
		r = inet_pton(AF_INET6, addr, &sin6.sin6_addr) == 1 ?
		    connect(s, (struct sockaddr *)&sin6, sizeof(sin6)) : -1;
	}
	if (r == -1 || write(s, "ping\n", 5) != 5) {
		printf("connect %s %s %s\n", addr, port, ename(errno));
		close(s);
		return;
	}
	if ((n = read(s, buf, sizeof(buf) - 1)) <= 0) {
		printf("connect %s %s %s\n", addr, port,
		    n == 0 ? "EOF" : ename(errno));
		close(s);
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	printf("connect %s %s ok %s\n", addr, port, buf);
	close(s);
}

/* One address family's TCP and UDP round trip on its own loopback. */
static void
loop_one(int af)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;
	struct timeval		 tv = { 5, 0 };
	socklen_t		 len;
	const char		*name = af == AF_INET ? "127.0.0.1" : "::1";
	const char		*step;
	char			 c;
	int			 l = -1, s = -1, a = -1, type, r;

	for (type = SOCK_STREAM; ; type = SOCK_DGRAM) {
		memset(&ss, 0, sizeof(ss));
		if (af == AF_INET) {
			sin->sin_family = AF_INET;
			sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			len = sizeof(*sin);
		} else {
			sin6->sin6_family = AF_INET6;
			sin6->sin6_addr = in6addr_loopback;
			len = sizeof(*sin6);
		}
		step = "socket";
		r = -1;
		if ((l = socket(af, type | SOCK_CLOEXEC, 0)) == -1 ||
		    (s = socket(af, type | SOCK_CLOEXEC, 0)) == -1)
			goto out;
		(void)setsockopt(l, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		(void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		step = "bind";
		if (bind(l, (struct sockaddr *)&ss, len) == -1 ||
		    getsockname(l, (struct sockaddr *)&ss, &len) == -1)
			goto out;
		step = "listen";
		if (type == SOCK_STREAM && listen(l, 1) == -1)
			goto out;
		step = "connect";
		if (connect(s, (struct sockaddr *)&ss, len) == -1)
			goto out;
		step = "send";
		if (send(s, "x", 1, 0) != 1)
			goto out;
		step = "receive";
		if (type == SOCK_STREAM) {
			if ((a = accept(l, NULL, NULL)) == -1 ||
			    recv(a, &c, 1, 0) != 1)
				goto out;
		} else if (recv(l, &c, 1, 0) != 1)
			goto out;
		r = 0;
 out:
		printf("loopback %s %s %s%s%s\n",
		    type == SOCK_STREAM ? "tcp" : "udp", name,
		    r == 0 ? "ok" : ename(errno), r == 0 ? "" : " step=",
		    r == 0 ? "" : step);
		if (a != -1)
			close(a);
		if (s != -1)
			close(s);
		if (l != -1)
			close(l);
		a = s = l = -1;
		if (type == SOCK_DGRAM)
			break;
	}
}

static void
do_loopback(void)
{
	loop_one(AF_INET);
	loop_one(AF_INET6);
}

static void
do_net(const char *tcpport, const char *udpport, const char *name)
{
	struct sockaddr_in	 sin;
	struct sockaddr_un	 sun;
	struct timeval		 tv = { 2, 0 };
	struct ifreq		 ifr;
	socklen_t		 len;
	char			 c;
	int			 s, r;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

	sin.sin_port = htons((uint16_t)num(tcpport));
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = s == -1 ? -1 : connect(s, (struct sockaddr *)&sin, sizeof(sin));
	printf("tcp %s\n", res(r));
	if (s != -1)
		close(s);

	sin.sin_port = htons((uint16_t)num(udpport));
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	r = s == -1 ? -1 : connect(s, (struct sockaddr *)&sin, sizeof(sin));
	if (r == 0)
		r = (int)send(s, "probe", 5, 0);
	printf("udp_send %s\n", r == -1 ? ename(errno) : "ok");
	if (r != -1) {
		(void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		r = (int)recv(s, &c, 1, 0);
		printf("udp_reply %s\n", r == -1 ? ename(errno) : "ok");
	}
	if (s != -1)
		close(s);

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strncpy(sun.sun_path + 1, name, sizeof(sun.sun_path) - 2);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(name));
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = s == -1 ? -1 : connect(s, (struct sockaddr *)&sun, len);
	printf("unix %s\n", res(r));
	if (s != -1)
		close(s);

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, "lo", sizeof(ifr.ifr_name) - 1);
	if (s == -1 || ioctl(s, SIOCGIFFLAGS, &ifr) == -1)
		printf("lo %s\n", ename(errno));
	else
		printf("lo %s\n", (ifr.ifr_flags & IFF_UP) ? "up" : "down");
	if (s != -1)
		close(s);
}

static void
do_ns(int argc, char **argv)
{
	struct stat	 st;
	char		 path[64], *eq;
	int		 i;

	for (i = 0; i < argc; i++) {
		if ((eq = strchr(argv[i], '=')) == NULL)
			continue;
		*eq = '\0';
		snprintf(path, sizeof(path), "/proc/self/ns/%s", argv[i]);
		if (stat(path, &st) == -1)
			printf("ns %s %s\n", argv[i], ename(errno));
		else
			printf("ns %s %s\n", argv[i],
			    strtoull(eq + 1, NULL, 10) ==
			    (unsigned long long)st.st_ino ? "same" : "differs");
	}
}

static void
do_status(void)
{
	static const char *const keys[] = {
		"Uid:", "Gid:", "Groups:", "NoNewPrivs:", "Seccomp:",
		"CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:",
	};
	char	 line[512], host[256];
	size_t	 i;
	FILE	*f;

	if ((f = fopen("/proc/self/status", "re")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
				if (strncmp(line, keys[i],
				    strlen(keys[i])) != 0)
					continue;
				line[strcspn(line, "\n")] = '\0';
				for (char *p = line; *p; p++)
					if (*p == '\t')
						*p = ' ';
				printf("status %s\n", line);
			}
		}
		fclose(f);
	}
	if ((f = fopen("/proc/self/uid_map", "re")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			line[strcspn(line, "\n")] = '\0';
			printf("uid_map %s\n", line);
		}
		fclose(f);
	}
	if (gethostname(host, sizeof(host)) == 0)
		printf("hostname %s\n", host);
	printf("pid %ld\n", (long)getpid());
}

static void
do_privileged(void)
{
	printf("mount %s\n", res(mount("tmpfs", "/tmp", "tmpfs", 0, NULL)));
	printf("remount %s\n", res(mount(NULL, "/", NULL,
	    MS_REMOUNT | MS_BIND, NULL)));
	printf("umount %s\n", res(umount2("/proc", MNT_DETACH)));
	printf("userns %s\n", res(unshare(CLONE_NEWUSER)));
	printf("mntns %s\n", res(unshare(CLONE_NEWNS)));
	printf("chroot %s\n", res(chroot("/tmp")));
	printf("setuid %s\n", res(setuid(0)));
	printf("sethostname %s\n", res(sethostname("x", 1)));
}

static void
do_fill(const char *path, const char *bytes)
{
	char	 buf[65536];
	long	 want = num(bytes), done = 0;
	ssize_t	 n;
	int	 fd;

	memset(buf, 'f', sizeof(buf));
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1) {
		printf("fill %s\n", ename(errno));
		return;
	}
	while (done < want) {
		n = write(fd, buf, (size_t)(want - done) < sizeof(buf) ?
		    (size_t)(want - done) : sizeof(buf));
		if (n == -1) {
			printf("fill %s written %ld\n", ename(errno), done);
			close(fd);
			return;
		}
		done += n;
	}
	printf("fill ok written %ld\n", done);
	close(fd);
}

/* Run a copy of ourselves from a writable place: Landlock must refuse. */
static void
do_exec(const char *path)
{
	char	 buf[65536];
	ssize_t	 n;
	pid_t	 pid;
	int	 in, out, st;

	if ((in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) == -1 ||
	    (out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0755)) == -1) {
		printf("exec_copy %s\n", ename(errno));
		return;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (writeall(out, buf, (size_t)n) == -1)
			break;
	close(in);
	close(out);
	printf("exec_copy ok\n");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		char *const av[] = { (char *)path, "exit", "0", NULL };

		execv(path, av);
		_exit(errno > 0 && errno < 126 ? errno : 125);
	}
	if (pid == -1 || waitpid(pid, &st, 0) == -1) {
		printf("exec %s\n", ename(errno));
		return;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		printf("exec ok\n");
	else if (WIFEXITED(st))
		printf("exec %s\n", ename(WEXITSTATUS(st)));
	else
		printf("exec signal %d\n", WTERMSIG(st));
}

static void
do_fork(const char *count)
{
	pid_t	 pids[4096];
	int	 want = num(count), n = 0, i, e = 0;

	if (want > 4096)
		want = 4096;
	while (n < want) {
		pid_t p = fork();

		if (p == -1) {
			e = errno;
			break;
		}
		if (p == 0) {
			pause();
			_exit(0);
		}
		pids[n++] = p;
	}
	printf("forked %d %s\n", n, e ? ename(e) : "ok");
	for (i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

static void
do_list(const char *dir, const char *key)
{
	struct dirent	*de;
	DIR		*d;
	int		 self;

	if ((d = opendir(dir)) == NULL) {
		printf("%s %s\n", key, ename(errno));
		return;
	}
	self = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (strcmp(key, "fd") == 0 && atoi(de->d_name) == self)
			continue;
		printf("%s %s\n", key, de->d_name);
	}
	closedir(d);
}

static int
do_cat(void)
{
	char	 buf[65536];
	ssize_t	 n;

	for (;;) {
		n = read(0, buf, sizeof(buf));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? 0 : 1;
		if (writeall(1, buf, (size_t)n) == -1)
			return 1;
	}
}

static void
do_stdin(void)
{
	char	 buf[4096];
	ssize_t	 n;
	long	 total = 0;

	while ((n = read(0, buf, sizeof(buf))) > 0)
		total += n;
	printf("stdin %s %ld\n", n == 0 ? "eof" : ename(errno), total);
}

/* A pattern the test can recompute: byte i of stream s. */
static int
do_spew(const char *outb, const char *errb)
{
	static unsigned char	 buf[65536];
	long			 want[2], done, i;
	int			 s, fd;
	size_t			 chunk;

	want[0] = num(outb);
	want[1] = num(errb);
	for (s = 0; s < 2; s++) {
		fd = s == 0 ? 1 : 2;
		for (done = 0; done < want[s]; done += (long)chunk) {
			chunk = (size_t)(want[s] - done) < sizeof(buf) ?
			    (size_t)(want[s] - done) : sizeof(buf);
			for (i = 0; i < (long)chunk; i++)
				buf[i] = (unsigned char)(((done + i) * 31 +
				    (s ? 7 : 0)) ^ ((done + i) >> 8));
			if (writeall(fd, buf, chunk) == -1)
				return 1;
		}
	}
	return 0;
}

/* ---- listen: the host's side of the network escapes ------------------ */

/*
 * Listeners for the sandbox to aim at, run on the host by the test: TCP
 * and UDP on 127.0.0.1 (ephemeral ports) and an abstract unix socket.
 * Every connection or datagram is counted and reported as it comes (UDP
 * is echoed, so a host-side control run gets its reply at once); on
 * SIGTERM whatever is still queued is taken too, then the totals.  What
 * is queued when the sandbox has exited is all it ever sent, so the
 * totals are exact without any waiting.
 */
static int
listen_take(int s, int type, const char *what, long *count)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len = sizeof(ss);
	char			 buf[512];
	ssize_t			 n;
	int			 c;

	if (type == SOCK_DGRAM) {
		n = recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
		    (struct sockaddr *)&ss, &len);
		if (n == -1)
			return -1;
		(void)sendto(s, buf, (size_t)n, MSG_DONTWAIT,
		    (struct sockaddr *)&ss, len);
	} else {
		if ((c = accept4(s, NULL, NULL, SOCK_NONBLOCK |
		    SOCK_CLOEXEC)) == -1)
			return -1;
		close(c);
	}
	(*count)++;
	printf("got %s\n", what);
	fflush(stdout);
	return 0;
}

static int
listen_socket(int family, int type, const struct sockaddr *sa,
    socklen_t salen)
{
	int	 s;

	if ((s = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1 || bind(s, sa, salen) == -1 ||
	    (type == SOCK_STREAM && listen(s, 64) == -1)) {
		fprintf(stderr, "probe: listen: %s\n", strerror(errno));
		exit(1);
	}
	return s;
}

static int
do_listen(const char *name)
{
	static const char *const what[] = { "tcp", "udp", "unix" };
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_STREAM };
	struct sockaddr_in	 sin;
	struct sockaddr_un	 sun;
	struct pollfd		 pfd[4];
	socklen_t		 len;
	sigset_t		 set;
	long			 count[3] = { 0, 0, 0 };
	int			 s[3], port[2], i, stop = 0;

	if (strlen(name) > sizeof(sun.sun_path) - 2) {
		fprintf(stderr, "probe: listen: name too long\n");
		return 2;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 0; i < 2; i++) {
		sin.sin_port = 0;
		s[i] = listen_socket(AF_INET, types[i],
		    (struct sockaddr *)&sin, sizeof(sin));
		len = sizeof(sin);
		if (getsockname(s[i], (struct sockaddr *)&sin, &len) == -1) {
			fprintf(stderr, "probe: getsockname: %s\n",
			    strerror(errno));
			return 1;
		}
		port[i] = ntohs(sin.sin_port);
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path + 1, name, strlen(name));
	s[2] = listen_socket(AF_UNIX, SOCK_STREAM, (struct sockaddr *)&sun,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(name)));

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1 ||
	    (pfd[3].fd = signalfd(-1, &set, SFD_CLOEXEC)) == -1) {
		fprintf(stderr, "probe: signalfd: %s\n", strerror(errno));
		return 1;
	}
	pfd[3].events = POLLIN;
	for (i = 0; i < 3; i++) {
		pfd[i].fd = s[i];
		pfd[i].events = POLLIN;
	}
	printf("listen %d %d %s\n", port[0], port[1], name);
	fflush(stdout);
	while (!stop) {
		if (poll(pfd, 4, -1) == -1) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "probe: poll: %s\n", strerror(errno));
			return 1;
		}
		for (i = 0; i < 3; i++)
			if (pfd[i].revents & POLLIN)
				(void)listen_take(s[i], types[i], what[i],
				    &count[i]);
		stop = (pfd[3].revents & POLLIN) != 0;
	}
	for (i = 0; i < 3; i++)
		while (listen_take(s[i], types[i], what[i], &count[i]) == 0)
			;
	printf("received tcp %ld udp %ld unix %ld\n", count[0], count[1],
	    count[2]);
	return 0;
}

/* ---- escape: the list of ways out, each tried for real ------- */

/*
 * "probe escape ATTEMPT..." tries each attempt and prints
 *
 *	escape ATTEMPT RESULT VERDICT [detail]
 *
 * RESULT is "ok" or the errno name (or "killed:N" for a child the kernel
 * killed), VERDICT "denied" or "ALLOWED", and at the end
 *
 *	escapes tried N denied M
 *
 * The verdict is a convenience for the count the issue asks for; the
 * test checks every RESULT against what it expects as well, so a probe
 * that judged wrongly is caught.
 */
struct escape {
	const char	*name;		/* prefix of the attempt word */
	int		 arg;		/* takes ":ARG" */
	int		 (*fn)(const char *arg, char *detail, size_t len);
};

/* The errno of the call, or 0 when it succeeded. */
static int
err_of(long r)
{
	return r == -1 ? errno : 0;
}

static long
snum(const char *s)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s) {
		fprintf(stderr, "probe: bad number \"%s\"\n", s);
		exit(2);
	}
	return v;
}

static int
esc_read(const char *path, char *detail, size_t len)
{
	int	 fd, e;

	(void)detail;
	(void)len;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	e = err_of(fd);
	if (fd != -1)
		close(fd);
	return e;
}

/* pid 1's environment: denied when unreadable or empty. */
static int
esc_environ(const char *arg, char *detail, size_t len)
{
	char	 buf[4096];
	ssize_t	 n;
	int	 fd, e;

	(void)arg;
	if ((fd = open("/proc/1/environ", O_RDONLY | O_CLOEXEC)) == -1)
		return errno;
	n = read(fd, buf, sizeof(buf));
	e = err_of(n);
	close(fd);
	if (e == 0)
		snprintf(detail, len, "bytes=%zd", n);
	/* Readable but empty: nothing leaked, which is the point. */
	return e != 0 ? e : n == 0 ? ENODATA : 0;
}

static int
esc_connect(int family, int type, const struct sockaddr *sa, socklen_t salen)
{
	int	 s, e;

	if ((s = socket(family, type | SOCK_CLOEXEC, 0)) == -1)
		return errno;
	e = err_of(connect(s, sa, salen));
	close(s);
	return e;
}

static void
loopback(struct sockaddr_in *sin, const char *port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin->sin_port = htons((uint16_t)num(port));
}

static int
esc_tcp(const char *port, char *detail, size_t len)
{
	struct sockaddr_in	 sin;

	(void)detail;
	(void)len;
	loopback(&sin, port);
	return esc_connect(AF_INET, SOCK_STREAM, (struct sockaddr *)&sin,
	    sizeof(sin));
}

/* The host's listener echoes: a reply means the datagram got out. */
static int
esc_udp(const char *port, char *detail, size_t len)
{
	struct sockaddr_in	 sin;
	struct timeval		 tv = { 5, 0 };
	char			 c;
	int			 s, e;

	loopback(&sin, port);
	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return errno;
	if (connect(s, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    send(s, "escape", 6, 0) == -1) {
		e = errno;
		snprintf(detail, len, "step=send");
	} else {
		(void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		e = err_of(recv(s, &c, 1, 0));
		snprintf(detail, len, "step=reply");
	}
	close(s);
	return e;
}

static int
esc_unix(const char *name, int abstract)
{
	struct sockaddr_un	 sun;
	size_t			 n = strlen(name);

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (n > sizeof(sun.sun_path) - 2)
		return ENAMETOOLONG;
	memcpy(sun.sun_path + (abstract ? 1 : 0), name, n);
	return esc_connect(AF_UNIX, SOCK_STREAM, (struct sockaddr *)&sun,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    (abstract ? 1 : 0) + n + (abstract ? 0 : 1)));
}

static int
esc_abstract(const char *name, char *detail, size_t len)
{
	(void)detail;
	(void)len;
	return esc_unix(name, 1);
}

static int
esc_unixpath(const char *path, char *detail, size_t len)
{
	(void)detail;
	(void)len;
	return esc_unix(path, 0);
}

/* Give lo an address: the kernel answers with an error in its ack. */
static int
esc_netlink_addr(const char *arg, char *detail, size_t len)
{
	struct {
		struct nlmsghdr		nh;
		struct ifaddrmsg	ifa;
		struct rtattr		rta;
		struct in_addr		addr;
	} req;
	struct sockaddr_nl	 snl;
	char			 buf[4096];
	struct nlmsghdr		*nh = (struct nlmsghdr *)buf;
	struct nlmsgerr		*ne;
	ssize_t			 n;
	int			 s, e;

	(void)arg;
	if ((s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
	    NETLINK_ROUTE)) == -1) {
		snprintf(detail, len, "step=socket");
		return errno;
	}
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_NEWADDR;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE |
	    NLM_F_EXCL;
	req.nh.nlmsg_seq = 1;
	req.ifa.ifa_family = AF_INET;
	req.ifa.ifa_prefixlen = 32;
	req.ifa.ifa_index = if_nametoindex("lo");
	req.rta.rta_type = IFA_LOCAL;
	req.rta.rta_len = RTA_LENGTH(sizeof(req.addr));
	req.addr.s_addr = htonl(0x0afefefe);	/* 10.254.254.254 */
	memset(&snl, 0, sizeof(snl));
	snl.nl_family = AF_NETLINK;
	if (sendto(s, &req, sizeof(req), 0, (struct sockaddr *)&snl,
	    sizeof(snl)) == -1) {
		e = errno;
		snprintf(detail, len, "step=send");
	} else if ((n = recv(s, buf, sizeof(buf), 0)) == -1) {
		e = errno;
		snprintf(detail, len, "step=ack");
	} else if (!NLMSG_OK(nh, (size_t)n) || nh->nlmsg_type != NLMSG_ERROR) {
		e = EPROTO;
		snprintf(detail, len, "step=ack");
	} else {
		ne = NLMSG_DATA(nh);
		e = -ne->error;
		snprintf(detail, len, "step=ack");
	}
	close(s);
	return e;
}

/* Netlink families other than routing: audit, uevents. */
static int
esc_netlink(const char *proto, char *detail, size_t len)
{
	int	 p, s;

	(void)detail;
	(void)len;
	if (strcmp(proto, "audit") == 0)
		p = NETLINK_AUDIT;
	else if (strcmp(proto, "uevent") == 0)
		p = NETLINK_KOBJECT_UEVENT;
	else
		p = (int)num(proto);
	if ((s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, p)) == -1)
		return errno;
	close(s);
	return 0;
}

static int
esc_userns(const char *arg, char *detail, size_t len)
{
	(void)arg;
	(void)detail;
	(void)len;
	return err_of(unshare(CLONE_NEWUSER));
}

/* The same through clone, whose flags the filter must read as well. */
static int
esc_clone_userns(const char *arg, char *detail, size_t len)
{
	long	 pid;

	(void)arg;
	(void)detail;
	(void)len;
	pid = syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD),
	    0UL, 0UL, 0UL, 0UL);
	if (pid == 0)
		_exit(0);
	if (pid == -1)
		return errno;
	(void)waitpid((pid_t)pid, NULL, 0);
	return 0;
}

static int
esc_mount(const char *arg, char *detail, size_t len)
{
	(void)arg;
	(void)detail;
	(void)len;
	return err_of(mount("tmpfs", "/tmp", "tmpfs", 0, "size=1m"));
}

static int
esc_remount(const char *arg, char *detail, size_t len)
{
	(void)arg;
	(void)detail;
	(void)len;
	return err_of(mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND, NULL));
}

static int
esc_fsopen(const char *arg, char *detail, size_t len)
{
	long	 fd;

	(void)arg;
	(void)detail;
	(void)len;
	if ((fd = syscall(SYS_fsopen, "tmpfs", 0UL)) == -1)
		return errno;
	close((int)fd);
	return 0;
}

static int
esc_ptrace(const char *pid, char *detail, size_t len)
{
	pid_t	 p = (pid_t)num(pid);

	(void)detail;
	(void)len;
	if (ptrace(PTRACE_ATTACH, p, NULL, NULL) == -1)
		return errno;
	(void)waitpid(p, NULL, __WALL);
	(void)ptrace(PTRACE_DETACH, p, NULL, NULL);
	return 0;
}

/*
 * SIGKILL to a host process (the test's own sleep, as the sandbox's host
 * uid), or to everyone we may signal with -1: inside a pid namespace of
 * its own the payload sees neither.
 */
static int
esc_kill(const char *pid, char *detail, size_t len)
{
	long	 p = snum(pid);

	if (p == (long)getpid()) {
		/* The host pid happens to be ours here: not a test. */
		snprintf(detail, len, "pid-is-ours");
		return 0;
	}
	return err_of(kill((pid_t)p, SIGKILL));
}

/*
 * TIOCSTI pushes input into a terminal: the caller's, if the payload had
 * it (CVE-2017-5226).  The high bits test a filter that compares the
 * whole 64-bit argument, which the kernel truncates to 32 bits
 * (CVE-2019-10063).
 */
static int
esc_tiocsti(const char *arg, char *detail, size_t len)
{
	char		 c = 'x';
	unsigned long	 cmd = TIOCSTI;

	(void)detail;
	(void)len;
	if (strcmp(arg, "high") == 0)
		cmd |= 1UL << 32;
	return err_of(syscall(SYS_ioctl, 0, cmd, &c));
}

static int
esc_keyctl(const char *arg, char *detail, size_t len)
{
	(void)arg;
	(void)detail;
	(void)len;
	return err_of(syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING,
	    "sbx-probe"));
}

static int
esc_add_key(const char *arg, char *detail, size_t len)
{
	(void)arg;
	(void)detail;
	(void)len;
	return err_of(syscall(SYS_add_key, "user", "sbx-probe", "x", 1UL,
	    KEY_SPEC_PROCESS_KEYRING));
}

static int
esc_bpf(const char *arg, char *detail, size_t len)
{
	union bpf_attr	 attr;
	long		 fd;

	(void)arg;
	(void)detail;
	(void)len;
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	if ((fd = syscall(SYS_bpf, BPF_MAP_CREATE, &attr,
	    sizeof(attr))) == -1)
		return errno;
	close((int)fd);
	return 0;
}

/* Counting our own task clock is allowed by perf_event_paranoid 2: only
 * the filter stands in the way. */
static int
esc_perf(const char *arg, char *detail, size_t len)
{
	struct perf_event_attr	 pe;
	long			 fd;

	(void)arg;
	(void)detail;
	(void)len;
	memset(&pe, 0, sizeof(pe));
	pe.type = PERF_TYPE_SOFTWARE;
	pe.size = sizeof(pe);
	pe.config = PERF_COUNT_SW_TASK_CLOCK;
	pe.disabled = 1;
	pe.exclude_kernel = 1;
	pe.exclude_hv = 1;
	if ((fd = syscall(SYS_perf_event_open, &pe, 0, -1, -1,
	    0UL)) == -1)
		return errno;
	close((int)fd);
	return 0;
}

static int
esc_io_uring(const char *arg, char *detail, size_t len)
{
	struct io_uring_params	 p;
	long			 fd;

	(void)arg;
	(void)detail;
	(void)len;
	memset(&p, 0, sizeof(p));
	if ((fd = syscall(SYS_io_uring_setup, 8U, &p)) == -1)
		return errno;
	close((int)fd);
	return 0;
}

static int
esc_userfaultfd(const char *arg, char *detail, size_t len)
{
	long	 fd;

	(void)arg;
	(void)detail;
	(void)len;
	if ((fd = syscall(SYS_userfaultfd, O_CLOEXEC)) == -1)
		return errno;
	close((int)fd);
	return 0;
}

static int
esc_write(const char *path, char *detail, size_t len)
{
	int	 fd, e;

	(void)detail;
	(void)len;
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1)
		return errno;
	e = err_of(write(fd, "x", 1));
	close(fd);
	return e;
}

/* How a child that reports its errno as exit status ended. */
static int
child_result(pid_t pid, char *detail, size_t len)
{
	int	 st;

	if (waitpid(pid, &st, 0) == -1)
		return errno;
	if (WIFSIGNALED(st)) {
		snprintf(detail, len, "killed=%d", WTERMSIG(st));
		return EINTR;	/* stands for "killed"; see esc_result */
	}
	return WEXITSTATUS(st);
}

/*
 * Touch BYTES of fresh memory in 1 MiB steps, in a child so that the
 * OOM killer (cgroup caps) or a failed mmap (RLIMIT_AS) ends only it.
 * The steps stop at BYTES, so a cap that did not hold costs the host
 * BYTES and no more.
 */
static int
esc_memory(const char *bytes, char *detail, size_t len)
{
	long	 want = num(bytes), done = 0;
	int	 p[2], e;
	pid_t	 pid;
	char	*m, c;

	if (pipe2(p, O_CLOEXEC) == -1)
		return errno;
	if ((pid = fork()) == -1) {
		e = errno;
		close(p[0]);
		close(p[1]);
		return e;
	}
	if (pid == 0) {
		close(p[0]);
		while (done < want) {
			m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m == MAP_FAILED)
				_exit(errno);
			memset(m, 0xa5, 1 << 20);
			done += 1 << 20;
			if (write(p[1], "m", 1) != 1)
				_exit(EPIPE);
		}
		_exit(0);
	}
	close(p[1]);
	while (read(p[0], &c, 1) == 1)
		done++;
	close(p[0]);
	e = child_result(pid, detail, len);
	snprintf(detail + strlen(detail), len - strlen(detail),
	    "%stouched=%ldMiB", detail[0] ? "," : "", done);
	return e;
}

/* N children at once: the pids cap must stop it short of N. */
static int
esc_pids(const char *count, char *detail, size_t len)
{
	pid_t	 pids[4096];
	int	 want = num(count), n = 0, i, e = 0;

	if (want > (int)nitems(pids))
		want = (int)nitems(pids);
	while (n < want) {
		pid_t p = fork();

		if (p == -1) {
			e = errno;
			break;
		}
		if (p == 0) {
			pause();
			_exit(0);
		}
		pids[n++] = p;
	}
	for (i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	snprintf(detail, len, "forked=%d", n);
	return e;
}

/*
 * A fork bomb: every process forks as fast as it can, and so does every
 * child.  A shared counter stops it at LIMIT processes, so a pids cap that
 * did not hold costs the host LIMIT processes and no more.  The first
 * failed fork is reported through a pipe; then the whole group is killed.
 */
#define BOMB_LIMIT	1024

static int
esc_forkbomb(const char *arg, char *detail, size_t len)
{
	volatile int	*spawned;
	pid_t		 leader;
	int		 p[2], e = 0, st, i;

	(void)arg;
	spawned = mmap(NULL, sizeof(*spawned), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (spawned == MAP_FAILED)
		return errno;
	*spawned = 1;
	if (pipe2(p, O_CLOEXEC) == -1)
		return errno;
	if ((leader = fork()) == -1) {
		e = errno;
		close(p[0]);
		close(p[1]);
		return e;
	}
	if (leader == 0) {
		close(p[0]);
		(void)setpgid(0, 0);
		for (;;) {
			if (__atomic_add_fetch(spawned, 1,
			    __ATOMIC_SEQ_CST) > BOMB_LIMIT)
				e = 0;
			else if (fork() != -1)
				continue;
			else
				e = errno;
			/* Only the first report is read; the rest of the
			 * bomb waits here for the group kill. */
			if (write(p[1], &e, sizeof(e)) == -1)
				_exit(1);
			for (;;)
				pause();
		}
	}
	close(p[1]);
	(void)setpgid(leader, leader);
	if (read(p[0], &e, sizeof(e)) != (ssize_t)sizeof(e))
		e = EPIPE;
	close(p[0]);
	(void)kill(-leader, SIGKILL);
	(void)waitpid(leader, &st, 0);
	/* The rest are pid 1's to reap; wait until it has (a zombie still
	 * answers kill 0), so later attempts start with free pids. */
	for (i = 0; i < 1000; i++) {
		if (kill(-leader, 0) == -1 && errno == ESRCH)
			break;
		usleep(10000);
	}
	snprintf(detail, len, "attempts=%d", *spawned - 1);
	return e;
}

static int
esc_fill(const char *arg, char *detail, size_t len)
{
	char		 path[PATH_MAX], buf[65536];
	const char	*colon;
	long		 want, done = 0;
	ssize_t		 n;
	int		 fd, e = 0;

	if ((colon = strrchr(arg, ':')) == NULL ||
	    (size_t)(colon - arg) >= sizeof(path)) {
		fprintf(stderr, "probe: fill:PATH:BYTES\n");
		exit(2);
	}
	memcpy(path, arg, (size_t)(colon - arg));
	path[colon - arg] = '\0';
	want = num(colon + 1);
	memset(buf, 'f', sizeof(buf));
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1)
		return errno;
	while (done < want) {
		n = write(fd, buf, (size_t)(want - done) < sizeof(buf) ?
		    (size_t)(want - done) : sizeof(buf));
		if (n == -1) {
			e = errno;
			break;
		}
		done += n;
	}
	close(fd);
	(void)unlink(path);
	snprintf(detail, len, "written=%ld", done);
	return e;
}

/*
 * Does PATH hold the host's user database?  Every host's passwd and group
 * have a root entry; the sandbox's generated ones never do (uid 0 is not
 * mapped), so a root line means the host's file is visible.  ENOENT or
 * EACCES when unreadable, ENODATA when readable without host entries.
 */
static int
esc_hostusers(const char *path, char *detail, size_t len)
{
	char	 line[1024];
	FILE	*f;
	int	 n = 0, host = 0;

	if ((f = fopen(path, "re")) == NULL)
		return errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		n++;
		if (strncmp(line, "root:", 5) == 0)
			host = 1;
	}
	fclose(f);
	snprintf(detail, len, "lines=%d", n);
	return host ? 0 : ENODATA;
}

static const struct escape escapes[] = {
	{ "read", 1, esc_read },
	{ "hostusers", 1, esc_hostusers },
	{ "environ", 0, esc_environ },
	{ "tcp", 1, esc_tcp },
	{ "udp", 1, esc_udp },
	{ "abstract", 1, esc_abstract },
	{ "unixpath", 1, esc_unixpath },
	{ "netlink-addr", 0, esc_netlink_addr },
	{ "netlink", 1, esc_netlink },
	{ "userns", 0, esc_userns },
	{ "clone-userns", 0, esc_clone_userns },
	{ "mount", 0, esc_mount },
	{ "remount", 0, esc_remount },
	{ "fsopen", 0, esc_fsopen },
	{ "ptrace", 1, esc_ptrace },
	{ "kill", 1, esc_kill },
	{ "tiocsti", 1, esc_tiocsti },
	{ "keyctl", 0, esc_keyctl },
	{ "add_key", 0, esc_add_key },
	{ "bpf", 0, esc_bpf },
	{ "perf_event_open", 0, esc_perf },
	{ "io_uring_setup", 0, esc_io_uring },
	{ "userfaultfd", 0, esc_userfaultfd },
	{ "write", 1, esc_write },
	{ "memory", 1, esc_memory },
	{ "pids", 1, esc_pids },
	{ "forkbomb", 0, esc_forkbomb },
	{ "fill", 1, esc_fill },
};

static int
do_escape(int argc, char **argv)
{
	const struct escape	*x;
	const char		*word, *arg, *res;
	char			 detail[128];
	size_t			 i, n;
	int			 a, e, denied = 0;

	for (a = 0; a < argc; a++) {
		word = argv[a];
		n = strcspn(word, ":");
		arg = word[n] == ':' ? word + n + 1 : NULL;
		for (i = 0, x = NULL; i < nitems(escapes); i++)
			if (strlen(escapes[i].name) == n &&
			    strncmp(escapes[i].name, word, n) == 0)
				x = &escapes[i];
		if (x == NULL || (x->arg != 0) != (arg != NULL)) {
			fprintf(stderr, "probe: escape: unknown attempt or "
			    "wrong argument: %s\n", word);
			return 2;
		}
		detail[0] = '\0';
		/* Anything buffered would be written twice by a fork. */
		fflush(stdout);
		e = x->fn(arg != NULL ? arg : "", detail, sizeof(detail));
		if (strncmp(detail, "killed=", 7) == 0)
			res = "killed";
		else
			res = e == 0 ? "ok" : ename(e);
		if (e != 0)
			denied++;
		printf("escape %s %s %s%s%s\n", word, res, e != 0 ? "denied" :
		    "ALLOWED", detail[0] ? " " : "", detail);
	}
	printf("escapes tried %d denied %d\n", argc, denied);
	return 0;
}

int
main(int argc, char *argv[])
{
	const char	*cmd;
	char		 cwd[4096];
	int		 r = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: probe command [args]\n");
		return 2;
	}
	cmd = argv[1];
	argc -= 2;
	argv += 2;
	if (strcmp(cmd, "paths") == 0)
		do_paths(argc, argv);
	else if (strcmp(cmd, "write") == 0)
		do_write(argc, argv);
	else if (strcmp(cmd, "read") == 0 && argc == 1)
		do_read(argv[0]);
	else if (strcmp(cmd, "stat") == 0 && argc == 1)
		do_stat(argv[0]);
	else if (strcmp(cmd, "environ") == 0)
		do_environ();
	else if (strcmp(cmd, "net") == 0 && argc == 3)
		do_net(argv[0], argv[1], argv[2]);
	else if (strcmp(cmd, "loopback") == 0 && argc == 0)
		do_loopback();
	else if (strcmp(cmd, "connect") == 0 && argc == 2)
		do_connect(argv[0], argv[1]);
	else if (strcmp(cmd, "ns") == 0)
		do_ns(argc, argv);
	else if (strcmp(cmd, "status") == 0)
		do_status();
	else if (strcmp(cmd, "privileged") == 0)
		do_privileged();
	else if (strcmp(cmd, "fill") == 0 && argc == 2)
		do_fill(argv[0], argv[1]);
	else if (strcmp(cmd, "exec") == 0 && argc == 1)
		do_exec(argv[0]);
	else if (strcmp(cmd, "fork") == 0 && argc == 1)
		do_fork(argv[0]);
	else if (strcmp(cmd, "fds") == 0)
		do_list("/proc/self/fd", "fd");
	else if (strcmp(cmd, "dev") == 0)
		do_list("/dev", "dev");
	else if (strcmp(cmd, "cwd") == 0)
		printf("cwd %s\n", getcwd(cwd, sizeof(cwd)) ? cwd :
		    ename(errno));
	else if (strcmp(cmd, "cat") == 0)
		r = do_cat();
	else if (strcmp(cmd, "stdin") == 0)
		do_stdin();
	else if (strcmp(cmd, "spew") == 0 && argc == 2)
		r = do_spew(argv[0], argv[1]);
	else if (strcmp(cmd, "escape") == 0 && argc > 0)
		r = do_escape(argc, argv);
	else if (strcmp(cmd, "listen") == 0 && argc == 1)
		r = do_listen(argv[0]);
	else if (strcmp(cmd, "exit") == 0 && argc == 1)
		return num(argv[0]);
	else if (strcmp(cmd, "signal") == 0 && argc == 1) {
		signal(num(argv[0]), SIG_DFL);
		raise(num(argv[0]));
		return 3;
	} else if (strcmp(cmd, "sleep") == 0) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	} else {
		fprintf(stderr, "probe: unknown command or arguments: %s\n",
		    cmd);
		return 2;
	}
	if (fflush(stdout) == EOF)
		return 1;
	return r;
}
