#!/bin/sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# b_control.sh BUILD: the control path of sbx-monitor, measured in one run.
#
#   - control round trips per second: `sbxctl ping` in a loop (a process
#     start, connect and hello per request) and PING through libsbx on one
#     connection (regress/helpers/pingloop), median of RUNS runs each;
#   - the monitor's resident memory (VmRSS): idle after start-up (the
#     issue's target is <= 4 MiB; reported, never a failure), with HOLD
#     idle clients connected, and idle again once they left.
#
# The monitor runs in a private directory with a minimal sbx.conf plus an
# audit log, as root (dropping to "nobody") or as the calling user.  A
# benchmark is not a test: figures are printed, nothing is asserted about
# speed.  It exits non-zero only when it could not measure at all.
set -u
B=${1:-build}
top=$(pwd)
. "$top/regress/monitor.subr"
M=$top/$B/sbin/sbx-monitor
C=$top/$B/bin/sbxctl
L=$top/$B/regress/helpers/pingloop

RUNS=${RUNS:-5}			# runs per rate; the median is reported
CTL_N=${CTL_N:-200}		# sbxctl processes per run
LIB_N=${LIB_N:-20000}		# libsbx requests per run
HOLD=${HOLD:-200}		# idle clients held open
RSS_TARGET_KB=4096		# issue "sbx-monitor": idle RSS <= 4 MiB

die() { echo "b_control: $*" >&2; exit 1; }

for f in "$M" "$C" "$L"; do
	[ -x "$f" ] || die "$f is missing (make all $B/regress/helpers/pingloop)"
done

D=$(mktemp -d /tmp/sbx-bench.XXXXXX) || die "mktemp failed"
chmod 711 "$D"
monpid= holdpid=
cleanup() {
	[ -n "$holdpid" ] && kill "$holdpid" 2>/dev/null
	[ -n "$monpid" ] && kill "$monpid" 2>/dev/null && wait "$monpid"
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

SOCK=$D/run/sbx.sock
cat > "$D/sbx.conf" <<EOF
socket "$SOCK"
user "nobody"
max-connections $((HOLD + 64))
max-connections-per-peer $((HOLD + 64))
log-file "$D/audit.jsonl"
EOF
chmod 644 "$D/sbx.conf"

if ! sbx_monitor_start "$M" "$C" "$D/sbx.conf" "$SOCK" "$D/monitor.log"; then
	monpid=
	die "the monitor did not start"
fi
monpid=$sbx_monitor_pid

rss_kb() {	# pid: VmRSS in KiB
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}
mib() {		# KiB -> "x.y MiB"
	awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'
}
now_ns() {
	date +%s%N
}
median() {	# values on stdin -> median (lower middle for even counts)
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
range() {	# values on stdin -> "min-max"
	sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "-" hi }'
}
role_pids() {
	"$C" -s "$SOCK" --json status | tr '{' '\n' |
	    sed -n 's/.*"name":"[a-z-]*","pid":\([0-9]*\).*/\1/p'
}

# Idle: started, answered the readiness ping, no client connected.
sleep 0.2
idle0=$(rss_kb "$monpid")
roles_kb=0
for p in $(role_pids); do
	roles_kb=$((roles_kb + $(rss_kb "$p")))
done

# sbxctl ping: process start, connect, hello, PING, exit -- per request.
: > "$D/ctl.rates"
r=0
while [ $r -lt "$RUNS" ]; do
	t0=$(now_ns)
	n=0
	while [ $n -lt "$CTL_N" ]; do
		"$C" -s "$SOCK" ping > /dev/null ||
		    die "sbxctl ping failed in run $((r + 1))"
		n=$((n + 1))
	done
	t1=$(now_ns)
	awk -v n="$CTL_N" -v ns=$((t1 - t0)) \
	    'BEGIN { printf "%.0f\n", n * 1e9 / ns }' >> "$D/ctl.rates"
	r=$((r + 1))
done

# libsbx: one connection, PING after PING.
: > "$D/lib.rates"
r=0
while [ $r -lt "$RUNS" ]; do
	out=$("$L" "$SOCK" ping "$LIB_N") || die "pingloop failed: $out"
	echo "$out" | awk '{ print $(NF - 1) }' >> "$D/lib.rates"
	r=$((r + 1))
done

# HOLD idle clients, each past hello.
: > "$D/hold.out"
"$L" "$SOCK" hold "$HOLD" > "$D/hold.out" 2> "$D/hold.err" &
holdpid=$!
until grep -q '^holding' "$D/hold.out"; do
	kill -0 "$holdpid" 2>/dev/null ||
	    { cat "$D/hold.err" >&2; holdpid=; die "pingloop hold failed"; }
	sleep 0.05
done
# The status client itself is one of the connections it reports.
conns=$("$C" -s "$SOCK" --json status |
    sed -n 's/.*"connections":\([0-9]*\).*/\1/p')
held=$(rss_kb "$monpid")
kill "$holdpid"
wait "$holdpid"
holdpid=
# Wait until the monitor has closed them all (the status client is one).
i=0
while [ $i -lt 100 ]; do
	c=$("$C" -s "$SOCK" --json status |
	    sed -n 's/.*"connections":\([0-9]*\).*/\1/p')
	[ "$c" = 1 ] && break
	sleep 0.05
	i=$((i + 1))
done
idle1=$(rss_kb "$monpid")

if [ "$idle0" -le "$RSS_TARGET_KB" ]; then
	verdict="met"
else
	verdict="NOT met"
fi
per=$(awk -v a="$held" -v b="$idle0" -v n="$HOLD" \
    'BEGIN { printf "%.1f", (a - b) / n }')

printf '%-44s %14s  %s\n' "control round trip (PING)" "median" \
    "range, $RUNS runs"
printf '  %-42s %10s/s  %s\n' "sbxctl ping, one process each ($CTL_N/run)" \
    "$(median < "$D/ctl.rates") req" "$(range < "$D/ctl.rates")"
printf '  %-42s %10s/s  %s\n' "libsbx, one connection ($LIB_N/run)" \
    "$(median < "$D/lib.rates") req" "$(range < "$D/lib.rates")"
printf '%-44s %14s\n' "sbx-monitor memory (VmRSS)" ""
printf '  %-42s %14s  target <= %s: %s\n' "idle, after start-up" \
    "$(mib "$idle0")" "$(mib "$RSS_TARGET_KB")" "$verdict"
printf '  %-42s %14s  %s KiB per client (status: %s held)\n' \
    "$HOLD idle clients connected" "$(mib "$held")" "$per" "$((conns - 1))"
printf '  %-42s %14s\n' "idle again, clients gone" "$(mib "$idle1")"
printf '  %-42s %14s\n' "(the 3 roles together, idle)" "$(mib "$roles_kb")"

kill "$monpid"
wait "$monpid"
st=$?
monpid=
[ $st -eq 0 ] || { cat "$D/monitor.log" >&2; die "monitor exited $st"; }
exit 0
