#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# accounting.sh: what a run cost and which limit held it back (issue 26).
# sbxctl prints one line for each limit that ended or constrained a run
# (memory, pids, cpu, fsize, timeout); cpu-time ends a spinning payload;
# cpus caps a payload to its share of a core; every EXIT event carries
# wall, user and system time, peak memory, tasks started and the bytes
# written to stdout and stderr (relayed by pid 1), sbxctl run --stats prints
# them, the audit log has them and STATUS sums them per uid.  The memory,
# pids and cpus cases need the sandbox's cgroup (as root on a host with
# the cgroup v1 hierarchies) and skip, saying so, without one.

. "$(atf_get_srcdir)/top/regress/limits.subr"

setup() {
	sbx_test_paths
	sbx_test_dir sbxacct
	limits_conf "$D/sbx.conf" \
	    'profile "files" {' '	ro "/usr"' '	tmpfs "/tmp" size 8M' \
	    '	fsize 1M' '}' \
	    'profile "cpu" {' '	ro "/usr"' '	cpu-time 1' '	timeout 60' '}' \
	    'profile "half" {' '	ro "/usr"' '	cpus 0.5' '	timeout 60' '}' \
	    'profile "big" {' '	ro "/usr"' '	memory 512M' '	timeout 60' '}' \
	    'profile "chatty" {' '	ro "/usr"' '	output 100000' '	timeout 60' '}'
	CG=
	[ "$(id -u)" -eq 0 ] &&
	    [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ] &&
	    [ -d /sys/fs/cgroup/pids ] && CG=1
	CPU=
	[ -n "$CG" ] && [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ] && CPU=1
}

cleanup() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case limit_lines cleanup
limit_lines_head() {
	atf_set "descr" "sbxctl names each limit that ended or held back a run on stderr, with the EXIT event's words: timeout, fsize (a file of the payload's, and the caller's file pid 1 relays stdout to), output, memory and pids (the last two with a cgroup)"
}
limit_lines_body() {
	setup
	start_monitor
	atf_check -s exit:124 -e match:'^sbxctl: limit timeout: ' \
	    "$C" -s "$SOCK" run -p short -- /bin/sleep 30
	atf_check -s exit:153 -e match:'^sbxctl: limit fsize: ' \
	    "$C" -s "$SOCK" run -p files -- /usr/bin/dd \
	    if=/dev/zero of=/tmp/big bs=64k count=64
	# The same limit holds pid 1 relaying into the caller's file: the
	# file stops at 1 MiB and the payload's next write gets SIGPIPE.
	atf_check -s exit:141 -o save:big.out \
	    -e match:'^sbxctl: limit fsize: the file the payload.s output' \
	    "$C" -s "$SOCK" run -p files -- /usr/bin/dd if=/dev/zero \
	    bs=64k count=64 status=none
	atf_check -o inline:'1048576\n' stat -c %s big.out
	# output: exactly the limit passes; one byte more ends the run,
	# and what got through is the limit's worth.
	atf_check -s exit:0 -o save:at.out -e save:at.err \
	    "$C" -s "$SOCK" run -p chatty -- /bin/sh -c \
	    'head -c 60000 /dev/zero; head -c 40000 /dev/zero >&2'
	atf_check -s exit:137 -o save:over.out \
	    -e match:'^sbxctl: limit output: the payload wrote more than' \
	    "$C" -s "$SOCK" run -p chatty -- /usr/bin/yes
	atf_check -o inline:'60000\n40000\n100000\n' \
	    stat -c %s at.out at.err over.out
	# Under every limit: no line.
	atf_check -s exit:0 -e empty "$C" -s "$SOCK" run -p small -- /bin/true
	if [ -z "$CG" ]; then
		stop_monitor
		atf_skip "memory and pids: no cgroup for the sandbox (not root, or no cgroup v1 memory and pids hierarchies); timeout, fsize and output checked"
	fi
	atf_check -s exit:0 -o match:"^[1-9] killed$" \
	    -e match:'^sbxctl: limit memory: ' \
	    "$C" -s "$SOCK" run -p small -- /usr/bin/python3 -c "$BOMB"
	atf_check -s ignore -o ignore -e match:'^sbxctl: limit pids: ' \
	    "$C" -s "$SOCK" run -p small -- /bin/sh -c '
		n=0
		while [ $n -lt 100 ]; do /bin/sleep 5 & n=$((n + 1)); done'
	stop_monitor
}
limit_lines_cleanup() {
	cleanup
}

atf_test_case cpu_time cleanup
cpu_time_head() {
	atf_set "descr" "cpu-time 1: a spinning payload is killed by SIGXCPU at its CPU time, and sbxctl says the cpu limit ended it"
}
cpu_time_body() {
	setup
	start_monitor
	atf_check -s exit:152 -e match:'^sbxctl: limit cpu: ' \
	    "$C" -s "$SOCK" run -p cpu -- /bin/sh -c 'while :; do :; done'
	atf_check -s exit:152 -o match:'"limit":"cpu"' \
	    -o match:'"reason":"limit"' -o match:'"signal":24' \
	    sh -c "'$C' -s '$SOCK' --json run -p cpu -- /bin/sh -c \
	    'while :; do :; done' 2>&1 >/dev/null"
	atf_check -o match:'the sandbox used its cpu-time' \
	    cat "$D/audit.jsonl"
	stop_monitor
}
cpu_time_cleanup() {
	cleanup
}

