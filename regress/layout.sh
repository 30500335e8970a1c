#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# layout.sh: the source tree keeps its layout (HACKING, section 1).
# Libraries below, programs above: no program's directory includes a
# header of another program's or links its archive, no library includes
# a program's header, and no two C files share a name unless they say
# they are the same thing for different programs.  The programs and the
# libraries are read from the Makefile (PROGS, LIBDIRS, uses_<dir>).
# And the built sbxctl, which every run starts, stays lean (sbxctl_lean).

paths() {
	S=$(atf_get_srcdir)
	T=$S/top
	MK=$T/Makefile
	[ -f "$MK" ] || atf_fail "no Makefile at $MK"
	PROGS=$(sed -n 's/^PROGS :=[[:space:]]*//p' "$MK")
	LIBDIRS=$(sed -n 's/^LIBDIRS :=[[:space:]]*//p' "$MK")
	# libsbx and common are built by rules of their own, not LIBDIRS.
	LIBS="$LIBDIRS libsbx common"
	[ -n "$PROGS" ] || atf_fail "no PROGS line in the Makefile"
	[ -n "$LIBDIRS" ] || atf_fail "no LIBDIRS line in the Makefile"
	for d in $PROGS $LIBS; do
		[ -d "$T/$d" ] || atf_fail "$d (Makefile) is not a directory"
	done
}

# fail_if FILE WHAT: fail with WHAT and FILE's lines, one message line
# (kyua takes a reason of several lines for a broken test), when FILE is
# not empty.
fail_if() {
	[ -s "$1" ] || return 0
	cat "$1" >&2
	atf_fail "$2: $(paste -s -d ';' "$1" | sed 's/;/; /g')"
}

# prog_includes FILE...: "FILE:line:#include ..." for each include of a
# header by a path into one of the program directories (PROGS), as
# "prog/x.h" or "../prog/x.h", in quotes or brackets.
prog_includes() {
	re=$(echo $PROGS | sed 's/ /|/g')
	grep -HnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"](\\.\\./)*($re)/" "$@"
}

# includes_of DIR...: prog_includes of every C file under the DIRs, with
# the paths from the top of the tree; the number of files read in nfiles.
includes_of() {
	for d in "$@"; do
		find "$T/$d" -name '*.[ch]' -type f
	done | sort > files
	[ -s files ] || atf_fail "no C file under $*"
	# Files, not directories, so no name has a space (find -print0
	# would be needed otherwise): the tree has none.
	prog_includes $(cat files) | sed "s|^$T/||"
}

# The pattern finds what it must: an include of each program's header.
check_pattern() {
	for p in $PROGS; do
		printf '#include "%s/x.h"\n# include <../%s/y.h>\n' "$p" "$p" > probe.c
		[ "$(prog_includes probe.c | wc -l)" -eq 2 ] ||
		    atf_fail "the include pattern misses $(cat probe.c)"
	done
}

atf_test_case no_program_includes_program
no_program_includes_program_head() {
	atf_set "descr" "no file under a program's directory includes a header from another program's directory"
}
no_program_includes_program_body() {
	paths
	: > bad
	for p in $PROGS; do
		# A program's own headers, by path, are its business.
		includes_of "$p" | grep -vE "[<\"](\\.\\./)*$p/" >> bad || :
	done
	fail_if bad "a program includes another program's header"
	check_pattern
}

atf_test_case libraries_include_no_program
libraries_include_no_program_head() {
	atf_set "descr" "no file under a library's directory (LIBDIRS, libsbx, common) includes a program's header"
}
libraries_include_no_program_body() {
	paths
	includes_of $LIBS > bad
	fail_if bad "a library includes a program's header"
	check_pattern
}

