/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * priv_parse.c: privilege files (sbx.priv(5)) into struct priv_table.
 *
 * The file is the policy a role runs under, so the parser is strict: one
 * directive per line, in a fixed order (the order priv_apply() follows),
 * every name resolved here (syscalls through libseccomp for x86_64,
 * constants, errno names), and any error refuses the whole file with
 * "file:line: reason".  A half-understood policy is never applied.
 *
 * Memory: the returned table and everything it points to are allocated
 * with the xmalloc family and released by priv_free(); nothing else is
 * kept.  Every input dimension has a fixed cap, checked before use.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common.h"

#define PRIV_FILE_MAX		(64 * 1024)
#define PRIV_LINE_MAX		1024
#define PRIV_TOKENS_MAX		128
#define PRIV_NAME_MAX		31	/* role and user names */
#define PRIV_REASON_MAX		200	/* lint-ok "reason" */
#define PRIV_RULES_MAX		512
#define PRIV_RULE_SYSCALLS_MAX	64
#define PRIV_SET_MAX		16	/* elements of "in {...}" */
#define PRIV_EXPAND_MAX		64	/* seccomp rules per syscall */
#define PRIV_LLPATHS_MAX	64
#define PRIV_LLPORTS_MAX	64
#define PRIV_SYSNR_MAX		1024	/* x86_64 stays far below */

/*
 * x86_64 system calls that an older libseccomp may not name (upstream
 * 2.5.4 stops at 450; Debian 12's update names up to 456) but that a file
 * must be able to deny all the same, so that one file means the same with
 * every libseccomp: unnamed, the number would be answered ENOSYS
 * (priv_seccomp.c), named, allowed by a default that allows unless a
 * rule says otherwise.  Consulted only for names libseccomp does not
 * know; the numbers are the kernel's ABI.
 */
static const struct {
	const char	*name;
	int		 nr;
} newer_syscalls[] = {
	{ "fchmodat2", 452 },	/* Linux 6.6: fchmodat with flags */
};

/*
 * Directives appear in this order, which is also the order in which they
 * take effect and the order priv_print() writes them.
 */
enum rank {
	R_ROLE, R_USER, R_ROOT, R_RLIMIT, R_NNP, R_LLMODE, R_LLFS, R_LLPATH,
	R_LLNET, R_LLPORT, R_LLSCOPE, R_DEFAULT, R_RULE, R_MAX
};
static const char *rank_names[R_MAX] = {
	"role", "user", "root", "rlimit", "no_new_privs",
	"landlock required|best-effort", "landlock fs", "landlock ro|rx|rw",
	"landlock net", "landlock bind|connect", "landlock scope", "default",
	"allow/kill/trap/log/errno rules"
};

enum tk {
	TK_WORD, TK_STRING, TK_LBRACE, TK_RBRACE, TK_COMMA, TK_AMP, TK_EQ,
	TK_NE
};

struct tok {
	enum tk		 kind;
	const char	*s;		/* NUL-terminated, in the pool */
};

struct line {
	struct tok	 tok[PRIV_TOKENS_MAX];
	size_t		 ntok;
	char		 pool[2 * PRIV_LINE_MAX + 2];
	size_t		 used;
};

/* What earlier rules said about one syscall (cross-line checks). */
struct sysuse {
	unsigned int	 line;		/* 0: not used yet */
	enum priv_act	 act;
	int		 err;
	int		 uncond;
};

struct pstate {
	const char		*file;
	unsigned int		 line;
	char			*err;
	size_t			 errlen;
	struct priv_table	*t;
	/* Mutable views of t's arrays; t points at the same memory. */
	struct priv_rule	*rules;
	struct priv_rlimit	*rl;
	struct priv_llpath	*llpaths;
	struct priv_llport	*llports;
	unsigned int		 seen[R_MAX];	/* first line, or 0 */
	int			 maxrank;
	struct sysuse		 use[PRIV_SYSNR_MAX];
};

static int	perr(struct pstate *, const char *, ...) SBX_PRINTF(2, 3);

static int
perr(struct pstate *ps, const char *fmt, ...)
{
	char	 msg[512];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(ps->err, ps->errlen, "%s:%u: %s", ps->file, ps->line, msg);
	return -1;
}

static void
freec(const void *p)
{
	free((void *)(uintptr_t)p);
}

void
priv_free(struct priv_table *t)
{
	const struct priv_rule	*r;
	const struct priv_cond	*c;
	size_t			 i, j, k;

	if (t == NULL)
		return;
	for (i = 0; i < t->nrules; i++) {
		r = &t->rules[i];
		for (j = 0; j < r->nsys; j++)
			freec(r->sys[j].name);
		for (j = 0; j < r->nconds; j++) {
			c = &r->conds[j];
			freec(c->mask.text);
			for (k = 0; k < c->nvals; k++)
				freec(c->vals[k].text);
			freec(c->vals);
		}
		freec(r->sys);
		freec(r->conds);
		freec(r->waiver);
	}
	freec(t->rules);
	freec(t->rlimits);
	for (i = 0; i < t->nll_paths; i++)
		freec(t->ll_paths[i].path);
	freec(t->ll_paths);
	freec(t->ll_ports);
	freec(t->role);
	freec(t->user);
	freec(t->file);
	free(t);
}

