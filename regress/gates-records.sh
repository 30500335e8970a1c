#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# gates-records.sh: "sbxctl gates evaluate --records PROVIDER_ID=FILE"
# through a real monitor (issue 11; interop.md §P7 step 5, 8 scenarios
# 9, 31-36, 56): the pinned bundle provider is re-run in a fresh sandbox
# over the records file, its sealed section replaces whatever the caller
# claimed, and every way of getting around that refuses with the
# reference's words.  Fixtures: regress/fixtures/gates-example.  Runs as
# root and as an unprivileged user (scripts/check).

. "$(atf_get_srcdir)/top/regress/monitor.subr"

NOW=2026-09-03T00:00:00.000Z
PROV=example.count/v1

paths() {
	sbx_test_paths
	FIX=$S/top/regress/fixtures
	GX=$FIX/gates-example
	EXT=$FIX/gates-example-extension
	NODE=$(command -v node) || atf_fail "node is a test dependency"
}

# setup [POOL [ALLOWLIST]]: a monitor with bundle providers on, the
# example's allowlist (or ALLOWLIST), POOL provider sandboxes booted.
setup() {
	paths
	sbx_test_dir sbxgrec
	cp "${2:-$EXT/providers.json}" "$D/providers.json"
	chmod 644 "$D/providers.json"
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "bundle-providers yes"
		echo "provider-allowlist \"$D/providers.json\""
		echo "provider-runtime \"$NODE\""
		echo "provider-pool ${1:-0}"
		echo "log-file \"$D/audit.jsonl\""
		[ -z "${EXTRA_CONF:-}" ] || echo "$EXTRA_CONF"
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	export SBX_SOCKET=$SOCK
	write_ev
}

# ev BINDING HOLDOUT METRICS [argument...]: gates evaluate on the
# example's pack and upstream (a script: atf_check runs programs).
write_ev() {
	cat > ev <<EOS
b=\$1 h=\$2 m=\$3
shift 3
exec "$C" gates evaluate --binding "\$b" --metrics "\$m" \\
    --holdout "\$h" --upstream "$GX/upstream.json" --now "$NOW" \\
    --trusted-binding-digest "\$("$C" gates digest "\$b")" \\
    --pack-dir "$GX/pack.json" "\$@"
EOS
}

load_example() {
	atf_check -s exit:0 -o match:"id $PROV" "$C" provider load "${1:-$EXT}"
}

stop() {
	pid=$(cat mon.pid)
	kill -TERM "$pid"
	wait "$pid"
	[ $? -eq 0 ] || { cat mon.log; atf_fail "monitor did not exit 0"; }
	rm -f mon.pid
}

cleanup_common() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

# forged FAILED_IN_B RECORDS_DIGEST: a caller section for the pin, right
# in every identity field, with made-up metrics.
forged() {
	sd=$(sed -n 's/.*"sourceDigest": "\(sha256:[0-9a-f]*\)".*/\1/p' \
	    "$GX/binding.json" | head -1)
	cd=$("$C" digest bundle "$EXT" gate-providers/example.mjs)
	printf '{"providers":{"%s":{"version":"1.0.0","sourceDigest":"%s","codeDigest":"%s","recordsDigest":"%s","metrics":{"failures":{"bySlice":{"a":{"n":10,"events":0},"b":{"n":10,"events":%d}},"pooled":{"n":20,"events":%d}}}}}}\n' \
	    "$PROV" "$sd" "$cd" "$2" "$1" "$1"
}

