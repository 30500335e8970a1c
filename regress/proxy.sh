#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# proxy.sh: the real sbx-proxy, started as the monitor starts it (by the
# proxyrun helper, which plays the monitor for one sandbox: its policy and
# a listener on 127.0.0.1), with curl and raw requests (rawhttp) through
# it to a local upstream (proxy-upstream.py) on 127.0.0.1.  Names resolve
# through a hosts file of the test's own (SBX_PROXY_HOSTS), and every
# target is a loopback address.  Runs as root and as an unprivileged user.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

px_init() {
	S=$(atf_get_srcdir)
	B=$S/..
	TOP=$S/top
	PROXY=$B/libexec/sbx/sbx-proxy
	RUN=$B/regress/helpers/proxyrun
	RAW=$B/regress/helpers/rawhttp
	command -v curl > /dev/null || atf_skip "curl is not installed"
	command -v python3 > /dev/null || atf_skip "python3 is not installed"
	sbx_upstream_test up.port
	cat > hosts <<-HOSTS
	127.0.0.1 allowed.test a.wild.test wild.test deny.wild.test porty.test
	::1 six.test
	169.254.169.254 meta.test
	10.1.2.3 lan.test
	127.0.0.2 mixed.test
	127.0.0.1 mixed.test
	HOSTS
	echo "nameserver 127.0.0.1" > resolv.conf
}

# px_start [proxyrun options]: the proxy for sandbox 7 in the background;
# P is its port, fd 3 its helper's command channel.
px_start() {
	rm -f ctl run.out
	mkfifo ctl
	SBX_PROXY_HOSTS=$PWD/hosts SBX_PROXY_RESOLV_CONF=$PWD/resolv.conf \
	    "$RUN" -A -u 4242 "$@" "$PROXY" < ctl > run.out 2>> proxy.log &
	echo $! > run.pid
	exec 3> ctl
	i=0
	until grep -q '^port' run.out 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "proxy did not start: $(cat proxy.log)"
		sleep 0.1
	done
	P=$(awk '/^port/ { print $2; exit }' run.out)
}

# px_stop: the proxy only (the upstream stays for the next px_start).
px_stop() {
	exec 3>&-
	[ -f run.pid ] && kill "$(cat run.pid)" 2>/dev/null
	rm -f run.pid
	sleep 0.1
}

px_cleanup() {
	[ -f run.pid ] && kill "$(cat run.pid)" 2>/dev/null
	[ -f upstream.pid ] && kill "$(cat upstream.pid)" 2>/dev/null
	return 0
}

# get URL [curl options]: the status code on stdout; body and head in
# the files of those names.
get() {
	url=$1
	shift
	curl -s -o body -D head -w '%{http_code}' -x "http://127.0.0.1:$P" \
	    "$@" "$url"
}

# status WANT URL [curl options]
status() {
	want=$1
	shift
	got=$(get "$@")
	[ "$got" = "$want" ] || atf_fail "$1: status $got, want $want: $(cat head body 2>/dev/null)"
}

# refused URL REASON: 403 with REASON in X-Sbx-Error and in the body.
refused() {
	status 403 "$1"
	grep -q "^X-Sbx-Error: .*$2" head ||
	    atf_fail "$1: X-Sbx-Error does not say '$2': $(cat head)"
	grep -q "$2" body || atf_fail "$1: body does not say '$2': $(cat body)"
}

# raw WANT [rawhttp options]: the request on stdin; the answer's status
# line must start with "HTTP/1.1 WANT".
raw() {
	want=$1
	shift
	"$RAW" "$@" "$P" > out 2> raw.err
	head -1 out | grep -q "^HTTP/1.1 $want" ||
	    atf_fail "status $(head -1 out), want $want: $(cat out)"
}

