#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# badinput.sh: hostile input at every door of a running service (issue
# "Hardening": bad input), each for a bounded time, with a well-formed
# client working beside it:
#
#  - control_fuzz: the live protocol fuzzer (helpers/fuzzpeer ctl) on the
#    control socket: random and mutated frames, header lies, descriptors
#    of every kind;
#  - proxy_fuzz: random and mutated HTTP from inside a network proxy
#    sandbox at its own proxy listener (fuzzpeer http), while curl in the
#    same sandbox and in another keeps fetching;
#  - bundle_fuzz: hostile bundles through `sbxctl provider load`
#    (bundle-fuzz.py: mutated and random manifests, modules, review
#    files, symlinks out, FIFOs, sockets, device nodes, a 4 GiB file);
#  - bad_reload: a malformed sbx.conf and a malformed allowlist on reload
#    each give an error naming the file and change nothing;
#  - bad_gates: malformed packs, bindings, metrics, holdouts and records
#    through the monitor's gates evaluate.
#
# Covered elsewhere: sbx.conf errors line by line (conf.sh:bad_file), the
# allowlist and manifest refusals of the reference (providers-spec.sh),
# the gate refusals with the reference's words (gates.sh:refusals,
# gates-records.sh:refusals), malformed HTTP heads and framing
# (proxy.sh:smuggling), and the protocol abuse cases (monitor.sh:protocol).
#
# Each case checks that nothing died (same monitor and role pids), that
# no descriptor stayed behind, that memory grew by less than the bound
# (RSS of the monitor and the role under fire, before and after; the
# figures are printed), and that every well-formed request succeeded.
# FUZZ_SECONDS sets the fuzzing time (10), FUZZ_SEED the seed (random,
# printed: a failure replays with it), BUNDLES the bundle count (120).

. "$(atf_get_srcdir)/top/regress/provider-test.subr"

SECS=${FUZZ_SECONDS:-10}
CLOCK=1788393600000
RSS_BOUND=2048		# KiB

seed() {
	if [ -n "${FUZZ_SEED:-}" ]; then
		echo "$FUZZ_SEED"
	else
		od -An -N4 -tu4 /dev/urandom | tr -d ' '
	fi
}

rss() {
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"
}

nfds() {
	ls "/proc/$1/fd" | wc -l
}

role() {
	case $1 in
	provider-runner) pgrep -P "$(cat mon.pid)" -x sbx-provider-ru ;;
	*) pgrep -P "$(cat mon.pid)" -x "sbx-$1" ;;
	esac
}

# snap NAME: pids, descriptors and RSS of the monitor and each role.
snap() {
	for p in "$(cat mon.pid)" "$(role launcher)" "$(role proxy)" \
	    "$(role provider-runner)"; do
		echo "$p $(nfds "$p") $(rss "$p")"
	done > "$1"
}

# settle_fds BEFORE: wait (bounded) until every process holds no more
# descriptors than in BEFORE (closed connections and ended sandboxes
# are collected asynchronously), then compare everything.
compare() {
	i=0
	while :; do
		snap after
		paste -d ' ' "$1" after | awk '$5 > $2 { bad = 1 } END { exit bad }' && break
		i=$((i + 1))
		[ $i -lt 50 ] || break
		sleep 0.1
	done
	echo "pid fds rss_kib -> pid fds rss_kib"
	paste -d ' ' "$1" after
	# A sanitizer build (make sanitize) carries ASan's allocator, whose
	# quarantine, size-class regions and stack store fill up once (about
	# 6 MiB here, as in run.sh:many_sandboxes): there the bound is 8 MiB.
	bound=$RSS_BOUND
	grep -q __asan_init "$M" && bound=8192
	paste -d ' ' "$1" after | awk -v bound=$bound '
	    $1 != $4 { print "process " $1 " is gone (now " $4 ")"; bad = 1 }
	    $5 > $2 { print "pid " $1 ": " $5 - $2 " descriptors more"; bad = 1 }
	    $6 - $3 >= bound { print "pid " $1 ": RSS grew by " $6 - $3 " KiB"; bad = 1 }
	    END { exit bad }' > verdict || { cat verdict; atf_fail "$(head -1 verdict)"; }
}

