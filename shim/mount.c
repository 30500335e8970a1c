/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * mount.c: the sandbox's mount tree.
 *
 * Order:
 *  1. make the whole inherited tree private: nothing we mount reaches the
 *     host, nothing the host mounts later appears in the sandbox;
 *  2. clone every host tree the spec names (binds, device nodes, the
 *     workdir) into detached mounts with open_tree(), and make them
 *     read-only/nosuid/nodev while still detached, recursively, so no
 *     bind is ever visible writable, not even for a moment;
 *  3. cover SHIM_STAGE with the sized root tmpfs and build there: /proc
 *     (fresh, for our pid namespace, with the usual masks), /dev (a few
 *     host nodes, no tty), /tmp, the spec's mounts, the workdir;
 *  4. pivot_root into it, detach the host tree, make the root read-only.
 *
 * Opening every host path in step 2, before anything is mounted over
 * them, means no host path is ever looked up through a mount we made.
 */
#include <sys/types.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "spec.h"
#include "shim.h"

#define ATTR_RO		(MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | \
			    MOUNT_ATTR_NODEV)
#define ATTR_RW		(MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
#define ATTR_DEVNODE	(MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC)

/* Host device nodes bound into /dev.  No tty: a tty shared with the
 * caller is a way to inject input into the caller's session. */
static const char *const devnodes[] = {
	"null", "zero", "full", "random", "urandom",
};

/* /proc files the payload has no business reading (kernel memory and
 * address layouts, key material, scheduler internals): /dev/null over
 * each. */
static const char *const proc_masked_files[] = {
	"kcore", "keys", "key-users", "kallsyms", "timer_list",
	"sched_debug", "latency_stats", "kpagecount", "kpageflags",
	"kpagecgroup", "sysrq-trigger",
};

/* Directories of hardware knobs: an empty read-only tmpfs over each. */
static const char *const proc_masked_dirs[] = {
	"acpi", "asound", "scsi",
};

/* Kernel tunables: visible (programs read them) but read-only. */
static const char *const proc_readonly[] = {
	"sys", "irq", "bus", "fs",
};

struct tree {
	int	 fd;
	int	 isdir;
};

static struct tree	 binds[SBX_SPEC_MAXMOUNTS];
static struct tree	 devtrees[nitems(devnodes)];
static struct tree	 ttytree = { -1, 0 };	/* pty mode: /dev/tty */
static struct tree	 workdir = { -1, 1 };
static struct stat	 workdir_st;
static char		 workdir_same[PATH_MAX];	/* workdir same */

/* Where the workdir is inside: the spec's path, or (workdir same) the
 * host path this shim resolved from the descriptor; NULL: none. */
const char *
shim_workdir(const struct sbx_spec *sp)
{
	if (sp->workdir_same)
		return workdir_same[0] != '\0' ? workdir_same : NULL;
	return sp->workdir;
}

static void
stage_path(char *buf, size_t len, const char *inside)
{
	if ((size_t)snprintf(buf, len, "%s%s", SHIM_STAGE, inside) >= len)
		shim_fail(ENAMETOOLONG, "path %s", inside);
}

/* Clone a host tree, detached, with attrs applied to every submount. */
static void
open_host_tree(struct tree *t, const char *src, uint64_t attrs,
    int recursive, const char *what)
{
	struct mount_attr	 ma;
	struct stat		 st;
	unsigned int		 flags;

	flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC;
	if (recursive)
		flags |= AT_RECURSIVE;
	if ((t->fd = open_tree(AT_FDCWD, src, flags)) == -1)
		shim_fail(errno, "%s %s", what, src);
	memset(&ma, 0, sizeof(ma));
	ma.attr_set = attrs;
	if (mount_setattr(t->fd, "", AT_EMPTY_PATH |
	    (recursive ? AT_RECURSIVE : 0), &ma, sizeof(ma)) == -1)
		shim_fail(errno, "%s %s: set mount attributes", what, src);
	if (fstat(t->fd, &st) == -1)
		shim_fail(errno, "%s %s: fstat", what, src);
	t->isdir = S_ISDIR(st.st_mode);
}

