#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# providers.sh: gate metric providers end to end through a real monitor
# (seed P1, P2, P3, P5): the opt-in, the trust root, load with inspection
# in a sandbox, invoke with byte-identical results, handles that were not
# issued, and the code pin.  Runs as root and as an unprivileged user.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

paths() {
	sbx_test_paths
	FIX=$S/top/regress/fixtures/gates-example-extension
	NODE=$(command -v node) || atf_fail "node is a test dependency"
}

# setup [bundle-providers yes|no]
setup() {
	paths
	sbx_test_dir sbxprov
	cp "$FIX/providers.json" "$D/providers.json"
	chmod 644 "$D/providers.json"
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "bundle-providers ${1:-yes}"
		echo "provider-allowlist \"$D/providers.json\""
		echo "provider-runtime \"$NODE\""
		echo "provider-pool 0"
		echo "log-file \"$D/audit.jsonl\""
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	export SBX_SOCKET=$SOCK
	printf '[{"slice":"a","failed":false},{"slice":"b","failed":true},{"slice":"b","failed":false}]' > recs.json
}

stop() {
	pid=$(cat mon.pid)
	kill -TERM "$pid"
	wait "$pid"
	[ $? -eq 0 ] || { cat mon.log; atf_fail "monitor did not exit 0"; }
}

cleanup_common() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

handle() {
	"$C" provider list | awk 'NR == 1 { print $1 }'
}

atf_test_case load_invoke cleanup
load_invoke_head() {
	atf_set "descr" "load issues the example provider; invoke is byte-identical and pinned"
}
load_invoke_body() {
	setup yes
	digest=$("$C" digest bundle "$FIX" gate-providers/example.mjs)
	atf_check -s exit:0 -o match:'^provider prv-[0-9a-f]{32}$' \
	    -o match:"codeDigest $digest" -o match:'id example.count/v1' \
	    -o match:'metrics failures' "$C" provider load "$FIX"
	h=$(handle)
	atf_check -s exit:0 -o match:"^$h example.count/v1@1.0.0 $digest\$" \
	    "$C" provider list
	atf_check -s exit:0 -o match:'"kind":"proportion"' \
	    "$C" provider inspect "$h"
	atf_check -s exit:0 -o save:r1 "$C" provider invoke "$h" \
	    --records recs.json --clock-ms 1700000000000
	atf_check -s exit:0 -o save:r2 "$C" provider invoke "$h" \
	    --records - --clock-ms 1700000000000 < recs.json
	# Identical inputs, identical bytes, whichever way records came.
	atf_check -s exit:0 cmp r1 r2
	rd=$("$C" digest records recs.json)
	atf_check -o match:"\"codeDigest\":\"$digest\"" \
	    -o match:"\"recordsDigest\":\"$rd\"" \
	    -o match:'"bySlice":\{"a":\{"events":0,"n":1\},"b":\{"events":1,"n":2\}\}' \
	    cat r1
	# Every run was its own sandbox: one inspect, two invokes.
	atf_check -o match:'provider-issued' cat "$D/audit.jsonl"
	n=$(grep -c '"event":"spawn".*provider run' "$D/audit.jsonl")
	[ "$n" -eq 3 ] || atf_fail "expected 3 provider sandboxes, saw $n"
	stop
}
load_invoke_cleanup() {
	cleanup_common
}

atf_test_case refusals cleanup
refusals_head() {
	atf_set "descr" "unissued handles, bad records and missing trust refuse with the reference codes"
}
refusals_body() {
	setup yes
	"$C" provider load "$FIX" > /dev/null || atf_fail "load failed"
	h=$(handle)
	atf_check -s exit:1 -o empty \
	    -e match:'^error: unregistered: no provider "prv-forged"' \
	    "$C" provider invoke prv-forged --records recs.json --clock-ms 1
	# A handle is not a secret to guess: one letter off is not issued.
	forged=$(echo "$h" | sed 's/.$/x/')
	atf_check -s exit:1 -o empty -e match:'^error: unregistered:' \
	    "$C" provider invoke "$forged" --records recs.json --clock-ms 1
	echo '[1,' > bad.json
	atf_check -s exit:1 -o empty \
	    -e match:'^error: invalid-records: records: invalid JSON at byte offset 4: unexpected end of input' \
	    "$C" provider invoke "$h" --records bad.json --clock-ms 1
	atf_check -s exit:1 -o empty -e match:'^error: bad-request: invoke:' \
	    "$C" provider invoke "$h" --records recs.json --clock-ms 1 \
	    --timeout-ms 999999999
	# An empty trust root: the same bundle is not allowed.
	echo '{"gates":{"providers":[]}}' > "$D/providers.json"
	kill -HUP "$(cat mon.pid)"
	sleep 0.5
	atf_check -s exit:1 -o empty -e match:'^error: unregistered:' \
	    "$C" provider load "$FIX"
	# With --json, errors are objects with code and message.
	atf_check -s exit:1 -o match:'^\{"error":\{"code":"unregistered"' \
	    "$C" --json provider load "$FIX"
	stop
}
refusals_cleanup() {
	cleanup_common
}

atf_test_case disabled cleanup
disabled_head() {
	atf_set "descr" "without bundle-providers yes every provider request is refused as disabled"
}
disabled_body() {
	setup no
	atf_check -s exit:1 -o empty -e match:'^error: disabled: bundle providers are disabled' \
	    "$C" provider load "$FIX"
	atf_check -s exit:1 -o empty -e match:'^error: disabled:' \
	    "$C" provider invoke prv-x --records recs.json --clock-ms 1
	# Nothing else changed: commands still run.
	atf_check -s exit:0 -o inline:"ok\n" "$C" run -- /bin/echo ok
	atf_check -o not-match:'provider run' cat "$D/audit.jsonl"
	stop
}
disabled_cleanup() {
	cleanup_common
}

atf_test_case tampered cleanup
tampered_head() {
	atf_set "descr" "a bundle whose code no longer matches its pinned digest is refused"
}
tampered_body() {
	setup yes
	cp -R "$FIX" bundle
	echo '// changed after review' >> bundle/gate-providers/helper.mjs
	chmod -R go+rX bundle
	atf_check -s exit:1 -o empty -e match:'^error: (attestation-mismatch|unregistered):' \
	    "$C" provider load bundle
	atf_check -o empty "$C" provider list
	stop
}
tampered_cleanup() {
	cleanup_common
}

atf_init_test_cases() {
	atf_add_test_case load_invoke
	atf_add_test_case refusals
	atf_add_test_case disabled
	atf_add_test_case tampered
}
