/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * filter.c: the seccomp filters inside the sandbox, both compiled from
 * privilege files (sbx.priv(5)) so that what an operator audits is what
 * runs:
 *  - the payload's, installed by the payload child as the last step before
 *    execve: shim/command.priv for commands (and the self-test, which
 *    checks what a command gets), shim/provider.priv for node providers;
 *    after it, nothing of the shim runs in that process;
 *  - pid 1's own, shim/shim.priv, applied once the payload runs: from then
 *    on the reaper can wait, forward signals and report, nothing else.
 *
 * The tables are constant, so their programs are too: the launcher
 * compiles them once (shim_filters_init, libseccomp) and every sandbox --
 * a clone of the launcher -- loads the same bytes with seccomp(2), instead
 * of compiling them again in each sandbox.  The programs live in the
 * launcher's own memory, which nothing but the monitor's specs reaches.
 */
#include <sys/prctl.h>

#include <errno.h>

#include "spec.h"
#include "shim.h"

static struct priv_bpf	*bpf_command;
static struct priv_bpf	*bpf_command_ptrace;
static struct priv_bpf	*bpf_provider;
static struct priv_bpf	*bpf_shim;

static int
compile(const struct priv_table *t, struct priv_bpf **bp, char *err,
    size_t errlen)
{
	if (*bp == NULL && (*bp = priv_seccomp_compile(t, err,
	    errlen)) == NULL)
		return -1;
	return 0;
}

/*
 * Once per process; later calls find the programs compiled.  A table that
 * does not compile refuses every sandbox (fail closed), with libseccomp's
 * reason and the file's name in err.
 */
int
shim_filters_init(char *err, size_t errlen)
{
	if (compile(&priv_table_command, &bpf_command, err, errlen) == -1 ||
	    compile(&priv_table_command_ptrace, &bpf_command_ptrace, err,
	    errlen) == -1 ||
	    compile(&priv_table_provider, &bpf_provider, err, errlen) == -1 ||
	    compile(&priv_table_shim, &bpf_shim, err, errlen) == -1)
		return -1;
	return 0;
}

/*
 * class is the spec's; ptrace: the profile said ptrace yes, and a command
 * gets command-ptrace.priv instead (the same table with ptrace allowed;
 * the monitor refused the keyword on kernels before 4.8).
 */
int
shim_payload_filter(int class, int ptrace)
{
	const struct priv_table	*t;
	const struct priv_bpf	*b;
	char			 err[256];

	switch (class) {
	case SBX_CLASS_COMMAND:
		if (ptrace) {
			t = &priv_table_command_ptrace;
			b = bpf_command_ptrace;
			break;
		}
		/* FALLTHROUGH */
	case SBX_CLASS_SELFTEST:
		t = &priv_table_command;
		b = bpf_command;
		break;
	case SBX_CLASS_PROVIDER:
		t = &priv_table_provider;
		b = bpf_provider;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	/* The launcher refuses to spawn before the programs exist; a
	 * payload must never run without its filter. */
	if (b == NULL || !t->no_new_privs) {
		errno = ENOEXEC;
		return -1;
	}
	/* Inherited from pid 1 already; the filter needs it either way. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1UL, 0UL, 0UL, 0UL) == -1)
		return -1;
	if (priv_seccomp_install(b, err, sizeof(err)) == -1) {
		/* The payload child has no channel but its errno. */
		if (errno == 0)
			errno = EPERM;
		return -1;
	}
	return 0;
}

void
shim_reaper_filter(void)
{
	char	 err[256];

	if (bpf_shim == NULL)
		shim_fail(ENOEXEC, "shim.priv: not compiled");
	if (priv_apply_compiled(&priv_table_shim, bpf_shim, err,
	    sizeof(err)) == -1)
		shim_fail(errno != 0 ? errno : EPERM, "shim.priv: %s", err);
}
