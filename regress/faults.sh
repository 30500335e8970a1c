#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# faults.sh: what the service does when a part of it dies or stops, under
# load (design.md §1; issue "Hardening": faults).  Each case runs its fault
# FAULT_ROUNDS times (10 by default) against a private monitor with
# bundle providers on and a pool, while several `sbxctl run` and provider
# invokes are in flight:
#
#  - kill -9 of a role (launcher, proxy, provider runner): the monitor
#    logs "lost child" naming the role, tells every waiting client why
#    (error unavailable), exits non-zero, leaves no socket and no process
#    of the service or of any sandbox; started again with the same
#    configuration, as a service manager would, it serves again;
#  - kill -9 of a sandbox's pid 1: that request is reported as killed,
#    the others in flight succeed, the service carries on;
#  - SIGSTOP of a role: requests end with an error naming the role and
#    role-timeout instead of hanging, then the service stops as above.

. "$(atf_get_srcdir)/top/regress/provider-test.subr"

ROUNDS=${FAULT_ROUNDS:-10}
CLOCK=1788393600000

# descendants PID: PID's children, theirs, and so on, from one snapshot
# of the process table (a pgrep per process took a second a round).
descendants() {
	ps -e -o pid=,ppid= | awk -v root="$1" '
	{ kids[$2] = kids[$2] " " $1 }
	END {
		n = 1; q[1] = root
		for (i = 1; i <= n; i++) {
			m = split(kids[q[i]], k, " ")
			for (j = 1; j <= m; j++) { q[++n] = k[j]; print k[j] }
		}
	}'
}

# role PID: the pid of role NAME under the monitor.
role() {
	case $1 in
	provider-runner) pgrep -P "$(cat mon.pid)" -x sbx-provider-ru ;;
	*) pgrep -P "$(cat mon.pid)" -x "sbx-$1" ;;
	esac
}

# gone PID...: 0 once none of them runs (bounded: 10 s), 1 otherwise.  A
# zombie has ended: it only waits for its reaper, which for the children
# of a killed role is init, and a container's init may reap them a
# second or two later.
gone() {
	_i=0
	while [ $_i -lt 100 ]; do
		_alive=
		for _p in "$@"; do
			_st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' \
			    "/proc/$_p/status" 2>/dev/null)
			case $_st in
			''|Z|X) ;;
			*) _alive="$_alive $_p" ;;
			esac
		done
		[ -z "$_alive" ] && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

# setup [CONFIG LINE...]: the example provider allowlisted, a monitor
# with a pool of 2 and a network-proxy profile, the provider loaded ($H).
setup() {
	pt_init
	pt_example ex
	printf '[{"slice":"a","failed":false},{"slice":"b","failed":true}]' \
	    > "$D/recs.json"
	chmod 644 "$D/recs.json"
	PT_POOL=2 pt_start "max-sandboxes 64" "max-sandboxes-per-peer 64" \
	    "max-connections 128" "max-connections-per-peer 128" \
	    'profile "net" {' "network proxy" "}" "$@"
	pt_load "$W/ex"
}

# restart: what a service manager does -- the same binary, the same
# configuration -- and the example provider loaded again ($H).
restart() {
	[ ! -e "$SOCK" ] || atf_fail "socket $SOCK left behind"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	atf_check -s exit:0 -o inline:"served\n" "$C" run -- /bin/echo served
	pt_load "$W/ex"
}

# invoke: one provider invoke of the example, its output checked.
invoke() {
	"$C" provider invoke "$H" --records "$D/recs.json" \
	    --clock-ms "$CLOCK" > "$1" 2>&1 &&
	    grep -q '"pooled":{"events":1,"n":2}' "$1"
}

# load TAG: in the background, RUNNERS long runs (one of them through
# the proxy profile) and a loop of provider invokes; returns when the
# runs' payloads are up.  Every client is bounded by timeout(1), so a
# client that hangs shows as status 124.
load() {
	clients=
	for n in 1 2 3; do
		timeout 60 "$C" run -- /bin/sleep 300 > run$n.out 2>&1 &
		clients="$clients $!"
	done
	timeout 60 "$C" run -p net -- /bin/sleep 300 > run4.out 2>&1 &
	clients="$clients $!"
	# Invokes until one fails (the service went away), at most 200.
	( i=0; while [ $i -lt 200 ] && invoke inv.out; do
		i=$((i + 1)); done; echo "$i" > inv.count ) &
	clients="$clients $!"
	l=$(role launcher)
	i=0
	while [ "$(descendants "$l" | xargs -r ps -o comm= -p |
	    grep -cx sleep)" -lt 4 ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || { cat mon.log run*.out; atf_fail "$1: the runs did not start"; }
		sleep 0.05
	done
}

