/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_conf_parse: sbx.conf(5) reader.  Bad snippets must be refused with exactly
 * the expected first "file:line: reason"; good ones are checked field by
 * field and must survive dump -> parse -> dump unchanged.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <arpa/inet.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "conf/conf.h"

/* ---- helpers ---------------------------------------------------------- */

struct errs {
	char	 buf[16384];
	int	 n;
	char	 first[1024];
};

static void
collect(void *arg, const char *msg)
{
	struct errs	*e = arg;

	if (e->n++ == 0)
		strlcpy(e->first, msg, sizeof(e->first));
	strlcat(e->buf, msg, sizeof(e->buf));
	strlcat(e->buf, "\n", sizeof(e->buf));
}

/* For failure messages: ATF wants a reason on one line. */
static const char *
flat(const char *s)
{
	static char	 buf[4096];
	size_t		 i;

	strlcpy(buf, s, sizeof(buf));
	for (i = 0; buf[i] != '\0'; i++) {
		if (buf[i] == '\n')
			buf[i] = '|';
	}
	return buf;
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	int	 fd;
	size_t	 len = strlen(text);

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ATF_REQUIRE_MSG(fd != -1, "open %s: %s", path, strerror(errno));
	ATF_REQUIRE(write(fd, text, len) == (ssize_t)len);
	ATF_REQUIRE(fchmod(fd, mode) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

static struct sbx_conf *
parse_text(const char *text, struct errs *e)
{
	memset(e, 0, sizeof(*e));
	write_file("t.conf", text, 0644);
	return conf_parse_cb("t.conf", collect, e);
}

static struct sbx_conf *
parse_ok(const char *text)
{
	struct sbx_conf	*conf;
	struct errs	 e;

	conf = parse_text(text, &e);
	ATF_REQUIRE_MSG(conf != NULL && e.n == 0, "refused: %s", flat(e.buf));
	return conf;
}

static char *
dump_string(const struct sbx_conf *conf)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*fp;

	ATF_REQUIRE((fp = open_memstream(&buf, &len)) != NULL);
	conf_dump(fp, conf);
	ATF_REQUIRE(fclose(fp) == 0);
	return buf;
}

/* dump -> parse -> dump must give the same text. */
static void
check_roundtrip(const struct sbx_conf *conf)
{
	struct sbx_conf	*again;
	struct errs	 e;
	char		*d1, *d2;

	d1 = dump_string(conf);
	memset(&e, 0, sizeof(e));
	write_file("dump.conf", d1, 0600);
	again = conf_parse_cb("dump.conf", collect, &e);
	ATF_REQUIRE_MSG(again != NULL, "dump refused: %s", flat(e.buf));
	d2 = dump_string(again);
	ATF_CHECK_STREQ_MSG(d1, d2, "dump changed on re-reading");
	conf_free(again);
	free(d1);
	free(d2);
}

static const struct conf_mount *
mount_at(const struct conf_profile *prof, int idx)
{
	const struct conf_mount	*m;

	TAILQ_FOREACH(m, &prof->mounts, entry) {
		if (idx-- == 0)
			return m;
	}
	return NULL;
}

static int
count_mounts(const struct conf_profile *prof)
{
	const struct conf_mount	*m;
	int			 n = 0;

	TAILQ_FOREACH(m, &prof->mounts, entry)
		n++;
	return n;
}

/* The built-in mounts, as this machine has them. */
static void
check_builtin_mounts(const struct conf_profile *prof)
{
	static const char *const dirs[] = { "/usr", "/bin", "/lib", "/lib64",
	    "/etc/ssl/certs", "/etc/alternatives" };
	const struct conf_mount	*m;
	struct stat		 st;
	size_t			 i;
	int			 idx = 0;

	for (i = 0; i < nitems(dirs); i++) {
		if (stat(dirs[i], &st) == -1 || !S_ISDIR(st.st_mode))
			continue;
		m = mount_at(prof, idx++);
		ATF_REQUIRE_MSG(m != NULL, "mount %s missing", dirs[i]);
		ATF_CHECK_EQ(m->type, CONF_MOUNT_RO);
		ATF_CHECK_STREQ(m->path, dirs[i]);
	}
	ATF_REQUIRE(stat("/usr", &st) == 0);	/* at least one */
	m = mount_at(prof, idx++);
	ATF_REQUIRE(m != NULL);
	ATF_CHECK_EQ(m->type, CONF_MOUNT_TMPFS);
	ATF_CHECK_STREQ(m->path, "/tmp");
	ATF_CHECK_EQ(m->size, 64ULL << 20);
	ATF_CHECK_EQ(count_mounts(prof), idx);
}

/* ---- bad snippets ----------------------------------------------------- */

static const struct {
	const char	*text;
	const char	*error;		/* the first error, exactly */
} bad[] = {
	/* structure */
	{ "sockett \"/x\"\n", "t.conf:1: unknown keyword \"sockett\"" },
	{ "\n\n  Socket \"/x\"\n", "t.conf:3: unknown keyword \"Socket\"" },
	{ "socket \"/run/x.sock\nuser \"a\"\n",
	    "t.conf:1: unterminated quoted string" },
	{ "socket \"/run/x.sock", "t.conf:1: unterminated quoted string" },
	{ "socket \"/a\\n\"\n", "t.conf:1: invalid escape in quoted string "
	    "(only \\\" and \\\\)" },
	{ "socket \"/a\001\"\n",
	    "t.conf:1: invalid character 0x01 in quoted string" },
	{ "socket /run/x.sock\r\n", "t.conf:1: invalid character 0x0d" },
	{ "socket 'x'\n", "t.conf:1: invalid character '''" },
	{ "\"socket\" \"/x\"\n",
	    "t.conf:1: expected a keyword, got \"socket\"" },
	{ "{\n", "t.conf:1: expected a keyword, got '{'" },
	{ "}\n", "t.conf:1: unexpected '}' outside a profile block" },
	{ "max-sandboxes 4 5\n",
	    "t.conf:1: max-sandboxes: unexpected \"5\" after the value" },
	{ "socket \"/a.sock\"\nsocket \"/b.sock\"\n",
	    "t.conf:2: socket: duplicate keyword (first given at t.conf:1)" },
	{ "max-sandboxes\n", "t.conf:1: max-sandboxes: missing number" },
	{ "network none\n",
	    "t.conf:1: network: allowed only inside a profile block" },
	{ "profile \"p\" {\n\tuser \"x\"\n}\n",
	    "t.conf:2: user: not allowed inside a profile block" },
	{ "profile \"p\" {\n\tnetwork none\n",
	    "t.conf:1: profile \"p\": block is not closed (missing '}')" },
	{ "profile \"p\"\nnetwork none\n}\n",
	    "t.conf:2: profile \"p\": expected '{', got \"network\"" },
	{ "profile \"p\" { }\nprofile \"p\" { }\n",
	    "t.conf:2: profile \"p\": already defined at t.conf:1" },
	{ "profile \"a b\" { }\n", "t.conf:1: profile \"a b\": name may "
	    "contain only letters, digits, '.', '_' and '-'" },
	{ "profile \"p\" {\n\tprofile \"q\" { }\n}\n",
	    "t.conf:2: profile: not allowed inside a profile block" },
	{ "profile \"p\" { network none } junk\n",
	    "t.conf:1: profile: unexpected \"junk\" after the value" },
	{ "profile \"p\" {\n\tinclude \"x.conf\"\n}\n",
	    "t.conf:2: include: not allowed inside a profile block" },

	/* macros */
	{ "socket $nope\n", "t.conf:1: macro \"nope\" is not defined" },
	{ "socket $\n", "t.conf:1: '$' is not followed by a macro name" },
	{ "a = \"1\"\na = \"2\"\n",
	    "t.conf:2: macro \"a\": already defined at t.conf:1" },
	{ "user = \"x\"\n", "t.conf:1: macro \"user\": name is a keyword" },
	{ "1a = \"x\"\n",
	    "t.conf:1: macro \"1a\": name must start with a letter or '_'" },
	{ "a =\n", "t.conf:1: macro \"a\": missing value" },
	{ "a = \"1\" \"2\"\n",
	    "t.conf:1: macro \"a\": unexpected \"2\" after the value" },
	{ "profile \"p\" {\n\tx = \"1\"\n}\n", "t.conf:2: macro \"x\": "
	    "macros are defined outside profile blocks" },
	{ "k = \"socket\"\n$k \"/x\"\n",
	    "t.conf:2: expected a keyword, got \"socket\"" },

	/* socket, socket-mode, socket-group, user, allow */
	{ "socket \"run/sbx.sock\"\n",
	    "t.conf:1: socket: \"run/sbx.sock\" is not an absolute path" },
	{ "socket \"/run/../x.sock\"\n", "t.conf:1: socket: "
	    "\"/run/../x.sock\" contains a \".\" or \"..\" component" },
	{ "socket \"/run//x.sock\"\n", "t.conf:1: socket: \"/run//x.sock\" "
	    "contains an empty component (\"//\")" },
	{ "socket-mode 0777\n", "t.conf:1: socket-mode: \"0777\" lets every "
	    "local user write to the socket (use socket-group and allow "
	    "rules)" },
	{ "socket-mode 0888\n", "t.conf:1: socket-mode: \"0888\" is not an "
	    "octal mode (up to 4 digits 0-7)" },
	{ "socket-mode 4660\n", "t.conf:1: socket-mode: \"4660\" sets bits "
	    "beyond 0777 (setuid, setgid, sticky)" },
	{ "socket-group \"sb x\"\n", "t.conf:1: socket-group: name \"sb x\" "
	    "may contain only letters, digits, '.', '_', '-' (and a final "
	    "'$')" },
	{ "socket-group 9grp\n",
	    "t.conf:1: socket-group: \"9grp\" is not a number" },
	{ "user \"\"\n",
	    "t.conf:1: user: name \"\" must be 1 to 32 characters" },
	{ "user 4294967295\n", "t.conf:1: user: \"4294967295\" is too large "
	    "(0..4294967294)" },
	{ "allow foo 3\n",
	    "t.conf:1: allow: expected uid or gid, got \"foo\"" },
	{ "allow uid\n", "t.conf:1: allow: missing name or number" },
	{ "allow uid -1\n", "t.conf:1: allow: \"-1\" is not a number" },
	{ "allow gid \"a:b\"\n", "t.conf:1: allow: name \"a:b\" may contain "
	    "only letters, digits, '.', '_', '-' (and a final '$')" },
	{ "allow uid 1000\nallow uid 1000\n",
	    "t.conf:2: allow: uid \"1000\" is already allowed" },

	/* limits */
	{ "max-sandboxes 0\n",
	    "t.conf:1: max-sandboxes: \"0\" is too small (1..4096)" },
	{ "max-sandboxes 10x\n",
	    "t.conf:1: max-sandboxes: \"10x\" is not a number" },
	{ "max-sandboxes-per-peer 5000\n", "t.conf:1: max-sandboxes-per-peer: "
	    "\"5000\" is too large (1..4096)" },
	{ "max-sandboxes 8\nmax-sandboxes-per-peer 9\n", "t.conf:2: "
	    "max-sandboxes-per-peer: 9 exceeds max-sandboxes 8" },
	{ "max-connections 70000\n", "t.conf:1: max-connections: \"70000\" "
	    "is too large (1..65536)" },
	{ "max-connections-per-peer 0\n", "t.conf:1: "
	    "max-connections-per-peer: \"0\" is too small (1..65536)" },
	{ "max-connections-per-peer 8\nmax-connections 4\n", "t.conf:1: "
	    "max-connections-per-peer: 8 exceeds max-connections 4" },
	{ "client-queue-max 1K\n", "t.conf:1: client-queue-max: \"1K\" is "
	    "too small (64K..64M)" },
	{ "client-queue-max 1G\n", "t.conf:1: client-queue-max: \"1G\" is "
	    "too large (64K..64M)" },
	{ "client-requests-max 0\n", "t.conf:1: client-requests-max: \"0\" "
	    "is too small (1..4096)" },
	{ "client-fds-max 20000\n", "t.conf:1: client-fds-max: \"20000\" "
	    "is too large (1..16384)" },
	{ "peer-fds-max 0\n", "t.conf:1: peer-fds-max: \"0\" is too small "
	    "(1..65536)" },
	{ "client-requests-max 64\npeer-requests-max 8\n", "t.conf:1: "
	    "client-requests-max: 64 exceeds peer-requests-max 8" },
	{ "peer-fds-max 100\nclient-fds-max 200\n", "t.conf:2: "
	    "client-fds-max: 200 exceeds peer-fds-max 100" },
	{ "sandbox-uid-range 0 100\n", "t.conf:1: sandbox-uid-range: \"0\" "
	    "is too small (1..4294967294)" },
	{ "sandbox-uid-range 4294967290 100\n", "t.conf:1: "
	    "sandbox-uid-range: 100 ids from 4294967290 run past the last id "
	    "4294967294" },
	{ "sandbox-uid-range 100000\n",
	    "t.conf:1: sandbox-uid-range: missing count" },
	{ "sandbox-uid-range 100000 10\n", "t.conf:1: sandbox-uid-range: 10 "
	    "ids cannot give each of max-sandboxes 64 sandboxes its own id" },
	{ "allow uid 100005\nsandbox-uid-range 100000 65536\n", "t.conf:2: "
	    "sandbox-uid-range: 100000-165535 contains allowed uid 100005: "
	    "sandboxed processes would run as it" },
	{ "user 100000\nsandbox-uid-range 100000 64\n", "t.conf:2: "
	    "sandbox-uid-range: 100000-100063 contains the user 100000: "
	    "sandboxed processes would run as it" },

	/* log and providers */
	{ "log-file \"audit.jsonl\"\n",
	    "t.conf:1: log-file: \"audit.jsonl\" is not an absolute path" },
	{ "log-file \"/var/log/\"\n",
	    "t.conf:1: log-file: \"/var/log/\" ends with '/'" },
	{ "log-file \"/\"\n",
	    "t.conf:1: log-file: \"/\" is the root directory" },
	{ "bundle-providers maybe\n",
	    "t.conf:1: bundle-providers: \"maybe\" is not yes or no" },
	{ "provider-allowlist \"etc/p.json\"\n", "t.conf:1: "
	    "provider-allowlist: \"etc/p.json\" is not an absolute path" },
	{ "provider-runtime \"node\"\n",
	    "t.conf:1: provider-runtime: \"node\" is not an absolute path" },
	{ "provider-pool 65\n",
	    "t.conf:1: provider-pool: \"65\" is too large (0..64)" },
	{ "warm-idle 0\n",
	    "t.conf:1: warm-idle: \"0\" is too small (1..3600)" },
	{ "warm 2\n",
	    "t.conf:1: warm: allowed only inside a profile block" },
	{ "profile \"p\" {\n\twarm 9\n}\n",
	    "t.conf:2: warm: \"9\" is too large (0..8)" },
	{ "provider-timeout 0\n",
	    "t.conf:1: provider-timeout: \"0\" is too small (1..600000)" },
	{ "provider-max-output 100\n", "t.conf:1: provider-max-output: "
	    "\"100\" is too small (2K..64M)" },
	{ "provider-max-output 1T\n", "t.conf:1: provider-max-output: \"1T\" "
	    "is not a size (a number with an optional K, M or G suffix)" },
	{ "provider-max-output 1MB\n", "t.conf:1: provider-max-output: "
	    "\"1MB\" is not a size (a number with an optional K, M or G "
	    "suffix)" },
	{ "provider-max-records 0\n", "t.conf:1: provider-max-records: \"0\" "
	    "is too small (1..10000000)" },
	{ "providers-per-peer 0\n", "t.conf:1: providers-per-peer: \"0\" "
	    "is too small (1..4096)" },
	{ "max-providers 5000\n", "t.conf:1: max-providers: \"5000\" "
	    "is too large (1..4096)" },
	{ "max-providers 8\nproviders-per-peer 9\n", "t.conf:2: "
	    "providers-per-peer: 9 exceeds max-providers 8" },
	{ "provider-idle-timeout -1\n", "t.conf:1: provider-idle-timeout: "
	    "\"-1\" is not a number" },
	{ "provider-idle-timeout 31536001\n", "t.conf:1: "
	    "provider-idle-timeout: \"31536001\" is too large (0..31536000)" },

	/* profile keywords */
	{ "profile \"p\" {\n\tnetwork maybe\n}\n",
	    "t.conf:2: network: \"maybe\" is not none or proxy" },
	{ "profile \"p\" {\n\tidentity user\n}\n",
	    "t.conf:2: identity: \"user\" is not caller, service or range" },
	{ "profile \"p\" {\n\tnetwork none\n\tnetwork proxy\n}\n",
	    "t.conf:3: network: duplicate keyword (first given at t.conf:2)" },
	{ "profile \"p\" {\n\tro \"usr\"\n}\n",
	    "t.conf:2: ro: \"usr\" is not an absolute path" },
	{ "profile \"p\" {\n\tro \"/proc/sys\"\n}\n", "t.conf:2: ro: "
	    "\"/proc/sys\" is under /proc or /dev, which the sandbox builds "
	    "itself" },
	{ "profile \"p\" {\n\trw \"/dev\"\n}\n", "t.conf:2: rw: \"/dev\" is "
	    "under /proc or /dev, which the sandbox builds itself" },
	{ "profile \"p\" {\n\trw \"/\"\n}\n",
	    "t.conf:2: rw: \"/\" is the root directory" },
	{ "profile \"p\" {\n\tro \"/usr\"\n\tro \"/usr\"\n}\n", "t.conf:3: ro: "
	    "\"/usr\" is already a mount point in this profile" },
	{ "profile \"p\" {\n\ttmpfs \"/tmp\" size 1K\n}\n",
	    "t.conf:2: tmpfs: \"1K\" is too small (4K..1024G)" },
	{ "profile \"p\" {\n\ttmpfs \"/tmp\" size\n}\n",
	    "t.conf:2: tmpfs: missing size" },
	{ "profile \"p\" {\n\ttmpfs \"/tmp\" bytes 4M\n}\n",
	    "t.conf:2: tmpfs: unexpected \"bytes\" after the value" },
	{ "profile \"p\" {\n\ttmpfs-root 16M\n}\n",
	    "t.conf:2: tmpfs-root: expected \"size\", got \"16M\"" },
	{ "profile \"p\" {\n\ttmpfs-root size 512K\n}\n",
	    "t.conf:2: tmpfs-root: \"512K\" is too small (1M..1024G)" },
	{ "profile \"p\" {\n\tworkdir \"work\"\n}\n",
	    "t.conf:2: workdir: \"work\" is not an absolute path" },
	{ "profile \"p\" {\n\ttmpfs \"/tmp\"\n\tworkdir \"/tmp\"\n}\n",
	    "t.conf:3: workdir: \"/tmp\" is also a mount point in profile "
	    "\"p\"" },
	{ "profile \"p\" {\n\trw \"/work\"\n}\n", "t.conf:1: profile \"p\": "
	    "the default workdir \"/work\" is also a mount point; set "
	    "workdir" },
	{ "profile \"p\" {\n\tenv\n}\n",
	    "t.conf:2: env: missing variable name" },
	{ "profile \"p\" {\n\tenv \"A-B\"\n}\n", "t.conf:2: env: \"A-B\" may "
	    "contain only letters, digits and '_'" },
	{ "profile \"p\" {\n\tenv \"LANG\" \"LANG\"\n}\n",
	    "t.conf:2: env: \"LANG\" is already listed" },
	{ "profile \"p\" {\n\ttimeout 0\n}\n",
	    "t.conf:2: timeout: \"0\" is too small (1..604800)" },
	{ "profile \"p\" {\n\ttimeout 1h\n}\n",
	    "t.conf:2: timeout: \"1h\" is not a number" },
	{ "profile \"p\" {\n\tmemory 512K\n}\n",
	    "t.conf:2: memory: \"512K\" is too small (1M..1024G)" },
	{ "profile \"p\" {\n\tmemory lots\n}\n", "t.conf:2: memory: \"lots\" "
	    "is not a size (a number with an optional K, M or G suffix)" },
	{ "profile \"p\" {\n\tpids 40000\n}\n",
	    "t.conf:2: pids: \"40000\" is too large (1..32768)" },
	{ "profile \"p\" {\n\tnofile 8\n}\n",
	    "t.conf:2: nofile: \"8\" is too small (16..1048576)" },
	{ "profile \"p\" {\n\tproxy-connections 0\n}\n",
	    "t.conf:2: proxy-connections: \"0\" is too small (1..1024)" },
	{ "profile \"p\" {\n\tproxy-connections 1025\n}\n",
	    "t.conf:2: proxy-connections: \"1025\" is too large (1..1024)" },
	{ "profile \"p\" {\n\tfsize 2048G\n}\n",
	    "t.conf:2: fsize: \"2048G\" is too large (0..1024G)" },
	{ "profile \"p\" {\n\tdev-shm on\n}\n",
	    "t.conf:2: dev-shm: \"on\" is not yes or no" },
	{ "profile \"p\" {\n\tloopback off\n}\n",
	    "t.conf:2: loopback: \"off\" is not yes or no" },
	{ "profile \"p\" {\n\tloopback no\n\tloopback yes\n}\n",
	    "t.conf:3: loopback: duplicate keyword (first given at t.conf:2)" },
	{ "loopback no\n",
	    "t.conf:1: loopback: allowed only inside a profile block" },
	{ "profile \"p\" {\n\tcpu-time 0\n}\n",
	    "t.conf:2: cpu-time: \"0\" is too small (1..604800)" },
	{ "profile \"p\" {\n\tcpu-time 2.5\n}\n",
	    "t.conf:2: cpu-time: \"2.5\" is not a number" },
	{ "profile \"p\" {\n\tcpus 0.001\n}\n",
	    "t.conf:2: cpus: \"0.001\" is outside 0.01..1024" },
	{ "profile \"p\" {\n\tcpus 2000\n}\n",
	    "t.conf:2: cpus: \"2000\" is outside 0.01..1024" },
	{ "profile \"p\" {\n\tcpus 0.5005\n}\n",
	    "t.conf:2: cpus: \"0.5005\" is not a number of cpus (N or N.N, at "
	    "most three decimals)" },
	{ "profile \"p\" {\n\toutput 0\n}\n",
	    "t.conf:2: output: \"0\" is too small (1..1024G)" },
	{ "output 1M\n",
	    "t.conf:1: output: allowed only inside a profile block" },
	{ "profile \"p\" {\n\tcpus half\n}\n",
	    "t.conf:2: cpus: \"half\" is not a number of cpus (N or N.N, at "
	    "most three decimals)" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tallow-domain \"exa mple.org\"\n"
	    "}\n", "t.conf:3: allow-domain: \"exa mple.org\" may contain only "
	    "letters, digits, '-' and '.'" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tallow-domain \"a.org:0\"\n}\n",
	    "t.conf:3: allow-domain: \"a.org:0\" has a port outside 1..65535" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tallow-domain \"a.org:http\"\n"
	    "}\n", "t.conf:3: allow-domain: \"a.org:http\" has a port that is "
	    "not a number" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tallow-domain \"*.com.\"\n}\n",
	    "t.conf:3: allow-domain: \"*.com.\" has an empty label (leading, "
	    "trailing or double '.')" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tallow-domain \"a.*.com\"\n}\n",
	    "t.conf:3: allow-domain: \"a.*.com\" has a '*' other than a "
	    "leading \"*.\"" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tallow-domain \"-a.org\"\n}\n",
	    "t.conf:3: allow-domain: \"-a.org\" has a label that starts or "
	    "ends with '-'" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tallow-domain \"10.0.0.1\"\n}\n",
	    "t.conf:3: allow-domain: \"10.0.0.1\" is an address, not a name "
	    "(use allow-cidr)" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tdeny-domain \"\"\n}\n",
	    "t.conf:3: deny-domain: \"\" has no host name" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tdeny-domain \"a.org\"\n"
	    "\tdeny-domain \"A.org\"\n}\n",
	    "t.conf:4: deny-domain: \"A.org\" is already listed" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tallow-cidr \"10.0.0.0/33\"\n}\n",
	    "t.conf:3: allow-cidr: \"10.0.0.0/33\" has a prefix length outside "
	    "0..32" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tallow-cidr \"::1/129\"\n}\n",
	    "t.conf:3: allow-cidr: \"::1/129\" has a prefix length outside "
	    "0..128" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tallow-cidr \"300.1.1.1/32\"\n"
	    "}\n", "t.conf:3: allow-cidr: \"300.1.1.1/32\" is not an IPv4 "
	    "address (dotted quad)" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tallow-cidr \"10.0.0.1/8\"\n}\n",
	    "t.conf:3: allow-cidr: \"10.0.0.1/8\" has host bits set beyond the "
	    "prefix length" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tallow-cidr \"fe80::zz/64\"\n"
	    "}\n", "t.conf:3: allow-cidr: \"fe80::zz/64\" is not an IPv6 "
	    "address" },
	{ "profile \"p\" {\n\tnetwork proxy\n\tallow-cidr \"10.0.0.0/\"\n}\n",
	    "t.conf:3: allow-cidr: \"10.0.0.0/\" has a prefix length that is "
	    "not a number" },
	{ "profile \"p\" {\n\tallow-domain \"a.org\"\n}\n",
	    "t.conf:2: allow-domain: profile \"p\" has network none; domain "
	    "and address rules need network proxy" },

	/* identity service is never the service user, nor root */
	{ "sandbox-user \"_sbx\"\n", "t.conf:1: sandbox-user \"_sbx\" is the "
	    "service user (user \"_sbx\"): sandboxes would run as the user "
	    "that owns the socket, the roles and their namespaces; name a "
	    "user of their own" },
	{ "user 70000\nsandbox-user 70000\n", "t.conf:2: sandbox-user 70000 "
	    "is the service user (user 70000): sandboxes would run as the user "
	    "that owns the socket, the roles and their namespaces; name a user "
	    "of their own" },
	{ "sandbox-user 0\n", "t.conf:1: sandbox-user 0: sandboxes never run "
	    "as host root" },

	/* monitor files a sandbox must not see */
	{ "profile \"p\" {\n\trw \"/run\"\n}\n", "t.conf:1: profile \"p\": rw "
	    "\"/run\" exposes the socket file to its sandboxes" },
	{ "log-file \"/usr/local/audit.jsonl\"\n", "t.conf:1: log-file: the "
	    "built-in profile \"default\" binds \"/usr\", which would expose "
	    "it to sandboxes" },
	{ "provider-allowlist \"/srv/p.json\"\nprofile \"p\" {\n\trw \"/srv\"\n"
	    "}\n", "t.conf:2: profile \"p\": rw \"/srv\" exposes the "
	    "provider-allowlist file to its sandboxes" },

	/* issue 22: ptrace, home, per-caller, optional, workdir same */
	{ "profile \"p\" {\n\tptrace maybe\n}\n",
	    "t.conf:2: ptrace: \"maybe\" is not yes or no" },
	{ "profile \"p\" {\n\thome \"home\"\n}\n",
	    "t.conf:2: home: \"home\" is not an absolute path" },
	{ "profile \"p\" {\n\tro \"/usr\" per-caller\n}\n",
	    "t.conf:2: ro: unexpected \"per-caller\" after the value" },
	{ "profile \"p\" {\n\trw \"/x\" optional\n}\n",
	    "t.conf:2: rw: unexpected \"optional\" after the value" },
	{ "profile \"p\" {\n\tworkdir same\n\tworkdir \"/w\"\n}\n",
	    "t.conf:3: workdir: duplicate keyword (first given at t.conf:2)" },
};

ATF_TC(bad_snippets);
ATF_TC_HEAD(bad_snippets, tc)
{
	atf_tc_set_md_var(tc, "descr", "every bad snippet is refused with "
	    "its expected file:line: reason");
}
ATF_TC_BODY(bad_snippets, tc)
{
	struct sbx_conf	*conf;
	struct errs	 e;
	size_t		 i;

	ATF_REQUIRE(nitems(bad) >= 40);
	for (i = 0; i < nitems(bad); i++) {
		conf = parse_text(bad[i].text, &e);
		ATF_CHECK_MSG(conf == NULL, "case %zu accepted: %s", i,
		    bad[i].text);
		conf_free(conf);
		ATF_CHECK_MSG(strcmp(e.first, bad[i].error) == 0,
		    "case %zu: got \"%s\", want \"%s\"", i, e.first,
		    bad[i].error);
	}
}

ATF_TC_WITHOUT_HEAD(socket_too_long);
ATF_TC_BODY(socket_too_long, tc)
{
	char		 path[200], text[300], want[400];
	struct errs	 e;

	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[108] = '\0';		/* 108 bytes: no room for the NUL */
	snprintf(text, sizeof(text), "socket \"%s\"\n", path);
	ATF_CHECK(parse_text(text, &e) == NULL);
	snprintf(want, sizeof(want), "t.conf:1: socket: \"%.64s...\" does "
	    "not fit a unix socket address (max 107 bytes)", path);
	ATF_CHECK_STREQ(e.first, want);
	path[107] = '\0';
	snprintf(text, sizeof(text), "socket \"%s\"\n", path);
	conf_free(parse_ok(text));
}

ATF_TC_WITHOUT_HEAD(all_errors_reported);
ATF_TC_BODY(all_errors_reported, tc)
{
	struct errs	 e;

	ATF_CHECK(parse_text("bogus 1\nsocket-mode 9\nprofile \"p\" {\n"
	    "\tpids 0\n\tbogus\n}\nmax-sandboxes 0\n", &e) == NULL);
	ATF_CHECK_EQ(e.n, 5);
	ATF_CHECK_STREQ(e.buf,
	    "t.conf:1: unknown keyword \"bogus\"\n"
	    "t.conf:2: socket-mode: \"9\" is not an octal mode (up to 4 "
	    "digits 0-7)\n"
	    "t.conf:4: pids: \"0\" is too small (1..32768)\n"
	    "t.conf:5: unknown keyword \"bogus\"\n"
	    "t.conf:7: max-sandboxes: \"0\" is too small (1..4096)\n");
}

ATF_TC_WITHOUT_HEAD(error_cap);
ATF_TC_BODY(error_cap, tc)
{
	char		 text[4096];
	struct errs	 e;
	int		 i;

	text[0] = '\0';
	for (i = 0; i < 100; i++)
		strlcat(text, "bogus\n", sizeof(text));
	ATF_CHECK(parse_text(text, &e) == NULL);
	ATF_CHECK_EQ(e.n, SBX_CONF_MAXERRORS + 1);
	ATF_CHECK(strstr(e.buf, "t.conf: too many errors (64), giving up\n")
	    != NULL);
}

/* sbx-proxy holds at most PROXY_RULES_MAX rules of a kind per sandbox. */
ATF_TC_WITHOUT_HEAD(proxy_rule_cap);
ATF_TC_BODY(proxy_rule_cap, tc)
{
	static char	 text[8192], full[8192 + 64];
	char		 line[64];
	struct errs	 e;
	struct sbx_conf	*conf;
	int		 i;

	strlcpy(text, "profile \"p\" {\n\tnetwork proxy\n", sizeof(text));
	for (i = 0; i < PROXY_RULES_MAX; i++) {
		snprintf(line, sizeof(line), "\tallow-domain \"h%d.example\"\n",
		    i);
		strlcat(text, line, sizeof(text));
	}
	snprintf(full, sizeof(full), "%s}\n", text);
	ATF_REQUIRE((conf = parse_ok(full)) != NULL);
	conf_free(conf);
	snprintf(full, sizeof(full), "%s\tallow-domain \"one-more.example\"\n"
	    "}\n", text);
	ATF_CHECK(parse_text(full, &e) == NULL);
	ATF_CHECK_MSG(strstr(e.buf, "allow-domain: too many rules (max 128 "
	    "per profile, what sbx-proxy holds)") != NULL, "%s", e.buf);
}

ATF_TC_WITHOUT_HEAD(hostile_values_escaped);
ATF_TC_BODY(hostile_values_escaped, tc)
{
	struct errs	 e;

	/* A quoted value with a high byte and an escape character must
	 * reach the log encoded, never raw. */
	ATF_CHECK(parse_text("log-file \"x\033[31m\xff\"\n", &e) == NULL);
	ATF_CHECK_STREQ(e.first,
	    "t.conf:1: invalid character 0x1b in quoted string");
	ATF_CHECK(parse_text("log-file \"rel\xff\\\"\"\n", &e) == NULL);
	ATF_CHECK_STREQ(e.first, "t.conf:1: log-file: \"rel\\377\\\"\" is not "
	    "an absolute path");
}

ATF_TC_WITHOUT_HEAD(nul_byte);
ATF_TC_BODY(nul_byte, tc)
{
	static const char	 text[] = "socket \"/a\0b\"\n";
	struct errs		 e;
	int			 fd;

	fd = open("t.conf", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ATF_REQUIRE(fd != -1);
	ATF_REQUIRE(write(fd, text, sizeof(text) - 1) ==
	    (ssize_t)sizeof(text) - 1);
	close(fd);
	memset(&e, 0, sizeof(e));
	ATF_CHECK(conf_parse_cb("t.conf", collect, &e) == NULL);
	ATF_CHECK_STREQ(e.first,
	    "t.conf:1: invalid character 0x00 in quoted string");
}

/* ---- files and includes ----------------------------------------------- */

ATF_TC_WITHOUT_HEAD(missing_file);
ATF_TC_BODY(missing_file, tc)
{
	struct errs	 e;

	memset(&e, 0, sizeof(e));
	ATF_CHECK(conf_parse_cb("nonexistent.conf", collect, &e) == NULL);
	ATF_CHECK_STREQ(e.first,
	    "nonexistent.conf: No such file or directory");
	ATF_REQUIRE(mkdir("dir.conf", 0755) == 0);
	memset(&e, 0, sizeof(e));
	ATF_CHECK(conf_parse_cb("dir.conf", collect, &e) == NULL);
	ATF_CHECK_STREQ(e.first, "dir.conf: not a regular file");
}

ATF_TC_WITHOUT_HEAD(file_secrecy);
ATF_TC_BODY(file_secrecy, tc)
{
	struct errs	 e;

	write_file("gw.conf", "max-sandboxes 4\n", 0664);
	memset(&e, 0, sizeof(e));
	ATF_CHECK(conf_parse_cb("gw.conf", collect, &e) == NULL);
	ATF_CHECK_STREQ(e.first, "gw.conf: writable by group or others");
	write_file("ow.conf", "max-sandboxes 4\n", 0646);
	memset(&e, 0, sizeof(e));
	ATF_CHECK(conf_parse_cb("ow.conf", collect, &e) == NULL);
	ATF_CHECK_STREQ(e.first, "ow.conf: writable by group or others");
	write_file("ok.conf", "max-sandboxes 4\n", 0640);
	memset(&e, 0, sizeof(e));
	conf_free(conf_parse_cb("ok.conf", collect, &e));
	ATF_CHECK_EQ(e.n, 0);
}

ATF_TC_WITHOUT_HEAD(include_relative);
ATF_TC_BODY(include_relative, tc)
{
	struct sbx_conf			*conf;
	struct errs			 e;
	const struct conf_profile	*prof;

	ATF_REQUIRE(mkdir("etc", 0755) == 0);
	ATF_REQUIRE(mkdir("etc/sub", 0755) == 0);
	write_file("etc/main.conf", "dir = \"/srv\"\ninclude \"sub/a.conf\"\n"
	    "max-sandboxes 32\n", 0644);
	/* a.conf names b.conf relative to its own directory, etc/sub */
	write_file("etc/sub/a.conf", "profile \"inc\" {\n\tro $dir\n}\n"
	    "include \"b.conf\"", 0644);
	write_file("etc/sub/b.conf", "log-file $dir.d/audit.jsonl\n", 0644);
	memset(&e, 0, sizeof(e));
	conf = conf_parse_cb("etc/main.conf", collect, &e);
	ATF_REQUIRE_MSG(conf != NULL, "%s", flat(e.buf));
	ATF_CHECK_EQ(conf->max_sandboxes, 32);
	ATF_CHECK_STREQ(conf->log_file, "/srv.d/audit.jsonl");
	ATF_REQUIRE((prof = conf_profile(conf, "inc")) != NULL);
	ATF_CHECK_STREQ(mount_at(prof, 0)->path, "/srv");
	check_roundtrip(conf);
	conf_free(conf);
}

ATF_TC_WITHOUT_HEAD(include_errors);
ATF_TC_BODY(include_errors, tc)
{
	struct errs	 e;
	char		 name[32], text[64];
	int		 i;

	ATF_CHECK(parse_text("include \"missing.conf\"\n", &e) == NULL);
	ATF_CHECK_STREQ(e.first, "t.conf:1: include \"missing.conf\": No such "
	    "file or directory");

	ATF_CHECK(parse_text("max-sandboxes 4\ninclude \"t.conf\"\n", &e) ==
	    NULL);
	ATF_CHECK_STREQ(e.first, "t.conf:2: include \"t.conf\": include "
	    "cycle, the file is already being read");

	write_file("c1.conf", "include \"c2.conf\"\n", 0644);
	write_file("c2.conf", "include \"c1.conf\"\n", 0644);
	ATF_CHECK(parse_text("include \"c1.conf\"\n", &e) == NULL);
	ATF_CHECK_STREQ(e.first, "c2.conf:1: include \"c1.conf\": include "
	    "cycle, the file is already being read");

	ATF_REQUIRE(mkdir("d.conf", 0755) == 0);
	ATF_CHECK(parse_text("include \"d.conf\"\n", &e) == NULL);
	ATF_CHECK_STREQ(e.first,
	    "t.conf:1: include \"d.conf\": not a regular file");

	write_file("gw.conf", "max-sandboxes 4\n", 0620);
	ATF_CHECK(parse_text("include \"gw.conf\"\n", &e) == NULL);
	ATF_CHECK_STREQ(e.first,
	    "t.conf:1: include \"gw.conf\": writable by group or others");

	ATF_CHECK(parse_text("include \"\xe9.conf\"\n", &e) == NULL);
	ATF_CHECK_STREQ(e.first,
	    "t.conf:1: include: \"\\351.conf\" is not printable ASCII");

	ATF_CHECK(parse_text("include\n", &e) == NULL);
	ATF_CHECK_STREQ(e.first, "t.conf:1: include: missing file name");

	/* An error inside an included file names that file; the including
	 * file goes on being checked. */
	write_file("e.conf", "\nmax-sandboxes 0\n", 0644);
	ATF_CHECK(parse_text("include \"e.conf\"\nbogus\n", &e) == NULL);
	ATF_CHECK_STREQ(e.buf, "e.conf:2: max-sandboxes: \"0\" is too small "
	    "(1..4096)\nt.conf:2: unknown keyword \"bogus\"\n");

	/* A block opened in an included file must close there. */
	write_file("open.conf", "profile \"o\" {\n", 0644);
	ATF_CHECK(parse_text("include \"open.conf\"\n}\n", &e) == NULL);
	ATF_CHECK_STREQ(e.first, "open.conf:1: profile \"o\": block is not "
	    "closed (missing '}')");

	/* n0 includes n1 ... n9: depth 9 is one too many. */
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "n%d.conf", i);
		snprintf(text, sizeof(text), "include \"n%d.conf\"\n", i + 1);
		write_file(name, i == 9 ? "max-sandboxes 4\n" : text, 0644);
	}
	ATF_CHECK(parse_text("include \"n0.conf\"\n", &e) == NULL);
	ATF_CHECK_STREQ(e.first, "n7.conf:1: include \"n8.conf\": nested more "
	    "than 8 levels deep");
	/* n2 ... n9 under t.conf: exactly 8 levels, allowed. */
	conf_free(parse_text("include \"n2.conf\"\n", &e));
	ATF_CHECK_MSG(e.n == 0, "%s", flat(e.buf));
}

