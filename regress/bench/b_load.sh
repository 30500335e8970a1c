#!/bin/sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# b_load.sh BUILD: what a long run leaves behind (issue "Hardening":
# load).  Through one private sbx-monitor with provider-pool 4 and the
# audit log on: SEQ `sbxctl run -- /bin/true` in sequence, CONC at once
# (ROUNDS rounds), and INVOKES provider invokes of the example provider
# through the pool.  Before and after each phase, for the monitor and each
# role: open descriptors, resident memory, zombie children, the mounts it
# sees; for the host: the sandboxes' cgroups, its mount table and the
# sandboxes still alive.  Every request must be answered (a failed one is
# counted and printed).  Each phase ends with a verdict: "clean", or
# "LEAK" and what grew (descriptors, zombies, mounts, cgroups, sandboxes,
# RSS by 1 MiB or more, unanswered requests).  A benchmark, not a test: it
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
trap 'exit 1' INT TERM HUP PIPE

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

# snapshot: one line per sbx process, "name pid fds rss_kib zombies
# mounts" (mounts: the lines of that process's own mountinfo; the roles
# that run in an empty root have their own mount namespace), then the
# host's lines: the sandboxes' cgroups and the host's mount table.
snapshot() {
	for pid in $monpid $(pgrep -P "$monpid"); do
		name=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
		fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
		rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' \
		    "/proc/$pid/status")
		z=$(ps -o stat= --ppid "$pid" | grep -c '^Z')
		mnt=$(wc -l < "/proc/$pid/mountinfo" 2>/dev/null || echo -1)
		echo "$name $pid $fds $rss $z $mnt"
	done
	# This launcher's cgroups only (sbx.LAUNCHERPID.N): other services
	# of the same user have their own.
	l=$(pgrep -P "$monpid" -x sbx-launcher)
	echo "cgroups - $(ls /sys/fs/cgroup/memory/sbx.$U \
	    /sys/fs/cgroup/pids/sbx.$U 2>/dev/null |
	    grep -c "^sbx\.$l\.") 0 0 0"
	echo "host-mounts - 0 0 0 $(wc -l < /proc/self/mountinfo)"
	# Sandboxes alive: the launcher's children (each a sandbox's pid 1;
	# the pool's provider-pool are expected and refilled).
	echo "sandboxes - $(pgrep -P "$l" | wc -l) 0 0 0"
}

# Warm: the pool full, one of each request done.
"$C" -s "$SOCK" run -- /bin/true || die "run failed"
"$C" -s "$SOCK" provider invoke "$h" --records "$D/recs.json" \
    --clock-ms "$CLOCK" > /dev/null || die "invoke failed"
sleep 1
snapshot > "$D/s0"

# report PHASE BEFORE AFTER FAILED SECONDS: the phase's figures, side by
# side (pgrep sorts by pid, so the processes line up), and the verdicts
# the issue asks for: no descriptor leaked, no zombie, no mount or cgroup
# left, RSS growth under 1 MiB in every process, every request answered.
report() {
	echo "load: $1 ($5 s); requests not answered with success: $4"
	printf '  %-20s %14s %18s %9s %12s\n' "" "descriptors" "RSS KiB" \
	    "zombies" "mounts"
	paste -d ' ' "$2" "$3" | awk -v failed="$4" '{
		printf "  %-20s %5d -> %-6d %8d -> %-8d %2d -> %-3d %5d -> %-5d\n",
		    $1, $3, $9, $4, $10, $5, $11, $6, $12
		if ($1 == "cgroups") {
			if ($9 > $3) bad = bad " cgroups+" ($9 - $3)
			next
		}
		if ($1 == "sandboxes") {
			if ($9 > $3) bad = bad " sandboxes+" ($9 - $3)
			next
		}
		if ($2 != $8) { bad = bad " " $1 ":restarted"; next }
		if ($9 > $3) bad = bad " " $1 ":fds+" ($9 - $3)
		if ($11 > 0) bad = bad " " $1 ":zombies"
		if ($12 != $6) bad = bad " " $1 ":mounts" ($12 - $6)
		if ($10 - $4 >= 1024) bad = bad " " $1 ":rss+" ($10 - $4) "KiB"
	} END {
		if (failed > 0) bad = bad " unanswered:" failed
		print "  verdict: " (bad == "" ? "clean" : "LEAK" bad)
	}'
}
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

fail=0
t0=$(date +%s.%N)
i=0
while [ $i -lt "$SEQ" ]; do
	"$C" -s "$SOCK" run -- /bin/true || fail=$((fail + 1))
	i=$((i + 1))
done
t1=$(date +%s.%N)
sleep 1
snapshot > "$D/s1"
report "$SEQ runs in sequence" "$D/s0" "$D/s1" $fail "$(secs "$t0" "$t1")"

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
fail=0
[ -f "$D/concfail" ] && fail=$(wc -l < "$D/concfail")
sleep 1
snapshot > "$D/s2"
report "$ROUNDS x $CONC runs at once" "$D/s1" "$D/s2" $fail \
    "$(secs "$t1" "$t2")"

t2=$(date +%s.%N)
fail=0
i=0
while [ $i -lt "$INVOKES" ]; do
	"$C" -s "$SOCK" provider invoke "$h" --records "$D/recs.json" \
	    --clock-ms "$CLOCK" > /dev/null || fail=$((fail + 1))
	i=$((i + 1))
done
t3=$(date +%s.%N)
sleep 1
snapshot > "$D/s3"
report "$INVOKES pooled invokes" "$D/s2" "$D/s3" $fail "$(secs "$t2" "$t3")"
report "all of it" "$D/s0" "$D/s3" 0 "$(secs "$t0" "$t3")"
