#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
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
	for p in sbx-monitor.8 sbxctl.1 sbx-protocol.7 sbx.conf.5 sbx.priv.5 \
	    sbx_connect.3; do
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

atf_test_case sbxctl_options
sbxctl_options_head() {
	atf_set "descr" "sbxctl.1 documents every option of every command in sbxctl's usage"
}
sbxctl_options_body() {
	paths
	page=$MAN/sbxctl.1
	atf_check -s exit:2 -o empty -e save:usage "$C"
	# "[-p profile]" gives -p, "--records" gives --records; a dash
	# inside a word ("seal-holdout") starts no option.
	awk '$1 == "sbxctl" { $1 = $2 = ""; print }' usage |
	    grep -o -- '\(^\|[ [|]\)-\{1,2\}[a-z][a-z-]*' |
	    sed 's/^[ [|]//' | sort -u > opts
	[ "$(wc -l < opts)" -ge 6 ] || atf_fail "found only $(tr '\n' ' ' < opts)"
	while read -r o; do
		grep -q -- "Fl ${o#-}\( \|\$\)" "$page" ||
		    atf_fail "option $o is in sbxctl's usage, not in sbxctl.1"
	done < opts
}

atf_test_case conf_keywords
conf_keywords_head() {
	atf_set "descr" "sbx.conf.5 describes every keyword of the parser's table"
}
conf_keywords_body() {
	paths
	sed -n '/^static const struct keyword/,/^};/p' "$S/top/conf/parse.c" |
	    sed -n 's/^[[:space:]]*{ "\([a-z-]*\)".*/\1/p' > kws
	[ "$(wc -l < kws)" -ge 30 ] || atf_fail "found only $(wc -l < kws) keywords in parse.c"
	while read -r k; do
		documented "$MAN/sbx.conf.5" Ic "$k" ||
		    atf_fail "keyword $k is not described in sbx.conf.5"
	done < kws
}

atf_test_case priv_keywords
priv_keywords_head() {
	atf_set "descr" "sbx.priv.5 describes every keyword and action of the privilege file parser"
}
priv_keywords_body() {
	paths
	sed -n '/^static const char \*rank_names/,/^};/p' \
	    "$S/top/common/priv_parse.c" | grep -o '"[^"]*"' | tr -d '"' |
	    awk '{ print $1 }' | tr '/' '\n' | sed 's/ rules$//' | sort -u > kws
	[ "$(wc -l < kws)" -ge 10 ] || atf_fail "found only $(tr '\n' ' ' < kws)"
	while read -r k; do
		documented "$MAN/sbx.priv.5" Ic "$k" ||
		    documented "$MAN/sbx.priv.5" Cm "$k" ||
		    atf_fail "keyword $k is not described in sbx.priv.5"
	done < kws
}

atf_test_case library
library_head() {
	atf_set "descr" "every function of sbx.h has a section 3 page, and every page names only functions of sbx.h"
}
library_body() {
	paths
	sed -n 's/^[a-z].*[ *]\(sbx_[a-z_]*\)(.*/\1/p' "$S/top/libsbx/sbx.h" |
	    sort -u > declared
	[ "$(wc -l < declared)" -ge 10 ] ||
	    atf_fail "found only $(tr '\n' ' ' < declared) in sbx.h"
	cat "$MAN"/*.3 | sed -n 's/^\.Nm \([a-z_]*\).*/\1/p' | sort -u > named
	cat "$MAN"/*.3 | sed -n 's/^\.Fn \([a-z_]*\) .*/\1/p' | sort -u > synopses
	while read -r f; do
		grep -qx "$f" named ||
		    atf_fail "$f (sbx.h) is not in the NAME of a man/*.3 page"
		grep -qx "$f" synopses ||
		    atf_fail "$f (sbx.h) has no .Fn synopsis in man/*.3"
	done < declared
	while read -r f; do
		grep -qx "$f" declared ||
		    atf_fail "man/*.3 names $f, which sbx.h does not declare"
	done < named
}

atf_init_test_cases() {
	atf_add_test_case lint
	atf_add_test_case monitor_options
	atf_add_test_case sbxctl_commands
	atf_add_test_case sbxctl_options
	atf_add_test_case conf_keywords
	atf_add_test_case priv_keywords
	atf_add_test_case library
}
