#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# warm.sh: warm command sandboxes (sbx.conf(5) "warm N") through a real
# monitor.  A caller's first run of a warm profile builds N sandboxes of
# it for that caller; each later run without a workdir, overlay or pty
# takes one, which serves that one run and no other, and is never another
# caller's.  What a payload sees is what it sees in a cold sandbox; the
# run's deadline starts when the run does; idle ones go after warm-idle,
# on a reload and when the service stops; they yield their places to
# runs.  (run-warm.sh, identity-warm.sh and limits-warm.sh run the whole
# of run.sh, identity.sh and limits.sh with warm sandboxes.)  Runs as
# root and as an unprivileged user.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

# setup LINE...: D, SOCK, a config with profiles "w" (warm 2) and "c"
# (the same, cold), each with a workdir, and the lines given.
setup() {
	sbx_test_paths
	sbx_test_dir sbxwarm
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "log-file \"$D/audit.jsonl\""
		for l in "$@"; do
			echo "$l"
		done
		for p in w c; do
			echo "profile \"$p\" {"
			echo "	ro \"/usr\""
			echo "	workdir \"/work\""
			echo "	tmpfs \"/tmp\" size 16M"
			echo "	timeout ${TMO:-120}"
			echo "	env \"HOME\""
			[ $p = w ] && echo "	warm 2"
			echo "}"
		done
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
}

start_monitor() {
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
}

stop_monitor() {
	kill -TERM "$(cat mon.pid)"
	wait "$(cat mon.pid)" || { cat mon.log; atf_fail "monitor exit"; }
}

cleanup() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

# warm_n [SBXCTL]: warm sandboxes status counts built and waiting (as
# root: everyone's).
warm_n() {
	"${1:-$C}" -s "$SOCK" --json status |
	    sed -n 's/.*"warm":{"idle":\([0-9]*\),.*/\1/p'
}

# wait_warm N: until status counts N built and none being built, for up
# to 10 s.
wait_warm() {
	sbx_warm_wait "$1" "$C" "$SOCK"
}

# warm_pids: pid 1 of every warm sandbox built so far (audit "warm").
warm_pids() {
	sed -n 's/.*"event":"warm".*"sandbox [0-9]* pid \([0-9]*\): .*/\1/p' \
	    "$D/audit.jsonl"
}

# all_gone PIDS: none of them is alive within 5 s.
all_gone() {
	for p in "$@"; do
		i=0
		while kill -0 "$p" 2>/dev/null; do
			i=$((i + 1))
			[ $i -le 50 ] || atf_fail "warm sandbox pid $p lives on"
			sleep 0.1
		done
	done
}

# served: how many runs warm sandboxes served so far.
served() {
	grep -c '"event":"spawn".*: warm, ' "$D/audit.jsonl"
}

# What a payload sees of itself, its sandbox and its limits.  Of /proc,
# the entries that are not processes: how many processes a listing shows
# depends on whether the pipeline's next command has started yet.
LOOK='id; hostname; cat /etc/passwd; ls / /dev /tmp; echo "$PATH $HOME";
grep -E "^(Cap|NoNewPrivs|Seccomp|Uid|Gid|Groups)" /proc/self/status;
ulimit -a; cat /proc/self/uid_map /proc/self/gid_map;
ls /proc | grep -v "^[0-9]*\$"; ls -d /proc/1;
readlink /proc/self/ns/user /proc/1/exe 2>&1 | sed "s/[0-9]//g"'

atf_test_case served_once cleanup
served_once_head() {
	atf_set "descr" "after a caller's first run of a warm 2 profile two warm sandboxes wait; each later run takes one, which serves that run only (never a second), is replaced, and shows the payload exactly what a cold sandbox of the same profile shows"
}
served_once_body() {
	setup
	start_monitor
	atf_check -o not-match:'^warm sandboxes' "$C" -s "$SOCK" status
	atf_check -o empty "$C" -s "$SOCK" run -p w -- /usr/bin/true
	wait_warm 2
	atf_check -o match:'^warm sandboxes 2, built and waiting for a run$' \
	    "$C" -s "$SOCK" status
	atf_check -o match:'"event":"spawn".*: cold \(none was built and waiting\), profile w' \
	    cat "$D/audit.jsonl"
	# The same commands, cold and warm: the same view, byte for byte.
	atf_check -s exit:0 -o save:cold.out -e empty \
	    "$C" -s "$SOCK" run -p c -- /bin/sh -c "$LOOK"
	i=0
	while [ $i -lt 6 ]; do
		atf_check -s exit:0 -o save:warm.out -e empty \
		    "$C" -s "$SOCK" run -p w -- /bin/sh -c "$LOOK"
		sed 's/^w$/c/' warm.out | cmp -s - cold.out || {
			diff cold.out warm.out
			atf_fail "a warm sandbox showed something else"
		}
		i=$((i + 1))
	done
	# Exit statuses and stdio pass through a warm one too.
	atf_check -s exit:7 -o inline:'in\n' -e inline:'err\n' \
	    "$C" -s "$SOCK" run -p w -- /bin/sh -c 'cat; echo err >&2; exit 7' \
	    <<EOF2
in
EOF2
	[ "$(served)" -eq 7 ] || atf_fail "$(served) of 7 runs served warm"
	# Each warm sandbox served one run: no sandbox number twice.
	sed -n 's/.*"event":"spawn".*"sandbox \([0-9]*\) pid \([0-9]*\): warm, .*/\1 \2/p' \
	    "$D/audit.jsonl" > took
	[ "$(wc -l < took)" -eq 7 ] || { cat took; atf_fail "took"; }
	[ "$(cut -d' ' -f1 took | sort -u | wc -l)" -eq 7 ] ||
	    { cat took; atf_fail "a warm sandbox served two runs"; }
	[ "$(cut -d' ' -f2 took | sort -u | wc -l)" -eq 7 ] ||
	    { cat took; atf_fail "a warm pid 1 served two runs"; }
	# Each of them had been built as a warm one first.
	for p in $(cut -d' ' -f2 took); do
		warm_pids | grep -qx "$p" || atf_fail "pid $p was not warm"
	done
	wait_warm 2
	stop_monitor
	all_gone $(warm_pids)
}
served_once_cleanup() {
	cleanup
}

