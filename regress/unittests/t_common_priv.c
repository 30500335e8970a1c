/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_common_priv: privilege files (sbx.priv(5)): the parser's verdicts, the
 * linter, and what priv_apply() actually enforces on a forked child, for
 * hand-written tables and for every compiled table in the tree.
 */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/capability.h>
#include <linux/netlink.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "common.h"

/* role, user, root, no_new_privs: lines 1-4; the next line is 5. */
#define HDR	"role test\nuser same\nroot none\nno_new_privs yes\n"

#define X32_BIT		0x40000000UL
#define EXIT_SETUP	100	/* the child could not apply its table */

/*
 * Children leave with a raw exit_group: libc's _exit() may be wrapped
 * (the sanitizers run exit hooks there), and a call to anything known not
 * to return is preceded by a sanitizer stack check (sigaltstack), all
 * system calls a table may forbid.  So nothing here is, or looks,
 * noreturn; exit_group(2) simply never comes back.
 */
static void
child_exit(int code)
{
	syscall(SYS_exit_group, code);
}

static char	 errbuf[1024];

static struct priv_table *
parse_ok(const char *text)
{
	struct priv_table	*t;

	t = priv_parse("t.priv", text, strlen(text), errbuf, sizeof(errbuf));
	ATF_REQUIRE_MSG(t != NULL, "refused: %s\n--- file:\n%s", errbuf, text);
	return t;
}

static char *
print_str(const struct priv_table *t)
{
	char	*s = NULL;
	size_t	 len = 0;
	FILE	*fp;

	ATF_REQUIRE((fp = open_memstream(&s, &len)) != NULL);
	ATF_REQUIRE(priv_print(fp, t) == 0);
	ATF_REQUIRE(fclose(fp) == 0);
	return s;
}

/* ---- children ---------------------------------------------------------- */

typedef void (*child_fn)(const struct priv_table *, const void *);

/* Fork, apply the table (fully or only its filter), run fn, return the
 * wait status.  In the child nothing may run after apply that the table
 * does not allow, so fn uses raw syscalls and _exit. */
static int
in_child(const struct priv_table *t, int seccomp_only, child_fn fn,
    const void *arg)
{
	pid_t	 pid;
	int	 st, rc;

	fflush(NULL);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		rc = seccomp_only ? priv_apply_seccomp(t, errbuf,
		    sizeof(errbuf)) : priv_apply(t, errbuf, sizeof(errbuf));
		if (rc == -1) {
			dprintf(2, "apply: %s\n", errbuf);
			child_exit(EXIT_SETUP);
		}
		fn(t, arg);
		child_exit(0);
	}
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	return st;
}

static void
require_exit(int st, int code, const char *what)
{
	ATF_REQUIRE_MSG(WIFEXITED(st), "%s: child killed by signal %d", what,
	    WIFSIGNALED(st) ? WTERMSIG(st) : -1);
	ATF_REQUIRE_MSG(WEXITSTATUS(st) == code, "%s: child exited %d, "
	    "expected %d", what, WEXITSTATUS(st), code);
}

