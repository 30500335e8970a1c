#!/bin/sh
# b_load.sh BUILD: what a long run leaves behind (issue "Hardening":
# load).  Through one private sbx-monitor with provider-pool 4 and the
# audit log on: SEQ `sbxctl run -- /bin/true` in sequence, CONC at once
# (ROUNDS rounds), and INVOKES provider invokes of the example provider
# through the pool.  Before and after, for the monitor and each role: open
# descriptors, resident memory, zombie children; for the host: the
# sandboxes' cgroups and the mount table.  Every request must be answered
# (a failed one is counted and printed).  A benchmark, not a test: it
# reports figures and exits non-zero only when it could not measure.
set -u
B=${1:-build}
top=$(pwd)
. "$top/regress/monitor.subr"
M=$top/$B/sbin/sbx-monitor
C=$top/$B/bin/sbxctl
FIX=$top/regress/fixtures/gates-example-extension

SEQ=${SEQ:-10000}
CONC=${CONC:-64}
ROUNDS=${ROUNDS:-10}
INVOKES=${INVOKES:-2000}
CLOCK=1788393600000

die() { echo "b_load: $*" >&2; exit 1; }
[ -x "$M" ] && [ -x "$C" ] || die "build first (make)"
NODE=$(command -v node) || die "node is missing (scripts/deps)"

D=$(mktemp -d /tmp/sbx-bench-load.XXXXXX) || die "mktemp failed"
chmod 711 "$D"
monpid=
cleanup() {
	[ -n "$monpid" ] && kill "$monpid" 2>/dev/null && wait "$monpid"
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

cp -R "$FIX" "$D/bundle" && chmod -R go+rX "$D/bundle" || die "copy"
dg=$("$C" digest bundle "$D/bundle" gate-providers/example.mjs) ||
    die "digest bundle"
printf '{"gates":{"providers":[{"bundleId":"gates-example","providerId":"example.count/v1","codeDigest":"%s","reviewer":"Example Reviewer","reviewedAt":"2026-08-15T00:00:00.000Z"}]}}\n' \
    "$dg" > "$D/providers.json"
printf '[{"slice":"a","failed":false},{"slice":"b","failed":true}]' \
    > "$D/recs.json"
chmod 644 "$D/providers.json" "$D/recs.json"
SOCK=$D/run/sbx.sock
{
	echo "socket \"$SOCK\""
	echo "user \"nobody\""
	echo "log-file \"$D/audit.jsonl\""
	echo "max-sandboxes $((CONC + 16))"
	echo "max-sandboxes-per-peer $((CONC + 16))"
	echo "max-connections $((CONC + 16))"
	echo "max-connections-per-peer $((CONC + 16))"
	echo "bundle-providers yes"
	echo "provider-allowlist \"$D/providers.json\""
	echo "provider-runtime \"$NODE\""
	echo "provider-pool 4"
	echo "provider-timeout 30000"
} > "$D/sbx.conf"
chmod 644 "$D/sbx.conf"
sbx_monitor_start "$M" "$C" "$D/sbx.conf" "$SOCK" "$D/monitor.log" ||
    die "the monitor did not start"
monpid=$sbx_monitor_pid
h=$("$C" -s "$SOCK" provider load "$D/bundle" |
    sed -n 's/^provider \(prv-[0-9a-f]*\)$/\1/p')
[ -n "$h" ] || die "provider load failed"
U=$(id -u nobody)
[ "$(id -u)" -eq 0 ] || U=$(id -u)

# snapshot FILE: "name fds rss_kib zombies" per process, then host lines.
snapshot() {
	for pid in $monpid $(pgrep -P "$monpid"); do
		name=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
		fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
		rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' \
		    "/proc/$pid/status")
		z=$(ps -o stat= --ppid "$pid" | grep -c '^Z')
		echo "$name $fds $rss $z"
	done
	echo "cgroups $(ls /sys/fs/cgroup/memory/sbx.$U \
	    /sys/fs/cgroup/pids/sbx.$U 2>/dev/null | grep -c '^sbx\.') 0 0"
	echo "mounts $(wc -l < /proc/self/mounts) 0 0"
}

# Warm: the pool full, one of each request done.
"$C" -s "$SOCK" run -- /bin/true || die "run failed"
"$C" -s "$SOCK" provider invoke "$h" --records "$D/recs.json" \
    --clock-ms "$CLOCK" > /dev/null || die "invoke failed"
sleep 1
snapshot > "$D/before"

fail=0
t0=$(date +%s.%N)
i=0
while [ $i -lt "$SEQ" ]; do
	"$C" -s "$SOCK" run -- /bin/true || fail=$((fail + 1))
	i=$((i + 1))
done
t1=$(date +%s.%N)
r=0
while [ $r -lt "$ROUNDS" ]; do
	j=0 pids=
	while [ $j -lt "$CONC" ]; do
		{ "$C" -s "$SOCK" run -- /bin/true ||
		    echo x >> "$D/concfail"; } &
		pids="$pids $!"
		j=$((j + 1))
	done
	# Not a bare wait: the monitor is a child of this shell too.
	for p in $pids; do
		wait "$p"
	done
	r=$((r + 1))
done
t2=$(date +%s.%N)
i=0
while [ $i -lt "$INVOKES" ]; do
	"$C" -s "$SOCK" provider invoke "$h" --records "$D/recs.json" \
	    --clock-ms "$CLOCK" > /dev/null || fail=$((fail + 1))
	i=$((i + 1))
done
t3=$(date +%s.%N)
[ -f "$D/concfail" ] && fail=$((fail + $(wc -l < "$D/concfail")))
sleep 1
snapshot > "$D/after"

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
echo "load: $SEQ runs in sequence ($(secs "$t0" "$t1") s)," \
    "$ROUNDS x $CONC at once ($(secs "$t1" "$t2") s)," \
    "$INVOKES pooled invokes ($(secs "$t2" "$t3") s);" \
    "requests not answered with success: $fail"
printf '%-20s %14s %18s %12s\n' "" "descriptors" "RSS KiB" "zombies"
# Same processes in the same order (pgrep sorts by pid): side by side.
paste -d ' ' "$D/before" "$D/after" | awk '{
	printf "%-20s %6d -> %-6d %8d -> %-8d %4d -> %-4d\n",
	    $1, $2, $6, $3, $7, $4, $8
}'
