/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * priv_landlock.c: the Landlock part of a privilege file.
 *
 * The kernel's ABI version decides which access rights exist.  Rights the
 * running kernel lacks are dropped under "landlock best-effort" (with a
 * warning naming them) and refused under "landlock required" (with an
 * error naming them), so a policy never silently means less than it says.
 * An ABI newer than the newest known here is handled as that one: the
 * rights sbx knows are all still there.
 *
 * The access-right and ABI numbers below are the kernel's UAPI
 * (include/uapi/linux/landlock.h); the build headers (Linux 6.1) stop at
 * ABI 2, so they are spelled out here.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define LL_CREATE_RULESET_VERSION	(1U << 0)
#define LL_RULE_PATH_BENEATH		1
#define LL_RULE_NET_PORT		2

#define LL_FS_EXECUTE		(1ULL << 0)
#define LL_FS_WRITE_FILE	(1ULL << 1)
#define LL_FS_READ_FILE		(1ULL << 2)
#define LL_FS_READ_DIR		(1ULL << 3)
#define LL_FS_REMOVE_DIR	(1ULL << 4)
#define LL_FS_REMOVE_FILE	(1ULL << 5)
#define LL_FS_MAKE_CHAR		(1ULL << 6)
#define LL_FS_MAKE_DIR		(1ULL << 7)
#define LL_FS_MAKE_REG		(1ULL << 8)
#define LL_FS_MAKE_SOCK		(1ULL << 9)
#define LL_FS_MAKE_FIFO		(1ULL << 10)
#define LL_FS_MAKE_BLOCK	(1ULL << 11)
#define LL_FS_MAKE_SYM		(1ULL << 12)
#define LL_FS_REFER		(1ULL << 13)	/* ABI 2 */
#define LL_FS_TRUNCATE		(1ULL << 14)	/* ABI 3 */
#define LL_FS_IOCTL_DEV		(1ULL << 15)	/* ABI 5 */
#define LL_FS_V1		((1ULL << 13) - 1)
#define LL_FS_ALL		((1ULL << 16) - 1)
/* Rights that apply to a file (not a directory) in a path rule. */
#define LL_FS_FILE		(LL_FS_EXECUTE | LL_FS_WRITE_FILE | \
				    LL_FS_READ_FILE | LL_FS_TRUNCATE | \
				    LL_FS_IOCTL_DEV)
#define LL_FS_RO		(LL_FS_READ_FILE | LL_FS_READ_DIR)

#define LL_NET_BIND_TCP		(1ULL << 0)	/* ABI 4 */
#define LL_NET_CONNECT_TCP	(1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX	(1ULL << 0)	/* ABI 6 */
#define LL_SCOPE_SIGNAL		(1ULL << 1)

#define LL_ABI_NEWEST		7	/* 7 added audit logging */

/* struct landlock_ruleset_attr; its size tells the kernel the ABI used. */
struct ll_ruleset_attr {
	uint64_t	 handled_access_fs;
	uint64_t	 handled_access_net;	/* ABI 4 */
	uint64_t	 scoped;		/* ABI 6 */
};
struct ll_path_beneath_attr {
	uint64_t	 allowed_access;
	int32_t		 parent_fd;
} __attribute__((packed));
struct ll_net_port_attr {
	uint64_t	 allowed_access;
	uint64_t	 port;
};

/*
 * What each ABI added.  "weakens": without it the kernel enforces less
 * than the file says (so "required" refuses); refer's absence makes the
 * kernel deny every cross-directory link or rename, which is stricter.
 */
static const struct llabi {
	int		 abi;
	uint64_t	 fs;
	uint64_t	 net;
	uint64_t	 scope;
	int		 weakens;
	const char	*what;
} llabis[] = {
	{ 1, LL_FS_V1, 0, 0, 1, "file system access control" },
	{ 2, LL_FS_REFER, 0, 0, 0, "refer" },
	{ 3, LL_FS_TRUNCATE, 0, 0, 1, "truncate" },
	{ 4, 0, LL_NET_BIND_TCP | LL_NET_CONNECT_TCP, 0, 1,
	    "TCP bind/connect" },
	{ 5, LL_FS_IOCTL_DEV, 0, 0, 1, "ioctl on devices" },
	{ 6, 0, 0, LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL, 1,
	    "abstract unix socket and signal scoping" },
};