/*
 * The workdir arrives as a directory fd opened in the caller's mount
 * namespace.  A bind straight from it fails (EINVAL: the mount is not in
 * our namespace), so bind the same path in our copy of the tree -- then
 * refuse unless it is the same directory (device and inode), since the
 * path may have been renamed or replaced since the caller opened it.
 */
static void
open_workdir(const struct sbx_spec *sp)
{
	struct mount_attr	 ma;
	struct stat		 st;
	char			 link[64], path[PATH_MAX];
	ssize_t			 n;

	if (fstat(SBX_SHIM_FD_WORKDIR, &workdir_st) == -1)
		shim_fail(errno, "workdir fd %d", SBX_SHIM_FD_WORKDIR);
	if (!S_ISDIR(workdir_st.st_mode))
		shim_fail(ENOTDIR, "workdir fd %d", SBX_SHIM_FD_WORKDIR);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", SBX_SHIM_FD_WORKDIR);
	if ((n = readlink(link, path, sizeof(path) - 1)) == -1)
		shim_fail(errno, "workdir: readlink %s", link);
	path[n] = '\0';
	if (path[0] != '/')
		shim_fail(ENOENT, "workdir: fd has no path in this namespace "
		    "(\"%.100s\")", path);
	if ((workdir.fd = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE |
	    OPEN_TREE_CLOEXEC | AT_RECURSIVE)) == -1)
		shim_fail(errno, "workdir: bind %s", path);
	if (fstat(workdir.fd, &st) == -1)
		shim_fail(errno, "workdir: fstat %s", path);
	if (st.st_dev != workdir_st.st_dev || st.st_ino != workdir_st.st_ino)
		shim_fail(EXDEV, "workdir: %s is no longer the directory "
		    "passed", path);
	/*
	 * workdir same: the mount point is the path just resolved from the
	 * descriptor in the service's own view (and checked to be that
	 * directory), never one an agent sent; it must not hide or lie in
	 * the sandbox's own tree or the profile's mounts.
	 */
	if (sp->workdir_same) {
		char	 err[SBX_SPEC_ERRLEN];

		if (sbx_spec_workdir_problem(sp, path, 1, err,
		    sizeof(err)) == -1)
			shim_fail(EPERM, "%s", err);
		strlcpy(workdir_same, path, sizeof(workdir_same));
	}
	memset(&ma, 0, sizeof(ma));
	ma.attr_set = ATTR_RW |
	    (sp->workdir_noexec ? MOUNT_ATTR_NOEXEC : 0);
	/* overlay: the directory is the lower layer, read-only. */
	if (sp->overlay)
		ma.attr_set |= MOUNT_ATTR_RDONLY;
	if (mount_setattr(workdir.fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &ma,
	    sizeof(ma)) == -1)
		shim_fail(errno, "workdir %s: set mount attributes", path);
	if (sp->overlay) {
		int	 lower = workdir.fd;

		workdir.fd = shim_overlay(lower, sp, &workdir_st);
		close(lower);
		/* From here on the workdir is the overlay's root. */
		if (fstat(workdir.fd, &workdir_st) == -1)
			shim_fail(errno, "workdir %s: fstat overlay", path);
	}
	close(SBX_SHIM_FD_WORKDIR);
}

/*
 * rw PATH per-caller: src is PATH/<uid>, this caller's own directory.
 * The shim makes it, as the sandbox's own host user, so no process of sbx
 * with privileges creates anything in a directory callers can write (PATH
 * is sticky and writable by them, like /tmp: sbx.conf(5)).  What is
 * there already must be a directory (not a symlink: O_NOFOLLOW) owned by
 * this sandbox's user; another caller's, or one planted by someone else to
 * be written into, is refused.  Mode 0700: no other caller reads it.
 */
