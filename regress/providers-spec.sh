#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# providers-spec.sh: the reference's functional scenarios about loading,
# invoking and isolating bundle providers (interop.md §P8.A, B and D),
# ported to sbx: a private monitor, our own fixtures (the example bundle,
# regress/fixtures/spec/iso and its variants), `sbxctl provider ...`.
# Each case names the scenarios it ports.  The evaluation scenarios
# (bindings, gates, sealing into reports: A 6-9, B 31-36, 40-44) are out
# of scope here.  Differences from the reference are said where they
# occur: sbx refuses dynamic import() by its run-time trap, not a lexical
# scan, so a refusal "at load" means the import ran at module evaluation;
# and sbx returns the sealed section, so what a provider reports travels
# inside its metrics.  Runs as root and as an unprivileged user.

. "$(atf_get_srcdir)/top/regress/provider-test.subr"

CLOCK=1700000000000
ONE_RECORD='[{"slice":"a","failed":false}]'
REF=$(atf_get_srcdir)/top/regress/provider-ref.mjs
REF_REVIEWER="Isolation Reviewer"

# iso NAME [VARIANT [EXTRA ...]]: the isolation fixture as bundle
# test-bundle-NAME in $W/NAME, gp/p.mjs replaced by variants/VARIANT.mjs
# and EXTRA files of variants/ copied beside it; reviewed, allowlisted.
iso() {
	name=$1
	shift
	cp -R "$FIX/spec/iso" "$W/$name" || atf_fail "copy iso"
	sed -i "s/\"id\":\"test-bundle\"/\"id\":\"test-bundle-$name\"/" \
	    "$W/$name/manifest.json"
	if [ $# -gt 0 ]; then
		cp "$FIX/spec/variants/$1.mjs" "$W/$name/gp/p.mjs"
		shift
		for f in "$@"; do
			cp "$FIX/spec/variants/$f" "$W/$name/gp/" ||
			    atf_fail "copy $f"
		done
	fi
	dg=$(pt_review "$W/$name" gp/p.mjs gp/review.json "$REF_REVIEWER")
	pt_allow "test-bundle-$name" test.iso/v1 "$dg" "$REF_REVIEWER"
	chmod -R go+rX "$W/$name"
}

# refused CODES PATTERN COMMAND...: exits 1, nothing on stdout, and
# "error: CODE: ..." matching PATTERN on stderr.
refused() {
	codes=$1 pat=$2
	shift 2
	atf_check -s exit:1 -o empty -e match:"^error: ($codes): .*$pat" "$@"
}

# invoke HANDLE [RECORDS-JSON [CLOCK]]: invoke and print the result line
# (a shell function: atf_check runs its output through cat).
invoke() {
	recs=${2:-$ONE_RECORD}
	printf '%s' "$recs" > inv.json
	"$C" provider invoke "$1" --records inv.json --clock-ms "${3:-$CLOCK}" ||
	    atf_fail "invoke $1 failed"
}


# Each case below: pt_init, fixtures, pt_start, checks, pt_stop.

atf_test_case example_loads cleanup
example_loads_head() {
	atf_set "descr" "A 1, A 4, B 28, B 39: the reviewed example loads with a stable digest; without an allowlist entry nothing loads and nothing registers"
}
example_loads_body() {
	pt_init
	pt_example ex
	pt_start
	dg=$("$C" digest bundle "$W/ex" gate-providers/example.mjs)
	# A 1: sbx and the independent reference implementation agree, and
	# the review file carries the same digest.
	atf_check -o inline:"$dg\n" node "$REF" digest "$W/ex" gate-providers/example.mjs
	atf_check -o match:"\"codeDigest\":\"$dg\"" \
	    cat "$W/ex/gate-providers/example-review.json"
	atf_check -s exit:0 -o match:"codeDigest $dg" \
	    -o match:'bundle gates-example' "$C" provider load "$W/ex"
	# A 4, B 28: an empty allowlist refuses before any sandbox runs.
	: > "$D/allow.entries"
	pt_allowlist
	pt_reload
	n=$(grep -c '"event":"spawn"' "$D/audit.jsonl")
	refused unregistered 'not allowlisted|allowlist' \
	    "$C" provider load "$W/ex"
	[ "$(grep -c '"event":"spawn"' "$D/audit.jsonl")" -eq "$n" ] ||
	    atf_fail "a refused load started a sandbox"
	# B 39: the refusal registered nothing; only the first load is
	# listed (and the reload revoked it: issue 25).
	atf_check -o match:"^prv-[0-9a-f]{32} example.count/v1@1.0.0 $dg revoked: unregistered: " \
	    "$C" provider list
	[ "$("$C" provider list | wc -l)" -eq 1 ] || atf_fail "extra providers"
	pt_stop
}
example_loads_cleanup() {
	pt_cleanup
}

atf_test_case repin cleanup
repin_head() {
	atf_set "descr" "A 2, A 7: a byte-tweaked provider refuses until re-reviewed and re-allowlisted; then both versions are issued with their own pins"
}
repin_body() {
	pt_init
	pt_example v1
	cp -R "$W/v1" "$W/v2"
	printf '\n// tweak\n' >> "$W/v2/gate-providers/helper.mjs"
	pt_start
	old=$("$C" digest bundle "$W/v1" gate-providers/example.mjs)
	new=$("$C" digest bundle "$W/v2" gate-providers/example.mjs)
	[ "$old" != "$new" ] || atf_fail "a byte change did not move the digest"
	# A 2: the review and the allowlist still say the old digest.
	refused attestation-mismatch '' "$C" provider load "$W/v2"
	# A 7: re-reviewed and re-allowlisted, the new bytes load.  The
	# allowlist holds one entry per (bundle, provider): the new one.
	pt_review "$W/v2" gate-providers/example.mjs \
	    gate-providers/example-review.json "Example Reviewer" > /dev/null
	: > "$D/allow.entries"
	pt_allow gates-example example.count/v1 "$new" "Example Reviewer"
	pt_allowlist
	pt_reload
	atf_check -s exit:0 -o match:"codeDigest $new" "$C" provider load "$W/v2"
	# ... and the old bytes no longer do.
	refused attestation-mismatch '' "$C" provider load "$W/v1"
	h=$("$C" provider list | cut -d' ' -f1)
	invoke "$h" > out
	atf_check -o match:"\"codeDigest\":\"$new\"" cat out
	pt_stop
}
repin_cleanup() {
	pt_cleanup
}

atf_test_case attestation cleanup
attestation_head() {
	atf_set "descr" "A 3, B 29: missing or mismatched attestations refuse with the reference codes"
}
attestation_body() {
	pt_init
	iso base
	# A 3: an entry with neither review nor reviewFile.
	cp -R "$W/base" "$W/noreview"
	sed -i 's/,"reviewFile":"gp\/review.json"//' "$W/noreview/manifest.json"
	# An unreadable review file, and one reviewed in the future.
	cp -R "$W/base" "$W/badreview"
	echo 'not json' > "$W/badreview/gp/review.json"
	cp -R "$W/base" "$W/future"
	sed -i 's/2026-08-15/2999-01-01/' "$W/future/gp/review.json"
	chmod -R go+rX "$W"
	pt_start
	refused 'invalid-module|missing-attestation' '' \
	    "$C" provider load "$W/noreview"
	refused missing-attestation '' "$C" provider load "$W/badreview"
	refused missing-attestation '' "$C" provider load "$W/future"
	atf_check -s exit:0 -o ignore "$C" provider load "$W/base"
	# B 29: each field of the allowlist entry, wrong in turn.
	dg=$("$C" digest bundle "$W/base" gp/p.mjs)
	zero=sha256:0000000000000000000000000000000000000000000000000000000000000000
	for t in "attestation-mismatch test-bundle-base test.iso/v1 $zero" \
	    "unregistered other-bundle test.iso/v1 $dg" \
	    "unregistered test-bundle-base other.scope/v9 $dg" \
	    "attestation-mismatch test-bundle-base test.iso/v1 $dg Mallory" \
	    "attestation-mismatch test-bundle-base test.iso/v1 $dg REF 2026-08-16T00:00:00.000Z"; do
		set -- $t
		code=$1
		shift
		: > "$D/allow.entries"
		r=${4:-$REF_REVIEWER}
		[ "$r" = REF ] && r=$REF_REVIEWER
		pt_allow "$1" "$2" "$3" "$r" "${5:-2026-08-15T00:00:00.000Z}"
		pt_allowlist
		pt_reload
		refused "$code" '' "$C" provider load "$W/base"
	done
	[ "$("$C" provider list | wc -l)" -eq 1 ] || atf_fail "a refusal registered"
	pt_stop
}
attestation_cleanup() {
	pt_cleanup
}

atf_test_case allowlist_shape cleanup
allowlist_shape_head() {
	atf_set "descr" "B 30, B 38: malformed allowlists are refused whole, an empty one is valid, none at all authorises nothing"
}
allowlist_shape_body() {
	pt_init
	iso base
	pt_start
	atf_check -s exit:0 -o ignore "$C" provider load "$W/base"
	good=$(cat "$D/allow.entries")
	dg=$("$C" digest bundle "$W/base" gp/p.mjs)
	e='"bundleId":"test-bundle-base","providerId":"test.iso/v1"'
	r='"reviewer":"Isolation Reviewer","reviewedAt":"2026-08-15T00:00:00.000Z"'
	n=0
	for bad in \
	    "{\"gates\":{\"providers\":[{$e,\"codeDigest\":\"nope\",$r}]}}" \
	    "{\"gates\":{\"providers\":[{$e,\"codeDigest\":\"$dg\",\"reviewer\":\"\",\"reviewedAt\":\"2026-08-15T00:00:00.000Z\"}]}}" \
	    "{\"gates\":{\"providers\":[{$e,\"codeDigest\":\"$dg\",\"reviewer\":\"R\",\"reviewedAt\":\"not-a-date\"}]}}" \
	    "{\"gates\":{\"providers\":[{$e,$r}]}}" \
	    "{\"gates\":{\"providers\":[$good,$good]}}" \
	    "{\"gates\":{\"providers\":[{$e,\"codeDigest\":\"$dg\",$r,\"extra\":1}]}}" \
	    '{"gates":{"providers":"yes"}}' \
	    '{"gates":{"providers":[],"other":1}}'; do
		n=$((n + 1))
		echo "$bad" > "$D/providers.json"
		pt_reload
		grep '"event":"allowlist"' "$D/audit.jsonl" | tail -1 | \
		    grep -q accepted && atf_fail "malformed allowlist $n accepted: $bad"
		# Refused whole: nothing loads, not even the valid bundle.
		atf_check -s exit:1 -o empty -e match:'^error: ' \
		    "$C" provider load "$W/base"
	done
	echo '{"gates":{"providers":[]}}' > "$D/providers.json"
	pt_reload
	grep '"event":"allowlist"' "$D/audit.jsonl" | tail -1 | \
	    grep -q accepted || atf_fail "an empty allowlist was refused"
	refused unregistered '' "$C" provider load "$W/base"
	pt_stop
}
allowlist_shape_cleanup() {
	pt_cleanup
}

atf_test_case path_escapes cleanup
path_escapes_head() {
	atf_set "descr" "A 5, B 26: module paths that leave the bundle and symlinks refuse"
}
path_escapes_body() {
	pt_init
	iso base
	for m in '../escape.mjs' '/abs.mjs' '..\\\\escape.mjs'; do
		n=$(echo "$m" | tr -c 'a-z\n' x)
		cp -R "$W/base" "$W/$n"
		sed -i "s|\"module\":\"gp/p.mjs\"|\"module\":\"$m\"|" \
		    "$W/$n/manifest.json"
	done
	echo 'export const x = 1;' > "$W/escape.mjs"
	cp -R "$W/base" "$W/link"
	ln -s /etc/hostname "$W/link/gp/link.mjs"
	chmod -R go+rX "$W"
	pt_start
	for m in '../escape.mjs' '/abs.mjs' '..\\\\escape.mjs'; do
		n=$(echo "$m" | tr -c 'a-z\n' x)
		refused 'path-escape|invalid-module' '' "$C" provider load "$W/$n"
	done
	atf_check -s not-exit:0 -o empty -e match:'symlink' \
	    "$C" digest bundle "$W/link" gp/p.mjs
	refused path-escape 'symlink' "$C" provider load "$W/link"
	atf_check -o empty "$C" provider list
	pt_stop
}
path_escapes_cleanup() {
	pt_cleanup
}

atf_test_case failure_modes cleanup
failure_modes_head() {
	atf_set "descr" "A 10, B 17, B 19, B 20: hangs time out, budgets, throws, exits, timers, fetch, output cap, no metrics; the good provider still runs afterwards"
}
failure_modes_body() {
	pt_init
	iso base
	pt_start "provider-timeout 2000"
	pt_load "$W/base"
	h=$H
	fail() {
		printf '[{"do":"%s"}]' "$1" > f.json
		refused "$2" "$3" "$C" provider invoke "$h" --records f.json \
		    --clock-ms "$CLOCK" --timeout-ms "${4:-2000}"
	}
	# A 10, B 17: a loop on the frozen clock never ends; a short
	# timeout ends it, and the next run is unaffected.
	fail hang timeout 'timed out after 300 ms' 300
	invoke "$h" > out
	atf_check -o match:'"value":7' cat out
	# A 10: a throwing provider.
	fail throw rejected 'boom'
	# B 19: denied capabilities at run time.
	fail exit rejected 'process is not defined'
	fail timer rejected 'setTimeout is not defined'
	fail fetch rejected 'fetch is not defined'
	# B 20: a 2 MiB value trips the output cap.
	fail big rejected 'output cap'
	# Nothing returned.
	fail nothing rejected 'no metrics'
	# A 10: the records budget, checked before any sandbox runs.
	node -e 'process.stdout.write(JSON.stringify(Array.from({length: 20},
	    () => ({slice: "a", failed: false}))))' > r20.json
	refused budget-exceeded '' "$C" provider invoke "$h" \
	    --records r20.json --clock-ms "$CLOCK" --max-records 1
	# A 10: records that are not an array.
	echo 'null' > null.json
	refused invalid-records '' "$C" provider invoke "$h" \
	    --records null.json --clock-ms "$CLOCK"
	invoke "$h" > out
	atf_check -o match:'"value":7' cat out
	pt_stop
}
failure_modes_cleanup() {
	pt_cleanup
}

