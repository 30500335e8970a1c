#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# changes.sh: overlay runs (issue 23), `sbxctl run --overlay -w DIR`: the
# payload works on a copy-on-write view of DIR and DIR is never written,
# in identity caller and service.  One private monitor for the runs; as
# root it drops to "nobody", the caller is "sbxtest" and identity service
# is the sandbox-user "_sbxsandbox" (scripts/check makes both); as an
# unprivileged user, all of them are that user.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

setup() {
	sbx_test_paths
	sbx_test_dir sbxcs
	if [ "$(id -u)" -eq 0 ]; then
		id sbxtest >/dev/null 2>&1 || atf_fail "user sbxtest is missing"
		id _sbxsandbox >/dev/null 2>&1 ||
		    atf_fail "user _sbxsandbox is missing (scripts/check makes it)"
		CALLER=sbxtest
		AS="runuser -u $CALLER --"
	else
		CALLER=$(id -un)
		AS=
	fi
	# The caller may not be able to walk to the build tree.
	sbx_client_copy "$D/c"
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "sandbox-user \"_sbxsandbox\""
		echo "allow uid \"$CALLER\""
		echo "changeset-dir \"$D/cs\""
		echo "changeset-max-size 1M"
		[ -n "${EXTRA_CONF:-}" ] && echo "$EXTRA_CONF"
		for p in caller service; do
			echo "profile \"$p\" {"
			for d in /usr /bin /lib /lib64 /etc; do
				[ -d "$d" ] && echo "	ro \"$d\""
			done
			echo "	identity $p"
			echo "	tmpfs \"/tmp\" size 1M"
			echo "	workdir \"/work\""
			echo "	timeout 120"
			echo "}"
		done
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	chmod 711 "$D/run"
	chmod 666 "$SOCK"
}

# listing DIR: every entry's type, mode, size, owner, mtime, ctime, link
# target, and every file's checksum: any write to DIR changes it.
listing() {
	(cd "$1" && find . -printf '%p %y %m %s %U %T@ %C@ %l\n' | sort &&
	    find . -type f -exec sha256sum {} + | sort)
}

