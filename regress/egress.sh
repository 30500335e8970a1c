#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# egress.sh: network proxy sandboxes end to end -- sbx-monitor, the
# launcher, each sandbox's pid 1 making the proxy's listeners inside its
# own network namespace, sbx-proxy serving them -- with curl inside the
# sandbox and a local upstream (proxy-upstream.py) on 127.0.0.1.  Every
# target is a loopback address; names are the host's "localhost" and
# names that never resolve.  Runs as root and as an unprivileged user.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

setup() {
	sbx_test_paths
	TOP=$S/top
	PROBE=$B/regress/helpers/probe
	command -v curl > /dev/null || atf_fail "curl is missing (scripts/deps installs it)"
	command -v python3 > /dev/null || atf_fail "python3 is missing (scripts/deps installs it)"
	sbx_test_dir sbxegress
	sbx_upstream_test "$D/up.port"
	# The probe where the sandbox's user can reach it.
	mkdir "$D/helpers"
	cp "$PROBE" "$D/helpers/probe"
	cp "$B/regress/helpers/tunnels" "$D/helpers/tunnels"
	chmod 755 "$D/helpers" "$D/helpers/probe" "$D/helpers/tunnels"
	PROBE=$D/helpers/probe
	TUNNELS=$D/helpers/tunnels
	write_conf "allow-cidr \"127.0.0.1/32\""
}

# write_conf RULE...: profile "net" (network proxy) with these rules
# besides allow-domain "localhost" and deny-domain "denied.test".
write_conf() {
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "log-file \"$D/audit.jsonl\""
		echo "profile \"net\" {"
		echo "	network proxy"
		echo "	ro \"/usr\""
		echo "	ro \"/etc/alternatives\""
		echo "	ro \"$D/helpers\""
		echo "	allow-domain \"localhost\""
		echo "	deny-domain \"denied.test\""
		for r in "$@"; do
			echo "	$r"
		done
		echo "	timeout 60"
		echo "}"
	} > "$D/sbx.conf.new"
	chmod 644 "$D/sbx.conf.new"
	mv "$D/sbx.conf.new" "$D/sbx.conf"
}

start_monitor() {
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
}

stop_monitor() {
	kill -TERM "$(cat mon.pid)"
	wait "$(cat mon.pid)" || { cat mon.log; atf_fail "monitor exit"; }
}