static void
require_sigsys(int st, const char *what)
{
	ATF_REQUIRE_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
	    "%s: expected death by SIGSYS, got %s %d", what,
	    WIFSIGNALED(st) ? "signal" : "exit",
	    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

/* Exit with the errno a raw syscall left (0 on success). */
static void
exit_errno(long rc)
{
	child_exit(rc == -1 ? (errno & 0xff) : 0);
}

/* ---- parser ------------------------------------------------------------- */

static const char *good_files[] = {
	HDR "default kill\n",
	HDR "default errno EPERM\nallow read write\n",
	/* no newline at the end, tabs, comments, blank lines */
	"# a comment\n\n\trole\tx-y # trailing\nuser nobody\nroot empty\n"
	    "no_new_privs yes\ndefault kill\nallow exit_group",
	/* every directive */
	"role all\nuser same\nroot empty\nrlimit nofile 64\n"
	    "rlimit as infinity\nrlimit core 0\nno_new_privs yes\n"
	    "landlock best-effort\nlandlock fs none\nlandlock ro \"/usr\"\n"
	    "landlock rx \"/bin\"\nlandlock rw \"/tmp\"\nlandlock net none\n"
	    "landlock connect 443\nlandlock bind 0\n"
	    "landlock scope abstract-unix-socket\nlandlock scope signal\n"
	    "default trap\nallow read write\n"
	    "allow socket arg0 in {AF_UNIX, 10} arg1 & SOCK_CLOEXEC == "
	    "SOCK_CLOEXEC\nerrno ENOSYS clone3\nlog getpid\nkill ptrace\n"
	    "errno EPERM ioctl arg1 == 0x5412\n"
	    "errno EACCES openat arg0 == -100 arg2 != 0\n"
	    "allow mmap arg2 & PROT_EXEC == 0 arg3 == 0xffffffffffffffff\n"
	    "allow execve lint-ok \"tests # and 'quotes'\"\n",
	HDR "landlock required\nlandlock fs rx\nlandlock rw \"/\"\n"
	    "default allow\n",
	HDR "landlock required\nlandlock net none\ndefault log\n"
	    "errno EPERM socket arg0 == AF_NETLINK arg2 != NETLINK_ROUTE\n"
	    "errno EPERM socket arg0 == AF_VSOCK\n",
};

ATF_TC_WITHOUT_HEAD(parse_good);
ATF_TC_BODY(parse_good, tc)
{
	struct priv_table	*t;
	size_t			 i;

	for (i = 0; i < nitems(good_files); i++)
		priv_free(parse_ok(good_files[i]));

	t = parse_ok(good_files[3]);
	ATF_CHECK_STREQ(t->role, "all");
	ATF_CHECK(t->user == NULL);
	ATF_CHECK_EQ(t->root, PRIV_ROOT_EMPTY);
	ATF_REQUIRE_EQ(t->nrlimits, 3);
	ATF_CHECK_EQ(t->rlimits[0].resource, RLIMIT_NOFILE);
	ATF_CHECK_EQ(t->rlimits[0].value, 64);
	ATF_CHECK_EQ(t->rlimits[1].value, PRIV_RLIM_INFINITY);
	ATF_CHECK_EQ(t->ll_mode, PRIV_LL_BEST_EFFORT);
	ATF_CHECK_EQ(t->ll_fs, PRIV_LLFS_NONE);
	ATF_REQUIRE_EQ(t->nll_paths, 3);
	ATF_CHECK_EQ(t->ll_paths[2].access, PRIV_LLA_RW);
	ATF_CHECK_STREQ(t->ll_paths[2].path, "/tmp");
	ATF_CHECK_EQ(t->nll_ports, 2);
	ATF_CHECK_EQ(t->ll_scopes, PRIV_LLSCOPE_ABSTRACT_UNIX |
	    PRIV_LLSCOPE_SIGNAL);
	ATF_CHECK_EQ(t->def_act, PRIV_ACT_TRAP);
	ATF_REQUIRE_EQ(t->nrules, 9);
	ATF_CHECK_EQ(t->rules[1].sys[0].nr, SYS_socket);
	ATF_REQUIRE_EQ(t->rules[1].nconds, 2);
	ATF_CHECK_EQ(t->rules[1].conds[0].op, PRIV_OP_IN);
	ATF_CHECK_EQ(t->rules[1].conds[0].vals[0].v, AF_UNIX);
	ATF_CHECK_EQ(t->rules[1].conds[0].vals[1].v, AF_INET6);
	ATF_CHECK_EQ(t->rules[1].conds[1].op, PRIV_OP_MASKED_EQ);
	ATF_CHECK_EQ(t->rules[1].conds[1].mask.v, SOCK_CLOEXEC);
	ATF_CHECK_EQ(t->rules[2].act, PRIV_ACT_ERRNO);
	ATF_CHECK_EQ(t->rules[2].err, ENOSYS);
	ATF_CHECK_EQ(t->rules[5].conds[0].vals[0].v, 0x5412);
	ATF_CHECK_EQ(t->rules[6].conds[0].vals[0].v, (uint64_t)(int64_t)-100);
	ATF_CHECK_EQ(t->rules[6].conds[1].op, PRIV_OP_NE);
	ATF_CHECK_EQ(t->rules[7].conds[1].vals[0].v, UINT64_MAX);
	ATF_CHECK_STREQ(t->rules[8].waiver, "tests # and 'quotes'");
	priv_free(t);

	t = parse_ok(good_files[2]);
	ATF_CHECK_STREQ(t->role, "x-y");
	ATF_CHECK_STREQ(t->user, "nobody");
	ATF_CHECK_EQ(t->def_line, 7);
	ATF_CHECK_EQ(t->rules[0].line, 8);
	priv_free(t);
}

static const struct bad {
	const char	*text;
	const char	*want;		/* after "t.priv:LINE: " */
	unsigned int	 line;
} bad_files[] = {
	{ "", "missing 'role'", 1 },
	{ HDR, "missing 'default'", 4 },
	{ "role A\n", "bad role name 'A'", 1 },
	{ "role x\nrole y\n", "role given twice (first at line 1)", 2 },
	{ "user same\nrole x\n", "role must come before user", 2 },
	{ "frobnicate 1\n", "unknown keyword 'frobnicate'", 1 },
	{ "role x\x01\n", "byte 0x01 is not printable ASCII", 1 },
	{ "role x\r\n", "byte 0x0d is not printable ASCII", 1 },
	{ "role x\nuser same\nroot maybe\n", "root must be 'empty' or 'none'",
	    3 },
	{ "role x\nuser same\nroot none\nno_new_privs no\n",
	    "no_new_privs can only be 'yes'", 4 },
	{ "role x\nuser same\nroot none\nrlimit nofiles 1\n",
	    "unknown rlimit resource 'nofiles'", 4 },
	{ "role x\nuser same\nroot none\nrlimit nofile -1\n",
	    "bad limit '-1'", 4 },
	{ "role x\nuser same\nroot none\nrlimit nofile 1\nrlimit nofile 2\n",
	    "rlimit nofile given twice", 5 },
	{ "role x\nuser same\nroot none\nrlimit nofile 0x10\n",
	    "bad limit '0x10'", 4 },
	{ HDR "allow read\ndefault kill\n", "rule before 'default'", 5 },
	{ HDR "default kill\ndefault kill\n", "default given twice", 6 },
	{ HDR "default kill\nlandlock required\n",
	    "landlock required|best-effort must come before default", 6 },
	{ HDR "default maybe\n", "unknown action 'maybe'", 5 },
	{ HDR "default kill\nallow nosuchcall\n",
	    "unknown syscall 'nosuchcall'", 6 },
	{ HDR "default kill\nallow socketcall\n",
	    "unknown syscall 'socketcall'", 6 },
	{ HDR "default kill\nallow Read\n", "bad syscall name 'Read'", 6 },
	{ HDR "default kill\nallow arg0 == 1\n", "rule names no syscall", 6 },
	{ HDR "default kill\nallow read read\n", "read named twice", 6 },
	{ HDR "default kill\nallow read arg6 == 1\n", "bad argument 'arg6'",
	    6 },
	{ HDR "default kill\nallow read arg0\n", "missing operator", 6 },
	{ HDR "default kill\nallow read arg0 = 1\n",
	    "unexpected character '='", 6 },
	{ HDR "default kill\nallow read arg0 < 1\n",
	    "unexpected character '<'", 6 },
	{ HDR "default kill\nallow socket arg0 == AF_NOPE\n",
	    "unknown constant 'AF_NOPE'", 6 },
	{ HDR "default kill\nallow read arg0 == 012\n", "bad number '012'",
	    6 },
	{ HDR "default kill\nallow read arg0 == 0x10000000000000000\n",
	    "bad number", 6 },
	{ HDR "default kill\nallow read arg0 == 18446744073709551616\n",
	    "bad number", 6 },
	{ HDR "default kill\nallow read arg0 == -0x1\n", "bad number", 6 },
	{ HDR "default kill\nallow socket arg0 != 1\n",
	    "!=: not allowed in an allow or log rule", 6 },
	{ HDR "default kill\nallow socket arg0 == 1 arg0 == 2\n",
	    "arg0 compared twice on one line", 6 },
	{ HDR "default kill\nallow read arg0 == 0 arg1 == 0 arg2 == 0 "
	    "arg3 == 0 arg4 == 0 arg5 == 0 arg0 == 1\n",
	    "more than 6 conditions on one line", 6 },
	{ HDR "default kill\nallow mmap arg2 & PROT_READ == PROT_EXEC\n",
	    "can never match", 6 },
	{ HDR "default kill\nallow mmap arg2 & 0 == 0\n", "the mask is zero",
	    6 },
	{ HDR "default kill\nallow mmap arg2 & PROT_EXEC\n",
	    "expected '=='", 6 },
	{ HDR "default kill\nallow socket arg0 in {1, 1}\n",
	    "1 and 1 are the same value", 6 },
	{ HDR "default kill\nallow socket arg0 in {1 2}\n",
	    "expected ',' or '}'", 6 },
	{ HDR "default kill\nallow socket arg0 in {1, 2\n", "missing '}'",
	    6 },
	{ HDR "default kill\nallow socket arg0 in 1\n", "expected '{'", 6 },
	{ HDR "default kill\nallow socket arg0 in {0, 1, 2, 3, 4, 5, 6, 7} "
	    "arg1 in {0, 1, 2, 3, 4, 5, 6, 7, 8}\n",
	    "expand to more than 64", 6 },
	{ HDR "default kill\nerrno EWHAT read\n", "unknown errno name 'EWHAT'",
	    6 },
	{ HDR "default kill\nerrno EWOULDBLOCK read\n",
	    "unknown errno name 'EWOULDBLOCK'", 6 },
	{ HDR "default kill\nallow read\nerrno EPERM read\n",
	    "read already has an unconditional rule at line 6", 7 },
	{ HDR "default kill\nallow socket arg0 == 1\nallow socket\n",
	    "an unconditional rule would hide them", 7 },
	{ HDR "default kill\nallow socket arg0 == 1\n"
	    "errno EPERM socket arg0 == 2\n",
	    "must share one action ('errno EPERM' here, 'allow' at line 6)",
	    7 },
	{ HDR "default allow\nallow socket arg0 == 1\n",
	    "may only restate it", 6 },
	{ HDR "default kill\nallow read lint-ok\n",
	    "lint-ok needs a quoted reason", 6 },
	{ HDR "default kill\nallow read lint-ok \"\"\n",
	    "lint-ok reason must be 1 to", 6 },
	{ HDR "default kill\nallow read lint-ok \"x\" extra\n",
	    "unexpected 'extra' in rule", 6 },
	{ HDR "default kill\nallow read \"x\n", "unterminated string", 6 },
	{ HDR "landlock fs none\n",
	    "'landlock required' or 'landlock best-effort' must come first",
	    5 },
	{ HDR "landlock required\ndefault kill\n", "restricts nothing", 6 },
	{ HDR "landlock maybe\n", "unknown landlock statement 'maybe'", 5 },
	{ HDR "landlock required\nlandlock fs all\n",
	    "landlock fs must be 'none', 'ro' or 'rx'", 6 },
	{ HDR "landlock required\nlandlock ro \"/usr\"\n",
	    "needs a 'landlock fs' line", 6 },
	{ HDR "landlock required\nlandlock fs ro\nlandlock ro \"/usr\"\n",
	    "grants nothing beyond 'landlock fs ro'", 7 },
	{ HDR "landlock required\nlandlock fs none\nlandlock rw \"usr\"\n",
	    "must be absolute", 7 },
	{ HDR "landlock required\nlandlock fs none\n"
	    "landlock rw \"/usr/../etc\"\n", "must be absolute", 7 },
	{ HDR "landlock required\nlandlock fs none\nlandlock rw \"/usr/\"\n",
	    "trailing", 7 },
	{ HDR "landlock required\nlandlock fs none\nlandlock rw /usr\n",
	    "unexpected character '/'", 7 },
	{ HDR "landlock required\nlandlock fs none\nlandlock rw usr\n",
	    "needs a quoted path", 7 },
	{ HDR "landlock required\nlandlock fs none\nlandlock rw \"/a\"\n"
	    "landlock ro \"/a\"\n", "\"/a\" given twice", 8 },
	{ HDR "landlock required\nlandlock net none\nlandlock connect 65536\n",
	    "bad port '65536'", 7 },
	{ HDR "landlock required\nlandlock connect 80\n",
	    "needs a 'landlock net none' line", 6 },
	{ HDR "landlock required\nlandlock scope everything\n",
	    "landlock scope must be", 6 },
	{ HDR "landlock required\nlandlock net none\nlandlock fs none\n",
	    "landlock fs must come before landlock net", 7 },
};

ATF_TC_WITHOUT_HEAD(parse_bad);
ATF_TC_BODY(parse_bad, tc)
{
	const struct bad	*b;
	struct priv_table	*t;
	char			 prefix[64];
	size_t			 i;

	for (i = 0; i < nitems(bad_files); i++) {
		b = &bad_files[i];
		t = priv_parse("t.priv", b->text, strlen(b->text), errbuf,
		    sizeof(errbuf));
		ATF_CHECK_MSG(t == NULL, "accepted bad file %zu:\n%s", i,
		    b->text);
		if (t != NULL) {
			priv_free(t);
			continue;
		}
		snprintf(prefix, sizeof(prefix), "t.priv:%u: ", b->line);
		ATF_CHECK_MSG(strncmp(errbuf, prefix, strlen(prefix)) == 0 &&
		    strstr(errbuf, b->want) != NULL,
		    "bad file %zu: got \"%s\", want \"%s...%s\"", i, errbuf,
		    prefix, b->want);
	}
}

ATF_TC_WITHOUT_HEAD(parse_limits);
ATF_TC_BODY(parse_limits, tc)
{
	char	*big;
	size_t	 n = 70 * 1024;

	/* A line over 1024 bytes, and a file over 64 KiB. */
	big = malloc(n + 1);
	ATF_REQUIRE(big != NULL);
	memset(big, '#', n);
	big[n] = '\0';
	ATF_CHECK(priv_parse("t.priv", big, 2000, errbuf,
	    sizeof(errbuf)) == NULL);
	ATF_CHECK(strstr(errbuf, "t.priv:1: line longer than") != NULL);
	ATF_CHECK(priv_parse("t.priv", big, n, errbuf, sizeof(errbuf)) ==
	    NULL);
	ATF_CHECK(strstr(errbuf, "file larger than") != NULL);
	/* A NUL byte is not text. */
	ATF_CHECK(priv_parse("t.priv", "role x\0y\n", 9, errbuf,
	    sizeof(errbuf)) == NULL);
	ATF_CHECK(strstr(errbuf, "t.priv:1: byte 0x00") != NULL);
	free(big);
}

ATF_TC_WITHOUT_HEAD(print_roundtrip);
ATF_TC_BODY(print_roundtrip, tc)
{
	struct priv_table	*t, *u;
	char			*a, *b;
	size_t			 i;

	for (i = 0; i < nitems(good_files); i++) {
		t = parse_ok(good_files[i]);
		a = print_str(t);
		u = parse_ok(a);
		b = print_str(u);
		ATF_CHECK_STREQ_MSG(a, b, "file %zu does not print back", i);
		priv_free(t);
		priv_free(u);
		free(a);
		free(b);
	}
	t = parse_ok(HDR "default errno EPERM\n"
	    "allow socket arg0 in {AF_UNIX,AF_INET}   # c\n"
	    "kill ioctl arg1 & 0xffff == TIOCSTI lint-ok \"r\"\n");
	a = print_str(t);
	ATF_CHECK_STREQ(a, "role      test\nuser      same\nroot      none\n"
	    "no_new_privs yes\ndefault   errno EPERM\n"
	    "allow     socket arg0 in {AF_UNIX, AF_INET}\n"
	    "kill      ioctl arg1 & 0xffff == TIOCSTI lint-ok \"r\"\n");
	priv_free(t);
	free(a);
}

/* ---- linter ------------------------------------------------------------- */

/* The syscalls the design names as dangerous without a condition. */
static const char *dangerous[] = {
	"clone", "mount", "setns", "unshare", "execve", "execveat", "bpf",
	"socket", "ptrace", "prctl", "ioctl", "mmap", "mprotect", "keyctl",
	"perf_event_open", "io_uring_setup", "io_uring_enter",
	"io_uring_register", "clone3", "pkey_mprotect", "userfaultfd",
};

static size_t
lint_text(const char *text, struct priv_finding *f, size_t max)
{
	struct priv_table	*t = parse_ok(text);
	size_t			 n;

	n = priv_lint(t, f, max);
	priv_free(t);
	return n;
}

ATF_TC_WITHOUT_HEAD(lint_dangerous);
ATF_TC_BODY(lint_dangerous, tc)
{
	struct priv_finding	 f[64];
	char			 text[512];
	const char		*cond;
	size_t			 i, n;
	int			 prot;

	for (i = 0; i < nitems(dangerous); i++) {
		prot = strcmp(dangerous[i], "mmap") == 0 ||
		    strcmp(dangerous[i], "mprotect") == 0 ||
		    strcmp(dangerous[i], "pkey_mprotect") == 0;

		snprintf(text, sizeof(text), HDR "default kill\nallow %s\n",
		    dangerous[i]);
		n = lint_text(text, f, nitems(f));
		ATF_CHECK_EQ_MSG(n, 1, "%s unconditioned: %zu findings",
		    dangerous[i], n);
		if (n == 1) {
			ATF_CHECK_EQ(f[0].line, 6);
			ATF_CHECK(!f[0].waived);
			ATF_CHECK_MSG(strstr(f[0].msg, dangerous[i]) != NULL,
			    "%s: %s", dangerous[i], f[0].msg);
		}

		snprintf(text, sizeof(text), HDR "default kill\n"
		    "allow %s lint-ok \"reviewed\"\n", dangerous[i]);
		n = lint_text(text, f, nitems(f));
		ATF_CHECK_EQ_MSG(n, 1, "%s waived: %zu findings",
		    dangerous[i], n);
		if (n == 1)
			ATF_CHECK_MSG(f[0].waived && strstr(f[0].msg,
			    "reviewed") != NULL, "%s: %s", dangerous[i],
			    f[0].msg);

		cond = prot ? "arg2 & PROT_EXEC == 0" : "arg0 == 0";
		snprintf(text, sizeof(text), HDR "default kill\n"
		    "allow %s %s\n", dangerous[i], cond);
		n = lint_text(text, f, nitems(f));
		ATF_CHECK_EQ_MSG(n, 0, "%s %s: %zu findings (%s)",
		    dangerous[i], cond, n, n ? f[0].msg : "");

		/* Under default allow a deny rule restricts it. */
		snprintf(text, sizeof(text), HDR "default allow\n"
		    "errno EPERM %s %s\n", dangerous[i], prot ?
		    "arg2 & PROT_EXEC == PROT_EXEC" : "arg0 == 1");
		n = lint_text(text, f, nitems(f));
		ATF_CHECK_MSG(n > 0 && n <= nitems(f), "default allow: %zu "
		    "findings", n);
		for (; n > 0 && n <= nitems(f); n--)
			ATF_CHECK_MSG(strncmp(f[n - 1].msg, dangerous[i],
			    strlen(dangerous[i])) != 0 ||
			    f[n - 1].msg[strlen(dangerous[i])] != ' ',
			    "restricted %s still flagged: %s", dangerous[i],
			    f[n - 1].msg);
	}
}

ATF_TC_WITHOUT_HEAD(lint_prot_exec);
ATF_TC_BODY(lint_prot_exec, tc)
{
	struct priv_finding	 f[4];
	size_t			 n;

	/* A condition on the wrong argument does not rule PROT_EXEC out. */
	n = lint_text(HDR "default kill\nallow mmap arg3 == 0\n", f, 4);
	ATF_CHECK_EQ(n, 1);
	ATF_CHECK(n == 1 && strstr(f[0].msg, "PROT_EXEC") != NULL);
	n = lint_text(HDR "default kill\nallow mprotect arg2 in "
	    "{PROT_READ, PROT_EXEC}\n", f, 4);
	ATF_CHECK_EQ(n, 1);
	n = lint_text(HDR "default kill\nallow mprotect arg2 in "
	    "{PROT_READ, PROT_NONE}\n", f, 4);
	ATF_CHECK_EQ(n, 0);
	n = lint_text(HDR "default kill\nallow mmap arg2 == PROT_READ\n", f,
	    4);
	ATF_CHECK_EQ(n, 0);
	/* Under default allow, a deny must catch every PROT_EXEC call. */
	n = lint_text(HDR "default allow\nerrno EPERM mmap arg2 & 0x6 == "
	    "0x6\n", f, 4);
	ATF_CHECK(n > 0);
}

ATF_TC_WITHOUT_HEAD(lint_default_allow);
ATF_TC_BODY(lint_default_allow, tc)
{
	struct priv_finding	 f[64];
	size_t			 n, i, j, hit;

	n = lint_text(HDR "default allow\n", f, nitems(f));
	ATF_REQUIRE(n <= nitems(f));
	for (i = 0; i < nitems(dangerous); i++) {
		for (hit = 0, j = 0; j < n; j++)
			if (strncmp(f[j].msg, dangerous[i],
			    strlen(dangerous[i])) == 0 &&
			    f[j].msg[strlen(dangerous[i])] == ' ' &&
			    f[j].line == 5 && !f[j].waived)
				hit++;
		ATF_CHECK_EQ_MSG(hit, 1, "default allow: %s flagged %zu times",
		    dangerous[i], hit);
	}
	/* The waiver sits on a restating allow line, and is shown. */
	n = lint_text(HDR "default allow\nallow execve lint-ok \"runs\"\n", f,
	    nitems(f));
	for (hit = 0, j = 0; j < n; j++)
		if (strncmp(f[j].msg, "execve ", 7) == 0)
			hit += f[j].waived && f[j].line == 6 ? 1 : 100;
	ATF_CHECK_EQ(hit, 1);
}

ATF_TC_WITHOUT_HEAD(lint_useless_waiver);
ATF_TC_BODY(lint_useless_waiver, tc)
{
	struct priv_finding	 f[4];
	size_t			 n;

	n = lint_text(HDR "default kill\nallow read write\n", f, 4);
	ATF_CHECK_EQ(n, 0);
	n = lint_text(HDR "default kill\nallow read lint-ok \"x\"\n", f, 4);
	ATF_REQUIRE_EQ(n, 1);
	ATF_CHECK(!f[0].waived);
	ATF_CHECK_EQ(f[0].line, 6);
	ATF_CHECK(strstr(f[0].msg, "needs no waiver") != NULL);
	n = lint_text(HDR "default kill\nallow socket arg0 == AF_UNIX "
	    "lint-ok \"x\"\n", f, 4);
	ATF_CHECK_EQ(n, 1);
}

/* ---- enforcement --------------------------------------------------------- */

#define SMALL	HDR "default kill\n" \
		"allow exit_group\n" \
		"allow getpid\n" \
		"allow socket arg0 == AF_UNIX\n" \
		"errno EXDEV getppid\n" \
		"errno ENOSYS clone3\n"

static void
call_getpid(const struct priv_table *t, const void *arg)
{
	(void)t;
	(void)arg;
	child_exit(syscall(SYS_getpid) > 0 ? 7 : 1);
}

static void
call_uname(const struct priv_table *t, const void *arg)
{
	(void)t;
	(void)arg;
	syscall(SYS_uname, NULL);
	child_exit(0);
}

ATF_TC_WITHOUT_HEAD(apply_inside_and_outside);
ATF_TC_BODY(apply_inside_and_outside, tc)
{
	struct priv_table	*t = parse_ok(SMALL);

	require_exit(in_child(t, 0, call_getpid, NULL), 7, "getpid allowed");
	require_sigsys(in_child(t, 0, call_uname, NULL), "uname outside");
	/* The filter alone, as the shim loads a payload's. */
	require_exit(in_child(t, 1, call_getpid, NULL), 7, "seccomp only");
	require_sigsys(in_child(t, 1, call_uname, NULL), "seccomp only");
	priv_free(t);
}

static void
call_socket(const struct priv_table *t, const void *arg)
{
	(void)t;
	exit_errno(syscall(SYS_socket, *(const long *)arg, SOCK_STREAM, 0));
}

ATF_TC_WITHOUT_HEAD(apply_arg_condition);
ATF_TC_BODY(apply_arg_condition, tc)
{
	struct priv_table	*t = parse_ok(SMALL);
	long			 unix_ = AF_UNIX, inet = AF_INET;
	long			 unix_hi = AF_UNIX | (1L << 32);

	require_exit(in_child(t, 0, call_socket, &unix_), 0, "AF_UNIX");
	require_sigsys(in_child(t, 0, call_socket, &inet), "AF_INET");
	/* An allow rule compares what the kernel reads: socket's domain is
	 * an int, so high bits neither help nor hurt. */
	require_exit(in_child(t, 0, call_socket, &unix_hi), 0, "AF_UNIX|hi");
	priv_free(t);
}

static void
call_getppid(const struct priv_table *t, const void *arg)
{
	(void)t;
	(void)arg;
	exit_errno(syscall(SYS_getppid));
}

static void
call_clone3(const struct priv_table *t, const void *arg)
{
	(void)t;
	(void)arg;
	exit_errno(syscall(SYS_clone3, NULL, 0));
}

ATF_TC_WITHOUT_HEAD(apply_errno);
ATF_TC_BODY(apply_errno, tc)
{
	struct priv_table	*t = parse_ok(SMALL);

	require_exit(in_child(t, 0, call_getppid, NULL), EXDEV, "getppid");
	/* glibc falls back to clone only on ENOSYS. */
	require_exit(in_child(t, 0, call_clone3, NULL), ENOSYS, "clone3");
	priv_free(t);
}

static void
call_ioctl(const struct priv_table *t, const void *arg)
{
	(void)t;
	exit_errno(syscall(SYS_ioctl, -1, *(const unsigned long *)arg, NULL));
}

/* sbx-proxy's tunnels (proxy/splice.c): pipe2 and splice with exactly
 * the flags it uses; any other flag, and tee and vmsplice, kill. */
static void
call_pipe2(const struct priv_table *t, const void *arg)
{
	int	 p[2];

	(void)t;
	exit_errno(syscall(SYS_pipe2, p, *(const long *)arg));
}

static void
call_splice(const struct priv_table *t, const void *arg)
{
	(void)t;
	exit_errno(syscall(SYS_splice, -1, NULL, -1, NULL, 4096,
	    *(const long *)arg));
}

static void
call_tee(const struct priv_table *t, const void *arg)
{
	(void)t;
	(void)arg;
	exit_errno(syscall(SYS_tee, -1, -1, 4096, 0));
}

static void
call_vmsplice(const struct priv_table *t, const void *arg)
{
	(void)t;
	(void)arg;
	exit_errno(syscall(SYS_vmsplice, -1, NULL, 0, 0));
}

ATF_TC_WITHOUT_HEAD(proxy_splice);
ATF_TC_BODY(proxy_splice, tc)
{
	long	 ok = O_NONBLOCK | O_CLOEXEC, plain = 0, direct = O_DIRECT;
	long	 flags = SPLICE_F_MOVE | SPLICE_F_NONBLOCK;
	long	 gift = SPLICE_F_GIFT;

	require_exit(in_child(&priv_table_proxy, 1, call_pipe2, &ok), 0,
	    "pipe2 O_NONBLOCK|O_CLOEXEC");
	require_sigsys(in_child(&priv_table_proxy, 1, call_pipe2, &plain),
	    "pipe2 0");
	require_sigsys(in_child(&priv_table_proxy, 1, call_pipe2, &direct),
	    "pipe2 O_DIRECT");
	/* Allowed: the kernel answers on the descriptors. */
	require_exit(in_child(&priv_table_proxy, 1, call_splice, &flags),
	    EBADF, "splice MOVE|NONBLOCK");
	require_sigsys(in_child(&priv_table_proxy, 1, call_splice, &gift),
	    "splice GIFT");
	require_sigsys(in_child(&priv_table_proxy, 1, call_tee, NULL), "tee");
	require_sigsys(in_child(&priv_table_proxy, 1, call_vmsplice, NULL),
	    "vmsplice");
}

/* CVE-2019-10063: TIOCSTI with high bits set must not slip past. */
ATF_TC_WITHOUT_HEAD(apply_masked_ioctl);
ATF_TC_BODY(apply_masked_ioctl, tc)
{
	struct priv_table	*t = parse_ok(HDR "default allow\n"
	    "errno EPERM ioctl arg1 in {TIOCSTI, TIOCLINUX}\n");
	unsigned long		 sti = TIOCSTI;
	unsigned long		 sti_hi = TIOCSTI | (1UL << 32);
	unsigned long		 lnx_hi = TIOCLINUX | (0xffUL << 40);
	unsigned long		 winsz = TIOCGWINSZ;

	require_exit(in_child(t, 1, call_ioctl, &sti), EPERM, "TIOCSTI");
	require_exit(in_child(t, 1, call_ioctl, &sti_hi), EPERM,
	    "TIOCSTI | 1 << 32");
	require_exit(in_child(t, 1, call_ioctl, &lnx_hi), EPERM,
	    "TIOCLINUX | high bits");
	require_exit(in_child(t, 1, call_ioctl, &winsz), EBADF,
	    "TIOCGWINSZ reaches the kernel");
	priv_free(t);
}

static void
call_x32(const struct priv_table *t, const void *arg)
{
	(void)t;
	(void)arg;
	syscall(X32_BIT | SYS_getpid);
	child_exit(0);
}

static void
call_int80(const struct priv_table *t, const void *arg)
{
	long	 ret;

	(void)t;
	(void)arg;
	/* i386 getpid (20) through the 32-bit entry point */
	__asm__ volatile ("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
	child_exit(ret > 0 ? 0 : 1);
}

ATF_TC_WITHOUT_HEAD(apply_foreign_abi_killed);
ATF_TC_BODY(apply_foreign_abi_killed, tc)
{
	struct priv_table	*t = parse_ok(HDR "default allow\n");
	pid_t			 pid;
	int			 st;

	/* Even under "default allow": x32 numbers and i386 calls. */
	require_sigsys(in_child(t, 1, call_x32, NULL), "x32 getpid");
	/* First show that int 0x80 works here without a filter. */
	fflush(NULL);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0)
		call_int80(NULL, NULL);
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	ATF_REQUIRE_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "int 0x80 does not work on this kernel without a filter");
	require_sigsys(in_child(t, 1, call_int80, NULL), "i386 getpid");
	priv_free(t);
}