/* ---- lexer ----------------------------------------------------------- */

static int
is_wordc(int c)
{
	return isalnum(c) || c == '_' || c == '-';
}

static int
addtok(struct pstate *ps, struct line *ln, enum tk kind, const char *s,
    size_t len)
{
	struct tok	*t;

	if (ln->ntok == PRIV_TOKENS_MAX)
		return perr(ps, "more than %d words on one line",
		    PRIV_TOKENS_MAX);
	/* The pool holds at most every byte of the line plus one NUL each. */
	t = &ln->tok[ln->ntok++];
	t->kind = kind;
	t->s = ln->pool + ln->used;
	memcpy(ln->pool + ln->used, s, len);
	ln->pool[ln->used + len] = '\0';
	ln->used += len + 1;
	return 0;
}

/*
 * Split one line (len bytes, no newline) into tokens.  Only printable
 * ASCII and tabs are accepted anywhere: a policy must read the same in
 * every terminal and editor.
 */
static int
lex(struct pstate *ps, const char *s, size_t len, struct line *ln)
{
	size_t	 i, j;

	ln->ntok = 0;
	ln->used = 0;
	for (i = 0; i < len; i++) {
		if (s[i] != '\t' && (s[i] < 0x20 || s[i] > 0x7e))
			return perr(ps, "byte 0x%02x is not printable ASCII",
			    (unsigned char)s[i]);
	}
	i = 0;
	while (i < len) {
		if (s[i] == ' ' || s[i] == '\t') {
			i++;
			continue;
		}
		if (s[i] == '#')
			break;
		if (s[i] == '"') {
			for (j = i + 1; j < len && s[j] != '"'; j++)
				;
			if (j == len)
				return perr(ps, "unterminated string");
			if (addtok(ps, ln, TK_STRING, s + i + 1, j - i - 1))
				return -1;
			i = j + 1;
			continue;
		}
		if (is_wordc((unsigned char)s[i])) {
			for (j = i; j < len && is_wordc((unsigned char)s[j]);
			    j++)
				;
			if (addtok(ps, ln, TK_WORD, s + i, j - i))
				return -1;
			i = j;
			continue;
		}
		if (s[i] == '=' && i + 1 < len && s[i + 1] == '=') {
			if (addtok(ps, ln, TK_EQ, "==", 2))
				return -1;
			i += 2;
			continue;
		}
		if (s[i] == '!' && i + 1 < len && s[i + 1] == '=') {
			if (addtok(ps, ln, TK_NE, "!=", 2))
				return -1;
			i += 2;
			continue;
		}
		switch (s[i]) {
		case '{':
			if (addtok(ps, ln, TK_LBRACE, "{", 1))
				return -1;
			break;
		case '}':
			if (addtok(ps, ln, TK_RBRACE, "}", 1))
				return -1;
			break;
		case ',':
			if (addtok(ps, ln, TK_COMMA, ",", 1))
				return -1;
			break;
		case '&':
			if (addtok(ps, ln, TK_AMP, "&", 1))
				return -1;
			break;
		default:
			return perr(ps, "unexpected character '%c'", s[i]);
		}
		i++;
	}
	return 0;
}

/* ---- small parsers ----------------------------------------------------- */

static int
is_word(const struct tok *t, const char *w)
{
	return t->kind == TK_WORD && strcmp(t->s, w) == 0;
}

static int
want_end(struct pstate *ps, struct line *ln, size_t i)
{
	if (i < ln->ntok)
		return perr(ps, "unexpected '%s' at end of line",
		    ln->tok[i].s);
	return 0;
}

static int
want_word(struct pstate *ps, struct line *ln, size_t i, const char *what)
{
	if (i >= ln->ntok)
		return perr(ps, "missing %s", what);
	if (ln->tok[i].kind != TK_WORD)
		return perr(ps, "expected %s, found '%s'", what,
		    ln->tok[i].s);
	return 0;
}

/*
 * Numbers are decimal (optionally negative) or hexadecimal with "0x".  A
 * leading zero is refused: C reads 0755 as octal, and a policy must not
 * mean different things to different readers.
 */
static int
parse_number(const char *s, uint64_t *v)
{
	uint64_t	 n = 0, d, lim;
	int		 neg = 0, hex = 0;
	size_t		 i, ndig = 0;

	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (neg)
			return -1;
		hex = 1;
		s += 2;
	} else if (s[0] == '0' && s[1] != '\0')
		return -1;
	lim = neg ? (uint64_t)1 << 63 : UINT64_MAX;
	for (i = 0; s[i] != '\0'; i++, ndig++) {
		if (hex && isxdigit((unsigned char)s[i]))
			d = isdigit((unsigned char)s[i]) ? s[i] - '0' :
			    (tolower((unsigned char)s[i]) - 'a' + 10);
		else if (!hex && isdigit((unsigned char)s[i]))
			d = s[i] - '0';
		else
			return -1;
		if (n > (lim - d) / (hex ? 16 : 10))
			return -1;
		n = n * (hex ? 16 : 10) + d;
	}
	if (ndig == 0)
		return -1;
	*v = neg ? (uint64_t)0 - n : n;
	return 0;
}

