#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# changes-tools.sh: the client half of changesets (issue 23) without a
# monitor: streams built by regress/helpers/cstool from two trees (OLD is
# DIR, NEW what a run left in the overlay), then libsbx's entries, diff
# and apply on them, the calls sbxctl changes, diff and apply make; and
# those commands through a private monitor whose store holds a stream
# put there by hand.  The run side (overlay, store, requests) is
# regress/changes.sh.

# The helper, by path: atf_check runs programs, not shell functions.
cs() { CS=$(atf_get_srcdir)/helpers/cstool; }

# A DIR and what a run made of it: every kind of change, a binary file,
# a symlink, a mode change, a name with a space.
trees()
{
	mkdir -p dir/src dir/gone/deep dir/keep
	printf 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n' \
	    > dir/src/a.c
	echo old > dir/gone/x
	echo deeper > dir/gone/deep/y
	echo k > dir/keep/k
	printf 'bin\0ary\377' > dir/b.bin
	echo m > dir/mode.sh
	echo s > 'dir/sp ace.txt'
	ln -s a.c dir/src/l
	echo f > dir/typechange
	cp -a dir new
	printf 'one\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven' \
	    > new/src/a.c
	rm -rf new/gone new/typechange
	mkdir new/typechange
	echo inside > new/typechange/f
	echo n > new/newfile
	mkdir new/nd
	echo z > new/nd/z
	printf 'bin\0arx\001' > new/b.bin
	printf 'x\0y' > new/nd/bin2
	chmod 755 new/mode.sh
	echo S >> 'new/sp ace.txt'
	rm new/src/l
	ln -s ../newfile new/src/l
}

# snapshot DIR: every path with its type, mode, owner, inode and content.
snapshot()
{
	(cd "$1" && find . -printf '%p %y %m %U %i %s\n' | sort &&
	    find . -type f -exec sha256sum {} + | sort)
}

atf_test_case entries_diff
entries_diff_head()
{
	atf_set "descr" "entries are sorted A/M/D lines; the diff passes" \
	    "git apply --check and patch -p1 --dry-run on a clean copy of" \
	    "DIR, and git apply makes DIR into the run's result, binary" \
	    "files and modes included"
	atf_set "require.progs" "git patch"
}
entries_diff_body()
{
	cs
	trees
	atf_check "$CS" mk cs dir new
	cat > want <<'EOF'
M b.bin
D gone
M mode.sh
A nd
A nd/bin2
A nd/z
A newfile
M sp ace.txt
M src/a.c
M src/l
M typechange
A typechange/f
EOF
	atf_check -o file:want "$CS" entries cs
	atf_check -o save:d.patch "$CS" diff cs dir
	grep -q '^GIT binary patch$' d.patch || atf_fail "no binary patch"
	grep -q '^old mode 100644$' d.patch || atf_fail "no mode change"
	grep -q '^deleted file mode 100644$' d.patch ||
	    atf_fail "no deleted file"
	grep -qE '^index [0-9a-f]{40}\.\.[0-9a-f]{40} 120000$' d.patch ||
	    atf_fail "no symlink change with a full index line"
	# Everything below a deleted directory is deleted, deep files too.
	grep -q '^diff --git a/gone/deep/y b/gone/deep/y$' d.patch ||
	    atf_fail "the deleted tree's files are not in the diff"
	cp -a dir clean
	(cd clean && atf_check -e ignore git apply --check -v ../d.patch)
	(cd clean && atf_check git apply ../d.patch)
	atf_check -o empty diff -r clean new
	# patch(1) knows no binary patches: the text paths alone.
	atf_check -o save:t.patch "$CS" diff cs dir src newfile gone nd/z \
	    'sp ace.txt'
	grep -q 'GIT binary' t.patch && atf_fail "selected paths: binary"
	cp -a dir clean2
	(cd clean2 && atf_check -o ignore patch -p1 --dry-run < ../t.patch &&
	    atf_check -o ignore patch -p1 < ../t.patch)
	atf_check -o empty diff -r clean2/src new/src
	atf_check -o empty diff -r clean2/nd/z new/nd/z
	# Selecting a path gives it and nothing else, however it is named.
	for p in src/a.c ./src/a.c; do
		atf_check -o save:one.patch "$CS" diff cs dir "$p"
		[ "$(grep -c '^diff --git' one.patch)" = 1 ] ||
		    atf_fail "diff $p: $(grep '^diff --git' one.patch)"
	done
	atf_check -o save:two.patch "$CS" diff cs dir ./src/
	[ "$(grep -c '^diff --git' two.patch)" = 2 ] ||
	    atf_fail "diff ./src/: $(grep '^diff --git' two.patch)"
	# A stream cut short is refused, naming where.
	head -c 300 cs > cut
	atf_check -s exit:1 -o ignore -e match:'record [0-9]+: .*truncated' \
	    "$CS" entries cut
}