struct llarg {
	char	 ro[PATH_MAX];
	char	 rw[PATH_MAX + 8];
};

static void
landlock_child(const struct priv_table *t, const void *arg)
{
	const struct llarg	*a = arg;
	char			 p[PATH_MAX + 16];
	int			 fd;

	(void)t;
	snprintf(p, sizeof(p), "%s/f", a->ro);
	if (open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) != -1 ||
	    errno != EACCES)
		child_exit(1);		/* write outside rw allowed */
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) == -1)
		child_exit(2);		/* read under "fs ro" refused */
	close(fd);
	if (truncate(p, 0) != -1 || errno != EACCES)
		child_exit(3);		/* truncate (ABI 3) not handled */
	if (mkdir("sub", 0700) != -1 || errno != EACCES)
		child_exit(4);
	snprintf(p, sizeof(p), "%s/new", a->rw);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) == -1)
		child_exit(5);		/* rw path refused */
	close(fd);
	child_exit(0);
}

static void
landlock_none_child(const struct priv_table *t, const void *arg)
{
	(void)t;
	(void)arg;
	if (open("/etc/passwd", O_RDONLY | O_CLOEXEC) != -1 ||
	    errno != EACCES)
		child_exit(1);
	child_exit(0);
}

ATF_TC_WITHOUT_HEAD(apply_landlock);
ATF_TC_BODY(apply_landlock, tc)
{
	struct priv_table	*t;
	struct llarg		 a;
	char			 text[3 * PATH_MAX];
	int			 fd;

	ATF_REQUIRE_MSG(priv_landlock_abi() >= 5, "Landlock ABI %d here",
	    priv_landlock_abi());
	ATF_REQUIRE(getcwd(a.ro, sizeof(a.ro)) != NULL);
	snprintf(a.rw, sizeof(a.rw), "%s/rw", a.ro);
	ATF_REQUIRE(mkdir(a.rw, 0700) == 0);
	ATF_REQUIRE((fd = open("f", O_WRONLY | O_CREAT, 0600)) != -1);
	ATF_REQUIRE(write(fd, "x", 1) == 1);
	close(fd);

	snprintf(text, sizeof(text), HDR "landlock required\n"
	    "landlock fs ro\nlandlock rw \"%s\"\ndefault allow\n", a.rw);
	t = parse_ok(text);
	require_exit(in_child(t, 0, landlock_child, &a), 0, "landlock ro");
	priv_free(t);
	/* The parent, never restricted, still writes there. */
	ATF_CHECK(truncate("f", 0) == 0);

	t = parse_ok(HDR "landlock best-effort\nlandlock fs none\n"
	    "default allow\n");
	require_exit(in_child(t, 0, landlock_none_child, NULL), 0,
	    "landlock fs none");
	priv_free(t);
}