atf_test_case allowed cleanup
allowed_head() {
	atf_set "descr" "allowed names are proxied: GET, HEAD, POST by length and chunked, chunked answers, keep-alive, Via, audit lines"
}
allowed_body() {
	px_init
	px_start -a allowed.test -a '*.wild.test' -c 127.0.0.1/32
	status 200 "http://allowed.test:$UP/hello?x=1"
	grep -q "^path /hello?x=1" body || atf_fail "path: $(cat body)"
	grep -q "^Host: allowed.test:$UP" body || atf_fail "host: $(cat body)"
	grep -q "^Via: 1.1 sbx-proxy" body || atf_fail "no Via upstream"
	grep -qi "^Via: 1.1 sbx-proxy" head || atf_fail "no Via downstream"
	grep -qi "Proxy-Connection" body && atf_fail "hop-by-hop forwarded"
	status 200 "http://ALLOWED.test.:$UP/case"
	status 200 "http://allowed.test:$UP/chunked/abcdefghijklmnopqrstuvwxyz"
	grep -q "^path /chunked/abcdefghijklmnopqrstuvwxyz" body ||
	    atf_fail "chunked: $(cat body)"
	status 200 "http://allowed.test:$UP/h" -I
	status 200 "http://allowed.test:$UP/p" -d "a=1&b=2"
	[ "$(cat body)" = "got a=1&b=2" ] || atf_fail "post: $(cat body)"
	status 200 "http://allowed.test:$UP/p" -H "Transfer-Encoding: chunked" \
	    --data-binary "chunked request body"
	[ "$(cat body)" = "got chunked request body" ] ||
	    atf_fail "chunked post: $(cat body)"
	# 3 MB up (curl sends Expect: 100-continue) and 8 MB down.
	head -c 3000000 /dev/zero | tr '\0' y > big
	status 200 "http://allowed.test:$UP/p" --data-binary @big
	[ "$(wc -c < body)" -eq 3000004 ] || atf_fail "big post: $(wc -c < body)"
	status 200 "http://allowed.test:$UP/big/8000000"
	[ "$(wc -c < body)" -eq 8000000 ] || atf_fail "big get: $(wc -c < body)"
	# Keep-alive: one client connection for three requests.
	curl -s -v -x "http://127.0.0.1:$P" "http://allowed.test:$UP/1" \
	    "http://a.wild.test:$UP/2" "http://allowed.test:$UP/3" \
	    > ka.out 2> ka.err
	[ "$(grep -c '^path /' ka.out)" -eq 3 ] || atf_fail "keep-alive: $(cat ka.out)"
	[ "$(grep -c 'Re-using existing connection' ka.err)" -eq 2 ] ||
	    atf_fail "the client connection was not kept: $(cat ka.err)"
	# Every decision is one line, with the sandbox and the peer.
	sleep 0.2
	grep -q "audit: proxy sandbox=7 uid=4242 method=GET host=allowed.test port=$UP addr=127.0.0.1 decision=allow status=200 reason=\"allow-domain 'allowed.test', allow-cidr '127.0.0.1/32'\"" proxy.log ||
	    atf_fail "no audit line: $(cat proxy.log)"
	grep -q "^audit sandbox=7 uid=4242 allowed=1 status=200 host=a.wild.test" run.out ||
	    atf_fail "no IMSG_PROXY_AUDIT: $(cat run.out)"
}
allowed_cleanup() {
	px_cleanup
}

atf_test_case denied cleanup
denied_head() {
	atf_set "descr" "names outside the rules get 403 with X-Sbx-Error naming the rule: deny over allow, '*.' below the name only, ':port'"
}
denied_body() {
	px_init
	px_start -a allowed.test -a '*.wild.test' -d deny.wild.test \
	    -a porty.test:1 -c 127.0.0.1/32
	refused "http://other.test:$UP/" "no allow-domain matches other.test:$UP"
	refused "http://deny.wild.test:$UP/" "deny-domain \"deny.wild.test\""
	status 200 "http://a.wild.test:$UP/"
	refused "http://wild.test:$UP/" "no allow-domain matches wild.test"
	refused "http://porty.test:$UP/" "no allow-domain matches porty.test:$UP"
	refused "http://allowed.test.evil.test:$UP/" "no allow-domain"
	grep -q 'decision=deny status=403 reason="deny-domain' proxy.log ||
	    atf_fail "no audit line for the refusal"
	px_stop
	# No rule: nothing.
	px_start
	refused "http://allowed.test:$UP/" "no allow-domain rules"
}
denied_cleanup() {
	px_cleanup
}

