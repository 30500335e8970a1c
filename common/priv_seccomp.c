/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * priv_seccomp.c: the seccomp part of a privilege file, compiled with
 * libseccomp for the native architecture only.
 *
 * Threats and answers:
 * - Foreign architectures and the x32 ABI reach the kernel with other
 *   syscall numbers (int 0x80, nr | 0x40000000): the filter's bad-arch
 *   action is KILL_PROCESS, so any syscall not made as x86_64 kills.
 * - A 64-bit compare on an argument the kernel reads as 32 bits is
 *   bypassed by setting the high bits (CVE-2019-10063, TIOCSTI): such
 *   compares are masked to the low 32 bits (see narrow()).
 * - Freeing memory after the filter is loaded could itself make a
 *   syscall the filter kills: the program is compiled into memory first,
 *   and loading it is the last thing apply does.
 * - A multi-threaded caller would leave threads unfiltered: the filter is
 *   loaded with SECCOMP_FILTER_FLAG_TSYNC.
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#if !defined(__x86_64__)
#error "privilege files name x86_64 syscalls; see sbx.priv(5)"
#endif

#define ARG(n)		(1U << (n))
#define LOW32		0xffffffffULL

/*
 * Argument widths as the x86_64 kernel reads them (from the SYSCALL_DEFINE
 * prototypes).  w32: int or unsigned int, so the kernel ignores bits 32-63;
 * w64: the kernel uses all 64 bits.  Arguments not listed are unknown.
 * clone's flags are declared unsigned long but the kernel takes only
 * lower_32_bits() of them.
 */
static const struct width {
	const char	*name;
	unsigned int	 w32;
	unsigned int	 w64;
} widths[] = {
	{ "accept4", ARG(0) | ARG(3), 0 },
	{ "bpf", ARG(0), 0 },
	{ "clock_adjtime", ARG(0), 0 },
	{ "clock_settime", ARG(0), 0 },
	{ "clone", ARG(0), 0 },
	{ "close", ARG(0), 0 },
	{ "dup3", ARG(0) | ARG(1) | ARG(2), 0 },
	{ "epoll_create1", ARG(0), 0 },
	{ "eventfd2", ARG(0) | ARG(1), 0 },
	{ "execveat", ARG(0) | ARG(4), 0 },
	{ "fcntl", ARG(0) | ARG(1), ARG(2) },
	{ "flock", ARG(0) | ARG(1), 0 },
	{ "futex", ARG(1) | ARG(2), 0 },
	{ "getrandom", ARG(2), ARG(1) },
	{ "getsockopt", ARG(0) | ARG(1) | ARG(2), 0 },
	{ "ioctl", ARG(0) | ARG(1), ARG(2) },
	{ "keyctl", ARG(0), 0 },
	{ "kill", ARG(0) | ARG(1), 0 },
	{ "listen", ARG(0) | ARG(1), 0 },
	{ "lseek", ARG(0) | ARG(2), ARG(1) },
	{ "madvise", ARG(2), ARG(0) | ARG(1) },
	{ "memfd_create", ARG(1), 0 },
	{ "mmap", ARG(4), ARG(0) | ARG(1) | ARG(2) | ARG(3) | ARG(5) },
	{ "mount", 0, ARG(3) },
	{ "mprotect", 0, ARG(0) | ARG(1) | ARG(2) },
	{ "open", ARG(1) | ARG(2), 0 },
	{ "openat", ARG(0) | ARG(2) | ARG(3), 0 },
	{ "personality", ARG(0), 0 },
	{ "pidfd_open", ARG(0) | ARG(1), 0 },
	{ "pidfd_send_signal", ARG(0) | ARG(1) | ARG(3), 0 },
	{ "pipe2", ARG(1), 0 },
	{ "pkey_mprotect", ARG(3), ARG(0) | ARG(1) | ARG(2) },
	{ "prctl", ARG(0), ARG(1) | ARG(2) | ARG(3) | ARG(4) },
	{ "prlimit64", ARG(0) | ARG(1), 0 },
	{ "ptrace", ARG(1), ARG(0) },
	{ "read", ARG(0), ARG(2) },
	{ "recvfrom", ARG(0) | ARG(3), ARG(2) },
	{ "recvmsg", ARG(0) | ARG(2), 0 },
	{ "sendmsg", ARG(0) | ARG(2), 0 },
	{ "sendto", ARG(0) | ARG(3), ARG(2) },
	{ "setns", ARG(0) | ARG(1), 0 },
	{ "setrlimit", ARG(0), 0 },
	{ "setsockopt", ARG(0) | ARG(1) | ARG(2), 0 },
	{ "shutdown", ARG(0) | ARG(1), 0 },
	{ "socket", ARG(0) | ARG(1) | ARG(2), 0 },
	{ "socketpair", ARG(0) | ARG(1) | ARG(2), 0 },
	{ "tgkill", ARG(0) | ARG(1) | ARG(2), 0 },
	{ "tkill", ARG(0) | ARG(1), 0 },
	{ "umount2", ARG(1), 0 },
	{ "unshare", 0, ARG(0) },
	{ "wait4", ARG(0) | ARG(2), 0 },
	{ "waitid", ARG(0) | ARG(1) | ARG(3), 0 },
	{ "write", ARG(0), ARG(2) },
};

