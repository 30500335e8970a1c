#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# run-warm.sh: every case of run.sh -- the probe's escape suite, stdio,
# signals, a thousand sandboxes and 32 at once -- with "warm 2" in its
# profiles: the monitor starts with a first run of each profile done, so
# the runs the cases check are served by warm sandboxes (those with -w
# start cold, as they must).  Results must be those of run.sh.

SBX_TEST_WARM=2
. "$(atf_get_srcdir)/top/regress/run.sh"
