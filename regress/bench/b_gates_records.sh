#!/bin/sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# b_gates_records.sh BUILD: the cost of "sbxctl gates evaluate --records", the
# whole evaluation (sbxctl, the monitor, the provider runner, the re-run
# sandboxes, the report) on regress/fixtures/gates-example.
#
#   - one bundle pin, median and p99 over RUNS runs: a monitor with
#     provider-pool 0 (every re-run starts node cold) and one with
#     provider-pool 4 (a pooled sandbox per re-run; before every run the
#     benchmark waits, untimed, until the pool is full again and SETTLE
#     more, as b_provider.sh does);
#   - four bundle pins (the example and three copies of it under other
#     provider ids), pool 0: re-run concurrently (max-sandboxes 64, so up
#     to 8 at once) against one at a time (max-sandboxes 1).
#
# Runs are interleaved by regress/helpers/benchrun, which checks that
# each exits 0.  A benchmark is not a test: nothing is asserted about
# speed; it exits non-zero only when it could not measure.
set -u
B=${1:-build}
top=$(pwd)
. "$top/regress/monitor.subr"
M=$top/$B/sbin/sbx-monitor
C=$top/$B/bin/sbxctl
R=$top/$B/regress/helpers/benchrun
GX=$top/regress/fixtures/gates-example
EXT=$top/regress/fixtures/gates-example-extension
NOW=2026-09-03T00:00:00.000Z
PROV=example.count/v1

RUNS=${RUNS:-100}
WARM=${WARM:-5}
SETTLE=${SETTLE:-0.15}

die() { echo "b_gates_records: $*" >&2; exit 1; }

for f in "$M" "$C" "$R"; do
	[ -x "$f" ] || die "$f is missing (make tests)"
done
NODE=$(command -v node) || die "node is missing (scripts/deps)"

D=$(mktemp -d /tmp/sbx-bench-gates.XXXXXX) || die "mktemp failed"
chmod 711 "$D"
pids=
cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null && wait "$p"
	done
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

# ---- the example and three copies, reviewed and allowlisted ------------
entries=$(sed -n '/"bundleId"/,/"reviewedAt"/p' "$EXT/providers.json" |
    tr -d '\n')
for k in 1 2 3; do
	b=$D/b$k
	cp -R "$EXT" "$b" || die "copy"
	sed "s|$PROV|example.c$k/v1|; s|\"gates-example\"|\"gates-example-$k\"|" \
	    "$EXT/manifest.json" > "$b/manifest.json"
	sed "s|$PROV|example.c$k/v1|" "$EXT/gate-providers/example.mjs" \
	    > "$b/gate-providers/example.mjs"
	dg=$("$C" digest bundle "$b" gate-providers/example.mjs) ||
	    die "digest bundle"
	printf '{"codeDigest":"%s","reviewedAt":"2026-08-15T00:00:00.000Z","reviewer":"Example Reviewer"}\n' \
	    "$dg" > "$b/gate-providers/example-review.json"
	entries="$entries},{\"bundleId\":\"gates-example-$k\",\"providerId\":\"example.c$k/v1\",\"codeDigest\":\"$dg\",\"reviewer\":\"Example Reviewer\",\"reviewedAt\":\"2026-08-15T00:00:00.000Z\""
done
printf '{"gates":{"providers":[{%s}]}}\n' "$entries" > "$D/providers.json"
chmod -R go+rX "$D"