/*
 * Sanitizer builds only (SBX_SANITIZE, make sanitize): what the ASan and
 * UBSan runtime calls inside a filtered program, measured with strace -f
 * and the kills ("lost child ... signal 31") of the suite's sanitizer
 * run.  Added to filters whose default refuses, for calls the table has
 * no rule of its own for (the table's rule still decides those).  Release
 * builds compile none of this: the privilege files operators audit are
 * exactly what those filters do.
 *
 * Allowed: the runtime cannot work without them.
 *   sigaltstack   __asan_handle_no_return, before every call that does
 *                 not return, checks whether it runs on an alternate
 *                 signal stack
 *   madvise       the allocator hands freed memory and shadow back
 *   futex sched_yield  the runtime's internal locks
 *   getpid gettid report headers; the allocator's per-thread caches
 *   munmap        the allocator and the report code unmap
 * Answered with EPERM: the runtime probes them while reporting and copes
 * with the refusal; a kill would lose the report.
 *   openat readlink readlinkat  /proc/self/maps, /proc/self/exe for the
 *                 report's module list
 */
#ifdef SBX_SANITIZE
static const char *const san_allow[] = {
	"sigaltstack", "madvise", "futex", "sched_yield", "getpid", "gettid",
	"munmap"
};
static const char *const san_errno[] = {
	"openat", "readlink", "readlinkat"
};
#endif

struct priv_bpf {
	size_t			 len;
	struct sock_filter	 insns[BPF_MAXINSNS];
};

static int	serr(char *, size_t, const struct priv_table *, unsigned int,
		    const char *, ...) SBX_PRINTF(5, 6);

static int
serr(char *err, size_t errlen, const struct priv_table *t, unsigned int line,
    const char *fmt, ...)
{
	char	 msg[384];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line != 0)
		snprintf(err, errlen, "%s:%u: seccomp: %s", t->file, line, msg);
	else
		snprintf(err, errlen, "%s: seccomp: %s", t->file, msg);
	return -1;
}

static uint32_t
scmp_action(enum priv_act act, int e)
{
	switch (act) {
	case PRIV_ACT_ALLOW:
		return SCMP_ACT_ALLOW;
	case PRIV_ACT_TRAP:
		return SCMP_ACT_TRAP;
	case PRIV_ACT_LOG:
		return SCMP_ACT_LOG;
	case PRIV_ACT_ERRNO:
		return SCMP_ACT_ERRNO((uint32_t)e);
	case PRIV_ACT_KILL:
		break;
	}
	/* Threads (libevent, libsodium) must not survive half-killed. */
	return SCMP_ACT_KILL_PROCESS;
}

