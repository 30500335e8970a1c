#! /usr/bin/env atf-sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# provider.sh: the trusted driver (provider/driver.mjs) run by node
# directly, as the provider sandbox runs it but without the sandbox (which
# other tests cover): node with its permission flag, code generation from
# strings disabled, the driver in argv, the request on stdin.  Requests
# are built by regress/provider-ref.mjs, a second implementation written
# from the spec, so the driver is checked against it and sbxctl's code
# digest against node's.  Attack cases each try one way out of the vm
# context and check that it fails in the context (a framed refusal or a
# result recording the failure), never with host objects in reach.

top() { echo "$(atf_get_srcdir)/top"; }
ref() { echo "$(top)/regress/provider-ref.mjs"; }
sbxctl() { echo "$(atf_get_srcdir)/../bin/sbxctl"; }
example() { echo "$(top)/regress/fixtures/gates-example-extension"; }

NONCE=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
CLOCK=1788393600000	# 2026-09-03T00:00:00.000Z

need_node()
{
	command -v node >/dev/null 2>&1 ||
	    atf_skip "node is not on PATH; the driver runs on node" \
	    "(scripts/deps installs nodejs)"
}

# run_driver [pooled]: node as the sandbox runs it, stdin req, stdout out;
# "pooled" as a pooled sandbox runs it (a warm-up run before the request).
run_driver()
{
	# shellcheck disable=SC2046
	node $(node "$(ref)" flags) --disallow-code-generation-from-strings \
	    --no-warnings -e "$(cat "$(top)/provider/driver.mjs")" \
	    "$@" < req > out
}

# drive DIR ENTRY MODE RECORDS ID VERSION [SEED [NONCE]]: build the
# request with the reference side and run the driver; its exit status.
drive()
{
	node "$(ref)" request "$1" "$2" "$3" "$4" "$CLOCK" "${7:-1}" \
	    "${8:-$NONCE}" "$5" "$6" > req || atf_fail "cannot build a request"
	run_driver
}

# body: the checked frame's JSON body (fails the test on a bad frame).
body()
{
	node "$(ref)" frame "${1:-$NONCE}" out ||
	    atf_fail "driver output is not one framed line: $(head -c 300 out)"
}

# expect_body EXPECTED | expect_body_match REGEX: check the body.
expect_body()
{
	body > body.json
	atf_check -o inline:"$1\n" cat body.json
}
expect_body_match()
{
	body > body.json
	atf_check -o match:"$1" cat body.json
}

# expect_exit N: run the driver on req, expecting exit status N.
expect_exit()
{
	run_driver
	st=$?
	[ "$st" -eq "$1" ] || atf_fail "driver exited $st, expected $1: $(cat out)"
}

# probe JS: a one-module provider whose compute(records) runs JS; invoke
# it over [{"x":1}] and compare the body with the expected JSON text.
probe()
{
	mkdir -p p/gp
	cat > p/gp/p.mjs <<EOF
export const provider = {
	id: 't.probe/v1', version: '1.0.0', description: 'probe',
	metrics: { m: { kind: 'scalar', description: 'm' } },
	compute(records) { $1 }
};
EOF
	drive p gp/p.mjs invoke '[{"x":1}]' t.probe/v1 1.0.0 ||
	    atf_fail "driver exited $?: $(cat out)"
	expect_body "$2"
}

# module_probe SOURCE EXPECTED: the same with a whole module's source.
module_probe()
{
	mkdir -p p/gp
	printf '%s\n' "$1" > p/gp/p.mjs
	drive p gp/p.mjs invoke '[{"x":1}]' t.probe/v1 1.0.0 ||
	    atf_fail "driver exited $?: $(cat out)"
	expect_body "$2"
}

