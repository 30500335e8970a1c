#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# gates-offline.sh: "sbxctl gates evaluate" and "verify" with no monitor
# (--offline, or none reachable): the job runs in a provider runner that
# sbxctl starts itself, the confined program, and prints what the routed
# evaluation prints, byte for byte, for the same inputs and the same
# sbx.conf (--config).  The gates.sh cases without a bundle pin run both
# ways in a loop; a bundle pin refuses offline naming the pin and the
# socket tried.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

fx() { echo "$(atf_get_srcdir)/top/regress/fixtures/gates/$1"; }

BDIGEST=sha256:713127fce4b97506487ce80c65998b29b110aff148156496336c6a859948149c
NOW=2026-09-03T00:00:00.000Z

# start: a private monitor whose sbx.conf names a copy of the operator's
# packs and $D/gates.json; offline runs read the same sbx.conf.
start()
{
	sbx_test_paths
	sbx_test_dir sbxgoff
	cp -R "$(fx gate-packs)" "$D/gate-packs"
	chmod -R go+rX "$D/gate-packs"
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "gate-packs \"$D/gate-packs\""
		echo "provider-allowlist \"$D/gates.json\""
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
}

# floors [CONFIG]: the operator's gates configuration (none without one).
floors()
{
	rm -f "$D/gates.json"
	if [ -n "${1:-}" ]; then
		cp "$1" "$D/gates.json"
		chmod 644 "$D/gates.json"
	fi
}

