#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# conf.sh: sbx-monitor -n against real files -- the shipped example, the
# example in sbx.conf(5), bad and missing files, option handling -- and the
# man pages' lint.

# atf_check runs programs, not shell functions: each body sets these.
paths() {
	M="$(atf_get_srcdir)/../sbin/sbx-monitor"
	T="$(atf_get_srcdir)/top"
}

atf_test_case example_ok
example_ok_head() {
	atf_set "descr" "the shipped etc/sbx.conf passes -n"
}
example_ok_body() {
	paths
	atf_check -s exit:0 -o empty -e inline:"configuration OK\n" \
	    "$M" -n -f "$T/etc/sbx.conf"
}

atf_test_case dump_roundtrip
dump_roundtrip_head() {
	atf_set "descr" "-nv prints a configuration that reads back the same"
}
dump_roundtrip_body() {
	paths
	umask 022
	atf_check -s exit:0 -o save:d1.conf -e inline:"configuration OK\n" \
	    "$M" -nv -f "$T/etc/sbx.conf"
	atf_check -s exit:0 -o file:d1.conf -e ignore "$M" -nv -f d1.conf
	atf_check -o match:'^profile "fetch" \{$' cat d1.conf
	atf_check -o match:'^	allow-domain "\*\.example\.com:443"$' cat d1.conf
}

atf_test_case man_example
man_example_head() {
	atf_set "descr" "the example in sbx.conf(5) EXAMPLES passes -n"
}
man_example_body() {
	paths
	umask 022
	awk '/^\.Sh EXAMPLES/ { ex = 1 }
	    ex && /^\.Ed/ { exit }
	    ex && lit { print }
	    ex && /^\.Bd -literal/ { lit = 1 }' \
	    "$T/man/sbx.conf.5" > example.conf
	atf_check -o match:'^profile "fetch" \{$' cat example.conf
	atf_check -s exit:0 -o match:'^max-sandboxes 32$' \
	    -e inline:"configuration OK\n" "$M" -nv -f example.conf
}

atf_test_case bad_file
bad_file_head() {
	atf_set "descr" "a bad file exits 1 and names every error"
}
bad_file_body() {
	paths
	umask 022
	printf 'socket "/run/sbx.sock"\nmax-sandboxes 0\n' > bad.conf
	printf 'profile "p" {\n\tmemory 1T\n}\nsockett "/x"\n' >> bad.conf
	cat > expected <<'EOF'
sbx-monitor: bad.conf:2: max-sandboxes: "0" is too small (1..4096)
sbx-monitor: bad.conf:4: memory: "1T" is not a size (a number with an optional K, M or G suffix)
sbx-monitor: bad.conf:6: unknown keyword "sockett"
EOF
	atf_check -s exit:1 -o empty -e file:expected "$M" -n -f bad.conf
}

atf_test_case missing_file
missing_file_head() {
	atf_set "descr" "a missing or unsafe file exits 1 and says why"
}
missing_file_body() {
	paths
	atf_check -s exit:1 -o empty \
	    -e inline:"sbx-monitor: nonexistent.conf: No such file or directory\n" \
	    "$M" -n -f nonexistent.conf
	printf 'max-sandboxes 4\n' > open.conf
	chmod 666 open.conf
	atf_check -s exit:1 -o empty \
	    -e inline:"sbx-monitor: open.conf: writable by group or others\n" \
	    "$M" -n -f open.conf
}

atf_test_case options
options_head() {
	atf_set "descr" "usage errors, -s, -n -v and -P"
}
options_body() {
	paths
	umask 022
	usage='usage: sbx-monitor \[-dhnvP\] \[-D macro=value\] \[-f file\] \[-s socket\]'
	atf_check -s exit:1 -o empty -e match:"^$usage\$" "$M" -x
	# Asked for: the same line on stdout, and success.
	atf_check -s exit:0 -o match:"^$usage\$" -e empty "$M" -h
	atf_check -s exit:1 -o empty -e match:"^$usage\$" "$M" -n extra
	atf_check -s exit:1 -o empty -e match:"^$usage\$" "$M" -f
	printf 'max-sandboxes 4\n' > ok.conf
	atf_check -s exit:0 -o match:'^socket "/tmp/other\.sock"$' \
	    -e inline:"configuration OK\n" \
	    "$M" -n -v -s /tmp/other.sock -f ok.conf
	atf_check -s exit:1 -o empty \
	    -e inline:"sbx-monitor: -s \"rel.sock\": is not an absolute path\n" \
	    "$M" -n -s rel.sock -f ok.conf
	# -D defines a macro before the file is read; the file's own
	# definition of that name becomes a default it cannot override.
	printf 'dir = "/var/x"\nlog-file $dir/audit.jsonl\n' > macro.conf
	atf_check -s exit:0 -o match:'^log-file "/var/x/audit.jsonl"$' \
	    -e ignore "$M" -n -v -f macro.conf
	atf_check -s exit:0 -o match:'^log-file "/tmp/y/audit.jsonl"$' \
	    -e ignore "$M" -n -v -D dir=/tmp/y -f macro.conf
	atf_check -s exit:1 -o empty \
	    -e inline:"sbx-monitor: -D \"socket=/x\": is a keyword\n" \
	    "$M" -n -D socket=/x -f macro.conf
	atf_check -s exit:1 -o empty \
	    -e inline:"sbx-monitor: -D \"dir\": expected name=value\n" \
	    "$M" -n -D dir -f macro.conf
	# -P needs no configuration: it prints the compiled tables.
	atf_check -s exit:0 -o match:'^role      monitor$' \
	    -o match:'^role      shim$' -o match:'^role      command$' \
	    -e empty "$M" -P -f /nonexistent
}

atf_test_case man_lint
man_lint_head() {
	atf_set "descr" "sbx.conf(5) and sbx-monitor(8) are mandoc -Tlint clean"
	atf_set "require.progs" "mandoc"
}
man_lint_body() {
	paths
	# -Wwarning: the style notes about cross references to pages that
	# are not installed yet are not defects of the pages.
	atf_check -s exit:0 -o empty -e empty mandoc -Tlint -Wwarning \
	    "$T/man/sbx.conf.5" "$T/man/sbx-monitor.8"
}

atf_init_test_cases() {
	atf_add_test_case example_ok
	atf_add_test_case dump_roundtrip
	atf_add_test_case man_example
	atf_add_test_case bad_file
	atf_add_test_case missing_file
	atf_add_test_case options
	atf_add_test_case man_lint
}
