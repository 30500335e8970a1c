#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# toolchains.sh: everyday tools in the example configuration's "build"
# profile (issue 22), on etc/sbx.conf itself with only its location
# macros pointed at a private directory (as profiles.sh and make demo do).
# As root the caller is the unprivileged user "sbxtest" (scripts/check
# creates it), as a user that user.  A command typed as in a shell
# (./script, a bare name with no PATH passed), a venv made inside and run
# on the host (workdir same), java, an ASan binary's leak check and
# strace -f (ptrace yes), a ptrace of a process outside refused, the
# callers' caches apart (per-caller), git's default identity.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

setup() {
	# rw $cachedir per-caller: as /var/cache/sbx-build (tmpfiles.d).
	sbx_example_setup sbxtool 1733
	# A second caller, by number only (no passwd entry needed).
	[ "$(id -u)" -eq 0 ] && echo 'allow uid 4242' >> "$D/sbx.conf"
	CUID=$(id -u "$CALLER")
}

# A 0700 project of the caller's, with its files.
project() {
	mkdir "$D/proj"
	cp "$S/top/regress/fixtures/toolchains/"* "$D/proj/" ||
	    atf_fail "no fixtures"
	chmod 755 "$D/proj/run-tests.sh"
	[ "$(id -u)" -eq 0 ] && chown -R "$CALLER" "$D/proj"
	chmod 700 "$D/proj"
}


cleanup() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case build_profile cleanup
build_profile_head() {
	atf_set "descr" "in etc/sbx.conf's build profile: ./script from the workdir, cc with no PATH passed, a venv made inside that runs on the host, java, an ASan leak check, strace -f, ptrace of anything outside refused, git's default identity"
	atf_set "timeout" "300"
	atf_set "require.progs" "cc python3 strace"
}
build_profile_body() {
	setup
	sbx_example_start
	project
	# sbxctl run -p build -w the project, as the caller, with nothing
	# of the caller's environment.
	build="$AS env -i $CU -s $SOCK run -p build -w $D/proj --"

	# argv as typed, from the workdir at its own host path; the default
	# PATH and the profile's HOME, nothing else of the caller's.
	atf_check -s exit:0 -o save:env.out $build ./run-tests.sh env
	atf_check -o inline:"pwd=$D/proj\n" grep '^pwd=' env.out
	atf_check -o inline:"PATH=/usr/local/bin:/usr/bin:/bin\n" \
	    grep '^PATH=' env.out
	atf_check -o inline:"HOME=/home/build\n" grep '^HOME=' env.out
	atf_check -s exit:1 grep -q '^SBXCTL' env.out
	# A bare name is looked up in the sandbox's PATH; a missing one is
	# "not found" (127), as in a shell.
	atf_check -s exit:127 -e match:'execve no-such-command' \
	    $build no-such-command

	# A compile with no PATH passed; what it made is the caller's.
	atf_check -s exit:0 -o inline:"hello from a build\n" \
	    $build sh -c 'cc -o hello hello.c && ./hello'
	atf_check -o inline:"$CALLER\n" stat -c %U "$D/proj/hello"

	# workdir same: a venv made inside names its host path and runs on
	# the host as it is.
	atf_check -s exit:0 $build python3 -m venv --without-pip .venv
	atf_check -o inline:"VIRTUAL_ENV=$D/proj/.venv\n" \
	    sh -c "grep '^VIRTUAL_ENV=' '$D/proj/.venv/bin/activate' | tr -d \"'\\\"\""
	atf_check -s exit:0 -o inline:"$D/proj/.venv\n" $AS \
	    "$D/proj/.venv/bin/python3" -c 'import sys; print(sys.prefix)'

	# ptrace yes: strace -f follows a child; LeakSanitizer (which
	# traces its own threads) reports a leak and fails, passes a clean
	# program.
	atf_check -s exit:0 -o ignore -e match:'execve\("/bin/true"' \
	    $build strace -f -e trace=execve sh -c '/bin/true; :'
	if command -v clang >/dev/null 2>&1; then
		san=clang
	else
		san=cc
	fi
	# Without a cgroup (a user's service with no delegated one) memory
	# is capped by RLIMIT_AS, under which ASan cannot reserve its shadow
	# memory at all: that is the limit's doing, not ptrace's.
	if [ "$($build sh -c 'ulimit -v')" = unlimited ]; then
		atf_check -s exit:0 $build $san -fsanitize=address -g -o leak \
		    leak.c
		atf_check -s not-exit:0 \
		    -e match:'LeakSanitizer: detected memory leaks' $build ./leak
		atf_check -s exit:0 -o inline:"clean\n" $build ./leak clean
	else
		echo "ASan: memory capped by RLIMIT_AS (no cgroup); not checked"
	fi

	# gdb runs a program of the workdir to its end (it cannot turn off
	# address randomization: personality is refused, gdb says so and
	# goes on).
	if command -v gdb >/dev/null 2>&1; then
		atf_check -s exit:0 -o match:'^hello from a build$' \
		    -o match:'exited normally' -e ignore \
		    $build gdb -batch -ex run ./hello
	fi

	# Tracing outside stays impossible: pid 1 (the shim) is not
	# dumpable, and the monitor's pid names nothing in the sandbox's
	# pid namespace; process_vm_readv likewise.
	atf_check -s exit:0 $build cc -o trace trace.c
	atf_check -s exit:0 \
	    -o match:'^attach 1: EPERM$' -o match:'^seize 1: EPERM$' \
	    -o match:'^vm_readv 1: EPERM$' \
	    -o match:"^attach $(cat mon.pid): ESRCH\$" \
	    -o match:'^attach child: ok$' \
	    $build ./trace 1 "$(cat mon.pid)"
	# The default profile has no ptrace at all.
	atf_check -s not-exit:0 -o ignore -e match:'Operation not permitted' \
	    $AS "$CU" -s "$SOCK" run -- /usr/bin/strace -f /bin/true

	# java, with its /etc configuration, and its heap below the
	# profile's memory (4G) when it can see its cgroup.
	if [ -x /usr/bin/java ]; then
		atf_check -s exit:0 -o inline:"hello from java\n" \
		    $build java Hello.java
		if $build test -r /sys/fs/cgroup/memory.max ||
		    $build test -r \
		    /sys/fs/cgroup/memory/memory.limit_in_bytes; then
			atf_check -s exit:0 -o save:heap.out -e ignore $build \
			    java -XX:+PrintFlagsFinal -version
			heap=$(awk '$2 == "MaxHeapSize" { print $4 }' heap.out)
			[ -n "$heap" ] && [ "$heap" -le 4294967296 ] ||
			    atf_fail "MaxHeapSize $heap above memory 4G"
		else
			echo "JVM heap: no cgroup visible inside; not checked"
		fi
	fi

	# git's default identity needs the sandbox user to have a name.
	if $build id -un > /dev/null 2>&1; then
		atf_check -s exit:0 -o match:"^$CALLER <$CALLER@" \
		    $build git var GIT_COMMITTER_IDENT
	else
		echo "git identity: the sandbox user has no name here; not checked"
	fi
}
build_profile_cleanup() {
	cleanup
}

