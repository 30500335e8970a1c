#!/bin/sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# b_proxy.sh BUILD: sbx-proxy against direct connections and tinyproxy
# (the Debian package, when installed), on loopback only:
#
#   - CONNECT bulk: one tunnel, BULK_N answers of BULK_BYTES, in MB/s;
#   - absolute-URI bulk: the same without a tunnel (the proxy parses and
#     frames every answer), in MB/s;
#   - keep-alive GETs of GET_BYTES bytes, GET_N on one client connection,
#     in requests/s (tinyproxy closes after each answer: its figure
#     includes a new connection per request, and says how many).
#
# Both ends are regress/helpers/tcpbulk (C, one process per connection);
# sbx-proxy is started as the monitor starts it (regress/helpers/proxyrun)
# with allow-cidr 127.0.0.1/32 and its own filter.  Median of RUNS runs.
# The CONNECT rows also give the floor of any relay here: regress/helpers/
# relay, a bare tunnel relay with no policy and no event library, by
# splice(2) (what sbx-proxy's tunnels do) and by read/write: a third
# process relaying costs that much on this machine whatever it does.
#
# On loopback the kernel's TCP work is the bottleneck, and a relay doubles
# it (two connections carry each byte instead of one), so no relay reaches
# direct's figure there: the CPU-s per GB rows show what each path costs
# the machine, and with CPUs shared by both ends and the relay, a path
# that costs twice as much moves half as much.  The shaped-link rows put the upstream where a
# real one is, behind a link: a network namespace joined by a veth pair
# (198.18.0.0/30, the benchmarking range of RFC 2544) whose two ends are
# rate-limited by tbf to each of LINK_RATES; direct, sbx-proxy and
# tinyproxy cross the same link.  They need root (ip netns); otherwise
# they say so and are skipped.
# A benchmark is not a test: figures are printed, nothing is asserted.
set -u
B=${1:-build}
top=$(pwd)
PROXY=$top/$B/libexec/sbx/sbx-proxy
RUN=$top/$B/regress/helpers/proxyrun
T=$top/$B/regress/helpers/tcpbulk

RUNS=${RUNS:-3}
BULK_BYTES=${BULK_BYTES:-100000000}
BULK_N=${BULK_N:-5}
GET_BYTES=${GET_BYTES:-100}
GET_N=${GET_N:-20000}
LINK_RATES=${LINK_RATES:-1gbit 4gbit}
LINK_BYTES=${LINK_BYTES:-100000000}
LINK_N=${LINK_N:-2}

die() { echo "b_proxy: $*" >&2; exit 1; }

for f in "$PROXY" "$RUN" "$T"; do
	[ -x "$f" ] || die "$f is missing (make all tests)"
done

D=$(mktemp -d /tmp/sbx-bench-proxy.XXXXXX) || die "mktemp failed"
chmod 755 "$D"
pids=
NS=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	[ -n "$NS" ] && ip netns del "$NS" 2>/dev/null
	exec 3>&- 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

# wait_for FILE: until it exists and is not empty (5 s at most).
wait_for() {
	i=0
	until [ -s "$1" ]; do
		i=$((i + 1))
		[ $i -lt 50 ] || die "$1 did not appear"
		sleep 0.1
	done
}

"$T" serve "$D/up.port" &
pids="$pids $!"
wait_for "$D/up.port"
UP=$(cat "$D/up.port")

# The shaped link: namespace and veth names carry our pid, so that two
# runs do not meet; deleting the namespace removes the pair.
LUP= LINK_WHY=
if [ "$(id -u)" -ne 0 ]; then
	LINK_WHY="needs root (ip netns, tc)"
elif ! command -v ip > /dev/null 2>&1 || ! command -v tc > /dev/null 2>&1; then
	LINK_WHY="ip or tc is missing (iproute2)"
