/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * runtime.c: the provider launch plan (design.md §5).  A provider sandbox sees
 * node and exactly the shared libraries node maps (with their soname
 * aliases and the ELF interpreter), read-only, and nothing else of the
 * host.  The plan is trusted state, so the monitor makes it: at start-up,
 * before its own filter, it probes the configured runtime once (which
 * permission flag this node spells, whether vm modules need a flag) and
 * asks it which files it maps.  The runner, which handles untrusted
 * bytes, only hands over the pipe ends of each run.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "spec.h"
#include "monitor.h"
#include "provider/provider.h"

#define MAPS_MAX	(256 * 1024)
#define MAPS_TIMEOUT_MS	10000
#define RT_MAXBINDS	48

struct bind {
	char	*src;		/* realpath on the host */
	char	*dst;		/* where it appears inside */
};

static struct prov_node	 node;
static char		 nodepath[PATH_MAX];
static struct bind	 binds[RT_MAXBINDS];
static size_t		 nbinds;
static int		 ready;
static char		 why_not[256];

static int
bind_add(const char *src, const char *dst)
{
	size_t	 i;

	for (i = 0; i < nbinds; i++)
		if (strcmp(binds[i].dst, dst) == 0)
			return 0;
	if (nbinds == RT_MAXBINDS) {
		snprintf(why_not, sizeof(why_not), "node maps more than %d "
		    "files", RT_MAXBINDS);
		return -1;
	}
	binds[nbinds].src = xstrdup(src);
	binds[nbinds].dst = xstrdup(dst);
	nbinds++;
	return 0;
}

/* "libX.so.1.2.3": also bind "libX.so.1.2", "libX.so.1" and "libX.so"
 * beside it when they resolve to the same file (what NEEDED names). */
static int
bind_aliases(const char *path, const char *real)
{
	char	 alias[PATH_MAX], res[PATH_MAX], *dot;

	strlcpy(alias, path, sizeof(alias));
	while ((dot = strrchr(alias, '.')) != NULL) {
		if (strcmp(dot, ".so") == 0)
			break;
		*dot = '\0';
		if (strstr(alias, ".so") == NULL)
			break;
		if (realpath(alias, res) != NULL && strcmp(res, real) == 0 &&
		    bind_add(real, alias) == -1)
			return -1;
	}
	return 0;
}

static int
is_solib(const char *path)
{
	const char	*so = strstr(path, ".so");
	const char	*p;

	if (so == NULL)
		return 0;
	for (p = so + 3; *p != '\0'; p++)
		if (*p != '.' && (*p < '0' || *p > '9'))
			return 0;
	return 1;
}

/* The ELF interpreter of the runtime (PT_INTERP), if it has one. */
static int
interp(const char *exe, char *out, size_t outlen)
{
	Elf64_Ehdr	 eh;
	Elf64_Phdr	 ph;
	ssize_t		 n;
	int		 fd, i, rv = -1;

	if ((fd = open(exe, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum > 256)
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			goto out;
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz == 0 || ph.p_filesz >= outlen)
			goto out;
		n = pread(fd, out, ph.p_filesz, ph.p_offset);
		if (n != (ssize_t)ph.p_filesz)
			goto out;
		out[n] = '\0';
		rv = out[0] == '/' ? 0 : -1;
		break;
	}
 out:
	close(fd);
	return rv;
}

/* Run node once and read its /proc/self/maps. */
static char *
node_maps(size_t *lenp)
{
	static const char	 script[] = "process.stdout.write(require('fs')"
	    ".readFileSync('/proc/self/maps','utf8'))";
	posix_spawn_file_actions_t fa;
	const char		*argv[] = { nodepath, "-e", script, NULL };
	char			*envp[] = { NULL }, *buf;
	struct pollfd		 pfd;
	size_t			 len = 0;
	ssize_t			 n;
	pid_t			 pid;
	int			 p[2], st, r;

	if (pipe2(p, O_CLOEXEC) == -1)
		return NULL;
	if (posix_spawn_file_actions_init(&fa) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
	    0) != 0 || posix_spawn_file_actions_adddup2(&fa, p[1], 1) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY,
	    0) != 0 || (r = posix_spawn(&pid, nodepath, &fa, NULL,
	    (char **)argv, envp)) != 0) {
		close(p[0]);
		close(p[1]);
		return NULL;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	buf = xmalloc(MAPS_MAX + 1);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	while (len < MAPS_MAX && poll(&pfd, 1, MAPS_TIMEOUT_MS) > 0) {
		if ((n = read(p[0], buf + len, MAPS_MAX - len)) <= 0)
			break;
		len += n;
	}
	close(p[0]);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	buf[len] = '\0';
	*lenp = len;
	return buf;
}