static int
fits32(uint64_t v)
{
	/* unsigned 32-bit, or a sign-extended negative int */
	return v <= LOW32 || v >= 0xffffffff80000000ULL;
}

static const struct width *
width_of(const char *name)
{
	size_t	 i;

	for (i = 0; i < nitems(widths); i++)
		if (strcmp(widths[i].name, name) == 0)
			return &widths[i];
	return NULL;
}

/*
 * Compare only the low 32 bits?  Always when the kernel reads the
 * argument as 32 bits.  In a deny rule also when the width is unknown and
 * the values fit: masking can only make a deny rule catch more.  Never in
 * an allow rule on an argument the kernel reads whole, where masking
 * would let calls through that differ only in the high bits.
 */
static int
narrow(const struct priv_rule *r, const char *sys, const struct priv_cond *c,
    uint64_t v)
{
	const struct width	*w = width_of(sys);
	int			 deny;

	if (w != NULL && (w->w32 & ARG(c->arg)))
		return 1;
	if (w != NULL && (w->w64 & ARG(c->arg)))
		return 0;
	deny = r->act != PRIV_ACT_ALLOW && r->act != PRIV_ACT_LOG;
	if (!deny || !fits32(v))
		return 0;
	return c->op != PRIV_OP_MASKED_EQ || fits32(c->mask.v);
}

static struct scmp_arg_cmp
mkcmp(const struct priv_rule *r, const char *sys, const struct priv_cond *c,
    uint64_t v)
{
	struct scmp_arg_cmp	 a;
	int			 n = narrow(r, sys, c, v);

	memset(&a, 0, sizeof(a));
	a.arg = c->arg;
	switch (c->op) {
	case PRIV_OP_NE:
		/* only in deny rules, where high bits can only widen it */
		a.op = SCMP_CMP_NE;
		a.datum_a = v;
		break;
	case PRIV_OP_MASKED_EQ:
		a.op = SCMP_CMP_MASKED_EQ;
		a.datum_a = n ? c->mask.v & LOW32 : c->mask.v;
		a.datum_b = n ? v & LOW32 : v;
		break;
	case PRIV_OP_EQ:
	case PRIV_OP_IN:
		if (n) {
			a.op = SCMP_CMP_MASKED_EQ;
			a.datum_a = LOW32;
			a.datum_b = v & LOW32;
		} else {
			a.op = SCMP_CMP_EQ;
			a.datum_a = v;
		}
		break;
	}
	return a;
}

/* One seccomp rule per combination of "in" set members. */
static int
add_rule(scmp_filter_ctx ctx, const struct priv_table *t,
    const struct priv_rule *r, const struct priv_syscall *s, char *err,
    size_t errlen)
{
	struct scmp_arg_cmp	 cmp[PRIV_ARGS];
	size_t			 idx[PRIV_ARGS], i;
	uint32_t		 act = scmp_action(r->act, r->err);
	int			 rc;

	if (r->nconds > PRIV_ARGS)
		return serr(err, errlen, t, r->line, "more than %d conditions",
		    PRIV_ARGS);
	memset(idx, 0, sizeof(idx));
	for (;;) {
		for (i = 0; i < r->nconds; i++)
			cmp[i] = mkcmp(r, s->name, &r->conds[i],
			    r->conds[i].vals[idx[i]].v);
		rc = seccomp_rule_add_exact_array(ctx, act, s->nr,
		    (unsigned int)r->nconds, cmp);
		if (rc < 0)
			return serr(err, errlen, t, r->line, "%s: libseccomp "
			    "refused the rule: %s", s->name, strerror(-rc));
		/* next combination, odometer style */
		for (i = 0; i < r->nconds; i++) {
			if (++idx[i] < r->conds[i].nvals)
				break;
			idx[i] = 0;
		}
		if (i == r->nconds)
			return 0;
	}
}