atf_test_case promote cleanup
promote_head() {
	atf_set "descr" "Clean records PROMOTE; the report's pins carry the" \
	    "code and records digests; the re-run is an audit line (9, 35)"
}
promote_body() {
	setup
	load_example
	cd=$("$C" digest bundle "$EXT" gate-providers/example.mjs)
	rd=$("$C" digest records "$GX/records-clean.json")
	atf_check -s exit:0 -o save:r.json sh ev "$GX/binding.json" \
	    "$GX/holdout.json" "$GX/metrics.json" \
	    --records "$PROV=$GX/records-clean.json"
	atf_check -o match:'"decision": "PROMOTE"' \
	    -o match:"\"codeDigest\": \"$cd\"" \
	    -o match:"\"recordsDigest\": \"$rd\"" \
	    -o match:'"attestation": "offline-cli"' cat r.json
	# The report is the engine's: its own digest checks out.
	atf_check -s exit:0 -o match:'"valid": true' \
	    "$C" gates validate report r.json
	# The sealed section went into metricsDigest, not the caller's {}.
	md=$("$C" gates digest "$GX/metrics.json")
	atf_check -s exit:1 grep -q "\"metricsDigest\": \"$md\"" r.json
	atf_check -o match:"\"event\":\"gates-rerun\".*provider $PROV codeDigest $cd recordsDigest $rd [0-9]+ ms: ok" \
	    cat "$D/audit.jsonl"
	atf_check -o match:'"event":"gates-evaluate".*PROMOTE' \
	    cat "$D/audit.jsonl"
	stop
}
promote_cleanup() {
	cleanup_common
}

atf_test_case rollback cleanup
rollback_head() {
	atf_set "descr" "One failure in slice b: ROLLBACK through flakes-cap (9)"
}
rollback_body() {
	setup
	load_example
	atf_check -s exit:11 -o save:r.json sh ev "$GX/binding-failing.json" \
	    "$GX/holdout-failing.json" "$GX/metrics.json" \
	    --records "$PROV=$GX/records-failing.json" --exit-decision
	atf_check -o match:'"decision": "ROLLBACK"' cat r.json
	# flakes-cap's entry: slice b, one event, ROLLBACK.
	atf_check -o match:'"gateId": "flakes-cap".*"events": 1.*"outcome": "ROLLBACK"' \
	    sh -c 'tr -d "\n" < r.json'
	stop
}
rollback_cleanup() {
	cleanup_common
}

atf_test_case forged cleanup
forged_head() {
	atf_set "descr" "Forged caller sections are replaced both ways:" \
	    "alarming over clean records PROMOTE, clean over a failure" \
	    "ROLLBACK (31, 32)"
}
forged_body() {
	setup
	load_example
	forged 5 "$("$C" digest records "$GX/records-clean.json")" > alarm.json
	forged 0 "$("$C" digest records "$GX/records-failing.json")" > clean.json
	atf_check -s exit:0 -o save:a.json sh ev "$GX/binding.json" \
	    "$GX/holdout.json" alarm.json \
	    --records "$PROV=$GX/records-clean.json"
	atf_check -o match:'"decision": "PROMOTE"' cat a.json
	atf_check -s exit:0 -o save:c.json sh ev "$GX/binding-failing.json" \
	    "$GX/holdout-failing.json" clean.json \
	    --records "$PROV=$GX/records-failing.json"
	atf_check -o match:'"decision": "ROLLBACK"' cat c.json
	# A forged section and none give the same effective metrics.
	atf_check -s exit:0 -o save:n.json sh ev "$GX/binding.json" \
	    "$GX/holdout.json" "$GX/metrics.json" \
	    --records "$PROV=$GX/records-clean.json"
	atf_check -o save:m1 grep metricsDigest a.json
	atf_check -o save:m2 grep metricsDigest n.json
	atf_check cmp m1 m2
	stop
}
forged_cleanup() {
	cleanup_common
}