/* ---- good configurations ---------------------------------------------- */

ATF_TC_WITHOUT_HEAD(defaults);
ATF_TC_BODY(defaults, tc)
{
	struct sbx_conf			*conf;
	const struct conf_profile	*prof;

	conf = parse_ok("# nothing but a comment\n\n");
	ATF_CHECK_STREQ(conf->socket, "/run/sbx/sbx.sock");
	ATF_CHECK_EQ(conf->socket_mode, 0660);
	ATF_CHECK_EQ(conf->socket_group.set, 0);
	ATF_CHECK_STREQ(conf->user.name, "_sbx");
	ATF_CHECK_STREQ(conf->sandbox_user.name, "_sbxsandbox");
	ATF_CHECK_EQ(conf->sandbox_user_uid, 0);
	ATF_CHECK_EQ(conf->sandbox_user_gid, 0);
	ATF_CHECK(TAILQ_EMPTY(&conf->allows));
	ATF_CHECK_EQ(conf->max_sandboxes, 64);
	ATF_CHECK_EQ(conf->max_sandboxes_per_peer, 16);
	ATF_CHECK_EQ(conf->max_connections, 128);
	ATF_CHECK_EQ(conf->max_connections_per_peer, 16);
	ATF_CHECK_EQ(conf->client_queue_max, 1024 * 1024);
	ATF_CHECK_EQ(conf->client_requests_max, 64);
	ATF_CHECK_EQ(conf->client_fds_max, 256);
	ATF_CHECK_EQ(conf->peer_requests_max, 256);
	ATF_CHECK_EQ(conf->peer_fds_max, 1024);
	ATF_CHECK(conf->log_file == NULL);
	ATF_CHECK_EQ(conf->bundle_providers, 0);
	ATF_CHECK_STREQ(conf->provider_allowlist,
	    SBX_SYSCONFDIR "/sbx/providers.json");
	ATF_CHECK_STREQ(conf->provider_runtime, "/usr/bin/node");
	ATF_CHECK_EQ(conf->provider_pool, 0);
	ATF_CHECK_EQ(conf->warm_idle, 60);
	ATF_CHECK_EQ(conf->provider_timeout, 5000);
	ATF_CHECK_EQ(conf->provider_max_output, 1048576);
	ATF_CHECK_EQ(conf->provider_max_records, 50000);
	ATF_CHECK_EQ(conf->providers_per_peer, 16);
	ATF_CHECK_EQ(conf->max_providers, 256);
	ATF_CHECK_EQ(conf->provider_idle_timeout, 0);
	ATF_CHECK_EQ(conf->uid_range_set, 0);
	ATF_CHECK_EQ(conf->nprofiles, 1);

	ATF_REQUIRE((prof = conf_profile(conf, "default")) != NULL);
	ATF_CHECK(prof == TAILQ_FIRST(&conf->profiles));
	ATF_CHECK_EQ(prof->network, CONF_NET_NONE);
	check_builtin_mounts(prof);
	ATF_CHECK_EQ(prof->timeout, 600);
	ATF_CHECK_EQ(prof->memory, 1ULL << 30);
	ATF_CHECK_EQ(prof->pids, 256);
	ATF_CHECK_EQ(prof->nofile, 1024);
	ATF_CHECK_EQ(prof->fsize, 1ULL << 30);
	/* No CPU limit unless the profile names one. */
	ATF_CHECK_EQ(prof->cpu_time, 0);
	ATF_CHECK_EQ(prof->cpus_milli, 0);
	ATF_CHECK_EQ(prof->output, 0);		/* no output limit either */
	ATF_CHECK_EQ(prof->warm, 0);		/* every run cold */
	ATF_CHECK_EQ(prof->proxy_conns, PROXY_SANDBOX_CONNS);
	/* /dev/shm and the sandbox's own loopback unless a profile says
	 * no: everyday tools (multiprocessing, test servers) need them. */
	ATF_CHECK_EQ(prof->dev_shm, 1);
	ATF_CHECK_EQ(prof->loopback, 1);
	ATF_CHECK_EQ(prof->tmpfs_root, 16ULL << 20);
	ATF_CHECK_STREQ(prof->workdir, "/work");
	/* The built-in profile passes exactly LANG and TERM. */
	ATF_REQUIRE(!TAILQ_EMPTY(&prof->env));
	ATF_CHECK_STREQ(TAILQ_FIRST(&prof->env)->name, "LANG");
	ATF_REQUIRE(TAILQ_NEXT(TAILQ_FIRST(&prof->env), entry) != NULL);
	ATF_CHECK_STREQ(TAILQ_NEXT(TAILQ_FIRST(&prof->env), entry)->name,
	    "TERM");
	ATF_CHECK(TAILQ_NEXT(TAILQ_NEXT(TAILQ_FIRST(&prof->env), entry),
	    entry) == NULL);
	ATF_CHECK(TAILQ_EMPTY(&prof->allow_domains));
	ATF_CHECK(TAILQ_EMPTY(&prof->deny_domains));
	ATF_CHECK(TAILQ_EMPTY(&prof->allow_cidrs));
	ATF_CHECK(conf_profile(conf, "nonexistent") == NULL);
	check_roundtrip(conf);
	conf_free(conf);
}