# Spins for 2 s of wall time and prints its own CPU seconds and the wall
# seconds it took.
SPIN='import time
w0 = time.monotonic(); c0 = time.process_time()
while time.monotonic() - w0 < 2:
    pass
print("%.3f %.3f" % (time.process_time() - c0, time.monotonic() - w0))'

atf_test_case cpus cleanup
cpus_head() {
	atf_set "descr" "cpus 0.5: a spinning payload gets at most half a core (and the cpu line says the quota throttled it); refused where the sandbox has no cgroup cpu controller"
}
cpus_body() {
	setup
	start_monitor
	if [ -z "$CPU" ]; then
		atf_check -s exit:125 -e match:'cpus 0\.500' \
		    "$C" -s "$SOCK" run -p half -- /bin/true
		stop_monitor
		atf_skip "no cgroup cpu controller for the sandbox (not root, or no cgroup v1 cpu hierarchy): only the refusal checked"
	fi
	"$C" -s "$SOCK" run -p half -- /usr/bin/python3 -c "$SPIN" \
	    >spin.out 2>spin.err || atf_fail "run: $(cat spin.err)"
	# A quota can only lower what the payload gets, and a loaded
	# machine lowers it further: so the check is an upper bound,
	# usage <= 0.5 * wall * 1.2 (20% for the quota's 100 ms periods
	# at the start and end of the run), never a lower one.  Without
	# the quota a spinning payload uses ~1.0 * wall.
	read used wall <spin.out
	echo "cpus 0.5: $used s of CPU in $wall s"
	awk -v u="$used" -v w="$wall" 'BEGIN { exit !(u > 0 && u <= 0.5 * w * 1.2) }' ||
	    atf_fail "cpus 0.5: used $used s of CPU in $wall s"
	# The quota held it back (the cpu line), unless the machine was so
	# loaded that it never reached the quota: then it got less.
	grep -q '^sbxctl: limit cpu: the cpus quota throttled' spin.err ||
	    awk -v u="$used" -v w="$wall" 'BEGIN { exit !(u <= 0.5 * w) }' ||
	    atf_fail "cpus 0.5: $used s of CPU in $wall s and no cpu line: $(cat spin.err)"
	stop_monitor
}
cpus_cleanup() {
	cleanup
}

# Allocates and touches 200 MiB, then burns CPU until its own CPU time is
# 0.5 s.
WORK='import time
b = bytearray(200 * 1024 * 1024)
for i in range(0, len(b), 4096):
    b[i] = 1
while time.process_time() < 0.5:
    pass
print("done")'

atf_test_case stats cleanup
stats_head() {
	atf_set "descr" "--stats: wall, user and system time and peak memory of a payload that burns ~0.5 s of CPU and touches 200 MiB; the same in the audit log and summed in STATUS"
}
stats_body() {
	setup
	start_monitor
	"$C" -s "$SOCK" run --stats -p big -- /usr/bin/python3 -c "$WORK" \
	    >work.out 2>work.err || atf_fail "run: $(cat work.err)"
	atf_check -o inline:'done\n' cat work.out
	line=$(grep '^sbxctl: stats: ' work.err) ||
	    atf_fail "no stats line: $(cat work.err)"
	val() {
		echo "$line" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"
	}
	cpu=$(($(val user_ms) + $(val sys_ms)))
	[ "$cpu" -ge 300 ] && [ "$cpu" -le 1500 ] ||
	    atf_fail "CPU $cpu ms for ~500 ms of work: $line"
	[ "$(val peak_memory)" -ge $((200 * 1024 * 1024)) ] ||
	    atf_fail "peak below 200 MiB: $line"
	[ "$(val wall_ms)" -ge "$cpu" ] ||
	    atf_fail "wall below user + sys for one process: $line"
	if [ -n "$CG" ]; then
		echo "$line" | grep -q 'peak_source=cgroup' ||
		    atf_fail "peak not from the cgroup: $line"
	else
		echo "$line" | grep -q 'peak_source=rusage' ||
		    atf_fail "peak not from the rusage: $line"
	fi
	# The audit log's exit record carries the same figures.
	atf_check -o match:'"stats":\{"wall_ms":[0-9]+,"user_ms":[0-9]+' \
	    grep '"event":"exit"' "$D/audit.jsonl"
	# STATUS: the peer's uid ran one sandbox.
	atf_check -o match:"\"usage\":\\[\\{\"uid\":$(id -u),\"runs\":1," \
	    "$C" -s "$SOCK" --json status
	atf_check -o match:"^usage uid $(id -u) +1 runs, wall " \
	    "$C" -s "$SOCK" status
	stop_monitor
}
stats_cleanup() {
	cleanup
}

