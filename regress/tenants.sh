#! /usr/bin/env atf-sh
#
# tenants.sh: sbx as a shared service, played as a hostile but allowed
# tenant.  Each case tries one way a caller could gain rights on the
# host, starve the service or reach another caller, and fails if it
# works.  As root the monitor drops to "nobody" and the tenants are the
# unprivileged users "sbxtest" (scripts/check creates it) and root; as
# an unprivileged user the cases that need a second user skip and say so.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

# ---- set-id bits and ids inside (setid_*, ids_*) ----

# ---- the launcher's split and its refusals (launcher_*) ----

# ---- bounded connections (flood_*) ----

# ---- passed descriptors, the socket, provider loads (fd_*, socket_*, load_*) ----

# fd_need_fuse: skip, saying why, unless this user can run slowfuse.
fd_need_fuse() {
	grep -qw fuse /proc/filesystems ||
	    atf_skip "the kernel has no FUSE (no fuse in /proc/filesystems)"
	[ -c /dev/fuse ] || atf_skip "no /dev/fuse"
	command -v fusermount3 > /dev/null ||
	    atf_skip "no fusermount3 (scripts/deps installs fuse3)"
	[ -x "$B/regress/helpers/slowfuse" ] ||
	    atf_skip "no slowfuse helper (libfuse3-dev missing at build time)"
	[ -r /dev/fuse ] && [ -w /dev/fuse ] ||
	    atf_skip "/dev/fuse is $(stat -c %A /dev/fuse) root: only root runs FUSE daemons on this host, so $(id -un) cannot play this tenant"
}

# fd_wait_line FILE WHAT: wait (60 s at most) until FILE has a line.
fd_wait_line() {
	_i=0
	until [ -s "$1" ]; do
		_i=$((_i + 1))
		[ $_i -lt 600 ] || atf_fail "$2: no answer within 60 s"
		sleep 0.1
	done
}

atf_test_case fd_fuse cleanup
fd_fuse_head() {
	atf_set "descr" "A descriptor on FUSE, whose daemon sits on FLUSH" \
	    "and STATFS, is refused by name and closed off the event loop:" \
	    "another client is served meanwhile, and a flood of them ends" \
	    "the sender's connection (issue 20, item 5)"
	atf_set "timeout" "300"
}
fd_fuse_body() {
	sbx_test_paths
	fd_need_fuse
	sbx_test_dir sbxfd
	P=$D/fdpass.py
	cp "$S/top/regress/fdpass.py" "$P"
	mkdir "$D/mnt"
	"$B/regress/helpers/slowfuse" "$D/release" "$D/mnt" \
	    > fuse.log 2>&1 &
	echo $! > fuse.pid
	echo "$D/mnt" > fuse.mnt
	i=0
	until grep -q " $D/mnt " /proc/self/mountinfo; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat fuse.log; atf_fail "slowfuse did not mount"; }
		sleep 0.1
	done
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "log-file \"$D/audit.jsonl\""
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	refused='descriptor on a FUSE file system \(fuse\.slowfuse\): refused, its close would wait for a daemon the client controls'

	# PING takes no descriptor; the old monitor closed it and froze.
	# The clients block on their own close until the release: they run
	# in the background.
	python3 "$P" "$SOCK" 2 '{}' "$D/mnt/slow" r > ping.out 2>&1 &
	echo $! > bg.pids
	fd_wait_line ping.out "ping with a FUSE descriptor"
	atf_check -o match:"^error bad-request ping: $refused" cat ping.out

	# A real request: run with its stdin from the slow file.  sbxctl
	# itself stalls on closing its copy once sent (its own daemon), so
	# the refusal is awaited in the audit log, sbxctl's words after the
	# release.  The shell's "< file" would stall already (it closes
	# the descriptor it opened after the dup2): python opens the file
	# as descriptor 0 itself.
	python3 -c 'import os, sys