cleanup() {
	for f in mon.pid upstream.pid bg.pid; do
		[ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
	done
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case fetch cleanup
fetch_head() {
	atf_set "descr" "curl in a network proxy sandbox: an allowed address and name are fetched, through absolute-URI requests and CONNECT; a denied name gets 403 with X-Sbx-Error; the audit log has each decision"
}
fetch_body() {
	setup
	start_monitor
	atf_check -s exit:0 -o match:"^http_proxy=http://127.0.0.1:3128$" \
	    -o match:"^NO_PROXY=$" "$C" -s "$SOCK" run -p net -- /usr/bin/env
	# Hop-by-hop headers go, Via comes.
	atf_check -s exit:0 -o match:"^path /via-uri$" -o match:"^Via: 1.1 sbx-proxy" \
	    "$C" -s "$SOCK" run -p net -- /usr/bin/curl -sS -m 10 \
	    "http://127.0.0.1:$UP/via-uri"
	atf_check -s exit:0 -o match:"^path /via-name$" \
	    "$C" -s "$SOCK" run -p net -- /usr/bin/curl -sS -m 10 \
	    "http://localhost:$UP/via-name"
	# CONNECT: a tunnel the proxy does not look into.
	atf_check -s exit:0 -o match:"^path /via-tunnel$" \
	    "$C" -s "$SOCK" run -p net -- /usr/bin/curl -sS -m 10 -p \
	    "http://127.0.0.1:$UP/via-tunnel"
	atf_check -s exit:0 -o match:"^HTTP/1.1 403" \
	    -o match:"^X-Sbx-Error: .*deny-domain" \
	    "$C" -s "$SOCK" run -p net -- /usr/bin/curl -sS -m 10 -D - \
	    -o /dev/null "http://denied.test/"
	# The decisions, in the monitor's audit log: the proxy sends each
	# once the connection is done, which may be just after sbxctl ends
	# (seconds later on a loaded machine: wait up to 30 s).
	i=0
	while [ $i -lt 300 ]; do
		grep -Eq '"event":"proxy".*GET 127\.0\.0\.1:[0-9]+ addr' \
		    "$D/audit.jsonl" &&
		grep -Eq '"event":"proxy".*denied\.test:80 .*deny status 403' \
		    "$D/audit.jsonl" &&
		    grep -Eq '"event":"proxy".*CONNECT 127\.0\.0\.1:[0-9]+.* allow' \
		    "$D/audit.jsonl" && break
		sleep 0.1
		i=$((i + 1))
	done
	atf_check -o match:'"event":"proxy".*GET 127\.0\.0\.1:[0-9]+ addr 127\.0\.0\.1.* allow' \
	    -o match:'"event":"proxy".*CONNECT 127\.0\.0\.1:[0-9]+.* allow' \
	    -o match:'"event":"proxy".*denied\.test:80 .*deny status 403' \
	    cat "$D/audit.jsonl"
	stop_monitor
}
fetch_cleanup() {
	cleanup
}

atf_test_case refused cleanup
refused_head() {
	atf_set "descr" "a name that resolves to loopback is refused without an allow-cidr; IP literals need allow-cidr; no rule reaches anything; raw TCP that ignores the proxy variables reaches nothing"
}
refused_body() {
	setup
	write_conf
	start_monitor
	atf_check -s exit:0 -o match:"^HTTP/1.1 403" -o match:"^X-Sbx-Error: " \
	    "$C" -s "$SOCK" run -p net -- /usr/bin/curl -sS -m 10 -D - \
	    -o /dev/null "http://localhost:$UP/"
	for lit in 127.0.0.1 2130706433 0x7f.1 0177.0.0.1 127.1 "[::1]" \
	    "[::ffff:127.0.0.1]"; do
		atf_check -s exit:0 -o match:"^HTTP/1.1 403" \
		    "$C" -s "$SOCK" run -p net -- /usr/bin/curl -sS -m 10 \
		    -g -D - -o /dev/null "http://$lit:$UP/"
	done
	atf_check -s exit:0 -o match:"^HTTP/1.1 403" \
	    "$C" -s "$SOCK" run -p net -- /usr/bin/curl -sS -m 10 -D - \
	    -o /dev/null "http://not-listed.test/"
	# Straight to the upstream, past the proxy: no route, no Landlock
	# right, nothing listening in the sandbox's own namespace.
	atf_check -s exit:7 -o empty -e ignore \
	    "$C" -s "$SOCK" run -p net -- /usr/bin/curl -sS -m 5 \
	    --noproxy "*" "http://127.0.0.1:$UP/"
	atf_check -s exit:0 -o match:"^connect 127.0.0.1 $UP (EACCES|ECONNREFUSED)$" \
	    "$C" -s "$SOCK" run -p net -- "$PROBE" connect 127.0.0.1 "$UP"
	stop_monitor
}
refused_cleanup() {
	cleanup
}

atf_test_case policy_snapshot cleanup
policy_snapshot_head() {
	atf_set "descr" "a running sandbox keeps the rules it started with across a reload; new sandboxes get the new ones; its listeners go when it ends"
}
policy_snapshot_body() {
	setup
	start_monitor
	proxy=$(pgrep -P "$(cat mon.pid)" -x sbx-proxy)
	[ -n "$proxy" ] || atf_fail "no sbx-proxy under the monitor"
	before=$(ls "/proc/$proxy/fd" 2>/dev/null | wc -l)
	# Started under allow-cidr 127.0.0.1/32; fetches after the reload.
	"$C" -s "$SOCK" run -p net -- /bin/sh -c "sleep 2; /usr/bin/curl \
	    -sS -m 10 http://127.0.0.1:$UP/old-rules" > bg.out 2> bg.err &
	echo $! > bg.pid
	sleep 0.5
	write_conf
	kill -HUP "$(cat mon.pid)"
	sleep 0.5
	atf_check -s exit:0 -o match:"^HTTP/1.1 403" \
	    "$C" -s "$SOCK" run -p net -- /usr/bin/curl -sS -m 10 -D - \
	    -o /dev/null "http://127.0.0.1:$UP/new-rules"
	wait "$(cat bg.pid)" || { cat bg.err; atf_fail "the old sandbox failed"; }
	rm bg.pid
	atf_check -o match:"^path /old-rules$" cat bg.out
	# Every sandbox ended: the proxy holds no listener of theirs.
	if [ -r "/proc/$proxy/fd" ]; then
		after=$(ls "/proc/$proxy/fd" | wc -l)
		[ "$after" -eq "$before" ] ||
		    atf_fail "sbx-proxy had $before descriptors, now $after"
	fi
	stop_monitor
}
policy_snapshot_cleanup() {
	cleanup
}

atf_test_case status cleanup
status_head() {
	atf_set "descr" "sbxctl status shows a live tunnel (sandbox, host, port, bytes each way, age) spliced through pipes, and the proxy's totals: connections, requests, denials, bytes"
}
status_body() {
	setup
	start_monitor
	proxy=$(pgrep -P "$(cat mon.pid)" -x sbx-proxy)
	[ -n "$proxy" ] || atf_fail "no sbx-proxy under the monitor"
	atf_check -s exit:0 -o match:"^HTTP/1.1 403" \
	    "$C" -s "$SOCK" run -p net -- /usr/bin/curl -sS -m 10 -D - \
	    -o /dev/null "http://denied.test/"
	# A tunnel that stays open: the upstream never answers /hang.
	"$C" -s "$SOCK" run -p net -- /usr/bin/curl -sS -m 30 -p \
	    "http://127.0.0.1:$UP/hang" > bg.out 2> bg.err &
	echo $! > bg.pid
	i=0
	until "$C" -s "$SOCK" status > st.out 2>&1 &&
	    grep -Eq "^tunnel sandbox [0-9]+ +127\.0\.0\.1:$UP \(127\.0\.0\.1\) up [1-9][0-9]* down 39 age [0-9.]+ s$" st.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "no live tunnel in status: $(cat st.out)"
		sleep 0.1
	done
	atf_check -o match:"^proxy 1 connections, 1 tunnels; since start 2 connections \(0 over a cap\), 1 requests, 1 denied, [1-9][0-9]* bytes up" \
	    cat st.out
	atf_check -s exit:0 -o save:st.json "$C" -s "$SOCK" --json status
	atf_check -o match:'"tunnels":1' -o match:'"live":\[\{"sandbox":[0-9]+,"host":"127.0.0.1","port":'"$UP"',"addr":"127.0.0.1","bytes_up":[1-9]' \
	    -o match:'"age_ms":[0-9]' cat st.json
	# The tunnel's bytes go through the kernel: two pipes (four ends).
	if [ -r "/proc/$proxy/fd" ]; then
		n=$(ls -l "/proc/$proxy/fd" | grep -c 'pipe:')
		[ "$n" -ge 4 ] || atf_fail "the tunnel holds $n pipe ends"
	fi
	kill "$(cat bg.pid)"
	wait "$(cat bg.pid)"
	rm bg.pid
	i=0
	until "$C" -s "$SOCK" status > st.out 2>&1 &&
	    grep -q "^proxy 0 connections, 0 tunnels; since start 2 connections (0 over a cap), 2 requests, 1 denied" st.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "the tunnel is still counted: $(cat st.out)"
		sleep 0.1
	done
	grep -q "^tunnel" st.out && atf_fail "a tunnel is listed: $(cat st.out)"
	stop_monitor
}
status_cleanup() {
	cleanup
}

atf_test_case tunnels200 cleanup
tunnels200_head() {
	atf_set "descr" "200 CONNECT tunnels open at once from inside one sandbox, with proxy-connections 200: the excess is answered 503 'connection limit reached' and audited, and all 200 tunnels carry a request each"
}
tunnels200_body() {
	setup
	write_conf "allow-cidr \"127.0.0.1/32\"" "proxy-connections 200"
	start_monitor
	atf_check -s exit:0 -o save:t.out "$C" -s "$SOCK" run -p net -- \
	    "$TUNNELS" 127.0.0.1 "$UP" 215
	atf_check -o match:"^established 200$" -o match:"^refused 15$" \
	    -o match:"^working 200$" \
	    -o match:"^refusal 503 connection limit reached$" cat t.out
	[ "$(grep -c '^refusal' t.out)" -eq 1 ] ||
	    atf_fail "other refusals: $(cat t.out)"
	i=0
	until [ "$(grep -c '"event":"proxy".*the sandbox.s connection limit is reached' "$D/audit.jsonl")" -eq 15 ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "not 15 cap refusals audited: $(grep -c limit "$D/audit.jsonl")"
		sleep 0.1
	done
	# The default cap is 64.
	write_conf "allow-cidr \"127.0.0.1/32\""
	kill -HUP "$(cat mon.pid)"
	sleep 0.5
	atf_check -s exit:0 -o match:"^established 64$" -o match:"^refused 6$" \
	    -o match:"^working 64$" "$C" -s "$SOCK" run -p net -- \
	    "$TUNNELS" 127.0.0.1 "$UP" 70
	stop_monitor
}
tunnels200_cleanup() {
	cleanup
}

atf_init_test_cases() {
	atf_add_test_case fetch
	atf_add_test_case status
	atf_add_test_case tunnels200
	atf_add_test_case refused
	atf_add_test_case policy_snapshot
}