atf_test_case no_program_links_program
no_program_links_program_head() {
	atf_set "descr" "the Makefile's uses_<dir> lines: no program links another program's archive, no library a program's"
}
no_program_links_program_body() {
	paths
	sed -n 's/^uses_\([A-Za-z0-9_-]*\)[[:space:]]*:=[[:space:]]*/\1 /p' \
	    "$MK" > uses
	for p in $PROGS; do
		grep -q "^$p\\( \\|\$\\)" uses ||
		    atf_fail "the Makefile has no uses_$p line (PROGS names $p)"
	done
	: > bad
	while read -r who what; do
		for w in $what; do
			for p in $PROGS; do
				[ "$w" = "$p" ] &&
				    echo "uses_$who names the program $p" >> bad
			done
		done
	done < uses
	fail_if bad "a program's archive where it must not be"
}

atf_test_case unique_names
unique_names_head() {
	atf_set "descr" "no two C files of the same name in different directories, except main.c of each program and files whose first comment names the others"
}
unique_names_body() {
	paths
	for d in $PROGS $LIBS regress; do
		find "$T/$d" -name '*.c' -type f
	done | sed "s|^$T/||" | awk -F/ '{ print $NF, $0 }' | sort > names
	[ "$(wc -l < names)" -gt 20 ] || atf_fail "only $(wc -l < names) C files found under $T"
	awk '{ n[$1]++ } END { for (b in n) if (n[b] > 1) print b }' names |
	    sort > dups
	: > bad
	while read -r b; do
		awk -v b="$b" '$1 == b { print $2 }' names > group
		while read -r f; do
			if [ "$b" = main.c ]; then
				# <prog>/main.c is the program (Makefile).
				dir=${f%/main.c}
				echo " $PROGS " | grep -q " $dir " ||
				    echo "$f: main.c outside a program directory" >> bad
				continue
			fi
			# The first comment of f names every other file of
			# its name by its path.
			awk '{ print } /\*\// { exit }' "$T/$f" > comment
			while read -r g; do
				[ "$g" = "$f" ] && continue
				grep -qF "$g" comment ||
				    echo "$f: same name as $g, and its first comment does not name $g" >> bad
			done < group
		done < group
	done < dups
	fail_if bad "C files of the same name"
}

# libs FILE: the libraries ldd says FILE loads, by soname, sorted.
libs() {
	ldd "$1" > ldd.out || atf_fail "ldd $1 failed"
	awk '$2 == "=>" { print $1 }' ldd.out | sort -u
}

atf_test_case sbxctl_lean
sbxctl_lean_head() {
	atf_set "descr" "sbxctl, which every run starts, loads libsbx's libraries and libc only; the heavy ones are sbxctl-tools's"
	atf_set "require.progs" "ldd"
}
sbxctl_lean_body() {
	B=$(atf_get_srcdir)/..
	ROLEDIR=$(sed -n 's/^SBX_BIN_ROLEDIR=[[:space:]]*//p' \
	    "$(atf_get_srcdir)/top/config.mk")
	[ -n "$ROLEDIR" ] || atf_fail "no SBX_BIN_ROLEDIR in config.mk"
	for f in "$B/bin/sbxctl" "$B/bin/$ROLEDIR/sbxctl-tools" \
	    "$B/lib/libsbx.so"; do
		[ -x "$f" ] || [ -f "$f" ] || atf_fail "$f is missing"
	done
	libs "$B/lib/libsbx.so" > want
	echo libc.so.6 >> want
	libs "$B/bin/sbxctl" > got
	# The tools load the heavy ones: the pattern finds them there.
	libs "$B/bin/$ROLEDIR/sbxctl-tools" > tools
	heavy='^lib(event|seccomp|sodium|yaml)'
	grep -qE "$heavy" tools ||
	    atf_fail "sbxctl-tools loads none of $heavy: the check is blind"
	grep -E "$heavy" got > bad || :
	grep -vxF -f want got | grep -vE "$heavy" >> bad || :
	fail_if bad "sbxctl loads more than libsbx's libraries and libc"
}

atf_init_test_cases() {
	atf_add_test_case sbxctl_lean
	atf_add_test_case no_program_includes_program
	atf_add_test_case no_program_links_program
	atf_add_test_case libraries_include_no_program
	atf_add_test_case unique_names
}
