#! /usr/bin/env atf-sh
#
# tenants.sh: sbx as a shared service, played as a hostile but allowed
# tenant.  Each case tries one way a caller could gain rights on the
# host, starve the service or reach another caller, and fails if it
# works.  As root the monitor drops to "nobody" and the tenants are the
# unprivileged users "sbxtest" (scripts/check creates it) and root; as
# an unprivileged user the cases that need a second user skip and say so.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

# ---- set-id bits and ids inside (setid_*, ids_*) ----

# ---- the launcher's split and its refusals (launcher_*) ----

# ---- bounded connections (flood_*) ----

# flood_setup [extra sbx.conf lines]: a private monitor's directory and
# configuration (F: the flood helper); the monitor drops to nobody as
# root, or runs as the user.
flood_setup() {
	sbx_test_paths
	F=$S/helpers/flood
	sbx_test_dir sbxflood
	{
		echo "socket \"$SOCK\""
		echo "socket-mode 0660"
		echo "user \"nobody\""
		echo "log-file \"$D/audit.jsonl\""
		for l in "$@"; do echo "$l"; done
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
}

flood_start() {
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	MP=$(cat mon.pid)
}

flood_stop() {
	kill -TERM "$MP"
	wait "$MP" || { cat mon.log; atf_fail "the monitor did not stop cleanly"; }
}

# The monitor's resident memory in KiB, and its open descriptors (empty
# when /proc does not show them to us).
flood_rss() {
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$MP/status"
}
flood_nfds() {
	ls "/proc/$MP/fd" 2>/dev/null | wc -l
}

# flood_wait_ready NAME: until the flood in the background wrote "ready"
# to NAME.err (60 s at most).
flood_wait_ready() {
	_i=0
	until grep -q ready "$1.err" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -lt 600 ] || atf_fail "$1 never finished sending"
		sleep 0.1
	done
}

# Another client is served meanwhile: generous timeout, no speed claim.
flood_ping() {
	atf_check -s exit:0 -o match:'answered in' timeout 60 \
	    "$C" -s "$SOCK" ping
}

flood_cleanup() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case flood_unread_replies cleanup
flood_unread_replies_head() {
	atf_set "descr" "a client that never reads its replies is not read either (memory stays bounded), is closed past the hard cap with an audit line, and others are served meanwhile"
	atf_set "timeout" "180"
}
flood_unread_replies_body() {
	flood_setup
	flood_start
	rss0=$(flood_rss)
	# 300,000 STATUS requests grew the monitor by 175 MiB before.
	"$F" "$SOCK" status 300000 8 > st.out 2> st.err &
	fp=$!
	sleep 3
	flood_ping
	rss1=$(flood_rss)
	wait $fp || atf_fail "flood: $(cat st.err)"
	rss2=$(flood_rss)
	echo "RSS before $rss0 KiB, under the flood $rss1 KiB, after $rss2 KiB"
	echo "flood: $(cat st.out)"
	# The flood could not send it all: it was not read.
	atf_check -o not-match:'sent=300000 ' cat st.out
	# Bound: 1 MiB of queued replies (client-queue-max) plus a read
	# buffer and 64 requests in flight need under 2 MiB; 16 MiB leaves
	# room for the allocator and is a tenth of what the flood took.
	[ $((rss1 - rss0)) -lt 16384 ] && [ $((rss2 - rss0)) -lt 16384 ] ||
	    atf_fail "the monitor grew by more than 16 MiB: $rss0 -> $rss1, $rss2 KiB"
	# Only the first refusal is audited, not one line per request.
	n=$(grep -c '"event":"error"' "$D/audit.jsonl")
	[ "$n" -le 2 ] || atf_fail "$n error lines in the audit log"
	flood_ping
	flood_stop

	# A small queue and many requests in flight: the answers that come
	# while the client is not read pass 4 x client-queue-max, and it is
	# closed.
	flood_setup "client-queue-max 64K" "client-requests-max 4096" \
	    "peer-requests-max 4096"
	flood_start
	atf_check -o match:'closed=1' -e ignore "$F" "$SOCK" status 300000 30
	atf_check -o match:'"event":"disconnect".*"uid":'"$(id -u)"',"pid":[0-9]+,"message":"[0-9]+ bytes of replies unread, above 4 x client-queue-max 65536: closed"' \
	    cat "$D/audit.jsonl"
	flood_ping
	atf_check -s exit:0 timeout 60 "$C" -s "$SOCK" run -- /bin/true
	flood_stop
}
flood_unread_replies_cleanup() {
	flood_cleanup
}