common_cleanup() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case overlay_run cleanup
overlay_run_head() {
	atf_set "descr" "--overlay: the payload adds, modifies, deletes, renames, chmods, links and writes binary files on a copy-on-write view of DIR and sees them; DIR itself is never written, in identity caller and service"
}
overlay_run_body() {
	setup
	mkdir -p "$D/proj/sub/deep"
	echo keep > "$D/proj/mod"
	echo gone > "$D/proj/del"
	echo move > "$D/proj/ren"
	echo '#! /bin/sh' > "$D/proj/exe"
	echo deep > "$D/proj/sub/deep/f"
	ln -s mod "$D/proj/oldlink"
	chmod 755 "$D/proj" "$D/proj/sub" "$D/proj/sub/deep"
	chmod 644 "$D/proj/mod" "$D/proj/del" "$D/proj/ren" "$D/proj/exe"
	[ "$(id -u)" -eq 0 ] &&
	    chown -hR "$CALLER:$(id -gn "$CALLER")" "$D/proj"
	listing "$D/proj" > before

	atf_check -s exit:0 -e save:run1.err -o inline:"added\nkeep\nmore\nmove\n700\nmod\n0001ff\nyes\nno\n" \
	    $AS "$CU" -s "$SOCK" run --overlay -p caller -w "$D/proj" -- \
	    /bin/sh -c 'cd /work && echo added > added && echo more >> mod &&
	    rm del && mv ren ren2 && chmod 700 exe && ln -s mod link &&
	    printf "\000\001\377" > bin && rm -r sub && mkdir sub &&
	    cat added mod ren2 && stat -c %a exe && readlink link &&
	    od -An -tx1 bin | tr -d " \n" && echo &&
	    { [ -d sub ] && [ ! -e sub/deep ] && [ ! -e del ] &&
	      echo yes; } && { [ -e /work/ren ] && echo yes || echo no; }'
	listing "$D/proj" > after
	atf_check -o empty diff before after
	# Kept: added, bin, del, exe, link, mod, ren, ren2, sub (made
	# again) and sub/deep (gone with it).
	grep -Eq '^sbx: changes kept as [0-9a-f]{12}$' run1.err ||
	    atf_fail "no changeset line: $(cat run1.err)"
	id=$(sed 's/.* //' run1.err)
	atf_check -s exit:0 -e empty \
	    -o match:"^$id  $D/proj  [0-9]+s  [0-9]+ bytes  10 changed  1 run\$" \
	    $AS "$CU" -s "$SOCK" changes
	# Its entries, as cs-tools' changes ID shows them.
	atf_check -s exit:0 -e empty -o inline:"A added\nA bin\nD del\nM exe\nA link\nM mod\nD ren\nA ren2\nD sub/deep\n" \
	    $AS "$CU" -s "$SOCK" changes "$id"
	# A monitor restart keeps it: it is on disk.
	kill -TERM "$(cat mon.pid)"
	wait "$(cat mon.pid)" 2>/dev/null
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	chmod 666 "$SOCK"
	atf_check -s exit:0 -e empty -o match:"^$id  $D/proj  " \
	    $AS "$CU" -s "$SOCK" changes
	# Nothing changed: no changeset, not a word on stderr.
	atf_check -s exit:0 -e empty -o empty $AS "$CU" -s "$SOCK" run \
	    --overlay -p caller -w "$D/proj" -- /bin/sh -c 'cat /work/mod >/dev/null'
	atf_check -s exit:0 -e empty -o match:"^$id " \
	    $AS "$CU" -s "$SOCK" changes
	[ "$($AS "$CU" -s "$SOCK" changes | wc -l)" -eq 1 ] ||
	    atf_fail "a run that changed nothing left a changeset"

	# The size cap: ENOSPC inside, "changes" the limit named.
	atf_check -s exit:0 -e match:"changes.*changeset-max-size" \
	    -o inline:"full\n" $AS "$CU" -s "$SOCK" run --overlay -p caller \
	    -w "$D/proj" -- /bin/sh -c 'head -c 2097152 /dev/zero > /work/big 2>/dev/null || echo full'
	atf_check -s exit:0 -e save:cap.err -o ignore $AS "$CU" -s "$SOCK" \
	    --json run --overlay -p caller -w "$D/proj" -- \
	    /bin/sh -c 'head -c 2097152 /dev/zero > /work/big 2>/dev/null; :'
	# What was written up to the cap is kept, the EXIT event says why.
	grep -q '"limit":"changes","changes":"[0-9a-f]\{12\}"' cap.err ||
	    atf_fail "no limit changes in the EXIT event: $(cat cap.err)"
	$AS "$CU" -s "$SOCK" discard "$(sed -n 's/.*"changes":"\([0-9a-f]*\)".*/\1/p' cap.err)"
	listing "$D/proj" > after
	atf_check -o empty diff before after

	# A further run on top of it: it sees the earlier run's work, and
	# the changeset becomes both runs' (added undone, again new).
	atf_check -s exit:0 -e inline:"sbx: changes kept as $id\n" \
	    -o inline:"added\nmore\n" $AS "$CU" -s "$SOCK" run --overlay-into "$id" \
	    -p caller -w "$D/proj" -- /bin/sh -c 'cd /work && cat added &&
	    tail -1 mod && [ ! -e del ] && echo again > again && rm added'
	atf_check -s exit:0 -e empty -o inline:"A again\nA bin\nD del\nM exe\nA link\nM mod\nD ren\nA ren2\nD sub/deep\n" \
	    $AS "$CU" -s "$SOCK" changes "$id"
	atf_check -s exit:0 -e empty -o match:"^$id  .*  2 runs\$" \
	    $AS "$CU" -s "$SOCK" changes
	listing "$D/proj" > after
	atf_check -o empty diff before after
	# Only on the same directory.
	mkdir "$D/other"
	[ "$(id -u)" -eq 0 ] && chown "$CALLER" "$D/other"
	atf_check -s exit:125 -o empty -e match:"--overlay-into: -w is not changeset $id's directory" \
	    $AS "$CU" -s "$SOCK" run --overlay-into "$id" -p caller -w "$D/other" -- /bin/true

	# Applied as the caller: DIR gets the changes, the changeset goes.
	atf_check -s exit:0 -e empty -o ignore $AS "$CU" -s "$SOCK" apply "$id"
	atf_check -o inline:"again\n" cat "$D/proj/again"
	[ ! -e "$D/proj/added" ] && [ ! -e "$D/proj/del" ] && [ ! -e "$D/proj/sub/deep" ] &&
	    [ "$(readlink "$D/proj/link")" = mod ] ||
	    atf_fail "apply left DIR otherwise than the run did"
	atf_check -s exit:1 -o empty -e match:"not-found" \
	    $AS "$CU" -s "$SOCK" discard "$id"

	# identity service: another user than DIR's owner; what it cannot
	# write it cannot write, what it writes lands in the upper layer.
	# As a user, service is that user too and may write DIR's files.
	chmod 777 "$D/proj"
	listing "$D/proj" > before
	want=wrote
	[ "$(id -u)" -eq 0 ] && want=refused
	atf_check -s exit:0 -e match:"^sbx: changes kept as " -o inline:"new\n$want\n" \
	    $AS "$CU" -s "$SOCK" run --overlay -p service -w "$D/proj" -- \
	    /bin/sh -c 'echo new > /work/new && cat /work/new &&
	    { echo x 2>/dev/null >> /work/mod && echo wrote ||
	      echo refused; }'
	listing "$D/proj" > after
	atf_check -o empty diff before after
	[ ! -e "$D/proj/new" ] || atf_fail "the service run wrote DIR"
}
overlay_run_cleanup() {
	common_cleanup
}