# good_loop FILE: well-formed requests until FILE.stop exists; failures
# are counted in FILE.fail, successes in FILE.ok.
good_loop() {
	: > "$1.ok"
	: > "$1.fail"
	(
		while [ ! -e "$1.stop" ]; do
			if "$C" ping > /dev/null 2>>"$1.err" &&
			    "$C" run -- /bin/echo good 2>>"$1.err" |
			    grep -qx good; then
				echo . >> "$1.ok"
			else
				echo . >> "$1.fail"
			fi
		done
	) &
	echo $! > "$1.pid"
}

good_stop() {
	touch "$1.stop"
	wait "$(cat "$1.pid")"
	[ ! -s "$1.fail" ] ||
	    { cat "$1.err"; atf_fail "$(wc -l < "$1.fail") well-formed requests failed"; }
	[ -s "$1.ok" ] || atf_fail "no well-formed request was made"
	echo "well-formed requests answered: $(wc -l < "$1.ok")"
}

# no_forged_lines: every line of the monitor's log is one of its own or
# a role's (a peer's newline must not start a line of its own).
no_forged_lines() {
	if grep -avE '^(sbx-monitor|launcher|proxy|provider-runner|shim): ' \
	    mon.log > forged; then
		head -5 forged
		atf_fail "the log has lines no process of sbx wrote"
	fi
}

atf_test_case control_fuzz cleanup
control_fuzz_head() {
	atf_set "descr" "the live protocol fuzzer on the control socket: the monitor and roles stay up, no descriptor leaks, RSS bounded, well-formed clients keep working, no forged log line"
	atf_set "require.progs" "node"
	atf_set "timeout" "300"
}
control_fuzz_body() {
	pt_init
	pt_example ex
	pt_start "max-connections 64" "max-connections-per-peer 64" \
	    "max-sandboxes 32" "max-sandboxes-per-peer 32"
	pt_load "$W/ex"
	snap before
	good_loop good
	s=$(seed)
	echo "fuzzpeer ctl seed $s"
	atf_check -s exit:0 -o save:fuzz.out \
	    "$S/helpers/fuzzpeer" ctl "$SOCK" "$SECS" "$s"
	cat fuzz.out
	good_stop good
	# A provider load and invoke still work after it.
	printf '[{"slice":"a","failed":true}]' > "$D/recs.json"
	chmod 644 "$D/recs.json"
	atf_check -s exit:0 -o match:'"pooled":\{"events":1,"n":1\}' \
	    "$C" provider invoke "$H" --records "$D/recs.json" --clock-ms "$CLOCK"
	compare before
	no_forged_lines
	pt_stop
}
control_fuzz_cleanup() {
	pt_cleanup
}