cleanup_monitor()
{
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

# both NAME ARGS...: gates ARGS routed and offline; stdout and the exit
# status equal, stderr equal but for the offline run's notes.
both()
{
	n=$1
	shift
	SBX_SOCKET=$SOCK "$C" gates "$@" > "$n.r.out" 2> "$n.r.err"
	rs=$?
	SBX_SOCKET=$SOCK "$C" gates "$@" --offline --config "$D/sbx.conf" \
	    > "$n.o.out" 2> "$n.o.raw"
	os=$?
	grep -v '^sbxctl: gates [a-z]*: offline: ' "$n.o.raw" > "$n.o.err"
	[ $rs -eq $os ] || atf_fail "$n: exit $rs routed, $os offline"
	cmp -s "$n.r.out" "$n.o.out" ||
	    atf_fail "$n: stdout differs: $(diff "$n.r.out" "$n.o.out" | head -5)"
	cmp -s "$n.r.err" "$n.o.err" ||
	    atf_fail "$n: stderr differs: $(diff "$n.r.err" "$n.o.err" | head -5)"
	grep -q "offline: $D/sbx.conf: gate-packs $D/gate-packs, floors and ceilings from $D/gates.json" \
	    "$n.o.raw" || atf_fail "$n: the floors applied are not named: $(cat "$n.o.raw")"
	echo "$n: exit $rs, $(wc -c < "$n.r.out") bytes" >> cases.log
}

# ev NAME METRICS [HOLDOUT [UPSTREAM]] [ARG...]: an evaluate of the
# conformance binding, both ways.
ev()
{
	_n=$1 _m=$2 _h=${3:-holdout.json} _u=${4:-upstream-clean.json}
	shift 2; [ $# -gt 0 ] && shift; [ $# -gt 0 ] && shift
	both "$_n" evaluate --binding "$(fx conformance-run.binding.json)" \
	    --metrics "$(fx)/$_m" --holdout "$(fx)/$_h" \
	    --upstream "$(fx)/$_u" --now "$NOW" \
	    --trusted-binding-digest "$BDIGEST" "$@"
}

atf_test_case identical cleanup
identical_head()
{
	atf_set "descr" "Every gates.sh evaluation and verification without a" \
	    "bundle pin gives offline the routed output byte for byte, under" \
	    "each operator gates configuration"
}
identical_body()
{
	start
	floors
	for m in passing fr-a12 fr-b1 paired-breach evidence-empty latency; do
		ev "$m" "$m.metrics.json"
		ev "$m-x" "$m.metrics.json" holdout.json upstream-clean.json \
		    --exit-decision
	done
	ev hold passing.metrics.json holdout.json upstream-hold.json
	ev compromised passing.metrics.json holdout.json \
	    upstream-compromised.json --exit-decision
	ev unsealed passing.metrics.json holdout-unsealed.json
	ev freeze passing.metrics.json holdout-at-freeze.json
	ev forged passing.metrics.json holdout.json upstream-forged.json
	ev missing nosuch.metrics.json
	ev project passing.metrics.json holdout.json upstream-clean.json \
	    --pack-dir "$(fx project)"
	ev shadow passing.metrics.json holdout.json upstream-clean.json \
	    --pack-dir "$(fx shadow)"
	ev nowhere passing.metrics.json holdout.json upstream-clean.json \
	    --pack-dir "$PWD/nowhere"
	both noupstream evaluate --binding "$(fx conformance-run.binding.json)" \
	    --metrics "$(fx passing.metrics.json)" \
	    --holdout "$(fx holdout.json)" --now "$NOW" \
	    --trusted-binding-digest "$BDIGEST"
	both soon evaluate --binding "$(fx conformance-run.binding.json)" \
	    --metrics "$(fx passing.metrics.json)" \
	    --holdout "$(fx holdout.json)" \
	    --upstream "$(fx upstream-clean.json)" --now soon \
	    --trusted-binding-digest "$BDIGEST"
	both untrusted evaluate --binding "$(fx conformance-run.binding.json)" \
	    --metrics "$(fx passing.metrics.json)" \
	    --holdout "$(fx holdout.json)" \
	    --upstream "$(fx upstream-clean.json)" --now "$NOW" \
	    --trusted-binding-digest \
	    sha256:0000000000000000000000000000000000000000000000000000000000000000
	# verify: the passing report, and the same report edited.
	sed 's/"decision": "PROMOTE"/"decision": "HOLD"/' passing.r.out \
	    > edited.json
	for r in passing.r.out edited.json; do
		both "verify-$r" verify --report "$PWD/$r" \
		    --binding "$(fx conformance-run.binding.json)" \
		    --metrics "$(fx passing.metrics.json)" \
		    --holdout "$(fx holdout.json)" \
		    --upstream "$(fx upstream-clean.json)" \
		    --trusted-binding-digest "$BDIGEST"
	done
	# The operator's floors and ceilings, as the monitor reads them.
	for c in floor-strict floor-loose ceiling-hold ceiling-starless; do
		floors "$(fx $c.config.json)"
		ev "$c" passing.metrics.json
	done
	echo '{not-json' > "$D/bad.json"
	floors "$D/bad.json"
	ev badconfig passing.metrics.json
	# Not a case that could pass by accident: reports and refusals.
	atf_check -o match:'"decision": "PROMOTE"' cat passing.o.out
	atf_check -o match:'"decision": "ROLLBACK"' cat fr-b1.o.out
	atf_check -o match:'"mode": "applied"' cat floor-loose.o.out
	atf_check -o match:'refusing to auto-seal' cat unsealed.o.err
	atf_check -o match:'loosens project floor gate' cat floor-strict.o.err
	atf_check -o match:'"valid": true' cat verify-passing.r.out.o.out
	atf_check -o match:'"valid": false' cat verify-edited.json.o.out
}
identical_cleanup()
{
	cleanup_monitor
}

atf_test_case confined cleanup
confined_head()
{
	atf_set "descr" "The offline evaluation runs in sbx-provider-runner," \
	    "a child of sbxctl under its privilege file (seccomp," \
	    "no_new_privs, an empty root; never root), not in sbxctl"
}
confined_body()
{
	sbx_test_paths
	printf 'gate-packs "%s"\nprovider-allowlist "%s"\n' \
	    "$(fx gate-packs)" "$PWD/none.json" > sbx.conf
	mkfifo binding.fifo
	# sbxctl starts the runner before it opens a document: while sbxctl
	# waits in open(2) for this FIFO's writer, the runner is there to be
	# looked at.
	SBX_SOCKET=$PWD/no.sock "$C" gates evaluate \
	    --binding binding.fifo --metrics "$(fx passing.metrics.json)" \
	    --holdout "$(fx holdout.json)" \
	    --upstream "$(fx upstream-clean.json)" --now "$NOW" \
	    --trusted-binding-digest "$BDIGEST" --config sbx.conf \
	    > out.json 2> err.txt &
	cpid=$!
	# Its runner appears (sbxctl then blocks until the FIFO has a writer).
	# A child found between fork and exec, or before it applied its
	# privilege file, is looked at again until it is the runner under its
	# filter; one that never gets there fails with what sbxctl said.
	i=0
	rpid=
	while [ -z "$rpid" ] && [ $i -lt 400 ] && kill -0 "$cpid" 2>/dev/null
	do
		for p in $(ps -o pid= --ppid "$cpid"); do
			[ "$(cat /proc/$p/comm 2>/dev/null)" = sbx-provider-ru ] &&
			    grep -q '^Seccomp:	2$' /proc/$p/status 2>/dev/null &&
			    rpid=$p
		done
		[ -n "$rpid" ] || sleep 0.05
		i=$((i + 1))
	done
	[ -n "$rpid" ] || atf_fail "sbxctl started no filtered runner:" \
	    "$(ps -o pid,comm --ppid "$cpid"; cat err.txt)"
	st=/proc/$rpid/status
	atf_check -o inline:"sbx-provider-ru\n" cat /proc/$rpid/comm
	atf_check -o match:'^Seccomp:	2$' -o match:'^NoNewPrivs:	1$' \
	    cat "$st"
	if [ "$(id -u)" -eq 0 ]; then
		atf_check -o match:"^Uid:	$(id -u nobody)	" cat "$st"
		atf_check -o match:'^CapEff:	0000000000000000$' cat "$st"
		atf_check -o empty ls -A "/proc/$rpid/root/"
	else
		atf_check -o match:"^Uid:	$(id -u)	" cat "$st"
	fi
	# Its environment is empty.
	[ -s "/proc/$rpid/environ" ] && atf_fail "the runner has an environment"
	exec 7> binding.fifo
	cat "$(fx conformance-run.binding.json)" >&7
	exec 7>&-
	# The runner read the document, and refused what is no regular
	# file, as the reference does: not sbxctl.
	wait "$cpid" && atf_fail "a FIFO binding was evaluated"
	atf_check -o empty cat out.json
	atf_check -o match:"no monitor \\(cannot reach the monitor at $PWD/no.sock" \
	    -o match:"offline: sbx.conf: gate-packs $(fx gate-packs), floors and ceilings from $PWD/none.json \\(missing: none\\)" \
	    -o match:"^sbxctl: $PWD/binding.fifo: not a regular file" \
	    cat err.txt
	# The same binding from a file: the reference's report.
	atf_check -o match:'"digest": "sha256:52659cbd46e45885d84f2ce3d8f7148f3b4f0343243b6a06f1efb1e34b645667"' \
	    -e ignore "$C" gates evaluate --offline \
	    --binding "$(fx conformance-run.binding.json)" \
	    --metrics "$(fx passing.metrics.json)" \
	    --holdout "$(fx holdout.json)" \
	    --upstream "$(fx upstream-clean.json)" --now "$NOW" \
	    --trusted-binding-digest "$BDIGEST" --config sbx.conf
}
confined_cleanup()
{
	exec 7>&- 2>/dev/null
	return 0
}

atf_test_case bundle_pin
bundle_pin_head()
{
	atf_set "descr" "Offline, a binding pinning a bundle provider refuses" \
	    "(exit 1) naming the pin and the monitor socket tried; with no" \
	    "sbx.conf the shipped packs and default floors apply"
}
bundle_pin_body()
{
	sbx_test_paths
	GX=$(atf_get_srcdir)/top/regress/fixtures/gates-example
	code=$(sed -n 's/.*"codeDigest": "\(sha256:[0-9a-f]*\)".*/\1/p' \
	    "$GX/binding.json" | head -1)
	printf 'provider-allowlist "%s"\n' "$PWD/none.json" > sbx.conf
	atf_check -s exit:1 -o empty \
	    -e match:"gates evaluate: the binding pins bundle provider example.count/v1 \\(codeDigest $code\\): re-running it needs sbx-monitor, which is not reachable at $PWD/no.sock" \
	    env SBX_SOCKET="$PWD/no.sock" "$C" gates evaluate --offline \
	    --config sbx.conf --binding "$GX/binding.json" \
	    --metrics "$GX/metrics.json" --holdout "$GX/holdout.json" \
	    --upstream "$GX/upstream.json" --now "$NOW" \
	    --trusted-binding-digest "$("$C" gates digest "$GX/binding.json")" \
	    --pack-dir "$GX/pack.json" \
	    --records "example.count/v1=$GX/records-clean.json"
	# --config with a monitor present would only look as if it applied:
	# tested in gates.sh (routed).  No sbx.conf at all: the note says so.
	conf=$(sed -n 's/^#define SBX_SYSCONFDIR "\(.*\)"$/\1/p' \
	    "$(atf_get_srcdir)/top/config.h")/sbx/sbx.conf
	if [ -r "$conf" ]; then
		return 0
	fi
	atf_check -s exit:1 -o empty \
	    -e match:"offline: no sbx.conf \\($conf not readable\\): the shipped packs and their default floors apply" \
	    -e match:"test-gates" \
	    env SBX_SOCKET="$PWD/no.sock" "$C" gates evaluate \
	    --binding "$(fx conformance-run.binding.json)" \
	    --metrics "$(fx passing.metrics.json)" \
	    --holdout "$(fx holdout.json)" \
	    --upstream "$(fx upstream-clean.json)" --now "$NOW" \
	    --trusted-binding-digest "$BDIGEST"
}

atf_init_test_cases()
{
	atf_add_test_case identical
	atf_add_test_case confined
	atf_add_test_case bundle_pin
}
