#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# registry.sh: the provider registry as a long-running service sees it
# (issue 25): a second load of the same bundle gets its handle back, the
# per-uid quota (providers-per-peer) and the total (max-providers) refuse
# with "limit" and say which, one user's flood leaves another's loads
# alone, unload (owner, root; anyone else hears what an unknown handle
# gets), provider-idle-timeout, revocation on an allowlist reload (entry
# removed, digest changed, review changed) for invoke, a pooled invoke and
# a gate re-run, and "provider pin" equal to the fixtures' binding pin.
# Provider runs cost a node start each: the cases share them.  As root
# and as an unprivileged user; the second-uid parts need root.

. "$(atf_get_srcdir)/top/regress/provider-test.subr"

NOW=2026-09-03T00:00:00.000Z
PROV=example.count/v1

# rg_bundle NAME: the example bundle as bundle NAME with its own code
# (a comment appended: its own codeDigest), reviewed and allowlisted.
# The digest is left in DG.
rg_bundle() {
	cp -R "$FIX/gates-example-extension" "$W/$1" || atf_fail "copy example"
	sed -i "s/\"id\":\"gates-example\"/\"id\":\"$1\"/" "$W/$1/manifest.json"
	echo "// $1" >> "$W/$1/gate-providers/example.mjs"
	DG=$(pt_review "$W/$1" gate-providers/example.mjs \
	    gate-providers/example-review.json "Example Reviewer")
	pt_allow "$1" "$PROV" "$DG" "Example Reviewer"
	chmod -R go+rX "$W/$1"
}

# rg_load DIR [AS...]: load DIR (as the user AS, if given); H its handle.
rg_load() {
	_dir=$1
	shift
	"$@" "$CU" provider load "$_dir" > load.out 2> load.err ||
	    { cat load.err >&2; atf_fail "load $_dir failed"; }
	H=$(sed -n 's/^provider \(prv-[0-9a-f]*\)$/\1/p' load.out)
	[ -n "$H" ] || atf_fail "load $_dir printed no handle"
}

# rg_open: the socket and a copy of sbxctl usable by the second user.
rg_open() {
	sbx_client_copy "$D/c"
	chmod 777 "$D/run"
	chmod 666 "$SOCK"
}

atf_test_case quota_unload cleanup
quota_unload_head() {
	atf_set "descr" "the same bundle twice is one handle; providers-per-peer" \
	    "refuses with limit, naming the quota, exit 1; the owner unloads"
}
quota_unload_body() {
	pt_init
	for b in ba bb bc; do
		rg_bundle $b
	done
	pt_start "providers-per-peer 2" "max-providers 3"
	rg_open
	rg_load "$W/ba"
	HA=$H
	rg_load "$W/ba"
	[ "$H" = "$HA" ] || atf_fail "a second load of ba issued $H, not $HA"
	rg_load "$W/bb"
	HB=$H
	atf_check -s exit:1 -o empty \
	    -e match:"^error: limit: provider load: providers-per-peer 2: uid $(id -u) holds 2 providers" \
	    "$CU" provider load "$W/bc"
	atf_check -s exit:1 -o match:'"code":"limit"' \
	    -o match:'providers-per-peer 2' "$CU" --json provider load "$W/bc"
	atf_check -o match:'"event":"provider-load".*limit: providers-per-peer 2' \
	    cat "$D/audit.jsonl"
	# Only the two are held; the refused load left nothing.
	atf_check -o save:list.out "$CU" provider list
	atf_check -o inline:"2\n" sh -c 'wc -l < list.out'
	atf_check -o match:"^$HA " -o match:"^$HB " cat list.out
	# The owner unloads; the quota is free again.
	atf_check -o match:"\"unloaded\":true" "$CU" --json provider unload "$HB"
	atf_check -s exit:1 -e match:"no provider \"$HB\" was issued" \
	    "$CU" provider unload "$HB"
	rg_load "$W/bc"
	[ "$H" != "$HB" ] || atf_fail "a new load reused an unloaded handle"
	pt_stop
}
quota_unload_cleanup() {
	pt_cleanup
}

