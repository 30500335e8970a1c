#! /usr/bin/env atf-sh
#
# escapes.sh: the provider escape suite (provider-spec 8 C, the seed's
# threat model).  Every bundle under regress/fixtures/escapes attacks the
# isolation one way; each is loaded and invoked through a real monitor and
# must end as a refusal with the reference code its CASES line names, or
# as a contained result -- and never leave a host marker file, show host
# environment, reach the host listener, read a real clock or get a forged
# frame accepted.  The other cases are the class C scenarios that are not
# a single bundle: fail closed without a working runtime, snapshot swaps
# and copied handles, concurrent runs, a missing clock.  Runs as root and
# as an unprivileged user.

. "$(atf_get_srcdir)/top/regress/provider-test.subr"

CLOCK=1700000000000		# whole seconds: Date() text round-trips
TIMEOUT_MS=1000			# what a spinning provider costs

# A canary in the environment of the monitor and of sbxctl: an escaped
# provider that read any host environment would carry it into its output.
CANARY=sbx-canary-$$-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
export SBX_ESCAPE_CANARY=$CANARY

# listener: the host TCP listener an escaped provider would try to reach;
# checks first that it does see a connection.
listener() {
	node "$TOP/regress/escapes.mjs" listen port listen.log &
	echo $! > listen.pid
	i=0
	until [ -s port ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "listener did not start"
		sleep 0.1
	done
	PORT=$(cat port)
	node "$TOP/regress/escapes.mjs" connect "$PORT" ||
	    atf_fail "control connection to the listener failed"
	i=0
	until grep -q '^data "control' listen.log 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "listener logged no control connection"
		sleep 0.1
	done
	: > listen.log
}

atf_test_case bundles cleanup
bundles_head() {
	atf_set "descr" "every escape bundle is refused with its reference code or contained"
	atf_set "timeout" "600"
}
bundles_body() {
	pt_init
	ESC=$FIX/escapes
	listener
	grep -v '^#' "$ESC/CASES" | grep -v '^$' > cases
	while IFS='	' read -r name expect pattern; do
		[ -f "$ESC/$name/gp/p.mjs" ] || atf_fail "CASES names $name: no bundle"
		pt_bundle "$ESC/$name" "$name" "esc-$name" "escape.$name/v1" \
		    "$ESC/lib/probe.mjs"
	done < cases
	# Every bundle in the directory is in the table.
	for d in "$ESC"/*/gp/p.mjs; do
		n=$(basename "$(dirname "$(dirname "$d")")")
		cut -f1 cases | grep -qx "$n" || atf_fail "bundle $n is not in CASES"
	done
	pt_start "provider-timeout $TIMEOUT_MS"
	tag=$$
	attempted=0 contained=0
	: > verdicts
	while IFS='	' read -r name expect pattern; do
		attempted=$((attempted + 1))
		marker=/tmp/sbx-escape-marker-$tag-$name
		rm -f "$marker"
		printf '[{"marker":"%s","port":%s,"slice":"a","failed":false}]' \
		    "$marker" "$PORT" > recs.json
		"$C" --json provider load "$W/$name" > "$name.load" 2>&1
		lrc=$?
		set -- "$name" "$expect" "$pattern" "$CLOCK" "$CANARY" \
		    "$lrc" "$name.load"
		if [ $lrc -eq 0 ]; then
			h=$(grep -o 'prv-[0-9a-f]\{32\}' "$name.load" | head -1)
			"$C" --json provider invoke "$h" --records recs.json \
			    --clock-ms "$CLOCK" --timeout-ms "$TIMEOUT_MS" \
			    > "$name.invoke" 2>&1
			set -- "$@" "$?" "$name.invoke"
		fi
		if node "$TOP/regress/escapes.mjs" judge "$@" >> verdicts; then
			contained=$((contained + 1))
		fi
		[ -e "$marker" ] && echo "ESCAPED $name: wrote $marker" >> verdicts
	done < cases
	# The monitor and its roles survived every attempt.
	"$C" ping > /dev/null || atf_fail "the monitor died during the escapes"
	cat verdicts
	echo "escapes: $attempted attempted, $contained contained"
	echo "escapes: $attempted attempted, $contained contained" >&2
	[ -s listen.log ] && { cat listen.log; atf_fail "the host listener was reached"; }
	ls /tmp/sbx-escape-marker-$tag-* 2>/dev/null && atf_fail "marker files exist"
	grep -F "$CANARY" "$D/audit.jsonl" && atf_fail "canary in the audit log"
	grep '^ESCAPED' verdicts >&2 && atf_fail "not contained (above)"
	[ "$attempted" -eq "$contained" ] || atf_fail "$contained of $attempted contained"
	[ "$attempted" -ge 40 ] || atf_fail "only $attempted escape bundles"
	pt_stop
}
bundles_cleanup() {
	pt_cleanup
}

atf_init_test_cases() {
	atf_add_test_case bundles
}