atf_test_case resolved cleanup
resolved_head() {
	atf_set "descr" "an allowed name is refused when every address it resolves to is loopback, private or metadata, unless allow-cidr covers it; a good address is used when there is one"
}
resolved_body() {
	px_init
	px_start -a allowed.test -a six.test -a meta.test -a lan.test \
	    -a mixed.test
	refused "http://allowed.test:$UP/" "127.0.0.1 is loopback and no allow-cidr covers it"
	refused "http://six.test:$UP/" "::1 is loopback"
	refused "http://meta.test:$UP/" "169.254.169.254 is cloud metadata"
	refused "http://lan.test:$UP/" "10.1.2.3 is private"
	refused "http://mixed.test:$UP/" "127.0.0.2 is loopback"
	px_stop
	px_start -a allowed.test -a six.test -a mixed.test -c 127.0.0.1/32 \
	    -c ::1
	status 200 "http://allowed.test:$UP/"
	# Two addresses, one refused (127.0.0.2, listed first) and one
	# covered: the covered one is used (the upstream listens only on
	# 127.0.0.1, so the other could not have answered).
	status 200 "http://mixed.test:$UP/"
	# The audit line follows the answer: wait for it.
	i=0
	until grep -q "host=mixed.test port=$UP addr=127.0.0.1 decision=allow" proxy.log; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "mixed: $(cat proxy.log)"
		sleep 0.1
	done
}
resolved_cleanup() {
	px_cleanup
}

atf_test_case literals cleanup
literals_head() {
	atf_set "descr" "IP literals in every spelling reach only what allow-cidr covers; zone ids are refused"
}
literals_body() {
	px_init
	px_start -a allowed.test
	for h in 127.0.0.1 2130706433 0x7f.1 0x7f000001 0177.0.0.1 127.1 \
	    127.0.1 017700000001 127.0.0.1. '[::1]' '[::ffff:127.0.0.1]' \
	    '[::ffff:7f00:1]' '[64:ff9b::7f00:1]' '[2002:7f00:1::]' \
	    '[::127.0.0.1]' 169.254.169.254 0xa9fea9fe '[fd00:ec2::254]' \
	    10.0.0.1 100.64.0.1 '[fe80::1]' 0 '[::]'; do
		printf 'GET http://%s:%s/ HTTP/1.1\r\nHost: %s:%s\r\n\r\n' \
		    "$h" "$UP" "$h" "$UP" | raw 403
		grep -q "^X-Sbx-Error: address .* is not a name and no allow-cidr covers it" out ||
		    atf_fail "$h: $(cat out)"
		printf 'CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n\r\n' \
		    "$h" "$UP" "$h" "$UP" | raw 403
	done
	printf 'GET http://[fe80::1%%25lo]:%s/ HTTP/1.1\r\nHost: x\r\n\r\n' \
	    "$UP" | raw 400
	grep -q "zone ids are refused" out || atf_fail "zone id: $(cat out)"
	# IDNs: as punycode they are names like any other; raw UTF-8 is
	# refused, in the URI and in Host.
	printf 'GET http://b\303\274cher.test/ HTTP/1.1\r\nHost: x\r\n\r\n' |
	    raw 400
	grep -q "invalid character in the target" out || atf_fail "IDN: $(cat out)"
	printf 'GET http://xn--bcher-kva.test/ HTTP/1.1\r\nHost: b\303\274cher.test\r\n\r\n' |
	    raw 400
	grep -q "punycode" out || atf_fail "IDN: $(cat out)"
	printf 'GET http://xn--bcher-kva.test/ HTTP/1.1\r\nHost: xn--bcher-kva.test\r\n\r\n' |
	    raw 403
	grep -q "no allow-domain matches xn--bcher-kva.test:80" out ||
	    atf_fail "IDN: $(cat out)"
	px_stop
	# Covered: every spelling of 127.0.0.1 reaches it.
	px_start -c 127.0.0.1/32
	for h in 127.0.0.1 2130706433 0x7f.1 0177.0.0.1 127.1 \
	    '[::ffff:127.0.0.1]'; do
		printf 'GET http://%s:%s/lit HTTP/1.1\r\nHost: %s:%s\r\nConnection: close\r\n\r\n' \
		    "$h" "$UP" "$h" "$UP" | raw 200
	done
	printf 'GET http://127.0.0.2:%s/ HTTP/1.1\r\nHost: 127.0.0.2:%s\r\n\r\n' \
	    "$UP" "$UP" | raw 403
}
literals_cleanup() {
	px_cleanup
}