static const char full[] =
    "# every keyword, none at its default\n"
    "base = \"/srv/sbx\"\n"
    "grp = sbx\n"
    "socket $base/ctl.sock\n"
    "socket-mode 660\n"
    "socket-group $grp\n"
    "user 990\n"
    "allow uid 1000\n"
    "allow uid \"alice\"\n"
    "allow gid 27\n"
    "allow gid $grp\n"
    "max-sandboxes 100\n"
    "max-sandboxes-per-peer 10\n"
    "max-connections 200\n"
    "max-connections-per-peer 20\n"
    "sandbox-uid-range 200000 1000\n"
    "log-file \"/var/log/sbx/audit.jsonl\"\n"
    "bundle-providers yes\n"
    "provider-allowlist \"/etc/sbx/$base.json\"\n"
    "provider-runtime /opt/node/bin/node\n"
    "provider-pool 4\n"
    "provider-timeout 2500\n"
    "provider-max-output 512k\n"
    "provider-max-records 1000\n"
    "providers-per-peer 4\n"
    "max-providers 64\n"
    "provider-idle-timeout 3600\n"
    "warm-idle 30\n"
    "profile \"default\"\n"
    "{\n"
    "\tnetwork proxy\n"
    "\tro \"/usr\"\n"
    "\trw \"/var/cache/x\"\n"
    "\ttmpfs \"/tmp\" size 128m\n"
    "\ttmpfs \"/scratch\"\n"
    "\ttmpfs-root size 8M\n"
    "\tworkdir \"/src\"\n"
    "\tenv \"LANG\" TERM\n"
    "\tenv \"HOME\"\n"
    "\ttimeout 30\n"
    "\tmemory 2g\n"
    "\tpids 64\n"
    "\tnofile 256\n"
    "\tfsize 0\n"
    "\tdev-shm yes\n"
    "\tallow-domain \"*.EXAMPLE.com:443\"\n"
    "\tallow-domain example.org\n"
    "\tdeny-domain \"private.example.com\"\n"
    "\tallow-cidr \"127.0.0.1\"\n"
    "\tallow-cidr \"2001:DB8::/32\"\n"
    "\tproxy-connections 200\n"
    "\tloopback no\n"
    "\tcpu-time 90\n"
    "\tcpus 1.25\n"
    "\toutput 64M\n"
    "\twarm 3\n"
    "}\n"
    "profile \"bare\" { network none }\n"
    "profile fetch.v2 { network proxy; }\n";