atf_test_case relay cleanup
relay_head() {
	atf_set "descr" "tasks and the bytes pid 1 relays: a payload that starts 5 processes reports at least 6 tasks; K bytes on stdout and L on stderr arrive intact, each stream in order, and are counted exactly; 10 MiB through a slow reader; a reader that goes away ends the payload with SIGPIPE and the stats say EPIPE; a background grandchild holding the pipes does not keep the run alive; pty output counts as stdout"
}
relay_body() {
	setup
	start_monitor
	val() {
		echo "$line" | sed -n "s/.* $1=\([0-9A-Z]*\).*/\1/p"
	}
	# 5 children of the shell: the payload and they are 6 tasks.
	atf_check -s exit:0 -o inline:'5\n' -e save:tasks.err \
	    "$C" -s "$SOCK" run --stats -p small -- /bin/sh -c \
	    'n=0; while [ $n -lt 5 ]; do /bin/true; n=$((n + 1)); done; echo $n'
	line=$(grep '^sbxctl: stats: ' tasks.err) ||
	    atf_fail "no stats line: $(cat tasks.err)"
	[ "$(val tasks)" -ge 6 ] || atf_fail "fewer than 6 tasks: $line"
	[ "$(val stdout_bytes)" -eq 2 ] && [ "$(val stderr_bytes)" -eq 0 ] ||
	    atf_fail "echo 5 is 2 bytes on stdout, none on stderr: $line"

	# K then L random bytes on stdin: the first K go to stdout, the
	# next L to stderr, where sbxctl's own line follows them.
	head -c 300007 /dev/urandom >in
	head -c 300007 in >want.out
	head -c 70001 /dev/urandom >>in
	tail -c 70001 in >want.err
	"$C" -s "$SOCK" run --stats -p small -- /bin/sh -c '
	    dd bs=300007 count=1 iflag=fullblock status=none
	    dd bs=70001 count=1 iflag=fullblock status=none >&2' \
	    <in >got.out 2>got.err || atf_fail "run: $(tail -n 3 got.err)"
	line=$(grep -a -o 'sbxctl: stats: .*' got.err) ||
	    atf_fail "no stats line"
	atf_check -o save:sum.out sha256sum <got.out
	atf_check -o file:sum.out sha256sum <want.out
	head -c 70001 got.err >got.err1
	atf_check -o save:sum.err sha256sum <got.err1
	atf_check -o file:sum.err sha256sum <want.err
	[ "$(val stdout_bytes)" -eq 300007 ] &&
	    [ "$(val stderr_bytes)" -eq 70001 ] ||
	    atf_fail "counted wrong, want 300007 and 70001: $line"

	# 10 MiB into a pipe whose reader starts a moment later: the
	# payload blocks on its full pipe meanwhile, and nothing is lost.
	head -c 10485760 /dev/urandom >big
	atf_check -o save:sum.big sha256sum <big
	"$C" -s "$SOCK" run --stats -p small -- /bin/cat <big 2>big.err |
	    { sleep 0.3; sha256sum; } >got.big
	atf_check -o file:sum.big cat got.big
	atf_check -o match:' stdout_bytes=10485760 stderr_bytes=0$' \
	    grep '^sbxctl: stats: ' big.err

	# The caller's reader goes away: pid 1 survives and reports EPIPE,
	# the payload gets SIGPIPE on its pipe as it would have directly.
	{ "$C" -s "$SOCK" run --stats -p small -- /usr/bin/yes 2>yes.err
	    echo $? >yes.rc; } | head -n 1 >/dev/null
	atf_check -o inline:'141\n' cat yes.rc
	atf_check -o match:' stdout_error=EPIPE$' grep '^sbxctl: stats: ' \
	    yes.err

	# A grandchild that keeps the pipes open does not keep the run
	# alive: pid 1 drains what is there and ends with the payload.
	atf_check -s exit:0 -o inline:'hi\n' -e empty \
	    "$C" -s "$SOCK" run -p small -- /bin/sh -c '/bin/sleep 100 & echo hi'

	# With a pty pid 1 relays the pty, which is stdout and stderr both.
	atf_check -s exit:0 -o inline:'12345678' -e save:pty.err \
	    "$C" -s "$SOCK" run -T --stats -p small -- /bin/sh -c \
	    'printf 12345; printf 678 >&2' </dev/null
	atf_check -o match:' stdout_bytes=8 stderr_bytes=0$' \
	    grep '^sbxctl: stats: ' pty.err

	# The audit log and STATUS carry them too.
	atf_check -o match:'"tasks":[0-9]+,"stdout_bytes":300007,"stderr_bytes":70001' \
	    grep '"event":"exit"' "$D/audit.jsonl"
	atf_check -o match:'"stdout_error":"EPIPE"' \
	    grep '"event":"exit"' "$D/audit.jsonl"
	atf_check -o match:"\"usage\":\\[\\{\"uid\":$(id -u),\"runs\":6,.*\"stderr_bytes\":70001" \
	    "$C" -s "$SOCK" --json status
	stop_monitor
}
relay_cleanup() {
	cleanup
}

atf_init_test_cases() {
	atf_add_test_case limit_lines
	atf_add_test_case cpu_time
	atf_add_test_case cpus
	atf_add_test_case stats
	atf_add_test_case relay
}
