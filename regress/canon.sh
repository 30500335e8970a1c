#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# canon.sh: canonical JSON and digests compared with node at test time.
# regress/canon-ref.mjs generates the corpora from a seed and computes
# what JSON.stringify and a JavaScript canonicaliser say; the C side runs
# through regress/helpers/canonify and sbxctl.  The seed is fixed so a
# failure reproduces; set the kyua variable canon_seed to explore others:
#	kyua -v test_suites.sbx.canon_seed=N test canon.sh

# Paths relative to this test's own directory (build/regress).
canonify() { echo "$(atf_get_srcdir)/helpers/canonify"; }
sbxctl() { echo "$(atf_get_srcdir)/../bin/sbxctl"; }
ref() { echo "$(atf_get_srcdir)/top/regress/canon-ref.mjs"; }

seed() { atf_config_get canon_seed 20260815; }

need_node()
{
	command -v node >/dev/null 2>&1 ||
	    atf_skip "node is not on PATH; the expected output comes from" \
	    "node (scripts/deps installs nodejs)"
}

# compare EXPECTED GOT INPUT MIN WHAT: line-by-line equality, at least
# MIN lines (so an empty corpus cannot pass), first differences shown.
compare()
{
	exp=$1 got=$2 inp=$3 min=$4 what=$5
	n=$(wc -l < "$exp")
	[ "$n" -ge "$min" ] || atf_fail "only $n $what generated (< $min)"
	[ "$(wc -l < "$got")" -eq "$n" ] ||
	    atf_fail "$(wc -l < "$got") results for $n $what"
	if ! cmp -s "$exp" "$got"; then
		paste -d '\n' "$inp" "$exp" "$got" |
		    awk 'NR % 3 == 1 { i = $0 } NR % 3 == 2 { e = $0 }
		    NR % 3 == 0 && e != $0 { print "input:    " i;
		    print "node:     " e; print "sbx:      " $0; if (++k == 10) exit }'
		atf_fail "$(paste -d '\t' "$exp" "$got" |
		    awk -F '\t' '$1 != $2' | wc -l) of $n $what differ from node"
	fi
	echo "$n $what agree with node (seed $(seed))"
}

atf_test_case numbers
numbers_head()
{
	atf_set "descr" "Number formatting equals JSON.stringify on powers" \
	    "of two and ten, boundaries and random doubles"
}
numbers_body()
{
	need_node
	atf_check node "$(ref)" numbers "$(seed)" 5000
	atf_check -o save:got.txt "$(canonify)" -n < input.txt
	compare expected.txt got.txt input.txt 20000 numbers
	# The spec's named cases are in the corpus.
	for v in 0 5e-324 1e+21 1e-7 0.30000000000000004 9007199254740992; do
		grep -qx -- "$v" expected.txt || atf_fail "corpus lacks $v"
	done
}

# random_seed: a fresh seed per run, so each run also tries numbers no
# run tried before; a failure names it (rerun with canon_seed=N).
random_seed()
{
	od -An -N4 -tu4 /dev/urandom | tr -d ' '
}

# differential MODE COUNT FLAG MIN WHAT SEED: one corpus from node, the
# same lines through canonify FLAG, compared.
differential()
{
	mode=$1 count=$2 flag=$3 min=$4 what=$5 s=$6
	node "$(ref)" "$mode" "$s" "$count" ||
	    atf_fail "canon-ref.mjs $mode $s $count failed"
	"$(canonify)" "$flag" < input.txt > got.txt ||
	    atf_fail "canonify $flag failed (seed $s)"
	n=$(wc -l < expected.txt)
	[ "$n" -ge "$min" ] || atf_fail "only $n $what generated (< $min)"
	if ! cmp -s expected.txt got.txt; then
		paste -d '\n' input.txt expected.txt got.txt |
		    awk 'NR % 3 == 1 { i = $0 } NR % 3 == 2 { e = $0 }
		    NR % 3 == 0 && e != $0 { print "input:    " i;
		    print "node:     " e; print "sbx:      " $0; if (++k == 10) exit }'
		atf_fail "$(paste -d '\t' expected.txt got.txt |
		    awk -F '\t' '$1 != $2' | wc -l) of $n $what differ from" \
		    "node with seed $s (rerun: kyua -v" \
		    "test_suites.sbx.canon_seed=$s test canon.sh)"
	fi
	echo "$n $what agree with node (seed $s)"
}