/* What each ABI level gives a table, without needing that kernel. */
ATF_TC_WITHOUT_HEAD(landlock_plan);
ATF_TC_BODY(landlock_plan, tc)
{
	struct priv_table	*req, *be;
	struct priv_llplan	 p;

	req = parse_ok(HDR "landlock required\nlandlock fs none\n"
	    "landlock net none\nlandlock scope signal\ndefault allow\n");
	be = parse_ok(HDR "landlock best-effort\nlandlock fs none\n"
	    "landlock net none\nlandlock scope signal\ndefault allow\n");

	ATF_CHECK(priv_landlock_plan(req, 6, &p, errbuf,
	    sizeof(errbuf)) == 0);
	ATF_CHECK_EQ(p.handled_fs, 0xffff);
	ATF_CHECK_EQ(p.handled_net, 0x3);
	ATF_CHECK_EQ(p.scoped, 0x2);
	ATF_CHECK_STREQ(p.dropped, "");

	/* A newer kernel is handled as the newest ABI known. */
	ATF_CHECK(priv_landlock_plan(req, 42, &p, errbuf,
	    sizeof(errbuf)) == 0);
	ATF_CHECK_EQ(p.abi, 7);
	ATF_CHECK_EQ(p.handled_fs, 0xffff);

	/* required names what is missing... */
	ATF_CHECK(priv_landlock_plan(req, 3, &p, errbuf,
	    sizeof(errbuf)) == -1);
	ATF_CHECK_MSG(strstr(errbuf, "t.priv: landlock required: the "
	    "kernel's Landlock ABI 3 lacks TCP bind/connect (ABI 4)") != NULL,
	    "%s", errbuf);
	ATF_CHECK(priv_landlock_plan(req, 5, &p, errbuf,
	    sizeof(errbuf)) == -1);
	ATF_CHECK(strstr(errbuf, "lacks abstract unix socket and signal "
	    "scoping (ABI 6)") != NULL);

	/* ...best-effort drops it and says so. */
	ATF_CHECK(priv_landlock_plan(be, 3, &p, errbuf, sizeof(errbuf)) == 0);
	ATF_CHECK_EQ(p.handled_fs, 0x7fff);
	ATF_CHECK_EQ(p.handled_net, 0);
	ATF_CHECK_EQ(p.scoped, 0);
	ATF_CHECK_STREQ(p.dropped, "TCP bind/connect (ABI 4), ioctl on "
	    "devices (ABI 5), abstract unix socket and signal scoping "
	    "(ABI 6)");
	ATF_CHECK(priv_landlock_plan(be, 1, &p, errbuf, sizeof(errbuf)) == 0);
	ATF_CHECK_EQ(p.handled_fs, 0x1fff);
	/* refer missing is stricter, not weaker: not reported */
	ATF_CHECK(strstr(p.dropped, "refer") == NULL);
	priv_free(req);
	priv_free(be);

	/* "fs ro" handles everything but reading. */
	req = parse_ok(HDR "landlock required\nlandlock fs ro\n"
	    "default allow\n");
	ATF_CHECK(priv_landlock_plan(req, 7, &p, errbuf,
	    sizeof(errbuf)) == 0);
	ATF_CHECK_EQ(p.handled_fs, 0xffff & ~0xcULL);
	ATF_CHECK_EQ(p.handled_net, 0);
	priv_free(req);
}

