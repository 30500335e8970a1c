#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# gates-render.sh: "sbxctl gates render" and "gates evaluate --format":
# golden files for text and markdown (regress/fixtures/gates-render: a
# ROLLBACK and a HOLD report, and a hostile one whose control characters
# and markup must come out inert), markdown that python3-markdown turns
# into an HTML table, colour only on a terminal and never with NO_COLOR,
# and the help of every command and subcommand (exit 0).

. "$(atf_get_srcdir)/top/regress/monitor.subr"

R() { echo "$(atf_get_srcdir)/top/regress/fixtures/gates-render/$1"; }
fx() { echo "$(atf_get_srcdir)/top/regress/fixtures/gates/$1"; }

BDIGEST=sha256:713127fce4b97506487ce80c65998b29b110aff148156496336c6a859948149c
NOW=2026-09-03T00:00:00.000Z

atf_test_case goldens
goldens_head()
{
	atf_set "descr" "text and markdown renderings equal their golden" \
	    "files; the markdown is a table to a markdown parser; a report" \
	    "that is no GateReport is refused"
}
goldens_body()
{
	sbx_test_paths
	for r in rollback hold hostile; do
		atf_check -o file:"$(R $r.txt)" "$C" gates render \
		    "$(R $r.report.json)"
		atf_check -o file:"$(R $r.txt)" "$C" gates render \
		    "$(R $r.report.json)" --format text
		atf_check -o file:"$(R $r.md)" "$C" gates render \
		    "$(R $r.report.json)" --format markdown
		atf_check -o file:"$(R $r.md)" sh -c \
		    "'$C' gates render - --format markdown < '$(R $r.report.json)'"
	done
	# The hostile report: no escape character reaches the terminal.
	atf_check -s exit:1 grep -q "$(printf '\033')" "$(R hostile.txt)"
	# The distribution's python3 after the one on PATH, which may be a
	# virtual environment's without Debian's modules.
	PY=
	for py in python3 /usr/bin/python3; do
		"$py" -c 'import markdown' 2>/dev/null && { PY=$py; break; }
	done
	[ -n "$PY" ] ||
	    atf_skip "no python3 with markdown (scripts/deps check installs python3-markdown)"
	for r in rollback hold hostile; do
		"$PY" -c 'import markdown, sys
print(markdown.markdown(sys.stdin.read(), extensions=["tables"]))' \
		    < "$(R $r.md)" > $r.html
		atf_check -o match:'<table>' -o match:'<th>Gate</th>' cat $r.html
		# A table row per markdown row: the header, one per gate evidence.
		rows=$(grep -c '^<tr>' $r.html)
		want=$(grep -c "^| " "$(R $r.md)")
		[ "$rows" -eq "$want" ] ||
		    atf_fail "$r: $rows table rows, $want expected"
	done
	atf_check -o not-match:'<script>' -o not-match:'<b>' \
	    cat hostile.html
	atf_check -o match:'<strong>fail \(ROLLBACK\)</strong>' cat rollback.html
	echo '{"kind":"GateBinding"}' > notreport.json
	atf_check -s exit:1 -e match:'not a GateReport' "$C" gates render \
	    notreport.json
	atf_check -s exit:1 -e match:'not a JSON object' "$C" gates render \
	    "$(R rollback.md)"
	atf_check -s exit:2 -e match:'--format is text or markdown' \
	    "$C" gates render "$(R rollback.report.json)" --format json
}

atf_test_case colour
colour_head()
{
	atf_set "descr" "text is coloured on a terminal only, and not with" \
	    "NO_COLOR set"
	atf_set "require.progs" "script"
}
colour_body()
{
	sbx_test_paths
	esc=$(printf '\033')
	script -qec "'$C' gates render '$(R rollback.report.json)'" \
	    /dev/null > tty.out
	grep -q "${esc}\[31mROLLBACK" tty.out ||
	    atf_fail "no colour on a terminal: $(head -2 tty.out)"
	NO_COLOR=1 script -qec "'$C' gates render '$(R rollback.report.json)'" \
	    /dev/null > nocolour.out
	grep -q "$esc" nocolour.out && atf_fail "colour despite NO_COLOR"
	atf_check -o match:'^Decision: +ROLLBACK' cat nocolour.out
}

atf_test_case evaluate_format
evaluate_format_head()
{
	atf_set "descr" "gates evaluate --format text|markdown writes the" \
	    "JSON report to --report and prints its rendering"
}
evaluate_format_body()
{
	sbx_test_paths
	printf 'gate-packs "%s"\nprovider-allowlist "%s"\n' \
	    "$(fx gate-packs)" "$PWD/none.json" > sbx.conf
	set -- --binding "$(fx conformance-run.binding.json)" \
	    --metrics "$(fx fr-b1.metrics.json)" --holdout "$(fx holdout.json)" \
	    --upstream "$(fx upstream-clean.json)" --now "$NOW" \
	    --trusted-binding-digest "$BDIGEST" --offline --config sbx.conf
	atf_check -o save:plain.json -e ignore "$C" gates evaluate "$@"
	atf_check -o file:"$(R rollback.report.json)" cat plain.json
	atf_check -s exit:11 -o file:"$(R rollback.md)" -e ignore \
	    "$C" gates evaluate "$@" --format markdown --report r.json \
	    --exit-decision
	atf_check cmp plain.json r.json
	atf_check -o file:"$(R rollback.txt)" -e ignore \
	    "$C" gates evaluate "$@" --format text --report t.json
	atf_check cmp plain.json t.json
	atf_check -s exit:2 -e match:'needs --report file' \
	    "$C" gates evaluate "$@" --format text
}

atf_test_case help
help_head()
{
	atf_set "descr" "--help prints the usage of sbxctl, of each command" \
	    "and of each subcommand with its options, on stdout, exit 0"
}
help_body()
{
	sbx_test_paths
	atf_check -o match:'^usage: sbxctl' -o match:'--json' "$C" --help
	atf_check -o match:'^usage: sbxctl' "$C" -h
	for c in digest gates ping privs provider run status; do
		atf_check -o match:"^usage: sbxctl $c" "$C" $c --help
	done
	for s in validate evaluate verify render list show digest \
	    seal-holdout seal-upstream; do
		atf_check -o match:"^usage: sbxctl gates $s" "$C" gates $s --help
	done
	atf_check -o match:'^usage: sbxctl gates evaluate' \
	    -o match:'--offline' -o match:'--config sbx.conf' \
	    -o match:'--format json\|text\|markdown' -o match:'--records id=file' \
	    -o not-match:'sbxctl gates verify' "$C" gates evaluate --help
	atf_check -o match:'^usage: sbxctl provider invoke' \
	    -o match:'--clock-ms' "$C" provider invoke --help
	# After "--" it is the payload's.
	atf_check -s not-exit:0 -o not-match:'usage' -e ignore \
	    env SBX_SOCKET="$PWD/no.sock" "$C" run -- /bin/true --help
}

atf_init_test_cases()
{
	atf_add_test_case goldens
	atf_add_test_case colour
	atf_add_test_case evaluate_format
	atf_add_test_case help
}