atf_test_case own_caller_only cleanup
own_caller_only_head() {
	atf_set "descr" "warm sandboxes are their caller's: another caller's first run starts cold even with warm sandboxes waiting, builds its own, and status shows each peer its own"
}
own_caller_only_body() {
	[ "$(id -u)" -eq 0 ] ||
	    atf_skip "needs root: a user's service has one caller, itself"
	id sbxtest > /dev/null 2>&1 || atf_fail "user sbxtest is missing"
	setup 'allow uid "sbxtest"'
	start_monitor
	chmod 711 "$D/run"
	chmod 666 "$SOCK"
	cp "$C" "$D/sbxctl"
	chmod 755 "$D/sbxctl"
	CU="runuser -u sbxtest -- $D/sbxctl"
	atf_check "$C" -s "$SOCK" run -p w -- /usr/bin/true
	wait_warm 2
	# sbxtest: root's two wait, yet its first run is cold.
	atf_check -o inline:'first\n' $CU -s "$SOCK" run -p w -- /bin/echo first
	u=$(id -u sbxtest)
	atf_check -o match:"\"uid\":$u,.*cold \(none was built and waiting\), profile w.*: /bin/echo" \
	    cat "$D/audit.jsonl"
	wait_warm 4
	atf_check -o match:'^warm sandboxes 2 \(yours\)' \
	    $CU -s "$SOCK" status
	atf_check -o inline:'second\n' $CU -s "$SOCK" run -p w -- /bin/echo second
	atf_check -o match:"\"uid\":$u,.*: warm, profile w.*: /bin/echo" \
	    cat "$D/audit.jsonl"
	# No run of one served by a sandbox built for the other.
	sed -n 's/.*"event":"warm","uid":\([0-9]*\),.*"sandbox \([0-9]*\) pid.*/\2 \1/p' \
	    "$D/audit.jsonl" | sort > built
	sed -n 's/.*"event":"spawn","uid":\([0-9]*\),.*"sandbox \([0-9]*\) pid [0-9]*: warm, .*/\2 \1/p' \
	    "$D/audit.jsonl" | sort > took
	[ -s took ] || atf_fail "no warm run"
	join took built | awk '$2 != $3 { bad = 1; print } END { exit bad }' ||
	    atf_fail "a warm sandbox served another caller"
	stop_monitor
}
own_caller_only_cleanup() {
	cleanup
}

atf_test_case cold_when_shaped cleanup
cold_when_shaped_head() {
	atf_set "descr" "a run with a workdir starts cold even with warm sandboxes waiting (its set-up depends on the run), and the audit log says why; the warm ones stay"
}
cold_when_shaped_body() {
	setup
	start_monitor
	atf_check "$C" -s "$SOCK" run -p w -- /usr/bin/true
	wait_warm 2
	mkdir "$D/proj" && chmod 777 "$D/proj"
	atf_check -o inline:'/work\n' "$C" -s "$SOCK" run -p w -w "$D/proj" \
	    -- /bin/pwd
	atf_check -o match:'cold \(a workdir, an overlay or a pty\), profile w.*: /bin/pwd' \
	    cat "$D/audit.jsonl"
	[ "$(served)" -eq 0 ] || atf_fail "a run with -w was served warm"
	[ "$(warm_n)" -eq 2 ] || atf_fail "$(warm_n) warm sandboxes left"
	stop_monitor
}
cold_when_shaped_cleanup() {
	cleanup
}

