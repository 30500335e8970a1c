#! /usr/bin/env atf-sh
#
# demo.sh: the main job, scripts/demo (make demo) on the example
# configuration, as root and as an unprivileged user: a user's own
# service is the deployment most agent users want, and the demo must show
# it working, a build in the build profile as the caller included.

. "$(atf_get_srcdir)/top/regress/monitor.subr"

atf_test_case demo
demo_head() {
	atf_set "descr" "make demo's script runs to the end and shows each step's result, the build in the build profile as the caller included"
	atf_set "timeout" "300"
}
demo_body() {
	sbx_test_paths
	top=$S/top
	BD=$(cd "$B" && pwd -P)
	(cd "$top" && sh scripts/demo "$BD") > demo.out 2> demo.err
	st=$?
	[ $st -eq 0 ] || { cat demo.out demo.err; atf_fail "demo exited $st"; }
	atf_check -o match:'^demo: done$' cat demo.out
	atf_check -o match:'^inside: 1000:1000 on sbx$' cat demo.out
	atf_check -o match:'^HELLO$' cat demo.out
	atf_check -o match:'^hello from a build$' cat demo.out
	# Through sbx-proxy: the allowed fetch, then two refusals.
	atf_check -o match:'^fetched through sbx-proxy$' \
	    -o match:'^http://private.example.com/ -> 403 deny-domain' \
	    -o match:'^http://127.0.0.2:[0-9]+/ -> 403 address 127.0.0.2' \
	    cat demo.out
	# The provider's sealed section, with its whole result beside it.
	atf_check -o match:'^\{"codeDigest":"sha256:[0-9a-f]{64}","metrics":.*"result":\{' \
	    cat demo.out
	# Gate evaluation re-running the example provider over records.
	atf_check -o match:'^decision PROMOTE' -o match:'^decision ROLLBACK' \
	    -o match:'^  gate flakes-cap slice b: n 10 events 1 lte 0 -> fail ROLLBACK$' \
	    -o match:'^  pin example.count/v1@1.0.0 code sha256:[0-9a-f]{64} records sha256:[0-9a-f]{64}$' \
	    cat demo.out
	if [ "$(id -u)" -ne 0 ]; then
		atf_check -o match:"compile and run C in a 0700 project \(as $(id -un), whose service runs it as $(id -un)\)" \
		    cat demo.out
	fi
}

atf_init_test_cases() {
	atf_add_test_case demo
}
