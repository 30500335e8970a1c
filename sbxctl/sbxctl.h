/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * sbxctl.h: the one header of the sbxctl command (the client library,
 * sbxctl/libsbx*.c, has its own public header).
 */
#ifndef SBXCTL_H
#define SBXCTL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses: a documented contract (sbxctl(1)) scripts rely on. */
#define SBXCTL_EXIT_OK		0
#define SBXCTL_EXIT_ERROR	1	/* failed; one line says why */
#define SBXCTL_EXIT_USAGE	2	/* the command line is wrong */
#define SBXCTL_EXIT_UNREACHABLE	3	/* the monitor is unreachable */
#define SBXCTL_EXIT_CONFLICT	4	/* apply: some paths conflicted */
/* run: the payload's own status, 128+N for signal N, or one of these. */
#define SBXCTL_EXIT_TIMEOUT	124	/* the sandbox's timeout killed it */
#define SBXCTL_EXIT_SBX		125	/* sbx could not run it (the reason
					   is on stderr) */
#define SBXCTL_EXIT_NOEXEC	126	/* found but not executable */
#define SBXCTL_EXIT_NOTFOUND	127	/* no such command */


/* Error codes of the --json error object, documented in sbxctl(1). */
#define SBXCTL_ERR_USAGE	"usage"
#define SBXCTL_ERR_IO		"io"
#define SBXCTL_ERR_INVALID_JSON	"invalid-json"
#define SBXCTL_ERR_UNREACHABLE	"unreachable"	/* exit 3 */
#define SBXCTL_ERR_REFUSED	"refused"
#define SBXCTL_ERR_PROTOCOL	"protocol"	/* the monitor misbehaved */

struct sbxctl {
	const char	*socket;	/* -s: the monitor's socket */
	int		 json;		/* --json */
	int		 stats;		/* run --stats */
	int64_t		 t_main;	/* CLOCK_REALTIME at main(), ns: an
					   overlay run's T0 (run.c) */
};

/*
 * A command.  run gets the command word as argv[0], returns an
 * SBXCTL_EXIT_* status and has printed the result or the one-line error.
 */
struct sbxctl_cmd {
	const char		*name;
	int			(*run)(struct sbxctl *, int, char **);
	const char *const	*synopsis;	/* NULL-terminated */
};

/* cmd.c: the command table and the usage text drawn from it; sbxctl
 * hands what it has not to sbxctl-tools (cmd_tools). */
const struct sbxctl_cmd *cmd_lookup(const char *);
void	 cmd_usage(FILE *);
void	 cmd_keep(int, char **);
void	 cmd_tools(void);

/* help.c: --help for sbxctl and each command and subcommand. */
void	 help_top(FILE *);
int	 help_wanted(const struct sbxctl_cmd *, int, char **);

/* tty.c: the caller's terminal in pty mode (run -T). */
int	 tty_raw(int);
void	 tty_restore(void);
int	 tty_size(int, unsigned *, unsigned *);

/* args.c */
void	 args_take_json(struct sbxctl *, int *, char **);
int	 args_operands(struct sbxctl *, const char *, int *, char ***);

/* input.c */
int	 input_read(const char *, size_t, char **, size_t *);

/* output.c */
int	 out_error(struct sbxctl *, int, const char *, const char *, ...)
	    __attribute__((__format__(printf, 4, 5)));
int	 out_usage(struct sbxctl *, const char *, ...)
	    __attribute__((__format__(printf, 2, 3)));
int	 out_string(struct sbxctl *, const char *, const char *);
char	*out_name(const char *);
int	 out_finish(int);

/* digestcmd.c: "digest records FILE|-", "digest bundle DIR MODULE". */
int	 cmd_digest(struct sbxctl *, int, char **);
extern const char *const cmd_digest_synopsis[];

/* gates.c: "gates validate|evaluate|list|show|digest|seal-*". */
int	 cmd_gates(struct sbxctl *, int, char **);
extern const char *const cmd_gates_synopsis[];

/* gatesload.c: files, sbx.conf paths, the registry and floors for gates. */
struct json_value;
struct gates_error;
struct gates_registry;
struct gates_floors;
int	 gl_read_doc(const char *, struct json_value **, struct gates_error *);
int	 gl_conf(const char *, char **, char **, struct gates_error *);
int	 gl_registry(struct gates_registry *, const char *, char *const *,
	    size_t, struct gates_error *);
