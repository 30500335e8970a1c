/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * parse.c: reader of sbx.conf(5).  A hand-written lexer and a recursive
 * descent over statements, in the manner of the OpenBSD daemons' parse.y:
 * "keyword value" lines, profile blocks, macros, include.
 *
 * The file is the operator's policy, so the reader is strict: every error
 * in every file is reported as "file:line: reason" and then the whole
 * configuration is refused; nothing is guessed or repaired.  A bad reload
 * therefore keeps the old configuration.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define LIBBSD_OPENBSD_VIS
#include <vis.h>

#include "common.h"
#include "proto.h"
#include "conf.h"

enum toktype {
	T_EOF,
	T_NL,
	T_WORD,
	T_STRING,
	T_LBRACE,
	T_RBRACE,
	T_EQ,
	T_ERROR		/* already reported; the rest of the line is gone */
};

struct token {
	enum toktype	 type;
	int		 lineno;
	int		 expanded;	/* a macro contributed to it */
	size_t		 len;
	char		 str[SBX_CONF_MAXTOKEN + 1];
};

struct cfile {
	TAILQ_ENTRY(cfile)	 entry;
	struct cfile		*parent;	/* the file that included it */
	char			*name;
	char			*buf;
	size_t			 len;
	size_t			 pos;
	int			 lineno;
	int			 depth;
	dev_t			 dev;
	ino_t			 ino;
};
TAILQ_HEAD(cfiles, cfile);

struct where {
	const char	*file;		/* a cfile name; NULL: not given */
	int		 line;
};

struct macro {
	TAILQ_ENTRY(macro)	 entry;
	char			*name;
	char			*value;
	struct where		 at;
	int			 cmdline;	/* -D: the file cannot redefine */
};
TAILQ_HEAD(macros, macro);

/* Macros from sbx-monitor -D, applied to every parse (reloads too). */
static struct macros	 cmdline_macros = TAILQ_HEAD_INITIALIZER(cmdline_macros);

struct profdef {
	char		*name;
	struct where	 at;
};

#define KW_GLOBAL	0x01	/* outside profile blocks */
#define KW_PROFILE	0x02	/* inside profile blocks */
#define KW_ONCE		0x04	/* at most once (per profile for KW_PROFILE) */

struct parser;

struct keyword {
	const char	*name;
	int		 flags;
	int		(*fn)(struct parser *, const struct keyword *);
	size_t		 off;		/* field for the generic handlers */
	long long	 min;
	long long	 max;
};

#define KW_MAX		64

struct parser {
	struct sbx_conf		*conf;
	struct conf_profile	*prof;		/* block being read, or NULL */
	struct cfile		*file;		/* being read */
	struct cfiles		 files;		/* all read; names stay valid */
	struct macros		 macros;
	size_t			 nmacros;
	struct token		 tok;
	int			 have_tok;
	int			 line;		/* of the current keyword */
	char			*include;	/* to read after this line */
	struct where		 seen[KW_MAX];	/* KW_ONCE keywords */
	struct where		 rule;		/* first domain/cidr rule */
	const char		*rule_kw;
	struct profdef		 profdefs[SBX_CONF_MAXPROFILES];
	size_t			 nprofdefs;
	conf_errfn		 errfn;
	void			*arg;
	int			 errors;
	int			 giveup;
	char			 vbuf[2][4 * 64 + 8];	/* for show() */
	int			 vnext;
	char			 desc[4 * 64 + 16];	/* for tokdesc() */
};

static int	 kw_u32(struct parser *, const struct keyword *);
static int	 kw_size(struct parser *, const struct keyword *);
static int	 kw_cpus(struct parser *, const struct keyword *);
static int	 kw_path(struct parser *, const struct keyword *);
static int	 kw_duration(struct parser *, const struct keyword *);
static int	 kw_yesno(struct parser *, const struct keyword *);
static int	 kw_id(struct parser *, const struct keyword *);
static int	 kw_socket(struct parser *, const struct keyword *);
static int	 kw_socket_mode(struct parser *, const struct keyword *);
static int	 kw_allow(struct parser *, const struct keyword *);
static int	 kw_uid_range(struct parser *, const struct keyword *);
static int	 kw_include(struct parser *, const struct keyword *);
static int	 kw_profile(struct parser *, const struct keyword *);
static int	 kw_network(struct parser *, const struct keyword *);
static int	 kw_identity(struct parser *, const struct keyword *);
static int	 kw_mount(struct parser *, const struct keyword *);
static int	 kw_tmpfs_root(struct parser *, const struct keyword *);
static int	 kw_workdir(struct parser *, const struct keyword *);
static int	 kw_env(struct parser *, const struct keyword *);
static int	 kw_home(struct parser *, const struct keyword *);
static int	 kw_domain(struct parser *, const struct keyword *);
static int	 kw_cidr(struct parser *, const struct keyword *);

#define G(f)	offsetof(struct sbx_conf, f)
#define P(f)	offsetof(struct conf_profile, f)
#define SZ_K	(1LL << 10)
#define SZ_M	(1LL << 20)
#define SZ_T	(1LL << 40)
#define ID_MAX	4294967294LL	/* (uid_t)-1 means "no change" to setuid */

