#!/bin/sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# b_changes.sh BUILD: the client half of changesets (issue 23) on streams
# regress/helpers/cstool builds, without a monitor:
#
#   - `changes ID` (the entries) and `diff` of a FILES-file changeset
#     (issue 23's figure: 10,000; its target for changes: under 100 ms);
#   - apply of APPLY files into a fresh DIR (every file a temporary file,
#     fsync and rename).
#
# cstool runs libsbx's sbx_changes_entries, sbx_changes_diff and
# sbx_changes_apply, the calls sbxctl makes once the monitor passed the
# stream; the monitor's share (one request, one descriptor) is measured
# by b_control.sh.  Median of RUNS runs; figures are printed, nothing is
# asserted.  It exits non-zero only when it could not measure.
set -u
B=${1:-build}
top=$(pwd)
T=$top/$B/regress/helpers/cstool
RUNS=${RUNS:-5}
FILES=${FILES:-10000}
APPLY=${APPLY:-1000}
ENTRIES_TARGET_MS=100

die() { echo "b_changes: $*" >&2; exit 1; }
[ -x "$T" ] || die "$T is missing (make $B/regress/helpers/cstool)"
D=$(mktemp -d /tmp/sbx-bench-changes.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$D"' EXIT INT TERM

# tree DIR N: N small text files in directories of 100.
tree()
{
	awk -v d="$1" -v n="$2" 'BEGIN {
		for (i = 0; i < n; i++) {
			if (i % 100 == 0) system("mkdir -p " d "/d" int(i / 100))
			f = d "/d" int(i / 100) "/f" i ".c"
			for (l = 0; l < 20; l++) print "line " l " of file " i > f
			close(f)
		}
	}'
}

# ms CMD...: wall time of CMD in milliseconds (output discarded).
ms()
{
	s=$(date +%s%N)
	"$@" > /dev/null || die "failed: $*"
	e=$(date +%s%N)
	echo $(( (e - s) / 1000000 ))
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

mkdir "$D/old" "$D/new"
tree "$D/old" "$FILES" && cp -a "$D/old/." "$D/new/" || die "trees"
# Every file changed: one line edited, so the diff has one hunk each.
find "$D/new" -name '*.c' -exec sed -i 's/^line 10 /LINE 10 /' {} + ||
    die "edit"
"$T" mk -D "$D/cs" "$D/old" "$D/new" || die "mk"
n=$("$T" entries "$D/cs" | wc -l)
[ "$n" -eq "$FILES" ] || die "$n entries for $FILES files"
echo "changeset: $FILES files changed, stream $(($(stat -c %s "$D/cs") / 1024)) KiB"

i=0; : > "$D/e"; : > "$D/d"
while [ $i -lt "$RUNS" ]; do
	ms "$T" entries "$D/cs" >> "$D/e"
	ms "$T" diff "$D/cs" "$D/old" >> "$D/d"
	i=$((i + 1))
done
echo "changes (entries), $FILES files: $(median < "$D/e") ms median of" \
    "$RUNS (issue 23's target: under $ENTRIES_TARGET_MS ms)"
echo "diff, $FILES files: $(median < "$D/d") ms median of $RUNS"

rm -rf "$D/old" "$D/new" "$D/cs"
mkdir "$D/aold" "$D/anew"
tree "$D/aold" "$APPLY" && cp -a "$D/aold/." "$D/anew/" || die "trees"
find "$D/anew" -name '*.c' -exec sed -i 's/^line 10 /LINE 10 /' {} + ||
    die "edit"
i=0; : > "$D/a"
while [ $i -lt "$RUNS" ]; do
	rm -rf "$D/dir" && cp -a "$D/aold" "$D/dir" || die "copy"
	"$T" mk -D "$D/acs" "$D/dir" "$D/anew" || die "mk"
	t0=$("$T" now)
	ms "$T" apply "$D/acs" "$D/dir" "$t0" >> "$D/a"
	diff -r "$D/dir" "$D/anew" > /dev/null || die "apply: DIR differs"
	i=$((i + 1))
done
echo "apply, $APPLY files: $(median < "$D/a") ms median of $RUNS" \
    "(each file: temporary, fsync, rename)"
