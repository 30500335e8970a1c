#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# tenants.sh: sbx as a shared service, played as a hostile but allowed
# tenant.  Each case tries one way a caller could gain rights on the
# host, starve the service or reach another caller, and fails if it
# works.  As root the monitor drops to "nobody" and the tenants are the
# unprivileged users "sbxtest" (scripts/check creates it) and root; as
# an unprivileged user the cases that need a second user skip and say so.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

# tenant_cleanup: what a case started (each *.pid here: monitors,
# upstreams, tenants' sandboxes) is killed, its private directory removed.
tenant_cleanup() {
	for f in *.pid; do
		[ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
	done
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

# ---- set-id bits and ids inside (setid_*, ids_*) ----

# setid_setup: D, SOCK, CU (an sbxctl the tenant can run), TENANT and AS
# (how to run as it), and a configuration with one profile per identity,
# each with a writable workdir, /usr and D/files (at the same path: the
# attempt script, set-id sources); IDS, the
# profiles this run can exercise (as a user only its own: every identity
# is that user there, and range is refused).
setid_setup() {
	sbx_test_paths
	sbx_test_dir sbxsetid
	mkdir "$D/files"
	cp "$S/top/regress/setid-attempt.py" "$D/files/attempt.py"
	chmod 755 "$D/files" "$D/files/attempt.py"
	if [ "$(id -u)" -eq 0 ]; then
		id sbxtest >/dev/null 2>&1 || atf_fail "user sbxtest is missing"
		id _sbxsandbox >/dev/null 2>&1 ||
		    atf_fail "user _sbxsandbox is missing (scripts/check makes it)"
		TENANT=sbxtest
		AS="runuser -u sbxtest --"
		IDS="caller service range"
	else
		TENANT=$(id -un)
		AS=
		IDS="caller"
	fi
	cp "$C" "$D/sbxctl"
	chmod 755 "$D/sbxctl"
	CU=$D/sbxctl
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "sandbox-user \"_sbxsandbox\""
		echo "allow uid \"$TENANT\""
		echo "max-sandboxes 16"
		echo "sandbox-uid-range 210000 64"
		for p in caller service range; do
			echo "profile \"$p\" {"
			echo "	identity $p"
			echo "	ro \"/usr\""
			echo "	ro \"$D/files\""
			echo "	env \"PATH\""
			echo "	tmpfs \"/tmp\" size 16M"
			echo "	workdir \"/work\""
			echo "	timeout 120"
			echo "}"
		done
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	chmod 777 "$D/run"
	chmod 666 "$SOCK"
}

# setid_workdir NAME: a workdir every identity may write (a tenant's own
# directory it opened to its sandboxes).
setid_workdir() {
	mkdir "$D/$1"
	[ "$(id -u)" -eq 0 ] && chown "$TENANT" "$D/$1"
	chmod 777 "$D/$1"
}

# setid_none DIR: nothing in DIR has a set-id bit, on the host.
setid_none() {
	atf_check -o empty find "$1" -perm /6000
}

atf_test_case setid_syscalls cleanup
setid_syscalls_head() {
	atf_set "descr" "no identity's payload can give a file S_ISUID or S_ISGID: chmod, fchmod, fchmodat, fchmodat2, open, openat (O_CREAT, O_TMPFILE), creat, mkdir(at), mknod(at) fail with EPERM, openat2 with ENOSYS, security.capability with EPERM; the same calls without the bits work"
	atf_set "require.progs" "python3"
}
setid_syscalls_body() {
	setid_setup
	for p in $IDS; do
		setid_workdir "w-$p"
		atf_check -s exit:0 -o not-match:"^bad" -o match:"^ok fchmodat2 setgid$" \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/w-$p" -- \
		    /usr/bin/python3 "$D/files/attempt.py" /work
		setid_none "$D/w-$p"
	done
}
setid_syscalls_cleanup() {
	tenant_cleanup
}

atf_test_case setid_tools cleanup
setid_tools_head() {
	atf_set "descr" "the issue's cp /usr/bin/id; chmod 6755, cp -p, cp --preserve=mode and tar -xp of a set-id file, install -m 4755 and chmod g+s on a directory leave no set-id file on the host, in every identity, and say EPERM"
	atf_set "require.progs" "tar"
}
setid_tools_body() {
	setid_setup
	# A set-id file of the tenant's own, and a tar of it.
	cp /usr/bin/id "$D/files/suid"
	[ "$(id -u)" -eq 0 ] && chown "$TENANT" "$D/files/suid"
	chmod 6755 "$D/files/suid"
	(cd "$D/files" && tar -cpf s.tar suid)
	chmod 644 "$D/files/s.tar"
	for p in $IDS; do
		setid_workdir "t-$p"
		atf_check -s not-exit:0 -e match:"Operation not permitted" \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/t-$p" -- \
		    /bin/sh -c 'cp /usr/bin/id /work/p; chmod 6755 /work/p'
		# cp -p drops the bits itself when it cannot keep the owner
		# (any identity but caller here); --preserve=mode does not.
		atf_check -s ignore -e ignore \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/t-$p" -- \
		    /bin/cp -p "$D/files/suid" /work/cp
		atf_check -s not-exit:0 -e match:"Operation not permitted" \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/t-$p" -- \
		    /bin/cp --preserve=mode "$D/files/suid" /work/cpm
		atf_check -s not-exit:0 -e match:"Operation not permitted" \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/t-$p" -- \
		    /bin/sh -c "mkdir /work/x && tar -xpf '$D/files/s.tar' -C /work/x"
		atf_check -s not-exit:0 -e match:"Operation not permitted" \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/t-$p" -- \
		    /usr/bin/install -m 4755 /usr/bin/id /work/inst
		atf_check -s not-exit:0 -e match:"Operation not permitted" \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/t-$p" -- \
		    /bin/sh -c 'mkdir /work/sg && chmod g+s /work/sg'
		# The files were made, without the bits.
		for f in p cp cpm x/suid sg; do
			[ -e "$D/t-$p/$f" ] || atf_fail "$p: /work/$f missing"
		done
		setid_none "$D/t-$p"
	done
}
setid_tools_cleanup() {
	tenant_cleanup
}

atf_test_case setid_service_owner cleanup
setid_service_owner_head() {
	atf_set "descr" "as root, identity service sandboxes (a tenant's and a root peer's) write files owned by sandbox-user, never by the service user; as a user, by that user"
}
setid_service_owner_body() {
	setid_setup
	setid_workdir svc
	atf_check -s exit:0 $AS "$CU" -s "$SOCK" run -p service -w "$D/svc" -- \
	    /bin/sh -c 'echo x > /work/tenant; mkdir /work/tdir'
	if [ "$(id -u)" -eq 0 ]; then
		atf_check -s exit:0 "$C" -s "$SOCK" run -p caller -w "$D/svc" \
		    -- /bin/sh -c 'echo x > /work/rootpeer'
		want="_sbxsandbox _sbxsandbox"
		for f in tenant tdir rootpeer; do
			atf_check -o inline:"$want\n" stat -c '%U %G' "$D/svc/$f"
		done
		# Nothing there is the service user's (nobody here).
		atf_check -o empty find "$D/svc" -user nobody
		atf_check -o empty find "$D/svc" -group "$(id -gn nobody)"
	else
		atf_check -o inline:"$TENANT\n" stat -c %U "$D/svc/tenant"
	fi
}
setid_service_owner_cleanup() {
	tenant_cleanup
}


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
    # process on Linux; the filter no longer decides it (t_shim_filters_all).
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
	tenant_cleanup
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
	tenant_cleanup
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
	tenant_cleanup
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
	tenant_cleanup
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
	tenant_cleanup
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
	tenant_cleanup
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
	tenant_cleanup
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
	tenant_cleanup
}

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

# flood_release PID: the flood measured, it need not hold its connection
# for the rest of HOLD: its exit status once it has counted the replies.
flood_release() {
	kill -USR1 "$1"
	wait "$1"
}

# Another client is served meanwhile: generous timeout, no speed claim.
flood_ping() {
	atf_check -s exit:0 -o match:'answered in' timeout 60 \
	    "$C" -s "$SOCK" ping
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
	tenant_cleanup
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
	flood_release $fp || atf_fail "flood: $(cat g.err)"
	atf_check -o inline:'sent=2000 limit=1936 other=1 closed=0\n' cat g.out
	atf_check -o match:'client-requests-max 64 requests in flight' \
	    cat "$D/audit.jsonl"
	# Documents held: 256 descriptors, then each is refused and closed.
	"$F" "$SOCK" docs 2000 10 > d.out 2> d.err &
	fp=$!
	flood_wait_ready d
	fd2=$(flood_nfds)
	flood_ping
	flood_release $fp || atf_fail "flood: $(cat d.err)"
	atf_check -o inline:'sent=2000 limit=1744 other=1 closed=0\n' cat d.out
	atf_check -o match:'client-fds-max 256 descriptors held' \
	    cat "$D/audit.jsonl"
	# The monitor closes what the floods held once they hang up.
	i=0
	while fd3=$(flood_nfds); [ "$fd3" -gt $((fd0 + 2)) ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
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
	tenant_cleanup
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
	flood_release $fp || atf_fail "flood: $(cat d.err)"
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
	tenant_cleanup
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
	tenant_cleanup
}

# ---- passed descriptors, the socket, provider loads (fd_*, socket_*, load_*) ----

# fd_need_fuse: skip, saying why, unless this user can run slowfuse.
fd_need_fuse() {
	grep -qw fuse /proc/filesystems ||
	    atf_skip "the kernel has no FUSE (no fuse in /proc/filesystems)"
	[ -c /dev/fuse ] || atf_skip "no /dev/fuse"
	command -v fusermount3 > /dev/null ||
	    atf_skip "no fusermount3 (scripts/deps installs fuse3)"
	[ -x "$B/regress/helpers/slowfuse" ] ||
	    atf_skip "no slowfuse helper (libfuse3-dev missing at build time)"
	[ -r /dev/fuse ] && [ -w /dev/fuse ] ||
	    atf_skip "/dev/fuse is $(stat -c %A /dev/fuse) root: only root runs FUSE daemons on this host, so $(id -un) cannot play this tenant"
}

# fd_wait_line FILE WHAT: wait (60 s at most) until FILE has a line.
fd_wait_line() {
	_i=0
	until [ -s "$1" ]; do
		_i=$((_i + 1))
		[ $_i -lt 600 ] || atf_fail "$2: no answer within 60 s"
		sleep 0.1
	done
}

atf_test_case fd_fuse cleanup
fd_fuse_head() {
	atf_set "descr" "A descriptor on FUSE, whose daemon sits on FLUSH" \
	    "and STATFS, is refused by name and closed off the event loop:" \
	    "another client is served meanwhile, and a flood of them ends" \
	    "the sender's connection (issue 20, item 5)"
	atf_set "timeout" "300"
}
fd_fuse_body() {
	sbx_test_paths
	fd_need_fuse
	sbx_test_dir sbxfd
	P=$D/fdpass.py
	cp "$S/top/regress/fdpass.py" "$P"
	mkdir "$D/mnt"
	"$B/regress/helpers/slowfuse" "$D/release" "$D/mnt" \
	    > fuse.log 2>&1 &
	echo $! > fuse.pid
	echo "$D/mnt" > fuse.mnt
	i=0
	until grep -q " $D/mnt " /proc/self/mountinfo; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat fuse.log; atf_fail "slowfuse did not mount"; }
		sleep 0.1
	done
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "log-file \"$D/audit.jsonl\""
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	refused='descriptor on a FUSE file system \(fuse\.slowfuse\): refused, its close would wait for a daemon the client controls'

	# PING takes no descriptor; the old monitor closed it and froze.
	# The clients block on their own close until the release: they run
	# in the background.
	python3 "$P" "$SOCK" 2 '{}' "$D/mnt/slow" r > ping.out 2>&1 &
	echo $! > bg.pids
	fd_wait_line ping.out "ping with a FUSE descriptor"
	atf_check -o match:"^error bad-request ping: $refused" cat ping.out

	# A real request: run with its stdin from the slow file.  sbxctl
	# itself stalls on closing its copy once sent (its own daemon), so
	# the refusal is awaited in the audit log, sbxctl's words after the
	# release.  The shell's "< file" would stall already (it closes
	# the descriptor it opened after the dup2): python opens the file
	# as descriptor 0 itself.
	python3 -c 'import os, sys
os.close(0)
os.open(sys.argv[1], os.O_RDONLY)
os.set_inheritable(0, True)
os.execv(sys.argv[2], sys.argv[2:])' "$D/mnt/slow" "$C" -s "$SOCK" \
	    run -- true > run.out 2> run.err &
	echo $! > run.pid
	i=0
	until grep -q "fd: descriptor on a FUSE" "$D/audit.jsonl"; do
		i=$((i + 1))
		[ $i -lt 600 ] || { cat mon.log; atf_fail "run with stdin on FUSE: no refusal within 60 s"; }
		sleep 0.1
	done

	# A workdir on FUSE (a directory: its close does not flush, but
	# reading it asks the daemon).
	atf_check -s not-exit:0 -e match:"fd: $refused" \
	    timeout 60 "$C" -s "$SOCK" run -w "$D/mnt" -- true

	# A flood of them on one connection: refused, then cut off.
	python3 "$P" "$SOCK" 15 '{}' "$D/mnt/slow" r 40 > flood.out 2>&1 &
	echo $! >> bg.pids
	i=0
	until grep -q '^closed' flood.out; do
		i=$((i + 1))
		[ $i -lt 600 ] || { cat flood.out; atf_fail "the flood was not cut off"; }
		sleep 0.1
	done
	n=$(grep -cE "^error bad-request gates doc: $refused" flood.out)
	[ "$n" -ge 1 ] && [ "$n" -le 17 ] ||
	    atf_fail "$n descriptors refused before the cut, want 1 to 17"

	# Every close above is still waiting for the daemon: another
	# client is served all the same.
	atf_check -o match:'answered' timeout 60 "$C" -s "$SOCK" ping

	touch "$D/release"
	for p in $(cat bg.pids); do
		wait "$p" 2>/dev/null
	done
	wait "$(cat run.pid)"
	atf_check -o match:"fd: $refused" cat run.err
	atf_check -o match:'answered' timeout 60 "$C" -s "$SOCK" ping
}
fd_fuse_cleanup() {
	[ -f tmpdir ] && touch "$(cat tmpdir)/release"
	[ -f bg.pids ] && for p in $(cat bg.pids) $(cat run.pid 2>/dev/null); do
		kill "$p" 2>/dev/null
	done
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	if [ -f fuse.mnt ]; then
		fusermount3 -u "$(cat fuse.mnt)" 2>/dev/null ||
		    umount -l "$(cat fuse.mnt)" 2>/dev/null
	fi
	[ -f fuse.pid ] && kill "$(cat fuse.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case load_opath cleanup
load_opath_head() {
	atf_set "descr" "PROVIDER_LOAD refuses an O_PATH descriptor of a" \
	    "directory the caller cannot read; a bundle opened for reading" \
	    "still loads (issue 20)"
	atf_set "timeout" "300"
}
load_opath_body() {
	. "$(atf_get_srcdir)/top/regress/provider-test.subr"
	pt_init
	P=$D/fdpass.py
	cp "$S/top/regress/fdpass.py" "$P"
	chmod 644 "$P"
	pt_example ex
	if [ "$(id -u)" -eq 0 ]; then
		id sbxtest > /dev/null 2>&1 ||
		    atf_skip "no user sbxtest to play the caller (scripts/check creates it)"
		# Readable by the service (nobody), not by the caller.
		cp -R "$W/ex" "$D/secret"
		chown -R nobody "$D/secret"
		chmod 700 "$D/secret"
		pt_start "socket-group \"$(id -gn sbxtest)\"" \
		    "allow uid \"sbxtest\""
		as="runuser -u sbxtest --"
	else
		# As a user the service is that user: a directory of one's
		# own with mode 0 is one it cannot read either, but the
		# refusal must come from the descriptor, not the read.
		cp -R "$W/ex" "$D/secret"
		chmod 000 "$D/secret"
		pt_start
		as=""
	fi
	atf_check -o match:'^error bad-request provider load: the bundle directory descriptor was opened with O_PATH' \
	    $as python3 "$P" "$SOCK" 9 '{"allowBundleProviders":true}' \
	    "$D/secret" path
	atf_check -o match:'^error bad-request provider load: the bundle directory descriptor is not a directory' \
	    $as python3 "$P" "$SOCK" 9 '{"allowBundleProviders":true}' \
	    "$P" r
	atf_check -o match:'^ok ' \
	    $as python3 "$P" "$SOCK" 9 '{"allowBundleProviders":true}' \
	    "$W/ex" dir
	pt_load "$W/ex"
	chmod 700 "$D/secret"
}
load_opath_cleanup() {
	[ -f tmpdir ] && chmod -R u+rwx "$(cat tmpdir)" 2>/dev/null
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

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
	tenant_cleanup
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
	tenant_cleanup
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
	    atf_skip "needs root: only root creates the socket for another user (t_monitor_sockcreate covers a user's monitor)"
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
	tenant_cleanup
}

atf_init_test_cases() {
	# Cases under "id -u" need root (a mapper, a second user, a socket
	# made for another user); an unprivileged run does not list them.
	# set-id and ids
	atf_add_test_case setid_syscalls
	atf_add_test_case setid_tools
	atf_add_test_case setid_service_owner
	# ids_*: payloads own their ids
	atf_add_test_case ids_inside
	atf_add_test_case ids_make
	# launcher
	atf_add_test_case launcher_caps
	atf_add_test_case launcher_filters
	if [ "$(id -u)" -eq 0 ]; then atf_add_test_case launcher_policy_fd; fi
	atf_add_test_case launcher_part_lost
	if [ "$(id -u)" -eq 0 ]; then atf_add_test_case launcher_mapper_refuses; fi
	atf_add_test_case launcher_proxy_sandbox
	# floods
	atf_add_test_case flood_unread_replies
	atf_add_test_case flood_descriptors
	atf_add_test_case flood_fd_reserve
	if [ "$(id -u)" -eq 0 ]; then atf_add_test_case flood_peer_totals; fi
	# descriptors, socket, loads
	atf_add_test_case fd_fuse
	atf_add_test_case load_opath
	# status, example
	if [ "$(id -u)" -eq 0 ]; then atf_add_test_case status_two_users; fi
	atf_add_test_case status_own
	atf_add_test_case example_no_loopback
	if [ "$(id -u)" -eq 0 ]; then atf_add_test_case socket_shared_dir; fi
}
