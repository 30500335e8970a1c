#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# identity.sh: whose host user a sandbox is (sbx.conf(5) "identity"), and
# what it may execute.  As root the monitor drops to "nobody" and the
# caller is the unprivileged user "sbxtest" (scripts/check creates it):
# identity caller runs the sandbox as sbxtest, service as the sandbox-user
# "_sbxsandbox" (scripts/check creates it too; never the service user
# nobody), range as a fresh id; host root is never mapped; the launcher alone holds
# CAP_SETUID and CAP_SETGID.  As an unprivileged user, monitor, caller and
# sandbox are that user whatever the profile says, and range is refused.
# The agent's everyday job runs end to end: a 0700 project of the
# caller's, git, a build, a test binary, results owned by the caller.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

RANGE_START=200000

# setup EXTRA...: D, SOCK, a config with profiles caller, service, range
# and strict, plus the lines given; CU, an sbxctl the caller can run.
setup() {
	sbx_test_paths
	sbx_test_dir sbxid
	mkdir "$D/files"
	chmod 755 "$D/files"
	if [ "$(id -u)" -eq 0 ]; then
		id sbxtest >/dev/null 2>&1 || atf_fail "user sbxtest is missing"
		CALLER=sbxtest
		SERVICE=_sbxsandbox
		id "$SERVICE" >/dev/null 2>&1 ||
		    atf_fail "user $SERVICE is missing (scripts/check makes it)"
		AS="runuser -u $CALLER --"
	else
		CALLER=$(id -un)
		SERVICE=$CALLER
		AS=
	fi
	# The caller may not be able to walk to the build tree.
	cp "$C" "$D/sbxctl"
	chmod 755 "$D/sbxctl"
	CU=$D/sbxctl
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "sandbox-user \"_sbxsandbox\""
		echo "allow uid \"$CALLER\""
		echo "max-sandboxes 16"
		echo "sandbox-uid-range $RANGE_START 64"
		echo "log-file \"$D/audit.jsonl\""
		for p in caller service range strict; do
			echo "profile \"$p\" {"
			echo "	ro \"/usr\""
			# cc is /etc/alternatives/cc on Debian.
			[ -d /etc/alternatives ] &&
			    echo "	ro \"/etc/alternatives\""
			echo "	ro \"$D/files\""
			echo "	env \"PATH\""
			echo "	timeout 120"
			sbx_warm_line
			case $p in
			strict)
				echo "	identity caller"
				echo "	tmpfs \"/tmp\" size 16M noexec"
				echo "	workdir \"/work\" noexec"
				;;
			*)
				echo "	identity $p"
				echo "	tmpfs \"/tmp\" size 16M"
				echo "	workdir \"/work\""
				;;
			esac
			echo "}"
		done
		for l in "$@"; do
			echo "$l"
		done
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
}

start_monitor() {
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	# Let the caller reach the socket (the peer rules still apply).  Not
	# writable by others: as root the monitor refuses such a directory.
	chmod 711 "$D/run"
	chmod 666 "$SOCK"
	# identity-warm.sh: the caller's first run of each profile it may
	# use, after which its warm sandboxes of those are built.
	if [ -n "${SBX_TEST_WARM:-}" ]; then
		n=0
		for p in caller service range strict; do
			$AS "$CU" -s "$SOCK" run -p "$p" -- /usr/bin/true \
			    > /dev/null 2>&1 && n=$((n + 1))
		done
		sbx_warm_wait $((n * SBX_TEST_WARM)) "$C" "$SOCK"
	fi
}

stop_monitor() {
	kill -TERM "$(cat mon.pid)"
	wait "$(cat mon.pid)" || { cat mon.log; atf_fail "monitor exit"; }
}

# as_caller CMD...: CMD as the caller.
as_caller() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$CALLER" -- "$@"
	else
		"$@"
	fi
}

# caller_dir NAME MODE: a directory of the caller's in D.
caller_dir() {
	mkdir "$D/$1"
	[ "$(id -u)" -eq 0 ] && chown "$CALLER:$(id -gn "$CALLER")" "$D/$1"
	chmod "$2" "$D/$1"
}