static const struct keyword keywords[] = {
	{ "socket", KW_GLOBAL | KW_ONCE, kw_socket, 0, 0, 0 },
	{ "socket-mode", KW_GLOBAL | KW_ONCE, kw_socket_mode, 0, 0, 0 },
	{ "socket-group", KW_GLOBAL | KW_ONCE, kw_id, G(socket_group), 0, 0 },
	{ "user", KW_GLOBAL | KW_ONCE, kw_id, G(user), 0, 0 },
	{ "sandbox-user", KW_GLOBAL | KW_ONCE, kw_id, G(sandbox_user), 0, 0 },
	{ "allow", KW_GLOBAL, kw_allow, 0, 0, 0 },
	{ "max-sandboxes", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(max_sandboxes), 1, 4096 },
	{ "max-sandboxes-per-peer", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(max_sandboxes_per_peer), 1, 4096 },
	{ "max-connections", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(max_connections), 1, 65536 },
	{ "max-connections-per-peer", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(max_connections_per_peer), 1, 65536 },
	{ "client-queue-max", KW_GLOBAL | KW_ONCE, kw_size,
	    G(client_queue_max), 64 * SZ_K, 64 * SZ_M },
	{ "client-requests-max", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(client_requests_max), 1, 4096 },
	{ "client-fds-max", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(client_fds_max), 1, 16384 },
	{ "peer-requests-max", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(peer_requests_max), 1, 65536 },
	{ "peer-fds-max", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(peer_fds_max), 1, 65536 },
	{ "log-file", KW_GLOBAL | KW_ONCE, kw_path, G(log_file), 0, 0 },
	{ "cgroup-root", KW_GLOBAL | KW_ONCE, kw_path, G(cgroup_root), 0, 0 },
	{ "bundle-providers", KW_GLOBAL | KW_ONCE, kw_yesno,
	    G(bundle_providers), 0, 0 },
	{ "cgroup-favordynmods", KW_GLOBAL | KW_ONCE, kw_yesno,
	    G(cgroup_favordynmods), 0, 0 },
	{ "provider-allowlist", KW_GLOBAL | KW_ONCE, kw_path,
	    G(provider_allowlist), 0, 0 },
	{ "gate-packs", KW_GLOBAL | KW_ONCE, kw_path, G(gate_packs), 0, 0 },
	{ "provider-runtime", KW_GLOBAL | KW_ONCE, kw_path,
	    G(provider_runtime), 0, 0 },
	{ "provider-pool", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(provider_pool), 0, 64 },
	{ "warm-idle", KW_GLOBAL | KW_ONCE, kw_u32, G(warm_idle), 1, 3600 },
	{ "provider-timeout", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(provider_timeout), 1, PR_TIMEOUT_MAX },
	{ "provider-max-output", KW_GLOBAL | KW_ONCE, kw_size,
	    G(provider_max_output), 2 * SZ_K, 64 * SZ_M },
	{ "provider-max-records", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(provider_max_records), 1, 10000000 },
	{ "providers-per-peer", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(providers_per_peer), 1, 4096 },
	{ "max-providers", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(max_providers), 1, 4096 },
	{ "provider-idle-timeout", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(provider_idle_timeout), 0, 31536000 },
	{ "changeset-dir", KW_GLOBAL | KW_ONCE, kw_path, G(changeset_dir),
	    0, 0 },
	{ "changeset-max-age", KW_GLOBAL | KW_ONCE, kw_duration,
	    G(changeset_max_age), CHANGESET_AGE_MIN, CHANGESET_AGE_MAX },
	{ "changeset-max-size", KW_GLOBAL | KW_ONCE, kw_size,
	    G(changeset_max_size), CHANGESET_SIZE_MIN, CHANGESET_SIZE_MAX },
	{ "changesets-per-peer", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(changesets_per_peer), 1, 4096 },
	{ "role-timeout", KW_GLOBAL | KW_ONCE, kw_u32,
	    G(role_timeout), ROLE_TIMEOUT_MIN, ROLE_TIMEOUT_MAX },
	{ "sandbox-uid-range", KW_GLOBAL | KW_ONCE, kw_uid_range, 0, 0, 0 },
	{ "caller-min-uid", KW_GLOBAL | KW_ONCE, kw_u32, G(caller_min_uid),
	    1, ID_MAX },
	{ "include", KW_GLOBAL, kw_include, 0, 0, 0 },
	{ "profile", KW_GLOBAL, kw_profile, 0, 0, 0 },

	{ "network", KW_PROFILE | KW_ONCE, kw_network, 0, 0, 0 },
	{ "identity", KW_PROFILE | KW_ONCE, kw_identity, 0, 0, 0 },
	/* kw_mount: min is the mount type */
	{ "ro", KW_PROFILE, kw_mount, 0, CONF_MOUNT_RO, 0 },
	{ "rw", KW_PROFILE, kw_mount, 0, CONF_MOUNT_RW, 0 },
	{ "tmpfs", KW_PROFILE, kw_mount, 0, CONF_MOUNT_TMPFS, 0 },
	{ "tmpfs-root", KW_PROFILE | KW_ONCE, kw_tmpfs_root, 0, SZ_M, SZ_T },
	{ "workdir", KW_PROFILE | KW_ONCE, kw_workdir, 0, 0, 0 },
	{ "env", KW_PROFILE, kw_env, 0, 0, 0 },
	{ "timeout", KW_PROFILE | KW_ONCE, kw_u32, P(timeout), 1, 604800 },
	{ "memory", KW_PROFILE | KW_ONCE, kw_size, P(memory), SZ_M, SZ_T },
	{ "pids", KW_PROFILE | KW_ONCE, kw_u32, P(pids), 1, 32768 },
	{ "nofile", KW_PROFILE | KW_ONCE, kw_u32, P(nofile), 16, 1048576 },
	{ "fsize", KW_PROFILE | KW_ONCE, kw_size, P(fsize), 0, SZ_T },
	{ "dev-shm", KW_PROFILE | KW_ONCE, kw_yesno, P(dev_shm), 0, 0 },
	{ "allow-domain", KW_PROFILE, kw_domain, P(allow_domains), 0, 0 },
	{ "deny-domain", KW_PROFILE, kw_domain, P(deny_domains), 0, 0 },
	{ "allow-cidr", KW_PROFILE, kw_cidr, 0, 0, 0 },
	{ "proxy-connections", KW_PROFILE | KW_ONCE, kw_u32,
	    P(proxy_conns), 1, PROXY_CONNS_MAX },
	{ "loopback", KW_PROFILE | KW_ONCE, kw_yesno, P(loopback), 0, 0 },
	{ "ptrace", KW_PROFILE | KW_ONCE, kw_yesno, P(ptrace), 0, 0 },
	{ "home", KW_PROFILE | KW_ONCE, kw_home, 0, 0, 0 },
	{ "cpu-time", KW_PROFILE | KW_ONCE, kw_u32, P(cpu_time), 1, 604800 },
	{ "warm", KW_PROFILE | KW_ONCE, kw_u32, P(warm), 0, 8 },
	/* kw_cpus: min and max in thousandths of a cpu */
	{ "cpus", KW_PROFILE | KW_ONCE, kw_cpus, P(cpus_milli), 10,
	    1024000 },
	{ "output", KW_PROFILE | KW_ONCE, kw_size, P(output), 1, SZ_T },
};

/* Limits of a tmpfs given with "tmpfs PATH size N", and its default. */
#define TMPFS_MIN	(4 * SZ_K)
#define TMPFS_MAX	SZ_T
#define TMPFS_DEFAULT	(64 * SZ_M)

_Static_assert(nitems(keywords) <= KW_MAX, "keyword table exceeds KW_MAX");

/* ---- errors ----------------------------------------------------------- */

static void SBX_PRINTF(4, 5)
perr_at(struct parser *p, const char *file, int line, const char *fmt, ...)
{
	char	 msg[1024], full[1400];
	va_list	 ap;

	if (p->giveup)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		snprintf(full, sizeof(full), "%s:%d: %s", file, line, msg);
	else
		snprintf(full, sizeof(full), "%s: %s", file, msg);
	p->errfn(p->arg, full);
	if (++p->errors >= SBX_CONF_MAXERRORS) {
		snprintf(full, sizeof(full), "%s: too many errors (%d), "
		    "giving up", file, p->errors);
		p->errfn(p->arg, full);
		p->giveup = 1;
	}
}

#define perr(p, line, ...)	\
	perr_at((p), (p)->file->name, (line), __VA_ARGS__)

/*
 * A value as it may appear in a message: at most 64 bytes of it, encoded
 * with vis(3) so that a hostile file cannot put terminal escapes or fake
 * lines into the log.  Two buffers: a message may show two values.
 */
static const char *
show(struct parser *p, const char *s)
{
	char	*buf = p->vbuf[p->vnext];
	size_t	 len = strnlen(s, 65);

	p->vnext = !p->vnext;
	if (len > 64) {
		strnvisx(buf, sizeof(p->vbuf[0]) - 4, s, 64,
		    VIS_CSTYLE | VIS_OCTAL | VIS_TAB | VIS_NL | VIS_DQ);
		strlcat(buf, "...", sizeof(p->vbuf[0]));
	} else
		strnvisx(buf, sizeof(p->vbuf[0]), s, len,
		    VIS_CSTYLE | VIS_OCTAL | VIS_TAB | VIS_NL | VIS_DQ);
	return buf;
}

/* ---- files ------------------------------------------------------------ */

/*
 * Read a whole configuration file.  It is the policy of every sandbox: if
 * another user can write it, that user controls what sandboxes may do.
 */