atf_test_case smuggling cleanup
smuggling_head() {
	atf_set "descr" "ambiguous framing, malformed and oversized heads are refused with 400, 414, 431, 501, 505"
}
smuggling_body() {
	px_init
	px_start -a allowed.test -c 127.0.0.1/32
	R="GET http://allowed.test:$UP/ HTTP/1.1\r\nHost: allowed.test:$UP\r\n"
	printf "${R}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n" | raw 400
	grep -q "both Content-Length and Transfer-Encoding" out || atf_fail "$(cat out)"
	printf "${R}Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n" | raw 400
	printf "${R}Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc" | raw 400
	printf "${R}Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd" | raw 400
	printf "${R}Content-Length: 3, 4\r\n\r\nabcd" | raw 400
	printf "${R}Transfer-Encoding: gzip, chunked\r\n\r\n" | raw 400
	printf "${R}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n" | raw 400
	printf "${R}Transfer-Encoding : chunked\r\n\r\n" | raw 400
	grep -q "whitespace before ':'" out || atf_fail "$(cat out)"
	printf "${R}X-A: 1\r\n folded\r\n\r\n" | raw 400
	grep -q "obs-fold" out || atf_fail "$(cat out)"
	printf "${R}X-A: 1\nX-B: 2\r\n\r\n" | raw 400
	grep -q "bare LF" out || atf_fail "$(cat out)"
	printf "${R}X-A: 1\rX-B: 2\r\n\r\n" | raw 400
	printf "${R}X-A: a\000b\r\n\r\n" | raw 400
	grep -q "NUL" out || atf_fail "$(cat out)"
	printf "${R}Connection: Content-Length\r\nContent-Length: 3\r\n\r\nabc" | raw 400
	printf "GET http://allowed.test:$UP/ HTTP/1.1\r\nHost: other.test\r\n\r\n" | raw 400
	grep -q "does not match the target" out || atf_fail "$(cat out)"
	printf "GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n" | raw 400
	printf "GET http://allowed.test:$UP/ HTTP/1.1\r\n\r\n" | raw 400
	printf "TRACE http://allowed.test:$UP/ HTTP/1.1\r\nHost: allowed.test:$UP\r\n\r\n" | raw 501
	printf "GET http://allowed.test:$UP/ HTTP/2.0\r\nHost: allowed.test:$UP\r\n\r\n" | raw 505
	printf "${R}Transfer-Encoding: chunked\r\n\r\n5\r\nhello!\r\n0\r\n\r\n" |
	    "$RAW" "$P" > out
	grep -q "^HTTP/1.1 200" out && atf_fail "bad chunk accepted: $(cat out)"
	# Caps: request line, one header line, the number of fields.
	python3 -c "import sys; sys.stdout.write('GET http://allowed.test/' + 'a' * 9000 + ' HTTP/1.1\r\n\r\n')" | raw 414
	python3 -c "import sys; sys.stdout.write('$R' .replace('\\\\r\\\\n', '\r\n') + 'X-Big: ' + 'b' * 9000 + '\r\n\r\n')" | raw 431
	python3 -c "import sys; sys.stdout.write('$R' .replace('\\\\r\\\\n', '\r\n') + ''.join('X-%d: y\r\n' % i for i in range(120)) + '\r\n')" | raw 431
	python3 -c "import sys; sys.stdout.write('$R' .replace('\\\\r\\\\n', '\r\n') + ''.join('X-%d: %s\r\n' % (i, 'z' * 400) for i in range(90)))" | raw 431
	grep -q "head longer than" out || atf_fail "$(cat out)"
	# A good request still works afterwards.
	status 200 "http://allowed.test:$UP/after"
}
smuggling_cleanup() {
	px_cleanup
}