# plant UID ID [AGE]: a changeset of UID's in the store, as the monitor
# keeps it, last run AGE seconds ago (default 0).
plant() {
	mkdir -p "$D/cs/$1"
	now=$(($(date +%s) - ${3:-0}))
	printf '{"id":"%s","uid":%s,"dir":"%s","dev":"1","ino":"2","created":%s,"last_run":%s,"first_run_start":"%s000000000","runs":2,"size":96,"entries":3}' \
	    "$2" "$1" "$D/proj" "$now" "$now" "$now" > "$D/cs/$1/$2.meta"
	: > "$D/cs/$1/$2.cs"
	chmod 700 "$D/cs/$1"
	[ "$(id -u)" -eq 0 ] && chown -R nobody "$D/cs/$1"
	return 0
}

atf_test_case list_discard cleanup
list_discard_head() {
	atf_set "descr" "changes lists the caller's changesets (text and --json) and discard drops one; another user's changeset is neither listed nor discarded, with the unknown-id answer (root only: needs two users)"
}
list_discard_body() {
	setup
	uid=$(id -u "$CALLER")
	# The store is made 0700, the service user's.
	atf_check -o match:"^700 " stat -c '%a %U' "$D/cs"
	atf_check -s exit:0 -o empty -e empty $AS "$CU" -s "$SOCK" changes
	plant "$uid" 00000000000a
	plant "$uid" 0123456789ab
	atf_check -s exit:0 -e empty \
	    -o match:"^00000000000a  $D/proj  [0-9]+s  96 bytes  3 changed  2 runs\$" \
	    -o match:"^0123456789ab  " $AS "$CU" -s "$SOCK" changes
	atf_check -s exit:0 -e empty \
	    -o match:'^\{"changesets":\[\{"id":"00000000000a","dir":"[^"]*","created":[0-9]+,"last_run":[0-9]+,"size":96,"entries":3,"runs":2\},\{"id":"0123456789ab"' \
	    $AS "$CU" -s "$SOCK" --json changes
	atf_check -s exit:0 -o empty -e empty $AS "$CU" -s "$SOCK" discard 00000000000a
	[ ! -e "$D/cs/$uid/00000000000a.meta" ] && [ ! -e "$D/cs/$uid/00000000000a.cs" ] ||
	    atf_fail "discard left files"
	atf_check -s exit:1 -o empty -e inline:"sbxctl: discard: not-found: discard: no changeset \"00000000000a\"\n" \
	    $AS "$CU" -s "$SOCK" discard 00000000000a
	atf_check -s exit:1 -o empty -e match:"not-found" \
	    $AS "$CU" -s "$SOCK" discard ../../etc
	if [ "$(id -u)" -ne 0 ]; then
		atf_skip "another user's changeset: needs root to act as two users"
	fi
	# root's own changeset: sbxtest neither sees nor discards it, and is
	# told exactly what an unknown id gets.
	plant 0 fedcba987654
	atf_check -s exit:0 -o not-match:fedcba987654 -e empty \
	    $AS "$CU" -s "$SOCK" changes
	atf_check -s exit:1 -o empty -e inline:"sbxctl: discard: not-found: discard: no changeset \"fedcba987654\"\n" \
	    $AS "$CU" -s "$SOCK" discard fedcba987654
	for c in changes diff apply; do
		atf_check -s exit:1 -o empty -e match:"^sbxctl: $c: not-found" \
		    $AS "$CU" -s "$SOCK" $c fedcba987654
	done
	[ -e "$D/cs/0/fedcba987654.meta" ] || atf_fail "a stranger discarded it"
	atf_check -s exit:0 -o match:"^fedcba987654  " "$C" -s "$SOCK" changes
}
list_discard_cleanup() {
	common_cleanup
}