atf_test_case limit_report cleanup
limit_report_head() {
	atf_set "descr" "a provider run ended by a limit says which with --json: the output cap (\"limit\":\"output\"), the deadline (\"limit\":\"timeout\"); other refusals name none"
}
limit_report_body() {
	pt_init
	iso base
	pt_start "provider-timeout 2000"
	pt_load "$W/base"
	h=$H
	printf '[{"do":"big"}]' > big.json
	atf_check -s exit:1 -o match:'"code":"rejected"' \
	    -o match:'output cap' -o match:'"limit":"output"' \
	    "$C" --json provider invoke "$h" --records big.json \
	    --clock-ms "$CLOCK"
	printf '[{"do":"hang"}]' > hang.json
	atf_check -s exit:1 -o match:'"code":"timeout"' \
	    -o match:'"limit":"timeout"' \
	    "$C" --json provider invoke "$h" --records hang.json \
	    --clock-ms "$CLOCK" --timeout-ms 300
	printf '[{"do":"throw"}]' > throw.json
	atf_check -s exit:1 -o match:'"code":"rejected"' \
	    -o not-match:'"limit"' \
	    "$C" --json provider invoke "$h" --records throw.json \
	    --clock-ms "$CLOCK"
	# The plain report is unchanged: "error: <code>: <message>".
	atf_check -s exit:1 -o empty -e match:'^error: rejected: .*output cap' \
	    "$C" provider invoke "$h" --records big.json --clock-ms "$CLOCK"
	pt_stop
}
limit_report_cleanup() {
	pt_cleanup
}

