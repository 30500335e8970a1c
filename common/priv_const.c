/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * priv_const.c: the names a privilege file may use for argument values,
 * errno values and resource limits (sbx.priv(5)).
 *
 * Values come from the system headers at build time, never from numbers
 * typed here, so a table entry cannot disagree with the kernel ABI the
 * rest of sbx is compiled against.
 */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/futex.h>
#include <linux/netlink.h>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

struct named {
	const char	*name;
	uint64_t	 v;
};

/* Negative values (AT_FDCWD) are stored sign-extended, as libc passes them. */
#define C(x)	{ #x, (uint64_t)(int64_t)(x) }

static const struct named consts[] = {
	/* socket(2) domains */
	C(AF_UNSPEC), C(AF_UNIX), C(AF_LOCAL), C(AF_INET), C(AF_INET6),
	C(AF_NETLINK), C(AF_PACKET), C(AF_VSOCK), C(AF_BLUETOOTH), C(AF_ALG),
	C(AF_KEY), C(AF_XDP), C(AF_CAN), C(AF_TIPC), C(AF_RDS), C(AF_SMC),
	C(AF_KCM), C(AF_QIPCRTR), C(AF_LLC), C(AF_APPLETALK), C(AF_AX25),
	C(AF_X25), C(AF_NETROM), C(AF_ROSE), C(AF_PPPOX), C(AF_RXRPC),
	C(AF_PHONET), C(AF_IEEE802154), C(AF_CAIF), C(AF_NFC), C(AF_IB),
	C(AF_MPLS), C(AF_ATMPVC), C(AF_ATMSVC), C(AF_BRIDGE), C(AF_IPX),
	C(AF_DECnet), C(AF_SECURITY), C(AF_ISDN), C(AF_IUCV),
	/* socket(2) types and flags */
	C(SOCK_STREAM), C(SOCK_DGRAM), C(SOCK_RAW), C(SOCK_SEQPACKET),
	C(SOCK_RDM), C(SOCK_PACKET), C(SOCK_NONBLOCK), C(SOCK_CLOEXEC),
	/* socket(2) protocols */
	C(IPPROTO_IP), C(IPPROTO_TCP), C(IPPROTO_UDP), C(IPPROTO_ICMP),
	C(IPPROTO_ICMPV6), C(IPPROTO_IPV6), C(IPPROTO_RAW), C(IPPROTO_SCTP),
	C(NETLINK_ROUTE), C(NETLINK_USERSOCK), C(NETLINK_SOCK_DIAG),
	C(NETLINK_NFLOG), C(NETLINK_XFRM), C(NETLINK_SELINUX),
	C(NETLINK_ISCSI), C(NETLINK_AUDIT), C(NETLINK_FIB_LOOKUP),
	C(NETLINK_CONNECTOR), C(NETLINK_NETFILTER), C(NETLINK_IP6_FW),
	C(NETLINK_DNRTMSG), C(NETLINK_KOBJECT_UEVENT), C(NETLINK_GENERIC),
	C(NETLINK_SCSITRANSPORT), C(NETLINK_ECRYPTFS), C(NETLINK_RDMA),
	C(NETLINK_CRYPTO),
	/* setsockopt(2), shutdown(2), send/recv flags */
	C(SOL_SOCKET), C(SOL_TCP), C(SOL_IP), C(SOL_IPV6),
	C(SO_REUSEADDR), C(SO_REUSEPORT), C(SO_KEEPALIVE), C(SO_ERROR),
	C(SO_TYPE), C(SO_DOMAIN), C(SO_PEERCRED), C(SO_PEERGROUPS),
	C(SO_PASSCRED), C(SO_ACCEPTCONN),
	C(SO_RCVBUF), C(SO_SNDBUF), C(SO_LINGER), C(SO_BROADCAST),
	C(SO_RCVTIMEO), C(SO_SNDTIMEO), C(TCP_NODELAY), C(TCP_KEEPIDLE),
	C(TCP_KEEPINTVL), C(TCP_KEEPCNT),
	C(SHUT_RD), C(SHUT_WR), C(SHUT_RDWR),
	C(MSG_PEEK), C(MSG_DONTWAIT), C(MSG_NOSIGNAL), C(MSG_WAITALL),
	C(MSG_CMSG_CLOEXEC), C(MSG_TRUNC), C(MSG_OOB),
	/* mmap(2), mprotect(2), madvise(2) */
	C(PROT_NONE), C(PROT_READ), C(PROT_WRITE), C(PROT_EXEC),
	C(PROT_GROWSDOWN), C(PROT_GROWSUP),
	C(MAP_SHARED), C(MAP_PRIVATE), C(MAP_SHARED_VALIDATE), C(MAP_FIXED),
	C(MAP_ANONYMOUS), C(MAP_ANON), C(MAP_NORESERVE), C(MAP_GROWSDOWN),
	C(MAP_DENYWRITE), C(MAP_EXECUTABLE), C(MAP_LOCKED), C(MAP_POPULATE),
	C(MAP_NONBLOCK), C(MAP_STACK), C(MAP_HUGETLB), C(MAP_FIXED_NOREPLACE),
	C(MAP_SYNC),
	C(MADV_NORMAL), C(MADV_RANDOM), C(MADV_SEQUENTIAL), C(MADV_WILLNEED),
	C(MADV_DONTNEED), C(MADV_FREE), C(MADV_REMOVE), C(MADV_DONTFORK),
	C(MADV_DOFORK), C(MADV_MERGEABLE), C(MADV_UNMERGEABLE),
	C(MADV_HUGEPAGE), C(MADV_NOHUGEPAGE), C(MADV_DONTDUMP), C(MADV_DODUMP),
	C(MADV_WIPEONFORK), C(MADV_KEEPONFORK), C(MADV_COLD), C(MADV_PAGEOUT),
	C(MADV_HWPOISON),
	/* clone(2), unshare(2), setns(2) */
	C(CLONE_VM), C(CLONE_FS), C(CLONE_FILES), C(CLONE_SIGHAND),
	C(CLONE_PIDFD), C(CLONE_PTRACE), C(CLONE_VFORK), C(CLONE_PARENT),
	C(CLONE_THREAD), C(CLONE_NEWNS), C(CLONE_SYSVSEM), C(CLONE_SETTLS),
	C(CLONE_PARENT_SETTID), C(CLONE_CHILD_CLEARTID), C(CLONE_DETACHED),
	C(CLONE_UNTRACED), C(CLONE_CHILD_SETTID), C(CLONE_NEWCGROUP),
	C(CLONE_NEWUTS), C(CLONE_NEWIPC), C(CLONE_NEWUSER), C(CLONE_NEWPID),
	C(CLONE_NEWNET), C(CLONE_IO),
#ifdef CLONE_NEWTIME
	C(CLONE_NEWTIME),
#endif
	/* open(2) and *at(2) */
	C(O_RDONLY), C(O_WRONLY), C(O_RDWR), C(O_ACCMODE), C(O_CREAT),
	C(O_EXCL), C(O_NOCTTY), C(O_TRUNC), C(O_APPEND), C(O_NONBLOCK),
	C(O_DSYNC), C(O_SYNC), C(O_DIRECTORY), C(O_NOFOLLOW), C(O_CLOEXEC),
	C(O_PATH), C(O_TMPFILE), C(O_NOATIME), C(O_DIRECT), C(O_LARGEFILE),
	C(O_ASYNC),
	C(AT_FDCWD), C(AT_SYMLINK_NOFOLLOW), C(AT_REMOVEDIR),
	C(AT_SYMLINK_FOLLOW), C(AT_EMPTY_PATH), C(AT_NO_AUTOMOUNT),
	C(AT_EACCESS),
	/* file mode bits: chmod(2), open(2), mkdir(2), mknod(2) */
	C(S_ISUID), C(S_ISGID), C(S_ISVTX),
	/* fcntl(2) */
	C(F_DUPFD), C(F_DUPFD_CLOEXEC), C(F_GETFD), C(F_SETFD), C(F_GETFL),
	C(F_SETFL), C(F_GETLK), C(F_SETLK), C(F_SETLKW), C(F_OFD_GETLK),
	C(F_OFD_SETLK), C(F_OFD_SETLKW), C(F_SETOWN), C(F_GETOWN),
	C(F_SETSIG), C(F_GETSIG), C(F_NOTIFY), C(F_SETLEASE), C(F_GETLEASE),
	C(F_SETPIPE_SZ), C(F_GETPIPE_SZ), C(F_ADD_SEALS), C(F_GET_SEALS),
	C(FD_CLOEXEC),
	/* splice(2) */
	C(SPLICE_F_NONBLOCK),
	/* renameat2(2) */
	C(RENAME_NOREPLACE), C(RENAME_EXCHANGE),
	/* ioctl(2) requests */
	C(TIOCSTI), C(TIOCLINUX), C(TIOCGWINSZ), C(TIOCSWINSZ), C(TIOCSCTTY),
	C(TIOCNOTTY), C(TIOCGPGRP), C(TIOCSPGRP), C(TIOCGSID), C(TIOCGPTN),
	C(TIOCSPTLCK), C(TIOCGPTPEER), C(TIOCCONS), C(TIOCSETD), C(TIOCGETD),
	C(TIOCOUTQ), C(TIOCINQ), C(TIOCEXCL), C(TIOCNXCL), C(TIOCMGET),
	C(TIOCMSET), C(TCGETS), C(TCSETS), C(TCSETSW), C(TCSETSF), C(TCFLSH),
	C(TCXONC), C(TCSBRK), C(FIONREAD), C(FIONBIO), C(FIOCLEX),
	C(FIONCLEX), C(FIOASYNC),
	/* prctl(2) options */
	C(PR_SET_PDEATHSIG), C(PR_GET_PDEATHSIG), C(PR_SET_DUMPABLE),
	C(PR_GET_DUMPABLE), C(PR_SET_NAME), C(PR_GET_NAME),
	C(PR_SET_NO_NEW_PRIVS), C(PR_GET_NO_NEW_PRIVS), C(PR_SET_SECCOMP),
	C(PR_GET_SECCOMP), C(PR_CAPBSET_READ), C(PR_CAPBSET_DROP),
	C(PR_SET_KEEPCAPS), C(PR_GET_KEEPCAPS), C(PR_SET_SECUREBITS),
	C(PR_GET_SECUREBITS), C(PR_CAP_AMBIENT), C(PR_SET_CHILD_SUBREAPER),
	C(PR_GET_CHILD_SUBREAPER), C(PR_SET_TIMERSLACK), C(PR_GET_TIMERSLACK),
	C(PR_SET_THP_DISABLE), C(PR_GET_THP_DISABLE), C(PR_SET_MM),
	C(PR_SET_PTRACER), C(PR_GET_TID_ADDRESS), C(PR_SET_TSC), C(PR_GET_TSC),
	C(PR_SET_SPECULATION_CTRL), C(PR_GET_SPECULATION_CTRL), C(PR_MCE_KILL),
	C(PR_SET_VMA),
	/* personality(2) */
	C(PER_LINUX), C(PER_LINUX32), C(UNAME26), C(ADDR_NO_RANDOMIZE),
	C(FDPIC_FUNCPTRS), C(MMAP_PAGE_ZERO), C(ADDR_COMPAT_LAYOUT),
	C(READ_IMPLIES_EXEC), C(ADDR_LIMIT_32BIT), C(SHORT_INODE),
	C(WHOLE_SECONDS), C(STICKY_TIMEOUTS), C(ADDR_LIMIT_3GB),
	/* futex(2) */
	C(FUTEX_WAIT), C(FUTEX_WAKE), C(FUTEX_REQUEUE), C(FUTEX_CMP_REQUEUE),
	C(FUTEX_WAKE_OP), C(FUTEX_LOCK_PI), C(FUTEX_UNLOCK_PI),
	C(FUTEX_TRYLOCK_PI), C(FUTEX_WAIT_BITSET), C(FUTEX_WAKE_BITSET),
	C(FUTEX_WAIT_REQUEUE_PI), C(FUTEX_CMP_REQUEUE_PI),
	C(FUTEX_PRIVATE_FLAG), C(FUTEX_CLOCK_REALTIME),
	/* getrandom(2), clocks, signals, wait */
	C(GRND_NONBLOCK), C(GRND_RANDOM),
	C(CLOCK_REALTIME), C(CLOCK_MONOTONIC), C(CLOCK_PROCESS_CPUTIME_ID),
	C(CLOCK_THREAD_CPUTIME_ID), C(CLOCK_MONOTONIC_RAW),
	C(CLOCK_REALTIME_COARSE), C(CLOCK_MONOTONIC_COARSE), C(CLOCK_BOOTTIME),
	C(CLOCK_REALTIME_ALARM), C(CLOCK_BOOTTIME_ALARM), C(CLOCK_TAI),
	C(SIGHUP), C(SIGINT), C(SIGQUIT), C(SIGABRT), C(SIGKILL), C(SIGSEGV),
	C(SIGPIPE), C(SIGALRM), C(SIGTERM), C(SIGUSR1), C(SIGUSR2),
	C(SIGCHLD), C(SIGCONT), C(SIGSTOP), C(SIGWINCH), C(SIGSYS),
	C(P_ALL), C(P_PID), C(P_PGID), C(P_PIDFD),
	C(WNOHANG), C(WUNTRACED), C(WSTOPPED), C(WEXITED), C(WCONTINUED),
	C(WNOWAIT),
	C(SEEK_SET), C(SEEK_CUR), C(SEEK_END),
	/* prlimit64(2) resources */
	C(RLIMIT_CPU), C(RLIMIT_FSIZE), C(RLIMIT_DATA), C(RLIMIT_STACK),
	C(RLIMIT_CORE), C(RLIMIT_RSS), C(RLIMIT_NPROC), C(RLIMIT_NOFILE),
	C(RLIMIT_MEMLOCK), C(RLIMIT_AS), C(RLIMIT_LOCKS), C(RLIMIT_SIGPENDING),
	C(RLIMIT_MSGQUEUE), C(RLIMIT_NICE), C(RLIMIT_RTPRIO), C(RLIMIT_RTTIME),
};

