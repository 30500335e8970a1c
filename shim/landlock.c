/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * landlock.c: the payload's file-system (and TCP) rights, from the spec.
 *
 * The mount tree already decides what exists; Landlock is the second wall
 * for when a mount flag is not enough (a payload that finds a way to
 * remount, or a bind whose submount the kernel left writable):
 *   - read and execute beneath the read-only binds;
 *   - read and write beneath /tmp, /dev/shm, the workdir, read-write
 *     binds and tmpfs mounts, and execute there too unless the profile
 *     says noexec for that mount (an agent builds and runs code in its
 *     workdir; the mount flag and this rule agree either way);
 *   - read and write of the few device nodes (in pty mode also /dev/tty
 *     and the sandbox's own /dev/pts, with ioctls), read of /proc,
 *     listing of the root's mount-point directories;
 *   - read of /sys/fs/cgroup, the sandbox's own cgroups (cgroupfs.c),
 *     and of the generated /etc files (etc.c);
 *   - nothing else; TCP bind/connect on the sandbox's own loopback (its
 *     network namespace has nothing else), or with "loopback no" none
 *     (network "none"; "proxy": connect to the proxy's port 3128 only),
 *     and, where the
 *     kernel can, no abstract unix sockets or signals outside the sandbox.
 * Rights the running kernel does not know are left out of the ruleset
 * (best effort by ABI, as the kernel's sandboxer sample does); a kernel
 * without Landlock at all fails the sandbox.
 */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/landlock.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "spec.h"
#include "shim.h"

/* Rights newer than the build host's header, by ABI version. */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER		(1ULL << 13)	/* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE		(1ULL << 14)	/* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV		(1ULL << 15)	/* ABI 5 */
#endif
#define LL_ACCESS_NET_BIND_TCP			(1ULL << 0)	/* ABI 4 */
#define LL_ACCESS_NET_CONNECT_TCP		(1ULL << 1)	/* ABI 4 */
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET		(1ULL << 0)	/* ABI 6 */
#define LL_SCOPE_SIGNAL				(1ULL << 1)	/* ABI 6 */

/* struct landlock_net_port_attr and its rule type (ABI 4). */
#define LL_RULE_NET_PORT			2
struct ll_net_port_attr {
	uint64_t	 allowed_access;
	uint64_t	 port;
} __attribute__((packed));

/* The kernel's struct landlock_ruleset_attr as of ABI 6; the size we
 * pass tells the kernel which fields we mean. */
struct ll_ruleset_attr {
	uint64_t	 handled_access_fs;
	uint64_t	 handled_access_net;
	uint64_t	 scoped;
};

#define FS_READ		(LANDLOCK_ACCESS_FS_READ_FILE | \
			    LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_EXEC		LANDLOCK_ACCESS_FS_EXECUTE
#define FS_WRITE	(LANDLOCK_ACCESS_FS_WRITE_FILE | \
			    LANDLOCK_ACCESS_FS_REMOVE_DIR | \
			    LANDLOCK_ACCESS_FS_REMOVE_FILE | \
			    LANDLOCK_ACCESS_FS_MAKE_DIR | \
			    LANDLOCK_ACCESS_FS_MAKE_REG | \
			    LANDLOCK_ACCESS_FS_MAKE_SYM | \
			    LANDLOCK_ACCESS_FS_MAKE_FIFO | \
			    LANDLOCK_ACCESS_FS_MAKE_SOCK | \
			    LANDLOCK_ACCESS_FS_REFER | \
			    LANDLOCK_ACCESS_FS_TRUNCATE)
/* Rights that apply to a file (as opposed to a directory) rule. */
#define FS_FILE		(LANDLOCK_ACCESS_FS_EXECUTE | \
			    LANDLOCK_ACCESS_FS_WRITE_FILE | \
			    LANDLOCK_ACCESS_FS_READ_FILE | \
			    LANDLOCK_ACCESS_FS_TRUNCATE | \
			    LANDLOCK_ACCESS_FS_IOCTL_DEV)

static int		 ruleset = -1;
static uint64_t		 handled;

static uint64_t
fs_handled_for_abi(int abi)
{
	uint64_t	 h;

	/* ABI 1: execute through make_sym. */
	h = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;
	if (abi >= 2)
		h |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		h |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		h |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return h;
}

/* Missing paths are skipped: the spec's tree decides what exists. */
static void
allow(const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr	 pb;
	struct stat				 st;
	int					 fd;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return;
		shim_fail(errno, "landlock %s", path);
	}
	if (fstat(fd, &st) == -1)
		shim_fail(errno, "landlock %s: fstat", path);
	if (!S_ISDIR(st.st_mode))
		access &= FS_FILE;
	memset(&pb, 0, sizeof(pb));
	pb.allowed_access = access & handled;
	pb.parent_fd = fd;
	if (pb.allowed_access != 0 && syscall(SYS_landlock_add_rule, ruleset,
	    LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == -1)
		shim_fail(errno, "landlock rule %s", path);
	close(fd);
}