ATF_TC_WITHOUT_HEAD(every_field);
ATF_TC_BODY(every_field, tc)
{
	struct sbx_conf			*conf;
	struct errs			 e;
	const struct conf_profile	*prof;
	const struct conf_allow		*a;
	const struct conf_mount		*m;
	const struct conf_env		*env;
	const struct conf_domain	*d;
	const struct conf_cidr		*c;
	struct in6_addr			 v6;
	char				 text[sizeof(full)];

	/* "fetch.v2 { network proxy; }": ';' is not a separator. */
	ATF_CHECK(parse_text(full, &e) == NULL);
	ATF_CHECK_STREQ(e.first, "t.conf:59: network: \"proxy;\" is not none "
	    "or proxy");

	strlcpy(text, full, sizeof(text));
	*strchr(strstr(text, "proxy; }"), ';') = ' ';
	conf = parse_ok(text);
	ATF_CHECK_STREQ(conf->socket, "/srv/sbx/ctl.sock");
	ATF_CHECK_EQ(conf->socket_mode, 0660);
	ATF_CHECK(conf->socket_group.set);
	ATF_CHECK_STREQ(conf->socket_group.name, "sbx");
	ATF_CHECK(conf->user.name == NULL);
	ATF_CHECK_EQ(conf->user.id, 990);

	a = TAILQ_FIRST(&conf->allows);
	ATF_REQUIRE(a != NULL);
	ATF_CHECK(a->type == CONF_ALLOW_UID && a->who.name == NULL &&
	    a->who.id == 1000);
	a = TAILQ_NEXT(a, entry);
	ATF_REQUIRE(a != NULL);
	ATF_CHECK(a->type == CONF_ALLOW_UID && a->who.name != NULL &&
	    strcmp(a->who.name, "alice") == 0);
	a = TAILQ_NEXT(a, entry);
	ATF_REQUIRE(a != NULL);
	ATF_CHECK(a->type == CONF_ALLOW_GID && a->who.id == 27);
	a = TAILQ_NEXT(a, entry);
	ATF_REQUIRE(a != NULL);
	ATF_CHECK(a->type == CONF_ALLOW_GID &&
	    strcmp(a->who.name, "sbx") == 0);
	ATF_CHECK(TAILQ_NEXT(a, entry) == NULL);

	ATF_CHECK_EQ(conf->max_sandboxes, 100);
	ATF_CHECK_EQ(conf->max_sandboxes_per_peer, 10);
	ATF_CHECK_EQ(conf->max_connections, 200);
	ATF_CHECK_EQ(conf->max_connections_per_peer, 20);
	ATF_CHECK(conf->uid_range_set);
	ATF_CHECK_EQ(conf->uid_range_start, 200000);
	ATF_CHECK_EQ(conf->uid_range_count, 1000);
	ATF_CHECK_STREQ(conf->log_file, "/var/log/sbx/audit.jsonl");
	ATF_CHECK_EQ(conf->bundle_providers, 1);
	/* No expansion inside quotes: "$base" stays as written. */
	ATF_CHECK_STREQ(conf->provider_allowlist, "/etc/sbx/$base.json");
	ATF_CHECK_STREQ(conf->provider_runtime, "/opt/node/bin/node");
	ATF_CHECK_EQ(conf->provider_pool, 4);
	ATF_CHECK_EQ(conf->provider_timeout, 2500);
	ATF_CHECK_EQ(conf->provider_max_output, 512 * 1024);
	ATF_CHECK_EQ(conf->provider_max_records, 1000);
	ATF_CHECK_EQ(conf->providers_per_peer, 4);
	ATF_CHECK_EQ(conf->max_providers, 64);
	ATF_CHECK_EQ(conf->provider_idle_timeout, 3600);
	ATF_CHECK_EQ(conf->warm_idle, 30);
	ATF_CHECK_EQ(conf->nprofiles, 3);

	prof = TAILQ_FIRST(&conf->profiles);
	ATF_REQUIRE(prof != NULL);
	ATF_CHECK_STREQ(prof->name, "default");
	ATF_CHECK_EQ(prof->network, CONF_NET_PROXY);
	ATF_CHECK_EQ(count_mounts(prof), 4);
	m = mount_at(prof, 0);
	ATF_CHECK(m->type == CONF_MOUNT_RO && strcmp(m->path, "/usr") == 0);
	m = mount_at(prof, 1);
	ATF_CHECK(m->type == CONF_MOUNT_RW &&
	    strcmp(m->path, "/var/cache/x") == 0);
	m = mount_at(prof, 2);
	ATF_CHECK(m->type == CONF_MOUNT_TMPFS &&
	    strcmp(m->path, "/tmp") == 0 && m->size == 128ULL << 20);
	m = mount_at(prof, 3);
	ATF_CHECK(m->type == CONF_MOUNT_TMPFS &&
	    strcmp(m->path, "/scratch") == 0 && m->size == 64ULL << 20);
	ATF_CHECK_EQ(prof->tmpfs_root, 8ULL << 20);
	ATF_CHECK_STREQ(prof->workdir, "/src");
	env = TAILQ_FIRST(&prof->env);
	ATF_REQUIRE(env != NULL);
	ATF_CHECK_STREQ(env->name, "LANG");
	env = TAILQ_NEXT(env, entry);
	ATF_REQUIRE(env != NULL);
	ATF_CHECK_STREQ(env->name, "TERM");
	env = TAILQ_NEXT(env, entry);
	ATF_REQUIRE(env != NULL);
	ATF_CHECK_STREQ(env->name, "HOME");
	ATF_CHECK(TAILQ_NEXT(env, entry) == NULL);
	ATF_CHECK_EQ(prof->timeout, 30);
	ATF_CHECK_EQ(prof->memory, 2ULL << 30);
	ATF_CHECK_EQ(prof->pids, 64);
	ATF_CHECK_EQ(prof->nofile, 256);
	ATF_CHECK_EQ(prof->fsize, 0);
	ATF_CHECK_EQ(prof->dev_shm, 1);
	ATF_CHECK_EQ(prof->loopback, 0);
	ATF_CHECK_EQ(prof->proxy_conns, 200);
	ATF_CHECK_EQ(prof->cpu_time, 90);
	ATF_CHECK_EQ(prof->cpus_milli, 1250);
	ATF_CHECK_EQ(prof->output, 64ULL << 20);
	ATF_CHECK_EQ(prof->warm, 3);
	d = TAILQ_FIRST(&prof->allow_domains);
	ATF_REQUIRE(d != NULL);
	ATF_CHECK_STREQ(d->host, "example.com");
	ATF_CHECK_EQ(d->wildcard, 1);
	ATF_CHECK_EQ(d->port, 443);
	d = TAILQ_NEXT(d, entry);
	ATF_REQUIRE(d != NULL);
	ATF_CHECK_STREQ(d->host, "example.org");
	ATF_CHECK_EQ(d->wildcard, 0);
	ATF_CHECK_EQ(d->port, 0);
	d = TAILQ_FIRST(&prof->deny_domains);
	ATF_REQUIRE(d != NULL);
	ATF_CHECK_STREQ(d->host, "private.example.com");
	c = TAILQ_FIRST(&prof->allow_cidrs);
	ATF_REQUIRE(c != NULL);
	ATF_CHECK_EQ(c->af, AF_INET);
	ATF_CHECK_EQ(c->prefixlen, 32);
	ATF_CHECK_EQ(c->addr.v4.s_addr, htonl(0x7f000001));
	c = TAILQ_NEXT(c, entry);
	ATF_REQUIRE(c != NULL);
	ATF_CHECK_EQ(c->af, AF_INET6);
	ATF_CHECK_EQ(c->prefixlen, 32);
	ATF_REQUIRE(inet_pton(AF_INET6, "2001:db8::", &v6) == 1);
	ATF_CHECK(memcmp(&c->addr.v6, &v6, sizeof(v6)) == 0);

	/* Profiles that name no mounts get the built-in ones. */
	ATF_REQUIRE((prof = conf_profile(conf, "bare")) != NULL);
	ATF_CHECK_EQ(prof->network, CONF_NET_NONE);
	check_builtin_mounts(prof);
	ATF_REQUIRE((prof = conf_profile(conf, "fetch.v2")) != NULL);
	ATF_CHECK_EQ(prof->network, CONF_NET_PROXY);
	ATF_CHECK_EQ(prof->timeout, 600);
	check_roundtrip(conf);
	conf_free(conf);
}