static void
open_per_caller(struct tree *t, const struct sbx_mount *m, uint64_t attrs)
{
	struct mount_attr	 ma;
	struct stat		 st;
	char			 parent[PATH_MAX], *base;
	int			 pfd, fd;

	strlcpy(parent, m->src, sizeof(parent));
	if ((base = strrchr(parent, '/')) == NULL || base == parent)
		shim_fail(EINVAL, "per-caller %s: no parent", m->src);
	*base++ = '\0';
	if ((pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		shim_fail(errno, "per-caller %s", parent);
	if (mkdirat(pfd, base, 0700) == -1 && errno != EEXIST)
		shim_fail(errno, "per-caller %s: mkdir (%s must be writable "
		    "by the sandbox's user; mode 1733 for several callers)",
		    m->src, parent);
	/* O_PATH: the owner is checked before anything is read in it. */
	if ((fd = openat(pfd, base, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		shim_fail(errno, "per-caller %s (a directory, not a symlink)",
		    m->src);
	close(pfd);
	if (fstat(fd, &st) == -1)
		shim_fail(errno, "per-caller %s: fstat", m->src);
	if (st.st_uid != geteuid())
		shim_fail(EPERM, "per-caller %s: owned by another user, not "
		    "by this sandbox's (refused: it could be someone else's "
		    "cache or a planted one)", m->src);
	if ((st.st_mode & 077) != 0) {
		int	 rfd;

		if ((rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) == -1 || fchmod(rfd, 0700) == -1)
			shim_fail(errno, "per-caller %s: chmod 0700", m->src);
		close(rfd);
	}
	if ((t->fd = open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	    AT_EMPTY_PATH | AT_RECURSIVE)) == -1)
		shim_fail(errno, "per-caller %s: bind", m->src);
	close(fd);
	memset(&ma, 0, sizeof(ma));
	ma.attr_set = attrs;
	if (mount_setattr(t->fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &ma,
	    sizeof(ma)) == -1)
		shim_fail(errno, "per-caller %s: set mount attributes",
		    m->src);
	t->isdir = 1;
}

static void
open_trees(const struct sbx_spec *sp)
{
	const struct sbx_mount	*m;
	char			 src[32];
	size_t			 i;

	for (i = 0; i < sp->nmounts; i++) {
		m = &sp->mounts[i];
		binds[i].fd = -1;
		if (m->kind == SBX_MOUNT_TMPFS || m->kind == SBX_MOUNT_SYMLINK)
			continue;
		if (m->flags & SBX_MOUNT_F_PERCALLER) {
			open_per_caller(&binds[i], m, ATTR_RW |
			    ((m->flags & SBX_MOUNT_F_NOEXEC) ?
			    MOUNT_ATTR_NOEXEC : 0));
			continue;
		}
		open_host_tree(&binds[i], m->src,
		    m->kind == SBX_MOUNT_RO ? ATTR_RO : ATTR_RW |
		    ((m->flags & SBX_MOUNT_F_NOEXEC) ? MOUNT_ATTR_NOEXEC : 0),
		    1, "bind");
	}
	for (i = 0; i < nitems(devnodes); i++) {
		snprintf(src, sizeof(src), "/dev/%s", devnodes[i]);
		open_host_tree(&devtrees[i], src, ATTR_DEVNODE, 0, "bind");
	}
	/* /dev/tty names the opener's controlling terminal, which in pty
	 * mode is the sandbox's own pty: no host terminal is reached. */
	if (sp->pty)
		open_host_tree(&ttytree, "/dev/tty", ATTR_DEVNODE, 0, "bind");
	if (sp->workdir_fd)
		open_workdir(sp);
}

/* mkdir -p below the stage; every component is ours (tmpfs we made). */
static void
make_dirs(const char *inside)
{
	char	 path[PATH_MAX];
	size_t	 i, n;

	stage_path(path, sizeof(path), inside);
	n = strlen(path);
	for (i = strlen(SHIM_STAGE) + 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) == -1 && errno != EEXIST)
			shim_fail(errno, "mkdir %s", inside);
		if (i < n)
			path[i] = '/';
	}
}

static void
make_mountpoint(const char *inside, int isdir)
{
	char	 path[PATH_MAX], parent[PATH_MAX], *slash;
	int	 fd;

	if (isdir) {
		make_dirs(inside);
		return;
	}
	strlcpy(parent, inside, sizeof(parent));
	if ((slash = strrchr(parent, '/')) != NULL && slash != parent) {
		*slash = '\0';
		make_dirs(parent);
	}
	stage_path(path, sizeof(path), inside);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0644)) == -1)
		shim_fail(errno, "create mount point %s", inside);
	close(fd);
}

