#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# inside.sh: what everyday tools expect of a Linux system, seen from inside
# a sandbox (issue 22): its own loopback in every network mode (and none
# with "loopback no") while nothing outside is reachable, a user database
# that names the sandbox user and nothing of the host's, /dev/shm by
# default, and its own cgroup limits at /sys/fs/cgroup, which a JVM sizes
# its heap by.  Runs as root (the monitor drops to "nobody", sandboxes
# have cgroups) and as an unprivileged user (no cgroup: /sys is absent).

. "$(atf_get_srcdir)/top/regress/monitor.subr"

# setup PROFILE-LINES...: a private directory, sbx.conf with the given
# lines after the globals, and the monitor started.  Profiles that name no
# mounts get the built-in ones (/usr, /bin, /lib, /lib64, ...).
setup() {
	sbx_test_paths
	sbx_test_dir sbxinside
	{
		echo "socket \"$SOCK\""
		echo "socket-mode 0660"
		echo "user \"nobody\""
		echo "log-file \"$D/audit.jsonl\""
		for l in "$@"; do echo "$l"; done
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
}

common_cleanup() {
	for f in host.pid mon.pid; do
		[ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
	done
	[ -f tmpdir ] && rm -rf "$(cat tmpdir)"
	return 0
}

# host_listener: a TCP listener on the host's 127.0.0.1 (HPORT), the
# target a sandbox must not reach; checked reachable from the host first,
# so a refusal later is the sandbox's doing.
host_listener() {
	python3 -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    c.sendall(b"host\n")
    c.close()' > host.port 2> host.log &
	echo $! > host.pid
	sbx_wait_port host host.port
	HPORT=$sbx_port
	atf_check -o inline:'host\n' curl -sS "telnet://127.0.0.1:$HPORT" \
	    --max-time 5
}

# The payload of the loopback cases: an HTTP server on 127.0.0.1 and
# on ::1 (where the kernel has IPv6), curl to each and to localhost, the
# name lookups, and the host's listener ($1), which must stay out of
# reach.  --noproxy: under network proxy, curl would send it to 3128.
LOOP='
cd /tmp
python3 -m http.server -b 127.0.0.1 8000 >/dev/null 2>&1 &
v4=$!
if [ -e /proc/net/if_inet6 ]; then
	python3 -m http.server -b ::1 8001 >/dev/null 2>&1 &
	v6=$!
fi
get() { curl --noproxy "*" -sS -o /dev/null -w "%{http_code}" \
    --retry 50 --retry-delay 0 --retry-connrefused --max-time 20 "$1"; }
echo "v4 $(get http://127.0.0.1:8000/)"
echo "name $(get http://localhost:8000/)"
if [ -n "${v6:-}" ]; then echo "v6 $(get "http://[::1]:8001/")"; else echo "v6 200"; fi
kill $v4 ${v6:-}
echo "hosts $(getent hosts localhost | head -n 1)"
echo "self $(getent hosts "$(hostname)")"
if curl --noproxy "*" -sS --max-time 5 "telnet://127.0.0.1:$1" \
    >/dev/null 2>&1; then echo "host REACHED"; else echo "host refused"; fi
'

loop_check() {
	atf_check -s exit:0 -o match:'^v4 200$' -o match:'^name 200$' \
	    -o match:'^v6 200$' -o match:'^hosts (::1|127\.0\.0\.1) +localhost' \
	    -o match:'^self 127\.0\.1\.1 +sbx\.localdomain sbx$' \
	    -o match:'^host refused$' -o not-match:REACHED -e ignore \
	    "$C" -s "$SOCK" run -p "$1" -- /bin/sh -c "$LOOP" sh "$HPORT"
}

atf_test_case loopback cleanup
loopback_head() {
	atf_set "descr" "a sandbox's own loopback works (HTTP server and client on 127.0.0.1, ::1 and localhost) under network none and network proxy, the proxy's listener still answers, and the host's 127.0.0.1 stays unreachable"
	atf_set "require.progs" "python3 curl"
}
loopback_body() {
	setup 'profile "none" {' '	timeout 120' '}' \
	    'profile "proxy" {' '	network proxy' '	timeout 120' '}'
	host_listener
	loop_check none
	loop_check proxy
	# The proxy's own listener, made by pid 1 inside, still answers.
	atf_check -s exit:0 -o match:'^HTTP/1\.[01] [0-9]{3}' \
	    "$C" -s "$SOCK" run -p proxy -- /bin/sh -c \
	    'printf "GET http://127.0.0.1:1/ HTTP/1.0\r\n\r\n" |
	    curl --noproxy "*" -sS --max-time 10 telnet://127.0.0.1:3128 | head -n 1'
}
loopback_cleanup() {
	common_cleanup
}

atf_test_case loopback_no cleanup
loopback_no_head() {
	atf_set "descr" "loopback no: TCP bind and connect are refused inside, except the proxy's port under network proxy; the host stays unreachable"
	atf_set "require.progs" "python3"
}
loopback_no_body() {
	setup 'profile "none" {' '	loopback no' '}' \
	    'profile "proxy" {' '	network proxy' '	loopback no' '}'
	host_listener
	prog='
import socket, sys
s = socket.socket()
try:
    s.bind(("127.0.0.1", 8000)); print("bind ok")
except OSError as e:
    print("bind", e.errno)
for port in (int(sys.argv[1]), 3128):
    s = socket.socket()
    s.settimeout(5)
    try:
        s.connect(("127.0.0.1", port)); print("connect", port, "ok")
    except OSError as e:
        print("connect", port, e.errno)'
	# Landlock's TCP rules need ABI 4 (Linux 6.7); the kernel under
	# test has them (the self-test would not pass otherwise).
	atf_check -s exit:0 -o match:'^bind 13$' \
	    -o match:"^connect $HPORT 13\$" -o match:'^connect 3128 (13|111)$' \
	    "$C" -s "$SOCK" run -p none -- /usr/bin/python3 -c "$prog" "$HPORT"
	atf_check -s exit:0 -o match:'^bind 13$' \
	    -o match:"^connect $HPORT 13\$" -o match:'^connect 3128 ok$' \
	    "$C" -s "$SOCK" run -p proxy -- /usr/bin/python3 -c "$prog" "$HPORT"
}
loopback_no_cleanup() {
	common_cleanup
}

# The payload of the users case: every way tools ask who they are.
WHO='
echo "whoami $(whoami)"
echo "id $(id -un):$(id -gn)"
echo "getent $(getent passwd "$(id -u)")"
echo "getpass $(python3 -c "import getpass; print(getpass.getuser())")"
echo "git $(git var GIT_COMMITTER_IDENT 2>&1 | sed "s/ [0-9]* [-+][0-9]*$//")"
echo "users $(cut -d: -f1 /etc/passwd | tr "\n" " ")"
echo "groups $(cut -d: -f1 /etc/group | tr "\n" " ")"
echo "nss $(grep -v "files$" /etc/nsswitch.conf | wc -l)"
if command -v ssh >/dev/null; then ssh -V 2>&1 | sed "s/^/ssh /"; else echo "ssh none"; fi
if echo x >> /etc/passwd; then echo "passwd WRITABLE"; fi
'

atf_test_case users cleanup
users_head() {
	atf_set "descr" "the sandbox user has a name (whoami, id -un, getent, getpass, git's default identity, ssh -V): \"sbx\", or the caller's login name in identity caller; /etc/passwd and /etc/group list nothing else of the host's, read-only"
	atf_set "require.progs" "python3 git"
}
users_body() {
	setup 'profile "svc" {' '	identity service' '}' \
	    'profile "mine" {' '	identity caller' '	env "HOME"' '}' \
	    'allow uid "sbxtest"'
	atf_check -s exit:0 -o match:'^whoami sbx$' -o match:'^id sbx:sbx$' \
	    -o match:'^getent sbx:x:1000:1000:sbx:/:/bin/sh$' \
	    -o match:'^getpass sbx$' -o match:'^git sbx <sbx@sbx\.localdomain>$' \
	    -o match:'^users sbx nobody $' -o match:'^groups sbx nogroup $' \
	    -o match:'^nss 0$' -o match:'^ssh (OpenSSH|none)' \
	    -o not-match:WRITABLE -e ignore \
	    "$C" -s "$SOCK" run -p svc -- /bin/sh -c "$WHO"
	# identity caller: the peer's own login name, home from HOME.
	if [ "$(id -u)" -eq 0 ]; then
		id sbxtest >/dev/null 2>&1 || atf_fail "user sbxtest is missing"
		u=sbxtest
		cp "$C" "$D/sbxctl"
		chmod 755 "$D/sbxctl"
		chmod 777 "$D/run"
		chmod 666 "$SOCK"
		set -- runuser -u sbxtest -- "$D/sbxctl"
	else
		u=$(id -un)
		set -- "$C"
	fi
	atf_check -s exit:0 -o match:"^whoami $u\$" -o match:"^id $u:$u\$" \
	    -o match:"^getent $u:x:1000:1000:$u:/home/x:/bin/sh\$" \
	    -o match:"^getpass $u\$" -o match:"^users $u nobody \$" \
	    -o not-match:WRITABLE -e ignore \
	    "$@" -s "$SOCK" run -p mine -e HOME=/home/x -- /bin/sh -c "$WHO"
}
users_cleanup() {
	common_cleanup
}

atf_test_case dev_shm cleanup
dev_shm_head() {
	atf_set "descr" "the built-in profile has a /dev/shm tmpfs, so multiprocessing.Pool works; dev-shm no removes it"
	atf_set "require.progs" "python3"
}
dev_shm_body() {
	setup 'profile "noshm" {' '	dev-shm no' '}'
	atf_check -s exit:0 -o inline:'[1, 4, 9]\ntmpfs\n' \
	    "$C" -s "$SOCK" run -- /bin/sh -c 'python3 -c "
import multiprocessing
with multiprocessing.Pool(2) as p:
    print(p.map(abs, [-1, -4, -9]))"
	    stat -f -c %T /dev/shm'
	atf_check -s exit:0 -o inline:'absent\n' \
	    "$C" -s "$SOCK" run -p noshm -- /bin/sh -c \
	    '[ -e /dev/shm ] && echo present || echo absent'
}
dev_shm_cleanup() {
	common_cleanup
}

# limits_by: how this monitor caps sandboxes ("cgroup v1", "cgroup v2"
# or "rlimit"), from its status.
limits_by() {
	"$C" -s "$SOCK" status | sed -n 's/.*limits by \(.*\)$/\1/p'
}

atf_test_case cgroup_visible cleanup
cgroup_visible_head() {
	atf_set "descr" "the sandbox sees its own cgroup read-only at /sys/fs/cgroup, with the profile's memory and pids limits, rooted at itself, and nothing else of /sys; without a cgroup (unprivileged, no delegation) /sys is absent"
}
cgroup_visible_body() {
	setup 'profile "m" {' '	memory 1G' '	pids 48' '}'
	by=$(limits_by)
	out=$("$C" -s "$SOCK" run -p m -- /bin/sh -c '
		cd /sys/fs/cgroup 2>/dev/null || { echo "sys $(ls -A /sys 2>&1)"; exit 0; }
		echo "sys $(ls -A /sys) $(ls -A /sys/fs)"
		if [ -f memory.max ]; then
			echo "memory $(cat memory.max)"
			echo "pids $(cat pids.max)"
		else
			echo "memory $(cat memory/memory.limit_in_bytes)"
			echo "pids $(cat pids/pids.max)"
		fi
		echo "self $(grep -E ":(memory|pids)?:" /proc/self/cgroup | cut -d: -f3 | sort -u | tr "\n" " ")"
		if touch memory/x memory.max 2>/dev/null; then echo WRITABLE; fi
		') || atf_fail "the sandbox failed: $out"
	echo "$out"
	case $by in
	"cgroup v1"|"cgroup v2")
		echo "$out" | grep -qx 'sys fs cgroup' ||
		    atf_fail "more of /sys than fs/cgroup: $out"
		echo "$out" | grep -qx 'memory 1073741824' ||
		    atf_fail "no memory limit of 1G: $out"
		echo "$out" | grep -qx 'pids 48' ||
		    atf_fail "no pids limit of 48: $out"
		# A cgroup namespace rooted at the sandbox's cgroup.
		echo "$out" | grep -qx 'self / ' ||
		    atf_fail "/proc/self/cgroup names the host's tree: $out"
		if echo "$out" | grep -q WRITABLE; then
			atf_fail "the sandbox could write to its cgroup"
		fi
		;;
	rlimit)
		echo "$out" | grep -qx 'sys ' || echo "$out" | grep -q '^sys ls:' ||
		    atf_fail "no cgroup, yet /sys holds something: $out"
		atf_skip "this monitor has no cgroup to show (limits by rlimit: unprivileged without a delegated cgroup v2 subtree); checked that /sys is absent"
		;;
	*)
		atf_fail "status names no limits: $by"
		;;
	esac
}
cgroup_visible_cleanup() {
	common_cleanup
}

