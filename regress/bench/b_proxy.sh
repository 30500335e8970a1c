#!/bin/sh
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

die() { echo "b_proxy: $*" >&2; exit 1; }

for f in "$PROXY" "$RUN" "$T"; do
	[ -x "$f" ] || die "$f is missing (make all tests)"
done

D=$(mktemp -d /tmp/sbx-bench-proxy.XXXXXX) || die "mktemp failed"
chmod 755 "$D"
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	exec 3>&- 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

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

mkfifo "$D/ctl"
echo "127.0.0.1 bench.test" > "$D/hosts"
echo "nameserver 127.0.0.1" > "$D/resolv.conf"
SBX_PROXY_HOSTS=$D/hosts SBX_PROXY_RESOLV_CONF=$D/resolv.conf \
    "$RUN" -a bench.test -c 127.0.0.1/32 -O 600000 "$PROXY" \
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
	echo "tinyproxy is not installed (apt-get install tinyproxy); skipped"
fi

# median FIELD CMD...: run CMD RUNS times, print the median of FIELD
# (the word after it) and the last run's reconnects.
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
	echo "$m (reconnects $rc)"
}

row() {
	printf '%-34s %s\n' "$1" "$2"
}

echo "loopback, $RUNS runs each, median; $(nproc) CPUs shared"
row "CONNECT bulk, MB/s:" ""
row "  direct" "$(median MBps "$T" get "$UP" 127.0.0.1 "$BULK_BYTES" "$BULK_N")"
row "  sbx-proxy" "$(median MBps "$T" get -t -x "$SBX" "$UP" 127.0.0.1 "$BULK_BYTES" "$BULK_N")"
[ -n "$TINY" ] &&
    row "  tinyproxy" "$(median MBps "$T" get -t -x "$TINY" "$UP" 127.0.0.1 "$BULK_BYTES" "$BULK_N")"
[ -n "$RS" ] &&
    row "  bare relay, splice" "$(median MBps "$T" get -t -x "$RS" "$UP" 127.0.0.1 "$BULK_BYTES" "$BULK_N")"
[ -n "$RC" ] &&
    row "  bare relay, read/write" "$(median MBps "$T" get -t -x "$RC" "$UP" 127.0.0.1 "$BULK_BYTES" "$BULK_N")"
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
row "sbx-proxy peak resident set" "$(awk '/^VmHWM/ { print $2, $3 }' "/proc/$SBXPID/status")"
exit 0
