#!/bin/sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# b_gates.sh BUILD: what a gate evaluation costs.
#
#   - "sbxctl gates evaluate" on the conformance fixtures
#     (regress/fixtures/gates: the conformance pack as an operator pack,
#     its binding, passing metrics, sealed holdout and upstream), the
#     routed path every evaluation takes: sbxctl, the monitor, the
#     provider runner's reading and engine, the report back through a
#     pipe; median and p99 of RUNS runs by regress/helpers/benchrun,
#     beside "sbxctl ping" on the same monitor (the control round trip
#     and sbxctl's start, which the evaluation pays too);
#   - the same evaluation by the engine alone, in process
#     (regress/helpers/gates_eval_bench: gates_evaluate, no reading, no
#     routing), which the two figures above differ from;
#   - a bootstrap-bound gate's statistic, the most expensive in the
#     engine: pairedMeanDifferenceBootstrap over 1,000 paired differences
#     at 10,000 and 100,000 resamples, in process
#     (regress/helpers/gates_stats_bench, median of SRUNS runs after one
#     untimed), side by side with the same algorithm in node
#     (regress/gates-stats-ref.mjs bench), the anchor: the reference
#     computes it in JavaScript.  Both print the bps figures they got,
#     which must be the same.
#
# A benchmark is not a test: nothing is asserted about speed; it exits
# non-zero only when it could not measure.
set -u
B=${1:-build}
top=$(pwd)
. "$top/regress/monitor.subr"
H=$top/$B/regress/helpers/gates_stats_bench
E=$top/$B/regress/helpers/gates_eval_bench
R=$top/$B/regress/helpers/benchrun
M=$top/$B/sbin/sbx-monitor
C=$top/$B/bin/sbxctl
FX=$top/regress/fixtures/gates
RUNS=${RUNS:-100}
WARM=${WARM:-5}
SRUNS=${SRUNS:-5}
NDIFF=${NDIFF:-1000}
NOW=2026-09-03T00:00:00.000Z

die() { echo "b_gates: $*" >&2; exit 1; }

for f in "$H" "$E" "$R" "$M" "$C"; do
	[ -x "$f" ] || die "$f is missing (make tests)"
done

D=$(mktemp -d /tmp/sbx-bench-gates.XXXXXX) || die "mktemp failed"
chmod 711 "$D"
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid"
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

# ---- the routed evaluation --------------------------------------------
cp -R "$FX/gate-packs" "$D/gate-packs"
chmod -R go+rX "$D/gate-packs"
{
	echo "socket \"$D/run/sbx.sock\""
	echo "user \"nobody\""
	echo "gate-packs \"$D/gate-packs\""
	echo "provider-allowlist \"$D/none.json\""
} > "$D/sbx.conf"
chmod 644 "$D/sbx.conf"
sbx_monitor_start "$M" "$C" "$D/sbx.conf" "$D/run/sbx.sock" "$D/mon.log" ||
    die "the monitor did not start"
pid=$sbx_monitor_pid
digest=$("$C" gates digest "$FX/conformance-run.binding.json") ||
    die "gates digest failed"
set -- --binding "$FX/conformance-run.binding.json" \
    --metrics "$FX/passing.metrics.json" --holdout "$FX/holdout.json" \
    --upstream "$FX/upstream-clean.json" --now "$NOW" \
    --trusted-binding-digest "$digest"
"$C" -s "$D/run/sbx.sock" gates evaluate "$@" > "$D/report.json" ||
    die "gates evaluate failed: $(cat "$D/report.json")"
routed=$(sed -n 's/^  "digest": "\(.*\)"$/\1/p' "$D/report.json")
echo "gates evaluate, conformance fixtures, ms ($RUNS runs after $WARM" \
    "warm-up, interleaved)"
echo "what                                   median       p99"
"$R" -w "$WARM" "$RUNS" \
    ::: evaluate "$C" -s "$D/run/sbx.sock" gates evaluate "$@" \
    ::: ping "$C" -s "$D/run/sbx.sock" ping \
    > "$D/routed" || die "benchrun failed"
awk '{ printf "%-32s %10.3f %10.3f\n", ($1 == "evaluate" ? \
    "sbxctl gates evaluate (routed)" : "sbxctl ping (same monitor)"), \
    $5 / 1000, $15 / 1000 }' "$D/routed"
e=$("$E" "$FX/conformance-v1.gatepack.json" test-gates "$FX/conformance-run.binding.json" \
    "$FX/passing.metrics.json" "$FX/holdout.json" "$FX/upstream-clean.json" \
    "$NOW" "$digest" "$RUNS") || die "gates_eval_bench failed"
echo "$e" | awk '{ printf "%-32s %10.3f %10.3f\n", \
    "engine alone, in process", $5, $7 }'
[ "${e##* digest }" = "$routed" ] ||
    echo "b_gates: the engine's report digest ${e##* digest } differs from the routed $routed"

# ---- the bootstrap statistic ------------------------------------------
for r in 10000 100000; do
	c=$("$H" "$r" "$NDIFF" "$SRUNS") || die "gates_stats_bench $r failed"
	echo "$c"
	if command -v node >/dev/null 2>&1; then
		j=$(node "$top/regress/gates-stats-ref.mjs" bench "$r" "$NDIFF" \
		    "$SRUNS") || die "node bench $r failed"
		echo "$j"
		[ "${c##* bps }" = "${j##* bps }" ] ||
		    echo "b_gates: figures differ from node's at $r resamples"
	else
		echo "node: not on PATH, no anchor"
	fi
done
exit 0