static int
parse_value(struct pstate *ps, const struct tok *t, struct priv_value *pv)
{
	if (t->kind != TK_WORD)
		return perr(ps, "expected a value, found '%s'", t->s);
	pv->text = t->s;
	if (isdigit((unsigned char)t->s[0]) || t->s[0] == '-') {
		if (parse_number(t->s, &pv->v) == -1)
			return perr(ps, "bad number '%s' (decimal, or hex with "
			    "0x; no leading zeros)", t->s);
		return 0;
	}
	if (priv_const_lookup(t->s, &pv->v) == -1)
		return perr(ps, "unknown constant '%s'", t->s);
	return 0;
}

static int
valid_name(const char *s, int user)
{
	size_t	 i;

	if (!islower((unsigned char)s[0]) && !(user && s[0] == '_'))
		return 0;
	for (i = 0; s[i] != '\0'; i++) {
		if (!islower((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]) && s[i] != '-' &&
		    !(user && s[i] == '_'))
			return 0;
	}
	return i <= PRIV_NAME_MAX;
}

/* ---- directives -------------------------------------------------------- */

static int
p_role(struct pstate *ps, struct line *ln)
{
	if (want_word(ps, ln, 1, "role name") == -1)
		return -1;
	if (!valid_name(ln->tok[1].s, 0))
		return perr(ps, "bad role name '%s' (lower case letters, "
		    "digits and '-', at most %d)", ln->tok[1].s,
		    PRIV_NAME_MAX);
	if (want_end(ps, ln, 2) == -1)
		return -1;
	ps->t->role = xstrdup(ln->tok[1].s);
	return 0;
}

static int
p_user(struct pstate *ps, struct line *ln)
{
	if (want_word(ps, ln, 1, "user name or 'same'") == -1)
		return -1;
	if (!is_word(&ln->tok[1], "same") && !valid_name(ln->tok[1].s, 1))
		return perr(ps, "bad user name '%s'", ln->tok[1].s);
	if (want_end(ps, ln, 2) == -1)
		return -1;
	if (!is_word(&ln->tok[1], "same"))
		ps->t->user = xstrdup(ln->tok[1].s);
	return 0;
}

static int
p_root(struct pstate *ps, struct line *ln)
{
	if (want_word(ps, ln, 1, "'empty' or 'none'") == -1)
		return -1;
	if (is_word(&ln->tok[1], "empty"))
		ps->t->root = PRIV_ROOT_EMPTY;
	else if (is_word(&ln->tok[1], "none"))
		ps->t->root = PRIV_ROOT_NONE;
	else
		return perr(ps, "root must be 'empty' or 'none', not '%s'",
		    ln->tok[1].s);
	return want_end(ps, ln, 2);
}

static int
p_rlimit(struct pstate *ps, struct line *ln)
{
	struct priv_table	*t = ps->t;
	const char		*s;
	uint64_t		 v;
	size_t			 i;
	int			 res;

	if (want_word(ps, ln, 1, "resource") == -1)
		return -1;
	if (priv_rlimit_lookup(ln->tok[1].s, &res) == -1)
		return perr(ps, "unknown rlimit resource '%s'", ln->tok[1].s);
	for (i = 0; i < t->nrlimits; i++)
		if (t->rlimits[i].resource == res)
			return perr(ps, "rlimit %s given twice", ln->tok[1].s);
	if (want_word(ps, ln, 2, "limit") == -1)
		return -1;
	s = ln->tok[2].s;
	if (is_word(&ln->tok[2], "infinity"))
		v = PRIV_RLIM_INFINITY;
	else if (s[0] == '-' || strncasecmp(s, "0x", 2) == 0 ||
	    parse_number(s, &v) == -1)
		return perr(ps, "bad limit '%s' (a decimal number or "
		    "'infinity')", s);
	else if (v == PRIV_RLIM_INFINITY)
		return perr(ps, "limit '%s' too large; say 'infinity'", s);
	if (want_end(ps, ln, 3) == -1)
		return -1;
	ps->rl = xrecallocarray(ps->rl, t->nrlimits, t->nrlimits + 1,
	    sizeof(*ps->rl));
	ps->rl[t->nrlimits].resource = res;
	ps->rl[t->nrlimits].value = v;
	t->rlimits = ps->rl;
	t->nrlimits++;
	return 0;
}

static int
p_nnp(struct pstate *ps, struct line *ln)
{
	if (want_word(ps, ln, 1, "'yes'") == -1)
		return -1;
	if (!is_word(&ln->tok[1], "yes"))
		return perr(ps, "no_new_privs can only be 'yes' (a filter "
		    "without it is shed by exec of a set-id program)");
	ps->t->no_new_privs = 1;
	return want_end(ps, ln, 2);
}

/* Absolute, no "." or ".." components, no "//", no trailing "/". */
static int
valid_path(const char *p)
{
	const char	*c;
	size_t		 n;

	if (p[0] != '/')
		return 0;
	if (strcmp(p, "/") == 0)
		return 1;
	for (c = p; *c != '\0'; c += n) {
		c++;				/* the '/' */
		n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
	}
	return 1;
}

