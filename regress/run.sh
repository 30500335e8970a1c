#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# run.sh: `sbxctl run` end to end, through a private sbx-monitor, its
# launcher and the shim: the issue's escapes tried from inside by the
# probe, the fidelity a user expects of running a command directly, a
# thousand sandboxes in a row and 32 at once leaving nothing behind, and a
# sandbox dying with its agent.  Runs as root (the monitor drops to
# "nobody"; a root peer's sandbox runs as the sandbox-user "_sbxsandbox"
# on the host, never as nobody) and as an unprivileged user (monitor and
# sandbox run as that user).

. "$(atf_get_srcdir)/top/regress/monitor.subr"

paths() {
	sbx_test_paths
	P=$S/helpers/probe
}

# as_sandbox_user CMD...: run CMD as the host user the sandbox runs as,
# a root peer's sandbox-user (sbx_sandbox_user); exec'd, so $! of a
# background call is CMD's own pid.
as_sandbox_user() {
	if [ "$(id -u)" -eq 0 ] && [ -n "${SBX_RANGE:-}" ]; then
		setpriv --reuid="$SBX_RANGE" --regid="$SBX_RANGE" \
		    --clear-groups "$@"
	elif [ "$(id -u)" -eq 0 ]; then
		_u=${SBX_CALLER:-$(sbx_sandbox_user)}
		setpriv --reuid="$(id -u "$_u")" --regid="$(id -g "$_u")" \
		    --clear-groups "$@"
	else
		"$@"
	fi
}

# The probe must be visible to the shim, which opens the profile's binds
# as the monitor's user.  The build tree's helpers directory is bound
# when that user can reach it; a checkout in a directory it cannot enter
# gets a copy of the probe in the test's private directory instead.
probe_dir() {
	H=$(cd "$S/helpers" && pwd -P) || atf_fail "no helpers directory"
	if ! as_sandbox_user test -x "$H/probe"; then
		H=$D/helpers
		mkdir -p "$H"
		cp "$P" "$H/probe"
		chmod 755 "$H" "$H/probe"
	fi
	PROBE=$H/probe
}

