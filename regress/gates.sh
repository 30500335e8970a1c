#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# gates.sh: "sbxctl gates" end to end over the fixtures in
# regress/fixtures/gates: the reference's conformance pack registered
# from an operator gate-packs directory, its binding, metrics as the core
# providers shape them, sealed holdout and upstream records.  Covers the
# report and its digest (equal to the reference's, interop.md §G12.2), the
# exit statuses, every refusal class in order, floors and ceilings from
# the operator's gates configuration, project packs and the seal helpers.
#
# Every evaluation goes through a private sbx-monitor (gates-offline.sh
# runs them without one): its sbx.conf names a copy of the operator packs and the
# gates configuration, which the monitor opens for each evaluation, so a
# case changes the floors by rewriting that file.  validate, list and
# show stay offline and read the same files through ./sbx.conf.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

sbxctl() { echo "$(atf_get_srcdir)/../bin/sbxctl"; }
fx() { echo "$(atf_get_srcdir)/top/regress/fixtures/gates/$1"; }

BDIGEST=sha256:713127fce4b97506487ce80c65998b29b110aff148156496336c6a859948149c
NOW=2026-09-03T00:00:00.000Z

# conf [GATES-CONFIG]: the operator's gates configuration (none without
# an argument) in place, a monitor started on the first call, and an
# sbx.conf naming the same packs and configuration for the offline
# subcommands.
conf()
{
	if [ ! -f mon.pid ]; then
		sbx_test_paths
		sbx_test_dir sbxgates
		cp -R "$(fx gate-packs)" "$D/gate-packs"
		chmod -R go+rX "$D/gate-packs"
		{
			echo "socket \"$SOCK\""
			echo "user \"nobody\""
			echo "gate-packs \"$D/gate-packs\""
			echo "provider-allowlist \"$D/gates.json\""
			echo "log-file \"$D/audit.jsonl\""
		} > "$D/sbx.conf"
		chmod 644 "$D/sbx.conf"
		sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	fi
	D=$(cat tmpdir)
	rm -f "$D/gates.json"
	if [ -n "${1:-}" ]; then
		cp "$1" "$D/gates.json"
		chmod 644 "$D/gates.json"
	fi
	printf 'gate-packs "%s"\nprovider-allowlist "%s"\n' \
	    "$D/gate-packs" "$D/gates.json" > sbx.conf
	export SBX_SOCKET="$D/run/sbx.sock"
	write_evaluate
}

# oconf: ./sbx.conf for the offline subcommands alone, no monitor.
oconf()
{
	printf 'gate-packs "%s"\nprovider-allowlist "%s"\n' \
	    "$(fx gate-packs)" "$PWD/no-such-config.json" > sbx.conf
}