static int
p_llpath(struct pstate *ps, struct line *ln, enum priv_llaccess acc)
{
	struct priv_table	*t = ps->t;
	const char		*p;
	size_t			 i;

	if (ln->ntok < 3 || ln->tok[2].kind != TK_STRING)
		return perr(ps, "landlock %s needs a quoted path",
		    ln->tok[1].s);
	p = ln->tok[2].s;
	if (!valid_path(p))
		return perr(ps, "landlock path \"%s\" must be absolute, "
		    "without '.', '..', '//' or a trailing '/'", p);
	if ((acc == PRIV_LLA_RO && t->ll_fs >= PRIV_LLFS_RO) ||
	    (acc == PRIV_LLA_RX && t->ll_fs == PRIV_LLFS_RX))
		return perr(ps, "landlock %s \"%s\" grants nothing beyond "
		    "'landlock fs %s'", ln->tok[1].s, p,
		    t->ll_fs == PRIV_LLFS_RO ? "ro" : "rx");
	for (i = 0; i < t->nll_paths; i++)
		if (strcmp(t->ll_paths[i].path, p) == 0)
			return perr(ps, "landlock path \"%s\" given twice", p);
	if (t->nll_paths == PRIV_LLPATHS_MAX)
		return perr(ps, "more than %d landlock paths",
		    PRIV_LLPATHS_MAX);
	if (want_end(ps, ln, 3) == -1)
		return -1;
	ps->llpaths = xrecallocarray(ps->llpaths, t->nll_paths,
	    t->nll_paths + 1, sizeof(*ps->llpaths));
	ps->llpaths[t->nll_paths].access = acc;
	ps->llpaths[t->nll_paths].path = xstrdup(p);
	t->ll_paths = ps->llpaths;
	t->nll_paths++;
	return 0;
}

static int
p_llport(struct pstate *ps, struct line *ln, enum priv_llport_kind kind)
{
	struct priv_table	*t = ps->t;
	uint64_t		 v;
	size_t			 i;

	if (want_word(ps, ln, 2, "port number") == -1)
		return -1;
	if (ln->tok[2].s[0] == '-' || strncasecmp(ln->tok[2].s, "0x", 2) == 0 ||
	    parse_number(ln->tok[2].s, &v) == -1 || v > 65535)
		return perr(ps, "bad port '%s' (decimal 0-65535)",
		    ln->tok[2].s);
	for (i = 0; i < t->nll_ports; i++)
		if (t->ll_ports[i].kind == kind && t->ll_ports[i].port == v)
			return perr(ps, "landlock %s %s given twice",
			    ln->tok[1].s, ln->tok[2].s);
	if (t->nll_ports == PRIV_LLPORTS_MAX)
		return perr(ps, "more than %d landlock ports",
		    PRIV_LLPORTS_MAX);
	if (want_end(ps, ln, 3) == -1)
		return -1;
	ps->llports = xrecallocarray(ps->llports, t->nll_ports,
	    t->nll_ports + 1, sizeof(*ps->llports));
	ps->llports[t->nll_ports].kind = kind;
	ps->llports[t->nll_ports].port = (uint16_t)v;
	t->ll_ports = ps->llports;
	t->nll_ports++;
	return 0;
}

/* Which rank a landlock line has, so the order check can run first. */
static int
landlock_rank(struct pstate *ps, struct line *ln, enum rank *r)
{
	const struct tok	*t;

	if (want_word(ps, ln, 1, "landlock statement") == -1)
		return -1;
	t = &ln->tok[1];
	if (is_word(t, "required") || is_word(t, "best-effort"))
		*r = R_LLMODE;
	else if (is_word(t, "fs"))
		*r = R_LLFS;
	else if (is_word(t, "ro") || is_word(t, "rx") || is_word(t, "rw"))
		*r = R_LLPATH;
	else if (is_word(t, "net"))
		*r = R_LLNET;
	else if (is_word(t, "bind") || is_word(t, "connect"))
		*r = R_LLPORT;
	else if (is_word(t, "scope"))
		*r = R_LLSCOPE;
	else
		return perr(ps, "unknown landlock statement '%s'", t->s);
	return 0;
}