# kill_role NAME: kill -9 of role NAME, ROUNDS times, under load.
kill_role() {
	setup
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		mon=$(cat mon.pid)
		load "round $r"
		tree="$mon $(descendants "$mon")"
		lpid=$(role launcher)
		victim=$(role "$1")
		[ -n "$victim" ] || atf_fail "no $1 under the monitor"
		kill -9 "$victim"
		gone "$mon" || atf_fail "round $r: monitor still up after $1 died"
		wait "$mon"
		st=$?
		[ $st -ne 0 ] || atf_fail "round $r: monitor exited 0 after losing $1"
		grep -q "lost child: role $1 (pid $victim) killed by signal 9" \
		    mon.log || { cat mon.log; atf_fail "round $r: no lost-child line naming $1"; }
		[ ! -e "$SOCK" ] || atf_fail "round $r: socket left behind"
		# Nothing of the service or of its sandboxes outlives it.
		# shellcheck disable=SC2086
		gone $tree || atf_fail "round $r: processes outlived the monitor: $(ps -o pid,comm -p "$(echo $tree | tr ' ' ,)")"
		for cg in /sys/fs/cgroup/memory /sys/fs/cgroup/pids; do
			for d in "$cg/sbx.$(id -u "$(sbx_monitor_user)")/sbx.$lpid".*; do
				[ -d "$d" ] || continue
				[ ! -s "$d/cgroup.procs" ] ||
				    atf_fail "round $r: processes left in $d"
			done
		done
		# Every client ended, none hung, each run said why.
		for p in $clients; do
			wait "$p"
			[ $? -ne 124 ] || atf_fail "round $r: a client hung"
		done
		for n in 1 2 3 4; do
			grep -q "unavailable: run: role $1 was lost" run$n.out ||
			    { cat run$n.out; atf_fail "round $r: run $n did not say the service stopped"; }
		done
		mv mon.log "mon.log.$r"
		restart
		r=$((r + 1))
	done
	pt_stop
}

atf_test_case kill_launcher cleanup
kill_launcher_head() {
	atf_set "descr" "kill -9 of the launcher under load, 10 times: fail-closed exit, nothing left, a restart serves"
	atf_set "require.progs" "node timeout"
	atf_set "timeout" "600"
}
kill_launcher_body() {
	kill_role launcher
}
kill_launcher_cleanup() {
	pt_cleanup
}

atf_test_case kill_proxy cleanup
kill_proxy_head() {
	atf_set "descr" "kill -9 of the proxy under load, 10 times: fail-closed exit, nothing left, a restart serves"
	atf_set "require.progs" "node timeout"
	atf_set "timeout" "600"
}
kill_proxy_body() {
	kill_role proxy
}
kill_proxy_cleanup() {
	pt_cleanup
}

atf_test_case kill_runner cleanup
kill_runner_head() {
	atf_set "descr" "kill -9 of the provider runner under load, 10 times: fail-closed exit, nothing left, a restart serves"
	atf_set "require.progs" "node timeout"
	atf_set "timeout" "600"
}
kill_runner_body() {
	kill_role provider-runner
}
kill_runner_cleanup() {
	pt_cleanup
}

