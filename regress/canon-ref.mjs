// Copyright (c) 2026 The sbx authors
// SPDX-License-Identifier: ISC
//
// canon-ref.mjs: the reference side of regress/canon.sh.  It generates
// test corpora from a seed and computes, with node itself, what sbx must
// produce: JSON.stringify of numbers and strings, and the canonical JSON
// digest of interop.md §P2 (keys sorted with the default sort, scalars
// by JSON.stringify, sha256 over the UTF-8 text).
//
//   node canon-ref.mjs numbers SEED COUNT    > hex lines; expected.txt
//   node canon-ref.mjs formats SEED COUNT    > input.txt; expected.txt
//   node canon-ref.mjs scans SEED COUNT      > input.txt; expected.txt
//   node canon-ref.mjs strings SEED COUNT    > input.txt; expected.txt
//   node canon-ref.mjs docs SEED COUNT DIR   DIR/doc-N.json; DIR/expected
//   node canon-ref.mjs mutants SEED COUNT    > input.txt; expected.txt
//   node canon-ref.mjs records SEED COUNT FILE  COUNT benchmark records
//   node canon-ref.mjs limits DIR            documents at and over the
//                                            reference's digest limits
//   node canon-ref.mjs digest FILE           the digest of one file
//
// Output files are written in the current directory.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

// mulberry32: small, seedable, good enough to spread test cases.
function rng(seed) {
	let a = seed >>> 0;
	const next = () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const int = (n) => Math.floor(next() * n);
	return {
		next, int,
		pick: (arr) => arr[int(arr.length)],
		chance: (p) => next() < p,
		u32: () => int(4294967296),
	};
}