atf_test_case proxy_fuzz cleanup
proxy_fuzz_head() {
	atf_set "descr" "random and mutated HTTP at a sandbox's proxy listener: the proxy stays up, curl in the same and in another sandbox keeps fetching, no descriptor leaks, RSS bounded"
	atf_set "require.progs" "curl python3"
	atf_set "timeout" "300"
}
proxy_fuzz_body() {
	sbx_test_paths
	sbx_test_dir sbxfuzz
	sbx_upstream_test "$D/up.port"
	mkdir "$D/helpers"
	cp "$S/helpers/fuzzpeer" "$D/helpers/"
	chmod 755 "$D/helpers" "$D/helpers/fuzzpeer"
	{
		echo "socket \"$SOCK\""
		echo "user \"nobody\""
		echo "log-file \"$D/audit.jsonl\""
		echo "profile \"net\" {"
		echo "	network proxy"
		echo "	ro \"/usr\""
		echo "	ro \"/etc/alternatives\""
		echo "	ro \"$D/helpers\""
		echo "	allow-domain \"localhost\""
		echo "	allow-cidr \"127.0.0.1/32\""
		echo "	timeout 120"
		echo "}"
	} > "$D/sbx.conf"
	chmod 644 "$D/sbx.conf"
	sbx_monitor_start_test "$M" "$C" "$D/sbx.conf" "$SOCK"
	export SBX_SOCKET=$SOCK
	snap before
	s=$(seed)
	echo "fuzzpeer http seed $s"
	# The fuzzer and, beside it on the same listener, curl fetching.
	cat > "$D/helpers/inside.sh" <<EOF
$D/helpers/fuzzpeer http 3128 $SECS $s $UP > /tmp/fuzz.out 2>&1 &
f=\$!
ok=0
while kill -0 \$f 2>/dev/null; do
	/usr/bin/curl -sS -m 20 "http://127.0.0.1:$UP/good" | grep -qx 'path /good' || { echo "curl failed"; exit 1; }
	ok=\$((ok + 1))
done
wait \$f || { cat /tmp/fuzz.out; echo "fuzzer failed"; exit 1; }
cat /tmp/fuzz.out
echo "curl beside the fuzzer: \$ok fetches"
EOF
	chmod 755 "$D/helpers/inside.sh"
	"$C" run -p net -- /bin/sh "$D/helpers/inside.sh" > inside.out 2>&1 &
	fz=$!
	# Another sandbox fetching all along.
	n=0
	while kill -0 "$fz" 2>/dev/null; do
		atf_check -s exit:0 -o match:'^path /other$' \
		    "$C" run -p net -- /usr/bin/curl -sS -m 20 \
		    "http://127.0.0.1:$UP/other"
		n=$((n + 1))
	done
	wait "$fz" || { cat inside.out; atf_fail "the sandbox with the fuzzer failed"; }
	cat inside.out
	grep -q '^connections [1-9]' inside.out || atf_fail "the fuzzer made no connection"
	grep -q 'fetches' inside.out || atf_fail "no fetch beside the fuzzer"
	echo "fetches from another sandbox: $n"
	[ "$n" -gt 0 ] || atf_fail "no fetch from another sandbox"
	compare before
	no_forged_lines
	kill -TERM "$(cat mon.pid)"
	wait "$(cat mon.pid)" || atf_fail "monitor exit"
}
proxy_fuzz_cleanup() {
	[ -f upstream.pid ] && kill "$(cat upstream.pid)" 2>/dev/null
	pt_cleanup
}

atf_test_case bundle_fuzz cleanup
bundle_fuzz_head() {
	atf_set "descr" "hostile bundles through provider load (mutated files, symlinks out, FIFOs, sockets, devices, a 4 GiB file): each refused with one clear error or loaded, nothing dies or hangs, no descriptor leaks, RSS bounded, well-formed loads keep working"
	atf_set "require.progs" "node python3 timeout"
	atf_set "timeout" "600"
}
bundle_fuzz_body() {
	pt_init
	pt_example ex
	pt_start
	pt_load "$W/ex"
	mkdir "$D/fz"
	chmod 755 "$D/fz"
	s=$(seed)
	echo "bundle-fuzz seed $s"
	python3 "$S/top/regress/bundle-fuzz.py" "$W/ex" "$D/fz" \
	    "${BUNDLES:-120}" "$s" > tricks || atf_fail "bundle-fuzz.py failed"
	snap before
	good_loop good
	loaded=0 refused=0
	while read -r b t; do
		timeout 60 "$C" provider load "$D/fz/$b" > out 2> err
		st=$?
		case $st in
		0)	loaded=$((loaded + 1)) ;;
		1)	refused=$((refused + 1))
			# One line, naming what refused it.
			[ "$(wc -l < err)" -eq 1 ] &&
			    grep -Eq '^(sbxctl|error): [a-z-]+: ' err ||
			    { cat err; atf_fail "$b ($t): not one clear error line"; } ;;
		124)	atf_fail "$b ($t): the load hung" ;;
		*)	cat err; atf_fail "$b ($t): sbxctl exited $st" ;;
		esac
		echo "$b $t: $(cat out err | head -1)" >> results
	done < tricks
	good_stop good
	# Thousands of files: removed here, not in the cleanup, whose time
	# kyua bounds.
	rm -rf "$D/fz"
	echo "loaded $loaded, refused $refused"
	sort -k2,2 -u results | cut -c1-200
	# A well-formed load and invoke still work.
	pt_load "$W/ex"
	printf '[{"slice":"a","failed":true}]' > "$D/recs.json"
	chmod 644 "$D/recs.json"
	atf_check -s exit:0 -o match:'"pooled":\{"events":1,"n":1\}' \
	    "$C" provider invoke "$H" --records "$D/recs.json" --clock-ms "$CLOCK"
	compare before
	no_forged_lines
	pt_stop
}
bundle_fuzz_cleanup() {
	pt_cleanup
}

