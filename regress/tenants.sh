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

# ---- passed descriptors, the socket, provider loads (fd_*, socket_*, load_*) ----

# ---- what a peer sees; the example configuration (status_*, example_*) ----

# status_setup: a private monitor with profile "net" (network proxy to
# the local upstream) that admits sbxtest; sbxctl, where sbxtest can
# run it, is CU.
status_setup() {
	sbx_test_paths
	command -v curl > /dev/null || atf_fail "curl is missing (scripts/deps installs it)"
	command -v python3 > /dev/null || atf_fail "python3 is missing (scripts/deps installs it)"
	sbx_test_dir sbxtenants
	sbx_upstream_test "$D/up.port"
	cp "$C" "$D/sbxctl"
	chmod 755 "$D/sbxctl"
	CU=$D/sbxctl
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "log-file \"$D/audit.jsonl\""
		[ "$(id -u)" -eq 0 ] && echo "allow uid \"sbxtest\""
		echo "profile \"net\" {"
		echo "	network proxy"
		echo "	ro \"/usr\""
		echo "	ro \"/etc/alternatives\""
		echo "	allow-domain \"localhost\""
		echo "	allow-cidr \"127.0.0.1/32\""
		echo "	timeout 60"
		echo "}"
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
}

# status_tunnel NAME HOST [runuser prefix...]: a CONNECT tunnel to
# HOST:$UP that stays open (the upstream never answers /hang), held by a
# sandbox in the background as NAME (NAME.pid).
status_tunnel() {
	_n=$1 _h=$2
	shift 2
	"$@" "$CU" -s "$SOCK" run -p net -- /usr/bin/curl -sS -m 50 -p \
	    "http://$_h:$UP/hang" > "$_n.out" 2> "$_n.err" &
	echo $! > "$_n.pid"
}

# status_wait WANT [runuser prefix...]: until the status of that peer
# lists WANT live tunnels (st.json).
status_wait() {
	_w=$1
	shift
	_i=0
	until "$@" "$CU" -s "$SOCK" --json status > st.json 2> st.err &&
	    [ "$(grep -o '"host":' st.json | wc -l)" -eq "$_w" ]; do
		_i=$((_i + 1))
		[ $_i -lt 150 ] || atf_fail "want $_w live tunnels: $(cat st.json st.err)"
		sleep 0.2
	done
}

