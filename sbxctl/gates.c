/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * gates.c: "sbxctl gates ...", the gate engine offline, with the
 * reference CLI's output and exit statuses (interop.md §G11):
 *
 *	validate pack|binding|report|auto file [--pack-dir dir]...
 *	evaluate --binding f --metrics f --holdout f [--upstream f] --now t
 *	    --trusted-binding-digest d [--pack-dir dir]... [--exit-decision]
 *	verify --report f --binding f --metrics f --holdout f [--upstream f]
 *	    --trusted-binding-digest d [--pack-dir dir]...
 *	render report [--format text|markdown]
 *	list [--namespace ns]		show id
 *	digest file			seal-holdout --binding f [--accessed-at t]
 *	seal-upstream file
 *
 * Options follow the reference's parsing: a value flag takes the next
 * argument (even one starting with "-"), the first occurrence wins,
 * --pack-dir repeats, other "-" words are ignored.
 *
 * evaluate and verify go through sbx-monitor to the provider runner
 * (gatesremote.c), whose sbx.conf names the operator's packs and floors:
 * an evaluation decides, so its inputs are parsed only in the confined
 * role and its trust root is the monitor's, never the caller's files; a
 * verification re-evaluates, so it needs the same root.  Offline
 * (--offline, or no monitor) they run in a provider runner sbxctl starts
 * itself (gatesoffline.c), with the packs and floors of --config sbx.conf.
 * render prints a report for people (render.c).
 * The rest is inspection, offline, with the engine linked here (the
 * reference's CLI does all of it offline): validate, list and show read
 * the embedded shipped packs, the operator's gate-packs and floors named
 * by --config sbx.conf (default /etc/sbx/sbx.conf when it exists) and the
 * caller's own --pack-dir, as the caller, and produce nothing anyone
 * trusts; digest and the seals are pure functions of the caller's file.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "sbxctl.h"
#include "gates/gates.h"

#define GATES_EXIT_INVALID	2	/* validate: not valid */
#define GATES_EXIT_UNVERIFIED	1	/* verify: not valid */
#define GATES_EXIT_HOLD		10	/* evaluate --exit-decision */
#define GATES_EXIT_ROLLBACK	11
#define PACK_DIRS_MAX		64
#define REPORT_READ_MAX		(64 * 1024 * 1024)

const char *const cmd_gates_synopsis[] = {
	"gates validate pack|binding|report|auto file [--pack-dir dir]...",
	"gates evaluate --binding file --metrics file --holdout file "
	    "[--upstream file] --now time --trusted-binding-digest digest "
	    "[--pack-dir dir]... [--records provider=file]... "
	    "[--exit-decision] [--offline [--config sbx.conf]] "
	    "[--format json|text|markdown --report file]",
	"gates verify --report file --binding file --metrics file "
	    "--holdout file [--upstream file] --trusted-binding-digest digest "
	    "[--pack-dir dir]... [--records provider=file]... "
	    "[--offline [--config sbx.conf]]",
	"gates render report|- [--format text|markdown]",
	"gates list [--namespace ns] [--rule [rule]]",
	"gates show id",
	"gates digest file",
	"gates seal-holdout --binding file [--accessed-at time]",
	"gates seal-upstream file",
	NULL
};

struct gargs {
	const char	*report, *binding, *metrics, *holdout, *upstream, *now;
	const char	*trusted, *ns, *accessed, *config, *format;
	const char	*rule;		/* list --rule's value, if any */
	int		 has_rule;	/* --rule given */
	char		*pack_dirs[PACK_DIRS_MAX];
	size_t		 npack_dirs;
	char		*records[PR_GATES_RECORDS_MAX];
	size_t		 nrecords;
	int		 exit_decision;
	int		 offline;	/* --offline */
	int		 dash;		/* a "-" (render: stdin) */
	char		*pos[8];
	size_t		 npos;
};

static const struct {
	const char	*flag;
	size_t		 off;
} value_flags[] = {
	{ "--report", offsetof(struct gargs, report) },
	{ "--binding", offsetof(struct gargs, binding) },
	{ "--metrics", offsetof(struct gargs, metrics) },
	{ "--holdout", offsetof(struct gargs, holdout) },
	{ "--upstream", offsetof(struct gargs, upstream) },
	{ "--now", offsetof(struct gargs, now) },
	{ "--trusted-binding-digest", offsetof(struct gargs, trusted) },
	{ "--namespace", offsetof(struct gargs, ns) },
	{ "--accessed-at", offsetof(struct gargs, accessed) },
	{ "--config", offsetof(struct gargs, config) },
	{ "--format", offsetof(struct gargs, format) },
	{ "--aiwg-root", SIZE_MAX },	/* taken, ignored: sbx has no root */
};

static int
parse_args(struct sbxctl *ctx, int argc, char **argv, struct gargs *a)
{
	const char	**slot;
	size_t		 i;
	int		 k, taken;

	memset(a, 0, sizeof(*a));
	for (k = 0; k < argc; k++) {
		taken = 0;
		if (strcmp(argv[k], "--pack-dir") == 0) {
			if (k + 1 >= argc)
				return out_usage(ctx, "gates: --pack-dir needs "
				    "a directory");
			if (a->npack_dirs == PACK_DIRS_MAX)
				return out_usage(ctx, "gates: more than %d "
				    "--pack-dir", PACK_DIRS_MAX);
			a->pack_dirs[a->npack_dirs++] = argv[++k];
			continue;
		}
		if (strcmp(argv[k], "--records") == 0) {
			if (k + 1 >= argc)
				return out_usage(ctx, "gates: --records needs "
				    "PROVIDER_ID=FILE");
			if (a->nrecords == PR_GATES_RECORDS_MAX)
				return out_usage(ctx, "gates: more than %d "
				    "--records", PR_GATES_RECORDS_MAX);
			a->records[a->nrecords++] = argv[++k];
			continue;
		}
		/*
		 * list's --rule takes the next word only when it does not
		 * start with "-" (the handler's own reading), but any next
		 * word stops being a positional (its value-flag list).
		 */
		if (strcmp(argv[k], "--rule") == 0) {
			if (!a->has_rule && k + 1 < argc &&
			    argv[k + 1][0] != '-' && argv[k + 1][0] != '\0')
				a->rule = argv[k + 1];
			a->has_rule = 1;
			if (k + 1 < argc && argv[k + 1][0] != '-')
				k++;
			continue;
		}
		if (strcmp(argv[k], "--exit-decision") == 0) {
			a->exit_decision = 1;
			continue;
		}
		if (strcmp(argv[k], "--offline") == 0) {
			a->offline = 1;
			continue;
		}
		for (i = 0; i < nitems(value_flags); i++) {
			if (strcmp(argv[k], value_flags[i].flag) != 0)
				continue;
			taken = 1;
			if (k + 1 >= argc)
				return out_usage(ctx, "gates: %s needs a value",
				    value_flags[i].flag);
			k++;
			if (value_flags[i].off == SIZE_MAX)
				break;
			slot = (const char **)((char *)a + value_flags[i].off);
			if (*slot == NULL)
				*slot = argv[k];
			break;
		}
		if (strcmp(argv[k], "-") == 0)
			a->dash = 1;
		if (taken || argv[k][0] == '-')
			continue;
		if (a->npos == nitems(a->pos))
			return out_usage(ctx, "gates: too many arguments");
		a->pos[a->npos++] = argv[k];
	}
	return 0;
}

static int
refused(struct sbxctl *ctx, const struct gates_error *err)
{
	return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_REFUSED, "%s",
	    err->msg);
}

