#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# limits.sh: memory and pids caps for the whole sandbox.  As root on a
# host with the cgroup v1 memory and pids hierarchies, each sandbox is
# one cgroup: children that together exceed the memory cap are killed and
# the exit report says so; a fork bomb stops at pids; no cgroup is left
# after many sandboxes, or after the service stops.  As a user (no
# cgroups to be had) the caps are rlimits, and status and the exit
# report say that instead.

. "$(atf_get_srcdir)/top/regress/limits.subr"

setup() {
	sbx_test_paths
	sbx_test_dir sbxlim
	limits_conf "$D/sbx.conf" 'profile "files" {' '	ro "/usr"' \
	    '	tmpfs "/tmp" size 8M' '	fsize 1M' "$(sbx_warm_line)" '}'
	U=$(id -u nobody)
	[ "$(id -u)" -eq 0 ] || U=$(id -u)
	CG=
	[ "$(id -u)" -eq 0 ] && [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ] &&
	    [ -d /sys/fs/cgroup/pids ] && CG=1
}

# cgroups: the sandboxes' cgroups of this test's launcher ("sbx.PID.N";
# other services of the same user have their own).
cgroups() {
	ls /sys/fs/cgroup/memory/sbx.$U /sys/fs/cgroup/pids/sbx.$U 2>/dev/null |
	    grep "^sbx\.$LPID\." | sort -u
}

# with LINE: sbx.conf as setup made it (kept as base.conf) and LINE.
with() {
	[ -f "$D/base.conf" ] || cp "$D/sbx.conf" "$D/base.conf"
	{ cat "$D/base.conf"; echo "$1"; } > "$D/sbx.conf"
}

cleanup() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case memory cleanup
memory_head() {
	atf_set "descr" "children that together exceed the memory cap: killed by the sandbox's cgroup and reported (as root); per process by RLIMIT_AS otherwise, and said"
}
memory_body() {
	setup
	start_monitor
	if [ -n "$CG" ]; then
		# Before any sandbox: what the service laid out.
		atf_check -o match:'limits by cgroup v1$' "$C" -s "$SOCK" status
		atf_check -s exit:0 -o match:"^[1-9] killed$" \
		    -e match:'"limits":"cgroup"' -e match:'"cgroup":"v1"' \
		    -e match:'"limit":"memory"' \
		    "$C" -s "$SOCK" --json run -p small -- /usr/bin/python3 \
		    -c "$BOMB"
		atf_check -o match:'the memory limit killed a process' \
		    cat "$D/audit.jsonl"
		atf_check -o match:'limits by cgroup v1$' "$C" -s "$SOCK" status
	else
		# Each child alone fits under RLIMIT_AS: none is killed,
		# and the report says the caps were rlimits.
		atf_check -s exit:0 -o match:"^0 killed$" \
		    -e match:'"limits":"rlimit"' -e not-match:'"limit":' \
		    "$C" -s "$SOCK" --json run -p small -- /usr/bin/python3 \
		    -c "$BOMB"
		atf_check -o match:'limits by rlimit$' "$C" -s "$SOCK" status
	fi
	sbx_warm_served "$D/audit.jsonl" "profile small.*: /usr/bin/python3"
	stop_monitor
}
memory_cleanup() {
	cleanup
}

atf_test_case pids cleanup
pids_head() {
	atf_set "descr" "a fork bomb stops at the profile's pids; with cgroups the exit report says the pids limit refused a fork"
}
pids_body() {
	setup
	start_monitor
	forkbomb
	if [ -n "$CG" ]; then
		atf_check -o match:'"limit":"pids"' -o match:'"cgroup":"v1"' \
		    cat report
		atf_check -o match:'the pids limit refused a fork' \
		    cat "$D/audit.jsonl"
	else
		# RLIMIT_NPROC's EAGAIN is the payload's business only.
		atf_check -o match:'"limits":"rlimit"' \
		    -o not-match:'"limit":' cat report
	fi
	sbx_warm_served "$D/audit.jsonl" "profile small.*: /bin/sh"
	stop_monitor
}