atf_test_case load_refusals cleanup
load_refusals_head() {
	atf_set "descr" "A 11, B 14, B 15, B 16, B 19, B 24, B 25: bare, external, CommonJS, computed and dynamic imports and require refuse at load"
}
load_refusals_body() {
	pt_init
	rm -f /tmp/sbx-spec-marker-computed-fs
	iso tpl tpl-import
	iso computed computed-fs
	iso cjs cjs c.cjs o.cjs
	iso leftpad leftpad package-lock.json
	iso creq create-require
	iso req require-fs
	pt_start
	# B 14 (at module evaluation: sbx's trap is at run time).
	refused invalid-module 'dynamic import\(\) is forbidden' \
	    "$C" provider load "$W/tpl"
	# B 15: the computed specifier never reaches node:fs.
	refused invalid-module 'dynamic import\(\) is forbidden' \
	    "$C" provider load "$W/computed"
	[ -e /tmp/sbx-spec-marker-computed-fs ] && atf_fail "marker written"
	# B 24: only p.mjs is digested; editing the .cjs files moves
	# nothing, and the import refuses.
	d1=$("$C" digest bundle "$W/cjs" gp/p.mjs)
	echo '// edit' >> "$W/cjs/gp/o.cjs"
	echo '// edit' >> "$W/cjs/gp/c.cjs"
	atf_check -o inline:"$d1\n" "$C" digest bundle "$W/cjs" gp/p.mjs
	refused invalid-module 'relative .mjs' "$C" provider load "$W/cjs"
	# A 11, B 25: a lockfile pins nothing.
	refused invalid-module '(bare|external|forbidden).*leftpad' \
	    "$C" provider load "$W/leftpad"
	# B 16: createRequire and getBuiltinModule.
	refused invalid-module 'bare and external imports are forbidden: "node:module"' \
	    "$C" provider load "$W/creq"
	# B 19: require at module evaluation.
	refused invalid-module 'require is not defined' "$C" provider load "$W/req"
	atf_check -o empty "$C" provider list
	pt_stop
}
load_refusals_cleanup() {
	pt_cleanup
}