atf_test_case other_user cleanup
other_user_head() {
	atf_set "descr" "one uid's flood leaves another uid its own quota, up to" \
	    "max-providers (limit, naming it); each sees only its own, root" \
	    "all with owners; another uid's handle is refused as an unknown" \
	    "one; root unloads anyone's"
}
other_user_body() {
	[ "$(id -u)" -eq 0 ] ||
	    atf_skip "needs root: runs sbxctl as a second uid (sbxtest)"
	id sbxtest >/dev/null 2>&1 || atf_fail "user sbxtest is missing"
	pt_init
	for b in ba bb bc bd; do
		rg_bundle $b
	done
	pt_start "providers-per-peer 2" "max-providers 3" \
	    "allow uid \"sbxtest\""
	rg_open
	rg_load "$W/ba"
	HA=$H
	rg_load "$W/bb"
	AS="runuser -u sbxtest --"
	# Root's flood left sbxtest its own quota...
	rg_load "$W/bc" $AS
	HC=$H
	# ...until the registry's total is reached.
	atf_check -s exit:1 \
	    -e match:"^error: limit: provider load: max-providers 3: the registry holds 3 providers" \
	    $AS "$CU" provider load "$W/bd"
	# A user sees only their own; root sees all, with owners.
	atf_check -o match:"^$HC " -o not-match:"$HA" \
	    $AS "$CU" provider list
	atf_check -o match:"^$HC .* uid $(id -u sbxtest)$" \
	    -o match:"^$HA [^ ]* [^ ]*$" "$CU" provider list
	# Another user's handle is refused in the words an unknown
	# one gets: it cannot be probed.
	atf_check -s exit:1 \
	    -e inline:"error: unregistered: no provider \"$HA\" was issued to you\n" \
	    $AS "$CU" provider unload "$HA"
	atf_check -s exit:1 \
	    -e inline:"error: unregistered: no provider \"prv-0\" was issued to you\n" \
	    $AS "$CU" provider unload prv-0
	atf_check -s exit:1 -e match:"no provider \"$HA\" was issued" \
	    $AS "$CU" provider inspect "$HA"
	# Root may unload anyone's.
	atf_check -o inline:"unloaded $HC\n" "$CU" provider unload "$HC"
	atf_check -o match:"\"event\":\"provider-unload\",\"uid\":0,.*$HC .*owner uid $(id -u sbxtest)" \
	    cat "$D/audit.jsonl"
	atf_check -o empty $AS "$CU" provider list
	pt_stop
}
other_user_cleanup() {
	pt_cleanup
}

atf_test_case pin_idle cleanup
pin_idle_head() {
	atf_set "descr" "provider pin over the fixture's records equals the" \
	    "binding pin the conformance fixtures carry (text and --json);" \
	    "provider-idle-timeout drops an unused provider"
	atf_set "require.progs" "python3"
}
pin_idle_body() {
	pt_init
	pt_example ex
	pt_start
	pt_load "$W/ex"
	GX=$FIX/gates-example
	python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))
p = [m for m in b["spec"]["metricProviders"] if m["id"] == sys.argv[2]][0]
print(json.dumps({k: p[k] for k in ("id", "version", "sourceDigest",
    "codeDigest", "recordsDigest")}, separators=(",", ":")))' \
	    "$GX/binding.json" "$PROV" > want.json ||
	    atf_fail "no pin for $PROV in binding.json"
	atf_check -o file:want.json "$C" provider pin "$H" \
	    --records "$GX/records-clean.json"
	{ printf '{"pin":'; tr -d '\n' < want.json; printf '}\n'; } > wantj.json
	atf_check -o file:wantj.json "$C" provider pin "$H" --json \
	    --records "$GX/records-clean.json"
	# Other records, another recordsDigest: the one digest records says.
	rd=$("$C" digest records "$GX/records-failing.json")
	atf_check -o match:"\"recordsDigest\":\"$rd\"" "$C" provider pin "$H" \
	    --records "$GX/records-failing.json"
	atf_check -s exit:1 -e match:"error: unregistered: no provider" \
	    "$C" provider pin prv-0 --records "$GX/records-clean.json"
	atf_check -s exit:2 -e match:"provider pin" "$C" provider pin "$H"
	# Idle providers go, once the operator says so.
	echo "provider-idle-timeout 1" >> "$D/sbx.conf"
	pt_reload
	i=0
	while "$C" provider list | grep -q "$H"; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "an idle provider stayed"
		sleep 0.1
	done
	atf_check -o match:"\"event\":\"provider-expired\".*$H $PROV@1.0.0: unused for provider-idle-timeout 1 s" \
	    cat "$D/audit.jsonl"
	pt_stop
}
pin_idle_cleanup() {
	pt_cleanup
}

