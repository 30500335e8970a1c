/*
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
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