atf_test_case bad_reload cleanup
bad_reload_head() {
	atf_set "descr" "a malformed sbx.conf or allowlist on reload: an error naming the file and the line, the old configuration and allowlist keep serving"
	atf_set "require.progs" "node"
}
bad_reload_body() {
	pt_init
	pt_example ex
	pt_start
	pt_load "$W/ex"
	cp "$D/sbx.conf" "$D/sbx.conf.good"
	cp "$D/providers.json" "$D/providers.json.good"
	# sbx.conf: each malformation refused by name, nothing changed.
	for bad in 'max-sandboxes 0' 'max-sandboxes x' 'nosuch-keyword 1' \
	    'profile "p" {' 'role-timeout 50' 'socket' \
	    'provider-timeout 99999999999999999999'; do
		cp "$D/sbx.conf.good" "$D/sbx.conf"
		echo "$bad" >> "$D/sbx.conf"
		atf_check -s exit:1 -o empty -e match:"$D/sbx.conf" \
		    "$M" -n -f "$D/sbx.conf"
		n=$(grep -c 'reload failed' mon.log)
		kill -HUP "$(cat mon.pid)"
		i=0
		while [ "$(grep -c 'reload failed' mon.log)" -le "$n" ]; do
			i=$((i + 1))
			[ $i -lt 100 ] || atf_fail "no 'reload failed' for: $bad"
			sleep 0.1
		done
		grep "$D/sbx.conf:" mon.log | tail -1 | grep -q . ||
		    atf_fail "the error does not name $D/sbx.conf"
		atf_check -s exit:0 -o inline:"ok\n" "$C" run -- /bin/echo ok
	done
	atf_check -s exit:0 -o match:'^provider-timeout 5000$' \
	    -o match:'^role-timeout 30000$' -e ignore \
	    "$M" -n -v -f "$D/sbx.conf.good"
	cp "$D/sbx.conf.good" "$D/sbx.conf"
	# The allowlist: malformed on reload, refused by name; the providers
	# issued under the old one keep working.
	for bad in '{' '{"gates":{"providers":[{"bundleId":1}]}}' \
	    '{"gates":{"providers":"x"}}' ''; do
		printf '%s' "$bad" > "$D/providers.json"
		chmod 644 "$D/providers.json"
		n=$(grep -c 'provider-allowlist' mon.log)
		kill -HUP "$(cat mon.pid)"
		i=0
		while [ "$(grep -c 'provider-allowlist' mon.log)" -le "$n" ]; do
			i=$((i + 1))
			[ $i -lt 100 ] || { cat mon.log; atf_fail "no verdict on allowlist: $bad"; }
			sleep 0.1
		done
		tail -3 mon.log | grep -q "$D/providers.json" ||
		    atf_fail "the allowlist error does not name the file"
		printf '[{"slice":"a","failed":true}]' > "$D/recs.json"
		chmod 644 "$D/recs.json"
		atf_check -s exit:0 -o match:'"pooled":\{"events":1,"n":1\}' \
		    "$C" provider invoke "$H" --records "$D/recs.json" \
		    --clock-ms "$CLOCK"
	done
	cp "$D/providers.json.good" "$D/providers.json"
	pt_stop
}
bad_reload_cleanup() {
	pt_cleanup
}

