#!/bin/sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# b_digest.sh BUILD: a records digest, sbx side by side with node.
#
#   - `sbxctl digest records FILE` against node computing the same
#     canonical digest of the same file (regress/canon-ref.mjs digest:
#     JSON.parse, keys sorted with the default sort, scalars by
#     JSON.stringify, sha256), on 4,096 records (the reference's own
#     limit) and on 50,000 (provider-max-records' default).  The records
#     (regress/canon-ref.mjs records) carry numbers with fractions as
#     JavaScript computes them (mostly 15 to 17 significant digits) and
#     non-ASCII text.  Both sides must print the same digest before
#     anything is timed.  RUNS runs each, interleaved run by run
#     (regress/helpers/benchrun), median and p90, and the ratio.  The
#     issue's target: sbx's median at most 0.2 of node's.
#   - where sbx's time goes on 50,000 records, by perf's sampling of one
#     run per symbol, when perf works here.
#
# A benchmark is not a test: nothing is asserted about speed.  It exits
# non-zero only when it could not measure.
set -u
B=${1:-build}
top=$(pwd)
C=$top/$B/bin/sbxctl
R=$top/$B/regress/helpers/benchrun
REF=$top/regress/canon-ref.mjs

RUNS=${RUNS:-30}		# timed runs of each command
WARM=${WARM:-3}			# untimed runs of each first
SEED=${SEED:-11}

die() { echo "b_digest: $*" >&2; exit 1; }

for f in "$C" "$R"; do
	[ -x "$f" ] || die "$f is missing (make tests)"
done
NODE=$(command -v node) || die "node is missing (scripts/deps)"

D=$(mktemp -d /tmp/sbx-bench-digest.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$D"' EXIT
trap 'exit 1' INT TERM HUP PIPE

for n in 4096 50000; do
	"$NODE" "$REF" records "$SEED" "$n" "$D/r$n.json" ||
	    die "generating $n records"
	want=$("$NODE" "$REF" digest "$D/r$n.json") || die "node digest"
	got=$("$C" digest records "$D/r$n.json") || die "sbxctl digest"
	[ "$got" = "$want" ] ||
	    die "$n records: sbx $got, node $want: not the same digest"
	echo "$n records: $(wc -c < "$D/r$n.json") bytes, $got"
done

echo "sbx: sbxctl digest records FILE; node: $("$NODE" --version)" \
    "canon-ref.mjs digest FILE"
echo "$RUNS runs each after $WARM warm-up runs, interleaved"
"$R" -w "$WARM" "$RUNS" \
    ::: sbx4096 "$C" digest records "$D/r4096.json" \
    ::: node4096 "$NODE" "$REF" digest "$D/r4096.json" \
    ::: sbx50000 "$C" digest records "$D/r50000.json" \
    ::: node50000 "$NODE" "$REF" digest "$D/r50000.json" \
    > "$D/times" || die "benchrun failed"
awk '
	function ms(us) { return sprintf("%9.2f", us / 1000) }
	{ med[$1] = $5; p90[$1] = $7 }
	END {
		printf "records  path        median ms    p90 ms\n"
		split("4096 50000", n, " ")
		for (i = 1; i <= 2; i++) {
			s = "sbx" n[i]; j = "node" n[i]
			printf "%7d  sbx        %s %s\n", n[i], ms(med[s]),
			    ms(p90[s])
			printf "%7d  node       %s %s\n", n[i], ms(med[j]),
			    ms(p90[j])
			printf "         sbx / node: median %.3f, p90 %.3f " \
			    "(target: median <= 0.20, %s)\n",
			    med[s] / med[j], p90[s] / p90[j],
			    med[s] <= 0.2 * med[j] ? "met" : "NOT met"
		}
	}' "$D/times"

# ---- where sbx's time goes ------------------------------------------------
if ! command -v perf > /dev/null 2>&1 ||
    ! perf record -q -o "$D/perf.data" -F 20000 -- "$C" digest records \
    "$D/r50000.json" > /dev/null 2>&1; then
	echo "profile: not measured (perf record does not work here)"
	exit 0
fi
echo "profile of one sbx run on 50000 records (perf, top symbols):"
perf report -q -i "$D/perf.data" --no-children --sort dso,sym 2> /dev/null |
    awk 'NF > 0 && $1 ~ /%$/ { print "  " $0; if (++k == 12) exit }'
exit 0