common_cleanup() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case caller_owns_workdir cleanup
caller_owns_workdir_head() {
	atf_set "descr" "identity caller: a 0700 workdir of the caller's is usable, reads the caller's 0600 files, and what the payload writes belongs to the caller"
}
caller_owns_workdir_body() {
	setup
	caller_dir proj 700
	as_caller sh -c "echo secret > '$D/proj/own' && chmod 600 '$D/proj/own'"
	start_monitor
	atf_check -s exit:0 -o inline:"secret\n1000\n" \
	    $AS "$CU" -s "$SOCK" run -p caller -w "$D/proj" -- /bin/sh -c \
	    'cat /work/own; id -u; echo made > /work/new; mkdir /work/d'
	atf_check -o inline:"$CALLER $(id -gn "$CALLER")\n" \
	    stat -c '%U %G' "$D/proj/new"
	atf_check -o inline:"$CALLER\n" stat -c '%U' "$D/proj/d"
	# The audit log names the identity when it is not the service's.
	if [ "$(id -u)" -eq 0 ]; then
		atf_check -o match:"as caller $(id -u "$CALLER"):" \
		    cat "$D/audit.jsonl"
	fi
	stop_monitor
}
caller_owns_workdir_cleanup() {
	common_cleanup
}

atf_test_case caller_not_service cleanup
caller_not_service_head() {
	atf_set "descr" "identity caller reaches what the caller reaches and none of the service user's files; identity service is sandbox-user, never the service user; a root peer is never host root"
}
caller_not_service_body() {
	setup
	caller_dir proj 755
	# A file only the service user may read, one only the caller may,
	# and one only the sandbox-user may.
	echo service-only > "$D/files/svc"
	echo caller-only > "$D/files/mine"
	echo sandbox-only > "$D/files/sbox"
	if [ "$(id -u)" -eq 0 ]; then
		chown nobody "$D/files/svc"
		chown "$CALLER" "$D/files/mine"
		chown "$SERVICE" "$D/files/sbox"
	fi
	chmod 600 "$D/files/svc" "$D/files/mine" "$D/files/sbox"
	start_monitor
	if [ "$(id -u)" -eq 0 ]; then
		atf_check -s exit:1 -o empty -e match:"Permission denied" \
		    $AS "$CU" -s "$SOCK" run -p caller -- /bin/cat "$D/files/svc"
		atf_check -s exit:0 -o inline:"caller-only\n" \
		    $AS "$CU" -s "$SOCK" run -p caller -- /bin/cat "$D/files/mine"
		# identity service: sandbox-user, whoever asks; never the
		# service user, whose files it cannot read.
		atf_check -s exit:0 -o inline:"sandbox-only\n" \
		    $AS "$CU" -s "$SOCK" run -p service -- /bin/cat "$D/files/sbox"
		atf_check -s exit:1 -o empty -e match:"Permission denied" \
		    $AS "$CU" -s "$SOCK" run -p service -- /bin/cat "$D/files/svc"
		atf_check -s exit:1 -o empty -e match:"Permission denied" \
		    $AS "$CU" -s "$SOCK" run -p service -- /bin/cat "$D/files/mine"
		sbx_warm_served "$D/audit.jsonl" \
		    "profile caller as caller $(id -u "$CALLER"):.*: /bin/cat"
		sbx_warm_served "$D/audit.jsonl" \
		    "profile service as service $(id -u "$SERVICE"):.*: /bin/cat"
		# A root peer's sandbox is sandbox-user, never root nor the
		# service user.
		chmod 777 "$D/proj"
		atf_check -s exit:0 "$C" -s "$SOCK" run -p caller \
		    -w "$D/proj" -- /bin/sh -c 'echo x > /work/root-peer'
		atf_check -o inline:"$SERVICE\n" stat -c '%U' "$D/proj/root-peer"
	else
		# A user's service: caller and service are both that user.
		atf_check -s exit:0 -o inline:"caller-only\n" \
		    $AS "$CU" -s "$SOCK" run -p caller -- /bin/cat "$D/files/mine"
		atf_check -s exit:0 -o inline:"service-only\n" \
		    $AS "$CU" -s "$SOCK" run -p service -- /bin/cat "$D/files/svc"
		atf_check -s exit:0 $AS "$CU" -s "$SOCK" run -p service -w "$D/proj" -- \
		    /bin/sh -c 'echo x > /work/svc-made'
		atf_check -o inline:"$CALLER\n" stat -c '%U' \
		    "$D/proj/svc-made"
		sbx_warm_served "$D/audit.jsonl" "profile caller.*: /bin/cat"
	fi
	stop_monitor
}
caller_not_service_cleanup() {
	common_cleanup
}