atf_test_case java_heap cleanup
java_heap_head() {
	atf_set "descr" "a JVM started without flags under memory 1G sees the cgroup's limit and sizes its maximum heap below it"
}
java_heap_body() {
	java=$(readlink -f "$(command -v java 2>/dev/null)" 2>/dev/null)
	[ -x "$java" ] || atf_skip "no java on this host"
	jhome=${java%/bin/java}
	lines=""
	for d in /etc/java-*; do
		[ -d "$d" ] && lines="$lines	ro \"$d\"
"
	done
	setup "profile \"j\" {
	ro \"/usr\"
	ro \"/bin\"
	ro \"/lib\"
	ro \"/lib64\"
$lines	memory 1G
	timeout 120
}"
	[ "$(limits_by)" = rlimit ] &&
	    atf_skip "no cgroup here (limits by rlimit: unprivileged without delegation): the JVM would size by the host's memory"
	out=$("$C" -s "$SOCK" run -p j -- "$java" -XX:+PrintFlagsFinal \
	    -XshowSettings:system -version 2>&1) ||
	    atf_fail "java failed: $out"
	heap=$(echo "$out" | sed -n 's/^ *size_t MaxHeapSize *= *\([0-9]*\).*/\1/p')
	echo "$out" | grep -E 'MaxHeapSize|Memory Limit|Provider'
	[ -n "$heap" ] || atf_fail "no MaxHeapSize: $out"
	echo "$out" | grep -q 'Memory Limit: 1.00G' ||
	    atf_fail "the JVM does not see the 1G limit: $out"
	[ "$heap" -lt 1073741824 ] ||
	    atf_fail "MaxHeapSize $heap is not below the 1G limit"
}
java_heap_cleanup() {
	common_cleanup
}

atf_init_test_cases() {
	atf_add_test_case loopback
	atf_add_test_case loopback_no
	atf_add_test_case users
	atf_add_test_case dev_shm
	atf_add_test_case cgroup_visible
	atf_add_test_case java_heap
}
