#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# monitor.sh: sbx-monitor as a service -- start-up, roles, the control
# protocol under abuse, limits, reload, and fail-closed shutdown.  Runs as
# root (the monitor then drops to "nobody") and as an unprivileged user
# (the monitor runs as that user).

. "$(atf_get_srcdir)/top/regress/monitor.subr"

paths() {
	sbx_test_paths
	P=$S/helpers/ctlprobe
}

# setup_conf [extra sbx.conf lines]: a private directory with a config.
setup_conf() {
	paths
	sbx_test_dir sbxmon
	{
		echo "socket \"$SOCK\""
		echo "socket-mode 0660"
		echo "user \"nobody\""
		echo "max-connections 512"
		echo "max-connections-per-peer 512"
		echo "log-file \"$D/audit.jsonl\""
		for l in "$@"; do echo "$l"; done
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
}

# start_monitor: run it in the foreground (-d) in the background and wait
# until it answers.
start_monitor() {
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
}

monpid() {
	cat mon.pid
}

# role_pid NAME: from sbxctl status --json.
role_pid() {
	"$C" -s "$SOCK" --json status | tr '{' '\n' |
	    sed -n "s/.*\"name\":\"$1\",\"pid\":\([0-9]*\).*/\1/p"
}

# wait_exit PID TENTHS: 0 once PID is gone, 1 if still there after that.
wait_exit() {
	i=0
	while [ $i -lt "$2" ]; do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

stop_monitor() {
	pid=$(monpid)
	kill -TERM "$pid"
	wait "$pid"
	st=$?
	[ $st -eq 0 ] || { cat mon.log; atf_fail "monitor exited $st on SIGTERM"; }
	[ ! -e "$SOCK" ] || atf_fail "socket $SOCK left behind"
}

common_cleanup() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case start_stop cleanup
start_stop_head() {
	atf_set "descr" "starts, answers ping/status/privs, stops cleanly on SIGTERM"
}
start_stop_body() {
	setup_conf
	start_monitor
	atf_check -s exit:0 -o match:'^sbx-monitor [0-9.]+ answered in' \
	    "$C" -s "$SOCK" ping
	atf_check -s exit:0 -o match:"user $(sbx_monitor_user)" \
	    -o match:'^role launcher ' -o match:'^role proxy ' \
	    -o match:'^role provider-runner ' "$C" -s "$SOCK" status
	# --json before or after the command word; roles are a list.
	atf_check -s exit:0 \
	    -o match:'"roles":\[\{"name":"launcher","pid":[0-9]+,"user":"' \
	    "$C" -s "$SOCK" --json status
	atf_check -s exit:0 -o match:'"connections":1' \
	    "$C" -s "$SOCK" status --json
	# The socket comes from $SBX_SOCKET when -s is absent.
	SBX_SOCKET=$SOCK atf_check -s exit:0 -o ignore "$C" ping
	pids="$(monpid) $(role_pid launcher) $(role_pid proxy) $(role_pid provider-runner)"
	# privs prints the same tables as sbx-monitor -P.
	"$M" -P > expected.txt
	atf_check -s exit:0 -o file:expected.txt "$C" -s "$SOCK" privs
	atf_check -s exit:0 -o match:'^role      proxy$' \
	    -o not-match:'role      monitor' "$C" -s "$SOCK" privs proxy
	atf_check -s exit:1 -o empty -e match:'not-found' \
	    "$C" -s "$SOCK" privs nosuch
	stop_monitor
	# The audit log has one JSON object per line, with these decisions.
	atf_check -o match:'"event":"start"' -o match:'"event":"connect"' \
	    -o match:'"event":"hello"' -o match:'"event":"stop"' \
	    cat "$D/audit.jsonl"
	# Nothing of sbx is left.
	for p in $pids; do
		wait_exit "$p" 10 || atf_fail "process $p survived SIGTERM"
	done
}
start_stop_cleanup() {
	common_cleanup
}

atf_test_case roles cleanup
roles_head() {
	atf_set "descr" "each role runs as the expected user, filtered, with only its fds"
}
roles_body() {
	setup_conf
	start_monitor
	uid=$(id -u "$(sbx_monitor_user)")
	for r in launcher proxy provider-runner; do
		pid=$(role_pid $r)
		[ -n "$pid" ] || atf_fail "no pid for role $r"
		st=/proc/$pid/status
		atf_check -o match:"^Uid:	$uid	$uid	$uid	$uid" cat "$st"
		atf_check -o match:'^Seccomp:	2$' -o match:'^NoNewPrivs:	1$' \
		    cat "$st"
		# comm holds 15 characters of the executable's name.
		comm=$(echo "sbx-$r" | cut -c1-15)
		atf_check -o inline:"$comm\n" cat /proc/$pid/comm
		# Its environment is empty.
		atf_check -o empty tr '\0' '\n' < /proc/$pid/environ
		# Started as root, a role is not dumpable (its /proc files
		# are then root's): the launcher's spawner may ptrace, and
		# must not reach another process of the service user, its
		# own front included.
		[ "$(id -u)" -ne 0 ] ||
		    atf_check -o inline:"0\n" stat -c %u /proc/$pid/environ
		# 0,1 /dev/null, 2 the log pipe, 3 the channel, then the event
		# loop's epoll descriptor and libevent's signal pipe pair:
		# nothing else (no file, no second socket) but, for the
		# launcher, its two cgroup v1 directories or its cgroup v2
		# subtree where it has them.
		ls -l /proc/$pid/fd | sed -n 's/.* \([0-9]*\) -> \(.*\)/\1 \2/p' \
		    > fds.$r
		atf_check -o match:'^0 /dev/null$' -o match:'^1 /dev/null$' \
		    -o match:'^2 pipe:' -o match:'^3 socket:' cat fds.$r
		n=$(grep -cv -e '/dev/null$' -e ' pipe:' -e ' socket:' \
		    -e 'anon_inode:\[eventpoll\]' \
		    -e "^[0-9]* /sys/fs/cgroup/memory/sbx\.$uid\$" \
		    -e "^[0-9]* /sys/fs/cgroup/pids/sbx\.$uid\$" \
		    -e "^[0-9]* /sys/fs/cgroup.*/sbx\.$uid\$" fds.$r)
		[ "$r" = launcher ] || ! grep -q /sys/fs/cgroup fds.$r ||
		    atf_fail "role $r holds a cgroup directory"
		[ "$n" -eq 0 ] || { cat fds.$r; atf_fail "role $r holds other fds"; }
		max=8
		# the launcher: also its spawner's and mapper's sockets
		[ "$r" = launcher ] && max=12
		[ "$(wc -l < fds.$r)" -le $max ] ||
		    { cat fds.$r; atf_fail "role $r holds too many fds"; }
	done
	# The monitor itself is filtered too (after starting its roles).
	atf_check -o match:'^Seccomp:	2$' cat /proc/$(monpid)/status
	stop_monitor
}
roles_cleanup() {
	common_cleanup
}

atf_test_case lost_role cleanup
lost_role_head() {
	atf_set "descr" "kill -9 of any role: the monitor exits non-zero within 1 s, leaving nothing"
}
lost_role_body() {
	for r in launcher proxy provider-runner; do
		setup_conf
		start_monitor
		mon=$(monpid)
		pids="$(role_pid launcher) $(role_pid proxy) $(role_pid provider-runner)"
		kill -9 "$(role_pid $r)"
		# The deadline is the contract, not a benchmark.
		wait_exit "$mon" 10 || atf_fail "monitor still up 1 s after $r died"
		wait "$mon"
		st=$?
		[ $st -ne 0 ] || atf_fail "monitor exited 0 after losing $r"
		grep -q "lost child: role $r .* killed by signal 9" mon.log ||
		    { cat mon.log; atf_fail "no lost-child line for $r"; }
		[ ! -e "$SOCK" ] || atf_fail "socket left behind after $r died"
		for p in $pids; do
			wait_exit "$p" 10 || atf_fail "process $p survived"
		done
		rm -rf "$D" mon.pid
	done
}
lost_role_cleanup() {
	common_cleanup
}

atf_test_case protocol cleanup
protocol_head() {
	atf_set "descr" "malformed requests get a named error; the monitor carries on"
}
protocol_body() {
	setup_conf
	start_monitor
	check() {	# scenario expected-output-regex
		atf_check -s exit:0 -o match:"$2" "$P" "$SOCK" "$1"
		atf_check -s exit:0 -o ignore "$C" -s "$SOCK" status
	}
	check hello '^ok$'
	check no-hello '^error hello-required ping before hello$'
	check bad-version '^error version protocol version 2 is not supported'
	check twice-hello '^error bad-request hello is not permitted now$'
	check schema-unknown '^error bad-request hello: unknown field "colour"$'
	check schema-type '^error bad-request hello: field "version" must be a number$'
	check schema-missing '^error bad-request hello: missing field "version"$'
	check schema-dup '^error bad-request hello: field "version" appears twice$'
	check resize-range '^error bad-request resize: rows and cols are whole numbers in 1..65535$'
	check resize-frac '^error bad-request resize: rows and cols are whole numbers in 1..65535$'
	check resize-missing '^error bad-request resize: missing field "cols"$'
	check resize-not-yours '^error not-found resize: sandbox 4000 is not one of yours$'
	check run-pty-nofds '^error bad-request run: a pty needs stdin and stdout in fds$'
	check run-rows-no-pty '^error bad-request run: rows and cols: only with "pty": true$'
	check run-pty-rows-only '^error bad-request run: pty: rows and cols come together'
	check not-object '^error bad-json hello: payload of 3 bytes is not a JSON object$'
	check garbage '^error bad-json ping: payload'
	check run-t0-frac '^error bad-request run: t0_us: not a whole number of microseconds since the epoch$'
	check run-t0-negative '^error bad-request run: t0_us: not a whole number of microseconds since the epoch$'
	check run-t0-string '^error bad-request run: field "t0_us" must be a number$'
	check run-t0-future '^error bad-request run: overlay: needs a workdir'
	check unknown-type '^error unknown-type no request has type 999$'
	check short-len '^error bad-frame frame length 8 is below the 16-byte header$'
	check oversize '^error oversize frame of 1048592 bytes exceeds the 16384-byte limit$'
	check truncated '^closed$'
	check length-lie '^closed$'
	check fd-on-ping '^error unexpected-fd ping takes no descriptor$'
	check invoke-no-fd '^error bad-request provider invoke: the records descriptor is missing$'
	check verify-no-fd '^error bad-request gates verify: the result descriptor is missing$'
	check unload-schema '^error bad-request provider unload: missing field "provider"$'
	check unload-unknown '^error unregistered no provider "prv-0" was issued to you$'
	fds0=$(ls /proc/$(monpid)/fd | wc -l)
	atf_check -s exit:0 -o match:'^error unexpected-fd' \
	    "$P" "$SOCK" fd-flood 100
	# No descriptor of the flood stays with the monitor.
	sleep 0.2
	fds1=$(ls /proc/$(monpid)/fd | wc -l)
	[ "$fds1" -eq "$fds0" ] ||
	    atf_fail "monitor holds $fds1 fds after the flood, $fds0 before"
	# A silent peer holds a slot but blocks nobody.
	"$P" "$SOCK" silent > silent.out &
	silent=$!
	while ! grep -q connected silent.out; do sleep 0.05; done
	atf_check -s exit:0 -o ignore "$C" -s "$SOCK" status
	# 200 clients at once, all answered, status still served.
	atf_check -s exit:0 -o match:'^ok$' "$P" "$SOCK" many 200
	atf_check -s exit:0 -o match:'"connections":2' \
	    "$C" -s "$SOCK" --json status
	kill "$silent"
	wait "$silent" 2>/dev/null
	# Every refusal was audited.
	atf_check -o match:'"event":"error".*oversize' cat "$D/audit.jsonl"
	stop_monitor
}
protocol_cleanup() {
	common_cleanup
}

atf_test_case limits cleanup
limits_head() {
	atf_set "descr" "max-connections and max-connections-per-peer refuse with 'limit'"
}
limits_body() {
	setup_conf
	sed -i -e 's/^max-connections 512$/max-connections 2/' \
	    -e 's/^max-connections-per-peer 512$/max-connections-per-peer 2/' \
	    "$D/sbx.conf"
	start_monitor
	"$P" "$SOCK" silent > s1.out & s1=$!
	"$P" "$SOCK" silent > s2.out & s2=$!
	while ! grep -q connected s1.out || ! grep -q connected s2.out; do
		sleep 0.05
	done
	sleep 0.2
	atf_check -s exit:1 -o empty -e match:'limit: max-connections' \
	    "$C" -s "$SOCK" status
	kill $s1 $s2
	wait $s1 $s2 2>/dev/null
	sleep 0.2
	atf_check -s exit:0 -o ignore "$C" -s "$SOCK" status
	stop_monitor
}
limits_cleanup() {
	common_cleanup
}

atf_test_case peers cleanup
peers_head() {
	atf_set "descr" "peers not allowed by sbx.conf are refused with a reason and logged"
}
peers_body() {
	setup_conf
	if [ "$(id -u)" -ne 0 ]; then
		# An unprivileged test has no second uid to connect as; what
		# it can check is that its own uid is let in by the rule that
		# always admits the monitor's user, with no allow lines.
		start_monitor
		atf_check -s exit:0 -o ignore "$C" -s "$SOCK" status
		stop_monitor
		return 0
	fi
	id sbxtest >/dev/null 2>&1 || atf_fail "user sbxtest is missing"
	chmod 711 "$D"
	# sbxtest may not be able to walk to the build tree: a copy of
	# sbxctl in the test's own directory.
	cp "$C" "$D/sbxctl"
	chmod 755 "$D/sbxctl"
	CU=$D/sbxctl
	start_monitor
	chmod 777 "$D/run"
	chmod 666 "$SOCK"
	atf_check -s exit:1 -o empty \
	    -e match:"refused: uid $(id -u sbxtest) gid [0-9]+ is not allowed" \
	    runuser -u sbxtest -- "$CU" -s "$SOCK" status
	atf_check -o match:'"event":"refuse"' cat "$D/audit.jsonl"
	stop_monitor
	# A socket-group the run-as user is not in: the socket is made
	# before root is dropped, owned by that user and that group.
	grp=$(id -gn sbxtest)
	setup_conf "socket-group \"$grp\""
	start_monitor
	atf_check -o inline:"nobody $grp\n" stat -c '%U %G' "$SOCK"
	stop_monitor
	# Allowed by uid: served.
	setup_conf "allow uid \"sbxtest\""
	cp "$C" "$D/sbxctl"
	chmod 755 "$D/sbxctl"
	start_monitor
	chmod 777 "$D/run"
	chmod 666 "$SOCK"
	atf_check -s exit:0 -o ignore \
	    runuser -u sbxtest -- "$D/sbxctl" -s "$SOCK" status
	stop_monitor
}
peers_cleanup() {
	common_cleanup
}

atf_test_case reload cleanup
reload_head() {
	atf_set "descr" "SIGHUP re-reads sbx.conf; a bad file keeps the old one and says why"
}
reload_body() {
	setup_conf
	start_monitor
	echo "max-sandboxes 0" >> "$D/sbx.conf"
	kill -HUP "$(monpid)"
	sleep 0.5
	atf_check -o match:'reload failed' cat mon.log
	atf_check -s exit:0 -o ignore "$C" -s "$SOCK" status
	sed -i '$d' "$D/sbx.conf"
	echo "max-connections-per-peer 1" >> "$D/sbx.conf"
	sed -i 's/^max-connections-per-peer 512$//' "$D/sbx.conf"
	kill -HUP "$(monpid)"
	sleep 0.5
	atf_check -o match:'"event":"reload"' cat "$D/audit.jsonl"
	# The new limit is in force.
	"$P" "$SOCK" silent > s1.out & s1=$!
	while ! grep -q connected s1.out; do sleep 0.05; done
	sleep 0.2
	atf_check -s exit:1 -o empty -e match:'limit: max-connections-per-peer 1' \
	    "$C" -s "$SOCK" status
	kill $s1
	wait $s1 2>/dev/null
	stop_monitor
}
reload_cleanup() {
	common_cleanup
}

atf_test_case stale_socket cleanup
stale_socket_head() {
	atf_set "descr" "a stale socket is replaced; a live monitor's socket is not"
}
stale_socket_body() {
	setup_conf
	# A file that is not a socket is never replaced.
	mkdir -p "$D/run"
	[ "$(id -u)" -ne 0 ] || chown nobody "$D/run"
	echo precious > "$SOCK"
	atf_check -s exit:1 -o empty -e match:'exists and is not a socket' \
	    "$M" -d -f "$D/sbx.conf"
	atf_check -o inline:"precious\n" cat "$SOCK"
	# (A directory the monitor did not make stays as it is: as root it
	# would be root's, and nobody could remove the socket at exit.)
	rm -rf "$D/run"
	start_monitor
	# A second monitor on the same socket refuses and leaves it alone.
	atf_check -s exit:1 -o empty -e match:'another monitor is answering' \
	    "$M" -d -f "$D/sbx.conf"
	atf_check -s exit:0 -o ignore "$C" -s "$SOCK" ping
	# A monitor killed without cleanup leaves its socket; the next one
	# takes over.
	mon=$(monpid)
	kill -9 "$mon"
	wait "$mon" 2>/dev/null
	sleep 0.3
	[ -S "$SOCK" ] || atf_fail "expected a stale socket"
	start_monitor
	stop_monitor
}
stale_socket_cleanup() {
	common_cleanup
}

atf_test_case socket_dir_owner cleanup
socket_dir_owner_head() {
	atf_set "descr" "started as root, the monitor refuses a socket directory of root's, where the service user could not remove the socket on exit, and removes its socket on exit from one of the user's"
}
socket_dir_owner_body() {
	[ "$(id -u)" -eq 0 ] ||
	    atf_skip "needs root: only a monitor started as root drops to another user after making its socket"
	setup_conf
	mkdir "$D/run"
	chmod 755 "$D/run"
	atf_check -s exit:1 -o empty \
	    -e match:"socket directory $D/run: owned by uid 0, but the monitor runs as uid $(id -u nobody) after start and could not remove its socket there on exit" \
	    "$M" -d -f "$D/sbx.conf"
	[ -e "$SOCK" ] && atf_fail "a socket was made in $D/run"
	# The user's own directory: it starts, and stop_monitor checks that
	# the socket went with it.
	chown nobody "$D/run"
	start_monitor
	stop_monitor
	atf_check -s exit:0 -o not-match:'unlink' cat mon.log
}
socket_dir_owner_cleanup() {
	common_cleanup
}

atf_test_case selftest cleanup
selftest_head() {
	atf_set "descr" "the sandbox self-test passes and its verdict is in status"
}
selftest_body() {
	setup_conf
	start_monitor
	atf_check -s exit:0 \
	    -o match:'"selftest":\{"verdict":"passed","checks":2[0-9],"failed":0,"detail":""' \
	    "$C" -s "$SOCK" --json status
	atf_check -s exit:0 -o match:'^selftest passed \([0-9]+ checks\)' \
	    "$C" -s "$SOCK" status
	atf_check -o match:'"event":"selftest".*passed' cat "$D/audit.jsonl"
	atf_check -s exit:0 -o inline:"ok\n" "$C" -s "$SOCK" run -- /bin/echo ok
	stop_monitor
}
selftest_cleanup() {
	common_cleanup
}

atf_test_case fail_closed cleanup
fail_closed_head() {
	atf_set "descr" "a failed self-test refuses every sandbox (sandbox-unavailable), never runs it unsandboxed"
	atf_set "require.progs" "unshare"
}
fail_closed_body() {
	setup_conf
	# A user namespace of our own whose network-namespace limit is 0:
	# the launcher cannot clone a sandbox, exactly as on a host where an
	# operator set user.max_net_namespaces = 0.  The monitor runs in a
	# nested namespace as an ordinary uid (4242), so it is unprivileged.
	unshare -r sh -c "echo 0 > /proc/sys/user/max_net_namespaces &&
	    exec unshare --user --map-user=4242 --map-group=4242 \
	    \"$M\" -d -f \"$D/sbx.conf\"" > mon.log 2>&1 &
	echo $! > mon.pid
	i=0
	until "$C" -s "$SOCK" ping >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat mon.log; atf_fail "monitor did not start"; }
		sleep 0.1
	done
	atf_check -s exit:0 \
	    -o match:'"selftest":\{"verdict":"failed".*ENOSPC' \
	    "$C" -s "$SOCK" --json status
	atf_check -s exit:125 -o empty \
	    -e match:'^sbxctl: sandbox-unavailable: run: the sandbox self-test failed: clone: ENOSPC' \
	    "$C" -s "$SOCK" run -- /bin/echo never
	atf_check -o match:'sandbox self-test FAILED' cat mon.log
	atf_check -o not-match:'"event":"spawn"' cat "$D/audit.jsonl"
	stop_monitor
}
fail_closed_cleanup() {
	common_cleanup
}

atf_init_test_cases() {
	atf_add_test_case start_stop
	atf_add_test_case roles
	atf_add_test_case lost_role
	atf_add_test_case protocol
	atf_add_test_case limits
	atf_add_test_case peers
	atf_add_test_case reload
	atf_add_test_case stale_socket
	atf_add_test_case socket_dir_owner
	atf_add_test_case selftest
	atf_add_test_case fail_closed
}