atf_test_case background cleanup
background_head() {
	atf_set "descr" "what the payload leaves running in the background is stopped while its changes are written: a file it keeps growing is kept as it was, not the run's changes lost"
}
background_body() {
	setup
	mkdir "$D/proj"
	[ "$(id -u)" -eq 0 ] && chown "$CALLER" "$D/proj"
	atf_check -s exit:0 -e save:bg.err -o empty \
	    $AS "$CU" -s "$SOCK" run --overlay -p caller -w "$D/proj" -- \
	    /bin/sh -c 'cd /work && { while :; do echo x >> grow; done; } \
	    > /dev/null 2>&1 & sleep 0.3; echo fg > /work/fg'
	grep -Eq '^sbx: changes kept as [0-9a-f]{12}$' bg.err ||
	    atf_fail "the changes were not kept: $(cat bg.err)"
	atf_check -s exit:0 -e empty -o inline:"A fg\nA grow\n" \
	    $AS "$CU" -s "$SOCK" changes "$(sed 's/.* //' bg.err)"
	[ -z "$(ls -A "$D/proj")" ] || atf_fail "the run wrote DIR"
}
background_cleanup() {
	common_cleanup
}

atf_test_case expiry cleanup
expiry_head() {
	atf_set "descr" "changesets whose last run is older than changeset-max-age are removed when the service starts and, the caller's own, before its overlay run, with an audit line; newer ones stay"
}
expiry_body() {
	EXTRA_CONF='changeset-max-age 1m'
	setup
	uid=$(id -u "$CALLER")
	plant "$uid" 00000000000a 30
	plant "$uid" 00000000000b 61
	# A restart: the one past its age goes, the other stays.
	kill -TERM "$(cat mon.pid)"
	wait "$(cat mon.pid)" 2>/dev/null
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	chmod 666 "$SOCK"
	atf_check -s exit:0 -e empty -o match:"^00000000000a  " \
	    -o not-match:00000000000b $AS "$CU" -s "$SOCK" changes
	[ ! -e "$D/cs/$uid/00000000000b.meta" ] &&
	    [ ! -e "$D/cs/$uid/00000000000b.cs" ] ||
	    atf_fail "an expired changeset's files stayed"
	grep -q 'audit: changes-expired .*1 changeset older than changeset-max-age 60 s' mon.log ||
	    atf_fail "no changes-expired audit line at start: $(tail -5 mon.log)"
	# Before an overlay run: one that aged meanwhile goes too.
	plant "$uid" 00000000000c 3600
	mkdir "$D/proj"
	[ "$(id -u)" -eq 0 ] && chown "$CALLER" "$D/proj"
	atf_check -s exit:0 -e empty -o empty $AS "$CU" -s "$SOCK" run \
	    --overlay -p caller -w "$D/proj" -- /bin/true
	atf_check -s exit:0 -e empty -o match:"^00000000000a  " \
	    -o not-match:00000000000c $AS "$CU" -s "$SOCK" changes
	[ ! -e "$D/cs/$uid/00000000000c.meta" ] ||
	    atf_fail "the changeset that aged was not removed before the run"
}
expiry_cleanup() {
	common_cleanup
}

