#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# escapes.sh: the provider escape suite (interop.md §P8.C, the seed's
# threat model).  Every bundle under regress/fixtures/escapes attacks the
# isolation one way; each is loaded and invoked through a real monitor and
# must end as a refusal with the reference code its CASES line names, or
# as a contained result -- and never leave a host marker file, show host
# environment, reach the host listener, read a real clock or get a forged
# frame accepted.  The other cases are the class C scenarios that are not
# a single bundle: fail closed without a working runtime, snapshot swaps
# and copied handles, concurrent runs, a missing clock.  Runs as root and
# as an unprivileged user.

. "$(atf_get_srcdir)/top/regress/provider-test.subr"

CLOCK=1700000000000		# whole seconds: Date() text round-trips
TIMEOUT_MS=1000			# what a spinning provider costs

# A canary in the environment of the monitor and of sbxctl: an escaped
# provider that read any host environment would carry it into its output.
CANARY=sbx-canary-$$-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
export SBX_ESCAPE_CANARY=$CANARY

# listener: the host TCP listener an escaped provider would try to reach;
# checks first that it does see a connection.
listener() {
	node "$TOP/regress/escapes.mjs" listen port listen.log &
	echo $! > listen.pid
	sbx_wait_port listen port
	PORT=$sbx_port
	node "$TOP/regress/escapes.mjs" connect "$PORT" ||
	    atf_fail "control connection to the listener failed"
	i=0
	until grep -q '^data "control' listen.log 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "listener logged no control connection"
		sleep 0.1
	done
	: > listen.log
}