atf_test_case diff_random
diff_random_head()
{
	atf_set "descr" "diffs of random edits (and of a file changed past" \
	    "the Myers bound, given as all out, all in) make git apply and" \
	    "patch -p1 produce the new files exactly"
	atf_set "require.progs" "git patch"
}
diff_random_body()
{
	cs
	mkdir dir new
	# 40 pairs: lines from a small alphabet, so edits and common runs
	# mix; some pairs lose or gain the final newline.
	awk -v seed=20261203 'BEGIN {
		srand(seed)
		for (f = 0; f < 40; f++) {
			n = int(rand() * 60)
			for (i = 0; i < n; i++) {
				l = "l" int(rand() * 8)
				printf "%s\n", l > ("dir/f" f)
				r = rand()
				if (r < 0.15) continue
				if (r < 0.3) printf "x%d\n", i > ("new/f" f)
				printf "%s\n", l > ("new/f" f)
			}
			if (rand() < 0.3) printf "tail" > ("new/f" f)
			if (rand() < 0.2) printf "end" > ("dir/f" f)
			printf "" > ("dir/f" f); printf "" > ("new/f" f)
		}
		# 5000 lines, all different: beyond the bound of 2000.
		for (i = 0; i < 5000; i++) {
			print "old " i > "dir/big"
			print "new " i > "new/big"
		}
	}'
	atf_check "$CS" mk cs dir new
	atf_check -o save:d.patch "$CS" diff cs dir
	cp -a dir g && cp -a dir p
	(cd g && atf_check git apply ../d.patch)
	atf_check -o empty diff -r g new
	(cd p && atf_check -o ignore patch -p1 < ../d.patch)
	atf_check -o empty diff -r p new
}

atf_test_case apply
apply_head()
{
	atf_set "descr" "apply writes the run's result into a 0700 DIR as" \
	    "the caller (content, modes without set-ID bits, owner, no" \
	    "temporary file left), and" \
	    "a second apply finds everything already applied"
}
apply_body()
{
	cs
	trees
	chmod 700 dir
	# A set-ID program the payload left is applied without its set-ID.
	echo s > new/setid
	chmod 6755 new/setid
	atf_check "$CS" mk cs dir new
	t0=$("$CS" now)
	atf_check "$CS" apply cs dir "$t0"
	chmod 755 dir
	atf_check -o empty diff -r dir new
	[ "$(stat -c %a dir/mode.sh)" = 755 ] || atf_fail "mode.sh's mode"
	[ "$(stat -c %a dir/setid)" = 755 ] ||
	    atf_fail "setid applied as $(stat -c %a dir/setid)"
	[ "$(readlink dir/src/l)" = ../newfile ] || atf_fail "src/l"
	[ -d dir/typechange ] || atf_fail "typechange is not a directory"
	[ -e dir/gone ] && atf_fail "gone is still there"
	me=$(id -u)
	bad=$(find dir -newer cs ! -user "$me" | head -3)
	[ -z "$bad" ] || atf_fail "not owned by the caller: $bad"
	find dir -name '.sbx-apply.*' | grep . && atf_fail "temporary left"
	snapshot dir > before
	atf_check "$CS" apply cs dir "$t0"
	snapshot dir > after
	atf_check -o empty diff before after

	# As root, the same for an unprivileged caller: its files are its.
	[ "$me" = 0 ] || return 0
	id sbxtest >/dev/null 2>&1 || atf_skip "user sbxtest is missing" \
	    "(scripts/check creates it)"
	mkdir u && chmod 755 . && chmod 711 u
	(cd u && trees) && chown -R sbxtest u/dir && chmod 700 u/dir
	atf_check "$CS" mk u/cs u/dir u/new
	chmod 644 u/cs
	t0=$("$CS" now)
	# sbxtest may not be able to walk to the build tree (a clone made
	# with mktemp -d is 0700): its own copy of the helper.
	cp "$CS" u/cstool && chmod 755 u/cstool
	atf_check runuser -u sbxtest -- u/cstool apply u/cs u/dir "$t0"
	bad=$(find u/dir ! -user sbxtest | head -3)
	[ -z "$bad" ] || atf_fail "not owned by sbxtest: $bad"
	chmod 755 u/dir
	atf_check -o empty diff -r u/dir u/new
}