ATF_TC_WITHOUT_HEAD(dump_text);
ATF_TC_BODY(dump_text, tc)
{
	struct sbx_conf	*conf;
	char		*d;

	conf = parse_ok("socket-mode 0600\nmax-sandboxes 8\nmax-providers 8\n"
	    "client-queue-max 256K\nclient-fds-max 2048\n"
	    "profile \"q\" {\n\tro \"/opt/a\\\"b\\\\c\"\n"
	    "\ttmpfs \"/tmp\" size 1536K\n\tmemory 1073741825\n"
	    "\tcpu-time 5\n\tcpus 0.5\n}\n");
	/* An unset per-peer limit follows the lower global one. */
	ATF_CHECK_EQ(conf->max_sandboxes_per_peer, 8);
	d = dump_string(conf);
	ATF_CHECK(strstr(d, "socket-mode 0600\n") != NULL);
	ATF_CHECK(strstr(d, "max-sandboxes-per-peer 8\n") != NULL);
	/* So does providers-per-peer, below max-providers. */
	ATF_CHECK(strstr(d, "providers-per-peer 8\nmax-providers 8\n"
	    "provider-idle-timeout 0\n") != NULL);
	ATF_CHECK(strstr(d, "client-queue-max 256K\n") != NULL);
	/* An unset peer total follows a raised per-connection cap. */
	ATF_CHECK(strstr(d, "client-fds-max 2048\npeer-fds-max 2048\n") !=
	    NULL || strstr(d, "peer-fds-max 2048\n") != NULL);
	ATF_CHECK_EQ(conf->peer_fds_max, 2048);
	ATF_CHECK(strstr(d, "\tro \"/opt/a\\\"b\\\\c\"\n") != NULL);
	ATF_CHECK(strstr(d, "\ttmpfs \"/tmp\" size 1536K\n") != NULL);
	ATF_CHECK(strstr(d, "\tmemory 1073741825\n") != NULL);
	ATF_CHECK(strstr(d, "\tcpu-time 5\n\tcpus 0.500\n") != NULL);
	/* Unset, neither is printed (0 is no value either takes). */
	ATF_CHECK(strstr(d, "\tcpu-time 0") == NULL);
	/* The built-in default comes first, then the file's profiles. */
	ATF_CHECK(strstr(d, "profile \"default\"") <
	    strstr(d, "profile \"q\""));
	ATF_CHECK_STREQ(mount_at(conf_profile(conf, "q"), 0)->path,
	    "/opt/a\"b\\c");
	free(d);
	check_roundtrip(conf);
	conf_free(conf);
}

