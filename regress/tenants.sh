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

# setid_setup: D, SOCK, CU (an sbxctl the tenant can run), TENANT and AS
# (how to run as it), and a configuration with one profile per identity,
# each with a writable workdir, /usr and D/files (at the same path: the
# attempt script, set-id sources); IDS, the
# profiles this run can exercise (as a user only its own: every identity
# is that user there, and range is refused).
setid_setup() {
	sbx_test_paths
	sbx_test_dir sbxsetid
	mkdir "$D/files"
	cp "$S/top/regress/setid-attempt.py" "$D/files/attempt.py"
	chmod 755 "$D/files" "$D/files/attempt.py"
	if [ "$(id -u)" -eq 0 ]; then
		id sbxtest >/dev/null 2>&1 || atf_fail "user sbxtest is missing"
		id _sbxsandbox >/dev/null 2>&1 ||
		    atf_fail "user _sbxsandbox is missing (scripts/check makes it)"
		TENANT=sbxtest
		AS="runuser -u sbxtest --"
		IDS="caller service range"
	else
		TENANT=$(id -un)
		AS=
		IDS="caller"
	fi
	cp "$C" "$D/sbxctl"
	chmod 755 "$D/sbxctl"
	CU=$D/sbxctl
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "sandbox-user \"_sbxsandbox\""
		echo "allow uid \"$TENANT\""
		echo "max-sandboxes 16"
		echo "sandbox-uid-range 210000 64"
		for p in caller service range; do
			echo "profile \"$p\" {"
			echo "	identity $p"
			echo "	ro \"/usr\""
			echo "	ro \"$D/files\""
			echo "	env \"PATH\""
			echo "	tmpfs \"/tmp\" size 16M"
			echo "	workdir \"/work\""
			echo "	timeout 120"
			echo "}"
		done
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	chmod 777 "$D/run"
	chmod 666 "$SOCK"
}

# setid_workdir NAME: a workdir every identity may write (a tenant's own
# directory it opened to its sandboxes).
setid_workdir() {
	mkdir "$D/$1"
	[ "$(id -u)" -eq 0 ] && chown "$TENANT" "$D/$1"
	chmod 777 "$D/$1"
}

# setid_none DIR: nothing in DIR has a set-id bit, on the host.
setid_none() {
	atf_check -o empty find "$1" -perm /6000
}

setid_cleanup() {
	[ -f mon.pid ] && kill -9 "$(cat mon.pid)" 2>/dev/null
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

atf_test_case setid_syscalls cleanup
setid_syscalls_head() {
	atf_set "descr" "no identity's payload can give a file S_ISUID or S_ISGID: chmod, fchmod, fchmodat, fchmodat2, open, openat (O_CREAT, O_TMPFILE), creat, mkdir(at), mknod(at) fail with EPERM, openat2 with ENOSYS, security.capability with EPERM; the same calls without the bits work"
	atf_set "require.progs" "python3"
}
setid_syscalls_body() {
	setid_setup
	for p in $IDS; do
		setid_workdir "w-$p"
		atf_check -s exit:0 -o not-match:"^bad" -o match:"^ok fchmodat2 setgid$" \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/w-$p" -- \
		    /usr/bin/python3 "$D/files/attempt.py" /work
		setid_none "$D/w-$p"
	done
}
setid_syscalls_cleanup() {
	setid_cleanup
}

atf_test_case setid_tools cleanup
setid_tools_head() {
	atf_set "descr" "the issue's cp /usr/bin/id; chmod 6755, cp -p, cp --preserve=mode and tar -xp of a set-id file, install -m 4755 and chmod g+s on a directory leave no set-id file on the host, in every identity, and say EPERM"
	atf_set "require.progs" "tar"
}
setid_tools_body() {
	setid_setup
	# A set-id file of the tenant's own, and a tar of it.
	cp /usr/bin/id "$D/files/suid"
	[ "$(id -u)" -eq 0 ] && chown "$TENANT" "$D/files/suid"
	chmod 6755 "$D/files/suid"
	(cd "$D/files" && tar -cpf s.tar suid)
	chmod 644 "$D/files/s.tar"
	for p in $IDS; do
		setid_workdir "t-$p"
		atf_check -s not-exit:0 -e match:"Operation not permitted" \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/t-$p" -- \
		    /bin/sh -c 'cp /usr/bin/id /work/p; chmod 6755 /work/p'
		# cp -p drops the bits itself when it cannot keep the owner
		# (any identity but caller here); --preserve=mode does not.
		atf_check -s ignore -e ignore \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/t-$p" -- \
		    /bin/cp -p "$D/files/suid" /work/cp
		atf_check -s not-exit:0 -e match:"Operation not permitted" \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/t-$p" -- \
		    /bin/cp --preserve=mode "$D/files/suid" /work/cpm
		atf_check -s not-exit:0 -e match:"Operation not permitted" \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/t-$p" -- \
		    /bin/sh -c "mkdir /work/x && tar -xpf '$D/files/s.tar' -C /work/x"
		atf_check -s not-exit:0 -e match:"Operation not permitted" \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/t-$p" -- \
		    /usr/bin/install -m 4755 /usr/bin/id /work/inst
		atf_check -s not-exit:0 -e match:"Operation not permitted" \
		    $AS "$CU" -s "$SOCK" run -p "$p" -w "$D/t-$p" -- \
		    /bin/sh -c 'mkdir /work/sg && chmod g+s /work/sg'
		# The files were made, without the bits.
		for f in p cp cpm x/suid sg; do
			[ -e "$D/t-$p/$f" ] || atf_fail "$p: /work/$f missing"
		done
		setid_none "$D/t-$p"
	done
}
setid_tools_cleanup() {
	setid_cleanup
}

atf_test_case setid_service_owner cleanup
setid_service_owner_head() {
	atf_set "descr" "as root, identity service sandboxes (a tenant's and a root peer's) write files owned by sandbox-user, never by the service user; as a user, by that user"
}
setid_service_owner_body() {
	setid_setup
	setid_workdir svc
	atf_check -s exit:0 $AS "$CU" -s "$SOCK" run -p service -w "$D/svc" -- \
	    /bin/sh -c 'echo x > /work/tenant; mkdir /work/tdir'
	if [ "$(id -u)" -eq 0 ]; then
		atf_check -s exit:0 "$C" -s "$SOCK" run -p caller -w "$D/svc" \
		    -- /bin/sh -c 'echo x > /work/rootpeer'
		want="_sbxsandbox _sbxsandbox"
		for f in tenant tdir rootpeer; do
			atf_check -o inline:"$want\n" stat -c '%U %G' "$D/svc/$f"
		done
		# Nothing there is the service user's (nobody here).
		atf_check -o empty find "$D/svc" -user nobody
		atf_check -o empty find "$D/svc" -group "$(id -gn nobody)"
	else
		atf_check -o inline:"$TENANT\n" stat -c %U "$D/svc/tenant"
	fi
}
setid_service_owner_cleanup() {
	setid_cleanup
}

# ---- the launcher's split and its refusals (launcher_*) ----

# ---- bounded connections (flood_*) ----

# ---- passed descriptors, the socket, provider loads (fd_*, socket_*, load_*) ----

# ---- what a peer sees; the example configuration (status_*, example_*) ----

atf_init_test_cases() {
	# set-id and ids
	atf_add_test_case setid_syscalls
	atf_add_test_case setid_tools
	atf_add_test_case setid_service_owner
	# launcher
	:
	# floods
	:
	# descriptors, socket, loads
	:
	# status, example
	:
}