cleanup_monitor()
{
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

# conf also writes ./evaluate: "sh evaluate METRICS [HOLDOUT [UPSTREAM]]
# [argument...]" runs gates evaluate on the conformance binding with
# fixtures of those names (atf_check runs programs, not functions).
write_evaluate()
{
	cat > evaluate <<EOS
m=\$1 h=\${2:-holdout.json} u=\${3:-upstream-clean.json}
shift; [ \$# -gt 0 ] && shift; [ \$# -gt 0 ] && shift
exec "$(sbxctl)" gates evaluate \\
    --binding "$(fx conformance-run.binding.json)" \\
    --metrics "$(fx)/\$m" --holdout "$(fx)/\$h" \\
    --upstream "$(fx)/\$u" --now "$NOW" \\
    --trusted-binding-digest "$BDIGEST" "\$@"
EOS
}

atf_test_case report cleanup
report_head()
{
	atf_set "descr" "The passing report equals the reference's, byte" \
	    "for byte in its digest, and is deterministic"
}
report_body()
{
	conf
	atf_check -o save:a.json sh evaluate passing.metrics.json
	atf_check -o save:b.json sh evaluate passing.metrics.json
	atf_check cmp a.json b.json
	atf_check -o match:'"digest": "sha256:52659cbd46e45885d84f2ce3d8f7148f3b4f0343243b6a06f1efb1e34b645667"' \
	    cat a.json
	atf_check -o match:'"metricsDigest": "sha256:cd88612ae6517f444e8ac1ada02eb2550dded565e7156c94acf7027a45ec3ca0"' \
	    cat a.json
	atf_check -o match:'"decision": "PROMOTE"' cat a.json
	atf_check -o match:'"attestation": "offline-cli"' cat a.json
	# The printed report validates, and an edit breaks its self digest.
	atf_check -o ignore "$(sbxctl)" gates validate report a.json \
	    --config sbx.conf
	sed 's/"decision": "PROMOTE"/"decision": "HOLD"/' a.json > c.json
	atf_check -s exit:2 \
	    -o match:'report digest does not match its content' \
	    "$(sbxctl)" gates validate auto c.json --config sbx.conf
}

report_cleanup()
{
	cleanup_monitor
}

atf_test_case decisions cleanup
decisions_head()
{
	atf_set "descr" "Breaches per gate kind and --exit-decision" \
	    "(0 PROMOTE, 10 HOLD, 11 ROLLBACK; exit 0 without it)"
}
decisions_body()
{
	conf
	atf_check -o match:'"decision": "HOLD"' sh evaluate fr-a12.metrics.json
	atf_check -s exit:10 -o ignore sh evaluate fr-a12.metrics.json \
	    holdout.json upstream-clean.json --exit-decision
	atf_check -s exit:11 -o save:r.json sh evaluate fr-b1.metrics.json \
	    holdout.json upstream-clean.json --exit-decision
	atf_check -o match:'blocking-events:count-breaches-threshold' cat r.json
	atf_check -s exit:0 -o ignore sh evaluate passing.metrics.json \
	    holdout.json upstream-clean.json --exit-decision
	atf_check -s exit:11 -o save:p.json sh evaluate paired-breach.metrics.json \
	    holdout.json upstream-clean.json --exit-decision
	atf_check -o match:'contrast-ni:lower-bound-below-margin' cat p.json
	atf_check -o save:e.json sh evaluate evidence-empty.metrics.json
	atf_check -o match:'release-evidence:evidence-missing' cat e.json
	atf_check -o save:l.json sh evaluate latency.metrics.json
	atf_check -o match:'latency-cap:value-breaches-threshold' cat l.json
	atf_check -o match:'delta-bootstrap:statistic-invalid' cat l.json
	atf_check -s exit:10 -o save:h.json sh evaluate passing.metrics.json \
	    holdout.json upstream-hold.json --exit-decision
	atf_check -o match:'upstream:upstream-integrity-hold' cat h.json
	atf_check -s exit:11 -o save:x.json sh evaluate passing.metrics.json \
	    holdout.json upstream-compromised.json --exit-decision
	atf_check -o match:'integrity-ceiling:upstream-compromised' cat x.json
}

decisions_cleanup()
{
	cleanup_monitor
}

atf_test_case refusals cleanup
refusals_head()
{
	atf_set "descr" "Refusals print the reference's message and exit 1;" \
	    "a wrong command line exits 2"
}
refusals_body()
{
	conf
	atf_check -s exit:1 \
	    -e match:'must already carry its sealed digest \(refusing to auto-seal\)' \
	    sh evaluate passing.metrics.json holdout-unsealed.json
	atf_check -s exit:1 \
	    -e match:'binding froze at or after holdout access: evaluation refused' \
	    sh evaluate passing.metrics.json holdout-at-freeze.json
	atf_check -s exit:1 \
	    -e match:'upstream integrity digest does not match its report' \
	    sh evaluate passing.metrics.json holdout.json upstream-forged.json
	# Without --upstream: the bound integrity ceiling needs it.
	atf_check -s exit:1 -e match:'requires a sealed upstream record' \
	    "$(sbxctl)" gates evaluate \
	    --binding "$(fx conformance-run.binding.json)" \
	    --metrics "$(fx passing.metrics.json)" \
	    --holdout "$(fx holdout.json)" --now "$NOW" \
	    --trusted-binding-digest "$BDIGEST"
	atf_check -s exit:1 \
	    -e match:'binding digest does not match its trusted pin' \
	    "$(sbxctl)" gates evaluate \
	    --binding "$(fx conformance-run.binding.json)" \
	    --metrics "$(fx passing.metrics.json)" \
	    --holdout "$(fx holdout.json)" \
	    --upstream "$(fx upstream-clean.json)" --now "$NOW" \
	    --trusted-binding-digest \
	    sha256:0000000000000000000000000000000000000000000000000000000000000000
	atf_check -s exit:1 \
	    -e match:'evaluation timestamp is not a valid date-time' \
	    "$(sbxctl)" gates evaluate \
	    --binding "$(fx conformance-run.binding.json)" \
	    --metrics "$(fx passing.metrics.json)" \
	    --holdout "$(fx holdout.json)" \
	    --upstream "$(fx upstream-clean.json)" --now soon \
	    --trusted-binding-digest "$BDIGEST"
	atf_check -s exit:1 -e match:"ENOENT: no such file or directory" \
	    sh evaluate missing.metrics.json
	atf_check -s exit:2 -e match:'gates evaluate requires --binding' \
	    "$(sbxctl)" gates evaluate --binding x --metrics y
	atf_check -s exit:2 -e match:'trusted-binding-digest' \
	    "$(sbxctl)" gates evaluate --binding x --metrics y --holdout z \
	    --now "$NOW" --trusted-binding-digest sha256:ABC
	atf_check -s exit:2 -e match:'unknown subcommand' \
	    "$(sbxctl)" gates frobnicate
}

refusals_cleanup()
{
	cleanup_monitor
}

atf_test_case floors cleanup
floors_head()
{
	atf_set "descr" "Operator floors and ceilings bind every binding;" \
	    "an agent's project pack cannot loosen or shadow them"
}
floors_body()
{
	conf "$(fx floor-strict.config.json)"
	atf_check -s exit:1 -e match:"binding 'test-gates/conformance-run' loosens project floor gate 'false-ready-upper' \(floor pack 'project:floor'\): gate false-ready-upper threshold 50 -> 100 loosens direction lower-is-stricter" \
	    sh evaluate passing.metrics.json
	atf_check -s exit:2 -o match:'loosens project floor gate' \
	    "$(sbxctl)" gates validate binding \
	    "$(fx conformance-run.binding.json)" --config sbx.conf
	conf "$(fx floor-loose.config.json)"
	atf_check -o match:'"mode": "applied"' sh evaluate passing.metrics.json
	conf "$(fx ceiling-hold.config.json)"
	atf_check -s exit:1 -e match:"declares ceiling PROMOTE below the project ceiling HOLD for this study" \
	    sh evaluate passing.metrics.json
	conf "$(fx ceiling-starless.config.json)"
	atf_check -s exit:1 -e match:"invalid gates section in aiwg.config:" \
	    -e match:"per-study ceilings require the project-wide '\*' default ceiling" \
	    sh evaluate passing.metrics.json
	# An agent's pack cannot take the aiwg: namespace: not from a
	# bundle directory, not as a single file, and not in evaluate.
	conf
	atf_check -s exit:1 \
	    -e match:'namespace does not match contribution origin project' \
	    "$(sbxctl)" gates list --config sbx.conf --pack-dir "$(fx shadow)"
	atf_check -s exit:1 -e match:"gate pack rejected: $(fx shadow/gate-packs/evil.gatepack.json): pack aiwg:decision-engine/integrity-ceiling-lax from --pack-dir must use the project: namespace" \
	    "$(sbxctl)" gates list --config sbx.conf \
	    --pack-dir "$(fx shadow/gate-packs/evil.gatepack.json)"
	atf_check -s exit:1 -o empty \
	    -e match:'namespace does not match contribution origin project' \
	    sh evaluate passing.metrics.json holdout.json upstream-clean.json \
	    --pack-dir "$(fx shadow)"
	atf_check -o match:'"id": "project:local-latency"' \
	    -o match:'"namespace": "project"' \
	    "$(sbxctl)" gates list --config sbx.conf --namespace project \
	    --pack-dir "$(fx project)"
}

floors_cleanup()
{
	cleanup_monitor
}

atf_test_case routed cleanup
routed_head()
{
	atf_set "descr" "evaluate goes through the monitor to the provider" \
	    "runner (its audit shows the job), never in process: with no" \
	    "monitor, in a runner sbxctl starts, naming the socket tried"
}
routed_body()
{
	conf
	atf_check -o match:'"decision": "PROMOTE"' sh evaluate \
	    passing.metrics.json
	D=$(cat tmpdir)
	atf_check -o match:'"event":"gates-evaluate".*job 1: now 2026-09-03T00:00:00.000Z, 4 documents' \
	    cat "$D/audit.jsonl"
	atf_check -o match:'"event":"gates-evaluate".*job 1: PROMOTE' \
	    cat "$D/audit.jsonl"
	# A refusal is the runner's, audited with its class.
	atf_check -s exit:1 -o empty -e match:'refusing to auto-seal' \
	    sh evaluate passing.metrics.json holdout-unsealed.json
	atf_check -o match:'job 2: refused \(input\): holdout file must already carry its sealed digest' \
	    cat "$D/audit.jsonl"
	# No monitor: the runner started by sbxctl, never this process
	# (gates-offline.sh: the same report, confined).
	atf_check -o match:'"decision": "PROMOTE"' \
	    -e match:"gates evaluate: no monitor \\(cannot reach the monitor at $PWD/no.sock" \
	    -e match:'evaluating offline in sbx-provider-runner' \
	    env SBX_SOCKET="$PWD/no.sock" sh evaluate passing.metrics.json \
	    holdout.json upstream-clean.json --config sbx.conf
	# The floors and packs are the monitor's alone.
	atf_check -s exit:2 -e match:'--config has no effect' \
	    sh evaluate passing.metrics.json holdout.json upstream-clean.json \
	    --config sbx.conf
}
routed_cleanup()
{
	cleanup_monitor
}

atf_test_case order cleanup
order_head()
{
	atf_set "descr" "A file sbxctl cannot open is refused by the runner" \
	    "in the reference's order: registry, floors, binding, metrics," \
	    "holdout, upstream; a refusal longer than the error reply's" \
	    "bound arrives whole"
}
order_body()
{
	conf
	atf_check -s exit:1 -o empty \
	    -e inline:"sbxctl: ENOENT: no such file or directory, open '$(fx nosuch.metrics.json)'\n" \
	    sh evaluate nosuch.metrics.json
	# A directory reads as node's readFile of one.
	atf_check -s exit:1 -o empty \
	    -e inline:"sbxctl: EISDIR: illegal operation on a directory, read\n" \
	    sh evaluate .
	# The binding before the metrics, each named absolute.
	cd "$(fx)"
	atf_check -s exit:1 -o empty \
	    -e inline:"sbxctl: ENOENT: no such file or directory, open '$(pwd -P)/nosuch.binding.json'\n" \
	    "$(sbxctl)" gates evaluate --binding ./nosuch.binding.json \
	    --metrics nosuch.metrics.json --holdout holdout.json \
	    --now "$NOW" --trusted-binding-digest "$BDIGEST"
	cd - >/dev/null
	# The floors before the binding.
	echo '{not-json' > bad.json
	conf "$PWD/bad.json"
	atf_check -s exit:1 -o empty \
	    -e match:'refusing evaluation: invalid gates section in aiwg.config:' \
	    "$(sbxctl)" gates evaluate --binding nosuch.json \
	    --metrics "$(fx passing.metrics.json)" \
	    --holdout "$(fx holdout.json)" --now "$NOW" \
	    --trusted-binding-digest "$BDIGEST"
	# The pack dirs (the registry) before the floors.
	atf_check -s exit:1 -o empty \
	    -e match:"gate pack unreadable: $PWD/nowhere: ENOENT: no such file or directory, lstat '$PWD/nowhere'" \
	    sh evaluate passing.metrics.json holdout.json upstream-clean.json \
	    --pack-dir nowhere
	ln -s "$(fx project)" linked
	atf_check -s exit:1 -o empty \
	    -e match:"gate pack path must not be a symlink: $PWD/linked" \
	    sh evaluate passing.metrics.json holdout.json upstream-clean.json \
	    --pack-dir linked
	# Many configuration errors: more than the 1 KiB error reply.
	printf '{"gates":{"floors":[' > long.json
	i=0
	while [ $i -lt 40 ]; do
		printf '{"pack":"nosuch:pack-%02d"},' $i >> long.json
		i=$((i + 1))
	done
	printf '{"pack":"nosuch:last"}]}}\n' >> long.json
	conf "$PWD/long.json"
	atf_check -s exit:1 -o empty -e save:long.err \
	    sh evaluate passing.metrics.json
	atf_check -o match:'gates.floors\[40\].pack' cat long.err
	[ "$(wc -c < long.err)" -gt 1100 ] ||
	    atf_fail "the refusal was cut to $(wc -c < long.err) bytes"
}
order_cleanup()
{
	cleanup_monitor
}

atf_test_case manifests cleanup
manifests_head()
{
	atf_set "descr" "A --pack-dir directory is a bundle read as the" \
	    "reference reads it: manifest.json's gate-packs directory and" \
	    "name filter, a declared name with no file, an unsafe directory," \
	    "a claimed operator bundle id; in list and in evaluate alike"
}
manifests_body()
{
	conf
	mkdir -p b/packs
	cp "$(fx project/gate-packs/local.gatepack.yaml)" \
	    b/packs/local.gatepack.yaml
	echo '{' > b/packs/draft.gatepack.json
	echo '{"entry":{"gatePacks":"packs"},"gatePacks":["local"]}' \
	    > b/manifest.json
	chmod -R go+rX b
	atf_check -o match:'"id": "project:local-latency"' \
	    "$(sbxctl)" gates list --config sbx.conf --namespace project \
	    --pack-dir b
	atf_check -o match:'"decision": "PROMOTE"' sh evaluate \
	    passing.metrics.json holdout.json upstream-clean.json --pack-dir b
	# Without the filter the draft is read, and refuses.
	echo '{"entry":{"gatePacks":"packs"}}' > b/manifest.json
	atf_check -s exit:1 \
	    -e match:"gate pack unparseable: $PWD/b/packs/draft.gatepack.json: Decision entry rejected: invalid-json" \
	    "$(sbxctl)" gates list --config sbx.conf --pack-dir b
	atf_check -s exit:1 -o empty \
	    -e match:"gate pack unparseable: $PWD/b/packs/draft.gatepack.json" \
	    sh evaluate passing.metrics.json holdout.json upstream-clean.json \
	    --pack-dir b
	echo '{"entry":{"gatePacks":"packs"},"gatePacks":["local","gone"]}' \
	    > b/manifest.json
	atf_check -s exit:1 \
	    -e match:"gate pack missing: $PWD/b/packs/gone.gatepack.yaml \(declared by manifest\)" \
	    "$(sbxctl)" gates list --config sbx.conf --pack-dir b
	echo '{"entry":{"gatePacks":"../packs"}}' > b/manifest.json
	atf_check -s exit:1 \
	    -e match:"gatePacks dir '../packs' must be a relative path inside the bundle" \
	    "$(sbxctl)" gates list --config sbx.conf --pack-dir b
	# An agent's bundle passing itself off as the operator's.
	echo '{"id":"test-gates","type":"addon"}' > b/manifest.json
	atf_check -s exit:1 -o empty \
	    -e match:"pack-dir bundle claims a shipped bundle id 'test-gates' that is not its own directory: $PWD/b" \
	    sh evaluate passing.metrics.json holdout.json upstream-clean.json \
	    --pack-dir b
	atf_check -s exit:1 \
	    -e match:"claims a shipped bundle id 'test-gates'" \
	    "$(sbxctl)" gates list --config sbx.conf --pack-dir b
}
manifests_cleanup()
{
	cleanup_monitor
}

atf_test_case list_rule
list_rule_head()
{
	atf_set "descr" "list --rule: the reference's enforcedBy stub, and" \
	    "with a rule id only the packs its rule files name"
}
list_rule_body()
{
	mkdir -p ops/test-gates/rules
	cp -R "$(fx gate-packs)/test-gates/gate-packs" ops/test-gates/
	printf -- '---\nname: no-false-ready\nenforcedBy:\n  - aiwg:test-gates/conformance-v1#false-ready-upper\n---\nbody\n' \
	    > ops/test-gates/rules/no-false-ready.md
	printf 'gate-packs "%s"\nprovider-allowlist "%s"\n' "$PWD/ops" \
	    "$PWD/none.json" > sbx.conf
	atf_check -o save:all.json "$(sbxctl)" gates list --config sbx.conf \
	    --rule
	atf_check -o match:'"status": "stub"' \
	    -o match:'"note": "Rule enforcedBy coverage is tracked in #2839; rules without enforcedBy remain guidance."' \
	    -o match:'"id": "aiwg:decision-engine/integrity-ceiling"' \
	    -o not-match:'"rule":' cat all.json
	atf_check -o save:one.json "$(sbxctl)" gates list --config sbx.conf \
	    --rule no-false-ready
	atf_check -o match:'"rule": "no-false-ready"' \
	    -o match:'"id": "aiwg:test-gates/conformance-v1"' \
	    -o not-match:'integrity-ceiling' \
	    -o match:'"note": "Rule enforcedBy coverage is tracked in #2839."' \
	    cat one.json
	# A rule id ending in the rule's name matches; another does not.
	atf_check -o match:'"id": "aiwg:test-gates/conformance-v1"' \
	    "$(sbxctl)" gates list --config sbx.conf \
	    --rule test-gates/rules/no-false-ready
	atf_check -o not-match:'"id":' "$(sbxctl)" gates list \
	    --config sbx.conf --rule other-rule
	# A "-" word after --rule is no rule id.
	atf_check -o not-match:'"rule":' -o match:'"enforcedBy"' \
	    -o not-match:'"namespace": "aiwg"' "$(sbxctl)" gates list \
	    --config sbx.conf --rule --namespace project
}

atf_test_case validate
validate_head()
{
	atf_set "descr" "validate prints the reference's result object and" \
	    "exits 0 valid, 2 invalid"
}
validate_body()
{
	oconf
	atf_check -o match:'"valid": true' -o match:'"kind": "pack"' \
	    "$(sbxctl)" gates validate pack \
	    "$(fx project/gate-packs/local.gatepack.yaml)" --config sbx.conf
	atf_check -s exit:2 -o match:'"valid": false' \
	    -o match:'GatePack schema validation failed: /metadata/version must match pattern' \
	    -o match:'/spec must NOT have additional properties' \
	    "$(sbxctl)" gates validate auto \
	    "$(fx invalid-extra.gatepack.json)" --config sbx.conf
	# The reference's upgraded-decision fixture: schema and self digest
	# hold (only a re-evaluation finds the upgrade).
	atf_check -o match:'"valid": true' -o match:'"kind": "report"' \
	    "$(sbxctl)" gates validate auto "$(fx upgraded.report.json)" \
	    --config sbx.conf
	atf_check -s exit:2 -o match:'"errors": \[' \
	    -o match:'ENOENT' "$(sbxctl)" gates validate pack nosuch.json
	# validate report: the closed schema (floors required, nothing
	# extra), the kind, the self digest -- no re-evaluation.
	sed 's/^  "kind": "GateReport",/  "kind": "GateReport", "extra": 1,/' \
	    "$(fx upgraded.report.json)" > extra.json
	atf_check -s exit:2 \
	    -o match:'GateReport schema validation failed: / must NOT have additional properties' \
	    "$(sbxctl)" gates validate report extra.json
	sed '/^  "floors": {/,/^  },/d' "$(fx upgraded.report.json)" \
	    > nofloors.json
	atf_check -s exit:2 \
	    -o match:"GateReport schema validation failed: / must have required property 'floors'" \
	    "$(sbxctl)" gates validate report nofloors.json
	atf_check -s exit:2 -o match:'"errors": \[' \
	    -o match:'expected kind GateReport' "$(sbxctl)" gates validate \
	    report "$(fx conformance-run.binding.json)"
	atf_check -s exit:2 -e ignore "$(sbxctl)" gates validate pact x
}

atf_test_case helpers
helpers_head()
{
	atf_set "descr" "digest and seal-holdout produce the inputs evaluate" \
	    "accepts; show and list read the registry"
}
helpers_body()
{
	oconf
	atf_check -o inline:"$BDIGEST\n" "$(sbxctl)" gates digest \
	    "$(fx conformance-run.binding.json)"
	atf_check -o save:h.json "$(sbxctl)" gates seal-holdout \
	    --binding "$(fx conformance-run.binding.json)"
	atf_check cmp h.json "$(fx holdout.json)"
	atf_check -o save:h2.json "$(sbxctl)" gates seal-holdout \
	    --binding "$(fx conformance-run.binding.json)" \
	    --accessed-at 2026-09-02T12:00:00.000Z
	atf_check -o match:'"firstAccessedAt": "2026-09-02T12:00:00.000Z"' \
	    cat h2.json
	atf_check -s exit:2 -e match:'not a date-time' "$(sbxctl)" gates \
	    seal-holdout --binding "$(fx conformance-run.binding.json)" \
	    --accessed-at tomorrow
	atf_check -o match:'"id": "aiwg:decision-engine/integrity-ceiling"' \
	    "$(sbxctl)" gates show integrity-ceiling --config sbx.conf
	atf_check -o match:'"id": "aiwg:test-gates/conformance-v1"' \
	    "$(sbxctl)" gates list --config sbx.conf --namespace aiwg
}

atf_test_case verify cleanup
verify_head()
{
	atf_set "descr" "verify, through the monitor: a report evaluate" \
	    "printed verifies (exit 0); a tampered report or other inputs" \
	    "give the reference's reasons in its order (exit 1); usage 2"
}
verify_body()
{
	conf
	cat > verify <<EOS
r=\$1 m=\${2:-passing.metrics.json} h=\${3:-holdout.json}
shift; [ \$# -gt 0 ] && shift; [ \$# -gt 0 ] && shift
exec "$(sbxctl)" gates verify --report "\$r" \\
    --binding "$(fx conformance-run.binding.json)" \\
    --metrics "$(fx)/\$m" --holdout "$(fx)/\$h" \\
    --upstream "$(fx upstream-clean.json)" \\
    --trusted-binding-digest "$BDIGEST" "\$@"
EOS
	printf '{\n  "valid": true,\n  "reasons": []\n}\n' > valid.json
	atf_check -o save:a.json sh evaluate passing.metrics.json
	atf_check -o file:valid.json sh verify a.json
	D=$(cat tmpdir)
	atf_check -o match:'"event":"gates-verify".*job 2: 5 documents' \
	    -o match:'"event":"gates-verify".*job 2: valid' \
	    cat "$D/audit.jsonl"
	# Past the 256 KiB of other documents (its indentation can take
	# an honest report there), a report is still read.
	{ cat a.json; head -c 300000 /dev/zero | tr '\0' ' '; } > pad.json
	atf_check -o file:valid.json sh verify pad.json
	atf_check -o save:h.json sh evaluate fr-a12.metrics.json
	atf_check -o file:valid.json sh verify h.json fr-a12.metrics.json

	# The decision edited: the digest, the re-derivation and the
	# decision disagree.
	sed 's/"decision": "PROMOTE"/"decision": "HOLD"/' a.json > up.json
	printf '{\n  "valid": false,\n  "reasons": [\n%s,\n%s,\n%s\n  ]\n}\n' \
	    '    "report-digest-mismatch"' \
	    '    "report-reevaluation-mismatch"' \
	    '    "report-decision-mismatch"' > up.want
	atf_check -s exit:1 -o file:up.want sh verify up.json
	atf_check -o match:'"event":"gates-verify".*: not valid' \
	    cat "$D/audit.jsonl"
	# The honest report against other metrics.
	atf_check -s exit:1 -o match:'"report-metrics-mismatch",' \
	    -o match:'"report-reevaluation-mismatch",' \
	    -o match:'"report-decision-mismatch"' \
	    -o not-match:'report-digest-mismatch' \
	    sh verify a.json fr-a12.metrics.json
	# Another holdout: the re-evaluation's refusal is a reason.
	atf_check -s exit:1 -o match:'"report-holdout-mismatch",' \
	    -o match:'"report-reevaluation:binding froze at or after holdout access: evaluation refused"' \
	    sh verify a.json passing.metrics.json holdout-at-freeze.json
	# Not a report: the schema's reason alone.
	echo '[]' > arr.json
	atf_check -s exit:1 \
	    -o match:'"report-schema:Gate document must be an object"' \
	    sh verify arr.json
	# The operator's floors are the monitor's: a report made under
	# others does not verify.
	conf "$(fx floor-loose.config.json)"
	atf_check -s exit:1 -o match:'"report-floors-mismatch",' \
	    -o match:'"report-reevaluation-mismatch"' sh verify a.json
	conf
	# An input that cannot be read is a refusal, not a verdict.
	atf_check -s exit:1 -o empty -e match:'nosuch.json' \
	    sh verify nosuch.json
	# Usage.
	atf_check -s exit:2 -e match:'gates verify requires --report' \
	    "$(sbxctl)" gates verify --binding x --metrics y --holdout z \
	    --trusted-binding-digest "$BDIGEST"
	atf_check -s exit:2 -e match:'--now has no effect' \
	    sh verify a.json passing.metrics.json holdout.json --now "$NOW"
	atf_check -s exit:2 -e match:'must match' \
	    "$(sbxctl)" gates verify --report a.json --binding x \
	    --metrics y --holdout z --trusted-binding-digest sha256:0
}
verify_cleanup()
{
	cleanup_monitor
}

atf_init_test_cases()
{
	atf_add_test_case report
	atf_add_test_case decisions
	atf_add_test_case refusals
	atf_add_test_case floors
	atf_add_test_case routed
	atf_add_test_case order
	atf_add_test_case manifests
	atf_add_test_case list_rule
	atf_add_test_case validate
	atf_add_test_case helpers
	atf_add_test_case verify
}