atf_test_case min_uid cleanup
min_uid_head() {
	atf_set "descr" "identity caller refuses a peer below caller-min-uid that no allow uid line names; a user's service is not affected"
}
min_uid_body() {
	setup
	uid=$(id -u "$CALLER")
	if [ "$(id -u)" -eq 0 ]; then
		# Allowed in by its group, not named by uid: refused when its
		# uid is below the minimum.
		sed -i "s/^allow uid .*/allow gid \"$(id -gn "$CALLER")\"/" \
		    "$D/sbx.conf"
		echo "caller-min-uid $((uid + 1))" >> "$D/sbx.conf"
		start_monitor
		atf_check -s not-exit:0 -o empty -e match:"identity caller: uid $uid is below caller-min-uid $((uid + 1)) and no \"allow uid\" line names it" \
		    $AS "$CU" -s "$SOCK" run -p caller -- /bin/true
		# identity service is not concerned.
		atf_check -s exit:0 $AS "$CU" -s "$SOCK" run -p service -- /bin/true
		stop_monitor
		# Named by an allow uid line: accepted.
		echo "allow uid $uid" >> "$D/sbx.conf"
		caller_dir proj 700
		start_monitor
		atf_check -s exit:0 $AS "$CU" -s "$SOCK" run -p caller -w "$D/proj" -- \
		    /bin/sh -c 'echo x > /work/named'
		atf_check -o inline:"$CALLER\n" stat -c %U "$D/proj/named"
		stop_monitor
	else
		echo "caller-min-uid $((uid + 1))" >> "$D/sbx.conf"
		start_monitor
		atf_check -s exit:0 $AS "$CU" -s "$SOCK" run -p caller -- /bin/true
		stop_monitor
	fi
}
min_uid_cleanup() {
	common_cleanup
}

atf_test_case range cleanup
range_head() {
	atf_set "descr" "identity range: each sandbox a host id of sandbox-uid-range of its own; refused by a user's service"
}
range_body() {
	setup
	caller_dir proj 777
	start_monitor
	if [ "$(id -u)" -ne 0 ]; then
		atf_check -s not-exit:0 -o empty \
		    -e match:"identity range needs a service started as root" \
		    $AS "$CU" -s "$SOCK" run -p range -- /bin/true
		stop_monitor
		return 0
	fi
	# Two at once: two different ids of the range.
	$AS "$CU" -s "$SOCK" run -p range -w "$D/proj" -- /bin/sh -c \
	    'echo a > /work/a; sleep 1' &
	p1=$!
	$AS "$CU" -s "$SOCK" run -p range -w "$D/proj" -- /bin/sh -c \
	    'echo b > /work/b; sleep 1' &
	p2=$!
	wait $p1 || atf_fail "first range sandbox failed"
	wait $p2 || atf_fail "second range sandbox failed"
	ua=$(stat -c %u "$D/proj/a")
	ub=$(stat -c %u "$D/proj/b")
	[ "$ua" -ge $RANGE_START ] && [ "$ua" -lt $((RANGE_START + 64)) ] ||
	    atf_fail "a is owned by $ua, not an id of the range"
	[ "$ub" -ge $RANGE_START ] && [ "$ub" -lt $((RANGE_START + 64)) ] ||
	    atf_fail "b is owned by $ub, not an id of the range"
	[ "$ua" != "$ub" ] || atf_fail "two live sandboxes shared id $ua"
	atf_check -o inline:"$ua\n" stat -c %g "$D/proj/a"
	stop_monitor
}
range_cleanup() {
	common_cleanup
}