static int
p_landlock(struct pstate *ps, struct line *ln, enum rank r)
{
	struct priv_table	*t = ps->t;
	const struct tok	*a = &ln->tok[1];
	unsigned int		 scope;

	if (r != R_LLMODE && t->ll_mode == PRIV_LL_OFF)
		return perr(ps, "'landlock required' or 'landlock "
		    "best-effort' must come first");
	switch (r) {
	case R_LLMODE:
		t->ll_mode = is_word(a, "required") ? PRIV_LL_REQUIRED :
		    PRIV_LL_BEST_EFFORT;
		return want_end(ps, ln, 2);
	case R_LLFS:
		if (want_word(ps, ln, 2, "'none', 'ro' or 'rx'") == -1)
			return -1;
		if (is_word(&ln->tok[2], "none"))
			t->ll_fs = PRIV_LLFS_NONE;
		else if (is_word(&ln->tok[2], "ro"))
			t->ll_fs = PRIV_LLFS_RO;
		else if (is_word(&ln->tok[2], "rx"))
			t->ll_fs = PRIV_LLFS_RX;
		else
			return perr(ps, "landlock fs must be 'none', 'ro' or "
			    "'rx', not '%s'", ln->tok[2].s);
		return want_end(ps, ln, 3);
	case R_LLPATH:
		if (t->ll_fs == PRIV_LLFS_OFF)
			return perr(ps, "landlock %s needs a 'landlock fs' "
			    "line before it", a->s);
		return p_llpath(ps, ln, is_word(a, "ro") ? PRIV_LLA_RO :
		    is_word(a, "rx") ? PRIV_LLA_RX : PRIV_LLA_RW);
	case R_LLNET:
		if (ln->ntok < 3 || !is_word(&ln->tok[2], "none"))
			return perr(ps, "landlock net must be 'none'");
		t->ll_net = 1;
		return want_end(ps, ln, 3);
	case R_LLPORT:
		if (!t->ll_net)
			return perr(ps, "landlock %s needs a 'landlock net "
			    "none' line before it", a->s);
		return p_llport(ps, ln, is_word(a, "bind") ? PRIV_LLP_BIND :
		    PRIV_LLP_CONNECT);
	case R_LLSCOPE:
		if (want_word(ps, ln, 2, "scope") == -1)
			return -1;
		if (is_word(&ln->tok[2], "abstract-unix-socket"))
			scope = PRIV_LLSCOPE_ABSTRACT_UNIX;
		else if (is_word(&ln->tok[2], "signal"))
			scope = PRIV_LLSCOPE_SIGNAL;
		else
			return perr(ps, "landlock scope must be "
			    "'abstract-unix-socket' or 'signal', not '%s'",
			    ln->tok[2].s);
		if (t->ll_scopes & scope)
			return perr(ps, "landlock scope %s given twice",
			    ln->tok[2].s);
		t->ll_scopes |= scope;
		return want_end(ps, ln, 3);
	default:
		return perr(ps, "internal: landlock rank %d", r);
	}
}

/* ACTION: allow | kill | trap | log | errno NAME */
static int
parse_action(struct pstate *ps, struct line *ln, size_t *i,
    enum priv_act *act, int *err)
{
	const struct tok	*t = &ln->tok[*i];

	*err = 0;
	if (is_word(t, "allow"))
		*act = PRIV_ACT_ALLOW;
	else if (is_word(t, "kill"))
		*act = PRIV_ACT_KILL;
	else if (is_word(t, "trap"))
		*act = PRIV_ACT_TRAP;
	else if (is_word(t, "log"))
		*act = PRIV_ACT_LOG;
	else if (is_word(t, "errno")) {
		*act = PRIV_ACT_ERRNO;
		if (want_word(ps, ln, *i + 1, "errno name") == -1)
			return -1;
		if (priv_errno_lookup(ln->tok[*i + 1].s, err) == -1)
			return perr(ps, "unknown errno name '%s'",
			    ln->tok[*i + 1].s);
		(*i)++;
	} else
		return perr(ps, "unknown action '%s' (allow, kill, trap, "
		    "log, errno NAME)", t->s);
	(*i)++;
	return 0;
}

static int
permissive(enum priv_act a)
{
	return a == PRIV_ACT_ALLOW || a == PRIV_ACT_LOG;
}

static int
p_default(struct pstate *ps, struct line *ln)
{
	size_t	 i = 1;

	if (want_word(ps, ln, 1, "default action") == -1)
		return -1;
	if (parse_action(ps, ln, &i, &ps->t->def_act, &ps->t->def_err) == -1)
		return -1;
	ps->t->def_line = ps->line;
	return want_end(ps, ln, i);
}

static int
is_argn(const struct tok *t)
{
	return t->kind == TK_WORD && strncmp(t->s, "arg", 3) == 0 &&
	    t->s[3] != '\0';
}

/*
 * argN == V | argN != V | argN & M == V | argN in {A, B, ...}
 * Values are parsed into vals[]; text points into the line's pool.
 */
static int
parse_cond(struct pstate *ps, struct line *ln, size_t *ip,
    struct priv_cond *c, struct priv_value *vals)
{
	size_t			 i = *ip, n;
	const char		*a = ln->tok[i].s;