/* issue 22's profile keywords: fields, dump, round trip. */
ATF_TC_WITHOUT_HEAD(toolchain_keywords);
ATF_TC_BODY(toolchain_keywords, tc)
{
	struct sbx_conf			*conf;
	const struct conf_profile	*prof;
	const struct conf_mount		*m;
	char				*d;

	conf = parse_ok("profile \"b\" {\n\tro \"/usr\"\n"
	    "\tro \"/etc/gitconfig\" optional\n"
	    "\trw \"/var/cache/b\" per-caller noexec\n"
	    "\thome \"/home/b\"\n\tworkdir same noexec\n\tptrace yes\n}\n"
	    "profile \"c\" {\n\tworkdir same\n}\n");
	prof = conf_profile(conf, "b");
	ATF_REQUIRE(prof != NULL);
	m = mount_at(prof, 1);
	ATF_CHECK(m->type == CONF_MOUNT_RO && m->optional && !m->per_caller);
	m = mount_at(prof, 2);
	ATF_CHECK(m->type == CONF_MOUNT_RW && m->per_caller && m->noexec &&
	    !m->optional);
	ATF_CHECK_STREQ(prof->home, "/home/b");
	ATF_CHECK(prof->workdir == NULL);
	ATF_CHECK_EQ(prof->workdir_same, 1);
	ATF_CHECK_EQ(prof->workdir_noexec, 1);
	ATF_CHECK_EQ(prof->ptrace, 1);
	/* The defaults: a workdir path, no ptrace, no home. */
	prof = conf_profile(conf, "default");
	ATF_CHECK_EQ(prof->ptrace, 0);
	ATF_CHECK(prof->home == NULL && prof->workdir_same == 0);
	d = dump_string(conf);
	ATF_CHECK(strstr(d, "\tro \"/etc/gitconfig\" optional\n") != NULL);
	ATF_CHECK(strstr(d, "\trw \"/var/cache/b\" per-caller noexec\n") !=
	    NULL);
	ATF_CHECK(strstr(d, "\thome \"/home/b\"\n") != NULL);
	ATF_CHECK(strstr(d, "\tworkdir same noexec\n") != NULL);
	ATF_CHECK(strstr(d, "\tworkdir same\n") != NULL);
	ATF_CHECK(strstr(d, "\tptrace yes\n") != NULL);
	ATF_CHECK(strstr(d, "\tptrace no\n") != NULL);
	free(d);
	check_roundtrip(conf);
	conf_free(conf);
}

ATF_TC_WITHOUT_HEAD(default_replaced);
ATF_TC_BODY(default_replaced, tc)
{
	struct sbx_conf			*conf;
	const struct conf_profile	*prof;

	conf = parse_ok("profile \"other\" { }\nprofile \"default\" {\n"
	    "\tro \"/usr\"\n\tpids 10\n}\n");
	ATF_CHECK_EQ(conf->nprofiles, 2);
	prof = conf_profile(conf, "default");
	ATF_REQUIRE(prof != NULL);
	ATF_CHECK_EQ(count_mounts(prof), 1);
	ATF_CHECK_EQ(prof->pids, 10);
	ATF_CHECK_STREQ(TAILQ_FIRST(&conf->profiles)->name, "other");
	check_roundtrip(conf);
	conf_free(conf);
}