atf_test_case capabilities cleanup
capabilities_head() {
	atf_set "descr" "started as root, the launcher's mapper alone holds CAP_SETUID and CAP_SETGID (bounding set too); the launcher's front and spawner, the monitor and the other roles hold none"
}
capabilities_body() {
	setup
	start_monitor
	mon=$(cat mon.pid)
	launcher=$(pgrep -P "$mon" -x sbx-launcher)
	[ -n "$launcher" ] || atf_fail "no launcher"
	n=0
	for pid in $mon $(pgrep -P "$mon") $(pgrep -P "$launcher"); do
		name=$(cat "/proc/$pid/comm")
		eff=$(sed -n 's/^CapEff:\t//p' "/proc/$pid/status")
		bnd=$(sed -n 's/^CapBnd:\t//p' "/proc/$pid/status")
		amb=$(sed -n 's/^CapAmb:\t//p' "/proc/$pid/status")
		prm=$(sed -n 's/^CapPrm:\t//p' "/proc/$pid/status")
		echo "$name eff $eff prm $prm bnd $bnd amb $amb"
		n=$((n + 1))
		case "$name,$(id -u)" in
		sbx-mapper,0)
			# CAP_SETGID (6) and CAP_SETUID (7): 0xc0.
			[ "$eff" = 00000000000000c0 ] &&
			    [ "$prm" = 00000000000000c0 ] &&
			    [ "$bnd" = 00000000000000c0 ] &&
			    [ "$amb" = 0000000000000000 ] ||
			    atf_fail "mapper: eff $eff bnd $bnd amb $amb" ;;
		sbx-launcher,0|sbx-spawner,0)
			[ "$eff$prm$amb" = 000000000000000000000000000000000000000000000000 ] &&
			    [ "$bnd" = 0000000000000000 ] ||
			    atf_fail "$name: eff $eff prm $prm bnd $bnd amb $amb" ;;
		*)
			[ "$eff" = 0000000000000000 ] ||
			    atf_fail "$name holds capabilities $eff" ;;
		esac
	done
	# monitor, launcher, proxy, runner, spawner (+ mapper as root);
	# identity-warm.sh: and each warm sandbox's pid 1, which holds no
	# capability (checked above as an sbx-spawner: it is a copy).
	[ "$(id -u)" -eq 0 ] && want=6 || want=5
	[ -n "${SBX_TEST_WARM:-}" ] &&
	    want=$((want + $(sbx_warm_all "$C" "$SOCK")))
	[ $n -eq $want ] || atf_fail "$n processes, not $want"
	stop_monitor
}
capabilities_cleanup() {
	common_cleanup
}

atf_test_case exec_policy cleanup
exec_policy_head() {
	atf_set "descr" "a payload runs what it wrote in the workdir and /tmp; noexec on the workdir and /tmp forbids both"
}
exec_policy_body() {
	setup
	caller_dir proj 700
	printf '#!/bin/sh\necho script-ran\n' > "$D/tool"
	as_caller sh -c "cp '$D/tool' '$D/proj/tool' && chmod 755 '$D/proj/tool'"
	start_monitor
	atf_check -s exit:0 -o inline:"script-ran\nscript-ran\n" \
	    $AS "$CU" -s "$SOCK" run -p caller -w "$D/proj" -- /bin/sh -c \
	    '/work/tool && cp /work/tool /tmp/t && /tmp/t'
	atf_check -s exit:126 -o empty -e match:"Permission denied" \
	    $AS "$CU" -s "$SOCK" run -p strict -w "$D/proj" -- /work/tool
	atf_check -s exit:126 -o empty -e match:"Permission denied" \
	    $AS "$CU" -s "$SOCK" run -p strict -w "$D/proj" -- /bin/sh -c \
	    'cp /work/tool /tmp/t && /tmp/t'
	# Programs of the read-only binds still run under strict.
	atf_check -s exit:0 -o inline:"ok\n" \
	    $AS "$CU" -s "$SOCK" run -p strict -- /bin/sh -c 'echo ok'
	stop_monitor
}
exec_policy_cleanup() {
	common_cleanup
}