atf_test_case conflicts
conflicts_head()
{
	atf_set "descr" "a file changed in DIR after the stream, or while a" \
	    "run was going on (after T0), is a conflict: named on stderr," \
	    "exit 4, left as DIR has it; the others apply; a path already" \
	    "holding its change is no conflict"
}
conflicts_body()
{
	cs
	trees
	# Edited just before the run asked: no conflict.
	echo edited > dir/src/edited
	cp dir/src/edited new/src/edited
	echo run >> new/src/edited
	t0=$("$CS" now)
	# The payload starts once the coarse clock file times are stamped
	# from has passed T0 (shim/overlay.c): a tick is 1 to 10 ms.
	sleep 0.05
	# Changed while the run was going on: after T0, before the stream.
	touch dir/keep/k
	echo changed > new/keep/k
	atf_check "$CS" mk cs dir new
	# Changed after the stream.
	echo host >> dir/src/a.c
	# Already applied by hand.
	cp new/newfile dir/newfile
	atf_check -s exit:4 -e save:err "$CS" apply cs dir "$t0"
	cat err
	grep -q '^conflict: src/a.c: ' err || atf_fail "src/a.c not named"
	grep -q '^conflict: keep/k: changed in DIR while a run' err ||
	    atf_fail "keep/k not named"
	[ "$(wc -l < err)" = 2 ] || atf_fail "conflicts: $(cat err)"
	tail -1 dir/src/a.c | grep -qx host || atf_fail "src/a.c overwritten"
	grep -qx k dir/keep/k || atf_fail "keep/k overwritten"
	# The others applied, the file edited just before the run too.
	atf_check -o empty diff -r dir/nd new/nd
	atf_check -o empty diff dir/src/edited new/src/edited
	[ -e dir/gone ] && atf_fail "gone is still there"
	# A path the host deleted since is a conflict too.
	rm -rf dir2 new2 && mkdir dir2 && echo a > dir2/a && cp -a dir2 new2
	echo b > new2/a
	atf_check "$CS" mk cs2 dir2 new2
	rm dir2/a
	atf_check -s exit:4 -e match:'^conflict: a: deleted in DIR since' \
	    "$CS" apply cs2 dir2 "$t0"
	[ -e dir2/a ] && atf_fail "a recreated"
	return 0
}

atf_test_case all_or_nothing
all_or_nothing_head()
{
	atf_set "descr" "with all-or-nothing, one conflict writes nothing at" \
	    "all; without the conflict, everything is written"
}
all_or_nothing_body()
{
	cs
	trees
	t0=$("$CS" now)
	atf_check "$CS" mk cs dir new
	echo host >> dir/src/a.c
	snapshot dir > before
	atf_check -s exit:4 -e match:'^conflict: src/a.c: ' \
	    "$CS" apply -a cs dir "$t0"
	snapshot dir > after
	atf_check -o empty diff before after
	# The conflict gone (the host's edit undone), all of it applies.
	cp -a new/src/a.c dir/src/a.c
	atf_check "$CS" apply -a cs dir "$t0"
	atf_check -o empty diff -r dir new
}

atf_test_case symlink_out
symlink_out_head()
{
	atf_set "descr" "apply never writes outside DIR: a parent replaced" \
	    "by a symlink to a directory outside, a new directory whose" \
	    "place DIR now holds a symlink, and a deleted directory holding" \
	    "a symlink out are conflicts or removed without following; a" \
	    "hard link to a file outside is replaced, not written through"
}
symlink_out_body()
{
	cs
	mkdir outside dir
	echo precious > outside/keep
	mkdir dir/sub dir/gone
	echo s > dir/sub/s
	ln -s "$PWD/outside" dir/gone/out
	ln outside/keep dir/hard
	cp -a dir new
	echo changed > new/hard
	echo evil > new/sub/evil
	mkdir new/lnk
	echo evil > new/lnk/evil
	rm -rf new/gone
	t0=$("$CS" now)
	# -D: no record for sub (it only holds changes), so the parent of
	# sub/evil is opened by its path at apply time.
	atf_check "$CS" mk -D cs dir new
	rm -rf dir/sub
	ln -s "$PWD/outside" dir/sub
	ln -s "$PWD/outside" dir/lnk
	atf_check -s exit:4 -e save:err "$CS" apply cs dir "$t0"
	cat err
	grep -q '^conflict: sub/evil: a parent in DIR is a symlink' err ||
	    atf_fail "sub/evil not refused"
	grep -q '^conflict: lnk: ' err || atf_fail "lnk not refused"
	grep -q '^conflict: lnk/evil: a parent in DIR is a symlink' err ||
	    atf_fail "lnk/evil not refused"
	[ "$(ls outside)" = keep ] || atf_fail "written outside: $(ls outside)"
	grep -qx precious outside/keep || atf_fail "outside/keep changed"
	# A hard link in DIR is replaced, not written through.
	grep -qx changed dir/hard || atf_fail "dir/hard not applied"
	[ -e dir/gone ] && atf_fail "gone is still there"
	return 0
}