	memset(c, 0, sizeof(*c));
	if (a[3] < '0' || a[3] >= '0' + PRIV_ARGS || a[4] != '\0')
		return perr(ps, "bad argument '%s' (arg0 to arg%d)", a,
		    PRIV_ARGS - 1);
	c->arg = a[3] - '0';
	if (++i >= ln->ntok)
		return perr(ps, "%s: missing operator (==, !=, &, in)", a);
	c->vals = vals;
	c->nvals = 1;
	switch (ln->tok[i].kind) {
	case TK_EQ:
	case TK_NE:
		c->op = ln->tok[i].kind == TK_EQ ? PRIV_OP_EQ : PRIV_OP_NE;
		if (++i >= ln->ntok)
			return perr(ps, "%s: missing value", a);
		if (parse_value(ps, &ln->tok[i++], &vals[0]) == -1)
			return -1;
		break;
	case TK_AMP:
		c->op = PRIV_OP_MASKED_EQ;
		if (++i >= ln->ntok)
			return perr(ps, "%s &: missing mask", a);
		if (parse_value(ps, &ln->tok[i++], &c->mask) == -1)
			return -1;
		if (i >= ln->ntok || ln->tok[i].kind != TK_EQ)
			return perr(ps, "%s & %s: expected '=='", a,
			    c->mask.text);
		if (++i >= ln->ntok)
			return perr(ps, "%s & %s ==: missing value", a,
			    c->mask.text);
		if (parse_value(ps, &ln->tok[i++], &vals[0]) == -1)
			return -1;
		if (c->mask.v == 0)
			return perr(ps, "%s & %s: the mask is zero", a,
			    c->mask.text);
		if (vals[0].v & ~c->mask.v)
			return perr(ps, "%s & %s == %s can never match: the "
			    "value has bits outside the mask", a,
			    c->mask.text, vals[0].text);
		break;
	case TK_WORD:
		if (!is_word(&ln->tok[i], "in"))
			return perr(ps, "%s: unknown operator '%s'", a,
			    ln->tok[i].s);
		c->op = PRIV_OP_IN;
		if (++i >= ln->ntok || ln->tok[i].kind != TK_LBRACE)
			return perr(ps, "%s in: expected '{'", a);
		i++;
		for (n = 0;; n++) {
			if (n == PRIV_SET_MAX)
				return perr(ps, "%s in: more than %d values",
				    a, PRIV_SET_MAX);
			if (i >= ln->ntok)
				return perr(ps, "%s in: missing value", a);
			if (parse_value(ps, &ln->tok[i++], &vals[n]) == -1)
				return -1;
			if (i >= ln->ntok)
				return perr(ps, "%s in: missing '}'", a);
			if (ln->tok[i].kind == TK_RBRACE)
				break;
			if (ln->tok[i].kind != TK_COMMA)
				return perr(ps, "%s in: expected ',' or '}', "
				    "found '%s'", a, ln->tok[i].s);
			i++;
		}
		i++;
		c->nvals = n + 1;
		for (n = 0; n < c->nvals; n++) {
			size_t	 m;

			for (m = 0; m < n; m++)
				if (vals[m].v == vals[n].v)
					return perr(ps, "%s in: %s and %s are "
					    "the same value", a, vals[m].text,
					    vals[n].text);
		}
		break;
	default:
		return perr(ps, "%s: unknown operator '%s'", a, ln->tok[i].s);
	}
	*ip = i;
	return 0;
}

/* An action as the file spells it, with its errno name. */
static const char *
act_name(enum priv_act a, int err, char *buf, size_t len)
{
	const char	*n;

	if (a != PRIV_ACT_ERRNO)
		return priv_act_word(a);
	n = priv_errno_name(err);
	snprintf(buf, len, "errno %s", n != NULL ? n : "?");
	return buf;
}

/* Check one syscall of a rule against earlier rules, then record it. */
static int
check_use(struct pstate *ps, const struct priv_syscall *s,
    const struct priv_rule *r)
{
	struct sysuse	*u = &ps->use[s->nr];
	char		 b1[32], b2[32];

	if (u->line != 0) {
		if (u->uncond)
			return perr(ps, "%s already has an unconditional rule "
			    "at line %u", s->name, u->line);
		if (r->nconds == 0)
			return perr(ps, "%s already has conditional rules "
			    "(line %u); an unconditional rule would hide "
			    "them", s->name, u->line);
		if (u->act != r->act || u->err != r->err)
			return perr(ps, "%s: all rules for one syscall must "
			    "share one action ('%s' here, '%s' at line %u)",
			    s->name, act_name(r->act, r->err, b1, sizeof(b1)),
			    act_name(u->act, u->err, b2, sizeof(b2)),
			    u->line);
		return 0;
	}
	u->line = ps->line;
	u->act = r->act;
	u->err = r->err;
	u->uncond = r->nconds == 0;
	return 0;
}

/*
 * ACTION SYSCALL... [argN OP VALUE ...] [lint-ok "reason"]
 * All validation happens before anything is copied into the table.
 */