atf_test_case example_invoke
example_invoke_head()
{
	atf_set "descr" "The example bundle's provider counts failures per" \
	    "slice; the frame carries the nonce and nothing else"
}
example_invoke_body()
{
	need_node
	drive "$(example)" gate-providers/example.mjs invoke \
	    '[{"slice":"b","failed":true},{"slice":"a","failed":false},{"slice":"b","failed":false}]' \
	    example.count/v1 1.0.0 || atf_fail "driver exited $?"
	expect_body '{"ok":true,"result":{"metrics":{"failures":{"bySlice":{"a":{"n":1,"events":0},"b":{"n":2,"events":1}},"pooled":{"n":3,"events":1}}}}}'
	# Exactly one line, and it starts with the frame prefix and nonce.
	atf_check -o inline:"1\n" sh -c 'wc -l < out | tr -d " "'
	atf_check -o match:"^AIWG-RESULT $NONCE \\{" cat out
	# Empty records: empty counts.
	drive "$(example)" gate-providers/example.mjs invoke '[]' \
	    example.count/v1 1.0.0 || atf_fail "driver exited $?"
	expect_body '{"ok":true,"result":{"metrics":{"failures":{"bySlice":{},"pooled":{"n":0,"events":0}}}}}'
	# A malformed record is the provider's own refusal, framed.
	drive "$(example)" gate-providers/example.mjs invoke '[{"slice":""}]' \
	    example.count/v1 1.0.0 || atf_fail "driver exited $?"
	expect_body '{"ok":false,"error":"record 0 must be {slice: non-empty string, failed: boolean}"}'
}

atf_test_case example_inspect
example_inspect_head()
{
	atf_set "descr" "Inspect returns the descriptor; a wrong expected id" \
	    "or version is refused"
}
example_inspect_body()
{
	need_node
	drive "$(example)" gate-providers/example.mjs inspect - \
	    example.count/v1 1.0.0 || atf_fail "driver exited $?"
	expect_body '{"ok":true,"descriptor":{"id":"example.count/v1","version":"1.0.0","description":"Example per-slice failure counts for offline gate evaluation.","metrics":{"failures":{"kind":"proportion","description":"Records with failed: true, per slice and pooled."}}}}'
	drive "$(example)" gate-providers/example.mjs inspect - \
	    example.count/v2 1.0.0 || atf_fail "driver exited $?"
	expect_body '{"ok":false,"error":"provider identity does not match its manifest declaration"}'
	drive "$(example)" gate-providers/example.mjs inspect - \
	    example.count/v1 1.0.1 || atf_fail "driver exited $?"
	expect_body_match 'identity does not match'
}

atf_test_case determinism
determinism_head()
{
	atf_set "descr" "The same request gives byte-identical output;" \
	    "another nonce changes only the nonce; run as a module (the" \
	    "reference's launch plan) the driver writes the same bytes"
}
determinism_body()
{
	need_node
	recs='[{"slice":"a","failed":true},{"slice":"c","failed":false}]'
	drive "$(example)" gate-providers/example.mjs invoke "$recs" \
	    example.count/v1 1.0.0 || atf_fail "driver exited $?"
	mv out out1
	drive "$(example)" gate-providers/example.mjs invoke "$recs" \
	    example.count/v1 1.0.0 || atf_fail "driver exited $?"
	atf_check cmp out1 out
	other=fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210
	drive "$(example)" gate-providers/example.mjs invoke "$recs" \
	    example.count/v1 1.0.0 1 "$other" || atf_fail "driver exited $?"
	atf_check -o match:"^AIWG-RESULT $other " cat out
	sed "s/$other/$NONCE/" out > out2
	atf_check cmp out1 out2
	# The same driver run as a module, as the reference's launch plan
	# does (make bench compares against it): the same bytes.
	drive "$(example)" gate-providers/example.mjs invoke "$recs" \
	    example.count/v1 1.0.0 || atf_fail "driver exited $?"
	# shellcheck disable=SC2046
	node $(node "$(ref)" flags) --disallow-code-generation-from-strings \
	    --no-warnings --input-type=module \
	    -e "$(cat "$(top)/provider/driver.mjs")" < req > out3 ||
	    atf_fail "the driver as a module exited $?"
	atf_check cmp out out3
}