atf_test_case deadline_at_run cleanup
deadline_at_run_head() {
	atf_set "descr" "a warm sandbox's run gets the profile's whole timeout from when it starts, however long the sandbox waited; past it, it is killed and said so"
}
deadline_at_run_body() {
	TMO=2
	setup
	start_monitor
	atf_check "$C" -s "$SOCK" run -p w -- /usr/bin/true
	wait_warm 2
	# Built more than the timeout ago, yet the run has its 2 s.
	sleep 3
	atf_check -s exit:0 "$C" -s "$SOCK" run -p w -- /bin/sleep 1
	atf_check -s exit:124 -e match:'timed out' \
	    "$C" -s "$SOCK" run -p w -- /bin/sleep 30
	[ "$(served)" -eq 2 ] || atf_fail "$(served) of 2 runs served warm"
	stop_monitor
}
deadline_at_run_cleanup() {
	cleanup
}

atf_test_case released cleanup
released_head() {
	atf_set "descr" "warm sandboxes go after warm-idle unused, on a reload (the next run is cold and builds new ones) and when the service stops; each release is in the audit log, and their processes end"
}
released_body() {
	setup "warm-idle 1"
	start_monitor
	atf_check "$C" -s "$SOCK" run -p w -- /usr/bin/true
	wait_warm 2
	first=$(warm_pids)
	# Idle past warm-idle.
	wait_warm 0
	all_gone $first
	atf_check -o match:'"event":"warm-release".*idle for warm-idle' \
	    cat "$D/audit.jsonl"
	# A reload.
	sed -i 's/^warm-idle 1$/warm-idle 600/' "$D/sbx.conf"
	kill -HUP "$(cat mon.pid)"
	sleep 0.5
	atf_check "$C" -s "$SOCK" run -p w -- /usr/bin/true
	wait_warm 2
	second=$(warm_pids | grep -vxF "$first")
	kill -HUP "$(cat mon.pid)"
	wait_warm 0
	all_gone $second
	atf_check -o match:'"event":"warm-release".*the configuration was reloaded' \
	    cat "$D/audit.jsonl"
	n=$(served)
	atf_check "$C" -s "$SOCK" run -p w -- /usr/bin/true
	[ "$(served)" -eq "$n" ] || atf_fail "a run after the reload was warm"
	# The service stops: the ones built since go with it.
	wait_warm 2
	third=$(warm_pids | grep -vxF "$first" | grep -vxF "$second")
	[ -n "$third" ] || atf_fail "no warm sandbox after the reload"
	stop_monitor
	all_gone $third
}
released_cleanup() {
	cleanup
}

atf_test_case yield_to_runs cleanup
yield_to_runs_head() {
	atf_set "descr" "warm sandboxes yield to runs: with max-sandboxes 2 both places warm, another profile's run still starts, an idle warm one released for it, and status counts runs and warm ones apart"
}
yield_to_runs_body() {
	setup "max-sandboxes 2"
	start_monitor
	atf_check "$C" -s "$SOCK" run -p w -- /usr/bin/true
	wait_warm 2
	atf_check -o match:'^connections 1, sandboxes 0,' "$C" -s "$SOCK" status
	atf_check -o inline:'ran\n' "$C" -s "$SOCK" run -p c -- /bin/echo ran
	atf_check -o match:'"event":"warm-release".*its place went to a run' \
	    cat "$D/audit.jsonl"
	stop_monitor
}
yield_to_runs_cleanup() {
	cleanup
}

atf_test_case caller_cap cleanup
caller_cap_head() {
	atf_set "descr" "a caller's warm sandboxes, over all its kinds of run (here HOME, which goes into /etc/passwd), stay within max-sandboxes-per-peer; at the cap its oldest idle one of another kind gives way to the newest kind"
}
caller_cap_body() {
	setup "max-sandboxes-per-peer 3"
	start_monitor
	for h in /a /b /c /d; do
		atf_check env HOME=$h "$C" -s "$SOCK" run -p w -e HOME -- \
		    /usr/bin/true
		[ "$(sbx_warm_all "$C" "$SOCK")" -le 3 ] ||
		    atf_fail "$(sbx_warm_all "$C" "$SOCK") warm sandboxes"
	done
	wait_warm 3
	atf_check -o match:'"event":"warm-release".*a newer kind of run took its place' \
	    cat "$D/audit.jsonl"
	# The latest kind has its two.
	n=$(served)
	atf_check -o inline:'/d\n' env HOME=/d "$C" -s "$SOCK" run -p w \
	    -e HOME -- /bin/sh -c 'echo $HOME'
	[ "$(served)" -eq $((n + 1)) ] || atf_fail "HOME=/d was not warm"
	atf_check -o inline:'/d\n' env HOME=/d "$C" -s "$SOCK" run -p w \
	    -e HOME -- /bin/sh -c 'echo $HOME'
	[ "$(served)" -eq $((n + 2)) ] || atf_fail "HOME=/d was not warm"
	stop_monitor
}
caller_cap_cleanup() {
	cleanup
}

atf_init_test_cases() {
	atf_add_test_case caller_cap
	atf_add_test_case served_once
	atf_add_test_case own_caller_only
	atf_add_test_case cold_when_shaped
	atf_add_test_case deadline_at_run
	atf_add_test_case released
	atf_add_test_case yield_to_runs
}