/*
 * Build the plan.  A failure leaves providers refused with the reason
 * (sandbox-unavailable), never an unconfined run.
 */
void
runtime_init(const char *runtime)
{
	struct prov_error	 err;
	char			 real[PATH_MAX], ip[PATH_MAX], *maps, *line;
	char			*next, *path;
	size_t			 len;

	ready = 0;
	if (realpath(runtime, nodepath) == NULL) {
		snprintf(why_not, sizeof(why_not), "provider-runtime %.200s: %s",
		    runtime, strerror(errno));
		return;
	}
	if (prov_node_probe(nodepath, &node, &err) == -1) {
		snprintf(why_not, sizeof(why_not), "%.250s", err.msg);
		return;
	}
	if ((maps = node_maps(&len)) == NULL || len == 0) {
		snprintf(why_not, sizeof(why_not), "%.200s: could not list the "
		    "files it maps", nodepath);
		free(maps);
		return;
	}
	if (bind_add(nodepath, nodepath) == -1)
		goto out;
	for (line = maps; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		/* address perms offset dev inode path */
		if ((path = strchr(line, '/')) == NULL || !is_solib(path))
			continue;
		if (realpath(path, real) == NULL)
			continue;
		if (bind_add(real, path) == -1 ||
		    bind_aliases(path, real) == -1)
			goto out;
	}
	if (interp(nodepath, ip, sizeof(ip)) == 0) {
		if (realpath(ip, real) == NULL) {
			snprintf(why_not, sizeof(why_not), "interpreter %.200s: "
			    "%s", ip, strerror(errno));
			goto out;
		}
		if (bind_add(real, ip) == -1)
			goto out;
	}
	ready = 1;
	log_info("provider runtime %s (node %s, %s%s%s): %zu files bound",
	    nodepath, node.version, node.permission,
	    node.vm_modules[0] ? ", " : "", node.vm_modules, nbinds);
 out:
	free(maps);
}

int
runtime_ok(char *why, size_t whylen)
{
	if (!ready)
		snprintf(why, whylen, "%s", why_not[0] ? why_not :
		    "bundle providers are not enabled in sbx.conf");
	return ready;
}

/*
 * A provider run's sandbox, serialised.  A pooled one tells the driver
 * so (its one argument), which then warms node's module machinery while
 * it waits.  0, or -1 with why.
 */
int
runtime_spec(uint32_t timeout_ms, int pooled, uint8_t *buf, size_t buflen,
    size_t *len, char *err, size_t errlen)
{
	struct sbx_spec	 spec;
	const char	*argv[PROV_NODE_ARGV_MAX + 1];
	size_t		 argc, i;

	if (!runtime_ok(err, errlen))
		return -1;
	sbx_spec_init(&spec);
	spec.class = SBX_CLASS_PROVIDER;
	spec.net = SBX_NET_NONE;
	argc = prov_node_argv(nodepath, &node, argv, nitems(argv));
	if (argc == 0) {
		snprintf(err, errlen, "node %s has no permission flag",
		    node.version);
		return -1;
	}
	for (i = 0; i < argc; i++)
		if (sbx_spec_add_arg(&spec, argv[i]) == -1) {
			snprintf(err, errlen, "provider argv too long");
			return -1;
		}
	if (pooled && sbx_spec_add_arg(&spec, PROV_DRIVER_POOLED) == -1) {
		snprintf(err, errlen, "provider argv too long");
		return -1;
	}
	for (i = 0; i < nbinds; i++)
		if (sbx_spec_add_mount(&spec, SBX_MOUNT_RO, binds[i].src,
		    binds[i].dst, 0) == -1) {
			snprintf(err, errlen, "too many runtime files");
			return -1;
		}
	/* A provider computes; it writes no files and starts nothing. */
	spec.root_size = 1ULL << 20;
	spec.tmp_size = 1ULL << 20;
	spec.tmp_noexec = 1;
	spec.timeout_ms = timeout_ms;
	/*
	 * Without a delegated cgroup these are rlimits: RLIMIT_AS, where V8
	 * reserves far more address space than it uses, and RLIMIT_NPROC,
	 * which counts every thread of the monitor's user (all sandboxes
	 * run as that user), so both are set for what node needs to start.
	 */
	spec.memory = 8ULL << 30;
	spec.pids = 512;
	spec.nofile = 64;
	spec.fsize = 0;
	if (sbx_spec_check(&spec, err, errlen) == -1)
		return -1;
	return sbx_spec_serialise(&spec, buf, buflen, len, err, errlen);
}
