#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# licence.sh: sbx is under the ISC licence.  The tree has LICENSE at the
# top and a machine-readable debian/copyright, every source file names
# its licence on an SPDX line (the files scripts/spdx selects), and
# scripts/spdx itself adds that line in each file type's comment syntax,
# once, without moving what must stay first.

paths() {
	S=$(atf_get_srcdir)
	T=$S/top
	SPDX=$T/scripts/spdx
}

atf_test_case licence_files
licence_files_head() {
	atf_set "descr" "LICENSE holds the ISC licence; debian/copyright is DEP-5 and names it"
}
licence_files_body() {
	paths
	[ -f "$T/LICENSE" ] || atf_fail "LICENSE is missing at the top of the tree"
	grep -qx 'Copyright (c) 2026 The sbx authors' "$T/LICENSE" ||
	    atf_fail "LICENSE has no copyright line for the sbx authors"
	grep -q '^Permission to use, copy, modify, and distribute this software for any$' \
	    "$T/LICENSE" || atf_fail "LICENSE is not the ISC licence"
	grep -q 'OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE\.$' \
	    "$T/LICENSE" || atf_fail "LICENSE is cut short"

	c=$T/debian/copyright
	[ -f "$c" ] || atf_fail "debian/copyright is missing"
	head -n 1 "$c" | grep -qx \
	    'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
	    atf_fail "debian/copyright does not start with the DEP-5 Format field"
	grep -qx 'Upstream-Name: sbx' "$c" || atf_fail "no Upstream-Name: sbx"
	# The catch-all paragraph: Files: *, then its Copyright and License.
	awk '/^Files: \*$/ { f = 1; next } f && /^$/ { exit }
	    f && /^License: ISC$/ { ok = 1 } END { exit !ok }' "$c" ||
	    atf_fail "no \"Files: *\" paragraph under License: ISC"
	# Every field line is "Name: value", a continuation starts with a
	# space, paragraphs are separated by one empty line.
	awk 'NR > 1 && prev == "" && $0 == "" { print NR ": two empty lines"; bad = 1 }
	    $0 != "" && $0 !~ /^[A-Za-z][A-Za-z0-9-]*:( |$)/ && $0 !~ /^[ \t]/ {
		print NR ": " $0; bad = 1 }
	    { prev = $0 } END { exit bad }' "$c" > syntax ||
	    atf_fail "debian/copyright, not DEP-5 syntax: $(cat syntax)"
	# Each licence a Files paragraph names has its own License paragraph
	# with the text (one whose first line is the License field).
	awk '/^Files:/ { files = 1 } /^$/ { files = 0; first = 1; next }
	    NR == 1 { first = 1 }
	    /^License:/ { sub(/^License: */, "")
		if (files) { n = split($0, a, / and | or |, */)
			for (i = 1; i <= n; i++) used[a[i]] = 1 }
		else if (first) have[$0] = 1 }
	    { first = 0 }
	    END { for (l in used) if (!(l in have)) { print l; bad = 1 }
		exit bad }' "$c" > missing ||
	    atf_fail "debian/copyright names licences without their text: $(cat missing)"
	grep -q '^ Permission to use, copy, modify, and distribute this software for any$' \
	    "$c" || atf_fail "debian/copyright lacks the ISC licence text"
}

atf_test_case spdx_tree
spdx_tree_head() {
	atf_set "descr" "every source file carries an SPDX-License-Identifier line (scripts/spdx -n)"
}
spdx_tree_body() {
	paths
	[ -x "$SPDX" ] || atf_fail "scripts/spdx is missing or not executable"
	# The selection must not have gone empty by accident.
	atf_check -s exit:0 -o save:list -e empty sh "$SPDX" -l "$T"
	n=$(wc -l < list)
	[ "$n" -ge 200 ] || atf_fail "scripts/spdx selects only $n files"
	for f in Makefile configure.ac scripts/spdx regress/licence.sh; do
		grep -qx "$f" list || atf_fail "scripts/spdx does not select $f"
	done
	grep -E '^(build|regress/fixtures/|regress/fuzz/corpus/)|\.json$' list \
	    > wrong && atf_fail "scripts/spdx selects data files: $(cat wrong)"
	sh "$SPDX" -n "$T" > lacking ||
	    atf_fail "$(wc -l < lacking) files lack the licence header" \
	    "(run scripts/spdx): $(head -n 20 lacking | tr '\n' ' ')"
}