atf_test_case timeout cleanup
timeout_head() {
	atf_set "descr" "a payload past the profile's timeout is killed, and the exit report says the timeout ended it"
}
timeout_body() {
	setup
	start_monitor
	atf_check -s exit:124 -e match:'"reason":"timeout"' \
	    -e match:'"limit":"timeout"' \
	    "$C" -s "$SOCK" --json run -p short -- /bin/sleep 30
	atf_check -o match:'timed out' cat "$D/audit.jsonl"
	sbx_warm_served "$D/audit.jsonl" "profile short.*: /bin/sleep"
	stop_monitor
}
timeout_cleanup() {
	cleanup
}

atf_test_case fsize cleanup
fsize_head() {
	atf_set "descr" "a payload writing a file past the profile's fsize is killed by SIGXFSZ, and the exit report says the fsize limit ended it"
}
fsize_body() {
	setup
	start_monitor
	atf_check -s exit:153 -e match:'"reason":"limit"' \
	    -e match:'"signal":25' -e match:'"limit":"fsize"' \
	    "$C" -s "$SOCK" --json run -p files -- /usr/bin/dd \
	    if=/dev/zero of=/tmp/big bs=64k count=64
	atf_check -o match:'a file reached the fsize limit' \
	    cat "$D/audit.jsonl"
	# Under the limit: no limit named.
	atf_check -s exit:0 -e not-match:'"limit":' \
	    "$C" -s "$SOCK" --json run -p files -- /usr/bin/dd \
	    if=/dev/zero of=/tmp/small bs=64k count=8
	stop_monitor
}
fsize_cleanup() {
	cleanup
}
pids_cleanup() {
	cleanup
}

atf_test_case nothing_left cleanup
nothing_left_head() {
	atf_set "descr" "1,000 sandboxes (200 without cgroups) leave no cgroup of theirs behind, and a stopped service leaves none at all"
}
nothing_left_body() {
	setup
	start_monitor
	LPID=$(pgrep -P "$(cat mon.pid)" -x sbx-launcher)
	[ -n "$LPID" ] || atf_fail "no sbx-launcher under the monitor"
	# The issue's count where there are cgroups to leave (about 20 s
	# on two loaded cores); without them only the runs are checked.
	N=200
	[ -n "$CG" ] && N=1000
	i=0
	while [ $i -lt $N ]; do
		"$C" -s "$SOCK" run -p small -- /bin/true ||
		    atf_fail "run $i failed"
		i=$((i + 1))
	done
	if [ -n "$CG" ]; then
		# At most the launcher's one spare pair, made ahead, and
		# the warm sandboxes' own (limits-warm.sh); ended sandboxes'
		# go when the launcher is idle (a busy memory cgroup a moment
		# later).
		max=$((1 + $(warm_count)))
		i=0
		while [ "$(cgroups | wc -l)" -gt $max ] && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		n=$(cgroups | wc -l)
		[ "$n" -le $max ] || { cgroups; atf_fail "$n cgroups left"; }
	fi
	stop_monitor
	if [ -n "$CG" ]; then
		[ -z "$(cgroups)" ] || { cgroups; atf_fail "cgroups left after the service stopped"; }
	fi
}
nothing_left_cleanup() {
	cleanup
}