ATF_TC_WITHOUT_HEAD(example_file);
ATF_TC_BODY(example_file, tc)
{
	char		 path[PATH_MAX];
	struct sbx_conf	*conf;
	struct errs	 e;

	snprintf(path, sizeof(path), "%s/../top/etc/sbx.conf",
	    atf_tc_get_config_var(tc, "srcdir"));
	memset(&e, 0, sizeof(e));
	conf = conf_parse_cb(path, collect, &e);
	ATF_REQUIRE_MSG(conf != NULL, "%s", flat(e.buf));
	ATF_CHECK(conf_profile(conf, "default") != NULL);
	ATF_CHECK(conf_profile(conf, "fetch") != NULL);
	check_roundtrip(conf);
	conf_free(conf);
}

ATF_TC_WITHOUT_HEAD(set_socket);
ATF_TC_BODY(set_socket, tc)
{
	struct sbx_conf	*conf;
	const char	*why;

	conf = parse_ok("profile \"p\" {\n\tro \"/usr\"\n\trw \"/srv\"\n}\n");
	ATF_CHECK_EQ(conf_set_socket(conf, "/tmp/s.sock", &why), 0);
	ATF_CHECK_STREQ(conf->socket, "/tmp/s.sock");
	ATF_CHECK_EQ(conf_set_socket(conf, "rel.sock", &why), -1);
	ATF_CHECK_STREQ(why, "is not an absolute path");
	ATF_CHECK_EQ(conf_set_socket(conf, "/srv/x/s.sock", &why), -1);
	ATF_CHECK_STREQ(why, "lies under a directory that a profile binds "
	    "into its sandboxes");
	ATF_CHECK_STREQ(conf->socket, "/tmp/s.sock");
	conf_free(conf);
}

/* ---- value syntax ----------------------------------------------------- */

ATF_TC_WITHOUT_HEAD(validators);
ATF_TC_BODY(validators, tc)
{
	struct conf_domain	 d;
	struct conf_cidr	 c;
	const char		*why;
	uint64_t		 v;
	mode_t			 mode;

	{
		uint32_t	 cpus;

		ATF_CHECK(conf_parse_cpus("2", &cpus) == 0 && cpus == 2000);
		ATF_CHECK(conf_parse_cpus("0.5", &cpus) == 0 && cpus == 500);
		ATF_CHECK(conf_parse_cpus("0.05", &cpus) == 0 && cpus == 50);
		ATF_CHECK(conf_parse_cpus("1.125", &cpus) == 0 &&
		    cpus == 1125);
		ATF_CHECK(conf_parse_cpus("", &cpus) == -1);
		ATF_CHECK(conf_parse_cpus(".5", &cpus) == -1);
		ATF_CHECK(conf_parse_cpus("5.", &cpus) == -1);
		ATF_CHECK(conf_parse_cpus("1.2.3", &cpus) == -1);
		ATF_CHECK(conf_parse_cpus("1.2345", &cpus) == -1);
		ATF_CHECK(conf_parse_cpus("-1", &cpus) == -1);
		ATF_CHECK(conf_parse_cpus("99999999999999", &cpus) == -1);
	}
	ATF_CHECK(conf_path_covers("/usr", "/usr"));
	ATF_CHECK(conf_path_covers("/usr", "/usr/lib"));
	ATF_CHECK(!conf_path_covers("/usr", "/usr2"));
	ATF_CHECK(!conf_path_covers("/usr/lib", "/usr"));
	ATF_CHECK(conf_path_covers("/", "/anything"));

	ATF_CHECK_EQ(conf_parse_size("0", 0, 10, &v, &why), 0);
	ATF_CHECK_EQ(v, 0);
	ATF_CHECK_EQ(conf_parse_size("3G", 0, UINT64_MAX, &v, &why), 0);
	ATF_CHECK_EQ(v, 3ULL << 30);
	ATF_CHECK_EQ(conf_parse_size("99999999999999999999G", 0, UINT64_MAX,
	    &v, &why), -1);
	ATF_CHECK_EQ(conf_parse_size("17179869184G", 0, UINT64_MAX, &v,
	    &why), -1);
	ATF_CHECK_STREQ(why, "is too large");
	ATF_CHECK_EQ(conf_parse_size("", 0, 10, &v, &why), -1);
	ATF_CHECK_EQ(conf_parse_size("-1", 0, 10, &v, &why), -1);

	ATF_CHECK_EQ(conf_parse_mode("0", &mode, &why), 0);
	ATF_CHECK_EQ(mode, 0);
	ATF_CHECK_EQ(conf_parse_mode("0775", &mode, &why), 0);
	ATF_CHECK_EQ(mode, 0775);
	ATF_CHECK_EQ(conf_parse_mode("00660", &mode, &why), -1);

	ATF_CHECK_EQ(conf_parse_domain("localhost", &d, &why), 0);
	ATF_CHECK_EQ(conf_parse_domain("xn--bcher-kva.example", &d, &why), 0);
	ATF_CHECK_EQ(conf_parse_domain("a.org:65535", &d, &why), 0);
	ATF_CHECK_EQ(d.port, 65535);
	ATF_CHECK_EQ(conf_parse_domain("a.org:65536", &d, &why), -1);
	ATF_CHECK_EQ(conf_parse_domain("*", &d, &why), -1);
	ATF_CHECK_EQ(conf_parse_domain("*.", &d, &why), -1);
	ATF_CHECK_EQ(conf_parse_domain("*.*.a.org", &d, &why), -1);
	ATF_CHECK_EQ(conf_parse_domain("[::1]", &d, &why), -1);
	ATF_CHECK_EQ(conf_parse_domain("a..org", &d, &why), -1);

	ATF_CHECK_EQ(conf_parse_cidr("0.0.0.0/0", &c, &why), 0);
	ATF_CHECK_EQ(c.prefixlen, 0);
	ATF_CHECK_EQ(conf_parse_cidr("::", &c, &why), 0);
	ATF_CHECK_EQ(c.prefixlen, 128);
	ATF_CHECK_EQ(conf_parse_cidr("fd00::1/8", &c, &why), -1);
	ATF_CHECK_EQ(conf_parse_cidr("10.1.0.0/15", &c, &why), -1);
	ATF_CHECK_EQ(conf_parse_cidr("10.2.0.0/15", &c, &why), 0);
	ATF_CHECK_EQ(conf_parse_cidr("10.0.0.0/+8", &c, &why), -1);
	ATF_CHECK_EQ(conf_parse_cidr("1.2.3/24", &c, &why), -1);

	ATF_CHECK_EQ(conf_check_username("nobody", &why), 0);
	ATF_CHECK_EQ(conf_check_username("machine$", &why), 0);
	ATF_CHECK_EQ(conf_check_username("a$b", &why), -1);
	ATF_CHECK_EQ(conf_check_username(
	    "a23456789012345678901234567890123", &why), -1);
	ATF_CHECK_EQ(conf_check_envname("_X1", &why), 0);
	ATF_CHECK_EQ(conf_check_name("-x", &why), -1);
	ATF_CHECK_EQ(conf_check_mountpath("/procfs", &why), 0);
	ATF_CHECK_EQ(conf_check_mountpath("/dev/shm", &why), -1);
}

/* ---- start-up resolution ---------------------------------------------- */

ATF_TC_WITHOUT_HEAD(resolve);
ATF_TC_BODY(resolve, tc)
{
	struct sbx_conf	*conf;
	char		 text[PATH_MAX * 2 + 128], cwd[PATH_MAX];

	conf = parse_ok("user \"root\"\nallow uid \"root\"\n"
	    "allow gid \"root\"\nsocket-group \"root\"\n");
	conf->user.id = 77;
	ATF_CHECK_EQ(conf_resolve(conf, 1, 0), 0);
	ATF_CHECK_EQ(conf->user.id, 0);
	ATF_CHECK_EQ(conf->user_gid, 0);
	ATF_CHECK_EQ(conf->socket_group.id, 0);
	conf_free(conf);

	/* Unknown names fail at start-up, not in -n. */
	conf = parse_ok("user \"nosuchuser-sbx\"\n");
	ATF_CHECK_EQ(conf_resolve(conf, 0, 0), 0);
	ATF_CHECK_EQ(conf_resolve(conf, 1, 0), -1);
	conf_free(conf);
	conf = parse_ok("allow gid \"nosuchgroup-sbx\"\n");
	ATF_CHECK_EQ(conf_resolve(conf, 0, 0), -1);
	conf_free(conf);

	/* A named peer inside the sandbox id range. */
	conf = parse_ok("allow uid \"root\"\nsandbox-uid-range 100 64\n");
	ATF_CHECK_EQ(conf_resolve(conf, 0, 0), 0);
	conf_free(conf);
	conf = parse_ok("allow uid \"nobody\"\nsandbox-uid-range 60000 "
	    "10000\n");
	ATF_CHECK_EQ(conf_resolve(conf, 0, 0), -1);	/* nobody is 65534 */
	conf_free(conf);

	/* Provider files must exist once providers are enabled. */
	write_file("allow.json", "{}\n", 0644);
	write_file("node", "#!/bin/sh\n", 0644);
	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(text, sizeof(text), "bundle-providers yes\n"
	    "provider-allowlist \"%s/allow.json\"\n"
	    "provider-runtime \"%s/node\"\n", cwd, cwd);
	conf = parse_ok(text);
	ATF_CHECK_EQ(conf_resolve(conf, 0, 0), -1);	/* node: no x bit */
	ATF_REQUIRE(chmod("node", 0755) == 0);
	ATF_CHECK_EQ(conf_resolve(conf, 0, 0), 0);
	ATF_REQUIRE(unlink("allow.json") == 0);
	ATF_CHECK_EQ(conf_resolve(conf, 0, 0), -1);
	conf->bundle_providers = 0;
	ATF_CHECK_EQ(conf_resolve(conf, 0, 0), 0);
	conf_free(conf);

	conf = parse_ok("profile \"p\" {\n\tro \"/nonexistent/sbx\"\n}\n");
	ATF_CHECK_EQ(conf_resolve(conf, 0, 0), -1);
	conf_free(conf);
}