atf_test_case slowloris cleanup
slowloris_head() {
	atf_set "descr" "a head that trickles in is cut off at the header timeout; idle and silent connections are closed"
}
slowloris_body() {
	px_init
	px_start -a allowed.test -c 127.0.0.1/32 -H 1000 -I 1000
	printf "GET http://allowed.test:$UP/ HTTP/1.1\r\nHost: allowed.test:$UP\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n" |
	    raw 408 -e -d 100 -t 5000
	ms=$(awk '/^elapsed/ { print $2 }' raw.err)
	[ "$ms" -ge 900 ] && [ "$ms" -lt 2500 ] ||
	    atf_fail "slow head cut after $ms ms, want about 1000"
	grep -q "request head not complete within 1000 ms" out || atf_fail "$(cat out)"
	# Connected and silent: closed at the header timeout, no answer.
	: | "$RAW" -e -t 5000 "$P" > out 2> raw.err ||
	    atf_fail "silent connection not closed"
	ms=$(awk '/^elapsed/ { print $2 }' raw.err)
	[ "$ms" -lt 2500 ] || atf_fail "silent connection lived $ms ms"
	# Kept alive and idle: closed at the idle timeout.
	printf "GET http://allowed.test:$UP/ HTTP/1.1\r\nHost: allowed.test:$UP\r\n\r\n" |
	    "$RAW" -e -t 5000 "$P" > out 2> raw.err || atf_fail "idle not closed"
	head -1 out | grep -q "^HTTP/1.1 200" || atf_fail "$(cat out)"
	ms=$(awk '/^elapsed/ { print $2 }' raw.err)
	[ "$ms" -lt 2500 ] || atf_fail "idle connection lived $ms ms"
}
slowloris_cleanup() {
	px_cleanup
}

atf_test_case connect cleanup
connect_head() {
	atf_set "descr" "CONNECT tunnels bytes both ways to any port the rules allow; refused ones get 403"
}
connect_body() {
	px_init
	px_start -a allowed.test -a "porty.test:1" -c 127.0.0.1/32
	printf "CONNECT allowed.test:$UP HTTP/1.1\r\nHost: allowed.test:$UP\r\n\r\nGET /in-tunnel HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" |
	    raw 200
	grep -q "^HTTP/1.1 200 Connection established" out || atf_fail "$(cat out)"
	grep -q "^path /in-tunnel" out || atf_fail "no bytes through: $(cat out)"
	grep -q "^Via: 1.1 sbx-proxy" out && atf_fail "tunnel bytes were touched"
	# curl's own tunnel, 8 MB through it.
	got=$(curl -s -p -o body -w '%{http_code}' -x "http://127.0.0.1:$P" \
	    "http://allowed.test:$UP/big/8000000")
	[ "$got" = 200 ] && [ "$(wc -c < body)" -eq 8000000 ] ||
	    atf_fail "tunnel download: $got $(wc -c < body)"
	printf "CONNECT porty.test:$UP HTTP/1.1\r\nHost: porty.test:$UP\r\n\r\n" | raw 403
	printf "CONNECT other.test:443 HTTP/1.1\r\nHost: other.test:443\r\n\r\n" | raw 403
	grep -q "^X-Sbx-Error: no allow-domain matches other.test:443" out ||
	    atf_fail "$(cat out)"
	sleep 0.2
	grep -q "method=CONNECT host=allowed.test port=$UP addr=127.0.0.1 decision=allow status=200 .* down=8000" proxy.log ||
	    atf_fail "no tunnel audit line: $(cat proxy.log)"
}
connect_cleanup() {
	px_cleanup
}

atf_test_case upstream cleanup
upstream_head() {
	atf_set "descr" "an upstream that refuses is 502, one that never answers 504, a malformed answer 502"
}
upstream_body() {
	px_init
	px_start -a allowed.test -c 127.0.0.1/32 -O 1000
	# A port nothing listens on: bind one, note it, close it.
	dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	status 502 "http://allowed.test:$dead/"
	grep -q "^X-Sbx-Error: cannot connect to 127.0.0.1 port $dead" head ||
	    atf_fail "$(cat head)"
	status 504 "http://allowed.test:$UP/hang"
	status 502 "http://allowed.test:$UP/bad"
	grep -q "more than one Content-Length" head || atf_fail "$(cat head)"
}
upstream_cleanup() {
	px_cleanup
}