int	 gl_floors(const struct gates_registry *, const char *,
	    struct gates_floors *, struct gates_error *);
char	*gl_abs_path(const char *);
int	 gl_open_pack_dir(const char *, int *);
/* list --rule: the pack ids rule files name (NULL-terminated). */
char	**gl_rule_packs(const char *, const char *);
int	 gl_rule_has(char *const *, const char *);
void	 gl_rule_free(char **);

/* gatesremote.c: gates evaluate and verify, always through sbx-monitor. */
struct gates_remote {
	const char	*report;	/* verify; NULL: evaluate */
	const char	*binding, *metrics, *holdout, *upstream;
	const char	*now, *trusted;
	char *const	*pack_dirs;
	size_t		 npack_dirs;
	char *const	*records;	/* "PROVIDER_ID=FILE" */
	size_t		 nrecords;
	const char	*config;	/* offline: --config sbx.conf */
	int		 offline;	/* --offline */
	FILE		*out;		/* the result, if not stdout */
};
/* The documents, opened as the caller, in the monitor's order. */
#define DOCS_MAX	96
struct docs {
	int	 fd[DOCS_MAX];
	int	 err[DOCS_MAX];		/* errno when fd is -1 */
	char	*name[DOCS_MAX];	/* absolute */
	uint32_t kind[DOCS_MAX];	/* PR_GATES_* */
	char	*id[DOCS_MAX];		/* records: the provider, or NULL */
	size_t	 n;
};
int	 gr_prepare(struct sbxctl *, const struct gates_remote *,
	    struct docs *, char **);
void	 docs_close(struct docs *);
void	 gr_hint(struct sbxctl *, const struct gates_remote *, const char *);
/* gatesoffline.c: the same job in a provider runner sbxctl starts. */
int	 go_evaluate(struct sbxctl *, const struct gates_remote *,
	    const char *, int *);
/* The exit status; *decision is 0, 1, 2 (PROMOTE, HOLD, ROLLBACK), or
 * for verify 0 (valid) or 1 (not). */
int	 gr_evaluate(struct sbxctl *, const struct gates_remote *, int *);

/* render.c: a GateReport for people (gates render, evaluate --format). */
int	 render_report(const char *, size_t, int, int, FILE *, char *,
	    size_t);

/* monitor.c: commands answered by sbx-monitor. */
int	 cmd_ping(struct sbxctl *, int, char **);
int	 cmd_status(struct sbxctl *, int, char **);
int	 cmd_privs(struct sbxctl *, int, char **);
extern const char *const cmd_ping_synopsis[];
extern const char *const cmd_status_synopsis[];
extern const char *const cmd_privs_synopsis[];
struct sbx_conn	*ctl_connect(struct sbxctl *, int *);

/* provider.c */
int	 cmd_provider(struct sbxctl *, int, char **);
extern const char *const cmd_provider_synopsis[];

/* cslist.c: the caller's changesets (issue 23) */
int	 cmd_changes(struct sbxctl *, int, char **);
int	 cmd_discard(struct sbxctl *, int, char **);
extern const char *const cmd_changes_synopsis[];
extern const char *const cmd_discard_synopsis[];

/* run.c */
int	 cmd_run(struct sbxctl *, int, char **);
extern const char *const cmd_run_synopsis[];

/*
 * csview.c: a changeset's entries, diff and apply from its open stream
 * (issue 23); each returns an SBXCTL_EXIT_* status and has printed.
 */
struct sbx_changes_dir;
int	 cs_entries_out(struct sbxctl *, int);
int	 cs_dir_open(struct sbxctl *, const char *, uint64_t, uint64_t,
	    int64_t, struct sbx_changes_dir *);
int	 cs_diff_out(struct sbxctl *, int, const struct sbx_changes_dir *,
	    char *const *);
int	 cs_apply_run(struct sbxctl *, int, const struct sbx_changes_dir *,
	    char *const *, int);
int	 cs_changes_id(struct sbxctl *, const char *);
int	 cmd_diff(struct sbxctl *, int, char **);
int	 cmd_apply(struct sbxctl *, int, char **);
extern const char *const cmd_diff_synopsis[];
extern const char *const cmd_apply_synopsis[];

#endif /* SBXCTL_H */