#ifdef SBX_SANITIZE
/* Does the table have a rule of its own for this system call? */
static int
has_rule(const struct priv_table *t, const char *name)
{
	size_t	 i, j;

	for (i = 0; i < t->nrules; i++)
		for (j = 0; j < t->rules[i].nsys; j++)
			if (strcmp(t->rules[i].sys[j].name, name) == 0)
				return 1;
	return 0;
}
#endif

int
priv_sanitizer_extra(const struct priv_table *t, const char *name)
{
#ifdef SBX_SANITIZE
	size_t	 i;

	if (t->def_act == PRIV_ACT_ALLOW || t->def_act == PRIV_ACT_LOG ||
	    has_rule(t, name))
		return 0;
	for (i = 0; i < nitems(san_allow); i++)
		if (strcmp(san_allow[i], name) == 0)
			return 1;
	for (i = 0; i < nitems(san_errno); i++)
		if (strcmp(san_errno[i], name) == 0)
			return 2;
#else
	(void)t;
	(void)name;
#endif
	return 0;
}

#ifdef SBX_SANITIZE
static int
san_add(scmp_filter_ctx ctx, const struct priv_table *t,
    const char *const *names, size_t n, uint32_t act, char *err,
    size_t errlen)
{
	size_t	 i;
	int	 nr, rc;

	for (i = 0; i < n; i++) {
		if (priv_sanitizer_extra(t, names[i]) == 0)
			continue;
		if ((nr = seccomp_syscall_resolve_name(names[i])) ==
		    __NR_SCMP_ERROR)
			return serr(err, errlen, t, 0, "sanitizer build: "
			    "unknown system call %s", names[i]);
		if ((rc = seccomp_rule_add_exact(ctx, act, nr, 0)) < 0)
			return serr(err, errlen, t, 0, "sanitizer build: %s: "
			    "libseccomp refused the rule: %s", names[i],
			    strerror(-rc));
	}
	return 0;
}
#endif

/*
 * Under a default that allows (the launcher's and the payloads' files), a
 * system call newer than libseccomp's table would be allowed although no
 * file can deny it: a name the table lacks is an error in a file.  On
 * kernel 6.18 with Debian 12's libseccomp 2.5.4 that is 457 to 469,
 * open_tree_attr among them, which does what the payload files deny
 * open_tree and mount_setattr for.  So every number below PRIV_NR_BOUND
 * that libseccomp cannot name is answered ENOSYS, as runc does: a program
 * sees "not implemented" and falls back to an older call the file can
 * name.  Above the bound the kernel itself answers ENOSYS today.
 * A number the file names anyway (fchmodat2, by priv_parse's table of
 * calls newer than libseccomp) gets the file's rules and default instead.
 * Numbers seccomp never sees (uretprobe, uprobe) are unaffected.
 */
static int
table_names(const struct priv_table *t, int nr)
{
	size_t	 i, j;

	for (i = 0; i < t->nrules; i++)
		for (j = 0; j < t->rules[i].nsys; j++)
			if (t->rules[i].sys[j].nr == nr)
				return 1;
	return 0;
}

static int
unnamed_enosys(scmp_filter_ctx ctx, const struct priv_table *t, char *err,
    size_t errlen)
{
	char	*name;
	int	 nr, rc;

	if (t->def_act != PRIV_ACT_ALLOW && t->def_act != PRIV_ACT_LOG)
		return 0;
	for (nr = 0; nr < PRIV_NR_BOUND; nr++) {
		if ((name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64,
		    nr)) != NULL) {
			free(name);
			continue;
		}
		/* Named by the file through priv_parse's newer_syscalls:
		 * its rules and the default decide, as for any other. */
		if (table_names(t, nr))
			continue;
		if ((rc = seccomp_rule_add_exact(ctx, SCMP_ACT_ERRNO(ENOSYS),
		    nr, 0)) < 0)
			return serr(err, errlen, t, t->def_line, "system call "
			    "#%d, which libseccomp cannot name: libseccomp "
			    "refused the ENOSYS rule: %s", nr, strerror(-rc));
	}
	return 0;
}