atf_test_case refusals cleanup
refusals_head() {
	atf_set "descr" "Records that do not match the pin, a bundle pin" \
	    "without records, recordsDigest missing on a bundle pin or" \
	    "present on a core pin all refuse (33, 34, 36)"
}
refusals_body() {
	setup
	load_example
	atf_check -s exit:1 -o empty \
	    -e match:"metric provider $PROV records do not match the pinned records digest" \
	    sh ev "$GX/binding.json" "$GX/holdout.json" "$GX/metrics.json" \
	    --records "$PROV=$GX/records-failing.json"
	# No records, a caller section: the re-run is required (34).
	forged 0 "$("$C" digest records "$GX/records-clean.json")" > sec.json
	atf_check -s exit:1 -o empty \
	    -e match:"metric provider $PROV requires an isolated re-run over its pinned records: caller-asserted metrics cannot reproduce provider output" \
	    sh ev "$GX/binding.json" "$GX/holdout.json" sec.json
	# No records and no section: the section check refuses first, and
	# a hint names the pin and the option it lacks.
	atf_check -s exit:1 -o empty \
	    -e match:"metric provider pin mismatch for $PROV" \
	    -e match:"hint: the binding pins provider $PROV; .*pass --records $PROV=FILE" \
	    sh ev "$GX/binding.json" "$GX/holdout.json" "$GX/metrics.json"
	# With records for it, no hint (they do not match: another refusal).
	atf_check -s exit:1 -o empty -e not-match:"hint:" \
	    sh ev "$GX/binding.json" "$GX/holdout.json" "$GX/metrics.json" \
	    --records "$PROV=$GX/records-failing.json"
	# Records for another provider cover nothing.
	atf_check -s exit:1 -o empty \
	    -e match:"requires an isolated re-run" \
	    sh ev "$GX/binding.json" "$GX/holdout.json" sec.json \
	    --records "other.scope/v1=$GX/records-clean.json"
	# recordsDigest is required on a bundle pin (36)...
	grep -v '"recordsDigest"' "$GX/binding.json" |
	    sed 's/\("codeDigest": "[^"]*"\),/\1/' > norec.json
	atf_check -s exit:1 -o empty \
	    -e match:"binding gates-example/run provider records pin mismatch for $PROV" \
	    sh ev norec.json "$GX/holdout.json" "$GX/metrics.json" \
	    --records "$PROV=$GX/records-clean.json"
	# ...and forbidden on a core one.
	sed 's|"metricProviders": \[|"metricProviders": [{"id": "test.proportion/v1", "version": "1.0.0", "sourceDigest": "sha256:8e533b21822c74d7eded47528bd1c65d4ea2466e157e63fca5093ca0f412e737", "recordsDigest": "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"},|' \
	    "$GX/binding.json" > corerec.json
	atf_check -s exit:1 -o empty \
	    -e match:"binding gates-example/run provider records pin mismatch for test.proportion/v1" \
	    sh ev corerec.json "$GX/holdout.json" "$GX/metrics.json" \
	    --records "$PROV=$GX/records-clean.json"
	# Usage: PROVIDER_ID=FILE, each provider once.
	atf_check -s exit:2 -e match:"PROVIDER_ID=FILE" sh ev \
	    "$GX/binding.json" "$GX/holdout.json" "$GX/metrics.json" \
	    --records "$GX/records-clean.json"
	atf_check -s exit:2 -e match:"names provider $PROV twice" sh ev \
	    "$GX/binding.json" "$GX/holdout.json" "$GX/metrics.json" \
	    --records "$PROV=$GX/records-clean.json" \
	    --records "$PROV=$GX/records-clean.json"
	stop
}
refusals_cleanup() {
	cleanup_common
}

atf_test_case not_issued cleanup
not_issued_head() {
	atf_set "descr" "Only what the monitor issued runs: a provider never" \
	    "loaded, or loaded with other code, refuses (56)"
}
not_issued_body() {
	setup
	# Nothing loaded: the registry does not know the pinned provider,
	# so the pack that reads it does not register (scenario 6's words).
	atf_check -s exit:1 -o empty \
	    -e match:"metric failures names unknown provider $PROV" \
	    sh ev "$GX/binding.json" "$GX/holdout.json" "$GX/metrics.json" \
	    --records "$PROV=$GX/records-clean.json"
	stop
	# Issued with another code digest: a byte-tweaked bundle, reviewed
	# and allowlisted for its own digest, is all the monitor holds.
	mkdir w
	cp -R "$EXT" w/ext
	printf '\n// v2\n' >> w/ext/gate-providers/helper.mjs
	next=$("$C" digest bundle w/ext gate-providers/example.mjs)
	printf '{"codeDigest":"%s","reviewedAt":"2026-08-15T00:00:00.000Z","reviewer":"Example Reviewer"}\n' \
	    "$next" > w/ext/gate-providers/example-review.json
	sed "s/sha256:[0-9a-f]\{64\}/$next/" "$EXT/providers.json" > w/allow.json
	chmod -R go+rX w
	rm -rf "$(cat tmpdir)"
	rm -f tmpdir
	setup 0 "$PWD/w/allow.json"
	load_example "$PWD/w/ext"
	atf_check -s exit:1 -o empty \
	    -e match:"binding gates-example/run provider code pin mismatch for $PROV" \
	    sh ev "$GX/binding.json" "$GX/holdout.json" "$GX/metrics.json" \
	    --records "$PROV=$GX/records-clean.json"
	atf_check -o match:"gates-lookup.*$PROV.*issued with another identity" \
	    cat "$D/audit.jsonl"
	atf_check -s exit:1 grep -q gates-rerun "$D/audit.jsonl"
	stop
}
not_issued_cleanup() {
	cleanup_common
}

