/*
 * filter.c: the seccomp filters inside the sandbox, both compiled from
 * privilege files (sbx.priv(5)) so that what an operator audits is what
 * runs:
 *  - the payload's, installed by the payload child as the last step before
 *    execve: shim/command.priv for commands, shim/provider.priv for node
 *    providers (after it, nothing of the shim runs in that process);
 *  - pid 1's own, shim/shim.priv, applied once the payload runs: from then
 *    on the reaper can wait, forward signals and report, nothing else.
 */
#include <errno.h>

#include "shim.h"

int
shim_payload_filter(int class)
{
	const struct priv_table	*t;
	char			 err[256];

	switch (class) {
	case SBX_CLASS_COMMAND:
	case SBX_CLASS_SELFTEST:
		t = &priv_table_command;
		break;
	case SBX_CLASS_PROVIDER:
		t = &priv_table_provider;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	if (priv_apply_seccomp(t, err, sizeof(err)) == -1) {
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

	if (priv_apply(&priv_table_shim, err, sizeof(err)) == -1)
		shim_fail(errno != 0 ? errno : EPERM, "shim.priv: %s", err);
}