static void
rlimit_child(const struct priv_table *t, const void *arg)
{
	struct rlimit	 rl;
	char		 buf[8192];
	int		 fd, i;

	(void)t;
	(void)arg;
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur != 16 ||
	    rl.rlim_max != 16)
		child_exit(1);
	if (getrlimit(RLIMIT_FSIZE, &rl) == -1 || rl.rlim_cur != 4096 ||
	    rl.rlim_max != 4096)
		child_exit(2);
	if (getrlimit(RLIMIT_CORE, &rl) == -1 || rl.rlim_cur != 0 ||
	    rl.rlim_max != 0)
		child_exit(3);
	/* The limits bite: descriptors, then file size. */
	for (i = 0; i < 32; i++)
		if (open("/dev/null", O_RDONLY) == -1)
			break;
	if (i == 32 || errno != EMFILE)
		child_exit(4);
	for (i = 3; i < 16; i++)
		close(i);
	signal(SIGXFSZ, SIG_IGN);
	memset(buf, 'x', sizeof(buf));
	if ((fd = open("big", O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
		child_exit(5);
	if (write(fd, buf, sizeof(buf)) != 4096)
		child_exit(6);
	if (write(fd, buf, 1) != -1 || errno != EFBIG)
		child_exit(7);
	child_exit(0);
}

ATF_TC_WITHOUT_HEAD(apply_rlimits);
ATF_TC_BODY(apply_rlimits, tc)
{
	struct priv_table	*t = parse_ok("role test\nuser same\n"
	    "root none\nrlimit nofile 16\nrlimit fsize 4096\nrlimit core 0\n"
	    "no_new_privs yes\ndefault allow\n");

	require_exit(in_child(t, 0, rlimit_child, NULL), 0, "rlimits");
	priv_free(t);
}

static void
root_child(const struct priv_table *t, const void *arg)
{
	struct __user_cap_header_struct	 hdr;
	struct __user_cap_data_struct	 data[2];
	const uid_t			*uid = arg;
	DIR				*d;
	struct dirent			*de;
	int				 n = 0;

	(void)t;
	if ((d = opendir("/")) == NULL)
		child_exit(1);
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	if (n != 0)
		child_exit(2);		/* the root is not empty */
	if (access("/etc/passwd", F_OK) != -1 || errno != ENOENT)
		child_exit(3);
	if (mkdir("/x", 0700) != -1 || errno != EROFS)
		child_exit(4);		/* the root is writable */
	if (getuid() != *uid)
		child_exit(5);		/* "user same" changed the uid */
	memset(&hdr, 0, sizeof(hdr));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &hdr, data) == -1)
		child_exit(6);
	/* In a user namespace of its own, the capabilities are dropped. */
	if (*uid != 0 && (data[0].effective || data[1].effective ||
	    data[0].permitted || data[1].permitted))
		child_exit(7);
	child_exit(0);
}