static int
print_doc(const struct json_value *v)
{
	char	*s = gates_print_pretty(v);

	fputs(s, stdout);
	free(s);
	return SBXCTL_EXIT_OK;
}

static int
setup(struct sbxctl *ctx, const struct gargs *a, struct gates_registry *reg,
    char **gates_config, struct gates_error *err)
{
	char	*packs = NULL;
	int	 r;

	(void)ctx;
	gates_registry_init(reg);
	*gates_config = NULL;
	if (gl_conf(a->config, &packs, gates_config, err) == -1)
		return -1;
	r = gl_registry(reg, packs, a->pack_dirs, a->npack_dirs, err);
	free(packs);
	return r;
}

/* ---- validate --------------------------------------------------------- */

static void
summary_str(struct json_value *dst, const struct json_value *v)
{
	if (gt_is_str(v))
		gt_copy(dst, v);
	else
		gt_set_null(dst);
}

static int
validate_one(const char *kind, const struct json_value *doc,
    const struct gargs *a, struct gates_error *err)
{
	struct gates_registry	 reg;
	struct gates_floors	 floors;
	struct gates_resolved	 res;
	struct json_value	 body;
	char			*cfg = NULL, d[DIGEST_STR_LEN + 1], *k;
	size_t			 i;
	int			 r = -1;

	memset(&floors, 0, sizeof(floors));
	gates_registry_init(&reg);
	if (strcmp(kind, "pack") == 0) {
		if (gates_validate_document(doc, err) == -1)
			goto out;
		if (!gt_str_is(json_get(doc, "kind"), "GatePack")) {
			k = gt_cstr(json_get(doc, "kind"));
			gates_fail(err, GATES_E_SCHEMA, "expected kind GatePack, "
			    "got '%s'", k);
			free(k);
			goto out;
		}
		if (setup(NULL, a, &reg, &cfg, err) == -1)
			goto out;
		r = gates_validate_pack(doc, &reg, err);
	} else if (strcmp(kind, "binding") == 0) {
		if (setup(NULL, a, &reg, &cfg, err) == -1)
			goto out;
		if (gl_floors(&reg, cfg, &floors, err) == -1)
			goto out;
		if ((r = gates_resolve_binding(&reg, doc, &floors, &res,
		    err)) == 0)
			gates_resolved_free(&res);
	} else {
		if (gates_validate_document(doc, err) == -1)
			goto out;
		if (!gt_str_is(json_get(doc, "kind"), "GateReport")) {
			gates_fail(err, GATES_E_SCHEMA, "expected kind "
			    "GateReport");
			goto out;
		}
		gt_copy(&body, doc);
		gt_remove(&body, "digest");
		r = gates_digest(&body, d, NULL) == -1 ||
		    !gt_str_is(json_get(doc, "digest"), d) ? -1 : 0;
		json_value_clear(&body);
		if (r == -1)
			gates_fail(err, GATES_E_INPUT, "report digest does not "
			    "match its content");
	}
 out:
	(void)i;
	free(cfg);
	gates_floors_free(&floors);
	gates_registry_free(&reg);
	return r;
}

