/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * caps.c: the two capabilities a service started as root passes to its
 * launcher, and nothing else to anyone.
 *
 * A sandbox runs on the host as the peer that asked for it (identity
 * caller) or as a fresh id of sandbox-uid-range (identity range).  Writing
 * a child user namespace's uid_map/gid_map onto a host id other than the
 * writer's own needs CAP_SETUID/CAP_SETGID in the initial namespace
 * (user_namespaces(7)), so the launcher -- which runs as the service user
 * like every role -- keeps exactly those two:
 *
 *	caps_keep()		before setresuid(): keep the permitted set
 *				across the switch (PR_SET_KEEPCAPS), then
 *				trim it to SETUID, SETGID and SETPCAP, none
 *				effective in the monitor;
 *	caps_launcher_child()	in the launcher's fork child, just before
 *				execveat(): shrink the bounding set to
 *				SETUID, SETGID and SETPCAP and raise the
 *				three as ambient, the only way a non-root
 *				exec keeps a capability without file
 *				capabilities; the launcher splits at once
 *				and only its mapper keeps SETUID and SETGID
 *				(launcher/split.c);
 *	caps_role_child()	every other role: nothing;
 *	caps_drop()		once the roles run: the monitor holds none,
 *				and cannot regain root.
 */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <linux/capability.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "monitor.h"

#define BIT(c)		(1U << (c))

static int	 kept;		/* the monitor still holds them */
static int	 granted;	/* the launcher was given them */

static int
capset3(uint32_t eff, uint32_t perm, uint32_t inh)
{
	struct __user_cap_header_struct	 hdr;
	struct __user_cap_data_struct	 data[2];

	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	data[0].effective = eff;
	data[0].permitted = perm;
	data[0].inheritable = inh;
	return (int)syscall(SYS_capset, &hdr, data);
}

/* Sandboxes may run as other host users (identity caller, range). */
int
caps_granted(void)
{
	return granted;
}

/* As root, before the switch to the service user. */
void
caps_keep(void)
{
	if (prctl(PR_SET_KEEPCAPS, 1UL, 0UL, 0UL, 0UL) == -1)
		fatal("prctl PR_SET_KEEPCAPS");
	kept = granted = 1;
}

/* After setresuid(): permitted SETUID, SETGID, SETPCAP; none effective. */
void
caps_trim(void)
{
	if (!kept)
		return;
	if (capset3(0, BIT(CAP_SETUID) | BIT(CAP_SETGID) | BIT(CAP_SETPCAP),
	    0) == -1)
		fatal("capset: keeping CAP_SETUID, CAP_SETGID for the launcher");
	if (prctl(PR_SET_KEEPCAPS, 0UL, 0UL, 0UL, 0UL) == -1)
		fatal("prctl PR_SET_KEEPCAPS");
}

/*
 * In the launcher's fork child.  Failures exit the child: the monitor
 * sees the role die during start-up and refuses to serve (fail closed).
 */
void
caps_launcher_child(void)
{
	unsigned long	 c;
	int		 last;

	if (!kept)
		return;
	if (capset3(BIT(CAP_SETPCAP), BIT(CAP_SETUID) | BIT(CAP_SETGID) |
	    BIT(CAP_SETPCAP), BIT(CAP_SETUID) | BIT(CAP_SETGID)) == -1)
		_exit(127);
	/* /proc/sys/kernel/cap_last_cap without a file: probe the set. */
	for (last = 0; last < 64; last++)
		if (prctl(PR_CAPBSET_READ, (unsigned long)last + 1, 0UL, 0UL,
		    0UL) == -1)
			break;
	for (c = 0; c <= (unsigned long)last; c++) {
		if (c == CAP_SETUID || c == CAP_SETGID || c == CAP_SETPCAP)
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0UL, 0UL, 0UL) == -1)
			_exit(127);
	}
	/*
	 * SETPCAP too, for the launcher's own start-up only: its front and
	 * spawner drop SETUID and SETGID from their bounding sets with it,
	 * its mapper keeps those two alone, and all of them drop SETPCAP
	 * before they read anything (launcher/split.c).
	 */
	if (capset3(0, BIT(CAP_SETUID) | BIT(CAP_SETGID) | BIT(CAP_SETPCAP),
	    BIT(CAP_SETUID) | BIT(CAP_SETGID) | BIT(CAP_SETPCAP)) == -1 ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SETUID, 0UL,
	    0UL) == -1 ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SETGID, 0UL,
	    0UL) == -1 ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SETPCAP, 0UL,
	    0UL) == -1)
		_exit(127);
}

/* Every other role's fork child: a non-root exec would clear the sets
 * anyway; cleared here so that no role holds one even until its exec. */
void
caps_role_child(void)
{
	if (kept && capset3(0, 0, 0) == -1)
		_exit(127);
}

/* Once every role started: nothing left in the monitor. */
void
caps_drop(void)
{
	if (!kept)
		return;
	if (capset3(0, 0, 0) == -1)
		fatal("capset: dropping every capability");
	kept = 0;
	if (setuid(0) != -1 || seteuid(0) != -1)
		fatalx("could regain root after dropping every capability");
}
