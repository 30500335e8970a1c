// Copyright (c) 2026 The sbx authors
// SPDX-License-Identifier: ISC
//
// driver.mjs: sbx's trusted driver for one gate metric provider run.
//
// sbx-provider-runner embeds this file at build time and the provider
// sandbox runs it as
//
//	node <permission flag> --disallow-code-generation-from-strings
//	    [--experimental-vm-modules] --no-warnings -e <this file> [pooled]
//
// so node reads no file at all (the permission model grants none);
// "pooled" marks a sandbox booted ahead of its run (see warmUp).  It
// has no import statement: static imports make node set up its ES module
// loader, about 10 ms of every cold run's start (measured on node 20).
// It takes the two built-ins it needs from require as a script, and runs
// unchanged as a module (--input-type=module, the reference's launch
// plan, which make bench compares against) through
// process.getBuiltinModule, which a module needs node 20.16 for.
// Standard input is "<nonce>\n<request JSON>"; standard output is exactly
// one line "AIWG-RESULT <nonce> <json>\n" and nothing else.  The exit
// status is 0 whenever a line was written (a refusal is a framed
// {"ok":false}), 71 when the nonce line is malformed, 70 when a response
// was attempted before the nonce was known and 74 when stdout failed.
//
// Threat: every byte of the provider modules and of the records is
// hostile.  The OS sandbox around node is the boundary; everything here
// is defence in depth, and built so that a provider which escapes the vm
// context still meets the sandbox, and one which does not cannot forge,
// time or randomise its own result:
//  - the request and the per-run nonce are read before any provider code
//    is compiled, and the nonce lives only in this module's scope, so
//    provider code cannot frame a forged result line;
//  - provider code runs in a vm context with code generation from strings
//    and WebAssembly disabled, with dangerous globals removed, a frozen
//    clock, a seeded RNG and every reachable intrinsic frozen before the
//    first provider byte runs;
//  - only primitives cross between this (host) realm and the context:
//    host code hands the context strings and numbers, the context hands
//    back strings, and errors shown to provider code are context-realm
//    errors, so no host function (and through it `process`) is ever
//    reachable from provider code.

'use strict';

const builtin = typeof require === 'function' ? require :
    process.getBuiltinModule;
const { closeSync, readSync, writeSync } = builtin('node:fs');
const vm = builtin('node:vm');

const EXIT_NO_NONCE = 70;
const EXIT_BAD_NONCE = 71;
const EXIT_IO = 74;
const FRAME_OVERHEAD = 78;		// "AIWG-RESULT " nonce " " ... "\n"
const OUTPUT_CAP_DEFAULT = 1048576;
const OUTPUT_CAP_MIN = 1024;
const REQUEST_MAX = 64 * 1048576;
const ERROR_MAX = 2000;
const NONCE_RE = /^[0-9a-f]{64}$/;
const REQUEST_KEYS = ['entry', 'modules', 'mode', 'recordsJson', 'clockMs',
    'seed', 'expectedId', 'expectedVersion', 'maxOutputBytes'];

// Dates built from local fields must not depend on the host's zone.
process.env.TZ = 'UTC';

// Made before the request is read: the first TextDecoder costs ICU's
// set-up, which a pooled sandbox has then paid while it waited.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

let nonce = null;
let bodyCap = OUTPUT_CAP_DEFAULT - FRAME_OVERHEAD;
let responded = false;
let api = null;

class Refusal extends Error {}

// Write all of buf to fd.  fd 1 is never wrapped in a stream, so it stays
// as the parent made it; a non-blocking pipe is retried, not dropped.
function writeAll(fd, buf) {
	let off = 0;
	while (off < buf.length) {
		try {
			off += writeSync(fd, buf, off, buf.length - off);
		} catch (e) {
			if (e.code !== 'EAGAIN')
				throw e;
		}
	}
}

// The frame for body, as bytes.  The frame must fit the parent's output
// cap, so an oversized body becomes a refusal here instead of a
// truncated frame there.
function frameOf(n, cap, body) {
	let json;
	try {
		json = JSON.stringify(body);
	} catch {
		json = undefined;
	}
	if (typeof json !== 'string' || Buffer.byteLength(json) > cap)
		json = JSON.stringify({ ok: false, error:
		    'isolated provider response exceeds the output cap' });
	return Buffer.from('AIWG-RESULT ' + n + ' ' + json + '\n', 'utf8');
}