static int
g_validate(struct sbxctl *ctx, const struct gargs *a)
{
	struct json_value	*doc = NULL, out, *v;
	struct gates_error	 err;
	const char		*kind;
	int			 valid;

	if (a->npos != 2 || (strcmp(a->pos[0], "pack") != 0 &&
	    strcmp(a->pos[0], "binding") != 0 &&
	    strcmp(a->pos[0], "report") != 0 &&
	    strcmp(a->pos[0], "auto") != 0))
		return out_usage(ctx, "gates validate: pack, binding, report "
		    "or auto and a file expected");
	memset(&err, 0, sizeof(err));
	kind = a->pos[0];
	if (gl_read_doc(a->pos[1], &doc, &err) == -1) {
		if (strcmp(kind, "auto") == 0)
			kind = "pack";
		valid = 0;
	} else {
		if (strcmp(kind, "auto") == 0)
			kind = gt_str_is(json_get(doc, "kind"), "GateBinding") ?
			    "binding" : gt_str_is(json_get(doc, "kind"),
			    "GateReport") ? "report" : "pack";
		valid = validate_one(kind, doc, a, &err) == 0;
	}
	gt_set_obj(&out);
	gt_set_str(gt_add(&out, "schema"), "aiwg-gates-validation/v1");
	gt_set_str(gt_add(&out, "kind"), kind);
	gt_set_str(gt_add(&out, "source"), "path");
	gt_set_bool(gt_add(&out, "valid"), valid);
	v = gt_add(&out, "summary");
	gt_set_obj(v);
	summary_str(gt_add(v, "id"), json_get(json_get(doc, "metadata"), "id"));
	summary_str(gt_add(v, "version"),
	    json_get(json_get(doc, "metadata"), "version"));
	summary_str(gt_add(v, "apiVersion"), json_get(doc, "apiVersion"));
	v = gt_add(&out, "errors");
	gt_set_arr(v);
	if (!valid)
		gt_set_str(gt_push(v), err.msg);
	print_doc(&out);
	json_value_clear(&out);
	json_free(doc);
	return valid ? SBXCTL_EXIT_OK : GATES_EXIT_INVALID;
}

