#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# deb.sh: `make deb` builds the Debian packages from debian/ with
# dpkg-buildpackage, lintian finds no error in them (make deb fails
# otherwise), they hold what they should (conffiles, the units, the
# sysusers.d and tmpfiles.d snippets, a postinst that creates the user
# through systemd-sysusers and enables the unit without starting it),
# and the binaries unpacked into a throwaway root run: the monitor finds
# its roles in the package's layout, prints the packaged privilege
# files, checks the packaged configuration and serves a sandbox.
#
# The build takes about half a minute here.  Without the packaging tools
# (scripts/deps check installs them) the case is skipped and says why.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

paths() {
	sbx_test_paths
	T=$(cd "$S/top" && pwd -P)
	B=$(cd "$S/.." && pwd -P)
	BN=$(basename "$B")
}

norm() {
	sed -e 's/#.*//' -e 's/[[:space:]]\{1,\}/ /g' -e 's/^ //' \
	    -e 's/ $//' | grep -v '^$'
}

common_cleanup() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case package cleanup
package_head() {
	atf_set "descr" "make deb builds lintian-clean packages whose contents and maintainer scripts are right and whose binaries run from a throwaway root"
	atf_set "require.progs" "make dpkg-buildpackage dpkg-deb dh lintian"
	atf_set "timeout" "900"
}
package_body() {
	paths
	sbx_test_dir sbxdeb
	chmod 755 "$D"
	# Built in a copy of the source (make deb's own), into $D/deb.
	make -C "$T" --no-print-directory B="$BN" DEB_DIR="$D/deb" deb \
	    > deb.log 2>&1 || { tail -n 40 deb.log >&2
	    atf_fail "make deb failed (lintian errors fail it too)"; }
	V=$(sed -n '1s/^sbx (\([^)]*\)).*/\1/p' "$T/debian/changelog")
	A=$(dpkg --print-architecture)
	for p in sbx libsbx0 libsbx-dev; do
		[ -f "$D/deb/${p}_${V}_$A.deb" ] ||
		    atf_fail "no ${p}_${V}_$A.deb: $(ls "$D/deb")"
	done
	deb=$D/deb/sbx_${V}_$A.deb

	dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' > files
	for f in /usr/sbin/sbx-monitor /usr/bin/sbxctl \
	    /usr/libexec/sbx/sbx-launcher /usr/libexec/sbx/sbx-proxy \
	    /usr/libexec/sbx/sbx-provider-runner \
	    /usr/libexec/sbx/sbxctl-tools /etc/sbx/sbx.conf \
	    /etc/sbx/providers.json /lib/systemd/system/sbx-monitor.service \
	    /usr/lib/systemd/user/sbx-monitor.service \
	    /usr/lib/sysusers.d/sbx.conf /usr/lib/tmpfiles.d/sbx.conf \
	    /usr/share/sbx/priv/proxy.priv /usr/share/man/man8/sbx-monitor.8.gz; do
		grep -qx "$f" files || atf_fail "$f is not in the sbx package"
	done
	dpkg-deb -c "$D/deb/libsbx-dev_${V}_$A.deb" | awk '{ print $6 }' \
	    > devfiles
	for f in include/sbx.h pkgconfig/sbx.pc libsbx.a libsbx.so \
	    man3/sbx_connect.3.gz; do
		grep -q "$f\$" devfiles || atf_fail "$f is not in libsbx-dev"
	done

	dpkg-deb -e "$deb" ctl
	atf_check -s exit:0 -o inline:"/etc/sbx/providers.json\n/etc/sbx/sbx.conf\n" \
	    sort ctl/conffiles
	# The user through sysusers, before the debhelper part (tmpfiles,
	# units); the system unit enabled, never started; the user unit
	# left to each user.
	atf_check -s exit:0 -o match:'systemd-sysusers .*sbx\.conf' \
	    -o match:"deb-systemd-helper enable 'sbx-monitor.service'" \
	    -o match:'systemd-tmpfiles .*--create sbx\.conf' cat ctl/postinst
	atf_check -s exit:1 -o empty grep -E 'deb-systemd-invoke (start|restart)' \
	    ctl/postinst
	# A user unit is enabled again on upgrade only where a user had
	# enabled it (debhelper's --no-enable snippet), never on install.
	if grep -q -- '--user enable' ctl/postinst; then
		grep -q -- '--user debian-installed' ctl/postinst ||
		    atf_fail "the postinst enables the user unit"
	fi
	[ "$(grep -n systemd-sysusers ctl/postinst | head -n 1 | cut -d: -f1)" -lt \
	    "$(grep -n systemd-tmpfiles ctl/postinst | head -n 1 | cut -d: -f1)" ] ||
	    atf_fail "the postinst runs tmpfiles before sysusers"

	# Into a throwaway root: the users the postinst would create.
	Z=$D/root
	dpkg-deb -x "$deb" "$Z"
	mkdir -p "$Z/etc"
	touch "$Z/etc/passwd" "$Z/etc/group"
	atf_check -s exit:0 -o ignore -e ignore \
	    systemd-sysusers --root="$Z" sbx.conf
	atf_check -s exit:0 -o match:'^_sbx:x:[0-9]+:[0-9]+:.*:/usr/sbin/nologin$' \
	    cat "$Z/etc/passwd"
	gid=$(sed -n 's/^sbx:x:\([0-9]*\):.*/\1/p' "$Z/etc/group")
	atf_check -s exit:0 -o match:"^_sbx:x:[0-9]+:$gid:" cat "$Z/etc/passwd"
	# identity service's user, with a group of its own name.
	sgid=$(sed -n 's/^_sbxsandbox:x:\([0-9]*\):.*/\1/p' "$Z/etc/group")
	[ -n "$sgid" ] || atf_fail "sysusers made no group _sbxsandbox"
	atf_check -s exit:0 -o match:"^_sbxsandbox:x:[0-9]+:$sgid:.*:/usr/sbin/nologin\$" \
	    cat "$Z/etc/passwd"

	# The packaged binaries, run from there.
	M=$Z/usr/sbin/sbx-monitor
	atf_check -s exit:0 -o save:tables -e empty "$M" -P
	n=0
	for f in "$Z"/usr/share/sbx/priv/*.priv; do
		n=$((n + 1))
		norm < "$f" > file.txt
		role=$(sed -n 's/^role //p' file.txt)
		awk -v r="$role" 'BEGIN { RS = "" }
		    { split($0, l, "\n"); if (l[1] ~ "^role +" r "$") print }' \
		    tables | norm > printed.txt
		diff -u file.txt printed.txt > d.txt ||
		    atf_fail "$(basename "$f") differs from -P: $(cat d.txt)"
	done
	[ "$(grep -c '^role ' tables)" -eq "$n" ] ||
	    atf_fail "-P prints other tables than the $n packaged files"
	mkdir -p "$D/log" "$D/cache" "$D/run"
	# The socket's directory is the service user's, or the monitor refuses
	# it (it could not remove its socket there after dropping root).
	[ "$(id -u)" -ne 0 ] || chown nobody "$D/run"
	defs="-D sbxdir=$Z/etc/sbx -D rundir=$D/run -D logdir=$D/log -D cachedir=$D/cache -D group=$(id -gn)"
	# shellcheck disable=SC2086
	atf_check -s exit:0 -o ignore -e inline:"configuration OK\n" \
	    "$M" -n -f "$Z/etc/sbx/sbx.conf" $defs
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$M" "$Z/usr/bin/sbxctl" "$D/sbx.conf" "$SOCK"
	atf_check -s exit:0 -o inline:"from the package\n" -e empty \
	    "$Z/usr/bin/sbxctl" -s "$SOCK" run -- /bin/echo from the package
	kill -TERM "$(cat mon.pid)"
}
package_cleanup() {
	common_cleanup
}

atf_init_test_cases() {
	atf_add_test_case package
}
