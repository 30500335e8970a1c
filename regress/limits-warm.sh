#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# limits-warm.sh: every case of limits.sh with "warm 2" in its profiles:
# the memory, pids, fsize and timeout caps hold for runs that warm
# sandboxes serve (the deadline starting when the run does), and neither
# warm sandboxes nor a stopped service leave cgroups behind.

SBX_TEST_WARM=2
. "$(atf_get_srcdir)/top/regress/limits.sh"