/* ---- evaluate --------------------------------------------------------- */

/* The documents both evaluate and verify send, from the command line. */
static void
remote_docs(struct gates_remote *g, const struct gargs *a)
{
	memset(g, 0, sizeof(*g));
	g->binding = a->binding;
	g->metrics = a->metrics;
	g->holdout = a->holdout;
	g->upstream = a->upstream;
	g->trusted = a->trusted;
	g->pack_dirs = a->pack_dirs;
	g->npack_dirs = a->npack_dirs;
	g->records = a->records;
	g->nrecords = a->nrecords;
	g->config = a->config;
	g->offline = a->offline;
}

/* text or markdown: 0 json, 1 text, 2 markdown, -1 neither. */
static int
format_of(const char *f, int dflt)
{
	if (f == NULL)
		return dflt;
	if (strcmp(f, "json") == 0)
		return 0;
	if (strcmp(f, "text") == 0)
		return 1;
	if (strcmp(f, "markdown") == 0)
		return 2;
	return -1;
}

/* Colour: on a terminal only, and never with NO_COLOR set. */
static int
want_colour(void)
{
	const char	*nc = getenv("NO_COLOR");

	return isatty(STDOUT_FILENO) && (nc == NULL || *nc == '\0');
}

static int
render_file(struct sbxctl *ctx, const char *path, int fmt)
{
	char	*buf, err[128];
	size_t	 len;
	int	 r;

	if (input_read(path, REPORT_READ_MAX, &buf, &len) == -1)
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_IO,
		    "gates render: %s: %s", path, strerror(errno));
	r = render_report(buf, len, fmt == 2, want_colour(), stdout, err,
	    sizeof(err));
	free(buf);
	if (r == -1)
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_INVALID_JSON,
		    "gates render: %s: %s", path, err);
	return SBXCTL_EXIT_OK;
}

static int
g_evaluate(struct sbxctl *ctx, const struct gargs *a)
{
	struct gates_remote	 g;
	int			 d, r, fmt;

	if (a->binding == NULL || a->metrics == NULL || a->holdout == NULL ||
	    a->now == NULL || a->trusted == NULL)
		return out_usage(ctx, "gates evaluate requires --binding <file> "
		    "--metrics <file> --holdout <file> --now <iso> "
		    "--trusted-binding-digest <sha256:..>");
	if (!gates_digest_ok(a->trusted))
		return out_usage(ctx, "gates evaluate: --trusted-binding-digest "
		    "must match ^sha256:[0-9a-f]{64}$");
	if ((fmt = format_of(a->format, 0)) == -1)
		return out_usage(ctx, "gates evaluate: --format is json, text "
		    "or markdown");
	if (fmt != 0 && a->report == NULL)
		return out_usage(ctx, "gates evaluate: --format %s needs "
		    "--report file for the JSON report", a->format);
	remote_docs(&g, a);
	g.now = a->now;
	if (fmt != 0 && (g.out = fopen(a->report, "w")) == NULL)
		return out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_IO,
		    "gates evaluate: %s: %s", a->report, strerror(errno));
	r = gr_evaluate(ctx, &g, &d);
	if (g.out != NULL && fclose(g.out) == EOF && r == SBXCTL_EXIT_OK)
		r = out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_IO,
		    "gates evaluate: %s: %s", a->report, strerror(errno));
	if (r == SBXCTL_EXIT_OK && fmt != 0)
		r = render_file(ctx, a->report, fmt);
	if (r != SBXCTL_EXIT_OK || !a->exit_decision)
		return r;
	return d == GATES_PROMOTE ? SBXCTL_EXIT_OK : d == GATES_HOLD ?
	    GATES_EXIT_HOLD : GATES_EXIT_ROLLBACK;
}

/* ---- render ----------------------------------------------------------- */

static int
g_render(struct sbxctl *ctx, const struct gargs *a)
{
	int	 fmt;

	/* "-" is stdin; other "-" words are flags, as for every gates
	 * subcommand. */
	if (a->npos + a->dash != 1)
		return out_usage(ctx, "gates render: one report file (or -) "
		    "expected");
	if ((fmt = format_of(a->format, 1)) <= 0)
		return out_usage(ctx, "gates render: --format is text or "
		    "markdown");
	return render_file(ctx, a->npos == 1 ? a->pos[0] : "-", fmt);
}