atf_test_case nested_build cleanup
nested_build_head() {
	atf_set "descr" "./configure && make in an overlay run on a project in a 0700 home: changes lists the products, the diff (a binary among it) passes git apply on a clean copy, a file changed on the host is a conflict (nothing written with --all-or-nothing, the rest applied without it), applied files are the caller's and the built program runs on the host"
	atf_set "require.progs" "git make cc"
}
nested_build_body() {
	setup
	# A home only its owner can enter; the project inside.
	mkdir -m 700 "$D/home"
	P=$D/home/proj
	mkdir "$P"
	{
		echo '#! /bin/sh'
		echo '# A configure script in miniature: config.h and a Makefile.'
		echo 'echo "#define GREETING \"built in a sandbox\"" > config.h'
		echo 'printf "CFLAGS = -pipe -O0\\n" > Makefile'
		echo 'printf "hello: hello.o\\n\\t\$(CC) \$(CFLAGS) -o hello hello.o\\n" >> Makefile'
		echo 'printf "hello.o: hello.c config.h\\n\\t\$(CC) \$(CFLAGS) -c hello.c\\n" >> Makefile'
	} > "$P/configure"
	{
		echo '#include <stdio.h>'
		echo '#include "config.h"'
		echo 'int main(void) { puts(GREETING); return 0; }'
	} > "$P/hello.c"
	echo "first" > "$P/NOTES"
	echo 1 > "$P/VERSION"
	chmod 755 "$P" "$P/configure"
	chmod 644 "$P/hello.c" "$P/NOTES" "$P/VERSION"
	[ "$(id -u)" -eq 0 ] && chown -R "$CALLER:$(id -gn "$CALLER")" "$D/home"
	# An edit just before the run, which the run changes again: the
	# run started from it, so it is no conflict.
	$AS sh -c "echo 2 > '$P/VERSION'"
	listing "$D/home" > before
	atf_check -s exit:0 -e save:run.err -o inline:"built in a sandbox\n" \
	    $AS "$CU" -s "$SOCK" run --overlay -p caller -w "$P" -- \
	    /bin/sh -c './configure && make -s CC=cc && ./hello &&
	    echo built >> NOTES && echo 3 > VERSION'
	listing "$D/home" > after
	atf_check -o empty diff before after
	grep -Eq '^sbx: changes kept as [0-9a-f]{12}$' run.err ||
	    atf_fail "no changeset line: $(cat run.err)"
	id=$(sed -n 's/^sbx: changes kept as //p' run.err)
	atf_check -s exit:0 -e empty \
	    -o inline:"A Makefile\nM NOTES\nM VERSION\nA config.h\nA hello\nA hello.o\n" \
	    $AS "$CU" -s "$SOCK" changes "$id"

	# The diff, a binary program among it, applies to a clean copy.
	atf_check -s exit:0 -e empty -o save:d.patch \
	    $AS "$CU" -s "$SOCK" diff "$id"
	grep -q '^GIT binary patch$' d.patch ||
	    atf_fail "hello is not a git binary patch"
	cp -a "$P" clean
	(cd clean && atf_check -o empty -e empty git apply --check ../d.patch &&
	    atf_check -o empty -e empty git apply ../d.patch)
	atf_check -o inline:"built in a sandbox\n" ./clean/hello

	# NOTES changes on the host meanwhile: a conflict.
	echo "host" >> "$P/NOTES"
	listing "$D/home" > before
	atf_check -s exit:4 -o empty -e match:"^sbxctl: conflict: NOTES: " \
	    $AS "$CU" -s "$SOCK" apply "$id" --all-or-nothing
	listing "$D/home" > after
	atf_check -o empty diff before after
	atf_check -s exit:4 -o empty -e match:"^sbxctl: conflict: NOTES: " \
	    -e not-match:"conflict: (Makefile|VERSION|config.h|hello)" \
	    $AS "$CU" -s "$SOCK" apply "$id"
	atf_check -o inline:"first\nhost\n" cat "$P/NOTES"
	atf_check -o inline:"3\n" cat "$P/VERSION"
	atf_check -o inline:"built in a sandbox\n" "$P/hello"
	atf_check -o inline:"$(id -u "$CALLER") 755\n" stat -c '%u %a' "$P/hello"
	atf_check -o inline:"$(id -u "$CALLER") 644\n" stat -c '%u %a' "$P/config.h"
	cmp "$P/Makefile" clean/Makefile || atf_fail "the applied Makefile differs"
	# What conflicted is kept; discard drops it.
	atf_check -s exit:0 -e empty -o match:"^$id  $P  " \
	    $AS "$CU" -s "$SOCK" changes
	atf_check -s exit:0 -e empty -o empty $AS "$CU" -s "$SOCK" discard "$id"
	atf_check -s exit:0 -e empty -o empty $AS "$CU" -s "$SOCK" changes
}
nested_build_cleanup() {
	common_cleanup
}