// The one way anything reaches stdout: the frame for body.  False if it
// could not be written (the parent went away).
function emit(body) {
	try {
		writeAll(1, frameOf(nonce, bodyCap, body));
	} catch {
		return false;
	}
	return true;
}

function respond(body) {
	if (responded)
		return;
	responded = true;
	if (nonce === null)
		process.exit(EXIT_NO_NONCE);
	const ok = emit(body);
	// The frame is complete: stdout's end tells the parent so now,
	// without waiting for node's own teardown.
	if (ok) {
		try {
			closeSync(1);
		} catch {
			// the exit closes it anyway
		}
	}
	process.exit(ok ? 0 : EXIT_IO);
}

function refuse(msg) {
	respond({ ok: false, error: String(msg).slice(0, ERROR_MAX) });
}

// Describe a thrown value without running provider code in this realm:
// our own errors are read here, anything else is described by the
// context (whose describe runs getters and toString there).
function describe(e) {
	if (e instanceof Error)
		return String(e.message);
	if (api !== null) {
		try {
			const s = api.describe(e);
			if (typeof s === 'string')
				return s;
		} catch {
			// fall through
		}
	}
	return typeof e === 'string' ? e : 'unknown';
}

process.on('uncaughtException', (e) => {
	refuse('isolated provider crashed: ' + describe(e));
});
process.on('unhandledRejection', (e) => {
	refuse('isolated provider crashed: ' + describe(e));
});
// The event loop ran dry without an answer: module evaluation or the
// result waits on a promise nothing can settle any more.  Say so in a
// frame rather than exit with empty output.
process.on('exit', () => {
	if (responded || nonce === null)
		return;
	responded = true;
	process.exitCode = emit({ ok: false, error: 'isolated provider never ' +
	    'settled: its promises can no longer resolve' }) ? 0 : EXIT_IO;
});

// Read all of stdin (bounded).  EAGAIN from a non-blocking pipe is
// retried after a short sleep.
function readStdin() {
	const chunks = [];
	const pause = new Int32Array(new SharedArrayBuffer(4));
	let total = 0;
	for (;;) {
		const buf = Buffer.allocUnsafe(65536);
		let n;
		try {
			n = readSync(0, buf, 0, buf.length, null);
		} catch (e) {
			if (e.code === 'EAGAIN') {
				Atomics.wait(pause, 0, 0, 1);
				continue;
			}
			throw e;
		}
		if (n === 0)
			break;
		total += n;
		if (total > REQUEST_MAX)
			return null;
		chunks.push(buf.subarray(0, n));
	}
	return Buffer.concat(chunks, total);
}