ATF_TC_WITHOUT_HEAD(apply_root_empty);
ATF_TC_BODY(apply_root_empty, tc)
{
	struct priv_table	*t = parse_ok("role test\nuser same\n"
	    "root empty\nno_new_privs yes\ndefault allow\n");
	uid_t			 uid = getuid();

	/* As root a mount namespace; as a user, a user namespace too. */
	require_exit(in_child(t, 0, root_child, &uid), 0, "root empty");
	priv_free(t);
}

static void
user_child(const struct priv_table *t, const void *arg)
{
	const struct passwd	*pw = arg;
	gid_t			 groups[4];

	(void)t;
	if (getuid() != pw->pw_uid || geteuid() != pw->pw_uid ||
	    getgid() != pw->pw_gid || getegid() != pw->pw_gid)
		child_exit(1);
	if (getgroups(4, groups) != 1 || groups[0] != pw->pw_gid)
		child_exit(2);
	child_exit(0);
}

ATF_TC_WITHOUT_HEAD(apply_user);
ATF_TC_BODY(apply_user, tc)
{
	struct priv_table	*t;
	struct passwd		*pw, copy;
	pid_t			 pid;
	int			 st;

	ATF_REQUIRE((pw = getpwnam("nobody")) != NULL);
	copy = *pw;
	t = parse_ok("role test\nuser nobody\nroot none\nno_new_privs yes\n"
	    "default allow\n");
	if (getuid() == 0) {
		require_exit(in_child(t, 0, user_child, &copy), 0,
		    "user nobody");
	} else {
		/* Not root: no switch possible, so apply must refuse. */
		fflush(NULL);
		ATF_REQUIRE((pid = fork()) != -1);
		if (pid == 0)
			child_exit(priv_apply(t, errbuf, sizeof(errbuf)) == -1 &&
			    strstr(errbuf, "t.priv: user nobody: running as "
			    "uid") != NULL ? 0 : 1);
		ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
		require_exit(st, 0, "user nobody refused without privilege");
	}
	priv_free(t);
}

/* A bad table fails before anything is applied. */
ATF_TC_WITHOUT_HEAD(apply_refuses_unbuildable);
ATF_TC_BODY(apply_refuses_unbuildable, tc)
{
	struct priv_syscall	 sys = { "bogus", -1 };
	struct priv_rule	 r;
	struct priv_table	 t;

	memset(&r, 0, sizeof(r));
	r.line = 9;
	r.act = PRIV_ACT_ERRNO;
	r.err = EPERM;
	r.sys = &sys;
	r.nsys = 1;
	memset(&t, 0, sizeof(t));
	t.file = "hand.priv";
	t.role = "hand";
	t.root = PRIV_ROOT_NONE;
	t.no_new_privs = 1;
	t.def_act = PRIV_ACT_ALLOW;
	t.rules = &r;
	t.nrules = 1;
	ATF_CHECK(priv_seccomp_check(&t, errbuf, sizeof(errbuf)) == -1);
	ATF_CHECK_MSG(strncmp(errbuf, "hand.priv:9: seccomp: bogus:", 28) ==
	    0, "%s", errbuf);
	t.no_new_privs = 0;
	ATF_CHECK(priv_apply(&t, errbuf, sizeof(errbuf)) == -1);
	ATF_CHECK(strstr(errbuf, "no_new_privs") != NULL);
}

ATF_TC_WITHOUT_HEAD(export_pfc);
ATF_TC_BODY(export_pfc, tc)
{
	struct priv_table	*t = parse_ok(SMALL);
	char			 buf[16384];
	ssize_t			 n;
	int			 fd;

	ATF_REQUIRE((fd = memfd_create("pfc", 0)) != -1);
	ATF_REQUIRE(priv_export_pfc(t, fd, errbuf, sizeof(errbuf)) == 0);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	ATF_REQUIRE(n > 0);
	buf[n] = '\0';
	ATF_CHECK(strstr(buf, "\"getppid\"") != NULL);
	ATF_CHECK(strstr(buf, "ERRNO(18)") != NULL);	/* EXDEV */
	ATF_CHECK(strstr(buf, "action KILL_PROCESS;") != NULL);
	/* the invalid-architecture action is to kill the process too */
	ATF_CHECK(strstr(buf, "# invalid architecture action\n"
	    "action KILL_PROCESS;") != NULL);
	close(fd);
	priv_free(t);
}

/* ---- the compiled tables ----------------------------------------------- */

#define PRIV_TABLE_ADDR(n)	&priv_table_##n,
static const struct priv_table *compiled[] = { PRIV_TABLES(PRIV_TABLE_ADDR) };

static char *
top_path(const atf_tc_t *tc, const char *rel)
{
	char	*p;

	ATF_REQUIRE(xasprintf(&p, "%s/../top/%s",
	    atf_tc_get_config_var(tc, "srcdir"), rel) > 0);
	return p;
}

static char *
slurp(const char *path)
{
	struct stat	 st;
	char		*buf;
	int		 fd;

	ATF_REQUIRE_MSG((fd = open(path, O_RDONLY)) != -1, "%s: %s", path,
	    strerror(errno));
	ATF_REQUIRE(fstat(fd, &st) == 0);
	buf = xmalloc(st.st_size + 1);
	ATF_REQUIRE(read(fd, buf, st.st_size) == st.st_size);
	buf[st.st_size] = '\0';
	close(fd);
	return buf;
}

/* Strip comments and blank lines, collapse white space (outside quotes). */
static char *
normalise(const char *s)
{
	char	*out = xmalloc(strlen(s) + 2), *o = out;
	int	 q = 0, sp = 0, comment = 0;

	for (; *s != '\0'; s++) {
		if (*s == '\n') {
			while (o > out && o[-1] == ' ')
				o--;
			if (o > out && o[-1] != '\n')
				*o++ = '\n';
			q = sp = comment = 0;
			continue;
		}
		if (comment)
			continue;
		if (!q && *s == '#') {
			comment = 1;
			continue;
		}
		if (*s == '"')
			q = !q;
		if (!q && (*s == ' ' || *s == '\t')) {
			sp = 1;
			continue;
		}
		if (sp && o > out && o[-1] != '\n')
			*o++ = ' ';
		sp = 0;
		*o++ = *s;
	}
	while (o > out && o[-1] == ' ')
		o--;
	if (o > out && o[-1] != '\n')
		*o++ = '\n';
	*o = '\0';
	return out;
}