atf_test_case disabled cleanup
disabled_head() {
	atf_set "descr" "A 12, B 37: bundle providers are off by default, and no environment variable turns them on"
}
disabled_body() {
	pt_init
	iso base
	pt_allowlist
	# The monitor's own configuration is the only switch; the
	# reference's old variable is set for the monitor and the client.
	export AIWG_GATES_BUNDLE_PROVIDERS=1
	PT_BUNDLE=no pt_start
	refused disabled '' "$C" provider load "$W/base"
	refused disabled '' "$C" provider invoke prv-x --records "$W/base/manifest.json" --clock-ms 1
	pt_stop
}
disabled_cleanup() {
	pt_cleanup
}

atf_test_case digest_scope cleanup
digest_scope_head() {
	atf_set "descr" "B 13, B 23: the digest covers exactly the .mjs files of the provider directory, imported or not"
}
digest_scope_body() {
	pt_init
	iso base
	d0=$("$C" digest bundle "$W/base" gp/p.mjs)
	# B 13: the files are [gp/h.mjs, gp/p.mjs], reproduced here from
	# their bytes with the reference's canonical form.
	atf_check -o inline:"$d0\n" node -e '
	    const { createHash } = require("node:crypto");
	    const fs = require("node:fs");
	    const h = (b) => createHash("sha256").update(b).digest("hex");
	    const files = ["gp/h.mjs", "gp/p.mjs"].map((p) => "{\"path\":" +
		JSON.stringify(p) + ",\"sha256\":\"" +
		h(fs.readFileSync(process.argv[1] + "/" + p)) + "\"}");
	    console.log("sha256:" + h("{\"externals\":[],\"files\":[" +
		files.join(",") + "]}"));' "$W/base"
	atf_check -o inline:"$d0\n" node "$REF" digest "$W/base" gp/p.mjs
	# Non-.mjs files are inert.
	echo '{}' > "$W/base/gp/notes.json"
	atf_check -o inline:"$d0\n" "$C" digest bundle "$W/base" gp/p.mjs
	# B 13: editing the helper moves the digest.
	echo '// v2' >> "$W/base/gp/h.mjs"
	d1=$("$C" digest bundle "$W/base" gp/p.mjs)
	[ "$d1" != "$d0" ] || atf_fail "helper edit did not move the digest"
	# B 23: an unimported module is digested too.
	echo 'export const dead = 1;' > "$W/base/gp/dead.mjs"
	d2=$("$C" digest bundle "$W/base" gp/p.mjs)
	echo '// edit' >> "$W/base/gp/dead.mjs"
	d3=$("$C" digest bundle "$W/base" gp/p.mjs)
	[ "$d2" != "$d1" ] && [ "$d3" != "$d2" ] ||
	    atf_fail "dead.mjs did not move the digest"
	atf_check -o inline:"$d3\n" node "$REF" digest "$W/base" gp/p.mjs
}
digest_scope_cleanup() {
	pt_cleanup
}