atf_test_case stale cleanup
stale_head() {
	atf_set "descr" "a request on a kept-alive upstream that closed meanwhile is sent again once on a new connection when that is safe (idempotent, no body, no answer yet); a POST is not, and gets 502"
}
stale_body() {
	px_init
	px_start -a allowed.test -c 127.0.0.1/32
	# Both GETs on one client connection: the second goes out on the
	# kept upstream, which closes without answering.
	printf "GET http://allowed.test:$UP/stale/1 HTTP/1.1\r\nHost: allowed.test:$UP\r\n\r\nGET http://allowed.test:$UP/stale/2 HTTP/1.1\r\nHost: allowed.test:$UP\r\nConnection: close\r\n\r\n" |
	    raw 200
	[ "$(grep -c '^HTTP/1.1 200' out)" -eq 2 ] || atf_fail "$(cat out)"
	grep -q "^path /stale/2" out || atf_fail "no second answer: $(cat out)"
	i=0
	until grep -q "host=allowed.test port=$UP .*retried on a new upstream connection" proxy.log; do
		i=$((i + 1)); [ $i -lt 50 ] || atf_fail "no retry audited: $(cat proxy.log)"
		sleep 0.1
	done
	# The same for an address (no name to resolve again).
	printf "GET http://127.0.0.1:$UP/stale/3 HTTP/1.1\r\nHost: 127.0.0.1:$UP\r\n\r\nHEAD http://127.0.0.1:$UP/stale/4 HTTP/1.1\r\nHost: 127.0.0.1:$UP\r\nConnection: close\r\n\r\n" |
	    raw 200
	[ "$(grep -c '^HTTP/1.1 200' out)" -eq 2 ] || atf_fail "$(cat out)"
	# A POST may have been acted on: not sent twice.
	printf "GET http://allowed.test:$UP/stale/5 HTTP/1.1\r\nHost: allowed.test:$UP\r\n\r\nPOST http://allowed.test:$UP/stale/6 HTTP/1.1\r\nHost: allowed.test:$UP\r\nContent-Length: 2\r\nConnection: close\r\n\r\nab" |
	    raw 200
	grep -q "^HTTP/1.1 502" out || atf_fail "POST: $(cat out)"
	grep -q "^X-Sbx-Error: upstream closed the connection before answering" out ||
	    atf_fail "POST: $(cat out)"
}
stale_cleanup() {
	px_cleanup
}

atf_test_case backpressure cleanup
backpressure_head() {
	atf_set "descr" "a reader that stalls never grows the proxy's memory: 60 MB answers and a 40 MB request body wait in bounded buffers, both ways, tunnels too"
}
backpressure_body() {
	px_init
	px_start -a allowed.test -c 127.0.0.1/32
	pid=$(awk '/^pid/ { print $2; exit }' run.out)
	# hwm: the proxy's peak resident set, in kB.
	hwm() {
		awk '/^VmHWM/ { print $2 }' "/proc/$pid/status"
	}
	printf "GET http://allowed.test:$UP/big/60000000 HTTP/1.1\r\nHost: allowed.test:$UP\r\nConnection: close\r\n\r\n" |
	    "$RAW" -c -w 3000 -t 20000 "$P" > out || atf_fail "download cut"
	grep -q "^bytes 60000" out || atf_fail "download: $(cat out)"
	printf "CONNECT allowed.test:$UP HTTP/1.1\r\nHost: allowed.test:$UP\r\n\r\nGET /big/60000000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" |
	    "$RAW" -c -w 3000 -t 20000 "$P" > out || atf_fail "tunnel cut"
	grep -q "^bytes 60000" out || atf_fail "tunnel: $(cat out)"
	head -c 40000000 /dev/zero > big
	status 200 "http://allowed.test:$UP/stall" -H "Expect:" --data-binary @big
	[ "$(wc -c < body)" -eq 40000004 ] || atf_fail "upload: $(wc -c < body)"
	kb=$(hwm)
	echo "peak resident set: $kb kB"
	[ "$kb" -lt 20000 ] || atf_fail "the proxy grew to $kb kB"
}
backpressure_cleanup() {
	px_cleanup
}