atf_test_case clock_and_random
clock_and_random_head()
{
	atf_set "descr" "The clock is frozen at clockMs through every path" \
	    "to Date; random() is mulberry32 of the seed; Math.random is gone"
}
clock_and_random_body()
{
	need_node
	probe 'class D extends Date {}
	    const R = Object.getPrototypeOf(new Date()).constructor;
	    return { metrics: {}, v: [Date.now(), new Date().getTime(),
	    typeof Date(), Date() === new Date().toString(), clock,
	    new Date(0).constructor === Date, new D().getTime(),
	    new R().getTime(), Object.getPrototypeOf(Date) ===
	    Object.getPrototypeOf(function () {}), typeof Math.random,
	    new Date(2026, 0, 1).toISOString()] };' \
	    '{"ok":true,"result":{"metrics":{},"v":[1788393600000,1788393600000,"string",true,1788393600000,true,1788393600000,1788393600000,true,"undefined","2026-01-01T00:00:00.000Z"]}}'
	# mulberry32 for seed 1 (interop.md §P5.4's computed values).
	probe 'return { metrics: {}, r: [random(), random(), random()] };' \
	    '{"ok":true,"result":{"metrics":{},"r":[0.6270739405881613,0.002735721180215478,0.5274470399599522]}}'
	# Another seed, another sequence; the same seed, the same one.
	mkdir -p p/gp
	drive p gp/p.mjs invoke '[]' t.probe/v1 1.0.0 7 || atf_fail "exit $?"
	body > seed7a
	drive p gp/p.mjs invoke '[]' t.probe/v1 1.0.0 7 || atf_fail "exit $?"
	body > seed7b
	atf_check cmp seed7a seed7b
	atf_check -s exit:1 -o ignore grep -q 0.6270739405881613 seed7a
}

atf_test_case no_code_generation
no_code_generation_head()
{
	atf_set "descr" "eval and Function are gone, and every constructor" \
	    "reachable from an intrinsic refuses to compile strings"
}
no_code_generation_body()
{
	need_node
	probe 'const tries = [
	    () => (function () {}).constructor("return 1"),
	    () => (() => 1).constructor("return 1"),
	    () => (async function () {}).constructor("return 1"),
	    () => (function* () {}).constructor("return 1"),
	    () => (async function* () {}).constructor("return 1"),
	    () => ({}).constructor.constructor("return 1"),
	    () => Object.getPrototypeOf(async () => 1).constructor("return 1"),
	    () => new (Object.getPrototypeOf(function* () {}).constructor)("yield 1"),
	    () => globalThis.constructor.constructor("return 1"),
	    () => [].map.constructor("return 1"),
	    () => JSON.parse.constructor("return 1")];
	    return { metrics: {}, t: [typeof eval, typeof Function,
	    typeof globalThis.eval], r: tries.map((f) => {
	    try { f(); return "compiled"; } catch (e) {
	    return e instanceof EvalError; } }) };' \
	    '{"ok":true,"result":{"metrics":{},"t":["undefined","undefined","undefined"],"r":[true,true,true,true,true,true,true,true,true,true,true]}}'
}

atf_test_case no_process
no_process_head()
{
	atf_set "descr" "process cannot be reached: not as a global, not" \
	    "through constructor chains of errors, objects or functions"
}
no_process_body()
{
	need_node
	probe 'const r = [];
	    const reach = (f) => { try { return typeof f(); }
	    catch (e) { return e.name; } };
	    let err; try { null.x; } catch (e) { err = e; }
	    r.push(typeof process, typeof require, typeof module,
	    typeof globalThis.process, typeof Buffer, typeof setTimeout,
	    typeof queueMicrotask, typeof fetch, typeof console);
	    r.push(reach(() => err.constructor.constructor("return process")()));
	    r.push(reach(() => ({}).constructor.constructor("return process")()));
	    r.push(reach(() => records.constructor.constructor("return process")()));
	    r.push(reach(() => compute.constructor("return process")()));
	    r.push(err instanceof TypeError);
	    return { metrics: {}, r };
	    function compute() {}' \
	    '{"ok":true,"result":{"metrics":{},"r":["undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined","EvalError","EvalError","EvalError","EvalError",true]}}'
}

atf_test_case no_dynamic_import
no_dynamic_import_head()
{
	atf_set "descr" "import() rejects with a context-realm error, for" \
	    "snapshot modules and builtins, and its constructor cannot compile"
}
no_dynamic_import_body()
{
	need_node
	mkdir -p p/gp
	printf 'export const h = 1;\n' > p/gp/h.mjs
	probe 'const one = (spec) => import(spec).then(() => "imported",
	    (e) => [e instanceof Error, e.message, (() => {
	    try { e.constructor.constructor("return process")(); return "escaped"; }
	    catch (x) { return x.name; } })()]);
	    return Promise.all([one("./h.mjs"), one("node:fs"),
	    one("data:text/javascript,export default 1")]).then((r) =>
	    ({ metrics: {}, r }));' \
	    '{"ok":true,"result":{"metrics":{},"r":[[true,"dynamic import() is forbidden: use static relative imports","EvalError"],[true,"dynamic import() is forbidden: use static relative imports","EvalError"],[true,"dynamic import() is forbidden: use static relative imports","EvalError"]]}}'
	# At module top level too: evaluation fails, framed.
	module_probe 'await import("node:child_process");' \
	    '{"ok":false,"error":"provider module threw during evaluation: dynamic import() is forbidden: use static relative imports"}'
}