static void
attach(struct tree *t, const char *inside, const char *what)
{
	char	 path[PATH_MAX];

	make_mountpoint(inside, t->isdir);
	stage_path(path, sizeof(path), inside);
	if (move_mount(t->fd, "", AT_FDCWD, path,
	    MOVE_MOUNT_F_EMPTY_PATH) == -1)
		shim_fail(errno, "%s %s", what, inside);
	close(t->fd);
	t->fd = -1;
}

/* Sized, and with an inode cap: inodes cost kernel memory, not size. */
static void
mount_tmpfs(const char *path, const char *inside, uint64_t size, int mode,
    unsigned long flags)
{
	char		 opts[96];
	uint64_t	 inodes;

	inodes = size / 1024;
	if (inodes < 1024)
		inodes = 1024;
	snprintf(opts, sizeof(opts), "size=%llu,nr_inodes=%llu,mode=%o",
	    (unsigned long long)size, (unsigned long long)inodes, mode);
	if (mount("tmpfs", path, "tmpfs", flags, opts) == -1)
		shim_fail(errno, "tmpfs %s", inside);
}

static void
setattr_path(const char *path, const char *inside, uint64_t attrs,
    int recursive)
{
	struct mount_attr	 ma;

	memset(&ma, 0, sizeof(ma));
	ma.attr_set = attrs;
	if (mount_setattr(AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &ma,
	    sizeof(ma)) == -1)
		shim_fail(errno, "read-only %s", inside);
}

/*
 * Nested user namespaces would give the payload a fresh set of
 * capabilities over new namespaces (and the kernel attack surface behind
 * them).  The limit is per user namespace and ours may set it; the payload
 * filter refuses CLONE_NEWUSER as well.
 */
static void
deny_nested_userns(void)
{
	const char	*knob = SHIM_STAGE "/proc/sys/user/max_user_namespaces";
	int		 fd;

	if ((fd = open(knob, O_WRONLY | O_CLOEXEC)) == -1)
		shim_fail(errno, "user.max_user_namespaces");
	if (write(fd, "0\n", 2) != 2)
		shim_fail(errno, "user.max_user_namespaces = 0");
	close(fd);
}