# escape_all [CONFIG LINE ...]: every bundle of fixtures/escapes, loaded
# and invoked through a monitor started with the given configuration.
escape_all() {
	pt_init
	ESC=$FIX/escapes
	listener
	grep -v '^#' "$ESC/CASES" | grep -v '^$' > cases
	while IFS='	' read -r name expect pattern; do
		[ -f "$ESC/$name/gp/p.mjs" ] || atf_fail "CASES names $name: no bundle"
		pt_bundle "$ESC/$name" "$name" "esc-$name" "escape.$name/v1" \
		    "$ESC/lib/probe.mjs"
	done < cases
	# Every bundle in the directory is in the table.
	for d in "$ESC"/*/gp/p.mjs; do
		n=$(basename "$(dirname "$(dirname "$d")")")
		cut -f1 cases | grep -qx "$n" || atf_fail "bundle $n is not in CASES"
	done
	pt_start "provider-timeout $TIMEOUT_MS" "$@"
	[ "${PT_POOL:-0}" -gt 0 ] && pt_pool_wait "$PT_POOL"
	tag=$$
	attempted=0
	: > verdicts
	: > judge.in
	while IFS='	' read -r name expect pattern; do
		attempted=$((attempted + 1))
		marker=/tmp/sbx-escape-marker-$tag-$name
		rm -f "$marker"
		printf '[{"marker":"%s","port":%s,"slice":"a","failed":false}]' \
		    "$marker" "$PORT" > recs.json
		"$C" --json provider load "$W/$name" > "$name.load" 2>&1
		lrc=$?
		set -- "$name" "$expect" "$pattern" "$CLOCK" "$CANARY" \
		    "$lrc" "$name.load"
		if [ $lrc -eq 0 ]; then
			h=$(grep -o 'prv-[0-9a-f]\{32\}' "$name.load" | head -1)
			"$C" --json provider invoke "$h" --records recs.json \
			    --clock-ms "$CLOCK" --timeout-ms "$TIMEOUT_MS" \
			    > "$name.invoke" 2>&1
			set -- "$@" "$?" "$name.invoke"
			# Within providers-per-peer however many cases.
			"$C" provider unload "$h" > /dev/null ||
			    atf_fail "unload $h ($name)"
		fi
		# Judged all at once below (a node per bundle cost seconds).
		( IFS='	'; printf '%s\n' "$*" ) >> judge.in
		[ -e "$marker" ] && echo "ESCAPED $name: wrote $marker" >> verdicts
	done < cases
	node "$TOP/regress/escapes.mjs" judge-all judge.in >> verdicts
	contained=$(grep -c '^contained ' verdicts)
	# The monitor and its roles survived every attempt.
	"$C" ping > /dev/null || atf_fail "the monitor died during the escapes"
	cat verdicts
	echo "escapes: $attempted attempted, $contained contained"
	echo "escapes: $attempted attempted, $contained contained" >&2
	[ -s listen.log ] && { cat listen.log; atf_fail "the host listener was reached"; }
	ls /tmp/sbx-escape-marker-$tag-* 2>/dev/null && atf_fail "marker files exist"
	grep -F "$CANARY" "$D/audit.jsonl" && atf_fail "canary in the audit log"
	grep '^ESCAPED' verdicts >&2 && atf_fail "not contained (above)"
	[ "$attempted" -eq "$contained" ] || atf_fail "$contained of $attempted contained"
	[ "$attempted" -ge 40 ] || atf_fail "only $attempted escape bundles"
	pt_stop
}

atf_test_case bundles cleanup
bundles_head() {
	atf_set "descr" "every escape bundle is refused with its reference code or contained (every run starts cold)"
	atf_set "timeout" "600"
}
bundles_body() {
	escape_all
}
bundles_cleanup() {
	pt_cleanup
}

atf_test_case bundles_pooled cleanup
bundles_pooled_head() {
	atf_set "descr" "the same escapes from pooled sandboxes (provider-pool 2): booted before the request, deadline from the run's start"
	atf_set "timeout" "600"
}
bundles_pooled_body() {
	PT_POOL=2
	escape_all
}
bundles_pooled_cleanup() {
	pt_cleanup
}

atf_test_case fail_closed cleanup
fail_closed_head() {
	atf_set "descr" "8 C: a runtime that answers success without a report refuses every provider (no fallback), and providers work again once it is fixed and the monitor restarted"
}
fail_closed_body() {
	pt_init
	pt_bundle "$FIX/spec/iso" iso test-bundle test.iso/v1
	# A "node" that exits 0 and says nothing.
	NODE=/bin/true
	[ -x "$NODE" ] || NODE=/usr/bin/true
	pt_start
	atf_check -s exit:1 -o empty -e match:'^error: sandbox-unavailable: ' \
	    "$C" provider load "$W/iso"
	atf_check -o empty "$C" provider list
	# Back to the real node.  node is probed once, before the monitor's
	# filter forbids exec, so a reload says a restart is needed and
	# keeps refusing; after the restart providers work again.
	sed -i "s|^provider-runtime .*|provider-runtime \"$(command -v node)\"|" \
	    "$D/sbx.conf"
	pt_reload
	atf_check -o match:'provider-runtime or bundle-providers changed' \
	    cat mon.log
	atf_check -s exit:1 -o empty -e match:'^error: sandbox-unavailable: ' \
	    "$C" provider load "$W/iso"
	pt_stop
	"$M" -d -f "$D/sbx.conf" > mon.log 2>&1 &
	echo $! > mon.pid
	i=0
	until "$C" ping >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat mon.log; atf_fail "no restart"; }
		sleep 0.1
	done
	pt_load "$W/iso"
	h=$H
	printf '[{"slice":"a","failed":false}]' > r.json
	atf_check -o match:'"value":7' "$C" provider invoke "$h" \
	    --records r.json --clock-ms "$CLOCK"
	pt_stop
}
fail_closed_cleanup() {
	pt_cleanup
}

atf_test_case swap cleanup
swap_head() {
	atf_set "descr" "8 C: swapping the bundle on disk after load changes nothing that runs; a handle from another monitor is not issued here"
}
swap_body() {
	pt_init
	pt_bundle "$FIX/spec/iso" iso test-bundle test.iso/v1
	pt_start
	pt_load "$W/iso"
	h=$H
	d0=$("$C" digest bundle "$W/iso" gp/p.mjs)
	# Replace the whole directory with other code (and a symlink to it).
	mv "$W/iso" "$W/iso.loaded"
	cp -R "$W/iso.loaded" "$W/other"
	sed -i 's/VALUE = 7/VALUE = 666/' "$W/other/gp/h.mjs"
	ln -s "$W/other" "$W/iso"
	printf '[{"slice":"a","failed":false}]' > r.json
	atf_check -o match:'"value":7\}' -o match:"\"codeDigest\":\"$d0\"" \
	    "$C" provider invoke "$h" --records r.json --clock-ms "$CLOCK"
	# A copied handle: valid in the monitor that issued it, nowhere else.
	pt_stop
	pt_start
	atf_check -s exit:1 -o empty -e match:'^error: unregistered: ' \
	    "$C" provider invoke "$h" --records r.json --clock-ms "$CLOCK"
	pt_stop
}
swap_cleanup() {
	pt_cleanup
}

atf_test_case concurrent cleanup
concurrent_head() {
	atf_set "descr" "8 C: concurrent runs of different providers never see each other's records"
}
concurrent_body() {
	pt_init
	pt_bundle "$FIX/spec/seen" seen test-seen test.seen/v1
	pt_bundle "$FIX/spec/iso" iso test-bundle test.iso/v1
	pt_start
	pt_load "$W/seen"
	hs=$H
	pt_load "$W/iso"
	hi=$H
	pids=
	for i in 1 2 3 4 5 6; do
		printf '[{"slice":"run%s","failed":false}]' "$i" > r$i.json
		"$C" provider invoke "$hs" --records r$i.json \
		    --clock-ms "$CLOCK" > out$i 2> err$i &
		pids="$pids $!"
		"$C" provider invoke "$hi" --records r$i.json \
		    --clock-ms "$CLOCK" > iso$i 2> isoerr$i &
		pids="$pids $!"
	done
	# Not a bare wait: the monitor is a child of this shell too.
	for p in $pids; do
		wait "$p" || atf_fail "an invoke failed: $(cat err* isoerr*)"
	done
	for i in 1 2 3 4 5 6; do
		atf_check -o match:"\"global\":\\[\"run$i\"\\],\"module\":\\[\"run$i\"\\]" \
		    cat out$i
		atf_check -o match:'"pooled":\{"n":1,"value":7\}' cat iso$i
	done
	pt_stop
}
concurrent_cleanup() {
	pt_cleanup
}

atf_test_case missing_clock cleanup
missing_clock_head() {
	atf_set "descr" "8 C: an invoke without a clock, or with one that is not an epoch time in ms, is refused; there is no real-clock default"
}
missing_clock_body() {
	pt_init
	pt_bundle "$FIX/spec/iso" iso test-bundle test.iso/v1
	pt_start
	pt_load "$W/iso"
	h=$H
	printf '[{"slice":"a","failed":false}]' > r.json
	n=$(grep -c '"event":"spawn"' "$D/audit.jsonl")
	atf_check -s exit:2 -o empty -e match:'--clock-ms are needed' \
	    "$C" provider invoke "$h" --records r.json
	for bad in '' abc 1.5 -1 99999999999999999999; do
		atf_check -s not-exit:0 -o empty -e match:'clock' \
		    "$C" provider invoke "$h" --records r.json --clock-ms "$bad"
	done
	[ "$(grep -c '"event":"spawn"' "$D/audit.jsonl")" -eq "$n" ] ||
	    atf_fail "a clockless invoke started a sandbox"
	pt_stop
}
missing_clock_cleanup() {
	pt_cleanup
}

atf_init_test_cases() {
	atf_add_test_case bundles
	atf_add_test_case bundles_pooled
	atf_add_test_case fail_closed
	atf_add_test_case swap
	atf_add_test_case concurrent
	atf_add_test_case missing_clock
}