os.close(0)
os.open(sys.argv[1], os.O_RDONLY)
os.set_inheritable(0, True)
os.execv(sys.argv[2], sys.argv[2:])' "$D/mnt/slow" "$C" -s "$SOCK" \
	    run -- true > run.out 2> run.err &
	echo $! > run.pid
	i=0
	until grep -q "fd: descriptor on a FUSE" "$D/audit.jsonl"; do
		i=$((i + 1))
		[ $i -lt 600 ] || { cat mon.log; atf_fail "run with stdin on FUSE: no refusal within 60 s"; }
		sleep 0.1
	done

	# A workdir on FUSE (a directory: its close does not flush, but
	# reading it asks the daemon).
	atf_check -s not-exit:0 -e match:"fd: $refused" \
	    timeout 60 "$C" -s "$SOCK" run -w "$D/mnt" -- true

	# A flood of them on one connection: refused, then cut off.
	python3 "$P" "$SOCK" 15 '{}' "$D/mnt/slow" r 40 > flood.out 2>&1 &
	echo $! >> bg.pids
	i=0
	until grep -q '^closed' flood.out; do
		i=$((i + 1))
		[ $i -lt 600 ] || { cat flood.out; atf_fail "the flood was not cut off"; }
		sleep 0.1
	done
	n=$(grep -cE "^error bad-request gates doc: $refused" flood.out)
	[ "$n" -ge 1 ] && [ "$n" -le 17 ] ||
	    atf_fail "$n descriptors refused before the cut, want 1 to 17"

	# Every close above is still waiting for the daemon: another
	# client is served all the same.
	atf_check -o match:'answered' timeout 60 "$C" -s "$SOCK" ping

	touch "$D/release"
	for p in $(cat bg.pids); do
		wait "$p" 2>/dev/null
	done
	wait "$(cat run.pid)"
	atf_check -o match:"fd: $refused" cat run.err
	atf_check -o match:'answered' timeout 60 "$C" -s "$SOCK" ping
}
fd_fuse_cleanup() {
	[ -f tmpdir ] && touch "$(cat tmpdir)/release"
	[ -f bg.pids ] && for p in $(cat bg.pids) $(cat run.pid 2>/dev/null); do
		kill "$p" 2>/dev/null
	done
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	if [ -f fuse.mnt ]; then
		fusermount3 -u "$(cat fuse.mnt)" 2>/dev/null ||
		    umount -l "$(cat fuse.mnt)" 2>/dev/null
	fi
	[ -f fuse.pid ] && kill "$(cat fuse.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case load_opath cleanup
load_opath_head() {
	atf_set "descr" "PROVIDER_LOAD refuses an O_PATH descriptor of a" \
	    "directory the caller cannot read; a bundle opened for reading" \
	    "still loads (issue 20)"
	atf_set "timeout" "300"
}
load_opath_body() {
	. "$(atf_get_srcdir)/top/regress/provider-test.subr"
	pt_init
	P=$D/fdpass.py
	cp "$S/top/regress/fdpass.py" "$P"
	chmod 644 "$P"
	pt_example ex
	if [ "$(id -u)" -eq 0 ]; then
		id sbxtest > /dev/null 2>&1 ||
		    atf_skip "no user sbxtest to play the caller (scripts/check creates it)"
		# Readable by the service (nobody), not by the caller.
		cp -R "$W/ex" "$D/secret"
		chown -R nobody "$D/secret"
		chmod 700 "$D/secret"
		pt_start "socket-group \"$(id -gn sbxtest)\"" \
		    "allow uid \"sbxtest\""
		as="runuser -u sbxtest --"
	else
		# As a user the service is that user: a directory of one's
		# own with mode 0 is one it cannot read either, but the
		# refusal must come from the descriptor, not the read.
		cp -R "$W/ex" "$D/secret"
		chmod 000 "$D/secret"
		pt_start
		as=""
	fi
	atf_check -o match:'^error bad-request provider load: the bundle directory descriptor was opened with O_PATH' \
	    $as python3 "$P" "$SOCK" 9 '{"allowBundleProviders":true}' \
	    "$D/secret" path
	atf_check -o match:'^error bad-request provider load: the bundle directory descriptor is not a directory' \
	    $as python3 "$P" "$SOCK" 9 '{"allowBundleProviders":true}' \
	    "$P" r
	atf_check -o match:'^ok ' \
	    $as python3 "$P" "$SOCK" 9 '{"allowBundleProviders":true}' \
	    "$W/ex" dir
	pt_load "$W/ex"
	chmod 700 "$D/secret"
}
load_opath_cleanup() {
	[ -f tmpdir ] && chmod -R u+rwx "$(cat tmpdir)" 2>/dev/null
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

# ---- what a peer sees; the example configuration (status_*, example_*) ----

atf_init_test_cases() {
	# set-id and ids
	:
	# launcher
	:
	# floods
	:
	# descriptors, socket, loads
	atf_add_test_case fd_fuse
	atf_add_test_case load_opath
	# status, example
	:
}