atf_test_case flood_descriptors cleanup
flood_descriptors_head() {
	atf_set "descr" "requests in flight and descriptors held per connection are capped with 'limit'; the monitor's descriptors stay bounded and the service goes on"
	atf_set "timeout" "180"
}
flood_descriptors_body() {
	flood_setup
	flood_start
	fd0=$(flood_nfds)
	# Evaluations whose documents never come: 64 in flight, each with
	# its result descriptor; the rest are refused.
	"$F" "$SOCK" gates 2000 10 > g.out 2> g.err &
	fp=$!
	flood_wait_ready g
	fd1=$(flood_nfds)
	flood_ping
	wait $fp || atf_fail "flood: $(cat g.err)"
	atf_check -o inline:'sent=2000 limit=1936 other=1 closed=0\n' cat g.out
	atf_check -o match:'client-requests-max 64 requests in flight' \
	    cat "$D/audit.jsonl"
	# Documents held: 256 descriptors, then each is refused and closed.
	"$F" "$SOCK" docs 2000 10 > d.out 2> d.err &
	fp=$!
	flood_wait_ready d
	fd2=$(flood_nfds)
	flood_ping
	wait $fp || atf_fail "flood: $(cat d.err)"
	atf_check -o inline:'sent=2000 limit=1744 other=1 closed=0\n' cat d.out
	atf_check -o match:'client-fds-max 256 descriptors held' \
	    cat "$D/audit.jsonl"
	sleep 1
	fd3=$(flood_nfds)
	echo "descriptors: before $fd0, 2000 evaluations $fd1, 2000 documents $fd2, after $fd3"
	if [ "$fd0" -gt 0 ]; then
		# client-fds-max 256, and a few of the monitor's own.
		[ "$fd1" -le $((fd0 + 64 + 8)) ] && [ "$fd2" -le $((fd0 + 256 + 8)) ] &&
		    [ "$fd3" -le $((fd0 + 2)) ] ||
		    atf_fail "descriptors: $fd0 -> $fd1, $fd2, $fd3"
	fi
	atf_check -s exit:0 timeout 60 "$C" -s "$SOCK" run -- /bin/true
	flood_stop
	[ "$fd0" -gt 0 ] || atf_skip "/proc/$MP/fd is not readable here; the monitor's descriptors were not counted (the limit replies were)"
}
flood_descriptors_cleanup() {
	flood_cleanup
}