# ---- monitors: NAME POOL MAX_SANDBOXES ----------------------------------
start() {
	{
		echo "socket \"$D/$1/sbx.sock\""
		echo "user \"nobody\""
		echo "log-file \"$D/$1.jsonl\""
		echo "bundle-providers yes"
		echo "provider-allowlist \"$D/providers.json\""
		echo "provider-runtime \"$NODE\""
		echo "provider-pool $2"
		echo "max-sandboxes $3"
	} > "$D/$1.conf"
	chmod 644 "$D/$1.conf"
	sbx_monitor_start "$M" "$C" "$D/$1.conf" "$D/$1/sbx.sock" \
	    "$D/$1.log" || die "monitor $1 did not start"
	pids="$pids $sbx_monitor_pid"
	for b in "$EXT" "$D/b1" "$D/b2" "$D/b3"; do
		# max-sandboxes 1: the last inspect's sandbox may linger.
		i=0
		until "$C" -s "$D/$1/sbx.sock" provider load "$b" \
		    > "$D/load.out" 2>&1; do
			i=$((i + 1))
			[ $i -lt 50 ] || die "load $b into $1: $(cat "$D/load.out")"
			sleep 0.1
		done
		# The pins, once (every monitor issues the same providers).
		[ "$1" = cold ] && [ "$b" != "$EXT" ] && printf '{"id": "%s", "version": "1.0.0", "sourceDigest": "%s", "codeDigest": "%s", "recordsDigest": "%s"},' \
		    "$(sed -n 's/^	id //p' "$D/load.out")" \
		    "$(sed -n 's/^	sourceDigest //p' "$D/load.out")" \
		    "$(sed -n 's/^	codeDigest //p' "$D/load.out")" \
		    "$("$C" digest records "$GX/records-clean.json")" \
		    >> "$D/extra"
	done
}
: > "$D/extra"
start cold 0 64
start pool 4 64
start seq 0 1

# The four-pin binding: the example's, with three more pins.
sed "s|\"metricProviders\": \[|&$(cat "$D/extra")|" "$GX/binding.json" \
    > "$D/four.json"
"$C" gates seal-holdout --binding "$D/four.json" > "$D/four-holdout.json" ||
    die "seal-holdout"

digest=$("$C" gates digest "$GX/binding.json")
fdigest=$("$C" gates digest "$D/four.json")
rec=$GX/records-clean.json
one="$C gates evaluate --binding $GX/binding.json --metrics $GX/metrics.json --holdout $GX/holdout.json --upstream $GX/upstream.json --now $NOW --trusted-binding-digest $digest --pack-dir $GX/pack.json --records $PROV=$rec"
four="$C gates evaluate --binding $D/four.json --metrics $GX/metrics.json --holdout $D/four-holdout.json --upstream $GX/upstream.json --now $NOW --trusted-binding-digest $fdigest --pack-dir $GX/pack.json --records $PROV=$rec --records example.c1/v1=$rec --records example.c2/v1=$rec --records example.c3/v1=$rec"

# Checked once: every monitor gives the same report.
for s in cold pool seq; do
	# shellcheck disable=SC2086
	"$C" -s "$D/$s/sbx.sock" $(echo "$four" | cut -d' ' -f2-) \
	    > "$D/four.$s" || die "four pins on $s failed"
done
cmp -s "$D/four.cold" "$D/four.pool" && cmp -s "$D/four.cold" "$D/four.seq" ||
    die "the four-pin reports differ between monitors"

cat > "$D/settle" <<EOF
#!/bin/sh
i=0
until "$C" -s "$D/pool/sbx.sock" --json status | grep -q '"idle":4[,}]'; do
	i=\$((i + 1))
	[ \$i -lt 2000 ] || { echo "the pool never refilled" >&2; exit 1; }
	sleep 0.005
done
sleep $SETTLE
EOF
chmod 755 "$D/settle"

show() {
	awk -v what="$1" '
	function ms(us) { return sprintf("%9.2f", us / 1000) }
	{ printf "%-44s%s %s\n", what " " $1, ms($5), ms($15) }' "$2"
}
echo "gates evaluate --records, ms ($RUNS runs each after $WARM warm-up," \
    "interleaved)"
echo "what                                           median       p99"
# shellcheck disable=SC2086
env -i "$R" -w "$WARM" -p "$D/settle" "$RUNS" \
    ::: pool0 $(echo "$one" | sed "s|^$C|$C -s $D/cold/sbx.sock|") \
    ::: pool4 $(echo "$one" | sed "s|^$C|$C -s $D/pool/sbx.sock|") \
    > "$D/one" || die "benchrun failed (one pin)"
show "1 pin," "$D/one"
# shellcheck disable=SC2086
env -i "$R" -w "$WARM" "$RUNS" \
    ::: concurrent $(echo "$four" | sed "s|^$C|$C -s $D/cold/sbx.sock|") \
    ::: sequential $(echo "$four" | sed "s|^$C|$C -s $D/seq/sbx.sock|") \
    > "$D/four" || die "benchrun failed (four pins)"
show "4 pins, pool 0," "$D/four"
awk '{ med[$1] = $5 } END { printf "         sequential / concurrent: " \
    "median %.2f\n", med["sequential"] / med["concurrent"] }' "$D/four"