atf_test_case per_peer cleanup
per_peer_head() {
	atf_set "descr" "changesets-per-peer bounds what one caller keeps in the shared store: an overlay run past it is refused naming the keyword, before any sandbox, and DIR is untouched; a discard makes room"
}
per_peer_body() {
	EXTRA_CONF='changesets-per-peer 2'
	setup
	uid=$(id -u "$CALLER")
	plant "$uid" 00000000000a
	plant "$uid" 00000000000b
	mkdir "$D/proj"
	[ "$(id -u)" -eq 0 ] && chown "$CALLER" "$D/proj"
	atf_check -s exit:125 -o empty \
	    -e match:"^sbxctl: limit: run: --overlay: changesets-per-peer 2 reached for uid $uid \\(sbxctl discard one\\)\$" \
	    $AS "$CU" -s "$SOCK" run --overlay -p caller -w "$D/proj" -- \
	    /bin/sh -c 'echo x > /work/x'
	[ -z "$(ls -A "$D/proj")" ] || atf_fail "a refused run wrote DIR"
	[ "$(ls "$D/cs/$uid" | wc -l)" -eq 4 ] ||
	    atf_fail "the store changed: $(ls "$D/cs/$uid")"
	atf_check -s exit:0 -o empty -e empty \
	    $AS "$CU" -s "$SOCK" discard 00000000000a
	atf_check -s exit:0 -o empty -e match:"^sbx: changes kept as " \
	    $AS "$CU" -s "$SOCK" run --overlay -p caller -w "$D/proj" -- \
	    /bin/sh -c 'echo x > /work/x'
}
per_peer_cleanup() {
	common_cleanup
}