/* ---- verify ----------------------------------------------------------- */

/*
 * validateGateReport through the monitor: {valid, reasons} on stdout;
 * 0 valid, 1 not valid or refused (the inputs could not be read; the
 * message says why), 2 usage.
 */
static int
g_verify(struct sbxctl *ctx, const struct gargs *a)
{
	struct gates_remote	 g;
	int			 d, r;

	if (a->report == NULL || a->binding == NULL || a->metrics == NULL ||
	    a->holdout == NULL || a->trusted == NULL)
		return out_usage(ctx, "gates verify requires --report <file> "
		    "--binding <file> --metrics <file> --holdout <file> "
		    "--trusted-binding-digest <sha256:..>");
	if (!gates_digest_ok(a->trusted))
		return out_usage(ctx, "gates verify: --trusted-binding-digest "
		    "must match ^sha256:[0-9a-f]{64}$");
	/* The clock is the report's own: another one could only make an
	 * honest report fail, or look as if it had been checked at it. */
	if (a->now != NULL)
		return out_usage(ctx, "gates verify: --now has no effect: the "
		    "report is re-evaluated at its own evaluatedAt");
	if (a->exit_decision)
		return out_usage(ctx, "gates verify: --exit-decision is "
		    "evaluate's; verify exits 0 only for a valid report");
	remote_docs(&g, a);
	g.report = a->report;
	if ((r = gr_evaluate(ctx, &g, &d)) != SBXCTL_EXIT_OK)
		return r;
	return d == 0 ? SBXCTL_EXIT_OK : GATES_EXIT_UNVERIFIED;
}

/* ---- list, show ------------------------------------------------------- */

/*
 * String.prototype.localeCompare on ids (ICU root collation) for the
 * ASCII that pack ids are made of: punctuation before digits before
 * letters, letters case-blind first, lowercase first on a tie.
 */
static int
coll_weight(unsigned char c)
{
	static const char	 punct[] = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";
	const char		*p;

	if (c >= 'a' && c <= 'z')
		return 1000 + (c - 'a') * 2;
	if (c >= 'A' && c <= 'Z')
		return 1000 + (c - 'A') * 2;
	if (c >= '0' && c <= '9')
		return 500 + c;
	if ((p = strchr(punct, c)) != NULL && c != '\0')
		return 100 + (int)(p - punct);
	return 300 + c;
}

static int
locale_compare(const char *a, const char *b)
{
	const unsigned char	*x = (const unsigned char *)a;
	const unsigned char	*y = (const unsigned char *)b;
	size_t			 i;
	int			 wx, wy;

	for (i = 0; x[i] != '\0' && y[i] != '\0'; i++) {
		wx = coll_weight(x[i]);
		wy = coll_weight(y[i]);
		if (wx != wy)
			return wx < wy ? -1 : 1;
	}
	if (x[i] != y[i])
		return x[i] == '\0' ? -1 : 1;
	for (i = 0; x[i] != '\0'; i++)
		if (x[i] != y[i])
			return (x[i] >= 'a' && x[i] <= 'z') ? -1 : 1;
	return 0;
}

static int
cmp_packs(const void *a, const void *b)
{
	return locale_compare((*(const struct gates_pack *const *)a)->id,
	    (*(const struct gates_pack *const *)b)->id);
}