static void
mount_proc(void)
{
	char		 path[PATH_MAX], inside[64];
	struct stat	 st;
	size_t		 i;

	make_dirs("/proc");
	stage_path(path, sizeof(path), "/proc");
	/* Mounted by pid 1 of the new pid namespace: it lists only the
	 * sandbox's processes. */
	if (mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    NULL) == -1)
		shim_fail(errno, "mount /proc");
	deny_nested_userns();

	for (i = 0; i < nitems(proc_masked_files); i++) {
		snprintf(inside, sizeof(inside), "/proc/%s",
		    proc_masked_files[i]);
		stage_path(path, sizeof(path), inside);
		if (lstat(path, &st) == -1 && errno == ENOENT)
			continue;
		if (mount("/dev/null", path, NULL, MS_BIND, NULL) == -1)
			shim_fail(errno, "mask %s", inside);
		setattr_path(path, inside, MOUNT_ATTR_RDONLY |
		    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, 0);
	}
	for (i = 0; i < nitems(proc_masked_dirs); i++) {
		snprintf(inside, sizeof(inside), "/proc/%s",
		    proc_masked_dirs[i]);
		stage_path(path, sizeof(path), inside);
		if (lstat(path, &st) == -1 && errno == ENOENT)
			continue;
		if (mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID |
		    MS_NODEV | MS_NOEXEC,
		    "size=4096,nr_inodes=2,mode=555") == -1)
			shim_fail(errno, "mask %s", inside);
	}
	for (i = 0; i < nitems(proc_readonly); i++) {
		snprintf(inside, sizeof(inside), "/proc/%s", proc_readonly[i]);
		stage_path(path, sizeof(path), inside);
		if (lstat(path, &st) == -1 && errno == ENOENT)
			continue;
		if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) == -1)
			shim_fail(errno, "bind %s", inside);
		setattr_path(path, inside, MOUNT_ATTR_RDONLY |
		    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
		    1);
	}
}

/*
 * pty mode: a devpts instance of the sandbox's own (newinstance), so the
 * payload sees and reaches no pty of the host's or another sandbox's,
 * and /dev/ptmx opens its multiplexer.  pid 1 takes the first pty from
 * it (pty.c); the payload may open more (script, tmux), up to max=64, so
 * it cannot use up the host's kernel.pty.max.
 */
static void
mount_devpts(void)
{
	char	 path[PATH_MAX];

	make_dirs("/dev/pts");
	stage_path(path, sizeof(path), "/dev/pts");
	if (mount("devpts", path, "devpts", MS_NOSUID | MS_NOEXEC,
	    "newinstance,ptmxmode=0666,mode=0620,max=64") == -1)
		shim_fail(errno, "devpts /dev/pts");
	stage_path(path, sizeof(path), "/dev/ptmx");
	if (symlink("pts/ptmx", path) == -1)
		shim_fail(errno, "symlink /dev/ptmx");
	attach(&ttytree, "/dev/tty", "bind");
}

static void
mount_dev(const struct sbx_spec *sp)
{
	static const struct {
		const char	*name;
		const char	*target;
	} links[] = {
		{ "fd",		"/proc/self/fd" },
		{ "stdin",	"/proc/self/fd/0" },
		{ "stdout",	"/proc/self/fd/1" },
		{ "stderr",	"/proc/self/fd/2" },
	};
	char		 path[PATH_MAX], inside[64];
	size_t		 i;

	make_dirs("/dev");
	stage_path(path, sizeof(path), "/dev");
	mount_tmpfs(path, "/dev", 64 * 1024, 0755,
	    MS_NOSUID | MS_NODEV | MS_NOEXEC);
	for (i = 0; i < nitems(devnodes); i++) {
		snprintf(inside, sizeof(inside), "/dev/%s", devnodes[i]);
		attach(&devtrees[i], inside, "bind");
	}
	for (i = 0; i < nitems(links); i++) {
		snprintf(inside, sizeof(inside), "/dev/%s", links[i].name);
		stage_path(path, sizeof(path), inside);
		if (symlink(links[i].target, path) == -1)
			shim_fail(errno, "symlink %s", inside);
	}
	if (sp->pty)
		mount_devpts();
	if (sp->dev_shm) {
		make_dirs("/dev/shm");
		stage_path(path, sizeof(path), "/dev/shm");
		mount_tmpfs(path, "/dev/shm", sp->tmp_size, 01777,
		    MS_NOSUID | MS_NODEV | (sp->tmp_noexec ? MS_NOEXEC : 0));
	}
	/* Only the /dev tmpfs itself; the nodes and /dev/shm stay usable. */
	stage_path(path, sizeof(path), "/dev");
	setattr_path(path, "/dev", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, 0);
}

