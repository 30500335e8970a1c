#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# profiles.sh: every profile of the example configuration, etc/sbx.conf,
# works as written.  The monitor runs on the file itself with only its
# location macros pointed at a private directory (as make demo does); as
# root the caller is the unprivileged user "sbxtest", the service user
# is the example's "_sbx" and its sandbox-user "_sbxsandbox" (scripts/check
# creates all three), as a user all are that user.  Each profile starts a dynamic program; "build" compiles
# a C program in a 0700 project of the caller's and runs it, and what it
# made belongs to the caller; "fetch" goes through sbx-proxy, which
# refuses it a local upstream on 127.0.0.1 and its denied name.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

setup() {
	sbx_example_setup sbxprof 1777
	# identity service: the example's sandbox-user, not _sbx.
	if [ "$(id -u)" -eq 0 ]; then
		id _sbxsandbox >/dev/null 2>&1 ||
		    atf_fail "user _sbxsandbox is missing"
		SERVICE=_sbxsandbox
	else
		SERVICE=$CALLER
	fi
}

stop_monitor() {
	kill -TERM "$(cat mon.pid)"
	wait "$(cat mon.pid)" || { cat mon.log; atf_fail "monitor exit"; }
}

caller_dir() {
	mkdir "$D/$1"
	[ "$(id -u)" -eq 0 ] && chown "$CALLER:$(id -gn "$CALLER")" "$D/$1"
	chmod "$2" "$D/$1"
}

cleanup() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f upstream.pid ] && kill -9 "$(cat upstream.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case example_checks cleanup
example_checks_head() {
	atf_set "descr" "etc/sbx.conf checks, and lists the profiles default, fetch, build and strict"
}
example_checks_body() {
	setup
	# shellcheck disable=SC2086
	atf_check -s exit:0 -o save:dump -e inline:"configuration OK\n" \
	    "$M" -n -v $DEFS -f "$D/sbx.conf"
	for p in default fetch build strict; do
		grep -q "^profile \"$p\" {" dump ||
		    atf_fail "profile $p is missing from the example"
	done
}
example_checks_cleanup() {
	cleanup
}

atf_test_case every_profile cleanup
every_profile_head() {
	atf_set "descr" "each profile of etc/sbx.conf runs a dynamic program; build compiles and runs C in the caller's 0700 project, owned by the caller; strict executes nothing it can write"
}
every_profile_body() {
	setup
	sbx_example_start

	# default: a dynamic program, as the caller.
	atf_check -s exit:0 -o inline:"default-ok\n" \
	    $AS "$CU" -s "$SOCK" run -- /bin/sh -c 'echo default-ok'

	# build: a C program built and run in the caller's project.
	caller_dir proj 700
	printf '#include <stdio.h>\nint main(void){puts("built-ok");return 0;}\n' \
	    > "$D/hello.c"
	chmod 644 "$D/hello.c"
	$AS cp "$D/hello.c" "$D/proj/hello.c" || atf_fail "cp as caller"
	atf_check -s exit:0 -o inline:"built-ok\n" \
	    $AS env PATH=/usr/bin:/bin "$CU" -s "$SOCK" run -p build -e PATH \
	    -e HOME=/home/build -w "$D/proj" -- /bin/sh -c \
	    'cc -o hello hello.c && ./hello && ls /lib64 >/dev/null'
	atf_check -o inline:"$CALLER\n" stat -c %U "$D/proj/hello"
	atf_check -s exit:0 -o inline:"built-ok\n" $AS "$D/proj/hello"

	# strict: the sandbox-user (never the service user), nothing it
	# writes executes.  The workdir is the caller's (sbx-monitor refuses
	# another's), open to the sandbox-user the sandbox runs as.
	caller_dir open 777
	cp /bin/true "$D/open/t"
	chmod 755 "$D/open/t"
	atf_check -s exit:0 -o inline:"strict-ok\n" \
	    $AS "$CU" -s "$SOCK" run -p strict -w "$D/open" -- /bin/sh -c \
	    'echo strict-ok; echo x > /work/made'
	atf_check -o inline:"$SERVICE\n" stat -c %U "$D/open/made"
	atf_check -s exit:126 -o empty -e match:"Permission denied" \
	    $AS "$CU" -s "$SOCK" run -p strict -w "$D/open" -- /work/t

	# fetch: through sbx-proxy only, to what its rules allow: not the
	# host's loopback (the example has no such allow-cidr: it reaches
	# no host service), not private.example.com.
	sbx_upstream_test "$D/up.port"
	up=$UP
	atf_check -s exit:0 -o match:"^HTTP/1.1 403" \
	    -o match:"^X-Sbx-Error: .*address 127.0.0.1 is not a name and no allow-cidr covers it" \
	    $AS "$CU" -s "$SOCK" run -p fetch -- /usr/bin/curl -sS -m 10 \
	    -D - -o /dev/null "http://127.0.0.1:$up/fetched"
	atf_check -s exit:0 -o match:"^HTTP/1.1 403" \
	    -o match:"^X-Sbx-Error: .*deny-domain" \
	    $AS "$CU" -s "$SOCK" run -p fetch -- /usr/bin/curl -sS -m 10 \
	    -D - -o /dev/null "http://private.example.com/"
	stop_monitor
}
every_profile_cleanup() {
	cleanup
}

atf_init_test_cases() {
	atf_add_test_case example_checks
	atf_add_test_case every_profile
}
