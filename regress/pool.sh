#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# pool.sh: provider-pool through a real monitor -- pooled provider
# sandboxes are booted ahead, a run takes one and it is replaced, results
# are byte-identical to cold runs, the run's deadline starts when the run
# does, a reload resizes the pool, and a pool that cannot start sandboxes
# pauses between attempts instead of looping.  Runs as root and as an
# unprivileged user.  (The escape suite runs from pooled sandboxes too:
# escapes.sh:bundles_pooled.)

. "$(atf_get_srcdir)/top/regress/provider-test.subr"

CLOCK=1700000000000
RECORDS='[{"slice":"a","failed":false},{"slice":"b","failed":true},{"slice":"b","failed":false}]'

# invoke_to FILE [TIMEOUT_MS]: invoke $H on RECORDS into FILE.
invoke_to() {
	printf '%s' "$RECORDS" > recs.json
	"$C" provider invoke "$H" --records recs.json --clock-ms "$CLOCK" \
	    --timeout-ms "${2:-5000}" > "$1" 2> "$1.err" ||
	    { cat "$1.err"; atf_fail "invoke failed"; }
}

# big_records FILE: 20,000 records, a request of about 700 KB (more than
# a pipe holds by default).
big_records() {
	awk 'BEGIN { printf "["; for (i = 0; i < 20000; i++)
	    printf "%s{\"slice\":\"s%d\",\"failed\":%s}", i ? "," : "",
	    i % 10, i % 7 ? "false" : "true"; printf "]" }' > "$1"
}

# invoke_big OUT: invoke $H on the big records into OUT.
invoke_big() {
	"$C" provider invoke "$H" --records big.json --clock-ms "$CLOCK" \
	    > "$1" 2> "$1.err" || { cat "$1.err"; atf_fail "big invoke failed"; }
}

# set_pool N: rewrite provider-pool in sbx.conf and reload.
set_pool() {
	sed -i "s/^provider-pool .*/provider-pool $1/" "$D/sbx.conf" ||
	    atf_fail "edit sbx.conf"
	pt_reload
}

# spawns: how many sandboxes the audit log has seen start so far.
spawns() {
	grep -c '"event":"spawn"' "$D/audit.jsonl"
}

atf_test_case pooled_runs cleanup
pooled_runs_head() {
	atf_set "descr" "provider-pool 2: two sandboxes booted ahead and shown by status, each run takes one (no cold spawn) and one replaces it, results byte-identical to cold runs; a reload to 0 retires the idle ones, back to 3 boots three"
	atf_set "timeout" "120"
}
pooled_runs_body() {
	pt_init
	pt_example ex
	PT_POOL=2
	pt_start
	pt_pool_wait 2
	atf_check -o match:'^provider pool 2, 2 booted and idle$' \
	    -o match:'^connections 1, sandboxes 2,' "$C" status
	atf_check -o match:'"provider_pool":\{"size":2,"idle":2\}' \
	    "$C" --json status

	# The load's inspection and two invokes: each takes a pooled
	# sandbox, which the audit log names, and nothing starts cold.
	pt_load "$W/ex"
	invoke_to pooled1.out
	invoke_to pooled2.out
	big_records big.json
	pt_pool_wait 2
	invoke_big big-pooled.out
	[ "$(grep -c '"sandbox [0-9]* pid [0-9]*: provider run"' "$D/audit.jsonl")" -eq 0 ] ||
	    atf_fail "a run started cold with an idle pool"
	n=$(grep -c '"event":"pool-take".*taken by a provider run with a 5000 ms deadline' "$D/audit.jsonl")
	[ "$n" -ge 3 ] || { cat "$D/audit.jsonl"; atf_fail "$n pooled runs, expected 3"; }
	pt_pool_wait 2

	# Pool 0: the idle ones end (their stdin closes), runs start cold.
	set_pool 0
	pt_pool_wait 0
	i=0
	while ! "$C" status | grep -q '^connections 1, sandboxes 0,'; do
		i=$((i + 1))
		[ $i -lt 100 ] || { "$C" status; atf_fail "retired pooled sandboxes did not end"; }
		sleep 0.1
	done
	"$C" status | grep -q '^provider pool' && atf_fail "status shows a pool of 0"
	invoke_to cold.out
	invoke_big big-cold.out
	cmp big-pooled.out big-cold.out ||
	    atf_fail "pooled and cold results differ on 20,000 records"
	atf_check -o match:'"pooled":\{"events":2858,"n":20000\}' cat big-cold.out
	grep -q '"sandbox [0-9]* pid [0-9]*: provider run"' "$D/audit.jsonl" ||
	    atf_fail "pool 0 did not start the run cold"
	# Byte-identical either way.
	cmp pooled1.out cold.out || atf_fail "pooled and cold results differ"
	cmp pooled2.out cold.out || atf_fail "two pooled results differ"
	atf_check -o match:'"metrics":\{"failures":\{"bySlice":\{"a":\{"events":0,"n":1\},"b":\{"events":1,"n":2\}\}' \
	    cat cold.out

	set_pool 3
	pt_pool_wait 3
	invoke_to pooled3.out
	cmp pooled3.out cold.out || atf_fail "pooled result differs after reload"
	pt_pool_wait 3
	pt_stop
}
pooled_runs_cleanup() {
	pt_cleanup
}