static int
g_list(struct sbxctl *ctx, const struct gargs *a)
{
	struct gates_registry	 reg;
	struct gates_error	 err;
	const struct gates_pack	**sorted;
	struct json_value	 out, *arr, *o;
	const struct json_value	*meta;
	char			*cfg = NULL, *packs_dir = NULL, **rules = NULL;
	size_t			 i;
	int			 r;

	memset(&err, 0, sizeof(err));
	if (setup(ctx, a, &reg, &cfg, &err) == -1) {
		free(cfg);
		gates_registry_free(&reg);
		return refused(ctx, &err);
	}
	free(cfg);
	if (a->rule != NULL && gl_conf(a->config, &packs_dir, &cfg,
	    &err) == 0)
		free(cfg);
	sorted = xcalloc(reg.npacks + 1, sizeof(*sorted));
	for (i = 0; i < reg.npacks; i++)
		sorted[i] = &reg.packs[i];
	qsort(sorted, reg.npacks, sizeof(*sorted), cmp_packs);
	if (a->rule != NULL)
		rules = gl_rule_packs(a->rule, packs_dir);
	free(packs_dir);
	gt_set_obj(&out);
	gt_set_str(gt_add(&out, "schema"), "aiwg-gates-list/v1");
	if (a->rule != NULL)
		gt_set_str(gt_add(&out, "rule"), a->rule);
	arr = gt_add(&out, "packs");
	gt_set_arr(arr);
	for (i = 0; i < reg.npacks; i++) {
		/* An empty --namespace filters nothing, as in the reference. */
		if (a->ns != NULL && *a->ns != '\0' &&
		    strcmp(sorted[i]->ns, a->ns) != 0)
			continue;
		if (a->rule != NULL && !gl_rule_has(rules, sorted[i]->id))
			continue;
		meta = json_get(sorted[i]->authored, "metadata");
		o = gt_push(arr);
		gt_set_obj(o);
		gt_set_str(gt_add(o, "id"), sorted[i]->id);
		gt_copy(gt_add(o, "version"), json_get(meta, "version"));
		gt_copy(gt_add(o, "description"), json_get(meta, "description"));
		gt_set_str(gt_add(o, "digest"), sorted[i]->digest);
		gt_set_str(gt_add(o, "resolvedDigest"),
		    sorted[i]->resolved_digest);
		gt_set_str(gt_add(o, "namespace"), sorted[i]->ns);
		gt_set_num(gt_add(o, "gates"),
		    gp_gates(sorted[i]->authored)->u.array.n);
	}
	/* --rule: the reference's stub, word for word (its issue #2839). */
	if (a->has_rule) {
		o = gt_add(&out, "enforcedBy");
		gt_set_obj(o);
		gt_set_str(gt_add(o, "status"), "stub");
		gt_set_str(gt_add(o, "note"), a->rule == NULL ?
		    "Rule enforcedBy coverage is tracked in #2839; rules "
		    "without enforcedBy remain guidance." :
		    "Rule enforcedBy coverage is tracked in #2839.");
	}
	r = print_doc(&out);
	json_value_clear(&out);
	free(sorted);
	gl_rule_free(rules);
	gates_registry_free(&reg);
	return r;
}

static int
g_show(struct sbxctl *ctx, const struct gargs *a)
{
	struct gates_registry	 reg;
	struct gates_error	 err, err2;
	const struct gates_pack	*p, *hit = NULL;
	struct json_value	 out;
	const struct json_value	*meta;
	const char		*needle, *rest, *c;
	char			*cfg = NULL;
	size_t			 i, nhits = 0, nl, rl;
	int			 r;

	if (a->npos != 1)
		return out_usage(ctx, "gates show: one pack id expected");
	memset(&err, 0, sizeof(err));
	if (setup(ctx, a, &reg, &cfg, &err) == -1) {
		free(cfg);
		gates_registry_free(&reg);
		return refused(ctx, &err);
	}
	free(cfg);
	if ((p = gates_registry_lookup(&reg, a->pos[0], &err)) == NULL) {
		/* A short name owned by exactly one pack. */
		needle = (c = strchr(a->pos[0], ':')) != NULL ? c + 1 :
		    a->pos[0];
		nl = strlen(needle);
		if (strchr(needle, '/') == NULL && strpbrk(needle,
		    " \t\n\r\f\v") == NULL) {
			for (i = 0; i < reg.npacks; i++) {
				c = strchr(reg.packs[i].id, ':');
				rest = c != NULL ? c + 1 : reg.packs[i].id;
				rl = strlen(rest);
				if (strcmp(rest, needle) == 0 || (rl > nl &&
				    rest[rl - nl - 1] == '/' &&
				    strcmp(rest + rl - nl, needle) == 0)) {
					hit = &reg.packs[i];
					nhits++;
				}
			}
		}
		if (nhits == 1)
			p = hit;
	}
	if (p == NULL) {
		err2 = err;
		gates_registry_free(&reg);
		return refused(ctx, &err2);
	}
	meta = json_get(p->authored, "metadata");
	gt_set_obj(&out);
	gt_set_str(gt_add(&out, "schema"), "aiwg-gates-show/v1");
	gt_set_str(gt_add(&out, "id"), p->id);
	gt_copy(gt_add(&out, "version"), json_get(meta, "version"));
	gt_copy(gt_add(&out, "description"), json_get(meta, "description"));
	gt_set_str(gt_add(&out, "digest"), p->digest);
	gt_set_str(gt_add(&out, "resolvedDigest"), p->resolved_digest);
	gt_copy(gt_add(&out, "pack"), p->composed);
	r = print_doc(&out);
	json_value_clear(&out);
	gates_registry_free(&reg);
	return r;
}