/*
 * sandbox-user resolves only for a service started as root (need_user
 * here); a missing one refuses what needs it, never falls back.
 */
ATF_TC_WITHOUT_HEAD(resolve_sandbox_user);
ATF_TC_BODY(resolve_sandbox_user, tc)
{
	struct sbx_conf	*conf;
	struct group	*gr;
	struct passwd	*pw;
	char		 text[256];
	uid_t		 nuid;
	gid_t		 ngid;

	(void)tc;
	/* getpwnam's buffer is conf_resolve's too: copy what is needed. */
	ATF_REQUIRE((pw = getpwnam("nobody")) != NULL);
	nuid = pw->pw_uid;
	ngid = pw->pw_gid;
	conf = parse_ok("user \"root\"\nsandbox-user \"nobody\"\n");
	ATF_CHECK_EQ(conf_resolve(conf, 0, 0), 0);	/* not root-started */
	ATF_CHECK_EQ(conf->sandbox_user_uid, 0);
	ATF_CHECK_EQ(conf_resolve(conf, 1, 0), 0);
	ATF_CHECK_EQ(conf->sandbox_user_uid, nuid);
	ATF_CHECK_EQ(conf->sandbox_user_gid, ngid);
	conf_free(conf);

	/* Missing: refused with an identity service profile ... */
	conf = parse_ok("user \"root\"\nsandbox-user \"nosuchuser-sbx\"\n"
	    "profile \"s\" {\n\tidentity service\n}\n");
	ATF_CHECK_EQ(conf_resolve(conf, 0, 0), 0);
	ATF_CHECK_EQ(conf_resolve(conf, 1, 0), -1);
	ATF_CHECK_EQ(conf->sandbox_user_uid, 0);
	conf_free(conf);
	/* ... and without one: the self-test's sandbox runs as it. */
	conf = parse_ok("user \"root\"\nsandbox-user \"nosuchuser-sbx\"\n");
	ATF_CHECK_EQ(conf_resolve(conf, 0, 0), 0);	/* not root-started */
	ATF_CHECK_EQ(conf_resolve(conf, 1, 0), -1);
	ATF_CHECK_EQ(conf->sandbox_user_uid, 0);
	ATF_CHECK_EQ(conf->sandbox_user_gid, 0);
	conf_free(conf);

	/* Root, or the service user by another name or number: refused. */
	conf = parse_ok("user \"nobody\"\nsandbox-user \"root\"\n");
	ATF_CHECK_EQ(conf_resolve(conf, 1, 0), -1);
	conf_free(conf);
	conf = parse_ok("user \"nobody\"\nsandbox-user 65534\n");
	if (nuid == 65534)
		ATF_CHECK_EQ(conf_resolve(conf, 1, 0), -1);
	conf_free(conf);

	/* Its group may not be the socket's (nor the service user's). */
	ATF_REQUIRE((gr = getgrgid(ngid)) != NULL);
	snprintf(text, sizeof(text), "user \"root\"\nsandbox-user \"nobody\"\n"
	    "socket-group \"%s\"\n", gr->gr_name);
	conf = parse_ok(text);
	ATF_CHECK_EQ(conf_resolve(conf, 1, 0), -1);
	conf_free(conf);
}

/* issue 23's changeset keywords: defaults, values, errors, dump. */
ATF_TC_WITHOUT_HEAD(changeset_keywords);
ATF_TC_BODY(changeset_keywords, tc)
{
	static const struct {
		const char	*text;
		const char	*error;
	} cbad[] = {
		{ "changeset-dir var/lib\n", "t.conf:1: changeset-dir: "
		    "\"var/lib\" is not an absolute path" },
		{ "changeset-max-age 59\n", "t.conf:1: changeset-max-age: "
		    "\"59\" is too small (1m..366d)" },
		{ "changeset-max-age 367d\n", "t.conf:1: changeset-max-age: "
		    "\"367d\" is too large (1m..366d)" },
		{ "changeset-max-age 99999999999d\n", "t.conf:1: "
		    "changeset-max-age: \"99999999999d\" is too large "
		    "(1m..366d)" },
		{ "changeset-max-age 1w\n", "t.conf:1: changeset-max-age: "
		    "\"1w\" is not a duration (a number with an optional s, "
		    "m, h or d suffix)" },
		{ "changeset-max-age 1dd\n", "t.conf:1: changeset-max-age: "
		    "\"1dd\" is not a duration (a number with an optional s, "
		    "m, h or d suffix)" },
		{ "changeset-max-age d\n", "t.conf:1: changeset-max-age: "
		    "\"d\" is not a duration (a number with an optional s, "
		    "m, h or d suffix)" },
		{ "changeset-max-size 1023K\n", "t.conf:1: "
		    "changeset-max-size: \"1023K\" is too small (1M..1024G)" },
		{ "changeset-max-size 1025G\n", "t.conf:1: "
		    "changeset-max-size: \"1025G\" is too large (1M..1024G)" },
		{ "changesets-per-peer 0\n", "t.conf:1: changesets-per-peer: "
		    "\"0\" is too small (1..4096)" },
		{ "changesets-per-peer 2\nchangesets-per-peer 3\n",
		    "t.conf:2: changesets-per-peer: duplicate keyword (first "
		    "given at t.conf:1)" },
	};
	struct sbx_conf		*conf;
	struct conf_profile	*prof;
	struct conf_mount	 m;
	struct errs		 e;
	const char		*why;
	uint32_t		 v;
	char			*d, buf[32];
	size_t			 i;

	for (i = 0; i < nitems(cbad); i++) {
		conf = parse_text(cbad[i].text, &e);
		ATF_CHECK_MSG(conf == NULL, "case %zu accepted: %s", i,
		    cbad[i].text);
		conf_free(conf);
		ATF_CHECK_MSG(strcmp(e.first, cbad[i].error) == 0,
		    "case %zu: got \"%s\", want \"%s\"", i, e.first,
		    cbad[i].error);
	}

	conf = parse_ok("");
	ATF_CHECK(conf->changeset_dir == NULL);
	ATF_CHECK_EQ(conf->changeset_max_age, 7 * 86400);
	ATF_CHECK_EQ(conf->changeset_max_size, 256ULL << 20);
	ATF_CHECK_EQ(conf->changesets_per_peer, 16);
	d = dump_string(conf);
	ATF_CHECK(strstr(d, "changeset-dir") == NULL);
	ATF_CHECK(strstr(d, "changeset-max-age 7d\nchangeset-max-size 256M\n"
	    "changesets-per-peer 16\n") != NULL);
	free(d);
	conf_free(conf);

	conf = parse_ok("changeset-dir \"/srv/sbx changes\"\n"
	    "changeset-max-age 90m\nchangeset-max-size 2G\n"
	    "changesets-per-peer 3\n");
	ATF_CHECK_STREQ(conf->changeset_dir, "/srv/sbx changes");
	ATF_CHECK_EQ(conf->changeset_max_age, 5400);
	ATF_CHECK_EQ(conf->changeset_max_size, 2ULL << 30);
	ATF_CHECK_EQ(conf->changesets_per_peer, 3);
	d = dump_string(conf);
	ATF_CHECK(strstr(d, "changeset-dir \"/srv/sbx changes\"\n"
	    "changeset-max-age 90m\nchangeset-max-size 2G\n"
	    "changesets-per-peer 3\n") != NULL);
	free(d);
	check_roundtrip(conf);

	/* A mount that would show the store to a payload is named. */
	prof = conf_profile_new("x");
	memset(&m, 0, sizeof(m));
	m.type = CONF_MOUNT_RO;
	m.path = "/srv";
	ATF_CHECK_STREQ(conf_exposes(conf, &m), "changeset-dir");
	m.path = "/srv/other";
	ATF_CHECK(conf_exposes(conf, &m) == NULL);
	conf_profile_free(prof);
	conf_free(conf);

	/* Seconds that are no whole minute print as seconds. */
	conf = parse_ok("changeset-max-age 3601\n");
	ATF_CHECK_EQ(conf->changeset_max_age, 3601);
	check_roundtrip(conf);
	conf_free(conf);

	ATF_CHECK(conf_parse_duration("7d", 60, 86400 * 366, &v, &why) == 0 &&
	    v == 604800);
	ATF_CHECK(conf_parse_duration("120s", 60, 86400, &v, &why) == 0 &&
	    v == 120);
	ATF_CHECK(conf_parse_duration("2h", 60, 86400, &v, &why) == 0 &&
	    v == 7200);
	ATF_CHECK(conf_parse_duration("", 0, 86400, &v, &why) == -1);
	ATF_CHECK(conf_parse_duration("-1", 0, 86400, &v, &why) == -1);
	ATF_CHECK(conf_parse_duration("1 d", 0, 86400, &v, &why) == -1);
	conf_fmt_duration(0, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "0s");
	conf_fmt_duration(86400 * 2 + 60, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "2881m");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, bad_snippets);
	ATF_TP_ADD_TC(tp, toolchain_keywords);
	ATF_TP_ADD_TC(tp, socket_too_long);
	ATF_TP_ADD_TC(tp, all_errors_reported);
	ATF_TP_ADD_TC(tp, error_cap);
	ATF_TP_ADD_TC(tp, hostile_values_escaped);
	ATF_TP_ADD_TC(tp, proxy_rule_cap);
	ATF_TP_ADD_TC(tp, nul_byte);
	ATF_TP_ADD_TC(tp, missing_file);
	ATF_TP_ADD_TC(tp, file_secrecy);
	ATF_TP_ADD_TC(tp, include_relative);
	ATF_TP_ADD_TC(tp, include_errors);
	ATF_TP_ADD_TC(tp, defaults);
	ATF_TP_ADD_TC(tp, every_field);
	ATF_TP_ADD_TC(tp, dump_text);
	ATF_TP_ADD_TC(tp, default_replaced);
	ATF_TP_ADD_TC(tp, example_file);
	ATF_TP_ADD_TC(tp, set_socket);
	ATF_TP_ADD_TC(tp, validators);
	ATF_TP_ADD_TC(tp, resolve);
	ATF_TP_ADD_TC(tp, resolve_sandbox_user);
	ATF_TP_ADD_TC(tp, changeset_keywords);
	return atf_no_error();
}