// The reference canonicaliser: interop.md §P2, canonicalJson.
export function canon(v) {
	if (Array.isArray(v))
		return '[' + v.map(canon).join(',') + ']';
	if (v !== null && typeof v === 'object')
		return '{' + Object.keys(v).sort().map((k) =>
		    JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
	if (typeof v === 'number' && !Number.isFinite(v))
		throw new RangeError('non-finite number');
	return JSON.stringify(v);
}

export function digest(v) {
	return 'sha256:' + createHash('sha256').update(canon(v), 'utf8')
	    .digest('hex');
}

const hexOf = (d) => {
	const b = Buffer.alloc(8);
	b.writeDoubleBE(d);
	return b.toString('hex');
};
const fromBits = (hi, lo) => {
	const b = Buffer.alloc(8);
	b.writeUInt32BE(hi >>> 0, 0);
	b.writeUInt32BE(lo >>> 0, 4);
	return b.readDoubleBE(0);
};
const nextUp = (d) => {
	const b = Buffer.alloc(8);
	b.writeDoubleBE(d);
	b.writeBigUInt64BE(b.readBigUInt64BE(0) + 1n);
	return b.readDoubleBE(0);
};
const nextDown = (d) => {
	const b = Buffer.alloc(8);
	b.writeDoubleBE(d);
	b.writeBigUInt64BE(b.readBigUInt64BE(0) - 1n);
	return b.readDoubleBE(0);
};

function numberCorpus(r, count) {
	const out = [0, -0, 1e21, 1e-7, 5e-324, -5e-324, 0.1 + 0.2, 2 ** 53,
	    2 ** 53 + 2, 2 ** 53 - 1, Number.MAX_VALUE, Number.MIN_VALUE,
	    Number.EPSILON, 1e21 - 65536, 999999999999999900000, 1e-6,
	    9.999999999999999e-7, 123e-20, 1.5, -1.5, 100, 1e300, 1e-300];
	// Every power of two (the asymmetric-interval case) and both of its
	// neighbours, positive and negative.
	for (let e = -1074; e <= 1023; e++) {
		const p = 2 ** e;
		out.push(p, -p, nextUp(p));
		if (e > -1074)
			out.push(nextDown(p));
	}
	// Powers of ten across the range, and the layout boundaries of
	// Number::toString (n = 21 and n = -6).
	for (let i = -323; i <= 308; i++) {
		const p = Number('1e' + i);
		out.push(p, nextUp(p), nextDown(p));
	}
	for (let k = 1; k <= 17; k++)
		for (const e of [-8, -7, -6, -5, 19, 20, 21, 22])
			out.push(Number('1.' + '2345678901234567'.slice(0,
			    k - 1) + 'e' + e));
	// Random bit patterns (no NaN or Infinity: all-ones exponent).
	for (let i = 0; i < count; i++) {
		const hi = r.u32(), lo = r.u32();
		if (((hi >>> 20) & 0x7ff) === 0x7ff)
			continue;
		out.push(fromBits(hi, lo));
	}
	// Short decimals with random exponents: shortest output < 17 digits.
	for (let i = 0; i < count; i++) {
		const digits = String(1 + r.int(10 ** (1 + r.int(15))));
		const d = Number(digits + 'e' + (r.int(640) - 330));
		if (Number.isFinite(d))
			out.push(r.chance(0.5) ? d : -d);
	}
	// Integers: small, near 2^53, and large.
	for (let i = 0; i < count / 10; i++)
		out.push(r.int(2 ** 31) - 2 ** 30, 2 ** 53 - r.int(1e6),
		    r.int(2 ** 30) * 2 ** (r.int(60)));
	return out;
}

// ---- the number formatter and scanner, exhaustively-ish ---------------
// formats: COUNT doubles in classes that each stress one part of
// numfmt.c; input.txt holds their bit patterns, expected.txt what
// JSON.stringify writes.
function formatCorpus(r, count) {
	const out = [];
	const per = Math.max(1, Math.floor(count / 10));
	const bits = (hi, lo) => fromBits(hi, lo);
	const add = (d) => { if (Number.isFinite(d)) out.push(d); };
	const sgn = (d) => (r.chance(0.5) ? d : -d);
	// 1. uniformly random bit patterns (all exponents alike)
	for (let i = 0; i < 3 * per; i++)
		add(bits(r.u32(), r.u32()));
	// 2. subnormals: random, and the smallest few thousand exactly
	for (let i = 0; i < per / 2; i++)
		add(sgn(bits(r.int(0x100000), r.u32())));
	for (let c = 1; c <= per / 2; c++)
		add(c * 2 ** -1074);
	// 3. integers near 2^53 (both sides) and larger ones up to 2^70
	for (let i = 0; i < per / 2; i++) {
		add(sgn(2 ** 53 + (r.int(2e6) - 1e6) * 2));
		add(sgn(r.int(2 ** 30) * 2 ** (23 + r.int(40)) + r.int(2 ** 23)));
	}
	// 4. powers of ten and their neighbours, a few ulps either way
	for (let i = 0; i < per / 2; i++) {
		let d = Number('1e' + (r.int(632) - 323));
		const k = r.int(6);
		for (let j = 0; j < k; j++)
			d = r.chance(0.5) || d === 2 ** -1074 ? nextUp(d) :
			    nextDown(d);
		add(sgn(d));
	}
	// 5. the thresholds where the layout changes: 1e21 and 1e-7 (and
	//    1e-6), walked a few hundred ulps either way, and short
	//    decimals just inside and outside them
	for (const t of [1e21, 1e-7, 1e-6]) {
		let up = t, down = t;
		for (let j = 0; j < per / 6; j++) {
			add(up); add(down); add(-up);
			up = nextUp(up); down = nextDown(down);
		}
	}
	for (let i = 0; i < per / 2; i++) {
		const e = r.pick([-8, -7, -6, 20, 21, 22]);
		add(sgn(Number(String(1 + r.int(999999)) + 'e' + (e - r.int(6)))));
	}
	// 6. 17 significant digits, the longest shortest form
	for (let i = 0; i < per; i++) {
		let m = String(1 + r.int(9));
		for (let j = 0; j < 16; j++)
			m += String(r.int(10));
		add(sgn(Number(m[0] + '.' + m.slice(1) + 'e' +
		    (r.int(600) - 300))));
	}
	// 7. short decimals (1 to 15 digits): the multiple-of-ten case
	for (let i = 0; i < per; i++)
		add(sgn(Number(String(1 + r.int(10 ** (1 + r.int(15)))) + 'e' +
		    (r.int(640) - 330))));
	// 8. powers of two (the narrower lower interval) and neighbours
	for (let i = 0; i < per / 2; i++) {
		const p = 2 ** (r.int(2098) - 1074);
		add(sgn(r.pick([p, nextUp(p), p === 2 ** -1074 ? p :
		    nextDown(p)])));
	}
	// 9. fractions as programs compute them
	for (let i = 0; i < per; i++)
		add(sgn(r.pick([r.next(), r.next() * 100 / 3,
		    Math.round(r.next() * 1e6) / 1000, 1 / (1 + r.int(1e6))])));
	return out;
}

// scans: number texts; expected is the bit pattern JSON.parse gives, or
// "error" where sbx must refuse (the value is beyond a double).
const exactDecimal = (m, e) => {
	// m * 2^e exactly, as decimal text (BigInt m >= 0).
	if (e >= 0)
		return (m << BigInt(e)).toString();
	const k = -e;
	const s = (m * 5n ** BigInt(k)).toString().padStart(k + 1, '0');
	return (s.slice(0, s.length - k) + '.' + s.slice(s.length - k))
	    .replace(/\.?0+$/, '');
};
const decompose = (d) => {
	const b = Buffer.alloc(8);
	b.writeDoubleBE(d);
	const x = b.readBigUInt64BE(0);
	const be = Number((x >> 52n) & 0x7ffn), f = x & ((1n << 52n) - 1n);
	return be === 0 ? [f, -1074] : [f | 1n << 52n, be - 1075];
};
function scanCorpus(r, count) {
	const out = [];
	const per = Math.max(1, Math.floor(count / 6));
	const sgn = (t) => (r.chance(0.5) ? t : '-' + t);
	const spell = (d) => r.pick([JSON.stringify(d),
	    d.toExponential().replace('e', r.pick(['e', 'E'])),
	    d.toExponential(Math.min(100, 17 + r.int(10)))]);
	// 1. shortest and long spellings of random doubles
	for (let i = 0; i < per; i++) {
		let d;
		do
			d = fromBits(r.u32(), r.u32());
		while (!Number.isFinite(d));
		out.push(spell(d));
	}
	// 2. exactly halfway between two doubles, and a hair either side:
	//    the inputs no fast path can decide
	for (let i = 0; i < per; i++) {
		let d;
		do
			d = Math.abs(fromBits(r.u32(), r.u32()));
		while (!Number.isFinite(d) || d === Number.MAX_VALUE);
		if (r.chance(0.3))
			d = Math.abs(fromBits(r.int(0x100000), r.u32()));
		const [m, e] = decompose(d);
		let t = exactDecimal(2n * m + 1n, e - 1);
		if (t.length > 780)	// keep lines short; still halfway
			continue;
		const tweak = r.int(3);
		if (tweak === 1)
			t += t.includes('.') ? '0000000001' : '.0000000001';
		else if (tweak === 2)
			t = t.replace(/(\d)$/, (c) => c === '0' ? '0' :
			    String(Number(c) - 1) + '999999');
		out.push(sgn(t));
	}
	// 3. decimals of 1 to 40 digits with exponents over the whole range
	//    and beyond it (underflow to zero, overflow refused)
	for (let i = 0; i < per; i++) {
		let m = String(1 + r.int(9));
		const n = r.int(40);
		for (let j = 0; j < n; j++)
			m += String(r.int(10));
		const dot = r.int(m.length + 1);
		const text = dot === 0 || dot === m.length ? m :
		    m.slice(0, dot) + '.' + m.slice(dot);
		out.push(sgn(text + r.pick(['e', 'E']) + r.pick(['', '+', '-']) +
		    String(r.int(700))));
	}
	// 4. near the ends of the range
	const ends = ['1.7976931348623157e308', '1.7976931348623158e308',
	    '1.7976931348623159e308', '179769313486231580793728971405301e276',
	    '2.4703282292062327e-324', '2.4703282292062328e-324',
	    '4.9406564584124654e-324', '2.2250738585072011e-308',
	    '2.2250738585072012e-308', '0.0', '0e999999999999', '1e-999999999',
	    '1e999999999', '9007199254740993', '9007199254740995',
	    '18446744073709551615', '18446744073709551616', '1e23',
	    '8.98846567431158e307', '0.1', '0.30000000000000004'];
	for (const t of ends)
		out.push(t, '-' + t);
	for (let i = 0; i < per / 2; i++) {
		const d = nextDown(Number.MAX_VALUE) * (1 + r.next() * 1e-15);
		if (Number.isFinite(d))
			out.push(d.toExponential(16 + r.int(8)));
		out.push((r.int(1e6) * 2 ** -1074).toExponential(r.int(25)));
	}
	// 5. integers around 2^53 and 2^64 with many digits
	for (let i = 0; i < per / 2; i++) {
		const b = r.chance(0.5) ? 2n ** 53n : 2n ** 64n;
		out.push(sgn((b + BigInt(r.int(2e6)) - 1000000n).toString()));
	}
	return out;
}

// Code units for strings: every class the escaper treats differently.
function randomUnits(r, len) {
	const units = [];
	while (units.length < len) {
		switch (r.int(12)) {
		case 0: units.push(r.int(0x20)); break;		// controls
		case 1: units.push(r.pick([0x22, 0x5c, 0x2f, 0x7f])); break;
		case 2: case 3: units.push(0x20 + r.int(0x5f)); break;
		case 4: units.push(0x80 + r.int(0x780)); break;	// 2-byte
		case 5: units.push(r.pick([0x2028, 0x2029, 0xfeff, 0xfffe,
		    0xffff, 0xe000, 0x800, 0x7ff])); break;
		case 6: {					// 3-byte
			const u = 0x800 + r.int(0xf800);
			units.push(u >= 0xd800 && u <= 0xdfff ? 0x4e2d : u);
			break;
		}
		case 7: {					// astral pair
			const cp = 0x10000 + r.int(0x100000);
			units.push(0xd800 + ((cp - 0x10000) >> 10),
			    0xdc00 + ((cp - 0x10000) & 0x3ff));
			break;
		}
		case 8: units.push(0xd800 + r.int(0x400)); break;	// lone high
		case 9: units.push(0xdc00 + r.int(0x400)); break;	// lone low
		case 10: units.push(0xdc00 + r.int(0x400),		// reversed
		    0xd800 + r.int(0x400)); break;
		default: units.push(0x61 + r.int(26)); break;
		}
	}
	return units.slice(0, len);
}

const hex4 = (u, upper) => {
	const h = u.toString(16).padStart(4, '0');
	return upper ? h.toUpperCase() : h;
};
const shortEsc = { 0x22: '\\"', 0x5c: '\\\\', 0x08: '\\b', 0x0c: '\\f',
    0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x2f: '\\/' };

// Write a string as JSON text, choosing per code unit between raw UTF-8
// (where JSON allows it), short escapes and \u escapes in either case.
// Lone surrogates can only be escaped; a pair may be escaped or raw.
function noisyString(r, s) {
	let out = '"';
	for (let i = 0; i < s.length; i++) {
		const u = s.charCodeAt(i);
		const lo = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
		const pair = u >= 0xd800 && u <= 0xdbff && lo >= 0xdc00 &&
		    lo <= 0xdfff;
		const lone = !pair && u >= 0xd800 && u <= 0xdfff;
		const raw = u >= 0x20 && u !== 0x22 && u !== 0x5c && !lone;
		if (raw && r.chance(0.6)) {
			out += pair ? s.slice(i, i + 2) : s[i];
		} else if (shortEsc[u] !== undefined && r.chance(0.7)) {
			out += shortEsc[u];
		} else {
			out += '\\u' + hex4(u, r.chance(0.5));
			if (pair)
				out += '\\u' + hex4(lo, r.chance(0.5));
		}
		if (pair)
			i++;
	}
	return out + '"';
}

const randomString = (r, max) =>
    String.fromCharCode(...randomUnits(r, r.int(max + 1)));

// Spell a number in one of the ways JSON allows.
function noisyNumber(r, d) {
	if (Object.is(d, -0))
		return r.pick(['-0', '-0.0', '-0e0', '-0E+00']);
	switch (r.int(4)) {
	case 0: return d.toExponential().replace('e', r.pick(['e', 'E']));
	case 1: return Number.isInteger(d) && Math.abs(d) < 1e21 ?
	    d.toFixed(r.int(3)) : JSON.stringify(d);
	case 2: return d.toExponential(16);
	default: return JSON.stringify(d);
	}
}

function randomNumber(r) {
	switch (r.int(7)) {
	case 0: return r.int(200) - 100;
	case 1: return r.int(2 ** 53) * (r.chance(0.5) ? 1 : -1);
	case 2: {
		let d;
		do
			d = fromBits(r.u32(), r.u32());
		while (!Number.isFinite(d));
		return d;
	}
	case 3: return Number((r.next() * 1000).toFixed(r.int(6)));
	case 4: return Number(String(1 + r.int(999999)) + 'e' +
	    (r.int(600) - 300));
	case 5: return r.pick([0, -0, 1e21, 1e-7, 5e-324, 0.1 + 0.2,
	    2 ** 53, 1e21 - 65536, 2 ** -44, 2 ** 89]);
	default: return r.next();
	}
}

const KEYS = ['a', 'b', 'slice', 'failed', 'A', '', '10', '9', '1',
    '__proto__', 'constructor', '\u00e9', '\uffff', '\ud83d\ude00', '\ud800',
    'aa', 'a\u0000', 'key with space'];

// A random JSON text.  Objects may repeat keys (only text can); dups
// says whether they may.  ws says whether newlines are allowed.
function randomText(r, depth, o) {
	const sp = () => (r.chance(o.wsp) ? r.pick(o.ws) : '');
	const kind = depth >= o.maxDepth ? r.int(4) : r.int(8);
	switch (kind) {
	case 0: return r.pick(['null', 'true', 'false']);
	case 1: return noisyNumber(r, randomNumber(r));
	case 2: case 3: return noisyString(r, randomString(r, 12));
	case 4: case 5: {
		const n = depth < 2 && r.chance(0.05) ? r.int(o.wide) :
		    r.int(6);
		const items = [];
		for (let i = 0; i < n; i++)
			items.push(sp() + randomText(r, depth + 1, o) + sp());
		return '[' + sp() + items.join(',') + ']';
	}
	default: {
		const n = depth < 2 && r.chance(0.05) ? r.int(o.wide) :
		    r.int(6);
		const mem = [];
		for (let i = 0; i < n; i++) {
			const k = r.chance(0.5) ? r.pick(KEYS) :
			    randomString(r, 6);
			mem.push(sp() + noisyString(r, k) + sp() + ':' + sp() +
			    randomText(r, depth + 1, o) + sp());
			if (o.dups && r.chance(0.1))
				mem.push(noisyString(r, k) + ':' +
				    randomText(r, depth + 1, o));
		}
		return '{' + mem.join(',') + '}';
	}
	}
}

function nest(r, inner, levels) {
	let s = inner;
	for (let i = 0; i < levels; i++)
		s = r.chance(0.5) ? '[' + s + ']' : '{"k' + (i % 3) + '":' + s +
		    '}';
	return s;
}

// Does valid JSON text spell a number beyond the double range anywhere,
// even in a value a later duplicate key replaces?  sbx refuses those
// while parsing; JSON.parse would have made them Infinity.
function hasHugeNumber(text) {
	const bare = text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
	const nums = bare.match(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) || [];
	return nums.some((m) => !Number.isFinite(Number(m)));
}

// Expected canonical text of a JSON text, or "error" where sbx must
// refuse it: JSON.parse refuses, or a number is beyond the double range.
function expectCanon(text) {
	try {
		const v = JSON.parse(text);
		return hasHugeNumber(text) ? 'error' : canon(v);
	} catch (e) {
		return 'error';
	}
}

// The reference's admitEntry limits (interop.md §P2, artifactDigest):
// what its records digest refuses as "not digestible".  Values are
// visited depth first; the root is at depth 0 and counts as a node.
const ADMIT = { bytes: 262144, depth: 32, keys: 4096, array: 4096,
    string: 65536, nodes: 8192 };
const UNSAFE = new Set(['__proto__', 'prototype', 'constructor']);
export function admit(root) {
	let bytes = 0, keys = 0, nodes = 0;
	const utf8 = (t) => Buffer.byteLength(t, 'utf8');
	const walk = (v, depth) => {
		if (++nodes > ADMIT.nodes)
			return 'entry-count';
		if (depth > ADMIT.depth)
			return 'nesting-depth';
		if (Array.isArray(v)) {
			if (v.length > ADMIT.array)
				return 'array-length';
			for (const e of v) {
				const r = walk(e, depth + 1);
				if (r)
					return r;
			}
			return null;
		}
		if (v !== null && typeof v === 'object') {
			for (const k of Object.keys(v)) {
				if (UNSAFE.has(k))
					return 'unsafe-key';
				if (++keys > ADMIT.keys)
					return 'property-count';
				bytes += utf8(JSON.stringify(k));
				const r = walk(v[k], depth + 1);
				if (r)
					return r;
			}
			return bytes > ADMIT.bytes ? 'serialized-bytes' : null;
		}
		if (typeof v === 'string' && v.length > ADMIT.string)
			return 'string-length';
		if (typeof v === 'number' && !Number.isFinite(v))
			return 'nonfinite-number';
		bytes += utf8(JSON.stringify(v));
		return bytes > ADMIT.bytes ? 'serialized-bytes' : null;
	};
	return walk(root, 0) || 'admitted';
}

// Documents at each limit and one step over it; the last is 50,000
// records, provider-max-records' default.
function limitDocs(r) {
	const rec = (i) => ({ slice: 'café ' + (i % 7), score: r.next(),
	    failed: i % 3 === 0 });
	const recs = (n) => Array.from({ length: n }, (_, i) => rec(i));
	const docs = {};
	// records: each record is 1 + 3 nodes, 3 keys
	docs['records-1024'] = recs(1024);		// 4096 nodes, 3072 keys
	docs['records-4096-flat'] = Array.from({ length: 4096 },
	    (_, i) => i / 7);
	docs['records-4097-flat'] = Array.from({ length: 4097 },
	    (_, i) => i / 7);
	// nodes: 1 root + 2047 arrays of 3 = 8189; + 3 more singles = 8192
	const nodes = (n) => {
		const a = [];
		let left = n - 1;
		while (left >= 4) {
			a.push([left, 1.5, 'é']);
			left -= 4;
		}
		while (left-- > 0)
			a.push(0.25);
		return a;
	};
	docs['nodes-8192'] = nodes(8192);
	docs['nodes-8193'] = nodes(8193);
	// keys: objects of 8 keys with short values
	const keyed = (n) => {
		const a = [];
		for (let k = 0; k < n; k += 8) {
			const o = {};
			for (let j = k; j < Math.min(n, k + 8); j++)
				o['k' + (j % 8) + 'ü'] = j;
			a.push(o);
		}
		return a;
	};
	docs['keys-4096'] = keyed(4096);
	docs['keys-4097'] = keyed(4097);
	// one long string, in UTF-16 code units, astral pairs included
	const str = (n) => ['x', '😀'.repeat(n / 4) + 'é'.repeat(n / 2 - 1) +
	    'a'.repeat(n - (n / 4) * 2 - (n / 2 - 1))];
	docs['string-65536'] = str(65536);
	docs['string-65537'] = [docs['string-65536'][0],
	    docs['string-65536'][1] + 'z'];
	// serialized scalar bytes: strings of 1000 bytes of JSON text
	const sized = (total) => {
		const a = [];
		while (total >= 1000) {
			a.push('y'.repeat(998));
			total -= 1000;
		}
		a.push('w'.repeat(total - 2));
		return a;
	};
	docs['bytes-262144'] = sized(262144);
	docs['bytes-262145'] = sized(262145);
	// depth: root at 0, 32 levels below it
	let deep = 1.25;
	for (let i = 0; i < 32; i++)
		deep = i % 2 ? [deep] : { d: deep };
	docs['depth-32'] = deep;
	docs['depth-33'] = [deep];
	docs['unsafe-key'] = [JSON.parse('{"__proto__":1,"a":2}')];
	docs['records-50000'] = recs(50000);
	return docs;
}

const [mode, seedArg, countArg, dir] = process.argv.slice(2);
const r = rng(Number(seedArg));
const count = Number(countArg);

switch (mode) {
case 'numbers': {
	const nums = numberCorpus(r, count);
	writeFileSync('input.txt', nums.map(hexOf).join('\n') + '\n');
	writeFileSync('expected.txt', nums.map((d) => JSON.stringify(d))
	    .join('\n') + '\n');
	break;
}
case 'formats': {
	const nums = formatCorpus(r, count);
	writeFileSync('input.txt', nums.map(hexOf).join('\n') + '\n');
	writeFileSync('expected.txt', nums.map((d) => JSON.stringify(d))
	    .join('\n') + '\n');
	break;
}
case 'scans': {
	const texts = scanCorpus(r, count);
	writeFileSync('input.txt', texts.join('\n') + '\n');
	writeFileSync('expected.txt', texts.map((t) => {
		const d = JSON.parse(t);
		return Number.isFinite(d) ? hexOf(d) : 'error';
	}).join('\n') + '\n');
	break;
}
case 'strings': {
	const inp = [], exp = [];
	for (let i = 0; i < count; i++) {
		const s = randomString(r, 40);
		inp.push(noisyString(r, s));
		exp.push(JSON.stringify(s));
	}
	// Objects: key order by UTF-16 code units, duplicates last-wins.
	for (let i = 0; i < count / 4; i++) {
		const mem = [];
		const n = 1 + r.int(8);
		for (let j = 0; j < n; j++)
			mem.push(noisyString(r, r.chance(0.5) ? r.pick(KEYS) :
			    randomString(r, 4)) + ':' + r.int(10));
		const t = '{' + mem.join(',') + '}';
		inp.push(t);
		exp.push(canon(JSON.parse(t)));
	}
	writeFileSync('input.txt', inp.join('\n') + '\n');
	writeFileSync('expected.txt', exp.join('\n') + '\n');
	break;
}
case 'docs': {
	mkdirSync(dir, { recursive: true });
	const lines = [];
	const o = { maxDepth: 6, wide: 300, wsp: 0.3, dups: true,
	    ws: [' ', '\n', '\t', '\r\n', '  '] };
	for (let i = 0; i < count; i++) {
		let t = randomText(r, 0, o);
		if (i % 10 === 3)		// deep, well inside the limit
			t = nest(r, t, 100 + r.int(400));
		if (i % 10 === 7) {		// wide
			const items = [];
			for (let j = 0; j < 2000; j++)
				items.push(randomText(r, o.maxDepth - 1, o));
			t = '[' + items.join(',') + ']';
		}
		if (r.chance(0.3))
			t = r.pick(o.ws) + t + r.pick(o.ws);
		const name = 'doc-' + String(i).padStart(4, '0') + '.json';
		writeFileSync(dir + '/' + name, t);
		// Expectation from the bytes as written, read back as text.
		const v = JSON.parse(readFileSync(dir + '/' + name, 'utf8'));
		lines.push(name + ' ' + digest(v));
	}
	writeFileSync(dir + '/expected', lines.join('\n') + '\n');
	break;
}
case 'mutants': {
	// Small edits of valid documents, ASCII only so the bytes stay
	// UTF-8: sbx must refuse exactly what JSON.parse refuses (plus
	// numbers out of the double range) and agree on the rest.
	const o = { maxDepth: 4, wide: 20, wsp: 0.3, dups: true,
	    ws: [' ', '\t', '  '] };
	const alphabet = '{}[],:"\\ 0123456789.-+eEtrufalsn/ux\t';
	const inp = [], exp = [];
	for (let i = 0; i < count; i++) {
		let t = randomText(r, 0, o);
		const edits = 1 + r.int(2);
		for (let e = 0; e < edits; e++) {
			const ascii = [];
			for (let p = 0; p <= t.length; p++)
				if (p === t.length || t.charCodeAt(p) < 0x80)
					ascii.push(p);
			const p = r.pick(ascii);
			const c = r.pick(alphabet);
			switch (r.int(3)) {
			case 0: t = t.slice(0, p) + t.slice(p + 1); break;
			case 1: t = t.slice(0, p) + c + t.slice(p + 1); break;
			default: t = t.slice(0, p) + c + t.slice(p); break;
			}
		}
		inp.push(t);
		exp.push(expectCanon(t));
	}
	writeFileSync('input.txt', inp.join('\n') + '\n');
	writeFileSync('expected.txt', exp.join('\n') + '\n');
	break;
}
case 'records': {
	// Records as a provider's input might be (regress/bench/b_digest.sh):
	// numbers with fractions (a score as JavaScript computes it, mostly
	// 15 to 17 significant digits, and a latency in milliseconds), a
	// boolean, and a slice name in non-ASCII text.
	const words = ['déjà vu', 'naïve', 'Ελληνικά', 'русский', '日本語',
	    'emoji 😀', 'straße', 'ça va', 'Zürich', 'København'];
	const recs = [];
	for (let i = 0; i < count; i++)
		recs.push({
			slice: r.pick(words) + ' ' + (i % 32),
			score: r.next(),
			latencyMs: Math.round(r.next() * 1e6) / 1000,
			failed: r.chance(0.1),
		});
	writeFileSync(dir, JSON.stringify(recs));
	break;
}
case 'limits': {
	// DIR/<name>.json and DIR/expected: "<name> <digest> <admission>".
	const out = seedArg;
	mkdirSync(out, { recursive: true });
	const lines = [];
	for (const [name, doc] of Object.entries(limitDocs(rng(7)))) {
		writeFileSync(out + '/' + name + '.json', JSON.stringify(doc));
		const v = JSON.parse(readFileSync(out + '/' + name + '.json',
		    'utf8'));
		lines.push(name + ' ' + digest(v) + ' ' + admit(v));
	}
	writeFileSync(out + '/expected', lines.join('\n') + '\n');
	break;
}
case 'digest':
	console.log(digest(JSON.parse(readFileSync(seedArg, 'utf8'))));
	break;
default:
	console.error('usage: canon-ref.mjs numbers|strings|docs|mutants ...');
	process.exit(2);
}