atf_test_case dns cleanup
dns_head() {
	atf_set "descr" "names resolved by a name server over UDP (evdns under the proxy's filter) are checked like any other: refused as loopback, allowed with allow-cidr; unknown names are 502"
}
dns_body() {
	px_init
	python3 "$TOP/regress/proxy-dns.py" dns.port > dns.log 2>&1 &
	echo $! > dns.pid
	sbx_wait_port dns dns.port
	echo "nameserver 127.0.0.1:$(cat dns.port)" > resolv.conf
	px_start -a '*.dns.test' -a nowhere.test
	refused "http://www.dns.test:$UP/" "127.0.0.1 is loopback"
	status 502 "http://nowhere.test:$UP/"
	grep -q "^X-Sbx-Error: cannot resolve nowhere.test" head ||
	    atf_fail "unknown name: $(cat head)"
	px_stop
	px_start -a '*.dns.test' -c 127.0.0.1/32
	status 200 "http://www.dns.test:$UP/via-dns"
	grep -q "^path /via-dns" body || atf_fail "$(cat body)"
	# Still alive: the filter let every lookup through.
	kill -0 "$(awk '/^pid/ { print $2; exit }' run.out)" ||
	    atf_fail "the proxy died"
	px_stop
	# A name server that never answers: 504 at the connect deadline.
	python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
open(sys.argv[1], "w").write("%d\n" % s.getsockname()[1])
time.sleep(60)' silent.port &
	echo $! > silent.pid
	sbx_wait_port silent silent.port
	echo "nameserver 127.0.0.1:$(cat silent.port)" > resolv.conf
	px_start -a '*.dns.test' -C 1000
	status 504 "http://www.dns.test:$UP/"
	grep -q "^X-Sbx-Error: resolving www.dns.test:$UP took longer than 1000 ms" head ||
	    atf_fail "resolution timeout: $(cat head)"
}
dns_cleanup() {
	[ -f dns.pid ] && kill "$(cat dns.pid)" 2>/dev/null
	[ -f silent.pid ] && kill "$(cat silent.pid)" 2>/dev/null
	px_cleanup
}

atf_test_case sandboxes cleanup
sandboxes_head() {
	atf_set "descr" "each listener answers with its own sandbox's policy; the end of one sandbox leaves the other; a miscounted policy ends the proxy (closed protocol)"
}
sandboxes_body() {
	px_init
	px_start -a allowed.test -c 127.0.0.1/32
	P7=$P
	echo "sandbox 8 a:a.wild.test c:127.0.0.1/32" >&3
	i=0
	until [ "$(grep -c '^port' run.out)" -eq 2 ]; do
		i=$((i + 1)); [ $i -lt 50 ] || atf_fail "no second listener"
		sleep 0.1
	done
	P8=$(awk '/^port/ { p = $2 } END { print p }' run.out)
	P=$P7
	status 200 "http://allowed.test:$UP/"
	refused "http://a.wild.test:$UP/" "no allow-domain matches"
	P=$P8
	status 200 "http://a.wild.test:$UP/"
	refused "http://allowed.test:$UP/" "no allow-domain matches"
	sleep 0.2
	grep -q "sandbox=8 uid=4242 method=GET host=a.wild.test port=$UP addr=127.0.0.1 decision=allow" proxy.log ||
	    atf_fail "sandbox 8's audit line: $(cat proxy.log)"
	echo "end 8" >&3
	i=0
	until grep -q '^ended' run.out; do
		i=$((i + 1)); [ $i -lt 50 ] || atf_fail "no end"; sleep 0.1
	done
	got=$(get "http://a.wild.test:$UP/")
	[ "$got" = 000 ] || atf_fail "sandbox 8's listener still open: $got"
	P=$P7
	status 200 "http://allowed.test:$UP/"
	# The monitor's messages must add up, or the role ends.
	echo badend >&3
	i=0
	while kill -0 "$(awk '/^pid/ { print $2; exit }' run.out)" 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 50 ] || atf_fail "proxy survived a bad policy"
		sleep 0.1
	done
	grep -q "POLICY_END for sandbox 99: [0-9]* rules announced, [0-9]* sent" proxy.log ||
	    atf_fail "no reason logged"
}
sandboxes_cleanup() {
	px_cleanup
}