atf_test_case formats
formats_head()
{
	atf_set "descr" "numfmt.c equals JSON.stringify on 200,000 doubles" \
	    "per seed: random bit patterns, subnormals, integers near 2^53," \
	    "powers of ten and two and their neighbours, the 1e21 and 1e-7" \
	    "thresholds, 17-digit values; a fixed seed and a random one"
}
formats_body()
{
	need_node
	differential formats 200000 -n 200000 numbers "$(seed)"
	differential formats 200000 -n 200000 numbers "$(random_seed)"
}

atf_test_case scans
scans_head()
{
	atf_set "descr" "numscan.c equals JSON.parse on number texts: exact" \
	    "halfway cases and their neighbours, long mantissas, underflow" \
	    "and overflow; a fixed seed and a random one"
}
scans_body()
{
	need_node
	differential scans 60000 -p 30000 "number texts" "$(seed)"
	differential scans 60000 -p 30000 "number texts" "$(random_seed)"
	grep -qx error expected.txt || atf_fail "no out-of-range number"
}

atf_test_case strings
strings_head()
{
	atf_set "descr" "String escaping and key order equal node's for" \
	    "controls, quotes, lone surrogates, non-ASCII and astral text"
}
strings_body()
{
	need_node
	atf_check node "$(ref)" strings "$(seed)" 4000
	atf_check -o save:got.txt "$(canonify)" -j < input.txt
	compare expected.txt got.txt input.txt 5000 strings
	grep -q '\\ud[89ab]' expected.txt || atf_fail "no lone surrogate"
	grep -q '\\u001f\|\\u0000' expected.txt || atf_fail "no control"
}

atf_test_case documents
documents_head()
{
	atf_set "descr" "sbxctl digest records equals a node canonical" \
	    "digest on random documents (deep, wide, duplicate keys)"
}
documents_body()
{
	need_node
	atf_check node "$(ref)" docs "$(seed)" 240 docs
	n=0
	while read -r name want; do
		got=$("$(sbxctl)" digest records "docs/$name") ||
		    atf_fail "sbxctl digest records docs/$name failed"
		[ "$got" = "$want" ] ||
		    atf_fail "docs/$name: sbx $got, node $want"
		n=$((n + 1))
	done < docs/expected
	[ "$n" -ge 200 ] || atf_fail "only $n documents"
	# Standard input and --json on the same documents.
	for name in doc-0000.json doc-0003.json doc-0007.json; do
		want=$(awk -v n="$name" '$1 == n { print $2 }' docs/expected)
		atf_check -o "inline:$want\n" "$(sbxctl)" digest records - \
		    < "docs/$name"
		atf_check -o "inline:{\"digest\":\"$want\"}\n" \
		    "$(sbxctl)" digest records "docs/$name" --json
	done
	echo "$n documents agree with node (seed $(seed))"
}