/* Every DIR/NAME.priv in the tree is one of the compiled tables. */
ATF_TC_WITHOUT_HEAD(tables_cover_tree);
ATF_TC_BODY(tables_cover_tree, tc)
{
	char		*top = top_path(tc, ""), *sub, rel[512];
	DIR		*d, *e;
	struct dirent	*de, *fe;
	size_t		 i, found = 0, len;
	int		 known;

	ATF_REQUIRE((d = opendir(top)) != NULL);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		ATF_REQUIRE(xasprintf(&sub, "%s/%s", top, de->d_name) > 0);
		if ((e = opendir(sub)) == NULL) {
			free(sub);
			continue;
		}
		while ((fe = readdir(e)) != NULL) {
			len = strlen(fe->d_name);
			if (len < 6 || strcmp(fe->d_name + len - 5, ".priv"))
				continue;
			snprintf(rel, sizeof(rel), "%s/%s", de->d_name,
			    fe->d_name);
			for (known = 0, i = 0; i < nitems(compiled); i++)
				known |= strcmp(compiled[i]->file, rel) == 0;
			ATF_CHECK_MSG(known, "%s is not in PRIV_TABLES "
			    "(priv.h)", rel);
			found++;
		}
		closedir(e);
		free(sub);
	}
	closedir(d);
	free(top);
	ATF_CHECK_EQ(found, nitems(compiled));
}

/* The compiled table prints back as its source file, and as that file
 * parsed now; it lints clean and compiles. */
ATF_TC_WITHOUT_HEAD(tables_match_sources);
ATF_TC_BODY(tables_match_sources, tc)
{
	struct priv_finding	 f[64];
	struct priv_table	*t;
	char			*path, *src, *a, *b, *c;
	size_t			 i, n, j;

	for (i = 0; i < nitems(compiled); i++) {
		path = top_path(tc, compiled[i]->file);
		src = slurp(path);
		a = normalise(src);
		b = print_str(compiled[i]);
		c = normalise(b);
		ATF_CHECK_STREQ_MSG(a, c, "%s: the compiled table differs "
		    "from the file", compiled[i]->file);
		free(b);
		t = priv_parse(compiled[i]->file, src, strlen(src), errbuf,
		    sizeof(errbuf));
		ATF_REQUIRE_MSG(t != NULL, "%s", errbuf);
		b = print_str(t);
		free(c);
		c = print_str(compiled[i]);
		ATF_CHECK_STREQ(b, c);
		priv_free(t);
		n = priv_lint(compiled[i], f, nitems(f));
		for (j = 0; j < n && j < nitems(f); j++)
			ATF_CHECK_MSG(f[j].waived, "%s:%u: %s",
			    compiled[i]->file, f[j].line, f[j].msg);
		ATF_CHECK_MSG(priv_seccomp_check(compiled[i], errbuf,
		    sizeof(errbuf)) == 0, "%s", errbuf);
		free(b);
		/* the role names the file: DIR/ROLE.priv */
		ATF_REQUIRE(xasprintf(&b, "/%s.priv", compiled[i]->role) > 0);
		ATF_CHECK_STREQ(strrchr(compiled[i]->file, '/'), b);
		free(a);
		free(b);
		free(c);
		free(src);
		free(path);
	}
}

/*
 * Probe one syscall of a compiled table in a child.  A safety net filter
 * installed first answers ENOTRECOVERABLE for the probed syscall, so a
 * call the table fails to stop never reaches the kernel: a filter loaded
 * later is evaluated first and wins on equal precedence, while KILL beats
 * ERRNO whichever came first.
 */
struct probe {
	int		 nr;
	uint64_t	 args[PRIV_ARGS];
};

static void
probe_child(const struct priv_table *t, const void *arg)
{
	const struct probe	*p = arg;

	(void)t;
	exit_errno(syscall(p->nr, p->args[0], p->args[1], p->args[2],
	    p->args[3], p->args[4], p->args[5]));
}

static int
probe(const struct priv_table *t, const struct probe *p)
{
	scmp_filter_ctx	 ctx;
	pid_t		 pid;
	int		 st;

	fflush(NULL);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL ||
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOTRECOVERABLE),
		    p->nr, 0) < 0 || seccomp_load(ctx) < 0)
			child_exit(EXIT_SETUP + 1);
		seccomp_release(ctx);
		if (priv_apply_seccomp(t, errbuf, sizeof(errbuf)) == -1) {
			dprintf(2, "apply: %s\n", errbuf);
			child_exit(EXIT_SETUP);
		}
		probe_child(t, p);
	}
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	return st;
}

static int
mentioned(const struct priv_table *t, const char *name)
{
	size_t	 i, j;

	for (i = 0; i < t->nrules; i++)
		for (j = 0; j < t->rules[i].nsys; j++)
			if (strcmp(t->rules[i].sys[j].name, name) == 0)
				return 1;
	return 0;
}

static void
check_probe(const struct priv_table *t, const struct probe *p,
    enum priv_act act, int err, const char *what)
{
	int	 st = probe(t, p);
	char	 label[160];

	snprintf(label, sizeof(label), "%s: %s", t->file, what);
	if (act == PRIV_ACT_KILL || act == PRIV_ACT_TRAP)
		require_sigsys(st, label);
	else
		require_exit(st, err, label);
}

/* Each compiled table stops what it says it stops. */
ATF_TC_WITHOUT_HEAD(tables_enforced);
ATF_TC_BODY(tables_enforced, tc)
{
	/* Candidates for "a syscall outside the role's list". */
	static const char *outside[] = {
		"uname", "chdir", "setuid", "ptrace", "mount", "execve",
		"socketpair", "bind", "listen", "unlinkat", "mkdirat",
		"getppid", "fork",
	};
	const struct priv_table	*t;
	const struct priv_rule	*r;
	const struct priv_cond	*c;
	struct probe		 p;
	size_t			 i, j, k, n;
	char			 what[128];
	int			 nr;

	for (i = 0; i < nitems(compiled); i++) {
		t = compiled[i];
		/* Every deny rule, with arguments that meet its conditions. */
		for (j = 0; j < t->nrules; j++) {
			r = &t->rules[j];
			if (r->act == PRIV_ACT_ALLOW ||
			    r->act == PRIV_ACT_LOG ||
			    (r->act == t->def_act && r->err == t->def_err))
				continue;
			for (k = 0; k < r->nsys; k++) {
				memset(&p, 0, sizeof(p));
				p.nr = r->sys[k].nr;
				for (n = 0; n < r->nconds; n++) {
					c = &r->conds[n];
					p.args[c->arg] = c->op == PRIV_OP_NE ?
					    c->vals[0].v ^ 1 : c->vals[0].v;
				}
				snprintf(what, sizeof(what), "line %u %s",
				    r->line, r->sys[k].name);
				check_probe(t, &p, r->act, r->err, what);
			}
		}
		if (t->def_act == PRIV_ACT_ALLOW || t->def_act == PRIV_ACT_LOG)
			continue;
		/* A denying default stops what the table does not name. */
		for (n = 0, j = 0; j < nitems(outside); j++) {
			if (mentioned(t, outside[j]))
				continue;
			nr = seccomp_syscall_resolve_name(outside[j]);
			ATF_REQUIRE(nr >= 0);
			memset(&p, 0, sizeof(p));
			p.nr = nr;
			snprintf(what, sizeof(what), "%s outside the table",
			    outside[j]);
			check_probe(t, &p, t->def_act, t->def_err, what);
			n++;
		}
		ATF_CHECK_MSG(n >= 5, "%s: only %zu outside probes", t->file,
		    n);
	}
}

/*
 * What the payload filters must refuse, stated independently of the
 * files (design.md §2): a changed file that drops one of these fails here.
 * ALLOWED means the table let the call through to the safety net.
 */
#define SIGSYS_	(-1)
#define ALLOWED	ENOTRECOVERABLE