/* ---- helpers: digests and seals ---------------------------------------- */

static int
g_digest(struct sbxctl *ctx, const struct gargs *a)
{
	struct json_value	*doc;
	struct gates_error	 err;
	char			 d[DIGEST_STR_LEN + 1];
	int			 r;

	if (a->npos != 1)
		return out_usage(ctx, "gates digest: one file expected");
	memset(&err, 0, sizeof(err));
	if (gl_read_doc(a->pos[0], &doc, &err) == -1)
		return refused(ctx, &err);
	r = gates_digest(doc, d, &err) == -1 ? refused(ctx, &err) :
	    out_string(ctx, "digest", d);
	json_free(doc);
	return r;
}

static int
g_seal_holdout(struct sbxctl *ctx, const struct gargs *a)
{
	struct json_value	*doc, *sealed;
	struct gates_error	 err;
	char			 d[DIGEST_STR_LEN + 1];
	int64_t			 ms;
	int			 r;

	if (a->binding == NULL || a->npos != 0)
		return out_usage(ctx, "gates seal-holdout: --binding file "
		    "expected");
	if (a->accessed != NULL && gates_date_parse(a->accessed, &ms) == -1)
		return out_usage(ctx, "gates seal-holdout: --accessed-at is not "
		    "a date-time");
	memset(&err, 0, sizeof(err));
	if (gl_read_doc(a->binding, &doc, &err) == -1)
		return refused(ctx, &err);
	/* The frozen record names the binding by its digest. */
	if (gates_digest(doc, d, &err) == -1 ||
	    gates_seal_holdout(d, a->accessed, &sealed, &err) == -1) {
		json_free(doc);
		return refused(ctx, &err);
	}
	r = print_doc(sealed);
	json_free(sealed);
	json_free(doc);
	return r;
}

static int
g_seal_upstream(struct sbxctl *ctx, const struct gargs *a)
{
	struct json_value	*doc, out;
	struct gates_error	 err;
	char			 d[DIGEST_STR_LEN + 1];
	int			 r;

	if (a->npos != 1)
		return out_usage(ctx, "gates seal-upstream: one metadata file "
		    "expected");
	memset(&err, 0, sizeof(err));
	if (gl_read_doc(a->pos[0], &doc, &err) == -1)
		return refused(ctx, &err);
	if (gates_digest(doc, d, &err) == -1) {
		json_free(doc);
		return refused(ctx, &err);
	}
	gt_set_obj(&out);
	*gt_add(&out, "metadata") = *doc;
	free(doc);
	gt_set_str(gt_add(&out, "digest"), d);
	r = print_doc(&out);
	json_value_clear(&out);
	return r;
}

static const struct {
	const char	*name;
	int		(*run)(struct sbxctl *, const struct gargs *);
} subs[] = {
	{ "validate",		g_validate },
	{ "evaluate",		g_evaluate },
	{ "verify",		g_verify },
	{ "render",		g_render },
	{ "list",		g_list },
	{ "show",		g_show },
	{ "digest",		g_digest },
	{ "seal-holdout",	g_seal_holdout },
	{ "seal-upstream",	g_seal_upstream },
};

int
cmd_gates(struct sbxctl *ctx, int argc, char **argv)
{
	struct gargs	 a;
	char		*name;
	size_t		 i;
	int		 r;

	if (argc < 2)
		return out_usage(ctx, "gates: a subcommand expected");
	for (i = 0; i < nitems(subs); i++) {
		if (strcmp(subs[i].name, argv[1]) != 0)
			continue;
		if ((r = parse_args(ctx, argc - 2, argv + 2, &a)) != 0)
			return r;
		return subs[i].run(ctx, &a);
	}
	name = out_name(argv[1]);
	r = out_usage(ctx, "gates: unknown subcommand \"%s\"", name);
	free(name);
	return r;
}