atf_test_case deadline_at_use cleanup
deadline_at_use_head() {
	atf_set "descr" "a pooled sandbox's run deadline starts when a run takes it: after idling longer than the run's timeout it still returns the result; a provider that spins is killed at the run's own timeout (not at the pool's 10-minute idle life) and refused as timeout"
	atf_set "timeout" "120"
}
deadline_at_use_body() {
	pt_init
	pt_example ex
	pt_bundle "$FIX/escapes/spin-compute" spin esc-spin-compute \
	    escape.spin-compute/v1 "$FIX/escapes/lib/probe.mjs"
	PT_POOL=1
	pt_start
	pt_pool_wait 1
	pt_load "$W/ex"
	pt_pool_wait 1
	# Idle for longer than the run's timeout, then used.
	sleep 2
	invoke_to late.out 1000
	atf_check -o match:'"metrics"' cat late.out
	# The spinner: killed at its run's 1000 ms, from a pooled sandbox.
	h=$H
	pt_load "$W/spin"
	pt_pool_wait 1
	printf '%s' "$RECORDS" > recs.json
	atf_check -s exit:1 -o empty \
	    -e match:'^error: timeout: .*timed out after 1000 ms' \
	    "$C" provider invoke "$H" --records recs.json --clock-ms "$CLOCK" \
	    --timeout-ms 1000
	grep -q '"event":"pool-take".*with a 1000 ms deadline' "$D/audit.jsonl" ||
	    atf_fail "the runs did not come from the pool"
	H=$h
	pt_stop
}
deadline_at_use_cleanup() {
	pt_cleanup
}

atf_test_case backoff cleanup
backoff_head() {
	atf_set "descr" "a pool whose sandboxes cannot start (max-sandboxes 1 with provider-pool 3) says why in the log and pauses between attempts, doubling from 250 ms, instead of respawning in a loop; runs still work"
	atf_set "timeout" "120"
}
backoff_body() {
	pt_init
	pt_example ex
	PT_POOL=3
	pt_start "max-sandboxes 1"
	pt_pool_wait 1
	# Each refusal is logged with the pause before the next attempt;
	# the pauses double from 250 ms (a loop would log thousands, each
	# with no pause).  Wait for four of them, however long they take.
	pat='provider pool: sandbox [0-9]* ended before any run took it (setup failed: max-sandboxes reached); the next one in \([0-9]*\) ms'
	i=0
	while [ "$(grep -c "$pat" mon.log)" -lt 4 ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || { cat mon.log; atf_fail "refused pooled spawns were not logged"; }
		sleep 0.1
	done
	sed -n "s/.*$pat.*/\1/p" mon.log | head -4 | paste -sd' ' > pauses
	atf_check -o inline:"250 500 1000 2000\n" cat pauses
	# Runs still work: each takes the one pooled sandbox (the only slot),
	# and the next is booted once that run's sandbox is gone.
	pt_load "$W/ex"
	pt_pool_wait 1
	invoke_to ok.out
	atf_check -o match:'"metrics"' cat ok.out
	pt_stop
}
backoff_cleanup() {
	pt_cleanup
}

atf_test_case reload_mid_run cleanup
reload_mid_run_head() {
	atf_set "descr" "a reload that lowers provider-timeout while an invoke is reading its records: the run keeps the timeout it was accepted with and the monitor stays up"
	atf_set "timeout" "120"
}
reload_mid_run_body() {
	pt_init
	pt_example ex
	pt_start "provider-timeout 30000"
	pt_load "$W/ex"
	{ sleep 2; printf '%s' "$RECORDS"; } | "$C" provider invoke "$H" \
	    --records - --clock-ms "$CLOCK" --timeout-ms 20000 > slow.out \
	    2> slow.err &
	inv=$!
	sleep 0.5
	sed -i 's/^provider-timeout .*/provider-timeout 1000/' "$D/sbx.conf" ||
	    atf_fail "edit sbx.conf"
	pt_reload
	wait "$inv" || { cat slow.err mon.log; atf_fail "the invoke failed"; }
	atf_check -o match:'"metrics"' cat slow.out
	atf_check -o ignore "$C" ping
	pt_stop
}
reload_mid_run_cleanup() {
	pt_cleanup
}

atf_init_test_cases() {
	atf_add_test_case pooled_runs
	atf_add_test_case deadline_at_use
	atf_add_test_case backoff
	atf_add_test_case reload_mid_run
}
