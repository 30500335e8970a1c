/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * node.c: the command line of a provider run (design.md §5).
 *
 *	node <permission flag> --disallow-code-generation-from-strings
 *	    [--experimental-vm-modules] --no-warnings -e <driver.mjs>
 *
 * (a script, so that require is there on every node 20; see driver.mjs).
 *
 * The driver travels in argv, not as a file: under the permission model
 * with no --allow-fs-read node may read no file at all, and the sandbox
 * has no file to read it from.  Node 20 spells the permission flag
 * --experimental-permission, newer node --permission, and an unknown
 * flag makes node exit 9 before the driver runs; so we ask the node
 * binary once which it has, and which vm-modules flag, rather than
 * guessing from a version string.  A node without a permission model or
 * without the code-generation switch is refused (sandbox-unavailable):
 * those layers are part of the design, and we fail closed without them.
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "clock.h"
#include "provider.h"

/* Generated from provider/driver.mjs by scripts/embed. */
extern const unsigned char embed_provider_driver_mjs[];
extern const size_t embed_provider_driver_mjs_len;

#define PROBE_TIMEOUT_MS	15000
#define PROBE_MAGIC		"sbx-node-probe "

/*
 * One line: "sbx-node-probe <version> permission=<flag|none>
 * vm=<flag|builtin|none> codegen=<yes|no>".  allowedNodeEnvironmentFlags
 * is node's documented list of the flags it knows (those NODE_OPTIONS
 * accepts, which include all three).
 */
static const char probe_script[] =
    "const f = process.allowedNodeEnvironmentFlags;"
    "const p = f.has('--permission') ? '--permission' :"
    " f.has('--experimental-permission') ? '--experimental-permission' :"
    " 'none';"
    "const v = typeof require('node:vm').SourceTextModule === 'function' ?"
    " 'builtin' : f.has('--experimental-vm-modules') ?"
    " '--experimental-vm-modules' : 'none';"
    "const c = f.has('--disallow-code-generation-from-strings') ?"
    " 'yes' : 'no';"
    "process.stdout.write('" PROBE_MAGIC "' + process.version +"
    " ' permission=' + p + ' vm=' + v + ' codegen=' + c + '\\n');";

const char *
prov_driver_source(size_t *len)
{
	if (len != NULL)
		*len = embed_provider_driver_mjs_len;
	return (const char *)embed_provider_driver_mjs;
}

size_t
prov_node_probe_argv(const char *node, const char **argv, size_t n)
{
	if (n < 5)
		return 0;
	argv[0] = node;
	argv[1] = "--no-warnings";
	argv[2] = "-e";
	argv[3] = probe_script;
	argv[4] = NULL;
	return 4;
}

/* Copy the value after "key=" at *sp up to a space or newline. */
static int
probe_field(const char **sp, const char *key, char *dst, size_t dstsz)
{
	const char	*s = *sp;
	size_t		 klen = strlen(key), n;

	if (strncmp(s, key, klen) != 0 || s[klen] != '=')
		return -1;
	s += klen + 1;
	n = strcspn(s, " \n");
	if (n == 0 || n >= dstsz)
		return -1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	*sp = s + n;
	return 0;
}

int
prov_node_probe_parse(const char *out, size_t len, struct prov_node *node,
    struct prov_error *err)
{
	char		 line[PROV_NODE_PROBE_MAX + 1], codegen[8];
	const char	*s;
	size_t		 n;

	memset(node, 0, sizeof(*node));
	if (len == 0 || len > PROV_NODE_PROBE_MAX || out[len - 1] != '\n' ||
	    memchr(out, '\n', len) != out + len - 1 ||
	    memchr(out, '\0', len) != NULL)
		return prov_fail(err, PROV_SANDBOX_UNAVAILABLE,
		    "node probe: not one line of output");
	memcpy(line, out, len);
	line[len] = '\0';
	if (strncmp(line, PROBE_MAGIC, sizeof(PROBE_MAGIC) - 1) != 0)
		return prov_fail(err, PROV_SANDBOX_UNAVAILABLE,
		    "node probe: unexpected output");
	s = line + sizeof(PROBE_MAGIC) - 1;
	n = strcspn(s, " ");
	if (n == 0 || n >= sizeof(node->version) || s[0] != 'v')
		return prov_fail(err, PROV_SANDBOX_UNAVAILABLE,
		    "node probe: no version");
	memcpy(node->version, s, n);
	node->version[n] = '\0';
	s += n;
	if (*s++ != ' ' ||
	    probe_field(&s, "permission", node->permission,
	    sizeof(node->permission)) == -1 || *s++ != ' ' ||
	    probe_field(&s, "vm", node->vm_modules,
	    sizeof(node->vm_modules)) == -1 || *s++ != ' ' ||
	    probe_field(&s, "codegen", codegen, sizeof(codegen)) == -1 ||
	    strcmp(s, "\n") != 0)
		return prov_fail(err, PROV_SANDBOX_UNAVAILABLE,
		    "node probe: malformed report");
	if (strcmp(node->permission, "--permission") != 0 &&
	    strcmp(node->permission, "--experimental-permission") != 0)
		return prov_fail(err, PROV_SANDBOX_UNAVAILABLE, "node %s has "
		    "no permission model (--permission)", node->version);
	if (strcmp(node->vm_modules, "builtin") == 0)
		node->vm_modules[0] = '\0';
	else if (strcmp(node->vm_modules, "--experimental-vm-modules") != 0)
		return prov_fail(err, PROV_SANDBOX_UNAVAILABLE, "node %s has "
		    "no vm.SourceTextModule", node->version);
	if (strcmp(codegen, "yes") != 0)
		return prov_fail(err, PROV_SANDBOX_UNAVAILABLE, "node %s lacks "
		    "--disallow-code-generation-from-strings", node->version);
	return 0;
}

