#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# gates-stats.sh: the gate statistics (gates/stats*.c) against values
# computed independently at test time, over grids that include n = 1,
# events = 0, events = n and the level bounds 5001 and 9998:
#   - the normal quantile against Python's statistics.NormalDist, within
#     Acklam's published relative error;
#   - Wilson and Clopper-Pearson against SciPy, within tolerances derived
#     in regress/gates-stats-ref.py from each algorithm's error;
#   - every statistic, bit for bit, against the spec's algorithms written
#     in JavaScript and run by node (regress/gates-stats-ref.mjs), since
#     bit-identical figures are what make sbx's report digests equal the
#     reference's.
# The C side is regress/helpers/gates_stats_dump.

dump() { echo "$(atf_get_srcdir)/helpers/gates_stats_dump"; }
pyref() { echo "$(atf_get_srcdir)/top/regress/gates-stats-ref.py"; }
jsref() { echo "$(atf_get_srcdir)/top/regress/gates-stats-ref.mjs"; }

seed() { atf_config_get gates_stats_seed 20261201; }

# python_with MODULE: a Python 3 that can import MODULE, or skip.  The
# distribution's python3 is tried after the one on PATH, which may be a
# virtual environment without the Debian packages.
python_with()
{
	for py in python3 /usr/bin/python3; do
		if command -v "$py" >/dev/null 2>&1 &&
		    "$py" -c "import $1" >/dev/null 2>&1; then
			echo "$py"
			return
		fi
	done
	atf_skip "no python3 with $1 (scripts/deps installs python3-scipy)"
}

# compare_python KIND PYTHON: grid, helper, check; at least MIN lines.
compare_python()
{
	kind=$1 py=$2 min=$3
	atf_check -o save:input.txt "$py" "$(pyref)" grid "$kind"
	n=$(wc -l < input.txt)
	[ "$n" -ge "$min" ] || atf_fail "only $n $kind computations (< $min)"
	atf_check -o save:got.txt "$(dump)" < input.txt
	[ "$(wc -l < got.txt)" -eq "$n" ] ||
	    atf_fail "$(wc -l < got.txt) results for $n computations"
	# The grid must reach the edges the task names.
	for pat in ' 1 5001' ' 1 9998' '^[wc] 0 ' '^[wc] \([0-9]*\) \1 '; do
		[ "$kind" = quantile ] && break
		grep -q -- "$pat" input.txt || atf_fail "grid lacks $pat"
	done
	"$py" -W ignore "$(pyref)" check "$kind" input.txt got.txt > check.txt
	rc=$?
	cat check.txt
	[ $rc -eq 0 ] || atf_fail "$kind disagrees with the independent values"
}

atf_test_case normal_quantile
normal_quantile_head()
{
	atf_set "descr" "normalQuantile and twoSidedZ at every level and" \
	    "down to 1e-299 in both tails agree with NormalDist().inv_cdf" \
	    "within Acklam's relative error of 1.15e-9"
}
normal_quantile_body()
{
	compare_python quantile "$(python_with statistics)" 6000
}

atf_test_case wilson
wilson_head()
{
	atf_set "descr" "Wilson intervals over a grid of counts and levels" \
	    "agree with scipy's binomtest(...).proportion_ci(method='wilson')"
}
wilson_body()
{
	compare_python wilson "$(python_with scipy)" 600
}

atf_test_case clopper_pearson
clopper_pearson_head()
{
	atf_set "descr" "Clopper-Pearson bounds, two- and one-sided, agree" \
	    "with scipy.stats.beta.ppf within the error of the exact tail sums"
	atf_set "timeout" "300"
}
clopper_pearson_body()
{
	compare_python cp "$(python_with scipy)" 1000
}

# node_compare: the seeded grid through node and the helper; cmp.txt
# holds one summary line per class, "pure" (no Math.log or Math.exp on the
# way) and "libm" (Math.log and Math.exp themselves, Clopper-Pearson, and
# z beyond 9515 bps with what uses it).
node_compare()
{
	command -v node >/dev/null 2>&1 ||
	    atf_skip "node is not on PATH (scripts/deps installs nodejs)"
	atf_check node "$(jsref)" gen "$(seed)"
	atf_check -o save:got.txt "$(dump)" < input.txt
	node "$(jsref)" cmp > cmp.txt
	rc=$?
	cat cmp.txt
	[ $rc -eq 0 ] || atf_fail "comparison failed"
	n=$(sed -n 's/^pure: \([0-9]*\) computations.*/\1/p' cmp.txt)
	[ "${n:-0}" -ge 10000 ] || atf_fail "only ${n:-0} pure computations"
	n=$(sed -n 's/^libm: \([0-9]*\) computations.*/\1/p' cmp.txt)
	[ "${n:-0}" -ge 2000 ] || atf_fail "only ${n:-0} libm computations"
}

atf_test_case node_bits
node_bits_head()
{
	atf_set "descr" "Every statistic that needs no Math.log or Math.exp" \
	    "(Wilson, Newcombe, Tango, the bootstrap, z up to 9515 bps)" \
	    "equals what node computes from the spec's algorithms, bit for bit"
	atf_set "timeout" "300"
}
node_bits_body()
{
	node_compare
	grep -q '^pure: .* 0 with other doubles .* 0 with other figures$' \
	    cmp.txt || atf_fail "doubles differ from node's (seed $(seed))"
}

atf_test_case node_bits_libm
node_bits_libm_head()
{
	atf_set "descr" "Math.log, Math.exp, Clopper-Pearson and z beyond" \
	    "9515 bps equal node's bit for bit (gates/jsmath.c is V8's" \
	    "fdlibm algorithm, not the C library's log and exp)"
	atf_set "timeout" "300"
}
node_bits_libm_body()
{
	node_compare
	n=$(grep -c '^[le] ' input.txt)
	[ "$n" -ge 40000 ] || atf_fail "only $n Math.log/Math.exp inputs"
	grep -q '^libm: .* 0 with other doubles .* 0 with other figures$' \
	    cmp.txt || atf_fail "doubles differ from node's (seed $(seed))"
}

atf_init_test_cases()
{
	atf_add_test_case normal_quantile
	atf_add_test_case wilson
	atf_add_test_case clopper_pearson
	atf_add_test_case node_bits
	atf_add_test_case node_bits_libm
}