atf_test_case clock_rng cleanup
clock_rng_head() {
	atf_set "descr" "B 18: the clock is the invoke's, random() is seeded from the digests (mulberry32, as the reference), Math.random refuses"
}
clock_rng_body() {
	pt_init
	iso base
	pt_start
	pt_load "$W/base"
	h=$H
	invoke "$h" '[{"x":1}]' 1700000000000 > c0
	atf_check -o match:'"iso":\{"clock":1700000000000,' cat c0
	invoke "$h" '[{"x":1}]' 1700000001000 > a
	atf_check -o match:'"iso":\{"clock":1700000001000,' cat a
	invoke "$h" '[{"x":1}]' 1700000001000 > b
	atf_check cmp a b
	# The sequence is mulberry32 from deriveIsolatedSeed(codeDigest,
	# recordsDigest), computed here by the reference helper.
	cd=$("$C" digest bundle "$W/base" gp/p.mjs)
	printf '[{"x":1}]' > x.json
	rd=$("$C" digest records x.json)
	seed=$(node "$REF" seed "$cd" "$rd")
	want=$(node -e '
	    let s = (Number(process.argv[1]) >>> 0) || 1;
	    const next = () => {
		s = (s + 0x6D2B79F5) >>> 0;
		let t = s;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	    };
	    console.log(JSON.stringify([next(), next()]));' "$seed")
	atf_check -o match:"\"random\":$(echo "$want" | sed 's/[][]/\\&/g')" cat a
	printf '[{"do":"random"}]' > r.json
	refused rejected 'Math.random is not a function' \
	    "$C" provider invoke "$h" --records r.json --clock-ms "$CLOCK"
	pt_stop
}
clock_rng_cleanup() {
	pt_cleanup
}

atf_test_case surface cleanup
surface_head() {
	atf_set "descr" "B 21, B 22: the minimal global surface; top-level effects are the run's own"
}
surface_body() {
	pt_init
	iso base
	pt_start
	pt_load "$W/base"
	h=$H
	invoke "$h" > out
	for n in fetch process require setTimeout queueMicrotask performance \
	    crypto structuredClone URL navigator Worker eval Function \
	    WebAssembly Proxy Reflect console Intl Atomics SharedArrayBuffer \
	    FinalizationRegistry WeakRef Math.random; do
		atf_check -o match:"\"$n\":\"undefined\"" cat out
	done
	atf_check -o match:'"kept":"object,object,function,number,function"' cat out
	atf_check -o match:'"touched":1' cat out
	# The extra top-level "surface" key is preserved in the result
	# (the last member of "result", before the sealed sourceDigest) ...
	atf_check -o match:'"result":\{"metrics":\{.*\},"surface":\{"Atomics":"undefined",[^}]*\}\},"sourceDigest":' cat out
	# ... and is not part of the sealed section.
	atf_check -o inline:"result-only\n" node -e '
	    const o = JSON.parse(require("fs").readFileSync("out", "utf8"));
	    console.log("surface" in o.result && !("surface" in o) &&
	        o.result.metrics.m.pooled.value === o.metrics.m.pooled.value ?
	        "result-only" : "wrong")' 
	pt_stop
}
surface_cleanup() {
	pt_cleanup
}

atf_test_case no_toctou cleanup
no_toctou_head() {
	atf_set "descr" "B 27: editing the bundle after load moves its digest but not what runs"
}
no_toctou_body() {
	pt_init
	iso base
	pt_start
	pt_load "$W/base"
	h=$H
	d0=$("$C" digest bundle "$W/base" gp/p.mjs)
	sed -i 's/VALUE = 7/VALUE = 999/' "$W/base/gp/h.mjs"
	d1=$("$C" digest bundle "$W/base" gp/p.mjs)
	[ "$d0" != "$d1" ] || atf_fail "the edit did not move the digest"
	invoke "$h" > out
	atf_check -o match:'"value":7\}' -o match:"\"codeDigest\":\"$d0\"" \
	    cat out
	pt_stop
}
no_toctou_cleanup() {
	pt_cleanup
}

atf_test_case unknown_provider cleanup
unknown_provider_head() {
	atf_set "descr" "D 62: an unknown provider is refused by inspect and invoke"
}
unknown_provider_body() {
	pt_init
	pt_start
	refused unregistered 'prv-0123' "$C" provider inspect prv-0123
	printf '[]' > e.json
	refused unregistered 'prv-0123' "$C" provider invoke prv-0123 \
	    --records e.json --clock-ms 1
	pt_stop
}
unknown_provider_cleanup() {
	pt_cleanup
}

atf_init_test_cases() {
	atf_add_test_case example_loads
	atf_add_test_case repin
	atf_add_test_case attestation
	atf_add_test_case allowlist_shape
	atf_add_test_case path_escapes
	atf_add_test_case failure_modes
	atf_add_test_case limit_report
	atf_add_test_case load_refusals
	atf_add_test_case disabled
	atf_add_test_case digest_scope
	atf_add_test_case clock_rng
	atf_add_test_case surface
	atf_add_test_case no_toctou
	atf_add_test_case unknown_provider
}