function isObject(v) {
	return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// The nonce line of raw ("<nonce>\n<request JSON>"), or null when it is
// missing or malformed -- then no frame can be written at all.
function nonceOf(raw) {
	const nl = raw === null ? -1 : raw.indexOf(0x0a);
	if (nl === -1)
		return null;
	const line = raw.subarray(0, nl).toString('latin1');
	return NONCE_RE.test(line) ? line : null;
}

// The request after the nonce line, checked: bytes are a Buffer.  Throws
// a Refusal, which the caller frames (the nonce is known by then); limits
// .cap is the frame body's cap as soon as the request has set it, so a
// refusal of the rest of the request is framed within it.
function parseRequest(bytes, limits) {
	let req;
	try {
		req = JSON.parse(utf8.decode(bytes));
	} catch (e) {
		throw new Refusal('isolated provider request is not JSON: ' +
		    describe(e));
	}
	const bad = (why) => new Refusal(
	    'isolated provider request is invalid: ' + why);
	if (!isObject(req))
		throw bad('not an object');
	for (const k of Object.keys(req))
		if (!REQUEST_KEYS.includes(k))
			throw bad('unknown field ' + JSON.stringify(k));
	if (req.maxOutputBytes !== undefined) {
		if (!Number.isSafeInteger(req.maxOutputBytes) ||
		    req.maxOutputBytes < OUTPUT_CAP_MIN)
			throw bad('maxOutputBytes must be an integer >= ' +
			    OUTPUT_CAP_MIN);
		limits.cap = req.maxOutputBytes - FRAME_OVERHEAD;
	}
	if (typeof req.entry !== 'string' || req.entry === '')
		throw bad('entry must be a non-empty string');
	if (!isObject(req.modules))
		throw bad('modules must be an object');
	const names = Object.keys(req.modules).sort();
	const modules = new Map();
	for (const name of names) {
		if (typeof req.modules[name] !== 'string')
			throw bad('module ' + JSON.stringify(name) +
			    ' is not a string');
		modules.set(name, req.modules[name]);
	}
	if (req.mode !== 'inspect' && req.mode !== 'invoke')
		throw bad('mode must be "inspect" or "invoke"');
	if (!Number.isSafeInteger(req.clockMs))
		throw new Refusal('isolated provider clock is not a safe ' +
		    'integer');
	if (!Number.isSafeInteger(req.seed) || req.seed < 0 ||
	    req.seed > 0xffffffff)
		throw new Refusal('isolated provider seed is not a 32-bit ' +
		    'unsigned integer');
	if (req.mode === 'invoke' && typeof req.recordsJson !== 'string')
		throw new Refusal('isolated provider records are missing');
	if (req.mode === 'inspect' && req.recordsJson !== undefined)
		throw bad('inspect takes no records');
	if (typeof req.expectedId !== 'string' || req.expectedId === '' ||
	    typeof req.expectedVersion !== 'string' ||
	    req.expectedVersion === '')
		throw bad('expectedId and expectedVersion must be non-empty ' +
		    'strings');
	return { entry: req.entry, modules, mode: req.mode,
	    recordsJson: req.recordsJson, clockMs: req.clockMs,
	    seed: req.seed, expectedId: req.expectedId,
	    expectedVersion: req.expectedVersion };
}

// Compiled in the context (its source text, never a host closure) and run
// before any provider code -- before the request is even read, so that a
// sandbox booted ahead of its run (provider-pool) has done this work
// already.  Returns the context-realm API the host drives; every function
// in it takes and returns primitives, except run, which takes the module
// namespace (a context object).  configure installs the request's clock,
// seed and records, once, before any provider module is compiled.
function contextBootstrap() {
	'use strict';
	const g = globalThis;
	const { apply, construct, ownKeys } = Reflect;
	const { getPrototypeOf, getOwnPropertyDescriptor, defineProperty,
	    freeze, keys } = Object;
	const isArray = Array.isArray;
	const PromiseCtor = Promise;
	const promiseResolve = Promise.resolve;
	const promiseThen = Promise.prototype.then;
	const stringify = JSON.stringify;
	const parse = JSON.parse;
	const ErrorCtor = Error;
	const StringCtor = String;
	const isSafeInteger = Number.isSafeInteger;
	const imul = Math.imul;
	const RealDate = Date;
	const dateToString = Date.prototype.toString;
	const dateParse = Date.parse;
	const dateUTC = Date.UTC;
	const SetCtor = Set;
	const setAdd = Set.prototype.add;
	const setHas = Set.prototype.has;
	const push = Array.prototype.push;
	const split = String.prototype.split;
	const pop = Array.prototype.pop;

	// Set once by configure, before any provider code runs; the shims
	// below read them and provider code cannot reach them.
	let FROZEN_MS = 0;
	let state = 1;
	let configured = false;
	let records;

	// Intrinsics not reachable by name from the global object; freezing
	// must reach them too or provider code could hijack, say, the
	// generator prototype shared with other modules of the run.
	const hidden = [];
	const keep = (v) => apply(push, hidden, [v]);
	keep(function () {});
	keep(async function () {});
	keep(function* () {});
	keep(async function* () {});
	keep((function* () {})());
	keep((async function* () {})());
	keep([][Symbol.iterator]());
	keep(new Map()[Symbol.iterator]());
	keep(new Set()[Symbol.iterator]());
	keep(''[Symbol.iterator]());
	keep(/x/[Symbol.matchAll](''));
	keep(getPrototypeOf(Int8Array));
	keep(Promise.resolve());
	keep((function () { return arguments; })());
	if (typeof [].values().map === 'function')
		keep([].values().map((x) => x));
	if (typeof g.Iterator === 'function' &&
	    typeof g.Iterator.from === 'function')
		keep(g.Iterator.from({ next() { return { done: true }; } }));
	keep(RealDate);

	// Globals provider code must not have: code generation (eval,
	// Function), WebAssembly, reflection that sees through our shims
	// (Proxy, Reflect), host I/O (console), locale and time sources
	// (Intl), shared memory and timing (Atomics, SharedArrayBuffer), GC
	// observation (FinalizationRegistry, WeakRef) and newer helpers whose
	// surface we have not reviewed.
	const removed = ['eval', 'Function', 'WebAssembly', 'Proxy',
	    'Reflect', 'console', 'Intl', 'Atomics', 'SharedArrayBuffer',
	    'FinalizationRegistry', 'WeakRef', 'AsyncDisposableStack',
	    'DisposableStack', 'SuppressedError', 'Iterator'];
	for (const name of removed) {
		if (!delete g[name])
			g[name] = undefined;
		if (g[name] !== undefined)
			throw new ErrorCtor('isolated context retains ' + name);
	}
	delete Math.random;
	if (Math.random !== undefined)
		throw new ErrorCtor('isolated context retains Math.random');

	// The frozen clock.  The shim shares the real prototype, so dates
	// work as usual, but the real constructor is unreachable: the
	// prototype's constructor points back at the shim and the shim's own
	// prototype chain is Function.prototype.
	const DateShim = function Date(...args) {
		if (new.target === undefined)
			return apply(dateToString,
			    construct(RealDate, [FROZEN_MS]), []);
		return construct(RealDate, args.length === 0 ? [FROZEN_MS] :
		    args, new.target);
	};
	defineProperty(DateShim, 'length', { value: 7 });
	defineProperty(DateShim, 'prototype', { value: RealDate.prototype,
	    writable: false, enumerable: false, configurable: false });
	defineProperty(RealDate.prototype, 'constructor', { value: DateShim,
	    writable: false, enumerable: false, configurable: false });
	const statics = {
		now: function now() { return FROZEN_MS; },
		parse: dateParse,
		UTC: dateUTC,
	};
	for (const k of ['now', 'parse', 'UTC'])
		defineProperty(DateShim, k, { value: statics[k],
		    writable: false, enumerable: false, configurable: false });

	// The seeded RNG: mulberry32, the generator the reference uses, so
	// a seed gives the same sequence in both.
	const random = function random() {
		state = (state + 0x6D2B79F5) >>> 0;
		let t = state;
		t = imul(t ^ (t >>> 15), t | 1);
		t ^= t + imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};

	// Not yet on the global object (configure puts them there), so the
	// walk below reaches them through here.
	keep(DateShim);
	keep(random);

	// Freeze everything reachable from the global object and the hidden
	// intrinsics: prototypes, values, getters and setters.  Otherwise
	// provider code could replace Promise.prototype.then (which host
	// awaits call) or install Error.prepareStackTrace.  The global
	// itself stays extensible so modules may share top-level state.
	const seen = new SetCtor();
	const work = [g];
	for (const h of hidden)
		apply(push, work, [h]);
	while (work.length > 0) {
		const o = apply(pop, work, []);
		if ((typeof o !== 'object' && typeof o !== 'function') ||
		    o === null || apply(setHas, seen, [o]))
			continue;
		apply(setAdd, seen, [o]);
		apply(push, work, [getPrototypeOf(o)]);
		for (const k of ownKeys(o)) {
			const d = getOwnPropertyDescriptor(o, k);
			if (d === undefined)
				continue;
			apply(push, work, [d.value, d.get, d.set]);
		}
	}
	for (const o of seen)
		if (o !== g)
			freeze(o);

	// Records are mostly an array of flat objects, and then reading
	// every record's keys is most of the work of freezing them.  Each
	// array or object in the parsed value has an opening bracket of its
	// own in the text (a bracket inside a string only adds to the
	// count), so when the text has exactly one bracket for the array
	// and one for each element that is an array or object, no element
	// holds another: freezing the array and its elements freezes it
	// all.  False (nothing frozen yet) otherwise.
	function freezeFlat(text, v) {
		if (!isArray(v))
			return false;
		// Splitting on a string, not matching a regular expression:
		// with RegExp.prototype frozen V8 leaves its fast path.
		const brackets = apply(split, text, ['{']).length - 1 +
		    apply(split, text, ['[']).length - 1;
		let n = 1;
		for (let i = 0; i < v.length; i++) {
			const e = v[i];
			if (e !== null && typeof e === 'object')
				n++;
		}
		if (brackets !== n)
			return false;
		for (let i = 0; i < v.length; i++) {
			const e = v[i];
			if (e !== null && typeof e === 'object')
				freeze(e);
		}
		freeze(v);
		return true;
	}

	// JSON.parse makes only arrays and plain objects whose keys are all
	// own, enumerable strings, so indices and keys reach every value;
	// only objects are stacked.  (Walking arrays through ownKeys made a
	// string per index: most of the time of 10,000 records.)
	function freezeDeep(root) {
		const stack = [root];
		let n = 1;
		while (n > 0) {
			const v = stack[--n];
			if (v === null || typeof v !== 'object')
				continue;
			freeze(v);
			if (isArray(v)) {
				for (let i = 0; i < v.length; i++) {
					const e = v[i];
					if (e !== null && typeof e === 'object')
						stack[n++] = e;
				}
			} else {
				const ks = keys(v);
				for (let i = 0; i < ks.length; i++) {
					const e = v[ks[i]];
					if (e !== null && typeof e === 'object')
						stack[n++] = e;
				}
			}
		}
	}

	// The request's clock, seed and records, then the globals that
	// expose them, in the order they always had.
	function configure(seed, clockMs, recordsJson) {
		if (configured)
			throw new ErrorCtor('isolated context configured twice');
		configured = true;
		if (!isSafeInteger(clockMs))
			throw new ErrorCtor('clock is not a safe integer');
		FROZEN_MS = clockMs;
		state = (seed >>> 0) || 1;
		for (const [k, v] of [['Date', DateShim], ['clock', FROZEN_MS],
		    ['random', random]])
			defineProperty(g, k, { value: v, writable: false,
			    enumerable: false, configurable: false });

		// Records are parsed here, so every object provider code
		// sees was made in its own realm, and frozen so that one
		// module of the run cannot edit what another reads.
		if (recordsJson !== undefined) {
			records = parse(recordsJson);
			if (!freezeFlat(recordsJson, records))
				freezeDeep(records);
		}
	}

	let resultText;
	function finish(body) {
		if (resultText !== undefined)
			return;
		let text;
		try {
			text = stringify(body);
		} catch {
			text = undefined;
		}
		if (typeof text !== 'string')
			text = stringify({ ok: false, error:
			    'provider result is not JSON-serializable' });
		resultText = text;
	}

	function describe(e) {
		try {
			if (typeof e === 'string')
				return e;
			if ((typeof e === 'object' && e !== null) ||
			    typeof e === 'function') {
				const m = e.message;
				if (typeof m === 'string')
					return m;
			}
			return StringCtor(e);
		} catch {
			return 'unknown';
		}
	}

	function fail(e) {
		finish({ ok: false, error: describe(e) });
	}

	function isPlainObject(v) {
		return v !== null && typeof v === 'object' && !isArray(v);
	}

	function run(ns, mode, expectedId, expectedVersion) {
		try {
			let desc = ns.provider;
			if (!desc)
				desc = ns.default;
			if (!isPlainObject(desc))
				return finish({ ok: false, error: 'provider ' +
				    'module exports no provider descriptor ' +
				    '(export "provider" or a default object)' });
			const id = desc.id;
			const version = desc.version;
			if (id !== expectedId || version !== expectedVersion)
				return finish({ ok: false, error: 'provider ' +
				    'identity does not match its manifest ' +
				    'declaration' });
			const description = desc.description;
			if (typeof description !== 'string' ||
			    description === '')
				return finish({ ok: false, error: 'provider ' +
				    'description must be a non-empty string' });
			const metrics = desc.metrics;
			if (!isPlainObject(metrics))
				return finish({ ok: false, error: 'provider ' +
				    'metrics must be an object' });
			if (mode === 'inspect')
				return finish({ ok: true, descriptor: { id,
				    version, description, metrics } });
			const compute = desc.compute;
			if (typeof compute !== 'function')
				return finish({ ok: false, error: 'provider ' +
				    'compute must be a function' });
			const out = apply(compute, desc, [records]);
			// Settle through the captured Promise machinery, with
			// context-realm callbacks: a thenable result meets
			// only functions of its own realm.
			const p = apply(promiseResolve, PromiseCtor, [out]);
			apply(promiseThen, p, [function (v) {
				if (!isPlainObject(v) ||
				    !isPlainObject(v.metrics))
					return finish({ ok: false, error:
					    'provider returned no metrics' });
				finish({ ok: true, result: v });
			}, fail]);
		} catch (e) {
			fail(e);
		}
	}

	return freeze({
		configure,
		run,
		poll: function poll() { return resultText; },
		describe,
		makeError: function makeError(msg) {
			return new ErrorCtor(StringCtor(msg));
		},
	});
}

// Resolve a static import specifier against the importing module's
// snapshot path.  Only relative .mjs paths inside the snapshot are
// served; bare names (packages, node: builtins), absolute paths, escapes
// and reserved names are refused before any code runs.
function resolveSpecifier(spec, parent, modules) {
	if (!spec.startsWith('./') && !spec.startsWith('../'))
		throw new Refusal('bare and external imports are forbidden: ' +
		    JSON.stringify(spec) + ' in ' + parent);
	const base = parent.slice(0, parent.lastIndexOf('/') + 1);
	const out = [];
	for (const seg of (base + spec).split('/')) {
		if (seg === '' || seg === '.')
			continue;
		if (seg === '..') {
			if (out.length === 0)
				throw new Refusal('provider import escapes ' +
				    'the snapshot: ' + JSON.stringify(spec) +
				    ' in ' + parent);
			out.pop();
			continue;
		}
		out.push(seg);
	}
	const rel = out.join('/');
	if (!rel.endsWith('.mjs'))
		throw new Refusal('provider modules must be relative .mjs ' +
		    'files: ' + JSON.stringify(spec) + ' in ' + parent);
	if (rel.startsWith('__aiwg_') || rel.includes('/__aiwg_'))
		throw new Refusal('provider import names a reserved path: ' +
		    JSON.stringify(spec) + ' in ' + parent);
	if (!modules.has(rel))
		throw new Refusal('provider import is not in the pinned ' +
		    'snapshot: ' + JSON.stringify(spec) + ' in ' + parent);
	return rel;
}

const immediate = () => new Promise((r) => setImmediate(r));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A vm context for one run, hardened (contextBootstrap), and its API.
function makeContext(name) {
	const context = vm.createContext(Object.create(null), {
		name,
		codeGeneration: { strings: false, wasm: false },
	});
	const boot = vm.runInContext('(' + contextBootstrap.toString() + ')',
	    context, { filename: 'sbx-bootstrap.js' });
	return { context, api: boot() };
}

// One provider run of a checked request in a context from makeContext,
// to the body to frame.  Throws a Refusal for anything but a result.
async function runProvider(req, context, capi) {
	try {
		capi.configure(req.seed, req.clockMs,
		    req.mode === 'invoke' ? req.recordsJson : undefined);
	} catch (e) {
		throw new Refusal('isolated context setup failed: ' +
		    describe(e));
	}

	// Dynamic import() is refused at run time with an error made in the
	// context: a host error would hand provider code the host's Function
	// through error.constructor.constructor.
	const denyDynamicImport = () => {
		throw capi.makeError('dynamic import() is forbidden: use ' +
		    'static relative imports');
	};
	const compiled = new Map();
	for (const [rel, source] of req.modules) {
		try {
			compiled.set(rel, new vm.SourceTextModule(source, {
				identifier: rel,
				context,
				importModuleDynamically: denyDynamicImport,
				// import.meta carries only the module's
				// snapshot-relative URL, never a host path.
				initializeImportMeta(meta) {
					meta.url = 'snapshot:///' + rel;
					Object.freeze(meta);
				},
			}));
		} catch (e) {
			throw new Refusal('provider module does not parse: ' +
			    rel + ': ' + describe(e));
		}
	}
	const entry = compiled.get(resolveSpecifier('./' + req.entry, '',
	    req.modules));
	try {
		await entry.link((spec, referencing) => compiled.get(
		    resolveSpecifier(spec, referencing.identifier,
		    req.modules)));
	} catch (e) {
		throw new Refusal(describe(e));
	}
	try {
		await entry.evaluate();
	} catch (e) {
		throw new Refusal('provider module threw during evaluation: ' +
		    describe(e));
	}

	capi.run(entry.namespace, req.mode, req.expectedId,
	    req.expectedVersion);
	// The context settles the result on its own promise machinery; the
	// host only ever reads the string it leaves behind.
	let text;
	for (let i = 0; typeof (text = capi.poll()) !== 'string'; i++)
		await (i < 64 ? immediate() : sleep(2));
	const body = JSON.parse(text);
	if (!isObject(body))
		throw new Refusal('isolated provider produced no result');
	if (body.ok !== true)
		throw new Refusal(typeof body.error === 'string' ? body.error :
		    'isolated provider failed');
	return body;
}

// The warm-up's provider: two modules, so linking resolves an import.
const WARM_UP_MODULES = {
	'sbx-warm-up/count.mjs': 'export function count(records) { ' +
	    'let n = 0; for (const r of records) if (r.failed === true) ' +
	    'n++; return n; }',
	'sbx-warm-up/provider.mjs': 'import { count } from "./count.mjs"; ' +
	    'export const provider = { id: "sbx.warm-up/v1", version: ' +
	    '"1.0.0", description: "warm-up", metrics: { n: { kind: ' +
	    '"count" } }, compute(records) { return { metrics: { n: ' +
	    'count(records) } }; } };',
};

// A pooled sandbox's wait for its request: a whole run of our own, from
// request bytes to frame bytes, through the same functions as the real
// run (parseRequest, makeContext, runProvider, frameOf) with only stdin
// and stdout left out.  V8 compiles a function on its first call, and
// the driver's functions keep what they learnt, so the real run finds
// them compiled and node's module machinery set up.  The warm-up's
// context is a separate realm; nothing of it reaches the provider's.
async function warmUp() {
	const text = JSON.stringify({ entry: 'sbx-warm-up/provider.mjs',
	    modules: WARM_UP_MODULES, mode: 'invoke',
	    recordsJson: '[{"failed":true,"slice":"w"},' +
	    '{"failed":false,"slice":"\u00e9"}]', clockMs: 0, seed: 1,
	    expectedId: 'sbx.warm-up/v1', expectedVersion: '1.0.0',
	    maxOutputBytes: OUTPUT_CAP_DEFAULT });
	const limits = { cap: 0 };
	nonceOf(Buffer.from('0'.repeat(64) + '\n', 'latin1'));
	const req = parseRequest(Buffer.from(text, 'utf8'), limits);
	const w = makeContext('sbx-warm-up');
	const body = await runProvider(req, w.context, w.api);
	frameOf('0'.repeat(64), limits.cap, body);
	// Writing nothing to a pipe is no data and wakes no reader, so the
	// runner sees nothing, but node's write path is then set up.
	writeSync(1, Buffer.alloc(0));
}

async function main() {
	// The context is built and hardened before the request is read: it
	// depends on nothing in it, and a pooled sandbox waits here with
	// the work done.  A failure is reported once the nonce is known.
	let context = null, bootError = null;
	if (typeof vm.SourceTextModule === 'function') {
		try {
			({ context, api } = makeContext('sbx-gate-provider'));
		} catch (e) {
			bootError = e;
		}
	}
	// A pooled sandbox warms up while it waits; a cold run skips this.
	if (process.argv[1] === 'pooled' && context !== null) {
		try {
			await warmUp();
		} catch {
			// only a warm-up
		}
	}
	const raw = readStdin();
	if ((nonce = nonceOf(raw)) === null)
		process.exit(EXIT_BAD_NONCE);
	const limits = { cap: bodyCap };
	let req;
	try {
		req = parseRequest(raw.subarray(raw.indexOf(0x0a) + 1), limits);
	} finally {
		bodyCap = limits.cap;
	}
	if (typeof vm.SourceTextModule !== 'function')
		throw new Refusal('node lacks vm.SourceTextModule ' +
		    '(run with --experimental-vm-modules)');
	if (bootError !== null)
		throw new Refusal('isolated context setup failed: ' +
		    describe(bootError));
	return runProvider(req, context, api);
}

main().then(respond, (e) => refuse(describe(e)));