else
	NS=sbxb$$
	if ip netns add "$NS" &&
	    ip link add "${NS}a" type veth peer name "${NS}b" &&
	    ip link set "${NS}b" netns "$NS" &&
	    ip addr add 198.18.0.1/30 dev "${NS}a" &&
	    ip link set "${NS}a" up &&
	    ip -n "$NS" addr add 198.18.0.2/30 dev "${NS}b" &&
	    ip -n "$NS" link set "${NS}b" up &&
	    ip -n "$NS" link set lo up; then
		ip netns exec "$NS" "$T" serve "$D/lup.port" 198.18.0.2 &
		pids="$pids $!"
		wait_for "$D/lup.port"
		LUP=$(cat "$D/lup.port")
	else
		LINK_WHY="could not set up the namespace and veth pair"
	fi
fi

mkfifo "$D/ctl"
echo "127.0.0.1 bench.test" > "$D/hosts"
echo "nameserver 127.0.0.1" > "$D/resolv.conf"
SBX_PROXY_HOSTS=$D/hosts SBX_PROXY_RESOLV_CONF=$D/resolv.conf \
    "$RUN" -a bench.test -c 127.0.0.1/32 -c 198.18.0.2/32 -O 600000 "$PROXY" \
    < "$D/ctl" > "$D/run.out" 2> "$D/proxy.log" &
pids="$pids $!"
exec 3> "$D/ctl"
until grep -q '^port' "$D/run.out" 2>/dev/null; do sleep 0.1; done
SBX=$(awk '/^port/ { print $2; exit }' "$D/run.out")
SBXPID=$(awk '/^pid/ { print $2; exit }' "$D/run.out")

RELAY=$top/$B/regress/helpers/relay
RS= RC=
if [ -x "$RELAY" ]; then
	"$RELAY" splice "$D/rs.port" "$UP" &
	pids="$pids $!"
	"$RELAY" copy "$D/rc.port" "$UP" &
	pids="$pids $!"
	wait_for "$D/rs.port"
	wait_for "$D/rc.port"
	RS=$(cat "$D/rs.port")
	RC=$(cat "$D/rc.port")
fi

TINY=
if command -v tinyproxy > /dev/null 2>&1; then
	TINY=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	{
		echo "Port $TINY"
		echo "Listen 127.0.0.1"
		echo "Timeout 600"
		echo "MaxClients 100"
		echo "Allow 127.0.0.1"
		echo "LogLevel Critical"
		if [ "$(id -u)" -eq 0 ]; then
			echo "User nobody"
			echo "Group nogroup"
		fi
	} > "$D/tinyproxy.conf"
	tinyproxy -d -c "$D/tinyproxy.conf" > "$D/tinyproxy.log" 2>&1 &
	pids="$pids $!"
	sleep 0.5
	"$T" get -x "$TINY" "$UP" 127.0.0.1 10 1 > /dev/null 2>&1 || {
		echo "tinyproxy did not answer; skipped"
		TINY=
	}
else
	echo "tinyproxy is not installed (scripts/deps bench: tinyproxy-bin); skipped"
fi

