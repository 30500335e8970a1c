#! /usr/bin/env atf-sh
#
# tenants.sh: sbx as a shared service, played as a hostile but allowed
# tenant.  Each case tries one way a caller could gain rights on the
# host, starve the service or reach another caller, and fails if it
# works.  As root the monitor drops to "nobody" and the tenants are the
# unprivileged users "sbxtest" (scripts/check creates it) and root; as
# an unprivileged user the cases that need a second user skip and say so.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

# ---- set-id bits and ids inside (setid_*, ids_*) ----

# ---- the launcher's split and its refusals (launcher_*) ----

# ---- bounded connections (flood_*) ----

# ---- passed descriptors, the socket, provider loads (fd_*, socket_*, load_*) ----

# ---- what a peer sees; the example configuration (status_*, example_*) ----

atf_init_test_cases() {
	# set-id and ids
	:
	# launcher
	:
	# floods
	:
	# descriptors, socket, loads
	:
	# status, example
	:
}
