/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * priv.h: priv_*.c -- privilege files (design.md §2, sbx.priv(5)): parse,
 * print, lint, compile and apply (Landlock, seccomp), and the compiled
 * tables of libsbxpriv.a that every role applies.
 */
#ifndef SBX_PRIV_H
#define SBX_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>			/* FILE, for priv_print() */

/*
 * A parsed privilege file.  The same structure is produced by priv_parse()
 * (heap, released with priv_free()) and by sbx-privgen (pure const data
 * compiled into libsbxpriv.a as priv_table_NAME), so the table a role
 * applies is the file an operator audits.
 */
#define PRIV_ARGS		6	/* seccomp sees arg0..arg5 */
#define PRIV_RLIM_INFINITY	UINT64_MAX

enum priv_root {
	PRIV_ROOT_NONE = 1,		/* keep the file system view */
	PRIV_ROOT_EMPTY			/* private, empty, read-only root */
};
enum priv_llmode {
	PRIV_LL_OFF = 0,		/* no landlock statements */
	PRIV_LL_REQUIRED,
	PRIV_LL_BEST_EFFORT
};
enum priv_llfs {			/* "landlock fs": access everywhere */
	PRIV_LLFS_OFF = 0,		/* file system not restricted */
	PRIV_LLFS_NONE,
	PRIV_LLFS_RO,
	PRIV_LLFS_RX
};
enum priv_llaccess {			/* "landlock ro|rx|rw PATH" */
	PRIV_LLA_RO = 1,
	PRIV_LLA_RX,
	PRIV_LLA_RW
};
enum priv_llport_kind {			/* "landlock bind|connect PORT" */
	PRIV_LLP_BIND = 1,
	PRIV_LLP_CONNECT
};
#define PRIV_LLSCOPE_ABSTRACT_UNIX	0x1	/* "landlock scope ..." */
#define PRIV_LLSCOPE_SIGNAL		0x2

enum priv_act {
	PRIV_ACT_ALLOW = 1,
	PRIV_ACT_KILL,			/* SECCOMP_RET_KILL_PROCESS */
	PRIV_ACT_TRAP,
	PRIV_ACT_LOG,
	PRIV_ACT_ERRNO
};
enum priv_op {
	PRIV_OP_EQ = 1,			/* argN == V */
	PRIV_OP_NE,			/* argN != V (deny rules only) */
	PRIV_OP_MASKED_EQ,		/* argN & M == V */
	PRIV_OP_IN			/* argN in {A, B, ...} */
};

struct priv_value {
	uint64_t	 v;
	const char	*text;		/* as written: constant name or number */
};
struct priv_cond {
	unsigned int		 arg;		/* 0..PRIV_ARGS-1 */
	enum priv_op		 op;
	struct priv_value	 mask;		/* PRIV_OP_MASKED_EQ only */
	const struct priv_value	*vals;		/* 1, or the PRIV_OP_IN set */
	size_t			 nvals;
};
struct priv_syscall {
	const char	*name;
	int		 nr;		/* x86_64 number (libseccomp) */
};
struct priv_rule {
	unsigned int		   line;	/* in the source file */
	enum priv_act		   act;
	int			   err;		/* PRIV_ACT_ERRNO */
	const struct priv_syscall *sys;
	size_t			   nsys;
	const struct priv_cond	  *conds;	/* all must hold */
	size_t			   nconds;
	const char		  *waiver;	/* lint-ok "reason", or NULL */
};
struct priv_rlimit {
	int		 resource;	/* RLIMIT_* */
	uint64_t	 value;		/* soft = hard; PRIV_RLIM_INFINITY */
};
struct priv_llpath {
	enum priv_llaccess	 access;
	const char		*path;
};
struct priv_llport {
	enum priv_llport_kind	 kind;
	uint16_t		 port;
};
struct priv_table {
	const char		  *file;	/* source, for messages */
	const char		  *role;
	const char		  *user;	/* NULL: "same" */
	enum priv_root		   root;
	int			   no_new_privs;
	const struct priv_rlimit  *rlimits;
	size_t			   nrlimits;
	enum priv_llmode	   ll_mode;
	enum priv_llfs		   ll_fs;
	const struct priv_llpath  *ll_paths;
	size_t			   nll_paths;
	int			   ll_net;	/* "landlock net none" */
	const struct priv_llport  *ll_ports;
	size_t			   nll_ports;
	unsigned int		   ll_scopes;	/* PRIV_LLSCOPE_* */
	enum priv_act		   def_act;	/* seccomp default action */
	int			   def_err;
	unsigned int		   def_line;
	const struct priv_rule	  *rules;
	size_t			   nrules;
};

/* priv_parse.c: NULL on error, with "file:line: reason" in err. */
struct priv_table *priv_parse(const char *file, const char *buf, size_t len,
	    char *err, size_t errlen);
struct priv_table *priv_parse_file(const char *path, char *err,
	    size_t errlen);
void	 priv_free(struct priv_table *);

/* priv_const.c: the names a privilege file may use. */
int	 priv_const_lookup(const char *name, uint64_t *);
int	 priv_errno_lookup(const char *name, int *);
const char *priv_errno_name(int);
const char *priv_act_word(enum priv_act);
int	 priv_rlimit_lookup(const char *name, int *);
const char *priv_rlimit_name(int);