atf_test_case revoke cleanup
revoke_head() {
	atf_set "descr" "an allowlist reload revokes each issued provider that" \
	    "no longer passes (entry removed, digest changed, review changed):" \
	    "invoke, a pooled invoke and a gate re-run refuse it with revoked" \
	    "and the reason, an audit line names it; the pooled sandbox is not" \
	    "used; one still allowlisted runs"
}
revoke_body() {
	pt_init
	pt_example ex
	rg_bundle bdig
	DGDIG=$DG
	rg_bundle brev
	DGREV=$DG
	rg_bundle bok
	DGOK=$DG
	PT_POOL=1 pt_start
	pt_load "$W/ex"
	HEX=$H
	pt_load "$W/bdig"
	HDIG=$H
	pt_load "$W/brev"
	HREV=$H
	pt_load "$W/bok"
	HOK=$H
	GX=$FIX/gates-example
	# The operator drops the example's entry, re-pins bdig to other
	# code and re-dates brev's review; bok stays as it was.
	: > "$D/allow.entries"
	pt_allow bdig "$PROV" \
	    sha256:0000000000000000000000000000000000000000000000000000000000000000 \
	    "Example Reviewer"
	pt_allow brev "$PROV" "$DGREV" "Example Reviewer" \
	    2026-08-20T00:00:00.000Z
	pt_allow bok "$PROV" "$DGOK" "Example Reviewer"
	pt_allowlist
	pt_pool_wait 1
	pt_reload
	i=0
	while [ "$(grep -c '"event":"provider-revoked"' "$D/audit.jsonl")" -lt 3 ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat "$D/audit.jsonl"; atf_fail "not revoked"; }
		sleep 0.1
	done
	atf_check -o match:"\"event\":\"provider-revoked\".*$HEX $PROV@1.0.0 sha256:[0-9a-f]*: unregistered: provider $PROV is not allowlisted for bundle gates-example" \
	    -o match:"\"event\":\"provider-revoked\".*$HDIG $PROV@1.0.0 $DGDIG: attestation-mismatch: .*the allowlist pins sha256:0000" \
	    -o match:"\"event\":\"provider-revoked\".*$HREV $PROV@1.0.0 $DGREV: attestation-mismatch: .*reviewer and review date differ" \
	    -o not-match:"\"event\":\"provider-revoked\".*$HOK" \
	    cat "$D/audit.jsonl"
	for h in "$HEX" "$HDIG" "$HREV"; do
		atf_check -s exit:1 -o empty \
		    -e match:"^error: revoked: provider $h \\($PROV\\) was revoked: " \
		    "$C" provider invoke "$h" --records "$GX/records-clean.json" \
		    --clock-ms 1788000000000
	done
	# The pooled sandbox was never handed revoked code: still idle.
	atf_check -o match:'"idle":[ ]*1[,}]' "$C" --json status
	# A gate re-run of the revoked example refuses, saying why.
	cat > ev <<EOS
exec "$C" "\$@" gates evaluate --binding "$GX/binding.json" \\
    --metrics "$GX/metrics.json" --holdout "$GX/holdout.json" \\
    --upstream "$GX/upstream.json" --now "$NOW" \\
    --trusted-binding-digest "\$("$C" gates digest "$GX/binding.json")" \\
    --pack-dir "$GX/pack.json" --records "$PROV=$GX/records-clean.json"
EOS
	atf_check -s exit:1 -o empty \
	    -e match:"provider $HEX \\($PROV\\) was revoked: unregistered: " \
	    sh ev
	atf_check -s exit:1 -o match:'"code":"revoked"' \
	    -o match:"provider $HEX \\($PROV\\) was revoked" sh ev --json
	atf_check -o match:'"event":"gates-evaluate".*refused \(revoked\)' \
	    cat "$D/audit.jsonl"
	# Listed as revoked, with the reason; the allowlisted one runs.
	atf_check -o match:"^$HEX .* revoked: unregistered" \
	    -o not-match:"^$HOK .*revoked" "$C" provider list
	atf_check -o match:"\"codeDigest\":\"$DGOK\"" "$C" provider invoke "$HOK" \
	    --records "$GX/records-clean.json" --clock-ms 1788000000000
	pt_stop
}
revoke_cleanup() {
	pt_cleanup
}

atf_init_test_cases() {
	atf_add_test_case quota_unload
	atf_add_test_case other_user
	atf_add_test_case pin_idle
	atf_add_test_case revoke
}
