#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# demo.sh: the main job, scripts/demo (make demo) on the example
# configuration, as root and as an unprivileged user: a user's own
# service is the deployment most agent users want, and the demo must show
# it working, a build in the build profile as the caller included.  The
# demo prints one line per step and keeps what the steps printed in files;
# a failing step prints its file and names it.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

atf_test_case demo
demo_head() {
	atf_set "descr" "make demo's script runs to the end and shows each step's result in one line (an overlay run, its changes, diff and apply among them), the logs in files, and leaves nothing running"
	atf_set "timeout" "300"
}
demo_body() {
	sbx_test_paths
	top=$S/top
	BD=$(cd "$B" && pwd -P)
	L=$(pwd)/logs
	(cd "$top" && sh scripts/demo "$BD" "$L") > demo.out 2> demo.err
	st=$?
	[ $st -eq 0 ] || { cat demo.out demo.err; atf_fail "demo exited $st"; }
	atf_check -o match:'^demo: done$' cat demo.out
	# A few readable lines: a header, one line a step, "done"; nothing
	# on stderr, no log line.
	atf_check -o match:'^1[0-9]$' sh -c 'wc -l < demo.out'
	atf_check -s exit:1 grep -q 'audit:' demo.out
	atf_check -o empty cat demo.err
	atf_check -o match:"logs in $L\$" head -n 1 demo.out	# not under top
	atf_check -o match:'^  self-test +passed \([0-9]+ checks\)' cat demo.out
	atf_check -o match:'^  default profile +inside: 1000:1000 on sbx; /: bin .*usr; /etc: read-only$' \
	    -o match:'^  run --stats +wall_ms=[0-9]+ user_ms=[0-9]+ sys_ms=[0-9]+ peak_memory=[1-9][0-9]* peak_source=(cgroup|rusage) tasks=[1-9][0-9]* stdout_bytes=[1-9][0-9]* stderr_bytes=[0-9]+$' \
	    cat demo.out
	atf_check -o match:'^  build profile +cc hello.c && ./hello as .*: "hello from a build", hello owned by ' \
	    cat demo.out
	# The overlay run, reviewed and applied.
	atf_check -o match:'^  overlay run +"hello from an overlay"; the project unchanged; changes kept as [0-9a-f]{12}$' \
	    -o match:'^  changes +changes [0-9a-f]{12}: M hello; M hello.c$' \
	    -o match:'^  diff +diff [0-9a-f]{12}: [0-9]+ lines \(hello as a git binary patch\); -int main.*"hello from a build".* \+int main.*"hello from an overlay"' \
	    -o match:'^  apply +apply [0-9a-f]{12} as .*: ./hello prints "hello from an overlay", hello.c owned by .*; changeset gone$' \
	    cat demo.out
	# Through sbx-proxy: the allowed fetch, then two refusals.
	# The allowed one in the demo's own profile; the example's fetch
	# profile does not reach the host's loopback.
	atf_check -o match:'^  fetch allowed +curl http://127.0.0.1:[0-9]+/ -> 200 "fetched through sbx-proxy" \(demo.s own allow-cidr 127.0.0.1/32, not in etc/sbx.conf\)$' \
	    -o match:'^  fetch denied +curl http://private.example.com/ -> 403 deny-domain' \
	    -o match:'^  fetch denied +curl http://127.0.0.1:[0-9]+/ -> 403 address 127.0.0.1' \
	    cat demo.out
	atf_check -o match:'^  bundle loaded +gates-example: example.count/v1@1.0.0, code sha256:' \
	    -o match:'^  bundle invoked +2 records -> failures 1/2 \(slice a 0/1, slice b 1/1\)$' \
	    cat demo.out
	# Gate evaluation re-running the example provider over records.
	atf_check -o match:'^  gates clean +binding.json, records-clean.json: PROMOTE \(flakes-cap slice b 0/10 events \(lte 0\) pass' \
	    -o match:'^  gates failing +binding-failing.json, records-failing.json: ROLLBACK \(flakes-cap slice b 1/10 events \(lte 0\) fail' \
	    cat demo.out
	atf_check -o match:'^  stopped +SIGTERM: monitor exited 0, socket removed; launcher, proxy, provider-runner and the [0-9]+ sandboxes gone, nothing left running$' \
	    cat demo.out
	if [ "$(id -u)" -ne 0 ]; then
		atf_check -o match:"as $(id -un), a user's own service" \
		    -o match:"hello as $(id -un), whose service runs it as $(id -un):.* hello owned by $(id -un)\$" \
		    cat demo.out
	fi
	# What the lines summarize is in the files: the whole report, with
	# the provider pinned by code and records digests; the provider's
	# sealed section; the monitor's and the audit log.
	atf_check -o match:'^  "decision": "ROLLBACK",$' \
	    -o match:'"codeDigest": "sha256:[0-9a-f]{64}"' \
	    -o match:'"recordsDigest": "sha256:[0-9a-f]{64}"' \
	    cat "$L/gates-failing.json"
	atf_check -o match:'^\{"codeDigest":"sha256:[0-9a-f]{64}","metrics":.*"result":\{' \
	    cat "$L/invoke.json"
	atf_check -o match:'sandbox self-test passed' cat "$L/monitor.log"
	atf_check -o match:'"event":"spawn"' cat "$L/audit.jsonl"
}

atf_test_case failing_step
failing_step_head() {
	atf_set "descr" "a step that fails ends the demo with status 1, prints what it printed and names its file, and the demo still stops the monitor"
	atf_set "timeout" "300"
}
failing_step_body() {
	sbx_test_paths
	top=$S/top
	BD=$(cd "$B" && pwd -P)
	# The demo on an example configuration without the "fetch" profile:
	# the monitor starts, the first steps pass, the allowed fetch (in the
	# demo's own profile) too, the first denied fetch fails.
	mkdir -p t/scripts t/etc t/regress
	cp "$top/scripts/demo" t/scripts/
	sed 's/^profile "fetch"/profile "fetch-renamed"/' "$top/etc/sbx.conf" \
	    > t/etc/sbx.conf
	grep -q '^profile "fetch-renamed"' t/etc/sbx.conf ||
	    atf_fail "etc/sbx.conf has no fetch profile to rename"
	ln -s "$top/regress/fixtures" t/regress/fixtures
	ln -s "$top/config.mk" t/config.mk
	L=$(pwd)/logs
	atf_check -s exit:1 -o save:demo.out -e save:demo.err \
	    sh -c "cd t && sh scripts/demo '$BD' '$L'"
	atf_check -o match:'^  build profile ' cat demo.out
	atf_check -s exit:1 grep -q '^demo: done' demo.out
	atf_check -o match:'^  fetch allowed ' cat demo.out
	atf_check -o match:"^demo: denied fetch failed; what it printed \($L/deny1.log\):\$" \
	    -o match:'^    sbxctl: not-found: run: no profile "fetch"' \
	    -o match:"^demo: the monitor's log \($L/monitor.log\) ends:\$" \
	    cat demo.err
	# The monitor (its pid is in the status step's file) is gone.
	pid=$(sed -n 's/^sbx-monitor [^,]*, pid \([0-9]*\),.*/\1/p' \
	    "$L/status.log")
	[ -n "$pid" ] || atf_fail "no monitor pid in $L/status.log"
	atf_check -s not-exit:0 -e ignore kill -0 "$pid"
}

atf_init_test_cases() {
	atf_add_test_case demo
	atf_add_test_case failing_step
}