static scmp_filter_ctx
build(const struct priv_table *t, char *err, size_t errlen)
{
	scmp_filter_ctx		 ctx;
	const struct priv_rule	*r;
	uint32_t		 def;
	size_t			 i, j;
	int			 rc;

	if (seccomp_arch_native() != SCMP_ARCH_X86_64) {
		serr(err, errlen, t, 0, "the table names x86_64 syscalls, "
		    "this is architecture token 0x%x", seccomp_arch_native());
		return NULL;
	}
	def = scmp_action(t->def_act, t->def_err);
	if ((ctx = seccomp_init(def)) == NULL) {
		serr(err, errlen, t, t->def_line, "seccomp_init failed");
		return NULL;
	}
	/* x32 numbers and foreign arches: kill, never fall through. */
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS)) < 0 ||
	    /* priv_apply sets no_new_privs itself, before Landlock */
	    (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0)) < 0 ||
	    /*
	     * The same rules as a binary search on the syscall number
	     * instead of a linear chain: a few compares per syscall, and
	     * loading gets cheaper too -- the kernel runs the program once
	     * per syscall number to build its action cache, which for the
	     * payload filters was most of the cost of starting a sandbox.
	     */
	    (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)) < 0) {
		serr(err, errlen, t, 0, "seccomp_attr_set: %s",
		    strerror(-rc));
		seccomp_release(ctx);
		return NULL;
	}
	for (i = 0; i < t->nrules; i++) {
		r = &t->rules[i];
		/* Restating the default documents; it compiles to nothing. */
		if (scmp_action(r->act, r->err) == def)
			continue;
		for (j = 0; j < r->nsys; j++) {
			if (add_rule(ctx, t, r, &r->sys[j], err,
			    errlen) == -1) {
				seccomp_release(ctx);
				return NULL;
			}
		}
	}
	if (unnamed_enosys(ctx, t, err, errlen) == -1) {
		seccomp_release(ctx);
		return NULL;
	}
#ifdef SBX_SANITIZE
	if (san_add(ctx, t, san_allow, nitems(san_allow), SCMP_ACT_ALLOW, err,
	    errlen) == -1 || san_add(ctx, t, san_errno, nitems(san_errno),
	    SCMP_ACT_ERRNO(EPERM), err, errlen) == -1) {
		seccomp_release(ctx);
		return NULL;
	}
#endif
	return ctx;
}

/*
 * The BPF program in memory, so that loading it needs no allocation.
 * libseccomp exports to a descriptor: a pipe, not a file, because a
 * sandbox with "fsize 0" (RLIMIT_FSIZE) must still be able to compile its
 * filter, and the largest program the kernel takes (BPF_MAXINSNS * 8 =
 * 32 KiB) fits in a pipe's buffer, so the write never blocks.
 */
static struct priv_bpf *
compile(const struct priv_table *t, char *err, size_t errlen)
{
	struct priv_bpf	*b;
	scmp_filter_ctx	 ctx;
	ssize_t		 n;
	size_t		 size = 0;
	int		 p[2], rc;

	if ((ctx = build(t, err, errlen)) == NULL)
		return NULL;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) == -1) {
		serr(err, errlen, t, 0, "pipe2: %s", strerror(errno));
		seccomp_release(ctx);
		return NULL;
	}
	rc = seccomp_export_bpf(ctx, p[1]);
	seccomp_release(ctx);
	close(p[1]);
	if (rc < 0) {
		serr(err, errlen, t, 0, "seccomp_export_bpf: %s",
		    strerror(-rc));
		close(p[0]);
		return NULL;
	}
	b = xcalloc(1, sizeof(*b));
	/* One byte more than fits tells "too long" from "just fits". */
	for (;;) {
		n = read(p[0], (char *)b->insns + size,
		    sizeof(b->insns) - size);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		size += (size_t)n;
		if (size == sizeof(b->insns)) {
			char	 extra;

			if (read(p[0], &extra, 1) == 1)
				size++;
			break;
		}
	}
	close(p[0]);
	if (size == 0 || size % sizeof(struct sock_filter) != 0 ||
	    size > sizeof(b->insns)) {
		serr(err, errlen, t, 0, "the filter is %zu bytes; the kernel "
		    "takes at most %d instructions", size, BPF_MAXINSNS);
		free(b);
		return NULL;
	}
	b->len = size / sizeof(struct sock_filter);
	return b;
}