atf_test_case agent_flow cleanup
agent_flow_head() {
	atf_set "descr" "the agent's job: in a 0700 project of the caller's, git init and commit, build a C program and its test, run the test; everything belongs to the caller and git status is clean on the host"
}
agent_flow_body() {
	setup
	command -v git >/dev/null || atf_fail "git is missing (scripts/deps installs it)"
	command -v cc >/dev/null || atf_fail "cc is missing (scripts/deps installs it)"
	caller_dir proj 700
	cat > "$D/hello.c" <<'EOF'
#include <stdio.h>
int add(int a, int b) { return a + b; }
#ifndef TEST
int main(void) { printf("%d\n", add(2, 3)); return 0; }
#else
int main(void) { return add(2, 3) == 5 ? 0 : 1; }
#endif
EOF
	as_caller cp "$D/hello.c" "$D/proj/hello.c"
	start_monitor
	atf_check -s exit:0 -o match:"^5$" -o match:"^test passed$" \
	    $AS env PATH=/usr/bin:/bin "$CU" -s "$SOCK" run -p caller \
	    -e PATH -w "$D/proj" -- /bin/sh -c '
		set -e
		cd /work
		printf "hello\nhello-test\n" > .gitignore
		git init -q .
		git -c user.name=agent -c user.email=agent@example.org add .
		git -c user.name=agent -c user.email=agent@example.org \
		    commit -qm "initial"
		cc -o hello hello.c
		cc -DTEST -o hello-test hello.c
		./hello
		./hello-test && echo "test passed"'
	# Everything in the project is the caller's ...
	atf_check -o empty find "$D/proj" ! -user "$CALLER"
	# ... and git on the host, as the caller, sees a clean tree it
	# trusts (no "dubious ownership").
	atf_check -s exit:0 -o empty $AS git -C "$D/proj" status \
	    --porcelain
	atf_check -s exit:0 -o match:"initial" $AS git -C "$D/proj" log \
	    --oneline
	stop_monitor
}
agent_flow_cleanup() {
	common_cleanup
}

atf_test_case sandbox_user_conf cleanup
sandbox_user_conf_head() {
	atf_set "descr" "sandbox-user: refused when it is the service user; as root, a missing one refuses the configuration (naming it and how to create it), with or without an identity service profile: nothing falls back to the service user"
}
sandbox_user_conf_body() {
	setup
	sed 's/^sandbox-user .*/sandbox-user "nobody"/' "$D/sbx.conf" > same.conf
	atf_check -s not-exit:0 -o empty \
	    -e match:'sandbox-user "nobody" is the service user \(user "nobody"\)' \
	    "$M" -n -f same.conf
	if [ "$(id -u)" -ne 0 ]; then
		# A user's service: sandbox-user is not used, service is the
		# user itself (caller_not_service checks it).
		start_monitor
		atf_check -s exit:0 $AS "$CU" -s "$SOCK" run -p service -- /bin/true
		stop_monitor
		return 0
	fi
	# A user that does not exist, with a profile of identity service.
	sed 's/^sandbox-user .*/sandbox-user "_sbxnosuchuser"/' "$D/sbx.conf" \
	    > "$D/missing.conf"
	atf_check -s not-exit:0 -o ignore \
	    -e match:'sandbox-user "_sbxnosuchuser": no such user.*create it' \
	    "$M" -d -f "$D/missing.conf" -s "$D/run/missing.sock"
	# Without such a profile too: the self-test's sandbox, a root
	# peer's run and provider runs are identity service, and none of
	# them falls back to the service user.
	sed -e 's/^sandbox-user .*/sandbox-user "_sbxnosuchuser"/' \
	    -e 's/identity service/identity caller/' "$D/sbx.conf" > "$D/m2.conf"
	atf_check -s not-exit:0 -o ignore \
	    -e match:'sandbox-user "_sbxnosuchuser": no such user.*create it' \
	    "$M" -d -f "$D/m2.conf" -s "$D/run/m2.sock"
}
sandbox_user_conf_cleanup() {
	common_cleanup
}

atf_init_test_cases() {
	atf_add_test_case sandbox_user_conf
	atf_add_test_case caller_owns_workdir
	atf_add_test_case caller_not_service
	atf_add_test_case min_uid
	atf_add_test_case range
	atf_add_test_case capabilities
	atf_add_test_case exec_policy
	atf_add_test_case agent_flow
}
