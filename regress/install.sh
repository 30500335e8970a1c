#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# install.sh: `make install` into a DESTDIR and into a PREFIX, and the
# installed programs run from there: the monitor finds its roles in the
# installed layout, -P prints exactly the installed privilege files, a
# sandbox runs, the README's C example builds against the installed
# sbx.pc and talks to the installed monitor, both systemd units pass
# systemd-analyze verify, and their ExecStart lines start a working
# service when run by hand (systemd is not init on the test machines).
# As root the system unit's line creates the suite's known user _sbx
# (and its group sbx) through the installed sysusers.d snippet.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

# paths: S, B, T (the source tree), BN (the build directory's name in
# it, for make's B=).
paths() {
	sbx_test_paths
	T=$(cd "$S/top" && pwd -P)
	B=$(cd "$S/.." && pwd -P)
	BN=$(basename "$B")
	[ "$(cd "$T/$BN" 2>/dev/null && pwd -P)" = "$B" ] ||
	    atf_fail "the build tree $B is not $T/$BN"
}

# install_to VAR=VALUE...: make install with those variables; the log in
# install.log.
install_to() {
	make -C "$T" --no-print-directory B="$BN" "$@" install \
	    > install.log 2>&1 || { cat install.log >&2
	    atf_fail "make install $* failed"; }
}

# norm: a privilege file as sbx-monitor -P prints it: no comments, no
# blank lines, single spaces.
norm() {
	sed -e 's/#.*//' -e 's/[[:space:]]\{1,\}/ /g' -e 's/^ //' \
	    -e 's/ $//' | grep -v '^$'
}

# as_user CMD...: CMD as the user a user unit runs as: this one, or
# "nobody" for root.  $AS is the same prefix, for atf_check.
as_user() {
	# shellcheck disable=SC2086
	$AS "$@"
}
AS=
if [ "$(id -u)" -eq 0 ]; then
	AS="setpriv --reuid=$(id -u nobody) --regid=$(id -g nobody) --clear-groups"
fi

# staged: the DESTDIR install of the build, in $D (prefix $P in it).
staged() {
	paths
	sbx_test_dir sbxinst
	chmod 755 "$D"
	install_to DESTDIR="$D/root"
	P=$(sed -n 's/^prefix=//p' "$D"/root/*/*/lib*/pkgconfig/sbx.pc \
	    "$D"/root/*/lib*/pkgconfig/sbx.pc 2>/dev/null | head -n 1)
	[ -n "$P" ] || atf_fail "no sbx.pc installed"
	R=$D/root$P
	IM=$R/sbin/sbx-monitor
	IC=$R/bin/sbxctl
}

