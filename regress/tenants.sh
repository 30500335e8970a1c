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

# ids_*: payloads own their ids

# ids_setup: D, SOCK, C, M, CU (sbxctl the caller can run), CALLER, AS,
# and a configuration whose profiles bind /usr, one per identity the
# service can give (service; caller and range as root).
ids_setup() {
	sbx_test_paths
	sbx_test_dir sbxids
	if [ "$(id -u)" -eq 0 ]; then
		id sbxtest >/dev/null 2>&1 || atf_fail "user sbxtest is missing"
		CALLER=sbxtest
		AS="runuser -u $CALLER --"
		IDS="service caller range"
	else
		CALLER=$(id -un)
		AS=
		IDS="service"
	fi
	cp "$C" "$D/sbxctl"
	chmod 755 "$D/sbxctl"
	CU=$D/sbxctl
	mkdir "$D/w"
	printf 'all:\n\techo ok\n' > "$D/w/Makefile"
	[ "$(id -u)" -eq 0 ] && chown -R "$CALLER" "$D/w"
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "allow uid \"$CALLER\""
		echo "max-sandboxes 16"
		echo "sandbox-uid-range 210000 16"
		for p in $IDS; do
			echo "profile \"$p\" {"
			echo "	ro \"/usr\""
			echo "	identity $p"
			echo "	tmpfs \"/tmp\" size 16M"
			echo "	workdir \"/work\""
			echo "	timeout 60"
			echo "}"
		done
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	chmod 777 "$D/run"
	chmod 666 "$SOCK"
}

ids_cleanup_common() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

# Each call a program makes to reset its own ids (GNU make, su-less
# tools, daemons' privilege drops), with the ids it already has.
IDS_PY='import os
u, g = os.getuid(), os.getgid()
os.seteuid(u); os.setegid(g)
os.setresuid(-1, u, -1); os.setresgid(-1, g, -1)
os.setreuid(u, u); os.setregid(g, g)
os.setuid(u); os.setgid(g)
print("ids", u, g)
try:
    os.setgroups([])
    print("setgroups ok")
except PermissionError:
    # setgroups needs CAP_SETGID in the namespace, as for any non-root
    # process on Linux; the filter no longer decides it (t_filters_all).
    print("setgroups EPERM")'

atf_test_case ids_inside cleanup
ids_inside_head() {
	atf_set "descr" "in every identity a payload may seteuid/setegid/setres*id/setre*id/setuid/setgid to the ids it has (the launcher's id rules are no longer its floor)"
	atf_set "timeout" "120"
}
ids_inside_body() {
	ids_setup
	for p in $IDS; do
		atf_check -o match:"^ids 1000 1000\$" -o match:"^setgroups" \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/w" -- \
		    /usr/bin/python3 -c "$IDS_PY"
	done
}
ids_inside_cleanup() {
	ids_cleanup_common
}

atf_test_case ids_make cleanup
ids_make_head() {
	atf_set "descr" "GNU make runs a recipe in a sandbox (make resets its ids before each command), in every identity"
	atf_set "timeout" "120"
}
ids_make_body() {
	[ -x /usr/bin/make ] || atf_skip "GNU make is not installed"
	ids_setup
	for p in $IDS; do
		atf_check -o inline:"echo ok\nok\n" \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/w" -- \
		    /bin/sh -c 'PATH=/usr/bin:/bin; export PATH; make'
	done
}
ids_make_cleanup() {
	ids_cleanup_common
}

# ---- the launcher's split and its refusals (launcher_*) ----

# launcher_procs: the launcher's front, spawner and mapper (pids), or fail.
launcher_procs() {
	mon=$(cat mon.pid)
	front=$(pgrep -P "$mon" -x sbx-launcher)
	[ -n "$front" ] || atf_fail "no sbx-launcher under the monitor"
	spawner=$(pgrep -P "$front" -x sbx-spawner)
	[ -n "$spawner" ] || atf_fail "no sbx-spawner under the launcher"
	mapper=$(pgrep -P "$front" -x sbx-mapper)
}

status_field() {
	sed -n "s/^$2:\t//p" "/proc/$1/status"
}

atf_test_case launcher_caps cleanup
launcher_caps_head() {
	atf_set "descr" "started as root, only the launcher's mapper holds CAP_SETUID/CAP_SETGID; its front and spawner hold nothing, in any set; as a user there is no mapper"
}
launcher_caps_body() {
	ids_setup
	launcher_procs
	for pid in $front $spawner; do
		for f in CapInh CapPrm CapEff CapAmb; do
			v=$(status_field "$pid" $f)
			[ "$v" = 0000000000000000 ] ||
			    atf_fail "$(cat /proc/$pid/comm): $f $v"
		done
		[ "$(id -u)" -ne 0 ] || [ "$(status_field "$pid" CapBnd)" = \
		    0000000000000000 ] || atf_fail "$(cat /proc/$pid/comm): \
		    bounding set $(status_field "$pid" CapBnd)"
	done
	if [ "$(id -u)" -ne 0 ]; then
		[ -z "$mapper" ] || atf_fail "a mapper without capabilities"
		return
	fi
	[ -n "$mapper" ] || atf_fail "no sbx-mapper under the launcher"
	# CAP_SETGID (6) and CAP_SETUID (7): 0xc0, and nothing ambient.
	for f in CapPrm CapEff CapBnd; do
		v=$(status_field "$mapper" $f)
		[ "$v" = 00000000000000c0 ] || atf_fail "mapper: $f $v"
	done
	[ "$(status_field "$mapper" CapAmb)" = 0000000000000000 ] ||
	    atf_fail "mapper: ambient capabilities"
}
launcher_caps_cleanup() {
	ids_cleanup_common
}