atf_test_case reference_limits
reference_limits_head()
{
	atf_set "descr" "At the reference's digest limits (4,096 elements," \
	    "8,192 values, 4,096 keys, 65,536-unit strings, 256 KiB of" \
	    "scalars, depth 32) sbx's records digest is node's; one step" \
	    "over each, and at 50,000 records, sbx digests the same" \
	    "canonical form the reference would refuse"
}
reference_limits_body()
{
	need_node
	atf_check node "$(ref)" limits lim
	n=0 over=0
	while read -r name want admission; do
		got=$("$(sbxctl)" digest records "lim/$name.json") ||
		    atf_fail "sbxctl digest records lim/$name.json failed"
		[ "$got" = "$want" ] ||
		    atf_fail "$name ($admission): sbx $got, node $want"
		# The documents must sit where they claim to.
		case "$name" in
		records-4097*|nodes-8193|keys-4097|string-65537|bytes-262145|depth-33|unsafe-key|records-50000)
			[ "$admission" != admitted ] || atf_fail "$name:" \
			    "the reference would admit it (not over a limit)"
			over=$((over + 1)) ;;
		*)
			[ "$admission" = admitted ] || atf_fail "$name:" \
			    "the reference would refuse it ($admission)" ;;
		esac
		n=$((n + 1))
	done < lim/expected
	[ "$n" -ge 15 ] || atf_fail "only $n documents"
	echo "$n documents agree with node, $over of them beyond the" \
	    "reference's limits"
}

atf_test_case mutants
mutants_head()
{
	atf_set "descr" "Edited documents: sbx refuses exactly what" \
	    "JSON.parse refuses and agrees with node on the rest"
}
mutants_body()
{
	need_node
	atf_check node "$(ref)" mutants "$(seed)" 3000
	atf_check -o save:raw.txt "$(canonify)" -j < input.txt
	sed 's/^error [0-9]*: .*/error/' raw.txt > got.txt
	compare expected.txt got.txt input.txt 3000 mutants
	# Both outcomes must be well represented.
	bad=$(grep -cx error expected.txt)
	[ "$bad" -ge 300 ] || atf_fail "only $bad invalid mutants"
	[ "$bad" -le 2700 ] || atf_fail "only $((3000 - bad)) valid mutants"
}

atf_test_case spec_vectors
spec_vectors_head()
{
	atf_set "descr" "sbxctl reproduces the records digests of" \
	    "interop.md §P3"
}
spec_vectors_body()
{
	printf '[]' > empty.json
	atf_check -o inline:"sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945\n" \
	    "$(sbxctl)" digest records empty.json
	printf ' [ {"slice" : "a", "failed":false} ]\n' > one.json
	atf_check -o inline:"sha256:7c9f2b0232a4f7f63e8770a5a217a135e0cd065e08cabeeea28eb8c029493ec3\n" \
	    "$(sbxctl)" digest records one.json
}

atf_test_case invalid_json
invalid_json_head()
{
	atf_set "descr" "sbxctl refuses invalid JSON with exit 1 and the" \
	    "byte offset, plain and with --json"
}
invalid_json_body()
{
	printf '[1,]' > trailing.json
	atf_check -s exit:1 -e inline:"sbxctl: trailing.json: invalid JSON at byte offset 3: unexpected ']' (value expected)\n" \
	    "$(sbxctl)" digest records trailing.json
	atf_check -s exit:1 -o inline:'{"error":{"code":"invalid-json","message":"trailing.json: invalid JSON at byte offset 3: unexpected '"']'"' (value expected)"}}\n' \
	    "$(sbxctl)" --json digest records trailing.json
	atf_check -s exit:1 -e inline:"sbxctl: -: invalid JSON at byte offset 0: unexpected end of input (value expected)\n" \
	    "$(sbxctl)" digest records - < /dev/null

	printf '{"a":1e400}' > big.json
	atf_check -s exit:1 -e inline:"sbxctl: big.json: invalid JSON at byte offset 5: number out of range\n" \
	    "$(sbxctl)" digest records big.json
	printf '["ok","\377"]' > utf8.json
	atf_check -s exit:1 -e inline:"sbxctl: utf8.json: invalid JSON at byte offset 7: invalid UTF-8 in string (byte 0xff)\n" \
	    "$(sbxctl)" digest records utf8.json
	printf '{"a":1,"a":2} x' > tail.json
	atf_check -s exit:1 -e match:"byte offset 14: unexpected 'x' after the JSON value" \
	    "$(sbxctl)" digest records tail.json
	# Nesting limit: 512 levels digest, 513 are refused at offset 512.
	awk 'BEGIN { for (i = 0; i < 512; i++) printf "["; for (i = 0; i < 512; i++) printf "]" }' > d512.json
	atf_check -o match:'^sha256:[0-9a-f]{64}$' "$(sbxctl)" digest records d512.json
	awk 'BEGIN { for (i = 0; i < 513; i++) printf "["; for (i = 0; i < 513; i++) printf "]" }' > d513.json
	atf_check -s exit:1 -e inline:"sbxctl: d513.json: invalid JSON at byte offset 512: nesting deeper than 512\n" \
	    "$(sbxctl)" digest records d513.json
	# A file name is echoed without its control characters.
	printf '[' > "$(printf 'e\033[1m')"
	atf_check -s exit:1 -e inline:"sbxctl: e\\\\033[1m: invalid JSON at byte offset 1: unexpected end of input (value expected)\n" \
	    "$(sbxctl)" digest records "$(printf 'e\033[1m')"
}