atf_test_case cgroup_root_refused cleanup
cgroup_root_refused_head() {
	atf_set "descr" "a configured cgroup-root that cannot be used stops the monitor at start, naming what is missing (fail closed, no fallback to rlimits)"
}
cgroup_root_refused_body() {
	setup
	with "cgroup-root \"$D\""
	atf_check -s exit:1 -o ignore \
	    -e match:"cgroup-root: cgroup $D: not a cgroup v2 directory" \
	    "$M" -d -f "$D/sbx.conf"
	# The host's cgroup2 mount, where there is one without memory and
	# pids (these machines): refused, naming the controllers.
	MNT=$(awk '$0 ~ / - cgroup2 / && $4 == "/" { print $5; exit }' \
	    /proc/self/mountinfo)
	[ -n "$MNT" ] || return 0
	have=$(cat "$MNT/cgroup.controllers")
	miss=
	for c in memory pids; do
		echo " $have " | grep -q " $c " || miss="$miss${miss:+ }$c"
	done
	[ -n "$miss" ] || return 0
	with "cgroup-root \"$MNT\""
	atf_check -s exit:1 -o ignore \
	    -e match:"cgroup $MNT: controllers not available \(cgroup.controllers lacks\): $miss" \
	    "$M" -d -f "$D/sbx.conf"
	[ -z "$(ls "$MNT" | grep '^sbx\.')" ] ||
	    atf_fail "a refused cgroup-root left a subtree in $MNT"
}
cgroup_root_refused_cleanup() {
	cleanup
}

atf_test_case favordynmods cleanup
favordynmods_head() {
	atf_set "descr" "cgroup-favordynmods yes: as root on cgroup v1 the monitor holds a favordynmods hierarchy no mount table shows, status says so, sandboxes still get their cgroups, two services share it and a restart right after a stop starts; as a user it says there is nothing to do; a value other than yes or no is refused"
}
favordynmods_body() {
	setup
	with "cgroup-favordynmods maybe"
	atf_check -s exit:1 -o empty \
	    -e match:'cgroup-favordynmods: "maybe" is not yes or no' \
	    "$M" -n -f "$D/sbx.conf"
	with "cgroup-favordynmods yes"
	start_monitor
	if [ -z "$CG" ]; then
		atf_check -o not-match:favordynmods -o match:"limits by rlimit" \
		    "$C" -s "$SOCK" status
		atf_check -o match:"cgroup-favordynmods: nothing to do" cat mon.log
		return 0
	fi
	atf_check -o match:"limits by cgroup v1, favordynmods\$" \
	    "$C" -s "$SOCK" status
	atf_check -o match:'"favordynmods":true' "$C" -s "$SOCK" --json status
	atf_check -o match:"cgroups: favordynmods held" cat mon.log
	# Never attached: neither the host's nor the monitor's mount table
	# has it.
	mpid=$(cat mon.pid)
	atf_check -s exit:1 grep -q sbx.favordynmods /proc/self/mountinfo \
	    "/proc/$mpid/mountinfo"
	# A sandbox still lands in its own cgroups: the cap on all of its
	# processes together holds (RLIMIT_AS would kill none of them).
	atf_check -s exit:0 -o match:"^[1-9] killed\$" \
	    -e match:"^sbxctl: limit memory: " \
	    "$C" -s "$SOCK" run -p small -- /usr/bin/python3 -c "$BOMB"
	# A second service asks for the same hierarchy and shares it.
	S2=$D/run2/sbx.sock
	sed "s|$SOCK|$S2|" "$D/sbx.conf" > "$D/sbx2.conf"
	sbx_monitor_start "$M" "$C" "$D/sbx2.conf" "$S2" mon2.log ||
	    atf_fail "a second service with cgroup-favordynmods: $(cat mon2.log)"
	echo "$sbx_monitor_pid" > mon2.pid
	atf_check -o match:"favordynmods\$" "$C" -s "$S2" status
	kill -TERM "$(cat mon2.pid)"
	stop_monitor
	# Restarts right after a stop, while the old hierarchy is still
	# dying: a restarted FSCONFIG_CMD_CREATE failed with EBUSY on every
	# other one; each starts now.
	for i in 1 2 3; do
		start_monitor
		atf_check -o match:"favordynmods\$" "$C" -s "$SOCK" status
		stop_monitor
	done
}
favordynmods_cleanup() {
	[ -f mon2.pid ] && kill -9 "$(cat mon2.pid)" 2>/dev/null
	cleanup
}

atf_init_test_cases() {
	atf_add_test_case cgroup_root_refused
	atf_add_test_case favordynmods
	atf_add_test_case memory
	atf_add_test_case pids
	atf_add_test_case timeout
	atf_add_test_case fsize
	atf_add_test_case nothing_left
}