static int
p_rule(struct pstate *ps, struct line *ln)
{
	struct priv_table	*t = ps->t;
	struct priv_rule	 r, *nr;
	struct priv_syscall	 sys[PRIV_RULE_SYSCALLS_MAX], *ns;
	struct priv_cond	 conds[PRIV_ARGS], *nc;
	struct priv_value	 vals[PRIV_ARGS][PRIV_SET_MAX], *nv;
	size_t			 i = 0, j, k, expand = 1;
	int			 nr_;

	memset(&r, 0, sizeof(r));
	r.line = ps->line;
	if (t->nrules == PRIV_RULES_MAX)
		return perr(ps, "more than %d rules", PRIV_RULES_MAX);
	if (parse_action(ps, ln, &i, &r.act, &r.err) == -1)
		return -1;

	for (; i < ln->ntok && ln->tok[i].kind == TK_WORD &&
	    !is_argn(&ln->tok[i]) && !is_word(&ln->tok[i], "lint-ok"); i++) {
		const char	*name = ln->tok[i].s;

		for (k = 0; name[k] != '\0'; k++)
			if (!islower((unsigned char)name[k]) &&
			    !isdigit((unsigned char)name[k]) && name[k] != '_')
				return perr(ps, "bad syscall name '%s'", name);
		nr_ = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64,
		    name);
		for (k = 0; nr_ < 0 && k < nitems(newer_syscalls); k++)
			if (strcmp(newer_syscalls[k].name, name) == 0)
				nr_ = newer_syscalls[k].nr;
		if (nr_ < 0 || nr_ >= PRIV_SYSNR_MAX)
			return perr(ps, "unknown syscall '%s' (not an x86_64 "
			    "system call known to libseccomp)", name);
		if (r.nsys == PRIV_RULE_SYSCALLS_MAX)
			return perr(ps, "more than %d syscalls on one line",
			    PRIV_RULE_SYSCALLS_MAX);
		for (k = 0; k < r.nsys; k++)
			if (sys[k].nr == nr_)
				return perr(ps, "%s named twice on one line",
				    name);
		sys[r.nsys].name = name;
		sys[r.nsys].nr = nr_;
		r.nsys++;
	}
	if (r.nsys == 0)
		return perr(ps, "rule names no syscall");

	while (i < ln->ntok && is_argn(&ln->tok[i])) {
		/* one condition per argument, so at most PRIV_ARGS */
		if (r.nconds == PRIV_ARGS)
			return perr(ps, "more than %d conditions on one line",
			    PRIV_ARGS);
		if (parse_cond(ps, ln, &i, &conds[r.nconds],
		    vals[r.nconds]) == -1)
			return -1;
		for (k = 0; k < r.nconds; k++)
			if (conds[k].arg == conds[r.nconds].arg)
				return perr(ps, "arg%u compared twice on one "
				    "line (libseccomp cannot); use two lines",
				    conds[k].arg);
		if (conds[r.nconds].op == PRIV_OP_NE && permissive(r.act))
			return perr(ps, "arg%u !=: not allowed in an allow or "
			    "log rule (on a 32-bit argument high bits would "
			    "slip past it); write a deny rule with ==",
			    conds[r.nconds].arg);
		expand *= conds[r.nconds].nvals;
		if (expand > PRIV_EXPAND_MAX)
			return perr(ps, "the 'in' sets expand to more than %d "
			    "seccomp rules", PRIV_EXPAND_MAX);
		r.nconds++;
	}

	if (i < ln->ntok && is_word(&ln->tok[i], "lint-ok")) {
		if (++i >= ln->ntok || ln->tok[i].kind != TK_STRING)
			return perr(ps, "lint-ok needs a quoted reason");
		if (ln->tok[i].s[0] == '\0' ||
		    strlen(ln->tok[i].s) > PRIV_REASON_MAX)
			return perr(ps, "lint-ok reason must be 1 to %d "
			    "characters", PRIV_REASON_MAX);
		r.waiver = ln->tok[i++].s;
	}
	if (i < ln->ntok)
		return perr(ps, "unexpected '%s' in rule", ln->tok[i].s);

	if (r.act == t->def_act && r.err == t->def_err && r.nconds != 0)
		return perr(ps, "a rule with the default action may only "
		    "restate it, without conditions (these would change "
		    "nothing)");
	for (j = 0; j < r.nsys; j++)
		if (check_use(ps, &sys[j], &r) == -1)
			return -1;

	/* Commit: copy everything out of the line's pool. */
	ns = xcalloc(r.nsys, sizeof(*ns));
	for (j = 0; j < r.nsys; j++) {
		ns[j].name = xstrdup(sys[j].name);
		ns[j].nr = sys[j].nr;
	}
	nc = r.nconds ? xcalloc(r.nconds, sizeof(*nc)) : NULL;
	for (j = 0; j < r.nconds; j++) {
		nc[j] = conds[j];
		if (conds[j].op == PRIV_OP_MASKED_EQ)
			nc[j].mask.text = xstrdup(conds[j].mask.text);
		else
			nc[j].mask.text = NULL;
		nv = xcalloc(conds[j].nvals, sizeof(*nv));
		for (k = 0; k < conds[j].nvals; k++) {
			nv[k].v = vals[j][k].v;
			nv[k].text = xstrdup(vals[j][k].text);
		}
		nc[j].vals = nv;
	}
	ps->rules = xrecallocarray(ps->rules, t->nrules, t->nrules + 1,
	    sizeof(*ps->rules));
	nr = &ps->rules[t->nrules];
	*nr = r;
	nr->sys = ns;
	nr->conds = nc;
	nr->waiver = r.waiver != NULL ? xstrdup(r.waiver) : NULL;
	t->rules = ps->rules;
	t->nrules++;
	return 0;
}

/* ---- driver ------------------------------------------------------------ */