/* "rlimit NAME": the setrlimit(2) resources, named as in ulimit(1). */
static const struct rlname {
	const char	*name;
	int		 resource;
} rlnames[] = {
	{ "as",		RLIMIT_AS },
	{ "core",	RLIMIT_CORE },
	{ "cpu",	RLIMIT_CPU },
	{ "data",	RLIMIT_DATA },
	{ "fsize",	RLIMIT_FSIZE },
	{ "locks",	RLIMIT_LOCKS },
	{ "memlock",	RLIMIT_MEMLOCK },
	{ "msgqueue",	RLIMIT_MSGQUEUE },
	{ "nice",	RLIMIT_NICE },
	{ "nofile",	RLIMIT_NOFILE },
	{ "nproc",	RLIMIT_NPROC },
	{ "rss",	RLIMIT_RSS },
	{ "rtprio",	RLIMIT_RTPRIO },
	{ "rttime",	RLIMIT_RTTIME },
	{ "sigpending",	RLIMIT_SIGPENDING },
	{ "stack",	RLIMIT_STACK },
};

/* Linux errno values stay far below this; glibc names each one. */
#define PRIV_ERRNO_LAST	200

int
priv_const_lookup(const char *name, uint64_t *v)
{
	size_t	 i;

	for (i = 0; i < nitems(consts); i++) {
		if (strcmp(consts[i].name, name) == 0) {
			*v = consts[i].v;
			return 0;
		}
	}
	return -1;
}