atf_test_case flood_fd_reserve cleanup
flood_fd_reserve_head() {
	atf_set "descr" "near RLIMIT_NOFILE client descriptors are refused ('limit', descriptors) before the roles' reserve; the monitor lives on"
	atf_set "timeout" "180"
	atf_set "require.progs" "prlimit"
}
flood_fd_reserve_body() {
	# 600 descriptors: the roles' reserve (64 + 3 x max-sandboxes 64)
	# and room for connections (max-connections 128 + 64 refusals)
	# leave passed descriptors the numbers below 152, far below the
	# caps set here.
	flood_setup "client-fds-max 2000" "peer-fds-max 2000"
	SBX_TEST_MONITOR_WRAPPER="prlimit --nofile=600:600 ${SBX_TEST_MONITOR_WRAPPER:-}" \
	    flood_start
	"$F" "$SOCK" docs 1000 10 > d.out 2> d.err &
	fp=$!
	flood_wait_ready d
	n=$(flood_nfds)
	flood_ping
	wait $fp || atf_fail "flood: $(cat d.err)"
	echo "descriptors under the flood: $n; $(cat d.out)"
	atf_check -o match:'sent=1000 limit=[1-9][0-9]* other=1 closed=0' \
	    cat d.out
	atf_check -o match:'descriptors are nearly all in use \(RLIMIT_NOFILE 600' \
	    cat "$D/audit.jsonl"
	[ "$n" -eq 0 ] || [ "$n" -le 156 ] ||
	    atf_fail "$n descriptors open: into the roles' reserve"
	kill -0 "$MP" || atf_fail "the monitor died: $(cat mon.log)"
	atf_check -s exit:0 timeout 60 "$C" -s "$SOCK" run -- /bin/true
	flood_stop
}
flood_fd_reserve_cleanup() {
	flood_cleanup
}

atf_test_case flood_peer_totals cleanup
flood_peer_totals_head() {
	atf_set "descr" "requests in flight and descriptors are capped per peer uid across its connections; another uid keeps its own share"
	atf_set "timeout" "180"
}
flood_peer_totals_body() {
	[ "$(id -u)" -eq 0 ] || atf_skip "needs root to connect as a second user (sbxtest)"
	id sbxtest >/dev/null 2>&1 || atf_skip "user sbxtest is missing (scripts/check creates it)"
	flood_setup "allow uid \"sbxtest\"" "peer-requests-max 100" \
	    "peer-fds-max 300"
	cp "$F" "$D/flood"
	chmod 755 "$D/flood"
	flood_start
	chmod 777 "$D/run"
	chmod 666 "$SOCK"
	# sbxtest's first connection: 64 in flight; its second: the 36
	# left of peer-requests-max 100.
	runuser -u sbxtest -- "$D/flood" "$SOCK" gates 200 20 > a.out 2> a.err &
	pa=$!
	flood_wait_ready a
	runuser -u sbxtest -- "$D/flood" "$SOCK" gates 200 3 > b.out 2> b.err
	# root's connection is another peer: its own 64.
	"$D/flood" "$SOCK" gates 200 3 > r.out 2> r.err
	kill $pa
	wait $pa 2>/dev/null
	atf_check -o inline:'sent=200 limit=164 other=1 closed=0\n' cat b.out
	atf_check -o inline:'sent=200 limit=136 other=1 closed=0\n' cat r.out
	atf_check -o match:"peer-requests-max 100 requests in flight for uid $(id -u sbxtest)" \
	    cat "$D/audit.jsonl"
	# Descriptors: 256 on the first connection, 44 on the second.
	runuser -u sbxtest -- "$D/flood" "$SOCK" docs 1000 20 > c.out 2> c.err &
	pc=$!
	flood_wait_ready c
	runuser -u sbxtest -- "$D/flood" "$SOCK" docs 1000 3 > e.out 2> e.err
	kill $pc
	wait $pc 2>/dev/null
	atf_check -o inline:'sent=1000 limit=956 other=1 closed=0\n' cat e.out
	atf_check -o match:"peer-fds-max 300 descriptors held for uid $(id -u sbxtest)" \
	    cat "$D/audit.jsonl"
	flood_ping
	flood_stop
}
flood_peer_totals_cleanup() {
	flood_cleanup
}

# ---- passed descriptors, the socket, provider loads (fd_*, socket_*, load_*) ----

# ---- what a peer sees; the example configuration (status_*, example_*) ----

atf_init_test_cases() {
	# set-id and ids
	:
	# launcher
	:
	# floods
	atf_add_test_case flood_unread_replies
	atf_add_test_case flood_descriptors
	atf_add_test_case flood_fd_reserve
	atf_add_test_case flood_peer_totals
	# descriptors, socket, loads
	:
	# status, example
	:
}