static int
parse_line(struct pstate *ps, struct line *ln)
{
	const struct tok	*k = &ln->tok[0];
	enum rank		 r = R_MAX;

	if (k->kind != TK_WORD)
		return perr(ps, "expected a keyword, found '%s'", k->s);
	if (is_word(k, "role"))
		r = R_ROLE;
	else if (is_word(k, "user"))
		r = R_USER;
	else if (is_word(k, "root"))
		r = R_ROOT;
	else if (is_word(k, "rlimit"))
		r = R_RLIMIT;
	else if (is_word(k, "no_new_privs"))
		r = R_NNP;
	else if (is_word(k, "landlock")) {
		if (landlock_rank(ps, ln, &r) == -1)
			return -1;
	} else if (is_word(k, "default"))
		r = R_DEFAULT;
	else if (is_word(k, "allow") || is_word(k, "kill") ||
	    is_word(k, "trap") || is_word(k, "log") || is_word(k, "errno"))
		r = R_RULE;
	else
		return perr(ps, "unknown keyword '%s'", k->s);
	if (r >= R_MAX)
		return perr(ps, "internal: no rank for '%s'", k->s);

	/* Singletons once; everything in sbx.priv(5) order. */
	if (ps->seen[r] != 0 && r != R_RLIMIT && r != R_LLPATH &&
	    r != R_LLPORT && r != R_LLSCOPE && r != R_RULE)
		return perr(ps, "%s given twice (first at line %u)",
		    rank_names[r], ps->seen[r]);
	if ((int)r < ps->maxrank)
		return perr(ps, "%s must come before %s", rank_names[r],
		    rank_names[ps->maxrank]);
	if (r == R_RULE && ps->seen[R_DEFAULT] == 0)
		return perr(ps, "rule before 'default': state the default "
		    "action first");
	if (ps->seen[r] == 0)
		ps->seen[r] = ps->line;
	ps->maxrank = r;

	switch (r) {
	case R_ROLE:
		return p_role(ps, ln);
	case R_USER:
		return p_user(ps, ln);
	case R_ROOT:
		return p_root(ps, ln);
	case R_RLIMIT:
		return p_rlimit(ps, ln);
	case R_NNP:
		return p_nnp(ps, ln);
	case R_DEFAULT:
		return p_default(ps, ln);
	case R_RULE:
		return p_rule(ps, ln);
	default:
		return p_landlock(ps, ln, r);
	}
}

/* What every file must say, checked once the whole file is read. */
static int
finish(struct pstate *ps)
{
	static const struct {
		enum rank	 r;
		const char	*why;
	} must[] = {
		{ R_ROLE, "every table is named" },
		{ R_USER, "say 'user same' to keep the current user" },
		{ R_ROOT, "say 'root none' to keep the file system view" },
		{ R_NNP, "seccomp and Landlock rely on it" },
		{ R_DEFAULT, "the seccomp default action is never implied" },
	};
	struct priv_table	*t = ps->t;
	size_t			 i;

	for (i = 0; i < nitems(must); i++)
		if (ps->seen[must[i].r] == 0)
			return perr(ps, "missing '%s' (%s)",
			    rank_names[must[i].r], must[i].why);
	if (t->ll_mode != PRIV_LL_OFF && t->ll_fs == PRIV_LLFS_OFF &&
	    !t->ll_net && t->ll_scopes == 0)
		return perr(ps, "'landlock %s' (line %u) restricts nothing: "
		    "add 'landlock fs', 'landlock net none' or 'landlock "
		    "scope'", t->ll_mode == PRIV_LL_REQUIRED ? "required" :
		    "best-effort", ps->seen[R_LLMODE]);
	return 0;
}

struct priv_table *
priv_parse(const char *file, const char *buf, size_t len, char *err,
    size_t errlen)
{
	struct pstate	*ps;
	struct line	*ln;
	struct priv_table *t;
	size_t		 off = 0, n;
	const char	*nl;
	int		 rv = 0;

	if (errlen > 0)
		err[0] = '\0';
	ps = xcalloc(1, sizeof(*ps));
	ln = xcalloc(1, sizeof(*ln));
	ps->file = file;
	ps->err = err;
	ps->errlen = errlen;
	ps->t = t = xcalloc(1, sizeof(*t));
	t->file = xstrdup(file);

	if (len > PRIV_FILE_MAX) {
		ps->line = 1;
		rv = perr(ps, "file larger than %d bytes", PRIV_FILE_MAX);
	}
	while (rv == 0 && off < len) {
		ps->line++;
		nl = memchr(buf + off, '\n', len - off);
		n = nl != NULL ? (size_t)(nl - (buf + off)) : len - off;
		if (n > PRIV_LINE_MAX)
			rv = perr(ps, "line longer than %d bytes",
			    PRIV_LINE_MAX);
		else if ((rv = lex(ps, buf + off, n, ln)) == 0 &&
		    ln->ntok > 0)
			rv = parse_line(ps, ln);
		off += n + (nl != NULL);
	}
	if (rv == 0) {
		if (ps->line == 0)
			ps->line = 1;
		rv = finish(ps);
	}
	free(ln);
	free(ps);
	if (rv != 0) {
		priv_free(t);
		return NULL;
	}
	return t;
}

struct priv_table *
priv_parse_file(const char *path, char *err, size_t errlen)
{
	struct priv_table	*t;
	struct stat		 st;
	char			*buf;
	ssize_t			 r;
	size_t			 off = 0;
	int			 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: open: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > PRIV_FILE_MAX) {
		snprintf(err, errlen, "%s: not a regular file of at most %d "
		    "bytes", path, PRIV_FILE_MAX);
		close(fd);
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (off < (size_t)st.st_size) {
		r = read(fd, buf + off, (size_t)st.st_size - off);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(err, errlen, "%s: read: %s", path,
			    r == 0 ? "file shrank" : strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		off += (size_t)r;
	}
	close(fd);
	t = priv_parse(path, buf, off, err, errlen);
	free(buf);
	return t;
}
