/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * capdrop.c: drop every capability before the payload exists.
 *
 * The shim holds a few capabilities in the sandbox's user namespace (see
 * launcher/spawn.c).  All of them go, from every set, and the securebits
 * are locked so that no later exec -- not even of a file mapped to uid 0,
 * were one visible -- can bring any back.  A small direct implementation:
 * four prctl/capset calls do not justify linking libcap into pid 1.
 */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <linux/capability.h>
#include <linux/securebits.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

#define CAP_PROBE_MAX	64	/* the kernel's cap_last_cap is below */

void
shim_drop_caps(void)
{
	struct __user_cap_header_struct	 hdr;
	struct __user_cap_data_struct	 data[2];
	unsigned long			 bits;
	int				 cap, r;

	bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
	    SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
	    SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
	    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
	if (prctl(PR_SET_SECUREBITS, bits, 0UL, 0UL, 0UL) == -1)
		shim_fail(errno, "prctl PR_SET_SECUREBITS");

	for (cap = 0; cap < CAP_PROBE_MAX; cap++) {
		if (prctl(PR_CAPBSET_DROP, (unsigned long)cap, 0UL, 0UL,
		    0UL) == 0)
			continue;
		if (errno == EINVAL)	/* past cap_last_cap */
			break;
		shim_fail(errno, "drop bounding capability %d", cap);
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0UL, 0UL,
	    0UL) == -1)
		shim_fail(errno, "clear ambient capabilities");

	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capset, &hdr, data) == -1)
		shim_fail(errno, "capset");

	/* Trust, then verify: fail closed if anything is left. */
	memset(&hdr, 0, sizeof(hdr));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &hdr, data) == -1)
		shim_fail(errno, "capget");
	if (data[0].effective | data[0].permitted | data[0].inheritable |
	    data[1].effective | data[1].permitted | data[1].inheritable)
		shim_fail(EPERM, "capabilities remain after capset");
	for (cap = 0; cap < CAP_PROBE_MAX; cap++) {
		r = prctl(PR_CAPBSET_READ, (unsigned long)cap, 0UL, 0UL, 0UL);
		if (r == -1 && errno == EINVAL)
			break;
		if (r != 0)
			shim_fail(EPERM, "bounding capability %d remains", cap);
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET,
		    (unsigned long)cap, 0UL, 0UL) != 0)
			shim_fail(EPERM, "ambient capability %d remains", cap);
	}
}