common_cleanup() {
	for f in mon.pid mon2.pid; do
		[ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
	done
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case layout cleanup
layout_head() {
	atf_set "descr" "make install DESTDIR= puts every part in its place and keeps an existing sbx.conf"
	atf_set "require.progs" "make realpath"
}
layout_body() {
	staged
	for f in sbin/sbx-monitor bin/sbxctl libexec/sbx/sbx-launcher \
	    libexec/sbx/sbx-proxy libexec/sbx/sbx-provider-runner \
	    libexec/sbx/sbxctl-tools \
	    lib/libsbx.a lib/libsbx.so.0 lib/libsbx.so lib/pkgconfig/sbx.pc \
	    include/sbx.h etc/sbx/sbx.conf etc/sbx/providers.json \
	    share/sbx/examples/sbx.conf lib/systemd/system/sbx-monitor.service \
	    lib/systemd/user/sbx-monitor.service lib/sysusers.d/sbx.conf \
	    lib/tmpfiles.d/sbx.conf share/man/man8/sbx-monitor.8 \
	    share/man/man1/sbxctl.1 share/man/man3/sbx_connect.3 \
	    share/man/man5/sbx.conf.5 share/man/man7/sbx-protocol.7; do
		[ -e "$R/$f" ] || atf_fail "$P/$f was not installed"
	done
	# The installed sbxctl finds the installed provider runner
	# (SBX_BIN_ROLEDIR) for an offline gate evaluation.
	g=$T/regress/fixtures/gates
	printf 'gate-packs "%s"\nprovider-allowlist "%s"\n' "$g/gate-packs" \
	    "$PWD/none.json" > offline.conf
	atf_check -s exit:0 -e ignore \
	    -o match:'"digest": "sha256:52659cbd46e45885d84f2ce3d8f7148f3b4f0343243b6a06f1efb1e34b645667"' \
	    "$IC" gates evaluate --offline --config offline.conf \
	    --binding "$g/conformance-run.binding.json" \
	    --metrics "$g/passing.metrics.json" --holdout "$g/holdout.json" \
	    --upstream "$g/upstream-clean.json" --now 2026-09-03T00:00:00.000Z \
	    --trusted-binding-digest sha256:713127fce4b97506487ce80c65998b29b110aff148156496336c6a859948149c
	# Every privilege file of the tree, and nothing else.
	(cd "$T" && ls */*.priv | sed 's|.*/||' | sort) > want
	(cd "$R/share/sbx/priv" && ls | sort) > got
	atf_check -s exit:0 -o empty diff want got
	# Nothing the monitor refuses to read (group/other writable).
	atf_check -s exit:0 -o empty find "$D/root" -perm /022 ! -type l
	# The installed example names its installed directory.
	atf_check -s exit:0 -o match:"^sbxdir = \"$P/etc/sbx\"" \
	    cat "$R/etc/sbx/sbx.conf"
	atf_check -s exit:0 -o match:"^libdir=$P/lib\$" \
	    -o match:"^includedir=$P/include\$" cat "$R/lib/pkgconfig/sbx.pc"
	# An operator's configuration survives the next install; the
	# example beside it is refreshed.
	echo "# mine" >> "$R/etc/sbx/sbx.conf"
	cp "$R/etc/sbx/sbx.conf" mine.conf
	install_to DESTDIR="$D/root"
	atf_check -s exit:0 -o match:"keeping .*/etc/sbx/sbx.conf" \
	    cat install.log
	atf_check -s exit:0 diff mine.conf "$R/etc/sbx/sbx.conf"
	atf_check -s exit:1 -o ignore grep -q '# mine' \
	    "$R/share/sbx/examples/sbx.conf"
}
layout_cleanup() {
	common_cleanup
}

atf_test_case privs cleanup
privs_head() {
	atf_set "descr" "the installed sbx-monitor -P prints exactly the installed privilege files"
	atf_set "require.progs" "make realpath"
}
privs_body() {
	staged
	atf_check -s exit:0 -o save:tables -e empty "$IM" -P
	n=0
	for f in "$R"/share/sbx/priv/*.priv; do
		n=$((n + 1))
		norm < "$f" > file.txt
		role=$(sed -n 's/^role //p' file.txt)
		[ -n "$role" ] || atf_fail "$f names no role"
		awk -v r="$role" 'BEGIN { RS = "" }
		    { split($0, l, "\n"); if (l[1] ~ "^role +" r "$") print }' \
		    tables | norm > printed.txt
		[ -s printed.txt ] || atf_fail "-P prints no table for $role"
		diff -u file.txt printed.txt > d.txt ||
		    atf_fail "$(basename "$f") differs from -P: $(cat d.txt)"
	done
	# And no table that has no file.
	m=$(grep -c '^role ' tables)
	[ "$m" -eq "$n" ] || atf_fail "-P prints $m tables, $n files installed"
}
privs_cleanup() {
	common_cleanup
}

atf_test_case run cleanup
run_head() {
	atf_set "descr" "the installed monitor checks the installed sbx.conf, finds its installed roles and runs a sandbox; the README's C example builds against the installed sbx.pc and runs one too"
	atf_set "require.progs" "make realpath pkg-config cc"
}
run_body() {
	staged
	# The installed example checks (its directories moved here).
	mkdir -p "$D/log" "$D/cache"
	atf_check -s exit:0 -o ignore -e inline:"configuration OK\n" \
	    "$IM" -n -f "$R/etc/sbx/sbx.conf" -D rundir="$D/run" \
	    -D logdir="$D/log" -D cachedir="$D/cache"
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "log-file \"$D/audit.jsonl\""
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$IM" "$IC" "$D/sbx.conf" "$SOCK"
	# Every role runs from the installed libexec, none from the build.
	atf_check -s exit:0 -o save:status "$IC" -s "$SOCK" status
	for r in launcher proxy provider-runner; do
		pid=$(awk -v r="$r" '$1 == "role" && $2 == r { print $4 }' \
		    status)
		[ -n "$pid" ] || atf_fail "no $r in: $(cat status)"
		exe=$(readlink "/proc/$pid/exe") ||
		    atf_fail "cannot read the $r's executable"
		[ "$exe" = "$R/libexec/sbx/sbx-$r" ] ||
		    atf_fail "$r runs $exe, not the installed one"
	done
	atf_check -s exit:0 -o inline:"hello\n" -e empty \
	    "$IC" -s "$SOCK" run -- /bin/sh -c 'echo hello'
	atf_check -s exit:3 -o empty -e ignore \
	    "$IC" -s "$D/nosuch.sock" ping

	# The README's agent example, built as its comment says, with
	# pkg-config pointed at the staged installation.
	sed -n '/^```c$/,/^```$/p' "$T/README.md" | sed '1d;$d' > hello-sbx.c
	grep -q 'sbx_connect' hello-sbx.c ||
	    atf_fail "README.md has no C example"
	export PKG_CONFIG_PATH="$R/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D/root"
	flags=$(pkg-config --cflags --libs sbx) ||
	    atf_fail "pkg-config does not find the installed sbx.pc"
	# A sanitizer build's libsbx needs its runtime linked first, as
	# any program using that library would (make sanitize).
	grep -q __asan_init "$R/lib/libsbx.so.0" &&
	    flags="-fsanitize=address,undefined $flags"
	# shellcheck disable=SC2086
	atf_check -s exit:0 -o empty -e empty \
	    cc -Wall -Wextra -Werror -o hello-sbx hello-sbx.c $flags
	atf_check -s exit:0 -o match:'^connected to sbx-monitor ' \
	    -o match:'^hello from ' -o match:'"reason":"exited","status":0' \
	    -e empty env LD_LIBRARY_PATH="$R/lib" ./hello-sbx "$SOCK"
	# The program is linked with the installed libsbx.
	atf_check -s exit:0 -o match:"libsbx.so.0 => $R/lib/libsbx.so.0" \
	    env LD_LIBRARY_PATH="$R/lib" ldd ./hello-sbx
	kill -TERM "$(cat mon.pid)"
}
run_cleanup() {
	common_cleanup
}

# prefixed: make install PREFIX=$D/p (no DESTDIR): every path in the
# units is a real one, so they can be verified and their lines run.
prefixed() {
	paths
	sbx_test_dir sbxunit
	chmod 755 "$D"
	P=$D/p
	install_to PREFIX="$P"
	export MANPATH="$P/share/man"
}

atf_test_case units cleanup
units_head() {
	atf_set "descr" "both systemd units pass systemd-analyze verify"
	atf_set "require.progs" "make realpath systemd-analyze man"
}
units_body() {
	prefixed
	mkdir -p v
	cp "$P/lib/systemd/system/sbx-monitor.service" v/
	atf_check -s exit:0 -o empty -e empty \
	    systemd-analyze verify "$PWD/v/sbx-monitor.service"
	mkdir -p xdg u
	chmod 700 xdg
	cp "$P/lib/systemd/user/sbx-monitor.service" u/
	atf_check -s exit:0 -o empty -e empty env XDG_RUNTIME_DIR="$PWD/xdg" \
	    systemd-analyze --user verify "$PWD/u/sbx-monitor.service"
	# The options the issue asks for.
	for o in Restart=on-failure Delegate=yes RuntimeDirectory=sbx; do
		atf_check -s exit:0 -o ignore grep -qx "$o" \
		    v/sbx-monitor.service
	done
	atf_check -s exit:0 -o ignore grep -q "^ExecStart=$P/sbin/sbx-monitor " \
	    v/sbx-monitor.service
}
units_cleanup() {
	common_cleanup
}

# execline UNIT KEY: the command line of UNIT's KEY= (ExecStart...), the
# systemd specifiers of the user unit replaced by this test's
# directories.
execline() {
	sed -n "s/^$2=//p" "$1" | head -n 1 | sed -e 's/\$\$/$/g' -e "s|%t|$X|g" \
	    -e "s|%E|$D/config|g" -e "s|%L|$D/state/log|g" \
	    -e "s|%C|$D/cache|g" -e "s|%g|$(as_user id -gn)|g"
}

atf_test_case system_unit cleanup
system_unit_head() {
	atf_set "descr" "the system unit's ExecStartPre and ExecStart lines, run by hand, check the config and serve a sandbox"
	atf_set "require.progs" "make realpath"
}
system_unit_body() {
	prefixed
	U=$P/lib/systemd/system/sbx-monitor.service
	pre=$(sed -n 's/^ExecStartPre=//p' "$U" | head -n 1)
	line=$(sed -n 's/^ExecStart=//p' "$U")
	case "$line" in
	"$P/sbin/sbx-monitor -d -f $P/etc/sbx/sbx.conf") ;;
	*) atf_fail "unexpected ExecStart=$line" ;;
	esac
	# What systemd and tmpfiles.d would make: the directories of the
	# example, here (%t is /run for a system unit).
	mkdir -p "$D/rt/sbx" "$D/log" "$D/cache"
	defs="-D rundir=$D/rt/sbx -D logdir=$D/log -D cachedir=$D/cache"
	if [ "$(id -u)" -eq 0 ]; then
		# The package's users: _sbx, group sbx (the suite's own).
		atf_check -s exit:0 -o ignore -e ignore \
		    systemd-sysusers "$P/lib/sysusers.d/sbx.conf"
		atf_check -s exit:0 -o match:'^_sbx:' getent passwd _sbx
		atf_check -s exit:0 -o match:"^_sbx:.*:$(getent group sbx |
		    cut -d: -f3):" getent passwd _sbx
		# identity service's own user, with a group of its name.
		atf_check -s exit:0 -o match:"^_sbxsandbox:.*:$(getent group \
		    _sbxsandbox | cut -d: -f3):" getent passwd _sbxsandbox
		# The second ExecStartPre: the runtime directory to _sbx.
		chown=$(sed -n 's/^ExecStartPre=//p' "$U" | sed -n 2p |
		    sed -e "s|%t|$D/rt|g")
		atf_check -s exit:0 $chown
	else
		defs="$defs -D group=$(id -gn)"
	fi
	# shellcheck disable=SC2086
	atf_check -s exit:0 -o empty -e inline:"configuration OK\n" $pre $defs
	# shellcheck disable=SC2086
	$line $defs > mon.log 2>&1 &
	echo $! > mon.pid
	SOCK=$D/rt/sbx/sbx.sock
	i=0
	until "$P/bin/sbxctl" -s "$SOCK" ping > /dev/null 2>&1; do
		i=$((i + 1))
		kill -0 "$(cat mon.pid)" 2>/dev/null && [ $i -lt 150 ] || {
			cat mon.log >&2; atf_fail "the service did not start"; }
		sleep 0.1
	done
	if [ "$(id -u)" -eq 0 ]; then
		atf_check -s exit:0 -o match:'user _sbx' \
		    "$P/bin/sbxctl" -s "$SOCK" status
	fi
	atf_check -s exit:0 -o inline:"hi\n" -e empty \
	    "$P/bin/sbxctl" -s "$SOCK" run -- /bin/sh -c 'echo hi'
	kill -TERM "$(cat mon.pid)"
	wait "$(cat mon.pid)"
	atf_check -s exit:0 test ! -e "$SOCK"
}
system_unit_cleanup() {
	common_cleanup
}

atf_test_case user_unit cleanup
user_unit_head() {
	atf_set "descr" "the user unit's ExecStart line, run by hand as a user, serves on \$XDG_RUNTIME_DIR/sbx/sbx.sock, where sbxctl looks by default"
	atf_set "require.progs" "make realpath setpriv"
}
user_unit_body() {
	prefixed
	[ -e /run/sbx/sbx.sock ] &&
	    atf_skip "a system monitor's /run/sbx/sbx.sock exists: sbxctl would use it"
	U=$P/lib/systemd/user/sbx-monitor.service
	X=$D/xdg
	# What systemd --user makes: RuntimeDirectory, ConfigurationDirectory,
	# LogsDirectory, CacheDirectory.
	mkdir -p "$X/sbx" "$D/config/sbx" "$D/state/log/sbx" \
	    "$D/cache/sbx-build"
	chmod 700 "$X"
	[ "$(id -u)" -eq 0 ] && chown -R nobody "$X" "$D/config" \
	    "$D/state" "$D/cache"
	pre=$(execline "$U" ExecStartPre)
	line=$(execline "$U" ExecStart)
	# ExecStartPre is one sh -c '...' with its arguments: through sh.
	as_user sh -c "$pre" || atf_fail "ExecStartPre failed: $pre"
	atf_check -s exit:0 -o match:'"providers":\[\]' \
	    cat "$D/config/sbx/providers.json"
	# shellcheck disable=SC2086
	as_user env XDG_RUNTIME_DIR="$X" $line > mon.log 2>&1 &
	echo $! > mon.pid
	i=0
	until as_user env XDG_RUNTIME_DIR="$X" SBX_SOCKET= \
	    "$P/bin/sbxctl" ping > /dev/null 2>&1; do
		i=$((i + 1))
		kill -0 "$(cat mon.pid)" 2>/dev/null && [ $i -lt 150 ] || {
			cat mon.log >&2; atf_fail "the user service did not start"; }
		sleep 0.1
	done
	atf_check -s exit:0 test -S "$X/sbx/sbx.sock"
	# shellcheck disable=SC2086
	atf_check -s exit:0 -o inline:"hi\n" -e empty $AS \
	    env XDG_RUNTIME_DIR="$X" SBX_SOCKET= "$P/bin/sbxctl" run -- \
	    /bin/sh -c 'echo hi'
	# Without the variable sbxctl names the system socket.
	atf_check -s exit:3 -o empty -e match:'/run/sbx/sbx.sock' \
	    env -u XDG_RUNTIME_DIR -u SBX_SOCKET "$P/bin/sbxctl" ping
	kill -TERM "$(cat mon.pid)"
}
user_unit_cleanup() {
	common_cleanup
}

atf_init_test_cases() {
	atf_add_test_case layout
	atf_add_test_case privs
	atf_add_test_case run
	atf_add_test_case units
	atf_add_test_case system_unit
	atf_add_test_case user_unit
}