# median FIELD CMD...: run CMD RUNS times, print the median of FIELD
# (the word after it) and the last run's reconnects, if it counts them.
median() {
	field=$1
	shift
	: > "$D/runs"
	r=0
	while [ $r -lt "$RUNS" ]; do
		"$@" > "$D/one" 2>&1 || { echo "failed: $(cat "$D/one")"; return; }
		awk -v f="$field" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' \
		    "$D/one" >> "$D/runs"
		r=$((r + 1))
	done
	m=$(sort -n "$D/runs" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	rc=$(awk '{ for (i = 1; i < NF; i++) if ($i == "reconnects") print $(i + 1) }' "$D/one")
	if [ -n "$rc" ]; then echo "$m (reconnects $rc)"; else echo "$m"; fi
}

row() {
	printf '%-34s %s\n' "$1" "$2"
}

# busy: the machine's busy CPU time so far, in ticks of USER_HZ (all
# CPUs, everything but idle and iowait, from /proc/stat).
busy() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

# cpu_run CMD...: run CMD, which moves BULK_N x BULK_BYTES, and print
# "cpugb X": CPU-seconds the whole machine spent per GB meanwhile (on a
# quiet machine, the cost of the transfer, whoever pays it).
cpu_run() {
	b0=$(busy)
	"$@" > /dev/null 2>&1 || return 1
	b1=$(busy)
	awk -v t=$((b1 - b0)) -v hz="$(getconf CLK_TCK)" -v b="$BULK_BYTES" \
	    -v n="$BULK_N" 'BEGIN { printf "cpugb %.2f\n", t / hz / (b * n / 1e9) }'
}

# connect_rows FIELD [WRAPPER]: one row for each CONNECT path there is
# (direct, sbx-proxy, tinyproxy, the bare relays), the median of FIELD
# of its runs (run through WRAPPER when one is given).
connect_rows() {
	f=$1
	shift
	row "  direct" "$(median "$f" "$@" "$T" get "$UP" 127.0.0.1 "$BULK_BYTES" "$BULK_N")"
	for px in "sbx-proxy=$SBX" "tinyproxy=$TINY" \
	    "bare relay, splice=$RS" "bare relay, read/write=$RC"; do
		[ -n "${px#*=}" ] || continue
		row "  ${px%%=*}" "$(median "$f" "$@" "$T" get -t -x "${px#*=}" "$UP" 127.0.0.1 "$BULK_BYTES" "$BULK_N")"
	done
}

echo "loopback, $RUNS runs each, median; $(nproc) CPUs shared"
row "CONNECT bulk, MB/s:" ""
connect_rows MBps
row "CONNECT bulk, CPU-s per GB:" ""
connect_rows cpugb cpu_run
row "absolute-URI bulk, MB/s:" ""
row "  sbx-proxy" "$(median MBps "$T" get -x "$SBX" "$UP" 127.0.0.1 "$BULK_BYTES" "$BULK_N")"
row "  sbx-proxy (name, hosts file)" "$(median MBps "$T" get -x "$SBX" "$UP" bench.test "$BULK_BYTES" "$BULK_N")"
[ -n "$TINY" ] &&
    row "  tinyproxy" "$(median MBps "$T" get -x "$TINY" "$UP" 127.0.0.1 "$BULK_BYTES" "$BULK_N")"
row "keep-alive GET of $GET_BYTES B, req/s:" ""
row "  direct" "$(median rps "$T" get "$UP" 127.0.0.1 "$GET_BYTES" "$GET_N")"
row "  sbx-proxy" "$(median rps "$T" get -x "$SBX" "$UP" 127.0.0.1 "$GET_BYTES" "$GET_N")"
row "  sbx-proxy (name, hosts file)" "$(median rps "$T" get -x "$SBX" "$UP" bench.test "$GET_BYTES" "$GET_N")"
row "  sbx-proxy in a tunnel" "$(median rps "$T" get -t -x "$SBX" "$UP" 127.0.0.1 "$GET_BYTES" "$GET_N")"
[ -n "$TINY" ] &&
    row "  tinyproxy" "$(median rps "$T" get -x "$TINY" "$UP" 127.0.0.1 "$GET_BYTES" $((GET_N / 10)))"
if [ -n "$LUP" ]; then
	for rate in $LINK_RATES; do
		# Both directions: the answers come from the namespace's end.
		if ! tc qdisc replace dev "${NS}a" root tbf rate "$rate" \
		    burst 1mb latency 20ms ||
		    ! tc -n "$NS" qdisc replace dev "${NS}b" root tbf \
		    rate "$rate" burst 1mb latency 20ms; then
			row "shaped link $rate:" "tc refused the rate; skipped"
			continue
		fi
		row "CONNECT bulk over a $rate link, MB/s:" ""
		row "  direct" "$(median MBps "$T" get "$LUP" 198.18.0.2 "$LINK_BYTES" "$LINK_N")"
		row "  sbx-proxy" "$(median MBps "$T" get -t -x "$SBX" "$LUP" 198.18.0.2 "$LINK_BYTES" "$LINK_N")"
		[ -n "$TINY" ] &&
		    row "  tinyproxy" "$(median MBps "$T" get -t -x "$TINY" "$LUP" 198.18.0.2 "$LINK_BYTES" "$LINK_N")"
	done
else
	row "CONNECT bulk over a shaped link:" "skipped: $LINK_WHY"
fi
row "sbx-proxy peak resident set" "$(awk '/^VmHWM/ { print $2, $3 }' "/proc/$SBXPID/status")"
exit 0