atf_test_case pooled cleanup
pooled_head() {
	atf_set "descr" "The same evaluation cold and pooled gives identical" \
	    "bytes"
}
pooled_body() {
	for pool in 0 2; do
		setup $pool
		load_example
		for i in 1 2; do
			atf_check -s exit:0 -o save:r$pool.$i.json sh ev \
			    "$GX/binding-failing.json" \
			    "$GX/holdout-failing.json" "$GX/metrics.json" \
			    --records "$PROV=$GX/records-failing.json"
		done
		stop
		rm -rf "$(cat tmpdir)"
		rm -f tmpdir
	done
	atf_check cmp r0.1.json r0.2.json
	atf_check cmp r0.1.json r2.1.json
	atf_check cmp r0.1.json r2.2.json
}
pooled_cleanup() {
	cleanup_common
}

atf_test_case large cleanup
large_head() {
	atf_set "descr" "20,000-record files evaluate (the reference refuses" \
	    "more than 4,096; sbx's records digest has no such bound)"
}
large_body() {
	setup
	load_example
	awk 'BEGIN { printf "["; for (i = 0; i < 20000; i++)
	    printf "%s{\"slice\":\"%s\",\"failed\":false}", i ? "," : "",
	    i < 10000 ? "a" : "b"; print "]" }' > big.json
	rd=$("$C" digest records big.json)
	sed "s/\"recordsDigest\": \"[^\"]*\"/\"recordsDigest\": \"$rd\"/" \
	    "$GX/binding.json" > big-binding.json
	atf_check -o save:big-holdout.json "$C" gates seal-holdout \
	    --binding big-binding.json
	atf_check -s exit:0 -o save:r.json sh ev big-binding.json \
	    big-holdout.json "$GX/metrics.json" --records "$PROV=big.json"
	atf_check -o match:'"decision": "PROMOTE"' -o match:'"n": 20000' \
	    -o match:"\"recordsDigest\": \"$rd\"" cat r.json
	stop
}
large_cleanup() {
	cleanup_common
}

# copies N: N copies of the example bundle under ./w, each its own
# provider example.cK/v1 in bundle gates-example-K, reviewed and
# allowlisted beside the example.
copies() {
	mkdir -p w
	rd=$("$C" digest records "$GX/records-clean.json")
	entries=$(sed -n '/"bundleId"/,/"reviewedAt"/p' "$EXT/providers.json" |
	    tr -d '\n')
	k=1
	while [ $k -le "$1" ]; do
		b=w/b$k
		cp -R "$EXT" $b
		sed "s|example.count/v1|example.c$k/v1|; s|\"gates-example\"|\"gates-example-$k\"|" \
		    "$EXT/manifest.json" > $b/manifest.json
		sed "s|example.count/v1|example.c$k/v1|" \
		    "$EXT/gate-providers/example.mjs" > $b/gate-providers/example.mjs
		cd_k=$("$C" digest bundle $b gate-providers/example.mjs)
		printf '{"codeDigest":"%s","reviewedAt":"2026-08-15T00:00:00.000Z","reviewer":"Example Reviewer"}\n' \
		    "$cd_k" > $b/gate-providers/example-review.json
		entries="$entries},{\"bundleId\":\"gates-example-$k\",\"providerId\":\"example.c$k/v1\",\"codeDigest\":\"$cd_k\",\"reviewer\":\"Example Reviewer\",\"reviewedAt\":\"2026-08-15T00:00:00.000Z\""
		k=$((k + 1))
	done
	printf '{"gates":{"providers":[{%s}]}}\n' "$entries" > w/allow.json
	chmod -R go+rX w
}

