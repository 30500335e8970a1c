#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# docs.sh: the tree's own design documents (doc/) are the ones it refers
# to.  Every "design.md §N" or "interop.md §PN.M" written anywhere in the
# source names a heading that exists, and nothing refers any longer to the
# documents that lived outside the tree (issue 21).

paths() {
	T=$(atf_get_srcdir)/top
}

# sources: every text file of the tree but the build trees and .git, one
# path a line, relative to $T.
sources() {
	(cd "$T" && find . \( -path './build*' -o -path ./.git \) -prune -o \
	    -type f -print | sed 's|^\./||' | sort)
}

# refs: "FILE.md X" for every section a file of the tree names, one a
# line: "design.md §1, §2" gives two; privilege files, which are ASCII,
# write "design.md section 1, 2".  Lists may break across a comment line.
refs() {
	sources | (cd "$T" && xargs -d '\n' perl -0777 -ne '
	    my $sep = qr{(?:[ \t]*\n[ \t]*(?:\*|\#+|//)?[ \t]*|[ \t]+)};
	    my $x = qr{[A-Z]?\d+(?:\.\d+)*(?:\.[A-D])?};
	    my $s = qr{(?:\xc2\xa7|section )};
	    while (/\b([a-z][a-z0-9-]*\.md)$sep$s($x(?:(?:,$sep|,|[ ]and[ ]|-)(?:\xc2\xa7)?$x)*)/g) {
		    my ($d, $l) = ($1, $2);
		    print "$d $_\n" for $l =~ /($x)/g;
	    }' ) | sort -u
}

atf_test_case refs_exist
refs_exist_head() {
	atf_set "descr" "every design.md / interop.md section the tree names is a heading of doc/"
}
refs_exist_body() {
	paths
	for d in design.md interop.md; do
		[ -f "$T/doc/$d" ] || atf_fail "doc/$d is missing"
	done
	refs > refs
	[ $(wc -l < refs) -ge 20 ] ||
	    atf_fail "only $(wc -l < refs) references found: is $T the tree?"
	bad=0
	while read -r d x; do
		if [ ! -f "$T/doc/$d" ]; then
			echo "$d is referred to as $d §$x but doc/$d does not exist" >&2
			bad=$((bad + 1))
			continue
		fi
		re=$(printf '%s' "$x" | sed 's/\./\\./g')
		if ! grep -qE "^#+ $re[ .]" "$T/doc/$d"; then
			echo "$d §$x: no such heading (in $(sources |
			    (cd "$T" && xargs -d '\n' grep -lF "§$x") |
			    head -3 | tr '\n' ' '))" >&2
			bad=$((bad + 1))
		fi
	done < refs
	# A path to a doc/ file names one that exists.
	sources | (cd "$T" && xargs -d '\n' grep -IhoE 'doc/[a-z0-9-]+\.md' ) |
	    sort -u > paths
	while read -r p; do
		[ -f "$T/$p" ] || { echo "$p does not exist" >&2; bad=$((bad + 1)); }
	done < paths
	[ $bad -eq 0 ] || atf_fail "$bad references name nothing (see stderr)"
}

atf_test_case no_outside_refs
no_outside_refs_head() {
	atf_set "descr" "nothing outside doc/ refers to the old DESIGN and spec documents"
}
no_outside_refs_body() {
	paths
	# Spelt in pieces so this file does not match itself.
	g=gates-; p=provider-; D=DESI
	pat="${D}GN ?§|${D}GN(\\.md)? [0-9]|${D}GN\\.md|${g}spec|${p}spec|\\.\\./shared"
	# scripts/docrefs names the old spellings: rewriting them is its job.
	sources | grep -v -e '^doc/' -e '^scripts/docrefs$' |
	    (cd "$T" && xargs -d '\n' grep -InE "$pat") > found || true
	if [ -s found ]; then
		cat found >&2
		atf_fail "$(wc -l < found) lines outside doc/ refer to the old documents"
	fi
}

atf_init_test_cases() {
	atf_add_test_case refs_exist
	atf_add_test_case no_outside_refs
}