atf_test_case no_wasm_no_shared_memory
no_wasm_no_shared_memory_head()
{
	atf_set "descr" "WebAssembly, SharedArrayBuffer, Atomics and the" \
	    "other removed globals are absent; Math, JSON, Date remain"
}
no_wasm_no_shared_memory_body()
{
	need_node
	probe 'return { metrics: {}, t: ["WebAssembly", "SharedArrayBuffer",
	    "Atomics", "Proxy", "Reflect", "Intl", "FinalizationRegistry",
	    "WeakRef", "console", "eval", "Function"].map((n) =>
	    typeof globalThis[n] + (n in globalThis ? "+" : "")),
	    kept: [typeof Math, typeof JSON, typeof Date, typeof clock,
	    typeof random].join() };' \
	    '{"ok":true,"result":{"metrics":{},"t":["undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined"],"kept":"object,object,function,number,function"}}'
	# A wasm module cannot be compiled even by reaching for it.
	probe 'let r; try { r = typeof WebAssembly.Module; } catch (e) {
	    r = e.name; } return { metrics: {}, r };' \
	    '{"ok":true,"result":{"metrics":{},"r":"ReferenceError"}}'
}

atf_test_case frozen_intrinsics
frozen_intrinsics_head()
{
	atf_set "descr" "Intrinsics are frozen before provider code runs:" \
	    "Promise.prototype.then, Error.prepareStackTrace, prototypes"
}
frozen_intrinsics_body()
{
	need_node
	module_probe 'Promise.prototype.then = function () {};' \
	    "{\"ok\":false,\"error\":\"provider module threw during evaluation: Cannot assign to read only property 'then' of object '#<Promise>'\"}"
	module_probe 'Error.prepareStackTrace = (e, s) => s;' \
	    '{"ok":false,"error":"provider module threw during evaluation: Cannot add property prepareStackTrace, object is not extensible"}'
	probe 'const r = [];
	    const w = (f) => { try { f(); return "wrote"; }
	    catch (e) { return e.name; } };
	    r.push(w(() => { Object.prototype.polluted = 1; }));
	    r.push(w(() => { Array.prototype.push = null; }));
	    r.push(w(() => { Object.getPrototypeOf(function* () {}).x = 1; }));
	    r.push(w(() => { Object.getPrototypeOf(function () {}).call = 1; }));
	    r.push(w(() => { Object.setPrototypeOf(JSON, null); }));
	    r.push(w(() => { Object.defineProperty(Promise, Symbol.species,
	    { get() { return 1; } }); }));
	    r.push(w(() => { records[0].x = 2; }));
	    r.push(w(() => { records.push(1); }));
	    r.push(w(() => { Date.now = () => 0; }));
	    r.push(Object.isFrozen(Object.getPrototypeOf([][Symbol.iterator]())));
	    return { metrics: {}, r };' \
	    '{"ok":true,"result":{"metrics":{},"r":["TypeError","TypeError","TypeError","TypeError","TypeError","TypeError","TypeError","TypeError","TypeError",true]}}'
}