atf_test_case launcher_filters cleanup
launcher_filters_head() {
	atf_set "descr" "front, spawner and mapper each run under their own filter with no_new_privs; a payload stacks only the spawner's floor and its own (the front's allow-list is not inherited)"
}
launcher_filters_body() {
	ids_setup
	launcher_procs
	for pid in $front $spawner $mapper; do
		[ "$(status_field "$pid" Seccomp)" = 2 ] &&
		    [ "$(status_field "$pid" NoNewPrivs)" = 1 ] ||
		    atf_fail "$(cat /proc/$pid/comm): no filter"
		[ "$(status_field "$pid" Seccomp_filters)" = 1 ] ||
		    atf_fail "$(cat /proc/$pid/comm): stacked filters"
	done
	atf_check -o inline:"2\n" $AS "$CU" -s "$SOCK" run -p service \
	    -w "$D/w" -- /bin/sh -c \
	    'sed -n "s/^Seccomp_filters:\t//p" /proc/self/status'
}
launcher_filters_cleanup() {
	ids_cleanup_common
}

atf_test_case launcher_policy_fd cleanup
launcher_policy_fd_head() {
	atf_set "descr" "started as root, the monitor's id-map policy socket is held by the mapper and not by the launcher's front or spawner"
}
launcher_policy_fd_body() {
	[ "$(id -u)" -eq 0 ] || atf_skip "no mapper unless the service starts as root"
	ids_setup
	launcher_procs
	pol=$(readlink "/proc/$mapper/fd/4")
	case $pol in
	socket:*) ;;
	*) atf_fail "mapper's descriptor 4 is $pol, not the policy socket" ;;
	esac
	for pid in $front $spawner; do
		for f in /proc/$pid/fd/*; do
			[ "$(readlink "$f")" != "$pol" ] ||
			    atf_fail "$(cat /proc/$pid/comm) holds $pol ($f)"
		done
	done
}
launcher_policy_fd_cleanup() {
	ids_cleanup_common
}

atf_test_case launcher_part_lost cleanup
launcher_part_lost_head() {
	atf_set "descr" "kill -9 of the launcher's spawner or mapper ends the launcher and so the monitor (fail closed), as for any lost role"
	atf_set "timeout" "120"
}
launcher_part_lost_body() {
	parts=spawner
	[ "$(id -u)" -eq 0 ] && parts="spawner mapper"
	for part in $parts; do
		ids_setup
		launcher_procs
		[ "$part" = spawner ] && victim=$spawner || victim=$mapper
		kill -9 "$victim"
		i=0
		while kill -0 "$mon" 2>/dev/null; do
			i=$((i + 1))
			[ $i -lt 300 ] || atf_fail "monitor alive after its $part died"
			sleep 0.1
		done
		atf_check -o match:"launcher's $part is gone" cat mon.log
		rm -rf "$(cat tmpdir)" mon.pid tmpdir
	done
}
launcher_part_lost_cleanup() {
	ids_cleanup_common
}

atf_test_case launcher_mapper_refuses cleanup
launcher_mapper_refuses_head() {
	atf_set "descr" "a caller whose gid is a system group it is not the primary member of (here daemon, gid 1) gets no sandbox: the launcher's mapper refuses the map on its own, and logs it"
}
launcher_mapper_refuses_body() {
	[ "$(id -u)" -eq 0 ] || atf_skip "a second user and a system gid need root"
	getent group daemon >/dev/null || atf_skip "no group daemon"
	ids_setup
	atf_check -s exit:125 -o empty \
	    -e match:"id map refused: host gid [0-9]*: a system group" \
	    runuser -u "$CALLER" -g daemon -- "$CU" -s "$SOCK" run -p caller \
	    -w "$D/w" -- /bin/true
	atf_check -o match:"mapper: refused to map pid [0-9]* onto" cat mon.log
	# and its own primary group is fine
	atf_check -o inline:"1000\n" $AS "$CU" -s "$SOCK" run -p caller \
	    -w "$D/w" -- /usr/bin/id -g
}
launcher_mapper_refuses_cleanup() {
	ids_cleanup_common
}

atf_test_case launcher_proxy_sandbox cleanup
launcher_proxy_sandbox_head() {
	atf_set "descr" "a network-proxy sandbox's listeners pass the launcher's front (its allow-list has the getsockopt calls that check them): the sandbox runs and the service stays up"
	atf_set "timeout" "120"
}
launcher_proxy_sandbox_body() {
	ids_setup
	kill "$(cat mon.pid)"
	while kill -0 "$(cat mon.pid)" 2>/dev/null; do sleep 0.1; done
	{
		echo "profile \"net\" {"
		echo "	network proxy"
		echo "	ro \"/usr\""
		echo "	allow-domain \"example.invalid\""
		echo "	timeout 60"
		echo "}"
	} >> "$D/sbx.conf"
	chmod 755 "$D/run"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	chmod 666 "$SOCK"
	atf_check -o inline:"ok\n" $AS "$CU" -s "$SOCK" run -p net -- \
	    /bin/echo ok
	atf_check -o ignore "$CU" -s "$SOCK" ping
	if grep -q "SIGSYS" mon.log; then
		cat mon.log >&2
		atf_fail "a role was killed by its filter"
	fi
}
launcher_proxy_sandbox_cleanup() {
	ids_cleanup_common
}

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
	# ids_*: payloads own their ids
	atf_add_test_case ids_inside
	atf_add_test_case ids_make
	# launcher
	atf_add_test_case launcher_caps
	atf_add_test_case launcher_filters
	atf_add_test_case launcher_policy_fd
	atf_add_test_case launcher_part_lost
	atf_add_test_case launcher_mapper_refuses
	atf_add_test_case launcher_proxy_sandbox
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