struct priv_bpf *
priv_seccomp_compile(const struct priv_table *t, char *err, size_t errlen)
{
	return compile(t, err, errlen);
}

void
priv_bpf_free(struct priv_bpf *b)
{
	free(b);
}

/* The one place a program reaches the kernel. */
static int
load_prog(const struct sock_filter *insns, size_t len, char *err,
    size_t errlen)
{
	struct sock_fprog	 prog;
	long			 rc;

	prog.len = (unsigned short)len;
	prog.filter = (struct sock_filter *)(uintptr_t)insns;
	rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_TSYNC, &prog);
	if (rc == 0)
		return 0;
	if (rc > 0)
		snprintf(err, errlen, "seccomp: thread %ld could not be "
		    "synchronised to the filter", rc);
	else
		snprintf(err, errlen, "seccomp(SECCOMP_SET_MODE_FILTER): %s%s",
		    strerror(errno), errno == EACCES ? " (no_new_privs is "
		    "not set)" : errno == EINVAL ? " (kernel without "
		    "seccomp filters or TSYNC?)" : "");
	return -1;
}

/*
 * Load a compiled filter and release it.  The program is copied to the
 * stack and the heap copy freed first: after the load, nothing but the
 * return may run that the filter could refuse.
 */
int
priv_seccomp_load(struct priv_bpf *b, char *err, size_t errlen)
{
	struct sock_filter	 insns[BPF_MAXINSNS];
	size_t			 len = b->len;

	memcpy(insns, b->insns, len * sizeof(insns[0]));
	free(b);
	return load_prog(insns, len, err, errlen);
}

/*
 * Load a program compiled earlier and keep it, for a process that installs
 * the same filter many times (the launcher compiles each payload filter
 * once; every sandbox loads it).  Nothing is freed, so the load is still
 * the last thing that happens.
 */
int
priv_seccomp_install(const struct priv_bpf *b, char *err, size_t errlen)
{
	return load_prog(b->insns, b->len, err, errlen);
}

int
priv_apply_seccomp(const struct priv_table *t, char *err, size_t errlen)
{
	struct priv_bpf	*b;

	if (!t->no_new_privs) {
		snprintf(err, errlen, "%s: seccomp needs no_new_privs yes",
		    t->file);
		return -1;
	}
	if ((b = compile(t, err, errlen)) == NULL)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		snprintf(err, errlen, "%s: prctl(PR_SET_NO_NEW_PRIVS): %s",
		    t->file, strerror(errno));
		free(b);
		return -1;
	}
	return priv_seccomp_load(b, err, errlen);
}

int
priv_seccomp_check(const struct priv_table *t, char *err, size_t errlen)
{
	struct priv_bpf	*b;

	if ((b = compile(t, err, errlen)) == NULL)
		return -1;
	free(b);
	return 0;
}

int
priv_export_pfc(const struct priv_table *t, int fd, char *err, size_t errlen)
{
	scmp_filter_ctx	 ctx;
	int		 rc;

	if ((ctx = build(t, err, errlen)) == NULL)
		return -1;
	rc = seccomp_export_pfc(ctx, fd);
	seccomp_release(ctx);
	if (rc < 0)
		return serr(err, errlen, t, 0, "seccomp_export_pfc: %s",
		    strerror(-rc));
	return 0;
}