/* priv_print.c: the table in canonical sbx.priv(5) syntax. */
int	 priv_print(FILE *, const struct priv_table *);

/* priv_lint.c: dangerous syscalls allowed without a condition. */
struct priv_finding {
	unsigned int	 line;
	int		 waived;	/* the rule carries lint-ok "reason" */
	char		 msg[256];
};
size_t	 priv_lint(const struct priv_table *, struct priv_finding *,
	    size_t max);

/* priv_apply.c: root, user, rlimits, no_new_privs, Landlock, seccomp.
 * 0, or -1 with a message naming the step and what is missing.
 * priv_apply_compiled: the same with the table's filter compiled before
 * (priv_seccomp_compile of the same table), which it keeps. */
int	 priv_apply(const struct priv_table *, char *err, size_t errlen);
/* -N roles (role_init): not dumpable once the table's steps are done. */
void	 priv_set_nodump(int);
struct priv_bpf;
int	 priv_apply_compiled(const struct priv_table *,
	    const struct priv_bpf *, char *err, size_t errlen);

/* priv_landlock.c */
struct priv_llplan {
	int		 abi;		/* kernel ABI, capped at the newest known */
	uint64_t	 handled_fs;
	uint64_t	 handled_net;
	uint64_t	 scoped;
	char		 dropped[256];	/* best-effort: what is not enforced */
};
int	 priv_landlock_abi(void);	/* -1 with errno when unavailable */
int	 priv_landlock_plan(const struct priv_table *, int abi,
	    struct priv_llplan *, char *err, size_t errlen);
int	 priv_landlock_apply(const struct priv_table *, char *err,
	    size_t errlen);

/* priv_seccomp.c: the filter alone (the shim loads the payload's as the
 * last step before execve), a dry compile, and libseccomp's PFC dump. */
int	 priv_apply_seccomp(const struct priv_table *, char *err,
	    size_t errlen);
int	 priv_seccomp_check(const struct priv_table *, char *err,
	    size_t errlen);
int	 priv_export_pfc(const struct priv_table *, int fd, char *err,
	    size_t errlen);
/* For priv_apply(): compile before anything is applied, load last. */
struct priv_bpf;
struct priv_bpf *priv_seccomp_compile(const struct priv_table *, char *err,
	    size_t errlen);
int	 priv_seccomp_load(struct priv_bpf *, char *err, size_t errlen);
void	 priv_bpf_free(struct priv_bpf *);
/* Compile once, load many times: install keeps the program. */
int	 priv_seccomp_install(const struct priv_bpf *, char *err,
	    size_t errlen);
/*
 * Sanitizer builds (make sanitize: SBX_SANITIZE) add to every filter whose
 * default refuses the system calls the ASan/UBSan runtime makes while it
 * runs and reports (sbx.priv(5), SANITIZER BUILDS); release builds add
 * nothing.  1 when this build's filter for the table allows NAME only for
 * that reason, 2 when it answers it with an errno for that reason, else 0.
 */
int	 priv_sanitizer_extra(const struct priv_table *, const char *name);
/* Under default allow|log, numbers below this that libseccomp cannot
 * name are answered ENOSYS (priv_seccomp.c, sbx.priv(5)). */
#define PRIV_NR_BOUND	1024

/*
 * Each sandboxed program (the monitor, every role) puts this at file scope
 * in its main.c.  In sanitizer builds it compiles in the runtime options
 * those programs need: they start with an empty environment, and their
 * privileges rule out what LeakSanitizer's exit check does (a tracer
 * thread that ptrace()s the process and lists /proc/self/task: no fork,
 * no ptrace, no /proc by design), so leaks there are found by the unit
 * tests, which run the same code in-process, and by valgrind
 * (scripts/valgrind).  Reports go unsymbolised (no llvm-symbolizer child
 * in a sandbox): module+offset, for llvm-symbolizer afterwards.
 */
#ifdef SBX_SANITIZE
#define SBX_SANITIZER_ROLE_OPTIONS					\
const char	*__asan_default_options(void);				\
const char	*__ubsan_default_options(void);				\
const char *								\
__asan_default_options(void)						\
{									\
	return "detect_leaks=0:symbolize=0:abort_on_error=0:"		\
	    "quarantine_size_mb=1";					\
}									\
const char *								\
__ubsan_default_options(void)						\
{									\
	return "print_stacktrace=1:halt_on_error=1:symbolize=0";	\
}
#else
#define SBX_SANITIZER_ROLE_OPTIONS
#endif

/* The compiled tables (libsbxpriv.a), one per DIR/NAME.priv file. */
#define PRIV_TABLES(X)							\
	X(command) X(launcher) X(monitor) X(provider) X(provider_runner) \
	X(proxy) X(shim) X(spawner) X(mapper) X(command_ptrace)
#define PRIV_TABLE_DECLARE(n)	extern const struct priv_table priv_table_##n;
PRIV_TABLES(PRIV_TABLE_DECLARE)

#endif /* SBX_PRIV_H */