atf_test_case bad_gates cleanup
bad_gates_head() {
	atf_set "descr" "malformed packs, bindings, metrics, holdouts and records through the monitor's gates evaluate: each refused with one error line, nothing dies, a well-formed evaluation still promotes"
	atf_set "require.progs" "node python3"
	atf_set "timeout" "300"
}
bad_gates_body() {
	GX=$(atf_get_srcdir)/top/regress/fixtures/gates-example
	NOW=2026-09-03T00:00:00.000Z
	PROV=example.count/v1
	pt_init
	pt_example ex
	pt_start
	pt_load "$W/ex"
	mkdir g
	for f in pack binding metrics holdout records-clean; do
		cp "$GX/$f.json" "g/$f.json"
	done
	# ev DIR: the example's evaluation with DIR's files.
	cat > ev <<EOS
d=\$1
exec "$C" gates evaluate --binding "\$d/binding.json" \\
    --metrics "\$d/metrics.json" --holdout "\$d/holdout.json" \\
    --upstream "$GX/upstream.json" --now "$NOW" \\
    --trusted-binding-digest "\$("$C" gates digest "$GX/binding.json")" \\
    --pack-dir "\$d/pack.json" --records "$PROV=\$d/records-clean.json"
EOS
	atf_check -s exit:0 -o match:'"decision": "PROMOTE"' sh ev g
	snap before
	s=$(seed)
	echo "seed $s"
	n=0
	for f in pack binding metrics holdout records-clean; do
		for k in 0 1 2 3 4 5; do
			rm -rf m
			cp -R g m
			python3 - "m/$f.json" "$s" "$k" <<'EOP'
import random, sys
path, seed, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed * 10 + k)
data = bytearray(open(path, "rb").read())
if k == 0:
    # at least one byte that is not white space goes: cutting only a
    # trailing newline leaves valid JSON
    data = data[:rng.randrange(len(data.rstrip()))]  # truncated
elif k == 1:
    for _ in range(8):                               # bytes changed
        data[rng.randrange(len(data))] = rng.randrange(256)
elif k == 2:
    data = b""                                       # empty
elif k == 3:
    data = b"[" * 100000                             # deep
elif k == 4:
    data = data.replace(b'"', b"'", 3)               # not JSON
else:
    data = b'{"x":' + b"1" * 70000 + b"}"            # a huge number
open(path, "wb").write(bytes(data))
EOP
			sh ev m > out 2> err
			st=$?
			[ $st -ne 0 ] ||
			    { cat out; atf_fail "mutated $f ($k) was accepted"; }
			[ ! -s out ] || { cat out; atf_fail "mutated $f ($k): output on refusal"; }
			[ "$(wc -l < err)" -eq 1 ] && grep -q '^sbxctl: ' err ||
			    { cat err; atf_fail "mutated $f ($k): not one clear error line"; }
			echo "$f $k: $(cut -c1-160 err)"
			n=$((n + 1))
		done
	done
	echo "$n malformed evaluations refused"
	# Nothing changed: the well-formed evaluation still promotes.
	atf_check -s exit:0 -o match:'"decision": "PROMOTE"' sh ev g
	compare before
	no_forged_lines
	pt_stop
}
bad_gates_cleanup() {
	pt_cleanup
}

atf_init_test_cases() {
	atf_add_test_case control_fuzz
	atf_add_test_case proxy_fuzz
	atf_add_test_case bundle_fuzz
	atf_add_test_case bad_reload
	atf_add_test_case bad_gates
}