static int
file_load(struct cfile *f, const char **why)
{
	struct stat	 st;
	ssize_t		 n;
	size_t		 cap;
	int		 fd, saved;

	*why = NULL;
	/* O_NONBLOCK: a FIFO named by an include must not hang the reader. */
	if ((fd = open(f->name, O_RDONLY | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1)
		goto fail;
	if (!S_ISREG(st.st_mode))
		*why = "not a regular file";
	else if (st.st_size > SBX_CONF_MAXFILE)
		*why = "larger than 1 MiB";
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		*why = "writable by group or others";
	else if (st.st_uid != 0 && st.st_uid != geteuid())
		*why = "owned by a user other than root or the running "
		    "user";
	if (*why != NULL)
		goto fail;
	cap = (size_t)st.st_size + 1;
	f->buf = xmalloc(cap);
	f->len = 0;
	while (f->len < cap) {
		n = read(fd, f->buf + f->len, cap - f->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			goto fail;
		if (n == 0)
			break;
		f->len += n;
	}
	if (f->len == cap) {
		*why = "grew while being read";
		goto fail;
	}
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	close(fd);
	return 0;
 fail:
	saved = errno;
	free(f->buf);
	f->buf = NULL;
	close(fd);
	errno = saved;
	return -1;
}

static struct cfile *
file_new(struct parser *p, const char *name, struct cfile *parent)
{
	struct cfile	*f;

	f = xcalloc(1, sizeof(*f));
	f->name = xstrdup(name);
	f->parent = parent;
	f->depth = parent == NULL ? 0 : parent->depth + 1;
	f->lineno = 1;
	TAILQ_INSERT_TAIL(&p->files, f, entry);
	return f;
}

/* Read an included file; reports on behalf of the include line. */
static void
file_include(struct parser *p, const char *name, int line)
{
	struct cfile	*f, *up;
	const char	*why;

	f = file_new(p, name, p->file);
	if (file_load(f, &why) == -1) {
		if (why == NULL)
			why = strerror(errno);
		perr(p, line, "include \"%s\": %s", show(p, name), why);
		return;
	}
	for (up = p->file; up != NULL; up = up->parent) {
		if (up->dev == f->dev && up->ino == f->ino) {
			perr(p, line, "include \"%s\": include cycle, the "
			    "file is already being read", show(p, name));
			goto drop;
		}
	}
	if (f->depth > SBX_CONF_MAXDEPTH) {
		perr(p, line, "include \"%s\": nested more than %d levels "
		    "deep", show(p, name), SBX_CONF_MAXDEPTH);
		goto drop;
	}
	p->file = f;
	return;
 drop:
	free(f->buf);
	f->buf = NULL;
}

/* ---- lexer ------------------------------------------------------------ */

static int
lgetc(struct cfile *f)
{
	if (f->pos >= f->len)
		return EOF;
	return (unsigned char)f->buf[f->pos++];
}

static void
lungetc(struct cfile *f)
{
	f->pos--;
}

/* After a lexical error the rest of the line is not worth reading. */
static void
ldiscard(struct cfile *f)
{
	while (f->pos < f->len && f->buf[f->pos] != '\n')
		f->pos++;
}

static int
isword(int c)
{
	return c > 0x20 && c < 0x7f && strchr("\"'{}=#$\\", c) == NULL;
}

static void SBX_PRINTF(3, 4)
lerr(struct parser *p, struct token *t, const char *fmt, ...)
{
	char	 msg[512];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	perr(p, t->lineno, "%s", msg);
	ldiscard(p->file);
	t->type = T_ERROR;
}

static int
tappend(struct token *t, const char *s, size_t len)
{
	if (t->len + len > SBX_CONF_MAXTOKEN)
		return -1;
	memcpy(t->str + t->len, s, len);
	t->len += len;
	t->str[t->len] = '\0';
	return 0;
}

static struct macro *
macro_find(struct parser *p, const char *name)
{
	struct macro	*m;

	TAILQ_FOREACH(m, &p->macros, entry) {
		if (strcmp(m->name, name) == 0)
			return m;
	}
	return NULL;
}

/*
 * "$name" inside an unquoted word: the macro's value becomes part of the
 * word.  It is never re-read as syntax, so a macro cannot inject keywords,
 * braces or further statements.
 */
static int
lex_macro(struct parser *p, struct token *t)
{
	char			 name[SBX_CONF_NAMEMAX + 1];
	const struct macro	*m;
	size_t			 n = 0;
	int			 c;

	while ((c = lgetc(p->file)) != EOF && (isalnum(c) || c == '_')) {
		if (n == SBX_CONF_NAMEMAX) {
			lerr(p, t, "macro name after '$' is longer than %d "
			    "characters", SBX_CONF_NAMEMAX);
			return -1;
		}
		name[n++] = c;
	}
	if (c != EOF)
		lungetc(p->file);
	name[n] = '\0';
	if (n == 0) {
		lerr(p, t, "'$' is not followed by a macro name");
		return -1;
	}
	if ((m = macro_find(p, name)) == NULL) {
		lerr(p, t, "macro \"%s\" is not defined", name);
		return -1;
	}
	if (tappend(t, m->value, strlen(m->value)) == -1) {
		lerr(p, t, "value is longer than %d bytes after expanding "
		    "$%s", SBX_CONF_MAXTOKEN, name);
		return -1;
	}
	t->expanded = 1;
	return 0;
}

static void
lex_word(struct parser *p, struct token *t)
{
	char	 ch;
	int	 c;

	for (;;) {
		c = lgetc(p->file);
		if (c == '$') {
			if (lex_macro(p, t) == -1)
				return;
			continue;
		}
		if (c == EOF || !isword(c)) {
			if (c != EOF)
				lungetc(p->file);
			break;
		}
		ch = c;
		if (tappend(t, &ch, 1) == -1) {
			lerr(p, t, "value is longer than %d bytes",
			    SBX_CONF_MAXTOKEN);
			return;
		}
	}
	t->type = T_WORD;
}

/* "..." on one line; \" and \\ are the only escapes; no macros inside. */
static void
lex_quoted(struct parser *p, struct token *t)
{
	char	 ch;
	int	 c;

	for (;;) {
		c = lgetc(p->file);
		if (c == EOF || c == '\n') {
			if (c == '\n')
				lungetc(p->file);
			lerr(p, t, "unterminated quoted string");
			return;
		}
		if (c == '"')
			break;
		if (c == '\\') {
			c = lgetc(p->file);
			if (c != '"' && c != '\\') {
				if (c == '\n')
					lungetc(p->file);
				lerr(p, t, "invalid escape in quoted string "
				    "(only \\\" and \\\\)");
				return;
			}
		} else if (c < 0x20 || c == 0x7f) {
			lerr(p, t, "invalid character 0x%02x in quoted "
			    "string", c);
			return;
		}
		ch = c;
		if (tappend(t, &ch, 1) == -1) {
			lerr(p, t, "quoted string is longer than %d bytes",
			    SBX_CONF_MAXTOKEN);
			return;
		}
	}
	t->type = T_STRING;
}

static void
lex(struct parser *p, struct token *t)
{
	struct cfile	*f = p->file;
	int		 c;

	t->expanded = 0;
	t->len = 0;
	t->str[0] = '\0';
	do {
		c = lgetc(f);
	} while (c == ' ' || c == '\t');
	if (c == '#') {
		ldiscard(f);
		c = lgetc(f);
	}
	t->lineno = f->lineno;
	switch (c) {
	case EOF:
		t->type = T_EOF;
		return;
	case '\n':
		t->type = T_NL;
		f->lineno++;
		return;
	case '{':
		t->type = T_LBRACE;
		return;
	case '}':
		t->type = T_RBRACE;
		return;
	case '=':
		t->type = T_EQ;
		return;
	case '"':
		lex_quoted(p, t);
		return;
	}
	if (c == '$' || isword(c)) {
		lungetc(f);
		lex_word(p, t);
		return;
	}
	if (c > 0x20 && c < 0x7f)
		lerr(p, t, "invalid character '%c'", c);
	else
		lerr(p, t, "invalid character 0x%02x", c);
}

static struct token *
peek(struct parser *p)
{
	if (!p->have_tok) {
		lex(p, &p->tok);
		p->have_tok = 1;
	}
	return &p->tok;
}

static void
advance(struct parser *p)
{
	p->have_tok = 0;
}

static const char *
tokdesc(struct parser *p, const struct token *t)
{
	switch (t->type) {
	case T_EOF:
		return "end of file";
	case T_NL:
		return "end of line";
	case T_LBRACE:
		return "'{'";
	case T_RBRACE:
		return "'}'";
	case T_EQ:
		return "'='";
	case T_ERROR:
		return "an invalid token";
	case T_WORD:
	case T_STRING:
		break;
	}
	snprintf(p->desc, sizeof(p->desc), "\"%s\"", show(p, t->str));
	return p->desc;
}

/* ---- statement helpers ------------------------------------------------ */

/*
 * The next value of a statement (a word or a quoted string) into buf.
 * ctx names the keyword in messages, what the value.
 */
static int
value(struct parser *p, const char *ctx, const char *what, char *buf,
    size_t bufsz)
{
	struct token	*t = peek(p);

	switch (t->type) {
	case T_WORD:
	case T_STRING:
		if (strlcpy(buf, t->str, bufsz) >= bufsz) {
			perr(p, t->lineno, "%s: %s is too long", ctx, what);
			return -1;
		}
		advance(p);
		return 0;
	case T_ERROR:
		return -1;
	default:
		perr(p, t->lineno, "%s: missing %s", ctx, what);
		return -1;
	}
}

static void *
field(struct parser *p, const struct keyword *kw)
{
	if (kw->flags & KW_PROFILE)
		return (char *)p->prof + kw->off;
	return (char *)p->conf + kw->off;
}

static int
alldigits(const char *s)
{
	return s[0] != '\0' && strspn(s, "0123456789") == strlen(s);
}

static int
number(struct parser *p, const char *ctx, const char *v, long long min,
    long long max, long long *out)
{
	const char	*errstr;

	if (!alldigits(v)) {
		perr(p, p->line, "%s: \"%s\" is not a number", ctx,
		    show(p, v));
		return -1;
	}
	*out = strtonum(v, min, max, &errstr);
	if (errstr != NULL) {
		perr(p, p->line, "%s: \"%s\" is %s (%lld..%lld)", ctx,
		    show(p, v), errstr, min, max);
		return -1;
	}
	return 0;
}

static int
size(struct parser *p, const char *ctx, const char *v, uint64_t min,
    uint64_t max, uint64_t *out)
{
	char		 lo[32], hi[32];
	const char	*why;

	if (conf_parse_size(v, min, max, out, &why) == -1) {
		if (strncmp(why, "is too ", 7) != 0) {
			perr(p, p->line, "%s: \"%s\" %s", ctx, show(p, v), why);
			return -1;
		}
		conf_fmt_size(min, lo, sizeof(lo));
		conf_fmt_size(max, hi, sizeof(hi));
		perr(p, p->line, "%s: \"%s\" %s (%s..%s)", ctx, show(p, v),
		    why, lo, hi);
		return -1;
	}
	return 0;
}

/* ---- global keywords -------------------------------------------------- */

static int
kw_u32(struct parser *p, const struct keyword *kw)
{
	char		 v[SBX_CONF_MAXTOKEN + 1];
	long long	 n;

	if (value(p, kw->name, "number", v, sizeof(v)) == -1 ||
	    number(p, kw->name, v, kw->min, kw->max, &n) == -1)
		return -1;
	*(uint32_t *)field(p, kw) = (uint32_t)n;
	return 0;
}

static int
kw_size(struct parser *p, const struct keyword *kw)
{
	char		 v[SBX_CONF_MAXTOKEN + 1];

	if (value(p, kw->name, "size", v, sizeof(v)) == -1)
		return -1;
	return size(p, kw->name, v, kw->min, kw->max,
	    (uint64_t *)field(p, kw));
}

/* A duration: seconds, or a number with an s, m, h or d suffix. */
static int
kw_duration(struct parser *p, const struct keyword *kw)
{
	char		 v[SBX_CONF_MAXTOKEN + 1];
	char		 lo[32], hi[32];
	const char	*why;

	if (value(p, kw->name, "duration", v, sizeof(v)) == -1)
		return -1;
	if (conf_parse_duration(v, (uint32_t)kw->min, (uint32_t)kw->max,
	    (uint32_t *)field(p, kw), &why) == -1) {
		if (strncmp(why, "is too ", 7) != 0) {
			perr(p, p->line, "%s: \"%s\" %s", kw->name,
			    show(p, v), why);
			return -1;
		}
		conf_fmt_duration((uint32_t)kw->min, lo, sizeof(lo));
		conf_fmt_duration((uint32_t)kw->max, hi, sizeof(hi));
		perr(p, p->line, "%s: \"%s\" %s (%s..%s)", kw->name, show(p, v),
		    why, lo, hi);
		return -1;
	}
	return 0;
}

/*
 * cpus N[.NNN]: a CPU quota in cpus, kept in thousandths (0.5 is 500);
 * more than three decimals would be a precision the quota has not.
 */
int
conf_parse_cpus(const char *v, uint32_t *out)
{
	const char	*q = v;
	uint64_t	 n = 0;
	int		 dec = -1;

	if (*q == '\0')
		return -1;
	for (; *q != '\0'; q++) {
		if (*q == '.' && dec == -1 && q != v && q[1] != '\0') {
			dec = 0;
			continue;
		}
		if (*q < '0' || *q > '9' || dec == 3 || n > 100000000)
			return -1;
		n = n * 10 + (uint64_t)(*q - '0');
		if (dec != -1)
			dec++;
	}
	for (dec = dec == -1 ? 0 : dec; dec < 3; dec++)
		n *= 10;
	if (n > UINT32_MAX)
		return -1;
	*out = (uint32_t)n;
	return 0;
}

static int
kw_cpus(struct parser *p, const struct keyword *kw)
{
	char		 v[SBX_CONF_MAXTOKEN + 1];
	uint32_t	 n;

	if (value(p, kw->name, "number", v, sizeof(v)) == -1)
		return -1;
	if (conf_parse_cpus(v, &n) == -1) {
		perr(p, p->line, "%s: \"%s\" is not a number of cpus "
		    "(N or N.N, at most three decimals)", kw->name, show(p, v));
		return -1;
	}
	if (n < kw->min || n > kw->max) {
		perr(p, p->line, "%s: \"%s\" is outside 0.01..1024", kw->name,
		    show(p, v));
		return -1;
	}
	*(uint32_t *)field(p, kw) = n;
	return 0;
}

static int
kw_path(struct parser *p, const struct keyword *kw)
{
	char		 v[SBX_CONF_MAXTOKEN + 1];
	char		**dst = field(p, kw);
	const char	*why;

	if (value(p, kw->name, "path", v, sizeof(v)) == -1)
		return -1;
	if (conf_check_path(v, &why) == -1) {
		perr(p, p->line, "%s: \"%s\" %s", kw->name, show(p, v), why);
		return -1;
	}
	free(*dst);
	*dst = xstrdup(v);
	return 0;
}

/*
 * One word of a closed list: its index in words (n of them) into *dst.
 * what is the list as the error says it ("yes or no").
 */
static int
choice(struct parser *p, const struct keyword *kw, const char *what,
    const char *const *words, int n, int *dst)
{
	char	 v[SBX_CONF_MAXTOKEN + 1];
	int	 i;

	if (value(p, kw->name, what, v, sizeof(v)) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (strcmp(v, words[i]) == 0) {
			*dst = i;
			return 0;
		}
	perr(p, p->line, "%s: \"%s\" is not %s", kw->name, show(p, v), what);
	return -1;
}

static int
kw_yesno(struct parser *p, const struct keyword *kw)
{
	static const char *const words[] = { "no", "yes" };

	return choice(p, kw, "yes or no", words, nitems(words), field(p, kw));
}

/* A user or group by number or by name; names resolve at start-up. */
static int
parse_id(struct parser *p, const char *ctx, const char *v,
    struct conf_id *id)
{
	const char	*why;
	long long	 n;

	/* Names start with a letter or '_': anything else is meant as a
	 * number, and "-1" should hear that it is not one. */
	if (v[0] != '\0' && strchr("0123456789+-", v[0]) != NULL) {
		if (number(p, ctx, v, 0, ID_MAX, &n) == -1)
			return -1;
		free(id->name);
		id->name = NULL;
		id->id = (uint32_t)n;
	} else {
		if (conf_check_username(v, &why) == -1) {
			perr(p, p->line, "%s: name \"%s\" %s", ctx,
			    show(p, v), why);
			return -1;
		}
		free(id->name);
		id->name = xstrdup(v);
		id->id = 0;
	}
	id->set = 1;
	return 0;
}

static int
kw_id(struct parser *p, const struct keyword *kw)
{
	char	 v[SBX_CONF_MAXTOKEN + 1];

	if (value(p, kw->name, "name or number", v, sizeof(v)) == -1)
		return -1;
	return parse_id(p, kw->name, v, field(p, kw));
}

static int
kw_socket(struct parser *p, const struct keyword *kw)
{
	char		 v[SBX_CONF_MAXTOKEN + 1];
	const char	*why;

	if (value(p, kw->name, "path", v, sizeof(v)) == -1)
		return -1;
	if (conf_check_socketpath(v, &why) == -1) {
		perr(p, p->line, "%s: \"%s\" %s", kw->name, show(p, v), why);
		return -1;
	}
	free(p->conf->socket);
	p->conf->socket = xstrdup(v);
	return 0;
}

static int
kw_socket_mode(struct parser *p, const struct keyword *kw)
{
	char		 v[SBX_CONF_MAXTOKEN + 1];
	const char	*why;

	if (value(p, kw->name, "mode", v, sizeof(v)) == -1)
		return -1;
	if (conf_parse_mode(v, &p->conf->socket_mode, &why) == -1) {
		perr(p, p->line, "%s: \"%s\" %s", kw->name, show(p, v), why);
		return -1;
	}
	return 0;
}

static int
kw_allow(struct parser *p, const struct keyword *kw)
{
	char			 v[SBX_CONF_MAXTOKEN + 1];
	struct conf_id		 id = { 0, NULL, 0 };
	struct conf_allow	*a;
	enum conf_allow_type	 type;
	size_t			 n = 0;

	if (value(p, kw->name, "uid or gid", v, sizeof(v)) == -1)
		return -1;
	if (strcmp(v, "uid") == 0)
		type = CONF_ALLOW_UID;
	else if (strcmp(v, "gid") == 0)
		type = CONF_ALLOW_GID;
	else {
		perr(p, p->line, "%s: expected uid or gid, got \"%s\"",
		    kw->name, show(p, v));
		return -1;
	}
	if (value(p, kw->name, "name or number", v, sizeof(v)) == -1 ||
	    parse_id(p, kw->name, v, &id) == -1)
		return -1;
	TAILQ_FOREACH(a, &p->conf->allows, entry) {
		n++;
		if (a->type != type || (a->who.name == NULL) !=
		    (id.name == NULL))
			continue;
		if (id.name != NULL ? strcmp(a->who.name, id.name) == 0 :
		    a->who.id == id.id) {
			perr(p, p->line, "%s: %s \"%s\" is already allowed",
			    kw->name, type == CONF_ALLOW_UID ? "uid" : "gid",
			    show(p, v));
			free(id.name);
			return -1;
		}
	}
	if (n >= SBX_CONF_MAXLIST) {
		perr(p, p->line, "%s: too many allow rules (max %d)",
		    kw->name, SBX_CONF_MAXLIST);
		free(id.name);
		return -1;
	}
	a = xcalloc(1, sizeof(*a));
	a->type = type;
	a->who = id;
	TAILQ_INSERT_TAIL(&p->conf->allows, a, entry);
	return 0;
}

static int
kw_uid_range(struct parser *p, const struct keyword *kw)
{
	char		 v[SBX_CONF_MAXTOKEN + 1];
	long long	 start, count;

	if (value(p, kw->name, "first id", v, sizeof(v)) == -1 ||
	    number(p, kw->name, v, 1, ID_MAX, &start) == -1)
		return -1;
	if (value(p, kw->name, "count", v, sizeof(v)) == -1 ||
	    number(p, kw->name, v, 1, ID_MAX, &count) == -1)
		return -1;
	if (start + count - 1 > ID_MAX) {
		perr(p, p->line, "%s: %lld ids from %lld run past the last id "
		    "%lld", kw->name, count, start, ID_MAX);
		return -1;
	}
	p->conf->uid_range_set = 1;
	p->conf->uid_range_start = (uint32_t)start;
	p->conf->uid_range_count = (uint32_t)count;
	return 0;
}

static int
kw_include(struct parser *p, const struct keyword *kw)
{
	char		 v[SBX_CONF_MAXTOKEN + 1];
	const char	*slash, *c;

	if (value(p, kw->name, "file name", v, sizeof(v)) == -1)
		return -1;
	if (v[0] == '\0') {
		perr(p, p->line, "%s: empty file name", kw->name);
		return -1;
	}
	/* The name starts every message about that file: keep bytes that
	 * a terminal could take for control sequences out of the log. */
	for (c = v; *c != '\0'; c++) {
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e) {
			perr(p, p->line, "%s: \"%s\" is not printable ASCII",
			    kw->name, show(p, v));
			return -1;
		}
	}
	free(p->include);
	/* Relative names are relative to the including file's directory,
	 * not to whatever directory the monitor was started in. */
	if (v[0] != '/' && (slash = strrchr(p->file->name, '/')) != NULL)
		xasprintf(&p->include, "%.*s/%s",
		    (int)(slash - p->file->name), p->file->name, v);
	else
		p->include = xstrdup(v);
	return 0;
}

/* ---- profile keywords ------------------------------------------------- */

static int
kw_network(struct parser *p, const struct keyword *kw)
{
	static const char *const words[] = { "none", "proxy" };
	static const int	 nets[] = { CONF_NET_NONE, CONF_NET_PROXY };
	int			 i;

	if (choice(p, kw, "none or proxy", words, nitems(words), &i) == -1)
		return -1;
	p->prof->network = nets[i];
	return 0;
}

static int
kw_identity(struct parser *p, const struct keyword *kw)
{
	static const char *const words[] = { "caller", "service", "range" };
	static const int	 ids[] = { CONF_IDENTITY_CALLER,
	    CONF_IDENTITY_SERVICE, CONF_IDENTITY_RANGE };
	int			 i;

	if (choice(p, kw, "caller, service or range", words, nitems(words),
	    &i) == -1)
		return -1;
	p->prof->identity = ids[i];
	p->prof->identity_set = 1;
	return 0;
}

/* An optional trailing "noexec" (rw, tmpfs, workdir). */
static int
opt_noexec(struct parser *p)
{
	struct token	*t = peek(p);

	if (t->type == T_WORD && !t->expanded &&
	    strcmp(t->str, "noexec") == 0) {
		advance(p);
		return 1;
	}
	return 0;
}

static int
mountpath(struct parser *p, const char *ctx, char *v, size_t vsz)
{
	const char	*why;

	if (value(p, ctx, "path", v, vsz) == -1)
		return -1;
	if (conf_check_mountpath(v, &why) == -1) {
		perr(p, p->line, "%s: \"%s\" %s", ctx, show(p, v), why);
		return -1;
	}
	return 0;
}

static int
kw_mount(struct parser *p, const struct keyword *kw)
{
	char			 v[SBX_CONF_MAXTOKEN + 1];
	char			 sv[SBX_CONF_MAXTOKEN + 1];
	struct conf_mount	*m;
	struct token		*t;
	uint64_t		 sz = TMPFS_DEFAULT;
	size_t			 n = 0;

	if (mountpath(p, kw->name, v, sizeof(v)) == -1)
		return -1;
	TAILQ_FOREACH(m, &p->prof->mounts, entry) {
		n++;
		if (strcmp(m->path, v) == 0) {
			perr(p, p->line, "%s: \"%s\" is already a mount point "
			    "in this profile", kw->name, show(p, v));
			return -1;
		}
	}
	if (n >= SBX_CONF_MAXLIST) {
		perr(p, p->line, "%s: too many mounts (max %d)", kw->name,
		    SBX_CONF_MAXLIST);
		return -1;
	}
	if (kw->min == CONF_MOUNT_TMPFS) {
		t = peek(p);
		if (t->type == T_WORD && !t->expanded &&
		    strcmp(t->str, "size") == 0) {
			advance(p);
			if (value(p, kw->name, "size", sv, sizeof(sv)) == -1 ||
			    size(p, kw->name, sv, TMPFS_MIN, TMPFS_MAX,
			    &sz) == -1)
				return -1;
		}
	}
	m = xcalloc(1, sizeof(*m));
	m->type = (enum conf_mount_type)kw->min;
	m->path = xstrdup(v);
	m->size = kw->min == CONF_MOUNT_TMPFS ? sz : 0;
	/* "rw PATH per-caller": each caller gets PATH/<its uid> instead of
	 * one directory every caller can write (a shared cache is one
	 * caller's way to poison another's builds). */
	t = peek(p);
	if (kw->min == CONF_MOUNT_RW && t->type == T_WORD && !t->expanded &&
	    strcmp(t->str, "per-caller") == 0) {
		advance(p);
		m->per_caller = 1;
	}
	/* "ro PATH optional": a file a tool reads when the host has it
	 * (/etc/gitconfig); left out of each sandbox while it is missing,
	 * instead of failing start-up. */
	if (kw->min == CONF_MOUNT_RO && t->type == T_WORD && !t->expanded &&
	    strcmp(t->str, "optional") == 0) {
		advance(p);
		m->optional = 1;
	}
	/* Read-only binds are executable (programs live there); noexec is
	 * for what a payload can write. */
	if (kw->min != CONF_MOUNT_RO)
		m->noexec = opt_noexec(p);
	TAILQ_INSERT_TAIL(&p->prof->mounts, m, entry);
	return 0;
}

static int
kw_tmpfs_root(struct parser *p, const struct keyword *kw)
{
	char	 v[SBX_CONF_MAXTOKEN + 1];

	if (value(p, kw->name, "\"size\"", v, sizeof(v)) == -1)
		return -1;
	if (strcmp(v, "size") != 0) {
		perr(p, p->line, "%s: expected \"size\", got \"%s\"",
		    kw->name, show(p, v));
		return -1;
	}
	if (value(p, kw->name, "size", v, sizeof(v)) == -1)
		return -1;
	return size(p, kw->name, v, kw->min, kw->max, &p->prof->tmpfs_root);
}

/*
 * "workdir PATH" or "workdir same": the directory at its own host path,
 * which the monitor checks for each run (runspec.c), since only then is
 * the path known.
 */
static int
kw_workdir(struct parser *p, const struct keyword *kw)
{
	char		 v[SBX_CONF_MAXTOKEN + 1];
	struct token	*t = peek(p);

	if (t->type == T_WORD && !t->expanded && strcmp(t->str, "same") == 0) {
		advance(p);
		free(p->prof->workdir);
		p->prof->workdir = NULL;
		p->prof->workdir_same = 1;
		p->prof->workdir_noexec = opt_noexec(p);
		return 0;
	}
	if (mountpath(p, kw->name, v, sizeof(v)) == -1)
		return -1;
	free(p->prof->workdir);
	p->prof->workdir = xstrdup(v);
	p->prof->workdir_same = 0;
	p->prof->workdir_noexec = opt_noexec(p);
	return 0;
}

/* "home PATH": HOME in the payload's environment and the user database;
 * the profile provides the directory itself (a tmpfs or a bind). */
static int
kw_home(struct parser *p, const struct keyword *kw)
{
	char	 v[SBX_CONF_MAXTOKEN + 1];

	if (mountpath(p, kw->name, v, sizeof(v)) == -1)
		return -1;
	free(p->prof->home);
	p->prof->home = xstrdup(v);
	return 0;
}

static int
kw_env(struct parser *p, const struct keyword *kw)
{
	char		 v[SBX_CONF_MAXTOKEN + 1];
	struct conf_env	*e;
	struct token	*t;
	const char	*why;
	size_t		 n;
	int		 count = 0;

	for (;;) {
		t = peek(p);
		if (count > 0 && t->type != T_WORD && t->type != T_STRING)
			break;
		if (value(p, kw->name, "variable name", v, sizeof(v)) == -1)
			return -1;
		count++;
		if (conf_check_envname(v, &why) == -1) {
			perr(p, p->line, "%s: \"%s\" %s", kw->name,
			    show(p, v), why);
			return -1;
		}
		n = 0;
		TAILQ_FOREACH(e, &p->prof->env, entry) {
			n++;
			if (strcmp(e->name, v) == 0) {
				perr(p, p->line, "%s: \"%s\" is already "
				    "listed", kw->name, show(p, v));
				return -1;
			}
		}
		if (n >= SBX_CONF_MAXLIST) {
			perr(p, p->line, "%s: too many names (max %d)",
			    kw->name, SBX_CONF_MAXLIST);
			return -1;
		}
		e = xcalloc(1, sizeof(*e));
		e->name = xstrdup(v);
		TAILQ_INSERT_TAIL(&p->prof->env, e, entry);
	}
	return 0;
}

static void
rule_seen(struct parser *p, const struct keyword *kw)
{
	if (p->rule.file == NULL) {
		p->rule.file = p->file->name;
		p->rule.line = p->line;
		p->rule_kw = kw->name;
	}
}

static int
kw_domain(struct parser *p, const struct keyword *kw)
{
	char			 v[SBX_CONF_MAXTOKEN + 1];
	struct conf_domains	*list = field(p, kw);
	struct conf_domain	 d, *e;
	const char		*why;
	size_t			 n = 0;

	rule_seen(p, kw);
	if (value(p, kw->name, "domain", v, sizeof(v)) == -1)
		return -1;
	if (conf_parse_domain(v, &d, &why) == -1) {
		perr(p, p->line, "%s: \"%s\" %s", kw->name, show(p, v), why);
		return -1;
	}
	TAILQ_FOREACH(e, list, entry) {
		n++;
		if (e->wildcard == d.wildcard && e->port == d.port &&
		    strcmp(e->host, d.host) == 0) {
			perr(p, p->line, "%s: \"%s\" is already listed",
			    kw->name, show(p, v));
			return -1;
		}
	}
	/* sbx-proxy takes at most PROXY_RULES_MAX of each kind. */
	if (n >= PROXY_RULES_MAX) {
		perr(p, p->line, "%s: too many rules (max %d per profile, "
		    "what sbx-proxy holds)", kw->name, PROXY_RULES_MAX);
		return -1;
	}
	e = xmalloc(sizeof(*e));
	*e = d;
	TAILQ_INSERT_TAIL(list, e, entry);
	return 0;
}

static int
kw_cidr(struct parser *p, const struct keyword *kw)
{
	char			 v[SBX_CONF_MAXTOKEN + 1];
	struct conf_cidr	 c, *e;
	const char		*why;
	size_t			 n = 0;

	rule_seen(p, kw);
	if (value(p, kw->name, "address/prefix", v, sizeof(v)) == -1)
		return -1;
	if (conf_parse_cidr(v, &c, &why) == -1) {
		perr(p, p->line, "%s: \"%s\" %s", kw->name, show(p, v), why);
		return -1;
	}
	TAILQ_FOREACH(e, &p->prof->allow_cidrs, entry) {
		n++;
		if (e->af == c.af && e->prefixlen == c.prefixlen &&
		    memcmp(&e->addr, &c.addr, sizeof(c.addr)) == 0) {
			perr(p, p->line, "%s: \"%s\" is already listed",
			    kw->name, show(p, v));
			return -1;
		}
	}
	/* sbx-proxy takes at most PROXY_RULES_MAX of each kind. */
	if (n >= PROXY_RULES_MAX) {
		perr(p, p->line, "%s: too many rules (max %d per profile, "
		    "what sbx-proxy holds)", kw->name, PROXY_RULES_MAX);
		return -1;
	}
	e = xmalloc(sizeof(*e));
	*e = c;
	TAILQ_INSERT_TAIL(&p->prof->allow_cidrs, e, entry);
	return 0;
}

/* ---- statements and blocks -------------------------------------------- */

static const struct keyword *
kw_lookup(const char *word)
{
	size_t	 i;

	for (i = 0; i < nitems(keywords); i++) {
		if (strcmp(keywords[i].name, word) == 0)
			return &keywords[i];
	}
	return NULL;
}

static int
statement_end(struct parser *p, const char *ctx)
{
	struct token	*t = peek(p);

	switch (t->type) {
	case T_NL:
		advance(p);
		return 0;
	case T_EOF:
		return 0;
	case T_RBRACE:
		if (p->prof != NULL)
			return 0;
		break;
	case T_ERROR:
		return -1;
	default:
		break;
	}
	perr(p, t->lineno, "%s: unexpected %s after the value", ctx,
	    tokdesc(p, t));
	return -1;
}

static void
skip_line(struct parser *p)
{
	struct token	*t;

	for (;;) {
		t = peek(p);
		if (t->type == T_EOF)
			return;
		if (t->type == T_RBRACE && p->prof != NULL)
			return;
		advance(p);
		if (t->type == T_NL)
			return;
	}
}

static int
macro_define(struct parser *p, const char *ctx, const char *name)
{
	char		 v[SBX_CONF_MAXTOKEN + 1];
	struct macro	*m;
	const char	*why;

	if (value(p, ctx, "value", v, sizeof(v)) == -1)
		return -1;
	if (p->prof != NULL) {
		perr(p, p->line, "%s: macros are defined outside profile "
		    "blocks", ctx);
		return -1;
	}
	if (conf_check_macroname(name, &why) == -1) {
		perr(p, p->line, "%s: name %s", ctx, why);
		return -1;
	}
	if (kw_lookup(name) != NULL) {
		perr(p, p->line, "%s: name is a keyword", ctx);
		return -1;
	}
	if ((m = macro_find(p, name)) != NULL) {
		/* As in the OpenBSD daemons, -D name=value wins over the
		 * file: the file's own definition is the default. */
		if (m->cmdline)
			return 0;
		perr(p, p->line, "%s: already defined at %s:%d", ctx,
		    m->at.file, m->at.line);
		return -1;
	}
	if (p->nmacros >= SBX_CONF_MAXMACROS) {
		perr(p, p->line, "%s: too many macros (max %d)", ctx,
		    SBX_CONF_MAXMACROS);
		return -1;
	}
	m = xcalloc(1, sizeof(*m));
	m->name = xstrdup(name);
	m->value = xstrdup(v);
	m->at.file = p->file->name;
	m->at.line = p->line;
	TAILQ_INSERT_TAIL(&p->macros, m, entry);
	p->nmacros++;
	return 0;
}

static int
keyword(struct parser *p, const struct keyword *kw)
{
	struct where	*w = &p->seen[kw - keywords];

	if (p->prof != NULL && !(kw->flags & KW_PROFILE)) {
		perr(p, p->line, "%s: not allowed inside a profile block",
		    kw->name);
		return -1;
	}
	if (p->prof == NULL && !(kw->flags & KW_GLOBAL)) {
		perr(p, p->line, "%s: allowed only inside a profile block",
		    kw->name);
		return -1;
	}
	if (kw->flags & KW_ONCE) {
		if (w->file != NULL) {
			perr(p, p->line, "%s: duplicate keyword (first given "
			    "at %s:%d)", kw->name, w->file, w->line);
			return -1;
		}
		w->file = p->file->name;
		w->line = p->line;
	}
	return kw->fn(p, kw);
}

static void
statement(struct parser *p)
{
	char			 word[SBX_CONF_MAXTOKEN + 1];
	char			 ctx[sizeof(p->vbuf[0]) + 16];
	const struct keyword	*kw = NULL;
	struct token		*t = peek(p);
	int			 rv;

	p->line = t->lineno;
	if (t->type == T_ERROR) {
		rv = -1;
	} else if (t->type != T_WORD || t->expanded) {
		perr(p, t->lineno, "expected a keyword, got %s",
		    tokdesc(p, t));
		rv = -1;
	} else {
		strlcpy(word, t->str, sizeof(word));
		advance(p);
		if (peek(p)->type == T_EQ) {
			advance(p);
			snprintf(ctx, sizeof(ctx), "macro \"%s\"",
			    show(p, word));
			rv = macro_define(p, ctx, word);
		} else if ((kw = kw_lookup(word)) == NULL) {
			perr(p, p->line, "unknown keyword \"%s\"",
			    show(p, word));
			rv = -1;
		} else
			rv = keyword(p, kw);
		if (rv == 0)
			rv = statement_end(p, kw != NULL ? kw->name : ctx);
	}
	if (rv == -1) {
		free(p->include);
		p->include = NULL;
		skip_line(p);
	}
}

/* Statements until '}' (in a block) or the end of the file. */
static void
statements(struct parser *p)
{
	struct token	*t;

	while (!p->giveup) {
		t = peek(p);
		if (t->type == T_EOF)
			return;
		if (t->type == T_NL) {
			advance(p);
			continue;
		}
		if (t->type == T_RBRACE) {
			if (p->prof != NULL)
				return;
			perr(p, t->lineno, "unexpected '}' outside a profile "
			    "block");
			advance(p);
			continue;
		}
		statement(p);
		if (p->include != NULL) {
			/* The include line is complete: read the file now.
			 * A pending EOF token belongs to the including file
			 * and is lexed again when it resumes. */
			if (p->have_tok && p->tok.type == T_EOF)
				advance(p);
			file_include(p, p->include, p->line);
			free(p->include);
			p->include = NULL;
		}
	}
}

static const struct profdef *
profdef_find(struct parser *p, const char *name)
{
	size_t	 i;

	for (i = 0; i < p->nprofdefs; i++) {
		if (strcmp(p->profdefs[i].name, name) == 0)
			return &p->profdefs[i];
	}
	return NULL;
}

/* Rules about a whole profile, once its block is read. */
static void
profile_check(struct parser *p, struct conf_profile *prof, int line)
{
	const struct keyword	*wkw = kw_lookup("workdir");
	const struct where	*w = &p->seen[wkw - keywords];
	const struct conf_mount	*m;

	if (prof->network == CONF_NET_NONE && p->rule.file != NULL)
		perr_at(p, p->rule.file, p->rule.line, "%s: profile \"%s\" "
		    "has network none; domain and address rules need network "
		    "proxy", p->rule_kw, show(p, prof->name));
	TAILQ_FOREACH(m, &prof->mounts, entry) {
		if (prof->workdir == NULL || strcmp(m->path, prof->workdir) != 0)
			continue;
		if (w->file != NULL)
			perr_at(p, w->file, w->line, "workdir: \"%s\" is also "
			    "a mount point in profile \"%s\"",
			    show(p, prof->workdir), show(p, prof->name));
		else
			perr(p, line, "profile \"%s\": the default workdir "
			    "\"%s\" is also a mount point; set workdir",
			    show(p, prof->name), show(p, prof->workdir));
	}
}

static int
kw_profile(struct parser *p, const struct keyword *kw)
{
	char			 name[SBX_CONF_MAXTOKEN + 1];
	struct conf_profile	*prof;
	const struct profdef	*def;
	struct token		*t;
	const char		*why;
	size_t			 i;
	int			 line = p->line, ok = 0;

	if (value(p, kw->name, "name", name, sizeof(name)) == -1)
		return -1;
	if (conf_check_name(name, &why) == -1)
		perr(p, line, "profile \"%s\": name %s", show(p, name), why);
	else if ((def = profdef_find(p, name)) != NULL)
		perr(p, line, "profile \"%s\": already defined at %s:%d",
		    show(p, name), def->at.file, def->at.line);
	else if (p->nprofdefs >= SBX_CONF_MAXPROFILES)
		perr(p, line, "profile \"%s\": too many profiles (max %d)",
		    show(p, name), SBX_CONF_MAXPROFILES);
	else
		ok = 1;
	while ((t = peek(p))->type == T_NL)
		advance(p);
	if (t->type != T_LBRACE) {
		if (t->type != T_ERROR)
			perr(p, t->lineno, "profile \"%s\": expected '{', got "
			    "%s", show(p, name), tokdesc(p, t));
		return -1;
	}
	advance(p);

	prof = conf_profile_new(name);
	p->prof = prof;
	for (i = 0; i < nitems(keywords); i++) {
		if (keywords[i].flags & KW_PROFILE)
			memset(&p->seen[i], 0, sizeof(p->seen[i]));
	}
	memset(&p->rule, 0, sizeof(p->rule));
	statements(p);
	p->prof = NULL;
	if (peek(p)->type != T_RBRACE) {
		if (!p->giveup)
			perr(p, line, "profile \"%s\": block is not closed "
			    "(missing '}')", show(p, name));
		conf_profile_free(prof);
		return -1;
	}
	advance(p);

	/* A profile that names no mounts gets the built-in ones: without
	 * /usr and the libraries nothing could run in it. */
	if (TAILQ_EMPTY(&prof->mounts))
		conf_profile_default_mounts(prof);
	p->prof = prof;
	profile_check(p, prof, line);
	p->prof = NULL;
	if (!ok) {
		conf_profile_free(prof);
		return 0;
	}
	p->profdefs[p->nprofdefs].name = xstrdup(name);
	p->profdefs[p->nprofdefs].at.file = p->file->name;
	p->profdefs[p->nprofdefs].at.line = line;
	p->nprofdefs++;
	TAILQ_INSERT_TAIL(&p->conf->profiles, prof, entry);
	p->conf->nprofiles++;
	return 0;
}

/* ---- whole-file rules ------------------------------------------------- */

static const struct where *
seen(struct parser *p, const char *name)
{
	return &p->seen[kw_lookup(name) - keywords];
}

/* Report at the first keyword of the list that was given in the file. */
static void SBX_PRINTF(4, 5)
perr_kw(struct parser *p, const char *kw1, const char *kw2,
    const char *fmt, ...)
{
	const struct where	*w = seen(p, kw1);
	char			 msg[1024];
	va_list			 ap;

	if (w->file == NULL && kw2 != NULL)
		w = seen(p, kw2);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (w->file != NULL)
		perr_at(p, w->file, w->line, "%s", msg);
	else
		perr_at(p, p->file->name, 0, "%s", msg);
}

/* Numeric ids now; conf_resolve() checks names once they have ids. */
static void
uid_range_check(struct parser *p, const char *what, const struct conf_id *id)
{
	struct sbx_conf	*conf = p->conf;

	if (id->set && id->name == NULL && conf_uid_range_has(conf, id->id))
		perr_kw(p, "sandbox-uid-range", NULL, "sandbox-uid-range: "
		    "%u-%llu contains %s %u: sandboxed processes would run "
		    "as it", conf->uid_range_start,
		    (unsigned long long)conf->uid_range_start +
		    conf->uid_range_count - 1, what, id->id);
}

/* A user as the file gave it: "name" (quoted, escaped) or a number. */
static const char *
id_text(struct parser *p, const struct conf_id *id, char *buf, size_t len)
{
	if (id->name != NULL)
		snprintf(buf, len, "\"%s\"", show(p, id->name));
	else
		snprintf(buf, len, "%u", id->id);
	return buf;
}

static void
conf_check(struct parser *p)
{
	char				 sbuf[4 * 64 + 16], ubuf[4 * 64 + 16];
	struct sbx_conf			*conf = p->conf;
	const struct conf_allow		*a;
	const struct conf_profile	*prof;
	const struct conf_mount		*m;
	const struct profdef		*def;
	const char			*kw;

	/* An unset per-peer limit follows a lower global one. */
	if (seen(p, "max-sandboxes-per-peer")->file == NULL &&
	    conf->max_sandboxes_per_peer > conf->max_sandboxes)
		conf->max_sandboxes_per_peer = conf->max_sandboxes;
	if (seen(p, "max-connections-per-peer")->file == NULL &&
	    conf->max_connections_per_peer > conf->max_connections)
		conf->max_connections_per_peer = conf->max_connections;
	if (seen(p, "providers-per-peer")->file == NULL &&
	    conf->providers_per_peer > conf->max_providers)
		conf->providers_per_peer = conf->max_providers;
	if (conf->providers_per_peer > conf->max_providers)
		perr_kw(p, "providers-per-peer", "max-providers",
		    "providers-per-peer: %u exceeds max-providers %u",
		    conf->providers_per_peer, conf->max_providers);
	if (conf->max_sandboxes_per_peer > conf->max_sandboxes)
		perr_kw(p, "max-sandboxes-per-peer", "max-sandboxes",
		    "max-sandboxes-per-peer: %u exceeds max-sandboxes %u",
		    conf->max_sandboxes_per_peer, conf->max_sandboxes);
	if (conf->max_connections_per_peer > conf->max_connections)
		perr_kw(p, "max-connections-per-peer", "max-connections",
		    "max-connections-per-peer: %u exceeds max-connections %u",
		    conf->max_connections_per_peer, conf->max_connections);
	/* A peer's totals cover at least one connection's caps; an unset
	 * total follows a raised per-connection cap. */
	if (seen(p, "peer-requests-max")->file == NULL &&
	    conf->peer_requests_max < conf->client_requests_max)
		conf->peer_requests_max = conf->client_requests_max;
	if (seen(p, "peer-fds-max")->file == NULL &&
	    conf->peer_fds_max < conf->client_fds_max)
		conf->peer_fds_max = conf->client_fds_max;
	if (conf->client_requests_max > conf->peer_requests_max)
		perr_kw(p, "client-requests-max", "peer-requests-max",
		    "client-requests-max: %u exceeds peer-requests-max %u",
		    conf->client_requests_max, conf->peer_requests_max);
	if (conf->client_fds_max > conf->peer_fds_max)
		perr_kw(p, "client-fds-max", "peer-fds-max",
		    "client-fds-max: %u exceeds peer-fds-max %u",
		    conf->client_fds_max, conf->peer_fds_max);
	if (conf->uid_range_set &&
	    conf->uid_range_count < conf->max_sandboxes)
		perr_kw(p, "sandbox-uid-range", NULL, "sandbox-uid-range: "
		    "%u ids cannot give each of max-sandboxes %u sandboxes "
		    "its own id", conf->uid_range_count, conf->max_sandboxes);
	uid_range_check(p, "the user", &conf->user);
	uid_range_check(p, "the sandbox-user", &conf->sandbox_user);
	/* identity service must not be the user that owns the socket, the
	 * roles and every sandbox's namespace (issue 20). */
	if ((conf->user.name != NULL && conf->sandbox_user.name != NULL &&
	    strcmp(conf->user.name, conf->sandbox_user.name) == 0) ||
	    (conf->user.name == NULL && conf->sandbox_user.name == NULL &&
	    conf->user.id == conf->sandbox_user.id))
		perr_kw(p, "sandbox-user", "user", "sandbox-user %s is the "
		    "service user (user %s): sandboxes would run as the user "
		    "that owns the socket, the roles and their namespaces; "
		    "name a user of their own",
		    id_text(p, &conf->sandbox_user, sbuf, sizeof(sbuf)),
		    id_text(p, &conf->user, ubuf, sizeof(ubuf)));
	if (conf->sandbox_user.name == NULL && conf->sandbox_user.id == 0)
		perr_kw(p, "sandbox-user", NULL, "sandbox-user 0: sandboxes "
		    "never run as host root");
	uid_range_check(p, "the socket-group", &conf->socket_group);
	TAILQ_FOREACH(a, &conf->allows, entry)
		uid_range_check(p, a->type == CONF_ALLOW_UID ? "allowed uid" :
		    "allowed gid", &a->who);

	TAILQ_FOREACH(prof, &conf->profiles, entry) {
		def = profdef_find(p, prof->name);
		if (prof->identity == CONF_IDENTITY_RANGE &&
		    !conf->uid_range_set && def != NULL)
			perr_at(p, def->at.file, def->at.line, "profile \"%s\": "
			    "identity range needs a sandbox-uid-range",
			    show(p, prof->name));
		TAILQ_FOREACH(m, &prof->mounts, entry) {
			if ((kw = conf_exposes(conf, m)) == NULL)
				continue;
			if (def != NULL)
				perr_at(p, def->at.file, def->at.line,
				    "profile \"%s\": %s \"%s\" exposes the %s "
				    "file to its sandboxes",
				    show(p, prof->name),
				    m->type == CONF_MOUNT_RO ? "ro" : "rw",
				    show(p, m->path), kw);
			else
				perr_kw(p, kw, NULL, "%s: the built-in "
				    "profile \"%s\" binds \"%s\", which "
				    "would expose it to sandboxes", kw,
				    prof->name, show(p, m->path));
		}
	}
}

/* ---- entry points ----------------------------------------------------- */

static void
errfn_log(void *arg, const char *msg)
{
	(void)arg;
	log_warnx("%s", msg);
}

struct sbx_conf *
conf_parse(const char *path)
{
	return conf_parse_cb(path, errfn_log, NULL);
}

struct sbx_conf *
conf_parse_cb(const char *path, conf_errfn errfn, void *arg)
{
	struct parser		*p;
	struct sbx_conf		*conf;
	struct conf_profile	*prof;
	struct cfile		*f;
	struct macro		*m;
	const char		*why;
	size_t			 i;

	p = xcalloc(1, sizeof(*p));
	p->errfn = errfn;
	p->arg = arg;
	TAILQ_INIT(&p->files);
	TAILQ_INIT(&p->macros);
	TAILQ_FOREACH(m, &cmdline_macros, entry) {
		struct macro	*c = xcalloc(1, sizeof(*c));

		c->name = xstrdup(m->name);
		c->value = xstrdup(m->value);
		c->at.file = "-D";
		c->cmdline = 1;
		TAILQ_INSERT_TAIL(&p->macros, c, entry);
		p->nmacros++;
	}
	p->conf = conf = conf_new();

	p->file = file_new(p, path, NULL);
	if (file_load(p->file, &why) == -1) {
		perr(p, 0, "%s", why != NULL ? why : strerror(errno));
	} else {
		for (;;) {
			statements(p);
			if (p->giveup || p->file->parent == NULL)
				break;
			/* End of an included file: resume the includer. */
			advance(p);
			free(p->file->buf);
			p->file->buf = NULL;
			p->file = p->file->parent;
		}
		if (conf_profile(conf, "default") == NULL) {
			prof = conf_profile_new("default");
			conf_profile_default_mounts(prof);
			conf_profile_default_env(prof);
			TAILQ_INSERT_HEAD(&conf->profiles, prof, entry);
			conf->nprofiles++;
		}
		if (!p->giveup)
			conf_check(p);
	}

	if (p->errors > 0) {
		conf_free(conf);
		conf = NULL;
	}
	while ((f = TAILQ_FIRST(&p->files)) != NULL) {
		TAILQ_REMOVE(&p->files, f, entry);
		free(f->buf);
		free(f->name);
		free(f);
	}
	while ((m = TAILQ_FIRST(&p->macros)) != NULL) {
		TAILQ_REMOVE(&p->macros, m, entry);
		free(m->name);
		free(m->value);
		free(m);
	}
	for (i = 0; i < p->nprofdefs; i++)
		free(p->profdefs[i].name);
	free(p->include);
	free(p);
	return conf;
}

/*
 * sbx-monitor -D name=value: define a macro before any file is read.  The
 * name follows the rules of macros in the file; 0, or -1 and *why.
 */
int
conf_define(const char *def, const char **why)
{
	struct macro	*m;
	const char	*eq;
	char		*name;

	if ((eq = strchr(def, '=')) == NULL) {
		*why = "expected name=value";
		return -1;
	}
	name = xstrdup(def);
	name[eq - def] = '\0';
	if (conf_check_macroname(name, why) == -1 ||
	    (kw_lookup(name) != NULL && (*why = "is a keyword") != NULL)) {
		free(name);
		return -1;
	}
	if (strlen(eq + 1) > SBX_CONF_MAXTOKEN) {
		free(name);
		*why = "value is too long";
		return -1;
	}
	TAILQ_FOREACH(m, &cmdline_macros, entry)
		if (strcmp(m->name, name) == 0) {
			free(name);
			*why = "is defined twice";
			return -1;
		}
	m = xcalloc(1, sizeof(*m));
	m->name = name;
	m->value = xstrdup(eq + 1);
	m->cmdline = 1;
	TAILQ_INSERT_TAIL(&cmdline_macros, m, entry);
	return 0;
}