status_cleanup_common() {
	for f in mon.pid upstream.pid t_root.pid t_user.pid t_self.pid; do
		[ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
	done
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case status_two_users cleanup
status_two_users_head() {
	atf_set "descr" "STATUS seen by two users: sbxtest sees its own tunnel and sandbox only, never root's host, address or bytes, nor the proxy's totals; root sees both"
	atf_set "timeout" "180"
}
status_two_users_body() {
	[ "$(id -u)" -eq 0 ] ||
	    atf_skip "needs root: a second user (sbxtest) to hold a tunnel of its own; status_own covers the single-user case"
	id sbxtest > /dev/null 2>&1 || atf_fail "user sbxtest is missing"
	status_setup
	chmod 666 "$SOCK"
	as_user="runuser -u sbxtest --"
	# root's tunnel by name, sbxtest's by address: two different hosts.
	status_tunnel t_root localhost
	status_tunnel t_user 127.0.0.1 $as_user
	status_wait 2
	atf_check -o match:'"scope":"all"' -o match:'"sandboxes":2' \
	    -o match:'"host":"localhost"' -o match:'"host":"127.0.0.1"' \
	    -o match:'"requests":' cat st.json
	# shellcheck disable=SC2086
	status_wait 1 $as_user
	atf_check -o match:'"scope":"own"' -o match:'"sandboxes":1' \
	    -o match:'"proxy":\{"tunnels":1,"live":\[\{"sandbox":[0-9]+,"host":"127.0.0.1","port":'"$UP" \
	    -o not-match:'localhost' -o not-match:'"requests"' \
	    -o not-match:'"accepted"' cat st.json
	# The text form says the figures are the peer's own.
	# shellcheck disable=SC2086
	atf_check -o match:'^connections [0-9]+, sandboxes 1 \(yours\)' \
	    -o match:'^proxy 1 tunnels of yours' \
	    -o match:"^tunnel sandbox [0-9]+ +127\.0\.0\.1:$UP " \
	    -o not-match:'localhost' $as_user "$CU" -s "$SOCK" status
	# Once sbxtest's sandbox is gone it sees no tunnel, root still one.
	kill "$(cat t_user.pid)"
	wait "$(cat t_user.pid)"
	rm t_user.pid
	# shellcheck disable=SC2086
	status_wait 0 $as_user
	atf_check -o match:'"sandboxes":0' -o match:'"tunnels":0' cat st.json
	status_wait 1
	atf_check -o match:'"host":"localhost"' cat st.json
}
status_two_users_cleanup() {
	status_cleanup_common
}

atf_test_case status_own cleanup
status_own_head() {
	atf_set "descr" "STATUS seen by the monitor's own user: every tunnel, the proxy's totals, scope all"
	atf_set "timeout" "120"
}
status_own_body() {
	status_setup
	status_tunnel t_self 127.0.0.1
	status_wait 1
	atf_check -o match:'"scope":"all"' -o match:'"sandboxes":1' \
	    -o match:'"host":"127.0.0.1"' -o match:'"requests":' cat st.json
}
status_own_cleanup() {
	status_cleanup_common
}

atf_test_case example_no_loopback
example_no_loopback_head() {
	atf_set "descr" "no profile of etc/sbx.conf allows the host's loopback, private or link-local ranges (127/8, ::1, 10/8, 172.16/12, 192.168/16, 169.254/16, fc00::/7), as the configuration check resolves it"
}
example_no_loopback_body() {
	sbx_test_paths
	command -v python3 > /dev/null || atf_fail "python3 is missing (scripts/deps installs it)"
	atf_check -s exit:0 -o save:dump -e inline:"configuration OK\n" \
	    "$M" -n -v -f "$S/top/etc/sbx.conf"
	grep -q '^profile "fetch" {' dump || atf_fail "no fetch profile in the dump"
	sed -n 's/^[[:space:]]*allow-cidr "\(.*\)"$/\1/p' dump > cidrs
	atf_check -s exit:0 -o empty python3 -c '
import ipaddress, sys
host = [ipaddress.ip_network(n) for n in ("127.0.0.0/8", "::1/128",
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16",
    "fc00::/7", "fe80::/10", "::ffff:0:0/96")]
bad = 0
for line in open("cidrs"):
    net = ipaddress.ip_network(line.strip(), strict=False)
    for h in host:
        if net.version == h.version and net.overlaps(h):
            print("allow-cidr %s reaches %s" % (net, h), file=sys.stderr)
            bad = 1
sys.exit(bad)'
}

atf_test_case socket_shared_dir cleanup
socket_shared_dir_head() {
	atf_set "descr" "started as root, the monitor refuses a socket directory another user can write (where a name swapped after bind could be handed to the service user), and creates nothing there"
}
socket_shared_dir_body() {
	[ "$(id -u)" -eq 0 ] ||
	    atf_skip "needs root: only root creates the socket for another user (t_sockcreate covers a user's monitor)"
	sbx_test_paths
	sbx_test_dir sbxtenants
	mkdir "$D/run"
	chown nobody "$D/run"
	chmod 777 "$D/run"
	printf 'socket "%s"\nuser "nobody"\n' "$SOCK" > "$D/sbx.conf"
	atf_check -s exit:1 -o empty \
	    -e match:"socket directory $D/run: mode 0777 is writable by its group or by others" \
	    "$M" -d -f "$D/sbx.conf"
	[ -e "$SOCK" ] && atf_fail "a socket was made in $D/run"
	# Made safe (the service user's, 0755): it starts.
	chmod 755 "$D/run"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	atf_check -o inline:"nobody\n" stat -c %U "$SOCK"
	kill -TERM "$(cat mon.pid)"
	wait "$(cat mon.pid)" 2>/dev/null
	return 0
}
socket_shared_dir_cleanup() {
	status_cleanup_common
}

atf_init_test_cases() {
	# set-id and ids
	:
	# launcher
	:
	# floods
	:
	# descriptors, socket, loads
	:
	# status, example
	atf_add_test_case status_two_users
	atf_add_test_case status_own
	atf_add_test_case example_no_loopback
	atf_add_test_case socket_shared_dir
}