# setup_conf: a private directory with a config.  Profile "probe" binds
# the probe and a directory of fixture files, and has small limits, so
# exceeding them is quick and cheap: 64 MiB of memory, 16 processes, a
# 1 MiB /tmp.
setup_conf() {
	paths
	sbx_test_dir sbxrun
	probe_dir
	mkdir "$D/files"
	chmod 755 "$D/files"
	{
		echo "socket \"$SOCK\""
		echo "socket-mode 0660"
		echo "user \"nobody\""
		echo "max-connections 512"
		echo "max-connections-per-peer 512"
		echo "max-sandboxes 64"
		echo "max-sandboxes-per-peer 64"
		echo "log-file \"$D/audit.jsonl\""
		echo "profile \"probe\" {"
		for d in /usr /bin /lib /lib64; do
			[ -d "$d" ] && echo "	ro \"$d\""
		done
		echo "	ro \"$H\""
		echo "	ro \"$D/files\""
		# Not /work: the build tree may live there, and a workdir
		# may not hide a bind.
		echo "	workdir \"/sbx-work\""
		echo "	tmpfs \"/tmp\" size 1M"
		echo "	memory 64M"
		echo "	pids 16"
		echo "	timeout 120"
		sbx_warm_line
		echo "}"
		# run-warm.sh: the built-in profile, warm (a profile that
		# names no mount gets the built-in one's).
		if [ -n "${SBX_TEST_WARM:-}" ]; then
			echo "profile \"default\" {"
			echo "	env \"LANG\""
			echo "	env \"TERM\""
			sbx_warm_line
			echo "}"
		fi
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
}

start_monitor() {
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	# run-warm.sh: the caller's first runs, after which its warm
	# sandboxes of both profiles are built.
	if [ -n "${SBX_TEST_WARM:-}" ]; then
		if [ -n "${SBX_CALLER:-}" ]; then
			chmod 777 "$D/run"
			chmod 666 "$SOCK"
		fi
		# A profile the service refuses (identity range in a
		# user's service) builds none.
		n=0
		run -p probe -- /bin/true > /dev/null 2>&1 && n=$((n + 1))
		run -- /bin/true || atf_fail "first run of default"
		sbx_warm_wait $(((n + 1) * SBX_TEST_WARM)) "$C" "$SOCK"
	fi
}

monpid() {
	cat mon.pid
}

stop_monitor() {
	pid=$(monpid)
	kill -TERM "$pid"
	wait "$pid"
	st=$?
	[ $st -eq 0 ] || { cat mon.log; atf_fail "monitor exited $st on SIGTERM"; }
}

# role_pid NAME: from sbxctl status --json.
role_pid() {
	"$C" -s "$SOCK" --json status | tr '{' '\n' |
	    sed -n "s/.*\"name\":\"$1\",\"pid\":\([0-9]*\).*/\1/p"
}

# sandboxes: how many the monitor has live.
sandboxes() {
	"$C" -s "$SOCK" --json status |
	    sed -n 's/.*"sandboxes":\([0-9]*\).*/\1/p'
}

# run ARGS: sbxctl run, as SBX_CALLER when that is set (identity caller,
# as root: the sandbox is then that user on the host).
run() {
	if [ -n "${SBX_CALLER:-}" ]; then
		runuser -u "$SBX_CALLER" -- "$CU" -s "$SOCK" run "$@"
	else
		"$C" -s "$SOCK" run "$@"
	fi
}

# wait_for FILE REGEX TENTHS: until a line of FILE matches (a background
# process said it is ready); fails after TENTHS tenths of a second.
wait_for() {
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		[ $i -lt "$3" ] || { cat "$1"; atf_fail "no \"$2\" in $1"; }
		sleep 0.1
		i=$((i + 1))
	done
}

# wait_gone PID TENTHS: 0 once PID is gone (reaped), 1 if it is not.
wait_gone() {
	i=0
	while [ $i -lt "$2" ]; do
		[ -e "/proc/$1" ] || return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

common_cleanup() {
	for f in victim.pid listen.pid agent.pid mon.pid; do
		[ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
	done
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

# ---- escapes -----------------------------------------------------------

atf_test_case escapes cleanup
escapes_head() {
	atf_set "descr" "every escape the issue lists, tried from inside through sbxctl run, is denied"
}
escapes_body() {
	escapes_common
}
escapes_cleanup() {
	common_cleanup
}

atf_test_case escapes_caller cleanup
escapes_caller_head() {
	atf_set "descr" "the same escapes, denied the same way, in identity caller mode: as root the sandbox runs as the caller sbxtest, with no more than sbxtest has outside and none of the service user's"
}
escapes_caller_body() {
	[ "$(id -u)" -eq 0 ] && SBX_CALLER=sbxtest
	escapes_common
}
escapes_caller_cleanup() {
	common_cleanup
}

atf_test_case escapes_range cleanup
escapes_range_head() {
	atf_set "descr" "the same escapes, denied the same way, in identity range mode: as root the sandbox runs as a fresh id of sandbox-uid-range; a user's service refuses identity range"
}
escapes_range_body() {
	if [ "$(id -u)" -ne 0 ]; then
		setup_conf
		range_conf
		start_monitor
		atf_check -s not-exit:0 -o empty \
		    -e match:"identity range needs a service started as root" \
		    "$C" -s "$SOCK" run -p probe -- /bin/true
		stop_monitor
		return 0
	fi
	# Nothing else runs: the first id of the range is the probe's.
	SBX_CALLER=sbxtest SBX_RANGE=300000
	escapes_common
}
escapes_range_cleanup() {
	common_cleanup
}

# range_conf: profile "probe" in identity range, ids from 300000.
range_conf() {
	sed -i 's/^profile "probe" {$/&\n	identity range/' "$D/sbx.conf"
	echo "sandbox-uid-range 300000 64" >> "$D/sbx.conf"
}

# The probe's tries, as the monitor's user or (SBX_CALLER) as the caller;
# setup_conf's probe_dir copies the probe where that user can reach it.
escapes_common() {
	setup_conf
	if [ -n "${SBX_CALLER:-}" ]; then
		id "$SBX_CALLER" >/dev/null 2>&1 ||
		    atf_fail "user $SBX_CALLER is missing"
		echo "allow uid \"$SBX_CALLER\"" >> "$D/sbx.conf"
		[ -n "${SBX_RANGE:-}" ] && range_conf
		cp "$C" "$D/sbxctl"
		chmod 755 "$D/sbxctl"
		CU=$D/sbxctl
	fi
	start_monitor
	if [ -n "${SBX_CALLER:-}" ]; then
		chmod 777 "$D/run"
		chmod 666 "$SOCK"
	fi
	mkdir "$D/work"
	chmod 777 "$D/work"
	[ -n "${SBX_CALLER:-}" ] && chown "$SBX_CALLER" "$D/work"

	# Listeners on the host's loopback and an abstract socket.  First
	# a control run of the probe on the host itself: the listeners do
	# receive, and the probe does report what succeeds, so silence and
	# denials later are the sandbox's doing.
	"$PROBE" listen "sbx-run-$$" > listen.out 2> listen.err &
	echo $! > listen.pid
	wait_for listen.out '^listen ' 100
	set -- $(sed -n 1p listen.out)
	tport=$2 uport=$3 aname=$4
	atf_check -s exit:0 -o match:"^escape tcp:$tport ok ALLOWED\$" \
	    -o match:"^escape udp:$uport ok ALLOWED" \
	    -o match:"^escape abstract:$aname ok ALLOWED\$" \
	    -o match:'^escape read:/etc/passwd ok ALLOWED$' \
	    -o match:'^escape hostusers:/etc/passwd ok ALLOWED lines=' \
	    -o match:'^escape pids:4 ok ALLOWED forked=4$' \
	    -o match:'^escapes tried 6 denied 0$' \
	    "$PROBE" escape "tcp:$tport" "udp:$uport" "abstract:$aname" \
	    read:/etc/passwd hostusers:/etc/passwd pids:4
	wait_for listen.out '^got unix' 100
	wait_for listen.out '^got tcp' 100
	wait_for listen.out '^got udp' 100

	# A process outside, owned by the sandbox's host uid, so that only
	# the pid namespace (and Landlock's signal scope) keep it alive.
	as_sandbox_user sleep 600 &
	victim=$!
	echo $victim > victim.pid
	# The monitor's working directory (-d keeps the one it started in).
	mcwd=$(readlink "/proc/$(monpid)/cwd" 2>/dev/null) || mcwd=$(pwd -P)

	# Host directories that are not there inside.  A build tree under
	# one of them (the probe's directory is bound, so the path to it
	# exists inside): then a host entry beside that path is not there.
	tops=
	for t in /home /root /var /run /srv; do
		case "$H/" in
		"$t"/*)
			n=${H#"$t"/}
			n=${n%%/*}
			e=$(ls -A "$t" | grep -vxF "$n" | head -n 1)
			[ -n "$e" ] && tops="$tops
read:$t/$e ENOENT" ;;
		*)
			tops="$tops
read:$t ENOENT" ;;
		esac
	done

	# attempt, then the results that count as denied (an ERE).
	cat > expect <<EOF
read:/etc/shadow ENOENT
hostusers:/etc/passwd ENOENT|ENODATA
hostusers:/etc/group ENOENT|ENODATA$tops
read:$mcwd ENOENT
read:$D/sbx.conf ENOENT
read:$SOCK ENOENT
environ ENODATA|EACCES
tcp:$tport ECONNREFUSED|EACCES|ENETUNREACH
udp:$uport ECONNREFUSED|EAGAIN|ENETUNREACH
abstract:$aname ECONNREFUSED
unixpath:$SOCK ENOENT
netlink-addr EPERM
netlink:audit EPERM
netlink:uevent EPERM
userns EPERM
clone-userns EPERM
mount EPERM
remount EPERM
fsopen EPERM
ptrace:1 EPERM
kill:$victim ESRCH
kill:-1 ESRCH
tiocsti:low EPERM
tiocsti:high EPERM
keyctl EPERM
add_key EPERM
bpf EPERM
perf_event_open EPERM
io_uring_setup ENOSYS
userfaultfd EPERM
write:/sbx-escape EROFS|EACCES
write:/usr/sbx-escape EROFS|EACCES
write:$H/sbx-escape EROFS|EACCES
write:/dev/sbx-escape EROFS|EACCES
write:/proc/sys/kernel/hostname EROFS|EACCES
write:/proc/sys/kernel/core_pattern EROFS|EACCES
memory:268435456 ENOMEM|killed
pids:64 EAGAIN
fill:/tmp/fill:4194304 ENOSPC
forkbomb EAGAIN
EOF
	attempts=$(cut -d' ' -f1 expect)
	# run-warm.sh: no workdir, so that a warm sandbox serves the probe
	# (a run with -w starts cold); no attempt needs one.
	wdir="-w $D/work"
	[ -n "${SBX_TEST_WARM:-}" ] && wdir=
	# shellcheck disable=SC2086
	run -p probe $wdir -- "$PROBE" escape $attempts \
	    > escape.out 2> escape.err
	st=$?
	cat escape.out
	[ $st -eq 0 ] || { cat escape.err; atf_fail "probe exited $st"; }
	if [ -n "${SBX_RANGE:-}" ]; then
		grep -q "as range $SBX_RANGE:$SBX_RANGE:" "$D/audit.jsonl" ||
		    atf_fail "the probe did not run as range id $SBX_RANGE"
		sbx_warm_served "$D/audit.jsonl" \
		    "profile probe as range $SBX_RANGE:$SBX_RANGE: $PROBE"
	elif [ -n "${SBX_CALLER:-}" ]; then
		grep -q "as caller $(id -u "$SBX_CALLER"):" "$D/audit.jsonl" ||
		    atf_fail "the probe did not run as the caller $SBX_CALLER"
		sbx_warm_served "$D/audit.jsonl" \
		    "profile probe as caller $(id -u "$SBX_CALLER"):.*: $PROBE"
	else
		sbx_warm_served "$D/audit.jsonl" "profile probe.*: $PROBE"
	fi

	# Every attempt reported, each with a denial the test recognises.
	awk 'NR == FNR { want[$1] = $2; order[++n] = $1; next }
	    $1 == "escape" { got[$2] = $3; verdict[$2] = $4 }
	    END {
		for (i = 1; i <= n; i++) {
			a = order[i]
			if (!(a in got)) {
				print "no result for " a; bad = 1
			} else if (got[a] !~ ("^(" want[a] ")$") ||
			    verdict[a] != "denied") {
				print a ": " got[a] " " verdict[a] \
				    ", expected " want[a]; bad = 1
			}
		}
		exit bad
	    }' expect escape.out > verdicts || {
		cat verdicts
		atf_fail "an escape was not denied as expected"
	}
	want=$(wc -l < expect)
	set -- $(sed -n 's/^escapes tried \([0-9]*\) denied \([0-9]*\)$/\1 \2/p' \
	    escape.out)
	[ $# -eq 2 ] || atf_fail "no tally from the probe"
	[ "$1" -eq "$want" ] || atf_fail "probe tried $1 of $want attempts"
	[ "$2" -eq "$1" ] || atf_fail "only $2 of $1 attempts were denied"
	tried=$1 denied=$2

	# Its own loopback works, TCP and UDP, IPv4 and IPv6 (where the
	# kernel has it), while the host's listeners above stayed out of
	# reach: the network namespace holds nothing else.
	run -p probe -- "$PROBE" loopback > loop.out 2>&1 ||
	    { cat loop.out; atf_fail "probe loopback failed"; }
	cat loop.out
	for w in "tcp 127.0.0.1" "udp 127.0.0.1" "tcp ::1" "udp ::1"; do
		case $w in *::1) [ -e /proc/net/if_inet6 ] || continue ;; esac
		grep -qx "loopback $w ok" loop.out ||
		    atf_fail "own loopback: $w does not work"
	done

	# The host's side: nothing arrived, the process outside lives, the
	# monitor still serves after the fork bomb and the memory hog.
	kill -0 "$victim" || atf_fail "the process outside was killed"
	atf_check -s exit:0 -o match:'selftest passed' "$C" -s "$SOCK" status
	kill -TERM "$(cat listen.pid)"
	wait "$(cat listen.pid)"
	rm listen.pid
	atf_check -o match:'^received tcp 1 udp 1 unix 1$' tail -n 1 listen.out

	# Outlive the timeout: killed, exit 124, and said so.
	atf_check -s exit:124 -o inline:'ready\n' -e match:'timed out' \
	    "$C" -s "$SOCK" run -p probe -t 1 -- "$PROBE" sleep
	tried=$((tried + 1)) denied=$((denied + 1))
	echo "escapes: $tried tried, $denied denied"
	stop_monitor
}

# ---- fidelity ----------------------------------------------------------

atf_test_case exit_status cleanup
exit_status_head() {
	atf_set "descr" "the payload's exit status, and 128+N for signal N"
}
exit_status_body() {
	setup_conf
	start_monitor
	for n in 0 3 255; do
		atf_check -s exit:$n -o empty -e empty \
		    "$C" -s "$SOCK" run -- /bin/sh -c "exit $n"
	done
	atf_check -s exit:143 -o empty -e empty \
	    "$C" -s "$SOCK" run -- /bin/sh -c 'kill -TERM $$'
	atf_check -s exit:137 -o empty -e empty \
	    "$C" -s "$SOCK" run -- /bin/sh -c 'kill -KILL $$'
	stop_monitor
}
exit_status_cleanup() {
	common_cleanup
}

atf_test_case stdio_binary cleanup
stdio_binary_head() {
	atf_set "descr" "1 MiB of random bytes through stdin and stdout, from a file and through pipes"
}
stdio_binary_body() {
	setup_conf
	start_monitor
	head -c 1048576 /dev/urandom > in.bin
	want=$(sha256sum < in.bin)
	run -- /bin/cat < in.bin > out.file || atf_fail "cat from a file failed"
	[ "$(sha256sum < out.file)" = "$want" ] ||
	    atf_fail "file to file: the bytes differ"
	cat in.bin | run -- /bin/cat | cat > out.pipe ||
	    atf_fail "cat between pipes failed"
	[ "$(sha256sum < out.pipe)" = "$want" ] ||
	    atf_fail "pipe to pipe: the bytes differ"
	echo "sha256 in and out: $want"
	stop_monitor
}
stdio_binary_cleanup() {
	common_cleanup
}

atf_test_case stdio_large cleanup
stdio_large_head() {
	atf_set "descr" "50 MiB of output arrive whole and in order"
}
stdio_large_body() {
	setup_conf
	start_monitor
	want=$("$PROBE" spew 52428800 1000 2> err.host | sha256sum)
	got=$(run -p probe -- "$PROBE" spew 52428800 1000 2> err.sbx |
	    sha256sum)
	[ "$got" = "$want" ] || atf_fail "stdout differs: $got, want $want"
	cmp -s err.host err.sbx || atf_fail "stderr differs"
	stop_monitor
}
stdio_large_cleanup() {
	common_cleanup
}

atf_test_case stdin_closed cleanup
stdin_closed_head() {
	atf_set "descr" "a closed stdin reads as /dev/null: immediate EOF"
}
stdin_closed_body() {
	setup_conf
	start_monitor
	atf_check -s exit:0 -o inline:'stdin eof 0\n' -e empty \
	    sh -c "\"$C\" -s \"$SOCK\" run -p probe -- \"$PROBE\" stdin <&-"
	atf_check -s exit:0 -o empty -e empty \
	    sh -c "\"$C\" -s \"$SOCK\" run -- /bin/cat <&-"
	stop_monitor
}
stdin_closed_cleanup() {
	common_cleanup
}

atf_test_case stderr_separate cleanup
stderr_separate_head() {
	atf_set "descr" "stdout and stderr stay separate streams"
}
stderr_separate_body() {
	setup_conf
	start_monitor
	atf_check -s exit:0 -o inline:'out 1\nout 2\n' -e inline:'err 1\nerr 2\n' \
	    "$C" -s "$SOCK" run -- /bin/sh -c \
	    'echo out 1; echo err 1 >&2; echo out 2; echo err 2 >&2'
	stop_monitor
}
stderr_separate_cleanup() {
	common_cleanup
}

atf_test_case signals cleanup
signals_head() {
	atf_set "descr" "SIGINT, SIGTERM and SIGHUP to sbxctl reach the payload"
}
signals_body() {
	setup_conf
	start_monitor
	for sig in INT TERM HUP; do
		rm -f sig.out
		"$C" -s "$SOCK" run -- /bin/sh -c "trap 'echo got $sig; exit 7' $sig
		    echo ready; sleep 600 & wait" > sig.out 2>&1 &
		agent=$!
		echo $agent > agent.pid
		wait_for sig.out '^ready$' 300
		kill -$sig $agent
		wait $agent
		st=$?
		rm agent.pid
		[ $st -eq 7 ] || { cat sig.out; atf_fail "SIG$sig: exit $st, not 7"; }
		grep -q "^got $sig\$" sig.out ||
		    { cat sig.out; atf_fail "SIG$sig did not reach the trap"; }
	done
	stop_monitor
}
signals_cleanup() {
	common_cleanup
}

atf_test_case environment cleanup
environment_head() {
	atf_set "descr" "-e passes only names the profile lists; others are refused with 125"
}
environment_body() {
	setup_conf
	start_monitor
	# Nothing of the caller's environment by default: only the default
	# PATH (sbx.conf(5), env), which a passed PATH replaces.
	P='PATH=/usr/local/bin:/usr/bin:/bin\n'
	atf_check -s exit:0 -o inline:"$P" -e empty env LANG=C.UTF-8 \
	    TERM=xterm SECRET=hunter2 PATH=/x "$C" -s "$SOCK" run -- /usr/bin/env
	# The built-in profile lists LANG and TERM.
	atf_check -s exit:0 -o inline:"LANG=C.UTF-8\nTERM=xterm\n$P" -e empty \
	    env LANG=C.UTF-8 TERM=xterm SECRET=hunter2 \
	    "$C" -s "$SOCK" run -e LANG -e TERM -- /usr/bin/env
	atf_check -s exit:0 -o inline:"LANG=C\n$P" -e empty \
	    "$C" -s "$SOCK" run -e LANG=C -- /usr/bin/env
	# A name the profile does not list: refused, said why, nothing ran.
	atf_check -s exit:125 -o empty \
	    -e match:'env "SECRET" is not in profile "default".s pass-list' \
	    env SECRET=hunter2 "$C" -s "$SOCK" run -e SECRET -- /usr/bin/env
	atf_check -s exit:125 -o empty -e match:'"SECRET" is not in profile' \
	    "$C" -s "$SOCK" run -e SECRET=x -- /usr/bin/env
	atf_check -o not-match:'hunter2' cat "$D/audit.jsonl"
	stop_monitor
}
environment_cleanup() {
	common_cleanup
}

atf_test_case workdir cleanup
workdir_head() {
	atf_set "descr" "-w mounts the caller's directory read-write; the host sees the writes"
}
workdir_body() {
	setup_conf
	start_monitor
	mkdir "$D/work"
	# The sandbox writes as the sandbox-user (a root peer's).
	[ "$(id -u)" -eq 0 ] && chmod 777 "$D/work"
	echo "from the host" > "$D/work/in"
	atf_check -s exit:0 -o inline:'/work\nfrom the host\n' -e empty \
	    "$C" -s "$SOCK" run -w "$D/work" -- /bin/sh -c \
	    'pwd; cat in; echo "from the sandbox" > /work/out; mkdir sub'
	atf_check -o inline:'from the sandbox\n' cat "$D/work/out"
	[ -d "$D/work/sub" ] || atf_fail "directory made inside is missing"
	atf_check -o inline:"$(sbx_sandbox_user)\n" stat -c %U "$D/work/out"
	# Without -w there is no workdir, and nothing of the host's at
	# the path.
	atf_check -s exit:1 -o empty -e empty \
	    "$C" -s "$SOCK" run -- /bin/sh -c 'test -e "$1"' sh "$D/work"
	if [ "$(id -u)" -ne 0 ]; then
		# Not the agent's own directory: refused.
		atf_check -s exit:125 -o empty -e match:'workdir is owned by uid 0' \
		    "$C" -s "$SOCK" run -w /usr -- /bin/true
	fi
	atf_check -s exit:125 -o empty -e match:'-w /nonexistent-sbx' \
	    "$C" -s "$SOCK" run -w /nonexistent-sbx -- /bin/true
	stop_monitor
}
workdir_cleanup() {
	common_cleanup
}

atf_test_case not_runnable cleanup
not_runnable_head() {
	atf_set "descr" "127 not found, 126 not executable, 125 unknown profile"
}
not_runnable_body() {
	setup_conf
	printf '#!/bin/sh\necho ran\n' > "$D/files/noexec"
	chmod 644 "$D/files/noexec"
	start_monitor
	# Not on PATH, and not in the sandbox although on the host.
	atf_check -s exit:127 -o empty -e match:'execve sbx-no-such-command' \
	    "$C" -s "$SOCK" run -- sbx-no-such-command
	atf_check -s exit:127 -o empty -e match:"execve $PROBE" \
	    "$C" -s "$SOCK" run -- "$PROBE" exit 0
	# There, but not executable: a mode 644 file, a directory.
	atf_check -s exit:126 -o empty -e match:'Permission denied' \
	    "$C" -s "$SOCK" run -p probe -- "$D/files/noexec"
	atf_check -s exit:126 -o empty -e match:'Permission denied' \
	    "$C" -s "$SOCK" run -- /usr
	atf_check -s exit:125 -o empty -e match:'no profile "nosuch"' \
	    "$C" -s "$SOCK" run -p nosuch -- /bin/true
	stop_monitor
}
not_runnable_cleanup() {
	common_cleanup
}

# ---- lifetime and hygiene ----------------------------------------------

# fd_counts PID...: "pid:count" for each.
fd_counts() {
	for p in "$@"; do
		echo "$p:$(ls "/proc/$p/fd" | wc -l)"
	done
}

rss_kb() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}

atf_test_case many_sandboxes cleanup
many_sandboxes_head() {
	atf_set "descr" "1,000 sandboxes in a row and 32 at once leave no fds, zombies, mounts or memory behind"
	atf_set "timeout" "300"
}
many_sandboxes_body() {
	setup_conf
	start_monitor
	mon=$(monpid)
	sbx="$mon $(role_pid launcher) $(role_pid proxy) $(role_pid provider-runner)"
	# Warm up: the first sandboxes size buffers, arenas and tables for
	# good, which is growth but not a leak.
	i=0
	while [ $i -lt 50 ]; do
		run -- /bin/true || atf_fail "warm-up run $i failed"
		i=$((i + 1))
	done
	# Settled: the last agent's connection may still be closing.
	fds0=$(fd_counts $sbx)
	i=0
	while sleep 0.1 && [ "$(fd_counts $sbx)" != "$fds0" ]; do
		[ $i -lt 50 ] || atf_fail "descriptor counts do not settle"
		fds0=$(fd_counts $sbx)
		i=$((i + 1))
	done
	rss0=$(rss_kb "$mon")
	lrss0=$(rss_kb "$(role_pid launcher)")
	cp /proc/self/mountinfo mounts.before

	i=0
	while [ $i -lt 1000 ]; do
		run -- /bin/true || atf_fail "run $i of 1000 exited $?"
		i=$((i + 1))
	done
	sbx_warm_served "$D/audit.jsonl" "profile default.*: /bin/true"
	echo "runs served warm: $(grep -c '"event":"spawn".*: warm, ' \
	    "$D/audit.jsonl")"

	# 32 at once: each payload reads a FIFO that the test holds open,
	# so all are alive together until the test lets go.
	mkfifo gate
	exec 3<> gate
	agents=
	i=0
	while [ $i -lt 32 ]; do
		# Without 3>&- each agent would hold a write end too.
		run -- /bin/cat < gate > cat.$i 2>&1 3>&- &
		agents="$agents $!"
		i=$((i + 1))
	done
	i=0
	until [ "$(sandboxes)" = 32 ]; do
		[ $i -lt 600 ] || atf_fail "only $(sandboxes) of 32 sandboxes started"
		sleep 0.1
		i=$((i + 1))
	done
	atf_check -o match:'"sandboxes":32' "$C" -s "$SOCK" --json status
	exec 3>&-
	for a in $agents; do
		wait "$a" || atf_fail "a concurrent sandbox exited $?"
	done

	# Every sandbox has been reported, so every one has been reaped;
	# the monitor may still be closing the last agents' connections.
	[ "$(sandboxes)" = 0 ] || atf_fail "sandboxes still listed"
	i=0
	until [ "$(fd_counts $sbx)" = "$fds0" ]; do
		[ $i -lt 50 ] || break
		sleep 0.1
		i=$((i + 1))
	done
	fds1=$(fd_counts $sbx)
	echo "fds (pid:count) before: $(echo $fds0)"
	echo "fds (pid:count) after:  $(echo $fds1)"
	[ "$fds1" = "$fds0" ] || atf_fail "descriptors leaked: $fds0 -> $fds1"

	# No zombie among the children of any sbx process.
	ps -eo pid=,ppid=,stat=,args= > ps.out
	for p in $sbx; do
		awk -v p="$p" '$2 == p && $3 ~ /^Z/' ps.out > zombies
		[ -s zombies ] && { cat zombies; atf_fail "zombies of $p"; }
	done

	# The sandboxes' mounts lived in their own namespaces.
	cp /proc/self/mountinfo mounts.after
	cmp -s mounts.before mounts.after ||
	    { diff mounts.before mounts.after; atf_fail "host mounts changed"; }

	# Memory: a leak of 2 KiB per sandbox would be 2 MiB over these
	# 1,032; allocator noise after the warm-up stays far below that.
	# A sanitizer build (make sanitize) carries ASan's allocator: its
	# quarantine (1 MiB in the roles, SBX_SANITIZER_ROLE_OPTIONS), size
	# class regions and the store of allocation stacks fill up once, by
	# about 5 MiB here, so there the bound is 8 MiB (8 KiB a sandbox).
	slack=2048
	grep -q __asan_init "$M" && slack=8192
	rss1=$(rss_kb "$mon")
	lrss1=$(rss_kb "$(role_pid launcher)")
	echo "monitor VmRSS: $rss0 kB before, $rss1 kB after 1,032 sandboxes"
	echo "launcher VmRSS: $lrss0 kB before, $lrss1 kB after"
	[ "$rss1" -le $((rss0 + slack)) ] ||
	    atf_fail "monitor VmRSS grew from $rss0 to $rss1 kB"
	[ "$lrss1" -le $((lrss0 + slack)) ] ||
	    atf_fail "launcher VmRSS grew from $lrss0 to $lrss1 kB"
	stop_monitor
}
many_sandboxes_cleanup() {
	common_cleanup
}

atf_test_case agent_gone cleanup
agent_gone_head() {
	atf_set "descr" "kill -9 of sbxctl kills its sandbox: the payload is gone"
}
agent_gone_body() {
	setup_conf
	start_monitor
	mkfifo out.fifo
	# A duration no other process is likely to sleep, to find it by.
	"$C" -s "$SOCK" run -- /bin/sh -c 'echo ready; exec sleep 987.654' \
	    > out.fifo &
	echo $! > agent.pid
	exec 4< out.fifo
	read -r line <&4
	[ "$line" = ready ] || atf_fail "payload said \"$line\""
	# "ready" comes before sh has exec'd sleep: look until it has.
	i=0
	while :; do
		payload=$(ps -eo pid=,args= | awk '$2 == "sleep" &&
		    $3 == "987.654" { print $1 }')
		[ -n "$payload" ] && break
		[ $i -lt 100 ] || atf_fail "cannot find the payload on the host"
		sleep 0.05
		i=$((i + 1))
	done
	kill -9 "$(cat agent.pid)"
	wait "$(cat agent.pid)" 2>/dev/null
	rm agent.pid
	# The payload holds the FIFO's only write end: EOF means it is
	# gone.  The bound only turns a hang into a named failure.
	timeout 60 cat <&4 > /dev/null ||
	    atf_fail "payload still running 60 s after its agent was killed"
	exec 4<&-
	wait_gone "$payload" 100 || atf_fail "payload $payload still exists"
	atf_check -o match:'"event":"kill".*its agent disconnected' \
	    cat "$D/audit.jsonl"
	i=0
	until [ "$(sandboxes)" = 0 ]; do
		[ $i -lt 100 ] || atf_fail "the sandbox is still listed"
		sleep 0.1
		i=$((i + 1))
	done
	stop_monitor
}
agent_gone_cleanup() {
	common_cleanup
}

atf_test_case audit_command cleanup
audit_command_head() {
	atf_set "descr" "a run's audit line names its command's whole path, however long a real path gets (here about 420 bytes); a longer one is cut visibly, ending in '...', never silently"
}
audit_command_body() {
	setup_conf
	start_monitor
	seg=cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc
	long=$D/files
	for i in 1 2 3 4 5 6; do
		long=$long/$seg$i
	done
	longer=$long
	for i in 7 8 9 10 11 12; do
		longer=$longer/$seg$i
	done
	mkdir -p "$longer"
	chmod -R 755 "$D/files"
	cp /bin/true "$long/true"
	cp /bin/true "$longer/true"
	run -p probe -- "$long/true" || atf_fail "the run at a long path failed"
	atf_check -o match:"\"event\":\"spawn\".*: $long/true\"" \
	    cat "$D/audit.jsonl"
	run -p probe -- "$longer/true" ||
	    atf_fail "the run at a longer path failed"
	atf_check -o match:"\"event\":\"spawn\".*: $long/${seg}7/.*\.\.\.\"" \
	    cat "$D/audit.jsonl"
	stop_monitor
}
audit_command_cleanup() {
	common_cleanup
}

atf_init_test_cases() {
	atf_add_test_case escapes
	atf_add_test_case escapes_caller
	atf_add_test_case escapes_range
	atf_add_test_case exit_status
	atf_add_test_case stdio_binary
	atf_add_test_case stdio_large
	atf_add_test_case stdin_closed
	atf_add_test_case stderr_separate
	atf_add_test_case signals
	atf_add_test_case environment
	atf_add_test_case workdir
	atf_add_test_case not_runnable
	atf_add_test_case many_sandboxes
	atf_add_test_case agent_gone
	atf_add_test_case audit_command
}