atf_test_case frozen_records
frozen_records_head()
{
	atf_set "descr" "Every array and object of the records is frozen," \
	    "flat or nested, with brackets inside strings or not, in a" \
	    "cold run and after a pooled sandbox's warm-up alike"
}
frozen_records_body()
{
	need_node
	mkdir -p p/gp
	# Counts the records' arrays and objects and the frozen ones, and
	# whether a write to the deepest one fails.
	cat > p/gp/p.mjs <<'EOF'
export const provider = {
	id: 't.probe/v1', version: '1.0.0', description: 'probe',
	metrics: { m: { kind: 'scalar', description: 'm' } },
	compute(records) {
		let n = 0, frozen = 0, deepest = records, depth = 0;
		const walk = (v, d) => {
			if (v === null || typeof v !== 'object')
				return;
			n++;
			if (Object.isFrozen(v))
				frozen++;
			if (d > depth) {
				depth = d;
				deepest = v;
			}
			for (const k of Object.keys(v))
				walk(v[k], d + 1);
		};
		walk(records, 0);
		let write = 'wrote';
		try {
			deepest.x = 1;
		} catch (e) {
			write = e.name;
		}
		return { metrics: {}, n, frozen, write };
	}
};
EOF
	# Each case: records, then how many arrays and objects they hold
	# (brackets outside strings).
	while read -r recs s; do
		for arg in '' pooled; do
			node "$(ref)" request p gp/p.mjs invoke "$recs" \
			    "$CLOCK" 1 "$NONCE" t.probe/v1 1.0.0 > req ||
			    atf_fail "cannot build a request"
			# shellcheck disable=SC2086
			run_driver $arg || atf_fail "${arg:-cold}: driver" \
			    "exited $?"
			body > body.json
			grep -q "\"n\":$s,\"frozen\":$s,\"write\":\"TypeError\"" \
			    body.json || atf_fail "${arg:-cold}, $recs:" \
			    "$(cat body.json)"
		done
	done <<'EOF'
[] 1
[{"x":1},{"y":"a"},2,null] 3
[{"x":{"y":[1,{"z":2}]}}] 5
[{"s":"{[{["},{"t":{"u":1}}] 4
[{"s":"{"},{"t":[]}] 4
[[1,[2]],"[",{"__proto__":{"a":{}}}] 6
EOF
}

atf_test_case thenable_result
thenable_result_head()
{
	atf_set "descr" "A thenable result meets only context-realm resolvers"
}
thenable_result_body()
{
	need_node
	probe 'return { then(resolve) { let leak;
	    try { resolve.constructor("return process")(); leak = "escaped"; }
	    catch (e) { leak = e.name; }
	    resolve({ metrics: {}, leak, realm: resolve instanceof
	    Object.getPrototypeOf(function () {}).constructor }); } };' \
	    '{"ok":true,"result":{"metrics":{},"leak":"EvalError","realm":true}}'
}

atf_test_case import_meta
import_meta_head()
{
	atf_set "descr" "import.meta holds only the module's snapshot URL"
}
import_meta_body()
{
	need_node
	module_probe 'const m = import.meta;
export const provider = { id: "t.probe/v1", version: "1.0.0",
    description: "probe", metrics: {}, compute() { return { metrics: {},
    url: m.url, keys: Object.keys(m), frozen: Object.isFrozen(m) }; } };' \
	    '{"ok":true,"result":{"metrics":{},"url":"snapshot:///gp/p.mjs","keys":["url"],"frozen":true}}'
}