atf_test_case usage
usage_head()
{
	atf_set "descr" "sbxctl exit statuses: 2 for usage, 1 for I/O," \
	    "--json accepted before and after the command word"
}
usage_body()
{
	printf '[]' > e.json
	d=sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945
	for args in "--json digest records e.json" \
	    "digest --json records e.json" "digest records --json e.json" \
	    "digest records e.json --json" "-s /nonexistent --json digest records e.json"; do
		# shellcheck disable=SC2086
		atf_check -o inline:"{\"digest\":\"$d\"}\n" "$(sbxctl)" $args
	done
	atf_check -o inline:"$d\n" "$(sbxctl)" digest records -- e.json
	atf_check -s exit:2 -e match:'^usage: sbxctl' "$(sbxctl)"
	atf_check -s exit:2 -e match:'unknown command "nope"' "$(sbxctl)" nope
	atf_check -s exit:2 -e match:'unknown option -x' "$(sbxctl)" -x digest
	atf_check -s exit:2 -e match:'unknown option --bogus' "$(sbxctl)" --bogus
	atf_check -s exit:2 -e match:'digest: unknown kind "bundlex"' \
	    "$(sbxctl)" digest bundlex
	atf_check -s exit:2 -e match:'one file expected' "$(sbxctl)" digest records
	atf_check -s exit:2 -e match:'one file expected' \
	    "$(sbxctl)" digest records e.json e.json
	atf_check -s exit:2 -e match:'digest records: unknown option -q' \
	    "$(sbxctl)" digest records -q e.json
	atf_check -s exit:2 -o inline:'{"error":{"code":"usage","message":"command expected"}}\n' \
	    -e match:'^usage:' "$(sbxctl)" --json
	atf_check -s exit:1 -e inline:"sbxctl: missing.json: No such file or directory\n" \
	    "$(sbxctl)" digest records missing.json
	atf_check -s exit:1 -o inline:'{"error":{"code":"io","message":"missing.json: No such file or directory"}}\n' \
	    "$(sbxctl)" digest records missing.json --json
	mkdir dir.json
	atf_check -s exit:1 -e match:'dir.json: Is a directory' \
	    "$(sbxctl)" digest records dir.json
	# A literal "--json" operand after "--" is a file name.
	printf '[]' > ./--json
	atf_check -o inline:"$d\n" "$(sbxctl)" digest records -- --json
}

atf_init_test_cases()
{
	atf_add_test_case numbers
	atf_add_test_case formats
	atf_add_test_case scans
	atf_add_test_case strings
	atf_add_test_case documents
	atf_add_test_case reference_limits
	atf_add_test_case mutants
	atf_add_test_case spec_vectors
	atf_add_test_case invalid_json
	atf_add_test_case usage
}
