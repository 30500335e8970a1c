/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * priv_lint.c: flag dangerous syscalls a table allows without an argument
 * condition (in the spirit of minijail's seccomp_policy_lint).
 *
 * A finding is either fixed (a condition, a deny rule) or waived on the
 * rule itself with lint-ok "reason", which priv_print() shows, so every
 * exception is visible where the policy is read.  sbx-privgen refuses a
 * file with an unwaived finding, so an unreviewed allow never builds.
 */
#include <sys/mman.h>

#include <stdlib.h>
#include <string.h>

#include "common.h"

#define NOPROT	(-1)

static const struct danger {
	const char	*name;
	const char	*why;
	int		 prot_arg;	/* PROT_EXEC must be ruled out */
} dangers[] = {
	{ "add_key", "adds keys to kernel keyrings", NOPROT },
	{ "bpf", "loads programs into the kernel", NOPROT },
	{ "chroot", "changes the root directory", NOPROT },
	{ "clone", "can create namespaces (CLONE_NEW*)", NOPROT },
	{ "clone3", "its flags sit in memory seccomp cannot read; answer "
	    "ENOSYS so libc falls back to clone", NOPROT },
	{ "delete_module", "unloads kernel modules", NOPROT },
	{ "execve", "runs new code", NOPROT },
	{ "execveat", "runs new code", NOPROT },
	{ "finit_module", "loads kernel modules", NOPROT },
	{ "fsconfig", "changes mounts", NOPROT },
	{ "fsmount", "changes mounts", NOPROT },
	{ "fsopen", "changes mounts", NOPROT },
	{ "fspick", "changes mounts", NOPROT },
	{ "init_module", "loads kernel modules", NOPROT },
	{ "io_uring_enter", "does I/O (even socket creation) the filter "
	    "never sees", NOPROT },
	{ "io_uring_register", "does I/O the filter never sees", NOPROT },
	{ "io_uring_setup", "does I/O the filter never sees; answer ENOSYS "
	    "so libuv falls back", NOPROT },
	{ "ioctl", "device and terminal requests (TIOCSTI injects input)",
	    NOPROT },
	{ "kexec_file_load", "replaces the running kernel", NOPROT },
	{ "kexec_load", "replaces the running kernel", NOPROT },
	{ "keyctl", "manipulates kernel keyrings", NOPROT },
	{ "mmap", "PROT_EXEC maps new code", 2 },
	{ "mount", "changes mounts", NOPROT },
	{ "mount_setattr", "changes mounts", NOPROT },
	{ "move_mount", "changes mounts", NOPROT },
	{ "mprotect", "PROT_EXEC makes memory executable", 2 },
	{ "open_by_handle_at", "opens files by handle, around path checks",
	    NOPROT },
	{ "open_tree", "changes mounts", NOPROT },
	{ "perf_event_open", "kernel attack surface and side channels",
	    NOPROT },
	{ "personality", "can disable ASLR or make data executable", NOPROT },
	{ "pivot_root", "changes the root directory", NOPROT },
	{ "pkey_mprotect", "PROT_EXEC makes memory executable", 2 },
	{ "prctl", "changes process security attributes", NOPROT },
	{ "process_vm_readv", "reads other processes' memory", NOPROT },
	{ "process_vm_writev", "writes other processes' memory", NOPROT },
	{ "ptrace", "controls other processes", NOPROT },
	{ "request_key", "reaches kernel keyrings and upcalls", NOPROT },
	{ "setns", "joins other namespaces", NOPROT },
	{ "socket", "opens new network endpoints", NOPROT },
	{ "umount2", "changes mounts", NOPROT },
	{ "unshare", "creates namespaces", NOPROT },
	{ "userfaultfd", "stalls kernel page faults (exploit primitive)",
	    NOPROT },
};

struct lstate {
	const struct priv_table	*t;
	struct priv_finding	*out;
	size_t			 max;
	size_t			 n;
	unsigned char		*used;	/* per rule: waiver needed */
};

static void	add(struct lstate *, unsigned int, const struct priv_rule *,
		    const char *, ...) SBX_PRINTF(4, 5);

static int
permissive(enum priv_act a)
{
	return a == PRIV_ACT_ALLOW || a == PRIV_ACT_LOG;
}

static void
add(struct lstate *ls, unsigned int line, const struct priv_rule *waiver,
    const char *fmt, ...)
{
	struct priv_finding	*f;
	va_list			 ap;
	size_t			 len;

	if (waiver != NULL)
		ls->used[waiver - ls->t->rules] = 1;
	if (ls->n++ >= ls->max)
		return;
	f = &ls->out[ls->n - 1];
	f->line = line;
	f->waived = waiver != NULL;
	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
	if (waiver != NULL) {
		len = strlen(f->msg);
		snprintf(f->msg + len, sizeof(f->msg) - len,
		    "; waived: \"%s\"", waiver->waiver);
	}
}

static int
names(const struct priv_rule *r, const char *name)
{
	size_t	 i;

	for (i = 0; i < r->nsys; i++)
		if (strcmp(r->sys[i].name, name) == 0)
			return 1;
	return 0;
}

/* An allow rule whose condition on arg rules out PROT_EXEC. */
static int
excludes_exec(const struct priv_rule *r, int arg)
{
	const struct priv_cond	*c;
	size_t			 i, j;

	for (i = 0; i < r->nconds; i++) {
		c = &r->conds[i];
		if ((int)c->arg != arg)
			continue;
		switch (c->op) {
		case PRIV_OP_EQ:
			return (c->vals[0].v & PROT_EXEC) == 0;
		case PRIV_OP_MASKED_EQ:
			return (c->mask.v & PROT_EXEC) &&
			    (c->vals[0].v & PROT_EXEC) == 0;
		case PRIV_OP_IN:
			for (j = 0; j < c->nvals; j++)
				if (c->vals[j].v & PROT_EXEC)
					return 0;
			return 1;
		case PRIV_OP_NE:
			return 0;
		}
	}
	return 0;
}

/*
 * A deny rule that restricts the syscall.  For the PROT_EXEC family it
 * must catch every call with PROT_EXEC set: unconditional, or exactly
 * "argN & PROT_EXEC == PROT_EXEC".
 */
static int
restricts(const struct priv_rule *r, const struct danger *d)
{
	const struct priv_cond	*c;

	if (d->prot_arg == NOPROT || r->nconds == 0)
		return 1;
	if (r->nconds != 1)
		return 0;
	c = &r->conds[0];
	return (int)c->arg == d->prot_arg && c->op == PRIV_OP_MASKED_EQ &&
	    c->mask.v == PROT_EXEC && c->vals[0].v == PROT_EXEC;
}

/* Under "default allow|log" a dangerous syscall needs a deny rule. */
static void
lint_permissive(struct lstate *ls, const struct danger *d)
{
	const struct priv_table	*t = ls->t;
	const struct priv_rule	*r, *waiver = NULL;
	size_t			 i;

	for (i = 0; i < t->nrules; i++) {
		r = &t->rules[i];
		if (!names(r, d->name))
			continue;
		if (!permissive(r->act) && restricts(r, d))
			return;
		if (permissive(r->act) && r->waiver != NULL && waiver == NULL)
			waiver = r;
	}
	add(ls, waiver != NULL ? waiver->line : t->def_line, waiver,
	    "%s is allowed by the default action and no rule restricts "
	    "it (%s)", d->name, d->why);
}

/* Under a denying default, each allow of a dangerous syscall needs a
 * condition (for the PROT_EXEC family: one that rules PROT_EXEC out). */
static void
lint_denying(struct lstate *ls, const struct danger *d)
{
	const struct priv_table	*t = ls->t;
	const struct priv_rule	*r;
	size_t			 i;

	for (i = 0; i < t->nrules; i++) {
		r = &t->rules[i];
		if (!permissive(r->act) || !names(r, d->name))
			continue;
		if (d->prot_arg != NOPROT && !excludes_exec(r, d->prot_arg))
			add(ls, r->line, r->waiver != NULL ? r : NULL,
			    "%s allowed without ruling out PROT_EXEC on "
			    "arg%d (%s)", d->name, d->prot_arg, d->why);
		else if (d->prot_arg == NOPROT && r->nconds == 0)
			add(ls, r->line, r->waiver != NULL ? r : NULL,
			    "%s allowed without an argument condition (%s)",
			    d->name, d->why);
	}
}

size_t
priv_lint(const struct priv_table *t, struct priv_finding *out, size_t max)
{
	struct lstate	 ls;
	size_t		 i;

	memset(&ls, 0, sizeof(ls));
	ls.t = t;
	ls.out = out;
	ls.max = max;
	ls.used = xcalloc(t->nrules + 1, 1);
	for (i = 0; i < nitems(dangers); i++) {
		if (permissive(t->def_act))
			lint_permissive(&ls, &dangers[i]);
		else
			lint_denying(&ls, &dangers[i]);
	}
	/* A waiver nothing needs hides nothing yet will mislead a reader. */
	for (i = 0; i < t->nrules; i++)
		if (t->rules[i].waiver != NULL && !ls.used[i])
			add(&ls, t->rules[i].line, NULL, "lint-ok on a rule "
			    "that needs no waiver");
	free(ls.used);
	return ls.n;
}