void
shim_landlock(const struct sbx_spec *sp)
{
	static const char *const devs[] = {
		"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
		"/dev/urandom",
	};
	/* etc.c's, or the profile's where it bound its own. */
	static const char *const etc[] = {
		"/etc/passwd", "/etc/group", "/etc/hosts", "/etc/nsswitch.conf",
	};
	struct ll_ruleset_attr	 attr;
	const struct sbx_mount	*m;
	size_t			 i, size;
	int			 abi;

	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1)
		shim_fail(errno, "landlock: not available in this kernel "
		    "(CONFIG_SECURITY_LANDLOCK, lsm=landlock)");
	memset(&attr, 0, sizeof(attr));
	handled = fs_handled_for_abi(abi);
	attr.handled_access_fs = handled;
	size = sizeof(attr.handled_access_fs);
	/* The sandbox's own loopback is all its network namespace has
	 * (net.c): TCP there is handled only when the profile says
	 * "loopback no". */
	if (abi >= 4 && sp->no_loopback) {
		attr.handled_access_net = LL_ACCESS_NET_BIND_TCP |
		    LL_ACCESS_NET_CONNECT_TCP;
		size = offsetof(struct ll_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		size = sizeof(attr);
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
	}
	if ((ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size,
	    0)) == -1)
		shim_fail(errno, "landlock: create ruleset (ABI %d)", abi);

	allow("/", LANDLOCK_ACCESS_FS_READ_DIR);
	allow("/proc", FS_READ);
	allow("/sys/fs/cgroup", FS_READ);
	for (i = 0; i < nitems(etc); i++)
		allow(etc[i], LANDLOCK_ACCESS_FS_READ_FILE);
	allow("/dev", LANDLOCK_ACCESS_FS_READ_DIR);
	for (i = 0; i < nitems(devs); i++)
		allow(devs[i], LANDLOCK_ACCESS_FS_READ_FILE |
		    LANDLOCK_ACCESS_FS_WRITE_FILE |
		    LANDLOCK_ACCESS_FS_TRUNCATE);
	/* pty mode: the controlling terminal and the sandbox's own devpts
	 * (script, tmux open more ptys); IOCTL_DEV for job control and
	 * termios on what is opened by path.  No host terminal is there. */
	if (sp->pty) {
		allow("/dev/tty", LANDLOCK_ACCESS_FS_READ_FILE |
		    LANDLOCK_ACCESS_FS_WRITE_FILE |
		    LANDLOCK_ACCESS_FS_IOCTL_DEV);
		allow("/dev/pts", LANDLOCK_ACCESS_FS_READ_DIR |
		    LANDLOCK_ACCESS_FS_READ_FILE |
		    LANDLOCK_ACCESS_FS_WRITE_FILE |
		    LANDLOCK_ACCESS_FS_IOCTL_DEV);
	}
	allow("/tmp", FS_READ | FS_WRITE | (sp->tmp_noexec ? 0 : FS_EXEC));
	if (sp->dev_shm)
		allow("/dev/shm", FS_READ | FS_WRITE |
		    (sp->tmp_noexec ? 0 : FS_EXEC));
	for (i = 0; i < sp->nmounts; i++) {
		m = &sp->mounts[i];
		/* A symlink's target is a path some other rule covers. */
		if (m->kind == SBX_MOUNT_SYMLINK)
			continue;
		allow(m->dst, m->kind == SBX_MOUNT_RO ? FS_READ | FS_EXEC :
		    FS_READ | FS_WRITE |
		    ((m->flags & SBX_MOUNT_F_NOEXEC) ? 0 : FS_EXEC));
	}
	if (shim_workdir(sp) != NULL)
		allow(shim_workdir(sp), FS_READ | FS_WRITE |
		    (sp->workdir_noexec ? 0 : FS_EXEC));
	/* network proxy: TCP connect to the proxy's port, nothing else
	 * (the namespace has only lo; this is the second wall). */
	if (abi >= 4 && sp->no_loopback && sp->net == SBX_NET_PROXY) {
		struct ll_net_port_attr	 np;

		memset(&np, 0, sizeof(np));
		np.allowed_access = LL_ACCESS_NET_CONNECT_TCP;
		np.port = SBX_PROXY_PORT;
		if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_NET_PORT,
		    &np, 0) == -1)
			shim_fail(errno, "landlock rule tcp connect %d",
			    SBX_PROXY_PORT);
	}

	if (syscall(SYS_landlock_restrict_self, ruleset, 0) == -1)
		shim_fail(errno, "landlock: restrict self");
	close(ruleset);
	ruleset = -1;
}