static const struct payload_probe {
	const char	*name;
	uint64_t	 a0, a1, a2;
	int		 command;	/* errno, SIGSYS_ or ALLOWED */
	int		 provider;
} payload_probes[] = {
	{ "setns", 0, 0, 0,			EPERM, EPERM },
	{ "mount", 0, 0, 0,			EPERM, EPERM },
	{ "umount2", 0, 0, 0,			EPERM, EPERM },
	{ "pivot_root", 0, 0, 0,		EPERM, EPERM },
	{ "open_tree", 0, 0, 0,			EPERM, EPERM },
	{ "ptrace", 0, 0, 0,			EPERM, EPERM },
	{ "process_vm_writev", 0, 0, 0,		EPERM, EPERM },
	{ "bpf", 0, 0, 0,			EPERM, EPERM },
	{ "perf_event_open", 0, 0, 0,		EPERM, EPERM },
	{ "userfaultfd", 0, 0, 0,		EPERM, EPERM },
	{ "keyctl", 0, 0, 0,			EPERM, EPERM },
	{ "add_key", 0, 0, 0,			EPERM, EPERM },
	{ "request_key", 0, 0, 0,		EPERM, EPERM },
	{ "reboot", 0, 0, 0,			EPERM, EPERM },
	{ "swapon", 0, 0, 0,			EPERM, EPERM },
	{ "settimeofday", 0, 0, 0,		EPERM, EPERM },
	{ "init_module", 0, 0, 0,		SIGSYS_, SIGSYS_ },
	{ "finit_module", 0, 0, 0,		SIGSYS_, SIGSYS_ },
	{ "kexec_load", 0, 0, 0,		SIGSYS_, SIGSYS_ },
	{ "io_uring_setup", 0, 0, 0,		ENOSYS, ENOSYS },
	{ "io_uring_enter", 0, 0, 0,		ENOSYS, ENOSYS },
	{ "clone3", 0, 0, 0,			ENOSYS, ENOSYS },
	{ "clone", CLONE_NEWUSER, 0, 0,		EPERM, EPERM },
	{ "clone", CLONE_NEWUSER | (1ULL << 32), 0, 0, EPERM, EPERM },
	{ "clone", SIGCHLD, 0, 0,		ALLOWED, ALLOWED },
	{ "unshare", CLONE_NEWUSER | CLONE_NEWNS, 0, 0, EPERM, EPERM },
	{ "ioctl", 0, TIOCSTI, 0,		EPERM, EPERM },
	{ "ioctl", 0, TIOCSTI | (1ULL << 32), 0, EPERM, EPERM },
	{ "ioctl", 0, TIOCLINUX | (1ULL << 63), 0, EPERM, EPERM },
	{ "ioctl", 0, TIOCGWINSZ, 0,		ALLOWED, ALLOWED },
	{ "personality", ADDR_NO_RANDOMIZE, 0, 0, EPERM, EPERM },
	{ "personality", READ_IMPLIES_EXEC, 0, 0, EPERM, EPERM },
	{ "personality", PER_LINUX, 0, 0,	ALLOWED, ALLOWED },
	{ "socket", AF_VSOCK, SOCK_STREAM, 0,	EPERM, EPERM },
	{ "socket", AF_VSOCK | (1ULL << 32), SOCK_STREAM, 0, EPERM, EPERM },
	{ "socket", AF_NETLINK, SOCK_RAW, NETLINK_AUDIT, EPERM, EPERM },
	{ "socket", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE | (1ULL << 32),
						EPERM, EPERM },
	{ "socket", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, ALLOWED, EPERM },
	{ "socket", AF_UNIX, SOCK_STREAM, 0,	ALLOWED, EPERM },
	{ "socket", AF_INET, SOCK_STREAM, 0,	ALLOWED, EPERM },
	{ "socketpair", AF_UNIX, SOCK_STREAM, 0, ALLOWED, EPERM },
	{ "execve", 0, 0, 0,			ALLOWED, ALLOWED },
	{ "mprotect", 0, 0, PROT_EXEC,		ALLOWED, ALLOWED },
};

static void
check_payload_probe(const struct priv_table *t,
    const struct payload_probe *pp, int want)
{
	struct probe	 p;
	char		 what[128];

	memset(&p, 0, sizeof(p));
	p.nr = seccomp_syscall_resolve_name(pp->name);
	ATF_REQUIRE(p.nr >= 0);
	p.args[0] = pp->a0;
	p.args[1] = pp->a1;
	p.args[2] = pp->a2;
	snprintf(what, sizeof(what), "%s(%#llx, %#llx, %#llx)", pp->name,
	    (unsigned long long)pp->a0, (unsigned long long)pp->a1,
	    (unsigned long long)pp->a2);
	check_probe(t, &p, want == SIGSYS_ ? PRIV_ACT_KILL : PRIV_ACT_ERRNO,
	    want, what);
}

ATF_TC_WITHOUT_HEAD(payload_filters_deny);
ATF_TC_BODY(payload_filters_deny, tc)
{
	struct probe	 p;
	size_t		 i;

	for (i = 0; i < nitems(payload_probes); i++) {
		check_payload_probe(&priv_table_command, &payload_probes[i],
		    payload_probes[i].command);
		check_payload_probe(&priv_table_provider, &payload_probes[i],
		    payload_probes[i].provider);
	}
	/* Every table answers the modern-libc probes with ENOSYS. */
	for (i = 0; i < nitems(compiled); i++) {
		memset(&p, 0, sizeof(p));
		p.nr = SYS_clone3;
		check_probe(compiled[i], &p, PRIV_ACT_ERRNO, ENOSYS, "clone3");
		p.nr = SYS_io_uring_setup;
		check_probe(compiled[i], &p, PRIV_ACT_ERRNO, ENOSYS,
		    "io_uring_setup");
	}
}

/* The payload filters let real programs run: a shell under command.priv,
 * node (libuv probes io_uring, glibc clone3) under provider.priv. */
static void
exec_child(const struct priv_table *t, const void *arg)
{
	char *const	*argv = arg;

	(void)t;
	execv(argv[0], argv);
	child_exit(errno == ENOENT ? 98 : 99);
}

static const char *
find_node(void)
{
	static const char *paths[] = { "/usr/bin/node", "/usr/local/bin/node" };
	size_t		 i;

	for (i = 0; i < nitems(paths); i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

ATF_TC_WITHOUT_HEAD(payload_filters_run_programs);
ATF_TC_BODY(payload_filters_run_programs, tc)
{
	char		*sh[] = { "/bin/sh", "-c",
	    "ls / >/dev/null && cat /etc/passwd | wc -l >/dev/null && exit 7",
	    NULL };
	char		*js[] = { NULL, "-e",
	    "require('fs').readFileSync('/etc/passwd'); "
	    "Promise.resolve().then(() => process.exit(7))", NULL };
	const char	*node;

	require_exit(in_child(&priv_table_command, 1, exec_child, sh), 7,
	    "sh under command.priv");
	if ((node = find_node()) == NULL)
		atf_tc_skip("node is not installed (scripts/deps installs it)");
	js[0] = (char *)node;
	require_exit(in_child(&priv_table_provider, 1, exec_child, js), 7,
	    "node under provider.priv");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, parse_good);
	ATF_TP_ADD_TC(tp, parse_bad);
	ATF_TP_ADD_TC(tp, parse_limits);
	ATF_TP_ADD_TC(tp, print_roundtrip);
	ATF_TP_ADD_TC(tp, lint_dangerous);
	ATF_TP_ADD_TC(tp, lint_prot_exec);
	ATF_TP_ADD_TC(tp, lint_default_allow);
	ATF_TP_ADD_TC(tp, lint_useless_waiver);
	ATF_TP_ADD_TC(tp, apply_inside_and_outside);
	ATF_TP_ADD_TC(tp, apply_arg_condition);
	ATF_TP_ADD_TC(tp, apply_errno);
	ATF_TP_ADD_TC(tp, apply_masked_ioctl);
	ATF_TP_ADD_TC(tp, proxy_splice);
	ATF_TP_ADD_TC(tp, apply_foreign_abi_killed);
	ATF_TP_ADD_TC(tp, apply_landlock);
	ATF_TP_ADD_TC(tp, landlock_plan);
	ATF_TP_ADD_TC(tp, apply_rlimits);
	ATF_TP_ADD_TC(tp, apply_root_empty);
	ATF_TP_ADD_TC(tp, apply_user);
	ATF_TP_ADD_TC(tp, apply_refuses_unbuildable);
	ATF_TP_ADD_TC(tp, export_pfc);
	ATF_TP_ADD_TC(tp, tables_cover_tree);
	ATF_TP_ADD_TC(tp, tables_match_sources);
	ATF_TP_ADD_TC(tp, tables_enforced);
	ATF_TP_ADD_TC(tp, payload_filters_deny);
	ATF_TP_ADD_TC(tp, payload_filters_run_programs);
	return atf_no_error();
}