int
priv_landlock_abi(void)
{
	return (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LL_CREATE_RULESET_VERSION);
}

static uint64_t
path_access(enum priv_llaccess a)
{
	switch (a) {
	case PRIV_LLA_RO:
		return LL_FS_RO;
	case PRIV_LLA_RX:
		return LL_FS_RO | LL_FS_EXECUTE;
	case PRIV_LLA_RW:
		return LL_FS_ALL & ~LL_FS_EXECUTE;
	}
	return 0;
}

static uint64_t
baseline(enum priv_llfs fs)
{
	switch (fs) {
	case PRIV_LLFS_RO:
		return LL_FS_RO;
	case PRIV_LLFS_RX:
		return LL_FS_RO | LL_FS_EXECUTE;
	case PRIV_LLFS_OFF:
	case PRIV_LLFS_NONE:
		break;
	}
	return 0;
}

/*
 * What the table asks of an ABI-level kernel: the handled sets, what a
 * best-effort table loses there, or (required) an error naming it.
 */
int
priv_landlock_plan(const struct priv_table *t, int abi,
    struct priv_llplan *p, char *err, size_t errlen)
{
	uint64_t	 want_fs = 0, want_net = 0, want_scope = 0;
	uint64_t	 sup_fs = 0, sup_net = 0, sup_scope = 0;
	const struct llabi *l;
	size_t		 i, len;

	memset(p, 0, sizeof(*p));
	p->abi = abi > LL_ABI_NEWEST ? LL_ABI_NEWEST : abi;
	if (t->ll_fs != PRIV_LLFS_OFF)
		want_fs = LL_FS_ALL & ~baseline(t->ll_fs);
	if (t->ll_net)
		want_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
	if (t->ll_scopes & PRIV_LLSCOPE_ABSTRACT_UNIX)
		want_scope |= LL_SCOPE_ABSTRACT_UNIX;
	if (t->ll_scopes & PRIV_LLSCOPE_SIGNAL)
		want_scope |= LL_SCOPE_SIGNAL;

	for (i = 0; i < nitems(llabis); i++) {
		l = &llabis[i];
		if (l->abi <= p->abi) {
			sup_fs |= l->fs;
			sup_net |= l->net;
			sup_scope |= l->scope;
			continue;
		}
		if (!l->weakens || ((l->fs & want_fs) == 0 &&
		    (l->net & want_net) == 0 && (l->scope & want_scope) == 0))
			continue;
		if (t->ll_mode == PRIV_LL_REQUIRED) {
			snprintf(err, errlen, "%s: landlock required: the "
			    "kernel's Landlock ABI %d lacks %s (ABI %d)",
			    t->file, abi, l->what, l->abi);
			return -1;
		}
		len = strlen(p->dropped);
		snprintf(p->dropped + len, sizeof(p->dropped) - len, "%s%s "
		    "(ABI %d)", len ? ", " : "", l->what, l->abi);
	}
	p->handled_fs = want_fs & sup_fs;
	p->handled_net = want_net & sup_net;
	p->scoped = want_scope & sup_scope;
	return 0;
}

