#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# pty.sh: `sbxctl run -T` as a person at a terminal uses it (issue 26),
# driven by pty-driver.py on a pty of the test's own, with bash -i in the
# sandbox; and Ctrl-C without a pty reaching the payload's whole process
# group.  A private sbx-monitor; as root (it drops to "nobody") and as an
# unprivileged user.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

setup_conf() {
	sbx_test_paths
	sbx_test_dir sbxpty
	DRIVER=$S/top/regress/pty-driver.py
	{
		echo "socket \"$SOCK\""
		echo "socket-mode 0660"
		echo "user \"nobody\""
		echo "profile \"default\" {"
		for d in /usr /bin /lib /lib64 /etc; do
			[ -d "$d" ] && echo "	ro \"$d\""
		done
		echo "	tmpfs \"/tmp\" size 1M"
		echo "	timeout 120"
		echo "}"
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
}

common_cleanup() {
	for f in agent.pid mon.pid; do
		[ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
	done
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	true
}

need_tools() {
	for t in python3 bash stty; do
		command -v $t > /dev/null 2>&1 ||
		    atf_skip "$t is not installed (the pty driver needs it)"
	done
}

atf_test_case interactive cleanup
interactive_head() {
	atf_set "descr" "bash -i through sbxctl run -T: prompt, tty, window size and resize, ^C, ^Z and fg, TIOCSTI refused, and the caller's terminal modes restored after a normal exit, a killed sbxctl, a timeout and a killed monitor"
}
interactive_body() {
	need_tools
	setup_conf
	for mode in interactive killed timeout; do
		python3 "$DRIVER" "$C" "$SOCK" $mode > $mode.out 2>&1 || {
			cat $mode.out mon.log
			atf_fail "pty driver: $mode"
		}
		cat $mode.out
	done
	grep -q '^ok TIOCSTI refused$' interactive.out ||
	    atf_fail "the interactive run did not get to its end"
	# A killed sbxctl's sandbox goes with its connection.
	i=0
	until "$C" -s "$SOCK" status | grep -q 'sandboxes 0,'; do
		[ $i -lt 100 ] || atf_fail "a sandbox outlived its killed sbxctl"
		sleep 0.1
		i=$((i + 1))
	done
	# Last: the monitor killed under a running sbxctl.
	python3 "$DRIVER" "$C" "$SOCK" monitor "$(cat mon.pid)" \
	    > monitor.out 2>&1 || { cat monitor.out; atf_fail "pty driver: monitor"; }
	cat monitor.out
}
interactive_cleanup() {
	common_cleanup
}

atf_test_case interrupt cleanup
interrupt_head() {
	atf_set "descr" "without a pty, SIGINT to sbxctl reaches the payload's process group: bash -c 'sleep 6; echo done' ends with 130 and prints nothing; SIGQUIT reaches the sleep too"
}
interrupt_body() {
	setup_conf
	for sig in INT QUIT; do
		rm -f out err
		"$C" -s "$SOCK" run --no-pty -- /bin/bash -c \
		    'echo started >&2; sleep 6; echo done' > out 2> err &
		agent=$!
		echo $agent > agent.pid
		i=0
		until grep -q '^started$' err; do
			[ $i -lt 300 ] || { cat err; atf_fail "no start"; }
			sleep 0.1
			i=$((i + 1))
		done
		kill -$sig $agent
		wait $agent
		st=$?
		rm agent.pid
		case $sig in
		INT)
			# bash ends itself by SIGINT when its foreground
			# child did: the shell's 130, nothing printed.
			[ $st -eq 130 ] ||
			    { cat out err; atf_fail "SIGINT: exit $st, not 130"; }
			[ -s out ] &&
			    { cat out; atf_fail "SIGINT: the payload went on"; }
			;;
		QUIT)
			# As at a terminal's ^\: the sleep dies of it (bash
			# says so) and a non-interactive bash goes on.
			grep -q 'Quit' err ||
			    { cat out err; atf_fail "SIGQUIT missed the sleep"; }
			;;
		esac
	done
	true
}
interrupt_cleanup() {
	common_cleanup
}

atf_init_test_cases() {
	atf_add_test_case interactive
	atf_add_test_case interrupt
}
