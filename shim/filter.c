/*
 * filter.c: the payload's seccomp filter, installed by the payload child
 * as the last step before execve (after it, the filter must allow execve
 * and the dynamic loader's start-up, and nothing else of the shim runs).
 *
 * Placeholder: the privilege-file work compiles shim/command.priv and
 * shim/provider.priv into tables; the integrator replaces this body with
 * the call that loads the table for the class.  Until then no filter is
 * installed and /proc/self/status shows "Seccomp: 0" in the payload.
 */
#include "shim.h"

int
shim_payload_filter(int class)
{
	(void)class;
	return 0;
}