static int
add_path(int rfd, const struct priv_table *t, const struct priv_llpath *lp,
    uint64_t handled, char *err, size_t errlen)
{
	struct ll_path_beneath_attr	 pb;
	struct stat			 st;
	static const char		*acc[] = { "", "ro", "rx", "rw" };
	const char			*a = acc[lp->access % nitems(acc)];
	int				 fd;

	if ((fd = open(lp->path, O_PATH | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: landlock %s \"%s\": open: %s",
		    t->file, a, lp->path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1) {
		snprintf(err, errlen, "%s: landlock %s \"%s\": fstat: %s",
		    t->file, a, lp->path, strerror(errno));
		close(fd);
		return -1;
	}
	pb.allowed_access = path_access(lp->access) & handled;
	if (!S_ISDIR(st.st_mode))
		pb.allowed_access &= LL_FS_FILE;
	pb.parent_fd = fd;
	/* Under best-effort a rule may have nothing left to grant. */
	if (pb.allowed_access != 0 && syscall(SYS_landlock_add_rule, rfd,
	    LL_RULE_PATH_BENEATH, &pb, 0) == -1) {
		snprintf(err, errlen, "%s: landlock %s \"%s\": "
		    "landlock_add_rule: %s", t->file, a, lp->path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int
add_rules(int rfd, const struct priv_table *t, const struct priv_llplan *p,
    char *err, size_t errlen)
{
	struct ll_net_port_attr	 np;
	size_t			 i;

	for (i = 0; p->handled_fs != 0 && i < t->nll_paths; i++)
		if (add_path(rfd, t, &t->ll_paths[i], p->handled_fs, err,
		    errlen) == -1)
			return -1;
	for (i = 0; p->handled_net != 0 && i < t->nll_ports; i++) {
		np.allowed_access = t->ll_ports[i].kind == PRIV_LLP_BIND ?
		    LL_NET_BIND_TCP : LL_NET_CONNECT_TCP;
		np.port = t->ll_ports[i].port;
		if (syscall(SYS_landlock_add_rule, rfd, LL_RULE_NET_PORT, &np,
		    0) == -1) {
			snprintf(err, errlen, "%s: landlock %s %u: "
			    "landlock_add_rule: %s", t->file,
			    t->ll_ports[i].kind == PRIV_LLP_BIND ? "bind" :
			    "connect", t->ll_ports[i].port, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * Build and enforce the ruleset.  The caller has set no_new_privs:
 * landlock_restrict_self() refuses without it unless the process holds
 * CAP_SYS_ADMIN.
 */
int
priv_landlock_apply(const struct priv_table *t, char *err, size_t errlen)
{
	struct ll_ruleset_attr	 attr;
	struct priv_llplan	 p;
	const char		*why;
	size_t			 size;
	int			 abi, rfd;

	if (t->ll_mode == PRIV_LL_OFF)
		return 0;
	if ((abi = priv_landlock_abi()) < 1) {
		why = errno == ENOSYS ? "the kernel has no Landlock (ENOSYS)" :
		    errno == EOPNOTSUPP ? "Landlock is disabled (EOPNOTSUPP: "
		    "add landlock to the lsm= boot parameter)" :
		    strerror(errno);
		if (t->ll_mode == PRIV_LL_REQUIRED) {
			snprintf(err, errlen, "%s: landlock required: %s",
			    t->file, why);
			return -1;
		}
		log_warnx("%s: landlock best-effort: %s; running without it",
		    t->file, why);
		return 0;
	}
	if (priv_landlock_plan(t, abi, &p, err, errlen) == -1)
		return -1;
	if (p.dropped[0] != '\0')
		log_warnx("%s: landlock best-effort: kernel ABI %d does not "
		    "enforce %s", t->file, abi, p.dropped);
	if (p.handled_fs == 0 && p.handled_net == 0 && p.scoped == 0)
		return 0;

	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = p.handled_fs;
	attr.handled_access_net = p.handled_net;
	attr.scoped = p.scoped;
	/* Older kernels refuse a larger struct with non-zero fields only;
	 * pass exactly the part this ABI knows. */
	size = p.abi >= 6 ? sizeof(attr) : p.abi >= 4 ?
	    2 * sizeof(uint64_t) : sizeof(uint64_t);
	if ((rfd = (int)syscall(SYS_landlock_create_ruleset, &attr, size,
	    0)) == -1) {
		snprintf(err, errlen, "%s: landlock_create_ruleset: %s",
		    t->file, strerror(errno));
		return -1;
	}
	if (add_rules(rfd, t, &p, err, errlen) == -1) {
		close(rfd);
		return -1;
	}
	if (syscall(SYS_landlock_restrict_self, rfd, 0) == -1) {
		snprintf(err, errlen, "%s: landlock_restrict_self: %s%s",
		    t->file, strerror(errno), errno == EPERM ?
		    " (no_new_privs is not set)" : "");
		close(rfd);
		return -1;
	}
	close(rfd);
	return 0;
}