atf_test_case during_run cleanup
during_run_head() {
	atf_set "descr" "a file the host changes while an overlay run goes on is a conflict on apply, even where the run's view and DIR agree by then; the run's other changes apply"
}
during_run_body() {
	setup
	mkdir "$D/proj"
	echo base > "$D/proj/shared"
	[ "$(id -u)" -eq 0 ] &&
	    chown -R "$CALLER:$(id -gn "$CALLER")" "$D/proj"
	# The payload says it has started, then waits for the host's
	# change (it sees it through the lower layer) and makes its own.
	$AS "$CU" -s "$SOCK" run --overlay -p caller -w "$D/proj" -- \
	    /bin/sh -c 'echo started; i=0; while ! grep -q host shared &&
	    [ $i -lt 300 ]; do sleep 0.05; i=$((i+1)); done;
	    echo run >> shared; echo new > other' > run.out 2> run.err &
	bg=$!
	i=0
	while ! grep -q started run.out && [ $i -lt 600 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	grep -q started run.out || atf_fail "the payload did not start: $(cat run.err)"
	$AS sh -c "echo host >> '$D/proj/shared'"
	wait $bg || atf_fail "the run failed: $(cat run.err)"
	id=$(sed -n 's/^sbx: changes kept as //p' run.err)
	[ -n "$id" ] || atf_fail "no changeset: $(cat run.err)"
	atf_check -s exit:4 -o empty \
	    -e inline:"sbxctl: conflict: shared: changed in DIR while a run was going on\n" \
	    $AS "$CU" -s "$SOCK" apply "$id"
	atf_check -o inline:"base\nhost\n" cat "$D/proj/shared"
	atf_check -o inline:"new\n" cat "$D/proj/other"
}
during_run_cleanup() {
	common_cleanup
}

atf_test_case agent_t0 cleanup
agent_t0_head() {
	atf_set "descr" "an overlay run's T0 is the agent's t0_us when it lies within the last second (sbxctl sends its start), else the monitor's own; either way the payload starts after it"
}
agent_t0_body() {
	setup
	P=$D/ctlprobe
	cp "$(atf_get_srcdir)/helpers/ctlprobe" "$P" && chmod 755 "$P"
	mkdir "$D/proj"
	[ "$(id -u)" -eq 0 ] &&
	    chown -R "$CALLER:$(id -gn "$CALLER")" "$D/proj"
	now() { "$(atf_get_srcdir)/helpers/cstool" now; }
	discard_all() {
		for id in $($AS "$CU" -s "$SOCK" changes | awk '{ print $1 }'); do
			atf_check $AS "$CU" -s "$SOCK" discard "$id"
		done
		[ -z "$(t0s)" ] || atf_fail "changesets left: $(t0s)"
	}
	t0s() {		# the changesets' T0s, in ns, one a line
		find "$D/cs" -name '*.meta' -exec sed -n \
		    's/.*"first_run_start": *"\([0-9]*\)".*/\1/p' {} + | sort
	}
	# Within the last second: the agent's, to the microsecond.
	us=$(( $(now) / 1000 - 300000 ))
	atf_check -o inline:"ok\n" $AS env CTLPROBE_DIR="$D/proj" \
	    CTLPROBE_T0_US="$us" "$P" "$SOCK" run-t0-dir
	atf_check_equal "${us}000" "$(t0s)"
	# sbxctl sends its own start: before the request, after the shell's.
	discard_all
	before=$(now)
	$AS "$CU" -s "$SOCK" run --overlay -p caller -w "$D/proj" -- \
	    /bin/sh -c ': > mine' 2> run.err || atf_fail "$(cat run.err)"
	after=$(now)
	t=$(t0s)
	[ "$t" -gt "$before" ] && [ "$t" -lt "$after" ] ||
	    atf_fail "T0 $t is not between $before and $after"
	# Five seconds old: a request that waited; now serves instead.
	discard_all
	us=$(( $(now) / 1000 - 5000000 ))
	atf_check -o inline:"ok\n" $AS env CTLPROBE_DIR="$D/proj" \
	    CTLPROBE_T0_US="$us" "$P" "$SOCK" run-t0-dir
	t=$(t0s)
	[ "$t" -gt $(( us * 1000 + 4000000000 )) ] ||
	    atf_fail "a T0 5 s old was taken: $t (sent ${us}000)"
	# DIR itself was never written.
	atf_check -o empty ls -A "$D/proj"
}
agent_t0_cleanup() {
	common_cleanup
}

atf_test_case stale_stream cleanup
stale_stream_head() {
	atf_set "descr" "--overlay-into: a stream file left by a run that never ended (a monitor that died) is dropped with a warning, not taken for a run going on; a run that is going on still refuses a second one"
}
stale_stream_body() {
	setup
	uid=$(id -u "$CALLER")
	mkdir "$D/proj"
	[ "$(id -u)" -eq 0 ] &&
	    chown "$CALLER:$(id -gn "$CALLER")" "$D/proj"
	$AS "$CU" -s "$SOCK" run --overlay -p caller -w "$D/proj" -- \
	    /bin/sh -c ': > first' 2> run.err || atf_fail "$(cat run.err)"
	id=$(sed -n 's/^sbx: changes kept as //p' run.err)
	[ -n "$id" ] || atf_fail "no changeset: $(cat run.err)"
	# What a monitor killed during a run on it leaves behind.
	echo partial > "$D/cs/$uid/$id.cs.tmp"
	[ "$(id -u)" -eq 0 ] && chown nobody "$D/cs/$uid/$id.cs.tmp"
	atf_check -s exit:0 -o empty -e inline:"sbx: changes kept as $id\n" \
	    $AS "$CU" -s "$SOCK" run --overlay-into "$id" -p caller \
	    -w "$D/proj" -- /bin/sh -c ': > second'
	grep -q "changeset $id: a stream left by a run that did not end, dropped" \
	    mon.log || atf_fail "no warning: $(tail -3 mon.log)"
	atf_check -o inline:"A first\nA second\n" $AS "$CU" -s "$SOCK" \
	    changes "$id"
	# One going on: a second is refused, and the first keeps its own.
	$AS "$CU" -s "$SOCK" run --overlay-into "$id" -p caller \
	    -w "$D/proj" -- /bin/sh -c 'echo started; sleep 2; : > third' \
	    > bg.out 2> bg.err &
	bg=$!
	i=0
	while ! grep -q started bg.out && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	atf_check -s exit:125 -o empty \
	    -e match:"changeset $id: another run on it is going on" \
	    $AS "$CU" -s "$SOCK" run --overlay-into "$id" -p caller \
	    -w "$D/proj" -- /bin/true
	wait $bg || atf_fail "the first run failed: $(cat bg.err)"
	atf_check -o inline:"A first\nA second\nA third\n" $AS "$CU" \
	    -s "$SOCK" changes "$id"
	atf_check -o empty ls -A "$D/proj"
}
stale_stream_cleanup() {
	common_cleanup
}

atf_test_case overlay_needs_workdir
overlay_needs_workdir_head() {
	atf_set "descr" "--overlay without -w is a usage error naming -w, before any connection"
}
overlay_needs_workdir_body() {
	sbx_test_paths
	atf_check -s exit:2 -o empty -e match:"run: --overlay: needs -w DIR" \
	    "$C" -s /nonexistent/sbx.sock run --overlay -- /bin/true
}

atf_init_test_cases() {
	atf_add_test_case overlay_run
	atf_add_test_case background
	atf_add_test_case overlay_needs_workdir
	atf_add_test_case list_discard
	atf_add_test_case expiry
	atf_add_test_case nested_build
	atf_add_test_case during_run
	atf_add_test_case agent_t0
	atf_add_test_case stale_stream
	atf_add_test_case per_peer
}
