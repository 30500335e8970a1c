#!/bin/sh
# b_gates.sh BUILD: the cost of a bootstrap-bound gate's statistic, the
# most expensive in the gate engine: pairedMeanDifferenceBootstrap over
# 1,000 paired differences at 10,000 and 100,000 resamples, timed in
# process by regress/helpers/gates_stats_bench (median of RUNS runs after
# one untimed), side by side with the same algorithm in node
# (regress/gates-stats-ref.mjs bench), the anchor: the reference computes
# it in JavaScript.  Both print the bps figures they got, which must be
# the same.  A benchmark is not a test: nothing is asserted about speed;
# it exits non-zero only when it could not measure.
set -u
B=${1:-build}
top=$(pwd)
H=$top/$B/regress/helpers/gates_stats_bench
RUNS=${RUNS:-5}
NDIFF=${NDIFF:-1000}

die() { echo "b_gates: $*" >&2; exit 1; }

[ -x "$H" ] || die "$H is missing (make $B/regress/helpers/gates_stats_bench)"
for r in 10000 100000; do
	c=$("$H" "$r" "$NDIFF" "$RUNS") || die "gates_stats_bench $r failed"
	echo "$c"
	if command -v node >/dev/null 2>&1; then
		j=$(node "$top/regress/gates-stats-ref.mjs" bench "$r" "$NDIFF" \
		    "$RUNS") || die "node bench $r failed"
		echo "$j"
		[ "${c##* bps }" = "${j##* bps }" ] ||
		    echo "b_gates: figures differ from node's at $r resamples"
	else
		echo "node: not on PATH, no anchor"
	fi
done
exit 0