atf_test_case everyday cleanup
everyday_head() {
	atf_set "descr" "in etc/sbx.conf's profiles: a loopback HTTP server and its client (python3 http.server, curl) on 127.0.0.1 and ::1, localhost, whoami, id -un, getent passwd, getpass, ssh -V; multiprocessing.Pool and /dev/shm in the default profile; the build profile's memory limit under /sys/fs/cgroup"
	atf_set "timeout" "300"
	atf_set "require.progs" "python3 curl"
}
everyday_body() {
	setup
	sbx_example_start
	project
	build="$AS env -i $CU -s $SOCK run -p build -w $D/proj --"
	def="$AS env -i $CU -s $SOCK run --"

	# A test that starts a server on the sandbox's own loopback and
	# talks to it, by address and by the name localhost (/etc/hosts).
	atf_check -s exit:0 -o match:'hello from a build' -e ignore $build \
	    sh -c 'python3 -m http.server --bind 127.0.0.1 8765 \
		>/dev/null 2>&1 & i=0
	    until curl -s -o /dev/null http://127.0.0.1:8765/; do
		i=$((i + 1)); [ $i -lt 200 ] || exit 9; sleep 0.05
	    done
	    curl -sf http://localhost:8765/hello.c; r=$?; kill $!; exit $r'
	atf_check -s exit:0 -o inline:"v6 ok\n" $build python3 -c '
import socket
s = socket.socket(socket.AF_INET6)
s.bind(("::1", 0))
s.listen()
c = socket.create_connection(("::1", s.getsockname()[1]))
a, _ = s.accept()
c.sendall(b"v6 ok")
print(a.recv(16).decode())'
	atf_check -s exit:0 -o match:'localhost' $build getent hosts localhost

	# The sandbox user has the caller's name, and nothing else of the
	# host's user database is there.
	atf_check -s exit:0 -o inline:"$CALLER\n" $build whoami
	atf_check -s exit:0 -o inline:"$CALLER\n" $build id -un
	atf_check -s exit:0 -o match:"^$CALLER:x:[0-9]*:[0-9]*:.*:/home/build:/bin/sh\$" \
	    $build sh -c 'getent passwd "$(id -u)"'
	atf_check -s exit:0 -o inline:"$CALLER\n" $build python3 -c \
	    'import getpass; print(getpass.getuser())'
	atf_check -s exit:2 -o empty $build getent passwd root
	if [ -x /usr/bin/ssh ]; then
		atf_check -s exit:0 -e match:'^OpenSSH' $build ssh -V
	fi

	# The default profile: shared memory for multiprocessing.
	atf_check -s exit:0 -o inline:"[0, 1, 4, 9]\n" $def python3 -c '
import multiprocessing
with multiprocessing.Pool(2) as p:
    print(p.map(abs, [0, -1, -4, -9]))'
	atf_check -s exit:0 $def test -d /dev/shm

	# The build profile's memory 4G, read where runtimes look for it;
	# a user's service without a delegated cgroup has none to show.
	lim=$($build sh -c 'cat /sys/fs/cgroup/memory.max 2>/dev/null ||
	    cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null')
	if [ -n "$lim" ]; then
		[ "$lim" = 4294967296 ] ||
		    atf_fail "memory limit inside is $lim, not 4G"
	elif [ "$(id -u)" -eq 0 ]; then
		atf_fail "no memory limit under /sys/fs/cgroup as root"
	else
		echo "memory limit: this service has no cgroup to show"
	fi
}
everyday_cleanup() {
	cleanup
}

atf_test_case workdir_same_refused cleanup
workdir_same_refused_head() {
	atf_set "descr" "workdir same refuses a directory that would hide the profile's own mounts, naming the path and the rule"
}
workdir_same_refused_body() {
	setup
	sbx_example_start
	# The cache directory holds the per-caller mount point.
	[ "$(id -u)" -eq 0 ] && chown "$CALLER" "$D/cache"
	atf_check -s not-exit:0 \
	    -e match:"workdir \"$D/cache\": would hide mount" \
	    $AS "$CU" -s "$SOCK" run -p build -w "$D/cache" -- /bin/true
	if [ "$(id -u)" -eq 0 ]; then
		atf_check -s not-exit:0 \
		    -e match:'workdir same "/etc": would hide or lie in the sandbox.s own /etc' \
		    "$C" -s "$SOCK" run -p build -w /etc -- /bin/true
	fi
}
workdir_same_refused_cleanup() {
	cleanup
}

atf_test_case caches_apart cleanup
caches_apart_head() {
	atf_set "descr" "rw \$cachedir per-caller: each caller's sandbox writes its own 0700 directory, sees no other, and refuses one that is not its own or is a symlink"
	atf_set "require.user" "root"
	atf_set "require.progs" "setpriv"
}
caches_apart_body() {
	setup
	sbx_example_start
	as2="setpriv --reuid=4242 --regid=4242 --clear-groups"
	atf_check -s exit:0 -o inline:"$CUID\n" $AS "$CU" -s "$SOCK" run \
	    -p build -- sh -c "echo one > $D/cache/$CUID/f; ls $D/cache"
	atf_check -s exit:0 -o inline:"4242\n" $as2 "$CU" -s "$SOCK" run \
	    -p build -- sh -c "echo two > $D/cache/4242/f; ls $D/cache"
	atf_check -o inline:"$CALLER 700 one\n" \
	    sh -c "echo \$(stat -c '%U %a' $D/cache/$CUID) \$(cat $D/cache/$CUID/f)"
	atf_check -o inline:"4242 700 two\n" \
	    sh -c "echo \$(stat -c '%u %a' $D/cache/4242) \$(cat $D/cache/4242/f)"
	# Another's directory under one's own uid, or a symlink: refused.
	chown "$CALLER" "$D/cache/4242"
	atf_check -s not-exit:0 -e match:'owned by another user' \
	    $as2 "$CU" -s "$SOCK" run -p build -- /bin/true
	rm -rf "$D/cache/4242"
	ln -s "$D/cache/$CUID" "$D/cache/4242"
	atf_check -s not-exit:0 -e match:'not a symlink' \
	    $as2 "$CU" -s "$SOCK" run -p build -- /bin/true
}
caches_apart_cleanup() {
	cleanup
}

atf_test_case ptrace_table
ptrace_table_head() {
	atf_set "descr" "shim/command-ptrace.priv is shim/command.priv with ptrace and process_vm_* allowed, nothing else changed"
}
ptrace_table_body() {
	sbx_test_paths
	T=$S/top/shim
	body() { sed -n '/^role /,$p' "$1"; }
	body "$T/command.priv" > a
	body "$T/command-ptrace.priv" > b
	atf_check -s exit:1 -o save:d diff a b
	atf_check -o inline:"< role      command\n> role      command-ptrace\n< errno     EPERM ptrace process_vm_readv process_vm_writev  # no tracing, even inside\n> allow     ptrace process_vm_readv process_vm_writev lint-ok \"ptrace yes: debuggers trace the sandbox processes; Linux 4.8 or later\"\n" \
	    grep '^[<>]' d
}

atf_init_test_cases() {
	atf_add_test_case build_profile
	atf_add_test_case everyday
	atf_add_test_case workdir_same_refused
	atf_add_test_case caches_apart
	atf_add_test_case ptrace_table
}