atf_test_case sbxctl_commands cleanup
sbxctl_commands_head()
{
	atf_set "descr" "sbxctl changes ID, diff ID and apply ID through a" \
	    "private monitor whose store holds a changeset put there by" \
	    "hand: entries, --json, the diff, a conflict (exit 4, nothing" \
	    "written with --all-or-nothing, the changeset kept), then a full" \
	    "apply that discards it"
	atf_set "require.progs" "git"
}
sbxctl_commands_body()
{
	cs
	. "$(atf_get_srcdir)/top/regress/monitor.subr"
	sbx_test_paths
	sbx_test_dir sbxcstools
	printf 'socket "%s"\nuser "nobody"\nchangeset-dir "%s"\n' \
	    "$SOCK" "$D/store" > "$D/sbx.conf"
	mkdir -p "$D/proj/src"
	printf 'a\nb\nc\n' > "$D/proj/src/x.c"
	echo gone > "$D/proj/del"
	cp -a "$D/proj" new
	echo d >> new/src/x.c
	rm new/del
	echo n > new/added
	t0=$("$CS" now)
	atf_check "$CS" mk "$D/s.cs" "$D/proj" new
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	# The store as the run side leaves it: <uid>/<ID>.cs and .meta, the
	# service user's.
	id=0123456789ab u=$(id -u)
	mkdir -m 700 "$D/store/$u"
	cp "$D/s.cs" "$D/store/$u/$id.cs"
	printf '{"id":"%s","uid":%s,"dir":"%s","dev":"%s","ino":"%s",' \
	    "$id" "$u" "$D/proj" "$(stat -c %d "$D/proj")" \
	    "$(stat -c %i "$D/proj")" > "$D/store/$u/$id.meta"
	printf '"created":%s,"last_run":%s,"first_run_start":"%s",' \
	    "$(date +%s)" "$(date +%s)" "$t0" >> "$D/store/$u/$id.meta"
	printf '"runs":1,"size":%s,"entries":3}' "$(stat -c %s "$D/s.cs")" \
	    >> "$D/store/$u/$id.meta"
	chown -R "$(stat -c %u "$D/store")" "$D/store/$u"
	printf 'A added\nD del\nM src/x.c\n' > want
	atf_check -o file:want "$C" -s "$SOCK" changes "$id"
	atf_check -o match:'^\{"changes":\[\{"op":"A","kind":"file",' \
	    "$C" -s "$SOCK" --json changes "$id"
	atf_check -o save:d.patch "$C" -s "$SOCK" diff "$id"
	cp -a "$D/proj" clean
	(cd clean && atf_check git apply ../d.patch)
	atf_check -o empty diff -r clean new
	echo host >> "$D/proj/src/x.c"
	atf_check -s exit:4 -e match:'^sbxctl: conflict: src/x.c: ' \
	    "$C" -s "$SOCK" apply "$id" --all-or-nothing
	[ -e "$D/proj/added" ] && atf_fail "all-or-nothing wrote added"
	atf_check -o match:"^$id " "$C" -s "$SOCK" changes
	cp new/src/x.c "$D/proj/src/x.c"
	atf_check "$C" -s "$SOCK" apply "$id"
	atf_check -o empty diff -r "$D/proj" new
	atf_check -o empty "$C" -s "$SOCK" changes
}
sbxctl_commands_cleanup()
{
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_init_test_cases()
{
	atf_add_test_case entries_diff
	atf_add_test_case diff_random
	atf_add_test_case apply
	atf_add_test_case conflicts
	atf_add_test_case all_or_nothing
	atf_add_test_case symlink_out
	atf_add_test_case sbxctl_commands
}
