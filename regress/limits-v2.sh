#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# limits-v2.sh: memory and pids caps for the whole sandbox by cgroup v2.
# It runs wherever the cgroup2 hierarchy offers the memory and pids
# controllers to its children: as root, it makes a cgroup for this test
# under the hierarchy's root, points the monitor at it (cgroup-root),
# and checks what limits.sh checks for v1 -- children that together
# exceed the memory cap are killed and reported, a fork bomb stops at
# pids and is reported, a timeout kills the cgroup whole, nothing is
# left behind.  Elsewhere (these machines: every controller is bound to
# a v1 hierarchy) each case skips and says exactly why; the v2 code
# paths are tested against a fake tree by unittests/t_launcher_cgroup.

. "$(atf_get_srcdir)/top/regress/limits.subr"

# require_v2: MNT, the cgroup2 mount, or skip with the reason.
require_v2() {
	MNT=$(awk '$0 ~ / - cgroup2 / && $4 == "/" { print $5; exit }' \
	    /proc/self/mountinfo)
	[ -n "$MNT" ] || atf_skip "no cgroup2 file system is mounted"
	have=$(cat "$MNT/cgroup.controllers" 2>/dev/null)
	for c in memory pids; do
		echo " $have " | grep -q " $c " ||
		    atf_skip "cgroup2 at $MNT has no memory/pids controllers (cgroup.controllers: ${have:-empty})"
	done
	on=$(cat "$MNT/cgroup.subtree_control" 2>/dev/null)
	for c in memory pids; do
		echo " $on " | grep -q " $c " ||
		    atf_skip "cgroup2 at $MNT does not enable memory/pids for its children (cgroup.subtree_control: ${on:-empty}); this test does not change the host's"
	done
	[ "$(id -u)" -eq 0 ] ||
	    atf_skip "making a cgroup2 subtree for the test under $MNT needs root"
}

setup() {
	require_v2
	sbx_test_paths
	sbx_test_dir sbxlim2
	BASE=$MNT/sbx-test.$$
	echo "$BASE" > cgbase
	mkdir "$BASE" || atf_fail "mkdir $BASE"
	limits_conf "$D/sbx.conf" "cgroup-root \"$BASE\""
	U=$(id -u nobody)
	SUB=$BASE/sbx.$U
}

# The sandboxes' cgroups ("sbx.PID.N") in the test's subtree.
cgroups() {
	ls "$SUB" 2>/dev/null | grep '^sbx\.' | sort -u
}

cleanup() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	if [ -f cgbase ]; then
		b=$(cat cgbase)
		for d in "$b"/*/sbx.* "$b"/*/supervisor "$b"/sbx.*; do
			[ -d "$d" ] || continue
			echo 1 > "$d/cgroup.kill" 2>/dev/null
			rmdir "$d" 2>/dev/null
		done
		rmdir "$b" 2>/dev/null
	fi
	return 0
}

atf_test_case memory cleanup
memory_head() {
	atf_set "descr" "cgroup v2: status names it; children that together exceed the memory cap are killed by the sandbox's cgroup and the report says so"
}
memory_body() {
	setup
	start_monitor
	atf_check -o match:'limits by cgroup v2$' "$C" -s "$SOCK" status
	# The monitor and its roles live in the subtree's leaf.
	atf_check -o match:"sbx.$U/supervisor\$" \
	    sed -n 's/^0:://p' "/proc/$(cat mon.pid)/cgroup"
	atf_check -s exit:0 -o match:"^[1-9] killed$" \
	    -e match:'"cgroup":"v2"' -e match:'"limit":"memory"' \
	    "$C" -s "$SOCK" --json run -p small -- /usr/bin/python3 \
	    -c "$BOMB"
	atf_check -o match:'the memory limit killed a process' \
	    cat "$D/audit.jsonl"
	stop_monitor
}
memory_cleanup() {
	cleanup
}

atf_test_case pids cleanup
pids_head() {
	atf_set "descr" "cgroup v2: a fork bomb stops at the profile's pids and the report says the pids limit refused a fork"
}
pids_body() {
	setup
	start_monitor
	forkbomb
	atf_check -o match:'"limit":"pids"' -o match:'"cgroup":"v2"' \
	    cat report
	stop_monitor
}
pids_cleanup() {
	cleanup
}

atf_test_case nothing_left cleanup
nothing_left_head() {
	atf_set "descr" "cgroup v2: 100 sandboxes and a timed-out one leave no cgroup behind"
}
nothing_left_body() {
	setup
	start_monitor
	i=0
	while [ $i -lt 100 ]; do
		"$C" -s "$SOCK" run -p small -- /bin/true ||
		    atf_fail "run $i failed"
		i=$((i + 1))
	done
	atf_check -s exit:124 -e match:'"limit":"timeout"' \
	    "$C" -s "$SOCK" --json run -p short -- /bin/sh -c \
	    '/bin/sleep 30 & /bin/sleep 30'
	[ -z "$(cgroups)" ] || { cgroups; atf_fail "cgroups left"; }
	stop_monitor
	[ -z "$(cgroups)" ] ||
	    { cgroups; atf_fail "cgroups left after the service stopped"; }
}
nothing_left_cleanup() {
	cleanup
}

atf_init_test_cases() {
	atf_add_test_case memory
	atf_add_test_case pids
	atf_add_test_case nothing_left
}
