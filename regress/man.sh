#! /usr/bin/env atf-sh
#
# man.sh: the manual pages are clean under mandoc's linter, refer only to
# pages that exist, and document every option and command the programs'
# own usage messages name -- and nothing those messages do not.

paths() {
	S=$(atf_get_srcdir)
	B=$S/..
	MAN=$S/top/man
	M=$B/sbin/sbx-monitor
	C=$B/bin/sbxctl
}

# synopsis PAGE: the SYNOPSIS section of an mdoc page.
synopsis() {
	sed -n '/^\.Sh SYNOPSIS/,/^\.Sh DESCRIPTION/p' "$1"
}

# documented PAGE MACRO WORD: the page has a list entry ".It MACRO WORD".
documented() {
	grep -q "^\.It $2 $3\( \|\$\)" "$1"
}

atf_test_case lint
lint_head() {
	atf_set "descr" "every page under man/ is clean under mandoc -Tlint -W warning"
	atf_set "require.progs" "mandoc"
}
lint_body() {
	paths
	for p in sbx-monitor.8 sbxctl.1 sbx-protocol.7 sbx.conf.5 sbx.priv.5; do
		[ -f "$MAN/$p" ] || atf_fail "man/$p is missing"
	done
	n=0
	for p in "$MAN"/*.[1-9]; do
		n=$((n + 1))
		# Any diagnostic at all is a failure, not just the exit code.
		atf_check -s exit:0 -o empty -e empty \
		    mandoc -Tlint -W warning "$p"
		# Cross references to sbx pages name pages that exist.
		sed -n 's/^\.Xr \(sbx[a-z.-]*\) \([1-9]\).*/\1.\2/p' "$p" |
		    sort -u > xrefs
		while read -r x; do
			[ -f "$MAN/$x" ] ||
			    atf_fail "$(basename "$p") refers to $x, which does not exist"
		done < xrefs
	done
	[ $n -ge 5 ] || atf_fail "only $n pages found under $MAN"
}

atf_test_case monitor_options
monitor_options_head() {
	atf_set "descr" "sbx-monitor.8 documents exactly the options of sbx-monitor's usage line"
}
monitor_options_body() {
	paths
	page=$MAN/sbx-monitor.8
	# An operand is a usage error: the usage line on stderr, exit 1.
	atf_check -s exit:1 -o empty -e save:usage "$M" stray-operand
	line=$(grep '^usage: sbx-monitor ' usage) ||
	    atf_fail "no usage line: $(cat usage)"
	# "[-dnvP]" gives d n v P; "[-f file]" gives f.
	echo "$line" | grep -o '\[-[A-Za-z0-9]*' | sed 's/^\[-//' |
	    fold -w1 | grep . > letters
	[ "$(wc -l < letters)" -ge 7 ] ||
	    atf_fail "found only $(tr '\n' ' ' < letters) in: $line"
	synopsis "$page" > syn
	while read -r l; do
		documented "$page" Fl "$l" ||
		    atf_fail "option -$l is in the usage line, not described in sbx-monitor.8"
		grep -q "Fl [A-Za-z0-9]*$l" syn ||
		    atf_fail "option -$l is missing from the SYNOPSIS of sbx-monitor.8"
	done < letters
	# And nothing the program does not take.
	sed -n 's/^\.It Fl \([A-Za-z0-9]\)\( .*\)\{0,1\}$/\1/p' "$page" > described
	[ -s described ] || atf_fail "sbx-monitor.8 describes no option"
	while read -r l; do
		grep -qx "$l" letters ||
		    atf_fail "sbx-monitor.8 describes -$l, which is not in: $line"
	done < described
}

atf_test_case sbxctl_commands
sbxctl_commands_head() {
	atf_set "descr" "sbxctl.1 documents exactly the commands and options of sbxctl's usage"
}
sbxctl_commands_body() {
	paths
	page=$MAN/sbxctl.1
	# No command word is a usage error: exit 2, the synopsis on stderr.
	atf_check -s exit:2 -o empty -e save:usage "$C"
	awk '$1 == "sbxctl" { print $2 }' usage > cmds
	[ "$(wc -l < cmds)" -ge 4 ] ||
	    atf_fail "found only $(tr '\n' ' ' < cmds) in: $(cat usage)"
	synopsis "$page" > syn
	while read -r c; do
		documented "$page" Cm "$c" ||
		    atf_fail "command $c is in sbxctl's usage, not described in sbxctl.1"
		grep -q "^\.Cm $c\( \|\$\)" syn ||
		    atf_fail "command $c is missing from the SYNOPSIS of sbxctl.1"
	done < cmds
	sed -n 's/^\.It Cm \([a-z-]*\).*/\1/p' "$page" > described
	[ -s described ] || atf_fail "sbxctl.1 describes no command"
	while read -r c; do
		grep -qx "$c" cmds ||
		    atf_fail "sbxctl.1 describes command $c, which sbxctl does not list"
	done < described
	# The global options of the first usage line: -s and --json.
	line=$(grep '^usage: sbxctl ' usage) || atf_fail "no usage line"
	{
		echo "$line" | grep -o '\[-[A-Za-z0-9]\{1,\}' | sed 's/^\[-//' |
		    fold -w1
		echo "$line" | grep -o '\[--[a-z-]*' | sed 's/^\[-//'
	} | grep . > opts
	[ "$(wc -l < opts)" -ge 2 ] || atf_fail "no options in: $line"
	while read -r o; do
		documented "$page" Fl "$o" ||
		    atf_fail "option -$o is in sbxctl's usage, not described in sbxctl.1"
	done < opts
}

atf_init_test_cases() {
	atf_add_test_case lint
	atf_add_test_case monitor_options
	atf_add_test_case sbxctl_commands
}
