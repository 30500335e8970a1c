#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# identity-warm.sh: every case of identity.sh with "warm 2" in its
# profiles: the caller's first run of each profile is done when the
# monitor has started, so its later runs without a workdir are served by
# warm sandboxes, which must run as exactly the host ids a cold one would
# (caller, sandbox-user, a fresh range id) and read exactly what it could.

SBX_TEST_WARM=2
. "$(atf_get_srcdir)/top/regress/identity.sh"