# tree: a small source tree, one file of each kind, plus files the
# header does not belong in.
tree() {
	mkdir -p t/man t/regress/fixtures t/build t/lib
	printf '/*\n * a.c: a file.\n */\nint a;\n' > t/lib/a.c
	printf '#include <stdio.h>\n' > t/lib/b.h
	printf '/* c.c: one line. */\nint c;\n' > t/lib/c.c
	printf '#!/bin/sh\necho tool\n' > t/tool
	chmod 755 t/tool
	printf '#! /usr/bin/env atf-sh\n#\n# x.sh: a test.\n' > t/x.sh
	printf '#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nprint(1)\n' > t/p.py
	printf '// m.mjs: a module.\nexport const m = 1;\n' > t/m.mjs
	printf '# r.priv\nrole r\n' > t/r.priv
	printf 'all:\n\ttrue\n' > t/Makefile
	printf '.Dd $Mdocdate$\n.Dt X 8\n.Os\n.Sh NAME\n.Nm x\n.Nd a page\n.Sh DESCRIPTION\nText.\n' > t/man/x.8
	printf '.\\" y.1: a page.\n.Dd $Mdocdate$\n.Dt Y 1\n.Os\n.Sh NAME\n.Nm y\n.Nd a page\n' > t/man/y.1
	printf '// SPDX-License-Identifier: MIT\nexport const o = 1;\n' > t/other.mjs
	# Not sources: data, fixtures, build products, text.
	printf '{}\n' > t/data.json
	printf '// f.mjs\n' > t/regress/fixtures/f.mjs
	printf 'int z;\n' > t/build/z.c
	printf 'text\n' > t/README
}

sums() {
	(cd t && find . -type f | LC_ALL=C sort | xargs cksum)
}

atf_test_case spdx_script
spdx_script_head() {
	atf_set "descr" "scripts/spdx finds the files lacking the header, adds it in each syntax, and is idempotent"
}
spdx_script_body() {
	paths
	tree
	# Not a git checkout: the script walks the tree.
	export GIT_CEILING_DIRECTORIES=$(pwd)
	atf_check -s exit:1 -o save:lacking -e empty sh "$SPDX" -n t
	sed 's/: no SPDX-License-Identifier line$//' lacking | LC_ALL=C sort > got
	printf '%s\n' Makefile lib/a.c lib/b.h lib/c.c m.mjs man/x.8 man/y.1 \
	    p.py r.priv tool x.sh > want
	atf_check -o empty diff want got

	atf_check -s exit:0 -o save:changed -e match:'11 of 12 files' sh "$SPDX" t
	atf_check -o empty diff want changed
	atf_check -s exit:0 -o empty -e empty sh "$SPDX" -n t
	sums > before
	atf_check -s exit:0 -o empty -e match:'0 of 12 files' sh "$SPDX" t
	sums > after
	atf_check -o empty diff before after

	C='Copyright (c) 2026 The sbx authors'
	L='SPDX-License-Identifier: ISC'
	atf_check -o inline:"/*\n * $C\n * $L\n *\n * a.c: a file.\n */\nint a;\n" cat t/lib/a.c
	atf_check -o inline:"/*\n * $C\n * $L\n */\n\n#include <stdio.h>\n" cat t/lib/b.h
	atf_check -o inline:"/*\n * $C\n * $L\n */\n/* c.c: one line. */\nint c;\n" cat t/lib/c.c
	atf_check -o inline:"#!/bin/sh\n# $C\n# $L\n\necho tool\n" cat t/tool
	[ -x t/tool ] || atf_fail "the script lost its mode"
	atf_check -o inline:"#! /usr/bin/env atf-sh\n# $C\n# $L\n#\n# x.sh: a test.\n" cat t/x.sh
	atf_check -o inline:"#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n# $C\n# $L\n\nprint(1)\n" cat t/p.py
	atf_check -o inline:"// $C\n// $L\n//\n// m.mjs: a module.\nexport const m = 1;\n" cat t/m.mjs
	atf_check -o inline:"# $C\n# $L\n#\n# r.priv\nrole r\n" cat t/r.priv
	atf_check -o inline:"// SPDX-License-Identifier: MIT\nexport const o = 1;\n" cat t/other.mjs
	atf_check -o inline:'.\\" '"$C"'\n.\\" '"$L"'\n.Dd $Mdocdate$\n.Dt X 8\n' head -n 4 t/man/x.8
	atf_check -o inline:'.\\" '"$C"'\n.\\" '"$L"'\n.\\"\n.\\" y.1: a page.\n' head -n 4 t/man/y.1
	atf_check -o inline:'{}\n' cat t/data.json
	atf_check -o inline:'// f.mjs\n' cat t/regress/fixtures/f.mjs
	atf_check -o inline:'int z;\n' cat t/build/z.c
	if command -v mandoc >/dev/null 2>&1; then
		atf_check -s exit:0 -o empty -e empty \
		    mandoc -Tlint -W warning,stop t/man/x.8
	fi
}

atf_init_test_cases() {
	atf_add_test_case licence_files
	atf_add_test_case spdx_tree
	atf_add_test_case spdx_script
}