static void
mount_spec(const struct sbx_spec *sp)
{
	const struct sbx_mount	*m;
	char			 path[PATH_MAX];
	size_t			 i;

	for (i = 0; i < sp->nmounts; i++) {
		m = &sp->mounts[i];
		if (m->kind == SBX_MOUNT_SYMLINK) {
			/* Merged /usr: /bin -> usr/bin as on the host, so
			 * that ELF interpreters and #! lines naming /bin,
			 * /lib or /lib64 resolve through the /usr bind. */
			stage_path(path, sizeof(path), m->dst);
			if (symlink(m->src, path) == -1)
				shim_fail(errno, "symlink %s -> %s", m->dst,
				    m->src);
			continue;
		}
		if (m->kind != SBX_MOUNT_TMPFS) {
			attach(&binds[i], m->dst, "bind");
			continue;
		}
		make_dirs(m->dst);
		stage_path(path, sizeof(path), m->dst);
		mount_tmpfs(path, m->dst, m->size, 0755, MS_NOSUID | MS_NODEV |
		    ((m->flags & SBX_MOUNT_F_NOEXEC) ? MS_NOEXEC : 0));
	}
}

static void
mount_workdir(const struct sbx_spec *sp, const char *wd)
{
	struct stat	 st;
	char		 path[PATH_MAX];

	if (sp->overlay) {
		make_mountpoint(wd, 1);
		stage_path(path, sizeof(path), wd);
		shim_overlay_bury(path);
	}
	attach(&workdir, wd, "workdir");
	stage_path(path, sizeof(path), wd);
	if (stat(path, &st) == -1)
		shim_fail(errno, "workdir %s: stat", wd);
	if (st.st_dev != workdir_st.st_dev || st.st_ino != workdir_st.st_ino)
		shim_fail(EXDEV, "workdir %s: the mounted directory is not "
		    "the one passed", wd);
}

/*
 * pivot_root(".", ".") stacks the old root on top of the new one; the
 * detach then drops the whole host tree from this namespace.
 */
static void
enter_root(void)
{
	struct mount_attr	 ma;

	if (chdir(SHIM_STAGE) == -1)
		shim_fail(errno, "chdir %s", SHIM_STAGE);
	if (syscall(SYS_pivot_root, ".", ".") == -1)
		shim_fail(errno, "pivot_root");
	if (umount2(".", MNT_DETACH) == -1)
		shim_fail(errno, "detach old root");
	if (chdir("/") == -1)
		shim_fail(errno, "chdir /");
	/* Writable from here on: /tmp, the workdir, rw binds and tmpfs
	 * mounts only. */
	memset(&ma, 0, sizeof(ma));
	ma.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	if (mount_setattr(AT_FDCWD, "/", 0, &ma, sizeof(ma)) == -1)
		shim_fail(errno, "read-only /");
}

void
shim_mounts(const struct sbx_spec *sp)
{
	const char	*wd;
	char		 path[PATH_MAX];

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		shim_fail(errno, "make / private");
	open_trees(sp);

	mount_tmpfs(SHIM_STAGE, "/", sp->root_size, 0755,
	    MS_NOSUID | MS_NODEV);
	mount_proc();
	mount_dev(sp);
	make_dirs("/tmp");
	stage_path(path, sizeof(path), "/tmp");
	mount_tmpfs(path, "/tmp", sp->tmp_size, 01777, MS_NOSUID | MS_NODEV |
	    (sp->tmp_noexec ? MS_NOEXEC : 0));
	mount_spec(sp);
	if ((wd = shim_workdir(sp)) != NULL)
		mount_workdir(sp, wd);
	shim_etc(sp);
	shim_cgroup_plan(sp);
	enter_root();
	if (chdir(wd != NULL ? wd : "/") == -1)
		shim_fail(errno, "chdir %s", wd);
}