atf_test_case limits cleanup
limits_head() {
	atf_set "descr" "a sandbox's connection cap answers 503 beyond it; the end of a sandbox closes its listeners and connections"
}
limits_body() {
	px_init
	px_start -a allowed.test -c 127.0.0.1/32 -m 2 -H 5000
	printf 'G' | "$RAW" -t 8000 "$P" > idle1 2>&1 &
	idle1=$!
	printf 'G' | "$RAW" -t 8000 "$P" > idle2 2>&1 &
	idle2=$!
	sleep 0.5
	status 503 "http://allowed.test:$UP/"
	grep -q "connection limit" head || atf_fail "$(cat head)"
	grep -q "the sandbox's connection limit is reached" proxy.log ||
	    atf_fail "no audit line for the cap"
	# The end of the sandbox: its connections go at once, its listener
	# refuses.
	echo end >&3
	i=0
	until grep -q '^ended' run.out; do
		i=$((i + 1)); [ $i -lt 50 ] || atf_fail "no end"; sleep 0.1
	done
	wait $idle1 $idle2
	got=$(get "http://allowed.test:$UP/")
	[ "$got" = 000 ] || atf_fail "listener still open after the end: $got"
}
limits_cleanup() {
	px_cleanup
}

atf_test_case total_cap cleanup
total_cap_head() {
	atf_set "descr" "the proxy's cap of 1024 client connections of all sandboxes together: with 1000 tunnels open from one sandbox, another gets 24 working ones and the excess is answered 503 and audited as the proxy's limit"
}
total_cap_body() {
	px_init
	TUN=$B/regress/helpers/tunnels
	px_start -a allowed.test -c 127.0.0.1/32 -m 1024 -O 60000
	P7=$P
	echo "sandbox 8 c:127.0.0.1/32" >&3
	i=0
	until [ "$(grep -c '^port' run.out)" -eq 2 ]; do
		i=$((i + 1)); [ $i -lt 50 ] || atf_fail "no second listener"
		sleep 0.1
	done
	P8=$(awk '/^port/ { p = $2 } END { print p }' run.out)
	# The filler tunnels go to a listener that completes handshakes
	# and never accepts: no thread of the upstream's per tunnel.
	python3 -c 'import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(2048)
open(sys.argv[1], "w").write("%d\n" % s.getsockname()[1])
time.sleep(120)' sink.port &
	echo $! > sink.pid
	sbx_wait_port sink sink.port
	"$TUN" -n -h 60 -p "$P7" 127.0.0.1 "$(cat sink.port)" 1000 > t7.out 2>&1 &
	echo $! > t7.pid
	i=0
	until grep -q '^working' t7.out; do
		i=$((i + 1)); [ $i -lt 600 ] || atf_fail "1000 tunnels: $(cat t7.out)"
		sleep 0.1
	done
	atf_check -o match:"^established 1000$" cat t7.out
	atf_check -o match:"^established 24$" -o match:"^refused 16$" \
	    -o match:"^working 24$" \
	    -o match:"^refusal 503 connection limit reached$" \
	    "$TUN" -p "$P8" 127.0.0.1 "$UP" 40
	kill "$(cat t7.pid)"
	i=0
	until [ "$(grep -c "sandbox=8 .*the proxy's connection limit is reached" proxy.log)" -eq 16 ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "not 16 refusals audited: $(grep -c "proxy's connection limit" proxy.log)"
		sleep 0.1
	done
}
total_cap_cleanup() {
	[ -f t7.pid ] && kill "$(cat t7.pid)" 2>/dev/null
	[ -f sink.pid ] && kill "$(cat sink.pid)" 2>/dev/null
	px_cleanup
}

atf_init_test_cases() {
	atf_add_test_case allowed
	atf_add_test_case denied
	atf_add_test_case resolved
	atf_add_test_case literals
	atf_add_test_case smuggling
	atf_add_test_case slowloris
	atf_add_test_case connect
	atf_add_test_case upstream
	atf_add_test_case stale
	atf_add_test_case backpressure
	atf_add_test_case dns
	atf_add_test_case sandboxes
	atf_add_test_case limits
	atf_add_test_case total_cap
}