# pin_of BUNDLE: load it and append its binding pin over the clean records
# to extra.txt (not a command substitution: atf_fail must end the test).
# (With max-sandboxes 1 the last run's sandbox may not have been reaped
# yet: a load refused for that is tried again.)
pin_of() {
	i=0
	until "$C" provider load "$1" > load.out 2> load.err; do
		i=$((i + 1))
		grep -q "max-sandboxes reached" load.err && [ $i -lt 20 ] ||
		    { cat load.err >&2; atf_fail "load $1"; }
		sleep 0.1
	done
	id=$(sed -n 's/^	id //p' load.out)
	sd=$(sed -n 's/^	sourceDigest //p' load.out)
	cd_k=$(sed -n 's/^	codeDigest //p' load.out)
	printf '{"id": "%s", "version": "1.0.0", "sourceDigest": "%s", "codeDigest": "%s", "recordsDigest": "%s"},' \
	    "$id" "$sd" "$cd_k" "$rd" >> extra.txt
}

atf_test_case concurrent cleanup
concurrent_head() {
	atf_set "descr" "Five bundle pins re-run at once, one at a time" \
	    "(max-sandboxes 1) and from a pool give byte-identical reports"
	atf_set "timeout" "120"
}
concurrent_body() {
	paths
	copies 4
	for run in "0" "0 max-sandboxes 1" "4"; do
		set -- $run
		EXTRA_CONF=
		[ $# -gt 1 ] && EXTRA_CONF="$2 $3"
		setup "$1" "$PWD/w/allow.json"
		pin_of "$EXT"
		: > extra.txt
		for k in 1 2 3 4; do
			pin_of w/b$k
		done
		extra=$(cat extra.txt)
		sed "s|\"metricProviders\": \[|&$extra|" "$GX/binding.json" \
		    > five.json
		atf_check -o save:five-holdout.json "$C" gates seal-holdout \
		    --binding five.json
		n=$(echo "$run" | tr -d ' ')
		atf_check -s exit:0 -o save:r$n.json sh ev five.json \
		    five-holdout.json "$GX/metrics.json" \
		    --records "$PROV=$GX/records-clean.json" \
		    --records "example.c1/v1=$GX/records-clean.json" \
		    --records "example.c2/v1=$GX/records-clean.json" \
		    --records "example.c3/v1=$GX/records-clean.json" \
		    --records "example.c4/v1=$GX/records-clean.json"
		[ "$(grep -c '"event":"gates-rerun".*: ok"' "$D/audit.jsonl")" -eq 5 ] ||
		    { cat "$D/audit.jsonl"; atf_fail "not five re-runs"; }
		stop
		rm -rf "$(cat tmpdir)"
		rm -f tmpdir
	done
	atf_check -o match:'"decision": "PROMOTE"' \
	    -o match:'"id": "example.c4/v1"' cat r0.json
	atf_check cmp r0.json r0max-sandboxes1.json
	atf_check cmp r0.json r4.json
}
concurrent_cleanup() {
	cleanup_common
}

atf_test_case pack_dirs cleanup
pack_dirs_head() {
	atf_set "descr" "A --pack-dir directory and the operator's gate-packs" \
	    "are read by the runner through descriptors; a symbolic link" \
	    "among them refuses"
}
pack_dirs_body() {
	paths
	mkdir -p pd/gate-packs ops/test-gates/gate-packs bad/broken/gate-packs
	cp "$GX/pack.json" pd/gate-packs/example.gatepack.json
	cp "$FIX/gates/conformance-v1.gatepack.json" \
	    ops/test-gates/gate-packs/conformance-v1.gatepack.json
	cp "$FIX/gates/invalid-extra.gatepack.json" \
	    bad/broken/gate-packs/x.gatepack.json
	chmod -R go+rX pd ops bad
	EXTRA_CONF="gate-packs \"$PWD/ops\""
	setup
	load_example
	# ev's own --pack-dir is the file; a directory of packs may follow.
	sed 's|--pack-dir "[^"]*"|--pack-dir "$PD"|' ev > evd
	atf_check -s exit:0 -o match:'"decision": "PROMOTE"' \
	    env PD="$PWD/pd" sh evd "$GX/binding.json" "$GX/holdout.json" \
	    "$GX/metrics.json" --records "$PROV=$GX/records-clean.json"
	ln -s ../nowhere.json pd/gate-packs/link.gatepack.json
	atf_check -s exit:1 -o empty \
	    -e match:"gate pack must not be a symlink: $PWD/pd/gate-packs/link.gatepack.json" \
	    env PD="$PWD/pd" sh evd "$GX/binding.json" "$GX/holdout.json" \
	    "$GX/metrics.json" --records "$PROV=$GX/records-clean.json"
	stop
	rm -rf "$(cat tmpdir)"
	rm -f tmpdir
	# The operator's packs are read: a broken one refuses evaluation.
	EXTRA_CONF="gate-packs \"$PWD/bad\""
	setup
	load_example
	atf_check -s exit:1 -o empty \
	    -e match:"shipped gate packs rejected: gate pack invalid: $PWD/bad/broken/gate-packs/x.gatepack.json" \
	    sh ev "$GX/binding.json" "$GX/holdout.json" "$GX/metrics.json" \
	    --records "$PROV=$GX/records-clean.json"
	stop
}
pack_dirs_cleanup() {
	cleanup_common
}

atf_test_case failures cleanup
failures_head() {
	atf_set "descr" "A re-run that hangs past provider-timeout or throws" \
	    "refuses the evaluation, naming the provider; the audit says how"
}
failures_body() {
	paths
	mkdir w
	cp -R "$FIX/spec/iso" w/iso
	dg=$("$C" digest bundle w/iso gp/p.mjs)
	printf '{"codeDigest":"%s","reviewedAt":"2026-08-15T00:00:00.000Z","reviewer":"Iso Reviewer"}\n' \
	    "$dg" > w/iso/gp/review.json
	tr -d '\n' < "$EXT/providers.json" |
	    sed "s|][[:space:]]*}[[:space:]]*}|,{\"bundleId\":\"test-bundle\",\"providerId\":\"test.iso/v1\",\"codeDigest\":\"$dg\",\"reviewer\":\"Iso Reviewer\",\"reviewedAt\":\"2026-08-15T00:00:00.000Z\"}]}}|" \
	    > w/allow.json
	chmod -R go+rX w
	EXTRA_CONF="provider-timeout 1000"
	setup 0 "$PWD/w/allow.json"
	load_example
	atf_check -s exit:0 -o save:load.out "$C" provider load w/iso
	sd=$(sed -n 's/^	sourceDigest //p' load.out)
	for what in hang throw; do
		printf '[{"do":"%s"}]' $what > $what.json
		rd=$("$C" digest records $what.json)
		# The failing pin first: it refuses whatever the other does.
		sed "s|\"metricProviders\": \[|&{\"id\": \"test.iso/v1\", \"version\": \"1.0.0\", \"sourceDigest\": \"$sd\", \"codeDigest\": \"$dg\", \"recordsDigest\": \"$rd\"},|" \
		    "$GX/binding.json" > $what-binding.json
		atf_check -o save:$what-holdout.json "$C" gates seal-holdout \
		    --binding $what-binding.json
	done
	atf_check -s exit:1 -o empty \
	    -e match:'metric provider test.iso/v1 re-run failed: .*timed out after 1000 ms' \
	    sh ev hang-binding.json hang-holdout.json "$GX/metrics.json" \
	    --records "$PROV=$GX/records-clean.json" \
	    --records "test.iso/v1=$PWD/hang.json"
	atf_check -o match:'"event":"gates-rerun".*provider test.iso/v1 .*: timeout: ' \
	    cat "$D/audit.jsonl"
	atf_check -s exit:1 -o empty \
	    -e match:'metric provider test.iso/v1 re-run failed: .*boom' \
	    sh ev throw-binding.json throw-holdout.json "$GX/metrics.json" \
	    --records "$PROV=$GX/records-clean.json" \
	    --records "test.iso/v1=$PWD/throw.json"
	stop
}
failures_cleanup() {
	cleanup_common
}

atf_test_case descriptors cleanup
descriptors_head() {
	atf_set "descr" "A result descriptor the runner cannot write, records" \
	    "it cannot read and one provider's records twice are refused" \
	    "by the monitor; the service lives on"
}
descriptors_body() {
	setup
	load_example
	P=$S/helpers/ctlprobe
	atf_check -o match:'^error bad-request gates evaluate: the result descriptor is not writable$' \
	    "$P" "$SOCK" gates-readonly-result
	atf_check -o match:'^error bad-request gates evaluate: records names provider p/v1 twice$' \
	    "$P" "$SOCK" gates-records-twice
	atf_check -o match:'^error bad-request provider invoke: the records descriptor is not open for reading$' \
	    "$P" "$SOCK" invoke-writeonly-records
	atf_check -s exit:0 -o match:'"decision": "PROMOTE"' sh ev \
	    "$GX/binding.json" "$GX/holdout.json" "$GX/metrics.json" \
	    --records "$PROV=$GX/records-clean.json"
	stop
}
descriptors_cleanup() {
	cleanup_common
}

atf_test_case verify cleanup
verify_head() {
	atf_set "descr" "gates verify re-runs the pinned provider too: the" \
	    "report evaluate made verifies over the same records, whatever" \
	    "the caller's section says; other records or none do not"
}
verify_body() {
	setup
	load_example
	cat > vf <<EOS
r=\$1 m=\$2
shift 2
exec "$C" gates verify --report "\$r" --binding "$GX/binding.json" \\
    --metrics "\$m" --holdout "$GX/holdout.json" \\
    --upstream "$GX/upstream.json" \\
    --trusted-binding-digest "\$("$C" gates digest "$GX/binding.json")" \\
    --pack-dir "$GX/pack.json" "\$@"
EOS
	atf_check -s exit:0 -o save:r.json sh ev "$GX/binding.json" \
	    "$GX/holdout.json" "$GX/metrics.json" \
	    --records "$PROV=$GX/records-clean.json"
	printf '{\n  "valid": true,\n  "reasons": []\n}\n' > valid.json
	atf_check -s exit:0 -o file:valid.json sh vf r.json "$GX/metrics.json" \
	    --records "$PROV=$GX/records-clean.json"
	atf_check -o match:'"event":"gates-verify".*job [0-9]+: valid' \
	    cat "$D/audit.jsonl"
	# The caller's metrics are not what was evaluated for a bundle pin
	# (the report's metricsDigest covers the re-run's section): a forged
	# section neither counts as a mismatch nor changes the verdict.
	forged 5 "$("$C" digest records "$GX/records-clean.json")" > alarm.json
	atf_check -s exit:0 -o file:valid.json sh vf r.json alarm.json \
	    --records "$PROV=$GX/records-clean.json"
	# Other records: the re-evaluation refuses them.
	atf_check -s exit:1 -o not-match:'report-metrics-mismatch' \
	    -o match:"\"report-reevaluation:metric provider $PROV records do not match the pinned records digest\"" \
	    sh vf r.json "$GX/metrics.json" \
	    --records "$PROV=$GX/records-failing.json"
	# None: the section check refuses before any re-run.
	atf_check -s exit:1 \
	    -o match:"\"report-reevaluation:metric provider pin mismatch for $PROV\"" \
	    sh vf r.json "$GX/metrics.json"
	stop
}
verify_cleanup() {
	cleanup_common
}

atf_init_test_cases() {
	atf_add_test_case descriptors
	atf_add_test_case failures
	atf_add_test_case pack_dirs
	atf_add_test_case concurrent
	atf_add_test_case promote
	atf_add_test_case rollback
	atf_add_test_case forged
	atf_add_test_case refusals
	atf_add_test_case not_issued
	atf_add_test_case pooled
	atf_add_test_case large
	atf_add_test_case verify
}
