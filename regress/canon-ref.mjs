// canon-ref.mjs: the reference side of regress/canon.sh.  It generates
// test corpora from a seed and computes, with node itself, what sbx must
// produce: JSON.stringify of numbers and strings, and the canonical JSON
// digest of provider-spec 2 (keys sorted with the default sort, scalars
// by JSON.stringify, sha256 over the UTF-8 text).
//
//   node canon-ref.mjs numbers SEED COUNT    > hex lines; expected.txt
//   node canon-ref.mjs strings SEED COUNT    > input.txt; expected.txt
//   node canon-ref.mjs docs SEED COUNT DIR   DIR/doc-N.json; DIR/expected
//   node canon-ref.mjs mutants SEED COUNT    > input.txt; expected.txt
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

// The reference canonicaliser: provider-spec 2, canonicalJson.
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
case 'digest':
	console.log(digest(JSON.parse(readFileSync(seedArg, 'utf8'))));
	break;
default:
	console.error('usage: canon-ref.mjs numbers|strings|docs|mutants ...');
	process.exit(2);
}