/*
 * Run the probe once: node with an empty environment (so NODE_OPTIONS
 * and friends cannot change the answer), stdin and stderr on /dev/null,
 * at most PROV_NODE_PROBE_MAX bytes read, killed after 15 seconds.
 */
int
prov_node_probe(const char *nodepath, struct prov_node *node,
    struct prov_error *err)
{
	posix_spawn_file_actions_t	 fa;
	const char			*argv[5];
	char				*envp[] = { NULL };
	char				 out[PROV_NODE_PROBE_MAX + 1];
	struct pollfd			 pfd;
	int64_t				 deadline;
	size_t				 len = 0;
	ssize_t				 n;
	pid_t				 pid;
	int				 p[2], status, r, timedout = 0;

	memset(node, 0, sizeof(*node));
	prov_node_probe_argv(nodepath, argv, nitems(argv));
	if (pipe2(p, O_CLOEXEC) == -1)
		return prov_fail(err, PROV_SANDBOX_UNAVAILABLE,
		    "node probe: pipe: %s", strerror(errno));
	if ((r = posix_spawn_file_actions_init(&fa)) != 0 ||
	    (r = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
	    O_RDONLY, 0)) != 0 ||
	    (r = posix_spawn_file_actions_adddup2(&fa, p[1], 1)) != 0 ||
	    (r = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null",
	    O_WRONLY, 0)) != 0 ||
	    (r = posix_spawn(&pid, nodepath, &fa, NULL, (char **)argv,
	    envp)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		close(p[0]);
		close(p[1]);
		return prov_fail(err, PROV_SANDBOX_UNAVAILABLE,
		    "node probe: cannot run %s: %s", nodepath, strerror(r));
	}
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);

	deadline = (int64_t)monotonic_ms() + PROBE_TIMEOUT_MS;
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		int64_t	 left = deadline - (int64_t)monotonic_ms();

		if (left <= 0) {
			timedout = 1;
			break;
		}
		if ((r = poll(&pfd, 1, (int)left)) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (r == 0)
			continue;
		if ((n = read(p[0], out + len, sizeof(out) - len)) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == sizeof(out))
			break;		/* too much: the parse refuses */
	}
	close(p[0]);
	if (timedout || len == sizeof(out))
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return prov_fail(err, PROV_SANDBOX_UNAVAILABLE,
			    "node probe: waitpid: %s", strerror(errno));
	if (timedout)
		return prov_fail(err, PROV_SANDBOX_UNAVAILABLE,
		    "node probe: %s did not answer in %d ms", nodepath,
		    PROBE_TIMEOUT_MS);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return prov_fail(err, PROV_SANDBOX_UNAVAILABLE,
		    "node probe: %s failed (status %d)", nodepath, status);
	return prov_node_probe_parse(out, len, node, err);
}

/*
 * The provider command line; the strings are static or the caller's, so
 * the array is valid as long as node and the prov_node are.  Returns the
 * argument count (argv[count] is NULL), or 0 if argv is too small.
 */
size_t
prov_node_argv(const char *nodepath, const struct prov_node *node,
    const char **argv, size_t n)
{
	size_t	 i = 0;

	if (n < PROV_NODE_ARGV_MAX || node->permission[0] == '\0')
		return 0;
	argv[i++] = nodepath;
	argv[i++] = node->permission;
	argv[i++] = "--disallow-code-generation-from-strings";
	if (node->vm_modules[0] != '\0')
		argv[i++] = node->vm_modules;
	argv[i++] = "--no-warnings";
	argv[i++] = "-e";
	argv[i++] = prov_driver_source(NULL);
	argv[i] = NULL;
	return i;
}