atf_test_case kill_sandbox cleanup
kill_sandbox_head() {
	atf_set "descr" "kill -9 of a sandbox's pid 1 under load, 10 times: reported as killed, the others succeed"
	atf_set "require.progs" "node timeout"
	atf_set "timeout" "600"
}
kill_sandbox_body() {
	setup
	mon=$(cat mon.pid)
	roles="$(role launcher) $(role proxy) $(role provider-runner)"
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		# The victim, and beside it runs that succeed and invokes.
		timeout 60 "$C" run -- /bin/sleep 300 > victim.out 2>&1 &
		vc=$!
		others=
		for n in 1 2 3; do
			timeout 60 "$C" run -- /bin/sh -c \
			    'sleep 1; echo ok' > ok$n.out 2>&1 &
			others="$others $!"
		done
		timeout 60 "$C" run -p net -- /bin/sh -c \
		    'sleep 1; echo ok' > ok4.out 2>&1 &
		others="$others $!"
		( invoke inv1.out && invoke inv2.out ) &
		inv=$!
		i=0
		while :; do
			pay=$(descendants "$(role launcher)" | xargs -r ps -o pid=,args= -p |
			    awk '$2 == "/bin/sleep" && $3 == "300" { print $1 }')
			[ -n "$pay" ] && break
			i=$((i + 1))
			[ $i -lt 200 ] || atf_fail "round $r: the victim did not start"
			sleep 0.05
		done
		pid1=$(ps -o ppid= -p "$pay" | tr -d ' ')
		kill -9 "$pid1"
		wait "$vc"
		st=$?
		[ $st -eq 137 ] ||
		    { cat victim.out; atf_fail "round $r: victim's run exited $st, not 137 (killed)"; }
		grep -q 'sandbox killed' victim.out ||
		    { cat victim.out; atf_fail "round $r: not reported as killed"; }
		gone "$pay" || atf_fail "round $r: the victim's payload outlived its pid 1"
		for p in $others; do
			wait "$p" ||
			    { cat ok*.out; atf_fail "round $r: a concurrent run failed"; }
		done
		for n in 1 2 3 4; do
			atf_check -o inline:"ok\n" cat ok$n.out
		done
		wait "$inv" || { cat inv*.out; atf_fail "round $r: a concurrent invoke failed"; }
		r=$((r + 1))
	done
	# The service is the same one, with the same roles.
	kill -0 "$mon" || atf_fail "the monitor died"
	atf_check -o inline:"$roles\n" echo "$(role launcher) $(role proxy) $(role provider-runner)"
	atf_check -o match:'"event":"exit".*killed' cat "$D/audit.jsonl"
	pt_stop
}
kill_sandbox_cleanup() {
	pt_cleanup
}

atf_test_case stop_role cleanup
stop_role_head() {
	atf_set "descr" "SIGSTOP of each role: requests end with an error naming the role and role-timeout, no client hangs, the service stops and restarts"
	atf_set "require.progs" "node timeout"
	atf_set "timeout" "600"
}
stop_role_body() {
	setup "role-timeout 1000"
	for rl in launcher proxy provider-runner; do
		mon=$(cat mon.pid)
		# A sandbox in flight when the role stops.
		timeout 60 "$C" run -- /bin/sleep 300 > inflight.out 2>&1 &
		fl=$!
		i=0
		until descendants "$(role launcher)" | xargs -r ps -o args= -p |
		    grep -qx '/bin/sleep 300'; do
			i=$((i + 1))
			[ $i -lt 200 ] || atf_fail "$rl: the run did not start"
			sleep 0.05
		done
		tree="$mon $(descendants "$mon")"
		victim=$(role "$rl")
		kill -STOP "$victim"
		# A new request that needs the stopped role, where there is one.
		case $rl in
		launcher)
			timeout 60 "$C" run -- /bin/true > new.out 2>&1 ;;
		provider-runner)
			timeout 60 "$C" provider invoke "$H" --records \
			    "$D/recs.json" --clock-ms "$CLOCK" > new.out 2>&1 ;;
		proxy)
			timeout 60 "$C" run -p net -- /bin/sh -c 'sleep 300' \
			    > new.out 2>&1 ;;
		esac
		st=$?
		[ $st -ne 124 ] || atf_fail "$rl: the new request hung"
		[ $st -ne 0 ] || { cat new.out; atf_fail "$rl: the new request succeeded"; }
		atf_check -o match:"unavailable: .*role $rl did not answer within role-timeout 1000 ms" \
		    cat new.out
		wait "$fl"
		st=$?
		[ $st -ne 124 ] || atf_fail "$rl: the run in flight hung"
		atf_check -o match:"unavailable: run: role $rl did not answer within role-timeout 1000 ms" \
		    cat inflight.out
		gone "$mon" || atf_fail "$rl: monitor still up"
		wait "$mon"
		[ $? -eq 1 ] || atf_fail "$rl: monitor did not exit 1"
		atf_check -o match:"lost child: role $rl \\(pid $victim\\) did not answer for [0-9]+ ms \\(role-timeout 1000 ms\\)" \
		    cat mon.log
		# shellcheck disable=SC2086
		gone $tree || atf_fail "$rl: processes outlived the monitor"
		mv mon.log "mon.log.$rl"
		restart
	done
	pt_stop
}
stop_role_cleanup() {
	pt_cleanup
}

atf_init_test_cases() {
	atf_add_test_case kill_launcher
	atf_add_test_case kill_proxy
	atf_add_test_case kill_runner
	atf_add_test_case kill_sandbox
	atf_add_test_case stop_role
}