/*
 * glibc's strerrorname_np() is the table of errno names; only the
 * canonical spelling it returns is accepted (EAGAIN, not EWOULDBLOCK), so
 * that printing a table gives back the name the file used.
 */
int
priv_errno_lookup(const char *name, int *e)
{
	const char	*n;
	int		 i;

	for (i = 1; i <= PRIV_ERRNO_LAST; i++) {
		if ((n = strerrorname_np(i)) != NULL && strcmp(n, name) == 0) {
			*e = i;
			return 0;
		}
	}
	return -1;
}

const char *
priv_errno_name(int e)
{
	if (e < 1 || e > PRIV_ERRNO_LAST)
		return NULL;
	return strerrorname_np(e);
}

/* The keyword a privilege file spells an action with. */
const char *
priv_act_word(enum priv_act act)
{
	switch (act) {
	case PRIV_ACT_ALLOW:
		return "allow";
	case PRIV_ACT_KILL:
		return "kill";
	case PRIV_ACT_TRAP:
		return "trap";
	case PRIV_ACT_LOG:
		return "log";
	case PRIV_ACT_ERRNO:
		return "errno";
	}
	return "?";
}

int
priv_rlimit_lookup(const char *name, int *resource)
{
	size_t	 i;

	for (i = 0; i < nitems(rlnames); i++) {
		if (strcmp(rlnames[i].name, name) == 0) {
			*resource = rlnames[i].resource;
			return 0;
		}
	}
	return -1;
}

const char *
priv_rlimit_name(int resource)
{
	size_t	 i;

	for (i = 0; i < nitems(rlnames); i++)
		if (rlnames[i].resource == resource)
			return rlnames[i].name;
	return NULL;
}