atf_test_case linking
linking_head()
{
	atf_set "descr" "Only relative .mjs imports inside the snapshot link;" \
	    "bare, builtin, escaping and non-.mjs imports refuse"
}
linking_body()
{
	need_node
	mkdir -p p/gp/lib
	printf 'export const two = 2;\n' > p/gp/lib/two.mjs
	printf 'module.exports = 1;\n' > p/gp/c.cjs
	module_probe 'import { two } from "./lib/two.mjs";
export const provider = { id: "t.probe/v1", version: "1.0.0",
    description: "probe", metrics: {}, compute() { return { metrics: {},
    two }; } };' '{"ok":true,"result":{"metrics":{},"two":2}}'
	for spec in node:fs fs leftpad ../../../etc/x.mjs ./c.cjs ./missing.mjs \
	    /abs.mjs; do
		module_probe "import x from \"$spec\";" "$(case $spec in
		node:fs|fs|leftpad|/abs.mjs) echo "{\"ok\":false,\"error\":\"bare and external imports are forbidden: \\\"$spec\\\" in gp/p.mjs\"}" ;;
		../*) echo "{\"ok\":false,\"error\":\"provider import escapes the snapshot: \\\"$spec\\\" in gp/p.mjs\"}" ;;
		./c.cjs) echo "{\"ok\":false,\"error\":\"provider modules must be relative .mjs files: \\\"$spec\\\" in gp/p.mjs\"}" ;;
		*) echo "{\"ok\":false,\"error\":\"provider import is not in the pinned snapshot: \\\"$spec\\\" in gp/p.mjs\"}" ;;
		esac)"
	done
}

atf_test_case refusals
refusals_head()
{
	atf_set "descr" "Throws, rejections, missing metrics, oversized" \
	    "results and unparseable modules give one framed refusal"
}
refusals_body()
{
	need_node
	probe 'throw new Error("boom");' '{"ok":false,"error":"boom"}'
	probe 'return Promise.reject("no");' '{"ok":false,"error":"no"}'
	probe 'return 42;' '{"ok":false,"error":"provider returned no metrics"}'
	probe 'return { metrics: [] };' \
	    '{"ok":false,"error":"provider returned no metrics"}'
	probe 'return { metrics: {}, n: 1n };' \
	    '{"ok":false,"error":"provider result is not JSON-serializable"}'
	probe 'return { metrics: {}, big: "x".repeat(2 * 1048576) };' \
	    '{"ok":false,"error":"isolated provider response exceeds the output cap"}'
	module_probe 'export const provider = {' \
	    "$(printf '%s' '{"ok":false,"error":"provider module does not parse: gp/p.mjs: Unexpected end of input"}')"
	module_probe 'export const nothing = 1;' \
	    '{"ok":false,"error":"provider module exports no provider descriptor (export \"provider\" or a default object)"}'
	# A dead module that does not parse refuses the run too.
	mkdir -p p/gp
	printf 'export const provider = {id: "t.probe/v1", version: "1.0.0", description: "d", metrics: {}, compute() { return {metrics: {}}; }};\n' > p/gp/p.mjs
	printf 'this is not javascript\n' > p/gp/dead.mjs
	drive p gp/p.mjs invoke '[]' t.probe/v1 1.0.0 || atf_fail "exit $?"
	expect_body_match '"provider module does not parse: gp/dead.mjs: '
}

atf_test_case nonce_line
nonce_line_head()
{
	atf_set "descr" "Without a well-formed nonce line the driver writes" \
	    "nothing and exits 71"
}
nonce_line_body()
{
	need_node
	for input in '' 'abc' "$(echo $NONCE | tr a-f A-F)" "${NONCE}0" \
	    "$(echo $NONCE | cut -c2-)"; do
		printf '%s\n{}' "$input" > req
		expect_exit 71
		atf_check -o empty cat out
	done
	printf '%s' "$NONCE" > req		# no newline at all
	expect_exit 71
	atf_check -o empty cat out
	# A good nonce and a bad request: a framed refusal.
	printf '%s\n{"entry":1}' "$NONCE" > req
	expect_exit 0
	expect_body_match '"ok":false,"error":"isolated provider request is invalid'
	printf '%s\nnot json' "$NONCE" > req
	expect_exit 0
	expect_body_match '"error":"isolated provider request is not JSON'
	# No clock: refused, never the real time.
	mkdir -p p/gp
	printf 'export const provider = {};\n' > p/gp/p.mjs
	node "$(ref)" request p gp/p.mjs inspect - "$CLOCK" 1 "$NONCE" \
	    t.probe/v1 1.0.0 | sed 's/"clockMs":[0-9]*,//' > req
	expect_exit 0
	expect_body '{"ok":false,"error":"isolated provider clock is not a safe integer"}'
	printf '%s\n{"entry":"gp/p.mjs","modules":{},"mode":"inspect","clockMs":1.5,"seed":1,"expectedId":"a/b","expectedVersion":"1"}' \
	    "$NONCE" > req
	expect_exit 0
	expect_body '{"ok":false,"error":"isolated provider clock is not a safe integer"}'
}

atf_test_case top_level_effects
top_level_effects_head()
{
	atf_set "descr" "Top-level effects stay in the run's context; an" \
	    "unhandled rejection is a framed crash"
}
top_level_effects_body()
{
	need_node
	module_probe 'globalThis.touched = 1;
export const provider = { id: "t.probe/v1", version: "1.0.0",
    description: "probe", metrics: {}, compute() { return { metrics: {},
    t: globalThis.touched }; } };' \
	    '{"ok":true,"result":{"metrics":{},"t":1}}'
	probe 'Promise.reject(new Error("late")); return { metrics: {} };' \
	    '{"ok":false,"error":"isolated provider crashed: late"}'
	# Top-level await on a promise nothing can settle: a framed refusal
	# when the event loop runs dry, not an empty exit.
	module_probe 'await new Promise(() => {});' \
	    '{"ok":false,"error":"isolated provider never settled: its promises can no longer resolve"}'
	# A stdout that cannot be written: exit 74, never a silent 0.
	# shellcheck disable=SC2046
	node $(node "$(ref)" flags) --disallow-code-generation-from-strings \
	    --no-warnings -e "$(cat "$(top)/provider/driver.mjs")" \
	    < req 1</dev/null
	st=$?
	[ "$st" -eq 74 ] || atf_fail "driver with a read-only stdout exited $st"
}

atf_test_case sbxctl_digest_bundle
sbxctl_digest_bundle_head()
{
	atf_set "descr" "sbxctl digest bundle on the example equals node's" \
	    "digest, the review file's and the allowlist's"
}
sbxctl_digest_bundle_body()
{
	need_node
	want=$(node "$(ref)" digest "$(example)" gate-providers/example.mjs) ||
	    atf_fail "node could not digest the example"
	atf_check -o inline:"$want\n" "$(sbxctl)" digest bundle "$(example)" \
	    gate-providers/example.mjs
	atf_check -o inline:"{\"digest\":\"$want\"}\n" "$(sbxctl)" --json \
	    digest bundle "$(example)" gate-providers/example.mjs
	atf_check -o match:"\"codeDigest\":\"$want\"" \
	    cat "$(example)/gate-providers/example-review.json"
	atf_check -o match:"\"codeDigest\": \"$want\"" \
	    cat "$(example)/providers.json"
	# A copy with one byte more in the helper moves the digest.
	cp -R "$(example)" copy
	printf '// tweak\n' >> copy/gate-providers/helper.mjs
	moved=$(node "$(ref)" digest copy gate-providers/example.mjs)
	[ "$moved" != "$want" ] || atf_fail "digest did not move"
	atf_check -o inline:"$moved\n" "$(sbxctl)" digest bundle copy \
	    gate-providers/example.mjs
	# Errors name the code and the file.
	ln -s helper.mjs copy/gate-providers/link.mjs
	atf_check -s exit:1 -e inline:"sbxctl: copy: path-escape: gate-providers/link.mjs: must not be a symlink\n" \
	    "$(sbxctl)" digest bundle copy gate-providers/example.mjs
	atf_check -s exit:1 -o inline:'{"error":{"code":"path-escape","message":"copy: path-escape: gate-providers/link.mjs: must not be a symlink"}}\n' \
	    "$(sbxctl)" --json digest bundle copy gate-providers/example.mjs
	atf_check -s exit:1 -e match:'path-escape: entry module "\.\./x\.mjs": not a bundle-relative' \
	    "$(sbxctl)" digest bundle copy ../x.mjs
	atf_check -s exit:1 -e match:'^sbxctl: nope: No such file' \
	    "$(sbxctl)" digest bundle nope gate-providers/example.mjs
	atf_check -s exit:2 -e match:'a bundle directory and an entry module expected' \
	    "$(sbxctl)" digest bundle copy
}

atf_test_case seed_vectors
seed_vectors_head()
{
	atf_set "descr" "deriveIsolatedSeed on the spec's worked values, by" \
	    "node (the C side is checked against the same in t_provider_pin)"
}
seed_vectors_body()
{
	need_node
	code=sha256:76cd4dcb9af82fc27461a845254401bd66e96f8f5198cbb57c28c1f99511a590
	atf_check -o inline:"635942133\n" node "$(ref)" seed $code \
	    sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945
	atf_check -o inline:"1374762198\n" node "$(ref)" seed $code \
	    sha256:1cdc0d373ad3a1af2990c0383eb27d5791e580c92bb4411ed1f648cda3f9b2ad
}

atf_init_test_cases()
{
	atf_add_test_case example_invoke
	atf_add_test_case example_inspect
	atf_add_test_case determinism
	atf_add_test_case clock_and_random
	atf_add_test_case no_code_generation
	atf_add_test_case no_process
	atf_add_test_case no_dynamic_import
	atf_add_test_case no_wasm_no_shared_memory
	atf_add_test_case frozen_intrinsics
	atf_add_test_case frozen_records
	atf_add_test_case thenable_result
	atf_add_test_case import_meta
	atf_add_test_case linking
	atf_add_test_case refusals
	atf_add_test_case nonce_line
	atf_add_test_case top_level_effects
	atf_add_test_case sbxctl_digest_bundle
	atf_add_test_case seed_vectors
}
